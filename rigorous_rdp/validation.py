"""Validation of user parameters: every rule on the value of a parameter lives here, once.

Each function converts a user value exactly (see :func:`.arith.parse_rational`)
and raises :class:`~rigorous_rdp.errors.InvalidParameter` naming the parameter in
the API's words (``noise_multiplier``, ``sampling_probability``, ``orders``), the
accepted range and the value found (quoted with at most 80 characters).  The
command line calls the same functions and renders the error with its option
names; it has no range of its own.

The rules, and who applies them:

* magnitude of any number: 0 or in [1e-100000, 1e100000) -- :func:`.arith.parse_rational`;
* a positive real (``noise_multiplier``, ``scale``, a target epsilon): :func:`positive`;
* a probability in [0, 1] with a floor 1e-100000 on nonzero values (``sampling_probability``):
  :data:`PROBABILITY` via :func:`probability`;
* an open unit interval (``target_delta``, randomized response ``p``): :func:`unit_interval`;
* the noise multiplier of a subsampled Gaussian in [1e-100, 1e100] (:data:`SAMPLED_NOISE`; at most
  1e100 for Poisson add/remove, :data:`POISSON_NOISE`), applied where the registry builds the curves
  of sampled Gaussians; the PLD accountant's
  own ranges (noise, delta, width) are in :mod:`rigorous_rdp.pld.accountant`;
* a Renyi order in (1, 1e100], integral where a bound needs it: :func:`order`;
  a sequence of orders (never a string): :func:`orders`;
* counts (``count``, ``batch_size``, ``dataset_size``) up to 1e18, Taylor order in [3, 1000]:
  :func:`integer_in_range` with :data:`MAX_COUNT`, :data:`MAX_TAYLOR_ORDER`;
* ``digits`` in [1, 1000]: :func:`digits`;
* ``tau`` only with bound tau, and required there: :func:`tau_for_bound`;
* flags are ``True`` or ``False`` (not 0, 1, "yes"): :func:`flag`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from flint import arb

from .arith import MAX_DECIMAL_EXPONENT, MAX_INPUT_CHARS, Certified, parse_rational, refine
from .errors import InvalidParameter

__all__ = [
    "MAX_COUNT",
    "MAX_DIGITS",
    "MAX_ORDER",
    "MAX_TAYLOR_ORDER",
    "POISSON_NOISE",
    "PROBABILITY",
    "SAMPLED_NOISE",
    "RealRange",
    "certify",
    "count",
    "digits",
    "flag",
    "integer_at_least",
    "integer_in_range",
    "nonnegative",
    "order",
    "orders",
    "positive",
    "probability",
    "tau_for_bound",
    "unit_interval",
]

#: largest step count, batch or dataset size
MAX_COUNT = 10**18
#: largest Renyi order (order selection and its messages use floats)
MAX_ORDER = Fraction(10**100)
#: largest Taylor order of the fixed-size bounds of Birrell et al.
MAX_TAYLOR_ORDER = 1000
#: largest requested number of digits (relative width 10**-digits)
MAX_DIGITS = 1000
#: smallest nonzero magnitude of a user number (also the floor of probabilities)
TINY = Fraction(1, 10**MAX_DECIMAL_EXPONENT)
_TINY_TEXT = f"1e-{MAX_DECIMAL_EXPONENT}"


@dataclass(frozen=True)
class RealRange:
    """The accepted range of a real parameter: from ``lo`` to ``hi`` (each end closed unless
    ``lo_open`` / ``hi_open``), described to the user as ``text``; a nonzero value below
    ``floor`` is refused with ``floor_text`` (a limit of the implementation, stated apart from
    the mathematical range)."""

    lo: Fraction
    hi: Fraction | None
    text: str
    lo_open: bool = False
    hi_open: bool = False
    floor: Fraction | None = None
    floor_text: str = ""

    @classmethod
    def positive(cls, hi: str, floor: str, why: str, *, hi_open: bool = False, note: str = "") -> RealRange:
        """``a number in (0, hi]`` (``hi_open``: ``(0, hi)``) followed by ``note``, whose nonzero
        values below ``floor`` are refused as "at least ``floor`` (``why``)"; ``hi`` and ``floor``
        are decimal texts such as ``"1e3"``."""
        text = f"a number in (0, {hi}{')' if hi_open else ']'}{note}"
        return cls(
            Fraction(0),
            Fraction(hi),
            text,
            True,
            hi_open,
            floor=Fraction(floor),
            floor_text=f"at least {floor} ({why})",
        )

    def check(self, value: object, name: str) -> Fraction:
        """``value`` as an exact rational in the range; :class:`InvalidParameter` naming ``name`` otherwise."""
        try:
            f = parse_rational(value, name)  # refuses magnitudes outside [1e-100000, 1e100000) first
        except InvalidParameter as exc:
            if "characters" in exc.requirement:  # in range or not, the length is what is refused
                raise InvalidParameter(
                    name, f"must be {self.text}, written with at most {MAX_INPUT_CHARS} characters", value
                ) from None
            if "magnitude" not in exc.requirement:
                if isinstance(value, (str, float, Decimal)):  # NaN, infinities, words: name the valid range
                    raise InvalidParameter(name, f"must be {self.text}", value) from None
                raise  # not a number at all (an event, a bool): say so
            text = str(value)
            tiny = "/" not in text and ("e-" in text.lower() or text.lstrip("+ ").startswith("0."))
            limit = self.floor_text if (tiny and self.floor is not None) else self.text
            raise InvalidParameter(name, f"must be {limit}", value) from None
        ok = f > self.lo if self.lo_open else f >= self.lo
        if self.hi is not None:
            ok = ok and (f < self.hi if self.hi_open else f <= self.hi)
        if not ok:
            raise InvalidParameter(name, f"must be {self.text}", value)
        if self.floor is not None and 0 < abs(f) < self.floor:
            raise InvalidParameter(name, f"must be {self.floor_text}", value)
        return f


#: a probability (sampling_probability): [0, 1], and no nonzero value below 1e-100000
PROBABILITY = RealRange(
    Fraction(0), Fraction(1), "in [0, 1]", floor=TINY, floor_text=f"0 or at least {_TINY_TEXT} (the smallest q handled)"
)
#: the noise multiplier of a subsampled Gaussian: the bounds plan their series and precision
#: with floats of sigma and 1/sigma^2 (a limit of the implementation, not of the mathematics)
SAMPLED_NOISE = RealRange(
    Fraction(1, 10**100),
    Fraction(10**100),
    "in [1e-100, 1e100] for a subsampled Gaussian (a limit of the implementation)",
)
#: the noise multiplier of a Poisson-subsampled Gaussian under add/remove adjacency, whose
#: bound handles any small sigma (its float screens overflow above 1e100)
POISSON_NOISE = RealRange(
    Fraction(0),
    Fraction(10**100),
    "at most 1e100 for a subsampled Gaussian (a limit of the implementation)",
    lo_open=True,
)
_ORDER = RealRange(Fraction(1), MAX_ORDER, "> 1 (a number in (1, 1e100])", lo_open=True)


def probability(value: object, name: str = "sampling_probability") -> Fraction:
    """A probability in [0, 1] (see :data:`PROBABILITY`)."""
    return PROBABILITY.check(value, name)


def _integer_text(n: int) -> str:
    return f"1e{len(str(n)) - 1}" if n >= 10**6 and n == 10 ** (len(str(n)) - 1) else str(n)


def integer_in_range(value: object, name: str, lo: int, hi: int | None = None) -> int:
    """An integer in ``[lo, hi]`` (``hi=None``: no upper limit beyond the number range): ints,
    integral rationals and strings such as "1e4"; the text is checked before any big number
    is built, and ``bool`` is refused."""
    accepted = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {_integer_text(hi)}]"
    if isinstance(value, bool):
        raise InvalidParameter(name, f"must be {accepted}", value)
    if isinstance(value, numbers.Integral):
        f = Fraction(int(value))
    else:
        try:
            f = parse_rational(value, name)
        except InvalidParameter:
            raise InvalidParameter(name, f"must be {accepted}", value) from None
    if f.denominator != 1 or f < lo or (hi is not None and f > hi):
        raise InvalidParameter(name, f"must be {accepted}", value)
    return int(f)


def integer_at_least(value: object, name: str, minimum: int) -> int:
    """An integer >= ``minimum`` (see :func:`integer_in_range`)."""
    return integer_in_range(value, name, minimum, None)


def count(value: object, name: str = "count", minimum: int = 0) -> int:
    """A number of steps or repetitions: a Python integer (not a bool, float or string) in
    ``[minimum, 1e18]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameter(name, f"must be an integer in [{minimum}, 1e18]", value)
    return integer_in_range(value, name, minimum, MAX_COUNT)


