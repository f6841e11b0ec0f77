"""The coarsenings of :mod:`rigorous_rdp.pld.compose` follow their stated rule atom by atom.

``coarsen_up`` and ``coarsen_down`` compute on whole polynomials (one residue class of atoms
at a time); here the rules of their docstrings (Facts 5 and 6: each coarse cell moves its
rounded total share, or its allowance, to the next coarse point) are applied cell by cell
in plain Python integers, with the split ratios recomputed from mpmath at 60 digits and
rounded the stated way, and the arrays must agree exactly.  That they bound delta the
right way is tested against mpmath sums in ``test_pld_speed_rounding.py``.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import mpmath
import pytest
from flint import fmpz_poly

from rigorous_rdp.pld.compose import coarsen_down, coarsen_up
from rigorous_rdp.pld.discretize import DiscretePld

B = 64  # bits of the split ratios (compose._RATIO_BITS)


def _ratios(step: int, factor: int, n: int, up: bool) -> list[int]:
    """2^B (1 - e^{-r s/n}) / (1 - e^{-f s/n}) rounded up (down), as the docstring states."""
    out = [0]
    with mpmath.workdps(60):
        den = 1 - mpmath.exp(-mpmath.mpf(factor * step) / n)
        for r in range(1, factor):
            v = (1 - mpmath.exp(-mpmath.mpf(r * step) / n)) / den * 2**B
            # v is irrational: 60 digits decide its floor and ceiling
            out.append(min(2**B, int(mpmath.ceil(v))) if up else max(0, int(mpmath.floor(v))))
    return out


def _decay(spacing: F) -> int:
    with mpmath.workdps(60):
        return int(mpmath.floor(mpmath.exp(-mpmath.mpf(spacing.numerator) / spacing.denominator) * 2**B))


def _cell_sums(c: list[int], factor: int, R: list[int]) -> tuple[int, list[int], list[int]]:
    """The number of coarse cells, each cell's sum of c R_r and each cell's mass."""
    m = -(-len(c) // factor)
    weighted = [0] * m
    cells = [0] * m
    for j, x in enumerate(c):
        i, r = divmod(j, factor)
        weighted[i] += x * R[r]
        cells[i] += x
    return m, weighted, cells


def _rule_up(c: list[int], step: int, factor: int, n: int) -> list[int]:
    """Each cell moves ceil(sum of c R_r / 2^B) of its atoms' mass to the next coarse point."""
    R = _ratios(step, factor, n, True)
    m, weighted, cells = _cell_sums(c, factor, R)
    new = [0] * (m + 1)
    for i in range(m):
        u = -(-weighted[i] // 2**B)
        assert 0 <= u <= cells[i]
        new[i] += cells[i] - u
        new[i + 1] += u
    return new


def _rule_down(c: list[int], step: int, factor: int, n: int) -> list[int]:
    """Each cell moves its allowance: min(its rounded-down share, the running lower bound of the
    held-back mass above, decayed by e^-H per cell)."""
    R = _ratios(step, factor, n, False)
    beta = _decay(F(factor * step, n))
    m, weighted, cells = _cell_sums(c, factor, R)
    rows = [v // 2**B for v in weighted]
    allowed = [0] * m
    w = 0
    for i in range(m - 1, -1, -1):
        allowed[i] = min(rows[i], w)
        w = beta * (rows[i] - allowed[i] + w) // 2**B
    new = [0] * (m + 1)
    for i in range(m):
        new[i] += cells[i] - allowed[i]
        new[i + 1] += allowed[i]
    return new


def _cases():
    rng = random.Random(11)
    for k in range(24):
        n = rng.choice([3, 10, 100, 1265, 6913])
        step = rng.choice([1, 2, 4])
        factor = rng.choice([2, 3, 4, 8])
        length = rng.randint(1, 200)
        if k % 3 == 0:  # a smooth bump (most cells get a partial allowance below)
            c = [int(2**68 * math.exp(-(((i - length / 3) / (1 + length / 8)) ** 2) / 2)) for i in range(length)]
        else:
            c = [rng.choice([0, 1, 2, rng.getrandbits(70), rng.getrandbits(30)]) for _ in range(length)]
        yield pytest.param(n, step, factor, c, id=f"case{k}")


@pytest.mark.parametrize(("n", "step", "factor", "c"), list(_cases()))
def test_coarsenings_follow_their_rule_atom_by_atom(n, step, factor, c):
    up = coarsen_up(DiscretePld(-5, fmpz_poly(c), 68, F(1, 7), True, step), factor, n)
    assert up.coeffs == fmpz_poly(_rule_up(c, step, factor, n))
    assert (up.offset, up.step, up.inf_mass) == (-5, step * factor, F(1, 7))
    down = coarsen_down(DiscretePld(-5, fmpz_poly(c), 68, F(0), False, step), factor, n)
    assert down.coeffs == fmpz_poly(_rule_down(c, step, factor, n))
    assert (down.offset, down.step) == (-5, step * factor)
