r"""Numerical probe of Conjecture 1 of the blog post, part 2 (the hidden assumption of ACGMMTZ16).

Conjecture 1: for the subsampled Gaussian mechanism with rate :math:`r` and neighbouring
datasets, :math:`D_\lambda(p\|q) \le D_\lambda(r\mu_1 + (1-r)\mu_0 \| \mu_0)`,
:math:`\mu_i = N(i, \sigma^2)`.

The mechanisms probed (query of sensitivity 1, a sum of per-row contributions, which is
DP-SGD's clipped gradient sum):

* ``"fixed"`` -- the post's setting (Claim 24): a dataset of ``n`` rows, a minibatch that is
  a uniformly random subset of size ``m``, :math:`r = m/n`, output :math:`N(\sum_{i\in
  I} g_i, \sigma^2 I_d)`; neighbours differ in row ``n`` (value ``u`` in ``x``, ``u'`` in
  ``x'``).  Sensitivity 1 means all row values are within distance 1 of each other
  (1-d: values in [0, 1]; d-d: values in the disc of radius 1/2).
* ``"poisson"`` -- for contrast: every row is sampled independently with probability
  :math:`r`; neighbours by add/remove (row ``n`` with value ``u``, ``|u| <= 1``, present in
  ``x`` only; other rows in [-1, 1]).  Mironov, Talwar, Zhang 2019 (Thm 4) prove the
  conjecture for this case, so the probe must find ratio <= 1 there.

The other ``n - 1`` rows take ``K`` distinct values with multiplicities, so the number of
mixture atoms is polynomial.  Writing :math:`B` for the law of the sum over the other sampled
rows given that row ``n`` is sampled and :math:`A` given that it is not (multivariate
hypergeometric, resp. binomial, weights),

.. math:: p = (1-r)A + r\,(B * \delta_u), \qquad q = (1-r)A + r\,(B * \delta_{u'})

(Poisson: :math:`A = B`, :math:`u' = 0`), both finite Gaussian mixtures.  The probe compares
:math:`D_\lambda(p\|q)` with the right-hand side over random and locally optimised datasets,
integer and fractional :math:`\lambda`, a range of :math:`\sigma` and :math:`r`; the ratio is
LHS / RHS.

Screen: the trapezoidal rule on a window that contains the tilted density's mass, in log
space, with a step halved until two steps agree (an estimate).  Certification (1-d
configurations only): :math:`G_\lambda(p\|q) - 1 = \int q\,f(p/q - 1)` with
:math:`f(x) = (1+x)^\lambda - 1 - \lambda x \ge 0` on a finite window by ``acb.integral``
(holomorphy checked on each ball) plus the proven tail bounds of :func:`tail_bounds`; the
right-hand side by :func:`rigorous_rdp.research.constant.log_g_mixture`.  d-dimensional
configurations are screened only (no certified d-dimensional integral here).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from flint import acb, arb
from scipy import special

from ..arith import Certified, decimal_lower, decimal_upper, refine, to_arb, workprec
from ..floatmath import log_expm1
from .constant import log_g_mixture
from ..errors import PrecisionExhausted
from .parallel import map_ordered

__all__ = [
    "ProbeConfig",
    "mixtures",
    "screen_ratio",
    "certify_config",
    "tail_bounds",
    "random_config",
    "optimise_config",
    "is_rhs_pair",
    "probe",
    "ProbeResult",
]

Q = Fraction(1, 1024)  # grid of the dataset values (exact binary rationals)


def _qz(x: float, grid: Fraction = Q) -> Fraction:
    return Fraction(round(x / grid)) * grid


@dataclass(frozen=True)
class ProbeConfig:
    r"""One configuration of the probe (all numbers exact).

    Attributes:
        sampling: ``"fixed"`` (size-``m`` subsets, replace-one) or ``"poisson"`` (add/remove).
        n: number of rows; row ``n`` is the differing one.
        m: minibatch size (``"fixed"``; ``r = m/n``).
        r_poisson: sampling probability (``"poisson"``).
        sigma: noise standard deviation.
        lam: Rényi order :math:`\lambda > 1`.
        values: the ``K`` distinct values of the other rows (tuples of length ``d``).
        counts: their multiplicities (sum ``n - 1``).
        u, u_prime: the value of row ``n`` in ``x`` and in ``x'`` (``u_prime`` unused for Poisson).
    """

    sampling: str
    n: int
    m: int
    r_poisson: Fraction
    sigma: Fraction
    lam: Fraction
    values: Tuple[Tuple[Fraction, ...], ...]
    counts: Tuple[int, ...]
    u: Tuple[Fraction, ...]
    u_prime: Tuple[Fraction, ...]

    def __post_init__(self) -> None:
        if self.sampling not in ("fixed", "poisson"):
            raise ValueError(f"sampling must be 'fixed' or 'poisson'. Found {self.sampling!r}.")
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
        # sensitivity 1
        pts = list(self.values) + [self.u] + ([self.u_prime] if self.sampling == "fixed" else [])
        if self.sampling == "fixed":
            for a, b in itertools.combinations(pts, 2):
                if sum((x - y) ** 2 for x, y in zip(a, b)) > 1:
                    raise ValueError("values must be within distance 1 of each other (sensitivity 1).")
        else:
            for a in pts:
                if sum(x * x for x in a) > 1:
                    raise ValueError("values must have norm <= 1 (add/remove sensitivity 1).")

    @property
    def d(self) -> int:
        return len(self.u)

    @property
    def r(self) -> Fraction:
        return Fraction(self.m, self.n) if self.sampling == "fixed" else self.r_poisson

    def to_json(self) -> Dict[str, Any]:
        def vec(v: Tuple[Fraction, ...]) -> List[str]:
            return [str(x) for x in v]

        out: Dict[str, Any] = {"sampling": self.sampling, "n": self.n, "r": str(self.r), "sigma": str(self.sigma),
                               "lambda": str(self.lam), "d": self.d, "values": [vec(v) for v in self.values],
                               "counts": list(self.counts), "u": vec(self.u)}
        if self.sampling == "fixed":
            out["m"] = self.m
            out["u_prime"] = vec(self.u_prime)
        return out


# ---------------------------------------------------------------------------
# mixtures
# ---------------------------------------------------------------------------

def _count_vectors(counts: Sequence[int], total: int) -> List[Tuple[int, ...]]:
    """All (c_1..c_K) with 0 <= c_k <= counts[k] and sum == total."""
    out: List[Tuple[int, ...]] = []

    def rec(k: int, left: int, acc: Tuple[int, ...]) -> None:
        if k == len(counts) - 1:
            if 0 <= left <= counts[k]:
                out.append(acc + (left,))
            return
        for c in range(0, min(counts[k], left) + 1):
            rec(k + 1, left - c, acc + (c,))

    rec(0, total, ())
    return out


def mixtures(cfg: ProbeConfig) -> Dict[str, Any]:
    r"""Exact atoms of :math:`A` and :math:`B` (module docstring).

    Returns a dict with ``A`` and ``B``: lists of (weight: Fraction, mean: tuple of Fraction),
    each list's weights summing to 1, and ``r``.
    """
    vals, cnt = cfg.values, cfg.counts
    d = cfg.d

    def mean(c: Tuple[int, ...]) -> Tuple[Fraction, ...]:
        return tuple(sum((ck * v[i] for ck, v in zip(c, vals)), Fraction(0)) for i in range(d))

    if cfg.sampling == "fixed":
        A = [(Fraction(math.prod(math.comb(nk, ck) for nk, ck in zip(cnt, c)), math.comb(cfg.n - 1, cfg.m)), mean(c))
             for c in _count_vectors(cnt, cfg.m)]
        B = [(Fraction(math.prod(math.comb(nk, ck) for nk, ck in zip(cnt, c)), math.comb(cfg.n - 1, cfg.m - 1)), mean(c))
             for c in _count_vectors(cnt, cfg.m - 1)]
    else:
        r = cfg.r_poisson
        A = []
        for c in itertools.product(*[range(nk + 1) for nk in cnt]):
            w = Fraction(1)
            for nk, ck in zip(cnt, c):
                w *= math.comb(nk, ck) * r ** ck * (1 - r) ** (nk - ck)
            A.append((w, mean(c)))
        B = A
    return {"A": A, "B": B, "r": cfg.r}


def _float_mix(cfg: ProbeConfig) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(means_p, logw_p, means_q, logw_q) as float arrays of shape (atoms, d), (atoms,)."""
    mx = mixtures(cfg)
    r = float(mx["r"])
    A_w = np.array([float(w) for w, _ in mx["A"]])
    A_m = np.array([[float(x) for x in mu] for _, mu in mx["A"]])
    B_w = np.array([float(w) for w, _ in mx["B"]])
    B_m = np.array([[float(x) for x in mu] for _, mu in mx["B"]])
    u = np.array([float(x) for x in cfg.u])
    up = np.array([float(x) for x in cfg.u_prime]) if cfg.sampling == "fixed" else np.zeros(cfg.d)
    with np.errstate(divide="ignore"):
        lw_a = np.log(A_w) + math.log1p(-r)
        lw_b = np.log(B_w) + math.log(r)
    keep_a, keep_b = A_w > 0, B_w > 0
    mp = np.vstack([A_m[keep_a], B_m[keep_b] + u])
    mq = np.vstack([A_m[keep_a], B_m[keep_b] + up])
    lp = np.concatenate([lw_a[keep_a], lw_b[keep_b]])
    lq = np.concatenate([lw_a[keep_a], lw_b[keep_b]])
    return mp, lp, mq, lq


