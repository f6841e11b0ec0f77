r"""Numerical probe of Conjecture 1 of the blog post, part 2 (the hidden assumption of ACGMMTZ16).

Conjecture 1 (blog part 2, section "ACGMMTZ16"): for the subsampled Gaussian mechanism with rate
:math:`r` and neighbouring datasets :math:`x, x'`,
:math:`D_\lambda(p\|q) \le D_\lambda(r\mu_1 + (1-r)\mu_0 \| \mu_0)`, :math:`\mu_i = N(i, \sigma^2)`
(the right-hand side is the same in every dimension: both laws live on the line through the two means).

The query is a sum of per-row values in :math:`\mathbb R^d` (DP-SGD's gradient sum), the output
:math:`N(\sum_{i\in I} g_i, \sigma^2 I_d)`.  Three models, selected by ``model``, say exactly which
datasets are admitted:

* ``"range"`` -- the post's setting (Claim 24): fixed-size sampling without replacement (a uniformly
  random subset of ``m`` of the ``n`` rows, :math:`r = m/n`), replace-one neighbours (row ``n`` has value
  ``u`` in ``x`` and ``u'`` in ``x'``), and **all row values (the other rows, u and u') in a set of
  Euclidean diameter at most 1**: every pairwise distance is :math:`\le 1`.  This is exactly
  "the sum query has replace-one sensitivity 1 on this dataset pair".  In 1-d: values in an interval
  of length 1.  In :math:`d \ge 2` such a set need not fit in a ball of radius 1/2 (an equilateral
  triangle of side 1 has circumradius :math:`1/\sqrt 3`).  The post (with Part 1's definitions:
  Hamming distance on :math:`Z^m`, :math:`S_f = \sup\|f(y) - f(y')\|_2`) admits any query with
  :math:`S_f \le 1`, of which these sums are a special case: a violation here refutes Conjecture 1
  as stated, while "no violation" here says nothing about non-additive queries.
* ``"clip"`` -- DP-SGD clipping: fixed-size sampling without replacement, replace-one, every row value
  in the closed ball of radius 1/2 (so pairwise distances are :math:`\le 1`, a strict subset of
  ``"range"`` in :math:`d\ge 2`; the same set as ``"range"`` in 1-d up to translation).
* ``"poisson"`` -- Poisson sampling with probability :math:`r`, add/remove neighbours (row ``n`` with
  value ``u`` present in ``x`` only), every row value in the closed ball of radius 1.  Mironov, Talwar,
  Zhang 2019 (Thm 4) prove the inequality for this case, so the probe must find ratio :math:`\le 1`.

The other ``n - 1`` rows take ``K`` distinct values with multiplicities, so the number of mixture
atoms is polynomial.  With :math:`B` the law of the sum over the other sampled rows given that row
``n`` is sampled and :math:`A` given that it is not (multivariate hypergeometric, resp. binomial,
weights),

.. math:: p = (1-r)A + r\,(B * \delta_u), \qquad q = (1-r)A + r\,(B * \delta_{u'})

(Poisson: :math:`A = B`, :math:`u' = 0`), both finite Gaussian mixtures.  The ratio is LHS / RHS of
the conjecture (Rényi divergences).

**Result (proven below, certificates in** ``docs/blog_part2_conjecture.md`` **).**  In :math:`d \ge 2`
the ``"range"`` model violates Conjecture 1 (so the conjecture as stated is false for vector-valued
queries).  Not refuted: scalar queries (:math:`d = 1`), ``"clip"`` (the triangle below is not in the
ball of radius 1/2) and ``"poisson"`` (a theorem).  Leading order as :math:`r \to 0`
(``proofs/verify_conjecture_limits.py``): with ``m = 1``, the other rows at ``c``, :math:`a = u - c`,
:math:`b = u' - c`, :math:`x = 1/\sigma^2`,

.. math:: \text{ratio} \to \frac{e^{|a|^2x} + e^{|b|^2x} - 2e^{\langle a,b\rangle x}}{e^{x} - 1},

which for the equilateral triangle (:math:`|a|=|b|=|a-b|=1`) is :math:`2e^{x/2}/(1+e^{x/2}) > 1`.

Screen: the trapezoidal rule on a grid over the affine hull of the atoms (the divergence of two
isotropic Gaussian mixtures only depends on that projection), in log space (an estimate).
Certification: 1-d, :math:`G_\lambda(p\|q) - 1 = \int q\,f(p/q - 1)` with
:math:`f(x) = (1+x)^\lambda - 1 - \lambda x \ge 0` on a window by ``acb.integral`` plus the proven
tails of :func:`tail_bounds`.  Any dimension, lower bound: the law of the cell of a partition of
:math:`\mathbb R^d` (axis-parallel boxes and their complement) is a post-processing of the output, so
its Rényi divergence is a lower bound of the LHS (data processing); the cell probabilities are
products of Gaussian interval probabilities, computed in ball arithmetic
(:func:`lhs_lower_cells`).  Any dimension, upper bound: pairing the atoms of :math:`p` and
:math:`q` and joint convexity of :math:`G_\lambda` (Claim 25) give
:math:`G_\lambda(p\|q) \le 1 - r + r e^{\lambda(\lambda-1)|u-u'|^2/(2\sigma^2)}`
(:func:`lhs_upper_pairing`; the Claim 24 bound, proven but loose).  The RHS is certified by
:func:`rigorous_rdp.research.constant.log_g_mixture`.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
from flint import acb, arb

from ..arith import Certified, refine, to_arb, workprec
from ..errors import PrecisionExhausted
from .constant import log_g_mixture, logsumexp
from .parallel import imap_ordered

__all__ = [
    "DIMS",
    "MODELS",
    "ProbeConfig",
    "ProbeResult",
    "admissible",
    "certify_config",
    "certify_violation",
    "exact_atoms",
    "is_rhs_pair",
    "lhs_lower_cells",
    "lhs_upper_pairing",
    "limit_ratio_r0",
    "mixtures",
    "optimise_config",
    "probe",
    "random_config",
    "ratio_to_json",
    "rhs_certified",
    "screen_ratio",
    "structured_configs",
    "tail_bounds",
]

MODELS = ("range", "clip", "poisson")
DIMS = (1, 2, 3)
Q = Fraction(1, 1024)  # grid of the dataset values (exact binary rationals)
# the parameter box the search explores (random starts, local moves and continuation stay inside)
SIGMA_MIN, SIGMA_MAX = Fraction(1, 4), Fraction(8)
N_MAX = 1000  # rows (fixed-size sampling: r = m/n >= 1/1000)
M_MAX = 8  # batch size
R_MIN = Fraction(1, 1000)  # Poisson sampling probability


def lam_max(d: int) -> int:
    """Largest Rényi order of the search box in dimension ``d``."""
    return 32 if d == 1 else (16 if d == 2 else 8)


def _qz(x: float, grid: Fraction = Q) -> Fraction:
    return Fraction(round(x / grid)) * grid


def _vec_add(a: Sequence[Fraction], b: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """Componentwise sum of two vectors."""
    return tuple(x + y for x, y in zip(a, b, strict=False))


def _sq(a: Sequence[Fraction], b: Sequence[Fraction] | None = None) -> Fraction:
    """Exact squared Euclidean distance (or squared norm when ``b`` is None)."""
    if b is None:
        return sum((x * x for x in a), Fraction(0))
    return sum(((x - y) ** 2 for x, y in zip(a, b, strict=False)), Fraction(0))


def admissible(model: str, points: Sequence[tuple[Fraction, ...]]) -> bool:
    """Exact test of the model's constraint on the row values (module docstring)."""
    if model == "range":
        return all(_sq(a, b) <= 1 for a, b in itertools.combinations(points, 2))
    radius2 = Fraction(1, 4) if model == "clip" else Fraction(1)
    return all(_sq(a) <= radius2 for a in points)


