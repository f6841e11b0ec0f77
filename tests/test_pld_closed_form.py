"""Exact PLD answers for plain Gaussian and randomized-response ledgers
(rigorous_rdp.pld.closed_form) against independent values: mpmath at high precision of
the composed-Gaussian closed form, exact rational binomial sums (rigorous_rdp.reference.
closed_form), the grid bracket of the general PLD path at small T (it must contain the
exact value), and dp-accounting's PLD on a fine grid (a sanity check with a tolerance)."""

from __future__ import annotations

import json
import time
import warnings
from fractions import Fraction as F

import mpmath
import pytest

from rigorous_rdp import (
    ComposedEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RandomizedResponseEvent,
    SelfComposedEvent,
)
from rigorous_rdp.arith import exact_endpoints
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.pld.closed_form import (
    ExactDeltaResult,
    ExactEpsilonResult,
    GaussianComposition,
    RandomizedResponseComposition,
    closed_form_of,
)
from rigorous_rdp.reference.closed_form import (
    gaussian_delta_mu2,
    gaussian_epsilon_mu2,
    rr_delta,
    rr_epsilon,
    rr_total_variation,
)


def _frac(x: mpmath.mpf) -> F:
    """The exact binary value of an mpmath number."""
    if not isinstance(x, mpmath.mpf):
        x = mpmath.mpf(x)
    man, exp = x.man_exp
    return F(man) * F(2) ** exp


def _inside(cert, ref: mpmath.mpf, rel_slack: F = F(1, 10**40)) -> bool:
    lo, hi = exact_endpoints(cert.ball)
    r = _frac(ref)
    s = abs(r) * rel_slack
    return lo - s <= r <= hi + s


def _rel_width(cert) -> F:
    lo, hi = exact_endpoints(cert.ball)
    return (hi - lo) / max(abs(hi), F(1, 10**400)) if hi != 0 else hi - lo


# -- Gaussian: delta ------------------------------------------------------------


@pytest.mark.parametrize(
    "sigma, steps, eps",
    [
        (F(2), 1, F(0)),
        (F(2), 4, F(1, 2)),
        (F(1, 2), 10_000, F(20_000)),
        (F(1, 2), 10_000, F(25_000)),  # delta ~ 3e-138
        (F(1), 1_000_000, F(100)),  # mu = 1000: delta within 1e-17 of 1
        (F(1), 10, F(1000)),  # far tail, delta ~ 1e-21504
        (F(10**8), 1, F(1, 10**7)),  # mu = 1e-8: the mean-value enclosure
        (F(1, 10**4), 1_000_000, F(5 * 10**13)),  # mu = 1e7: Mills' ratio from its asymptotic bracket
        (F(1, 10**4), 1_000_000, F(5 * 10**13) + F(10**8)),
    ],
)
def test_gaussian_delta_matches_mpmath(sigma, steps, eps):
    acc = PldAccountant().compose(GaussianEvent(sigma), steps)
    res = acc.get_delta_result(eps)
    assert isinstance(res, ExactDeltaResult)
    mu2 = F(steps) / sigma**2
    ref = gaussian_delta_mu2(mu2, eps, dps=120)
    assert _inside(res.delta, ref)
    assert _rel_width(res.delta) < F(1, 10**15)


def test_heterogeneous_gaussians_compose_to_one_gaussian():
    """sigma 1 x 3 steps and sigma 2 x 8 steps: mu^2 = 3 + 2 = 5."""
    ev = ComposedEvent((SelfComposedEvent(GaussianEvent(1), 3), SelfComposedEvent(GaussianEvent(2), 8)))
    acc = PldAccountant().compose(ev, 1)
    for eps in (F(0), F(1), F(7)):
        assert _inside(acc.get_delta(eps), gaussian_delta_mu2(F(5), eps))
    assert closed_form_of([(GaussianEvent(1), 3), (GaussianEvent(2), 8)]) == GaussianComposition(F(5))


# -- Gaussian: epsilon --------------------------------------------------------------