def _log_mix_density(y: np.ndarray, means: np.ndarray, logw: np.ndarray, sigma: float) -> np.ndarray:
    """log of sum_a w_a N(y; mu_a, sigma^2 I) at points y (shape (N, d)), up to the common constant."""
    d2 = ((y[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    return special.logsumexp(logw[None, :] - d2 / (2 * sigma * sigma), axis=1)


def _log_g_grid(mp, lp, mq, lq, lam: float, sigma: float) -> float:
    """Float log G_lam(p || q) of two Gaussian mixtures (trapezoid, step halved until stable)."""
    d = mp.shape[1]
    allm = np.vstack([mp, mq])
    # the tilted density p^lam q^(1-lam) lies between the atoms and at most lam to either side
    pad = (9 if d == 1 else 7) * sigma + lam
    lo = allm.min(axis=0) - pad
    hi = allm.max(axis=0) + pad
    h = sigma / (3.0 if d == 1 else 2.0)
    prev = None
    for _ in range(6 if d == 1 else 2):
        axes = [np.arange(lo[i], hi[i] + h, h) for i in range(d)]
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d)
        lpd = _log_mix_density(grid, mp, lp, sigma)
        lqd = _log_mix_density(grid, mq, lq, sigma)
        integrand = lam * lpd - (lam - 1) * lqd
        val = special.logsumexp(integrand) + d * math.log(h) - d * 0.5 * math.log(2 * math.pi * sigma * sigma)
        if prev is not None and abs(val - prev) <= 1e-9 * max(1.0, abs(val)):
            return float(val)
        prev = val
        h /= 2
    return float(prev)


def screen_ratio(cfg: ProbeConfig) -> Dict[str, float]:
    r"""Float estimates of :math:`\log G_\lambda` of both sides and of the ratio of the
    divergences (screening only).  Both sides use the same quadrature, so configurations
    that equal the right-hand side come out at ratio 1 up to rounding."""
    mp, lp, mq, lq = _float_mix(cfg)
    lam, s, r = float(cfg.lam), float(cfg.sigma), float(cfg.r)
    lhs = _log_g_grid(mp, lp, mq, lq, lam, s)
    d = cfg.d
    e1 = np.zeros((1, d))
    e1[0, 0] = 1.0
    rm_p = np.vstack([np.zeros((1, d)), e1])
    rl_p = np.array([math.log1p(-r), math.log(r)])
    rhs = _log_g_grid(rm_p, rl_p, np.zeros((1, d)), np.zeros(1), lam, s)
    return {"log_g_lhs": lhs, "log_g_rhs": rhs, "ratio": lhs / rhs if rhs > 0 else math.inf}


# ---------------------------------------------------------------------------
# certification (1-d)
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
        main = ((1 - lam) * beta.log() + lam * (lam - 1) * (mu_ext - nu_ext) ** 2 / (2 * sigma * sigma)).exp() \
            * _phi_bar(sign * (edge - c) / sigma)
        return main + (lam - 1) * _phi_bar(sign * (edge - nu_ext) / sigma)

    mus = [m for _, m in p_atoms]
    nus = [m for _, m in q_atoms]
    mu_max = max(mus, key=lambda x: x.mid())
    nu_max = max(nus, key=lambda x: x.mid())
    mu_min = min(mus, key=lambda x: x.mid())
    nu_min = min(nus, key=lambda x: x.mid())
    if not (U >= mu_max and U >= nu_max and L <= mu_min and L <= nu_min):
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


def _merge(atoms):
    acc: Dict[Fraction, Fraction] = {}
    for w, m in atoms:
        acc[m] = acc.get(m, Fraction(0)) + w
    return sorted(((w, m) for m, w in acc.items()), key=lambda t: t[1])


def _plan_window(p_atoms, q_atoms, lam: float, sigma: float, log_tol: float) -> Tuple[float, float]:
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
    mus = [float(m) for _, m in p_atoms] + [float(m) for _, m in q_atoms]
    lo, hi = min(mus), max(mus)
    L, U = _plan_window(p_atoms, q_atoms, fl, fs, log_i_est - prec * math.log(2.0) - math.log(8.0))
    L, U = arb(L), arb(U)
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
    for a, b in zip(pts[:-1], pts[1:]):
        # python floats convert to arb exactly (numpy scalars would go through a decimal string)
        total += acb.integral(integrand, arb(float(a)), arb(float(b)), rel_tol=arb(2) ** (-prec), abs_tol=abs_tol)
    i_ball = arb(total.real.lower()).union(arb(total.real.upper() + tails.upper()))
    if not (i_ball > -1):
        return arb.nan()
    return i_ball.log1p()


def is_rhs_pair(cfg: ProbeConfig) -> bool:
    r"""True when (p, q) is exactly the right-hand-side pair up to translation and reflection:
    q a single Gaussian and p = (1-r) q + r (q shifted by +-1).  Then LHS = RHS exactly
    (Rényi divergence is invariant under these maps)."""
    if cfg.d != 1:
        return False
    A, B, u, up = _exact_atoms_1d(cfg)
    p_atoms = _merge(A + [(w, m + u) for w, m in B])
    q_atoms = _merge(A + [(w, m + up) for w, m in B])
    if len(q_atoms) != 1:
        return False
    c = q_atoms[0][1]
    r = cfg.r
    shifted = [(w, m) for w, m in p_atoms if m != c]
    same = [(w, m) for w, m in p_atoms if m == c]
    return (len(shifted) == 1 and abs(shifted[0][1] - c) == 1 and shifted[0][0] == r
            and (r == 1 or (len(same) == 1 and same[0][0] == 1 - r)))


def _refine_or_last(func, digits: float, what: str) -> Certified:
    """:func:`refine`, falling back to the last (valid, wider) enclosure when the relative
    width cannot be reached (values at or near 0); the verdict only needs an enclosure."""
    try:
        return refine(func, digits, max_prec=512, what=what)
    except PrecisionExhausted as exc:
        if exc.last is None:
            raise
        return Certified(exc.last, exc.prec or 512)


def certify_config(cfg: ProbeConfig, digits: float = 6) -> Dict[str, Any]:
    r"""Certified enclosures of both sides and of the ratio for a 1-d configuration.

    Returns a dict with ``lhs``, ``rhs``, ``ratio`` (Certified of the Rényi divergences and
    their quotient), ``verdict`` (``"equal"`` for the right-hand-side pair itself,
    ``"holds"`` if LHS <= RHS is proven, ``"violated"`` if LHS > RHS is proven, else
    ``"undecided"``) and ``seconds``.

    Raises:
        ValueError: for a configuration of dimension > 1 (not certified here).
    """
    if cfg.d != 1:
        raise ValueError("d must be 1 for certification (d-dimensional configurations are screened only).")
    t0 = time.perf_counter()
    sc = screen_ratio(cfg)
    est = sc["log_g_lhs"]
    log_i_est = float(log_expm1(est)) if est > 1e-300 else -690.0
    lam = cfg.lam

    def lhs(prec: int) -> arb:
        return _log_g_lhs_certified(cfg, prec, log_i_est) / (to_arb(lam) - 1)

    def rhs(prec: int) -> arb:
        return log_g_mixture(lam, cfg.r, cfg.sigma, prec) / (to_arb(lam) - 1)

    A, B, u, up = _exact_atoms_1d(cfg)
    if _merge(A + [(w, m + u) for w, m in B]) == _merge(A + [(w, m + up) for w, m in B]):
        L = Certified(arb(0), 64)  # p == q: the divergence is exactly 0
    else:
        L = _refine_or_last(lhs, digits, "Conjecture 1 LHS")
    R = _refine_or_last(rhs, digits, "Conjecture 1 RHS")
    with workprec(max(L.prec, R.prec)) as p:
        ratio = L.ball / R.ball
    if is_rhs_pair(cfg):
        verdict = "equal"  # exact equality by invariance; the balls overlap by necessity
    elif L.ball <= R.ball:
        verdict = "holds"
    elif L.ball > R.ball:
        verdict = "violated"
    else:
        verdict = "undecided"
    return {"lhs": L, "rhs": R, "ratio": Certified(ratio, p), "verdict": verdict,
            "seconds": time.perf_counter() - t0}


# ---------------------------------------------------------------------------
# search
# ---------------------------------------------------------------------------

def random_config(rng: np.random.Generator, *, dims: Sequence[int] = (1, 1, 1, 2),
                  max_atoms: int = 400) -> ProbeConfig:
    """A random configuration (values on the 1/1024 grid, sigma on 1/64, lambda on 1/8)."""
    sampling = "fixed" if rng.random() < 0.75 else "poisson"
    d = int(rng.choice(dims))
    sigma = max(Fraction(1, 4), _qz(math.exp(rng.uniform(math.log(0.4), math.log(6.0))), Fraction(1, 64)))
    if rng.random() < 0.5:
        lam = Fraction(int(rng.integers(2, 33)))
    else:
        lam = max(Fraction(9, 8), _qz(rng.uniform(1.1, 32.0), Fraction(1, 8)))
    K = int(rng.integers(1, 4))
    if sampling == "fixed":
        n = int(rng.integers(2, 41))
        m = int(rng.integers(1, n))
        r_p = Fraction(0)
    else:
        n = int(rng.integers(2, 16 if K > 1 else 41))
        m = 0
        r_p = Fraction(int(rng.integers(1, 1000)), 1000)
    counts = _random_counts(rng, n - 1, K)
    vals = tuple(_random_point(rng, d, sampling) for _ in range(K))
    u = _random_point(rng, d, sampling)
    up = _random_point(rng, d, sampling) if sampling == "fixed" else tuple(Fraction(0) for _ in range(d))
    cfg = ProbeConfig(sampling, n, m, r_p, sigma, lam, vals, counts, u, up)
    if _n_atoms(cfg) > max_atoms:
        return random_config(rng, dims=dims, max_atoms=max_atoms)
    if d > 1 and (lam > 8 or _n_atoms(cfg) > 60):
        # keep the d-dimensional grid quadrature cheap
        lam = min(lam, Fraction(8)) if lam.denominator == 1 else _qz(1.1 + float(lam) * 6.9 / 32, Fraction(1, 8))
        cfg = replace(cfg, lam=lam)
        if _n_atoms(cfg) > 60:
            return random_config(rng, dims=dims, max_atoms=max_atoms)
    return cfg


def _random_counts(rng: np.random.Generator, total: int, K: int) -> Tuple[int, ...]:
    cuts = sorted(int(x) for x in rng.integers(0, total + 1, size=K - 1))
    parts = [b - a for a, b in zip([0] + cuts, cuts + [total])]
    return tuple(parts)


def _random_point(rng: np.random.Generator, d: int, sampling: str) -> Tuple[Fraction, ...]:
    if sampling == "fixed":
        if d == 1:
            x = float(rng.choice([0.0, 1.0])) if rng.random() < 0.5 else rng.uniform(0, 1)
            return (_qz(x),)
        ang = rng.uniform(0, 2 * math.pi)
        rad = 0.5 if rng.random() < 0.5 else 0.5 * math.sqrt(rng.random())
        return tuple(_clip_disc(_qz(0.5 + rad * math.cos(ang)) - Fraction(1, 2), _qz(0.5 + rad * math.sin(ang)) - Fraction(1, 2), Fraction(1, 2)))
    if d == 1:
        x = float(rng.choice([-1.0, 1.0, 0.0])) if rng.random() < 0.5 else rng.uniform(-1, 1)
        return (_qz(x),)
    ang = rng.uniform(0, 2 * math.pi)
    rad = 1.0 if rng.random() < 0.5 else math.sqrt(rng.random())
    return tuple(_clip_disc(_qz(rad * math.cos(ang)), _qz(rad * math.sin(ang)), Fraction(1)))


def _clip_disc(x: Fraction, y: Fraction, R: Fraction) -> Tuple[Fraction, Fraction]:
    while x * x + y * y > R * R:
        x -= Q if x > 0 else -Q if x < 0 else 0
        y -= Q if y > 0 else -Q if y < 0 else 0
    return x, y


def _n_atoms(cfg: ProbeConfig) -> int:
    if cfg.sampling == "fixed":
        return len(_count_vectors(cfg.counts, cfg.m)) + len(_count_vectors(cfg.counts, cfg.m - 1))
    return math.prod(c + 1 for c in cfg.counts)


def _perturb(cfg: ProbeConfig, rng: np.random.Generator, scale: float) -> Optional[ProbeConfig]:
    """A random local move on the dataset (values, u, u', counts); None if it is invalid."""
    which = rng.integers(0, 4)
    vals = list(cfg.values)
    u, up, counts = cfg.u, cfg.u_prime, list(cfg.counts)

    def move(p: Tuple[Fraction, ...]) -> Tuple[Fraction, ...]:
        return tuple(x + _qz(rng.normal(0, scale)) for x in p)

    if which == 0:
        k = int(rng.integers(0, len(vals)))
        vals[k] = move(vals[k])
    elif which == 1:
        u = move(u)
    elif which == 2 and cfg.sampling == "fixed":
        up = move(up)
    else:
        if len(counts) < 2:
            return None
        i, j = rng.choice(len(counts), size=2, replace=False)
        step = int(rng.integers(1, 3))
        if counts[i] < step:
            return None
        counts[i] -= step
        counts[j] += step
    if cfg.sampling == "fixed" and cfg.d == 1:
        clip = lambda p: (min(Fraction(1), max(Fraction(0), p[0])),)  # noqa: E731
        vals = [clip(v) for v in vals]
        u, up = clip(u), clip(up)
    try:
        return replace(cfg, values=tuple(vals), u=u, u_prime=up, counts=tuple(counts))
    except ValueError:
        return None


def optimise_config(cfg: ProbeConfig, rng: np.random.Generator, steps: int = 12) -> Tuple[ProbeConfig, Dict[str, float]]:
    """Greedy local search that increases the screened ratio; returns the best configuration."""
    best, bs = cfg, screen_ratio(cfg)
    scale = 0.15
    for _ in range(steps):
        cand = _perturb(best, rng, scale)
        if cand is None or _n_atoms(cand) > (600 if cand.d == 1 else 60):
            continue
        cs = screen_ratio(cand)
        if cs["ratio"] > bs["ratio"]:
            best, bs = cand, cs
        else:
            scale = max(0.01, scale * 0.8)
    return best, bs


def _trial(item: Tuple[int, int, int]) -> Dict[str, Any]:
    seed, index, steps = item
    rng = np.random.default_rng([seed, index])
    cfg = random_config(rng)
    t0 = time.perf_counter()
    first = screen_ratio(cfg)
    best, bs = optimise_config(cfg, rng, steps) if steps > 0 else (cfg, first)
    return {"index": index, "config": best, "screen": bs, "random_ratio": first["ratio"],
            "screens": 1 + steps, "seconds": time.perf_counter() - t0}


@dataclass
class ProbeResult:
    """Result of :func:`probe` (see :meth:`to_json`)."""

    trials: int
    seed: int
    steps: int
    max_screen_ratio: float
    candidates: int
    worst: Dict[str, Any]
    worst_certified: Dict[str, Any]
    worst_nontrivial: Optional[Dict[str, Any]]
    certified_candidates: List[Dict[str, Any]]
    violations: int
    by_kind: Dict[str, float]
    screens_per_second: float
    certified_seconds: float

    def to_json(self) -> Dict[str, Any]:
        wc = self.worst_certified
        return {
            "trials": self.trials,
            "seed": self.seed,
            "local_steps": self.steps,
            "max_ratio": wc["ratio"].to_json(12),
            "worst": {"config": self.worst["config"].to_json(), "screen_ratio": self.worst["screen"]["ratio"],
                      "lhs": wc["lhs"].to_json(12), "rhs": wc["rhs"].to_json(12), "verdict": wc["verdict"]},
            "worst_nontrivial": None if self.worst_nontrivial is None else {
                "config": self.worst_nontrivial["config"].to_json(),
                "screen_ratio": self.worst_nontrivial["screen_ratio"],
                "ratio": self.worst_nontrivial["ratio"].to_json(12),
                "verdict": self.worst_nontrivial["verdict"]},
            "violations": self.violations,
            "candidates": self.candidates,
            "candidates_certified": [{"config": c["config"].to_json(), "ratio": c["ratio"].to_json(12),
                                      "verdict": c["verdict"]} for c in self.certified_candidates],
            "max_screen_ratio": self.max_screen_ratio,
            "max_screen_ratio_by_kind": self.by_kind,
            "screens_per_second": self.screens_per_second,
            "certified_seconds_worst": self.certified_seconds,
            "note": "ratio = D_lambda(p||q) / D_lambda(r mu_1 + (1-r) mu_0 || mu_0); certified for d = 1 only",
        }


def probe(trials: int, seed: int, *, jobs: int = 1, executor=None, steps: int = 12, progress: bool = False,
          candidate_tol: float = 1e-6, max_certify: int = 5, digits: float = 6) -> ProbeResult:
    r"""Run the Conjecture 1 probe: ``trials`` random starts, each locally optimised.

    Deterministic given ``seed`` (trial ``i`` uses ``numpy.random.default_rng([seed, i])``),
    whatever ``jobs`` or executor.  The 1-d configuration with the largest screened ratio,
    and every 1-d candidate violation (screened ratio > 1 + ``candidate_tol``, up to
    ``max_certify`` of them), are recomputed with certified enclosures; ``violations``
    counts the proven ones.
    """
    if trials < 1:
        raise ValueError(f"trials must be an integer >= 1. Found {trials}.")
    items = [(seed, i, steps) for i in range(trials)]
    t0 = time.perf_counter()
    res = map_ordered(_trial, items, executor=executor, jobs=jobs, progress=progress, desc="conjecture probe")
    wall = time.perf_counter() - t0
    n_screens = sum(x["screens"] for x in res)
    by_kind: Dict[str, float] = {}
    for x in res:
        c = x["config"]
        key = f"{c.sampling}-d{c.d}"
        by_kind[key] = max(by_kind.get(key, -math.inf), x["screen"]["ratio"])
    one_d = [x for x in res if x["config"].d == 1]
    pool = one_d if one_d else res
    worst = max(pool, key=lambda x: x["screen"]["ratio"])
    cands = sorted((x for x in one_d if x["screen"]["ratio"] > 1 + candidate_tol and not is_rhs_pair(x["config"])),
                   key=lambda x: -x["screen"]["ratio"])
    nontriv = [x for x in one_d if not is_rhs_pair(x["config"])]
    t1 = time.perf_counter()
    wc = certify_config(worst["config"], digits)
    cert_s = time.perf_counter() - t1
    certified = []
    for x in cands[:max_certify]:
        cc = wc if x is worst else certify_config(x["config"], digits)
        certified.append(dict(cc, config=x["config"]))
    violations = sum(1 for c in certified if c["verdict"] == "violated")
    wn = None
    if nontriv:
        xn = max(nontriv, key=lambda x: x["screen"]["ratio"])
        cn = wc if xn is worst else certify_config(xn["config"], digits)
        wn = dict(cn, config=xn["config"], screen_ratio=xn["screen"]["ratio"])
    return ProbeResult(trials, seed, steps, max(x["screen"]["ratio"] for x in res), len(cands), worst, wc, wn,
                       certified, violations, by_kind, n_screens / wall if wall > 0 else math.inf, cert_s)
