"""Issue 23 leftovers: delta at epsilon 0 (total variation) and huge-exponent deltas, against
independent values."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from fractions import Fraction as F
from pathlib import Path

import mpmath
import pytest

from rigorous_rdp import GaussianEvent, RandomizedResponseEvent
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.reference import pld as ref


def _delta(event, steps, eps):
    res = PldAccountant().compose(event, steps).get_delta_result(eps).delta
    with mpmath.workdps(60):
        return (
            mpmath.mpf(res.lo_exact.numerator) / res.lo_exact.denominator,
            mpmath.mpf(res.up_exact.numerator) / res.up_exact.denominator,
        )


@pytest.mark.parametrize(("sigma", "steps"), [(F(1), 1), (F(1, 2), 10), (F(100), 1000)])
def test_gaussian_delta_at_zero_is_the_total_variation(sigma, steps):
    """delta(0) of N(mu, 1) vs N(0, 1) is the total variation 2 Phi(mu/2) - 1, mu = sqrt(T)/sigma."""
    with mpmath.workdps(40):
        mu = mpmath.sqrt(steps) / mpmath.mpf(sigma.numerator) * sigma.denominator
        tv = mpmath.erf(mu / (2 * mpmath.sqrt(2)))
        lo, up = _delta(GaussianEvent(sigma), steps, 0)
        assert lo <= tv * (1 + mpmath.mpf(10) ** -30) and tv * (1 - mpmath.mpf(10) ** -30) <= up
        assert up - lo <= tv * mpmath.mpf(10) ** -15


@pytest.mark.parametrize(("p", "steps"), [(F(3, 4), 1), (F(3, 5), 11), (F(99, 100), 40)])
def test_randomized_response_delta_at_zero_is_the_exact_sum(p, steps):
    """delta(0) = sum over k > T/2 of P(k) - Q(k) (exact binomial sum, 40 digits)."""
    tv = ref.randomized_response_delta(p, steps, 0, dps=40)
    lo, up = _delta(RandomizedResponseEvent(p), steps, 0)
    mpmath.mp.dps = 60  # restored by conftest
    assert lo <= tv * (1 + mpmath.mpf(10) ** -30) and tv * (1 - mpmath.mpf(10) ** -30) <= up
    assert up - lo <= tv * mpmath.mpf(10) ** -15


def test_tiny_gaussian_delta_prints_promptly_and_brackets_the_truth():
    """sigma 1e4, one step, epsilon 1: delta ~ 5e-21714737 (a binary exponent of 72 million bits). The
    printed ends bracket log10 of the closed form (mpmath, Mills ratio by erfc, 80 digits)."""
    t0 = time.perf_counter()
    query = ["delta", "--sigma", "1e4", "--steps", "1", "--epsilon", "1", "--method", "pld", "--json"]
    out = subprocess.run(
        [sys.executable, "-W", "error", "-m", "rigorous_rdp", *query],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        check=True,
    )
    elapsed = time.perf_counter() - t0
    d = json.loads(out.stdout)["delta"]
    with mpmath.workdps(80):  # the difference of Mills ratios cancels about 10 digits
        mu, eps = mpmath.mpf(10) ** -4, mpmath.mpf(1)
        a = eps / mu - mu / 2

        # delta = phi(a) (R(a) - R(a + mu)) with Mills' ratio R by mpmath's erfc (scaled, no underflow)
        def mills(x):
            return mpmath.sqrt(mpmath.pi / 2) * mpmath.erfc(x / mpmath.sqrt(2)) * mpmath.exp(x**2 / 2)

        log10_delta = (-(a**2) / 2 - mpmath.log(mpmath.sqrt(2 * mpmath.pi)) + mpmath.log(mills(a) - mills(a + mu))) / (
            mpmath.log(10)
        )

        def log10_of(text):
            mant, exp = text.split("e")
            return mpmath.log10(mpmath.mpf(mant)) + int(exp)

        assert log10_of(d["lower"]) <= log10_delta + mpmath.mpf(10) ** -20
        assert log10_delta - mpmath.mpf(10) ** -20 <= log10_of(d["upper"])
        assert log10_of(d["upper"]) - log10_of(d["lower"]) < mpmath.mpf(10) ** -12
    assert elapsed < 30  # was minutes (a power of ten of 21 million digits); ~1 s on a quiet machine


def test_astronomically_small_gaussian_delta_is_bounded_promptly():
    """sigma 1e4, one step, epsilon 10: delta ~ 1e-2171472422 (its exact rational ends would need a
    7e9-bit denominator); the bracket is [0, 2^-TINY_BITS], above the truth (log10 from mpmath)."""
    from rigorous_rdp.pld.closed_form import TINY_BITS, GaussianComposition

    t0 = time.perf_counter()
    res = GaussianComposition(F(1, 10**8)).delta_result(F(10)).delta
    assert time.perf_counter() - t0 < 30  # was minutes
    with mpmath.workdps(40):
        a = mpmath.mpf(10) / mpmath.mpf(10) ** -4
        log10_truth_bound = (-(a**2) / 2) / mpmath.log(10)  # delta <= Phi_bar(a) <= phi(a)/a < e^(-a^2/2)
        assert res.lo_exact == 0
        assert res.up_exact == F(1, 2**TINY_BITS) and log10_truth_bound < -TINY_BITS * mpmath.log10(2)
