"""Tests of the Zhu & Wang 2019 bounds (rigorous_rdp.subsampling.zhu_wang)."""

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb

from rigorous_rdp.accountant import RdpAccountant
from rigorous_rdp.arith import rel_width_ok, workprec
from rigorous_rdp.curves import MinCurve, bound_name
from rigorous_rdp.events import LaplaceEvent, PoissonSampledEvent, RandomizedResponseEvent
from rigorous_rdp.mechanisms import GaussianCurve, LaplaceCurve, RandomizedResponseCurve
from rigorous_rdp.reference import reference_rdp
from rigorous_rdp.reference import sharp as sharp_ref
from rigorous_rdp.reference.gaussian import laplace_rdp_mp
from rigorous_rdp.reference.zhu_wang import base_rdp_mp, theorem11_mp, zhu_wang_rdp_mp
from rigorous_rdp.registry import rdp_curve
from rigorous_rdp.research.abadi import abadi_lemma3_rdp, abadi_validity_range
from rigorous_rdp.subsampling.poisson_gaussian import poisson_gaussian_rdp
from rigorous_rdp.subsampling.zhu_wang import (
    Bound,
    SmallOrderChi2Curve,
    ZhuWangCurve,
    poisson_subsampled_curve,
    small_order_chi2_rdp,
    tau_term_log_moment,
    taylor_quotient,
)

BASES = {
    "gaussian5": (GaussianCurve(Fraction(5)), "gaussian", 5),
    "laplace2": (LaplaceCurve(Fraction(2)), "laplace", 2),
    "rr06": (RandomizedResponseCurve(Fraction(3, 5)), "randomized-response", Fraction(3, 5)),
    "gaussian1": (GaussianCurve(Fraction(1)), "gaussian", 1),
    "laplace05": (LaplaceCurve(Fraction(1, 2)), "laplace", Fraction(1, 2)),
    "rr09": (RandomizedResponseCurve(Fraction(9, 10)), "randomized-response", Fraction(9, 10)),
}


@pytest.fixture(autouse=True)
def _mp_precision():
    with mpmath.workdps(60):
        yield


def _mp(ball):
    return mpmath.mpf(ball.mid().str(50, radius=False))


def _contains(ball, ref):
    lo = mpmath.mpf(ball.lower().str(60, radius=False))
    hi = mpmath.mpf(ball.upper().str(60, radius=False))
    return lo <= ref <= hi


@pytest.mark.parametrize(
    "q,sigma",
    [
        (Fraction(1, 1000), Fraction(5)),
        (Fraction(1, 100), Fraction(1)),
        (Fraction(1, 2), Fraction(2)),
        (Fraction(1, 10**6), Fraction(1, 2)),
    ],
)
@pytest.mark.parametrize("alpha", [2, 3, 7, 32, 256])
def test_theorem8_equals_exact_poisson_gaussian(q, sigma, alpha):
    curve = ZhuWangCurve(GaussianCurve(sigma), q, "tight")
    with workprec(160):
        zw = curve.certified(Fraction(alpha))
        ex = poisson_gaussian_rdp(Fraction(alpha), q, sigma, 160)
    assert zw.overlaps(ex)
    assert rel_width_ok(zw, 30) and rel_width_ok(ex, 30)
    # agree to 30 digits
    assert abs(_mp(zw) - _mp(ex)) <= mpmath.mpf(10) ** -30 * abs(_mp(ex))


@pytest.mark.parametrize("name", list(BASES))
@pytest.mark.parametrize("alpha", [2, 3, 10, 60])
def test_lower_le_tight_le_general(name, alpha):
    base = BASES[name][0]
    q = Fraction(1, 1000) if name[-1] != "9" else Fraction(1, 100)
    with workprec(128):
        lo = ZhuWangCurve(base, q, "lower").certified(Fraction(alpha))
        ti = ZhuWangCurve(base, q, "tight").certified(Fraction(alpha))
        ge = ZhuWangCurve(base, q, "general").certified(Fraction(alpha))
        gap = ge - lo
        log3 = arb(3).log() / (alpha - 1)
    assert lo.overlaps(ti)  # the same formula (Thm 6 = Thm 8)
    assert ti <= ge or ti.overlaps(ge)
    if alpha >= 3:
        assert ti < ge  # the factor 3 is strict for alpha >= 3
    else:
        assert ti.overlaps(ge)  # alpha = 2: Thm 5 = Thm 8
    # the general bound is within log(3)/(alpha-1) of the lower bound (Sec. 3 of the seed)
    # (A_general <= 3 A_lower; equality is approached when the l >= 3 terms dominate)
    assert not gap > log3


