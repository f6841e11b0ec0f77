r"""Computer-assisted proof of Conjecture 1 in 1-d for small datasets: interval branch and bound over
the dataset values (model ``range``; in 1-d ``clip`` is the same set up to translation).

**Setting.**  ``n`` rows, fixed-size sampling without replacement of ``m < n`` rows (:math:`r = m/n`),
replace-one neighbours: rows :math:`1..n-1` take values :math:`x_1, \dots, x_{n-1}` in both datasets,
row ``n`` takes :math:`u` in :math:`x` and :math:`u'` in :math:`x'`, all values in an interval of length 1.
The output is :math:`N(\sum_{i\in S} v_i, \sigma^2)` for a uniform ``m``-subset :math:`S`, so

.. math:: p = \binom{n}{m}^{-1}\sum_{|S|=m} \varphi_\sigma(\cdot - s_S), \qquad
          q = \binom{n}{m}^{-1}\sum_{|S|=m} \varphi_\sigma(\cdot - s'_S)

(:math:`s_S` the sum of the values in :math:`S` with row ``n`` at ``u``, :math:`s'_S` with ``u'``).  The
claim proven, per case :math:`(n, m, \lambda, \sigma)` with integer :math:`\lambda`, is

.. math:: G_\lambda(p\|q) = \int p^\lambda q^{1-\lambda} \;\le\; G_\lambda(r\mu_1 + (1-r)\mu_0\|\mu_0)
          \quad\text{for every admissible } (x_1..x_{n-1}, u, u'),

equivalently ratio = LHS / RHS :math:`\le 1` for the Rényi divergences (:math:`D = \log G/(\lambda-1)`).

**Reduction to a compact domain (proof).**  (i) *Translation*: adding :math:`t` to every value adds
:math:`mt` to every :math:`s_S, s'_S` (each subset has ``m`` rows), so ``p`` and ``q`` are translated by the
same amount and :math:`G_\lambda` does not change.  A set of diameter :math:`\le 1` on the line lies in
:math:`[a, a+1]`, :math:`a` its minimum; translating by :math:`-a` puts every value in :math:`[0, 1]`.
(ii) *Permutations* of rows :math:`1..n-1` permute the subsets, so ``p`` and ``q`` do not change: WLOG
:math:`x_1 \le \dots \le x_{n-1}`.  (iii) *Reflection* :math:`z \mapsto 1 - z` of all values maps every
sum :math:`s \mapsto m - s`, an isometry of the line applied to both ``p`` and ``q``: :math:`G_\lambda`
does not change; it maps :math:`u - u'` to :math:`u' - u` and keeps the values in :math:`[0,1]`, so
WLOG :math:`u \ge u'` (then re-sort by (ii)).  Hence the fundamental domain

.. math:: F = \{(x, u, u') \in [0,1]^{n+1} : x_1 \le \dots \le x_{n-1},\ u \ge u'\}

covers every admissible configuration.  (Swapping ``u`` and ``u'`` swaps ``p`` and ``q`` and is *not*
a symmetry of :math:`G_\lambda`; it is not used.)

**The boxes.**  The unit cube :math:`[0,1]^{n+1}` is bisected into closed boxes with dyadic endpoints.
A box with :math:`x_i^{lo} > x_{i+1}^{hi}` for some ``i`` or :math:`u^{hi} < u'^{lo}` does not meet
``F`` (``"outside"``); every other box is proven, so ``F`` is covered.  Per box (centre ``c``,
half-widths :math:`h_k`; coordinates :math:`\theta = (x_1..x_{n-1}, u, u')`):

1. *point values*: :math:`G(c)` and :math:`\partial_k G(c)` by ``acb.integral`` with exact rational
   means plus the tails of :func:`tail_constants` (derivatives under the integral, dominated by the
   tail majorants below): :math:`\partial_k G = \int (p/q)^{\lambda-1}(\lambda\,\partial_k p -
   (\lambda-1)(p/q)\,\partial_k q)`;
2. *Hessian over the box*: :math:`\partial_j\partial_k G` enclosed for every configuration in the box
   (:func:`hessian_box`: a Riemann enclosure, cell width times the ball of the integrand over the
   cell and the box, on cells of :func:`_cells`, plus proven tails).  The integrand is the
   *compensated* one, :math:`\partial_{jk}[p^\lambda q^{1-\lambda} - \lambda p + (\lambda-1)q]`: since
   :math:`\int p = \int q = 1` for every configuration, the subtracted part integrates to 0, and what
   remains vanishes to second order where :math:`p = q`, so its balls are 3-14 times narrower than
   those of :math:`\partial_{jk}(p^\lambda q^{1-\lambda})` (formula and tails in :func:`hessian_box`);
   it only enters multiplied by box widths.  By default (``"factored"``) every atom is divided by the
   weight :math:`w(y) = e^{-(y-c)^2/(2\sigma^2)}`, :math:`c = m/2` (the integrand is homogeneous of
   degree 1 in the atoms, so it is :math:`w(y)` times the same formula in the divided atoms, whose
   exponents are linear in ``y``), and on each cell the weight is integrated exactly (``erfc``) and
   multiplied by the ball of the rest (mean value theorem for integrals, :math:`w > 0`): narrow balls
   on half the cells.  The same pass encloses :math:`\partial_k G` over the box, intersected with the
   mean-value form below;
3. *signs*: :math:`\partial_k G` on the box lies in :math:`\partial_k G(c) + \sum_j [H_{kj}]\,[-h_j, h_j]`
   (mean value theorem).  If every coordinate has a certified sign, :math:`G` is monotone in each
   coordinate on the box (a product set), so its supremum is the value at the vertex :math:`v` that
   the signs select (``"monotone"``).  If :math:`v` is the extremal configuration
   :math:`(0,\dots,0;\ u = 1,\ u' = 0)`, then :math:`q = \mu_0` and :math:`p = (1-r)\mu_0 + r\mu_1`
   exactly (all other rows at :math:`u'`, :math:`|u - u'| = 1`), so :math:`G(v)` *equals* the RHS:
   proven with equality (``"extremal"``).  Else :math:`G(v)` is a point enclosure compared with the RHS;
4. *Taylor* (``"taylor"``): the signed coordinates are fixed at the end their sign selects (the
   supremum over the box is attained on that face, by the same monotonicity), and on the face, with
   ``c'`` its centre and ``J`` the unsigned coordinates,
   :math:`G(\theta) \le G(c') + \sum_{k\in J} |\partial_k G(c')|\,h_k +
   \tfrac12\sum_{j,k\in J}\max|H_{jk}|\,h_j h_k` (Taylor's formula with Lagrange remainder);
5. else bisect, at its midpoint, the coordinate ``j`` with the largest
   :math:`w_j\sum_{k\in J}\max|H_{kj}| + [j\in J]\,w_j\max|\partial_j G|`, or the widest side when
   a score is not finite (a heuristic; any choice is sound).  When the Taylor bound exceeds the RHS
   by more than :data:`HOPELESS` of its Taylor terms, both halves are bisected again without being
   evaluated (a heuristic: a box is only ever recorded as proven after its own evaluation).

Point values are ``acb.integral`` enclosures at a tolerance the verdict needs (:data:`GRAD_BITS`,
:data:`G_BITS`, again at :data:`G_BITS_RETRY` when the radius decides); the integrands of ``G`` and of
every :math:`\partial_k G` at a point share their nodes (:class:`_Integrands`).

The extremal configuration is a vertex of ``F`` where the ratio is exactly 1, so no plain interval
bound closes a box that touches it; step 3 closes it once the box is small enough that all partial
derivatives have certified signs there (in every case run they are strictly signed at the vertex: :math:`G` increases
with ``u`` and decreases with every :math:`x_i` and with ``u'``).

**Tails (proof).**  All means lie in :math:`[0, m]`.  For :math:`y \ge m` every
:math:`\varphi_\sigma(y - s) \le \varphi_\sigma(y - m)` and :math:`\varphi_\sigma(y - s') \ge
\varphi_\sigma(y)`, so :math:`p^\lambda q^{1-\lambda} \le \varphi_\sigma(y-m)^\lambda\varphi_\sigma(y)^{1-\lambda}
= K\varphi_\sigma(y - \lambda m)` with :math:`K = e^{\lambda(\lambda-1)m^2/(2\sigma^2)}` (complete the
square); for :math:`y \le 0` likewise :math:`\le K\varphi_\sigma(y + (\lambda-1)m)`.  For the
derivative integrands, :math:`|\partial_k p| \le p\,M/\sigma^2` and :math:`|\partial_k q| \le q\,M/\sigma^2`
with :math:`M(y) = \max_S|y - s_S| \le |y| + m`, so :math:`|\text{integrand}_k| \le
(2\lambda-1)\,p^\lambda q^{1-\lambda}(|y|+m)/\sigma^2`; with
:math:`\int_U^\infty (y + m)\varphi_\sigma(y - c) = \sigma^2\varphi_\sigma(U - c) + (c+m)\bar\Phi((U-c)/\sigma)`.
These bounds hold for every configuration in :math:`[0,1]^{n+1}` and are added as radius.

Only integer orders are supported (then :math:`p^\lambda/q^{\lambda-1}` is a rational function of
exponentials, analytic wherever :math:`q \ne 0`, which ``acb.integral`` checks).  The RHS is
:func:`rigorous_rdp.research.constant.log_g_mixture` (the finite sum (9.5)).

A box that is not proven at the depth limit is reported as *open* with its certified upper bound;
a case is "proven" only when no box is open.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flint import acb, arb, ctx

from ..arith import decimal_lower, decimal_upper, to_arb, workprec
from .constant import log_g_mixture

__all__ = [
    "Leaves",
    "ProofCase",
    "ProofResult",
    "box_bounds",
    "g_box",
    "g_point",
    "grad_point",
    "hessian_box",
    "hessian_tail",
    "hessian_tail_density",
    "is_extremal",
    "min_zero_faces",
    "outside_domain",
    "prove_case",
    "rhs_g",
    "tail_constants",
]

PREC = 80


@dataclass(frozen=True)
class ProofCase:
    r"""One case of the proof: ``n`` rows, batch ``m`` (:math:`1 \le m < n`), integer order ``lam`` in
    [2, 16], noise ``sigma`` in [1/2, 64] (exact rationals)."""

    n: int
    m: int
    lam: int
    sigma: Fraction

    def __post_init__(self) -> None:
        if not 2 <= self.n <= 6:
            raise ValueError(f"rows must be an integer in [2, 6]. Found {self.n}.")
        if not 1 <= self.m <= self.n - 1:
            raise ValueError(f"batch must be an integer in [1, rows - 1]. Found {self.m}.")
        if not 2 <= self.lam <= 16:
            raise ValueError(f"order must be an integer in [2, 16]. Found {self.lam}.")
        if not Fraction(1, 2) <= self.sigma <= 64:
            # below 1/2 neither enclosure is tested: the balls of an atom over a cell lose their finite
            # ends on ever narrower boxes, and the re-proof of `verify` (reference/conjecture_boxes.py)
            # needs cells shrinking with sigma; a certificate nobody can check is not offered
            raise ValueError(f"sigma must be in [1/2, 64]. Found {self.sigma}.")

    @property
    def r(self) -> Fraction:
        return Fraction(self.m, self.n)

    @property
    def dim(self) -> int:
        """Number of coordinates: x_1..x_{n-1}, u, u'."""
        return self.n + 1

    def subsets(self) -> list[tuple[int, ...]]:
        return list(itertools.combinations(range(self.n), self.m))


