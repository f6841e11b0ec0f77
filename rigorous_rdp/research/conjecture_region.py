r"""Conjecture 1 proven over an *interval* of sigma at once (range model, d = 1): one branch and bound
over the dataset values and :math:`t = 1/\sigma`.

**Setting** as in :mod:`rigorous_rdp.research.conjecture_proof` (``n`` rows, batch ``m``, integer order
:math:`\lambda`, coordinates :math:`\theta = (x_1..x_{n-1}, u, u') \in [0,1]^{n+1}`, the fundamental
domain ``F``), now with :math:`\sigma` in an interval :math:`[\sigma_0, \sigma_1]`, i.e.
:math:`t = 1/\sigma \in [t_0, t_1] = [1/\sigma_1, 1/\sigma_0]`.  The claim proven is

.. math:: G_\sigma(\theta) = \int p^\lambda q^{1-\lambda} \le \mathrm{RHS}(\sigma)
          = G_\lambda(r\mu_1 + (1-r)\mu_0\|\mu_0)
          \quad\text{for every } \theta \in F \text{ and every } \sigma \in [\sigma_0, \sigma_1].

**Scaling (proof).**  Every atom of ``p`` and ``q`` is :math:`N(s, \sigma^2)` with ``s`` a sum of ``m``
coordinates (linear in :math:`\theta`).  Substituting :math:`y = \sigma z`,
:math:`\varphi_\sigma(\sigma z - s) = \varphi_1(z - s/\sigma)/\sigma` and the powers
:math:`\lambda + (1 - \lambda) = 1` leave one factor :math:`1/\sigma` that :math:`dy = \sigma\,dz`
cancels, so :math:`G_\sigma(\theta) = G_1(t\theta)`: every sigma is the case :math:`\sigma = 1` at the
scaled configuration :math:`t\theta`, which lies in :math:`[0,1]^{n+1}` for :math:`t \le 1` (so the tails
of :func:`~rigorous_rdp.research.conjecture_proof.tail_constants` at sigma 1 hold).  For a box ``B`` of
:math:`\theta` and an interval ``T`` of ``t``, every :math:`t\theta` lies in the *scaled box*
:math:`S = \prod_k [\theta_k^{lo} t_0,\ \theta_k^{hi} t_1]` (all coordinates are >= 0).

**The right-hand side is nondecreasing in t (proof).**  For integer :math:`\lambda`,
:math:`\mathrm{RHS} = \sum_j \binom{\lambda}{j} r^j (1-r)^{\lambda-j} e^{j(j-1)t^2/2}` (the finite sum
(9.5) at :math:`\sigma = 1/t`): every term has a positive coefficient and a nondecreasing exponential.

**Per box** ``(B, T)`` (``n + 2`` sides, the last one ``t``), with
:math:`h(\theta, t) = G_1(t\theta) - \mathrm{RHS}(t)` (the claim is :math:`h \le 0`):

* ``"outside"``: ``B`` does not meet ``F`` (the test of :func:`~.conjecture_proof.outside_domain`).
* *Derivatives over the box*: the gradient ``g`` and Hessian ``H`` of :math:`G_1` enclosed over ``S``
  (gradient at the centre of ``S`` plus ``H`` over ``S`` times the half-widths, the mean value
  theorem; ``H`` by :func:`~.conjecture_proof.hessian_box`), and by the chain rule
  :math:`\partial_{\theta_k} h = t\,g_k(t\theta)`, :math:`\partial_t h = \sum_k \theta_k g_k(t\theta) -
  \mathrm{RHS}'(t)`, :math:`\partial_{\theta_j\theta_k} h = t^2 H_{jk}`, :math:`\partial_{\theta_k t} h =
  g_k + t\sum_j \theta_j H_{kj}`, :math:`\partial_{tt} h = \sum_{jk}\theta_j\theta_k H_{jk} -
  \mathrm{RHS}''(t)`, all evaluated with ``theta`` and ``t`` ranging over the box (:func:`rhs_series`
  gives :math:`\mathrm{RHS}', \mathrm{RHS}''` in closed form).
* ``"extremal"``: ``B`` contains the extremal configuration :math:`\theta^* = (0..0,\ u = 1,\ u' = 0)`
  and the signs of ``g`` on ``S`` select it (negative in every :math:`x_i` and in :math:`u'`, positive
  in ``u``).  For each fixed ``t`` in ``T``, :math:`\theta \mapsto G_1(t\theta)` is then monotone in
  every coordinate on ``B`` (a product set), so its supremum is :math:`G_1(t\theta^*)`, which *equals*
  :math:`\mathrm{RHS}(t)` (:math:`q = \mu_0` and :math:`p = (1-r)\mu_0 + r\mu_1` at distance ``t``, i.e.
  distance 1 at scale sigma).
* ``"monotone"`` / ``"taylor"``: sides whose derivative of ``h`` has a certified sign on the box are
  fixed at the end it selects (the supremum over the box is attained on that face); on the face, with
  ``c`` its centre and ``J`` the unsigned sides, :math:`h \le h(c) + \sum_J |\partial_k h(c)|\,w_k/2 +
  \tfrac12\sum_{J\times J} |\partial_{jk} h|\,w_jw_k/4` (Taylor with Lagrange remainder; ``h(c)`` from
  :func:`~.conjecture_proof.g_point` at :math:`t_c\theta_c` and the RHS sum).  Proven when this is
  :math:`\le 0`.
* else the box is bisected at the midpoint of the side with the largest Taylor cost (the score of
  :func:`~.conjecture_proof.box_bounds`; a heuristic, any choice is sound).

*Derivative enclosures (prover side)*: the gradient of :math:`G_1` over ``S`` comes from the same
factored pass as the Hessian (:func:`~.conjecture_proof.hessian_and_gradient_box`); the mean-value form
around the centre of ``S`` (a point gradient at :data:`REGION_GRAD_BITS`) is computed, and intersected
with it, only when a sign of the derivatives of ``h`` is left open.  On a face, the first-order terms
use the box enclosure of the derivatives of ``h`` first (the face centre lies in the box) and point
gradients only when that does not prove the box.  Both are enclosures of the same numbers, so either
choice, and their intersection, is sound.

*Faces* (``faces=True``, the CLI default): for each sigma the translation reduction of
:func:`~.conjecture_proof.min_zero_faces` holds for :math:`G_\sigma`, so the boxes need only tile
:math:`(\{x_1 = 0\} \cup \{u' = 0\}) \times [t_0, t_1]`, one side fewer; a face side is the point
``[0, 0]`` and is never split nor given a Taylor term (its width is 0).  n = 2, m = 1, lambda = 2,
sigma in [1, 4]: 335 + 10 boxes and 30 CPU s against 670 + 46 boxes and 61 CPU s over the cube.

The boxes then tile :math:`[0,1]^{n+1} \times [t_0, t_1]` (or the two faces) by midpoint bisection;
:func:`rigorous_rdp.research.conjecture_certificate.make_region_certificate` writes them and
``rigorous-rdp verify`` re-proves every box with the independent enclosures of
:mod:`rigorous_rdp.reference.conjecture_boxes`.

**Without a t side** (:func:`prove_region_scaled`, the default of ``conjecture --prove --sigma-range``):
with :math:`\varphi = t\theta` the same claim reads :math:`G_1(\varphi) \le \mathrm{RHS}(\max(t_0,
\max_k\varphi_k))` over the two faces of :math:`[0, t_1]^{n+1}` (proof of the equivalence there), a sigma-1
style proof over ``n + 1`` sides with a right-hand side per box and a rule for the extremal ray
:math:`(0..0, u = s, u' = 0)`, where :math:`G_1 = \mathrm{RHS}(s)`; certificate kind
``holds-region-scaled``.  n = 2, m = 1, lambda = 2, sigma in [1, 4]: 99 + 6 boxes, 5.8 CPU s, against
335 + 10 boxes, 26 CPU s for the faces with a t side.

**What a real order (a lambda side) needs** (built at a fixed sigma in
:mod:`~rigorous_rdp.research.conjecture_lambda`, certificate kind ``holds-boxes-order-interval``; combined
with an interval of sigma: not implemented).  A box gets a side
:math:`\Lambda = [\lambda_0, \lambda_1]` and the claim :math:`h(\theta, t, \lambda) = G_{1,\lambda}(t\theta) -
\mathrm{RHS}_\lambda(t) \le 0`.

* *The integrand* :math:`p\,(p/q)^{\lambda-1} = p\,e^{(\lambda-1)\log R}` with a ball exponent: every
  place where the prover and the verifier use integer polynomials in :math:`R = p/q` (the sums
  :math:`S_0, S_1, S_2` of :func:`~.conjecture_proof._shifted_poly_sums`, :math:`R^{\lambda-2}`, the
  compensated Hessian) needs the analytic forms, e.g. :math:`(R^\lambda - 1)/(R - 1)` as
  :math:`\lambda\int_0^1 R_s^{\lambda-1}ds` along :math:`R_s = 1 + s(R - 1)`, enclosed for ``R`` in a
  ball away from 0 (``q > 0`` on every cell: the factored atoms keep positive lower ends).
  ``acb.integral`` needs the principal branch of :math:`\log R`, analytic where ``R`` avoids the
  negative real axis: true on the real line, and the check is the same as ``q != 0`` today.
* *Derivatives in lambda*: :math:`\partial_\lambda G = \int p\,R^{\lambda-1}\log R` and
  :math:`\partial_{\lambda\lambda} G = \int p R^{\lambda-1}\log^2 R \ge 0` (so ``G`` is convex in lambda and
  its supremum over :math:`\Lambda` at fixed :math:`(\theta, t)` is at an end, but ``h`` subtracts a
  convex RHS, so that does not settle ``h``), mixed :math:`\partial_{\lambda\theta_k}` likewise with
  :math:`\log R` factors; the tails need :math:`|\log R| \le` a bound linear in :math:`|y|` (true:
  :math:`|\log(p/q)| \le m(|y| + m)/\sigma^2`: ``p`` and ``q`` pair their atoms by subset, and
  each pair's ratio is :math:`e^{(s - s')(2y - s - s')/(2\sigma^2)}` with :math:`s, s' \in [0, m]`), so the Gaussian majorants
  pick up one more power of :math:`|y|` per derivative.
* *The RHS at a real order*: no finite sum; :math:`\mathrm{RHS}_\lambda(t) = E[(1 - r + r e^{tZ -
  t^2/2})^\lambda]`, :math:`Z \sim N(0,1)`, a one-dimensional integral with its own certified
  quadrature and tails, together with :math:`\partial_t`, :math:`\partial_\lambda` and second derivatives.
  It stays nondecreasing in ``t`` (the bracket is a positive martingale in :math:`t^2` and
  :math:`x^\lambda` is convex for :math:`\lambda \ge 1`) and in lambda (Jensen: :math:`E[X] = 1`), so
  :math:`\mathrm{RHS}_{\lambda_0}(t_0)` is a lower bound on a box.
* *The extremal rule* carries over unchanged: at :math:`\theta^*` both sides are the same integral
  for every :math:`(t, \lambda)`, so a box holding :math:`\theta^*` closes by the signs of
  :math:`\partial_\theta G_{1,\lambda}` over :math:`S \times \Lambda`.
* *The verifier* (:mod:`rigorous_rdp.reference.conjecture_boxes`) needs the same real-order forms
  written out again independently, and the certificate a lambda side (a new kind or a new field).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from ..arith import decimal_lower, decimal_upper, to_arb, workprec
from .conjecture_proof import (
    PREC,
    Leaves,
    ProofCase,
    _g_point_adaptive,
    _meet,
    _pack,
    _unpack,
    box_json,
    grad_point,
    hessian_and_gradient_box,
    min_zero_faces,
    outside_domain,
    proven_leaves_json,
)

__all__ = [
    "RegionCase",
    "RegionResult",
    "prove_region",
    "prove_region_scaled",
    "region_scaled_to_json",
    "region_to_json",
    "scaled_box",
    "scaled_box_bounds",
]

Box = list[tuple[Fraction, Fraction]]

#: the sigma range that region proofs accept (sigma <= 1 would scale the values out of [0, 1])
SIGMA_MIN, SIGMA_MAX = Fraction(1), Fraction(64)


@dataclass(frozen=True)
class RegionCase:
    r"""``n`` rows, batch ``m``, integer order ``lam`` in [2, 16], sigma in ``[sigma_lo, sigma_hi]``
    (exact rationals, :math:`1 \le \sigma_{lo} < \sigma_{hi} \le 64`)."""

    n: int
    m: int
    lam: int
    sigma_lo: Fraction
    sigma_hi: Fraction

    def __post_init__(self) -> None:
        ProofCase(self.n, self.m, self.lam, Fraction(1))  # the checks of n, m and lambda
        if not SIGMA_MIN <= self.sigma_lo < self.sigma_hi <= SIGMA_MAX:
            raise ValueError(
                f"the sigma range must satisfy 1 <= low < high <= 64. Found [{self.sigma_lo}, {self.sigma_hi}]."
            )

    @property
    def base(self) -> ProofCase:
        """The case at sigma 1 that every sigma is scaled to."""
        return ProofCase(self.n, self.m, self.lam, Fraction(1))

    @property
    def t_range(self) -> tuple[Fraction, Fraction]:
        return 1 / self.sigma_hi, 1 / self.sigma_lo

    @property
    def dim(self) -> int:
        """Sides of a box: x_1..x_{n-1}, u, u', t."""
        return self.n + 2


