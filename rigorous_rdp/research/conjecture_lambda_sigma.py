r"""Conjecture 1 proven for every real order :math:`\lambda \in [\lambda_0, \lambda_1]` **and** every
:math:`\sigma \in [\sigma_0, \sigma_1]` at once (range model, d = 1): one branch and bound over boxes
``B x [a, b]`` of scaled dataset values :math:`\varphi = \theta/\sigma` and orders.

**Setting** as in :mod:`.conjecture_lambda` (coordinates :math:`\theta = (x_1..x_{n-1}, u, u')`, the
fundamental domain ``F = {x_1 <= ... <= x_{n-1}, u >= u'}``, its faces ``x_1 = 0`` and ``u' = 0``);
:math:`G^\sigma_\lambda(\theta) = \int p^\lambda q^{1-\lambda}` at noise sigma, :math:`t = 1/\sigma \in [t_0,
t_1] = [1/\sigma_1, 1/\sigma_0]` (:math:`1 \le \sigma_0 < \sigma_1 \le 64`, so :math:`t_1 \le 1`), and
:math:`\mathrm{RHS}_\lambda(t) = \mathbb E[(1 - r + r e^{tZ - t^2/2})^\lambda]` (:math:`Z \sim N(0, 1)`),
the right-hand side :math:`G_\lambda(r\mu_1 + (1-r)\mu_0 \| \mu_0)` at :math:`\sigma = 1/t` (the
density ratio of :math:`N(1, \sigma^2)` to :math:`N(0, \sigma^2)` at :math:`y = \sigma Z` is
:math:`e^{tZ - t^2/2}`).  The claim proven is

.. math:: G^\sigma_\lambda(\theta) \le \mathrm{RHS}_\lambda(1/\sigma)
   \quad\text{for every } \theta \in F,\ \sigma \in [\sigma_0, \sigma_1],\ \lambda \in [\lambda_0, \lambda_1].

**(1) Scaling (proof).**  Every atom of ``p`` and ``q`` is :math:`N(s, \sigma^2)`, ``s`` a sum of
coordinates; substituting :math:`y = \sigma z` gives :math:`\varphi_\sigma(\sigma z - s) = \varphi_1(z -
s/\sigma)/\sigma`, the powers :math:`\lambda + (1-\lambda) = 1` leave one factor :math:`1/\sigma` that
:math:`dy = \sigma dz` cancels: :math:`G^\sigma_\lambda(\theta) = G_\lambda(t\theta)` with
:math:`G_\lambda = G^1_\lambda` (every real order).  On the *ray* :math:`\rho(s) = (0..0, u = s, u' = 0)`
every other row is at 0 and ``q = N(0, 1)``, ``p = (1-r)N(0,1) + rN(s,1)`` (a share ``m/n = r`` of the
``m``-subsets holds row ``n``), so :math:`G_\lambda(\rho(s)) = \mathrm{RHS}_\lambda(s)` exactly, for every
order (``s = 0``: ``p = q``, both sides 1).

**(2) RHS is nondecreasing in t for every real** :math:`\lambda \ge 1` **(proof).**  Let ``W`` be a
Brownian motion and :math:`M_v = e^{W_v - v/2}`, a martingale in ``v``; :math:`M_{t^2}` has the law of
:math:`e^{tZ - t^2/2}`.  :math:`f(x) = (1 - r + rx)^\lambda` is convex on :math:`x > 0` (:math:`f'' =
\lambda(\lambda-1)r^2(1-r+rx)^{\lambda-2} \ge 0`), so for :math:`t \le t'` conditional Jensen gives
:math:`\mathrm{RHS}_\lambda(t') = \mathbb E[\mathbb E[f(M_{t'^2}) | W_{\le t^2}]] \ge \mathbb
E[f(M_{t^2})] = \mathrm{RHS}_\lambda(t)` (both finite: :math:`f(x) \le (1 + x)^\lambda` and ``M`` has all
moments).  (Checked at points by ``tests/test_conjecture_lambda_sigma.py`` with mpmath, a second
opinion only.)

**(3) Reduction to one box family without a sigma side (proof).**  ``F`` and the faces are cones
(order relations and a zero coordinate keep under scaling by :math:`t > 0`).  Suppose that for every
:math:`\varphi \in F` on the faces with all values in :math:`[0, t_1]` and every order of the interval

.. math:: G_\lambda(\varphi) \le \mathrm{RHS}_\lambda(T(\varphi)),\qquad T(\varphi) = \max(t_0, \max_k\varphi_k).
   \tag{*}

Given :math:`\theta \in F` on a face with values in ``[0, 1]`` (the reductions of
:mod:`.conjecture_proof`: translation, permutation, reflection, every order) and :math:`t \in [t_0,
t_1]`, :math:`\varphi = t\theta` is such a point and :math:`T(\varphi) \le t` (``t >= t_0`` and
:math:`\max\varphi \le t`), so by (1), (*) and (2): :math:`G^{1/t}_\lambda(\theta) = G_\lambda(\varphi) \le
\mathrm{RHS}_\lambda(T(\varphi)) \le \mathrm{RHS}_\lambda(t)`.  The boxes tile the two faces of
:math:`[0, t_1]^{n+1}` times :math:`[\lambda_0, \lambda_1]`; they lie in :math:`[0, 1]^{n+1}`, where the
proven tails of :mod:`.conjecture_lambda` at sigma 1 hold.

**(4) Per box** ``B x [a, b]``, :math:`s_B = \max(t_0, \max_k \varphi_k^{lo})` (so :math:`s_B \le
T(\varphi)` on ``B``, and :math:`\mathrm{RHS}_\lambda(s_B) \le \mathrm{RHS}_\lambda(T(\varphi))` by (2)):

* ``"outside"``: ``B`` misses ``F``.
* ``"ray"``: the enclosures of :math:`\partial G_\lambda/\partial x_i` and :math:`\partial
  G_\lambda/\partial u'` (sides of positive width) are :math:`\le 0` on :math:`E = \mathrm{hull}(B,
  \rho(B))` (the sides of the :math:`x_i` and of ``u'`` extended down to 0, the ``u`` side kept; ``E = B``
  when ``B`` touches the ray) times ``[a, b]``, certified on a tiling of ``E`` by midpoint bisection (a
  sign holds on ``E`` iff it holds on each piece; :func:`extended_ray`).  Then, lowering these
  coordinates of :math:`\varphi \in B` one after the other to 0 inside ``E`` (a product of intervals),
  :math:`G_\lambda(\varphi) \le G_\lambda(\rho(\varphi_u)) = \mathrm{RHS}_\lambda(\varphi_u) \le
  \mathrm{RHS}_\lambda(T(\varphi))` (by (1) and (2), :math:`\varphi_u \le \max\varphi \le T`): proven at
  every order of the box *without* a chord and without a point value.  This is what the constant
  target :math:`\mathrm{RHS}(s_B)` below cannot do near the ray, where :math:`G_\lambda(\varphi)` follows
  :math:`\mathrm{RHS}_\lambda(\varphi_u)` and the box's ``u`` width costs
  :math:`\mathrm{RHS}'\,(u^{hi} - u^{lo})` against a margin of order the distance to the ray.
* else the chord rule of :mod:`.conjecture_lambda` at the fixed :math:`t = s_B`:
  :math:`G_\lambda(\varphi)` is convex in lambda (:math:`\partial^2_\lambda G = \int pR^{\lambda-1}\log^2R
  \ge 0`) and so is :math:`\mathrm{RHS}_\lambda(s_B) = \mathbb E[X^\lambda]` (:math:`X > 0`), hence with
  :math:`d(s_B) = (\mathrm{RHS}_a(s_B) - \mathrm{RHS}_{a-\delta}(s_B))/\delta` (the chord slope *at the
  same* :math:`s_B`, :math:`\delta` = :func:`~.conjecture_lambda.chord_step`):
  :math:`\sup_B G_a \le T_a = \mathrm{RHS}_a(s_B)` and :math:`\sup_B G_b \le T_b = \mathrm{RHS}_a(s_B) +
  d(s_B)(b - a)` give, for :math:`\lambda = (1-w)a + wb`, :math:`G_\lambda(\varphi) \le (1-w)G_a + wG_b
  \le \mathrm{RHS}_a(s_B) + d(s_B)(\lambda - a) \le \mathrm{RHS}_\lambda(s_B) \le
  \mathrm{RHS}_\lambda(T(\varphi))`.  The two suprema are bounded as in
  :func:`~.conjecture_lambda.box_bounds` (``"monotone"``: certified signs, value at the vertex they
  select; ``"taylor"``: on the face the signs select, the centre value plus the mean-value terms of the
  gradient enclosed over ``B x [a, b]``).  The extremal rule of that module (equality at
  :math:`(0..0, 1, 0)`, i.e. at :math:`t = 1`) is *not* used: here the target moves with :math:`s_B`.

The targets are :func:`~.conjecture_lambda.targets` of the case at :math:`\sigma = 1/s_B` (the certified
RHS integral of :func:`~rigorous_rdp.research.constant.log_g_mixture`), so the chord slope and the
equality case move with sigma as they must.  :mod:`rigorous_rdp.reference.conjecture_lambda_sigma_boxes`
re-proves every box with the independent enclosures of
:mod:`rigorous_rdp.reference.conjecture_lambda_boxes` and its own RHS.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from ..arith import decimal_lower, decimal_upper, to_arb, workprec
from .conjecture_lambda import (
    LAMBDA_MAX,
    LAMBDA_MIN,
    PREC,
    LambdaCase,
    box_bounds,
    derivatives_box,
    grad_point_real,
    rhs_real,
    targets,
)
from .conjecture_proof import Leaves, ProofCase, outside_domain

__all__ = ["KIND", "LambdaSigmaCase", "LambdaSigmaResult", "box_s", "order_sigma_to_json", "prove_order_sigma"]

Box = list[tuple[Fraction, Fraction]]
SIGMA_MIN, SIGMA_MAX = Fraction(1), Fraction(64)
KIND = "holds-boxes-order-sigma"


@dataclass(frozen=True)
class LambdaSigmaCase:
    r"""``n`` rows, batch ``m``, every real order in ``[lam_lo, lam_hi]`` (:math:`2 \le` low < high
    :math:`\le 16`) and every sigma in ``[sig_lo, sig_hi]`` (:math:`1 \le` low < high :math:`\le 64`)."""

    n: int
    m: int
    lam_lo: Fraction
    lam_hi: Fraction
    sig_lo: Fraction
    sig_hi: Fraction

    def __post_init__(self) -> None:
        ProofCase(self.n, self.m, 2, Fraction(1))
        if not LAMBDA_MIN <= self.lam_lo < self.lam_hi <= LAMBDA_MAX:
            raise ValueError(
                f"the order range must satisfy 2 <= low < high <= 16. Found [{self.lam_lo}, {self.lam_hi}]."
            )
        if not SIGMA_MIN <= self.sig_lo < self.sig_hi <= SIGMA_MAX:
            raise ValueError(
                f"the sigma range must satisfy 1 <= low < high <= 64. Found [{self.sig_lo}, {self.sig_hi}]."
            )

    @property
    def r(self) -> Fraction:
        return Fraction(self.m, self.n)

    @property
    def t_lo(self) -> Fraction:
        return 1 / self.sig_hi

    @property
    def t_hi(self) -> Fraction:
        return 1 / self.sig_lo

    @property
    def unit(self) -> LambdaCase:
        """The case at sigma 1 whose G is evaluated at the scaled values (module docstring, (1))."""
        return LambdaCase(self.n, self.m, self.lam_lo, self.lam_hi, Fraction(1))

    def at_t(self, s: Fraction) -> LambdaCase:
        """The case at sigma = 1/s (its RHS is RHS(s))."""
        return LambdaCase(self.n, self.m, self.lam_lo, self.lam_hi, 1 / s)

    def faces(self) -> list[Box]:
        """The faces x_1 = 0 and u' = 0 of [0, t_1]^(n+1) (the order side not included)."""
        z, full = (Fraction(0), Fraction(0)), (Fraction(0), self.t_hi)
        d = self.n + 1
        return [[z] + [full] * (d - 1), [full] * (d - 1) + [z]]


