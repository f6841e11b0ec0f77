r"""Symbolic checks (sympy) of the FSwoR derivations of Birrell et al. 2024 (App. B, C, Sec. 3.4).

Run as a script or collected by pytest.  Each test re-derives a formula and compares it
with the closed form used in ``rigorous_rdp/subsampling/fswor.py``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

a, q, s, x, th, w = sp.symbols("alpha q s x theta w", positive=True)
sig = sp.symbols("sigma", positive=True)
v = 4 / sig**2  # log L ~ N(-v/2, v) under N(0, sigma^2/4)


def _lognormal_moment(ell):
    """E[L^ell] from the Gaussian MGF: E[e^{ell X}], X ~ N(-v/2, v)."""
    t = sp.symbols("t")
    mgf = sp.exp(t * (-v / 2) + t**2 * v / 2)
    return sp.simplify(mgf.subs(t, ell))


def closed_form_m(k):
    """(44): sum_{l=2}^k (-1)^{k-l} C(k,l) e^{2 l(l-1)/sigma^2} + (-1)^{k-1}(k-1)."""
    return sum(
        (-1) ** (k - ell) * sp.binomial(k, ell) * sp.exp(2 * ell * (ell - 1) / sig**2) for ell in range(2, k + 1)
    ) + (-1) ** (k - 1) * (k - 1)


def test_moments_from_mgf_equal_44():
    """M_k = E[(L-1)^k] expanded binomially with E[L^l] from the Gaussian MGF equals (44), k <= 10."""
    for k in range(0, 9):
        m = sp.expand(sum(sp.binomial(k, ell) * (-1) ** (k - ell) * _lognormal_moment(ell) for ell in range(k + 1)))
        if k >= 1:
            assert sp.simplify(m - closed_form_m(k)) == 0, k
        else:
            assert m == 1


def test_lognormal_moment_by_completing_the_square():
    """E_{N(0,sigma^2/4)}[(N_1/N_0)^l] = e^{2l(l-1)/sigma^2}: the exponent of (N_1/N_0)^l N_0
    is -(theta - l)^2/(2 s2) + l(l-1)/(2 s2) with s2 = sigma^2/4 (a shifted Gaussian)."""
    s2 = sig**2 / 4
    ell = sp.symbols("ell")
    lhs = ell * (2 * th - 1) / (2 * s2) - th**2 / (2 * s2)
    rhs = -((th - ell) ** 2) / (2 * s2) + ell * (ell - 1) / (2 * s2)
    assert sp.simplify(lhs - rhs) == 0
    assert sp.simplify(ell * (ell - 1) / (2 * s2) - 2 * ell * (ell - 1) / sig**2) == 0


def test_derivatives_of_h_at_zero():
    """d^k/dq^k H(0) from (40) = prod_{j<k}(alpha - j) M_k, checked by differentiating the
    integrand (qL + 1 - q)^alpha symbolically in q and setting q = 0 (k <= 8)."""
    L = sp.symbols("L", positive=True)
    integrand = (q * L + 1 - q) ** a
    for k in range(0, 9):
        d = sp.diff(integrand, q, k).subs(q, 0)
        expected = sp.ff(a, k) * (L - 1) ** k
        assert sp.simplify(sp.expand_func(d - expected)) == 0, k


def test_m_graph_expansion_nonnegative():
    """(44) as a polynomial in w = e^{4/sigma^2} - 1 has non-negative integer coefficients
    (graphs without isolated vertices): M_k >= 0, used to clip enclosures at 0 (k <= 8)."""
    for k in range(2, 9):
        poly = sp.expand(
            sum((-1) ** (k - ell) * sp.binomial(k, ell) * (1 + w) ** sp.binomial(ell, 2) for ell in range(k + 1))
        )
        coeffs = sp.Poly(poly, w).all_coeffs()
        assert all(c >= 0 for c in coeffs), k
        # and it is (44): substitute w = e^v - 1
        assert sp.simplify(poly.subs(w, sp.exp(v) - 1) - closed_form_m(k)) == 0


def test_remainder_beta_integral_50():
    """int_0^1 (1-s)^{m-1}/(m-1)! s^l ds * C(n, l) = n!/((n-l)!(m+l)!) (the step to (50))."""
    for m in range(3, 7):
        for n in range(0, 6):
            for ell in range(0, n + 1):
                lhs = sp.integrate((1 - s) ** (m - 1) / sp.factorial(m - 1) * s**ell, (s, 0, 1)) * sp.binomial(n, ell)
                rhs = sp.factorial(n) / (sp.factorial(n - ell) * sp.factorial(m + ell))
                assert sp.simplify(lhs - rhs) == 0


_TAYLOR_F = sp.exp(2 * x) * (1 + x) ** sp.Rational(7, 2)
_TAYLOR_X = sp.Rational(1, 3)


def _taylor_parts(m):
    """Taylor polynomial of order m of the test function at 0, and the integrand of the
    remainder (9)-(10) at x = 1/3, as functions of s."""
    f = _TAYLOR_F
    taylor = sum(x**k / sp.factorial(k) * sp.diff(f, x, k).subs(x, 0) for k in range(m))
    integrand = _TAYLOR_X**m * (1 - s) ** (m - 1) / sp.factorial(m - 1) * sp.diff(f, x, m).subs(x, s * _TAYLOR_X)
    return taylor, integrand


def test_taylor_remainder_integral_form():
    """Taylor's theorem with the integral remainder (9)-(10) on a test function (order m <= 5):
    the derivatives and the Taylor polynomial are symbolic (sympy), the remainder integral is
    evaluated by mpmath's tanh-sinh quadrature at 40 digits (the integrand is smooth on [0, 1])."""
    import mpmath

    for m in range(3, 6):
        taylor, integrand = _taylor_parts(m)
        g = sp.lambdify(s, integrand, "mpmath")
        with mpmath.workdps(40):
            rem = mpmath.quad(g, [0, 1])
            lhs = mpmath.mpf(sp.N(_TAYLOR_F.subs(x, _TAYLOR_X) - taylor.subs(x, _TAYLOR_X), 45))
            assert abs(lhs - rem) < mpmath.mpf(10) ** -30, m
            # and the remainder is not negligible: the check is not vacuous
            assert abs(rem) > mpmath.mpf(10) ** -3, m


