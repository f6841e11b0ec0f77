r"""Symbolic checks (sympy) of the second-moment bound for orders in (1, 2]
(:class:`rigorous_rdp.subsampling.zhu_wang.SmallOrderChi2Curve`).

Run as a script or collected by pytest.  The steps of the proof in the class docstring:

1. Taylor's formula with integral remainder:
   :math:`g_\alpha(x) = ((1+x)^\alpha - 1 - \alpha x)/x^2 = \alpha(\alpha-1)\int_0^1(1-t)(1+tx)^{\alpha-2}dt`.
2. Hence :math:`g_\alpha` is non-increasing in x on (-1, oo) for :math:`\alpha \le 2`
   (the integrand's x-derivative is :math:`(\alpha-2)t(1-t)(1+tx)^{\alpha-3} \le 0`), with
   :math:`g_\alpha(-1) = \alpha - 1` and :math:`g_2 \equiv 1`.
3. For :math:`X \ge a` with :math:`E X = 0`: :math:`(1+X)^\alpha \le 1 + \alpha X + g_\alpha(a) X^2` pointwise,
   so :math:`E(1+X)^\alpha \le 1 + g_\alpha(a) E X^2`.
4. The reverse-direction variable :math:`X = \gamma(1-L)/(1-\gamma+\gamma L)` is decreasing in L,
   has mean 0 under the mixture, and :math:`E_\nu X^2 = \gamma^2\int(\mu_1-\mu_0)^2/\nu`.
5. The orderings :math:`a_B \le a_A` and :math:`d \le 1` that make the reverse direction dominate.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

x, t, L, g, e = sp.symbols("x t L gamma E", real=True)
al = sp.symbols("alpha", positive=True)


def _remainder_integral(alpha, xv):
    return alpha * (alpha - 1) * sp.integrate((1 - t) * (1 + t * xv) ** (alpha - 2), (t, 0, 1))


def test_integral_form_of_g():
    """Step 1, exactly for alpha in {3/2, 5/4, 7/4, 2} (symbolic x > -1), and at 30 digits for
    irrational-looking orders."""
    xs = sp.symbols("x", positive=True)  # x > 0; the x in (-1, 0) case is checked numerically below
    for alpha in (sp.Rational(3, 2), sp.Rational(5, 4), sp.Rational(7, 4), sp.Integer(2)):
        lhs = ((1 + xs) ** alpha - 1 - alpha * xs) / xs**2
        rhs = _remainder_integral(alpha, xs)
        assert sp.simplify(lhs - rhs) == 0, alpha
    with mpmath.workdps(30):
        for alpha in (mpmath.mpf("1.01"), mpmath.mpf("1.37"), mpmath.mpf("1.999")):
            for xv in (mpmath.mpf("-0.999"), mpmath.mpf("-0.3"), mpmath.mpf("0.01"), mpmath.mpf("5")):
                lhs = ((1 + xv) ** alpha - 1 - alpha * xv) / xv**2
                rhs = (
                    alpha
                    * (alpha - 1)
                    * mpmath.quad(lambda tt, xv=xv, alpha=alpha: (1 - tt) * (1 + tt * xv) ** (alpha - 2), [0, 1])
                )
                assert abs(lhs - rhs) < mpmath.mpf(10) ** -20 * abs(lhs), (
                    alpha,
                    xv,
                )  # lhs cancels ~5 digits at x = 0.01


def test_g_is_nonincreasing():
    """Step 2: d/dx of the integrand is (alpha-2) t (1-t) (1+tx)^(alpha-3), <= 0 for alpha <= 2;
    g(-1) = alpha - 1; g_2 = 1; g(0+) = alpha(alpha-1)/2."""
    integrand = (1 - t) * (1 + t * x) ** (al - 2)
    d = sp.diff(integrand, x)
    assert sp.simplify(d - (al - 2) * t * (1 - t) * (1 + t * x) ** (al - 3)) == 0
    gfun = ((1 + x) ** al - 1 - al * x) / x**2
    assert sp.simplify(gfun.subs(x, -1) - (al - 1)) == 0
    assert sp.simplify((((1 + x) ** 2 - 1 - 2 * x) / x**2) - 1) == 0
    assert sp.simplify(sp.limit(gfun.subs(al, sp.Rational(3, 2)), x, 0) - sp.Rational(3, 8)) == 0


def test_pointwise_inequality_and_expectation():
    """Step 3: h(x) = 1 + alpha x + g(a) x^2 - (1+x)^alpha >= 0 for x >= a, on dense grids
    (it follows from g(x) <= g(a): h = x^2 (g(a) - g(x)))."""
    hx = 1 + al * x + sp.Symbol("G") * x**2 - (1 + x) ** al
    gx = ((1 + x) ** al - 1 - al * x) / x**2
    assert sp.simplify(hx.subs(sp.Symbol("G"), gx)) == 0  # h = x^2 (G - g(x))
    with mpmath.workdps(30):
        for alpha in (mpmath.mpf("1.001"), mpmath.mpf("1.5"), mpmath.mpf("1.9"), mpmath.mpf(2)):
            for a in (mpmath.mpf(-1), mpmath.mpf("-0.5"), mpmath.mpf("-0.001")):
                ga = alpha - 1 if a == -1 else ((1 + a) ** alpha - 1 - alpha * a) / a**2
                for k in range(400):
                    xv = a + (mpmath.mpf(k) / 40) ** 2
                    assert 1 + alpha * xv + ga * xv**2 - (1 + xv) ** alpha >= -(mpmath.mpf(10) ** -25)


def test_reverse_direction_variable():
    """Step 4: X = mu0/nu - 1 with nu = (1-g) mu0 + g mu1, L = mu1/mu0: X = g(1-L)/(1-g+gL),
    dX/dL < 0, E_nu X = int (mu0 - nu) = 0, and nu X^2 = g^2 (mu1-mu0)^2 / nu pointwise."""
    mu0, mu1 = sp.symbols("mu0 mu1", positive=True)
    nu = (1 - g) * mu0 + g * mu1
    X = mu0 / nu - 1
    assert sp.simplify(X.subs(mu1, L * mu0) - g * (1 - L) / (1 - g + g * L)) == 0
    dX = sp.diff(g * (1 - L) / (1 - g + g * L), L)
    assert sp.simplify(dX + g / (1 - g + g * L) ** 2) == 0  # = -g/(...)^2 <= 0
    assert sp.simplify(nu * X - (mu0 - nu)) == 0  # E_nu[X] = int (mu0 - nu) = 0
    assert sp.simplify(nu * X**2 - g**2 * (mu1 - mu0) ** 2 / nu) == 0


def test_orderings():
    """Step 5: with E = e^{eps_inf} >= 1, 0 < g <= 1: a_B = -g(E-1)/(1-g+gE) <= a_A = -g(1-1/E),
    and d = 1 - g + g/E <= 1; nu >= d mu0 because L >= 1/E."""
    a_a = -g * (1 - 1 / e)
    a_b = -g * (e - 1) / (1 - g + g * e)
    diff = sp.factor(sp.simplify(a_a - a_b))  # >= 0
    # a_A - a_B = g (E-1) [1/(1-g+gE) - 1/E] = g (E-1)(1-g)(E-1) / (E (1-g+gE)) >= 0
    assert sp.simplify(diff - g * (e - 1) ** 2 * (1 - g) / (e * (1 - g + g * e))) == 0
    d = 1 - g + g / e
    assert sp.simplify(1 - d - g * (1 - 1 / e)) == 0


def test_bound_above_true_divergence():
    """The certified curve is above the exact divergences of Poisson-subsampled Laplace
    (both directions, quadrature) on a few configurations."""
    from rigorous_rdp.arith import workprec
    from rigorous_rdp.events import LaplaceEvent
    from rigorous_rdp.registry import rdp_curve
    from rigorous_rdp.subsampling.zhu_wang import SmallOrderChi2Curve

    def lap(z, m, b):
        return mpmath.exp(-abs(z - m) / b) / (2 * b)

    for b, q, a in (
        (1, Fraction(1, 10), Fraction(3, 2)),
        (10, Fraction(1, 1000), Fraction(101, 100)),
        (1, Fraction(1, 2), Fraction(3, 2)),
        (Fraction(1, 2), Fraction(1, 20), Fraction(19, 10)),
    ):
        curve = SmallOrderChi2Curve(rdp_curve(LaplaceEvent(b)), q)
        with workprec(64):
            v = curve.certified(a)
        with mpmath.workdps(30):
            bb, qq, aa = (mpmath.mpf(Fraction(z).numerator) / Fraction(z).denominator for z in (b, q, a))

            def mix(z, qq=qq, bb=bb):
                return (1 - qq) * lap(z, 0, bb) + qq * lap(z, 1, bb)

            d1 = mpmath.log(
                mpmath.quad(
                    lambda z, mix=mix, aa=aa, bb=bb: mix(z) ** aa * lap(z, 0, bb) ** (1 - aa),
                    [-mpmath.inf, 0, 1, mpmath.inf],
                )
            ) / (aa - 1)
            d2 = mpmath.log(
                mpmath.quad(
                    lambda z, mix=mix, aa=aa, bb=bb: lap(z, 0, bb) ** aa * mix(z) ** (1 - aa),
                    [-mpmath.inf, 0, 1, mpmath.inf],
                )
            ) / (aa - 1)
            assert mpmath.mpf(v.lower().str(30, radius=False)) >= max(d1, d2), (b, q, a)


if __name__ == "__main__":  # pragma: no cover
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the second-moment bound for orders in (1, 2]"))
