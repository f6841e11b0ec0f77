r"""A new noise and a new sampling scheme in one module (docs/extending.md shows it verbatim).

* ``std-gaussian``: the Gaussian mechanism given by its standard deviation ``--std S``
  (sensitivity 1): RDP :math:`\alpha / (2 S^2)`, the Gaussian PLD pair.
* ``random-skip``: each step runs on the whole dataset with probability ``--run-probability P``
  and otherwise releases a fixed symbol.  The symbol has the same probability under both
  datasets, so :math:`E_Q[(dP/dQ)^\alpha] = 1 - P + P e^{(\alpha-1)\epsilon(\alpha)}` and the RDP
  is :math:`\log(1 + P(e^{(\alpha-1)\epsilon(\alpha)} - 1))/(\alpha-1)`, exact when the base RDP
  is.  No PLD pair here: the PLD accountant refuses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from rigorous_rdp import builtin_schemes
from rigorous_rdp.arith import to_arb
from rigorous_rdp.curves import RdpCurve
from rigorous_rdp.events import DpEvent
from rigorous_rdp.scheme import BoundChoice, Noise, Parameter, Scheme, Unsampled
from rigorous_rdp.validation import positive, unit_interval


@dataclass(frozen=True)
class StdGaussianEvent(DpEvent):
    """The Gaussian mechanism N(0, std^2), sensitivity 1."""

    std: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "std", positive(self.std, "std"))


@dataclass(frozen=True)
class RandomSkipEvent(DpEvent):
    """``event`` on the whole dataset with probability ``run_probability``, else a fixed symbol."""

    event: DpEvent
    run_probability: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_probability", unit_interval(self.run_probability, "run_probability"))


class StdGaussianCurve(RdpCurve):
    name, citation = "std-gaussian", "Mironov 2017, Prop. 7"

    def __init__(self, std: Fraction):
        self.std = std

    def certified(self, alpha: Fraction) -> object:
        self.check_order(alpha)
        return to_arb(alpha) / (2 * to_arb(self.std) ** 2)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        return np.asarray(alphas, dtype=float) / (2 * float(self.std) ** 2)


class RandomSkipCurve(RdpCurve):
    name, citation = "random-skip", "module docstring of toy_scheme"

    def __init__(self, base: RdpCurve, p: Fraction):
        self.base, self.p = base, p

    def certified(self, alpha: Fraction) -> object:
        self.check_order(alpha)
        a1 = to_arb(alpha) - 1
        return (to_arb(self.p) * (a1 * self.base.certified(alpha)).expm1()).log1p() / a1

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a1 = np.asarray(alphas, dtype=float) - 1
        with np.errstate(all="ignore"):
            return np.log1p(float(self.p) * np.expm1(a1 * self.base.screen(alphas))) / a1


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _gaussian_delta(params: tuple, direction: str, eps: mpmath.mpf) -> mpmath.mpf:
    # Balle & Wang 2018, Thm 8: delta(eps) of N(1, s^2) vs N(0, s^2) (symmetric)
    mu = 1 / _mp(params[0])
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _std_pld(event: StdGaussianEvent) -> object:
    from rigorous_rdp.pld.profiles import DominatingPair, gaussian_profile

    profile = gaussian_profile(event.std)
    return DominatingPair(profile, profile)


STD_GAUSSIAN = Noise(
    name="std-gaussian",
    event=StdGaussianEvent,
    parameter=Parameter("std", "std", "S", "standard deviation of the Gaussian noise, S > 0", "positive"),
    description="the Gaussian mechanism given by its standard deviation",
    rdp=lambda e: StdGaussianCurve(e.std),
    citation="Mironov 2017, Prop. 7",
    example="2",
    tag="std-gaussian",
    pld=_std_pld,
    reference_pld=lambda e: (_gaussian_delta, (e.std,)),
    references=lambda: {StdGaussianCurve: lambda c, a, dps, refs: _mp(a) / (2 * _mp(c.std) ** 2)},
)


class RandomSkip(Scheme):
    """``random-skip`` sampling of a base mechanism (add-remove adjacency)."""

    sampling = "random-skip"
    parameters = (
        Parameter(
            "run_probability", "run-probability", "P", "probability that a step runs, 0 <= P <= 1", "probability"
        ),
    )
    example = {"run_probability": "1/10"}  # noqa: RUF012 - read only
    event_classes = {"random-skip": RandomSkipEvent}  # noqa: RUF012 - read only

    def __init__(self, noise: Noise):
        self.noise = noise
        self.bounds = (BoundChoice(None, "exact (module docstring of toy_scheme)"),)
        self.description = f"random-skip sampling of {noise.event.__name__}"

    def matches(self, event: DpEvent) -> bool:
        return isinstance(event, RandomSkipEvent) and type(event.event) is self.noise.event

    def build(self, base: DpEvent, values: dict) -> DpEvent:
        return RandomSkipEvent(base, values["run_probability"])

    def rdp_curve(self, event: RandomSkipEvent) -> RdpCurve:
        return RandomSkipCurve(self.noise.rdp(event.event), event.run_probability)

    def rdp_references(self) -> dict:
        def skip(c: RandomSkipCurve, a: Fraction, dps: int, refs: object) -> mpmath.mpf:
            with mpmath.workdps(dps):
                a1 = _mp(a) - 1
                return mpmath.log1p(_mp(c.p) * mpmath.expm1(a1 * refs.rdp(c.base, a, dps))) / a1

        return {RandomSkipCurve: skip, **self.noise.references()}


#: the line the registry gets: ``*toy_scheme.SCHEMES,`` in ``registry.SCHEMES``
SCHEMES = (Unsampled(STD_GAUSSIAN), RandomSkip(STD_GAUSSIAN), RandomSkip(builtin_schemes.GAUSSIAN))
