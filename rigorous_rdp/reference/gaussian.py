r"""mpmath reference values for the base mechanisms and the Poisson-subsampled Gaussian.

A second opinion for the certified code, computed along a different path: each
Rényi divergence is evaluated from its *definition*

.. math::

    D_\alpha(P \| Q) = \frac{1}{\alpha-1} \log \int p(z)^\alpha q(z)^{1-\alpha}\, dz

(Mironov 2017, Def. 3; blog part 2, Def. of Rényi divergence), by plain
high-precision tanh-sinh quadrature (``mpmath.quad``) or by a finite sum in
mpmath, never by the closed forms that :mod:`rigorous_rdp.mechanisms` uses and
never by the rearranged integrand ``(1+x)^alpha - 1 - alpha x`` of
:mod:`rigorous_rdp.subsampling.poisson_gaussian`.  No ball arithmetic.

* Gaussian: :math:`P = N(0, \sigma^2)`, :math:`Q = N(1, \sigma^2)` (the closed
  form is :math:`\alpha/(2\sigma^2)`, Mironov 2017 Prop. 7).
* Laplace: :math:`P = \mathrm{Lap}(0, b)`, :math:`Q = \mathrm{Lap}(1, b)`; the
  definition gives :math:`\max(D_\alpha(P\|Q), D_\alpha(Q\|P))`, and the two are
  equal by the symmetry :math:`z \mapsto 1 - z`; we integrate :math:`D_\alpha(P\|Q)`.
* Randomized response: the sum over the two outcomes,
  :math:`p^\alpha (1-p)^{1-\alpha} + (1-p)^\alpha p^{1-\alpha}` (the definition
  for discrete distributions).
* Poisson-subsampled Gaussian, add/remove adjacency:
  :math:`A_\alpha = \int \varphi_\sigma(z)\,\big((1-q) + q\,e^{(2z-1)/(2\sigma^2)}\big)^\alpha dz`
  (blog part 2, Claim 27 / (9.5); Mironov, Talwar, Zhang 2019, Sec. 3), i.e. the
  definition with :math:`p = (1-q)\varphi_\sigma + q\varphi_\sigma(\cdot - 1)`
  and :math:`q = \varphi_\sigma`.  At integer orders it is also available as the
  plain binomial sum :math:`\sum_k \binom{\alpha}{k} q^k (1-q)^{\alpha-k} e^{k(k-1)/(2\sigma^2)}`
  (:func:`poisson_gaussian_log_a_binomial_mp`).

These values are *not* certified: the error of ``mpmath.quad`` is an estimate.
To make that estimate meaningful the integration range is split at every place
where the integrand changes character (the peaks of the Gaussian factors, the
crossover :math:`z_0` where :math:`q e^{w} = 1-q`, the kinks of the Laplace
density), the working precision is raised by the number of digits that
:math:`\log A_\alpha` loses when :math:`A_\alpha` is close to 1, and a
quadrature whose estimated error is not small relative to the result raises
:class:`ReferenceInaccurate` instead of returning a poor value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import pairwise

import mpmath
from mpmath import mp, mpf

__all__ = [
    "ReferenceInaccurate",
    "gaussian_rdp_mp",
    "laplace_rdp_mp",
    "poisson_gaussian_log_a_binomial_mp",
    "poisson_gaussian_log_a_mp",
    "poisson_gaussian_rdp_mp",
    "randomized_response_rdp_mp",
]


_METHOD = "tanh-sinh"


class ReferenceInaccurate(ArithmeticError):
    """The quadrature's error estimate is not small enough to trust the reference."""


def _mpf(x: Fraction | int | float | str | mpf) -> mpf:
    """Exact-as-possible conversion of a rational (or int/str) at the current dps."""
    if isinstance(x, Fraction):
        return mpf(x.numerator) / x.denominator
    if isinstance(x, mpf):
        return x
    if isinstance(x, int):
        return mpf(x)
    f = Fraction(x)
    return mpf(f.numerator) / f.denominator


