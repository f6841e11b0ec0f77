r"""Blog part 2, Claims 21-23 and Example 3: RDP to (epsilon, delta) for composed Gaussian mechanisms.

k = 50 adaptive Gaussian mechanisms with noise sigma = 10 (sensitivity 1) are
(lambda, k lambda / 2 sigma^2)-RDP (Example 1, Claim 22).  Plotted against epsilon:

* Claim 21 item 1, :math:`\delta = \exp((\lambda-1)(\rho - \epsilon))`, at a few fixed orders;
* Claim 21 item 2 / Claim 23, :math:`\delta = \exp(-k\kappa^*(\epsilon/k))` with the certified
  Legendre transform of :math:`\kappa(t) = t(t+1)/2\sigma^2` -- the lower envelope of item 1,
  equal to Example 3's closed form;
* the exact delta(epsilon) of the composition (one Gaussian mechanism with noise
  :math:`\sigma/\sqrt k`, Balle & Wang 2018).

Every plotted value is the upper end of a certified enclosure.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots

ID = "blog2-claim21"
TITLE = (
    "Blog part 2, Claims 21-23 / Example 3: delta(epsilon) of k composed Gaussians, fixed orders vs Legendre vs exact"
)
SOURCE = SEED_FILES["blog2"]

SIGMA = Fraction(10)
K = 50
ORDERS = [2, 4, 8, 16]
EPS_RANGE = (0.5, 6.0)
N_EPS = 45
FAST_N_EPS = 8


def main(out_dir: Path, fast: bool = False) -> dict:
    from flint import arb

    from rigorous_rdp.arith import refine
    from rigorous_rdp.research.blog import part2_claims as C
    from rigorous_rdp.research.gaussian_dp import gaussian_delta

    eps = [Fraction(f"{x:.4g}") for x in np.linspace(EPS_RANGE[0], EPS_RANGE[1], FAST_N_EPS if fast else N_EPS)]
    s = SIGMA
    fixed: dict[int, list[float]] = {lam: [] for lam in ORDERS}
    legendre: list[float] = []
    exact: list[float] = []

    def s_arb() -> arb:
        return arb(int(s))

    def kap(t: arb) -> arb:
        return t * (t + 1) / (2 * s_arb() * s_arb())

    def dk(t: arb) -> arb:
        return (2 * t + 1) / (2 * s_arb() * s_arb())

    for e in eps:
        for lam in ORDERS:
            rho = K * Fraction(lam) / (2 * s * s)
            fixed[lam].append(min(1.0, C.claim21_delta(rho, lam, e, digits=6).upper_float()))
        legendre.append(C.claim23_delta(kap, dk, e, K, digits=6).upper_float())

        def exact_delta(prec: int, e: Fraction = e) -> arb:
            return gaussian_delta(e, s, arb(K).sqrt())

        exact.append(refine(exact_delta, 6, what="exact delta").upper_float())

    fig, ax = subplots(figsize=(8, 5.5))
    ef = [float(e) for e in eps]
    for i, lam in enumerate(ORDERS):
        ax.plot(ef, fixed[lam], color=f"C{i}", ls="--", lw=1, label=rf"Claim 21 item 1, $\lambda = {lam}$")
    ax.plot(ef, legendre, color="C3", lw=2, label=r"Claim 21 item 2 / Claim 23: $\exp(-k\kappa^*(\epsilon/k))$")
    ax.plot(ef, exact, color="k", lw=2.2, label="exact (Gaussian with $\\sigma/\\sqrt{k}$)")
    decorate(
        ax,
        xlabel=r"$\epsilon$",
        ylabel=r"$\delta$",
        title=rf"k = {K} Gaussian mechanisms, $\sigma = {float(s):g}$: RDP to DP",
        title_size=10,
        ylog=True,
    )
    ax.set_ylim(min(exact) / 10, 2)
    data = {
        "title": TITLE,
        "sigma": float(s),
        "k": K,
        "epsilon": ef,
        "delta_fixed_order": {str(k): v for k, v in fixed.items()},
        "delta_legendre": legendre,
        "delta_exact": exact,
        "note": "upper ends of certified enclosures; item 1 clipped at 1",
    }
    return save_figure(fig, data, out_dir, ID)
