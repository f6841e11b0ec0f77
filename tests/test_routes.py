"""Tests of rigorous_rdp.research.routes: the three routes and Claim 28 (blog part 2)."""

from fractions import Fraction as F

import mpmath
import pytest
from _containment import contains, describe
from flint import arb

from rigorous_rdp.arith import workprec
from rigorous_rdp.research.routes import claim28, route1_delta, route2_delta, route3_delta, theorem1_from_claim28

# the mpmath references below are evaluated at 40 digits
REF_REL = F(1, 10**30)


def mpf(x):
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def test_route2_closed_form():
    mpmath.mp.dps = 40
    d = route2_delta(1, F(1, 20), 5, 20)["delta"]
    ref = mpmath.exp(-5 * (mpf(20) / 5 - 1 / mpf(40)) ** 2 / 2)
    assert contains(d, ref, rel=REF_REL), describe(d, ref)
    assert d.relative_width() < 1e-7


def test_route1_recomputed_in_mpmath():
    mpmath.mp.dps = 40
    out = route1_delta(F(1, 2), F(1, 100), 1, 5)
    e1 = mpf(out["epsilon_prime"])
    r, s, e, T, k = mpf(F(1, 100)), mpf(5), mpf(F(1, 2)), out["steps"], 1
    et = mpmath.log(1 + r * (mpmath.exp(e1) - 1))
    a = et * min(mpmath.exp(et) - 1, 1)
    beta = mpmath.exp(-((e - T * a) ** 2) / (2 * T * (et + a) ** 2))
    dsub = mpmath.exp(-((e1 * s - 1 / (2 * s)) ** 2) / 2)
    ref = beta + k * dsub
    d = out["delta"]
    assert contains(d, ref, rel=REF_REL), describe(d, ref)
    assert T == 100
    # the minimisation: nearby epsilon' are not better (by more than rounding)
    for f in (0.9, 1.1):
        e2 = e1 * f
        et2 = mpmath.log(1 + r * (mpmath.exp(e2) - 1))
        a2 = et2 * min(mpmath.exp(et2) - 1, 1)
        v = mpmath.exp(-((e - T * a2) ** 2) / (2 * T * (et2 + a2) ** 2)) + mpmath.exp(
            -((e2 * s - 1 / (2 * s)) ** 2) / 2
        )
        assert v >= ref * (1 - 1e-6)


def test_route3_values():
    mpmath.mp.dps = 40
    out = route3_delta(1, F(1, 20), 1, 20)
    lam = out["lambda_post"]
    ref_post = mpmath.exp(-mpf(lam) / 2)
    assert contains(out["delta_post"], ref_post, rel=REF_REL)
    # feasibility T <= lambda eps / (2 G_lambda), checked against (9.5) in mpmath
    r, s = mpf(F(1, 20)), mpf(20)
    G = mpmath.fsum(
        mpmath.binomial(lam, j) * r**j * (1 - r) ** (lam - j) * mpmath.exp(j * (j - 1) / (2 * s * s))
        for j in range(lam + 1)
    )
    assert 2 * out["steps"] * G <= lam
    # the corrected Chernoff bound at its order
    lc = out["lambda_chernoff"]
    Gc = mpmath.fsum(
        mpmath.binomial(lc, j) * r**j * (1 - r) ** (lc - j) * mpmath.exp(j * (j - 1) / (2 * s * s))
        for j in range(lc + 1)
    )
    ref = mpmath.exp(out["steps"] * mpmath.log(Gc) - (lc - 1))
    d = out["delta_chernoff"]
    assert contains(d, ref, rel=REF_REL), describe(d, ref)


def test_route3_infeasible_reports_reason():
    out = route3_delta(F(1, 2), F(1, 100), 10, 5)
    assert out["delta_post"] is None and "reason" in out


def test_claim28_and_theorem1_identities():
    with workprec(128):
        C = arb("1.8")
        info = claim28(1, 1, 1, 30, C)
        assert abs(float(info["T"].mid()) - 900 / 3.6) < 1e-9
        assert info["T_ge_1"] and info["k_ge_1"]
        assert info["sigma_threshold"].contains(arb(30)) or abs(float(info["sigma_threshold"].mid()) - 30) < 1e-20
        t1 = theorem1_from_claim28(1, 1, C, 1, 30)
        # epsilon = c1' r^2 T exactly and (10) holds with equality
        assert abs(float((t1["eps_over_r2T"] - t1["c1_prime"]).mid())) < 1e-25
        assert abs(float((t1["rhs_10"] - 30).mid())) < 1e-20


@pytest.mark.parametrize(
    "args,msg",
    [
        ((0, F(1, 10), 1, 2), r"^epsilon must be a number in \(0, 1e4\]"),
        ((1, 2, 1, 2), r"^r must be a number in \(0, 1\]"),
        ((1, F(1, 10), F(3, 2), 2), "^k must be an integer"),
        ((1, F(1, 10), 1, -1), r"^sigma must be a number in \(0, 1e6\]"),
    ],
)
def test_bad_input(args, msg):
    with pytest.raises(ValueError, match=msg):
        route2_delta(*args)
