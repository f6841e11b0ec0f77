r"""Independent reference of the per-epoch upper PLD of balls-and-bins sampling of the Gaussian.

The verifier's second computation for :mod:`rigorous_rdp.pld.random_allocation` (which see for
the mathematics): the same construction on a different code path, with no FLINT at all --

* the log-normal stop-loss values :math:`\pi(K) = \Phi(d_1) - K\Phi(d_2)` in mpmath, the
  connect-the-dots masses of one coordinate rounded **up** (one extra unit for mpmath's error);
* the t-fold convolution power by exact Kronecker substitution in base :math:`10^w` with
  :mod:`decimal` (libmpdec's number-theoretic transform), products rounded up (ceil), ends
  trimmed; the error measure is bounded with the *actual* masses :math:`W` of the laws,
  :math:`e_{a+b} = e_a W_b + W_a e_b + e_a e_b + \tau`;
* the map to the loss grid by splitting each atom directly between the two grid points around its
  loss (connect the dots, :math:`\rho = (1 - e^{a - \ell})/(1 - e^{-1/n})`), in mpmath.

The values are mpmath *estimates* at ``dps`` digits, not enclosures; every mass is rounded up by
one extra unit of :math:`2^{-S}` to absorb their error.  The split of the map is at least as tight
as the certified two-stage map (fine rounding up, then splitting), so the reference delta is at
most the certified one up to those units.
"""

from __future__ import annotations

import decimal
from fractions import Fraction
from types import ModuleType
from typing import Any

import mpmath

__all__ = ["ALLOCATION_REFERENCE", "AllocationReference"]

_DPS = 60


