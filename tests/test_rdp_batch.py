"""Certified RDP at many orders: the shared Gauss-Legendre quadrature and ``rdp_many``.

References: mpmath quadrature of the defining integral at 40 digits
(:func:`rigorous_rdp.reference.gaussian.poisson_gaussian_log_a_mp`), stored below and
recomputed by the slow test; exact rationals for the Gauss-Legendre rule; closed forms.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from _containment import contains, rel_width
from flint import arb

from rigorous_rdp import GaussianEvent, PoissonSampledEvent, RdpAccountant
from rigorous_rdp.accountant import clear_caches
from rigorous_rdp.arith import to_arb, workprec
from rigorous_rdp.subsampling import poisson_gaussian as pg
from rigorous_rdp.subsampling.gauss_legendre import ellipse_box, gauss_legendre_error_factor, gauss_legendre_rule

#: log A_alpha (q, sigma, alpha) by mpmath quadrature at 40 digits (see test_stored_references)
REFS = {
    ("0.01", "1.1", "1.05"): "0.00000331845587241679744477811312629143442",
    ("0.01", "1.1", "1.5"): "0.0000477726428593741589794585163928683696",
    ("0.01", "1.1", "2.5"): "0.000243116114055005619079267322728206845",
    ("0.01", "1.1", "10.3"): "0.00820486401381952389242681970512256455",
    ("0.01", "1.1", "77.7"): "2104.8187724164938957449264442657439",
    ("1e-6", "0.5", "1.05"): "1.40566020206412441356201723566171715e-12",
    ("1e-6", "0.5", "1.5"): "0.0000000000200895107504353040046463010580264875",
    ("1e-6", "0.5", "2.5"): "0.000000000100546641012435296836259711277825887",
    ("1e-6", "0.5", "10.3"): "49.2802412536875616770007208906482948",
    ("1e-6", "0.5", "77.7"): "10845.7148296461759021108123838261494",
    ("1e-6", "20", "1.05"): "6.57070994957410924426377343790655778e-17",
    ("1e-6", "20", "1.5"): "9.38672850997367674585711152228007259e-16",
    ("1e-6", "20", "2.5"): "4.69336426674471855346497918314435695e-15",
    ("1e-6", "20", "10.3"): "1.19887299172404832024923063015339795e-13",
    ("1e-6", "20", "77.7"): "7.45880853863355047802434701235813665e-12",
    ("0.01", "0.5", "1.05"): "0.0000724108178617604435054845458857291026",
    ("0.01", "0.5", "1.5"): "0.00131494560408063443396258126947584922",
    ("0.01", "0.5", "2.5"): "0.0221569173175805960046826330938559818",
    ("0.01", "0.5", "10.3"): "144.146747084322730148209359122414974",
    ("0.01", "0.5", "77.7"): "11561.3582765487253007036041279420498",
    ("0.01", "20", "1.05"): "0.00000000657055433545903597535491822260205535",
    ("0.01", "20", "1.5"): "0.0000000938661094866252889951787913533443796",
    ("0.01", "20", "2.5"): "0.000000469342187451247595891707437238887952",
    ("0.01", "20", "10.3"): "0.0000119911967045416617230813919656920789",
    ("0.01", "20", "77.7"): "0.000747284471869744818179750192523872153",
    ("0.3", "1", "1.05"): "0.00292626174306376511975958166357869375",
    ("0.3", "1", "1.5"): "0.0467818332440730240238460471383616487",
    ("0.3", "1", "2.5"): "0.317217145866381456009788481639878221",
    ("0.3", "1", "10.3"): "35.49628087169844149224563725875795",
    ("0.3", "1", "77.7"): "2886.24631310387477337321261887990524",
}
PARAMS = sorted({(q, s) for q, s, _ in REFS})
ALPHAS = ["1.05", "1.5", "2.5", "10.3", "77.7"]
#: more real orders, so that the accountant uses the shared rule (BATCH_MIN_ORDERS)
FILLER = ["1.2", "3.3", "4.4", "5.6", "7.5", "12.25", "33.3"]


def _event(q: str, s: str) -> PoissonSampledEvent:
    return PoissonSampledEvent(GaussianEvent(Fraction(s)), Fraction(q))


# --- the Gauss-Legendre rule --------------------------------------------------------------


@pytest.mark.parametrize("m", [2, 5, 16, 31])
def test_rule_is_exact_to_degree_2m_minus_1(m):
    """sum W u^j contains the exact moment 2/(j+1) (j even), 0 (j odd), for j <= 2m - 1."""
    with workprec(128):
        nodes, weights = gauss_legendre_rule(m)
        for j in range(2 * m):
            s = sum((w * u**j for u, w in zip(nodes, weights, strict=True)), arb(0))
            exact = Fraction(2, j + 1) if j % 2 == 0 else Fraction(0)
            assert contains(s, exact), (m, j, s)
        # degree 2m is NOT integrated exactly (the rule is a Gauss rule, not a higher one)
        s = sum((w * u ** (2 * m) for u, w in zip(nodes, weights, strict=True)), arb(0))
        assert not contains(s, Fraction(2, 2 * m + 1))


def test_rule_nodes_against_mpmath():
    """Nodes are the zeros of P_m (mpmath's legendre at 40 digits vanishes there)."""
    with workprec(140):
        nodes, _ = gauss_legendre_rule(7)
    with mpmath.workdps(40):
        for u in nodes:
            x = mpmath.mpf(u.mid().str(45, radius=False))
            assert abs(mpmath.legendre(7, x)) < mpmath.mpf(10) ** -35


@pytest.mark.parametrize(("m", "rho"), [(2, 1.5), (2, 4.0), (4, 2.0), (8, 3.0), (12, 1.3)])
def test_error_bound_covers_the_true_error_of_exp(m, rho):
    """|int_{-1}^{1} e^u du - G_m(e^u)| <= (64/15) M rho^-2m / (1 - rho^-2), M = e^{(rho + 1/rho)/2}."""
    with workprec(200):
        nodes, weights = gauss_legendre_rule(m)
        g = sum((w * u.exp() for u, w in zip(nodes, weights, strict=True)), arb(0))
        exact = arb(1).exp() - (-arb(1)).exp()
        M = (arb(rho) + 1 / arb(rho)).exp() ** arb("0.5")
        bound = gauss_legendre_error_factor(m, arb(rho), arb(1)) * M
        assert abs(g - exact).upper() <= bound.upper()
        if (m, rho) == (8, 3.0):
            assert bound.upper() < 1e-6  # and the bound is not vacuous


def test_ellipse_box_contains_the_ellipse():
    for c, h, rho in [(0.5, 1.1, 3.4), (-7.3, 0.25, 1.9), (120.0, 40.0, 2.41)]:
        xl, xu, y = ellipse_box(c, h, rho)
        a = Fraction(h) * (Fraction(rho) + 1 / Fraction(rho)) / 2
        b = Fraction(h) * (Fraction(rho) - 1 / Fraction(rho)) / 2
        assert Fraction(xl) <= Fraction(c) - a and Fraction(c) + a <= Fraction(xu) and b <= Fraction(y)


# --- the batch against mpmath ---------------------------------------------------------------


@pytest.mark.parametrize(("q", "s"), PARAMS)
def test_batch_contains_mpmath_references(q, s):
    alphas = [Fraction(a) for a in ALPHAS]
    for prec in (64, 128):
        with workprec(prec):
            got = pg.log_a_fractional_many(alphas, Fraction(q), Fraction(s), prec)
        for a, g in zip(ALPHAS, got, strict=True):
            assert g is not None, (q, s, a, prec)  # the shared rule reached the accuracy
            ref = REFS[(q, s, a)]
            assert contains(g, ref, rel=Fraction(1, 10**30)), (q, s, a, prec, g, ref)
            assert rel_width(g) <= 2.0 ** -(prec - 24), (q, s, a, prec, g)


@pytest.mark.parametrize(("q", "s"), PARAMS)
def test_rdp_many_meets_digits_and_contains_references(q, s):
    clear_caches()
    acc = RdpAccountant().compose(_event(q, s))
    for digits in (10, 20):
        res = acc.rdp_many(ALPHAS + FILLER, digits=digits)
        for a, r in zip(ALPHAS, res[: len(ALPHAS)], strict=True):
            assert r.order == Fraction(a)
            ref = Fraction(REFS[(q, s, a)]) / (Fraction(a) - 1)
            assert contains(r.rdp.ball, ref, rel=Fraction(1, 10**30)), (q, s, a, r.rdp.ball)
            assert rel_width(r.rdp.ball) <= 10.0**-digits, (q, s, a, digits, r.rdp.ball)


def test_batched_overlaps_individual_and_is_never_wider_than_asked():
    orders = [Fraction(a) for a in ("1.1", "1.25", "3.7", "10.5", "20.1", "63.9", "99.9", "5.5", "6.5")]
    orders.append(Fraction(7))
    clear_caches()
    many = RdpAccountant().compose(_event("0.01", "1.1")).rdp_many(orders)
    clear_caches()
    one = [RdpAccountant().compose(_event("0.01", "1.1")).rdp(a) for a in orders]
    for m, o in zip(many, one, strict=True):
        assert m.order == o.order
        assert m.rdp.ball.overlaps(o.rdp.ball), (m.order, m.rdp.ball, o.rdp.ball)
        assert rel_width(m.rdp.ball) <= 1e-10
        assert m.to_json().keys() == o.to_json().keys()


def test_few_real_orders_identical_to_certified():
    """Below BATCH_MIN_ORDERS real orders, certified_many is certified order by order."""
    curve = pg.PoissonGaussianCurve(Fraction("0.1"), Fraction("0.5"))
    orders = [Fraction(a) for a in ("1.25", "1.5", "10.5")]
    assert len(orders) < pg.BATCH_MIN_ORDERS
    with workprec(64):
        for a, v in zip(orders, curve.certified_many(orders), strict=True):
            w = curve.certified(a)
            assert v.mid() == w.mid() and v.rad() == w.rad()


def _assert_identical_to_certified(curve, orders):
    with workprec(64):
        many = curve.certified_many(orders)
        for a, v in zip(orders, many, strict=True):
            w = curve.certified(a)
            assert v.mid() == w.mid() and v.rad() == w.rad()


def test_integer_orders_identical_to_certified():
    curve = pg.PoissonGaussianCurve(Fraction("0.01"), Fraction("1.1"))
    orders = [Fraction(k) for k in (2, 3, 10, 63, 128, 1024)]
    _assert_identical_to_certified(curve, orders)


def test_order_two_closed_form_among_real_orders():
    """Order 2 (exact: log(1 + q^2 (e^{1/sigma^2} - 1))) asked together with real orders."""
    res = RdpAccountant().compose(_event("0.01", "1.1")).rdp_many(["1.5", 2, "2.5", *FILLER])
    with mpmath.workdps(50):
        exact = mpmath.log1p(mpmath.mpf("0.0001") * mpmath.expm1(1 / mpmath.mpf("1.21")))
    assert contains(res[1].rdp.ball, exact, rel=Fraction(1, 10**45))


def test_fallback_when_the_shared_rule_declines(monkeypatch):
    """Orders the batch leaves out are integrated one by one (same enclosure as certified)."""
    monkeypatch.setattr(pg, "log_a_fractional_many", lambda alphas, *args: [None] * len(alphas))
    curve = pg.PoissonGaussianCurve(Fraction("0.01"), Fraction("1.1"))
    orders = [Fraction(a) for a in ["1.5", "10.3", *FILLER]]
    _assert_identical_to_certified(curve, orders)


def test_rdp_many_rejects_bad_orders():
    acc = RdpAccountant().compose(_event("0.01", "1.1"))
    with pytest.raises(ValueError, match="alpha must be > 1"):
        acc.rdp_many(["1.5", "1"])
    with pytest.raises(ValueError, match="alpha"):
        acc.rdp_many(["1.5", "x"])


def test_rdp_many_composes_counts():
    """T steps: T times the one-step ball, at every order."""
    acc1 = RdpAccountant().compose(_event("0.01", "1.1"))
    acc7 = RdpAccountant().compose(_event("0.01", "1.1"), 7)
    orders = ["1.5", "4.5", *FILLER]
    for r1, r7 in zip(acc1.rdp_many(orders), acc7.rdp_many(orders), strict=True):
        assert (7 * r1.rdp.ball).overlaps(r7.rdp.ball)


def test_cli_rdp_several_orders(capsys):
    from rigorous_rdp.cli import main

    argv = ["rdp", "--sampling", "poisson", "--q", "0.01", "--sigma", "1.1", "--alpha", "1.5", "10.3", *FILLER]
    rc = main([*argv, "--json"])
    assert rc in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert [r["alpha"] for r in out["results"]] == [1.5, 10.3] + [float(a) for a in FILLER]
    lo, up = (Fraction(out["results"][1]["rdp"][k]) for k in ("lower", "upper"))
    ref = Fraction(REFS[("0.01", "1.1", "10.3")]) / Fraction("9.3")
    slack = ref / 10**30
    assert lo - slack <= ref <= up + slack


@pytest.mark.slow
def test_stored_references():
    """The stored table is what the mpmath reference computes (40 digits)."""
    from rigorous_rdp.reference.gaussian import poisson_gaussian_log_a_mp

    for (q, s, a), v in REFS.items():
        got = poisson_gaussian_log_a_mp(Fraction(a), Fraction(q), Fraction(s), 40)
        with mpmath.workdps(60):
            assert abs(got - mpmath.mpf(v)) <= abs(got) * mpmath.mpf(10) ** -34, (q, s, a)


@pytest.mark.parametrize(
    ("q", "s"), [("0.99", "2.5"), ("0.5", "0.7"), ("0.8", "50"), ("0.0001", "8"), ("0.001", "0.2"), ("0.2", "400")]
)
def test_batch_overlaps_per_order_integration_across_parameters(q, s):
    """The shared rule and the per-order integration (two independent certified
    computations) agree, and the shared one is never much wider."""
    curve = pg.PoissonGaussianCurve(Fraction(q), Fraction(s))
    orders = [Fraction(a) for a in ("1.01", "1.3", "2.7", "3.3", "4.9", "6.1", "8.8", "12.5", "17.25", "24.9")]
    with workprec(64):
        many = curve.certified_many(orders)
        for a, m in zip(orders, many, strict=True):
            o = curve.certified(a)
            assert m.overlaps(o), (q, s, a, m, o)
            assert m.rad() <= 2 * o.rad() or rel_width(m) <= 2.0**-56, (q, s, a, m, o)


def test_order_just_below_two_uses_the_bound_for_orders_below_two(monkeypatch):
    """An order alpha < 2 with float(alpha) = 2.0 must get the error bound of alpha < 2
    (min(1, inf Re(1+x))^(alpha-2), which grows as inf Re(1+x) shrinks), not the one of
    alpha >= 2.  Rectangles made to report a tiny inf Re(1+x) (log = -1e40): then the bound
    for alpha < 2 is infinite and the shared rule must decline such an order."""
    orig = pg._Grid._box

    def tiny_re(self, k):
        box = list(orig(self, k))
        if box[2] is not None:
            box[2] = arb("-1e40")
        return tuple(box)

    monkeypatch.setattr(pg._Grid, "_box", tiny_re)
    below = 2 - Fraction(1, 2**70)
    assert float(below) == 2.0
    orders = [below, Fraction(5, 2), Fraction(3), Fraction(7, 2)]
    with workprec(64):
        out = pg.log_a_fractional_many(orders, Fraction("0.01"), Fraction("1.1"), 64)
    assert out[0] is None
    assert out[1] is not None  # alpha >= 2 does not depend on inf Re(1+x)


def test_window_of_an_order_within_float_rounding_of_one():
    """float(alpha) = 1.0 for alpha = 1 + 10^-22: the float planning must not fail."""
    L, U = pg._window(float(1 + Fraction(1, 10**22)), math.log(0.01), 1.1, -60.0)
    assert L <= 0.5 <= U


@pytest.mark.slow
def test_order_within_float_rounding_of_one_contains_the_limit():
    """eps(alpha) increases to E[(1+x) log(1+x)] (the derivative of log A_alpha at 1) as
    alpha -> 1; at alpha = 1 + 10^-22 the two differ by about 10^-22 relative."""
    acc = RdpAccountant().compose(_event("0.01", "1.1"))
    res = acc.rdp(Fraction(1) + Fraction(1, 10**22), 5)
    with mpmath.workdps(40):
        s = mpmath.mpf("1.1")
        q = mpmath.mpf("0.01")

        def g(z):
            x = q * mpmath.expm1((2 * z - 1) / (2 * s * s))
            return mpmath.npdf(z, 0, s) * (1 + x) * mpmath.log1p(x)

        kl = mpmath.quad(g, [-mpmath.inf, -5, 0, 0.5, 5, 10, mpmath.inf])
    ball = res.rdp.ball
    assert contains(ball, kl, rel=Fraction(1, 10**15)), (ball, kl)


def test_large_q_sigma_and_orders_not_left_to_the_per_order_path():
    """q = 0.9, sigma = 50, orders 300 to 1500: the window right of z0 must account for the
    factor (1 + r e^{-w_U})^alpha of the tail (e^{40} and more here), else the tail leaves
    every such order too wide and each is integrated on its own; the batch enclosures overlap
    the per-order ones."""
    q, s = Fraction("0.9"), Fraction(50)
    orders = [Fraction(a) for a in ("300.5", "420.25", "500.5", "640.3", "800.7", "999.9", "1200.1", "1499.5")]
    curve = pg.PoissonGaussianCurve(q, s)
    with workprec(64):
        out = pg.log_a_fractional_many(orders, q, s, 64)
        assert all(v is not None for v in out), [v is None for v in out]
        for a, v in zip(orders[::3], out[::3], strict=True):
            assert v is not None
            one = curve.certified(a) * (to_arb(a) - 1)
            assert v.overlaps(one), (a, v, one)


# --- the trapezoidal rule on one grid (orders on an arithmetic progression) -----------------

from rigorous_rdp.subsampling import poisson_gaussian_trapezoid as pt  # noqa: E402


def test_arithmetic_progression_of_exact_orders():
    orders = [Fraction(a) for a in ("1.5", "1.2", "2.1", "1.2")]
    start, step, pos = pt.arithmetic_progression(orders)
    assert (start, step) == (Fraction(6, 5), Fraction(3, 10))
    assert pos == [1, 0, 3, 0]
    assert all(start + p * step == a for a, p in zip(orders, pos, strict=True))
    # sparse orders (the progression would have far more terms than orders): declined
    assert pt.arithmetic_progression([Fraction("1.5"), Fraction("1.75"), Fraction("1000.25")]) is None
    assert pt.arithmetic_progression([Fraction(3, 2)] * 4) is None


@pytest.mark.parametrize(("q", "s"), PARAMS)
def test_trapezoid_contains_mpmath_references(q, s):
    """Each reference order with eleven neighbours on a progression (step 1/10)."""
    for prec in (64, 128):
        for a in ALPHAS:
            orders = [Fraction(a) + Fraction(k, 10) for k in range(-3, 9) if Fraction(a) + Fraction(k, 10) > 1]
            with workprec(prec):
                got = pt.log_a_trapezoid(orders, Fraction(q), Fraction(s), prec)
            g = got[orders.index(Fraction(a))]
            assert g is not None, (q, s, a, prec)  # the rule reached the accuracy
            assert contains(g, REFS[(q, s, a)], rel=Fraction(1, 10**30)), (q, s, a, prec, g)
            assert rel_width(g) <= 2.0 ** -(prec - 24), (q, s, a, prec, g)


@pytest.mark.parametrize(
    ("q", "s"), [("0.5", "0.25"), ("0.5", "0.7"), ("0.0001", "8"), ("0.2", "400"), ("1e-10", "1.1"), ("0.01", "1000")]
)
def test_trapezoid_overlaps_gauss_legendre_across_parameters(q, s):
    """The trapezoidal rule and the shared Gauss-Legendre rule (independent certified
    computations) agree at every order they both settle, at the edges of the parameter range."""
    orders = [Fraction(11, 10) + Fraction(k, 4) for k in range(60)]
    with workprec(64):
        trap = pt.log_a_trapezoid(orders, Fraction(q), Fraction(s), 64)
        gl = pg.log_a_fractional_many(orders, Fraction(q), Fraction(s), 64)
    assert sum(t is not None for t in trap) >= len(orders) // 2, (q, s)
    for a, t, g in zip(orders, trap, gl, strict=True):
        if t is not None and g is not None:
            assert t.overlaps(g), (q, s, a, t, g)


@pytest.mark.parametrize(("q", "s", "a"), [("0.5", "0.25", "3.3"), ("1e-10", "1.1", "2.7"), ("0.01", "1000", "40.5")])
def test_trapezoid_at_extreme_parameters_contains_mpmath(q, s, a):
    """Extreme q and sigma against the mpmath quadrature of the defining integral (40 digits)."""
    from rigorous_rdp.reference.gaussian import poisson_gaussian_log_a_mp

    orders = [Fraction(a) + Fraction(k, 10) for k in range(-5, 6)]
    with workprec(64):
        got = pt.log_a_trapezoid(orders, Fraction(q), Fraction(s), 64)[5]
    assert got is not None
    ref = poisson_gaussian_log_a_mp(Fraction(a), Fraction(q), Fraction(s), 40)
    assert contains(got, ref, rel=Fraction(1, 10**30)), (q, s, a, got, ref)


def test_omitted_node_bounds_cover_the_omitted_nodes():
    """The bounds of _Tails against the nodes outside a deliberately short window, summed by
    mpmath (40 digits) until negligible: F = phi (y^alpha - 1 - alpha x) on z_j = 1/2 + j Delta."""
    q, s, delta = Fraction("0.01"), Fraction("1.1"), 0.125
    plan = pt._Plan(np.array([5.5]), np.array([-5.0]), 0.01, math.log(0.01), 1.1, 56)
    plan.delta = delta
    for a, (jl, ju) in ((Fraction("5.5"), (-20, 60)), (Fraction("40.3"), (250, 400))):
        with workprec(64):
            tails = pt._Tails(plan, to_arb(q), to_arb(s), arb(delta), plan.node(jl - 1), plan.node(ju + 1), float(a))
            omit_f, omit_y = tails.bounds(to_arb(a))
        with mpmath.workdps(40):
            qq, ss, aa = mpmath.mpf(0.01), mpmath.mpf("1.1"), mpmath.mpf(a.numerator) / a.denominator
            qq = mpmath.mpf(1) / 100

            def node(j, qq=qq, ss=ss, aa=aa):
                z = mpmath.mpf(0.5) + j * mpmath.mpf(delta)
                x = qq * mpmath.expm1((2 * z - 1) / (2 * ss * ss))
                phi = delta * mpmath.npdf(z, 0, ss)
                return phi * ((1 + x) ** aa - 1 - aa * x), phi * (1 + x) ** aa, z

            left = sum(node(j)[0] for j in range(jl - 1, jl - 400, -1))
            right = sum(node(j)[0] for j in range(ju + 1, ju + 600))
            right_y = sum(node(j)[1] for j in range(ju + 1, ju + 600))
            gap_y = sum(node(j)[1] for j in range(jl - 1, -1, -1))  # nodes in (1/2, left end]
        assert mp_leq(left + right, omit_f), (a, left + right, omit_f)
        assert mp_leq(right_y + gap_y, omit_y), (a, right_y + gap_y, omit_y)


def mp_leq(v, ball) -> bool:
    from _containment import mp_fraction, upper

    return mp_fraction(v) <= upper(ball)


@pytest.mark.parametrize("digits", [10, 30])
def test_benchmark_orders_all_settled_by_the_trapezoid(digits):
    """The benchmark's orders (1.1, 1.2, ..., 100) at 10 and 30 digits: every real order is
    settled by the trapezoidal rule (none left to the slower paths), and each enclosure overlaps
    the shared Gauss-Legendre rule's."""
    from rigorous_rdp.arith import bits_for_digits

    orders = [1 + Fraction(i, 10) for i in range(1, 991) if i % 10]
    prec = max(64, bits_for_digits(digits) + 24)
    with workprec(prec):
        trap = pt.log_a_trapezoid(orders, Fraction("0.01"), Fraction("1.1"), prec)
        gl = pg.log_a_fractional_many(orders[::37], Fraction("0.01"), Fraction("1.1"), prec)
    assert all(t is not None for t in trap)
    for t, g in zip(trap[::37], gl, strict=True):
        assert g is None or t.overlaps(g)


def test_fallback_when_the_trapezoid_declines(monkeypatch):
    """Orders the trapezoidal rule leaves out go to the shared Gauss-Legendre rule."""
    monkeypatch.setattr(pt, "log_a_trapezoid", lambda alphas, *args: [None] * len(alphas))
    curve = pg.PoissonGaussianCurve(Fraction("0.01"), Fraction("1.1"))
    orders = [Fraction(11, 10) + Fraction(k, 10) for k in range(9) if k != 9]
    with workprec(64):
        got = curve.certified_many(orders)
        gl = pg.log_a_fractional_many(orders, Fraction("0.01"), Fraction("1.1"), 64)
    for a, v, g in zip(orders, got, gl, strict=True):
        assert v.overlaps(g / (to_arb(a) - 1))


# --- integer orders: the sum from the top terms ----------------------------------------------


@pytest.mark.parametrize(
    ("q", "s", "n"),
    [
        ("0.01", "1.1", 2),
        ("0.01", "1.1", 7),
        ("0.01", "1.1", 63),
        ("0.01", "1.1", 1024),
        ("1e-6", "0.5", 300),
        ("0.5", "50", 128),
        ("0.99", "3", 200),
        ("0.3", "0.1", 40),
    ],
)
def test_integer_sum_from_the_top_contains_the_binomial_sum(q, s, n):
    """Against mpmath's plain binomial sum (40 digits); the large orders stop early (few E_k
    computed), and the enclosure is as narrow as asked."""
    from rigorous_rdp.reference.gaussian import poisson_gaussian_log_a_binomial_mp

    cache: dict = {}
    with workprec(128):
        got = pg.log_a_integer_from_top(n, to_arb(Fraction(q)), to_arb(Fraction(s)), 136, cache)
    ref = poisson_gaussian_log_a_binomial_mp(n, Fraction(q), Fraction(s), 40)
    assert contains(got, ref, rel=Fraction(1, 10**34)), (q, s, n, got, ref)
    assert rel_width(got) <= 2.0**-110, (q, s, n, got)
    if (q, s, n) == ("0.01", "1.1", 1024):
        assert len(cache) < 30  # stopped after a few top terms


def test_trapezoid_leaves_huge_orders_to_the_other_paths():
    """Orders above MAX_ORDER (here 10^12 + k/2, a short progression) are not planned at all."""
    orders = [Fraction(10**12) + Fraction(k, 2) for k in range(8)]
    assert pt.arithmetic_progression(orders) is not None
    with workprec(64):
        out = pt.log_a_trapezoid(orders, Fraction("0.01"), Fraction("1.1"), 64)
    assert out == [None] * len(orders)
