"""Wang, Balle, Kasiviswanathan 2019 bounds (Birrell et al. App. E, (127)-(133)).

Independent checks: mpmath evaluations of (127)-(133) as printed, the exact
Poisson-subsampled Gaussian moment (for the lower bound), enumeration of all
fixed-size minibatches of tiny datasets with mpmath integration of the mixtures.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from _datasets import both_directions, random_replace_one_pairs
from _mpcheck import ball_contains as _contains
from _mpcheck import below_upper as _le
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from rigorous_rdp import GaussianEvent, LaplaceEvent, RdpAccountant, UnsupportedEventError
from rigorous_rdp.arith import workprec
from rigorous_rdp.events import BoundOptions, FixedSizeSampledEvent, PoissonSampledEvent
from rigorous_rdp.mechanisms import GaussianCurve, LaplaceCurve
from rigorous_rdp.reference import fixed_size_misc as R
from rigorous_rdp.reference import reference_rdp
from rigorous_rdp.registry import rdp_curve
from rigorous_rdp.subsampling.poisson_gaussian import log_a_integer
from rigorous_rdp.subsampling.wang2019 import (
    replace_one_gaussian_curve,
    wang2019_curve,
    wang2019_gaussian_lower,
    wang2019_gaussian_upper,
    wang2019_gaussian_upper_seed,
    wang2019_lower_general,
    wang2019_upper,
)

Q = Fraction(120, 50000)


@pytest.mark.parametrize(
    "alpha,sigma,q",
    [
        (2, 6, Q),
        (5, 6, Q),
        (Fraction(5, 2), 6, Q),
        (Fraction(3, 2), 6, Q),
        (64, 6, Q),
        (7, "0.5", Fraction(1, 100)),
        (Fraction(33, 4), 2, Fraction(1, 10**9)),
    ],
)
def test_upper_matches_mpmath(alpha, sigma, q):
    with workprec(128):
        thm = wang2019_gaussian_upper(alpha, sigma, q)
        seed = wang2019_gaussian_upper_seed(alpha, sigma, q)
    assert _contains(thm, R.wang_upper_mp(Fraction(alpha), Fraction(sigma), q))
    assert _contains(seed, R.wang_upper_mp(Fraction(alpha), Fraction(sigma), q, literal_127=True))
    # the theorem's min never exceeds the seed's (127); equal when eps(2) <= log 2
    assert thm.lower() <= seed.upper()
    if Fraction(sigma) ** 2 >= 6:
        assert thm.overlaps(seed)


def test_theorem_min_is_tighter_for_small_sigma():
    with workprec(128):
        assert wang2019_gaussian_upper(2, "0.3", Q) < wang2019_gaussian_upper_seed(2, "0.3", Q)


@pytest.mark.parametrize("alpha", [2, 3, 10, 64])
def test_lower_matches_133_and_is_the_gaussian_mixture_divergence(alpha):
    with workprec(128):
        lo = wang2019_gaussian_lower(alpha, 6, Q)
        # (133) = D_alpha((1-q) N(0, s^2) + q N(2, s^2) || N(0, s^2)) = log A_alpha(q, sigma/2) / (alpha-1)
        pg = log_a_integer(alpha, arb(120) / 50000, arb(3)) / (alpha - 1)
    assert _contains(lo, R.wang_lower_mp(alpha, Fraction(6), Q))
    assert lo.overlaps(pg)
    with workprec(128):
        assert wang2019_lower_general(alpha, replace_one_gaussian_curve(6), Q).overlaps(lo)
        assert wang2019_lower_general(alpha, replace_one_gaussian_curve(6), 1).overlaps(arb(2 * alpha) / 36)


@pytest.mark.parametrize("alpha", [2, 3, 8, 32])
def test_upper_above_lower_factor_four(alpha):
    with workprec(96):
        up = wang2019_gaussian_upper(alpha, 6, Q)
        lo = wang2019_gaussian_lower(alpha, 6, Q)
    assert lo < up
    if alpha == 2:
        # leading order: 2 q^2 alpha (e^{4/s^2}-1) vs q^2 alpha (alpha-1)/2 (e^{4/s^2}-1): factor 4 (Sec. 3.4)
        assert abs(float(up.mid()) / float(lo.mid()) - 4) < 1e-3


def _fswor_divergence(gx, gy, b, sigma, alpha):
    px, wx = R.fswor_minibatch_mixture(gx, b)
    py, wy = R.fswor_minibatch_mixture(gy, b)
    return R.mixture_renyi_mp(px, wx, py, wy, sigma, alpha, dps=20)


@pytest.mark.parametrize("alpha", [2, 3, Fraction(5, 2)])
def test_bounds_against_enumerated_minibatches(alpha):
    # |D| = 5, |B| = 2, replace-one: D and D' differ in the last record
    sigma, b = Fraction(3, 2), 2
    worst_x = [Fraction(1)] * 5
    worst_y = [Fraction(1)] * 4 + [Fraction(-1)]
    q = Fraction(b, 5)
    true_worst = _fswor_divergence(worst_y, worst_x, b, sigma, alpha)
    with workprec(96):
        up = wang2019_gaussian_upper(alpha, sigma, q)
    assert _le(true_worst, up)
    if Fraction(alpha).denominator == 1:
        with workprec(96):
            lo = wang2019_gaussian_lower(alpha, sigma, q)
        assert _contains(lo, true_worst, digits=10)  # (133) is attained by this pair


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [2, 3, Fraction(7, 2)])
def test_upper_against_random_minibatch_configurations(alpha):
    rng = np.random.default_rng(11)
    sigma, b = Fraction(1), 2
    q = Fraction(b, 5)
    with workprec(96):
        up = wang2019_gaussian_upper(alpha, sigma, q)
    for d in both_directions(lambda u, v: _fswor_divergence(u, v, b, sigma, alpha), random_replace_one_pairs(rng, 5)):
        assert _le(d, up)


def test_general_form_with_pure_dp_base():
    # Laplace base: the (e^{eps_inf}-1)^j caps of Theorem 9 enter; compare with a direct mpmath evaluation
    b = Fraction(2)
    base = LaplaceCurve(b)
    q = Fraction(1, 50)
    alpha = 6
    with workprec(128):
        val = wang2019_upper(alpha, base, q)
    with mpmath.workdps(40):

        def eps(j):
            return mpmath.log(
                mpmath.mpf(j) / (2 * j - 1) * mpmath.exp((j - 1) / mpmath.mpf(2))
                + mpmath.mpf(j - 1) / (2 * j - 1) * mpmath.exp(-j / mpmath.mpf(2))
            ) / (j - 1)

        einf = mpmath.mpf(1) / 2
        qq = mpmath.mpf(1) / 50
        c2 = min(4 * mpmath.expm1(eps(2)), mpmath.exp(eps(2)) * min(2, mpmath.expm1(einf) ** 2))
        tot = 1 + qq**2 * mpmath.binomial(alpha, 2) * c2
        for j in range(3, alpha + 1):
            tot += qq**j * mpmath.binomial(alpha, j) * mpmath.exp((j - 1) * eps(j)) * min(2, mpmath.expm1(einf) ** j)
        ref = mpmath.log(tot) / (alpha - 1)
    assert _contains(val, ref)


def test_curve_event_accountant_and_reference():
    ev = FixedSizeSampledEvent(GaussianEvent(6), 120, 50000, adjacency="replace-one")
    wang = BoundOptions("wang2019")
    curve = rdp_curve(ev, wang)
    alphas = np.array([1.5, 2.0, 3.5, 20.0])
    with workprec(64):
        cert = [float(curve.certified(Fraction(a)).mid()) for a in alphas]
    assert np.allclose(curve.screen(alphas), cert, rtol=1e-8)
    with workprec(128):
        assert _contains(curve.certified(Fraction(7)), reference_rdp(ev, Fraction(7), options=wang))
    acc = RdpAccountant(bound="wang2019").compose(ev, 1000)
    assert 0 < acc.get_epsilon("1e-5").upper_float() < 5
    with pytest.raises(UnsupportedEventError):
        rdp_curve(FixedSizeSampledEvent(LaplaceEvent(1), 120, 50000, adjacency="replace-one"), wang)
    # the bound applies to fixed-size sampling without replacement, replace-one only
    for other in (FixedSizeSampledEvent(GaussianEvent(6), 120, 50000), PoissonSampledEvent(GaussianEvent(6), "0.1")):
        with pytest.raises(ValueError, match="wang2019 applies to"):
            rdp_curve(other, wang)
    c2 = wang2019_curve(replace_one_gaussian_curve(6), 120, 50000)
    with workprec(64):
        assert c2.certified(Fraction(9, 2)).overlaps(curve.certified(Fraction(9, 2)))


def test_extremes_are_finite():
    with workprec(64):
        for alpha, sigma, q in [
            (10000, "0.3", Fraction(1, 10**9)),
            (10000, 1000, Fraction(1, 10**9)),
            (Fraction(19999, 2), "0.3", Fraction(1, 2)),
        ]:
            v = wang2019_gaussian_upper(alpha, sigma, q)
            assert v.is_finite() and v > 0
        lo = wang2019_gaussian_lower(3000, "0.3", Fraction(1, 10**9))
        assert lo.is_finite() and lo > 0


@pytest.mark.parametrize(
    "call,start",
    [
        (lambda: wang2019_gaussian_upper(1, 6, Q), "alpha"),
        (lambda: wang2019_gaussian_upper(2, 0, Q), "sigma"),
        (lambda: wang2019_gaussian_upper(2, 6, Fraction(3, 2)), "q"),
        (lambda: wang2019_gaussian_lower(Fraction(5, 2), 6, Q), "alpha"),
        (lambda: wang2019_curve(GaussianCurve(Fraction(3)), 60, 50), "batch-size"),
        (lambda: wang2019_curve(GaussianCurve(Fraction(3)), 0, 50), "batch-size"),
        (lambda: FixedSizeSampledEvent(GaussianEvent(6), 10, "x"), "dataset_size"),
        (lambda: wang2019_curve("gauss", 1, 50), "base_curve"),
    ],
)
def test_bad_input(call, start):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).startswith(start)


@settings(max_examples=25, deadline=None)
@given(
    log_sigma=st.floats(min_value=-1.2, max_value=3.0),
    log_q=st.floats(min_value=-9.0, max_value=-0.05),
    alpha=st.integers(min_value=2, max_value=300),
)
def test_property_upper_above_lower(log_sigma, log_q, alpha):
    sigma = Fraction(10**log_sigma).limit_denominator(10**6)
    q = Fraction(10**log_q).limit_denominator(10**12)
    with workprec(96):
        up = wang2019_gaussian_upper(alpha, sigma, q)
        lo = wang2019_gaussian_lower(alpha, sigma, q)
    assert up.is_finite() and lo.is_finite()
    assert lo.lower() <= up.upper()
