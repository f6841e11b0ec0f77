"""Composed Laplace brackets (:mod:`rigorous_rdp.pld.laplace_exact`) against an independent value:
the loss law summed over (number j of continuous steps, number i of +beta atoms), the j-fold
continuous part through the Irwin-Hall spline (truncated powers) and mpmath's confluent
hypergeometric function for the incomplete integrals, at high precision.  The outcomes with more
than J continuous steps (P-mass below 1e-50, a binomial tail) are bounded, not summed.  Covers the
finite mixture, the cut-off sum, the inversion integral (c > 0 and the residue side c < 0) and the
certified epsilon bracket, including the search next to the largest loss."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from flint import arb, fmpq

from rigorous_rdp.arith import workprec
from rigorous_rdp.pld import laplace_exact
from rigorous_rdp.pld.closed_form import LaplaceComposition
from rigorous_rdp.pld.laplace_exact import _pois_ge, _pois_le


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _reference(scale: F, steps: int, eps: F) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(value, bound on the omitted outcomes): delta(eps) lies in [value, value + bound]."""
    T = steps
    dps = 80 + 2 * min(T, 120) + int(T / scale)
    gap = T / scale - eps  # resolve eps next to the largest loss
    if 0 < gap < 1:
        dps += int(-mpmath.log10(_mp(gap))) + 10
    with mpmath.workdps(dps):
        beta = 1 / _mp(scale)
        e = _mp(eps)
        x0 = e / beta
        wc = beta / 4 * mpmath.exp(-beta / 2)
        p_plus, p_minus = mpmath.mpf(1) / 2, mpmath.exp(-beta) / 2
        b0 = 1 - p_plus - p_minus
        J, omitted = T, mpmath.mpf(0)
        for j in range(T, -1, -1):
            pm = mpmath.binomial(T, j) * b0**j * (1 - b0) ** (T - j)
            if omitted + pm > mpmath.mpf(10) ** -50:
                J = j
                break
            omitted += pm
        total = mpmath.mpf(0)
        lp, lm = beta / 2, -beta / 2
        for j in range(J + 1):
            n = T - j
            # int e^(lam s) B_j(s) ds over R = (2 sinh(lam) / lam)^j
            full_p, full_m = (2 * mpmath.sinh(lp) / lp) ** j, (2 * mpmath.sinh(lm) / lm) ** j
            cj = mpmath.binomial(T, j) * wc**j
            for i in range(n + 1):
                m = 2 * i - n
                x = x0 - m  # the continuous sum s must exceed x
                if x >= j:
                    continue
                w = cj * mpmath.binomial(n, i) * p_plus**i * p_minus ** (n - i)
                g = mpmath.exp(e - beta * m)
                if j == 0:
                    total += w * (1 - g)
                    continue
                if x <= -j:
                    total += w * (full_p - g * full_m)
                    continue
                acc = mpmath.mpf(0)
                for lam, coef in ((lp, 1), (lm, -g)):
                    # B_j(s) = sum_k (-1)^k C(j, k) (s + j - 2k)_+^(j-1) / (j-1)!, and
                    # int_0^Y e^(lam y) y^(j-1) dy = Y^j / j 1F1(j; j + 1; lam Y)
                    sub = mpmath.mpf(0)
                    for k in range(j):
                        a = 2 * k - j
                        y1, y0 = mpmath.mpf(j - a), max(x - a, mpmath.mpf(0))
                        if y1 <= y0:
                            continue
                        f1 = y1**j / j * mpmath.hyp1f1(j, j + 1, lam * y1)
                        f0 = y0**j / j * mpmath.hyp1f1(j, j + 1, lam * y0) if y0 > 0 else 0
                        sub += (-1) ** k * mpmath.binomial(j, k) * mpmath.exp(lam * a) * (f1 - f0)
                    acc += coef * sub / mpmath.factorial(j - 1)
                total += w * acc
        return +total, +omitted


def _bounds(ball) -> tuple[mpmath.mpf, mpmath.mpf]:
    return mpmath.mpf(ball.lower().str(60, radius=False)), mpmath.mpf(ball.upper().str(60, radius=False))


