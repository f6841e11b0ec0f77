"""Poisson-subsampled Gaussian under replace-one adjacency (Birrell et al. Thm C.9).

Independent checks: a literal mpmath evaluation of (98) with (44), (47), (83),
(90) at high precision; the Rényi divergence of the anti-parallel pair (which
attains the second-order coefficient (96)) by quadrature; enumeration of all
Poisson minibatches of tiny datasets with mpmath integration of the mixtures.
"""

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from _cli import cmd
from _datasets import both_directions, random_replace_one_pairs
from _mpcheck import ball_contains as _contains
from _mpcheck import below_upper as _le
from flint import arb

from rigorous_rdp import GaussianEvent, PoissonSampledEvent, RdpAccountant
from rigorous_rdp.arith import workprec
from rigorous_rdp.cli import main
from rigorous_rdp.curves import MinCurve, bound_name
from rigorous_rdp.events import Adjacency
from rigorous_rdp.mechanisms import GaussianCurve
from rigorous_rdp.reference import fixed_size_misc as R
from rigorous_rdp.reference import reference_rdp
from rigorous_rdp.reference import sharp as sharp_ref
from rigorous_rdp.registry import rdp_curve
from rigorous_rdp.subsampling.fswor import fswor_replace_one_rdp
from rigorous_rdp.subsampling.poisson_gaussian import PoissonGaussianCurve
from rigorous_rdp.subsampling.poisson_replace_one import (
    PoissonReplaceOneGaussianCurve,
    WeakTriangleReplaceOneCurve,
    poisson_replace_one,
    poisson_replace_one_default_curve,
    poisson_replace_one_rdp,
    weak_triangle_value,
)

Q = Fraction(120, 50000)


@pytest.mark.parametrize(
    "alpha,q,sigma,m",
    [
        (2, Q, 6, 5),
        (Fraction(5, 2), Q, 6, 4),
        (8, Fraction(1, 100), 2, 3),
        (Fraction(37, 4), Fraction(1, 20), 3, 6),
        (32, Q, 6, 5),
    ],
)
def test_matches_literal_mpmath(alpha, q, sigma, m):
    with workprec(128):
        ball = poisson_replace_one_rdp(alpha, q, sigma, m)
    assert _contains(ball, R.poisson_replace_one_mp(Fraction(alpha), q, Fraction(sigma), m))
    assert ball.rad() < abs(ball) * arb("1e-20")


@pytest.mark.parametrize(
    "alpha,q,sigma",
    [
        (2, Q, 6),
        (Fraction(3, 2), Q, 6),
        (8, Fraction(1, 100), 2),
        (Fraction(37, 4), Fraction(1, 20), 3),
        (3, Fraction(1, 2), 1),
    ],
)
def test_upper_bounds_the_antiparallel_pair(alpha, q, sigma):
    true = R.poisson_replace_one_true_mp(Fraction(alpha), q, Fraction(sigma))
    with workprec(96):
        ball = poisson_replace_one_rdp(alpha, q, sigma)
    assert _le(true, ball)


def _poisson_divergence(gx, gy, q, sigma, alpha):
    px, wx = R.poisson_minibatch_mixture(gx, q)
    py, wy = R.poisson_minibatch_mixture(gy, q)
    return R.mixture_renyi_mp(px, wx, py, wy, sigma, alpha, dps=20)


@pytest.mark.parametrize("alpha", [2, Fraction(5, 2)])
def test_upper_bounds_enumerated_minibatches(alpha):
    sigma, q = Fraction(3, 2), Fraction(3, 10)
    x = [Fraction(1, 2), Fraction(-1, 4), Fraction(1)]
    y = [*x[:-1], Fraction(-1)]
    with workprec(96):
        ball = poisson_replace_one_rdp(alpha, q, sigma)
    for d in both_directions(lambda u, v: _poisson_divergence(u, v, q, sigma, alpha), [(x, y)]):
        assert _le(d, ball)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [2, 3, Fraction(7, 2)])