Box = list[tuple[Fraction, Fraction]]


def outside_domain(case: ProofCase, box: Sequence[tuple[Fraction, Fraction]]) -> bool:
    r"""True when the box cannot meet the fundamental domain ``F`` (module docstring): some
    :math:`x_i^{lo} > x_{i+1}^{hi}` or :math:`u^{hi} < u'^{lo}`."""
    k = case.n - 1
    if any(box[i][0] > box[i + 1][1] for i in range(k - 1)):
        return True
    return box[k][1] < box[k + 1][0]


def min_zero_faces(dim: int) -> list[Box]:
    r"""The two faces :math:`\{x_1 = 0\}` and :math:`\{u' = 0\}` of :math:`[0,1]^{\text{dim}}` (``dim`` =
    n + 1 coordinates x_1..x_{n-1}, u, u'; a further last side, like ``t``, is not included).

    **Translation reduction (proof).**  ``G`` does not change when every value is translated by the
    same amount (module docstring, (i)); the reflection (iii) and the sorting (ii) keep the values in
    an interval of length 1 and are done first, then the translation by minus the minimum keeps the
    order and ``u >= u'`` and puts the minimum at 0, every value in :math:`[0, 1]`.  In ``F`` the
    minimum of all values is :math:`\min(x_1, u')` (:math:`x_1` the smallest of the ``x_i``,
    :math:`u' \le u`), so every admissible configuration has the divergences of one in
    :math:`F \cap (\{x_1 = 0\} \cup \{u' = 0\})`: boxes that tile these two faces (dimension ``n``)
    cover it as well as boxes that tile the cube (dimension ``n + 1``)."""
    z, one = (Fraction(0), Fraction(0)), (Fraction(0), Fraction(1))
    return [[z] + [one] * (dim - 1), [one] * (dim - 1) + [z]]


def is_extremal(case: ProofCase, point: Sequence[Fraction]) -> bool:
    """The configuration where LHS = RHS exactly: other rows 0, u = 1, u' = 0."""
    k = case.n - 1
    return all(x == 0 for x in point[:k]) and point[k] == 1 and point[k + 1] == 0


@functools.lru_cache(maxsize=64)
def tail_constants(case: ProofCase, prec: int = PREC) -> tuple[Fraction, Fraction, arb, arb]:
    r"""Window ``[L, U]`` (rationals) and proven tail bounds (arb, upper ends) outside it, for
    :math:`\int p^\lambda q^{1-\lambda}` and for every :math:`|\partial_k G|` integrand, valid for every
    configuration with values in :math:`[0,1]` (module docstring, "Tails")."""
    lam, m = case.lam, case.m
    s = float(case.sigma)
    log_k = lam * (lam - 1) * m * m / (2 * s * s)
    t = math.sqrt(2 * (log_k + 60 * math.log(2) + 8)) + 1  # K * Phi-bar(T) well below 2^-60
    L = Fraction(math.floor(-(lam - 1) * m - t * s))
    U = Fraction(math.ceil(lam * m + t * s))
    with workprec(prec):
        sig = to_arb(case.sigma)
        K = (arb(lam * (lam - 1) * m * m) / (2 * sig * sig)).exp()

        def phibar(x: arb) -> arb:
            return (x / arb(2).sqrt()).erfc() / 2

        def phi_s(x: arb) -> arb:
            return (-(x * x) / (2 * sig * sig)).exp() / (sig * (2 * arb.pi()).sqrt())

        cu = arb(lam * m)
        cl = arb((lam - 1) * m)
        zu = (to_arb(U) - cu) / sig
        zl = (-to_arb(L) - cl) / sig
        g_tail = K * (phibar(zu) + phibar(zl))
        d_tail = (
            (2 * lam - 1)
            / (sig * sig)
            * K
            * (
                sig * sig * phi_s(to_arb(U) - cu)
                + (cu + m) * phibar(zu)
                + sig * sig * phi_s(-to_arb(L) - cl)
                + (cl + m) * phibar(zl)
            )
        )
    return L, U, g_tail, d_tail


def _means(case: ProofCase, theta: Sequence[acb]) -> tuple[list[acb], list[acb], list[list[int]], list[list[int]]]:
    """Means of the atoms of p and q and, per coordinate, the atoms whose mean moves with it."""
    k = case.n - 1
    mp, mq = [], []
    dp: list[list[int]] = [[] for _ in range(case.dim)]
    dq: list[list[int]] = [[] for _ in range(case.dim)]
    for j, S in enumerate(case.subsets()):
        sp = acb(0)
        sq = acb(0)
        for i in S:
            if i < k:
                sp += theta[i]
                sq += theta[i]
                dp[i].append(j)
                dq[i].append(j)
            else:
                sp += theta[k]
                sq += theta[k + 1]
                dp[k].append(j)
                dq[k + 1].append(j)
        mp.append(sp)
        mq.append(sq)
    return mp, mq, dp, dq


def _theta_balls(box: Sequence[tuple[Fraction, Fraction]]) -> list[acb]:
    out = []
    for lo, hi in box:
        a, b = to_arb(lo), to_arb(hi)
        out.append(acb(a.union(b)))
    return out


def _integrate(case: ProofCase, f: Callable[[acb, bool], acb], rel_bits: int) -> arb:
    """``acb.integral`` of ``f`` over the window ``[L, U]`` of :func:`tail_constants` (relative and
    absolute tolerance ``2^-rel_bits``; the result is an enclosure whatever the tolerance)."""
    L, U, _, _ = tail_constants(case)
    tol = arb(2) ** (-rel_bits)
    return acb.integral(f, to_arb(L), to_arb(U), rel_tol=tol, abs_tol=tol, eval_limit=200000).real


