"""The lower discretisation with tangents inside its gaps (``discretize(lower_mid=True)``).

Checked against independent values: the largest chord gap by dense mpmath sampling of the
profile, the one-step profile at and between grid points (``reference.pld.single_delta``,
mpmath), the composed delta of two steps by quadrature (``reference.pld.poisson_gaussian_delta``)
and the closed form of the Gaussian composed T times (``reference.pld.gaussian_delta``).
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest
from flint import arb, fmpq, fmpz_poly

from rigorous_rdp.arith import workprec
from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.pld.accountant import _eps_lower, _eps_upper
from rigorous_rdp.pld.compose import _residues, _trim_poly, delta_at, power
from rigorous_rdp.pld.discretize import _gap, _maxmin_upper, discretize
from rigorous_rdp.pld.profiles import gaussian_profile, poisson_gaussian_profile
from rigorous_rdp.reference.pld import gaussian_delta, poisson_gaussian_delta, single_delta


def _exact_maxmin(a0: F, a1: F, b0: F, b1: F) -> F:
    """max over t in [0, 1] of min(l1(t), l2(t)), exactly (ends and the crossing)."""
    cands = [min(a0, b0), min(a1, b1)]
    s0, s1 = a0 - b0, a1 - b1
    if s0 != s1:
        t = s0 / (s0 - s1)
        if 0 <= t <= 1:
            cands.append(a0 + t * (a1 - a0))
    return max(cands)


def test_maxmin_upper_matches_the_exact_maximum():
    rng = random.Random(7)
    for _ in range(400):
        vals = [F(rng.randint(-50, 100), rng.randint(1, 40)) for _ in range(4)]
        exact = _exact_maxmin(*vals)
        with workprec(128):
            got = _maxmin_upper(*(arb(fmpq(v.numerator, v.denominator)) for v in vals))
            bound = F(int(got.mid().man_exp()[0]), 1) * F(2) ** int(got.mid().man_exp()[1])
        assert bound >= max(exact, F(0))  # an upper bound (the clamp at 0 is part of the contract)
        assert bound <= max(exact, F(0)) + F(1, 10**20)  # and the exact one when the case is decided


def _chord_gap_mp(prof_kind, d, lo: F, hi: F, samples: int = 400) -> mpmath.mpf:
    """max over x in [e^lo, e^hi] of chord minus v, by dense sampling (a lower estimate of the max)."""
    with mpmath.workdps(40):
        xa, xc = (
            mpmath.exp(mpmath.mpf(lo.numerator) / lo.denominator),
            mpmath.exp(mpmath.mpf(hi.numerator) / hi.denominator),
        )
        va = single_delta(*prof_kind, d, lo)
        vc = single_delta(*prof_kind, d, hi)
        best = mpmath.mpf(0)
        for k in range(1, samples):
            x = xa + (xc - xa) * k / samples
            chord = va + (vc - va) * (x - xa) / (xc - xa)
            best = max(best, chord - single_delta(*prof_kind, d, mpmath.log(x)))
        return best


@pytest.mark.parametrize(
    ("q", "sigma", "d", "i", "n"), [("0.01", "1.1", "remove", 5, 1265), ("0.1", "1", "add", -40, 300)]
)
def test_gap_with_midpoint_tangent_is_a_sharper_valid_bound(q, sigma, d, i, n):
    q, sigma = F(q), F(sigma)
    prof = poisson_gaussian_profile(q, sigma, d)
    pts_at = [F(2 * i, 2 * n), F(2 * i + 1, 2 * n), F(2 * i + 2, 2 * n)]
    with workprec(160):
        pts = [prof.oracle(e) for e in pts_at]
        xs = [arb(fmpq(e.numerator, e.denominator)).exp() for e in pts_at]
        with_mid = _gap(pts, xs, 0, 2)
        ends_only = _gap([pts[0], pts[2]], [xs[0], xs[2]], 0, 1)
    true_gap = _chord_gap_mp(("poisson-gaussian", (q, sigma)), d, pts_at[0], pts_at[2])
    assert mpmath.mpf(with_mid.mid().str(30, radius=False)) >= true_gap
    assert with_mid <= ends_only
    # about the exact gap (second order), where the end tangents alone give about twice it
    assert float(with_mid.mid()) <= 1.1 * float(true_gap)
    assert float(ends_only.mid()) >= 1.6 * float(true_gap)


@pytest.mark.parametrize("d", ["remove", "add"])
def test_one_step_lower_profile_below_the_truth(d):
    q, sigma, n = F(1, 100), F(11, 10), 400
    prof = poisson_gaussian_profile(q, sigma, d)
    up, lo = discretize(prof, n, 60, 1e-14, thin=1e-5, lower_mid=True)
    assert lo is not None
    span = range(-30, 300, 7) if d == "remove" else range(-300, 30, 7)
    for k in span:
        for eps in (F(k, n), F(2 * k + 1, 2 * n)):  # grid points and midpoints
            # tight balls (256 bits, ends taken at 256 bits): their far ends must be on the right side
            with workprec(256):
                lo_end = delta_at(lo, n, eps, prec=256).upper().str(40, radius=False)
                up_end = delta_at(up, n, eps, prec=256).lower().str(40, radius=False)
            with mpmath.workdps(40):
                truth = single_delta("poisson-gaussian", (q, sigma), d, eps)
                assert mpmath.mpf(lo_end) <= truth <= mpmath.mpf(up_end)


def test_two_steps_bracket_contains_the_quadrature():
    q, sigma, delta = F(1, 10), F(1), F(1, 10**3)
    acc = PldAccountant(width="0.002").compose(PoissonSampledEvent(GaussianEvent(sigma), q), 2)
    res = acc.get_epsilon_result(delta)
    lo, up = res.epsilon.lo_exact, res.epsilon.up_exact
    assert 0 < lo < up
    limit = mpmath.mpf(1) / 1000
    with mpmath.workdps(20):
        d_up = max(poisson_gaussian_delta(q, sigma, 2, up, d) for d in ("remove", "add"))
        d_lo = max(poisson_gaussian_delta(q, sigma, 2, lo, d) for d in ("remove", "add"))
    # quadrature estimates: a relative margin of 1e-8 for their error
    assert d_up <= limit * (1 + mpmath.mpf(10) ** -8)
    assert d_lo >= limit * (1 - mpmath.mpf(10) ** -8)


@pytest.mark.parametrize("mid", [False, True])
def test_gaussian_grid_bracket_contains_the_closed_form(mid):
    """500 Gaussians on a grid (both pairs composed exactly, no coarsening): the bracket holds the
    closed form's epsilon; with the midpoint tangents the lower end is within 0.45 of the width from
    it (about 0.36; about 0.67 with the end tangents only)."""
    sigma, steps, delta, n = F(20), 500, F(1, 10**5), 1200
    up1, lo1 = discretize(gaussian_profile(sigma), n, 64, 1e-18, thin=1e-5, lower_mid=mid)
    tail = F(1, 10**16)
    up_eps = _eps_upper(power(up1, steps, tail), n, delta)
    lo_eps = _eps_lower(power(lo1, steps, tail), n, delta)
    with mpmath.workdps(40):
        target = mpmath.mpf(1) / 10**5
        truth = mpmath.findroot(lambda e: gaussian_delta(sigma, steps, e) - target, 1.0)
        assert gaussian_delta(sigma, steps, up_eps) <= target
        assert gaussian_delta(sigma, steps, lo_eps) >= target
        lo_mp, up_mp = (
            mpmath.mpf(lo_eps.numerator) / lo_eps.denominator,
            mpmath.mpf(up_eps.numerator) / up_eps.denominator,
        )
        assert lo_mp <= truth <= up_mp
        share = float((truth - lo_mp) / (up_mp - lo_mp))
    assert up_eps - lo_eps <= F(1, 100)
    assert share <= 0.45 if mid else share >= 0.55


@pytest.mark.parametrize("factor", [1, 2, 3, 4, 5, 8])
def test_residues_are_the_strided_coefficients(factor):
    """``compose._residues`` (strided copies in FLINT for small factors) against Python slicing."""
    rng = random.Random(factor)
    for length in (1, 2, 7, 64, 1001):
        c = [rng.getrandbits(rng.choice([1, 30, 70])) for _ in range(length)]
        got = _residues(fmpz_poly(c), factor)
        assert [[int(x) for x in g.coeffs()] for g in got] == [_strip(c[r::factor]) for r in range(factor)]
        assert all(g == fmpz_poly(c[r::factor]) for r, g in enumerate(got))  # normalised: equal as polynomials


def _strip(c: list[int]) -> list[int]:
    while c and c[-1] == 0:
        c = c[:-1]
    return c


def _trim_rule(c: list[int], tail: int, up: bool) -> tuple[int, list[int], int]:
    """The trimming rule of ``compose._trim_poly`` applied one coefficient at a time in Python."""
    lo, low = 0, 0
    while lo < len(c) - 1 and low + c[lo] <= tail:
        low += c[lo]
        lo += 1
    rest = c[lo:]
    m, high = 0, 0
    while m < len(rest) - 1 and high + rest[-1 - m] <= tail:
        high += rest[-1 - m]
        m += 1
    kept = rest[: len(rest) - m]
    if up:
        kept[0] += low
        return lo, _strip(kept), high
    return lo, _strip(kept), 0


def test_trim_matches_the_one_by_one_rule():
    rng = random.Random(5)
    for _ in range(1500):
        c = [rng.choice([0, 0, 1, rng.getrandbits(10), rng.getrandbits(40)]) for _ in range(rng.choice([1, 2, 5, 80]))]
        c[-1] = c[-1] or 1  # a polynomial's top coefficient is not zero
        tail = rng.choice([0, 1, 7, 2**12, 2**41, 10**20])
        up = rng.random() < 0.5
        off, kept, moved = _trim_poly(10, fmpz_poly(c), tail, up, 3)
        lo, want, want_moved = _trim_rule(list(c), tail, up)
        assert (off, [int(x) for x in kept.coeffs()], moved) == (10 + 3 * lo, want, want_moved)
