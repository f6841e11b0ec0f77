r"""Exact RDP of the Poisson-subsampled Gaussian mechanism (add/remove adjacency).

With :math:`\mu_0 = N(0, \sigma^2)`, :math:`\mu_1 = N(1, \sigma^2)` and sampling
probability q, the RDP at order :math:`\alpha > 1` is

.. math::

    \epsilon(\alpha) = \frac{1}{\alpha-1}\log A_\alpha, \qquad
    A_\alpha = \mathbb{E}_{z\sim\mu_0}\Big[\big((1-q) + q\,e^{(2z-1)/(2\sigma^2)}\big)^\alpha\Big]

(blog part 2, Claim 27 and (9.5); Mironov, Talwar, Zhang 2019, Sec. 3; Zhu & Wang
2019, Theorem 8 with Prop. 10).  The other direction :math:`D_\alpha(\mu_0 \| (1-q)\mu_0+q\mu_1)`
is never larger (Mironov, Talwar, Zhang 2019, Thm. 5), so this is the RDP of the
mechanism under add/remove adjacency.

Certified evaluation.  We compute :math:`I = A_\alpha - 1 \ge 0` and return
``log1p(I) / (alpha - 1)``; no cancellation for tiny q.

* Integer orders (:func:`log_a_integer`): since the binomial weights sum to one,

  .. math:: I = \sum_{k=2}^{\alpha} \binom{\alpha}{k} q^k (1-q)^{\alpha-k}
            \big(e^{k(k-1)/(2\sigma^2)} - 1\big),

  a finite sum of non-negative terms, evaluated in ball arithmetic.

* Real orders (:func:`log_a_fractional`): with :math:`x(z) = q\,(e^{(2z-1)/(2\sigma^2)} - 1)`
  and :math:`f(x) = (1+x)^\alpha - 1 - \alpha x \ge 0` (convexity), and
  :math:`\mathbb{E}_{\mu_0}[x] = 0`,

  .. math:: I = \int_{-\infty}^{\infty} \varphi_\sigma(z)\, f(x(z))\, dz .

  The integrand is non-negative, so there is no cancellation between regions.
  :math:`\int_L^U` is computed by Arb's rigorous integration (``acb.integral``;
  the integrand is holomorphic where :math:`\mathrm{Re}(1+x) > 0`, which is
  checked on every ball, see the ``analytic`` flag), and the two tails are bounded
  and added to the radius:

  - lower tail, :math:`z \le L \le 1/2`: there :math:`x \in (-q, 0]`; :math:`f` is convex with
    :math:`f(0)=0`, :math:`f(-1) = \alpha - 1`, so :math:`f(x) \le (\alpha-1)|x| \le (\alpha-1) q` and
    :math:`\int_{-\infty}^L \le (\alpha-1)\,q\,\Phi(L/\sigma)` (:func:`lower_tail_bound`);
  - upper tail, :math:`z \ge U \ge 1/2`: there :math:`x \ge 0`, so
    :math:`f(x) \le (1+x)^\alpha \le (1 + q e^{w})^\alpha \le 2^{\alpha-1}(1 + q^\alpha e^{\alpha w})`
    with :math:`w = (2z-1)/(2\sigma^2)`, and completing the square,
    :math:`\int_U^\infty \le 2^{\alpha-1}\big[\bar\Phi(U/\sigma) + q^\alpha e^{\alpha(\alpha-1)/(2\sigma^2)}
    \bar\Phi((U-\alpha)/\sigma)\big]` (:func:`upper_tail_bound`).

The float function :func:`log_a_screen` (the two-sided binomial series of
Mironov, Talwar, Zhang 2019, Sec. 3.3, with a heuristic cut-off) is used only to
choose orders and integration windows, never as a reported value.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional

import numpy as np
from flint import acb, arb
from scipy import special

from ..arith import log_sum_exp, to_arb
from ..curves import RdpCurve

__all__ = [
    "log_a_integer",
    "log_a_fractional",
    "poisson_gaussian_rdp",
    "lower_tail_bound",
    "upper_tail_bound",
    "log_a_screen",
    "PoissonGaussianCurve",
]


def _gauss_sf(x: arb) -> arb:
    """Ball for the standard normal upper tail, 1 - Phi(x) = erfc(x / sqrt 2) / 2."""
    return (x / arb(2).sqrt()).erfc() / 2


def log_a_integer(alpha: int, q: arb, sigma: arb) -> arb:
    r"""Ball for :math:`\log A_\alpha` at an integer order :math:`\alpha \ge 2`.

    Blog part 2, Claim 27 / (9.5) (binomial expansion of :math:`A_\alpha`),
    rewritten as :math:`\log(1 + I)` with the non-negative sum ``I`` of the
    module docstring.
    """
    if alpha < 2:
        raise ValueError(f"alpha must be an integer >= 2. Found {alpha}.")
    one_m_q = 1 - q
    inv2s2 = 1 / (2 * sigma * sigma)
    if q == 0:
        return arb(0)
    if one_m_q == 0:
        return arb(alpha * (alpha - 1)) * inv2s2
    # log pmf_k = log[C(alpha, k) q^k (1-q)^(alpha-k)], by the ratio recurrence from k = 2
    log_q = q.log()
    log_1mq = one_m_q.log()
    log_ratio = log_q - log_1mq
    log_pmf = arb(alpha * (alpha - 1) // 2).log() + 2 * log_q + (alpha - 2) * log_1mq
    terms = []
    for k in range(2, alpha + 1):
        if k > 2:
            log_pmf = log_pmf + arb(alpha - k + 1).log() - arb(k).log() + log_ratio
        t = log_pmf + (arb(k * (k - 1)) * inv2s2).expm1().log()
        terms.append(t)
    return log_sum_exp(terms).exp().log1p()


def lower_tail_bound(L: arb, alpha: arb, q: arb, sigma: arb) -> arb:
    r"""Bound on :math:`\int_{-\infty}^{L} \varphi_\sigma f(x(z))\,dz` for :math:`L \le 1/2`:
    :math:`(\alpha-1)\,q\,\Phi(L/\sigma)` (module docstring)."""
    return (alpha - 1) * q * _gauss_sf(-L / sigma)


def upper_tail_bound(U: arb, alpha: arb, q: arb, sigma: arb) -> arb:
    r"""Bound on :math:`\int_{U}^{\infty} \varphi_\sigma f(x(z))\,dz` for :math:`U \ge 1/2`.

    With :math:`P = q^\alpha e^{\alpha(\alpha-1)/(2\sigma^2)}\bar\Phi((U-\alpha)/\sigma)`:
    :math:`2^{\alpha-1}[\bar\Phi(U/\sigma) + P]` in general, and the sharper
    :math:`(1 + r e^{-w_U})^\alpha P` (:math:`r = (1-q)/q`) when ``U`` is right of the
    crossover :math:`z_0`, because there :math:`B = q e^w (1 + r e^{-w}) \le q e^w (1 + r e^{-w_U})`.
    """
    s2 = sigma * sigma
    peak = (alpha * q.log() + alpha * (alpha - 1) / (2 * s2)).exp() * _gauss_sf((U - alpha) / sigma)
    r = (1 - q) / q
    w_u = (2 * U - 1) / (2 * s2)
    if w_u >= r.log():
        # U >= z0: B = q e^w (1 + r e^-w) <= q e^w (1 + r e^-w_U) for z >= U
        return (alpha * (r * (-w_u).exp()).log1p()).exp() * peak
    two_pow = (arb(2).log() * (alpha - 1)).exp()
    return two_pow * (_gauss_sf(U / sigma) + peak)


def _tail_point(log_target: float) -> float:
    """x >= 0 with exp(-x^2/2)/2 <= exp(log_target), hence 1 - Phi(x) <= exp(log_target)."""
    v = -log_target - math.log(2.0)
    return math.sqrt(2.0 * v) if v > 0 else 0.0


def _window(alpha: float, log_q: float, sigma: float, log_tol: float) -> tuple[float, float]:
    """Integration window [L, U] whose tail bounds are below exp(log_tol) (float planning)."""
    lt = log_tol - math.log(2.0)
    # lower: (alpha-1) q Phi(L/sigma) <= tol/2
    x0 = _tail_point(lt - math.log(alpha - 1) - log_q)
    L = min(0.5, -sigma * x0)
    c1 = (alpha - 1) * math.log(2.0)
    c2 = c1 + alpha * log_q + alpha * (alpha - 1) / (2 * sigma * sigma)
    x1 = _tail_point(lt - math.log(2.0) - c1)
    x2 = _tail_point(lt - math.log(2.0) - c2)
    U = max(0.5, sigma * x1, alpha + sigma * x2)
    return L, U


def log_a_fractional(alpha: arb, q: arb, sigma: arb, prec: int, log_i_estimate: float) -> arb:
    r"""Ball for :math:`\log A_\alpha` at a real order, by certified integration.

    The integral is split at the crossover :math:`z_0 = \sigma^2\log((1-q)/q) + 1/2`
    where :math:`q e^{w} = 1 - q`.  Left of it the integrand is evaluated as
    :math:`\varphi_\sigma(z) f(x)`; right of it, as
    :math:`q^\alpha e^{\alpha(\alpha-1)/(2\sigma^2)} \varphi_\sigma(z-\alpha)(1 + r e^{-w})^\alpha
    - \varphi_\sigma(z)(1 + \alpha x)` with :math:`r = (1-q)/q` (the same function, with the
    square completed), which keeps ball radii small for large orders.

    Args:
        alpha, q, sigma: balls (exact inputs converted at working precision);
            ``0 < q < 1``.
        prec: working precision in bits (sets the integration tolerance).
        log_i_estimate: float estimate of :math:`\log(A_\alpha - 1)` used only to
            place the window and set the absolute tolerance; a poor estimate costs
            width, never soundness.
    """
    fa = float(alpha.mid())
    flq = float(q.log().mid())
    fs = float(sigma.mid())
    if not math.isfinite(log_i_estimate):
        log_i_estimate = -745.0
    log_tol = log_i_estimate - prec * math.log(2.0)
    L, U = _window(fa, flq, fs, log_tol)
    s2 = sigma * sigma
    inv2s2 = 1 / (2 * s2)
    c = -(2 * arb.pi() * s2).log() / 2
    r = (1 - q) / q
    z0 = s2 * r.log() + arb(1) / 2
    c_right = alpha * q.log() + alpha * (alpha - 1) * inv2s2 + c
    qa = acb(q)
    aa = acb(alpha)
    ra = acb(r)

    def left(z: acb, analytic: bool) -> acb:
        x = qa * ((2 * z - 1) * inv2s2).expm1()
        base = 1 + x
        if analytic and not (base.real > 0):
            return acb(arb.nan())
        f = (aa * base.log(analytic=analytic)).expm1() - aa * x
        return (c - z * z * inv2s2).exp() * f

    def right(z: acb, analytic: bool) -> acb:
        w = (2 * z - 1) * inv2s2
        t = ra * (-w).exp()
        if analytic and not ((1 + t).real > 0):
            return acb(arb.nan())
        d = z - aa
        big = (c_right - d * d * inv2s2 + aa * (1 + t).log(analytic=analytic)).exp()
        x = qa * w.expm1()
        return big - (c - z * z * inv2s2).exp() * (1 + aa * x)

    fz0 = float(z0.mid())
    pts = {L, U, 0.5}
    pts |= {p for p in (fz0, fa - 8 * fs, fa + 8 * fs, fz0 + 8 * fs) if L < p < U}
    pts_sorted = sorted(pts)
    abs_tol = (arb(log_i_estimate) - prec * arb(2).log()).exp()
    rel_tol = arb(2) ** (-prec)
    total = acb(0)
    for a, b in zip(pts_sorted[:-1], pts_sorted[1:]):
        if b <= a:
            continue
        # each piece lies on one side of z0 up to float rounding of fz0; both forms
        # are the same function, so the side only matters for efficiency
        func = right if a >= fz0 else left
        total += acb.integral(func, arb(a), arb(b), rel_tol=rel_tol, abs_tol=abs_tol)
    tails = lower_tail_bound(arb(L), alpha, q, sigma) + upper_tail_bound(arb(U), alpha, q, sigma)
    # the integrand is non-negative, so the tails add an amount in [0, tails]
    i_ball = arb(total.real.lower()).union(arb(total.real.upper() + tails.upper()))
    if not (i_ball > -1):
        return arb.nan()
    return i_ball.log1p()


def log_a_screen(alphas: np.ndarray, q: float, sigma: float) -> np.ndarray:
    r"""Float estimates of :math:`\log A_\alpha` (order selection only, not certified).

    Integer orders: log-sum-exp of the non-negative terms of :math:`I`.
    Real orders: the two-sided binomial series of Mironov, Talwar, Zhang 2019,
    Sec. 3.3, truncated heuristically.
    """
    alphas = np.asarray(alphas, dtype=float)
    out = np.empty(len(alphas))
    for i, a in enumerate(alphas):
        out[i] = _screen_one(float(a), q, sigma)
    return out


def _log_fraction(x: Fraction) -> float:
    """Float natural log of a positive rational, without underflow (x may be 1e-400)."""
    return math.log(x.numerator) - math.log(x.denominator)


def _screen_one(a: float, q: float, sigma: float, log_q: Optional[float] = None) -> float:
    """Float estimate of log A_a (order selection only)."""
    log_i = _screen_log_i(a, q, sigma, log_q)
    return float(np.logaddexp(0.0, log_i))


def _screen_log_i(a: float, q: float, sigma: float, log_q: Optional[float] = None) -> float:
    """Float estimate of log(A_a - 1); ``log_q`` overrides log(q) when q underflows."""
    if log_q is None:
        if q == 0:
            return -math.inf
        log_q = math.log(q)
    if q == 1:
        e = a * (a - 1) / (2 * sigma * sigma)
        return math.log(math.expm1(e)) if e < 700 else e
    log_1mq = math.log1p(-q)
    if float(a).is_integer():
        k = np.arange(2, int(a) + 1, dtype=float)
        logc = special.gammaln(a + 1) - special.gammaln(k + 1) - special.gammaln(a - k + 1)
        ex = k * (k - 1) / (2 * sigma * sigma)
        log_expm1 = np.where(ex > 30, ex, np.log(np.expm1(np.minimum(ex, 30.0))))
        t = logc + k * log_q + (a - k) * log_1mq + log_expm1
        return float(special.logsumexp(t))
    # leading-order estimate for tiny effects, where the series below cancels
    e2 = 1.0 / sigma**2
    small = 2 * log_q + math.log(a * (a - 1) / 2) + (math.log(math.expm1(e2)) if e2 < 700 else e2)
    s2 = sigma * sigma
    z0 = s2 * (log_1mq - log_q) + 0.5
    # terms decay like k^-(a+2) past the crossover; 1e-10 relative is plenty for a screen
    n_terms = int(min(4000.0, 10.0 ** min(4.0, 10.0 / (a + 1.0)) + abs(z0) + a + 50.0))
    k = np.arange(0, n_terms, dtype=float)
    # log |C(a, k)| and its sign (the sign of Gamma(a - k + 1))
    sgn = special.gammasgn(a - k + 1)
    logc = special.gammaln(a + 1) - special.gammaln(k + 1) - special.gammaln(a - k + 1)
    # first half: C(a,k) (1-q)^(a-k) q^k e^{(k^2-k)/(2s2)} Phi((z0-k)/sigma)
    with np.errstate(all="ignore"):
        l1 = logc + (a - k) * log_1mq + k * log_q + (k * k - k) / (2 * s2) + special.log_ndtr((z0 - k) / sigma)
        j = a - k
        l2 = logc + j * log_q + k * log_1mq + (j * j - j) / (2 * s2) + special.log_ndtr((j - z0) / sigma)
    lt = np.concatenate([l1, l2])
    st = np.concatenate([sgn, sgn])
    finite = np.isfinite(lt)
    lt, st = lt[finite], st[finite]
    if len(lt) == 0:
        return small
    m = lt.max()
    s = float(np.sum(st * np.exp(lt - m)))
    if s <= 0:
        return small
    val = m + math.log(s)
    if val < 1e-8:
        return small
    return val + math.log1p(-math.exp(-val)) if val < 700 else val


def poisson_gaussian_rdp(alpha: Fraction, q: Fraction, sigma: Fraction, prec: int) -> arb:
    r"""Ball for the RDP of the Poisson-subsampled Gaussian at exact order ``alpha``.

    Exact value :math:`\frac{1}{\alpha-1}\log A_\alpha` (module docstring), for
    ``q`` in [0, 1], ``sigma`` > 0, any rational ``alpha`` > 1.  Call inside
    ``workprec(prec)``.
    """
    a = to_arb(alpha)
    qa = to_arb(q)
    sa = to_arb(sigma)
    if q == 0:
        return arb(0)
    if q == 1:
        return a / (2 * sa * sa)
    if alpha.denominator == 1:
        log_a = log_a_integer(int(alpha), qa, sa)
    else:
        log_i_est = _screen_log_i(float(alpha), float(q), float(sigma), _log_fraction(q))
        log_a = log_a_fractional(a, qa, sa, prec, log_i_est)
    return log_a / (a - 1)


class PoissonGaussianCurve(RdpCurve):
    """Poisson-subsampled Gaussian, add/remove adjacency: the exact RDP."""

    name = "poisson-gaussian"
    citation = "exact: blog part 2 Claim 27 / (9.5); Mironov, Talwar, Zhang 2019; Zhu & Wang 2019 Thm 8"

    def __init__(self, q: Fraction, sigma: Fraction):
        self.q = q
        self.sigma = sigma

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        from flint import ctx

        from .poisson_gaussian_series import fast_rdp  # extremes: tiny q or sigma, huge orders

        fast = fast_rdp(alpha, self.q, self.sigma, ctx.prec)
        return fast if fast is not None else poisson_gaussian_rdp(alpha, self.q, self.sigma, ctx.prec)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        if self.q == 0:
            return np.zeros(len(a))
        lq = _log_fraction(self.q)
        try:
            vals = np.array([_screen_one(float(x), float(self.q), float(self.sigma), lq) for x in a])
        except (ZeroDivisionError, OverflowError, ValueError):  # sigma beyond float range: no estimate
            return np.full(len(a), np.inf)
        return vals / (a - 1)
