r"""The setting and the panel grid shared by Figs. 3-5 of Zhu & Wang 2019.

Section 4 of the seed (and the authors' scripts): sampling probability
:math:`\gamma = 0.001`; high privacy :math:`\sigma = 5, b = 2, p = 0.6`, low privacy
:math:`\sigma = 1, b = 0.5, p = 0.9`, for the Gaussian, Laplace and randomized-response
mechanisms.  Each figure is a 2 x 3 grid: one row per privacy regime, one column
per mechanism (:func:`panel_grid`, :func:`finish_panel`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rigorous_rdp.curves import RdpCurve
from rigorous_rdp.mechanisms import GaussianCurve, LaplaceCurve, RandomizedResponseCurve
from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

GAMMA = Fraction(1, 1000)
DATASET_SIZE = 100000  # Wang et al. 2019 curve: m = gamma * n records without replacement
SETTINGS = {
    "high": {"gaussian": Fraction(5), "laplace": Fraction(2), "randomized-response": Fraction(3, 5)},
    "low": {"gaussian": Fraction(1), "laplace": Fraction(1, 2), "randomized-response": Fraction(9, 10)},
}
MECHS = ("gaussian", "laplace", "randomized-response")

BASE_CURVES: dict[str, Callable[[Fraction], RdpCurve]] = {
    "gaussian": GaussianCurve,
    "laplace": LaplaceCurve,
    "randomized-response": RandomizedResponseCurve,
}


def base_curve(mech: str, param: Fraction) -> RdpCurve:
    """The RDP curve of the mechanism ``mech`` without subsampling (``param``: sigma, b or p)."""
    return BASE_CURVES[mech](param)


def panel_grid() -> tuple[Figure, list[tuple[Axes, str, str, Fraction]]]:
    """The figure and its panels ``(axes, regime, mechanism, parameter)``, row by row."""
    fig, axes = subplots(2, 3, figsize=(15, 8.5))
    cells = [
        (axes[row, col], regime, mech, SETTINGS[regime][mech])
        for row, regime in enumerate(SETTINGS)
        for col, mech in enumerate(MECHS)
    ]
    return fig, cells


def finish_panel(ax: Axes, mech: str, param: Fraction, regime: str, detail: str, xlabel: str, ylabel: str) -> None:
    """Title (mechanism, parameter, regime and ``detail``), labels, grid and legend of one panel."""
    name = {
        "gaussian": rf"Gaussian, $\sigma={float(param):g}$",
        "laplace": rf"Laplace, $b={float(param):g}$",
        "randomized-response": rf"rand. response, $p={float(param):g}$",
    }[mech]
    decorate(
        ax,
        xlabel=xlabel,
        ylabel=ylabel,
        title=f"{name} ({regime} privacy), {detail}",
        title_size=10,
        grid_alpha=0.25,
        legend_size=6.5,
        legend_loc="upper left",
    )


def save_panels(
    fig: Figure, panels: Mapping[str, object], header: dict[str, Any], out_dir: Path, fig_id: str, **more: Any
) -> dict[str, Any]:
    """Lay out and save a panel figure; its JSON holds ``header``, the fields ``more`` (``title``,
    ``source``, ...), gamma and the data of each ``panels`` entry."""
    fig.tight_layout()
    return save_figure(fig, {**header, "gamma": str(GAMMA), "panels": panels}, out_dir, fig_id, **more)
