"""``rigorous-rdp verify FILE``: recompute a certificate's claim independently.

Exit status 0 iff the stated upper bound on epsilon is confirmed by the mpmath
reference path (see :mod:`rigorous_rdp.certificate`); 1 with a one-line reason
for a modified, corrupted or unverifiable certificate; 2 for bad command-line
input (for example a file that cannot be read).
"""

from __future__ import annotations

import argparse
from typing import Any, Dict, Optional

from ..arith import parse_rational
from ..certificate import verify_file


def register(sub: Any) -> None:
    p = sub.add_parser("verify", help="recompute a certificate independently; exit 0 iff it holds",
                       description="Recompute the claim of a certificate with the mpmath reference "
                                   "implementations at higher precision; exit 0 iff the stated upper bound holds.")
    p.add_argument("file", metavar="FILE", help="certificate written by 'rigorous-rdp certify'")
    p.add_argument("--dps", default=None, metavar="N",
                   help="mpmath precision in decimal digits, 30 <= N <= 2000 (default max(50, 3 * digits + 10))")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.set_defaults(func=run, text=text)


def _dps(value: Optional[str]) -> Optional[int]:
    if value is None:
        return None
    f = parse_rational(value, "--dps")
    if f.denominator != 1 or not 30 <= f <= 2000:
        raise ValueError(f"--dps must be an integer in [30, 2000]. Found {value}.")
    return int(f)


def run(args: argparse.Namespace) -> Dict[str, Any]:
    dps = _dps(args.dps)
    res = verify_file(args.file, dps=dps)
    out = {"file": args.file, **res.to_json()}
    out["_exit_status"] = 0 if res.ok else 1
    return out


def text(args: argparse.Namespace, res: Dict[str, Any]) -> str:
    return ("OK: " if res["verified"] else "FAILED: ") + res["reason"]
