r"""Noise calibration with the certified PLD bracket.

:func:`calibrate_sigma_pld` returns the smallest noise multiplier on the grid of
numbers with ``sigma_digits`` significant digits whose certified PLD epsilon (upper
end of the bracket) is ``<= target_epsilon``, and the next smaller grid value, for
which the *lower* end of the bracket is ``> target_epsilon``.  Because the PLD
bracket encloses the true optimal epsilon, the second statement is stronger than
in the RDP calibration: at that sigma the mechanism itself (its tight dominating
pairs) does **not** satisfy (target_epsilon, delta)-DP, under any accounting.

The true optimal epsilon is non-increasing in sigma (a larger sigma is a
post-processing of a smaller one: add independent Gaussian noise), so the two
grid points bracket the transition.  A cheap wide-bracket screen guesses where to
look; the two decisions are made on certified brackets, refined until decided.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from .. import validation
from ..errors import PrecisionExhausted, UnsupportedEventError
from ..events import DpEvent
from .accountant import PldAccountant, PldEpsilonResult, check_width

__all__ = ["PldSigmaCalibration", "calibrate_sigma_pld"]


@dataclass(frozen=True)
class PldSigmaCalibration:
    """Result: ``sigma_upper`` meets the target (certified), ``sigma_lower`` (one grid
    step below) provably does not (the lower end of its bracket exceeds the target)."""

    sigma_upper: Fraction
    sigma_lower: Fraction
    at_upper: PldEpsilonResult
    at_lower: PldEpsilonResult

    def to_json(self) -> dict:
        return {
            "sigma": {"lower": decimal_text(self.sigma_lower), "upper": decimal_text(self.sigma_upper)},
            "method": "pld",
            "epsilon_at_sigma": self.at_upper.to_json(),
            "epsilon_at_lower": self.at_lower.to_json(),
        }


def decimal_text(x: Fraction) -> str:
    from ..calibrate import decimal_text as dec

    return dec(x)


def _grid_step(x: float, digits: int) -> Fraction:
    e = math.floor(math.log10(x)) - digits + 1
    return Fraction(10) ** e


def calibrate_sigma_pld(
    make_event: Callable[[Fraction], DpEvent],
    steps: int,
    target_epsilon: object,
    target_delta: object,
    *,
    sigma_digits: int = 4,
    width: object = None,
    max_rounds: int = 6,
) -> PldSigmaCalibration:
    """Smallest grid sigma whose certified PLD epsilon meets the target (see module).

    Args:
        make_event: sigma -> the per-step event.
        steps: number of compositions.
        target_epsilon, target_delta: the target.
        sigma_digits: significant digits of the returned sigma.
        width: initial bracket width for the two decisions (refined when undecided).

    Raises:
        PrecisionExhausted: if a decision stays undecided after ``max_rounds`` refinements.
    """
    E = validation.positive(target_epsilon, "target_epsilon")
    delta = validation.unit_interval(target_delta, "target_delta", open_low=True, open_high=True)

    if not PldAccountant().compose(make_event(Fraction(1)), steps)._tight():
        # FSwoR is accounted through pairs that only dominate it: their lower ends say
        # nothing about the mechanism, so "the next smaller sigma misses" is unprovable
        raise UnsupportedEventError(
            "pld calibration supports events whose pairs are tight (not fswor: its Poisson pairs only dominate it)."
        )

    def bracket(sigma: Fraction, w: Fraction) -> PldEpsilonResult:
        acc = PldAccountant(width=w, max_grid=200000, max_length=4_000_000).compose(make_event(sigma), steps)
        return acc.get_epsilon_result(delta)

    # 1. screen: bisection on the midpoints of brackets whose width shrinks with the
    #    interval (a guess only; the decisions below are certified)
    def mid(sigma: float, w: Fraction) -> float:
        # the lower construction errs about twice as much as the upper one, so this
        # weighted point is closer to the truth than the midpoint (a guess only)
        r = bracket(Fraction(sigma), w)
        return (r.epsilon.lower_float() + 2 * r.epsilon.upper_float()) / 3

    wide = Fraction(max(E / 20, Fraction(1, 1000)))
    lo, hi = 0.05, 1.0
    while mid(hi, wide) > float(E):
        lo, hi = hi, hi * 2
        if hi > 1e6:
            raise ValueError("epsilon target not reachable with sigma <= 1e6.")
    while mid(lo, wide) <= float(E) and lo > 1e-4:
        hi, lo = lo, lo / 2
    rel_step = float(_grid_step(hi, sigma_digits)) / hi
    for _ in range(60):
        if hi / lo - 1 < rel_step:
            break
        m = math.sqrt(lo * hi)
        w = Fraction(max(float(E) * (hi / lo - 1) * 0.3, float(E) * rel_step * 0.5))
        if mid(m, w) > float(E):
            lo = m
        else:
            hi = m
    step = _grid_step(hi, sigma_digits)
    s_hi = Fraction(math.ceil(Fraction(hi) / step)) * step
    w = check_width(width) if width is not None else E * step / Fraction(hi) / 3
    # 2. certified decisions
    at_hi: PldEpsilonResult | None = None
    for _ in range(4 * max_rounds):
        r = bracket(s_hi, w)
        if r.epsilon.upper() <= _q(E):
            at_hi = r
            break
        if r.epsilon.lower() > _q(E):
            s_hi += step  # s_hi misses the target: move up
            continue
        w /= 3
    if at_hi is None:
        raise PrecisionExhausted("calibrate (pld): could not certify that a sigma meets the target")
    for _ in range(4 * max_rounds):
        s_lo = s_hi - step
        if s_lo <= 0:
            raise ValueError("sigma grid step too coarse: the next smaller grid value is <= 0; raise sigma-digits.")
        r = bracket(s_lo, w)
        if r.epsilon.lower() > _q(E):
            return PldSigmaCalibration(s_hi, s_lo, at_hi, r)
        if r.epsilon.upper() <= _q(E):
            s_hi, at_hi = s_lo, r  # the smaller one also meets it: move down
            continue
        w /= 3
    raise PrecisionExhausted("calibrate (pld): could not prove that the next smaller sigma misses the target")


def _q(x: Fraction):
    from flint import arb, fmpq

    from ..arith import workprec

    with workprec(256):
        return arb(fmpq(x.numerator, x.denominator))
