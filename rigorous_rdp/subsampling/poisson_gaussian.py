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

  a finite sum of non-negative terms, evaluated in ball arithmetic (up to order 4096 from
  the top term down, stopped with a proven bound on the rest: :func:`log_a_integer_from_top`).

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

import itertools
import math
import operator
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from flint import acb, arb, arb_poly

from ..arith import log_binomial_pmf, log_sum_exp, to_arb, workprec
from ..curves import RdpCurve
from ..floatmath import gammaln, log1pexp, log_binom_real, log_expm1, log_factorials, log_fraction, log_ndtr, logsumexp
from ..validation import MAX_ORDER
from .gauss_legendre import ellipse_box, gauss_legendre_error_factor, gauss_legendre_rule
from .poisson_gaussian_planning import _gap_log_bound, _screen_log_i_small_ints, _tail_point

__all__ = [
    "PoissonGaussianCurve",
    "integer_tail_bound",
    "integer_tail_plan",
    "log_a_fractional",
    "log_a_fractional_many",
    "log_a_integer",
    "log_a_screen",
    "lower_tail_bound",
    "poisson_gaussian_rdp",
    "screen_log_a",
    "upper_tail_bound",
]


def _gauss_sf(x: arb) -> arb:
    """Ball for the standard normal upper tail, 1 - Phi(x) = erfc(x / sqrt 2) / 2."""
    return (x / arb(2).sqrt()).erfc() / 2


def log_a_integer(
    alpha: int,
    q: arb,
    sigma: arb,
    head: int | None = None,
    blocks: Sequence[tuple[int, int]] = (),
    top: int | None = None,
    cache: dict[int, arb] | None = None,
) -> arb:
    r"""Ball for :math:`\log A_\alpha` at an integer order :math:`\alpha \ge 2`.

    Blog part 2, Claim 27 / (9.5) (binomial expansion of :math:`A_\alpha`),
    rewritten as :math:`\log(1 + I)` with the non-negative sum ``I`` of the
    module docstring.

    With ``head = K`` (and ``top = T``) only the terms :math:`k \le K` (and
    :math:`k \ge T`) are summed; the others are enclosed in :math:`[0, B]` with ``B``
    the proven bound of :func:`integer_tail_bound` over ``blocks`` (which must
    cover :math:`[K+1, T-1]`; without ``top``, :math:`[K+1, \alpha]`).

    ``cache`` (optional, for many orders of the same q and sigma at the same precision):
    a dict that keeps :math:`\log n` (key n) and :math:`\log(e^{k(k-1)/(2\sigma^2)} - 1)`
    (key -k) between calls; the balls are the ones computed without it.
    """
    if cache is None:
        cache = {}

    def log_n(n: int) -> arb:
        v = cache.get(n)
        if v is None:
            v = cache[n] = arb(n).log()
        return v

    def log_em1(k: int) -> arb:
        v = cache.get(-k)
        if v is None:
            v = cache[-k] = (arb(k * (k - 1)) * inv2s2).expm1().log()
        return v

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
    kmax = alpha if head is None else min(alpha, int(head))
    for k in range(2, kmax + 1):
        if k > 2:
            log_pmf = log_pmf + log_n(alpha - k + 1) - log_n(k) + log_ratio
        terms.append(log_pmf + log_em1(k))
    t_top = alpha + 1 if top is None else int(top)
    if kmax < alpha and t_top <= alpha:
        # exact top terms k = T..alpha: first term from log-gamma, then the ratio recurrence
        log_pmf = log_binomial_pmf(alpha, t_top, log_q, log_1mq)
        for k in range(t_top, alpha + 1):
            if k > t_top:
                log_pmf = log_pmf + arb(alpha - k + 1).log() - arb(k).log() + log_ratio
            terms.append(log_pmf + (arb(k * (k - 1)) * inv2s2).expm1().log())
    i_ball = log_sum_exp(terms).exp()
    if kmax < alpha:
        if (
            not blocks
            or blocks[0][0] != kmax + 1
            or blocks[-1][1] != min(alpha, t_top - 1)
            or any(b[1] + 1 != c[0] for b, c in itertools.pairwise(blocks))
        ):
            raise ValueError("blocks must cover the truncated range of the sum without gaps.")
        tail = integer_tail_bound(alpha, q, sigma, blocks)
        # the omitted terms are non-negative: I lies in [head, head + tail]
        i_ball = arb(i_ball.lower()).union(arb(i_ball.upper() + tail.upper()))
    return i_ball.log1p()


def log_a_integer_from_top(alpha: int, q: arb, sigma: arb, bits: int, cache: dict[int, arb] | None = None) -> arb:
    r"""Ball for :math:`\log A_\alpha` at an integer order :math:`\alpha \ge 2`, summing the terms of
    :math:`I` (:func:`log_a_integer`) from :math:`k = \alpha` down and stopping at the first K where
    the rest is proven below :math:`2^{-bits}` times the partial sum.

    With :math:`p_k = \binom{\alpha}{k} q^k (1-q)^{\alpha-k}` and :math:`E_k = e^{k(k-1)/(2\sigma^2)} - 1`,
    increasing in k: :math:`\sum_{k=2}^{K} p_k E_k \le E_K \sum_k p_k \le E_K`, so the omitted terms add
    an amount in :math:`[0, E_K]`.  For large orders the top terms dominate (:math:`E_k` grows like
    :math:`e^{k^2/(2\sigma^2)}`), and a few terms suffice.  ``cache`` keeps :math:`E_k` (key k)
    between calls at the same q, sigma and precision.  Requires ``0 < q < 1``.
    """
    if alpha < 2:
        raise ValueError(f"alpha must be an integer >= 2. Found {alpha}.")
    if cache is None:
        cache = {}
    inv2s2 = 1 / (2 * sigma * sigma)

    def em1(k: int) -> arb:
        v = cache.get(k)
        if v is None:
            v = cache[k] = (arb(k * (k - 1)) * inv2s2).expm1()
        return v

    ratio = (1 - q) / q
    eps = arb(2) ** (-bits)
    pmf = q**alpha
    total = arb(0)
    for k in range(alpha, 1, -1):
        if k < alpha:
            pmf = pmf * (k + 1) / (alpha - k) * ratio  # p_k from p_{k+1}
        total += pmf * em1(k)
        if k > 2 and em1(k - 1) < total * eps:
            # the omitted terms are non-negative: I lies in [total, total + E_{k-1}]
            total = arb(total.lower()).union(arb((total + em1(k - 1)).upper()))
            break
    return total.log1p()


