r"""Claim 28 and the three routes of "Comparison among different methods" (blog part 2).

For DP-SGD with the Gaussian mechanism (sensitivity 1, noise :math:`\sigma`), subsampling
rate :math:`r`, :math:`k` epochs and :math:`T = k/r` steps, the post compares, at the same
:math:`\epsilon, r, k, \sigma`, three bounds on :math:`\delta`:

* Route 1 (:func:`route1_delta`): Claim 9 (6.8) -> Claim 19 -> the Azuma bound (6.99) of
  Claim 18, minimised over :math:`\tilde\epsilon`:

  .. math:: \delta_1(\epsilon) = \min_{\tilde\epsilon:\ \epsilon > T a(\tilde\epsilon)}
            \exp\Big(-\frac{(\epsilon - T a(\tilde\epsilon))^2}{2T(\tilde\epsilon + a(\tilde\epsilon))^2}\Big)
            + k\,\tilde\delta(\tilde\epsilon),\qquad
            \tilde\delta(\tilde\epsilon) = \delta\big(\log(r^{-1}(e^{\tilde\epsilon}-1)+1)\big).

  We parametrise by :math:`\epsilon'` (the per-step guarantee of the un-subsampled
  Gaussian) instead of :math:`\tilde\epsilon = \log(1 + r(e^{\epsilon'}-1))`: the same set.
  With :math:`T = \lceil k/r\rceil` steps (more steps only weaken the bound).
* Route 2 (:func:`route2_delta`): Example 1 -> Claim 22 -> Example 3 (Claim 23), no
  subsampling, :math:`k` full-batch steps:
  :math:`\delta_2 = \exp(-k\kappa^*(\epsilon/k))` (:func:`rigorous_rdp.research.blog.part2_claims.example3_delta`).
* Route 3 (:func:`route3_delta`): Claim 26 -> Claim 28, *conditional on Conjecture 1*.

Claim 28 as stated: with :math:`r \le c_1/\sigma`, :math:`\lambda = c_2\sigma^2`,
:math:`T = c_2\epsilon\sigma^2/(2C)`, :math:`\delta = \exp(-c_2\sigma^2\epsilon/2)`.  Its proof
writes :math:`\mathbb P(L \ge \epsilon) \le \exp(kC - \lambda\epsilon)`; what the Chernoff bound
with Claims 22, 26 gives is :math:`\exp(T\log G_\lambda - (\lambda-1)\epsilon)` (``k`` should be
``T``, ``C`` bounds :math:`G_\lambda` not its log, and the moment of order :math:`\lambda` pairs
with :math:`(\lambda-1)\epsilon`).  Since :math:`\log G \le G - 1 \le C - 1`,
:math:`T\log G - (\lambda-1)\epsilon \le TC - \lambda\epsilon + (\epsilon - T)`, so **the stated
bound is valid when** :math:`T \ge \epsilon` (the two slips cancel); :func:`route3_delta`
checks that condition.  Its implicit conditions (end of the post) are stated with a
missing factor 2: :math:`T \ge 1` is :math:`c_2\epsilon\sigma^2/(2C) \ge 1` (the post writes
:math:`c_2\epsilon\sigma^2/C \ge 1`) and :math:`k = rT \le c_1c_2\epsilon\sigma/(2C)` (the post
writes :math:`k = rT \ge c_1c_2\epsilon\sigma/C`; with :math:`r \le c_1/\sigma` the inequality goes
the other way), so :math:`k \ge 1` needs :math:`c_1c_2\epsilon\sigma/(2C) \ge 1`.

For a given :math:`(\epsilon, r, k, \sigma)` we take :math:`c_1 = r\sigma` (the smallest admissible)
and :math:`C = G_\lambda(r\mu_1+(1-r)\mu_0\|\mu_0)` at this :math:`\sigma` (the smallest constant
that Claim 26 can use here; :math:`C(c_1,c_2)` of :mod:`rigorous_rdp.research.constant` is a sup over
:math:`\sigma` and only larger), and the largest integer :math:`\lambda` with
:math:`T \le \lambda\epsilon/(2C)`.  Alongside, :func:`route3_delta` reports the corrected
Chernoff value :math:`\min_\lambda \exp(T\log G_\lambda - (\lambda-1)\epsilon)`, which is RDP
accounting of the fixed-size mechanism *if* Conjecture 1 holds.

ACGMMTZ16 Theorem 1 as stated (10), :func:`theorem1_from_claim28`: matching Claim 28 with
:math:`r = c_1/\sigma` gives :math:`\epsilon = c_1' r^2T` with :math:`c_1' = 2C/(c_1^2c_2)` (an
equality, not "<", as the post notes) and (10) with :math:`c_2' = 2\sqrt C/(c_1c_2)`; (10)'s
right-hand side then reads :math:`c_2'c_1\sqrt{T\log(1/\delta)}/(\epsilon\sigma)`, i.e. depends on
:math:`\sigma` (the post's second objection).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from ..arith import Certified, parse_rational, refine, to_arb, workprec
from ..validation import RealRange, integer_in_range
from .constant import log_g_mixture, log_g_screen

__all__ = [
    "RouteInputs",
    "claim28",
    "compare_routes",
    "route1_delta",
    "route2_delta",
    "route3_delta",
    "theorem1_from_claim28",
]


#: accepted ranges of the inputs of the three routes (limits of the float scans)
ROUTE_RANGES = {
    "epsilon": RealRange.positive("1e4", "1e-10", "a limit of the float scans"),
    "r": RealRange.positive("1", "1e-12", "a limit of the float scans"),
    "sigma": RealRange.positive("1e6", "1e-3", "a limit of the float scans"),
}
#: largest number of epochs k
MAX_EPOCHS = 10**12


@dataclass(frozen=True)
class RouteInputs:
    """Validated common inputs: epsilon > 0, 0 < r <= 1, integer epochs k >= 1, sigma > 0."""

    epsilon: Fraction
    r: Fraction
    k: int
    sigma: Fraction

    @classmethod
    def parse(cls, epsilon: object, r: object, k: object, sigma: object) -> RouteInputs:
        """The inputs within :data:`ROUTE_RANGES` (the float scans that choose the points of
        routes 1-3 overflow or divide by zero beyond them)."""
        e = ROUTE_RANGES["epsilon"].check(epsilon, "epsilon")
        rr = ROUTE_RANGES["r"].check(r, "r")
        kk = integer_in_range(k, "k", 1, MAX_EPOCHS)
        s = ROUTE_RANGES["sigma"].check(sigma, "sigma")
        return cls(e, rr, kk, s)

    @property
    def steps(self) -> int:
        """T = ceil(k / r)."""
        return math.ceil(Fraction(self.k) / self.r)


# ---------------------------------------------------------------------------
# Route 1
# ---------------------------------------------------------------------------


def _route1_float(inp: RouteInputs, eps1: float) -> float:
    """Float log of delta_1 at per-step epsilon' = eps1 (planning only)."""
    s, r, e, T, k = float(inp.sigma), float(inp.r), float(inp.epsilon), inp.steps, inp.k
    t = eps1 * s - 1 / (2 * s)
    if t <= 0:
        return math.inf
    et = math.log1p(r * math.expm1(eps1)) if eps1 < 700 else eps1 + math.log(r)
    a = et * min(math.expm1(min(et, 1.0)), 1.0)
    if e <= T * a:
        return math.inf
    log_beta = -((e - T * a) ** 2) / (2 * T * (et + a) ** 2)
    log_sub = math.log(k) - t * t / 2
    return float(np.logaddexp(log_beta, log_sub))


