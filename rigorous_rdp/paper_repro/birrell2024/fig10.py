r"""Birrell et al., Fig. 10 (Appendix H): FSwoR vs Poisson DP-SGD for several sigma and |B|.

Scaled-down reproduction.  The seed (Appendix H) varies sigma in {3.0, 4.5, 6.0,
12.0} and |B| in {50, 100, 150, 200} on CIFAR-10 and states that "the results
for varying values of sigma and |B| align with what we reported in Section 4.3,
showing that the proposed method is not sensitive to parameter settings".  The
values of the parameter not varied are not stated; we keep |B| = 120 in (a) and
sigma = 6 in (b), as in Fig. 4.  Training as in Fig. 4b
(:mod:`rigorous_rdp.paper_repro.birrell2024._dpsgd`: digits, N = 1440, MLP, C = 3, lr = 0.05,
five seeds, mean +- 3 sd); the final epsilon (delta = 1e-5) of each
configuration is the certified upper end from the accountant.
"""

from __future__ import annotations

from pathlib import Path

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import subplots
from rigorous_rdp.paper_repro.birrell2024 import _dpsgd as D

ID = "birrell2024-fig10"
TITLE = "Fig. 10: FSwoR vs Poisson accuracy for sigma in {3,4.5,6,12} and |B| in {50,100,150,200} (scaled-down)"
SOURCE = SEED_FILES["birrell2024"]

SIGMAS = (3.0, 4.5, 6.0, 12.0)
BATCHES = (50, 100, 150, 200)
SIGMA_DEFAULT = 6.0
BATCH_DEFAULT = 120
CLIP = 3.0
LR = 0.05
EPOCHS = 100
DELTA = "1e-5"
FAST_EPOCHS = 5
FAST_SEEDS = 1
#: --fast: one panel per sweep (the full sweep is 8 configurations)
FAST_CONFIGS = (("a", 6.0, BATCH_DEFAULT), ("b", SIGMA_DEFAULT, 50))


def main(out_dir: Path, fast: bool = False) -> dict:
    epochs = FAST_EPOCHS if fast else EPOCHS
    seeds = D.SEEDS[:FAST_SEEDS] if fast else D.SEEDS
    configs = [("a", s, BATCH_DEFAULT) for s in SIGMAS] + [("b", SIGMA_DEFAULT, bb) for bb in BATCHES]
    if fast:
        configs = list(FAST_CONFIGS)
    ncol = len(configs) // 2
    fig, axes = subplots(2, ncol, figsize=(4.25 * ncol + 0.5, 8), sharey=True, squeeze=False)
    out = []
    for k, (panel, sigma, batch) in enumerate(configs):
        cfg = D.TrainConfig(sigma=sigma, clip=CLIP, batch_size=batch, epochs=epochs, lr=LR)
        results = D.run_samplers(cfg, seeds)
        steps = cfg.steps
        eps = D.run_epsilons(sigma, batch, [steps], DELTA)
        ax = axes[k // ncol, k % ncol]
        D.plot_accuracy(ax, results, eps, short=True)
        ax.set_ylim(0, 100)
        ax.legend(loc="lower right", fontsize=7.5, title="final accuracy, certified \u03b5", title_fontsize=7)
        ax.set_title(f"({panel}) \u03c3 = {sigma:g}, |B| = {batch}, q = {batch}/{D.N_TRAIN}", fontsize=10)
        if k % ncol:
            ax.set_ylabel("")
        out.append(
            {
                "panel": panel,
                "sigma": sigma,
                "batch_size": batch,
                "steps": steps,
                "accuracy": {
                    s: {kk: results[s][kk] for kk in ("mean", "std", "final_mean", "final_std")} for s in results
                },
                "epsilon": eps,
                "train_seconds": sum(results[s]["seconds"] for s in results),
            }
        )
    heading = (
        f"Birrell et al. Fig. 10, {D.SCALED_NOTE}\n(a) varying \u03c3 at |B| = {BATCH_DEFAULT}; "
        f"(b) varying |B| at \u03c3 = {SIGMA_DEFAULT:g}; C = {CLIP:g}, lr = {LR:g}, {epochs} epochs, "
        f"mean \u00b1 3 sd over {len(seeds)} seeds; \u03b5 at \u03b4 = {DELTA} (certified upper)"
    )
    data = {
        "params": {
            "clip": CLIP,
            "lr": LR,
            "epochs": epochs,
            "seeds": list(seeds),
            "dataset_size": D.N_TRAIN,
            "delta": DELTA,
            "band": "mean +- 3 sd",
        },
        "configs": out,
    }
    return D.save_scaled_down(fig, heading, data, out_dir, ID, fast)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
