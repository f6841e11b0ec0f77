"""``rigorous-rdp conjecture``: numerical probe of Conjecture 1 (blog post, part 2).

Compare D_lambda(p||q) for subsampled Gaussian mechanisms on neighbouring datasets with D_lambda(r
mu_1 + (1-r) mu_0 || mu_0) over structured starts (the right-hand-side pair, simplices of side 1,
two clusters, at r = 1/1000, small sigma and lambda near 1) and random starts of one model and
dimension, each locally optimised and continued in sigma, r and lambda; the worst configuration gets
a certified enclosure (its upper end only where it is tight) and the best candidate violations a
certified lower bound. The same seed gives the same JSON on every machine. Models: range (fixed-size
without replacement, replace-one, row values in a set of diameter <= 1), clip (same sampling, row
values in the ball of radius 1/2), poisson (Poisson sampling, add/remove, row values in the unit
ball).
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import validation
from ..arith import parse_rational
from ..errors import quote
from . import _common as common


def statement_text(kind: str, complete: bool) -> str:
    """The summary's statement of a ``--prove`` run (the texts ``verify`` accepts; imported on use)."""
    from ..research.conjecture_certificate import statement_text as text

    return text(kind, complete)


HELP = "probe Conjecture 1 of the blog post (part 2) on exact Gaussian-mixture laws"
DESCRIPTION = (__doc__ or "").partition("\n\n")[2]


def register(sub: Any) -> None:
    p = sub.add_parser("conjecture", help=HELP, description=DESCRIPTION)
    p.add_argument("--model", default="range", metavar="M", help="range | clip | poisson (default range)")
    p.add_argument("--dim", default="1", metavar="D", help="dimension of the row values: 1, 2 or 3 (default 1)")
    p.add_argument(
        "--trials",
        metavar="N",
        help="number of random starts, run after the structured starts (integer >= 1; required without --prove)",
    )
    p.add_argument("--seed", default="0", metavar="S", help="random seed (integer >= 0, default 0)")
    p.add_argument(
        "--jobs",
        metavar="J",
        help="local worker processes, 1 <= J <= 256 (default 1; with --prove: the subtrees of the "
        "branch and bound, the same leaves for every J)",
    )
    p.add_argument(
        "--dask",
        metavar="SPEC",
        help="run the trials on Dask: local:N starts a LocalCluster with N workers, "
        "or the address of a running scheduler (tcp://host:8786)",
    )
    p.add_argument(
        "--steps", default="12", metavar="K", help="local-search steps per trial (default 12; 0 = random only)"
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="write a certificate that 'rigorous-rdp verify' re-checks: of the largest proven violation, "
        "else (1-d) of LHS <= RHS at the worst configuration",
    )
    p.add_argument(
        "--prove",
        action="store_true",
        help="instead of the probe: prove ratio <= 1 for every 1-d configuration of the range model with "
        "--rows, --batch, --order, --sigma (interval branch and bound over the dataset values)",
    )
    p.add_argument("--rows", metavar="N", help="--prove: number of rows n, integer in [2, 6]")
    p.add_argument("--batch", default="1", metavar="M", help="--prove: batch size m, integer in [1, n-1] (default 1)")
    p.add_argument("--order", metavar="L", help="--prove: Renyi order, integer in [2, 16] (default 2)")
    p.add_argument("--sigma", metavar="S", help="--prove: noise multiplier, in [1/2, 64] (default 1)")
    p.add_argument(
        "--sigma-range",
        nargs=2,
        metavar=("LOW", "HIGH"),
        help="--prove: every sigma in [LOW, HIGH] at once, 1 <= LOW < HIGH <= 64 (one branch and bound over the "
        "scaled dataset values phi = theta/sigma alone, on the faces x_1 = 0 and u' = 0; certificate kind "
        "holds-region-scaled)",
    )
    p.add_argument(
        "--order-range",
        nargs=2,
        metavar=("LOW", "HIGH"),
        help="--prove: every real order lambda in [LOW, HIGH] at once, 2 <= LOW < HIGH <= 16, at one sigma in "
        "[1, 64] (boxes of the dataset values times a side of lambda, on the faces x_1 = 0 and u' = 0; "
        "certificate kind holds-boxes-order-interval); with --sigma-range every sigma of that interval too "
        "(boxes of phi = theta/sigma times a side of lambda; kind holds-boxes-order-sigma)",
    )
    p.add_argument(
        "--t-side",
        action="store_true",
        help="--prove --sigma-range: the earlier region proof, boxes of the dataset values times a side of "
        "t = 1/sigma (certificate kind holds-region; with --cube over the whole cube)",
    )
    p.add_argument(
        "--cube",
        action="store_true",
        help="--prove: tile the whole cube [0,1]^(n+1) with boxes, not only its faces x_1 = 0 and u' = 0 "
        "(the default: every configuration translates onto one of them; one dimension fewer)",
    )
    p.add_argument(
        "--max-boxes", default="20000", metavar="B", help="--prove: boxes processed before giving up (default 20000)"
    )
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.set_defaults(func=run, text=text)