@dataclass(frozen=True)
class ProbeConfig:
    r"""One configuration of the probe (all numbers exact).

    Attributes:
        model: ``"range"``, ``"clip"`` or ``"poisson"`` (module docstring: what each admits).
        n: number of rows; row ``n`` is the differing one.
        m: minibatch size (``"range"``, ``"clip"``; ``r = m/n``).
        r_poisson: sampling probability (``"poisson"``).
        sigma: noise standard deviation.
        lam: Rényi order :math:`\lambda > 1`.
        values: the ``K`` distinct values of the other rows (tuples of length ``d``).
        counts: their multiplicities (sum ``n - 1``).
        u, u_prime: the value of row ``n`` in ``x`` and in ``x'`` (``u_prime`` is 0 for Poisson).
    """

    model: str
    n: int
    m: int
    r_poisson: Fraction
    sigma: Fraction
    lam: Fraction
    values: tuple[tuple[Fraction, ...], ...]
    counts: tuple[int, ...]
    u: tuple[Fraction, ...]
    u_prime: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model must be one of range, clip, poisson. Found {self.model!r}.")
        if self.n < 2:
            raise ValueError(f"n must be >= 2. Found {self.n}.")
        if self.sampling == "fixed" and not 1 <= self.m <= self.n - 1:
            raise ValueError(f"m must be in [1, n-1]. Found {self.m}.")
        if self.sampling == "poisson" and not 0 < self.r_poisson < 1:
            raise ValueError(f"r must be in (0, 1). Found {self.r_poisson}.")
        if self.sigma <= 0:
            raise ValueError(f"sigma must be > 0. Found {self.sigma}.")
        if self.lam <= 1:
            raise ValueError(f"lambda must be > 1. Found {self.lam}.")
        if len(self.values) != len(self.counts) or sum(self.counts) != self.n - 1 or min(self.counts) < 0:
            raise ValueError("counts must be non-negative multiplicities of values summing to n - 1.")
        d = len(self.u)
        if any(len(v) != d for v in self.values) or len(self.u_prime) != d:
            raise ValueError("values, u and u_prime must have the same dimension.")
        if self.model == "poisson" and any(x != 0 for x in self.u_prime):
            raise ValueError("u_prime must be 0 for the poisson model (add/remove).")
        if not admissible(self.model, self.points):
            raise ValueError(
                {
                    "range": "values must be within distance 1 of each other (diameter <= 1).",
                    "clip": "values must have norm <= 1/2 (clip model).",
                    "poisson": "values must have norm <= 1 (add/remove sensitivity 1).",
                }[self.model]
            )

    @property
    def sampling(self) -> str:
        return "poisson" if self.model == "poisson" else "fixed"

    @property
    def points(self) -> list[tuple[Fraction, ...]]:
        """The row values the model constrains (other rows, u, and u' for replace-one)."""
        return list(self.values) + [self.u] + ([self.u_prime] if self.sampling == "fixed" else [])

    @property
    def d(self) -> int:
        return len(self.u)

    @property
    def r(self) -> Fraction:
        return Fraction(self.m, self.n) if self.sampling == "fixed" else self.r_poisson

    def to_json(self) -> dict[str, Any]:
        def vec(v: tuple[Fraction, ...]) -> list[str]:
            return [str(x) for x in v]

        out: dict[str, Any] = {
            "model": self.model,
            "n": self.n,
            "r": str(self.r),
            "sigma": str(self.sigma),
            "lambda": str(self.lam),
            "d": self.d,
            "values": [vec(v) for v in self.values],
            "counts": list(self.counts),
            "u": vec(self.u),
        }
        if self.sampling == "fixed":
            out["m"] = self.m
            out["u_prime"] = vec(self.u_prime)
        return out

    @staticmethod
    def from_json(obj: dict[str, Any]) -> ProbeConfig:
        """Inverse of :meth:`to_json` (exact rationals from their strings).

        Raises:
            ValueError: missing or malformed fields, or a configuration the model does not admit.
        """
        try:
            model = str(obj["model"])
            d = int(obj["d"])

            def vec(v: Any) -> tuple[Fraction, ...]:
                return tuple(Fraction(str(x)) for x in v)

            values = tuple(vec(v) for v in obj["values"])
            u = vec(obj["u"])
            if model == "poisson":
                m, rp, up = 0, Fraction(str(obj["r"])), tuple(Fraction(0) for _ in range(d))
            else:
                m, rp, up = int(obj["m"]), Fraction(0), vec(obj["u_prime"])
            cfg = ProbeConfig(
                model,
                int(obj["n"]),
                m,
                rp,
                Fraction(str(obj["sigma"])),
                Fraction(str(obj["lambda"])),
                values,
                tuple(int(c) for c in obj["counts"]),
                u,
                up,
            )
        except (KeyError, TypeError, ZeroDivisionError) as exc:
            raise ValueError(f"config is malformed: {exc!r}.") from None
        if cfg.d != d or str(cfg.r) != str(Fraction(str(obj["r"]))):
            raise ValueError("config is inconsistent (d or r).")
        return cfg


# ---------------------------------------------------------------------------
# mixtures
# ---------------------------------------------------------------------------


def _count_vectors(counts: Sequence[int], total: int) -> list[tuple[int, ...]]:
    """All (c_1..c_K) with 0 <= c_k <= counts[k] and sum == total."""
    out: list[tuple[int, ...]] = []

    def rec(k: int, left: int, acc: tuple[int, ...]) -> None:
        if k == len(counts) - 1:
            if 0 <= left <= counts[k]:
                out.append((*acc, left))
            return
        for c in range(0, min(counts[k], left) + 1):
            rec(k + 1, left - c, (*acc, c))

    rec(0, total, ())
    return out


def mixtures(cfg: ProbeConfig) -> dict[str, Any]:
    r"""Exact atoms of :math:`A` and :math:`B` (module docstring).

    Returns a dict with ``A`` and ``B``: lists of (weight: Fraction, mean: tuple of Fraction),
    each list's weights summing to 1, and ``r``.
    """
    vals, cnt = cfg.values, cfg.counts
    d = cfg.d

    def mean(c: tuple[int, ...]) -> tuple[Fraction, ...]:
        return tuple(sum((ck * v[i] for ck, v in zip(c, vals, strict=False)), Fraction(0)) for i in range(d))

    if cfg.sampling == "fixed":
        A = [
            (
                Fraction(
                    math.prod(math.comb(nk, ck) for nk, ck in zip(cnt, c, strict=False)), math.comb(cfg.n - 1, cfg.m)
                ),
                mean(c),
            )
            for c in _count_vectors(cnt, cfg.m)
        ]
        B = [
            (
                Fraction(
                    math.prod(math.comb(nk, ck) for nk, ck in zip(cnt, c, strict=False)),
                    math.comb(cfg.n - 1, cfg.m - 1),
                ),
                mean(c),
            )
            for c in _count_vectors(cnt, cfg.m - 1)
        ]
    else:
        r = cfg.r_poisson
        A = []
        for c in itertools.product(*[range(nk + 1) for nk in cnt]):
            w = Fraction(1)
            for nk, ck in zip(cnt, c, strict=False):
                w *= math.comb(nk, ck) * r**ck * (1 - r) ** (nk - ck)
            A.append((w, mean(c)))
        B = A
    return {"A": A, "B": B, "r": cfg.r}


def exact_atoms(
    cfg: ProbeConfig,
) -> tuple[list[tuple[Fraction, tuple[Fraction, ...]]], list[tuple[Fraction, tuple[Fraction, ...]]]]:
    """Merged exact atoms (weight, mean) of p and q (zero weights dropped)."""
    mx = mixtures(cfg)
    r = mx["r"]
    up = cfg.u_prime
    A = [((1 - r) * w, mu) for w, mu in mx["A"] if w > 0]
    B = [(r * w, mu) for w, mu in mx["B"] if w > 0]
    return _merge(A + [(w, _vec_add(m, cfg.u)) for w, m in B]), _merge(A + [(w, _vec_add(m, up)) for w, m in B])


def _merge(atoms):
    acc: dict[Any, Fraction] = {}
    for w, m in atoms:
        acc[m] = acc.get(m, Fraction(0)) + w
    return sorted(((w, m) for m, w in acc.items() if w != 0), key=lambda t: t[1])


def _hull_basis(devs: list[tuple[Fraction, ...]], d: int) -> list[list[float]]:
    """Orthonormal float basis of the span of exact vectors ``devs``, the same on every machine.

    The rank and the spanning subset are decided in exact rationals (first independent vectors in
    order); Gram-Schmidt then runs in Python floats (correctly rounded IEEE operations), so no
    LAPACK routine (whose signs and last bits vary with the library and the CPU) chooses the axes.
    """
    chosen: list[list[Fraction]] = []
    for v in devs:
        w = list(v)
        for b in chosen:  # exact elimination against the (non-normalised) chosen vectors
            bb = sum((x * x for x in b), Fraction(0))
            c = sum((x * y for x, y in zip(w, b, strict=True)), Fraction(0)) / bb
            w = [x - c * y for x, y in zip(w, b, strict=True)]
        if any(x != 0 for x in w):
            chosen.append(w)
            if len(chosen) == d:
                break
    basis: list[list[float]] = []
    for b in chosen:
        nrm = math.sqrt(math.fsum(float(x) ** 2 for x in b))
        basis.append([float(x) / nrm for x in b])
    return basis or [[1.0] + [0.0] * (d - 1)]


