r"""The dominating pairs of :mod:`rigorous_rdp.pld.pairs`: the proofs, step by step, each step checked.

Notation: :math:`H_\gamma(P\|Q) = \sup_S P(S) - \gamma Q(S)` (:math:`\gamma = e^\varepsilon > 0`).
A pair (P, Q) *dominates* (A, B) if :math:`H_\gamma(A\|B) \le H_\gamma(P\|Q)` for every
:math:`\gamma > 0`; dominating pairs of the single steps compose (Zhu, Dong, Wang,
"Optimal accounting of differential privacy via characteristic function", AISTATS 2022,
Definition 7 and Theorem 10), which is what the PLD accountant uses.

Facts used (each checked below, exactly on random discrete distributions or symbolically):

* (F1) joint convexity: :math:`H_\gamma` is a supremum of linear functionals of (P, Q).
* (F2) mirror: :math:`H_\gamma(P\|Q) = 1 - \gamma + \gamma H_{1/\gamma}(Q\|P)`.  Hence (P, Q)
  dominates (A, B) iff (Q, P) dominates (B, A).
* (F3) Poisson mixtures (Balle, Barthe, Gaboardi, "Privacy amplification by subsampling",
  NeurIPS 2018, Theorem 2, "advanced joint convexity", and its mirror):
  :math:`H_\gamma(qA + (1-q)B\|B) = q H_{1 + (\gamma - 1)/q}(A\|B)` for :math:`\gamma > 1 - q`
  (and :math:`1 - \gamma` otherwise);
  :math:`H_\gamma(B\|qA + (1-q)B) = (1 - \gamma(1-q)) H_{\gamma q/(1 - \gamma(1-q))}(B\|A)` for
  :math:`\gamma(1-q) < 1` (and 0 otherwise).
* (F4) BBG Theorem 2 in general: for :math:`\gamma \ge 1`, :math:`e^{\varepsilon} = 1 + (\gamma-1)/q`,
  :math:`\beta = \gamma e^{-\varepsilon}`:
  :math:`H_\gamma((1-q)\mu_0 + q\mu_1 \| (1-q)\mu_0 + q\mu_1') = q H_{e^\varepsilon}(\mu_1 \| (1-\beta)\mu_0 + \beta\mu_1')`.
* (F5) Gaussians: :math:`H_\gamma(N(a, s^2 I_d)\|N(b, s^2 I_d)) = G_{\|a-b\|/s}(\log\gamma)` with
  :math:`G_\mu(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)`
  (rotation and translation invariance reduce to one coordinate; the others are the same
  independent noise), increasing in :math:`\mu` (:math:`\partial_\mu G = \varphi(-\varepsilon/\mu + \mu/2) > 0`).

**Theorem A (Poisson sampling, add/remove; Zhu, Dong, Wang 2022, Proposition 30).**  If (P, Q)
dominates :math:`(M(S \cup \{x\}), M(S))` and (Q, P) dominates :math:`(M(S), M(S \cup \{x\}))` for all
S, x, then the Poisson-sampled mechanism is dominated by :math:`(qP + (1-q)Q, Q)` (removing a
record) and by :math:`(Q, qP + (1-q)Q)` (adding one).  Proof: given the sample S of the other
records, the outputs are :math:`qM(S\cup x) + (1-q)M(S)` and :math:`M(S)`; (F1) reduces to one S;
(F3) writes both directions through :math:`H(M(S\cup x)\|M(S))` resp. :math:`H(M(S)\|M(S\cup x))`
at other :math:`\gamma`, which the hypotheses bound; (F3) read backwards for (P, Q) gives the
pair's value.  Laplace: :math:`(\mathrm{Lap}(1,b), \mathrm{Lap}(0,b))` dominates every shift
:math:`|f(S \cup x) - f(S)| \le 1` (checked below) and is symmetric under :math:`x \mapsto 1 - x`;
randomized response: the base pair is attained by the mechanism itself.  The pairs are attained
(the base pairs are), so ``tight`` holds.

**Theorem B (replace-one, Gaussian noise :math:`N(0, \sigma^2C^2 I_d)` on a sum of records in the
ball of radius C, any d).**  Poisson sampling with probability q, or a uniform batch of B out of
N records without replacement (q = B/N), is dominated by the pair V whose profile is
:math:`R` for :math:`\gamma \ge 1` and :math:`A` for :math:`\gamma < 1`, where R and A are the profiles
of the Poisson remove and add pairs with noise :math:`\sigma/2`; :math:`V = \max(R, A)` pointwise.
Proof (normalise C = 1):

1. Coupling.  Poisson: the sample of the common records is the same for both datasets; the
   differing record (gradient a in D, b in D') is in with probability q.  Without replacement:
   draw a B-subset :math:`S_B` of the N - 1 common records and :math:`j \in S_B` uniformly; the batch of
   D is :math:`S_B` with probability 1 - q and :math:`S_B - j + x` with probability q (a uniform
   B-subset of D: checked by enumeration), the same with y for D'.
2. (F1): it suffices to bound :math:`H_\gamma((1-q)N(u) + qN(a)\|(1-q)N(u) + qN(b))` with
   :math:`\|a\|, \|b\| \le 1` and u = 0 (Poisson) or :math:`\|u\| \le 1` (u the displaced record).
3. :math:`\gamma \ge 1`: (F4), then convexity of :math:`H` in its second argument (F1) and (F5):
   :math:`\le q[(1-\beta)G_{\|a-u\|/\sigma}(\varepsilon) + \beta G_{\|a-b\|/\sigma}(\varepsilon)] \le q\,G_{2/\sigma}(\varepsilon)`,
   which is R(:math:`\gamma`) by (F3) with :math:`A = N(2, \sigma^2), B = N(0, \sigma^2)`.  No step projects the
   records onto a line: the configuration (u, a, b) spans a plane and every bound above is a
   function of the distances only, so the argument holds in every dimension (unlike
   Conjecture 1's range model, whose d >= 2 violation shows a 1-d argument would not do).
4. :math:`\gamma < 1`: replace-one is symmetric, so (F2) and step 3 for the swapped datasets give
   :math:`\le 1 - \gamma + \gamma R(1/\gamma) = A(\gamma)` (F2 for the remove pair).
5. V is a privacy profile: convex on each side of 1 (a profile, resp. the perspective of one),
   and at :math:`\gamma = 1` its left slope :math:`P(L > 0) - 1` is at most its right slope
   :math:`-Q(L > 0)` iff :math:`P(L>0) + Q(L>0) \le 1`, which for the Poisson pair is
   :math:`(2 - q) - 2(1-q)\Phi(1/(2s)) \le 1` (checked).  The pair with profile V: the remove
   pair's loss law on L > 0, its mirror (mass :math:`e^{-\ell}` times) on L < 0, and an atom at 0 of
   mass :math:`1 - P(L>0) - Q(L>0)` (:func:`rigorous_rdp.reference.pld.replace_one_gaussian_delta`).
6. Optimality for sampling without replacement: u = b = -a (all common records at b) makes
   the outputs exactly :math:`((1-q)N(b) + qN(a), N(b))`, i.e. R; swapping D and D' gives A.  So
   every dominating pair of the mechanism dominates :math:`\max(R, A) = V`.  For Poisson sampling
   (u = 0) R is not attained and V may be loose.  Neither R nor A alone dominates: the
   T-fold composition of V is *not* the worst single dataset pair composed (Lebeda, Regehr,
   Kamath, Steinke 2024, "Avoiding pitfalls for privacy accounting of subsampled mechanisms
   under composition", Section 4), and the lower end of a bracket (the larger of R^T and A^T,
   both attained for fixed-size sampling) is not reported by the accountant (``tight=False``).

Explicit record configurations in 2-d and 3-d of the actual mechanisms (small N, B) are
integrated on a grid and checked never above V.

Run as a script or collected by pytest.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from _fswor import coupling_law
from flint import arb

from rigorous_rdp.reference.pld import single_delta

# -- exact discrete checks of (F1)-(F4) -------------------------------------------


def _hs(p, q, g):
    return sum(max(Fraction(0), a - g * b) for a, b in zip(p, q, strict=True))


def _dist(rng, k):
    w = [Fraction(rng.randint(1, 30)) for _ in range(k)]
    s = sum(w)
    return [x / s for x in w]


def _mix(q, a, b):
    return [q * x + (1 - q) * y for x, y in zip(a, b, strict=True)]


def _random_sizes(seed, count=300):
    """count draws of a support size k in 2..6, with the generator for the rest of each case."""
    rng = random.Random(seed)
    for _ in range(count):
        yield rng, rng.randint(2, 6)


def test_mirror_identity_exact():
    """(F2) on random discrete pairs, exact rationals."""
    for rng, k in _random_sizes(1):
        p, q = _dist(rng, k), _dist(rng, k)
        g = Fraction(rng.randint(1, 60), 10)
        assert _hs(p, q, g) == 1 - g + g * _hs(q, p, 1 / g)


def test_poisson_mixture_identities_exact():
    """(F3), both directions, exact."""
    for rng, k in _random_sizes(2):
        a, b = _dist(rng, k), _dist(rng, k)
        q = Fraction(rng.randint(1, 19), 20)
        g = Fraction(rng.randint(1, 60), 20)
        m = _mix(q, a, b)
        rem = _hs(m, b, g)
        if g > 1 - q:
            assert rem == q * _hs(a, b, 1 + (g - 1) / q)
        else:
            assert rem == 1 - g
        add = _hs(b, m, g)
        if g * (1 - q) < 1:
            c = 1 - g * (1 - q)
            assert add == c * _hs(b, a, g * q / c)
        else:
            assert add == 0


def test_advanced_joint_convexity_exact():
    """(F4): Balle, Barthe, Gaboardi 2018, Theorem 2, exact on random discrete distributions."""
    for rng, k in _random_sizes(3):
        m0, m1, m1p = _dist(rng, k), _dist(rng, k), _dist(rng, k)
        q = Fraction(rng.randint(1, 19), 20)
        g = 1 + Fraction(rng.randint(0, 60), 20)
        e = 1 + (g - 1) / q
        beta = g / e
        assert 0 < beta <= 1
        lhs = _hs(_mix(q, m1, m0), _mix(q, m1p, m0), g)
        assert lhs == q * _hs(m1, _mix(1 - beta, m0, m1p), e)
        # then convexity in the second argument (F1)
        assert lhs <= q * ((1 - beta) * _hs(m1, m0, e) + beta * _hs(m1, m1p, e))


def test_domination_survives_poisson_sampling_exact():
    """Theorem A on discrete examples: (A, B) a post-processing of (P, Q) (so dominated, in
    both orders), then the subsampled pairs of (A, B) are below those of (P, Q) at every gamma."""
    rng = random.Random(4)
    for _ in range(100):
        k = rng.randint(2, 5)
        p, q = _dist(rng, k), _dist(rng, k)
        kern = [_dist(rng, 3) for _ in range(k)]  # a Markov kernel k -> 3
        a = [sum(p[i] * kern[i][j] for i in range(k)) for j in range(3)]
        b = [sum(q[i] * kern[i][j] for i in range(k)) for j in range(3)]
        s = Fraction(rng.randint(1, 9), 10)
        for g in (Fraction(1, 3), Fraction(1, 2), Fraction(9, 10), Fraction(1), Fraction(6, 5), Fraction(3)):
            assert _hs(_mix(s, a, b), b, g) <= _hs(_mix(s, p, q), q, g)
            assert _hs(b, _mix(s, a, b), g) <= _hs(q, _mix(s, p, q), g)


# -- the Gaussian and Laplace base pairs -------------------------------------------


def test_gaussian_profile_increasing_in_distance():
    """(F5): d/dmu G_mu(eps) = phi(-eps/mu + mu/2), using e^eps phi(-eps/mu - mu/2) = phi(-eps/mu + mu/2)."""
    e = sp.symbols("epsilon", real=True)
    mu = sp.symbols("mu", positive=True)

    def phi(z):
        return sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi)

    def Phi(z):
        return (1 + sp.erf(z / sp.sqrt(2))) / 2

    G = Phi(-e / mu + mu / 2) - sp.exp(e) * Phi(-e / mu - mu / 2)
    assert sp.simplify(sp.exp(e) * phi(-e / mu - mu / 2) - phi(-e / mu + mu / 2)) == 0
    assert sp.simplify(sp.diff(G, mu) - phi(-e / mu + mu / 2)) == 0


def test_laplace_pair_dominates_every_shift():
    """H(Lap(d, b) || Lap(0, b)) <= H(Lap(1, b) || Lap(0, b)) for 0 <= d <= 1 (so the base pair of
    Theorem A dominates every sensitivity-1 neighbour), on a grid of (b, d, gamma) by quadrature."""
    mpmath.mp.dps = 20

    def hs(d, b, g):
        def f(x):
            return max(mpmath.mpf(0), mpmath.exp(-abs(x - d) / b) - g * mpmath.exp(-abs(x) / b)) / (2 * b)

        return mpmath.quad(f, [-60 * b, 0, d, 1, 60 * b + 1])

    for b in (mpmath.mpf("0.5"), mpmath.mpf(2)):
        for g in (mpmath.mpf("0.5"), mpmath.mpf(1), mpmath.mpf("1.3")):
            full = hs(mpmath.mpf(1), b, g)
            for d in (mpmath.mpf("0.25"), mpmath.mpf("0.5"), mpmath.mpf("0.9")):
                assert hs(d, b, g) <= full + mpmath.mpf("1e-15")


# -- Theorem B ----------------------------------------------------------------------


def test_fswor_coupling_is_uniform():
    """Step 1: S_B - j + x (prob. q = B/N) or S_B (prob. 1 - q) is a uniform B-subset of D."""
    for n in range(2, 8):
        for b in range(1, n):
            law = coupling_law(n, b)
            total = list(itertools.combinations(range(n), b))
            assert len(law) == len(total) and all(v == Fraction(1, len(total)) for v in law.values())


def test_symmetrised_profile_is_convex_at_one():
    """Step 5: P(L > 0) + Q(L > 0) = (2 - q) - 2(1 - q) Phi(1/(2s)) <= 1 for the Poisson remove
    pair (L > 0 iff X > 1/2), symbolically, and in ball arithmetic on a grid."""
    q, s = sp.symbols("q s", positive=True)

    def Phi(z):
        return (1 + sp.erf(z / sp.sqrt(2))) / 2

    total = q * (1 - Phi(-1 / (2 * s))) + (1 - q) * (1 - Phi(1 / (2 * s))) + (1 - Phi(1 / (2 * s)))
    assert sp.simplify(total - ((2 - q) - 2 * (1 - q) * Phi(1 / (2 * s)))) == 0
    # Phi(1/(2s)) >= 1/2 and q <= 1 give <= (2 - q) - (1 - q) = 1
    for qv in (Fraction(1, 1000), Fraction(1, 10), Fraction(1, 2), Fraction(99, 100)):
        for sv in (Fraction(1, 10), Fraction(1), Fraction(3), Fraction(100)):
            qa = arb(qv.numerator) / qv.denominator
            z = arb(sv.denominator) / (2 * sv.numerator)
            cdf = 1 - (z / arb(2).sqrt()).erfc() / 2
            assert (2 - qa) - 2 * (1 - qa) * cdf <= 1


def test_remove_profile_dominates_add_above_one():
    """V = max(R, A): A <= R on gamma >= 1 (step 3 applied to u = b) and R <= A below 1 (F2)."""
    mpmath.mp.dps = 30
    for q, s in ((Fraction(1, 100), Fraction(1, 2)), (Fraction(1, 5), Fraction(2)), (Fraction(1, 2), Fraction(3))):
        for k in range(-40, 41):
            e = Fraction(k, 10)
            r = single_delta("poisson-gaussian", (q, s), "remove", e)
            a = single_delta("poisson-gaussian", (q, s), "add", e)
            assert (a <= r + mpmath.mpf(10) ** -25) if e >= 0 else (r <= a + mpmath.mpf(10) ** -25)


# -- explicit record configurations (2-d and 3-d) ------------------------------------


def _grid_hs(means_p, means_q, weights_p, weights_q, sd, gamma, dim, pts):
    """H_gamma of two Gaussian mixtures in R^dim (isotropic noise sd) by a midpoint rule on a
    box (the integrand is continuous; its kink costs O(h^2))."""
    allm = np.array(list(means_p) + list(means_q), dtype=float)
    lo, hi = allm.min(axis=0) - 8 * sd, allm.max(axis=0) + 8 * sd
    axes = [np.linspace(lo[i], hi[i], pts, endpoint=False) + (hi[i] - lo[i]) / (2 * pts) for i in range(dim)]
    cell = float(np.prod([(hi[i] - lo[i]) / pts for i in range(dim)]))
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, dim)
    norm = (2 * np.pi * sd * sd) ** (-dim / 2)

    def dens(means, weights):
        out = np.zeros(len(grid))
        for m, w in zip(means, weights, strict=True):
            out += w * norm * np.exp(-np.sum((grid - np.asarray(m)) ** 2, axis=1) / (2 * sd * sd))
        return out

    p, q = dens(means_p, weights_p), dens(means_q, weights_q)
    return float(np.sum(np.maximum(p - gamma * q, 0.0)) * cell)


def _ball_point(rng, dim):
    v = np.array([rng.gauss(0, 1) for _ in range(dim)])
    r = rng.random() ** (1 / dim) if rng.random() < 0.6 else 1.0  # often on the sphere
    return v / np.linalg.norm(v) * r


def _fswor_laws(common, a, b, batch):
    """Output mixtures (means, weights) of the batch sum for D = common + [a], D' = common + [b]."""
    n = len(common) + 1
    subs = list(itertools.combinations(range(n), batch))
    w = [1.0 / len(subs)] * len(subs)

    def means(last):
        recs = [*common, last]
        return [sum((recs[i] for i in s), np.zeros(len(last))) for s in subs]

    return means(a), means(b), w


