"""The certified accountant behind dp-accounting's own interface and events.

Independent values: dp-accounting's own RDP accountant (a float code path), the
mpmath references of :mod:`rigorous_rdp.reference`, and closed forms.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from _dp_peer import NR, PS, G, dp_accounting, quiet_absl  # noqa: F401 -- quiet_absl: an autouse fixture
from _mpcheck import M, ball_contains

from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent, RandomizedResponseEvent
from rigorous_rdp.integrations.dp_accounting import CertifiedRdpAccountant, to_rigorous_event
from rigorous_rdp.reference import reference_rdp

pytestmark = pytest.mark.peers


def _mp_epsilon_cks(rdp, alpha, delta):
    """CKS 2020 Prop. 12 in mpmath (the conversion dp-accounting uses)."""
    a, d = M(alpha), M(delta)
    return rdp + mpmath.log1p(-1 / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)


# ---------------------------------------------------------------------------
# dp-accounting's documented usage, with the accountant swapped in
# ---------------------------------------------------------------------------


def test_documented_usage_with_our_accountant():
    # dp-accounting's README / tutorial: DP-SGD as a self-composed Poisson-sampled Gaussian
    accountant = CertifiedRdpAccountant()  # was: dp_accounting.rdp.RdpAccountant()
    assert isinstance(accountant, dp_accounting.PrivacyAccountant)
    event = dp_accounting.SelfComposedDpEvent(PS(0.01, G(1.1)), 10000)
    assert accountant.supports(event)
    assert accountant.compose(event) is accountant
    assert accountant.ledger == event
    eps = accountant.get_epsilon(target_delta=1e-5)
    res = accountant.certified_epsilon(1e-5)
    # the float is the certified upper end rounded up
    assert Fraction(eps) >= Fraction(res.epsilon.to_json(25)["upper"])
    assert Fraction(eps) - Fraction(res.epsilon.to_json(25)["upper"]) <= Fraction(eps) * Fraction(1, 2**51)
    # the enclosure contains the mpmath reference at the order used (independent quadrature)
    alpha = res.order
    ref_rdp = 10000 * reference_rdp(PoissonSampledEvent(GaussianEvent("1.1"), Fraction(1, 100)), alpha, dps=40)
    with mpmath.workdps(40):
        ref_eps = _mp_epsilon_cks(ref_rdp, alpha, Fraction(1, 10**5))
    assert res.conversion == "cks"
    assert ball_contains(res.rdp.ball, ref_rdp, 20)
    assert ball_contains(res.epsilon.ball, ref_eps, 20)
    # dp-accounting's own number for the same event
    ref = dp_accounting.rdp.RdpAccountant().compose(event)
    assert eps <= ref.get_epsilon(1e-5)
    assert 5.6318 < eps < 5.6319


def test_epsilon_and_delta_pair_like_dp_accounting():
    event = PS(0.02, G(0.9))
    ours = CertifiedRdpAccountant().compose(event, 500)
    ref = dp_accounting.rdp.RdpAccountant().compose(event, 500)
    eps, order = ours.get_epsilon_and_optimal_order(1e-6)
    eps_ref, _ = ref.get_epsilon_and_optimal_order(1e-6)
    assert order > 1 and eps <= eps_ref
    delta, _ = ours.get_delta_and_optimal_order(eps_ref)
    assert 0 < delta <= ours.get_delta(eps_ref) <= ref.get_delta(eps_ref)
    assert delta <= 1e-6 * (1 + 1e-9)  # delta at the reference epsilon: at most the target


# ---------------------------------------------------------------------------
# comparison with dp-accounting's RDP accountant
# ---------------------------------------------------------------------------

CASES = [
    pytest.param(PS(q, G(s)), t, NR.ADD_OR_REMOVE_ONE, 1e-5, id=f"poisson-q{q}-s{s}-T{t}")
    for q, s, t in [
        (1e-4, 20.0, 1),
        (0.001, 20.0, 10000),
        (0.01, 1.1, 10000),
        (0.01, 5.0, 10000),
        (0.1, 0.8, 100),
        (0.5, 2.0, 10),
        (1.0, 1.1, 100),
    ]
] + [
    pytest.param(G(2.0), 10, NR.ADD_OR_REMOVE_ONE, 1e-6, id="gaussian"),
    pytest.param(dp_accounting.LaplaceDpEvent(1.0), 10, NR.ADD_OR_REMOVE_ONE, 1e-6, id="laplace"),
    pytest.param(dp_accounting.RandomizedResponseDpEvent(0.5, 2), 10, NR.REPLACE_ONE, 1e-6, id="rr-k2"),
    pytest.param(
        dp_accounting.SampledWithoutReplacementDpEvent(60000, 256, G(1.0)),
        1000,
        NR.REPLACE_ONE,
        1e-5,
        id="wor-replace-one",
    ),
    pytest.param(PS(0.01, G(1.0)), 1000, NR.REPLACE_SPECIAL, 1e-5, id="poisson-replace-special"),
]


@pytest.mark.parametrize("event,count,rel,delta", CASES)
def test_never_larger_than_dp_accounting(event, count, rel, delta):
    ref = dp_accounting.rdp.RdpAccountant(neighboring_relation=rel).compose(event, count)
    e_ref = Fraction(ref.get_epsilon(delta))
    # same orders, same conversion, dp-accounting's noise unit: the same formula; ours is its
    # certified upper end (the unit matters under REPLACE_ONE only, see test_noise_units_*)
    unit = "sensitivity"
    grid = CertifiedRdpAccountant(ref.orders, neighboring_relation=rel, continuous=False, noise_unit=unit).compose(
        event, count
    )
    res = grid.certified_epsilon(delta)
    up, lo = Fraction(res.epsilon.to_json()["upper"]), Fraction(res.epsilon.to_json()["lower"])

    def not_larger(x: Fraction) -> bool:
        # dp-accounting rounds to nearest and sums its series in floats: where its number is
        # below ours, it is below the *lower* end of our enclosure of the exact value (it
        # under-reports), or within one rounding (1e-15 relative) of ours
        return x <= e_ref or e_ref < lo or x - e_ref <= x * Fraction(1, 10**15)

    assert not_larger(up)
    assert up <= e_ref * (1 + Fraction(1, 10**9))  # and the two agree to 1e-9
    # default: grid plus real orders between grid points
    ours = CertifiedRdpAccountant(neighboring_relation=rel, noise_unit=unit).compose(event, count)
    assert not_larger(Fraction(ours.get_epsilon(delta)))


def test_dp_accounting_under_reports_here():
    """A case where dp-accounting's float value is provably below the exact RDP bound."""
    event = PS(0.001, G(20.0))
    ref = dp_accounting.rdp.RdpAccountant().compose(event, 10000)
    e_ref, order = ref.get_epsilon_and_optimal_order(1e-5)
    assert order == 512
    grid = CertifiedRdpAccountant([512], continuous=False).compose(event, 10000)
    res = grid.certified_epsilon(1e-5)
    assert Fraction(e_ref) < Fraction(res.epsilon.to_json()["lower"])
    # the mpmath reference (binomial sum at integer order) agrees with our enclosure
    ref_rdp = 10000 * reference_rdp(PoissonSampledEvent(GaussianEvent(20), Fraction(0.001)), Fraction(512), dps=50)
    assert ball_contains(res.rdp.ball, ref_rdp, 20)
    assert M(e_ref) < _mp_epsilon_cks(ref_rdp, 512, Fraction(1, 10**5))


