"""``rigorous-rdp epsilon``: certified epsilon after T steps at a target delta.

:func:`run_query` and :func:`query_text` serve ``delta`` too (the same query
with the roles of epsilon and delta exchanged).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..accountant import RdpAccountant
from ..errors import BudgetExceeded
from . import _common as common
from . import _method as pld_cli

#: the certified quantity -> the option holding its target
TARGETS = {"epsilon": "delta", "delta": "epsilon"}


def accountant_from_args(args: argparse.Namespace, sigma: Any = None) -> RdpAccountant:
    steps = common.parse_steps(args.steps)
    return common.accountant_option(args).compose(common.build_event(args, sigma), steps)


HELP = "certified epsilon after T steps at a target delta"
DESCRIPTION = (
    "Certified epsilon of T composed steps for a target delta: by default (--method best) the smaller "
    "certified upper end of the RDP bound (optimised over orders) and the PLD bracket of the optimal epsilon."
)


def register(sub: Any) -> None:
    p = common.add_query_command(sub, "epsilon", run, text, "delta", help=HELP, description=DESCRIPTION)
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw epsilon against steps and against delta for this run, with the certified band"
        " (PNG, PDF or SVG by the extension; needs matplotlib, the [figures] extra)",
    )


def run_query(args: argparse.Namespace, quantity: str) -> dict[str, Any]:
    """The certified ``quantity`` ("epsilon" or "delta") at the target given by the other option."""
    method = pld_cli.method_of(args)
    target = getattr(args, TARGETS[quantity])
    event = common.build_event(args)
    steps = common.parse_steps(args.steps)

    def rdp() -> dict[str, Any]:
        acc = common.accountant_option(args).compose(event, steps)
        res = acc.get_epsilon_and_order(target) if quantity == "epsilon" else acc.get_delta_and_order(target)
        return res.to_json()

    def pld() -> dict[str, Any]:
        route = pld_cli.pld_epsilon if quantity == "epsilon" else pld_cli.pld_delta
        return route(event, steps, target, args)

    res = pld_cli.run_method(method, rdp, pld, quantity, event=event, name=common.namer(args))
    res.update({"steps": steps, "mechanism": common.mechanism_json(args), "digits": common.parse_digits(args)})
    return res


def query_text(args: argparse.Namespace, res: dict[str, Any], quantity: str) -> str:
    target = TARGETS[quantity]
    unit = "epochs" if res.get("mechanism", {}).get("epochs") is not None else "steps"
    return pld_cli.text_line(res, quantity, f"{target} = {getattr(args, target)}, {unit} = {res['steps']}")


def run(args: argparse.Namespace) -> dict[str, Any]:
    plot = None
    if getattr(args, "plot", None) is not None:
        from . import _epsilon_plot

        plot = _epsilon_plot.check(args)  # before the query: a bad file name costs nothing
    res = run_query(args, "epsilon")
    if plot is not None:
        try:
            res["plot"] = _epsilon_plot.draw(plot, args, res)
        except BudgetExceeded as exc:  # say so, and keep the answer already certified
            where = f"the --plot points (the answer was certified: epsilon <= {res['epsilon']['upper']})"
            raise BudgetExceeded(str(exc), seconds=exc.seconds, where=where) from exc
    return res


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    out = query_text(args, res, "epsilon")
    if "plot" in res:
        from . import _epsilon_plot

        out += "\n" + _epsilon_plot.describe(res)
    return out
