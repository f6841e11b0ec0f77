r"""Symbolic check of the variance algebra of Birrell et al., section 4.1 and Appendix F.

Seed: ``004_85a5147f28f95754.txt`` (Birrell, Ebrahimi, Behnia, Pacheco, "DP-SGD
with Fixed-Size Minibatches").  For values :math:`a_1,\dots,a_{|D|}`, with
:math:`n = |D|`, :math:`b = |B|`, :math:`q = b/n`, :math:`S_1 = \sum a_i`,
:math:`S_2 = \sum a_i^2`, :math:`\bar a = S_1/n`, :math:`\overline{a^2} = S_2/n`:

* (143): :math:`\mathrm{Var}[Z_P] = (1/b - 1/n)\,\overline{a^2}`;
* (143, second block): :math:`\mathrm{Var}[Z_R] = (1-q)^{-1}\mathrm{Var}[Z_P] - \bar a^2/b`;
* (144): :math:`\mathrm{Var}[Z_B] = \frac{n}{n-1}\big(\mathrm{Var}[Z_P] - (1/b - 1/n)\bar a^2\big)`,
  including its intermediate line
  :math:`(1/b-1/n)\big(\frac1n\sum a_i^2 - \frac{1}{n(n-1)}\sum_{i\ne j}a_ia_j\big)`;
* (145)-(147) and (21)-(22) (the same identities as ratios).

Two independent routes:

1. moment algebra with symbolic n and b, using the inclusion probabilities
   :math:`\binom{n-1}{b-1}/\binom{n}{b}` and :math:`\binom{n-2}{b-2}/\binom{n}{b}`
   (simplified by sympy from the binomials, not typed in);
2. brute force: exact expectations over *all* outcomes (all :math:`2^n` Bernoulli
   patterns, all :math:`n^b` tuples, all :math:`\binom nb` subsets) for small n,
   with symbolic :math:`a_i`.

Findings (the mathematics wins):

* The seed defines B as a uniform subset of :math:`\{2,\dots,|D|\}` (section 4.1
  and Appendix F); with that definition :math:`E[Z_B] \ne \bar a` in general.  Its
  own computations (142) and (144) use subsets of :math:`\{1,\dots,|D|\}`; the
  formulas hold for that reading (checked below, and the other reading is shown
  to fail).
* "fixed-size subsampling with replacement always has larger variance ... by the
  constant multiple (1-1/|D|)/(1-q) > 1": the factor equals
  :math:`1 + (b-1)/(n-b)`, so it is 1 (equal variances) when :math:`|B| = 1`.

Runs as a pytest module (``pytest proofs/verify_birrell_variance.py``) or as a script.
"""

from __future__ import annotations

import itertools

import sympy as sp

n, b = sp.symbols("n b", positive=True, integer=True)
S1, S2 = sp.symbols("S1 S2", real=True)


def _moment_variances():
    """Var[Z_P], Var[Z_R], Var[Z_B] from first principles with symbolic n, b, S1, S2."""
    q = b / n
    abar = S1 / n
    cross = S1**2 - S2  # sum_{i != j} a_i a_j
    # inclusion probabilities of a uniform b-subset of {1..n}, from the binomials
    p1 = sp.gammasimp(sp.binomial(n - 1, b - 1) / sp.binomial(n, b))
    p2 = sp.gammasimp(sp.binomial(n - 2, b - 2) / sp.binomial(n, b))
    var_p = (q * S2 + q**2 * cross) / b**2 - abar**2  # J_i iid Bernoulli(q): E[J_i^2]=q, E[J_iJ_j]=q^2
    # R_j iid uniform: E[a_{R_j}^2] = S2/n, E[a_{R_j} a_{R_l}] = abar^2 (j != l)
    var_r = (b * S2 / n + b * (b - 1) * abar**2) / b**2 - abar**2
    var_b = (p1 * S2 + p2 * cross) / b**2 - abar**2
    return p1, p2, var_p, var_r, var_b


def _paper_formulas():
    q = b / n
    abar, a2bar = S1 / n, S2 / n
    vp = (1 / b - 1 / n) * a2bar  # (143), (21)
    vb = n / (n - 1) * (vp - (1 / b - 1 / n) * abar**2)  # (144), (21)
    vr = (1 - 1 / n) / (1 - q) * vb  # (147), (21)
    vr_143 = vp / (1 - q) - abar**2 / b  # last line of the Var[Z_R] block
    vb_line4 = (1 / b - 1 / n) * (S2 / n - (S1**2 - S2) / (n * (n - 1)))  # fourth line of (144)
    return vp, vr, vb, vr_143, vb_line4


def _zero(expr) -> bool:
    return sp.simplify(sp.together(sp.expand(expr))) == 0


