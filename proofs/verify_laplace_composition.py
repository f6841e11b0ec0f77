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

How :mod:`rigorous_rdp.pld.laplace_exact` uses it.  Summed as written the expression has
:math:`O(T^2)` mixture terms with up to T + 1 spline pieces each (:math:`O(T^3)` work), and the
alternating B-spline sum cancels: its terms reach :math:`2^j (2j\beta)^{j-1}/(j-1)!` while
:math:`B_j \le (2\beta)^{j-1}`, a loss of about :math:`j\log_2(2e)` bits
(:func:`test_spline_cancellation_grows_linearly`).  So the code sums it only for few steps
(finite mixture) or for few *continuous* steps j (the lattice points with
:math:`x_{ij} \le -j` summed in closed form through binomial tails, the rest of the j-fold
terms bounded by a tilted Chernoff bound), and otherwise inverts the moment generating function
:math:`\varphi(z) = a(z) + b(z)` of one loss along a vertical line.  The identities those
routes rest on are checked below: the inversion kernel, the MGF and its symmetry, the bounds on
the line, the incomplete integrals (closed form and series), the Chernoff constant
:math:`\kappa(c)`, the binomial remainder and tail recurrences, and the atoms' closed form.

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


# ---------------------------------------------------------------------------
# identities of rigorous_rdp.pld.laplace_exact
# ---------------------------------------------------------------------------

z = sp.Symbol("z", positive=True)


def test_inversion_kernel():
    """int (1 - e^(eps - x))_+ e^(-z x) dx = e^(-z eps)/(z (z + 1)) for Re z > 0."""
    e = sp.Symbol("epsilon", real=True)
    xx = sp.Symbol("x", real=True)
    val = sp.integrate((1 - sp.exp(e - xx)) * sp.exp(-z * xx), (xx, e, sp.oo))
    assert sp.simplify(val - sp.exp(-z * e) / (z * (z + 1))) == 0


def test_mgf_and_symmetry():
    """phi(z) = E_P[e^(z L)] = a(z) + b(z) (L in loss units), and phi(z) = phi(-1 - z)."""
    bp = sp.Symbol("beta", positive=True)
    zz = sp.Symbol("z")
    a = (sp.exp(bp * zz) + sp.exp(-bp * (zz + 1))) / 2
    w = zz + sp.Rational(1, 2)
    b = sp.exp(-bp / 2) / 2 * sp.sinh(bp * w) / w
    # the continuous part: density (beta/4) e^(-beta/2) e^(beta u/2) on u in (-1, 1), loss beta u
    cont = sp.integrate(bp / 4 * sp.exp(-bp / 2) * sp.exp(bp * u / 2) * sp.exp(zz * bp * u), (u, -1, 1))
    for zv in (sp.Rational(1, 3), sp.Rational(-2, 7), sp.Rational(5, 2)):
        for bv in (sp.Rational(1, 10), sp.Integer(1), sp.Integer(7)):
            sub = {zz: zv, bp: bv}
            assert abs(sp.N((cont - b).subs(sub), 30)) < 1e-25
            assert abs(sp.N((a + b).subs(sub) - (a + b).subs({zz: -1 - zv, bp: bv}), 30)) < 1e-25
    # derivative used in the mean-value form
    b1 = sp.exp(-bp / 2) / 2 * (bp * w * sp.cosh(bp * w) - sp.sinh(bp * w)) / w**2
    assert sp.simplify(sp.diff(b, zz) - b1) == 0


def test_bounds_on_the_line():
    """|sinh(x + iy)|^2 = sinh^2 x + sin^2 y <= cosh^2 x (so |b(c + it)| <= M/|t|), and
    |a(c + it)| <= a(c) (a has positive coefficients)."""
    xr, yr = sp.symbols("x y", real=True)
    val = sp.sinh(xr + sp.I * yr)
    mod2 = sp.expand(sp.simplify((val * sp.conjugate(val)).rewrite(sp.exp)))
    assert sp.simplify(mod2 - (sp.sinh(xr) ** 2 + sp.sin(yr) ** 2).rewrite(sp.exp)) == 0
    assert sp.simplify(sp.cosh(xr) ** 2 - sp.sinh(xr) ** 2 - 1) == 0  # sin^2 <= 1 = cosh^2 - sinh^2


