"""``rigorous-rdp delta``: certified delta after T steps at a target epsilon."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import add_query_command
from .epsilon import query_text, run_query

HELP = "certified delta after T steps at a target epsilon"
DESCRIPTION = (
    "Certified delta of T composed steps for a target epsilon: by default (--method best) the smaller "
    "certified upper end of the RDP bound (optimised over orders) and the PLD bracket of the optimal delta."
)


def register(sub: Any) -> None:
    add_query_command(sub, "delta", run, text, "epsilon", help=HELP, description=DESCRIPTION)


def run(args: argparse.Namespace) -> dict[str, Any]:
    return run_query(args, "delta")


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    return query_text(args, res, "delta")
