"""``--plot FILE`` of the commands that draw (``profile``, ``epsilon``): the file checked before
any computation, matplotlib imported only when drawing, and the figure written atomically."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import tempfile
from typing import Any

from ..errors import quote
from . import _common as common

#: the formats matplotlib writes, chosen by the extension of FILE
FORMATS = ("png", "pdf", "svg")


def check_plot_path(path: object, option: str = "--plot") -> str:
    """The output file of ``--plot``: a ``.png``, ``.pdf`` or ``.svg`` name in a writable
    directory, and matplotlib installed (the ``[figures]`` extra); else one ``ValueError``."""
    text = str(path)
    suffix = text.rsplit(".", 1)[-1].lower() if "." in text else ""
    if suffix not in FORMATS:
        raise ValueError(f"{option} must name a .png, .pdf or .svg file. Found {quote(text)}.")
    if importlib.util.find_spec("matplotlib") is None:
        raise ValueError(
            f"{option} needs matplotlib, which is not installed (it comes with the [figures] extra:"
            ' pip install -e ".[figures]" in a checkout).'
        )
    return common.output_file(text, option)


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (imported here, not at start-up)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str, dpi: int = 120) -> None:
    """Write ``fig`` to ``path`` in the format of its extension, through a temporary file next to
    it renamed at the end (an interrupted run leaves no half plot); the figure is closed."""
    plt = pyplot()
    fd, tmp = tempfile.mkstemp(prefix=".rigorous-rdp-", suffix=".tmp", dir=os.path.dirname(path) or ".")
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=dpi, format=path.rsplit(".", 1)[-1].lower())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # a temporary file is private (0600); the plot is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        plt.close(fig)
