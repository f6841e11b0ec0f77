r"""Noise calibration and step budgets on certified enclosures.

:func:`calibrate_sigma` returns the smallest noise multiplier, on the grid of
numbers with ``sigma_digits`` significant decimal digits, whose *certified*
epsilon (upper end of the enclosure) is ``<= target_epsilon``, together with
the next smaller grid value, which is *proven* not to meet the target under
the same accounting (the lower end of its certified enclosure is
``> target_epsilon``).  "The same accounting" means: the same
:class:`~rigorous_rdp.accountant.RdpAccountant` options (order grid,
continuous order search, conversion); a different order search could give a
smaller epsilon at that sigma.

:func:`max_steps` returns the largest number of steps whose certified epsilon
meets the target for a fixed mechanism, and proves that one more step does
not (under the same accounting).

Both use a float screen only to *guess* where to look (regula falsi, Illinois
variant, on :meth:`RdpAccountant.estimate_epsilon`, whose one-step screens are
cached so that the number of steps is only a multiplier); every
decision of the final bisection is made on certified enclosures with exact
rational sigma, so the returned values do not depend on the screen being
accurate -- a poor guess only costs time.

The certified epsilon of the exact Poisson-subsampled Gaussian is decreasing in
sigma (a larger sigma is a post-processing of a smaller one: add independent
noise) and increasing in the number of steps, so the bracket is the
transition point, found by one galloping-then-bisecting search on the grid
(:func:`_first_true`), shared by both functions.  The certified one-step RDP at
each order is cached by the accountant, so the certified epsilon of T steps costs
one multiplication once the step's value is known.  The order optimisation of the accountant is heuristic, so
the *reported* epsilon need not be exactly monotone; the bisection therefore
never claims more than what it evaluated: the upper end was evaluated and
meets the target, the lower end was evaluated and misses it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import progress as _progress
from . import validation
from .accountant import EpsilonResult, RdpAccountant
from .arith import bisect_first, to_arb, workprec
from .events import DpEvent

__all__ = [
    "DEFAULT_SIGMA_DIGITS",
    "SIGMA_MAX",
    "STEPS_MAX",
    "SigmaCalibration",
    "StepsBudget",
    "calibrate_sigma",
    "max_steps",
]

DEFAULT_SIGMA_DIGITS = 4
SIGMA_MAX = Fraction(10) ** 6
SIGMA_MIN = Fraction(1, 10**6)
#: targets above this are screened as this (floats overflow beyond 1e308)
_FLOAT_CAP = Fraction(10) ** 300
STEPS_MAX = 10**15

Progress = Callable[[str, EpsilonResult], None] | None


@dataclass(frozen=True)
class SigmaCalibration:
    """Result of :func:`calibrate_sigma`.

    Attributes:
        sigma: the noise multiplier to use (exact; certified epsilon <= target).
        sigma_lower: the next smaller grid value, proven (certified epsilon
            lower end > target) not to meet the target under the same
            accounting; ``0`` if sigma is the smallest positive grid value.
        epsilon: certified epsilon at ``sigma``.
        epsilon_lower: certified epsilon at ``sigma_lower`` (``None`` for 0).
        evaluations: number of certified accountant evaluations.
    """

    sigma: Fraction
    sigma_lower: Fraction
    epsilon: EpsilonResult
    epsilon_lower: EpsilonResult | None
    evaluations: int
    sigma_digits: int

    def to_json(self) -> dict[str, Any]:
        return {
            "sigma": {"lower": decimal_text(self.sigma_lower), "upper": decimal_text(self.sigma)},
            "epsilon_at_sigma": self.epsilon.to_json(),
            "epsilon_at_lower": None if self.epsilon_lower is None else self.epsilon_lower.to_json(),
            "sigma_digits": self.sigma_digits,
            "evaluations": self.evaluations,
        }


@dataclass(frozen=True)
class StepsBudget:
    """Result of :func:`max_steps`.

    Attributes:
        steps: largest number of steps whose certified epsilon meets the target
            (0 if even one step does not).
        epsilon: certified epsilon after ``steps`` steps (``None`` when 0).
        epsilon_next: certified epsilon after ``steps + 1`` steps, whose lower
            end exceeds the target (``None`` if the search hit ``STEPS_MAX``).
        capped: True when ``steps == STEPS_MAX`` still meets the target.
    """

    steps: int
    epsilon: EpsilonResult | None
    epsilon_next: EpsilonResult | None
    evaluations: int
    capped: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "max_steps": self.steps,
            "epsilon_at_max_steps": None if self.epsilon is None else self.epsilon.to_json(),
            "epsilon_at_next_step": None if self.epsilon_next is None else self.epsilon_next.to_json(),
            "capped": self.capped,
            "evaluations": self.evaluations,
        }


def decimal_text(x: Fraction) -> str:
    """Exact decimal string of a rational whose denominator divides a power of ten."""
    if x == 0:
        return "0"
    k = 0
    while (x * 10**k).denominator != 1:
        k += 1
        if k > 400:
            return f"{x.numerator}/{x.denominator}"
    n = abs(int(x * 10**k))
    s = str(n).rjust(k + 1, "0")
    out = s if k == 0 else s[:-k] + "." + s[-k:]
    if "." in out:
        out = out.rstrip("0").rstrip(".")
    return ("-" if x < 0 else "") + out


# ---------------------------------------------------------------------------
# float screen (guessing only)
# ---------------------------------------------------------------------------


def _screen_epsilon(acc: RdpAccountant, delta: float, scale: float = 1.0) -> float:
    """Float estimate of the accountant's epsilon with all counts multiplied by ``scale``."""
    return acc.estimate_epsilon(Fraction(delta), scale)