def _gauss_sf_upper(x: arb) -> arb:
    r"""Ball whose upper end bounds :math:`1 - \Phi(x)`: the Mills-ratio bound
    :math:`\varphi(x)/x` for :math:`x \ge 1` (cheaper than erfc), else 1."""
    if x >= 1:
        return (-(x * x) / 2).exp() / (x * (2 * arb.pi()).sqrt())
    return arb(1)


def lower_tail_bound(L: arb, alpha: arb, q: arb, sigma: arb, sf: Callable[[arb], arb] = _gauss_sf) -> arb:
    r"""Bound on :math:`\int_{-\infty}^{L} \varphi_\sigma f(x(z))\,dz` for :math:`L \le 1/2`:
    :math:`(\alpha-1)\,q\,\Phi(L/\sigma)` (module docstring); ``sf`` is the Gaussian tail used
    (any function whose upper end bounds it)."""
    return (alpha - 1) * q * sf(-L / sigma)


def upper_tail_bound(U: arb, alpha: arb, q: arb, sigma: arb, sf: Callable[[arb], arb] = _gauss_sf) -> arb:
    r"""Bound on :math:`\int_{U}^{\infty} \varphi_\sigma f(x(z))\,dz` for :math:`U \ge 1/2`.

    With :math:`P = q^\alpha e^{\alpha(\alpha-1)/(2\sigma^2)}\bar\Phi((U-\alpha)/\sigma)`:
    :math:`2^{\alpha-1}[\bar\Phi(U/\sigma) + P]` in general, and the sharper
    :math:`(1 + r e^{-w_U})^\alpha P` (:math:`r = (1-q)/q`) when ``U`` is right of the
    crossover :math:`z_0`, because there :math:`B = q e^w (1 + r e^{-w}) \le q e^w (1 + r e^{-w_U})`.
    """
    s2 = sigma * sigma
    peak = (alpha * q.log() + alpha * (alpha - 1) / (2 * s2)).exp() * sf((U - alpha) / sigma)
    r = (1 - q) / q
    w_u = (2 * U - 1) / (2 * s2)
    if w_u >= r.log():
        # U >= z0: B = q e^w (1 + r e^-w) <= q e^w (1 + r e^-w_U) for z >= U
        return (alpha * (r * (-w_u).exp()).log1p()).exp() * peak
    two_pow = (arb(2).log() * (alpha - 1)).exp()
    return two_pow * (sf(U / sigma) + peak)