def box_s(case: LambdaSigmaCase, box: Sequence[tuple[Fraction, Fraction]]) -> Fraction:
    r""":math:`s_B = \max(t_0, \max_k \varphi_k^{lo})` over the value sides of ``box`` (module docstring, (4))."""
    return max([case.t_lo, *(lo for lo, _ in box[: case.n + 1])])


def _ray_sides(n: int) -> list[int]:
    """The coordinates lowered to 0 by the ray rule: x_1..x_{n-1} and u'."""
    return [*range(n - 1), n]


def _ray_rule(case: LambdaSigmaCase, box: Sequence[tuple[Fraction, Fraction]]) -> Any:
    sides = _ray_sides(case.n)
    if any(box[k][0] != 0 for k in sides):
        return None

    def rule(grad: list[arb]) -> bool:
        return all(box[k][1] == 0 or bool(arb(grad[k].upper()) <= 0) for k in sides)

    return rule


#: the extended ray rule is tried on boxes whose phi_x_i and phi_u_prime sides end within this share of t_1
#: and below the lower end of the phi_u side
RAY_REACH = Fraction(1, 2)
#: pieces of hull(B, ray) a sign certificate may use in the prover (the verifier allows its own 256)
RAY_PIECES = 16


def ray_hull(case: LambdaSigmaCase, box: Sequence[tuple[Fraction, Fraction]]) -> Box:
    """hull(B, rho(B)): the sides of x_i and u' extended down to 0, the u and order sides kept."""
    out = list(box)
    for k in _ray_sides(case.n):
        out[k] = (Fraction(0), box[k][1])
    return out


