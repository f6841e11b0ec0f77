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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from flint import arb, fmpq, fmpz_poly

from ..arith import workprec
from .discretize import DiscretePld

__all__ = ["compose_all", "delta_at", "delta_screen", "multiply", "power"]


def _rescale(poly: fmpz_poly, bits: int) -> fmpz_poly:
    r"""Coefficients divided by :math:`2^{bits}` and rounded down, exactly.

    For an upper PLD the caller adds one unit per coefficient at :math:`+\infty`:
    :math:`a/2^{bits} \le \lfloor a/2^{bits} \rfloor + 1`, and moving that unit
    from its loss to :math:`+\infty` only increases delta (Fact 4)."""
    return poly // (1 << bits)


def _last_at_most(f, limit: int, n: int) -> int:
    """Largest k in ``[0, n]`` with ``f(k) <= limit`` for a non-decreasing integer ``f`` with
    ``f(0) = 0 <= limit``: galloping from 0 then bisection, so the cost is a few
    evaluations of size about the answer (the trimmed tails are short)."""
    if n <= 0:
        return 0
    good, bad = 0, 1
    while bad <= n and f(bad) <= limit:
        good, bad = bad, 2 * bad
    if bad > n:
        if f(n) <= limit:
            return n
        bad = n
    while bad - good > 1:
        mid = (good + bad) // 2
        if f(mid) <= limit:
            good = mid
        else:
            bad = mid
    return good


def _trim_poly(pld_offset: int, poly: fmpz_poly, tail_units: int, up: bool) -> tuple[int, fmpz_poly, int]:
    r"""Remove end coefficients of total at most ``tail_units`` at each end, on the
    polynomial itself (exact partial sums by evaluating truncations at 1, no Python lists).

    The lowest ``lo`` coefficients go (the largest ``lo <= n - 1`` whose sum is at most
    ``tail_units``), then the highest ``m`` (the largest ``m <= n - 1 - lo`` likewise): the
    same choice as removing them one by one from each end.  For an upper array the low
    mass is added onto the lowest kept coefficient (moved up, Fact 4) and the high mass
    is returned to be put at :math:`+\infty`; a lower array just drops both.

    Returns ``(new_offset, kept polynomial, units moved to +infinity)``."""
    n = poly.length()
    if n == 0:
        return pld_offset, poly, 0
    lo = _last_at_most(lambda k: int(poly.truncate(k)(1)) if k else 0, tail_units, n - 1)
    low_moved = int(poly.truncate(lo)(1)) if lo else 0
    rest = poly.right_shift(lo) if lo else poly
    r = n - lo
    m = _last_at_most(lambda k: int(rest.right_shift(r - k)(1)) if k else 0, tail_units, r - 1)
    high_moved = int(rest.right_shift(r - m)(1)) if m else 0
    kept = rest.truncate(r - m) if m else rest
    if up:
        if low_moved:
            kept[0] = kept[0] + low_moved
        return pld_offset + lo, kept, high_moved
    return pld_offset + lo, kept, 0


def _to_frac_units(units: int, scale_bits: int) -> Fraction:
    return Fraction(units, 1 << scale_bits)


def multiply(a: DiscretePld, b: DiscretePld, tail: Fraction) -> DiscretePld:
    """The composition of two upper (or two lower) PLDs of the same scale (Facts 3-4)."""
    if a.upper != b.upper or a.scale_bits != b.scale_bits:
        raise ValueError("pld: cannot multiply PLDs of different kinds or scales")
    s = a.scale_bits
    prod = _rescale(a.coeffs * b.coeffs, s)
    rounding_units = prod.length() if a.upper else 0
    tail_units = int(tail * (1 << s))
    off, kept, moved = _trim_poly(a.offset + b.offset, prod, tail_units, a.upper)
    inf = Fraction(0)
    if a.upper:
        inf = min(Fraction(1), a.inf_mass + b.inf_mass + _to_frac_units(moved + rounding_units, s))
    return DiscretePld(off, kept, s, inf, a.upper)


