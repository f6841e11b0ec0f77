r"""Certified RDP of random allocation (balls-and-bins, k = 1) of the Gaussian mechanism
(:mod:`rigorous_rdp.subsampling.random_allocation`) against independent references.

* Remove direction (exact value): the certified balls contain the mpmath sum over integer
  partitions (a different code path from the series power) and the quadrature of the
  definition at t = 2.
* Add direction (an upper bound): it is not below the exact add-direction divergence (mpmath:
  quadrature at t = 2; the Gamma identity with the exact log-normal Laplace transform at larger t),
  and at t = 1000 it exceeds it by less than 1e-4 relative.
* Limits that are theorems: t = 1 is the Gaussian mechanism (alpha / (2 sigma^2), both
  directions, exact rationals); every value lies below alpha / (2 sigma^2) (the Hellinger-type
  integral is convex in each argument, so a mixture of N(e_i, .) is no further from N(0, .) than
  its components); the remove value is at least the one-bin partition term
  alpha / (2 sigma^2) - log t; RDP is non-decreasing in the order (van Erven & Harremoes 2014, Thm 3).
* Every integer order up to 1024 at t = 1000 (no timing), widths, composition over epochs,
  input validation, the RdpCurve.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from _containment import contains, not_above_upper, rel_width, upper
from flint import arb

from rigorous_rdp.conversion import epsilon_from_rdp
from rigorous_rdp.reference import random_allocation as ref
from rigorous_rdp.subsampling import random_allocation as ra

PREC = 128


@pytest.mark.parametrize("sigma", ["0.5", "1", "1.7", 3])
@pytest.mark.parametrize("t", [1, 2, 3, 7, 50, 1000])
def test_remove_contains_partition_sum(sigma, t):
    alphas = [2, 3, 5, 8, 13, 20]
    balls = ra.remove_rdp(sigma, t, alphas, prec=PREC)
    for a, ball in zip(alphas, balls, strict=True):
        reference = ref.remove_rdp_partition_sum(a, str(sigma), t, dps=60)
        assert contains(ball, reference, rel=Fraction(1, 10**35)), (sigma, t, a, ball, reference)
        assert rel_width(ball) < Fraction(1, 10**25), (sigma, t, a, ball)


def test_remove_contains_quadrature_at_two_steps():
    for a in (2, 4, 7):
        ball = ra.remove_rdp(Fraction(13, 10), 2, [a], prec=PREC)[0]
        reference = ref.remove_rdp_quadrature(a, "1.3", 2, dps=25)
        assert contains(ball, reference, rel=Fraction(1, 10**18)), (a, ball, reference)


def test_one_step_is_the_gaussian_mechanism():
    for sigma in (Fraction(1), Fraction(1, 2), Fraction(7, 3)):
        for a in (2, 3, 10, 64):
            exact = Fraction(a) / (2 * sigma**2)
            rem = ra.remove_rdp(sigma, 1, [a], prec=PREC)[0]
            add = ra.add_rdp(sigma, 1, [a], prec=PREC)[0]
            both = ra.rdp(sigma, 1, [a], prec=PREC)[0]
            for ball in (rem, add, both):
                assert contains(ball, exact), (sigma, a, ball)


def test_add_bound_holds_at_two_steps():
    """At t = 2 the bound is the geometric-mean one; it is not below the exact divergence."""
    for sigma in ("0.8", "1", "2"):
        for a in (2, 3, 6):
            ball = ra.add_rdp(sigma, 2, [a], prec=PREC)[0]
            exact = ref.add_rdp_quadrature(a, sigma, 2, dps=20)
            assert not_above_upper(exact, ball, rel=Fraction(1, 10**12)), (sigma, a, ball, exact)


@pytest.mark.parametrize(("t", "alpha"), [(1000, 2), (1000, 8)])
def test_add_bound_holds_and_is_tight_at_1000_steps(t, alpha):
    ball = ra.add_rdp(1, t, [alpha], prec=PREC)[0]
    exact = ref.add_rdp_laplace(alpha, 1, t, dps=15, nodes=40)
    assert not_above_upper(exact, ball, rel=Fraction(1, 10**10)), (ball, exact)
    assert upper(ball) <= mpmath_fraction(exact) * Fraction(10001, 10000), (ball, exact)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("t", "alpha"), [(30, 2), (100, 2), (100, 4), (100, 8), (1000, 16), (1000, 32), (10**5, 2), (10**5, 16)]
)
def test_add_bound_holds_slow(t, alpha):
    ball = ra.add_rdp(1, t, [alpha], prec=PREC)[0]
    exact = ref.add_rdp_laplace(alpha, 1, t, dps=20, nodes=100)
    assert not_above_upper(exact, ball, rel=Fraction(1, 10**12)), (t, alpha, ball, exact)


def mpmath_fraction(v) -> Fraction:
    return Fraction(mpmath.nstr(v, 30, min_fixed=-math.inf, max_fixed=math.inf))


def test_all_orders_to_1024_at_1000_steps():
    """Every integer order 2..1024 at sigma = 1, t = 1000: finite, narrow, non-decreasing, between the
    one-bin lower bound and the Gaussian value, the maximum at least each direction."""
    orders = list(range(2, 1025))
    rem = ra.remove_rdp(1, 1000, orders)
    both = ra.rdp(1, 1000, orders)
    log_t = arb(1000).log()
    for a, r, b in zip(orders, rem, both, strict=True):
        assert r.is_finite() and rel_width(r) < Fraction(1, 10**10), (a, r)
        assert r.upper() <= arb(a) / 2, a
        assert r.lower() >= arb(a) / 2 - log_t - arb(1) / 10**9 * a, a
        assert b.lower() >= r.lower() and b.upper() >= r.upper(), a
    for a, (r0, r1) in enumerate(itertools.pairwise(rem), start=2):
        assert r1.upper() >= r0.lower(), a


def test_add_and_remove_below_the_gaussian_value():
    for t in (10, 100, 1000):
        for a in (2, 5, 20):
            for ball in (ra.add_rdp(1, t, [a])[0], ra.remove_rdp(1, t, [a])[0]):
                assert ball.upper() <= arb(a) / 2, (t, a, ball)


def test_epochs_compose_additively():
    one = ra.rdp(1, 1000, [2, 13, 100])
    ten = ra.rdp(1, 1000, [2, 13, 100], epochs=10)
    for x, y in zip(one, ten, strict=True):
        assert (10 * x).overlaps(y)


def test_epsilon_at_the_issue_settings_is_not_below_the_pld_lower_bound():
    """sigma = 1, t = 1000, 10 epochs, delta = 1e-5: the RDP epsilon (an upper bound on the true
    epsilon) is not below the lower end 0.4565 of the float PLD bracket reported in issue 25."""
    orders = list(range(2, 257))
    vals = ra.rdp(1, 1000, orders, epochs=10)
    best = min(epsilon_from_rdp(v, arb(a), arb(1) / 10**5)[0].upper() for a, v in zip(orders, vals, strict=True))
    assert best >= arb("0.4565")


def test_large_step_count():
    vals = ra.rdp(1, 10**5, [2, 64, 512])
    assert all(v.is_finite() for v in vals)
    assert vals[0].upper() < arb(2) / 10**5  # about (e - 1) / t


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: ra.remove_rdp(0, 10, [2]), "noise_multiplier"),
        (lambda: ra.remove_rdp("-1", 10, [2]), "noise_multiplier"),
        (lambda: ra.remove_rdp(1, 0, [2]), "steps_per_epoch"),
        (lambda: ra.remove_rdp(1, 2.5, [2]), "steps_per_epoch"),
        (lambda: ra.remove_rdp(1, 10**10, [2]), "steps_per_epoch"),
        (lambda: ra.remove_rdp(1, 10, [1]), "orders"),
        (lambda: ra.remove_rdp(1, 10, [Fraction(5, 2)]), "orders"),
        (lambda: ra.remove_rdp(1, 10, [ra.MAX_ORDER + 1]), "orders"),
        (lambda: ra.remove_rdp(1, 10, []), "orders"),
        (lambda: ra.add_rdp(1, 10, [2], epochs=0), "epochs"),
        (lambda: ra.rdp(1, 10, [2], direction="sideways"), "direction"),
        (lambda: ra.RandomAllocationGaussianCurve(1, 10, direction="up"), "direction"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        call()


def test_curve_matches_the_functions_and_screens():
    curve = ra.RandomAllocationGaussianCurve(1, 1000, epochs=10)
    assert curve.integer_orders_only
    direct = ra.rdp(1, 1000, [2, 13], epochs=10)
    got = curve.certified_many([Fraction(2), Fraction(13)])
    for x, y in zip(direct, got, strict=True):
        assert x.overlaps(y)
    assert curve.certified(Fraction(13)).overlaps(direct[1])
    scr = curve.screen(np.array([2.0, 2.5, 13.0, 1.0]))
    assert np.isfinite(scr[0]) and np.isfinite(scr[2]) and scr[1] == np.inf and scr[3] == np.inf
    assert abs(scr[2] - float(direct[1].mid())) < 1e-9
    with pytest.raises(ValueError, match=r"^alpha must be an integer"):
        curve.certified(Fraction(5, 2))
    remove_only = ra.RandomAllocationGaussianCurve(1, 1000, direction="remove")
    add_only = ra.RandomAllocationGaussianCurve(1, 1000, direction="add")
    r, a = remove_only.certified(Fraction(2)), add_only.certified(Fraction(2))
    assert a.upper() < r.lower()  # at t = 1000 the add direction lies below the remove direction
