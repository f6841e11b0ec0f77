"""Tiny datasets of one-dimensional gradients for checks by enumeration of minibatches."""

from __future__ import annotations

import itertools
from fractions import Fraction


def both_directions(divergence, pairs):
    """``divergence(x, y)`` and ``divergence(y, x)`` for every pair: replace-one adjacency is symmetric,
    so an upper bound must hold in both directions."""
    for x, y in pairs:
        yield divergence(x, y)
        yield divergence(y, x)


def random_replace_one_pairs(rng, size: int, count: int = 3):
    """``count`` pairs (x, y) of datasets of ``size`` gradients in {-1, -7/8, ..., 1} (numpy generator
    ``rng``) that differ in their last record only (replace-one neighbours)."""
    for _ in range(count):
        x = [Fraction(int(v), 8) for v in rng.integers(-8, 9, size=size)]
        yield x, [*x[:-1], Fraction(int(rng.integers(-8, 9)), 8)]


def bit_neighbours(m: int):
    """Every dataset ``x`` of ``m`` bits with each of its replace-one neighbours ``y`` (row ``i`` flipped),
    as pairs of tuples, ``m * 2**m`` of them."""
    for x in itertools.product((0, 1), repeat=m):
        for i in range(m):
            yield x, (*x[:i], 1 - x[i], *x[i + 1 :])