def route1_delta(
    epsilon: object, r: object, k: object, sigma: object, *, digits: float = 8, grid: int = 400
) -> dict[str, Any]:
    r"""Route 1 (Claims 9, 19, 18 with the minimisation over :math:`\tilde\epsilon`), certified.

    A float scan over :math:`\epsilon'` chooses the point; the bound at that point is certified
    (any point gives a valid bound): :math:`\tilde\epsilon` from
    :func:`rigorous_rdp.research.blog.part1.claim19`, :math:`a` of (6.98), :math:`\tilde\delta` from
    :func:`rigorous_rdp.research.blog.part1.gaussian_delta_claim9`, and the Azuma tail (6.99).
    Returns ``{"delta": Certified | None, "epsilon_tilde": ..., "epsilon_prime": ..., "steps": T}``;
    ``delta`` is ``None`` when no :math:`\epsilon'` satisfies :math:`\epsilon > T a(\tilde\epsilon)` and
    :math:`\epsilon'\sigma > 1/(2\sigma)`.
    """
    from .blog.part1 import a_ball, claim19, gaussian_delta_claim9

    inp = RouteInputs.parse(epsilon, r, k, sigma)
    T = inp.steps
    lo = 1 / (2 * float(inp.sigma) ** 2)
    cands = lo * np.exp(np.linspace(1e-6, math.log(1e5), grid))
    vals = [_route1_float(inp, float(x)) for x in cands]
    i = int(np.argmin(vals))
    if not math.isfinite(vals[i]):
        return {
            "delta": None,
            "steps": T,
            "reason": "no epsilon-tilde with epsilon > T a(epsilon-tilde) and eps' sigma^2 > 1/2",
        }
    # refine locally (golden section on the log scale)
    a_, b_ = math.log(cands[max(0, i - 1)]), math.log(cands[min(len(cands) - 1, i + 1)])
    for _ in range(60):
        m1, m2 = a_ + 0.382 * (b_ - a_), a_ + 0.618 * (b_ - a_)
        if _route1_float(inp, math.exp(m1)) < _route1_float(inp, math.exp(m2)):
            b_ = m2
        else:
            a_ = m1
    x = math.exp((a_ + b_) / 2)
    if _route1_float(inp, x) > vals[i]:
        x = float(cands[i])
    eps1 = Fraction(x).limit_denominator(1 << 40)
    sub = claim19(eps1, 0, inp.r, digits=digits + 4)  # epsilon-tilde enclosure
    dl = gaussian_delta_claim9(eps1, inp.sigma, digits=digits + 4)

    def f(prec: int) -> arb:
        et = sub.epsilon.ball
        a = a_ball(et)
        rest = to_arb(inp.epsilon) - T * a
        if not rest > 0:
            return arb.nan()
        beta = (-(rest * rest) / (2 * T * (et + a) ** 2)).exp()
        return beta + inp.k * dl.ball

    d = refine(f, digits, what="route 1 delta")
    return {"delta": d, "steps": T, "epsilon_prime": eps1, "epsilon_tilde": sub.epsilon}