def order(value: object, name: str = "alpha", *, integer: bool = False, bound: str = "this bound") -> Fraction:
    """A Renyi order: a rational in (1, 1e100]; with ``integer``, an integer >= 2 (``bound`` names what needs it)."""
    v = _ORDER.check(value, name)
    if integer and v.denominator != 1:
        raise InvalidParameter(name, f"must be an integer >= 2 for {bound}", value)
    return v


def orders(values: object, name: str = "orders", *, integer: bool = False) -> tuple[Fraction, ...]:
    """A non-empty sequence of Renyi orders (a list, tuple, range, array), sorted without repeats.

    A string is refused even though Python can iterate over it: ``"2345"`` is not the orders
    2, 3, 4, 5."""
    if isinstance(values, (str, bytes, bytearray)) or not isinstance(values, Iterable):
        raise InvalidParameter(name, "must be a sequence of orders > 1 (a list, not a string)", values)
    out = tuple(sorted({order(a, name, integer=integer) for a in values}))
    if not out:
        raise InvalidParameter(name, "must be a non-empty list of orders > 1", [])
    return out


def unit_interval(value: object, name: str, open_low: bool = False, open_high: bool = False) -> Fraction:
    """A rational in [0, 1], with either end open on request."""
    v = parse_rational(value, name)
    ok = (v > 0 if open_low else v >= 0) and (v < 1 if open_high else v <= 1)
    if not ok:
        lb, rb = ("(" if open_low else "["), (")" if open_high else "]")
        raise InvalidParameter(name, f"must be in {lb}0, 1{rb}", value)
    return v


