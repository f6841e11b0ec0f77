r"""Exact composition of integer PLDs, and delta(epsilon) from a composed PLD.

**Fact 3 (composition is convolution).**  For product pairs
:math:`(P_1 \times P_2, Q_1 \times Q_2)` the loss is :math:`L_1 + L_2` with independent
:math:`L_j \sim P_j`, so the P-law of the composed loss is the convolution of the
P-laws; on a common grid :math:`\{k h\}` that is the product of the generating
polynomials :math:`\sum_j c_j z^j`, computed *exactly* by FLINT's ``fmpz_poly``
multiplication (no rounding at all).  The mass at :math:`+\infty` of the composition is
:math:`1 - (1 - a)(1 - b) \le a + b`.

**Fact 4 (monotonicity).**
:math:`\delta(\varepsilon) = E[(1 - e^{\varepsilon - L})_+] =
\sum_{\ell > \varepsilon} (1 - e^{\varepsilon - \ell})\, p(\ell) + p(+\infty)` is
non-decreasing in every mass and, since :math:`\ell \mapsto (1 - e^{\varepsilon -
\ell})_+` is non-decreasing, under moving mass to a larger loss (including
:math:`+\infty`).  Convolution of non-negative arrays is monotone in every entry and
commutes with such moves (a coupling: every sum containing a moved summand moves up).
Hence, along a chain of products, the following keep an *upper* array an upper bound
of the exact composed masses (in the sense that its delta is an upper bound for every
epsilon, now and after further compositions):

* rescaling from :math:`2^{-2S}` to :math:`2^{-S}` by ``floor`` and adding one unit per
  coefficient to the mass at :math:`+\infty`;
* moving the lowest coefficients, of total mass at most ``tail``, onto the lowest kept
  coefficient; moving the highest coefficients, of total mass at most ``tail``, to
  :math:`+\infty`.

and the following keep a *lower* array a lower bound: rounding down (``floor``) and
dropping coefficients at either end.  No floating-point number is used.

Precisely, "upper bound" means: the exact (probability) measure :math:`\nu` of the
composed discrete pair can be transported into a sub-measure of the array's measure
:math:`\mu` moving mass only upwards.  For a product, transport :math:`\nu_A \otimes
\nu_B` pairwise; pairs with a finite image land in the exact product of the finite
parts, and pairs with an infinite image have :math:`\nu`-mass at most
:math:`\nu_A(\{x' = \infty\}) + \nu_B(\{y' = \infty\}) \le a_\infty + b_\infty`
(the :math:`\nu` are probability measures), which is the mass put at :math:`+\infty`.
Since :math:`(1 - e^{\varepsilon - \ell})_+` is non-decreasing and non-negative,
delta of :math:`\mu` is at least delta of :math:`\nu`.  For lower arrays the roles are
exchanged (:math:`\mu` is transported into a sub-measure of :math:`\nu`, downwards).

**Fact 5 (the delta order is kept by convolution).**  For a finite non-negative
measure :math:`\mu` on the reals and a mass :math:`m_\infty \ge 0` at :math:`+\infty`
write :math:`\delta_\mu(t) = \sum_\ell \mu(\ell) (1 - e^{t - \ell})_+ + m_\infty`.
Then :math:`\delta_{\mu * \rho}(t) = \sum_b \rho(b)\, \delta_\mu(t - b)` (finite parts; the
masses at :math:`+\infty` add), which is linear and monotone in each factor.  Hence if
:math:`\delta_{\mu'} \ge \delta_\mu` at *every real* t, then :math:`\delta_{\mu' * \rho} \ge
\delta_{\mu * \rho}` everywhere, for every non-negative :math:`\rho`, and so along any
chain of further products.  Upward transport (Fact 4) is one way to get
:math:`\delta_{\mu'} \ge \delta_\mu`; :func:`coarsen_up` is another (second order in the
coarse spacing): an atom p at loss :math:`\ell \in [a, c)` of the coarse grid is
split into :math:`p(1 - \rho)` at a and :math:`p\rho` at c with
:math:`\rho = (1 - e^{a - \ell}) / (1 - e^{a - c})`.  As a function of :math:`x = e^t`,
:math:`(1-\rho)(1 - x e^{-a})_+ + \rho(1 - x e^{-c})_+` equals :math:`(1 - x e^{-\ell})_+` on
:math:`[0, e^a]` (the slopes agree: :math:`(1-\rho)e^{-a} + \rho e^{-c} = e^{-\ell}`), is the
chord of that convex function on :math:`[e^a, e^c]` (so above it), and both vanish
beyond :math:`e^c` (connect the dots on one atom, as in
:mod:`~rigorous_rdp.pld.discretize`).  Rounding up moves more mass up (Fact 4): the
coarse array only depends on each coarse interval's total up-share, so it is enough to round
up the total :math:`\sum p\rho` of the atoms of each interval (not every atom's share).

**Fact 6 (coarsening a lower array).**  The chord lies above, so a lower array is
coarsened by :func:`coarsen_down`: every atom gives an up-share :math:`u \le p\rho` to
its upper coarse point c and the rest to its lower coarse point a (the coarse array only
depends on each interval's total :math:`U_m` of up-shares: any :math:`U_m` at most the sum of
lower bounds of the :math:`p\rho` of its atoms is such a total).  Write K for the mass
held back from the connect-the-dots share (:math:`p\rho - u \ge 0`).  For
:math:`t \le a` the change of the atom's term is :math:`-e^t K (e^{-a} - e^{-c}) \le 0`
(with the full share the term is unchanged there, Fact 5); for :math:`t \ge c` it is 0.
For t in :math:`[a, c)` (coarse interval m) the atoms of interval m can raise
:math:`\delta` by at most :math:`U_m (1 - e^{t - c}) \le U_m (1 - e^{-H})` (their
up-shares :math:`U_m`; H the coarse spacing), the atoms of intervals below do
nothing, and those of every interval :math:`m' > m` lower it by
:math:`e^t (1 - e^{-H}) e^{-a_{m'}} K_{m'} \ge (1 - e^{-H}) e^{-(m' - m)H} K_{m'}`.  So
:math:`\delta` of the coarse array is at most that of the fine one at every t if
:math:`U_m \le W_m = \sum_{j \ge 1} e^{-jH} K_{m+j}` for every m, which
:func:`coarsen_down` enforces from the top down with integer lower bounds of
:math:`W_m` (a lower bound of :math:`e^{-H}`, floors).  The held-back mass is a small
fraction (about :math:`H` times the hazard rate of the loss) of each up-share, so the
error stays second order in H.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb, arb_poly, fmpq, fmpz, fmpz_poly

from .. import budget
from ..arith import workprec
from .discretize import DiscretePld, arb_upper_fraction

__all__ = [
    "Coarsening",
    "coarsen_down",
    "coarsen_up",
    "compose_all",
    "delta_at",
    "delta_screen",
    "multiply",
    "power",
    "products",
]


def _rescale(poly: fmpz_poly, bits: int) -> fmpz_poly:
    r"""Coefficients divided by :math:`2^{bits}` and rounded down, exactly.

    For an upper PLD the caller adds one unit per coefficient at :math:`+\infty`:
    :math:`a/2^{bits} \le \lfloor a/2^{bits} \rfloor + 1`, and moving that unit
    from its loss to :math:`+\infty` only increases delta (Fact 4)."""
    return poly // (1 << bits)


def _end_count(poly: fmpz_poly, n: int, limit: int, kmax: int, top: bool) -> tuple[int, int]:
    """Largest k in ``[0, kmax]`` whose lowest (``top`` False) or highest (``top`` True) k coefficients of
    ``poly`` (length n, non-negative coefficients) sum to at most ``limit``, and that sum.

    The partial sums are non-decreasing in k, so the answer is unique; it is found by galloping from 0
    then bisection, every sum exact (evaluations at 1) and built from the last one plus the sum of a
    *slab* of coefficients between the two bisection ends (kept as its own polynomial and halved at
    each step), so the coefficients copied number a few times the answer, not its logarithm times
    it (the trimmed tails of a product can be half of it)."""

    def piece(a: int, b: int) -> fmpz_poly:
        # the coefficients k-range [a, b) counted from the chosen end, as a polynomial (low index first)
        if top:
            s = poly.right_shift(n - b)
            return s.truncate(b - a) if a else s
        s = poly.truncate(b)
        return s.right_shift(a) if a else s

    if kmax <= 0:
        return 0, 0
    good, fgood, bad = 0, 0, 1
    while True:
        b = min(bad, kmax)
        slab = piece(good, b)
        s = fgood + int(slab(1))
        if s > limit:
            bad = b
            break
        good, fgood = b, s
        if b == kmax:
            return good, fgood
        bad = 2 * b
    # f(good) = fgood <= limit < f(bad); slab holds the k-range [good, bad)
    while bad - good > 1:
        mid = (good + bad) // 2
        # the k-range [good, mid): the outer end of the slab
        near = slab.right_shift(bad - mid) if top else slab.truncate(mid - good)
        s = fgood + int(near(1))
        if s <= limit:
            slab = slab.truncate(bad - mid) if top else slab.right_shift(mid - good)
            good, fgood = mid, s
        else:
            slab, bad = near, mid
    return good, fgood


def _trim_poly(
    pld_offset: int, poly: fmpz_poly, tail_units: int, up: bool, step: int = 1
) -> tuple[int, fmpz_poly, int]:
    r"""Remove end coefficients of total at most ``tail_units`` at each end, on the
    polynomial itself (exact partial sums by evaluating pieces at 1, no Python lists:
    :func:`_end_count`).

    The lowest ``lo`` coefficients go (the largest ``lo <= n - 1`` whose sum is at most
    ``tail_units``), then the highest ``m`` (the largest ``m <= n - 1 - lo`` likewise): the
    same choice as removing them one by one from each end.  For an upper array the low
    mass is added onto the lowest kept coefficient (moved up, Fact 4) and the high mass
    is returned to be put at :math:`+\infty`; a lower array just drops both.

    Returns ``(new_offset, kept polynomial, units moved to +infinity)``; coefficients are
    ``step`` grid indices apart."""
    n = poly.length()
    if n == 0:
        return pld_offset, poly, 0
    lo, low_moved = _end_count(poly, n, tail_units, n - 1, top=False)
    m, high_moved = _end_count(poly, n, tail_units, n - 1 - lo, top=True)
    kept = poly.truncate(n - m) if m else poly
    if lo:
        kept = kept.right_shift(lo)
    if up:
        if low_moved:
            kept[0] = kept[0] + low_moved
        return pld_offset + lo * step, kept, high_moved
    return pld_offset + lo * step, kept, 0


def _to_frac_units(units: int, scale_bits: int) -> Fraction:
    return Fraction(units, 1 << scale_bits)


def multiply(a: DiscretePld, b: DiscretePld, tail: Fraction) -> DiscretePld:
    """The composition of two upper (or two lower) PLDs of the same scale (Facts 3-4)."""
    if a.upper != b.upper or a.scale_bits != b.scale_bits or a.step != b.step:
        raise ValueError("pld: cannot multiply PLDs of different kinds, scales or steps")
    budget.check("the PLD composition")
    s = a.scale_bits
    prod = _rescale(a.coeffs * b.coeffs, s)
    rounding_units = prod.length() if a.upper else 0
    tail_units = int(tail * (1 << s))
    off, kept, moved = _trim_poly(a.offset + b.offset, prod, tail_units, a.upper, a.step)
    inf = Fraction(0)
    if a.upper:
        inf = min(Fraction(1), a.inf_mass + b.inf_mass + _to_frac_units(moved + rounding_units, s))
    return DiscretePld(off, kept, s, inf, a.upper, a.step)


#: bits of the rational upper bounds on the split ratios of :func:`coarsen_up`
_RATIO_BITS = 64


def _split_ratios(step: int, factor: int, n: int, up: bool = True) -> list[int]:
    r"""Integers :math:`R_r \ge 2^{B} \rho_r` (:math:`B` = ``_RATIO_BITS``; with ``up``
    False, :math:`0 \le R_r \le 2^{B} \rho_r`) with
    :math:`\rho_r = (1 - e^{-r s/N}) / (1 - e^{-f s/N})`, the share of an atom at
    :math:`r` fine steps above a coarse point that goes to the next coarse point, and
    :math:`R_r \le 2^B` (:math:`\rho_r < 1`).  Ends of arb balls, rounded outward."""
    out = [0]
    with workprec(_RATIO_BITS + 64):
        den = 1 - (-arb(fmpq(factor * step, n))).exp()
        for r in range(1, factor):
            rho = (1 - (-arb(fmpq(r * step, n))).exp()) / den * (1 << _RATIO_BITS)
            if up:
                out.append(min(1 << _RATIO_BITS, math.ceil(arb_upper_fraction(rho))))
            else:
                out.append(max(0, math.floor(-arb_upper_fraction(-rho))))
    return out


def _decay_lower(spacing: Fraction) -> int:
    r"""An integer :math:`\beta \le 2^B e^{-H}` (:math:`H` = ``spacing``)."""
    with workprec(_RATIO_BITS + 64):
        v = (-arb(fmpq(spacing.numerator, spacing.denominator))).exp() * (1 << _RATIO_BITS)
        return max(0, math.floor(-arb_upper_fraction(-v)))


def _strided_deflate() -> bool:
    """True if ``fmpz_poly.deflate(f)`` takes every f-th coefficient of any polynomial (FLINT's strided
    copy; checked once on a polynomial that is not one in :math:`z^f`)."""
    try:
        return fmpz_poly([1, 2, 3, 4, 5]).deflate(2) + 0 == fmpz_poly([1, 3, 5])
    except Exception:  # any refusal means: not usable
        return False


_DEFLATE = _strided_deflate()


def _residues(poly: fmpz_poly, factor: int) -> list[fmpz_poly]:
    r"""The polynomials :math:`C_r` with ``poly`` :math:`= \sum_r z^r C_r(z^f)` (f = ``factor``):
    coefficient i of :math:`C_r` is the atom at fine index :math:`i f + r`, in coarse cell i.

    For small factors by shifts and strided copies in FLINT (no Python list of the coefficients)."""
    if _DEFLATE and factor <= 4:
        # ``+ 0`` normalises: the strided copy may end in zero coefficients
        return [(poly.right_shift(r) if r else poly).deflate(factor) + 0 for r in range(factor)]
    cf = poly.coeffs()
    return [fmpz_poly(cf[r::factor]) for r in range(factor)]


def _coarse_array(cells: fmpz_poly, ups: fmpz_poly) -> fmpz_poly:
    """The coarse array of atoms split within their cells: ``cells`` holds each cell's total
    mass and ``ups`` each cell's mass moved to the next coarse point (the rest stays on the
    cell's own point)."""
    return cells - ups + ups.left_shift(1)


