"""Lower bounds are never turned into privacy guarantees."""

import pytest

from rigorous_rdp import LaplaceEvent, RdpAccountant
from rigorous_rdp.subsampling.zhu_wang import ZhuWangSampledEvent


def test_lower_bound_curve_is_shown_but_not_converted():
    acc = RdpAccountant().compose(ZhuWangSampledEvent(LaplaceEvent(2), "0.001", bound="lower"), 10)
    shown = acc.rdp(3).rdp
    assert shown.ball > 0
    with pytest.raises(ValueError, match="^bound .*lower bound"):
        acc.get_epsilon_and_order("1e-5")
    with pytest.raises(ValueError, match="^bound .*lower bound"):
        acc.get_delta_and_order(1)


def test_tight_bound_converts_and_exceeds_lower():
    lower = RdpAccountant().compose(ZhuWangSampledEvent(LaplaceEvent(2), "0.001", bound="lower"), 10)
    tight = RdpAccountant().compose(ZhuWangSampledEvent(LaplaceEvent(2), "0.001", bound="tight"), 10)
    assert lower.rdp(3).rdp.ball <= tight.rdp(3).rdp.ball.upper()
    assert tight.get_epsilon("1e-5").upper_float() > 0