def _check_delta(scale: F, steps: int, eps: F) -> None:
    ball = LaplaceComposition(scale, steps).enclose(eps, 40)
    with mpmath.workdps(80):
        ref, omitted = _reference(scale, steps, eps)
        lo, hi = _bounds(ball)
        slack = mpmath.mpf(10) ** -70
        assert lo <= ref + omitted + slack and ref <= hi + slack, (scale, steps, eps, lo, hi, ref)
        assert hi - lo <= abs(ref) * mpmath.mpf(2) ** -30 + mpmath.mpf(10) ** -60  # and it is narrow


def test_reference_matches_one_step_closed_form() -> None:
    # T = 1: delta(eps) = 1 - e^((eps - 1/b)/2) on [0, 1/b]
    for scale, eps in ((F(1, 10), F(5)), (F(1), F(1, 2)), (F(10), F(1, 20))):
        with mpmath.workdps(50):
            ref, _ = _reference(scale, 1, eps)
            closed = 1 - mpmath.exp((_mp(eps) - 1 / _mp(scale)) / 2)
            assert abs(ref - closed) < mpmath.mpf(10) ** -45


@pytest.mark.parametrize(
    ("scale", "steps", "eps"),
    [
        (F(1), 12, F(2)),  # finite mixture
        (F(1, 20), 5, F(99)),  # finite mixture, tiny scale, next to the largest loss 100
        (F(1), 13, F(0)),  # cut-off sum, saddle c < 0
        (F(3, 10), 20, F(30)),  # cut-off sum, small scale
        (F(1), 30, F(29) + F(999999, 1000000)),  # cut-off sum, next to the largest loss
        (F(1000), 100, F(0)),  # cut-off sum, few continuous steps, epsilon 0
    ],
)
def test_delta_bracket_contains_independent_value(scale: F, steps: int, eps: F) -> None:
    _check_delta(scale, steps, eps)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scale", "steps", "eps"),
    [
        (F(1), 60, F(5)),
        (F(1), 60, F(40)),
        (F(1000), 300, F(1, 10)),
        (F(1, 10), 35, F(1)),  # cut-off sum with beta J large: its precision raised once (was > 60 s)
        (F(1, 2), 40, F(10)),
    ],
)
def test_slow_references(scale: F, steps: int, eps: F) -> None:
    # T = 60, scale 1 goes through the inversion integral (c about -0.39, then about 0.57);
    # T = 300, scale 1000 through the cut-off sum with the saddle far out (c about 346)
    _check_delta(scale, steps, eps)


@pytest.mark.parametrize(
    ("scale", "steps", "delta"),
    [(F(1), 13, F(1, 10**5)), (F(3), 20, F(1, 10)), (F(1), 5, F(1, 10**100)), (F(1, 20), 2, F(1, 10**30))],
)
def test_epsilon_bracket_contains_independent_epsilon(scale: F, steps: int, delta: F) -> None:
    br = LaplaceComposition(scale, steps).epsilon(delta, F(1, 10**6))
    lo, hi = br.lo_exact, br.up_exact
    assert 0 <= lo <= hi <= lo + F(1, 10**6)
    with mpmath.workdps(80):
        d = _mp(delta)
        # the optimum lies in [lo, hi] iff delta(lo) > delta (or lo = 0) and delta(hi) <= delta
        if lo > 0:
            assert _reference(scale, steps, lo)[0] > d
        ref_hi, omitted = _reference(scale, steps, hi)
        assert ref_hi + omitted <= d * (1 + mpmath.mpf(10) ** -40)


@pytest.mark.parametrize(("scale", "steps"), [(F(1, 10), 50), (F(1), 50), (F(1), 40)])
def test_cut_off_sum_with_large_cancellation(scale: F, steps: int) -> None:
    """The cut-off sum loses about j (beta / ln 2 + 1.5) bits to cancellation; its precision is raised
    once for the largest J (doubling from the caller's took past the 60 s budget at T = 50, scale <= 1).
    The bracket is certified and its ends decide delta on the right sides (the independent reference
    is in the slow test above at T = 35 and 40)."""
    comp = LaplaceComposition(scale, steps)
    br = comp.epsilon(F(1, 10**5), F(1, 100))
    assert 0 < br.lo_exact <= br.up_exact <= br.lo_exact + F(1, 100)
    assert comp.enclose(br.up_exact, 40).upper() <= 1e-5 * (1 + 1e-12)
    assert comp.enclose(br.lo_exact, 40).lower() > 1e-5 * (1 - 1e-12)