@pytest.mark.parametrize("name", ["gaussian5", "laplace2", "rr06", "gaussian1", "laplace05", "rr09"])
def test_against_mpmath_reference(name):
    base, kind, param = BASES[name]
    q = Fraction(1, 1000)
    for alpha in (2, 5, 40):
        for bound in ("tight", "general"):
            with workprec(200):
                v = ZhuWangCurve(base, q, bound).certified(Fraction(alpha))
            ref = zhu_wang_rdp_mp(kind, param, q, alpha, bound, dps=50)
            assert _contains(v, ref), (alpha, bound, v, ref)
            assert rel_width_ok(v, 25)


def test_reference_from_definition_laplace():
    # base RDP from the definition (quadrature), a different path from the closed form
    with workprec(128):
        v = ZhuWangCurve(LaplaceCurve(Fraction(2)), Fraction(1, 1000), "tight").certified(Fraction(12))
    ref = zhu_wang_rdp_mp("laplace", 2, Fraction(1, 1000), 12, "tight", dps=30, base="definition")
    assert abs(_mp(v) - ref) <= mpmath.mpf(10) ** -25 * ref


@pytest.mark.parametrize("name", ["gaussian5", "laplace2", "rr06", "gaussian1", "laplace05"])
def test_tau_term_upper_and_decreasing(name):
    base = BASES[name][0]
    q = Fraction(1, 1000)
    alpha = 200
    with workprec(256):
        tight = ZhuWangCurve(base, q, "tight").certified(Fraction(alpha))
        prev = None
        for tau in (1, 2, 5, 20, 50, 99, 100):
            v = ZhuWangCurve(base, q, "tau", tau=tau).certified(Fraction(alpha))
            assert v.is_finite()
            assert tight <= v or tight.overlaps(v)
            if prev is not None:
                assert v <= prev or v.overlaps(prev)
            prev = v
        # 2 tau >= alpha: exact
        assert prev.overlaps(tight)
    # convergence: tau = 50 is close to tight for these settings
    with workprec(256):
        v50 = ZhuWangCurve(base, q, "tau", tau=50).certified(Fraction(alpha))
    assert float((v50 - tight).upper()) <= 0.05 * float(tight.mid()) + 1e-12


def test_tau_term_matches_literal_theorem11():
    base = LaplaceCurve(Fraction(1, 2))

    def eps_mp(ell):
        return base_rdp_mp("laplace", Fraction(1, 2), ell, 50)

    for alpha, tau in ((30, 3), (101, 10), (12, 5)):
        with workprec(200):
            la = tau_term_log_moment(alpha, arb("0.001"), lambda ell: base.certified(Fraction(ell)), tau)
        ref = theorem11_mp(alpha, Fraction(1, 1000), eps_mp, tau, dps=50)
        assert _contains(la / (alpha - 1), ref)


def test_tau_general_analogue_dominates_theorem5():
    base = LaplaceCurve(Fraction(2))
    with workprec(200):
        g = ZhuWangCurve(base, "0.001", "general").certified(Fraction(120))
        for tau in (3, 10, 40):
            t = ZhuWangCurve(base, "0.001", "tau", tau=tau, tau_general=True).certified(Fraction(120))
            assert g <= t or g.overlaps(t)


def test_real_order_interpolation_is_an_upper_bound():
    # against the exact Poisson-subsampled Gaussian at real orders (certified integration)
    q, s = Fraction(1, 100), Fraction(1)
    curve = ZhuWangCurve(GaussianCurve(s), q, "tight")
    for a in (Fraction(3, 2), Fraction(5, 2), Fraction(21, 2)):
        with workprec(96):
            v = curve.certified(a)
            ex = poisson_gaussian_rdp(a, q, s, 96)
        assert ex < v
    with pytest.raises(ValueError, match="alpha must be an integer"):
        ZhuWangCurve(GaussianCurve(s), q, "lower").certified(Fraction(5, 2))


