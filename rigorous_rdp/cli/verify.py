"""``rigorous-rdp verify FILE``: recompute a certificate's claim independently.

Exit status 0 iff every claim of the certificate is re-derived on the independent
path (the verifier of its kind, :mod:`rigorous_rdp.certificates.kinds`); 1 with a
one-line reason for a modified, corrupted, malformed or unverifiable certificate
(also one nested deeper than 64 levels or larger than 16 MiB, refused before
parsing; a duplicated key; a number outside the one grammar); 2 for bad
command-line input (for example a file that cannot be read, ``--dps`` outside
[30, 150]) and when the time budget (``--max-seconds``, default 60 s) runs out.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from .. import budget, validation
from ..arith import parse_rational
from ..certificates.common import MAX_DEPTH, MAX_FILE_BYTES, json_depth_exceeds
from ..certificates.kinds import verify_file
from ._common import MAX_JOBS

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "json_depth_exceeds", "register", "run", "text"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help="recompute a certificate independently; exit 0 iff it holds",
        description="Recompute the claim of a certificate with the mpmath reference "
        "implementations at higher precision; exit 0 iff the stated upper bound holds.",
    )
    p.add_argument("file", metavar="FILE", help="certificate written by 'rigorous-rdp certify'")
    p.add_argument(
        "--dps",
        metavar="N",
        help=f"mpmath precision in decimal digits, {MIN_DPS} <= N <= {MAX_DPS} (default max(50, 3 * digits + 10), at most 150)",
    )
    p.add_argument(
        "--all-boxes",
        action="store_true",
        help="Conjecture 1 proof certificates: every box is always re-proven with independent interval"
        " enclosures; this adds the mpmath point check on every box (default: on the extremal box and 3"
        " seeded random boxes)",
    )
    p.add_argument(
        "--jobs",
        metavar="J",
        help="Conjecture 1 proof certificates (holds-boxes, holds-region, holds-region-scaled, holds-boxes-order-interval,"
        " holds-boxes-order-sigma):"
        " worker processes"
        f" that re-prove the boxes, 1 <= J <= {MAX_JOBS} (default: the machine's cores; the verdict does not depend on J)",
    )
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.set_defaults(func=run, text=text)


#: accepted --dps range; the reference quadrature at 150 digits takes about 10 s, at
#: 200 digits about 45 s and at 400 digits several minutes (2 cores)
MIN_DPS, MAX_DPS = 30, 150


def _dps(value: str | None) -> int | None:
    if value is None:
        return None
    message = f"--dps must be an integer in [{MIN_DPS}, {MAX_DPS}]. Found {value!r}."
    try:
        f = parse_rational(value, "--dps")
    except ValueError:
        raise ValueError(message) from None
    if f.denominator != 1 or not MIN_DPS <= f <= MAX_DPS:
        raise ValueError(message)
    return int(f)


def default_jobs() -> int:
    """The cores this process may run on (``--jobs`` default)."""
    try:
        return max(1, min(MAX_JOBS, len(os.sched_getaffinity(0))))
    except (AttributeError, OSError):
        return max(1, min(MAX_JOBS, os.cpu_count() or 1))


def run(args: argparse.Namespace) -> dict[str, Any]:
    dps = _dps(args.dps)
    jobs = default_jobs() if args.jobs is None else validation.integer_in_range(args.jobs, "jobs", 1, MAX_JOBS)
    res = verify_file(args.file, dps=dps, all_boxes=args.all_boxes, jobs=jobs)
    if budget.expired():  # a reference computation stopped by the budget is not a verdict
        budget.check("the independent reference values")
    out = {"file": args.file, **res.to_json()}
    out["_exit_status"] = 0 if res.ok else 1
    return out


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    return ("OK: " if res["verified"] else "FAILED: ") + res["reason"]