def _quad(f: Callable[[mpf], mpf], points: Sequence[mpf], rel: mpf) -> mpf:
    """``mpmath.quad`` over consecutive ``points`` (may start/end at -inf/inf).

    Raises :class:`ReferenceInaccurate` if the summed error estimate exceeds
    ``rel`` times the result.  The integrands here are positive, so summing the
    pieces has no cancellation.
    """
    pts: list[mpf] = []
    for p in sorted(set(points)):
        if not pts or p > pts[-1]:
            pts.append(p)
    total = mpf(0)
    err = mpf(0)
    for a, b in pairwise(pts):
        v, e = mpmath.quad(f, [a, b], error=True, maxdegree=10, method=_METHOD)
        total += v
        err += abs(e)
    if not total > 0 or err > rel * total:
        raise ReferenceInaccurate(f"quadrature error estimate {mpmath.nstr(err, 5)} vs value {mpmath.nstr(total, 10)}")
    return total


def _spread(center: mpf, scale: mpf, ks: Sequence[int] = (4,)) -> list[mpf]:
    out = [center]
    for k in ks:
        out += [center - k * scale, center + k * scale]
    return out


# ---------------------------------------------------------------------------
# base mechanisms
# ---------------------------------------------------------------------------


def gaussian_rdp_mp(alpha: Fraction, sigma: Fraction, dps: int = 50) -> mpf:
    r"""RDP of the Gaussian mechanism from the definition, by quadrature of
    :math:`\varphi_\sigma(z)^\alpha \varphi_\sigma(z-1)^{1-\alpha}` (log-space integrand)."""
    with mp.workdps(dps + 15):
        a, s = _mpf(alpha), _mpf(sigma)
        two_s2 = 2 * s * s
        norm = -mpmath.log(2 * mpmath.pi * s * s) / 2

        def h(z: mpf) -> mpf:
            return norm - (a * z * z + (1 - a) * (z - 1) ** 2) / two_s2

        # the integrand is a Gaussian bump with its peak where the derivative
        # a z + (1-a)(z-1) of the exponent vanishes; divide by its value there
        # (an exact rescaling, undone below: quad's error estimate is absolute)
        peak = 1 - a
        shift = h(peak)
        val = _quad(
            lambda z: mpmath.exp(h(z) - shift),
            [mpmath.ninf, *_spread(peak, s, (1, 4, 10)), mpmath.inf],
            mpf(10) ** (-dps),
        )
        out = (mpmath.log(val) + shift) / (a - 1)
    return out


def laplace_rdp_mp(alpha: Fraction, b: Fraction, dps: int = 50) -> mpf:
    r"""RDP of the Laplace mechanism from the definition, by quadrature of
    :math:`p^\alpha q^{1-\alpha}` with :math:`p = \mathrm{Lap}(0,b)`, :math:`q = \mathrm{Lap}(1,b)`,
    split at the kinks 0 and 1 and at the decay scales of every piece."""
    with mp.workdps(dps + 15):
        a, bb = _mpf(alpha), _mpf(b)
        lognorm = -mpmath.log(2 * bb)

        def h(z: mpf) -> mpf:
            return lognorm - (a * abs(z) + (1 - a) * abs(z - 1)) / bb

        # divide by the integrand's value at its maximum z = 0 (an exact
        # rescaling, undone below: quad's error estimate is absolute)
        shift = h(mpf(0))

        def g(z: mpf) -> mpf:
            return mpmath.exp(h(z) - shift)

        pts = [mpmath.ninf, mpf(0), mpf(1), mpmath.inf]
        pts += [-k * bb for k in (1, 4, 10, 30, 100)]
        pts += [1 + k * bb for k in (1, 4, 10, 30, 100)]
        inner = bb / (2 * a - 1)  # decay length on (0, 1)
        pts += [k * inner for k in (1, 4, 10, 30, 100, 300) if k * inner < 1]
        val = _quad(g, pts, mpf(10) ** (-dps))
        out = (mpmath.log(val) + shift) / (a - 1)
    return out


