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
* (M2) :math:`G_\lambda` is non-decreasing in :math:`r`: it is convex in :math:`r` (:math:`x \mapsto x^\lambda`
  is convex for :math:`\lambda > 1`), equals 1 at :math:`r=0` and is at least 1 everywhere (Jensen), so a
  convex function with its minimum at the left end.

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

First-order cells cost about :math:`1/\text{width}` cells near the maximum.  For a relative width of
:math:`10^{-8}` the cells that can hold the maximum get a Taylor model in :math:`\sigma` instead
(:func:`taylor_cell_bound`, real orders): with :math:`y = \sigma Z`,
:math:`G(\sigma) = \int\varphi(z)f(z,\sigma)\,dz`, :math:`f = (1 - r + re^{w})^{\lambda}`,
:math:`w = z/\sigma - 1/(2\sigma^2)`; on a finite window in :math:`z` the integral is analytic in
:math:`\sigma`, its Taylor coefficients at the cell centre are certified integrals of the
coefficients of the integrand's power series in :math:`\sigma` (``acb_series`` inside the rigorous
``acb.integral``), the Lagrange remainder is the same integral with :math:`\sigma` the whole cell,
and the part outside the window has a proven bound valid on the whole cell (:func:`_window_tail`).
The bound is of order 10 in the cell width, so the supremum is enclosed to the precision of the
point values (about :math:`10^{-11}` relative) with a few cells.

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
from flint import acb, acb_series, arb, ctx

from .. import budget
from ..arith import Certified, parse_rational, refine, to_arb, workprec
from ..subsampling.poisson_gaussian import integer_tail_plan, log_a_fractional, log_a_integer

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
    "logsumexp",
    "tail_majorant",
    "taylor_cell_bound",
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