def test_upper_bounds_random_enumerated_minibatches(alpha):
    rng = np.random.default_rng(5)
    sigma, q = Fraction(1), Fraction(1, 4)
    with workprec(96):
        ball = poisson_replace_one_rdp(alpha, q, sigma)
    for d in both_directions(lambda u, v: _poisson_divergence(u, v, q, sigma, alpha), random_replace_one_pairs(rng, 4)):
        assert _le(d, ball)


def test_same_leading_order_as_fswor_replace_one():
    # Sec. 4.2 / App. C.1: Poisson and FSwoR agree to leading order in q and 1/sigma^2
    with workprec(96):
        p = poisson_replace_one_rdp(2, Fraction(1, 10**6), 50)
        f = fswor_replace_one_rdp(Fraction(2), Fraction(1, 10**6), Fraction(50), 4)
    assert abs(float(p.mid()) / float(f.mid()) - 1) < 2e-3
    assert p < f  # Fig. 7: the Poisson bound is slightly below


def test_registry_reference_and_accountant():
    ev = PoissonSampledEvent(GaussianEvent(6), Q, Adjacency.REPLACE_ONE)
    default = rdp_curve(ev)  # min of Thm C.9, the weak triangle inequality, 2 alpha / sigma^2
    assert isinstance(default, MinCurve)
    curve = default.curves[0]
    assert isinstance(curve, PoissonReplaceOneGaussianCurve)
    with workprec(128):
        assert _contains(default.certified(Fraction(4)), reference_rdp(ev, Fraction(4)))
        assert default.winner(Fraction(4)) == curve.name  # C.9 wins at moderate sigma
    alphas = np.array([1.5, 2.0, 7.25])
    with workprec(64):
        cert = [float(curve.certified(Fraction(a)).mid()) for a in alphas]
    assert np.allclose(curve.screen(alphas), cert, rtol=1e-8)
    eps = RdpAccountant().compose(ev, 1000).get_epsilon("1e-5")
    assert 0 < eps.upper_float() < 2
    full = rdp_curve(PoissonSampledEvent(GaussianEvent(6), 1, Adjacency.REPLACE_ONE))
    assert isinstance(full, GaussianCurve) and full.sigma == 3  # q = 1: sensitivity 2, no amplification
    with workprec(64):
        assert poisson_replace_one_rdp(3, 0, 6) == 0


def test_certified_digits():
    c = poisson_replace_one("7/2", Q, 6, digits=25)
    assert c.relative_width() < 1e-24


@pytest.mark.parametrize(
    "alpha,q,sigma",
    [(1000, Fraction(1, 10**9), "0.3"), (1000, Fraction(1, 10**9), 1000), (Fraction(2001, 2), Fraction(1, 2), "0.3")],
)
def test_extremes_are_finite(alpha, q, sigma):
    with workprec(64):
        v = poisson_replace_one_rdp(alpha, q, sigma)
    assert v.is_finite() and v > 0


@pytest.mark.slow
def test_extreme_order_ten_thousand():
    with workprec(64):
        for sigma in ("0.3", 1000):
            v = poisson_replace_one_rdp(10000, Fraction(1, 10**9), sigma)
            assert v.is_finite() and v > 0


@pytest.mark.parametrize(
    "args,start",
    [
        ((2, 1, 6), "q"),
        ((2, "-0.1", 6), "q"),
        ((2, Q, 0), "sigma"),
        ((1, Q, 6), "alpha"),
        ((2, Q, 6, 2), "taylor-order"),
    ],
)
def test_bad_input(args, start):
    with pytest.raises(ValueError) as e:
        poisson_replace_one_rdp(*args)
    assert str(e.value).startswith(start)


