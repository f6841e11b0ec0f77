r"""Wang, Balle, Kasiviswanathan 2019: RDP of subsampling without replacement.

Source: Y.-X. Wang, B. Balle, S. Kasiviswanathan, "Subsampled Rényi Differential
Privacy and Analytical Moments Accountant", AISTATS 2019, Theorem 9 (upper
bound) and Proposition 11 (lower bound), as restated for DP-SGD in Birrell et
al. (seed ``004_…``), Appendix E, eqs. (127)-(133).  Adjacency: replace-one.
Sampling: a uniformly random subset of ``m = |B|`` of the ``n = |D|`` records,
:math:`\gamma = q = m/n`.

General form (Wang et al. 2019, Theorem 9), for integer :math:`\alpha \ge 2` and a
base mechanism with replace-one RDP curve :math:`\epsilon(\cdot)` and pure-DP
parameter :math:`\epsilon(\infty)` (``+inf`` if it has none):

.. math::

    K(\alpha) = \log\Big(1 + q^2\binom{\alpha}{2}\min\big\{4(e^{\epsilon(2)}-1),\;
        e^{\epsilon(2)}\min\{2, (e^{\epsilon(\infty)}-1)^2\}\big\}
      + \sum_{j=3}^{\alpha} q^j\binom{\alpha}{j} e^{(j-1)\epsilon(j)}\min\{2, (e^{\epsilon(\infty)}-1)^j\}\Big),

    \epsilon'(\alpha) \le K(\alpha)/(\alpha-1).

For the DP-SGD Gaussian mechanism under replace-one adjacency the base curve is
:math:`\epsilon(j) = 2j/\sigma^2` (eq. (129): sensitivity 2 of the clipped sum), and
with :math:`\epsilon(\infty) = \infty` the bound becomes (127) -- except that (127) keeps
only the first entry :math:`4(e^{\epsilon(2)}-1)` of the minimum.  The two agree when
:math:`\epsilon(2) \le \log 2` (i.e. :math:`\sigma^2 \ge 4/\log 2`); below that the
theorem's minimum is smaller.  :func:`wang2019_gaussian_upper_seed` implements
(127) literally, :func:`wang2019_upper` the theorem; the accountant uses the latter.

Real orders, (130)-(132): :math:`(\alpha-1)D_\alpha` is convex in :math:`\alpha` for any pair of
distributions (Hölder) and vanishes at :math:`\alpha=1` for mutually absolutely
continuous pairs (is :math:`\le 0` in general), so linear interpolation of
:math:`K` between :math:`\lfloor\alpha\rfloor` and :math:`\lfloor\alpha\rfloor+1` (and
:math:`K(\alpha) \le (\alpha-1) K(2)` on :math:`(1,2)`) is an upper bound on
:math:`(\alpha-1)\epsilon'(\alpha)`.

Lower bound (Wang et al. 2019, Proposition 11; eq. (133)) at integer orders:

.. math:: \epsilon'(\alpha) \ge \frac{\alpha}{\alpha-1}\log(1-q) + \frac{1}{\alpha-1}\log\Big[1
          + \alpha\frac{q}{1-q} + \sum_{j=2}^{\alpha}\binom{\alpha}{j}\Big(\frac{q}{1-q}\Big)^j e^{(j-1)\epsilon(j)}\Big].

Multiplying in :math:`(1-q)^\alpha` shows that the argument of the logarithm equals
:math:`\sum_j \binom{\alpha}{j}q^j(1-q)^{\alpha-j}e^{(j-1)\epsilon(j)}`, and since the binomial
weights sum to one we evaluate
:math:`\log\big(1 + \sum_{j\ge2}\binom{\alpha}{j}q^j(1-q)^{\alpha-j}(e^{(j-1)\epsilon(j)}-1)\big)`,
a sum of non-negative terms (no cancellation for tiny q).  For the Gaussian
(:math:`(j-1)\epsilon(j) = 2j(j-1)/\sigma^2`) this is exactly the Rényi divergence
:math:`D_\alpha((1-q)N(0,\sigma^2)+qN(2,\sigma^2)\,\|\,N(0,\sigma^2))` of a pair of datasets that
differ in one record with anti-parallel clipped gradients, so it is a genuine
lower bound for fixed-size sampling without replacement under replace-one
adjacency.  For a general base curve (133) is a lower bound only when the base
curve is attained by one pair of inputs at all orders (as for the Gaussian);
:func:`wang2019_lower_general` documents that hypothesis.

All sums are evaluated in linear ball arithmetic (arb exponents are unbounded,
so :math:`q^j` with :math:`q = 10^{-9}` and :math:`e^{2j^2/\sigma^2}` with
:math:`\sigma = 0.3` are representable); the final logarithm is a ``log1p``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb

from .. import floatmath, validation
from ..arith import parse_rational, to_arb
from ..curves import RdpCurve
from ..mechanisms import GaussianCurve

__all__ = [
    "Wang2019Curve",
    "replace_one_gaussian_curve",
    "wang2019_curve",
    "wang2019_gaussian_lower",
    "wang2019_gaussian_upper",
    "wang2019_gaussian_upper_seed",
    "wang2019_log_k",
    "wang2019_lower_general",
    "wang2019_upper",
]


def _q_from_sizes(batch_size: object, dataset_size: object) -> Fraction:
    from ..validation import integer_at_least

    b = integer_at_least(batch_size, "batch-size", 1)
    n = integer_at_least(dataset_size, "dataset-size", 1)
    if b > n:
        raise ValueError(f"batch-size must be <= dataset-size ({n}). Found {b}.")
    return Fraction(b, n)


def _check_q(q: object) -> Fraction:
    return validation.unit_interval(q, "q")


def _check_int_order(alpha: object) -> int:
    return int(validation.order(alpha, integer=True))


def replace_one_gaussian_curve(sigma: object) -> RdpCurve:
    r"""Replace-one RDP curve of the DP-SGD Gaussian mechanism, :math:`2\alpha/\sigma^2` (eq. (129)).

    The clipped sum has replace-one sensitivity 2 (two clipped vectors of norm 1,
    anti-parallel at worst), i.e. it is the Gaussian curve with noise :math:`\sigma/2`.
    """
    s = parse_rational(sigma, "sigma")
    if s <= 0:
        raise ValueError(f"sigma must be > 0. Found {float(s)!r}.")
    return GaussianCurve(s / 2)


# ---------------------------------------------------------------------------
# upper bound, Theorem 9
# ---------------------------------------------------------------------------


def wang2019_log_k(alpha: int, base: RdpCurve, q: arb, literal_127: bool = False) -> arb:
    r"""Ball for :math:`K(\alpha)` of Wang et al. 2019, Theorem 9 (integer :math:`\alpha \ge 2`).

    Args:
        alpha: integer order >= 2.
        base: replace-one RDP curve of the base mechanism (``base.certified(j)``
            for j = 2..alpha, ``base.pure_dp_epsilon()`` for :math:`\epsilon(\infty)`).
        q: ball for the sampling ratio :math:`m/n` in [0, 1].
        literal_127: keep only :math:`4(e^{\epsilon(2)}-1)` in the second-order term
            and the factor 2 for j >= 3, as in the seed's (127).
    """
    eps2 = base.certified(Fraction(2))
    eps_inf = None if literal_127 else base.pure_dp_epsilon()
    c2 = 4 * eps2.expm1()
    if not literal_127:
        cap2 = arb(2) if eps_inf is None else arb(2).min(eps_inf.expm1() ** 2)
        c2 = c2.min(eps2.exp() * cap2)
    total = q * q * arb(alpha * (alpha - 1) // 2) * c2
    if alpha >= 3:
        binom = arb(alpha * (alpha - 1) // 2)
        qj = q * q
        em1 = None if eps_inf is None else eps_inf.expm1()
        for j in range(3, alpha + 1):
            binom = binom * (alpha - j + 1) / j
            qj = qj * q
            cap = arb(2) if em1 is None else arb(2).min(em1**j)
            ej = base.certified(Fraction(j))
            total += qj * binom * ((j - 1) * ej).exp() * cap
    return total.log1p()


def wang2019_upper(alpha: object, base: RdpCurve, q: object, literal_127: bool = False) -> arb:
    r"""Ball for the Wang et al. 2019 upper bound on the RDP of sampling without
    replacement at any real order > 1: Theorem 9 at integers, (130)-(132) between.

    Args:
        alpha: order > 1 (exact rational).
        base: replace-one RDP curve of the base mechanism.
        q: sampling ratio |B|/|D| in [0, 1].
    """
    a = validation.order(alpha)
    qq = _check_q(q)
    if qq == 0:
        return arb(0)
    qa = to_arb(qq)
    a0 = a.numerator // a.denominator
    t = a - a0
    if t == 0:
        return wang2019_log_k(a0, base, qa, literal_127) / (a0 - 1)
    if a0 == 1:
        # (131)-(132): K(alpha) <= (alpha - 1) K(2), i.e. eps'(alpha) <= eps'(2)
        return wang2019_log_k(2, base, qa, literal_127)
    tt = to_arb(t)
    k0 = wang2019_log_k(a0, base, qa, literal_127)
    k1 = wang2019_log_k(a0 + 1, base, qa, literal_127)
    return ((1 - tt) * k0 + tt * k1) / to_arb(a - 1)


def wang2019_gaussian_upper(alpha: object, sigma: object, q: object) -> arb:
    """Theorem 9 for the DP-SGD Gaussian (base curve (129)), any real order > 1."""
    return wang2019_upper(alpha, replace_one_gaussian_curve(sigma), q)


def wang2019_gaussian_upper_seed(alpha: object, sigma: object, q: object) -> arb:
    """The seed's (127)-(132) literally (never smaller than :func:`wang2019_gaussian_upper`)."""
    return wang2019_upper(alpha, replace_one_gaussian_curve(sigma), q, literal_127=True)


