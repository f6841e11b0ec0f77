"""The inversion integral of :mod:`rigorous_rdp.pld.laplace_exact` (``LaplaceProfile._contour``): the
integrand's enclosures on balls (the mean-value form, or the modulus bound through the values of the
moment generating functions on the real axis) contain the integrand's values at points of the ball,
and the integral's delta contains the independent mpmath value of ``test_pld_laplace_review``."""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
from flint import acb, arb, fmpq

from rigorous_rdp.arith import workprec
from rigorous_rdp.pld import laplace_exact
from rigorous_rdp.pld.closed_form import LaplaceComposition
from rigorous_rdp.pld.laplace_exact import _saddle
from tests.test_pld_laplace_review import _bounds, _mp, _reference, _uncapped_model

CELLS = [
    (F(1, 20), 2000, F(39960)),  # next to the largest loss, the atoms' tilted weight negligible
    (F(30), 1000, F(10)),  # the atoms keep tilted weight: terms with j <= J subtracted
    (F(10), 300, F(816, 100)),
    (F(1), 100, F(0)),  # saddle c < 0 (the residue side)
]


def _integrand(scale: F, steps: int, eps: F, monkeypatch: pytest.MonkeyPatch):
    seen = []

    def spy(f, a, b, **kw):
        seen.append((f, b))
        return acb.integral(f, a, b, **kw)

    monkeypatch.setattr(laplace_exact, "_integral", spy)
    lap = LaplaceComposition(scale, steps)
    v = lap._contour(eps, 30, _saddle(lap._beta, steps, eps))
    assert seen and v.is_finite()
    return seen[-1]


@pytest.mark.parametrize(("scale", "steps", "eps"), CELLS)
def test_ball_enclosures_contain_point_values(scale: F, steps: int, eps: F, monkeypatch) -> None:
    with workprec(200):
        f, R = _integrand(scale, steps, eps, monkeypatch)
        sd = _saddle(1 / scale, steps, eps).sd
        checked = 0
        for t0 in (0.0, 0.5 / sd, 2 / sd, 8 / sd, R / 3, R * 0.9):
            for w in (0.05 / sd, 0.5 / sd, 4 / sd, R / 8):
                for imag in (0.0, w / 2):
                    ball = acb(arb(t0 + w / 2, w / 2), arb(0, imag) if imag else arb(0))
                    enc = f(ball, True)
                    if not enc.is_finite():
                        continue
                    for u in (-1, -0.5, 0, 0.5, 1):
                        for v in (-1, 0, 1) if imag else (0,):
                            p = acb(t0 + w / 2 + u * w / 2 * 0.999, v * imag * 0.999)
                            val = f(p, False)
                            assert enc.contains(val), (t0, w, imag, u, v, enc, val)
                            checked += 1
        assert checked > 100


@pytest.mark.parametrize(
    ("scale", "steps", "eps"),
    [
        (F(30), 40, F(1, 2)),  # atoms with tilted weight
        (F(30), 40, F(4, 3) - F(1, 100)),  # next to the largest loss 4/3
        (F(3), 30, F(4)),
        (F(1, 3), 24, F(70)),  # small scale, next to the largest loss 72
        pytest.param(F(30), 60, F(1), marks=pytest.mark.slow),
        pytest.param(F(1), 50, F(2479, 100), marks=pytest.mark.slow),
    ],
)
def test_inversion_contains_independent_value(scale: F, steps: int, eps: F) -> None:
    lap = LaplaceComposition(scale, steps)
    with workprec(200):
        ball = lap._contour(eps, 40, _saddle(lap._beta, steps, eps))
    with mpmath.workdps(80):
        ref, omitted = _reference(scale, steps, eps)
        lo, hi = _bounds(ball)
        assert lo <= ref + omitted and ref <= hi, (lo, hi, ref)
        assert hi - lo <= ref * mpmath.mpf(2) ** -30


