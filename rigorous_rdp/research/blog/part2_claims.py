r"""Blog post part 2 (Rényi DP): Claims 20-25, Examples 2-4, Claim 27 and (9.5), certified.

Source: ``seeds/000_b75598ebeda44c3a.txt``.  Notation of the post:
:math:`G_\lambda(f\|g) = \int f^\lambda g^{1-\lambda}`, :math:`\kappa_{p,q}(t) = \log G_{t+1}(p\|q)`
(the cumulant of the divergence variable :math:`L(p\|q)`), and for an
:math:`(\lambda, \rho(\lambda))`-RDP mechanism :math:`\kappa(t) = t\rho(t+1)`.  The Legendre
transform is :math:`f^*(\epsilon) = \sup_{t \in I}(\epsilon t - f(t))` with I = (0, inf).

Contents:

* Claim 20 / Claim 21 item 2: :math:`\delta = \exp(-\kappa^*(\epsilon))`
  (:func:`legendre_transform` certifies :math:`\kappa^*` for a convex cumulant given
  with its derivative; :func:`discrete_cumulant` builds it for two finite
  distributions; :func:`claim20_delta`).
* Claim 21 items 1 and 3 (:func:`claim21_delta`, :func:`claim21_epsilon`, which
  are Mironov 2017, Prop. 3 and reuse :mod:`rigorous_rdp.conversion`), item 2
  (:func:`claim21_delta_legendre`).
* Example 2 (:func:`gaussian_kappa_star`, :func:`example2_delta`,
  :func:`example2_optimal_order`), Claim 22 (:func:`claim22`), Claim 23
  (:func:`claim23_delta`), Example 3 (:func:`example3_delta`,
  :func:`example3_sigma`).
* Claim 24 (:func:`claim24_rdp`, :func:`claim24_relaxed`, :class:`Claim24Curve`),
  Claim 25 (:func:`claim25_sides`), Example 4 (:func:`example4_rdp`).
* Claim 27 (:func:`claim27_mixture_moment`) and (9.5) (:func:`eq95_moment`,
  :func:`eq95_rdp`, which reuse :mod:`rigorous_rdp.subsampling.poisson_gaussian`).

Where the post is wrong or has a gap (the mathematics wins; also in
``docs/blog_part2_claims.md``):

1. Claim 21 item 2 reads :math:`(\epsilon, -\exp(\kappa_M^*(\epsilon)))`-DP; the sign
   is misplaced: it is :math:`\delta = \exp(-\kappa_M^*(\epsilon))` (Claim 20).
2. Example 2: the infimum over :math:`\lambda` of
   :math:`(\lambda-1)(\lambda/2\sigma^2 - \epsilon)` is attained at
   :math:`\lambda^* = 1/2 + \epsilon\sigma^2`, not at :math:`(1 + 2\epsilon/\sigma^2)/2` as
   written (the value :math:`-(\epsilon\sigma - 1/2\sigma)^2/2`, hence (6.8), is right;
   :math:`\lambda^* > 1` is exactly the condition :math:`\sigma^2 > (2\epsilon)^{-1}`).
3. Claim 25 is stated for "nonnegative integers" :math:`p_i, q_i`; it holds (and is
   used) for nonnegative reals with :math:`q_i > 0` (Jensen / joint convexity).
4. The proof of Claim 24 writes the MGF as :math:`\mathbb E((\lambda-1)L)`; it is
   :math:`\mathbb E\exp((\lambda-1)L)`.  After the proof, "the conclusion of Lemma 6"
   means Claim 24.  The sampling there is of fixed size m out of n, neighbours
   differ in one row (replace-one), so the exact comparison value is not the
   Poisson/add-remove :math:`D_\lambda(r\mu_1 + (1-r)\mu_0\|\mu_0)`; that mixture is
   what Conjecture 1 compares with, and what the figure ``blog2-claim24`` plots.
5. Claim 27 sums over :math:`k = 1 : \lambda`; the binomial expansion has the term
   :math:`k = 0`, :math:`(1-r)^\lambda G_0(p\|q) = (1-r)^\lambda`, too ((9.5) has it:
   :math:`j = 0 : \lambda`).  Without it the identity is false (e.g. p = q gives
   :math:`1 - (1-r)^\lambda` instead of 1).  :func:`claim27_mixture_moment` sums from 0.
6. In the TensorFlow section, "Item 1 of Claim 25" and "Item 3 in Claim 25" refer to
   Claim 21.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from flint import arb

from ... import validation
from ...arith import DEFAULT_DIGITS, Certified, parse_rational, refine, to_arb, workprec
from ...curves import RdpCurve
from ...validation import certify, integer_at_least, nonnegative, positive, unit_interval

__all__ = [
    "Claim24Curve",
    "claim20_delta",
    "claim21_delta",
    "claim21_delta_legendre",
    "claim21_epsilon",
    "claim22",
    "claim23_delta",
    "claim24_rdp",
    "claim24_relaxed",
    "claim25_sides",
    "claim27_mixture_moment",
    "discrete_cumulant",
    "eq95_moment",
    "eq95_rdp",
    "example2_delta",
    "example2_optimal_order",
    "example2_optimal_order_as_stated",
    "example3_delta",
    "example3_sigma",
    "example4_rdp",
    "gaussian_kappa_star",
    "legendre_transform",
]

A = to_arb
Cumulant = Callable[[arb], arb]


# ---------------------------------------------------------------------------
# input helpers
# ---------------------------------------------------------------------------

_pos = positive
_nonneg = nonnegative


_order = validation.order


def _int_order(x: object) -> int:
    return validation.integer_at_least(x, "alpha", 1)


_unit = unit_interval
_cert = certify


def _steps(k: object) -> int:
    return integer_at_least(k, "steps", 1)


# ---------------------------------------------------------------------------
# Legendre transform (Claims 20, 21 item 2, 23)
# ---------------------------------------------------------------------------


def _legendre_ball(
    kappa: Cumulant, dkappa: Cumulant, eps: arb, t_min: Fraction, t_max: Fraction | None, n_bisect: int
) -> arb:
    """Enclosure of sup_{t in (t_min, t_max)} (eps t - kappa(t)) for convex kappa (one precision)."""

    def g(t: Fraction) -> arb:
        return eps * A(t) - kappa(A(t))

    def dg(t: Fraction) -> arb:
        return eps - dkappa(A(t))

    d0 = dg(t_min)
    if d0 <= 0:
        # g is non-increasing on the whole interval: the sup is the value at t_min
        return g(t_min)
    if not d0 > 0:
        return arb.nan()
    # find t2 with g'(t2) < 0 (certainly)
    t1 = t_min
    t2 = max(t_min + 1, 2 * t_min)
    while True:
        if t_max is not None and t2 >= t_max:
            t2 = t_max
            d2 = dg(t2)
            if d2 >= 0:
                return g(t_max)  # g non-decreasing up to t_max
            break
        d2 = dg(t2)
        if d2 < 0:
            break
        if d2 > 0:
            t1 = t2
        if t2 > 2**200:
            return arb.nan()
        t2 = 2 * t2
    # bisection on the sign of g' (certified signs only)
    for _ in range(n_bisect):
        m = (t1 + t2) / 2
        m = Fraction(math.floor(m * 2**80), 2**80) if m.denominator > 2**80 else m
        if not t1 < m < t2:
            break
        dm = dg(m)
        if dm > 0:
            t1 = m
        elif dm < 0:
            t2 = m
        else:
            # g'(m) contains 0: on [t1, t2], g <= g(m) + |g'(m)| (t2 - t1) (tangent at m, concavity);
            # outside, g <= max(g(t1), g(t2)) <= that bound as well
            gm = g(m)
            upper = (gm + abs(dm) * A(t2 - t1)).max(g(t1)).max(g(t2))
            if not (gm.is_finite() and upper.is_finite()):
                return arb.nan()
            return arb(gm.lower()).union(arb(upper.upper()))
    g1, g2 = g(t1), g(t2)
    s1, s2 = dg(t1), dg(t2)
    lower = g1.max(g2)
    m = (t1 + t2) / 2
    lower = lower.max(g(m))
    if t1 == t_min and not s1 > 0:
        return arb.nan()
    # concavity: g <= min of the tangents at t1 (slope s1 > 0) and t2 (slope s2 < 0);
    # the max of that min is at the intersection of the two lines
    upper = g1 + s1 * (g2 - g1 - s2 * A(t2 - t1)) / (s1 - s2)
    upper = upper.max(g1).max(g2)
    if not (lower.is_finite() and upper.is_finite()):
        return arb.nan()
    return arb(lower.lower()).union(arb(upper.upper()))


def legendre_transform(
    kappa: Cumulant,
    dkappa: Cumulant,
    epsilon: object,
    *,
    t_min: object = 0,
    t_max: object | None = None,
    digits: float = 8,
) -> Certified:
    r"""Certified Legendre transform :math:`\kappa^*(\epsilon) = \sup_{t_{\min} < t < t_{\max}} (\epsilon t - \kappa(t))`.

    Claims 20, 21 (item 2) and 23 of blog part 2 use it with :math:`I = (0, \infty)`.

    Method: :math:`g(t) = \epsilon t - \kappa(t)` is concave for a convex :math:`\kappa`
    (cumulant generating functions are convex).  A bracket :math:`t_1 < t^* < t_2` with
    :math:`g'(t_1) > 0 > g'(t_2)` *proven* on balls is found by doubling and
    bisection; then :math:`\max(g(t_1), g(t_2)) \le \kappa^* \le` the value of the two
    tangent lines at their intersection (concavity), which converges quadratically
    in the bracket width.  If :math:`g'(t_{\min}) \le 0` the supremum is
    :math:`g(t_{\min})` (e.g. 0 when :math:`\kappa(0) = 0` and :math:`\epsilon \le \kappa'(0)`).

    Args:
        kappa, dkappa: functions of an arb ``t`` returning enclosures of
            :math:`\kappa(t)` and :math:`\kappa'(t)` at the current precision; kappa
            must be convex and differentiable on the interval (caller's duty).
        epsilon: rational.
        t_min, t_max: the interval (default :math:`(0, \infty)`).
        digits: relative width of the result.

    Raises:
        PrecisionExhausted: if no bracket is found (e.g. the supremum is at
            infinity, :math:`\epsilon \ge \lim \kappa'`), or the width is not reached.
    """
    e = parse_rational(epsilon, "epsilon")
    lo = _nonneg(t_min, "t-min")
    hi = None if t_max is None else parse_rational(t_max, "t-max")
    if hi is not None and hi <= lo:
        raise ValueError(f"t-max must be > t-min ({float(lo)}). Found {t_max!r}.")
    n = max(60, int(digits * 3.4 / 2) + 40)
    from ...errors import PrecisionExhausted

    def f(prec: int) -> arb:
        return _legendre_ball(kappa, dkappa, A(e), lo, hi, n + prec // 4)

    try:
        return refine(f, digits, what="Legendre transform", max_prec=2048)
    except PrecisionExhausted as exc:
        # an exact 0 (sup at t_min with g(t_min) = 0) has no relative accuracy
        if exc.last is not None and exc.last.contains(0) and exc.last.rad() < arb(2) ** -60:
            return Certified(exc.last, exc.prec or 2048)
        raise


def discrete_cumulant(p: Sequence[object], q: Sequence[object]) -> tuple[Cumulant, Cumulant]:
    r"""The cumulant :math:`\kappa_{p,q}(t) = \log\sum_y p(y)^{t+1} q(y)^{-t}` of :math:`L(p\|q)` and its
    derivative, for finite distributions with rational masses (q > 0 where p > 0).

    :math:`\kappa'(t) = \sum_y p^{t+1}q^{-t}\log(p/q) / \sum_y p^{t+1}q^{-t}`; :math:`\kappa` is convex.
    """
    from ..indistinguishability import parse_distribution

    pp = parse_distribution(p, "p")
    qq = parse_distribution(q, "q")
    if len(pp) != len(qq):
        raise ValueError(f"q must have the same length as p ({len(pp)}). Found {len(qq)}.")
    pairs = [(a, b) for a, b in zip(pp, qq, strict=False) if a > 0]
    for _a, b in pairs:
        if b == 0:
            raise ValueError("q must be > 0 wherever p > 0 (otherwise the cumulant is infinite). Found q = 0.")

    def parts(t: arb) -> tuple[list[arb], list[arb]]:
        ws, ls = [], []
        for a, b in pairs:
            la, lb = A(a).log(), A(b).log()
            ws.append(((t + 1) * la - t * lb).exp())
            ls.append(la - lb)
        return ws, ls

    def kappa(t: arb) -> arb:
        ws, _ = parts(t)
        return sum(ws, arb(0)).log()

    def dkappa(t: arb) -> arb:
        ws, ls = parts(t)
        return sum((w * x for w, x in zip(ws, ls, strict=False)), arb(0)) / sum(ws, arb(0))

    return kappa, dkappa


def claim20_delta(p: Sequence[object], q: Sequence[object], epsilon: object, digits: float = 8) -> Certified:
    r"""Claim 20: two distributions are :math:`(\epsilon, \exp(-\kappa_{p,q}^*(\epsilon)))`-ind (one direction,
    (3)); returns :math:`\exp(-\kappa_{p,q}^*(\epsilon))` for finite p, q.  It is >= the optimal
    delta (:func:`rigorous_rdp.research.indistinguishability.hockey_stick`).

    If :math:`\epsilon \ge \max_y \log(p(y)/q(y))` (decided on balls), :math:`\kappa^*(\epsilon) = +\infty`
    and the result is an exact 0 (then indeed :math:`p(S) \le e^\epsilon q(S)` for all S).
    """
    from ..indistinguishability import parse_distribution

    kappa, dkappa = discrete_cumulant(p, q)
    e = parse_rational(epsilon, "epsilon")
    pp, qq = parse_distribution(p, "p"), parse_distribution(q, "q")
    with workprec(128):
        if all(A(a) <= A(e).exp() * A(b) for a, b in zip(pp, qq, strict=False) if a > 0):
            return Certified(arb(0), 128)
    ks = legendre_transform(kappa, dkappa, epsilon, digits=digits)
    with workprec(ks.prec):
        return Certified((-ks.ball).exp(), ks.prec)


# ---------------------------------------------------------------------------
# Claim 21
# ---------------------------------------------------------------------------


def claim21_delta(rdp: object, alpha: object, epsilon: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Claim 21 item 1: an :math:`(\lambda,\rho)`-RDP mechanism is
    :math:`(\epsilon, \exp((\lambda-1)(\rho-\epsilon)))`-DP (Mironov 2017, Prop. 3;
    :func:`rigorous_rdp.conversion.delta_mironov`).  The post restricts to :math:`\epsilon \ge \rho`,
    where the value is <= 1; for :math:`\epsilon < \rho` the formula exceeds 1 (still true, vacuous).
    """
    from ...conversion import delta_mironov

    r, a, e = _nonneg(rdp, "rdp"), _order(alpha), _nonneg(epsilon, "epsilon")
    return _cert(lambda: delta_mironov(A(r), A(a), A(e)), digits, "Claim 21 item 1")


def claim21_epsilon(rdp: object, alpha: object, delta: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Claim 21 item 3: an :math:`(\lambda,\rho)`-RDP mechanism is
    :math:`(\rho + (\lambda-1)^{-1}\log\delta^{-1}, \delta)`-DP for :math:`0 < \delta \le 1`
    (:func:`rigorous_rdp.conversion.epsilon_mironov`)."""
    from ...conversion import epsilon_mironov

    r, a = _nonneg(rdp, "rdp"), _order(alpha)
    d = _unit(delta, "delta", open_low=True)
    return _cert(lambda: epsilon_mironov(A(r), A(a), A(d)), digits, "Claim 21 item 3")


def claim21_delta_legendre(kappa: Cumulant, dkappa: Cumulant, epsilon: object, digits: float = 8) -> Certified:
    r"""Claim 21 item 2: :math:`(\epsilon, \exp(-\kappa_M^*(\epsilon)))`-DP for a convex cumulant bound
    :math:`\kappa_M` (the post prints :math:`-\exp(\kappa_M^*(\epsilon))`, a sign slip).

    Item 2 is item 1 minimised over the order: :math:`\exp(-\kappa^*(\epsilon)) = \inf_t
    \exp(\kappa(t) - \epsilon t)` with :math:`\kappa(t) = t\rho(t+1)`.
    """
    ks = legendre_transform(kappa, dkappa, epsilon, digits=digits)
    with workprec(ks.prec):
        return Certified((-ks.ball).exp(), ks.prec)


# ---------------------------------------------------------------------------
# Examples 2, 3 and Claims 22, 23 (Gaussian)
# ---------------------------------------------------------------------------


def _gauss_kappa_star_ball(e: arb, s: arb, k: int) -> arb:
    # k kappa*(eps/k) with kappa(t) = t(t+1)/(2 sigma^2); t* = (eps/k) sigma^2 - 1/2
    # value k ((eps/k) sigma - 1/(2 sigma))^2 / 2 if t* > 0, else 0
    u = (e / k) * s - 1 / (2 * s)
    return k * u * u / 2


def gaussian_kappa_star(epsilon: object, sigma: object, steps: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Closed-form :math:`k\,\kappa^*(\epsilon/k)` for the Gaussian mechanism, :math:`\kappa(t) = t(t+1)/2\sigma^2`
    (Example 1) on :math:`I = (0,\infty)`:

    .. math:: k\kappa^*(\epsilon/k) = \frac{k}{2}\Big(\frac{\epsilon\sigma}{k} - \frac{1}{2\sigma}\Big)^2
              \text{ if } \epsilon\sigma^2/k > 1/2, \text{ else } 0.

    (The maximiser is :math:`t^* = \epsilon\sigma^2/k - 1/2`, i.e. :math:`\lambda^* = 1/2 + \epsilon\sigma^2/k`.)
    """
    e, s, k = _nonneg(epsilon, "epsilon"), _pos(sigma, "sigma"), _steps(steps)
    if not 2 * e * s * s > k:
        return Certified(arb(0), 64)
    return _cert(lambda: _gauss_kappa_star_ball(A(e), A(s), k), digits, "Gaussian kappa*")


def example2_optimal_order(epsilon: object, sigma: object) -> Fraction:
    r"""Example 2: the minimising order of :math:`(\lambda-1)(\lambda/2\sigma^2 - \epsilon)`,
    :math:`\lambda^* = 1/2 + \epsilon\sigma^2` (exact; the post's :math:`(1 + 2\epsilon/\sigma^2)/2` is a slip)."""
    e, s = _nonneg(epsilon, "epsilon"), _pos(sigma, "sigma")
    return Fraction(1, 2) + e * s * s


def example2_optimal_order_as_stated(epsilon: object, sigma: object) -> Fraction:
    r"""The order printed in Example 2, :math:`(1 + 2\epsilon/\sigma^2)/2` (not the minimiser; kept for the record)."""
    e, s = _nonneg(epsilon, "epsilon"), _pos(sigma, "sigma")
    return (1 + 2 * e / (s * s)) / 2


def example2_delta(epsilon: object, sigma: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Example 2: :math:`\delta = \inf_{\lambda > 1}\exp((\lambda-1)(\lambda/2\sigma^2 - \epsilon))
    = \exp(-((2\sigma)^{-1} - \epsilon\sigma)^2/2)` for :math:`\sigma^2 > (2\epsilon)^{-1}` (the same as (6.8)),
    and 1 otherwise (the infimum is approached as :math:`\lambda \to 1`)."""
    ks = gaussian_kappa_star(epsilon, sigma, 1, digits)
    with workprec(ks.prec):
        return Certified((-ks.ball).exp(), ks.prec)


def claim22(rdp: object, steps: object) -> Fraction:
    r"""Claim 22 (moment composition): k adaptive :math:`(\lambda,\rho)`-RDP mechanisms are
    :math:`(\lambda, k\rho)`-RDP (exact; the accountant applies it at every order)."""
    return _steps(steps) * _nonneg(rdp, "rdp")


def claim23_delta(kappa: Cumulant, dkappa: Cumulant, epsilon: object, steps: object, digits: float = 8) -> Certified:
    r"""Claim 23: the k-fold adaptive composition of :math:`(\lambda,\rho(\lambda))`-RDP mechanisms is
    :math:`(\epsilon, \exp(-k\kappa^*(\epsilon/k)))`-DP, :math:`\kappa(t) = t\rho(t+1)` convex, given with its
    derivative.  Uses :math:`(k f)^*(x) = k f^*(x/k)`."""
    k = _steps(steps)
    e = parse_rational(epsilon, "epsilon")
    ks = legendre_transform(kappa, dkappa, e / k, digits=digits)
    with workprec(ks.prec):
        return Certified((-(k * ks.ball)).exp(), ks.prec)


def example3_delta(epsilon: object, sigma: object, steps: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Example 3: k Gaussian mechanisms (sensitivity 1) compose to :math:`(\epsilon,\delta)`-DP with

    .. math:: \delta = \exp(-((2\sigma/\sqrt k)^{-1} - \epsilon\sigma/\sqrt k)^2/2)

    when :math:`\epsilon\sigma^2/k > 1/2` (else 1): (6.8) with :math:`\sigma \to \sigma/\sqrt k`, and
    :math:`\exp(-k\kappa^*(\epsilon/k))` of Claim 23.
    """
    ks = gaussian_kappa_star(epsilon, sigma, steps, digits)
    with workprec(ks.prec):
        return Certified((-ks.ball).exp(), ks.prec)


def example3_sigma(epsilon: object, delta: object, steps: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Example 3, the sigma condition: if
    :math:`\sigma > \sqrt k\,(\epsilon^{-1}\sqrt{2\log\delta^{-1}} + (2\epsilon)^{-1/2})`
    then the k-fold composition is :math:`(\epsilon,\delta)`-DP ((6.81) with :math:`\sigma \to \sigma/\sqrt k`).
    Returns the threshold; it is :math:`\sqrt k` times :func:`rigorous_rdp.research.blog.part1.sigma_6_81`."""
    from .part1 import log_inv

    e = _pos(epsilon, "epsilon")
    d = _unit(delta, "delta", open_low=True, open_high=True)
    k = _steps(steps)
    return _cert(
        lambda: arb(k).sqrt() * ((2 * log_inv(d)).sqrt() / A(e) + 1 / (2 * A(e)).sqrt()), digits, "Example 3 sigma"
    )


# ---------------------------------------------------------------------------
# Claims 24, 25 and Example 4
# ---------------------------------------------------------------------------


def _claim24_ball(rho: arb, lam: arb, r: arb) -> arb:
    lm1 = lam - 1
    return (r * (lm1 * rho).expm1()).log1p() / lm1


def claim24_rdp(rdp: object, alpha: object, r: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Claim 24 (RDP amplification by sampling without replacement, any mechanism): if N is
    :math:`(\lambda,\rho)`-RDP on :math:`X^m`, then :math:`M(x) = N(x_\gamma)` with :math:`\gamma` a uniform
    m-subset of [n], r = m/n, is

    .. math:: \Big(\lambda,\ \frac{1}{\lambda-1}\log\big(1 + r(e^{(\lambda-1)\rho} - 1)\big)\Big)\text{-RDP}.

    Proof: joint convexity of :math:`G_\lambda` (Claim 25) over the uniform mixture of
    subsets; a fraction r of them contains the differing row.  Evaluated with
    ``expm1``/``log1p`` (no cancellation for small r).
    """
    rho, lam, rr = _nonneg(rdp, "rdp"), _order(alpha), _unit(r, "r")
    if rr == 0 or rho == 0:
        return Certified(arb(0), 64)
    return _cert(lambda: _claim24_ball(A(rho), A(lam), A(rr)), digits, "Claim 24")


def claim24_relaxed(
    rdp: object, alpha: object, r: object, bound: object | None = None, digits: float = DEFAULT_DIGITS
) -> Certified:
    r"""The relaxations after Claim 24: :math:`(\lambda, (\lambda-1)^{-1} r(e^{(\lambda-1)\rho} - 1))`-RDP
    (:math:`1 + z \le e^z`), and, when ``bound`` :math:`= \alpha` is given with
    :math:`(\lambda-1)\rho \le \alpha`, :math:`(\lambda, \alpha^{-1}(e^\alpha - 1) r\rho)`-RDP."""
    rho, lam, rr = _nonneg(rdp, "rdp"), _order(alpha), _unit(r, "r")
    if bound is None:
        return _cert(lambda: A(rr) * ((A(lam) - 1) * A(rho)).expm1() / (A(lam) - 1), digits, "Claim 24 relaxed")
    a = _pos(bound, "bound")
    if (lam - 1) * rho > a:
        raise ValueError(f"bound must be >= (alpha - 1) * rdp = {float((lam - 1) * rho)!r}. Found {bound!r}.")
    return _cert(lambda: A(a).expm1() / A(a) * A(rr) * A(rho), digits, "Claim 24 relaxed")


class Claim24Curve(RdpCurve):
    r"""Claim 24 applied order by order to an inner RDP curve: :math:`\alpha \mapsto
    (\alpha-1)^{-1}\log(1 + r(e^{(\alpha-1)\rho(\alpha)} - 1))` (sampling without replacement,
    replace-one neighbours).  Usable wherever an :class:`~rigorous_rdp.curves.RdpCurve` is."""

    name = "claim24"
    citation = "blog part 2, Claim 24"

    def __init__(self, inner: RdpCurve, r: object):
        self.inner = inner
        self.r = _unit(r, "r")
        self.integer_orders_only = inner.integer_orders_only

    def certified(self, alpha: Fraction) -> arb:
        self.check_order(alpha)
        if self.r == 0:
            return arb(0)
        return _claim24_ball(self.inner.certified(alpha), A(alpha), A(self.r))

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        a = np.asarray(alphas, dtype=float)
        rho = np.asarray(self.inner.screen(a), dtype=float)
        with np.errstate(all="ignore"):
            out: np.ndarray = np.log1p(float(self.r) * np.expm1((a - 1) * rho)) / (a - 1)
        return out


def claim25_sides(
    p: Sequence[object], q: Sequence[object], alpha: object, digits: float = DEFAULT_DIGITS
) -> tuple[Fraction | Certified, Fraction | Certified]:
    r"""Claim 25, (8): :math:`(\sum p_i)^\lambda / (\sum q_i)^{\lambda-1} \le \sum_i p_i^\lambda / q_i^{\lambda-1}`
    for :math:`p_i \ge 0`, :math:`q_i > 0` (reals; the post says integers), :math:`\lambda > 1`.

    Returns (left side, right side): exact Fractions for an integer order and
    rational inputs, certified balls otherwise.
    """
    ps = [_nonneg(x, "p") for x in p]
    qs = [_pos(x, "q") for x in q]
    if len(ps) != len(qs) or not ps:
        raise ValueError(f"q must have the same (non-zero) length as p ({len(ps)}). Found {len(qs)}.")
    lam = _order(alpha)
    if lam.denominator == 1:
        n = int(lam)
        lhs = sum(ps, Fraction(0)) ** n / sum(qs, Fraction(0)) ** (n - 1)
        rhs = sum((a**n / b ** (n - 1) for a, b in zip(ps, qs, strict=False)), Fraction(0))
        return lhs, rhs

    def pw(x: Fraction, y: arb) -> arb:
        return arb(0) if x == 0 else (y * A(x).log()).exp()

    lhs_c = _cert(
        lambda: pw(sum(ps, Fraction(0)), A(lam)) / pw(sum(qs, Fraction(0)), A(lam) - 1), digits, "Claim 25 lhs"
    )
    rhs_c = _cert(
        lambda: sum((pw(a, A(lam)) / pw(b, A(lam) - 1) for a, b in zip(ps, qs, strict=False)), arb(0)),
        digits,
        "Claim 25 rhs",
    )
    return lhs_c, rhs_c


def example4_rdp(alpha: object, r: object, sigma: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Example 4: Claim 24 for the Gaussian mechanism (:math:`\rho = \lambda/2\sigma^2`, Example 1):
    :math:`(\lambda-1)^{-1}\log(1 + r(e^{(\lambda-1)\lambda/2\sigma^2} - 1))`, which is
    :math:`O(r\lambda/\sigma^2)` when :math:`(\lambda-1)\lambda/2\sigma^2` is bounded -- linear in r,
    whereas the exact mixture RDP (:func:`eq95_rdp`) is :math:`O(r^2)` (Claim 26's regime)."""
    lam, rr, s = _order(alpha), _unit(r, "r"), _pos(sigma, "sigma")
    if rr == 0:
        return Certified(arb(0), 64)
    return _cert(lambda: _claim24_ball(A(lam) / (2 * A(s) * A(s)), A(lam), A(rr)), digits, "Example 4")


# ---------------------------------------------------------------------------
# Claim 27 and (9.5)
# ---------------------------------------------------------------------------


def claim27_mixture_moment(r: object, alpha: object, moments: Sequence[object]) -> Fraction:
    r"""Claim 27: for an integer :math:`\lambda \ge 1`,

    .. math:: G_\lambda(rp + (1-r)q \,\|\, q) = \sum_{k=0}^{\lambda}\binom{\lambda}{k} r^k (1-r)^{\lambda-k} G_k(p\|q),

    given the moments :math:`G_0(p\|q) = 1, G_1 = 1, G_2, \dots, G_\lambda` (``moments[k]``), exact
    for rational inputs.  The post's sum starts at k = 1; the k = 0 term is needed
    (module docstring, item 5).
    """
    rr = _unit(r, "r")
    lam = _int_order(alpha)
    g = [parse_rational(x, "moments") for x in moments]
    if len(g) < lam + 1:
        raise ValueError(f"moments must hold G_0 .. G_{lam} ({lam + 1} values). Found {len(g)}.")
    return sum((math.comb(lam, k) * rr**k * (1 - rr) ** (lam - k) * g[k] for k in range(lam + 1)), Fraction(0))


def eq95_moment(alpha: object, r: object, sigma: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""(9.5): :math:`G_\lambda(r\mu_1 + (1-r)\mu_0\|\mu_0) = \sum_{j=0}^{\lambda}\binom{\lambda}{j} r^j(1-r)^{\lambda-j}
    e^{j(j-1)/2\sigma^2}` for integer :math:`\lambda`, :math:`\mu_i = N(i, \sigma^2)` (Claim 27 with Example 1).

    Evaluated by :func:`rigorous_rdp.subsampling.poisson_gaussian.log_a_integer` (the same
    sum, written as 1 plus non-negative terms).
    """
    from ...subsampling.poisson_gaussian import log_a_integer

    lam = _int_order(alpha)
    rr, s = _unit(r, "r"), _pos(sigma, "sigma")
    if lam == 1 or rr == 0:
        return Certified(arb(1), 64)
    return _cert(lambda: log_a_integer(lam, A(rr), A(s)).exp(), digits, "(9.5)")


def eq95_rdp(alpha: object, r: object, sigma: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r""":math:`D_\lambda(r\mu_1 + (1-r)\mu_0\|\mu_0) = (\lambda-1)^{-1}\log` (9.5), at any rational order > 1
    (integer orders by the sum, real orders by the certified integral of
    :func:`rigorous_rdp.subsampling.poisson_gaussian.poisson_gaussian_rdp`).  This is the
    right-hand side of Conjecture 1 and the exact RDP of the Poisson-subsampled
    Gaussian (add/remove)."""
    from ...subsampling.poisson_gaussian import poisson_gaussian_rdp

    lam = _order(alpha)
    rr, s = _unit(r, "r"), _pos(sigma, "sigma")
    if rr == 0:
        return Certified(arb(0), 64)
    return refine(lambda prec: poisson_gaussian_rdp(lam, rr, s, prec), digits, what="(9.5) RDP")
