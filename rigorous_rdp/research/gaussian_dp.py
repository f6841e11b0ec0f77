r"""Exact (epsilon, delta) of the Gaussian mechanism, certified (analytic Gaussian mechanism).

Balle & Wang 2018 ("Improving the Gaussian mechanism for differential privacy:
analytical calibration and optimal denoising", Thm. 8): the Gaussian mechanism
:math:`f(D) + N(0, \sigma^2)` with L2 sensitivity :math:`\Delta` is
(epsilon, delta)-DP if and only if

.. math::

    \delta \ge \delta_\sigma(\epsilon) = \Phi\Big(\frac{\Delta}{2\sigma} - \frac{\epsilon\sigma}{\Delta}\Big)
        - e^{\epsilon}\,\Phi\Big(-\frac{\Delta}{2\sigma} - \frac{\epsilon\sigma}{\Delta}\Big).

So :math:`\delta_\sigma(\epsilon)` is the exact (smallest) delta, and inverting it gives the
exact (smallest) epsilon for a delta, or the smallest sigma for a target
(epsilon, delta).  :math:`\delta_\sigma(\epsilon)` is decreasing in epsilon (its derivative is
:math:`-e^\epsilon\Phi(\cdot) < 0`) and decreasing in sigma (it is a hockey-stick
divergence between Gaussians whose distance :math:`\Delta/\sigma` shrinks), which the
inversions use.

Certified evaluation: :math:`\Phi(x) = \tfrac12\,\mathrm{erfc}(-x/\sqrt2)`
with Arb's rigorous ``erfc``; no underflow (arb exponents are unbounded).  The
difference of the two terms cancels mildly for large :math:`\epsilon\sigma^2`
(relative size about :math:`1/(\epsilon\sigma^2)`); :func:`gaussian_delta_certified` raises the
working precision until the requested relative width is met.

Inputs are exact rationals (``int``, ``Fraction``, decimal ``str``; a ``float``
is its exact binary value) or arb balls.  Bad input raises ``ValueError`` whose
message starts with the parameter name (``sigma``, ``epsilon``, ``delta``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb
from scipy import special

from ..arith import DEFAULT_DIGITS, MAX_PREC, Certified, parse_rational, refine, to_arb, workprec
from .composition import float_root, invert_decreasing, number_ball

__all__ = ["gaussian_delta", "gaussian_delta_certified", "gaussian_delta_float", "gaussian_epsilon", "gaussian_sigma"]

Number = int | Fraction | str | float | arb


def _phi(x: arb) -> arb:
    """Standard normal cdf, enclosure via erfc."""
    return (-x / arb(2).sqrt()).erfc() / 2


def _positive(x: Number, name: str) -> arb:
    b = number_ball(x, name)
    if not b > 0:
        raise ValueError(f"{name} must be > 0. Found {x if not isinstance(x, arb) else x.str(8)}.")
    return b


def _nonneg(x: Number, name: str) -> arb:
    b = number_ball(x, name)
    if not b >= 0:
        raise ValueError(f"{name} must be >= 0. Found {x if not isinstance(x, arb) else x.str(8)}.")
    return b


def gaussian_delta(epsilon: Number, sigma: Number, sensitivity: Number = 1, *, prec: int | None = None) -> arb:
    r"""Ball containing the exact delta of the Gaussian mechanism at ``epsilon``.

    Balle & Wang 2018, Thm. 8 (module docstring), with ``sigma`` the noise
    standard deviation and ``sensitivity`` the L2 sensitivity (so ``sigma`` is
    the noise multiplier when ``sensitivity = 1``).

    Args:
        epsilon: >= 0.
        sigma: > 0.
        sensitivity: > 0 (default 1).
        prec: working precision in bits (default: current).
    """
    with workprec(prec):
        e = _nonneg(epsilon, "epsilon")
        s = _positive(sigma, "sigma")
        dl = _positive(sensitivity, "sensitivity")
        a = dl / (2 * s)
        b = e * s / dl
        d = _phi(a - b) - e.exp() * _phi(-a - b)
        # delta is a probability difference in [0, 1]; intersecting is safe
        return d.max(arb(0)).min(arb(1)) if d.is_finite() else arb(0).union(arb(1))


def gaussian_delta_float(epsilon: object, sigma: float, sensitivity: float = 1.0) -> np.ndarray:
    """Float estimate of :func:`gaussian_delta` (vectorised over ``epsilon``; screening only)."""
    e = np.asarray(epsilon, dtype=float)
    a = sensitivity / (2.0 * sigma)
    b = e * sigma / sensitivity
    l1 = special.log_ndtr(a - b)
    l2 = e + special.log_ndtr(-a - b)
    with np.errstate(all="ignore"):
        return np.where(l2 < l1, np.exp(l1) * -np.expm1(l2 - l1), 0.0)


def gaussian_delta_certified(
    epsilon: Number, sigma: Number, sensitivity: Number = 1, *, digits: float = DEFAULT_DIGITS, max_prec: int = MAX_PREC
) -> Certified:
    """:func:`gaussian_delta` with the working precision raised until ``digits`` relative digits."""
    e = epsilon if isinstance(epsilon, arb) else parse_rational(epsilon, "epsilon")
    s = sigma if isinstance(sigma, arb) else parse_rational(sigma, "sigma")
    dl = sensitivity if isinstance(sensitivity, arb) else parse_rational(sensitivity, "sensitivity")
    return refine(lambda prec: gaussian_delta(e, s, dl), digits, max_prec=max_prec, what="Gaussian delta")


def gaussian_epsilon(
    delta: Number, sigma: Number, sensitivity: Number = 1, *, digits: float = DEFAULT_DIGITS, max_prec: int = MAX_PREC
) -> Certified:
    r"""The exact smallest epsilon with the Gaussian mechanism (epsilon, delta)-DP, certified.

    Inverts :func:`gaussian_delta` (decreasing in epsilon) by certified bisection
    (:func:`rigorous_rdp.research.composition.invert_decreasing`).  The returned ball
    ``[a, b]`` has :math:`\delta_\sigma(b) \le \delta` proven (``upper`` is a valid epsilon)
    and :math:`\delta_\sigma(a) > \delta` proven (or ``a = 0``).

    Args:
        delta: target in (0, 1).
        sigma: noise standard deviation > 0.
        sensitivity: L2 sensitivity > 0 (default 1).
        digits: relative width of the enclosure.
    """
    d = parse_rational(delta, "delta") if not isinstance(delta, arb) else delta
    s = parse_rational(sigma, "sigma") if not isinstance(sigma, arb) else sigma
    dl = parse_rational(sensitivity, "sensitivity") if not isinstance(sensitivity, arb) else sensitivity
    with workprec(64):
        db = number_ball(d, "delta")
        if not (db > 0 and db < 1):
            raise ValueError(f"delta must be in (0, 1). Found {delta!r}.")
        _positive(s, "sigma")
        _positive(dl, "sensitivity")
    sf, lf, df = _f(s), _f(dl), _f(d)
    # upper end of the search: double until delta(hi) <= target is plausible in float
    hi = 1.0
    while hi < 1e12 and gaussian_delta_float(hi, sf, lf) > df * 0.5:
        hi *= 2.0
    hi_f = Fraction(hi)
    guess = float_root(lambda x: float(gaussian_delta_float(x, sf, lf)), df, 0.0, hi)
    return invert_decreasing(
        lambda x: gaussian_delta(to_arb(x), s, dl),
        number_ball(d, "delta") if isinstance(d, arb) else to_arb(d),
        Fraction(0),
        hi_f,
        guess=guess,
        digits=digits,
        max_prec=max_prec,
        what="Gaussian epsilon",
    )


def gaussian_sigma(
    epsilon: Number, delta: Number, sensitivity: Number = 1, *, digits: float = DEFAULT_DIGITS, max_prec: int = MAX_PREC
) -> Certified:
    r"""The smallest noise standard deviation with the Gaussian mechanism (epsilon, delta)-DP.

    Analytic Gaussian mechanism calibration (Balle & Wang 2018, Thm. 8 and
    Alg. 1), by certified bisection on sigma (delta is decreasing in sigma).
    ``upper`` of the returned ball is a sigma that provably achieves the target.

    Args:
        epsilon: > 0... or 0 (then only delta > 0 is needed).
        delta: target in (0, 1).
        sensitivity: L2 sensitivity > 0 (default 1).
    """
    e = parse_rational(epsilon, "epsilon") if not isinstance(epsilon, arb) else epsilon
    d = parse_rational(delta, "delta") if not isinstance(delta, arb) else delta
    dl = parse_rational(sensitivity, "sensitivity") if not isinstance(sensitivity, arb) else sensitivity
    with workprec(64):
        _nonneg(e, "epsilon")
        db = number_ball(d, "delta")
        if not (db > 0 and db < 1):
            raise ValueError(f"delta must be in (0, 1). Found {delta!r}.")
        _positive(dl, "sensitivity")
    ef, df, lf = _f(e), _f(d), _f(dl)
    hi = lf
    while hi < 1e15 and float(gaussian_delta_float(ef, hi, lf)) > df * 0.5:
        hi *= 2.0
    guess = float_root(lambda x: float(gaussian_delta_float(ef, x, lf)) if x > 0 else 1.0, df, 0.0, hi)
    return invert_decreasing(
        lambda x: gaussian_delta(e, to_arb(x), dl) if x > 0 else arb(1),
        to_arb(d) if not isinstance(d, arb) else d,
        Fraction(0),
        Fraction(hi),
        guess=guess,
        digits=digits,
        max_prec=max_prec,
        what="Gaussian sigma",
    )


def _f(x: Number) -> float:
    if isinstance(x, arb):
        return float(x.mid())
    return float(x)
