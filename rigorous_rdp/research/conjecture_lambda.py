r"""Conjecture 1 proven for every *real* order in an interval :math:`[\lambda_0, \lambda_1]` at once
(range model, d = 1, fixed sigma): a branch and bound over boxes ``B x Lambda`` of the dataset values
and the order.

**Setting** as in :mod:`rigorous_rdp.research.conjecture_proof` (``n`` rows, batch ``m``, coordinates
:math:`\theta = (x_1..x_{n-1}, u, u') \in [0,1]^{n+1}`, the fundamental domain ``F`` and its two faces
:func:`~.conjecture_proof.min_zero_faces`), now with a real order.  The claim proven is

.. math:: G_\lambda(\theta) = \int p\,R^{\lambda-1}\,dy \;\le\; \mathrm{RHS}_\lambda
          = \mathbb E\big[(1 - r + r e^{Z/\sigma - 1/(2\sigma^2)})^\lambda\big]
          \quad (R = p/q,\ Z \sim N(0,1))

for every :math:`\theta \in F` and every real :math:`\lambda \in [\lambda_0, \lambda_1]`.  The reductions
of ``F`` (translation, permutation, reflection) and to its faces hold for every order (their proofs
never use that lambda is an integer).

**Convexity in lambda (proof).**  At fixed :math:`\theta`, :math:`\partial_\lambda^2 G_\lambda =
\int p R^{\lambda-1}\log^2 R \ge 0` (differentiation under the integral: :math:`|\log R| \le m(|y| +
m)/\sigma^2`, since ``p`` and ``q`` pair their atoms by subset and each pair's ratio is
:math:`e^{(s-s')(2y-s-s')/(2\sigma^2)}` with :math:`s, s' \in [0, m]`, and the Gaussian majorant of
:func:`lambda_tails` dominates :math:`f\,|\log R|^2`).  Likewise :math:`\mathrm{RHS}_\lambda =
\mathbb E[X^\lambda]` with :math:`X > 0` is convex in lambda.  Hence, for a box ``B x [a, b]``:

* :math:`G_\lambda(\theta) \le (1-s)\,G_a(\theta) + s\,G_b(\theta)` for :math:`\lambda = (1-s)a + sb`;
* :math:`\mathrm{RHS}_\lambda \ge \mathrm{RHS}_a + d\,(\lambda - a)` for :math:`\lambda \ge a`, where
  :math:`d = (\mathrm{RHS}_a - \mathrm{RHS}_{a-\delta})/\delta` is the slope of a chord left of ``a``
  (:math:`\delta` = :func:`chord_step`; a convex function lies above the extension of any of its
  chords beyond the chord's interval);

so :math:`\sup_B G_a \le T_a := \mathrm{RHS}_a` and :math:`\sup_B G_b \le T_b := \mathrm{RHS}_a +
d\,(b - a)` prove the claim on the whole box (both sides are affine in ``s`` above/below).  The loss
against the true :math:`\mathrm{RHS}_b` is about :math:`\mathrm{RHS}''\,(b-a)^2`, second order.

**Per box** ``B x [a, b]``:

1. ``"outside"``: ``B`` does not meet ``F`` (:func:`~.conjecture_proof.outside_domain`).
2. *Gradient over the box* (:func:`gradient_box`): :math:`\partial_k G_\lambda` enclosed for every
   :math:`\theta \in B` and every :math:`\lambda \in [a, b]` at once (a Riemann enclosure of the
   compensated, factored integrand, with lambda a ball; formula there, tails :func:`lambda_tails`).
3. *Signs*: a coordinate whose enclosure excludes 0 is monotone on ``B`` for every lambda of the box.
   If all coordinates are signed, the supremum over ``B`` of every :math:`G_\lambda` is at the same
   vertex ``v``.  ``"extremal"``: ``v`` is :math:`\theta^* = (0..0,\ u = 1,\ u' = 0)`, where
   :math:`q = \mu_0`, :math:`p = (1-r)\mu_0 + r\mu_1`, so :math:`G_\lambda(\theta^*) = \mathrm{RHS}_\lambda`
   *for every* lambda: proven with equality.  ``"ray"``: else, when ``v`` is near :math:`\theta^*`, the
   signs of :math:`\partial_k G_\lambda` on :math:`S = \mathrm{hull}(v, \theta^*)` (a product of intervals)
   times ``[a, b]`` select :math:`\theta^*` in every side where the two differ (:func:`_ray`): then
   :math:`G_\lambda(v) \le G_\lambda(\theta^*) = \mathrm{RHS}_\lambda` for every order of the box.
   ``"monotone"``: else :math:`G_a(v) \le T_a` and :math:`G_b(v) \le T_b` (point values,
   :func:`g_point_real`).

   *Why the ray rule* (the obstacle it removes): next to :math:`\theta^*` the margin
   :math:`\mathrm{RHS}_\lambda - G_\lambda(v)` is only first order in the distance ``h`` of ``v`` to
   :math:`\theta^*`, while the chord target loses :math:`\approx \mathrm{RHS}''\,(b-a)^2`; the boxes
   along the edges through :math:`\theta^*` then need order sides of width :math:`\sqrt h` at every
   scale ``h``, and the first runs (n = 2, lambda in [2, 5/2]) left boxes open at depth 40.  The ray
   rule compares with the equality case instead of the chord and needs no point value.
4. ``"taylor"``: signed coordinates fixed at the end their sign selects; on that face, with centre
   ``c`` and unsigned coordinates ``J``, :math:`G_\lambda(\theta) \le G_\lambda(c) + \sum_J
   \max|\partial_k G|\,w_k/2` (mean value theorem, the gradient enclosed over ``B x [a, b]``), for
   :math:`\lambda = a` against :math:`T_a` and :math:`\lambda = b` against :math:`T_b`.
5. else bisect: the lambda side when the chord loss :math:`\mathrm{RHS}_b - T_b` exceeds the
   first-order terms, else the theta side with the largest :math:`\max|\partial_k G|\,w_k` (the
   widest when no score is finite).  A heuristic; any choice is sound.

The RHS at a real order is :func:`rigorous_rdp.research.constant.log_g_mixture` (a certified integral
with proven tails); :mod:`rigorous_rdp.reference.conjecture_lambda_boxes` re-proves every box with
its own formulas, tails and RHS.

**Why first order.**  The integer prover (:mod:`.conjecture_proof`) uses the Hessian over the box and
second-order Taylor terms; at a real order its closed integer sums :math:`S_0, S_1, S_2` become
:math:`\lambda`-dependent analytic functions of ``log R``.  The gradient-only form here needs one
such function only, :math:`g_2(l) = \lambda e^{(\lambda-1)l} - (\lambda-1)e^{\lambda l} - 1`, enclosed
by Taylor's formula (:func:`g2_ball`); it costs more boxes, which n = 2 and 3 afford.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import acb, arb

from ..arith import decimal_lower, decimal_upper, to_arb, workprec
from .conjecture_proof import Leaves, ProofCase, is_extremal, min_zero_faces, outside_domain
from .constant import log_g_mixture

__all__ = [
    "LambdaCase",
    "LambdaResult",
    "box_bounds",
    "chord_step",
    "derivatives_box",
    "extremal_point",
    "g2_ball",
    "g_point_real",
    "grad_point_real",
    "lambda_proof_to_json",
    "lambda_tails",
    "moment_tail",
    "prove_lambda",
    "rhs_real",
    "tail_coefficients",
    "targets",
]

PREC = 80
Box = list[tuple[Fraction, Fraction]]

#: the order range accepted (real orders; integer ends allowed)
LAMBDA_MIN, LAMBDA_MAX = Fraction(2), Fraction(16)
#: the sigma range accepted (the verifier's cells scale with sigma; below 1 nothing is tested)
SIGMA_MIN, SIGMA_MAX = Fraction(1), Fraction(64)


@dataclass(frozen=True)
class LambdaCase:
    r"""``n`` rows, batch ``m``, every real order in ``[lam_lo, lam_hi]`` (exact rationals,
    :math:`2 \le \lambda_{lo} < \lambda_{hi} \le 16`), noise ``sigma`` in [1, 64]."""

    n: int
    m: int
    lam_lo: Fraction
    lam_hi: Fraction
    sigma: Fraction = Fraction(1)

    def __post_init__(self) -> None:
        ProofCase(self.n, self.m, 2, Fraction(1))  # the checks of n and m
        if not LAMBDA_MIN <= self.lam_lo < self.lam_hi <= LAMBDA_MAX:
            raise ValueError(
                f"the order range must satisfy 2 <= low < high <= 16. Found [{self.lam_lo}, {self.lam_hi}]."
            )
        if not SIGMA_MIN <= self.sigma <= SIGMA_MAX:
            raise ValueError(f"sigma must be in [1, 64]. Found {self.sigma}.")

    @property
    def r(self) -> Fraction:
        return Fraction(self.m, self.n)

    @property
    def base(self) -> ProofCase:
        """A case of the integer prover with the same rows, batch and sigma (for the domain helpers)."""
        return ProofCase(self.n, self.m, 2, self.sigma)

    @property
    def dim(self) -> int:
        """Sides of a box: x_1..x_{n-1}, u, u', lambda."""
        return self.n + 2


