r"""Does the argument of Birrell et al. Thm 3.1 hold for every hockey-stick divergence?

Seed ``004``, Appendix A.  The argument for FSwoR under add/remove adjacency is:

1. Lemma A.1: the uniform size-|B| subset of D (|D| = N) has the law of
   ``B' if J = 0, B~ + {last} if J = 1`` with J ~ Bernoulli(q), q = |B|/N, B' uniform of
   size |B| in D' = D minus its last element, B~ a uniform (|B|-1)-subset of B'.
2. Hence (27)-(28): the output laws for D and D' are mixtures *over the same index*
   (b', b~) of ``q N(mu_a) + (1-q) N(mu_b)`` and ``N(mu_b)``, and the divergence is at
   most the maximum over the index (29): this needs only **joint convexity** (or
   quasi-convexity) of the divergence -- Remark A.2 of the seed states it for every
   f-divergence.
3. Translation and rotation reduce to one dimension; ``||mu_a - mu_b|| <= r = 2C eta/|B|``
   (32), and increasing the mean offset can only increase the divergence.
4. Rescaling: sigma~/r = sigma/2 (37).  Remove direction: the Poisson *remove* pair
   ``(q N(1, sigma^2/4) + (1-q) N(0, sigma^2/4), N(0, sigma^2/4))`` with q = |B|/N.
5. Add direction (34)-(36): the pair ``(N(0), q~ N(r) + (1-q~) N(0))`` with
   q~ = |B|/(N+1) where N+1 is the size of the larger dataset; (35) then swaps the two
   arguments with Mironov et al. Theorem 5, which is a statement about *Renyi*
   divergences only, and (36) uses monotonicity in q~.

Verdict for hockey-stick divergences :math:`H_\gamma(P\|Q) = \sup_S P(S) - \gamma Q(S)`:

* Steps 1, 2 hold: H_gamma is a supremum of linear functionals of (P, Q), hence
  jointly convex (checked exactly below on random discrete distributions), and
  Lemma A.1 is a combinatorial identity (checked exactly by enumeration and
  symbolically).
* Step 3 holds: the mean offset c*mu -> mu is a post-processing by the Gaussian
  kernel x -> x/c + N(0, sigma^2 (1 - 1/c^2)) applied to *both* arguments, which
  maps N(c mu, s^2) to N(mu, s^2) and N(0, s^2) to itself (checked symbolically);
  data processing holds for every hockey-stick divergence.
* Step 5's swap (35) is **not** available (it is specific to Renyi divergences), but it
  is not needed for a PLD accountant, which accounts for both directions anyway: the
  add direction is dominated by the Poisson *add* pair with sigma/2 and q~, and by
  joint convexity H_gamma(N0 || q N1 + (1-q) N0) is non-decreasing in q, so q = |B|/N
  (N the size of the larger dataset of the neighbouring pair) covers both
  directions; the user's dataset size N gives q = |B|/N for its removals and
  q = |B|/(N+1) <= |B|/N for its additions.

Hence FSwoR (Gaussian noise multiplier sigma, batch |B|, dataset N) under add/remove
is dominated, direction by direction, by the Poisson-subsampled Gaussian pairs with
noise sigma/2 and q = |B|/N, in every hockey-stick divergence, and so (by composition
of dominating pairs) its optimal epsilon(delta) is at most the PLD bracket of that
Poisson mechanism.  The last test computes the hockey-stick divergence of the actual
FSwoR mechanism for small N by quadrature and checks it against the pair.

Run as a script or collected by pytest.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from _fswor import coupling_law

from rigorous_rdp.reference.pld import single_delta

# -- step 1: Lemma A.1 --------------------------------------------------------


def test_lemma_a1_by_enumeration():
    for n in range(2, 8):
        for b in range(1, n):
            law = coupling_law(n, b)  # the law of B defined by (23)
            subsets = list(itertools.combinations(range(n), b))
            assert len(law) == len(subsets)
            assert all(law[frozenset(s)] == Fraction(1, len(subsets)) for s in subsets), (n, b)


def test_lemma_a1_binomial_identities():
    """(25) and (26): (1-q)/C(N-1,B) = 1/C(N,B) and (1/N)(N-B)/C(N-1,B) = 1/C(N,B), q = B/N."""
    N, B = sp.symbols("N B", positive=True, integer=True)

    def c(n, k):
        return sp.gamma(n + 1) / (sp.gamma(k + 1) * sp.gamma(n - k + 1))

    q = B / N
    assert sp.simplify(sp.gammasimp((1 - q) / c(N - 1, B) - 1 / c(N, B))) == 0
    assert sp.simplify(sp.gammasimp((N - B) / N / c(N - 1, B) - 1 / c(N, B))) == 0


# -- step 2: joint convexity of the hockey-stick divergence ---------------------


def _hs(p, q, gamma):
    return sum(max(Fraction(0), a - gamma * b) for a, b in zip(p, q, strict=False))


def _rand_dist(rng, k):
    w = [Fraction(rng.randint(0, 20)) for _ in range(k)]
    w[0] += 1
    s = sum(w)
    return [x / s for x in w]


def test_hockey_stick_joint_convexity_exact():
    rng = random.Random(4)
    for _ in range(300):
        k = rng.randint(2, 6)
        p1, p2, q1, q2 = (_rand_dist(rng, k) for _ in range(4))
        lam = Fraction(rng.randint(0, 10), 10)
        gamma = Fraction(rng.randint(0, 40), 10)
        mix_p = [lam * a + (1 - lam) * b for a, b in zip(p1, p2, strict=False)]
        mix_q = [lam * a + (1 - lam) * b for a, b in zip(q1, q2, strict=False)]
        assert _hs(mix_p, mix_q, gamma) <= lam * _hs(p1, q1, gamma) + (1 - lam) * _hs(p2, q2, gamma)


# -- step 3: the mean offset is a post-processing --------------------------------


def test_scale_kernel_maps_gaussians():
    """x -> x/c + N(0, s^2 (1 - 1/c^2)) maps N(c mu, s^2) to N(mu, s^2) and N(0, s^2) to itself
    (means and variances of a Gaussian pushed through an affine map plus independent noise)."""
    c, mu, s = sp.symbols("c mu s", positive=True)
    for m in (c * mu, 0):
        mean = m / c
        var = s**2 / c**2 + s**2 * (1 - 1 / c**2)
        assert sp.simplify(var - s**2) == 0
        assert sp.simplify(mean - (mu if m != 0 else 0)) == 0


# -- the actual mechanism for small N ---------------------------------------------


def _fswor_law(grads, b, sigma):
    """Output density of one DP-SGD step with FSwoR: mean of b clipped gradients plus N(0, (sigma/b)^2)."""
    subsets = list(itertools.combinations(range(len(grads)), b))
    means = [mpmath.mpf(sum(grads[i] for i in s)) / b for s in subsets]
    sd = mpmath.mpf(sigma.numerator) / sigma.denominator / b
    w = mpmath.mpf(1) / len(subsets)
    return lambda x: w * sum(mpmath.npdf(x, m, sd) for m in means), means


def _hockey(p, q, eps, points):
    g = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
    grid = sorted(set(points) | {k / 4 for k in range(-40, 41)})
    return mpmath.quad(lambda x: max(mpmath.mpf(0), p(x) - g * q(x)), grid)


CASES = [([1, -1, -1, -1], 2), ([-1, 1, 1, 1], 2), ([1, -1, 0, -1, -1], 2), ([1, -1, -1], 1)]


def test_fswor_mechanism_dominated_one_case():
    with mpmath.workdps(15):
        _check_fswor_mechanism(CASES[:1], (Fraction(1, 4),))


@pytest.mark.slow
def test_fswor_mechanism_dominated_by_poisson_pairs_with_half_sigma():
    with mpmath.workdps(20):
        _check_fswor_mechanism(CASES, (Fraction(0), Fraction(1, 4), Fraction(1)))


def _check_fswor_mechanism(cases, epsilons):
    sigma = Fraction(3, 2)
    for grads, b in cases:
        n = len(grads)
        q = Fraction(b, n)
        p_big, m1 = _fswor_law(grads, b, sigma)  # D (the larger dataset), its last element removed in D'
        p_small, m2 = _fswor_law(grads[:-1], b, sigma)
        pts = sorted(set([-30, 30] + [float(m) for m in m1 + m2]))
        for eps in epsilons:
            remove = _hockey(p_big, p_small, eps, pts)
            add = _hockey(p_small, p_big, eps, pts)
            bound_r = single_delta("poisson-gaussian", (q, sigma / 2), "remove", eps)
            bound_a = single_delta("poisson-gaussian", (q, sigma / 2), "add", eps)
            assert remove <= bound_r + mpmath.mpf(10) ** -12, (grads, b, eps, remove, bound_r)
            assert add <= bound_a + mpmath.mpf(10) ** -12, (grads, b, eps, add, bound_a)
    # not vacuous: for the first case the remove divergence is more than 5% of the bound
    # (the pair is attained only in the limit of extreme gradients)
    grads, b = cases[0]
    p_big, _ = _fswor_law(grads, b, sigma)
    p_small, _ = _fswor_law(grads[:-1], b, sigma)
    r = _hockey(p_big, p_small, Fraction(1, 4), [-30, -1, 0, 1, 30])
    assert r > single_delta("poisson-gaussian", (Fraction(1, 2), sigma / 2), "remove", Fraction(1, 4)) / 20


if __name__ == "__main__":  # pragma: no cover
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the hockey-stick argument of Birrell et al. Thm 3.1"))
