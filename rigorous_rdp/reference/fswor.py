r"""mpmath reference values for fixed-size sampling without replacement (Birrell et al. 2024).

A different code path from :mod:`rigorous_rdp.subsampling.fswor`: the moments
:math:`M_{\sigma,k}` (44) are summed term by term in plain mpmath at a working
precision large enough to absorb the cancellation, and the bound formulas
(41)/(50)/(54) and (14)/(69)/(83)/(90) are transcribed directly (falling factorials,
factorials, no recurrences).  :func:`mixture_rdp_quad` integrates a two-mixture
Rényi divergence numerically (independent of any series).  Not certified: mpmath's
``quad`` error is an estimate.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

__all__ = ["mixture_rdp_quad", "ref_add_remove_rdp", "ref_b_tilde", "ref_moment_m", "ref_replace_one_rdp"]


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def ref_moment_m(k: int, sigma: Fraction) -> mpmath.mpf:
    """M_{sigma,k} of (44), summed at a precision raised by ~ k*(2 + log2(sigma)) bits."""
    extra = int(k * (3 + max(0.0, math.log2(float(sigma)))) + 64)
    with mpmath.workprec(mpmath.mp.prec + extra):
        v = 4 / _mpf(sigma) ** 2
        s = mpmath.fsum(
            (-1) ** (k - ell) * mpmath.binomial(k, ell) * mpmath.exp(ell * (ell - 1) * v / 2) for ell in range(k + 1)
        )
    return +s


def ref_b_tilde(j: int, sigma: Fraction) -> mpmath.mpf:
    """B~_{sigma,j} of (47)."""
    if j % 2 == 0:
        return ref_moment_m(j, sigma)
    return mpmath.sqrt(ref_moment_m(j - 1, sigma) * ref_moment_m(j + 1, sigma))


def _falling(a, k):
    out = mpmath.mpf(1)
    for j in range(k):
        out *= a - j
    return out


def ref_add_remove_rdp(alpha: Fraction, q: Fraction, sigma: Fraction, m: int) -> mpmath.mpf:
    """Thm 3.3 one step with Taylor order m: (41) with the remainder (50) / (54)."""
    a, qq = _mpf(alpha), _mpf(q)
    h = mpmath.mpf(1)
    for k in range(2, m):
        h += qq**k / mpmath.factorial(k) * _falling(a, k) * ref_moment_m(k, sigma)
    pabs = mpmath.fprod(abs(a - j) for j in range(m))
    if alpha > m:
        n = math.ceil(alpha) - m
        s = mpmath.fsum(
            qq**ell
            * mpmath.factorial(n)
            / (mpmath.factorial(n - ell) * mpmath.factorial(m + ell))
            * ref_b_tilde(ell + m, sigma)
            for ell in range(n + 1)
        )
        r = qq**m * pabs * (s + ref_b_tilde(m, sigma) / mpmath.factorial(m))
    else:
        r = qq**m / mpmath.factorial(m) * (1 - qq) ** (a - m) * pabs * ref_b_tilde(m, sigma)
    return mpmath.log(h + r) / (a - 1)


def ref_replace_one_rdp(alpha: Fraction, q: Fraction, sigma: Fraction, m: int) -> mpmath.mpf:
    """Thm 3.4 (14): k=2 term (69), F~ (83) for 3 <= k < m, E~ (90)."""
    a, qq, s = _mpf(alpha), _mpf(q), _mpf(sigma)
    total = 1 + qq**2 * a * (a - 1) * (mpmath.exp(4 / s**2) - mpmath.exp(2 / s**2))
    for k in range(3, m):
        bk = ref_b_tilde(k, sigma)
        lead = (a - 1) * a ** (k - 1)
        first = lead * (4 if k % 2 == 0 else 3) * bk
        second = (
            lead
            * mpmath.fsum(
                mpmath.binomial(k, j)
                * abs(
                    a
                    / (a - 1)
                    * mpmath.fprod(1 - ell / a for ell in range(j))
                    * mpmath.fprod(1 + (ell - 1) / a for ell in range(k - j))
                    - 1
                )
                for j in range(k + 1)
            )
            * bk
        )
        total += qq**k / mpmath.factorial(k) * (first + second)
    ca = math.ceil(alpha)
    e = mpmath.mpf(0)
    bm = ref_b_tilde(m, sigma)
    for j in range(m + 1):
        c = (
            (1 - qq) ** (-(a + m - j - 1))
            * mpmath.binomial(m, j)
            * mpmath.fprod(abs(a - ell) for ell in range(j))
            * mpmath.fprod(a + ell - 1 for ell in range(m - j))
        )
        if alpha <= j:
            inner = (1 - qq) ** (a - j) * bm
        else:
            n = ca - j
            inner = bm + mpmath.fsum(
                qq**ell
                * mpmath.factorial(n)
                * mpmath.factorial(m)
                / (mpmath.factorial(n - ell) * mpmath.factorial(m + ell))
                * ref_b_tilde(ell + m, sigma)
                for ell in range(n + 1)
            )
        e += c * inner
    total += qq**m / mpmath.factorial(m) * e
    return mpmath.log(total) / (a - 1)


def mixture_rdp_quad(
    alpha: Fraction,
    q: Fraction,
    scale: Fraction,
    mu_p: Fraction,
    mu_q: Fraction,
    mu_p2: Fraction = Fraction(0),
    mu_q2: Fraction = Fraction(0),
) -> mpmath.mpf:
    r""":math:`D_\alpha(qN(\mu_P, s^2) + (1-q)N(\mu_{P2}, s^2)\,\|\,qN(\mu_Q, s^2) + (1-q)N(\mu_{Q2}, s^2))`
    by mpmath quadrature (1-D; ``scale`` = s)."""
    a, qq, sc = _mpf(alpha), _mpf(q), _mpf(scale)
    mp_, mq_, mp2, mq2 = _mpf(mu_p), _mpf(mu_q), _mpf(mu_p2), _mpf(mu_q2)

    def dens(x, mu):
        return mpmath.npdf(x, mu, sc)

    def f(x):
        p = qq * dens(x, mp_) + (1 - qq) * dens(x, mp2)
        r = qq * dens(x, mq_) + (1 - qq) * dens(x, mq2)
        return p**a * r ** (1 - a)

    lo = min(mp_, mq_, mp2, mq2)
    hi = max(mp_, mq_, mp2, mq2)
    w = 40 * sc + 2 * (hi - lo) * a
    pts = [lo - w, lo - sc, lo, (lo + hi) / 2, hi, hi + sc, hi + a * (hi - lo + 1), hi + w]
    pts = sorted(set(pts))
    val = mpmath.quad(f, pts, maxdegree=10)
    return mpmath.log(val) / (a - 1)
