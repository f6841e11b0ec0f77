r"""Fast certified paths for the Poisson-subsampled Gaussian at extreme parameters.

Notation of :mod:`.poisson_gaussian`: :math:`z \sim \mu_0 = N(0, \sigma^2)`,
:math:`w = (2z-1)/(2\sigma^2)`, :math:`x = q(e^w - 1)`, and

.. math:: A_\alpha = \mathbb{E}_{\mu_0}\big[(1 + x)^\alpha\big], \qquad
          \epsilon(\alpha) = \frac{\log A_\alpha}{\alpha - 1}

(blog part 2, Claim 27 and (9.5); Zhu & Wang 2019, Theorem 8 with Prop. 10).
The general certified integration of :mod:`.poisson_gaussian` needs thousands of
bits when q is tiny (the value is of order :math:`q^2`, the integrand is 1 plus
that) and many subintervals when :math:`\sigma` is tiny or the order is huge.
Two enclosures below cost microseconds in exactly those regimes; each is a
theorem, not a heuristic, and each is used only when it is narrow enough.

**1. Moment sandwich (Minkowski), any order** (:func:`log_a_sandwich`).
Write :math:`1 + x = (1-q) + q e^w` and use norms of :math:`L^\alpha(\mu_0)`,
:math:`\alpha \ge 1`.  Since :math:`w \sim N(-s^2/2, s^2)` with :math:`s = 1/\sigma`,
:math:`\mathbb{E}[e^{\alpha w}] = e^{\alpha(\alpha-1)s^2/2}`, so
:math:`\|q e^w\|_\alpha = q e^{c}` with :math:`c = (\alpha-1)/(2\sigma^2)`.
Minkowski's inequality gives :math:`\|1+x\|_\alpha \le (1-q) + q e^{c}`; pointwise
:math:`1 + x \ge q e^w \ge 0` gives :math:`\|1+x\|_\alpha \ge q e^c`; and
:math:`\|1+x\|_\alpha \ge \|1+x\|_1 = 1` (Lyapunov; :math:`\mathbb{E}[x] = 0`).  Hence

.. math:: \frac{\alpha}{\alpha-1}\max(0,\ \log q + c) \;\le\; \epsilon(\alpha) \;\le\;
          \frac{\alpha}{\alpha-1}\log\big((1-q) + q e^{c}\big).

The width is :math:`\frac{\alpha}{\alpha-1}\log\big(1 + (1-q)e^{-c}/q\big)`, negligible when
:math:`q e^c \gg 1`: tiny :math:`\sigma` (:math:`\sigma = 10^{-9}`, :math:`10^{-400}`) or huge orders
(:math:`\alpha = 10^{12}`).  It needs neither a sum over :math:`\alpha` terms nor an integral.

**2. Series in q with a Lagrange remainder, real orders** (:func:`log_a_series`).
Let :math:`f(x) = (1+x)^\alpha - 1 - \alpha x`, so that :math:`A_\alpha - 1 = \mathbb{E}[f(x)]`
(module :mod:`.poisson_gaussian`).  Taylor's theorem with the Lagrange remainder at an
even :math:`K \ge \max(4, \alpha)` gives, for every :math:`x > -1`,

.. math:: f(x) = \sum_{k=2}^{K-1} \binom{\alpha}{k} x^k + \binom{\alpha}{K} (1+\xi)^{\alpha-K} x^K

with :math:`\xi` between 0 and x.  Here :math:`x \ge -q`; since :math:`\alpha - K \le 0`,
:math:`(1+\xi)^{\alpha-K} \le (1-q)^{\alpha-K}` (it is at most 1 when :math:`x \ge 0`).  Taking
expectations, with the moments :math:`m_k = \mathbb{E}[(e^w-1)^k]` and :math:`\mathbb{E}[x^k] = q^k m_k`
(K even, so :math:`|x|^K = x^K`):

.. math:: A_\alpha - 1 \in \sum_{k=2}^{K-1}\binom{\alpha}{k} q^k m_k + [-B_K, B_K], \qquad
          B_K = \Big|\binom{\alpha}{K}\Big| (1-q)^{\alpha-K} q^K m_K .

The formal series in q does not converge (x is unbounded), but for small q the
bound :math:`B_K` is of relative size :math:`q^{K-2} m_K / m_2`: at :math:`q = 10^{-400}` and
:math:`K = 4` the remainder is :math:`10^{-800}` relative, at 64-bit precision.  K is raised
(by 2) until :math:`B_K` is below the working precision, and the path is declined when the
remainders stop decreasing (then the general integration is used).

The moments (:func:`gaussian_exp_moment`): :math:`\mathbb{E}[e^{jw}] = e^{j(j-1)s^2/2}`, so

.. math:: m_k = \sum_{j=0}^{k} \binom{k}{j} (-1)^{k-j} e^{j(j-1)s^2/2}
              = \sum_{n \ge \lceil k/2 \rceil} \frac{(s^2/2)^n}{n!}\, S(k, n), \qquad
          S(k, n) = \sum_{j=0}^{k} \binom{k}{j}(-1)^{k-j} (j(j-1))^n .

The first form is used when :math:`s` is not small (its cancellation is then a few
bits, covered by guard bits); the second when :math:`\sigma` is large, where the first
would cancel :math:`k \log_2 \sigma` bits.  :math:`S(k, n)` is an exact integer, zero for
:math:`2n < k` (a k-th difference of a polynomial of degree 2n), and
:math:`0 \le S(k, n) \le 2^k (k(k-1))^n` (non-negative: :math:`(j(j-1))^n` is a power of the
falling factorial :math:`j^{\underline{2}}`, whose expansion in falling factorials has
non-negative coefficients, and the k-th difference at 0 picks :math:`k!` times the coefficient of
:math:`j^{\underline{k}}`), so the omitted tail lies in :math:`[0, T_N]` and with :math:`y = s^2 k(k-1)/2 \le 1/2` the tail from
:math:`n = N` is at most :math:`2^k y^N / N! \cdot 1/(1 - y/(N+1)) \le 2^{k+1} y^N / N!`.

Both enclosures contain the exact value for every :math:`0 < q < 1`, :math:`\sigma > 0`,
:math:`\alpha > 1` (the series needs nothing else); :func:`fast_rdp` returns one of them only
when its relative accuracy reaches the working precision, and ``None`` otherwise
(then the general code evaluates the exact finite binomial sum at integer orders up
to :data:`MAX_BINOMIAL_ORDER`, beyond which the order is refused with a ``ValueError``
naming the limit, or integrates at real orders).  Where the general code is already
fast the fast paths are not tried, so that established outputs do not change: the
series only for :math:`q \le 10^{-12}` (:data:`SERIES_MAX_Q`; the integration takes about
15 ms at :math:`q = 10^{-12}` and grows with the bits needed below), the sandwich at
real orders and at integer orders above :data:`SANDWICH_MIN_INTEGER_ORDER`.
Tests compare with mpmath quadrature at high precision and with the closed-form
leading term :math:`\binom{\alpha}{2} q^2 (e^{1/\sigma^2} - 1)` at :math:`q = 10^{-400}, 10^{-100000}`.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx

from ..arith import accurate_bits, to_arb, workprec

__all__ = [
    "MAX_BINOMIAL_ORDER",
    "MAX_SERIES_ORDER",
    "SANDWICH_MIN_INTEGER_ORDER",
    "SERIES_MAX_Q",
    "fast_rdp",
    "gaussian_exp_moment",
    "log_a_sandwich",
    "log_a_series",
]

#: largest number of series terms K tried before the series path is declined
MAX_SERIES_ORDER = 64
#: largest integer order handed to the general code (exact head and top terms, a proven
#: Chernoff bound on the middle block: milliseconds up to this order)
MAX_BINOMIAL_ORDER = 10**10
#: the series is used for q up to this value; above it the general integration is fast
#: (about 15 ms at 64 bits) and is kept, so that established outputs do not change
SERIES_MAX_Q = Fraction(1, 10**12)
#: integer orders from which the sandwich replaces the exact binomial sum (when narrow)
SANDWICH_MIN_INTEGER_ORDER = 10**4


def log_a_sandwich(alpha: arb, q: arb, sigma: arb) -> arb:
    r"""Ball containing :math:`\log A_\alpha` from the moment sandwich (module docstring, 1):
    :math:`[\alpha\max(0, \log q + c),\ \alpha\log((1-q) + q e^c)]`, :math:`c = (\alpha-1)/(2\sigma^2)`.

    Valid for :math:`0 < q \le 1`, :math:`\sigma > 0`, real :math:`\alpha \ge 1`.
    """
    c = (alpha - 1) / (2 * sigma * sigma)
    log_q = q.log()
    # log((1-q) + q e^c) = log q + c + log1p((1-q)/q * e^-c), no overflow of e^c
    t = ((1 - q) / q) * (-c).exp()
    upper = alpha * (log_q + c + t.log1p())
    lower = alpha * (log_q + c)
    lo = arb(lower.lower()) if lower > 0 else arb(0)
    return lo.union(arb(upper.upper()))


def _binomial_coefficients(alpha: arb, kmax: int) -> list[arb]:
    """C(alpha, k) for k = 0..kmax (generalised binomial coefficients, as balls)."""
    out = [arb(1)]
    for k in range(1, kmax + 1):
        out.append(out[-1] * (alpha - (k - 1)) / k)
    return out


def _moment_alternating(k: int, s2: arb) -> arb:
    total = arb(0)
    for j in range(k + 1):
        term = arb(math.comb(k, j)) * (arb(j * (j - 1)) * s2 / 2).exp()
        total += term if (k - j) % 2 == 0 else -term
    return total


def _stirling_like(k: int, n: int) -> int:
    """S(k, n) = sum_j C(k, j) (-1)^(k-j) (j(j-1))^n, an exact integer."""
    return sum(math.comb(k, j) * (-1) ** (k - j) * (j * (j - 1)) ** n for j in range(k + 1))


def _moment_series(k: int, s2: arb, bits: int) -> arb:
    y = s2 * k * (k - 1) / 2
    half = s2 / 2
    n = (k + 1) // 2
    total = arb(0)
    term_scale = half**n / arb(math.factorial(n))
    while True:
        total += term_scale * _stirling_like(k, n)
        n += 1
        term_scale = term_scale * half / n
        # tail from n: <= 2^(k+1) y^n / n!  (module docstring)
        tail = arb(2) ** (k + 1) * y**n / arb(math.factorial(n))
        if (total > 0 and tail <= total * arb(2) ** (-bits)) or n > k + 4 * bits:
            return total + arb(0).union(tail)


def gaussian_exp_moment(k: int, sigma: Fraction | arb) -> arb:
    r"""Ball for :math:`m_k = \mathbb{E}[(e^w - 1)^k]`, :math:`w \sim N(-1/(2\sigma^2), 1/\sigma^2)`.

    Exact for every integer :math:`k \ge 0` (module docstring): the alternating
    binomial sum with guard bits when :math:`k(k-1)/(2\sigma^2) > 1/2`, else the
    positive series with its tail bound.
    """
    if k < 0:
        raise ValueError(f"k must be an integer >= 0. Found {k}.")
    if k == 0:
        return arb(1)
    if k == 1:
        return arb(0)
    prec = ctx.prec
    s2 = 1 / to_arb(sigma) ** 2
    y = s2 * k * (k - 1) / 2
    if y > arb(1) / 2:
        # cancellation is at most a few bits per term here; an exact sigma is
        # re-rounded at the higher precision
        guard = k * (k.bit_length() + 2) + 32
        with workprec(prec + guard):
            value = _moment_alternating(k, 1 / to_arb(sigma) ** 2)
        return value + 0  # round to the working precision
    return _moment_series(k, s2, prec + 16)


def log_a_series(alpha: arb, q: arb, sigma: Fraction | arb, K: int) -> arb:
    r"""Ball for :math:`\log A_\alpha` from the series in q truncated at even ``K``
    (``K >= max(4, alpha)``) with the Lagrange remainder :math:`B_K` (module docstring, 2)."""
    if K % 2 or K < 4 or not (alpha <= K):
        raise ValueError(f"K must be an even integer >= max(4, alpha). Found {K}.")
    binom = _binomial_coefficients(alpha, K)
    total = arb(0)
    for k in range(2, K):
        total += binom[k] * q**k * gaussian_exp_moment(k, sigma)
    rem = abs(binom[K]) * ((alpha - K) * (1 - q).log()).exp() * q**K * gaussian_exp_moment(K, sigma)
    i_ball = total + arb(0).union(rem).union(-rem)
    return _nonneg(i_ball).log1p()


def _nonneg(x: arb) -> arb:
    """Intersect with [0, inf): A_alpha - 1 >= 0 (Renyi divergences are non-negative)."""
    if x >= 0:
        return x
    return arb(0).union(arb(x.upper())) if x.upper() >= 0 else arb(0)


def _series_fast(alpha: arb, q: arb, sigma: Fraction, fa: float, bits: int) -> arb | None:
    K = max(4, 2 * math.ceil(fa / 2))
    if K > MAX_SERIES_ORDER:
        return None
    binom = _binomial_coefficients(alpha, MAX_SERIES_ORDER)
    moments = {}

    def m(k: int) -> arb:
        if k not in moments:
            moments[k] = gaussian_exp_moment(k, sigma)
        return moments[k]

    log_1mq = (1 - q).log()
    total = arb(0)
    k_done = 2
    prev_rem = None
    while K <= MAX_SERIES_ORDER:
        for k in range(k_done, K):
            total += binom[k] * q**k * m(k)
        k_done = K
        rem = abs(binom[K]) * ((alpha - K) * log_1mq).exp() * q**K * m(K)
        if not (total > 0 and rem.is_finite()):
            return None
        if rem <= total * arb(2) ** (-bits):
            i_ball = _nonneg(total + arb(0).union(rem).union(-rem))
            return i_ball.log1p()
        if prev_rem is not None and not (rem < prev_rem):
            return None  # the asymptotic series no longer improves
        prev_rem = rem
        K += 2
    return None


def fast_rdp(alpha: Fraction, q: Fraction, sigma: Fraction, prec: int) -> arb | None:
    r"""Ball for :math:`\epsilon(\alpha)` from the sandwich or the series, or ``None``.

    Returns an enclosure only when its relative accuracy is at least ``prec - 20``
    bits (the caller, :func:`.arith.refine`, asks for ``prec - 24`` or fewer); the
    caller then falls back to the general certified evaluation.  For
    ``q`` in {0, 1} it returns ``None`` (the general code has exact forms).
    Call inside ``workprec(prec)``.
    """
    if q <= 0 or q >= 1:
        return None
    a = to_arb(alpha)
    qa = to_arb(q)
    sa = to_arb(sigma)
    bits = max(8, prec - 20)
    if alpha.denominator != 1 or alpha > SANDWICH_MIN_INTEGER_ORDER:
        log_a = log_a_sandwich(a, qa, sa)
        if accurate_bits(log_a, bits):
            return log_a / (a - 1)
    if alpha.denominator == 1:
        if alpha > MAX_BINOMIAL_ORDER:
            raise ValueError(
                f"alpha must be <= {MAX_BINOMIAL_ORDER} for these q and sigma (above it the Poisson-subsampled"
                " Gaussian is certified only where q exp((alpha-1)/(2 sigma^2)) is large). Found"
                f" {alpha}."
            )
        return None  # the finite binomial sum of the general code is exact
    if q > SERIES_MAX_Q:
        return None
    fa = float(alpha)
    out = _series_fast(a, qa, sigma, fa, bits + 4)
    if out is not None and accurate_bits(out, bits):
        return out / (a - 1)
    return None
