"""``rigorous-rdp epsilon ... --plot FILE``: the user's run drawn, epsilon against steps (up to
``--steps``, at ``--delta``) and against delta (around ``--delta``, after ``--steps`` steps).

Every point is a certified query of the same method as the answer (``--method``): a PLD point is a
bracket ``[lower, upper]`` of the true optimal epsilon, drawn as a band; an RDP point is a certified
upper bound only (the lower end of its enclosure bounds the RDP route, not the true epsilon), drawn
as a line.  ``best`` draws both.  The plotted numbers are also in the JSON output (``plot``).
"""

from __future__ import annotations

import argparse
from decimal import ROUND_CEILING, Decimal, localcontext
from fractions import Fraction
from typing import Any

from .. import progress, validation
from ..errors import UnsupportedEventError
from ..pld.accountant import MIN_DELTA
from ..pld.results import decimal_text
from . import _common as common
from . import _method as pld_cli
from ._plot import check_plot_path, pyplot, save_figure

#: points on each axis (at most; fewer when the run has fewer steps)
STEP_POINTS = 8
#: decades of delta below and above the target
DELTA_DECADES = (-3, 2)


def steps_grid(steps: int, points: int = STEP_POINTS) -> list[int]:
    """Step counts from 1 to ``steps``, geometrically spaced (all of them when there are few)."""
    if steps <= points:
        return list(range(1, steps + 1))
    grid = {max(1, round(steps ** (k / (points - 1)))) for k in range(points)}
    grid.add(steps)
    return sorted(grid)


def delta_grid(delta: Fraction) -> list[Fraction]:
    """``delta * 10**j`` for ``j`` in :data:`DELTA_DECADES` that stay in ``[MIN_DELTA, 1)`` (exact)."""
    lo, hi = DELTA_DECADES
    return [d for j in range(lo, hi + 1) if MIN_DELTA <= (d := delta * Fraction(10) ** j) < 1]


def upper_text(upper: str, digits: int = 4) -> str:
    """The decimal upper end ``upper`` to ``digits`` significant digits, rounded up (a label that
    never shows less than the certified value): ``"1.744750418"`` -> ``"1.745"``."""
    with localcontext() as dec:
        dec.prec, dec.rounding = digits, ROUND_CEILING
        return format(+Decimal(upper), "g")


def check(args: argparse.Namespace) -> str:
    """The plot file, checked before the query runs (extension, directory, matplotlib)."""
    return check_plot_path(args.plot)


def _methods(args: argparse.Namespace) -> list[str]:
    method = pld_cli.method_of(args)
    return ["rdp", "pld"] if method == "best" else [method]


def _point(args: argparse.Namespace, method: str, steps: int, delta: Fraction) -> dict[str, str] | None:
    """The certified epsilon of ``method`` at (steps, delta): ``{"upper"}`` for rdp, ``{"lower",
    "upper"}`` for pld; ``None`` when the method refuses the event (``best`` skips it)."""
    if method == "rdp":
        acc = common.accountant_option(args).compose(common.build_event(args), steps)
        return {"upper": acc.get_epsilon_and_order(delta).epsilon.to_json()["upper"]}
    try:
        res = pld_cli.pld_epsilon(common.build_event(args), steps, delta, args)
    except (UnsupportedEventError, ValueError):
        if pld_cli.method_of(args) == "best":
            return None
        raise
    return dict(res["epsilon"])


def answered(args: argparse.Namespace, res: dict[str, Any]) -> dict[str, dict[str, str] | None]:
    """The points the answer ``res`` already holds (the query at ``--steps`` and ``--delta``), by method,
    in the form of :func:`_point`; ``None`` for a method that refused the event."""
    method = pld_cli.method_of(args)
    if method != "best":
        value = res["epsilon"]
        return {method: {"upper": value["upper"]} if method == "rdp" else dict(value)}
    out: dict[str, dict[str, str] | None] = {m: None for m in res.get("refused", {})}
    for m, cand in res.get("candidates", {}).items():
        out[m] = {"upper": cand["epsilon"]["upper"]} if m == "rdp" else dict(cand["epsilon"])
    return out