def test_gamma_edge_cases():
    base = LaplaceCurve(Fraction(1))
    with workprec(64):
        assert ZhuWangCurve(base, 0, "tight").certified(Fraction(10)) == 0
        one = ZhuWangCurve(base, 1, "tight").certified(Fraction(10))
        assert one.overlaps(base.certified(Fraction(10)))
        g1 = ZhuWangCurve(base, 1, "general").certified(Fraction(10))
        assert g1.overlaps(base.certified(Fraction(10)) + arb(3).log() / 9)


def test_screen_tracks_certified():
    curve = ZhuWangCurve(LaplaceCurve(Fraction(2)), "0.001", "general")
    alphas = np.array([2.0, 3.5, 10.0, 64.0])
    sc = curve.screen(alphas)
    with workprec(64):
        cert = [float(curve.certified(Fraction(a)).mid()) for a in alphas]
    assert np.allclose(sc, cert, rtol=1e-9)


def test_registry_uses_tight_bound_with_lemma4_cap_and_reference():
    ev = PoissonSampledEvent(LaplaceEvent("0.5"), "0.9")
    acc = RdpAccountant()
    acc.compose(ev)
    for a in (Fraction(2), Fraction(7, 2), Fraction(40)):
        r = acc.rdp(a, digits=15)
        ref = reference_rdp(ev, a, 40)
        assert _contains(r.rdp.ball, ref)
    # Theorem 8 stays below the Lemma 4 value log(1 + q(e^2 - 1)) and approaches it
    with workprec(100):
        cap = (arb("0.9") * arb(2).expm1()).log1p()
    r = acc.rdp(Fraction(400), digits=15)
    assert r.rdp.ball < cap and cap - r.rdp.ball < arb("0.01")
    assert acc._pure_dp_total().overlaps(cap)


def test_condition4_gate():
    def user(a):
        return arb(a.numerator) / (2 * arb(a.denominator))  # a Gaussian-like curve as a callable

    c = poisson_subsampled_curve(user, "0.01")
    assert c.bound is Bound.GENERAL  # condition (4) not established for a bare callable
    with pytest.raises(ValueError, match="bound tight needs condition"):
        poisson_subsampled_curve(user, "0.01", bound="tight")
    from rigorous_rdp.research.chi_divergence import verify_condition4_gaussian

    cert = verify_condition4_gaussian(7, 1)
    c2 = poisson_subsampled_curve(user, "0.01", condition4=cert)
    assert c2.bound is Bound.TIGHT
    c3 = poisson_subsampled_curve(user, "0.01", bound="tau", tau=3)
    assert c3.tau_general


def test_event_and_accountant_epsilon_ordering():
    eps = {}
    for b in ("tight", "general"):
        acc = RdpAccountant(bound=b).compose(PoissonSampledEvent(RandomizedResponseEvent("0.6"), "0.001"), 1000)
        eps[b] = acc.get_epsilon("1e-8")
    assert eps["tight"].upper() < eps["general"].upper()
    acc = RdpAccountant(bound="tau", tau=8).compose(PoissonSampledEvent(RandomizedResponseEvent("0.6"), "0.001"), 1000)
    e_tau = acc.get_epsilon("1e-8")
    assert eps["tight"].upper() <= e_tau.upper()


def test_abadi_lemma3_dominates_exact_and_range():
    assert abadi_validity_range("0.001", 5) == 132
    assert abadi_validity_range("0.001", 1) == 6
    for a in (2, 10, 133):
        with workprec(100):
            ab = abadi_lemma3_rdp(a, "0.001", 5)
            ex = poisson_gaussian_rdp(Fraction(a), Fraction(1, 1000), Fraction(5), 100)
        assert ex < ab
    with pytest.raises(ValueError, match="alpha must be <= 133"):
        abadi_lemma3_rdp(134, "0.001", 5)
    with pytest.raises(ValueError, match="q must be in"):
        abadi_lemma3_rdp(2, "0.1", 5)
    with pytest.raises(ValueError, match="sigma must be >= 1"):
        abadi_lemma3_rdp(2, "0.001", "0.5")


