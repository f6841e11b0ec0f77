r"""Batch samplers side by side (issue 25): epsilon vs epochs for the samplers people train with.

Gaussian noise multiplier ``SIGMA``, ``STEPS_PER_EPOCH`` = t steps per epoch (batch size B out of
N = B t examples, sampling rate q = 1/t), delta = ``DELTA``; for each number of epochs E:

* **Poisson sampling**, q = 1/t, E t steps: the certified RDP epsilon and the certified PLD bracket
  (its upper end), add/remove adjacency;
* **fixed-size sampling without replacement** (B = 1 of N = t per step, E t steps): the certified
  add/remove RDP epsilon (Birrell et al. 2024, Thm 3.1 (6); add/remove adjacency changes the batch
  size, which costs a factor 2 in the noise);
* **balls-and-bins** (each example in one uniformly random step of each epoch, Chua et al. 2025;
  random allocation with k = 1, Feldman & Shenfeld 2025): the certified RDP epsilon of E epochs and
  the certified PLD bracket (both ends: its pair is attained, so the lower end bounds the mechanism's
  own epsilon from below; drawn as a band);
* **shuffling** (a fresh permutation every epoch, batches of B): a certified LOWER bound on its
  epsilon (the pair of Chua et al. 2024, events "at least j epochs have a released sum above C");
  no upper bound is known.

Every guarantee is the upper end of a certified enclosure; the shuffle curve is the lower end of a
certified enclosure of a lower bound.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from rigorous_rdp.paper_repro._common import decorate, fast_tag, save_figure, subplots

ID = "samplers"
TITLE = "Batch samplers: epsilon vs epochs (Poisson, fixed-size, balls-and-bins, shuffle lower bound)"
SOURCE = "issue-25-samplers.txt"

SIGMA = Fraction(1)
STEPS_PER_EPOCH = 1000
DELTA = Fraction(1, 10**5)
EPOCHS = [1, 2, 3, 5, 10, 20, 50, 100]
FAST_EPOCHS = [1, 10]


def _rdp_epsilon(event: Any, count: int) -> float:
    from rigorous_rdp.accountant import RdpAccountant

    return RdpAccountant(digits=6).compose(event, count).get_epsilon_and_order(DELTA).epsilon.upper_float()


def main(out_dir: Path, fast: bool = False) -> dict:
    from rigorous_rdp.events import FixedSizeSampledEvent, GaussianEvent, PoissonSampledEvent
    from rigorous_rdp.pld.accountant import PldAccountant
    from rigorous_rdp.subsampling.random_allocation_scheme import BallsAndBinsEvent
    from rigorous_rdp.subsampling.shuffle import shuffle_epsilon_lower_bound

    epochs = FAST_EPOCHS if fast else EPOCHS
    t = STEPS_PER_EPOCH
    base = GaussianEvent(SIGMA)
    poisson = PoissonSampledEvent(base, Fraction(1, t))
    fswor = FixedSizeSampledEvent(base, 1, t)
    bnb = BallsAndBinsEvent(base, t)
    rows: dict[str, list[float | None]] = {
        "Poisson, RDP": [],
        "Poisson, PLD (upper end)": [],
        "fixed-size w/o replacement, RDP": [],
        "balls-and-bins, RDP": [],
        "balls-and-bins, PLD (lower end)": [],
        "balls-and-bins, PLD (upper end)": [],
        "shuffle, LOWER bound": [],
    }
    for e in epochs:
        rows["Poisson, RDP"].append(_rdp_epsilon(poisson, e * t))
        pld = PldAccountant().compose(poisson, e * t).get_epsilon(DELTA)
        rows["Poisson, PLD (upper end)"].append(pld.upper_float())
        rows["fixed-size w/o replacement, RDP"].append(_rdp_epsilon(fswor, e * t))
        rows["balls-and-bins, RDP"].append(_rdp_epsilon(bnb, e))
        bracket = PldAccountant().compose(bnb, e).get_epsilon_result(DELTA).epsilon
        rows["balls-and-bins, PLD (lower end)"].append(bracket.lower_float())
        rows["balls-and-bins, PLD (upper end)"].append(bracket.upper_float())
        lower = shuffle_epsilon_lower_bound(SIGMA, t, DELTA, epochs=e)
        rows["shuffle, LOWER bound"].append(None if lower is None else float(lower.epsilon.lower()))

    fig, ax = subplots(figsize=(7.5, 4.8))
    styles: dict[str, dict[str, Any]] = {
        "Poisson, RDP": dict(color="C0", marker="o"),
        "Poisson, PLD (upper end)": dict(color="C0", marker="s", linestyle="--"),
        "fixed-size w/o replacement, RDP": dict(color="C2", marker="^"),
        "balls-and-bins, RDP": dict(color="C1", marker="D"),
        "balls-and-bins, PLD (lower end)": dict(color="C1", marker="", linestyle="-", linewidth=0.8),
        "balls-and-bins, PLD (upper end)": dict(color="C1", marker="x", linestyle="--"),
        "shuffle, LOWER bound": dict(color="C3", marker="v", linestyle=":"),
    }
    for name, values in rows.items():
        pts = [(e, v) for e, v in zip(epochs, values, strict=True) if v is not None]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=name, **styles[name])
    band = (rows["balls-and-bins, PLD (lower end)"], rows["balls-and-bins, PLD (upper end)"])
    ax.fill_between(epochs, *band, color="C1", alpha=0.25, linewidth=0)
    decorate(
        ax,
        xlabel="epochs E",
        ylabel=f"epsilon at delta = {float(DELTA):g}",
        title=f"sigma = {SIGMA}, {t} steps per epoch (q = 1/{t}){fast_tag(fast)}",
        log="xy",
        legend_loc="lower right",
    )
    data = {
        "fast": fast,
        "sigma": str(SIGMA),
        "steps_per_epoch": t,
        "delta": str(DELTA),
        "epochs": epochs,
        "epsilon": rows,
        "note": "upper ends of certified enclosures, except 'shuffle, LOWER bound' (the lower end of a certified "
        "lower bound: shuffling has no known upper bound) and 'balls-and-bins, PLD (lower end)' (the lower end "
        "of the certified bracket of its attained pair: the true epsilon is between the two PLD ends)",
    }
    return save_figure(fig, data, out_dir, ID)