def _int(value: str, name: str, low: int) -> int:
    return validation.integer_in_range(value, name.replace("-", "_"), low)


def _run_prove(args: argparse.Namespace) -> dict[str, Any]:
    from ..research.conjecture_proof import ProofCase, proof_to_json, prove_case

    if args.rows is None:
        raise ValueError("--rows must be given with --prove (an integer in [2, 6]).")
    if args.model != "range" or args.dim != "1":
        raise ValueError("--prove covers --model range --dim 1 only.")
    if args.trials is not None or args.dask is not None:
        raise ValueError("--trials and --dask do not apply to --prove.")
    jobs, _ = common.parallel_options(args)
    out_path = None if args.out is None else common.output_file(args.out)
    n = _int(args.rows, "rows", 2)
    if n > 6:
        raise ValueError(f"--rows must be an integer in [2, 6]. Found {quote(args.rows)}.")
    m = _int(args.batch, "batch", 1)
    if m >= n:
        raise ValueError(f"--batch must be an integer in [1, rows - 1]. Found {quote(args.batch)}.")
    lam = _int("2" if args.order is None else args.order, "order", 2)
    if lam > 16:
        raise ValueError(f"--order must be an integer in [2, 16]. Found {quote(args.order)}.")
    max_boxes = _int(args.max_boxes, "max-boxes", 1)
    if args.order_range is not None:
        return _run_prove_order(args, n, m, max_boxes, out_path)
    if args.sigma_range is not None:
        return _run_prove_region(args, n, m, lam, max_boxes, out_path)
    if args.t_side:
        raise ValueError("--t-side applies to --prove --sigma-range only.")
    sigma = parse_rational("1" if args.sigma is None else args.sigma, "sigma")
    res = prove_case(ProofCase(n, m, lam, sigma), max_boxes=max_boxes, progress=True, jobs=jobs, faces=not args.cube)
    proof = proof_to_json(res)
    out: dict[str, Any] = {"prove": proof["summary"]}
    out["prove"]["statement"] = statement_text("holds-boxes", res.complete)
    if out_path is not None:
        from ..certificate import write_certificate
        from ..research.conjecture_certificate import make_boxes_certificate

        cert = make_boxes_certificate(proof)
        write_certificate(cert, out_path)
        out["certificate"] = {"written": True, "file": args.out, "kind": cert["kind"], "complete": cert["complete"]}
    return out


def _run_prove_region(
    args: argparse.Namespace, n: int, m: int, lam: int, max_boxes: int, out_path: Any
) -> dict[str, Any]:
    from ..research.conjecture_region import (
        SIGMA_MAX,
        SIGMA_MIN,
        RegionCase,
        prove_region,
        prove_region_scaled,
        region_scaled_to_json,
        region_to_json,
    )

    if args.sigma is not None:
        raise ValueError("--sigma and --sigma-range exclude each other.")
    if args.jobs is not None and args.t_side:
        raise ValueError("--jobs does not apply to --t-side (that region proof runs in one process).")
    jobs, _ = common.parallel_options(args)
    lo = parse_rational(args.sigma_range[0], "sigma-range")
    hi = parse_rational(args.sigma_range[1], "sigma-range")
    if not SIGMA_MIN <= lo < hi <= SIGMA_MAX:
        raise ValueError(
            f"--sigma-range must satisfy 1 <= LOW < HIGH <= 64. Found {quote(args.sigma_range[0])} "
            f"{quote(args.sigma_range[1])}."
        )
    rc = RegionCase(n, m, lam, lo, hi)
    if args.t_side:
        res = prove_region(rc, max_boxes=max_boxes, progress=True, faces=not args.cube)
        proof = region_to_json(res)
    elif args.cube:
        raise ValueError("--cube with --sigma-range needs --t-side (the scaled region proof tiles the faces).")
    else:
        res = prove_region_scaled(rc, max_boxes=max_boxes, progress=True, jobs=jobs)
        proof = region_scaled_to_json(res)
    out: dict[str, Any] = {"prove": proof["summary"]}
    out["prove"]["statement"] = statement_text("holds-region", res.complete)
    if out_path is not None:
        from ..certificate import write_certificate
        from ..research.conjecture_certificate import make_region_certificate, make_region_scaled_certificate

        cert = (make_region_certificate if args.t_side else make_region_scaled_certificate)(proof)
        write_certificate(cert, out_path)
        out["certificate"] = {"written": True, "file": args.out, "kind": cert["kind"], "complete": cert["complete"]}
    return out


