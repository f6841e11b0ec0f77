r"""mpmath references for the default ("sharp") curves: each function takes the curve's
parameters and recomputes, in plain high-precision mpmath and by a different code path
from the certified ``arb`` code, the bound that the curve reports.

* :func:`fswor_add_remove_exact_reference` -- Birrell et al. Thm 3.1 (6): the divergence
  :math:`D_\alpha(qN(1,\sigma^2/4)+(1-q)N(0,\sigma^2/4)\,\|\,N(0,\sigma^2/4))`, by the binomial sum of
  the mixture's moments at integer orders and by quadrature of the mixture density at real
  orders (not via the Poisson-subsampled Gaussian code);
  curve :class:`~rigorous_rdp.subsampling.fswor.FsworAddRemoveExactCurve`.
* :func:`fswor_replace_one_auto_reference` -- the minimum over m = 3..12 of the transcribed
  Thm 3.4 (14); curve :class:`~rigorous_rdp.subsampling.fswor.FsworReplaceOneAutoCurve`.
* :func:`fswor_replace_one_default_reference` -- the minimum of the above (or of a fixed m) and
  Wang et al. 2019 Thm 9; curve returned by
  :func:`~rigorous_rdp.subsampling.fswor.fswor_replace_one_default_curve`.
* :func:`weak_triangle_reference` -- Mironov 2017 Prop. 11 on the exact Poisson-subsampled
  Gaussian curve, minimised over the Hölder exponent p by golden-section search in mpmath;
  curve :class:`~rigorous_rdp.subsampling.poisson_replace_one.WeakTriangleReplaceOneCurve`.
* :func:`poisson_replace_one_default_reference` -- the minimum of Thm C.9, the weak triangle
  bound and :math:`2\alpha/\sigma^2`; curve of
  :func:`~rigorous_rdp.subsampling.poisson_replace_one.poisson_replace_one_default_curve`.
* :func:`small_order_chi2_reference` -- the second-moment bound for orders in (1, 2];
  curve :class:`~rigorous_rdp.subsampling.zhu_wang.SmallOrderChi2Curve`.
* :func:`poisson_pure_dp_default_reference` -- the minimum of the Zhu-Wang reference and the
  above; curve of :func:`~rigorous_rdp.subsampling.zhu_wang.poisson_pure_dp_default_curve`.

Not certified: mpmath's ``quad`` error is an estimate.  The module also registers these
references with :func:`~rigorous_rdp.reference.reference_rdp` for the events whose default
curve they describe (delegating everything else to the previous registrations).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from types import ModuleType

import mpmath
from mpmath import mp, mpf

from ..events import LaplaceEvent, RandomizedResponseEvent

#: an exact input, as :class:`fractions.Fraction` reads it (a float is taken as its exact binary value)
Exact = Fraction | int | float | str

__all__ = [
    "fswor_add_remove_exact_reference",
    "fswor_replace_one_auto_reference",
    "fswor_replace_one_default_reference",
    "poisson_pure_dp_default_reference",
    "poisson_replace_one_default_reference",
    "small_order_chi2_reference",
    "weak_triangle_reference",
]


def _f(x: Exact) -> mpf:
    x = Fraction(x)
    return mpf(x.numerator) / x.denominator


# ---------------------------------------------------------------------------
# FSwoR add/remove: Thm 3.1 (6) itself
# ---------------------------------------------------------------------------


def fswor_add_remove_exact_reference(alpha: Exact, q: Exact, sigma: Exact, dps: int = 30) -> mpf:
    r""":math:`\frac{1}{\alpha-1}\log E_{N(0,s^2)}[(1-q+q\,e^{(2z-1)/(2s^2)})^\alpha]`, :math:`s = \sigma/2`.

    Integer orders: :math:`\sum_k\binom{\alpha}{k}q^k(1-q)^{\alpha-k}e^{k(k-1)/(2s^2)}` minus 1, summed as
    non-negative terms.  Real orders: quadrature of
    :math:`\varphi_s(z)\,\mathrm{expm1}(\alpha\,\mathrm{log1p}(q\,\mathrm{expm1}(w)))` (the excess over 1,
    so that tiny values keep their digits), split at 0, 1/2, 1, the tilted peak and
    :math:`\pm` multiples of s around them.
    """
    a_q = Fraction(alpha)
    with mp.workdps(dps + 20):
        # precision for tiny results: the excess is ~ q^2 alpha^2 (e^{4/sigma^2}-1)/2
        qq = _f(q)
        lead = qq * qq * _f(a_q) ** 2 * mpmath.expm1(min(4 / _f(sigma) ** 2, mpf(60)))
        extra = max(0, int(-mpmath.log10(lead))) if lead < 1 else 0
    with mp.workdps(dps + 20 + extra):
        a, qq, s = _f(a_q), _f(q), _f(sigma) / 2
        two_s2 = 2 * s * s
        if a_q.denominator == 1:
            # binomial weights by their ratio recurrence (O(alpha) multiplications)
            n = int(a_q)
            w = (1 - qq) ** n
            r = qq / (1 - qq) if qq < 1 else None
            terms = []
            for k in range(0, n + 1):
                if k >= 2:
                    terms.append(w * mpmath.expm1(k * (k - 1) / two_s2))
                # q = 1: only the k = n term has weight
                w = (mpf(1) if k + 1 == n else mpf(0)) if r is None else w * (n - k) / (k + 1) * r
            excess = mpmath.fsum(terms)
            return mpmath.log1p(excess) / (a - 1)

        def g(z: mpf) -> mpf:
            w = (2 * z - 1) / two_s2
            inner = a * mpmath.log1p(qq * mpmath.expm1(w))
            return mpmath.npdf(z, 0, s) * mpmath.expm1(inner)

        peak = a  # the q e^w part of the integrand peaks at z = alpha (exponential tilting)
        pts = {mpf(0), mpf(1) / 2, mpf(1), peak}
        for c in (mpf(0), peak):
            for k in (2, 8, 30):
                pts.add(c - k * s)
                pts.add(c + k * s)
        excess = mpmath.quad(g, [mpmath.ninf, *sorted(pts), mpmath.inf], maxdegree=8)
        return mpmath.log1p(excess) / (a - 1)


# ---------------------------------------------------------------------------
# FSwoR replace-one: Taylor order chosen per order, minimum with Wang et al.
# ---------------------------------------------------------------------------


def fswor_replace_one_auto_reference(
    alpha: Exact, q: Exact, sigma: Exact, m_max: int = 12, dps: int = 40, rtol: float | None = 1e-8
) -> mpf:
    """Thm 3.4 (14) (transcription in :mod:`.fswor`) minimised over m = 3, 4, ...: while the value
    decreases by more than ``rtol`` (relative), up to ``m_max`` -- the rule of the curve; with
    ``rtol=None`` the minimum over all m in 3..``m_max``."""
    from .fswor import ref_replace_one_rdp

    with mp.workdps(dps):
        best = mpmath.inf
        for m in range(3, m_max + 1):
            v = ref_replace_one_rdp(Fraction(alpha), Fraction(q), Fraction(sigma), m)
            if not (mpmath.isfinite(v) and mpmath.im(v) == 0):
                if mpmath.isfinite(best) and rtol is not None:
                    break
                continue
            if v < best:
                gain = (best - v) / v if mpmath.isfinite(best) and v > 0 else mpmath.inf
                best = v
                if rtol is not None and gain < rtol:
                    break
            elif rtol is not None and mpmath.isfinite(best):
                break
        return best


def fswor_replace_one_default_reference(
    alpha: Exact, sigma: Exact, batch_size: int, dataset_size: int, taylor_order: int | None = None, dps: int = 40
) -> mpf:
    """Minimum of Thm 3.4 (order ``taylor_order``, or the minimum over m) and Wang et al. 2019 Thm 9."""
    from .fixed_size_misc import wang_upper_mp
    from .fswor import ref_replace_one_rdp

    q = Fraction(batch_size, dataset_size)
    with mp.workdps(dps):
        if taylor_order is None:
            t = fswor_replace_one_auto_reference(alpha, q, sigma, dps=dps)
        else:
            t = ref_replace_one_rdp(Fraction(alpha), q, Fraction(sigma), taylor_order)
        w = wang_upper_mp(Fraction(alpha), Fraction(sigma), q, dps=dps)
        return min(t, w)


# ---------------------------------------------------------------------------
# Poisson replace-one: weak triangle inequality, Thm C.9, no amplification
# ---------------------------------------------------------------------------


def _pg_rdp_float(alpha: float, q: float, sigma: float) -> float:
    r"""Float RDP of the Poisson-subsampled Gaussian by scipy quadrature of
    :math:`\varphi_\sigma(z)\,\mathrm{expm1}(\alpha\log(1-q+q e^{(2z-1)/(2\sigma^2)}))` (the excess over 1);
    used only to *locate* the Hölder exponent in :func:`weak_triangle_reference` (the value
    there is recomputed in mpmath)."""
    import warnings

    import numpy as np
    from scipy import integrate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _pg_rdp_float_inner(alpha, q, sigma, np, integrate)


def _pg_rdp_float_inner(alpha: float, q: float, sigma: float, np: ModuleType, integrate: ModuleType) -> float:

    two_s2 = 2 * sigma * sigma
    lq, l1q = math.log(q), math.log1p(-q)

    def log_terms(z: float) -> tuple[float, float]:
        w = (2 * z - 1) / two_s2
        lm = math.log1p(q * math.expm1(w)) if w < 600 else float(np.logaddexp(l1q, lq + w))
        return -z * z / two_s2 - 0.5 * math.log(math.pi * two_s2), alpha * lm

    grid = sorted({0.0, 0.5, 1.0, alpha, -3 * sigma, alpha + 3 * sigma} | {alpha * k / 32 for k in range(33)})
    lo, hi = grid[0] - 40 * sigma, grid[-1] + 40 * sigma
    shift = max(sum(log_terms(z)) for z in grid)
    if shift > 1.0:  # A is large: integrate the whole integrand, rescaled by its maximum

        def f(z: float) -> float:
            lphi, la = log_terms(z)
            return math.exp(lphi + la - shift)

        val, _ = integrate.quad(f, lo, hi, points=grid[1:-1], limit=800, epsabs=0, epsrel=1e-12)
        return (math.log(val) + shift) / (alpha - 1) if val > 0 else math.inf

    def g(z: float) -> float:  # A near 1: the excess over 1
        lphi, la = log_terms(z)
        if la > 600:
            return math.exp(min(lphi + la, 700.0))
        return math.exp(lphi) * math.expm1(la)

    val, _ = integrate.quad(g, lo, hi, points=grid[1:-1], limit=800, epsabs=0, epsrel=1e-12)
    if not val > -1 or not math.isfinite(val):
        return math.inf
    return math.log1p(val) / (alpha - 1)


def weak_triangle_reference(
    alpha: Exact,
    q: Exact,
    sigma: Exact,
    dps: int = 20,
    add_remove: Callable[[Fraction], mpf] | None = None,
    p: Exact | None = None,
) -> mpf:
    r"""Mironov 2017 Prop. 11 on the Poisson-subsampled Gaussian (add/remove) curve:
    :math:`\min_{p>1}\frac{\alpha-1/p}{\alpha-1}\epsilon(p\alpha) + \epsilon(1+(\alpha-1)p/(p-1))`.

    p = 1 + e^t; t is located by a grid in [-7, 7] refined by golden-section search on a
    float evaluation of :math:`\epsilon` (scipy quadrature of the defining integral,
    :func:`_pg_rdp_float`), then the value at that p is computed in mpmath with
    :func:`.gaussian.poisson_gaussian_rdp_mp` (quadrature), or ``add_remove`` if given.
    Any p gives a valid bound and the minimum is flat, so the float search costs at most
    ~1e-9 (relative) of tightness.  With ``p`` given, the bound at that p (no search).
    """
    from .gaussian import poisson_gaussian_rdp_mp

    a = Fraction(alpha)
    af, qf, sf = float(a), float(Fraction(q)), float(Fraction(sigma))

    def p_of(t: float) -> Fraction:
        return 1 + Fraction(math.exp(t)).limit_denominator(1 << 30)

    def fval(t: float) -> float:
        p = float(p_of(t))
        return (af - 1 / p) / (af - 1) * _pg_rdp_float(p * af, qf, sf) + _pg_rdp_float(
            1 + (af - 1) * p / (p - 1), qf, sf
        )

    eps = add_remove or (lambda o: poisson_gaussian_rdp_mp(o, Fraction(q), Fraction(sigma), dps))
    if p is not None:
        p = Fraction(p)
        with mp.workdps(dps):
            return (_f(a) - 1 / _f(p)) / (_f(a) - 1) * eps(p * a) + eps(1 + (a - 1) * p / (p - 1))
    ts = [-7.0 + k for k in range(15)]
    vals = [fval(t) for t in ts]
    k = min(range(len(ts)), key=lambda i: vals[i])
    lo, hi = ts[max(k - 1, 0)], ts[min(k + 1, len(ts) - 1)]
    gr = (math.sqrt(5) - 1) / 2
    c, d = hi - gr * (hi - lo), lo + gr * (hi - lo)
    fc, fd = fval(c), fval(d)
    while hi - lo > 1e-6:
        if fc <= fd:
            hi, d, fd = d, c, fc
            c = hi - gr * (hi - lo)
            fc = fval(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + gr * (hi - lo)
            fd = fval(d)
    t_best = c if fc <= fd else d
    if vals[k] < min(fc, fd):
        t_best = ts[k]
    p = p_of(t_best)
    with mp.workdps(dps):
        return (_f(a) - 1 / _f(p)) / (_f(a) - 1) * eps(p * a) + eps(1 + (a - 1) * p / (p - 1))


def poisson_replace_one_default_reference(
    alpha: Exact, q: Exact, sigma: Exact, dps: int = 20, p: Exact | None = None
) -> mpf:
    r"""Minimum of Birrell et al. Thm C.9 (m = 5), :func:`weak_triangle_reference` (minimised over
    p in mpmath, or at the given ``p``) and :math:`2\alpha/\sigma^2` (Gaussian mechanism with
    replace-one sensitivity 2)."""
    from ..subsampling.poisson_replace_one import DEFAULT_TAYLOR_ORDER
    from .fixed_size_misc import poisson_replace_one_mp

    q = Fraction(q)
    with mp.workdps(dps):
        gauss2 = 2 * _f(alpha) / _f(sigma) ** 2
        if q == 1:
            return gauss2
        if q == 0:
            return mpf(0)
        c9 = poisson_replace_one_mp(Fraction(alpha), q, Fraction(sigma), m=DEFAULT_TAYLOR_ORDER, dps=max(dps, 80))
        wt = weak_triangle_reference(alpha, q, sigma, dps=dps, p=p)
        return +min(c9, wt, gauss2)


# ---------------------------------------------------------------------------
# Zhu-Wang at orders in (1, 2]: the second-moment bound
# ---------------------------------------------------------------------------


def small_order_chi2_reference(alpha: Exact, q: Exact, eps2: mpf, eps_inf: mpf | None = None, dps: int = 40) -> mpf:
    r""":math:`\frac{1}{\alpha-1}\log(1 + g_\alpha(a)\gamma^2(e^{\epsilon(2)}-1)/d)` of
    :class:`~rigorous_rdp.subsampling.zhu_wang.SmallOrderChi2Curve`, with
    :math:`g_\alpha(x) = ((1+x)^\alpha-1-\alpha x)/x^2` evaluated from its definition at raised precision."""
    a_q = Fraction(alpha)
    if not 1 < a_q <= 2:
        return mpmath.inf
    with mp.workdps(dps + 20):
        g = _f(q)
        if g == 0:
            return mpf(0)
        if eps_inf is None:
            low, d = mpf(-1), 1 - g
        else:
            e = mpmath.exp(mpf(eps_inf))
            low, d = -g * (e - 1) / (1 - g + g * e), 1 - g + g / e
    lost = int(-2 * mpmath.log10(abs(low))) + 5 if low != -1 else 0
    with mp.workdps(dps + 20 + lost):
        a = _f(a_q)
        if low == -1:
            gq = a - 1
        else:
            e = mpmath.exp(mpf(eps_inf))
            g = _f(q)
            low = -g * (e - 1) / (1 - g + g * e)
            d = 1 - g + g / e
            gq = ((1 + low) ** a - 1 - a * low) / low**2
        return mpmath.log1p(gq * g * g * mpmath.expm1(mpf(eps2)) / d) / (a - 1)


def _pure_dp_params(inner: LaplaceEvent | RandomizedResponseEvent, dps: int) -> tuple[mpf, mpf]:
    from .gaussian import laplace_rdp_mp, randomized_response_rdp_mp

    if isinstance(inner, LaplaceEvent):
        return laplace_rdp_mp(Fraction(2), inner.scale, dps), 1 / _f(inner.scale)
    p = _f(inner.p)
    return randomized_response_rdp_mp(Fraction(2), inner.p, dps), abs(mpmath.log(p / (1 - p)))


def poisson_pure_dp_default_reference(
    inner: LaplaceEvent | RandomizedResponseEvent, q: Exact, alpha: Exact, dps: int = 40
) -> mpf:
    """Minimum of the Zhu-Wang reference (Thm 8 with the Lemma 4 cap) and, at orders in (1, 2],
    :func:`small_order_chi2_reference`, for a Laplace or randomized-response ``inner`` event."""
    from .zhu_wang import zhu_wang_rdp_mp

    kind, param = ("laplace", inner.scale) if isinstance(inner, LaplaceEvent) else ("randomized-response", inner.p)
    with mp.workdps(dps):
        zw = zhu_wang_rdp_mp(kind, param, Fraction(q), Fraction(alpha), "tight", dps, cap_pure_dp=True)
        if not 1 < Fraction(alpha) <= 2 or Fraction(q) == 0:
            return zw
        e2, ei = _pure_dp_params(inner, dps)
        return +min(zw, small_order_chi2_reference(alpha, q, e2, ei, dps))
