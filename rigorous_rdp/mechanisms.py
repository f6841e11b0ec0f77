r"""RDP of the base mechanisms (sensitivity 1), certified at every real order.

Formulas (Mironov 2017, Table II; restated in Zhu & Wang 2019, Section 4):

.. math::

    \epsilon_{\mathrm{Gauss}}(\alpha) &= \frac{\alpha}{2\sigma^2}, \\
    \epsilon_{\mathrm{Lap}}(\alpha) &= \frac{1}{\alpha-1}\log\Big(\frac{\alpha}{2\alpha-1}
        e^{(\alpha-1)/b} + \frac{\alpha-1}{2\alpha-1} e^{-\alpha/b}\Big), \\
    \epsilon_{\mathrm{RR}}(\alpha) &= \frac{1}{\alpha-1}\log\big(p^\alpha(1-p)^{1-\alpha}
        + (1-p)^\alpha p^{1-\alpha}\big).

Laplace and randomized response are also pure DP, with
:math:`\epsilon_\infty = 1/b` and :math:`|\log(p/(1-p))|`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
from flint import arb

from .arith import to_arb
from .curves import RdpCurve

__all__ = [
    "BaseMechanismCurve",
    "GaussianCurve",
    "LaplaceCurve",
    "RandomizedResponseCurve",
    "gaussian_rdp",
    "laplace_pure_epsilon",
    "laplace_rdp",
    "randomized_response_pure_epsilon",
    "randomized_response_rdp",
]


def gaussian_rdp(alpha: arb, sigma: arb) -> arb:
    r"""RDP of the Gaussian mechanism, :math:`\alpha / (2\sigma^2)` (Mironov 2017, Prop. 7)."""
    return alpha / (2 * sigma * sigma)


def laplace_rdp(alpha: arb, b: arb) -> arb:
    r"""RDP of the Laplace mechanism with scale b (Zhu & Wang 2019, Sec. 4; Mironov 2017, Prop. 6).

    Evaluated as :math:`\frac{1}{\alpha-1}\big[\frac{\alpha-1}{b} + \log(\frac{\alpha}{2\alpha-1}
    + \frac{\alpha-1}{2\alpha-1} e^{-(2\alpha-1)/b})\big]`, which avoids the huge
    exponential of the textbook form and is the same number.
    """
    am1 = alpha - 1
    two_am1 = 2 * alpha - 1
    inner = alpha / two_am1 + (am1 / two_am1) * (-(two_am1 / b)).exp()
    return (am1 / b + inner.log()) / am1


def laplace_pure_epsilon(b: arb) -> arb:
    """Pure-DP epsilon of the Laplace mechanism with sensitivity 1: 1/b."""
    return 1 / b


def randomized_response_rdp(alpha: arb, p: arb) -> arb:
    r"""RDP of binary randomized response (Zhu & Wang 2019, Sec. 4; Mironov 2017, Prop. 5).

    :math:`\frac{1}{\alpha-1}\log(p^\alpha(1-p)^{1-\alpha} + (1-p)^\alpha p^{1-\alpha})`,
    evaluated in log space.
    """
    if p.is_exact() and p == arb(1) / 2:
        return arb(0)  # p = 1/2: both output distributions are Bernoulli(1/2), the divergence is 0
    lp = p.log()
    lq = (1 - p).log()
    t1 = alpha * lp + (1 - alpha) * lq
    t2 = alpha * lq + (1 - alpha) * lp
    m = t1.max(t2)
    mid = m.mid()
    s = (t1 - mid).exp() + (t2 - mid).exp()
    return (mid + s.log()) / (alpha - 1)


def randomized_response_pure_epsilon(p: arb) -> arb:
    """Pure-DP epsilon of binary randomized response: |log(p / (1 - p))|."""
    return abs((p / (1 - p)).log())


def _float(x: Fraction) -> float:
    """Float of a positive rational for screening: inf beyond the float range (never raises)."""
    try:
        return float(x)
    except OverflowError:
        return float("inf")


class BaseMechanismCurve(RdpCurve):
    """A base mechanism (sensitivity 1) with one exact parameter: its RDP at an order is
    the closed form :attr:`formula` of the order and the parameter, evaluated on balls;
    :attr:`pure_formula` gives its pure-DP epsilon (``None``: not pure DP).

    Subclasses name the parameter by a read-only property (``sigma``, ``scale``, ``p``).
    """

    formula: Callable[[arb, arb], arb]
    pure_formula: Callable[[arb], arb] | None = None

    def __init__(self, parameter: Fraction):
        self.parameter = parameter

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        return self.formula(to_arb(alpha), to_arb(self.parameter))

    def pure_dp_epsilon(self) -> arb | None:
        pure = self.pure_formula
        return None if pure is None else pure(to_arb(self.parameter))


class GaussianCurve(BaseMechanismCurve):
    """Gaussian mechanism, sensitivity 1 (Mironov 2017, Prop. 7)."""

    name = "gaussian"
    citation = "Mironov 2017, Prop. 7: alpha / (2 sigma^2)"
    formula = staticmethod(gaussian_rdp)

    @property
    def sigma(self) -> Fraction:
        return self.parameter

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        s = _float(self.sigma)
        with np.errstate(all="ignore"):
            out: np.ndarray = np.asarray(alphas, dtype=float) / (2.0 * s * s)  # s * s: inf, not OverflowError
        return out


class LaplaceCurve(BaseMechanismCurve):
    """Laplace mechanism, sensitivity 1 (Mironov 2017, Prop. 6; Zhu & Wang 2019, Sec. 4)."""

    name = "laplace"
    citation = "Zhu & Wang 2019, Sec. 4 (Mironov 2017, Prop. 6)"
    formula = staticmethod(laplace_rdp)
    pure_formula = staticmethod(laplace_pure_epsilon)

    @property
    def scale(self) -> Fraction:
        return self.parameter

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        b = _float(self.scale)
        inner = a / (2 * a - 1) + (a - 1) / (2 * a - 1) * np.exp(-(2 * a - 1) / b)
        out: np.ndarray = ((a - 1) / b + np.log(inner)) / (a - 1)
        return out


class RandomizedResponseCurve(BaseMechanismCurve):
    """Binary randomized response (Mironov 2017, Prop. 5; Zhu & Wang 2019, Sec. 4)."""

    name = "randomized-response"
    citation = "Zhu & Wang 2019, Sec. 4 (Mironov 2017, Prop. 5)"
    formula = staticmethod(randomized_response_rdp)
    pure_formula = staticmethod(randomized_response_pure_epsilon)

    @property
    def p(self) -> Fraction:
        return self.parameter

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        p = float(self.p)
        t1 = a * np.log(p) + (1 - a) * np.log1p(-p)
        t2 = a * np.log1p(-p) + (1 - a) * np.log(p)
        out: np.ndarray = np.logaddexp(t1, t2) / (a - 1)
        return out
