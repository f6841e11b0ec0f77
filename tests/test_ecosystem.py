"""dp-accounting's conventions where the package mirrors its concepts: the argument order
``(sampling_probability, event)``, ``get_delta``, and numbers that convert with ``float()``
(to the conservative end of the certified enclosure)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb

from rigorous_rdp import RdpAccountant
from rigorous_rdp.arith import Certified, workprec
from rigorous_rdp.errors import InvalidParameter
from rigorous_rdp.events import Adjacency, GaussianEvent, LaplaceEvent, PoissonSampledEvent, ZhuWangSampledEvent
from rigorous_rdp.pld.results import _bracket

G = GaussianEvent("1.1")


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: PoissonSampledEvent("0.01", G), id="dp-accounting-order"),
        pytest.param(lambda: PoissonSampledEvent(G, "0.01"), id="earlier-order"),
        pytest.param(lambda: PoissonSampledEvent(sampling_probability="0.01", event=G), id="keywords"),
        pytest.param(lambda: PoissonSampledEvent(event=G, sampling_probability="0.01"), id="keywords-reversed"),
        pytest.param(lambda: PoissonSampledEvent("0.01", event=G), id="mixed"),
    ],
)
def test_poisson_event_either_order(make):
    ev = make()
    assert ev.event == G
    assert ev.sampling_probability == Fraction(1, 100)
    assert ev.adjacency is Adjacency.ADD_REMOVE
    assert ev == PoissonSampledEvent(Fraction(1, 100), G) and hash(ev) == hash(PoissonSampledEvent(G, "1/100"))


def test_poisson_event_order_with_adjacency():
    a = PoissonSampledEvent("0.5", LaplaceEvent(2), "replace-one")
    b = PoissonSampledEvent(LaplaceEvent(2), "0.5", Adjacency.REPLACE_ONE)
    assert a == b and a.adjacency is Adjacency.REPLACE_ONE and a.event == LaplaceEvent(2)


def test_zhu_wang_event_either_order():
    a = ZhuWangSampledEvent("0.02", G)
    b = ZhuWangSampledEvent(G, "0.02")
    assert a == b and a.event == G and a.sampling_probability == Fraction(1, 50)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        pytest.param(("0.1", "0.2"), "event must be a DpEvent", id="no-event"),
        pytest.param((G, G), "sampling_probability must be a number", id="two-events"),
        pytest.param(("2", G), "sampling_probability must be in [0, 1]", id="q-out-of-range"),
        pytest.param((G, "-1"), "sampling_probability must be in [0, 1]", id="q-out-of-range-earlier-order"),
    ],
)
def test_poisson_event_bad_arguments(args, needle):
    with pytest.raises(InvalidParameter, match=needle.replace("[", r"\[").replace("]", r"\]")):
        PoissonSampledEvent(*args)


def test_float_of_certified_is_its_upper_end():
    """float() rounds the upper end up: never below the exact value (1/3 here), and the next float
    down is below it (the rounding is the tightest one)."""
    with workprec(200):
        c = Certified(arb(1) / 3, 200)
    f = float(c)
    assert Fraction(f) >= Fraction(1, 3)
    assert Fraction(math.nextafter(f, -math.inf)) < Fraction(1, 3)
    wide = Certified(arb(0.5, 0.25), 64)  # [0.25, 0.75]: float() is the upper end, not the midpoint
    assert 0.75 <= float(wide) < 0.7500001


def test_float_of_bracket_is_its_exact_upper_end_rounded_up():
    b = _bracket(Fraction(1, 7), Fraction(2, 7))
    f = float(b)
    assert Fraction(f) >= Fraction(2, 7) and Fraction(math.nextafter(f, -math.inf)) < Fraction(2, 7)


def _gaussian_delta(eps: float, sigma: float) -> mpmath.mpf:
    """Exact delta(eps) of the Gaussian mechanism, sensitivity 1 (Balle and Wang 2018, Thm 8)."""
    s, e = mpmath.mpf(sigma), mpmath.mpf(eps)
    return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


def test_get_delta_and_float_of_results():
    """RdpAccountant().get_delta exists (dp-accounting's name) and bounds the exact Gaussian delta
    from above; float() of the results is their certified upper end."""
    acc = RdpAccountant().compose(GaussianEvent(2), 1)
    d = acc.get_delta(1)
    with mpmath.workdps(50):
        exact = _gaussian_delta(1, 2)
        assert mpmath.mpf(float(d)) >= exact
        assert mpmath.mpf(float(acc.get_delta_result(1))) >= exact
    res = acc.get_epsilon_result("1e-5")
    assert float(res) == float(res.epsilon) >= res.epsilon.lower_float()
    man, exp = res.epsilon.upper().mid().man_exp()
    upper = Fraction(int(man)) * Fraction(2) ** int(exp)
    assert Fraction(float(res.epsilon)) >= upper > Fraction(math.nextafter(float(res.epsilon), -math.inf))


def test_fixed_size_events_accept_dp_accounting_order():
    """``SampledWithoutReplacementDpEvent(source_dataset_size, sample_size, event)``'s order: the
    event last means (dataset_size, batch_size, event)."""
    from rigorous_rdp.events import FixedSizeSampledEvent, Wang2019SampledEvent

    a = FixedSizeSampledEvent(50000, 256, G)
    assert a == FixedSizeSampledEvent(G, 256, 50000)
    assert (a.batch_size, a.dataset_size, a.sampling_probability) == (256, 50000, Fraction(256, 50000))
    assert FixedSizeSampledEvent(50000, 256, G, True).replacement is True
    assert Wang2019SampledEvent(50000, 120, G) == Wang2019SampledEvent(G, 120, 50000)
    with pytest.raises(InvalidParameter, match="batch_size must be <= dataset_size"):
        FixedSizeSampledEvent(256, 50000, G)  # in dp-accounting's order the dataset comes first