def positive(value: object, name: str) -> Fraction:
    """A rational > 0."""
    v = parse_rational(value, name)
    if v <= 0:
        raise InvalidParameter(name, "must be > 0", value)
    return v


def nonnegative(value: object, name: str) -> Fraction:
    """A rational >= 0."""
    v = parse_rational(value, name)
    if v < 0:
        raise InvalidParameter(name, "must be >= 0", value)
    return v


def digits(value: object, name: str = "digits") -> int | float:
    """Requested digits: a number in [1, 1000] (an int when integral)."""
    if isinstance(value, bool):
        raise InvalidParameter(name, f"must be in [1, {MAX_DIGITS}]", value)
    try:
        d = parse_rational(value, name)
    except InvalidParameter:
        raise InvalidParameter(name, f"must be in [1, {MAX_DIGITS}]", value) from None
    if not 1 <= d <= MAX_DIGITS:
        raise InvalidParameter(name, f"must be in [1, {MAX_DIGITS}]", value)
    return int(d) if d.denominator == 1 else float(d)


def flag(value: object, name: str) -> bool:
    """A flag: ``True`` or ``False`` only (``0``, ``1``, ``"yes"`` and ``None`` are refused)."""
    if not isinstance(value, bool):
        raise InvalidParameter(name, "must be True or False", value)
    return value


def tau_for_bound(bound: object, tau: object, bound_name: str = "bound") -> int | None:
    """``tau`` (the number of exact terms of Zhu & Wang 2019, Thm 11) is required with bound
    ``tau`` and applies to no other bound (``bound`` is the bound's value or ``None``)."""
    value = getattr(bound, "value", bound)
    if value == "tau":
        if tau is None:
            raise InvalidParameter("tau", "is required with {bound} tau (an integer >= 1)", related=(bound_name,))
        return integer_at_least(tau, "tau", 1)
    if tau is not None:
        raise InvalidParameter(
            "tau", f"applies to {{bound}} tau only. Found {{bound}} {value or 'default'}", related=(bound_name,)
        )
    return None


_digits = digits


def certify(func: Callable[[], arb], digits: object, what: str) -> Certified:
    """Certified enclosure of ``func()``, evaluated at growing precision until the
    relative width is ``<= 10**-digits`` (see :func:`.arith.refine`)."""
    return refine(lambda prec: func(), _digits(digits), what=what)
