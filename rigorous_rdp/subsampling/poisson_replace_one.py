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
from fractions import Fraction
import numpy as np
from flint import arb

from ..arith import Certified, DEFAULT_DIGITS, parse_rational, refine, to_arb, workprec
from ..curves import RdpCurve

__all__ = [
    "poisson_replace_one_k2_term",
    "poisson_replace_one_excess",
    "poisson_replace_one_rdp",
    "poisson_replace_one",
    "PoissonReplaceOneGaussianCurve",
    "DEFAULT_TAYLOR_ORDER",
]

DEFAULT_TAYLOR_ORDER = 5


def _validate(alpha: object, q: object, sigma: object, m: object) -> tuple:
    a = parse_rational(alpha, "alpha")
    if a <= 1:
        raise ValueError(f"alpha must be > 1. Found {float(a)!r}.")
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
    from .fswor import e_tilde, f_tilde

    a, qq, s, m = _validate(alpha, q, sigma, m)
    if qq == 0:
        return arb(0)
    qa = to_arb(qq)
    s2 = 2 * s
    total = poisson_replace_one_k2_term(a, qq, s)
    qk = qa * qa
    fact = arb(2)
    for k in range(3, m):
        qk = qk * qa
        fact = fact * k
        total += qk / fact * f_tilde(a, s2, k)
    return total + e_tilde(a, qq, s2, m)


def poisson_replace_one_rdp(alpha: object, q: object, sigma: object, m: int = DEFAULT_TAYLOR_ORDER) -> arb:
    r"""Ball for the one-step RDP bound (98) of Theorem C.9 at the current working precision."""
    a, qq, s, m = _validate(alpha, q, sigma, m)
    excess = poisson_replace_one_excess(a, qq, s, m)
    if not (excess > -1):
        return arb.nan()
    return excess.log1p() / to_arb(a - 1)


def poisson_replace_one(alpha: object, q: object, sigma: object, m: int = DEFAULT_TAYLOR_ORDER,
                        digits: float = DEFAULT_DIGITS) -> Certified:
    """:func:`poisson_replace_one_rdp` with the precision raised until ``digits`` are certified."""
    a, qq, s, m = _validate(alpha, q, sigma, m)
    return refine(lambda prec: poisson_replace_one_rdp(a, qq, s, m), digits,
                  what=f"Poisson replace-one bound at alpha={float(a)}")


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
