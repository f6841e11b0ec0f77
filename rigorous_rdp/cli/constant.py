"""``rigorous-rdp constant``: the constant C(c1, c2) of Claim 26 (blog post, part 2).

Certified enclosure of C(c1, c2) = sup over sigma >= sigma-min of G_lambda(r mu_1 + (1-r) mu_0 ||
mu_0) with r <= c1/sigma and real orders lambda <= c2 sigma^2: first-order and Taylor-model cells up
to a cut, a proven analytic majorant beyond it (sigma up to infinity), relative width at most 10^-D
(--digits, default 8). --sigma-max restricts to a finite range; --table writes the table for c1, c2
in {0.25, 0.5, 1, 2}.
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import Any, cast

from ..errors import quote
from . import _common as common

HELP = "certified C(c1, c2) of Claim 26: sup over sigma of G_lambda(r mu1 + (1-r) mu0 || mu0)"
DESCRIPTION = (__doc__ or "").partition("\n\n")[2]


def register(sub: Any) -> None:
    p = sub.add_parser("constant", help=HELP, description=DESCRIPTION)
    p.add_argument("--c1", metavar="C1", help="c1 > 0 (r = c1 / sigma)")
    p.add_argument("--c2", metavar="C2", help="c2 > 0 (lambda = c2 sigma^2)")
    p.add_argument("--sigma-min", metavar="S", help="smallest sigma (default max(c1, sqrt(2/c2)))")
    p.add_argument("--sigma-max", metavar="S", help="finite range [sigma-min, S] instead of the whole range")
    p.add_argument(
        "--integer", action="store_true", help="integer orders lambda = floor(c2 sigma^2) (needs --sigma-max)"
    )
    p.add_argument("--max-cells", default="3000", metavar="K", help="cells of the branch and bound (default 3000)")
    p.add_argument(
        "--digits",
        default="8",
        metavar="D",
        help="whole range: relative width of C at most 10^-D, D in [1, 11] (default 8)",
    )
    p.add_argument("--table", action="store_true", help="certified table for c1, c2 in {0.25, 0.5, 1, 2}")
    p.add_argument("--out", metavar="FILE", help="with --table: also write the table (JSON) to FILE")
    p.add_argument("--jobs", metavar="J", help="with --table: local worker processes, 1 <= J <= 256 (default 1)")
    p.add_argument("--dask", metavar="SPEC", help="with --table: local:N or a scheduler address")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.set_defaults(func=run, text=text)


#: options of a single C(c1, c2) that --table does not take
_NOT_WITH_TABLE = ("c1", "c2", "sigma_min", "sigma_max", "integer")


def _cells(value: str) -> int:
    from ..arith import parse_rational

    f = parse_rational(value, "max-cells")
    if f.denominator != 1 or not 1 <= f <= 100000:
        raise ValueError(f"--max-cells must be an integer in [1, 100000]. Found {quote(value)}.")
    return int(f)


def _rel_width(value: str) -> float:
    from ..arith import parse_rational

    f = parse_rational(value, "digits")
    if not 1 <= f <= 11:
        raise ValueError(f"--digits must be a number in [1, 11]. Found {quote(value)}.")
    return 10.0 ** -float(f)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from ..arith import decimal_upper, to_arb, workprec
    from ..research.constant import constant_json, constant_sup, constant_table, constant_whole_range
    from ..research.parallel import dask_executor

    cells = _cells(args.max_cells)
    rel_width = _rel_width(args.digits)
    if args.table:
        given = [f"--{o.replace('_', '-')}" for o in _NOT_WITH_TABLE if getattr(args, o) not in (None, False)]
        if given:
            raise ValueError(
                f"--table computes its own grid of c1, c2 and takes no {', '.join(given)} (contradictory options)."
            )
        jobs, spec = common.parallel_options(args)
        out_path = common.output_file(args.out) if args.out is not None else None
        with dask_executor(spec) as ex:
            rows = constant_table(executor=ex, jobs=jobs, max_cells=cells, rel_width=rel_width)
        out = {"table": rows, "orders": "real lambda <= c2 sigma^2, r <= c1 / sigma", "sigma_range_upper": "inf"}
        if out_path is not None:
            common.write_text_atomic(out_path, json.dumps(out, indent=2) + "\n")
            out["file"] = args.out
        return out
    given = [f"--{o}" for o in ("out", "jobs", "dask") if getattr(args, o) is not None]
    if given:
        raise ValueError(f"--out, --jobs and --dask apply to --table only. Found {', '.join(given)}.")
    if args.c1 is None:
        raise ValueError("c1 is required (or --table).")
    if args.c2 is None:
        raise ValueError("c2 is required (or --table).")
    if args.sigma_max is None:
        if args.integer:
            raise ValueError("integer needs --sigma-max (the whole range is computed for real orders).")
        res = constant_whole_range(args.c1, args.c2, sigma_min=args.sigma_min, max_cells=cells, rel_width=rel_width)
        js = constant_json(res, args.c1, args.c2)
        smin = cast(Fraction, res["sigma_min"])  # constant_whole_range documents it as a Fraction
        with workprec(64):
            js["sigma_range"] = [decimal_upper(to_arb(smin), 12), "inf"]
        return js
    sup = constant_sup(
        args.c1, args.c2, sigma_min=args.sigma_min, sigma_max=args.sigma_max, integer=args.integer, max_cells=cells
    )
    with workprec(64):
        lo = decimal_upper(to_arb(sup.sigma_min), 12)
    return {
        "C": sup.value.to_json(12),
        "sigma_range": [lo, str(sup.sigma_max)],
        "argmax_sigma": f"{float(sup.sigma_argmax):.12g}",
        "c1": str(args.c1),
        "c2": str(args.c2),
        "orders": "integer floor(c2 sigma^2)" if sup.integer else "real c2 sigma^2",
        "cells": sup.cells,
        "G_at_sigma_max": sup.at_sigma_max.to_json(12),
        "limit_sigma_to_infinity": sup.limit.to_json(12),
        "note": "C is the supremum over the finite range [sigma-min, sigma-max] only",
    }


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    if "table" in res:
        lines = ["C(c1, c2), sigma from its minimum to infinity, real orders (certified):"]
        for r in res["table"]:
            lines.append(
                f"  c1={r['c1']:>4} c2={r['c2']:>4}: [{r['C']['lower']}, {r['C']['upper']}] "
                f"(argmax sigma {r['argmax_sigma']}, rel. width {r['relative_width']})"
            )
        return "\n".join(lines)
    return (
        f"C(c1={res['c1']}, c2={res['c2']}) over sigma in [{res['sigma_range'][0]}, {res['sigma_range'][1]}] "
        f"({res['orders']}): [{res['C']['lower']}, {res['C']['upper']}] at sigma = {res['argmax_sigma']}"
    )
