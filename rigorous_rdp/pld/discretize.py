r"""Discrete dominating and dominated pairs on a loss grid ("connect the dots").

Notation: grid width :math:`h = 1/N`, grid losses :math:`\varepsilon_i = i h`,
:math:`x_i = e^{\varepsilon_i}`, :math:`v(x)` the exact privacy profile of one pair
as a function of :math:`x = e^\varepsilon` (see :mod:`rigorous_rdp.pld.profiles`).

**Fact 1 (profiles of discrete pairs).**  A discrete pair whose loss takes the
values :math:`\varepsilon_i` with P-masses :math:`p_i \ge 0` and :math:`+\infty` with
P-mass :math:`p_\infty` has the profile
:math:`\sum_i p_i (1 - x e^{-\varepsilon_i})_+ + p_\infty`: piecewise linear in x with a
kink of slope change :math:`p_i/x_i` at :math:`x_i`.  Conversely every convex,
non-increasing, piecewise-linear :math:`w` on :math:`[0, \infty)` with :math:`w(0) = 1`,
kinks only at grid points, slope :math:`\ge -1` at 0 and eventually constant is the
profile of such a pair, with :math:`p_i = x_i\,(s_i^+ - s_i^-)` (slopes right and left
of :math:`x_i`), :math:`p_\infty = w(\infty)` and Q-mass :math:`-w'(0^+) \le 1`
(the rest of Q on loss :math:`-\infty`).  (Doroshenko, Ghazi, Kamath, Kumar,
Manurangsi, "Connect the Dots: Tighter Discrete Approximations of Privacy Loss
Distributions", PETS 2022, Sections 3-4.)

**Fact 2 (domination is preserved by composition).**  If :math:`v' \ge v` pointwise
on :math:`[0, \infty)` (i.e. for every real :math:`\varepsilon`) then the trade-off
function of the primed pair is below the other one, and by Dong, Roth, Su,
"Gaussian Differential Privacy" (JRSS-B 2022), Lemma C.3 / Theorem 4 (tensor
products of trade-off functions are monotone) the composition of primed pairs
dominates the composition of the unprimed ones in every hockey-stick divergence.
The same with :math:`\le` for dominated pairs.

**Upper (pessimistic) pair.**  Vertices :math:`(0, 1)`, :math:`(x_i, v(x_i))` for
:math:`b \le i \le t`, then constant :math:`v(x_t)`.  Chords of the convex :math:`v`
lie above it, and the last part is above it because v is non-increasing, so the
piecewise-linear interpolation :math:`w \ge v` (Fact 2 applies).  It is convex because
chords of a convex function have increasing slopes, so its masses are
:math:`\ge 0` *mathematically*: we compute balls for them and round the upper
end up (a negative lower end only reflects the ball radius).

**Lower (optimistic) pair.**  Vertex values :math:`w_i = v(x_i) - R_i` with
:math:`R_i \ge` the largest gap between the chord of v and v on the two vertex
intervals adjacent to :math:`x_i`.  On :math:`[a, c]` write :math:`\Delta = x_c - x_a`,
:math:`A = v(x_c) - v(x_a) + Q(L > \varepsilon_a)\Delta \ge 0` (chord minus the right
tangent at a, evaluated at c) and :math:`B = -Q(L \ge \varepsilon_c)\Delta - (v(x_c) -
v(x_a)) \ge 0` (same with the left tangent at c, evaluated at a).  Since v lies above
both tangents, chord minus v is at most
:math:`\max_t \min(tA, (1-t)B) = AB/(A+B) \le \min(A, B)`.  When the profile is also known
at points :math:`x_a = y_0 < y_1 < \dots < y_m = x_c` inside the interval (a vertex removed
below, or the midpoints :math:`(i + 1/2)/N` of ``lower_mid``), v lies above
every tangent at every :math:`y_j` (any subgradient :math:`-Q(L > \cdot)` or :math:`-Q(L \ge \cdot)`
of the convex v), so on :math:`[y_j, y_{j+1}]` chord minus v is at most the minimum of the two
linear functions chord minus the tangent at :math:`y_j` and chord minus the tangent at
:math:`y_{j+1}`, whose maximum over the piece is at an end of the piece or where they cross
(:func:`_maxmin_upper`).  For a smooth v this bound is about :math:`v''\Delta^2/8`, the exact
largest gap to second order, where the two end tangents alone give about twice that.
A line between
:math:`(x_a, v(x_a) - r_a)` and :math:`(x_c, v(x_c) - r_c)` with
:math:`\min(r_a, r_c) \ge` the largest gap therefore stays below v on :math:`[x_a, x_c]`.
At the ends the vertex values are the trivial profiles: :math:`1 - x_b` at the bottom
vertex (so :math:`r_b = v(x_b) - (1 - x_b)`, checked :math:`\ge` the gap) and 0 at the
top vertex (:math:`r_t = v(x_t)`, checked).  Every other vertex is checked
:math:`w_i \ge \max(0, 1 - x_i)` and every mass :math:`\ge 0` in ball arithmetic; a
vertex whose mass is not certainly non-negative is removed (the gaps are then
recomputed on the wider interval, so the argument above still applies).  Then
:math:`w` satisfies Fact 1 and :math:`w \le v`.  Where v is smooth the deficit of w is
largest at the vertices (:math:`R_i`): about :math:`v''h^2/4` with end tangents only and
:math:`v''h^2/8` with the midpoint tangents.

**Integer masses.**  Masses are scaled by :math:`2^S` and rounded outward (up for the
upper pair, down for the lower pair) to integers; by monotonicity of
:math:`\delta` in every mass (:mod:`rigorous_rdp.pld.compose`) this keeps both bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any

from flint import arb, fmpq, fmpz, fmpz_poly

from .. import budget
from ..arith import bisect_first, workprec
from .profiles import Profile

__all__ = ["DiscretePld", "discretize", "grid_range", "vertex_indices"]

#: ``lower_mid`` evaluates the midpoints of the grid intervals whose end-tangent gap is at least this
#: fraction of the largest one (tightness and speed only)
MID_GAPS = 1e-2


@dataclass(frozen=True)
class DiscretePld:
    r"""Integer masses on the grid :math:`\{(o + j s)/N\}`.

    Attributes:
        offset: o, the grid index of coefficient 0.
        coeffs: non-negative integer masses :math:`c_j` (P-mass :math:`c_j 2^{-S}`).
        scale_bits: S.
        inf_mass: a bound on the P-mass at loss :math:`+\infty` (an upper bound in an
            upper PLD, a lower bound -- here always 0 -- in a lower PLD), exact rational.
        upper: True for a pointwise upper bound, False for a lower bound.
        step: s, the grid indices between neighbouring coefficients (1 as discretised;
            larger after :func:`rigorous_rdp.pld.compose.coarsen_up`).
    """

    offset: int
    coeffs: fmpz_poly
    scale_bits: int
    inf_mass: Fraction
    upper: bool
    step: int = 1


def _exact_int_up(x: arb) -> fmpz:
    """The ceiling of the upper end of the ball, exactly (an fmpz: the masses go into an
    ``fmpz_poly``, and a detour through Python integers costs more than the rounding)."""
    v = x.upper().ceil().unique_fmpz()
    if v is None:  # an endpoint rounded to an integer is exact
        raise ArithmeticError("no exact integer above the ball")
    return v


def _exact_int_down(x: arb) -> fmpz:
    """The floor of the lower end of the ball, exactly (an fmpz)."""
    v = x.lower().floor().unique_fmpz()
    if v is None:
        raise ArithmeticError("no exact integer below the ball")
    return v


def _find_top(profile: Profile, n: int, tail: float, start: int) -> int:
    """Smallest grid index >= start whose screened delta is <= tail (float choice only)."""
    hi = max(start + 1, 1)
    while profile.screen_delta(hi / n) > tail:
        hi = hi * 2 if hi > 0 else 1
        if hi > 10**9:
            raise ValueError("pld: the privacy profile does not decay; no finite grid range.")
    return bisect_first(lambda k: not profile.screen_delta(k / n) > tail, start, hi)


def _find_bottom(profile: Profile, n: int, tail: float, start: int) -> int:
    """Largest grid index <= start whose screened ``dlow`` is <= tail."""
    lo = min(start - 1, -1)
    while profile.screen_dlow(lo / n) > tail:
        lo = lo * 2
        if lo < -(10**9):
            raise ValueError("pld: the privacy profile does not reach 1 - e^eps; no finite grid range.")
    return bisect_first(lambda k: profile.screen_dlow(k / n) > tail, lo, start) - 1


def grid_range(profile: Profile, n: int, tail: float) -> tuple[int, int]:
    r"""Grid indices ``(b, t)`` of the bottom and top vertices.

    With a known support the ends are the grid points just outside it (there the
    profile is exactly linear).  Otherwise they are chosen by a float screen so that
    the mass above the top (which the upper pair puts at :math:`+\infty`) and below the
    bottom are about ``tail``; the choice affects tightness only, since every
    quantity used afterwards is recomputed in ball arithmetic.
    """
    lo, hi = profile.support
    t = math.ceil(hi * n) if hi is not None else _find_top(profile, n, tail, 0)
    b = math.floor(lo * n) if lo is not None else _find_bottom(profile, n, tail, 0)
    if t <= b:
        t = b + 1
    return b, t


def _masses_from_vertices(xs: list[arb], idx: list[int], vals: list[arb], v0_slope: arb, final_slope: arb) -> list[arb]:
    """Masses :math:`p_k = x_k (s_k^+ - s_k^-)` of the piecewise-linear profile through
    ``(xs[idx[k]], vals[k])``; ``v0_slope`` is the slope left of the first vertex."""
    slopes = [v0_slope]
    for k in range(len(idx) - 1):
        slopes.append((vals[k + 1] - vals[k]) / (xs[idx[k + 1]] - xs[idx[k]]))
    slopes.append(final_slope)
    return [xs[idx[k]] * (slopes[k + 1] - slopes[k]) for k in range(len(idx))]


def vertex_indices(profile: Profile, n: int, b: int, t: int, thin: float) -> list[int]:
    """Grid indices of the vertices: every grid point where the screened tails
    ``min(delta, dlow)`` exceed ``thin``, sparser (spacing up to 32) where they are
    smaller.  Any subset of the grid is a valid vertex set for both constructions
    (the upper one interpolates a convex function, the lower one checks every gap);
    the choice affects tightness and speed only.  A profile with known kinks (a pair on
    finitely many outcomes) is linear in :math:`e^\varepsilon` between them, so the grid
    points next to each kink and the ends give the same constructions as every grid point."""
    if profile.kinks is not None:
        near = {b, t}
        for x in profile.kinks:
            if math.isfinite(x):
                j = math.floor(x * n)
                near.update(k for k in range(j - 1, j + 3) if b <= k <= t)
        return sorted(near)

    seen: dict[int, float] = {}

    def weight(j: int) -> float:
        # memoised: the look-ahead of one vertex is the next vertex's own weight
        w = seen.get(j)
        if w is None:
            e = j / n
            w = min(profile.screen_delta(e), profile.screen_dlow(e))
            w = seen[j] = w if w == w else 1.0
        return w

    def rule(w: float) -> int:
        if thin <= 0 or w >= thin:
            return 1
        if w <= 0:
            return 32
        return max(1, min(32, int((thin / w) ** 0.25)))

    out = [b]
    i = b
    while i < t:
        if len(out) % 256 == 0:
            budget.check("the PLD discretisation")
        step = rule(weight(i))
        while step > 1 and rule(weight(min(t, i + step))) < step:
            step //= 2
        i = min(t, i + step)
        out.append(i)
    return out


def discretize(
    profile: Profile,
    n: int,
    scale_bits: int,
    tail: float,
    prec: int | None = None,
    thin: float = 1e-9,
    lower: bool = True,
    lower_mid: bool = False,
) -> tuple[DiscretePld, DiscretePld | None]:
    """The upper and the lower discrete PLD of ``profile`` on the grid of width 1/n.

    ``prec``: the working precision of the ball arithmetic (default 160 bits, more for a larger scale).
    ``lower_mid``: the profile is also evaluated halfway between neighbouring grid points where
    the vertices are dense, as tangent points of the lower pair's gaps (module docstring): about
    half its largest deficit (a lower end about three times closer to the truth for the DP-SGD
    composition), at the cost of those evaluations.

    Returns:
        ``(upper, lower)``; ``lower`` is ``None`` when not asked for or when the lower
        construction cannot be certified on this grid (a grid too coarse for the
        mechanism: the caller then uses the trivial lower bound or a finer grid).
    """
    b, t = grid_range(profile, n, tail)
    grid = vertex_indices(profile, n, b, t, thin)
    if prec is None:
        prec = max(160, scale_bits + 48)
    with workprec(prec):
        pts: list[Any] = []
        for i in grid:
            if len(pts) % 256 == 0:
                budget.check("the PLD discretisation")
            pts.append(profile.oracle(Fraction(i, n)))
        xs = [(arb(fmpq(i, n))).exp() for i in grid]
        scale = arb(2) ** scale_bits
        up_m, up_inf = _upper(pts, xs, scale)
        lo_m: list[fmpz] | None = None
        # the lower pair's points, in units of 1/(2n): the grid points and (lower_mid) the midpoints of
        # neighbouring ones; its candidate vertices are the grid points
        at = [2 * i for i in grid]
        lpts, lxs = pts, xs
        if lower and lower_mid:
            # midpoints of neighbouring grid points whose end-tangent gap is at least MID_GAPS times the
            # largest one (a choice: the deficits elsewhere are too small to matter)
            g2 = [_gap(pts, xs, k, k + 1).mid() if grid[k + 1] == grid[k] + 1 else None for k in range(len(grid) - 1)]
            top = max((g for g in g2 if g is not None), default=arb(0))
            mids = {2 * grid[k] + 1 for k, g in enumerate(g2) if g is not None and g >= top * MID_GAPS}
            old_at = dict(zip(at, range(len(at)), strict=True))
            at = sorted(set(at) | mids)
            lpts, lxs = [], []
            for p in at:
                if p in old_at:
                    lpts.append(pts[old_at[p]])
                    lxs.append(xs[old_at[p]])
                else:
                    if len(lpts) % 256 == 0:
                        budget.check("the PLD discretisation")
                    lpts.append(profile.oracle(Fraction(p, 2 * n)))
                    lxs.append(arb(fmpq(p, 2 * n)).exp())
        lo_at = [k for k, p in enumerate(at) if p % 2 == 0]
        if lower:
            try:
                lo_m = _lower(lpts, lxs, scale, lo_at, inner=lower_mid)
            except ArithmeticError:
                lo_m = None
    size = t - b + 1
    dense_u = [fmpz(0)] * size
    for k, i in enumerate(grid):
        dense_u[i - b] = up_m[k]
    upper_pld = DiscretePld(b, fmpz_poly(dense_u), scale_bits, up_inf, True)
    if lo_m is None:
        return upper_pld, None
    dense_l = [fmpz(0)] * size
    for k in lo_at:
        dense_l[at[k] // 2 - b] = lo_m[k]
    return upper_pld, DiscretePld(b, fmpz_poly(dense_l), scale_bits, Fraction(0), False)


def _upper(pts, xs, scale) -> tuple[list[fmpz], Fraction]:
    r"""Integer masses (rounded up) of the connect-the-dots pair through the exact
    profile values, and an upper bound on its mass at :math:`+\infty`."""
    m = len(pts)
    vals = [p.delta for p in pts]
    idx = list(range(m))
    v0 = (vals[0] - 1) / xs[0]
    masses = _masses_from_vertices(xs, idx, vals, v0, arb(0))
    coeffs = [max(fmpz(0), _exact_int_up(p * scale)) for p in masses]
    inf_q = arb_upper_fraction(pts[-1].delta)
    return coeffs, max(inf_q, Fraction(0))


def arb_upper_fraction(x: arb) -> Fraction:
    """The exact dyadic upper end of a ball, as a Fraction."""
    u = x.upper()
    m, e = u.mid().man_exp()
    man, exp = int(m), int(e)
    return Fraction(man * (1 << exp)) if exp >= 0 else Fraction(man, 1 << -exp)


def _maxmin_upper(a0: arb, a1: arb, b0: arb, b1: arb) -> arb:
    r"""An exact number >= :math:`\max_{t \in [0, 1]} \min(l_1(t), l_2(t))` for the linear
    :math:`l_1` from ``a0`` to ``a1`` and :math:`l_2` from ``b0`` to ``b1`` (balls containing the exact
    end values).  The maximum of the smaller line is at an end of [0, 1] or where the lines cross; it
    is always at most the smaller of the two lines' maxima (used when the crossing is not certain)."""
    zero = arb(0)
    bound = a0.upper().max(a1.upper()).min(b0.upper().max(b1.upper())).max(zero)
    s0, s1 = a0 - b0, a1 - b1
    if (s0 <= 0 and s1 >= 0) or (s0 >= 0 and s1 <= 0):
        den = s0 - s1
        if den < 0 or den > 0:
            cross = a0 + s0 / den * (a1 - a0)  # l1 = l2 at t = s0 / (s0 - s1), in [0, 1]
            ends = a0.min(b0).max(a1.min(b1))
            bound = bound.min(cross.max(ends).upper().max(zero))
    return bound.upper()


