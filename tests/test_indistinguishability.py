"""Tests of the optimal delta(epsilon) of two distributions (blog part 1, (3)-(4), Claims 1-3)."""

import itertools
import random
from fractions import Fraction

import mpmath
import pytest
from _containment import contains as _contains
from _containment import not_above_upper

from rigorous_rdp.research.indistinguishability import (
    check_all_subsets_exact,
    claim1_delta_exact,
    claim3_tail_bound,
    gaussian_pair_delta,
    hockey_stick,
    hockey_stick_exact,
    is_indistinguishable_exact,
    laplace_pair_delta,
    loss_tail_exact,
    optimal_delta,
    optimal_delta_exact,
)

P2 = [Fraction(2, 5), Fraction(3, 5)]
Q2 = [Fraction(3, 5), Fraction(2, 5)]


def contains(cert, ref):
    """Containment (tests/_containment.py) of an mpmath reference computed at 40-50 digits."""
    return _contains(cert, ref, rel=Fraction(1, 10**35))


def rel_width(cert):
    return cert.relative_width()


def random_dist(rng, n, den=97):
    w = [rng.randint(1, den) for _ in range(n)]
    s = sum(w)
    return [Fraction(x, s) for x in w]


# --- Claim 2 -----------------------------------------------------------------


def test_claim2_example_is_log43_one_third_ind():
    # the post: "just check (3) for all four possible S"
    assert check_all_subsets_exact(P2, Q2, Fraction(4, 3), Fraction(1, 3))
    assert is_indistinguishable_exact(P2, Q2, "4/3", "1/3")


def test_claim2_optimal_delta_is_one_fifteenth():
    assert optimal_delta_exact(P2, Q2, "4/3") == Fraction(1, 15)
    assert check_all_subsets_exact(P2, Q2, "4/3", Fraction(1, 15))
    assert not check_all_subsets_exact(P2, Q2, "4/3", Fraction(1, 15) - Fraction(1, 10**12))


def test_claim2_tail_condition_fails():
    # P(L(p||q) <= log 4/3) = P(L(q||p) <= log 4/3) = 2/5 < 2/3
    assert 1 - loss_tail_exact(P2, Q2, "4/3") == Fraction(2, 5)
    assert 1 - loss_tail_exact(Q2, P2, "4/3") == Fraction(2, 5)
    assert Fraction(2, 5) < 1 - Fraction(1, 3)
    # also at the optimal delta 1/15
    assert Fraction(2, 5) < 1 - optimal_delta_exact(P2, Q2, "4/3")


# --- exact hockey stick against brute force -----------------------------------


def brute_force_delta(p, q, c):
    best = Fraction(0)
    n = len(p)
    for r in range(n + 1):
        for s in itertools.combinations(range(n), r):
            ps = sum((p[i] for i in s), Fraction(0))
            qs = sum((q[i] for i in s), Fraction(0))
            best = max(best, ps - c * qs, qs - c * ps)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_optimal_delta_exact_matches_brute_force(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 7)
    p, q = random_dist(rng, n), random_dist(rng, n)
    c = Fraction(rng.randint(10, 30), 10)
    d = optimal_delta_exact(p, q, c)
    assert d == brute_force_delta(p, q, c)
    assert check_all_subsets_exact(p, q, c, d)
    if d > 0:
        assert not check_all_subsets_exact(p, q, c, d - Fraction(1, 10**15))


@pytest.mark.parametrize("seed", range(6))
def test_claim1_tail_delta_is_sufficient_and_not_smaller(seed):
    rng = random.Random(100 + seed)
    n = rng.randint(2, 7)
    p, q = random_dist(rng, n), random_dist(rng, n)
    c = Fraction(rng.randint(10, 30), 10)
    d1 = claim1_delta_exact(p, q, c)
    assert check_all_subsets_exact(p, q, c, d1)  # Claim 1
    assert d1 >= optimal_delta_exact(p, q, c)


def test_support_mismatch_counts_infinite_loss():
    p = [Fraction(1, 2), Fraction(1, 2), 0]
    q = [Fraction(1, 2), 0, Fraction(1, 2)]
    assert hockey_stick_exact(p, q, 5) == Fraction(1, 2)
    assert loss_tail_exact(p, q, 5) == Fraction(1, 2)


# --- certified (irrational e^epsilon) ------------------------------------------


@pytest.mark.parametrize("eps", ["0", "0.1", "0.2", "1/3", "2"])
def test_certified_hockey_stick_contains_mpmath(eps):
    rng = random.Random(7)
    p, q = random_dist(rng, 6), random_dist(rng, 6)
    with mpmath.workdps(50):
        c = mpmath.exp(mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator)
        ref1 = sum(
            max(mpmath.mpf(a.numerator) / a.denominator - c * mpmath.mpf(b.numerator) / b.denominator, 0)
            for a, b in zip(p, q, strict=False)
        )
        ref2 = sum(
            max(mpmath.mpf(b.numerator) / b.denominator - c * mpmath.mpf(a.numerator) / a.denominator, 0)
            for a, b in zip(p, q, strict=False)
        )
        h = hockey_stick(p, q, eps, digits=20)
        o = optimal_delta(p, q, eps, digits=20)
        assert contains(h, ref1)
        assert contains(o, max(ref1, ref2))
    if ref1 > 0:
        assert rel_width(h) < 1e-19


