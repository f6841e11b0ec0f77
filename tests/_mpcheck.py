"""Helpers comparing certified balls with mpmath reference values (shared by several tests)."""

from fractions import Fraction

import mpmath
from flint import arb

from rigorous_rdp.arith import decimal_lower, decimal_upper, workprec


def contains(cert, ref):
    """``ref`` lies between the outward-rounded endpoints of ``cert`` (25 digits)."""
    # decimal_lower/upper round the endpoints at the current arb precision: use a high one
    with workprec(256), mpmath.workdps(60):
        lo = mpmath.mpf(decimal_lower(cert.ball, 25))
        hi = mpmath.mpf(decimal_upper(cert.ball, 25))
        return lo <= ref <= hi


def up(cert):
    """Upper end of ``cert`` as an mpmath number (rounded up)."""
    with workprec(256), mpmath.workdps(60):
        return mpmath.mpf(decimal_upper(cert.ball, 25))


def lo(cert):
    """Lower end of ``cert`` as an mpmath number (rounded down)."""
    with workprec(256), mpmath.workdps(60):
        return mpmath.mpf(decimal_lower(cert.ball, 25))


def M(x):
    """Exact rational ``x`` as an mpmath number."""
    f = Fraction(x)
    return mpmath.mpf(f.numerator) / f.denominator


def ball_contains(ball: arb, x, digits: int = 20) -> bool:
    """The ball meets ``x (1 +- 10^-digits)``."""
    with workprec(256):
        ref = arb(mpmath.nstr(x, digits + 5))
        slack = abs(ref) * arb(10) ** (-digits)
        return bool((ball - ref).overlaps(arb(0, slack.upper())))


def below_upper(x, ball: arb, rel="1e-10") -> bool:
    """``x (1 - rel)`` is at most the upper end of the ball."""
    return x * (1 - mpmath.mpf(rel)) <= mpmath.mpf(ball.upper().str(30, radius=False))