@pytest.mark.slow
def test_taylor_remainder_integral_form_sympy_quadrature():
    """The same identity with sympy evaluating the remainder integral itself (about 200 s)."""
    for m in range(3, 6):
        taylor, integrand = _taylor_parts(m)
        rem = sp.Integral(integrand, (s, 0, 1))
        assert abs(sp.N(_TAYLOR_F.subs(x, _TAYLOR_X) - taylor.subs(x, _TAYLOR_X) - rem, 30)) < 1e-25


# --- replace-one (App. C) ---------------------------------------------------

P, Pp = sp.symbols("L1 L2", positive=True)  # N_dmu/N_0 and N_dmu'/N_0


def _f_integrand():
    return (q * P + 1 - q) ** a / (q * Pp + 1 - q) ** (a - 1)


def test_f_derivatives_65_66():
    """d^k F/dq^k (0) from differentiating the integrand of (61) equals (65), k <= 4, and
    with E[P] = E[Pp] = 1 the first derivative vanishes (66)."""
    u, up = sp.symbols("u up")  # P - 1, Pp - 1
    g = _f_integrand().subs({P: 1 + u, Pp: 1 + up})
    for k in range(0, 5):
        d = sp.expand(sp.simplify(sp.diff(g, q, k).subs(q, 0)))
        expected = sum(
            (-1) ** (k - j) * sp.binomial(k, j) * sp.ff(a, j) * sp.rf(a - 1, k - j) * u**j * up ** (k - j)
            for j in range(k + 1)
        )
        assert sp.simplify(d - sp.expand(expected)) == 0, k
    d1 = sp.expand(sp.diff(g, q).subs(q, 0))
    # linear in u and up: expectation zero since E[u] = E[up] = 0
    assert sp.simplify(d1 - (a * u - (a - 1) * up)) == 0


def test_f_second_derivative_67_and_bound_69():
    """(67) from the MGF: E[u^2] = e^A - 1, E[up^2] = e^B - 1, E[u up] = e^C - 1 with
    A = |dmu|^2/s~^2 etc.; then max of e^A + e^B - 2e^{(A+B-c)/2} over [0, c]^2 is at A = B = c,
    giving (69) with c = 4/sigma^2."""
    A, B, C, c = sp.symbols("A B C c", nonnegative=True)
    coeffs = {j: (-1) ** (2 - j) * sp.binomial(2, j) * sp.ff(a, j) * sp.rf(a - 1, 2 - j) for j in range(3)}
    d2 = coeffs[0] * (sp.exp(B) - 1) + coeffs[1] * (sp.exp(C) - 1) + coeffs[2] * (sp.exp(A) - 1)
    assert sp.simplify(d2 - a * (a - 1) * (sp.exp(A) + sp.exp(B) - 2 * sp.exp(C))) == 0
    g = sp.exp(A) + sp.exp(B) - 2 * sp.exp((A + B - c) / 2)
    # separately convex on the box (second derivative positive since (A+B-c)/2 <= A/2 there)
    d2A = sp.diff(g, A, 2)
    assert sp.simplify(d2A - (sp.exp(A) - sp.exp((A + B - c) / 2) / 2)) == 0
    # vertices: (c, c) dominates (0,0), (c,0), (0,c)
    U = sp.symbols("U", positive=True)  # U = e^{c/2} >= 1
    top = sp.simplify(g.subs({A: c, B: c}))
    for other in (g.subs({A: 0, B: 0}), g.subs({A: c, B: 0})):
        diff = sp.simplify((top - other).subs(c, 2 * sp.log(U)))
        fac = sp.factor(sp.simplify(diff * U))
        # diff*U is a polynomial in U with a double root at U = 1 and non-negative for U >= 1
        poly = sp.Poly(sp.expand(fac), U)
        assert poly.eval(1) == 0
        for uu in (1, sp.Rational(11, 10), 2, 5, 50):
            assert poly.eval(uu) >= 0
    assert sp.simplify(top.subs(c, 4 / sig**2) - (2 * sp.exp(4 / sig**2) - 2 * sp.exp(2 / sig**2))) == 0


