"""How a certified result reads as a number: comparisons as its ``float()`` (the upper end rounded
up), the short ``Bracket`` repr, and dp-accounting's names on the native API.

Independent values: exact rationals, and the closed form of the composed Gaussian's optimal
epsilon (Balle & Wang 2018, Thm. 8) solved in mpmath at 50 digits.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from _containment import contains
from flint import arb, fmpq

from rigorous_rdp import GaussianEvent, LaplaceEvent, RdpAccountant
from rigorous_rdp.arith import Certified, workprec
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.reference import reference_rdp

THIRD = Fraction(1, 3)


def _third() -> Certified:
    with workprec(53):
        return Certified(arb(fmpq(1, 3)), 53)  # a ball around 1/3 with a nonzero radius


def _gaussian_epsilon(sigma: int, steps: int, delta: str) -> mpmath.mpf:
    """The optimal epsilon of ``steps`` Gaussian mechanisms of noise ``sigma`` at ``delta``:
    the root of Phi(mu/2 - e/mu) - e^e Phi(-mu/2 - e/mu) = delta, mu = sqrt(steps)/sigma."""
    with mpmath.workdps(50):
        mu = mpmath.sqrt(steps) / sigma

        def excess(e):
            return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu) - mpmath.mpf(delta)

        return mpmath.findroot(excess, (mpmath.mpf("0.1"), mpmath.mpf(20)), solver="illinois")


@pytest.mark.parametrize(
    "other",
    [0.3, 0.33333333333333331, 0.33333333333333337, 0.34, THIRD, THIRD + Fraction(1, 10**30), Decimal("0.3334"), 1],
    ids=["below", "float_below", "float_above", "above", "exact", "just_above", "decimal", "int"],
)
def test_comparisons_are_those_of_the_float_upper_end(other):
    c = _third()
    up = float(c)
    assert Fraction(up) >= THIRD  # the float reading is an upper bound of the exact value
    assert (c < other) is (up < other) and (c <= other) is (up <= other)
    assert (c > other) is (up > other) and (c >= other) is (up >= other)
    assert (other > c) is (up < other) and (other >= c) is (up <= other)  # reflected
    if c <= other:  # the safe direction: a "within budget" answer is a proof
        assert Fraction(other) >= THIRD


def test_a_result_within_budget_is_a_proof():
    """Every composed Gaussian result that compares <= a budget has its exact optimal epsilon within it
    (RDP: an upper bound of the optimum; PLD: the bracket's upper end)."""
    exact = _gaussian_epsilon(2, 10, "1e-5")  # 7.51127590...
    rdp = RdpAccountant().compose(GaussianEvent(2), 10).get_epsilon_result("1e-5")
    pld = PldAccountant().compose(GaussianEvent(2), 10).get_epsilon_result("1e-5")
    for res in (rdp, rdp.epsilon, pld, pld.epsilon):
        assert res <= float(res) and not res < float(res)
        assert res <= 9 and not res <= 7.5
    assert pld <= rdp and rdp >= pld  # results compare with each other by their float upper ends
    assert Fraction(float(pld.epsilon)) >= Fraction(str(mpmath.nstr(exact, 40))) - Fraction(1, 10**30)


@pytest.mark.parametrize("other", ["1", None, [1], arb(1)], ids=["str", "none", "list", "arb"])
def test_non_numbers_are_not_compared(other):
    with pytest.raises(TypeError):
        _ = _third() < other


def test_numpy_floats_and_sorting():
    c = _third()
    assert c < np.float64(0.34) and c < np.float32(0.34) and not c < np.float32(0.33)
    assert sorted([0.5, c, 0.25]) == [0.25, c, 0.5]
    assert not c < float("nan") and not c > float("nan") and c < float("inf")


def test_bracket_repr_is_short_and_brackets_the_optimum():
    exact = _gaussian_epsilon(2, 10, "1e-5")
    b = PldAccountant().compose(GaussianEvent(2), 10).get_epsilon("1e-5")
    text = repr(b)
    m = re.fullmatch(r"Bracket\(lower=([0-9.e+-]+), upper=([0-9.e+-]+), claim='([^']+)'\)", text)
    assert m is not None and len(text) < 100, text
    lo, up = Fraction(m[1]), Fraction(m[2])
    assert len(m[1].replace(".", "").lstrip("0")) <= 10 and len(m[2].replace(".", "").lstrip("0")) <= 10
    ex = Fraction(mpmath.nstr(exact, 45))
    assert lo <= ex - Fraction(1, 10**40) and ex + Fraction(1, 10**40) <= up  # rounded outward around the optimum
    assert up - lo < Fraction(1, 10**8)
    assert str(b) == text


def test_laplace_event_takes_dp_accountings_name():
    assert LaplaceEvent(noise_multiplier="1/2") == LaplaceEvent(Fraction(1, 2)) == LaplaceEvent(scale=0.5)
    assert LaplaceEvent(3).noise_multiplier == 3
    with pytest.raises(ValueError, match=r"^noise_multiplier must be > 0\. Found -1\.$"):
        LaplaceEvent(noise_multiplier=-1)
    with pytest.raises(TypeError, match="not both"):
        LaplaceEvent(1, noise_multiplier=1)
    # the same curve either way: Laplace RDP at alpha = 2, scale 1/2 (Mironov 2017, Prop. 6) against mpmath
    ball = RdpAccountant().compose(LaplaceEvent(noise_multiplier="1/2")).rdp(2).rdp.ball
    assert contains(ball, reference_rdp(LaplaceEvent(Fraction(1, 2)), 2), rel=Fraction(1, 10**30))


def test_native_accountant_has_dp_accountings_order_methods():
    acc = RdpAccountant().compose(GaussianEvent(2), 10)
    eps, order = acc.get_epsilon_and_optimal_order("1e-5")
    res = acc.get_epsilon_and_order("1e-5")
    assert eps.to_json() == res.epsilon.to_json() and order == res.order and isinstance(order, Fraction) and order > 1
    # a Gaussian's RDP is alpha T / (2 sigma^2); epsilon at the order by CKS Prop. 12 or Mironov Prop. 3
    # is at least the RDP route's minimum over orders, which is above the optimal epsilon
    assert eps >= float(_gaussian_epsilon(2, 10, "1e-5"))
    delta, d_order = acc.get_delta_and_optimal_order(9)
    same = acc.get_delta_and_order(9)
    assert delta.to_json() == same.delta.to_json() and d_order == same.order
    assert 0 < float(delta) < 1e-5
