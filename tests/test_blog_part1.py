"""Tests of the blog part 1 claims (rigorous_rdp.research.blog.part1)."""

import itertools
import random
import re
from fractions import Fraction

import mpmath
import pytest
from _datasets import bit_neighbours
from _figures import figure_property_test
from _mpcheck import M, contains, lo, up

from rigorous_rdp.arith import decimal_lower, decimal_upper
from rigorous_rdp.research.blog import part1 as P
from rigorous_rdp.research.indistinguishability import optimal_delta_exact

mp = mpmath.mpf


# --- Laplace (1.5) ---------------------------------------------------------------


def test_laplace_scale_exact():
    assert P.laplace_scale("0.5") == 2
    assert P.laplace_scale("1/3", 2) == 6
    assert P.laplace_epsilon(4, 2) == Fraction(1, 2)


def test_laplace_delta_zero_at_calibration_positive_below():
    b = P.laplace_scale("0.5")
    assert P.laplace_delta(b, "0.5").ball == 0
    d = P.laplace_delta(b, "0.25", digits=12)
    with mpmath.workdps(40):
        assert contains(d, 1 - mpmath.exp((M("0.25") - M("0.5")) / 2))


# --- Claim 9, (6.8) ------------------------------------------------------------------


def ref_68(eps, sigma, s=1):
    with mpmath.workdps(50):
        e, sg, sf = M(eps), M(sigma), M(s)
        return mpmath.exp(-((e * sg / sf - sf / (2 * sg)) ** 2) / 2)


def ref_exact(eps, sigma):
    with mpmath.workdps(50):
        e, s = M(eps), M(sigma)
        return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


@pytest.mark.parametrize("eps,sigma,sf", [("1", "4", "1"), ("0.5", "10", "1"), ("2", "3", "2"), ("0.1", "30", "1")])
def test_68_value_and_validity(eps, sigma, sf):
    with mpmath.workdps(50):
        c = P.gaussian_delta_claim9(eps, sigma, sf, digits=20)
        assert contains(c, ref_68(eps, sigma, sf))
        assert c.relative_width() < 1e-19
        # (6.8) is a valid delta: never below the exact delta of the mechanism
        exact = P.gaussian_delta_exact(Fraction(eps) / Fraction(sf), sigma, digits=12)
        assert lo(c) >= up(exact)


def test_68_requires_positive_t():
    with pytest.raises(ValueError, match=r"^sigma must be > sensitivity / sqrt\(2 epsilon\)"):
        P.gaussian_delta_claim9("0.5", 1)  # 2 * 0.5 * 1 = 1, not > 1


# --- calibrations (6.81)-(6.84), (6.91), Dwork-Roth ------------------------------------


def refs_calibrations(eps, delta):
    with mpmath.workdps(50):
        e, d = M(eps), M(delta)
        L = mpmath.log(1 / d)
        ell = 2 * L - mpmath.log(2 * mpmath.pi)
        return {
            "(6.81)": mpmath.sqrt(2 * L) / e + 1 / mpmath.sqrt(2 * e),
            "(6.82)": max(1, mpmath.sqrt(max(ell, 0))) / e + 1 / mpmath.sqrt(2 * e),
            "(6.83)": mpmath.sqrt(e + 2 * L) / e,
            "(6.84)": max(mpmath.sqrt(1 + e), mpmath.sqrt(max(ell + e, 0))) / e,
            "(6.91) exact solution": (mpmath.sqrt(2 * L) + mpmath.sqrt(2 * L + 2 * e)) / (2 * e),
            "Dwork-Roth A.1": max(mpmath.mpf(3) / 2, mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / d))) / e,
        }


GRID = [("0.5", "1e-5"), ("0.1", "1e-10"), ("0.9", "0.1"), ("0.01", "1e-3")]


@pytest.mark.parametrize("eps,delta", GRID)
def test_calibration_values(eps, delta):
    refs = refs_calibrations(eps, delta)
    with mpmath.workdps(50):
        for name, ref in refs.items():
            c = P.GAUSSIAN_CALIBRATIONS[name](eps, delta, digits=20)
            assert contains(c, ref), name
            assert c.relative_width() < 1e-19


