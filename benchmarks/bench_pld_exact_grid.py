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
    python benchmarks/bench_pld_exact_grid.py --sweep [--methods pld] [--sweep-scales 1 10]

``--sweep`` runs the dense off-grid Laplace sweep instead (:data:`SWEEP_SCALES`, including the ends
of the accepted ``--scale`` range and 1e-5, 1e300, x T log-spaced 1..1e6 with three points per decade x delta in
:data:`SWEEP_DELTAS` and epsilon in {0, 1, 10, just below the largest loss T/scale}); its queries
run in one interpreter per scale (the imports and the interpreter start-up are not counted; the
Laplace code keeps no cache between queries), and a per-scale table of the slowest CPU time ends
the output.

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
#: the dense Laplace sweep (``--sweep``): the scales, including the ends of the CLI's range (1e-1000, 1e1000)
SWEEP_SCALES = (
    *("1e-1000", "1e-5", "0.001", "0.01", "0.05", "0.1", "0.3", "1", "3", "10", "30", "100", "300", "1000"),
    *("1e300", "1e1000"),
)
SWEEP_STEPS = (*(str(m * 10**k) for k in range(6) for m in (1, 2, 5)), "1000000")
SWEEP_DELTAS = ("1e-1", "1e-5", "1e-30", "1e-100")


def _near_top(scale: str, steps: str) -> str | None:
    """An epsilon just below the largest loss T/scale (``None`` when that is not a short decimal)."""
    from fractions import Fraction

    top = Fraction(int(steps)) / Fraction(scale)
    if top > 10**20 or top < Fraction(1, 10**20):
        return None
    return str(float(top * (1 - Fraction(1, 1000))))


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


def sweep_queries(scales: tuple[str, ...], methods: list[str]):
    for b in scales:
        opts = ["--noise", "laplace", "--scale", b]
        for steps in SWEEP_STEPS:
            for method in methods:
                for d in SWEEP_DELTAS:
                    yield ["epsilon", *opts, "--steps", steps, "--delta", d, "--method", method]
                top = _near_top(b, steps)
                for e in (*EPSILONS, *([top] if top is not None else [])):
                    yield ["delta", *opts, "--steps", steps, "--epsilon", e, "--method", method]


def run_batch(argvs: list[list[str]]):
    """Run ``argvs`` in one fresh interpreter, yielding ``(argv, CPU, wall, code, result)`` as they finish."""
    proc = subprocess.Popen(
        [sys.executable, *(f"-W{w}" for w in sys.warnoptions), __file__, "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(argvs))
    proc.stdin.close()
    for argv in argvs:
        line = proc.stdout.readline()
        if not line:
            yield argv, math.nan, math.nan, proc.wait(), "the batch interpreter stopped"
            return
        cpu, wall, code, res = json.loads(line)
        yield argv, cpu, wall, code, res
    proc.wait()


def _value(res: dict, command: str) -> str:
    key = "epsilon" if command == "epsilon" else "delta"
    v = res[key]
    return f"[{v['lower'][:12]}, {v['upper'][:12]}]" + (f" ({res['chosen']})" if "chosen" in res else "")


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(json.dumps(run_here(sys.argv[2:])))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--batch":
        for argv in json.loads(sys.stdin.read()):
            print(json.dumps(run_here(argv)), flush=True)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="three noise levels per mechanism")
    ap.add_argument("--limit", type=float, default=1.0, help="seconds a query may take")
    ap.add_argument("--methods", nargs="+", default=["pld", "best"])
    ap.add_argument("--mechanisms", nargs="+", default=list(MECHANISMS), choices=list(MECHANISMS))
    ap.add_argument("--budget", type=float, default=None, help="pass --max-seconds S to every query")
    ap.add_argument("--sweep", action="store_true", help="the dense off-grid Laplace sweep")
    ap.add_argument("--sweep-scales", nargs="+", default=list(SWEEP_SCALES), help="the sweep's scales")
    args = ap.parse_args()
    slow, failed, worst = [], [], 0.0
    n = 0
    per_scale: dict[str, tuple[float, str, int]] = {}

    def results():
        if args.sweep:
            for b in args.sweep_scales:
                argvs = list(sweep_queries((b,), args.methods))
                if args.budget is not None:
                    argvs = [[*a, "--max-seconds", str(args.budget)] for a in argvs]
                yield from run_batch(argvs)
            return
        for argv in queries(args.quick, args.methods, args.mechanisms):
            if args.budget is not None:
                argv = [*argv, "--max-seconds", str(args.budget)]
            yield (argv, *run(argv))

    for argv, dt, wall, code, res in results():
        n += 1
        worst = max(worst, dt)
        if args.sweep:
            b = argv[argv.index("--scale") + 1]
            top, top_q, above = per_scale.get(b, (0.0, "", 0))
            if dt > top:
                top, top_q = dt, " ".join(argv)
            per_scale[b] = (top, top_q, above + (0 if dt <= args.limit else 1))
        line = f"{dt:7.3f} s CPU {wall:7.3f} s wall  {' '.join(argv)}  ->  " + (
            _value(res, argv[0]) if isinstance(res, dict) else f"exit {code}: {res}"
        )
        print(line, flush=True)
        if not dt <= args.limit:
            slow.append(line)
        if code != 0:
            failed.append(line)
    print(f"\n{n} queries, slowest {worst:.3f} s; {len(slow)} above {args.limit} s; {len(failed)} refused")
    for b, (top, top_q, above) in per_scale.items():
        print(f"scale {b:>8}: slowest {top:7.3f} s CPU, {above} above {args.limit} s  ({top_q})")
    for line in slow:
        print("SLOW", line)
    for line in failed:
        print("REFUSED", line)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
