r"""Zhu & Wang 2019, Fig. 4: epsilon at delta = 1e-8 after k compositions (moments accountant vs (eps, delta) tools).

Settings as in Sec. 4 and the authors' scripts: :math:`\gamma = 0.001`, :math:`\delta = 10^{-8}`,
k up to 60000; high privacy :math:`\sigma = 5, b = 2, p = 0.6`, low privacy
:math:`\sigma = 1, b = 0.5, p = 0.9`.  Every plotted epsilon is a certified upper bound
(the upper end of an arb enclosure).

Moments accountant ("MA") lines use the conversion (2) of the seed,
:math:`\epsilon = \min_\alpha k\,\epsilon(\alpha) + \log(1/\delta)/(\alpha-1)`, over integer orders
2..2048 (the minimum is taken over certified upper ends, so any choice of order is
valid), with the per-step RDP from

* Theorem 8 (tight; condition (4) holds for all three mechanisms),
* Theorem 5 (general upper bound),
* Wang et al. 2019 (sampling without replacement, same base RDP),
* Abadi et al. 2016 Lemma 3 (Gaussian; orders limited to its validity range).

(epsilon, delta) baselines: one step is (eps0, delta0)-DP -- Gaussian: the exact
analytic Gaussian mechanism (Balle & Wang 2018), delta0 optimised; Laplace and
randomized response: pure DP, delta0 = 0 -- amplified by Lemma 4 (Li et al. 2012)
to :math:`(\log(1+\gamma(e^{\epsilon_0}-1)), \gamma\delta_0)` and composed k times with

* the exact optimal composition of Kairouz, Oh & Viswanath 2015 ("optimal strong
  composition"; the seed tunes KOV's Thm 3.4 approximations, we use the exact
  Thm 3.3 formula, which is never worse),
* advanced composition (Dwork, Rothblum & Vadhan 2010),
* basic ("naive") composition.

For the Gaussian, delta0 is chosen by a float search (screening only); the value
at the chosen delta0 is then certified.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from pathlib import Path

import numpy as np
from flint import arb

from rigorous_rdp.arith import workprec
from rigorous_rdp.curves import RdpCurve
from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro.zhuwang2019._common import (
    DATASET_SIZE,
    GAMMA,
    base_curve,
    finish_panel,
    panel_grid,
    save_panels,
)
from rigorous_rdp.research.abadi import abadi_lemma3_rdp, abadi_validity_range
from rigorous_rdp.subsampling.wang2019 import wang2019_curve
from rigorous_rdp.subsampling.zhu_wang import ZhuWangCurve

ID = "zhuwang2019-fig4"
TITLE = "Fig. 4: epsilon at delta = 1e-8 vs number of compositions k"
SOURCE = SEED_FILES["zhuwang2019"]

DELTA = Fraction(1, 10**8)
KS = [2**i for i in range(0, 16)] + [60000]
FAST_KS = [1, 64, 4096, 60000]
ORDERS = [*list(range(2, 65)), 72, 80, 96, 112, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024, 1536, 2048]
FAST_ORDERS = [*list(range(2, 33)), 48, 64, 96, 128, 256, 512, 1024]
PREC = 96


# ---------------------------------------------------------------------------
# moments accountant with conversion (2)
# ---------------------------------------------------------------------------


def _rdp_uppers(curve: RdpCurve, orders: list[int]) -> dict[int, arb]:
    out = {}
    with workprec(PREC):
        for a in orders:
            v = curve.certified(Fraction(a))
            out[a] = arb(v.upper()) if v.is_finite() else arb("inf")
    return out


def ma_epsilon(uppers: dict[int, arb], k: int) -> tuple[float, int]:
    """Certified upper bound min_alpha [k eps(alpha) + log(1/delta)/(alpha-1)] and the order used."""
    best: arb | None = None
    best_a: int | None = None
    with workprec(PREC):
        ld = -(arb(DELTA.numerator) / DELTA.denominator).log()
        for a, u in uppers.items():
            if not u.is_finite():
                continue
            v = (k * u + ld / (a - 1)).upper()
            if best is None or v < best:
                best, best_a = v, a
    if best is None or best_a is None:
        raise ValueError("no order has a finite RDP upper bound")
    return float(best), best_a


# ---------------------------------------------------------------------------
# (epsilon, delta) baselines
# ---------------------------------------------------------------------------


def _kov_eps_float(eps: float, delta: float, k: int, target: float) -> float:
    """Float KOV15 epsilon by bisection on a windowed float sum (screening only)."""
    from scipy import special  # here, not at import: listing the figures stays fast

    if -math.expm1(k * math.log1p(-delta)) >= target:
        return math.inf
    ls = np.arange(0, k + 1, dtype=float)
    lp = (
        special.gammaln(k + 1)
        - special.gammaln(ls + 1)
        - special.gammaln(k - ls + 1)
        + (k - ls) * eps
        - k * np.logaddexp(0.0, eps)
    )
    keep = lp > lp.max() - 80
    ls, lp = ls[keep], lp[keep]
    base = (k - 2 * ls) * eps
    lk = k * math.log1p(-delta)

    def dfun(g: float) -> float:
        expo = base - g
        m = expo > 0
        if not m.any():
            return -math.expm1(lk)
        hom = math.exp(special.logsumexp(lp[m] + np.log(-np.expm1(-expo[m]))))
        return 1.0 if hom >= 1.0 else -math.expm1(lk + math.log1p(-hom))

    if dfun(0.0) <= target:
        return 0.0
    lo, hi = 0.0, k * eps
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if dfun(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def _gauss_eps_float(sigma: float, d0: float) -> float:
    from rigorous_rdp.research.gaussian_dp import gaussian_delta_float  # imports SciPy: here, not at import

    lo, hi = 0.0, 1.0
    while gaussian_delta_float(hi, sigma) > d0:
        hi *= 2
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if gaussian_delta_float(mid, sigma) > d0:
            lo = mid
        else:
            hi = mid
    return hi


def _amp_float(e0: float) -> float:
    return math.log1p(float(GAMMA) * math.expm1(e0))


def _adv_float(e1: float, d1: float, k: int, target: float) -> float:
    slack = target - k * d1
    if slack <= 0:
        return math.inf
    return min(k * e1, math.sqrt(2 * k * math.log(1 / slack)) * e1 + k * e1 * math.expm1(e1))


def _best_delta0(sigma: float, k: int, objective: Callable[[float, float], float]) -> tuple[float, float]:
    """Float search of the base delta0 for the Gaussian (screening only)."""
    dmax = float(DELTA) / (k * float(GAMMA))
    grid = dmax * np.logspace(-5, np.log10(0.999), 16)
    vals = []
    for d0 in grid:
        e1 = _amp_float(_gauss_eps_float(sigma, d0))
        vals.append(objective(e1, float(GAMMA) * d0))
    i = int(np.argmin(vals))
    return float(grid[i]), float(vals[i])


def _step_dp(mech: str, param: Fraction, d0: float | None) -> tuple[arb, arb]:
    """Certified (eps', delta') of one amplified step."""
    # here, not at import (the module imports SciPy): listing the figures stays fast
    from rigorous_rdp.research.composition import amplify_poisson
    from rigorous_rdp.research.gaussian_dp import gaussian_epsilon

    with workprec(PREC):
        if mech == "gaussian":
            if d0 is None:
                raise ValueError("the Gaussian step needs a base delta0")
            d0q = Fraction(d0).limit_denominator(10**30)
            e0 = gaussian_epsilon(d0q, param, digits=12).upper()
            return amplify_poisson(arb(e0), d0q, GAMMA)
        e_inf = base_curve(mech, param).pure_dp_epsilon()
        if e_inf is None:
            raise ValueError(f"{mech} is not pure DP: no (epsilon, 0) step to amplify")
        return amplify_poisson(arb(e_inf.upper()), 0, GAMMA)


def baselines(mech: str, param: Fraction, ks: list[int]) -> dict[str, list[float | None]]:
    # here, not at import (the module imports SciPy): listing the figures stays fast
    from rigorous_rdp.research.composition import (
        advanced_composition,
        amplify_poisson,
        basic_composition,
        optimal_composition_epsilon,
    )
    from rigorous_rdp.research.gaussian_dp import gaussian_epsilon

    out: dict[str, list[float | None]] = {
        "kov_optimal": [],
        "advanced": [],
        "basic": [],
        "kov_delta0": [],
        "adv_delta0": [],
    }
    target = float(DELTA)
    for k in ks:
        d_kov: float | None
        d_adv: float | None
        if mech == "gaussian":
            s = float(param)
            d_kov, _ = _best_delta0(s, k, partial(_kov_eps_float, k=k, target=target))
            d_adv, _ = _best_delta0(s, k, partial(_adv_float, k=k, target=target))
        else:
            d_kov = d_adv = None
        e1, d1 = _step_dp(mech, param, d_kov)
        out["kov_optimal"].append(optimal_composition_epsilon(e1, d1, k, DELTA, digits=8).upper_float())
        e1, d1 = _step_dp(mech, param, d_adv)
        with workprec(PREC):
            out["advanced"].append(float(advanced_composition(e1, d1, k, DELTA).upper()))
        if mech == "gaussian":
            # all of the delta budget on the steps: k * gamma * delta0 = delta (the bound is then exactly delta)
            d0q = DELTA / (k * GAMMA)
            with workprec(PREC):
                e0 = gaussian_epsilon(d0q, param, digits=12).upper()
                e1, d1 = amplify_poisson(arb(e0), d0q, GAMMA)
        else:
            e1, d1 = _step_dp(mech, param, None)
        with workprec(PREC):
            out["basic"].append(float(basic_composition(e1, d1, k)[0].upper()))
        out["kov_delta0"].append(d_kov)
        out["adv_delta0"].append(d_adv)
    return out


def panel(mech: str, param: Fraction, ks: list[int], orders: list[int]) -> dict[str, object]:
    base = base_curve(mech, param)
    d: dict[str, object] = {"k": ks}
    curves: dict[str, RdpCurve] = {
        "ma_tight_thm8": ZhuWangCurve(base, GAMMA, "tight"),
        "ma_general_thm5": ZhuWangCurve(base, GAMMA, "general"),
        "ma_wang2019": wang2019_curve(base, int(GAMMA * DATASET_SIZE), DATASET_SIZE),
    }
    for name, curve in curves.items():
        up = _rdp_uppers(curve, orders)
        res = [ma_epsilon(up, k) for k in ks]
        d[name] = [r[0] for r in res]
        d[name + "_order"] = [r[1] for r in res]
    if mech == "gaussian":
        try:
            lim = abadi_validity_range(GAMMA, param) + 1
            with workprec(PREC):
                up = {a: arb(abadi_lemma3_rdp(a, GAMMA, param).upper()) for a in orders if a <= lim}
            res = [ma_epsilon(up, k) for k in ks]
            d["ma_abadi_lemma3"] = [r[0] for r in res]
            d["ma_abadi_lemma3_order"] = [r[1] for r in res]
        except ValueError as exc:
            d["ma_abadi_lemma3_not_applicable"] = str(exc)
    d.update(baselines(mech, param, ks))
    return d


STYLE = {
    "basic": ("c-^", "naive composition"),
    "kov_optimal": ("r-^", "optimal strong composition [KOV15]"),
    "advanced": ("m:", "advanced composition"),
    "ma_general_thm5": ("g-^", "MA, general upper bound (Thm 5)"),
    "ma_wang2019": ("b-s", "MA, Wang et al. 2019 (w/o replacement)"),
    "ma_tight_thm8": ("k--", "MA, tight bound (Thm 8)"),
    "ma_abadi_lemma3": ("r--", "MA, Abadi et al. 2016 Lemma 3"),
}


def main(out_dir: Path, fast: bool = False) -> dict:
    ks = FAST_KS if fast else KS
    orders = FAST_ORDERS if fast else ORDERS
    fig, cells = panel_grid()
    panels: dict[str, dict[str, object]] = {}
    conversion = "eq. (2) of the seed: min over orders of k eps(alpha) + log(1/delta)/(alpha-1)"
    header: dict[str, object] = {"delta": str(DELTA), "orders": orders, "conversion": conversion}
    for ax, regime, mech, param in cells:
        d = panel(mech, param, ks, orders)
        panels[f"{regime}/{mech}"] = d
        for key, (fmt, label) in STYLE.items():
            if key in d:
                ax.loglog(ks, d[key], fmt, ms=3, lw=1.5, label=label)
        finish_panel(
            ax, mech, param, regime, r"$\gamma=0.001$, $\delta=10^{-8}$", "number of compositions $k$", r"$\epsilon$"
        )
    return save_panels(fig, panels, header, out_dir, ID, title=TITLE, source=SOURCE, wang2019_included=True)


if __name__ == "__main__":
    main(Path("figures"))
