r"""Attained pairs of the replace-one Gaussian rows: certified LOWER ends (issue 23).

The PLD accountant bounds the replace-one rows (Poisson, fixed-size without replacement) by the
pair V, which only dominates them.  A lower end of the *mechanism's* optimal epsilon comes from
any fixed pair of neighbouring datasets D, D': the T-fold mechanism on (D, D') outputs the product
of T independent copies of the one-step output pair, so its epsilon(delta) is at most the optimal
one.  :func:`rigorous_rdp.pld.pairs.attained_replace_one` names these datasets (records in the
ball of radius C of R^d, Gaussian noise N(0, sigma^2 C^2 I_d) on the batch sum):

* fixed-size without replacement, B of N: D = {a, -a, ..., -a}, D' = {-a, ..., -a}, a = C e_1.
  The batch sum is (2 - B)a when a is drawn (probability B/N) and -Ba otherwise under D, always
  -Ba under D'.  Shifted by Ba and scaled by 1/(2C): (q N(1, s^2) + (1-q) N(0, s^2), N(0, s^2))
  in the first coordinate with s = sigma/2, q = B/N.
* Poisson with probability q: D = {C e_1, 0, ..., 0}, D' = {0, ..., 0}: scaled by 1/C, the same
  pair with s = sigma.

The other coordinates of the output carry the same independent noise under both datasets (the
records have no component there), so the densities factorise as p_1(x_1) g(x') and q_1(x_1) g(x')
and every hockey-stick divergence is that of the first coordinate: int (p_1 g - gamma q_1 g)_+ =
int (p_1 - gamma q_1)_+ * int g.  Swapping D and D' (also neighbours: replace-one is symmetric) gives
the swapped pair, the "add" profile of ``attained_replace_one``.  So both directions are attained by
the same two datasets, one in each role, and the mechanism's epsilon(delta) is at least the LARGER of
the two composed directions' (the accountant's lower end is the maximum of the directions' lower ends).
Mixing the roles across steps (k steps of (P, Q), T - k of (Q, P), attainable adaptively) is a further
attained pair; a float probe at Birrell et al. Fig. 3 finds its epsilon increasing in k, so the pure
direction is the largest there (docs/explanations/pld-coverage.md).

The checks enumerate the batches exactly (sympy rationals / symbols) and verify the laws of the
batch sums, and the factorisation identity symbolically.  Run as a script or collected by pytest.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import sympy as sp


def _fswor_sum_law(records: list[int], batch: int) -> dict[int, Fraction]:
    """Law of the batch sum (in units of C along e_1) of a uniform batch without replacement."""
    subsets = list(combinations(range(len(records)), batch))
    law: dict[int, Fraction] = {}
    for s in subsets:
        tot = sum(records[i] for i in s)
        law[tot] = law.get(tot, Fraction(0)) + Fraction(1, len(subsets))
    return law


def test_fswor_configuration_gives_the_poisson_pair_at_half_sigma():
    """D = {a, -a x (N-1)}, D' = {-a x N}: shifted by B a and scaled by 1/(2C) the batch sums are
    1 with probability B/N (else 0) under D and 0 under D'; the noise sigma C becomes sigma/2."""
    for n in range(2, 8):
        for b in range(1, n + 1):
            d = _fswor_sum_law([1] + [-1] * (n - 1), b)
            d2 = _fswor_sum_law([-1] * n, b)
            shifted = {Fraction(k + b, 2): p for k, p in d.items()}
            shifted2 = {Fraction(k + b, 2): p for k, p in d2.items()}
            q = Fraction(b, n)
            want = {Fraction(1): q, Fraction(0): 1 - q} if q < 1 else {Fraction(1): Fraction(1)}
            assert shifted == want, (n, b, shifted)
            assert shifted2 == {Fraction(0): Fraction(1)}
            # the records lie in the ball and D, D' differ in one record (replace-one)
            dd, dd2 = [1] + [-1] * (n - 1), [-1] * n
            assert dd[1:] == dd2[1:] and dd[0] != dd2[0]


