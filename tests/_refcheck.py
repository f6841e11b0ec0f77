"""Old names of the containment helpers (thin aliases of :mod:`_containment`).

``encloses(ball, ref, rel)``: the reference ``ref`` with relative error ``rel``
(default 1e-40, the accuracy of the stored 50-digit references) meets the ball.
"""

from __future__ import annotations

from fractions import Fraction

from _containment import arb_fraction, contains, endpoints, mp_fraction, rel_width

__all__ = ["arb_fraction", "contains", "encloses", "endpoints", "mp_fraction", "rel_width"]


def encloses(ball, ref, rel: Fraction = Fraction(1, 10**40)) -> bool:
    """True if the ball meets ``ref * (1 +- rel)`` (ref: mpf, Fraction, int or decimal string)."""
    return contains(ball, ref, rel=rel)
