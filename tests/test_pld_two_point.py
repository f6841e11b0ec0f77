"""Randomized response under Poisson sampling composed exactly (rigorous_rdp.pld.two_point),
against the binomial sum over every count k in mpmath at 60 digits (an independent path: exact
rational masses, no window, no tail bound, no closed-form epsilon)."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest

from rigorous_rdp import PoissonSampledEvent, RandomizedResponseEvent
from rigorous_rdp.accountant import RdpAccountant
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.reference import pld as ref
from tests._cli import cmd, run_cli

DPS = 60


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _truth(q: F, p: F, steps: int, eps) -> mpmath.mpf:
    return max(ref.poisson_randomized_response_delta(q, p, steps, eps, d, dps=DPS) for d in ("remove", "add"))


def _acc(q: F, p: F, steps: int) -> PldAccountant:
    return PldAccountant().compose(PoissonSampledEvent(RandomizedResponseEvent(p), q), steps)


CASES = [
    (F(1, 10), F(3, 4), 1),
    (F(1, 10), F(3, 4), 50),
    (F(1, 2), F(9, 10), 7),
    (F(1, 100), F(99, 100), 300),
    (F(3, 1000), F(1, 5), 120),  # p < 1/2: the same pair as 1 - p
    (F(1, 100), 1 - F(1, 10**12), 200),  # loss atoms 23 units apart
]


@pytest.mark.parametrize(("q", "p", "steps"), CASES)
@pytest.mark.parametrize("eps", [F(0), F(1, 3), F(2), F(50)])
def test_delta_is_the_binomial_sum(q, p, steps, eps):
    res = _acc(q, p, steps).get_delta_result(eps)
    assert getattr(res, "exact", "") and set(res.directions) == {"remove", "add"}
    with mpmath.workdps(DPS):
        want = _truth(q, p, steps, eps)
        lo, up = _mp(res.delta.lo_exact), _mp(res.delta.up_exact)
        assert lo <= want <= up
        assert up - lo <= mpmath.mpf(10) ** -17 * max(want, mpmath.mpf(10) ** -300)


@pytest.mark.parametrize(("q", "p", "steps"), CASES)
@pytest.mark.parametrize("delta", [F(1, 10), F(1, 10**5), F(1, 10**12)])
def test_epsilon_brackets_the_optimum(q, p, steps, delta):
    """delta(eps) is non-increasing: eps* is in [lo, up] iff delta(lo) >= delta >= delta(up)
    (delta(lo) > delta unless lo = 0)."""
    res = _acc(q, p, steps).get_epsilon_result(delta)
    lo, up = res.epsilon.lo_exact, res.epsilon.up_exact
    assert 0 <= lo <= up and up - lo <= F(1, 10**12) * max(1, up)
    with mpmath.workdps(DPS):
        assert _truth(q, p, steps, up) <= _mp(delta)
        if lo > 0:
            assert _truth(q, p, steps, lo) >= _mp(delta)


def test_perfectly_private_and_symmetric_p():
    assert _acc(F(1, 10), F(1, 2), 100).get_epsilon(F(1, 10**5)).upper_float() == 0
    a = _acc(F(1, 10), F(1, 5), 100).get_epsilon_result(F(1, 10**5)).epsilon
    b = _acc(F(1, 10), F(4, 5), 100).get_epsilon_result(F(1, 10**5)).epsilon
    assert (a.lo_exact, a.up_exact) == (b.lo_exact, b.up_exact)


def test_a_million_steps_stays_below_the_rdp_bound():
    """T = 1e6: the exact value's lower end is below the RDP accountant's certified upper bound
    (an independent bound), and both directions are answered."""
    ev = PoissonSampledEvent(RandomizedResponseEvent(F(3, 4)), F(1, 1000))
    res = PldAccountant().compose(ev, 10**6).get_epsilon_result(F(1, 10**5))
    rdp = RdpAccountant().compose(ev, 10**6).get_epsilon(F(1, 10**5))
    assert getattr(res, "exact", "") and 0 < res.epsilon.lo_exact <= res.epsilon.up_exact
    assert res.epsilon.upper_float() < rdp.upper_float()


def test_mixed_sampling_rates_take_the_grid():
    acc = PldAccountant().compose(PoissonSampledEvent(RandomizedResponseEvent(F(3, 4)), F(1, 10)), 5)
    acc = acc.compose(PoissonSampledEvent(RandomizedResponseEvent(F(3, 4)), F(1, 20)), 5)
    assert acc._closed_form() is None
    assert acc.get_epsilon_result(F(1, 10**5)).grid > 0


def test_cli_json_names_both_directions():
    status, out, err = run_cli(
        cmd(
            "epsilon --noise randomized-response --p 0.999999999999 --sampling poisson --q 0.01 --steps 1000 "
            "--delta 1e-5 --method pld --json"
        )
    )
    assert status == 0, err
    res = json.loads(out)
    assert "two-outcome" in res["pld"]["exact"] and set(res["pld"]["directions"]) == {"remove", "add"}
    top = max(F(d["epsilon"]["upper"]) for d in res["pld"]["directions"].values())
    assert F(res["epsilon"]["upper"]) == top
