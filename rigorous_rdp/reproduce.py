r"""Regenerate the figures of the source documents (the ``reproduce`` command).

Every module ``rigorous_rdp/paper_repro/<source>/<name>.py`` (names not starting with ``_``)
that defines ``ID``, ``TITLE``, ``SOURCE`` and ``main(out_dir, fast=False)`` is a
figure script (the convention of :mod:`rigorous_rdp.paper_repro`).  :func:`discover` finds
them, :func:`run_figures` runs a selection, in this process (``jobs=1``) or in
a :class:`concurrent.futures.ProcessPoolExecutor` (``jobs > 1``), with progress on stderr
(:mod:`rigorous_rdp.progress`).  A failing script is reported and does not stop the
others.

Nothing here is a privacy guarantee: the figure scripts call the certified API
for the bounds they plot; this module only schedules them.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import re
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import budget
from . import progress as _progress
from .errors import BudgetExceeded, InvalidParameter, quote

__all__ = ["FigureRun", "FigureScript", "default_out_dir", "discover", "require_figure_extras", "run_figures", "select"]


#: the source documents, by the file name of their text (a figure script's ``SOURCE``)
CITATIONS = {
    "001_bdd2e238bc870026.txt": "blog part 1 (2019)",
    "000_b75598ebeda44c3a.txt": "blog part 2 (2019)",
    "002_8442ad9e6f211c1c.txt": "Zhu & Wang, ICML 2019",
    "004_85a5147f28f95754.txt": "Birrell et al. 2024",
    "issue-25-samplers.txt": "Chua et al. 2024-25",
}


@dataclass(frozen=True)
class FigureScript:
    """One figure script: its ID, title, seed file name and module name."""

    id: str
    title: str
    source: str
    module: str

    @property
    def citation(self) -> str:
        """The source document as a reader names it (the seed file name if it is not listed)."""
        return CITATIONS.get(self.source, self.source)

    def to_json(self) -> dict:
        return {"id": self.id, "source": self.source, "citation": self.citation, "title": self.title}


@dataclass(frozen=True)
class FigureRun:
    """Outcome of running one figure script."""

    id: str
    ok: bool
    seconds: float
    error: str | None = None

    def to_json(self, out_dir: Path) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.id,
            "status": "ok" if self.ok else "failed",
            "seconds": round(self.seconds, 3),
        }
        if self.ok:
            out["png"] = str(Path(out_dir) / f"{self.id}.png")
            out["json"] = str(Path(out_dir) / f"{self.id}.json")
        else:
            out["error"] = self.error
        return out


def _natural_key(text: str) -> list[object]:
    """Sort ``fig2`` before ``fig10``."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


_ID_LINE = re.compile(r'^ID = "([^"\\]+)"$', flags=re.M)


def _find_by_id(package: str, ids: Sequence[str]) -> dict[str, FigureScript] | None:
    """The scripts of the given IDs, importing only their modules: each ID must be set by a line
    ``ID = "<id>"`` in exactly one module of ``package`` (read as text, not imported), and the
    module must import and define that ID; else None (then :func:`discover` imports them all)."""
    pkg = importlib.import_module(package)
    where: dict[str, list[str]] = {}
    for src in pkgutil.iter_modules(pkg.__path__):
        if not src.ispkg or src.name.startswith("_"):
            continue
        sub = importlib.import_module(f"{package}.{src.name}")
        for info in pkgutil.iter_modules(sub.__path__):
            if info.ispkg or info.name.startswith("_"):
                continue
            path = Path(sub.__path__[0]) / f"{info.name}.py"
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                return None
            for fid in _ID_LINE.findall(text):
                where.setdefault(fid, []).append(f"{package}.{src.name}.{info.name}")
    found: dict[str, FigureScript] = {}
    for fid in ids:
        if len(where.get(fid, [])) != 1:
            return None
        name = where[fid][0]
        try:
            mod = importlib.import_module(name)
        except Exception:
            return None
        if not all(hasattr(mod, a) for a in ("ID", "TITLE", "SOURCE", "main")) or str(mod.ID) != fid:
            return None
        found[fid] = FigureScript(fid, str(mod.TITLE), str(mod.SOURCE), name)
    return found


