"""``--method best`` (the default of epsilon, delta, dpsgd, calibrate, certify) and
:class:`rigorous_rdp.BestAccountant`: the smaller certified upper end of RDP and PLD, both
results with their claims, the RDP as the fallback where the PLD refuses or runs out of time.

Independent values: the closed form of the composed Gaussian (mpmath), the CKS conversion of
the Gaussian's closed-form RDP (mpmath), mpmath direct integration of the Poisson-subsampled
Gaussian (rigorous_rdp.reference.pld), and the pure-DP composition of the sampled Laplace.
Refusals of the PLD: sampling with replacement (fswr, no certified pair), an explicitly chosen RDP
bound, parameters outside the PLD grid's range.
"""

from __future__ import annotations

import dataclasses
import json
import time
from fractions import Fraction as F

import mpmath
import pytest
from _cli import assert_one_line_error, cmd, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from rigorous_rdp import (
    BestAccountant,
    DpEvent,
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RdpAccountant,
    UnsupportedEventError,
    ZhuWangSampledEvent,
)
from rigorous_rdp.arith import exact_endpoints
from rigorous_rdp.best import BestDeltaResult, BestEpsilonResult
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.reference.pld import gaussian_delta, poisson_gaussian_delta

DELTA = F(1, 10**5)


def _frac(x) -> F:
    return F(mpmath.nstr(x, 40, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))


def _ends(cert) -> tuple[F, F]:
    return exact_endpoints(cert.ball)


def _gaussian_root(sigma, steps, delta=DELTA):
    """The true optimal epsilon of ``steps`` Gaussians at ``delta`` (closed form, mpmath)."""
    with mpmath.workdps(40):
        target = mpmath.mpf(delta.numerator) / delta.denominator
        return mpmath.findroot(lambda e: gaussian_delta(sigma, steps, e) - target, 3)


def _cks_gaussian(sigma, steps, alpha, delta=DELTA):
    """CKS (Canonne, Kamath, Steinke 2020, Prop. 12) of the Gaussian's closed-form RDP
    ``steps * alpha / (2 sigma^2)`` at ``alpha`` (mpmath, 40 digits)."""
    with mpmath.workdps(40):
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        s = mpmath.mpf(sigma)
        rdp = steps * a / (2 * s * s)
        d = mpmath.mpf(delta.numerator) / delta.denominator
        return rdp + mpmath.log((a - 1) / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)


# ---------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------


def test_gaussian_epsilon_against_closed_forms():
    """4 Gaussians (sigma 2): the PLD (exact closed form) brackets the true epsilon and wins;
    the RDP result is the CKS conversion of the closed-form RDP at its order; the reported
    upper end is the smaller of the two."""
    res = BestAccountant().compose(GaussianEvent(2), 4).get_epsilon_result(DELTA)
    assert isinstance(res, BestEpsilonResult)
    root = _frac(_gaussian_root(2, 4))
    assert res.chosen == "pld" and res.result is res.pld
    lo, up = _ends(res.epsilon)
    assert lo <= root <= up
    assert res.epsilon is res.pld.epsilon
    # the RDP side: an upper bound (CKS of the closed-form RDP at the reported order)
    assert res.rdp.conversion == "cks"
    cks = _frac(_cks_gaussian(2, 4, res.rdp.order))
    rlo, rup = _ends(res.rdp.epsilon)
    assert rlo - F(1, 10**12) <= cks <= rup + F(1, 10**12)
    assert rup >= root
    assert up <= min(rup, _ends(res.pld.epsilon)[1])
    assert res.delta == DELTA
    assert "bracket of the true optimal value" in res.claim
    assert res.not_used == {} and res.refused == {}


def test_gaussian_delta_against_closed_form():
    res = BestAccountant().compose(GaussianEvent(2), 4).get_delta_result(1)
    assert isinstance(res, BestDeltaResult)
    ref = _frac(gaussian_delta(2, 4, 1))
    lo, up = _ends(res.delta)
    assert lo <= ref <= up
    assert up <= min(_ends(res.rdp.delta)[1], _ends(res.pld.delta)[1])
    assert res.epsilon == 1


