"""Tests of rigorous_rdp.research.constant: C(c1, c2) of Claim 26 (blog part 2)."""

import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb

from rigorous_rdp.arith import workprec
from rigorous_rdp.research.constant import (
    constant_at,
    constant_sup,
    dr_curve,
    jensen_lower_bound,
    limit_value,
    log_g_mixture,
)


def mpf(x):
    x = Fraction(x) if not isinstance(x, mpmath.mpf) else x
    return x if isinstance(x, mpmath.mpf) else mpmath.mpf(x.numerator) / x.denominator


def mp_g_int(lam, r, sigma):
    """(9.5) summed directly in mpmath."""
    r, s = mpf(r), mpf(sigma)
    return mpmath.fsum(
        mpmath.binomial(lam, j) * r**j * (1 - r) ** (lam - j) * mpmath.exp(j * (j - 1) / (2 * s * s))
        for j in range(lam + 1)
    )


def mp_g_real(lam, r, sigma):
    """G_lambda by quadrature of the definition."""
    lam, r, s = mpf(lam), mpf(r), mpf(sigma)

    def phi(y, m):
        return mpmath.npdf(y, m, s)

    def f(y):
        return ((1 - r) * phi(y, 0) + r * phi(y, 1)) ** lam * phi(y, 0) ** (1 - lam)

    return mpmath.quad(f, [-mpmath.inf, -10 * s, 0, 1, lam, lam + 10 * s, mpmath.inf])


@pytest.mark.parametrize(
    "lam,r,sigma",
    [(2, Fraction(1, 3), Fraction(1)), (7, Fraction(1, 10), Fraction(3, 2)), (50, Fraction(1, 7), Fraction(7))],
)
def test_integer_order_matches_mpmath(lam, r, sigma):
    mpmath.mp.dps = 40
    ref = mp_g_int(lam, r, sigma)
    with workprec(128):
        g = log_g_mixture(Fraction(lam), r, sigma, 128).exp()
    assert g.contains(arb(mpmath.nstr(ref, 35))) or abs(float(g.mid()) - float(ref)) < 1e-25 * float(ref)
    assert float(g.rad()) < 1e-25 * float(ref)


def test_real_order_matches_quadrature():
    mpmath.mp.dps = 30
    lam, r, s = Fraction(7, 2), Fraction(1, 4), Fraction(2)
    ref = mp_g_real(lam, r, s)
    with workprec(100):
        g = log_g_mixture(lam, r, s, 100).exp()
    assert abs(float(g.mid()) - float(ref)) < 1e-12
    assert float(g.rad()) < 1e-15


def test_constant_at_definition_and_bad_input():
    mpmath.mp.dps = 30
    c = constant_at(1, 1, 4, integer=True)  # lambda = 16, r = 1/4
    ref = mp_g_int(16, Fraction(1, 4), 4)
    assert c.lower_float() <= float(ref) <= c.upper_float()
    with pytest.raises(ValueError, match=r"^c1 must be > 0"):
        constant_at(0, 1, 4)
    with pytest.raises(ValueError, match=r"^sigma must be >= c1"):
        constant_at(2, 1, 1)


def test_sup_integer_orders_equals_brute_force():
    """Integer orders: sup over sigma is max_j G_j at sigma_j = sqrt(j / c2) (brute force in mpmath)."""
    mpmath.mp.dps = 30
    res = constant_sup(1, 1, sigma_max=6, integer=True)
    best = max(mp_g_int(j, 1 / mpmath.sqrt(j), mpmath.sqrt(j)) for j in range(2, 37))
    assert res.value.lower_float() <= float(best) * (1 + 1e-12)
    assert float(best) * (1 - 1e-12) <= res.value.upper_float()
    assert res.value.relative_width() < 1e-9
    assert abs(float(res.sigma_argmax) - 15**0.5) < 1e-6  # j* = 15


def test_sup_real_orders_brackets_grid_values():
    res = constant_sup(1, 1, sigma_max=8, rel_gap=1e-4, max_cells=1000)
    # any point value is below the certified supremum, and the best grid point is inside
    for s in (Fraction(3), Fraction(4), Fraction(7)):
        assert constant_at(1, 1, s).upper_float() <= res.value.upper_float()
    assert res.value.relative_width() < 2e-3
    assert 1.79 < res.value.lower_float() < 1.80
    # the supremum itself (independent: mpmath.quad of the definition, 25 digits, findroot of dG/dsigma):
    # 1.7981568070274 at sigma = 3.91443
    assert res.value.lower_float() <= 1.7981568070275 and res.value.upper_float() >= 1.7981568070273