# ---------------------------------------------------------------------------
# Route 2
# ---------------------------------------------------------------------------


def route2_delta(epsilon: object, r: object, k: object, sigma: object, *, digits: float = 8) -> dict[str, Any]:
    r"""Route 2: :math:`\delta_2 = \exp(-k\kappa^*(\epsilon/k))` for k full-batch Gaussian steps (Claim 23,
    Example 3; ``r`` is not used, as in the post)."""
    from .blog.part2_claims import example3_delta

    inp = RouteInputs.parse(epsilon, r, k, sigma)
    return {"delta": example3_delta(inp.epsilon, inp.sigma, inp.k, digits=digits), "steps": inp.k}


# ---------------------------------------------------------------------------
# Route 3 (Claim 28, conditional on Conjecture 1)
# ---------------------------------------------------------------------------


def claim28(epsilon: object, c1: object, c2: object, sigma: object, C: arb) -> dict[str, Any]:
    r"""Claim 28 as stated, for a given constant ``C`` (a ball bounding :math:`G_\lambda`):
    :math:`T = c_2\epsilon\sigma^2/(2C)`, :math:`\delta = e^{-c_2\sigma^2\epsilon/2}`,
    :math:`k = rT` at :math:`r = c_1/\sigma`, the :math:`\sigma` threshold
    :math:`\sqrt{2/c_2}\,\epsilon^{-1/2}\sqrt{\log\delta^{-1}}` (which equals :math:`\sigma`), and the
    implicit conditions with their correct factor 2 (module docstring).  Balls at the current
    precision."""
    e, a, b, s = (
        to_arb(parse_rational(x, n)) for x, n in ((epsilon, "epsilon"), (c1, "c1"), (c2, "c2"), (sigma, "sigma"))
    )
    T = b * e * s * s / (2 * C)
    delta = (-(b * s * s * e) / 2).exp()
    k = a / s * T
    return {
        "T": T,
        "delta": delta,
        "k": k,
        "sigma_threshold": (2 / b).sqrt() * (-delta.log() / e).sqrt(),
        "T_ge_1": bool(T >= 1),
        "k_ge_1": bool(k >= 1),
        "T_ge_epsilon": bool(e <= T),
    }


