"""Tests of rigorous_rdp.research.composition against brute force and closed forms (mpmath)."""

import itertools
from fractions import Fraction

import mpmath
import pytest
from _containment import contains, describe
from flint import arb

from rigorous_rdp.research.composition import (
    advanced_composition,
    advanced_composition_epsilon,
    amplify_poisson,
    basic_composition,
    kov_composition_theorem33,
    optimal_composition_delta,
    optimal_composition_epsilon,
)


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)


def brute_force_delta(eps, delta, k, eps_g):
    """Hockey-stick divergence of the k-fold product of the extremal (eps, delta) pair
    (KOV15, eq. (6)): P = (delta, (1-d) e/(1+e), (1-d)/(1+e), 0), Q = reversed; by
    enumeration of all 4^k outcomes in mpmath."""
    with mpmath.workdps(50):
        e = mpmath.exp(_mp(eps))
        d = _mp(delta)
        p = [d, (1 - d) * e / (1 + e), (1 - d) / (1 + e), mpmath.mpf(0)]
        q = list(reversed(p))
        thr = mpmath.exp(_mp(eps_g))
        total = mpmath.mpf(0)
        for out in itertools.product(range(4), repeat=k):
            pp = mpmath.fprod(p[o] for o in out)
            qq = mpmath.fprod(q[o] for o in out)
            total += max(mpmath.mpf(0), pp - thr * qq)
        return total


@pytest.mark.parametrize(
    "eps,delta,k,eps_g",
    [
        (Fraction(1, 2), Fraction(0), 3, Fraction(1, 2)),
        (Fraction(1, 2), Fraction(1, 100), 4, Fraction(0)),
        (Fraction(3, 10), Fraction(1, 1000), 5, Fraction(3, 5)),
        (Fraction(1), Fraction(1, 50), 4, Fraction(7, 5)),  # eps_g not of the form (k-2i) eps
        (Fraction(1, 10), Fraction(1, 10**6), 6, Fraction(1, 100)),
    ],
    ids=["k3", "k4_eg0", "k5", "k4_offgrid", "k6"],
)
def test_optimal_delta_matches_brute_force(eps, delta, k, eps_g):
    ref = brute_force_delta(eps, delta, k, eps_g)
    ball = optimal_composition_delta(eps, delta, k, eps_g, prec=120)
    assert contains(ball, ref, rel=Fraction(1, 10**30), abs_err=Fraction(1, 10**45)), describe(ball, ref)
    assert ball.rad() < arb("1e-25")


