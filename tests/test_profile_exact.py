"""Exact trade-off curves and the other review fixes of ``rigorous-rdp profile`` and the PLD text.

Independent values: mpmath at 60+ digits (the normal quantile by root finding on
``log ncdf``, G_mu(x) = Phi(Phi^-1(1 - x) - mu) of mu-GDP, Dong, Roth, Su 2022, the Gaussian
profile of Balle & Wang 2018, Thm 8), the Neyman-Pearson curve of two binomial laws summed
term by term in mpmath at 700 digits, and the closed form of a mechanism that releases
nothing (delta = 0, epsilon = 0, trade-off 1 - x).
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest
from _cli import cmd, run_cli
from flint import arb

from rigorous_rdp.arith import workprec
from rigorous_rdp.best import decimal_key
from rigorous_rdp.cli.profile import ProfilePoint, width_report
from rigorous_rdp.pld.closed_form import GaussianComposition, RandomizedResponseComposition, normal_isf_bracket


def _json(command: str) -> dict:
    status, out, err = run_cli(cmd(command + " --json"))
    assert status == 0, err
    return json.loads(out)


def _text(command: str) -> str:
    status, out, err = run_cli(cmd(command))
    assert status == 0, err
    return out


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _ends(ball: arb) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The ball's ends (exact at 4096 bits) as mpmath numbers rounded outward to 200 digits."""
    with workprec(4096), mpmath.workdps(220):
        lo, hi = ball.lower(), ball.upper()
        a, b = mpmath.mpf(lo.str(200, radius=False)), mpmath.mpf(hi.str(200, radius=False))
        return a - abs(a) * mpmath.mpf(10) ** -199, b + abs(b) * mpmath.mpf(10) ** -199


def _isf(x: mpmath.mpf) -> mpmath.mpf:
    """Phi_bar^-1(x) by root finding on log ncdf (mpmath, independent of Arb's erfcinv)."""
    if x > mpmath.mpf(1) / 2:
        return -_isf(1 - x)
    z0 = mpmath.sqrt(-2 * mpmath.log(x))
    return mpmath.findroot(lambda z: mpmath.log(mpmath.ncdf(-z)) - mpmath.log(x), z0)


def _contains(pair: dict, value: mpmath.mpf) -> bool:
    return mpmath.mpf(pair["lower"]) <= value <= mpmath.mpf(pair["upper"])


XS = [F(1, 10**300), F(1, 10**6), F(1, 1000), F(1, 10), F(1, 2), F(9, 10), 1 - F(1, 10**20)]


@pytest.mark.parametrize("x", XS, ids=lambda x: f"x={float(x):.3g}")
def test_normal_quantile_bracket_contains_mpmath(x):
    with mpmath.workdps(80):
        truth = _isf(_mp(x))
        lo, hi = normal_isf_bracket(x, F(1, 2**70))
        assert _mp(lo) <= truth <= _mp(hi)
        assert hi - lo <= F(1, 2**69)


@pytest.mark.parametrize("mu2", [F(5, 2), F(10**6), F(1, 10**12), F(1, 1000)], ids=lambda m: f"mu2={float(m):.3g}")
@pytest.mark.parametrize("x", XS, ids=lambda x: f"x={float(x):.3g}")
def test_gaussian_tradeoff_is_g_mu(mu2, x):
    with mpmath.workdps(80):
        mu = mpmath.sqrt(_mp(mu2))
        truth = mpmath.ncdf(_isf(_mp(x)) - mu)  # Phi(Phi^-1(1 - x) - mu), Phi^-1(1 - x) = Phi_bar^-1(x)
        ball = GaussianComposition(mu2).tradeoff(x)
        lo, hi = _ends(ball)
        assert lo <= truth <= hi, (ball, truth)
        assert hi - lo <= truth * mpmath.mpf(2) ** -60  # width, separately