def test_total_variation_route_gives_zero_like_dp_accounting():
    # RDP below delta^2 at a small order: epsilon 0 is certified (sqrt(1 - e^-rdp) <= delta)
    event = PS(1e-4, G(20.0))
    assert dp_accounting.rdp.RdpAccountant().compose(event).get_epsilon(1e-5) == 0
    res = CertifiedRdpAccountant().compose(event).certified_epsilon(1e-5)
    assert res.conversion == "tv" and res.epsilon.upper_float() == 0.0


# ---------------------------------------------------------------------------
# composition, translation, neighbouring relations
# ---------------------------------------------------------------------------


def test_composition_forms_agree():
    ev = PS(0.01, G(1.1))
    a = CertifiedRdpAccountant().compose(ev, 300).get_epsilon(1e-5)
    b = (
        CertifiedRdpAccountant()
        .compose(
            dp_accounting.ComposedDpEvent(
                [
                    dp_accounting.SelfComposedDpEvent(ev, 100),
                    dp_accounting.SelfComposedDpEvent(ev, 200),
                    dp_accounting.NoOpDpEvent(),
                ]
            )
        )
        .get_epsilon(1e-5)
    )
    c = CertifiedRdpAccountant()
    for _ in range(3):
        c.compose(dp_accounting.SelfComposedDpEvent(ev, 100))
    assert a == b == c.get_epsilon(1e-5)
    assert CertifiedRdpAccountant().compose(dp_accounting.NoOpDpEvent()).get_epsilon(1e-5) == 0.0


