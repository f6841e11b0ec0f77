"""Tests of the blog part 2 Claims 20-25, 27, Examples 2-4 and (9.5) (rigorous_rdp.research.blog.part2_claims)."""

import itertools
import math
import random
import re
from fractions import Fraction

import mpmath
import pytest
from _datasets import bit_neighbours
from _figures import figure_property_test
from _mpcheck import M, contains, lo, up

from rigorous_rdp.arith import decimal_upper, rel_width_ok, to_arb
from rigorous_rdp.research.blog import part1 as P1
from rigorous_rdp.research.blog import part2_claims as C
from rigorous_rdp.research.indistinguishability import hockey_stick


def gauss_kappa(sigma, k=1):
    s = to_arb(Fraction(sigma))
    return (lambda t: k * t * (t + 1) / (2 * s * s)), (lambda t: k * (2 * t + 1) / (2 * s * s))


def _random_pair(rng, n_min, n_max, weight_max):
    """Two random distributions with positive rational masses on the same n points."""
    n = rng.randint(n_min, n_max)
    w = [rng.randint(1, weight_max) for _ in range(n)]
    v = [rng.randint(1, weight_max) for _ in range(n)]
    return [Fraction(x, sum(w)) for x in w], [Fraction(x, sum(v)) for x in v]


# --- Legendre transform ------------------------------------------------------------------


@pytest.mark.parametrize("eps,sigma", [("1", "2"), ("1.1", "2"), ("0.3", "5"), ("7", "0.5"), ("0.01", "1")])
def test_legendre_gaussian_matches_closed_form(eps, sigma):
    kap, dk = gauss_kappa(sigma)
    g = C.legendre_transform(kap, dk, eps, digits=12)
    c = C.gaussian_kappa_star(eps, sigma, digits=20)
    with mpmath.workdps(50):
        e, s = M(eps), M(sigma)
        ref = (e * s - 1 / (2 * s)) ** 2 / 2 if e * s * s > mpmath.mpf(1) / 2 else mpmath.mpf(0)
        assert contains(g, ref) and contains(c, ref)
    if ref > 0:
        assert g.relative_width() < 1e-11


@pytest.mark.parametrize("seed", range(4))
def test_legendre_discrete_cumulant_matches_mpmath(seed):
    rng = random.Random(seed)
    p, q = _random_pair(rng, 2, 6, 30)
    kap, dk = C.discrete_cumulant(p, q)
    with mpmath.workdps(40):
        pm = [M(x) for x in p]
        qm = [M(x) for x in q]
        kl = sum(a * mpmath.log(a / b) for a, b in zip(pm, qm, strict=False))
        eps = kl + Fraction(rng.randint(1, 20), 40)  # above kappa'(0) = KL so the sup is interior
        eps = Fraction(mpmath.nstr(eps, 20))

        def kappa(t):
            return mpmath.log(sum(a ** (t + 1) * b ** (-t) for a, b in zip(pm, qm, strict=False)))

        def dkap(t):
            return mpmath.diff(kappa, t)

        lmax = max(mpmath.log(a / b) for a, b in zip(pm, qm, strict=False))
        if M(eps) >= lmax:
            pytest.skip("epsilon beyond the max loss: sup at infinity")
        tstar = mpmath.findroot(lambda t: dkap(t) - M(eps), (mpmath.mpf("1e-6"), mpmath.mpf(200)), solver="bisect")
        ref = M(eps) * tstar - kappa(tstar)
        g = C.legendre_transform(kap, dk, eps, digits=10)
        assert contains(g, ref)
        assert g.relative_width() < 1e-9


def test_legendre_zero_below_kl():
    p, q = [Fraction(2, 5), Fraction(3, 5)], [Fraction(3, 5), Fraction(2, 5)]
    kap, dk = C.discrete_cumulant(p, q)
    # KL(p||q) = (1/5) log(3/2) ~ 0.081; below it the sup over t > 0 is approached at t -> 0
    g = C.legendre_transform(kap, dk, "0.05")
    assert g.ball.contains(0) and g.upper_float() < 1e-15


# --- Claims 20, 21 -------------------------------------------------------------------------