@pytest.mark.parametrize("eps,delta", [*GRID, ("3", "1e-6"), ("10", "1e-3")])
def test_calibrations_are_sufficient_and_exact_is_smallest(eps, delta):
    """Each calibration achieves (eps, delta) for the exact mechanism, and the exact sigma is below all."""
    exact = P.sigma_exact(eps, delta, digits=10)
    names = [n for n in P.GAUSSIAN_CALIBRATIONS if not n.startswith("exact")]
    if Fraction(eps) >= 1:
        names.remove("Dwork-Roth A.1")
    for name in names:
        s = P.GAUSSIAN_CALIBRATIONS[name](eps, delta)
        assert lo(s) >= up(exact), name
        d = P.gaussian_delta_exact(eps, Fraction(decimal_upper(s.ball, 30)), digits=8)
        assert up(d) <= M(delta), name
    # the (6.8)-based ones achieve delta already in the (6.8) bound
    for name in ("(6.81)", "(6.83)", "(6.91) exact solution"):
        s = P.GAUSSIAN_CALIBRATIONS[name](eps, delta)
        with mpmath.workdps(40):
            assert ref_68(eps, Fraction(decimal_upper(s.ball, 30))) <= M(delta) * (1 + mpmath.mpf(10) ** -20)


def test_calibration_order_relations():
    for eps, delta in GRID:
        s91 = P.sigma_6_91(eps, delta)
        assert up(s91) <= lo(P.sigma_6_81(eps, delta))
        assert up(s91) <= lo(P.sigma_6_83(eps, delta))


def test_684_bounded_is_slightly_better_than_dwork_roth():
    # the post: with alpha = 1 the bounded (6.84) is "similar to and slightly better than" Thm A.1
    for delta in ("0.5", "0.1", "1e-3", "1e-5", "1e-10", "1e-50"):
        for eps in ("0.01", "0.5", "0.99"):
            assert up(P.sigma_6_84_bounded(eps, delta, 1)) < lo(P.sigma_dwork_roth(eps, delta))


def test_bounded_variants_dominate_unbounded():
    assert up(P.sigma_6_83(Fraction(1, 2), "1e-5")) <= lo(P.sigma_6_83_bounded(Fraction(1, 2), "1e-5", 1))
    assert up(P.sigma_6_84(Fraction(1, 2), "1e-5")) <= lo(P.sigma_6_84_bounded(Fraction(1, 2), "1e-5", 1))


def test_documented_numbers_eps_half_delta_1e5():
    # numbers quoted in docs/blog_part1.md
    vals = {n: f("0.5", "1e-5") for n, f in P.GAUSSIAN_CALIBRATIONS.items()}
    assert 10.5970 < vals["(6.81)"].lower_float() < vals["(6.81)"].upper_float() < 10.5971
    assert 9.3140 < vals["(6.84)"].lower_float() < 9.3141
    assert 7.0318 < vals["exact (analytic Gaussian)"].lower_float() < 7.0319


# --- composition ----------------------------------------------------------------------


def ref_a(eps):
    with mpmath.workdps(50):
        e = M(eps)
        return e * (mpmath.exp(e) - 1) if e <= mpmath.log(2) else e


@pytest.mark.parametrize("eps", ["0.01", "0.3", "0.6931471805", "0.6931471806", "1", "5"])
def test_a_epsilon(eps):
    with mpmath.workdps(50):
        c = P.a_epsilon(eps, digits=20)
        assert contains(c, ref_a(eps))
        assert up(c) <= lo(P.a_epsilon_upper(eps)) or Fraction(eps) > Fraction(69, 100)


def test_a_epsilon_is_continuous_at_log2():
    # a(eps) = eps at eps = log 2 from both sides: enclosures near log 2 are within 1e-9 of log 2
    for eps in ("0.6931471805", "0.6931471806"):
        assert abs(P.a_epsilon(eps).mid_float() - 0.6931471805599453) < 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_claims_11_12_on_random_pure_dp_pairs(seed):
    """Claim 11: D(p||q) + D(q||p) <= eps (e^eps - 1); Claim 12: each <= a(eps), eps = max |log p/q|."""
    rng = random.Random(seed)
    n = rng.randint(2, 8)
    with mpmath.workdps(40):
        p = [mp(rng.randint(5, 20)) for _ in range(n)]
        q = [mp(rng.randint(5, 20)) for _ in range(n)]
        p = [x / sum(p) for x in p]
        q = [x / sum(q) for x in q]
        eps = max(abs(mpmath.log(a / b)) for a, b in zip(p, q, strict=False))
        kl = sum(a * mpmath.log(a / b) for a, b in zip(p, q, strict=False))
        rkl = sum(b * mpmath.log(b / a) for a, b in zip(p, q, strict=False))
        assert kl + rkl <= eps * (mpmath.exp(eps) - 1)
        e_up = Fraction(mpmath.nstr(eps * (1 + mpmath.mpf(10) ** -30), 35))
        a = up(P.a_epsilon(e_up, digits=20))
        assert kl <= a and rkl <= a


