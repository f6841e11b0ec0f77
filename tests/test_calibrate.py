"""Calibration: the returned sigma meets the target, a 2% smaller one does not; step budgets."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from _cli import cmd

from rigorous_rdp import GaussianEvent, PoissonSampledEvent, RdpAccountant
from rigorous_rdp.calibrate import calibrate_sigma, decimal_text, max_steps
from rigorous_rdp.cli import main
from rigorous_rdp.events import FixedSizeSampledEvent


def _up(res):
    return Fraction(res.epsilon.to_json()["upper"])


def _lo(res):
    return Fraction(res.epsilon.to_json()["lower"])


def _eps(event, steps, delta="1e-5", digits=8):
    return RdpAccountant(digits=digits).compose(event, steps).get_epsilon_and_order(delta)


def _reference_eps_poisson(q, sigma, steps, alpha, delta):
    """mpmath reference: CKS conversion of steps * RDP(alpha) from the reference registry."""
    from rigorous_rdp.reference import reference_rdp

    mpmath.mp.dps = 40
    r = steps * reference_rdp(PoissonSampledEvent(GaussianEvent(sigma), q), alpha, 40)
    a = mpmath.mpf(alpha.numerator) / alpha.denominator
    return r + mpmath.log1p(-1 / a) - (mpmath.log(mpmath.mpf(delta)) + mpmath.log(a)) / (a - 1)


def test_calibrate_poisson_meets_target_and_2pct_smaller_does_not():
    q, steps, target = Fraction(1, 100), 1000, Fraction(1)
    res = calibrate_sigma(
        lambda s: PoissonSampledEvent(GaussianEvent(s), q),
        steps,
        target,
        "1e-5",
        sigma_digits=3,
        accountant=RdpAccountant(digits=8),
    )
    s = res.sigma
    assert res.sigma_lower < s and (s - res.sigma_lower) / s <= Fraction(1, 100)
    assert _up(res.epsilon) <= target
    assert _lo(res.epsilon_lower) > target
    # independent: mpmath reference at the order of the certified result is <= target
    if res.epsilon.order is not None and res.epsilon.conversion == "cks":
        ref = _reference_eps_poisson(q, s, steps, res.epsilon.order, "1e-5")
        assert ref <= 1
    smaller = s * Fraction(98, 100)
    assert _lo(_eps(PoissonSampledEvent(GaussianEvent(smaller), q), steps)) > target


def test_calibrate_gaussian_closed_form():
    # one Gaussian step, delta = 1e-5: the continuous CKS optimum is a lower bound on our epsilon
    res = calibrate_sigma(GaussianEvent, 1, 1, "1e-5", sigma_digits=3, accountant=RdpAccountant(digits=8))
    s = mpmath.mpf(res.sigma.numerator) / res.sigma.denominator
    mpmath.mp.dps = 30

    def f(a):
        return a / (2 * s * s) + mpmath.log1p(-1 / a) - (mpmath.log(mpmath.mpf("1e-5")) + mpmath.log(a)) / (a - 1)

    best = min(f(mpmath.mpf(1) + mpmath.mpf(k) / 100) for k in range(1, 3000))
    assert best <= 1
    assert _up(res.epsilon) <= 1
    assert _eps(GaussianEvent(res.sigma * Fraction(98, 100)), 1).epsilon.lower() > 1


def test_calibrate_fixed_size_when_supported():
    acc = RdpAccountant()
    ev = FixedSizeSampledEvent(GaussianEvent(1), 100, 10000)
    if not acc.supports(ev):
        pytest.skip("no certified fixed-size bound registered")
    res = calibrate_sigma(
        lambda s: FixedSizeSampledEvent(GaussianEvent(s), 100, 10000),
        100,
        2,
        "1e-5",
        sigma_digits=2,
        accountant=RdpAccountant(digits=6),
    )
    assert _up(res.epsilon) <= 2


def test_max_steps():
    ev = PoissonSampledEvent(GaussianEvent("1.1"), "0.01")
    b = max_steps(ev, 1, "1e-5", accountant=RdpAccountant(digits=8))
    assert b.steps >= 1
    assert _up(_eps(ev, b.steps)) <= 1
    assert _lo(_eps(ev, b.steps + 1)) > 1
    # one step of a noiseless-ish mechanism misses: zero steps
    assert max_steps(GaussianEvent("0.1"), 1, "1e-5", accountant=RdpAccountant(digits=6)).steps == 0


def test_dec_exact():
    assert decimal_text(Fraction(2279, 1000)) == "2.279"
    assert decimal_text(Fraction(81, 20)) == "4.05"
    assert decimal_text(Fraction(12000)) == "12000"


def test_cli_calibrate_json(capsys):
    rc = main(
        cmd(
            "calibrate --sampling poisson --q 0.01 --steps 1000 --epsilon 1 --delta 1e-5 --sigma-digits 3 --digits 8 --json"
            " --method rdp"
        )
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    api = calibrate_sigma(
        lambda s: PoissonSampledEvent(GaussianEvent(s), "0.01"),
        1000,
        1,
        "1e-5",
        sigma_digits=3,
        accountant=RdpAccountant(digits=8),
    )
    assert out["sigma"]["upper"] == decimal_text(api.sigma)
    assert out["sigma"]["lower"] == decimal_text(api.sigma_lower)


@pytest.mark.parametrize(
    "extra",
    [
        ["--steps", "10", "--epsilon", "0", "--delta", "1e-5"],
        ["--steps", "10", "--epsilon", "1", "--delta", "1.5"],
        ["--steps", "10", "--epsilon", "1", "--delta", "1e-5", "--sigma", "1"],
        ["--steps", "10", "--epsilon", "1", "--delta", "1e-5", "--sigma-digits", "0"],
        ["--epsilon", "1", "--delta", "1e-5"],
        ["--max-steps", "--epsilon", "1", "--delta", "1e-5"],
        ["--max-steps", "--sigma", "1", "--steps", "3", "--epsilon", "1", "--delta", "1e-5"],
        ["--steps", "-3", "--epsilon", "1", "--delta", "1e-5"],
        ["--steps", "10", "--epsilon", "nan", "--delta", "1e-5"],
    ],
    ids=[
        "eps0",
        "delta",
        "sigma-given",
        "sigma-digits",
        "no-steps",
        "max-steps-no-sigma",
        "max-steps-with-steps",
        "steps-neg",
        "eps-nan",
    ],
)
def test_cli_bad_input(extra, capsys):
    assert main(["calibrate", "--sampling", "poisson", "--q", "0.01", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rigorous-rdp: error: --")


# ---------------------------------------------------------------------------
# the two search helpers (exact answers known)
# ---------------------------------------------------------------------------


def test_first_true_finds_the_transition_from_either_side():
    from rigorous_rdp.calibrate import _first_true

    for start in (1, 36, 37, 38, 500, 10**6):
        calls = []

        def pred(n, calls=calls):
            calls.append(n)
            return n >= 37

        assert _first_true(pred, start, 0, 10**6) == 37
        assert 36 in calls and 37 in calls  # both sides of the claim were evaluated
    assert _first_true(lambda n: False, 5, 0, 1000) is None
    assert _first_true(lambda n: True, 5, 0, 1000) == 1


def test_solve_decreasing_matches_a_closed_form():
    from rigorous_rdp.calibrate import _solve_decreasing

    # f(x) = 3 / x crosses 0.7 at x = 30/7
    x = _solve_decreasing(lambda x: 3.0 / x, 0.7, 1e-6, 1e6)
    assert x is not None and abs(x - 30 / 7) < 1e-8 and 3.0 / x <= 0.7
    assert _solve_decreasing(lambda x: 3.0 / x, 1e-9, 1e-6, 1e6) is None


def test_calibration_uses_two_certified_evaluations_when_the_screen_is_right():
    from rigorous_rdp.calibrate import calibrate_sigma

    r = calibrate_sigma(lambda s: PoissonSampledEvent(GaussianEvent(s), "0.01"), 10000, 1, "1e-5")
    assert r.evaluations == 2
    # dp-accounting's calibrate_dp_mechanism gives 4.12580 on its grid of orders; our order
    # search is finer, so our certified answer is at most one grid step above it
    assert Fraction("4.125") <= r.sigma <= Fraction("4.126")
