r"""Independent re-proof of the boxes of a Conjecture 1 ``holds-boxes-order-interval`` certificate
(every real order in an interval, range model, d = 1).

The prover (:mod:`rigorous_rdp.research.conjecture_lambda`) claims, for each box ``B x [a, b]`` of
dataset values :math:`\theta = (x_1..x_{n-1}, u, u')` and orders, that :math:`G_\lambda(\theta) =
\int p^\lambda q^{1-\lambda} \le \mathrm{RHS}_\lambda` on the whole box.  This module re-derives every
ingredient along its own code path (nothing of ``research`` is imported):

* **The reduction to the two ends of the order side.**  :math:`\partial_\lambda^2 G_\lambda = \int
  p^\lambda q^{1-\lambda}\log^2(p/q) \ge 0` and :math:`\partial_\lambda^2\mathrm{RHS}_\lambda =
  \mathbb E[X^\lambda\log^2 X] \ge 0`, so :math:`G_\lambda \le` the chord of :math:`G` between ``a`` and
  ``b``, and :math:`\mathrm{RHS}_\lambda \ge \mathrm{RHS}_a + d(\lambda - a)` with ``d`` the slope of
  the chord over :math:`[a - \delta, a]` (convexity: a chord's extension lies below the function
  outside the chord's interval), :math:`\delta = \min((b-a)/8, a - 1)`.  Hence :math:`\sup_B G_a \le
  T_a = \mathrm{RHS}_a` and :math:`\sup_B G_b \le T_b = \mathrm{RHS}_a + d(b - a)` prove the box
  (:func:`order_targets`).
* **The RHS at a real order** (:func:`rhs_real`): :math:`\mathrm{RHS}_\lambda = \int (1 - r +
  re^{tz - t^2/2})^\lambda\varphi(z)\,dz`, :math:`t = 1/\sigma` (under :math:`\mu_0` the density ratio
  is :math:`1 - r + re^{tZ - t^2/2}` in units of sigma), by ``acb.integral`` on :math:`[-Z, Z]` plus
  tails proven there.
* **Point values** :math:`G_\lambda(\theta)` and :math:`\partial_k G_\lambda(\theta)`
  (:func:`g_value`, :func:`g_gradient`): ``acb.integral`` of :math:`e^{\lambda\log p + (1-\lambda)\log
  q}` and of that times :math:`\lambda p_k/p - (\lambda - 1)q_k/q` (log-derivative form), plus the
  tails of :func:`tail_bounds`.
* **Derivatives over a box** (:func:`box_derivatives`): gradient, Hessian and
  :math:`\partial_\lambda\partial_k` of :math:`G` for every :math:`\theta \in B` and :math:`\lambda \in
  [a, b]`, a Riemann enclosure of the compensated integrands (formulas there) on cells of
  :data:`CORE_CELLS` per sigma, with a positive Gaussian weight integrated exactly per cell.
* **Per box** (:func:`reprove_order_box`): signs of the gradient (the direct enclosure intersected
  with the mean-value form about the centre); all signed and the selected vertex is
  :math:`\theta^* = (0..0, u = 1, u' = 0)`, where :math:`G_\lambda = \mathrm{RHS}_\lambda` for every
  order (``q = mu_0``, ``p = (1-r) mu_0 + r mu_1``): proven; else the *ray* rule (signs on
  :math:`\mathrm{hull}(v, \theta^*) \times [a, b]` selecting :math:`\theta^*`, so :math:`G_\lambda(v) \le
  G_\lambda(\theta^*)`); else the vertex values at ``a`` and ``b``; else second-order Taylor on the face
  the signs select, about its centre.  A box that does not close is bisected at its widest theta side
  (the order side is never cut, so the stated bounds at ``a`` and ``b`` stay the targets), up to a
  limit of boxes.

Interval arithmetic: python-flint ``arb``/``acb`` balls; exact rationals enter as ``arb(p)/arb(q)``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import acb, arb, ctx

__all__ = [
    "OrderCase",
    "box_derivatives",
    "g_gradient",
    "g_value",
    "order_targets",
    "reprove_order_box",
    "rhs_real",
    "tail_bounds",
]

PREC = 96
#: cells per sigma of the Riemann enclosure on the core, and outside it
CORE_CELLS = 20
OUTER_CELLS = 4


def _q(x: Fraction | int) -> arb:
    x = Fraction(x)
    return arb(x.numerator) / arb(x.denominator)


def _hull(lo: Fraction, hi: Fraction) -> arb:
    return _q(lo).union(_q(hi))


@dataclass(frozen=True)
class OrderCase:
    """``n`` rows, batch ``m``, orders in ``[lam_lo, lam_hi]`` (``lam_lo >= 2``), noise ``sigma`` > 0."""

    n: int
    m: int
    lam_lo: Fraction
    lam_hi: Fraction
    sigma: Fraction

    def __post_init__(self) -> None:
        if not (self.n >= 2 and 1 <= self.m < self.n and 2 <= self.lam_lo < self.lam_hi and self.sigma > 0):
            raise ValueError("inconsistent case (n, m, order range, sigma)")

    @property
    def dim(self) -> int:
        return self.n + 1

    def atoms(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Per m-subset of the rows: the coordinates summed by its mean in p (row n at u, coordinate
        n - 1) and in q (row n at u', coordinate n)."""
        out = []
        for S in _combinations(self.n, self.m):
            rows = tuple(i for i in S if i < self.n - 1)
            if self.n - 1 in S:
                out.append(((*rows, self.n - 1), (*rows, self.n)))
            else:
                out.append((rows, rows))
        return out


