r"""Blog part 1 (Claims 10, 18) and part 2 (Claim 23 / Example 3): composition of Gaussian mechanisms.

k adaptive Gaussian mechanisms with noise sigma (sensitivity 1), total
delta = 1e-5; the total epsilon as a function of k for

* basic composition (Claim 10): k steps at :math:`\delta_0 = \delta/k`, each with its exact
  per-step epsilon (analytic Gaussian mechanism);
* advanced adaptive composition, blog Claim 18 (with a(epsilon) of (6.98)) and
  Dwork & Roth 2014 Thm. 3.20, with the split :math:`\delta = k\delta_0 + \beta`
  chosen best among a few fractions :math:`\beta/\delta`;
* the optimal composition of (epsilon_0, delta_0)-DP steps (Kairouz, Oh,
  Viswanath 2015), with the same splits;
* RDP: Claim 22 (moment composition) then Claim 21 item 3 at the best order
  (= Example 3 inverted for epsilon: :math:`k/2\sigma^2 + \sqrt{2k\log(1/\delta)}/\sigma`);
* exact: the k-fold composition of Gaussians is one Gaussian mechanism with
  noise :math:`\sigma/\sqrt k`, whose exact epsilon(delta) is the optimum.

Every plotted value is the upper end of a certified enclosure.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots

ID = "blog1-composition"
TITLE = "Blog parts 1-2: basic vs advanced (Claim 18, Dwork-Roth 3.20) vs optimal vs RDP composition vs k (Gaussian)"
SOURCE = SEED_FILES["blog1"]

SIGMA = Fraction(20)
DELTA = Fraction(1, 10**5)
K_GRID = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
FAST_K_GRID = [1, 10, 100, 1000]
BETA_FRACTIONS = [Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)]
KOV_MAX_K = 10000


def _rdp_epsilon(k: int) -> float:
    from rigorous_rdp.research.blog.part2_claims import claim21_epsilon

    s2 = SIGMA * SIGMA
    L = math.log(1 / float(DELTA))
    lam = 1 + Fraction(f"{math.sqrt(2 * float(s2) * L / k):.6g}")  # near-optimal order, exact rational
    rho = k * lam / (2 * s2)  # Claim 22: k-fold RDP of the Gaussian mechanism
    return claim21_epsilon(rho, lam, DELTA, digits=6).upper_float()


def main(out_dir: Path, fast: bool = False) -> dict:
    from flint import arb

    from rigorous_rdp.arith import Certified
    from rigorous_rdp.research.blog import part1 as P
    from rigorous_rdp.research.composition import advanced_composition_epsilon, optimal_composition_epsilon
    from rigorous_rdp.research.gaussian_dp import gaussian_epsilon

    ks = FAST_K_GRID if fast else K_GRID
    out: dict[str, list[float | None]] = {
        name: []
        for name in (
            "basic (Claim 10)",
            "advanced, blog Claim 18",
            "advanced, Dwork-Roth 3.20",
            "optimal composition (KOV15)",
            "RDP (Claims 22 + 21; Example 3)",
            "exact (Gaussian with sigma/sqrt k)",
        )
    }
    for k in ks:
        e0 = gaussian_epsilon(DELTA / k, SIGMA, digits=8)
        out["basic (Claim 10)"].append(k * e0.upper_float())
        best18 = best_dr = best_kov = math.inf
        for bf in BETA_FRACTIONS:
            beta = DELTA * bf
            d0 = (DELTA - beta) / k
            e0b = Fraction(gaussian_epsilon(d0, SIGMA, digits=8).upper_float())  # a valid per-step epsilon
            best18 = min(best18, P.claim18(e0b, d0, k, beta, digits=6).epsilon.upper_float())
            v_dr = advanced_composition_epsilon(e0b, k, beta, prec=128)
            best_dr = min(best_dr, Certified(v_dr, 128).upper_float())
            if k <= KOV_MAX_K and (not fast or k <= 100):
                kov = optimal_composition_epsilon(e0b, d0, k, DELTA, digits=6)
                best_kov = min(best_kov, kov.upper_float())
        out["advanced, blog Claim 18"].append(best18)
        out["advanced, Dwork-Roth 3.20"].append(best_dr)
        out["optimal composition (KOV15)"].append(best_kov if math.isfinite(best_kov) else None)
        out["RDP (Claims 22 + 21; Example 3)"].append(_rdp_epsilon(k))
        out["exact (Gaussian with sigma/sqrt k)"].append(
            gaussian_epsilon(DELTA, SIGMA, arb(k).sqrt(), digits=8).upper_float()
        )

    fig, ax = subplots(figsize=(8, 5.5))
    styles: dict[str, dict[str, Any]] = {  # keyword arguments of Axes.plot
        "basic (Claim 10)": dict(color="C0", marker="o"),
        "advanced, blog Claim 18": dict(color="C1", marker="s"),
        "advanced, Dwork-Roth 3.20": dict(color="C2", marker="^", ls="--"),
        "optimal composition (KOV15)": dict(color="C4", marker="v"),
        "RDP (Claims 22 + 21; Example 3)": dict(color="C3", marker="D"),
        "exact (Gaussian with sigma/sqrt k)": dict(color="k", lw=2.2),
    }
    for name, vals in out.items():
        v = np.array([np.nan if x is None else x for x in vals], dtype=float)
        ax.plot(ks, v, label=name, ms=4, **styles[name])
    title = rf"k Gaussian mechanisms, $\sigma = {float(SIGMA):g}$, total $\delta = {float(DELTA):g}$"
    decorate(ax, xlabel="number of compositions k", ylabel=r"total $\epsilon$", title=title, title_size=10, log="xy")
    data = {
        "title": TITLE,
        "sigma": float(SIGMA),
        "delta": float(DELTA),
        "k": ks,
        "epsilon": out,
        "beta_fractions": [float(b) for b in BETA_FRACTIONS],
        "note": "per-step epsilon from the exact Gaussian delta(epsilon); advanced/optimal use the best of the beta "
        "fractions; values are upper ends of certified enclosures",
    }
    return save_figure(fig, data, out_dir, ID)
