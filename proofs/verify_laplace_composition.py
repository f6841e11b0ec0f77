r"""The law of the T-fold privacy loss of the Laplace mechanism, and why
:mod:`rigorous_rdp.pld.closed_form` does not use it.

Pair (sensitivity 1, scale b, :math:`\beta = 1/b`): :math:`P = \mathrm{Lap}(0, b)`,
:math:`Q = \mathrm{Lap}(1, b)`, loss :math:`\ell(x) = (|x - 1| - |x|)/b`.  Under P the loss is

* :math:`+\beta` with mass 1/2 (:math:`x \le 0`), :math:`-\beta` with mass :math:`e^{-\beta}/2`
  (:math:`x \ge 1`),
* on :math:`(-\beta, \beta)` with density :math:`e^{-\beta/2} e^{u/2}/4`
  (:math:`u = (1 - 2x)\beta`, :math:`x \in (0, 1)`).

So the P-law of one loss is :math:`e^{u/2} e^{-\beta/2}\nu(du)` with the symmetric measure
:math:`\nu = \tfrac12\delta_\beta + \tfrac12\delta_{-\beta} + \tfrac14\mathbf 1_{(-\beta,\beta)}du`,
and the Q-law is :math:`e^{-u}` times the P-law.  The T-fold loss is a mixture over the
number j of continuous steps and the number i of :math:`+\beta` atoms among the others:

.. math::
    \delta_T(\varepsilon) = \sum_{j=0}^{T}\sum_{i=0}^{T-j} \binom{T}{j}\binom{T-j}{i}
        2^{-i}\Big(\frac{e^{-\beta}}{2}\Big)^{T-j-i}\Big(\frac{e^{-\beta/2}}{4}\Big)^{j}
        \int \big(1 - e^{\varepsilon - c_{ij} - s}\big)_+ e^{s/2} B_j(s)\,ds,
    \qquad c_{ij} = (2i - T + j)\beta,

with :math:`B_j` the j-fold convolution of :math:`\mathbf 1_{(-\beta,\beta)}` (:math:`B_0 = \delta_0`),
:math:`B_j(s) = \sum_{k=0}^{j} (-1)^k \binom{j}{k} (s + (j - 2k)\beta)_+^{j-1}/(j-1)!`.
Every integral is elementary (an exponential times a polynomial), so :math:`\delta_T` is an
exact finite expression.  The checks below verify the one-step law symbolically and the
T-fold expression (integrated exactly with sympy) against the one-step profile
(:func:`rigorous_rdp.reference.pld.laplace_delta`, T = 1) and an mpmath quadrature of the
Fubini recursion split at its kinks (T = 2).

Why it is not used for large T: the expression has :math:`O(T^2)` mixture terms with up to
T + 1 spline pieces each (:math:`O(T^3)` work), and the alternating B-spline sum cancels
catastrophically: its terms reach :math:`2^j (2j\beta)^{j-1}/(j-1)!` while
:math:`B_j \le (2\beta)^{j-1}`, a loss of about :math:`j\log_2(2e)` bits
(:func:`test_spline_cancellation_grows_linearly`).  At T = 1e6 that is millions of bits of
working precision on :math:`10^{18}` terms, so the Laplace mechanism stays on the certified
grid path (:mod:`rigorous_rdp.pld.discretize`).

Run as a script or collected by pytest.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, factorial

import mpmath
import sympy as sp

from rigorous_rdp.reference.pld import laplace_delta

u, x, s, beta = sp.symbols("u x s beta", real=True)


def test_one_step_law():
    """The P-law of one loss: atoms 1/2 at +beta and e^-beta/2 at -beta, density
    e^(-beta/2) e^(u/2)/4 on (-beta, beta); total mass 1; the Q-law is e^-u times it."""
    bp = sp.Symbol("beta", positive=True)
    b = 1 / bp
    # P-density of x on (0, 1) is e^(-x/b)/(2b); u = (1 - 2x) beta, so x = (1 - u/beta)/2, |dx/du| = b/2
    xu = (1 - u / bp) / 2
    dens = sp.exp(-xu / b) / (2 * b) * b / 2
    assert sp.simplify(dens - sp.exp(-bp / 2) * sp.exp(u / 2) / 4) == 0
    cont = sp.integrate(sp.exp(-bp / 2) * sp.exp(u / 2) / 4, (u, -bp, bp))
    assert sp.simplify(sp.Rational(1, 2) + sp.exp(-bp) / 2 + cont - 1) == 0
    # Q = Lap(1, b): Q(x <= 0) = e^-beta/2 = e^-beta * P(x <= 0); Q(x >= 1) = 1/2 = e^beta * P(x >= 1);
    # on (0, 1): Q-density e^((x-1)/b)/(2b) = e^-u * P-density
    assert sp.simplify(sp.exp(-bp) / 2 - sp.exp(-bp) * sp.Rational(1, 2)) == 0
    assert sp.simplify(sp.Rational(1, 2) - sp.exp(bp) * sp.exp(-bp) / 2) == 0
    qd = sp.exp((xu - 1) / b) / (2 * b) * b / 2
    assert sp.simplify(qd - sp.exp(-u) * dens) == 0


def _spline_terms(j: int, bval: sp.Rational) -> list[tuple[int, sp.Expr, sp.Expr]]:
    """B_j(s) as (sign*binomial, shift, power) truncated powers: sum c (s + shift)_+^(j-1)/(j-1)!."""
    return [((-1) ** k * comb(j, k), (j - 2 * k) * bval, j - 1) for k in range(j + 1)]


def laplace_delta_exact(scale: Fraction, steps: int, eps: Fraction) -> sp.Expr:
    """The mixture expression of the module docstring, integrated exactly by sympy."""
    bval = sp.Rational(1, 1) / sp.Rational(scale.numerator, scale.denominator)
    e = sp.Rational(eps.numerator, eps.denominator)
    total = sp.Integer(0)
    for j in range(steps + 1):
        for i in range(steps - j + 1):
            w = comb(steps, j) * comb(steps - j, i)
            w = w * sp.Rational(1, 2) ** i * (sp.exp(-bval) / 2) ** (steps - j - i) * (sp.exp(-bval / 2) / 4) ** j
            c = (2 * i - steps + j) * bval
            if j == 0:
                if c > e:
                    total += w * (1 - sp.exp(e - c))
                continue
            lo_all = sp.Max(e - c, -j * bval)
            hi = j * bval
            if not lo_all < hi:
                continue
            for coef, shift, pw in _spline_terms(j, bval):
                lo = sp.Max(lo_all, -shift)
                if not lo < hi:
                    continue
                integrand = (1 - sp.exp(e - c - s)) * sp.exp(s / 2) * (s + shift) ** pw / factorial(pw)
                total += w * coef * sp.integrate(integrand, (s, lo, hi))
    return total


def _close(expr: sp.Expr, ref: mpmath.mpf, tol: float) -> bool:
    with mpmath.workdps(40):
        val = mpmath.mpf(str(sp.N(expr, 40)))
        return bool(abs(val - ref) <= tol * max(abs(ref), mpmath.mpf("1e-30")))


def test_one_fold_matches_profile():
    """T = 1: the expression equals the one-step Laplace profile."""
    for scale, eps in ((Fraction(1), Fraction(1, 4)), (Fraction(1), Fraction(0)), (Fraction(2), Fraction(1, 3))):
        assert _close(laplace_delta_exact(scale, 1, eps), laplace_delta(scale, 1, eps, dps=30), 1e-20)


def _two_fold_quadrature(scale: Fraction, eps: Fraction) -> mpmath.mpf:
    """delta_2 by conditioning on the first step (Fubini) and one mpmath quadrature, split
    at the kinks of the one-step profile (|eps - loss| = beta) so that it converges."""
    with mpmath.workdps(40):
        b = mpmath.mpf(scale.numerator) / scale.denominator
        bt = 1 / b
        e = mpmath.mpf(eps.numerator) / eps.denominator

        def d1(y):
            return laplace_delta(scale, 1, y, dps=40)

        pts = [mpmath.mpf(0), mpmath.mpf(1)]
        for sgn in (1, -1):
            xk = (1 - (e - sgn * bt) / bt) / 2
            if 0 < xk < 1:
                pts.append(xk)
        pts = sorted(pts)
        mid = mpmath.quad(lambda z: mpmath.exp(-z / b) / (2 * b) * d1(e - (1 - 2 * z) / b), pts)
        return d1(e - bt) / 2 + mpmath.exp(-bt) / 2 * d1(e + bt) + mid


def test_two_fold_matches_quadrature():
    """T = 2 against the quadrature split at the kinks (the unsplit recursion of
    reference.pld.laplace_delta is off by ~1e-7 at eps = 1/4, where a kink falls inside a panel)."""
    for scale, eps in ((Fraction(1), Fraction(1, 4)), (Fraction(1), Fraction(1)), (Fraction(2), Fraction(1, 3))):
        assert _close(laplace_delta_exact(scale, 2, eps), _two_fold_quadrature(scale, eps), 1e-25)


def test_spline_cancellation_grows_linearly():
    """The largest term of the alternating B-spline sum over the bound (2 beta)^(j-1) of B_j
    grows like (2e)^j: about 2.4 j bits are cancelled (beta = 1)."""
    for j in (10, 40, 160):
        biggest = max(comb(j, k) for k in range(j + 1)) * Fraction((2 * j) ** (j - 1), factorial(j - 1))
        ratio = biggest / Fraction(2 ** (j - 1))
        bits = ratio.numerator.bit_length() - ratio.denominator.bit_length()
        assert 1.5 * j <= bits <= 3.5 * j, (j, bits)


if __name__ == "__main__":
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the T-fold Laplace loss law"))