class _Integrands:
    r"""The integrands of :math:`G` and of every :math:`\partial_k G` at one configuration (or box of
    configurations, ball-valued means), evaluated together: ``acb.integral`` calls them at the same
    nodes for every component (about 3 in 4 calls repeat a node), so the values at a node are kept
    and the atoms (Gaussians) are computed once per node, those common to ``p`` and ``q`` once for
    both.  The value at a node depends on the node alone, so reusing it changes no result."""

    def __init__(self, case: ProofCase, theta: Sequence[acb]) -> None:
        k0 = case.n - 1
        common, dp, dq = _atom_groups(case)
        self.mc = [sum((theta[i] for i in R), acb(0)) for R in common]
        self.mp = [sum((theta[i] for i in R), acb(0)) for R in dp]
        self.mq = [sum((theta[i] for i in R), acb(0)) for R in dq]
        dim = case.dim
        self.ic = [tuple(a for a, R in enumerate(common) if k in R) for k in range(dim)]
        self.ip = [tuple(a for a, R in enumerate(dp) if k in R) for k in range(dim)]
        self.iq = [tuple(a for a, R in enumerate(dq) if k in R) for k in range(dim)]
        assert all(k0 + 1 not in R for R in dp) and all(k0 not in R for R in dq)
        sig = to_arb(case.sigma)
        self.inv2s2 = acb(1 / (2 * sig * sig))
        self.inv_s2 = acb(1 / (sig * sig))
        self.norm = acb(1 / (sig * (2 * arb.pi()).sqrt()) / len(case.subsets()))
        self.lam = case.lam
        self.dim = dim
        self.memo: dict[tuple[Any, ...], list[Any] | None] = {}

    def _node(self, z: acb, analytic: bool) -> list[Any] | None:
        """Per node: ``[G integrand, gradient integrands or None, what they are computed from]``;
        None where ``analytic`` is asked and ``q`` may vanish."""
        re, im = z.real, z.imag
        key = (re.mid().man_exp(), re.rad().man_exp(), im.mid().man_exp(), im.rad().man_exp(), analytic)
        if key in self.memo:
            return self.memo[key]
        inv2s2 = self.inv2s2
        tc = [z - a for a in self.mc]
        tp = [z - a for a in self.mp]
        tq = [z - a for a in self.mq]
        ec = [(-(t * t) * inv2s2).exp() for t in tc]
        ep = [(-(t * t) * inv2s2).exp() for t in tp]
        eq = [(-(t * t) * inv2s2).exp() for t in tq]
        c0 = acb(0)
        for e in ec:
            c0 += e
        p = c0
        for e in ep:
            p += e
        q = c0
        for e in eq:
            q += e
        if analytic and q.contains(0):
            self.memo[key] = None
            return None
        R = p / q
        rl1 = R ** (self.lam - 1)
        node = [self.norm * p * rl1, None, (tc, tp, tq, ec, ep, eq, R, rl1)]
        self.memo[key] = node
        return node

    def _grads(self, node: list[Any]) -> list[acb]:
        if node[1] is None:
            tc, tp, tq, ec, ep, eq, R, rl1 = node[2]
            lam = self.lam
            dc = [t * e for t, e in zip(tc, ec, strict=True)]
            dpp = [t * e for t, e in zip(tp, ep, strict=True)]
            dqq = [t * e for t, e in zip(tq, eq, strict=True)]
            fac = self.norm * rl1 * self.inv_s2
            lr = (lam - 1) * R
            grads = []
            for k in range(self.dim):
                sc = acb(0)
                for a in self.ic[k]:
                    sc += dc[a]
                sp = sc
                for a in self.ip[k]:
                    sp += dpp[a]
                sq = sc
                for a in self.iq[k]:
                    sq += dqq[a]
                grads.append(fac * (lam * sp - lr * sq))
            node[1] = grads
            node[2] = None
        return node[1]  # type: ignore[no-any-return]

    def g(self, z: acb, analytic: bool) -> acb:
        node = self._node(z, analytic)
        return acb(arb.nan()) if node is None else node[0]

    def grad(self, k: int) -> Callable[[acb, bool], acb]:
        def f(z: acb, analytic: bool) -> acb:
            node = self._node(z, analytic)
            return acb(arb.nan()) if node is None else self._grads(node)[k]

        return f


@functools.lru_cache(maxsize=4)
def _integrands(case: ProofCase, box: tuple[tuple[Fraction, Fraction], ...]) -> _Integrands:
    """The :class:`_Integrands` of a box (a point: zero-width sides), at :data:`PREC` bits."""
    with workprec(PREC):
        return _Integrands(case, _theta_balls(box))


def _g_integrand(case: ProofCase, theta: Sequence[acb]) -> Callable[[acb, bool], acb]:
    return _Integrands(case, theta).g


def _grad_integrand(case: ProofCase, theta: Sequence[acb], k: int) -> Callable[[acb, bool], acb]:
    return _Integrands(case, theta).grad(k)


def g_box(case: ProofCase, box: Sequence[tuple[Fraction, Fraction]], rel_bits: int = 24) -> arb:
    r"""Enclosure of :math:`G_\lambda(p\|q)` valid for every configuration in the box (ball-valued means in
    ``acb.integral``, tails included; first order in the box width, so only useful for small boxes)."""
    with workprec(PREC):
        _, _, g_tail, _ = tail_constants(case)
        v = _integrate(case, _integrands(case, tuple((lo, hi) for lo, hi in box)).g, rel_bits)
        return arb(v.lower()).union(arb(v.upper() + g_tail.upper()))


def g_point(case: ProofCase, point: Sequence[Fraction], rel_bits: int = 44) -> arb:
    r"""Tight enclosure of :math:`G_\lambda(p\|q)` at one configuration (exact rational values)."""
    return g_box(case, [(x, x) for x in point], rel_bits=rel_bits)


def grad_point(
    case: ProofCase, point: Sequence[Fraction], rel_bits: int = 20, coords: Sequence[int] | None = None
) -> list[arb]:
    r"""Enclosures of :math:`\partial G/\partial\theta_k` at one configuration, ``k`` over
    (x_1..x_{n-1}, u, u') (differentiation under the integral; tails of :func:`tail_constants`).
    With ``coords``, only those coordinates are computed (the others are returned as NaN balls)."""
    with workprec(PREC):
        _, _, _, d_tail = tail_constants(case)
        fam = _integrands(case, tuple((x, x) for x in point))
        want = set(range(case.dim) if coords is None else coords)
        return [
            _integrate(case, fam.grad(k), rel_bits) + arb(0, d_tail.upper()) if k in want else arb.nan()
            for k in range(case.dim)
        ]


def hessian_tail(case: ProofCase, L: Fraction, U: Fraction) -> arb:
    r"""Upper bound, outside ``[L, U]``, of :math:`\int |\partial_j\partial_k (p^\lambda q^{1-\lambda})|`
    for every ``j, k`` and every configuration in :math:`[0,1]^{n+1}`.

    With :math:`f = e^\ell`, :math:`\ell = \lambda\log p + (1-\lambda)\log q`:
    :math:`\partial_{jk} f = f(\ell_j\ell_k + \ell_{jk})`, :math:`|p_k/p| \le M/\sigma^2`,
    :math:`|p_{jk}/p| \le M^2/\sigma^4 + 1/\sigma^2` (same for ``q``), so
    :math:`|\partial_{jk} f| \le f\,c\,(M^2 + \sigma^2)/\sigma^4` with
    :math:`c = (2\lambda-1)^2 + 2(2\lambda-1)`, :math:`M \le |y| + m`; then the Gaussian majorant of the
    module docstring and :math:`\int_T^\infty ((t+a)^2 + \sigma^2)\varphi_\sigma(t)\,dt =
    \sigma^2 T\varphi_\sigma(T) + 2a\sigma^2\varphi_\sigma(T) + (a^2 + 2\sigma^2)\bar\Phi(T/\sigma)`.
    """
    lam, m = case.lam, case.m
    sig = to_arb(case.sigma)
    K = (arb(lam * (lam - 1) * m * m) / (2 * sig * sig)).exp()
    c2 = (2 * lam - 1) ** 2 + 2 * (2 * lam - 1)

    def side(T: arb, a: arb) -> arb:
        phi = (-(T * T) / (2 * sig * sig)).exp() / (sig * (2 * arb.pi()).sqrt())
        pb = (T / sig / arb(2).sqrt()).erfc() / 2
        return sig * sig * T * phi + 2 * a * sig * sig * phi + (a * a + 2 * sig * sig) * pb

    up = side(to_arb(U) - lam * m, arb(lam * m + m))
    lo = side(-to_arb(L) - (lam - 1) * m, arb((lam - 1) * m + m))
    return c2 * K * (up + lo) / sig**4


def _gauss_range(t: arb, inv2s2: arb) -> arb:
    r"""Ball containing :math:`e^{-t^2/(2\sigma^2)}` for every ``t`` in the ball, from its exact end
    values (so its lower end stays positive; ``arb.exp`` of a wide ball is not)."""
    lo, hi = t.lower(), t.upper()
    if lo > 0:
        dmin, dmax = lo, hi
    elif hi < 0:
        dmin, dmax = -hi, -lo
    else:
        dmin, dmax = arb(0), arb(max(-lo, hi))
    a = (-(dmax * dmax) * inv2s2).exp()
    b = (-(dmin * dmin) * inv2s2).exp()
    return arb(a.lower()).union(arb(b.upper()))


def _shifted_poly_sums(R: arb, lam: int) -> tuple[arb, arb, arb]:
    r"""``(S0, S1, S2)`` with :math:`R^\lambda - 1 = (R-1)S_0`, :math:`R^{\lambda-1} - 1 = (R-1)S_1` and
    :math:`\lambda R^{\lambda-1} - (\lambda-1)R^\lambda - 1 = -(R-1)^2 S_2`:
    :math:`S_0 = \sum_{i<\lambda} R^i`, :math:`S_1 = \sum_{i<\lambda-1} R^i`,
    :math:`S_2 = \sum_{i<\lambda-1}(i+1)R^i` (the last: both sides vanish to second order at
    :math:`R = 1` and the quotient is found by synthetic division twice)."""
    pw = [arb(1)]
    for _ in range(lam - 1):
        pw.append(pw[-1] * R)
    s1 = sum(pw[: lam - 1], arb(0))
    s0 = s1 + pw[lam - 1]
    s2 = sum((pw[i] * (i + 1) for i in range(lam - 1)), arb(0))
    return s0, s1, s2


