r"""Base mechanisms (Gaussian, Laplace, randomized response) against independent values.

References: exact rationals for the Gaussian (alpha / (2 sigma^2)), and the
mpmath evaluation of the *definition* of the Rényi divergence (quadrature for
Gaussian and Laplace, the two-outcome sum for randomized response; see
:mod:`rigorous_rdp.reference.gaussian`), which never uses the closed forms of
:mod:`rigorous_rdp.mechanisms`.  Containment and width are checked separately.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import pytest
from _containment import contains, describe, endpoints, rel_width, width_ok
from flint import arb

from rigorous_rdp.arith import refine, to_arb, workprec
from rigorous_rdp.events import GaussianEvent, LaplaceEvent, RandomizedResponseEvent
from rigorous_rdp.mechanisms import (
    gaussian_rdp,
    laplace_pure_epsilon,
    laplace_rdp,
    randomized_response_pure_epsilon,
    randomized_response_rdp,
)
from rigorous_rdp.reference import reference_rdp
from rigorous_rdp.reference.gaussian import gaussian_rdp_mp, laplace_rdp_mp, randomized_response_rdp_mp
from rigorous_rdp.registry import rdp_curve

DIGITS = 12
# error of the mpmath references at 50 digits (quadrature of the definition, or plain sums)
REF_REL = Fraction(1, 10**40)


def _orders(rng: random.Random, n: int, top: float) -> list[Fraction]:
    out = []
    for i in range(n):
        if i % 2:
            out.append(Fraction(max(2, round(10 ** rng.uniform(0.3, math.log10(top))))))
        else:
            out.append(Fraction(f"{1 + 10 ** rng.uniform(-4, math.log10(top)):.5g}"))
    return out


def _certified(event, alpha: Fraction):
    curve = rdp_curve(event)
    return refine(lambda prec: curve.certified(alpha), DIGITS).ball


# ---------------------------------------------------------------------------
# Gaussian: exact rationals
# ---------------------------------------------------------------------------

GAUSS_POINTS = [
    (Fraction(a), Fraction(s))
    for a, s in [
        ("1.0001", "0.05"),
        ("2", "1"),
        ("10.5", "1.1"),
        ("100000", "0.05"),
        ("1.5", "10000"),
        ("99999.5", "3"),
    ]
]


@pytest.mark.parametrize("alpha,sigma", GAUSS_POINTS, ids=[f"a{float(a)}-s{float(s)}" for a, s in GAUSS_POINTS])
def test_gaussian_exact_rational(alpha, sigma):
    ball = _certified(GaussianEvent(sigma), alpha)
    exact = alpha / (2 * sigma * sigma)
    assert contains(ball, exact)
    assert rel_width(ball) <= Fraction(1, 10**DIGITS)


@pytest.mark.parametrize("alpha,sigma", GAUSS_POINTS[:3], ids=["tiny-order", "order2", "order10.5"])
def test_gaussian_definition_quadrature(alpha, sigma):
    # the quadrature of p^a q^(1-a) agrees with the exact rational (tests the reference)
    ref = gaussian_rdp_mp(alpha, sigma)
    exact = alpha / (2 * sigma * sigma)
    assert abs(Fraction(mpmath.nstr(ref, 45)) - exact) <= exact * Fraction(1, 10**40)
    assert contains(_certified(GaussianEvent(sigma), alpha), ref, rel=REF_REL)


# ---------------------------------------------------------------------------
# randomized response: the two-outcome sum, many points (cheap)
# ---------------------------------------------------------------------------


def _rr_points(n: int, seed: int) -> list[tuple[Fraction, Fraction]]:
    rng = random.Random(seed)
    pts = []
    orders = _orders(rng, n, 1e5)
    for a in orders:
        u = 10 ** rng.uniform(-9, math.log10(0.5))
        p = Fraction(f"{u:.4g}")
        if rng.random() < 0.5:
            p = 1 - p
        if p == Fraction(1, 2):
            p = Fraction(1, 3)
        pts.append((a, p))
    return pts


@pytest.mark.parametrize("alpha,p", _rr_points(120, 7))
def test_randomized_response_matches_definition(alpha, p):
    ball = _certified(RandomizedResponseEvent(p), alpha)
    ref = randomized_response_rdp_mp(alpha, p, 50)
    assert contains(ball, ref, rel=REF_REL), describe(ball, ref)
    assert rel_width(ball) <= Fraction(1, 10**DIGITS)


def test_randomized_response_near_half_is_tiny_not_zero():
    # p = 1/2 + 1e-9: RDP ~ 2 alpha (2e-9)^2 ... tiny, but certified positive
    p = Fraction(1, 2) + Fraction(1, 10**9)
    ball = _certified(RandomizedResponseEvent(p), Fraction(3, 2))
    lo, _hi = endpoints(ball)
    assert lo > 0
    assert contains(ball, randomized_response_rdp_mp(Fraction(3, 2), p), rel=REF_REL)


# ---------------------------------------------------------------------------
# Laplace: quadrature of the definition (about 0.5 s per point)
# ---------------------------------------------------------------------------


def _laplace_points(n: int, seed: int) -> list[tuple[Fraction, Fraction]]:
    rng = random.Random(seed)
    orders = _orders(rng, n, 1e5)
    return [(a, Fraction(f"{10 ** rng.uniform(math.log10(0.05), 3):.3g}")) for a in orders]


LAPLACE_EXTREMES = [
    (Fraction(a), Fraction(b))
    for a, b in [("1.0001", "0.05"), ("100000", "0.05"), ("1.0001", "1000"), ("100000", "1000"), ("1.5", "1")]
]


@pytest.mark.parametrize("alpha,b", LAPLACE_EXTREMES + _laplace_points(4, 11))
def test_laplace_matches_definition(alpha, b):
    ball = _certified(LaplaceEvent(b), alpha)
    ref = laplace_rdp_mp(alpha, b, 50)
    assert contains(ball, ref, rel=REF_REL), describe(ball, ref)
    assert rel_width(ball) <= Fraction(1, 10**DIGITS)


@pytest.mark.slow
@pytest.mark.parametrize("alpha,b", _laplace_points(60, 12))
def test_laplace_matches_definition_many(alpha, b):
    ball = _certified(LaplaceEvent(b), alpha)
    assert contains(ball, laplace_rdp_mp(alpha, b, 50), rel=REF_REL)


def test_laplace_integer_order_closed_form_rational_exponentials():
    # alpha = 2, b = 1: log(2/3 e + 1/3 e^-2), written out by hand
    with mpmath.workdps(60):
        ref = mpmath.log(mpmath.mpf(2) / 3 * mpmath.e + mpmath.exp(-2) / 3)
    assert contains(_certified(LaplaceEvent(1), Fraction(2)), ref, rel=Fraction(1, 10**55))


# ---------------------------------------------------------------------------
# pure DP and limits
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("b", ["0.05", "1", "1000"])
def test_laplace_pure_dp_is_limit_and_upper_bound(b):
    bb = Fraction(b)
    curve = rdp_curve(LaplaceEvent(bb))
    eps = curve.pure_dp_epsilon()
    assert contains(eps, Fraction(1) / bb)
    # RDP(alpha) <= eps_inf and approaches it
    big = refine(lambda p: curve.certified(Fraction(10**6)), DIGITS).ball
    assert big <= eps
    # eps_inf - RDP(alpha) = log(2)/(alpha-1) + O(alpha^-2): 6.93e-7 at alpha = 1e6
    gap = eps - big
    assert arb("6.9e-7") < gap < arb("7e-7")


@pytest.mark.parametrize("p", ["0.75", "0.01", "0.999999"])
def test_randomized_response_pure_dp(p):
    pp = Fraction(p)
    curve = rdp_curve(RandomizedResponseEvent(pp))
    eps = refine(lambda pr: curve.pure_dp_epsilon(), DIGITS).ball
    with mpmath.workdps(60):
        ref = abs(mpmath.log(mpmath.mpf(pp.numerator) / (pp.denominator - pp.numerator)))
    assert contains(eps, ref, rel=Fraction(1, 10**50))
    big = refine(lambda pr: curve.certified(Fraction(100)), DIGITS).ball
    assert big < eps


# ---------------------------------------------------------------------------
# dispatch and validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "event",
    [GaussianEvent("1.1"), LaplaceEvent("0.5"), RandomizedResponseEvent("0.7")],
    ids=["gaussian", "laplace", "rr"],
)
def test_reference_dispatch(event):
    a = Fraction(7, 2)
    ref = reference_rdp(event, a)
    assert contains(_certified(event, a), ref, rel=REF_REL)


@pytest.mark.parametrize(
    "make,bad,name",
    [
        (GaussianEvent, 0, "noise_multiplier"),
        (GaussianEvent, -1, "noise_multiplier"),
        (GaussianEvent, float("nan"), "noise_multiplier"),
        (GaussianEvent, float("inf"), "noise_multiplier"),
        (GaussianEvent, "abc", "noise_multiplier"),
        (GaussianEvent, True, "noise_multiplier"),
        (LaplaceEvent, 0, "scale"),
        (LaplaceEvent, "-2", "scale"),
        (RandomizedResponseEvent, 0, "p"),
        (RandomizedResponseEvent, 1, "p"),
        (RandomizedResponseEvent, "1.5", "p"),
        (RandomizedResponseEvent, "nan", "p"),
    ],
)
def test_bad_parameters_raise_named_value_error(make, bad, name):
    with pytest.raises(ValueError) as info:
        make(bad)
    assert str(info.value).startswith(name + " ")


@pytest.mark.parametrize("alpha", [Fraction(1), Fraction(1, 2), Fraction(-3)])
def test_order_at_most_one_rejected(alpha):
    with pytest.raises(ValueError, match=r"^alpha must be > 1"):
        rdp_curve(GaussianEvent(1)).certified(alpha)


def _mp_rational(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


HELPER_POINTS = [
    (Fraction(5, 2), Fraction(3, 2), Fraction(1, 3), Fraction(1, 5)),
    (Fraction(3), Fraction(1, 10), Fraction(7), Fraction(99, 100)),
    (Fraction(1001, 1000), Fraction(20), Fraction(1, 20), Fraction(1, 2) + Fraction(1, 10**6)),
]


@pytest.mark.parametrize("alpha,sigma,b,p", HELPER_POINTS, ids=["a2.5", "a3", "a1.001"])
def test_helpers_against_textbook_closed_forms(alpha, sigma, b, p):
    """The pure formula helpers, evaluated on exact inputs and on balls around them, contain
    the textbook forms of Mironov 2017 Table II evaluated in mpmath at 60 digits (Laplace in
    the form with the large exponential e^{(alpha-1)/b}, which the helper rearranges; randomized
    response as the two-outcome sum, which the helper evaluates in log space)."""
    with mpmath.workdps(60):
        a, bb, pp = _mp_rational(alpha), _mp_rational(b), _mp_rational(p)
        lap = mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) / bb) + (a - 1) / (2 * a - 1) * mpmath.exp(-a / bb)) / (
            a - 1
        )
        rr = mpmath.log(pp**a * (1 - pp) ** (1 - a) + (1 - pp) ** a * pp ** (1 - a)) / (a - 1)
        rr_pure = abs(mpmath.log(pp / (1 - pp)))
    ref_rel = Fraction(1, 10**50)
    with workprec(200):
        A, S, B, Pp = (to_arb(x) for x in (alpha, sigma, b, p))
        assert contains(gaussian_rdp(A, S), alpha / (2 * sigma**2))
        assert contains(laplace_rdp(A, B), lap, rel=ref_rel), describe(laplace_rdp(A, B), lap)
        assert contains(randomized_response_rdp(A, Pp), rr, rel=ref_rel)
        assert contains(laplace_pure_epsilon(B), 1 / b)
        assert contains(randomized_response_pure_epsilon(Pp), rr_pure, rel=ref_rel)
        assert width_ok(laplace_rdp(A, B), 40) and width_ok(randomized_response_rdp(A, Pp), 40)
        # inclusion principle: inputs with a radius still give balls that contain the value
        # at the exact (centre) point
        eps = arb(0, arb(2) ** -100)
        assert contains(gaussian_rdp(A + eps, S + eps), alpha / (2 * sigma**2))
        assert contains(laplace_rdp(A + eps, B + eps), lap, rel=ref_rel)
        assert contains(randomized_response_rdp(A + eps, Pp + eps), rr, rel=ref_rel)
