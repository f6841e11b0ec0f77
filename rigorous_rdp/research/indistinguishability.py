r"""(epsilon, delta)-indistinguishability of two distributions (blog part 1).

Two probability measures p, q are :math:`(\epsilon,\delta)`-ind (blog part 1,
(3)-(4)) if :math:`p(S) \le e^\epsilon q(S) + \delta` and
:math:`q(S) \le e^\epsilon p(S) + \delta` for every measurable S.  The smallest
such delta is the larger of the two *hockey-stick divergences*

.. math::

    H_{e^\epsilon}(p \| q) = \sup_S \big(p(S) - e^\epsilon q(S)\big)
                         = \int \big(p(y) - e^\epsilon q(y)\big)_+ \, dy,

the supremum being attained at :math:`S = \{p > e^\epsilon q\}` (the set used in
the proofs of Claims 1, 3 and 4).  This module computes it

* exactly, as a :class:`~fractions.Fraction`, for finite discrete distributions
  with rational masses when :math:`e^\epsilon` is rational, i.e. when epsilon is
  given as the logarithm of a rational (Claim 2 uses :math:`\epsilon = \log 4/3`):
  :func:`hockey_stick_exact`, :func:`optimal_delta_exact`;
* as a certified ball for a rational epsilon (then :math:`e^\epsilon` is
  irrational for :math:`\epsilon \ne 0`; :math:`(x)_+` is evaluated on balls, so no
  sign decision is needed): :func:`hockey_stick`, :func:`optimal_delta`;
* for 1-d densities, as a certified ball, by Arb's rigorous integration on a
  window plus a proven bound on the mass of p outside it:
  :func:`hockey_stick_density` (with the Gaussian and Laplace pairs as
  ready-made cases, :func:`gaussian_pair_delta`, :func:`laplace_pair_delta`).

Also here: the tail probability of the divergence variable
:math:`\mathbb P(L(p\|q) > \epsilon)` (Claim 1, :func:`loss_tail_exact`,
:func:`claim1_delta_exact`), the brute-force check of (3)-(4) over all subsets
(:func:`check_all_subsets_exact`, used by the tests and for Claim 2), and the
bound of Claim 3 (:func:`claim3_tail_bound`).

Deviation from the post.  Claim 3 is stated with a strict inequality
:math:`\mathbb P(L(p\|q) > \alpha\epsilon) < \delta / (1 - e^{(1-\alpha)\epsilon})`.
The strict form is false when :math:`S = \{p > e^{\alpha\epsilon} q\}` is a
p-null set and delta = 0 (e.g. p = q: both sides are 0); the proof's first
strict inequality :math:`e^{\alpha\epsilon} q(S) < p(S)` needs :math:`p(S) > 0`.
The non-strict inequality is what holds; :func:`claim3_tail_bound` returns that
right-hand side.

For the example of Claim 2, p = (2/5, 3/5), q = (3/5, 2/5), the post shows
(log 4/3, 1/3)-indistinguishability; the *optimal* delta at log 4/3 is 1/15
(:func:`optimal_delta_exact`), so 1/3 is valid but not tight, and the converse of
Claim 1 fails also at the optimal delta: :math:`\mathbb P(L \le \log 4/3) = 2/5 < 14/15`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction

from flint import acb, arb

from ..arith import DEFAULT_DIGITS, Certified, parse_rational, refine, to_arb
from ..validation import positive

__all__ = [
    "check_all_subsets_exact",
    "claim1_delta_exact",
    "claim3_tail_bound",
    "gaussian_pair_delta",
    "hockey_stick",
    "hockey_stick_density",
    "hockey_stick_exact",
    "is_indistinguishable_exact",
    "laplace_pair_delta",
    "loss_tail_exact",
    "optimal_delta",
    "optimal_delta_exact",
    "parse_distribution",
]


# ---------------------------------------------------------------------------
# input
# ---------------------------------------------------------------------------


def parse_distribution(values: Sequence[object], name: str) -> tuple[Fraction, ...]:
    """Exact probability vector: rational entries >= 0 summing to exactly 1.

    Raises:
        ValueError: naming ``name`` if an entry is not a number, negative, or the
            entries do not sum to 1.
    """
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise ValueError(f"{name} must be a sequence of probabilities. Found {values!r}.")
    out = tuple(parse_rational(v, name) for v in values)
    if not out:
        raise ValueError(f"{name} must be a non-empty sequence of probabilities. Found [].")
    for v in out:
        if v < 0:
            raise ValueError(f"{name} must have entries >= 0. Found {v}.")
    total = sum(out, Fraction(0))
    if total != 1:
        raise ValueError(f"{name} must sum to 1. Found sum {total}.")
    return out


def _pair(p: Sequence[object], q: Sequence[object]) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    pp = parse_distribution(p, "p")
    qq = parse_distribution(q, "q")
    if len(pp) != len(qq):
        raise ValueError(f"q must have the same length as p ({len(pp)}). Found {len(qq)}.")
    return pp, qq


def _exp_epsilon(exp_epsilon: object) -> Fraction:
    c = parse_rational(exp_epsilon, "exp-epsilon")
    if c < 1:
        raise ValueError(f"exp-epsilon must be >= 1 (epsilon >= 0). Found {c}.")
    return c


def _epsilon(epsilon: object) -> Fraction:
    e = parse_rational(epsilon, "epsilon")
    if e < 0:
        raise ValueError(f"epsilon must be >= 0. Found {e}.")
    return e


# ---------------------------------------------------------------------------
# exact discrete case (e^epsilon rational)
# ---------------------------------------------------------------------------


def hockey_stick_exact(p: Sequence[object], q: Sequence[object], exp_epsilon: object) -> Fraction:
    r"""Exact :math:`H_c(p\|q) = \sum_y (p(y) - c\,q(y))_+` with :math:`c = e^\epsilon` rational.

    This is the smallest delta for which (3) of blog part 1 holds for all S
    (the supremum is attained at :math:`S = \{p > c q\}`, the set A of Claim 1's proof).

    Args:
        p, q: probability vectors with rational entries (exact sum 1).
        exp_epsilon: :math:`e^\epsilon \ge 1` as an exact rational (so
            :math:`\epsilon = \log` of it, e.g. ``"4/3"`` for Claim 2).
    """
    pp, qq = _pair(p, q)
    c = _exp_epsilon(exp_epsilon)
    return sum((max(a - c * b, Fraction(0)) for a, b in zip(pp, qq, strict=False)), Fraction(0))


def optimal_delta_exact(p: Sequence[object], q: Sequence[object], exp_epsilon: object) -> Fraction:
    r"""Smallest delta with p, q :math:`(\log c, \delta)`-ind ((3) and (4)): :math:`\max(H_c(p\|q), H_c(q\|p))`."""
    return max(hockey_stick_exact(p, q, exp_epsilon), hockey_stick_exact(q, p, exp_epsilon))


def is_indistinguishable_exact(p: Sequence[object], q: Sequence[object], exp_epsilon: object, delta: object) -> bool:
    """Exact decision of :math:`(\\log c, \\delta)`-indistinguishability ((3)-(4) of blog part 1)."""
    d = parse_rational(delta, "delta")
    if d < 0:
        raise ValueError(f"delta must be >= 0. Found {d}.")
    return optimal_delta_exact(p, q, exp_epsilon) <= d


def check_all_subsets_exact(p: Sequence[object], q: Sequence[object], exp_epsilon: object, delta: object) -> bool:
    r"""Check (3) and (4) of blog part 1 literally, for all :math:`2^n` subsets S (n <= 16).

    Independent of :func:`optimal_delta_exact` (no use of the optimal set); used to
    cross-check it and to verify the example of Claim 2 as the post suggests
    ("just check (3) for all four possible S").
    """
    pp, qq = _pair(p, q)
    c = _exp_epsilon(exp_epsilon)
    d = parse_rational(delta, "delta")
    if len(pp) > 16:
        raise ValueError(f"p must have at most 16 entries for the brute-force check. Found {len(pp)}.")
    idx = range(len(pp))
    for r in range(len(pp) + 1):
        for s in itertools.combinations(idx, r):
            ps = sum((pp[i] for i in s), Fraction(0))
            qs = sum((qq[i] for i in s), Fraction(0))
            if ps > c * qs + d or qs > c * ps + d:
                return False
    return True


def loss_tail_exact(p: Sequence[object], q: Sequence[object], exp_epsilon: object) -> Fraction:
    r""":math:`\mathbb P(L(p\|q) > \epsilon) = p(\{y: p(y) > e^\epsilon q(y)\})`, exactly (blog part 1, (5)).

    Points with q(y) = 0 < p(y) have :math:`L = +\infty` and are counted.
    """
    pp, qq = _pair(p, q)
    c = _exp_epsilon(exp_epsilon)
    return sum((a for a, b in zip(pp, qq, strict=False) if a > c * b), Fraction(0))


def claim1_delta_exact(p: Sequence[object], q: Sequence[object], exp_epsilon: object) -> Fraction:
    r"""The delta certified by Claim 1 of blog part 1 (tail condition (5)):
    :math:`\max(\mathbb P(L(p\|q) > \epsilon), \mathbb P(L(q\|p) > \epsilon))`.

    Always :math:`\ge` :func:`optimal_delta_exact` (Claim 1 is sufficient, not
    necessary; Claim 2 shows the converse fails).
    """
    return max(loss_tail_exact(p, q, exp_epsilon), loss_tail_exact(q, p, exp_epsilon))


# ---------------------------------------------------------------------------
# certified discrete case (epsilon rational)
# ---------------------------------------------------------------------------


def _hs_ball(pp: Sequence[Fraction], qq: Sequence[Fraction], eps: Fraction) -> arb:
    c = to_arb(eps).exp()
    total = arb(0)
    zero = arb(0)
    for a, b in zip(pp, qq, strict=False):
        # (x)_+ on a ball: arb's max is an enclosure of the exact max, no sign decision
        total += (to_arb(a) - c * to_arb(b)).max(zero)
    return total


def hockey_stick(
    p: Sequence[object], q: Sequence[object], epsilon: object, digits: float = DEFAULT_DIGITS
) -> Certified:
    r"""Certified :math:`H_{e^\epsilon}(p\|q)` for rational p, q and a rational epsilon >= 0.

    An exact zero (e.g. when :math:`p \le e^\epsilon q` everywhere with room to
    spare) is returned as a ball containing 0 of tiny radius; check it with
    ``upper()``.
    """
    pp, qq = _pair(p, q)
    eps = _epsilon(epsilon)
    return _refine_or_zero(lambda prec: _hs_ball(pp, qq, eps), digits, "hockey-stick divergence")


def optimal_delta(
    p: Sequence[object], q: Sequence[object], epsilon: object, digits: float = DEFAULT_DIGITS
) -> Certified:
    r"""Certified smallest delta with p, q :math:`(\epsilon,\delta)`-ind: max of both hockey-sticks."""
    pp, qq = _pair(p, q)
    eps = _epsilon(epsilon)
    return _refine_or_zero(lambda prec: _hs_ball(pp, qq, eps).max(_hs_ball(qq, pp, eps)), digits, "optimal delta")


def _refine_or_zero(func: Callable[[int], arb], digits: float, what: str) -> Certified:
    """``refine``, but accept a ball of absolute radius <= 2^-prec around 0 (a zero
    value has no relative accuracy)."""
    from ..arith import workprec
    from ..errors import PrecisionExhausted

    try:
        return refine(func, digits, what=what, max_prec=1024)
    except PrecisionExhausted as exc:
        with workprec(exc.prec or 1024):
            v = func(exc.prec or 1024)
        if v.is_finite() and v.contains(0):
            return Certified(v, exc.prec or 1024)
        raise


# ---------------------------------------------------------------------------
# Claim 3
# ---------------------------------------------------------------------------


def claim3_tail_bound(epsilon: object, delta: object, alpha: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Claim 3 of blog part 1 (Kasiviswanathan-Smith): if p, q are
    :math:`(\epsilon,\delta)`-ind and :math:`\alpha > 1`, then

    .. math:: \mathbb P(L(p\|q) > \alpha\epsilon) \le \frac{\delta}{1 - e^{(1-\alpha)\epsilon}}.

    Returns the right-hand side as a certified ball.  The post writes ``<``;
    only ``<=`` holds in general (module docstring).
    """
    eps = positive(epsilon, "epsilon")
    d = parse_rational(delta, "delta")
    a = parse_rational(alpha, "alpha")
    if d < 0 or d > 1:
        raise ValueError(f"delta must be in [0, 1]. Found {d}.")
    if a <= 1:
        raise ValueError(f"alpha must be > 1. Found {a}.")

    def f(prec: int) -> arb:
        return to_arb(d) / (-(((1 - to_arb(a)) * to_arb(eps)).expm1()))

    if d == 0:
        return Certified(arb(0), 64)
    return refine(f, digits, what="Claim 3 bound")


# ---------------------------------------------------------------------------
# 1-d densities
# ---------------------------------------------------------------------------

Density = Callable[[acb, bool], acb]


def hockey_stick_density(
    p: Density,
    q: Density,
    epsilon: object,
    lower: object,
    upper: object,
    p_tail_mass: Callable[[], arb],
    *,
    breakpoints: Sequence[object] = (),
    digits: float = DEFAULT_DIGITS,
    max_prec: int = 512,
) -> Certified:
    r"""Certified :math:`H_{e^\epsilon}(p\|q) = \int (p - e^\epsilon q)_+` for densities on the real line.

    The integral over ``[lower, upper]`` is computed with ``acb.integral``.  The
    integrand :math:`(p - e^\epsilon q)_+` is not holomorphic where
    :math:`p = e^\epsilon q`; on such balls it returns a non-finite value when
    ``analytic`` is set, so Arb bisects there and bounds the remaining small pieces
    by direct enclosures (which is rigorous because :math:`(x)_+` is evaluated on
    real balls).  Outside the window, :math:`0 \le (p - e^\epsilon q)_+ \le p`, so the
    contribution lies in :math:`[0, T]` where T bounds the p-mass outside the window.

    Args:
        p, q: densities as functions ``(z: acb, analytic: bool) -> acb``, holomorphic
            near the real segment (forward ``analytic`` to branch-cut functions).
        epsilon: rational epsilon >= 0.
        lower, upper: rational window ends.
        p_tail_mass: called inside the working precision; returns a ball whose
            upper end bounds :math:`p(\mathbb R \setminus [\mathrm{lower}, \mathrm{upper}])`.
        breakpoints: optional interior points (e.g. float estimates of the
            crossings :math:`p = e^\epsilon q`) to split the window; they only speed
            things up.
    """
    eps = _epsilon(epsilon)
    lo = parse_rational(lower, "lower")
    hi = parse_rational(upper, "upper")
    if not lo < hi:
        raise ValueError(f"upper must be > lower ({float(lo)}). Found {float(hi)}.")
    pts = sorted(
        {lo, hi} | {parse_rational(b, "breakpoints") for b in breakpoints if lo < parse_rational(b, "breakpoints") < hi}
    )

    def f(prec: int) -> arb:
        c = acb(to_arb(eps).exp())
        zero = arb(0)

        def integrand(z: acb, analytic: bool) -> acb:
            v = p(z, analytic) - c * q(z, analytic)
            if analytic:
                if v.real > 0:
                    return v
                if v.real < 0:
                    return acb(0)
                return acb(arb.nan())
            return acb(v.real.max(zero))

        tol = arb(2) ** (-prec)
        total = arb(0)
        for a, b in itertools.pairwise(pts):
            total += acb.integral(integrand, to_arb(a), to_arb(b), rel_tol=tol, abs_tol=tol).real
        tail = p_tail_mass().upper()
        return arb(total.lower()).max(zero).union(arb(total.upper() + tail))

    return _refine_density(f, digits, max_prec)


def _refine_density(func: Callable[[int], arb], digits: float, max_prec: int) -> Certified:
    """``refine``; when the exact value is (near) 0, relative width cannot be reached, and
    the last enclosure is returned if it contains 0.  It is still a valid enclosure (its
    upper end bounds delta); only the requested relative width is waived, for zero only."""
    from ..errors import PrecisionExhausted

    try:
        return refine(func, digits, what="hockey-stick divergence of densities", max_prec=max_prec)
    except PrecisionExhausted as exc:
        if exc.last is not None and exc.last.contains(0):
            return Certified(exc.last, exc.prec or max_prec)
        raise


def _gauss_sf(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


def gaussian_pair_delta(sigma: object, epsilon: object, shift: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Certified :math:`H_{e^\epsilon}(N(0,\sigma^2) \| N(\Delta,\sigma^2))` by integration of the densities.

    This is the exact delta(epsilon) of the Gaussian mechanism with sensitivity
    :math:`\Delta` (``shift``), computed here through
    :func:`hockey_stick_density` as an independent path; the closed form
    (Balle & Wang 2018, Thm. 8) is
    :math:`\Phi(\Delta/2\sigma - \epsilon\sigma/\Delta) - e^\epsilon\Phi(-\Delta/2\sigma - \epsilon\sigma/\Delta)`.
    """
    s = positive(sigma, "sigma")
    m = positive(shift, "shift")
    # window: p-mass outside [-W, W] is 2 Phi(-W/sigma); W = 40 sigma + 2 |shift| gives < 1e-340
    w = 40 * s + 2 * m
    # the crossing p = e^eps q is at z* = shift/2 - eps sigma^2/shift
    eps = _epsilon(epsilon)
    zc = m / 2 - eps * s * s / m
    bps = [zc] if -w < zc < w else []

    def dens(center: Fraction) -> Density:
        def d(z: acb, analytic: bool) -> acb:
            sa = to_arb(s)
            u = (z - to_arb(center)) / sa
            return (-(u * u) / 2).exp() / (sa * (2 * arb.pi()).sqrt())

        return d

    return hockey_stick_density(
        dens(Fraction(0)), dens(m), eps, -w, w, lambda: 2 * _gauss_sf(to_arb(w / s)), breakpoints=bps, digits=digits
    )


def laplace_pair_delta(b: object, epsilon: object, shift: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Certified :math:`H_{e^\epsilon}(\mathrm{Lap}(0,b) \| \mathrm{Lap}(\Delta,b))` by integration.

    For the Laplace mechanism of (1.5) this is 0 exactly when
    :math:`\epsilon \ge \Delta/b` (pure DP; returned as an exact 0 by that proof,
    since there :math:`p = e^\epsilon q` on a half-line and no ball could decide the
    sign); otherwise it is positive.  The density
    :math:`e^{-|z|/b}/2b` has kinks at 0 and :math:`\Delta`; they are passed as
    breakpoints and each piece is analytic.
    """
    bb = positive(b, "scale")
    m = positive(shift, "shift")
    eps = _epsilon(epsilon)
    if eps * bb >= m:
        # (1.5): the privacy loss is bounded by shift/b <= epsilon (triangle inequality),
        # so the hockey-stick divergence is exactly 0
        return Certified(arb(0), 64)
    w = 800 * bb + 2 * m  # p-mass outside [-w, w] is exp(-w/b) < e^-800

    def dens(center: Fraction) -> Density:
        def d(z: acb, analytic: bool) -> acb:
            u = z - to_arb(center)
            ba = to_arb(bb)
            if analytic:
                # |u| is analytic only away from Re u = 0
                if u.real > 0:
                    return (-u / ba).exp() / (2 * ba)
                if u.real < 0:
                    return (u / ba).exp() / (2 * ba)
                return acb(arb.nan())
            return acb((-abs(u.real) / ba).exp() / (2 * ba))

        return d

    # crossing of p = e^eps q inside (0, shift): -z/b = eps - (shift - z)/b  ->  z = (shift - eps b)/2
    bps = [Fraction(0), m]
    zc = (m - eps * bb) / 2
    if 0 < zc < m:
        bps.append(zc)
    return hockey_stick_density(
        dens(Fraction(0)), dens(m), eps, -w, w, lambda: (-to_arb(w / bb)).exp(), breakpoints=bps, digits=digits
    )
