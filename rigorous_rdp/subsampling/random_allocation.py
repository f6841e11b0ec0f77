r"""Certified RDP of random allocation (balls-and-bins sampling) of the Gaussian mechanism.

**The sampler.**  In each epoch every example is used in exactly one of the
``steps_per_epoch`` = :math:`t` steps, chosen uniformly at random and independently of the
other examples (Chua et al., "Balls-and-Bins Sampling for DP-SGD", AISTATS 2025, Sec. 2;
Feldman & Shenfeld, "Privacy amplification by random allocation", arXiv 2502.08202, the case
:math:`k = 1` of :math:`k`-out-of-:math:`t` allocation).  Each step releases a sum of clipped
gradients (sensitivity 1) plus :math:`N(0, \sigma^2 I)` noise, :math:`\sigma` =
``noise_multiplier``.  Adjacency is add/remove of one example.

**The dominating pair** (Feldman & Shenfeld 2025: the privacy of random allocation of a
mechanism is bounded by that of the allocation of its dominating pair; Chua et al. 2025 use the
same pair for their Monte Carlo accountant.  Only the abstract of the paper was available here,
so its theorem numbers are not cited; the reduction is taken from the paper, and
``proofs/verify_random_allocation.py`` checks the pair's likelihood ratio, not the reduction).  For the Gaussian mechanism the :math:`t` outputs of an
epoch (after the usual reduction of each step to one dimension along the example's gradient)
are distributed as

.. math:: P = \frac1t\sum_{i=1}^t N(e_i, \sigma^2 I_t) \ \text{(with the example)},\qquad
          Q = N(0, \sigma^2 I_t) \ \text{(without it)}.

With :math:`s = 1/\sigma` and :math:`x = \sigma y`, :math:`y \sim N(0, I_t)` under Q, the
likelihood ratio is

.. math:: L(y) = \frac{dP}{dQ} = \frac1t \sum_{i=1}^t Y_i, \qquad Y_i = e^{s y_i - s^2/2},

a mean of :math:`t` i.i.d. log-normal variables with moments
:math:`M_n = \mathbb{E}[Y^n] = e^{n(n-1)s^2/2}`.  The two directions of add/remove adjacency:

* **remove** :math:`\epsilon_{\rm rem}(\alpha) = D_\alpha(P\|Q) = \frac{1}{\alpha-1}\log\mathbb{E}_Q[L^\alpha]`;
* **add** :math:`\epsilon_{\rm add}(\alpha) = D_\alpha(Q\|P) = \frac{1}{\alpha-1}\log\mathbb{E}_Q[L^{-(\alpha-1)}]`
  (since :math:`\mathbb{E}_P[(Q/P)^\alpha] = \mathbb{E}_Q[L^{1-\alpha}]`).

RDP composes additively over epochs (Mironov 2017, Prop. 1), so ``epochs`` multiplies the value.

**Remove direction: one series power (exact at integer orders).**  For integer
:math:`\alpha \ge 2` the multinomial theorem and independence give
:math:`\mathbb{E}[(\sum_i Y_i)^\alpha] = \sum_{n_1+\dots+n_t=\alpha}\binom{\alpha}{n_1,\dots,n_t}\prod_i M_{n_i}`,
i.e. :math:`\alpha!` times the coefficient of :math:`x^\alpha` in :math:`(\sum_n M_n x^n/n!)^t`
(exponential generating functions multiply).  Scaling :math:`x` by :math:`1/t`:

.. math:: A_\alpha = \mathbb{E}_Q[L^\alpha] = \alpha!\,[x^\alpha]\,\tilde F(x)^t, \qquad
          \tilde F(x) = \sum_{n\ge0} \frac{e^{n(n-1)s^2/2}}{n!\,t^n}\,x^n .

This equals the sum over integer partitions of :math:`\alpha` that Feldman & Shenfeld give for the
remove direction (their RDP analysis of the Gaussian case; the form
:math:`t^{-\alpha}e^{-\alpha s^2/2}\alpha![x^\alpha]F(x)^t`, :math:`F(x) = \sum_n e^{n^2 s^2/2}x^n/n!`, of
issue 25 is the same series with :math:`x` not rescaled); ``proofs/verify_random_allocation.py``
checks the three forms against each other exactly (sympy) and against quadrature.  All
coefficients are positive, so one ball-arithmetic power of a truncated series (``arb_series``,
truncated at :math:`x^{\alpha_{\max}}`, which is exact for every coefficient up to
:math:`\alpha_{\max}`) encloses every :math:`A_\alpha`, :math:`\alpha \le \alpha_{\max}`, at once.
The value is the exact remove-direction RDP, not a bound on it.

**Add direction: two proven upper bounds, the smaller is used.**  There is no finite expansion
of the negative moment :math:`B_\alpha = \mathbb{E}_Q[L^{-m}]`, :math:`m = \alpha - 1`.

1. *Geometric mean* (the add-direction bound of Feldman & Shenfeld,
   :math:`(\alpha + t - 1)/(2t\sigma^2)`; their code cites it as "Corollary 6.2, second part,
   with Lemma 2.4").  By AM-GM :math:`L \ge \prod_i Y_i^{1/t} = e^{s\bar y - s^2/2}` with
   :math:`\bar y \sim N(0, 1/t)`, so :math:`B_\alpha \le e^{m s^2/2 + m^2 s^2/(2t)}` and
   :math:`\epsilon_{\rm add}(\alpha) \le \frac{s^2}{2}(1 + \frac{\alpha-1}{t})`.  It is nearly
   tight for :math:`\alpha \gtrsim t` but never below :math:`1/(2\sigma^2)`: it shows no
   amplification at all at the small orders that matter for accounting.
2. *Laplace transform* (this module).  For :math:`L > 0`,
   :math:`L^{-m} = \Gamma(m)^{-1}\int_0^\infty u^{m-1}e^{-uL}\,du`; with Tonelli and independence,
   and :math:`u = w` after the substitution :math:`v = w/t`,

   .. math:: B_\alpha = \frac{1}{\Gamma(m)}\int_0^\infty w^{m-1}\,\varphi(w/t)^t\,dw, \qquad
             \varphi(v) = \mathbb{E}[e^{-vY}].

   For :math:`u \ge 0` and every :math:`K \ge 1`, :math:`e^{-u} \le \sum_{j=0}^{2K}(-u)^j/j!` (an even Taylor truncation of
   :math:`e^{-u}` is an upper bound), hence :math:`0 < \varphi(v) \le p_K(v) = \sum_{j=0}^{2K}(-v)^j M_j/j!`.
   :math:`\varphi` is decreasing, so for :math:`v \ge v_0 = W/t` and any :math:`1 \le t_1 < t`,
   :math:`\varphi(v)^t \le p_K(v_0)^{t-t_1}\varphi(v)^{t_1}`, and
   :math:`\Gamma(m)^{-1}\int_0^\infty w^{m-1}\varphi(w/t)^{t_1}dw = (t/t_1)^m\,\mathbb{E}[L_{t_1}^{-m}]
   \le (t/t_1)^m e^{m s^2/2 + m^2 s^2/(2t_1)}` (the Gamma identity backwards, then bound 1 for
   the mean :math:`L_{t_1}` of :math:`t_1` of the :math:`Y_i`).  Together

   .. math:: B_\alpha \le \frac{1}{\Gamma(m)}\int_0^W w^{m-1} p_K(w/t)^t\,dw
             \;+\; p_K(W/t)^{t-t_1}\Big(\frac{t}{t_1}\Big)^m e^{m s^2/2 + m^2 s^2/(2t_1)} .

   The first term is the integral of a polynomial, enclosed by arb's rigorous integration
   (``acb.integral``); :math:`K \in \{1, 2, 3\}` (the smallest result is used),
   :math:`t_1 = \lceil t/2\rceil`, and :math:`W` is
   chosen by a float screen so that the second term is below the working precision (the choice
   affects tightness only).  This bound is within a few parts in :math:`10^4` of the exact
   :math:`\epsilon_{\rm add}` at the orders where it is used (checked against quadrature at
   :math:`t \le 3` in the tests) and lies below the remove direction there.

3. *Many orders at once* (:func:`_add_many`): :math:`g(\alpha) = \log B_\alpha` is convex in
   :math:`\alpha` (Hoelder), so the Laplace bound is computed on a geometric grid of orders (ratio
   ``ADD_GRID_RATIO``) and interpolated linearly in between; about 0.2% looser than the direct
   bound at each order, which is used when at most ``_DIRECT_ADD_ORDERS`` orders are asked for.

The add-direction values are therefore enclosures of a proven *upper bound* on
:math:`D_\alpha(Q\|P)`; the remove-direction values enclose the exact :math:`D_\alpha(P\|Q)`.
The add/remove RDP is the maximum of the two (:func:`rdp`).

:math:`t = 1` is the plain Gaussian mechanism: both directions equal :math:`\alpha/(2\sigma^2)`
(Mironov 2017, Prop. 7), which the tests check.

**k > 1** (each example in ``selected`` = :math:`k` of the :math:`t` steps, a uniformly random
:math:`k`-subset; dominating pair :math:`P_k = \binom{t}{k}^{-1}\sum_{|S|=k}N(\sum_{i\in S}e_i, \sigma^2 I)`
vs :math:`Q`, likelihood ratio :math:`L_k = \binom{t}{k}^{-1}\sum_{|S|=k}\prod_{i\in S}Y_i`).  Cut the
positions into :math:`k` consecutive blocks, :math:`r = t - k\lfloor t/k\rfloor` of
:math:`\lfloor t/k\rfloor + 1` steps and :math:`k - r` of :math:`\lfloor t/k\rfloor` steps.  A uniform
permutation :math:`\pi` of the steps followed by one uniform position per block selects a uniform
:math:`k`-subset, so :math:`L_k = \mathbb{E}_\pi \prod_B L_{\pi(B)}` (the mean of the :math:`Y_i` over
each block's steps).  :math:`x^\beta` is convex for :math:`\beta = \alpha > 1` and for
:math:`\beta = 1 - \alpha < 0`; Jensen's inequality and independence across blocks give
:math:`\mathbb{E}_Q[L_k^\beta] \le \prod_B \mathbb{E}[L_{|B|}^\beta]`, so each direction's RDP of
:math:`k`-of-:math:`t` allocation is at most the sum over the blocks of the :math:`k = 1` values
(an upper bound; exact for :math:`k \in \{1, t\}`).  This is the decomposition Feldman & Shenfeld
use for :math:`k > 1` (their published code bounds :math:`k`-of-:math:`t` by :math:`k` times the
1-of-:math:`\lfloor t/k\rfloor` value; the blocks here use the exact sizes, no monotonicity in
:math:`t` needed).  ``proofs/verify_random_allocation.py`` (step 10) checks the uniform subset by
exact enumeration, the mixture identity as polynomials, and the inequality exactly at small
:math:`t`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction

import numpy as np
from flint import acb, arb, arb_series, ctx

from .. import validation
from ..arith import Rational, parse_rational, to_arb, workprec
from ..curves import RdpCurve

__all__ = [
    "MAX_ORDER",
    "MAX_STEPS_PER_EPOCH",
    "RandomAllocationGaussianCurve",
    "add_rdp",
    "add_rdp_geometric_mean",
    "add_rdp_laplace",
    "rdp",
    "remove_moments",
    "remove_rdp",
]

#: largest order accepted (the series power costs about (alpha_max)^2 / 10^6 seconds)
MAX_ORDER = 10_000
#: largest number of steps per epoch accepted
MAX_STEPS_PER_EPOCH = 10**9
#: the values of K tried for the Taylor polynomial of degree 2K that bounds the Laplace transform
#: of the log-normal (each gives a valid bound; the smallest is used: K = 1 wins at small t or
#: larger orders, K = 2 or 3 at large t)
LAPLACE_HALF_DEGREES = (1, 2, 3)
#: guard bits added to the working precision inside the computations
GUARD_BITS = 20
_DIRECTIONS = ("remove", "add", "both")
#: up to this many orders the add-direction bound is computed at each order; beyond, on a
#: geometric grid of ratio ADD_GRID_RATIO and interpolated by convexity (:func:`_add_many`)
_DIRECT_ADD_ORDERS = 12
ADD_GRID_RATIO = 1.1


# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------


def _noise(noise_multiplier: Rational) -> Fraction:
    return validation.positive(noise_multiplier, "noise_multiplier")


def _steps(steps_per_epoch: object) -> int:
    t = validation.integer_at_least(steps_per_epoch, "steps_per_epoch", 1)
    if t > MAX_STEPS_PER_EPOCH:
        raise ValueError(f"steps_per_epoch must be an integer in [1, {MAX_STEPS_PER_EPOCH}]. Found {steps_per_epoch}.")
    return t


def _epochs(epochs: object) -> int:
    return validation.integer_at_least(epochs, "epochs", 1)


def _orders(orders: Iterable[object]) -> list[int]:
    out = []
    for a in orders:
        message = f"orders must be integers in [2, {MAX_ORDER}] for random allocation. Found {a!r}."
        try:
            v = parse_rational(a, "orders")
        except ValueError:
            raise ValueError(message) from None
        if v.denominator != 1 or not 2 <= v <= MAX_ORDER:
            raise ValueError(message)
        out.append(int(v))
    if not out:
        raise ValueError("orders must be a non-empty list of integers >= 2.")
    return out


def _inv_var(sigma: Fraction) -> arb:
    """Ball of :math:`s^2 = 1/\\sigma^2` (exact rational input)."""
    return to_arb(1 / (sigma * sigma))


# ---------------------------------------------------------------------------
# remove direction
# ---------------------------------------------------------------------------


def _accurate(x: arb, bits: int) -> bool:
    """True when ``x`` is finite, positive and has at least ``bits`` bits of relative accuracy."""
    return bool(x.is_finite() and x > 0 and (x.rad() == 0 or x.rel_accuracy_bits() >= bits))


def _remove_moment_series(s2: arb, t: int, n_max: int) -> list[arb]:
    r"""Balls of :math:`A_\alpha = \alpha![x^\alpha]\tilde F(x)^t` for :math:`\alpha = 0..n_{\max}`
    (module docstring), at the current working precision."""
    coeffs = []
    inv_t = 1 / arb(t)
    for n in range(n_max + 1):
        coeffs.append((s2 * (n * (n - 1) // 2)).exp() * inv_t**n / arb.fac_ui(n))
    old_cap = ctx.cap
    try:
        ctx.cap = max(old_cap, n_max + 1)
        series = arb_series(coeffs, prec=n_max + 1)
        # exp(t log F) encloses F^t like the binary power does (ball arithmetic) and is ~4x faster
        # at n_max = 1024 for sigma <= 3; when the coefficients span a huge range (large sigma:
        # they fall like 1/n!) its absolute errors swamp the high coefficients, and the binary
        # power, whose products of positive coefficients keep their relative accuracy, is used
        c = (series.log() * t).exp().coeffs()
        if len(c) < n_max + 1 or not all(_accurate(x, ctx.prec - 40) for x in c[2:]):
            c = (series**t).coeffs()
    finally:
        ctx.cap = old_cap
    c = list(c) + [arb(0)] * (n_max + 1 - len(c))
    return [c[n] * arb.fac_ui(n) for n in range(n_max + 1)]


def remove_moments(
    noise_multiplier: Rational, steps_per_epoch: int, orders: Sequence[int], *, prec: int | None = None
) -> list[arb]:
    r"""Balls containing :math:`A_\alpha = \mathbb{E}_Q[L^\alpha]` of one epoch of random allocation.

    :math:`A_\alpha = \alpha!\,[x^\alpha]\,\tilde F(x)^t` with
    :math:`\tilde F(x) = \sum_n e^{n(n-1)/(2\sigma^2)} x^n/(n!\,t^n)` (module docstring; the partition
    sum of Feldman & Shenfeld 2025 for the remove direction, computed as one series power).

    Args:
        noise_multiplier: :math:`\sigma > 0` (exact rational; a float is taken as its binary value).
        steps_per_epoch: :math:`t \ge 1`.
        orders: integer orders in [2, MAX_ORDER].
        prec: working precision in bits (default: the current one).

    Returns:
        One ball per order, in the order given.

    Raises:
        ValueError: naming the parameter and its range.
    """
    sigma, t, alphas = _noise(noise_multiplier), _steps(steps_per_epoch), _orders(orders)
    with workprec(prec) as p, workprec(p + GUARD_BITS):
        moments = _remove_moment_series(_inv_var(sigma), t, max(alphas))
        return [moments[a] for a in alphas]


def remove_rdp(
    noise_multiplier: Rational, steps_per_epoch: int, orders: Sequence[int], *, epochs: int = 1, prec: int | None = None
) -> list[arb]:
    r"""Balls containing the exact remove-direction RDP :math:`E\cdot D_\alpha(P\|Q)` of ``epochs``
    epochs of random allocation (one step per epoch per example) of the Gaussian mechanism.

    :math:`D_\alpha(P\|Q) = \log(A_\alpha)/(\alpha-1)`, :math:`A_\alpha` from :func:`remove_moments`;
    composition over epochs adds (Mironov 2017, Prop. 1).

    Args:
        noise_multiplier: :math:`\sigma > 0`.
        steps_per_epoch: :math:`t \ge 1`.
        orders: integer orders in [2, MAX_ORDER].
        epochs: number of epochs :math:`E \ge 1`.
        prec: working precision in bits (default: the current one).

    Returns:
        One ball per order.

    Raises:
        ValueError: naming the parameter and its range.
    """
    e = _epochs(epochs)
    alphas = _orders(orders)
    moments = remove_moments(noise_multiplier, steps_per_epoch, alphas, prec=prec)
    with workprec(prec) as p, workprec(p + GUARD_BITS):
        return [e * m.log() / (a - 1) for a, m in zip(alphas, moments, strict=True)]


# ---------------------------------------------------------------------------
# add direction
# ---------------------------------------------------------------------------


def add_rdp_geometric_mean(noise_multiplier: Rational, steps_per_epoch: int, order: int) -> arb:
    r"""Ball of the add-direction bound :math:`\frac{1}{2\sigma^2}(1 + \frac{\alpha-1}{t})` of one epoch
    (AM-GM, module docstring, add direction item 1; the bound :math:`(\alpha+t-1)/(2t\sigma^2)` of
    Feldman & Shenfeld 2025).  Valid for every order > 1; nearly tight for :math:`\alpha \gtrsim t`."""
    sigma, t, (a,) = _noise(noise_multiplier), _steps(steps_per_epoch), _orders([order])
    return _inv_var(sigma) * (1 + arb(a - 1) / t) / 2


def _laplace_screen(s2: float, t: int, m: int, prec: int, K: int) -> tuple[float, int] | None:
    """Float choice of (W, t1) for :func:`add_rdp_laplace`: the smallest W on a geometric grid
    whose tail term is below 2^-(prec+8), else the W with the smallest tail; None when the
    polynomial bound does not decay (then the Laplace bound is useless).  Tightness only."""
    t1 = (t + 1) // 2
    try:
        mom = [math.exp(j * (j - 1) * s2 / 2) / math.factorial(j) for j in range(2 * K + 1)]
    except OverflowError:
        return None
    target = -(prec + 8) * math.log(2.0)
    fixed = m * math.log(t / t1) + m * s2 / 2 + m * m * s2 / (2 * t1)
    best: tuple[float, float] | None = None
    w = max(float(m), 1.0) + 8.0
    prev = math.inf
    for _ in range(400):
        v = w / t
        pv = sum(c * (-v) ** j for j, c in enumerate(mom))
        if not 0 < pv < 1:
            break
        lt = (t - t1) * math.log(pv) + fixed
        if best is None or lt < best[1]:
            best = (w, lt)
        if lt <= target:
            return w, t1
        if pv > prev:  # past the minimum of the polynomial
            break
        prev = pv
        w *= 1.1
    if best is None or best[1] > 0:
        return None
    return best[0], t1


def _laplace_log_b(s2: arb, s2f: float, t: int, m: int, prec: int) -> arb | None:
    r"""Ball containing the logarithm of the smallest Laplace-transform upper bound on
    :math:`B_\alpha` over :math:`K \in` ``LAPLACE_HALF_DEGREES`` (module docstring, add direction
    item 2), :math:`m = \alpha - 1 \ge 1`, :math:`t \ge 2`; None if none applies."""
    out: arb | None = None
    for K in LAPLACE_HALF_DEGREES:
        v = _laplace_log_b_k(s2, s2f, t, m, prec, K)
        if v is not None:
            out = v if out is None else out.min(v)
    return out


def _laplace_log_b_k(s2: arb, s2f: float, t: int, m: int, prec: int, K: int) -> arb | None:
    """:func:`_laplace_log_b` for one K."""
    chosen = _laplace_screen(s2f, t, m, prec, K)
    if chosen is None:
        return None
    w_max, t1 = chosen
    inv_t = 1 / arb(t)
    coef = [(-1) ** j * (s2 * (j * (j - 1) // 2)).exp() * inv_t**j / arb.fac_ui(j) for j in range(2 * K + 1)]
    coef_c = [acb(c) for c in coef]

    def poly(w: acb) -> acb:
        out = acb(0)
        for c in reversed(coef_c):
            out = out * w + c
        return out

    def integrand(w: acb, analytic: bool) -> acb:  # a polynomial: entire, the flag needs no check
        return w ** (m - 1) * poly(w) ** t

    W = to_arb(Fraction(w_max).limit_denominator(1 << 20))
    tol = arb(2) ** (-prec)
    integral = acb.integral(integrand, 0, W, rel_tol=tol, abs_tol=tol).real / arb.fac_ui(m - 1)
    p_w = poly(acb(W)).real  # p_K(W/t), an upper bound on phi(W/t) > 0
    if not p_w > 0:
        return None
    tail = p_w ** (t - t1) * (arb(t) / t1) ** m * (s2 * m / 2 + s2 * m * m / (2 * t1)).exp()
    total = integral + tail
    if not total > 0:
        return None
    return total.log()


def add_rdp_laplace(
    noise_multiplier: Rational, steps_per_epoch: int, order: int, *, prec: int | None = None
) -> arb | None:
    r"""Ball of the Laplace-transform upper bound on the add-direction RDP :math:`D_\alpha(Q\|P)` of one
    epoch (module docstring, add direction item 2), or None when the bound does not apply
    (:math:`t = 1`, or a noise so small or a :math:`t` so small that no Taylor bound of the log-normal
    Laplace transform decays enough; then :func:`add_rdp_geometric_mean` is the bound).

    Args:
        noise_multiplier: :math:`\sigma > 0`.
        steps_per_epoch: :math:`t \ge 1`.
        order: integer order in [2, MAX_ORDER].
        prec: working precision in bits (default: the current one).
    """
    sigma, t, (a,) = _noise(noise_multiplier), _steps(steps_per_epoch), _orders([order])
    if t == 1:
        return None
    with workprec(prec) as p, workprec(p + GUARD_BITS):
        s2 = _inv_var(sigma)
        log_b = _laplace_log_b(s2, float(1 / (sigma * sigma)), t, a - 1, p + GUARD_BITS)
        return None if log_b is None else log_b / (a - 1)


def _add_one_epoch(sigma: Fraction, t: int, a: int, prec: int, *, laplace: bool = True) -> arb:
    """min(geometric-mean bound, Laplace bound) of one epoch at order ``a`` (current precision)."""
    s2 = _inv_var(sigma)
    gm = s2 * (1 + arb(a - 1) / t) / 2
    if t == 1:
        return gm  # L = Y: the geometric-mean bound is the exact value alpha / (2 sigma^2)
    if not laplace:
        return gm
    log_b = _laplace_log_b(s2, float(1 / (sigma * sigma)), t, a - 1, prec)
    if log_b is None:
        return gm
    return gm.min(log_b / (a - 1))


def add_rdp(
    noise_multiplier: Rational, steps_per_epoch: int, orders: Sequence[int], *, epochs: int = 1, prec: int | None = None
) -> list[arb]:
    r"""Balls of a proven upper bound on the add-direction RDP :math:`E\cdot D_\alpha(Q\|P)` of ``epochs``
    epochs: the smaller of the geometric-mean bound (Feldman & Shenfeld 2025) and the
    Laplace-transform bound (module docstring).  Exact at :math:`t = 1`.

    The arguments, the result (one ball per order) and the errors are those of :func:`remove_rdp`.
    """
    sigma, t, alphas, e = _noise(noise_multiplier), _steps(steps_per_epoch), _orders(orders), _epochs(epochs)
    with workprec(prec) as p, workprec(p + GUARD_BITS):
        add = _add_many(sigma, t, alphas, p + GUARD_BITS)
        return [e * add[a] for a in alphas]


# ---------------------------------------------------------------------------
# both directions
# ---------------------------------------------------------------------------


def _add_many(sigma: Fraction, t: int, alphas: Sequence[int], prec: int) -> dict[int, arb]:
    r"""Add-direction bounds of one epoch at every order of ``alphas`` (current precision).

    With few orders each is bounded directly (:func:`_add_one_epoch`).  With many, the
    Laplace-transform bound is computed on a geometric grid of orders only and interpolated:
    :math:`g(\alpha) = \log\mathbb{E}_Q[L^{1-\alpha}]` is convex in :math:`\alpha` (Hoelder's
    inequality: a moment generating function is log-convex), so between grid orders
    :math:`a_0 < \alpha < a_1`, :math:`g(\alpha) \le \lambda G_0 + (1-\lambda) G_1`,
    :math:`\lambda = (a_1-\alpha)/(a_1-a_0)`, for any upper bounds :math:`G_i \ge g(a_i)` (at each
    grid order the smaller of the Laplace and geometric-mean bounds on :math:`g`).  The result is
    the smaller of that and the geometric-mean bound at :math:`\alpha` itself.
    """
    wanted = sorted(set(alphas))
    if t == 1 or len(wanted) <= _DIRECT_ADD_ORDERS:
        return {a: _add_one_epoch(sigma, t, a, prec) for a in wanted}
    s2 = _inv_var(sigma)
    s2f = float(1 / (sigma * sigma))
    grid = {wanted[0], wanted[-1]}
    x = float(wanted[0])
    while x < wanted[-1]:
        grid.add(round(x))
        x *= ADD_GRID_RATIO
    log_bound = {}
    for a in sorted(grid):
        m = a - 1
        g = s2 * m / 2 + s2 * m * m / (2 * t)  # geometric mean: log B <= m s^2/2 + m^2 s^2/(2t)
        lap = _laplace_log_b(s2, s2f, t, m, prec)
        log_bound[a] = g if lap is None else g.min(lap)
    points = sorted(log_bound)
    out = {}
    j = 0
    for a in wanted:
        while points[j + 1] < a if j + 1 < len(points) else False:
            j += 1
        if a in log_bound:
            g_a = log_bound[a]
        else:
            a0, a1 = points[j], points[j + 1]
            g_a = (log_bound[a0] * (a1 - a) + log_bound[a1] * (a - a0)) / (a1 - a0)
        gm = s2 * (1 + arb(a - 1) / t) / 2
        out[a] = gm.min(g_a / (a - 1))
    return out


def _gm(s2: arb, t: int, a: int) -> arb:
    """The geometric-mean bound (1 + (a - 1)/t) / (2 sigma^2) of one epoch (add direction item 1)."""
    return s2 * (1 + arb(a - 1) / t) / 2


def _blocks(t: int, k: int) -> list[tuple[int, int]]:
    r"""``(block size, number of blocks)`` of the decomposition of :math:`k`-of-:math:`t` allocation
    (module docstring, "k > 1"): :math:`r = t - k\lfloor t/k\rfloor` blocks of
    :math:`\lfloor t/k\rfloor + 1` steps and :math:`k - r` blocks of :math:`\lfloor t/k\rfloor` steps."""
    m, r = divmod(t, k)
    return [(size, count) for size, count in ((m, k - r), (m + 1, r)) if count > 0]


def _combine(
    sigma: Fraction,
    t: int,
    alphas: Sequence[int],
    moments_of: Callable[[int], Sequence[arb]],
    direction: str,
    prec: int,
    k: int = 1,
) -> list[arb]:
    """One-epoch values of ``k``-of-``t`` allocation for ``direction`` at the current working
    precision ``prec``; ``moments_of(size)`` gives the remove moments (indexed by order) of a
    block of ``size`` steps.  Each direction is the sum of its values over the blocks (module
    docstring, "k > 1"); for k = 1 there is one block, the whole epoch."""
    blocks = _blocks(t, k)
    wanted = sorted(set(alphas))
    if direction == "add":
        add = _add_blocks(sigma, blocks, wanted, prec)
        return [add[a] for a in alphas]
    s2 = _inv_var(sigma)
    rem = {a: arb(0) for a in wanted}
    for size, count in blocks:
        moments = moments_of(size)
        for a in wanted:
            rem[a] += count * moments[a].log() / (a - 1)
    if direction == "remove":
        return [rem[a] for a in alphas]
    # add <= sum of geometric-mean bounds <= remove where the remove value certainly exceeds the
    # former: there the maximum is the remove value and no add bound is needed
    gm = {a: sum((count * _gm(s2, size, a) for size, count in blocks), arb(0)) for a in wanted}
    need = [a for a in wanted if not rem[a].lower() >= gm[a].upper()]
    add = _add_blocks(sigma, blocks, need, prec) if need else {}
    return [rem[a].max(add[a]) if a in add else rem[a] for a in alphas]


def _add_blocks(sigma: Fraction, blocks: list[tuple[int, int]], alphas: Sequence[int], prec: int) -> dict[int, arb]:
    """Sum over the blocks of the add-direction bounds of one block (:func:`_add_many`)."""
    out = {a: arb(0) for a in alphas}
    for size, count in blocks:
        add = _add_many(sigma, size, alphas, prec)
        for a in alphas:
            out[a] += count * add[a]
    return out


def _selected(selected: object, t: int) -> int:
    k = validation.integer_at_least(selected, "selected", 1)
    if k > t:
        raise ValueError(f"selected must be an integer in [1, steps_per_epoch] ([1, {t}]). Found {selected}.")
    return k


def rdp(
    noise_multiplier: Rational,
    steps_per_epoch: int,
    orders: Sequence[int],
    *,
    epochs: int = 1,
    direction: str = "both",
    selected: int = 1,
    prec: int | None = None,
) -> list[arb]:
    r"""Balls of the add/remove RDP of ``epochs`` epochs of random allocation (each example in
    ``selected`` = :math:`k` of the :math:`t` steps of an epoch; :math:`k = 1`: balls-and-bins) of the
    Gaussian mechanism.

    ``direction="both"`` (default): :math:`E\cdot\max(D_\alpha(P\|Q), \text{add bound})`, a proven upper
    bound on the RDP under add/remove adjacency (the maximum over both directions);
    ``"remove"``: the exact :math:`E\cdot D_\alpha(P\|Q)` for :math:`k = 1`; ``"add"``: the
    add-direction bound (:func:`add_rdp`).  Where the remove value certainly exceeds the
    geometric-mean bound the Laplace bound is not computed (the maximum is then the remove value).
    For :math:`k > 1` each direction is bounded by its sum over the blocks of the decomposition
    (module docstring, "k > 1"): an upper bound, exact only when :math:`k \in \{1, t\}`.

    Args:
        noise_multiplier: :math:`\sigma > 0`.
        steps_per_epoch: :math:`t \ge 1`.
        orders: integer orders in [2, MAX_ORDER].
        epochs: number of epochs :math:`E \ge 1`.
        direction: ``"both"``, ``"remove"`` or ``"add"``.
        selected: :math:`1 \le k \le t`.
        prec: working precision in bits (default: the current one).

    Raises:
        ValueError: naming the parameter and its range.
    """
    sigma, t, alphas, e = _noise(noise_multiplier), _steps(steps_per_epoch), _orders(orders), _epochs(epochs)
    k = _selected(selected, t)
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(_DIRECTIONS)}. Found {direction!r}.")
    with workprec(prec) as p, workprec(p + GUARD_BITS):
        s2 = _inv_var(sigma)
        n_max = max(alphas)
        values = _combine(
            sigma, t, alphas, lambda size: _remove_moment_series(s2, size, n_max), direction, p + GUARD_BITS, k
        )
        return [e * v for v in values]


# ---------------------------------------------------------------------------
# the RdpCurve
# ---------------------------------------------------------------------------


class RandomAllocationGaussianCurve(RdpCurve):
    r"""RDP of ``epochs`` epochs of random allocation (``selected`` of ``steps_per_epoch`` steps per
    example and epoch; balls-and-bins for ``selected = 1``) of the Gaussian mechanism, add/remove
    adjacency, integer orders (:func:`rdp`).

    The curve is that of the whole run of ``epochs`` epochs (RDP adds over epochs), so an
    accountant that composes it ``steps`` times accounts for ``steps * epochs`` epochs.

    Args:
        noise_multiplier: :math:`\sigma > 0`.
        steps_per_epoch: :math:`t \ge 1`.
        epochs: :math:`E \ge 1`.
        direction: ``"both"`` (an upper bound on the add/remove RDP), ``"remove"`` or ``"add"``.
        selected: :math:`1 \le k \le t`.
    """

    integer_orders_only = True
    search_order_cap = 1024

    def __init__(
        self,
        noise_multiplier: Rational,
        steps_per_epoch: int,
        epochs: int = 1,
        direction: str = "both",
        selected: int = 1,
    ):
        self.sigma = _noise(noise_multiplier)
        self.steps_per_epoch = _steps(steps_per_epoch)
        self.epochs = _epochs(epochs)
        self.selected = _selected(selected, self.steps_per_epoch)
        if direction not in _DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(_DIRECTIONS)}. Found {direction!r}.")
        self.direction = direction
        self.name = "random-allocation" if direction == "both" else f"random-allocation-{direction}"
        self.citation = (
            "Feldman & Shenfeld 2025 (arXiv 2502.08202), random allocation: remove direction exact for k = 1 "
            "(partition sum as one series power), add direction min(geometric-mean bound, Laplace-transform bound); "
            "k > 1 by the block decomposition (proofs/verify_random_allocation.py)"
        )
        self._cache: dict[tuple[int, int], tuple[int, list[arb]]] = {}

    def certified(self, alpha: Fraction) -> arb:
        return self.certified_many([alpha])[0]

    def certified_many(self, alphas: Sequence[Fraction]) -> list[arb]:
        for a in alphas:
            self.check_order(Fraction(a))
        ints = _orders([Fraction(a) for a in alphas])
        prec = ctx.prec
        return [self.epochs * v for v in self._one_epoch(ints, prec)]

    def _moments(self, size: int, n_max: int, prec: int) -> list[arb]:
        """Remove moments of a block of ``size`` steps up to order ``n_max``, cached per precision
        (the series power is the cost)."""
        got = self._cache.get((prec, size))
        if got is None or got[0] < n_max:
            got = (n_max, _remove_moment_series(_inv_var(self.sigma), size, n_max))
            self._cache[(prec, size)] = got
        return got[1]

    def _one_epoch(self, alphas: list[int], prec: int) -> list[arb]:
        """One-epoch values (:func:`_combine`)."""
        with workprec(prec + GUARD_BITS):
            n_max = max(alphas)
            return _combine(
                self.sigma,
                self.steps_per_epoch,
                alphas,
                lambda size: self._moments(size, n_max, prec),
                self.direction,
                prec + GUARD_BITS,
                self.selected,
            )

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        """Float midpoints at 64 bits for integer orders in [2, MAX_ORDER]; ``inf`` elsewhere
        (order selection only)."""
        a = np.asarray(alphas, dtype=float)
        out = np.full(len(a), np.inf)
        idx = [i for i, x in enumerate(a) if math.isfinite(x) and x == int(x) and 2 <= x <= MAX_ORDER]
        if not idx:
            return out
        with workprec(64):
            vals = self.certified_many([Fraction(int(a[i])) for i in idx])
        for i, v in zip(idx, vals, strict=True):
            out[i] = float(v.mid()) if v.is_finite() else np.inf
        return out
