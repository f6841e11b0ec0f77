r"""Leading-order expansions of the Conjecture 1 ratio (blog part 2) as r -> 0 and lambda -> 1.

Notation of :mod:`rigorous_rdp.research.conjecture`: :math:`p = q + r\Delta` with :math:`\int\Delta = 0`
(for fixed-size sampling with ``m = 1`` and the other rows at ``c``:
:math:`q = (1-r)\varphi_c + r\varphi_{u'}`, :math:`\Delta = \varphi_u - \varphi_{u'}`), and
:math:`M_k = \int \Delta^k q^{1-k}`.  Checked here with sympy:

1. (formal expansion in r) :math:`G_\lambda(p\|q) = \int q(1 + r\Delta/q)^\lambda
   = 1 + \binom\lambda2 r^2M_2 + O(r^3)`, hence
   :math:`D_\lambda = \log G/(\lambda-1) = \tfrac\lambda2 r^2 M_2 + O(r^3)` for every real
   :math:`\lambda > 1`, and the limit :math:`\lambda\to1` of the leading term is the leading term of
   the KL divergence, :math:`\tfrac12 r^2 M_2` (computed separately from
   :math:`\int p\log(p/q)`).  So as :math:`r\to0` the ratio LHS/RHS tends to
   :math:`M_2^{\rm LHS}/M_2^{\rm RHS}` whatever :math:`\lambda` (including :math:`\lambda\to1`).
2. (Gaussian integral) :math:`\int\varphi_\sigma(y-a)\varphi_\sigma(y-b)/\varphi_\sigma(y)\,dy
   = e^{ab/\sigma^2}` in 1-d, hence :math:`e^{\langle a,b\rangle/\sigma^2}` in
   :math:`\mathbb R^d` (product over coordinates).  With :math:`q \to \varphi_c` as :math:`r\to0`:
   :math:`M_2^{\rm LHS} \to e^{|a|^2x} + e^{|b|^2x} - 2e^{\langle a,b\rangle x}` (:math:`a = u-c`,
   :math:`b = u'-c`, :math:`x = \sigma^{-2}`) and :math:`M_2^{\rm RHS} = e^x - 1`.
3. For the equilateral triangle (:math:`|a| = |b| = 1`, :math:`\langle a,b\rangle = 1/2`, admitted by the
   ``range`` model in :math:`d\ge2`) the limit ratio is :math:`2e^{x/2}/(1+e^{x/2}) > 1` for every
   :math:`x > 0`; in 1-d the extremal pair (:math:`a = 1`, :math:`b = 0`) gives exactly 1.

Items 1-2 are leading-order statements (the numerical check against the float screen is in
``tests/test_conjecture.py::test_limit_r0_matches_screen_and_exceeds_one``); the proven violations
rest on the certified computations, not on this expansion.
"""

import sympy as sp

r, lam, t = sp.symbols("r lambda t", positive=True)
M2, M3 = sp.symbols("M2 M3", real=True)


def test_renyi_expansion_in_r():
    # G = 1 + sum_k binom(lam, k) r^k M_k with M_1 = 0 (int Delta = 0)
    G = 1 + sp.binomial(lam, 2) * r**2 * M2 + sp.binomial(lam, 3) * r**3 * M3
    D = sp.log(sp.expand_func(G)) / (lam - 1)
    lead = sp.simplify(sp.series(D, r, 0, 3).removeO())
    assert sp.simplify(lead - lam * r**2 * M2 / 2) == 0


def test_binomial_series_of_integrand():
    # q (1 + r Delta / q)^lam expanded in r: the r^2 coefficient is binom(lam, 2) Delta^2 / q
    Dl, q = sp.symbols("Delta q", positive=True)
    f = q * (1 + r * Dl / q) ** lam
    c2 = sp.series(f, r, 0, 3).removeO().coeff(r, 2)
    assert sp.simplify(c2 - lam * (lam - 1) / 2 * Dl**2 / q) == 0


def test_kl_leading_order_is_lambda_to_one_limit():
    # KL(q + r Delta || q) = int (q + r Delta) log(1 + r Delta/q): r^2 coefficient Delta^2/(2 q)
    Dl, q = sp.symbols("Delta q", positive=True)
    f = (q + r * Dl) * sp.log(1 + r * Dl / q)
    c2 = sp.series(f, r, 0, 3).removeO().coeff(r, 2)
    assert sp.simplify(c2 - Dl**2 / (2 * q)) == 0
    assert sp.limit(lam * M2 / 2, lam, 1) == M2 / 2


def test_gaussian_cross_integral():
    y, a, b = sp.symbols("y a b", real=True)
    s = sp.symbols("sigma", positive=True)

    def phi(z):
        return sp.exp(-(z**2) / (2 * s**2)) / sp.sqrt(2 * sp.pi * s**2)

    val = sp.integrate(sp.simplify(phi(y - a) * phi(y - b) / phi(y)), (y, -sp.oo, sp.oo))
    assert sp.simplify(val - sp.exp(a * b / s**2)) == 0


def test_limit_ratios():
    x = sp.symbols("x", positive=True)

    def m2(aa, bb, ab):
        return sp.exp(aa * x) + sp.exp(bb * x) - 2 * sp.exp(ab * x)

    rhs = sp.exp(x) - 1
    assert sp.simplify(m2(1, 0, 0) - rhs) == 0  # 1-d extremal pair: ratio 1
    tri = sp.simplify(m2(1, 1, sp.Rational(1, 2)) / rhs)
    assert sp.simplify(tri - 2 * sp.exp(x / 2) / (1 + sp.exp(x / 2))) == 0
    # > 1 for x > 0: 2e^{x/2} - (1 + e^{x/2}) = e^{x/2} - 1 > 0
    assert sp.simplify(2 * sp.exp(x / 2) - 1 - sp.exp(x / 2) - (sp.exp(x / 2) - 1)) == 0
    assert sp.limit(tri, x, sp.oo) == 2 and sp.limit(tri, x, 0) == 1


if __name__ == "__main__":  # pragma: no cover
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the Conjecture 1 limits"))