def scaled_box(box: Sequence[tuple[Fraction, Fraction]]) -> Box:
    """``S``: the box of sigma-1 configurations :math:`t\\theta` (the last side of ``box`` is ``t``)."""
    t0, t1 = box[-1]
    return [(lo * t0, hi * t1) for lo, hi in box[:-1]]


def contains_extremal(n: int, box: Sequence[tuple[Fraction, Fraction]]) -> bool:
    """True when the theta part of ``box`` contains (0..0, u = 1, u' = 0)."""
    k = n - 1
    return all(box[i][0] == 0 for i in range(k)) and box[k][1] == 1 and box[k + 1][0] == 0


def extremal_signs(n: int) -> list[int]:
    """The derivative signs that select (0..0, 1, 0): -1 in every x_i and in u', +1 in u."""
    return [-1] * (n - 1) + [1, -1]


def rhs_series(n: int, m: int, lam: int, t: arb) -> tuple[arb, arb, arb]:
    r"""Enclosures of :math:`\mathrm{RHS}`, :math:`d\,\mathrm{RHS}/dt` and :math:`d^2\mathrm{RHS}/dt^2` for
    every ``t`` in the ball: :math:`\mathrm{RHS}(t) = \sum_j c_j e^{a_j t^2}` with
    :math:`c_j = \binom{\lambda}{j} r^j (1-r)^{\lambda-j}`, :math:`a_j = j(j-1)/2`, so the derivatives
    are :math:`\sum_j c_j\,2a_j t\,e^{a_j t^2}` and :math:`\sum_j c_j (2a_j + 4a_j^2t^2) e^{a_j t^2}`."""
    r = arb(m) / n
    v, d1, d2 = arb(0), arb(0), arb(0)
    for j in range(lam + 1):
        c = math.comb(lam, j) * r**j * (1 - r) ** (lam - j)
        a = arb(j * (j - 1)) / 2
        e = (a * t * t).exp()
        v += c * e
        d1 += c * 2 * a * t * e
        d2 += c * (2 * a + 4 * a * a * t * t) * e
    return v, d1, d2