def test_limit_and_jensen():
    with workprec(64):
        lim = limit_value(1, 1)
        assert lim.contains(arb(1) / 2) is False and abs(float(lim.mid()) - 1.6487212707001282) < 1e-12
        # Jensen lower bound below the exact value, and G(sigma) approaches the limit from above
        s = Fraction(60)
        g = log_g_mixture(Fraction(3600), 1 / s, s, 64).exp()
        jb = jensen_lower_bound(3600, 1 / s, s)
        assert jb <= g
    assert 1.6487 < float(g.mid()) < 1.67


def test_dr_exponent_unbounded_below_one():
    """d_lambda = 2, d_r = 1/2: the proven Jensen lower bound grows without bound."""
    out = dr_curve(1.0, 1.0, 0.5, 2.0, [4, 16, 64])
    assert out["log_jensen"][0] < out["log_jensen"][1] < out["log_jensen"][2]
    assert out["log_jensen"][2] > 20
    assert all(g >= j - 1e-9 for g, j in zip(out["log_G"], out["log_jensen"], strict=False))


def test_sup_bad_input():
    with pytest.raises(ValueError, match=r"^sigma-max must be >"):
        constant_sup(1, 1, sigma_max=1)
    with pytest.raises(ValueError, match=r"^sigma-min must be >= c1"):
        constant_sup(2, 1, sigma_min=1)
    with pytest.raises(ValueError, match=r"^c2 must be a number"):
        constant_sup(1, "abc")


# --- the whole sigma range -----------------------------------------------------------------


def test_float_screen_matches_mpmath():
    from rigorous_rdp.research.constant import log_g_screen

    mpmath.mp.dps = 30
    assert abs(log_g_screen(3.5, 0.25, 2.0) - float(mpmath.log(mp_g_real(Fraction(7, 2), Fraction(1, 4), 2)))) < 1e-12
    assert abs(log_g_screen(7.0, 0.1, 1.5) - float(mpmath.log(mp_g_int(7, Fraction(1, 10), Fraction(3, 2))))) < 1e-12


@pytest.mark.parametrize("c1,c2", [(1, 1), (Fraction(1, 2), 2)])
def test_tail_majorant_dominates_g_beyond_the_cut(c1, c2):
    """The majorant at sigma_c is above G(sigma) (mpmath quadrature of the definition) for sigma >= sigma_c,
    and tends to the limit exp(c1^2 c2^2 / 2)."""
    from rigorous_rdp.research.constant import tail_majorant

    mpmath.mp.dps = 20
    sc = Fraction(40)
    with workprec(64):
        m = tail_majorant(c1, c2, sc)
        m_far = tail_majorant(c1, c2, Fraction(10**6))
    lim = math.exp(float(c1) ** 2 * float(c2) ** 2 / 2)
    for s in (Fraction(40), Fraction(80), Fraction(400)):
        g = mp_g_real(Fraction(c2) * s * s, Fraction(c1) / s, s)
        assert float(g) <= float(m.upper())
    assert lim <= float(m_far.upper()) <= lim * (1 + 1e-4)
    with pytest.raises(ValueError, match=r"^sigma must be larger"), workprec(64):
        tail_majorant(2, 2, Fraction(3))


def test_whole_range_contains_finite_range_values():
    from rigorous_rdp.research.constant import constant_whole_range

    res = constant_whole_range(1, 1, max_cells=300)
    C = res["C"]
    assert res["sigma_cut"] > 10 and not res["tail_sets_upper"]
    # values of G at points of the range are below the upper end; the lower end is a value of G
    for s in (Fraction(2), Fraction(39, 10), Fraction(50), Fraction(1000)):
        assert float(mp_g_real(s * s, 1 / s, s)) <= C.upper_float()
    assert 1.798 < C.lower_float() <= 1.7981569 and C.upper_float() < 1.85
    # sup over sigma >= sqrt 2 (independent mpmath value, see test_sup_real_orders_brackets_grid_values)
    assert C.lower_float() <= 1.7981568070275 and C.upper_float() >= 1.7981568070273