def _run_prove_order(args: argparse.Namespace, n: int, m: int, max_boxes: int, out_path: Any) -> dict[str, Any]:
    from ..research.conjecture_lambda import (
        LAMBDA_MAX,
        LAMBDA_MIN,
        SIGMA_MAX,
        SIGMA_MIN,
        LambdaCase,
        lambda_proof_to_json,
        prove_lambda,
    )

    if args.t_side or args.cube:
        raise ValueError("--t-side and --cube do not apply to --order-range (its boxes tile the faces).")
    if args.jobs is not None:
        raise ValueError("--jobs does not apply to --order-range (that proof runs in one process).")
    if args.order is not None:
        raise ValueError(
            "--order and --order-range exclude each other (--order-range gives every order in [LOW, HIGH])."
        )
    if args.sigma_range is not None and args.sigma is not None:
        raise ValueError("--sigma and --sigma-range exclude each other.")
    message = (
        f"--order-range must be two numbers with 2 <= LOW < HIGH <= 16. Found {quote(args.order_range[0])} "
        f"{quote(args.order_range[1])}."
    )
    try:
        lo = parse_rational(args.order_range[0], "order-range")
        hi = parse_rational(args.order_range[1], "order-range")
    except ValueError:
        raise ValueError(message) from None
    if not LAMBDA_MIN <= lo < hi <= LAMBDA_MAX:
        raise ValueError(message)
    try:
        sigma = parse_rational("1" if args.sigma is None else args.sigma, "sigma")
    except ValueError:
        sigma = None
    if sigma is None or not SIGMA_MIN <= sigma <= SIGMA_MAX:
        raise ValueError(f"--sigma must be in [1, 64] with --order-range. Found {quote(args.sigma)}.")
    if args.sigma_range is not None:
        return _run_prove_order_sigma(args, n, m, (lo, hi), max_boxes, out_path)
    res = prove_lambda(LambdaCase(n, m, lo, hi, sigma), max_boxes=max_boxes, progress=True)
    proof = lambda_proof_to_json(res)
    out: dict[str, Any] = {"prove": proof["summary"]}
    out["prove"]["statement"] = statement_text("holds-boxes-order-interval", res.complete)
    if out_path is not None:
        from ..certificate import write_certificate
        from ..research.conjecture_certificate import make_order_interval_certificate

        cert = make_order_interval_certificate(proof)
        write_certificate(cert, out_path)
        out["certificate"] = {"written": True, "file": args.out, "kind": cert["kind"], "complete": cert["complete"]}
    return out


