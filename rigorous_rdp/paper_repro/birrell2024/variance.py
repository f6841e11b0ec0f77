r"""Birrell et al., section 4.1: measured Var[Z_P], Var[Z_R], Var[Z_B] against (21)-(22).

For real per-example gradients :math:`a_i = \nabla_\theta \ell(d_i)\cdot v` of the
digits MLP of :mod:`rigorous_rdp.paper_repro.birrell2024._dpsgd` (|D| = N = 1440) we draw many
minibatch means

* :math:`Z_P = \frac{1}{|B|}\sum_i a_i J_i`, :math:`J_i \sim` Bernoulli(q) (Poisson),
* :math:`Z_R = \frac{1}{|B|}\sum_{j=1}^{|B|} a_{R_j}`, :math:`R_j` iid uniform (FSwR),
* :math:`Z_B = \frac{1}{|B|}\sum_{i\in B} a_i`, B a uniform |B|-subset (FSwoR),

(eq. (20) / (137)-(139)) and compare their sample variances with

.. math::
    \mathrm{Var}[Z_P] = \Big(\tfrac{1}{|B|}-\tfrac{1}{|D|}\Big)\overline{a^2},\quad
    \mathrm{Var}[Z_R] = \tfrac{1-1/|D|}{1-q}\mathrm{Var}[Z_B],\quad
    \mathrm{Var}[Z_B] = \tfrac{|D|}{|D|-1}\Big(\mathrm{Var}[Z_P]-\Big(\tfrac{1}{|B|}-\tfrac{1}{|D|}\Big)\overline{a}^2\Big)

(eq. (21)) and the ratio (22).  Note: the seed's text says that B selects a subset
of :math:`\{2,\dots,|D|\}`; its own computation (142), (144) uses
:math:`P(i\in B) = \binom{|D|-1}{|B|-1}/\binom{|D|}{|B|}`, i.e. subsets of
:math:`\{1,\dots,|D|\}`, which is what we sample (with :math:`\{2,\dots,|D|\}` the
mean would not be :math:`\overline a`).  The algebra is checked symbolically in
``proofs/verify_birrell_variance.py``.

Three gradient configurations: at the initial model with v the direction of the
mean gradient (far from a critical point, :math:`\overline a^2/\overline{a^2}`
large), at the initial model with a random unit v, and after non-private
training with v the mean-gradient direction (near a critical point,
:math:`\overline a \approx 0`).  Each variance estimate carries a standard
error :math:`\sqrt{(m_4 - s^4)/M}` from M draws; the JSON lists the z-scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import decorate, subplots
from rigorous_rdp.paper_repro.birrell2024 import _dpsgd as D

ID = "birrell2024-variance"
TITLE = "Section 4.1: measured minibatch-gradient variances (Poisson, FSwR, FSwoR) vs eqs. (21)-(22)"
SOURCE = SEED_FILES["birrell2024"]

BATCHES = (10, 30, 120, 480, 1200)
DRAWS = 20000
CHUNK = 2000
TRAIN_STEPS = 300  # full-batch gradient descent, non-private, for the "trained" point
TRAIN_LR = 1.0
SEED = 7
FAST_BATCHES = (10, 120)
FAST_DRAWS = 2000
FAST_TRAIN_STEPS = 20


def formulas(a: np.ndarray, b: int) -> dict:
    """Eq. (21): the three variances for values ``a`` (|D| = len(a)) and batch size ``b``."""
    n = len(a)
    q = b / n
    abar, a2bar = float(a.mean()), float(np.mean(a * a))
    vp = (1 / b - 1 / n) * a2bar
    vb = n / (n - 1) * (vp - (1 / b - 1 / n) * abar**2)
    vr = (1 - 1 / n) / (1 - q) * vb
    return {"P": vp, "R": vr, "B": vb}


def _var_se(z: np.ndarray) -> tuple:
    c = z - z.mean()
    s2 = float(np.mean(c * c)) * len(z) / (len(z) - 1)
    m4 = float(np.mean(c**4))
    return s2, float(np.sqrt(max(m4 - s2 * s2, 0.0) / len(z)))


def sample(a: np.ndarray, b: int, draws: int, rng: np.random.Generator) -> dict:
    """Monte Carlo draws of Z_P, Z_R, Z_B (eq. (20))."""
    n = len(a)
    zp, zr, zb = [], [], []
    for start in range(0, draws, CHUNK):
        m = min(CHUNK, draws - start)
        zp.append((rng.random((m, n)) < b / n) @ a / b)
        zr.append(a[rng.integers(0, n, size=(m, b))].sum(axis=1) / b)
        keys = rng.random((m, n))
        idx = np.argpartition(keys, b - 1, axis=1)[:, :b] if b < n else np.tile(np.arange(n), (m, 1))
        zb.append(a[idx].sum(axis=1) / b)
    return {"P": np.concatenate(zp), "R": np.concatenate(zr), "B": np.concatenate(zb)}


def _gradients(fast: bool):
    data = D.load_digits_split()
    x, y = data["x_train"], data["y_train"]
    params0 = D._init_params(np.random.default_rng(12345), x.shape[1], 32, 10)
    g0 = D.per_example_grads(params0, x, y)
    params = [p.copy() for p in params0]
    for _ in range(FAST_TRAIN_STEPS if fast else TRAIN_STEPS):
        mean = D.per_example_grads(params, x, y).mean(axis=0)
        params = [p - TRAIN_LR * s for p, s in zip(params, D._unflatten(mean, params), strict=True)]
    g1 = D.per_example_grads(params, x, y)
    rng = np.random.default_rng(SEED)
    v_rand = rng.normal(size=g0.shape[1])
    v_rand /= np.linalg.norm(v_rand)
    unit = lambda g: g.mean(axis=0) / np.linalg.norm(g.mean(axis=0))  # noqa: E731
    return {
        "initial model, v = mean gradient": g0 @ unit(g0),
        "initial model, random v": g0 @ v_rand,
        "trained model, v = mean gradient": g1 @ unit(g1),
    }, D.accuracy(params, data["x_test"], data["y_test"])


def _plot_measured(ax: Any, bs: Any, rows: list[dict[str, Any]], key: str, marker: str, color: str, label: str) -> None:
    """The measured variance ratio ``key`` of each batch size."""
    ax.plot(bs, [r[key]["measured"] for r in rows], marker, color=color, label=label)


def main(out_dir: Path, fast: bool = False) -> dict:
    batches = FAST_BATCHES if fast else BATCHES
    draws = FAST_DRAWS if fast else DRAWS
    cases, trained_acc = _gradients(fast)
    rng = np.random.default_rng(SEED)
    fig, axes = subplots(2, len(cases), figsize=(5 * len(cases), 8), sharex=True)
    colors = {"P": "tab:orange", "R": "tab:green", "B": "tab:blue"}
    names = {"P": "Poisson $Z_P$", "R": "FSwR $Z_R$", "B": "FSwoR $Z_B$"}
    out_cases = {}
    max_abs_z = 0.0
    for col, (case, a) in enumerate(cases.items()):
        abar, a2bar = float(a.mean()), float(np.mean(a * a))
        rows = []
        for b in batches:
            z = sample(a, b, draws, rng)
            th = formulas(a, b)
            row: dict[str, Any] = {"batch_size": b}
            for k in ("P", "R", "B"):
                v, se = _var_se(z[k])
                row[k] = {
                    "measured": v,
                    "se": se,
                    "formula": th[k],
                    "z": (v - th[k]) / se if se > 0 else 0.0,
                    "mean": float(z[k].mean()),
                }
                max_abs_z = max(max_abs_z, abs(row[k]["z"]))
            n = len(a)
            row["ratio_B_over_P"] = {
                "measured": row["B"]["measured"] / row["P"]["measured"],
                "formula_22": (1 - abar**2 / a2bar) / (1 - 1 / n),
            }
            row["ratio_R_over_B"] = {
                "measured": row["R"]["measured"] / row["B"]["measured"],
                "formula_147": (1 - 1 / n) / (1 - b / n),
            }
            rows.append(row)
        out_cases[case] = {"abar": abar, "a2bar": a2bar, "abar2_over_a2bar": abar**2 / a2bar, "rows": rows}
        ax, axr = axes[0, col], axes[1, col]
        bs = np.array(batches, dtype=float)
        grid = np.unique(np.concatenate([np.geomspace(min(bs), max(bs), 60), bs])).astype(int)
        for k, dx in (("P", 0.94), ("R", 1.0), ("B", 1.06)):
            ax.plot(grid, [formulas(a, int(bb))[k] for bb in grid], color=colors[k], lw=1, ls="--" if k == "R" else "-")
            ax.errorbar(
                bs * dx,
                [r[k]["measured"] for r in rows],
                yerr=[2 * r[k]["se"] for r in rows],
                fmt="o",
                ms=4,
                color=colors[k],
                label=f"{names[k]}: measured (\u00b12 SE); line: (21)",
            )
        decorate(
            ax,
            ylabel="variance of the minibatch mean",
            title=f"{case}\n$\\bar a^2/\\overline{{a^2}}$ = {abar**2 / a2bar:.3f}",
            title_size=10,
            log="xy",
            legend_size=7,
        )
        _plot_measured(axr, bs, rows, "ratio_B_over_P", "o", "tab:blue", "Var[$Z_B$]/Var[$Z_P$] measured")
        axr.axhline(rows[0]["ratio_B_over_P"]["formula_22"], color="tab:blue", lw=1, label="(22)")
        _plot_measured(axr, bs, rows, "ratio_R_over_B", "s", "tab:green", "Var[$Z_R$]/Var[$Z_B$] measured")
        axr.plot(
            grid,
            (1 - 1 / len(a)) / (1 - grid / len(a)),
            color="tab:green",
            lw=1,
            ls="--",
            label="(147): (1-1/|D|)/(1-q)",
        )
        decorate(axr, xlabel="batch size |B|  (|D| = 1440)", ylabel="variance ratio", log="xy", legend_size=7)
    heading = (
        "Birrell et al. section 4.1 / App. F: gradient variance of Poisson vs fixed-size minibatches "
        f"(scaled-down: digits MLP, {draws} draws per point)"
    )
    data = {
        "params": {
            "dataset_size": D.N_TRAIN,
            "batch_sizes": list(batches),
            "draws": draws,
            "seed": SEED,
            "train_steps": FAST_TRAIN_STEPS if fast else TRAIN_STEPS,
        },
        "trained_model_test_accuracy": trained_acc,
        "cases": out_cases,
        "max_abs_z": max_abs_z,
    }
    return D.save_scaled_down(fig, heading, data, out_dir, ID, fast, fontsize=11)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
