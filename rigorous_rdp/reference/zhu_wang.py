r"""mpmath reference values for the Zhu & Wang 2019 bounds and the chi^l divergences.

A second opinion, along a different path from :mod:`rigorous_rdp.subsampling.zhu_wang`:

* the theorems are summed *as printed in the seed* (not in the ``A - 1`` form),
  with plain high-precision mpmath (``dps`` digits plus guard digits);
* Theorem 11 is evaluated literally as displayed (its four groups of terms);
* the base RDP at integer orders is either the closed form in mpmath
  (``base="closed"``) or the definition by quadrature / finite sum from
  :mod:`rigorous_rdp.reference.gaussian` (``base="definition"``);
* chi^l divergences from their definitions: quadrature for Laplace and
  Gaussian, a convergent series for Poisson (``mpmath.nsum``).

Not certified (mpmath's quadrature error is an estimate).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

from . import gaussian as _g

__all__ = [
    "base_rdp_mp",
    "gaussian_chi_mp",
    "laplace_chi_mp",
    "poisson_chi_mp",
    "theorem5_mp",
    "theorem8_mp",
    "theorem11_mp",
    "zhu_wang_rdp_mp",
]


def _f(x) -> mpf:
    x = Fraction(x)
    return mpf(x.numerator) / x.denominator


def base_rdp_mp(kind: str, param, alpha: int, dps: int = 50, base: str = "closed") -> mpf:
    r"""RDP of the base mechanism at integer order (closed forms of the seed, Sec. 4, or the definition)."""
    if base == "definition":
        fn = {
            "gaussian": _g.gaussian_rdp_mp,
            "laplace": _g.laplace_rdp_mp,
            "randomized-response": _g.randomized_response_rdp_mp,
        }[kind]
        return fn(Fraction(alpha), Fraction(param), dps)
    with mp.workdps(dps + 20):
        a = mpf(alpha)
        v = _f(param)
        if kind == "gaussian":
            return a / (2 * v * v)
        if kind == "laplace":
            return mpmath.log(
                a / (2 * a - 1) * mpmath.exp((a - 1) / v) + (a - 1) / (2 * a - 1) * mpmath.exp(-a / v)
            ) / (a - 1)
        if kind == "randomized-response":
            return mpmath.log(v**a * (1 - v) ** (1 - a) + (1 - v) ** a * v ** (1 - a)) / (a - 1)
    raise ValueError(f"noise must be gaussian, laplace or randomized-response. Found {kind!r}.")


def _sum(alpha: int, gamma, eps: Callable[[int], mpf], factor: Callable[[int], int], dps: int) -> mpf:
    with mp.workdps(dps + 30):
        g = _f(gamma)
        a = alpha
        total = (1 - g) ** (a - 1) * (a * g - g + 1)
        for ell in range(2, a + 1):
            total += (
                factor(ell) * mpmath.binomial(a, ell) * (1 - g) ** (a - ell) * g**ell * mpmath.exp((ell - 1) * eps(ell))
            )
        return mpmath.log(total) / (a - 1)


def theorem8_mp(alpha: int, gamma, eps: Callable[[int], mpf], dps: int = 50) -> mpf:
    """Theorem 6 / 8 of the seed, summed as printed."""
    return _sum(alpha, gamma, eps, lambda ell: 1, dps)


def theorem5_mp(alpha: int, gamma, eps: Callable[[int], mpf], dps: int = 50) -> mpf:
    """Theorem 5 of the seed, summed as printed (factor 3 from l = 3 on)."""
    return _sum(alpha, gamma, eps, lambda ell: 3 if ell >= 3 else 1, dps)


def theorem11_mp(alpha: int, gamma, eps: Callable[[int], mpf], tau: int, dps: int = 50) -> mpf:
    """Theorem 11 of the seed, evaluated literally as displayed (valid when 2 tau < alpha)."""
    if not 2 * tau < alpha:
        raise ValueError("tau must satisfy 2 tau < alpha for the literal Theorem 11 formula.")
    with mp.workdps(dps + 30):
        g = _f(gamma)
        a = alpha
        E = eps(a - tau)
        t1 = (1 - g) ** a * (1 - mpmath.exp(-E))
        t2 = mpmath.exp(-E) * (1 - g + g * mpmath.exp(E)) ** a
        t3 = mpmath.fsum(
            mpmath.binomial(a, ell)
            * (1 - g) ** (a - ell)
            * g**ell
            * (mpmath.exp((ell - 1) * E) - mpmath.exp((ell - 1) * eps(ell)))
            for ell in range(2, tau + 1)
        )
        t4 = mpmath.fsum(
            mpmath.binomial(a, ell)
            * (1 - g) ** (a - ell)
            * g**ell
            * (mpmath.exp((ell - 1) * eps(ell)) - mpmath.exp((ell - 1) * E))
            for ell in range(a - tau + 1, a + 1)
        )
        return mpmath.log(t1 + t2 - t3 + t4) / (a - 1)


def zhu_wang_rdp_mp(
    kind: str,
    param,
    gamma,
    alpha,
    bound: str = "tight",
    dps: int = 50,
    base: str = "closed",
    cap_pure_dp: bool = False,
    tau: int | None = None,
) -> mpf:
    r"""Reference of :class:`~rigorous_rdp.subsampling.zhu_wang.ZhuWangCurve` (tight / general / lower /
    tau with ``tau`` exact terms), including the real-order interpolation and the optional Lemma 4 cap."""
    cache = {}

    def eps(ell: int) -> mpf:
        if ell not in cache:
            cache[ell] = base_rdp_mp(kind, param, ell, dps, base)
        return cache[ell]

    def at_int(n: int) -> mpf:
        if bound == "tau":
            if tau is None:
                raise ValueError("tau must be given for the tau-term bound.")
            return theorem11_mp(n, gamma, eps, tau, dps)
        fn = theorem5_mp if bound == "general" else theorem8_mp
        return fn(n, gamma, eps, dps)

    alpha = Fraction(alpha)
    with mp.workdps(dps + 20):
        if alpha.denominator == 1:
            v = at_int(int(alpha))
        elif alpha < 2:
            v = at_int(2)
        else:
            n = math.floor(alpha)
            a = _f(alpha)
            t = a - n
            v = ((1 - t) * (n - 1) * at_int(n) + t * n * at_int(n + 1)) / (a - 1)
        if cap_pure_dp and kind != "gaussian":
            p = _f(param)
            e_inf = 1 / p if kind == "laplace" else abs(mpmath.log(p / (1 - p)))
            v = min(v, mpmath.log1p(_f(gamma) * mpmath.expm1(e_inf)))
        return +v


# chi^l divergences from the definition


def gaussian_chi_mp(ell: int, mu, sigma, dps: int = 30) -> mpf:
    r""":math:`\int q (p/q - 1)^\ell` for :math:`p = N(\mu,\sigma^2)`, :math:`q = N(0,\sigma^2)` by quadrature."""
    with mp.workdps(dps + 10):
        m, s = _f(mu), _f(sigma)

        def f(x: mpf) -> mpf:
            return mpmath.npdf(x, 0, s) * (mpmath.exp((2 * x * m - m * m) / (2 * s * s)) - 1) ** ell

        pts = (
            [mpmath.ninf] + [k * s for k in range(-10, 11)] + [m + k * s for k in range(0, 3 * ell + 10)] + [mpmath.inf]
        )
        return mpmath.quad(f, sorted(set(pts)))


def laplace_chi_mp(ell: int, mu, b, dps: int = 30) -> mpf:
    r""":math:`\int q (p/q - 1)^\ell` for :math:`p = \mathrm{Lap}(\mu,b)`, :math:`q = \mathrm{Lap}(0,b)` by quadrature."""
    with mp.workdps(dps + 10):
        m, bb = _f(mu), _f(b)

        def q(x: mpf) -> mpf:
            return mpmath.exp(-abs(x) / bb) / (2 * bb)

        def f(x: mpf) -> mpf:
            return q(x) * (mpmath.exp((abs(x) - abs(x - m)) / bb) - 1) ** ell

        pts = sorted({mpmath.ninf, mpf(0), m, mpmath.inf} | {k * bb for k in (-30, -10, -3, 3, 10, 30)})
        return mpmath.quad(f, pts)


def poisson_chi_mp(ell: int, lam1, lam2, dps: int = 30) -> mpf:
    r""":math:`\sum_x q(x)(p(x)/q(x) - 1)^\ell` for Poisson pmfs, by a convergent series."""
    with mp.workdps(dps + 10):
        l1, l2 = _f(lam1), _f(lam2)

        def term(x):
            x = int(x)
            lq = -l2 + x * mpmath.log(l2) - mpmath.loggamma(x + 1)
            lp = -l1 + x * mpmath.log(l1) - mpmath.loggamma(x + 1)
            return mpmath.exp(lq) * (mpmath.exp(lp - lq) - 1) ** ell

        return mpmath.nsum(term, [0, mpmath.inf])
