"""The certified PLD accountant behind dp-accounting's own interface and events.

Independent values: closed forms in mpmath (the T-fold and heterogeneous Gaussian, one
Laplace step), the exact binomial sum of composed randomized response, and dp-accounting's
own PLD accountant (a float code path) at a fine grid, with a tolerance.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from _dp_peer import NR, PS, G, dp_accounting, quiet_absl  # noqa: F401 -- quiet_absl: an autouse fixture

from rigorous_rdp.integrations.dp_accounting import CertifiedPldAccountant

pytestmark = pytest.mark.peers


def _gaussian_delta(mu, eps):
    """delta(eps) of N(mu, 1) vs N(0, 1) (Balle & Wang 2018, Thm 8), in mpmath."""
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _inside(bracket, value, slack=0.0):
    lo, up = bracket
    return lo - slack <= value <= up + slack


def _peer(event, count, relation=NR.ADD_OR_REMOVE_ONE, interval=1e-4):
    return dp_accounting.pld.PLDAccountant(relation, value_discretization_interval=interval).compose(event, count)


def test_is_a_dp_accounting_accountant():
    acc = CertifiedPldAccountant()
    assert isinstance(acc, dp_accounting.PrivacyAccountant)
    assert acc.get_epsilon(1e-5) == 0.0 and acc.get_delta(0.5) == 0.0  # nothing composed
    ev = PS(0.01, G(1.1))
    assert acc.supports(ev)
    assert acc.compose(ev, 100) is acc
    assert acc.ledger == dp_accounting.SelfComposedDpEvent(ev, 100)


def test_gaussian_closed_form_self_composed():
    # 10 Gaussian steps of noise 2 are one Gaussian with mu = sqrt(10)/2
    mpmath.mp.dps = 40
    acc = CertifiedPldAccountant().compose(dp_accounting.SelfComposedDpEvent(G(2.0), 5), 2)
    for eps in (0.0, 0.5, 1.0, 3.0):
        ref = float(_gaussian_delta(mpmath.sqrt(10) / 2, eps))
        assert _inside(acc.get_delta_bracket(eps), ref)
        assert acc.get_delta(eps) >= ref
    # epsilon at delta = 1e-5: invert the closed form with mpmath
    ref_eps = mpmath.findroot(lambda e: _gaussian_delta(mpmath.sqrt(10) / 2, e) - mpmath.mpf("1e-5"), 4)
    lo, up = acc.get_epsilon_bracket(1e-5)
    assert lo <= float(ref_eps) <= up and up - lo <= 0.011


def test_heterogeneous_composition_closed_form():
    # Gaussians of noise 3 and 4 compose to one of noise 12/5 (1/9 + 1/16 = 25/144)
    mpmath.mp.dps = 40
    acc = CertifiedPldAccountant().compose(dp_accounting.ComposedDpEvent([G(3.0), G(4.0)]))
    for eps in (0.1, 1.0):
        assert _inside(acc.get_delta_bracket(eps), float(_gaussian_delta(mpmath.mpf(5) / 12, eps)))


def test_laplace_one_step_closed_form():
    # Laplace scale b, sensitivity 1: delta(eps) = 1 - exp((eps - 1/b)/2) for eps < 1/b
    mpmath.mp.dps = 40
    acc = CertifiedPldAccountant().compose(dp_accounting.LaplaceDpEvent(0.5))
    for eps in (0.0, 0.5, 1.5):
        ref = 1 - mpmath.exp((mpmath.mpf(eps) - 2) / 2)
        assert _inside(acc.get_delta_bracket(eps), float(ref))


def test_randomized_response_exact_binomial_sum_and_peer():
    # dp-accounting's RR(p, 2) under REPLACE_ONE keeps the bit w.p. 1 - p/2; T steps: binomial law
    mpmath.mp.dps = 40
    p, steps = 0.5, 20
    keep = 1 - mpmath.mpf("0.5") / 2
    loss = mpmath.log(keep / (1 - keep))

    def delta(eps):
        return mpmath.fsum(
            mpmath.binomial(steps, k)
            * keep**k
            * (1 - keep) ** (steps - k)
            * max(0, 1 - mpmath.exp(eps - (2 * k - steps) * loss))
            for k in range(steps + 1)
        )

    ev = dp_accounting.RandomizedResponseDpEvent(p, 2)
    acc = CertifiedPldAccountant(NR.REPLACE_ONE).compose(ev, steps)
    # dp-accounting 0.6's PLD accountant drops the count of a RandomizedResponseDpEvent
    # (compose(ev, 20) accounts one step), so the peer composes it 20 times with count 1
    assert _peer(ev, steps, NR.REPLACE_ONE).get_delta(0.5) == pytest.approx(
        float(keep - mpmath.exp(0.5) * (1 - keep)), rel=1e-3
    )
    peer = dp_accounting.pld.PLDAccountant(NR.REPLACE_ONE, value_discretization_interval=1e-4)
    for _ in range(steps):
        peer.compose(ev)
    for eps in (0.5, 2.0, 5.0):
        bracket = acc.get_delta_bracket(eps)
        assert _inside(bracket, float(delta(mpmath.mpf(eps))))
        assert _inside(bracket, peer.get_delta(eps), slack=1e-3 * peer.get_delta(eps))


@pytest.mark.parametrize(
    ("event", "count"),
    [
        (PS(0.01, G(1.1)), 1000),
        (PS(0.05, G(2.0)), 200),
        (dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(3.0), 4), 1),
    ],
)
def test_brackets_overlap_dp_accounting_pld(event, count):
    # dp-accounting's PLD at interval 1e-4 is a float computation with its own discretisation
    # error: compare with a tolerance, never exactly
    acc = CertifiedPldAccountant().compose(event, count)
    peer = _peer(event, count)
    lo, up = acc.get_epsilon_bracket(1e-5)
    eps_peer = peer.get_epsilon(1e-5)
    assert lo - 2e-3 <= eps_peer <= up + 2e-3
    dlo, dup = acc.get_delta_bracket(1.0)
    d_peer = peer.get_delta(1.0)
    assert dlo * (1 - 1e-2) <= d_peer <= dup * (1 + 1e-2)


def test_fixed_size_without_replacement_add_remove():
    # dp-accounting's PLD refuses it; here it is accounted through dominating pairs (lower end 0)
    ev = dp_accounting.SampledWithoutReplacementDpEvent(1000, 10, G(1.0))
    assert not dp_accounting.pld.PLDAccountant().supports(ev)
    acc = CertifiedPldAccountant()
    assert acc.supports(ev)
    lo, up = acc.compose(ev, 100).get_epsilon_bracket(1e-5)
    assert lo == 0.0
    # no better than the Gaussian of noise 1/2 with every record in the batch (mu = 2 per step):
    # fixed-size sampling of b = 10 out of 1000 cannot be worse than publishing each step in full
    mpmath.mp.dps = 30
    worst = mpmath.findroot(lambda e: _gaussian_delta(20, e) - mpmath.mpf("1e-5"), 200)
    assert 0 < up < float(worst)


def test_refusals_name_what_is_missing():
    acc = CertifiedPldAccountant(NR.REPLACE_ONE)
    # replace-one: dominating pairs since pld.pairs (tests/test_pld_pairs.py); sampling with replacement is refused
    assert acc.supports(dp_accounting.SampledWithoutReplacementDpEvent(1000, 10, G(1.0)))
    assert acc.supports(PS(0.1, G(1.0)))
    fswr = dp_accounting.SampledWithReplacementDpEvent(1000, 10, G(1.0))
    if not acc.supports(fswr):
        with pytest.raises(dp_accounting.UnsupportedEventError, match="with replacement"):
            acc.compose(fswr)
    with pytest.raises(dp_accounting.UnsupportedEventError, match="REPLACE_ONE"):
        CertifiedPldAccountant().compose(dp_accounting.RandomizedResponseDpEvent(0.5, 2))
    with pytest.raises(dp_accounting.UnsupportedEventError):
        CertifiedPldAccountant().compose(dp_accounting.ZCDpEvent(0.1))
    with pytest.raises(TypeError):
        CertifiedPldAccountant().compose("gaussian")  # type: ignore[arg-type]
    # a refused part refuses the whole composition, which leaves the accountant unchanged
    acc = CertifiedPldAccountant()
    with pytest.raises(dp_accounting.UnsupportedEventError):
        acc.compose(dp_accounting.ComposedDpEvent([G(1.0), dp_accounting.ZCDpEvent(0.1)]))
    assert acc.get_epsilon(1e-5) == 0.0


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match=r"^noise_multiplier must be >= 0\. Found -1\.0\.$"):
        CertifiedPldAccountant().compose(G(-1.0))
    with pytest.raises(ValueError, match=r"^target_delta must be in \[0, 1\]\. Found 2\.0\.$"):
        CertifiedPldAccountant().get_epsilon(2.0)
    with pytest.raises(ValueError, match=r"^target_epsilon must be >= 0\. Found -1\.0\.$"):
        CertifiedPldAccountant().compose(G(1.0)).get_delta(-1.0)
    with pytest.raises(ValueError, match=r"^width must be in \(0, 10\]"):
        CertifiedPldAccountant(width=0.0)
    with pytest.raises(ValueError, match=r"^neighboring_relation must be"):
        CertifiedPldAccountant("add")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^noise_unit must be one of"):
        CertifiedPldAccountant(noise_unit="bits")


def test_floats_read_on_the_safe_side():
    # 1.1 is read as the smaller of the decimal 11/10 and the binary double (here the decimal),
    # 0.1 as the larger of the decimal and the double (here the double)
    acc = CertifiedPldAccountant().compose(PS(0.1, G(1.1)))
    (leaf,) = acc.accountant._events
    assert leaf.event.noise_multiplier == min(Fraction(1.1), Fraction("1.1")) == Fraction("1.1")
    assert leaf.sampling_probability == max(Fraction(0.1), Fraction("0.1")) == Fraction(0.1)
    # a float target is the weaker claim too: delta 1e-5 means the smaller reading
    res = acc.certified_epsilon(1e-5)
    assert res.target == min(Fraction(1e-5), Fraction("1e-5"))


def test_special_events_and_targets():
    acc = CertifiedPldAccountant().compose(dp_accounting.NoOpDpEvent())
    assert acc.get_epsilon_bracket(0.0) == (0.0, 0.0)
    acc = CertifiedPldAccountant().compose(G(1.0))
    assert acc.get_epsilon(1.0) == 0.0 and acc.get_epsilon(0.0) == math.inf
    acc.compose(dp_accounting.NonPrivateDpEvent())
    assert acc.get_epsilon(1e-5) == math.inf and acc.get_delta(10.0) == 1.0
    assert acc.get_delta_bracket(1.0) == (1.0, 1.0)
    with pytest.raises(ValueError, match="non-private"):
        acc.certified_epsilon(1e-5)


def test_works_inside_calibrate_dp_mechanism():
    # dp-accounting's own bisection, driven by the certified upper end, meets the target with it
    def make_event(s):
        return dp_accounting.SelfComposedDpEvent(PS(0.25, G(s)), 8)

    sigma = dp_accounting.calibrate_dp_mechanism(CertifiedPldAccountant, make_event, 3.0, 1e-5)
    assert CertifiedPldAccountant().compose(make_event(sigma)).get_epsilon(1e-5) <= 3.0
    # and it is not far off: 2% less noise provably misses the target (lower end above it)
    assert CertifiedPldAccountant().compose(make_event(0.98 * sigma)).get_epsilon_bracket(1e-5)[0] > 3.0
