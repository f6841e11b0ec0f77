r"""Pearson-Vajda :math:`\chi^\ell` pseudo-divergences and condition (4) of Zhu & Wang 2019.

Definitions (Zhu & Wang 2019, eq. (4); Vajda 1973; Nielsen & Nock 2014):

.. math:: D_{\chi^\ell}(P \| Q) = \mathbb{E}_{Q}\Big[\Big(\frac{P}{Q} - 1\Big)^\ell\Big].

**Condition (4)**: for all adjacent datasets and all odd :math:`3 \le \ell \le \alpha`,
:math:`D_{\chi^\ell}(M(X) \| M(X')) \ge 0`.  Under it the lower bound of Theorem 6
is also an upper bound (Theorem 8).

**Lemma 9**: :math:`\mathbb{E}_\mu[(\pi/\mu-1)^\alpha] = \mathbb{E}_\pi[(\pi/\mu-1)^{\alpha-1}] - \mathbb{E}_\mu[(\pi/\mu-1)^{\alpha-1}]`
(:func:`lemma9_sides_discrete`, exact).

What this module certifies:

* finite discrete distributions with rational masses: exact values with
  :class:`fractions.Fraction` (:func:`chi_divergence_discrete`,
  :func:`check_condition4_discrete`);
* 1-d densities: certified integration with Arb (``acb.integral``), with a
  user-supplied bound on the mass outside the integration range
  (:func:`chi_divergence_density`);
* shift families where the divergence is a finite exponential sum
  :math:`f(s) = \sum_k C_k e^{k s}` in a scalar parameter ``s`` (Gaussian, Laplace):
  a certified non-negativity check of ``f`` on :math:`[0, S]`
  (:func:`certify_nonnegative_expsum`) -- Prop. 10 checked over the whole range of
  the sensitivity parameter, for every odd order up to a user bound
  (:func:`verify_condition4_gaussian`, :func:`verify_condition4_laplace`);
* binary randomized response, exactly (:func:`randomized_response_chi`);
* the Poisson example of Nielsen & Nock 2014 with negative :math:`\chi^3`
  (Fig. 2 of the seed; :func:`poisson_chi`).

Gaussian, a proof for all orders.  For :math:`P = N(\mu, \sigma^2)`, :math:`Q = N(0, \sigma^2)`,
:math:`\mathbb{E}_Q[(P/Q)^j] = e^{j(j-1)t}` with :math:`t = \mu^2/(2\sigma^2)`, so
:math:`D_{\chi^\ell} = \sum_j \binom{\ell}{j}(-1)^{\ell-j}e^{j(j-1)t} = \sum_{n\ge0}\frac{t^n}{n!}\Delta^\ell[(x^{\underline 2})^n](0)`,
where :math:`x^{\underline 2} = x(x-1)` and :math:`\Delta` is the forward difference.  A product of
falling factorials is a combination of falling factorials with non-negative
coefficients (:math:`x^{\underline a}x^{\underline b} = \sum_k \binom{a}{k}\binom{b}{k}k!\,x^{\underline{a+b-k}}`),
and :math:`\Delta^\ell x^{\underline m}(0) = \ell!\,[m = \ell]`, so every Taylor coefficient is
:math:`\ge 0` and :math:`D_{\chi^\ell} \ge 0` for all :math:`\ell` and all :math:`t \ge 0`
(:func:`gaussian_chi_taylor_coefficients` checks the coefficients exactly).
The seed's own proof of Prop. 10 is in its App. B, which is not part of the
text we work from; the certified checks here do not rely on it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from flint import acb, arb, ctx

from ..arith import parse_rational, to_arb, workprec
from ..subsampling.zhu_wang import Condition4Certificate
from ..validation import positive

__all__ = [
    "Condition4Certificate",
    "ExpSum",
    "certify_nonnegative_expsum",
    "check_condition4_density",
    "check_condition4_discrete",
    "chi_divergence_density",
    "chi_divergence_discrete",
    "gaussian_chi",
    "gaussian_chi_expsum",
    "gaussian_chi_taylor_coefficients",
    "laplace_chi",
    "laplace_chi_expsum",
    "lemma9_sides_discrete",
    "poisson_chi",
    "poisson_chi_float",
    "randomized_response_chi",
    "verify_condition4_gaussian",
    "verify_condition4_laplace",
    "verify_condition4_randomized_response",
]

Dist = Sequence[object]


# ---------------------------------------------------------------------------
# finite discrete distributions, exactly
# ---------------------------------------------------------------------------


def _dist(p: Dist, name: str) -> list[Fraction]:
    out = [parse_rational(x, name) for x in p]
    if not out:
        raise ValueError(f"{name} must be a non-empty list of probabilities.")
    if any(x < 0 for x in out):
        raise ValueError(f"{name} must have non-negative masses. Found {[str(x) for x in out]}.")
    if sum(out) != 1:
        raise ValueError(f"{name} must sum to 1 exactly. Found sum {sum(out)}.")
    return out


def _order(ell: object, low: int = 1) -> int:
    if isinstance(ell, bool) or not isinstance(ell, int) or ell < low:
        raise ValueError(f"order must be an integer >= {low}. Found {ell!r}.")
    return ell


def chi_divergence_discrete(p: Dist, q: Dist, ell: int) -> Fraction:
    r"""Exact :math:`D_{\chi^\ell}(P\|Q) = \sum_i q_i (p_i/q_i - 1)^\ell` for rational masses.

    Raises:
        ValueError: if P is not absolutely continuous w.r.t. Q (then the divergence is infinite).
    """
    ell = _order(ell)
    pp, qq = _dist(p, "p"), _dist(q, "q")
    if len(pp) != len(qq):
        raise ValueError(f"p and q must have the same length. Found {len(pp)} and {len(qq)}.")
    total = Fraction(0)
    for a, b in zip(pp, qq, strict=False):
        if b == 0:
            if a != 0:
                raise ValueError("p must be absolutely continuous w.r.t. q (q_i = 0 < p_i).")
            continue
        total += b * (a / b - 1) ** ell
    return total


def lemma9_sides_discrete(pi: Dist, mu: Dist, alpha: int) -> tuple[Fraction, Fraction]:
    r"""Both sides of Lemma 9, exactly: :math:`(\mathbb{E}_\mu[(\pi/\mu-1)^\alpha],\;
    \mathbb{E}_\pi[(\pi/\mu-1)^{\alpha-1}] - \mathbb{E}_\mu[(\pi/\mu-1)^{\alpha-1}])`.

    Requires mutual absolute continuity (as the lemma does).
    """
    alpha = _order(alpha, 1)
    pp, mm = _dist(pi, "p"), _dist(mu, "q")
    if len(pp) != len(mm) or any((a == 0) != (b == 0) for a, b in zip(pp, mm, strict=False)):
        raise ValueError("p and q must be mutually absolutely continuous distributions of the same length.")
    lhs = sum((b * (a / b - 1) ** alpha for a, b in zip(pp, mm, strict=False) if b), Fraction(0))
    r1 = sum((a * (a / b - 1) ** (alpha - 1) for a, b in zip(pp, mm, strict=False) if b), Fraction(0))
    r2 = sum((b * (a / b - 1) ** (alpha - 1) for a, b in zip(pp, mm, strict=False) if b), Fraction(0))
    return lhs, r1 - r2


def check_condition4_discrete(
    pairs: Sequence[tuple[Dist, Dist]], max_order: int, both_directions: bool = True
) -> Condition4Certificate:
    r"""Exact check of condition (4) for a finite list of output-distribution pairs.

    Args:
        pairs: ``(M(X), M(X'))`` for every adjacent pair of interest, as lists of
            rational masses on a common finite support.
        max_order: check odd :math:`3 \le \ell \le` ``max_order``.
        both_directions: also check ``(M(X'), M(X))`` (add/remove adjacency is symmetric).
    """
    max_order = _order(max_order, 1)
    values: dict[tuple[object, int], object] = {}
    failures = []
    work: list[tuple[object, Sequence[object], Sequence[object]]] = []
    for i, (p, q) in enumerate(pairs):
        work.append((i, p, q))
        if both_directions:
            work.append((f"{i}-swapped", q, p))
    for label, p, q in work:
        for ell in range(3, max_order + 1, 2):
            v = chi_divergence_discrete(p, q, ell)
            values[(label, ell)] = v
            if v < 0:
                failures.append((label, ell, f"negative: {v}"))
    return Condition4Certificate(not failures, max_order, "exact rational arithmetic", values, tuple(failures))


# ---------------------------------------------------------------------------
# 1-d densities by certified integration
# ---------------------------------------------------------------------------

DensityFn = Callable[[acb, bool], acb]


def chi_divergence_density(
    p: DensityFn,
    q: DensityFn,
    ell: int,
    a: object,
    b: object,
    *,
    breakpoints: Sequence[object] = (),
    outside: object = 0,
    prec: int | None = None,
) -> arb:
    r"""Ball for :math:`D_{\chi^\ell}(P\|Q) = \int (p-q)^\ell q^{1-\ell}` by Arb's certified integration.

    Args:
        p, q: densities in the convention of ``acb.integral``: ``f(z, analytic)``
            returns an ``acb``; when ``analytic`` is True it must return a
            non-finite value unless the function is holomorphic on the ball ``z``
            (e.g. write piecewise densities per piece and split at
            ``breakpoints``).  ``q`` must not vanish on ``[a, b]``.
        ell: order >= 1.
        a, b: integration range (exact rationals).
        breakpoints: points inside ``(a, b)`` where p or q is not analytic.
        outside: a proven bound :math:`\ge \int_{\mathbb R\setminus[a,b]} q\,|p/q-1|^\ell`
            (0 when both supports lie in [a, b]); the result's radius grows by it.
            The caller is responsible for this bound.
        prec: working precision (default: current).

    Returns:
        A ball containing the divergence.
    """
    ell = _order(ell)
    lo, hi = parse_rational(a, "a"), parse_rational(b, "b")
    if not lo < hi:
        raise ValueError(f"a must be < b. Found a = {a}, b = {b}.")
    pts = sorted({lo, hi} | {parse_rational(x, "breakpoints") for x in breakpoints})
    if pts[0] < lo or pts[-1] > hi:
        raise ValueError("breakpoints must lie in [a, b].")
    with workprec(prec if prec is not None else ctx.prec):
        tail = to_arb(parse_rational(outside, "outside")) if not isinstance(outside, arb) else outside

        def integrand(z: acb, analytic: bool) -> acb:
            pz = p(z, analytic)
            qz = q(z, analytic)
            if analytic and not qz.is_finite():
                return acb(arb.nan())
            return (pz - qz) ** ell / qz ** (ell - 1)

        total = acb(0)
        for u, v in itertools.pairwise(pts):
            total += acb.integral(integrand, to_arb(u), to_arb(v))
        val = total.real
        return val + arb(0, tail.upper()) if tail != 0 else val


def check_condition4_density(
    pairs: Sequence[tuple[DensityFn, DensityFn]],
    max_order: int,
    a: object,
    b: object,
    *,
    breakpoints: Sequence[object] = (),
    outside: Callable[[int], object] | None = None,
    prec: int = 128,
) -> Condition4Certificate:
    r"""Certified check of condition (4) for pairs of 1-d densities (see :func:`chi_divergence_density`).

    ``outside(ell)`` must return a proven tail bound for order ``ell`` (default 0:
    both supports inside [a, b]).  An order holds when its enclosure is proven
    :math:`\ge 0`; an enclosure that straddles 0 is reported as undecided (and
    ``holds`` is False).
    """
    max_order = _order(max_order, 1)
    values: dict[tuple[object, int], object] = {}
    failures = []
    for i, (p, q) in enumerate(pairs):
        for ell in range(3, max_order + 1, 2):
            v = chi_divergence_density(
                p, q, ell, a, b, breakpoints=breakpoints, outside=0 if outside is None else outside(ell), prec=prec
            )
            values[(i, ell)] = v
            if not v >= 0:
                failures.append((i, ell, "negative" if v < 0 else "undecided"))
    return Condition4Certificate(
        not failures, max_order, "certified integration (acb.integral)", values, tuple(failures)
    )


# ---------------------------------------------------------------------------
# finite exponential sums: certified non-negativity on [0, S]
# ---------------------------------------------------------------------------

ExpSum = dict[Fraction, Fraction]  # exponent k -> coefficient C_k of C_k e^{k s}


def _expsum_eval(f: ExpSum, s: arb) -> arb:
    total = arb(0)
    for k, c in f.items():
        total += to_arb(c) * (to_arb(k) * s).exp()
    return total


def _expsum_lower_on_box(f: ExpSum, c: arb, r: arb, order: int) -> arb:
    r"""Lower bound of f on :math:`[c-r, c+r]` by a Taylor model of degree ``order`` at c:

    .. math:: f(s) \ge f(c) - \sum_{n=1}^{N}\frac{|f^{(n)}(c)|}{n!}r^n
              - \frac{r^{N+1}}{(N+1)!}\sum_k |C_k||k|^{N+1}e^{kc}e^{|k|r},

    with :math:`f^{(n)}(c) = \sum_k C_k k^n e^{kc}` evaluated in ball arithmetic (the last
    term is the Lagrange remainder bounded termwise).
    """
    terms = [(to_arb(k), to_arb(cf)) for k, cf in f.items()]
    exps = [(k, cf, (k * c).exp()) for k, cf in terms]
    val = sum((cf * e for k, cf, e in exps), arb(0))
    lower = val
    rn = arb(1)
    for n in range(1, order + 1):
        rn = rn * r / n
        dn = sum((cf * k**n * e for k, cf, e in exps), arb(0))
        lower -= abs(dn) * rn
    rem = sum((abs(cf) * abs(k) ** (order + 1) * e * (abs(k) * r).exp() for k, cf, e in exps), arb(0))
    lower -= rem * rn * r / (order + 1)
    return lower


def certify_nonnegative_expsum(
    f: ExpSum, S: object, *, max_depth: int = 60, prec: int = 256, max_boxes: int = 20000, near_terms: int = 60
) -> tuple[bool | None, str]:
    r"""Decide :math:`f(s) = \sum_k C_k e^{k s} \ge 0` for all :math:`s \in [0, S]`, rigorously.

    Method:

    1. Taylor coefficients at 0, :math:`a_n = \sum_k C_k k^n` (exact rationals).  If all
       vanish up to ``n = #terms - 1``, f is identically 0 (Vandermonde) -> True.
       Otherwise let m be the first ``n`` with :math:`a_n \ne 0`; if :math:`a_m < 0`, f is
       negative just right of 0 -> False.
    2. Near 0, with exact :math:`a_m, \ldots, a_M` (:math:`M = m +` ``near_terms``):
       :math:`f(s) \ge s^m\big[a_m/m! + \sum_{n=m+1}^{M}\min(a_n,0)s^{n-m}/n!
       - s^{M+1-m}\sum_k |C_k||k|^{M+1}e^{|k|s}/(M+1)!\big]` (Lagrange remainder
       bounded termwise); the bracket is decreasing in s, so f > 0 on
       :math:`(0, s_1]` once it is positive at :math:`s_1`.
    3. Far field: if the top exponential (positive coefficient) dominates the sum of
       the others' absolute values at :math:`s_d`, it does for all :math:`s \ge s_d`.
    4. On :math:`[s_1, s_d]`: adaptive bisection with a Taylor model of degree m + 1
       at each box centre (:func:`_expsum_lower_on_box`); a centre with f(c) proven
       negative -> False.

    Returns:
        ``(True, why)`` proven non-negative; ``(False, why)`` proven negative
        somewhere; ``(None, why)`` undecided within the box budget.
    """
    Sq = parse_rational(S, "S")
    if Sq < 0:
        raise ValueError(f"S must be >= 0. Found {S}.")
    f = {Fraction(k): Fraction(c) for k, c in f.items() if c != 0}
    if not f:
        return True, "identically zero"
    K = len(f)
    m = None
    for n in range(0, K):
        a_n = sum((c * k**n for k, c in f.items()), Fraction(0))
        if a_n != 0:
            m, a_m = n, a_n
            break
    if m is None:
        return True, "identically zero (first #terms Taylor coefficients vanish)"
    if a_m < 0:
        return False, f"negative near 0: first non-zero Taylor coefficient a_{m} = {a_m} < 0"
    if Sq == 0:
        return True, "S = 0"
    # exact Taylor coefficients a_m .. a_M at 0 (M = m + extra) for the near-zero bound
    M = m + near_terms
    coeffs = {n: sum((c * k**n for k, c in f.items()), Fraction(0)) for n in range(m, M + 1)}
    with workprec(prec):

        def near_zero_ok(s1: Fraction) -> bool:
            # f(s) >= s^m [a_m/m! + sum_{n=m+1}^{M} min(a_n, 0) s^(n-m)/n! - s^(M+1-m) B/(M+1)!]
            s = to_arb(s1)
            inner = to_arb(coeffs[m]) / arb(m).fac()
            for n in range(m + 1, M + 1):
                if coeffs[n] < 0:
                    inner += to_arb(coeffs[n]) * s ** (n - m) / arb(n).fac()
            rem = arb(0)
            for k, c in f.items():
                ak = abs(to_arb(k))
                rem += abs(to_arb(c)) * ak ** (M + 1) * (ak * s).exp()
            return bool(inner - s ** (M + 1 - m) * rem / arb(M + 1).fac() > 0)

        s1 = Sq
        j = 0
        while not near_zero_ok(s1):
            s1 = s1 * 3 / 4
            j += 1
            if j > 400:
                return None, "could not certify positivity near 0"
        if s1 >= Sq:
            return True, f"Taylor bound at 0 covers [0, {float(Sq):g}] (leading order {m})"
        # far field: once the top exponential dominates the others it does so for all larger s
        # (each ratio e^{(k - k_top) s} decreases), so [s_d, S] is covered at once
        k_top = max(f)
        s_hi = Sq
        if f[k_top] > 0:

            def dominates(x: Fraction) -> bool:
                xb = to_arb(x)
                others = sum(
                    (abs(to_arb(c)) * (to_arb(k - k_top) * xb).exp() for k, c in f.items() if k != k_top), arb(0)
                )
                return bool(to_arb(f[k_top]) - others > 0)

            if dominates(Sq):
                a_, b_ = s1, Sq
                if dominates(a_):
                    return True, f"certified on [0, {float(Sq):g}] (leading order {m} at 0, top term dominates)"
                for _ in range(40):
                    mid_ = (a_ + b_) / 2
                    if dominates(mid_):
                        b_ = mid_
                    else:
                        a_ = mid_
                s_hi = b_
        stack: list[tuple[Fraction, Fraction, int]] = [(s1, s_hi, 0)]
        boxes = 0
        while stack:
            lo, hi, d = stack.pop()
            boxes += 1
            if boxes > max_boxes:
                return None, "box budget exhausted"
            c = (lo + hi) / 2
            r = (hi - lo) / 2
            p_box = prec
            while True:
                with workprec(p_box):
                    cb = to_arb(c)
                    fc = _expsum_eval(f, cb)
                    if fc < 0:
                        return False, f"f({float(c):g}) < 0 (certified)"
                    low = _expsum_lower_on_box(f, cb, to_arb(r), m + 1)
                # retry at higher precision when rounding, not the box, blocks the decision
                if low > 0 or fc.rad() < abs(fc.mid()) * arb(2) ** -20 or p_box >= 8 * prec:
                    break
                p_box *= 2
            if low > 0:
                continue
            if d >= max_depth:
                return None, f"undecided near s = {float(c):g}"
            stack.append((lo, c, d + 1))
            stack.append((c, hi, d + 1))
        return True, f"certified on [0, {float(Sq):g}] (leading order {m} at 0, {boxes} boxes)"


# ---------------------------------------------------------------------------
# Gaussian
# ---------------------------------------------------------------------------


def gaussian_chi_expsum(ell: int) -> ExpSum:
    r""":math:`D_{\chi^\ell}(N(\mu,\sigma^2)\|N(0,\sigma^2))` as an exponential sum in :math:`t = \mu^2/(2\sigma^2)`:
    :math:`\sum_{j=0}^{\ell}\binom{\ell}{j}(-1)^{\ell-j}e^{j(j-1)t}`."""
    ell = _order(ell)
    out: ExpSum = {}
    for j in range(ell + 1):
        k = Fraction(j * (j - 1))
        out[k] = out.get(k, Fraction(0)) + Fraction(math.comb(ell, j) * (-1) ** (ell - j))
    return out


def gaussian_chi(ell: int, mu: object, sigma: object, *, prec: int | None = None) -> arb:
    r"""Ball for :math:`D_{\chi^\ell}(N(\mu,\sigma^2)\|N(0,\sigma^2))` (exact rational inputs)."""
    mu_q, s_q = _location_scale(mu, sigma, "sigma")
    return _expsum_ball(gaussian_chi_expsum(ell), mu_q * mu_q / (2 * s_q * s_q), prec)


def _location_scale(mu: object, scale: object, name: str) -> tuple[Fraction, Fraction]:
    """The exact location ``mu`` and the exact scale (> 0) called ``name``."""
    mu_q, s_q = parse_rational(mu, "mu"), parse_rational(scale, name)
    if s_q <= 0:
        raise ValueError(f"{name} must be > 0. Found {scale}.")
    return mu_q, s_q


def _expsum_ball(expsum: ExpSum, x: Fraction, prec: int | None) -> arb:
    """:func:`_expsum_eval` at the exact ``x``, at ``prec`` bits (default: the context's)."""
    with workprec(prec if prec is not None else ctx.prec):
        return _expsum_eval(expsum, to_arb(x))


def gaussian_chi_taylor_coefficients(ell: int, n_max: int) -> list[int]:
    r"""Exact integers :math:`\Delta^\ell[(x(x-1))^n](0) = \sum_j\binom{\ell}{j}(-1)^{\ell-j}(j(j-1))^n`, n = 0..n_max.

    :math:`D_{\chi^\ell} = \sum_n c_n t^n/n!`; all :math:`c_n \ge 0` (module docstring: falling
    factorials), which proves condition (4) for the Gaussian mechanism at every
    order and sensitivity.  This function lets tests check it exactly.
    """
    ell = _order(ell)
    return [
        sum(math.comb(ell, j) * (-1) ** (ell - j) * (j * (j - 1)) ** n for j in range(ell + 1))
        for n in range(n_max + 1)
    ]


def verify_condition4_gaussian(max_order: int, sigma: object, sensitivity: object = 1) -> Condition4Certificate:
    r"""Certified check of condition (4) (Prop. 10) for the Gaussian mechanism.

    For adjacent datasets the outputs are :math:`N(f(X), \sigma^2 I)` and
    :math:`N(f(X'), \sigma^2 I)` with :math:`\|f(X)-f(X')\|_2 \le \Delta`; rotating, the
    divergence depends only on :math:`t = \|f(X)-f(X')\|^2/(2\sigma^2) \in [0, \Delta^2/(2\sigma^2)]`
    (and is symmetric in the two datasets).  Each odd order is checked on that
    whole range by :func:`certify_nonnegative_expsum`.
    """
    max_order = _order(max_order, 1)
    s = positive(sigma, "sigma")
    d = positive(sensitivity, "sensitivity")
    T = d * d / (2 * s * s)
    return _verify_family(gaussian_chi_expsum, max_order, T, f"Gaussian, t in [0, {float(T):g}]")


# ---------------------------------------------------------------------------
# Laplace
# ---------------------------------------------------------------------------


def laplace_chi_expsum(ell: int) -> ExpSum:
    r""":math:`D_{\chi^\ell}(\mathrm{Lap}(\mu,b)\|\mathrm{Lap}(0,b))` as an exponential sum in :math:`s = |\mu|/b`.

    Splitting the line at 0 and :math:`\mu` (the ratio is :math:`e^{-s}`, :math:`e^{(2u-s)}` with
    :math:`u = x/b`, and :math:`e^{s}` on the three pieces; Q has masses 1/2 and
    :math:`e^{-s}/2` on the outer pieces):

    .. math:: 2D_{\chi^\ell} = (e^{-s}-1)^\ell + e^{-s}(e^{s}-1)^\ell + \int_0^s e^{-u}(e^{2u-s}-1)^\ell du
              = \sum_{j=0}^{\ell}\binom{\ell}{j}(-1)^{\ell-j}\Big[e^{-js} + e^{(j-1)s}
                + \frac{e^{(j-1)s} - e^{-js}}{2j-1}\Big].
    """
    ell = _order(ell)
    out: ExpSum = {}
    for j in range(ell + 1):
        c = Fraction(math.comb(ell, j) * (-1) ** (ell - j), 2)
        inv = Fraction(1, 2 * j - 1)
        for k, v in ((Fraction(-j), c * (1 - inv)), (Fraction(j - 1), c * (1 + inv))):
            out[k] = out.get(k, Fraction(0)) + v
    return {k: v for k, v in out.items() if v != 0}


def laplace_chi(ell: int, mu: object, b: object, *, prec: int | None = None) -> arb:
    r"""Ball for :math:`D_{\chi^\ell}(\mathrm{Lap}(\mu,b)\|\mathrm{Lap}(0,b))` (exact rational inputs)."""
    mu_q, b_q = _location_scale(mu, b, "scale")
    return _expsum_ball(laplace_chi_expsum(ell), abs(mu_q) / b_q, prec)


def verify_condition4_laplace(max_order: int, scale: object, sensitivity: object = 1) -> Condition4Certificate:
    r"""Certified check of condition (4) (Prop. 10) for the 1-d Laplace mechanism.

    Outputs :math:`\mathrm{Lap}(f(X), b)`, :math:`|f(X)-f(X')| \le \Delta`; the divergence
    depends on :math:`s = |f(X)-f(X')|/b \in [0, \Delta/b]` only (translation and
    reflection invariance, which also covers the swapped pair).
    """
    max_order = _order(max_order, 1)
    b = positive(scale, "scale")
    d = positive(sensitivity, "sensitivity")
    return _verify_family(laplace_chi_expsum, max_order, d / b, f"Laplace, s in [0, {float(d / b):g}]")


def _verify_family(expsum: Callable[[int], ExpSum], max_order: int, S: Fraction, label: str) -> Condition4Certificate:
    values: dict[tuple[object, int], object] = {}
    failures = []
    for ell in range(3, max_order + 1, 2):
        ok, why = certify_nonnegative_expsum(expsum(ell), S)
        values[(label, ell)] = why
        if ok is not True:
            failures.append((label, ell, why))
    return Condition4Certificate(
        not failures, max_order, f"certified exponential-sum check ({label})", values, tuple(failures)
    )


# ---------------------------------------------------------------------------
# randomized response
# ---------------------------------------------------------------------------


def randomized_response_chi(ell: int, p: object) -> Fraction:
    r"""Exact :math:`D_{\chi^\ell}(\mathrm{Ber}(p)\|\mathrm{Ber}(1-p)) = (2p-1)^\ell[(1-p)^{1-\ell} + (-1)^\ell p^{1-\ell}]`.

    For odd :math:`\ell` this is :math:`(2p-1)^\ell[(1-p)^{1-\ell} - p^{1-\ell}] \ge 0` (both factors
    have the sign of :math:`2p-1`), and the swapped pair is the same expression at
    :math:`1-p`; so condition (4) holds for binary randomized response.
    """
    ell = _order(ell)
    pq = parse_rational(p, "p")
    if not 0 < pq < 1:
        raise ValueError(f"p must be in (0, 1). Found {p}.")
    return chi_divergence_discrete([pq, 1 - pq], [1 - pq, pq], ell)


def verify_condition4_randomized_response(max_order: int, p: object) -> Condition4Certificate:
    """Exact check of condition (4) for binary randomized response (both orders of the pair)."""
    pq = parse_rational(p, "p")
    if not 0 < pq < 1:
        raise ValueError(f"p must be in (0, 1). Found {p}.")
    return check_condition4_discrete([([pq, 1 - pq], [1 - pq, pq])], max_order, both_directions=True)


# ---------------------------------------------------------------------------
# Poisson distributions (Nielsen & Nock 2014; Fig. 2 of the seed)
# ---------------------------------------------------------------------------


def poisson_chi(ell: int, lam1: object, lam2: object, *, prec: int | None = None) -> arb:
    r"""Ball for :math:`D_{\chi^\ell}(\mathrm{Poi}(\lambda_1)\|\mathrm{Poi}(\lambda_2))`.

    With :math:`\mathbb{E}_{Q}[(P/Q)^j] = \exp(\lambda_1^j\lambda_2^{1-j} - j\lambda_1 - (1-j)\lambda_2)`,
    :math:`D_{\chi^\ell} = \sum_j\binom{\ell}{j}(-1)^{\ell-j}\exp(\lambda_1^j\lambda_2^{1-j} - j\lambda_1 - (1-j)\lambda_2)`.
    For :math:`\ell = 3`, with :math:`r = \lambda_1/\lambda_2` and :math:`x = \lambda_2(r-1)^2`:
    :math:`D_{\chi^3} = 2 - 3e^{x} + e^{x(r+2)}`, negative e.g. for small r and :math:`x < \log 2`.
    """
    ell = _order(ell)
    l1, l2 = parse_rational(lam1, "lambda1"), parse_rational(lam2, "lambda2")
    if l1 <= 0 or l2 <= 0:
        raise ValueError(f"lambda1 and lambda2 must be > 0. Found {lam1}, {lam2}.")
    with workprec(prec if prec is not None else ctx.prec):
        a1, a2 = to_arb(l1), to_arb(l2)
        total = arb(0)
        for j in range(ell + 1):
            e = a1**j * a2 ** (1 - j) - j * a1 - (1 - j) * a2
            total += math.comb(ell, j) * (-1) ** (ell - j) * e.exp()
        return total


def poisson_chi_float(ell: int, lam1: object, lam2: object) -> Any:
    """Float version of :func:`poisson_chi` (numpy broadcasting; plotting only)."""
    import numpy as np

    l1 = np.asarray(lam1, dtype=float)
    l2 = np.asarray(lam2, dtype=float)
    total = 0.0
    for j in range(ell + 1):
        total = total + math.comb(ell, j) * (-1) ** (ell - j) * np.exp(l1**j * l2 ** (1 - j) - j * l1 - (1 - j) * l2)
    return total
