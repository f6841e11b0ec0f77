r"""Fixed-size subsampling without replacement (FSwoR) of the Gaussian mechanism.

Certified evaluation of the RDP bounds of Birrell, Ebrahimi, Behnia, Pacheco,
"DP-SGD with Fixed-Size Minibatches: Tighter RDP Guarantees with or without
Replacement" (seed ``004_85a5147f28f95754.txt``; equation numbers refer to it).
Throughout, :math:`q = |B|/|D| < 1`, :math:`\sigma` is the noise multiplier,
:math:`L(\theta) = N_{1,\sigma^2/4}(\theta)/N_{0,\sigma^2/4}(\theta)` and
:math:`v = 4/\sigma^2`, so that under :math:`N_{0,\sigma^2/4}`, :math:`\log L \sim N(-v/2, v)`.

Add/remove adjacency (Thm 3.1-3.3, App. A-B).  One step is bounded by
:math:`\frac{1}{\alpha-1}\log H_{\alpha,\sigma}(q)` with :math:`H` of (8); Thm 3.2 and
(41), (50), (54) give, for any integer :math:`m \ge 3` and every real :math:`\alpha > 1`,

.. math::

    H_{\alpha,\sigma}(q) \le 1 + \sum_{k=2}^{m-1} \frac{q^k}{k!}\Big(\prod_{j<k}(\alpha-j)\Big) M_{\sigma,k}
    + \widetilde R_{\alpha,\sigma,m}(q),

with the moments :math:`M_{\sigma,k}` of (44), :math:`\widetilde B_{\sigma,j}` of (47) and the
remainder bound (50) (case :math:`\alpha - m > 0`) or (54) (case :math:`\alpha - m \le 0`).
The theorem holds at every real order (the remainder uses :math:`\lceil\alpha\rceil`), so no
extension to fractional orders is needed.  :func:`fswor_add_remove_exact_rdp` evaluates the
divergence of Thm 3.1 itself (the quantity the Taylor bound bounds), by reusing
:mod:`.poisson_gaussian` with :math:`\sigma/2` in place of :math:`\sigma`: the mixture
:math:`qN(1,\sigma^2/4) + (1-q)N(0,\sigma^2/4)` against :math:`N(0,\sigma^2/4)` is the
Poisson-subsampled Gaussian mixture with noise :math:`\sigma/2`.

Replace-one adjacency (Thm 3.4-3.5, App. C).  One step is bounded by (14):
:math:`\frac{1}{\alpha-1}\log[1 + q^2\alpha(\alpha-1)(e^{4/\sigma^2}-e^{2/\sigma^2})
+ \sum_{k=3}^{m-1}\frac{q^k}{k!}\widetilde F_{\alpha,\sigma,k} + \widetilde E_{\alpha,\sigma,m}(q)]`
with :math:`\widetilde F` of (83) and :math:`\widetilde E` of (90); the :math:`k=2` term is the
bound (69).  Also valid at every real order :math:`\alpha > 1`.

Moments without the float cancellation.  (44) is an alternating sum
:math:`M_{\sigma,k} = \sum_\ell (-1)^{k-\ell}\binom{k}{\ell} e^{\ell(\ell-1)v/2}`; in
float64 it cancels catastrophically (for :math:`\sigma = 20` the terms exceed the result
by up to :math:`2^{100}`).  Here it is evaluated in ball arithmetic as one polynomial
product (the binomial transform :math:`\sum_k M_k t^k/k! = e^{-t}\sum_\ell a_\ell t^\ell/\ell!`)
at a working precision raised by the number of cancelled bits, so every :math:`M_k`
is a rigorous enclosure.  (The moments are also non-negative for every k:
expanding :math:`a_\ell = (1+w)^{\binom{\ell}{2}}`, :math:`w = e^v - 1`, by inclusion-exclusion
:math:`M_{\sigma,k} = \sum_{G} w^{|E(G)|}`, the sum over graphs on k labelled vertices
without isolated vertices; ``proofs/verify_birrell_fswor.py`` checks this identity.)

Very large orders.  The remainder bounds need :math:`\widetilde B_{\sigma,j}` for
:math:`j \le \lceil\alpha\rceil + m + 1`.  When the cancellation makes the exact table too
expensive (large :math:`\sigma` together with :math:`\alpha` in the thousands), moments with
index above ``K_exact`` are replaced by the proven upper bound :func:`b_upper` of
:math:`B_{\sigma,j}` (the proofs of (50) and (90) only use *upper* bounds of
:math:`B_{\sigma,j}`, so the result is still a valid bound, at least as large as the
theorem's formula).  This happens only for terms weighted by :math:`q^\ell` with large
:math:`\ell`; the enclosure reports the theorem's formula exactly whenever
:math:`\lceil\alpha\rceil + m + 1 \le` ``K_exact`` (:func:`exact_moment_limit`).

Cost.  Moments of large index, where the top terms of (44) dominate, are summed directly
with a proven tail at the table's precision plus 64 bits (the guard bits are only for the
cancellation in the polynomial part).  The float screens of the replace-one curves
(``screen=True``) evaluate the long sums of (90), one term per order, as float
log-sum-exps over a cached table of :math:`\log\widetilde B_{\sigma,j}`; they choose
orders and Taylor orders only, and every reported value is the ball evaluation.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from flint import arb, arb_poly, ctx

from ..arith import accurate_bits, to_arb, workprec
from ..curves import RdpCurve
from ..floatmath import log_expm1, log_factorials
from ..validation import probability
from .poisson_gaussian import poisson_gaussian_rdp

__all__ = [
    "FsworAddRemoveCurve",
    "FsworAddRemoveExactCurve",
    "FsworReplaceOneAutoCurve",
    "FsworReplaceOneCurve",
    "MomentTable",
    "b_tilde",
    "b_upper",
    "e_tilde",
    "exact_moment_limit",
    "f_tilde",
    "fswor_add_remove_default_curve",
    "fswor_add_remove_exact_rdp",
    "fswor_add_remove_rdp",
    "fswor_replace_one_default_curve",
    "fswor_replace_one_excess",
    "fswor_replace_one_rdp",
    "gaussian_moment_m",
    "moment_table",
    "replace_one_k2_coefficient",
    "taylor_h_excess",
    "taylor_h_remainder",
]

#: Cost budget of the exact moment table: (working bits) x (number of moments).
EXACT_BUDGET = 1 << 24
#: Never compute an exact table with more than this many moments.
K_EXACT_MAX = 1 << 14


def _check_q(q: Fraction) -> None:
    if not 0 < q < 1:
        raise ValueError(
            "batch-size must be < dataset-size for the fixed-size bounds of Birrell et al."
            f" (Thm 3.3/3.5 assume q = |B|/|D| < 1). Found q = {q}."
        )


def _check_m(m: int) -> None:
    if isinstance(m, bool) or not isinstance(m, int) or m < 3:
        raise ValueError(f"taylor-order must be an integer >= 3. Found {m!r}.")


def _ceil(alpha: Fraction) -> int:
    return -((-alpha.numerator) // alpha.denominator)


# ---------------------------------------------------------------------------
# moments M_{sigma,k} (44), B~ (47) and a cheap upper bound of B
# ---------------------------------------------------------------------------


def _log_terms(v: float, k: int) -> np.ndarray:
    """log of C(k,l) e^{l(l-1)v/2}, l = 0..k (float; only for choosing the guard bits)."""
    ell = np.arange(k + 1, dtype=float)
    lf = log_factorials(k)
    idx = np.arange(k + 1)
    lt: np.ndarray = math.lgamma(k + 1) - lf[idx] - lf[k - idx] + ell * (ell - 1) * v / 2
    return lt


def _log2_sum_terms(lt: np.ndarray) -> float:
    """log2 of sum_l C(k,l) e^{l(l-1)v/2} from the terms ``lt`` = :func:`_log_terms` (float)."""
    mx = lt.max()
    return float((mx + math.log(np.exp(lt - mx).sum())) / math.log(2))


def _log2_m_lower(v: float, k: int, lt: np.ndarray) -> float:
    r"""A lower bound of log2 M_k (float, for the guard only): M_k >= (k-1)!! w^{k/2} (even k,
    perfect matchings), M_k >= w^{(k+1)/2} (odd k), M_k >= w^{C(k,2)} (complete graph),
    with w = e^v - 1, and M_k >= a_k - sum_{l<k} C(k,l) a_l when that is positive
    (``lt`` = :func:`_log_terms`)."""
    lw = float(log_expm1(v))
    lm = (
        math.lgamma(k + 1) - (k // 2) * math.log(2) - math.lgamma(k // 2 + 1) + (k // 2) * lw
        if k % 2 == 0
        else ((k + 1) // 2) * lw
    )
    lm = max(lm, k * (k - 1) / 2 * lw)
    # top term against the others
    rest_terms = lt[:k]
    top = k * (k - 1) * v / 2
    rest = float(rest_terms.max() + math.log(np.exp(rest_terms - rest_terms.max()).sum()))
    if rest < top - 1.0:
        lm = max(lm, top + math.log1p(-math.exp(rest - top)))
    return lm / math.log(2)


@functools.lru_cache(maxsize=4096)
def _cancellation_bits(v: float, k: int) -> float:
    """Estimated bits lost to cancellation in (44) at moment ``k`` (float planning)."""
    lt = _log_terms(v, k)
    return _log2_sum_terms(lt) - _log2_m_lower(v, k, lt)


@functools.lru_cache(maxsize=1024)
def _guard_bits(v: float, kmax: int) -> int:
    """Estimate of the bits lost to cancellation in (44) for k <= kmax (float planning)."""
    ks = sorted({k for k in np.unique(np.geomspace(2, max(kmax, 2), num=48).astype(int)) if 2 <= k <= kmax} | {kmax})
    g = 0.0
    for k in ks:
        if k < 2:
            continue
        g = max(g, _cancellation_bits(v, int(k)))
    return math.ceil(g) + 16


class MomentTable:
    r"""Enclosures of :math:`M_{\sigma,k}`, k = 0..K, by (44) at a given precision.

    The binomial transform is one polynomial product evaluated at ``prec`` plus
    the estimated cancellation; if an entry is still wider than ``prec`` relative
    bits, the guard is doubled (local guess-and-verify loop).  Entries are always
    valid enclosures; the loop only controls their width.
    """

    def __init__(self, sigma: Fraction, prec: int):
        self.sigma = sigma
        self.prec = prec
        self.v_float = 4.0 / float(sigma) ** 2
        self.K = -1
        self.values: list[arb] = []
        self.k_exact = self._k_exact_limit()
        self._log_b = np.empty(0)

    def log_b_hat(self, jmax: int) -> np.ndarray:
        r"""Float estimates of :math:`\log\widetilde B_{\sigma,j}`, j = 0..``jmax`` (the logs of the
        upper ends of :func:`_b_hat`; for screens only, not enclosures)."""
        have = len(self._log_b)
        if jmax >= have:
            new = np.empty(jmax + 1 - have)
            for i, j in enumerate(range(have, jmax + 1)):
                u = arb(_b_hat(self, j).upper())
                new[i] = float(u.log().mid()) if u > 0 else -math.inf
            self._log_b = np.concatenate([self._log_b, new])
        return self._log_b[: jmax + 1]

    def _k_exact_limit(self) -> int:
        lo, hi = 4, K_EXACT_MAX
        if (self.prec + _guard_bits(self.v_float, hi)) * hi <= EXACT_BUDGET:
            return hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if (self.prec + _guard_bits(self.v_float, mid)) * mid <= EXACT_BUDGET:
                lo = mid
            else:
                hi = mid
        return max(lo, 8)

    def ensure(self, kmax: int) -> None:
        if kmax <= self.K:
            return
        target = min(max(kmax, 2 * self.K, 16), self.k_exact)
        if target <= self.K:
            return
        guard = guard0 = _guard_bits(self.v_float, target)
        tries = 0
        while True:
            wp = self.prec + guard
            with workprec(wp):
                vals = _binomial_transform(self.sigma, target, self.prec + (guard - guard0))
            bad = [k for k, x in enumerate(vals) if k >= 2 and not accurate_bits(x, self.prec - 8)]
            if not bad or wp > (1 << 18) or tries >= 3:
                break
            tries += 1
            guard *= 2
        self.values = vals
        self.K = target

    def m(self, k: int) -> arb:
        r"""Enclosure of :math:`M_{\sigma,k}` (44)."""
        self.ensure(k)
        return self.values[k]


def _top_terms(k: int, v: float, bits: int) -> int | None:
    r"""Number T of top terms of (44) after which the rest is below 2^-bits of the top term.

    For :math:`\ell \le k - T`: :math:`\binom k\ell a_\ell \le \binom k\ell a_{k-T}` (:math:`a_\ell`
    increases), so the omitted part is at most :math:`2^k a_{k-T}`; T is the least value with
    :math:`k\log 2 + \log a_{k-T} - \log a_k \le -\mathrm{bits}\,\log 2` (float planning; the
    bound itself is evaluated in ball arithmetic).  None when T would exceed k/2.
    """
    target = -(bits * math.log(2.0)) - k * math.log(2.0)
    lo = 1
    while lo <= k // 2:
        j = k - lo
        if (j * (j - 1) - k * (k - 1)) * v / 2 <= target:
            return lo
        lo = lo + max(1, lo // 4)
    return None


def _moment_direct(k: int, T: int, half_v: arb) -> arb:
    r""":math:`M_k` from the T top terms of (44) plus the proven bound :math:`2^k a_{k-T}` on the rest."""
    total = arb(0)
    binom = arb(1)  # C(k, k)
    for i in range(T):  # ell = k - i
        ell = k - i
        if i > 0:
            binom = binom * (ell + 1) / (k - ell)
        term = binom * (half_v * (ell * (ell - 1))).exp()
        total += term if i % 2 == 0 else -term
    ell = k - T
    tail = (half_v * (ell * (ell - 1)) + k * arb(2).log()).exp()
    return total + arb(0, tail.upper())


def _binomial_transform(sigma: Fraction, kmax: int, bits: int | None = None) -> list[arb]:
    r"""M_k for k = 0..kmax at the current precision.

    For small k: (44) as the product of :math:`\sum_\ell e^{\ell(\ell-1)v/2} t^\ell/\ell!` and
    :math:`e^{-t}`, times k! (one polynomial product).  For large k, where the top
    terms dominate (no cancellation), :func:`_moment_direct` with a proven tail bound,
    evaluated at ``bits + 64`` bits (``bits``: the accuracy the caller needs; default: the
    current precision) instead of the polynomial part's guarded precision.
    """
    v = to_arb(Fraction(4) / (sigma * sigma))
    half_v = v / 2
    vf = 4.0 / float(sigma) ** 2
    prec = ctx.prec
    direct: dict[int, int] = {}
    k_poly = kmax
    for k in range(kmax, 1, -1):
        T = _top_terms(k, vf, prec + 16)
        if T is None:
            break
        direct[k] = T
        k_poly = k - 1
    a = []
    b = []
    inv_fact = arb(1)
    for ell in range(k_poly + 1):
        if ell > 0:
            inv_fact = inv_fact / ell
        a.append((half_v * (ell * (ell - 1))).exp() * inv_fact)
        b.append(inv_fact if ell % 2 == 0 else -inv_fact)
    prod = (arb_poly(a) * arb_poly(b)).coeffs()
    out = []
    fact = arb(1)
    for k in range(k_poly + 1):
        if k > 0:
            fact = fact * k
        c = prod[k] if k < len(prod) else arb(0)
        out.append(c * fact)
    # The direct moments need no guard for cancellation: the split above (made at the full
    # working precision) only takes k where the top term dominates, so their sums lose almost
    # nothing.  They are evaluated at the table's own precision plus a margin (``bits``), with T
    # for that accuracy; the caller (MomentTable.ensure) still verifies every entry's width.
    dbits = prec if bits is None else min(prec, bits + 64)
    with workprec(dbits):
        for k in range(k_poly + 1, kmax + 1):
            t = _top_terms(k, vf, dbits) if dbits < prec else direct[k]
            out.append(_moment_direct(k, direct[k] if t is None else min(t, direct[k]), half_v))
    out[0] = arb(1)
    if kmax >= 1:
        out[1] = arb(0)
    # M_k >= 0 for every k (graph expansion, module docstring): intersect with [0, inf)
    for k in range(2, kmax + 1):
        x = out[k]
        if x.is_finite() and x.lower() < 0:
            up = x.upper()
            if up >= 0:
                out[k] = arb(0).union(up)
    return out


_TABLES: dict[tuple[Fraction, int], MomentTable] = {}


def moment_table(sigma: Fraction, prec: int | None = None) -> MomentTable:
    """The cached :class:`MomentTable` for ``sigma`` at precision ``prec`` (default: current)."""
    p = int(ctx.prec if prec is None else prec)
    key = (Fraction(sigma), p)
    t = _TABLES.get(key)
    if t is None:
        if len(_TABLES) > 64:
            _TABLES.clear()
        t = _TABLES[key] = MomentTable(Fraction(sigma), p)
    return t


def exact_moment_limit(sigma: Fraction, prec: int | None = None) -> int:
    """Largest index j for which B~_{sigma,j} of (47) is evaluated exactly (``K_exact``)."""
    return moment_table(sigma, prec).k_exact


def gaussian_moment_m(k: int, sigma: Fraction) -> arb:
    r"""Enclosure of :math:`M_{\sigma,k} = E_{N_0}[(L-1)^k]` (B.(42), closed form (44))."""
    if k < 0:
        raise ValueError(f"k must be an integer >= 0. Found {k}.")
    return moment_table(Fraction(sigma)).m(k)


def _abs_gauss_moment_root(j: int) -> arb:
    r"""(E|Z|^j)^{1/j} for Z ~ N(0,1): E|Z|^j = 2^{j/2}\Gamma((j+1)/2)/\sqrt\pi."""
    jj = arb(j)
    log_m = jj / 2 * arb(2).log() + ((jj + 1) / 2).lgamma() - arb.pi().log() / 2
    return (log_m / jj).exp()


def b_upper(j: int, sigma: Fraction) -> arb:
    r"""Proven upper bound of :math:`B_{\sigma,j} = E_{N_0}|L-1|^j` (45), cheap for any j >= 1.

    With :math:`X = \log L \sim N(-v/2, v)`, :math:`v = 4/\sigma^2`:

    * :math:`|e^X - 1| \le \max(1, e^X)`, so :math:`B_j \le 1 + E[e^{jX}] = 1 + e^{j(j-1)v/2}`;
    * :math:`|e^X - 1| \le |X| e^{X^+} \le |X|(1 + e^{jX})^{1/j}`, so
      :math:`B_j \le E|X|^j + E[|X|^j e^{jX}] = E|X|^j + e^{j(j-1)v/2} E|X_j|^j` with
      :math:`X_j \sim N((j-\frac12)v, v)` (exponential tilting), and by Minkowski's
      inequality :math:`E|Y|^j \le (|\mu| + \sqrt{v}\,\|Z\|_j)^j` for :math:`Y \sim N(\mu, v)`.

    Returns the minimum of the two (a ball whose upper end bounds :math:`B_{\sigma,j}`).
    """
    if j < 1:
        raise ValueError(f"j must be an integer >= 1. Found {j}.")
    v = to_arb(Fraction(4) / (sigma * sigma))
    top = (v * (j * (j - 1)) / 2).exp()
    u1 = 1 + top
    c = v.sqrt() * _abs_gauss_moment_root(j)
    u2 = (v / 2 + c) ** j + top * ((j - arb(1) / 2) * v + c) ** j
    return u1.min(u2)


def b_tilde(j: int, sigma: Fraction) -> arb:
    r""":math:`\widetilde B_{\sigma,j}` of (47): :math:`M_j` for even j, :math:`\sqrt{M_{j-1}M_{j+1}}` for odd j.

    For ``j`` beyond the exact table (:func:`exact_moment_limit`) returns the proven
    upper bound :func:`b_upper` of :math:`B_{\sigma,j}` instead (module docstring).
    """
    return _b_hat(moment_table(Fraction(sigma)), j)


def _b_hat(table: MomentTable, j: int) -> arb:
    if j == 0:
        return arb(1)
    if j % 2 == 0 and j <= table.k_exact:
        return table.m(j)
    if j % 2 == 1 and j + 1 <= table.k_exact:
        return (table.m(j - 1) * table.m(j + 1)).sqrt()
    return b_upper(j, table.sigma)


# ---------------------------------------------------------------------------
# add/remove: Thm 3.2-3.3 and App. B
# ---------------------------------------------------------------------------


def _falling(alpha: arb, k: int) -> arb:
    out = arb(1)
    for j in range(k):
        out = out * (alpha - j)
    return out


def _remainder_sum(table: MomentTable, n: int, m: int, q: arb) -> arb:
    r""":math:`\sum_{\ell=0}^{n} q^\ell \frac{n!\,m!}{(n-\ell)!(m+\ell)!}\widetilde B_{\sigma,\ell+m}` (the sums of (50), (88))."""
    if n < 0:
        return arb(0)
    table.ensure(min(n + m + 1, table.k_exact))
    total = arb(0)
    c = arb(1)
    for ell in range(n + 1):
        if ell > 0:
            c = c * q * (n - ell + 1) / (m + ell)
        total += c * _b_hat(table, ell + m)
    return total


def _remainder_sum_screen(table: MomentTable, n: int, m: int, q: float) -> arb:
    r"""Float estimate of :func:`_remainder_sum` (a log-sum-exp of the same terms with float
    logarithms of :math:`\widetilde B`); a point value for screens, not an enclosure."""
    if n < 0:
        return arb(0)
    from ..floatmath import log_factorials, logsumexp

    table.ensure(min(n + m + 1, table.k_exact))
    lb = table.log_b_hat(n + m)[m:]
    lf = log_factorials(n + m)
    ell = np.arange(n + 1)
    lt = ell * math.log(q) + (lf[n] - lf[n - ell]) + (lf[m] - lf[m + ell]) + lb
    return arb(float(logsumexp(lt))).exp()


def taylor_h_remainder(alpha: Fraction, q: Fraction, sigma: Fraction, m: int) -> arb:
    r"""Ball for the remainder bound :math:`\widetilde R_{\alpha,\sigma,m}(q)` of App. B.

    Case :math:`\alpha - m > 0`, (50):
    :math:`q^m\prod_{j<m}|\alpha-j|\,[\sum_{\ell=0}^{\lceil\alpha\rceil-m} q^\ell
    \frac{(\lceil\alpha\rceil-m)!}{(\lceil\alpha\rceil-m-\ell)!(m+\ell)!}\widetilde B_{\sigma,\ell+m}
    + \frac{1}{m!}\widetilde B_{\sigma,m}]`.
    Case :math:`\alpha - m \le 0`, (54) with :math:`B \le \widetilde B`:
    :math:`\frac{q^m}{m!}(1-q)^{\alpha-m}\prod_{j<m}|\alpha-j|\,\widetilde B_{\sigma,m}`.
    For m = 3 this is (12)/(56).
    """
    _check_m(m)
    _check_q(q)
    table = moment_table(sigma)
    a = to_arb(alpha)
    qa = to_arb(q)
    prod_abs = arb(1)
    for j in range(m):
        prod_abs = prod_abs * abs(a - j)
    inv_mfact = 1 / arb.fac_ui(m)
    if alpha > m:
        n = _ceil(alpha) - m
        s = _remainder_sum(table, n, m, qa) * inv_mfact + _b_hat(table, m) * inv_mfact
    else:
        s = inv_mfact * ((1 - qa).log() * (a - m)).exp() * _b_hat(table, m)
    return (qa.log() * m).exp() * prod_abs * s


def taylor_h_excess(alpha: Fraction, q: Fraction, sigma: Fraction, m: int) -> arb:
    r"""Ball for (upper bound of :math:`H_{\alpha,\sigma}(q)`) - 1 by (41) with (50)/(54):
    :math:`\sum_{k=2}^{m-1}\frac{q^k}{k!}\prod_{j<k}(\alpha-j)M_{\sigma,k} + \widetilde R_{\alpha,\sigma,m}(q)`."""
    _check_m(m)
    _check_q(q)
    table = moment_table(sigma)
    table.ensure(m + 1)
    a = to_arb(alpha)
    qa = to_arb(q)
    total = arb(0)
    fall = a * (a - 1)
    qk = qa * qa
    fact = arb(2)
    for k in range(2, m):
        if k > 2:
            fall = fall * (a - (k - 1))
            qk = qk * qa
            fact = fact * k
        total += qk / fact * fall * table.m(k)
    return total + taylor_h_remainder(alpha, q, sigma, m)


def fswor_add_remove_rdp(alpha: Fraction, q: Fraction, sigma: Fraction, m: int = 3) -> arb:
    r"""Ball for the one-step FSwoR RDP bound under add/remove adjacency, Thm 3.3 (13)
    with general Taylor order m (App. B): :math:`\frac{1}{\alpha-1}\log(1 + I)`,
    ``I`` = :func:`taylor_h_excess`.  Valid at every real order :math:`\alpha > 1`."""
    return _rdp_of_excess(alpha, lambda: taylor_h_excess(alpha, q, sigma, m))


def _rdp_of_excess(alpha: Fraction, excess: Callable[[], arb]) -> arb:
    r""":math:`\log(1 + I)/(\alpha-1)` for the excess ``I = excess()`` of a Taylor bound (the
    argument of its logarithm minus 1); NaN when :math:`I > -1` is not proven."""
    if alpha <= 1:
        raise ValueError(f"alpha must be > 1. Found {float(alpha)!r}.")
    i = excess()
    if not (i > -1):
        return arb.nan()
    return i.log1p() / (to_arb(alpha) - 1)


def fswor_add_remove_exact_rdp(alpha: Fraction, q: Fraction, sigma: Fraction) -> arb:
    r"""Ball for :math:`D_\alpha(qN(1,\sigma^2/4) + (1-q)N(0,\sigma^2/4)\,\|\,N(0,\sigma^2/4))`,
    the right-hand side of Thm 3.1 (6)/(7) (the quantity Thm 3.2 bounds).

    This is the Poisson-subsampled Gaussian mixture divergence with noise
    :math:`\sigma/2` (:func:`.poisson_gaussian.poisson_gaussian_rdp`): exact sum at
    integer orders, certified integration at fractional orders.
    """
    if alpha <= 1:
        raise ValueError(f"alpha must be > 1. Found {float(alpha)!r}.")
    q = probability(q, "q")
    return poisson_gaussian_rdp(alpha, q, Fraction(sigma) / 2, ctx.prec)


# ---------------------------------------------------------------------------
# replace-one: Thm 3.4-3.5 and App. C
# ---------------------------------------------------------------------------


def replace_one_k2_coefficient(alpha: Fraction, sigma: Fraction) -> arb:
    r"""Upper bound (69) of :math:`\frac{d^2}{dq^2}F_\alpha(0)`:
    :math:`2\alpha(\alpha-1)(e^{4/\sigma^2} - e^{2/\sigma^2})`, written as
    :math:`2\alpha(\alpha-1)e^{2/\sigma^2}\,\mathrm{expm1}(2/\sigma^2)` (no cancellation)."""
    a = to_arb(alpha)
    t = to_arb(Fraction(2) / (sigma * sigma))
    return 2 * a * (a - 1) * t.exp() * t.expm1()


def f_tilde(alpha: Fraction, sigma: Fraction, k: int) -> arb:
    r""":math:`\widetilde F_{\alpha,\sigma,k}` of (83), an upper bound of :math:`\frac{d^k}{dq^k}F_\alpha(0)`, k >= 3:

    .. math::
        (\alpha-1)\alpha^{k-1} c_k \widetilde B_{\sigma,k}
        + \sum_{j=0}^{k}\binom{k}{j}\Big|\prod_{\ell<j}(\alpha-\ell)\prod_{\ell<k-j}(\alpha+\ell-1)
        - (\alpha-1)\alpha^{k-1}\Big|\,\widetilde B_{\sigma,k},

    with :math:`c_k = 4` (k even, :math:`4M_{\sigma,k}`) or 3 (k odd,
    :math:`3M_{\sigma,k-1}^{1/2}M_{\sigma,k+1}^{1/2}`).  The second sum is (83)'s
    :math:`(\alpha-1)\alpha^{k-1}\sum_j\binom kj|\frac{\alpha}{\alpha-1}\prod(1-\ell/\alpha)\prod(1+(\ell-1)/\alpha) - 1|`
    with the factor multiplied in (no division by :math:`\alpha - 1`).
    """
    if k < 3:
        raise ValueError(f"k must be an integer >= 3. Found {k}.")
    table = moment_table(sigma)
    table.ensure(k + 1)
    a = to_arb(alpha)
    lead = (a - 1) * a ** (k - 1)
    bk = _b_hat(table, k)
    ck = 4 if k % 2 == 0 else 3
    s = arb(0)
    binom = arb(1)
    for j in range(k + 1):
        if j > 0:
            binom = binom * (k - j + 1) / j
        p1 = _falling(a, j)
        p2 = arb(1)
        for ell in range(k - j):
            p2 = p2 * (a + ell - 1)
        s += binom * abs(p1 * p2 - lead)
    return lead * ck * bk + s * bk


def e_tilde(alpha: Fraction, q: Fraction, sigma: Fraction, m: int, *, screen: bool = False) -> arb:
    r""":math:`\widetilde E_{\alpha,\sigma,m}(q)` of (90), the remainder bound for replace-one:

    .. math::
        \frac{q^m}{m!}\sum_{j=0}^{m}(1-q)^{-(\alpha+m-j-1)}\binom mj\prod_{\ell<j}|\alpha-\ell|
        \prod_{\ell<m-j}(\alpha+\ell-1)\times
        \begin{cases}(1-q)^{\alpha-j}\widetilde B_{\sigma,m} & \alpha - j \le 0\\
        \widetilde B_{\sigma,m} + \sum_{\ell=0}^{\lceil\alpha\rceil-j} q^\ell
        \frac{(\lceil\alpha\rceil-j)!\,m!}{(\lceil\alpha\rceil-j-\ell)!(m+\ell)!}\widetilde B_{\sigma,\ell+m}
        & \alpha - j > 0.\end{cases}

    ``screen=True``: the inner sums are float estimates (:func:`_remainder_sum_screen`), so the
    result is an estimate for order selection, not an enclosure.
    """
    _check_m(m)
    _check_q(q)
    table = moment_table(sigma)
    a = to_arb(alpha)
    qa = to_arb(q)
    log1mq = (1 - qa).log()
    bm = _b_hat(table, m)
    total = arb(0)
    binom = arb(1)
    ca = _ceil(alpha)
    for j in range(m + 1):
        if j > 0:
            binom = binom * (m - j + 1) / j
        p1 = arb(1)
        for ell in range(j):
            p1 = p1 * abs(a - ell)
        p2 = arb(1)
        for ell in range(m - j):
            p2 = p2 * (a + ell - 1)
        if alpha <= j:
            inner = (log1mq * (a - j)).exp() * bm
        elif screen:
            inner = bm + _remainder_sum_screen(table, ca - j, m, float(q))
        else:
            inner = bm + _remainder_sum(table, ca - j, m, qa)
        total += (-log1mq * (a + m - j - 1)).exp() * binom * p1 * p2 * inner
    return (qa.log() * m).exp() / arb.fac_ui(m) * total


def fswor_replace_one_excess(alpha: Fraction, q: Fraction, sigma: Fraction, m: int, *, screen: bool = False) -> arb:
    r"""Ball for the argument of the logarithm in (14)/(91), minus 1:
    :math:`q^2\alpha(\alpha-1)(e^{4/\sigma^2}-e^{2/\sigma^2}) + \sum_{k=3}^{m-1}\frac{q^k}{k!}\widetilde F_{\alpha,\sigma,k}
    + \widetilde E_{\alpha,\sigma,m}(q)`."""
    _check_m(m)
    _check_q(q)
    qa = to_arb(q)
    return add_replace_one_taylor_terms(
        qa * qa / 2 * replace_one_k2_coefficient(alpha, sigma), alpha, q, sigma, m, screen=screen
    )


def add_replace_one_taylor_terms(
    total: arb, alpha: Fraction, q: Fraction, sigma: Fraction, m: int, *, screen: bool = False
) -> arb:
    r"""``total`` plus the terms of order >= 3 of the replace-one Taylor bounds,
    :math:`\sum_{k=3}^{m-1}\frac{q^k}{k!}\widetilde F_{\alpha,\sigma,k} + \widetilde E_{\alpha,\sigma,m}(q)`
    (Thm 3.4 (14); Thm C.9 (98) with :math:`\sigma` replaced by :math:`2\sigma`), added
    one by one to ``total`` in increasing k."""
    qa = to_arb(q)
    qk = qa * qa
    fact = arb(2)
    for k in range(3, m):
        qk = qk * qa
        fact = fact * k
        total += qk / fact * f_tilde(alpha, sigma, k)
    return total + e_tilde(alpha, q, sigma, m, screen=screen)


def fswor_replace_one_rdp(alpha: Fraction, q: Fraction, sigma: Fraction, m: int = 4, *, screen: bool = False) -> arb:
    r"""Ball for the one-step FSwoR RDP bound under replace-one adjacency, Thm 3.4 (14) /
    Thm 3.5 (15), any integer m >= 3, every real order :math:`\alpha > 1`.

    ``screen=True``: a float-quality estimate of the same bound (the long remainder sums of
    (90) as float log-sum-exps), for order and Taylor-order selection only; not an enclosure."""
    return _rdp_of_excess(alpha, lambda: fswor_replace_one_excess(alpha, q, sigma, m, screen=screen))


# ---------------------------------------------------------------------------
# curves
# ---------------------------------------------------------------------------


class _FsworCurve(RdpCurve):
    def __init__(self, q: Fraction, sigma: Fraction, m: int):
        _check_q(Fraction(q))
        _check_m(m)
        self.q = Fraction(q)
        self.sigma = Fraction(sigma)
        self.m = int(m)

    def _value(self, alpha: Fraction) -> arb:  # pragma: no cover - abstract
        raise NotImplementedError

    def certified(self, alpha: Fraction) -> arb:
        alpha = Fraction(alpha)
        self.check_order(alpha)
        return self._value(alpha)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        """Float estimates: the same formula at 53 bits, upper endpoints (order selection only)."""
        return self.screen_by_evaluation(alphas, self._screen_value, 53, upper=True)

    def _screen_value(self, alpha: Fraction) -> arb:
        return self._value(alpha)


class FsworAddRemoveCurve(_FsworCurve):
    """FSwoR Gaussian, add/remove adjacency: Taylor bound of Thm 3.3 (order m, App. B)."""

    name = "fswor-add-remove"
    citation = "Birrell et al. 2024, Thm 3.1-3.3, (13), App. B (41), (44), (47), (50), (54)"

    def _value(self, alpha: Fraction) -> arb:
        return fswor_add_remove_rdp(alpha, self.q, self.sigma, self.m)


class FsworReplaceOneCurve(_FsworCurve):
    """FSwoR Gaussian, replace-one adjacency: Thm 3.4-3.5 (14)/(15), App. C (69), (83), (90)."""

    name = "fswor-replace-one"
    citation = "Birrell et al. 2024, Thm 3.4-3.5, (14), App. C (69), (83), (90)"

    def _value(self, alpha: Fraction) -> arb:
        return fswor_replace_one_rdp(alpha, self.q, self.sigma, self.m)

    def _screen_value(self, alpha: Fraction) -> arb:
        return fswor_replace_one_rdp(alpha, self.q, self.sigma, self.m, screen=True)


class FsworAddRemoveExactCurve(RdpCurve):
    r"""FSwoR Gaussian, add/remove adjacency: the right-hand side of Thm 3.1 (6) itself, certified.

    Thm 3.1 (6) bounds the one-step RDP by
    :math:`D_\alpha(qN_{1,\sigma^2/4} + (1-q)N_{0,\sigma^2/4}\,\|\,N_{0,\sigma^2/4})` for
    :math:`q = |B|/|D| < 1`, both directions of add/remove adjacency (App. A).  This
    has the form of the Poisson-subsampled Gaussian divergence with noise
    :math:`\sigma/2` and is evaluated by :func:`fswor_add_remove_exact_rdp` (exact
    binomial sum at integer orders, certified integral at fractional orders).  Thm 3.2-3.3
    bound the same quantity from above, so the Taylor bound of :class:`FsworAddRemoveCurve`
    is never smaller than this curve.
    """

    name = "fswor-add-remove-exact"
    citation = "Birrell et al. 2024, Thm 3.1 (6)-(8); evaluated as the Poisson mixture with sigma/2"

    def __init__(self, q: Fraction, sigma: Fraction):
        _check_q(Fraction(q))
        if not Fraction(sigma) > 0:
            raise ValueError(f"sigma must be > 0. Found {float(sigma)!r}.")
        self.q = Fraction(q)
        self.sigma = Fraction(sigma)

    def certified(self, alpha: Fraction) -> arb:
        alpha = Fraction(alpha)
        self.check_order(alpha)
        return fswor_add_remove_exact_rdp(alpha, self.q, self.sigma)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        from .poisson_gaussian import log_a_screen

        a = np.asarray(alphas, dtype=float)
        out: np.ndarray = log_a_screen(a, float(self.q), float(self.sigma) / 2) / (a - 1)
        return out


#: largest Taylor order tried by :class:`FsworReplaceOneAutoCurve`
AUTO_TAYLOR_MAX = 12
#: :class:`FsworReplaceOneAutoCurve` stops raising m once a step gains less than this (relative)
AUTO_TAYLOR_RTOL = 1e-8


class FsworReplaceOneAutoCurve(RdpCurve):
    r"""FSwoR Gaussian, replace-one adjacency: Thm 3.4-3.5 (14)/(15) with the Taylor order
    chosen per order.

    Every integer :math:`m \ge 3` gives a valid bound (Thm 3.5), so the minimum over m is
    one.  At each order the float screen (the same formula at 53 bits) tries
    m = 3, 4, ... while the value decreases by more than :data:`AUTO_TAYLOR_RTOL` (relative; up
    to :data:`AUTO_TAYLOR_MAX`); the certified
    value is (14) at the chosen m.  :meth:`winner` reports the m used.
    """

    name = "fswor-replace-one-auto"
    citation = "Birrell et al. 2024, Thm 3.4-3.5, (14)/(15), App. C (69), (83), (90); Taylor order m chosen per order"

    def __init__(self, q: Fraction, sigma: Fraction, m_max: int = AUTO_TAYLOR_MAX):
        _check_q(Fraction(q))
        _check_m(m_max)
        if not Fraction(sigma) > 0:
            raise ValueError(f"sigma must be > 0. Found {float(sigma)!r}.")
        self.q = Fraction(q)
        self.sigma = Fraction(sigma)
        self.m_max = int(m_max)
        self._best: dict[tuple[Fraction, float], tuple[int, float]] = {}

    def _screen_one(self, alpha: Fraction, rtol: float = AUTO_TAYLOR_RTOL) -> tuple[int, float]:
        got = self._best.get((alpha, rtol))
        if got is not None:
            return got
        best_m, best_v = 3, math.inf
        with workprec(53):  # a screen: the choice of m only costs tightness
            for m in range(3, self.m_max + 1):
                try:
                    v = fswor_replace_one_rdp(alpha, self.q, self.sigma, m, screen=True)
                    fv = float(v.upper()) if v.is_finite() else math.inf
                except (ValueError, ArithmeticError):
                    fv = math.inf
                if fv < best_v:
                    gain = (best_v - fv) / fv if math.isfinite(best_v) and fv > 0 else math.inf
                    best_m, best_v = m, fv
                    if gain < rtol:
                        break  # the gains shrink geometrically: the rest is below the tolerance
                elif math.isfinite(best_v):
                    break  # stopped improving
        if len(self._best) > 4096:
            self._best.clear()
        self._best[(alpha, rtol)] = (best_m, best_v)
        return best_m, best_v

    def taylor_order_at(self, alpha: Fraction) -> int:
        """The Taylor order m used at ``alpha``."""
        return self._screen_one(Fraction(alpha))[0]

    def certified(self, alpha: Fraction) -> arb:
        alpha = Fraction(alpha)
        self.check_order(alpha)
        return fswor_replace_one_rdp(alpha, self.q, self.sigma, self.taylor_order_at(alpha))

    def winner(self, alpha: Fraction) -> str:
        return f"fswor-replace-one (m={self.taylor_order_at(alpha)})"

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        out = np.empty(len(alphas))
        arr = np.asarray(alphas, dtype=float)
        ok = arr[np.isfinite(arr) & (arr > 1)]
        if ok.size:
            # one table build to the largest index this batch needs (not a doubling sequence)
            table = moment_table(self.sigma, 53)
            table.ensure(min(math.ceil(float(ok.max())) + self.m_max + 1, table.k_exact))
        for i, a in enumerate(arr):
            if not a > 1 or not math.isfinite(a):
                out[i] = np.inf
                continue
            # one order: the full search (choosing among bounds); many (order search): coarser
            out[i] = self._screen_one(Fraction(float(a)), AUTO_TAYLOR_RTOL if len(alphas) == 1 else 1e-4)[1]
        return out


# ---------------------------------------------------------------------------
# default curves (what the dispatch uses)
# ---------------------------------------------------------------------------


def fswor_add_remove_default_curve(q: Fraction, sigma: Fraction, taylor_order: int | None = None) -> RdpCurve:
    r"""The FSwoR add/remove curve used by default.

    ``taylor_order=None``: the right-hand side of Thm 3.1 (6) evaluated exactly at every
    real order (:class:`FsworAddRemoveExactCurve`).  The Taylor bound of Thm 3.3 is an upper
    bound of that same quantity (Thm 3.2), so it is nowhere smaller, and the exact value is
    also the cheaper one at integer orders (a finite sum against a table of moments); the
    Taylor bound is therefore not part of the default.  An explicit ``taylor_order`` m
    gives exactly the seed's Taylor bound of order m (:class:`FsworAddRemoveCurve`).
    """
    if taylor_order is None:
        return FsworAddRemoveExactCurve(q, sigma)
    return FsworAddRemoveCurve(q, sigma, taylor_order)


def fswor_replace_one_default_curve(
    sigma: Fraction, batch_size: int, dataset_size: int, taylor_order: int | None = None
) -> RdpCurve:
    r"""The FSwoR replace-one curve used by default: the pointwise minimum of Thm 3.4-3.5
    (Taylor order chosen per order, :class:`FsworReplaceOneAutoCurve`; or exactly the given
    ``taylor_order``) and Wang et al. 2019 Thm 9 (:func:`.wang2019.wang2019_curve`).
    Both are valid upper bounds for sampling without replacement under replace-one
    adjacency, hence so is their minimum (:class:`~rigorous_rdp.curves.MinCurve`)."""
    from ..curves import MinCurve
    from .wang2019 import replace_one_gaussian_curve, wang2019_curve

    q = Fraction(batch_size, dataset_size)
    taylor = (
        FsworReplaceOneAutoCurve(q, sigma) if taylor_order is None else FsworReplaceOneCurve(q, sigma, taylor_order)
    )
    return MinCurve([taylor, wang2019_curve(replace_one_gaussian_curve(sigma), batch_size, dataset_size)])