def test_effective_noise_of_composed_gaussians():
    # 1/3^2 + 1/4^2 = (5/12)^2: one Gaussian of noise 12/5 (exactly)
    ours, non_private = to_rigorous_event(PS(Fraction(1, 100), dp_accounting.ComposedDpEvent([G(3), G(4)])))
    assert not non_private
    assert ours == PoissonSampledEvent(GaussianEvent(Fraction(12, 5)), Fraction(1, 100))
    # two Gaussians of noise 1: 1/sqrt(2), irrational -> a rational lower bound within 1e-29
    ours, _ = to_rigorous_event(PS(Fraction(1, 100), dp_accounting.SelfComposedDpEvent(G(1), 2)))
    s = ours.event.noise_multiplier
    assert 2 * s * s <= 1 < 2 * (s + Fraction(1, 10**29)) ** 2


def test_float_parameters_read_on_the_weaker_side():
    ours, _ = to_rigorous_event(PS(0.01, G(1.1)))
    # binary 1.1 is above 11/10: the decimal is the smaller noise; binary 0.01 is above 1/100: keep it
    assert ours.event.noise_multiplier == Fraction(11, 10)
    assert ours.sampling_probability == Fraction(0.01) > Fraction(1, 100)
    ours, _ = to_rigorous_event(G(0.3))  # binary 0.3 is below 3/10: keep the binary
    assert ours.noise_multiplier == Fraction(0.3) < Fraction(3, 10)


def test_randomized_response_replace_one_closed_form():
    # k = 2, noise parameter p: binary RR keeping the bit w.p. 1 - p/2; p = 1/2 -> 3/4
    ev = dp_accounting.RandomizedResponseDpEvent(0.5, 2)
    ours, _ = to_rigorous_event(ev, NR.REPLACE_ONE)
    assert ours == RandomizedResponseEvent(Fraction(3, 4))
    acc = CertifiedRdpAccountant([3], neighboring_relation=NR.REPLACE_ONE, continuous=False).compose(ev, 4)
    # RDP at order 3: (1/2) log((3/4)^3 (1/4)^-2 + (1/4)^3 (3/4)^-2) = (1/2) log(61/9), times 4
    rdp = acc.accountant.rdp(3).rdp
    with mpmath.workdps(40):
        assert ball_contains(rdp.ball, 2 * mpmath.log(mpmath.mpf(61) / 9), 25)
    # add/remove: refused, as in dp-accounting
    acc = CertifiedRdpAccountant()
    assert not acc.supports(ev)
    with pytest.raises(dp_accounting.UnsupportedEventError, match="REPLACE_ONE"):
        acc.compose(ev)
    assert not CertifiedRdpAccountant(neighboring_relation=NR.REPLACE_ONE).supports(
        dp_accounting.RandomizedResponseDpEvent(0.5, 3)
    )


def test_gaussian_epsilon_closed_form_minimum():
    # no sampling: T Gaussians have RDP T alpha / (2 s^2); with the CKS conversion epsilon(delta) is
    # min over real alpha > 1 of T alpha/(2 s^2) + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1),
    # minimised here in mpmath (root of the derivative), independently of the accountant
    s, T = 2, 30
    with mpmath.workdps(40):
        rdp = mpmath.mpf(T) / (2 * s**2)
        log_delta = -7 * mpmath.log(10)

        def f(a):
            return rdp * a + mpmath.log1p(-1 / a) - (log_delta + mpmath.log(a)) / (a - 1)

        a_star = mpmath.findroot(lambda a: mpmath.diff(f, a), 3)
        eps_star = Fraction(mpmath.nstr(f(a_star), 35))
    for ev, count in [(G(2.0), T), (dp_accounting.SelfComposedDpEvent(G(2.0), T), 1), (PS(1.0, G(2.0)), T)]:
        res = CertifiedRdpAccountant(conversion="cks").compose(ev, count).certified_epsilon(1e-7)
        up = Fraction(res.epsilon.to_json()["upper"])
        # a certified upper end at some real order: never below the minimum, and within 1e-9 of it
        assert eps_star * (1 - Fraction(1, 10**30)) <= up <= eps_star * (1 + Fraction(1, 10**9))
        assert abs(float(res.order) - float(a_star)) < 1e-3
    # dp-accounting, on its grid, is above the minimum; ours (default conversion) is not
    e_ref = dp_accounting.rdp.RdpAccountant().compose(G(2.0), T).get_epsilon(1e-7)
    assert Fraction(e_ref) > eps_star
    assert CertifiedRdpAccountant().compose(G(2.0), T).get_epsilon(1e-7) <= float(eps_star) * (1 + 1e-9)