@functools.lru_cache(maxsize=4096)
def rhs_at(n: int, m: int, lam: int, t: Fraction) -> arb:
    """Certified enclosure of the RHS at sigma = 1/t."""
    with workprec(PREC):
        return rhs_series(n, m, lam, to_arb(t))[0]


def _absmax(x: arb) -> arb:
    return arb(max(abs(x.lower()), abs(x.upper())))


def region_box_bounds(rc: RegionCase, box: Sequence[tuple[Fraction, Fraction]]) -> dict[str, Any]:
    r"""Try to prove :math:`h(\theta, t) = G_1(t\theta) - \mathrm{RHS}(t) \le 0` on one box ``(B, T)``
    (module docstring).  Returns ``proven``, ``method`` (extremal | monotone | taylor), ``upper`` (arb
    upper bound of ``h`` on the box, None for extremal), ``signs`` (per side, ``t`` last), ``point``
    (the vertex or the centre of the face, in the coordinates ``(theta, t)``), ``split`` and, for a box
    far from proven, ``then_split`` (sides to bisect its halves at without evaluating them)."""
    base = rc.base
    n, dim = rc.n, rc.dim
    S = scaled_box(box)
    with workprec(PREC):
        # the Hessian and the gradient of G_1 over S from one factored pass; the gradient is intersected
        # with the mean-value form around the centre of S only when the box enclosure leaves a sign of h
        # open (both are enclosures of the same numbers, so is their intersection)
        H, gS = hessian_and_gradient_box(base, S)
        th = [to_arb(lo).union(to_arb(hi)) for lo, hi in box[:-1]]
        tb = to_arb(box[-1][0]).union(to_arb(box[-1][1]))
        _, r1, r2 = rhs_series(rc.n, rc.m, rc.lam, tb)

        def first(gb: list[arb]) -> list[arb]:
            # first derivatives of h over the box: t g_k(t theta) and sum_k theta_k g_k(t theta) - RHS'(t)
            return [tb * gb[k] for k in range(n + 1)] + [sum((th[k] * gb[k] for k in range(n + 1)), arb(0)) - r1]

        gb = gS
        dbox = first(gb)
        if not all(d > 0 or d < 0 for d in dbox):
            cS = [(lo + hi) / 2 for lo, hi in S]
            hS = [arb(0, to_arb((hi - lo) / 2).upper()) for lo, hi in S]
            gc = grad_point(base, cS, rel_bits=REGION_GRAD_BITS)
            mv = [gc[k] + sum((H[k][j] * hS[j] for j in range(n + 1)), arb(0)) for k in range(n + 1)]
            gb = [_meet(gS[k], mv[k]) for k in range(n + 1)]
            dbox = first(gb)
        # second derivatives over the box
        hh = [[arb(0)] * dim for _ in range(dim)]
        for j in range(n + 1):
            for k in range(n + 1):
                hh[j][k] = tb * tb * H[j][k]
            hh[j][n + 1] = hh[n + 1][j] = gb[j] + tb * sum((th[i] * H[j][i] for i in range(n + 1)), arb(0))
        hh[n + 1][n + 1] = sum((th[j] * th[k] * H[j][k] for j in range(n + 1) for k in range(n + 1)), arb(0)) - r2
        signs = [1 if d > 0 else -1 if d < 0 else 0 for d in dbox]
        half = [to_arb((hi - lo) / 2) for lo, hi in box]
        free = [k for k in range(dim) if signs[k] == 0 and box[k][0] < box[k][1]]
        face = [hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(box, signs, strict=True)]
        scores = _split_scores(box, hh, dbox, free)
        split = max(range(dim), key=lambda j: scores[j]) if all(map(math.isfinite, scores)) else _widest(box)
        theta_free = [k for k in free if k < n + 1]
        if not theta_free and contains_extremal(n, box) and signs[: n + 1] == extremal_signs(n):
            # for every t: sup over B of G_1(t theta) = G_1(t theta*) = RHS(t)
            return {"proven": True, "method": "extremal", "upper": None, "signs": signs, "point": None}
        tf = face[-1]
        tfa = to_arb(tf)
        phi = [tf * x for x in face[:-1]]
        rhs_lower = arb(rhs_at(rc.n, rc.m, rc.lam, tf).lower())
        t2 = arb(0)
        for k in free:
            for j in free:
                t2 += _absmax(hh[j][k]) * half[j] * half[k] / 2
        t1 = arb(0)
        if free:
            # first-order terms at the face centre: from the box enclosure of the derivatives first (the
            # face centre lies in the box), point values only if that does not prove the box
            t1 = sum((_absmax(dbox[k]) * half[k] for k in free), arb(0))
            gv = _g_point_adaptive(base, phi, rhs_lower, slack=t1 + t2)
            if not arb(gv.upper()) + t1 + t2 <= rhs_lower:
                want = list(range(n + 1)) if n + 1 in free else theta_free
                gf = grad_point(base, phi, rel_bits=REGION_GRAD_BITS, coords=want)
                dface = [tfa * gf[k] if k in want else arb.nan() for k in range(n + 1)]
                if n + 1 in free:
                    _, r1f, _ = rhs_series(rc.n, rc.m, rc.lam, tfa)
                    dface.append(sum((to_arb(face[k]) * gf[k] for k in range(n + 1)), arb(0)) - r1f)
                t1p = sum((_absmax(dface[k]) * half[k] for k in free), arb(0))
                if t1p < t1:
                    t1 = t1p
                    gv = _g_point_adaptive(base, phi, rhs_lower, slack=t1 + t2)
        else:
            gv = _g_point_adaptive(base, phi, rhs_lower)
        up = arb((arb(gv.upper()) - rhs_lower + t1 + t2).upper())
        out: dict[str, Any] = {
            "proven": bool(up <= 0),
            "method": "monotone" if all(signs) else "taylor",
            "upper": up,
            "signs": signs,
            "point": face,
            "split": split,
        }
        terms = t1 + t2
        if not out["proven"] and free and all(map(math.isfinite, scores)) and up > REGION_HOPELESS * terms:
            # as in conjecture_proof.box_bounds: the Taylor terms would have to shrink by more than one
            # bisection can do, so the halves are bisected again at once (a heuristic; every leaf is
            # still evaluated and proven on its own)
            rest = list(scores)
            rest[split] /= 2
            out["then_split"] = (max(range(dim), key=lambda j: rest[j]),)
        return out


