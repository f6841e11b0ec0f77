r"""Birrell et al., Fig. 7: FSwoR (Thm. 3.4) and Poisson (Thm. C.9) replace-one RDP vs Wang et al.

Caption of the seed: "Comparison of our FSwoR-RDP and Poisson-RDP upper bounds
under replace-one adjacency, Theorems 3.4 and C.9 respectively, with the upper
and lower bounds on FSwoR-RDP from Wang et al., (2019). We used sigma_t = 6,
|B| = 120, and |D| = 50,000."  One step; integer orders 2..128 (not stated in the
seed); Taylor order m = 4 for Thm. 3.4 (the seed: "m = 4 suffices") and the
default order of our Thm. C.9 implementation for Poisson.
"""

from __future__ import annotations

from pathlib import Path

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import save_figure, subplots
from rigorous_rdp.paper_repro.birrell2024 import _privacy_curves as P

ID = "birrell2024-fig7"
TITLE = "Fig. 7: replace-one RDP, FSwoR (Thm 3.4) vs Poisson (Thm C.9) vs Wang et al. bounds, one step"
SOURCE = SEED_FILES["birrell2024"]

M = 4
ALPHAS = tuple(range(2, 129))
FAST_ALPHAS = (2, 8, 32, 64)


def main(out_dir: Path, fast: bool = False) -> dict:
    alphas = FAST_ALPHAS if fast else ALPHAS
    curves = {
        "fswor_thm3.4": P.rdp_upper(P.fswor_r1(M), alphas),
        "poisson_thmC.9": P.rdp_upper(P.poisson_r1(), alphas),
        "wang_upper": P.rdp_upper(P.wang_upper(), alphas),
        "wang_lower": P.wang_lower_rdp(alphas),
    }
    fig, ax = subplots(figsize=(7.5, 5))
    ax.plot(alphas, curves["fswor_thm3.4"], "-", color="tab:blue", lw=1.5, label=f"FSwoR, Thm 3.4 (m = {M})")
    ax.plot(alphas, curves["poisson_thmC.9"], "--", color="tab:orange", lw=1.5, label="Poisson, Thm C.9")
    P.plot_wang_lower(ax, alphas, curves["wang_lower"], "FSwoR lower bound, Wang et al. (2019)")
    ax.plot(alphas, curves["wang_upper"], "-.", color="k", lw=1.2, label="FSwoR upper bound, Wang et al. (2019)")
    P.finish_one_step(ax, "Fig. 7", fast)
    below = [a for a, p, lo in zip(alphas, curves["poisson_thmC.9"], curves["wang_lower"], strict=True) if p < lo]
    above = [a for a, f, lo in zip(alphas, curves["fswor_thm3.4"], curves["wang_lower"], strict=True) if f >= lo]
    data = {"alpha": list(alphas), "rdp": curves, "orders_poisson_below_wang_lower": below}
    data["orders_fswor_at_or_above_wang_lower"] = above
    return save_figure(fig, data, out_dir, ID, params=P.setting(steps=1, m=M), fast=fast)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