def discover(package: str = "rigorous_rdp.paper_repro", ids: Sequence[str] = ()) -> dict[str, FigureScript]:
    r"""All figure scripts of ``package``, keyed by ID, in natural order of the IDs.

    A module that cannot be imported is kept under the pseudo-ID
    ``"<source>/<module>"`` (with the error in its title), so that running it
    reports the failure: a broken script must not silently disappear from
    ``reproduce all``.

    With ``ids`` (figure IDs, not ``"all"``), only the scripts of those IDs are returned, and only
    their modules are imported when each ID is found as the line ``ID = "<id>"`` of exactly one
    module (importing every script costs as much as running a short one); otherwise all are
    imported as without ``ids`` (so an unknown ID is reported the same way by :func:`select`).

    Raises:
        RuntimeError: if two modules define the same ID.
    """
    targets = list(ids)
    if targets and "all" not in targets:
        some = _find_by_id(package, targets)
        if some is not None:
            return {k: some[k] for k in sorted(some, key=_natural_key)}
    pkg = importlib.import_module(package)
    found: dict[str, FigureScript] = {}
    for src in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not src.ispkg or src.name.startswith("_"):
            continue
        sub = importlib.import_module(f"{package}.{src.name}")
        for info in sorted(pkgutil.iter_modules(sub.__path__), key=lambda m: m.name):
            if info.ispkg or info.name.startswith("_"):
                continue
            name = f"{package}.{src.name}.{info.name}"
            try:
                mod = importlib.import_module(name)
            except Exception as exc:
                fid = f"{src.name}/{info.name}"
                msg = " ".join(f"{type(exc).__name__}: {exc}".split())
                found[fid] = FigureScript(fid, f"(cannot be imported: {msg})", "", name)
                continue
            if not all(hasattr(mod, a) for a in ("ID", "TITLE", "SOURCE", "main")):
                continue
            fid = str(mod.ID)
            if fid in found:
                raise RuntimeError(f"figure ID {fid} is defined by both {found[fid].module} and {name}")
            found[fid] = FigureScript(fid, str(mod.TITLE), str(mod.SOURCE), name)
    return {k: found[k] for k in sorted(found, key=_natural_key)}


def select(scripts: dict[str, FigureScript], targets: Sequence[str]) -> list[FigureScript]:
    r"""The scripts named by ``targets`` (empty, or containing ``"all"``: every script), in order.

    Raises:
        ValueError: for an unknown figure ID (message names the ID and how to list them).
    """
    targets = list(targets)
    if not targets or "all" in targets:
        return list(scripts.values())
    unknown = [t for t in targets if t not in scripts]
    if unknown:
        which = ", ".join(quote(repr(u)) for u in unknown[:5])
        raise InvalidParameter("figure_id", f"{which} is unknown", related=())
    seen: dict[str, FigureScript] = {}
    for t in targets:
        seen.setdefault(t, scripts[t])
    return list(seen.values())


#: what the figure scripts import beyond the core install (the ``[figures]`` extra)
FIGURE_EXTRAS = {"matplotlib": "matplotlib", "sklearn": "scikit-learn"}


def require_figure_extras() -> None:
    """Raise ``ValueError`` (one line, naming what to install) when a package of the
    ``[figures]`` extra is missing; the core install certifies without them."""
    import importlib.util

    missing = [dist for mod, dist in FIGURE_EXTRAS.items() if importlib.util.find_spec(mod) is None]
    if missing:
        raise ValueError(
            f'reproduce needs {" and ".join(missing)} (the [figures] extra): pip install -e ".[figures]" in a checkout.'
        )


#: the default output directory, relative to the current directory (never the committed
#: ``figures/`` of a checkout, which ``--out figures`` rewrites on purpose)
DEFAULT_OUT = "rigorous-rdp-figures"


def default_out_dir(fast: bool = False) -> Path:
    r"""``./rigorous-rdp-figures`` in the current directory; with ``fast``, its subfolder
    ``fast/``. The figures committed in a checkout (``figures/``) are only written when asked
    for (``--out figures``), so running the command never changes the source tree by itself.
    """
    base = Path.cwd() / DEFAULT_OUT
    return base / "fast" if fast else base


@contextlib.contextmanager
def output_directory(out_dir: Path) -> Iterator[Path]:
    """Create ``out_dir`` (with its missing parents) for a run; when the run stops with an
    exception (Ctrl-C, the time budget), remove the directories it created that are still empty,
    so an interrupted run leaves no empty output directory behind (finished figures stay)."""
    out = Path(out_dir)
    created: list[Path] = []
    for d in (out, *out.parents):
        if d.exists():
            break
        created.append(d)
    out.mkdir(parents=True, exist_ok=True)
    try:
        yield out
    except BaseException:
        for d in created:  # deepest first; stops at the first one that holds something
            try:
                d.rmdir()
            except OSError:
                break
        raise