def test_gaussian_tradeoff_is_the_envelope_of_the_profile():
    # F(x) = sup over eps >= 0 of max(0, 1 - delta - e^eps x, e^-eps (1 - delta - x)) with the exact
    # profile (mpmath): on a fine grid of eps it approaches G_mu from below and never exceeds it
    mu = mpmath.mpf(3) / 2
    with mpmath.workdps(40):

        def delta(e):
            return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)

        grid = [mpmath.mpf(k) / 200 for k in range(0, 2001)]
        deltas = [delta(e) for e in grid]
        for x in (F(1, 1000), F(1, 10), F(1, 2), F(4, 5)):
            xm = _mp(x)
            env = max(
                max(0, 1 - d - mpmath.exp(e) * xm, mpmath.exp(-e) * (1 - d - xm))
                for e, d in zip(grid, deltas, strict=True)
            )
            lo, hi = _ends(GaussianComposition(F(9, 4)).tradeoff(x))
            assert env <= hi and env >= lo - mpmath.mpf("1e-4"), (x, env, lo)


def _np_curve(steps: int, keep: mpmath.mpf, x: mpmath.mpf) -> mpmath.mpf:
    """The Neyman-Pearson curve of (Bin(T, keep), Bin(T, 1 - keep)), term by term."""
    P = [mpmath.binomial(steps, k) * keep**k * (1 - keep) ** (steps - k) for k in range(steps + 1)]
    Q = P[::-1]
    alpha = power = mpmath.mpf(0)
    for k in range(steps + 1):
        if alpha + P[k] >= x:
            return 1 - (power + Q[k] * (x - alpha) / P[k])
        alpha, power = alpha + P[k], power + Q[k]
    return mpmath.mpf(0)


@pytest.mark.parametrize(("p", "steps"), [(F(3, 4), 1), (F(3, 4), 8), (F(99, 100), 30), (F(3, 4), 1000)])
@pytest.mark.parametrize("x", [F(1, 10**6), F(1, 4), F(1, 10), F(1, 2), F(9, 10)], ids=lambda x: f"x={float(x):.3g}")
def test_randomized_response_tradeoff_is_the_neyman_pearson_curve(p, steps, x):
    # 700 digits: the term-by-term sum 1 - (...) cancels down to 1e-258 at T = 1000
    with mpmath.workdps(700):
        truth = _np_curve(steps, _mp(p), _mp(x))
        lo, hi = _ends(RandomizedResponseComposition(p, steps).tradeoff(x))
        assert lo <= truth <= hi, (lo, truth, hi)
        assert hi - lo <= truth * mpmath.mpf(2) ** -55


def test_profile_gaussian_million_steps_is_exact_and_tiny_values_kept():
    res = _json("profile --sigma 1 --steps 1000000 --num 5 --fpr 1e-6 0.5")
    assert res["pld"]["tradeoff"] == "exact" and res["pld"]["width_reached"] is True
    mu = mpmath.mpf(1000)
    with mpmath.workdps(60):
        for row in res["profile"]:
            e = mpmath.mpf(row["epsilon"])
            truth = mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
            assert _contains(row["delta"], truth), (row, truth)
        for row in res["tradeoff"]:
            truth = mpmath.ncdf(_isf(mpmath.mpf(row["fpr"])) - mu)
            assert _contains(row["fnr"], truth), (row, truth)
            assert mpmath.mpf(row["fnr"]["upper"]) <= truth * (1 + mpmath.mpf("1e-5"))
    # the last delta (about 1e-19547) has a positive lower end: a two-sided bracket
    assert res["profile"][-1]["delta"]["lower"] != "0"


def test_profile_randomized_response_tradeoff_exact_in_the_table():
    res = _json("profile --noise randomized-response --p 0.75 --steps 8 --num 3 --fpr 0.001 0.25 0.5")
    assert res["pld"]["tradeoff"] == "exact"
    with mpmath.workdps(60):
        for row in res["tradeoff"]:
            truth = _np_curve(8, mpmath.mpf(3) / 4, mpmath.mpf(row["fpr"]))
            assert _contains(row["fnr"], truth), (row, truth)
            assert mpmath.mpf(row["fnr"]["upper"]) - mpmath.mpf(row["fnr"]["lower"]) <= truth * mpmath.mpf("1e-5")


def test_width_report_flags_a_wide_bracket():
    pts = [
        ProfilePoint(F(0), arb("0.5"), arb("0.5")),
        ProfilePoint(F(1), arb("0.1"), arb("0.102")),  # relative width 0.0196
        ProfilePoint(F(2), arb(0), arb("1e-12")),  # below 1e-9: not counted
    ]
    reached, largest, where = width_report(pts, F(1, 100))
    assert not reached and where == 1 and 0.0195 < largest < 0.0197
    assert width_report(pts, F(1, 50))[0]


