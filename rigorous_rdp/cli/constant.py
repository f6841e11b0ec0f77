"""``rigorous-rdp constant``: the constant C(c1, c2) of Claim 26 (blog post, part 2)."""

from __future__ import annotations

import argparse
from typing import Any, Dict

from ..arith import decimal_lower, decimal_upper


def register(sub: Any) -> None:
    p = sub.add_parser(
        "constant", help="certified C(c1, c2) of Claim 26: sup over sigma of G_lambda(r mu1 + (1-r) mu0 || mu0)",
        description=("Certified enclosure of the supremum over sigma in [sigma-min, sigma-max] of "
                     "G_lambda(r mu_1 + (1-r) mu_0 || mu_0) with r = c1/sigma and lambda = c2 sigma^2 "
                     "(floor(c2 sigma^2) with --integer), with the value at sigma-max and the limit exp(c1^2 c2^2 / 2)."))
    p.add_argument("--c1", required=True, metavar="C1", help="c1 > 0 (r = c1 / sigma)")
    p.add_argument("--c2", required=True, metavar="C2", help="c2 > 0 (lambda = c2 sigma^2)")
    p.add_argument("--sigma-max", default="100", metavar="S", help="largest sigma of the range (default 100)")
    p.add_argument("--sigma-min", default=None, metavar="S", help="smallest sigma (default max(c1, sqrt(2/c2)))")
    p.add_argument("--integer", action="store_true", help="integer orders lambda = floor(c2 sigma^2)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.set_defaults(func=run, text=text, option_names=_OPTIONS)


_OPTIONS = ("c1", "c2", "sigma-max", "sigma-min", "sigma")


def run(args: argparse.Namespace) -> Dict[str, Any]:
    from ..research.constant import constant_sup

    res = constant_sup(args.c1, args.c2, sigma_min=args.sigma_min, sigma_max=args.sigma_max, integer=args.integer)
    return {
        "C": res.value.to_json(12),
        "sigma": float(res.sigma_argmax),
        "sigma_exact": str(res.sigma_argmax),
        "c1": str(args.c1), "c2": str(args.c2),
        "orders": "integer floor(c2 sigma^2)" if res.integer else "real c2 sigma^2",
        "sigma_range": [str(res.sigma_min), str(res.sigma_max)],
        "cells": res.cells,
        "G_at_sigma_max": res.at_sigma_max.to_json(12),
        "limit_sigma_to_infinity": res.limit.to_json(12),
        "note": ("C is the supremum over the evaluated sigma range; exp(c1^2 c2^2/2) is a proven lower bound "
                 "of the supremum over all sigma and the limit as sigma -> infinity"),
    }


def text(args: argparse.Namespace, res: Dict[str, Any]) -> str:
    return (f"C(c1={res['c1']}, c2={res['c2']}) over sigma in [{float(eval_frac(res['sigma_range'][0])):.6g}, "
            f"{res['sigma_range'][1]}] ({res['orders']}): [{res['C']['lower']}, {res['C']['upper']}] "
            f"at sigma = {res['sigma']:.6g}\n"
            f"  G at sigma-max: [{res['G_at_sigma_max']['lower']}, {res['G_at_sigma_max']['upper']}]; "
            f"limit exp(c1^2 c2^2/2) = {res['limit_sigma_to_infinity']['upper']}")


def eval_frac(s: str) -> float:
    from fractions import Fraction

    return float(Fraction(s))
