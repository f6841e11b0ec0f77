r"""Float log-space helpers for the *screens* (order selection, search guesses).

Nothing here is certified: these functions only steer which orders or noise
levels the certified path evaluates; a poor value costs tightness or time,
never soundness.  They are written with numpy alone (no scipy), so that the
command line starts fast, and they accept scalars or arrays.

* :func:`log_expm1` -- :math:`\log(e^x - 1)` for :math:`x > 0` (no overflow for large x,
  no cancellation for small x);
* :func:`log1pexp` -- :math:`\log(1 + e^x)` (softplus);
* :func:`log1mexp` -- :math:`\log(1 - e^{-x})` for :math:`x > 0`;
* :func:`logsumexp` -- :math:`\log\sum_i e^{x_i}` (``-inf`` for an empty or all ``-inf`` input);
* :func:`gammaln` -- :math:`\log|\Gamma(x)|` (Stirling series with shift and reflection),
  :func:`gammasgn` -- the sign of :math:`\Gamma(x)`;
* :func:`log_ndtr` -- :math:`\log\Phi(x)` of the standard normal CDF;
* :func:`log_fraction` -- natural log of a positive rational without underflow.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "LOG_2PI_HALF",
    "gammaln",
    "gammasgn",
    "log1mexp",
    "log1pexp",
    "log_binom_real",
    "log_expm1",
    "log_factorials",
    "log_fraction",
    "log_ndtr",
    "logsumexp",
]

ArrayLike = float | np.ndarray
LOG_2PI_HALF = 0.5 * math.log(2.0 * math.pi)


def _scalar(x: ArrayLike, out: np.ndarray) -> ArrayLike:
    return float(out) if np.ndim(x) == 0 else out


def log_expm1(x: ArrayLike) -> ArrayLike:
    r""":math:`\log(e^x - 1)` for :math:`x > 0` (``-inf`` at 0, ``nan`` below)."""
    a = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        big = a > 30.0
        out = np.where(big, a + np.log1p(-np.exp(-a)), np.log(np.expm1(np.where(big, 1.0, a))))
    return _scalar(x, out)


def log1pexp(x: ArrayLike) -> ArrayLike:
    r""":math:`\log(1 + e^x)` without overflow."""
    a = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        out = np.where(a > 35.0, a + np.exp(-a), np.log1p(np.exp(np.minimum(a, 35.0))))
    return _scalar(x, out)


def log1mexp(x: ArrayLike) -> ArrayLike:
    r""":math:`\log(1 - e^{-x})` for :math:`x > 0` (Maechler's switch at :math:`\log 2`)."""
    a = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        out = np.where(a > math.log(2.0), np.log1p(-np.exp(-a)), np.log(-np.expm1(-a)))
    return _scalar(x, out)


@overload
def logsumexp(x: npt.ArrayLike, axis: None = None) -> float: ...
@overload
def logsumexp(x: npt.ArrayLike, axis: int) -> np.ndarray: ...
def logsumexp(x: npt.ArrayLike, axis: int | None = None) -> float | np.ndarray:
    r""":math:`\log\sum e^{x}` over ``axis`` (all entries by default); ``-inf`` if empty."""
    a = np.asarray(x, dtype=float)
    if a.size == 0:
        return -math.inf if axis is None else np.full(np.delete(a.shape, axis), -np.inf)
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(all="ignore"):
        s = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    s = np.squeeze(s, axis=axis) if axis is not None else s.reshape(())
    return float(s) if axis is None else s


_STIRLING = (1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188)


def _lgamma_large(x: np.ndarray) -> np.ndarray:
    """log Gamma(x) for x >= 8 by the Stirling series (error < 1e-13)."""
    inv = 1.0 / x
    inv2 = inv * inv
    corr = inv * (
        _STIRLING[0] + inv2 * (_STIRLING[1] + inv2 * (_STIRLING[2] + inv2 * (_STIRLING[3] + inv2 * _STIRLING[4])))
    )
    out: np.ndarray = (x - 0.5) * np.log(x) - x + LOG_2PI_HALF + corr
    return out


def gammaln(x: ArrayLike) -> ArrayLike:
    r""":math:`\log|\Gamma(x)|` (``inf`` at the poles 0, -1, -2, ...)."""
    if np.ndim(x) == 0:
        try:
            return math.lgamma(float(x))
        except ValueError:  # a pole
            return math.inf
    a = np.asarray(x, dtype=float)
    if a.size and float(np.min(a)) >= 1.0 and float(np.max(a)) <= 1e6 and bool(np.all(a == np.floor(a))):
        # positive integers: log Gamma(n) = log (n-1)! from the table
        return log_factorials(int(np.max(a)))[a.astype(np.int64) - 1]
    with np.errstate(all="ignore"):
        if a.size and float(np.min(a)) >= 0.5:
            return _scalar(x, _gammaln_pos(a))
        pos = a >= 0.5
        out = _gammaln_pos(np.where(pos, a, 1.0 - a))
        # reflection: log|Gamma(x)| = log(pi / |sin(pi x)|) - log Gamma(1 - x)
        s = np.abs(np.sin(math.pi * (a - np.round(a))))
        out = np.where(pos, out, np.where(s == 0, np.inf, math.log(math.pi) - np.log(s) - out))
    return _scalar(x, out)


def _gammaln_pos(a: np.ndarray) -> np.ndarray:
    """log Gamma(x) for x >= 0.5: Stirling at x + 8 below 8 (shift by the product x(x+1)...(x+7))."""
    small = a < 8.0
    if not small.any():
        return _lgamma_large(a)
    y = np.where(small, a + 8.0, a)
    prod = a * (a + 1) * (a + 2) * (a + 3) * (a + 4) * (a + 5) * (a + 6) * (a + 7)
    return _lgamma_large(y) - np.where(small, np.log(np.where(small, prod, 1.0)), 0.0)


def gammasgn(x: ArrayLike) -> ArrayLike:
    r"""Sign of :math:`\Gamma(x)`: +1 for x > 0; for x < 0, :math:`(-1)^{\lceil -x \rceil}`; 0 at the poles."""
    a = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        neg_sign = np.where(np.mod(np.floor(-a), 2) == 0, -1.0, 1.0)
        out = np.where(a > 0, 1.0, np.where(a == np.round(a), 0.0, neg_sign))
    return _scalar(x, out)


def _erfc(v: np.ndarray) -> np.ndarray:
    return np.array([math.erfc(t) for t in v.tolist()], dtype=float)


def log_ndtr(x: ArrayLike) -> ArrayLike:
    r""":math:`\log\Phi(x)` for the standard normal CDF: ``erfc`` above -20, the asymptotic
    series :math:`\log\varphi(x) - \log(-x) + \log(1 - x^{-2} + 3x^{-4} - 15x^{-6} + 105x^{-8})`
    below (relative error < 1e-11 there)."""
    a = np.asarray(x, dtype=float)
    out = np.empty(a.shape)
    flat_a = a.reshape(-1)
    flat = out.reshape(-1)
    far = flat_a < -20.0
    with np.errstate(all="ignore"):
        xs = flat_a[~far]
        if xs.size:
            # Phi(x) = erfc(-x/sqrt2)/2; for x > 0 log1p(-erfc(x/sqrt2)/2) keeps the small complement
            c = _erfc(np.abs(xs) / math.sqrt(2.0)) / 2.0
            flat[~far] = np.where(xs > 0, np.log1p(-c), np.log(c))
        xf = flat_a[far]
        if xf.size:
            i2 = 1.0 / (xf * xf)
            ser = 1.0 - i2 * (1.0 - i2 * (3.0 - i2 * (15.0 - 105.0 * i2)))
            flat[far] = -0.5 * xf * xf - LOG_2PI_HALF - np.log(-xf) + np.log(ser)
    return _scalar(x, out)


_LOG_FACT = np.zeros(1)


def log_factorials(n: int) -> np.ndarray:
    """Table of log k! for k = 0..n (built once, grown by doubling; float, screens only)."""
    global _LOG_FACT
    if len(_LOG_FACT) <= n:
        m = max(n + 1, 2 * len(_LOG_FACT), 4097)
        _LOG_FACT = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, m, dtype=float)))])
    return _LOG_FACT


def log_binom_real(a: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    r"""log|C(a, k)| and the sign of C(a, k) for k = 0..n-1 and real a, by the cumulative
    product :math:`C(a,k) = \prod_{j=1}^{k} (a-j+1)/j` (float, screens only)."""
    j = np.arange(1, n, dtype=float)
    r = (a - j + 1.0) / j
    with np.errstate(all="ignore"):
        lc = np.concatenate([[0.0], np.cumsum(np.log(np.abs(r)))])
    sg = np.concatenate([[1.0], np.cumprod(np.sign(r))])
    return lc, sg


def log_fraction(x: Fraction) -> float:
    """Float natural log of a positive rational, without underflow (x may be 1e-400)."""
    x = Fraction(x)
    if x <= 0:
        return -math.inf
    return math.log(x.numerator) - math.log(x.denominator)