def test_noise_units_unsampled_gaussian_closed_form():
    # dp-accounting's GaussianDpEvent(s): noisy sum, noise s * C, records of norm <= C.
    # REPLACE_ONE moves the sum by 2C: RDP 2 alpha / s^2 ("norm_bound", default);
    # dp-accounting's accountant computes alpha / (2 s^2) ("sensitivity").
    s, alpha = Fraction(4, 5), Fraction(3)
    for unit, exact in [("norm_bound", 2 * alpha / s**2), ("sensitivity", alpha / (2 * s**2))]:
        acc = CertifiedRdpAccountant(
            [alpha], neighboring_relation=NR.REPLACE_ONE, continuous=False, noise_unit=unit
        ).compose(G(0.8), 5)
        assert ball_contains(acc.accountant.rdp(alpha).rdp.ball, M(5 * exact), 25)
    # the other relations move the sum by C: alpha / (2 s^2) under both units
    for rel in (NR.ADD_OR_REMOVE_ONE, NR.REPLACE_SPECIAL):
        for unit in ("norm_bound", "sensitivity"):
            acc = CertifiedRdpAccountant([alpha], neighboring_relation=rel, continuous=False, noise_unit=unit).compose(
                G(0.8), 5
            )
            assert ball_contains(acc.accountant.rdp(alpha).rdp.ball, M(5 * alpha / (2 * s**2)), 25)
    # Laplace, scale b per unit L1 norm: replace-one sensitivity 2C, pure DP 2/b (norm_bound)
    lap = CertifiedRdpAccountant(neighboring_relation=NR.REPLACE_ONE).compose(dp_accounting.LaplaceDpEvent(2.0))
    assert lap.get_epsilon(1e-300) <= 1.0 + 1e-12
    assert to_rigorous_event(dp_accounting.LaplaceDpEvent(2.0), NR.REPLACE_ONE)[0].scale == 1


def test_noise_units_sampled_events():
    s = 0.8
    wor = dp_accounting.SampledWithoutReplacementDpEvent(60000, 256, G(s))
    wor_half = dp_accounting.SampledWithoutReplacementDpEvent(60000, 256, G(s / 2))
    ref = dp_accounting.rdp.RdpAccountant(neighboring_relation=NR.REPLACE_ONE)
    # default: the event's noise is s per unit of record norm; dp-accounting's arithmetic on s / 2
    # is the same mechanism (sensitivity 2C), so the two agree to 1e-9 on dp-accounting's grid
    e_half = ref.compose(wor_half, 100).get_epsilon(1e-5)
    ours = CertifiedRdpAccountant(ref.orders, neighboring_relation=NR.REPLACE_ONE, continuous=False)
    e_ours = ours.compose(wor, 100).get_epsilon(1e-5)
    assert abs(e_ours - e_half) <= 1e-9 * e_half
    e_ref = dp_accounting.rdp.RdpAccountant(neighboring_relation=NR.REPLACE_ONE).compose(wor, 100).get_epsilon(1e-5)
    assert e_ours > 2 * e_ref  # dp-accounting's reading of the same event claims far more privacy
    # to_rigorous_event: sigma in units of C
    for unit, sigma in [("norm_bound", Fraction(4, 5)), ("sensitivity", Fraction(8, 5))]:
        ev, _ = to_rigorous_event(PS(Fraction(1, 100), G(s)), NR.REPLACE_ONE, noise_unit=unit)
        assert ev.event.noise_multiplier == sigma
        ev, _ = to_rigorous_event(wor, NR.REPLACE_ONE, noise_unit=unit)
        assert ev.event.noise_multiplier == sigma
    # sampling the whole dataset without replacement is the Gaussian mechanism itself, in both units
    for unit in ("norm_bound", "sensitivity"):
        g = CertifiedRdpAccountant(neighboring_relation=NR.REPLACE_ONE, noise_unit=unit).compose(G(s), 5)
        full = CertifiedRdpAccountant(neighboring_relation=NR.REPLACE_ONE, noise_unit=unit).compose(
            dp_accounting.SampledWithoutReplacementDpEvent(100, 100, G(s)), 5
        )
        assert full.get_epsilon(1e-5) == g.get_epsilon(1e-5)
    # replace-one Poisson sampling is no more private than add/remove with the same noise (default unit)
    ps = PS(0.01, G(1.0))
    e_add = CertifiedRdpAccountant().compose(ps, 1000).get_epsilon(1e-5)
    e_r1 = CertifiedRdpAccountant(neighboring_relation=NR.REPLACE_ONE).compose(ps, 1000).get_epsilon(1e-5)
    assert e_r1 >= e_add
    with pytest.raises(ValueError, match=r"^noise_unit must be one of norm_bound, sensitivity\. Found 'C'\.$"):
        CertifiedRdpAccountant(noise_unit="C")