def test_autodp_cross_check():
    pytest.importorskip("autodp")
    from autodp import rdp_acct, rdp_bank

    cases = [
        ("laplace", lambda x: rdp_bank.RDP_laplace({"b": 2}, x), LaplaceCurve(Fraction(2))),
        ("rr", lambda x: rdp_bank.RDP_randresponse({"p": 0.6}, x), RandomizedResponseCurve(Fraction(3, 5))),
        ("gauss", lambda x: rdp_bank.RDP_gaussian({"sigma": 5}, x), GaussianCurve(Fraction(5))),
    ]
    for name, f, curve in cases:
        acc = rdp_acct.anaRDPacct(m=100)
        acc.compose_poisson_subsampled_mechanisms(f, 0.001)  # autodp: Thm 6/8 of the seed
        theirs = acc.get_rdp([2, 10, 50])
        zw = ZhuWangCurve(curve, "0.001", "tight")
        with workprec(64):
            ours = [float(zw.certified(Fraction(a)).mid()) for a in (2, 10, 50)]
        assert np.allclose(ours, theirs, rtol=1e-6), name
        # Theorem 11 (autodp returns the log-moment)
        for a, tau in ((40, 5), (120, 10)):
            t_theirs = rdp_acct.fast_k_subsample_upperbound(f, a, 0.001, tau) / (a - 1)
            with workprec(128):
                t_ours = ZhuWangCurve(curve, "0.001", "tau", tau=tau).certified(Fraction(a))
            assert abs(float(t_ours.mid()) - t_theirs) <= 1e-6 * t_theirs, (name, a, tau)


def _cli(argv, capsys):
    from rigorous_rdp.cli import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_bounds(capsys):
    base = ["--noise", "laplace", "--scale", "2", "--sampling", "poisson", "--q", "0.001"]
    code, out, _ = _cli(["rdp", *base, "--alpha", "10", "--json"], capsys)
    assert code == 0
    tight = json.loads(out)
    # the default is the minimum of Thm 8 and the small-order bound; Thm 8 wins at alpha = 10
    assert tight["results"][0]["bound"] == "zhu-wang-tight" and tight["guarantee"] is True
    code, out, _ = _cli(["rdp", *base, "--alpha", "10", "--bound", "general", "--json"], capsys)
    gen = json.loads(out)
    assert mpmath.mpf(gen["results"][0]["rdp"]["lower"]) > mpmath.mpf(tight["results"][0]["rdp"]["upper"])
    code, out, _ = _cli(["rdp", *base, "--alpha", "10", "--bound", "lower", "--json"], capsys)
    assert code == 0 and json.loads(out)["guarantee"] is False
    code, out, err = _cli(["epsilon", *base, "--steps", "10", "--delta", "1e-8", "--bound", "lower"], capsys)
    assert code == 2 and "--bound lower" in err
    code, out, err = _cli(["delta", *base, "--steps", "10", "--epsilon", "1", "--bound", "tau"], capsys)
    assert code == 2 and err.startswith("rigorous-rdp: error: --tau is required")
    code, out, err = _cli(["rdp", *base, "--alpha", "10", "--bound", "tau", "--tau", "0"], capsys)
    assert code == 2 and "--tau must be an integer >= 1" in err
    code, out, err = _cli(["rdp", "--noise", "gaussian", "--sigma", "1", "--alpha", "3", "--bound", "general"], capsys)
    assert code == 2 and "--bound applies to a sampled mechanism" in err
    code, out, _ = _cli(
        [
            "epsilon",
            "--noise",
            "randomized-response",
            "--p",
            "0.6",
            "--sampling",
            "poisson",
            "--q",
            "0.001",
            "--steps",
            "1000",
            "--delta",
            "1e-8",
            "--bound",
            "tau",
            "--tau",
            "20",
            "--json",
        ],
        capsys,
    )
    assert code == 0 and mpmath.mpf(json.loads(out)["epsilon"]["upper"]) > 0


@pytest.mark.parametrize(
    "kw,msg",
    [
        (dict(q="1.5"), "q must be in"),
        (dict(q="0.1", bound="loose"), "bound must be one of"),
        (dict(q="0.1", bound="tau"), "tau must be an integer"),
        (dict(q="0.1", bound="tau", tau=0), "tau must be an integer"),
    ],
)
def test_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg):
        ZhuWangCurve(LaplaceCurve(Fraction(1)), **kw)
    with pytest.raises(ValueError, match="alpha must be > 1"):
        ZhuWangCurve(LaplaceCurve(Fraction(1)), "0.1").certified(Fraction(1))