def _signs_on(case: LambdaSigmaCase, piece: Box, memo: dict[tuple[Any, ...], bool | None]) -> bool | None:
    """Certified dG/dx_i <= 0 and dG/du' <= 0 on ``piece`` x its order side (the gradient enclosed over it,
    intersected with the mean-value form about its centre where a sign is left open): True; None when a
    derivative is certified positive at the centre (no tiling can certify the sign); else False."""
    key = tuple(piece)
    if key in memo:
        return memo[key]
    unit = case.unit
    dim = case.n + 1
    sides = [k for k in _ray_sides(case.n) if piece[k][0] != piece[k][1]]
    with workprec(PREC):
        gb, H, dl = derivatives_box(unit, piece)
        want = [k for k in sides if not arb(gb[k].upper()) <= 0]
        if want:
            c = [(lo + hi) / 2 for lo, hi in piece[:dim]]
            a, b = piece[dim]
            g0 = grad_point_real(unit, c, (a + b) / 2)
            if any(g0[k] > 0 for k in want):
                memo[key] = None
                return None
            for k in want:
                mv = g0[k] + dl[k] * arb(0, to_arb((b - a) / 2).upper())
                for j in range(dim):
                    mv += H[k][j] * arb(0, to_arb((piece[j][1] - piece[j][0]) / 2).upper())
                gk = gb[k].intersection(mv) if mv.is_finite() else gb[k]
                if not arb(gk.upper()) <= 0:
                    memo[key] = False
                    return False
    memo[key] = True
    return True