def _phibar(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


@functools.lru_cache(maxsize=64)
def lambda_tails(case: LambdaCase) -> tuple[Fraction, Fraction, arb]:
    r"""Window ``[L, U]`` (integers) and an upper bound of the integral outside it of :math:`f =
    p^\lambda q^{1-\lambda}` (``g_tail``), valid for every configuration with values in :math:`[0, 1]`
    and every real :math:`\lambda \in [1, \lambda_{hi}]` (the derivative integrands: :func:`moment_tail`).

    **Proof.**  All means lie in :math:`[0, m]`; write :math:`\varphi = \varphi_\sigma`.  For
    :math:`y \ge U \ge \lambda_{hi} m`: every atom of ``p`` is :math:`\le \varphi(y - m)` and every atom
    of ``q`` is :math:`\ge \varphi(y)`; with :math:`1 - \lambda \le 0`, :math:`f \le \varphi(y-m)^\lambda
    \varphi(y)^{1-\lambda} = K_\lambda\varphi(y - \lambda m)`, :math:`K_\lambda =
    e^{\lambda(\lambda-1)m^2/(2\sigma^2)}` (complete the square: :math:`\lambda(y-m)^2 + (1-\lambda)y^2 =
    (y - \lambda m)^2 - \lambda(\lambda-1)m^2`).  For :math:`y \le L \le 0`: atoms of ``p`` are
    :math:`\le \varphi(y)`, of ``q`` :math:`\ge \varphi(y - m)`, so :math:`f \le K_\lambda\varphi(y +
    (\lambda-1)m)`.  Hence :math:`\int_{\text{out}} f \le K_\lambda[\bar\Phi((U - \lambda m)/\sigma) +
    \bar\Phi((-L - (\lambda-1)m)/\sigma)]`.  *Monotone in lambda*: :math:`K_\lambda` grows with lambda
    and so do both :math:`\bar\Phi` terms (their arguments, :math:`\ge 0`, shrink), so the bound at
    :math:`\lambda_{hi}` holds for every smaller order.
    """
    lam_f, m = float(case.lam_hi), case.m
    s = float(case.sigma)
    log_k = lam_f * (lam_f - 1) * m * m / (2 * s * s)
    t = math.sqrt(2 * (log_k + 60 * math.log(2) + 8)) + 1
    L = Fraction(math.floor(-(lam_f - 1) * m - t * s))
    U = Fraction(math.ceil(lam_f * m + t * s))
    with workprec(PREC):
        lam = to_arb(case.lam_hi)
        sig = to_arb(case.sigma)
        K = (lam * (lam - 1) * m * m / (2 * sig * sig)).exp()
        tu = to_arb(U) - lam * m
        tl = -to_arb(L) - (lam - 1) * m
        g_tail = K * (_phibar(tu / sig) + _phibar(tl / sig))
    return L, U, arb(g_tail.upper())


def _subsets(case: LambdaCase) -> list[tuple[int, ...]]:
    return case.base.subsets()


def _atom_rows(case: LambdaCase) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Coordinates summed by each atom mean: common to p and q (subsets without row n), then the
    differing atoms of p (row n at ``u``) and of q (row n at ``u'``), in the same order."""
    k0 = case.n - 1
    common, dp, dq = [], [], []
    for S in _subsets(case):
        base = tuple(i for i in S if i < k0)
        if k0 in S:
            dp.append((*base, k0))
            dq.append((*base, k0 + 1))
        else:
            common.append(base)
    return common, dp, dq


def g_point_real(case: LambdaCase, point: Sequence[Fraction], lam: Fraction, rel_bits: int = 30) -> arb:
    r"""Enclosure of :math:`G_\lambda(\theta)` at one configuration and one real order (exact
    rationals): ``acb.integral`` of :math:`p\,e^{(\lambda-1)\log(p/q)}` over the window of
    :func:`lambda_tails` (principal logarithm, ``analytic`` checked: ``p/q`` off the branch cut) plus
    the proven tail as radius."""
    L, U, g_tail = lambda_tails(case)
    with workprec(PREC):
        sig = to_arb(case.sigma)
        inv2s2 = acb(1 / (2 * sig * sig))
        theta = [to_arb(x) for x in point]
        common, dp, dq = _atom_rows(case)
        mc = [acb(sum((theta[i] for i in R), arb(0))) for R in common]
        mp = [acb(sum((theta[i] for i in R), arb(0))) for R in dp]
        mq = [acb(sum((theta[i] for i in R), arb(0))) for R in dq]
        norm = acb(1 / (sig * (2 * arb.pi()).sqrt()) / len(_subsets(case)))
        lm1 = acb(to_arb(lam) - 1)

        def f(z: acb, analytic: bool) -> acb:
            c = acb(0)
            for a in mc:
                c += (-((z - a) ** 2) * inv2s2).exp()
            p, q = c, c
            for a in mp:
                p += (-((z - a) ** 2) * inv2s2).exp()
            for a in mq:
                q += (-((z - a) ** 2) * inv2s2).exp()
            lr = (p / q).log(analytic=analytic)
            if not lr.is_finite():
                return acb(arb.nan())
            return norm * p * (lm1 * lr).exp()

        tol = arb(2) ** (-rel_bits)
        v = acb.integral(f, to_arb(L), to_arb(U), rel_tol=tol, abs_tol=tol, eval_limit=200000).real
        return arb(v.lower()).union(arb(v.upper() + g_tail.upper()))


def rhs_real(case: LambdaCase, lam: Fraction) -> arb:
    r"""Certified enclosure of :math:`\mathrm{RHS}_\lambda = G_\lambda(r\mu_1 + (1-r)\mu_0\|\mu_0)` at a
    rational order (:func:`~rigorous_rdp.research.constant.log_g_mixture`: the finite sum (9.5) at an
    integer order, a certified integral with proven tails at a real one)."""
    return _rhs_cached(case.m, case.n, case.sigma, lam)


@functools.lru_cache(maxsize=4096)
def _rhs_cached(m: int, n: int, sigma: Fraction, lam: Fraction) -> arb:
    with workprec(PREC):
        return log_g_mixture(lam, Fraction(m, n), sigma, PREC).exp()


def chord_step(lam_lo: Fraction, lam_hi: Fraction) -> Fraction:
    r"""The chord length :math:`\delta` of the lower bound :math:`\mathrm{RHS}_\lambda \ge
    \mathrm{RHS}_a + d(\lambda - a)` (module docstring): :math:`(b - a)/8`, at most :math:`a - 1`."""
    return min((lam_hi - lam_lo) / 8, lam_lo - 1)


def targets(case: LambdaCase, lam_lo: Fraction, lam_hi: Fraction) -> tuple[arb, arb]:
    r"""``(T_a, T_b)``: lower bounds of :math:`\mathrm{RHS}_a` and of the chord extension at ``b``,
    :math:`\mathrm{RHS}_a + d(b - a)` (module docstring)."""
    with workprec(PREC):
        ra = rhs_real(case, lam_lo)
        dl = chord_step(lam_lo, lam_hi)
        rd = rhs_real(case, lam_lo - dl)
        slope = (ra - rd) / to_arb(dl)
        tb = ra + slope * to_arb(lam_hi - lam_lo)
        return arb(ra.lower()), arb(tb.lower())


#: cells per sigma of the Riemann enclosure of the gradient on the core, and outside it
CELLS = 16
COARSE = 2
GRAD_PREC = 96


@functools.lru_cache(maxsize=16)
def _cells(case: LambdaCase) -> tuple[tuple[arb, arb], ...]:
    r"""Cells tiling ``[L, U]`` as ``(ball of the cell, integral of the weight over it)``, the weight
    :math:`w(y) = e^{-(y - m/2)^2/(2\sigma^2)}`: width :math:`\sigma/`:data:`CELLS` on the core
    :math:`[-(\lambda_{hi}-1)m - 4\sigma, \lambda_{hi}m + 4\sigma]`, :math:`\sigma/`:data:`COARSE`
    outside (any tiling gives an enclosure)."""
    L, U, _ = lambda_tails(case)
    s = case.sigma
    core_lo = max(L, Fraction(math.floor(-(case.lam_hi - 1) * case.m - 4 * s)))
    core_hi = min(U, Fraction(math.ceil(case.lam_hi * case.m + 4 * s)))
    ends: list[Fraction] = []

    def run(a: Fraction, b: Fraction, h: Fraction) -> None:
        while a < b:
            ends.append(a)
            a = min(a + h, b)

    run(L, core_lo, s / COARSE)
    run(core_lo, core_hi, s / CELLS)
    run(core_hi, U, s / COARSE)
    ends.append(U)
    out = []
    with workprec(GRAD_PREC):
        sig = to_arb(case.sigma)
        c = to_arb(Fraction(case.m, 2))
        k = sig * arb(2).sqrt()
        for a, b in itertools.pairwise(ends):
            ea, eb = to_arb(a), to_arb(b)
            # int_a^b e^{-(y-c)^2/(2 sigma^2)} dy = sigma sqrt(pi/2) [erf((b-c)/k) - erf((a-c)/k)]
            w = sig * (arb.pi() / 2).sqrt() * (((eb - c) / k).erf() - ((ea - c) / k).erf())
            out.append((ea.union(eb), w))
    return tuple(out)


def _sq(x: arb) -> arb:
    """Ball of :math:`x^2` for every point of ``x`` (lower end >= 0)."""
    lo, hi = x.lower(), x.upper()
    big = max(abs(lo), abs(hi))
    small = arb(0) if lo <= 0 <= hi else min(abs(lo), abs(hi))
    return arb(small * small).union(arb(big * big))


def g2_ball(lr: arb, lam: arb) -> arb:
    r"""Ball of :math:`g_2(l) = \lambda e^{(\lambda-1)l} - (\lambda-1)e^{\lambda l} - 1` for every ``l``
    in ``lr`` and :math:`\lambda` in ``lam``: :math:`g_2(0) = g_2'(0) = 0`, so (Taylor, Lagrange
    remainder) :math:`g_2(l) = \tfrac{l^2}{2} g_2''(\xi)` with :math:`\xi` between 0 and ``l``, and
    :math:`g_2''(\xi) = \lambda(\lambda-1)[(\lambda-1)e^{(\lambda-1)\xi} - \lambda e^{\lambda\xi}]`;
    intersected with the direct form :math:`\lambda\,\mathrm{expm1}((\lambda-1)l) -
    (\lambda-1)\,\mathrm{expm1}(\lambda l)` (both enclose the same number)."""
    xi = lr.union(arb(0))
    d2 = lam * (lam - 1) * ((lam - 1) * ((lam - 1) * xi).exp() - lam * (lam * xi).exp())
    taylor = _sq(lr) * d2 / 2
    # the direct form is narrower where l is not small (its width is first order in that of l alone)
    direct = lam * ((lam - 1) * lr).expm1() - (lam - 1) * (lam * lr).expm1()
    return _meet(taylor, direct)


def _meet(a: arb, b: arb) -> arb:
    """The intersection of two enclosures of the same number (either one if the other is not finite)."""
    if not a.is_finite():
        return b
    if not b.is_finite():
        return a
    return a.intersection(b)


def _side(T: arb, a: arb, sig: arb) -> arb:
    r""":math:`\int_T^\infty ((t + a)^2 + \sigma^2)\varphi_\sigma(t)\,dt = \sigma^2 T\varphi_\sigma(T) +
    2a\sigma^2\varphi_\sigma(T) + (a^2 + 2\sigma^2)\bar\Phi(T/\sigma)` (from :math:`\int_T^\infty
    t\varphi_\sigma = \sigma^2\varphi_\sigma(T)` and :math:`\int_T^\infty t^2\varphi_\sigma =
    \sigma^2T\varphi_\sigma(T) + \sigma^2\bar\Phi(T/\sigma)`)."""
    phi = (-(T * T) / (2 * sig * sig)).exp() / (sig * (2 * arb.pi()).sqrt())
    return sig * sig * T * phi + 2 * a * sig * sig * phi + (a * a + 2 * sig * sig) * _phibar(T / sig)


@functools.lru_cache(maxsize=64)
def moment_tail(case: LambdaCase) -> arb:
    r"""Upper bound of :math:`\int_{y \notin [L, U]} (f + p + q)\,(M^2 + \sigma^2)/\sigma^4\,dy`
    (:math:`M = |y| + m`, window of :func:`lambda_tails`) for every configuration with values in
    :math:`[0, 1]` and every order :math:`\lambda \in [1, \lambda_{hi}]`.

    **Proof.**  Beyond the window :func:`lambda_tails` gives :math:`f \le K_\lambda\varphi(y - \lambda m)`
    (:math:`y \ge U`) and :math:`f \le K_\lambda\varphi(y + (\lambda - 1)m)` (:math:`y \le L`); and
    :math:`p, q \le \varphi(y - m)` (:math:`y \ge U`), :math:`p, q \le \varphi(y)` (:math:`y \le L`).
    Substituting :math:`t = y - \lambda m` (then :math:`M \le t + \lambda m + m`), :math:`t = -y -
    (\lambda-1)m` (:math:`M \le t + \lambda m`), :math:`t = y - m` (:math:`M \le t + 2m`) and
    :math:`t = -y` (:math:`M \le t + m`), each piece is :func:`_side`; the bound is
    :math:`K[\mathrm{side}(U - \lambda m, \lambda m + m) + \mathrm{side}(-L - (\lambda-1)m, \lambda m)]/\sigma^4
    + 2[\mathrm{side}(U - m, 2m) + \mathrm{side}(-L, m)]/\sigma^4`, evaluated at :math:`\lambda_{hi}`:
    ``side`` decreases in ``T`` (for ``T >= 0``) and increases in ``a``, and :math:`K_\lambda` increases
    with lambda, so the value at :math:`\lambda_{hi}` bounds every smaller order.

    *Use* (each derivative integrand below is at most a constant times :math:`(f + p + q)(M^2 +
    \sigma^2)/\sigma^4`; :math:`|p_k| \le pM/\sigma^2`, :math:`|p_{jk}| \le p(M^2 + \sigma^2)/\sigma^4`,
    the same for ``q``, :math:`|\partial_k\log R| \le 2M/\sigma^2`, :math:`|\log R| \le mM/\sigma^2`, and
    :math:`2M\sigma \le M^2 + \sigma^2`): the compensated gradient, coefficient :math:`(2\lambda-1)\sigma/2`;
    the compensated Hessian, :math:`c_2 = (2\lambda-1)^2 + 2(2\lambda-1)` (``f`` part, as in
    :func:`~.conjecture_proof.hessian_tail`; the ``p, q`` part has :math:`2\lambda - 1 \le c_2`); the
    lambda derivative of the compensated gradient, :math:`\partial_\lambda\partial_k f = \partial_k(f\log R)
    = f_k\log R + f\,\partial_k\log R`, so :math:`|\cdot| \le f[(2\lambda-1)mM^2 + 2M\sigma^2]/\sigma^4`,
    plus :math:`|p_k| + |q_k|`: coefficient :math:`(2\lambda-1)m + \sigma` (:func:`tail_coefficients`)."""
    L, U, _ = lambda_tails(case)
    m = case.m
    with workprec(PREC):
        lam = to_arb(case.lam_hi)
        sig = to_arb(case.sigma)
        K = (lam * (lam - 1) * m * m / (2 * sig * sig)).exp()
        f_part = K * (_side(to_arb(U) - lam * m, lam * m + m, sig) + _side(-to_arb(L) - (lam - 1) * m, lam * m, sig))
        pq_part = 2 * (_side(to_arb(U) - m, arb(2 * m), sig) + _side(-to_arb(L), arb(m), sig))
        return arb(((f_part + pq_part) / sig**4).upper())


def tail_coefficients(case: LambdaCase) -> tuple[arb, arb, arb]:
    """``(gradient, Hessian, lambda derivative of the gradient)``: the constants that multiply
    :func:`moment_tail` (proof there), at the largest order of the case."""
    with workprec(PREC):
        lam = to_arb(case.lam_hi)
        sig = to_arb(case.sigma)
        return (2 * lam - 1) * sig / 2, (2 * lam - 1) ** 2 + 2 * (2 * lam - 1), (2 * lam - 1) * case.m + sig


def derivatives_box(
    case: LambdaCase, box: Sequence[tuple[Fraction, Fraction]]
) -> tuple[list[arb], list[list[arb]], list[arb]]:
    r"""Enclosures, valid for every :math:`\theta` in the theta part of ``box`` and every :math:`\lambda` in
    its last side, of the gradient :math:`\partial_k G_\lambda`, the Hessian :math:`\partial_j\partial_k
    G_\lambda` and :math:`\partial_\lambda\partial_k G_\lambda`, from one Riemann pass over the cells.

    **Formulas (proof).**  :math:`\int p = \int q = 1` for every configuration, so the derivatives of
    :math:`\int(-\lambda p + (\lambda-1)q)` in theta vanish and those in lambda of its theta
    derivatives too; hence every derivative of :math:`G_\lambda` is the integral of the same
    derivative of :math:`f - \lambda p + (\lambda-1)q` (differentiation under the integral, dominated
    by the majorants of :func:`moment_tail`).  With :math:`l = \log R`, ``C``, ``P``, ``Q`` the sums
    over the atoms common to ``p`` and ``q`` and over the differing atoms of ``p`` and of ``q``
    (subscripts: derivatives; an atom's first derivative is :math:`(y-s)/\sigma^2` times the atom,
    its second :math:`((y-s)^2/\sigma^4 - 1/\sigma^2)` times it, for atoms that move with the
    coordinates), :math:`A = \lambda(e^{(\lambda-1)l} - 1)`, :math:`B = (\lambda-1)(e^{\lambda l} - 1)`,
    :math:`g_2 = A - B` (:func:`g2_ball`) and :math:`D_j = p_j - Rq_j`:

    .. math:: \partial_k[\cdot] = g_2 C_k + A P_k - B Q_k, \qquad
              \partial_{jk}[\cdot] = g_2 C_{jk} + A P_{jk} - B Q_{jk}
              + \lambda(\lambda-1)e^{(\lambda-2)l}D_jD_k/q,

    (from :math:`\partial_k f = \lambda R^{\lambda-1}p_k - (\lambda-1)R^\lambda q_k` and
    :math:`\partial_k R = D_k/q`) and :math:`\partial_\lambda\partial_k[\cdot] = (A' - B')C_k + A'P_k -
    B'Q_k` with :math:`A' = e^{(\lambda-1)l} - 1 + \lambda l e^{(\lambda-1)l}`, :math:`B' = e^{\lambda
    l} - 1 + (\lambda-1)le^{\lambda l}`.  Every atom is divided by :math:`w(y) = e^{-(y - m/2)^2/(2\sigma^2)}`
    (the integrands are homogeneous of degree 1 in the atoms), the weight's integral over each cell is
    exact and multiplies the ball of the rest (mean value theorem for integrals), cells of
    :func:`_cells`; tails :func:`moment_tail` times :func:`tail_coefficients`."""
    dim = case.n + 1
    mt = moment_tail(case)
    with workprec(GRAD_PREC):
        sig = to_arb(case.sigma)
        inv_s2 = 1 / (sig * sig)
        c = to_arb(Fraction(case.m, 2))
        theta = [to_arb(lo).union(to_arb(hi)) for lo, hi in box[:dim]]
        lam = to_arb(box[dim][0]).union(to_arb(box[dim][1]))
        lm1 = lam - 1
        groups = _atom_rows(case)
        means = [[sum((theta[i] for i in R), arb(0)) for R in grp] for grp in groups]
        moves = [[tuple(a for a, R in enumerate(grp) if k in R) for k in range(dim)] for grp in groups]
        pairs = [(j, k) for j in range(dim) for k in range(j, dim)]
        moves2 = [[tuple(a for a, R in enumerate(grp) if j in R and k in R) for j, k in pairs] for grp in groups]
        acc_g = [arb(0)] * dim
        acc_l = [arb(0)] * dim
        acc_h = [arb(0)] * len(pairs)
        zero = arb(0)
        for y, w in _cells(case):
            sums, d1s, d2s = [], [], []
            for g, mu in enumerate(means):
                e = [((s - c) * (2 * y - s - c) * inv_s2 / 2).exp() for s in mu]
                t = [(y - s) * inv_s2 for s in mu]
                d1 = [ta * ea for ta, ea in zip(t, e, strict=True)]
                d2 = [(ta * ta - inv_s2) * ea for ta, ea in zip(t, e, strict=True)]
                tot = zero
                for ea in e:
                    tot += ea
                sums.append(tot)
                d1s.append([sum((d1[a] for a in idx), zero) for idx in moves[g]])
                d2s.append([sum((d2[a] for a in idx), zero) for idx in moves2[g]])
            c0, p0, q0 = sums
            q = c0 + q0
            lr = (c0 + p0).log() - q.log()
            e1 = (lm1 * lr).exp()
            el = (lam * lr).exp()
            g2 = g2_ball(lr, lam)
            A = lam * (lm1 * lr).expm1()
            B = lm1 * (lam * lr).expm1()
            Ad = e1 - 1 + lam * lr * e1
            Bd = el - 1 + lm1 * lr * el
            C1, P1, Q1 = d1s
            C2, P2, Q2 = d2s
            R = (c0 + p0) / q
            D = [C1[k] + P1[k] - R * (C1[k] + Q1[k]) for k in range(dim)]
            kd = lam * lm1 * ((lam - 2) * lr).exp() / q
            for k in range(dim):
                acc_g[k] += w * (g2 * C1[k] + A * P1[k] - B * Q1[k])
                acc_l[k] += w * ((Ad - Bd) * C1[k] + Ad * P1[k] - Bd * Q1[k])
            for i, (j, k) in enumerate(pairs):
                acc_h[i] += w * (g2 * C2[i] + A * P2[i] - B * Q2[i] + kd * D[j] * D[k])
        norm = 1 / (sig * (2 * arb.pi()).sqrt()) / len(_subsets(case))
        cg, ch, cl = tail_coefficients(case)
        tg, th, tl = arb(0, (cg * mt).upper()), arb(0, (ch * mt).upper()), arb(0, (cl * mt).upper())
        grad = [x * norm + tg for x in acc_g]
        dlam = [x * norm + tl for x in acc_l]
        H = [[arb(0)] * dim for _ in range(dim)]
        for i, (j, k) in enumerate(pairs):
            H[j][k] = H[k][j] = acc_h[i] * norm + th
        return grad, H, dlam


def grad_point_real(case: LambdaCase, point: Sequence[Fraction], lam: Fraction, rel_bits: int = 14) -> list[arb]:
    r"""Enclosures of :math:`\partial_k G_\lambda` at one configuration and order: ``acb.integral`` of
    :math:`R^{\lambda-1}(\lambda p_k - (\lambda-1)Rq_k)` (principal logarithm, ``analytic`` checked)
    plus the gradient tail (:func:`moment_tail` times the first of :func:`tail_coefficients`; the
    uncompensated integrand :math:`|\partial_k f| \le (2\lambda-1)fM/\sigma^2` has the smaller
    coefficient)."""
    L, U, _ = lambda_tails(case)
    dim = case.n + 1
    with workprec(PREC):
        sig = to_arb(case.sigma)
        inv2s2 = acb(1 / (2 * sig * sig))
        inv_s2 = acb(1 / (sig * sig))
        theta = [to_arb(x) for x in point]
        groups = _atom_rows(case)
        means = [[acb(sum((theta[i] for i in R), arb(0))) for R in grp] for grp in groups]
        moves = [[tuple(a for a, R in enumerate(grp) if k in R) for k in range(dim)] for grp in groups]
        norm = acb(1 / (sig * (2 * arb.pi()).sqrt()) / len(_subsets(case)))
        lamb = acb(to_arb(lam))
        memo: dict[Any, Any] = {}

        def node(z: acb, analytic: bool) -> Any:
            key = (
                z.real.mid().man_exp(),
                z.real.rad().man_exp(),
                z.imag.mid().man_exp(),
                z.imag.rad().man_exp(),
                analytic,
            )
            if key in memo:
                return memo[key]
            parts = []
            for g, mu in enumerate(means):
                e = [(-((z - a) ** 2) * inv2s2).exp() for a in mu]
                d = [(z - a) * inv_s2 * ea for a, ea in zip(mu, e, strict=True)]
                tot = acb(0)
                for ea in e:
                    tot += ea
                parts.append((tot, [sum((d[a] for a in idx), acb(0)) for idx in moves[g]]))
            (c0, C1), (p0, P1), (q0, Q1) = parts
            p, q = c0 + p0, c0 + q0
            lr = (p / q).log(analytic=analytic)
            if not lr.is_finite():
                memo[key] = None
                return None
            rl1 = ((lamb - 1) * lr).exp()
            R = p / q
            out = [norm * rl1 * (lamb * (C1[k] + P1[k]) - (lamb - 1) * R * (C1[k] + Q1[k])) for k in range(dim)]
            memo[key] = out
            return out

        tol = arb(2) ** (-rel_bits)
        cg, _, _ = tail_coefficients(case)
        tg = arb(0, (cg * moment_tail(case)).upper())
        res = []
        for k in range(dim):

            def f(z: acb, analytic: bool, k: int = k) -> acb:
                v = node(z, analytic)
                return acb(arb.nan()) if v is None else v[k]

            res.append(acb.integral(f, to_arb(L), to_arb(U), rel_tol=tol, abs_tol=tol, eval_limit=100000).real + tg)
        return res


@dataclass
class LambdaResult(Leaves):
    """Result of :func:`prove_lambda`: the leaves of the bisection and what was proven on each."""

    case: LambdaCase

    def summary(self) -> dict[str, Any]:
        methods: dict[str, int] = {}
        for b in self.proven:
            methods[b["method"]] = methods.get(b["method"], 0) + 1
        with workprec(PREC):
            ra, rb = rhs_real(self.case, self.case.lam_lo), rhs_real(self.case, self.case.lam_hi)
        return {
            "n": self.case.n,
            "m": self.case.m,
            "r": str(self.case.r),
            "lambda": [str(self.case.lam_lo), str(self.case.lam_hi)],
            "sigma": str(self.case.sigma),
            "proven": self.complete,
            "boxes_proven": len(self.proven),
            "boxes_outside": len(self.outside),
            "boxes_open": len(self.open),
            "methods": methods,
            "rhs_g_range": {"lower": decimal_lower(ra, 15), "upper": decimal_upper(rb, 15)},
            "seconds": round(self.seconds, 2),
        }


def _absmax(x: arb) -> arb:
    return arb(max(abs(x.lower()), abs(x.upper())))


#: the ray rule is tried for a monotone vertex within this distance (per coordinate) of the extremal one
RAY_REACH = Fraction(1, 4)


def extremal_point(n: int) -> list[Fraction]:
    """(0..0, u = 1, u' = 0)."""
    return [Fraction(0)] * (n - 1) + [Fraction(1), Fraction(0)]


def _ray(case: LambdaCase, v: Sequence[Fraction], lam_side: tuple[Fraction, Fraction]) -> bool:
    r"""The ``"ray"`` rule: True when the box :math:`S = \mathrm{hull}(v, 	heta^*)` (the sides where
    ``v`` and :math:`	heta^*` differ, a point elsewhere) times the order interval has certified signs
    of :math:`\partial_k G_\lambda` on every such side, each selecting :math:`	heta^*`'s end.  Then
    :math:`G_\lambda` is monotone in each of these coordinates on the product set ``S``, so
    :math:`G_\lambda(v) \le G_\lambda(	heta^*) = \mathrm{RHS}_\lambda` for every order of the interval
    (a box whose signs select ``v`` is then proven without a point value nor a chord)."""
    star = extremal_point(case.n)
    sides = [(min(x, y), max(x, y)) for x, y in zip(v, star, strict=True)]
    vary = [k for k, (lo, hi) in enumerate(sides) if lo != hi]
    if not vary or any(sides[k][1] - sides[k][0] > RAY_REACH for k in vary):
        return False
    box = [*sides, lam_side]
    gb, H, dl = derivatives_box(case, box)
    want = [k for k in vary if not ((gb[k] > 0) if star[k] > v[k] else (gb[k] < 0))]
    if want:
        c = [(lo + hi) / 2 for lo, hi in sides]
        lc = (lam_side[0] + lam_side[1]) / 2
        g0 = grad_point_real(case, c, lc)
        with workprec(PREC):
            for k in want:
                mv = g0[k] + sum(
                    (H[k][j] * arb(0, to_arb((sides[j][1] - sides[j][0]) / 2).upper()) for j in vary), arb(0)
                )
                mv += dl[k] * arb(0, to_arb((lam_side[1] - lam_side[0]) / 2).upper())
                gk = _meet(gb[k], mv)
                if not ((gk > 0) if star[k] > v[k] else (gk < 0)):
                    return False
    return True


def box_bounds(
    case: LambdaCase,
    box: Sequence[tuple[Fraction, Fraction]],
    *,
    goal: tuple[arb, arb, arb] | None = None,
    ray_rule: Callable[[list[arb]], bool] | None = None,
) -> dict[str, Any]:
    """Try to prove the claim on ``box`` (theta sides, then the lambda side): module docstring, steps
    2-5.  Returns ``proven``, ``method``, ``point`` (vertex or face centre), ``signs``, ``upper``
    (the bounds of ``sup G_a`` and ``sup G_b``, or None for extremal), ``split``.

    ``goal`` (the proof over a sigma interval, :mod:`.conjecture_lambda_sigma`): ``(T_a, T_b,
    RHS_b)`` given by the caller instead of :func:`targets` at the case's sigma, and ``ray_rule``
    (called with the gradient enclosed over the box and the order side) replaces the extremal and
    ray rules of this module, whose equality case is the RHS at the case's sigma."""
    dim = case.n + 1
    a, b = box[dim]
    if goal is None:
        ta, tb = targets(case, a, b)
        rhs_b = None
    else:
        ta, tb, rhs_b = goal
    with workprec(PREC):
        gb, H, dl = derivatives_box(case, box)
        th = list(box[:dim])
        c = [(lo + hi) / 2 for lo, hi in th]
        lc = (a + b) / 2
        half = [to_arb((hi - lo) / 2) for lo, hi in th]
        hl = to_arb((b - a) / 2)
        wide = [lo != hi for lo, hi in th]
        want = [k for k in range(dim) if wide[k] and not (gb[k] > 0 or gb[k] < 0)]
        g0 = grad_point_real(case, c, lc) if want else None
        grad = list(gb)
        if g0 is not None:
            for k in want:
                mv = (
                    g0[k]
                    + sum((H[k][j] * arb(0, half[j].upper()) for j in range(dim)), arb(0))
                    + dl[k] * arb(0, hl.upper())
                )
                grad[k] = _meet(gb[k], mv)
        signs = [0 if not wide[k] else 1 if grad[k] > 0 else -1 if grad[k] < 0 else 0 for k in range(dim)]
        free = [k for k in range(dim) if wide[k] and signs[k] == 0]
        if ray_rule is not None and ray_rule(grad):
            return {"proven": True, "method": "ray", "point": None, "signs": signs, "upper": None}
        if not free:
            v = [hi if sg > 0 else lo for (lo, hi), sg in zip(th, signs, strict=True)]
            cf, method = v, "monotone"
            if ray_rule is None:
                if is_extremal(case.base, v):
                    return {"proven": True, "method": "extremal", "point": v, "signs": signs, "upper": None}
                if _ray(case, v, (a, b)):
                    return {"proven": True, "method": "ray", "point": v, "signs": signs, "upper": None}
        else:
            cf = [hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(th, signs, strict=True)]
            method = "taylor"
        t2 = arb(0)
        for k in free:
            for j in free:
                t2 += _absmax(H[j][k]) * half[j] * half[k] / 2
        ups = []
        ok = True
        terms_by_lam = []
        for lam, tgt in ((a, ta), (b, tb)):
            terms = t2
            if free:
                assert g0 is not None
                for k in free:
                    mv = g0[k] + sum((H[k][j] * to_arb(cf[j] - c[j]) for j in range(dim) if cf[j] != c[j]), arb(0))
                    mv += dl[k] * to_arb(lam - lc)
                    terms += _absmax(_meet(gb[k], mv)) * half[k]
            terms_by_lam.append(terms)
            gc = g_point_real(case, cf, lam)
            up = arb((gc + terms).upper())
            if not up <= tgt and arb(gc.mid()) + terms < tgt:
                gc = g_point_real(case, cf, lam, rel_bits=50)
                up = arb((gc + terms).upper())
            ups.append(up)
            ok = bool(up <= tgt)
            if not ok:
                break
        out: dict[str, Any] = {"proven": ok, "method": method, "point": cf, "signs": signs, "upper": ups}
        if not ok:
            scores = {}
            for j in range(dim):
                if wide[j]:
                    wj = float(box[j][1] - box[j][0])
                    sc = wj * sum(float(_absmax(H[k][j]).mid()) for k in free) if free else 0.0
                    if j in free:
                        sc += float(_absmax(grad[j]).mid()) * wj
                    scores[j] = sc
            finite = all(math.isfinite(x) for x in scores.values())
            k_best = (
                max(scores, key=lambda k: scores[k]) if finite else max(range(dim), key=lambda k: box[k][1] - box[k][0])
            )
            # the lambda side puts its width on the free gradients (through the signs and the
            # first-order terms) and costs the chord loss when the bound fails at the upper order
            lam_score = sum(float(_absmax(dl[k]).mid()) for k in free) * float(b - a)
            if len(ups) == 2:
                lam_score += float(((rhs_real(case, b) if rhs_b is None else rhs_b) - tb).mid())
            if not finite or not math.isfinite(lam_score):
                out["split"] = k_best
            elif not free and len(ups) == 1:
                # the vertex value fails at the lower order (no chord loss there): theta must shrink
                out["split"] = max(range(dim), key=lambda k: box[k][1] - box[k][0])
            else:
                out["split"] = dim if lam_score > max(scores.values(), default=0.0) else k_best
        return out


def prove_lambda(
    case: LambdaCase, *, max_depth: int = 40, max_boxes: int = 20000, progress: bool = False
) -> LambdaResult:
    r"""Branch and bound over the two faces of :func:`~.conjecture_proof.min_zero_faces` times the
    order interval (module docstring).  Boxes deeper than ``max_depth`` bisections, or all boxes
    left once ``max_boxes`` have been processed, are reported as open."""
    t0 = time.perf_counter()
    res = LambdaResult(case)
    lam_side = (case.lam_lo, case.lam_hi)
    stack: list[tuple[Box, int]] = [([*f, lam_side], 0) for f in reversed(min_zero_faces(case.n + 1))]
    from .. import progress as _progress

    bar_cm = (
        _progress.task(f"proof n={case.n} m={case.m} lambda in [{case.lam_lo}, {case.lam_hi}]", None, "boxes")
        if progress
        else None
    )
    bar = bar_cm.__enter__() if bar_cm is not None else None
    processed = 0
    try:
        while stack:
            box, depth = stack.pop()
            processed += 1
            if bar is not None:
                bar.update(1, note=f"{len(stack)} pending (branch and bound: no ETA)")
            if outside_domain(case.base, box[:-1]):
                res.outside.append(box)
                continue
            if processed > max_boxes or depth >= max_depth:
                res.open.append({"box": box, "depth": depth})
                continue
            bb = box_bounds(case, box)
            if bb["proven"]:
                res.proven.append({"box": box, **bb})
                continue
            k = bb["split"]
            lo, hi = box[k]
            mid = (lo + hi) / 2
            left, right = list(box), list(box)
            left[k], right[k] = (lo, mid), (mid, hi)
            stack += [(right, depth + 1), (left, depth + 1)]
    finally:
        if bar_cm is not None:
            bar_cm.__exit__(None, None, None)
    res.seconds = time.perf_counter() - t0
    return res


def _bj(box: Sequence[tuple[Fraction, Fraction]]) -> list[list[str]]:
    return [[str(lo), str(hi)] for lo, hi in box]


def lambda_proof_to_json(res: LambdaResult) -> dict[str, Any]:
    """The leaves of a proof as JSON: ``boxes`` as ``[box (theta sides, then lambda), method, point,
    signs, [upper at lambda_lo of the box, upper at lambda_hi] (outward-rounded decimals, null for
    extremal and ray), [T_a, T_b] (the targets of :func:`targets`, rounded down)]``, ``outside`` and
    ``open`` boxes, the RHS at the two ends and the summary."""
    case = res.case
    boxes = []
    for b in res.proven:
        a_, b_ = b["box"][-1]
        boxes.append(
            [
                _bj(b["box"]),
                b["method"],
                [str(x) for x in b["point"]],
                b["signs"],
                None if b["upper"] is None else [decimal_upper(u, 15) for u in b["upper"]],
                [decimal_lower(t, 15) for t in targets(case, a_, b_)],
            ]
        )
    return {
        "case": {
            "model": "range",
            "d": 1,
            "n": case.n,
            "m": case.m,
            "r": str(case.r),
            "lambda": [str(case.lam_lo), str(case.lam_hi)],
            "sigma": str(case.sigma),
        },
        "coordinates": [f"x_{i + 1}" for i in range(case.n - 1)] + ["u", "u_prime", "lambda"],
        "faces": [_bj([*f, (case.lam_lo, case.lam_hi)]) for f in min_zero_faces(case.n + 1)],
        "boxes": boxes,
        "outside": [_bj(b) for b in res.outside],
        "open": [_bj(b["box"]) for b in res.open],
        "rhs_g": {
            key: [decimal_lower(v, 15), decimal_upper(v, 15)]
            for key, v in (("lambda_lo", rhs_real(case, case.lam_lo)), ("lambda_hi", rhs_real(case, case.lam_hi)))
        },
        "summary": res.summary(),
    }
