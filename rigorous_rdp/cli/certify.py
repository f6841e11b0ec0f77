"""``rigorous-rdp certify``: write a JSON certificate of a certified epsilon.

The certificate records the inputs, the method (curve, conversion, order), the
certified epsilon ``{lower, upper}``, the working precision, package versions
and a SHA-256 content hash; it is written atomically (temporary file, then
rename).  Check it with ``rigorous-rdp verify FILE``.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from ..certificates.common import write_certificate
from ..certificates.pld import make_pld_certificate
from ..certificates.rdp import make_certificate
from . import _common as common
from . import _method as pld_cli

HELP = "write a JSON certificate of a certified epsilon"
DESCRIPTION = (
    "Certify epsilon of T composed steps at a target delta and write a JSON "
    "certificate (checked independently by 'rigorous-rdp verify')."
)


def register(sub: Any) -> None:
    p = common.add_event_command(sub, "certify", run, text, help=HELP, description=DESCRIPTION)
    common.add_accounting_options(p)
    common.add_target_delta(p)
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the certificate (JSON)")
    common.add_result_options(p)


def run(args: argparse.Namespace) -> dict[str, Any]:
    out_path = common.output_file(args.out)  # before any work
    template = common.accountant_option(args)
    steps = common.parse_steps(args.steps)
    event = common.build_event(args)
    method = pld_cli.method_of(args)

    def rdp() -> dict[str, Any]:
        return make_certificate(event, steps, args.delta, accountant=template)

    def pld() -> dict[str, Any]:
        return make_pld_certificate(event, steps, args.delta, width=args.width)

    # best: the certificate with the smaller certified upper end
    cert = (
        min((rdp(), pld()), key=lambda c: Fraction(c["epsilon"]["upper"]))
        if method == "best"
        else {"rdp": rdp, "pld": pld}[method]()
    )
    try:
        write_certificate(cert, out_path)
    except ValueError as exc:
        raise ValueError(f"--{exc}") from None
    except OSError as exc:
        raise ValueError(f"--out cannot be written: {exc.strerror} ({args.out}).") from None
    if cert["method"].get("kind") == "pld":
        return {
            "certificate": args.out,
            "epsilon": cert["epsilon"],
            "method": "pld",
            "pld": cert["method"],
            "delta": cert["inputs"]["delta"],
            "steps": steps,
            "sha256": cert["sha256"],
        }
    return {
        "certificate": args.out,
        "epsilon": cert["epsilon"],
        "alpha": cert["method"]["order"],
        "conversion": cert["method"]["conversion"],
        "delta": cert["inputs"]["delta"],
        "steps": steps,
        "sha256": cert["sha256"],
    }


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    if res.get("method") == "pld":
        return (
            f"wrote {res['certificate']}: epsilon = {common.fmt_interval(res['epsilon'])} at delta = {args.delta} "
            f"after {res['steps']} steps (pld bracket, grid {res['pld']['grid_width']}); sha256 {res['sha256'][:16]}..."
        )
    return (
        f"wrote {res['certificate']}: epsilon = {common.fmt_interval(res['epsilon'])} at delta = {args.delta} "
        f"after {res['steps']} steps (order {res['alpha']}, {res['conversion']}); sha256 {res['sha256'][:16]}..."
    )
