r"""Helpers for the privacy figures of Birrell et al. (Figs. 1, 2, 3, 4a, 7, 8, 9).

All upper bounds are certified enclosures from :class:`rigorous_rdp.RdpAccountant`
(we plot and store the upper end).  The FSwR lower bound (17) of Thm. 3.7 is
stored as the certified lower end (:func:`fswr_lower`).  The Wang et al. (2019) *lower* bound
(Prop. 11 / eq. (133) of the seed) is a certified enclosure of a lower bound on the
RDP; the "epsilon" derived from it (:func:`epsilon_from_lower_rdp`) is the
smallest epsilon that the RDP route with the Balle et al. (2020, Thm. 21)
conversion could ever report, over the integer orders searched -- a reference
line as in the seed's Fig. 3, never a privacy guarantee.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from flint import arb

from rigorous_rdp import (
    Adjacency,
    BoundOptions,
    DpEvent,
    FixedSizeSampledEvent,
    GaussianEvent,
    PoissonSampledEvent,
    RdpAccountant,
)
from rigorous_rdp.arith import Certified, decimal_lower, refine, workprec
from rigorous_rdp.conversion import epsilon_balle
from rigorous_rdp.curves import MinCurve
from rigorous_rdp.paper_repro._common import decorate, fast_tag
from rigorous_rdp.registry import rdp_curve
from rigorous_rdp.subsampling.fswr import fswr_lower_rdp
from rigorous_rdp.subsampling.wang2019 import wang2019_gaussian_lower

if TYPE_CHECKING:
    from matplotlib.axes import Axes

SIGMA = 6
BATCH = 120
DATASET = 50000
EPOCHS = 250
DIGITS = 4
#: the conversion of the epsilon figures (Figs. 3, 4a), as the JSON names it
BALLE = "balle (Thm 21 of Balle et al. 2020)"
#: working precision of the FSwR figures (Figs. 1, 8, 9)
FSWR_PREC = 128
#: working precision of the Wang et al. lower bound (133)
WANG_PREC = 128


def heading(figure: str, fast: bool, detail: str = "") -> str:
    """Title of a figure in the setting of section 4: ``figure`` (e.g. ``"Fig. 2"``), sigma, |B|, |D|, ``detail``."""
    return f"Birrell et al. {figure}: \u03c3 = {SIGMA}, |B| = {BATCH}, |D| = {DATASET:,}{detail}" + fast_tag(fast)


def setting(**more: Any) -> dict[str, Any]:
    """The ``params`` of a figure's JSON: sigma, |B|, |D| of section 4 and ``more``."""
    return {"sigma": SIGMA, "batch_size": BATCH, "dataset_size": DATASET, **more}