# ---------------------------------------------------------------------------
# lower bound, Proposition 11
# ---------------------------------------------------------------------------


def wang2019_lower_general(alpha: object, base: RdpCurve, q: object) -> arb:
    r"""Ball for the right side of (133) with base curve ``base`` (integer orders).

    A lower bound on the worst-case RDP of the subsampled mechanism when
    ``base`` is attained by a single pair of neighbouring inputs at all orders
    (true for the Gaussian mechanism).  Not a privacy guarantee.
    """
    a = _check_int_order(alpha)
    qq = _check_q(q)
    if qq == 0:
        return arb(0)
    if qq == 1:
        return base.certified(Fraction(a))
    qa = to_arb(qq)
    lq = qa.log()
    l1q = (-qa).log1p()
    log_binom = arb(a * (a - 1) // 2).log()
    total = arb(0)
    for j in range(2, a + 1):
        if j > 2:
            log_binom = log_binom + arb(a - j + 1).log() - arb(j).log()
        ej = base.certified(Fraction(j))
        total += (log_binom + j * lq + (a - j) * l1q).exp() * ((j - 1) * ej).expm1()
    return total.log1p() / (a - 1)


def wang2019_gaussian_lower(alpha: object, sigma: object, q: object) -> arb:
    r"""Ball for (133) with :math:`\epsilon(j) = 2j/\sigma^2` (129): a certified lower bound
    (use the lower end) on the replace-one RDP of FSwoR DP-SGD (integer orders)."""
    return wang2019_lower_general(alpha, replace_one_gaussian_curve(sigma), q)


# ---------------------------------------------------------------------------
# curve and event
# ---------------------------------------------------------------------------


class Wang2019Curve(RdpCurve):
    """Wang et al. 2019, Theorem 9 with (130)-(132): RDP of sampling without
    replacement (replace-one) for any base RDP curve; certified at every real order."""

    name = "wang2019"
    citation = "Wang, Balle, Kasiviswanathan 2019, Thm 9; Birrell et al. 2024, App. E.1, (127)-(132)"

    def __init__(self, base_curve: RdpCurve, q: Fraction):
        if not isinstance(base_curve, RdpCurve):
            raise ValueError(f"base_curve must be an RdpCurve. Found {base_curve!r}.")
        self.base = base_curve
        self.q = _check_q(q)

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        return wang2019_upper(alpha, self.base, self.q)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        q = float(self.q)
        if q == 0:
            return np.zeros(len(a))
        amax = int(min(max(2.0, math.ceil(np.nanmax(np.where(np.isfinite(a), a, 2.0)))) + 1, 100000))
        js = np.arange(2, amax + 1, dtype=float)
        eps = np.asarray(self.base.screen(js), dtype=float)
        eps_inf_b = self.base.pure_dp_epsilon()
        log_cap_inf = math.inf if eps_inf_b is None else float(eps_inf_b.mid())
        cache: dict[int, float] = {}

        def log_k(m: int) -> float:
            if m in cache:
                return cache[m]
            j = np.arange(3, m + 1, dtype=float)
            e2 = eps[0]
            with np.errstate(all="ignore"):
                c2 = math.log(4.0) + (e2 + math.log(-math.expm1(-e2)) if e2 > 0 else -math.inf)
                cap2 = (
                    math.log(2.0)
                    if not math.isfinite(log_cap_inf)
                    else min(math.log(2.0), 2 * math.log(math.expm1(log_cap_inf)))
                )
                t2 = 2 * math.log(q) + math.log(m * (m - 1) / 2.0) + min(c2, e2 + cap2)
                lb = floatmath.gammaln(m + 1) - floatmath.gammaln(j + 1) - floatmath.gammaln(m - j + 1)
                capj = (
                    np.log(2.0)
                    if not math.isfinite(log_cap_inf)
                    else np.minimum(np.log(2.0), j * math.log(math.expm1(log_cap_inf)))
                )
                tj = j * math.log(q) + lb + (j - 1) * eps[(j - 2).astype(int)] + capj
            s = floatmath.logsumexp(np.concatenate([[t2], tj]))
            v = float(np.logaddexp(0.0, s))
            cache[m] = v
            return v

        out = np.empty(len(a))
        for i, x in enumerate(a):
            if not (x > 1 and math.isfinite(x)) or x > amax:
                out[i] = np.inf
                continue
            a0 = math.floor(x)
            t = x - a0
            if a0 == 1:
                out[i] = log_k(2)
            elif t == 0:
                out[i] = log_k(a0) / (a0 - 1)
            else:
                out[i] = ((1 - t) * log_k(a0) + t * log_k(a0 + 1)) / (x - 1)
        return out


def wang2019_curve(base_curve: RdpCurve, batch_size: object, dataset_size: object) -> RdpCurve:
    """The Wang et al. 2019 upper bound as an accountant curve (one step).

    Args:
        base_curve: **replace-one** RDP curve of the mechanism applied to the
            minibatch (for DP-SGD with noise multiplier sigma use
            :func:`replace_one_gaussian_curve`).
        batch_size, dataset_size: ``1 <= |B| <= |D|``.
    """
    return Wang2019Curve(base_curve, _q_from_sizes(batch_size, dataset_size))