def test_poisson_gaussian_delta_against_direct_integration():
    """q = 1/10, sigma = 1, T = 2: the reported delta contains mpmath's direct integration
    (the larger of the two directions) and is the smaller upper end of the two methods."""
    q, s = F(1, 10), F(1)
    acc = BestAccountant(pld=PldAccountant(width="0.001")).compose(PoissonSampledEvent(GaussianEvent(s), q), 2)
    res = acc.get_delta_result(F(1, 10))
    ref = max(poisson_gaussian_delta(q, s, 2, F(1, 10), d) for d in ("remove", "add"))
    lo, up = _ends(res.delta)
    slack = F(1, 10**12)  # the estimated error of the mpmath quadrature
    assert lo - slack <= _frac(ref) <= up + slack
    rdp_up = _ends(res.rdp.delta)[1]
    pld_up = _ends(res.pld.delta)[1]
    assert up == min(rdp_up, pld_up)
    assert res.chosen == ("pld" if pld_up <= rdp_up else "rdp")


def test_refused_pld_falls_back_to_rdp():
    """Poisson-sampled Laplace with an explicitly chosen RDP bound (Zhu & Wang's general bound):
    the PLD takes no RDP bound, so the RDP answers, with the reason; it is at most the pure-DP
    composition T log(1 + q (e^{1/b} - 1)) (an independent bound)."""
    q, b, steps = F(1, 10), F(2), 10
    ev = ZhuWangSampledEvent(LaplaceEvent(b), q, bound="general")
    res = BestAccountant().compose(ev, steps).get_epsilon_result(DELTA)
    assert res.chosen == "rdp" and res.pld is None
    assert res.not_used == {"pld": "an RDP bound was chosen (the PLD takes none)"}
    assert "takes no RDP bound" in res.refused["pld"]
    with mpmath.workdps(40):
        pure = steps * mpmath.log1p(mpmath.mpf(1) / 10 * mpmath.expm1(mpmath.mpf(1) / 2))
    assert _ends(res.epsilon)[1] <= _frac(pure) + F(1, 10**15)
    js = res.to_json()
    assert js["method"] == "best" and js["chosen"] == "rdp" and set(js["candidates"]) == {"rdp"}
    assert js["not_used"] == {"pld": "an RDP bound was chosen (the PLD takes none)"}


def test_fswr_refused_by_the_pld_only():
    ev = FixedSizeSampledEvent(GaussianEvent(F(11, 10)), 10, 1000, replacement=True)
    acc = BestAccountant().compose(ev, 5)
    res = acc.get_epsilon_result(DELTA)
    assert res.chosen == "rdp" and "no dominating pair" in res.refused["pld"]
    alone = RdpAccountant().compose(ev, 5).get_epsilon(DELTA)
    assert _ends(res.epsilon) == _ends(alone)


def test_pld_past_its_time_share_falls_back_to_rdp():
    """A PLD query limited to a microsecond (no machine composes 10,000 steps that fast) stops
    and leaves the RDP answer; the query itself does not fail."""
    acc = BestAccountant(pld_seconds=1e-6).compose(PoissonSampledEvent(GaussianEvent(F(11, 10)), F(1, 100)), 10000)
    t0 = time.monotonic()
    res = acc.get_epsilon_result(DELTA)
    assert time.monotonic() - t0 < 30
    assert res.chosen == "rdp" and res.pld is None
    assert res.not_used["pld"].startswith("it ran past its share of the time budget")
    assert 5.63 < res.epsilon.upper_float() < 5.64


@dataclasses.dataclass(frozen=True)
class _Unknown(DpEvent):
    """An event no accountant knows."""