def _float_mix(cfg: ProbeConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(means_p, logw_p, means_q, logw_q) as float arrays, projected on the affine hull of all atoms
    (orthonormal basis of :func:`_hull_basis`; the divergence of isotropic mixtures depends only on
    that projection).  The projection is computed exactly and rounded once, so it is the same on
    every machine."""
    pa, qa = exact_atoms(cfg)
    lp = np.array([math.log(float(w)) for w, _ in pa])
    lq = np.array([math.log(float(w)) for w, _ in qa])
    c0 = pa[0][1]
    if cfg.d == 1:
        mp = np.array([[float(m[0] - c0[0])] for _, m in pa])
        mq = np.array([[float(m[0] - c0[0])] for _, m in qa])
        return mp, lp, mq, lq
    devs = [tuple(x - y for x, y in zip(m, c0, strict=True)) for _, m in pa + qa]
    basis = _hull_basis(devs, cfg.d)

    def proj(atoms):
        return np.array(
            [[math.fsum(float(x - y) * b for x, y, b in zip(m, c0, bv, strict=True)) for bv in basis] for _, m in atoms]
        )

    return proj(pa), lp, proj(qa), lq


def _log_mix_density(y: np.ndarray, means: np.ndarray, logw: np.ndarray, sigma: float) -> np.ndarray:
    """log of sum_a w_a N(y; mu_a, sigma^2 I) at points y (shape (N, d)), up to the common constant."""
    d2 = ((y[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    return logsumexp(logw[None, :] - d2 / (2 * sigma * sigma), axis=1)


def _log_f(L: np.ndarray, lam: float) -> np.ndarray:
    r""":math:`\log f(x)`, :math:`f(x) = (1+x)^\lambda - 1 - \lambda x \ge 0`, from :math:`L = \log(1+x)`
    (float, for the screen), without cancellation: a series near :math:`x = 0` (where
    :math:`f \approx \lambda(\lambda-1)x^2/2`), :math:`\lambda L + \log(1 - (1+\lambda x)e^{-\lambda L})` where
    :math:`(1+x)^\lambda` would overflow, the direct formula elsewhere."""
    L = np.asarray(L, dtype=float)
    out = np.empty_like(L)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        x = np.expm1(np.minimum(L, 700.0))
        small = np.abs(x) < 1e-4
        big = lam * L > 700.0
        mid = ~(small | big)
        xs = x[small]
        out[small] = (
            math.log(lam * (lam - 1) / 2)
            + 2 * np.log(np.abs(xs))
            + np.log1p((lam - 2) * xs / 3 + (lam - 2) * (lam - 3) * xs * xs / 12)
        )
        xm, Lm = x[mid], L[mid]
        out[mid] = np.log(np.maximum(np.expm1(lam * Lm) - lam * xm, 1e-300))
        Lb = L[big]
        out[big] = lam * Lb + np.log1p(-np.exp(math.log(lam) + Lb - lam * Lb))
    return out


def _log_g_grid(mp, lp, mq, lq, lam: float, sigma: float, shift: float | None = None) -> float:
    r"""Float log G_lam(p || q) of two Gaussian mixtures (trapezoid; step halved until stable in 1-d).

    The sum is of :math:`q f(p/q - 1)` with :math:`f(x) = (1+x)^\lambda - 1 - \lambda x \ge 0` (the same
    integral as :math:`G - 1`, since :math:`\int p = \int q = 1`): the integrand vanishes where
    :math:`p = q`, so the quadrature error is relative to :math:`G - 1`, not to :math:`G` (at r = 1/1000,
    :math:`G - 1` is about 1e-5 and an error relative to :math:`G` was the whole signal).  The step is
    at most 1.25 sigma (the trapezoid error on a Gaussian of scale sigma is about
    :math:`e^{-2\pi^2\sigma^2/h^2}`, 3e-6 there)."""
    d = mp.shape[1]
    allm = np.vstack([mp, mq])
    spread = float(np.max(allm.max(axis=0) - allm.min(axis=0))) if len(allm) > 1 else 0.0
    # the tilted density p^lam q^(1-lam) lies between the atoms and at most about lam * shift beyond
    # them, shift the largest distance between paired atoms of p and q (at most the spread)
    shift = spread if shift is None else shift
    pad = (9 if d == 1 else 7) * sigma + lam * max(min(shift, spread), 1e-3)
    lo = allm.min(axis=0) - pad
    hi = allm.max(axis=0) + pad
    h = sigma / (3.0 if d == 1 else 2.0)
    if d > 1:
        cap = 2e6 / max(len(mp) + len(mq), 1)
        cells = float(np.prod((hi - lo) / h))
        if cells > cap:
            h = min(h * (cells / cap) ** (1.0 / d), 1.25 * sigma)
    prev = None
    for _ in range(6 if d == 1 else 1):
        axes = [np.arange(lo[i], hi[i] + h, h) for i in range(d)]
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d)
        lpd = _log_mix_density(grid, mp, lp, sigma)
        lqd = _log_mix_density(grid, mq, lq, sigma)
        terms = lqd + _log_f(lpd - lqd, lam)
        log_gm1 = logsumexp(terms) + d * math.log(h) - d * 0.5 * math.log(2 * math.pi * sigma * sigma)
        val = float(np.log1p(np.exp(log_gm1))) if log_gm1 < 30 else log_gm1 + math.log1p(math.exp(-log_gm1))
        if prev is not None and abs(val - prev) <= 1e-9 * max(abs(val), 1e-300):
            return val
        prev = val
        h /= 2
    assert prev is not None  # the loop above runs at least once
    return float(prev)


def _log_g_rhs_float(lam: float, r: float, sigma: float) -> float:
    rm_p = np.array([[0.0], [1.0]])
    rl_p = np.array([math.log1p(-r), math.log(r)])
    return _log_g_grid(rm_p, rl_p, np.zeros((1, 1)), np.zeros(1), lam, sigma)


def screen_ratio(cfg: ProbeConfig) -> dict[str, float]:
    r"""Float estimates of :math:`\log G_\lambda` of both sides and of the ratio of the
    divergences (screening only).  Both sides use the same quadrature, so configurations
    that equal the right-hand side come out at ratio 1 up to rounding."""
    mp, lp, mq, lq = _float_mix(cfg)
    lam, s, r = float(cfg.lam), float(cfg.sigma), float(cfg.r)
    shift = float(_sq(cfg.u, cfg.u_prime)) ** 0.5
    lhs = _round_sig(_log_g_grid(mp, lp, mq, lq, lam, s, shift))
    rhs = _round_sig(_log_g_rhs_float(lam, r, s))
    return {"log_g_lhs": lhs, "log_g_rhs": rhs, "ratio": _round_sig(lhs / rhs) if rhs > 0 else math.inf}


SCREEN_DIGITS = 9


def _round_sig(x: float, digits: int = SCREEN_DIGITS) -> float:
    """``x`` rounded to ``digits`` significant decimal digits.

    The screen's last bits depend on the machine (numpy's vectorised ``exp``/``log`` differ by an ulp
    or two between CPU instruction sets; summation order); every value that selects a candidate
    is rounded first, so the search takes the same path everywhere (a flip needs a value within an
    ulp of a rounding boundary, about one chance in 10^6 per comparison).  The screen is an estimate
    accurate to about 1e-9 in 1-d and less in d >= 2, so no information is lost."""
    if not math.isfinite(x) or x == 0:
        return x
    return float(f"{x:.{digits}g}")


def limit_ratio_r0(a: Sequence[float], b: Sequence[float], sigma: float) -> float:
    r"""Leading-order ratio as :math:`r \to 0` for ``m = 1`` and the other rows at one point ``c``:
    :math:`(e^{|a|^2x} + e^{|b|^2x} - 2e^{\langle a,b\rangle x})/(e^x - 1)`, :math:`a = u - c`,
    :math:`b = u' - c`, :math:`x = \sigma^{-2}` (derived in ``proofs/verify_conjecture_limits.py``:
    :math:`D_\lambda = \tfrac{\lambda}{2} r^2 \chi^2 + O(r^3)` for every :math:`\lambda`, and
    :math:`\int \varphi_a\varphi_b/\varphi_0 = e^{\langle a,b\rangle/\sigma^2}`).  Float value."""
    x = 1.0 / (sigma * sigma)
    aa = sum(t * t for t in a)
    bb = sum(t * t for t in b)
    ab = sum(s * t for s, t in zip(a, b, strict=False))
    num = math.exp(aa * x) + math.exp(bb * x) - 2 * math.exp(ab * x)
    return num / math.expm1(x)


# ---------------------------------------------------------------------------
# certification: 1-d enclosure of the LHS
# ---------------------------------------------------------------------------


def _phi_bar(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


def tail_bounds(L: arb, U: arb, lam: arb, sigma: arb, p_atoms, q_atoms) -> arb:
    r"""Proven bound on :math:`\int_{\mathbb R\setminus[L,U]} q\,f(p/q-1)` for 1-d Gaussian mixtures.

    ``p_atoms``, ``q_atoms``: lists of (weight ball, mean ball), weights summing to 1, common
    :math:`\sigma`.  Requires :math:`U \ge \max(\mu_{\max}, \nu_{\max})` and
    :math:`L \le \min(\mu_{\min},\nu_{\min})` (checked).  Derivation: for :math:`x \ge -1`,
    :math:`f(x) \le (1+x)^\lambda + \lambda - 1`, so the tail integrand is at most
    :math:`p^\lambda q^{1-\lambda} + (\lambda-1)q`.  For :math:`y \ge \mu_{\max}` every
    component of :math:`p` is at most :math:`\varphi_\sigma(y-\mu_{\max})`, and
    :math:`q \ge \beta\,\varphi_\sigma(y-\nu_{\max})` (:math:`\beta` the weight at
    :math:`\nu_{\max}`); as :math:`1-\lambda<0`,

    .. math:: \int_U^\infty p^\lambda q^{1-\lambda} \le \beta^{1-\lambda}
              e^{\lambda(\lambda-1)(\mu_{\max}-\nu_{\max})^2/(2\sigma^2)}
              \bar\Phi\Big(\frac{U - \lambda\mu_{\max} - (1-\lambda)\nu_{\max}}{\sigma}\Big)

    (complete the square), and :math:`\int_U^\infty q \le \bar\Phi((U-\nu_{\max})/\sigma)`.
    The lower tail is the mirror image.
    """

    def side(mu_ext: arb, nu_ext: arb, beta: arb, edge: arb, sign: int) -> arb:
        c = lam * mu_ext + (1 - lam) * nu_ext
        main = (
            (1 - lam) * beta.log() + lam * (lam - 1) * (mu_ext - nu_ext) ** 2 / (2 * sigma * sigma)
        ).exp() * _phi_bar(sign * (edge - c) / sigma)
        return main + (lam - 1) * _phi_bar(sign * (edge - nu_ext) / sigma)

    mus = [m for _, m in p_atoms]
    nus = [m for _, m in q_atoms]
    mu_max = max(mus, key=lambda x: x.mid())
    nu_max = max(nus, key=lambda x: x.mid())
    mu_min = min(mus, key=lambda x: x.mid())
    nu_min = min(nus, key=lambda x: x.mid())
    if not (mu_max <= U and nu_max <= U and mu_min >= L and nu_min >= L):
        raise ValueError("window must contain all atoms")
    b_hi = sum((w for w, m in q_atoms if m.mid() == nu_max.mid()), arb(0))
    b_lo = sum((w for w, m in q_atoms if m.mid() == nu_min.mid()), arb(0))
    return side(mu_max, nu_max, b_hi, U, 1) + side(mu_min, nu_min, b_lo, L, -1)


def _exact_atoms_1d(cfg: ProbeConfig):
    mx = mixtures(cfg)
    r = mx["r"]
    u = cfg.u[0]
    up = cfg.u_prime[0] if cfg.sampling == "fixed" else Fraction(0)
    A = [((1 - r) * w, mu[0]) for w, mu in mx["A"] if w > 0]
    B = [(r * w, mu[0]) for w, mu in mx["B"] if w > 0]
    return A, B, u, up


def _plan_window(p_atoms, q_atoms, lam: float, sigma: float, log_tol: float) -> tuple[float, float]:
    """Window [L, U] on which the float value of :func:`tail_bounds` is below exp(log_tol) (planning only;
    the certified tail bound is recomputed for whatever window results)."""

    def side(mu: float, nu: float, beta: float, sign: int) -> float:
        c = lam * mu + (1 - lam) * nu
        log_fac = (1 - lam) * math.log(beta) + lam * (lam - 1) * (mu - nu) ** 2 / (2 * sigma * sigma)
        # Phi-bar(x) <= exp(-x^2/2) / 2: need x^2/2 >= log_fac - log_tol + log 4 (half the budget each)
        x1 = math.sqrt(2 * max(0.0, log_fac - log_tol + math.log(4.0)))
        x2 = math.sqrt(2 * max(0.0, math.log(max(lam - 1, 1e-300)) - log_tol + math.log(4.0)))
        edge = max(sign * c + sigma * x1, sign * nu + sigma * x2, sign * mu, sign * nu)
        return sign * edge

    mus = [float(m) for _, m in p_atoms]
    nus = [float(m) for _, m in q_atoms]
    mu_max, nu_max, mu_min, nu_min = max(mus), max(nus), min(mus), min(nus)
    b_hi = sum(float(w) for w, m in q_atoms if float(m) == nu_max)
    b_lo = sum(float(w) for w, m in q_atoms if float(m) == nu_min)
    U = side(mu_max, nu_max, b_hi, 1)
    L = side(mu_min, nu_min, b_lo, -1)
    return float(math.floor(L)), float(math.ceil(U))


def _log_g_lhs_certified(cfg: ProbeConfig, prec: int, log_i_est: float) -> arb:
    r"""Ball for :math:`\log G_\lambda(p\|q)` (1-d), module docstring."""
    A, B, u, up = _exact_atoms_1d(cfg)
    p_atoms = _merge(A + [(w, m + u) for w, m in B])
    q_atoms = _merge(A + [(w, m + up) for w, m in B])
    d_atoms = _merge([(w, m + u) for w, m in B] + [(-w, m + up) for w, m in B])  # p - q
    d_atoms = [(w, m) for w, m in d_atoms if w != 0]
    s = to_arb(cfg.sigma)
    lam = to_arb(cfg.lam)
    inv2s2 = 1 / (2 * s * s)
    norm = 1 / (2 * arb.pi() * s * s).sqrt()
    pa = [(to_arb(w), to_arb(m)) for w, m in p_atoms]
    qa = [(to_arb(w), to_arb(m)) for w, m in q_atoms]
    da = [(acb(to_arb(w)), acb(to_arb(m))) for w, m in d_atoms]
    qac = [(acb(w), acb(m)) for w, m in qa]
    pac = [(acb(w), acb(m)) for w, m in pa]
    lam_c = acb(lam)
    # window: float planning only; tails are proven for whatever window is used
    fl = float(cfg.lam)
    fs = float(cfg.sigma)
    l_float, u_float = _plan_window(p_atoms, q_atoms, fl, fs, log_i_est - prec * math.log(2.0) - math.log(8.0))
    L, U = arb(l_float), arb(u_float)
    tails = tail_bounds(L, U, lam, s, pa, qa)

    def integrand(z: acb, analytic: bool) -> acb:
        qz = acb(0)
        for w, m in qac:
            t = z - m
            qz += w * (-(t * t) * inv2s2).exp()
        dz = acb(0)
        for w, m in da:
            t = z - m
            dz += w * (-(t * t) * inv2s2).exp()
        if analytic and not (qz.real > 0):
            return acb(arb.nan())
        pz = acb(0)
        for w, m in pac:
            t = z - m
            pz += w * (-(t * t) * inv2s2).exp()
        x = dz / qz
        base = pz / qz  # = 1 + x, computed without cancellation where p << q
        if analytic and not (base.real > 0):
            return acb(arb.nan())
        f = (lam_c * base.log(analytic=analytic)).expm1() - lam_c * x
        return qz * f * norm

    # break points: pieces of width about 2 sigma (the tilted density has scale sigma), at most 400
    n_pieces = int(min(400, max(16, math.ceil((float(U.mid()) - float(L.mid())) / (2 * fs)))))
    pts = sorted({float(x) for x in np.linspace(float(L.mid()), float(U.mid()), n_pieces + 1)})
    abs_tol = (arb(log_i_est) - prec * arb(2).log()).exp()
    total = acb(0)
    for a, b in itertools.pairwise(pts):
        # python floats convert to arb exactly (numpy scalars would go through a decimal string)
        total += acb.integral(integrand, arb(float(a)), arb(float(b)), rel_tol=arb(2) ** (-prec), abs_tol=abs_tol)
    i_ball = arb(total.real.lower()).union(arb(total.real.upper() + tails.upper()))
    if not (i_ball > -1):
        return arb.nan()
    return i_ball.log1p()


def _refine_or_last(func, digits: float, what: str) -> Certified:
    """:func:`refine`, falling back to the last (valid, wider) enclosure when the relative
    width cannot be reached (values at or near 0); the verdict only needs an enclosure."""
    try:
        return refine(func, digits, max_prec=512, what=what)
    except PrecisionExhausted as exc:
        if exc.last is None:
            raise
        return Certified(exc.last, exc.prec or 512)


# ---------------------------------------------------------------------------
# certification in every dimension
# ---------------------------------------------------------------------------


def _phi_cdf(x: arb) -> arb:
    return (-x / arb(2).sqrt()).erfc() / 2


def cell_plan(cfg: ProbeConfig, per_sigma: int) -> tuple[list[Fraction | None], list[Fraction | None], Fraction]:
    """Box [lo, hi] (per axis) and cell width h = sigma / per_sigma (exact rationals)."""
    pa, qa = exact_atoms(cfg)
    means = [m for _, m in pa] + [m for _, m in qa]
    shift = float(_sq(cfg.u, cfg.u_prime)) ** 0.5  # largest distance between paired atoms of p and q
    pad = _qz(7 * float(cfg.sigma) + float(cfg.lam) * max(shift, 0.01), Fraction(1, 16)) + Fraction(1, 16)
    # an axis on which all atoms agree carries an independent N(c, sigma^2) coordinate with the same
    # law under p and q: it gets a single cell (the whole line; lo = hi = None)
    lo: list[Fraction | None] = []
    hi: list[Fraction | None] = []
    for k in range(cfg.d):
        a, b = min(m[k] for m in means), max(m[k] for m in means)
        lo.append(None if a == b and cfg.d > 1 else a - pad)
        hi.append(None if a == b and cfg.d > 1 else b + pad)
    if all(x is None for x in lo):
        lo[0], hi[0] = means[0][0] - pad, means[0][0] + pad
    return lo, hi, cfg.sigma / per_sigma


def cell_count(cfg: ProbeConfig, per_sigma: int) -> int:
    """Number of cubes used by :func:`lhs_lower_cells` at ``per_sigma``."""
    lo, hi, h = cell_plan(cfg, per_sigma)
    # lo[k] and hi[k] are None together (an axis without cuts)
    return math.prod(math.ceil((b - a) / h) for a, b in zip(lo, hi, strict=False) if a is not None and b is not None)


def lhs_lower_cells(cfg: ProbeConfig, per_sigma: int = 8, prec: int = 96, max_work: int = 3_000_000) -> arb:
    r"""Certified lower bound (a ball whose lower end is the bound) of :math:`D_\lambda(p\|q)` in any dimension.

    The cells of a partition of :math:`\mathbb R^d` -- the cubes of side :math:`h = \sigma/`
    ``per_sigma`` of a box around the atoms, and the complement of the box -- are a function of the
    output, so :math:`D_\lambda(P\|Q) \le D_\lambda(p\|q)` for the cell laws :math:`P, Q` (data
    processing inequality for Rényi divergences, van Erven-Harremoës 2014, Thm 9).  For an
    isotropic Gaussian a cube's probability is the product of the axis interval probabilities,
    so :math:`P, Q` are computed in ball arithmetic; terms whose ball contains 0 are dropped (each term
    of :math:`\sum_c P_c^\lambda Q_c^{1-\lambda}` is :math:`\ge 0`, so dropping keeps a lower bound).
    Returns ``arb`` with lower end the certified bound (0 if nothing better is proven).
    """
    pa, qa = exact_atoms(cfg)
    lo, hi, h = cell_plan(cfg, per_sigma)
    if cell_count(cfg, per_sigma) * (len(pa) + len(qa)) > max_work:
        raise ValueError(f"per_sigma = {per_sigma} needs more than {max_work} cell-atom evaluations.")
    with workprec(prec):
        s = to_arb(cfg.sigma)
        lam = to_arb(cfg.lam)
        cuts: list[list[Fraction] | None] = []
        for k in range(cfg.d):
            lo_k, hi_k = lo[k], hi[k]
            if lo_k is None or hi_k is None:  # None together (an axis without cuts)
                cuts.append(None)
                continue
            nk = math.ceil((hi_k - lo_k) / h)
            cuts.append([lo_k + i * h for i in range(nk + 1)])

        def axis_probs(atoms):
            out = []
            for w, m in atoms:
                per_axis = []
                box = arb(1)
                for k in range(cfg.d):
                    cuts_k = cuts[k]
                    if cuts_k is None:
                        per_axis.append([arb(1)])
                        continue
                    mu = m[k]
                    cdf = [_phi_cdf(to_arb(t - mu) / s) for t in cuts_k]
                    # interval probabilities without cancellation: upper tail form right of the mean
                    sf = [_phi_cdf(to_arb(mu - t) / s) for t in cuts_k]
                    probs = []
                    for i in range(len(cuts_k) - 1):
                        if cuts_k[i] >= mu:
                            probs.append(sf[i] - sf[i + 1])
                        else:
                            probs.append(cdf[i + 1] - cdf[i])
                    per_axis.append(probs)
                    box *= cdf[-1] - cdf[0]
                out.append((to_arb(w), per_axis, box))
            return out

        def cell_masses(ap):
            shape = [1 if c is None else len(c) - 1 for c in cuts]
            total = [arb(0)] * math.prod(shape)
            inside = arb(0)
            for w, per_axis, box in ap:
                inside += w * box
                for idx, combo in enumerate(itertools.product(*per_axis)):
                    v = w
                    for x in combo:
                        v *= x
                    total[idx] += v
            return total, 1 - inside

        P, p_out = cell_masses(axis_probs(pa))
        Qm, q_out = cell_masses(axis_probs(qa))
        acc = arb(0)
        for a, b in zip([*P, p_out], [*Qm, q_out], strict=False):
            if a > 0 and b > 0:
                acc += (lam * a.log() - (lam - 1) * b.log()).exp()
        if not acc > 1:
            return arb(0)
        return arb(acc.lower()).log() / (lam - 1)


def lhs_upper_pairing(cfg: ProbeConfig, prec: int = 96) -> arb:
    r"""Certified upper bound of :math:`D_\lambda(p\|q)`, any dimension (loose).

    Pair each atom of :math:`(1-r)A` with itself and each atom :math:`B*\delta_u` with the same atom of
    :math:`B*\delta_{u'}`; joint convexity of :math:`G_\lambda` (Claim 25, eq. (8)) and Example 1 give
    :math:`G_\lambda(p\|q) \le 1 - r + r\,e^{\lambda(\lambda-1)|u-u'|^2/(2\sigma^2)}` (the bound of
    Claim 24).  Returns the ball of that bound on the divergence.
    """
    with workprec(prec):
        lam, r, s = to_arb(cfg.lam), to_arb(cfg.r), to_arb(cfg.sigma)
        e = lam * (lam - 1) * to_arb(_sq(cfg.u, cfg.u_prime)) / (2 * s * s)
        return (r * e.expm1()).log1p() / (lam - 1)


def is_rhs_pair(cfg: ProbeConfig) -> bool:
    r"""True when (p, q) is exactly the right-hand-side pair up to an isometry:
    q a single Gaussian and p = (1-r) q + r (q shifted by a vector of length 1).  Then LHS = RHS
    exactly (Rényi divergence is invariant under isometries)."""
    p_atoms, q_atoms = exact_atoms(cfg)
    if len(q_atoms) != 1:
        return False
    c = q_atoms[0][1]
    r = cfg.r
    shifted = [(w, m) for w, m in p_atoms if m != c]
    same = [(w, m) for w, m in p_atoms if m == c]
    return (
        len(shifted) == 1
        and _sq(shifted[0][1], c) == 1
        and shifted[0][0] == r
        and (r == 1 or (len(same) == 1 and same[0][0] == 1 - r))
    )


def rhs_certified(cfg: ProbeConfig, digits: float = 8) -> Certified:
    """Certified enclosure of the right-hand side divergence (1-d in every dimension)."""
    lam = cfg.lam
    return _refine_or_last(
        lambda p: log_g_mixture(lam, cfg.r, cfg.sigma, p) / (to_arb(lam) - 1), digits, "Conjecture 1 RHS"
    )


def certify_violation(
    cfg: ProbeConfig, *, max_per_sigma: int = 32, max_work: int = 3_000_000, refine_work: int = 0
) -> dict[str, Any]:
    r"""Try to prove LHS > RHS: certified cell lower bound of the LHS (:func:`lhs_lower_cells`, cells
    refined 4, 8, 16, ... per sigma) over the certified upper end of the RHS.

    The refinement stops at the first proof, or, with ``refine_work > 0``, goes on (a tighter lower
    bound) while the next partition needs at most ``refine_work`` cell-atom evaluations; it never
    goes past ``max_per_sigma`` or ``max_work``.  Work, not time, bounds it: the result is the same on
    every machine.  Returns ``proven`` (bool), ``per_sigma``, ``lhs_lower``, ``rhs`` and
    ``ratio_lower`` (balls)."""
    R = rhs_certified(cfg)
    k = 4
    with workprec(96):
        best: dict[str, Any] = {"proven": False, "per_sigma": 0, "lhs_lower": arb(0), "rhs": R, "ratio_lower": arb(0)}
    pa, qa = exact_atoms(cfg)
    while k <= max_per_sigma:
        work = cell_count(cfg, k) * (len(pa) + len(qa))
        if work > max_work or (best["proven"] and work > refine_work):
            break
        low = lhs_lower_cells(cfg, per_sigma=k, max_work=max_work)
        with workprec(96):
            ratio_lo = arb(low.lower()) / arb(R.ball.upper()) if R.ball > 0 else arb(0)
        if not (best["proven"] and ratio_lo.lower() <= best["ratio_lower"].lower()):
            best = {"proven": bool(ratio_lo > 1), "per_sigma": k, "lhs_lower": low, "rhs": R, "ratio_lower": ratio_lo}
        if best["proven"] and refine_work <= 0:
            break
        k *= 2
    return best


def certify_config(cfg: ProbeConfig, digits: float = 6) -> dict[str, Any]:
    r"""Certified enclosures of both sides and of the ratio, any dimension.

    1-d: the LHS enclosure of :func:`_log_g_lhs_certified` (relative width ``10^-digits`` where
    reachable).  d >= 2: the LHS lies in [:func:`lhs_lower_cells`, :func:`lhs_upper_pairing`] (both
    proven; the upper end is loose).  Returns a dict with ``lhs``, ``rhs``, ``ratio`` (Certified of the
    Rényi divergences and their quotient), ``verdict`` (``"equal"`` for the right-hand-side pair
    itself, ``"holds"`` if LHS <= RHS is proven, ``"violated"`` if LHS > RHS is proven, else
    ``"undecided"``) and ``seconds``.
    """
    t0 = time.perf_counter()
    lam = cfg.lam
    R = rhs_certified(cfg, digits)
    p_atoms, q_atoms = exact_atoms(cfg)
    if p_atoms == q_atoms:
        L = Certified(arb(0), 64)  # p == q: the divergence is exactly 0
    elif cfg.d == 1:
        sc = screen_ratio(cfg)
        est = sc["log_g_lhs"]
        log_i_est = math.log(math.expm1(est)) if 1e-300 < est < 700 else (est if est >= 700 else -690.0)
        L = _refine_or_last(
            lambda prec: _log_g_lhs_certified(cfg, prec, log_i_est) / (to_arb(lam) - 1), digits, "Conjecture 1 LHS"
        )
    else:
        v = certify_violation(cfg, max_per_sigma=16, max_work=1_000_000)
        with workprec(96):
            up = lhs_upper_pairing(cfg)
            L = Certified(arb(v["lhs_lower"].lower()).union(arb(up.upper())), 96)
    with workprec(max(L.prec, R.prec)) as p:
        ratio = L.ball / R.ball
        if not ratio.lower() > 0 and L.ball >= 0 and R.ball > 0:
            ratio = arb(0).union(arb(ratio.upper()))  # a quotient of non-negative numbers
    if is_rhs_pair(cfg):
        verdict = "equal"  # exact equality by invariance; the balls overlap by necessity
    elif L.ball <= R.ball:
        verdict = "holds"
    elif L.ball > R.ball:
        verdict = "violated"
    else:
        verdict = "undecided"
    return {"lhs": L, "rhs": R, "ratio": Certified(ratio, p), "verdict": verdict, "seconds": time.perf_counter() - t0}


# ---------------------------------------------------------------------------
# search
# ---------------------------------------------------------------------------


def _project(model: str, pts: list[np.ndarray], d: int) -> list[tuple[Fraction, ...]] | None:
    """Map float points onto the model's admissible set and to exact grid rationals.

    ``range``: shrink about the centroid so that the diameter is at most 1 (scale 1/diameter, less a
    margin for the rounding to the grid); ``clip``/``poisson``: pull each point outside the ball of
    radius 1/2 (resp. 1) radially onto it.  The result is checked exactly (:func:`admissible`); the
    margin is shrunk further until it passes.
    """
    arr = np.array(pts, dtype=float).reshape(len(pts), d)
    margin = 4 * float(Q) * math.sqrt(d)
    for _ in range(20):
        if model == "range":
            c = arr.mean(axis=0)
            diam = max((float(np.linalg.norm(a - b)) for a, b in itertools.combinations(arr, 2)), default=0.0)
            out = arr if diam <= 1 - margin else c + (arr - c) * ((1 - margin) / max(diam, 1e-300))
        else:
            R = 0.5 if model == "clip" else 1.0
            nrm = np.linalg.norm(arr, axis=1, keepdims=True)
            out = np.where(nrm > R - margin, arr * ((R - margin) / np.maximum(nrm, 1e-300)), arr)
        ex = [tuple(_qz(float(x)) for x in row) for row in out]
        if admissible(model, ex):
            return ex
        margin *= 2
    return None


def _random_points(rng: np.random.Generator, model: str, d: int, k: int) -> list[np.ndarray]:
    """``k`` random points, often on the boundary of the admissible set (extreme points matter)."""
    if model == "range":
        pts = [rng.normal(size=d) for _ in range(k)]
        if d > 1 and rng.random() < 0.3:  # vertices of a regular simplex of side 1 (jittered), repeated
            e = np.eye(d + 1) - 1.0 / (d + 1)  # d+1 points of side sqrt 2 in a hyperplane of R^(d+1)
            simplex = (e @ np.linalg.svd(e)[2][:d].T) / math.sqrt(2)
            pts = [simplex[int(rng.integers(0, d + 1))] + rng.normal(0, 0.02, size=d) for _ in range(k)]
            return pts
        if rng.random() < 0.7:  # scale to diameter exactly 1
            diam = max((np.linalg.norm(a - b) for a, b in itertools.combinations(pts, 2)), default=1.0)
            pts = [p / max(diam, 1e-12) for p in pts]
        else:
            pts = [p * rng.uniform(0.05, 0.5) for p in pts]
        return pts
    R = 0.5 if model == "clip" else 1.0
    out = []
    for _ in range(k):
        v = rng.normal(size=d)
        v /= max(float(np.linalg.norm(v)), 1e-12)
        out.append(v * R * (1.0 if rng.random() < 0.6 else rng.random() ** (1.0 / d)))
    return out


def _n_atoms(cfg: ProbeConfig) -> int:
    if cfg.sampling == "fixed":
        return len(_count_vectors(cfg.counts, cfg.m)) + len(_count_vectors(cfg.counts, cfg.m - 1))
    return math.prod(c + 1 for c in cfg.counts)


def _atom_cap(d: int) -> int:
    return 400 if d == 1 else (60 if d == 2 else 30)


def _random_sigma_lam(rng: np.random.Generator, d: int) -> tuple[Fraction, Fraction]:
    sigma = max(Fraction(1, 4), _qz(math.exp(rng.uniform(math.log(0.4), math.log(6.0))), Fraction(1, 64)))
    lmax = lam_max(d)
    u = rng.random()
    if u < 0.45:
        lam = Fraction(int(rng.integers(2, lmax + 1)))
    elif u < 0.55:
        lam = Fraction(1) + _qz(math.exp(rng.uniform(math.log(0.01), math.log(0.5))), Fraction(1, 128))  # lambda -> 1
        lam = max(lam, Fraction(129, 128))
    else:
        lam = max(Fraction(9, 8), _qz(rng.uniform(1.1, lmax), Fraction(1, 8)))
    return sigma, lam


def random_config(rng: np.random.Generator, model: str = "range", d: int = 1, *, _depth: int = 0) -> ProbeConfig:
    """A random admissible configuration of ``model`` in dimension ``d`` (values on the 1/1024 grid,
    sigma on 1/64, lambda on 1/8 or near 1; ``n`` log-uniform up to 1000, so small ``r`` is reached)."""
    if model not in MODELS:
        raise ValueError(f"model must be one of range, clip, poisson. Found {model!r}.")
    if d not in DIMS:
        raise ValueError(f"dim must be 1, 2 or 3. Found {d}.")
    sigma, lam = _random_sigma_lam(rng, d)
    K = int(rng.integers(1, 4))
    n = max(2, round(math.exp(rng.uniform(math.log(2), math.log(1000)))))
    if model == "poisson":
        n = min(n, 16 if K > 1 else 60)
        m, r_p = (
            0,
            max(Fraction(1, 1000), _qz(math.exp(rng.uniform(math.log(1e-3), math.log(0.99))), Fraction(1, 1000))),
        )
        K = min(K, n - 1)
    else:
        m = int(min(n - 1, max(1, round(math.exp(rng.uniform(0, math.log(8)))))))
        r_p = Fraction(0)
        K = min(K, n - 1)
    counts = _random_counts(rng, n - 1, K)
    pts = _project(model, _random_points(rng, model, d, K + 2), d)
    if pts is None or _depth > 50:
        raise RuntimeError("could not sample an admissible configuration")
    vals, u, up = tuple(pts[:K]), pts[K], pts[K + 1]
    if model == "poisson":
        up = tuple(Fraction(0) for _ in range(d))
    cfg = ProbeConfig(model, n, m, r_p, sigma, lam, vals, counts, u, up)
    if _n_atoms(cfg) > _atom_cap(d):
        return random_config(rng, model, d, _depth=_depth + 1)
    return cfg


def _random_counts(rng: np.random.Generator, total: int, K: int) -> tuple[int, ...]:
    cuts = sorted(int(x) for x in rng.integers(0, total + 1, size=K - 1))
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=False)]
    return tuple(parts)


def _perturb(cfg: ProbeConfig, rng: np.random.Generator, scale: float) -> ProbeConfig | None:
    """A random local move (row values, counts, n, m, r, sigma, lambda), projected back onto the
    admissible set (:func:`_project`); None if the move is invalid."""
    which = int(rng.integers(0, 8))
    d = cfg.d
    try:
        if which <= 2:  # move the row values
            pts = [np.array([float(x) for x in p]) for p in cfg.points]
            k = int(rng.integers(0, len(pts))) if which < 2 else None
            for i in range(len(pts)):
                if k is None or i == k:
                    pts[i] = pts[i] + rng.normal(0, scale, size=d)
            ex = _project(cfg.model, pts, d)
            if ex is None:
                return None
            K = len(cfg.values)
            up = ex[K + 1] if cfg.sampling == "fixed" else cfg.u_prime
            return replace(cfg, values=tuple(ex[:K]), u=ex[K], u_prime=up)
        if which == 3:  # counts
            counts = list(cfg.counts)
            if len(counts) < 2:
                return None
            i, j = rng.choice(len(counts), size=2, replace=False)
            step = int(rng.integers(1, 3))
            if counts[i] < step:
                return None
            counts[i] -= step
            counts[j] += step
            return replace(cfg, counts=tuple(counts))
        if which == 4:  # sigma
            s = _qz(float(cfg.sigma) * math.exp(rng.normal(0, scale)), Fraction(1, 256))
            return replace(cfg, sigma=min(max(s, SIGMA_MIN), SIGMA_MAX))
        if which == 5:  # lambda
            lam = Fraction(1) + _qz((float(cfg.lam) - 1) * math.exp(rng.normal(0, 2 * scale)), Fraction(1, 256))
            return replace(cfg, lam=min(max(lam, Fraction(257, 256)), Fraction(lam_max(d))))
        if which == 6:  # n (rows), keeping the other rows' values; r = m/n or r for Poisson
            if cfg.sampling == "poisson":
                r = _qz(float(cfg.r_poisson) * math.exp(rng.normal(0, scale)), Fraction(1, 10000))
                return replace(cfg, r_poisson=min(max(r, R_MIN), Fraction(9999, 10000)))
            dn = round(cfg.n * (math.exp(rng.normal(0, scale)) - 1)) or int(rng.choice([-1, 1]))
            counts = list(cfg.counts)
            i = int(rng.integers(0, len(counts)))
            if counts[i] + dn < 0 or cfg.n + dn <= cfg.m or cfg.n + dn > N_MAX:
                return None
            counts[i] += dn
            return replace(cfg, n=cfg.n + dn, counts=tuple(counts))
        if cfg.sampling == "poisson":
            return None
        m = cfg.m + int(rng.choice([-1, 1]))  # batch size
        return replace(cfg, m=m) if m <= M_MAX else None
    except ValueError:
        return None


def _continue_param(cfg: ProbeConfig, param: str, direction: int, step: float) -> ProbeConfig | None:
    """``cfg`` with one parameter moved by the factor ``(1 + step) ** direction`` (sigma, the rows
    ``n`` (so r = m/n), the Poisson rate, or lambda - 1), clamped to the search box; None if the
    move leaves the box or the model."""
    f = (1 + step) ** direction
    try:
        if param == "sigma":
            s = min(max(_qz(float(cfg.sigma) * f, Fraction(1, 256)), SIGMA_MIN), SIGMA_MAX)
            return None if s == cfg.sigma else replace(cfg, sigma=s)
        if param == "lambda":
            lam = Fraction(1) + _qz((float(cfg.lam) - 1) * f, Fraction(1, 256))
            lam = min(max(lam, Fraction(257, 256)), Fraction(lam_max(cfg.d)))
            return None if lam == cfg.lam else replace(cfg, lam=lam)
        if cfg.sampling == "poisson":  # the rate: r down is the r -> 0 direction
            r = min(max(_qz(float(cfg.r_poisson) / f, Fraction(1, 10000)), R_MIN), Fraction(9999, 10000))
            return None if r == cfg.r_poisson else replace(cfg, r_poisson=r)
        n = min(max(round(cfg.n * f), cfg.m + 1), N_MAX)
        dn = n - cfg.n
        counts = list(cfg.counts)
        k = max(range(len(counts)), key=lambda j: (counts[j], -j))  # the largest cluster grows or shrinks
        if dn == 0 or counts[k] + dn < 0:
            return None
        counts[k] += dn
        return replace(cfg, n=n, counts=tuple(counts))
    except ValueError:
        return None


def _screen_ok(cfg: ProbeConfig | None) -> bool:
    return cfg is not None and _n_atoms(cfg) <= _atom_cap(cfg.d)


def optimise_config(
    cfg: ProbeConfig, rng: np.random.Generator, steps: int = 12, *, continuation: int = 3
) -> tuple[ProbeConfig, dict[str, float], int]:
    """Local optimisation of the screened ratio, then continuation.

    First ``steps`` random-direction moves over the whole admissible set (accepted when the screened
    ratio increases; the step scale shrinks on failure).  Then continuation in sigma, r and lambda:
    for each parameter and direction, steps of growing size (factor 1.1, 1.2, 1.4, ...) while the ratio
    increases, at most ``continuation`` accepted steps each.  Returns the best configuration, its
    screen and the number of screens evaluated."""
    best, bs = cfg, screen_ratio(cfg)
    screens = 1
    scale = 0.2
    for _ in range(steps):
        cand = _perturb(best, rng, scale)
        if cand is None or not _screen_ok(cand):
            continue
        cs = screen_ratio(cand)
        screens += 1
        if cs["ratio"] > bs["ratio"]:
            best, bs = cand, cs
        else:
            scale = max(0.01, scale * 0.85)
    if continuation > 0:
        params = ("sigma", "rows", "lambda")
        for param in params:
            for direction in (-1, 1):
                step = 0.1
                for _ in range(continuation):
                    cand = _continue_param(best, param, direction, step)
                    if cand is None or not _screen_ok(cand):
                        break
                    cs = screen_ratio(cand)
                    screens += 1
                    if not cs["ratio"] > bs["ratio"]:
                        break
                    best, bs = cand, cs
                    step *= 2
    return best, bs, screens


def _grid_vec(x: Sequence[float], d: int) -> tuple[Fraction, ...]:
    v = [_qz(t) for t in x] + [Fraction(0)] * d
    return tuple(v[:d])


def _simplex(d: int) -> list[tuple[Fraction, ...]]:
    """Vertices of a regular simplex in R^d (d + 1 of them) with side at most 1, on the 1/1024 grid
    (the exact constraint is checked by the caller)."""
    if d == 1:
        return [(Fraction(0),), (Fraction(1),)]
    h = Fraction(886, 1024)  # sqrt(3)/2 rounded down: sides 1, 1, 0.9993
    tri = [(0.0, 0.0), (1.0, 0.0), (0.5, float(h))]
    if d == 2:
        return [_grid_vec(p, 2) for p in tri]
    # regular tetrahedron: the triangle and the apex above its centroid at height sqrt(2/3)
    apex = (0.5, float(h) / 3, math.sqrt(2 / 3) - 2 * float(Q))
    return [_grid_vec(p, 3) for p in [*tri, apex]]


def structured_configs(model: str, d: int) -> list[ProbeConfig]:
    r"""The structured starts of the search: the configurations where the theory puts the extremes.

    * **point + 1**: every other row at one point ``c``, one of ``u``, ``u'`` at ``c`` and the other
      at distance 1 (the right-hand-side pair itself: ratio exactly 1, the equality case), and the
      reverse.  Poisson: every other row at 0, ``u`` at distance 1.
    * **simplex** (d >= 2): ``c``, ``u``, ``u'`` the vertices of an equilateral triangle of side 1;
      in d = 3 also the regular tetrahedron with the other rows in two clusters.  The r -> 0 limit
      of the ratio is :math:`2e^{x/2}/(1+e^{x/2})`, :math:`x = \sigma^{-2}` (module docstring).
    * **two clusters**: the other rows split between two points at distance 1.

    Each geometry at the corners of the box where the limits live: r -> 0 (n = 1000, m = 1), small
    sigma, lambda -> 1 (129/128), and a few interior points (n = 50 or 10).  ``clip`` and ``poisson``
    get the same geometries, centred and shrunk onto their ball (:func:`_project`).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of range, clip, poisson. Found {model!r}.")
    if d not in DIMS:
        raise ValueError(f"dim must be 1, 2 or 3. Found {d}.")
    V = _simplex(d)
    zero = tuple(Fraction(0) for _ in range(d))
    # (values, fractions of the other rows per value, u, u')
    geos: list[tuple[list[tuple[Fraction, ...]], list[Fraction], tuple[Fraction, ...], tuple[Fraction, ...]]]
    if model == "poisson":
        e1 = V[1]
        geos = [([zero], [Fraction(1)], e1, zero), ([e1], [Fraction(1)], e1, zero)]
        if d >= 2:
            geos.append(([V[1], V[2]], [Fraction(1, 2), Fraction(1, 2)], V[2], zero))
        # (n, Poisson rate r, sigma, lambda); fixed-size sampling: (n, m, sigma, lambda)
        params: list[tuple[int, Fraction, Fraction, Fraction]] = [
            (11, Fraction(1, 1000), SIGMA_MIN, Fraction(2)),
            (11, Fraction(1, 10), Fraction(1), Fraction(2)),
            (11, Fraction(1, 1000), Fraction(1, 2), Fraction(129, 128)),
        ]
    else:
        geos = [
            ([V[0]], [Fraction(1)], V[1], V[0]),  # the right-hand-side pair: ratio 1
            ([V[0]], [Fraction(1)], V[0], V[1]),  # its reverse
            ([V[0], V[1]], [Fraction(1, 2), Fraction(1, 2)], V[1], V[0]),  # two clusters
        ]
        if d >= 2:
            geos.append(([V[0]], [Fraction(1)], V[1], V[2]))  # equilateral triangle
            geos.append(([V[0], V[1]], [Fraction(3, 4), Fraction(1, 4)], V[1], V[2]))
        if d == 3:
            geos.append(([V[0], V[1]], [Fraction(1, 2), Fraction(1, 2)], V[2], V[3]))  # tetrahedron
        params = [
            (N_MAX, Fraction(1), SIGMA_MIN, Fraction(2)),
            (N_MAX, Fraction(1), Fraction(1, 2), Fraction(2)),
            (N_MAX, Fraction(1), Fraction(1, 2), Fraction(129, 128)),
            (50, Fraction(1), Fraction(1), Fraction(2)),
            (10, Fraction(2), Fraction(1, 2), Fraction(3)),
        ]
    out: list[ProbeConfig] = []
    for vals, fracs, u, up in geos:
        pts: list[tuple[Fraction, ...]] = [*vals, u, up]
        if model != "range" or not admissible(model, pts):
            arr = [np.array([float(x) for x in p]) for p in pts]
            distinct = {p for p in pts}
            c = np.mean([np.array([float(x) for x in p]) for p in sorted(distinct)], axis=0)
            if model == "poisson":
                c = np.array([float(x) for x in up])  # u' = 0 stays the origin
            proj = _project(model, [a - c for a in arr], d)
            if proj is None:
                continue
            pts = proj
        vals_p, u_p, up_p = pts[: len(vals)], pts[len(vals)], pts[len(vals) + 1]
        if model == "poisson":
            up_p = zero
        for n, m_or_r, sigma, lam in params:
            counts = [int(f * (n - 1)) for f in fracs]
            counts[0] += n - 1 - sum(counts)
            keep = [(v, c) for v, c in zip(vals_p, counts, strict=True) if c > 0]
            try:
                if model == "poisson":
                    cfg = ProbeConfig(
                        model, n, 0, m_or_r, sigma, lam, tuple(v for v, _ in keep), tuple(c for _, c in keep), u_p, up_p
                    )
                else:
                    cfg = ProbeConfig(
                        model,
                        n,
                        int(m_or_r),
                        Fraction(0),
                        sigma,
                        lam,
                        tuple(v for v, _ in keep),
                        tuple(c for _, c in keep),
                        u_p,
                        up_p,
                    )
            except ValueError:
                continue
            if _screen_ok(cfg) and cfg not in out:
                out.append(cfg)
    return out


