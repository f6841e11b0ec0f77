"""Tests of the Pearson-Vajda chi^l divergences and condition (4) (rigorous_rdp.research.chi_divergence)."""

import random
from fractions import Fraction

import mpmath
import pytest
from _containment import contains, width_ok
from flint import acb

from rigorous_rdp.reference.zhu_wang import gaussian_chi_mp, laplace_chi_mp, poisson_chi_mp
from rigorous_rdp.research.chi_divergence import (
    certify_nonnegative_expsum,
    check_condition4_density,
    check_condition4_discrete,
    chi_divergence_density,
    chi_divergence_discrete,
    gaussian_chi,
    gaussian_chi_taylor_coefficients,
    laplace_chi,
    lemma9_sides_discrete,
    poisson_chi,
    randomized_response_chi,
    verify_condition4_gaussian,
    verify_condition4_laplace,
    verify_condition4_randomized_response,
)


@pytest.fixture(autouse=True)
def _mp_precision():
    with mpmath.workdps(40):
        yield


def _contains(ball, ref):
    """Containment (tests/_containment.py) of a reference computed at 40 digits (30 reliable)."""
    return contains(ball, ref, rel=Fraction(1, 10**30))


def _random_dist(rng, n):
    w = [rng.randint(1, 20) for _ in range(n)]
    s = sum(w)
    return [Fraction(x, s) for x in w]


def test_lemma9_identity_exact():
    rng = random.Random(7)
    for _ in range(30):
        n = rng.randint(2, 6)
        p, q = _random_dist(rng, n), _random_dist(rng, n)
        for a in (1, 2, 3, 4, 7):
            lhs, rhs = lemma9_sides_discrete(p, q, a)
            assert lhs == rhs


def test_chi_discrete_small_cases():
    # chi^1 = 0, chi^2 = Pearson chi-square
    p, q = [Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(3, 4)]
    assert chi_divergence_discrete(p, q, 1) == 0
    assert chi_divergence_discrete(p, q, 2) == Fraction(1, 4) * 1 + Fraction(3, 4) * Fraction(1, 9)
    with pytest.raises(ValueError, match="absolutely continuous"):
        chi_divergence_discrete([Fraction(1, 2), Fraction(1, 2)], [1, 0], 3)


def test_condition4_discrete_can_fail():
    # a skewed-left pair: chi^3 < 0 (condition (4) fails), found exactly
    p = [Fraction(0), Fraction(1, 2), Fraction(1, 2)]
    q = [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]
    assert chi_divergence_discrete(p, q, 3) == Fraction(-1, 4)
    cert = check_condition4_discrete([(p, q)], 5, both_directions=False)
    assert not cert.holds and cert.failures[0][1] == 3


def test_randomized_response_closed_form_and_condition4():
    for p in (Fraction(3, 5), Fraction(9, 10), Fraction(1, 10), Fraction(1, 3)):
        for ell in (3, 5, 9):
            v = randomized_response_chi(ell, p)
            closed = (2 * p - 1) ** ell * ((1 - p) ** (1 - ell) - p ** (1 - ell))
            assert v == closed and v > 0
        assert verify_condition4_randomized_response(11, p).holds


def test_gaussian_taylor_coefficients_nonnegative():
    # the falling-factorial argument: every coefficient is >= 0, first non-zero at n = ceil(ell/2)
    assert gaussian_chi_taylor_coefficients(1, 5) == [0] * 6  # chi^1 = 0
    for ell in range(2, 12):
        c = gaussian_chi_taylor_coefficients(ell, 3 * ell)
        assert all(x >= 0 for x in c)
        first = next(i for i, x in enumerate(c) if x != 0)
        assert first == (ell + 1) // 2


@pytest.mark.parametrize("ell,mu,sigma", [(3, 1, 1), (5, "0.5", 2), (7, 1, 5)])
def test_gaussian_chi_against_quadrature(ell, mu, sigma):
    v = gaussian_chi(ell, mu, sigma, prec=160)
    ref = gaussian_chi_mp(ell, mu, sigma, dps=30)
    assert contains(v, ref, rel=Fraction(1, 10**20))  # quadrature at 30 digits
    assert width_ok(v, 30)


@pytest.mark.parametrize("ell,mu,b", [(3, 1, 2), (5, 1, "0.5"), (7, "0.3", 1), (4, 1, 1)])
def test_laplace_chi_against_quadrature(ell, mu, b):
    v = laplace_chi(ell, mu, b, prec=160)
    ref = laplace_chi_mp(ell, mu, b, dps=30)
    assert contains(v, ref, rel=Fraction(1, 10**20))  # quadrature at 30 digits
    assert width_ok(v, 30)
    # reflection: Lap(-mu) vs Lap(0) has the same divergence
    assert laplace_chi(ell, "-" + str(mu), b, prec=64).overlaps(laplace_chi(ell, mu, b, prec=64))