def _solve_decreasing(
    f: Callable[[float], float], target: float, lo: float, hi: float, rtol: float = 1e-10, maxiter: int = 100
) -> float | None:
    """Estimate of the x in [lo, hi] with f(x) = target for a decreasing f (float; guessing only).

    The bracket is first widened by factors of 4 from x = 1 when it is not a sign
    change; then the Illinois variant of regula falsi on log x (bisection steps
    where f is not finite).  Returns the upper end of the final bracket (where
    f <= target), or None when no x <= hi meets the target.
    """
    try:
        x = min(max(1.0, lo), hi)
        fx = f(x) - target
        if fx > 0:
            a, fa = x, fx
            b = x
            while True:
                b = min(hi, b * 4)
                fb = f(b) - target
                if fb <= 0:
                    break
                if b >= hi:
                    return None
                a, fa = b, fb
        else:
            b, fb = x, fx
            a = x
            while True:
                if a <= lo:
                    return lo
                a = max(lo, a / 4)
                fa = f(a) - target
                if fa > 0:
                    break
                b, fb = a, fa
        ua, ub = math.log(a), math.log(b)
        side = 0
        for _ in range(maxiter):
            if ub - ua <= rtol:
                break
            if math.isfinite(fa) and math.isfinite(fb) and fa != fb:
                u = ub - fb * (ub - ua) / (fb - fa)
                if not ua < u < ub:
                    u = 0.5 * (ua + ub)
            else:
                u = 0.5 * (ua + ub)
            fu = f(math.exp(u)) - target
            if fu > 0:
                ua, fa = u, fu
                if side == -1 and math.isfinite(fb):
                    fb /= 2
                side = -1
            else:
                ub, fb = u, fu
                if side == 1 and math.isfinite(fa):
                    fa /= 2
                side = 1
        return math.exp(ub)
    except (ValueError, ArithmeticError, OverflowError):
        return None


def _first_true(pred: Callable[[int], bool], start: int, lo_limit: int, hi_limit: int) -> int | None:
    """Smallest n in (lo_limit, hi_limit] with ``pred(n)``, for a predicate that is False up to a
    transition and True after it (``pred(lo_limit)`` is taken as False).

    Gallops from ``start`` (doubling steps) to a bracket, then bisects; every
    returned claim is an evaluated one: ``pred(n)`` was True and ``pred(n - 1)``
    False (or ``n - 1 == lo_limit``).  None when ``pred(hi_limit)`` is False.
    """
    n = min(max(start, lo_limit + 1), hi_limit)
    if pred(n):
        hi, g = n, 1
        while True:
            lo = max(lo_limit, hi - g)
            if lo == lo_limit or not pred(lo):
                break
            hi, g = lo, 2 * g
    else:
        lo, g = n, 1
        while True:
            hi = min(hi_limit, lo + g)
            if pred(hi):
                break
            if hi == hi_limit:
                return None
            lo, g = hi, 2 * g
    return bisect_first(pred, lo, hi)