def hessian_tail_density(case: ProofCase, L: Fraction, U: Fraction) -> arb:
    r"""Upper bound, outside ``[L, U]``, of :math:`\int |\partial_j\partial_k p|` (and the same for ``q``),
    for every ``j, k`` and every configuration in :math:`[0,1]^{n+1}` (``p`` normalised).

    :math:`|\partial_{jk} p| \le p\,(M^2+\sigma^2)/\sigma^4` (atom factor :math:`(t^2-\sigma^2)/\sigma^4`);
    for :math:`y \ge U` (:math:`> m`) every atom has :math:`\varphi_\sigma(y - s) \le \varphi_\sigma(y - m)`
    and :math:`M \le y + m`; for :math:`y \le L` (:math:`< 0`) :math:`\varphi_\sigma(y-s) \le \varphi_\sigma(y)`
    and :math:`M \le |y| + m`; then the moment formula of :func:`hessian_tail` with
    :math:`t = y - m,\ a = 2m` and :math:`t = -y,\ a = m`."""
    m = case.m
    sig = to_arb(case.sigma)

    def side(T: arb, a: arb) -> arb:
        phi = (-(T * T) / (2 * sig * sig)).exp() / (sig * (2 * arb.pi()).sqrt())
        pb = (T / sig / arb(2).sqrt()).erfc() / 2
        return sig * sig * T * phi + 2 * a * sig * sig * phi + (a * a + 2 * sig * sig) * pb

    return (side(to_arb(U) - m, arb(2 * m)) + side(-to_arb(L), arb(m))) / sig**4


@functools.lru_cache(maxsize=64)
def _atom_groups(case: ProofCase) -> tuple[list[frozenset[int]], list[frozenset[int]], list[frozenset[int]]]:
    """Coordinates each atom mean moves with: the atoms common to p and q (subsets without row n), and
    the differing atoms of p (row n at ``u``) and of q (row n at ``u'``), in the same order."""
    k0 = case.n - 1
    common, dp, dq = [], [], []
    for S in case.subsets():
        base = [i for i in S if i < k0]
        if k0 in S:
            dp.append(frozenset([*base, k0]))
            dq.append(frozenset([*base, k0 + 1]))
        else:
            common.append(frozenset(base))
    return common, dp, dq


def _cells(case: ProofCase, cells_per_sigma: int, coarse_per_sigma: int = 8) -> list[tuple[Fraction, Fraction]]:
    r"""Closed cells tiling the window ``[L, U]`` of :func:`tail_constants` (exact rational ends): width
    :math:`\sigma/\text{cells\_per\_sigma}` on the core :math:`[-(\lambda-1)m - 4\sigma,\ \lambda m + 4\sigma]`
    where the integrands live, :math:`\sigma/\text{coarse\_per\_sigma}` outside it (any tiling gives an
    enclosure; coarse cells only cost width where the integrand is tiny)."""
    L, U, _, _ = tail_constants(case)
    lam, m, s = case.lam, case.m, case.sigma
    core_lo = max(L, Fraction(-(lam - 1) * m) - 4 * s)
    core_hi = min(U, Fraction(lam * m) + 4 * s)
    out: list[tuple[Fraction, Fraction]] = []

    def run(a: Fraction, b: Fraction, h: Fraction) -> None:
        while a < b:
            out.append((a, min(a + h, b)))
            a = min(a + h, b)

    run(L, core_lo, s / coarse_per_sigma)
    run(core_lo, core_hi, s / cells_per_sigma)
    run(core_hi, U, s / coarse_per_sigma)
    return out


@functools.lru_cache(maxsize=16)
def _cell_balls(case: ProofCase, cells_per_sigma: int, prec: int) -> tuple[tuple[arb, arb], ...]:
    """The cells of :func:`_cells` as (ball of the cell, width) at ``prec`` bits."""
    with workprec(prec):
        return tuple((to_arb(a0).union(to_arb(a1)), to_arb(a1 - a0)) for a0, a1 in _cells(case, cells_per_sigma))


def _ball_sums(terms: Sequence[arb], index_sets: Sequence[tuple[int, ...]]) -> list[arb]:
    """Per index set, the sum of ``terms`` over it (left to right, from 0)."""
    out = []
    for idx in index_sets:
        acc = arb(0)
        for a in idx:
            acc = acc + terms[a]
        out.append(acc)
    return out


def _hessian_compensated(
    case: ProofCase, box: Sequence[tuple[Fraction, Fraction]], cells_per_sigma: int
) -> list[list[arb]]:
    r"""The ``"compensated"`` enclosure of :func:`hessian_box` (see there), without tails."""
    dim = case.dim
    sig = to_arb(case.sigma)
    inv_s2 = 1 / (sig * sig)
    inv2s2 = inv_s2 / 2
    lam = case.lam
    theta = [to_arb(lo).union(to_arb(hi)) for lo, hi in box]
    groups = _atom_groups(case)
    means = [[sum((theta[i] for i in R), arb(0)) for R in grp] for grp in groups]
    pairs = list(itertools.combinations_with_replacement(range(dim), 2))
    has1 = [[tuple(a for a, R in enumerate(grp) if k in R) for k in range(dim)] for grp in groups]
    has2 = [[tuple(a for a, R in enumerate(grp) if j in R and k in R) for j, k in pairs] for grp in groups]
    norm = 1 / (sig * (2 * arb.pi()).sqrt()) / len(case.subsets())
    zero = arb(0)
    npair = len(pairs)
    H = [arb(0)] * npair
    c_lam, c_lam1, c_ll = lam, lam - 1, lam * (lam - 1)
    for y, w in _cell_balls(case, cells_per_sigma, ctx.prec):
        sums0, sums1, sums2 = [], [], []
        for g, mu in enumerate(means):
            t = [y - s for s in mu]
            e = [_gauss_range(ti, inv2s2) for ti in t]
            ts = [ti * inv_s2 for ti in t]
            d1 = [tsa * ea for tsa, ea in zip(ts, e, strict=True)]
            d2 = [(tsa * tsa - inv_s2) * ea for tsa, ea in zip(ts, e, strict=True)]
            tot = zero
            for ea in e:
                tot = tot + ea
            sums0.append(tot)
            sums1.append(_ball_sums(d1, has1[g]))
            sums2.append(_ball_sums(d2, has2[g]))
        c0, p0, q0 = sums0
        q = c0 + q0
        delta = (p0 - q0) / q  # R - 1, from the differing atoms only
        R = 1 + delta
        s0, s1, s2 = _shifted_poly_sums(R, lam)
        rl2 = arb(1)
        for _ in range(lam - 2):
            rl2 *= R
        C1, P1, Q1 = sums1
        D = [-delta * C1[k] + P1[k] - R * Q1[k] for k in range(dim)]
        nd2s = -(delta * delta * s2)
        kp = c_lam * delta * s1
        kq = c_lam1 * delta * s0
        kd = c_ll * rl2
        C2, P2, Q2 = sums2
        for i, (j, k) in enumerate(pairs):
            dd = D[j] * D[k]  # (arb ** 2 of a ball around 0 is nan)
            H[i] += w * (nd2s * C2[i] + kp * P2[i] - kq * Q2[i] + kd * dd / q)
    out = [[arb(0)] * dim for _ in range(dim)]
    for i, (j, k) in enumerate(pairs):
        out[j][k] = out[k][j] = H[i] * norm
    return out


#: where the factored enclosure centres its Gaussian weight: the middle of the range [0, m] of the means
def _weight_centre(case: ProofCase) -> Fraction:
    return Fraction(case.m, 2)


@functools.lru_cache(maxsize=32)
def _weighted_cells(case: ProofCase, cells_per_sigma: int, prec: int) -> tuple[tuple[arb, arb], ...]:
    r"""The cells of :func:`_cells` as (ball of :math:`y - c` over the cell, exact integral of the
    weight :math:`e^{-(y-c)^2/(2\sigma^2)}` over the cell) at ``prec`` bits, ``c`` of
    :func:`_weight_centre` (``erfc`` differences on the side away from ``c``: no cancellation)."""
    c = _weight_centre(case)
    with workprec(prec):
        sig = to_arb(case.sigma)
        half_norm = sig * (2 * arb.pi()).sqrt() / 2
        s2 = sig * arb(2).sqrt()
        out = []
        for a0, a1 in _cells(case, cells_per_sigma, FACTORED_COARSE):
            za, zb = to_arb(a0 - c) / s2, to_arb(a1 - c) / s2
            if a0 >= c:
                wt = half_norm * (za.erfc() - zb.erfc())
            elif a1 <= c:
                wt = half_norm * ((-zb).erfc() - (-za).erfc())
            else:
                wt = half_norm * (zb.erf() - za.erf())
            out.append((to_arb(a0 - c).union(to_arb(a1 - c)), wt))
        return tuple(out)


