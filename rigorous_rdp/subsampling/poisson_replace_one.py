r"""Poisson-subsampled Gaussian under replace-one adjacency: Birrell et al. Theorem C.9.

Source: Birrell, Ebrahimi, Behnia, Pacheco (seed ``004_…``), Appendix C.1,
eqs. (92)-(98).  Each record enters the minibatch independently with
probability q; neighbouring datasets have the same size and differ in one
record; the mechanism adds :math:`N(0, C^2\sigma^2)` to the sum of the clipped
gradients.  For any integer :math:`m \ge 3` and :math:`q < 1`,

.. math::

    \epsilon(\alpha) \le \frac{1}{\alpha-1}\log\Big[1 + q^2\alpha(\alpha-1)\big(e^{1/\sigma^2} - e^{-1/\sigma^2}\big)
      + \sum_{k=3}^{m-1}\frac{q^k}{k!}\widetilde F_{\alpha,2\sigma,k} + \widetilde E_{\alpha,2\sigma,m}(q)\Big]  \qquad (98)

where :math:`\widetilde F` (83) and :math:`\widetilde E` (90) are the replace-one FSwoR
coefficients of Appendix C evaluated at noise :math:`2\sigma` (the differences of the
means are bounded by :math:`r_t/2` instead of :math:`r_t`, (93)).  The second-order
coefficient is the bound (96) of (67), attained by anti-parallel saturated
gradients.  We evaluate :math:`e^{1/\sigma^2}-e^{-1/\sigma^2}` as
:math:`e^{-1/\sigma^2}\,\mathrm{expm1}(2/\sigma^2)` (no cancellation for large
:math:`\sigma`), and the bracket minus one as a sum of non-negative terms, so
the logarithm is a ``log1p``.  :math:`\widetilde F` and :math:`\widetilde E` come from
:mod:`.fswor` (:func:`~.fswor.f_tilde`, :func:`~.fswor.e_tilde`), which evaluates them
for every real order :math:`\alpha > 1`; hence (98) is certified at every real order.

Any ``m >= 3`` gives a valid bound; ``m = 5`` (the default of the curve) is
within 1e-3 relative of ``m = 6`` for sigma = 6, q = 0.0024 up to alpha = 128.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from flint import arb

from .. import validation
from ..arith import DEFAULT_DIGITS, Certified, parse_rational, refine, to_arb, workprec
from ..curves import RdpCurve

__all__ = [
    "DEFAULT_TAYLOR_ORDER",
    "PoissonReplaceOneGaussianCurve",
    "WeakTriangleReplaceOneCurve",
    "poisson_replace_one",
    "poisson_replace_one_default_curve",
    "poisson_replace_one_excess",
    "poisson_replace_one_k2_term",
    "poisson_replace_one_rdp",
    "weak_triangle_value",
]

DEFAULT_TAYLOR_ORDER = 5


def _validate(alpha: object, q: object, sigma: object, m: object) -> tuple[Fraction, Fraction, Fraction, int]:
    a = validation.order(alpha)
    qq = parse_rational(q, "q")
    if not 0 <= qq < 1:
        raise ValueError(f"q must be in [0, 1) for Thm C.9 (replace-one Poisson sampling). Found {float(qq)!r}.")
    s = parse_rational(sigma, "sigma")
    if s <= 0:
        raise ValueError(f"sigma must be > 0. Found {float(s)!r}.")
    if isinstance(m, bool) or not isinstance(m, int) or m < 3:
        raise ValueError(f"taylor-order must be an integer >= 3. Found {m!r}.")
    return a, qq, s, m


def poisson_replace_one_k2_term(alpha: Fraction, q: Fraction, sigma: Fraction) -> arb:
    r"""Ball for :math:`q^2\alpha(\alpha-1)(e^{1/\sigma^2}-e^{-1/\sigma^2})`, the k = 2 term of (98)
    (from the bound (96))."""
    a = to_arb(alpha)
    qa = to_arb(q)
    t = to_arb(Fraction(1) / (sigma * sigma))
    return qa * qa * a * (a - 1) * (-t).exp() * (2 * t).expm1()


def poisson_replace_one_excess(alpha: object, q: object, sigma: object, m: int = DEFAULT_TAYLOR_ORDER) -> arb:
    r"""Ball for the bracket of (98) minus one (a sum of non-negative bounds)."""
    from .fswor import add_replace_one_taylor_terms

    a, qq, s, m = _validate(alpha, q, sigma, m)
    if qq == 0:
        return arb(0)
    return add_replace_one_taylor_terms(poisson_replace_one_k2_term(a, qq, s), a, qq, 2 * s, m)


def poisson_replace_one_rdp(alpha: object, q: object, sigma: object, m: int = DEFAULT_TAYLOR_ORDER) -> arb:
    r"""Ball for the one-step RDP bound (98) of Theorem C.9 at the current working precision."""
    a, qq, s, m = _validate(alpha, q, sigma, m)
    excess = poisson_replace_one_excess(a, qq, s, m)
    if not (excess > -1):
        return arb.nan()
    return excess.log1p() / to_arb(a - 1)


def poisson_replace_one(
    alpha: object, q: object, sigma: object, m: int = DEFAULT_TAYLOR_ORDER, digits: float = DEFAULT_DIGITS
) -> Certified:
    """:func:`poisson_replace_one_rdp` with the precision raised until ``digits`` are certified."""
    a, qq, s, m = _validate(alpha, q, sigma, m)
    return refine(
        lambda prec: poisson_replace_one_rdp(a, qq, s, m), digits, what=f"Poisson replace-one bound at alpha={float(a)}"
    )


class PoissonReplaceOneGaussianCurve(RdpCurve):
    """Poisson-subsampled Gaussian, replace-one adjacency: Birrell et al. Thm C.9 (98)."""

    name = "poisson-gaussian-replace-one"
    citation = "Birrell et al. 2024, Thm C.9, (98), with (83), (90) at 2 sigma and (96)"

    def __init__(self, q: Fraction, sigma: Fraction, m: int = DEFAULT_TAYLOR_ORDER):
        _, self.q, self.sigma, self.m = _validate(2, q, sigma, m)

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        return poisson_replace_one_rdp(alpha, self.q, self.sigma, self.m)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        """The same formula at 53 bits, upper endpoints (order selection only)."""
        out = np.empty(len(alphas))
        with workprec(53):
            for i, x in enumerate(np.asarray(alphas, dtype=float)):
                if not (x > 1 and math.isfinite(x)):
                    out[i] = np.inf
                    continue
                try:
                    v = poisson_replace_one_rdp(Fraction(x), self.q, self.sigma, self.m)
                    out[i] = float(v.upper()) if v.is_finite() else np.inf
                except (ValueError, ArithmeticError):
                    out[i] = np.inf
        return out


# ---------------------------------------------------------------------------
# generic bounds for replace-one from the add/remove curve
# ---------------------------------------------------------------------------


def weak_triangle_value(alpha: Fraction, p: Fraction, eps: Callable[[Fraction], arb]) -> arb:
    r"""Ball for :math:`\frac{\alpha - 1/p}{\alpha - 1}\,\epsilon(p\alpha) + \epsilon\big(1 + \frac{(\alpha-1)p}{p-1}\big)`.

    This is the weak triangle inequality (:class:`WeakTriangleReplaceOneCurve`) with the
    add/remove curve ``eps`` in both places; ``alpha > 1`` and ``p > 1`` exact rationals.
    """
    if not alpha > 1:
        raise ValueError(f"alpha must be > 1. Found {float(alpha)!r}.")
    if not p > 1:
        raise ValueError(f"p must be > 1 for the weak triangle inequality. Found {float(p)!r}.")
    o1 = p * alpha
    o2 = 1 + (alpha - 1) * p / (p - 1)
    w = to_arb((alpha - 1 / p) / (alpha - 1))
    return w * eps(o1) + eps(o2)


def _p_of(t: float) -> Fraction:
    """The rational Hölder exponent p = 1 + e^t (e^t to about 12 significant digits)."""
    return 1 + Fraction(math.exp(t)).limit_denominator(max(1 << 20, int(1e12 / math.exp(t)) if t < 25 else 1))


class WeakTriangleReplaceOneCurve(RdpCurve):
    r"""Replace-one RDP from an add/remove RDP curve by the weak triangle inequality.

    **Statement** (Mironov 2017, "Rényi Differential Privacy", Prop. 11).  For distributions
    P, Q, R with P, Q absolutely continuous w.r.t. R and R w.r.t. Q, every
    :math:`\alpha > 1` and :math:`p > 1`, :math:`p' = p/(p-1)`,

    .. math::

        D_\alpha(P\|Q) \le \frac{\alpha - 1/p}{\alpha - 1} D_{p\alpha}(P\|R)
                           + D_{1 + (\alpha-1)p'}(R\|Q).

    *Proof.*  :math:`e^{(\alpha-1)D_\alpha(P\|Q)} = E_R[(P/R)^\alpha (R/Q)^{\alpha-1}]`.  Hölder's
    inequality with exponents p, p' gives at most
    :math:`E_R[(P/R)^{p\alpha}]^{1/p}\,E_R[(R/Q)^{(\alpha-1)p'}]^{1/p'}`.  The first factor is
    :math:`e^{(p\alpha-1)D_{p\alpha}(P\|R)/p}`; the second is
    :math:`E_Q[(R/Q)^{1+(\alpha-1)p'}]^{1/p'} = e^{(\alpha-1)D_{1+(\alpha-1)p'}(R\|Q)}`.  Take logarithms
    and divide by :math:`\alpha - 1 > 0`; :math:`(p\alpha - 1)/p = \alpha - 1/p`.  For three Gaussians
    :math:`N(\pm1, s^2)`, :math:`N(0, s^2)` it is an equality at :math:`p = 2 - 1/\alpha`
    (``proofs/verify_weak_triangle.py``).  Example: q = 0.1, sigma = 0.5, alpha = 2 gives 9.95 with
    p = 2 and 8.315 with the optimal p (Thm C.9: 67.47).

    **Use.**  Let D, D' differ by replacing record x by x', and D'' = D minus x = D' minus x'.
    Then (D, D'') and (D'', D') are add/remove neighbours, so with P, Q, R the output
    distributions on D, D', D'': :math:`D_{p\alpha}(P\|R) \le \epsilon(p\alpha)` and
    :math:`D_{1+(\alpha-1)p'}(R\|Q) \le \epsilon(1+(\alpha-1)p')` for any add/remove RDP curve
    :math:`\epsilon` that bounds *both* directions of add/remove adjacency (the definition of
    add/remove RDP used throughout the toolkit; for the Poisson-subsampled Gaussian the exact
    curve of :mod:`.poisson_gaussian`, Mironov, Talwar, Zhang 2019, Thm 4-5).  Conditions checked:
    ``alpha > 1``, ``p > 1``, the add/remove curve is an upper bound defined at real orders.

    **Choice of p.**  Any p > 1 gives a valid bound; p is chosen per order by minimising the
    float screen of the add/remove curve (a grid in :math:`\log(p-1)` refined by golden-section
    search, first on an interpolated table of the screen, then on the curve's certified values
    at 96 bits), then rounded to a rational and the value at that p is certified.
    """

    citation = "Mironov 2017, Prop. 11 (weak triangle inequality), on an add/remove RDP curve"

    def __init__(self, add_remove: RdpCurve):
        if not isinstance(add_remove, RdpCurve) or not add_remove.is_upper_bound:
            raise ValueError("add_remove must be an RDP upper-bound curve.")
        if add_remove.integer_orders_only:
            raise ValueError(
                f"the weak triangle inequality needs a curve defined at real orders; {add_remove.name} is integer-only."
            )
        self.add_remove = add_remove
        self.name = f"weak-triangle({add_remove.name})"
        self._p: dict[Fraction, Fraction] = {}
        self._tab: tuple[np.ndarray, np.ndarray] | None = None

    #: the float screen of the add/remove curve is tabulated at this many orders (log-spaced in
    #: alpha - 1 over [1e-5, 1e7]) and interpolated for the order search
    TABLE_SIZE = 300

    def _table(self) -> tuple[np.ndarray, np.ndarray]:
        if self._tab is None:
            xs = np.linspace(math.log(1e-5), math.log(1e7), self.TABLE_SIZE)
            with np.errstate(all="ignore"):
                ys = np.log(np.asarray(self.add_remove.screen(1.0 + np.exp(xs)), dtype=float))
            self._tab = (xs, ys)
            self._tab_ok = bool(np.all(np.isfinite(ys)))
        return self._tab

    def _eps(self, orders: np.ndarray, fast: bool) -> np.ndarray:
        orders = np.asarray(orders, dtype=float)
        if not fast:
            return np.asarray(self.add_remove.screen(orders), dtype=float)
        xs, ys = self._table()
        u = np.log(orders - 1.0)
        ok = (u >= xs[0]) & (u <= xs[-1]) & self._tab_ok
        out = np.empty(len(orders))
        with np.errstate(all="ignore"):
            out[ok] = np.exp(np.interp(u[ok], xs, ys))
        if (~ok).any():
            out[~ok] = np.asarray(self.add_remove.screen(orders[~ok]), dtype=float)
        return out

    def _f(self, alpha: float | Fraction, ts: np.ndarray, fast: bool = True) -> np.ndarray:
        ts = np.asarray(ts, dtype=float)
        if not fast:
            return np.array([self._f_certified(alpha, float(t)) for t in ts])
        p = 1.0 + np.exp(ts)
        o1 = p * alpha
        o2 = 1.0 + (alpha - 1.0) * (1.0 + np.exp(-ts))
        with np.errstate(all="ignore"):
            v = (alpha - 1.0 / p) / (alpha - 1.0) * self._eps(o1, fast) + self._eps(o2, fast)
        return np.where(np.isnan(v), np.inf, v)

    def _f_certified(self, alpha: float | Fraction, t: float) -> float:
        """The bound at p = 1 + e^t from the add/remove curve's *certified* values at 96 bits
        (midpoints): the float screens of some curves are only rough estimates (e.g. tiny
        values at fractional orders), and the final choice of p should not inherit that."""
        p = _p_of(t)
        if not p > 1:
            return math.inf
        try:
            with workprec(96):
                v = weak_triangle_value(
                    Fraction(alpha).limit_denominator(1 << 40) if not isinstance(alpha, Fraction) else alpha,
                    p,
                    self.add_remove.certified,
                )
        except (ValueError, ArithmeticError):
            return math.inf
        return float(v.mid()) if v.is_finite() else math.inf

    def _golden(self, alpha: float | Fraction, lo: float, hi: float, steps: int, fast: bool) -> tuple[float, float]:
        g = (math.sqrt(5) - 1) / 2
        c, d = hi - g * (hi - lo), lo + g * (hi - lo)
        fc, fd = (float(x) for x in self._f(alpha, np.array([c, d]), fast))
        for _ in range(steps):
            if fc <= fd:
                hi, d, fd = d, c, fc
                c = hi - g * (hi - lo)
                fc = float(self._f(alpha, np.array([c]), fast)[0])
            else:
                lo, c, fc = c, d, fd
                d = lo + g * (hi - lo)
                fd = float(self._f(alpha, np.array([d]), fast)[0])
        return (c, fc) if fc <= fd else (d, fd)

    def _optimise(self, alpha: float | Fraction, fast: bool = True) -> tuple[float, float]:
        """(t, value) minimising the screen over p = 1 + e^t: a grid in [-7, 7] and two finer grids
        on the tabulated add/remove screen; with ``fast=False`` a further golden-section search
        around that point on the add/remove curve's certified values (:meth:`_f_certified`)."""
        af = float(alpha)
        ts = np.linspace(-7.0, 7.0, 57)
        vals = self._f(af, ts, True)
        k = int(np.argmin(vals))
        best_t, best_v = float(ts[k]), float(vals[k])
        if not math.isfinite(best_v):
            return best_t, best_v
        for _ in range(2):  # two finer vectorised grids around the best point
            h = ts[1] - ts[0]
            ts = np.linspace(best_t - h, best_t + h, 41)
            vals = self._f(af, ts, True)
            k = int(np.argmin(vals))
            if vals[k] < best_v:
                best_t, best_v = float(ts[k]), float(vals[k])
        if not fast:
            t, v = self._golden(alpha, best_t - 0.3, best_t + 0.3, 22, False)
            v0 = float(self._f(alpha, np.array([best_t]), False)[0])
            best_t, best_v = (t, v) if v < v0 else (best_t, v0)
        return best_t, best_v

    def optimal_p(self, alpha: Fraction) -> Fraction:
        """The (rational) Hölder exponent p used at ``alpha``."""
        alpha = Fraction(alpha)
        p = self._p.get(alpha)
        if p is None:
            t, _ = self._optimise(alpha, fast=False)
            p = _p_of(t)
            if not p > 1:
                p = Fraction(2)
            if len(self._p) > 4096:
                self._p.clear()
            self._p[alpha] = p
        return p

    def certified(self, alpha: Fraction) -> arb:
        alpha = Fraction(alpha)
        self.check_order(alpha)
        return weak_triangle_value(alpha, self.optimal_p(alpha), self.add_remove.certified)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        out = np.empty(len(a))
        for i, x in enumerate(a):
            if not (x > 1 and math.isfinite(x)):
                out[i] = np.inf
                continue
            out[i] = self._optimise(float(x))[1]
        return out


def poisson_replace_one_default_curve(q: Fraction, sigma: Fraction) -> RdpCurve:
    r"""The Poisson-subsampled Gaussian curve under replace-one adjacency used by default.

    The pointwise minimum (:class:`~rigorous_rdp.curves.MinCurve`, chosen per order) of

    * Birrell et al. Thm C.9 (98) (:class:`PoissonReplaceOneGaussianCurve`);
    * the weak triangle inequality on the exact add/remove curve
      (:class:`WeakTriangleReplaceOneCurve` of :class:`.poisson_gaussian.PoissonGaussianCurve`);
    * no amplification: :math:`2\alpha/\sigma^2`, the Gaussian mechanism with replace-one
      sensitivity 2.  Valid because, pairing the mixture components (the other records'
      inclusions and the changed record's inclusion are coupled), both outputs are mixtures
      with equal weights of Gaussians whose means differ by at most 2, and the Rényi
      divergence is jointly quasi-convex (van Erven & Harremoës 2014, Thm 13).

    ``q = 1`` (every record always sampled) is the Gaussian mechanism with sensitivity 2.
    """
    from ..curves import MinCurve
    from .poisson_gaussian import PoissonGaussianCurve
    from .wang2019 import replace_one_gaussian_curve

    q = validation.probability(q, "q")
    sigma = Fraction(sigma)
    gauss2 = replace_one_gaussian_curve(sigma)
    gauss2.name = "gaussian-sensitivity-2"
    gauss2.citation = "Mironov 2017, Prop. 7 with sensitivity 2; van Erven & Harremoes 2014, Thm 13"
    if q == 1:
        return gauss2
    if q == 0:
        return PoissonReplaceOneGaussianCurve(q, sigma)
    return MinCurve(
        [PoissonReplaceOneGaussianCurve(q, sigma), WeakTriangleReplaceOneCurve(PoissonGaussianCurve(q, sigma)), gauss2]
    )