def test_replace_special_poisson_is_add_remove():
    ev = PS(0.01, G(1.0))
    a = CertifiedRdpAccountant().compose(ev, 100).get_epsilon(1e-5)
    b = CertifiedRdpAccountant(neighboring_relation=NR.REPLACE_SPECIAL).compose(ev, 100).get_epsilon(1e-5)
    assert a == b


def test_more_than_dp_accounting_supports():
    wr = dp_accounting.SampledWithReplacementDpEvent(60000, 256, G(1.0))
    wor = dp_accounting.SampledWithoutReplacementDpEvent(60000, 256, G(1.0))
    assert not dp_accounting.rdp.RdpAccountant().supports(wr)
    assert not dp_accounting.rdp.RdpAccountant().supports(wor)
    assert not dp_accounting.rdp.RdpAccountant(neighboring_relation=NR.REPLACE_ONE).supports(PS(0.01, G(1.0)))
    for ev, rel in [
        (wr, NR.ADD_OR_REMOVE_ONE),
        (wor, NR.ADD_OR_REMOVE_ONE),
        (PS(0.01, G(1.0)), NR.REPLACE_ONE),
        (PS(0.01, dp_accounting.LaplaceDpEvent(2.0)), NR.ADD_OR_REMOVE_ONE),
    ]:
        acc = CertifiedRdpAccountant(neighboring_relation=rel)
        assert acc.supports(ev)
        assert math.isfinite(acc.compose(ev, 100).get_epsilon(1e-5))
    # but not with replacement under replace-one (no certified bound)
    assert not CertifiedRdpAccountant(neighboring_relation=NR.REPLACE_ONE).supports(wr)


def test_non_private_and_degenerate_events():
    acc = CertifiedRdpAccountant().compose(PS(0.01, G(1.0)), 10).compose(dp_accounting.NonPrivateDpEvent())
    assert acc.get_epsilon(1e-5) == math.inf and acc.get_delta(1.0) == 1.0
    ref = dp_accounting.rdp.RdpAccountant().compose(dp_accounting.NonPrivateDpEvent())
    assert ref.get_epsilon(1e-5) == math.inf
    assert CertifiedRdpAccountant().compose(G(0.0)).get_epsilon(1e-5) == math.inf
    assert CertifiedRdpAccountant().compose(PS(0.0, G(0.0))).get_epsilon(1e-5) == 0.0
    assert CertifiedRdpAccountant().supports(dp_accounting.SelfComposedDpEvent(dp_accounting.NonPrivateDpEvent(), 0))
    # delta = 0 and delta = 1, as dp-accounting
    acc = CertifiedRdpAccountant().compose(G(1.0))
    assert acc.get_epsilon(0.0) == math.inf and acc.get_epsilon(1.0) == 0.0
    assert CertifiedRdpAccountant().get_epsilon(0.0) == 0.0


@pytest.mark.parametrize(
    "event",
    [
        dp_accounting.UnsupportedDpEvent(),
        dp_accounting.ZCDpEvent(0.1, 0.0),
        dp_accounting.SingleEpochTreeAggregationDpEvent(1.0, 10),
        PS(0.1, dp_accounting.ComposedDpEvent([G(1.0), dp_accounting.LaplaceDpEvent(1.0)])),
    ],
    ids=["unsupported", "zcdp", "tree", "poisson-mixed"],
)
def test_refusals(event):
    acc = CertifiedRdpAccountant(
        neighboring_relation=NR.REPLACE_SPECIAL
        if isinstance(event, dp_accounting.SingleEpochTreeAggregationDpEvent)
        else NR.ADD_OR_REMOVE_ONE
    )
    assert not acc.supports(event)
    with pytest.raises(dp_accounting.UnsupportedEventError):
        acc.compose(event)
    assert acc.get_epsilon(1e-5) == 0.0  # nothing was composed
    with pytest.raises(TypeError):
        acc.compose(GaussianEvent(1))  # our own events are not dp-accounting events