# ---------------------------------------------------------------------------
# orders in (1, 2]: the second-moment bound (default: minimum with Thm 8)
# ---------------------------------------------------------------------------


def test_taylor_quotient_against_mpmath():
    with workprec(128), mpmath.workdps(60):
        for a in (Fraction(101, 100), Fraction(3, 2), Fraction(2)):
            for x in (
                Fraction(-1, 1),
                Fraction(-1, 2),
                Fraction(-1, 10**9),
                Fraction(1, 10**6),
                Fraction(1, 5),
                Fraction(7),
            ):
                g = taylor_quotient(arb(a.numerator) / a.denominator, arb(x.numerator) / x.denominator)
                aa, xx = mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(x.numerator) / x.denominator
                ref = aa - 1 if x == -1 else ((1 + xx) ** aa - 1 - aa * xx) / xx**2
                assert g.overlaps(arb(mpmath.nstr(ref, 40))), (a, x, g, ref)
                assert g.rad() < abs(g.mid()) * 1e-30


@pytest.mark.parametrize(
    "inner,q,alpha",
    [
        (LaplaceEvent(1), Fraction(1, 10), Fraction(3, 2)),
        (LaplaceEvent(10), Fraction(1, 1000), Fraction(101, 100)),
        (RandomizedResponseEvent(Fraction(3, 5)), Fraction(1, 2), Fraction(19, 10)),
        (RandomizedResponseEvent(Fraction(9, 10)), Fraction(1, 10**8), Fraction(2)),
    ],
)
def test_small_order_curve_against_reference(inner, q, alpha):
    base = rdp_curve(inner)
    c = SmallOrderChi2Curve(base, q)
    with workprec(128):
        v = c.certified(alpha)
    if isinstance(inner, LaplaceEvent):
        e2, ei = (
            laplace_rdp_mp(Fraction(2), inner.scale, 50),
            1 / (mpmath.mpf(inner.scale.numerator) / inner.scale.denominator),
        )
    else:
        p = mpmath.mpf(inner.p.numerator) / inner.p.denominator
        e2, ei = mpmath.log(p**2 / (1 - p) + (1 - p) ** 2 / p), abs(mpmath.log(p / (1 - p)))
    ref = sharp_ref.small_order_chi2_reference(alpha, q, e2, ei, 40)
    assert v.overlaps(arb(mpmath.nstr(ref, 40))) and v.rad() < abs(v.mid()) * 1e-25


def test_small_order_default_beats_order_two_and_is_valid():
    """Laplace b = 1, q = 0.1: at alpha = 1.5 the default is 0.00703 (the alpha = 2 value of Thm 8 is
    0.00854), above the exact divergence of the pair (0.00632, quadrature)."""
    ev = PoissonSampledEvent(LaplaceEvent(1), Fraction(1, 10))
    c = rdp_curve(ev)
    assert isinstance(c, MinCurve)
    with workprec(64):
        v15, v2 = c.certified(Fraction(3, 2)), c.certified(Fraction(2))
    assert abs(float(v15.mid()) / 0.0070289459951 - 1) < 1e-9
    assert abs(float(v2.mid()) / 0.0085364570195 - 1) < 1e-9
    assert bound_name(c, Fraction(3, 2)) == "small-order-chi2" and bound_name(c, Fraction(2)) == "zhu-wang-tight"
    assert float(v15.lower()) > 0.0063174785118  # exact D(mixture || Lap(0)) at alpha = 1.5
    with workprec(64):
        assert not SmallOrderChi2Curve(rdp_curve(LaplaceEvent(1)), Fraction(1, 10)).certified(Fraction(3)).is_finite()
    with pytest.raises(ValueError, match=r"^alpha must be in \(1, 2\]"):
        small_order_chi2_rdp(Fraction(3), Fraction(1, 10), arb(1), None)
    with pytest.raises(ValueError, match=r"^q must be < 1"):
        SmallOrderChi2Curve(GaussianCurve(Fraction(1)), 1)