# --- relative width 1e-8: Taylor models in sigma ----------------------------------------------


def mp_g_sigma(c1, c2, s):
    """G(sigma) at r = c1/sigma, real lambda = c2 sigma^2: mpmath.quad of E_Z (1 - r + r e^w)^lambda,
    z in [-14, 2 c2 sigma + 14] (the rest is below 1e-40 for the cases here)."""
    c1, c2, s = mpf(c1), mpf(c2), mpmath.mpf(s)
    lam, r = c2 * s * s, c1 / s

    def f(z):
        w = z / s - 1 / (2 * s * s)
        return mpmath.npdf(z) * mpmath.exp(lam * mpmath.log1p(r * mpmath.expm1(w)))

    return mpmath.quad(f, mpmath.linspace(-14, 2 * c2 * s + 14, 9))


def mp_argmax(c1, c2, s0):
    """Maximiser of G near s0 by two parabola steps through mpmath values, and G there."""
    s = mpmath.mpf(s0)
    for h in (mpmath.mpf(s0) / 1000, mpmath.mpf(s0) / 10**6):
        a, b, c = (mp_g_sigma(c1, c2, s + d) for d in (-h, 0, h))
        s = s + h * (a - c) / (2 * (a - 2 * b + c))
    return s, mp_g_sigma(c1, c2, s)


def test_taylor_coefficients_match_mpmath_derivatives():
    """The certified Taylor coefficients of the window integral at sigma = 4 against mpmath.diff of the
    quadrature of the definition (the tails outside the window are below 1e-20 here)."""
    from rigorous_rdp.research.constant import TAYLOR_ORDER, _integrate_coeff, _window_tail

    mpmath.mp.dps = 25
    m = Fraction(4)
    with workprec(96):
        lo, z2, tail = _window_tail(Fraction(1), Fraction(1), m, m)
        assert tail < arb("1e-20")
        pts = [lo, 0.0, 4.0, z2]
        g = [
            _integrate_coeff(Fraction(1), Fraction(1), arb(4), TAYLOR_ORDER, k, pts, arb("1e-25"), 100000)
            for k in range(3)
        ]
    for k in range(3):
        ref = mpmath.diff(lambda y: mp_g_sigma(1, 1, y), 4, k) / mpmath.factorial(k)
        # containment (the mpmath derivative is accurate to ~1e-20 here), then width
        assert abs(mpmath.mpf(g[k].mid().str(30, radius=False)) - ref) <= mpmath.mpf(float(g[k].rad())) + 1e-19
        assert float(g[k].rad()) < 1e-18


@pytest.mark.parametrize("c1,c2,s", [(1, 1, 4), (Fraction(1, 4), 2, 30)])
def test_window_tail_bounds_the_tails(c1, c2, s):
    """The proven tail bound is above the mpmath integral of the part of G outside the window."""
    from rigorous_rdp.research.constant import _window_tail

    mpmath.mp.dps = 30
    c1m, c2m, sm = mpf(c1), mpf(c2), mpmath.mpf(s)
    lam, r = c2m * sm * sm, c1m / sm

    def f(z):
        w = z / sm - 1 / (2 * sm * sm)
        return mpmath.npdf(z) * mpmath.exp(lam * mpmath.log1p(r * mpmath.expm1(w)))

    with workprec(96):
        lo, z2, tail = _window_tail(Fraction(c1), Fraction(c2), Fraction(s), Fraction(s))
    outside = mpmath.quad(f, [-mpmath.inf, lo]) + mpmath.quad(f, [z2, z2 + 20, mpmath.inf])
    assert outside <= mpmath.mpf(float(tail.upper()))


def test_taylor_cell_bound_contains_the_maximum():
    """A cell around the maximiser of G (c1 = c2 = 1): the bound is above G there (independent mpmath
    maximum) and only 1e-10 relative above it."""
    from rigorous_rdp.research.constant import taylor_cell_bound

    mpmath.mp.dps = 30
    s_ref, g_ref = mp_argmax(1, 1, 3.914)
    with workprec(96):
        b = taylor_cell_bound(Fraction(1), Fraction(1), Fraction(388, 100), Fraction(396, 100), 1.8, 96)
    assert float(g_ref) <= float(b.upper())
    assert float(b.upper()) <= float(g_ref) * (1 + 1e-10)
    assert abs(float(s_ref) - 3.91443) < 1e-4


