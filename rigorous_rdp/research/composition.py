r"""Classical (epsilon, delta)-DP tools, certified: composition and amplification.

These are the "traditional" baselines of Zhu & Wang 2019 (Section 4, Fig. 4):
an (epsilon, delta)-DP guarantee for one step, amplified by Poisson subsampling
(Lemma 4 of the seed, Li, Qardaji & Su 2012, Thm. 1) and composed k times with

* basic composition (Dwork et al. 2006; blog part 1, Claim 10):
  :math:`(k\epsilon, k\delta)`;
* advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014,
  Thm. 3.20): for every :math:`\delta' > 0`, the k-fold adaptive composition is
  :math:`(\sqrt{2k\log(1/\delta')}\,\epsilon + k\epsilon(e^\epsilon - 1),\; k\delta + \delta')`-DP;
* the optimal homogeneous composition of Kairouz, Oh & Viswanath 2015 (KOV15,
  Thm. 3.3; the exact privacy region, their Thm. 3.5 / Murtagh & Vadhan 2016):
  the k-fold adaptive composition of (epsilon, delta)-DP mechanisms is
  :math:`(\epsilon_g, \delta_g(\epsilon_g))`-DP for every :math:`\epsilon_g \ge 0` with

  .. math::

      \delta_g(\epsilon_g) = 1 - (1-\delta)^k \big(1 - \delta_{\mathrm{hom}}(\epsilon_g)\big),\qquad
      \delta_{\mathrm{hom}}(\epsilon_g) = \frac{1}{(1+e^\epsilon)^k}\sum_{l=0}^{k}\binom{k}{l}
      \big[e^{(k-l)\epsilon} - e^{\epsilon_g + l\epsilon}\big]_+ ,

  and no smaller delta holds for all (epsilon, delta)-DP mechanisms.  At
  :math:`\epsilon_g = (k-2i)\epsilon` this is exactly KOV15 Thm. 3.3
  (:func:`kov_composition_theorem33`); :math:`\delta_{\mathrm{hom}}` is the hockey-stick
  divergence of the k-fold product of binary randomized responses with
  parameter :math:`e^\epsilon/(1+e^\epsilon)`, which the tests check by brute force.

Conventions.  Every function takes its real parameters either as exact
rationals (``int``, ``Fraction``, decimal ``str``; a ``float`` is its exact binary
value) or as ``arb`` balls (e.g. an epsilon computed by another certified
formula), and returns ``arb`` balls that contain the exact value of the formula
for every input in the input balls, at the current working precision (or at
``prec`` bits when that keyword is given).  The inversions
(:func:`optimal_composition_epsilon`, :func:`invert_decreasing`) return a
:class:`~rigorous_rdp.arith.Certified` enclosure ``[lower, upper]`` of the
exact root; ``upper`` is the value to rely on.

Bad input raises ``ValueError`` whose message starts with the parameter name
(``epsilon``, ``delta``, ``steps``, ``q``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from flint import arb, ctx
from scipy import special

from ..arith import DEFAULT_DIGITS, MAX_PREC, Certified, parse_rational, to_arb, workprec
from ..validation import integer_at_least

__all__ = [
    "advanced_composition",
    "advanced_composition_epsilon",
    "amplify_poisson",
    "basic_composition",
    "invert_decreasing",
    "kov_composition_theorem33",
    "optimal_composition_delta",
    "optimal_composition_delta_float",
    "optimal_composition_epsilon",
]

Number = int | Fraction | str | float | arb


# ---------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------


def number_ball(x: Number, name: str) -> arb:
    """An arb ball for a user parameter (exact rational or an existing ball)."""
    if isinstance(x, arb):
        if not x.is_finite():
            raise ValueError(f"{name} must be a finite number. Found {x}.")
        return x
    return to_arb(parse_rational(x, name))


def _nonneg(x: Number, name: str) -> arb:
    b = number_ball(x, name)
    if not b >= 0:
        raise ValueError(f"{name} must be >= 0. Found {_show(x)}.")
    return b


def _prob(x: Number, name: str, *, open_low: bool = False, open_high: bool = False) -> arb:
    b = number_ball(x, name)
    lo_ok = (b > 0) if open_low else (b >= 0)
    hi_ok = (b < 1) if open_high else (b <= 1)
    if not (lo_ok and hi_ok):
        lb = "(" if open_low else "["
        rb = ")" if open_high else "]"
        raise ValueError(f"{name} must be in {lb}0, 1{rb}. Found {_show(x)}.")
    return b


def _steps(k: object) -> int:
    return integer_at_least(k, "steps", 1)


def _show(x: Number) -> str:
    if isinstance(x, arb):
        return x.str(10)
    if isinstance(x, Fraction):
        return repr(float(x))
    return repr(x)


# ---------------------------------------------------------------------------
# amplification by Poisson subsampling
# ---------------------------------------------------------------------------


def amplify_poisson(epsilon: Number, delta: Number, q: Number, *, prec: int | None = None) -> tuple[arb, arb]:
    r"""Privacy amplification of an (epsilon, delta)-DP mechanism by Poisson subsampling.

    Zhu & Wang 2019, Lemma 4 (Li, Qardaji & Su 2012, Thm. 1): if M is
    (epsilon, delta)-DP then M o PoissonSample with probability q is
    :math:`(\log(1 + q(e^\epsilon - 1)),\; q\delta)`-DP (add/remove adjacency).

    Args:
        epsilon: base epsilon >= 0 (rational or ball).
        delta: base delta in [0, 1].
        q: sampling probability in [0, 1].
        prec: working precision in bits (default: the current one).

    Returns:
        ``(epsilon', delta')`` as arb balls.
    """
    with workprec(prec):
        e = _nonneg(epsilon, "epsilon")
        d = _prob(delta, "delta")
        g = _prob(q, "q")
        return (g * e.expm1()).log1p(), g * d


# ---------------------------------------------------------------------------
# basic and advanced composition
# ---------------------------------------------------------------------------


def basic_composition(epsilon: Number, delta: Number, steps: int, *, prec: int | None = None) -> tuple[arb, arb]:
    r"""Basic composition: k-fold adaptive composition is :math:`(k\epsilon, k\delta)`-DP.

    Dwork, McSherry, Nissim & Smith 2006; blog part 1, Claim 10.  (The delta is
    returned as :math:`k\delta` even when it exceeds 1, as the theorem states.)
    """
    k = _steps(steps)
    with workprec(prec):
        e = _nonneg(epsilon, "epsilon")
        d = _prob(delta, "delta")
        return k * e, k * d


def advanced_composition_epsilon(epsilon: Number, steps: int, delta_prime: Number, *, prec: int | None = None) -> arb:
    r"""Epsilon of the advanced composition theorem for a slack :math:`\delta' \in (0, 1)`.

    Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm. 3.20:

    .. math:: \epsilon' = \sqrt{2k\log(1/\delta')}\,\epsilon + k\,\epsilon\,(e^\epsilon - 1).

    The total delta is :math:`k\delta + \delta'` (see :func:`advanced_composition`).
    """
    k = _steps(steps)
    with workprec(prec):
        e = _nonneg(epsilon, "epsilon")
        dp = _prob(delta_prime, "delta", open_low=True, open_high=True)
        return (2 * k * (-dp.log())).sqrt() * e + k * e * e.expm1()


def advanced_composition(
    epsilon: Number, delta: Number, steps: int, target_delta: Number, *, prec: int | None = None
) -> arb:
    r"""Advanced composition with a total delta budget: the epsilon of k-fold composition.

    Spends :math:`k\delta` on the steps and the rest :math:`\delta' = \delta_{\mathrm{target}} - k\delta`
    on the slack of :func:`advanced_composition_epsilon` (the epsilon decreases in
    :math:`\delta'`, so this split is optimal).  The result is never worse than
    basic composition: returns :math:`\min(k\epsilon, \epsilon')` (basic composition
    needs only :math:`k\delta \le \delta_{\mathrm{target}}`).

    Raises:
        ValueError: ``delta`` when :math:`k\delta \ge \delta_{\mathrm{target}}`.
    """
    k = _steps(steps)
    with workprec(prec):
        e = _nonneg(epsilon, "epsilon")
        d = _prob(delta, "delta")
        t = _prob(target_delta, "delta", open_low=True, open_high=True)
        slack = t - k * d
        if not slack > 0:
            raise ValueError(
                f"delta must exceed steps * (per-step delta) for advanced composition. Found target {t.str(6)}"
                f" and steps * delta = {(k * d).str(6)}."
            )
        return advanced_composition_epsilon(e, k, slack).min(k * e)


# ---------------------------------------------------------------------------
# optimal composition (Kairouz, Oh & Viswanath 2015)
# ---------------------------------------------------------------------------


def kov_composition_theorem33(
    epsilon: Number, delta: Number, steps: int, i: int, *, prec: int | None = None
) -> tuple[arb, arb]:
    r"""KOV15 Thm. 3.3 as stated: the pair :math:`((k-2i)\epsilon,\ 1-(1-\delta)^k(1-\delta_i))` for
    :math:`i \in \{0, \ldots, \lfloor k/2 \rfloor\}`, with

    .. math:: \delta_i = \frac{\sum_{l=0}^{i-1}\binom{k}{l}\big(e^{(k-l)\epsilon}
              - e^{(k-2i+l)\epsilon}\big)}{(1+e^\epsilon)^k}.

    Evaluated term by term with exact binomials (meant for small k and tests; for
    large k use :func:`optimal_composition_delta`, which is the same number at
    :math:`\epsilon_g = (k-2i)\epsilon`).
    """
    k = _steps(steps)
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= k // 2:
        raise ValueError(f"i must be an integer in [0, {k // 2}]. Found {i!r}.")
    with workprec(prec):
        e = _nonneg(epsilon, "epsilon")
        d = _prob(delta, "delta")
        s = arb(0)
        for j in range(i):
            s += arb(math.comb(k, j)) * (((k - j) * e).exp() - ((k - 2 * i + j) * e).exp())
        di = s / (1 + e.exp()) ** k
        return (k - 2 * i) * e, 1 - (1 - d) ** k * (1 - di)


def _log_pmf_float(k: int, eps: float, ls: np.ndarray) -> np.ndarray:
    """float log of C(k,l) e^{(k-l)eps} / (1+e^eps)^k (screening only)."""
    out: np.ndarray = (
        special.gammaln(k + 1)
        - special.gammaln(ls + 1)
        - special.gammaln(k - ls + 1)
        + (k - ls) * eps
        - k * np.logaddexp(0.0, eps)
    )
    return out


def optimal_composition_delta_float(epsilon: float, delta: float, steps: int, target_epsilon: object) -> np.ndarray:
    r"""Float estimate of :func:`optimal_composition_delta` (vectorised over ``target_epsilon``).

    For screening and optimisation of parameters only; not a certified value.
    """
    k = int(steps)
    eg = np.atleast_1d(np.asarray(target_epsilon, dtype=float))
    out = np.empty(len(eg))
    if epsilon == 0.0:
        hom = np.zeros(len(eg))
    else:
        ls = np.arange(0, k + 1, dtype=float)
        lp = _log_pmf_float(k, epsilon, ls)
        hom = np.empty(len(eg))
        for j, g in enumerate(eg):
            expo = (k - 2 * ls) * epsilon - g  # term positive iff expo > 0
            m = expo > 0
            if not m.any():
                hom[j] = 0.0
                continue
            with np.errstate(divide="ignore"):
                lt = lp[m] + np.log(-np.expm1(-expo[m]))
            hom[j] = math.exp(special.logsumexp(lt))
    # 1 - (1-d)^k (1 - hom)
    log1md_k = k * math.log1p(-delta) if delta < 1 else -math.inf
    with np.errstate(divide="ignore"):  # hom = 1 gives log(0) = -inf and delta = 1, as it should
        out = -np.expm1(log1md_k + np.log1p(-np.minimum(hom, 1.0)))
    return out


def optimal_composition_delta(
    epsilon: Number, delta: Number, steps: int, target_epsilon: Number, *, prec: int | None = None
) -> arb:
    r"""The exact optimal delta of k-fold composition at total epsilon :math:`\epsilon_g`.

    KOV15 Thm. 3.3 / 3.5 (module docstring):
    :math:`\delta_g = 1 - (1-\delta)^k(1 - \delta_{\mathrm{hom}}(\epsilon_g))`.

    Certified evaluation of :math:`\delta_{\mathrm{hom}}`.  Write
    :math:`b_l = \binom{k}{l} p^{k-l}(1-p)^l` with :math:`p = e^\epsilon/(1+e^\epsilon)` (a binomial
    pmf); the summand is :math:`b_l\,[1 - e^{\epsilon_g - (k-2l)\epsilon}]_+ \in [0, b_l]`, positive
    iff :math:`l < (k - \epsilon_g/\epsilon)/2`.  Terms ``l`` in a window
    ``[l_lo, l_hi)`` are summed in ball arithmetic (``l_hi`` is the first index
    whose term is *proven* zero; undecided signs are kept with ``max(0, .)``).
    The terms below ``l_lo`` (chosen below the mode of ``b``, where ``b`` increases)
    satisfy :math:`b_{l-1}/b_l = l e^\epsilon/(k-l+1) \le r := (l_{lo}-1)e^\epsilon/(k-l_{lo}+2)`,
    so their sum lies in :math:`[0, b_{l_{lo}-1}/(1-r)]`, which is added to the ball.

    Args:
        epsilon, delta: per-step parameters (epsilon >= 0, delta in [0, 1]).
        steps: k >= 1.
        target_epsilon: :math:`\epsilon_g \ge 0`.
        prec: working precision in bits (default: current).

    Returns:
        Ball containing :math:`\delta_g(\epsilon_g)`.
    """
    k = _steps(steps)
    with workprec(prec):
        e = _nonneg(epsilon, "epsilon")
        d = _prob(delta, "delta")
        g = _nonneg(target_epsilon, "epsilon")
        hom = _delta_hom(e, k, g)
        return 1 - (k * (-d).log1p()).exp() * (1 - hom) if d != 1 else arb(1)


def _delta_hom(e: arb, k: int, g: arb) -> arb:
    if e == 0:
        return arb(0)
    if not e > 0:
        # ball touching 0: evaluate with the upper endpoint is not monotone-safe; use the
        # trivial enclosure [0, 1] unless the upper ball is usable
        return arb(0).union(arb(1))
    ef = float(e.mid())
    gf = float(g.mid())
    lstar = (k - gf / ef) / 2.0  # terms with l < lstar are positive (float estimate)
    l_hi = min(k + 1, max(0, math.ceil(lstar) + 2))
    # extend l_hi until the next term is proven to vanish: (k - 2l) e <= g
    while l_hi <= k and not ((k - 2 * l_hi) * e <= g):
        l_hi += 1
    if l_hi == 0:
        return arb(0)
    # window start from the float pmf
    ls = np.arange(0, l_hi, dtype=float)
    lp = _log_pmf_float(k, ef, ls)
    mode = math.floor((k + 1) / (1.0 + math.exp(ef)))
    cut = lp.max() - (ctx.prec * math.log(2.0) + 40.0)
    below = np.nonzero(lp >= cut)[0]
    l_lo = int(below[0]) if len(below) else 0
    l_lo = min(l_lo, mode, l_hi - 1)
    l_lo = max(l_lo, 0)
    log1pe = e.exp().log1p()
    # log b_l at l = l_lo, then the ratio recurrence
    lb = _log_binom(k, l_lo) + (k - l_lo) * e - k * log1pe
    total = arb(0)
    for j in range(l_lo, l_hi):
        if j > l_lo:
            lb = lb + arb(k - j + 1).log() - arb(j).log() - e
        expo = (k - 2 * j) * e - g
        if expo <= 0:
            continue
        fac = -((-expo).expm1())
        t = lb.exp() * fac
        if not expo > 0:
            t = t.max(arb(0))
        total += t
    if l_lo > 0:
        r = arb(l_lo - 1) * e.exp() / arb(k - l_lo + 2)
        if r < 1:
            lb_prev = _log_binom(k, l_lo - 1) + (k - l_lo + 1) * e - k * log1pe
            tail = lb_prev.exp() / (1 - r)
            total = total + arb(0).union(tail)
        else:  # cannot happen for l_lo <= mode; stay safe
            total = total + arb(0).union(arb(1))
    return total.min(arb(1))


def _log_binom(k: int, j: int) -> arb:
    return arb(k + 1).lgamma() - arb(j + 1).lgamma() - arb(k - j + 1).lgamma()


def invert_decreasing(
    f_ball: Callable[[Fraction], arb],
    target: arb,
    lo: Fraction,
    hi: Fraction,
    *,
    guess: float | None = None,
    digits: float = DEFAULT_DIGITS,
    max_prec: int = MAX_PREC,
    start_prec: int = 64,
    what: str = "root",
) -> Certified:
    r"""Certified enclosure of :math:`x^* = \inf\{x \in [lo, hi] : f(x) \le t\}` for a non-increasing f.

    ``f_ball(x)`` must return a ball containing :math:`f(x)` at the current working
    precision for an exact rational ``x``.  The result is a ball ``[a, b]`` with
    :math:`f(b) \le t` proven (so ``b`` is a valid answer: e.g. an epsilon at
    which the target delta holds) and :math:`f(a) > t` proven (or ``a = lo``), so
    the exact :math:`x^*` lies in it.  A float ``guess`` of the root narrows the
    first bracket; a bad guess costs time only.  Undecided comparisons raise the
    precision; if ``max_prec`` cannot decide, the bracket stops shrinking there
    (still valid, possibly wider than ``digits``).

    Raises:
        ValueError: if :math:`f(hi) \le t` cannot be proven (no valid answer in range).
    """
    prec = start_prec

    def decide(x: Fraction) -> bool | None:
        """True if f(x) <= t proven, False if f(x) > t proven, None if undecided."""
        nonlocal prec
        p = prec
        while True:
            with workprec(p):
                v = f_ball(x)
                tt = +target
                if v <= tt:
                    prec = max(prec, p)
                    return True
                if v > tt:
                    prec = max(prec, p)
                    return False
            if p >= max_prec:
                return None
            p = min(max_prec, 2 * p)

    if decide(hi) is not True:
        raise ValueError(f"{what}: the target is not reached within the search range (up to {float(hi)!r}).")
    if decide(lo) is True:
        return Certified(to_arb(lo) if lo == hi else _interval(lo, lo), prec)
    target_bits = digits * math.log2(10.0) + 2
    if guess is not None and math.isfinite(guess) and float(lo) < guess < float(hi):
        # try a narrow bracket around the float guess, widening it on failure
        rel = 10.0 ** (-(digits + 2))
        g = Fraction(guess)
        for _ in range(8):
            a = max(lo, g - abs(g) * Fraction(rel) - Fraction(1, 10**30))
            b = min(hi, g + abs(g) * Fraction(rel) + Fraction(1, 10**30))
            rb = decide(b)
            if rb is True:
                hi = b
                ra = decide(a)
                if ra is False:
                    lo = a
                    break
                if ra is True:
                    hi = a
            elif rb is False:
                lo = b
            rel *= 100.0
    # bisection
    for _ in range(4000):
        width = hi - lo
        scale = max(abs(hi), abs(lo))
        if scale == 0 or width <= scale * Fraction(2) ** (-int(target_bits)):
            break
        mid = _short_mid(lo, hi)
        r = decide(mid)
        if r is True:
            hi = mid
        elif r is False:
            lo = mid
        else:
            break
    with workprec(max(prec, 64)):
        return Certified(_interval(lo, hi), max(prec, 64))


def _short_mid(lo: Fraction, hi: Fraction) -> Fraction:
    """A dyadic point strictly inside (lo, hi) with a short representation."""
    m = (lo + hi) / 2
    w = hi - lo
    e = max(0, -math.floor(math.log2(float(w))) + 3) if w > 0 else 60
    den = 1 << e
    return Fraction(round(m * den), den)


def _interval(a: Fraction, b: Fraction) -> arb:
    """A ball containing the closed interval [a, b] (outward rounding)."""
    la = to_arb(a)
    lb = to_arb(b)
    return arb(la.lower()).union(arb(lb.upper()))


def optimal_composition_epsilon(
    epsilon: Number,
    delta: Number,
    steps: int,
    target_delta: Number,
    *,
    digits: float = DEFAULT_DIGITS,
    max_prec: int = MAX_PREC,
) -> Certified:
    r"""The smallest total epsilon of k-fold optimal composition (KOV15) with total delta <= target.

    Inverts :func:`optimal_composition_delta` (non-increasing in
    :math:`\epsilon_g`) by :func:`invert_decreasing`: the returned ball ``[a, b]``
    has :math:`\delta_g(b) \le \delta_{\mathrm{target}}` proven, so ``upper`` is a valid epsilon.
    The answer is 0 if :math:`\delta_g(0)` already meets the target.

    Args:
        epsilon, delta: per-step parameters; rationals, or balls (e.g. from
            :func:`amplify_poisson`).  Balls are used at their own precision.
        steps: k >= 1.
        target_delta: total delta in (0, 1).
        digits: relative width of the enclosure.

    Raises:
        ValueError: ``delta`` if the target is below :math:`1-(1-\delta)^k` (unreachable).
    """
    k = _steps(steps)
    t = parse_rational(target_delta, "delta") if not isinstance(target_delta, arb) else target_delta
    with workprec(max(ctx.prec, 64)):
        e = _nonneg(epsilon, "epsilon")
        d = _prob(delta, "delta")
        tb = _prob(t, "delta", open_low=True, open_high=True)
        floor_delta = 1 - (k * (-d).log1p()).exp()
        if not floor_delta < tb:
            raise ValueError(
                f"delta must exceed 1 - (1 - delta_step)^k = {floor_delta.str(6)} for {k} compositions."
                f" Found {tb.str(6)}."
            )
        ef = float(e.upper())
        df = float(d.mid())
        tf = float(tb.mid())
    hi = Fraction(k) * Fraction(ef) * Fraction(1 + 1e-9) + Fraction(1, 10**12)

    def f(x: Fraction) -> arb:
        return optimal_composition_delta(e, d, k, to_arb(x))

    guess = float_root(lambda x: float(optimal_composition_delta_float(ef, df, k, x)[0]), tf, 0.0, float(hi))
    return invert_decreasing(
        f, tb, Fraction(0), hi, guess=guess, digits=digits, max_prec=max_prec, what="optimal composition epsilon"
    )


def float_root(fun: Callable[[float], float], target: float, lo: float, hi: float) -> float | None:
    """Float bisection for a non-increasing ``fun`` (guess only)."""
    try:
        if fun(lo) <= target:
            return None
        if fun(hi) > target:
            return None
        for _ in range(200):
            m = 0.5 * (lo + hi)
            if m <= lo or m >= hi:
                break
            if fun(m) <= target:
                hi = m
            else:
                lo = m
        return hi
    except (ValueError, OverflowError, FloatingPointError):
        return None