@pytest.mark.parametrize(
    ("scale", "steps", "eps"),
    [
        (F(1, 40), 8, F(300)),  # capped-exponential route, h = 20 <= 2 beta (exact)
        (F(1, 40), 6, F(150)),  # capped route with the cap's bound 6 e^-40 / 2 (h = 90 > 2 beta)
        (F(1, 2), 16, F(61, 2)),  # capped route next to the largest loss 32 at a moderate scale
    ],
)
def test_capped_route_contains_independent_value(scale: F, steps: int, eps: F) -> None:
    _check_delta(scale, steps, eps)


def _uncapped_model(steps: int, h: F) -> mpmath.mpf:
    """E[(1 - e^(S - h))_+] for S the sum of T deficits 0 (mass 1/2) or Exp(rate 1/2) (mass 1/2):
    the Gamma(j, rate 1/2) parts integrated by mpmath quadrature (the law of T Laplace losses with
    scale 0, up to the cap at 2 beta, which matters only with mass T e^-beta / 2)."""
    hm = _mp(h)
    total = 2 ** mpmath.mpf(-steps) * (1 - mpmath.exp(-hm))
    for j in range(1, steps + 1):

        def f(g: mpmath.mpf, j: int = j) -> mpmath.mpf:
            return (1 - mpmath.exp(g - hm)) * g ** (j - 1) * mpmath.exp(-g / 2) / (mpmath.gamma(j) * 2**j)

        part = mpmath.quad(f, [0, hm / 2, hm])
        total += mpmath.binomial(steps, j) * 2 ** mpmath.mpf(-steps) * part
    return total


@pytest.mark.parametrize(("steps", "h"), [(20, F(10)), (7, F(1, 3)), (40, F(60))])
def test_huge_beta_matches_uncapped_model(steps: int, h: F) -> None:
    """Scale 1e-1000 (the smallest accepted): the T-fold loss is T beta minus a sum of capped
    exponentials; the bracket must contain the quadrature of the uncapped model (the cap changes
    delta by at most T e^-beta / 2, far below any resolution here)."""
    scale = F(1, 10**1000)
    comp = LaplaceComposition(scale, steps)
    ball = comp.enclose(steps / scale - h, 40)
    with mpmath.workdps(40):
        ref = _uncapped_model(steps, h)
        lo, hi = _bounds(ball)
        assert lo <= ref * (1 + mpmath.mpf(10) ** -25) and ref <= hi * (1 + mpmath.mpf(10) ** -25), (lo, hi, ref)
        assert hi - lo <= ref * mpmath.mpf(2) ** -30


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scale", "steps", "eps"),
    [
        (F(1), 35, F(29946, 1000)),  # the cut-off sum (J about 22) where epsilon(1e-5) lies
        (F(1), 50, F(2479, 100)),  # inversion integral above 24 continuous steps (epsilon(0.1))
        (F(10), 300, F(816, 100)),  # inversion integral, scale 10 (epsilon(1e-5))
    ],
)
def test_previously_slow_cells(scale: F, steps: int, eps: F) -> None:
    _check_delta(scale, steps, eps)


@pytest.mark.slow
def test_previously_slow_epsilon_bracket() -> None:
    """T = 35, scale 1, delta 1e-5, the default width 1/100 (1.3-2.7 s before the three-probe search)."""
    scale, steps, delta = F(1), 35, F(1, 10**5)
    br = LaplaceComposition(scale, steps).epsilon(delta, F(1, 100))
    lo, hi = br.lo_exact, br.up_exact
    assert 0 < lo <= hi <= lo + F(1, 100)
    with mpmath.workdps(80):
        assert _reference(scale, steps, lo)[0] > _mp(delta)
        ref_hi, omitted = _reference(scale, steps, hi)
        assert ref_hi + omitted <= _mp(delta)