# ---------------------------------------------------------------------------
# certified decisions
# ---------------------------------------------------------------------------


class _Evaluator:
    """Certified epsilon of an accountant configuration, with a three-valued verdict."""

    def __init__(self, target_epsilon: Fraction, delta: Fraction, template: RdpAccountant | None, progress: Progress):
        self.target = target_epsilon
        self.delta = delta
        self.template = RdpAccountant.template(template)
        self.progress = progress
        self.count = 0

    def accountant(self) -> RdpAccountant:
        return self.template.fresh()

    def verdict(self, event: DpEvent, steps: int, label: str) -> tuple[int, EpsilonResult]:
        """(+1 meets: upper <= E; -1 proven miss: lower > E; 0 undecided), result.

        An undecided comparison is retried once at twice the digits.
        """
        digits = self.template.digits
        for _ in range(2):
            acc = self.template.fresh(digits)
            acc.compose(event, steps)
            _progress.note(f"certified evaluation {self.count + 1} ({label})")
            res = acc.get_epsilon_and_order(self.delta)
            self.count += 1
            if self.progress is not None:
                self.progress(label, res)
            with workprec(max(64, res.epsilon.prec)):
                t = to_arb(self.target)
                if res.epsilon.upper() <= t:
                    return 1, res
                if res.epsilon.lower() > t:
                    return -1, res
            digits = min(1000, 2 * digits)
        return 0, res


def check_calibration_inputs(target_epsilon: object, target_delta: object) -> tuple[Fraction, Fraction]:
    eps = validation.positive(target_epsilon, "epsilon")
    delta = validation.unit_interval(target_delta, "delta", open_low=True, open_high=True)
    return eps, delta


def calibrate_sigma(
    make_event: Callable[[Fraction], DpEvent],
    steps: int,
    target_epsilon: object,
    target_delta: object,
    *,
    sigma_digits: int = DEFAULT_SIGMA_DIGITS,
    accountant: RdpAccountant | None = None,
    progress: Progress = None,
) -> SigmaCalibration:
    r"""Smallest ``sigma_digits``-digit noise multiplier whose certified epsilon is ``<= target_epsilon``.

    Args:
        make_event: ``sigma -> event`` of one step (e.g. ``lambda s:
            PoissonSampledEvent(q, GaussianEvent(s))``); ``sigma`` is an exact Fraction.
        steps: number of composed steps (>= 1).
        target_epsilon: E > 0; target_delta: delta in (0, 1) (both exact).
        sigma_digits: significant decimal digits of the returned sigma (1..15).
        accountant: the template of the accounting options (order grid, continuous search,
            conversion, digits; default ``RdpAccountant()``); only its options are used
            (:meth:`RdpAccountant.fresh`).
        progress: called as ``progress(sigma_text, result)`` after each certified evaluation.

    Returns:
        :class:`SigmaCalibration`: ``sigma`` meets the target (certified),
        ``sigma_lower = sigma - 10**(e - sigma_digits + 1)`` provably does not.

    Raises:
        ValueError: bad input, or the target is not met at sigma = 10**6.
    """
    eps, delta = check_calibration_inputs(target_epsilon, target_delta)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1. Found {steps!r}.")
    if isinstance(sigma_digits, bool) or not isinstance(sigma_digits, int) or not 1 <= sigma_digits <= 15:
        raise ValueError(f"sigma_digits must be an integer in [1, 15]. Found {sigma_digits!r}.")
    ev = _Evaluator(eps, delta, accountant, progress)
    make_event(Fraction(1))  # validates the other parameters early (raises ValueError)

    def screen(s: float) -> float:
        acc = ev.accountant()
        acc.compose(make_event(Fraction(s)), 1)
        return _screen_epsilon(acc, float(delta), float(steps))

    # the guess is a float search (any guess is safe: the grid verdicts below are certified)
    guess = _solve_decreasing(screen, float(min(eps, _FLOAT_CAP)), float(SIGMA_MIN), float(SIGMA_MAX)) or 1.0

    # Grid of sigma_digits significant digits at the magnitude of the guess.
    e10 = math.floor(math.log10(guess))
    h = Fraction(10) ** (e10 - sigma_digits + 1)
    cache: dict[int, tuple[int, EpsilonResult | None]] = {}

    def verdict(n: int) -> tuple[int, EpsilonResult | None]:
        if n <= 0:
            return -1, None  # sigma <= 0 is no mechanism: never meets a finite target
        if n not in cache:
            s = n * h
            cache[n] = ev.verdict(make_event(s), steps, decimal_text(s))
        return cache[n]

    n0 = max(1, math.ceil(Fraction(guess) / h))
    hi = _first_true(lambda n: verdict(n)[0] == 1, n0, 0, int(SIGMA_MAX / h))
    if hi is None:
        raise ValueError(
            f"epsilon target {float(eps)!r} is not met by any noise multiplier <= "
            f"{float(SIGMA_MAX):g} for this mechanism (certified)."
        )
    lo = hi - 1
    v_lo, r_lo = verdict(lo)
    # undecided even at doubled digits: lo is not *proven* to miss; report the
    # gap honestly by widening one grid step down until proven.
    while v_lo == 0 and lo > 0:
        lo -= 1
        v_lo, r_lo = verdict(lo)
    _, r_hi = verdict(hi)
    assert r_hi is not None
    return SigmaCalibration(hi * h, max(lo, 0) * h, r_hi, r_lo, ev.count, sigma_digits)


