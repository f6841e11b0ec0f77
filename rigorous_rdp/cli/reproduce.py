"""``rigorous-rdp reproduce``: regenerate the figures of the source documents."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter
from . import _common as common
from ._common import add_command, add_dask_option, add_json_option


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "reproduce",
        run,
        text,
        help="regenerate the figures of the source documents (into ./rigorous-rdp-figures)",
        description=(
            "Run the figure scripts of rigorous_rdp/paper_repro/: each writes <ID>.png and <ID>.json "
            "(the plotted numbers). A failing figure is reported and the exit status is 1."
        ),
    )
    p.add_argument("figures", nargs="*", metavar="FIGURE_ID", help="'all' (default) or figure IDs (see --list)")
    p.add_argument(
        "--out",
        metavar="DIR",
        help="output directory (default: ./rigorous-rdp-figures, with --fast its subfolder fast/)",
    )
    p.add_argument("--jobs", metavar="N", help="number of worker processes, 1 <= N <= 256 (default 1)")
    add_dask_option(p, "run the figures on Dask")
    p.add_argument("--fast", action="store_true", help="smaller smoke versions of the figures")
    p.add_argument("--list", action="store_true", help="list the figure IDs and exit")
    add_json_option(p)
    p.add_argument("--no-progress", action="store_true", help="the same as --quiet")


def run(args: argparse.Namespace) -> dict[str, Any]:
    from .. import reproduce as rep
    from ..research.parallel import dask_executor, map_ordered

    jobs, spec = common.parallel_options(args)
    if args.out:
        common.output_dir(args.out)  # before any work
    try:
        scripts = rep.discover(ids=args.figures)  # only the modules of the figures asked for
        chosen = rep.select(scripts, args.figures)
    except InvalidParameter as exc:
        if exc.parameter != "figure_id":
            raise
        raise ValueError(f"FIGURE_ID {exc.requirement} (list the IDs with: rigorous-rdp reproduce --list).") from None
    if args.list:
        return {"figures": [s.to_json() for s in chosen]}
    rep.require_figure_extras()
    out_dir = Path(args.out) if args.out else rep.default_out_dir(args.fast)
    if spec is None:
        runs = rep.run_figures(chosen, out_dir, jobs=jobs, fast=args.fast, progress=not args.no_progress)
    else:  # one figure per Dask task; results in the order of the selection
        with rep.output_directory(out_dir), dask_executor(spec) as ex:
            runs = map_ordered(_run_figure, [(s.module, s.id, str(out_dir), args.fast) for s in chosen], executor=ex)
    failed = [r.id for r in runs if not r.ok]
    return {
        "out_dir": str(out_dir),
        "fast": bool(args.fast),
        "jobs": jobs,
        "figures": [r.to_json(out_dir) for r in runs],
        "failed": failed,
        "seconds": round(sum(r.seconds for r in runs), 3),
        "_exit_status": 1 if failed else 0,
    }


def _run_figure(item: Any) -> Any:
    from ..reproduce import run_one

    return run_one(*item)


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    w = max([len(f["id"]) for f in res["figures"]] + [10])
    if args.list:
        c = max(len(f["citation"]) for f in res["figures"]) if res["figures"] else 0
        return "\n".join(f"{f['id']:<{w}}  {f['citation']:<{c}}  {f['title']}" for f in res["figures"])
    lines = []
    for f in res["figures"]:
        if f["status"] == "ok":
            lines.append(f"{f['id']:<{w}}  ok      {f['seconds']:8.1f} s  {f['png']}")
        else:
            lines.append(f"{f['id']:<{w}}  FAILED  {f['seconds']:8.1f} s  {f['error']}")
    n_ok = len(res["figures"]) - len(res["failed"])
    lines.append(
        f"{n_ok} of {len(res['figures'])} figures written to {res['out_dir']} "
        f"in {res['seconds']:.1f} s (sum over figures)"
    )
    if res["failed"]:
        print(f"rigorous-rdp: {len(res['failed'])} figure(s) failed: {', '.join(res['failed'])}", file=sys.stderr)
    return "\n".join(lines)