def test_theorem33_against_brute_force_and_general_formula():
    """KOV Thm 3.3 (the delta at eps_g = (k - 2i) eps) against enumeration of the k-fold product
    (k = 6) and, at k = 10, against the general formula (two different sums of the code)."""
    for i in range(6 // 2 + 1):
        eg, dg = kov_composition_theorem33("0.2", "0.001", 6, i, prec=100)
        assert eg.overlaps(arb(6 - 2 * i) * arb("0.2"))
        ref = brute_force_delta(Fraction(1, 5), Fraction(1, 1000), 6, Fraction(6 - 2 * i, 5))
        assert contains(dg, ref, rel=Fraction(1, 10**40)), i
        assert dg.rad() < 1e-25
    for i in range(10 // 2 + 1):
        eg, dg = kov_composition_theorem33("0.2", "0.001", 10, i, prec=100)
        assert dg.overlaps(optimal_composition_delta("0.2", "0.001", 10, eg, prec=100))


def _pure_composition_delta_mp(eps, k: int, eps_g, dps: int = 40):
    r"""Optimal delta of k-fold composition of eps-DP (delta = 0): the hockey-stick divergence
    of the product of k binary randomized responses,
    sum_l Bin(l; k, 1 - p) (1 - e^{eps_g - eps (k - 2l)})_+ with p = e^eps / (1 + e^eps)
    (Kairouz-Oh-Viswanath 2015, Thm 3.3 with delta = 0); all terms, binomial weights by
    their ratio recurrence."""
    with mpmath.workdps(dps):
        e, g = _mp(Fraction(eps)), _mp(Fraction(eps_g))
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        r = (1 - p) / p
        w, total = p**k, mpmath.mpf(0)
        for ell in range(k + 1):
            gap = e * (k - 2 * ell) - g
            if gap <= 0:
                break
            total += w * -mpmath.expm1(-gap)
            w = w * (k - ell) / (ell + 1) * r
        return total


def test_large_k_window_and_tail_bound_against_closed_form():
    # k = 20000: the windowed certified sum (with its tail bound) against the full sum in mpmath
    for eg in (1.0, 3.0, 6.0):
        ball = optimal_composition_delta("0.02", 0, 20000, Fraction(eg), prec=80)
        ref = _pure_composition_delta_mp("0.02", 20000, Fraction(eg))
        assert contains(ball, ref, rel=Fraction(1, 10**25)), describe(ball, ref)
        assert ball.rad() < 1e-12 * float(ref)


def test_optimal_epsilon_inverts_delta():
    r = optimal_composition_epsilon("0.1", "1e-9", 300, "1e-5", digits=10)
    # delta at the upper end meets the target, at the lower end it does not
    assert optimal_composition_delta("0.1", "1e-9", 300, r.upper(), prec=100) <= arb("1e-5")
    assert optimal_composition_delta("0.1", "1e-9", 300, r.lower(), prec=100) > arb("1e-5")
    assert r.relative_width() < 1e-9
    # optimal composition beats advanced composition and basic composition
    adv = advanced_composition("0.1", "1e-9", 300, "1e-5", prec=64)
    assert r.upper() < adv
    assert r.upper() < 300 * arb("0.1")


def test_optimal_epsilon_zero_when_target_already_met():
    r = optimal_composition_epsilon("0.001", 0, 2, "0.5")
    assert r.upper() == 0


def test_closed_forms():
    e, d = basic_composition("0.5", "1e-6", 10, prec=64)
    assert e.overlaps(arb(5)) and d.overlaps(arb("1e-5"))
    a = advanced_composition_epsilon("0.1", 100, "1e-5", prec=100)
    with mpmath.workdps(40):
        ref = mpmath.sqrt(200 * mpmath.log(mpmath.mpf(10) ** 5)) * mpmath.mpf("0.1") + 100 * mpmath.mpf(
            "0.1"
        ) * mpmath.expm1(mpmath.mpf("0.1"))
    assert a.overlaps(arb(mpmath.nstr(ref, 40))) and a.rad() < 1e-25
    e2, d2 = amplify_poisson("1", "1e-5", "0.01", prec=100)
    with mpmath.workdps(40):
        ref2 = mpmath.log1p(mpmath.mpf("0.01") * mpmath.expm1(1))
    assert e2.overlaps(arb(mpmath.nstr(ref2, 40))) and e2.rad() < 1e-25
    assert d2.overlaps(arb("1e-7"))


def test_amplification_accepts_balls():
    e, d = amplify_poisson(arb("0.5"), 0, "0.001", prec=64)
    assert e > 0 and d == 0


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: amplify_poisson(-1, 0, "0.1"), "epsilon must be >= 0"),
        (lambda: amplify_poisson(1, 0, "1.5"), "q must be in [0, 1]"),
        (lambda: basic_composition(1, "2", 3), "delta must be in [0, 1]"),
        (lambda: basic_composition(1, 0, 0), "steps must be an integer >= 1"),
        (lambda: basic_composition(1, 0, "2.5"), "steps must be an integer >= 1"),
        (lambda: advanced_composition("0.1", "1e-3", 100, "1e-2"), "delta must exceed"),
        (lambda: optimal_composition_epsilon("0.1", "1e-3", 100, "1e-2"), "delta must exceed"),
        (lambda: optimal_composition_epsilon("0.1", 0, 100, "nan"), "delta must be"),
        (lambda: kov_composition_theorem33("0.1", 0, 4, 3), "i must be an integer"),
    ],
    ids=["eps_neg", "q_big", "delta_big", "steps0", "steps_frac", "adv_budget", "opt_budget", "nan", "i_range"],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg.replace("[", r"\[").replace("]", r"\]")):
        call()
