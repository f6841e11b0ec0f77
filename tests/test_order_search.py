r"""The order search without a cap, and integer orders certified by truncated sums.

Independent values: the three examples of the issue "Sharp by default" (the
same accountant given larger orders: 0.0027050, 0.0026280, 0.0051058), and
mpmath sums of all terms of the binomial expansion at 40-60 digits.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from _mpcheck import contains

from rigorous_rdp import GaussianEvent, PoissonSampledEvent, RdpAccountant
from rigorous_rdp.arith import refine, to_arb, workprec
from rigorous_rdp.subsampling import poisson_gaussian as pg


@pytest.mark.parametrize(
    "q, sigma, steps, delta, larger_orders, old_default",
    [
        ("1e-4", "20", 10**4, "1e-10", 0.0027050, 0.0072923),
        ("1e-3", "50", 10**3, "1e-8", 0.0026280, 0.0051960),
        ("1e-6", "10", 10**3, "1e-10", 0.0051058, 0.0070359),
    ],
)
def test_issue_examples_reach_the_large_order_value(q, sigma, steps, delta, larger_orders, old_default):
    acc = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent(sigma), q), steps)
    res = acc.get_epsilon_and_order(delta)
    eps = res.epsilon.upper_float()
    # within 0.1% of the value found with larger orders (5 digits given), far below the capped default
    assert eps <= larger_orders * 1.001
    assert eps >= larger_orders * 0.999
    assert eps < old_default / 1.3
    assert res.order > 2048
    assert res.order_search["method"].startswith("bracketed")
    lo, hi = res.order_search["bracket"]
    assert lo <= float(res.order) <= hi


def test_result_says_how_the_order_was_found():
    acc = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent("1.1"), "0.01"), 10000)
    j = acc.get_epsilon_and_order("1e-5").to_json()
    assert j["order_search"]["method"] == "bracketed+brent"
    assert j["order_search"]["certified"] >= 1
    grid = RdpAccountant(continuous=False).compose(PoissonSampledEvent(GaussianEvent("1.1"), "0.01"), 10000)
    assert grid.get_epsilon_and_order("1e-5").to_json()["order_search"]["method"] == "grid"


def test_continuous_search_not_worse_than_grid():
    ev = PoissonSampledEvent(GaussianEvent("1.1"), "0.01")
    cont = RdpAccountant().compose(ev, 10000).get_epsilon_and_order("1e-5")
    grid = RdpAccountant(continuous=False).compose(ev, 10000).get_epsilon_and_order("1e-5")
    assert cont.epsilon.upper() <= grid.epsilon.upper()
    # dp-accounting's value on its grid (5.632010670081592) is not below ours
    assert cont.epsilon.upper_float() < 5.6320107


def _mp_log_a_int(alpha: int, q: Fraction, sigma: Fraction, dps: int = 40):
    """log A_alpha by the full binomial sum in mpmath (every term)."""
    with mpmath.workdps(dps):
        qm = mpmath.mpf(q.numerator) / q.denominator
        s2 = 2 * (mpmath.mpf(sigma.numerator) / sigma.denominator) ** 2
        total = mpmath.mpf(0)
        for k in range(2, alpha + 1):
            total += mpmath.binomial(alpha, k) * qm**k * (1 - qm) ** (alpha - k) * mpmath.expm1(k * (k - 1) / s2)
        return mpmath.log1p(total)


@pytest.mark.parametrize(
    "alpha, q, sigma",
    [
        (5000, Fraction(1, 10**4), Fraction(20)),  # head only
        pytest.param(10000, Fraction(1, 10**4), Fraction(20), marks=pytest.mark.slow),  # head and top terms
        pytest.param(8000, Fraction(1, 10**3), Fraction(30), marks=pytest.mark.slow),
        (5000, Fraction(1, 10**3), Fraction(3)),  # top terms dominate
    ],
)
def test_truncated_integer_sum_contains_full_sum(alpha, q, sigma):
    plan = pg.integer_tail_plan(
        alpha, float(q), float(sigma), pg._screen_log_i(alpha, float(q), float(sigma)) - 100 * math.log(2)
    )
    assert plan is not None  # the truncation is used here (not the loop over all terms)
    cert = refine(lambda prec: pg.poisson_gaussian_rdp(Fraction(alpha), q, sigma, prec), 12)
    with mpmath.workdps(40):
        ref = _mp_log_a_int(alpha, q, sigma) / (alpha - 1)
    assert contains(cert, ref)
    assert cert.relative_width() < 1e-12


def test_tail_bound_is_an_upper_bound_of_the_omitted_terms():
    alpha, q, sigma = 6000, Fraction(1, 10**4), Fraction(20)
    # a deliberately short head: the omitted terms are not negligible, the bound must still hold
    K = 40
    blocks = [(m, min(m + 99, alpha)) for m in range(K + 1, alpha + 1, 100)]
    with workprec(80):
        bound = pg.integer_tail_bound(alpha, to_arb(q), to_arb(sigma), blocks)
    with mpmath.workdps(40):
        qm = mpmath.mpf(1) / 10**4
        s2 = 2 * mpmath.mpf(20) ** 2
        omitted = mpmath.fsum(
            mpmath.binomial(alpha, k) * qm**k * (1 - qm) ** (alpha - k) * mpmath.expm1(k * (k - 1) / s2)
            for k in range(K + 1, 400)
        )
    # terms beyond 400 are below 1e-600 and only make the omitted sum larger
    with workprec(80):
        assert bound > to_arb(Fraction(str(mpmath.nstr(omitted, 30, min_fixed=-1000, max_fixed=1000))))


def test_orders_up_to_1e7_are_certified_quickly():
    import time

    acc = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent("100"), "1e-8"), 1)
    t0 = time.process_time()
    r = acc.rdp(10**7)
    assert time.process_time() - t0 < 5
    # at this order the top term k = alpha dominates: log A ~ alpha log q + alpha(alpha-1)/(2 sigma^2)
    a = 10**7
    lead = (a * math.log(1e-8) + a * (a - 1) / 20000) / (a - 1)
    assert abs(r.rdp.upper_float() - lead) / lead < 1e-6


def test_tiny_q_optimum_beyond_a_million():
    acc = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent("300"), "1e-9"), 100)
    res = acc.get_epsilon_and_order("1e-12")
    a = float(res.order)
    assert a > 10**6
    # rdp >= 0, so epsilon is at least the conversion term of CKS at that order (closed form)
    floor = math.log1p(-1 / a) - (math.log(1e-12) + math.log(a)) / (a - 1)
    assert res.epsilon.upper_float() >= floor
    # and the search did not stop early: the orders 2^20 and 2^22 give more
    grid = RdpAccountant([2**20, 2**22], continuous=False).compose(
        PoissonSampledEvent(GaussianEvent("300"), "1e-9"), 100
    )
    assert res.epsilon.upper() < grid.get_epsilon_and_order("1e-12").epsilon.lower()
