r"""The one containment rule of the test suite.

**Rule.** A certified enclosure passes against a reference value ``r`` when the
ball ``[mid - rad, mid + rad]`` (its *exact* endpoints, read from the arb
midpoint and radius, independent of the ambient arb precision) meets the
interval ``[r - e, r + e]``, where ``e`` is the reference's own error, stated
by the caller:

* an exact reference (``int``, ``Fraction``, decimal ``str``) has ``e = 0``
  unless an error is given;
* an mpmath (or float) reference must state its error, relative to ``|r|``
  (``rel=``) or absolute (``abs_err=``); there is no silent default, because an
  mpmath value is only as good as its working precision and its algorithm
  (``mpmath.quad`` reports an *estimated* error).

Every comparison is between exact rationals (mpmath and float numbers are read
as their exact binary values), so the check itself never rounds.

**Width is a separate test** (:func:`rel_width`, :func:`width_ok`): a wide but
correct ball fails only the width test, a narrow wrong one only containment.

:mod:`_refcheck` and :mod:`_mpcheck` keep their old names as thin aliases of
this module.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Union

import mpmath
from flint import arb

__all__ = [
    "arb_fraction",
    "contains",
    "describe",
    "endpoints",
    "lower",
    "mp_down",
    "mp_fraction",
    "mp_up",
    "not_above_upper",
    "rel_width",
    "to_fraction",
    "upper",
    "width_ok",
]

Number = Union[int, Fraction, str, float, "mpmath.mpf"]


def mp_fraction(v) -> Fraction:
    """The exact binary value of an mpmath ``mpf`` (or anything mpmath converts exactly)."""
    v = v if isinstance(v, mpmath.mpf) else mpmath.mpf(v)
    sign, man, exp, _ = v._mpf_
    if not man and exp:
        raise ValueError(f"not a finite number: {v}")
    man, exp = (-1) ** sign * int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))


def arb_fraction(x: arb) -> Fraction:
    """The exact value of the midpoint of an arb (exact for ``mid()`` and ``rad()``)."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))


def to_fraction(x: Number) -> Fraction:
    """Exact rational value of a reference: ints, Fractions and decimal strings as written,
    floats and mpmath numbers as their exact binary values."""
    if isinstance(x, bool):
        raise TypeError("a bool is not a reference value")
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, str):
        return Fraction(x.strip())
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            raise ValueError(f"not a finite number: {x}")
        return Fraction(x)
    if isinstance(x, mpmath.mpf):
        return mp_fraction(x)
    raise TypeError(f"cannot read {type(x).__name__} as an exact reference value")


def _is_exact(x) -> bool:
    return isinstance(x, (int, Fraction, str)) and not isinstance(x, bool)


def _ball(x) -> arb:
    """The arb of a certified result (an ``arb`` or anything with a ``.ball``, e.g. ``Certified``)."""
    ball = getattr(x, "ball", x)
    if not isinstance(ball, arb):
        raise TypeError(f"not a certified enclosure: {type(x).__name__}")
    return ball


def endpoints(ball) -> tuple[Fraction, Fraction]:
    """Exact ``(mid - rad, mid + rad)``, independent of the current arb precision."""
    ball = _ball(ball)
    assert ball.is_finite(), f"not a finite enclosure: {ball}"
    m, r = arb_fraction(ball.mid()), arb_fraction(ball.rad())
    return m - r, m + r


def lower(ball) -> Fraction:
    """Exact lower end of a certified enclosure."""
    return endpoints(ball)[0]


def upper(ball) -> Fraction:
    """Exact upper end of a certified enclosure."""
    return endpoints(ball)[1]


def _error(ref: Fraction, ref_value, rel, abs_err) -> Fraction:
    if rel is None and abs_err is None:
        if not _is_exact(ref_value):
            raise TypeError("state the reference's error (rel= or abs_err=) for an mpmath/float reference")
        return Fraction(0)
    e = Fraction(0)
    if rel is not None:
        e += abs(ref) * to_fraction(rel)
    if abs_err is not None:
        e += to_fraction(abs_err)
    if e < 0:
        raise ValueError("a reference error is non-negative")
    return e


def contains(ball, ref: Number, *, rel: Number | None = None, abs_err: Number | None = None) -> bool:
    """True iff the certified enclosure meets ``[ref - e, ref + e]`` (the module's rule).

    ``e = |ref| * rel + abs_err``; both default to 0, which is allowed only for an exact
    reference (int, Fraction, decimal string).
    """
    r = to_fraction(ref)
    e = _error(r, ref, rel, abs_err)
    lo, hi = endpoints(ball)
    return lo <= r + e and r - e <= hi


def not_above_upper(ref: Number, ball, *, rel: Number | None = None, abs_err: Number | None = None) -> bool:
    """The one-sided rule for an upper bound: ``ref - e`` is at most the certified upper end
    (the bound holds against the reference, up to the reference's stated error ``e``)."""
    r = to_fraction(ref)
    return r - _error(r, ref, rel, abs_err) <= upper(ball)


def rel_width(ball) -> Fraction:
    """Exact ``(upper - lower) / |midpoint|`` (0 for an exact ball, 10^9 for a ball centred at 0)."""
    lo, hi = endpoints(ball)
    if lo == hi:
        return Fraction(0)
    m = abs(lo + hi) / 2
    return (hi - lo) / m if m else Fraction(10**9)


def width_ok(ball, digits: int) -> bool:
    """Relative width at most ``10^-digits``."""
    return rel_width(ball) <= Fraction(1, 10**digits)


def _mp_round(x: Fraction, rounding: str) -> mpmath.mpf:
    prec = max(mpmath.mp.prec, 200)
    return mpmath.mpf(mpmath.libmp.from_rational(x.numerator, x.denominator, prec, rounding))


def mp_up(ball) -> mpmath.mpf:
    """Upper end of a certified enclosure as an mpmath number, rounded up (for arithmetic with
    mpmath references)."""
    return _mp_round(upper(ball), "u")


def mp_down(ball) -> mpmath.mpf:
    """Lower end of a certified enclosure as an mpmath number, rounded down."""
    return _mp_round(lower(ball), "d")


def describe(ball, ref=None) -> str:
    """A failure message: the exact endpoints (30 digits) and the reference."""
    lo, hi = endpoints(ball)
    with mpmath.workdps(30):
        text = f"[{mpmath.nstr(_mp_round(lo, 'd'), 30)}, {mpmath.nstr(_mp_round(hi, 'u'), 30)}]"
        if ref is not None:
            text += f" vs reference {mpmath.nstr(_mp_round(to_fraction(ref), 'n'), 30)}"
    return text
