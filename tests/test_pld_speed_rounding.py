"""The coarsening of composed upper PLDs (rigorous_rdp.pld.compose.coarsen_up, Fact 5).

Checked against independent values: delta of an integer array summed directly in mpmath
at 80 digits, at every real epsilon that matters (every fine and coarse grid point,
points just beside them, far below and far above), and the closed form of composed
Gaussians (mpmath) through the whole grid path with a strong coarsening.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest
from flint import fmpz_poly

from rigorous_rdp import GaussianEvent
from rigorous_rdp.arith import exact_endpoints
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.pld.compose import Coarsening, coarsen_down, coarsen_up, compose_all, delta_at
from rigorous_rdp.pld.discretize import DiscretePld
from rigorous_rdp.reference.pld import gaussian_delta


def _mp_delta(pld: DiscretePld, n: int, t) -> mpmath.mpf:
    """sum_j c_j (1 - e^{t - l_j})_+ + inf, in units of 2^-S, summed in mpmath."""
    total = mpmath.mpf(0)
    for j, c in enumerate(pld.coeffs.coeffs()):
        loss = mpmath.mpf(pld.offset + j * pld.step) / n
        if c and loss > t:
            total += int(c) * (1 - mpmath.exp(t - loss))
    return total + mpmath.mpf(pld.inf_mass.numerator) / pld.inf_mass.denominator * 2**pld.scale_bits


def _probe_points(pld: DiscretePld, n: int, factor: int) -> list:
    """Every fine and coarse grid point of the array, points 1e-12 beside them, midpoints,
    and points far below and above the support."""
    lo = pld.offset
    hi = pld.offset + (pld.coeffs.length() + factor) * pld.step
    pts = []
    for i in range(lo - 2 * pld.step, hi + 2 * pld.step + 1):
        x = mpmath.mpf(i) / n
        pts += [x, x - mpmath.mpf(10) ** -12, x + mpmath.mpf(10) ** -12, x + mpmath.mpf(1) / (2 * n)]
    pts += [mpmath.mpf(lo) / n - 50, mpmath.mpf(hi) / n + 50]
    return pts


def _check_dominates(fine: DiscretePld, coarse: DiscretePld, n: int, factor: int) -> None:
    """delta of ``coarse`` >= (upper) or <= (lower) delta of ``fine`` at every probe point."""
    with mpmath.workdps(80):
        scale = max(1, sum(int(c) for c in fine.coeffs.coeffs()))
        for t in _probe_points(fine, n, factor):
            d_f = _mp_delta(fine, n, t)
            d_c = _mp_delta(coarse, n, t)
            if fine.upper:
                assert d_c >= d_f - scale * mpmath.mpf(10) ** -60, (t, d_c, d_f)
            else:
                assert d_c <= d_f + scale * mpmath.mpf(10) ** -60, (t, d_c, d_f)


def _random_pld(rng: random.Random, length: int, step: int, bits: int, upper: bool = True) -> DiscretePld:
    coeffs = [rng.choice([0, 1, 2, rng.getrandbits(bits), rng.getrandbits(bits // 2)]) for _ in range(length)]
    inf = F(rng.randint(0, 5), 1 << bits) if upper else F(0)
    return DiscretePld(rng.randint(-40, 40), fmpz_poly(coeffs), bits, inf, upper, step)


def _random_case(seed: int, upper: bool) -> tuple[int, int, DiscretePld]:
    """A random n, fine step and fine 70-bit PLD (up to 30 coefficients) drawn from the seed."""
    rng = random.Random(seed)
    n = rng.choice([3, 10, 100, 1265])
    step = rng.choice([1, 2])
    return n, step, _random_pld(rng, rng.randint(1, 30), step, 70, upper)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("factor", [2, 3, 8])
def test_coarsen_up_dominates_at_every_epsilon(seed, factor):
    n, step, fine = _random_case(1000 * seed + factor, upper=True)
    coarse = coarsen_up(fine, factor, n)
    assert coarse.step == factor * step
    assert coarse.offset == fine.offset
    # nothing created or lost: the same total mass and the same mass at +infinity
    assert sum(int(c) for c in coarse.coeffs.coeffs()) == sum(int(c) for c in fine.coeffs.coeffs())
    assert coarse.inf_mass == fine.inf_mass
    _check_dominates(fine, coarse, n, factor)


@pytest.mark.parametrize("r", [0, 1, 6, 7])
def test_coarsen_up_single_atoms(r):
    """One atom r fine steps above a coarse point: at r = 0 it stays; otherwise it is split
    with the exact chord share rounded up (by at most mass * 2^-63 + 1 units: the ratio is a
    64-bit upper bound), and a mass of 1 goes up whole."""
    n, factor = 50, 8
    for mass in (1, 1 << 70):
        fine = DiscretePld(0, fmpz_poly([0] * r + [mass]), 70, F(0), True)
        coarse = coarsen_up(fine, factor, n)
        c = [int(x) for x in coarse.coeffs.coeffs()] + [0, 0]
        if r == 0:
            assert c[0] == mass
            continue
        with mpmath.workdps(60):
            rho = (1 - mpmath.exp(-mpmath.mpf(r) / n)) / (1 - mpmath.exp(-mpmath.mpf(factor) / n))
            exact_up = rho * mass
            assert exact_up <= c[1] <= exact_up + mpmath.mpf(mass) / 2**63 + 1
        assert c[0] + c[1] == mass
        _check_dominates(fine, coarse, n, factor)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("factor", [2, 3, 8])
def test_coarsen_down_is_dominated_at_every_epsilon(seed, factor):
    n, step, fine = _random_case(2000 * seed + factor, upper=False)
    coarse = coarsen_down(fine, factor, n)
    assert coarse.step == factor * step and not coarse.upper
    assert sum(int(c) for c in coarse.coeffs.coeffs()) == sum(int(c) for c in fine.coeffs.coeffs())
    _check_dominates(fine, coarse, n, factor)


@pytest.mark.parametrize("factor", [2, 3, 4])
def test_coarsen_down_smooth_mass_is_second_order(factor):
    """On a smooth (Gaussian-shaped) array most of the connect-the-dots up-share survives
    (the held-back part is small), and delta stays below the fine array's everywhere."""
    n = 400
    coeffs = [int(2**60 * mpmath.exp(-(((j - 60) / 15.0) ** 2) / 2)) for j in range(120)]
    fine = DiscretePld(-100, fmpz_poly(coeffs), 64, F(0), False)
    coarse = coarsen_down(fine, factor, n)
    _check_dominates(fine, coarse, n, factor)
    cd = coarsen_up(DiscretePld(-100, fmpz_poly(coeffs), 64, F(0), True), factor, n)
    with mpmath.workdps(30):
        e_lo = mpmath.mpf(0)
        e_up = mpmath.mpf(0)
        for j, c in enumerate(coarse.coeffs.coeffs()):
            e_lo += int(c) * (-100 + j * factor)
        for j, c in enumerate(cd.coeffs.coeffs()):
            e_up += int(c) * (-100 + j * factor)
        total = sum(coeffs)
        # mean loss (in fine grid units): the lower one is below, by a small part of the
        # (f - 1) / 2 steps that moving every atom down would cost
        gap = (e_up - e_lo) / total
        assert 0 <= gap <= (factor - 1) / 2 * 0.25