def _exp_range(x: arb) -> arb:
    """Ball containing :math:`e^t` for every ``t`` in the ball ``x``; from its end values when the ball
    is wide (``arb.exp`` of a wide ball loses its positive lower end)."""
    if x.rad() < 1:
        return x.exp()
    return arb(arb(x.lower()).exp().lower()).union(arb(arb(x.upper()).exp().upper()))


@functools.lru_cache(maxsize=64)
def _factored_plan(case: ProofCase) -> tuple[Any, ...]:
    """Index sets of :func:`_hessian_factored`, per group (common, differing of p, of q): per
    coordinate the atoms whose mean moves with it, and per pair ``(j, k)`` those moving with both;
    and per pair the groups where that set is not empty (the other terms are exactly 0)."""
    dim = case.dim
    groups = _atom_groups(case)
    pairs = list(itertools.combinations_with_replacement(range(dim), 2))
    has1 = [[tuple(a for a, R in enumerate(grp) if k in R) for k in range(dim)] for grp in groups]
    has2 = [[tuple(a for a, R in enumerate(grp) if j in R and k in R) for j, k in pairs] for grp in groups]
    live = [tuple(g for g in range(3) if has2[g][i]) for i in range(len(pairs))]
    return groups, pairs, has1, has2, live


def _sums(terms: Sequence[arb], index_sets: Sequence[tuple[int, ...]], zero: arb) -> list[arb]:
    """Per index set, the sum of ``terms`` over it (left to right; ``zero`` for an empty set)."""
    out = []
    for idx in index_sets:
        if not idx:
            out.append(zero)
            continue
        acc = terms[idx[0]]
        for a in idx[1:]:
            acc = acc + terms[a]
        out.append(acc)
    return out


def _hessian_factored(
    case: ProofCase, box: Sequence[tuple[Fraction, Fraction]], cells_per_sigma: int, *, gradient: bool = False
) -> tuple[list[list[arb]], list[arb] | None]:
    r"""The ``"factored"`` enclosure of :func:`hessian_box` (see there), without tails; with
    ``gradient``, also the enclosure over the box of the compensated first derivatives
    :math:`\int\partial_k[f - \lambda p + (\lambda-1)q] = \partial_k G` (without tails)."""
    dim = case.dim
    sig = to_arb(case.sigma)
    inv_s2 = 1 / (sig * sig)
    lam = case.lam
    cb = to_arb(_weight_centre(case))
    theta = [to_arb(lo).union(to_arb(hi)) for lo, hi in box]
    groups, pairs, has1, has2, live = _factored_plan(case)
    means = [[sum((theta[i] for i in R), arb(0)) - cb for R in grp] for grp in groups]  # mu - c
    ms = [[M * inv_s2 for M in mu] for mu in means]
    halfm = [[M / 2 for M in mu] for mu in means]
    norm = 1 / (sig * (2 * arb.pi()).sqrt()) / len(case.subsets())
    zero = arb(0)
    npair = len(pairs)
    H = [arb(0)] * npair
    Gr = [arb(0)] * dim
    c_lam, c_lam1, c_ll = lam, lam - 1, lam * (lam - 1)
    for Y, wt in _weighted_cells(case, cells_per_sigma, ctx.prec):
        ys = Y * inv_s2
        sums0, sums1, sums2 = [], [], []
        for g in range(3):
            # the atom e^{-(y - mu)^2 / (2 sigma^2)} divided by the weight e^{-(y - c)^2 / (2 sigma^2)}
            e = [_exp_range(m_s * (Y - hm)) for m_s, hm in zip(ms[g], halfm[g], strict=True)]
            ts = [ys - m_s for m_s in ms[g]]  # (y - mu) / sigma^2
            d1 = [tsa * ea for tsa, ea in zip(ts, e, strict=True)]
            d2 = [(tsa * tsa - inv_s2) * ea for tsa, ea in zip(ts, e, strict=True)]
            tot = zero
            for ea in e:
                tot = tot + ea
            sums0.append(tot)
            sums1.append(_sums(d1, has1[g], zero))
            sums2.append(_sums(d2, has2[g], zero))
        c0, p0, q0 = sums0
        q = c0 + q0
        delta = (p0 - q0) / q  # R - 1, from the differing atoms only
        R = 1 + delta
        s0, s1, s2 = _shifted_poly_sums(R, lam)
        rl2 = arb(1)
        for _ in range(lam - 2):
            rl2 *= R
        C1, P1, Q1 = sums1
        D = [-delta * C1[k] + P1[k] - R * Q1[k] for k in range(dim)]
        kp = c_lam * delta * s1
        coef = (-(delta * delta * s2) * wt, kp * wt, -(c_lam1 * delta * s0) * wt)
        wkd = wt * c_ll * rl2 / q
        for i, (j, k) in enumerate(pairs):
            acc = wkd * (D[j] * D[k])
            for g in live[i]:
                acc = acc + coef[g] * sums2[g][i]
            H[i] += acc
        if gradient:
            # d_k[f - lam p + (lam-1) q] = lam (R^(lam-1) - 1) D_k + (R^lam - lam R + lam - 1) q_k
            wkp = wt * kp
            wt2 = wt * _second_order_poly(R, lam) * delta * delta
            for k in range(dim):
                Gr[k] += wkp * D[k] + wt2 * (C1[k] + Q1[k])
    out = [[arb(0)] * dim for _ in range(dim)]
    for i, (j, k) in enumerate(pairs):
        out[j][k] = out[k][j] = H[i] * norm
    return out, ([x * norm for x in Gr] if gradient else None)


def _second_order_poly(R: arb, lam: int) -> arb:
    r""":math:`T(R)` with :math:`R^\lambda - \lambda R + \lambda - 1 = (R-1)^2 T(R)`:
    :math:`T = \sum_{i<\lambda-1} (\lambda-1-i) R^i`."""
    acc = arb(0)
    pw = arb(1)
    for i in range(lam - 1):
        acc += (lam - 1 - i) * pw
        pw *= R
    return acc


