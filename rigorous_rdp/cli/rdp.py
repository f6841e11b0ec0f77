"""``rigorous-rdp rdp``: certified RDP of one step at given orders."""

from __future__ import annotations

import argparse
from typing import Any

from ..accountant import RdpAccountant
from ..registry import lookup
from . import _common as common

HELP = "certified RDP of one step at orders alpha"
DESCRIPTION = "Certified enclosure of the RDP epsilon(alpha) of one step of the mechanism."


def register(sub: Any) -> None:
    p = common.add_event_command(sub, "rdp", run, text, help=HELP, description=DESCRIPTION)
    p.add_argument("--alpha", nargs="+", required=True, metavar="A", help="orders alpha > 1 (exact decimals or ratios)")
    p.add_argument("--steps", default="1", metavar="T", help="number of composed steps (default 1)")
    common.add_output_options(p)


def run(args: argparse.Namespace) -> dict[str, Any]:
    digits = common.parse_digits(args)
    orders = common.orders_option(args.alpha)
    steps = common.parse_steps(args.steps)
    event = common.build_event(args, guarantee=False)
    acc = RdpAccountant(orders, digits=digits).compose(event, steps)
    results = [r.to_json() for r in acc.rdp_many(orders or [])]
    # which bound gave the value at each order (MinCurve components report the winner)
    from ..curves import bound_name

    for r, a in zip(results, orders or [], strict=True):
        names = [bound_name(c, a) for c, _ in acc.active_curves()]
        r["bound"] = names[0] if len(names) == 1 else names
    return {
        "results": results,
        "steps": steps,
        "mechanism": common.mechanism_json(args),
        "digits": digits,
        "bound": next(c.name for c, _ in acc.active_curves()) if acc.active_curves() else None,
        "guarantee": getattr(args, "bound", None) != "lower" and lookup(event).guarantee,
    }


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    lines = [
        f"RDP of {res['steps']} {'epoch' if res['mechanism'].get('epochs') is not None else 'step'}(s),"
        f" certified enclosures (bound: {res['bound']})"
        + ("" if res.get("guarantee", True) else " -- a LOWER bound, not a privacy guarantee")
    ]
    for r in res["results"]:
        won = f"  [{r['bound']}]" if r.get("bound") and r["bound"] != res["bound"] else ""
        lines.append(f"  alpha = {r['alpha']}: {common.fmt_interval(r['rdp'])}{won}")
    return "\n".join(lines)