def test_leading_orders_18_19_and_factor_4():
    """(18): Wang et al. 2q^2 alpha (e^{4/s^2} - 1) ~ 8 q^2 alpha/s^2; (19) and add/remove:
    q^2 alpha (e^{4/s^2} - e^{2/s^2}) ~ 2 q^2 alpha/s^2 = (q^2/2) alpha (e^{4/s^2}-1) + ...; ratio 4."""
    eps = sp.symbols("epsilon", positive=True)  # 1/sigma^2
    wang = 2 * q**2 * a * (sp.exp(4 * eps) - 1)
    ro = q**2 * a * (sp.exp(4 * eps) - sp.exp(2 * eps))
    ar = q**2 / 2 * a * (sp.exp(4 * eps) - 1)
    assert sp.series(wang, eps, 0, 2).removeO() == 8 * q**2 * a * eps
    assert sp.series(ro, eps, 0, 2).removeO() == 2 * q**2 * a * eps
    assert sp.series(ar, eps, 0, 2).removeO() == 2 * q**2 * a * eps
    assert sp.limit(wang / ro, eps, 0) == 4
    # the one-step add/remove bound: log(1 + q^2/2 alpha(alpha-1) M_2)/(alpha-1), M_2 = e^{4 eps} - 1
    h = sp.log(1 + q**2 / 2 * a * (a - 1) * (sp.exp(4 * eps) - 1)) / (a - 1)
    assert sp.simplify(sp.series(h, q, 0, 3).removeO() - ar) == 0


def test_code_coefficients_match_sympy():
    """The code's M_k, B~_k and F~_k (83) equal the sympy expressions at sample points."""
    from flint import arb

    from rigorous_rdp.arith import workprec
    from rigorous_rdp.subsampling import fswor

    with workprec(200):
        for sg in (Fraction(3, 2), Fraction(6), Fraction(20)):
            for k in range(2, 9):
                ball = fswor.gaussian_moment_m(k, sg)
                ref = sp.N(closed_form_m(k).subs(sig, sp.Rational(sg.numerator, sg.denominator)), 60)
                assert ball.overlaps(arb(str(ref)) + arb(0, abs(float(ref)) * 1e-50 + 1e-300))
        for alpha in (Fraction(3, 2), Fraction(5), Fraction(23, 3)):
            for k in (3, 4, 5):
                sg = Fraction(6)
                bk = (
                    sp.N(closed_form_m(k).subs(sig, 6), 60)
                    if k % 2 == 0
                    else sp.sqrt(
                        sp.N(closed_form_m(k - 1).subs(sig, 6), 60) * sp.N(closed_form_m(k + 1).subs(sig, 6), 60)
                    )
                )
                al = sp.Rational(alpha.numerator, alpha.denominator)
                lead = (al - 1) * al ** (k - 1)
                second = lead * sum(
                    sp.binomial(k, j)
                    * sp.Abs(
                        al
                        / (al - 1)
                        * sp.prod([1 - sp.Rational(ell) / al for ell in range(j)])
                        * sp.prod([1 + (sp.Rational(ell) - 1) / al for ell in range(k - j)])
                        - 1
                    )
                    for j in range(k + 1)
                )
                ref = sp.N(lead * (4 if k % 2 == 0 else 3) * bk + second * bk, 50)
                ball = fswor.f_tilde(alpha, sg, k)
                assert ball.overlaps(arb(str(ref)) + arb(0, abs(float(ref)) * 1e-40))


if __name__ == "__main__":  # pragma: no cover
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the FSwoR derivations of Birrell et al. (App. B, C, Sec. 3.4)"))
