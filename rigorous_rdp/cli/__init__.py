"""Command-line interface ``rigorous-rdp`` (also ``python -m rigorous_rdp``).

A thin layer over the typed API.  Every subcommand accepts ``--json`` and then
prints exactly one JSON object on stdout; certified quantities appear as
``{"lower": "<decimal>", "upper": "<decimal>"}`` rounded outward.  Bad input
prints one line ``rigorous-rdp: error: ...`` naming the option and the accepted
range and exits with status 2.

Each subcommand lives in its own module of this package, listed in
``SUBCOMMANDS``; a module defines ``register(subparsers)``, which adds its parser
and sets ``func`` (``args -> dict``, the JSON object) and optionally ``text``
(``(args, dict) -> str``, the human-readable rendering).
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import List, Optional

from ._common import CliError, Parser, run_command

SUBCOMMANDS: List[str] = ["rdp", "epsilon", "delta", "dpsgd", "reproduce", "certify", "verify", "calibrate", "audit", "conjecture", "constant", "routes"]


def build_parser() -> Parser:
    parser = Parser(
        prog="rigorous-rdp",
        description="Certified Renyi differential privacy accounting: every reported bound is an outward-rounded enclosure.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"rigorous-rdp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except CliError as exc:
        print(f"rigorous-rdp: error: {exc}", file=sys.stderr)
        return 2
    return run_command(args)


__all__ = ["main", "build_parser", "SUBCOMMANDS", "json"]