def test_poisson_configuration_gives_the_poisson_pair():
    """D = {C e_1, 0 x (N-1)}, D' = {0 x N} under Poisson sampling: the sum is C with probability
    q (else 0) under D and 0 under D' (symbolic q, every subset enumerated)."""
    q = sp.Symbol("q", positive=True)
    for n in range(1, 6):
        law: dict[int, sp.Expr] = {}
        for k in range(n + 1):
            for s in combinations(range(n), k):
                tot = sum(1 if i == 0 else 0 for i in s)
                law[tot] = law.get(tot, 0) + q**k * (1 - q) ** (n - k)
        assert sp.simplify(law[1] - q) == 0
        assert sp.simplify(law[0] - (1 - q)) == 0


def test_other_coordinates_do_not_change_the_divergence():
    """p_1(x) g(y) - gamma q_1(x) g(y) has the sign of p_1 - gamma q_1 (g > 0), so its positive part
    integrates to int (p_1 - gamma q_1)_+ times int g = 1 (Gaussian g, symbolic)."""
    x, y, gam = sp.symbols("x y gamma", real=True)
    sd = sp.Symbol("s", positive=True)
    g = sp.exp(-(y**2) / (2 * sd**2)) / sp.sqrt(2 * sp.pi * sd**2)
    assert sp.simplify(sp.integrate(g, (y, -sp.oo, sp.oo)) - 1) == 0
    p1, q1 = sp.Function("p1")(x), sp.Function("q1")(x)
    assert sp.simplify(p1 * g - gam * q1 * g - (p1 - gam * q1) * g) == 0


def test_swapped_datasets_attain_the_add_profile():
    """(D', D) are replace-one neighbours too, and their output pair is (Q, P): the batch-sum laws of the
    fixed-size configuration with the roles swapped, and the "add" profile of ``attained_replace_one``
    equal to int (Q - e^eps P)_+ by mpmath quadrature of the densities (remove: int (P - e^eps Q)_+)."""
    import mpmath
    from flint import ctx

    from rigorous_rdp.pld.pairs import attained_replace_one

    dd, dd2 = [1, -1, -1, -1], [-1, -1, -1, -1]
    assert dd2[1:] == dd[1:] and dd2[0] != dd[0]  # the swapped order differs in one record as well
    assert _fswor_sum_law(dd2, 2) == {-2: Fraction(1)} and _fswor_sum_law(dd, 2) == {
        0: Fraction(1, 2),
        -2: Fraction(1, 2),
    }
    q, s = Fraction(3, 10), Fraction(1, 2)
    rem, add = attained_replace_one(q, s)
    mpmath.mp.dps = 30
    qq, ss = mpmath.mpf(3) / 10, mpmath.mpf(1) / 2

    def p(x):
        return qq * mpmath.npdf(x, 1, ss) + (1 - qq) * mpmath.npdf(x, 0, ss)

    def qd(x):
        return mpmath.npdf(x, 0, ss)

    for eps in (Fraction(0), Fraction(1, 20), Fraction(1, 5), Fraction(-1, 10)):
        g = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        pts = [-8, -1, 0, mpmath.mpf(1) / 2, 1, 2, 9]
        for c in (g, 1 / g):  # the kinks of the integrands: where P = c Q
            if c > 1 - qq:
                pts.append(ss**2 * mpmath.log((c - 1 + qq) / qq) + mpmath.mpf(1) / 2)
        pts.sort()
        want_rem = mpmath.quad(lambda x, g=g: max(p(x) - g * qd(x), 0), pts)
        want_add = mpmath.quad(lambda x, g=g: max(qd(x) - g * p(x), 0), pts)
        old = ctx.prec
        ctx.prec = 100
        try:
            got_rem, got_add = rem.oracle(eps).delta, add.oracle(eps).delta
        finally:
            ctx.prec = old
        for got, want in ((got_rem, want_rem), (got_add, want_add)):
            assert abs(mpmath.mpf(got.mid().str(25, radius=False)) - want) < mpmath.mpf(10) ** -12, (eps, got, want)


if __name__ == "__main__":  # pragma: no cover
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the attained replace-one pairs of pld.pairs"))
