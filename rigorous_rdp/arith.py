r"""Certified arithmetic on python-flint ``arb`` balls.

The inclusion principle (wording of the Arb documentation): every certified
function of this package returns a ball that contains the exact mathematical
value for all inputs contained in the input balls.  Enclosures are not always
tight; the guess-and-verify loop :func:`refine` raises the working precision
until a requested relative width is met, or raises :class:`PrecisionExhausted`
carrying the last (valid but wide) enclosure.

Conventions used throughout the package:

* User parameters enter once, as exact rationals (:func:`parse_rational`); a
  Python ``float`` is taken as its exact binary value, a ``str`` such as
  ``"0.1"`` as the exact decimal 1/10.
* Working precision is scoped with :func:`workprec` and always restored.
* Decimal output is rounded outward (:func:`decimal_lower`,
  :func:`decimal_upper`); never use ``float(arb)`` (it is the midpoint rounded to
  nearest) -- use :meth:`Certified.upper_float`.
* Order comparisons are three-valued: :func:`certainly_lt`,
  :func:`certainly_le` answer ``True`` only when proven; :func:`compare` raises
  :class:`UndecidedComparison` when the balls overlap.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal, InvalidOperation, localcontext
from fractions import Fraction

from flint import arb, ctx, fmpq

from . import budget
from .errors import InvalidParameter, PrecisionExhausted, UndecidedComparison

_FLOAT_MAX = Fraction(sys.float_info.max)

__all__ = [
    "DEFAULT_DIGITS",
    "MAX_DECIMAL_EXPONENT",
    "MAX_PREC",
    "Certified",
    "ComparesAsFloat",
    "Rational",
    "accurate_bits",
    "bisect_first",
    "bits_for_digits",
    "certainly_le",
    "certainly_lt",
    "compare",
    "decimal_lower",
    "decimal_upper",
    "exact_endpoints",
    "log1mexp",
    "log_add",
    "log_sum_exp",
    "parse_rational",
    "refine",
    "to_arb",
    "workprec",
]

Rational = int | Fraction | str | float | Decimal

DEFAULT_DIGITS = 10
MAX_PREC = 1 << 14
LOG2_10 = math.log2(10.0)


@contextlib.contextmanager
def workprec(prec: int | None) -> Iterator[int]:
    """Set the arb working precision to ``prec`` bits inside a ``with`` block.

    The previous precision is restored on exit, also when an exception escapes.
    ``prec=None`` keeps the current precision (for functions whose ``prec``
    keyword defaults to "the caller's").
    """
    if prec is None:
        yield ctx.prec
        return
    if prec < 2:
        raise ValueError(f"prec must be an integer >= 2. Found {prec}.")
    old = ctx.prec
    ctx.prec = int(prec)
    try:
        yield int(prec)
    finally:
        ctx.prec = old


def bits_for_digits(digits: float) -> int:
    """Number of bits that represent ``digits`` decimal digits (rounded up)."""
    return math.ceil(digits * LOG2_10)


# ---------------------------------------------------------------------------
# exact input
# ---------------------------------------------------------------------------


def parse_rational(value: object, name: str) -> Fraction:
    """Convert a user parameter to an exact :class:`Fraction`.

    Accepts ``int``, ``Fraction``, ``Decimal``, finite ``float`` (its exact
    binary value) and strings holding a decimal or a ratio (``"1e-5"``,
    ``"3/7"``).  ``bool``, NaN, infinities and anything else raise
    ``ValueError`` naming the parameter ``name``.
    """
    if isinstance(value, bool):
        raise InvalidParameter(name, "must be a number", value)
    if isinstance(value, (Fraction, int, fmpq)):
        result = Fraction(int(value.p), int(value.q)) if isinstance(value, fmpq) else Fraction(value)
        _check_fraction_magnitude(result, name, value)
        return result
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameter(name, "must be a finite number", value)
        return Fraction(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidParameter(name, "must be a finite number", value)
        _check_magnitude(value, name, value)
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_INPUT_CHARS:
            raise InvalidParameter(name, f"must be a number written with at most {MAX_INPUT_CHARS} characters", value)
        try:
            if "/" in text:
                num, den = text.split("/", 1)
                dn, dd = _decimal(num), _decimal(den)
                _check_magnitude(dn, name, value)
                _check_magnitude(dd, name, value)
                result = Fraction(dn) / Fraction(dd)
                _check_fraction_magnitude(result, name, value)
            else:
                d = _decimal(text)
                _check_magnitude(d, name, value)
                result = Fraction(d)
        except (ZeroDivisionError, InvalidOperation):
            if _EXPONENT_FORM.fullmatch(text):  # a decimal whose exponent Decimal cannot even hold
                raise InvalidParameter(name, f"must be {_RANGE_TEXT}", value) from None
            raise InvalidParameter(name, "must be a number", value) from None
        return result
    raise InvalidParameter(name, "must be a number", value)


#: decimal exponent range of user numbers: 0 or 1e-100000 <= |x| <= 1e100000
MAX_DECIMAL_EXPONENT = 100_000
_EXPONENT_FORM = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+")
#: longest accepted text of one number
MAX_INPUT_CHARS = 1_000
_RANGE_TEXT = f"0 or of magnitude in [1e-{MAX_DECIMAL_EXPONENT}, 1e{MAX_DECIMAL_EXPONENT})"


def _decimal(text: str) -> Decimal:
    """Parse a decimal without building the number (a Decimal keeps its exponent apart)."""
    d = Decimal(text.strip())  # InvalidOperation for non-numbers
    if not d.is_finite():
        raise InvalidOperation(text)
    return d


def _check_magnitude(d: Decimal, name: str, shown: object) -> None:
    """Refuse a decimal outside the accepted magnitudes *before* its exact value is built:
    ``Fraction(Decimal("1e99999999999"))`` would build 10**(10**11)."""
    if d.is_zero():
        return
    if not -MAX_DECIMAL_EXPONENT <= d.adjusted() < MAX_DECIMAL_EXPONENT:
        raise InvalidParameter(name, f"must be {_RANGE_TEXT}", shown)


def _check_fraction_magnitude(f: Fraction, name: str, shown: object) -> None:
    if f == 0:
        return
    # |log2 f| within one bit of (bit lengths difference); 1e100000 ~ 2**332193
    bits = abs(f.numerator).bit_length() - f.denominator.bit_length()
    if abs(bits) > _MAX_BITS:
        raise InvalidParameter(name, f"must be {_RANGE_TEXT}", shown)


_MAX_BITS = int(MAX_DECIMAL_EXPONENT * LOG2_10) + 2


def to_arb(x: Fraction | int | arb) -> arb:
    """Ball enclosing the exact rational ``x`` at the current working precision."""
    if isinstance(x, arb):
        return x
    if isinstance(x, int):
        return arb(x)
    return arb(fmpq(x.numerator, x.denominator))


# ---------------------------------------------------------------------------
# log-space helpers (one module for all of them)
# ---------------------------------------------------------------------------


def log_sum_exp(terms: Iterable[arb]) -> arb:
    """Enclosure of ``log(sum(exp(t) for t in terms))``.

    Factors out the largest midpoint so that no term overflows even in float
    thinking; in arb the exponent range is unbounded, so this is about keeping
    radii small, not about overflow.
    """
    ts = list(terms)
    if not ts:
        return arb.neg_inf()
    m = max(ts, key=lambda t: t.mid())
    shift = m.mid()
    total = arb(0)
    for t in ts:
        total += (t - shift).exp()
    return shift + total.log()


def log_add(a: arb, b: arb) -> arb:
    """Enclosure of ``log(exp(a) + exp(b))``."""
    return log_sum_exp([a, b])


def log1mexp(x: arb) -> arb:
    """Enclosure of ``log(1 - exp(x))`` for ``x < 0``."""
    return (-(x.expm1())).log()


# ---------------------------------------------------------------------------
# outward decimal output
# ---------------------------------------------------------------------------


def _exact_fraction(x: arb) -> Fraction:
    """The exact binary value of an arb with zero radius (e.g. ``x.upper()``)."""
    man_z, exp_z = x.mid().man_exp()
    man = int(man_z)
    exp = int(exp_z)
    if exp >= 0:
        return Fraction(man * (1 << exp))
    return Fraction(man, 1 << (-exp))


def exact_endpoints(x: arb) -> tuple[Fraction, Fraction]:
    """The exact endpoints ``(mid - rad, mid + rad)`` of a finite ball, as fractions.

    Unlike ``x.lower()`` / ``x.upper()``, which round (outward) to the *current*
    working precision, this does not depend on ``ctx.prec``: a ball computed at
    1000 bits keeps its 1000-bit endpoints when printed at the default 53 bits.
    (For binary exponents in the millions the fractions become impractically large.)
    """
    m = _exact_fraction(x.mid())
    r = _exact_fraction(x.rad())
    return m - r, m + r


def round_decimal(v: Fraction, sig: int, up: bool) -> str:
    if v == 0:
        return "0"
    neg = v < 0
    a = -v if neg else v
    # exponent e with 10**e <= a < 10**(e+1)
    e = math.floor(math.log10(a.numerator) - math.log10(a.denominator))
    while Fraction(10) ** e > a:
        e -= 1
    while Fraction(10) ** (e + 1) <= a:
        e += 1
    k = sig - 1 - e  # scale so that the integer part has `sig` digits
    scaled = a * Fraction(10) ** k
    # round the magnitude toward +inf when (up and positive) or (down and negative)
    away = up != neg
    n = scaled.numerator // scaled.denominator
    if away and n * scaled.denominator != scaled.numerator:
        n += 1
    # exact decimal text of n * 10**-k (no decimal context involved, so no rounding)
    text = _sci_text(n, -k)
    return ("-" if neg else "") + text


def _sci_text(n: int, exp10: int) -> str:
    """Exact text of the positive integer ``n`` times ``10**exp10``."""
    ds = str(n).rstrip("0")
    exp10 += len(str(n)) - len(ds)
    point = len(ds) + exp10  # position of the decimal point after the leading digits
    sci_exp = point - 1
    if -6 <= sci_exp <= 6:
        if point <= 0:
            return "0." + "0" * (-point) + ds
        if point >= len(ds):
            return ds + "0" * (point - len(ds))
        return ds[:point] + "." + ds[point:]
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    return f"{mant}e{sci_exp}"


#: binary magnitudes beyond this many bits are printed through logarithms
#: (a Fraction of 2**-(10**6) would be too large to build)
_HUGE_BITS = 1 << 16


def _endpoint_arb(x: arb, upper: bool) -> arb:
    """An endpoint of a finite ball as an arb of radius zero, rounded outward at a
    precision that keeps every bit of the midpoint (independent of ``ctx.prec``, and
    valid for any exponent, unlike :func:`exact_endpoints`)."""
    man, _ = x.mid().man_exp()
    with workprec(max(64, int(man).bit_length() + 64)):
        return x.upper() if upper else x.lower()


def _float_outward(v: arb, up: bool) -> float:
    """The exact (radius-zero) ``v`` rounded to a float upward (``up``) or downward.

    Works from the binary mantissa and exponent, so a value such as ``2**-10**10`` costs
    nothing (no exact fraction of it is built): beyond the float range it rounds to
    ``inf`` / the largest float, below the smallest subnormal to ``0`` / the smallest
    subnormal, on the outward side.
    """
    fman, fexp = v.mid().man_exp()
    man, exp = int(fman), int(fexp)
    if man == 0:
        return 0.0
    top = exp + man.bit_length()  # 2**(top-1) <= |v| < 2**top
    neg = man < 0
    if top > 1025:  # |v| >= 2**1024 > the largest float
        if neg:
            return -math.inf if not up else -sys.float_info.max
        return math.inf if up else sys.float_info.max
    if top < -1080:  # |v| < 2**-1080, below half the smallest subnormal (2**-1074)
        tiny = math.ldexp(1.0, -1074)
        if neg:
            return -0.0 if up else -tiny
        return tiny if up else 0.0
    f = Fraction(man) * Fraction(2) ** exp  # at most ~1100 + (mantissa) bits
    if abs(f) > _FLOAT_MAX:
        if f > 0:
            return math.inf if up else sys.float_info.max
        return -sys.float_info.max if up else -math.inf
    r = float(f)
    if up and Fraction(r) < f:
        r = math.nextafter(r, math.inf)
    elif not up and Fraction(r) > f:
        r = math.nextafter(r, -math.inf)
    return r


def _magnitude_bits(v: arb) -> int:
    man, exp = v.mid().man_exp()
    return abs(int(exp)) + int(man).bit_length()


def _round_decimal_huge(v: arb, sig: int, up: bool) -> str:
    """Outward decimal of the exact (radius-zero) ``v`` with a huge binary exponent.

    The decimal exponent and mantissa come from a ball for ``log10|v|``; the
    mantissa bound on the outward side is rounded outward, so the text is a bound
    whatever the width of that ball.
    """
    neg = bool(v < 0)
    a = -v if neg else v
    away = up != neg  # round the magnitude up (else down)
    bits = _magnitude_bits(a).bit_length() + 4 * sig + 64
    with workprec(bits):
        lg = a.log() / arb(10).log()
        e = math.floor(_exact_fraction(lg.mid()))
        m = arb(10) ** (lg - e)
    m_lo, m_hi = exact_endpoints(m)
    b = m_hi if away else m_lo
    while b >= 10:
        b, e = b / 10, e + 1
    while b < 1:
        b, e = b * 10, e - 1
    scaled = b * Fraction(10) ** (sig - 1)
    n = scaled.numerator // scaled.denominator
    if away and n * scaled.denominator != scaled.numerator:
        n += 1
    if n >= 10**sig:
        n, e = n // 10, e + 1
    ds = str(n).rstrip("0") or "0"
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    return ("-" if neg else "") + f"{mant}e{e}"


def _decimal_endpoint(x: arb, sig: int, up: bool) -> str:
    if x.rad() == 0 or _magnitude_bits(x.mid()) < _HUGE_BITS:
        end = _endpoint_arb(x, up)
        if _magnitude_bits(end) < _HUGE_BITS:
            lo, hi = exact_endpoints(x)
            return round_decimal(hi if up else lo, sig, up=up)
    end = _endpoint_arb(x, up)
    if end == 0:
        return "0"
    return _round_decimal_huge(end, sig, up)


def decimal_lower(x: arb, sig: int = 17) -> str:
    """Decimal string with ``sig`` significant digits that is ``<=`` every point of ``x``."""
    if not x.is_finite():
        return "-inf"
    return _decimal_endpoint(x, sig, up=False)


def decimal_upper(x: arb, sig: int = 17) -> str:
    """Decimal string with ``sig`` significant digits that is ``>=`` every point of ``x``."""
    if not x.is_finite():
        return "inf"
    return _decimal_endpoint(x, sig, up=True)


# ---------------------------------------------------------------------------
# certified result type
# ---------------------------------------------------------------------------


#: a float format spec with an explicit type (:meth:`Certified.__format__`)
_FORMAT_SPEC = re.compile(r"(?:.?[<>=^])?[+\- ]?z?#?0?\d*[,_]?(?P<prec>\.\d+)?[eEfFgG%]")


class ComparesAsFloat:
    """``<``, ``<=``, ``>``, ``>=`` of a certified result compare ``float(result)``: its certified
    upper end rounded up, the number dp-accounting's ``get_epsilon`` / ``get_delta`` return.

    So ``result <= budget`` is a proof that the exact value is within the budget, as a float
    epsilon would be read; ``result > budget`` says only that the certified upper end is above it
    (the exact value may be below: compare ``result.lower()``, or use :func:`certainly_lt`, for a
    lower bound).  The other operand is a real number (int, float, :class:`~fractions.Fraction`,
    :class:`~decimal.Decimal`, a numpy float), compared exactly with that float, or another
    certified result (its ``float()``); anything else raises ``TypeError``.  ``==`` and ``hash``
    stay those of the dataclass (the same fields), not a numeric comparison.
    """

    def __float__(self) -> float:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _other(self, other: object) -> Fraction | float | None:
        """``other`` as an exact rational (a non-finite float as itself); ``None``: not comparable."""
        if isinstance(other, ComparesAsFloat):
            return float(other)
        if not isinstance(other, (numbers.Real, Decimal)):
            return None
        try:
            return Fraction(other)  # type: ignore[arg-type]  # a Real; numpy float32 is not accepted
        except (ValueError, OverflowError):  # nan, inf
            return float(other)
        except TypeError:  # numpy float32 and other Reals that Fraction does not take
            return float(other)

    def __lt__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else float(self) < o

    def __le__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else float(self) <= o

    def __gt__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else float(self) > o

    def __ge__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else float(self) >= o


@dataclass(frozen=True)
class Certified(ComparesAsFloat):
    """A certified enclosure ``[lower, upper]`` of an exact real quantity.

    Attributes:
        ball: the arb ball; the exact value lies in it.
        prec: working precision (bits) at which it was computed.
        digits: the relative width ``10**-digits`` it was refined to (:func:`refine`), if any;
            :meth:`to_json` shows at least ``digits + 2`` significant digits.
    """

    ball: arb
    prec: int
    digits: float | None = None

    def lower(self) -> arb:
        """Exact lower endpoint (an arb of radius zero, independent of ``ctx.prec``)."""
        return _endpoint_arb(self.ball, False) if self.ball.is_finite() else self.ball.lower()

    def upper(self) -> arb:
        """Exact upper endpoint (an arb of radius zero), the value to rely on."""
        return _endpoint_arb(self.ball, True) if self.ball.is_finite() else self.ball.upper()

    def mid(self) -> arb:
        return self.ball.mid()

    def rad(self) -> arb:
        return self.ball.rad()

    def upper_float(self) -> float:
        """The upper endpoint rounded up to a Python float."""
        if not self.ball.is_finite():
            return math.inf
        return _float_outward(_endpoint_arb(self.ball, True), up=True)

    def __float__(self) -> float:
        """``float(c)``: the upper endpoint rounded up (:meth:`upper_float`), the conservative
        reading of a certified upper bound (an epsilon, a delta, an RDP value): never below the
        exact value.  Not the midpoint (``float(arb)`` is the midpoint rounded to nearest); for a
        quantity that is a lower bound, use :meth:`lower_float`."""
        return self.upper_float()

    def __format__(self, spec: str) -> str:
        """``f"{c:.3f}"`` (types e, f, g, %, default precision 6): the upper endpoint rounded *up*
        to the digits asked for, like :meth:`__float__` never below the exact value (a float's
        format rounds to nearest).  An empty spec gives ``str(c)``."""
        if not spec:
            return str(self)
        m = _FORMAT_SPEC.fullmatch(spec)
        if m is None:
            raise TypeError(f"format spec {spec!r}: use a type e, f, g or % (the upper end rounded up)")
        up = float(self)  # the upper end rounded up (a subclass may know it exactly)
        if not math.isfinite(up):
            return format(up, spec)
        with localcontext() as dec:
            dec.rounding = ROUND_CEILING
            text = format(Decimal(up), spec if m["prec"] else spec[:-1] + ".6" + spec[-1])
        return re.sub(r"([eE][+-])(\d)\b", r"\g<1>0\2", text)  # a float's two-digit exponent

    def lower_float(self) -> float:
        """The lower endpoint rounded down to a Python float."""
        if not self.ball.is_finite():
            return -math.inf
        return _float_outward(_endpoint_arb(self.ball, False), up=False)

    def mid_float(self) -> float:
        """Midpoint as a float, for display and plotting only (not a bound)."""
        return float(self.ball.mid())

    def relative_width(self) -> float:
        """(upper - lower) / |mid|, as a float estimate (0 for an exact ball)."""
        if self.ball.rad() == 0:
            return 0.0
        if self.ball.mid() == 0:
            return math.inf
        with workprec(64):
            return float(2 * arb(self.ball.rad()) / abs(arb(self.ball.mid())))

    def to_json(self, sig: int | None = None) -> dict[str, str]:
        """``{"lower": ..., "upper": ...}`` with decimals rounded outward, ``sig`` significant
        digits (default 17, a float's round trip, or ``digits + 2`` when refined to more)."""
        if sig is None:
            sig = 17 if self.digits is None else max(17, math.ceil(self.digits) + 2)
        return {"lower": decimal_lower(self.ball, sig), "upper": decimal_upper(self.ball, sig)}

    def __repr__(self) -> str:
        return f"Certified([{decimal_lower(self.ball, 12)}, {decimal_upper(self.ball, 12)}], prec={self.prec})"


def rel_width_ok(x: arb, digits: float) -> bool:
    """True when the relative width of ``x`` is at most ``10**-digits`` (exact zero passes)."""
    if not x.is_finite():
        return False
    if x.rad() == 0:
        return True
    if x.mid() == 0:
        return False
    # width / |mid| <= 10^-digits  <=>  2 rad <= 10^-digits |mid|
    lhs = 2 * arb(x.rad())
    rhs = abs(arb(x.mid())) * arb(10) ** (-arb(str(digits)))
    return bool(lhs <= rhs)


def log_binomial_pmf(n: int, k: int, log_p: arb, log_1mp: arb) -> arb:
    r"""Ball for :math:`\log\big(\binom{n}{k} p^k (1-p)^{n-k}\big)` from log-gamma, given the
    balls :math:`\log p` and :math:`\log(1-p)` (no overflow for huge ``n``)."""
    return arb(n + 1).lgamma() - arb(k + 1).lgamma() - arb(n - k + 1).lgamma() + k * log_p + (n - k) * log_1mp


def accurate_bits(x: arb, bits: int) -> bool:
    """True when ``x`` is finite and exact or has a relative accuracy of at least ``bits`` bits."""
    if not x.is_finite():
        return False
    if x.rad() == 0:
        return True
    return x.rel_accuracy_bits() >= bits


def refine(
    func: Callable[[int], arb],
    digits: float = DEFAULT_DIGITS,
    *,
    start_prec: int | None = None,
    max_prec: int = MAX_PREC,
    what: str = "value",
) -> Certified:
    """Guess-and-verify loop: evaluate ``func(prec)`` at growing precision.

    ``func`` is called inside ``workprec(prec)`` and must return an arb ball
    that contains the exact value.  The working precision doubles (in extra
    bits) until the relative width is ``<= 10**-digits``.

    Raises:
        PrecisionExhausted: when ``max_prec`` is reached; carries the last
            enclosure (valid, but wider than requested).
    """
    target = bits_for_digits(digits)
    prec = start_prec if start_prec is not None else max(64, target + 24)
    last: arb | None = None
    while True:
        budget.check(what)
        with workprec(prec):
            value = func(prec)
        if value.is_finite():
            last = value
            if rel_width_ok(value, digits):
                return Certified(value, prec, digits)
        if prec >= max_prec:
            raise PrecisionExhausted(
                f"{what}: relative width 1e-{digits} not reached at maxprec={max_prec} bits"
                + (f" (last enclosure {last.str(8)})" if last is not None else ""),
                last=last,
                prec=prec,
            )
        prec = min(max_prec, 2 * prec)


# ---------------------------------------------------------------------------
# three-valued comparisons
# ---------------------------------------------------------------------------


def _ball(x: object, name: str) -> arb:
    """``x`` as a ball: an arb as is, an int or Fraction exactly; anything else (a bool, a float,
    a string) is a ``TypeError`` naming the parameter."""
    if isinstance(x, arb):
        return x
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return to_arb(x)
    raise TypeError(f"{name} must be an arb ball (or an exact int or Fraction). Found {type(x).__name__}.")


def certainly_lt(a: arb, b: arb) -> bool:
    """True only if every point of ``a`` is below every point of ``b``."""
    return bool(_ball(a, "a") < _ball(b, "b"))


def certainly_le(a: arb, b: arb) -> bool:
    """True only if every point of ``a`` is ``<=`` every point of ``b``."""
    return bool(_ball(a, "a") <= _ball(b, "b"))


def compare(a: arb, b: arb) -> int:
    """-1 if a < b, 1 if a > b, 0 if both are the same exact number.

    Raises:
        UndecidedComparison: when the balls overlap and are not both exact.
        TypeError: when ``a`` or ``b`` is not a ball (nor an exact int or Fraction).
    """
    a, b = _ball(a, "a"), _ball(b, "b")
    if a < b:
        return -1
    if b < a:
        return 1
    if a.is_exact() and b.is_exact() and a == b:
        return 0
    raise UndecidedComparison(f"cannot order {a.str(10)} and {b.str(10)}: the enclosures overlap")


def arb_min(values: Sequence[arb]) -> arb:
    """Ball enclosing the minimum of the exact values in ``values``."""
    out = values[0]
    for v in values[1:]:
        out = out.min(v)
    return out


def bisect_first(pred: Callable[[int], bool], lo: int, hi: int) -> int:
    """Smallest integer n in ``(lo, hi]`` with ``pred(n)``, for a predicate that is False at
    ``lo``, True at ``hi`` and switches once between them (neither end is evaluated).

    The predicate is evaluated only at midpoints; the returned n was found True (or is
    ``hi``) and ``n - 1`` False (or is ``lo``).  ``bisect_first(lambda k: not pred(k),
    lo, hi) - 1`` is the largest n in ``[lo, hi)`` where a predicate true up to a point holds.
    """
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return hi
