"""Lower bounds are never turned into privacy guarantees."""

import json
from fractions import Fraction

import mpmath
import pytest
from _containment import contains, describe

from rigorous_rdp import LaplaceEvent, PoissonSampledEvent, RdpAccountant


def test_lower_bound_curve_is_shown_but_not_converted():
    acc = RdpAccountant(bound="lower").compose(PoissonSampledEvent(LaplaceEvent(2), "0.001"), 10)
    shown = acc.rdp(3).rdp
    assert shown.ball > 0
    with pytest.raises(ValueError, match=r"^bound .*lower bound"):
        acc.get_epsilon_and_order("1e-5")
    with pytest.raises(ValueError, match=r"^bound .*lower bound"):
        acc.get_delta_and_order(1)


def _subsampled_laplace_moment_by_quadrature(b, q, alpha: int, dps: int = 40):
    r"""E_{p_0}[(1 - q + q p_1/p_0)^alpha] for p_0 = Lap(0, b), p_1 = Lap(1, b), by quadrature of the
    definition (split at the kinks 0 and 1): the moment of the worst pair of Zhu & Wang 2019,
    Theorem 6, which their Theorem 8 shows is also the maximum for Laplace (tight = lower)."""
    with mpmath.workdps(dps):
        b, q = mpmath.mpf(b), mpmath.mpf(q)

        def f(x):
            p0 = mpmath.exp(-abs(x) / b) / (2 * b)
            p1 = mpmath.exp(-abs(x - 1) / b) / (2 * b)
            return p0 * (1 - q + q * p1 / p0) ** alpha

        return mpmath.quad(f, [-mpmath.inf, 0, 1, mpmath.inf])


def test_tight_and_lower_bounds_contain_the_attained_divergence():
    """Laplace b = 2, q = 1e-3, alpha = 3, 10 steps: both the lower (Thm 6) and the tight (Thm 8)
    curves enclose 10 log(E[...]) / 2 of the worst pair, computed by quadrature (not by the
    binomial sums of the code); then only the tight one converts to a guarantee."""
    with mpmath.workdps(50):
        ref = 10 * mpmath.log(_subsampled_laplace_moment_by_quadrature(2, "0.001", 3, 50)) / 2
    lower = RdpAccountant(bound="lower").compose(PoissonSampledEvent(LaplaceEvent(2), "0.001"), 10)
    tight = RdpAccountant(bound="tight").compose(PoissonSampledEvent(LaplaceEvent(2), "0.001"), 10)
    for acc in (lower, tight):
        ball = acc.rdp(3, digits=20).rdp
        assert contains(ball, ref, rel=Fraction(1, 10**30)), describe(ball, ref)
    assert tight.get_epsilon("1e-5").upper_float() > 0


def test_poisson_gaussian_far_below_float_range():
    """q = 1e-170 (q**2 = 1e-340 underflows to 0 in float64) stays certified at real and integer orders."""
    from fractions import Fraction

    import mpmath

    from rigorous_rdp.arith import refine
    from rigorous_rdp.subsampling.poisson_gaussian import poisson_gaussian_rdp

    q = Fraction(1, 10**170)
    assert float(q) ** 2 == 0.0
    for alpha in (Fraction(3), Fraction(5, 2)):
        ball = refine(lambda p, alpha=alpha: poisson_gaussian_rdp(alpha, q, Fraction(1), p), 8).ball
        # leading order: log A ~ q^2 alpha (alpha - 1) / 2 (e - 1), exact up to O(q^3)
        with mpmath.workdps(40):
            a = mpmath.mpf(alpha.numerator) / alpha.denominator
            lead = mpmath.mpf(10) ** -340 * a * (a - 1) / 2 * (mpmath.e - 1) / (a - 1)
            rel = (mpmath.mpf(ball.mid().str(30, radius=False)) - lead) / lead
        assert abs(rel) < 1e-12


def test_float_inputs_of_drop_in_adapters_read_conservatively():
    from fractions import Fraction

    from rigorous_rdp.integrations._inputs import weaker_reading

    # binary 1.1 is above 11/10: as a noise multiplier the decimal is less noise
    assert weaker_reading(1.1, "noise_multiplier", smaller=True) == Fraction(11, 10)
    # binary 0.01 is above 1/100: as a sampling probability keep the binary
    assert weaker_reading(0.01, "sampling_probability", smaller=False) == Fraction(0.01) > Fraction(1, 100)
    # binary 0.3 is below 3/10: as a noise multiplier keep the binary
    assert weaker_reading(0.3, "noise_multiplier", smaller=True) == Fraction(0.3) < Fraction(3, 10)
    assert weaker_reading("0.3", "noise_multiplier", smaller=True) == Fraction(3, 10)


def test_fswor_replace_one_uses_minimum_and_certificate_verifies(tmp_path):
    """At small sigma the Taylor bound explodes; the accountant takes the Wang et al. bound,
    and `verify` (mpmath path) confirms the certificate of that minimum."""
    from rigorous_rdp import FixedSizeSampledEvent, GaussianEvent
    from rigorous_rdp.cli import main

    acc = RdpAccountant().compose(FixedSizeSampledEvent(GaussianEvent(1), 256, 60000, adjacency="replace-one"), 2000)
    eps = acc.get_epsilon("1e-5")
    # dp-accounting's like-for-like value (GaussianDpEvent(0.5), replace-one): 14.098400709691116
    assert 14.0984 < eps.upper_float() < 14.0985
    out = tmp_path / "c.json"
    args = [
        "--sampling",
        "fswor",
        "--batch-size",
        "256",
        "--dataset-size",
        "60000",
        "--sigma",
        "1",
        "--adjacency",
        "replace-one",
        "--steps",
        "2000",
        "--delta",
        "1e-5",
    ]
    assert main(["certify", *args, "--method", "rdp", "--out", str(out)]) == 0  # the RDP minimum's certificate
    assert main(["verify", str(out)]) == 0
    # the default (best) writes the PLD's certificate here (9.774 < 14.098); its verification composes
    # with the accountant's trimming budgets (a flat budget per product once made it fail by 2.5e-11)
    pld = tmp_path / "p.json"
    assert main(["certify", *args, "--out", str(pld)]) == 0
    assert json.loads(pld.read_text())["method"]["kind"] == "pld"
    assert main(["verify", str(pld)]) == 0
