r"""Zhu & Wang 2019: RDP of Poisson-subsampled general mechanisms, certified.

Setting (Zhu & Wang 2019, Sec. 2-3): a mechanism M with RDP curve
:math:`\epsilon(\cdot)` (an *upper* bound of its RDP at integer orders), Poisson
subsampling with probability :math:`\gamma`, add/remove adjacency.  With the binomial
weights :math:`w_\ell = \binom{\alpha}{\ell}(1-\gamma)^{\alpha-\ell}\gamma^\ell` and an integer
order :math:`\alpha \ge 2`, the bounds are :math:`\frac{1}{\alpha-1}\log A` with

* Theorem 6 (lower bound) and Theorem 8 (tight bound, under condition (4)):
  :math:`A = (1-\gamma)^{\alpha-1}(\alpha\gamma-\gamma+1) + \sum_{\ell=2}^{\alpha} w_\ell\, e^{(\ell-1)\epsilon(\ell)}`;
* Theorem 5 (general upper bound, any M):
  :math:`A = (1-\gamma)^{\alpha-1}(\alpha\gamma-\gamma+1) + w_2 e^{\epsilon(2)} + 3\sum_{\ell=3}^{\alpha} w_\ell\, e^{(\ell-1)\epsilon(\ell)}`;
* Theorem 11 (tau-term approximation of Thm 6/8) and its Theorem-5 analogue
  (App. C of the paper; derived below): see :func:`tau_term_log_moment`.

Certified evaluation (integer orders).  Since :math:`w_0 + w_1 = (1-\gamma)^{\alpha-1}(\alpha\gamma-\gamma+1)`
and :math:`\sum_\ell w_\ell = 1`,

.. math:: A - 1 = \sum_{\ell=2}^{\alpha} w_\ell\,\big(c_\ell\, e^{(\ell-1)\epsilon(\ell)} - 1\big),
          \qquad c_\ell = 1 \text{ (Thm 6/8)},\quad c_2 = 1,\ c_{\ell\ge3} = 3 \text{ (Thm 5)},

a sum of non-negative terms (RDP is >= 0), evaluated in ball arithmetic and
returned as ``log1p(A - 1) / (alpha - 1)``: no cancellation even for tiny
:math:`\gamma`, and no overflow (arb exponents are unbounded).  The weights are
computed in log space by the ratio recurrence.  Every bound is increasing in
each :math:`\epsilon(\ell)`, so an upper bound curve gives an upper bound
(Theorems 5 and 8); the lower bound of Theorem 6 is a lower bound on the RDP of
the subsampled mechanism only when :math:`\epsilon(\cdot)` is the *exact* RDP attained by
one pair of outputs (true for the built-in Gaussian, Laplace and randomized
response curves).

Real orders (rigorous extension, Wang, Balle & Kasiviswanathan 2019, Sec. 3.3;
quoted in the seed, Sec. 2): for the *exact* RDP :math:`\epsilon^\star` of any
mechanism, :math:`f(\alpha) = (\alpha-1)\epsilon^\star(\alpha) = \sup_{X\sim X'}\log\int p_X^\alpha p_{X'}^{1-\alpha}`
is convex on :math:`(1, \infty)` (each log-integral is a cumulant generating function
by Hölder's inequality, and a supremum of convex functions is convex), and
:math:`\lim_{\alpha\downarrow1} f(\alpha) \le 0`.  Hence for :math:`n < \alpha < n+1`, :math:`n \ge 2`,

.. math:: (\alpha-1)\epsilon^\star(\alpha) \le (n+1-\alpha)(n-1)\epsilon^\star(n) + (\alpha-n)\,n\,\epsilon^\star(n+1)
          \le (n+1-\alpha)(n-1)U(n) + (\alpha-n)\,n\,U(n+1),

where :math:`U` is any upper bound at integers (the weights are non-negative, so
replacing the exact values by upper bounds keeps the inequality).  For
:math:`1 < \alpha < 2`, the same argument with :math:`f(1^+) \le 0` gives :math:`\epsilon^\star(\alpha) \le U(2)`.
This is applied only to *upper* bounds; the lower bound curve is integer-only
(interpolating a lower bound is not a lower bound).

Theorem 11 and the sign / log-magnitude form (Remark 12): see
:func:`tau_term_log_moment`.  Where the seed's statement is incomplete we say so
there (the ranges of Theorem 11 overlap when :math:`2\tau \ge \alpha`, and it needs the
monotonicity of the exact RDP in the order, Mironov 2017 Prop. 9).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, ctx

from .. import floatmath
from ..arith import log_binomial_pmf, parse_rational, to_arb, workprec
from ..curves import RdpCurve
from ..errors import InvalidParameter
from ..events import Bound
from ..floatmath import log1pexp, log_expm1
from ..validation import probability, tau_for_bound

__all__ = [
    "Bound",
    "CallableCurve",
    "SmallOrderChi2Curve",
    "ZhuWangCurve",
    "binomial_log_weights",
    "condition4_established",
    "interpolate_rdp",
    "poisson_pure_dp_default_curve",
    "poisson_subsampled_curve",
    "signed_log_sum_exp",
    "small_order_chi2_rdp",
    "tau_term_log_moment",
    "taylor_quotient",
    "theorem5_log_moment",
    "theorem8_log_moment",
    "zhu_wang_curve",
    "zhu_wang_rdp_integer",
]


EpsFn = Callable[[int], arb]


# ---------------------------------------------------------------------------
# binomial weights
# ---------------------------------------------------------------------------


def binomial_log_weights(alpha: int, gamma: arb, ells: Sequence[int]) -> dict[int, arb]:
    r"""Balls for :math:`\log w_\ell = \log\big[\binom{\alpha}{\ell}(1-\gamma)^{\alpha-\ell}\gamma^\ell\big]`, ``0 < gamma < 1``."""
    lg = gamma.log()
    l1g = (1 - gamma).log()
    la1 = arb(alpha + 1).lgamma()
    out = {}
    for l in ells:
        lb = la1 - arb(l + 1).lgamma() - arb(alpha - l + 1).lgamma()
        out[l] = lb + l * lg + (alpha - l) * l1g
    return out


def _log_weights_all(alpha: int, gamma: arb, start: int = 2) -> list[arb]:
    """log w_l for l = start..alpha by the ratio recurrence (one lgamma per call)."""
    lg = gamma.log()
    l1g = (1 - gamma).log()
    ratio = lg - l1g
    lw = log_binomial_pmf(alpha, start, lg, l1g)
    out = [lw]
    for l in range(start + 1, alpha + 1):
        lw = lw + arb(alpha - l + 1).log() - arb(l).log() + ratio
        out.append(lw)
    return out


# ---------------------------------------------------------------------------
# Theorems 5, 6, 8 (exact evaluation of the bound formulas)
# ---------------------------------------------------------------------------


def _check_alpha(alpha: int) -> int:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, np.integer)) or alpha < 2:
        raise ValueError(f"alpha must be an integer >= 2 for the Zhu-Wang bounds. Found {alpha!r}.")
    return int(alpha)


def _log_moment_sum(alpha: int, gamma: arb, eps: EpsFn, general: bool) -> arb:
    r"""Ball for :math:`\log A` of Thm 8 (``general=False``) or Thm 5 (``general=True``)."""
    alpha = _check_alpha(alpha)
    if gamma == 0:
        return arb(0)
    if gamma == 1:
        # only l = alpha survives: A = c_alpha e^{(alpha-1) eps(alpha)}
        c = 3 if (general and alpha >= 3) else 1
        return arb(c).log() + (alpha - 1) * eps(alpha)
    lws = _log_weights_all(alpha, gamma, 2)
    total = arb(0)
    for i, l in enumerate(range(2, alpha + 1)):
        x = (l - 1) * eps(l)
        f = 2 + 3 * x.expm1() if general and l >= 3 else x.expm1()
        total += lws[i].exp() * f
    return total.log1p()


def theorem8_log_moment(alpha: int, gamma: arb, eps: EpsFn) -> arb:
    r"""Ball for :math:`\log A` of Zhu & Wang 2019, Theorem 8 (= the lower bound of Theorem 6).

    :math:`A = (1-\gamma)^{\alpha-1}(\alpha\gamma-\gamma+1)
    + \sum_{\ell=2}^\alpha\binom{\alpha}{\ell}(1-\gamma)^{\alpha-\ell}\gamma^\ell e^{(\ell-1)\epsilon(\ell)}`,
    an upper bound on the RDP of M o PoissonSample when condition (4) holds for M,
    and a lower bound (Thm 6) when ``eps`` is the exact, attained RDP of M.

    Args:
        alpha: integer order >= 2.
        gamma: sampling probability ball in [0, 1].
        eps: ``eps(l)`` returns a ball containing (an upper bound of) the RDP of M at
            integer order ``l`` at the current working precision.
    """
    return _log_moment_sum(alpha, gamma, eps, general=False)


def theorem5_log_moment(alpha: int, gamma: arb, eps: EpsFn) -> arb:
    r"""Ball for :math:`\log A` of Zhu & Wang 2019, Theorem 5 (general upper bound, any M).

    :math:`A = (1-\gamma)^{\alpha-1}(\alpha\gamma-\gamma+1) + \binom{\alpha}{2}\gamma^2(1-\gamma)^{\alpha-2}e^{\epsilon(2)}
    + 3\sum_{\ell=3}^\alpha\binom{\alpha}{\ell}(1-\gamma)^{\alpha-\ell}\gamma^\ell e^{(\ell-1)\epsilon(\ell)}`.
    """
    return _log_moment_sum(alpha, gamma, eps, general=True)


# ---------------------------------------------------------------------------
# Theorem 11 (tau-term approximation), Remark 12
# ---------------------------------------------------------------------------


def signed_log_sum_exp(terms: Sequence[tuple[int, arb]]) -> arb:
    r"""Ball for :math:`\log\sum_i s_i e^{L_i}` from (sign, log-magnitude) pairs (Remark 12).

    The largest log-magnitude is factored out.  Returns ``nan`` when the sum is
    not proven positive at the current precision (the caller's precision loop
    then retries at a higher precision).
    """
    # a non-finite log-magnitude would have to be dropped, and dropping a positive term is
    # unsafe: refuse instead (the caller retries or fails)
    if any(not L.is_finite() for s, L in terms if s != 0):
        return arb.nan()
    ts = [(s, L) for s, L in terms if s != 0]
    if not ts:
        return arb.nan()
    shift = max((L for _, L in ts), key=lambda L: L.mid()).mid()
    total = arb(0)
    for s, L in ts:
        v = (L - shift).exp()
        total = total + v if s > 0 else total - v
    if not total > 0:
        return arb.nan()
    return shift + total.log()


def tau_term_log_moment(alpha: int, gamma: arb, eps: EpsFn, tau: int, general: bool = False) -> arb:
    r"""Ball for :math:`\log A_\tau` of the tau-term approximation (Thm 11; Thm 5 analogue of App. C).

    Let :math:`E = \epsilon(\alpha-\tau)`, :math:`F = \{0, 1, \ldots, \max(\tau, 2)\} \cup \{\alpha-\tau+1, \ldots, \alpha\}`
    (the exactly evaluated terms) and :math:`\mathcal M = \{2..\alpha\} \setminus F` (the middle).
    With :math:`c_\ell` as in the module docstring and :math:`c_{\mathcal M} = 3` for Thm 5, 1 for Thm 8:

    .. math::

        A_\tau = \sum_{\ell \in F} c_\ell w_\ell e^{(\ell-1)\epsilon(\ell)}
                 + c_{\mathcal M}\Big[e^{-E}(1-\gamma+\gamma e^{E})^{\alpha} - \sum_{\ell \in F} w_\ell e^{(\ell-1)E}\Big],

    (with :math:`c_0 = c_1 = 1` and :math:`\epsilon(\ell)` replaced by 0 in the
    :math:`\ell = 0, 1` terms, whose values are :math:`w_0, w_1`); the bracket is exactly
    :math:`\sum_{\ell\in\mathcal M} w_\ell e^{(\ell-1)E}` by the binomial theorem.  For Thm 8 this
    is the formula of Theorem 11 (its first line is :math:`w_0 (1 - e^{-E})` plus the
    closed form).  Why it is an upper bound: every middle order satisfies
    :math:`\ell \le \alpha-\tau`, and the exact RDP is non-decreasing in the order (Mironov
    2017, Prop. 9), so :math:`\epsilon^\star(\ell) \le \epsilon^\star(\alpha-\tau) \le E`; each middle term of
    Theorem 5/8 evaluated at the exact RDP is therefore at most the replacing term,
    and the edge terms use the upper bounds :math:`\epsilon(\ell) \ge \epsilon^\star(\ell)`.  So
    :math:`A_\tau` bounds the subsampled RDP whenever Theorem 5/8 does.  (It is
    :math:`\ge` the Theorem 5/8 value computed with the same curve when the curve is
    non-decreasing, as the built-in curves are.)

    Gaps in the seed.  Theorem 11's two sums overlap when :math:`2\tau \ge \alpha` and then
    double count; here, if the middle is empty the exact Theorem 5/8 sum is
    returned.  The seed does not state the monotonicity it needs; it holds for
    the exact RDP, which is all the argument above uses.

    Evaluation (Remark 12): the summands have both signs; each is carried as a
    (sign, log-magnitude) pair of balls and combined by :func:`signed_log_sum_exp`
    at the current precision (``nan`` if the sum is not proven positive, which
    makes the caller raise the precision).  Uses ``2 tau + 1`` calls of ``eps``.
    """
    alpha = _check_alpha(alpha)
    if isinstance(tau, bool) or not isinstance(tau, (int, np.integer)) or tau < 1:
        raise ValueError(f"tau must be an integer >= 1. Found {tau!r}.")
    tau = int(tau)
    front = max(tau, 2)
    mid_lo, mid_hi = front + 1, alpha - tau
    if mid_lo > mid_hi or gamma == 0 or gamma == 1:
        return _log_moment_sum(alpha, gamma, eps, general)
    c_mid = 3 if general else 1
    E = eps(alpha - tau)
    edges = list(range(0, front + 1)) + list(range(alpha - tau + 1, alpha + 1))
    lw = binomial_log_weights(alpha, gamma, edges)
    lc_mid = arb(c_mid).log()
    terms: list[tuple[int, arb]] = []
    # closed form of the full sum with every order replaced by E
    log_closed = -E + alpha * (gamma * E.expm1()).log1p()
    terms.append((1, lc_mid + log_closed))
    for l in edges:
        # subtract the closed form's edge term  c_mid w_l e^{(l-1)E}
        terms.append((-1, lc_mid + lw[l] + (l - 1) * E))
        # add the exact edge term  c_l w_l e^{(l-1) eps(l)}
        if l <= 1:
            terms.append((1, lw[l]))
        else:
            c = 3 if (general and l >= 3) else 1
            terms.append((1, arb(c).log() + lw[l] + (l - 1) * eps(l)))
    return signed_log_sum_exp(terms)


# ---------------------------------------------------------------------------
# the RDP value and its real-order extension
# ---------------------------------------------------------------------------


def zhu_wang_rdp_integer(
    alpha: int,
    gamma: arb,
    eps: EpsFn,
    bound: Bound | str = Bound.TIGHT,
    tau: int | None = None,
    general_tau: bool = False,
) -> arb:
    r"""Ball for the Zhu-Wang RDP bound :math:`\frac{1}{\alpha-1}\log A` at integer order ``alpha``.

    ``bound``: ``tight`` (Thm 8), ``general`` (Thm 5), ``lower`` (Thm 6, same
    formula as Thm 8), ``tau`` (Thm 11 with ``tau`` terms; with ``general_tau``
    the Thm-5 analogue).
    """
    b = Bound.parse(bound)
    alpha = _check_alpha(alpha)
    if b is Bound.GENERAL:
        la = theorem5_log_moment(alpha, gamma, eps)
    elif b is Bound.TAU:
        if tau is None:
            raise ValueError("tau must be given for the tau-term bound.")
        la = tau_term_log_moment(alpha, gamma, eps, tau, general=general_tau)
    else:
        la = theorem8_log_moment(alpha, gamma, eps)
    return la / (alpha - 1)


def interpolate_rdp(alpha: Fraction, at_integer: Callable[[int], arb]) -> arb:
    r"""Upper bound at a real order from upper bounds at the neighbouring integers.

    Convexity of :math:`(\alpha-1)\epsilon^\star(\alpha)` (module docstring):
    for :math:`n < \alpha < n+1`, :math:`n \ge 2`,
    :math:`\epsilon(\alpha) \le \frac{(n+1-\alpha)(n-1)U(n) + (\alpha-n)\,n\,U(n+1)}{\alpha-1}`;
    for :math:`1 < \alpha < 2`, :math:`\epsilon(\alpha) \le U(2)`.  Only valid for upper bounds.
    """
    if alpha.denominator == 1:
        return at_integer(int(alpha))
    if alpha < 2:
        return at_integer(2)
    n = math.floor(alpha)
    a = to_arb(alpha)
    t = a - n
    return ((1 - t) * (n - 1) * at_integer(n) + t * n * at_integer(n + 1)) / (a - 1)


# ---------------------------------------------------------------------------
# curves
# ---------------------------------------------------------------------------


class CallableCurve(RdpCurve):
    r"""Wrap a user's certified RDP function ``eps(alpha: Fraction) -> arb`` as a curve.

    The function must return, at the current working precision, a ball that
    contains (an upper bound of) the RDP of the base mechanism at the exact
    rational order ``alpha`` (only integer orders are requested by the
    Zhu-Wang bounds).  ``screen`` evaluates it at 64 bits.
    """

    name = "user"
    citation = "user-supplied certified RDP curve"

    def __init__(self, func: Callable[[Fraction], arb], name: str = "user"):
        if not callable(func):
            raise ValueError(f"eps must be callable. Found {func!r}.")
        self.func = func
        self.name = name

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        v = self.func(alpha)
        if not isinstance(v, arb):
            raise ValueError(f"eps must return an arb ball. Found {type(v).__name__}.")
        return v


class ZhuWangCurve(RdpCurve):
    r"""Zhu & Wang 2019 RDP bound of ``base`` o PoissonSample(q), add/remove adjacency.

    Args:
        base: certified RDP curve of the base mechanism (or a callable, see
            :class:`CallableCurve`).
        q: sampling probability in [0, 1] (exact rational).
        bound: ``tight`` (Thm 8; the caller must have established condition (4)),
            ``general`` (Thm 5), ``lower`` (Thm 6; integer orders only; NOT a privacy
            guarantee), ``tau`` (Thm 11; the Thm 5 analogue if ``tau_general``).
        tau: number of exact terms of the tau-term approximation.
        tau_general: use the Thm 5 analogue for ``tau`` (for M without condition (4)).
        cap_pure_dp: for pure-DP bases (Laplace, RR), return the minimum with the
            Lemma 4 epsilon :math:`\log(1+\gamma(e^{\epsilon_\infty}-1))` (RDP <= max divergence);
            off by default so that figures show the theorems themselves.

    ``certified`` works at the current working precision and caches the base
    curve's balls per (order, precision).  Real orders use :func:`interpolate_rdp`
    (upper bounds only).
    """

    def __init__(
        self,
        base: RdpCurve | Callable[[Fraction], arb],
        q: object,
        bound: Bound | str = Bound.TIGHT,
        tau: int | None = None,
        tau_general: bool = False,
        cap_pure_dp: bool = False,
    ):
        if not isinstance(base, RdpCurve):
            base = CallableCurve(base)
        self.base = base
        qq = probability(q, "q")
        self.q = qq
        self.bound = Bound.parse(bound)
        if self.bound is Bound.WANG2019:
            raise ValueError(
                "bound must be one of tight, general, lower, tau for the Zhu & Wang 2019 bounds. Found 'wang2019'."
            )
        if self.bound is Bound.TAU:
            if tau is None or isinstance(tau, bool) or int(tau) != tau or int(tau) < 1:
                raise ValueError(f"tau must be an integer >= 1. Found {tau!r}.")
            tau = int(tau)
        self.tau = tau
        self.tau_general = bool(tau_general)
        self.cap_pure_dp = bool(cap_pure_dp)
        self.integer_orders_only = self.bound is Bound.LOWER
        self.is_upper_bound = self.bound is not Bound.LOWER
        label = {
            Bound.TIGHT: "Thm 8",
            Bound.GENERAL: "Thm 5",
            Bound.LOWER: "Thm 6",
            Bound.TAU: f"Thm 11 (tau={tau}{', Thm 5 analogue' if tau_general else ''})",
        }[self.bound]
        self.name = f"zhu-wang-{self.bound.value}"
        self.citation = f"Zhu & Wang 2019, {label}; base: {base.name}"
        self._cache: dict[tuple[int, int], arb] = {}

    # -- certified ------------------------------------------------------------
    def _eps(self, l: int) -> arb:
        key = (l, ctx.prec)
        v = self._cache.get(key)
        if v is None:
            v = self.base.certified(Fraction(l))
            self._cache[key] = v
        return v

    def _at_integer(self, n: int) -> arb:
        g = to_arb(self.q)
        if self.bound is Bound.GENERAL:
            la = theorem5_log_moment(n, g, self._eps)
        elif self.bound is Bound.TAU:
            assert self.tau is not None  # the constructor requires an integer tau >= 1 for Bound.TAU
            la = tau_term_log_moment(n, g, self._eps, self.tau, general=self.tau_general)
        else:
            la = theorem8_log_moment(n, g, self._eps)
        return la / (n - 1)

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        e0 = self.base.pure_dp_epsilon()
        if e0 is not None and e0.is_exact() and e0 == 0:
            return arb(0)  # identical output distributions (e.g. p = 1/2): every divergence is 0
        v = interpolate_rdp(alpha, self._at_integer)
        if self.cap_pure_dp and self.bound is not Bound.LOWER:
            e = self.pure_dp_epsilon()
            if e is not None and v.is_finite():
                v = v.min(e)
        return v

    def pure_dp_epsilon(self) -> arb | None:
        """Lemma 4 (Li et al. 2012) with delta = 0 for a pure-DP base; None otherwise."""
        if self.bound is Bound.LOWER:
            return None
        e = self.base.pure_dp_epsilon()
        if e is None:
            return None
        return (to_arb(self.q) * e.expm1()).log1p()

    # -- float screen ---------------------------------------------------------
    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        # only the integers next to the requested orders are needed (each costs O(n))
        need = {2}
        for x in a:
            if math.isfinite(x) and 1 < x <= 1e6:
                need.add(max(2, math.floor(x)))
                need.add(max(2, math.ceil(x)))
        ints = np.array(sorted(need))
        f_int = {}
        for n in ints.tolist():
            ls = np.arange(2, n + 1, dtype=float)
            base_vals = self.base.screen(ls)
            f_int[n] = float(
                _screen_int(np.array([n]), float(self.q), base_vals, self.bound, self.tau, self.tau_general, ls)[0]
            )
        out = np.empty(len(a))
        cap = None
        if self.cap_pure_dp and self.bound is not Bound.LOWER:
            e = self.base.pure_dp_epsilon()
            if e is not None:
                em = float(e.mid())  # log1p(q expm1(em)) ~ log q + em beyond float range (a screen only)
                cap = math.log1p(float(self.q) * math.expm1(em)) if em < 700 else math.log(float(self.q) or 1e-300) + em
        for i, x in enumerate(a):
            if not math.isfinite(x) or x <= 1:
                out[i] = np.inf
                continue
            if float(x).is_integer():
                v = f_int.get(int(x), np.inf)
            elif x > 1e6:
                v = np.inf
            elif x < 2:
                v = f_int[2]
            else:
                n = math.floor(x)
                t = x - n
                v = ((1 - t) * (n - 1) * f_int[n] + t * n * f_int.get(n + 1, np.inf)) / (x - 1)
            out[i] = min(v, cap) if cap is not None else v
        return out


def _screen_int(
    ints: np.ndarray,
    q: float,
    base_vals: np.ndarray,
    bound: Bound,
    tau: int | None,
    tau_general: bool,
    base_orders: np.ndarray,
) -> np.ndarray:
    """Float estimates of the bound at integer orders (screening only); ``base_vals`` are the
    base curve's screen values at ``base_orders`` (which must cover 2..max(ints))."""
    out = np.empty(len(ints))
    if q == 0:
        return np.zeros(len(ints))
    base = dict(zip([int(x) for x in base_orders.tolist()], base_vals.tolist(), strict=False))
    general = bound is Bound.GENERAL or (bound is Bound.TAU and tau_general)
    lq = math.log(q)
    l1q = math.log1p(-q) if q < 1 else -np.inf
    for i, n in enumerate(ints.tolist()):
        if q == 1:
            out[i] = base[n] + (math.log(3) / (n - 1) if general and n >= 3 else 0.0)
            continue
        ls = np.arange(2, n + 1, dtype=float)
        lw = (
            floatmath.gammaln(n + 1)
            - floatmath.gammaln(ls + 1)
            - floatmath.gammaln(n - ls + 1)
            + ls * lq
            + (n - ls) * l1q
        )
        x = (ls - 1) * np.array([base[int(l)] for l in ls])
        with np.errstate(all="ignore"):
            if general:
                lf = np.where(ls >= 3, np.log(2 + 3 * np.expm1(np.minimum(x, 700.0))), np.log(np.expm1(x)))
                lf = np.where((ls >= 3) & (x > 700), np.log(3) + x, lf)
            else:
                lf = log_expm1(x)
        t = lw + lf
        t = t[np.isfinite(t)]
        if len(t) == 0:
            out[i] = 0.0
            continue
        li = floatmath.logsumexp(t)
        out[i] = log1pexp(li) / (n - 1)
    # the tau-term bound is never below the exact sum for monotone curves; the
    # screen uses the exact sum (order choice only)
    return out