def test_modulus_bound_off_the_line():
    r"""The inversion integrand's bound on a complex ball (``LaplaceProfile._contour``):
    :math:`b(z) = \tfrac{k_0\beta}2\int_{-1}^1 e^{\beta w u}\,du` (so :math:`|b(z)| \le b(\mathrm{Re}\,z)`,
    as :math:`|a(z)| \le a(\mathrm{Re}\,z)`: positive measures), a, b and cosh are log-convex on the
    reals (so every product of their powers with :math:`e^{-\varepsilon x}` takes its largest value on
    an interval at an end), and the resulting bound holds at sample points for T = 5, J = -1, 1."""
    bp = sp.Symbol("beta", positive=True)
    xr = sp.Symbol("x", real=True)
    ww = sp.Symbol("w", nonzero=True)
    rep = bp / 2 * sp.integrate(sp.exp(bp * ww * u), (u, -1, 1))
    assert sp.simplify((rep - sp.sinh(bp * ww) / ww).rewrite(sp.exp)) == 0
    a = (sp.exp(bp * xr) + sp.exp(-bp * (xr + 1))) / 2
    assert sp.simplify(a * sp.diff(a, xr, 2) - sp.diff(a, xr) ** 2 - bp**2 * sp.exp(-bp)) == 0  # >= 0
    assert sp.simplify(sp.diff(sp.log(sp.cosh(xr)), xr, 2) - 1 / sp.cosh(xr) ** 2) == 0
    with mpmath.workdps(30):
        for bv in (mpmath.mpf(1) / 10, mpmath.mpf(1), mpmath.mpf(7)):
            k0 = mpmath.exp(-bv / 2) / 2

            def parts(z, bv=bv, k0=k0):
                w = z + mpmath.mpf(1) / 2
                bz = k0 * mpmath.sinh(bv * w) / w if w != 0 else k0 * bv
                return (mpmath.exp(bv * z) + mpmath.exp(-bv * (z + 1))) / 2, bz

            # b is log-convex on the reals: (log b)'' >= 0 (the MGF of a positive measure)
            for xv in (-3, -0.5, -0.25, 0.5, 2, 6):
                assert mpmath.diff(lambda t: mpmath.log(parts(t)[1]), xv, 2) >= -1e-20
            T, eps, c = 5, 5 * bv / 3, mpmath.mpf(3) / 4
            phic = sum(parts(c))
            for J in (-1, 1):
                for zr in (0.2, 0.75, 1.3):
                    for zi in (0.01, 0.4, 3.0, 17.0):
                        z = mpmath.mpc(zr, zi)
                        az, bz = parts(z)
                        ax, bx = parts(mpmath.mpf(zr))
                        assert abs(az) <= ax * (1 + 1e-25) and abs(bz) <= bx * (1 + 1e-25)
                        bcosh = k0 * mpmath.cosh(bv * (zr + 0.5)) / abs(z + 0.5)
                        assert abs(bz) <= bcosh * (1 + 1e-25)
                        rj = (az + bz) ** T - sum(comb(T, j) * az ** (T - j) * bz**j for j in range(J + 1))
                        val = abs(rj * mpmath.exp(-eps * (z - c)) / phic**T)
                        for B in (bx, bcosh):
                            full = (ax + B) ** T
                            tay = comb(T, J + 1) * B ** (J + 1) * (ax + B) ** (T - J - 1) if J >= 0 else full
                            assert val <= min(full, tay) * mpmath.exp(-eps * (zr - c)) / phic**T * (1 + 1e-20)