@pytest.mark.parametrize("eps", ["0.1", "0.2", "0.35"])
def test_claim20_delta_dominates_optimal_delta(eps):
    p, q = [Fraction(1, 10), Fraction(3, 10), Fraction(6, 10)], [Fraction(3, 10), Fraction(3, 10), Fraction(4, 10)]
    d20 = C.claim20_delta(p, q, eps)
    opt = hockey_stick(p, q, eps)
    assert lo(d20) >= up(opt)


@pytest.mark.parametrize("rho,lam,eps", [("0.5", 4, 2), ("0.01", "1.5", "0.3"), ("2", 33, "2.5")])
def test_claim21_items_1_and_3(rho, lam, eps):
    with mpmath.workdps(50):
        d = C.claim21_delta(rho, lam, eps, digits=20)
        ref = mpmath.exp((M(lam) - 1) * (M(rho) - M(eps)))
        assert contains(d, ref)
        e3 = C.claim21_epsilon(rho, lam, "1e-5", digits=20)
        assert contains(e3, M(rho) + mpmath.log(10**5) / (M(lam) - 1))
        # items 1 and 3 are inverse to each other
        back = C.claim21_delta(rho, lam, Fraction(decimal_upper(e3.ball, 40)), digits=10)
        assert abs(back.mid_float() - 1e-5) < 1e-14


def test_claim21_item2_is_item1_minimised_over_orders():
    kap, dk = gauss_kappa(3)
    eps = "1"
    d2 = C.claim21_delta_legendre(kap, dk, eps)
    for lam in ("1.5", 2, 5, "9.5", 20):
        rho = Fraction(lam) / 18
        assert up(d2) <= lo(C.claim21_delta(rho, lam, eps)) * (1 + mpmath.mpf(10) ** -8)
    # and attained at lambda* = 1/2 + eps sigma^2 = 9.5 (Example 2)
    d1 = C.claim21_delta(Fraction(19, 2) / 18, Fraction(19, 2), eps, digits=12)
    assert abs(d1.mid_float() / d2.mid_float() - 1) < 1e-7


# --- Example 2 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("eps,sigma", [("1", "4"), ("0.5", "10"), ("0.1", "30")])
def test_example2_equals_68(eps, sigma):
    e2 = C.example2_delta(eps, sigma, digits=15)
    c9 = P1.gaussian_delta_claim9(eps, sigma, digits=15)
    assert abs(e2.mid_float() / c9.mid_float() - 1) < 1e-13
    with mpmath.workdps(40):

        def f(lam):
            return mpmath.exp((lam - 1) * (lam / (2 * M(sigma) ** 2) - M(eps)))

        lstar = C.example2_optimal_order(eps, sigma)
        assert contains(e2, f(M(lstar)))
        # lambda* is a minimiser (derivative zero), the printed order is not
        assert abs(mpmath.diff(f, M(lstar))) < mpmath.mpf(10) ** -30
        stated = C.example2_optimal_order_as_stated(eps, sigma)
        assert f(M(stated)) > f(M(lstar)) * (1 + mpmath.mpf(10) ** -6) or stated <= 1


def test_example2_without_sigma_condition_is_trivial():
    assert C.example2_delta("0.1", "1").ball == 1  # eps sigma^2 = 0.1 < 1/2


# --- Claims 22, 23 and Example 3 -------------------------------------------------------------------


@pytest.mark.parametrize("eps,sigma,k", [("5", "2", 10), ("1", "10", 50), ("2", "3", 1)])
def test_example3_equals_claim23_and_68_with_scaled_sigma(eps, sigma, k):
    kap, dk = gauss_kappa(sigma)
    d23 = C.claim23_delta(kap, dk, eps, k, digits=10)
    d3 = C.example3_delta(eps, sigma, k, digits=15)
    with mpmath.workdps(50):
        e, s = M(eps), M(sigma)
        ref = mpmath.exp(-((mpmath.sqrt(k) / (2 * s) - e * s / mpmath.sqrt(k)) ** 2) / 2)
        assert contains(d3, ref) and contains(d23, ref)