def test_claim10_basic_composition_exact():
    assert P.basic_composition_claim10(["0.1", "1/3"], ["1e-5", 0]) == (
        Fraction(1, 10) + Fraction(1, 3),
        Fraction(1, 10**5),
    )


def refs_advanced(eps, k, beta):
    with mpmath.workdps(50):
        e, b = M(eps), M(beta)
        a = ref_a(eps)
        s = mpmath.sqrt(2 * k * mpmath.log(1 / b))
        return k * a + s * e, k * a + s * (e + a)


@pytest.mark.parametrize("eps,k,beta", [("0.1", 100, "1e-5"), ("1", 10, "1e-3"), ("0.01", 10000, "1e-6")])
def test_claims_14_16_17_18(eps, k, beta):
    r14, r16 = refs_advanced(eps, k, beta)
    with mpmath.workdps(50):
        assert contains(P.claim14(eps, k, beta, digits=20).epsilon, r14)
        assert contains(P.claim16(eps, k, beta, digits=20).epsilon, r16)
        g17 = P.claim17(eps, "1e-7", k, beta, digits=20)
        g18 = P.claim18(eps, "1e-7", k, beta, digits=20)
        assert contains(g17.epsilon, r14) and contains(g18.epsilon, r16)
        assert contains(g17.delta, k * M("1e-7") + M(beta))
        assert contains(g18.delta, k * M("1e-7") + M(beta))
        assert contains(P.claim14(eps, k, beta).delta, M(beta))


@pytest.mark.parametrize("eps,k", [("0.1", 50), ("0.5", 20), ("1", 8)])
def test_claim14_is_a_valid_guarantee_for_randomized_response(eps, k):
    """Claim 14 holds for the worst case: the optimal k-fold composition delta (KOV15) at
    the Claim 14 epsilon is <= beta."""
    from rigorous_rdp.research.composition import optimal_composition_delta

    beta = "1e-3"
    e14 = P.claim14(eps, k, beta).epsilon
    d = optimal_composition_delta(eps, 0, k, Fraction(decimal_lower(e14.ball, 30)), prec=128)
    assert up_arb(d) <= M(beta)


def up_arb(b):
    return mpmath.mpf(decimal_upper(b, 30))


# --- Claim 19 -------------------------------------------------------------------------


@pytest.mark.parametrize("eps,delta,r", [("1", "1e-5", "0.01"), ("0.1", "0", "0.5"), ("3", "1e-6", "1/7")])
def test_claim19_values(eps, delta, r):
    with mpmath.workdps(50):
        g = P.claim19(eps, delta, r, digits=20)
        assert contains(g.epsilon, mpmath.log(1 + M(r) * (mpmath.exp(M(eps)) - 1)))
        assert contains(g.delta, M(r) * M(delta))
        rel = P.claim19_relaxed(eps, delta, r)
        assert up(g.epsilon) <= lo(rel.epsilon)
        if Fraction(eps) < 1:
            rel1 = P.claim19_relaxed(eps, delta, r, alpha=1)
            assert up(rel.epsilon) <= lo(rel1.epsilon)
            assert up(rel1.epsilon) < 2 * M(r) * M(eps)


def _rr(bit, e):
    """Randomized response with e^eps = e (rational): P(output = bit) = e/(1+e)."""
    hi = Fraction(e) / (1 + e)
    return [hi, 1 - hi] if bit == 0 else [1 - hi, hi]


def _subsampled_parity_law(x, n, e):
    """Law of M(x) = RR(parity(x_gamma)), gamma uniform among n-subsets of the rows."""
    subsets = list(itertools.combinations(range(len(x)), n))
    out = [Fraction(0), Fraction(0)]
    for s in subsets:
        law = _rr(sum(x[i] for i in s) % 2, e)
        out = [o + pr / len(subsets) for o, pr in zip(out, law, strict=False)]
    return out


@pytest.mark.parametrize("m,n,e", [(3, 1, 3), (4, 2, 5), (5, 2, 2)])
def test_claim19_exact_on_subsampled_randomized_response(m, n, e):
    """Brute force over all datasets of m bits and their replace-one neighbours: the subsampled
    RR(parity) (log e)-DP mechanism is exactly (log(1 + r(e - 1)), 0)-DP (e^eps' is rational)."""
    r = Fraction(n, m)
    c = 1 + r * (e - 1)
    worst = Fraction(0)
    for x, y in bit_neighbours(m):
        p = _subsampled_parity_law(x, n, e)
        q = _subsampled_parity_law(y, n, e)
        assert optimal_delta_exact(p, q, c) == 0
        # and the ratio is attained: no smaller e^eps' works
        worst = max(worst, max(a / b for a, b in zip(p, q, strict=False)))
    assert worst == c