#: share of a failed box's Taylor terms beyond which its halves are bisected without evaluation (a
#: heuristic, any choice is sound; 2: only when the centre value alone exceeds the RHS by the terms)
REGION_HOPELESS = 2.0
#: relative and absolute tolerance (bits) of the point gradients: the derivatives of h scale like t^2
#: (down to 1/64 at sigma 4) and the absolute tolerance of 2^-12 of the point prover left 88 boxes
#: where 2^-20 left 60 (n = 2, m = 1, lambda = 2, sigma in [3, 4]); 2^-28 left 60 too, at more cost
REGION_GRAD_BITS = 20


def _split_scores(
    box: Sequence[tuple[Fraction, Fraction]], hh: list[list[arb]], dbox: list[arb], free: list[int]
) -> list[float]:
    """Per side, what its width costs: the Taylor terms of the unsigned sides and the uncertainty that
    its width puts on the derivatives of the unsigned sides (a heuristic; any choice is sound)."""
    scores = []
    for j in range(len(box)):
        wj = float(box[j][1] - box[j][0])
        sc = wj * sum(float(_absmax(hh[k][j]).mid()) for k in free)
        if j in free:
            sc += float(_absmax(dbox[j]).mid()) * wj
        scores.append(sc)
    return scores


def _halves(box: Box, k: int, depth: int, then: tuple[int, ...]) -> list[tuple[Box, int, tuple[int, ...]]]:
    """The two halves of ``box`` at side ``k``, right then left (the stack pops the left one first)."""
    lo, hi = box[k]
    mid = (lo + hi) / 2
    left, right = list(box), list(box)
    left[k] = (lo, mid)
    right[k] = (mid, hi)
    return [(right, depth + 1, then), (left, depth + 1, then)]


def _widest(box: Sequence[tuple[Fraction, Fraction]]) -> int:
    return max(range(len(box)), key=lambda k: box[k][1] - box[k][0])


@dataclass
class RegionResult(Leaves):
    """Leaves of :func:`prove_region` and what was proven on each."""

    case: RegionCase
    #: True when the boxes tile the two faces x_1 = 0 and u' = 0 (times the t interval)
    faces: bool = False
    #: True for :func:`prove_region_scaled` (boxes of phi = t theta, no t side)
    scaled: bool = False

    def summary(self) -> dict[str, Any]:
        methods: dict[str, int] = {}
        for b in self.proven:
            methods[b["method"]] = methods.get(b["method"], 0) + 1
        rc = self.case
        t0, t1 = rc.t_range
        lo_rhs, hi_rhs = rhs_at(rc.n, rc.m, rc.lam, t0), rhs_at(rc.n, rc.m, rc.lam, t1)
        return {
            "n": rc.n,
            "m": rc.m,
            "r": str(Fraction(rc.m, rc.n)),
            "lambda": rc.lam,
            "sigma": [str(rc.sigma_lo), str(rc.sigma_hi)],
            "proven": self.complete,
            "boxes_proven": len(self.proven),
            "boxes_outside": len(self.outside),
            "boxes_open": len(self.open),
            "methods": methods,
            "rhs_g_range": {"lower": decimal_lower(lo_rhs, 15), "upper": decimal_upper(hi_rhs, 15)},
            "seconds": round(self.seconds, 2),
        }