def test_example3_sigma_condition():
    for eps, delta, k in (("1", "1e-5", 10), ("0.5", "1e-8", 100), ("3", "1e-3", 1)):
        s = C.example3_sigma(eps, delta, k, digits=20)
        s81 = P1.sigma_6_81(eps, delta, digits=20)
        assert abs(s.mid_float() / (math.sqrt(k) * s81.mid_float()) - 1) < 1e-14
        # at (just above) the threshold the composition is (eps, delta)-DP by Example 3
        sig = Fraction(decimal_upper(s.ball, 30))
        assert up(C.example3_delta(eps, sig, k)) <= M(delta)


def test_example3_versus_accountant():
    """The accountant's Mironov delta over a finite grid of orders is >= the infimum over all orders."""
    from rigorous_rdp import GaussianEvent, RdpAccountant

    acc = RdpAccountant(conversion="mironov").compose(GaussianEvent(10), 50)
    res = acc.get_delta_and_order(1)
    d3 = C.example3_delta(1, 10, 50)
    assert lo(d3) <= up(res.delta)  # the grid contains lambda* = 5/2 here, so they agree
    assert res.delta.upper_float() < 1.01 * d3.upper_float()


def test_claim22_exact():
    assert C.claim22("1/3", 6) == 2


# --- Claim 24, 25, Example 4 --------------------------------------------------------------------------


@pytest.mark.parametrize("rho,lam,r", [("0.5", 4, "0.01"), ("0.001", "1.5", "1e-6"), ("3", 20, "0.9"), ("1", 2, "1")])
def test_claim24_values_and_relaxations(rho, lam, r):
    with mpmath.workdps(60):
        c = C.claim24_rdp(rho, lam, r, digits=20)
        l1 = M(lam) - 1
        ref = mpmath.log(1 + M(r) * (mpmath.exp(l1 * M(rho)) - 1)) / l1
        assert contains(c, ref)
        assert c.relative_width() < 1e-19
        assert up(c) <= M(rho) * (1 + mpmath.mpf(10) ** -20)
        rel = C.claim24_relaxed(rho, lam, r)
        assert up(c) <= up(rel)
        bound = Fraction(lam) - 1
        bound = bound * Fraction(rho)
        rel2 = C.claim24_relaxed(rho, lam, r, bound=bound)
        assert lo(rel) <= up(rel2)


def _rr_law(bit, e):
    hi = Fraction(e) / (1 + e)
    return [hi, 1 - hi] if bit == 0 else [1 - hi, hi]


def _g(p, q, lam):
    return sum((a**lam / b ** (lam - 1) for a, b in zip(p, q, strict=False)), Fraction(0))


@pytest.mark.parametrize("m,n,e,lam", [(3, 1, 3, 2), (4, 2, 2, 3), (5, 2, 4, 4)])
def test_claim24_exact_on_subsampled_randomized_response(m, n, e, lam):
    """Exact rationals: for RR(parity(x_gamma)) with gamma a uniform n-subset of m rows,
    G_lambda(M(x)||M(x')) <= 1 + r (G_lambda(RR) - 1) for all replace-one neighbours
    (Claim 24 in moment form), and the worst case over neighbours is attained here."""
    r = Fraction(n, m)
    g_inner = _g(_rr_law(0, e), _rr_law(1, e), lam)
    bound = 1 + r * (g_inner - 1)
    worst = Fraction(0)
    subsets = list(itertools.combinations(range(m), n))
    for x, y in bit_neighbours(m):
        p = [
            sum((_rr_law(sum(x[j] for j in s) % 2, e)[o] for s in subsets), Fraction(0)) / len(subsets) for o in (0, 1)
        ]
        q = [
            sum((_rr_law(sum(y[j] for j in s) % 2, e)[o] for s in subsets), Fraction(0)) / len(subsets) for o in (0, 1)
        ]
        gv = _g(p, q, lam)
        assert gv <= bound
        worst = max(worst, gv)
    assert worst <= bound
    # the certified Claim 24 RDP contains (lambda-1)^-1 log(bound)
    rho = Fraction(0)  # dummy; compute with arb below
    with mpmath.workdps(50):
        rho_m = mpmath.log(M(g_inner)) / (lam - 1)
        rho = Fraction(mpmath.nstr(rho_m * (1 + mpmath.mpf(10) ** -35), 45))
        c = C.claim24_rdp(rho, lam, r, digits=20)
        assert mpmath.log(M(worst)) / (lam - 1) <= up(c)


