r"""Checks (sympy, exact where possible; mpmath where not) of every step used by
:mod:`rigorous_rdp.subsampling.random_allocation` (random allocation / balls-and-bins, k = 1, of
the Gaussian mechanism, add/remove adjacency).

Run as a script or collected by pytest.  The steps, in the notation of the module docstring
(:math:`s = 1/\sigma`, :math:`y \sim N(0, I_t)`, :math:`Y_i = e^{s y_i - s^2/2}`,
:math:`L = \frac1t\sum_i Y_i`, :math:`M_n = e^{n(n-1)s^2/2}`):

1. The likelihood ratio of the pair :math:`P = \frac1t\sum_i N(e_i, \sigma^2 I)`,
   :math:`Q = N(0, \sigma^2 I)` at :math:`x = \sigma y` is :math:`L`.
2. :math:`\mathbb{E}[Y^n] = M_n`.
3. The remove-direction moment, four ways, equal as exact rational functions of
   :math:`q = e^{s^2/2}`: the multinomial expansion of :math:`\mathbb{E}[(\sum_i Y_i)^\alpha]`,
   the series :math:`\alpha![x^\alpha]\tilde F^t` of the module, the sum over integer partitions
   (the form of Feldman & Shenfeld), and the form :math:`t^{-\alpha}e^{-\alpha s^2/2}\alpha![x^\alpha]F^t`,
   :math:`F = \sum_n e^{n^2 s^2/2}x^n/n!`, stated in issue 25.
4. The same moment against quadrature of the definition in t = 2 dimensions, and the
   rotation that reduces the t = 2 integral to one dimension (used by the mpmath reference).
5. The Gamma-function identity :math:`L^{-m} = \Gamma(m)^{-1}\int_0^\infty u^{m-1}e^{-uL}du` and
   the change of variables that turns :math:`\mathbb{E}[L^{-m}]` into
   :math:`\Gamma(m)^{-1}\int_0^\infty w^{m-1}\varphi(w/t)^t dw`; checked against quadrature at t = 2.
6. :math:`e^{-u} \le \sum_{j \le 2K}(-u)^j/j!` for :math:`u \ge 0` (induction on K through the
   derivative identities, checked symbolically), hence :math:`\varphi \le p_K` (checked on a grid).
7. The tail: :math:`\Gamma(m)^{-1}\int_0^\infty w^{m-1}\varphi(w/t)^{t_1}dw = (t/t_1)^m\mathbb{E}[L_{t_1}^{-m}]`
   and the geometric-mean bound :math:`\mathbb{E}[L_{t_1}^{-m}] \le e^{m s^2/2 + m^2 s^2/(2t_1)}`.
8. t = 1 is the Gaussian mechanism: both directions equal :math:`\alpha s^2/2`.
9. :math:`\log\mathbb{E}_Q[L^{1-\alpha}]` is convex in :math:`\alpha` (Hoelder; checked on quadrature
   values), which justifies interpolating the add-direction bound between grid orders.
10. :math:`k > 1` (random :math:`k`-of-:math:`t` allocation, pair
    :math:`P_k = \binom{t}{k}^{-1}\sum_{|S|=k} N(\sum_{i\in S}e_i, \sigma^2 I)`, :math:`Q = N(0, \sigma^2 I)`,
    likelihood ratio :math:`L_k = \binom{t}{k}^{-1}\sum_{|S|=k}\prod_{i\in S}Y_i`).  Cut the positions
    :math:`1..t` into :math:`k` consecutive blocks (sizes :math:`\lfloor t/k\rfloor` or one more),
    draw a uniform permutation :math:`\pi` of the steps and one uniform position in each block:
    the set of steps chosen is a uniform :math:`k`-subset (checked by exact enumeration), so
    :math:`L_k = \mathbb{E}_\pi[\prod_{\text{blocks } B} L_{\pi(B)}]` with :math:`L_{\pi(B)}` the mean
    of the :math:`Y_i` over the steps of block :math:`B` (checked as an exact identity of
    polynomials in :math:`Y_1..Y_t`).  For every :math:`\beta` with :math:`x \mapsto x^\beta` convex on
    :math:`(0, \infty)` (:math:`\beta = \alpha > 1`: remove; :math:`\beta = 1 - \alpha < 0`: add)
    Jensen's inequality and the independence of the blocks' coordinates give
    :math:`\mathbb{E}_Q[L_k^\beta] \le \mathbb{E}_\pi \prod_B \mathbb{E}[L_{\pi(B)}^\beta] =
    \prod_B \mathbb{E}[L_{|B|}^\beta]`, so each direction's RDP is at most the sum over the blocks
    of the one-step-per-block (:math:`k = 1`) values; checked exactly (remove direction, as
    polynomials in :math:`q`) at small :math:`t`.  The reduction of DP-SGD with random allocation to
    this pair is Feldman & Shenfeld's (taken from the paper, not checked here), as for :math:`k = 1`.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import pytest
import sympy as sp

from rigorous_rdp.reference import random_allocation as ref

s = sp.symbols("s", positive=True)
q = sp.symbols("q", positive=True)  # q = exp(s^2 / 2)
xx = sp.symbols("x")


def test_likelihood_ratio_is_mean_of_lognormals():
    """Step 1 (t = 2, 3): the density ratio of the mixture of N(e_i, sigma^2 I) to N(0, sigma^2 I)."""
    sigma = 1 / s
    for t in (2, 3):
        ys = sp.symbols(f"y1:{t + 1}", real=True)
        xs = [sigma * y for y in ys]

        def density(mean, xs=xs):
            return sp.exp(-sum((xi - mi) ** 2 for xi, mi in zip(xs, mean, strict=True)) / (2 * sigma**2))

        zero = [0] * t
        mixture = sum(density([1 if j == i else 0 for j in range(t)]) for i in range(t)) / t
        ratio = mixture / density(zero)
        target = sum(sp.exp(s * y - s**2 / 2) for y in ys) / t
        assert sp.simplify(sp.expand(sp.powsimp(ratio - target, force=True))) == 0, t


def test_lognormal_moments():
    """Step 2: E[exp(n(s z - s^2/2))] = exp(n(n-1)s^2/2), z ~ N(0, 1), n = 0..5."""
    z = sp.symbols("z", real=True)
    for n in range(6):
        integral = sp.integrate(sp.exp(n * (s * z - s**2 / 2) - z**2 / 2) / sp.sqrt(2 * sp.pi), (z, -sp.oo, sp.oo))
        assert sp.simplify(integral - sp.exp(n * (n - 1) * s**2 / 2)) == 0, n


def _moment_multinomial(alpha: int, t: int) -> sp.Expr:
    """E[(sum Y_i / t)^alpha] by expanding the power and replacing each prod Y_i^{n_i} by prod M_{n_i}."""
    ys = sp.symbols(f"Y1:{t + 1}")
    poly = sp.Poly(sp.expand(sum(ys) ** alpha), *ys)
    total = sp.Integer(0)
    for exps, coeff in poly.terms():
        total += coeff * sp.Mul(*[q ** (n * (n - 1)) for n in exps])
    return sp.expand(total / sp.Integer(t) ** alpha)


def _moment_series(alpha: int, t: int) -> sp.Expr:
    """alpha! [x^alpha] (sum_n M_n x^n / (n! t^n))^t (the module's series)."""
    f = sum(q ** (n * (n - 1)) * xx**n / (sp.factorial(n) * sp.Integer(t) ** n) for n in range(alpha + 1))
    return sp.expand(sp.factorial(alpha) * sp.expand(f**t).coeff(xx, alpha))


def _moment_partitions(alpha: int, t: int) -> sp.Expr:
    """The sum over integer partitions (Feldman & Shenfeld's form), e^{s^2 sum p^2 / 2} = q^{sum p^2}."""
    total = sp.Integer(0)
    for lam in ref.integer_partitions(alpha):
        ell = len(lam)
        if ell > t:
            continue
        places = sp.factorial(t) / sp.factorial(t - ell)
        for c in {p: lam.count(p) for p in lam}.values():
            places /= sp.factorial(c)
        multinomial = sp.factorial(alpha)
        for p in lam:
            multinomial /= sp.factorial(p)
        total += places * multinomial * q ** sum(p * p for p in lam)
    return sp.expand(total / (sp.Integer(t) ** alpha * q**alpha))


def _moment_issue_form(alpha: int, t: int) -> sp.Expr:
    """t^{-alpha} e^{-alpha s^2/2} alpha! [x^alpha] F^t with F = sum_n e^{n^2 s^2/2} x^n / n! (issue 25)."""
    f = sum(q ** (n * n) * xx**n / sp.factorial(n) for n in range(alpha + 1))
    return sp.expand(sp.factorial(alpha) * sp.expand(f**t).coeff(xx, alpha) / (sp.Integer(t) ** alpha * q**alpha))


def test_remove_moment_four_forms_agree_exactly():
    """Step 3: the four forms agree as polynomials in q for t = 1..4, alpha = 2..6."""
    for t, alpha in itertools.product(range(1, 5), range(2, 7)):
        direct = _moment_multinomial(alpha, t)
        assert sp.expand(direct - _moment_series(alpha, t)) == 0, (t, alpha)
        assert sp.expand(direct - _moment_partitions(alpha, t)) == 0, (t, alpha)
        assert sp.expand(direct - _moment_issue_form(alpha, t)) == 0, (t, alpha)


def _definition_t2(beta, sigma, dps=15):
    """E_Q[L^beta] at t = 2 as the plain 2-D integral of the definition (no rotation)."""
    with mpmath.workdps(dps):
        sv = 1 / mpmath.mpf(sigma)
        g = 1 / (2 * mpmath.pi)

        def f(y1, y2):
            lr = (mpmath.exp(sv * y1 - sv * sv / 2) + mpmath.exp(sv * y2 - sv * sv / 2)) / 2
            return g * mpmath.exp(-(y1 * y1 + y2 * y2) / 2) * lr**beta

        cuts = [-mpmath.inf, -3, 0, 3, mpmath.inf]
        return mpmath.quad(f, cuts, cuts)


def test_t2_series_against_the_rotated_quadrature():
    """Step 4a: at t = 2 the exact moment (q = e^{s^2/2}) equals the rotated 1-D quadrature of the
    mpmath reference, alpha = 2..6, sigma = 1.3."""
    with mpmath.workdps(40):
        sigma = mpmath.mpf(13) / 10
        qv = sp.Float(mpmath.nstr(mpmath.exp(1 / (2 * sigma**2)), 35), 35)
    with mpmath.workdps(20):
        for alpha in range(2, 7):
            exact = mpmath.mpf(str(sp.N(_moment_series(alpha, 2).subs(q, qv), 30)))
            assert abs(ref.moment_by_quadrature(alpha, sigma, 2, dps=20) / exact - 1) < 1e-15, alpha


@pytest.mark.slow
def test_t2_rotation_against_the_definition():
    """Step 4b (slow, 30 s): the rotated 1-D reference equals the plain 2-D quadrature of the
    definition at t = 2, sigma = 1.3, for beta = 3 (remove) and beta = -2 (add, alpha = 3)."""
    sigma = mpmath.mpf("1.3")
    with mpmath.workdps(15):
        for beta in (3, -2):
            d = _definition_t2(beta, sigma)
            assert abs(ref.moment_by_quadrature(beta, sigma, 2, dps=15) / d - 1) < 1e-10, beta


def test_gamma_identity_and_laplace_form():
    """Step 5: the Gamma identity (sympy, m = 1..4) and the Laplace form of E[L^{-m}] (t = 2,
    against the quadrature reference, m = 2)."""
    u, lv = sp.symbols("u L", positive=True)
    for m in range(1, 5):
        integral = sp.integrate(u ** (m - 1) * sp.exp(-u * lv), (u, 0, sp.oo))
        assert sp.simplify(integral - sp.gamma(m) / lv**m) == 0, m
    for alpha in (3,):
        with mpmath.workdps(20):
            lap = ref.add_moment_laplace(alpha, 1, 2, dps=15, nodes=60)
            quad = ref.moment_by_quadrature(1 - alpha, 1, 2, dps=15)
            assert abs(lap / quad - 1) < 1e-10, (alpha, lap, quad)


def _taylor(u, n):
    return sum((-u) ** j / sp.factorial(j) for j in range(n + 1))


def test_even_taylor_truncation_bounds_exp_from_above():
    """Step 6a: g_K = T_{2K} - e^{-u} has g_K(0) = 0, g_K' = h_K with h_K(0) = 0 and h_K' = g_{K-1},
    g_0 = 1 - e^{-u} >= 0 on u >= 0; so g_K >= 0 by induction (two integrations from 0 of a
    non-negative function).  Identities checked for K = 1..5; values on a grid."""
    u = sp.symbols("u", nonnegative=True)
    for k in range(1, 6):
        g = _taylor(u, 2 * k) - sp.exp(-u)
        h = sp.diff(g, u)
        assert g.subs(u, 0) == 0 and h.subs(u, 0) == 0
        assert sp.simplify(sp.diff(h, u) - (_taylor(u, 2 * k - 2) - sp.exp(-u))) == 0
    for k in range(1, 4):
        for uv in [mpmath.mpf(i) / 7 for i in range(0, 200)]:
            tk = mpmath.fsum((-uv) ** j / mpmath.factorial(j) for j in range(2 * k + 1))
            assert tk - mpmath.exp(-uv) >= 0, (k, uv)


def test_laplace_transform_below_taylor_polynomial():
    """Step 6b: phi(v) = E[exp(-v Y)] <= p_K(v) = sum_{j <= 2K} (-v)^j M_j / j! on a grid of v,
    K = 1, 2, 3, sigma in {0.7, 1, 2} (phi by Gauss-Hermite at 30 digits)."""
    with mpmath.workdps(30):
        x, w = mpmath.gauss_quadrature(80, "hermite")
        for sigma in (mpmath.mpf("0.7"), mpmath.mpf(1), mpmath.mpf(2)):
            sv = 1 / sigma
            ys = [mpmath.exp(sv * mpmath.sqrt(2) * xi - sv * sv / 2) for xi in x]
            for vv in [mpmath.mpf(i) / 40 for i in range(1, 40)]:
                phi = mpmath.fsum(wi * mpmath.exp(-vv * yi) for wi, yi in zip(w, ys, strict=True)) / mpmath.sqrt(
                    mpmath.pi
                )
                for k in (1, 2, 3):
                    p = mpmath.fsum(
                        (-vv) ** j * mpmath.exp(j * (j - 1) * sv * sv / 2) / mpmath.factorial(j)
                        for j in range(2 * k + 1)
                    )
                    assert phi <= p, (sigma, vv, k)


def test_tail_substitution_and_geometric_mean_bound():
    """Step 7: the substitution w = (t/t1) w' (symbolic, for a generic phi), and
    E[exp(-m s ybar)] = exp(m^2 s^2/(2 t1)) for ybar ~ N(0, 1/t1), so that the geometric-mean
    bound is exp(m s^2/2 + m^2 s^2/(2 t1)); also the t-step AM-GM bound (Feldman & Shenfeld's
    add-direction RDP (alpha + t - 1)/(2 t sigma^2)) is log of it over m at t1 = t."""
    w, wp, t, t1, m = sp.symbols("w wp t t1 m", positive=True)
    phi = sp.Function("phi")
    lhs_integrand = w ** (m - 1) * phi(w / t) ** t1
    substituted = lhs_integrand.subs(w, t / t1 * wp) * sp.diff(t / t1 * wp, wp)
    target = (t / t1) ** m * wp ** (m - 1) * phi(wp / t1) ** t1
    assert sp.simplify(sp.powsimp(substituted / target, force=True)) == 1
    ybar = sp.symbols("ybar", real=True)
    density = sp.sqrt(t1 / (2 * sp.pi)) * sp.exp(-t1 * ybar**2 / 2)
    mgf = sp.integrate(sp.exp(-m * s * ybar) * density, (ybar, -sp.oo, sp.oo), conds="none")
    assert sp.simplify(mgf - sp.exp(m**2 * s**2 / (2 * t1))) == 0
    bound = (m * s**2 / 2 + m**2 * s**2 / (2 * t)) / m
    alpha = m + 1
    assert sp.simplify(bound - (alpha + t - 1) * s**2 / (2 * t)) == 0


def test_log_moment_is_convex_in_the_order():
    """Step 9 (used to interpolate the add bound between orders): g(alpha) = log E_Q[L^(1-alpha)] is
    convex (Hoelder); second differences of the t = 2 quadrature reference are positive."""
    with mpmath.workdps(20):
        g = [mpmath.log(ref.moment_by_quadrature(1 - a, 1, 2, dps=20)) for a in range(2, 9)]
        for k in range(1, len(g) - 1):
            assert g[k - 1] - 2 * g[k] + g[k + 1] > 0, k


def test_one_step_is_the_gaussian_mechanism():
    """Step 8: at t = 1, E[L^beta] = exp(beta(beta-1)s^2/2): both directions give alpha s^2 / 2."""
    beta, a = sp.symbols("beta alpha", real=True)
    moment = sp.exp(beta * (beta - 1) * s**2 / 2)
    remove = sp.log(moment.subs(beta, a)) / (a - 1)
    add = sp.log(moment.subs(beta, 1 - a)) / (a - 1)
    assert sp.simplify(sp.expand_log(remove, force=True) - a * s**2 / 2) == 0
    assert sp.simplify(sp.expand_log(add, force=True) - a * s**2 / 2) == 0
    assert math.isclose(float(ref.remove_rdp_quadrature(5, 2, 1)), 5 / 8, rel_tol=1e-12)


def _blocks(t: int, k: int) -> list[list[int]]:
    """Consecutive blocks of positions 0..t-1: k - r of size t // k, then r of size t // k + 1."""
    m, r = divmod(t, k)
    sizes = [m] * (k - r) + [m + 1] * r
    out, start = [], 0
    for size in sizes:
        out.append(list(range(start, start + size)))
        start += size
    return out


def test_permutation_and_one_per_block_give_a_uniform_subset():
    """Step 10: the chosen set is a uniform k-subset of the t steps (exact, t <= 5, every k)."""
    from fractions import Fraction

    for t in range(1, 6):
        for k in range(1, t + 1):
            blocks = _blocks(t, k)
            law: dict[frozenset[int], Fraction] = {}
            perms = list(itertools.permutations(range(t)))
            picks = list(itertools.product(*blocks))
            w = Fraction(1, len(perms) * len(picks))
            for perm in perms:
                for pick in picks:
                    chosen = frozenset(perm[i] for i in pick)
                    law[chosen] = law.get(chosen, Fraction(0)) + w
            assert len(law) == math.comb(t, k) and set(law.values()) == {Fraction(1, math.comb(t, k))}, (t, k)


def test_k_of_t_ratio_is_a_mixture_of_block_products():
    """Step 10: L_k = E_pi[prod_B mean_{i in pi(B)} Y_i] as polynomials in Y_1..Y_t (t <= 5)."""
    for t in range(1, 6):
        ys = sp.symbols(f"Y1:{t + 1}")
        for k in range(1, t + 1):
            lk = sum(sp.Mul(*[ys[i] for i in sub]) for sub in itertools.combinations(range(t), k))
            lk = lk / math.comb(t, k)
            perms = list(itertools.permutations(range(t)))
            mix = sp.Integer(0)
            for perm in perms:
                mix += sp.Mul(*[sum(ys[perm[i]] for i in b) / len(b) for b in _blocks(t, k)])
            assert sp.expand(lk - mix / len(perms)) == 0, (t, k)


def _moment_k_of_t(alpha: int, t: int, k: int) -> sp.Expr:
    """E[L_k^alpha] exactly (polynomial in q), by expanding and replacing Y^n by M_n = q^{n(n-1)}."""
    ys = sp.symbols(f"Y1:{t + 1}")
    lk = sum(sp.Mul(*[ys[i] for i in sub]) for sub in itertools.combinations(range(t), k))
    poly = sp.Poly(sp.expand(lk**alpha), *ys)
    total = sp.Integer(0)
    for exps, coeff in poly.terms():
        total += coeff * sp.Mul(*[q ** (n * (n - 1)) for n in exps])
    return sp.expand(total / sp.Integer(math.comb(t, k)) ** alpha)


def test_k_of_t_remove_moment_below_block_product():
    """Step 10: E[L_k^alpha] <= prod_B E[L_{|B|}^alpha] (the difference is a polynomial in q that is
    nonnegative for q >= 1: checked exactly at q = 1 (equality) and by its coefficients after
    the substitution q = 1 + u)."""
    u = sp.symbols("u", nonnegative=True)
    for t, k in [(3, 2), (4, 2), (5, 2), (5, 3)]:
        for alpha in (2, 3, 4):
            lhs = _moment_k_of_t(alpha, t, k)
            rhs = sp.Integer(1)
            for b in _blocks(t, k):
                rhs *= _moment_series(alpha, len(b))
            diff = sp.Poly(sp.expand((rhs - lhs).subs(q, 1 + u)), u)
            assert all(c >= 0 for c in diff.coeffs()), (t, k, alpha)
            assert sp.expand((rhs - lhs).subs(q, 1)) == 0, (t, k, alpha)


if __name__ == "__main__":
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the random-allocation RDP derivation"))
