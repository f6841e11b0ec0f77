"""``rigorous-rdp delta``: certified delta after T steps at a target epsilon."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import add_accounting_options, add_event_command, add_result_options
from .epsilon import query_text, run_query

HELP = "certified delta after T steps at a target epsilon"
DESCRIPTION = (
    "Certified delta of T composed steps for a target epsilon: by default (--method best) the smaller "
    "certified upper end of the RDP bound (optimised over orders) and the PLD bracket of the optimal delta."
)


def register(sub: Any) -> None:
    p = add_event_command(sub, "delta", run, text, help=HELP, description=DESCRIPTION)
    add_accounting_options(p)
    p.add_argument("--epsilon", required=True, metavar="E", help="target epsilon >= 0")
    add_result_options(p)


def run(args: argparse.Namespace) -> dict[str, Any]:
    return run_query(args, "delta")


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    return query_text(args, res, "delta")