def max_steps(
    event: DpEvent,
    target_epsilon: object,
    target_delta: object,
    *,
    accountant: RdpAccountant | None = None,
    progress: Progress = None,
) -> StepsBudget:
    r"""Largest number of steps T of ``event`` whose certified epsilon is ``<= target_epsilon``.

    ``accountant`` and ``progress`` as in :func:`calibrate_sigma`.

    Returns:
        :class:`StepsBudget` with ``steps`` = T (certified to meet the target)
        and the certified epsilon at T + 1, whose lower end exceeds the target
        (under the same accounting).  T = 0 when one step already misses.

    Raises:
        ValueError: bad input.
    """
    eps, delta = check_calibration_inputs(target_epsilon, target_delta)
    ev = _Evaluator(eps, delta, accountant, progress)
    acc1 = ev.accountant()
    acc1.compose(event, 1)
    cache: dict[int, tuple[int, EpsilonResult | None]] = {}

    def verdict(t: int) -> tuple[int, EpsilonResult | None]:
        if t <= 0:
            return 1, None
        if t not in cache:
            cache[t] = ev.verdict(event, t, f"{t} steps")
        return cache[t]

    def f(t: float) -> float:
        return _screen_epsilon(acc1, float(delta), t)

    x = _solve_decreasing(lambda t: -f(t), -float(min(eps, _FLOAT_CAP)), 1.0, float(STEPS_MAX))
    start = max(1, int(x)) if x is not None else 1
    # first step count that does not meet the target (t = 0 always meets)
    first_miss = _first_true(lambda t: verdict(t)[0] != 1, start + 1, 0, STEPS_MAX)
    if first_miss is None:
        _, rm = verdict(STEPS_MAX)
        return StepsBudget(STEPS_MAX, rm, None, ev.count, capped=True)
    lo, hi = first_miss - 1, first_miss
    _, r_lo = verdict(lo)
    v_hi, r_hi = verdict(hi)
    if v_hi == 0:
        # lo + 1 steps is undecided even at doubled digits; the answer lo is still
        # certified, but "lo + 1 misses" is not proven: report no proof.
        r_hi = None
    return StepsBudget(lo, r_lo, r_hi, ev.count)