def zhu_wang_curve(
    base: RdpCurve | Callable[[Fraction], arb],
    q: object,
    bound: Bound | str = "tight",
    tau: int | None = None,
    **kw: Any,
) -> ZhuWangCurve:
    """Convenience constructor of :class:`ZhuWangCurve`."""
    return ZhuWangCurve(base, q, bound=bound, tau=tau, **kw)


# ---------------------------------------------------------------------------
# condition (4) for the built-in mechanisms, the event, the dispatch
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Condition4Certificate:
    r"""Outcome of a condition (4) check.

    Attributes:
        holds: True only when every odd order :math:`3 \le \ell \le` ``max_order`` was
            *proven* non-negative for every pair (or parameter) checked.
        max_order: the largest order covered (Theorem 8 may be used up to it).
        method: how it was checked.
        values: per (pair index or parameter label, order): the exact value
            (``Fraction``), an ``arb`` enclosure, or a string verdict.
        failures: entries proven negative or left undecided.
    """

    holds: bool
    max_order: int
    method: str
    values: dict[tuple[object, int], object] = field(default_factory=dict)
    failures: tuple[tuple[object, int, str], ...] = ()

    def __bool__(self) -> bool:
        return self.holds


def condition4_established(base: object) -> bool:
    r"""True when condition (4) of Zhu & Wang 2019 is proven for the base mechanism.

    * Gaussian: Prop. 10; also proven for every sensitivity and every odd (indeed
      every) order by the falling-factorial argument in
      :func:`rigorous_rdp.research.chi_divergence.gaussian_chi_taylor_coefficients`.
    * Laplace: Prop. 10 (certified numerically per scale in
      :func:`rigorous_rdp.research.chi_divergence.verify_condition4_laplace`).
    * Binary randomized response: the only pairs of output distributions are
      equal ones and (Ber(p), Ber(1-p)) in either order, for which
      :math:`D_{\chi^\ell} = (2p-1)^\ell[(1-p)^{1-\ell} - p^{1-\ell}] \ge 0` for odd
      :math:`\ell` (:func:`rigorous_rdp.research.chi_divergence.randomized_response_chi`).
    * anything else: ``False`` unless a :class:`Condition4Certificate`
      (a successful certified check) is passed.
    """
    from ..events import GaussianEvent, LaplaceEvent, RandomizedResponseEvent
    from ..mechanisms import GaussianCurve, LaplaceCurve, RandomizedResponseCurve

    if isinstance(
        base,
        (GaussianEvent, LaplaceEvent, RandomizedResponseEvent, GaussianCurve, LaplaceCurve, RandomizedResponseCurve),
    ):
        return True
    return isinstance(base, Condition4Certificate) and base.holds


