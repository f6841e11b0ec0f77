r"""Blog part 2, Claim 24 / Example 4 against the exact subsampled-Gaussian RDP and the O(r^2) of Claim 26.

Left: RDP at a fixed order :math:`\lambda` and noise :math:`\sigma` as a function of the
sampling rate r:

* Claim 24 applied to the Gaussian mechanism (Example 4),
  :math:`(\lambda-1)^{-1}\log(1 + r(e^{(\lambda-1)\lambda/2\sigma^2} - 1))` -- linear in r;
* its relaxation :math:`(\lambda-1)^{-1} r(e^{(\lambda-1)\lambda/2\sigma^2} - 1)`;
* the exact :math:`D_\lambda(r\mu_1 + (1-r)\mu_0 \| \mu_0)` from (9.5) (Claim 27 with Example 1),
  the right-hand side of Conjecture 1 and the exact RDP of the Poisson-subsampled Gaussian;
* its leading term :math:`\binom{\lambda}{2} r^2 (e^{1/\sigma^2} - 1)/(\lambda-1) = \lambda r^2(e^{1/\sigma^2}-1)/2`;
* the Gaussian mechanism without subsampling, :math:`\lambda/2\sigma^2`.

Right: the regime of Claim 26, :math:`r = c_1/\sigma`, :math:`\lambda = \lfloor c_2\sigma^2 \rfloor`, as a
function of sigma: the exact mixture RDP follows :math:`r^2\lambda/\sigma^2 = O(\sigma^{-2})`, while
Claim 24 stays at the unsampled order :math:`\lambda/2\sigma^2 = O(1)` there.

Claim 24 is a statement about sampling without replacement (replace-one
neighbours); the exact curve is that of the mixture that Conjecture 1 compares
with.  Every plotted value is the upper end of a certified enclosure.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots

ID = "blog2-claim24"
TITLE = "Blog part 2: Claim 24 / Example 4 vs exact subsampled-Gaussian RDP (9.5) vs the O(r^2) of Claim 26"
SOURCE = SEED_FILES["blog2"]

ORDER = 8
SIGMA = Fraction(2)
R_RANGE = (-5.0, 0.0)  # log10 r
N_R = 26
FAST_N_R = 6
C1 = Fraction(1)
C2 = Fraction(1, 2)
SIGMAS = [2, 3, 4, 6, 8, 12, 16, 24, 32]
FAST_SIGMAS = [2, 4, 8]


def main(out_dir: Path, fast: bool = False) -> dict:
    from rigorous_rdp.research.blog import part2_claims as C

    lam, s = ORDER, SIGMA
    rs = [Fraction(f"{x:.3g}") for x in np.logspace(R_RANGE[0], R_RANGE[1], FAST_N_R if fast else N_R)]
    rho = Fraction(lam) / (2 * s * s)
    left: dict[str, list[float]] = {
        "Claim 24 (Example 4)": [],
        "Claim 24 relaxed": [],
        "exact (9.5)": [],
        "leading term of (9.5)": [],
    }
    for r in rs:
        left["Claim 24 (Example 4)"].append(C.example4_rdp(lam, r, s, digits=6).upper_float())
        left["Claim 24 relaxed"].append(C.claim24_relaxed(rho, lam, r, digits=6).upper_float())
        left["exact (9.5)"].append(C.eq95_rdp(lam, r, s, digits=6).upper_float())
        left["leading term of (9.5)"].append(lam * float(r) ** 2 * math.expm1(1 / float(s) ** 2) / 2)
    unsampled = float(rho)

    sig = FAST_SIGMAS if fast else SIGMAS
    right: dict[str, list[float]] = {
        "Claim 24 (Example 4)": [],
        "exact (9.5)": [],
        "unsampled": [],
        "r^2 lambda / sigma^2": [],
        "r": [],
        "lambda": [],
    }
    for sg in sig:
        sgf = Fraction(sg)
        r = C1 / sgf
        lm = max(2, math.floor(C2 * sgf * sgf))
        right["r"].append(float(r))
        right["lambda"].append(lm)
        right["Claim 24 (Example 4)"].append(C.example4_rdp(lm, r, sgf, digits=6).upper_float())
        right["exact (9.5)"].append(C.eq95_rdp(lm, r, sgf, digits=6).upper_float())
        right["unsampled"].append(lm / (2 * float(sgf) ** 2))
        right["r^2 lambda / sigma^2"].append(float(r) ** 2 * lm / float(sgf) ** 2)

    fig, axes = subplots(1, 2, figsize=(14, 5.2))
    rf = [float(r) for r in rs]
    st: dict[str, dict[str, Any]] = {  # keyword arguments of Axes.plot
        "Claim 24 (Example 4)": dict(color="C0", marker="o", ms=3),
        "Claim 24 relaxed": dict(color="C0", ls="--"),
        "exact (9.5)": dict(color="k", lw=2.2),
        "leading term of (9.5)": dict(color="C3", ls=":"),
    }
    for name, v in left.items():
        axes[0].plot(rf, v, label=name, **st[name])
    axes[0].axhline(unsampled, color="0.5", ls="-.", label=r"no subsampling $\lambda/2\sigma^2$")
    title = rf"$\lambda = {lam}$, $\sigma = {float(s):g}$: Claim 24 is $O(r)$, the exact mixture RDP is $O(r^2)$"
    decorate(axes[0], xlabel="sampling rate r", ylabel=r"RDP at order $\lambda$", title=title, title_size=10, log="xy")
    axes[1].plot(sig, right["Claim 24 (Example 4)"], color="C0", marker="o", label="Claim 24 (Example 4)")
    axes[1].plot(sig, right["exact (9.5)"], color="k", lw=2.2, marker="s", ms=4, label="exact (9.5)")
    axes[1].plot(sig, right["unsampled"], color="0.5", ls="-.", label=r"no subsampling $\lambda/2\sigma^2$")
    axes[1].plot(
        sig, right["r^2 lambda / sigma^2"], color="C3", ls=":", label=r"$r^2\lambda/\sigma^2$ (Claim 26 order)"
    )
    decorate(
        axes[1],
        xlabel=r"$\sigma$",
        ylabel=r"RDP at order $\lambda$",
        title=rf"Claim 26 regime: $r = {float(C1):g}/\sigma$, $\lambda = \lfloor {float(C2):g}\,\sigma^2 \rfloor$",
        title_size=10,
        log="xy",
    )
    axes[1].set_xticks(sig)
    from matplotlib import ticker as mticker

    axes[1].xaxis.set_major_formatter(mticker.ScalarFormatter())
    axes[1].xaxis.set_minor_formatter(mticker.NullFormatter())
    data = {
        "title": TITLE,
        "left": {"order": lam, "sigma": float(s), "r": rf, "rdp": left, "unsampled": unsampled},
        "right": {"c1": float(C1), "c2": float(C2), "sigma": sig, **right},
        "note": "upper ends of certified enclosures; the leading term and reference lines are plain floats",
    }
    return save_figure(fig, data, out_dir, ID)