def _trial(item: tuple[str, int, int, int, int, ProbeConfig | None]) -> dict[str, Any]:
    model, d, seed, index, steps, start = item
    # random trial i: rng key [seed, i, model, dim] (as before structured starts existed);
    # structured start k: [seed, 2**31 + k, model, dim]
    key = index if start is None else 2**31 + index
    rng = np.random.default_rng([seed, key, MODELS.index(model), d])
    cfg = random_config(rng, model, d) if start is None else start
    t0 = time.perf_counter()
    first = screen_ratio(cfg)
    best, bs, screens = optimise_config(cfg, rng, steps) if steps > 0 else (cfg, first, 1)
    return {
        "index": index,
        "structured": start is not None,
        "config": best,
        "screen": bs,
        "random_ratio": first["ratio"],
        "screens": screens,
        "seconds": time.perf_counter() - t0,
    }


def _tight(ratio: arb, rel: float = 1e-6) -> bool:
    """True when the ratio ball's width is at most ``rel`` times its lower end (or it is exact)."""
    lo, hi = ratio.lower(), ratio.upper()
    if not (lo.is_finite() and hi.is_finite()):
        return False
    return bool(hi - lo <= arb(rel) * abs(lo)) or bool(hi == lo)


def ratio_to_json(ratio: Certified, digits: int = 12) -> dict[str, Any]:
    """JSON of a certified ratio enclosure: ``lower`` always; ``upper`` only when it is tight (relative
    width <= 1e-6) or decides the verdict (<= 1), else None ("no upper bound certified": the upper
    end of a wide enclosure, in d >= 2 the loose pairing bound of Claim 24, is proven but says nothing
    about the ratio)."""
    out: dict[str, Any] = dict(ratio.to_json(digits))
    ball = ratio.ball
    if not (_tight(ball) or bool(ball.upper() <= 1)):
        out["upper"] = None
    return out


