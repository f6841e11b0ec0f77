r"""Float planning shared by the certified paths of the Poisson-subsampled Gaussian
(:mod:`.poisson_gaussian`, :mod:`.poisson_gaussian_trapezoid`).

Nothing here is reported: these floats choose windows, grids and precisions, and a poor
choice costs width or time, never soundness (the certified paths bound what they cut off
in ball arithmetic).
"""

from __future__ import annotations

import math

import numpy as np

from ..floatmath import log_expm1, log_factorials, logsumexp

__all__: list[str] = []


def _tail_point(log_target: float) -> float:
    """x >= 0 with exp(-x^2/2)/2 <= exp(log_target), hence 1 - Phi(x) <= exp(log_target)."""
    v = -log_target - math.log(2.0)
    return math.sqrt(2.0 * v) if v > 0 else 0.0


def _screen_log_i_small_ints(a: np.ndarray, log_q: float, log_1mq: float, sigma: float) -> np.ndarray:
    """:func:`_screen_log_i` at many integer orders <= 256 at once (one 2-D log-sum-exp)."""
    amax = int(a.max())
    lf = log_factorials(amax)
    k = np.arange(2, amax + 1)
    A = a[:, None]
    mask = k[None, :] <= A
    kk = np.where(mask, k[None, :], 2)
    logc = lf[A] - lf[kk] - lf[np.where(mask, A - kk, 0)]
    t = logc + kk * log_q + (A - kk) * log_1mq + log_expm1(kk * (kk - 1.0) / (2.0 * sigma * sigma))
    return logsumexp(np.where(mask, t, -np.inf), axis=1)


def _log_phi_cdf(x: float) -> float:
    """Float log of the standard normal CDF (planning only)."""
    if x > -30.0:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2.0)))
    return -x * x / 2 - math.log(-x) - 0.5 * math.log(2 * math.pi)


def _gap_log_bound(a: float, lq: float, lr: float, s: float, L: float, z0: float) -> float:
    """Float value of the bound of :func:`_gap_bound` (planning only)."""
    la = a * lq + a * (a - 1) / (2 * s * s)
    zc = s * s * (lr + math.log(a)) + 0.5
    pieces = [(0.5, -a * lq), (z0, a * math.log(2.0)), (zc, 1.0)]
    out = -math.inf
    for i, (start, lf) in enumerate(pieces):
        end = pieces[i + 1][0] if i + 1 < len(pieces) else math.inf
        lo, hi = max(start, 0.5), min(end, L)
        if hi <= lo:
            continue
        v = la + lf + _log_phi_cdf((hi - a) / s)
        out = max(out, v) + math.log1p(math.exp(-abs(out - v))) if out > -math.inf else v
    return out