def hessian_box(
    case: ProofCase,
    box: Sequence[tuple[Fraction, Fraction]],
    cells_per_sigma: int | None = None,
    method: str = "factored",
) -> list[list[arb]]:
    r"""Enclosures of :math:`\partial_j\partial_k G` valid on the whole box: a Riemann enclosure (cell
    width times the ball of the integrand over the cell and the box) on ``[L, U]``, plus tails.

    ``method="natural"``: the integrand :math:`\partial_{jk} f` (:math:`f = p^\lambda q^{1-\lambda}`) as
    :math:`f(\ell_j\ell_k + \ell_{jk})`, tails :func:`hessian_tail`.  It is large where ``p`` and ``q``
    are large although its integral is small (the part of ``f`` linear in ``p`` and ``q`` integrates to a
    constant), so its balls are wide.

    ``method="compensated"`` (default): since :math:`\int p = \int q = 1` for every configuration,
    :math:`\int\partial_{jk}p = \int\partial_{jk}q = 0` and
    :math:`\partial_{jk}G = \int\partial_{jk}\,[f - \lambda p + (\lambda-1) q]`, whose integrand
    vanishes to second order in :math:`R - 1` (:math:`R = p/q`).  With ``C``, ``P``, ``Q`` the sums over
    the atoms common to ``p`` and ``q`` and over the differing atoms of ``p`` and of ``q`` (subscripts:
    derivatives), :math:`\Delta = R - 1 = (P - Q)/q`, :math:`D_j = p_j - Rq_j = -\Delta C_j + P_j - RQ_j`
    and the sums ``S`` of :func:`_shifted_poly_sums`, differentiating
    :math:`f = p R^{\lambda-1}` twice gives

    .. math:: \partial_{jk}[f - \lambda p + (\lambda-1)q] = -\Delta^2 S_2\,C_{jk}
              + \lambda\Delta S_1\,P_{jk} - (\lambda-1)\Delta S_0\,Q_{jk}
              + \lambda(\lambda-1)R^{\lambda-2}D_jD_k/q,

    (from :math:`\partial_{jk}f = \lambda R^{\lambda-1}p_{jk} - (\lambda-1)R^\lambda q_{jk} +
    \lambda(\lambda-1)R^{\lambda-2}D_jD_k/q`), evaluated on the same cells; tails: :func:`hessian_tail`
    plus :math:`(2\lambda-1)` times :func:`hessian_tail_density`.

    ``method="factored"`` (default): the compensated integrand with every atom divided by the weight
    :math:`e^{-(y-c)^2/(2\sigma^2)}` (:func:`_weight_centre`) and the weight integrated exactly on each
    cell (:func:`_weighted_cells`; module docstring, step 2), on :data:`FACTORED_CELLS` cells per sigma
    in the core and :data:`FACTORED_COARSE` outside, at :data:`FACTORED_PREC` bits; same tails.
    """
    if method not in ("factored", "compensated", "natural"):
        raise ValueError(f"method must be 'factored', 'compensated' or 'natural'. Found {method!r}.")
    if method == "factored":
        with workprec(FACTORED_PREC):
            H, _ = _hessian_factored(case, box, FACTORED_CELLS if cells_per_sigma is None else cells_per_sigma)
            tail = hessian_box_tail(case)
            return [[x + arb(0, tail.upper()) for x in row] for row in H]
    dim = case.dim
    # 256 bits: the ball of exp(-t^2 / (2 sigma^2)) over a cell keeps a positive lower end for spreads
    # up to about e^170 between its ends (midpoint-radius balls)
    with workprec(256):
        if method == "compensated":
            L, U, _, _ = tail_constants(case)
            tail = hessian_tail(case, L, U) + (2 * case.lam - 1) * hessian_tail_density(case, L, U)
            Hc = _hessian_compensated(case, box, 32 if cells_per_sigma is None else cells_per_sigma)
            return [[x + arb(0, tail.upper()) for x in row] for row in Hc]
        L, U, _, _ = tail_constants(case)
        sig = to_arb(case.sigma)
        inv_s2 = 1 / (sig * sig)
        inv2s2 = inv_s2 / 2
        lam = case.lam
        theta = [to_arb(lo).union(to_arb(hi)) for lo, hi in box]
        k0 = case.n - 1
        subs = case.subsets()
        mp, mq = [], []
        ip: list[set[int]] = []
        iq: list[set[int]] = []
        for S in subs:
            rows_p = [i for i in S if i < k0] + ([k0] if k0 in S else [])
            rows_q = [i for i in S if i < k0] + ([k0 + 1] if k0 in S else [])
            mp.append(sum((theta[i] for i in rows_p), arb(0)))
            mq.append(sum((theta[i] for i in rows_q), arb(0)))
            ip.append(set(rows_p))
            iq.append(set(rows_q))
        norm = 1 / (sig * (2 * arb.pi()).sqrt()) / len(subs)
        h = case.sigma / (16 if cells_per_sigma is None else cells_per_sigma)
        ncell = math.ceil((U - L) / h)
        H = [[arb(0)] * dim for _ in range(dim)]
        for c in range(ncell):
            a = L + c * h
            y = to_arb(a).union(to_arb(a + h))

            def parts(means, idx, y=y):
                t = [y - s for s in means]
                e = [_gauss_range(ti, inv2s2) for ti in t]
                tot = sum(e, arb(0))
                g = [sum((t[j] * inv_s2 * e[j] for j in range(len(e)) if k in idx[j]), arb(0)) for k in range(dim)]
                hh = [
                    [
                        sum(
                            (
                                (t[j] * t[j] * inv_s2 - 1) * inv_s2 * e[j]
                                for j in range(len(e))
                                if k in idx[j] and i in idx[j]
                            ),
                            arb(0),
                        )
                        for i in range(dim)
                    ]
                    for k in range(dim)
                ]
                return tot, g, hh

            p, pg, ph = parts(mp, ip)
            q, qg, qh = parts(mq, iq)
            f = p * (p / q) ** (lam - 1) * norm  # no division by a power of a wide ball
            rp = [x / p for x in pg]
            rq = [x / q for x in qg]
            lg = [lam * rp[k] - (lam - 1) * rq[k] for k in range(dim)]
            for j in range(dim):
                for k in range(j, dim):
                    ljk = lam * (ph[j][k] / p - rp[j] * rp[k]) - (lam - 1) * (qh[j][k] / q - rq[j] * rq[k])
                    H[j][k] += f * (lg[j] * lg[k] + ljk)
        tail = hessian_tail(case, L, U)
        hb = to_arb(h)
        for j in range(dim):
            for k in range(j, dim):
                H[j][k] = H[j][k] * hb + arb(0, tail.upper())
                H[k][j] = H[j][k]
        return H


#: cells per sigma and working precision of the factored Hessian enclosure (its balls are narrow: the
#: exponents are linear in y, so no 256 bits are needed to keep lower ends positive)
FACTORED_CELLS = 16
#: cells per sigma outside the core (radii measured unchanged from 8 down to 2: the factored balls stay
#: narrow there and the integrand is tiny)
FACTORED_COARSE = 2
FACTORED_PREC = 128


@functools.lru_cache(maxsize=64)
def hessian_box_tail(case: ProofCase) -> arb:
    r"""Upper bound, outside the window ``[L, U]`` of :func:`tail_constants`, of the integral of every
    compensated Hessian integrand :math:`|\partial_{jk}[f - \lambda p + (\lambda-1)q]|`:
    :func:`hessian_tail` plus :math:`(2\lambda-1)` times :func:`hessian_tail_density`."""
    with workprec(FACTORED_PREC):
        L, U, _, _ = tail_constants(case)
        return hessian_tail(case, L, U) + (2 * case.lam - 1) * hessian_tail_density(case, L, U)


@functools.lru_cache(maxsize=64)
def gradient_box_tail(case: ProofCase) -> arb:
    r"""Upper bound, outside ``[L, U]``, of the integral of every compensated gradient integrand
    :math:`|\partial_k[f - \lambda p + (\lambda-1)q]|`: the ``d_tail`` of :func:`tail_constants` (for
    :math:`\partial_k f`) plus :math:`(2\lambda-1)\,\sigma/2` times :func:`hessian_tail_density`, since
    :math:`|p_k| \le pM/\sigma^2 \le \tfrac{\sigma}{2}\,p(M^2+\sigma^2)/\sigma^4` (AM-GM), the same for ``q``."""
    with workprec(FACTORED_PREC):
        L, U, _, d_tail = tail_constants(case)
        return d_tail + (2 * case.lam - 1) * to_arb(case.sigma) / 2 * hessian_tail_density(case, L, U)


def rhs_g(case: ProofCase) -> arb:
    """Certified enclosure of the RHS :math:`G_\\lambda(r\\mu_1 + (1-r)\\mu_0\\|\\mu_0)`."""
    with workprec(PREC):
        return log_g_mixture(Fraction(case.lam), case.r, case.sigma, PREC).exp()


def _absmax(x: arb) -> arb:
    return arb(max(abs(x.lower()), abs(x.upper())))


def _verdict(method: str, value: arb, rhs_lower: arb, signs: Any, point: Any, split: int) -> dict[str, Any]:
    """A box's result: its proven upper bound of G (the upper end of ``value``) and whether it is
    at most the RHS lower end."""
    up = arb(value.upper())
    return {
        "proven": bool(up <= rhs_lower),
        "method": method,
        "upper": up,
        "signs": signs,
        "point": point,
        "split": split,
    }