@dataclass
class ProbeResult:
    """Result of :func:`probe` (see :meth:`to_json`; the contract of DESIGN.md section 5)."""

    model: str
    dim: int
    trials: int
    seed: int
    steps: int
    screened_max: float
    candidates: int
    worst: dict[str, Any]
    worst_certified: dict[str, Any]
    violations: int
    violation_records: list[dict[str, Any]]
    screens_per_second: float
    seconds: float
    structured_starts: int = 0
    screens: int = 0
    last_improvement: int = 0

    def to_json(self) -> dict[str, Any]:
        wc = self.worst_certified
        decided = wc["verdict"] in ("holds", "violated", "equal")
        ratio = ratio_to_json(wc["ratio"])
        tight = ratio["upper"] is not None
        best = max(self.violation_records, key=lambda v: Fraction(v["ratio_lower"]), default=None)
        return {
            "model": self.model,
            "dim": self.dim,
            "trials": self.trials,
            "seed": self.seed,
            "structured_starts": self.structured_starts,
            "worst": {
                "ratio": ratio,
                "upper_certified": tight,
                "certified": decided,
                "verdict": wc["verdict"],
                "config": self.worst["config"].to_json(),
                "screen_ratio": self.worst["screen"]["ratio"],
            },
            "supremum": {
                "lower": None if best is None else best["ratio_lower"],
                "lower_config": None if best is None else best["config"].to_json(),
                "upper": None,
                "r0_limit": None if best is None else _r0_limit(best["config"]),
                "statement": _sup_statement(self.model, self.dim, best),
            },
            "violations": self.violations,
            "screened_max": self.screened_max,
            "candidates": self.candidates,
            "violations_certified": [
                {"config": v["config"].to_json(), "ratio_lower": v["ratio_lower"], "per_sigma": v["per_sigma"]}
                for v in self.violation_records
            ],
            "box": {
                "sigma": [str(SIGMA_MIN), str(SIGMA_MAX)],
                "r_min": "m/n with n <= 1000" if self.model != "poisson" else str(R_MIN),
                "m_max": M_MAX if self.model != "poisson" else None,
                "lambda": ["1", str(lam_max(self.dim))],
            },
            "stopping": {
                "rule": (
                    "fixed budget: every structured start and every random trial is run, each with "
                    "local_steps random moves and continuation in sigma, r and lambda; no other stop"
                ),
                "screens": self.screens,
                "last_improvement_start": self.last_improvement,
            },
            "local_steps": self.steps,
            "screens_per_second": self.screens_per_second,
            "seconds": self.seconds,
            "note": (
                "ratio = D_lambda(p||q) / D_lambda(r mu_1 + (1-r) mu_0 || mu_0); worst.certified: the "
                "verdict (ratio <= 1 or > 1) is proven by the certified enclosure; worst.ratio.upper is "
                "null when no upper bound is certified (only a loose one is known); violations: number of "
                "candidates with a proven ratio > 1; supremum: of the ratio over the search box (r0_limit: "
                "the r -> 0 limit at the best violation's geometry and sigma, a float value, not a bound)"
            ),
        }


