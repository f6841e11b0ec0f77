r"""Birrell et al., Fig. 5: batch-size variability and memory per step, FSwoR vs Poisson.

Scaled-down reproduction.  The seed measures GPU memory while training a CNN on
CIFAR-10 with |B| = 120, |D| = 50,000 and reports that FS-RDP stays constant at
14,826 MB while Poisson sampling (Opacus) varies from 7,984 MB to 23,280 MB
(section 4.4).  Here the same DP-SGD loop as Fig. 4b (digits, N = 1440,
|B| = 120, q = 1/12) runs with :mod:`tracemalloc`, and for each step we record
the minibatch size and the peak of traced memory during the step above the
memory in use before it (per-example gradients are materialised, as in Opacus,
so memory grows with the batch).  The Poisson batch size is Binomial(N, q):
mean qN = 120 and standard deviation sqrt(N q (1 - q)) = 10.49.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import subplots
from rigorous_rdp.paper_repro.birrell2024 import _dpsgd as D

ID = "birrell2024-fig5"
TITLE = "Fig. 5: batch size and peak memory per step, FSwoR vs Poisson (scaled-down, tracemalloc)"
SOURCE = SEED_FILES["birrell2024"]

SIGMA = 6.0
CLIP = 3.0
BATCH = 120
LR = 0.05
EPOCHS = 20
SEED = 0
FAST_EPOCHS = 2


def main(out_dir: Path, fast: bool = False) -> dict:
    epochs = FAST_EPOCHS if fast else EPOCHS
    cfg = D.TrainConfig(sigma=SIGMA, clip=CLIP, batch_size=BATCH, epochs=epochs, lr=LR, seed=SEED, track_memory=True)
    runs = {s: D.train(replace(cfg, sampler=s)) for s in D.SAMPLERS}
    q = BATCH / D.N_TRAIN
    fig, axes = subplots(1, 3, figsize=(14, 4))
    stats: dict[str, Any] = {}
    for s in D.SAMPLERS:
        b = np.asarray(runs[s]["batch_sizes"])
        m = np.asarray(runs[s]["peak_bytes"]) / 2**20
        steps = np.arange(1, len(b) + 1)
        z = 3 if s == "fswor" else 2
        axes[0].plot(steps, b, color=D.COLORS[s], lw=1.2, label=D.LABELS[s], zorder=z)
        axes[1].plot(steps, m, color=D.COLORS[s], lw=1.2, label=D.LABELS[s], zorder=z)
        axes[2].scatter(
            b,
            m,
            s=30 if s == "fswor" else 8,
            color=D.COLORS[s],
            alpha=0.8,
            label=D.LABELS[s],
            zorder=z,
            marker="D" if s == "fswor" else "o",
        )
        stats[s] = {
            "batch_mean": float(b.mean()),
            "batch_sd": float(b.std(ddof=1)),
            "batch_min": int(b.min()),
            "batch_max": int(b.max()),
            "peak_mib_mean": float(m.mean()),
            "peak_mib_min": float(m.min()),
            "peak_mib_max": float(m.max()),
            "peak_mib_sd": float(m.std(ddof=1)),
        }
    stats["poisson_theory"] = {"batch_mean": BATCH, "batch_sd": math.sqrt(D.N_TRAIN * q * (1 - q))}
    stats["max_ratio_poisson_over_fswor"] = stats["poisson"]["peak_mib_max"] / stats["fswor"]["peak_mib_mean"]
    stats["min_ratio_poisson_over_fswor"] = stats["poisson"]["peak_mib_min"] / stats["fswor"]["peak_mib_mean"]
    spe = math.ceil(D.N_TRAIN / BATCH)
    for ax in axes[:2]:
        for e in range(spe, len(runs["fswor"]["batch_sizes"]) + 1, spe):
            ax.axvline(e + 0.5, color="0.85", lw=0.5, zorder=0)
        ax.set_xlabel("training step (grey lines: epochs)")
    axes[0].set_ylabel("minibatch size")
    axes[0].set_title(
        f"batch size: Poisson sd {stats['poisson']['batch_sd']:.1f} (theory {stats['poisson_theory']['batch_sd']:.2f})",
        fontsize=10,
    )
    axes[1].set_ylabel("peak traced memory in the step (MiB)")
    axes[1].set_title(
        f"memory: FSwoR {stats['fswor']['peak_mib_min']:.3f}-{stats['fswor']['peak_mib_max']:.3f} MiB, "
        f"Poisson {stats['poisson']['peak_mib_min']:.3f}-{stats['poisson']['peak_mib_max']:.3f} MiB",
        fontsize=10,
    )
    axes[2].set_xlabel("minibatch size")
    axes[2].set_ylabel("peak traced memory (MiB)")
    axes[2].set_title("memory grows with the batch", fontsize=10)
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    heading = (
        f"Birrell et al. Fig. 5, {D.SCALED_NOTE}\n|B|={BATCH}, N={D.N_TRAIN}, {epochs} epochs, "
        "memory measured with tracemalloc (per-example gradients materialised)"
    )
    data = {
        "params": {**cfg.settings(), "seed": SEED},
        "batch_sizes": {s: runs[s]["batch_sizes"] for s in runs},
        "peak_bytes": {s: runs[s]["peak_bytes"] for s in runs},
        "stats": stats,
    }
    return D.save_scaled_down(fig, heading, data, out_dir, ID, fast)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
