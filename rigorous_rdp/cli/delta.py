"""``rigorous-rdp delta``: certified delta after T steps at a target epsilon."""

from __future__ import annotations

import argparse
from typing import Any

from ..pld import cli_support as pld_cli
from ._common import (
    add_bound_options,
    add_mechanism_options,
    add_output_options,
    build_event,
    fmt_interval,
    mechanism_json,
    parse_digits,
    parse_steps,
)
from .epsilon import accountant_from_args, add_accounting_options


def register(sub: Any) -> None:
    p = sub.add_parser(
        "delta",
        help="certified delta after T steps at a target epsilon",
        description="Certified delta of T composed steps for a target epsilon, optimised over orders.",
    )
    add_mechanism_options(p)
    add_bound_options(p)
    add_accounting_options(p)
    p.add_argument("--epsilon", required=True, metavar="E", help="target epsilon >= 0")
    pld_cli.add_method_options(p)
    add_output_options(p)
    p.set_defaults(func=run, text=text)


def run(args: argparse.Namespace) -> dict[str, Any]:
    method = pld_cli.method_of(args)
    rdp = lambda: accountant_from_args(args).get_delta_and_order(args.epsilon).to_json()  # noqa: E731
    pld = lambda: pld_cli.pld_delta(build_event(args), parse_steps(args.steps), args.epsilon, args)  # noqa: E731
    res = {"rdp": rdp, "pld": pld}[method]() if method != "best" else pld_cli.choose_best(rdp, pld, "delta")
    res.update({"steps": parse_steps(args.steps), "mechanism": mechanism_json(args), "digits": parse_digits(args)})
    return res


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    if res.get("method") in ("pld", "best"):
        return pld_cli.text_line(res, "delta") + f"\n  epsilon = {args.epsilon}, steps = {res['steps']}"
    return (
        f"delta = {fmt_interval(res['delta'])}  (certified; rely on the upper end {res['delta']['upper']})\n"
        f"  epsilon = {args.epsilon}, steps = {res['steps']}, order alpha = {res['alpha']}, conversion = {res['conversion']}"
    )
