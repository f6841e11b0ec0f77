"""The data of a figure script, for tests of the properties of its plotted numbers.

``figure_cases(names)`` gives two cases per script: the committed full version
(``figures/ID.json``; the default run of ``tests/test_reproduce.py`` recomputes it
and compares) and a fresh ``--fast`` run (slow: it repeats that computation);
``figure_data(name, source, tmp_path)`` returns that data; ``figure_property_test(checks)``
is the test of a module: for each script named in ``checks``, its check of the data, on both cases.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def figure_cases(names: list[str]) -> list:
    """``(name, source)`` parameters: every committed figure in the default run, every fast run under ``-m slow``."""
    committed = [pytest.param(name, "committed", id=f"{name}-committed") for name in names]
    fast = [pytest.param(name, "fast", id=f"{name}-fast", marks=pytest.mark.slow) for name in names]
    return committed + fast


def figure_data(name: str, source: str, tmp_path: Path) -> dict:
    """The numbers of ``rigorous_rdp.paper_repro.blog.<name>``: committed (a full run) or computed now with ``fast=True``
    (which must also write a PNG of a plausible size)."""
    mod = importlib.import_module(f"rigorous_rdp.paper_repro.blog.{name}")
    if source == "committed":
        data = json.loads((ROOT / "figures" / f"{mod.ID}.json").read_text())
        assert data.get("fast") is not True
    else:
        data = mod.main(tmp_path, fast=True)
        assert (tmp_path / f"{mod.ID}.png").stat().st_size > 10_000
    assert data["id"] == mod.ID
    return data


def figure_property_test(checks: dict[str, Callable[[dict], None]]) -> Callable[..., None]:
    """``test_figure_data_properties = figure_property_test({name: check, ...})``: one test per script
    and case (:func:`figure_cases`) that asserts ``check(data)`` of the plotted numbers."""

    @pytest.mark.parametrize("name,source", figure_cases(list(checks)))
    def test_figure_data_properties(name: str, source: str, tmp_path: Path) -> None:
        """The properties of the plotted numbers (committed full data, and a fresh fast run under ``-m slow``)."""
        checks[name](figure_data(name, source, tmp_path))

    return test_figure_data_properties
