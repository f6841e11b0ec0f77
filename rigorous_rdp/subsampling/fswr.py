r"""Fixed-size subsampling *with* replacement (FSwR) of the Gaussian mechanism.

Source: Birrell, Ebrahimi, Behnia, Pacheco, "DP-SGD with Fixed-Size Minibatches:
Tighter RDP Guarantees with or without Replacement" (seed ``004_…``), Sec. 3.3
and Appendix D.  A minibatch is ``|B|`` i.i.d. uniform draws from the ``|D| = N``
records; the mechanism adds :math:`N(0, C^2\sigma^2)` to the sum of the clipped
gradients (sensitivity 1 per record, ``noise_multiplier`` = :math:`\sigma`).

Upper bound (Theorem 3.6, eq. (16); derivation (104)-(108), (112), add/remove
adjacency, :math:`|D| > |B|`):

.. math::

    \epsilon(\alpha) \le \frac{1}{\alpha-1}\log S(\alpha),\qquad
    S(\alpha) = \sum_{n=1}^{|B|} \tilde a_n H_{\alpha,\sigma/n}(\tilde q),

    \tilde q = 1 - (1 - N^{-1})^{|B|},\qquad
    \tilde a_n = \tilde q^{-1}\binom{|B|}{n} N^{-n}(1-N^{-1})^{|B|-n},

with :math:`H_{\alpha,\sigma}(q) = E_{N(0,\sigma^2/4)}[((1-q) + q N_{1,\sigma^2/4}/N_{0,\sigma^2/4})^\alpha]`
(eq. (8)).  :math:`H_{\alpha,\sigma/n}(q)` is the moment of the Poisson-subsampled
Gaussian with effective noise :math:`\sigma/(2n)`, so at an integer order

.. math:: H_{\alpha,\sigma/n}(q) - 1 = \sum_{k=2}^{\alpha}\binom{\alpha}{k} q^k (1-q)^{\alpha-k}
          \big(e^{2 n^2 k(k-1)/\sigma^2} - 1\big)

(binomial expansion and the Gaussian MGF; all terms are non-negative).  We
evaluate :math:`H` **exactly** (in ball arithmetic) instead of bounding it by the
Taylor expansion of Appendix B: the theorem is stated for :math:`H` itself, and
the exact value is the tightest admissible input.  Since :math:`\sum_n \tilde a_n = 1`,
:math:`S - 1 = \sum_n \tilde a_n (H_n - 1)` is a sum of non-negative terms and is
evaluated without cancellation, also for :math:`q` down to 1e-9.

Real orders.  The derivation of (16) holds for every real :math:`\alpha > 1`, but
:math:`H` at a real order needs an integral per ``n``.  We use instead a proven
extension from the integer orders: for each ``n`` the map
:math:`\alpha \mapsto \log H_{\alpha,\sigma/n}(\tilde q) = \log E[L_n^\alpha]` is convex
(Hölder's inequality), and :math:`H(1) = 1`.  Hence for :math:`a_0 = \lfloor\alpha\rfloor`,
:math:`t = \alpha - a_0`,

.. math:: H_{\alpha} \le H_{a_0}^{1-t} H_{a_0+1}^{t}
          \quad(\text{with } H_1 = 1 \text{ for } 1 < \alpha < 2),

and :math:`S(\alpha) \le \sum_n \tilde a_n H_{n,a_0}^{1-t}H_{n,a_0+1}^t`.  This is an
upper bound on the value of (16) at :math:`\alpha`, hence a valid RDP bound (and,
by Hölder, never looser than interpolating :math:`\log S` itself, which is the
device of Wang et al. 2019 restated in (130)-(132)).  For the (at most
``EXACT_H_MAX_TERMS``) terms that dominate the sum we also compute the exact
:math:`H_{\alpha,\sigma/n}(\tilde q)` at the real order by the certified integral of
:mod:`.poisson_gaussian` (noise :math:`\sigma/(2n)`) and keep the smaller of the two
valid bounds.

Lower bound (Theorem 3.7, eq. (17), derivation (114)-(119), App. D.2.1): for
integer :math:`\alpha \ge 2`, with :math:`a_n = \binom{|B|}{n}N^{-n}(1-N^{-1})^{|B|-n}`,

.. math:: \sup D_\alpha \ge \frac{1}{\alpha-1}\log F_\alpha(4/\sigma^2, 0),\quad
          F_k(c,d) = E\big[e^{c\sum_{i<j\le k} n_i n_j + d\sum_i n_i}\big],\ n_i \sim \mathrm{Bin}(|B|, 1/N),

computed by the recursion (122)-(125), :math:`F_k(c,d) = \sum_{n} a_n e^{dn} F_{k-1}(c, d+cn)`,
keeping only :math:`n \in T_k` (all terms are positive, so dropping terms gives
a lower bound).  Since :math:`d` only takes the values :math:`c\,s` with ``s`` an integer
(the sum of the ``n`` chosen so far), the recursion is memoised on ``(k, s)``;
with :math:`T_k = \{0,\dots,|B|\}` for all ``k`` this computes (119) **exactly** in
:math:`O(\alpha^2|B|^2)` operations instead of :math:`O(|B|^\alpha)`.

Corrections to the seed: (126) prints :math:`\frac{1}{\alpha-1}F_{T,\alpha}(4\sigma_t^2, 0)`;
from (119) and (121) the correct statement is
:math:`\epsilon'_t(\alpha) \ge \frac{1}{\alpha-1}\log F_{T,\alpha}(4/\sigma_t^2, 0)`
(a logarithm and :math:`1/\sigma_t^2` instead of :math:`\sigma_t^2`).  Theorem 3.7 is
stated for :math:`D' \simeq_{a/r} D`; its construction (D.2) removes one record
(add/remove adjacency), so it is a lower bound for the add/remove setting of
Theorem 3.6 and the two are comparable.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from flint import arb, ctx

from .. import floatmath
from ..arith import DEFAULT_DIGITS, Certified, refine, to_arb
from ..curves import RdpCurve
from ..errors import UnsupportedEventError
from ..events import Adjacency, DpEvent, FixedSizeSampledEvent, GaussianEvent
from ..floatmath import log_expm1

__all__ = [
    "T_SETS",
    "FswrGaussianCurve",
    "check_fswr_memory",
    "fswr_curve",
    "fswr_log_weights",
    "fswr_lower",
    "fswr_lower_bruteforce",
    "fswr_lower_log_f",
    "fswr_lower_rdp",
    "fswr_upper",
    "fswr_upper_rdp",
    "validate_fswr",
]


# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------


def validate_fswr(sigma: object, batch_size: object, dataset_size: object) -> tuple[Fraction, int, int]:
    """Check the parameters of Theorems 3.6 / 3.7 and return them as exact values.

    Raises:
        ValueError: message starting with the CLI option name.
    """
    from ..arith import parse_rational

    s = parse_rational(sigma, "sigma")
    if s <= 0:
        raise ValueError(f"sigma must be > 0. Found {float(s)!r}.")
    b = _int(batch_size, "batch-size")
    n = _int(dataset_size, "dataset-size")
    if b < 1:
        raise ValueError(f"batch-size must be an integer >= 1. Found {b}.")
    if n < 2:
        raise ValueError(f"dataset-size must be an integer >= 2. Found {n}.")
    if b >= n:
        raise ValueError(
            f"batch-size must be < dataset-size ({n}) for fixed-size sampling with replacement"
            f" (Birrell et al., Thm 3.6 assumes |D| > |B|). Found {b}."
        )
    return s, b, n


def _int(value: object, name: str) -> int:
    from ..arith import parse_rational

    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer. Found {value!r}.")
    f = parse_rational(value, name)
    if f.denominator != 1:
        raise ValueError(f"{name} must be an integer. Found {value!r}.")
    return int(f)


def _order(alpha: object) -> Fraction:
    from ..validation import order

    return order(alpha)


# ---------------------------------------------------------------------------
# weights
# ---------------------------------------------------------------------------


def _log_binomial_pmf(m: int, p: arb, log_int: Sequence[arb]) -> list[arb]:
    """Balls for log[C(m,k) p^k (1-p)^(m-k)], k = 0..m (``log_int[i] = log i``)."""
    lp = p.log()
    l1p = (-p).log1p()
    out = []
    log_c = arb(0)
    for k in range(m + 1):
        if k > 0:
            log_c = log_c + log_int[m - k + 1] - log_int[k]
        out.append(log_c + k * lp + (m - k) * l1p)
    return out


def _log_ints(m: int) -> list[arb]:
    return [arb(0)] + [arb(i).log() for i in range(1, m + 1)]


def fswr_log_weights(batch_size: int, dataset_size: int) -> tuple[arb, list[arb]]:
    r"""Balls for :math:`\log\tilde q` and :math:`\log\tilde a_n`, n = 1..|B| (Thm 3.6, (16)).

    :math:`\tilde q = 1-(1-N^{-1})^{|B|}` is evaluated as ``-expm1(|B| log1p(-1/N))``.
    Returns ``(log_qt, [log_at_1, ..., log_at_B])`` at the current precision.
    """
    b, n = batch_size, dataset_size
    inv_n = arb(1) / n
    qt = -((b * (-inv_n).log1p()).expm1())
    log_qt = qt.log()
    lpmf = _log_binomial_pmf(b, inv_n, _log_ints(b))
    return log_qt, [lpmf[k] - log_qt for k in range(1, b + 1)]


# ---------------------------------------------------------------------------
# upper bound, Theorem 3.6
# ---------------------------------------------------------------------------


def _log_h_all_n(alpha: int, log_qt: arb, sigma: arb, b: int) -> list[arb]:
    r"""Balls for :math:`\log H_{\alpha,\sigma/n}(\tilde q)`, n = 1..|B|, at an integer order.

    :math:`H - 1 = \sum_{k\ge2} \mathrm{pmf}_k (e^{c_n k(k-1)} - 1)`, :math:`c_n = 2n^2/\sigma^2`,
    summed in (linear) ball arithmetic: arb exponents are unbounded, so
    neither :math:`\tilde q^\alpha` nor :math:`e^{c_n\alpha(\alpha-1)}` over- or underflows.
    """
    qt = log_qt.exp()
    lpmf = _log_binomial_pmf(alpha, qt, _log_ints(alpha))
    pmf = [lpmf[k].exp() for k in range(alpha + 1)]
    two_over_s2 = 2 / (sigma * sigma)
    out = []
    for n in range(1, b + 1):
        c = two_over_s2 * (n * n)
        total = arb(0)
        for k in range(2, alpha + 1):
            total += pmf[k] * (c * (k * (k - 1))).expm1()
        out.append(total.log1p())
    return out


#: at most this many certified integrals per round of selection (the most significant n)
EXACT_H_MAX_TERMS = 16
#: at most this many rounds: after each round the dominant terms are chosen again from the
#: tightened values (a term far below the extension of the large-n terms can dominate the
#: sum once those are replaced by their exact values)
EXACT_H_MAX_ROUNDS = 8


def _tighten_with_exact_h(
    alpha: Fraction, sigma: Fraction, b: int, n: int, log_at: list[arb], exps: list[arb]
) -> list[arb]:
    r"""Replace the log-convex bound of :math:`\log H_{\alpha,\sigma/k}(\tilde q)` by the exact value
    (certified integral, :func:`.poisson_gaussian.log_a_fractional` via
    :func:`.poisson_gaussian.poisson_gaussian_rdp` with noise :math:`\sigma/(2k)`) for the
    terms that dominate the sum.  Both are valid upper bounds of the same quantity, so
    their minimum is; the choice of terms (float estimates) only affects tightness,
    and a failed integral falls back to the extension.  The dominant terms are chosen
    again after each round from the tightened values, until every term within 30 decades
    of the largest has been tried (or :data:`EXACT_H_MAX_ROUNDS` rounds)."""
    from .poisson_gaussian import poisson_gaussian_rdp

    qt = 1 - Fraction(n - 1, n) ** b
    a_arb = to_arb(alpha - 1)
    out = list(exps)
    prec = ctx.prec
    tried: set[int] = set()
    for _ in range(EXACT_H_MAX_ROUNDS):
        contrib = []
        for k, (la, e) in enumerate(zip(log_at, out, strict=True)):
            em = float(e.mid())
            lc = float(la.mid()) + (float(log_expm1(em)) if em > 0 else -math.inf)
            contrib.append((lc, k))
        top = max(c for c, _ in contrib)
        ranked = [k for c, k in sorted(contrib, reverse=True) if c > top - 30 * math.log(10)]
        chosen = [k for k in ranked if k not in tried][:EXACT_H_MAX_TERMS]
        if not chosen:
            break
        for k in chosen:
            tried.add(k)
            try:
                ex = poisson_gaussian_rdp(alpha, qt, Fraction(sigma) / (2 * (k + 1)), prec) * a_arb
            except (ArithmeticError, ValueError):
                continue
            # adopt only a narrow enclosure that lowers the bound (else the extension stays);
            # log H >= 0 (Jensen), so the minimum is clipped at 0
            if ex.is_finite() and ex.rad() < abs(ex.mid()) * arb(2) ** (-(prec // 2)) and ex.upper() < out[k].upper():
                out[k] = out[k].min(ex).max(arb(0))
    return out


def _fswr_log_s_minus_1(alpha: Fraction, sigma: Fraction, b: int, n: int, exact_real_orders: bool = True) -> arb:
    r"""Ball containing :math:`\log(\bar S(\alpha) - 1)` where :math:`\bar S` is :math:`S` at
    integer orders and its per-``n`` log-convex interpolation otherwise (module docstring)."""
    s = to_arb(sigma)
    log_qt, log_at = fswr_log_weights(b, n)
    a0 = alpha.numerator // alpha.denominator
    t = alpha - a0
    if t == 0:
        log_h = _log_h_all_n(a0, log_qt, s, b)
        exps = log_h
    else:
        tt = to_arb(t)
        upper = _log_h_all_n(a0 + 1, log_qt, s, b)
        lower = _log_h_all_n(a0, log_qt, s, b) if a0 >= 2 else [arb(0)] * b
        exps = [(1 - tt) * lo + tt * up for lo, up in zip(lower, upper, strict=True)]
        if exact_real_orders:
            exps = _tighten_with_exact_h(alpha, sigma, b, n, log_at, exps)
    total = arb(0)
    for la, e in zip(log_at, exps, strict=True):
        total += la.exp() * e.expm1()
    return total.log()


def fswr_upper_rdp(
    alpha: object, sigma: object, batch_size: object, dataset_size: object, exact_real_orders: bool = True
) -> arb:
    r"""Ball for the FSwR RDP upper bound of Theorem 3.6, eq. (16), one step.

    Exact value of (16) at integer orders; at real orders, per ``n`` the smaller of
    the proven log-convex extension (module docstring) and, for the dominant
    terms, the exact :math:`H_{\alpha,\sigma/n}(\tilde q)` by certified integration.
    Call at the working precision you want (``flint.ctx.prec``).

    Args:
        alpha: order > 1 (exact rational).
        sigma: noise multiplier > 0.
        batch_size, dataset_size: ``1 <= |B| < |D|``.
        exact_real_orders: use the certified integrals at real orders (default);
            ``False`` gives the extension alone (faster, looser).
    """
    a = _order(alpha)
    s, b, n = validate_fswr(sigma, batch_size, dataset_size)
    log_sm1 = _fswr_log_s_minus_1(a, s, b, n, exact_real_orders)
    return log_sm1.exp().log1p() / to_arb(a - 1)


def fswr_upper(
    alpha: object, sigma: object, batch_size: object, dataset_size: object, digits: float = DEFAULT_DIGITS
) -> Certified:
    """:func:`fswr_upper_rdp` with the precision raised until ``digits`` are certified."""
    a = _order(alpha)
    validate_fswr(sigma, batch_size, dataset_size)
    return refine(
        lambda prec: fswr_upper_rdp(a, sigma, batch_size, dataset_size),
        digits,
        what=f"FSwR upper bound at alpha={float(a)}",
    )


#: bytes per batch element of the upper bound (16): a few lists of |B| balls per order (weights,
#: log H per n, the log-convex extension) and float arrays of the screen; measured about 2.6 KB
#: per element at |B| = 1e5 and 3e5 (peak resident memory, default --digits)
FSWR_BYTES_PER_ELEMENT = 3000


def check_fswr_memory(batch_size: int) -> None:
    """Refuse, before allocating, a batch size whose sum (16) needs more memory than the budget
    (:func:`rigorous_rdp.budget.check_memory`): the sum has one term per batch element."""
    from .. import budget

    budget.check_memory(
        FSWR_BYTES_PER_ELEMENT * batch_size,
        f"fixed-size sampling with replacement at {{batch_size}} {batch_size:.3g} (one term per batch element)",
        "ask for a smaller {batch_size}",
        ("batch_size",),
    )


# float screen (order selection only) ----------------------------------------


def _screen_log_h_all_n(alpha: int, q: float, sigma: float, b: int) -> np.ndarray:
    """Float estimates of log H_{alpha, sigma/n}(q), n = 1..b (screen only)."""
    k = np.arange(2, alpha + 1, dtype=float)
    lpmf = (
        floatmath.gammaln(alpha + 1)
        - floatmath.gammaln(k + 1)
        - floatmath.gammaln(alpha - k + 1)
        + k * math.log(q)
        + (alpha - k) * math.log1p(-q)
    )
    nn = np.arange(1, b + 1, dtype=float)[:, None]
    x = 2.0 * nn * nn * (k * (k - 1))[None, :] / (sigma * sigma)
    with np.errstate(all="ignore"):
        lem1 = log_expm1(np.maximum(x, 1e-300))
    log_i = floatmath.logsumexp(lpmf[None, :] + lem1, axis=1)
    out: np.ndarray = np.logaddexp(0.0, log_i)
    return out


def _screen_log_h_quad(alpha: float, q: float, mus: np.ndarray) -> np.ndarray:
    """Float log E_{z~N(0,1)}[(1-q+q e^{mu z - mu^2/2})^alpha] by the trapezoid rule (screen only)."""
    out = np.empty(len(mus))
    for i, mu in enumerate(mus):
        hi = max(15.0, alpha * mu + 15.0)
        z = np.linspace(-15.0, hi, int(min(200000, 40 * (hi + 15.0))) + 1)
        lf = (
            alpha * np.logaddexp(math.log1p(-q), math.log(q) + mu * z - mu * mu / 2)
            - z * z / 2
            - 0.5 * math.log(2 * math.pi)
        )
        out[i] = floatmath.logsumexp(lf) + math.log(z[1] - z[0])
    return out


def _screen_fswr(alphas: np.ndarray, sigma: float, b: int, n: int) -> np.ndarray:
    qt = -math.expm1(b * math.log1p(-1.0 / n))
    kk = np.arange(1, b + 1, dtype=float)
    log_at = (
        floatmath.gammaln(b + 1)
        - floatmath.gammaln(kk + 1)
        - floatmath.gammaln(b - kk + 1)
        - kk * math.log(n)
        + (b - kk) * math.log1p(-1.0 / n)
        - math.log(qt)
    )
    cache: dict[int, np.ndarray] = {}

    def log_h(a: int) -> np.ndarray:
        if a not in cache:
            cache[a] = np.zeros(b) if a == 1 else _screen_log_h_all_n(a, qt, sigma, b)
        return cache[a]

    out = np.empty(len(alphas))
    for i, a in enumerate(np.asarray(alphas, dtype=float)):
        if not a > 1 or not math.isfinite(a) or a > 1e5:
            out[i] = np.inf
            continue
        a0 = math.floor(a)
        t = a - a0
        e = log_h(a0) if t == 0 else (1 - t) * log_h(a0) + t * log_h(a0 + 1)
        with np.errstate(all="ignore"):
            log_terms = log_at + log_expm1(np.maximum(e, 1e-300))
            if t != 0 and a < 64:
                # mirror the certified path: exact H (float quadrature) for the dominant terms
                idx = np.argsort(log_terms)[::-1][:EXACT_H_MAX_TERMS]
                idx = idx[log_terms[idx] > log_terms[idx[0]] - 30 * math.log(10)]
                ex = _screen_log_h_quad(a, qt, 2.0 * (idx + 1) / sigma)
                e2 = np.minimum(e[idx], ex)
                log_terms[idx] = log_at[idx] + log_expm1(np.maximum(e2, 1e-300))
        lsm1 = floatmath.logsumexp(log_terms)
        out[i] = np.logaddexp(0.0, lsm1) / (a - 1)
    return out


class FswrGaussianCurve(RdpCurve):
    r"""FSwR-subsampled Gaussian, add/remove adjacency: Theorem 3.6, eq. (16) (one step).

    Certified at every real order > 1 (exact at integers; proven log-convex
    extension in between, see the module docstring).
    """

    name = "fswr-gaussian"
    citation = "Birrell et al. 2024, Thm 3.6, eq. (16) (App. D.1, (108), (112)); exact H; log-convex extension"

    def __init__(self, sigma: Fraction, batch_size: int, dataset_size: int):
        self.sigma, self.batch_size, self.dataset_size = validate_fswr(sigma, batch_size, dataset_size)
        check_fswr_memory(self.batch_size)

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        return fswr_upper_rdp(alpha, self.sigma, self.batch_size, self.dataset_size)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        return _screen_fswr(np.asarray(alphas, dtype=float), float(self.sigma), self.batch_size, self.dataset_size)


def fswr_curve(inner: DpEvent, event: FixedSizeSampledEvent) -> RdpCurve:
    """Certified RDP curve of ``event`` (fixed-size sampling with replacement of ``inner``).

    Supported: Gaussian ``inner`` under add/remove adjacency (Theorem 3.6).

    Raises:
        UnsupportedEventError: for other mechanisms or replace-one adjacency
            (the seed gives no FSwR bound for them).
        ValueError: for ``batch_size >= dataset_size``.
    """
    if not event.replacement:
        raise ValueError("sampling must be fswr for fswr_curve (event.replacement is False).")
    if not isinstance(inner, GaussianEvent):
        raise UnsupportedEventError(
            f"no certified bound for fixed-size sampling with replacement of {type(inner).__name__}"
        )
    if event.adjacency is not Adjacency.ADD_REMOVE:
        raise UnsupportedEventError(
            "no certified bound for fixed-size sampling with replacement under replace-one adjacency"
            " (Birrell et al., Thm 3.6 is for add/remove adjacency); use add-remove adjacency"
        )
    return FswrGaussianCurve(inner.noise_multiplier, event.batch_size, event.dataset_size)


# ---------------------------------------------------------------------------
# lower bound, Theorem 3.7 via App. D.2.1
# ---------------------------------------------------------------------------

TSets = str | Callable[[int, int], Sequence[int]]


def _t_fig9(k: int, b: int) -> Sequence[int]:
    return range(b + 1) if k == 2 else (b,)


def _t_fig1(k: int, b: int) -> Sequence[int]:
    return range(b + 1) if k == 2 else sorted({0, 1, 2, b} & set(range(b + 1)))


def _t_exact(k: int, b: int) -> Sequence[int]:
    return range(b + 1)


#: Named choices of the index sets :math:`T_k` (App. D.2.1): ``"fig9"``
#: (:math:`T_k = \{|B|\}` for k > 2), ``"fig1"`` (:math:`\{0,1,2,|B|\}`), ``"exact"`` (all).
T_SETS: dict[str, Callable[[int, int], Sequence[int]]] = {"fig9": _t_fig9, "fig1": _t_fig1, "exact": _t_exact}


def _resolve_t(t_sets: TSets) -> Callable[[int, int], Sequence[int]]:
    if callable(t_sets):
        user = t_sets

        def checked(k: int, b: int) -> Sequence[int]:
            ts = sorted(set(int(m) for m in user(k, b)))
            if any(not 0 <= m <= b for m in ts):
                raise ValueError(f"t-sets must return indices in [0, {b}]. Found {ts} for k = {k}.")
            return ts

        return checked
    try:
        return T_SETS[t_sets]
    except KeyError:
        raise ValueError(f"t-sets must be one of {', '.join(T_SETS)} or a function. Found {t_sets!r}.") from None


def fswr_lower_log_f(
    alpha: int, sigma: object, batch_size: object, dataset_size: object, t_sets: TSets = "fig9"
) -> arb:
    r"""Ball for :math:`\log F_{T,\alpha}(4/\sigma^2, 0)` of (124)-(125) (App. D.2.1).

    :math:`F_{T,\alpha} \le F_\alpha` (all dropped terms are positive), so the
    lower end of :math:`\log F_{T,\alpha}/(\alpha-1)` is a lower bound on the
    worst-case one-step Rényi divergence (Theorem 3.7).  Memoised on the integer
    ``s`` with :math:`d = c\,s`.
    """
    a = _order(alpha)
    if a.denominator != 1 or a < 2:
        raise ValueError(f"alpha must be an integer >= 2 for the lower bound of Thm 3.7. Found {float(a)!r}.")
    k_top = int(a)
    s_, b, n = validate_fswr(sigma, batch_size, dataset_size)
    tf = _resolve_t(t_sets)
    s = to_arb(s_)
    c = 4 / (s * s)
    p = arb(1) / n
    lpmf = _log_binomial_pmf(b, p, _log_ints(b))
    pmf = [x.exp() for x in lpmf]
    t2 = [m for m in tf(2, b)]

    @functools.cache
    def f2(sv: int) -> arb:
        d = c * sv
        total = arb(0)
        for m in t2:
            inner = (p * (c * m + d).expm1()).log1p()
            total += pmf[m] * (d * m + b * inner).exp()
        return total

    return _fk_iterative(k_top, tf, b, c, pmf, f2).log()


def _fk_iterative(
    k_top: int, tf: Callable[[int, int], Sequence[int]], b: int, c: arb, pmf: list[arb], f2: Callable[[int], arb]
) -> arb:
    """Evaluate F_{T,k_top}(c, 0) without deep recursion: first collect the reachable
    states (k, s) top-down, then fill them bottom-up."""
    levels: dict[int, set[int]] = {k_top: {0}}
    for k in range(k_top, 2, -1):
        nxt = set()
        ts = list(tf(k, b))
        for sv in levels[k]:
            for m in ts:
                nxt.add(sv + m)
        levels[k - 1] = nxt
    if k_top == 2:
        return f2(0)
    values: dict[int, arb] = {sv: f2(sv) for sv in levels[2]}
    for k in range(3, k_top + 1):
        ts = list(tf(k, b))
        new: dict[int, arb] = {}
        for sv in levels[k]:
            d = c * sv
            total = arb(0)
            for m in ts:
                total += pmf[m] * (d * m).exp() * values[sv + m]
            new[sv] = total
        values = new
    return values[0]


def fswr_lower_rdp(alpha: int, sigma: object, batch_size: object, dataset_size: object, t_sets: TSets = "fig9") -> arb:
    r"""Ball for :math:`\frac{1}{\alpha-1}\log F_{T,\alpha}(4/\sigma^2,0)` (Thm 3.7 via (124)-(126)).

    Its **lower** end is a certified lower bound on the worst-case one-step
    Rényi divergence of FSwR DP-SGD.  Not a privacy guarantee.
    """
    lf = fswr_lower_log_f(alpha, sigma, batch_size, dataset_size, t_sets)
    return lf / (int(alpha) - 1)


def fswr_lower(
    alpha: int, sigma: object, batch_size: object, dataset_size: object, t_sets: TSets = "fig9", digits: float = 6
) -> Certified:
    """:func:`fswr_lower_rdp` at rising precision until ``digits`` are certified."""
    return refine(
        lambda prec: fswr_lower_rdp(alpha, sigma, batch_size, dataset_size, t_sets),
        digits,
        what=f"FSwR lower bound at alpha={alpha}",
    )


def fswr_lower_bruteforce(alpha: int, sigma: object, batch_size: int, dataset_size: int) -> arb:
    r"""Ball for the right side of (17) by enumerating all :math:`(|B|+1)^\alpha` tuples.

    For tests with small ``|B|`` and ``alpha`` only; this is the naive formula the
    recursion of App. D.2.1 replaces.
    """
    import itertools

    a = int(alpha)
    s_, b, n = validate_fswr(sigma, batch_size, dataset_size)
    s = to_arb(s_)
    c = 4 / (s * s)
    p = arb(1) / n
    pmf = [x.exp() for x in _log_binomial_pmf(b, p, _log_ints(b))]
    total = arb(0)
    for tup in itertools.product(range(b + 1), repeat=a):
        w = arb(1)
        for m in tup:
            w *= pmf[m]
        pairs = sum(tup[i] * tup[j] for i in range(a) for j in range(i + 1, a))
        total += w * (c * pairs).exp()
    return total.log() / (a - 1)
