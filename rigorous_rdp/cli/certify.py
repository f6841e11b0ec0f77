"""``rigorous-rdp certify``: write a JSON certificate of a certified epsilon.

Certify epsilon of T composed steps at a target delta and write a JSON certificate, checked
independently by 'rigorous-rdp verify FILE'. The certificate records the inputs, the method (curve,
conversion, order), the certified epsilon {lower, upper}, the working precision, package versions
and a SHA-256 content hash; it is written atomically (temporary file, then rename).
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import best
from ..certificates.common import write_certificate
from ..certificates.pld import make_pld_certificate
from ..certificates.rdp import make_certificate
from . import _common as common
from . import _method as pld_cli

HELP = "write a JSON certificate of a certified epsilon"
DESCRIPTION = (__doc__ or "").partition("\n\n")[2]


def register(sub: Any) -> None:
    p = common.add_query_command(sub, "certify", run, text, "delta", help=HELP, description=DESCRIPTION)
    p.add_argument("-o", "--out", required=True, metavar="FILE", help="where to write the certificate (JSON)")


def run(args: argparse.Namespace) -> dict[str, Any]:
    out_path = common.output_file(args.out)  # before any work
    template = common.accountant_option(args)
    steps = common.parse_steps(args.steps)
    event = common.build_event(args)
    method = pld_cli.method_of(args)

    def rdp() -> dict[str, Any]:
        return make_certificate(event, steps, args.delta, accountant=template)

    def pld() -> dict[str, Any]:
        pld_cli._no_bound(args)  # a chosen RDP bound is the RDP's certificate (best reports why)
        return make_pld_certificate(event, steps, args.delta, width=args.width)

    if method == "best":
        # the certificate with the smaller certified upper end (the PLD within its share of the budget)
        certs: dict[str, dict[str, Any]] = {}
        errors: dict[str, BaseException] = {}
        for name, make in (("rdp", rdp), ("pld", pld)):
            seconds = best.pld_seconds() if name == "pld" and certs else None
            cert_or_none, exc = best.attempt(make, seconds)
            if cert_or_none is not None:
                certs[name] = cert_or_none
            elif exc is not None:
                errors[name] = exc
        summaries = {n: _summary(c) for n, c in certs.items()}
        events = dict.fromkeys(errors, event)
        out = best.best_json(
            summaries, errors, "epsilon", keep=("delta", "steps"), events=events, name=common.namer(args)
        )
        cert = certs[out["chosen"]]
    else:
        cert = {"rdp": rdp, "pld": pld}[method]()
        out = _summary(cert)
    try:
        write_certificate(cert, out_path)
    except ValueError as exc:
        raise ValueError(f"--{exc}") from None
    except OSError as exc:
        raise ValueError(f"--out cannot be written: {exc.strerror} ({args.out}).") from None
    return {"certificate": args.out, **out, "sha256": cert["sha256"]}


def _summary(cert: dict[str, Any]) -> dict[str, Any]:
    """What the command reports of a certificate (its hash and path are added by :func:`run`)."""
    if cert["method"].get("kind") == "pld":
        return {
            "epsilon": cert["epsilon"],
            "method": "pld",
            "pld": cert["method"],
            "delta": cert["inputs"]["delta"],
            "steps": cert["inputs"]["steps"],
        }
    return {
        "epsilon": cert["epsilon"],
        "alpha": cert["method"]["order"],
        "conversion": cert["method"]["conversion"],
        "delta": cert["inputs"]["delta"],
        "steps": cert["inputs"]["steps"],
    }


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    own = pld_cli.chosen_result(res)
    label = f"best: {res['chosen']}, " if res.get("method") == "best" else ""
    if own.get("method") == "pld":
        how = f"{label}pld bracket, grid {own['pld']['grid_width']}"
    else:
        how = f"{label}order {own['alpha']}, {own['conversion']}"
    return (
        f"wrote {res['certificate']}: epsilon = {common.fmt_interval(res['epsilon'])} at delta = {args.delta} "
        f"after {res['steps']} steps ({how}); sha256 {res['sha256'][:16]}..."
    ) + pld_cli.others(res, "epsilon", lambda n: "epsilon upper end", "(larger; not written)")
