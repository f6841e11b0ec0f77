"""The exact PLD rows on a grid of extreme inputs: every query must answer within 1 s (issue 23).

Gaussian, randomized response and Laplace without sampling, T in {1, 10, 1e3, 1e6}, delta in
{1e-5, 1e-30, 1e-100} (``epsilon``) and epsilon in {0, 1, 10} (``delta``), a few noise levels
including extreme ones, with ``--method pld`` and the default (``best``).  Each query runs
in-process through the command-line entry point (``rigorous_rdp.cli.main``, JSON output), so the
time is the command's CPU time (and wall clock) without the interpreter start-up, each query in
a fresh interpreter.  Run it under ``python -W error`` to
check that no path warns.

    python -W error benchmarks/bench_pld_exact_grid.py [--quick] [--limit 1.0] [--methods pld best]
        [--mechanisms laplace] [--budget S]

``--budget S`` passes ``--max-seconds S`` to every query (a slow path stops there instead of
running on).  Laplace is answered by :mod:`rigorous_rdp.pld.laplace_exact` (no grid).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this tree's package, not an installed one

from rigorous_rdp.cli import main as cli_main

MECHANISMS = {
    "gaussian": [["--sigma", s] for s in ("0.01", "0.5", "1", "100", "1e4")],
    "randomized-response": [["--noise", "randomized-response", "--p", p] for p in ("0.5", "0.51", "0.75", "0.99")],
    "laplace": [["--noise", "laplace", "--scale", b] for b in ("0.1", "1", "10", "1000")],
}
STEPS = ("1", "10", "1000", "1000000")
DELTAS = ("1e-5", "1e-30", "1e-100")
EPSILONS = ("0", "1", "10")


def run_here(argv: list[str]) -> tuple[float, float, int, dict | str]:
    """``(CPU seconds, wall seconds, exit status, JSON or the error line)`` of one query in this process."""
    out, err = io.StringIO(), io.StringIO()
    c0, t0 = time.process_time(), time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main([*argv, "--json"])
        except SystemExit as exc:  # argparse errors
            code = int(exc.code or 0)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    if code != 0:
        return cpu, wall, code, err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else ""
    return cpu, wall, code, json.loads(out.getvalue())


def run(argv: list[str]) -> tuple[float, float, int, dict | str]:
    """The same in a fresh interpreter (a stopped query may leave a worker thread running, which would
    bill the next query in the same process); the start-up and imports are not counted."""
    proc = subprocess.run(
        [sys.executable, *(f"-W{w}" for w in sys.warnoptions), __file__, "--one", *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        return math.nan, math.nan, proc.returncode, (proc.stderr.strip().splitlines() or [""])[-1]
    cpu, wall, code, res = json.loads(proc.stdout)
    return cpu, wall, code, res


def queries(quick: bool, methods: list[str], mechanisms: list[str]):
    for variants in (MECHANISMS[m] for m in mechanisms):
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
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(json.dumps(run_here(sys.argv[2:])))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="three noise levels per mechanism")
    ap.add_argument("--limit", type=float, default=1.0, help="seconds a query may take")
    ap.add_argument("--methods", nargs="+", default=["pld", "best"])
    ap.add_argument("--mechanisms", nargs="+", default=list(MECHANISMS), choices=list(MECHANISMS))
    ap.add_argument("--budget", type=float, default=None, help="pass --max-seconds S to every query")
    args = ap.parse_args()
    slow, failed, worst = [], [], 0.0
    n = 0
    for argv in queries(args.quick, args.methods, args.mechanisms):
        if args.budget is not None:
            argv = [*argv, "--max-seconds", str(args.budget)]
        n += 1
        dt, wall, code, res = run(argv)
        worst = max(worst, dt)
        line = f"{dt:7.3f} s CPU {wall:7.3f} s wall  {' '.join(argv)}  ->  " + (
            _value(res, argv[0]) if isinstance(res, dict) else f"exit {code}: {res}"
        )
        print(line, flush=True)
        if not dt <= args.limit:
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