def _gap(pts, xs, a: int, c: int, inner: bool = True) -> arb:
    """An exact number >= the largest gap between the chord of v on [x_a, x_c] and v (see the
    module docstring), from the tangents at every evaluated point a, a + 1, ..., c (``inner``) or
    at a and c only."""
    if c == a + 1 or not inner:
        d = xs[c] - xs[a]
        dd = pts[c].delta - pts[a].delta
        A = dd + pts[a].qgt * d
        B = -pts[c].qge * d - dd
        zero = arb(0)
        Au = A.upper().max(zero)
        Bu = B.upper().max(zero)
        g = Au.min(Bu)
        s = A + B
        if s > 0 and A >= 0 and B >= 0:
            g = g.min((A * B / s).upper())
        return g.upper()
    va = pts[a].delta
    slope = (pts[c].delta - va) / (xs[c] - xs[a])
    zero = arb(0)

    def chord_gap(j: int) -> arb:  # chord minus v at the point j (0 at the ends)
        return zero if j in (a, c) else va + slope * (xs[j] - xs[a]) - pts[j].delta

    best = zero
    gj = zero
    for j in range(a, c):
        k = j + 1
        dx = xs[k] - xs[j]
        gk = chord_gap(k)
        # chord minus the tangent at j (slope -qgt_j, to the right of j) at j and k, and chord minus the
        # tangent at k (slope -qge_k, to the left of k) at j and k
        dj_k = pts[k].delta - pts[j].delta  # v_k - v_j
        a1 = gk + dj_k + pts[j].qgt * dx
        b0 = gj - dj_k - pts[k].qge * dx
        best = best.max(_maxmin_upper(gj, a1, b0, gk))
        gj = gk
    return best.upper()