@pytest.mark.parametrize(
    "sigma, steps, delta",
    [
        (F(2), 4, F(1, 10**5)),
        (F(1, 2), 10_000, F(1, 1000)),
        (F(1, 2), 10_000, F(1, 10**100)),
        (F(1), 1_000_000, F(1, 10**100)),
        (F(50), 1, F(1, 10**5)),
        (F(10**6), 1, F(1, 10**100)),  # mu = 1e-6
        (F(1, 1000), 1_000_000, F(1, 10**5)),  # mu = 1e6
        (F(1, 100), 1, 1 - F(1, 10**30)),  # delta near 1: erfcinv through 1 - delta
        (F(1, 10), 1, F(9, 10)),
    ],
)
def test_gaussian_epsilon_matches_mpmath(sigma, steps, delta):
    acc = PldAccountant(width="0.001").compose(GaussianEvent(sigma), steps)
    res = acc.get_epsilon_result(delta)
    assert isinstance(res, ExactEpsilonResult)
    mu2 = F(steps) / sigma**2
    ref = gaussian_epsilon_mu2(mu2, delta, dps=100)
    assert _inside(res.epsilon, ref, F(1, 10**25))
    lo, hi = exact_endpoints(res.epsilon.ball)
    assert hi - lo <= F(1, 1000)
    assert _rel_width(res.epsilon) < F(1, 10**15)


def test_gaussian_epsilon_zero_when_delta_at_zero_is_below_target():
    """sigma 100, one step: delta(0) = erf(1/(200 sqrt 2)) ~ 0.004 < 0.01, so epsilon = 0."""
    res = PldAccountant().compose(GaussianEvent(100), 1).get_epsilon_result(F(1, 100))
    assert gaussian_delta_mu2(F(1, 10**4), 0) < mpmath.mpf("0.01")
    assert exact_endpoints(res.epsilon.ball) == (F(0), F(0))


def test_gaussian_huge_mu_delta_near_one():
    """mu = 1e6, delta = 1 - 1e-6 (Newton used to bisect towards a = -mu/2 after a step
    within the noise left the bracket): the bracket is tight, and the mpmath closed form
    is above delta at its lower end and below at its upper end."""
    t = 1 - F(1, 10**6)
    acc = PldAccountant().compose(GaussianEvent(F(1, 1000)), 10**6)
    lo, hi = exact_endpoints(acc.get_epsilon(t).ball)
    assert 0 < hi - lo < F(1, 10**4)
    with mpmath.workdps(60):
        assert gaussian_delta_mu2(F(10**12), lo, dps=60) > _mp(t) > gaussian_delta_mu2(F(10**12), hi, dps=60)


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def test_gaussian_requested_width_is_met():
    acc = PldAccountant().compose(GaussianEvent(F(1, 100)), 1000)  # mu ~ 3162
    lo, hi = exact_endpoints(acc.get_epsilon(F(1, 10**5), width=F(1, 10**12)).ball)
    assert hi - lo <= F(1, 10**12)
    assert lo <= _frac(gaussian_epsilon_mu2(F(10**7), F(1, 10**5), dps=100)) <= hi


# -- randomized response ------------------------------------------------------------


@pytest.mark.parametrize("p", [F(3, 4), F(1, 3), F(99, 100), F(51, 100)])
@pytest.mark.parametrize("steps", [1, 2, 5, 30])
def test_rr_total_variation_is_exact(p, steps):
    """delta(0) is the exact rational total-variation distance of the two binomial laws."""
    d = PldAccountant().compose(RandomizedResponseEvent(p), steps).get_delta(0)
    lo, hi = exact_endpoints(d.ball)
    tv = rr_total_variation(p, steps)
    assert lo <= tv <= hi
    assert hi - lo <= tv * F(1, 10**15)


@pytest.mark.parametrize("p", [F(3, 4), F(1, 3), F(99, 100)])
@pytest.mark.parametrize("steps", [1, 3, 20, 200])
def test_rr_delta_matches_exact_sum(p, steps):
    acc = PldAccountant().compose(RandomizedResponseEvent(p), steps)
    pp = max(p, 1 - p)
    top = float(steps * mpmath.log(pp / (1 - pp)))
    for eps in (F(1, 2), F(top / 3), F(top * 0.9), F(top * 1.01)):
        res = acc.get_delta_result(eps)
        assert isinstance(res, ExactDeltaResult)
        ref = rr_delta(p, steps, eps, dps=80)
        assert _inside(res.delta, ref, F(1, 10**30))
        if ref > 0:
            assert _rel_width(res.delta) < F(1, 10**15)
        else:
            assert exact_endpoints(res.delta.ball) == (F(0), F(0))


