"""``rigorous-rdp conjecture``: numerical probe of Conjecture 1 (blog post, part 2)."""

from __future__ import annotations

import argparse
from typing import Any, Dict

from ..arith import parse_rational


def register(sub: Any) -> None:
    p = sub.add_parser(
        "conjecture", help="probe Conjecture 1 of the blog post (part 2) on exact Gaussian-mixture laws",
        description=("Compare D_lambda(p||q) for subsampled Gaussian mechanisms on neighbouring datasets with "
                     "D_lambda(r mu_1 + (1-r) mu_0 || mu_0) over random, locally optimised datasets; the worst "
                     "1-d configuration and every candidate violation are recomputed with certified enclosures."))
    p.add_argument("--trials", required=True, metavar="N", help="number of random starts (integer >= 1)")
    p.add_argument("--seed", default="0", metavar="S", help="random seed (integer >= 0, default 0)")
    p.add_argument("--jobs", default="1", metavar="J", help="worker processes (default 1)")
    p.add_argument("--steps", default="12", metavar="K", help="local-search steps per trial (default 12; 0 = random only)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.set_defaults(func=run, text=text, option_names=_OPTIONS)


def _int(value: str, name: str, low: int) -> int:
    f = parse_rational(value, name)
    if f.denominator != 1 or f < low:
        raise ValueError(f"{name} must be an integer >= {low}. Found {value}.")
    return int(f)


_OPTIONS = ("trials", "seed", "jobs", "steps")


def run(args: argparse.Namespace) -> Dict[str, Any]:
    from ..research.conjecture import probe
    from ..research.parallel import validate_jobs

    trials = _int(args.trials, "trials", 1)
    seed = _int(args.seed, "seed", 0)
    steps = _int(args.steps, "steps", 0)
    jobs = validate_jobs(args.jobs)
    res = probe(trials, seed, jobs=jobs, steps=steps, progress=not args.json)
    return res.to_json()


def text(args: argparse.Namespace, res: Dict[str, Any]) -> str:
    w = res["worst"]
    lines = [
        f"Conjecture 1 probe: {res['trials']} trials (seed {res['seed']}, {res['local_steps']} local steps each)",
        f"  worst ratio D(p||q) / D(r mu1 + (1-r) mu0 || mu0), certified: [{res['max_ratio']['lower']}, {res['max_ratio']['upper']}]"
        f"  ({w['verdict']})",
        f"  worst configuration: {w['config']}",
    ]
    wn = res.get("worst_nontrivial")
    if wn:
        lines.append(f"  worst configuration other than the right-hand-side pair itself: ratio "
                     f"[{wn['ratio']['lower']}, {wn['ratio']['upper']}] ({wn['verdict']}): {wn['config']}")
    lines += [
        f"  certified violations: {res['violations']}  (screened candidates: {res['candidates']})",
        f"  max screened ratio by kind: {res['max_screen_ratio_by_kind']}",
        f"  float screen: {res['screens_per_second']:.1f} configurations/s; certified confirmation of the worst: "
        f"{res['certified_seconds_worst']:.2f} s",
    ]
    return "\n".join(lines)