def poisson_subsampled_curve(
    base: RdpCurve | Callable[[Fraction], arb],
    q: object,
    bound: Bound | str | None = None,
    tau: int | None = None,
    condition4: object = None,
    cap_pure_dp: bool = True,
) -> ZhuWangCurve:
    r"""Zhu-Wang curve for a base curve, using the tight bound only where condition (4) holds.

    Args:
        base: certified RDP curve of the base mechanism, or a callable
            ``eps(alpha: Fraction) -> arb``.
        q: sampling probability.
        bound: ``None`` (default) = the tightest valid upper bound: Thm 8 if
            condition (4) is established, else Thm 5; or ``tight`` / ``general`` /
            ``lower`` / ``tau``.  ``tight`` without condition (4) raises.  ``tau``
            uses Thm 11 with condition (4), its Thm 5 analogue otherwise.
        condition4: evidence for condition (4): ``None`` (decide from the base:
            built-in Gaussian, Laplace, randomized response), or a
            :class:`Condition4Certificate`.
    """
    established = condition4_established(condition4 if condition4 is not None else base)
    b = None if bound is None else Bound.parse(bound)
    if b is None:
        b = Bound.TIGHT if established else Bound.GENERAL
    if b is Bound.TIGHT and not established:
        raise InvalidParameter(
            "bound",
            "tight needs condition (4) (Zhu & Wang 2019, Thm 8), which is not established for"
            " this mechanism; use {bound} general, or pass a successful condition (4) check",
        )
    tau_for_bound(b, tau)
    return ZhuWangCurve(
        base,
        q,
        bound=b,
        tau=tau,
        tau_general=(b is Bound.TAU and not established),
        cap_pure_dp=cap_pure_dp and b is not Bound.LOWER,
    )