def _combinations(n: int, m: int) -> list[tuple[int, ...]]:
    if m == 0:
        return [()]
    if n < m:
        return []
    return _combinations(n - 1, m) + [(*c, n - 1) for c in _combinations(n - 1, m - 1)]


def _phibar(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


def _moment(T: arb, a: arb, s: arb) -> arb:
    r""":math:`\int_T^\infty ((z + a)^2 + s^2)\,\varphi_s(z)\,dz` for :math:`T \ge 0` (:math:`\varphi_s` the
    N(0, s^2) density): expanding, :math:`\int_T^\infty z^2\varphi_s = s^2T\varphi_s(T) + s^2\bar\Phi(T/s)`,
    :math:`\int_T^\infty z\varphi_s = s^2\varphi_s(T)`, so it is :math:`s^2(T + 2a)\varphi_s(T) +
    (a^2 + 2s^2)\bar\Phi(T/s)`; it decreases in ``T`` and increases in ``a >= 0``."""
    dens = (-(T * T) / (2 * s * s)).exp() / (s * (2 * arb.pi()).sqrt())
    return s * s * (T + 2 * a) * dens + (a * a + 2 * s * s) * _phibar(T / s)


@functools.lru_cache(maxsize=32)
def tail_bounds(case: OrderCase) -> tuple[Fraction, Fraction, arb, arb]:
    r"""``(L, U, value tail, moment tail)`` for every configuration with values in [0, 1] and every
    order :math:`\lambda \in [1, \lambda_{hi}]`.

    Proof.  Means lie in :math:`[0, m]`; :math:`\varphi = \varphi_\sigma`.  Above ``U`` (:math:`\ge
    \lambda_{hi} m`) each atom of ``p`` is at most :math:`\varphi(y - m)` and each atom of ``q`` at least
    :math:`\varphi(y)`; below ``L`` (:math:`\le 0`) at most :math:`\varphi(y)`, at least :math:`\varphi(y - m)`.
    Since :math:`1 - \lambda \le 0`, :math:`f = p^\lambda q^{1-\lambda}` is at most
    :math:`\varphi(y-m)^\lambda\varphi(y)^{1-\lambda} = K\varphi(y - \lambda m)` above ``U`` and
    :math:`K\varphi(y + (\lambda-1)m)` below ``L``, :math:`K = e^{\lambda(\lambda-1)m^2/(2\sigma^2)}`
    (complete the square).  The value tail: :math:`K[\bar\Phi((U - \lambda m)/\sigma) + \bar\Phi((-L -
    (\lambda - 1)m)/\sigma)]`.  The moment tail bounds :math:`\int (f + p + q)(M^2 + \sigma^2)/\sigma^4`
    outside, :math:`M = |y| + m \ge \max_S|y - s_S|`: with :func:`_moment` after the substitutions
    :math:`z = y - \lambda m` (:math:`M \le z + (\lambda+1)m`), :math:`z = -y - (\lambda-1)m` (:math:`M
    \le z + \lambda m`) for ``f``, and :math:`p, q \le \varphi(y - m)` above (:math:`z = y - m`,
    :math:`M \le z + 2m`), :math:`p, q \le \varphi(y)` below (:math:`z = -y`, :math:`M \le z + m`).
    Every term grows with lambda (``K``, the shifts, the moments' ``a`` and a smaller ``T``), so the
    value at :math:`\lambda_{hi}` holds for every order of the case.  The integrands of
    :func:`box_derivatives` and :func:`g_gradient` are bounded by constants times :math:`(f + p + q)(M^2
    + \sigma^2)/\sigma^4` (:func:`_tail_factors`)."""
    lam_f, m, s_f = float(case.lam_hi), case.m, float(case.sigma)
    width = math.sqrt(2 * (lam_f * (lam_f - 1) * m * m / (2 * s_f * s_f) + 64 * math.log(2) + 4)) + 1
    L = Fraction(math.floor(-(lam_f - 1) * m - width * s_f))
    U = Fraction(math.ceil(lam_f * m + width * s_f))
    with ctx.workprec(PREC):
        lam, s = _q(case.lam_hi), _q(case.sigma)
        K = (lam * (lam - 1) * m * m / (2 * s * s)).exp()
        tu, tl = _q(U) - lam * m, -_q(L) - (lam - 1) * m
        vt = K * (_phibar(tu / s) + _phibar(tl / s))
        mf = K * (_moment(tu, (lam + 1) * m, s) + _moment(tl, lam * m, s))
        mpq = 2 * (_moment(_q(U) - m, arb(2 * m), s) + _moment(-_q(L), arb(m), s))
        mt = (mf + mpq) / s**4
        return L, U, arb(vt.upper()), arb(mt.upper())


def _tail_factors(case: OrderCase) -> tuple[arb, arb, arb]:
    r"""Constants that multiply the moment tail, for the gradient, the Hessian and the lambda
    derivative of the gradient.  With :math:`|p_k| \le pM/\sigma^2`, :math:`|p_{jk}| \le p(M^2 +
    \sigma^2)/\sigma^4` (same for ``q``), :math:`|\partial_k\log(p/q)| \le 2M/\sigma^2`, :math:`|\log(p/q)|
    \le mM/\sigma^2` (paired atoms, ratio :math:`e^{(s - s')(2y - s - s')/(2\sigma^2)}`) and
    :math:`2M\sigma \le M^2 + \sigma^2`: gradient (compensated or not) :math:`\le (2\lambda - 1)(f + p +
    q)M/\sigma^2`, factor :math:`(2\lambda-1)\sigma/2`; Hessian :math:`\le f[(2\lambda-1)^2M^2/\sigma^4 +
    2(2\lambda-1)(M^2 + \sigma^2)/\sigma^4] + (2\lambda-1)(p + q)(M^2 + \sigma^2)/\sigma^4`, factor
    :math:`(2\lambda-1)(2\lambda+1)`; :math:`\partial_\lambda` of the compensated gradient
    (:math:`\partial_k(f\log R) - p_k + q_k`) :math:`\le f[(2\lambda-1)mM^2 + 2M\sigma^2]/\sigma^4 + (p +
    q)M/\sigma^2`, factor :math:`(2\lambda-1)m + \sigma`."""
    lam, s = _q(case.lam_hi), _q(case.sigma)
    return (2 * lam - 1) * s / 2, (2 * lam - 1) * (2 * lam + 1), (2 * lam - 1) * case.m + s


def _means(case: OrderCase, theta: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    zero = theta[0] * 0
    mp = [sum((theta[i] for i in a), zero) for a, _ in case.atoms()]
    mq = [sum((theta[i] for i in b), zero) for _, b in case.atoms()]
    return mp, mq


def _integral(case: OrderCase, f: Any, bits: int) -> arb:
    L, U, _, _ = tail_bounds(case)
    tol = arb(2) ** (-bits)
    return acb.integral(f, _q(L), _q(U), rel_tol=tol, abs_tol=tol, eval_limit=300000).real


def g_value(case: OrderCase, theta: Sequence[Fraction], lam: Fraction, bits: int = 32) -> arb:
    r""":math:`G_\lambda(\theta)`: ``acb.integral`` of :math:`\exp(\lambda\log p + (1-\lambda)\log q)`
    (principal logarithms, analytic where checked) plus the value tail."""
    _, _, vt, _ = tail_bounds(case)
    with ctx.workprec(PREC):
        s = _q(case.sigma)
        c = acb(1 / (2 * s * s))
        nrm = acb(1 / (s * (2 * arb.pi()).sqrt()) / len(case.atoms()))
        mp, mq = _means(case, [acb(_q(x)) for x in theta])
        la = acb(_q(lam))

        def f(z: acb, analytic: bool) -> acb:
            p = sum(((-(z - a) * (z - a) * c).exp() for a in mp), acb(0)) * nrm
            q = sum(((-(z - a) * (z - a) * c).exp() for a in mq), acb(0)) * nrm
            lp, lq = p.log(analytic=analytic), q.log(analytic=analytic)
            if not (lp.is_finite() and lq.is_finite()):
                return acb(arb.nan())
            return (la * lp + (1 - la) * lq).exp()

        v = _integral(case, f, bits)
        return v + arb(0, vt.upper())


def g_gradient(case: OrderCase, theta: Sequence[Fraction], lam: Fraction, bits: int = 14) -> list[arb]:
    r""":math:`\partial_k G_\lambda(\theta)` for every coordinate: ``acb.integral`` of :math:`f\,(\lambda
    p_k/p - (\lambda-1)q_k/q)` plus the gradient tail (:func:`_tail_factors`)."""
    _, _, _, mt = tail_bounds(case)
    dim = case.dim
    with ctx.workprec(PREC):
        s = _q(case.sigma)
        c = acb(1 / (2 * s * s))
        inv = acb(1 / (s * s))
        mp, mq = _means(case, [acb(_q(x)) for x in theta])
        at = case.atoms()
        la = acb(_q(lam))
        tg = arb(0, (_tail_factors(case)[0] * mt).upper())
        nrm = acb(1 / (s * (2 * arb.pi()).sqrt()) / len(at))
        out = []
        for k in range(dim):

            def f(z: acb, analytic: bool, k: int = k) -> acb:
                ep = [(-(z - a) * (z - a) * c).exp() for a in mp]
                eq = [(-(z - a) * (z - a) * c).exp() for a in mq]
                p, q = sum(ep, acb(0)), sum(eq, acb(0))
                pk = sum(((z - mp[i]) * inv * ep[i] for i in range(len(at)) if k in at[i][0]), acb(0))
                qk = sum(((z - mq[i]) * inv * eq[i] for i in range(len(at)) if k in at[i][1]), acb(0))
                lp, lq = p.log(analytic=analytic), q.log(analytic=analytic)
                if not (lp.is_finite() and lq.is_finite()):
                    return acb(arb.nan())
                return nrm * (la * lp + (1 - la) * lq).exp() * (la * pk / p - (la - 1) * qk / q)

            out.append(_integral(case, f, bits) + tg)
        return out


def rhs_real(sigma: Fraction, r: Fraction, lam: Fraction) -> arb:
    r""":math:`\mathrm{RHS}_\lambda = \int (1 - r + re^{tz - t^2/2})^\lambda\varphi(z)\,dz`, :math:`t =
    1/\sigma`, by ``acb.integral`` on :math:`[-Z, Z]` plus tails.

    Tails (proof): for :math:`z \ge t/2` the exponent :math:`x = tz - t^2/2 \ge 0`, the bracket (a convex
    combination of 1 and :math:`e^x`) is at most :math:`e^x`, and :math:`\int_Z^\infty e^{\lambda(tz -
    t^2/2)}\varphi(z)\,dz = e^{\lambda(\lambda-1)t^2/2}\bar\Phi(Z - \lambda t)`; for :math:`z < t/2` the
    bracket is at most 1, so the lower tail is at most :math:`\bar\Phi(Z)` (``Z >= t/2``)."""
    return _rhs(sigma, r, lam)


@functools.lru_cache(maxsize=4096)
def _rhs(sigma: Fraction, r: Fraction, lam: Fraction) -> arb:
    with ctx.workprec(PREC):
        t = 1 / _q(sigma)
        la, rb = _q(lam), _q(r)
        tf, lf = 1 / float(sigma), float(lam)
        Z = Fraction(math.ceil(lf * tf + math.sqrt(2 * (lf * (lf - 1) * tf * tf / 2 + 70 * math.log(2))) + 2))
        nrm = acb(1 / (2 * arb.pi()).sqrt())

        def f(z: acb, analytic: bool) -> acb:
            x = 1 - rb + rb * (t * z - t * t / 2).exp()
            lx = x.log(analytic=analytic)
            if not lx.is_finite():
                return acb(arb.nan())
            return nrm * (la * lx - z * z / 2).exp()

        tol = arb(2) ** -60
        v = acb.integral(f, -_q(Z), _q(Z), rel_tol=tol, abs_tol=tol, eval_limit=300000).real
        tail = (la * (la - 1) * t * t / 2).exp() * _phibar(_q(Z) - la * t) + _phibar(_q(Z))
        return v + arb(0, tail.upper())


def order_targets(case: OrderCase, a: Fraction, b: Fraction) -> tuple[arb, arb]:
    """``(T_a, T_b)`` (module docstring): lower ends of RHS_a and of RHS_a + d (b - a)."""
    r = Fraction(case.m, case.n)
    delta = min((b - a) / 8, a - 1)
    with ctx.workprec(PREC):
        ra = rhs_real(case.sigma, r, a)
        d = (ra - rhs_real(case.sigma, r, a - delta)) / _q(delta)
        return arb(ra.lower()), arb((ra + d * _q(b - a)).lower())


@functools.lru_cache(maxsize=16)
def _cells(case: OrderCase) -> tuple[tuple[arb, arb], ...]:
    r"""Cells tiling ``[L, U]``, each as (ball of the cell, :math:`\int_{\text{cell}} e^{-(y -
    m/2)^2/(2\sigma^2)}dy`, exact through ``erf``)."""
    L, U, _, _ = tail_bounds(case)
    s = case.sigma
    lo = max(L, Fraction(math.floor(-(case.lam_hi - 1) * case.m - 5 * s)))
    hi = min(U, Fraction(math.ceil(case.lam_hi * case.m + 5 * s)))
    ends = [L]
    for stop, h in ((lo, s / OUTER_CELLS), (hi, s / CORE_CELLS), (U, s / OUTER_CELLS)):
        while ends[-1] < stop:
            ends.append(min(ends[-1] + h, stop))
    with ctx.workprec(PREC):
        sg = _q(s)
        k = sg * arb(2).sqrt()
        c = _q(Fraction(case.m, 2))
        return tuple(
            (_hull(y0, y1), sg * (arb.pi() / 2).sqrt() * (((_q(y1) - c) / k).erf() - ((_q(y0) - c) / k).erf()))
            for y0, y1 in itertools.pairwise(ends)
        )


def _square(x: arb) -> arb:
    lo, hi = x.lower(), x.upper()
    top = max(abs(lo), abs(hi))
    bot = arb(0) if lo <= 0 <= hi else min(abs(lo), abs(hi))
    return arb(bot * bot).union(arb(top * top))


def _both(a: arb, b: arb) -> arb:
    if not a.is_finite():
        return b
    if not b.is_finite():
        return a
    return a.intersection(b)


def box_derivatives(
    case: OrderCase, box: Sequence[tuple[Fraction, Fraction]]
) -> tuple[list[arb], list[list[arb]], list[arb]]:
    r"""Gradient, Hessian and lambda derivative of the gradient of :math:`G_\lambda` over the box (theta
    sides, then the order side).

    Derivation (written out here).  :math:`\int p = \int q = 1` for every configuration, so the theta
    derivatives of :math:`\int(\lambda p - (\lambda - 1)q)` vanish, and with :math:`F = f - \lambda p +
    (\lambda-1)q`, :math:`f = p e^{(\lambda-1)l}`, :math:`l = \log(p/q)`: :math:`\partial_k f =
    \lambda e^{(\lambda-1)l}p_k - (\lambda-1)e^{\lambda l}q_k`, so :math:`\partial_k F = \alpha p_k - \beta
    q_k`, :math:`\alpha = \lambda\,\mathrm{expm1}((\lambda-1)l)`, :math:`\beta = (\lambda -
    1)\mathrm{expm1}(\lambda l)`; splitting :math:`p_k = C_k + P_k`, :math:`q_k = C_k + Q_k` (atoms common
    to p and q, and the others): :math:`(\alpha - \beta)C_k + \alpha P_k - \beta Q_k`, where
    :math:`\alpha - \beta = \lambda e^{(\lambda-1)l} - (\lambda-1)e^{\lambda l} - 1` vanishes with its
    first derivative at :math:`l = 0` and is enclosed by its direct form intersected with
    :math:`(l^2/2)\,\lambda(\lambda-1)[(\lambda-1)e^{(\lambda-1)\xi} - \lambda e^{\lambda\xi}]`,
    :math:`\xi \in \mathrm{hull}(0, l)` (Lagrange).  With :math:`E_j = p_j - e^l q_j`, :math:`\partial_j l =
    E_j/p`, so :math:`\partial_j e^{(\lambda-1)l} = (\lambda-1)e^{(\lambda-2)l}E_j/q` and
    :math:`\partial_j e^{\lambda l} = \lambda e^{(\lambda-1)l}E_j/q`,
    so :math:`\partial_{jk}F = (\alpha-\beta)C_{jk} + \alpha P_{jk} - \beta Q_{jk} +
    \lambda(\lambda-1)e^{(\lambda-2)l}E_jE_k/q`.  In lambda: :math:`\partial_\lambda\alpha =
    \mathrm{expm1}((\lambda-1)l) + \lambda l e^{(\lambda-1)l}`, :math:`\partial_\lambda\beta =
    \mathrm{expm1}(\lambda l) + (\lambda-1)le^{\lambda l}` replace :math:`\alpha, \beta` in the gradient.
    Atoms' derivatives: :math:`(y - s)/\sigma^2` and :math:`(y - s)^2/\sigma^4 - 1/\sigma^2` times the atom
    (each mean moves with a coordinate at rate 0 or 1).  Every atom is written as the weight
    :math:`e^{-(y - m/2)^2/(2\sigma^2)}` times :math:`e^{(s - m/2)(2y - s - m/2)/(2\sigma^2)}`, the
    integrands are homogeneous of degree 1 in the atoms at fixed ``l``, so on each cell the integral is
    the weight's exact integral times a ball of the rest (mean value theorem, positive weight), summed
    over :func:`_cells`, plus :func:`tail_bounds` times :func:`_tail_factors`."""
    dim = case.dim
    _, _, _, mt = tail_bounds(case)
    with ctx.workprec(PREC):
        s = _q(case.sigma)
        inv = 1 / (s * s)
        cen = _q(Fraction(case.m, 2))
        th = [_hull(lo, hi) for lo, hi in box[:dim]]
        lam = _hull(box[dim][0], box[dim][1])
        at = case.atoms()
        na = len(at)
        mp, mq = _means(case, th)
        common = [i for i in range(na) if at[i][0] == at[i][1]]
        differ = [i for i in range(na) if at[i][0] != at[i][1]]
        pairs = [(j, k) for j in range(dim) for k in range(j, dim)]
        G = [arb(0)] * dim
        D = [arb(0)] * dim
        Hs = [arb(0)] * len(pairs)
        for y, w in _cells(case):
            ep = [((mp[i] - cen) * (2 * y - mp[i] - cen) * inv / 2).exp() for i in range(na)]
            eq = [ep[i] if i in common else ((mq[i] - cen) * (2 * y - mq[i] - cen) * inv / 2).exp() for i in range(na)]
            tp = [(y - mp[i]) * inv for i in range(na)]
            tq = [(y - mq[i]) * inv for i in range(na)]
            c0 = sum((ep[i] for i in common), arb(0))
            P0 = sum((ep[i] for i in differ), arb(0))
            Q0 = sum((eq[i] for i in differ), arb(0))
            pp, qq = c0 + P0, c0 + Q0
            lg = pp.log() - qq.log()
            e1, e0 = ((lam - 1) * lg).exp(), (lam * lg).exp()
            al = lam * ((lam - 1) * lg).expm1()
            be = (lam - 1) * (lam * lg).expm1()
            xi = lg.union(arb(0))
            ab = _both(
                al - be,
                _square(lg) / 2 * lam * (lam - 1) * ((lam - 1) * ((lam - 1) * xi).exp() - lam * (lam * xi).exp()),
            )
            ald = ((lam - 1) * lg).expm1() + lam * lg * e1
            bed = (lam * lg).expm1() + (lam - 1) * lg * e0
            Ck, Pk, Qk = [], [], []
            for k in range(dim):
                Ck.append(sum((tp[i] * ep[i] for i in common if k in at[i][0]), arb(0)))
                Pk.append(sum((tp[i] * ep[i] for i in differ if k in at[i][0]), arb(0)))
                Qk.append(sum((tq[i] * eq[i] for i in differ if k in at[i][1]), arb(0)))
            R = pp / qq
            E = [Ck[k] + Pk[k] - R * (Ck[k] + Qk[k]) for k in range(dim)]
            kE = lam * (lam - 1) * ((lam - 2) * lg).exp() / qq
            for k in range(dim):
                G[k] += w * (ab * Ck[k] + al * Pk[k] - be * Qk[k])
                D[k] += w * ((ald - bed) * Ck[k] + ald * Pk[k] - bed * Qk[k])
            for idx, (j, k) in enumerate(pairs):
                cjk = sum(((tp[i] * tp[i] - inv) * ep[i] for i in common if j in at[i][0] and k in at[i][0]), arb(0))
                pjk = sum(((tp[i] * tp[i] - inv) * ep[i] for i in differ if j in at[i][0] and k in at[i][0]), arb(0))
                qjk = sum(((tq[i] * tq[i] - inv) * eq[i] for i in differ if j in at[i][1] and k in at[i][1]), arb(0))
                Hs[idx] += w * (ab * cjk + al * pjk - be * qjk + kE * E[j] * E[k])
        nrm = 1 / (s * (2 * arb.pi()).sqrt()) / na
        fg, fh, fl = _tail_factors(case)
        grad = [x * nrm + arb(0, (fg * mt).upper()) for x in G]
        dl = [x * nrm + arb(0, (fl * mt).upper()) for x in D]
        H = [[arb(0)] * dim for _ in range(dim)]
        for idx, (j, k) in enumerate(pairs):
            H[j][k] = H[k][j] = Hs[idx] * nrm + arb(0, (fh * mt).upper())
        return grad, H, dl


def _amax(x: arb) -> arb:
    return arb(max(abs(x.lower()), abs(x.upper())))


def _star(n: int) -> list[Fraction]:
    return [Fraction(0)] * (n - 1) + [Fraction(1), Fraction(0)]


def _signed_gradient(
    case: OrderCase, box: Sequence[tuple[Fraction, Fraction]]
) -> tuple[list[arb], list[list[arb]], list[arb], list[arb] | None]:
    """Gradient over the box (direct, intersected with the mean-value form about the centre where a
    sign is open), the Hessian, the lambda derivative, and the centre gradient (or None)."""
    dim = case.dim
    g, H, dl = box_derivatives(case, box)
    open_ = [k for k in range(dim) if box[k][0] != box[k][1] and not (g[k] > 0 or g[k] < 0)]
    if not open_:
        return g, H, dl, None
    c = [(lo + hi) / 2 for lo, hi in box[:dim]]
    a, b = box[dim]
    g0 = g_gradient(case, c, (a + b) / 2)
    with ctx.workprec(PREC):
        out = list(g)
        for k in open_:
            mv = g0[k] + dl[k] * arb(0, _q((b - a) / 2).upper())
            for j in range(dim):
                mv += H[k][j] * arb(0, _q((box[j][1] - box[j][0]) / 2).upper())
            out[k] = _both(g[k], mv)
    return out, H, dl, g0


def _ray_ok(case: OrderCase, v: Sequence[Fraction], lam_side: tuple[Fraction, Fraction]) -> bool:
    """Signs on hull(v, theta*) x the order side select theta* in every side where they differ."""
    star = _star(case.n)
    S = [(min(x, y), max(x, y)) for x, y in zip(v, star, strict=True)]
    vary = [k for k in range(case.dim) if S[k][0] != S[k][1]]
    if not vary:
        return True
    g, _, _, _ = _signed_gradient(case, [*S, lam_side])
    return all((g[k] > 0) if star[k] > v[k] else (g[k] < 0) for k in vary)


def _close(
    case: OrderCase, box: Sequence[tuple[Fraction, Fraction]], ua: arb, ub: arb, allow_ray: bool, extremal: bool = True
) -> tuple[bool, int | None]:
    """One attempt on one box: (closed, widest theta side to bisect otherwise).  ``extremal`` False:
    the vertex (0..0, 1, 0) gets no special treatment (its equality holds at the case's sigma only)."""
    dim = case.dim
    a, b = box[dim]
    g, H, dl, g0 = _signed_gradient(case, box)
    wide = [box[k][0] != box[k][1] for k in range(dim)]
    signs = [0 if not wide[k] else 1 if g[k] > 0 else -1 if g[k] < 0 else 0 for k in range(dim)]
    free = [k for k in range(dim) if wide[k] and signs[k] == 0]
    split = max(range(dim), key=lambda k: box[k][1] - box[k][0])
    if not free:
        v = [hi if sg > 0 else lo for (lo, hi), sg in zip(box[:dim], signs, strict=True)]
        if extremal and v == _star(case.n):
            return True, split
        if allow_ray and _ray_ok(case, v, (a, b)):
            return True, split
        ok = bool(arb(g_value(case, v, a).upper()) <= ua) and bool(arb(g_value(case, v, b).upper()) <= ub)
        return ok, split
    c = [(lo + hi) / 2 for lo, hi in box[:dim]]
    cf = [hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(box[:dim], signs, strict=True)]
    if g0 is None:
        g0 = g_gradient(case, c, (a + b) / 2)
    with ctx.workprec(PREC):
        half = [_q((hi - lo) / 2) for lo, hi in box[:dim]]
        quad = arb(0)
        for j in free:
            for k in free:
                quad += _amax(H[j][k]) * half[j] * half[k] / 2
        for lam, u in ((a, ua), (b, ub)):
            lin = arb(0)
            for k in free:
                d = g0[k] + dl[k] * _q(lam - (a + b) / 2)
                for j in range(dim):
                    if cf[j] != c[j]:
                        d += H[k][j] * _q(cf[j] - c[j])
                lin += _amax(_both(g[k], d)) * half[k]
            if not arb((g_value(case, cf, lam) + lin + quad).upper()) <= u:
                return False, split
    return True, split


def reprove_order_box(
    case: OrderCase,
    box: Sequence[tuple[Fraction, Fraction]],
    upper_a: arb | None,
    upper_b: arb | None,
    *,
    max_boxes: int = 64,
) -> tuple[bool, int, str]:
    r"""Re-prove :math:`G_\lambda \le \mathrm{RHS}_\lambda` on ``box`` (theta sides, then the order side
    ``[a, b]``) through :math:`\sup G_a \le` ``upper_a`` and :math:`\sup G_b \le` ``upper_b`` (checked
    against :func:`order_targets` first; None: the targets themselves), or by the extremal or ray rule
    (module docstring).  Bisects theta sides of a box that does not close, up to ``max_boxes`` boxes.
    Returns ``(ok, boxes evaluated, message)``."""
    dim = case.dim
    a, b = box[dim]
    ta, tb = order_targets(case, a, b)
    ua = ta if upper_a is None else upper_a
    ub = tb if upper_b is None else upper_b
    if not (ua <= ta and ub <= tb):
        return False, 0, "a stated bound is above the right-hand side target (chord lower bound)"
    stack = [list(box)]
    count = 0
    while stack:
        bx = stack.pop()
        count += 1
        if count > max_boxes:
            return False, count, f"not re-proven within {max_boxes} boxes"
        ok, k = _close(case, bx, ua, ub, allow_ray=True)
        if ok:
            continue
        assert k is not None
        lo, hi = bx[k]
        if lo == hi:
            return False, count, "a box without width does not close"
        mid = (lo + hi) / 2
        left, right = list(bx), list(bx)
        left[k], right[k] = (lo, mid), (mid, hi)
        stack += [right, left]
    return True, count, "re-proven"
