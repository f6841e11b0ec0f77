"""Scripts that regenerate every figure of the source documents.

Each figure is a module ``rigorous_rdp/paper_repro/<source>/<name>.py`` that defines

* ``ID`` (e.g. ``"zhuwang2019-fig3"``), ``TITLE`` and ``SOURCE`` (the seed file name),
* ``main(out_dir: pathlib.Path, fast: bool = False) -> dict``, which writes
  ``<out_dir>/<ID>.png`` and ``<out_dir>/<ID>.json`` (the plotted numbers) with
  :func:`rigorous_rdp.paper_repro._common.save_figure` and returns the JSON data,

keeps its parameters at the top, is deterministic given its seed, calls
``savefig`` and never ``plt.show()``.

Start-up: ``ID`` is set by a line ``ID = "<id>"`` (``reproduce ID`` finds the module by it and
imports only that one), figures are made by :func:`rigorous_rdp.paper_repro._common.subplots` (matplotlib's
``Figure`` on the Agg canvas, no pyplot), and modules that are slow to import (SciPy and the
research modules that use it, ``matplotlib.ticker``) are imported inside the functions that use
them, so listing the figures imports none of them.
"""