# ---------------------------------------------------------------------------
# orders in (1, 2]: a second-moment bound that is sharp as alpha -> 1
# ---------------------------------------------------------------------------


def taylor_quotient(alpha: arb, x: arb) -> arb:
    r"""Ball for :math:`g_\alpha(x) = ((1+x)^\alpha - 1 - \alpha x)/x^2` (:math:`x \ge -1`, :math:`x \ne 0`;
    :math:`g_\alpha(0) = \alpha(\alpha-1)/2`).

    For :math:`|x| \le 1/4` the binomial series :math:`\sum_{k\ge2}\binom{\alpha}{k}x^{k-2}` is used (no
    cancellation): for :math:`1 < \alpha \le 2` and :math:`k \ge 2`, :math:`|\binom{\alpha}{k}| \le 1`, so the
    terms after k = K are bounded by :math:`\sum_{k>K}|x|^{k-2} = |x|^{K-1}/(1-|x|)`, added to the radius.
    Otherwise the closed form (no significant cancellation for :math:`|x| > 1/4`).
    """
    if not (x.abs_upper() <= arb(1) / 4):
        return ((1 + x) ** alpha - 1 - alpha * x) / (x * x)
    xa = x.abs_upper()
    total = arb(0)
    c = alpha * (alpha - 1) / 2  # binom(alpha, 2)
    xk = arb(1)
    k = 2
    target = arb(2) ** (-(ctx.prec + 8))
    while True:
        total += c * xk
        k += 1
        c = c * (alpha - (k - 1)) / k
        xk = xk * x
        tail = arb(xa) ** (k - 2) / (1 - arb(xa))
        if xa == 0 or tail.upper() < (target * total.abs_lower()).lower() or k > 4 * ctx.prec + 64:
            break
    return total + arb(0, tail.upper())


