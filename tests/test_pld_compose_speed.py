"""The speed-ups of the PLD composition and discretisation compute the same numbers as the plain rules.

* the tail trims (``compose._end_count``): the largest end count whose partial sum is within the
  budget, against a one-coefficient-at-a-time Python sum;
* the lower pair's final pass (``discretize._lower_pass`` with an earlier pass's checks): the same
  masses as a pass from scratch on the final vertices;
* the first grid from the float screen (``accountant._screened_variance``): the grid of the
  certified coarse arrays (the rule of the error model written out here);
* the sampled Gaussian oracle's balls built once per precision: the same balls as a fresh profile.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from flint import fmpz_poly

from rigorous_rdp.arith import workprec
from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.pld import discretize as disc
from rigorous_rdp.pld.compose import _end_count
from rigorous_rdp.pld.profiles import poisson_gaussian_profile


def _reference(coeffs: list[int], limit: int, kmax: int, top: bool) -> tuple[int, int]:
    seq = coeffs[::-1] if top else coeffs
    k, total = 0, 0
    while k < kmax and total + seq[k] <= limit:
        total += seq[k]
        k += 1
    return k, total


@pytest.mark.parametrize("seed", range(6))
def test_end_count_is_the_one_by_one_count(seed):
    rng = random.Random(seed)
    n = rng.choice([1, 2, 3, 17, 200, 1500])
    # long runs of zeros and of small coefficients at the ends, large ones in the middle (a product's shape)
    coeffs = [rng.choice([0, 0, rng.randrange(1, 50), rng.randrange(1, 1 << 40)]) for _ in range(n)]
    coeffs[-1] = max(1, coeffs[-1])  # a polynomial's top coefficient is not 0
    poly = fmpz_poly(coeffs)
    total = sum(coeffs)
    for limit in (0, 1, 49, rng.randrange(total + 1), total // 2, total, total + 5):
        for kmax in (0, 1, n // 2, n - 1, n):
            for top in (False, True):
                assert _end_count(poly, n, limit, kmax, top) == _reference(coeffs, limit, kmax, top)


def test_lower_final_pass_reuses_only_unchanged_windows(monkeypatch):
    """The grid 1/3999 of the DP-SGD pair removes vertices at both ends; the final pass, which takes
    the earlier checks where a vertex's five-vertex window is unchanged, gives the masses of a pass from
    scratch (fresh gap cache, no earlier checks) on the final vertices."""
    prof = poisson_gaussian_profile(Fraction(1, 100), Fraction(11, 10), "remove")
    passes = []
    real = disc._lower_pass

    def spy(pts, xs, scale, verts, gaps, inner, prior=None):
        got = real(pts, xs, scale, verts, gaps, inner, prior)
        passes.append((pts, xs, scale, list(verts), inner, prior is not None, got))
        return got

    monkeypatch.setattr(disc, "_lower_pass", spy)
    _, lower = disc.discretize(prof, 3999, 68, 2.5e-15, thin=1e-5)
    assert lower is not None
    assert len(passes) == 2 and passes[0][-1][0] is None and passes[1][5]  # a repair, then the reusing pass
    pts, xs, scale, verts, inner, _, (dense, failing, _) = passes[1]
    assert not failing and len(verts) < len(passes[0][3])
    with workprec(160):
        fresh, fresh_failing, _ = real(pts, xs, scale, verts, {}, inner)
    assert fresh_failing == [] and fresh == dense


def _certified_grid(acc: PldAccountant, width: Fraction, delta: float) -> int:
    """The error model of ``PldAccountant._initial_grid`` on the certified coarse arrays (written out)."""
    var, total = 0.0, 0
    for pair, c in acc._active():
        u, _ = acc._coarse(pair.remove)
        cc = np.array([float(x) for x in u.coeffs.coeffs()]) * 2.0 ** (-u.scale_bits)
        ls = (u.offset + np.arange(len(cc))) / 100
        tot = float(np.sum(cc))
        m = float(np.sum(cc * ls)) / tot
        var += c * float(np.sum(cc * (ls - m) ** 2)) / tot
        total += c
    z = -NormalDist().inv_cdf(min(max(delta, 1e-300), 0.5))
    h2 = 0.75 * float(width) / (0.53 * total * (z / (2 * math.sqrt(var)) + 0.5))
    return max(50, min(acc.max_grid, math.ceil(1.0 / math.sqrt(max(h2, 1e-14)))))


@pytest.mark.parametrize(
    ("q", "sigma", "steps"), [("0.01", "1.1", 10000), ("0.001", "0.6", 3000), ("0.2", "2", 50), ("1", "3", 40)]
)
def test_screened_first_grid_is_the_certified_one(q, sigma, steps):
    acc = PldAccountant()
    inner = GaussianEvent(Fraction(sigma))
    acc.compose(inner if q == "1" else PoissonSampledEvent(inner, Fraction(q)), steps)
    for width in (Fraction(1, 10), Fraction(1, 100), Fraction(1, 1000)):
        for delta in (1e-5, 1e-9):
            assert acc._initial_grid(width, delta) == _certified_grid(acc, width, delta)


def test_oracle_balls_are_those_of_a_fresh_profile():
    """The balls of q, sigma and sqrt 2 are built once per working precision: queries at one precision,
    then another, then the first again give exactly the balls of a profile never queried before."""
    used = poisson_gaussian_profile(Fraction(3, 100), Fraction(9, 10), "add")
    for prec in (160, 300, 160, 64):
        fresh = poisson_gaussian_profile(Fraction(3, 100), Fraction(9, 10), "add")
        with workprec(prec):
            for eps in (Fraction(-1, 7), Fraction(1, 3), Fraction(5, 2)):
                a, b = used.oracle(eps), fresh.oracle(eps)
                for x, y in zip(a, b, strict=True):
                    assert x.mid() == y.mid() and x.rad() == y.rad()