def test_bad_input():
    acc = CertifiedRdpAccountant()
    with pytest.raises(ValueError, match=r"^noise_multiplier must be >= 0\. Found -1\.0\.$"):
        acc.compose(G(-1.0))
    assert not acc.supports(G(-1.0))
    with pytest.raises(ValueError, match=r"^sampling_probability must be in \[0, 1\]"):
        acc.compose(PS(1.5, G(1.0)))
    with pytest.raises(ValueError, match=r"^noise_multiplier must be a finite number"):
        acc.compose(G(math.nan))
    with pytest.raises(ValueError, match=r"^count must be an integer >= 1"):
        acc.compose(G(1.0), -1)
    with pytest.raises(ValueError, match=r"^target_delta must be in \[0, 1\]"):
        acc.get_epsilon(2.0)
    with pytest.raises(ValueError, match=r"^target_epsilon must be >= 0"):
        acc.get_delta(-1.0)
    with pytest.raises(ValueError, match=r"^neighboring_relation must be"):
        CertifiedRdpAccountant(neighboring_relation="add")
    with pytest.raises(ValueError, match=r"^sample_size must be <= source_dataset_size"):
        acc.compose(dp_accounting.SampledWithoutReplacementDpEvent(10, 20, G(1.0)))
    with pytest.raises(ValueError, match=r"^orders must be a list of finite numbers > 1\. Found inf\.$"):
        CertifiedRdpAccountant(orders=[2.0, math.inf])
    with pytest.raises(ValueError, match=r"^noise_multiplier must be a finite number\. Found inf\.$"):
        acc.compose(G(math.inf))


def test_extreme_noise_gives_numbers_not_overflow():
    # epsilon beyond the largest float rounds up to inf (its enclosure is finite: T alpha / (2 s^2) ~ 5e599)
    tiny = CertifiedRdpAccountant().compose(G(1e-300))
    assert tiny.get_epsilon(1e-5) == math.inf
    assert Fraction(tiny.certified_epsilon(1e-5).epsilon.to_json()["lower"]) > 10**599
    # huge noise: RDP ~ alpha / 2e600 is below delta^2 at every order, so epsilon 0 is certified (TV route)
    assert CertifiedRdpAccountant().compose(G(1e300)).get_epsilon(1e-5) == 0.0


# ---------------------------------------------------------------------------
# calibration through dp-accounting's calibrate_dp_mechanism
# ---------------------------------------------------------------------------


def test_calibrate_dp_mechanism_with_our_accountant():
    def make_event(sigma):
        return dp_accounting.SelfComposedDpEvent(PS(0.01, G(sigma)), 1000)

    sigma = dp_accounting.calibrate_dp_mechanism(CertifiedRdpAccountant, make_event, 2.0, 1e-5)
    sigma_ref = dp_accounting.calibrate_dp_mechanism(dp_accounting.rdp.RdpAccountant, make_event, 2.0, 1e-5)
    # the returned noise meets the target with the certified epsilon ...
    assert CertifiedRdpAccountant().compose(make_event(sigma)).get_epsilon(1e-5) <= 2.0
    # ... 1e-4 less noise provably does not (the lower end exceeds the target)
    res = CertifiedRdpAccountant().compose(make_event(sigma - 1e-4)).certified_epsilon(1e-5)
    assert Fraction(res.epsilon.to_json()["lower"]) > 2
    # and it is no more noise than dp-accounting's own calibration asks for
    assert sigma <= sigma_ref + 1e-6
    # the discrete parameter form: the largest number of steps within the budget
    steps = dp_accounting.calibrate_dp_mechanism(
        CertifiedRdpAccountant,
        lambda n: dp_accounting.SelfComposedDpEvent(PS(0.01, G(1.0)), n),
        2.0,
        1e-5,
        dp_accounting.LowerEndpointAndGuess(1, 100),
        discrete=True,
    )
    acc = CertifiedRdpAccountant()
    assert acc.compose(dp_accounting.SelfComposedDpEvent(PS(0.01, G(1.0)), steps)).get_epsilon(1e-5) <= 2.0