def test_inclusion_probabilities():
    p1, p2, *_ = _moment_variances()
    assert _zero(p1 - b / n)
    assert _zero(p2 - b * (b - 1) / (n * (n - 1)))


def test_eq21_from_moments():
    _, _, var_p, var_r, var_b = _moment_variances()
    vp, vr, vb, vr_143, vb_line4 = _paper_formulas()
    assert _zero(var_p - vp)
    assert _zero(var_r - vr_143)
    assert _zero(var_r - vr)
    assert _zero(var_b - vb)
    assert _zero(var_b - vb_line4)
    # the compact forms used by the figure script
    assert _zero(var_r - (S2 / n - (S1 / n) ** 2) / b)
    assert _zero(var_b - (n - b) / (b * (n - 1)) * (S2 / n - (S1 / n) ** 2))


def test_ratios_145_146_22():
    vp, vr, vb, _, _ = _paper_formulas()
    q = b / n
    ratio = (S1 / n) ** 2 / (S2 / n)
    assert _zero(vr / vp - (1 - ratio) / (1 - q))  # (145)
    assert _zero(vb / vp - (1 - ratio) / (1 - 1 / n))  # (146) = (22)
    assert _zero(vr / vb - (1 - 1 / n) / (1 - q))  # (147)


def test_replacement_factor_is_one_only_for_batch_one():
    q = b / n
    factor = (1 - 1 / n) / (1 - q)
    assert _zero(factor - (1 + (b - 1) / (n - b)))
    assert factor.subs(b, 1) == 1
    assert sp.simplify(factor.subs({n: 10, b: 3})) == sp.Rational(9, 7)


def _brute(nv: int, bv: int, base=None):
    """Exact E and Var of Z_P, Z_R, Z_B by enumeration, symbolic a_1..a_n."""
    a = sp.symbols(f"a1:{nv + 1}", real=True)
    q = sp.Rational(bv, nv)

    def ev(outcomes):
        tot = sum(w for _, w in outcomes)
        m1 = sp.expand(sum(w * z for z, w in outcomes) / tot)
        m2 = sp.expand(sum(w * z**2 for z, w in outcomes) / tot)
        return m1, sp.expand(m2 - m1**2)

    pois = []
    for pat in itertools.product((0, 1), repeat=nv):
        k = sum(pat)
        pois.append((sum(ai for ai, j in zip(a, pat, strict=True) if j) / bv, q**k * (1 - q) ** (nv - k)))
    rep = [(sum(a[i] for i in t) / bv, 1) for t in itertools.product(range(nv), repeat=bv)]
    pool = range(nv) if base is None else base
    wor = [(sum(a[i] for i in s) / bv, 1) for s in itertools.combinations(pool, bv)]
    return a, ev(pois), ev(rep), ev(wor)


def _subs(expr, a):
    return expr.subs({S1: sum(a), S2: sum(x**2 for x in a)})


def test_brute_force_small_datasets():
    vp, vr, vb, _, _ = _paper_formulas()
    for nv, bv in [(3, 1), (3, 2), (4, 2), (5, 2), (5, 3), (5, 5)]:
        a, (mp_, vp_), (mr, vr_), (mb, vb_) = _brute(nv, bv)
        abar = sum(a) / nv
        for m in (mp_, mr, mb):
            assert sp.expand(m - abar) == 0
        sub = {n: nv, b: bv}
        assert sp.expand(vp_ - _subs(vp.subs(sub), a)) == 0
        assert sp.expand(vb_ - _subs(vb.subs(sub), a)) == 0
        if bv < nv:  # (147) divides by 1 - q
            assert sp.expand(vr_ - _subs(vr.subs(sub), a)) == 0
        else:  # q = 1: use the compact form
            assert sp.expand(vr_ - _subs(((S2 / n - (S1 / n) ** 2) / b).subs(sub), a)) == 0


def test_subset_of_2_to_D_reading_fails():
    """With B drawn from {2,...,|D|} (the seed's wording) the mean is not a-bar."""
    nv, bv = 4, 2
    a, _, _, (mb, _) = _brute(nv, bv, base=range(1, nv))
    assert sp.expand(mb - sum(a) / nv) != 0


def test_cauchy_schwarz_ratio_in_unit_interval():
    # n * S2 - S1^2 = sum_{i<j} (a_i - a_j)^2 >= 0, so abar^2 / a2bar <= 1
    a = sp.symbols("a1:5", real=True)
    lhs = sp.expand(4 * sum(x**2 for x in a) - sum(a) ** 2)
    rhs = sp.expand(sum((a[i] - a[j]) ** 2 for i in range(4) for j in range(i + 1, 4)))
    assert lhs == rhs


if __name__ == "__main__":  # pragma: no cover
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "Birrell et al. App. F"))
