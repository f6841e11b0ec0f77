"""The inversion integral of :mod:`rigorous_rdp.pld.laplace_exact` (``LaplaceProfile._contour``): the
integrand's enclosures on balls (the mean-value form, or the modulus bound through the values of the
moment generating functions on the real axis) contain the integrand's values at points of the ball,
and the integral's delta contains the independent mpmath value of ``test_pld_laplace_review``."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from flint import acb, arb

from rigorous_rdp.arith import workprec
from rigorous_rdp.pld import laplace_exact
from rigorous_rdp.pld.closed_form import LaplaceComposition
from rigorous_rdp.pld.laplace_exact import _saddle
from tests.test_pld_laplace_review import _bounds, _reference

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
