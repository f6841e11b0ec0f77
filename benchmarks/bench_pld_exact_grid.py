"""The exact PLD rows on a grid of extreme inputs: every query must answer within 1 s (issue 23).

Gaussian, randomized response and Laplace without sampling, T in {1, 10, 1e3, 1e6}, delta in
{1e-5, 1e-30, 1e-100} (``epsilon``) and epsilon in {0, 1, 10} (``delta``), a few noise levels
including extreme ones, with ``--method pld`` and the default (``best``).  Each query runs
in-process through the command-line entry point (``rigorous_rdp.cli.main``, JSON output), so the
time is the command's without the interpreter start-up.  Run it under ``python -W error`` to
check that no path warns.

    python -W error benchmarks/bench_pld_exact_grid.py [--quick] [--limit 1.0] [--methods pld best]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time

from rigorous_rdp.cli import main as cli_main

MECHANISMS = {
    "gaussian": [["--sigma", s] for s in ("0.01", "0.5", "1", "100", "1e4")],
    "randomized-response": [["--noise", "randomized-response", "--p", p] for p in ("0.5", "0.51", "0.75", "0.99")],
    "laplace": [["--noise", "laplace", "--scale", b] for b in ("0.1", "1", "10", "1000")],
}
STEPS = ("1", "10", "1000", "1000000")
DELTAS = ("1e-5", "1e-30", "1e-100")
EPSILONS = ("0", "1", "10")


def run(argv: list[str]) -> tuple[float, int, dict | str]:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main([*argv, "--json"])
        except SystemExit as exc:  # argparse errors
            code = int(exc.code or 0)
    dt = time.perf_counter() - t0
    if code != 0:
        return dt, code, err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else ""
    return dt, code, json.loads(out.getvalue())


def queries(quick: bool, methods: list[str]):
    for variants in MECHANISMS.values():
        for opts in variants if not quick else variants[:2] + variants[-1:]:
            for steps in STEPS:
                for method in methods:
                    for d in DELTAS:
                        yield ["epsilon", *opts, "--steps", steps, "--delta", d, "--method", method]
                    for e in EPSILONS:
                        yield ["delta", *opts, "--steps", steps, "--epsilon", e, "--method", method]


def _value(res: dict, command: str) -> str:
    key = "epsilon" if command == "epsilon" else "delta"
    v = res[key]
    return f"[{v['lower'][:12]}, {v['upper'][:12]}]" + (f" ({res['chosen']})" if "chosen" in res else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="three noise levels per mechanism")
    ap.add_argument("--limit", type=float, default=1.0, help="seconds a query may take")
    ap.add_argument("--methods", nargs="+", default=["pld", "best"])
    args = ap.parse_args()
    run(["epsilon", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--method", "pld"])  # warm-up (imports)
    slow, failed, worst = [], [], 0.0
    n = 0
    for argv in queries(args.quick, args.methods):
        n += 1
        dt, code, res = run(argv)
        worst = max(worst, dt)
        line = f"{dt:7.3f} s  {' '.join(argv)}  ->  " + (
            _value(res, argv[0]) if isinstance(res, dict) else f"exit {code}: {res}"
        )
        print(line, flush=True)
        if dt > args.limit:
            slow.append(line)
        if code != 0:
            failed.append(line)
    print(f"\n{n} queries, slowest {worst:.3f} s; {len(slow)} above {args.limit} s; {len(failed)} refused")
    for line in slow:
        print("SLOW", line)
    for line in failed:
        print("REFUSED", line)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
