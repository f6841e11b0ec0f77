"""``rigorous-rdp profile``: the certified privacy profile and trade-off curve.

Independent values: the Gaussian closed forms in mpmath (the profile of Balle & Wang 2018,
Thm 8, and the trade-off curve G_mu(x) = Phi(Phi^-1(1 - x) - mu) of mu-GDP, Dong, Roth, Su
2022, which is the envelope of that profile), the pure-DP Laplace mechanism (delta = 0 from
epsilon = 1/scale on), and the exact binomial sum of composed randomized response.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from _cli import assert_one_line_error, cmd, run_cli


def _json(command: str) -> dict:
    status, out, err = run_cli(cmd(command + " --json"))
    assert status == 0, err
    return json.loads(out)


def _gaussian_delta(mu, eps):
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _contains(pair: dict, value) -> bool:
    return mpmath.mpf(pair["lower"]) <= value <= mpmath.mpf(pair["upper"])


def test_gaussian_profile_and_tradeoff_against_closed_forms():
    mpmath.mp.dps = 40
    res = _json("profile --sigma 2 --steps 10 --num 11 --fpr 0 1e-6 0.001 0.1 0.5 1")
    mu = mpmath.sqrt(10) / 2
    assert len(res["profile"]) == 11 and res["profile"][0]["epsilon"] == "0"
    for row in res["profile"]:
        assert _contains(row["delta"], _gaussian_delta(mu, mpmath.mpf(row["epsilon"]))), row
    for row in res["tradeoff"]:
        x = mpmath.mpf(row["fpr"])
        truth = mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * x) - mu) if 0 < x < 1 else 1 - x
        fnr = row["fnr"]
        assert _contains(fnr, truth), (row, truth)
        if 1e-6 <= x < 1:
            # the bracket is tight where it matters: within 1% of the truth (absolute 0.005)
            assert mpmath.mpf(fnr["upper"]) - mpmath.mpf(fnr["lower"]) <= 0.005 + 0.01 * truth
    assert res["method"] == "pld" and res["steps"] == 10
    assert res["mechanism"] == {"noise": "gaussian", "sigma": "2", "sampling": "none", "adjacency": "add-remove"}


def test_laplace_is_pure_dp_and_randomized_response_exact():
    mpmath.mp.dps = 40
    res = _json("profile --noise laplace --scale 2 --steps 3 --epsilons 0 1 1.5 2")
    by_eps = {row["epsilon"]: row["delta"] for row in res["profile"]}
    assert Fraction(by_eps["1.5"]["lower"]) == 0 and Fraction(by_eps["1.5"]["upper"]) < Fraction(1, 10**20)
    assert Fraction(by_eps["2"]["upper"]) < Fraction(1, 10**20)
    assert Fraction(by_eps["0"]["lower"]) > Fraction(by_eps["1"]["upper"]) > 0
    # a (1.5, 0)-DP mechanism: every test has FNR >= max(1 - e^1.5 x, e^-1.5 (1 - x))
    for row in _json("profile --noise laplace --scale 2 --steps 3 --num 5 --fpr 0.01 0.3")["tradeoff"]:
        x = mpmath.mpf(row["fpr"])
        assert mpmath.mpf(row["fnr"]["lower"]) >= max(1 - mpmath.exp(1.5) * x, mpmath.exp(-1.5) * (1 - x)) - 1e-6
    # randomized response keeping the bit w.p. 3/4, 8 steps: the loss is (2k - 8) log 3, k ~ Bin(8, 3/4)
    keep, steps = mpmath.mpf(3) / 4, 8
    loss = mpmath.log(3)
    res = _json(f"profile --noise randomized-response --p 0.75 --steps {steps} --epsilons 0 1 2.5 4")
    for row in res["profile"]:
        eps = mpmath.mpf(row["epsilon"])
        exact = mpmath.fsum(
            mpmath.binomial(steps, k)
            * keep**k
            * (1 - keep) ** (steps - k)
            * max(0, 1 - mpmath.exp(eps - (2 * k - steps) * loss))
            for k in range(steps + 1)
        )
        assert _contains(row["delta"], exact), (row, exact)


def test_fixed_size_lower_ends_are_zero_and_said_so():
    res = _json("profile --sampling fswor --batch-size 10 --dataset-size 1000 --sigma 1 --steps 10 --num 3")
    assert all(row["delta"]["lower"] == "0" for row in res["profile"])
    assert "only dominate" in res["claims"]["delta"]
    assert all(Fraction(row["fnr"]["lower"]) <= Fraction(row["fnr"]["upper"]) for row in res["tradeoff"])


def test_text_output_and_plot(tmp_path):
    plot = tmp_path / "profile.png"
    status, out, err = run_cli(cmd(f"profile --sigma 3 --steps 4 --num 4 --fpr 0.1 --plot {plot}"))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "privacy profile, 4 steps (certified bracket of the true optimal delta):"
    assert lines[-1] == f"plot written to {plot}"
    data = plot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000


@pytest.mark.parametrize(
    ("args", "option"),
    [
        ("--sigma 1 --steps 0", "--steps must be an integer in [1, 1e18]. Found 0."),
        ("--sigma 1 --steps 10 --epsilons -1", "--epsilons must be numbers in [0, 1000]. Found -1."),
        ("--sigma 1 --steps 10 --epsilons nan", "--epsilons must be numbers in [0, 1000]. Found nan."),
        ("--sigma 1 --steps 10 --num 1", "--num must be an integer in [2, 1000]. Found 1."),
        ("--sigma 1 --steps 10 --fpr 2", "--fpr must be numbers in [0, 1]. Found 2."),
        ("--sigma 1 --steps 10 --plot x.txt", "--plot must name a .png, .pdf or .svg file"),
        ("--sigma 1 --steps 10 --width 0", "--width must be in (0, 10]"),
        ("--sigma 1 --steps 10 --epsilon-max 0", "--epsilon-max must be in (0, 1000]. Found 0."),
        ("--sigma 1 --steps 10 --epsilons 1 --epsilon-max 3", "--epsilon-max applies to --num"),
        ("--sigma 1 --steps 10 --bound tight", "--bound chooses an RDP bound"),
        ("--sigma -1 --steps 10", "--sigma must be a number in (0, 1e100000). Found -1."),
        ("--sampling fswr --batch-size 3 --dataset-size 100 --sigma 1 --steps 3", "the PLD accountant has no"),
    ],
)
def test_bad_input_one_line_errors(args, option):
    status, out, err = run_cli(cmd("profile " + args))
    assert_one_line_error(status, out, err)
    assert option in err, err


def test_randomized_response_tradeoff_is_the_neyman_pearson_curve():
    # 8 steps of randomized response keeping the bit w.p. 3/4: the pair is (Bin(8, 3/4), Bin(8, 1/4))
    # in the count k of kept bits, symmetric, so its trade-off curve is the Neyman-Pearson curve
    # (reject where Q/P is largest, i.e. small k first; linear between atoms), which is also the
    # envelope of its privacy profile: it must lie in every bracket, kinks included
    mpmath.mp.dps = 40
    steps, keep = 8, mpmath.mpf(3) / 4
    P = [mpmath.binomial(steps, k) * keep**k * (1 - keep) ** (steps - k) for k in range(steps + 1)]
    Q = P[::-1]

    def f(x):
        alpha = power = mpmath.mpf(0)
        for k in range(steps + 1):
            if alpha + P[k] >= x:
                return 1 - (power + Q[k] * (x - alpha) / P[k])
            alpha, power = alpha + P[k], power + Q[k]
        return mpmath.mpf(0)

    fprs = "1e-6 1e-4 0.001 0.01 0.05 0.1 0.2 0.3 0.5 0.7 0.9"
    res = _json(f"profile --noise randomized-response --p 0.75 --steps {steps} --fpr {fprs}")
    assert len(res["tradeoff"]) == 11
    for row in res["tradeoff"]:
        truth = f(mpmath.mpf(row["fpr"]))
        assert _contains(row["fnr"], truth), (row, truth)
        assert mpmath.mpf(row["fnr"]["lower"]) >= truth * (1 - mpmath.mpf("0.01"))  # the guarantee is close


@pytest.mark.peers
def test_poisson_profile_overlaps_dp_accounting_pld():
    # dp-accounting's PLD (interval 1e-4) is a float computation with its own discretisation error:
    # its delta must lie within 1% of the certified bracket, never compared exactly
    dp_accounting = pytest.importorskip("dp_accounting")
    res = _json("profile --sampling poisson --q 0.05 --sigma 1 --steps 100 --epsilons 0.5 1 2 4")
    event = dp_accounting.PoissonSampledDpEvent(0.05, dp_accounting.GaussianDpEvent(1.0))
    peer = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4).compose(event, 100)
    for row in res["profile"]:
        d = peer.get_delta(float(row["epsilon"]))
        lo, up = float(row["delta"]["lower"]), float(row["delta"]["upper"])
        assert lo * 0.99 <= d <= up * 1.01, (row, d)
