"""``rigorous-rdp routes``: the three routes of the blog post's comparison (part 2)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "routes",
        help="delta of the three routes (Claims 9-19-18; Claim 23; Claim 28) at the same epsilon, r, k, sigma",
        description="Certified delta of route 1 (Claims 9, 19, 18), route 2 (Claim 23) and route 3 (Claim 28, conditional on Conjecture 1).",
    )
    p.add_argument("--epsilon", required=True, metavar="E", help="epsilon > 0")
    p.add_argument("--r", required=True, metavar="R", help="subsampling rate 0 < r <= 1")
    p.add_argument("--k", required=True, metavar="K", help="epochs (integer >= 1); T = ceil(k / r) steps")
    p.add_argument("--sigma", required=True, metavar="S", help="noise multiplier sigma > 0")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from ..research.routes import compare_routes

    return compare_routes(args.epsilon, args.r, args.k, args.sigma)
