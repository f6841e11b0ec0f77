r"""Birrell et al., Fig. 9: upper (Thm 3.6) and lower (Thm 3.7) FSwR-RDP bounds,
sigma = 6, |B| = 120, |D| = 50000, with the FSwoR bound dashed for comparison.

* Upper bound (solid): (16) with the exact :math:`H_{\alpha,\sigma/n}` (binomial sums at
  integer orders; at real orders certified integrals for the dominant terms and
  the proven per-n log-convex extension for the rest,
  :func:`rigorous_rdp.subsampling.fswr.fswr_upper_rdp`), certified upper ends.
* Lower bound (circles): (17) via App. D.2.1 with :math:`T_2 = \{0,\dots,|B|\}`,
  :math:`T_k = \{|B|\}` for k > 2 (the seed's choice for this figure), certified
  lower ends, integer orders.
* FSwoR (dashed, add/remove, does not apply to FSwR): Thm 3.3 with m = 3 from
  :mod:`rigorous_rdp.subsampling.fswor`, certified upper ends.

The seed does not state the alpha range; both FSwR bounds pass their "phase
transition" below alpha = 3 for these parameters, so we show alpha in (1, 6].
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from rigorous_rdp.arith import Certified, workprec
from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots
from rigorous_rdp.paper_repro.birrell2024._privacy_curves import FSWR_PREC, fswr_lower
from rigorous_rdp.subsampling.fswor import fswor_add_remove_rdp
from rigorous_rdp.subsampling.fswr import fswr_upper_rdp

ID = "birrell2024-fig9"
TITLE = "Fig. 9: FSwR-RDP upper (Thm 3.6) and lower (Thm 3.7) bounds, sigma = 6, |B| = 120, |D| = 50000"
SOURCE = SEED_FILES["birrell2024"]

SIGMA = 6
BATCH = 120
N = 50000
ALPHAS_UPPER = tuple(Fraction(x).limit_denominator(1000) for x in np.round(np.linspace(1.05, 6.0, 100), 3))
FAST_ALPHAS_UPPER = tuple(Fraction(x, 4) for x in range(5, 25))
ALPHAS_LOWER = (2, 3, 4, 5, 6)
FSWOR_BOUND = "Thm 3.3, m = 3"


def fswor_bound(alpha: Fraction) -> float:
    """Upper end (rounded up to a float) of the certified FSwoR add/remove bound of Thm 3.3 with m = 3."""
    with workprec(FSWR_PREC):
        return Certified(fswor_add_remove_rdp(alpha, Fraction(BATCH, N), Fraction(SIGMA), 3), FSWR_PREC).upper_float()


def main(out_dir: Path, fast: bool = False) -> dict:
    alphas_u = FAST_ALPHAS_UPPER if fast else ALPHAS_UPPER
    with workprec(FSWR_PREC):
        upper = [Certified(fswr_upper_rdp(a, SIGMA, BATCH, N), FSWR_PREC).upper_float() for a in alphas_u]
    lower = [fswr_lower(a, SIGMA, BATCH, N, "fig9") for a in ALPHAS_LOWER]
    fswor = [fswor_bound(a) for a in alphas_u]
    fig, ax = subplots(figsize=(6.4, 4.6))
    xs = [float(a) for a in alphas_u]
    ax.plot(xs, upper, "-", color="C0", label="FS$_\\mathrm{wR}$ upper bound (Thm 3.6)")
    ax.plot(ALPHAS_LOWER, lower, "o", color="C3", label="FS$_\\mathrm{wR}$ lower bound (Thm 3.7)")
    ax.plot(xs, fswor, "--", color="C2", label=f"FS$_\\mathrm{{woR}}$ ({FSWOR_BOUND}), comparison only")
    title = r"$\sigma = 6$, $|B| = 120$, $|D| = 50000$"
    decorate(ax, xlabel=r"$\alpha$", ylabel=r"one-step RDP $\epsilon(\alpha)$", title=title, ylog=True)
    data = {"sigma": SIGMA, "batch_size": BATCH, "dataset_size": N, "upper": upper, "lower": lower, "fswor": fswor}
    data.update(alphas_upper=[str(a) for a in alphas_u], alphas_lower=list(ALPHAS_LOWER), fswor_bound=FSWOR_BOUND)
    note = "upper: certified upper ends; lower: certified lower ends"
    return save_figure(fig, data, out_dir, ID, title=TITLE, source=SOURCE, note=note)


if __name__ == "__main__":
    main(Path("figures"))