def route3_delta(
    epsilon: object, r: object, k: object, sigma: object, *, digits: float = 8, lambda_max: int | None = None
) -> dict[str, Any]:
    r"""Route 3 (Claims 26, 28; **conditional on Conjecture 1**), certified given the conjecture.

    Returns ``delta_post`` (Claim 28's :math:`e^{-\lambda\epsilon/2}` at the largest integer
    :math:`\lambda = c_2\sigma^2` with :math:`T \le \lambda\epsilon/(2C)`, :math:`C = G_\lambda` at this
    :math:`\sigma`, or ``None`` if no :math:`\lambda` qualifies or :math:`T < \epsilon`), ``delta_chernoff``
    (:math:`\min_\lambda \exp(T\log G_\lambda - (\lambda-1)\epsilon)`, certified at the chosen
    integer :math:`\lambda`), the constants and the implicit conditions.
    """
    inp = RouteInputs.parse(epsilon, r, k, sigma)
    T = inp.steps
    s, rr, e = inp.sigma, inp.r, inp.epsilon
    fs, fr, fe = float(s), float(rr), float(e)
    lmax = lambda_max or max(64, int(min(1e5, 40 * fs * fs + 4 * T * fe + 64)))
    lams = np.unique(np.round(np.geomspace(2, lmax, 400)).astype(int))
    logg = np.array([log_g_screen(float(lam_j), fr, fs) for lam_j in lams])
    # corrected Chernoff, float choice of lambda
    ch = T * logg - (lams - 1) * fe
    lam_ch = int(lams[int(np.argmin(ch))])
    # largest lambda with 2 T G <= lambda eps  (log form)
    feas = [int(lam_j) for lam_j, g in zip(lams, logg, strict=False) if math.log(2 * T) + g <= math.log(lam_j * fe)]
    out: dict[str, Any] = {"steps": T, "c1": rr * s, "conditional_on": "Conjecture 1"}
    prec = max(64, int(digits * 3.33) + 30)

    def chern(p: int) -> arb:
        return (T * log_g_mixture(Fraction(lam_ch), rr, s, p) - (lam_ch - 1) * to_arb(e)).exp()

    out["delta_chernoff"] = refine(chern, digits, what="route 3 Chernoff delta")
    out["lambda_chernoff"] = lam_ch
    out["delta_post"] = None
    if feas:
        # refine the largest feasible lambda between the scanned points
        lam = max(feas)
        hi_idx = int(np.searchsorted(lams, lam)) + 1
        top = int(lams[hi_idx]) if hi_idx < len(lams) else lam
        for lam_j in range(top, lam, -1):
            if math.log(2 * T) + log_g_screen(float(lam_j), fr, fs) <= math.log(lam_j * fe):
                lam = lam_j
                break
        with workprec(prec):
            G = log_g_mixture(Fraction(lam), rr, s, prec).exp()
            ok = bool(lam * to_arb(e) >= 2 * T * G) and e <= T
            c2 = Fraction(lam) / (s * s)
            info = claim28(e, rr * s, c2, s, G)
        if ok:
            out["delta_post"] = Certified((-(arb(lam) * to_arb(e)) / 2).exp(), prec)
            out["lambda_post"] = lam
            out["c2"] = c2
            out["C"] = Certified(G, prec)
            out["claim28"] = {
                "T_max": Certified(info["T"], prec),
                "k_max": Certified(info["k"], prec),
                "T_ge_1": info["T_ge_1"],
                "k_ge_1": info["k_ge_1"],
            }
    if out["delta_post"] is None:
        out["reason"] = (
            "no integer lambda = c2 sigma^2 with T <= lambda eps / (2 G_lambda)"
            if not feas or e <= T
            else "T < epsilon: Claim 28's exp(TC - lambda eps) is then not implied"
        )
    return out


