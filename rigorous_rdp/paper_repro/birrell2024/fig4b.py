r"""Birrell et al., Fig. 4 (bottom): test accuracy of DP-SGD with FSwoR vs Poisson sampling.

Scaled-down reproduction.  The seed trains a CNN on CIFAR-10 for 250 epochs with
sigma_t = 6, C = 3, |B| = 120, |D| = 50,000, lr = 1e-3, five sampling seeds
(0, 1364, 2560, 3000, 4111), 3-sigma bands, and reports 63.87% (FSwoR) vs
61.57% (Poisson) (section 4.3).  Here: the same sigma, C, |B| and seeds, the
digits data (N = 1440, so q = 1/12 instead of 0.0024), a 64-32-10 MLP, plain SGD
with lr = 0.05 and 100 epochs (see :mod:`rigorous_rdp.paper_repro.birrell2024._dpsgd`).  The
epsilon of each run at delta = 1e-5 comes from the certified accountant (upper
end of the enclosure); a sampler/adjacency pair without a registered bound is
left out and listed under ``unavailable`` in the JSON.
"""

from __future__ import annotations

from pathlib import Path

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, subplots
from rigorous_rdp.paper_repro.birrell2024 import _dpsgd as D

ID = "birrell2024-fig4b"
TITLE = "Fig. 4 (bottom): test accuracy, FSwoR vs Poisson DP-SGD (scaled-down, digits)"
SOURCE = SEED_FILES["birrell2024"]

SIGMA = 6.0
CLIP = 3.0
BATCH = 120
LR = 0.05
EPOCHS = 100
DELTA = "1e-5"
EPS_EVERY = 10  # epochs between accountant evaluations
FAST_EPOCHS = 5
FAST_SEEDS = 2


def main(out_dir: Path, fast: bool = False) -> dict:
    epochs = FAST_EPOCHS if fast else EPOCHS
    seeds = D.SEEDS[:FAST_SEEDS] if fast else D.SEEDS
    cfg = D.TrainConfig(sigma=SIGMA, clip=CLIP, batch_size=BATCH, epochs=epochs, lr=LR)
    results = D.run_samplers(cfg, seeds)
    spe = cfg.steps_per_epoch
    eps_epochs = sorted({*range(EPS_EVERY, epochs + 1, EPS_EVERY), epochs})
    eps = D.run_epsilons(SIGMA, BATCH, [e * spe for e in eps_epochs], DELTA)
    eps["epochs"] = eps_epochs

    fig, (ax, ax2) = subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1.6, 1]})
    D.plot_accuracy(ax, results, eps)
    ax.set_ylim(0, 100)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"test accuracy, mean \u00b1 3 sd over {len(seeds)} seeds", fontsize=10)
    styles = {
        "fswor/replace-one": ("tab:blue", "-"),
        "fswor/add-remove": ("tab:blue", ":"),
        "poisson/replace-one": ("tab:orange", "-"),
        "poisson/add-remove": ("tab:orange", ":"),
    }
    for name, v in eps["epsilon_upper"].items():
        if v:
            c, ls = styles[name]
            ax2.plot(eps_epochs, v, color=c, ls=ls, marker="o", ms=3, label=name)
    decorate(
        ax2,
        xlabel="epoch",
        ylabel=f"certified \u03b5 (upper), \u03b4 = {DELTA}",
        title="privacy of these runs (rigorous_rdp accountant)",
        title_size=10,
        grid_which="major",
        legend_loc="upper left",
    )
    if eps["unavailable"]:
        ax2.text(
            0.98,
            0.02,
            "no certified bound yet:\n" + "\n".join(eps["unavailable"]),
            transform=ax2.transAxes,
            fontsize=7,
            va="bottom",
            ha="right",
            color="0.4",
        )
    heading = (
        f"Birrell et al. Fig. 4 (bottom), {D.SCALED_NOTE}\n"
        f"\u03c3={SIGMA:g}, C={CLIP:g}, |B|={BATCH}, q=|B|/N={BATCH}/{D.N_TRAIN}, lr={LR:g}, SGD"
    )
    data = {
        "params": {
            **cfg.settings(),
            "steps_per_epoch": spe,
            "seeds": list(seeds),
            "delta": DELTA,
            "hidden": cfg.hidden,
            "optimizer": "sgd",
            "band": "mean +- 3 sd",
        },
        "accuracy": {
            s: {k: results[s][k] for k in ("mean", "std", "final_mean", "final_std", "test_acc")} for s in results
        },
        "epsilon": eps,
        "train_seconds": {s: results[s]["seconds"] for s in results},
    }
    return D.save_scaled_down(fig, heading, data, out_dir, ID, fast)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