def _r0_limit(cfg: ProbeConfig) -> float | None:
    r"""The r -> 0 leading-order ratio (:func:`limit_ratio_r0`) of ``cfg``'s geometry at its sigma, when
    it has the shape of that formula (fixed-size sampling, m = 1, the other rows at one point); else
    None.  A float value, not a bound: it is what the ratio tends to as n grows with the rest fixed."""
    if cfg.sampling != "fixed" or cfg.m != 1 or len(cfg.values) != 1:
        return None
    c = cfg.values[0]
    a = [float(x - y) for x, y in zip(cfg.u, c, strict=True)]
    b = [float(x - y) for x, y in zip(cfg.u_prime, c, strict=True)]
    return _round_sig(limit_ratio_r0(a, b, float(cfg.sigma)))


def _sup_statement(model: str, dim: int, best: dict[str, Any] | None) -> str:
    if best is not None:
        lower = (
            f"supremum of the ratio over the search box >= {best['ratio_lower']} (a certified violation); "
            "no upper bound certified"
        )
    else:
        lower = "supremum of the ratio over the search box: no violation certified, no upper bound certified"
    if model == "poisson":
        return lower + " (the ratio is <= 1 by Mironov, Talwar, Zhang 2019, Thm 4; not re-proven here)"
    if dim == 1 and model in ("range", "clip"):
        return lower + " (ratio <= 1 is proven for small n by the branch and bound of conjecture_proof)"
    return lower


