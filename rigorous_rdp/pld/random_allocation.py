r"""Certified PLD bracket of random allocation (balls-and-bins) of the Gaussian mechanism.

**The pair.**  One epoch of balls-and-bins sampling (each example in exactly one of the
:math:`t` steps, uniformly at random) of the Gaussian mechanism (sensitivity 1, noise
multiplier :math:`\sigma`) is dominated, in both directions of add/remove adjacency, by

.. math:: P = \frac1t \sum_{i=1}^t N(e_i, \sigma^2 I_t), \qquad Q = N(0, \sigma^2 I_t)

("remove": :math:`(P, Q)`; "add": :math:`(Q, P)`), Feldman & Shenfeld, "Privacy amplification
by random allocation" (arXiv 2502.08202), the Gaussian case of their random-allocation pair; the
pair is attained (the example's clipped gradient a fixed unit vector, every other gradient 0), so
the bracket's lower end bounds the mechanism's own epsilon.  With
:math:`Y_i = e^{x_i/\sigma^2 - 1/(2\sigma^2)}` (i.i.d. log-normal with mean 1 when
:math:`x \sim Q`) and :math:`S = \sum_i Y_i`, :math:`dP/dQ = S/t`, so both profiles are
expectations over **one** law, that of :math:`S` under :math:`Q = N(0, \sigma^2 I_t)`:

.. math:: \delta_{\rm rem}(\varepsilon) = E\big[(S/t - e^\varepsilon)_+\big], \qquad
          \delta_{\rm add}(\varepsilon) = E\big[(1 - e^\varepsilon S/t)_+\big]

(:math:`\delta = E_Q[(dP/dQ - e^\varepsilon)_+]` for the first, :math:`E_Q[(1 - e^\varepsilon\,dP/dQ)_+]`
for the swapped pair).  Both integrands are **convex, non-negative** functions of :math:`S`.

**The order used.**  For finite non-negative measures write :math:`A \preceq B` if
:math:`\int g\,dA \le \int g\,dB` for every convex :math:`g \ge 0`.  It follows from
:math:`A \le B` (masswise) and from the convex order (equal mass and mean,
:math:`\int (s - K)_+ dA \le \int (s - K)_+ dB` for all K); it is kept by sums and by
convolution (:math:`g(\cdot + s')` is convex and non-negative; Tonelli).  Hence an upper law
:math:`U \succeq` law of :math:`S` gives :math:`\delta_U \ge \delta` in both directions at
every real :math:`\varepsilon`, and a lower law :math:`L \preceq` gives :math:`\delta_L \le \delta`.
No dominating-pair theorem beyond the one above is used: the laws are then mapped to the
P-laws of the loss, composed over epochs with :mod:`rigorous_rdp.pld.compose` (its Fact 5: the
delta order at every real epsilon is kept by convolution), and the epsilon search of
:mod:`rigorous_rdp.pld.accountant` applies.

**One coordinate** (grid :math:`\{0, h, \dots, G\}`, :math:`G = Mh`).  With
:math:`\pi(K) = E(Y - K)_+ = \Phi(d_1) - K\Phi(d_2)`, :math:`d_2 = -\frac{1}{2\sigma} - \sigma\log K`,
:math:`d_1 = d_2 + 1/\sigma` (log-normal call price, :math:`E[Y] = 1`), let :math:`\nu_{\rm in}` be
the law of Y restricted to :math:`Y \le G`, with stop-loss function :math:`\pi_{\rm in}(K) =
\pi(K) - \pi(G) - (G - K)P(Y > G)` on :math:`[0, G]` and 0 above.

* *upper* (connect the dots): the measure whose stop-loss function interpolates
  :math:`\pi_{\rm in}` at the grid points; chords of a convex function lie above it, so this is a
  mean-preserving spread of :math:`\nu_{\rm in}` (the atom at :math:`kh` gets
  :math:`(\pi(kh - h) - 2\pi(kh) + \pi(kh + h))/h`, the linear part of :math:`\pi_{\rm in} - \pi` cancels).
* *lower* (tangent-chord): vertex values :math:`\pi_{\rm in}(kh) - r_k` with :math:`r_k` at least
  the chord gap on both neighbouring intervals (the bound :math:`AB/(A+B)` of
  :mod:`rigorous_rdp.pld.discretize`, with :math:`-\pi'_{\rm in}(K) = P(K < Y \le G)`), :math:`r_0 = 0`
  (the mean is kept) and :math:`r_M = 0` (nothing above G); the interval next to an end needs
  :math:`r \ge A` (bottom) or :math:`r \ge B` (top).  The piecewise-linear function lies below
  :math:`\pi_{\rm in}`; where a vertex mass is not certainly :math:`\ge 0` the vertex is removed and
  the gaps recomputed.  The result is :math:`\preceq \nu_{\rm in} \le \nu`.

Masses are enclosed in arb and rounded to integers at scale :math:`2^{-B}` (down for the lower
law; down for the upper law too, the deficit :math:`F_0` tracked as below).

**The sum of t coordinates** by binary powering with exact ``fmpz_poly`` products, each rescaled
by :math:`2^{-B}` with ``floor`` and trimmed at both ends.  Every computed law :math:`U_k` has mass
:math:`\le 1`.  Writing :math:`V_k` for the exact k-fold convolution of the exact upper
one-coordinate law, :math:`V_k \le U_k + E_k` masswise with :math:`E_k \ge 0` supported in
:math:`[0, kG]` and of mass :math:`e_k`: :math:`e_{a+b} \le e_a + e_b + e_a e_b + f + \tau` (f the
floor deficit and :math:`\tau` the trimmed mass of that product, both exact integers), since
:math:`V_aV_b \le (U_a + E_a)(U_b + E_b)` and the masses of :math:`U` are at most 1.  The true law is
:math:`\nu^{*t} = \nu_{\rm in}^{*t} + R` with R the part where some :math:`Y_i > G`, and
:math:`\nu_{\rm in}^{*t} \preceq V_t \le U_t + E_t`.  So, adding the bounded integrands,

* remove (:math:`(s/t - c)_+ \le s/t`, :math:`\le G` on :math:`[0, tG]`): P-mass at :math:`+\infty`
  :math:`E[Y; Y > G] + (t - 1)P(Y > G) + G e_t` (the first two bound :math:`\int (s/t)\,dR` by
  independence and :math:`E Y = 1`);
* add (:math:`(1 - c s/t)_+ \le 1`): :math:`t P(Y > G) + e_t`.

The lower laws only drop mass (floors, trims, the part above G), which keeps :math:`\preceq`.

**To the loss grid.**  Remove: a Q-atom c at s is the P-atom :math:`c\,s/t` at loss
:math:`\log(s/t)`; add: the P-atom c at loss :math:`\log(t/s)` (s = 0: loss :math:`+\infty`).
Their profiles are exactly :math:`\int g\,dU` above.  Losses are rounded up (upper) or down
(lower) to a grid R times finer than the accountant's, masses outward to its scale (both move
the delta the safe way, Fact 4 of :mod:`rigorous_rdp.pld.compose`), then the arrays are
coarsened by R with :func:`~rigorous_rdp.pld.compose.coarsen_up` /
:func:`~rigorous_rdp.pld.compose.coarsen_down` (second order).  ``proofs/verify_random_allocation_pld.py``
checks the identities numerically.

**k > 1** (``random-allocation --selected K``).  The pair of k-of-t allocation has likelihood
ratio :math:`L_k = \binom{t}{k}^{-1}\sum_{|A| = k}\prod_{i \in A} Y_i`.  Cut the t positions into k
blocks (:math:`k - r` of :math:`m = \lfloor t/k\rfloor` steps and r of m + 1, :math:`r = t - km`),
permute the steps uniformly (:math:`\pi`) and choose one position per block: the chosen set is a
uniform k-subset, so :math:`L_k = E_\pi \prod_B L_{\pi(B)}` (``proofs/verify_random_allocation.py``,
step 10, exact), i.e. :math:`P_k = E_\pi P_\pi` with :math:`P_\pi` the product over the blocks of
the 1-of-:math:`|B|` pairs, and Q is the product of the blocks' Q.  The hockey-stick divergence is
jointly convex (an f-divergence), so :math:`H_\gamma(P_k\|Q) \le E_\pi H_\gamma(P_\pi\|Q)` and
:math:`H_\gamma(Q\|P_k) \le E_\pi H_\gamma(Q\|P_\pi)`, and every :math:`P_\pi` has the profile of
the composition of :math:`k - r` balls-and-bins pairs of m steps and r of m + 1 steps.  That
composition therefore dominates one epoch (both directions); it is not attained, so the lower end
of a k > 1 bracket is reported as 0.  (The same decomposition as the float peer
``PLD_accounting``; the pair :math:`(P_k, Q)` itself is Feldman & Shenfeld's.)
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, fmpq, fmpz_poly

from ..arith import workprec
from ..errors import UnsupportedEventError
from .compose import coarsen_down, coarsen_up, compose_all, products
from .discretize import DiscretePld, arb_upper_fraction
from .profiles import DominatingPair, Profile, ProfilePoint, poisson_gaussian_profile

__all__ = ["SumLaw", "allocation_pair", "allocation_plds", "grid_step", "sum_law", "sum_law_parameters"]

#: bits of the integer masses of the S-laws (independent of the accountant's scale)
SUM_BITS = 96
#: working precision of the one-coordinate enclosures
_PREC = 192
#: the loss grid of the mapping is this many times finer than the accountant's (then coarsened)
REFINE = 64
#: the largest one-coordinate grid (cost cap: small noise makes the log-normal long-tailed, and the grid
#: is then coarsened to this many points)
MAX_POINTS = 400_000
#: the largest cut of one coordinate (below noise multiplier about 0.3 the S-law is refused)
MAX_CUT = 1e15
#: the smallest tail budget the S-laws are built for (a delta query asks for 1e-30)
MIN_TAIL = 1e-15
#: a trim of an S-law moves at most this fraction of the tail budget (per product)
_TRIM_SHARE = Fraction(1, 64)


def grid_step(sigma: Fraction, t: int = 1000) -> Fraction:
    r"""The grid step h of S: about :math:`0.05\,\mathrm{sd}(Y)`, :math:`\mathrm{sd}(Y)^2 = e^{1/\sigma^2} - 1`,
    as 1/H with H an integer (a choice of tightness and speed only; each split adds a variance of at
    most :math:`h^2/4` to a coordinate), and at most t/64: the split of the first cell puts mass at
    S = 0, an add-direction loss of :math:`+\infty`, whose t-th power is negligible for large t only."""
    sd = math.sqrt(math.expm1(min(700.0, 1.0 / float(sigma) ** 2)))
    return min(Fraction(1, max(1, round(20.0 / sd))), Fraction(t, 64))


@dataclass(frozen=True)
class SumLaw:
    r"""Integer masses :math:`c_j 2^{-B}` of S at :math:`s_j = (o + j) h`.

    Attributes:
        offset: o.
        coeffs: the masses.
        h: the grid step (a rational).
        upper: True for the upper law :math:`U_t` (then ``inf_remove``/``inf_add`` bound the
            P-masses at :math:`+\infty` of the two directions), False for the lower law.
        inf_remove: exact rational bound of the remove direction's P-mass at :math:`+\infty`.
        inf_add: the same for the add direction.
        cut: G, the largest value of one coordinate on the grid.
    """

    offset: int
    coeffs: fmpz_poly
    h: Fraction
    upper: bool
    inf_remove: Fraction
    inf_add: Fraction
    cut: Fraction
    stats: dict = field(default_factory=dict, compare=False)


def _q(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _phi(x: arb) -> arb:
    return (-x / arb(2).sqrt()).erfc() / 2


class _Coordinate:
    """Stop-loss function and upper tail of one log-normal coordinate, in arb."""

    def __init__(self, sigma: Fraction):
        self.sig = _q(sigma)
        self.inv = 1 / self.sig

    def pi_sf(self, k: arb) -> tuple[arb, arb]:
        """(E(Y - K)_+, P(Y > K)) for K > 0."""
        d2 = -self.inv / 2 - self.sig * k.log()
        s2 = _phi(d2)
        return _phi(d2 + self.inv) - k * s2, s2


_PI_CACHE: dict[tuple[Fraction, Fraction], list[tuple[arb, arb]]] = {}
_PI_SPARSE: dict[tuple[Fraction, Fraction], dict[int, tuple[arb, arb]]] = {}


def _pi_sf_grid(sigma: Fraction, h: Fraction, m: int) -> list[tuple[arb, arb]]:
    """``[(pi(kh), P(Y > kh)) for k = 0..m]`` at precision ``_PREC`` (k = 0: (1, 1)), cached per
    (sigma, h) and extended as needed (the upper and lower laws and every t share it)."""
    key = (Fraction(sigma), Fraction(h))
    with _LOCK:
        got = _PI_CACHE.setdefault(key, [(arb(1), arb(1))])
    if len(got) <= m:
        with workprec(_PREC):
            co = _Coordinate(sigma)
            hh = _q(h)
            more = [co.pi_sf(hh * k) for k in range(len(got), m + 1)]
        with _LOCK:
            if len(got) <= m:
                got.extend(more[len(got) - (m + 1 - len(more)) :])
    return got[: m + 1]


def _pi_sf_at(sigma: Fraction, h: Fraction, ks: list[int]) -> dict[int, tuple[arb, arb]]:
    """``{k: (pi(kh), P(Y > kh))}`` for the grid indices ``ks`` (a sparse vertex set, see
    :func:`sparse_tail`), from the cache of :func:`_pi_sf_grid` where it reaches, else computed and kept."""
    key = (Fraction(sigma), Fraction(h))
    with _LOCK:
        dense = _PI_CACHE.get(key, [])
        extra = _PI_SPARSE.setdefault(key, {})
    out = {k: dense[k] for k in ks if k < len(dense)}
    missing = [k for k in ks if k not in out and k not in extra]
    if missing:
        with workprec(_PREC):
            co = _Coordinate(sigma)
            hh = _q(h)
            got = {k: ((arb(1), arb(1)) if k == 0 else co.pi_sf(hh * k)) for k in missing}
        with _LOCK:
            extra.update(got)
    out.update({k: extra[k] for k in ks if k not in out})
    return out


def _vertices(m: int, rel: float) -> list[int]:
    """The grid indices 0..m carrying the one-coordinate law: all of them (``rel`` 0), or every index
    up to 1/rel and then a spacing of ``rel`` times the index (a geometric tail, always ending at m)."""
    if rel <= 0:
        return list(range(m + 1))
    out, k = [], 0
    while k < m:
        out.append(k)
        k += max(1, int(rel * k))
    out.append(m)
    return out


def _float_tail(sigma: float, g: float, t: int) -> float:
    """Float screen of E[Y; Y > g] + t P(Y > g) (a choice only)."""
    d2 = -1 / (2 * sigma) - sigma * math.log(g)
    d1 = d2 + 1 / sigma
    return 0.5 * math.erfc(-d1 / math.sqrt(2)) + t * 0.5 * math.erfc(-d2 / math.sqrt(2))


def _choose_cut(sigma: Fraction, t: int, tail: float) -> float:
    """G with E[Y; Y > G] + t P(Y > G) about ``tail / 4`` (a choice; the mass above is bounded)."""
    s = float(sigma)
    g = 2.0
    while _float_tail(s, g, t) > tail / 4:
        g *= 1.25
        if g > MAX_CUT:
            raise UnsupportedEventError(
                f"the PLD accountant cannot grid balls-and-bins sampling at noise_multiplier {s:g}: the log-normal "
                f"likelihood ratio has too long a tail (use noise_multiplier >= about 0.3, or the RDP accountant)."
            )
    return g


def _upper_base(
    sigma: Fraction, h: Fraction, m: int, bits: int, rel: float = 0.0
) -> tuple[list[int], Fraction, Fraction, Fraction]:
    """Connect-the-dots masses of nu_in at 0, h, ..., Mh (floored at scale 2^bits), the floor deficit
    (an upper bound), and upper bounds of P(Y > G), E[Y; Y > G]; ``rel`` > 0: the dots are the vertices
    of :func:`_vertices` only (chords of a convex function over any vertex set lie above it: a spread
    of the dense law, coarser in the far tail)."""
    if rel > 0:
        return _upper_base_sparse(sigma, h, m, bits, rel)
    grid = _pi_sf_grid(sigma, h, m)
    with workprec(_PREC):
        hh = _q(h)
        scale = arb(2) ** bits
        pis = [p for p, _ in grid]
        pi_g, sf_g = grid[m]
        g = hh * m
        e_g = pi_g + g * sf_g  # E[Y; Y > G]
        # pi_in(K) = pi(K) - pi(G) - (G - K) sf(G): the linear part cancels in second differences;
        # pi_in(0) = 1 - e_g, pi_in(G) = 0
        masses = []
        total = arb(0)
        for k in range(m + 1):
            if k == 0:
                mk = 1 + (pis[1] - pis[0]) / hh  # slope left of 0 is -(mass of nu_in)
            elif k == m:
                pin_prev = pis[m - 1] - pi_g - hh * sf_g
                mk = pin_prev / hh
            else:
                mk = (pis[k - 1] - 2 * pis[k] + pis[k + 1]) / hh
            total += mk
            v = (mk * scale).lower().floor().unique_fmpz()
            if v is None:
                raise ArithmeticError("random allocation: a mass enclosure is too wide")
            masses.append(max(0, int(v)))
        deficit = arb_upper_fraction(total) - Fraction(sum(masses), 1 << bits)
        return masses, max(deficit, Fraction(0)), arb_upper_fraction(sf_g), arb_upper_fraction(e_g)


def _upper_base_sparse(
    sigma: Fraction, h: Fraction, m: int, bits: int, rel: float
) -> tuple[list[int], Fraction, Fraction, Fraction]:
    """:func:`_upper_base` on the vertices of :func:`_vertices` (the same formulas with uneven spacing:
    the mass of a vertex is the change of slope of the interpolated stop-loss function there)."""
    ks = _vertices(m, rel)
    vals = _pi_sf_at(sigma, h, ks)
    with workprec(_PREC):
        hh = _q(h)
        scale = arb(2) ** bits
        pi_g, sf_g = vals[m]
        g = hh * m
        e_g = pi_g + g * sf_g
        pis = [vals[k][0] for k in ks]
        pis[-1] = pi_g
        # slopes of pi_in between vertices (pi_in = pi - pi(G) - (G - K) sf(G); at G: 0)
        slopes = [sf_g - 1]  # left of 0: minus the mass of nu_in, -(1 - P(Y > G))
        for i in range(len(ks) - 1):
            slopes.append((pis[i + 1] - pis[i]) / (hh * (ks[i + 1] - ks[i])) + sf_g)  # the last one ends at 0
        slopes.append(arb(0))  # right of G
        masses = [0] * (m + 1)
        total = arb(0)
        for i, k in enumerate(ks):
            mk = slopes[i + 1] - slopes[i]
            total += mk
            v = (mk * scale).lower().floor().unique_fmpz()
            if v is None:
                raise ArithmeticError("random allocation: a mass enclosure is too wide")
            masses[k] = max(0, int(v))
        deficit = arb_upper_fraction(total) - Fraction(sum(masses), 1 << bits)
        return masses, max(deficit, Fraction(0)), arb_upper_fraction(sf_g), arb_upper_fraction(e_g)


def _lower_base(sigma: Fraction, h: Fraction, m: int, bits: int, rel: float = 0.0) -> list[int]:
    """Tangent-chord masses of nu_in at 0, h, ..., Mh (floored): a law below nu_in in the convex order
    (``rel`` > 0: vertices among those of :func:`_vertices` only; the construction takes any vertex set)."""
    ks = _vertices(m, rel)
    if rel > 0:
        got = _pi_sf_at(sigma, h, ks)
        raw: Any = {k: got[k] for k in ks}
    else:
        raw = dict(enumerate(_pi_sf_grid(sigma, h, m)))
    with workprec(_PREC):
        hh = _q(h)
        scale = arb(2) ** bits
        pi_g, sf_g = raw[m]
        g = hh * m
        pin = {k: p - pi_g - (g - hh * k) * sf_g for k, (p, _) in raw.items()}
        pin[m] = arb(0)
        sfin = {k: s - sf_g for k, (_, s) in raw.items()}
        w_in = sfin[0]
        xs = {k: hh * k for k in ks}

        def ab(a: int, c: int) -> tuple[arb, arb]:
            d = xs[c] - xs[a]
            return pin[c] - pin[a] + sfin[a] * d, pin[a] - pin[c] - sfin[c] * d

        def gap(a: int, c: int) -> arb:
            A, B = ab(a, c)
            zero = arb(0)
            gg = A.upper().max(zero).min(B.upper().max(zero))
            s = A + B
            if s > 0 and A >= 0 and B >= 0:
                gg = gg.min((A * B / s).upper())
            return gg.upper()

        alive = ks[1:]  # vertex grid indices, in order
        # the bottom vertex b lies on the asymptote mean - W K (r_b = pi_in(b) - that >= its gap: then the
        # mean and the mass are kept); the top vertex T has value 0 (r_T = pi_in(T) >= its gap: the mass
        # above T moves down onto the vertices); pi_in(G) = 0, so T < M

        def bottom_val() -> arb:
            return pin[0] - w_in * xs[alive[0]]

        def fix_ends() -> None:
            while len(alive) > 2 and not pin[alive[0]] - bottom_val() >= gap(alive[0], alive[1]):
                alive.pop(0)
            while len(alive) > 2 and not pin[alive[-1]] >= gap(alive[-2], alive[-1]):
                alive.pop()

        def need(pos: int) -> arb:
            """r of the interior vertex at position pos of ``alive``."""
            a, i, c = alive[pos - 1], alive[pos], alive[pos + 1]
            return gap(a, i).max(gap(i, c)).max(arb(0))

        fix_ends()
        for _ in range(m + 2):
            if len(alive) < 3:
                raise ArithmeticError("random allocation: lower discretisation degenerated")
            vals = [bottom_val()] + [pin[alive[p]] - need(p) for p in range(1, len(alive) - 1)] + [arb(0)]
            slopes = [-w_in]
            for p in range(len(alive) - 1):
                slopes.append((vals[p + 1] - vals[p]) / (xs[alive[p + 1]] - xs[alive[p]]))
            slopes.append(arb(0))
            ms = [slopes[p + 1] - slopes[p] for p in range(len(alive))]
            bad = [p for p in range(len(alive)) if not ms[p] >= 0]
            if not bad:
                break
            drop = set(bad[::2])  # never two neighbours at once
            alive = [i for p, i in enumerate(alive) if p not in drop]
            fix_ends()
        else:
            raise ArithmeticError("random allocation: lower discretisation did not converge")
        out = [0] * (m + 1)
        for i, mk in zip(alive, ms, strict=True):
            v = (mk * scale).lower().floor().unique_fmpz()
            if v is None:
                raise ArithmeticError("random allocation: a mass enclosure is too wide")
            out[i] = max(0, int(v))
        return out


def _trim(coeffs: list[int], budget: int) -> tuple[int, int, int]:
    """(lo, hi, removed): the kept slice [lo, hi) after removing end coefficients of total at most
    ``budget`` at each end."""
    lo, acc = 0, 0
    n = len(coeffs)
    while lo < n - 1 and acc + coeffs[lo] <= budget:
        acc += coeffs[lo]
        lo += 1
    removed = acc
    hi, acc = n, 0
    while hi - 1 > lo and acc + coeffs[hi - 1] <= budget:
        acc += coeffs[hi - 1]
        hi -= 1
    return lo, hi, removed + acc


def _product(a: tuple[int, fmpz_poly], b: tuple[int, fmpz_poly], bits: int, budget: int) -> tuple[int, fmpz_poly, int]:
    """Floor-rescaled, trimmed product; returns (offset, poly, deficit units) where the deficit is the
    exact mass lost (floor remainders and the trimmed ends), in units of 2^-bits."""
    oa, pa = a
    ob, pb = b
    prod = pa * pb
    exact = int(prod(1))
    floored = prod // (1 << bits)
    coeffs = [int(c) for c in floored.coeffs()]
    lo, hi, _ = _trim(coeffs, budget)
    kept = coeffs[lo:hi]
    kept_sum = sum(kept)
    deficit = -((-(exact - (kept_sum << bits))) >> bits)  # ceil of the lost mass in units
    return oa + ob + lo, fmpz_poly(kept), deficit


def _power(base: tuple[int, fmpz_poly], t: int, bits: int, budget: int) -> tuple[int, fmpz_poly, list[tuple[int, int]]]:
    """t-fold convolution power (left-to-right binary powering); also the list of
    ``(copies, deficit units)`` of every product (in order)."""
    result = base
    copies = 1
    log: list[tuple[int, int]] = []
    for bit in bin(t)[3:]:
        o, p, d = _product(result, result, bits, budget)
        result = (o, p)
        copies *= 2
        log.append((copies, d))
        if bit == "1":
            o, p, d = _product(result, base, bits, budget)
            result = (o, p)
            copies += 1
            log.append((copies, d))
    return result[0], result[1], log


def _error_mass(base_deficit: Fraction, t: int, log: list[tuple[int, int]], bits: int) -> Fraction:
    r"""An upper bound of :math:`e_t` (module docstring) along the powering of :func:`_power`."""
    e_base = base_deficit
    e = e_base
    unit = Fraction(1, 1 << bits)
    for bit, (d_sq, d_mul) in zip(bin(t)[3:], _pairs(log, t), strict=True):
        e = 2 * e + e * e + d_sq * unit
        if bit == "1":
            e = e + e_base + e * e_base + d_mul * unit
        # keep the rational small: round up to a dyadic of 2 * bits bits
        e = Fraction(math.ceil(e * (1 << (2 * bits))), 1 << (2 * bits))
    return e


def _pairs(log: list[tuple[int, int]], t: int) -> list[tuple[int, int]]:
    out = []
    i = 0
    for bit in bin(t)[3:]:
        sq = log[i][1]
        i += 1
        mul = 0
        if bit == "1":
            mul = log[i][1]
            i += 1
        out.append((sq, mul))
    return out


def sum_law_parameters(
    sigma: Fraction, t: int, tail: float, coarse: int | None = None
) -> tuple[Fraction, int, int, int, float]:
    r"""The choices behind :func:`sum_law` (tightness and cost only; the verifier's reference makes the
    same ones): ``(h, M, bits, trim budget in units of 2^-bits, tail rounded down to a power of 10)``.
    A trim moves at most the budget; the remove integrand is at most G on :math:`[0, tG]`.
    ``coarse``: h this many times the default (default: that of :func:`coarse_sum_grid` in force, else 1;
    looser, cheaper, as valid)."""
    coarse = _COARSE.get() if coarse is None else coarse
    # a few cache keys only; below MIN_TAIL the cut grows long for little gain (the P-mass moved to
    # +infinity is bounded exactly whatever the choice)
    tail = float(10 ** math.floor(math.log10(max(float(tail), MIN_TAIL))))
    h = grid_step(Fraction(sigma), t)
    g = _choose_cut(Fraction(sigma), t, tail)
    if g / float(h) > MAX_POINTS:  # small noise: a coarser grid (looser, never invalid) within the cost cap
        h = Fraction(math.ceil(g / MAX_POINTS * 64), 64)
        # the first cell's split puts about P(Y < h) at 0 (add direction: loss +infinity), t-th power
        sg = float(sigma)
        at_zero = 0.5 * math.erfc(-sg * (math.log(float(h)) + 1 / (2 * sg * sg)) / math.sqrt(2))
        if t * math.log(max(at_zero, 1e-300)) > math.log(tail):
            exc = UnsupportedEventError(
                f"the PLD accountant cannot grid balls-and-bins sampling at noise_multiplier {sg:g} with "
                f"steps_per_epoch {t}: the log-normal likelihood ratio is too wide for its grid (use a larger "
                f"noise_multiplier or steps_per_epoch, or the RDP accountant)."
            )
            exc.reason = "the likelihood ratio is too wide for its grid at this noise"  # type: ignore[attr-defined]
            raise exc
    most = _COARSE_POINTS.get()
    if most and coarse > 1:
        coarse = max(coarse, math.ceil(g / float(h) / most))
    h *= coarse  # after the cost cap, so that a coarser grid is one
    m = math.ceil(g / float(h))
    products = 2 * max(1, t.bit_length())
    budget = int(Fraction(tail) * _TRIM_SHARE / (products * max(1, math.ceil(h * m))) * (1 << SUM_BITS))
    return h, m, SUM_BITS, budget, tail


_LOCK = threading.Lock()
_CACHE: dict[tuple, SumLaw] = {}
_COARSE: contextvars.ContextVar[int] = contextvars.ContextVar("sum_grid_coarse", default=1)
_LOWER_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("lower_only", default=False)
_COARSE_POINTS: contextvars.ContextVar[int] = contextvars.ContextVar("sum_grid_points", default=0)
_SPARSE: contextvars.ContextVar[float] = contextvars.ContextVar("sparse_tail", default=0.0)


@contextlib.contextmanager
def sparse_tail(rel: float) -> Iterator[None]:
    r"""Inside: one coordinate's laws keep every grid point up to ``1/rel`` steps and then vertices
    ``rel`` times their index apart (:func:`_vertices`): a few thousand arb evaluations instead of one per
    grid point, looser only in the far tail (a variance of at most :math:`(\mathrm{rel}\,y)^2/4` added
    at y), as valid (both constructions take any vertex set)."""
    token = _SPARSE.set(float(rel))
    try:
        yield
    finally:
        _SPARSE.reset(token)


@contextlib.contextmanager
def coarse_sum_grid(factor: int, most: int = 0) -> Iterator[None]:
    """Inside: the S-laws are built on a grid ``factor`` times coarser (:func:`sum_law_parameters`;
    a looser bracket at a fraction of the cost, as valid: the calibration's reported ends that decide
    nothing), and coarser still if one coordinate would keep more than ``most`` grid points (0: no limit)."""
    token = _COARSE.set(int(factor))
    token2 = _COARSE_POINTS.set(int(most))
    try:
        yield
    finally:
        _COARSE_POINTS.reset(token2)
        _COARSE.reset(token)


@contextlib.contextmanager
def lower_only() -> Iterator[None]:
    """Inside: :func:`allocation_plds` asked for both arrays builds only the lower one and returns
    as the upper one the trivial upper PLD (all mass at :math:`+\\infty`: delta <= 1, valid), for
    callers that use the lower array alone (the calibration's "misses" decisions)."""
    token = _LOWER_ONLY.set(True)
    try:
        yield
    finally:
        _LOWER_ONLY.reset(token)


def sum_law(sigma: Fraction, t: int, upper: bool, tail: float) -> SumLaw:
    r"""The upper (or lower) law of :math:`S = \sum_{i \le t} Y_i` (module docstring), cached.

    ``tail`` bounds (roughly; the exact bounds are in ``inf_remove`` / ``inf_add``) what the cut of
    one coordinate and the trims may move to :math:`+\infty`."""
    h, m, bits, budget, tail = sum_law_parameters(sigma, t, tail)
    rel = _SPARSE.get()
    key = (Fraction(sigma), int(t), bool(upper), tail, h, rel)
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    import time

    t0 = time.perf_counter()
    g = h * m
    if upper:
        masses, deficit, sf_g, e_g = _upper_base(sigma, h, m, bits, rel)
    else:
        masses = _lower_base(sigma, h, m, bits, rel)
        deficit, sf_g, e_g = Fraction(0), Fraction(0), Fraction(0)
    t1 = time.perf_counter()
    base = (0, fmpz_poly(masses))
    log: list[tuple[int, int]] = []
    if t == 1:
        off, poly = 0, base[1]
    else:
        off, poly, log = _power(base, t, bits, budget)
    t2 = time.perf_counter()
    inf_rem = inf_add = Fraction(0)
    if upper:
        e_t = deficit if t == 1 else _error_mass(deficit, t, log, bits)
        inf_rem = e_g + (t - 1) * sf_g + g * e_t
        inf_add = t * sf_g + e_t
    stats = {"grid_step": str(h), "cut": float(g), "points": m + 1, "length": poly.length(),
             "base_seconds": t1 - t0, "power_seconds": t2 - t1}  # fmt: skip
    law = SumLaw(off, poly, h, upper, inf_rem, inf_add, g, stats)
    with _LOCK:
        _CACHE[key] = law
    return law


# ---------------------------------------------------------------------------
# to the loss grid
# ---------------------------------------------------------------------------


def _loss_index(nums: np.ndarray, den: int, n: int, up: bool) -> np.ndarray:
    r"""ceil (``up``) or floor of :math:`n \log(\mathrm{nums}/\mathrm{den})` for positive integers
    ``nums`` (exact: a float screen, and arb where the float is within 1e-6 of an integer)."""
    x = n * (np.log(nums.astype(float)) - math.log(den))
    r = np.ceil(x) if up else np.floor(x)
    near = np.nonzero(np.abs(x - np.round(x)) < 1e-6)[0]
    out = r.astype(np.int64)
    if len(near):
        with workprec(128):
            for i in near.tolist():
                v = (arb(int(nums[i])) / den).log() * n
                w = v.upper().ceil() if up else v.lower().floor()
                z = w.unique_fmpz()
                other = (v.lower().ceil() if up else v.upper().floor()).unique_fmpz()
                if z is None or other is None or z != other:
                    # undecided: take the safe side (one grid point further out)
                    z = (v.upper().ceil() if up else v.lower().floor()).unique_fmpz()
                    if z is None:
                        raise ArithmeticError("random allocation: loss index undecided")
                out[i] = int(z)
    return out


def _to_loss(law: SumLaw, t: int, n: int, direction: str, scale_bits: int) -> DiscretePld:
    """The P-law of the loss of one epoch on grid 1/n (upper or lower as ``law``)."""
    up = law.upper
    h = law.h
    hn, hd = h.numerator, h.denominator
    coeffs = np.array([int(c) for c in law.coeffs.coeffs()], dtype=object)
    idx = np.arange(law.offset, law.offset + len(coeffs), dtype=np.int64)
    nz = np.nonzero(coeffs != 0)[0]
    coeffs, idx = coeffs[nz], idx[nz]
    fine = n * REFINE
    shift = scale_bits - SUM_BITS
    inf = Fraction(0)
    if direction == "remove":
        # P-mass c * s / t with s = j * hn / hd; loss log(s / t) = log(j * hn / (hd * t))
        keep = idx > 0
        coeffs, idx = coeffs[keep], idx[keep]
        num = coeffs * (idx.astype(object) * hn)
        den = hd * t
        if shift >= 0:
            num = num * (1 << shift)
        else:
            den = den << (-shift)
        masses = -((-num) // den) if up else num // den
        li = _loss_index(idx * hn, hd * t, fine, up)
        if up:
            inf = law.inf_remove
    else:
        zero = idx == 0
        if up and zero.any():
            inf += Fraction(int(coeffs[zero].sum()), 1 << SUM_BITS)
        coeffs, idx = coeffs[~zero], idx[~zero]
        if shift >= 0:
            masses = coeffs * (1 << shift)
        elif up:
            masses = -((-coeffs) >> (-shift))
        else:
            masses = coeffs >> (-shift)
        # loss log(t / s) = -log(s / t): ceil(-x) = -floor(x)
        li = -_loss_index(idx * hn, hd * t, fine, not up)
        if up:
            inf += law.inf_add
    order = np.argsort(li, kind="stable")
    li, masses = li[order], masses[order]
    lo_i = int(li[0]) if len(li) else 0
    lo_i = (lo_i // REFINE) * REFINE  # aligned for the coarsening
    hi_i = int(li[-1]) if len(li) else lo_i
    dense = np.zeros(hi_i - lo_i + 1, dtype=object)
    starts = np.concatenate([[0], np.nonzero(np.diff(li))[0] + 1])
    sums = np.add.reduceat(masses, starts) if len(masses) else masses
    dense[li[starts] - lo_i] = sums
    pld = DiscretePld(lo_i, fmpz_poly(dense.tolist()), scale_bits, min(inf, Fraction(1)), up)
    coarse = (coarsen_up if up else coarsen_down)(pld, REFINE, fine)
    return DiscretePld(lo_i // REFINE, coarse.coeffs, scale_bits, coarse.inf_mass, up)


# ---------------------------------------------------------------------------
# float screen (a guess only: the calibration's search; nothing here is certified)
# ---------------------------------------------------------------------------

#: the float screen's grid of one coordinate is this many times finer than the certified one
SCREEN_REFINE = 2
_FLOAT_CACHE: dict[tuple[float, int], tuple[float, int, np.ndarray]] = {}


def float_sum_law(sigma: float, t: int) -> tuple[float, int, np.ndarray]:
    r"""Float law of :math:`S = \sum_{i \le t} Y_i` (a screen, not a bound): ``(h, first index, masses)``,
    mass ``masses[j]`` at :math:`S = (\text{first} + j) h`.  Each coordinate is split onto the grid
    keeping the mass and the mean of every cell (the float twin of the certified upper law, on a grid
    :data:`SCREEN_REFINE` times finer, cut as the certified one at tail 1e-12); the t-th power is one real
    FFT on a window of the sum's bulk (the rest, below about 1e-13, wraps around)."""
    from scipy.special import ndtr

    key = (float(sigma), int(t))
    if key in _FLOAT_CACHE:
        return _FLOAT_CACHE[key]
    s = 1.0 / sigma  # log Y ~ N(mu, s^2), E Y = 1
    mu = -0.5 * s * s
    hq, mq, _, _, _ = sum_law_parameters(Fraction(sigma).limit_denominator(10**9), t, 1e-12)
    refine = SCREEN_REFINE if mq <= 100_000 else 1  # long grids (small noise): the certified grid itself
    h = float(hq) / refine
    m = mq * refine
    edges = np.arange(m + 1) * h
    with np.errstate(divide="ignore"):
        z = (np.log(edges) - mu) / s
    # P(Y <= K) and E[Y; Y <= K] from whichever tail keeps the relative accuracy
    up = z > 0
    cdf = np.where(up, 1.0 - ndtr(-z), ndtr(z))
    pcdf = np.where(up, 1.0 - ndtr(-(z - s)), ndtr(z - s))
    sf, psf = ndtr(-z), ndtr(-(z - s))
    mass = np.where(up[1:], sf[:-1] - sf[1:], cdf[1:] - cdf[:-1])
    part = np.where(up[1:], psf[:-1] - psf[1:], pcdf[1:] - pcdf[:-1])
    right = np.clip((part - edges[:-1] * mass) / h, 0.0, mass)
    base = np.zeros(m + 1)
    base[:-1] += mass - right
    base[1:] += right
    base[-1] += sf[-1]  # the rest of the tail at the cut (a screen)
    var = math.expm1(s * s)
    lo = max(0, math.floor((t - 14 * math.sqrt(t * var)) / h))
    size = 1 << max(8, (min(t * m, math.ceil((t + 14 * math.sqrt(t * var)) / h) + m - lo) + 1).bit_length())
    spec = np.fft.rfft(base, size) ** t
    r = np.clip(np.fft.irfft(spec, size), 0.0, None)
    first = lo
    r = np.roll(r, -(lo % size))  # r[j] <-> S index lo + j
    out = (h, first, r)
    if len(_FLOAT_CACHE) > 64:
        _FLOAT_CACHE.clear()
    _FLOAT_CACHE[key] = out
    return out


def float_loss_masses(sigma: float, t: int, direction: str, n: int) -> tuple[int, np.ndarray, float]:
    """Float P-masses of the loss of one balls-and-bins epoch on the grid 1/n (a screen): ``(first
    index, masses, mass at +infinity)``; each atom split between its two grid neighbours keeping its
    P- and Q-mass (second order in 1/n)."""
    h, first, r = float_sum_law(sigma, t)
    j = first + np.arange(len(r))
    keep = (r > 0) & (j > 0)
    p_inf = float(r[(j == 0)].sum()) if direction == "add" else 0.0
    sv, c = j[keep] * h, r[keep]
    if direction == "remove":
        p, loss = c * sv / t, np.log(sv / t)
    else:
        p, loss = c, np.log(t / sv)
    i0 = np.floor(loss * n)
    lo_l, hi_l = i0 / n, (i0 + 1) / n
    w_hi = p * (-np.expm1(lo_l - loss)) / (-np.expm1(lo_l - hi_l))
    b = int(i0.min())
    ii = (i0 - b).astype(np.int64)
    masses = np.bincount(ii, weights=p - w_hi, minlength=int(ii.max()) + 2)
    masses += np.bincount(ii + 1, weights=w_hi, minlength=len(masses))
    return b, masses, p_inf


def blocks(t: int, selected: int) -> list[tuple[int, int]]:
    """``[(steps, count)]``: the k-of-t epoch is dominated by ``count`` compositions of the 1-of-``steps``
    pair for each entry (k - r blocks of floor(t/k) steps and r of one more, r = t mod k)."""
    m, r = divmod(t, selected)
    return [(b, c) for b, c in ((m, selected - r), (m + 1, r)) if c > 0]


def allocation_plds(
    sigma: Fraction, t: int, direction: str, n: int, scale_bits: int, tail: float, lower: bool = True, selected: int = 1
) -> tuple[DiscretePld, DiscretePld | None]:
    """The upper and lower discrete PLDs of one epoch on grid 1/n (the hook of
    :class:`AllocationProfile`); for ``selected`` k > 1 the composition over the blocks of
    :func:`blocks` (module docstring; the lower array then bounds the blocks' pair, not the mechanism)."""
    if direction not in ("remove", "add"):
        raise ValueError(f"direction must be remove or add. Found {direction!r}.")
    if selected > 1:
        parts = blocks(t, selected)
        ups = []
        los: list[tuple[DiscretePld, int]] | None = [] if lower else None
        for steps, count in parts:
            u, lo_pld = allocation_plds(sigma, steps, direction, n, scale_bits, tail, lower)
            ups.append((u, count))
            if los is not None and lo_pld is not None:
                los.append((lo_pld, count))
        budget = block_tail(tail, parts)
        low = compose_all(los, budget) if los else None
        if lower and _LOWER_ONLY.get():  # the blocks' upper arrays are the trivial ones: so is their composition
            return DiscretePld(0, fmpz_poly([]), scale_bits, Fraction(1), True), low
        return compose_all(ups, budget), low
    if t == 1:
        # one step: the Gaussian pair (its grid construction; the S-law of one log-normal is long at small t)
        from .discretize import discretize

        g = poisson_gaussian_profile(Fraction(1), Fraction(sigma), "remove")
        return discretize(g, n, scale_bits, tail, lower=lower)
    if lower and _LOWER_ONLY.get():
        up = DiscretePld(0, fmpz_poly([]), scale_bits, Fraction(1), True)
    else:
        up = _to_loss(sum_law(sigma, t, True, tail), t, n, direction, scale_bits)
    lo = _to_loss(sum_law(sigma, t, False, tail), t, n, direction, scale_bits) if lower else None
    return up, lo


def block_tail(tail: float, parts: list[tuple[int, int]]) -> Fraction:
    """The trimming budget of each product composing the blocks of one epoch (a choice; trimmed mass is
    moved to +infinity, so any budget is sound)."""
    return Fraction(tail) / (4 * max(1, products([c for _, c in parts])))


def _no_oracle(_eps: Fraction) -> ProfilePoint:
    raise UnsupportedEventError("random allocation has no closed-form privacy profile (its PLD is built on the grid)")


def _screen(sigma: float, t: int, direction: str):
    """A float screen of delta(eps) (a Poisson-subsampled Gaussian with q = 1/t: a choice only)."""
    q = 1.0 / t

    def screen(eps: float) -> float:
        # remove: delta of the Poisson pair; add: the same shape (screens choose ranges only)
        from .profiles import _fsf

        e = eps
        if math.exp(min(e, 700)) <= 1 - q:
            return 1 - math.exp(e)
        x = sigma * sigma * math.log((math.exp(min(e, 700)) - 1 + q) / q) + 0.5
        return q * _fsf((x - 1) / sigma) + (1 - q) * _fsf(x / sigma) - math.exp(min(e, 700)) * _fsf(x / sigma)

    def screen_low(eps: float) -> float:
        return max(0.0, screen(eps) - (1 - math.exp(min(eps, 700))))

    return screen, screen_low


@dataclass(frozen=True)
class AllocationProfile(Profile):
    """A profile whose discrete PLDs are built on the grid (:func:`allocation_plds`), not from an
    oracle: :attr:`grid_plds` ``(n, scale_bits, tail, lower) -> (upper, lower or None)``."""

    grid_plds: Any = None


def allocation_pair(sigma: Fraction, t: int, selected: int = 1) -> DominatingPair:
    """The dominating pair of one epoch of random allocation (``selected`` of ``t`` steps) of the
    Gaussian (module docstring): for k = 1 the balls-and-bins pair (attained: ``tight``); for k > 1 the
    composition over the blocks of :func:`blocks` (dominating only: the lower end is reported as 0)."""
    sig = Fraction(sigma)
    if t == 1:
        # one step per epoch: the pair is the Gaussian pair itself (N(1, sigma^2), N(0, sigma^2)), symmetric
        g = poisson_gaussian_profile(Fraction(1), sig, "remove")
        return DominatingPair(g, g, tight=True)

    def make(direction: str) -> AllocationProfile:
        sd, sl = _screen(float(sig), t, direction)

        def build(n: int, scale_bits: int, tail: float, lower: bool) -> tuple[DiscretePld, DiscretePld | None]:
            return allocation_plds(sig, t, direction, n, scale_bits, tail, lower, selected)

        return AllocationProfile(
            f"random-allocation-gaussian(sigma={sig}, t={t}, k={selected}, {direction})",
            _no_oracle,
            (None, None),
            sd,
            sl,
            ("random-allocation-gaussian", sig, t, selected, direction),
            None,
            grid_plds=build,
        )

    # k > 1: the blocks' pair only dominates (joint convexity), so the lower end is not the mechanism's
    return DominatingPair(make("remove"), make("add"), tight=selected == 1)
