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

import argparse
import contextlib
import importlib
import json
import sys

from ._common import CliError, Parser, run_command

#: the accountant: certified numbers for a mechanism
ACCOUNTING: list[str] = ["rdp", "epsilon", "delta", "profile", "dpsgd", "calibrate", "certify", "verify"]
#: research: the seeds' figures, claims and open questions, and the peer audit
RESEARCH: list[str] = ["reproduce", "conjecture", "constant", "routes", "audit"]
SUBCOMMANDS: list[str] = ACCOUNTING + RESEARCH


def _chosen_command(argv: list[str] | None) -> str | None:
    """The subcommand named on the command line (the first argument that is one), if any."""
    for tok in argv or []:
        if tok in SUBCOMMANDS:
            return tok
        if not tok.startswith("-"):
            return None
    return None


def build_parser(argv: list[str] | None = None) -> Parser:
    """The argument parser.

    With ``argv`` naming a subcommand, only that subcommand's module is imported
    (the others get a bare parser entry): start-up then loads only what the
    command needs (no certificate module, mpmath or research code for ``epsilon``).
    Without one (``--help``, errors), every subcommand is registered.
    """
    parser = Parser(
        prog="rigorous-rdp",
        description="Certified Renyi differential privacy accounting: every reported bound is an outward-rounded enclosure.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"rigorous-rdp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    chosen = _chosen_command(argv)
    for name in SUBCOMMANDS:
        if chosen is None or name == chosen:
            importlib.import_module(f"{__name__}.{name}").register(sub)
        else:
            sub.add_parser(name)
    if chosen is None:
        helps = {a.dest: a.help for a in sub._choices_actions}
        sub._choices_actions = []  # listed below, grouped, instead of one flat list
        lines: list[str] = []
        for title, names in (("accounting", ACCOUNTING), ("research", RESEARCH)):
            lines.append(f"{title} commands:" if not lines else f"\n{title} commands:")
            lines.extend(f"  {n:<11} {helps.get(n) or ''}" for n in names)
        parser.epilog = "\n".join(lines) + "\n\nrigorous-rdp COMMAND --help shows the options of one command."
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; Ctrl-C at any point (start-up included) ends it with one line and status 130."""
    from .. import budget

    try:
        with budget.interruptible():
            parser = build_parser(sys.argv[1:] if argv is None else argv)
            try:
                args = parser.parse_args(argv)
            except CliError as exc:
                print(f"rigorous-rdp: error: {exc}", file=sys.stderr)
                return 2
            args.option_strings = _option_strings(parser, args.command)
            status = run_command(args)
    except KeyboardInterrupt:
        print("rigorous-rdp: interrupted", file=sys.stderr)
        status = 130
    if status == 130 and argv is None:  # the program itself: every cleanup has run (finally blocks)
        _exit_interrupted()
    return status


def _exit_interrupted() -> None:  # pragma: no cover - ends the process
    """End the interrupted program with status 130 now: a KeyboardInterrupt recorded by the
    interpreter (inside C code, say) would otherwise make it kill itself with SIGINT at exit."""
    import os

    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None:  # release what worker processes left registered (semaphores), quietly
        with contextlib.suppress(Exception):
            mp_util._run_finalizers(0)  # type: ignore[attr-defined]
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(130)


def _option_strings(parser: argparse.ArgumentParser, command: str) -> frozenset[str]:
    """The options of ``command`` (an API error names a parameter; the command line names
    the option of that parameter when the command has one)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return frozenset(o for a in action.choices[command]._actions for o in a.option_strings)
    return frozenset()


__all__ = ["ACCOUNTING", "RESEARCH", "SUBCOMMANDS", "build_parser", "json", "main"]