def _walk_mean_excess(steps: int, a: F) -> F:
    """E(S - a)_+ of the Rademacher walk, summed exactly over the binomial law."""
    return (
        sum((F(math.comb(steps, n)) * (2 * n - steps - a) for n in range(steps + 1) if 2 * n - steps > a), F(0))
        / 2**steps
    )


@pytest.mark.parametrize(("steps", "eps_units"), [(1, F(0)), (10, F(0)), (11, F(3)), (1000, F(0)), (1000, F(37, 2))])
def test_tiny_loss_against_the_exact_walk(steps: int, eps_units: F) -> None:
    """At scale 1e1000 the bracket is beta E(S - a)_+ to 1e-990 relatively: compared with the
    exact rational sum over the binomial law (a = eps / beta)."""
    scale = F(10) ** 1000
    lap = LaplaceComposition(scale, steps)
    ball = lap.enclose(eps_units / scale, 40)
    ref = _walk_mean_excess(steps, eps_units) / scale
    with workprec(200):
        r = arb(fmpq(ref.numerator, ref.denominator))
        assert ball.lower() <= r <= ball.upper() and ball.rel_accuracy_bits() >= 40


@pytest.mark.parametrize(("scale", "eps_frac"), [(F(10) ** 9, F(0)), (F(10) ** 9, F(1, 3)), (F(10) ** 12, F(9, 10))])
def test_tiny_loss_bracket_contains_the_one_step_profile(scale: F, eps_frac: F) -> None:
    """T = 1 at a scale where the bracket's width (about T beta relatively) shows: it contains the
    closed form 1 - e^((eps - beta)/2), eps in [0, beta]."""
    beta = 1 / scale
    eps = eps_frac * beta
    with workprec(200):
        ball = LaplaceComposition(scale, 1)._tiny_loss(eps, 8)
        assert ball is not None
        with mpmath.workdps(60):
            e, b = (mpmath.mpf(x.numerator) / x.denominator for x in (eps, beta))
            ref = -mpmath.expm1((e - b) / 2)
            lo, hi = _bounds(ball)
            assert lo <= ref <= hi, (lo, hi, ref)


@pytest.mark.parametrize(("scale", "steps", "eps"), [(F(100), 2000, F(1998, 100)), (F(1000), 20000, F(1998, 100))])
def test_inversion_agrees_with_the_cut_off_sum_next_to_the_largest_loss(
    scale: F, steps: int, eps: F, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Next to the largest loss at large scales the atoms keep tilted weight (terms with j <= J
    subtracted from the integrand): the integral overlaps the cut-off sum (kernel sums over the
    lattice, a different computation), allowed more terms here."""
    monkeypatch.setattr(laplace_exact, "MAX_TERMS", 60)
    lap = LaplaceComposition(scale, steps)
    sad = _saddle(lap._beta, steps, eps)
    with workprec(200):
        inv = lap._contour(eps, 40, sad)
        cut = lap._truncated(eps, 40, sad)
    assert cut is not None and inv.is_finite()
    assert inv.overlaps(cut) and inv.rel_accuracy_bits() >= 40 and cut.rel_accuracy_bits() >= 40


@pytest.mark.parametrize(("steps", "delta"), [(5, F(1, 10)), (20, F(1, 10)), (40, F(1, 10**8))])
def test_epsilon_at_a_huge_beta_against_the_uncapped_model(steps: int, delta: F) -> None:
    """Scale 1e-1000: epsilon is searched on the gap h = T beta - epsilon (only the capped route
    evaluates there); its ends, as gaps, are decided by the quadrature of the uncapped model
    (the cap changes delta by at most T e^-beta / 2, nothing at this beta)."""
    scale = F(1, 10**1000)
    comp = LaplaceComposition(scale, steps)
    br = comp.epsilon(delta, F(1, 100))
    top = steps / scale
    h_small, h_large = top - br.up_exact, top - br.lo_exact
    assert 0 <= h_small < h_large <= h_small + F(1, 100)
    with mpmath.workdps(40):
        assert _uncapped_model(steps, h_large) > _mp(delta)
        assert h_small == 0 or _uncapped_model(steps, h_small) <= _mp(delta)
