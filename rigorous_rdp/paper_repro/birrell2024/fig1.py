r"""Birrell et al., Fig. 1: FSwR-RDP lower bounds of Theorem 3.7 as a function of alpha.

Setting of the caption: sigma = 6, q = |B|/|D| = 0.001, several |B| (the seed
does not list them; we use |B| in {10, 25, 50, 100, 200}, i.e. |D| = 1000 |B|).
The lower bound (17) is computed as in App. D.2.1 with the index sets used for
Fig. 1 in the seed, :math:`T_2 = \{0,\dots,|B|\}` and :math:`T_k = \{0,1,2,|B|\}` for
k > 2 (:func:`rigorous_rdp.subsampling.fswr.fswr_lower_rdp`, ``t_sets="fig1"``).
Plotted values are the certified *lower* ends of the enclosures (a lower bound
is not a privacy guarantee).  The |B|-independent FSwoR value of the same
leading order, :math:`\frac{1}{\alpha-1}\log H_{\alpha,\sigma}(q)` (Thm 3.1, exact), is shown
in grey for orientation.
"""

from __future__ import annotations

from pathlib import Path

from flint import arb

from rigorous_rdp.arith import workprec
from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots
from rigorous_rdp.paper_repro.birrell2024._privacy_curves import FSWR_PREC, SIGMA, fswr_lower
from rigorous_rdp.subsampling.poisson_gaussian import log_a_integer

ID = "birrell2024-fig1"
TITLE = "Fig. 1: FSwR-RDP lower bounds (Thm 3.7) vs alpha, sigma = 6, q = 0.001"
SOURCE = SEED_FILES["birrell2024"]

Q_INV = 1000
BATCHES = (10, 25, 50, 100, 200)
ALPHAS = tuple(range(2, 41))
FAST_ALPHAS = (2, 3, 4, 6, 8, 12, 16)


def fswor_reference(alpha: int) -> float:
    with workprec(FSWR_PREC):
        v = log_a_integer(alpha, arb(1) / Q_INV, arb(SIGMA) / 2) / (alpha - 1)
    return float(v.mid())


def main(out_dir: Path, fast: bool = False) -> dict:
    alphas = FAST_ALPHAS if fast else ALPHAS
    series = {b: [fswr_lower(a, SIGMA, b, Q_INV * b, "fig1") for a in alphas] for b in BATCHES}
    ref = [fswor_reference(a) for a in alphas]
    fig, ax = subplots(figsize=(6.4, 4.6))
    for b, ys in series.items():
        ax.plot(alphas, ys, marker="o", ms=3, label=f"|B| = {b}")
    ax.plot(alphas, ref, color="0.6", ls="--", lw=1, label="FSwoR, Thm 3.1 (exact, any |B|)")
    ylabel = r"FS$_\mathrm{wR}$-RDP lower bound $\epsilon'(\alpha)$"
    decorate(ax, xlabel=r"$\alpha$", ylabel=ylabel, title=r"Thm 3.7 lower bounds, $\sigma = 6$, $q = 0.001$", ylog=True)
    data = {"sigma": SIGMA, "q": f"1/{Q_INV}", "t_sets": "fig1", "alphas": list(alphas), "fswor_exact_reference": ref}
    data["lower_bounds"] = {str(b): v for b, v in series.items()}
    note = "certified lower ends of the enclosures"
    return save_figure(fig, data, out_dir, ID, title=TITLE, source=SOURCE, note=note)


if __name__ == "__main__":
    main(Path("figures"))