def _nothing_to_coarsen(pld: DiscretePld, factor: int) -> bool:
    """Check ``factor`` and the time budget; True when coarsening would return ``pld`` itself."""
    if factor < 1:
        raise ValueError("pld: the coarsening factor must be >= 1")
    if factor == 1 or pld.coeffs.length() == 0:
        return True
    budget.check("the PLD composition")
    return False


def coarsen_up(pld: DiscretePld, factor: int, n: int) -> DiscretePld:
    r"""An upper PLD on every ``factor``-th point of ``pld``'s grid whose delta is at
    least ``pld``'s at every real epsilon (Fact 5): each atom is split between the coarse
    points around it, the upper share rounded up to an integer (exact integer arithmetic;
    the ratios are rational upper bounds).  Total mass and the mass at :math:`+\infty`
    are unchanged; the step becomes ``factor * pld.step``.

    The atoms at offset r in their cells share the ratio :math:`R_r`; each cell's total
    up-share :math:`\lceil \sum_r c_r R_r / 2^B \rceil` (at most the cell's mass:
    :math:`R_r \le 2^B`) is computed on whole polynomials (FLINT, no per-atom Python)."""
    if not pld.upper:
        raise ValueError("pld: only an upper PLD can be coarsened by splitting atoms")
    if _nothing_to_coarsen(pld, factor):
        return pld
    ratios = _split_ratios(pld.step, factor, n)
    parts = _residues(pld.coeffs, factor)
    unit = 1 << _RATIO_BITS
    cells = parts[0]
    moved = fmpz_poly()  # sum_r c_r (moving mass)
    kept = fmpz_poly()  # sum_r c_r (2^B - R_r) >= 0
    for r in range(1, factor):
        cells += parts[r]
        if ratios[r]:
            moved += parts[r]
            kept += parts[r] * (unit - ratios[r])
    # ceil(sum c_r R_r / 2^B) = sum c_r - floor(sum c_r (2^B - R_r) / 2^B): floors of non-negative
    # numbers only (python-flint's floor division of a polynomial by an integer rounds a negative
    # quotient of magnitude below 1 to 0)
    ups = moved - kept // unit
    return DiscretePld(pld.offset, _coarse_array(cells, ups), pld.scale_bits, pld.inf_mass, True, pld.step * factor)