def randomized_response_rdp_mp(alpha: Fraction, p: Fraction, dps: int = 50) -> mpf:
    r"""RDP of binary randomized response from the definition (sum over the two outcomes)."""
    with mp.workdps(dps + 15):
        a, pp = _mpf(alpha), _mpf(p)
        P = [pp, 1 - pp]  # output distribution on input 1
        Q = [1 - pp, pp]  # output distribution on input 0
        s = mpmath.fsum(P[i] ** a * Q[i] ** (1 - a) for i in range(2))
        out = mpmath.log(s) / (a - 1)
    return out


# ---------------------------------------------------------------------------
# Poisson-subsampled Gaussian
# ---------------------------------------------------------------------------


def _pg_log_integrand(a: mpf, q: mpf, s: mpf) -> Callable[[mpf], mpf]:
    """The log of the integrand of A_alpha, z -> log phi_sigma(z) + a log(1-q+q e^w)."""
    two_s2 = 2 * s * s
    c = -mpmath.log(2 * mpmath.pi * s * s) / 2

    def h(z: mpf) -> mpf:
        w = (2 * z - 1) / two_s2
        if q == 1:
            return c - z * z / two_s2 + a * w
        return c - z * z / two_s2 + a * mpmath.log((1 - q) + q * mpmath.exp(w))

    return h


def _pg_points(a: mpf, q: mpf, s: mpf) -> tuple[list[mpf], mpf]:
    """Break points and an estimate of the maximum of the log-integrand.

    The break points are the peaks of the two Gaussian factors (0 and alpha),
    the crossover z0 and the stationary points of the log-integrand
    h(z) = log phi_sigma(z) + a log(1-q+q e^w), each with +-4 sigma around it.
    The stationary points solve z = a * sig(w), sig(w) = q e^w / (1-q+q e^w);
    they are bracketed on a grid and located by bisection.
    """
    pts = [mpmath.ninf, mpmath.inf]
    pts += _spread(mpf(0), s)
    pts += _spread(a, s)
    h = _pg_log_integrand(a, q, s)
    if q == 1:
        return pts, h(a)
    z0 = s * s * mpmath.log((1 - q) / q) + mpf(1) / 2
    pts += _spread(z0, s)

    def d(z: mpf) -> mpf:
        w = (2 * z - 1) / (2 * s * s)
        return a / (1 + (1 - q) / q * mpmath.exp(-w)) - z

    lo, hi = min(mpf(0), z0) - 5 * s, max(a, z0) + 5 * s
    n = 100
    grid = [lo + (hi - lo) * i / n for i in range(n + 1)]
    hmax = max(h(mpf(0)), h(a))
    for z1, z2 in pairwise(grid):
        d1, d2 = d(z1), d(z2)
        if (d1 > 0) == (d2 > 0):
            continue
        for _ in range(60):  # bisection to ~1e-18 of the bracket
            zm = (z1 + z2) / 2
            if (d(zm) > 0) == (d1 > 0):
                z1 = zm
            else:
                z2 = zm
        zs = (z1 + z2) / 2
        pts += _spread(zs, s)
        hmax = max(hmax, h(zs))
    return pts, hmax


def _digits_lost(alpha: Fraction | int, q: Fraction, sigma: Fraction) -> int:
    r"""Decimal digits lost in :math:`\log A_\alpha` when :math:`A_\alpha` is close to 1,
    from the leading term :math:`q^2 \alpha(\alpha-1)(e^{1/\sigma^2}-1)/2` of
    :math:`A_\alpha - 1` (only sets the working precision; the result is
    re-checked after the quadrature)."""
    with mp.workdps(20):
        a, qq, s = _mpf(alpha), _mpf(q), _mpf(sigma)
        est = qq * qq * a * (a - 1) / 2 * mpmath.expm1(min(1 / (s * s), mpf(50)))
        if est >= 1:
            return 0
        return int(-mpmath.log10(est)) + 1