def extended_ray(case: LambdaSigmaCase, box: Sequence[tuple[Fraction, Fraction]], memo: dict[Any, bool | None]) -> bool:
    r"""The ray rule on ``hull(B, rho(B))`` (module docstring, (4)): certified signs on a tiling of it by
    midpoint bisection (at most :data:`RAY_PIECES` pieces, the widest value side cut)."""
    hull = ray_hull(case, box)
    u_lo = box[case.n - 1][0]
    # a heuristic (any choice is sound): the signs are not expected where x_i or u' reach u
    if any(hull[k][1] > min(RAY_REACH * case.t_hi, u_lo) for k in _ray_sides(case.n)):
        return False
    stack, used = [hull], 0
    while stack:
        piece = stack.pop()
        used += 1
        if used > RAY_PIECES:
            return False
        ok = _signs_on(case, piece, memo)
        if ok is None:
            return False
        if ok:
            continue
        k = max(range(case.n + 1), key=lambda j: piece[j][1] - piece[j][0])
        lo, hi = piece[k]
        left, right = list(piece), list(piece)
        left[k], right[k] = (lo, (lo + hi) / 2), ((lo + hi) / 2, hi)
        stack += [right, left]
    return True


def goal(case: LambdaSigmaCase, box: Sequence[tuple[Fraction, Fraction]]) -> tuple[arb, arb, arb]:
    """``(T_a, T_b, RHS_b)`` at :math:`t = s_B` (module docstring, (4))."""
    a, b = box[case.n + 1]
    cs = case.at_t(box_s(case, box))
    ta, tb = targets(cs, a, b)
    return ta, tb, rhs_real(cs, b)


@dataclass
class LambdaSigmaResult(Leaves):
    """Result of :func:`prove_order_sigma`."""

    case: LambdaSigmaCase
    cpu_seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        methods: dict[str, int] = {}
        for b in self.proven:
            methods[b["method"]] = methods.get(b["method"], 0) + 1
        c = self.case
        with workprec(PREC):
            lo = rhs_real(c.at_t(c.t_lo), c.lam_lo)
            hi = rhs_real(c.at_t(c.t_hi), c.lam_hi)
        return {
            "n": c.n,
            "m": c.m,
            "r": str(c.r),
            "lambda": [str(c.lam_lo), str(c.lam_hi)],
            "sigma": [str(c.sig_lo), str(c.sig_hi)],
            "proven": self.complete,
            "boxes_proven": len(self.proven),
            "boxes_outside": len(self.outside),
            "boxes_open": len(self.open),
            "methods": methods,
            "rhs_g_range": {"lower": decimal_lower(lo, 15), "upper": decimal_upper(hi, 15)},
            "seconds": round(self.seconds, 2),
            "cpu_seconds": round(self.cpu_seconds, 2),
        }


