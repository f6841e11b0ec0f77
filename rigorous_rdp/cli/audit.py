"""``rigorous-rdp audit``: compare installed peer accountants with certified values.

Runs every installed peer (dp-accounting, autodp, prv-accountant, Opacus's RDP
analysis) on a grid of DP-SGD configurations and flags failures (exception,
inf, NaN, dropped orders) and under-reports against our certified enclosures
for the same theorem and conversion.  Without peers it says so and exits 0.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..research.audit import PEERS, run_audit
from ._common import add_command, add_dask_option, add_json_option


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "audit",
        run,
        text,
        help="audit installed peer accountants against certified values",
        description="Compute epsilon with each installed peer accountant on a grid of DP-SGD "
        "configurations and flag failures and under-reports.",
    )
    p.add_argument("--quick", action="store_true", help="small configuration grid (a few seconds)")
    p.add_argument(
        "--peer", nargs="+", choices=PEERS, metavar="PEER", help=f"restrict to these peers ({', '.join(PEERS)})"
    )
    add_dask_option(p, "one Dask task per peer")
    add_json_option(p)


def _audit_peer(item: Any) -> dict[str, Any]:
    quick, peer = item
    return run_audit(quick=quick, peers=[peer])


def _run_dask(args: argparse.Namespace, spec: str) -> dict[str, Any]:
    """The audit split by peer over a Dask executor, merged into the report of the local run."""
    from ..research.audit import available_peers
    from ..research.parallel import dask_executor, map_ordered

    installed = available_peers()
    active = [p for p in PEERS if installed[p] is not None and (args.peer is None or p in args.peer)]
    if not active:
        return run_audit(quick=args.quick, peers=args.peer)
    with dask_executor(spec) as ex:
        parts = map_ordered(_audit_peer, [(args.quick, p) for p in active], executor=ex)
    res = parts[0]
    for part in parts[1:]:
        for row, other in zip(res["configurations"], part["configurations"], strict=True):
            row["peers"].update(other["peers"])
        res["flags"] += part["flags"]
    res["dask"] = spec
    return res


def run(args: argparse.Namespace) -> dict[str, Any]:
    from ..research.parallel import validate_dask

    spec = validate_dask(args.dask)
    if spec is not None:
        res = _run_dask(args, spec)
        res["command"] = "rigorous-rdp audit" + (" --quick" if args.quick else "") + f" --dask {spec} --json"
        return res
    res = run_audit(quick=args.quick, peers=args.peer)  # progress: rigorous_rdp.progress (counted per configuration)
    res["command"] = (
        "rigorous-rdp audit"
        + (" --quick" if args.quick else "")
        + (" --peer " + " ".join(args.peer) if args.peer else "")
        + " --json"
    )
    return res


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    if not res["configurations"]:
        return res.get("message", "nothing to audit")
    lines = []
    for row in res["configurations"]:
        c = row["config"]
        ours = row["ours"]
        head = f"{c['name']}: q={c['q']} sigma={c['sigma']} steps={c['steps']} delta={c['delta']} ({c['sampling']})"
        if "epsilon_same_grid" in ours:
            head += (
                f"  ours (same grid) <= {ours['epsilon_same_grid']['upper']}, "
                f"ours (continuous) <= {ours['epsilon_best']['upper']}"
            )
        else:
            head += f"  ours: {ours.get('reason')}"
        lines.append(head)
        for peer, r in row["peers"].items():
            val = r.get("epsilon", r.get("skipped", r.get("error")))
            flags = ", ".join(r.get("flags", [])) or "ok"
            lines.append(f"    {peer:15s} {val}  [{flags}]")
    lines.append(f"{res['flags']} flag(s)")
    return "\n".join(lines)