def box_bounds(
    case: ProofCase, box: Sequence[tuple[Fraction, Fraction]], rhs_lower: arb, *, exact_rhs: bool = True
) -> dict[str, Any]:
    """Try to prove ``sup_box G <= rhs_lower`` (module docstring, steps 2-4).

    ``exact_rhs``: ``rhs_lower`` is the lower end of the certified RHS, so the extremal vertex (where
    G equals the RHS) needs no evaluation; with False (a test RHS) that vertex is evaluated like any other.

    Returns a dict: ``proven`` (bool), ``method`` (taylor | monotone | extremal), ``upper`` (arb upper
    bound of G on the box, None for ``extremal``), ``signs`` (per coordinate +1, -1 or 0), ``point``
    (the vertex for monotone/extremal, the centre for taylor) and ``split`` (coordinate to bisect).
    """
    dim = case.dim
    with workprec(PREC):
        c = [(lo + hi) / 2 for lo, hi in box]
        half = [to_arb((hi - lo) / 2) for lo, hi in box]
        wide = [box[k][0] != box[k][1] for k in range(dim)]
        # the Hessian and the gradient over the box from one pass over the cells (factored enclosure)
        H, gb = hessian_and_gradient_box(case, box)
        # coordinates whose sign the box gradient leaves open get the mean-value form around the
        # centre too (point values at GRAD_BITS, enough for the signs and the Taylor terms)
        want = [k for k in range(dim) if wide[k] and not (gb[k] > 0 or gb[k] < 0)]
        g = grad_point(case, c, rel_bits=GRAD_BITS, coords=want) if want else [arb.nan()] * dim
        signs = []
        gbox = []
        for k in range(dim):
            gk = gb[k]
            if k in want:
                mv = g[k] + sum((H[k][j] * arb(0, half[j].upper()) for j in range(dim)), arb(0))
                gk = _meet(gk, mv)
            gbox.append(gk)
            signs.append(0 if not wide[k] else 1 if gk > 0 else -1 if gk < 0 else 0)
        free = [k for k in range(dim) if wide[k] and signs[k] == 0]
        if not free:
            v = [hi if sg > 0 else lo for (lo, hi), sg in zip(box, signs, strict=True)]
            if exact_rhs and is_extremal(case, v):
                return {"proven": True, "method": "extremal", "upper": None, "signs": signs, "point": v}
            return _verdict("monotone", _g_point_adaptive(case, v, rhs_lower), rhs_lower, signs, v, _widest(box))
        # Taylor on the face that the signed coordinates select (the supremum over the box is
        # attained there); with no signed coordinate the face is the box and its centre is c
        cf = [hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(box, signs, strict=True)]
        t2 = arb(0)
        for k in free:
            for j in free:
                t2 += _absmax(H[j][k]) * half[j] * half[k] / 2
        if cf == c:
            gf = g
        else:
            # the gradient at the face centre by the mean value theorem from c (the segment lies in the
            # box) and by the box enclosure; point values only if that does not prove the box
            gf = [arb.nan()] * dim
            for k in free:
                mv = g[k] + sum((H[k][j] * to_arb(cf[j] - c[j]) for j in range(dim) if cf[j] != c[j]), arb(0))
                gf[k] = _meet(gb[k], mv)
        gc = _g_point_adaptive(case, cf, rhs_lower, slack=sum((_absmax(gf[k]) * half[k] for k in free), t2))
        up = arb(gc.upper()) + t2
        for k in free:
            up += _absmax(gf[k]) * half[k]
        if cf != c and not up <= rhs_lower:
            gf = grad_point(case, cf, rel_bits=GRAD_BITS, coords=free)
            up = arb(gc.upper()) + t2
            for k in free:
                up += _absmax(gf[k]) * half[k]
        # split where the width costs most: the Taylor terms of the unsigned coordinates and the
        # uncertainty that coordinate j's width puts on the signs of the unsigned derivatives (a
        # signed coordinate must shrink too, or the sign of an unsigned one may never be certified)
        scores = {}
        for j in range(dim):
            wj = float(box[j][1] - box[j][0])
            sc = wj * sum(float(_absmax(H[k][j]).mid()) for k in free)
            if j in free:
                sc += float(_absmax(gbox[j]).mid()) * wj
            scores[j] = sc
        split = max(range(dim), key=lambda j: scores[j])
        if not all(math.isfinite(sc) for sc in scores.values()):
            # a Hessian ball without a finite end (on wide boxes at small sigma the ball of an atom over a
            # cell spans more than 2^30 and loses its positive lower end, so q may contain 0): NaN
            # scores would pick coordinate 0 forever; bisect the widest side instead
            split = _widest(box)
        out = _verdict("taylor", up, rhs_lower, signs, cf, split)
        if not out["proven"] and all(math.isfinite(sc) for sc in scores.values()):
            # the Taylor terms would have to shrink by a factor f > 1/(1 - HOPELESS): one bisection
            # cannot do that (it halves one coordinate's terms at most), so the halves are bisected
            # again at once without being evaluated (at the coordinate of the next largest score);
            # SKIP_LEVELS levels at most, while f > 4 per further level
            terms = up - arb(gc.upper())
            room = rhs_lower - arb(gc.upper())
            if up - rhs_lower > HOPELESS * terms:
                f = float((terms / room).mid()) if room > 0 else math.inf
                rest = dict(scores)
                rest[split] /= 2
                chain: list[int] = []
                need = 1 / (1 - HOPELESS)
                while len(chain) < min(dim, SKIP_LEVELS) and f > need:
                    k = max(range(dim), key=lambda j: rest[j])
                    chain.append(k)
                    rest[k] /= 2
                    need *= 4
                out["then_split"] = tuple(chain)
        return out


#: share of a failed box's Taylor terms beyond which its halves are bisected without evaluation (a
#: heuristic, any choice is sound; 0.6 evaluated the fewest boxes for n = 4, m = 1, lambda = 2, sigma = 1)
HOPELESS = 0.6
#: levels bisected without evaluation below a hopeless box (2 or more evaluated more boxes in that case)
SKIP_LEVELS = 1

#: relative tolerance (bits) of the point gradients in box_bounds: they enter through the signs,
#: whose width comes from the Hessian term, and through Taylor terms multiplied by half-widths
GRAD_BITS = 12
#: relative tolerance (bits) of a point value of G in box_bounds, first try and retry
G_BITS = 24
G_BITS_RETRY = 44


def _meet(a: arb, b: arb) -> arb:
    """The intersection of two enclosures of the same number (either one if the other is not finite)."""
    if not a.is_finite():
        return b
    if not b.is_finite():
        return a
    return a.intersection(b)


def _g_point_adaptive(case: ProofCase, point: Sequence[Fraction], rhs_lower: arb, slack: arb | None = None) -> arb:
    """:func:`g_point` at :data:`G_BITS`; again at :data:`G_BITS_RETRY` when the verdict
    ``G + slack <= rhs_lower`` fails but the midpoint would pass (the radius decides it)."""
    gc = g_point(case, point, rel_bits=G_BITS)
    extra = arb(0) if slack is None else slack
    if not arb(gc.upper()) + extra <= rhs_lower and arb(gc.mid()) + extra < rhs_lower:
        gc = g_point(case, point, rel_bits=G_BITS_RETRY)
    return gc


def hessian_and_gradient_box(
    case: ProofCase, box: Sequence[tuple[Fraction, Fraction]]
) -> tuple[list[list[arb]], list[arb]]:
    r"""Enclosures over the whole box of :math:`\partial_j\partial_k G` and :math:`\partial_k G` from one
    pass of the factored enclosure of :func:`hessian_box` (tails :func:`hessian_box_tail` and
    :func:`gradient_box_tail` included)."""
    with workprec(FACTORED_PREC):
        H, gr = _hessian_factored(case, box, FACTORED_CELLS, gradient=True)
        assert gr is not None
        ht, gt = hessian_box_tail(case), gradient_box_tail(case)
        return ([[x + arb(0, ht.upper()) for x in row] for row in H], [x + arb(0, gt.upper()) for x in gr])


def _widest(box: Sequence[tuple[Fraction, Fraction]]) -> int:
    return max(range(len(box)), key=lambda k: box[k][1] - box[k][0])


@dataclass(kw_only=True)
class Leaves:
    """The leaves of a branch and bound (a point, region or order-interval proof) and what was proven on each:
    proven boxes (with their method and bound), boxes outside the domain, open boxes, and the CPU seconds."""

    proven: list[dict[str, Any]] = field(default_factory=list)
    outside: list[Box] = field(default_factory=list)
    open: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return not self.open


@dataclass
class ProofResult(Leaves):
    """Result of :func:`prove_case`: the leaves of the bisection and what was proven on each."""

    case: ProofCase
    rhs: arb

    def max_open_upper(self) -> arb | None:
        ups = [b["upper"] for b in self.open if b["upper"] is not None]
        return max(ups, key=lambda x: x.upper()) if ups else None

    region: Box | None = None
    #: True when the boxes tile the two faces of :func:`min_zero_faces` instead of the cube
    faces: bool = False

    def summary(self) -> dict[str, Any]:
        methods: dict[str, int] = {}
        for b in self.proven:
            methods[b["method"]] = methods.get(b["method"], 0) + 1
        out: dict[str, Any] = {
            "n": self.case.n,
            "m": self.case.m,
            "r": str(self.case.r),
            "lambda": self.case.lam,
            "sigma": str(self.case.sigma),
            "proven": self.complete,
            "boxes_proven": len(self.proven),
            "boxes_outside": len(self.outside),
            "boxes_open": len(self.open),
            "methods": methods,
            "rhs_g": {"lower": decimal_lower(self.rhs, 15), "upper": decimal_upper(self.rhs, 15)},
            "seconds": round(self.seconds, 2),
        }
        if self.open:
            mo = self.max_open_upper()
            out["open_g_upper"] = decimal_upper(mo, 15) if mo is not None else None
        return out


def prove_case(
    case: ProofCase,
    *,
    max_depth: int = 40,
    max_boxes: int = 20000,
    progress: bool = False,
    rhs_override: arb | None = None,
    region: Sequence[tuple[Fraction, Fraction]] | None = None,
    jobs: int = 1,
    faces: bool = False,
) -> ProofResult:
    r"""Branch and bound over :math:`[0,1]^{n+1}` (module docstring), or over the box ``region`` (a part
    of the domain; a certificate needs the whole cube).  ``rhs_override`` replaces the certified RHS
    (testing only: a too-small RHS must leave boxes open, never claim a proof).

    Boxes deeper than ``max_depth`` bisections, or all boxes left once ``max_boxes`` leaves have been
    processed, are reported as open with their certified upper bound (None when not computed).

    ``faces``: the branch and bound runs over the two faces of :func:`min_zero_faces` (first
    :math:`x_1 = 0`, then :math:`u' = 0`) instead of the cube: one dimension fewer, the same statement
    (the translation reduction proven there).

    ``jobs`` > 1: the boxes of the first :data:`FRONTIER_LEVELS` levels of the bisection tree are
    processed here, and the subtrees below them by ``jobs`` worker processes.  What happens to a box
    (proven, outside, or split at which coordinate) depends on the box alone, so the tree and its
    leaves are the same for every ``jobs``, and the leaves are listed in the same (depth-first)
    order: a complete proof, and its certificate, do not depend on ``jobs``.  Only ``max_boxes`` is
    counted per subtree then, so an incomplete proof may stop at other boxes.
    """
    t0 = time.perf_counter()
    rhs = rhs_g(case) if rhs_override is None else rhs_override
    res = ProofResult(case, rhs)
    if faces and region is not None:
        raise ValueError("faces and region exclude each other")
    res.region = None if region is None else list(region)
    res.faces = faces
    with workprec(PREC):
        rhs_lower = arb(rhs.lower())
    whole: Box = [(Fraction(0), Fraction(1))] * case.dim if region is None else list(region)
    starts = min_zero_faces(case.dim) if faces else [whole]
    stack: list[tuple[Any, ...]] = [(start, 0, None) for start in reversed(starts)]
    from .. import progress as _progress

    bar_cm = (
        _progress.task(f"proof n={case.n} m={case.m} lambda={case.lam} sigma={case.sigma}", None, "boxes")
        if progress
        else None
    )
    bar = bar_cm.__enter__() if bar_cm is not None else None
    try:
        if jobs <= 1:
            _branch_and_bound(case, stack, res, rhs_lower, rhs_override is None, max_depth, max_boxes, bar)
        else:
            for start in starts:
                _branch_and_bound_parallel(
                    case, start, res, rhs_lower, rhs_override is None, max_depth, max_boxes, jobs
                )
    except SystemError as exc:
        # Ctrl-C inside an acb.integral callback reaches Python as "SystemError: ... returned a result
        # with an exception set" whose cause is the KeyboardInterrupt: give the interrupt back
        _raise_if_interrupted(exc)
        raise
    finally:
        if bar_cm is not None:
            bar_cm.__exit__(None, None, None)
    res.seconds = time.perf_counter() - t0
    return res


