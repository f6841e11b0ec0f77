r"""Birrell et al., Fig. 8: FSwR-RDP lower bounds as a function of |B| (alpha = 2, q = 0.001).

At alpha = 2 the lower bound (116) is computed exactly ((119) with
:math:`T_2 = \{0,\dots,|B|\}`, i.e. the binomial theorem and the Gaussian MGF, as the
seed says below (120)).  The seed shows "several values of sigma" without
listing them; we use sigma in {1, 2, 4, 6, 8}.  |D| = 1000 |B|.  Plotted values
are certified lower ends.  The flat start equals the FSwoR value
:math:`\log H_{2,\sigma}(q)` (no |B| dependence beyond q); the phase transition
follows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots
from rigorous_rdp.paper_repro.birrell2024._privacy_curves import fswr_lower

ID = "birrell2024-fig8"
TITLE = "Fig. 8: FSwR-RDP lower bounds vs |B|, alpha = 2, q = 0.001"
SOURCE = SEED_FILES["birrell2024"]

ALPHA = 2
Q_INV = 1000
SIGMAS = (1, 2, 4, 6, 8)
BATCHES = tuple(sorted({round(x) for x in np.geomspace(1, 2000, 45)}))
FAST_BATCHES = (1, 3, 10, 30, 100, 300, 1000)


def main(out_dir: Path, fast: bool = False) -> dict:
    batches = FAST_BATCHES if fast else BATCHES
    series = {s: [fswr_lower(ALPHA, s, b, Q_INV * b, "exact") for b in batches] for s in SIGMAS}
    fig, ax = subplots(figsize=(6.4, 4.6))
    for s, ys in series.items():
        ax.plot(batches, ys, marker="o", ms=2.5, label=f"$\\sigma$ = {s}")
    decorate(
        ax,
        xlabel="|B|  (|D| = 1000 |B|)",
        ylabel=r"FS$_\mathrm{wR}$-RDP lower bound $\epsilon'(2)$",
        title=r"Thm 3.7 at $\alpha = 2$ (exact), $q = 0.001$",
        log="xy",
    )
    data = {"alpha": ALPHA, "q": f"1/{Q_INV}", "batch_sizes": list(batches), "note": "certified lower ends"}
    data["lower_bounds"] = {str(s): v for s, v in series.items()}
    return save_figure(fig, data, out_dir, ID, title=TITLE, source=SOURCE)


if __name__ == "__main__":
    main(Path("figures"))