def logsumexp(a: Any, axis: int | None = None) -> Any:
    r"""Float :math:`\log\sum_i e^{a_i}` over ``axis`` (all entries by default), for the screens.

    The entries equal to the maximum :math:`M` (``k`` of them) are taken out of the sum:
    :math:`M + \log k + \operatorname{log1p}(\sum_{a_i < M} e^{a_i - M} / k)`, so a sum dominated by
    its largest term keeps its small part to full relative precision (the arrangement of SciPy's
    ``special.logsumexp``, whose values this gives, in plain numpy: no SciPy import and no
    per-call array-API dispatch).  ``-inf`` for an empty or all ``-inf`` input.
    """
    x = np.asarray(a, dtype=float)
    if x.size == 0:
        return -math.inf if axis is None else np.full(np.delete(x.shape, axis), -np.inf)
    top = np.max(x, axis=axis, keepdims=True)
    finite = np.isfinite(top)
    shift = np.where(finite, top, 0.0)
    at_top = x == top
    k = np.sum(at_top, axis=axis, keepdims=True, dtype=float)
    with np.errstate(all="ignore"):
        rest = np.sum(np.exp(np.where(at_top, -np.inf, x) - shift), axis=axis, keepdims=True) / k
        out = np.where(finite, np.log1p(rest) + np.log(k) + shift, top)
    return float(out.reshape(())) if axis is None else np.squeeze(out, axis=axis)


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
    :math:`Z` (step 1/32) over the part of the window :math:`[-14, \lambda/\sigma + 14]` where a coarse pass
    (step 1/4) finds the log-integrand within 60 of its maximum.
    """
    if r <= 0:
        return 0.0
    if r >= 1:
        return lam * (lam - 1) / (2 * sigma * sigma)
    if float(lam).is_integer() and lam <= 1e6:
        # SciPy's log-gamma (correctly rounded to about 1e-16 relative; a cumulative table of logs
        # loses 1e-10 at n = 1e4), imported here: the real orders and the start-up do without it
        from scipy.special import gammaln

        n = int(lam)
        j = np.arange(n + 1, dtype=float)
        logc = gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1)
        terms = logc + j * math.log(r) + (n - j) * math.log1p(-r) + j * (j - 1) / (2 * sigma * sigma)
        return float(max(0.0, logsumexp(terms)))

    def log_integrand(z: np.ndarray) -> np.ndarray:
        w = z / sigma - 1.0 / (2 * sigma * sigma)
        # log(1 - r + r e^w) without overflow
        wp = np.maximum(w, 0.0)
        lb = np.where(w > 0, wp + np.log(r + (1 - r) * np.exp(-wp)), np.log1p(r * np.expm1(np.minimum(w, 0.0))))
        return -z * z / 2 + lam * lb

    hi = max(14.0, lam / sigma + 14.0)
    _check_screen_memory((hi + 14.0) / 0.25, lam, sigma)
    # a coarse pass finds where the integrand is within e^-60 of its maximum; the fine pass covers that
    zc = np.arange(-14.0, hi + 0.25, 0.25)
    fc = log_integrand(zc)
    keep = np.nonzero(fc > fc.max() - 60)[0]
    lo_z, hi_z = max(-14.0, float(zc[keep[0]]) - 1.0), min(hi, float(zc[keep[-1]]) + 1.0)
    h = 1.0 / 32
    _check_screen_memory((hi_z - lo_z) / h, lam, sigma)
    z = np.arange(lo_z, hi_z + h, h)
    val = logsumexp(log_integrand(z)) + math.log(h) - 0.5 * math.log(2 * math.pi)
    return float(max(0.0, val))


#: bytes per point of the screen's quadrature (the abscissae and about ten float temporaries)
SCREEN_BYTES_PER_POINT = 96


def _check_screen_memory(points: float, lam: float, sigma: float) -> None:
    """Refuse, before allocating, a screen whose window ``[-14, lambda/sigma + 14]`` (in steps of
    1/4, then 1/32) needs more memory than the budget: the window grows like ``c2 sigma``."""
    budget.check_memory(
        points * SCREEN_BYTES_PER_POINT,
        f"the float screen of G at sigma = {sigma:.3g} (order lambda = {lam:.3g}, {points:.3g} quadrature points)",
        "ask for less: the grid grows like c2 sigma (a smaller --c2, --sigma-max, --sigma-min or --c1)",
    )


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


def _default_sigma_min(c1: Fraction, c2: Fraction, integer: bool = False) -> Fraction:
    """Real orders: max(c1, rho) with rho a short rational just *below* sqrt(2/c2) (checked exactly:
    c2 rho^2 <= 2), so that the covered range
    contains [max(c1, sqrt(2/c2)), ...] and lambda = c2 rho^2 > 1.  Integer orders need
    floor(c2 sigma^2) >= 2: a short rational just above sqrt(2/c2)."""
    if integer:
        return max(c1, _rat(math.sqrt(2.0 / float(c2))) + Fraction(1, 1 << 20))
    x = math.sqrt(2.0 / float(c2)) * (1 - 2.0**-30)
    rho = _rat(x)
    if c2 * rho * rho > 2:  # exact test: the short rational rounded above sqrt(2/c2)
        rho = Fraction(x)  # the float itself is below it (relative error of sqrt << 2^-30)
    return max(c1, rho)


def _sigma_min(c1: Fraction, c2: Fraction, sigma_min: object, integer: bool = False) -> Fraction:
    """The start of the sigma range: ``sigma_min`` as given (checked: r = c1/sigma <= 1 and
    lambda = c2 sigma^2 > 1) or the default :func:`_default_sigma_min`."""
    smin = _default_sigma_min(c1, c2, integer) if sigma_min is None else parse_rational(sigma_min, "sigma-min")
    if smin < c1:
        raise ValueError(f"sigma-min must be >= c1 = {c1} (r = c1/sigma <= 1). Found {sigma_min}.")
    if c2 * smin * smin <= 1:
        raise ValueError(
            f"sigma-min must make lambda = c2 sigma^2 > 1, i.e. sigma-min > {math.sqrt(1 / float(c2)):.6g}. Found {sigma_min}."
        )
    return smin


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
    best0: float = -math.inf,
) -> list[tuple[_P, _P]]:
    """Float best-first branch and bound: repeatedly bisect the cell with the largest bound while that
    bound exceeds the best point value by more than ``rel_gap`` (in log) and the budget allows.
    Only the choice of cells uses floats; every final cell is bounded certified by the caller."""
    import heapq

    best = max(best0, max(point(x) for cell in cells for x in cell))
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
    smin = _sigma_min(a, b, sigma_min, integer)
    if integer and math.floor(b * smin * smin) < 2:
        raise ValueError(f"sigma-min must make floor(c2 sigma^2) >= 2 for integer orders. Found {sigma_min}.")
    if smax <= smin:
        raise ValueError(f"sigma-max must be > sigma-min ({float(smin):.6g}). Found {sigma_max}.")
    if cells < 1:
        raise ValueError(f"cells must be >= 1. Found {cells}.")
    fa, fb = float(a), float(b)
    # the screen's window at sigma-max is the largest: refuse at once, not after minutes of cells
    _check_screen_memory((fb * float(smax) + 28.0) / 0.25, fb * float(smax) ** 2, float(smax))
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

        def below(ja: int, jb: int, floor: arb) -> bool:
            """Whether the cell's bound is proven below ``floor`` by the head of the sum (9.5) and a
            proven bound of the rest (only the terms that matter at the screen's margin are summed;
            a cell far from the maximum at a large order costs a few hundred terms, not jb)."""
            gap = point_j(j_star) - cbound_j(ja, jb)
            if not gap > 1e-6:
                return False
            # the cut terms may add a quarter of the screened distance to the maximum
            budget = point_j(j_star) + math.log(-math.expm1(-gap)) - math.log(4.0)
            r_f = fa / sig(ja)
            if not 0 < r_f < 1:  # r = 1: (9.5) is a single term, nothing to truncate
                return False
            plan = integer_tail_plan(jb, r_f, sig(ja), budget)
            if plan is None:
                return False
            sj = sig_ball(ja)
            r = to_arb(a) / sj
            if r >= 1:
                return False
            head, top, blocks = plan
            return bool(log_a_integer(jb, r, sj, head, blocks, top).exp() < floor)

        with workprec(prec0) as prec:
            lo = g_int(j_star, sig_ball(j_star))
            ub = arb(0)
            for ja, jb in cl_j:
                # a cell proven below G at the best order cannot raise the upper end (the cell holding
                # that order is at least as large): it needs no full sum
                if not below(ja, jb, lo.lower()):
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
    head = b * b / (2 * (1 - 2 * alpha))
    if head > 700.0:  # the majorant overflows a float: no admissible level here (a float choice only)
        return None
    total = math.exp(head) / math.sqrt(1 - 2 * alpha)
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


def _screen_argmax(c1: float, c2: float, lo: float, hi: float) -> tuple[float, float]:
    """Float argmax of ``log G`` on ``[lo, hi]``: a geometric scan, then golden sections (screen only)."""

    def g(s: float) -> float:
        return log_g_screen(c2 * s * s, min(1.0, c1 / s), s)

    grid = np.geomspace(lo, hi, 160)
    vals = [g(float(s)) for s in grid]
    i = int(np.argmax(vals))
    x0, x1 = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, len(grid) - 1)])
    phi = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        if x1 - x0 <= 1e-10 * x1:
            break
        u, v = x1 - phi * (x1 - x0), x0 + phi * (x1 - x0)
        if g(u) >= g(v):
            x1 = v
        else:
            x0 = u
    s = (x0 + x1) / 2
    return (s, g(s)) if g(s) >= vals[i] else (float(grid[i]), vals[i])


def _bits_below(log_margin: float, prec: int) -> int:
    """Integration tolerance (bits) for a certified cell bound that only has to come out below a value
    ``log_margin`` above the screened bound (in log): the relative error 2^-bits is then about 2^-8 of
    the margin.  ``prec`` when the margin is too small or not a number."""
    if not log_margin > 0:
        return prec
    return min(prec, max(24, math.ceil(-math.log2(log_margin)) + 8))


def constant_whole_range(
    c1: object,
    c2: object,
    *,
    sigma_min: object = None,
    cap: float = 1e5,
    max_cells: int = 3000,
    rel_width: float = 1e-8,
    digits: float = 12,
    first_order_min_width: float = 0.002,
    taylor_width: float = 0.05,
    max_taylor_cells: int = 2000,
) -> dict[str, Any]:
    r"""Certified enclosure of :math:`C(c_1, c_2) = \sup_{\sigma \ge \sigma_{\min}} G(\sigma)` over the
    whole range (real orders :math:`\lambda \le c_2\sigma^2`, rates :math:`r \le c_1/\sigma`; facts M1,
    M2 put the supremum at :math:`\lambda = c_2\sigma^2`, :math:`r = c_1/\sigma`).

    * Lower end: the certified value :math:`G(\sigma^*)` at the float argmax :math:`\sigma^*` (a scan and
      golden sections on the float screen).
    * ``[sigma_min, sigma_cut]``: first-order cells (M1-M3, the bound of :func:`constant_sup`) where
      they are below :math:`G(\sigma^*)(1 + \text{rel\_width}/5)` after bisection down to the relative
      width ``first_order_min_width``; every other cell (those near the maximum, and the flat stretch
      of the cases whose maximum is barely above the limit) gets a Taylor model of order
      :data:`TAYLOR_ORDER` (:func:`taylor_cell_bound`), bisected until it is below
      :math:`G(\sigma^*)(1 + \text{rel\_width}/2)` or ``max_taylor_cells`` is spent.
    * ``[sigma_cut, inf)``: :func:`tail_majorant`.  ``sigma_cut`` is the first point of a geometric grid
      where the float majorant is below the float maximum; the certified majorant is then compared
      with the lower end (``tail_below_lower``).

    The relative width reached is reported (``C.relative_width()``); it is at most ``rel_width``
    unless the Taylor cell budget ran out (then the enclosure is still certified, only wider).

    Returns a dict: ``C`` (Certified), ``argmax_sigma`` (Fraction), ``sigma_min``, ``sigma_cut``
    (Fractions), ``tail_bound`` (arb), ``tail_sets_upper``, ``tail_below_lower`` (bools),
    ``first_order_cells``, ``taylor_cells`` (ints), ``computed_range`` (Certified: the enclosure of the
    supremum over ``[sigma_min, sigma_cut]``), ``limit`` (Certified :math:`e^{c_1^2c_2^2/2}`).
    """
    a, b = validate_c(c1, c2)
    smin = _sigma_min(a, b, sigma_min)
    fa, fb, fs = float(a), float(b), float(smin)
    s_hat, best = _screen_argmax(fa, fb, fs, max(fs * 1.01, min(cap, 1e4)))
    sc = _find_sigma_cut(a, b, best - 1e-12, max(fs * 1.5, s_hat * 1.05), cap)
    if sc is None:
        sc = _rat(cap)
    no_tail = (
        f"c2 must be larger: for c1 = {c1}, c2 = {c2} (sigma-min = {fs:.6g}) the tail majorant "
        f"has no admissible level at the largest cut sigma = {float(sc):.6g}."
    )
    if _best_t0(fa, fb, float(sc)) is None:
        raise ValueError(no_tail)
    if sc <= smin:
        raise ValueError(
            f"c1 and c2 put sigma-min = {float(smin):.6g} at or beyond the largest tail cut {cap:g}; "
            f"the whole range is computed for sigma-min < {cap:g}. Found c1 = {c1}, c2 = {c2}."
        )
    s_star = max(smin, min(sc, _rat(s_hat)))
    g_star = constant_at(a, b, s_star, integer=False, digits=digits)
    prec0 = max(96, int(digits * 3.33) + 40)
    screened: dict[tuple[float, float, float], float] = {}  # the branch and bound asks again for most values

    def screen(lam: float, r: float, s: float) -> float:
        key = (lam, r, s)
        if key not in screened:
            screened[key] = log_g_screen(lam, r, s)
        return screened[key]

    def point(s: Fraction) -> float:
        return screen(fb * float(s) ** 2, min(1.0, fa / float(s)), float(s))

    def cbound(sa: Fraction, sb: Fraction) -> float:
        return screen(fb * float(sb) ** 2, min(1.0, fa / float(sa)), float(sa))

    def split(sa: Fraction, sb: Fraction) -> list[tuple[Fraction, Fraction]] | None:
        if float(sb) / float(sa) - 1 < first_order_min_width:
            return None
        mid = _rat(math.sqrt(float(sa) * float(sb)))
        return [(sa, mid), (mid, sb)] if sa < mid < sb else None

    fo_gap = math.log1p(rel_width / 5)
    pts = sorted({smin, sc} | {_rat(fs * (float(sc) / fs) ** (i / 48)) for i in range(1, 48)} | {s_star})
    pts = [p for p in pts if smin <= p <= sc]
    cl = _branch_and_bound(list(itertools.pairwise(pts)), point, cbound, split, fo_gap, max_cells, best0=best)
    cl.sort()
    first = [c for c in cl if cbound(*c) <= best + fo_gap]
    second: list[tuple[Fraction, Fraction]] = []  # runs of adjacent cells that need Taylor models
    for c in (c for c in cl if cbound(*c) > best + fo_gap):
        if second and second[-1][1] == c[0]:
            second[-1] = (second[-1][0], c[1])
        else:
            second.append(c)
    g_est = math.exp(best)
    with workprec(prec0) as prec:
        target = g_star.ball.upper() * (1 + arb(rel_width) / 2)
        ub = arb(g_star.ball.upper())
        for sa, sb in first:
            lam, r = b * sb * sb, min(Fraction(1), a / sa)
            # a cell whose screened bound is well below the maximum needs only enough bits to prove
            # its bound below G(sigma*) (then it cannot raise the upper end); else the full precision
            bits = _bits_below(best - cbound(sa, sb), prec)
            if bits < prec and log_g_mixture(lam, r, sa, bits).exp() < ub:
                continue
            ub = ub.max(log_g_mixture(lam, r, sa, prec).exp())
        todo: list[tuple[Fraction, Fraction]] = []
        for sa, sb in second:  # pieces of relative width <= taylor_width
            n = max(1, math.ceil(math.log(float(sb) / float(sa)) / math.log1p(taylor_width)))
            edges = [sa] + [_rat(float(sa) * (float(sb) / float(sa)) ** (i / n)) for i in range(1, n)] + [sb]
            todo.extend((x, y) for x, y in itertools.pairwise(edges) if x < y)
        n_taylor = 0
        while todo:
            sa, sb = todo.pop()
            bound = taylor_cell_bound(a, b, sa, sb, g_est, prec)
            n_taylor += 1
            if not bound <= target and n_taylor + len(todo) + 2 <= max_taylor_cells:
                mid = _rat(math.sqrt(float(sa) * float(sb)))
                if sa < mid < sb:
                    todo.extend([(sa, mid), (mid, sb)])
                    continue
            ub = ub.max(bound)
        on_range = arb(g_star.ball.lower()).union(ub.upper())
        try:
            tail = tail_majorant(a, b, sc, prec)
        except ValueError:
            raise ValueError(no_tail) from None
        upper = arb(ub.upper()).max(tail)
        enclosure = arb(g_star.ball.lower()).union(upper)
        tail_below = bool(tail < g_star.ball.lower())
    with workprec(64):
        lim = limit_value(a, b)
    return {
        "C": Certified(enclosure, prec),
        "argmax_sigma": s_star,
        "sigma_min": smin,
        "sigma_cut": sc,
        "tail_bound": tail,
        "tail_sets_upper": bool(tail > ub.upper()),
        "tail_below_lower": tail_below,
        "first_order_cells": len(first),
        "taylor_cells": n_taylor,
        "computed_range": Certified(on_range, prec),
        "limit": Certified(lim, 64),
    }


# ---------------------------------------------------------------------------
# Taylor models in sigma: cell bounds of high order near the maximum
# ---------------------------------------------------------------------------

#: order K of the Taylor models of :func:`taylor_cell_bound` (coefficients 0..K-1 at the centre,
#: the K-th enclosed over the whole cell)
TAYLOR_ORDER = 10

#: integration window: left end -Z1 (the part z <= -Z1 is at most Q(Z1) < 1e-33, module docstring)
_Z1 = 12


def _integrand_series(
    c1: arb, c2: arb, sig: arb, n: int, k: int, cache: dict[tuple, list[acb] | None] | None = None
) -> Callable[[acb, bool], acb]:
    r"""The ``k``-th Taylor coefficient in ``t`` of :math:`\varphi(z)\,f(z, \sigma + t)`,
    :math:`f = (1 - r + r e^{w})^{\lambda}`, :math:`r = c_1/(\sigma+t)`, :math:`\lambda = c_2(\sigma+t)^2`,
    :math:`w = z/(\sigma+t) - 1/(2(\sigma+t)^2)`, as an integrand for ``acb.integral`` (series of
    length ``n`` in ball arithmetic; for a ball ``sig`` it encloses the coefficient for every
    sigma in it).  The logarithm's branch cut is checked when ``analytic`` is set.

    One evaluation gives all ``n`` coefficients; integrands of the same ``(c1, c2, sig, n)`` sharing
    a ``cache`` (and the working precision) reuse them at the nodes they have in common (the
    integrals of the coefficients of one cell share most of their nodes), with the same balls."""
    lg2pi = (2 * arb.pi()).log() / 2

    def series(z: acb, analytic: bool) -> list[acb] | None:
        ctx.cap = n
        s = acb_series([acb(sig), 1], prec=n)
        inv = 1 / s
        w = z * inv - inv * inv / 2
        d = 1 + c1 * inv * (w.exp() - 1)
        if analytic and not (d.coeffs()[0].real > 0):
            return None
        e = (c2 * s * s * d.log() - z * z / 2 - lg2pi).exp()
        return list(e.coeffs())

    def f(z: acb, analytic: bool) -> acb:
        if cache is None:
            cs = series(z, analytic)
        else:
            re, im = z.real, z.imag
            key = (re.mid().man_exp(), re.rad().man_exp(), im.mid().man_exp(), im.rad().man_exp(), analytic)
            if key not in cache:
                cache[key] = series(z, analytic)
            cs = cache[key]
        if cs is None:
            return acb(arb.nan())
        return cs[k] if k < len(cs) else acb(0)

    return f


def _window_tail(c1: Fraction, c2: Fraction, sa: Fraction, sb: Fraction) -> tuple[float, float, arb]:
    r"""Window ``[-Z1, Z2]`` of the z-integral for sigma in ``[sa, sb]`` and a proven bound of the part
    of :math:`G(\sigma) = \int \varphi(z) f(z,\sigma)\,dz` outside it, for every sigma in the cell
    (call inside ``workprec``).

    * :math:`z \le -Z_1`: :math:`w < 0`, so :math:`f \le 1`; the part is at most :math:`\bar\Phi(Z_1)`.
    * :math:`Z_2 \le z \le Z_3` (:math:`Z_2 \ge 1/(2\sigma_a)`, so :math:`w \ge 0`): :math:`\log(1+x) \le x`
      and :math:`e^w - 1 \le w e^w` with :math:`w \le z/\sigma`, :math:`e^w \le e^{Z_3/\sigma_a}` give
      :math:`f \le e^{\gamma z}`, :math:`\gamma = c_1c_2e^{Z_3/\sigma_a}`; the part is at most
      :math:`e^{\gamma^2/2}\bar\Phi(Z_2 - \gamma)`.
    * :math:`z \ge Z_3`: :math:`1 - r + re^w \le e^w` gives :math:`f \le e^{\lambda w}`; the part is
      :math:`e^{c_2(c_2\sigma^2-1)/2}\bar\Phi(Z_3 - c_2\sigma) \le e^{c_2(c_2\sigma_b^2-1)/2}\bar\Phi(Z_3 - c_2\sigma_b)`.
    """
    fb, fc2 = float(sb), float(c2)
    mu = fc2 * fb
    z3 = max(mu + math.sqrt(mu * mu + 90.0), 1.0 / float(sa) + 1)
    gamma_f = float(c1) * fc2 * math.exp(min(700.0, z3 / float(sa)))
    z2 = min(z3, max(gamma_f + math.sqrt(gamma_f * gamma_f + 90.0), 1.0 / float(sa) + 1))
    z2r, z3r = Fraction(z2), Fraction(z3)  # exact binary numbers: the window ends where the tail starts
    sqrt2 = arb(2).sqrt()

    def qbar(x: arb) -> arb:
        return (x / sqrt2).erfc() / 2

    C1, C2, SA, SB = to_arb(c1), to_arb(c2), to_arb(sa), to_arb(sb)
    tail = qbar(arb(_Z1))
    if z2r < z3r:
        gamma = C1 * C2 * (to_arb(z3r) / SA).exp()
        tail += (gamma * gamma / 2).exp() * qbar(to_arb(z2r) - gamma)
    tail += (C2 * (C2 * SB * SB - 1) / 2).exp() * qbar(to_arb(z3r) - C2 * SB)
    return -float(_Z1), z2, arb(tail.upper())


def _integrate_coeff(
    c1: Fraction,
    c2: Fraction,
    sig: arb,
    n: int,
    k: int,
    pts: list[float],
    abs_tol: arb,
    eval_limit: int,
    cache: dict[tuple, list[acb] | None] | None = None,
) -> arb:
    f = _integrand_series(to_arb(c1), to_arb(c2), sig, n, k, cache)
    total = acb(0)
    for lo, hi in itertools.pairwise(pts):
        total += acb.integral(f, lo, hi, rel_tol=arb(2) ** -60, abs_tol=abs_tol, eval_limit=eval_limit)
    return total.real


def _poly_sup(a: list[arb]) -> arb:
    r"""Upper bound of :math:`\sup_{\tau\in[-1,1]}\sum_k a_k\tau^k` (ball coefficients).

    At the float maximiser :math:`\tau_c` (exact binary number), shift:
    :math:`P(\tau_c+u) = p_0 + p_1u + u^2 Q(u)` with :math:`Q(u) = \sum_{j\ge2} p_ju^{j-2}`; with
    :math:`q \ge Q(U)` on :math:`U = [-1-\tau_c, 1-\tau_c]` (interval Horner), :math:`P \le p_0 + p_1u + qu^2`
    on :math:`U`, and the sup of that quadratic is at an end of ``U`` or at its vertex."""
    mids = [float(x.mid()) for x in a]
    grid = np.linspace(-1.0, 1.0, 801)
    vals = np.polynomial.polynomial.polyval(grid, mids)
    i = int(np.argmax(vals))
    tc = float(grid[i])
    der = np.polynomial.polynomial.polyder(mids)
    der2 = np.polynomial.polynomial.polyder(der)
    for _ in range(30):  # Newton on P' inside the bracket around the grid maximiser
        d2 = float(np.polynomial.polynomial.polyval(tc, der2))
        if d2 >= 0:
            break
        nt = tc - float(np.polynomial.polynomial.polyval(tc, der)) / d2
        if not (grid[max(i - 1, 0)] <= nt <= grid[min(i + 1, len(grid) - 1)]):
            break
        tc = nt
    t = arb(tc)  # exact
    n = len(a)
    # Taylor shift: p_j = sum_k C(k, j) a_k t^(k - j)
    p = [sum((a[k] * math.comb(k, j) * t ** (k - j) for k in range(j, n)), arb(0)) for j in range(n)]
    lo, hi = -1 - t, 1 - t  # balls (exact at the working precision)
    u = lo.union(hi)
    q = arb(0)
    for j in range(n - 1, 1, -1):
        q = q * u + p[j]
    qu = arb(q.upper())
    cands = [arb(0), p[1] * lo + qu * lo * lo, p[1] * hi + qu * hi * hi]
    if qu < 0:
        vert = -p[1] / (2 * qu)
        if vert.overlaps(u):
            cands.append(-p[1] * p[1] / (4 * qu))
    best = cands[0]
    for c in cands[1:]:
        best = best.max(c)
    return arb((p[0] + best).upper())


def taylor_cell_bound(c1: Fraction, c2: Fraction, sa: Fraction, sb: Fraction, g_est: float, prec: int) -> arb:
    r"""Proven upper bound of :math:`\sup_{\sigma\in[\sigma_a,\sigma_b]} G(\sigma)` by a Taylor model in sigma
    (real orders :math:`\lambda = c_2\sigma^2`, :math:`r = c_1/\sigma`; M1, M2 reduce the supremum over
    :math:`\lambda \le c_2\sigma^2`, :math:`r \le c_1/\sigma` to this boundary).

    :math:`G = G_{\rm win} + G_{\rm tail}` with :math:`G_{\rm win}(\sigma) = \int_{-Z_1}^{Z_2}\varphi(z)f(z,\sigma)\,dz`
    and the tail bounded for the whole cell by :func:`_window_tail`.  :math:`G_{\rm win}` is analytic in
    sigma; its Taylor coefficients at the centre :math:`m` (differentiation under the integral sign of a
    finite integral: ``acb_series`` in :math:`t` inside ``acb.integral``, certified) give
    :math:`P(t) = \sum_{k<K} g_kt^k`, and the Lagrange remainder :math:`G_{\rm win}^{(K)}(\xi)t^K/K!` is
    enclosed by the same integral with sigma the whole cell.  The sup of :math:`P` on the cell comes
    from :func:`_poly_sup`.  The bound is of order :math:`K` in the cell width, so near the maximum it
    is tight to the precision of the coefficients.  Call inside ``workprec(prec)``.
    """
    K = TAYLOR_ORDER
    cap = ctx.cap
    try:
        return _taylor_cell_bound(c1, c2, sa, sb, g_est, prec, K)
    finally:
        ctx.cap = cap


def _taylor_cell_bound(c1: Fraction, c2: Fraction, sa: Fraction, sb: Fraction, g_est: float, prec: int, K: int) -> arb:
    m = (sa + sb) / 2
    rho = (sb - sa) / 2
    lo, z2, tail = _window_tail(c1, c2, sa, sb)
    mu = float(c2) * float(m)
    pts = sorted({lo, z2, 0.0} | ({mu} if 0 < mu < z2 else set()))
    R = to_arb(rho)
    g_abs = arb(abs(g_est) + 1.0)
    coeffs = []
    M = to_arb(m)
    shared: dict[tuple, list[acb] | None] = {}  # series at the centre, by node (see _integrand_series)
    for k in range(K):
        tol = g_abs * arb(2) ** (-prec + 20) / R**k
        coeffs.append(_integrate_coeff(c1, c2, M, K, k, pts, tol, 100000, shared) * R**k)
    cell = to_arb(sa).union(to_arb(sb))
    tolK = g_abs * arb(10) ** -13 / R**K
    rem = _integrate_coeff(c1, c2, cell, K + 1, K, pts, tolK, 20000)
    sup_win = _poly_sup(coeffs) + abs(rem).upper() * R**K
    return arb((sup_win + tail).upper())


def _table_entry(item: tuple[str, str, int, float]) -> dict[str, object]:
    c1, c2, max_cells, rel_width = item
    res = constant_whole_range(c1, c2, max_cells=max_cells, rel_width=rel_width)
    return constant_json(res, c1, c2)


def constant_json(res: dict[str, Any], c1: object, c2: object) -> dict[str, object]:
    """The JSON of ``rigorous-rdp constant`` (DESIGN.md section 5) for a :func:`constant_whole_range` result."""
    from ..arith import decimal_upper

    C = res["C"]
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
        "sigma_cut": f"{float(res['sigma_cut']):.6g}",
        "computed_range": res["computed_range"].to_json(12),
        "cells": {"first_order": res["first_order_cells"], "taylor": res["taylor_cells"]},
        "tail_bound_sigma_ge_cut": decimal_upper(res["tail_bound"], 12),
        "tail_below_lower": res["tail_below_lower"],
        "limit_sigma_to_infinity": res["limit"].to_json(12),
    }


def constant_table(
    c1s: Sequence[str] = ("0.25", "0.5", "1", "2"),
    c2s: Sequence[str] = ("0.25", "0.5", "1", "2"),
    *,
    executor=None,
    jobs: int = 1,
    max_cells: int = 3000,
    rel_width: float = 1e-8,
) -> list[dict[str, object]]:
    """Certified C(c1, c2) on the whole sigma range for every pair (one work item per pair; any
    :class:`concurrent.futures.Executor`, a Dask one included)."""
    from .parallel import map_ordered

    items = [(x, y, max_cells, rel_width) for x in c1s for y in c2s]
    return map_ordered(_table_entry, items, executor=executor, jobs=jobs, progress=True, desc="C(c1, c2) table")


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
