"""``rigorous-rdp epsilon``: certified epsilon after T steps at a target delta."""

from __future__ import annotations

import argparse
from typing import Any

from ..accountant import RdpAccountant
from ..conversion import CONVERSIONS
from ..pld import cli_support as pld_cli
from ._common import (
    add_bound_options,
    add_mechanism_options,
    add_output_options,
    build_event,
    fmt_interval,
    mechanism_json,
    orders_option,
    parse_digits,
    parse_steps,
)


def add_accounting_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--steps", required=True, metavar="T", help="number of composed steps, T >= 1")
    p.add_argument("--alpha", nargs="+", metavar="A", help="order grid (default: dp-accounting's grid)")
    p.add_argument("--no-continuous", action="store_true", help="optimise over the grid only (no real-order search)")
    p.add_argument(
        "--conversion", default="best", choices=CONVERSIONS, help="RDP to (epsilon, delta) conversion (default best)"
    )


def accountant_from_args(args: argparse.Namespace, sigma: Any = None) -> RdpAccountant:
    digits = parse_digits(args)
    steps = parse_steps(args.steps)
    acc = RdpAccountant(
        orders_option(args.alpha), continuous=not args.no_continuous, conversion=args.conversion, digits=digits
    )
    return acc.compose(build_event(args, sigma), steps)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "epsilon",
        help="certified epsilon after T steps at a target delta",
        description="Certified epsilon of T composed steps for a target delta, optimised over orders.",
    )
    add_mechanism_options(p)
    add_bound_options(p)
    add_accounting_options(p)
    p.add_argument("--delta", required=True, metavar="D", help="target delta, 0 < D < 1")
    pld_cli.add_method_options(p)
    add_output_options(p)
    p.set_defaults(func=run, text=text)


def run(args: argparse.Namespace) -> dict[str, Any]:
    method = pld_cli.method_of(args)
    rdp = lambda: accountant_from_args(args).get_epsilon_and_order(args.delta).to_json()  # noqa: E731
    pld = lambda: pld_cli.pld_epsilon(build_event(args), parse_steps(args.steps), args.delta, args)  # noqa: E731
    res = {"rdp": rdp, "pld": pld}[method]() if method != "best" else pld_cli.choose_best(rdp, pld, "epsilon")
    res.update({"steps": parse_steps(args.steps), "mechanism": mechanism_json(args), "digits": parse_digits(args)})
    return res


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    if res.get("method") in ("pld", "best"):
        return pld_cli.text_line(res, "epsilon") + f"\n  delta = {args.delta}, steps = {res['steps']}"
    return (
        f"epsilon = {fmt_interval(res['epsilon'])}  (certified; rely on the upper end {res['epsilon']['upper']})\n"
        f"  delta = {args.delta}, steps = {res['steps']}, order alpha = {res['alpha']}, conversion = {res['conversion']}"
    )
