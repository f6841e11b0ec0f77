r"""Study (negative result): can a proven float-FFT product replace FLINT's exact products in the PLD chain?

The certified composition (:mod:`rigorous_rdp.pld.compose`) squares integer arrays exactly
(``fmpz_poly``), rescales them by :math:`2^{-S}` and moves one unit per coefficient to
:math:`+\infty`.  This script measures, product by product of one real query, whether a
floating-point FFT product with an a-priori error bound could take over a product: by
*accuracy* (the proven error mass must fit the product's budget) and by *speed* (radix-2
FFT in numpy plus the conversions to and from ``fmpz_poly``, against FLINT's product and
rescaling).  Nothing here is used by the library.

**The bound.**  Radix-2 Cooley-Tukey convolution of real :math:`x, y \ge 0` (zero-padded to
:math:`N = 2^k`): forward decimation in frequency, pointwise product, inverse decimation in
time, every operation an IEEE-754 double operation rounded to nearest (unit roundoff
:math:`u = 2^{-53}`; numpy ufuncs on real arrays, complex products as four products and two
sums), twiddles :math:`\hat\omega` with :math:`|\hat\omega - \omega| \le \beta` (cos and sin
computed in ball arithmetic and rounded to nearest: :math:`\beta \le 2^{-54}\sqrt 2 < u`; the
prototype below times numpy's cos and sin instead), no underflow or overflow.  With
:math:`\eta = (1+u)(1+\sqrt5 u)(1+\beta) - 1` (one complex sum, relative error at most u in
modulus; one product by a twiddle, at most :math:`\sqrt 5 u` by Brent, Percival and Zimmermann,
Math. Comp. 76 (2007), also with a naive FMA, Jeannerod et al., Math. Comp. 86 (2017); the
twiddle's own error):

* forward (stage by stage in :math:`\ell_2`, each stage :math:`\sqrt 2` times unitary, each
  butterfly output within :math:`\eta` of its exact value; the inputs rounded once):
  :math:`\|\hat X - X\|_2 \le \rho \|X\|_2`, :math:`1 + \rho = (1+u)(1+\eta)^k`,
  :math:`\|X\|_2 = \sqrt N \|x\|_2`;
* pointwise: :math:`\|\hat Z - XY\|_1 \le (\rho(2+\rho) + \sqrt5 u (1+\rho)^2) N \|x\|_2 \|y\|_2`
  (Cauchy-Schwarz);
* inverse (every output is a sum of :math:`\omega^{mi}\hat Z_i` along a tree of depth k, each
  term through at most k rounded sums and twiddle products, Higham, *Accuracy and
  Stability*, 2nd ed., Sec. 3.1 and 24.1): error at most :math:`((1+\eta)^k - 1)\|\hat Z\|_1`
  on top of the exact inverse of :math:`\hat Z`, whose own error is at most
  :math:`\|\hat Z - XY\|_1` in every component.

Together: :math:`\|\hat z - x * y\|_\infty \le ((1+u)^2 (1+\sqrt5 u)(1+\eta)^{3k} - 1)
\|x\|_2 \|y\|_2`, a bound of the form of Percival, "Rapid multiplication modulo the sum and
difference of highly composite numbers", Math. Comp. 72 (2003), Theorem 2.1 (derived above for
this algorithm).  An upper array would add
this E to every coefficient of the product (n of them): a mass :math:`nE` that, like the
rescaling units, is repeated by every later squaring; the chain gives each product a trimming
budget (``tail`` of :func:`~rigorous_rdp.pld.compose.multiply`) that is scaled to those
repetitions, so a product is *eligible* when :math:`nE` is at most that budget (the float
route then at most doubles that product's share of the tail budget).

**Findings** (2026-11-26, load about 0.6; ``python benchmarks/fft_study.py`` with ``--steps 1e6`` and
``--width 0.001``):

* accuracy: at T = 1e4 only the last 4 products of each power are eligible (12 of 51, also at width
  0.001), at T = 1e6 the last 3 (10 of 75).  The early products are repeated thousands of times by
  the squarings, and their budgets are far below :math:`nE`: the first product's is 1.8e-16 against
  :math:`nE` = 2.2e-12 at T = 1e4 (1e4 times over) and 1.3e-18 against 3.4e-12 at T = 1e6 (3e6
  times).  The errors seen are about 1/25 of the bound, so even an (unproven) estimate would leave
  them far over;
* speed, at the eligible products: the two conversions (``fmpz_poly`` to float and back, through
  Python objects) alone cost 55-70 % of FLINT's product and rescaling, and the numpy radix-2 transform
  (complex, four-step layout) more than the rest.  FLINT product + rescale of the eligible products
  against conversions + radix-2: 0.016 s against 0.021 s (T = 1e4), 0.050 s against 0.073 s (width
  0.001), 0.088 s against 0.124 s (T = 1e6), of 0.053 s, 0.179 s and 0.656 s for all products; real-input
  packing would at best halve the radix-2 part (break-even);
* so a float route could only be a float *tail* of each power (convert once, keep the last products,
  trims and coarsenings in floats with directed rounding): at most about 12 % of the T = 1e4 query and
  5 % at T = 1e6 by these times, before the cost of the bounds, the directed rounding and float
  versions of the trims and coarsenings.  Not built.

Run:  ``python benchmarks/fft_study.py [--steps 1e4] [--width 0.01]``
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from flint import fmpz_poly

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

U = 2.0**-53
BETA = U
ETA = (1 + U) * (1 + math.sqrt(5) * U) * (1 + BETA) - 1

_TWIDDLES: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _twiddles(n: int) -> tuple[np.ndarray, np.ndarray]:
    # timing only: numpy's cos and sin (a certified route would round arb balls to nearest)
    if n not in _TWIDDLES:
        j = np.arange(n // 2)
        _TWIDDLES[n] = (np.cos(2 * np.pi * j / n), -np.sin(2 * np.pi * j / n))
    return _TWIDDLES[n]


#: below this half-size the blocks are transposed so that numpy's inner loops stay long
_BLOCK = 64


def _stage(re, im, wr, wi, forward: bool) -> None:
    """One radix-2 stage in place on views ``re``/``im`` of shape (blocks, 2, h, ...)."""
    ur, vr, ui, vi = re[:, 0], re[:, 1], im[:, 0], im[:, 1]
    if forward:  # decimation in frequency: (u + v, (u - v) w)
        dr, di = ur - vr, ui - vi
        ur += vr
        ui += vi
        np.multiply(dr, wr, out=vr)
        vr -= di * wi
        np.multiply(dr, wi, out=vi)
        vi += di * wr
    else:  # decimation in time: (u + v w, u - v w)
        tr = vr * wr - vi * wi
        ti = vr * wi + vi * wr
        np.subtract(ur, tr, out=vr)
        np.subtract(ui, ti, out=vi)
        ur += tr
        ui += ti


def radix2_square(a: np.ndarray) -> np.ndarray:
    """The convolution ``a * a`` by a complex radix-2 FFT of length N (a power of two; the
    output is in the transform's own order between the two transforms, so no bit reversal)."""
    n = 2 * len(a) - 1
    N = 1 << (n - 1).bit_length()
    wr_all, wi_all = _twiddles(N)
    re = np.zeros(N)
    re[: len(a)] = a
    im = np.zeros(N)
    h = N // 2
    while h >= _BLOCK:
        s = N // 2 // h
        _stage(re.reshape(-1, 2, h), im.reshape(-1, 2, h), wr_all[::s], wi_all[::s], True)
        h //= 2
    blk = 2 * h
    m = N // blk
    re = np.ascontiguousarray(re.reshape(m, blk).T)
    im = np.ascontiguousarray(im.reshape(m, blk).T)
    while h >= 1:
        s = N // 2 // h
        _stage(re.reshape(-1, 2, h, m), im.reshape(-1, 2, h, m), wr_all[::s, None], wi_all[::s, None], True)
        h //= 2
    zr, zi = re * re - im * im, 2 * re * im
    h = 1
    while h < blk:
        s = N // 2 // h
        _stage(zr.reshape(-1, 2, h, m), zi.reshape(-1, 2, h, m), wr_all[::s, None], -wi_all[::s, None], False)
        h *= 2
    zr = np.ascontiguousarray(zr.reshape(blk, m).T).reshape(N)
    zi = np.ascontiguousarray(zi.reshape(blk, m).T).reshape(N)
    while h < N:
        s = N // 2 // h
        _stage(zr.reshape(-1, 2, h), zi.reshape(-1, 2, h), wr_all[::s], -wi_all[::s], False)
        h *= 2
    return zr[:n] / N


def fft_error(x: np.ndarray, y: np.ndarray) -> float:
    """The a-priori bound on every coefficient's error (module docstring), in the units of x and y."""
    n = len(x) + len(y) - 1
    k = (1 << (n - 1).bit_length()).bit_length() - 1
    factor = (1 + U) ** 2 * (1 + math.sqrt(5) * U) * (1 + ETA) ** (3 * k) - 1
    # plain ufuncs (no BLAS threads to spin on during the timings)
    return factor * math.sqrt(float(np.sum(x * x)) * float(np.sum(y * y)))


def _floats(p: fmpz_poly) -> np.ndarray:
    cf = p.coeffs()
    return np.fromiter(map(float, cf), dtype=float, count=len(cf))


def _best(fn, repeat: int = 3) -> float:
    ts = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        ts.append(time.process_time() - t0)
    return min(ts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=float, default=1e4)
    ap.add_argument("--width", default="0.01")
    args = ap.parse_args()
    from bench_pld import ours_pld  # type: ignore[import-not-found]

    from rigorous_rdp.pld import compose

    rows: list[tuple[bool, fmpz_poly, fmpz_poly, int, int, float, float]] = []
    orig = compose.multiply

    def recording(a, b, tail):
        out = orig(a, b, tail)
        s = a.scale_bits
        x, y = _floats(a.coeffs) * 2.0**-s, _floats(b.coeffs) * 2.0**-s
        n = len(x) + len(y) - 1
        bits = max(int(c).bit_length() for c in a.coeffs.coeffs())
        rows.append((a.upper, a.coeffs, b.coeffs, s, bits, n * fft_error(x, y), float(tail)))
        return out

    steps = int(args.steps)
    compose.multiply = recording
    try:
        ours_pld(steps, args.width)
    finally:
        compose.multiply = orig
    print(f"T = {steps:.0e}, width {args.width}: {len(rows)} products (u = 2^-53, beta = u)")
    eligible = 0
    t_flint_all = t_flint_el = t_float_el = 0.0
    for upper, p, q, s, bits, mass, tail in rows:
        la, lb = p.length(), q.length()
        n = la + lb - 1
        t_flint = _best(lambda p=p, q=q, s=s: (p * q) // (1 << s))
        t_flint_all += t_flint
        ok = mass <= tail
        line = (
            f"  {'upper' if upper else 'lower'} {la:6d} x {lb:6d} -> {n:6d}, {bits} bits: FLINT {t_flint * 1e3:6.2f} ms; "
            f"FFT error mass {mass:.1e} vs budget {tail:.1e}"
        )
        if ok:
            eligible += 1
            # the square of the longer factor (a product with a different factor needs one more transform)
            a = _floats(p if la >= lb else q)
            c = radix2_square(a)
            t_in = _best(lambda p=p: _floats(p))
            t_fft = _best(lambda a=a: radix2_square(a))
            t_out = _best(lambda c=c, s=s: fmpz_poly([int(v) for v in np.ceil(c * 2.0**-s)]))
            big = p if la >= lb else q
            exact = _floats(big * big)  # the exact square, rounded once to floats (relative 2^-53 each)
            seen = float(np.max(np.abs(c - exact))) / fft_error(a, a)
            t_flint_el += t_flint
            t_float_el += t_in + t_fft + t_out
            line += (
                f" ELIGIBLE; float route: in {t_in * 1e3:.2f} + radix-2 {t_fft * 1e3:.2f} "
                f"+ out {t_out * 1e3:.2f} ms; observed error / bound {seen:.0e}"
            )
        print(line)
    print(
        f"eligible {eligible} of {len(rows)}; FLINT product + rescale: all {t_flint_all:.3f} s, eligible "
        f"{t_flint_el:.3f} s; float route at the eligible ones {t_float_el:.3f} s (with real-input packing at best "
        "about half of the radix-2 part)"
    )


if __name__ == "__main__":
    main()