def probe(
    trials: int,
    seed: int,
    *,
    model: str = "range",
    dim: int = 1,
    jobs: int = 1,
    executor=None,
    steps: int = 12,
    progress: bool = False,
    candidate_tol: float = 1e-6,
    max_certify: int = 3,
    digits: float = 6,
    structured: bool = True,
    refine_work: int = 300_000,
) -> ProbeResult:
    r"""Run the Conjecture 1 probe for one model and dimension: the structured starts of
    :func:`structured_configs` (unless ``structured`` is false) and ``trials`` random starts, each
    locally optimised over the whole admissible set (row values, counts, ``n``, ``m``, ``r``, sigma,
    lambda) and continued in sigma, r and lambda (:func:`optimise_config`).

    Deterministic given ``seed`` (random trial ``i`` uses ``numpy.random.default_rng([seed, i, model,
    dim])``), whatever ``jobs`` or executor (a Dask executor included), the machine or the thread
    count: screen values are rounded (:func:`_round_sig`) before they select anything, and the
    certification is bounded by work, not time.  The configuration with the largest screened ratio
    gets a certified enclosure (:func:`certify_config`); the ``max_certify`` best candidates with
    screened ratio > 1 + ``candidate_tol`` are put through :func:`certify_violation` (cells refined
    while a partition needs at most ``refine_work`` cell-atom evaluations); ``violations`` counts the
    proven ones.

    Raises:
        ValueError: bad ``trials``, ``model`` or ``dim``.
    """
    if trials < 1:
        raise ValueError(f"trials must be an integer >= 1. Found {trials}.")
    if model not in MODELS:
        raise ValueError(f"model must be one of range, clip, poisson. Found {model!r}.")
    if dim not in DIMS:
        raise ValueError(f"dim must be 1, 2 or 3. Found {dim}.")
    starts = structured_configs(model, dim) if structured else []
    # trials are generated and reduced as a stream (a billion trials cost the memory of a few):
    # the reduction is that of the whole list in stream order (first maximum, stable sort)
    items = itertools.chain(
        ((model, dim, seed, k, steps, c) for k, c in enumerate(starts)),
        ((model, dim, seed, i, steps, None) for i in range(trials)),
    )
    t0 = time.perf_counter()
    n_screens = 0
    worst: dict[str, Any] | None = None
    n_cands = 0
    last_improvement = 0
    cands: list[tuple[float, int, dict[str, Any]]] = []  # the max_certify best, by (-ratio, position)
    stream = imap_ordered(
        _trial,
        items,
        executor=executor,
        jobs=jobs,
        progress=progress,
        desc="conjecture probe",
        total=len(starts) + trials,
    )
    with contextlib.closing(stream):
        for pos, x in enumerate(stream):
            n_screens += x["screens"]
            if worst is None or x["screen"]["ratio"] > worst["screen"]["ratio"]:
                worst = x
                last_improvement = pos
            if x["screen"]["ratio"] > 1 + candidate_tol and not is_rhs_pair(x["config"]):
                n_cands += 1
                cands.append((-x["screen"]["ratio"], pos, x))
                cands.sort(key=lambda c: (c[0], c[1]))
                del cands[max_certify:]
    wall = time.perf_counter() - t0
    assert worst is not None  # trials >= 1
    wc = certify_config(worst["config"], digits)
    records = []
    for _, _, x in cands[:max_certify]:
        v = certify_violation(x["config"], refine_work=refine_work)
        if v["proven"]:
            records.append(
                {"config": x["config"], "ratio_lower": _dec_lower(v["ratio_lower"]), "per_sigma": v["per_sigma"]}
            )
    return ProbeResult(
        model,
        dim,
        trials,
        seed,
        steps,
        worst["screen"]["ratio"],
        n_cands,
        worst,
        wc,
        len(records),
        records,
        n_screens / wall if wall > 0 else math.inf,
        time.perf_counter() - t0,
        structured_starts=len(starts),
        screens=n_screens,
        last_improvement=last_improvement,
    )


def _dec_lower(x: arb) -> str:
    from ..arith import decimal_lower

    return decimal_lower(x, 12)
