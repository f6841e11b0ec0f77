r"""Independent re-proof of the boxes of a Conjecture 1 ``holds-boxes`` certificate.

The prover (:mod:`rigorous_rdp.research.conjecture_proof`) bounds
:math:`G(\theta) = \int p_\theta^\lambda q_\theta^{1-\lambda}` on a box with ``acb.integral`` point
values and a compensated Riemann enclosure of the Hessian.  This module re-proves, for every box
``B`` of a certificate and its stated bound ``b``, that :math:`\sup_B G \le b`, along a different
path (own formulas, own quadrature, own tails; nothing of ``conjecture_proof`` is imported):

* **Point values** :math:`G(c)` and :math:`\partial_k G(c)` at a rational point: Taylor-model
  quadrature.  On each cell :math:`[y_0 - w/2, y_0 + w/2]` of the window (``w`` from
  :meth:`BoxCase.cell`: ``sigma/2``, ``sigma/4`` for sigma in [1/2, 1)), the integrand is expanded
  to order ``K`` about :math:`y_0` in ball arithmetic (``arb_series``); Taylor's theorem with
  Lagrange remainder bounds the rest by the ``K``-th coefficient of the expansion about the whole
  cell (a ball containing :math:`f^{(K)}(\xi)/K!` for every :math:`\xi` in the cell), so

  .. math:: \int_{\text{cell}} f \in \sum_{j<K,\ j\text{ even}} c_j\,\frac{2(w/2)^{j+1}}{j+1}
            + [-1, 1]\,|c_K(\text{cell})|\,\frac{2(w/2)^{K+1}}{K+1}.

  A cell whose remainder term is not below ``REM_TOL`` is halved (at most ``MAX_SPLIT`` times) and the
  halves integrated the same way: the expansion about a ball divides series by :math:`W_q`, which
  widens the high coefficients geometrically, and where the means spread over nearly ``m`` (rows near
  1 against rows near 0) cells of sigma/2 gave gradient enclosures 0.7 wide, too wide for any sign.

* **Gradient and Hessian over a box** (:func:`derivatives_over_box`): the first and second
  derivatives of the compensated integrand :math:`q\,g(p/q)`, :math:`g(R) = R^\lambda - \lambda R +
  \lambda - 1` (same integrals, derived there), evaluated in interval arithmetic with the dataset
  values ranging over the box and ``y`` over a cell.  Every density is divided by one common Gaussian
  factor :math:`e^{-(y - s_0)^2/(2\sigma^2)}` first (:math:`s_0 = m/2`, the middle of the range of the
  means: a reference point near one end widens the balls of the atoms at the other end, twice over on
  the face u' = 0 when it was u'), so the exponents are linear in ``y`` and the balls
  stay narrow; that factor is integrated exactly over each cell (``erfc``) and multiplied by the ball
  of the rest (mean value theorem for integrals, the factor being positive); the cells' integrals
  are summed (a Riemann enclosure).  The cells: the point cells, each cut into up to
  ``cell() / HCELL`` equal parts where the spread of ``y`` would widen the result
  (:func:`_adaptive_cells`; any tiling is an enclosure, the rule decides only how tight).

* **Tails** outside the window :math:`[L, U]`, for every configuration with values in
  :math:`[0, 1]` (all means in :math:`[0, m]`): for :math:`y \ge U \ge m`, :math:`p \le
  \varphi_\sigma(y - m)` and :math:`q \ge \varphi_\sigma(y)`, so (complete the square)
  :math:`p^\lambda q^{1-\lambda} \le K\varphi_\sigma(y - \lambda m)`, :math:`K =
  e^{\lambda(\lambda-1)m^2/(2\sigma^2)}`; for :math:`y \le L \le 0` likewise :math:`\le
  K\varphi_\sigma(y + (\lambda-1)m)`.  Each derivative of a mean is 0 or 1 and
  :math:`|y - s| \le M = |y| + m`, so :math:`|\partial_k f| \le (2\lambda-1) f M/\sigma^2` and
  :math:`|\partial_{jk} f| \le f\,[((2\lambda-1)^2 + 2(2\lambda-1)) M^2/\sigma^4 + (2\lambda-1)/\sigma^2]`;
  for the compensated part :math:`|\partial_{jk} p| \le p\,(M^2/\sigma^4 + 1/\sigma^2)` with
  :math:`p \le \varphi_\sigma(y - m)` (resp. :math:`\varphi_\sigma(y)`) beyond the window, the same for
  ``q``; the moments :math:`\int_T^\infty (z + a)^i\varphi_\sigma(z)\,dz` (``i`` <= 2) are in closed form.

* **Per box**: the gradient on the box is enclosed directly (above) and by the mean value theorem
  about an anchor point ``p`` of the box, :math:`\partial_k G(B) \subset \partial_k G(p) + \sum_j
  H_{kj}(B)[lo_j - p_j, hi_j - p_j]`, and the two enclosures are intersected (each contains the
  gradient).  The anchor is a point whose values are needed anyway: the certificate's own point (the
  face its signs select), a parent's centre for the halves of a bisection (it lies on both), else the
  centre (:func:`reprove_box`).  A coordinate whose
  enclosure excludes 0 is monotone on the box (a product set), so the supremum lies on the face
  where it sits at the end its sign selects.  On that face, with centre :math:`c'` and free
  coordinates ``J``, Taylor's formula gives :math:`\sup \le G(c') + \sum_J |\partial_k G(c')| h_k +
  \frac12\sum_{J\times J} |H_{jk}(B)| h_j h_k`; with no free coordinate the supremum is the vertex
  value.  At the extremal vertex :math:`(0..0, u = 1, u' = 0)` :math:`G` equals the RHS exactly
  (:math:`q = \mu_0`, :math:`p = (1-r)\mu_0 + r\mu_1`), so a box containing it is settled only by
  certified signs that select it.  When the bound exceeds ``b`` the box is bisected (widest side)
  and the halves are re-proven, up to a limit of boxes.

Interval arithmetic: python-flint ``arb`` balls (each operation's result contains the exact value
for all inputs in the input balls); exact rational inputs enter through ``arb(p)/arb(q)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flint import arb, arb_series, ctx

__all__ = [
    "BoxCase",
    "derivatives_over_box",
    "hessian_over_box",
    "point_values",
    "reprove_box",
    "reprove_ray_box",
    "reprove_scaled_box",
    "rhs_scaled",
]

PREC = 96
#: Taylor order and cell width (in units of sigma) of the point quadrature
ORDER = 20
CELL = Fraction(1, 2)
#: width of the finest cells of the Riemann enclosure of the Hessian (in units of sigma,
#: :func:`_adaptive_cells`)
HCELL = Fraction(1, 32)
#: a point-quadrature cell whose Taylor remainder (unnormalised) is not below ``REM_TOL`` is halved,
#: at most ``MAX_SPLIT`` times
REM_TOL = arb(2) ** -30
MAX_SPLIT = 5
#: the window [L, U] of :meth:`BoxCase.window` leaves tails of about 2^-TAIL_BITS (40: radii of about
#: 1e-12, far below the room the certificates leave; 64 before, 12 % more cells for nothing)
TAIL_BITS = 40


def _a(x: Fraction | int) -> arb:
    x = Fraction(x)
    return arb(x.numerator) / arb(x.denominator)


@dataclass(frozen=True)
class BoxCase:
    """``n`` rows, batch ``m``, integer order ``lam`` >= 2, noise ``sigma`` > 0 (exact)."""

    n: int
    m: int
    lam: int
    sigma: Fraction
    atoms: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not (self.n >= 2 and 1 <= self.m < self.n and self.lam >= 2 and self.sigma > 0):
            raise ValueError("inconsistent case (n, m, lambda, sigma)")
        u, up = self.n - 1, self.n
        atoms = []
        for S in itertools.combinations(range(self.n), self.m):
            rows = tuple(i for i in S if i < self.n - 1)
            atoms.append(((*rows, u) if self.n - 1 in S else rows, (*rows, up) if self.n - 1 in S else rows))
        object.__setattr__(self, "atoms", atoms)

    @property
    def dim(self) -> int:
        return self.n + 1

    def cell(self) -> Fraction:
        r"""Cell width of the point quadrature in units of sigma: ``CELL``, halved while it exceeds
        ``CELL * sigma`` (a dyadic fraction, so the Hessian's cells still divide the window).  The
        integrands contain ratios of sums of Gaussians whose exponents differ by up to
        :math:`|s - s'|\,y/\sigma^2`, so in units of sigma their scale shrinks like sigma; wider cells
        make the ball coefficients of the remainder explode (at sigma = 1/2 the gradient's enclosure
        had radius 7.6e5 on cells of sigma/2, 2.7e-5 on cells of sigma/4)."""
        c = CELL
        while c > CELL * self.sigma:
            c /= 2
        return c

    def window(self) -> tuple[Fraction, Fraction]:
        """[L, U] (multiples of the cell width): the tail bounds beyond are about 2^-TAIL_BITS or less
        (added as radius: any window with ``L <= -(lambda-1) m`` and ``U >= lambda m`` is valid)."""
        s = float(self.sigma)
        log_k = self.lam * (self.lam - 1) * self.m**2 / (2 * s * s)
        t = math.sqrt(2 * (log_k + TAIL_BITS * math.log(2) + 4)) + 1
        step = self.sigma * self.cell()
        lo = -(self.lam - 1) * self.m - t * s
        hi = self.lam * self.m + t * s
        return step * math.floor(lo / step), step * math.ceil(hi / step)


def _cells(case: BoxCase, fine: Fraction, coarse: Fraction, core: int = 5) -> list[tuple[Fraction, Fraction]]:
    """Cells tiling the window [L, U]: width ``fine * sigma`` on the core
    [-(lambda-1) m - core sigma, lambda m + core sigma] (where the integrands live), ``coarse * sigma``
    outside (``coarse`` a multiple of ``fine`` and a divisor of the window's grid, ``CELL``)."""
    L, U = case.window()
    f, c = case.sigma * fine, case.sigma * coarse
    lo = max(L, c * math.floor((-(case.lam - 1) * case.m - core * case.sigma) / c))
    hi = min(U, c * math.ceil((case.lam * case.m + core * case.sigma) / c))
    out = [(L + i * c, L + (i + 1) * c) for i in range(int((lo - L) / c))]
    out += [(lo + i * f, lo + (i + 1) * f) for i in range(int((hi - lo) / f))]
    out += [(hi + i * c, hi + (i + 1) * c) for i in range(int((U - hi) / c))]
    if out[0][0] != L or out[-1][1] != U or any(a[1] != b[0] for a, b in itertools.pairwise(out)):
        raise ArithmeticError("the cells do not tile the window")  # (a width that does not divide it)
    return out


#: target of the Hessian's adaptive cells (:func:`_adaptive_cells`): the radius they add by the spread
#: of ``y`` within the cells, at most about this share of the Hessian's magnitude (entry by entry; 0.25 left
#: the same sub-boxes as 1/16 on samples of the n = 4, m = 2 certificates, in 3-5 % less time)
HRHO = 0.25


Cell = tuple[arb, arb, arb]


def _coarse_cells(case: BoxCase, prec: int) -> list[tuple[Fraction, Fraction, Cell, Cell]]:
    """The point cells (width ``cell() * sigma``) tiling the window, as ``(a, b, (a, b, [a, b]), (a, b,
    (a + b)/2))`` with the balls at precision ``prec`` (cached per case and precision)."""
    key = (case, prec)
    got = _COARSE.get(key)
    if got is None:
        got = []
        for a, b in _cells(case, case.cell(), case.cell()):
            ea, eb = _a(a), _a(b)
            got.append((a, b, (ea, eb, ea.union(eb)), (ea, eb, _a((a + b) / 2))))
        _COARSE[key] = got
    return got


def _sub_cells(a: Fraction, b: Fraction, k: int, prec: int) -> list[Cell]:
    """``[a, b]`` cut into ``k`` equal cells ``(lower end, upper end, cell ball)`` (cached)."""
    key = (a, b, k, prec)
    got = _SUB.get(key)
    if got is None:
        w = (b - a) / k
        ends = [_a(a + i * w) for i in range(k + 1)]
        got = [(x, y, x.union(y)) for x, y in itertools.pairwise(ends)]
        _SUB[key] = got
    return got


_COARSE: dict[tuple[BoxCase, int], list[tuple[Fraction, Fraction, Cell, Cell]]] = {}
_SUB: dict[tuple[Fraction, Fraction, int, int], list[Cell]] = {}


def _rad(x: arb) -> float:
    """The radius of a ball as a float (``inf`` for a ball that is not finite); a heuristic only."""
    return float(x.rad()) if x.is_finite() else math.inf


def _adaptive_cells(case: BoxCase, contrib: Any, groups: Sequence[range]) -> Any:
    r"""Yield ``(cell, [contrib(cell)...])`` for cells tiling the window ``[L, U]`` (the Riemann enclosure
    of :func:`derivatives_over_box`; ``contrib((a, b, y))`` returns balls containing the integral over
    ``[a, b]`` of the integrand, written as the mass of a positive weight over ``[a, b]`` times the
    rest of the integrand for every point of the ball ``y`` and every configuration of the box).

    Every point cell (width ``cell() * sigma``) is cut into ``k`` equal cells, ``k`` a power of 2 up to
    ``cell() / HCELL`` (so the finest cells are those of the fixed grid, ``HCELL * sigma``).  Any
    tiling gives an enclosure (the integral is additive and each cell's ball contains the integrand
    there): the choice of ``k`` only decides how tight it is.  The rule: the radius of ``contrib`` over
    the whole cell minus its radius at the cell's midpoint is the part the spread of ``y`` causes
    (``k`` cells divide it by about ``k``).  Every use of the Hessian (:func:`reprove_box`, and the
    region re-proof) multiplies it by a ball centred at 0 or takes its absolute value, so only its
    magnitude ``|mid| + rad`` matters, and it is multiplied by half-widths of the box of one scale;
    that magnitude without the spread of ``y`` is estimated by the midpoint values (``|sum mid| + sum
    rad``).  ``k`` is the smallest that brings the first part, spread evenly over the window, below
    :data:`HRHO` times the largest magnitude of the entry's group (``groups``: the Hessian's entries,
    the gradient's), entry by entry.  Cells where
    the integrand is negligible (the tails) or the box dominates (wide boxes) stay whole."""
    prec = ctx.prec
    coarse = _coarse_cells(case, prec)
    kmax = int(case.cell() / HCELL)
    first = [(contrib(cell), contrib(mid)) for _, _, cell, mid in coarse]
    L, U = coarse[0][0], coarse[-1][1]
    ne = len(first[0][0])
    size = []
    for e in range(ne):
        mid = sum((vm[e].mid() for _, vm in first), arb(0))
        size.append(abs(float(mid)) + sum(_rad(vm[e]) for _, vm in first))
    share = [0.0] * ne
    for g in groups:
        top = max(size[e] for e in g)
        for e in g:
            share[e] = HRHO * top
    for (a, b, _, _), (v, vm) in zip(coarse, first, strict=True):
        frac = float((b - a) / (U - L))
        k = 1
        for e in range(ne):
            yp = _rad(v[e]) - _rad(vm[e])
            if not yp > 0:
                continue
            allowed = share[e] * frac
            if not math.isfinite(allowed):
                continue  # the box alone makes this entry unbounded: no cut helps
            if not math.isfinite(yp) or not allowed > 0:
                k = kmax
                break
            while k < kmax and yp / k > allowed:
                k *= 2
        if k == 1:
            yield (a, b), v
            continue
        parts = [arb(0)] * ne
        for sub in _sub_cells(a, b, k, prec):
            for i, x in enumerate(contrib(sub)):
                parts[i] += x
        yield (a, b), parts


def _phibar(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


def _side_moments(s: arb, m: int, edge: Fraction, c: int) -> tuple[arb, arb, arb]:
    r""":math:`\int_{edge}^\infty (y + m)^i \varphi_s(y - c)\,dy` for ``i`` = 0, 1, 2, at the current
    precision (:math:`z = y - c \ge T = edge - c > 0`, :math:`a = c + m \ge 0`)."""
    T = _a(edge - c)
    a = arb(c + m)
    phi_T = (-(T * T) / (2 * s * s)).exp() / (s * (2 * arb.pi()).sqrt())
    i0 = _phibar(T / s)
    i1z = s * s * phi_T  # int z phi
    i2z = s * s * (T * phi_T + i0)  # int z^2 phi
    return i0, i1z + a * i0, i2z + 2 * a * i1z + a * a * i0


def _tail_moments(case: BoxCase, prec: int = PREC) -> tuple[arb, arb, arb]:
    r"""Upper bounds of :math:`\int_{\mathbb R\setminus[L,U]} f\,M^i` (``i`` = 0, 1, 2; ``f`` the
    normalised integrand, :math:`M = |y| + m`), module docstring."""
    L, U = case.window()
    lam, m = case.lam, case.m
    old = ctx.prec
    ctx.prec = prec
    try:
        s = _a(case.sigma)
        K = (arb(lam * (lam - 1) * m * m) / (2 * s * s)).exp()
        up = _side_moments(s, m, U, lam * m)
        lo = _side_moments(s, m, -L, (lam - 1) * m)
        return tuple(K * (x + y) for x, y in zip(up, lo, strict=True))  # type: ignore[return-value]
    finally:
        ctx.prec = old


def _means(case: BoxCase, theta: Sequence[arb]) -> tuple[list[arb], list[arb]]:
    sp = [sum((theta[i] for i in a), arb(0)) for a, _ in case.atoms]
    sq = [sum((theta[i] for i in b), arb(0)) for _, b in case.atoms]
    return sp, sq


def _series_integrands(case: BoxCase, Y: Any, theta: Sequence[arb], grad: bool) -> list[Any]:
    r"""[f, df/dtheta_0, ...] (unnormalised: without 1 / (N sigma sqrt(2 pi))) as series in ``Y``.

    Written with one Gaussian factored out, :math:`e^{-(y-s)^2/(2\sigma^2)} =
    e^{-(y-s_0)^2/(2\sigma^2)}\,e^{(s-s_0)(2y-s-s_0)/(2\sigma^2)}` (:math:`s_0` an exact reference
    point), so the sums :math:`W_p, W_q` in :math:`f = e^{-(y-s_0)^2/(2\sigma^2)} W_p^\lambda
    W_q^{1-\lambda}` have exponents linear in ``y``: their expansions about a cell stay narrow."""
    s = _a(case.sigma)
    inv_s2 = 1 / (s * s)
    half = inv_s2 / 2
    sp, sq = _means(case, theta)
    lam = case.lam
    s0 = arb(sq[0].mid())
    wp, dp, wq, dq = [], [], [], []
    for (a, b), mp_, mq_ in zip(case.atoms, sp, sq, strict=True):
        w = ((mp_ - s0) * (2 * Y - mp_ - s0) * half).exp()
        d = (Y - mp_) * inv_s2
        wp.append(w)
        dp.append(d)
        if a == b:  # an atom common to p and q
            wq.append(w)
            dq.append(d)
        else:
            wq.append(((mq_ - s0) * (2 * Y - mq_ - s0) * half).exp())
            dq.append((Y - mq_) * inv_s2)
    Wp = sum(wp[1:], wp[0])
    Wq = sum(wq[1:], wq[0])
    inv_q = 1 / Wq
    R = Wp * inv_q
    t0 = Y - s0
    f = (-(t0 * t0) * half).exp() * Wp
    for _ in range(lam - 1):
        f = f * R
    out = [f]
    if grad:
        # d f / d theta_k = f (lambda P_k / W_p - (lambda - 1) Q_k / W_q), P_k, Q_k the sums of
        # (y - s) / sigma^2 times the atom's term over the atoms whose mean s moves with theta_k
        inv_p = 1 / Wp
        dwp = [d * w for d, w in zip(dp, wp, strict=True)]
        dwq = [dwp[j] if a == b else dq[j] * wq[j] for j, (a, b) in enumerate(case.atoms)]
        for k in range(case.dim):
            Pk = sum((dwp[j] for j, (a, _) in enumerate(case.atoms) if k in a), 0 * Y) * inv_p
            Qk = sum((dwq[j] for j, (_, b) in enumerate(case.atoms) if k in b), 0 * Y) * inv_q
            out.append(f * (lam * Pk - (lam - 1) * Qk))
    return out


def point_values(case: BoxCase, point: Sequence[Fraction], grad: bool = True, prec: int = PREC) -> list[arb]:
    """Enclosures of ``[G, dG/dtheta_0, ..., dG/dtheta_n]`` (only ``[G]`` when ``grad`` is False)
    at a configuration with exact rational values in [0, 1] (module docstring)."""
    old_prec, old_cap = ctx.prec, ctx.cap
    ctx.prec, ctx.cap = prec, ORDER + 2
    try:
        theta = [_a(x) for x in point]
        nint = 1 + (case.dim if grad else 0)
        acc = [arb(0)] * nint
        weights: dict[Fraction, tuple[list[arb], arb]] = {}

        def cell_integrals(a: Fraction, b: Fraction, depth: int) -> list[arb]:
            if b - a not in weights:
                hw = _a((b - a) / 2)
                # weights of the even powers: int_{-w/2}^{w/2} t^j dt = 2 (w/2)^(j+1) / (j+1)
                weights[b - a] = (
                    [2 * hw ** (j + 1) / (j + 1) if j % 2 == 0 else arb(0) for j in range(ORDER)],
                    2 * hw ** (ORDER + 1) / (ORDER + 1),
                )
            wts, rem_w = weights[b - a]
            y0 = _a((a + b) / 2)
            ser = _series_integrands(case, arb_series([y0, 1], prec=ORDER), theta, grad)
            cell = _a(a).union(_a(b))
            rem = _series_integrands(case, arb_series([cell, 1], prec=ORDER + 1), theta, grad)
            out = []
            for i in range(nint):
                rc = rem[i].coeffs()
                if len(rc) <= ORDER:  # never seen; a missing coefficient must not count as a zero remainder
                    raise ArithmeticError("Taylor model: the remainder coefficient is missing")
                r = abs(rc[ORDER]) * rem_w
                if depth < MAX_SPLIT and not r < REM_TOL:
                    # a loose remainder (series over a ball: the divisions by W_q widen it geometrically in
                    # the order): integrate the two halves instead; the integral is additive
                    mid = (a + b) / 2
                    return [
                        x + y
                        for x, y in zip(
                            cell_integrals(a, mid, depth + 1), cell_integrals(mid, b, depth + 1), strict=True
                        )
                    ]
                co = ser[i].coeffs()
                v = sum((co[j] * wts[j] for j in range(0, min(len(co), ORDER), 2)), arb(0))
                out.append(v + arb(0, r.upper()))
            return out

        for a, b in _cells(case, case.cell(), case.cell()):
            for i, x in enumerate(cell_integrals(a, b, 0)):
                acc[i] += x
        s = _a(case.sigma)
        norm = 1 / (s * (2 * arb.pi()).sqrt() * len(case.atoms))
        t0, t1, _ = _tail_moments(case, prec)
        out = [acc[0] * norm + arb(0, t0.upper())]
        d_tail = (2 * case.lam - 1) * t1 / (s * s)
        out += [x * norm + arb(0, d_tail.upper()) for x in acc[1:]]
        # G itself is >= the window integral (the integrand is positive)
        out[0] = arb((acc[0] * norm).lower()).union(arb(out[0].upper()))
        return out
    finally:
        ctx.prec, ctx.cap = old_prec, old_cap


def _density_tail_moments(case: BoxCase, prec: int = PREC) -> tuple[arb, arb, arb]:
    r"""Upper bounds of :math:`\int_{\mathbb R\setminus[L,U]} p\,M^i` (the same for ``q``), ``i`` = 0, 1, 2:
    for :math:`y \ge U \ge m`, :math:`p \le \varphi_\sigma(y - m)`; for :math:`y \le L \le 0`,
    :math:`p \le \varphi_\sigma(y)` (all means in :math:`[0, m]`)."""
    L, U = case.window()
    m = case.m
    old = ctx.prec
    ctx.prec = prec
    try:
        s = _a(case.sigma)
        up = _side_moments(s, m, U, m)
        lo = _side_moments(s, m, -L, 0)
        return tuple(x + y for x, y in zip(up, lo, strict=True))  # type: ignore[return-value]
    finally:
        ctx.prec = old


def _poly_coeffs(lam: int) -> tuple[list[int], list[int], list[int]]:
    r"""Integer coefficients, in :math:`\Delta`, of :math:`((1+\Delta)^{\lambda-1} - 1)/\Delta`,
    :math:`((1+\Delta)^\lambda - 1)/\Delta` and
    :math:`(\lambda(1+\Delta)^{\lambda-1} - (\lambda-1)(1+\Delta)^\lambda - 1)/\Delta^2` (the last has no
    terms of order 0 and 1 in :math:`\Delta`: both are :math:`\lambda - (\lambda-1) - 1 = 0` and
    :math:`\lambda(\lambda-1) - (\lambda-1)\lambda = 0`)."""
    b1 = [math.comb(lam - 1, i) for i in range(lam)]
    b0 = [math.comb(lam, i) for i in range(lam + 1)]
    s1 = b1[1:]
    s0 = b0[1:]
    h = [lam * (b1[i] if i < len(b1) else 0) - (lam - 1) * b0[i] - (1 if i == 0 else 0) for i in range(lam + 1)]
    if h[0] != 0 or h[1] != 0:
        raise ArithmeticError("compensated Hessian: the expansion does not start at order 2")
    return s1, s0, h[2:]


def _horner(coeffs: list[int], x: arb) -> arb:
    acc = arb(0)
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def hessian_over_box(case: BoxCase, box: Sequence[tuple[Fraction, Fraction]], prec: int = PREC) -> list[list[arb]]:
    """Enclosure of the Hessian of ``G`` for every configuration in ``box`` (:func:`derivatives_over_box`)."""
    return derivatives_over_box(case, box, prec)[1]


def _index_lists(case: BoxCase, pairs: list[tuple[int, int]]) -> tuple:
    """Atoms common to ``p`` and ``q`` / the others, and the index lists of :func:`derivatives_over_box`:
    the atoms (common / only in p / only in q) whose mean moves with coordinate k, and with j and k."""
    dim = case.dim
    common = [j for j, (a, b) in enumerate(case.atoms) if a == b]
    differ = [j for j, (a, b) in enumerate(case.atoms) if a != b]
    ip = [set(a) for a, _ in case.atoms]
    iq = [set(b) for _, b in case.atoms]
    c1 = {k: [a for a in common if k in ip[a]] for k in range(dim)}
    p1 = {k: [a for a in differ if k in ip[a]] for k in range(dim)}
    q1 = {k: [a for a in differ if k in iq[a]] for k in range(dim)}
    c2 = {jk: [a for a in c1[jk[0]] if jk[1] in ip[a]] for jk in pairs}
    p2 = {jk: [a for a in p1[jk[0]] if jk[1] in ip[a]] for jk in pairs}
    q2 = {jk: [a for a in q1[jk[0]] if jk[1] in iq[a]] for jk in pairs}
    return common, differ, c1, p1, q1, c2, p2, q2


def _gauss_mass(lo: arb, hi: arb, s0: arb, s: arb) -> arb:
    """int_lo^hi exp(-(y - s0)^2 / (2 sigma^2)) dy, sigma = ``s`` (erfc on the side away from s0: no
    cancellation)."""
    root = s * (arb.pi() / 2).sqrt()
    scale = 1 / (s * arb(2).sqrt())
    a, b = (lo - s0) * scale, (hi - s0) * scale
    if a >= 0:
        return root * (a.erfc() - b.erfc())
    if b <= 0:
        return root * ((-b).erfc() - (-a).erfc())
    return root * (b.erf() - a.erf())


def _with_tails(
    case: BoxCase, acc: list[arb], pairs: list[tuple[int, int]], prec: int
) -> tuple[list[arb], list[list[arb]]]:
    """The gradient and Hessian of :func:`derivatives_over_box` from the window's sums ``acc`` (every
    pair, then every coordinate): normalised, plus the tail bounds of its docstring."""
    dim, lam = case.dim, case.lam
    s = _a(case.sigma)
    inv_s2 = 1 / (s * s)
    H = dict(zip(pairs, acc[: len(pairs)], strict=True))
    norm = 1 / (s * (2 * arb.pi()).sqrt() * len(case.atoms))
    t0, t1, t2 = _tail_moments(case, prec)
    d0, d1, d2_ = _density_tail_moments(case, prec)
    c2 = arb((2 * lam - 1) ** 2 + 2 * (2 * lam - 1))
    tail = (
        c2 * t2 * inv_s2 * inv_s2 + (2 * lam - 1) * t0 * inv_s2 + (2 * lam - 1) * (d2_ * inv_s2 * inv_s2 + d0 * inv_s2)
    ).upper()
    out = [[arb(0)] * dim for _ in range(dim)]
    for j, k in pairs:
        out[j][k] = out[k][j] = H[j, k] * norm + arb(0, tail)
    # |d_k[q g]| <= |d_k f| + lambda |p_k| + (lambda-1) |q_k| <= ((2 lambda - 1) f + (2 lambda - 1) p) M / sigma^2
    g_tail = ((2 * lam - 1) * (t1 + d1) * inv_s2).upper()
    grad = [x * norm + arb(0, g_tail) for x in acc[len(pairs) :]]
    return grad, out


def derivatives_over_box(
    case: BoxCase, box: Sequence[tuple[Fraction, Fraction]], prec: int = PREC
) -> tuple[list[arb], list[list[arb]]]:
    r"""Enclosures of :math:`\partial_k G` and :math:`\partial_{jk} G` for every configuration in ``box``.

    Compensated integrand (derived here): both laws have mass 1 for every configuration, so
    :math:`\int \partial_{jk} p = \int \partial_{jk} q = 0` and :math:`\partial_{jk} G = \int
    \partial_{jk}[q\,g(R)]` with :math:`R = p/q`, :math:`g(R) = R^\lambda - \lambda R + \lambda - 1`.
    Differentiating twice (:math:`R_j = (p_j - Rq_j)/q`, :math:`R_{jk} = (p_{jk} - Rq_{jk} - R_jq_k -
    R_kq_j)/q`) and using :math:`g - Rg' = -(\lambda-1)(R^\lambda - 1)`:

    .. math:: \partial_{jk}[q g(R)] = \lambda(R^{\lambda-1} - 1)\,p_{jk} - (\lambda-1)(R^\lambda - 1)\,q_{jk}
              + \lambda(\lambda-1)R^{\lambda-2}\,D_jD_k/q,\qquad D_j = p_j - Rq_j.

    With ``C``, ``P``, ``Q`` the sums over the atoms common to ``p`` and ``q``, only in ``p``, only in
    ``q`` (:math:`p_{jk} = C_{jk} + P_{jk}`, :math:`q_{jk} = C_{jk} + Q_{jk}`) and :math:`\Delta = R - 1
    = (P - Q)/q`, the first two terms are :math:`\Delta^2 h(\Delta)\,C_{jk} + \lambda\Delta
    s_1(\Delta)\,P_{jk} - (\lambda-1)\Delta s_0(\Delta)\,Q_{jk}` (polynomials of :func:`_poly_coeffs`),
    which vanish where the laws agree, so the balls stay narrow.  Likewise, with :math:`g' = \lambda
    R^{\lambda-1} - \lambda`, the gradient's compensated integrand is :math:`\partial_k[q g(R)] = q_k
    (g - Rg') + g' p_k = \lambda(R^{\lambda-1} - 1)\,p_k - (\lambda-1)(R^\lambda - 1)\,q_k` (:math:`\int
    p_k = \int q_k = 0`), with :math:`p_k = C_k + P_k`, :math:`q_k = C_k + Q_k`.  Riemann enclosure on the
    cells of :func:`_adaptive_cells` (at most ``HCELL * sigma`` wide where it matters) with the dataset
    values over the box, each cell's integral the exact mass of the common Gaussian factor over the
    cell times the ball of the rest; tails: :math:`|\partial_{jk}[q g]| \le |\partial_{jk} f| +
    \lambda|p_{jk}| + (\lambda-1)|q_{jk}|` with :math:`|p_{jk}| \le p\,(M^2/\sigma^4 + 1/\sigma^2)`, and
    :math:`|\partial_k[q g]| \le |\partial_k f| + \lambda|p_k| + (\lambda-1)|q_k| \le (2\lambda - 1)(f +
    p)\,M/\sigma^2` beyond the window (:func:`_tail_moments`, :func:`_density_tail_moments`; the bounds
    of ``p`` hold for ``q`` as well).

    Returns:
        ``(gradient, Hessian)``: a list of ``n + 1`` balls and a symmetric matrix of balls.
    """
    old = ctx.prec
    ctx.prec = prec
    try:
        dim = case.dim
        theta = [_a(lo).union(_a(hi)) for lo, hi in box]
        sp, sq = _means(case, theta)
        s = _a(case.sigma)
        inv_s2 = 1 / (s * s)
        half = inv_s2 / 2
        lam = case.lam
        c1_, c0, ch = _poly_coeffs(lam)
        pairs = [(j, k) for j in range(dim) for k in range(j, dim)]
        # exact reference point of the common factor: the middle of the range [0, m] of every mean (a
        # point near one end, e.g. u' on the face u' = 0, leaves the atoms with means near the other
        # end a factor (mu - s0)(2y - mu - s0) whose two balls both carry mu's spread: Hessian balls up
        # to twice as wide, and a re-proof that bisects about half the boxes of a certificate)
        s0 = _a(Fraction(case.m, 2))
        common, differ, c1, p1, q1, c2_, p2, q2 = _index_lists(case, pairs)
        common_set = set(common)
        zero = arb(0)

        def contrib(cell: Cell) -> list[arb]:
            """The integral over the cell ``[lo, hi]`` of the compensated integrands (every pair, then every
            coordinate), as the Gaussian's mass over the cell (exact, :func:`mass`) times the rest over
            the ball ``y`` (mean value theorem for integrals: the weight is positive)."""
            lo, hi, y = cell
            # every density divided by exp(-(y - s0)^2 / (2 sigma^2)): exponents linear in y
            tp = [(y - mu) * inv_s2 for mu in sp]
            tq = [(y - mu) * inv_s2 for mu in sq]
            ep = [((mu - s0) * (2 * y - mu - s0) * half).exp() for mu in sp]
            eq = [ep[j] if j in common_set else ((mu - s0) * (2 * y - mu - s0) * half).exp() for j, mu in enumerate(sq)]
            Cs = sum((ep[j] for j in common), zero)
            Ps = sum((ep[j] for j in differ), zero)
            Qs = sum((eq[j] for j in differ), zero)
            q = Cs + Qs
            R = (Cs + Ps) / q
            Dl = (Ps - Qs) / q
            tep = [t * e for t, e in zip(tp, ep, strict=True)]
            teq = [t * e for t, e in zip(tq, eq, strict=True)]
            ttp = [(t * t - inv_s2) * e for t, e in zip(tp, ep, strict=True)]
            ttq = [(t * t - inv_s2) * e for t, e in zip(tq, eq, strict=True)]
            Dj, Ck, Pk, Qk = [], [], [], []
            for k in range(dim):
                Cj = sum((tep[a] for a in c1[k]), zero)
                Pj = sum((tep[a] for a in p1[k]), zero)
                Qj = sum((teq[a] for a in q1[k]), zero)
                Dj.append(Pj - Qj - Dl * (Cj + Qj))
                Ck.append(Cj)
                Pk.append(Pj)
                Qk.append(Qj)
            Rl2 = arb(1)
            for _ in range(lam - 2):
                Rl2 = Rl2 * R
            a_c = Dl * Dl * _horner(ch, Dl)
            a_p = lam * Dl * _horner(c1_, Dl)
            a_q = (lam - 1) * Dl * _horner(c0, Dl)
            cross = lam * (lam - 1) * Rl2 / q
            wg = _gauss_mass(lo, hi, s0, s)
            out = []
            for jk in pairs:
                Cjk = sum((ttp[a] for a in c2_[jk]), zero)
                Pjk = sum((ttp[a] for a in p2[jk]), zero)
                Qjk = sum((ttq[a] for a in q2[jk]), zero)
                out.append(wg * (a_c * Cjk + a_p * Pjk - a_q * Qjk + cross * Dj[jk[0]] * Dj[jk[1]]))
            # d_k[q g(R)] = lambda (R^(lambda-1) - 1) p_k - (lambda-1) (R^lambda - 1) q_k
            for k in range(dim):
                out.append(wg * (a_p * (Ck[k] + Pk[k]) - a_q * (Ck[k] + Qk[k])))
            return out

        acc = [zero] * (len(pairs) + dim)
        groups = [range(len(pairs)), range(len(pairs), len(pairs) + dim)]
        for _, parts in _adaptive_cells(case, contrib, groups):
            for i, x in enumerate(parts):
                acc[i] += x
        return _with_tails(case, acc, pairs, prec)
    finally:
        ctx.prec = old


def _absmax(x: arb) -> arb:
    return arb(max(abs(x.lower()), abs(x.upper())))


def _extremal(case: BoxCase) -> tuple[Fraction, ...]:
    return tuple([Fraction(0)] * (case.n - 1) + [Fraction(1), Fraction(0)])


def _imul(x: arb, a: Fraction, b: Fraction) -> arb:
    """A ball containing ``x * t`` for every ``t`` in ``[a, b]`` and every value of the ball ``x`` (a
    bilinear function on a box takes its extremes at the corners: the union of the four products)."""
    lo, hi = arb(x.lower()), arb(x.upper())
    ea, eb = _a(a), _a(b)
    return (lo * ea).union(lo * eb).union(hi * ea).union(hi * eb)


#: at most this many points already evaluated (with their gradient) serve as anchors of a box
ANCHORS = 1


def _anchors(
    B: Sequence[tuple[Fraction, Fraction]],
    centre: list[Fraction],
    hint: Sequence[Fraction] | None,
    memo: dict[tuple[Fraction, ...], list[arb]],
) -> list[list[Fraction]]:
    """The anchor points of :func:`reprove_box` for the box ``B``: the certificate's point (top level),
    else up to :data:`ANCHORS` points of ``B`` whose gradient is known already (a parent's centre lies
    on the face its bisection created, so in both halves), else the centre.  Any point of the box is a
    valid anchor; the choice only saves evaluations."""
    if hint is not None:
        return [list(hint)]
    known = [
        list(p) for p, v in memo.items() if len(v) > 1 and all(lo <= x <= hi for (lo, hi), x in zip(B, p, strict=True))
    ]
    return known[-ANCHORS:] if known else [centre]


def _taylor_about(
    dim: int,
    p: list[Fraction],
    gp: list[arb],
    face: list[Fraction],
    free: list[int],
    B: list[tuple[Fraction, Fraction]],
    H: list[list[arb]],
) -> arb:
    """For :func:`reprove_box`: Taylor's formula about the anchor ``p`` over the face (its free sides span the box's, the others
    are fixed): for every ``theta`` of the face, ``G(theta) = G(p) + sum_k dG/dk(p) (theta_k - p_k) +
    (theta - p)' H(xi) (theta - p) / 2`` with ``xi`` on the segment, inside the box (convex), so
    ``sup <= G(p) + sum_k max_theta_k dG/dk(p) (theta_k - p_k) + sum_jk |H_jk| d_j d_k / 2``, ``d_k``
    the largest ``|theta_k - p_k|`` on the face."""
    rng = [B[k] if k in free else (face[k], face[k]) for k in range(dim)]
    d = [_a(max(abs(lo - x), abs(hi - x))) for (lo, hi), x in zip(rng, p, strict=True)]
    bound = gp[0]
    for k in range(dim):
        bound += arb(_imul(gp[1 + k], rng[k][0] - p[k], rng[k][1] - p[k]).upper())
        for j in range(dim):
            bound += _absmax(H[j][k]) * d[j] * d[k] / 2
    return bound


def bisect_widest(B: list[tuple[Fraction, Fraction]]) -> list[list[tuple[Fraction, Fraction]]]:
    """The two halves ``[right, left]`` of a box cut at the midpoint of its widest side (in the
    order a depth-first stack pops the left half first)."""
    k = max(range(len(B)), key=lambda i: B[i][1] - B[i][0])
    lo, hi = B[k]
    mid = (lo + hi) / 2
    left, right = list(B), list(B)
    left[k] = (lo, mid)
    right[k] = (mid, hi)
    return [right, left]


def _bisect_reprove(
    box: Sequence[tuple[Fraction, Fraction]],
    settle: Callable[[list[tuple[Fraction, Fraction]], int], tuple[bool, str | None]],
    max_boxes: int,
    failure: str = "not re-proven",
) -> tuple[bool, int, str]:
    """Re-prove ``box`` by bisection: ``settle(B, used)`` (at :data:`PREC`) says whether sub-box ``B`` is
    settled, or refutes it; an unsettled sub-box is split at its widest side.  A claim holds on the box
    iff it holds on every part of a tiling.  Returns ``(proven, sub-boxes used, reason)``."""
    stack = [list(box)]
    used = 0
    while stack:
        B = stack.pop()
        used += 1
        if used > max_boxes:
            return False, used, f"{failure} within {max_boxes} sub-boxes"
        old = ctx.prec
        ctx.prec = PREC
        try:
            ok, refuted = settle(B, used)
        finally:
            ctx.prec = old
        if refuted is not None:
            return False, used, refuted
        if not ok:
            stack += bisect_widest(B)
    return True, used, "re-proven"


def reprove_box(
    case: BoxCase,
    box: Sequence[tuple[Fraction, Fraction]],
    target: arb,
    *,
    extremal: bool = False,
    max_boxes: int = 64,
    hint: Sequence[Fraction] | None = None,
) -> tuple[bool, int, str]:
    r"""Prove :math:`\sup_{\text{box}} G \le` ``target`` (an exact arb point), bisecting up to
    ``max_boxes`` sub-boxes (module docstring).  ``extremal``: ``target`` stands for the RHS itself, so
    a sub-box whose certified signs select the extremal vertex is settled (:math:`\sup = G(v) =`
    RHS); without it a box containing that vertex is refused (there :math:`G` = RHS, above every
    bound the certificate may state below the RHS).  Returns ``(proven, sub-boxes used, reason)``.

    The gradient over a box is enclosed by the mean value theorem about an *anchor* point ``p`` of
    the box, :math:`\partial_k G(B) \subset \partial_k G(p) + \sum_j H_{kj}(B)\,[lo_j - p_j, hi_j - p_j]`
    (:func:`_imul`).  The certificate's own point (``hint``: the face its signs select) is tried as
    the anchor first, since its values are needed for the bound anyway; if that does not settle the
    box, the centre is tried too, with the intersection of both gradient enclosures (each contains the
    gradient).  Sub-boxes of a bisection use their centre."""
    ext = _extremal(case)
    if not extremal and all(lo <= x <= hi for (lo, hi), x in zip(box, ext, strict=True)):
        return False, 0, "the box contains the extremal vertex, where G equals the RHS"
    memo: dict[tuple[Fraction, ...], list[arb]] = {}

    def values(pt: Sequence[Fraction], grad: bool = True) -> list[arb]:
        key = tuple(pt)
        if key not in memo or (grad and len(memo[key]) == 1):
            memo[key] = point_values(case, pt, grad=grad)
        return memo[key]

    def settle(B: list[tuple[Fraction, Fraction]], anchors: list[list[Fraction]]) -> tuple[bool, str | None]:
        """(settled, refutation or None) for one box, trying the anchors in turn."""
        h = [_a((hi - lo) / 2) for lo, hi in B]
        enc, H = derivatives_over_box(case, B)
        contains_ext = all(lo <= x <= hi for (lo, hi), x in zip(B, ext, strict=True))
        for p in anchors:
            gp = values(p)
            if gp[0] > target:
                return False, f"refuted: G at {[str(x) for x in p]} is above the bound"
            new = [
                gp[1 + k] + sum((_imul(H[k][j], B[j][0] - p[j], B[j][1] - p[j]) for j in range(case.dim)), arb(0))
                for k in range(case.dim)
            ]
            if not all(x.overlaps(y) for x, y in zip(enc, new, strict=True)):
                raise ArithmeticError("two enclosures of the same gradient are disjoint")
            enc = [x.intersection(y) for x, y in zip(enc, new, strict=True)]
            signs = [1 if gk > 0 else -1 if gk < 0 else 0 for gk in enc]
            face = [hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(B, signs, strict=True)]
            free = [k for k in range(case.dim) if signs[k] == 0 and B[k][0] < B[k][1]]
            if extremal and not free and tuple(face) == ext:
                return True, None  # sup = G(extremal vertex) = RHS exactly
            if contains_ext:
                continue  # G reaches the RHS at the vertex: only the signs above can settle the box
            if tuple(face) not in memo and _taylor_about(case.dim, p, gp, face, free, B, H) <= target:
                return True, None  # settled without evaluating G on the face
            if not free:
                gv = values(face, grad=False)[0]
                if gv > target:
                    return False, f"refuted: G at the vertex {[str(x) for x in face]} is above the bound"
                if gv <= target:
                    return True, None
                continue
            gf = values(face)
            if gf[0] > target:
                return False, f"refuted: G at {[str(x) for x in face]} is above the bound"
            bound = gf[0]
            for k in free:
                bound += _absmax(gf[1 + k]) * h[k]
                for j in free:
                    bound += _absmax(H[j][k]) * h[j] * h[k] / 2
            if bound <= target:
                return True, None
        return False, None

    # the certificate's own point first: a bound below G there is refuted at once
    if hint is not None and not all(lo <= x <= hi for (lo, hi), x in zip(box, hint, strict=True)):
        hint = None

    def settle_at(B: list[tuple[Fraction, Fraction]], used: int) -> tuple[bool, str | None]:
        c = [(lo + hi) / 2 for lo, hi in B]
        return settle(B, _anchors(B, c, hint if used == 1 else None, memo))

    return _bisect_reprove(box, settle_at, max_boxes)


# ---------------------------------------------------------------------------------------------------
# the scaled region certificate (holds-region-scaled): boxes of phi = t theta at sigma = 1
# ---------------------------------------------------------------------------------------------------


def rhs_scaled(n: int, m: int, lam: int, t: arb) -> tuple[arb, arb, arb]:
    r"""Enclosures of :math:`\mathrm{RHS}(t)`, :math:`\mathrm{RHS}'(t)`, :math:`\mathrm{RHS}''(t)` for every
    ``t`` of the ball, :math:`\mathrm{RHS}(t) = G_\lambda((1-r)N(0,1) + rN(t,1)\,\|\,N(0,1))` (the right-hand
    side at :math:`\sigma = 1/t`, scaled by ``t``), :math:`r = m/n`.

    Derivation (written out here): under :math:`q = N(0, 1)`, :math:`p/q = 1 - r + r e^{tY - t^2/2}`, so
    :math:`G = E[(1 - r + re^{tY - t^2/2})^\lambda] = \sum_j \binom{\lambda}{j} r^j (1-r)^{\lambda-j}
    E[e^{j(tY - t^2/2)}]` and :math:`E[e^{jtY}] = e^{j^2t^2/2}`: :math:`\mathrm{RHS}(t) = \sum_j c_j e^{a_jt^2}`,
    :math:`c_j = \binom{\lambda}{j} r^j (1-r)^{\lambda-j} \ge 0`, :math:`a_j = j(j-1)/2 \ge 0`: nondecreasing
    in :math:`t \ge 0`; its derivatives :math:`\sum_j c_j 2a_jt\,e^{a_jt^2}` and :math:`\sum_j c_j(2a_j +
    4a_j^2t^2)e^{a_jt^2}`.  At the current precision."""
    rb = arb(m) / arb(n)
    v, d1, d2 = arb(0), arb(0), arb(0)
    for j in range(lam + 1):
        c = arb(math.comb(lam, j)) * rb**j * (1 - rb) ** (lam - j)
        a = arb(j * (j - 1)) / 2
        e = (a * t * t).exp()
        v += c * e
        d1 += c * 2 * a * t * e
        d2 += c * (2 * a + 4 * a * a * t * t) * e
    return v, d1, d2


def _ray_coords(n: int) -> list[int]:
    """The sides x_1..x_{n-1} and u' (indices 0..n-2 and n)."""
    return [*range(n - 1), n]


def _gradient_enclosure(
    case: BoxCase,
    B: Sequence[tuple[Fraction, Fraction]],
    need: Sequence[int] | None = None,
    derivs: tuple[list[arb], list[list[arb]]] | None = None,
) -> tuple[list[arb], list[list[arb]]]:
    """The gradient of G over ``B`` and the Hessian over ``B``: the direct enclosure of
    :func:`derivatives_over_box` (``derivs`` when the caller has it), intersected with the mean-value form
    about the centre (both contain the gradient) unless every coordinate of ``need`` already has a
    certified sign (then the point evaluation at the centre is skipped; the enclosure stays valid)."""
    direct, H = derivs if derivs is not None else derivatives_over_box(case, B)
    if need is not None and all(direct[k] > 0 or direct[k] < 0 for k in need):
        return list(direct), H
    c = [(lo + hi) / 2 for lo, hi in B]
    pv = point_values(case, c)
    return _mean_value_meet(case, B, direct, H, c, pv), H


def _mean_value_meet(
    case: BoxCase,
    B: Sequence[tuple[Fraction, Fraction]],
    direct: list[arb],
    H: list[list[arb]],
    p: Sequence[Fraction],
    pv: list[arb],
) -> list[arb]:
    """``direct`` intersected with the mean-value form about the point ``p`` of ``B`` (``pv``: G and its
    gradient at ``p``): for every theta of ``B``, dG/dk(theta) = dG/dk(p) + sum_j H_kj(xi) (theta_j - p_j)
    with xi on the segment, inside ``B``."""
    g = []
    for k in range(case.dim):
        mv = pv[1 + k] + sum((_imul(H[k][j], B[j][0] - p[j], B[j][1] - p[j]) for j in range(case.dim)), arb(0))
        if not mv.overlaps(direct[k]):
            raise ArithmeticError("two enclosures of the same gradient are disjoint")
        g.append(mv.intersection(direct[k]))
    return g


def reprove_ray_box(
    case: BoxCase, box: Sequence[tuple[Fraction, Fraction]], max_boxes: int = 64
) -> tuple[bool, int, str]:
    r"""Re-prove the ray rule on ``box`` (sides x_1..x_{n-1}, u, u' of :math:`\varphi`, sigma = 1):
    :math:`\partial G/\partial x_i < 0` and :math:`\partial G/\partial u' < 0` on the whole box for every such
    side that is not the point 0 (the caller checks that their lower ends are 0).  Then every
    :math:`\varphi` of the box has :math:`G(\varphi) \le G(0..0, \varphi_u, 0) = \mathrm{RHS}(\varphi_u)`
    (:math:`q = N(0,1)`, :math:`p = (1-r)N(0,1) + rN(\varphi_u, 1)`: the subsets holding the last row are a
    share ``m/n``).  A sign holds on the box iff it holds on every part of a tiling, so a box whose
    enclosures leave a sign open is bisected (widest side), up to ``max_boxes`` sub-boxes."""
    ks = [k for k in _ray_coords(case.n) if box[k][0] < box[k][1]]

    def settle(B: list[tuple[Fraction, Fraction]], used: int) -> tuple[bool, str | None]:
        g, _ = _gradient_enclosure(case, B, need=ks)
        if any(g[k] > 0 for k in ks):
            return False, "refuted: a derivative in x_i or u_prime is positive on a sub-box"
        return all(g[k] < 0 for k in ks), None

    return _bisect_reprove(box, settle, max_boxes, "signs not re-proven")


def _scaled_settle(
    case: BoxCase,
    B: list[tuple[Fraction, Fraction]],
    target: arb,
    j: int | None,
    s: Fraction | None,
    hint: Sequence[Fraction] | None = None,
) -> tuple[bool, str | None]:
    """One (sub-)box of :func:`reprove_scaled_box`: (settled, refutation or None).

    The signs of the derivatives of ``G - R`` come from the direct enclosure of the gradient over the box
    first; where that leaves coordinates unsigned, from its intersection with the mean-value form about
    an anchor point of the box whose values are needed anyway: the certificate's point (``hint``, when it
    lies in the box), else the centre of the face the first signs select; if the signs then select
    another face, that face is evaluated."""
    n, d = case.n, case.dim
    direct, H = derivatives_over_box(case, B)
    r1 = r2 = arb(0)
    if j is not None:
        _, r1, r2 = rhs_scaled(n, case.m, case.lam, _a(B[j][0]).union(_a(B[j][1])))

    def select(g: list[arb]) -> tuple[list[int], list[Fraction], list[int]]:
        dh = [g[k] - r1 if k == j else g[k] for k in range(d)]
        signs = [(1 if x > 0 else -1 if x < 0 else 0) if B[k][0] < B[k][1] else 0 for k, x in enumerate(dh)]
        face = [hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(B, signs, strict=True)]
        return signs, face, [k for k in range(d) if signs[k] == 0 and B[k][0] < B[k][1]]

    def h_at(p: Sequence[Fraction], g: arb) -> arb:
        """G - R at the point p (R at p: RHS(p_j) or the constant RHS(s))."""
        return g - rhs_scaled(n, case.m, case.lam, _a(p[j] if j is not None else s))[0]  # type: ignore[arg-type]

    _, face, free = select(direct)
    inside = hint is not None and all(lo <= x <= hi for (lo, hi), x in zip(B, hint, strict=True))
    anchor = list(hint) if free and inside else face  # type: ignore[arg-type]
    pv = point_values(case, anchor, grad=bool(free))
    if h_at(anchor, pv[0]) > target:
        return False, f"refuted: G - R at {[str(x) for x in anchor]} is above the bound"
    if free:
        _, face, free = select(_mean_value_meet(case, B, direct, H, anchor, pv))
        if face != anchor:
            pv = point_values(case, face, grad=bool(free))
    rf, r1f, _ = rhs_scaled(n, case.m, case.lam, _a(face[j] if j is not None else s))  # type: ignore[arg-type]
    value = pv[0] - rf
    if value > target:
        return False, f"refuted: G - R at {[str(x) for x in face]} is above the bound"
    bound = value
    for k in free:
        hk = _a((B[k][1] - B[k][0]) / 2)
        bound += _absmax(pv[1 + k] - (r1f if k == j else 0)) * hk
        for i in free:
            hij = H[i][k] - (r2 if i == k == j else 0)
            bound += _absmax(hij) * hk * _a((B[i][1] - B[i][0]) / 2) / 2
    return bool(bound <= target), None


def reprove_scaled_box(
    case: BoxCase,
    box: Sequence[tuple[Fraction, Fraction]],
    target: arb,
    rhs: tuple[str, Any],
    max_boxes: int = 64,
    hint: Sequence[Fraction] | None = None,
) -> tuple[bool, int, str]:
    r"""Re-prove :math:`\sup_{\text{box}} (G - R) \le` ``target`` (an exact arb point) at sigma = 1, with
    ``rhs`` ``("t", s)``: :math:`R = \mathrm{RHS}(s)` (a constant), or ``("coordinate", j)``: :math:`R =
    \mathrm{RHS}(\varphi_j)` (:func:`rhs_scaled`; then :math:`\partial_j(G - R) = \partial_jG -
    \mathrm{RHS}'(\varphi_j)` and :math:`\partial_{jj}(G - R) = \partial_{jj}G - \mathrm{RHS}''(\varphi_j)`).
    Per (sub-)box: the gradient of ``G`` over it (:func:`_gradient_enclosure`), the signs of the
    derivatives of ``G - R``, the face they select, and Taylor's formula about its centre (Lagrange
    remainder with the Hessian over the box); else the box is bisected (widest side), up to
    ``max_boxes`` sub-boxes.  ``hint``: the certificate's point, the first anchor of the mean-value form
    (any point of the box is a valid anchor; one outside it is ignored).  Returns ``(proven, sub-boxes
    used, reason)``."""
    kind, val = rhs
    j = int(val) if kind == "coordinate" else None
    s = Fraction(val) if kind == "t" else None
    return _bisect_reprove(
        box, lambda B, used: _scaled_settle(case, B, target, j, s, hint if used == 1 else None), max_boxes
    )
