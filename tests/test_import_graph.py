"""The import graph of the package, read from the source (module-level imports and the imports
inside functions alike): no cycle, and the core does not import ``rigorous_rdp.research``."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "rigorous_rdp"

#: cycles that another change removes: each entry is the exact set of modules of one strongly
#: connected component that may still be found (none left)
PENDING_CYCLES: list[frozenset[str]] = []
#: core -> research edges that another change removes (none left)
PENDING_RESEARCH_EDGES: set[tuple[str, str]] = set()


def _modules(root: Path = ROOT) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


@functools.cache
def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its source (``from . import x``
    counts as an edge to ``x``; the implicit import of a parent package does not)."""
    mods = _modules(root)
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    if full in mods:
                        edges[name].add(full)
                    elif target in mods:
                        edges[name].add(target)
            elif isinstance(node, ast.Import):
                edges[name].update(a.name for a in node.names if a.name in mods)
        edges[name].discard(name)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.add(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(frozenset(comp))
    return found


def test_cycle_finder_sees_function_level_imports(tmp_path):
    pkg = tmp_path / "rigorous_rdp"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..c import x\n")
    (pkg / "c.py").write_text("def g():\n    from . import a\n")
    (pkg / "d.py").write_text("from . import c\n")
    graph = import_graph(pkg)
    assert graph["rigorous_rdp.sub.b"] == {"rigorous_rdp.c"}
    assert cycles(graph) == [frozenset({"rigorous_rdp.a", "rigorous_rdp.sub.b", "rigorous_rdp.c"})]


def test_no_import_cycle():
    found = cycles(import_graph())
    unexpected = [sorted(c) for c in found if c not in PENDING_CYCLES]
    assert unexpected == []


@pytest.mark.parametrize("name", ["rigorous_rdp.curves", "rigorous_rdp.scheme", "rigorous_rdp.events"])
def test_low_modules_do_not_import_the_registry(name):
    assert "rigorous_rdp.registry" not in import_graph()[name]


def test_core_does_not_import_research():
    graph = import_graph()
    # the command line and the figure scripts are consumers of the research modules, not the core
    core = [
        m for m in graph if not m.startswith(("rigorous_rdp.research", "rigorous_rdp.cli", "rigorous_rdp.paper_repro"))
    ]
    assert len(core) > 30
    edges = {(m, t) for m in core for t in graph[m] if t.startswith("rigorous_rdp.research")}
    assert edges <= PENDING_RESEARCH_EDGES