def compare_routes(epsilon: object, r: object, k: object, sigma: object, *, digits: float = 8) -> dict[str, Any]:
    """All three routes at the same (epsilon, r, k, sigma); JSON-ready dict."""
    d1 = route1_delta(epsilon, r, k, sigma, digits=digits)
    d2 = route2_delta(epsilon, r, k, sigma, digits=digits)
    d3 = route3_delta(epsilon, r, k, sigma, digits=digits)

    def js(c: Certified | None) -> dict[str, str] | None:
        return c.to_json(10) if c is not None else None

    return {
        "epsilon": str(epsilon),
        "r": str(r),
        "k": int(parse_rational(k, "k")),
        "sigma": str(sigma),
        "steps": d1["steps"],
        "delta1": js(d1["delta"]),
        "delta2": js(d2["delta"]),
        "delta3_post": js(d3["delta_post"]),
        "delta3_chernoff": js(d3["delta_chernoff"]),
        "lambda3_post": d3.get("lambda_post"),
        "lambda3_chernoff": d3["lambda_chernoff"],
        "route3_note": "conditional on Conjecture 1",
    }


# ---------------------------------------------------------------------------
# ACGMMTZ16 Theorem 1 as stated (10) versus Claim 28
# ---------------------------------------------------------------------------


def theorem1_from_claim28(c1: object, c2: object, C: arb, epsilon: object, sigma: object) -> dict[str, arb]:
    r"""Constants of (10) implied by Claim 28 and both sides of (10) at Claim 28's :math:`T`.

    With :math:`r = c_1/\sigma`, :math:`T = c_2\epsilon\sigma^2/(2C)`, :math:`\delta = e^{-c_2\sigma^2\epsilon/2}`:
    :math:`c_1' = 2C/(c_1^2c_2)` makes :math:`\epsilon = c_1'r^2T` hold with equality, and
    :math:`c_2' = 2\sqrt C/(c_1c_2)` makes (10) hold with equality,
    :math:`\sigma = c_2' r\sqrt{T\log(1/\delta)}/\epsilon`.  Balls at the current precision.
    """
    a, b, e, s = (
        to_arb(parse_rational(x, n)) for x, n in ((c1, "c1"), (c2, "c2"), (epsilon, "epsilon"), (sigma, "sigma"))
    )
    c1p = 2 * C / (a * a * b)
    c2p = 2 * C.sqrt() / (a * b)
    r = a / s
    T = b * e * s * s / (2 * C)
    log_inv_delta = b * s * s * e / 2
    return {
        "c1_prime": c1p,
        "c2_prime": c2p,
        "T": T,
        "eps_over_r2T": e / (r * r * T),
        "rhs_10": c2p * r * (T * log_inv_delta).sqrt() / e,
        "sigma": s,
    }
