"""Scripts that regenerate every figure of the source documents.

Each figure is a module ``paper_repro/<source>/<name>.py`` that defines

* ``ID`` (e.g. ``"zhuwang2019-fig3"``), ``TITLE`` and ``SOURCE`` (the seed file name),
* ``main(out_dir: pathlib.Path, fast: bool = False) -> dict``, which writes
  ``<out_dir>/<ID>.png`` and ``<out_dir>/<ID>.json`` (the plotted numbers) with
  :func:`paper_repro._common.save_figure` and returns the JSON data,

keeps its parameters at the top, is deterministic given its seed, calls
``savefig`` and never ``plt.show()``.
"""
