r"""The shuffle lower bound of Chua et al. reproduced (issue 25): our certified lower bound on the
epsilon of shuffle-and-iterate DP-SGD next to the numbers of the authors' published code.

Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha, Zhang, "How Private are DP-SGD Implementations?"
(ICML 2024, arXiv 2403.17673) bound the epsilon of one epoch of shuffling from below with the pair
P = MoG(2), Q = MoG(1) (MoG(m) = (1/t) sum_i N(m e_i, sigma^2 I_t)) and the "cube" events
{max_i x_i > C}; their NeurIPS 2024 follow-up ("Scalable DP-SGD: Shuffling vs. Poisson
Subsampling", arXiv 2411.04205) composes the privacy loss of max_i x_i over epochs (a fresh
permutation each epoch).  :mod:`rigorous_rdp.subsampling.shuffle` uses the same pair, the same cube
events (one epoch) and binned loss-sum events over epochs, and certifies every probability.

**Their numbers.**  The papers' own tables and figures could not be read here (only the first page of
each paper text was available), so the reference values are those of the authors' published code, the
code of both papers: ``ShuffleAccountant.get_epsilons(sigma, (delta,), t, epochs)`` of
``dpsgd_batch_sampler_accounting/dpsgd_bounds.py`` in google-research/google-research (commit
4c4299485319ed72ef782020c81784be5468924e; run unchanged, as copied verbatim into
moshenfeld/random_allocation 5a1958a319549fb7862fdb3c0b972f42a1f4fa5f, ``external_sources/
Monte_Carlo_external.py``, with dp-accounting 0.6.0; outside this project).  Their code is float:
a cap grid of step 0.01 (one epoch) and a PLD of the max statistic with rounded-down losses
(discretization 1e-3) composed by dp-accounting (several epochs); ours is a certified lower end.

Panel 1: epsilon lower bound vs epochs (sigma = 1, t = 1000, delta = 1e-5).  Panel 2: one epoch,
epsilon lower bound vs sigma (t = 1000, delta = 1e-5).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from rigorous_rdp.paper_repro._common import decorate, fast_tag, save_figure, subplots

ID = "samplers-shuffle"
TITLE = "Shuffle lower bound: certified, next to the published code of Chua et al. 2024"
SOURCE = "issue-25-samplers.txt"

STEPS_PER_EPOCH = 1000
DELTA = Fraction(1, 10**5)
SIGMA = Fraction(1)
EPOCHS = [1, 2, 3, 5, 10, 20, 50, 100]
FAST_EPOCHS = [1, 10]
SIGMAS = ["0.5", "0.7", "1", "1.5", "2"]

#: the authors' code: epsilon lower bounds at delta = 1e-5, t = 1000 (module docstring); float repr
PUBLISHED_CODE = "google-research/google-research@4c4299485319ed72ef782020c81784be5468924e"
PUBLISHED_BY_EPOCHS = {
    1: 2.8820884227752686,
    2: 3.2234819802349706,
    3: 3.456761503020476,
    5: 3.8126764526886374,
    10: 4.475592417940334,
    20: 5.467578730307341,
    50: 7.612574268245483,
    100: 10.294265638109348,
}
PUBLISHED_BY_SIGMA = {
    "0.5": 9.996614828705788,
    "0.7": 6.528531387448311,
    "1": 2.8820884227752686,
    "1.5": 0.34825704991817474,
    "2": 0.06556592881679535,
}


def _lower(sigma: Fraction, epochs: int) -> tuple[float, str]:
    """The certified lower end (a float rounded down) and the family of the event."""
    from rigorous_rdp.arith import decimal_lower
    from rigorous_rdp.subsampling.shuffle import shuffle_epsilon_lower_bound

    bound = shuffle_epsilon_lower_bound(sigma, STEPS_PER_EPOCH, DELTA, epochs=epochs)
    if bound is None:  # pragma: no cover - not at these settings
        raise RuntimeError(f"no shuffle lower bound at sigma {sigma}, {epochs} epochs")
    text = decimal_lower(bound.epsilon, 12)
    return float(Fraction(text)), bound.family


def main(out_dir: Path, fast: bool = False) -> dict:
    epochs = FAST_EPOCHS if fast else EPOCHS
    ours_e, fam_e = zip(*(_lower(SIGMA, e) for e in epochs), strict=True)
    ours_s, fam_s = zip(*(_lower(Fraction(s), 1) for s in SIGMAS), strict=True)
    theirs_e = [PUBLISHED_BY_EPOCHS[e] for e in epochs]
    theirs_s = [PUBLISHED_BY_SIGMA[s] for s in SIGMAS]

    fig, (left, right) = subplots(1, 2, figsize=(10.5, 4.2))
    left.plot(epochs, ours_e, color="C3", marker="v", label="certified lower bound (this toolkit)")
    left.plot(epochs, theirs_e, color="k", marker="x", linestyle="none", label="published code (float)")
    decorate(
        left,
        xlabel="epochs E (fresh permutation each epoch)",
        ylabel=f"epsilon lower bound at delta = {float(DELTA):g}",
        title=f"sigma = {SIGMA}, t = {STEPS_PER_EPOCH}{fast_tag(fast)}",
        xlog=True,
        legend_loc="upper left",
    )
    sig = [float(Fraction(s)) for s in SIGMAS]
    right.plot(sig, ours_s, color="C3", marker="v", label="certified lower bound (this toolkit)")
    right.plot(sig, theirs_s, color="k", marker="x", linestyle="none", label="published code (float)")
    decorate(
        right,
        xlabel="noise multiplier sigma",
        ylabel="epsilon lower bound (one epoch)",
        title=f"one epoch, t = {STEPS_PER_EPOCH}",
        ylog=True,
        legend_loc="upper right",
    )
    data = {
        "fast": fast,
        "steps_per_epoch": STEPS_PER_EPOCH,
        "delta": str(DELTA),
        "published_code": PUBLISHED_CODE,
        "by_epochs": {
            "sigma": str(SIGMA),
            "epochs": epochs,
            "ours_lower": list(ours_e),
            "family": list(fam_e),
            "published": theirs_e,
        },
        "by_sigma": {
            "epochs": 1,
            "sigma": SIGMAS,
            "ours_lower": list(ours_s),
            "family": list(fam_s),
            "published": theirs_s,
        },
        "note": "ours: lower ends of certified enclosures of log((P(S) - delta)/Q(S)) (rounded down); published: "
        "the float output of the authors' ShuffleAccountant.get_epsilons",
    }
    return save_figure(fig, data, out_dir, ID)