def test_whole_range_width_1e8_and_contains_mpmath_maximum():
    """C(1, 1) over sigma >= sqrt 2: the enclosure contains the mpmath maximum (quadrature at 40 digits,
    root of dG/dsigma), and its relative width is at most 1e-8 (checked separately); the tail majorant
    beyond the cut is below the lower end."""
    from rigorous_rdp.research.constant import constant_whole_range

    res = constant_whole_range(1, 1)
    mpmath.mp.dps = 40
    s_ref, g_ref = mp_argmax(1, 1, 3.914)
    C = res["C"]
    assert Fraction(C.to_json(15)["lower"]) <= Fraction(mpmath.nstr(g_ref, 30)) <= Fraction(C.to_json(15)["upper"])
    assert C.relative_width() <= 1e-8
    assert res["tail_below_lower"] and res["sigma_cut"] > 10
    assert abs(float(res["argmax_sigma"]) - float(s_ref)) < 1e-5


@pytest.mark.slow
def test_table_width_1e8_all_entries():
    """The 16 entries of ``constant --table``: relative width <= 1e-8, lower end above the proven limit
    exp(c1^2 c2^2 / 2), tail below the lower end; two entries against the mpmath maximum."""
    from rigorous_rdp.research.constant import constant_table

    rows = constant_table()
    assert len(rows) == 16
    for row in rows:
        lo, hi = Fraction(row["C"]["lower"]), Fraction(row["C"]["upper"])
        assert (hi - lo) / lo <= Fraction(1, 10**8), row
        lim = math.exp(float(Fraction(row["c1"])) ** 2 * float(Fraction(row["c2"])) ** 2 / 2)
        assert float(lo) >= lim * (1 - 1e-12) and row["tail_below_lower"]
    mpmath.mp.dps = 30
    for c1, c2, s0 in (("0.5", "2", 2.085), ("2", "0.5", 7.845)):
        row = next(r for r in rows if r["c1"] == c1 and r["c2"] == c2)
        _, g_ref = mp_argmax(Fraction(c1), Fraction(c2), s0)
        assert Fraction(row["C"]["lower"]) <= Fraction(mpmath.nstr(g_ref, 25)) <= Fraction(row["C"]["upper"])


def test_table_has_no_default_time_budget():
    # the table takes minutes: like the other batch jobs it must not stop at the 60 s default
    import argparse

    from rigorous_rdp.cli._common import _budget_seconds

    table = argparse.Namespace(command="constant", table=True, max_seconds=None)
    single = argparse.Namespace(command="constant", table=False, max_seconds=None)
    assert _budget_seconds(table) is None
    assert _budget_seconds(single) == 60
    assert _budget_seconds(argparse.Namespace(command="constant", table=True, max_seconds="5")) == 5
    # verify: a longer default (its independent FSwR check of a large batch takes 1-2 min)
    assert _budget_seconds(argparse.Namespace(command="verify")) == 600
    assert _budget_seconds(argparse.Namespace(command="verify", max_seconds="7")) == 7