def _lower(pts, xs, scale, verts: list[int] | None = None, inner: bool = False) -> list[fmpz]:
    """The lower construction of the module docstring, with local repair, on the candidate
    vertices ``verts`` (indices into ``pts``, increasing; all by default): the masses, indexed as
    ``pts`` (0 off the final vertex set).  ``inner``: the gaps use the tangents at the points between
    two vertices (:func:`_gap`).

    One pass checks every candidate (:func:`_lower_pass`); if some fail, the vertices live in a
    doubly linked list over grid indices (:class:`_LowerHull`): a vertex that fails a check (its
    value below ``max(0, 1 - x)`` or a mass not certainly >= 0) is removed and only its neighbours
    are re-checked; when an end condition fails the end moves inwards.  A last pass checks every
    vertex of the final set on its final neighbours and computes the masses, so the argument of the
    module docstring applies to the result.
    """
    m = len(pts)
    verts = list(range(m)) if verts is None else verts
    if len(verts) < 2:
        raise ArithmeticError("pld: lower discretisation needs two grid points")
    gaps: dict[tuple[int, int], arb] = {}
    dense, failing, checks = _lower_pass(pts, xs, scale, verts, gaps, inner)
    if dense is not None:
        return dense
    hull = _LowerHull(pts, xs, verts, gaps, inner)
    prv, nxt, ends, alive = hull.prv, hull.nxt, hull.ends, hull.alive
    work = failing
    for _ in range(4 * len(verts) + 10):
        budget.check("the PLD discretisation")
        failing = [i for i in sorted(set(work)) if i in alive and not hull.ok(i)]
        if not failing:
            break
        nb: set = set()
        for i in failing:
            if i not in alive:
                continue
            # collect neighbours (two on each side) before removing
            a = prv.get(i) if i != ends[0] else None
            c = nxt.get(i) if i != ends[1] else None
            for k in (a, c):
                if k is not None:
                    nb.add(k)
                    if k != ends[0] and prv.get(k) is not None:
                        nb.add(prv[k])
                    if k != ends[1] and nxt.get(k) is not None:
                        nb.add(nxt[k])
            hull.remove(i)
        work = [k for k in nb if k in alive]
    else:
        raise ArithmeticError("pld: lower discretisation did not converge")
    order = []
    i = ends[0]
    while True:
        order.append(i)
        if i == ends[1]:
            break
        i = nxt[i]
    dense, _, _ = _lower_pass(pts, xs, scale, order, gaps, inner, (verts, checks))
    if dense is None:
        raise ArithmeticError("pld: lower discretisation not certified (grid too coarse)")
    return dense