def prove_order_sigma(
    case: LambdaSigmaCase, *, max_depth: int = 40, max_boxes: int = 20000, progress: bool = False
) -> LambdaSigmaResult:
    """Branch and bound over the two faces of [0, t_1]^(n+1) times the order interval (module
    docstring, (4)); boxes deeper than ``max_depth`` or left after ``max_boxes`` are open."""
    t0, c0 = time.perf_counter(), time.process_time()
    res = LambdaSigmaResult(case)
    unit = case.unit
    base = unit.base
    lam_side = (case.lam_lo, case.lam_hi)
    stack: list[tuple[Box, int]] = [([*f, lam_side], 0) for f in reversed(case.faces())]
    from .. import progress as _progress

    bar_cm = (
        _progress.task(
            f"proof n={case.n} m={case.m} lambda in [{case.lam_lo}, {case.lam_hi}] "
            f"sigma in [{case.sig_lo}, {case.sig_hi}]",
            None,
            "boxes",
        )
        if progress
        else None
    )
    bar = bar_cm.__enter__() if bar_cm is not None else None
    processed = 0
    memo: dict[Any, bool | None] = {}
    try:
        while stack:
            box, depth = stack.pop()
            processed += 1
            if bar is not None:
                bar.update(1, note=f"{len(stack)} pending (branch and bound: no ETA)")
            if outside_domain(base, box[:-1]):
                res.outside.append(box)
                continue
            if processed > max_boxes or depth >= max_depth:
                res.open.append({"box": box, "depth": depth})
                continue
            bb = box_bounds(unit, box, goal=goal(case, box), ray_rule=_ray_rule(case, box) or _never)
            if bb["proven"]:
                res.proven.append({"box": box, **bb})
                continue
            if extended_ray(case, box, memo):
                res.proven.append(
                    {"box": box, "proven": True, "method": "ray", "point": None, "signs": bb["signs"], "upper": None}
                )
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
    res.cpu_seconds = time.process_time() - c0
    return res


def _never(grad: list[arb]) -> bool:
    """The ray rule of a box that does not touch the ray (its presence also turns off the extremal
    rules of :func:`~.conjecture_lambda.box_bounds`, which compare with the RHS at sigma 1)."""
    return False


def _bj(box: Sequence[tuple[Fraction, Fraction]]) -> list[list[str]]:
    return [[str(lo), str(hi)] for lo, hi in box]


def order_sigma_to_json(res: LambdaSigmaResult) -> dict[str, Any]:
    """The leaves as JSON: ``boxes`` as ``[box (phi sides, then lambda), method, point (null for ray),
    signs, [upper at a, upper at b] (null for ray), [T_a, T_b] (null for ray)]``, ``outside``, ``open``,
    the summary."""
    case = res.case
    boxes = []
    for b in res.proven:
        box = b["box"]
        tg = None
        if b["upper"] is not None:
            ta, tb, _ = goal(case, box)
            tg = [decimal_lower(ta, 15), decimal_lower(tb, 15)]
        boxes.append(
            [
                _bj(box),
                b["method"],
                None if b["point"] is None else [str(x) for x in b["point"]],
                b["signs"],
                None if b["upper"] is None else [decimal_upper(u, 15) for u in b["upper"]],
                tg,
            ]
        )
    lam_side = (case.lam_lo, case.lam_hi)
    return {
        "case": {
            "model": "range",
            "d": 1,
            "n": case.n,
            "m": case.m,
            "r": str(case.r),
            "lambda": [str(case.lam_lo), str(case.lam_hi)],
            "sigma": [str(case.sig_lo), str(case.sig_hi)],
        },
        "coordinates": _coordinates(case.n),
        "faces": [_bj([*f, lam_side]) for f in case.faces()],
        "boxes": boxes,
        "outside": [_bj(b) for b in res.outside],
        "open": [_bj(b["box"]) for b in res.open],
        "summary": res.summary(),
    }


def _coordinates(n: int) -> list[str]:
    return [f"phi_x_{i + 1}" for i in range(n - 1)] + ["phi_u", "phi_u_prime", "lambda"]
