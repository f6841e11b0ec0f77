"""The exact Laplace composition (:mod:`rigorous_rdp.pld.laplace_exact`) against independent values:
the one-step closed form (the total variation at epsilon 0), mpmath quadrature of the two-fold
loss law, sympy's exact integration of the three-fold mixture, the pure-DP limit, the two evaluation
routes against each other (finite mixture vs Laplace inversion), and the grid path at a fine width."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction as F
from pathlib import Path

import mpmath
import pytest
from flint import arb, fmpq

from rigorous_rdp import LaplaceEvent
from rigorous_rdp.arith import workprec
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.pld.closed_form import ExactDeltaResult, ExactEpsilonResult, LaplaceComposition, closed_form_of
from rigorous_rdp.pld.laplace_exact import EXACT_STEPS, _saddle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "proofs"))


def _arb(x: F) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _contains(ball: arb, ref: mpmath.mpf, slack: F = F(0)) -> bool:
    r = F(mpmath.nstr(ref, 40, strip_zeros=False)) if ref != 0 else F(0)
    with workprec(256):
        return bool(ball.lower() <= _arb(r + slack * abs(r)) and _arb(r - slack * abs(r)) <= ball.upper())


def _two_fold(scale: F, eps: F) -> mpmath.mpf:
    """delta of two Laplace steps: condition on the first loss (Fubini), one-step profile in closed
    form, one mpmath quadrature split at the kinks of the one-step profile."""
    with mpmath.workdps(40):
        b = mpmath.mpf(scale.numerator) / scale.denominator
        bt = 1 / b
        e = mpmath.mpf(eps.numerator) / eps.denominator

        def d1(y):
            if y >= bt:
                return mpmath.mpf(0)
            if y < -bt:
                return 1 - mpmath.exp(y)
            xe = (1 - b * y) / 2
            return 1 - mpmath.exp(-xe / b) / 2 - mpmath.exp(y) * mpmath.exp((xe - 1) / b) / 2

        pts = [mpmath.mpf(0), mpmath.mpf(1)]
        for sgn in (1, -1):
            xk = (1 - (e - sgn * bt) / bt) / 2
            if 0 < xk < 1:
                pts.append(xk)
        mid = mpmath.quad(lambda z: mpmath.exp(-z / b) / (2 * b) * d1(e - (1 - 2 * z) / b), sorted(pts))
        return d1(e - bt) / 2 + mpmath.exp(-bt) / 2 * d1(e + bt) + mid


@pytest.mark.parametrize("scale", [F(1, 10), F(1), F(3), F(1000)])
def test_one_step_total_variation(scale):
    """delta(0) of one step is the total variation 1 - e^(-1/(2b))."""
    v = LaplaceComposition(scale, 1).enclose(F(0), 40)
    with mpmath.workdps(40):
        tv = 1 - mpmath.exp(-mpmath.mpf(scale.denominator) / (2 * scale.numerator))
    assert _contains(v, tv)
    assert v.rel_accuracy_bits() >= 40


@pytest.mark.parametrize(("scale", "eps"), [(F(1), F(1, 4)), (F(1), F(1)), (F(2), F(1, 3)), (F(1, 2), F(0))])
def test_two_steps_against_quadrature(scale, eps):
    v = LaplaceComposition(scale, 2).enclose(eps, 40)
    assert _contains(v, _two_fold(scale, eps), F(1, 10**20))


def test_three_steps_against_sympy():
    """T = 3 against sympy's exact integration of the mixture (proofs/verify_laplace_composition.py)."""
    import sympy as sp
    from verify_laplace_composition import laplace_delta_exact

    for scale, eps in ((F(2), F(1, 3)), (F(1), F(1))):
        exact = sp.N(laplace_delta_exact(scale, 3, eps), 40)
        v = LaplaceComposition(scale, 3).enclose(eps, 40)
        with mpmath.workdps(45):
            ref = mpmath.mpf(str(exact))
        assert _contains(v, ref, F(1, 10**25))


