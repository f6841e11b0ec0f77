r"""Birrell et al., Fig. 3: (epsilon, delta) of FSwoR DP-SGD under replace-one adjacency.

Caption of the seed: "FSwoR (epsilon, delta)-DP guarantees under replace-one
adjacency; comparison of bounds obtained using Theorem 3.4 for various choices of
m with those obtained from the upper and lower bounds from Wang et al., (2019).
Following Abadi et al., (2016), we used sigma_t = 6, |B| = 120, |D| = 50,000,
and 250 training epochs", delta in {1e-4, ..., 1e-10}, conversion of Balle et al.
(2020) Thm. 21 (section 3.4).  250 epochs = round(250 * 50000 / 120) = 104,167
steps.  Upper curves: certified epsilon (upper end; orders optimised by the
accountant over dp-accounting's grid and real orders).  Lower circles: the
Balle et al. conversion of T times the Wang et al. lower bound (133), minimised
over integer orders 2..256 -- the best the RDP route could give, not a guarantee.
"""

from __future__ import annotations

from pathlib import Path

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots
from rigorous_rdp.paper_repro.birrell2024 import _privacy_curves as P

ID = "birrell2024-fig3"
TITLE = "Fig. 3: epsilon vs delta after 250 epochs, FSwoR replace-one (Thm 3.4, m = 3,4,5) vs Wang et al."
SOURCE = SEED_FILES["birrell2024"]

M_VALUES = (3, 4, 5)
DELTAS = ("1e-4", "1e-5", "1e-6", "1e-7", "1e-8", "1e-9", "1e-10")
FAST_DELTAS = ("1e-5",)
FAST_EPOCHS = 1


def main(out_dir: Path, fast: bool = False) -> dict:
    deltas = FAST_DELTAS if fast else DELTAS
    epochs = FAST_EPOCHS if fast else P.EPOCHS
    steps = P.steps_for(epochs)
    res = {f"thm3.4_m{m}": P.epsilons(P.fswor_r1(m), steps, deltas) for m in M_VALUES}
    res["wang_upper"] = P.epsilons(P.wang_upper(), steps, deltas)
    res["wang_lower_reference"] = P.epsilon_from_lower_rdp(steps, deltas)
    xs = [float(d) for d in deltas]
    fig, ax = subplots(figsize=(7.5, 5))
    for m, c in zip(M_VALUES, ("tab:red", "tab:blue", "tab:green"), strict=True):
        ax.plot(xs, res[f"thm3.4_m{m}"]["epsilon_upper"], "-", color=c, lw=1.5, label=f"Thm 3.4, m = {m}")
    ax.plot(xs, res["wang_upper"]["epsilon_upper"], "k--", lw=1.5, label="Wang et al. (2019) upper bound")
    ax.plot(
        xs,
        res["wang_lower_reference"]["epsilon"],
        "o",
        mfc="none",
        color="k",
        ms=6,
        label="Wang et al. (2019) lower bound (reference)",
    )
    decorate(
        ax,
        xlabel="\u03b4",
        ylabel="\u03b5 (replace-one)",
        title=P.heading("Fig. 3", fast, f", {epochs} epochs = {steps:,} steps"),
        title_size=10,
        xlog=True,
    )
    data = {
        "params": P.setting(epochs=epochs, steps=steps, m=list(M_VALUES), conversion=P.BALLE),
        "delta": list(deltas),
        "results": res,
        "fast": fast,
    }
    return save_figure(fig, data, out_dir, ID)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
