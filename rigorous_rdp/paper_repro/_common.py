"""Helpers shared by the figure scripts: the seed files, the house style of the axes, saving."""

from __future__ import annotations

import contextlib
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SEEDS = {
    "blog2": "000_b75598ebeda44c3a.txt",
    "blog1": "001_bdd2e238bc870026.txt",
    "zhuwang2019": "002_8442ad9e6f211c1c.txt",
    "birrell2024": "004_85a5147f28f95754.txt",
}


def subplots(
    nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None, **kw: Any
) -> tuple[Figure, Any]:
    """A figure on the Agg canvas and its axes, as ``matplotlib.pyplot.subplots`` gives them (same
    arguments: ``figsize`` for the figure, the rest for :meth:`Figure.subplots`), without importing
    pyplot (its start-up is a third of a short figure's time) and without registering the figure with
    pyplot's figure manager (nothing to close)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, **kw)


def fast_tag(fast: bool) -> str:
    """The suffix that marks a title of the smaller ``--fast`` version of a figure."""
    return " [--fast]" if fast else ""


def decorate(
    ax: Axes,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    title_size: float | None = None,
    xlog: bool = False,
    ylog: bool = False,
    log: str = "",
    grid_alpha: float = 0.3,
    grid_which: Literal["major", "minor", "both"] = "both",
    legend_size: float | None = 8,
    legend_loc: Literal["upper left", "upper right", "lower left", "lower right"] | None = None,
) -> None:
    """Label, scale, grid and legend of one panel, in the house style of the figures.

    Call it after the curves are drawn (the legend collects their labels);
    ``legend_size=None`` leaves the panel without a legend; ``log="xy"`` is
    ``xlog=True, ylog=True``.
    """
    xlog, ylog = xlog or "x" in log, ylog or "y" in log
    if xlog:
        ax.set_xscale("log")
    if ylog:
        ax.set_yscale("log")
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if title is not None and title_size is None:
        ax.set_title(title)  # matplotlib's default title size
    elif title is not None:
        ax.set_title(title, fontsize=title_size)
    ax.grid(True, which=grid_which, alpha=grid_alpha)
    if legend_size is not None and legend_loc is None:
        ax.legend(fontsize=legend_size)  # matplotlib's default placement ("best")
    elif legend_size is not None:
        ax.legend(fontsize=legend_size, loc=legend_loc)


def _clean(obj: Any) -> Any:
    """Make data JSON-safe: numpy scalars/arrays to lists, non-finite floats to strings."""
    try:
        import numpy as np

        if isinstance(obj, np.ndarray):
            return [_clean(x) for x in obj.tolist()]
        if isinstance(obj, np.generic):
            obj = obj.item()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else str(obj)
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(x) for x in obj]
    return obj


def save_figure(fig: Figure, data: dict[str, Any], out_dir: Path, fig_id: str, **more: Any) -> dict[str, Any]:
    """Write ``<out_dir>/<fig_id>.png`` and ``<out_dir>/<fig_id>.json`` (the numbers ``data``
    and the fields ``more``: ``title=TITLE, source=SOURCE, fast=fast``, ...) together (both are
    written to temporary files first); close the figure."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    payload = _clean(dict(data, **more, id=fig_id))
    text = json.dumps(payload, indent=1, sort_keys=True) + "\n"
    _write_atomically(
        {
            out_dir / f"{fig_id}.png": lambda tmp: fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight"),
            out_dir / f"{fig_id}.json": lambda tmp: Path(tmp).write_text(text),
        }
    )
    if "matplotlib.pyplot" in sys.modules:  # a figure made by pyplot (not by subplots above)
        sys.modules["matplotlib.pyplot"].close(fig)
    return payload


def _write_atomically(files: dict[Path, Any]) -> None:
    """``write(tmp)`` of each ``path: write`` into a temporary file next to ``path``; once all are
    written, rename them to their paths: an interrupted run (Ctrl-C, a time budget) leaves the old
    files or the new ones, never half of one, and never a new PNG without its numbers."""
    import os
    import tempfile

    mask = os.umask(0)
    os.umask(mask)
    temps: dict[Path, str] = {}
    try:
        for path, write in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            os.close(fd)
            temps[path] = tmp
            os.chmod(tmp, 0o666 & ~mask)  # the mode of an ordinary new file, not mkstemp's 0600
            write(tmp)
        for path, tmp in temps.items():
            os.replace(tmp, path)
    except BaseException:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