def _run_prove_order_sigma(
    args: argparse.Namespace, n: int, m: int, lam: tuple[Any, Any], max_boxes: int, out_path: Any
) -> dict[str, Any]:
    """``--order-range`` with ``--sigma-range``: every real order and every sigma of the two intervals
    (:mod:`rigorous_rdp.research.conjecture_lambda_sigma`, certificate kind holds-boxes-order-sigma)."""
    from ..research.conjecture_lambda_sigma import (
        SIGMA_MAX,
        SIGMA_MIN,
        LambdaSigmaCase,
        order_sigma_to_json,
        prove_order_sigma,
    )

    message = (
        f"--sigma-range must be two numbers with 1 <= LOW < HIGH <= 64. Found {quote(args.sigma_range[0])} "
        f"{quote(args.sigma_range[1])}."
    )
    try:
        lo = parse_rational(args.sigma_range[0], "sigma-range")
        hi = parse_rational(args.sigma_range[1], "sigma-range")
    except ValueError:
        raise ValueError(message) from None
    if not SIGMA_MIN <= lo < hi <= SIGMA_MAX:
        raise ValueError(message)
    res = prove_order_sigma(LambdaSigmaCase(n, m, lam[0], lam[1], lo, hi), max_boxes=max_boxes, progress=True)
    proof = order_sigma_to_json(res)
    out: dict[str, Any] = {"prove": proof["summary"]}
    out["prove"]["statement"] = statement_text("holds-boxes-order-sigma", res.complete)
    if out_path is not None:
        from ..certificate import write_certificate
        from ..research.conjecture_certificate import make_order_sigma_certificate

        cert = make_order_sigma_certificate(proof)
        write_certificate(cert, out_path)
        out["certificate"] = {"written": True, "file": args.out, "kind": cert["kind"], "complete": cert["complete"]}
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    from ..research.conjecture import MODELS, probe
    from ..research.parallel import dask_executor

    if args.prove:
        return _run_prove(args)
    if args.sigma_range is not None:
        raise ValueError("--sigma-range applies to --prove only.")
    if args.order_range is not None:
        raise ValueError("--order-range applies to --prove only.")
    if args.t_side:
        raise ValueError("--t-side applies to --prove --sigma-range only.")
    if args.trials is None:
        raise ValueError("--trials must be given (an integer >= 1), or use --prove.")
    if args.model not in MODELS:
        raise ValueError(f"--model must be one of range, clip, poisson. Found {quote(args.model)}.")
    if args.dim not in ("1", "2", "3"):
        raise ValueError(f"--dim must be 1, 2 or 3. Found {quote(args.dim)}.")
    trials = _int(args.trials, "trials", 1)
    seed = _int(args.seed, "seed", 0)
    steps = _int(args.steps, "steps", 0)
    jobs, spec = common.parallel_options(args)
    out_path = None if args.out is None else common.output_file(args.out)
    with dask_executor(spec) as ex:
        res = probe(
            trials, seed, model=args.model, dim=int(args.dim), jobs=jobs, executor=ex, steps=steps, progress=True
        )
    out = res.to_json()
    if out_path is not None:
        out["certificate"] = _write_certificate(res, out_path, args.out)
    if spec is not None:
        out["dask"] = spec
    return out


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    if "prove" in res:
        pr = res["prove"]
        region = isinstance(pr["sigma"], list)
        sig = f"sigma in [{pr['sigma'][0]}, {pr['sigma'][1]}]" if region else f"sigma = {pr['sigma']}"
        rg = pr["rhs_g_range"] if "rhs_g_range" in pr else pr["rhs_g"]
        lam = (
            f"lambda in [{pr['lambda'][0]}, {pr['lambda'][1]}]"
            if isinstance(pr["lambda"], list)
            else f"lambda = {pr['lambda']}"
        )
        lines = [
            f"Conjecture 1, 1-d range model, n = {pr['n']} rows, batch m = {pr['m']} (r = {pr['r']}), {lam}, {sig}:",
            f"  PROVEN: {pr['statement']}" if pr["proven"] else "  NOT PROVEN: open boxes remain",
            f"  boxes: {pr['boxes_proven']} proven {pr['methods']}, {pr['boxes_outside']} outside the "
            f"fundamental domain, {pr['boxes_open']} open; RHS G in [{rg['lower']}, {rg['upper']}]",
            f"  time: {pr['seconds']} s",
        ]
        cert = res.get("certificate")
        if cert is not None:
            lines.append(f"  certificate ({cert['kind']}) written to {cert['file']}")
        return "\n".join(lines)
    w = res["worst"]
    enclosure = (
        f"[{w['ratio']['lower']}, {w['ratio']['upper']}]"
        if w["ratio"]["upper"] is not None
        else f">= {w['ratio']['lower']}, no upper bound certified"
    )
    lines = [
        f"Conjecture 1 probe, model {res['model']}, dimension {res['dim']}: {res['trials']} trials "
        f"+ {res['structured_starts']} structured starts (seed {res['seed']}, {res['local_steps']} local steps "
        "each, then continuation in sigma, r, lambda)",
        f"  largest screened ratio D(p||q) / D(r mu1 + (1-r) mu0 || mu0): {res['screened_max']:.6g}",
        f"  its certified ratio: {enclosure} ({w['verdict']})",
        f"  configuration: {w['config']}",
        f"  certified violations: {res['violations']}  (screened candidates: {res['candidates']})",
    ]
    for v in res["violations_certified"]:
        lines.append(f"    ratio >= {v['ratio_lower']}: {v['config']}")
    lines.append(f"  {res['supremum']['statement']}")
    lines.append(f"  float screen: {res['screens_per_second']:.1f} configurations/s; total {res['seconds']:.1f} s")
    cert = res.get("certificate")
    if cert is not None:
        lines.append(
            f"  certificate ({cert['kind']}) written to {cert['file']}"
            if cert["written"]
            else f"  no certificate written: {cert['reason']}"
        )
    return "\n".join(lines)


def _write_certificate(res: Any, path: str, shown: str) -> dict[str, Any]:
    from ..certificate import write_certificate
    from ..research.conjecture_certificate import make_holds_certificate, make_violation_certificate

    if res.violation_records:
        best = max(res.violation_records, key=lambda v: float(v["ratio_lower"]))
        cert = make_violation_certificate(best["config"])
    elif res.worst["config"].d == 1 and res.worst_certified["verdict"] in ("holds", "equal"):
        cert = make_holds_certificate(res.worst["config"])
    else:
        return {"written": False, "reason": "nothing proven to certify (no proven violation; d > 1 or undecided)"}
    write_certificate(cert, path)
    return {"written": True, "file": shown, "kind": cert["kind"], "claim": cert["claim"]}