@pytest.mark.slow
def test_calibrate_dp_mechanism_replace_one_with_partial():
    # calibrate_dp_mechanism takes any zero-argument factory: options go through functools.partial
    import functools

    def make_event(sigma):
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.SampledWithoutReplacementDpEvent(10000, 100, G(sigma)), 300
        )

    bracket = dp_accounting.LowerEndpointAndGuess(0.3, 1.0)
    sig = {}
    for unit in ("norm_bound", "sensitivity"):
        factory = functools.partial(CertifiedRdpAccountant, neighboring_relation=NR.REPLACE_ONE, noise_unit=unit)
        sig[unit] = dp_accounting.calibrate_dp_mechanism(factory, make_event, 2.0, 1e-5, bracket)
        assert factory().compose(make_event(sig[unit])).get_epsilon(1e-5) <= 2.0
    # the per-record norm reading needs twice the noise (sensitivity 2C), up to the bisection tolerance
    assert abs(sig["norm_bound"] - 2 * sig["sensitivity"]) <= 1e-5 * sig["norm_bound"]
    # dp-accounting's own calibration (its unit) asks for 1.00568858... (dp-accounting 0.6.0)
    assert abs(sig["sensitivity"] - 1.0056885833) < 1e-6


@pytest.mark.parametrize(
    "event,rel",
    [
        (PS(0.01, G(1.1)), NR.REPLACE_ONE),
        (dp_accounting.SampledWithoutReplacementDpEvent(60000, 256, G(1.0)), NR.REPLACE_ONE),
        (dp_accounting.SampledWithoutReplacementDpEvent(60000, 256, G(1.0)), NR.ADD_OR_REMOVE_ONE),
        (PS(0.01, dp_accounting.LaplaceDpEvent(1.0)), NR.ADD_OR_REMOVE_ONE),
        (dp_accounting.LaplaceDpEvent(1.0), NR.REPLACE_ONE),
    ],
    ids=["poisson-replace-one", "wor-replace-one", "wor-add-remove", "poisson-laplace", "laplace-replace-one"],
)
def test_enclosure_contains_mpmath_reference(event, rel):
    # the total RDP at the order the accountant picked contains 100 x the mpmath reference
    # (an independent plain-mpmath evaluation of the same bound) of the translated event
    res = CertifiedRdpAccountant(neighboring_relation=rel).compose(event, 100).certified_epsilon(1e-5)
    ours, _ = to_rigorous_event(event, rel)
    ref = 100 * reference_rdp(ours, res.order, dps=40)
    assert ball_contains(res.rdp.ball, ref, 15)


def test_every_float_returned_is_a_python_float_and_the_pld_name_matches():
    """dp-accounting's RDP accountant returns numpy floats from some methods and Python floats from
    others; the adapters return Python floats everywhere (the upper end rounded up), on every path."""
    from rigorous_rdp.integrations.dp_accounting import CertifiedPLDAccountant, CertifiedPldAccountant

    assert CertifiedPLDAccountant is CertifiedPldAccountant  # dp_accounting.pld.PLDAccountant's spelling
    event = PS(0.01, G(1.1))
    rdp_accountants = [
        CertifiedRdpAccountant().compose(event, 100),
        CertifiedRdpAccountant(),  # nothing composed
        CertifiedRdpAccountant().compose(dp_accounting.NonPrivateDpEvent()),
    ]
    for acc in rdp_accountants:
        values = [acc.get_epsilon(1e-5), acc.get_epsilon(0.0), acc.get_delta(1.0), acc.get_delta(0.0)]
        values += [*acc.get_epsilon_and_optimal_order(1e-5), *acc.get_delta_and_optimal_order(1.0)]
        assert all(type(v) is float for v in values), [type(v) for v in values]
    for acc in (CertifiedPLDAccountant().compose(event, 10), CertifiedPLDAccountant()):
        values = [
            acc.get_epsilon(1e-5),
            acc.get_delta(1.0),
            *acc.get_epsilon_bracket(1e-5),
            *acc.get_delta_bracket(1.0),
        ]
        assert all(type(v) is float for v in values), [type(v) for v in values]
        lo, up = acc.get_epsilon_bracket(1e-5)
        assert lo <= up == acc.get_epsilon(1e-5)