def _poisson_laws(common, a, b, q):
    m = len(common)
    means_p, means_q, ws = [], [], []
    for bits in itertools.product((0, 1), repeat=m):
        base = sum((common[i] for i in range(m) if bits[i]), np.zeros(len(a)))
        w = float(np.prod([q if t else 1 - q for t in bits]))
        means_p += [base, base + a]
        means_q += [base, base + b]
        ws += [w * (1 - q), w * q]
    return means_p, means_q, ws


def _pair_v(q: Fraction, sigma: Fraction, gamma: float) -> float:
    mpmath.mp.dps = 20
    return float(single_delta("replace-one-gaussian", (q, sigma), "remove", Fraction(math.log(gamma))))


@pytest.mark.slow
def test_explicit_configurations_never_exceed_the_pair():
    """Steps 2-3 in 2-d and 3-d: random records in the unit ball (many on the sphere), the
    actual output laws (fixed-size without replacement: N = 3, B = 1 or 2; Poisson: q = 1/3,
    two common records), gamma below and above 1.  The attained configuration (common records
    at b = -a) matches V, which validates the quadrature."""
    sigma = Fraction(3, 2)
    rng = random.Random(7)
    gammas = (0.8, 1.0, 1.5)
    tol = 2e-4
    # attained: fswor, B = 1, N = 3, all common records at b = -a (2-d)
    a = np.array([1.0, 0.0])
    mp, mq, w = _fswor_laws([-a, -a], a, -a, 1)
    for g in gammas:
        # R is attained for gamma >= 1, A (the swapped datasets) below 1: V = max(R, A) either way
        pair = (mp, mq) if g >= 1 else (mq, mp)
        got = _grid_hs(*pair, w, w, float(sigma), g, 2, 700)
        assert abs(got - _pair_v(Fraction(1, 3), sigma, g)) < tol, (g, got)
    checked = 0
    for dim, cases, pts in ((2, 12, 500), (3, 3, 90)):
        for _ in range(cases):
            common = [_ball_point(rng, dim) for _ in range(2)]
            a, b = _ball_point(rng, dim), _ball_point(rng, dim)
            laws = [(*_fswor_laws(common, a, b, bb), Fraction(bb, 3)) for bb in (1, 2)]
            laws.append((*_poisson_laws(common, a, b, 1 / 3), Fraction(1, 3)))
            for mp, mq, w, q in laws:
                for g in gammas:
                    got = _grid_hs(mp, mq, w, w, float(sigma), g, dim, pts)
                    assert got <= _pair_v(q, sigma, g) + tol, (dim, g, got)
                    checked += 1
    assert checked == 3 * 3 * 15


if __name__ == "__main__":
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the PLD pairs of pld.pairs (Theorems A and B)"))