def _uncapped_model_closed(steps: int, h: F) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(value, bound on the omitted j) of the uncapped model of :func:`_uncapped_model` with the
    Gamma(j, rate 1/2) parts in closed form:
    E[(1 - e^(G - h))_+] = P(j, h/2) - e^-h 2^-j / Gamma(j) h^j / j 1F1(j; j + 1; h/2)
    (P the regularized lower incomplete gamma function); each part is at most P(j, h/2), which
    falls in j, so the j > J add at most P(J + 1, h/2)."""
    hm, T = _mp(h), steps
    total = 2 ** mpmath.mpf(-T) * (1 - mpmath.exp(-hm))
    for j in range(1, T + 1):
        upper = mpmath.gammainc(j, 0, hm / 2, regularized=True)
        if upper < total * mpmath.mpf(10) ** -40:
            return total, upper
        part = upper - mpmath.exp(-hm) / (2**j * mpmath.gamma(j)) * hm**j / j * mpmath.hyp1f1(j, j + 1, hm / 2)
        total += mpmath.binomial(T, j) * 2 ** mpmath.mpf(-T) * part
    return total, mpmath.mpf(0)


@pytest.mark.parametrize(
    ("steps", "h", "terms"), [(1500, F(201), None), (2000, F(1001, 2), None), (2000, F(1001, 2), 500)]
)
def test_capped_route_relative_cap_bound(steps: int, h: F, terms: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scale 1/100 (beta = 100), h = T beta - eps > 2 beta and delta (about 1e-50 and below) far
    under the cap's absolute bound T e^-beta / 2: only the relative bound
    delta <= delta_model / (1 - T e^-beta) lets the capped route answer.  The bracket must contain
    the uncapped model in closed form (mpmath, 1F1), which differs from delta by a relative
    T e^-beta (about 1e-40) at most, far below the tolerance.  With ``terms`` the window is cut to
    k in [438, 821] (of 2000), so the geometric bounds on the terms left out on both sides are used."""
    if terms is not None:
        monkeypatch.setattr(laplace_exact, "CAPPED_TERMS", terms)
        assert laplace_exact._capped_window(steps, h, 52, terms) == (438, 821)
    scale = F(1, 100)
    comp = LaplaceComposition(scale, steps)
    eps = steps / scale - h
    with workprec(200):
        assert comp._capped(eps, 40) is not None  # the route under test answers
    ball = comp.enclose(eps, 40)
    with mpmath.workdps(200):
        ref, omitted = _uncapped_model_closed(steps, h)
        assert ref * mpmath.mpf(2) ** 40 < steps * mpmath.exp(-100) / 2  # the absolute bound is useless
        lo, hi = _bounds(ball)
        tol = 1 + mpmath.mpf(10) ** -25
        assert lo <= (ref + omitted) * tol and ref <= hi * tol, (lo, hi, ref)
        assert hi - lo <= ref * mpmath.mpf(2) ** -30


@pytest.mark.parametrize(
    ("n", "y"), [(583, F(3901, 10)), (5, F(3, 10)), (1000, F(1999, 2)), (10**5, F(99990)), (1, F(1, 10**5))]
)
def test_poisson_upper_tail_series(n: int, y: F) -> None:
    """P(Poisson(y) >= n) (the series used where n + 1 > y) against mpmath's regularized gamma."""
    with workprec(136), mpmath.workdps(60):
        ball = _pois_ge(n, arb(fmpq(y.numerator, y.denominator)))
        ref = mpmath.gammainc(n, 0, _mp(y), regularized=True)
        lo, hi = _bounds(ball)
        assert lo <= ref <= hi and hi - lo <= ref * mpmath.mpf(2) ** -100


@pytest.mark.parametrize(("n", "y"), [(390, F(5833, 10)), (0, F(5)), (999, F(1999, 2)), (99980, F(10**5)), (5, F(100))])
def test_poisson_lower_tail_series(n: int, y: F) -> None:
    """P(Poisson(y) <= n) (the series used where n < y) against mpmath's regularized gamma."""
    with workprec(136), mpmath.workdps(60):
        ball = _pois_le(n, arb(fmpq(y.numerator, y.denominator)))
        ref = mpmath.gammainc(n + 1, _mp(y), regularized=True)
        lo, hi = _bounds(ball)
        assert lo <= ref <= hi and hi - lo <= ref * mpmath.mpf(2) ** -100
