r"""The result types of the PLD accountants: a :class:`Bracket` of the true optimal value, and
the epsilon / delta results that carry it with the grid and the per-direction brackets.

Shared by the grid accountant (:mod:`~rigorous_rdp.pld.accountant`) and the exact answers
(:mod:`~rigorous_rdp.pld.closed_form`), which import them from here (neither imports the other's
module at import time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from flint import arb, fmpq

from ..accountant import DeltaQuantity, EpsilonQuantity
from ..arith import Certified, workprec

__all__ = ["Bracket", "PldDeltaResult", "PldEpsilonResult", "PldResult", "decimal_text"]


def _frac_arb(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


@dataclass(frozen=True)
class Bracket(Certified):
    """A certified bracket ``[lower, upper]`` of the TRUE optimal value (epsilon or delta) of a
    composition: a ball built from two exact rational endpoints, which it keeps.  Its JSON
    form prints those endpoints rounded outward (an arb radius has a 30-bit mantissa, so the
    ball's own endpoints can lie slightly outside, e.g. a tiny negative lower end of a delta).

    Attributes:
        lo_exact: the exact lower end (a proven lower bound on the optimum).
        up_exact: the exact upper end (a proven upper bound on the optimum).
    """

    claim: ClassVar[str] = "bracket: the true optimal value of the composition lies in [lower, upper]"

    lo_exact: Fraction = Fraction(0)
    up_exact: Fraction = Fraction(0)

    def __float__(self) -> float:
        """``float(bracket)``: the exact upper end rounded up to a float, the conservative reading
        (a proven upper bound on the optimum); :meth:`lower_float` gives the other end."""
        f = float(self.up_exact)
        return math.nextafter(f, math.inf) if Fraction(f) < self.up_exact else f

    def to_json(self, sig: int | None = None) -> dict:
        from ..arith import _HUGE_BITS, decimal_lower, decimal_upper, round_decimal

        n = 17 if sig is None else sig

        def dec(x: Fraction, up: bool) -> str:
            if x == 0:
                return "0"
            if max(x.numerator.bit_length(), x.denominator.bit_length()) > _HUGE_BITS:
                # e.g. a delta of 1e-21714737: no power of ten of that size is built (a ball
                # enclosing x, printed outward through its logarithm)
                with workprec(128):
                    ball = _frac_arb(x)
                return decimal_upper(ball, n) if up else decimal_lower(ball, n)
            return round_decimal(x, n, up=up)

        return {"lower": dec(self.lo_exact, False), "upper": dec(self.up_exact, True)}

    def __repr__(self) -> str:
        """``Bracket(lower=..., upper=..., claim='...')``: the exact ends rounded outward to 10
        significant digits (:meth:`to_json` gives more)."""
        ends = self.to_json(10)
        return f"Bracket(lower={ends['lower']}, upper={ends['upper']}, claim='true optimum in [lower, upper]')"


def _bracket(lo: Fraction, up: Fraction) -> Bracket:
    """A ball whose exact endpoints enclose the rationals ``lo <= up`` (and remembers them)."""
    bits = (
        max(
            128,
            lo.numerator.bit_length(),
            lo.denominator.bit_length(),
            up.numerator.bit_length(),
            up.denominator.bit_length(),
        )
        + 64
    )
    with workprec(bits):
        ball = _frac_arb(lo).union(_frac_arb(up))
    return Bracket(ball, bits, lo_exact=lo, up_exact=up)


def _as_bracket(value: Certified) -> Bracket:
    if not isinstance(value, Bracket):  # pragma: no cover - every PLD result holds a Bracket
        raise TypeError(f"expected a Bracket. Found {type(value).__name__}.")
    return value


def decimal_text(x: Fraction) -> str:
    from ..accountant import frac_json

    v = frac_json(x)
    return v if isinstance(v, str) else repr(v)


@dataclass(frozen=True)
class PldResult:
    r"""Certified bracket of the optimal epsilon or delta (see the two subclasses).

    Attributes:
        value: ``[lower, upper]``: the true optimal value lies in it.
        target: the target of the other quantity (exact).
        grid: N; the loss grid is :math:`\{k/N\}`.
        scale_bits: S; masses are integers times :math:`2^{-S}`.
        tail: the tail mass budget (exact) used for truncation and range selection.
        directions: per direction, its bracket and the grid it was computed on.
        lower_end: where the lower end comes from when the pairs only dominate ("" otherwise).
    """

    quantity: ClassVar[str]
    target_name: ClassVar[str]
    #: what is certified: a bracket of the true optimum (an RDP result bounds it from above only)
    claim: ClassVar[str] = "bracket of the true optimal value of the composition of the dominating pairs"

    value: Certified  # a Bracket (typed as the base class shared with the RDP results)
    target: Fraction
    grid: int
    scale_bits: int
    tail: Fraction
    directions: dict[str, tuple[Bracket, int]] = field(default_factory=dict)
    lower_end: str = ""

    def to_json(self) -> dict:
        out = {
            self.quantity: self.value.to_json(),
            self.target_name: decimal_text(self.target),
            "method": "pld",
            "pld": {
                "grid_width": f"1/{self.grid}",
                "scale_bits": self.scale_bits,
                "rounding": "masses rounded outward to integer multiples of 2^-scale_bits; exact integer convolution",
                "tail": decimal_text(self.tail),
                "directions": {
                    k: {self.quantity: c.to_json(), "grid_width": f"1/{n}"} for k, (c, n) in self.directions.items()
                },
            },
        }
        if self.lower_end:
            out["pld"]["lower_end"] = self.lower_end  # type: ignore[index]
        return out


class PldEpsilonResult(EpsilonQuantity, PldResult):
    """Certified bracket of the optimal ``epsilon`` at the target ``delta`` (fields of :class:`PldResult`)."""

    def width(self) -> float:
        lo, up = self.epsilon.lower_float(), self.epsilon.upper_float()
        return up - lo


class PldDeltaResult(DeltaQuantity, PldResult):
    """Certified bracket of the optimal ``delta`` at the target ``epsilon`` (fields of :class:`PldResult`)."""