def _window(alpha: float, log_q: float, sigma: float, log_tol: float) -> tuple[float, float]:
    """Integration window [L, U] whose tail bounds are below exp(log_tol) (float planning)."""
    lt = log_tol - math.log(2.0)
    # lower: (alpha-1) q Phi(L/sigma) <= tol/2 (an order within 2^-52 of 1 has float alpha - 1 = 0:
    # planned as 2^-52; the tail bound itself is computed from the exact order)
    x0 = _tail_point(lt - math.log(max(alpha - 1, 2.0**-52)) - log_q)
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
    for a, b in itertools.pairwise(pts_sorted):
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

    Integer orders: log-sum-exp of the non-negative terms of :math:`I` (for large
    orders, the head of the sum plus the proven block bounds of the tail, see
    :func:`integer_tail_plan`).  Real orders: the two-sided binomial series of
    Mironov, Talwar, Zhang 2019, Sec. 3.3, truncated heuristically.
    """
    alphas = np.asarray(alphas, dtype=float)
    out = np.empty(len(alphas))
    for i, a in enumerate(alphas):
        out[i] = screen_log_a(float(a), q, sigma)
    return out


_log_fraction = log_fraction

#: integer orders up to this size are screened with every term of the sum
_FULL_SUM_MAX = 4096


def _log_terms_int(a: int, k: np.ndarray, log_q: float, log_1mq: float, sigma: float) -> np.ndarray:
    """Float log of the terms C(a,k) q^k (1-q)^(a-k) (e^{k(k-1)/(2 sigma^2)} - 1) of I."""
    if a <= 1 << 24:
        lf = log_factorials(a)
        ki = k.astype(np.int64)
        logc = lf[a] - lf[ki] - lf[a - ki]
    else:
        logc = gammaln(a + 1.0) - gammaln(k + 1.0) - gammaln(a - k + 1.0)
    out: np.ndarray = logc + k * log_q + (a - k) * log_1mq + log_expm1(k * (k - 1.0) / (2.0 * sigma * sigma))
    return out


def _block_log_bound(a: int, m: float, M: float, log_q: float, log_1mq: float, sigma: float) -> float:
    """Float value of the block bound of :func:`integer_tail_plan` (planning only)."""
    p = m / a
    if p <= math.exp(log_q):
        return math.inf
    kl = p * (math.log(p) - log_q) + ((1 - p) * (math.log1p(-p) - log_1mq) if p < 1 else 0.0)
    return M * (M - 1) / (2 * sigma * sigma) - a * kl


def integer_tail_plan(
    a: int, q: float, sigma: float, log_budget: float, log_q: float | None = None, max_blocks: int = 4000
) -> tuple[int, int, list[tuple[int, int]]] | None:
    r"""Plan a truncation of the integer-order sum :math:`I` with a proven bound on what is cut.

    For :math:`m \le k \le M` each term of :math:`I` is at most
    :math:`\binom{\alpha}{k} q^k (1-q)^{\alpha-k} e^{M(M-1)/(2\sigma^2)}`
    (:math:`e^x - 1 \le e^x`, and :math:`k(k-1)` increases in k), and the binomial
    mass of :math:`\{k \ge m\}` is at most :math:`e^{-\alpha\,\mathrm{KL}(m/\alpha \,\|\, q)}`
    for :math:`m/\alpha > q` (Chernoff-Hoeffding; Hoeffding 1963, Thm. 1).  So the block
    :math:`[m, M]` contributes at most :math:`\exp(M(M-1)/(2\sigma^2) - \alpha\,\mathrm{KL}(m/\alpha\|q))`.

    Returns ``(K, T, blocks)``: the terms :math:`k \le K` (head) and :math:`k \ge T`
    (top, the terms near :math:`k = \alpha` that dominate for small sigma) are summed
    exactly, and ``blocks`` is a list of ``(m, M)`` covering :math:`[K+1, T-1]` whose
    float bounds sum to at most ``exp(log_budget)``; ``None`` when no such plan is
    found cheaply (then the whole sum is evaluated).  The plan only chooses *where*
    to cut: the certified path evaluates the block bounds in ball arithmetic
    (:func:`integer_tail_bound`).
    """
    if log_q is None:
        log_q = math.log(q)
    log_1mq = math.log1p(-q)
    qf = math.exp(log_q)
    K = int(min(a, 64 + math.ceil(4 * a * qf)))
    limit = log_budget - math.log(max_blocks)
    while a // 4 > K:
        for top in (0, 64, 1024, 16384):
            T = a + 1 - top
            if T <= 2 * K:
                break
            blocks: list[tuple[int, int]] = []
            ok = True
            stack = [(K + 1, T - 1)]
            total = -math.inf
            evals = 0
            # a block whose bound is small enough is accepted; others are split
            while stack and ok:
                m, M = stack.pop()
                lb = _block_log_bound(a, m, M, log_q, log_1mq, sigma)
                evals += 1
                if lb <= limit:
                    blocks.append((m, M))
                    total = float(np.logaddexp(total, lb))
                elif m == M or evals > 4 * max_blocks:
                    ok = False
                else:
                    mid = (m + M) // 2
                    stack.append((mid + 1, M))
                    stack.append((m, mid))
            if ok and total <= log_budget:
                return K, T, sorted(blocks)
        K = 4 * K
    return None


def integer_tail_bound(a: int, q: arb, sigma: arb, blocks: Sequence[tuple[int, int]]) -> arb:
    r"""Ball upper bound on :math:`\sum_{k \ge K+1}` of the terms of :math:`I` (see :func:`integer_tail_plan`)."""
    total = arb(0)
    log_q = q.log()
    log_1mq = (1 - q).log()
    inv2s2 = 1 / (2 * sigma * sigma)
    for m, M in blocks:
        p = arb(m) / a
        if not p > q:
            return arb("inf")
        kl = p * (p.log() - log_q)
        if m < a:
            kl += (1 - p) * ((1 - p).log() - log_1mq)
        total += (arb(M * (M - 1)) * inv2s2 - a * kl).exp()
    return total


def screen_log_a(a: float, q: float, sigma: float, log_q: float | None = None) -> float:
    """Float estimate of log A_a at one order (order selection only); ``log_q``
    overrides log(q) when q underflows."""
    return float(log1pexp(_screen_log_i(a, q, sigma, log_q)))


def _screen_log_i(a: float, q: float, sigma: float, log_q: float | None = None) -> float:
    """Float estimate of log(A_a - 1); ``log_q`` overrides log(q) when q underflows."""
    if log_q is None:
        if q == 0:
            return -math.inf
        log_q = math.log(q)
    if q == 1:
        return float(log_expm1(a * (a - 1) / (2 * sigma * sigma)))
    log_1mq = math.log1p(-q)
    if float(a).is_integer():
        ai = int(a)
        if ai > _FULL_SUM_MAX:
            head = _log_terms_int(ai, np.arange(2, min(ai, 64) + 1, dtype=float), log_q, log_1mq, sigma)
            plan = integer_tail_plan(ai, q, sigma, logsumexp(head) - 40.0, log_q)
            if plan is not None:
                K, T, _blocks = plan
                k = np.concatenate([np.arange(2, K + 1, dtype=float), np.arange(T, ai + 1, dtype=float)])
                t = _log_terms_int(ai, k, log_q, log_1mq, sigma)
                return logsumexp(t)
            # no cheap truncation: estimate from every stride-th term (screen only)
            stride = max(1, ai // 20000)
            k = np.unique(
                np.concatenate(
                    [np.arange(2, ai + 1, stride, dtype=float), np.arange(max(2, ai - 64), ai + 1, dtype=float)]
                )
            )
            return logsumexp(_log_terms_int(ai, k, log_q, log_1mq, sigma)) + math.log(stride)
        k = np.arange(2, ai + 1, dtype=float)
        return logsumexp(_log_terms_int(ai, k, log_q, log_1mq, sigma))
    # leading-order estimate for tiny effects, where the series below cancels
    e2 = 1.0 / sigma**2
    small = 2 * log_q + math.log(a * (a - 1) / 2) + float(log_expm1(e2))
    s2 = sigma * sigma
    z0 = s2 * (log_1mq - log_q) + 0.5
    # terms decay like k^-(a+2) past the crossover; 1e-10 relative is plenty for a screen
    n_terms = int(min(4000.0, 10.0 ** min(4.0, 10.0 / (a + 1.0)) + abs(z0) + a + 50.0))
    k = np.arange(0, n_terms, dtype=float)
    # log |C(a, k)| and its sign (the sign of Gamma(a - k + 1))
    logc, sgn = log_binom_real(a, n_terms)
    # first half: C(a,k) (1-q)^(a-k) q^k e^{(k^2-k)/(2s2)} Phi((z0-k)/sigma)
    with np.errstate(all="ignore"):
        l1 = logc + (a - k) * log_1mq + k * log_q + (k * k - k) / (2 * s2) + log_ndtr((z0 - k) / sigma)
        j = a - k
        l2 = logc + j * log_q + k * log_1mq + (j * j - j) / (2 * s2) + log_ndtr((j - z0) / sigma)
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
    return float(log_expm1(val))


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
        ai = int(alpha)
        plan = None
        if ai > _FULL_SUM_MAX:
            lq = _log_fraction(q)
            log_i_est = _screen_log_i(float(alpha), float(q), float(sigma), lq)
            plan = integer_tail_plan(ai, float(q), float(sigma), log_i_est - (prec + 16) * math.log(2.0), lq)
        if plan is not None:
            log_a = log_a_integer(ai, qa, sa, plan[0], plan[2], plan[1])
        elif ai > _FULL_SUM_MAX:
            log_a = log_a_integer(ai, qa, sa)
        else:  # the same sum, from the top terms down, stopped with a proven bound on the rest
            log_a = log_a_integer_from_top(ai, qa, sa, prec + 8)
    else:
        log_i_est = _screen_log_i(float(alpha), float(q), float(sigma), _log_fraction(q))
        log_a = log_a_fractional(a, qa, sa, prec, log_i_est)
    return log_a / (a - 1)


class PoissonGaussianCurve(RdpCurve):
    """Poisson-subsampled Gaussian, add/remove adjacency: the exact RDP."""

    name = "poisson-gaussian"
    citation = "exact: blog part 2 Claim 27 / (9.5); Mironov, Talwar, Zhang 2019; Zhu & Wang 2019 Thm 8"
    search_order_cap = None  # integer orders are cheap at any size (truncated sums with proven tails)

    def __init__(self, q: Fraction, sigma: Fraction):
        self.q = q
        self.sigma = sigma

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        from flint import ctx

        from .poisson_gaussian_series import fast_rdp  # extremes: tiny q or sigma, huge orders

        fast = fast_rdp(alpha, self.q, self.sigma, ctx.prec)
        return fast if fast is not None else poisson_gaussian_rdp(alpha, self.q, self.sigma, ctx.prec)

    def certified_many(self, alphas: Sequence[Fraction]) -> list[arb]:
        """:meth:`certified` at many orders: the real orders that the fast paths of
        :func:`.poisson_gaussian_series.fast_rdp` do not settle (when there are at least
        :data:`BATCH_MIN_ORDERS` of them) share one trapezoidal grid and one ball-matrix product
        if they lie on a short arithmetic progression
        (:func:`.poisson_gaussian_trapezoid.log_a_trapezoid`), else one Gauss-Legendre rule
        (:func:`log_a_fractional_many`); an order both leave too wide is integrated on its own
        (:func:`log_a_fractional`); integer orders use the exact finite sum from its top terms
        (:func:`log_a_integer_from_top`)."""
        from flint import ctx

        from .poisson_gaussian_series import SERIES_MAX_Q, fast_rdp

        prec = ctx.prec
        alphas = [Fraction(a) for a in alphas]
        out: list[arb | None] = [None] * len(alphas)
        batch: list[int] = []
        cache: dict[int, arb] = {}  # e^{k(k-1)/(2 sigma^2)} - 1, shared by the sums at integer orders
        # fast_rdp at a real order (q > SERIES_MAX_Q) can only return the sandwich, whose relative
        # width is at least about e^-u / (u + 1), u = log q + (alpha - 1)/(2 sigma^2) (see its
        # module): below u = (prec - 20) log 2 - 10 it is declined (for q <= 1/2), so skip it there
        skip_sandwich = SERIES_MAX_Q < self.q <= Fraction(1, 2)
        log_q_f = _log_fraction(self.q) if self.q > 0 else 0.0
        inv2s2_f = 1 / (2 * float(self.sigma) ** 2) if float(self.sigma) > 1e-150 else math.inf
        skip_below = (prec - 20) * math.log(2.0) - 10
        qa, sa = to_arb(self.q), to_arb(self.sigma)
        for i, a in enumerate(alphas):
            if not (1 < a <= MAX_ORDER):  # the check of certified(), without re-parsing valid orders
                self.check_order(a)
            if a.denominator == 1 and 0 < self.q < 1 and a <= _FULL_SUM_MAX:
                # the exact sum of certified() (fast_rdp declines these orders), from the top terms
                out[i] = log_a_integer_from_top(int(a), qa, sa, prec + 8, cache) / (to_arb(a) - 1)
                continue
            if a.denominator == 1 or not (0 < self.q < 1):
                out[i] = self.certified(a)
                continue
            if not (skip_sandwich and log_q_f + (float(a) - 1) * inv2s2_f < skip_below):
                fast = fast_rdp(a, self.q, self.sigma, prec)
                if fast is not None:
                    out[i] = fast
                    continue
            batch.append(i)
        if len(batch) >= BATCH_MIN_ORDERS:
            from .poisson_gaussian_trapezoid import log_a_trapezoid

            # orders on a short arithmetic progression: one trapezoidal grid, one matrix product
            logs = log_a_trapezoid([alphas[i] for i in batch], self.q, self.sigma, prec)
            for i, la in zip(batch, logs, strict=True):
                if la is not None:
                    out[i] = la / (to_arb(alphas[i]) - 1)
            batch = [i for i in batch if out[i] is None]
        if len(batch) >= BATCH_MIN_ORDERS:
            logs = log_a_fractional_many([alphas[i] for i in batch], self.q, self.sigma, prec)
            for i, la in zip(batch, logs, strict=True):
                if la is not None:
                    out[i] = la / (to_arb(alphas[i]) - 1)
        return [
            v if v is not None else poisson_gaussian_rdp(a, self.q, self.sigma, prec)
            for v, a in zip(out, alphas, strict=True)
        ]

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        if self.q == 0:
            return np.zeros(len(a))
        lq = _log_fraction(self.q)
        try:
            q, sigma = float(self.q), float(self.sigma)
            vals = np.empty(len(a))
            small_int = (a == np.round(a)) & (a <= 256) & (q < 1)
            if small_int.any():
                vals[small_int] = log1pexp(
                    _screen_log_i_small_ints(a[small_int].astype(np.int64), lq, math.log1p(-q), sigma)
                )
            for i in np.nonzero(~small_int)[0]:
                vals[i] = screen_log_a(float(a[i]), q, sigma, lq)
        except (ZeroDivisionError, OverflowError, ValueError):  # sigma beyond float range: no estimate
            return np.full(len(a), np.inf)
        out: np.ndarray = vals / (a - 1)
        return out


# ---------------------------------------------------------------------------
# many real orders at once: one composite Gauss-Legendre rule shared by all orders
# ---------------------------------------------------------------------------

#: real orders above this are not batched (the per-order integration handles them)
BATCH_MAX_ORDER = 2000
#: fewer real orders than this are integrated one by one: the saving would be a few ms, and
#: short requests keep the enclosures of the per-order integration (as in the documented outputs)
BATCH_MIN_ORDERS = 8


def _log_i_rough(alphas: np.ndarray, log_q: float, log_1mq: float, sigma: float) -> np.ndarray:
    """Float estimate of log(A_a - 1) at many real orders (planning only): log-sum-exp of
    the terms of the binomial sum of :func:`log_a_integer` at k = 2, ..., floor(a), written
    with real binomial coefficients, and of the term k = a."""
    kmax = int(max(2.0, float(np.floor(alphas.max()))))
    # every k up to 256, then a coarse grid (an estimate: the terms vary slowly in k there)
    ks = np.arange(2, min(kmax, 256) + 1, dtype=float)
    if kmax > 256:
        ks = np.concatenate([ks, np.arange(257, kmax + 1, max(1, (kmax - 256) // 256), dtype=float)])
    k = ks[None, :]
    a = alphas[:, None]
    with np.errstate(all="ignore"):
        mask = k <= a
        kk = np.where(mask, k, 2.0)
        logc = gammaln(a + 1) - gammaln(kk + 1) - gammaln(np.maximum(a - kk, 0.0) + 1)
        t = logc + kk * log_q + (a - kk) * log_1mq + log_expm1(kk * (kk - 1) / (2 * sigma * sigma))
        t = np.where(mask, t, -np.inf)
        last = alphas * log_q + log_expm1(alphas * (alphas - 1) / (2 * sigma**2))
        both = np.concatenate([t, last[:, None]], axis=1)
        out: np.ndarray = logsumexp(both, axis=1)
    return out


class _Grid:
    r"""Composite Gauss-Legendre rule on the subintervals :math:`[1/2 + k\ell, 1/2 + (k+1)\ell]`,
    with the node quantities (ball arithmetic, computed once per subinterval) and the
    data of the error bound of :func:`log_a_fractional_many`."""

    def __init__(self, q: Fraction, sigma: Fraction, target: int, prec: int):
        self.qf = float(q)
        self.sf = float(sigma)
        sf = self.sf
        # half-length of a subinterval (2 min(sigma, sigma^2): the scales of the Gaussian and of
        # x(z); measured the fastest for a given accuracy), with 10 significant bits so that the breakpoints
        # 1/2 + 2hk are exact floats (adjacent subintervals share their endpoints exactly)
        mant, ex = math.frexp(2 * min(sf, sf * sf))
        self.h = math.ldexp(round(mant * 1024), ex - 10)
        self.ell = 2 * self.h
        # ellipse height: |Im w| <= 0.45 pi < pi/2 (Re(1 + x) > 0), and the Gaussian grows
        # by at most e^2 on it
        self.y = min(0.45 * math.pi * sf * sf, 2 * sf)
        t = self.y / self.h
        self.rho = t + math.sqrt(t * t + 1)  # (rho - 1/rho) h / 2 = y
        # rho^(-2m) below 2^-target with room for the bound M over the integral
        m = max(4, math.ceil(((target + 8) * math.log(2.0) + 9.0) / (2 * math.log(self.rho))))
        self.m = m
        self.prec = prec
        self.q = to_arb(q)
        self.sigma = to_arb(sigma)
        s2 = self.sigma * self.sigma
        self.inv2s2 = 1 / (2 * s2)
        self.log_norm = (2 * arb.pi() * s2).log() / 2  # log sqrt(2 pi sigma^2)
        self.r = (1 - self.q) / self.q
        self.err_factor = gauss_legendre_error_factor(m, arb(self.rho), arb(self.h))
        self.nodes, self.weights = gauss_legendre_rule(m, prec)
        self.cells: dict[int, tuple[Any, ...]] = {}
        self.sums: dict[tuple[int, int], tuple[arb, arb]] = {}

    def left(self, k: int) -> float:
        return 0.5 + k * self.ell

    def cell(self, k: int) -> tuple[Any, ...]:
        """(wphi, log1p(x), sum wphi, sum wphi x, box bound data) of subinterval k."""
        got = self.cells.get(k)
        if got is not None:
            return got
        h = arb(self.h)
        c = arb(self.left(k)) + h
        wphi, xs, lgs = [], [], []
        q, inv2s2 = self.q, self.inv2s2
        for u, wt in zip(self.nodes, self.weights, strict=True):
            z = c + h * u
            wphi.append(h * wt * (-(z * z) * inv2s2 - self.log_norm).exp())
            x = q * ((2 * z - 1) * inv2s2).expm1()
            xs.append(x)
            lgs.append(x.log1p())
        sw = sum(wphi, arb(0))
        swx = sum((a * b for a, b in zip(wphi, xs, strict=True)), arb(0))
        got = (wphi, lgs, sw, swx, self._box(k))
        self.cells[k] = got
        return got

    def window_sums(self, kl: int, ku: int) -> tuple[arb, arb]:
        """Sums of wphi and of wphi x over the subintervals kl, ..., ku - 1 (cached per window)."""
        got = self.sums.get((kl, ku))
        if got is None:
            prev = self.sums.get((kl, ku - 1))
            if prev is None:
                prev = (arb(0), arb(0))
                for k in range(kl, ku - 1):
                    c = self.cell(k)
                    prev = (prev[0] + c[2], prev[1] + c[3])
            c = self.cell(ku - 1)
            got = self.sums[(kl, ku)] = (prev[0] + c[2], prev[1] + c[3])
        return got

    def _box(self, k: int) -> tuple[Any, ...]:
        r"""Bounds on the rectangle around the Bernstein ellipse of subinterval k:
        log sup|phi|, log sup|x|, log max(1, sup|1+x|), log min(1, inf Re(1+x)) (None when
        Re(1+x) > 0 is not proven), log sup|1 + r e^{-w}|, sup|phi| and sup|phi| sup|x|,
        and the real range [xl, xu]."""
        xl, xu, y = ellipse_box(self.left(k) + self.h, self.h, self.rho)
        zr = arb(xl).union(arb(xu))
        zb = acb(zr, arb(0, y))
        w = (2 * zb - 1) * self.inv2s2
        x = self.q * w.expm1()
        one_x = 1 + x
        # with u = Re w in [u_l, u_u] and |Im w| <= v: |x| <= q (e^u + 1), |1 + x| <= 1 - q + q e^u,
        # |1 + r e^{-w}| <= 1 + r e^{-u}, and Re(1 + x) = 1 - q + q e^u cos(Im w) >= 1 - q when
        # v <= pi/2 (the ball versions are sharper on short rectangles, these on long ones)
        u_l = (2 * arb(xl) - 1) * self.inv2s2
        u_u = (2 * arb(xu) - 1) * self.inv2s2
        v = 2 * arb(y) * self.inv2s2
        X = abs(x).upper().min((self.q * (u_u.exp() + 1)).upper())
        B = abs(one_x).upper().min((1 - self.q + self.q * u_u.exp()).upper())
        D = one_x.real.lower()
        if 2 * v < arb.pi():
            D = D.max((1 - self.q).lower())
        T = abs(1 + self.r * (-w).exp()).upper().min((1 + self.r * (-u_l).exp()).upper())
        mr = 0.0 if xl <= 0 <= xu else min(abs(xl), abs(xu))
        lp = -(arb(mr) ** 2 - arb(y) ** 2) * self.inv2s2 - self.log_norm
        P = lp.exp()
        lx = X.log()
        lb1 = B.log() if B > 1 else arb(0)
        ld = None if not D > 0 else (D.log() if D < 1 else arb(0))
        # psi(x) = log(1 + r e^{-w(x)}) >= log|1 + r e^{-w}| on Re z = x; convex, so below its chord
        psl = (self.r * (-(2 * arb(xl) - 1) * self.inv2s2).exp()).log1p()
        psu = (self.r * (-(2 * arb(xu) - 1) * self.inv2s2).exp()).log1p()
        slope = (psu - psl) / (arb(xu) - arb(xl))
        lt = T.log()
        y2 = arb(y) ** 2 * self.inv2s2
        return (lp + 2 * lx, lb1, ld, lt, P, P * X, xl, xu, y2, psl, slope, float(slope.mid()))


def _gap_bound(alpha: arb, fa: float, q: arb, sigma: arb, L: float, z0: float, zc: float) -> arb:
    r"""Upper bound on :math:`\int_{1/2}^{L} \varphi_\sigma f(x(z))\,dz` for :math:`L > 1/2`.

    There :math:`x \ge 0`, so :math:`f(x) \le (1+x)^\alpha` and, completing the square
    (:func:`log_a_fractional`), :math:`\varphi_\sigma(z)(1+x)^\alpha = C_\alpha \varphi_\sigma(z-\alpha)
    (1 + r e^{-w})^\alpha` with :math:`C_\alpha = q^\alpha e^{\alpha(\alpha-1)/(2\sigma^2)}`,
    :math:`r = (1-q)/q`; :math:`1 + r e^{-w}` decreases in z.  On each piece :math:`[a, b]` of
    :math:`[1/2, L]` (cut at the float points ``z0``, ``zc``) the integral is at most
    :math:`C_\alpha (1 + r e^{-w(a)})^\alpha \Phi((b - \alpha)/\sigma)`.
    """
    s2 = sigma * sigma
    inv2s2 = 1 / (2 * s2)
    r = (1 - q) / q
    lc = alpha * q.log() + alpha * (alpha - 1) * inv2s2
    cuts = sorted({0.5, L} | {p for p in (z0, zc) if 0.5 < p < L})
    total = arb(0)
    for lo, hi in itertools.pairwise(cuts):
        w = (2 * arb(lo) - 1) * inv2s2
        lf = alpha * (r * (-w).exp()).log1p()
        total += (lc + lf).exp() * _gauss_sf_upper((alpha - arb(hi)) / sigma)
    return total


def log_a_fractional_many(alphas: Sequence[Fraction], q: Fraction, sigma: Fraction, prec: int) -> list[arb | None]:
    r"""Balls for :math:`\log A_\alpha` at many real orders, from ONE composite Gauss-Legendre rule.

    Same integral as :func:`log_a_fractional`, :math:`A_\alpha - 1 = \int \varphi_\sigma(z)
    f_\alpha(x(z))\,dz \ge 0`.  The nodes of the composite m-point rule on the subintervals
    :math:`[1/2 + k\ell, 1/2 + (k+1)\ell]` are shared by all orders: :math:`x_j`,
    :math:`\log(1+x_j)` and the weight times the Gaussian density, :math:`\omega_j`, are
    computed once (balls); per order, :math:`\sum_j \omega_j (1+x_j)^\alpha` is accumulated
    (for increasing orders by one multiplication per node with the cached
    :math:`(1+x_j)^{\alpha - \alpha'}`), and :math:`\sum_j \omega_j (1 + \alpha x_j)` comes
    from prefix sums.  The node balls contain the exact nodes, so the result contains the
    exact Gauss sum; the working precision has guard bits for the cancellation
    (:math:`A_\alpha - 1` can be of order :math:`q^2`).

    Certified error per order and subinterval (:mod:`.gauss_legendre`,
    Trefethen 2008, Thm. 4.5): :math:`h\,\frac{64}{15} M \rho^{-2m}/(1-\rho^{-2})`, with M a
    bound of :math:`|\varphi_\sigma(z) f_\alpha(x(z))|` on a rectangle containing the
    Bernstein ellipse; the rectangle keeps :math:`|\mathrm{Im}\,w| < \pi/2`, so
    :math:`\mathrm{Re}(1 + x) > 0` (checked in ball arithmetic) and the integrand is
    analytic there.  Two bounds M hold on any such rectangle; the first is used when the
    rectangle lies left of the crossover :math:`z_0` (:func:`log_a_fractional`), the second
    otherwise:

    * :math:`\sup|\varphi| \cdot \frac{\alpha(\alpha-1)}{2} \sup|x|^2 \cdot \max(1, \sup|1+x|)^{\alpha-2}`
      (:math:`\alpha \ge 2`), resp. :math:`\cdot \min(1, \inf \mathrm{Re}(1+x))^{\alpha-2}`
      (:math:`\alpha < 2`), from :math:`f(x) = \alpha(\alpha-1)x^2 \int_0^1 (1-t)(1+tx)^{\alpha-2}dt`
      and :math:`\min(1, \mathrm{Re}(1+x)) \le |1+tx| \le \max(1, |1+x|)`;
    * :math:`\sup|\varphi_\sigma(z)(1+x)^\alpha| + \sup|\varphi|(1 + \alpha\sup|x|)`, where
      :math:`|\varphi_\sigma(z)(1+x)^\alpha| = C_\alpha |\varphi_\sigma(z-\alpha)| |1 + r e^{-w}|^\alpha`
      (completing the square, :math:`C_\alpha = q^\alpha e^{\alpha(\alpha-1)/(2\sigma^2)}`),
      :math:`|\varphi_\sigma(z-\alpha)| \le e^{-((\mathrm{Re}\,z-\alpha)^2 - \mathrm{Im}(z)^2)/(2\sigma^2)}/\sqrt{2\pi\sigma^2}`
      and :math:`\log|1 + r e^{-w}| \le \psi(\mathrm{Re}\,z)`, :math:`\psi(t) = \log(1 + r e^{-(2t-1)/(2\sigma^2)})`.
      Either :math:`\psi \le \psi(x_l)` (its value at the left edge) with the distance from
      :math:`\alpha` to :math:`[x_l, x_u]`, or, since :math:`\psi` is convex, :math:`\psi` below its
      chord on :math:`[x_l, x_u]`, and then the exponent
      :math:`-(t-\alpha)^2/(2\sigma^2) + \alpha\,\mathrm{chord}(t)` is a concave quadratic whose
      maximum over all real t is closed-form (used where the chord is steep: near
      :math:`z_0`, where a product of separate suprema would lose a factor :math:`e^{O(\alpha)}`).

    Outside the order's window :math:`[L, U]` (float planning): :func:`lower_tail_bound` and
    :func:`upper_tail_bound`, and for large orders whose window starts right of 1/2 the
    bound of :func:`_gap_bound` on :math:`[1/2, L]` after the lower tail at 1/2 (Gaussian tails
    by the Mills-ratio bound, :func:`_gauss_sf_upper`).  The integrand is non-negative: the
    tails add an amount in :math:`[0, \text{bound}]`.

    Parameters of the rule (measured): half-length :math:`h = 2\min(\sigma, \sigma^2)`
    (10 significant bits, so breakpoints are exact), rectangle height
    :math:`\min(0.45\pi\sigma^2, 2\sigma)` (:math:`|\mathrm{Im}\,w| \le 0.45\pi`, and the Gaussian
    factor grows by at most :math:`e^2`), :math:`\rho` from it, and m with
    :math:`\rho^{-2m} \approx 2^{-prec} e^{-9}`.

    Args:
        alphas: exact real orders > 1 (any order; sorted internally).
        q, sigma: exact, ``0 < q < 1``, ``sigma > 0``.
        prec: target precision in bits (the relative accuracy aimed at is about
            ``2^-(prec - 8)``, as narrow as the per-order integration's enclosures).

    Returns:
        per order, a ball for :math:`\log A_\alpha`, or ``None`` where the shared rule did
        not reach relative accuracy ``2^-(prec - 12)`` (the caller then integrates that
        order on its own with :func:`log_a_fractional`).
    """
    out: list[arb | None] = [None] * len(alphas)
    if not alphas or not (0 < q < 1) or sigma <= 0:
        return out
    # increasing orders (by their float values: any order of the walk is valid, this one is short)
    idx = sorted(range(len(alphas)), key=lambda i: float(alphas[i]))
    fa_all = np.array([float(alphas[i]) for i in idx])
    for order in alphas:
        if order <= 1:
            raise ValueError(f"alpha must be > 1. Found {float(order)!r}.")
    sf = float(sigma)
    lq = _log_fraction(q)
    l1q = math.log1p(-float(q))
    lr = l1q - lq
    if not (1e-3 <= sf <= 1e3) or lq < -700:
        return out  # extreme parameters: the per-order paths
    est = _log_i_rough(fa_all, lq, l1q, sf)
    target = prec - 8
    # guard bits for the cancellation in sum w (1+x)^a - sum w (1 + a x), about log2(1 + 1/I)
    usable = np.isfinite(est) & (fa_all >= 1 + 1e-6) & (fa_all <= BATCH_MAX_ORDER) & (est > -300 * math.log(2.0))
    if not usable.any():
        return out
    guard = int(max(0.0, float(np.max(-np.minimum(est[usable], 0.0))) / math.log(2.0))) + 16
    wprec = prec + guard
    with workprec(wprec):
        grid = _Grid(q, sigma, target, wprec)
        plan = _Plan(grid, sf, lq, lr)
        walk = _PowerWalk(alphas, idx)
        kg_prev = 0
        for pos, i in enumerate(idx):
            if not usable[pos]:
                continue  # left to the per-order integration
            fa = float(fa_all[pos])
            log_tol = float(est[pos]) - (target + 3) * math.log(2.0)
            kl, ku, kg_prev = plan.cells(fa, log_tol, kg_prev)
            out[i] = _log_a_on_cells(grid, plan, walk, pos, alphas[i], fa, kl, ku, prec)
    return out


class _Plan:
    """Float planning of :func:`log_a_fractional_many`: which subintervals an order integrates."""

    def __init__(self, grid: _Grid, sf: float, lq: float, lr: float):
        self.grid, self.sf, self.lq, self.lr = grid, sf, lq, lr
        self.z0 = sf * sf * lr + 0.5

    def cells(self, fa: float, log_tol: float, kg_prev: int) -> tuple[int, int, int]:
        """The subintervals ``kl, ..., ku - 1`` of the order ``fa``, and the start of the gap
        for the next order (``kg_prev`` is the previous order's)."""
        grid, sf, lq, lr, z0 = self.grid, self.sf, self.lq, self.lr, self.z0
        L, U = _window(fa, lq, sf, log_tol)
        # right of z0 the tail bound is about C_a (1 + r e^{-w_U})^a Phi(-(U - a)/s); the factor
        # (1 + r e^{-w_U})^a (up to e^{300} for large q and orders) is taken at a first U0 <= U,
        # where it is larger, so one correction suffices
        lc_f = fa * lq + fa * (fa - 1) / (2 * sf * sf)
        u_sharp = fa + sf * _tail_point(log_tol - 3.0 - lc_f)
        corr = fa * math.log1p(math.exp(lr - (2 * u_sharp - 1) / (2 * sf * sf)))
        u_sharp = fa + sf * _tail_point(log_tol - 3.0 - lc_f - corr)
        if u_sharp < U and u_sharp > z0 + 2 * sf:
            U = u_sharp
        kl = math.floor((L - 0.5) / grid.ell)
        ku = math.ceil((U - 0.5) / grid.ell)
        # large orders: start the window right of 1/2 when the gap bound allows it
        if fa > z0 + 2 * sf:
            lo_k, hi_k = min(kg_prev, ku - 1), min(math.floor((fa - 0.5) / grid.ell), ku - 1)
            if lo_k > 0 and _gap_log_bound(fa, lq, lr, sf, grid.left(lo_k), z0) > log_tol - 2.0:
                lo_k = 0
            elif lo_k < hi_k and _gap_log_bound(fa, lq, lr, sf, grid.left(lo_k + 1), z0) > log_tol - 2.0:
                hi_k = lo_k  # the previous order's start is still the largest
            while lo_k < hi_k:  # largest k with a small enough gap bound on [1/2, left(k)]
                mid = (lo_k + hi_k + 1) // 2
                if _gap_log_bound(fa, lq, lr, sf, grid.left(mid), z0) <= log_tol - 2.0:
                    lo_k = mid
                else:
                    hi_k = mid - 1
            kg_prev = lo_k
            if lo_k > 0:
                kl = lo_k
        return kl, ku, kg_prev


class _PowerWalk:
    r"""The node values :math:`\omega_j (1+x_j)^\alpha` of each subinterval, walked from an
    earlier (smaller) order by one multiplication per node with the cached
    :math:`(1+x_j)^{\alpha - \alpha'}` (a step is cached once it is seen twice)."""

    def __init__(self, alphas: Sequence[Fraction], idx: list[int]):
        self.alphas, self.idx = alphas, idx
        self.state: dict[int, tuple[int, list[arb]]] = {}  # subinterval -> (position of its order, values)
        self.steps: dict[tuple[int, int], list[arb]] = {}  # (subinterval, step id) -> (1 + x_j)^step
        self.step_ids: dict[Fraction, int] = {}
        self.step_vals: dict[int, Fraction] = {}
        self.seen_steps: set[int] = set()

    def values(
        self, k: int, pos: int, alpha: Fraction, a: arb, wphi: list[arb], lgs: list[arb], step_of: dict[int, int]
    ) -> list[arb]:
        """The values of subinterval ``k`` at the order ``alpha`` (position ``pos``); ``step_of``
        numbers the steps of this order (one Fraction per step)."""
        st = self.state.get(k)
        vals = None
        if st is not None:
            did = step_of.get(st[0])
            if did is None:  # number the step alpha - alpha' (one Fraction per step)
                d = alpha - self.alphas[self.idx[st[0]]]
                did = step_of[st[0]] = self.step_ids.setdefault(d, len(self.step_ids))
                self.step_vals[did] = d
            rp = self.steps.get((k, did))
            if rp is None and did in self.seen_steps:
                da = to_arb(self.step_vals[did])
                rp = self.steps[(k, did)] = [(da * lg).exp() for lg in lgs]
            if rp is not None:
                vals = list(map(operator.mul, st[1], rp))
            else:
                self.seen_steps.add(did)
        if vals is None:
            vals = [wp * (a * lg).exp() for wp, lg in zip(wphi, lgs, strict=True)]
        self.state[k] = (pos, vals)
        return vals


def _log_a_on_cells(
    grid: _Grid, plan: _Plan, walk: _PowerWalk, pos: int, alpha: Fraction, fa: float, kl: int, ku: int, prec: int
) -> arb | None:
    r""":math:`\log A_\alpha` from the subintervals ``kl, ..., ku - 1`` with the certified
    quadrature error and tail bounds of :func:`log_a_fractional_many`, or ``None`` below
    relative accuracy ``2^-(prec - 12)``."""
    z0 = plan.z0
    a = to_arb(alpha)
    one = arb(1)
    err_of = _CellError(grid, alpha, a, fa, z0)
    step_of: dict[int, int] = {}
    s_total = arb(0)
    err = arb(0)
    for k in range(kl, ku):
        wphi, lgs, _sw, _swx, box = grid.cell(k)
        # sum over the nodes of w (1+x)^a, walking from an earlier order where cached
        vals = walk.values(k, pos, alpha, a, wphi, lgs, step_of)
        s_total += arb_poly(vals)(one)  # the sum of vals, in one C call
        e = err_of(box)
        if e is None:  # Re(1 + x) > 0 not proven on the rectangle: no analyticity, no bound
            err = arb("inf")
            break
        err += e
    sw_tot, swx_tot = grid.window_sums(kl, ku)
    quad = s_total - sw_tot - a * swx_tot
    err = err * grid.err_factor
    qa, sa = grid.q, grid.sigma
    with workprec(32):  # bounds on what is cut off: a few correct bits suffice
        if kl <= 0:
            tails = lower_tail_bound(arb(grid.left(kl)), a, qa, sa, _gauss_sf_upper)
        else:
            zc = plan.sf * plan.sf * (plan.lr + math.log(fa)) + 0.5
            tails = lower_tail_bound(arb("0.5"), a, qa, sa, _gauss_sf_upper) + _gap_bound(
                a, fa, qa, sa, grid.left(kl), z0, zc
            )
        tails += upper_tail_bound(arb(grid.left(ku)), a, qa, sa, _gauss_sf_upper)
    lo = quad - err
    hi_b = quad + err + tails
    lo_end = lo.lower()
    if lo_end < 0:
        lo_end = arb(0)
    i_ball = arb(lo_end).union(arb(hi_b.upper()))
    log_a = i_ball.log1p()
    if log_a.is_finite() and log_a.rel_accuracy_bits() >= prec - 12:
        return log_a
    return None


class _CellError:
    """The bound M of :func:`log_a_fractional_many` on the rectangle of one subinterval, for one
    order (times the Gauss-Legendre factor later): the quadratic bound left of z0, the completed
    square right of it (either one is valid anywhere)."""

    def __init__(self, grid: _Grid, alpha: Fraction, a: arb, fa: float, z0: float):
        self.a, self.fa, self.z0 = a, fa, z0
        self.inv2s2 = grid.inv2s2
        self.sigma_sq = grid.sigma * grid.sigma
        self.sf = grid.sf
        self.lc_base = a * grid.q.log() + a * (a - 1) * grid.inv2s2 - grid.log_norm
        self.la2 = (a * (a - 1) / 2).log()
        self.am2 = a - 2
        self.ge2 = alpha >= 2  # the exact order decides the bound: float(alpha) = 2.0 for some alpha < 2
        self.f_lo = math.nextafter(fa, -math.inf)
        self.f_hi = math.nextafter(fa, math.inf)

    def __call__(self, box: tuple[Any, ...]) -> arb | None:
        """The bound on one rectangle, ``None`` where Re(1 + x) > 0 is not proven."""
        a = self.a
        lpx2, lb1, ld, lt, P, PX, xl, xu, y2, psl, slope, fsl = box
        if ld is None:
            return None
        lb = lb1 if self.ge2 else ld
        if xu <= self.z0 and lb is not None:
            e: arb = (lpx2 + self.la2 + self.am2 * lb).exp()
            return e
        if fsl < -0.5 / (self.fa * self.sf * self.sf):
            # sup over all real x of -(x - a)^2/(2 s^2) + a (psl + (x - xl) slope)
            ex = a * (psl + (a - xl) * slope) + self.sigma_sq * (a * slope) ** 2 / 2
        else:
            d_lo = max(0.0, math.nextafter(xl - self.f_hi, -math.inf), math.nextafter(self.f_lo - xu, -math.inf))
            ex = a * lt - arb(d_lo) ** 2 * self.inv2s2
        e = (self.lc_base + y2 + ex).exp() + P + a * PX
        return e
