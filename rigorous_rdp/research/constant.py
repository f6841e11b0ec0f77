r"""The constant :math:`C(c_1, c_2)` of Claim 26 (blog part 2) and the exponents :math:`d_r, d_\lambda`.

Definitions (blog part 2, "Proof of Claim 26").  With :math:`\mu_i = N(i, \sigma^2)` and
:math:`G_\lambda(f \| g) = \int f^\lambda g^{1-\lambda}`,

.. math::

    G(\sigma) := G_\lambda(r\mu_1 + (1-r)\mu_0 \,\|\, \mu_0), \qquad r = c_1/\sigma,\quad \lambda = c_2\sigma^2,

and Claim 26 needs a constant :math:`C(c_1, c_2) \ge G_\lambda(\cdot)` for all
:math:`r \le c_1\sigma^{-1}`, :math:`\lambda \le c_2\sigma^2`.  Two facts make the supremum over
those :math:`(r, \lambda)` equal to the value at :math:`r = c_1/\sigma`, :math:`\lambda = c_2\sigma^2`:

* (M1) :math:`G_\lambda = \exp((\lambda-1)D_\lambda)` is non-decreasing in :math:`\lambda`
  (Rényi divergences are non-decreasing in the order, van Erven-Harremoës 2014, Thm 3);
* (M2) :math:`G_\lambda` is non-decreasing in :math:`r` (the divergence
  :math:`D_\lambda((1-r)\mu_0 + r\mu_1\|\mu_0)` is convex in :math:`r` and zero at :math:`r=0`).

A third fact bounds :math:`G` between grid points:

* (M3) for fixed :math:`(r,\lambda)`, :math:`G` is non-increasing in the noise level
  :math:`\sigma`: the pair at :math:`\sigma_b > \sigma_a` is the pair at :math:`\sigma_a`
  convolved with the same :math:`N(0, \sigma_b^2 - \sigma_a^2)` (data processing).

Hence for :math:`\sigma \in [\sigma_a, \sigma_b]`:
:math:`G(\sigma) \le G_{\lceil c_2\sigma_b^2\rceil}(\tfrac{c_1}{\sigma_a}\mu_1 + (1-\tfrac{c_1}{\sigma_a})\mu_0 \| \mu_0)`
evaluated at noise :math:`\sigma_a` (an integer order, so the finite sum (9.5) applies, no
integral).  :func:`constant_sup` covers :math:`[\sigma_{\min}, \sigma_{\max}]` by such cells and
refines the cells that can still hold the maximum (branch and bound), so its result is a
certified enclosure of :math:`\sup_{\sigma\in[\sigma_{\min},\sigma_{\max}]} G(\sigma)`.

Behaviour as :math:`\sigma\to\infty` and the post's argument.  At integer :math:`\lambda`,
(9.5) says :math:`G = \mathbb E\,e^{J(J-1)/(2\sigma^2)}` with :math:`J\sim\mathrm{Bin}(\lambda, r)`.
By Jensen, :math:`G \ge \exp(\lambda(\lambda-1)r^2/(2\sigma^2))` (:func:`jensen_lower_bound`),
which with :math:`r = c_1/\sigma`, :math:`\lambda = c_2\sigma^2` tends to :math:`e^{c_1^2c_2^2/2}`;
and since :math:`J/\sigma \to c_1 c_2` in probability the numbers converge to that value
(``limit_value``).  So :math:`C(c_1,c_2) \ge e^{c_1^2c_2^2/2} > 1`.  **The post's conclusion
"lim G_n = 0" is wrong** (every :math:`G_\lambda(p\|q) \ge 1` by Jensen): its Stirling
approximation of :math:`\phi_n(x)` at fixed :math:`x = j/n` misses where the binomial mass
sits, :math:`j \approx c_1c_2\sigma`, i.e. :math:`x \sim n^{-1/2} \to 0`, and there
:math:`\phi_n` is of order :math:`n^{3/4}`, so it is not dominated by
:math:`1/\sqrt{2\pi x(1-x)}` and dominated convergence does not apply.  The *boundedness* of
:math:`G` (what Claim 26 needs) is nevertheless what the numbers show.

Better orders ("Can this be true for better orders"): with :math:`r = c_1\sigma^{-d_r}`,
:math:`\lambda = c_2\sigma^{d_\lambda}`, the Jensen bound is
:math:`\exp(c_1^2c_2^2\sigma^{2(d_\lambda-d_r-1)}(1 - 1/\lambda)/2)`, which tends to infinity
whenever :math:`d_\lambda > 1 + d_r`.  In particular with :math:`d_\lambda = 2` every
:math:`d_r < 1` makes :math:`G` unbounded: **the post's statement that "it is possible to have
any r = O(sigma^-d_r) for d_r in (0, 1)" is false**; the boundary is :math:`d_\lambda \le 1+d_r`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
from flint import arb
from scipy import special

from ..arith import Certified, parse_rational, refine, to_arb, workprec
from ..subsampling.poisson_gaussian import log_a_fractional, log_a_integer

__all__ = [
    "ConstantSup",
    "constant_at",
    "constant_json",
    "constant_sup",
    "constant_table",
    "constant_whole_range",
    "dr_curve",
    "jensen_lower_bound",
    "limit_value",
    "log_g_mixture",
    "log_g_screen",
    "tail_majorant",
    "validate_c",
]


def validate_c(c1: object, c2: object) -> tuple[Fraction, Fraction]:
    """Parse and check ``c1 > 0``, ``c2 > 0`` (exact rationals)."""
    a = parse_rational(c1, "c1")
    b = parse_rational(c2, "c2")
    if a <= 0:
        raise ValueError(f"c1 must be > 0. Found {c1}.")
    if b <= 0:
        raise ValueError(f"c2 must be > 0. Found {c2}.")
    return a, b


def log_g_mixture(lam: Fraction, r: Fraction, sigma: Fraction, prec: int) -> arb:
    r"""Ball for :math:`\log G_\lambda(r\mu_1 + (1-r)\mu_0 \| \mu_0)`, exact rational inputs.

    Integer :math:`\lambda`: the finite sum (9.5) (Claim 27 with Example 1), written as
    :math:`\log(1 + I)` with non-negative terms.  Real :math:`\lambda`: the certified integral
    with proven tails of :mod:`rigorous_rdp.subsampling.poisson_gaussian` (the same quantity,
    :math:`A_\alpha` there).  Call inside ``workprec(prec)``.
    """
    if lam <= 1:
        raise ValueError(f"lambda must be > 1. Found {lam}.")
    if not 0 <= r <= 1:
        raise ValueError(f"r must be in [0, 1]. Found {r}.")
    if sigma <= 0:
        raise ValueError(f"sigma must be > 0. Found {sigma}.")
    a, q, s = to_arb(lam), to_arb(r), to_arb(sigma)
    if r == 0:
        return arb(0)
    if r == 1:
        return a * (a - 1) / (2 * s * s)
    if lam.denominator == 1:
        return log_a_integer(int(lam), q, s)
    est = log_g_screen(float(lam), float(r), float(sigma))
    log_i_est = math.log(math.expm1(est)) if 0 < est < 700 else (est if est >= 700 else -60.0)
    return log_a_fractional(a, q, s, prec, log_i_est)


def log_g_screen(lam: float, r: float, sigma: float) -> float:
    r"""Float estimate of ``log G`` (screening, planning and plotting only, not certified).

    Integer orders: (9.5) summed in log space.  Real orders: with :math:`y = \sigma Z`,
    :math:`G = \mathbb E_Z(1 - r + r e^{Z/\sigma - 1/(2\sigma^2)})^\lambda`, the trapezoidal rule in
    :math:`Z` (step 1/32) over a window that holds the tilted mass (up to :math:`\lambda/\sigma + 14`).
    """
    if r <= 0:
        return 0.0
    if r >= 1:
        return lam * (lam - 1) / (2 * sigma * sigma)
    if float(lam).is_integer() and lam <= 1e6:
        n = int(lam)
        j = np.arange(n + 1, dtype=float)
        logc = special.gammaln(n + 1) - special.gammaln(j + 1) - special.gammaln(n - j + 1)
        terms = logc + j * math.log(r) + (n - j) * math.log1p(-r) + j * (j - 1) / (2 * sigma * sigma)
        return float(max(0.0, special.logsumexp(terms)))
    h = 1.0 / 32
    hi = max(14.0, lam / sigma + 14.0)
    z = np.arange(-14.0, hi + h, h)
    w = z / sigma - 1.0 / (2 * sigma * sigma)
    # log(1 - r + r e^w) without overflow
    wp = np.maximum(w, 0.0)
    lb = np.where(w > 0, wp + np.log(r + (1 - r) * np.exp(-wp)), np.log1p(r * np.expm1(np.minimum(w, 0.0))))
    f = -z * z / 2 + lam * lb
    val = special.logsumexp(f) + math.log(h) - 0.5 * math.log(2 * math.pi)
    return float(max(0.0, val))


def _lam_r(c1: Fraction, c2: Fraction, sigma: Fraction, integer: bool) -> tuple[Fraction, Fraction]:
    lam = c2 * sigma * sigma
    if integer:
        lam = Fraction(math.floor(lam))
    return lam, c1 / sigma


def constant_at(c1: object, c2: object, sigma: object, *, integer: bool = False, digits: float = 10) -> Certified:
    r"""Certified :math:`G(\sigma) = G_\lambda(r\mu_1+(1-r)\mu_0\|\mu_0)`, :math:`r=c_1/\sigma`,
    :math:`\lambda = c_2\sigma^2` (``integer=True``: :math:`\lambda=\lfloor c_2\sigma^2\rfloor`,
    the largest integer order allowed by Claim 26).  Blog part 2, proof of Claim 26, (9.5).

    Raises:
        ValueError: ``sigma`` with ``c1/sigma > 1`` or an order ``<= 1``.
    """
    a, b = validate_c(c1, c2)
    s = parse_rational(sigma, "sigma")
    if s <= 0:
        raise ValueError(f"sigma must be > 0. Found {sigma}.")
    if a / s > 1:
        raise ValueError(f"sigma must be >= c1 = {a} (so that r = c1/sigma <= 1). Found {sigma}.")
    lam, r = _lam_r(a, b, s, integer)
    if lam <= 1:
        raise ValueError(f"sigma must make lambda = c2 sigma^2 {'(floored) ' if integer else ''}> 1. Found {sigma}.")
    return refine(lambda p: log_g_mixture(lam, r, s, p).exp(), digits, what="G(sigma)")


def jensen_lower_bound(lam: object, r: object, sigma: object) -> arb:
    r"""Proven lower bound :math:`G_\lambda \ge \exp(\lfloor\lambda\rfloor(\lfloor\lambda\rfloor-1)r^2/(2\sigma^2))`.

    At integer order, (9.5) is :math:`\mathbb E\,e^{J(J-1)/(2\sigma^2)}` with
    :math:`J\sim\mathrm{Bin}(\lambda,r)` and :math:`\mathbb E J(J-1) = \lambda(\lambda-1)r^2`;
    Jensen gives the bound; real orders use (M1).  Ball at the current precision.
    """
    lam_f = parse_rational(lam, "lambda")
    rr = parse_rational(r, "r")
    s = parse_rational(sigma, "sigma")
    n = math.floor(lam_f)
    return (to_arb(Fraction(n * (n - 1)) * rr * rr / (2 * s * s))).exp()


def limit_value(c1: object, c2: object) -> arb:
    r""":math:`e^{c_1^2c_2^2/2}`: the limit of :math:`G(\sigma)` as :math:`\sigma\to\infty` and a proven
    lower bound of :math:`C(c_1, c_2)` (limit of :func:`jensen_lower_bound`)."""
    a, b = validate_c(c1, c2)
    return to_arb(a * a * b * b / 2).exp()


# ---------------------------------------------------------------------------
# supremum over sigma: branch and bound on cells
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ConstantSup:
    r"""Certified enclosure of :math:`\sup_{\sigma\in[\sigma_{\min},\sigma_{\max}]} G(\sigma)`.

    Attributes:
        value: ball whose lower end is a certified value :math:`G(\sigma^*)` and whose upper
            end is the largest certified cell bound (M1-M3 of the module docstring).
        sigma_argmax: the grid point :math:`\sigma^*` with the largest value.
        sigma_min, sigma_max: the range covered.
        integer: whether :math:`\lambda=\lfloor c_2\sigma^2\rfloor` (else real :math:`c_2\sigma^2`).
        cells: number of cells in the final cover.
        at_sigma_max: certified :math:`G(\sigma_{\max})`.
        limit: :math:`e^{c_1^2c_2^2/2}` (proven lower bound of C over all sigma).
    """

    value: Certified
    sigma_argmax: Fraction
    sigma_min: Fraction
    sigma_max: Fraction
    integer: bool
    cells: int
    at_sigma_max: Certified
    limit: Certified


def _rat(x: float) -> Fraction:
    """A short rational near ``x`` (grid points only need to be exact, not special)."""
    return Fraction(x).limit_denominator(1 << 20)


_P = TypeVar("_P", Fraction, int)


def _branch_and_bound(
    cells: list[tuple[_P, _P]],
    point: Callable[[_P], float],
    cell_bound: Callable[[_P, _P], float],
    split: Callable[[_P, _P], list[tuple[_P, _P]] | None],
    rel_gap: float,
    max_cells: int,
) -> list[tuple[_P, _P]]:
    """Float best-first branch and bound: repeatedly bisect the cell with the largest bound while that
    bound exceeds the best point value by more than ``rel_gap`` (in log) and the budget allows.
    Only the choice of cells uses floats; every final cell is bounded certified by the caller."""
    import heapq

    best = max(point(x) for cell in cells for x in cell)
    heap = [(-cell_bound(*c), k, c) for k, c in enumerate(cells)]
    heapq.heapify(heap)
    counter = len(cells)
    done: list[tuple[_P, _P]] = []
    while heap and len(heap) + len(done) < max_cells:
        nb, _, cell = heapq.heappop(heap)
        if -nb <= best + rel_gap:
            heapq.heappush(heap, (nb, counter, cell))
            break
        parts = split(*cell)
        if not parts:
            done.append(cell)
            continue
        for part in parts:
            for x in part:
                best = max(best, point(x))
            counter += 1
            heapq.heappush(heap, (-cell_bound(*part), counter, part))
    return done + [c for _, _, c in heap]


def constant_sup(
    c1: object,
    c2: object,
    *,
    sigma_min: object = None,
    sigma_max: object = 100,
    integer: bool = False,
    cells: int = 48,
    max_cells: int = 3000,
    rel_gap: float = 2e-5,
    digits: float = 8,
) -> ConstantSup:
    r"""Certified enclosure of :math:`C = \sup_{\sigma\in[\sigma_{\min},\sigma_{\max}]} G(\sigma)`.

    Real orders (:math:`\lambda = c_2\sigma^2`): the range is covered by geometric cells
    :math:`[\sigma_a,\sigma_b]` with the bound
    :math:`G_{c_2\sigma_b^2}(\tfrac{c_1}{\sigma_a}\mu_1+\dots)` at noise :math:`\sigma_a` (M1-M3).

    Integer orders (:math:`\lambda = \lfloor c_2\sigma^2\rfloor`): on each piece where the floor
    equals :math:`j`, :math:`G` is non-increasing in :math:`\sigma` (M2, M3), so the supremum is
    the maximum over :math:`j` of the value at the left end :math:`\sigma_j = \sqrt{j/c_2}`
    (or at :math:`\sigma_{\min}` for the first piece); ranges of :math:`j` are bounded by
    :math:`G_{j_b}` at :math:`\sigma_{j_a}` in the same way.

    Cells whose float bound can still exceed the best value by more than ``rel_gap`` (in log)
    are bisected, then every final cell bound and the best point value are recomputed
    certified, so the result encloses the supremum over the evaluated range.  The default
    :math:`\sigma_{\min} = \max(c_1, \sqrt{2/c_2})` makes :math:`r \le 1` and
    :math:`\lambda \ge 2`.  For :math:`\sigma > \sigma_{\max}` only the proven lower bound
    :math:`e^{c_1^2c_2^2/2}` and the numerical convergence to it (module docstring) are known.

    Raises:
        ValueError: bad ``c1``, ``c2``, ``sigma-min``, ``sigma-max`` (message names the option).
    """
    a, b = validate_c(c1, c2)
    smax = parse_rational(sigma_max, "sigma-max")
    default_min = max(a, _rat(math.sqrt(2.0 / float(b))) + Fraction(1, 1 << 20))
    smin = default_min if sigma_min is None else parse_rational(sigma_min, "sigma-min")
    if smin < a:
        raise ValueError(f"sigma-min must be >= c1 = {a} (r = c1/sigma <= 1). Found {smin}.")
    if b * smin * smin <= 1:
        raise ValueError(
            f"sigma-min must make lambda = c2 sigma^2 > 1, i.e. sigma-min > {math.sqrt(1 / float(b)):.6g}. Found {smin}."
        )
    if integer and math.floor(b * smin * smin) < 2:
        raise ValueError(f"sigma-min must make floor(c2 sigma^2) >= 2 for integer orders. Found {smin}.")
    if smax <= smin:
        raise ValueError(f"sigma-max must be > sigma-min ({float(smin):.6g}). Found {sigma_max}.")
    if cells < 1:
        raise ValueError(f"cells must be >= 1. Found {cells}.")
    fa, fb = float(a), float(b)
    prec0 = max(64, int(digits * 3.33) + 30)
    if not integer:
        pts = sorted(
            {smin, smax} | {_rat(float(smin) * (float(smax) / float(smin)) ** (i / cells)) for i in range(1, cells)}
        )
        pts = [p for p in pts if smin <= p <= smax]
        memo: dict[Fraction, float] = {}

        def point(s: Fraction) -> float:
            if s not in memo:
                memo[s] = log_g_screen(fb * float(s) ** 2, min(1.0, fa / float(s)), float(s))
            return memo[s]

        def cbound(sa: Fraction, sb: Fraction) -> float:
            return log_g_screen(fb * float(sb) ** 2, min(1.0, fa / float(sa)), float(sa))

        def split(sa: Fraction, sb: Fraction) -> list[tuple[Fraction, Fraction]] | None:
            mid = _rat(math.sqrt(float(sa) * float(sb)))
            return [(sa, mid), (mid, sb)] if sa < mid < sb else None

        cl = _branch_and_bound(list(itertools.pairwise(pts)), point, cbound, split, rel_gap, max_cells)
        grid = sorted({s for cell in cl for s in cell})
        s_star = max(grid, key=point)
        value_lo = constant_at(a, b, s_star, integer=False, digits=digits)
        with workprec(prec0) as prec:
            ub = arb(0)
            for sa, sb in cl:
                ub = ub.max(log_g_mixture(b * sb * sb, min(Fraction(1), a / sa), sa, prec).exp())
            enclosure = value_lo.ball.lower().union(ub.upper())
        n_cells = len(cl)
    else:
        j0 = math.floor(b * smin * smin)
        jmax = math.floor(b * smax * smax)

        def sig(j: int) -> float:
            return smin_f if j == j0 else math.sqrt(j / fb)

        smin_f = float(smin)
        memo_j: dict[int, float] = {}

        def point_j(j: int) -> float:
            if j not in memo_j:
                memo_j[j] = log_g_screen(float(j), min(1.0, fa / sig(j)), sig(j))
            return memo_j[j]

        def cbound_j(ja: int, jb: int) -> float:
            return log_g_screen(float(jb), min(1.0, fa / sig(ja)), sig(ja))

        def split_j(ja: int, jb: int) -> list[tuple[int, int]] | None:
            if jb <= ja:
                return None
            m = (ja + jb) // 2
            return [(ja, m), (m + 1, jb)]

        edges = sorted({j0, jmax} | {round(j0 * (jmax / j0) ** (i / cells)) for i in range(1, cells)})
        init = [(edges[i] if i == 0 else edges[i] + 1, edges[i + 1]) for i in range(len(edges) - 1)]
        init = [(x, y) for x, y in init if x <= y] or [(j0, jmax)]
        cl_j = _branch_and_bound(init, point_j, cbound_j, split_j, rel_gap, max_cells)
        js = sorted({j for cell in cl_j for j in cell})
        j_star = max(js, key=point_j)

        def sig_ball(j: int) -> arb:
            return to_arb(smin) if j == j0 else (arb(j) / to_arb(b)).sqrt()

        def g_int(j: int, sj: arb) -> arb:
            r = to_arb(a) / sj
            if r >= 1:
                r = arb(1)  # only when sigma_j == c1 exactly (r <= 1 by validation)
            return log_a_integer(j, r, sj).exp() if j >= 2 else arb(1)

        with workprec(prec0) as prec:
            lo = g_int(j_star, sig_ball(j_star))
            ub = arb(0)
            for ja, jb in cl_j:
                ub = ub.max(g_int(jb, sig_ball(ja)))
            enclosure = lo.lower().union(ub.upper())
        s_star = smin if j_star == j0 else _rat(math.sqrt(j_star / fb))
        n_cells = len(cl_j)
        prec = prec0
    at_max = constant_at(a, b, smax, integer=integer, digits=digits)
    with workprec(64):
        lim = limit_value(a, b)
    return ConstantSup(Certified(enclosure, prec), s_star, smin, smax, integer, n_cells, at_max, Certified(lim, 64))


# ---------------------------------------------------------------------------
# beyond the computed range: an analytic majorant
# ---------------------------------------------------------------------------


def _majorant_terms(c1: float, c2: float, sc: float, t0: float) -> float | None:
    """Float value of :func:`tail_majorant` for one lowest level ``t0`` (None when a condition fails)."""
    levels = [t0]
    while levels[-1] <= 2.5 * c2:
        levels.append(2 * levels[-1])
    b = c1 * c2
    alpha = b * math.exp(t0) / (2 * sc)
    if not (alpha < 0.5 and sc >= c1 and sc >= 1 / (4 * b)):
        return None
    if any(sc < b * math.expm1(levels[k + 1]) / levels[k] ** 2 for k in range(len(levels) - 1)):
        return None
    total = math.exp(b * b / (2 * (1 - 2 * alpha))) / math.sqrt(1 - 2 * alpha)
    for k in range(len(levels) - 1):
        total += 0.5 * math.exp(min(700.0, b * sc * math.expm1(levels[k + 1]) - sc * sc * levels[k] ** 2 / 2))
    tk = levels[-1]
    total += 0.5 * math.exp(min(700.0, sc * sc * (c2 * c2 - (tk - c2) ** 2) / 2))
    return total


def _best_t0(c1: float, c2: float, sc: float) -> Fraction | None:
    best, arg = math.inf, None
    for e in range(-40, 12):
        t0 = 2.0 ** (e / 4)
        v = _majorant_terms(c1, c2, sc, t0)
        if v is not None and v < best:
            best, arg = v, t0
    return None if arg is None else Fraction(arg).limit_denominator(1 << 16)


def tail_majorant(c1: object, c2: object, sigma_c: object, prec: int = 96, t0: Fraction | None = None) -> arb:
    r"""Proven upper bound of :math:`\sup_{\sigma \ge \sigma_c} G(\sigma)` (real orders
    :math:`\lambda \le c_2\sigma^2`, rates :math:`r \le c_1/\sigma`).

    Derivation.  With :math:`y = \sigma Z` (:math:`Z \sim N(0,1)`),
    :math:`G = \mathbb E(1 - r + r e^{w})^\lambda`, :math:`w = Z/\sigma - 1/(2\sigma^2)`,
    :math:`r = c_1/\sigma`, :math:`\lambda = c_2\sigma^2` (enough by M1, M2).  Let
    :math:`\beta = c_1c_2` and levels :math:`T_0 < T_1 = 2T_0 < \dots < T_K`, :math:`T_K > 2.5c_2`.

    * :math:`w \le T_0`: :math:`\log(1+x) \le x` and :math:`e^w - 1 \le w + w^2e^{T_0}/2` give
      :math:`(1-r+re^w)^\lambda \le \exp(\beta(Z-\delta) + \alpha(Z-\delta)^2)`,
      :math:`\delta = 1/(2\sigma)`, :math:`\alpha = \beta e^{T_0}/(2\sigma)`; over all :math:`Z` its mean is
      :math:`(1-2\alpha)^{-1/2}\exp((\beta-\delta)^2/(2(1-2\alpha)) - \delta^2/2)
      \le (1-2\alpha)^{-1/2}\exp(\beta^2/(2(1-2\alpha)))` (for :math:`\delta \le 2\beta`), increasing in
      :math:`\alpha`, which decreases in :math:`\sigma`.
    * :math:`T_k < w \le T_{k+1}`: the integrand is at most :math:`\exp(\beta\sigma(e^{T_{k+1}}-1))` and
      :math:`P(w > T_k) \le \bar\Phi(\sigma T_k) \le e^{-\sigma^2T_k^2/2}/2`; the exponent
      :math:`\beta\sigma(e^{T_{k+1}}-1) - \sigma^2T_k^2/2` decreases for
      :math:`\sigma \ge \beta(e^{T_{k+1}}-1)/T_k^2`.
    * :math:`w > T_K`: :math:`1 - r + re^w \le e^w`, so the part is at most
      :math:`e^{c_2^2\sigma^2/2 - c_2/2}\bar\Phi(\sigma(T_K - c_2)) \le e^{\sigma^2(c_2^2-(T_K-c_2)^2)/2}/2`,
      decreasing in :math:`\sigma` as :math:`T_K > 2c_2`.

    Every part is non-increasing in :math:`\sigma` on :math:`[\sigma_c, \infty)` under the checked
    conditions (:math:`\sigma_c \ge c_1`, :math:`\sigma_c \ge 1/(4\beta)`, :math:`2\alpha(\sigma_c) < 1`,
    :math:`\sigma_c \ge \beta(e^{T_{k+1}}-1)/T_k^2`), so their sum at :math:`\sigma_c` bounds
    :math:`G(\sigma)` for every :math:`\sigma \ge \sigma_c`.  As :math:`\sigma_c \to \infty` it tends to
    :math:`e^{\beta^2/2}`, the limit of :math:`G`.  Call inside ``workprec``; returns a ball whose upper
    end is the bound.

    Raises:
        ValueError: when no admissible ``t0`` exists at ``sigma_c`` (take a larger ``sigma_c``).
    """
    a, b = validate_c(c1, c2)
    sc = parse_rational(sigma_c, "sigma")
    if t0 is None:
        t0 = _best_t0(float(a), float(b), float(sc))
        if t0 is None:
            raise ValueError(f"sigma must be larger for the tail majorant of C({a}, {b}). Found {sigma_c}.")
    levels = [t0]
    while levels[-1] <= Fraction(5, 2) * b:
        levels.append(2 * levels[-1])
    beta = a * b
    with workprec(prec):
        A, B, S, T0 = to_arb(a), to_arb(b), to_arb(sc), to_arb(t0)
        Bt = A * B
        alpha = Bt * T0.exp() / (2 * S)
        checks = [sc >= a, sc * 4 * beta >= 1, alpha < arb(1) / 2]
        for k in range(len(levels) - 1):
            checks.append(Bt * to_arb(levels[k + 1]).expm1() / to_arb(levels[k]) ** 2 <= S)
        if not all(bool(c) for c in checks):
            raise ValueError(f"sigma must be larger for the tail majorant of C({a}, {b}). Found {sigma_c}.")
        total = (Bt * Bt / (2 * (1 - 2 * alpha))).exp() / (1 - 2 * alpha).sqrt()
        for k in range(len(levels) - 1):
            total += (Bt * S * to_arb(levels[k + 1]).expm1() - S * S * to_arb(levels[k]) ** 2 / 2).exp() / 2
        tk = to_arb(levels[-1])
        total += (S * S * (B * B - (tk - B) ** 2) / 2).exp() / 2
        return arb(total.upper())


def _find_sigma_cut(c1: Fraction, c2: Fraction, target_log: float, start: float, cap: float) -> Fraction | None:
    """Smallest sigma on a geometric grid (ratio 1.1) from ``start`` whose float majorant is below
    exp(target_log); None when none up to ``cap``."""
    sc = max(start, float(c1), 1.0)
    while sc <= cap:
        t0 = _best_t0(float(c1), float(c2), sc)
        if t0 is not None:
            v = _majorant_terms(float(c1), float(c2), sc, float(t0))
            if v is not None and math.log(v) < target_log:
                return _rat(sc)
        sc *= 1.1
    return None


def constant_whole_range(
    c1: object,
    c2: object,
    *,
    sigma_min: object = None,
    cap: float = 1e5,
    max_cells: int = 800,
    rel_gap: float = 1e-7,
    digits: float = 10,
) -> dict[str, Any]:
    r"""Certified enclosure of :math:`C(c_1, c_2) = \sup_{\sigma \ge \sigma_{\min}} G(\sigma)` over the
    whole range (real orders :math:`\lambda \le c_2\sigma^2`, rates :math:`r \le c_1/\sigma`).

    ``[sigma_min, sigma_cut]`` is covered by :func:`constant_sup` (cells, M1-M3); ``[sigma_cut, inf)``
    by :func:`tail_majorant`.  ``sigma_cut`` is the smallest point of a geometric grid where the float
    majorant is below the float maximum found by a scan (so the tail does not widen the enclosure), or
    ``cap`` when there is none up to ``cap`` (then the tail bound may set the upper end, and the width is
    larger).  The lower end is a certified value :math:`G(\sigma^*)`.  The relative width is limited by
    the first-order cell bounds of :func:`constant_sup` (``max_cells``, ``rel_gap``), not by the tail.

    Returns a dict: ``C`` (Certified), ``argmax_sigma`` (Fraction), ``sigma_min``, ``sigma_cut``
    (Fractions), ``tail_bound`` (arb), ``on_range`` (:class:`ConstantSup`), ``tail_sets_upper`` (bool).
    """
    a, b = validate_c(c1, c2)
    default_min = max(a, _rat(math.sqrt(2.0 / float(b))) + Fraction(1, 1 << 20))
    smin = default_min if sigma_min is None else parse_rational(sigma_min, "sigma-min")
    fa, fb, fs = float(a), float(b), float(smin)
    grid = np.geomspace(fs, max(fs * 1.01, min(cap, 1e4)), 400)
    best = max(log_g_screen(fb * s * s, min(1.0, fa / s), float(s)) for s in grid)
    sc = _find_sigma_cut(a, b, best - 1e-12, fs * 1.5, cap)
    if sc is None:
        sc = _rat(cap)
    on = constant_sup(
        a, b, sigma_min=smin, sigma_max=sc, integer=False, max_cells=max_cells, rel_gap=rel_gap, digits=digits
    )
    with workprec(on.value.prec) as prec:
        tail = tail_majorant(a, b, sc, prec)
        upper = arb(on.value.ball.upper()).max(tail)
        enclosure = arb(on.value.ball.lower()).union(upper)
    return {
        "C": Certified(enclosure, prec),
        "argmax_sigma": on.sigma_argmax,
        "sigma_min": smin,
        "sigma_cut": sc,
        "tail_bound": tail,
        "on_range": on,
        "tail_sets_upper": bool(tail > on.value.ball.upper()),
    }


def _table_entry(item: tuple[str, str, int]) -> dict[str, object]:
    c1, c2, max_cells = item
    res = constant_whole_range(c1, c2, max_cells=max_cells)
    return constant_json(res, c1, c2)


def constant_json(res: dict[str, Any], c1: object, c2: object) -> dict[str, object]:
    """The JSON of ``rigorous-rdp constant`` (DESIGN.md section 5) for a :func:`constant_whole_range` result."""
    from ..arith import decimal_upper

    C = res["C"]
    on = res["on_range"]
    with workprec(64):
        rw = C.relative_width()
    return {
        "c1": str(c1),
        "c2": str(c2),
        "C": C.to_json(12),
        "sigma_range": [str(res["sigma_min"]), "inf"],
        "argmax_sigma": f"{float(res['argmax_sigma']):.12g}",
        "orders": "real lambda <= c2 sigma^2, r <= c1 / sigma",
        "relative_width": f"{rw:.3g}",
        "sigma_cut": str(res["sigma_cut"]),
        "computed_range": on.value.to_json(12),
        "cells": on.cells,
        "tail_bound_sigma_ge_cut": decimal_upper(res["tail_bound"], 12),
        "tail_sets_upper": res["tail_sets_upper"],
        "limit_sigma_to_infinity": on.limit.to_json(12),
    }


def constant_table(
    c1s: Sequence[str] = ("0.25", "0.5", "1", "2"),
    c2s: Sequence[str] = ("0.25", "0.5", "1", "2"),
    *,
    executor=None,
    jobs: int = 1,
    max_cells: int = 800,
) -> list[dict[str, object]]:
    """Certified C(c1, c2) on the whole sigma range for every pair (one work item per pair; any
    :class:`concurrent.futures.Executor`, a Dask one included)."""
    from .parallel import map_ordered

    items = [(x, y, max_cells) for x in c1s for y in c2s]
    return map_ordered(_table_entry, items, executor=executor, jobs=jobs, desc="C(c1, c2) table")


def dr_curve(c1: float, c2: float, d_r: float, d_lam: float, sigmas: Sequence[float]) -> dict[str, list[float]]:
    r"""Float exploration of "Can this be true for better orders": for each sigma,
    :math:`\log G` at :math:`r = c_1\sigma^{-d_r}`, integer :math:`\lambda = \lfloor c_2\sigma^{d_\lambda}\rfloor`,
    next to the proven Jensen lower bound :math:`\lambda(\lambda-1)r^2/(2\sigma^2)` (in log).
    Estimates for plotting; the lower bound column is exact arithmetic rounded to float."""
    out: dict[str, list[float]] = {"sigma": [], "log_G": [], "log_jensen": [], "lambda": [], "r": []}
    for s in sigmas:
        r = min(1.0, c1 * s ** (-d_r))
        lam = math.floor(c2 * s**d_lam)
        if lam < 2:
            continue
        out["sigma"].append(float(s))
        out["lambda"].append(float(lam))
        out["r"].append(r)
        out["log_G"].append(log_g_screen(float(lam), r, float(s)))
        out["log_jensen"].append(lam * (lam - 1) * r * r / (2 * s * s))
    return out