def poisson_gaussian_log_a_mp(alpha: Fraction, q: Fraction, sigma: Fraction, dps: int = 50) -> mpf:
    r""":math:`\log A_\alpha` of the Poisson-subsampled Gaussian by quadrature of the
    defining integral (any real :math:`\alpha > 1`, :math:`0 \le q \le 1`).

    The precision is raised until :math:`\log A_\alpha` (which can be as small as
    :math:`10^{-40}` when q is tiny) has about ``dps`` correct digits.
    """
    if q == 0:
        return mpf(0)  # the integrand is exactly the N(0, sigma^2) density
    lost = _digits_lost(alpha, q, sigma)
    if lost > 100 and Fraction(alpha).denominator == 1:
        # q so small that the quadrature would need hundreds of digits (q = 1e-300: 600);
        # at an integer order the binomial sum (9.5) is exact and costs alpha + 1 terms
        return poisson_gaussian_log_a_binomial_mp(int(alpha), q, sigma, dps)
    work = dps + 15 + lost
    for _ in range(6):
        with mp.workdps(work):
            a, qq, s = _mpf(alpha), _mpf(q), _mpf(sigma)
            # divide the integrand by exp(hmax), its (estimated) maximum: an
            # exact rescaling, undone below, that keeps quad's numbers near 1
            # (its error estimate is absolute and capped at 1)
            pts, shift = _pg_points(a, qq, s)
            h = _pg_log_integrand(a, qq, s)

            def g(z: mpf, h: Callable[[mpf], mpf] = h, shift: mpf = shift) -> mpf:
                return mpmath.exp(h(z) - shift)

            val = _quad(g, pts, mpf(10) ** (-(work - 5)))
            log_a = mpmath.log(val) + shift
            # digits lost: log A = log(1 + I) with I ~ log A, absolute error ~ 10^-(work-5)
            if log_a > 0 and log_a > mpf(10) ** (-(work - 5 - dps)):
                return log_a
            lost = 5 if not log_a > 0 else int(-mpmath.log10(log_a)) + 5
            work = dps + 20 + lost
    raise ReferenceInaccurate(f"log A too small to resolve: alpha={alpha}, q={q}, sigma={sigma}")


def poisson_gaussian_log_a_binomial_mp(alpha: int, q: Fraction, sigma: Fraction, dps: int = 50) -> mpf:
    r""":math:`\log A_\alpha` at an integer order by the plain binomial sum (blog part 2, (9.5)).

    All terms are non-negative; the precision is raised so that :math:`\log A_\alpha`
    keeps ``dps`` digits when it is tiny."""
    alpha = int(alpha)
    if alpha < 2:
        raise ValueError(f"alpha must be an integer >= 2. Found {alpha}.")
    if q == 0:
        return mpf(0)
    work = dps + 15 + _digits_lost(alpha, q, sigma)
    for _ in range(6):
        with mp.workdps(work):
            qq, s = _mpf(q), _mpf(sigma)
            two_s2 = 2 * s * s
            terms = []
            for k in range(alpha + 1):
                terms.append(
                    mpmath.binomial(alpha, k) * qq**k * (1 - qq) ** (alpha - k) * mpmath.exp(k * (k - 1) / two_s2)
                )
            log_a = mpmath.log(mpmath.fsum(terms))
            if log_a > 0 and log_a > mpf(10) ** (-(work - 5 - dps)):
                return log_a
            lost = 5 if not log_a > 0 else int(-mpmath.log10(log_a)) + 5
            work = dps + 20 + lost
    raise ReferenceInaccurate(f"log A too small to resolve: alpha={alpha}, q={q}, sigma={sigma}")


def poisson_gaussian_rdp_mp(
    alpha: Fraction, q: Fraction, sigma: Fraction, dps: int = 50, *, method: str = "quad"
) -> mpf:
    r"""RDP :math:`\log A_\alpha / (\alpha - 1)` of the Poisson-subsampled Gaussian.

    ``method="quad"`` (any real order) or ``"binomial"`` (integer orders)."""
    la = (
        poisson_gaussian_log_a_binomial_mp(int(alpha), q, sigma, dps)
        if method == "binomial"
        else poisson_gaussian_log_a_mp(alpha, q, sigma, dps)
    )
    with mp.workdps(dps + 15):
        return la / (_mpf(alpha) - 1)