def prove_region(
    rc: RegionCase, *, max_depth: int = 48, max_boxes: int = 50000, progress: bool = False, faces: bool = False
) -> RegionResult:
    """Branch and bound over :math:`[0,1]^{n+1} \\times [t_0, t_1]` (module docstring); leaves in
    depth-first order.  Boxes deeper than ``max_depth`` or left after ``max_boxes`` are open.

    ``faces``: over the two faces :math:`\\{x_1 = 0\\}` and :math:`\\{u' = 0\\}` (times the ``t``
    interval) instead: for each sigma the translation reduction of
    :func:`~rigorous_rdp.research.conjecture_proof.min_zero_faces` applies to :math:`G_\\sigma`, so the
    same statement with one side fewer per box."""
    t_start = time.perf_counter()
    res = RegionResult(rc, faces=faces)
    cube: list[Box] = [[(Fraction(0), Fraction(1))] * (rc.n + 1)]
    starts = [[*f, rc.t_range] for f in (min_zero_faces(rc.n + 1) if faces else cube)]
    stack: list[tuple[Box, int, tuple[int, ...]]] = [(start, 0, ()) for start in reversed(starts)]
    from .. import progress as _progress

    bar_cm = (
        _progress.task(
            f"region proof n={rc.n} m={rc.m} lambda={rc.lam} sigma in [{rc.sigma_lo}, {rc.sigma_hi}]", None, "boxes"
        )
        if progress
        else None
    )
    bar = bar_cm.__enter__() if bar_cm is not None else None
    processed = 0
    try:
        while stack:
            box, depth, forced = stack.pop()
            processed += 1
            if bar is not None:
                bar.update(1, note=f"{len(stack)} pending (branch and bound: no ETA)")
            if outside_domain(rc.base, box[:-1]):
                res.outside.append(box)
                continue
            if processed > max_boxes:
                res.open.append({"box": box, "upper": None, "depth": depth})
                continue
            if forced and depth < max_depth:
                # a half of a box far from proven: bisected again without evaluation
                stack += _halves(box, forced[0], depth, forced[1:])
                continue
            b = region_box_bounds(rc, box)
            if b["proven"]:
                res.proven.append({"box": box, **{k: v for k, v in b.items() if k != "then_split"}})
                continue
            if depth >= max_depth:
                res.open.append({"box": box, "upper": b["upper"], "depth": depth})
                continue
            stack += _halves(box, b["split"], depth, b.get("then_split", ()))
    finally:
        if bar_cm is not None:
            bar_cm.__exit__(None, None, None)
    res.seconds = time.perf_counter() - t_start
    return res


def _case_json(rc: RegionCase) -> dict[str, Any]:
    """The ``case`` object of a region certificate (either kind)."""
    r = str(Fraction(rc.m, rc.n))
    return {
        "model": "range",
        "d": 1,
        "n": rc.n,
        "m": rc.m,
        "r": r,
        "lambda": rc.lam,
        "sigma": [str(rc.sigma_lo), str(rc.sigma_hi)],
    }


def region_to_json(res: RegionResult) -> dict[str, Any]:
    """The leaves as JSON: per proven box ``[[lo, hi] per side (t last), method, upper (decimal or
    null), point (in the coordinates of the scaled box, or null), signs]``."""

    rc = res.case
    proven = proven_leaves_json(res.proven)
    return {
        "case": _case_json(rc),
        "coordinates": [f"x_{i + 1}" for i in range(rc.n - 1)] + ["u", "u_prime", "t"],
        **({"faces": [box_json([*f, rc.t_range]) for f in min_zero_faces(rc.n + 1)]} if res.faces else {}),
        "boxes": proven,
        "outside": [box_json(b) for b in res.outside],
        "open": [[box_json(b["box"]), None if b["upper"] is None else decimal_upper(b["upper"], 15)] for b in res.open],
        "summary": res.summary(),
    }


# ---------------------------------------------------------------------------------------------------
# the scaled region proof: no t side (phi = t theta)
# ---------------------------------------------------------------------------------------------------


def scaled_faces(n: int, t1: Fraction) -> list[Box]:
    r"""The faces :math:`\{x_1 = 0\}` and :math:`\{u' = 0\}` of :math:`[0, t_1]^{n+1}` (the domain of
    :math:`\varphi` in :func:`prove_region_scaled`)."""
    z, side = (Fraction(0), Fraction(0)), (Fraction(0), t1)
    return [[z] + [side] * n, [side] * n + [z]]


def touches_ray(n: int, box: Sequence[tuple[Fraction, Fraction]]) -> bool:
    r"""True when ``box`` (sides x_1..x_{n-1}, u, u') has lower end 0 in every :math:`x_i` and in ``u'``:
    it meets the extremal ray :math:`\{(0..0, u = s, u' = 0)\}` (for the ``s`` of its ``u`` side)."""
    return all(box[i][0] == 0 for i in range(n - 1)) and box[n][0] == 0


def ray_signs_hold(n: int, box: Sequence[tuple[Fraction, Fraction]], signs: Sequence[int]) -> bool:
    """The ray rule's condition: every x_i and u' side is the point 0 or has the certified sign -1."""
    return touches_ray(n, box) and all(box[k] == (0, 0) or signs[k] == -1 for k in [*range(n - 1), n])


def box_rhs_t(rc: RegionCase, box: Sequence[tuple[Fraction, Fraction]]) -> Fraction:
    r"""The ``t`` whose RHS bounds a box of :math:`\varphi` from below: :math:`\max(t_0, \max_k lo_k)`
    (every :math:`\varphi` of the box has :math:`\max(t_0, \max_k \varphi_k) \ge` it, and the RHS is
    nondecreasing in ``t``)."""
    return max(rc.t_range[0], max(lo for lo, _ in box))


