r"""Birrell et al., Fig. 4 (top): privacy of FSwoR (Thm. 3.4) vs Wang et al. vs Poisson (Thm. C.9).

Caption of the seed: "Comparing privacy guarantees of FSwoR-RDP with Wang et al.
and Poisson Subsampled RDP (top) ... We used sigma_t = 6, C = 3, |B| = 120,
|D| = 50,000"; section 4.3: 250 training epochs, replace-one adjacency for all
three (Poisson via the new Thm. C.9).  The axes of the panel are not described
in the text; we plot the certified epsilon at delta = 1e-5 against the number
of epochs (1..250), the quantity that accompanies the accuracy curves of
Fig. 4 (bottom).  Taylor order m = 4 for Thm. 3.4.  Conversion: Balle et al.
(2020) Thm. 21, as in the seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots
from rigorous_rdp.paper_repro.birrell2024 import _privacy_curves as P

ID = "birrell2024-fig4a"
TITLE = "Fig. 4 (top): epsilon vs epochs, FSwoR (Thm 3.4) vs Wang et al. vs Poisson (Thm C.9), replace-one"
SOURCE = SEED_FILES["birrell2024"]

M = 4
DELTA = "1e-5"
EPOCHS = (1, 2, 5, 10, 20, 30, 50, 75, 100, 125, 150, 175, 200, 225, 250)
FAST_EPOCHS = (1, 2)


def main(out_dir: Path, fast: bool = False) -> dict:
    epochs = FAST_EPOCHS if fast else EPOCHS
    steps = [P.steps_for(e) for e in epochs]
    events = {"fswor_thm3.4": P.fswor_r1(M), "wang_upper": P.wang_upper(), "poisson_thmC.9": P.poisson_r1()}
    res: dict[str, dict[str, list[Any]]] = {k: {"epsilon_upper": [], "alpha": []} for k in events}
    for k, ev in events.items():
        for t in steps:
            r = P.epsilons(ev, t, [DELTA])
            res[k]["epsilon_upper"].append(r["epsilon_upper"][0])
            res[k]["alpha"].append(r["alpha"][0])
    fig, ax = subplots(figsize=(7.5, 5))
    ax.plot(
        epochs, res["fswor_thm3.4"]["epsilon_upper"], "-o", ms=3, color="tab:blue", label=f"FSwoR, Thm 3.4 (m = {M})"
    )
    ax.plot(epochs, res["wang_upper"]["epsilon_upper"], "-.s", ms=3, color="k", label="FSwoR, Wang et al. (2019)")
    ax.plot(epochs, res["poisson_thmC.9"]["epsilon_upper"], "--^", ms=3, color="tab:orange", label="Poisson, Thm C.9")
    decorate(
        ax,
        xlabel="epoch",
        ylabel=f"certified \u03b5 at \u03b4 = {DELTA} (replace-one)",
        title=P.heading("Fig. 4 (top)", fast),
        title_size=10,
        grid_which="major",
    )
    data = {"params": P.setting(delta=DELTA, m=M, conversion=P.BALLE), "epochs": list(epochs), "steps": steps}
    return save_figure(fig, data, out_dir, ID, results=res, fast=fast)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