def test_certified_claim2_at_log_four_thirds_bracket():
    # eps = 0.28768207245178... = log(4/3): bracket with rationals just below/above
    lo = optimal_delta(P2, Q2, "0.2876820724", digits=15)
    hi = optimal_delta(P2, Q2, "0.2876820725", digits=15)
    assert hi.upper_float() < 1 / 15 < lo.lower_float()


def test_total_variation_at_epsilon_zero():
    with mpmath.workdps(40):
        assert contains(hockey_stick(P2, Q2, 0), mpmath.mpf(1) / 5)
    assert hockey_stick_exact(P2, Q2, 1) == Fraction(1, 5)


# --- Claim 3 -------------------------------------------------------------------


def test_claim3_bound_value():
    with mpmath.workdps(50):
        ref = mpmath.mpf("1e-5") / (1 - mpmath.exp((1 - 2) * mpmath.mpf("0.1")))
    b = claim3_tail_bound("0.1", "1e-5", 2, digits=20)
    assert contains(b, ref)
    assert rel_width(b) < 1e-19


@pytest.mark.parametrize("seed", range(5))
def test_claim3_holds_on_random_distributions(seed):
    rng = random.Random(200 + seed)
    p, q = random_dist(rng, 6), random_dist(rng, 6)
    eps = Fraction(rng.randint(1, 10), 20)
    alpha = Fraction(rng.randint(11, 40), 10)
    delta = optimal_delta(p, q, eps, digits=15).upper_float()
    with mpmath.workdps(40):
        thr = mpmath.exp(alpha.numerator * mpmath.mpf(eps.numerator) / (alpha.denominator * eps.denominator))
        tail = sum(
            mpmath.mpf(a.numerator) / a.denominator
            for a, b in zip(p, q, strict=False)
            if mpmath.mpf(a.numerator) / a.denominator > thr * mpmath.mpf(b.numerator) / b.denominator
        )
    bound = claim3_tail_bound(eps, Fraction(delta), alpha)
    assert not_above_upper(tail, bound, rel=Fraction(1, 10**35))


def test_claim3_strict_inequality_fails_for_equal_laws():
    # p = q: (eps, 0)-ind, the tail is 0 and the bound is 0: only "<=" holds
    assert loss_tail_exact(P2, P2, 2) == 0
    assert claim3_tail_bound("0.5", 0, 3).ball == 0


# --- densities -------------------------------------------------------------------


def gauss_ref(eps, sigma):
    with mpmath.workdps(50):
        e, s = mpmath.mpf(eps), mpmath.mpf(sigma)
        return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


@pytest.mark.parametrize("sigma,eps", [("1", "0.5"), ("0.5", "2"), ("3", "0.1"), ("2", "0")])
def test_gaussian_pair_density_integral(sigma, eps):
    c = gaussian_pair_delta(sigma, eps, digits=12)
    ref = gauss_ref(eps, sigma)
    assert contains(c, ref)
    assert rel_width(c) < 1e-11


@pytest.mark.parametrize("b,eps", [("1", "0.5"), ("2", "0.1"), ("0.5", "1.5")])
def test_laplace_pair_density_integral(b, eps):
    c = laplace_pair_delta(b, eps, digits=12)
    with mpmath.workdps(50):
        ref = 1 - mpmath.exp((mpmath.mpf(eps) - 1 / mpmath.mpf(b)) / 2)
    assert contains(c, ref)
    assert rel_width(c) < 1e-11


def test_laplace_pair_is_pure_dp_at_one_over_b():
    assert laplace_pair_delta(1, 1).ball == 0
    assert laplace_pair_delta("0.5", 3).ball == 0


# --- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,prefix",
    [
        (lambda: optimal_delta_exact([Fraction(1, 2), Fraction(1, 3)], Q2, 2), "p must sum to 1"),
        (lambda: optimal_delta_exact(P2, [Fraction(3, 2), Fraction(-1, 2)], 2), "q must have entries >= 0"),
        (lambda: optimal_delta_exact(P2, [1], 2), "q must have the same length"),
        (lambda: optimal_delta_exact(P2, Q2, "1/2"), "exp-epsilon must be >= 1"),
        (lambda: optimal_delta(P2, Q2, "-0.1"), "epsilon must be >= 0"),
        (lambda: optimal_delta(P2, Q2, "nan"), "epsilon must be a"),
        (lambda: claim3_tail_bound("0.1", "1e-5", 1), "alpha must be > 1"),
        (lambda: claim3_tail_bound("0.1", "2", 2), "delta must be in [0, 1]"),
        (lambda: claim3_tail_bound("0", "0.1", 2), "epsilon must be > 0"),
        (lambda: gaussian_pair_delta("0", "1"), "sigma must be > 0"),
        (lambda: laplace_pair_delta("-1", "1"), "scale must be > 0"),
        (lambda: is_indistinguishable_exact(P2, Q2, 2, -1), "delta must be >= 0"),
        (lambda: optimal_delta_exact("abc", Q2, 2), "p must be a sequence"),
    ],
)
def test_bad_input(call, prefix):
    with pytest.raises(ValueError) as exc:
        call()
    assert str(exc.value).startswith(prefix)