def test_tiny_loss_bracket():
    r"""``LaplaceProfile._tiny_loss``: :math:`x - x^2/2 \le 1 - e^{-x} \le x` for x >= 0; the mean
    of one step's X (+1, -1 or u in (-1, 1)) is at most :math:`1 - e^{-\beta}`; and
    :math:`E(S - a)_+ = T P(N' \ge k - 1) - (T + a) P(N \ge k)` for the Rademacher walk, exactly
    (rationals) for T <= 12 and several a."""
    xx = sp.Symbol("x", nonnegative=True)
    lower = 1 - sp.exp(-xx) - (xx - xx**2 / 2)  # 0 at 0, derivative e^-x - 1 + x >= 0
    assert lower.subs(xx, 0) == 0 and sp.simplify(sp.diff(lower, xx) - (sp.exp(-xx) - 1 + xx)) == 0
    upper = xx - (1 - sp.exp(-xx))  # 0 at 0, derivative 1 - e^-x >= 0
    assert upper.subs(xx, 0) == 0 and sp.simplify(sp.diff(upper, xx) - (1 - sp.exp(-xx))) == 0
    bp = sp.Symbol("beta", positive=True)
    mean = (
        sp.Rational(1, 2)
        - sp.exp(-bp) / 2
        + sp.integrate(u * bp / 4 * sp.exp(-bp / 2) * sp.exp(bp * u / 2), (u, -1, 1))
    )
    for bv in (sp.Rational(1, 10**6), sp.Rational(1, 10), sp.Integer(2)):
        assert 0 <= sp.N(mean.subs(bp, bv), 40) <= sp.N(1 - sp.exp(-bv), 40)
    for T in range(1, 13):
        for a in (Fraction(0), Fraction(1, 3), Fraction(2), Fraction(T - 1)):
            direct = sum((comb(T, n) * (2 * n - T - a) for n in range(T + 1) if 2 * n - T > a), Fraction(0)) / 2**T
            k = int((T + a) // 2) + 1

            def tail(n: int, kk: int) -> Fraction:
                return Fraction(sum(comb(n, i) for i in range(max(kk, 0), n + 1)), 2**n)

            assert direct == T * tail(T - 1, k - 1) - (T + a) * tail(T, k), (T, a)


def test_incomplete_integral_forms():
    """int_0^Y e^(lam y) y^n/n! dy: closed form (1 - e^(lam Y) sum_(r<=n) (-lam Y)^r/r!)/(-lam)^(n+1)
    and series sum_m lam^m Y^(n+m+1)/(m! n! (n+m+1))."""
    lam = sp.Rational(3, 7)
    Y = sp.Rational(5, 2)
    yv = sp.Symbol("y", positive=True)
    for n in range(5):
        exact = sp.integrate(sp.exp(lam * yv) * yv**n / factorial(n), (yv, 0, Y))
        closed = (1 - sp.exp(lam * Y) * sum((-lam * Y) ** r / factorial(r) for r in range(n + 1))) / (-lam) ** (n + 1)
        series = sum(lam**m * Y ** (n + m + 1) / (factorial(m) * factorial(n) * (n + m + 1)) for m in range(60))
        assert abs(sp.N(exact - closed, 40)) < 1e-30
        assert abs(sp.N(exact - series, 40)) < 1e-30


def test_chernoff_constant():
    """kappa(c) = max_(y > 0) (1 - e^-y) e^(-c y) = c^c/(1 + c)^(1 + c), attained at y = log(1 + 1/c)."""
    c, yv = sp.symbols("c y", positive=True)
    f = (1 - sp.exp(-yv)) * sp.exp(-c * yv)
    ystar = sp.log(1 + 1 / c)
    assert sp.simplify(sp.diff(f, yv).subs(yv, ystar)) == 0
    assert sp.simplify(f.subs(yv, ystar) - c**c / (1 + c) ** (1 + c)) == 0
    for cv in (sp.Rational(1, 100), sp.Rational(1, 2), sp.Integer(3)):
        for yv_ in (sp.Rational(1, 10), sp.Integer(1), sp.Integer(5)):
            assert sp.N(f.subs({c: cv, yv: yv_})) <= sp.N((c**c / (1 + c) ** (1 + c)).subs(c, cv)) + 1e-30


def test_binomial_remainder_and_tail_recurrence():
    """sum_(j > J) C(T,j) x^(T-j) y^j <= C(T,J+1) y^(J+1) (x + y)^(T-J-1) for x, y >= 0, and
    P(Bin(n+1,p) >= k) = P(Bin(n,p) >= k) + p P(Bin(n,p) = k-1), in exact rationals."""
    for T in range(1, 9):
        for J in range(-1, T):
            for xv, yv_ in ((Fraction(1, 3), Fraction(2, 5)), (Fraction(7, 2), Fraction(1, 9))):
                lhs = sum(comb(T, j) * xv ** (T - j) * yv_**j for j in range(J + 1, T + 1))
                assert lhs <= comb(T, J + 1) * yv_ ** (J + 1) * (xv + yv_) ** (T - J - 1)
    p = Fraction(3, 7)

    def tail(n: int, k: int) -> Fraction:
        return sum((Fraction(comb(n, i)) * p**i * (1 - p) ** (n - i) for i in range(max(k, 0), n + 1)), Fraction(0))

    for n in range(0, 9):
        for k in range(1, 10):
            pmf = Fraction(comb(n, k - 1)) * p ** (k - 1) * (1 - p) ** (n - k + 1) if k - 1 <= n else Fraction(0)
            assert tail(n + 1, k) == tail(n, k) + p * pmf


def test_atoms_closed_form():
    """The atoms-only part: sum_i C(T,i) 2^-i (e^-beta/2)^(T-i) (1 - e^(eps - beta(2i - T)))_+
    = a0^T (P(Bin(T,p) >= k) - e^eps P(Bin(T,1-p) >= k)), a0 = (1 + e^-beta)/2, p = 1/(1 + e^-beta)."""
    for bv, T, ev_ in ((sp.Rational(1, 2), 5, sp.Rational(1, 3)), (sp.Integer(2), 4, sp.Integer(3))):
        eb = sp.exp(-bv)
        k = next(i for i in range(T + 2) if i > T or bv * (2 * i - T) > ev_)
        direct = sum(
            comb(T, i) * sp.Rational(1, 2) ** i * (eb / 2) ** (T - i) * (1 - sp.exp(ev_ - bv * (2 * i - T)))
            for i in range(k, T + 1)
        )
        p = 1 / (1 + eb)
        tails = [sum(comb(T, i) * q**i * (1 - q) ** (T - i) for i in range(k, T + 1)) for q in (p, 1 - p)]
        closed = ((1 + eb) / 2) ** T * (tails[0] - sp.exp(ev_) * tails[1])
        assert abs(sp.N(direct - closed, 40)) < 1e-30


def test_hellinger_lower_bound_on_total_variation():
    """BC = int sqrt(p q) = e^(-beta/2)(1 + beta/2) for Lap(0, b) against Lap(1, b), and
    TV >= 1 - BC (pointwise |sqrt p - sqrt q| <= sqrt p + sqrt q, so
    1 - BC = (1/2) int (sqrt p - sqrt q)^2 <= (1/2) int |p - q| = TV); BC is multiplicative over
    products, so delta_T(0) = TV(P^T, Q^T) >= 1 - BC^T."""
    bp = sp.Symbol("beta", positive=True)
    k = bp / 2  # 1/(2b)
    mid = sp.integrate(k * sp.exp(-bp / 2), (x, 0, 1))
    left = sp.integrate(k * sp.exp(-bp * (1 - 2 * x) / 2), (x, -sp.oo, 0))
    right = sp.integrate(k * sp.exp(-bp * (2 * x - 1) / 2), (x, 1, sp.oo))
    assert sp.simplify(mid + left + right - sp.exp(-bp / 2) * (1 + bp / 2)) == 0
    # TV of one step = 1 - e^(-beta/2) (delta_1(0)); check TV >= 1 - BC on a few beta
    for bv in (sp.Rational(1, 100), sp.Rational(1, 2), sp.Integer(3), sp.Integer(40)):
        tv = 1 - sp.exp(-bv / 2)
        assert sp.N(tv - (1 - sp.exp(-bv / 2) * (1 + bv / 2)), 50) >= 0


def test_capped_exponential_law():
    """D = beta - loss under P: an atom 1/2 at 0, density e^(-D/2)/4 on (0, 2 beta), an atom
    e^-beta/2 at 2 beta; this is the law of min(E, 2 beta), E = 0 w.p. 1/2 and Exp(rate 1/2)
    w.p. 1/2 (the mass of the density beyond 2 beta equals the atom)."""
    bp = sp.Symbol("beta", positive=True)
    d = sp.Symbol("d", positive=True)
    # x in (0, 1) with P-density (beta/2) e^(-beta x): D = 2 beta x, density (beta/2) e^(-D/2) / (2 beta)
    assert sp.simplify((bp / 2) * sp.exp(-bp * d / (2 * bp)) / (2 * bp) - sp.exp(-d / 2) / 4) == 0
    assert sp.simplify(sp.integrate(sp.exp(-d / 2) / 4, (d, 2 * bp, sp.oo)) - sp.exp(-bp) / 2) == 0
    assert sp.simplify(sp.integrate(sp.exp(-d / 2) / 4, (d, 0, sp.oo)) - sp.Rational(1, 2)) == 0


def test_capped_model_terms():
    """For G ~ Gamma(j, rate 1/2) (G = 0 for j = 0) and y = h/2:
    E[(1 - e^(G - h))_+] = 2 sum_(k > j, k - j odd) e^-y y^k / k!, and summed against
    Bin(T, 1/2): sum_j C(T,j) 2^-T 2 [j < k, j != k mod 2] = F(k - 1) + C(T-1, k-1) 2^-T."""
    yv = sp.Symbol("y", positive=True)
    g = sp.Symbol("g", positive=True)
    for j in range(0, 6):
        if j == 0:
            lhs = 1 - sp.exp(-2 * yv)
        else:
            dens = g ** (j - 1) * sp.exp(-g / 2) / (sp.factorial(j - 1) * 2**j)
            lhs = sp.integrate((1 - sp.exp(g - 2 * yv)) * dens, (g, 0, 2 * yv))
        # 2 sum_(k = j+1, j+3, ...) y^k/k! = e^y - (-1)^j e^-y - 2 sum_(k < j, k = j+1 mod 2) y^k/k!
        odd = (
            sp.exp(yv)
            - (-1) ** j * sp.exp(-yv)
            - 2 * sum((yv**k / sp.factorial(k) for k in range(j) if (k - j) % 2 == 1), sp.Integer(0))
        )
        assert sp.simplify(lhs - sp.exp(-yv) * odd) == 0, j
    for T in range(1, 9):
        b = [Fraction(comb(T, j), 2**T) for j in range(T + 1)]
        for k in range(1, T + 4):
            lhs = sum((2 * b[j] for j in range(min(k, T + 1)) if (k - j) % 2 == 1), Fraction(0))
            F = sum(b[: min(k, T + 1)], Fraction(0))
            c = Fraction(comb(T - 1, k - 1), 2**T) if k - 1 <= T - 1 else Fraction(0)
            assert lhs == F + c <= 1


def test_capped_model_matches_mixture():
    """The capped model summed over k against the exact T-fold expression (h <= 2 beta: the cap
    changes nothing), in high precision."""
    for bv, T, ev_ in ((Fraction(1), 3, Fraction(3, 2)), (Fraction(5, 2), 2, Fraction(7, 2))):
        h = T * bv - ev_
        assert 0 < h <= 2 * bv
        with mpmath.workdps(40):
            y = mpmath.mpf(h.numerator) / h.denominator / 2
            model = mpmath.mpf(0)
            for k in range(1, 120):  # the Poisson(y <= 2) tail beyond 120 is below 1e-150
                f = sum((Fraction(comb(T, jj), 2**T) for jj in range(min(k, T + 1))), Fraction(0))
                if k - 1 <= T - 1:
                    f += Fraction(comb(T - 1, k - 1), 2**T)
                model += mpmath.exp(-y) * y**k / mpmath.factorial(k) * mpmath.mpf(f.numerator) / f.denominator
            exact = sp.N(laplace_delta_exact(1 / bv, T, ev_), 40)
            assert abs(model - mpmath.mpf(str(exact))) < mpmath.mpf(10) ** -30, (bv, T, ev_)


if __name__ == "__main__":
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the T-fold Laplace loss law"))
