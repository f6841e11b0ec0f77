"""Tests of the exact Gaussian (epsilon, delta) (analytic Gaussian mechanism)."""

from fractions import Fraction

import mpmath
import pytest
from _containment import contains
from flint import arb

from rigorous_rdp.arith import rel_width_ok
from rigorous_rdp.research.gaussian_dp import (
    gaussian_delta,
    gaussian_delta_certified,
    gaussian_delta_float,
    gaussian_epsilon,
    gaussian_sigma,
)


def ref_delta_closed(eps, sigma, dps=50):
    with mpmath.workdps(dps):
        e, s = mpmath.mpf(eps), mpmath.mpf(sigma)
        return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


def ref_delta_hockey_stick(eps, sigma, dps=30):
    """Independent route: integral of (p - e^eps q)_+ for p = N(1, s^2), q = N(0, s^2);
    positive for x > 1/2 + eps s^2."""
    with mpmath.workdps(dps):
        e, s = mpmath.mpf(eps), mpmath.mpf(sigma)
        x0 = mpmath.mpf(1) / 2 + e * s * s

        def f(x):
            return mpmath.npdf(x, 1, s) - mpmath.exp(e) * mpmath.npdf(x, 0, s)

        return mpmath.quad(f, [x0, x0 + 5 * s, x0 + 20 * s, mpmath.inf])


def _contains(ball, ref, digits=40):
    """Containment (tests/_containment.py) of an mpmath reference good to ``digits`` digits."""
    return contains(ball, ref, rel=Fraction(1, 10**digits))


@pytest.mark.parametrize("eps,sigma", [("0", "1"), ("1", "1"), ("0.5", "5"), ("4", "0.7"), ("30", "2")])
def test_delta_against_mpmath(eps, sigma):
    c = gaussian_delta_certified(eps, sigma, digits=20)
    ref = ref_delta_closed(eps, sigma, 60)
    assert _contains(c.ball, ref)
    assert rel_width_ok(c.ball, 19)
    hs = ref_delta_hockey_stick(eps, sigma)
    assert abs(hs - ref) <= mpmath.mpf(10) ** -20 * ref + mpmath.mpf(10) ** -40


def test_tiny_delta_no_underflow():
    c = gaussian_delta_certified("60", "3", digits=10)
    ref = ref_delta_closed("60", "3", 80)
    assert ref < mpmath.mpf(10) ** -300
    assert _contains(c.ball, ref)


def test_float_screen_close():
    assert abs(float(gaussian_delta_float(1.0, 1.0)) - 0.12693673750664397) < 1e-12


def test_epsilon_inversion():
    r = gaussian_epsilon("1e-5", "1", digits=12)
    assert gaussian_delta(r.upper(), 1, prec=128) <= arb("1e-5")
    assert gaussian_delta(r.lower(), 1, prec=128) > arb("1e-5")
    assert r.relative_width() < 1e-11
    # mpmath root as a second opinion
    with mpmath.workdps(40):
        root = mpmath.findroot(lambda e: ref_delta_closed(e, 1, 40) - mpmath.mpf("1e-5"), 4.4)
    assert _contains(r.ball, root, 30)


def test_epsilon_zero_when_delta_large():
    # delta(0) = 2 Phi(1/(2 sigma)) - 1 ~ 0.0399 for sigma = 5
    r = gaussian_epsilon("0.5", "5")
    assert r.upper() == 0


def test_sigma_calibration():
    r = gaussian_sigma("1", "1e-5", digits=12)
    assert gaussian_delta(1, r.upper(), prec=128) <= arb("1e-5")
    assert gaussian_delta(1, r.lower(), prec=128) > arb("1e-5")
    assert r.relative_width() < 1e-11
    # mpmath root of the closed form as an independent reference for the exact sigma
    with mpmath.workdps(40):
        root = mpmath.findroot(lambda s: ref_delta_closed(1, s, 40) - mpmath.mpf("1e-5"), 3.7)
    assert _contains(r.ball, root, 30)
    # Balle & Wang 2018 improve on the classical sqrt(2 log(1.25/delta))/eps = 4.84
    assert r.upper() < 4.84


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: gaussian_delta(1, 0), "sigma must be > 0"),
        (lambda: gaussian_delta(-1, 1), "epsilon must be >= 0"),
        (lambda: gaussian_delta("x", 1), "epsilon must be a number"),
        (lambda: gaussian_epsilon("0", 1), "delta must be in"),
        (lambda: gaussian_epsilon("1e-5", "-2"), "sigma must be > 0"),
        (lambda: gaussian_sigma("1", "1.5"), "delta must be in"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()
