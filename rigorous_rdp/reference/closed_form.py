r"""mpmath references for :mod:`rigorous_rdp.pld.closed_form` (an independent code path).

* Composed Gaussian mechanisms: :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) -
  e^\varepsilon \Phi(-\varepsilon/\mu - \mu/2)`, :math:`\mu^2 = \sum_i T_i/\sigma_i^2`, evaluated
  with ``mpmath.ncdf`` at a high working precision (the textbook form, cancellation and all:
  the caller raises ``dps`` where it bites), and :math:`\varepsilon(\delta)` by plain bisection.
* Composed randomized response: the binomial law of the loss with *exact rational* masses
  (``fractions.Fraction``), so the total-variation distance :math:`\delta(0)` is an exact
  rational, and :math:`\delta(\varepsilon)` a finite sum whose only non-rational factors are
  the :math:`e^{\varepsilon - \ell_k}`; :math:`\varepsilon(\delta)` by bisection.

These are estimates in mpmath's floating point (no enclosures); tests compare them with a
slack far below the widths they check.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import mpmath

__all__ = ["gaussian_delta_mu2", "gaussian_epsilon_mu2", "rr_delta", "rr_epsilon", "rr_total_variation"]


def _mp(x: object) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)  # type: ignore[arg-type]


def gaussian_delta_mu2(mu2: Fraction, eps: object, dps: int = 80) -> mpmath.mpf:
    """delta(eps) of the Gaussian pair N(mu, 1) vs N(0, 1) with mu^2 = ``mu2``."""
    with mpmath.workdps(dps):
        mu = mpmath.sqrt(_mp(mu2))
        e = _mp(eps)
        return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


def _bisect(f, lo: mpmath.mpf, hi: mpmath.mpf, iterations: int) -> mpmath.mpf:
    """Root of a decreasing ``f`` with f(lo) > 0 >= f(hi)."""
    for _ in range(iterations):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def gaussian_epsilon_mu2(mu2: Fraction, delta: object, dps: int = 80) -> mpmath.mpf:
    """epsilon(delta) of the same pair (0 when delta(0) <= delta), by bisection."""
    with mpmath.workdps(dps):
        d = _mp(delta)
        if gaussian_delta_mu2(mu2, 0, dps) <= d:
            return mpmath.mpf(0)
        mu = mpmath.sqrt(_mp(mu2))
        hi = mu * mu / 2 + mu * 40 + 1  # delta there is below Phi(-40) ~ 1e-350
        return _bisect(lambda e: gaussian_delta_mu2(mu2, e, dps) - d, mpmath.mpf(0), hi, 4 * dps)


def _masses(p: Fraction, steps: int) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """``(p', P, Q)``: p' = max(p, 1-p), and the exact binomial masses of k (the number of
    outputs that favour the first dataset) under the two datasets."""
    pp = max(p, 1 - p)
    P = [comb(steps, k) * pp**k * (1 - pp) ** (steps - k) for k in range(steps + 1)]
    Q = [comb(steps, k) * (1 - pp) ** k * pp ** (steps - k) for k in range(steps + 1)]
    return pp, P, Q


def rr_total_variation(p: Fraction, steps: int) -> Fraction:
    """delta(0) of ``steps`` randomized responses: an exact rational (sum over k > T/2)."""
    _, P, Q = _masses(p, steps)
    return sum((P[k] - Q[k] for k in range(steps + 1) if 2 * k > steps), Fraction(0))


def _rr_profile(p: Fraction, steps: int, dps: int):
    """delta(eps) of ``steps`` randomized responses as a function of an mpmath eps (masses
    converted once): the sum over k with loss (2k - T) ell > eps of P(k) - e^eps Q(k)."""
    pp, P, Q = _masses(p, steps)
    with mpmath.workdps(dps):
        ell = mpmath.log(_mp(pp) / _mp(1 - pp))
        Pm = [_mp(x) for x in P]
        Qm = [_mp(x) for x in Q]

    def delta(e: mpmath.mpf) -> mpmath.mpf:
        with mpmath.workdps(dps):
            ee = mpmath.exp(e)
            total = mpmath.mpf(0)
            for k in range(steps, -1, -1):
                if not (2 * k - steps) * ell > e:
                    break
                total += Pm[k] - ee * Qm[k]
            return total

    return delta, ell


def rr_delta(p: Fraction, steps: int, eps: object, dps: int = 60) -> mpmath.mpf:
    """delta(eps) of ``steps`` randomized responses (exact masses, mpmath exponential)."""
    delta, _ = _rr_profile(p, steps, dps)
    with mpmath.workdps(dps):
        return delta(_mp(eps))


def rr_epsilon(p: Fraction, steps: int, delta: object, dps: int = 60) -> mpmath.mpf:
    """epsilon(delta) of ``steps`` randomized responses (0 when delta(0) <= delta), by bisection."""
    prof, ell = _rr_profile(p, steps, dps)
    with mpmath.workdps(dps):
        d = _mp(delta)
        if prof(mpmath.mpf(0)) <= d:
            return mpmath.mpf(0)
        return _bisect(lambda e: prof(e) - d, mpmath.mpf(0), steps * ell, 4 * dps)