@pytest.mark.parametrize("scale", [F(1, 10), F(1), F(10), F(1000)])
@pytest.mark.parametrize("steps", [1, 3, 10])
def test_pure_dp_limit(scale, steps):
    """delta vanishes from the largest loss T/b on, and epsilon(delta) tends to it."""
    lap = LaplaceComposition(scale, steps)
    assert lap.enclose(steps / scale, 30) == 0
    assert lap.enclose(steps / scale + 1, 30) == 0
    # below the largest loss delta >= P(all losses +1/b) (1 - e^(eps - T/b)) > 0
    eps = steps / scale - F(1, 100)
    v = lap.enclose(eps, 30)
    with mpmath.workdps(30):
        floor = mpmath.mpf(2) ** -steps * -mpmath.expm1(mpmath.mpf(-1) / 100)
    with workprec(256):
        assert v.lower() >= _arb(F(mpmath.nstr(floor, 25)) * F(999, 1000))
    if steps <= 10:
        res = lap.epsilon(F(1, 10**100), F(1, 100))
        assert steps / scale - F(1, 100) <= res.lo_exact <= res.up_exact <= steps / scale


@pytest.mark.parametrize(
    ("scale", "steps", "eps"),
    [(F(1), 9, F(1, 2)), (F(1), 12, F(6)), (F(10), 12, F(0)), (F(1000), 9, F(0)), (F(1, 10), 12, F(60))],
)
def test_inversion_agrees_with_the_finite_mixture(scale, steps, eps):
    """The two routes, forced at the same T, overlap (different mathematics, different code)."""
    lap = LaplaceComposition(scale, steps)
    with workprec(400):
        mix = lap._mixture(eps)
    with workprec(200):
        inv = lap._contour(eps, 30, _saddle(lap._beta, steps, eps))
    assert mix.is_finite() and inv.is_finite()
    assert mix.overlaps(inv)
    assert inv.rad() <= inv.mid().abs_lower() * 2**-20


def test_dispatch():
    assert closed_form_of([(LaplaceEvent(2), 3), (LaplaceEvent(F(2)), 4)]) == LaplaceComposition(F(2), 7)
    assert closed_form_of([(LaplaceEvent(2), 3), (LaplaceEvent(3), 4)]) is None
    assert EXACT_STEPS >= 3


@pytest.mark.parametrize(
    ("scale", "steps", "delta"),
    [("1", 10, "1e-5"), ("10", 1000, "1e-30"), ("1000", 10**6, "1e-100"), ("0.1", 10**6, "1e-5")],
)
def test_epsilon_brackets_are_exact_and_narrow(scale, steps, delta):
    acc = PldAccountant().compose(LaplaceEvent(F(scale)), steps)
    res = acc.get_epsilon_result(F(delta))
    assert isinstance(res, ExactEpsilonResult)
    b = res.epsilon
    assert 0 <= b.lo_exact <= b.up_exact and b.up_exact - b.lo_exact <= F(1, 100)
    # the ends are certified: delta above the target at the lower end, at most it at the upper end
    lap = LaplaceComposition(F(scale), steps)
    with workprec(256):
        assert lap.enclose(b.up_exact, 40) <= _arb(F(delta))
        if b.lo_exact > 0:
            assert lap.enclose(b.lo_exact, 40) > _arb(F(delta))


@pytest.mark.parametrize("steps", [1, 10, 1000])
def test_delta_at_epsilon_zero(steps):
    acc = PldAccountant().compose(LaplaceEvent(10), steps)
    res = acc.get_delta_result(F(0))
    assert isinstance(res, ExactDeltaResult)
    lo, up = res.delta.lo_exact, res.delta.up_exact
    assert 0 < lo <= up <= 1 and up - lo <= lo / 100
    if steps == 1:
        with mpmath.workdps(30):
            tv = 1 - mpmath.exp(mpmath.mpf(-1) / 20)
        assert lo <= F(mpmath.nstr(tv, 25)) * (1 + F(1, 10**20)) and F(mpmath.nstr(tv, 25)) * (1 - F(1, 10**20)) <= up


