"""Executable notebooks: run the code cells of a Jupyter notebook (``.ipynb``, format 4) without a
kernel and compare what they print and return with the outputs stored in the notebook.

A code cell runs statement by statement in one namespace shared by the notebook's cells (as in a
kernel); what it prints is its ``stream`` output and the ``repr`` of a final expression statement
is its ``execute_result`` (``text/plain``), as a Python kernel shows them for the values used in
the tutorials. ``...`` in a stored line matches any text (as in the transcripts), for values that
change from run to run. Only the standard library is needed: the test suite executes the
notebooks of ``docs/notebooks/`` in every run (``tests/test_docs.py``).

``python tests/_notebooks.py --update docs/notebooks/NAME.ipynb`` rewrites the stored outputs from
a fresh run (never edit numbers by hand).
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
from pathlib import Path

from _transcripts import output_matches

ROOT = Path(__file__).resolve().parents[1]


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _lines(text: str) -> list[str]:
    """Notebook multi-line strings: a list of lines, each but the last ending with a newline."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def run_cell(source: str, namespace: dict, where: str) -> tuple[str, str | None]:
    """Execute one code cell; its printed text and the repr of its final expression (or None)."""
    tree = ast.parse(source, where)
    out = io.StringIO()
    result = None
    with contextlib.redirect_stdout(out):
        for i, stmt in enumerate(tree.body):
            if i == len(tree.body) - 1 and isinstance(stmt, ast.Expr):
                value = eval(compile(ast.Expression(stmt.value), where, "eval"), namespace)
                if value is not None:
                    result = repr(value)
            else:
                exec(compile(ast.Module([stmt], []), where, "exec"), namespace)
    return out.getvalue(), result


def outputs(source: str, namespace: dict, where: str, count: int) -> list[dict]:
    """The outputs of one code cell in the notebook format."""
    printed, result = run_cell(source, namespace, where)
    outs: list[dict] = []
    if printed:
        outs.append({"name": "stdout", "output_type": "stream", "text": _lines(printed)})
    if result is not None:
        outs.append(
            {
                "data": {"text/plain": _lines(result)},
                "execution_count": count,
                "metadata": {},
                "output_type": "execute_result",
            }
        )
    return outs


def _text(outs: list[dict]) -> list[str]:
    lines: list[str] = []
    for o in outs:
        text = o["text"] if o["output_type"] == "stream" else o.get("data", {}).get("text/plain", [])
        lines += "".join(text).rstrip("\n").split("\n")
    return lines


def run_notebook(path: Path, update: bool = False) -> int:
    """Execute the notebook in a temporary working directory; assert that every code cell gives
    its stored outputs (or, with ``update``, store the fresh ones). Returns the number of output
    lines compared."""
    import tempfile

    nb = json.loads(path.read_text())
    namespace: dict = {"__name__": "__main__"}
    compared = 0
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            count = 0
            for i, cell in enumerate(nb["cells"]):
                if cell["cell_type"] != "code":
                    continue
                count += 1
                where = f"{path.name}, cell {i}"
                fresh = outputs(_source(cell), namespace, where, count)
                if update:
                    cell["outputs"], cell["execution_count"] = fresh, count
                    continue
                stored, got = _text(cell.get("outputs", [])), _text(fresh)
                assert output_matches(stored, got), (
                    f"{where}: the notebook shows\n" + "\n".join(stored) + ("\na fresh run gives\n" + "\n".join(got))
                )
                compared += len(stored)
        finally:
            os.chdir(here)
    if update:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return compared


if __name__ == "__main__":  # python tests/_notebooks.py --update docs/notebooks/NAME.ipynb ...
    import argparse
    import sys

    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(description="Store fresh outputs in notebooks.")
    parser.add_argument("--update", nargs="+", required=True, metavar="FILE")
    for name in parser.parse_args().update:
        run_notebook(Path(name).resolve(), update=True)
        print(f"{name}: outputs stored")
