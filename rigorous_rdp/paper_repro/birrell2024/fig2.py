r"""Birrell et al., Fig. 2: FSwoR-RDP under replace-one adjacency, Thm. 3.4 for several m, vs Wang et al.

Caption of the seed: "Comparison of FSwoR-RDP bounds under replace-one adjacency
from Theorem 3.4 for various choices of m with the upper and lower bounds from
Wang et al., (2019). We used sigma_t = 6, |B| = 120, and |D| = 50,000."  One
step (T = 1).  The seed does not state the orders plotted; we use the integer
orders 2..128 (the lower bound (133) is defined at integer orders), which also
show the "phase transition" of the Wang et al. bounds near alpha ~ 110.
Upper bounds: upper ends of certified enclosures; lower bound: lower end of the
certified enclosure of (133).
"""

from __future__ import annotations

from pathlib import Path

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import save_figure, subplots
from rigorous_rdp.paper_repro.birrell2024 import _privacy_curves as P

ID = "birrell2024-fig2"
TITLE = "Fig. 2: FSwoR replace-one RDP (Thm 3.4, m = 3..6) vs Wang et al. upper/lower bounds, one step"
SOURCE = SEED_FILES["birrell2024"]

M_VALUES = (3, 4, 5, 6)
ALPHAS = tuple(range(2, 129))
FAST_ALPHAS = (2, 8, 32, 64)


def main(out_dir: Path, fast: bool = False) -> dict:
    alphas = FAST_ALPHAS if fast else ALPHAS
    curves = {f"thm3.4_m{m}": P.rdp_upper(P.fswor_r1(m), alphas) for m in M_VALUES}
    curves["wang_upper"] = P.rdp_upper(P.wang_upper(), alphas)
    curves["wang_lower"] = P.wang_lower_rdp(alphas)
    fig, ax = subplots(figsize=(7.5, 5))
    for m, c in zip(M_VALUES, ("tab:red", "tab:blue", "tab:green", "tab:purple"), strict=True):
        ax.plot(alphas, curves[f"thm3.4_m{m}"], color=c, lw=1.5, label=f"Thm 3.4, m = {m}")
    ax.plot(alphas, curves["wang_upper"], "k--", lw=1.5, label="Wang et al. (2019) upper bound")
    P.plot_wang_lower(ax, alphas, curves["wang_lower"], "Wang et al. (2019) lower bound")
    P.finish_one_step(ax, "Fig. 2", fast)
    ratio = {a: u / lo for a, u, lo in zip(alphas, curves["wang_upper"], curves["thm3.4_m4"], strict=True)}
    gap = {a: u / lo - 1 for a, u, lo in zip(alphas, curves["thm3.4_m4"], curves["wang_lower"], strict=True)}
    data = {"alpha": list(alphas), "rdp": curves, "wang_upper_over_thm34_m4": ratio}
    data["thm34_m4_over_wang_lower_minus_1"] = gap
    return save_figure(fig, data, out_dir, ID, params=P.setting(steps=1, m=list(M_VALUES)), fast=fast)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
