r"""mpmath references for FSwR (Birrell et al. Thms 3.6, 3.7), Wang et al. 2019
(Birrell et al. App. E) and brute-force Rényi divergences of tiny DP-SGD steps.

Different code paths from the certified ``arb`` code: plain high-precision
mpmath sums, ``mpmath.quad`` for the Gaussian expectations, and explicit
enumeration of every minibatch of a tiny dataset.  Not certified (``quad``
reports an *estimated* error); used as the second opinion in tests.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

__all__ = [
    "fswor_minibatch_mixture",
    "fswr_lower_exact_mp",
    "fswr_lower_quad_mp",
    "fswr_minibatch_mixture",
    "fswr_upper_mp",
    "h_binomial_mp",
    "h_quad_mp",
    "mixture_renyi_mp",
    "poisson_minibatch_mixture",
    "poisson_replace_one_mp",
    "poisson_replace_one_true_mp",
    "wang_lower_mp",
    "wang_upper_mp",
]


def _f(x) -> mpf:
    if isinstance(x, Fraction):
        return mpf(x.numerator) / x.denominator
    return mpf(x)


# ---------------------------------------------------------------------------
# H_{alpha, sigma}(q) of (8), as a function of the normalised shift mu = 2/sigma
# ---------------------------------------------------------------------------


def h_quad_mp(alpha, q, mu, dps: int = 40) -> mpf:
    r""":math:`E_{z\sim N(0,1)}[(1-q+q e^{\mu z-\mu^2/2})^\alpha]` by ``mpmath.quad`` (any real alpha).

    :math:`H_{\alpha,\sigma}(q)` is the case :math:`\mu = 2/\sigma`; :math:`H_{\alpha,\sigma/n}` is :math:`\mu = 2n/\sigma`.
    """
    with mp.workdps(dps):
        a, qq, m = _f(alpha), _f(q), _f(mu)

        def g(z):
            return (1 - qq + qq * mpmath.exp(m * z - m * m / 2)) ** a * mpmath.npdf(z)

        pts = sorted({mpf(-40), mpf(0), m / 2, a * m, a * m + 40, mpf(40)})
        pts = [-mpmath.inf, *pts, mpmath.inf]
        return mpmath.quad(g, pts)


def h_binomial_mp(alpha: int, q, mu, dps: int = 40) -> mpf:
    r"""Integer alpha: :math:`\sum_k \binom{\alpha}{k} q^k (1-q)^{\alpha-k} e^{k(k-1)\mu^2/2}` (binomial + Gaussian MGF)."""
    with mp.workdps(dps):
        qq, m = _f(q), _f(mu)
        return mpmath.fsum(
            mpmath.binomial(alpha, k) * qq**k * (1 - qq) ** (alpha - k) * mpmath.exp(k * (k - 1) * m * m / 2)
            for k in range(alpha + 1)
        )


# ---------------------------------------------------------------------------
# FSwR, Theorem 3.6 and 3.7
# ---------------------------------------------------------------------------


def _fswr_weights(b: int, n: int) -> tuple[mpf, list[mpf]]:
    p = mpf(1) / n
    qt = 1 - (1 - p) ** b
    return qt, [mpmath.binomial(b, k) * p**k * (1 - p) ** (b - k) / qt for k in range(1, b + 1)]


def fswr_upper_mp(alpha, sigma, b: int, n: int, dps: int = 40, fractional: str = "interpolate") -> mpf:
    r"""Reference for (16): :math:`\frac{1}{\alpha-1}\log\big(1 + \sum_n\tilde a_n (H_{\alpha,\sigma/n}(\tilde q) - 1)\big)`.

    Integer alpha: binomial sums.  Real alpha: ``fractional="interpolate"`` is the
    per-n log-convex extension; ``"quad"`` is the exact value of (16) by
    quadrature for every n (which no valid bound may undercut); ``"min"`` is the
    per-n minimum of both, which is what the certified code computes when every
    term is integrated (small |B|); ``"exact"`` is the exact value of (16) where it
    matters: quadrature for every term whose extension contributes at least
    :math:`10^{-2\,\mathrm{dps}}` of the largest term, the extension (an upper bound
    on H that changes the sum by less than that) for the rest, so that large
    batches need only a few quadratures.  This is the reference of the certified
    FSwR curve in ``rigorous-rdp verify``.
    """
    a = Fraction(alpha)
    work = dps + 30
    with mp.workdps(work):
        s = _f(Fraction(sigma))
        qt, at = _fswr_weights(b, n)
        mus = [2 * k / s for k in range(1, b + 1)]
        if a.denominator == 1:
            hm1 = [h_binomial_mp(int(a), qt, mu, work) - 1 for mu in mus]
        elif fractional == "quad":
            hm1 = [h_quad_mp(a, qt, mu, work) - 1 for mu in mus]
        else:
            a0 = a.numerator // a.denominator
            t = _f(a - a0)
            hm1 = []
            for mu in mus:
                h0 = mpf(1) if a0 == 1 else h_binomial_mp(a0, qt, mu, work)
                h1 = h_binomial_mp(a0 + 1, qt, mu, work)
                hm1.append(h0 ** (1 - t) * h1**t - 1)
            if fractional == "min":
                hm1 = [min(h, h_quad_mp(a, qt, mu, work) - 1) for mu, h in zip(mus, hm1, strict=True)]
            elif fractional == "exact":
                contrib = [w * h for w, h in zip(at, hm1, strict=True)]
                cut = max(contrib) * mpf(10) ** (-2 * dps)
                hm1 = [
                    h_quad_mp(a, qt, mu, work) - 1 if c >= cut else h
                    for mu, h, c in zip(mus, hm1, contrib, strict=True)
                ]
        total = mpmath.fsum(w * h for w, h in zip(at, hm1, strict=True))
        return +(mpmath.log1p(total) / (_f(a) - 1))


def fswr_lower_exact_mp(alpha: int, sigma, b: int, n: int, dps: int = 40) -> mpf:
    r"""(17) by enumerating all :math:`(|B|+1)^\alpha` tuples (tiny cases only)."""
    with mp.workdps(dps):
        s = _f(Fraction(sigma))
        p = mpf(1) / n
        c = 4 / (s * s)
        pmf = [mpmath.binomial(b, k) * p**k * (1 - p) ** (b - k) for k in range(b + 1)]
        total = mpf(0)
        for tup in itertools.product(range(b + 1), repeat=alpha):
            w = mpmath.fprod(pmf[m] for m in tup)
            pairs = sum(tup[i] * tup[j] for i in range(alpha) for j in range(i + 1, alpha))
            total += w * mpmath.exp(c * pairs)
        return mpmath.log(total) / (alpha - 1)


def fswr_lower_quad_mp(alpha, sigma, b: int, n: int, dps: int = 30) -> mpf:
    r"""(116) by quadrature: :math:`D_\alpha(\sum_n a_n N(n,\sigma^2/4)\,\|\,N(0,\sigma^2/4))`."""
    with mp.workdps(dps):
        s = _f(Fraction(sigma)) / 2
        p = mpf(1) / n
        pmf = [mpmath.binomial(b, k) * p**k * (1 - p) ** (b - k) for k in range(b + 1)]
        means = list(range(b + 1))
        return mixture_renyi_mp(means, pmf, [0], [mpf(1)], s, alpha, dps)


# ---------------------------------------------------------------------------
# Wang et al. 2019
# ---------------------------------------------------------------------------


def wang_upper_mp(alpha, sigma, q, literal_127: bool = False, dps: int = 40) -> mpf:
    r"""(127)-(132) (``literal_127``) or Wang et al. Thm 9 with the min (default), Gaussian base (129)."""
    a = Fraction(alpha)
    with mp.workdps(dps):
        s, qq = _f(Fraction(sigma)), _f(Fraction(q))

        def eps(j):
            return 2 * mpf(j) / (s * s)

        def k_of(m: int) -> mpf:
            c2 = 4 * mpmath.expm1(eps(2))
            if not literal_127:
                c2 = min(c2, 2 * mpmath.exp(eps(2)))
            tot = 1 + qq**2 * mpmath.binomial(m, 2) * c2
            for j in range(3, m + 1):
                tot += 2 * qq**j * mpmath.binomial(m, j) * mpmath.exp((j - 1) * eps(j))
            return mpmath.log(tot)

        a0 = a.numerator // a.denominator
        t = _f(a - a0)
        if t == 0:
            return k_of(a0) / (a0 - 1)
        if a0 == 1:
            return k_of(2)
        return ((1 - t) * k_of(a0) + t * k_of(a0 + 1)) / (_f(a) - 1)


def wang_lower_mp(alpha: int, sigma, q, dps: int = 40) -> mpf:
    """(133) literally, with (129)."""
    with mp.workdps(dps):
        s, qq = _f(Fraction(sigma)), _f(Fraction(q))
        r = qq / (1 - qq)
        tot = (
            1
            + alpha * r
            + mpmath.fsum(
                mpmath.binomial(alpha, j) * r**j * mpmath.exp((j - 1) * 2 * mpf(j) / (s * s))
                for j in range(2, alpha + 1)
            )
        )
        return alpha * mpmath.log(1 - qq) / (alpha - 1) + mpmath.log(tot) / (alpha - 1)


# ---------------------------------------------------------------------------
# brute force: Rényi divergence of 1-D Gaussian mixtures from enumerated minibatches
# ---------------------------------------------------------------------------


def mixture_renyi_mp(
    p_means: Sequence, p_weights: Sequence, q_means: Sequence, q_weights: Sequence, s, alpha, dps: int = 30
) -> mpf:
    r""":math:`D_\alpha(P\|Q)` for :math:`P = \sum w_i N(m_i, s^2)`, :math:`Q = \sum v_j N(m'_j, s^2)` by ``mpmath.quad``."""
    with mp.workdps(dps):
        a = _f(Fraction(alpha)) if not isinstance(alpha, mpf) else alpha
        s = _f(s) if not isinstance(s, mpf) else s
        pm = [_f(x) for x in p_means]
        qm = [_f(x) for x in q_means]
        pw = [_f(x) for x in p_weights]
        qw = [_f(x) for x in q_weights]

        def dens(x, means, weights):
            return mpmath.fsum(w * mpmath.npdf(x, m, s) for m, w in zip(means, weights, strict=True) if w != 0)

        def g(x):
            p = dens(x, pm, pw)
            q = dens(x, qm, qw)
            if p == 0:
                return mpf(0)
            return p**a * q ** (1 - a)

        allm = sorted(set(pm + qm))
        span = 12 * s + (allm[-1] - allm[0]) * a
        pts = sorted({allm[0] - span, *allm, allm[-1] + span})
        val = mpmath.quad(g, [-mpmath.inf, *pts, mpmath.inf])
        return mpmath.log(val) / (a - 1)


def _collect(pairs: dict[Fraction, Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    keys = sorted(pairs)
    return keys, [pairs[k] for k in keys]


def fswr_minibatch_mixture(grads: Sequence[Fraction], b: int) -> tuple[list[Fraction], list[Fraction]]:
    """Means and weights of the output of one FSwR step: all ``len(grads)**b`` minibatches."""
    n = len(grads)
    acc: dict[Fraction, Fraction] = {}
    w = Fraction(1, n**b)
    for idx in itertools.product(range(n), repeat=b):
        m = sum((grads[i] for i in idx), Fraction(0))
        acc[m] = acc.get(m, Fraction(0)) + w
    return _collect(acc)


def fswor_minibatch_mixture(grads: Sequence[Fraction], b: int) -> tuple[list[Fraction], list[Fraction]]:
    """Means and weights of one FSwoR step: all subsets of size ``b``."""
    n = len(grads)
    subsets = list(itertools.combinations(range(n), b))
    acc: dict[Fraction, Fraction] = {}
    w = Fraction(1, len(subsets))
    for idx in subsets:
        m = sum((grads[i] for i in idx), Fraction(0))
        acc[m] = acc.get(m, Fraction(0)) + w
    return _collect(acc)


def poisson_minibatch_mixture(grads: Sequence[Fraction], q: Fraction) -> tuple[list[Fraction], list[Fraction]]:
    """Means and weights of one Poisson-sampled step: all subsets, weight q^|S| (1-q)^(n-|S|)."""
    n = len(grads)
    acc: dict[Fraction, Fraction] = {}
    for mask in itertools.product((0, 1), repeat=n):
        k = sum(mask)
        w = q**k * (1 - q) ** (n - k)
        m = sum((g for g, bit in zip(grads, mask, strict=True) if bit), Fraction(0))
        acc[m] = acc.get(m, Fraction(0)) + w
    return _collect(acc)


def _m_mp(sigma: mpf, k: int) -> mpf:
    """(44): M_{sigma,k} as the alternating binomial sum (needs high dps)."""
    return mpmath.fsum(
        (-1) ** (k - ell) * mpmath.binomial(k, ell) * mpmath.exp(2 * ell * (ell - 1) / sigma**2) for ell in range(k + 1)
    )


def _bt_mp(sigma: mpf, j: int) -> mpf:
    """(47): B~_{sigma,j}."""
    if j % 2 == 0:
        return _m_mp(sigma, j)
    return mpmath.sqrt(_m_mp(sigma, j - 1) * _m_mp(sigma, j + 1))


def _f_tilde_mp(a: mpf, sigma: mpf, k: int) -> mpf:
    """(83), literally."""
    lead = (a - 1) * a ** (k - 1)
    first = 4 * _m_mp(sigma, k) if k % 2 == 0 else 3 * mpmath.sqrt(_m_mp(sigma, k - 1) * _m_mp(sigma, k + 1))
    s = mpf(0)
    for j in range(k + 1):
        p1 = mpmath.fprod(1 - mpf(ell) / a for ell in range(j))
        p2 = mpmath.fprod(1 + (mpf(ell) - 1) / a for ell in range(k - j))
        s += mpmath.binomial(k, j) * abs(a / (a - 1) * p1 * p2 - 1)
    return lead * first + lead * s * _bt_mp(sigma, k)


def _e_tilde_mp(a: mpf, q: mpf, sigma: mpf, m: int) -> mpf:
    """(90), literally."""
    ca = int(mpmath.ceil(a))
    tot = mpf(0)
    for j in range(m + 1):
        pre = (1 - q) ** (-(a + m - j - 1)) * mpmath.binomial(m, j)
        pre *= mpmath.fprod(abs(a - ell) for ell in range(j)) * mpmath.fprod(a + ell - 1 for ell in range(m - j))
        if a - j <= 0:
            inner = (1 - q) ** (a - j) * _bt_mp(sigma, m)
        else:
            inner = _bt_mp(sigma, m) + mpmath.fsum(
                q**ell
                * mpmath.factorial(ca - j)
                * mpmath.factorial(m)
                / (mpmath.factorial(ca - j - ell) * mpmath.factorial(m + ell))
                * _bt_mp(sigma, ell + m)
                for ell in range(ca - j + 1)
            )
        tot += pre * inner
    return q**m / mpmath.factorial(m) * tot


def poisson_replace_one_mp(alpha, q, sigma, m: int = 5, dps: int = 80) -> mpf:
    """Reference for Birrell et al. Thm C.9 (98): (83), (90), (44), (47) at 2 sigma, evaluated
    literally (alternating sums at high ``dps``), independently of the certified code."""
    with mp.workdps(max(dps, 80)):
        a, qq, s = _f(Fraction(alpha)), _f(Fraction(q)), _f(Fraction(sigma))
        tot = qq**2 * a * (a - 1) * (mpmath.exp(1 / s**2) - mpmath.exp(-1 / s**2))
        for k in range(3, m):
            tot += qq**k / mpmath.factorial(k) * _f_tilde_mp(a, 2 * s, k)
        tot += _e_tilde_mp(a, qq, 2 * s, m)
        return mpmath.log1p(tot) / (a - 1)


def poisson_replace_one_true_mp(alpha, q, sigma, dps: int = 30) -> mpf:
    r"""The divergence that (96) shows to be the worst case at second order:
    :math:`D_\alpha(qN(1,\sigma^2)+(1-q)N(0,\sigma^2)\,\|\,qN(-1,\sigma^2)+(1-q)N(0,\sigma^2))`
    (one record with gradient +1 replaced by -1, all others 0), by quadrature."""
    with mp.workdps(dps):
        qq = _f(Fraction(q))
        return mixture_renyi_mp([1, 0], [qq, 1 - qq], [-1, 0], [qq, 1 - qq], _f(Fraction(sigma)), alpha, dps)