def _pi_sf(k: mpmath.mpf, sig: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    d2 = -1 / (2 * sig) - sig * mpmath.log(k)
    s2 = mpmath.ncdf(d2)
    return mpmath.ncdf(d2 + 1 / sig) - k * s2, s2


def _ceil(x: mpmath.mpf) -> int:
    return int(mpmath.ceil(x))


def _base(sigma: Fraction, h: Fraction, m: int, bits: int) -> tuple[list[int], mpmath.mpf, mpmath.mpf]:
    """Masses (rounded up, +1) of the connect-the-dots law of Y restricted to [0, G] at 0, h, ..., Mh;
    P(Y > G) and E[Y; Y > G] (estimates)."""
    sig = mpmath.mpf(sigma.numerator) / sigma.denominator
    hh = mpmath.mpf(h.numerator) / h.denominator
    pis = [mpmath.mpf(1)]
    sf_g = mpmath.mpf(0)
    for k in range(1, m + 1):
        p, sf = _pi_sf(hh * k, sig)
        pis.append(p)
        sf_g = sf
    g = hh * m
    pi_g = pis[m]
    e_g = pi_g + g * sf_g
    scale = mpmath.mpf(2) ** bits
    out = []
    for k in range(m + 1):
        if k == 0:
            mk = 1 + (pis[1] - pis[0]) / hh
        elif k == m:
            mk = (pis[m - 1] - pi_g - hh * sf_g) / hh
        else:
            mk = (pis[k - 1] - 2 * pis[k] + pis[k + 1]) / hh
        out.append(max(0, _ceil(mk * scale) + 1))
    return out, sf_g, e_g


def _multiply(a: list[int], b: list[int]) -> list[int]:
    """Exact product of two integer coefficient lists (Kronecker substitution in decimal)."""
    big = max(max(a), max(b), 1)
    width = 2 * len(str(big)) + len(str(min(len(a), len(b)))) + 2
    ctx = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    da = decimal.Decimal("".join(f"{c:0{width}d}" for c in reversed(a)))
    db = decimal.Decimal("".join(f"{c:0{width}d}" for c in reversed(b)))
    count = len(a) + len(b) - 1
    text = str(ctx.multiply(da, db)).zfill(count * width)
    size = len(text)
    return [int(text[size - (i + 1) * width : size - i * width]) for i in range(count)]


def _product(a: tuple[int, list[int]], b: tuple[int, list[int]], bits: int, budget: int) -> tuple[int, list[int], int]:
    """Ceil-rescaled product trimmed at both ends (at most ``budget`` units each); the trimmed units."""
    prod = _multiply(a[1], b[1])
    unit = 1 << bits
    prod = [-((-c) // unit) for c in prod]
    lo, acc = 0, 0
    while lo < len(prod) - 1 and acc + prod[lo] <= budget:
        acc += prod[lo]
        lo += 1
    trimmed = acc
    hi, acc = len(prod), 0
    while hi - 1 > lo and acc + prod[hi - 1] <= budget:
        acc += prod[hi - 1]
        hi -= 1
    return a[0] + b[0] + lo, prod[lo:hi], trimmed + acc


def _sum_law(sigma: Fraction, t: int, tail: float) -> tuple[int, list[int], Fraction, Any, Any]:
    """(offset, masses at 2^-bits, e_t (exact rational), P(Y > G), E[Y; Y > G]) of the upper law of S."""
    from ..pld.random_allocation import sum_law_parameters  # the same choices (not computations)

    h, m, bits, budget, _ = sum_law_parameters(sigma, t, tail)
    masses, sf_g, e_g = _base(sigma, h, m, bits)
    unit = Fraction(1, 1 << bits)
    base = (0, masses)
    w_base = sum(masses) * unit
    result, w, e = base, w_base, Fraction(0)
    for bit in bin(t)[3:]:
        o, p, tr = _product(result, result, bits, budget)
        w_new = sum(p) * unit
        e = 2 * e * w + e * e + tr * unit
        result, w = (o, p), w_new
        if bit == "1":
            o, p, tr = _product(result, base, bits, budget)
            w_new = sum(p) * unit
            e = e * w_base + tr * unit  # the base itself is exact (masses rounded up): e_base = 0
            result, w = (o, p), w_new
        e = Fraction(-((-e.numerator * (1 << (2 * bits))) // e.denominator), 1 << (2 * bits))
    return result[0], result[1], e, sf_g, e_g


class AllocationReference:
    """The reference "kind" of balls-and-bins sampling for :func:`rigorous_rdp.reference.pld.composed_upper_delta`:
    params ``(sigma, t)``; :meth:`reference_base` gives one epoch's upper PLD on grid 1/n."""

    _cache: dict[tuple, tuple] = {}  # noqa: RUF012 - a cache

    def __call__(self, params: tuple, direction: str, eps: Any) -> Any:
        raise ValueError("random allocation has no closed-form profile; use reference_base")

    def reference_base(
        self, params: tuple, direction: str, n: int, scale_bits: int, tail: Any, ref: ModuleType
    ) -> tuple:
        """``(offset, coeffs, inf_units)`` of one epoch's upper PLD on grid 1/n at scale 2^-scale_bits;
        params ``(sigma, t)`` or ``(sigma, t, k)`` (k > 1: the composition over the blocks).  ``ref`` is
        :mod:`rigorous_rdp.reference.pld` (its Gaussian connect-the-dots and its products), handed over by
        its caller rather than imported (no import cycle through the registry)."""
        sigma, t = Fraction(params[0]), int(params[1])
        k = int(params[2]) if len(params) > 2 else 1
        if k > 1:
            return self._blocks(sigma, t, k, direction, n, scale_bits, tail, ref)
        if t == 1:
            return ref.connect_the_dots_upper("gaussian", (sigma,), direction, n, scale_bits, tail)
        from ..pld.random_allocation import sum_law_parameters

        h, m, bits, _, tail_q = sum_law_parameters(sigma, t, float(tail))
        with mpmath.workdps(_DPS):
            key = (sigma, t, tail_q)
            if key not in self._cache:
                self._cache[key] = _sum_law(sigma, t, tail_q)
            off, masses, e_t, sf_g, e_g = self._cache[key]
            unit = mpmath.mpf(2) ** -bits
            hh = mpmath.mpf(h.numerator) / h.denominator
            g = hh * m
            tt = mpmath.mpf(t)
            bins: dict[int, mpmath.mpf] = {}
            e_mp = mpmath.mpf(e_t.numerator) / e_t.denominator
            inf = e_g + (t - 1) * sf_g + g * e_mp if direction == "remove" else t * sf_g + e_mp
            r = mpmath.exp(-mpmath.mpf(1) / n)
            for j, c in enumerate(masses):
                if not c:
                    continue
                s = (off + j) * hh
                if s == 0:
                    if direction == "add":
                        inf += c * unit
                    continue
                if direction == "remove":
                    p = c * unit * s / tt
                    ell = mpmath.log(s / tt)
                else:
                    p = c * unit
                    ell = -mpmath.log(s / tt)
                a = int(mpmath.floor(ell * n))
                rho = (1 - mpmath.exp(mpmath.mpf(a) / n - ell)) / (1 - r)
                bins[a] = bins.get(a, mpmath.mpf(0)) + p * (1 - rho)
                bins[a + 1] = bins.get(a + 1, mpmath.mpf(0)) + p * rho
            lo, hi = min(bins), max(bins)
            scale = mpmath.mpf(2) ** scale_bits
            coeffs = [_ceil(bins.get(i, mpmath.mpf(0)) * scale) + 1 for i in range(lo, hi + 1)]
            return lo, coeffs, _ceil(inf * scale) + 1

    def _blocks(
        self, sigma: Fraction, t: int, k: int, direction: str, n: int, scale_bits: int, tail: Any, ref: ModuleType
    ) -> tuple:
        from ..pld.random_allocation import block_tail, blocks

        parts = blocks(t, k)
        budget = block_tail(float(tail), parts)
        units = int(budget * (1 << scale_bits))
        result: tuple | None = None
        for steps, count in parts:
            base = self.reference_base((sigma, steps), direction, n, scale_bits, tail, ref)
            acc = ref._power(base, count, scale_bits, budget)
            result = acc if result is None else ref._multiply(result, acc, scale_bits, units)
        if result is None:
            raise ValueError("random allocation: no blocks")
        return result


#: the module's one instance (hashable, stateless apart from its cache)
ALLOCATION_REFERENCE = AllocationReference()
