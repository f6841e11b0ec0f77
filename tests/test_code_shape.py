"""The shape of the core's code: no function longer than MAX_LINES lines (docstring included).

The core is ``rigorous_rdp/`` without ``research/`` (numerical research probes) and
``paper_repro/`` (one script per figure).  A long function is split into named steps; an
exemption needs a reason here.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "rigorous_rdp"
MAX_LINES = 120
#: "path::function" -> why it stays longer (none)
EXEMPT: dict[str, str] = {}


def _long_functions() -> dict[str, int]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in ("research", "paper_repro"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_LINES:
                    found[f"{rel.as_posix()}::{node.name}"] = length
    return found


def test_no_function_in_the_core_is_longer_than_the_limit():
    long = {name: n for name, n in _long_functions().items() if name not in EXEMPT}
    assert not long, f"functions over {MAX_LINES} lines (split them): {long}"


def test_every_exemption_is_still_needed():
    assert set(EXEMPT) <= set(_long_functions())


def test_the_scan_sees_the_core():
    """The scan reads the core's modules (a wrong root would make the first test pass vacuously)."""
    names = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.py")}
    assert {"accountant.py", "subsampling/poisson_gaussian.py", "pld/profiles.py"} <= names