def coarsen_down(pld: DiscretePld, factor: int, n: int) -> DiscretePld:
    r"""A lower PLD on every ``factor``-th point of ``pld``'s grid whose delta is at most
    ``pld``'s at every real epsilon (Fact 6): connect-the-dots up-shares (rounded down),
    of which each coarse interval keeps only as much as the held-back mass of the
    intervals above it covers.  Exact integer arithmetic; the step becomes
    ``factor * pld.step``.

    Only each cell's total of up-shares enters the coarse array: a cell moves exactly its
    allowance (at most the sum of its atoms' rounded-down shares, so a split into atom shares
    below their connect-the-dots shares exists)."""
    if pld.upper:
        raise ValueError("pld: coarsen_down is for lower PLDs (upper ones: coarsen_up)")
    if _nothing_to_coarsen(pld, factor):
        return pld
    ratios = _split_ratios(pld.step, factor, n, up=False)
    beta = _decay_lower(Fraction(factor * pld.step, n))
    parts = _residues(pld.coeffs, factor)
    m = -(-pld.coeffs.length() // factor)
    cells = parts[0]
    weighted = fmpz_poly()  # sum_r c_r R_r
    for r in range(1, factor):
        cells += parts[r]
        if ratios[r]:
            weighted += parts[r] * ratios[r]
    # floor(sum_r c_r R_r / 2^B): at most the cell's connect-the-dots share (and at least the sum of
    # the atoms' floors, so never less than before)
    # fmpz throughout (converting to Python integers and back costs more than the loop)
    cd_rows = (weighted // (1 << _RATIO_BITS)).coeffs()
    cd_rows += [fmpz(0)] * (m - len(cd_rows))
    allowed = [fmpz(0)] * m
    w = fmpz(0)  # an integer lower bound on W_m (nothing above the top interval)
    b = fmpz(beta)
    for i in range(m - 1, -1, -1):
        c = cd_rows[i]
        # u = min(c, w) and the next w is floor(beta (c - u + w) / 2^B), where c - u + w = max(c, w)
        if c <= w:
            allowed[i] = c
            w = (b * w) >> _RATIO_BITS
        else:
            allowed[i] = w
            w = (b * c) >> _RATIO_BITS
    return DiscretePld(
        pld.offset, _coarse_array(cells, fmpz_poly(allowed)), pld.scale_bits, pld.inf_mass, False, pld.step * factor
    )


@dataclass(frozen=True)
class Coarsening:
    r"""When :func:`power` coarsens the growing array (a choice of tightness and speed
    only: every coarsening keeps an upper array an upper bound, Fact 5, and a lower one
    a lower bound, Fact 6).

    Splitting an atom over a coarse step of s grid points (connect the dots) adds a loss
    variance of at most about :math:`s^2 / 6` (in units of :math:`N^{-2}`) to each composed copy; a
    coarsening of the array of k copies (or of the base multiplied into it) is repeated
    count/k times by the later products.  With ``var_per_step`` b, the added variance per
    composed step allowed to all coarsenings of one power together, each of the
    about :math:`2 \log_2` count coarsenings may take an equal share, which allows the step
    :math:`s \le \sqrt{1 + 3 b k / \log_2 \mathrm{count}}` at k copies (taken as a power of
    two, so steps of different parts divide each other).

    Attributes:
        n: the grid 1/n of the arrays.
        var_per_step: b above.
    """

    n: int
    var_per_step: float

    def step_at(self, copies: int, count: int) -> int:
        levels = max(1, count.bit_length())
        s = math.isqrt(max(1, int(1 + 3 * self.var_per_step * copies / levels)))
        return 1 << (s.bit_length() - 1)


def identity(scale_bits: int, upper: bool) -> DiscretePld:
    return DiscretePld(0, fmpz_poly([1 << scale_bits]), scale_bits, Fraction(0), upper)


def _at_step(pld: DiscretePld, step: int, n: int) -> DiscretePld:
    if step % pld.step:
        raise ValueError("pld: coarse steps must be multiples of each other")
    return (coarsen_up if pld.upper else coarsen_down)(pld, step // pld.step, n)


def products(counts: Sequence[int]) -> int:
    """The number of :func:`multiply` calls of :func:`compose_all` for parts of these counts."""
    used = [c for c in counts if c > 0]
    return sum(c.bit_length() - 1 + bin(c).count("1") - 1 for c in used) + max(0, len(used) - 1)


def power(
    a: DiscretePld,
    count: int,
    tail: Fraction,
    on_product: Callable[[], object] | None = None,
    *,
    coarsening: Coarsening | None = None,
) -> DiscretePld:
    """``count``-fold self-composition by left-to-right binary powering: square for every
    bit of ``count`` after the leading one, then multiply by ``a`` when the bit is set
    (about log2(count) squarings and popcount(count) - 1 products with the short ``a``;
    the squarings run on the growing array only, not on a second growing base).  ``tail``
    is the trimming budget of one product of the whole composition; the early products, which
    later squarings repeat many times, get a proportionally smaller one.  ``on_product`` is
    called after each product (progress).

    With ``coarsening`` the growing array is coarsened after a product when
    :meth:`Coarsening.step_at` allows a step at least twice the current one
    (:func:`coarsen_up` for an upper PLD, :func:`coarsen_down` for a lower one); ``a`` is
    then coarsened to the same step before it is multiplied in."""
    if count <= 0:
        return identity(a.scale_bits, a.upper)
    coarse = coarsening
    bases = {a.step: a}
    result = a
    copies = 1
    bits = count.bit_length()
    # a product giving k copies is repeated about count/k times by the later squarings: its
    # trimming budget is tail * k/count * (2 bits + 1)/(2 bits), so that the at most 2 (bits - 1)
    # products of the power move at most (2 bits + 1) * tail to +infinity in the end, the
    # power's share of the budget (as many products as it counts)
    share = Fraction(2 * bits + 1, 2 * bits * count)
    for bit in bin(count)[3:]:
        copies *= 2
        result = multiply(result, result, tail * share * copies)
        if on_product is not None:
            on_product()
        if bit == "1":
            if result.step not in bases:
                bases[result.step] = _at_step(a, result.step, coarse.n if coarse else 0)
            copies += 1
            result = multiply(result, bases[result.step], tail * share * copies)
            if on_product is not None:
                on_product()
        if coarse is not None:
            s = coarse.step_at(copies, count)
            if s >= 2 * result.step:
                result = _at_step(result, s, coarse.n)
    return result


def compose_all(
    parts: Sequence[tuple[DiscretePld, int]],
    tail: Fraction,
    on_product: Callable[[], object] | None = None,
    *,
    coarsening: Coarsening | None = None,
) -> DiscretePld:
    """Composition of ``count`` copies of each PLD in ``parts`` (:func:`products` products,
    ``on_product`` called after each; coarsened as ``coarsening`` allows, see :func:`power`;
    parts of different steps are brought to the larger one)."""
    result: DiscretePld | None = None
    for pld, count in parts:
        if count == 0:
            continue
        p = power(pld, count, tail, on_product, coarsening=coarsening)
        if result is None:
            result = p
            continue
        if result.step != p.step:
            n = coarsening.n if coarsening is not None else 0
            step = max(result.step, p.step)
            result, p = _at_step(result, step, n), _at_step(p, step, n)
        result = multiply(result, p, tail)
        if on_product is not None:
            on_product()
    if result is None:
        raise ValueError("pld: nothing to compose")
    return result


def delta_at(pld: DiscretePld, n: int, eps: Fraction, prec: int = 128) -> arb:
    r"""A ball containing :math:`\sum_{\ell_j > \varepsilon} c_j 2^{-S} (1 - e^{\varepsilon -
    \ell_j}) + p_\infty` exactly, with :math:`\ell_j = (o + j)/n`.

    Split :math:`\sum_{j \ge k} c_j - e^{\varepsilon - \ell_k} \sum_{m \ge 0} c_{k+m} r^m`,
    :math:`r = e^{-s/n}`, with k the first index with :math:`\ell_k > \varepsilon`; the
    integer sum is exact and the polynomial is evaluated at the ball r by arb
    (inclusion principle).  For the upper PLD the upper end of the ball is an upper
    bound on the true delta; for the lower PLD the lower end is a lower bound.
    """
    coeffs = pld.coeffs
    length = coeffs.length()
    # first index with (o + k s)/n > eps
    st = pld.step
    k = math.floor((eps * n - pld.offset) / st) + 1
    k = max(k, 0)
    with workprec(prec):
        if k >= length:
            total = arb(0)
        else:
            tail_poly = coeffs.right_shift(k) if k > 0 else coeffs
            csum = int(tail_poly(1))  # exact sum of the coefficients
            r = (-arb(fmpq(st, n))).exp()
            val = arb_poly(tail_poly)(r)
            lk = arb(fmpq(pld.offset + k * st, 1)) / n
            e = arb(fmpq(eps.numerator, eps.denominator))
            total = (arb(csum) - (e - lk).exp() * val) / arb(2) ** pld.scale_bits
        return total + arb(fmpq(pld.inf_mass.numerator, pld.inf_mass.denominator))


def delta_screen(pld: DiscretePld, n: int):
    """Float arrays ``(losses, A, B)`` with :math:`\\delta(\\varepsilon) \\approx A_k -
    e^{\\varepsilon} B_k` on :math:`[\\ell_k, \\ell_{k+1})` (screening only)."""
    cf = pld.coeffs.coeffs()
    c = np.fromiter(map(float, cf), dtype=float, count=len(cf)) * 2.0 ** (-pld.scale_bits)
    losses = (pld.offset + pld.step * np.arange(len(c))) / n
    w = c * np.exp(-losses)
    # suffix sums over j > k
    A = np.concatenate([np.cumsum(c[::-1])[::-1][1:], [0.0]]) + float(pld.inf_mass)
    B = np.concatenate([np.cumsum(w[::-1])[::-1][1:], [0.0]])
    return losses, A, B