def test_too_small_c2_names_c2_quickly(capsys):
    # sigma-min = sqrt(2/c2) = 44721: no admissible tail level at the cut; the error names --c2
    from rigorous_rdp.cli import main

    code = main(["constant", "--c1", "1", "--c2", "1e-9", "--json"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rigorous-rdp: error: --c2 must be larger"), err


@pytest.mark.parametrize("argv", [["--sigma-min", "0.5"], ["--sigma-min", "0.5", "--sigma-max", "10"]])
def test_sigma_min_error_shows_the_value_as_typed(capsys, argv):
    from rigorous_rdp.cli import main

    code = main(["constant", "--c1", "1", "--c2", "1", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip() == "rigorous-rdp: error: --sigma-min must be >= c1 = 1 (r = c1/sigma <= 1). Found 0.5."


def test_sup_integer_orders_to_sigma_100_contains_mpmath_maximum(monkeypatch):
    """The documented ``constant --c1 1 --c2 1 --integer --sigma-max 100``: orders up to 10^4.  Cells far
    below the maximum are proven below it by a truncated (9.5) with a proven tail; the enclosure still
    contains the maximum of (9.5) summed in mpmath (at lambda = 15, sigma = sqrt 15)."""
    import rigorous_rdp.research.constant as mod

    full_sums: list[int] = []
    real = mod.log_a_integer

    def spy(alpha, q, sigma, head=None, blocks=(), top=None, cache=None):
        if head is None:
            full_sums.append(alpha)
        return real(alpha, q, sigma, head, blocks, top, cache)

    monkeypatch.setattr(mod, "log_a_integer", spy)
    res = constant_sup(1, 1, sigma_max=100, integer=True)
    mpmath.mp.dps = 30
    best = mp_g_int(15, 1 / mpmath.sqrt(15), mpmath.sqrt(15))
    assert res.value.lower_float() <= float(best) * (1 + 1e-12)
    assert float(best) * (1 - 1e-12) <= res.value.upper_float()
    assert res.value.relative_width() < 1e-9
    assert res.sigma_argmax == mod._rat(math.sqrt(15))
    # the cells at large orders were not summed in full (only the value reported at sigma-max is)
    assert sum(a > 1000 for a in full_sums) <= 1


def test_truncated_integer_sum_bounds_the_full_sum():
    """The cheap bound used for far cells: head + proven tail of (9.5) at lambda = 3000 is at least the
    sum computed in mpmath, and tight to the planned budget."""
    from rigorous_rdp.research.constant import log_a_integer
    from rigorous_rdp.subsampling.poisson_gaussian import integer_tail_plan

    lam, sigma = 3000, math.sqrt(3000)
    plan = integer_tail_plan(lam, 1 / sigma, sigma, math.log(1e-6))
    assert plan is not None and plan[0] < lam // 4
    head, top, blocks = plan
    with workprec(64):
        s = arb(lam).sqrt()
        g = log_a_integer(lam, 1 / s, s, head, blocks, top).exp()
    mpmath.mp.dps = 30
    ref = mp_g_int(lam, 1 / mpmath.sqrt(lam), mpmath.sqrt(lam))
    assert float(ref) <= float(g.upper())
    assert float(g.upper()) - float(ref) < 2e-6


def test_logsumexp_matches_mpmath_and_scipy():
    """The screens' log-sum-exp: within 4 ulp-ish of mpmath at 50 digits, and the same doubles as
    scipy.special.logsumexp (same arrangement of the sum), also along an axis and with ties and -inf."""
    import numpy as np
    from scipy.special import logsumexp as sp_lse

    from rigorous_rdp.research.constant import logsumexp

    rng = np.random.default_rng(7)
    mpmath.mp.dps = 50
    for scale in (1.0, 30.0, 700.0):
        x = rng.normal(0.0, scale, size=257)
        x[5] = x.max()  # a tie at the maximum
        ref = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(float(v))) for v in x))
        got = logsumexp(x)
        assert abs(got - float(ref)) <= 4e-16 * max(1.0, abs(float(ref)))
        assert got == float(sp_lse(x))
        m = x[:256].reshape(4, 64)
        m[1, :] = -np.inf
        assert np.array_equal(logsumexp(m, axis=1), sp_lse(m, axis=1))
    assert logsumexp([]) == -math.inf
    assert logsumexp([-math.inf, -math.inf]) == -math.inf
    assert logsumexp([math.inf, 0.0]) == math.inf


def test_sup_integer_orders_with_r_one_at_sigma_min():
    """c1 = 2, c2 = 2: sigma-min = c1, so r = 1 on the first cell (no truncation there); the enclosure
    holds G at its argmax, (9.5) summed in mpmath."""
    res = constant_sup(2, 2, sigma_max=40, integer=True)
    j = round(2 * res.sigma_argmax**2)  # the argmax is sigma_j = sqrt(j / c2), given as a near rational
    mpmath.mp.dps = 30
    s = mpmath.sqrt(mpmath.mpf(j) / 2)
    g = mp_g_int(j, min(mpmath.mpf(1), 2 / s), s)
    assert res.value.lower_float() <= float(g) * (1 + 1e-12)
    assert float(g) * (1 - 1e-12) <= res.value.upper_float()
