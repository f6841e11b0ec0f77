r"""Blog part 1, Claim 9: the Gaussian-mechanism noise calibrations against the exact mechanism.

The post has no figures; this one shows its quantitative comparison of the
noise levels that give :math:`(\epsilon, \delta)`-DP (sensitivity 1): (6.81),
(6.82), (6.83), (6.84), the exact solution of (6.91) (the smallest sigma that
(6.8) certifies), Dwork & Roth 2014 Thm. A.1 (only for epsilon < 1, as quoted in
the post), and the exact smallest sigma of the analytic Gaussian mechanism
(Balle & Wang 2018) as the reference.  Right panel: delta of (6.8) against the
exact delta(epsilon) at fixed sigma.  Every plotted value is the upper end of a
certified enclosure.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots

ID = "blog1-gaussian-calibrations"
TITLE = "Blog part 1, Claim 9: sigma calibrations (6.81)-(6.84), Dwork-Roth Thm A.1, exact Gaussian mechanism"
SOURCE = SEED_FILES["blog1"]

DELTA = Fraction(1, 10**5)
EPS_RANGE = (-2.0, 1.0)  # log10 of epsilon
N_EPS = 31
FAST_N_EPS = 7
SIGMA_DELTA_PANEL = Fraction(5)  # sigma of the right panel
EPS_DELTA_PANEL = (0.05, 3.0)

STYLES: dict[str, dict[str, Any]] = {  # keyword arguments of Axes.plot
    "(6.81)": dict(color="C0", ls="-"),
    "(6.82)": dict(color="C1", ls="-"),
    "(6.83)": dict(color="C2", ls="--"),
    "(6.84)": dict(color="C3", ls="--"),
    "(6.91) exact solution": dict(color="C4", ls=":"),
    "Dwork-Roth A.1": dict(color="C5", ls="-."),
    "exact (analytic Gaussian)": dict(color="k", ls="-", lw=2.2),
}


def _eps_grid(n: int) -> list:
    # short decimal epsilons (exact rationals)
    return [Fraction(f"{x:.4g}") for x in np.logspace(EPS_RANGE[0], EPS_RANGE[1], n)]


def main(out_dir: Path, fast: bool = False) -> dict:
    from rigorous_rdp.research.blog import part1 as P

    eps = _eps_grid(FAST_N_EPS if fast else N_EPS)
    sig: dict[str, list[float | None]] = {name: [] for name in P.GAUSSIAN_CALIBRATIONS}
    for e in eps:
        for name, f in P.GAUSSIAN_CALIBRATIONS.items():
            if name == "Dwork-Roth A.1" and e >= 1:
                sig[name].append(None)
                continue
            sig[name].append(f(e, DELTA, digits=6).upper_float())
    # right panel: delta of (6.8) vs exact delta at fixed sigma
    s = SIGMA_DELTA_PANEL
    e_min = float(1 / (2 * s * s))  # (6.8) needs eps > 1/(2 sigma^2)
    eps2 = [
        Fraction(f"{x:.4g}")
        for x in np.linspace(max(EPS_DELTA_PANEL[0], e_min * 1.01), EPS_DELTA_PANEL[1], 8 if fast else 40)
    ]
    d68 = [P.gaussian_delta_claim9(e, s, digits=6).upper_float() for e in eps2]
    dex = [P.gaussian_delta_exact(e, s, digits=6).upper_float() for e in eps2]

    fig, axes = subplots(1, 3, figsize=(16, 4.6))
    ef = [float(e) for e in eps]
    exact = np.array(sig["exact (analytic Gaussian)"], dtype=float)
    for name, vals in sig.items():
        v = np.array([np.nan if x is None else x for x in vals], dtype=float)
        axes[0].plot(ef, v, label=name, **STYLES[name])
        axes[1].plot(ef, v / exact, label=name, **STYLES[name])
    decorate(
        axes[0],
        xlabel=r"$\epsilon$",
        ylabel=r"noise $\sigma$ (sensitivity 1)",
        title=rf"smallest certified $\sigma$ for $(\epsilon, \delta={float(DELTA):g})$-DP",
        log="xy",
    )
    decorate(
        axes[1],
        xlabel=r"$\epsilon$",
        ylabel=r"$\sigma$ / exact $\sigma$",
        title="ratio to the analytic Gaussian mechanism",
        xlog=True,
        legend_size=None,
    )
    axes[2].plot([float(e) for e in eps2], d68, color="C0", label="(6.8) (Chernoff bound (6.5))")
    axes[2].plot([float(e) for e in eps2], dex, color="k", lw=2.2, label="exact $\\delta(\\epsilon)$ (Balle-Wang)")
    decorate(
        axes[2], xlabel=r"$\epsilon$", ylabel=r"$\delta$", title=rf"$\delta$ at $\sigma = {float(s):g}$", ylog=True
    )
    fig.suptitle(
        "Blog part 1, Claim 9: Gaussian mechanism calibrations (upper ends of certified enclosures)", fontsize=11
    )
    data = {
        "title": TITLE,
        "delta": float(DELTA),
        "epsilon": ef,
        "sigma": sig,
        "delta_panel": {"sigma": float(s), "epsilon": [float(e) for e in eps2], "delta_6_8": d68, "delta_exact": dex},
        "note": "values are upper ends of certified enclosures (6 digits); Dwork-Roth A.1 only for epsilon < 1",
    }
    return save_figure(fig, data, out_dir, ID)