@pytest.mark.parametrize(
    "p, steps, delta",
    [
        (F(3, 4), 1, F(1, 10**5)),
        (F(3, 4), 10, F(1, 10)),
        (F(99, 100), 100, F(1, 10**5)),
        (F(99, 100), 100, F(1, 10**100)),
        (F(3, 4), 1000, F(1, 10**5)),
        (F(6, 10), 2000, F(1, 10**9)),
    ],
)
def test_rr_epsilon_matches_bisection(p, steps, delta):
    res = PldAccountant().compose(RandomizedResponseEvent(p), steps).get_epsilon_result(delta)
    assert isinstance(res, ExactEpsilonResult)
    ref = rr_epsilon(p, steps, delta, dps=60)
    assert _inside(res.epsilon, ref, F(1, 10**30))
    assert _rel_width(res.epsilon) < F(1, 10**15)


def test_rr_epsilon_zero_and_half():
    # T = 1, p = 3/4: delta(0) = 1/2 exactly; any delta above it gives epsilon 0
    acc = PldAccountant().compose(RandomizedResponseEvent(F(3, 4)), 1)
    assert exact_endpoints(acc.get_epsilon(F(6, 10)).ball) == (F(0), F(0))
    # p = 1/2 releases nothing
    half = PldAccountant().compose(RandomizedResponseEvent(F(1, 2)), 50)
    assert exact_endpoints(half.get_epsilon(F(1, 10**5)).ball) == (F(0), F(0))
    assert exact_endpoints(half.get_delta(0).ball) == (F(0), F(0))