# --- DP-SGD at the end of part 1 -----------------------------------------------------------


def test_dpsgd_chain_versus_post_statement():
    eps, delta, r, k, beta = "0.5", "1e-6", "0.01", 10, "1e-5"
    chain = P.dpsgd_guarantee(eps, delta, r, k, beta)
    relaxed = P.dpsgd_guarantee(eps, delta, r, k, beta, relaxed=True)
    stated = P.dpsgd_guarantee_as_stated(eps, delta, r, k, beta)
    with mpmath.workdps(50):
        T = 1000
        et = mpmath.log(1 + M(r) * (mpmath.exp(M(eps)) - 1))
        at = et * min(mpmath.exp(et) - 1, 1)
        ref = T * at + mpmath.sqrt(2 * T * mpmath.log(1 / M(beta))) * (et + at)
        assert contains(chain.epsilon, ref)
        e2 = 2 * M(r) * M(eps)
        a2 = e2 * min(mpmath.exp(e2) - 1, 1)
        assert contains(relaxed.epsilon, T * a2 + mpmath.sqrt(2 * T * mpmath.log(1 / M(beta))) * (e2 + a2))
        st = mpmath.sqrt(2 * k * M(r) * mpmath.log(1 / M(beta))) * M(eps) + 2 * k * M(r) * M(eps) ** 2
        assert contains(stated.epsilon, st)
        assert contains(chain.delta, k * M(delta) + M(beta))
    # the post's value is smaller than what its own argument gives (documented deviation)
    assert up(stated.epsilon) < lo(chain.epsilon) < lo(relaxed.epsilon)


def test_dpsgd_steps_must_be_integer():
    with pytest.raises(ValueError, match=r"^epochs must make k / r an integer"):
        P.dpsgd_guarantee("0.5", "1e-6", "0.3", 1, "1e-5")


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,prefix",
    [
        (lambda: P.laplace_scale(0), "epsilon must be > 0"),
        (lambda: P.laplace_scale(1, -1), "sensitivity must be > 0"),
        (lambda: P.gaussian_delta_claim9(1, 0), "sigma must be > 0"),
        (lambda: P.sigma_6_81(1, 1), "delta must be in (0, 1)"),
        (lambda: P.sigma_6_82(-1, "0.1"), "epsilon must be > 0"),
        (lambda: P.sigma_dwork_roth(1, "0.1"), "epsilon must be in (0, 1)"),
        (lambda: P.sigma_6_84_bounded(2, "0.1", 1), "epsilon must be <= alpha"),
        (lambda: P.claim14("0.1", 0, "0.1"), "steps must be an integer >= 1"),
        (lambda: P.claim14("0.1", "2.5", "0.1"), "steps must be an integer >= 1"),
        (lambda: P.claim18("0.1", "0.1", 3, 1), "beta must be in (0, 1)"),
        (lambda: P.claim19("0.1", "0.1", "1.5"), "r must be in [0, 1]"),
        (lambda: P.claim19("inf", "0.1", "0.5"), "epsilon must be a"),
        (lambda: P.basic_composition_claim10(["0.1"], []), "delta must have one entry per epsilon"),
        (lambda: P.a_epsilon("-1"), "epsilon must be >= 0"),
        (lambda: P.dpsgd_guarantee("1", "0", "0.5", 1, "0.1", relaxed=True), "epsilon must be < 1"),
        (lambda: P.sigma_6_83("0.5", "1e-5", digits=0), "digits must be in [1, 1000]"),
    ],
)
def test_bad_input(call, prefix):
    with pytest.raises(ValueError, match="^" + re.escape(prefix)):
        call()


# --- figure scripts (fast mode) ---------------------------------------------------------------


def _composition_is_above_the_exact_optimum(data: dict) -> None:
    eps = data["epsilon"]
    for i, k in enumerate(data["k"]):
        exact = eps["exact (Gaussian with sigma/sqrt k)"][i]
        # the exact composition is the optimum: every bound is above it
        for key, vals in eps.items():
            if vals[i] is not None:
                assert vals[i] >= exact * (1 - 1e-9), (key, k)


def _calibrations_are_above_the_analytic_gaussian(data: dict) -> None:
    sig = data["sigma"]
    for i in range(len(data["epsilon"])):
        ex = sig["exact (analytic Gaussian)"][i]
        for key, vals in sig.items():
            if vals[i] is not None:
                assert vals[i] >= ex * (1 - 1e-9), key


test_figure_data_properties = figure_property_test(
    {
        "blog1_gaussian_calibrations": _calibrations_are_above_the_analytic_gaussian,
        "blog1_composition": _composition_is_above_the_exact_optimum,
    }
)