def test_prop10_certified_checks():
    g = verify_condition4_gaussian(15, "0.5")
    assert g.holds and g.max_order == 15
    lap = verify_condition4_laplace(15, "0.5")
    assert lap.holds
    lap2 = verify_condition4_laplace(9, "0.1")
    assert lap2.holds


def test_expsum_checker_detects_negativity():
    # f(s) = e^{2s} - 3 e^{s} + 2 = (e^s - 1)(e^s - 2): zero at 0, negative on (0, log 2)
    ok, why = certify_nonnegative_expsum(
        {Fraction(2): Fraction(1), Fraction(1): Fraction(-3), Fraction(0): Fraction(2)}, 2
    )
    assert ok is False and "negative" in why
    # f(s) = e^{2s} - 2 e^{s} + 1 = (e^s - 1)^2 >= 0
    ok, _ = certify_nonnegative_expsum(
        {Fraction(2): Fraction(1), Fraction(1): Fraction(-2), Fraction(0): Fraction(1)}, 3
    )
    assert ok is True
    # f(s) = 3 - e^{s}: positive on [0, 1], negative past log 3
    assert certify_nonnegative_expsum({Fraction(0): Fraction(3), Fraction(1): Fraction(-1)}, 1)[0] is True
    assert certify_nonnegative_expsum({Fraction(0): Fraction(3), Fraction(1): Fraction(-1)}, 2)[0] is False


def test_poisson_negative_chi3_example():
    # Fig. 2 of the seed (Nielsen & Nock 2014): chi^3(Poi(0.1) || Poi(0.5)) < 0
    v = poisson_chi(3, "0.1", "0.5", prec=128)
    assert v < 0
    ref = poisson_chi_mp(3, "0.1", "0.5")
    assert _contains(v, ref)
    # closed form 2 - 3 e^x + e^{x (r + 2)}, r = 1/5, x = lambda2 (r - 1)^2
    r, x = mpmath.mpf(1) / 5, mpmath.mpf("0.5") * (mpmath.mpf(1) / 5 - 1) ** 2
    assert _contains(v, 2 - 3 * mpmath.exp(x) + mpmath.exp(x * (r + 2)))
    # and positive for a larger rate ratio
    assert poisson_chi(3, "2", "1", prec=64) > 0


def test_density_integration_matches_closed_form():
    # N(1, 1) vs N(0, 1) on [-30, 31]; the mass outside is below 1e-150 for these orders
    def norm(mu):
        # the constant is evaluated at the working precision of the integration
        return lambda z, analytic: (2 * acb.pi()).rsqrt() * (-((z - mu) ** 2) / 2).exp()

    for ell in (3, 5):
        v = chi_divergence_density(norm(1), norm(0), ell, -30, 31, outside="1e-100", prec=96)
        # closed form, independent of the code: E_q[(p/q)^j] = e^{j(j-1) mu^2/2} for unit variances
        closed = mpmath.fsum(
            mpmath.binomial(ell, j) * (-1) ** (ell - j) * mpmath.exp(mpmath.mpf(j * (j - 1)) / 2)
            for j in range(ell + 1)
        )
        assert _contains(v, closed)
        assert v.rad() < 1e-20
    cert = check_condition4_density([(norm(1), norm(0))], 5, -30, 31, outside=lambda ell: "1e-100", prec=96)
    assert cert.holds


def test_density_beta_pair_compact_support():
    # Beta(2,1) (density 2x) vs uniform on [0,1]: chi^3 = int (2x - 1)^3 dx = 0 exactly
    def p(z, analytic):
        return 2 * z

    def q(z, analytic):
        return acb(1)

    v = chi_divergence_density(p, q, 3, 0, 1, prec=64)
    assert v.contains(0) and v.rad() < 1e-15


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: chi_divergence_discrete(["1/2", "1/3"], ["1/2", "1/2"], 3), "p must sum to 1"),
        (lambda: chi_divergence_discrete(["1/2", "1/2"], ["1/2", "1/2"], 0), "order must be an integer"),
        (lambda: chi_divergence_discrete(["-1/2", "3/2"], ["1/2", "1/2"], 3), "p must have non-negative"),
        (lambda: verify_condition4_gaussian(5, 0), "sigma must be > 0"),
        (lambda: verify_condition4_laplace(5, -1), "scale must be > 0"),
        (lambda: randomized_response_chi(3, 1), "p must be in"),
        (lambda: poisson_chi(3, 0, 1), "lambda1 and lambda2 must be > 0"),
        (lambda: chi_divergence_density(lambda z, a: z, lambda z, a: z, 3, 1, 0), "a must be < b"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()