def compute(args: argparse.Namespace, res: dict[str, Any] | None = None) -> dict[str, Any]:
    """The points of both panels: ``{"against_steps": [...], "against_delta": [...]}``, each row
    ``{"steps", "delta", "rdp": {"upper"}, "pld": {"lower", "upper"}}`` (the methods asked for).

    Each distinct (steps, delta) is computed once; the one of the answer ``res`` (``--steps``,
    ``--delta``, in both panels) is taken from it, not computed again."""
    steps = common.parse_steps(args.steps)
    delta = validation.unit_interval(args.delta, "delta", open_low=True, open_high=True)
    methods = _methods(args)
    cells = [(t, delta) for t in steps_grid(steps)], [(steps, d) for d in delta_grid(delta)]
    known: dict[tuple[int, Fraction], dict[str, dict[str, str] | None]] = {}
    known[(steps, delta)] = {} if res is None else answered(args, res)
    skipped = {m for m, v in known[(steps, delta)].items() if v is None}
    out: dict[str, Any] = {"against_steps": [], "against_delta": []}
    distinct = {c for panel in cells for c in panel}
    total = sum(1 for c in distinct for m in methods if m not in known.get(c, {}))
    with progress.task("plot points", total, "queries") as task:
        for key, points in zip(out, cells, strict=True):
            for t, d in points:
                row: dict[str, Any] = {"steps": t, "delta": decimal_text(d)}
                cell = known.setdefault((t, d), {})
                for m in methods:
                    if m not in cell:
                        task.note = f"{m} at {t} steps, delta {float(d):.3g}"
                        cell[m] = None if m in skipped else _point(args, m, t, d)
                        task.update()
                    value = cell[m]
                    if value is None:
                        skipped.add(m)
                    else:
                        row[m] = value
                out[key].append(row)
    return out


def draw(path: str, args: argparse.Namespace, res: dict[str, Any]) -> dict[str, Any]:
    """Compute the points, draw the two panels into ``path``; the JSON ``plot`` entry."""
    data = compute(args, res)
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.4))
    steps = common.parse_steps(args.steps)
    for ax, key, xname in ((ax1, "against_steps", "steps"), (ax2, "against_delta", "delta")):
        rows = data[key]
        x = [float(Fraction(str(r[xname]))) for r in rows]
        pld = [r["pld"] for r in rows if "pld" in r]
        if len(pld) == len(rows):
            lo = [float(Fraction(p["lower"])) for p in pld]
            up = [float(Fraction(p["upper"])) for p in pld]
            ax.fill_between(x, lo, up, color="C0", alpha=0.3, lw=0)
            ax.plot(x, up, "C0-", lw=1.5, marker="o", ms=3, label="PLD upper end (certified)")
            ax.plot(x, lo, "C0--", lw=1.0, label="PLD lower end (the true epsilon is above)")
        rdp = [r["rdp"] for r in rows if "rdp" in r]
        if len(rdp) == len(rows):
            ax.plot(
                x, [float(Fraction(p["upper"])) for p in rdp], "C3-", lw=1.5, marker="s", ms=3, label="RDP upper bound"
            )
        you = float(Fraction(res["epsilon"]["upper"]))
        at = steps if xname == "steps" else float(Fraction(str(args.delta)))
        ax.plot([at], [you], "k*", ms=11, label=f"your run: {upper_text(res['epsilon']['upper'])}")
        ax.set_xscale("log")
        lo_y, hi_y = ax.get_ylim()
        if lo_y > 0 and hi_y > 10 * lo_y:  # a log scale only where it spans a decade
            ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylabel(r"$\varepsilon$ (certified)")
        ax.legend(loc="best", fontsize=8)
    ax1.set_xlabel("steps")
    ax1.set_title(rf"$\varepsilon$ against steps at $\delta$ = {args.delta}")
    ax2.set_xlabel(r"$\delta$")
    ax2.set_title(rf"$\varepsilon$ against $\delta$ after {steps} steps")
    m = res["mechanism"]
    params = ", ".join(f"{k}={v}" for k, v in m.items() if k not in ("noise", "sampling", "adjacency") and v)
    fig.suptitle(
        f"{m['noise']} ({params}), sampling {m['sampling']}, {m['adjacency']}; method {res.get('method', 'rdp')}"
    )
    fig.tight_layout()
    save_figure(fig, path)
    return {"file": args.plot, **data}  # the name as given (written at its real path ``path``)


def describe(res: dict[str, Any]) -> str:
    """The line of the text output."""
    plot = res["plot"]
    n = len(plot["against_steps"]) + len(plot["against_delta"])
    return f"plot written to {plot['file']} (epsilon against steps and against delta; {n} certified points)"


__all__ = ["answered", "check", "compute", "delta_grid", "describe", "draw", "steps_grid"]