def plot_wang_lower(ax: Axes, alphas: Sequence[int], values: Sequence[float], label: str) -> None:
    """The Wang et al. lower bound (133) as open circles (at most about 40 of them)."""
    ax.plot(alphas, values, "o", mfc="none", color="k", ms=4, markevery=max(1, len(alphas) // 40), label=label)


def finish_one_step(ax: Axes, figure: str, fast: bool) -> None:
    """Axes of the one-step RDP figures (Figs. 2, 7): the largest default order of Opacus, log RDP, labels."""
    ax.axvline(63, ls=":", color="0.5", lw=1, label="largest default order of Opacus (63)")
    decorate(
        ax,
        xlabel="order \u03b1",
        ylabel="RDP \u03b5(\u03b1) of one step (replace-one)",
        title=heading(figure, fast),
        title_size=10,
        ylog=True,
    )


def fswr_lower(alpha: int, sigma: int, batch: int, dataset: int, t_sets: str) -> float:
    """Lower end (17 digits) of the certified enclosure of the FSwR lower bound (17) of Thm. 3.7.

    ``t_sets`` names the index sets of App. D.2.1 (see
    :func:`rigorous_rdp.subsampling.fswr.fswr_lower_rdp`).  A lower bound is not a
    privacy guarantee; the figures plot it for comparison.
    """
    with workprec(FSWR_PREC):
        return float(decimal_lower(fswr_lower_rdp(alpha, sigma, batch, dataset, t_sets), 17))


def steps_for(epochs: float, batch: int = BATCH, dataset: int = DATASET) -> int:
    """Number of DP-SGD steps in ``epochs`` epochs (rounded to the nearest integer)."""
    return max(1, round(Fraction(str(epochs)) * dataset / batch))


def fswor_r1(m: int, sigma=SIGMA, batch=BATCH, dataset=DATASET) -> Accounted:
    """FSwoR, replace-one adjacency, Thm. 3.4 with Taylor order m."""
    event = FixedSizeSampledEvent(
        GaussianEvent(sigma), batch, dataset, replacement=False, adjacency=Adjacency.REPLACE_ONE
    )
    return Accounted(event, BoundOptions(taylor_order=m))


def poisson_r1(sigma=SIGMA, batch=BATCH, dataset=DATASET) -> PoissonSampledEvent:
    """Poisson sampling with q = |B|/|D|, replace-one adjacency (Thm. C.9)."""
    return PoissonSampledEvent(GaussianEvent(sigma), Fraction(batch, dataset), Adjacency.REPLACE_ONE)


class Accounted(NamedTuple):
    """An event and the accountant's choice of theorem for it."""

    event: DpEvent
    options: BoundOptions


def _accounted(event: object) -> Accounted:
    """``event`` with its choice of theorem (a bare event: the default bound)."""
    if isinstance(event, Accounted):
        return event
    if not isinstance(event, DpEvent):
        raise TypeError(f"expected a DpEvent or an Accounted event. Found {event!r}.")
    return Accounted(event, BoundOptions())


def wang_upper(sigma=SIGMA, batch=BATCH, dataset=DATASET) -> Accounted:
    """FSwoR, replace-one, accounted with the Wang et al. (2019) upper bound."""
    event = FixedSizeSampledEvent(GaussianEvent(sigma), batch, dataset, adjacency=Adjacency.REPLACE_ONE)
    return Accounted(event, BoundOptions("wang2019"))


def rdp_upper(event: object, alphas: Sequence[int], steps: int = 1) -> list[float]:
    """Upper ends of the certified RDP enclosures of ``steps`` steps at each order.

    Plots show each theorem on its own: where the accountant takes the minimum of
    several valid bounds (FSwoR replace-one: Thm 3.4 and Wang et al.), the first
    one (the Birrell et al. theorem) is plotted.
    """
    curve = rdp_curve(*_accounted(event))
    if isinstance(curve, MinCurve):
        curve = curve.curves[0]

    def upper(a: int) -> float:
        return refine(lambda prec: steps * curve.certified(Fraction(a)), DIGITS).upper_float()

    return [upper(a) for a in alphas]


def wang_lower_rdp(alphas: Sequence[int], sigma=SIGMA, batch=BATCH, dataset=DATASET) -> list[float]:
    """Lower ends of the enclosures of the Wang et al. lower bound (133), one step (rounded down)."""
    q = Fraction(batch, dataset)
    with workprec(WANG_PREC):
        return [Certified(wang2019_gaussian_lower(int(a), sigma, q), WANG_PREC).lower_float() for a in alphas]


def epsilons(event: object, steps: int, deltas: Sequence[str], conversion: str = "balle") -> dict[str, Any]:
    """Certified epsilon (upper ends) and the chosen orders for each delta."""
    event, options = _accounted(event)
    acc = RdpAccountant(
        digits=DIGITS, conversion=conversion, bound=options.bound, tau=options.tau, taylor_order=options.taylor_order
    )
    acc.compose(event, steps)
    ups, orders = [], []
    for d in deltas:
        r = acc.get_epsilon_and_order(d)
        ups.append(r.epsilon.upper_float())
        orders.append(float(r.order) if r.order is not None else None)
    return {"epsilon_upper": ups, "alpha": orders}


def epsilon_from_lower_rdp(
    steps: int,
    deltas: Sequence[str],
    alphas: Sequence[int] = tuple(range(2, 257)),
    sigma=SIGMA,
    batch=BATCH,
    dataset=DATASET,
) -> dict[str, Any]:
    """min over integer orders of the Balle et al. conversion of ``steps`` x (133) (reference only)."""
    q = Fraction(batch, dataset)
    eps, orders = [], []
    with workprec(WANG_PREC):
        lows = [wang2019_gaussian_lower(int(a), sigma, q).lower() for a in alphas]
        for d in deltas:
            dd = arb(Fraction(d).numerator) / Fraction(d).denominator
            vals = [float(epsilon_balle(steps * lo, arb(a), dd).mid()) for a, lo in zip(alphas, lows, strict=True)]
            i = min(range(len(vals)), key=vals.__getitem__)
            eps.append(max(vals[i], 0.0))
            orders.append(int(alphas[i]))
    return {"epsilon": eps, "alpha": orders}
