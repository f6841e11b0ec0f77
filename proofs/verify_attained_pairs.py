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
int (p_1 - gamma q_1)_+ * int g.  Swapping D and D' (also neighbours) gives the swapped pair.

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


if __name__ == "__main__":  # pragma: no cover
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the attained replace-one pairs of pld.pairs"))
