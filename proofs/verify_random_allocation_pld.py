r"""Checks (sympy exact where possible, mpmath quadrature where not) of every step used by
:mod:`rigorous_rdp.pld.random_allocation` (the certified PLD bracket of random allocation /
balls-and-bins sampling of the Gaussian mechanism).

Notation of the module: :math:`Y = e^{z/\sigma - 1/(2\sigma^2)}`, :math:`z \sim N(0, 1)`,
:math:`S = \sum_{i \le t} Y_i`, :math:`c = e^\varepsilon`; the pair of one epoch
:math:`P = \frac1t\sum_i N(e_i, \sigma^2 I)`, :math:`Q = N(0, \sigma^2 I)` has :math:`dP/dQ = S/t`
(``proofs/verify_random_allocation.py``, step 1).

1. Both profiles are expectations of convex non-negative functions of S under Q:
   :math:`E_P[(1 - c\,e^{-L})_+] = E_Q[(S/t - c)_+]` (remove, L = log(S/t)) and
   :math:`E_{Q}[(1 - c\,S/t)_+]` (add, the swapped pair, loss log(t/S)); the pointwise algebra
   exactly, the identity by quadrature of the definition over the mixture at t = 2.
2. The log-normal stop-loss function :math:`\pi(K) = E(Y - K)_+ = \Phi(d_1) - K\Phi(d_2)` and the
   tail :math:`P(Y > K) = \Phi(d_2)`, against quadrature.
3. Connect the dots on :math:`\{0, h, \dots, Mh\}`: the mass :math:`(\pi(kh-h) - 2\pi(kh) + \pi(kh+h))/h`
   is the hat-function expectation :math:`E(1 - |Y - kh|/h)_+`; the linear part of
   :math:`\pi_{\rm in} - \pi` cancels in second differences (exact); the law is a mean-preserving
   spread (mass and mean of :math:`\nu_{\rm in}` kept, quadrature).
4. Tangent-chord: on every interval the chord minus :math:`\pi` is at most :math:`AB/(A+B)`
   (checked on a fine grid of points of many intervals).
5. The order :math:`\preceq` is kept by convolution (random discrete laws, exact rationals: if
   :math:`A \preceq B` in the convex order then :math:`A * C \preceq B * C`, checked through the
   stop-loss functions, which decide the convex order for equal mass and mean).
6. The part where a coordinate exceeds the cut: :math:`\int (s/t)\,dR \le E[Y; Y > G] + (t-1)P(Y > G)`
   (t = 2, quadrature).
7. k > 1: the hockey-stick divergence is jointly convex, so a mixture :math:`E_\pi P_\pi` against a
   fixed Q is no further than the mixture of the divergences, in both orders (random discrete
   laws, exact rationals).  With step 10 of ``proofs/verify_random_allocation.py``
   (:math:`L_k = E_\pi \prod_B L_{\pi(B)}`, exact) this gives the blocks' composition.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

SIG = mpmath.mpf(1)


def _y(z, sig=SIG):
    return mpmath.exp(z / sig - 1 / (2 * sig * sig))


def _pi(k, sig=SIG):
    if k <= 0:
        return 1 - k
    d2 = -1 / (2 * sig) - sig * mpmath.log(k)
    return mpmath.ncdf(d2 + 1 / sig) - k * mpmath.ncdf(d2)


def _sf(k, sig=SIG):
    d2 = -1 / (2 * sig) - sig * mpmath.log(k)
    return mpmath.ncdf(d2)


def _zstar(k, sig=SIG):
    return sig * (mpmath.log(k) + 1 / (2 * sig * sig))


def test_profiles_are_convex_functions_of_s():
    """Step 1, algebra: (S/t)(1 - c t/S) = S/t - c, so the P-expectation of (1 - c e^{-L})_+ is the
    Q-expectation of (S/t - c)_+; both integrands are maxima of 0 and a linear function of S."""
    S, t, c = sp.symbols("S t c", positive=True)
    assert sp.simplify((S / t) * (1 - c * t / S) - (S / t - c)) == 0
    pts = [Fraction(k, 3) for k in range(30)]
    for tt, cc in itertools.product((2, 5), (Fraction(1, 2), Fraction(2))):
        rem = [max(Fraction(0), x / tt - cc) for x in pts]
        add = [max(Fraction(0), 1 - cc * x / tt) for x in pts]
        for v in (rem, add):  # convex: every midpoint below the chord (exact rationals)
            assert all(2 * v[i] <= v[i - 1] + v[i + 1] for i in range(1, len(pts) - 1))


@pytest.mark.slow
def test_remove_identity_by_quadrature_over_the_mixture():
    """Step 1: E_P[(1 - c t/S)_+] over P = (N(e1) + N(e2))/2 (sigma = 1) equals E_Q[(S/2 - c)_+]
    (the definition integrated over the mixture: by symmetry both components give the same, so the
    first one, x1 ~ N(1), x2 ~ N(0), the inner integral split where S = 2c)."""
    with mpmath.workdps(15):
        c = mpmath.exp(mpmath.mpf("0.3"))
        half = mpmath.mpf(1) / 2

        def inner(x1):
            rest = 2 * c - mpmath.exp(x1 - half)  # need e^{x2 - 1/2} > rest

            def f(x2):
                return mpmath.npdf(x2) * max(mpmath.mpf(0), 1 - 2 * c / (mpmath.exp(x1 - half) + mpmath.exp(x2 - half)))

            if rest <= 0:
                return mpmath.quad(f, [-mpmath.inf, mpmath.inf])
            return mpmath.quad(f, [mpmath.log(rest) + half, mpmath.inf])

        x1star = mpmath.log(2 * c) + half
        lhs = mpmath.quad(lambda x1: mpmath.npdf(x1 - 1) * inner(x1), [-mpmath.inf, x1star, mpmath.inf])
        rhs = mpmath.quad(lambda z: mpmath.npdf(z) * _pi(2 * c - _y(z)) / 2, [-mpmath.inf, _zstar(2 * c), mpmath.inf])
        assert abs(lhs - rhs) < 1e-10, (lhs, rhs)


def test_lognormal_stop_loss_and_tail():
    """Step 2."""
    with mpmath.workdps(20):
        for sig in (mpmath.mpf(1), mpmath.mpf(2), mpmath.mpf("0.8")):
            for k in (mpmath.mpf("0.1"), mpmath.mpf(1), mpmath.mpf(3)):
                zk = _zstar(k, sig)
                call = mpmath.quad(lambda z, sig=sig, k=k: mpmath.npdf(z) * (_y(z, sig) - k), [zk, mpmath.inf])
                tail = mpmath.quad(mpmath.npdf, [zk, mpmath.inf])
                assert abs(call - _pi(k, sig)) < 1e-15
                assert abs(tail - _sf(k, sig)) < 1e-15
            mean = mpmath.quad(lambda z, sig=sig: mpmath.npdf(z) * _y(z, sig), [-mpmath.inf, mpmath.inf])
            assert abs(mean - 1) < 1e-15


def test_connect_the_dots_masses():
    """Step 3: hat-function masses, exact cancellation of the linear part, mass and mean kept."""
    K, h, G, a, b = sp.symbols("K h G a b", positive=True)
    lin = a + b * (G - K)  # pi_in - pi = -(pi(G) + (G - K) P(Y > G)): linear in K
    assert sp.expand(lin.subs(K, K - h) - 2 * lin + lin.subs(K, K + h)) == 0
    with mpmath.workdps(20):
        h = mpmath.mpf(1) / 4
        m = 24  # G = 6
        g = h * m
        pis = [_pi(h * k) for k in range(m + 1)]
        sf_g = _sf(g)
        masses = [1 + (pis[1] - pis[0]) / h]
        masses += [(pis[k - 1] - 2 * pis[k] + pis[k + 1]) / h for k in range(1, m)]
        masses.append((pis[m - 1] - pis[m] - h * sf_g) / h)
        for k in (0, 1, 5, 12, m):
            x = h * k
            hat = mpmath.quad(
                lambda z, x=x: mpmath.npdf(z) * max(mpmath.mpf(0), 1 - abs(_y(z) - x) / h) * (_y(z) <= g),
                [
                    -mpmath.inf,
                    _zstar(max(x - h, mpmath.mpf("1e-30"))),
                    _zstar(x) if x > 0 else -40,
                    _zstar(x + h),
                    mpmath.inf,
                ],
            )
            assert abs(hat - masses[k]) < 1e-12, (k, hat, masses[k])
        w_in = 1 - sf_g
        mean_in = 1 - (pis[m] + g * sf_g)
        assert abs(sum(masses) - w_in) < 1e-18
        assert abs(sum(mk * h * k for k, mk in enumerate(masses)) - mean_in) < 1e-18


def test_chord_gap_bound():
    """Step 4: chord minus pi <= AB/(A + B) with A, B the chord-minus-tangent values."""
    with mpmath.workdps(20):
        for lo, width in itertools.product(
            (mpmath.mpf("0.05"), mpmath.mpf(1), mpmath.mpf(4)), (mpmath.mpf("0.1"), mpmath.mpf(1))
        ):
            a, c = lo, lo + width
            pa, pc = _pi(a), _pi(c)
            A = pc - pa + _sf(a) * width
            B = pa - pc - _sf(c) * width
            bound = A * B / (A + B)
            worst = max(pa + (pc - pa) * j / 50 - _pi(a + width * j / 50) for j in range(51))
            assert 0 <= worst <= bound, (a, c, worst, bound)


def _stop_loss(law: dict[Fraction, Fraction], k: Fraction) -> Fraction:
    return sum((p * (x - k) for x, p in law.items() if x > k), Fraction(0))


def _convolve(a: dict[Fraction, Fraction], b: dict[Fraction, Fraction]) -> dict[Fraction, Fraction]:
    out: dict[Fraction, Fraction] = {}
    for (x, p), (y, q) in itertools.product(a.items(), b.items()):
        out[x + y] = out.get(x + y, Fraction(0)) + p * q
    return out


def test_convex_order_kept_by_convolution():
    """Step 5: A <=cx B (B a mean-preserving split of one atom of A) gives A*C <=cx B*C."""
    rng = random.Random(7)
    for _ in range(20):
        atoms = sorted({Fraction(rng.randint(0, 40), 4) for _ in range(5)})
        weights = [Fraction(rng.randint(1, 9)) for _ in atoms]
        total = sum(weights)
        A = {x: w / total for x, w in zip(atoms, weights, strict=True)}
        x0 = atoms[rng.randrange(len(atoms))]
        lo, hi = x0 - Fraction(rng.randint(1, 8), 4), x0 + Fraction(rng.randint(1, 8), 4)
        rho = (x0 - lo) / (hi - lo)
        B = dict(A)
        p0 = B.pop(x0)
        B[lo] = B.get(lo, Fraction(0)) + p0 * (1 - rho)
        B[hi] = B.get(hi, Fraction(0)) + p0 * rho
        C = {Fraction(rng.randint(0, 20), 4): Fraction(1, 3) for _ in range(3)}
        C = {x: Fraction(1, len(C)) for x in C}
        AC, BC = _convolve(A, C), _convolve(B, C)
        points = sorted(set(AC) | set(BC))
        assert sum(p * x for x, p in AC.items()) == sum(p * x for x, p in BC.items())
        for k in points:
            assert _stop_loss(AC, k) <= _stop_loss(BC, k)


def test_cut_part_bound():
    """Step 6 (t = 2, sigma = 1, G = 5): int (s/2) dR = E[S/2; Y1 > G or Y2 > G] <= E[Y; Y > G] + P(Y > G)."""
    with mpmath.workdps(15):
        g = mpmath.mpf(5)
        zg = _zstar(g)
        e_g = _pi(g) + g * _sf(g)
        # E[(Y1 + Y2)/2; Y1 > G or Y2 > G] = E[Y; Y>G] + P(Y>G) E[Y] - E[(Y1+Y2)/2; both > G]
        both = e_g * _sf(g)
        exact = e_g + _sf(g) - both
        direct = mpmath.quad(
            lambda z1, z2: mpmath.npdf(z1) * mpmath.npdf(z2) * (_y(z1) + _y(z2)) / 2 * ((z1 > zg) or (z2 > zg)),
            [-9, zg, 12],
            [-9, zg, 12],
        )
        assert abs(direct - exact) < 1e-8
        assert exact <= e_g + (2 - 1) * _sf(g)


def _hockey(p: list[Fraction], q: list[Fraction], gamma: Fraction) -> Fraction:
    return sum((max(Fraction(0), a - gamma * b) for a, b in zip(p, q, strict=True)), Fraction(0))


def test_hockey_stick_jointly_convex_against_a_fixed_law():
    """Step 7: H_g(sum w_j P_j || Q) <= sum w_j H_g(P_j || Q) and H_g(Q || sum w_j P_j) <= sum w_j H_g(Q || P_j)."""
    rng = random.Random(11)
    for _ in range(50):
        n = 5

        def law(n: int = n) -> list[Fraction]:
            w = [Fraction(rng.randint(1, 9)) for _ in range(n)]
            s = sum(w)
            return [x / s for x in w]

        ps = [law() for _ in range(3)]
        q = law()
        ws = law()[:3]
        s = sum(ws)
        ws = [w / s for w in ws]
        mix = [sum(w * p[i] for w, p in zip(ws, ps, strict=True)) for i in range(n)]
        for gamma in (Fraction(1), Fraction(3, 2), Fraction(4)):
            assert _hockey(mix, q, gamma) <= sum(w * _hockey(p, q, gamma) for w, p in zip(ws, ps, strict=True))
            assert _hockey(q, mix, gamma) <= sum(w * _hockey(q, p, gamma) for w, p in zip(ws, ps, strict=True))


if __name__ == "__main__":
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "rigorous_rdp.pld.random_allocation"))
