r"""mpmath reference values of the optimal delta(epsilon) of small compositions.

An independent code path for :mod:`rigorous_rdp.pld` (plain mpmath, no arb, no
discretisation).  It evaluates the hockey-stick divergence of the composed
dominating pair directly:

.. math::
    \delta_T(\varepsilon) = E_{P^T}\big[(1 - e^{\varepsilon - L_1 - \dots - L_T})_+\big]
    = E_{X \sim P}\big[\delta_{T-1}(\varepsilon - \ell(X))\big],

the recursion being Fubini's theorem on the product measure, with :math:`\delta_1` in
closed form.  Each level is one mpmath quadrature (an *estimate*, with mpmath's error
estimate, not a bound), so the cost grows like (number of nodes)^(T-1): use T <= 3 for
continuous mechanisms.  Randomized response is an exact finite sum, and the
Gaussian has the closed form of the composed Gaussian,
:math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon \Phi(-\varepsilon/\mu - \mu/2)`
with :math:`\mu = \sqrt{T}/\sigma` (Balle & Wang 2018, Theorem 8; Dong, Roth, Su 2022,
Corollary 2.13).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

import mpmath

__all__ = [
    "gaussian_delta",
    "randomized_response_delta",
    "laplace_delta",
    "poisson_gaussian_delta",
]


def _mp(x) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _ncdf(z):
    return mpmath.ncdf(z)


def gaussian_delta(sigma, steps: int, eps, dps: int = 40) -> mpmath.mpf:
    """Optimal delta of ``steps`` Gaussian mechanisms with noise ``sigma`` (closed form)."""
    with mpmath.workdps(dps):
        mu = mpmath.sqrt(steps) / _mp(sigma)
        e = _mp(eps)
        return _ncdf(-e / mu + mu / 2) - mpmath.exp(e) * _ncdf(-e / mu - mu / 2)


def randomized_response_delta(p, steps: int, eps, dps: int = 40) -> mpmath.mpf:
    r"""Exact: with :math:`p' = \max(p, 1 - p)`, the composed loss is :math:`(2k - T)\ell`
    with binomial(T, p') P-mass, :math:`\ell = \log(p'/(1-p'))`."""
    with mpmath.workdps(dps):
        pp = _mp(max(Fraction(p), 1 - Fraction(p)))
        ell = mpmath.log(pp / (1 - pp))
        e = _mp(eps)
        total = mpmath.mpf(0)
        for k in range(steps + 1):
            loss = (2 * k - steps) * ell
            if loss > e:
                total += mpmath.binomial(steps, k) * pp**k * (1 - pp) ** (steps - k) * (1 - mpmath.exp(e - loss))
        return total


def _laplace_delta1(b: mpmath.mpf, e: mpmath.mpf) -> mpmath.mpf:
    beta = 1 / b
    if e >= beta:
        return mpmath.mpf(0)
    if e < -beta:
        return 1 - mpmath.exp(e)
    xe = (1 - b * e) / 2
    return 1 - mpmath.exp(-xe / b) / 2 - mpmath.exp(e) * mpmath.exp((xe - 1) / b) / 2


def laplace_delta(scale, steps: int, eps, dps: int = 30) -> mpmath.mpf:
    """Optimal delta of ``steps`` Laplace mechanisms (recursion over the loss law)."""
    with mpmath.workdps(dps):
        b = _mp(scale)
        beta = 1 / b

        def delta(t: int, e):
            if t == 1:
                return _laplace_delta1(b, e)
            atoms = delta(t - 1, e - beta) / 2 + mpmath.exp(-beta) / 2 * delta(t - 1, e + beta)
            mid = mpmath.quad(lambda x: mpmath.exp(-x / b) / (2 * b) * delta(t - 1, e - (1 - 2 * x) / b), [0, 0.5, 1])
            return atoms + mid

        return delta(steps, _mp(eps))


def poisson_gaussian_delta(q, sigma, steps: int, eps, direction: str = "remove", dps: int = 20) -> mpmath.mpf:
    r"""Optimal delta of ``steps`` Poisson-subsampled Gaussians (one direction).

    remove: :math:`P = qN(1,\sigma^2) + (1-q)N(0,\sigma^2)`, :math:`Q = N(0,\sigma^2)`;
    add: the swapped pair.  :math:`\delta_1` directly from the densities:
    :math:`\delta_1(\varepsilon) = P(A) - e^\varepsilon Q(A)` with A the set where
    :math:`dP/dQ > e^\varepsilon`, a half-line found from the monotone likelihood ratio.
    """
    with mpmath.workdps(dps):
        qq, s = _mp(q), _mp(sigma)

        def ratio_log(x):  # log of (mixture / N(0)) at x
            return mpmath.log(1 - qq + qq * mpmath.exp((2 * x - 1) / (2 * s * s)))

        def threshold(e):  # x with ratio_log(x) = e (requires e^e > 1 - q)
            return s * s * mpmath.log((mpmath.exp(e) - 1 + qq) / qq) + mpmath.mpf(1) / 2

        def delta1(e):
            if direction == "remove":
                if mpmath.exp(e) <= 1 - qq:
                    return 1 - mpmath.exp(e)
                x = threshold(e)
                pa = qq * _ncdf(-(x - 1) / s) + (1 - qq) * _ncdf(-x / s)
                qa = _ncdf(-x / s)
                return pa - mpmath.exp(e) * qa
            # add: P = N(0), Q = mixture, loss = -ratio_log(x); A = {x < threshold(-e)}
            if mpmath.exp(-e) <= 1 - qq:
                return mpmath.mpf(0)
            y = threshold(-e)
            pa = _ncdf(y / s)
            qa = qq * _ncdf((y - 1) / s) + (1 - qq) * _ncdf(y / s)
            return pa - mpmath.exp(e) * qa

        def p_density(x):
            if direction == "remove":
                return (qq * mpmath.npdf(x, 1, s) + (1 - qq) * mpmath.npdf(x, 0, s))
            return mpmath.npdf(x, 0, s)

        def loss(x):
            return ratio_log(x) if direction == "remove" else -ratio_log(x)

        def delta(t: int, e):
            if t == 1:
                return delta1(e)
            lim = 12 * s + 2
            return mpmath.quad(lambda x: p_density(x) * delta(t - 1, e - loss(x)), [-lim, 0, 0.5, 1, lim])

        return delta(steps, _mp(eps))