def test_compose_is_all_or_nothing_and_refuses_when_no_method_accepts():
    fswr = FixedSizeSampledEvent(GaussianEvent(2), 10, 1000, replacement=True)
    acc = BestAccountant().compose(fswr, 1)  # the PLD is dropped
    before = _ends(acc.get_epsilon(DELTA))
    assert not acc.supports(_Unknown())
    with pytest.raises(UnsupportedEventError, match="no certified RDP bound"):
        acc.compose(_Unknown(), 1)
    with pytest.raises(ValueError, match="count"):
        acc.compose(GaussianEvent(1), -1)
    assert _ends(acc.get_epsilon(DELTA)) == before  # unchanged
    # a later event the PLD would take does not bring it back: the composition has an fswr step
    res = acc.compose(GaussianEvent(1), 1).get_epsilon_result(DELTA)
    assert res.chosen == "rdp" and "fswr" in res.refused["pld"]


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"rdp": "x"}, "rdp must be an RdpAccountant"),
        ({"pld": 3}, "pld must be a PldAccountant"),
        ({"rdp": RdpAccountant().compose(GaussianEvent(1), 1)}, "hold no events"),
        ({"pld_seconds": 0}, "pld_seconds must be a number of seconds"),
    ],
    ids=["rdp_type", "pld_type", "not_empty", "seconds"],
)
def test_bad_construction(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        BestAccountant(**kwargs)


def test_bad_target_is_the_rdp_error():
    acc = BestAccountant().compose(GaussianEvent(1), 1)
    with pytest.raises(ValueError, match=r"target_delta must be in \(0, 1\)"):
        acc.get_epsilon(2)
    with pytest.raises(ValueError, match="target_epsilon"):
        acc.get_delta(-1)


def test_unsupported_by_both_raises():
    ev = ZhuWangSampledEvent(GaussianEvent(1), F(1, 10), bound="lower")
    acc = BestAccountant().compose(ev, 1)  # the RDP composes a lower bound; the PLD refuses it
    with pytest.raises((ValueError, UnsupportedEventError)):
        acc.get_epsilon(DELTA)


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------


def _json(argv) -> dict:
    status, out, err = run_cli([*argv, "--json"])
    assert status == 0, err
    return json.loads(out)


EPS_POISSON = cmd("epsilon --sampling poisson --q 0.05 --sigma 1 --steps 100 --delta 1e-5")


def test_cli_default_is_best_with_both_results():
    res = _json(EPS_POISSON)
    assert res["method"] == "best" and res["chosen"] == "pld"
    cands = res["candidates"]
    assert set(cands) == {"rdp", "pld"}
    assert cands["rdp"]["method"] == "rdp" and "upper bound" in cands["rdp"]["claim"] and "alpha" in cands["rdp"]
    assert cands["pld"]["method"] == "pld" and "bracket of the true optimal value" in cands["pld"]["claim"]
    assert res["claim"] == cands["pld"]["claim"]
    up = F(res["epsilon"]["upper"])
    assert up == F(cands["pld"]["epsilon"]["upper"]) <= F(cands["rdp"]["epsilon"]["upper"])
    assert res["epsilon"] == cands["pld"]["epsilon"]
    # --method rdp and --method pld give exactly their own candidate
    rdp = _json([*EPS_POISSON, "--method", "rdp"])
    pld = _json([*EPS_POISSON, "--method", "pld"])
    assert rdp["epsilon"] == cands["rdp"]["epsilon"] and "method" not in rdp
    assert pld["epsilon"] == cands["pld"]["epsilon"] and pld["method"] == "pld"


def test_cli_text_names_the_method():
    status, out, _ = run_cli(EPS_POISSON)
    assert status == 0
    assert "(best: pld, bracket of the true optimal value; rely on the upper end" in out
    assert "rdp: certified RDP upper bound" in out


def test_cli_fallback_says_why():
    argv = cmd("epsilon --sigma 2 --sampling fswr --batch-size 10 --dataset-size 1000 --steps 10 --delta 1e-5")
    res = _json(argv)
    assert res["chosen"] == "rdp" and res["not_used"] == {"pld": "no certified dominating pair for this event"}
    assert "alpha" in res["candidates"]["rdp"] and res["epsilon"] == res["candidates"]["rdp"]["epsilon"]
    assert "alpha" not in res  # the chosen result's details are in its candidate only
    status, out, _ = run_cli(argv)
    assert status == 0 and "(best: rdp, certified RDP upper bound;" in out
    assert "pld not used: no certified dominating pair for this event" in out


@pytest.mark.parametrize(
    "argv, reason",
    [
        (cmd("epsilon --sigma 1.1 --sampling fswr --batch-size 10 --dataset-size 1000 --steps 5"), "no certified"),
        (cmd("epsilon --sigma 1 --sampling poisson --q 0.01 --steps 10 --bound general"), "an RDP bound was chosen"),
        (cmd("epsilon --sigma 0.05 --sampling poisson --q 0.01 --steps 10"), "--sigma must be in [0.1, 1000]"),
        (cmd("epsilon --sigma 1 --sampling poisson --q 0.01 --steps 10 --delta 1e-200"), "--delta must be in [1e-100"),
    ],
    ids=["fswr", "bound", "sigma_range", "delta_range"],
)
def test_cli_pld_refusals_are_not_errors(argv, reason):
    res = _json(argv if "--delta" in argv else [*argv, "--delta", "1e-5"])
    assert res["chosen"] == "rdp" and res["not_used"]["pld"].startswith(reason)


def test_cli_rdp_options_with_best():
    res = _json([*EPS_POISSON, "--alpha", "2", "4", "8", "--no-continuous", "--conversion", "mironov"])
    rdp = res["candidates"]["rdp"]
    assert rdp["alpha"] in (2, 4, 8) and rdp["conversion"] == "mironov"
    alone = _json(
        [*EPS_POISSON, "--alpha", "2", "4", "8", "--no-continuous", "--conversion", "mironov", "--method", "rdp"]
    )
    assert alone["epsilon"] == rdp["epsilon"]


def test_cli_width_with_best():
    res = _json([*EPS_POISSON, "--width", "0.002"])
    pld = res["candidates"]["pld"]["epsilon"]
    assert F(pld["upper"]) - F(pld["lower"]) <= F(2, 1000)


def test_cli_pld_past_its_share_falls_back(monkeypatch):
    """A PLD that never finishes stops at its share (half the time left) and the RDP answers."""
    from rigorous_rdp import budget
    from rigorous_rdp.cli import _method

    def never(*_args, **_kw):
        while True:
            budget.check("a PLD that never finishes")

    monkeypatch.setattr(_method, "pld_epsilon", never)
    t0 = time.monotonic()
    res = _json(cmd("dpsgd --epochs 1 --max-seconds 3"))
    assert time.monotonic() - t0 < 3
    assert res["chosen"] == "rdp" and set(res["candidates"]) == {"rdp"}
    assert res["not_used"]["pld"].startswith("it ran past its share of the time budget")


def test_cli_dpsgd_default_reports_the_pld_upper_end():
    res = _json(["dpsgd"])
    assert res["method"] == "best" and res["chosen"] == "pld"
    up = F(res["epsilon"]["upper"])
    assert F(5) < up < F(52, 10) < F(res["candidates"]["rdp"]["epsilon"]["upper"])


@pytest.mark.parametrize(
    "argv, option",
    [
        (cmd("epsilon --sigma 1 --steps 2 --delta 2"), "--delta"),
        (cmd("epsilon --sigma 1 --steps 2 --delta 1e-5 --width 0"), "--width"),
        (cmd("epsilon --sigma 1 --steps 2 --delta 1e-5 --width 0.1 --method rdp"), "--width"),
        (cmd("epsilon --sigma 1 --steps 2 --delta 1e-5 --alpha 2 --method pld"), "--alpha"),
        (
            cmd("epsilon --sigma 1 --sampling fswor --batch-size 1 --dataset-size 9 --steps 2 --delta 1e-5 --tau 3"),
            "--tau",
        ),
        (cmd("delta --sigma 1 --steps 2 --epsilon -1"), "--epsilon"),
        (cmd("dpsgd --sigma 0"), "--sigma"),
        (cmd("calibrate --steps 2 --epsilon 1 --delta 1e-5 --sigma-digits 0"), "--sigma-digits"),
        (cmd("calibrate --sigma 1 --max-steps --epsilon 1 --delta 1e-5 --method pld"), "--max-steps"),
        (cmd("certify --sigma 1 --steps 2 --delta 0 --out /nonexistent-dir/c.json"), "--"),
    ],
    ids=[
        "delta",
        "width",
        "width_rdp",
        "alpha_pld",
        "tau",
        "epsilon",
        "sigma",
        "sigma_digits",
        "max_steps_pld",
        "certify",
    ],
)
def test_cli_bad_input_exit_2(argv, option):
    assert_one_line_error(*run_cli(argv), option=option)


def test_cli_delta_best():
    res = _json(cmd("delta --sigma 2 --steps 4 --epsilon 1"))
    ref = _frac(gaussian_delta(2, 4, 1))
    assert res["chosen"] == "pld"
    assert F(res["delta"]["lower"]) <= ref <= F(res["delta"]["upper"])
    assert F(res["delta"]["upper"]) <= F(res["candidates"]["rdp"]["delta"]["upper"])


# ---------------------------------------------------------------------------
# calibrate and certify
# ---------------------------------------------------------------------------


def test_calibrate_best_meets_the_target_by_the_closed_form():
    """Gaussian, T = 4, epsilon 1: the reported sigma is the smaller of the two routes and meets
    the target on the closed form of the composed Gaussian (independent of both routes)."""
    res = _json(cmd("calibrate --steps 4 --epsilon 1 --delta 1e-5 --sigma-digits 3"))
    assert res["method"] == "best" and set(res["candidates"]) == {"rdp", "pld"}
    sig = {n: F(c["sigma"]["upper"]) for n, c in res["candidates"].items()}
    assert F(res["sigma"]["upper"]) == min(sig.values()) == sig[res["chosen"]]
    assert gaussian_delta(F(res["sigma"]["upper"]), 4, 1) <= mpmath.mpf(1) / 10**5
    for name in ("rdp", "pld"):
        assert gaussian_delta(sig[name], 4, 1) <= mpmath.mpf(1) / 10**5
    assert "claim" in res["candidates"]["pld"] and "true optimal" in res["candidates"]["pld"]["claim"]
    status, out, _ = run_cli(cmd("calibrate --steps 4 --epsilon 1 --delta 1e-5 --sigma-digits 3"))
    assert status == 0 and f"(best: {res['chosen']}," in out


def test_calibrate_best_falls_back_for_fswr_and_max_steps():
    res = _json(
        cmd("calibrate --sampling fswr --batch-size 10 --dataset-size 1000 --steps 10 --epsilon 2 --delta 1e-5")
    )
    assert res["chosen"] == "rdp" and "pld" in res["not_used"]
    res = _json(cmd("calibrate --sampling poisson --q 0.01 --sigma 1.1 --max-steps --epsilon 1 --delta 1e-5"))
    assert res["mode"] == "max-steps" and res["chosen"] == "rdp" and "pld" in res["not_used"]
    alone = _json(
        cmd("calibrate --sampling poisson --q 0.01 --sigma 1.1 --max-steps --epsilon 1 --delta 1e-5 --method rdp")
    )
    assert alone["max_steps"] == res["max_steps"]


def test_certify_best_writes_the_winner_and_verify_accepts(tmp_path):
    out = tmp_path / "pld.json"
    res = _json(cmd(f"certify --sampling poisson --q 0.1 --sigma 1 --steps 3 --delta 1e-5 --out {out}"))
    assert res["method"] == "best" and res["chosen"] == "pld"
    cert = json.loads(out.read_text())
    assert cert["method"]["kind"] == "pld" and cert["epsilon"] == res["epsilon"] and cert["sha256"] == res["sha256"]
    assert F(res["epsilon"]["upper"]) <= F(res["candidates"]["rdp"]["epsilon"]["upper"])
    status, _, err = run_cli(["verify", str(out)])
    assert status == 0, err

    out2 = tmp_path / "rdp.json"
    res = _json(
        cmd(
            f"certify --sigma 2 --sampling fswr --batch-size 10 --dataset-size 1000 --steps 3 --delta 1e-5 --out {out2}"
        )
    )
    assert res["chosen"] == "rdp" and res["not_used"]["pld"] == "no certified dominating pair for this event"
    cert = json.loads(out2.read_text())
    assert cert["method"].get("kind", "rdp") != "pld" and cert["epsilon"] == res["epsilon"]
    status, _, err = run_cli(["verify", str(out2)])
    assert status == 0, err


def test_outer_budget_fires_on_time_after_an_inner_one():
    """The PLD's own deadline is an inner budget: after it ran out, the command's budget still
    stops code without cooperative checks at its own deadline (its timer is re-armed for the
    time left, not for the time left when the inner block began)."""
    from rigorous_rdp import budget
    from rigorous_rdp.errors import BudgetExceeded

    t0 = time.monotonic()
    with pytest.raises(BudgetExceeded), budget.time_budget(1.0):
        with pytest.raises(BudgetExceeded), budget.time_budget(0.6):
            while True:
                budget.check()
        while True:  # no cooperative check: only the timer stops this
            pass
    elapsed = time.monotonic() - t0
    assert 0.95 <= elapsed < 1.45, elapsed  # 1.6 s if the outer timer were re-armed for 1.0 s


@given(
    a=st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(lambda d: abs(d.adjusted()) < 400),
    b=st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(lambda d: abs(d.adjusted()) < 400),
)
@settings(max_examples=200, deadline=None)
def test_decimal_key_orders_as_the_exact_values(a, b):
    """The comparison of upper ends agrees with exact rationals (scientific and plain notation)."""
    from rigorous_rdp.best import decimal_key

    for sa, sb in ((str(a), str(b)), (f"{a:e}", f"{b:f}")):
        fa, fb = F(sa), F(sb)
        assert (decimal_key(sa) < decimal_key(sb)) == (fa < fb)
        assert (decimal_key(sa) == decimal_key(sb)) == (fa == fb)


def test_upper_ends_far_below_the_float_range_are_compared():
    """delta at a huge epsilon: the RDP's upper end has an exponent near -2e18 (no Decimal, no
    Fraction can hold it); the PLD's closed form, about 2.36e-1099031142836140856688537026326
    (mpmath: log10 = -1099031142836140856688537026325.626), is smaller still, and is chosen."""
    res = _json(cmd("delta --sigma 1 --steps 1 --epsilon 2249716749384557"))
    assert "e-2000000000000000" in res["candidates"]["rdp"]["delta"]["upper"]
    assert res["chosen"] == "pld" and res["delta"]["upper"].endswith("e-1099031142836140856688537026326")