def _raise_if_interrupted(exc: BaseException) -> None:
    """Raise KeyboardInterrupt if ``exc`` was caused (directly or through its chain) by one."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__


def _branch_and_bound(
    case: ProofCase,
    stack: list[tuple[Any, ...]],
    res: ProofResult,
    rhs_lower: arb,
    exact_rhs: bool,
    max_depth: int,
    max_boxes: int,
    bar: Any,
) -> None:
    """The loop of :func:`prove_case` (fills ``res``)."""
    processed = 0
    while stack:
        box, depth, *forced = stack.pop()
        processed += 1
        if bar is not None:
            bar.update(1, note=f"{len(stack)} pending (branch and bound: no ETA)")
        if outside_domain(case, box):
            res.outside.append(box)
            continue
        if processed > max_boxes:
            res.open.append({"box": box, "upper": None, "depth": depth})
            continue
        if forced and forced[0] and depth < max_depth:
            stack += _halves(box, forced[0][0], depth, forced[0][1:])
            continue
        b = box_bounds(case, box, rhs_lower, exact_rhs=exact_rhs)
        if b["proven"]:
            res.proven.append({"box": box, **b})
            continue
        if depth >= max_depth:
            res.open.append({"box": box, "upper": b["upper"], "depth": depth})
            continue
        stack += _halves(box, b.get("split", _widest(box)), depth, b.get("then_split"))


def _halves(
    box: Box, k: int, depth: int, then_split: tuple[int, ...] | None
) -> list[tuple[Box, int, tuple[int, ...] | None]]:
    """The two halves of ``box`` (bisected at coordinate ``k``), right then left (a stack pops the left
    one first), each with the coordinates to bisect it at next without evaluation (or None)."""
    lo, hi = box[k]
    mid = (lo + hi) / 2
    left = list(box)
    right = list(box)
    left[k] = (lo, mid)
    right[k] = (mid, hi)
    return [(right, depth + 1, then_split), (left, depth + 1, then_split)]


#: levels of the bisection tree processed in the calling process before the subtrees go to workers
FRONTIER_LEVELS = 5


def _pack(rec: dict[str, Any]) -> dict[str, Any]:
    """A leaf record with its arb bound as an exact rational (arb balls do not pickle)."""
    up = rec.get("upper")
    if up is not None:
        mid, rad = up.mid().man_exp(), up.rad()
        if rad != 0:
            raise ArithmeticError("a stated bound is not an exact point")
        rec = {**rec, "upper": Fraction(int(mid[0])) * Fraction(2) ** int(mid[1])}
    return rec


def _unpack(rec: dict[str, Any]) -> dict[str, Any]:
    up = rec.get("upper")
    if up is not None:
        with workprec(max(PREC, up.numerator.bit_length() + up.denominator.bit_length() + 8)):
            rec = {**rec, "upper": to_arb(up)}
        if rec["upper"].rad() != 0:
            raise ArithmeticError("a bound did not come back exactly")
    return rec


def _subtree(item: tuple[Any, ...]) -> dict[str, list[Any]]:
    """Worker: the depth-first branch and bound below one box (leaves packed for pickling)."""
    case, box, depth, rhs_lower_q, exact_rhs, max_depth, max_boxes, forced = item
    rhs_lower = _unpack({"upper": rhs_lower_q})["upper"]
    res = ProofResult(case, arb(0))
    _branch_and_bound(case, [(box, depth, forced)], res, rhs_lower, exact_rhs, max_depth, max_boxes, None)
    return {"proven": [_pack(r) for r in res.proven], "outside": res.outside, "open": [_pack(r) for r in res.open]}


def _branch_and_bound_parallel(
    case: ProofCase,
    start: Box,
    res: ProofResult,
    rhs_lower: arb,
    exact_rhs: bool,
    max_depth: int,
    max_boxes: int,
    jobs: int,
) -> None:
    """:func:`_branch_and_bound` with the subtrees below level :data:`FRONTIER_LEVELS` on ``jobs``
    workers (see :func:`prove_case`); leaves in depth-first order (left before right)."""
    from .parallel import map_ordered

    # leaves and subtree roots in depth-first order: a stack popped left first, as the serial loop
    order: list[tuple[str, Any]] = []
    stack: list[tuple[Box, int, tuple[int, ...] | None]] = [(start, 0, None)]
    roots: list[tuple[Box, int, tuple[int, ...] | None]] = []
    while stack:
        box, depth, forced = stack.pop()
        if depth >= FRONTIER_LEVELS or outside_domain(case, box):
            order.append(("root", len(roots)))
            roots.append((box, depth, forced))
            continue
        if forced and depth < max_depth:
            stack += _halves(box, forced[0], depth, forced[1:])
            continue
        b = box_bounds(case, box, rhs_lower, exact_rhs=exact_rhs)
        if b["proven"]:
            order.append(("proven", {"box": box, **b}))
            continue
        if depth >= max_depth:
            order.append(("open", {"box": box, "upper": b["upper"], "depth": depth}))
            continue
        stack += _halves(box, b.get("split", _widest(box)), depth, b.get("then_split"))
    rhs_q = _pack({"upper": arb(rhs_lower.upper())})["upper"]
    items = [(case, box, depth, rhs_q, exact_rhs, max_depth, max_boxes, forced) for box, depth, forced in roots]
    subs = map_ordered(_subtree, items, jobs=jobs, progress=False, desc="proof subtrees")
    for kind, x in order:
        if kind == "proven":
            res.proven.append(x)
        elif kind == "open":
            res.open.append(x)
        else:
            sub = subs[x]
            res.proven += [_unpack(r) for r in sub["proven"]]
            res.outside += sub["outside"]
            res.open += [_unpack(r) for r in sub["open"]]


def _q(x: Fraction) -> str:
    return str(x)


def box_json(box: Sequence[tuple[Fraction, Fraction]]) -> list[list[str]]:
    """A box as ``[[lo, hi] per coordinate]`` with exact rational ends."""
    return [[_q(lo), _q(hi)] for lo, hi in box]


def proven_leaves_json(proven: Sequence[dict[str, Any]]) -> list[list[Any]]:
    """Proven leaves as ``[box, method, upper (outward-rounded decimal or null), point, signs]``."""
    return [
        [
            box_json(b["box"]),
            b["method"],
            None if b["upper"] is None else decimal_upper(b["upper"], 15),
            [_q(x) for x in b["point"]] if b["point"] is not None else None,
            b["signs"],
        ]
        for b in proven
    ]


def proof_to_json(res: ProofResult) -> dict[str, Any]:
    """The leaves of a proof as JSON (exact rational box ends, outward-rounded decimal bounds).

    ``boxes``: ``[[lo, hi] per coordinate], method, upper (decimal or null), point, signs`` per proven
    box; ``outside``: boxes that do not meet the fundamental domain; ``open``: boxes left unproven.
    """

    proven = proven_leaves_json(res.proven)
    return {
        "case": {
            "model": "range",
            "d": 1,
            "n": res.case.n,
            "m": res.case.m,
            "r": str(res.case.r),
            "lambda": res.case.lam,
            "sigma": str(res.case.sigma),
        },
        "coordinates": [f"x_{i + 1}" for i in range(res.case.n - 1)] + ["u", "u_prime"],
        "rhs_g": {"lower": decimal_lower(res.rhs, 15), "upper": decimal_upper(res.rhs, 15)},
        "region": None if res.region is None else box_json(res.region),
        **({"faces": [box_json(f) for f in min_zero_faces(res.case.dim)]} if res.faces else {}),
        "boxes": proven,
        "outside": [box_json(b) for b in res.outside],
        "open": [[box_json(b["box"]), None if b["upper"] is None else decimal_upper(b["upper"], 15)] for b in res.open],
        "summary": res.summary(),
    }
