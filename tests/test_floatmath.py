"""Float log-space helpers against mpmath at 40 digits (independent values)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from rigorous_rdp import floatmath as fm

XS = [1e-300, 1e-12, 1e-5, 0.3, 1.0, 29.9, 30.1, 34.9, 35.1, 100.0, 699.0, 701.0, 5e5]


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


@pytest.mark.parametrize("x", XS)
def test_log_expm1(x):
    with mpmath.workdps(40):
        ref = float(mpmath.log(mpmath.expm1(mpmath.mpf(x))))
    assert rel(fm.log_expm1(x), ref) < 1e-13


@pytest.mark.parametrize("x", [-800.0, -40.0, -1.0, 0.0, 1.0, 34.9, 35.1, 40.0, 800.0])
def test_log1pexp(x):
    with mpmath.workdps(40):
        ref = float(mpmath.log1p(mpmath.exp(mpmath.mpf(x))))
    assert abs(fm.log1pexp(x) - ref) <= 1e-14 * max(abs(ref), 1e-300) + (1e-320 if ref == 0 else 0)


@pytest.mark.parametrize("x", [1e-10, 0.1, 0.69, 0.7, 5.0, 50.0])
def test_log1mexp(x):
    with mpmath.workdps(40):
        ref = float(mpmath.log(-mpmath.expm1(-mpmath.mpf(x))))
    assert rel(fm.log1mexp(x), ref) < 1e-13


def test_logsumexp_axis_and_empty():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(4, 9)) * 400
    with mpmath.workdps(40):
        ref = [float(mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(v)) for v in row))) for row in z]
        ref_all = float(mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(v)) for v in z.ravel())))
    assert np.allclose(fm.logsumexp(z, axis=1), ref, rtol=1e-14, atol=0)
    assert rel(fm.logsumexp(z), ref_all) < 1e-14
    assert fm.logsumexp([]) == -math.inf
    assert fm.logsumexp([-math.inf, -math.inf]) == -math.inf


@pytest.mark.parametrize("x", [0.5, 1.0, 1.5, 2.0, 7.9, 8.0, 8.1, 33.3, 1e4 + 0.5, 3.3e7, -0.5, -1.3, -12.7, -30.25])
def test_gammaln_and_sign(x):
    with mpmath.workdps(40):
        g = mpmath.gamma(mpmath.mpf(x))
        ref = float(mpmath.log(abs(g)))
        sgn = 1.0 if g > 0 else -1.0
    assert rel(fm.gammaln(x), ref) < 1e-12
    assert fm.gammasgn(x) == sgn


def test_gammaln_poles():
    assert fm.gammaln(-3.0) == math.inf
    assert fm.gammasgn(-3.0) == 0.0


@pytest.mark.parametrize("x", [-200.0, -38.0, -20.5, -19.5, -5.0, -1.0, 0.0, 1.0, 5.0, 9.0])
def test_log_ndtr(x):
    with mpmath.workdps(40):
        ref = float(mpmath.log(mpmath.ncdf(mpmath.mpf(x))))
    assert abs(fm.log_ndtr(x) - ref) <= 1e-11 * max(1.0, abs(ref))


def test_log_binom_real_and_factorials():
    a = 4.67
    lc, sg = fm.log_binom_real(a, 40)
    with mpmath.workdps(40):
        for k in (0, 1, 4, 5, 6, 39):
            c = mpmath.binomial(mpmath.mpf(a), k)
            assert rel(lc[k], float(mpmath.log(abs(c)))) < 1e-12
            assert sg[k] == (1.0 if c > 0 else -1.0)
    lf = fm.log_factorials(5000)
    with mpmath.workdps(40):
        assert rel(lf[5000], float(mpmath.loggamma(5001))) < 1e-12


def test_log_fraction_without_underflow():
    from fractions import Fraction

    assert rel(fm.log_fraction(Fraction(1, 10**400)), -400 * math.log(10)) < 1e-15