def test_cli(capsys):
    rc = main(
        cmd("epsilon --sampling poisson --adjacency replace-one --q 0.0024 --sigma 6 --steps 1000 --delta 1e-5 --json")
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert float(out["epsilon"]["lower"]) <= float(out["epsilon"]["upper"]) < 2
    rc = main(cmd("epsilon --sampling poisson --adjacency replace-one --q 0.0024 --sigma -6 --steps 10 --delta 1e-5"))
    assert rc == 2
    assert "--sigma must be a number in (0, 1e100000). Found -6." in capsys.readouterr().err


# ---------------------------------------------------------------------------
# default: minimum with the weak triangle inequality and 2 alpha / sigma^2
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q,sigma,alpha,c9,p2,best",
    [
        (Fraction(1, 10), Fraction(1, 2), Fraction(2), 67.4695, 9.9485, 8.31497),
        (Fraction(1, 10**5), Fraction(2, 5), Fraction(2), 50.7401, 9.7179e-5, 1.55075e-6),
        (Fraction(1, 2), Fraction(1), Fraction(3, 2), 32.0483, 1.75115, 1.20467),
    ],
)
def test_small_sigma_examples(q, sigma, alpha, c9, p2, best):
    """Thm C.9 alone vs the weak triangle inequality with p = 2 and with the optimal p."""
    ev = PoissonSampledEvent(GaussianEvent(sigma), q, Adjacency.REPLACE_ONE)
    c = rdp_curve(ev)
    pg = PoissonGaussianCurve(q, sigma)
    with workprec(64):
        v = c.certified(alpha)
        at2 = weak_triangle_value(alpha, Fraction(2), pg.certified)
        only_c9 = poisson_replace_one_rdp(alpha, q, sigma)
    assert abs(float(only_c9.mid()) / c9 - 1) < 1e-4
    assert abs(float(at2.mid()) / p2 - 1) < 1e-4
    assert abs(float(v.mid()) / best - 1) < 1e-4
    assert bound_name(c, alpha).startswith("weak-triangle")
    # the value at p = 2 against the mpmath add/remove reference (2 alpha and 2 alpha - 1 are integers
    # here: the binomial sum of (9.5), independent of the code under test)
    from rigorous_rdp.reference.gaussian import poisson_gaussian_rdp_mp

    with mpmath.workdps(30):
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        r2a, r2b = (poisson_gaussian_rdp_mp(lam, q, sigma, 30, method="binomial") for lam in (2 * alpha, 2 * alpha - 1))
        r2 = (a - mpmath.mpf(1) / 2) / (a - 1) * r2a + r2b
    assert abs(float(at2.mid()) / float(r2) - 1) < 1e-12
    # never below the exact divergence of the anti-parallel pair (a lower bound on the RDP)
    assert float(v.upper()) >= float(R.poisson_replace_one_true_mp(alpha, q, sigma))


def test_weak_triangle_reference_and_validation():
    c = WeakTriangleReplaceOneCurve(PoissonGaussianCurve(Fraction(1, 10), Fraction(1, 2)))
    with workprec(64):
        v = c.certified(Fraction(2))
    ref = sharp_ref.weak_triangle_reference(2, Fraction(1, 10), Fraction(1, 2))
    assert float(v.upper()) <= float(ref) * (1 + 1e-9)
    assert c.optimal_p(Fraction(2)) > 1
    with pytest.raises(ValueError, match=r"^p must be > 1"):
        weak_triangle_value(Fraction(2), Fraction(1), lambda o: arb(0))
    from rigorous_rdp.curves import RdpCurve

    class IntegerOnly(RdpCurve):
        name = "integer-only-test-curve"
        integer_orders_only = True

        def certified(self, alpha):
            return arb(0)

    with pytest.raises(ValueError, match="integer-only"):
        WeakTriangleReplaceOneCurve(IntegerOnly())
    # the default curve includes 2 alpha / sigma^2 and is exactly that at q = 1
    full = poisson_replace_one_default_curve(Fraction(1), Fraction(2))
    with workprec(64):
        assert float(full.certified(Fraction(3)).mid()) == 1.5


def test_cli_names_the_winning_bound_per_order(capsys):
    rc = main(cmd("rdp --sampling poisson --adjacency replace-one --q 0.1 --sigma 0.5 --alpha 2 64 --json"))
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["bound"] for r in out["results"]] == ["weak-triangle(poisson-gaussian)", "poisson-gaussian-replace-one"]
    assert out["bound"].startswith("min(poisson-gaussian-replace-one, weak-triangle")