@pytest.mark.slow
def test_overlaps_the_grid_path():
    """At 100 steps of scale 1 the exact bracket overlaps the grid path's bracket (width 0.01)."""
    event, steps, delta = LaplaceEvent(1), 100, F(1, 10**5)
    exact = PldAccountant().compose(event, steps).get_epsilon_result(delta).epsilon
    grid = PldAccountant(exact=False).compose(event, steps).get_epsilon_result(delta).epsilon
    assert exact.lo_exact <= grid.up_exact and grid.lo_exact <= exact.up_exact


@pytest.mark.parametrize(
    ("scale", "steps", "eps"), [(F(1000), 12, F(1, 200)), (F(10), 12, F(1, 2)), (F(1), 11, F(3)), (F(1, 10), 10, F(0))]
)
def test_truncated_sum_agrees_with_the_finite_mixture(scale, steps, eps):
    """The sum over at most J continuous steps plus its Chernoff bound (J < T where the tilted
    number of continuous steps is small) overlaps the full mixture."""
    lap = LaplaceComposition(scale, steps)
    sad = _saddle(lap._beta, steps, eps)
    with workprec(400):
        mix = lap._mixture(eps)
    with workprec(200):
        tr = lap._truncated(eps, 30, sad)
    assert tr is not None and tr.is_finite()
    assert mix.overlaps(tr)
    assert tr.rad() <= tr.mid().abs_lower() * 2**-25


def test_binomial_tails_by_recurrence():
    """The tails P(Bin(n, p) >= k) by the upward recurrence equal direct exact sums."""
    lap = LaplaceComposition(F(1), 30)
    with workprec(200):
        p = _arb(F(2, 7))
        for k in (0, 1, 5, 17, 31):
            tails = lap._tails(k, 20, p)
            for n in (20, 25, 30):
                exact = sum(
                    (F(math.comb(n, i)) * F(2, 7) ** i * F(5, 7) ** (n - i) for i in range(max(k, 0), n + 1)), F(0)
                )
                assert tails[n].overlaps(_arb(exact))
                assert tails[n].rad() <= 2**-150


def test_loss_beyond_the_floats_is_refused_by_the_grid_in_one_line(monkeypatch):
    """Scale 1e-1000 at delta 1e-5: the exact route answers (its search on the gap T beta - eps, next to 1e1001);
    where it cannot certify (forced here), the grid cannot hold a loss of 1e1001 either: --method
    pld refuses in one line and best answers with the RDP bound."""
    from rigorous_rdp.pld.laplace_exact import LaplaceProfile
    from tests._cli import cmd, run_cli

    base = "epsilon --noise laplace --scale 1e-1000 --steps 10 --delta 1e-5"
    status, out, err = run_cli(cmd(base + " --method pld --json"))
    assert status == 0, err
    eps = json.loads(out)["epsilon"]
    lo, hi = F(eps["lower"]), F(eps["upper"])
    assert F(10) ** 1000 < lo < hi <= F(10) ** 1001 * (1 + F(1, 10**15))  # next to the largest loss 1e1001

    def cannot(self, *args):
        raise ArithmeticError("pld closed form: could not certify the Laplace epsilon bracket")

    monkeypatch.setattr(LaplaceProfile, "_epsilon_by_gap", cannot)
    status, out, err = run_cli(cmd(base + " --method pld"))
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "float range" in err and "internal error" not in err
    status, out, err = run_cli(cmd(base + " --json"))
    assert status == 0, err
    res = json.loads(out)
    assert res["chosen"] == "rdp" and "float range" in res["not_used"]["pld"]
