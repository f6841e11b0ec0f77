r"""RDP -> (epsilon, delta) conversions against hand-derived mpmath values.

Formulas (written out independently here, at 60 digits):

* Mironov 2017, Prop. 3:  eps = rdp + log(1/delta) / (alpha - 1)
* Canonne-Kamath-Steinke 2020, Prop. 12 (= Balle et al. 2020, Thm. 21):
  eps = rdp + log((alpha - 1)/alpha) - (log delta + log alpha) / (alpha - 1)
* their inverses for delta at a given eps, and the Bretagnolle-Huber bound
  TV <= sqrt(1 - exp(-rdp)).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from _refcheck import encloses, endpoints
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from rigorous_rdp.arith import certainly_lt, to_arb, workprec
from rigorous_rdp.conversion import (
    CONVERSIONS,
    delta_cks,
    delta_from_rdp,
    delta_mironov,
    delta_tv,
    epsilon_balle,
    epsilon_cks,
    epsilon_from_rdp,
    epsilon_mironov,
)

REL = Fraction(1, 10**50)
CASES = [
    ("3.1567", "4.6714", "1e-5"),
    ("0.5", "1.0001", "1e-10"),
    ("100", "256", "1e-300"),
    ("1e-8", "1.5", "0.5"),
    ("12.25", "2", "0.001"),
]


def _mp(x: str):
    f = Fraction(x)
    return mpmath.mpf(f.numerator) / f.denominator


def _balls(rdp, alpha, third):
    return to_arb(Fraction(rdp)), to_arb(Fraction(alpha)), to_arb(Fraction(third))


@pytest.mark.parametrize("rdp,alpha,delta", CASES)
def test_epsilon_formulas_match_hand_derived(rdp, alpha, delta):
    with mpmath.workdps(60):
        r, a, d = _mp(rdp), _mp(alpha), _mp(delta)
        mir = r + mpmath.log(1 / d) / (a - 1)
        cks = r + mpmath.log((a - 1) / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)
    with workprec(256):
        b = _balls(rdp, alpha, delta)
        em, ec, eb = epsilon_mironov(*b), epsilon_cks(*b), epsilon_balle(*b)
    assert encloses(em, mir, REL)
    assert encloses(ec, cks, REL)
    assert encloses(eb, cks, REL)
    assert certainly_lt(ec, em)  # CKS is always the tighter one


@pytest.mark.parametrize("rdp,alpha,eps", [("3.1567", "4.6714", "5.6"), ("0.01", "20", "1"), ("50", "200", "49")])
def test_delta_formulas_match_hand_derived(rdp, alpha, eps):
    with mpmath.workdps(60):
        r, a, e = _mp(rdp), _mp(alpha), _mp(eps)
        mir = mpmath.exp((a - 1) * (r - e))
        cks = mpmath.exp((a - 1) * (r - e + mpmath.log(1 - 1 / a))) / a
        tv = mpmath.sqrt(-mpmath.expm1(-r))
    with workprec(256):
        b = _balls(rdp, alpha, eps)
        dm, dc, dt = delta_mironov(*b), delta_cks(*b), delta_tv(b[0])
    assert encloses(dm, mir, REL)
    assert encloses(dc, cks, REL)
    assert encloses(dt, tv, REL)


@pytest.mark.parametrize("rdp,alpha,delta", CASES)
@pytest.mark.parametrize("conv", ["mironov", "cks"])
def test_round_trip_epsilon_delta(rdp, alpha, delta, conv):
    with workprec(300):
        r, a, d = _balls(rdp, alpha, delta)
        eps, name = epsilon_from_rdp(r, a, d, conv)
        if not eps > 0:
            pytest.skip("clamped at 0")
        back, _ = delta_from_rdp(r, a, eps, conv)
    assert name == conv
    assert encloses(back, Fraction(delta), Fraction(1, 10**60))


def test_best_picks_the_smallest_and_names_it():
    with workprec(128):
        r, a, d = _balls("3.1567", "4.6714", "1e-5")
        eps, name = epsilon_from_rdp(r, a, d, "best")
        assert name == "cks"
        for conv in ("mironov", "cks", "balle"):
            other, _ = epsilon_from_rdp(r, a, d, conv)
            assert not certainly_lt(other, eps)


def test_total_variation_route_gives_zero_epsilon():
    # rdp = 1e-8: TV <= sqrt(1 - e^-1e-8) ~ 1e-4, so delta = 0.001 holds with epsilon = 0
    with workprec(128):
        r, a, d = _balls("1e-8", "2", "0.001")
        eps, name = epsilon_from_rdp(r, a, d, "best")
    assert name == "tv" and endpoints(eps) == (0, 0)
    with workprec(128):
        r, a, d = _balls("1e-8", "2", "1e-5")  # TV bound 1e-4 > 1e-5: not applicable
        eps, name = epsilon_from_rdp(r, a, d, "best")
    assert name != "tv" and eps > 0


def test_negative_epsilon_clamped_at_zero():
    with workprec(128):
        r, a, d = _balls("1e-9", "2", "0.9")
        raw = epsilon_cks(r, a, d)  # log(1/2) - log(1.8) + 1e-9 < 0
        eps, _ = epsilon_from_rdp(r, a, d, "cks")
    assert endpoints(raw)[1] < 0
    assert endpoints(eps) == (0, 0)


def test_delta_clamped_at_one():
    with workprec(128):
        r, a, e = _balls("100", "2", "0")
        d, _ = delta_from_rdp(r, a, e, "mironov")
    assert endpoints(d)[1] <= 1


@pytest.mark.parametrize("fn", [epsilon_from_rdp, delta_from_rdp])
def test_unknown_conversion(fn):
    with pytest.raises(ValueError, match=r"^conversion must be one of"):
        fn(arb(1), arb(2), arb("0.5"), "renyi")
    assert set(CONVERSIONS) == {"best", "mironov", "cks", "balle"}


_delta = st.floats(min_value=-300, max_value=-0.5).map(lambda u: Fraction(f"{10**u:.3g}"))


@settings(max_examples=60, deadline=None)
@given(
    st.floats(min_value=-6, max_value=3).map(lambda u: Fraction(f"{10**u:.4g}")),
    st.floats(min_value=-3, max_value=3).map(lambda u: Fraction(f"{1 + 10**u:.4g}")),
    _delta,
    _delta,
)
def test_epsilon_decreasing_in_delta(rdp, alpha, d1, d2):
    if d1 == d2:
        return
    small, large = min(d1, d2), max(d1, d2)
    with workprec(128):
        e_small, _ = epsilon_from_rdp(to_arb(rdp), to_arb(alpha), to_arb(small))
        e_large, _ = epsilon_from_rdp(to_arb(rdp), to_arb(alpha), to_arb(large))
    assert not certainly_lt(e_small, e_large)


def test_matches_dp_accounting_compute_epsilon():
    r = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    orders, rdps = [4.5], [3.15674]
    eps, _ = r.compute_epsilon(orders, rdps, 1e-5)
    with workprec(128):
        ours, _ = epsilon_from_rdp(
            to_arb(Fraction(rdps[0])), to_arb(Fraction(orders[0])), to_arb(Fraction(1, 10**5)), "cks"
        )
    lo, hi = endpoints(ours)
    assert lo - Fraction(1, 10**12) <= Fraction(eps) <= hi + Fraction(1, 10**12)