def small_order_chi2_rdp(alpha: Fraction, q: Fraction, eps2: arb, eps_inf: arb | None) -> arb:
    r"""Ball for the second-moment bound of :class:`SmallOrderChi2Curve` at :math:`1 < \alpha \le 2`:

    .. math:: \frac{1}{\alpha-1}\log\Big(1 + g_\alpha(a)\,\frac{\gamma^2(e^{\epsilon(2)}-1)}{d}\Big),

    with :math:`a = -\gamma(e^{\epsilon_\infty}-1)/(1-\gamma+\gamma e^{\epsilon_\infty})`,
    :math:`d = 1-\gamma+\gamma e^{-\epsilon_\infty}` for a pure :math:`\epsilon_\infty`-DP base, and
    :math:`a = -1`, :math:`d = 1-\gamma` (needs :math:`\gamma < 1`) otherwise.
    """
    if not 1 < alpha <= 2:
        raise ValueError(f"alpha must be in (1, 2] for the second-moment bound. Found {float(alpha)!r}.")
    q = probability(q, "q")
    if q == 0:
        return arb(0)
    a = to_arb(alpha)
    g = to_arb(q)
    chi2 = eps2.expm1()
    if eps_inf is None:
        if q == 1:
            raise ValueError("q must be < 1 for the second-moment bound without a pure-DP epsilon.")
        low, d = arb(-1), 1 - g
        gq = a - 1  # g_alpha(-1)
    else:
        e = eps_inf.exp()
        low = -g * (e - 1) / (1 - g + g * e)
        d = 1 - g + g / e
        gq = taylor_quotient(a, low)
    c = gq * g * g * chi2 / d
    return c.log1p() / (a - 1)