def test_profile_grid_width_not_reached_is_said(monkeypatch):
    # the grid capped at 300 points (a fixed cap, not a time budget) cannot reach 1e-9
    from functools import partial

    from rigorous_rdp.pld import accountant

    monkeypatch.setattr(accountant, "PldAccountant", partial(accountant.PldAccountant, max_grid=300))
    command = "profile --sampling poisson --q 0.05 --sigma 1 --steps 3 --epsilons 0.5 --fpr 0.1 --width 1e-9"
    res = _json(command)
    pld = res["pld"]
    assert pld["requested_width"] == "1e-9" and pld["width_reached"] is False
    assert float(pld["largest_relative_width"]) > 1e-9 and pld["at_epsilon"] == "0.5"
    assert "requested relative width 1e-9 of the delta brackets not reached" in _text(command)


def test_delta_at_huge_epsilon_is_certified_to_its_width():
    res = _json("delta --sigma 1 --steps 1 --epsilon 1e6 --method pld")
    with mpmath.workdps(60):
        e = mpmath.mpf(10) ** 6
        truth = mpmath.ncdf(-e + mpmath.mpf(1) / 2) - mpmath.exp(e) * mpmath.ncdf(-e - mpmath.mpf(1) / 2)
        lo, up = mpmath.mpf(res["delta"]["lower"]), mpmath.mpf(res["delta"]["upper"])
        assert lo <= truth <= up and up - lo <= truth * mpmath.mpf("1e-15")
    assert res["pld"]["width_reached"] is True
    # and `best` now reports it: smaller than the RDP bound
    assert _json("delta --sigma 1 --steps 1 --epsilon 1e6")["chosen"] == "pld"


def test_delta_width_not_reached_is_flagged():
    command = "delta --sigma 1 --steps 100 --epsilon 1 --width 1e-3000 --method pld"
    assert _json(command)["pld"]["width_reached"] is False
    assert "requested relative width 1e-3000 not reached" in _text(command)


@pytest.mark.parametrize(
    ("noise", "adjacency"),
    [
        ("--sigma 1", "add-remove"),
        ("--sigma 1", "replace-one"),
        ("--noise laplace --scale 1", "add-remove"),  # replace-one: no Poisson bound in the table
        ("--noise randomized-response --p 0.75", "add-remove"),
    ],
)
def test_q_zero_is_answered_in_closed_form(noise, adjacency):
    base = f"{noise} --sampling poisson --q 0 --adjacency {adjacency} --steps 10"
    eps = _json(f"epsilon {base} --delta 1e-5 --method pld")
    assert eps["epsilon"] == {"lower": "0", "upper": "0"}
    assert "sampling probability q = 0" in eps["pld"]["exact"] and "grid_width" not in eps["pld"]
    d = _json(f"delta {base} --epsilon 0 --method pld")
    assert d["delta"] == {"lower": "0", "upper": "0"} and "exact" in d["pld"]
    prof = _json(f"profile {base} --num 2 --fpr 0.25")
    assert all(row["delta"] == {"lower": "0", "upper": "0"} for row in prof["profile"])
    fnr = prof["tradeoff"][0]["fnr"]
    assert _contains(fnr, mpmath.mpf("0.75")) and prof["pld"]["tradeoff"] == "exact"


def test_text_names_the_larger_direction():
    out = _text(
        "epsilon --noise randomized-response --p 0.75 --sampling poisson --q 0.01 --steps 1000 --delta 1e-5"
        " --method pld"
    )
    res = _json(
        "epsilon --noise randomized-response --p 0.75 --sampling poisson --q 0.01 --steps 1000 --delta 1e-5"
        " --method pld"
    )
    dirs = res["pld"]["directions"]
    larger = max(dirs, key=lambda k: decimal_key(dirs[k]["epsilon"]["lower"]))
    other = next(k for k in dirs if k != larger)
    assert decimal_key(dirs[larger]["epsilon"]["lower"]) > decimal_key(dirs[other]["epsilon"]["upper"])
    assert f"larger direction: {larger} (" in out


def test_larger_only_when_strictly_larger():
    out = _text("epsilon --sigma 1 --sampling poisson --q 0 --steps 10 --delta 1e-5")
    assert "(larger" not in out and "(equal)" in out