def run_one(module: str, fig_id: str, out_dir: str, fast: bool) -> FigureRun:
    """Import ``module`` and run its ``main``; never raises (errors are returned)."""
    t0 = time.perf_counter()
    try:
        import matplotlib

        matplotlib.use("Agg")
        mod = importlib.import_module(module)
        mod.main(Path(out_dir), fast=fast)
        for ext in ("png", "json"):
            if not (Path(out_dir) / f"{fig_id}.{ext}").is_file():
                raise RuntimeError(f"the script did not write {fig_id}.{ext}")
    except Exception as exc:
        if isinstance(exc, BudgetExceeded) or budget.expired() or budget.caused_by_interrupt(exc):
            raise  # the time budget or Ctrl-C stops the run; it is not a failed figure
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" ({Path(tb[-1].filename).name}:{tb[-1].lineno})" if tb else ""
        msg = " ".join(f"{type(exc).__name__}: {exc}".split())
        return FigureRun(fig_id, False, time.perf_counter() - t0, msg + where)
    return FigureRun(fig_id, True, time.perf_counter() - t0)


def run_figures(
    scripts: Iterable[FigureScript],
    out_dir: Path,
    *,
    jobs: int = 1,
    fast: bool = False,
    progress: bool = True,
    on_result: Callable[[FigureRun], None] | None = None,
) -> list[FigureRun]:
    r"""Run the figure scripts; return one :class:`FigureRun` per script, in input order.

    Args:
        scripts: the scripts (see :func:`discover`, :func:`select`).
        out_dir: directory for ``<ID>.png`` and ``<ID>.json`` (created).
        jobs: number of worker processes (1: run in this process).
        fast: ask each script for its smaller smoke version.
        progress: report a failed figure on stderr as it happens (the count of figures done is
            drawn by the command line's progress session, :mod:`rigorous_rdp.progress`).
        on_result: called with each result as it completes.

    Raises:
        ValueError: if ``jobs`` is not an integer >= 1.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1. Found {jobs!r}.")
    scripts = list(scripts)
    with output_directory(out_dir) as out:
        return _run_figures(scripts, out, jobs, fast, progress, on_result)


def _run_figures(
    scripts: list[FigureScript],
    out: Path,
    jobs: int,
    fast: bool,
    progress: bool,
    on_result: Callable[[FigureRun], None] | None,
) -> list[FigureRun]:
    results: dict[str, FigureRun] = {}
    parallel = jobs > 1 and len(scripts) > 1
    pool = None
    futs = {}
    if parallel:
        from concurrent.futures import ProcessPoolExecutor  # here: one process needs no pool

        # workers are forked before the progress bar starts its monitor thread
        from .budget import ignore_sigint

        pool = ProcessPoolExecutor(max_workers=min(jobs, len(scripts)), initializer=ignore_sigint)
        futs = {pool.submit(run_one, s.module, s.id, str(out), fast): s for s in scripts}
    bar_cm = _progress.task("figures", len(scripts), "figures", whole=True)
    bar = bar_cm.__enter__()

    def done(r: FigureRun) -> None:
        results[r.id] = r
        bar.update(1, note=f"{r.id} {'ok' if r.ok else 'FAILED'}")
        if not r.ok and progress:
            _progress.write(f"rigorous-rdp: figure {r.id} failed: {r.error}")
        if on_result is not None:
            on_result(r)

    aborted = True
    try:
        if not parallel:
            for s in scripts:
                budget.check(f"figure {s.id}")
                bar.note = f"running {s.id}"
                done(run_one(s.module, s.id, str(out), fast))
        else:
            from concurrent.futures import as_completed

            for f in as_completed(futs):
                s = futs[f]
                try:
                    r = f.result()
                except Exception as exc:
                    r = FigureRun(s.id, False, 0.0, " ".join(f"{type(exc).__name__}: {exc}".split()))
                done(r)
        aborted = False
    finally:
        bar_cm.__exit__(None, None, None)
        if pool is not None:  # on the budget or Ctrl-C: the workers are stopped at once
            from .budget import stop_executor

            stop_executor(pool, futs, own=True, aborted=aborted)
    return [results[s.id] for s in scripts]