@pytest.mark.parametrize("seed", range(5))
def test_claim25_exact_integer_orders(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 6)
    p = [Fraction(rng.randint(0, 20), rng.randint(1, 9)) for _ in range(n)]
    q = [Fraction(rng.randint(1, 20), rng.randint(1, 9)) for _ in range(n)]
    lam = rng.randint(2, 6)
    lhs, rhs = C.claim25_sides(p, q, lam)
    assert lhs <= rhs
    assert lhs == sum(p) ** lam / sum(q) ** (lam - 1)


def test_claim25_fractional_order():
    lhs, rhs = C.claim25_sides([1, 2, "0.5"], [3, 1, "0.25"], "2.5", digits=20)
    with mpmath.workdps(50):
        left = mpmath.mpf("3.5") ** 2.5 / mpmath.mpf("4.25") ** 1.5
        r = 1 / mpmath.mpf(3) ** 1.5 + mpmath.mpf(2) ** 2.5 + mpmath.mpf("0.5") ** 2.5 / mpmath.mpf("0.25") ** 1.5
        assert contains(lhs, left) and contains(rhs, r)
    assert up(lhs) < lo(rhs)


@pytest.mark.parametrize("lam,r,sigma", [(8, "0.01", 2), (2, "0.5", 1), (32, "0.001", 4), ("3.5", "0.05", 2)])
def test_example4_dominates_exact_mixture(lam, r, sigma):
    e4 = C.example4_rdp(lam, r, sigma, digits=15)
    with mpmath.workdps(50):
        ell = M(lam)
        ref = mpmath.log(1 + M(r) * (mpmath.exp((ell - 1) * ell / (2 * M(sigma) ** 2)) - 1)) / (ell - 1)
        assert contains(e4, ref)
    exact = C.eq95_rdp(lam, r, sigma, digits=8)
    # joint convexity applied to (r mu1 + (1-r) mu0, mu0) gives exactly Example 4's bound
    assert up(exact) <= lo(e4)


def test_claim24_curve_wraps_an_rdp_curve():
    from rigorous_rdp.mechanisms import GaussianCurve

    curve = C.Claim24Curve(GaussianCurve(Fraction(2)), "0.01")
    v = curve.certified(Fraction(8))
    # Example 4 written out: log(1 + r (e^{(l-1) l / (2 sigma^2)} - 1)) / (l - 1), l = 8, sigma = 2
    with mpmath.workdps(50):
        ref = mpmath.log(1 + M("0.01") * mpmath.expm1(mpmath.mpf(7 * 8) / 8)) / 7
    assert contains(v, ref)
    import numpy as np

    s = curve.screen(np.array([8.0]))
    assert abs(s[0] / float(ref) - 1) < 1e-9


# --- Claim 27 and (9.5) --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_claim27_identity_exact(seed):
    rng = random.Random(seed)
    p, q = _random_pair(rng, 2, 5, 9)
    r = Fraction(rng.randint(1, 9), 10)
    lam = rng.randint(1, 6)
    mix = [r * a + (1 - r) * b for a, b in zip(p, q, strict=False)]
    lhs = _g(mix, q, lam)
    moments = [_g(p, q, k) for k in range(lam + 1)]
    assert moments[0] == 1 and moments[1] == 1
    assert C.claim27_mixture_moment(r, lam, moments) == lhs
    # the post's sum from k = 1 misses (1 - r)^lambda
    as_stated = sum(math.comb(lam, k) * r**k * (1 - r) ** (lam - k) * moments[k] for k in range(1, lam + 1))
    assert lhs - as_stated == (1 - r) ** lam


@pytest.mark.parametrize("lam,r,sigma", [(2, "0.5", 1), (8, "0.01", 2), (50, "0.001", "0.8"), (5, "1e-9", 3)])
def test_eq95_moment_against_direct_sum(lam, r, sigma):
    g = C.eq95_moment(lam, r, sigma, digits=25)
    with mpmath.workdps(80):
        rr, s = M(r), M(sigma)
        ref = mpmath.fsum(
            mpmath.binomial(lam, j) * rr**j * (1 - rr) ** (lam - j) * mpmath.exp(j * (j - 1) / (2 * s * s))
            for j in range(lam + 1)
        )
        assert contains(g, ref)
    assert rel_width_ok(g.ball, 24)
    d = C.eq95_rdp(lam, r, sigma, digits=20)
    with mpmath.workdps(80):
        assert contains(d, mpmath.log(ref) / (lam - 1))