def _vertex_check(pt: Any, first: bool, last: bool, g_left: arb | None, g_right: arb | None, mass: arb) -> bool:
    """The checks of one vertex of :func:`_lower_pass`: its value at least ``max(0, 1 - x)`` (at the ends:
    the end's trivial value at least the gap) and its mass certainly >= 0."""
    if first:
        ok = pt.dlow >= g_right
    elif last:
        ok = pt.delta >= g_left
    else:
        assert g_left is not None and g_right is not None
        r = g_left.max(g_right)
        ok = pt.delta >= r and pt.dlow >= r
    return bool(ok and mass >= 0)


def _lower_pass(
    pts,
    xs,
    scale,
    verts: list[int],
    gaps: dict[tuple[int, int], arb],
    inner: bool,
    prior: tuple[list[int], list[tuple[bool, arb]]] | None = None,
) -> tuple[list[fmpz] | None, list[int], list[tuple[bool, arb]]]:
    """One pass of the checks of :func:`_lower` on the vertex list ``verts`` (the values, slopes,
    masses and checks of :class:`_LowerHull` for these neighbours): ``(masses, [], checks)`` if every
    vertex passes, else ``(None, failing vertices, checks)``, with ``checks`` the check and the mass
    ball of every vertex.  ``gaps`` caches :func:`_gap` by vertex pair.

    The check and the mass ball of the vertex at position j depend only on the vertices at positions
    j - 2 .. j + 2 (its value uses the gaps to its neighbours, its two slopes the values of its
    neighbours; an end of the list shows as a missing neighbour).  With ``prior`` (the vertex list and
    the checks of an earlier pass) a vertex whose five-vertex window is the same as there takes the
    earlier result (the same ball arithmetic on the same balls): after a local repair only the
    vertices near a removed one are recomputed."""
    k = len(verts)
    one = arb(1)

    def gap(j: int) -> arb:  # between positions j and j + 1
        key = (verts[j], verts[j + 1])
        got = gaps.get(key)
        if got is None:
            got = gaps[key] = _gap(pts, xs, *key, inner)
        return got

    def val(j: int) -> arb:
        if j == 0:
            return one - xs[verts[0]]
        if j == k - 1:
            return arb(0)
        return pts[verts[j]].delta - gap(j - 1).max(gap(j))

    def slope(j: int) -> arb:  # left of position j (j = k: right of the last vertex)
        if j == 0:
            return arb(-1)
        if j == k:
            return arb(0)
        return (val(j) - val(j - 1)) / (xs[verts[j]] - xs[verts[j - 1]])

    def window(vs: list[int], j: int) -> list[int]:
        return ([-1] * (2 - j) + vs[: j + 3]) if j < 2 else vs[j - 2 : j + 3]

    checks: list[tuple[bool, arb]] = []
    if prior is None:
        # every gap, value and slope once, in lists (the arithmetic of the helpers above)
        g = [gap(j) for j in range(k - 1)]
        vl = [one - xs[verts[0]]]
        for j in range(1, k - 1):
            vl.append(pts[verts[j]].delta - g[j - 1].max(g[j]))
        vl.append(arb(0))
        sl = [arb(-1)]
        for j in range(k - 1):
            sl.append((vl[j + 1] - vl[j]) / (xs[verts[j + 1]] - xs[verts[j]]))
        sl.append(arb(0))
        for j, i in enumerate(verts):
            if j % 256 == 0:
                budget.check("the PLD discretisation")
            mass = xs[i] * (sl[j + 1] - sl[j])
            ok = _vertex_check(pts[i], j == 0, j == k - 1, g[j - 1] if j else None, g[j] if j < k - 1 else None, mass)
            checks.append((ok, mass))
    else:
        old, old_checks = prior
        old_pos = {v: p for p, v in enumerate(old)}
        for j, i in enumerate(verts):
            if j % 256 == 0:
                budget.check("the PLD discretisation")
            p = old_pos.get(i)
            # the same window, the ends included (a window past an end is shorter)
            if p is not None and window(old, p) == window(verts, j):
                checks.append(old_checks[p])
                continue
            mass = xs[i] * (slope(j + 1) - slope(j))
            ok = _vertex_check(
                pts[i], j == 0, j == k - 1, gap(j - 1) if j else None, gap(j) if j < k - 1 else None, mass
            )
            checks.append((ok, mass))
    failing = [verts[j] for j, (ok, _) in enumerate(checks) if not ok]
    if failing:
        return None, failing, checks
    dense = [fmpz(0)] * len(pts)
    for i, (_, mass) in zip(verts, checks, strict=True):
        dense[i] = max(fmpz(0), _exact_int_down(mass * scale))
    return dense, [], checks