def test_coarsen_up_refuses_a_lower_pld():
    low = DiscretePld(0, fmpz_poly([1, 2, 3]), 10, F(0), False)
    with pytest.raises(ValueError, match="upper"):
        coarsen_up(low, 2, 10)
    with pytest.raises(ValueError, match="lower"):
        coarsen_down(DiscretePld(0, fmpz_poly([1, 2, 3]), 10, F(0), True), 2, 10)


@pytest.mark.parametrize("eps", [F(-3, 7), F(0), F(1, 3), F(17, 10), F(5)])
def test_delta_at_on_a_coarse_array(eps):
    """delta_at of an array with step 3 against the direct mpmath sum."""
    rng = random.Random(7)
    pld = _random_pld(rng, 40, 3, 64)
    n = 20
    ball = delta_at(pld, n, eps)
    with mpmath.workdps(60):
        ref = _mp_delta(pld, n, mpmath.mpf(eps.numerator) / eps.denominator) / mpmath.mpf(2) ** 64
        lo, hi = exact_endpoints(ball)
        r = F(mpmath.nstr(ref, 50, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
    assert lo <= r <= hi
    assert hi - lo <= F(1, 10**20)


def test_power_coarsens_and_keeps_the_bound():
    """A long self-composition with a strong coarsening ends on a coarse step, and its delta
    is at least that of the same composition without coarsening, at many epsilons."""
    acc = PldAccountant(exact=False, grid=200).compose(GaussianEvent(3), 1)
    ups, _, _, tail = acc._discretized("remove", 200, 1e-14, lower=False)
    base = ups[0][0]
    plain = compose_all([(base, 300)], tail)
    coarse = compose_all([(base, 300)], tail, coarsening=Coarsening(200, 2.0))
    assert plain.step == 1 and coarse.step >= 4
    for k in range(0, 100):
        eps = F(k, 10)
        assert delta_at(coarse, 200, eps).upper() >= delta_at(plain, 200, eps).lower()


@pytest.mark.parametrize("steps", [10, 300, 3000])
def test_coarsened_gaussian_grid_path_contains_closed_form(steps):
    """The grid path (exact=False) with a coarsening 20 times the default still brackets
    the closed form of composed Gaussians (mpmath), and stays within the requested width."""
    sigma = 30
    acc = PldAccountant(width="0.01", exact=False).compose(GaussianEvent(sigma), steps)
    acc.coarsen_var = 2.0
    for eps in (F(1, 10), F(1, 2), F(1)):
        d = acc.get_delta_result(eps)
        lo, hi = exact_endpoints(d.delta)
        with mpmath.workdps(40):
            ref = F(mpmath.nstr(gaussian_delta(sigma, steps, eps), 40, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
        assert lo <= ref <= hi
    res = acc.get_epsilon_result(F(1, 10**5))
    lo, hi = exact_endpoints(res.epsilon)
    # the true epsilon lies in [lo, hi] iff delta(hi) <= 1e-5 <= delta(lo) (delta decreases)
    with mpmath.workdps(40):
        assert gaussian_delta(sigma, steps, hi) <= mpmath.mpf(1) / 10**5 <= gaussian_delta(sigma, steps, lo)
    assert hi - lo <= F(2, 100)


def test_calibrate_pld_refusal_names_the_undecided_sigma():
    """With one grid per decision and 9 significant digits the calibration cannot decide;
    the refusal says which sigma, which end, the grid and why."""
    from rigorous_rdp.errors import PrecisionExhausted
    from rigorous_rdp.pld.calibrate import calibrate_sigma_pld

    with pytest.raises(PrecisionExhausted) as info:
        calibrate_sigma_pld(lambda s: GaussianEvent(s), 4, 1, F(1, 10**5), sigma_digits=9, max_rounds=1)
    msg = str(info.value)
    assert "at sigma = " in msg and "end of epsilon is" in msg and "on grid 1/" in msg
    assert "1 grids tried" in msg


def test_fswor_grid_is_refined_by_the_pairs_own_bracket():
    """Fixed-size sampling (pairs that only dominate, lower end reported as 0): the grid is
    refined until the pairs' own bracket meets the width, so the upper end is below the
    certified RDP bound of the same event (an independent method) and above the proven lower
    end of the Poisson pairs it is accounted through."""
    from rigorous_rdp import FixedSizeSampledEvent, PoissonSampledEvent, RdpAccountant

    ev = FixedSizeSampledEvent(GaussianEvent(6), 120, 50000)
    res = PldAccountant().compose(ev, 1000).get_epsilon_result(F(1, 10**5))
    lo, hi = exact_endpoints(res.epsilon)
    assert lo <= 0
    rdp = RdpAccountant().compose(ev, 1000).get_epsilon(F(1, 10**5))
    assert hi <= exact_endpoints(rdp.ball)[0]
    pair = PldAccountant().compose(PoissonSampledEvent(GaussianEvent(3), F(120, 50000)), 1000)
    p_lo, _ = exact_endpoints(pair.get_epsilon_result(F(1, 10**5)).epsilon)
    assert p_lo <= hi <= p_lo + F(2, 100)