def test_eq95_rdp_fractional_order_against_quadrature():
    lam, r, sigma = Fraction(7, 2), Fraction(1, 20), Fraction(2)
    d = C.eq95_rdp(lam, r, sigma, digits=12)
    with mpmath.workdps(30):
        ell, rr, s = M(lam), M(r), M(sigma)

        def f(z):
            return mpmath.npdf(z, 0, s) * ((1 - rr) + rr * mpmath.exp((2 * z - 1) / (2 * s * s))) ** ell

        ref = mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, 10, mpmath.inf])) / (ell - 1)
        assert contains(d, ref)


# --- bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,prefix",
    [
        (lambda: C.claim21_delta("0.5", 1, 1), "alpha must be > 1"),
        (lambda: C.claim21_epsilon("0.5", 2, 0), "delta must be in (0, 1]"),
        (lambda: C.claim21_delta("-1", 2, 1), "rdp must be >= 0"),
        (lambda: C.gaussian_kappa_star(1, 0), "sigma must be > 0"),
        (lambda: C.example3_delta(1, 1, 0), "steps must be an integer >= 1"),
        (lambda: C.example3_sigma(1, "1.5", 3), "delta must be in (0, 1)"),
        (lambda: C.claim24_rdp("0.5", 2, "-0.1"), "r must be in [0, 1]"),
        (lambda: C.claim24_relaxed("0.5", 3, "0.1", bound="0.5"), "bound must be >= (alpha - 1) * rdp"),
        (lambda: C.claim25_sides([1], [0], 2), "q must be > 0"),
        (lambda: C.claim25_sides([1, 2], [1], 2), "q must have the same"),
        (lambda: C.claim27_mixture_moment("0.5", 3, [1, 1, 2]), "moments must hold G_0 .. G_3"),
        (lambda: C.claim27_mixture_moment("0.5", "2.5", [1, 1, 2]), "alpha must be an integer"),
        (lambda: C.eq95_moment("2.5", "0.1", 1), "alpha must be an integer"),
        (lambda: C.legendre_transform(lambda t: t, lambda t: t, 1, t_min=1, t_max="0.5"), "t-max must be > t-min"),
        (lambda: C.discrete_cumulant([1, 0], [0, 1]), "q must be > 0 wherever p > 0"),
    ],
)
def test_bad_input(call, prefix):
    with pytest.raises(ValueError, match="^" + re.escape(prefix)):
        call()


# --- figure scripts (fast mode) ------------------------------------------------------------------


def _claim24_is_above_the_exact_rdp(data: dict) -> None:
    left = data["left"]["rdp"]
    for a, b in zip(left["exact (9.5)"], left["Claim 24 (Example 4)"], strict=False):
        assert a <= b


def _legendre_delta_is_between_exact_and_fixed_orders(data: dict) -> None:
    for lg, ex in zip(data["delta_legendre"], data["delta_exact"], strict=False):
        assert ex <= lg
    for vals in data["delta_fixed_order"].values():
        for v, lg in zip(vals, data["delta_legendre"], strict=False):
            assert lg <= v * (1 + 1e-6)


test_figure_data_properties = figure_property_test(
    {
        "blog2_claim24": _claim24_is_above_the_exact_rdp,
        "blog2_claim21": _legendre_delta_is_between_exact_and_fixed_orders,
    }
)


def test_claim20_beyond_max_loss_is_zero():
    p, q = [Fraction(2, 5), Fraction(3, 5)], [Fraction(3, 5), Fraction(2, 5)]
    # max log(p/q) = log 3/2 = 0.405...; at eps = 0.5 every S has p(S) <= e^eps q(S)
    assert C.claim20_delta(p, q, "0.5").ball == 0
    assert hockey_stick(p, q, "0.5").upper_float() == 0.0