def rhs_choice(rc: RegionCase, box: Sequence[tuple[Fraction, Fraction]]) -> tuple[int | None, Fraction]:
    r"""Which lower bound of :math:`\mathrm{RHS}(\max(t_0, \max_k\varphi_k))` a box of :math:`\varphi` is
    proven against: ``(j, lo_j)`` when the largest lower end is at side ``j`` (``u`` on ties) and
    :math:`lo_j \ge t_0`: the function :math:`\mathrm{RHS}(\varphi_j)` (on the box :math:`\varphi_j \ge t_0`,
    so :math:`\max(t_0, \max\varphi) \ge \varphi_j`); else ``(None, s)``: the constant
    :math:`\mathrm{RHS}(s)`, :math:`s = \max(t_0, \max_k lo_k)` (:func:`box_rhs_t`).  Both are valid for every
    choice (the RHS is nondecreasing in ``t``); the rule only decides which is tighter."""
    n = rc.n
    j = max(range(n + 1), key=lambda k: (box[k][0], k == n - 1))
    if box[j][0] >= rc.t_range[0]:
        return j, box[j][0]
    return None, box_rhs_t(rc, box)


def scaled_box_bounds(rc: RegionCase, box: Sequence[tuple[Fraction, Fraction]]) -> dict[str, Any]:
    r"""Try to prove :math:`G_1(\varphi) \le \mathrm{RHS}(\max(t_0, \max_k\varphi_k))` for every
    :math:`\varphi` in ``box`` (:func:`prove_region_scaled`) through :math:`h = G_1 - R` with ``R`` the
    lower bound of :func:`rhs_choice`: the constant :math:`\mathrm{RHS}(s)`, or :math:`\mathrm{RHS}(\varphi_j)`
    (then :math:`\partial_j h = \partial_j G_1 - \mathrm{RHS}'(\varphi_j)`, :math:`\partial_{jj} h =
    \partial_{jj}G_1 - \mathrm{RHS}''(\varphi_j)`, the other derivatives those of :math:`G_1`).  The gradient
    and Hessian of :math:`G_1` over the box from one factored pass (the mean-value form about the centre
    intersected when a sign is left open); a box touching the extremal ray whose signs of
    :math:`\partial G_1` in every :math:`x_i` and ``u'`` are negative is proven by the ray rule (``"ray"``);
    else signed sides go to the end their sign selects and Taylor's formula bounds ``h`` on that face
    (``"monotone"`` without unsigned sides, else ``"taylor"``).  Returns ``proven``, ``method``, ``upper``
    (arb upper bound of ``h`` on the box, None for ray), ``signs`` (of the derivatives of ``h``), ``point``,
    ``rhs`` (``("coordinate", j)`` or ``("t", s)``; None for ray), ``split`` and maybe ``then_split``."""
    base, n, d = rc.base, rc.n, rc.n + 1
    j, s = rhs_choice(rc, box)
    wide = [lo < hi for lo, hi in box]
    with workprec(PREC):
        H, gS = hessian_and_gradient_box(base, box)
        r1 = r2 = arb(0)
        if j is not None:
            _, r1, r2 = rhs_series(n, rc.m, rc.lam, to_arb(box[j][0]).union(to_arb(box[j][1])))

        def first(g: list[arb]) -> list[arb]:
            return [g[k] - r1 if k == j else g[k] for k in range(d)]

        gb, dbox = gS, first(gS)
        centre = [(lo + hi) / 2 for lo, hi in box]
        gc: list[arb] | None = None
        want = [k for k in range(d) if wide[k] and not (dbox[k] > 0 or dbox[k] < 0)]
        if want:
            # the mean-value form about the centre for the coordinates the box enclosure leaves unsigned
            hw = [arb(0, to_arb((hi - lo) / 2).upper()) for lo, hi in box]
            gc = grad_point(base, centre, rel_bits=REGION_GRAD_BITS, coords=want)
            gb = [_meet(gS[k], gc[k] + sum((H[k][i] * hw[i] for i in range(d)), arb(0))) for k in range(d)]
            dbox = first(gb)
        ray = [*range(n - 1), n]
        if touches_ray(n, box) and all(not wide[k] or gb[k] < 0 for k in ray):
            # G_1(phi) <= G_1(0..0, phi_u, 0) = RHS(phi_u) <= RHS(max(t_0, max_k phi_k)) on the whole box
            sg = [-1 if k in ray and wide[k] else 0 for k in range(d)]
            return {"proven": True, "method": "ray", "upper": None, "signs": sg, "point": None, "rhs": None}
        hh = [list(row) for row in H]
        if j is not None:
            hh[j][j] = H[j][j] - r2
        signs = [(1 if dbox[k] > 0 else -1 if dbox[k] < 0 else 0) if wide[k] else 0 for k in range(d)]
        half = [to_arb((hi - lo) / 2) for lo, hi in box]
        free = [k for k in range(d) if wide[k] and signs[k] == 0]
        face = [hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(box, signs, strict=True)]
        scores = _split_scores(box, hh, dbox, free)
        split = max(range(d), key=lambda k: scores[k]) if all(map(math.isfinite, scores)) else _widest(box)
        r_face = arb(rhs_at(n, rc.m, rc.lam, face[j] if j is not None else s).lower())
        t2 = arb(0)
        for k in free:
            for i in free:
                t2 += _absmax(hh[i][k]) * half[i] * half[k] / 2
        t1 = sum((_absmax(dbox[k]) * half[k] for k in free), arb(0))
        gv = _g_point_adaptive(base, face, r_face, slack=t1 + t2)
        if free and not arb(gv.upper()) + t1 + t2 <= r_face:
            # first-order terms from the gradient at the face centre: first by the mean value theorem
            # from the centre's point gradient (the segment lies in the box; every free coordinate is
            # among those computed there, and on a face through the centre it is that gradient), then
            # from point values at the face when that does not prove the box
            r1f = rhs_series(n, rc.m, rc.lam, to_arb(face[j]))[1] if j in free else arb(0)
            moved = [i for i in range(d) if face[i] != centre[i]]
            if gc is not None:
                gm = [gc[k] + sum((H[k][i] * to_arb(face[i] - centre[i]) for i in moved), arb(0)) for k in free]
                t1m = sum((_absmax(g - r1f if k == j else g) * half[k] for g, k in zip(gm, free, strict=True)), arb(0))
                if t1m < t1:
                    t1 = t1m
            if moved and not arb(gv.upper()) + t1 + t2 <= r_face:
                gf = grad_point(base, face, rel_bits=REGION_GRAD_BITS, coords=free)
                t1p = sum((_absmax(gf[k] - r1f if k == j else gf[k]) * half[k] for k in free), arb(0))
                if t1p < t1:
                    t1 = t1p
            if not arb(gv.upper()) + t1 + t2 <= r_face and arb(gv.mid()) + t1 + t2 < r_face:
                gv = _g_point_adaptive(base, face, r_face, slack=t1 + t2)
        up = arb((arb(gv.upper()) - r_face + t1 + t2).upper())
        out: dict[str, Any] = {
            "proven": bool(up <= 0),
            "method": "taylor" if free else "monotone",
            "upper": up,
            "signs": signs,
            "point": face,
            "rhs": ("t", s) if j is None else ("coordinate", j),
            "split": split,
        }
        terms = t1 + t2
        if not out["proven"] and free and all(map(math.isfinite, scores)) and up > REGION_HOPELESS * terms:
            rest = list(scores)
            rest[split] /= 2
            out["then_split"] = (max(range(d), key=lambda k: rest[k]),)
        return out