class SmallOrderChi2Curve(RdpCurve):
    r"""Poisson subsampling (probability :math:`\gamma`, add/remove) of a mechanism M, orders
    :math:`1 < \alpha \le 2`: a bound from the second moment that tends to the right limit as
    :math:`\alpha \to 1`.  (At :math:`\alpha > 2` the curve is :math:`+\infty`, a trivial bound.)

    **Lemma.**  For :math:`1 < \alpha \le 2` the function
    :math:`g_\alpha(x) = ((1+x)^\alpha - 1 - \alpha x)/x^2` is non-increasing on :math:`(-1, \infty)`
    (Taylor's formula with integral remainder,
    :math:`g_\alpha(x) = \alpha(\alpha-1)\int_0^1 (1-t)(1+tx)^{\alpha-2}\,dt`, and
    :math:`(1+tx)^{\alpha-2}` is non-increasing in x because :math:`\alpha - 2 \le 0`).  Hence for a random
    variable :math:`X \ge a > -1` with :math:`E X = 0`,
    :math:`E(1+X)^\alpha \le 1 + g_\alpha(a)\,E X^2` (and :math:`g_\alpha(-1) = \alpha - 1` by continuity).
    ``proofs/verify_small_order_chi2.py`` checks each step with sympy.

    **Bound.**  By joint quasi-convexity of the Rényi divergence (van Erven & Harremoës 2014,
    Thm 13) it suffices to bound, for base outputs :math:`\mu_0 = M(S)`, :math:`\mu_1 = M(S \cup \{x\})`
    and :math:`\nu = (1-\gamma)\mu_0 + \gamma\mu_1`, both :math:`D_\alpha(\nu\|\mu_0)` and :math:`D_\alpha(\mu_0\|\nu)`
    (Zhu & Wang 2019, Sec. 3).  Let :math:`L = d\mu_1/d\mu_0`, :math:`\chi^2 = E_{\mu_0}(L-1)^2 = e^{D_2(\mu_1\|\mu_0)} - 1
    \le e^{\epsilon(2)} - 1`, and :math:`e^{-\epsilon_\infty} \le L \le e^{\epsilon_\infty}` for a pure
    :math:`\epsilon_\infty`-DP base (:math:`0 \le L < \infty` otherwise).

    * :math:`D_\alpha(\nu\|\mu_0)`: :math:`X = \gamma(L-1)` under :math:`\mu_0`, :math:`EX = 0`,
      :math:`EX^2 = \gamma^2\chi^2`, :math:`X \ge a_A = -\gamma(1-e^{-\epsilon_\infty})`.
    * :math:`D_\alpha(\mu_0\|\nu)`: :math:`X = d\mu_0/d\nu - 1 = \gamma(1-L)/(1-\gamma+\gamma L)` under
      :math:`\nu`, :math:`EX = 0`, decreasing in L so :math:`X \ge a_B = -\gamma(e^{\epsilon_\infty}-1)/(1-\gamma+\gamma e^{\epsilon_\infty})`
      (:math:`-1` without pure DP), and :math:`EX^2 = \gamma^2\int(\mu_1-\mu_0)^2/\nu \le \gamma^2\chi^2/d` since
      :math:`\nu \ge d\,\mu_0`, :math:`d = 1-\gamma+\gamma e^{-\epsilon_\infty}` (:math:`1-\gamma` without pure DP).

    Since :math:`a_B \le a_A` and :math:`d \le 1`, the second direction dominates, and
    :math:`\epsilon(\alpha) \le \frac{1}{\alpha-1}\log(1 + g_\alpha(a_B)\gamma^2\chi^2/d)`
    (:func:`small_order_chi2_rdp`).  As :math:`\gamma \to 0` this tends to
    :math:`\alpha\gamma^2\chi^2/2`, the leading term of the exact RDP, whereas the convexity route gives
    the order-2 value at every :math:`\alpha < 2`.  Conditions checked: :math:`1 < \alpha \le 2`,
    :math:`0 \le \gamma \le 1` (:math:`\gamma < 1` without pure DP), the base curve is an upper bound.
    """

    def __init__(self, base: RdpCurve, q: object):
        if not isinstance(base, RdpCurve) or not base.is_upper_bound:
            raise ValueError("base must be an RDP upper-bound curve.")
        qq = probability(q, "q")
        if qq == 1 and base.pure_dp_epsilon() is None:
            raise ValueError("q must be < 1 for the second-moment bound without a pure-DP epsilon.")
        self.base = base
        self.q = qq
        self.name = "small-order-chi2"
        self.citation = (
            "second-moment bound for 1 < alpha <= 2 (this module; van Erven & Harremoes 2014,"
            f" Thm 13); base: {base.name}"
        )

    def certified(self, alpha: Fraction) -> arb:
        alpha = Fraction(alpha)
        self.check_order(alpha)
        if alpha > 2:
            return arb("inf")
        return small_order_chi2_rdp(alpha, self.q, self.base.certified(Fraction(2)), self.base.pure_dp_epsilon())

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        out = np.full(len(a), np.inf)
        idx = [i for i, x in enumerate(a) if 1 < x <= 2]
        if not idx:
            return out
        with workprec(53):
            e2 = self.base.certified(Fraction(2))
            ei = self.base.pure_dp_epsilon()
            for i in idx:
                try:
                    v = small_order_chi2_rdp(Fraction(float(a[i])), self.q, e2, ei)
                    out[i] = float(v.upper()) if v.is_finite() else np.inf
                except (ValueError, ArithmeticError):
                    out[i] = np.inf
        return out


def poisson_pure_dp_default_curve(base: RdpCurve, q: object, condition4: object = None) -> RdpCurve:
    r"""Default curve of the Poisson-subsampled Laplace / randomized response (add/remove): the
    pointwise minimum of the Zhu & Wang bound (:func:`poisson_subsampled_curve`: Thm 8 with the
    Lemma 4 cap) and, at orders in (1, 2], :class:`SmallOrderChi2Curve`."""
    from ..curves import MinCurve

    zw = poisson_subsampled_curve(base, q, condition4=condition4)
    qq = parse_rational(q, "q")
    if qq == 0 or (qq == 1 and base.pure_dp_epsilon() is None):
        return zw
    return MinCurve([zw, SmallOrderChi2Curve(base, qq)])