class _LowerHull:
    """The vertices of :func:`_lower` (a doubly linked list over grid indices) and their checks."""

    def __init__(self, pts: Any, xs: Any, verts: list[int], gaps: dict[tuple[int, int], arb], inner: bool):
        self.pts, self.xs, self.inner = pts, xs, inner
        self.prv = dict(zip(verts[1:], verts[:-1], strict=True))
        self.nxt = dict(pairwise(verts))
        self.ends = [verts[0], verts[-1]]
        self.alive = set(verts)
        self.gap_cache = gaps
        # val and slope_right depend only on a vertex's current neighbours (or on its being an
        # end): cached under that key, so a removal invalidates exactly the affected entries
        self.val_cache: dict = {}
        self.slope_cache: dict = {}

    def gap(self, a: int, c: int) -> arb:
        key = (a, c)
        if key not in self.gap_cache:
            self.gap_cache[key] = _gap(self.pts, self.xs, a, c, self.inner)
        got: arb = self.gap_cache[key]
        return got

    def key(self, i: int) -> tuple[int, int, int]:
        ends = self.ends
        return (i, -1 if i == ends[0] else self.prv[i], -1 if i == ends[1] else self.nxt[i])

    def val(self, i: int) -> arb:
        k = self.key(i)
        v = self.val_cache.get(k)
        if v is None:
            if i == self.ends[0]:
                v = arb(1) - self.xs[i]
            elif i == self.ends[1]:
                v = arb(0)
            else:
                v = self.pts[i].delta - self.gap(self.prv[i], i).max(self.gap(i, self.nxt[i]))
            self.val_cache[k] = v
        return v

    def slope_right(self, i: int) -> arb:
        if i == self.ends[1]:
            return arb(0)
        j = self.nxt[i]
        k = (self.key(i), self.key(j))
        v = self.slope_cache.get(k)
        if v is None:
            v = (self.val(j) - self.val(i)) / (self.xs[j] - self.xs[i])
            self.slope_cache[k] = v
        return v

    def slope_left(self, i: int) -> arb:
        return arb(-1) if i == self.ends[0] else self.slope_right(self.prv[i])

    def mass(self, i: int) -> arb:
        m: arb = self.xs[i] * (self.slope_right(i) - self.slope_left(i))
        return m

    def ok(self, i: int) -> bool:
        pts, ends = self.pts, self.ends
        if i == ends[0]:
            return bool(pts[i].dlow >= self.gap(i, self.nxt[i])) and bool(self.mass(i) >= 0)
        if i == ends[1]:
            return bool(pts[i].delta >= self.gap(self.prv[i], i)) and bool(self.mass(i) >= 0)
        r = self.gap(self.prv[i], i).max(self.gap(i, self.nxt[i]))
        return bool(pts[i].delta >= r and pts[i].dlow >= r) and bool(self.mass(i) >= 0)

    def remove(self, i: int) -> None:
        """Remove vertex i (moving an end inwards if i is an end)."""
        if len(self.alive) <= 2:
            raise ArithmeticError("pld: lower discretisation degenerated (grid too coarse)")
        self.alive.discard(i)
        ends, prv, nxt = self.ends, self.prv, self.nxt
        if i == ends[0]:
            ends[0] = nxt[i]
            prv.pop(ends[0], None)
        elif i == ends[1]:
            ends[1] = prv[i]
            nxt.pop(ends[1], None)
        else:
            a, c = prv[i], nxt[i]
            nxt[a], prv[c] = c, a