def identity(scale_bits: int, upper: bool) -> DiscretePld:
    return DiscretePld(0, fmpz_poly([1 << scale_bits]), scale_bits, Fraction(0), upper)


def products(counts: Sequence[int]) -> int:
    """The number of :func:`multiply` calls of :func:`compose_all` for parts of these counts."""
    used = [c for c in counts if c > 0]
    return sum(c.bit_length() - 1 + bin(c).count("1") - 1 for c in used) + max(0, len(used) - 1)


def power(a: DiscretePld, count: int, tail: Fraction, on_product: Callable[[], object] | None = None) -> DiscretePld:
    """``count``-fold self-composition by left-to-right binary powering: square for every
    bit of ``count`` after the leading one, then multiply by ``a`` when the bit is set
    (about log2(count) squarings and popcount(count) - 1 products with the short ``a``;
    the squarings run on the growing array only, not on a second growing base).
    ``on_product`` is called after each product (progress)."""
    if count <= 0:
        return identity(a.scale_bits, a.upper)
    result = a
    for bit in bin(count)[3:]:
        result = multiply(result, result, tail)
        if on_product is not None:
            on_product()
        if bit == "1":
            result = multiply(result, a, tail)
            if on_product is not None:
                on_product()
    return result


def compose_all(
    parts: Sequence[tuple[DiscretePld, int]], tail: Fraction, on_product: Callable[[], object] | None = None
) -> DiscretePld:
    """Composition of ``count`` copies of each PLD in ``parts`` (:func:`products` products,
    ``on_product`` called after each)."""
    result: DiscretePld | None = None
    for pld, count in parts:
        if count == 0:
            continue
        p = power(pld, count, tail, on_product)
        if result is None:
            result = p
        else:
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
    :math:`r = e^{-1/n}`, with k the first index with :math:`\ell_k > \varepsilon`; the
    integer sum is exact and the polynomial is evaluated at the ball r by arb
    (inclusion principle).  For the upper PLD the upper end of the ball is an upper
    bound on the true delta; for the lower PLD the lower end is a lower bound.
    """
    coeffs = pld.coeffs
    length = coeffs.length()
    # first index with (o + k)/n > eps
    k = math.floor(eps * n) + 1 - pld.offset
    k = max(k, 0)
    with workprec(prec):
        if k >= length:
            total = arb(0)
        else:
            tail_poly = coeffs.right_shift(k) if k > 0 else coeffs
            csum = int(tail_poly(1))  # exact sum of the coefficients
            r = (-arb(fmpq(1, n))).exp()
            from flint import arb_poly

            val = arb_poly(tail_poly)(r)
            lk = arb(fmpq(pld.offset + k, 1)) / n
            e = arb(fmpq(eps.numerator, eps.denominator))
            total = (arb(csum) - (e - lk).exp() * val) / arb(2) ** pld.scale_bits
        return total + arb(fmpq(pld.inf_mass.numerator, pld.inf_mass.denominator))


def delta_screen(pld: DiscretePld, n: int):
    """Float arrays ``(losses, A, B)`` with :math:`\\delta(\\varepsilon) \\approx A_k -
    e^{\\varepsilon} B_k` on :math:`[\\ell_k, \\ell_{k+1})` (screening only)."""
    import numpy as np

    c = np.array([float(x) for x in pld.coeffs.coeffs()], dtype=float) * 2.0 ** (-pld.scale_bits)
    losses = (pld.offset + np.arange(len(c))) / n
    w = c * np.exp(-losses)
    # suffix sums over j > k
    A = np.concatenate([np.cumsum(c[::-1])[::-1][1:], [0.0]]) + float(pld.inf_mass)
    B = np.concatenate([np.cumsum(w[::-1])[::-1][1:], [0.0]])
    return losses, A, B
