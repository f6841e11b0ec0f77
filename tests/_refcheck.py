"""Exact comparison of certified balls with mpmath reference values (test helper).

A reference value ``v`` (an mpmath number carrying ``dps`` digits) is taken as
the interval ``v (1 +- rel)``; the test passes when that interval meets the
certified ball.  All comparisons are between exact rationals, so nothing here
can round in either direction.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import arb


def mp_fraction(v) -> Fraction:
    """The exact binary value of an mpmath ``mpf``."""
    v = mpmath.mpf(v) if not isinstance(v, mpmath.mpf) else v
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


def endpoints(ball: arb) -> tuple[Fraction, Fraction]:
    """Exact (mid - rad, mid + rad), independent of the current arb precision."""
    assert ball.is_finite(), f"not a finite enclosure: {ball}"
    m, r = arb_fraction(ball.mid()), arb_fraction(ball.rad())
    return m - r, m + r


def encloses(ball: arb, ref, rel: Fraction = Fraction(1, 10**40)) -> bool:
    """True if the ball meets ``ref * (1 +- rel)`` (ref: mpf or Fraction)."""
    r = ref if isinstance(ref, Fraction) else mp_fraction(ref)
    lo, hi = endpoints(ball)
    tol = abs(r) * rel
    return lo <= r + tol and r - tol <= hi


def rel_width(ball: arb) -> Fraction:
    """Exact (upper - lower) / |midpoint| (0 for an exact ball)."""
    lo, hi = endpoints(ball)
    if lo == hi:
        return Fraction(0)
    m = abs(lo + hi) / 2
    return (hi - lo) / m if m else Fraction(10**9)
