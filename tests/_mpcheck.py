"""Old names of the containment helpers used by the blog and fixed-size tests (thin aliases of
:mod:`_containment`).

The references of these tests are mpmath values at 30 digits or more, computed by formulas
independent of the code under test; their error is taken as ``1e-24`` relative
(``REF_REL``), or ``10^-digits`` where a test says so.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from _containment import contains as _contains
from _containment import mp_down, mp_up, not_above_upper

REF_REL = Fraction(1, 10**24)


def contains(cert, ref, rel=REF_REL) -> bool:
    """The reference (relative error ``rel``) meets the certified enclosure ``cert``."""
    return _contains(cert, ref, rel=rel)


def up(cert):
    """Upper end of ``cert`` as an mpmath number (rounded up)."""
    return mp_up(cert)


def lo(cert):
    """Lower end of ``cert`` as an mpmath number (rounded down)."""
    return mp_down(cert)


def M(x):
    """Exact rational ``x`` as an mpmath number (at the current precision)."""
    f = Fraction(x)
    return mpmath.mpf(f.numerator) / f.denominator


def ball_contains(ball, x, digits: int = 20) -> bool:
    """The ball meets ``x (1 +- 10^-digits)``."""
    return _contains(ball, x, rel=Fraction(1, 10**digits))


def below_upper(x, ball, rel="1e-10") -> bool:
    """``x (1 - rel)`` is at most the upper end of the ball."""
    return not_above_upper(x, ball, rel=rel)