def prove_region_scaled(
    rc: RegionCase, *, max_depth: int = 48, max_boxes: int = 50000, progress: bool = False, jobs: int = 1
) -> RegionResult:
    r"""Conjecture 1 for every sigma in :math:`[\sigma_0, \sigma_1]` by a branch and bound over
    :math:`\varphi = t\theta` alone (``n + 1`` sides, one of them the point 0 of a face; no ``t`` side).

    **The claim in phi (proof).**  With :math:`t = 1/\sigma \in [t_0, t_1]` and
    :math:`G_\sigma(\theta) = G_1(t\theta)` (module docstring), the region claim
    (A) :math:`G_1(t\theta) \le \mathrm{RHS}(t)` for every :math:`\theta \in D`, :math:`t \in [t_0, t_1]`,
    where :math:`D = F \cap [0,1]^{n+1} \cap (\{x_1 = 0\} \cup \{u' = 0\})` (the faces of
    :func:`~.conjecture_proof.min_zero_faces`), is equivalent to
    (B) :math:`G_1(\varphi) \le \mathrm{RHS}(\max(t_0, \max_k\varphi_k))` for every
    :math:`\varphi \in D_s = C \cap [0, t_1]^{n+1}`, :math:`C = \{x_1 \le .. \le x_{n-1},\ u \ge u'\}
    \cap (\{x_1 = 0\} \cup \{u' = 0\})`.  The conditions of ``C`` are homogeneous (order relations
    and a coordinate equal to 0), so :math:`t\,C = C` for :math:`t > 0`: ``C`` is a cone.
    (B) => (A): :math:`\varphi = t\theta` lies in ``C`` and in :math:`[0, t]^{n+1} \subset [0, t_1]^{n+1}`,
    so :math:`\max(t_0, \max_k\varphi_k) \le t` and, the RHS being nondecreasing,
    :math:`G_1(t\theta) \le \mathrm{RHS}(\max(t_0, \max\varphi)) \le \mathrm{RHS}(t)`.
    (A) => (B): put :math:`t = \max(t_0, \max_k\varphi_k) \in [t_0, t_1]` and :math:`\theta = \varphi/t`,
    in ``C`` and in :math:`[0, 1]^{n+1}`; (A) at :math:`(\theta, t)` is (B) at :math:`\varphi`.  Nothing is
    lost.  Every :math:`\varphi` lies in :math:`[0, t_1]^{n+1} \subset [0, 1]^{n+1}` (:math:`\sigma_0 \ge 1`),
    where the sigma-1 tails of :func:`~.conjecture_proof.tail_constants` hold.

    **Per box** ``B`` of :math:`\varphi` (tiling the two faces of :math:`[0, t_1]^{n+1}` by midpoint
    bisection; boxes missing ``F`` are ``outside``, the test of :func:`~.conjecture_proof.outside_domain`):
    every :math:`\varphi \in B` has :math:`\max(t_0, \max\varphi) \ge s_B = \max(t_0, \max_k lo_k)`,
    so :math:`\sup_B G_1 \le \mathrm{RHS}(s_B)` suffices; and when :math:`lo_j \ge t_0` for a side ``j``,
    :math:`\max(t_0, \max\varphi) \ge \varphi_j \ge t_0` on ``B``, so :math:`G_1(\varphi) \le
    \mathrm{RHS}(\varphi_j)` on ``B`` suffices too (:func:`rhs_choice` picks the side of the largest lower
    end; :func:`scaled_box_bounds` bounds :math:`h = G_1 - R` by signs and Taylor's formula).  The constant
    alone (the first version) needed boxes whose ``u`` width shrinks with their distance to the extremal
    ray, where :math:`G_1` follows :math:`\mathrm{RHS}(u)`: n = 2, m = 1, lambda = 2, sigma in [3, 4] took
    2709 boxes (70 CPU s) against 23 (1.1 CPU s) with :math:`\mathrm{RHS}(\varphi_u)`.

    **The ray rule**: on the extremal ray :math:`\varphi = s e_u` (other rows and
    ``u'`` at 0, ``u = s``) :math:`q = N(0, 1)` and :math:`p = (1 - r)N(0, 1) + rN(s, 1)` (the subsets
    holding row ``n`` are a share ``m/n = r``), which is the RHS pair at :math:`\sigma = 1/s` scaled by
    ``s``: :math:`G_1(s e_u) = \mathrm{RHS}(s)` exactly, so no constant closes a box along it.  If ``B``
    has lower end 0 in every :math:`x_i` and in ``u'`` and :math:`\partial G_1/\partial x_i < 0`,
    :math:`\partial G_1/\partial u' < 0` on all of ``B`` (certified signs; a side that is the point 0
    needs none), then for :math:`\varphi \in B` the segment lowering those coordinates to 0 stays in ``B``
    (a product set) and :math:`G_1(\varphi) \le G_1(\varphi_u e_u) = \mathrm{RHS}(\varphi_u) \le
    \mathrm{RHS}(\max(t_0, \max_k\varphi_k))` (``"ray"``).

    Leaves in depth-first order; boxes deeper than ``max_depth`` or left after ``max_boxes`` are open.

    ``jobs`` > 1: the boxes of the first :data:`SCALED_FRONTIER` levels are processed here, the subtrees
    below them by ``jobs`` worker processes; what happens to a box depends on the box alone, so the
    leaves (and their order) do not depend on ``jobs`` (``max_boxes`` is then counted per subtree)."""
    t_start = time.perf_counter()
    res = RegionResult(rc, faces=True, scaled=True)
    stack: list[tuple[Box, int, tuple[int, ...]]] = [
        (start, 0, ()) for start in reversed(scaled_faces(rc.n, rc.t_range[1]))
    ]
    from .. import progress as _progress

    bar_cm = (
        _progress.task(
            f"region proof (scaled) n={rc.n} m={rc.m} lambda={rc.lam} sigma in [{rc.sigma_lo}, {rc.sigma_hi}]",
            None,
            "boxes",
        )
        if progress
        else None
    )
    bar = bar_cm.__enter__() if bar_cm is not None else None
    try:
        if jobs <= 1:
            _scaled_loop(rc, stack, res, max_depth, max_boxes, bar)
        else:
            from .parallel import map_ordered

            order = _scaled_loop(rc, stack, res, max_depth, max_boxes, bar, frontier=SCALED_FRONTIER)
            roots = [x for kind, x in order if kind == "root"]
            items = [(rc, root, max_depth, max_boxes) for root in roots]
            subs = iter(map_ordered(_scaled_subtree, items, jobs=jobs, desc="proof subtrees"))
            res.proven, res.outside, res.open = [], [], []
            for kind, x in order:
                if kind == "root":
                    sub = next(subs)
                    res.proven += [_unpack(r) for r in sub["proven"]]
                    res.outside += sub["outside"]
                    res.open += [_unpack(r) for r in sub["open"]]
                else:
                    getattr(res, kind).append(x)
    finally:
        if bar_cm is not None:
            bar_cm.__exit__(None, None, None)
    res.seconds = time.perf_counter() - t_start
    return res


