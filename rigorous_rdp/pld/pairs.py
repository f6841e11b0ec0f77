r"""Certified privacy profiles of the subsampled pairs beyond the Gaussian add/remove one.

Notation of :mod:`rigorous_rdp.pld.profiles`: a pair :math:`(P, Q)`, its loss
:math:`L = \log(dP/dQ)`, the profile :math:`\delta(\varepsilon) = P(L > \varepsilon) -
e^\varepsilon Q(L > \varepsilon)`.  Every profile here is built from the *tails* of one
"remove" pair at an exact rational threshold t: the enclosures of
:math:`P(L > t), P(L \le t), Q(L > t), Q(L \le t)` and of the masses of an atom of L at t.
From them

* the pair itself (``remove``): :math:`\delta = P(L>\varepsilon) - e^\varepsilon Q(L>\varepsilon)`,
  ``dlow`` :math:`= e^\varepsilon Q(L\le\varepsilon) - P(L\le\varepsilon)`;
* the swapped pair :math:`(Q, P)` (``add``), whose loss is :math:`-L`: at t = -eps,
  :math:`\delta = Q(L < t) - e^\varepsilon P(L < t)`, ``dlow`` :math:`= e^\varepsilon P(L \ge t)
  - Q(L \ge t)`, ``qgt`` :math:`= P(L < t)`, ``qge`` :math:`= P(L \le t)`;
* the symmetrised pair (replace-one): the remove pair's profile for eps >= 0 and the swapped
  pair's for eps < 0, i.e. :math:`V = \max(\delta_{remove}, \delta_{add})` pointwise
  (proofs/verify_pld_pairs.py, check ``symmetrised_profile``).

Pairs and the theorems that make them dominating (proofs/verify_pld_pairs.py):

* Poisson sampling (probability q) of a mechanism with dominating pair (P, Q) for both
  orders of every add/remove neighbour (Laplace: :math:`(\mathrm{Lap}(0,b), \mathrm{Lap}(1,b))`,
  randomized response: :math:`((p,1-p),(1-p,p))`), add/remove adjacency:
  remove :math:`(qP + (1-q)Q, Q)` and add, the swapped pair :math:`(Q, qP + (1-q)Q)` (for these
  symmetric bases equal to :math:`(P, (1-q)P + qQ)` up to relabelling the output).  Zhu, Dong,
  Wang, "Optimal accounting of differential privacy via characteristic function", AISTATS
  2022, Proposition 30; the hockey-stick identities behind it are Balle, Barthe, Gaboardi,
  "Privacy amplification by subsampling", NeurIPS 2018, Theorem 2 (advanced joint convexity).
* Replace-one adjacency, Gaussian noise :math:`N(0, \sigma^2 C^2 I_d)` on a sum of records in the
  ball of radius C of :math:`\mathbb{R}^d` (any d), Poisson sampling or fixed-size sampling
  without replacement of a batch of B out of N (q = B/N): the symmetrisation of the Poisson
  remove pair with noise :math:`\sigma/2`, :math:`(qN(1, \sigma^2/4) + (1-q)N(0, \sigma^2/4),
  N(0, \sigma^2/4))`.  The proof (joint convexity over a coupling, then Balle et al. 2018
  Theorem 2 and convexity of the hockey-stick divergence in its second argument) never
  leaves the Gaussian kernels, so it holds in every dimension; it dominates but is not
  attained in general (``tight=False``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

from flint import arb, ctx

from ..arith import workprec
from .profiles import Profile, ProfilePoint, _q, _sf_cdf, poisson_gaussian_profile

__all__ = [
    "attained_replace_one",
    "finite_pair_profile",
    "poisson_laplace_profile",
    "poisson_randomized_response_profile",
    "replace_one_gaussian_profile",
]

#: the largest working precision an oracle raises to when a comparison stays undecided
_MAX_PREC = 4096


class Tails(NamedTuple):
    """Enclosures at a threshold t of one pair: P(L > t), P(L <= t), Q(L > t), Q(L <= t) and
    the masses P(L = t), Q(L = t) (zero unless L has an atom at t)."""

    pgt: arb
    ple: arb
    qgt: arb
    qle: arb
    peq: arb
    qeq: arb


def _remove_point(tl: Tails, e: arb) -> ProfilePoint:
    return ProfilePoint(tl.pgt - e * tl.qgt, e * tl.qle - tl.ple, tl.qgt, tl.qgt + tl.qeq)


def _swap_point(tl: Tails, e: arb) -> ProfilePoint:
    """Profile of the swapped pair (Q, P) at eps, from the tails of (P, Q) at t = -eps."""
    plt, qlt = tl.ple - tl.peq, tl.qle - tl.qeq
    return ProfilePoint(qlt - e * plt, e * (tl.pgt + tl.peq) - (tl.qgt + tl.qeq), plt, tl.ple)


def _with_retry(tails: Callable[[Fraction], Tails], build: Callable[[Fraction], ProfilePoint]):
    """Evaluate at the caller's precision; raise the precision while a comparison of the
    exact threshold with an irrational loss value is undecided."""

    def oracle(eps: Fraction) -> ProfilePoint:
        prec = ctx.prec
        while True:
            try:
                with workprec(prec):
                    pt = build(eps)
                return pt
            except ArithmeticError:
                if prec >= _MAX_PREC:
                    raise
                prec *= 2

    return oracle


def _screens(oracle: Callable[[Fraction], ProfilePoint]):
    """Float screens (choices only) from the oracle at 53 bits."""

    def point(eps: float) -> ProfilePoint:
        with workprec(53):
            return oracle(Fraction(eps))

    def sd(eps: float) -> float:
        return float(point(eps).delta.mid())

    def sl(eps: float) -> float:
        return float(point(eps).dlow.mid())

    return sd, sl


def _profile_from_tails(
    name: str,
    key: tuple,
    tails: Callable[[Fraction], Tails],
    direction: str,
    support: tuple[Fraction | None, Fraction | None],
    losses: list[float] | None = None,
) -> Profile:
    """A Profile of the pair whose tails are ``tails`` ("remove"), of its swap ("add") or
    of its symmetrisation ("symmetric"; then ``tails`` is only called at t >= 0);
    ``losses``: the loss values of a pair on finitely many outcomes (its kinks)."""

    def build(eps: Fraction) -> ProfilePoint:
        e = _q(eps).exp()
        if direction == "remove":
            return _remove_point(tails(eps), e)
        if direction == "add":
            return _swap_point(tails(-eps), e)
        if eps >= 0:
            pt = _remove_point(tails(eps), e)
            if eps == 0:  # left derivative of V at x = 1 is P(L <= 0) - 1 (module docstring)
                pt = ProfilePoint(pt.delta, pt.dlow, pt.qgt, tails(eps).ple)
            return pt
        return _swap_point(tails(-eps), e)

    oracle = _with_retry(tails, build)
    sd, sl = _screens(oracle)
    if direction == "add":
        lo, hi = support
        support = (None if hi is None else -hi, None if lo is None else -lo)
    elif direction == "symmetric":
        lo, hi = support
        m = None if lo is None or hi is None else max(-lo, hi)
        support = (None, None) if m is None else (-m, m)
    kinks = None
    if losses is not None:
        # remove: the profile is piecewise linear in e^eps with kinks at the losses; add: at their
        # negatives; symmetric: both, and 0 where the two halves meet
        kinks = tuple(
            sorted(
                {*(losses if direction != "add" else []), *(-x for x in losses if direction != "remove")}
                | ({0.0} if direction == "symmetric" else set())
            )
        )
    return Profile(name, oracle, support, sd, sl, key, kinks=kinks)


def _decide_lt(a: arb, b: arb) -> bool:
    """a < b, certainly decided (ArithmeticError when the balls overlap)."""
    if a < b:
        return True
    if a >= b:
        return False
    raise ArithmeticError("undecided comparison of a threshold with a loss value")


def _outer(x: float, up: bool) -> Fraction:
    """A rational just outside a float value (for support windows, which may be wider)."""
    s = 2**20
    return Fraction(math.ceil(x * s) + 1, s) if up else Fraction(math.floor(x * s) - 1, s)


# ---------------------------------------------------------------------------
# finite pairs (randomized response under Poisson sampling)
# ---------------------------------------------------------------------------


def _finite_tails(atoms: list[tuple[Fraction, Fraction]]) -> Callable[[Fraction], Tails]:
    """Tails of a pair on finitely many outcomes with exact masses ``(P_i, Q_i)``, all > 0."""

    def tails(t: Fraction) -> Tails:
        zero = arb(0)
        pgt = ple = qgt = qle = peq = qeq = zero
        ta = _q(t)
        for p, q in atoms:
            pa, qa = _q(p), _q(q)
            # the sign of loss - t; log(P_i/Q_i) of a rational ratio != 1 is irrational: never equal to t
            rel = (t < 0) - (t > 0) if p == q else (1 if _decide_lt(ta, (pa / qa).log()) else -1)
            if rel > 0:
                pgt, qgt = pgt + pa, qgt + qa
            else:
                ple, qle = ple + pa, qle + qa
                if rel == 0:
                    peq, qeq = peq + pa, qeq + qa
        return Tails(pgt, ple, qgt, qle, peq, qeq)

    return tails


def finite_pair_profile(name: str, key: tuple, atoms: list[tuple[Fraction, Fraction]], direction: str) -> Profile:
    """Profile of a pair on finitely many outcomes (masses exact rationals, all positive)."""
    if any(p <= 0 or q <= 0 for p, q in atoms) or sum(p for p, _ in atoms) != 1 or sum(q for _, q in atoms) != 1:
        raise ValueError("finite pair: masses must be positive and sum to 1 on both sides.")
    losses = [math.log(float(p) / float(q)) for p, q in atoms]
    support = (_outer(min(losses), False), _outer(max(losses), True))
    return _profile_from_tails(name, key, _finite_tails(atoms), direction, support, losses)


def poisson_randomized_response_profile(q: Fraction, p: Fraction, direction: str) -> Profile:
    r"""Poisson sampling (probability q) of randomized response, add/remove.

    With :math:`p' = \max(p, 1 - p)`: remove pair :math:`(q(p', 1-p') + (1-q)(1-p', p'),
    (1-p', p'))`, add the swapped pair (module docstring)."""
    if not 0 < q <= 1 or not 0 < p < 1:
        raise ValueError(f"q must be in (0, 1] and p in (0, 1). Found q={float(q)!r}, p={float(p)!r}.")
    pp = max(p, 1 - p)
    atoms = [(q * pp + (1 - q) * (1 - pp), 1 - pp), (q * (1 - pp) + (1 - q) * pp, pp)]
    return finite_pair_profile(
        f"poisson-randomized-response(q={q}, p={p}, {direction})", ("poisson-rr", q, pp, direction), atoms, direction
    )


# ---------------------------------------------------------------------------
# Laplace under Poisson sampling
# ---------------------------------------------------------------------------


def _poisson_laplace_tails(q: Fraction, b: Fraction) -> Callable[[Fraction], Tails]:
    r"""Tails of :math:`P = q\,\mathrm{Lap}(1, b) + (1-q)\mathrm{Lap}(0, b)`, :math:`Q = \mathrm{Lap}(0, b)`.

    The likelihood ratio is :math:`1 - q + q e^{g(x)}` with :math:`g(x) = (|x| - |x-1|)/b`,
    non-decreasing in x: constant :math:`-\beta` on :math:`x \le 0` (the atom
    :math:`\ell_- = \log(1-q+qe^{-\beta})`, masses :math:`P = (qe^{-\beta} + 1 - q)/2`,
    :math:`Q = 1/2`), :math:`(2x-1)/b` on (0, 1), :math:`\beta` on :math:`x \ge 1` (the atom
    :math:`\ell_+ = \log(1-q+qe^\beta)`, masses :math:`P = (q + (1-q)e^{-\beta})/2`,
    :math:`Q = e^{-\beta}/2`).  For :math:`\ell_- < t < \ell_+`, :math:`L > t \iff x > x_t =
    (1 + b \log((e^t - 1 + q)/q))/2 \in (0, 1)`, and
    :math:`\mathrm{Lap}(0,b)(X > x_t) = e^{-x_t/b}/2`, :math:`\mathrm{Lap}(1,b)(X \le x_t) = e^{(x_t-1)/b}/2`.
    """
    qa_f, b_f = q, b

    def tails(t: Fraction) -> Tails:
        qa, ba = _q(qa_f), _q(b_f)
        one, zero, half = arb(1), arb(0), arb(1) / 2
        em = (-1 / ba).exp()  # e^{-beta}
        lo = (1 - qa + qa * em).log()
        hi = (1 - qa + qa / em).log()
        ta = _q(t)
        p_lo, q_lo = (qa * em + 1 - qa) / 2, half
        p_hi, q_hi = (qa + (1 - qa) * em) / 2, em / 2
        if q == 1:  # plain Laplace: the atoms are at -beta and beta, rational
            below, above = t < -1 / b, t > 1 / b
            at_lo, at_hi = t == -1 / b, t == 1 / b
        else:
            below, above = _decide_lt(ta, lo), _decide_lt(hi, ta)
            at_lo = at_hi = False
            if not below:
                _decide_lt(lo, ta)  # raises while undecided (t = lo is impossible for 0 < q < 1)
            if not above:
                _decide_lt(ta, hi)
        if below:
            return Tails(one, zero, one, zero, zero, zero)
        if above or at_hi:
            if at_hi:
                return Tails(zero, one, zero, one, p_hi, q_hi)
            return Tails(zero, one, zero, one, zero, zero)
        if at_lo:
            return Tails(1 - p_lo, p_lo, 1 - q_lo, q_lo, p_lo, q_lo)
        e = ta.exp()
        xt = (1 + ba * ((e - 1 + qa) / qa).log()) / 2
        lap0_gt = (-xt / ba).exp() / 2
        lap1_le = ((xt - 1) / ba).exp() / 2
        pgt = qa * (1 - lap1_le) + (1 - qa) * lap0_gt
        ple = qa * lap1_le + (1 - qa) * (1 - lap0_gt)
        return Tails(pgt, ple, lap0_gt, 1 - lap0_gt, zero, zero)

    return tails


def poisson_laplace_profile(q: Fraction, scale: Fraction, direction: str) -> Profile:
    r"""Poisson sampling (probability q) of the Laplace mechanism with scale b, add/remove:
    remove :math:`(q\,\mathrm{Lap}(1,b) + (1-q)\mathrm{Lap}(0,b),\ \mathrm{Lap}(0,b))`, add the swapped pair."""
    if not 0 < q <= 1 or scale <= 0:
        raise ValueError(f"q must be in (0, 1] and the scale > 0. Found q={float(q)!r}, b={float(scale)!r}.")
    fq, fb = float(q), float(scale)
    lo = math.log1p(fq * math.expm1(-1 / fb))
    hi = math.log1p(fq * math.expm1(1 / fb)) if 1 / fb < 700 else math.log(fq) + 1 / fb
    return _profile_from_tails(
        f"poisson-laplace(q={q}, b={scale}, {direction})",
        ("poisson-laplace", q, scale, direction),
        _poisson_laplace_tails(q, scale),
        direction,
        (_outer(lo, False), _outer(hi, True)),
    )


# ---------------------------------------------------------------------------
# replace-one, Gaussian noise, records in a ball (Poisson or fixed-size without replacement)
# ---------------------------------------------------------------------------


def _poisson_gaussian_tails(q: Fraction, sigma: Fraction) -> Callable[[Fraction], Tails]:
    r"""Tails at t >= 0 of :math:`(qN(1,s^2) + (1-q)N(0,s^2), N(0,s^2))`: :math:`L > t \iff X > x_t =
    s^2 \log((e^t - 1 + q)/q) + 1/2` (the likelihood ratio is increasing; no atoms)."""

    def tails(t: Fraction) -> Tails:
        if t < 0:  # pragma: no cover - the symmetrised profile asks for t >= 0 only
            raise ValueError("the replace-one tails are used at t >= 0 only")
        qa, sa = _q(q), _q(sigma)
        e = _q(t).exp()
        xt = sa * sa * ((e - 1 + qa) / qa).log() + arb(1) / 2
        s1, c1 = _sf_cdf((xt - 1) / sa)
        s0, c0 = _sf_cdf(xt / sa)
        zero = arb(0)
        return Tails(qa * s1 + (1 - qa) * s0, qa * c1 + (1 - qa) * c0, s0, c0, zero, zero)

    return tails


def replace_one_gaussian_profile(q: Fraction, sigma: Fraction) -> Profile:
    r"""The replace-one dominating pair of Poisson or fixed-size (without replacement)
    sampling with probability / fraction q of the Gaussian mechanism with noise multiplier
    ``sigma`` on records in a ball of radius C (noise :math:`\sigma C`): the symmetrisation of
    the Poisson remove pair with noise :math:`s = \sigma/2` (module docstring).

    For q = 1 this is the Gaussian pair with noise :math:`\sigma/2` (symmetric already)."""
    if not 0 < q <= 1 or sigma <= 0:
        raise ValueError(f"q must be in (0, 1] and sigma > 0. Found q={float(q)!r}, sigma={float(sigma)!r}.")
    s = sigma / 2
    if q == 1:
        return poisson_gaussian_profile(Fraction(1), s, "remove")
    rem = poisson_gaussian_profile(q, s, "remove")
    add = poisson_gaussian_profile(q, s, "add")
    base = _profile_from_tails(
        f"replace-one-gaussian(q={q}, sigma={sigma})",
        ("replace-one-gaussian", q, sigma),
        _poisson_gaussian_tails(q, s),
        "symmetric",
        (None, None),
    )

    # float screens: V = max(remove, add) pointwise (choices only)
    def sd(eps: float) -> float:
        return max(rem.screen_delta(eps), add.screen_delta(eps))

    def sl(eps: float) -> float:
        return max(rem.screen_dlow(eps), add.screen_dlow(eps))

    def arrays(eps):
        import numpy as np

        rd, rl = rem.screen_arrays(eps)  # type: ignore[misc]
        ad, al = add.screen_arrays(eps)  # type: ignore[misc]
        return np.maximum(rd, ad), np.maximum(rl, al)

    return Profile(base.name, base.oracle, base.support, sd, sl, base.key, arrays, base.kinks)


def attained_replace_one(q: Fraction, s: Fraction) -> tuple[Profile, Profile]:
    r"""The output pair of one fixed pair of replace-one neighbours and its swap (remove, add):
    the Poisson pair :math:`(qN(1, s^2) + (1-q)N(0, s^2), N(0, s^2))`.  Poisson sampling with
    noise multiplier :math:`\sigma` attains it with :math:`s = \sigma` (D = {C e_1, 0, ..., 0},
    D' = {0, ..., 0}), fixed-size sampling without replacement of B out of N with
    :math:`s = \sigma/2`, q = B/N (D = {a, -a, ..., -a}, D' = {-a, ..., -a}, |a| = C: the batch
    sums differ by 2a exactly when a is drawn; shift by Ba and scale by 1/(2C)).  The other
    coordinates carry the same independent noise under both, so they do not change the
    divergence.  Composed over steps on the same datasets, its epsilon is a LOWER bound of the
    mechanism's (``proofs/verify_attained_pairs.py``)."""
    return poisson_gaussian_profile(q, s, "remove"), poisson_gaussian_profile(q, s, "add")
