"""Reading the float parameters of other libraries on the safe side.

Code written for float accountants passes ``1.1`` meaning the decimal 1.1, while
the float is the nearby binary number 1.100000000000000088817841970012523...
The adapters take, for each float parameter, whichever of the two readings
(exact binary value, or the shortest decimal ``repr`` that round-trips) makes
the *weaker* privacy claim: the smaller noise multiplier, the larger sampling
probability, the smaller target delta or epsilon.  The certified result then
holds both for what the user meant and for what the float is.  ``int``,
``Fraction``, ``Decimal`` and decimal strings are exact and read as such.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

from ..arith import parse_rational

__all__ = ["read_orders", "weaker_reading"]


def weaker_reading(value: object, name: str, *, smaller: bool) -> Fraction:
    """The exact rational to certify for a user parameter.

    Args:
        value: the parameter (a Python or numpy float, int, Fraction, Decimal, str).
        name: parameter name for error messages.
        smaller: True if a smaller value is the weaker privacy claim (noise,
            target delta, target epsilon), False if a larger one is (sampling
            probability).

    Raises:
        ValueError: for NaN, infinities, bools and non-numbers (naming ``name``).
    """
    if type(value).__module__ == "numpy":  # numpy scalars: convert to the Python number they hold
        if isinstance(value, numbers.Integral):
            value = int(value)
        elif isinstance(value, numbers.Real):
            value = float(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number. Found {value!r}.")
        a, b = Fraction(value), Fraction(repr(value))
        return min(a, b) if smaller else max(a, b)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return Fraction(int(value))
    return parse_rational(value, name)


def read_orders(orders: object, name: str = "orders") -> list[object] | None:
    """An order grid from a caller: float orders read as their shortest decimal.

    Any order gives a valid bound, so no safe side is needed; the accountant
    validates the range (> 1).  ``None`` stays ``None`` (the default grid).

    Raises:
        ValueError: a non-iterable, NaN or an infinite order (naming ``name``).
    """
    if orders is None:
        return None
    try:
        items = list(orders)  # type: ignore[call-overload]  # any object: a non-iterable raises TypeError, caught below
    except TypeError:
        raise ValueError(f"{name} must be a list of numbers > 1. Found {orders!r}.") from None
    out: list[object] = []
    for a in items:
        if isinstance(a, float) or type(a).__module__ == "numpy":
            try:
                f = float(a)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a list of numbers > 1. Found {a!r}.") from None
            if not math.isfinite(f):
                raise ValueError(f"{name} must be a list of finite numbers > 1. Found {a!r}.")
            a = Fraction(repr(f))
        out.append(a)
    return out
