"""The fixed-size-without-replacement coupling that two proof scripts enumerate exactly."""

from __future__ import annotations

import itertools
from fractions import Fraction


def coupling_law(n: int, b: int) -> dict:
    """Exact law of the batch B for |D| = n, |B| = b, D = {0, ..., n - 1}, x = n - 1 the added row:
    with probability 1 - q (q = b / n) a uniform b-subset S of D - {x}; with probability q such
    an S with one uniform element j replaced by x (equation (23) of the FSwoR hockey-stick proof)."""
    q = Fraction(b, n)
    last = n - 1
    law: dict = {}
    small = list(itertools.combinations(range(n - 1), b))
    for bp in small:
        p_bp = Fraction(1, len(small))
        law[frozenset(bp)] = law.get(frozenset(bp), 0) + (1 - q) * p_bp
        subs = list(itertools.combinations(bp, b - 1))
        for bt in subs:
            key = frozenset(bt) | {last}
            law[key] = law.get(key, 0) + q * p_bp * Fraction(1, len(subs))
    return law