def test_rr_window_tail_bounds_at_large_T():
    """T = 1e6: the windowed sum with geometric tail bounds against the exact sum of the
    mpmath reference restricted to the same threshold (its terms computed independently
    from log-gamma; the omitted terms there are below 1e-300 of the sum)."""
    p, T = F(3, 4), 10**6
    eps = F(560_000)
    d = PldAccountant().compose(RandomizedResponseEvent(p), T).get_delta(eps)
    with mpmath.workdps(50):
        ell = mpmath.log(3)
        k0 = int(mpmath.floor((T + int(eps) / ell) / 2)) + 1
        total = mpmath.mpf(0)
        for k in range(k0, min(T, k0 + 20000) + 1):
            logpk = mpmath.loggamma(T + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(T - k + 1)
            logpk += k * mpmath.log(mpmath.mpf(3) / 4) + (T - k) * mpmath.log(mpmath.mpf(1) / 4)
            total += mpmath.exp(logpk) * (1 - mpmath.exp(int(eps) - (2 * k - T) * ell))
    assert _inside(d, total, F(1, 10**35))


# -- the grid bracket contains the exact value (small T) ------------------------------


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_grid_bracket_contains_exact_gaussian(steps):
    grid = PldAccountant(width="0.01", exact=False).compose(GaussianEvent(F(3, 2)), steps)
    exact = PldAccountant().compose(GaussianEvent(F(3, 2)), steps)
    for delta in (F(1, 10**3), F(1, 10**6)):
        glo, ghi = exact_endpoints(grid.get_epsilon(delta).ball)
        elo, ehi = exact_endpoints(exact.get_epsilon(delta).ball)
        assert glo <= elo <= ehi <= ghi
    glo, ghi = exact_endpoints(grid.get_delta(F(1, 2)).ball)
    elo, ehi = exact_endpoints(exact.get_delta(F(1, 2)).ball)
    assert glo <= elo <= ehi <= ghi


@pytest.mark.parametrize("steps", [1, 2, 5])
def test_grid_bracket_contains_exact_rr(steps):
    grid = PldAccountant(width="0.01", exact=False).compose(RandomizedResponseEvent(F(3, 4)), steps)
    exact = PldAccountant().compose(RandomizedResponseEvent(F(3, 4)), steps)
    glo, ghi = exact_endpoints(grid.get_epsilon(F(1, 10**3)).ball)
    elo, ehi = exact_endpoints(exact.get_epsilon(F(1, 10**3)).ball)
    assert glo <= elo <= ehi <= ghi
    for eps in (F(0), F(1, 2)):
        glo, ghi = exact_endpoints(grid.get_delta(eps).ball)
        elo, ehi = exact_endpoints(exact.get_delta(eps).ball)
        assert glo <= elo <= ehi <= ghi


# -- dispatch -------------------------------------------------------------------------


def test_dispatch_only_for_plain_ledgers():
    assert closed_form_of([(RandomizedResponseEvent(F(1, 4)), 2), (RandomizedResponseEvent(F(3, 4)), 3)]) == (
        RandomizedResponseComposition(F(3, 4), 5)
    )
    assert closed_form_of([(RandomizedResponseEvent(F(3, 4)), 2), (RandomizedResponseEvent(F(2, 3)), 3)]) is None
    assert closed_form_of([(GaussianEvent(1), 2), (RandomizedResponseEvent(F(3, 4)), 3)]) is None
    assert closed_form_of([(LaplaceEvent(1), 2), (GaussianEvent(1), 1)]) is None
    assert closed_form_of([(PoissonSampledEvent(GaussianEvent(1), F(1, 2)), 2)]) is None
    assert closed_form_of([(PoissonSampledEvent(GaussianEvent(2), 1), 4)]) == GaussianComposition(F(1))
    # a fixed grid or exact=False keeps the grid path
    assert not isinstance(
        PldAccountant(grid=200).compose(GaussianEvent(1), 2).get_epsilon_result(F(1, 10**3)), ExactEpsilonResult
    )


def test_exact_result_json():
    res = PldAccountant().compose(GaussianEvent(1), 4).get_epsilon_result(F(1, 10**5)).to_json()
    assert res["method"] == "pld" and "exact" in res["pld"] and F(res["pld"]["parameters"]["mu_squared"]) == 4
    assert F(res["epsilon"]["lower"]) <= _frac(gaussian_epsilon_mu2(F(4), F(1, 10**5))) <= F(res["epsilon"]["upper"])


# -- speed (the "no such query takes more than 1 s"; generous bound here) --------


@pytest.mark.parametrize(
    "event, steps, delta",
    [
        (GaussianEvent(F(1, 2)), 10_000, F(1, 1000)),
        (GaussianEvent(F(1, 10)), 10**6, F(1, 10**100)),
        (RandomizedResponseEvent(F(99, 100)), 100, F(1, 10**5)),
        (RandomizedResponseEvent(F(3, 4)), 10**6, F(1, 10**5)),
        (RandomizedResponseEvent(F(99, 100)), 10**6, F(1, 10**100)),
    ],
)
def test_exact_queries_are_fast(event, steps, delta):
    t = time.perf_counter()
    acc = PldAccountant(width="0.001").compose(event, steps)
    eps = acc.get_epsilon(delta)
    acc.get_delta(F(eps.upper_float()))
    assert time.perf_counter() - t < 5.0


# -- no numerical noise ------------------------------------------------------------------


def test_grid_screen_without_overflow_warning(monkeypatch):
    """The float screen of the grid path took log((a - delta) / b) in numpy scalars: a tiny
    b (a subnormal tail mass, as in randomized response p = 3/4, 1000 steps) overflowed with
    a RuntimeWarning.  Now a difference of logs; the guess is clipped to the grid cell."""
    import numpy as np

    from rigorous_rdp.pld import accountant as A

    screen = (np.array([0.0, 1.0]), np.array([1.0, 0.0]), np.array([1e-320, 0.0]))
    monkeypatch.setattr(A, "delta_screen", lambda P, n: screen)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert A._screen_eps(None, 1, 1e-5) == 1.0  # log((1 - 1e-5) / 1e-320) ~ 737, clipped to 1
    # and the grid path on such a ledger stays silent and contains the exact value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        monkeypatch.undo()
        acc = PldAccountant(width="0.5", exact=False).compose(RandomizedResponseEvent(F(3, 4)), 200)
        lo, hi = exact_endpoints(acc.get_epsilon(F(1, 10**5)).ball)
    assert lo <= _frac(rr_epsilon(F(3, 4), 200, F(1, 10**5))) <= hi


# -- delta at epsilon = 0 (API and CLI) ----------------------------------------------------


def _cli(argv, capsys):
    from rigorous_rdp.cli import main

    code = main([*argv, "--json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else out.err)


@pytest.mark.parametrize("method", ["rdp", "pld", "best"])
def test_cli_delta_at_epsilon_zero(method, capsys):
    code, res = _cli(["delta", "--sigma", "1", "--steps", "10", "--epsilon", "0", "--method", method], capsys)
    assert code == 0, res
    tv = _frac(gaussian_delta_mu2(F(10), 0))  # erf(sqrt(10) / (2 sqrt 2))
    assert F(res["delta"]["upper"]) >= tv
    if method != "rdp":
        assert F(res["delta"]["lower"]) <= tv


def test_cli_delta_epsilon_range(capsys):
    code, err = _cli(["delta", "--sigma", "1", "--steps", "10", "--epsilon", "-1"], capsys)
    assert code == 2 and "--epsilon must be a number in [0, 1e100000)" in err and len(err.strip().splitlines()) == 1
    # epsilon 0 stays refused where it is a target to meet (calibrate)
    code, err = _cli(["calibrate", "--steps", "10", "--epsilon", "0", "--delta", "1e-5"], capsys)
    assert code == 2 and "--epsilon" in err


# -- dp-accounting's PLD on a fine grid (sanity check with a tolerance) ------------------


@pytest.mark.parametrize(
    "kind, param, steps, delta", [("gaussian", 2.0, 50, 1e-5), ("gaussian", 10.0, 1000, 1e-6), ("rr", 0.75, 30, 1e-5)]
)
def test_near_dp_accounting_pld(kind, param, steps, delta):
    """dp-accounting's PLD is pessimistic with a discretisation error of order its grid
    (1e-4 here): the exact value must lie within 1% below its epsilon."""
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant, privacy_loss_distribution

    if kind == "gaussian":
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
        ev = dpa.dp_event.SelfComposedDpEvent(dpa.dp_event.GaussianDpEvent(param), steps)
        theirs = acc.compose(ev).get_epsilon(delta)
        ours = GaussianEvent(F(param))
    else:
        # the PLD object directly: dp-accounting 0.6.0's PLDAccountant answers a
        # self-composed RandomizedResponseDpEvent with the one-step value (count ignored)
        pld = privacy_loss_distribution.from_randomized_response(2 * (1 - param), 2, value_discretization_interval=1e-4)
        theirs = pld.self_compose(steps).get_epsilon_for_delta(delta)
        ours = RandomizedResponseEvent(F(param))
    eps = PldAccountant().compose(ours, steps).get_epsilon(F(delta))
    assert eps.lower_float() <= theirs * (1 + 1e-9) + 1e-9
    assert theirs <= eps.upper_float() * 1.01 + 1e-3


@pytest.mark.parametrize("steps", [1, 2, 3, 6, 7])
def test_rr_epsilon_at_exact_ties(steps):
    """delta equal to the profile at 0 or at an atom: both are rationals, so a rational target
    can tie; the comparison is then decided exactly (epsilon = 0, or the atom's loss)."""
    p = F(3, 4)
    acc = PldAccountant().compose(RandomizedResponseEvent(p), steps)
    tv = rr_total_variation(p, steps)
    assert exact_endpoints(acc.get_epsilon(tv).ball) == (F(0), F(0))
    # the profile at the atom l_k = (2k - T) log 3, k = T: delta(l_{T-1}) = P(T) (1 - 1/9)
    k = steps - 1
    if 2 * k > steps:
        at_atom = p**steps * (1 - F(1, 9))
        lo, hi = exact_endpoints(acc.get_epsilon(at_atom).ball)
        with mpmath.workdps(40):
            assert lo <= _frac((2 * k - steps) * mpmath.log(3)) <= hi