#: levels of the scaled bisection tree processed in the calling process before the subtrees go to workers
SCALED_FRONTIER = 4


def _scaled_loop(
    rc: RegionCase,
    stack: list[tuple[Box, int, tuple[int, ...]]],
    res: RegionResult,
    max_depth: int,
    max_boxes: int,
    bar: Any,
    frontier: int | None = None,
) -> list[tuple[str, Any]]:
    """The depth-first loop of :func:`prove_region_scaled` (fills ``res``).  With ``frontier``, boxes at
    that depth are not processed but listed as ``("root", (box, depth, forced))``; the returned list
    holds every leaf and root in depth-first order (``("proven" | "outside" | "open", record)``)."""
    order: list[tuple[str, Any]] = []

    def leaf(kind: str, x: Any) -> None:
        getattr(res, kind).append(x)
        order.append((kind, x))

    processed = 0
    while stack:
        box, depth, forced = stack.pop()
        processed += 1
        if bar is not None:
            bar.update(1, note=f"{len(stack)} pending (branch and bound: no ETA)")
        if frontier is not None and depth >= frontier:
            order.append(("root", (box, depth, forced)))
            continue
        if outside_domain(rc.base, box):
            leaf("outside", box)
            continue
        if processed > max_boxes:
            leaf("open", {"box": box, "upper": None, "depth": depth})
            continue
        if forced and depth < max_depth:
            stack += _halves(box, forced[0], depth, forced[1:])
            continue
        b = scaled_box_bounds(rc, box)
        if b["proven"]:
            leaf("proven", {"box": box, **{k: v for k, v in b.items() if k not in ("then_split", "split")}})
            continue
        if depth >= max_depth:
            leaf("open", {"box": box, "upper": b["upper"], "depth": depth})
            continue
        stack += _halves(box, b["split"], depth, tuple(b.get("then_split") or ()))
    return order


def _scaled_subtree(item: tuple[Any, ...]) -> dict[str, list[Any]]:
    """Worker of :func:`prove_region_scaled`: the depth-first loop below one root (bounds packed as exact
    rationals: arb balls do not pickle)."""
    rc, (box, depth, forced), max_depth, max_boxes = item
    res = RegionResult(rc, faces=True, scaled=True)
    _scaled_loop(rc, [(box, depth, forced)], res, max_depth, max_boxes, None)
    return {"proven": [_pack(r) for r in res.proven], "outside": res.outside, "open": [_pack(r) for r in res.open]}


def region_scaled_to_json(res: RegionResult) -> dict[str, Any]:
    """The leaves of :func:`prove_region_scaled` as JSON: per proven box ``[[lo, hi] per side (x_1..x_{n-1},
    u, u'), method (taylor | monotone | ray), upper (a bound of h = G_1 - R on the box, decimal
    rounded up, or null for ray), point (or null), signs, rhs]`` with ``rhs`` ``{"coordinate": j}``
    (R = RHS(phi_j)) or ``{"t": s}`` (R = RHS(s)), :func:`rhs_choice`; null for ray."""
    rc = res.case
    t1 = rc.t_range[1]
    proven = proven_leaves_json(res.proven)
    for rec, b in zip(proven, res.proven, strict=True):
        rhs = b["rhs"]
        rec.append(None if rhs is None else {"coordinate": rhs[1]} if rhs[0] == "coordinate" else {"t": str(rhs[1])})
    return {
        "case": _case_json(rc),
        "coordinates": [f"x_{i + 1}" for i in range(rc.n - 1)] + ["u", "u_prime"],
        "faces": [box_json(f) for f in scaled_faces(rc.n, t1)],
        "boxes": proven,
        "outside": [box_json(b) for b in res.outside],
        "open": [[box_json(b["box"]), None if b["upper"] is None else decimal_upper(b["upper"], 15)] for b in res.open],
        "summary": res.summary(),
    }
