"""Limits that hold: the time budget and Ctrl-C stop every loop and executor, a query refuses
before allocating more than the memory budget, and floats of tiny or huge balls cost nothing.

Budgets are checked with a stopwatch and a margin (the machine is shared); memory is the peak
resident size of a child process, read with ``resource`` in a separate wrapper process, under an
address-space limit so that a regression fails fast instead of eating the machine.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from fractions import Fraction
from pathlib import Path

import pytest
from _cli import assert_one_line_error, cmd, run_cli
from flint import arb

from rigorous_rdp import budget
from rigorous_rdp.arith import Certified, workprec
from rigorous_rdp.errors import BudgetExceeded
from rigorous_rdp.research import parallel
from rigorous_rdp.research.parallel import SerialExecutor, imap_ordered, map_ordered

ROOT = Path(__file__).resolve().parent.parent
#: smallest positive float (a subnormal)
TINY = math.ldexp(1.0, -1074)
#: peak memory every refusal and every budgeted run must stay under
TWO_GB = 2 * 2**30

# ---------------------------------------------------------------------------
# floats of balls: outward, and without exact fractions of huge exponents
# ---------------------------------------------------------------------------


def _dyadic(m: int, e: int) -> arb:
    """The exact ball m * 2**e (radius 0)."""
    with workprec(abs(m).bit_length() + 64):
        x = arb(m) * arb(2) ** e
    assert x.rad() == 0
    return x


@pytest.mark.parametrize(
    ("m", "e"),
    [
        (1, -1074),
        (1, -1075),
        (3, -1076),
        (1, -1080),
        (-1, -1075),
        (2**53 - 1, 971),  # the largest float
        (2**54 - 1, 970),  # just above it
        (1, 1024),
        (-(2**54 - 1), 970),
        (12345678901234567890123, -60),
        (-98765432109876543210987, -1100),
    ],
)
def test_float_endpoints_are_outward_and_adjacent(m, e):
    v = Fraction(m) * Fraction(2) ** e
    c = Certified(_dyadic(m, e), 53)
    lo, hi = c.lower_float(), c.upper_float()
    assert Fraction(lo) <= v if math.isfinite(lo) else lo < 0
    assert v <= Fraction(hi) if math.isfinite(hi) else hi > 0
    if math.isfinite(lo) and math.isfinite(hi):
        assert hi == lo or math.nextafter(lo, math.inf) == hi  # the nearest floats on either side
    if abs(v) > Fraction(sys.float_info.max):
        assert (hi == math.inf) if v > 0 else (lo == -math.inf)


@pytest.mark.parametrize("e", [-(10**10), -(10**15), 10**10, 10**15])
def test_float_endpoints_of_extreme_exponents_are_fast(e):
    ball = _dyadic(3, e)
    t0 = time.perf_counter()
    c = Certified(ball, 53)
    lo, hi = c.lower_float(), c.upper_float()
    assert time.perf_counter() - t0 < 1.0
    if e < 0:
        assert (lo, hi) == (0.0, TINY)
    else:
        assert (lo, hi) == (sys.float_info.max, math.inf)
    neg = Certified(-ball, 53)
    assert (neg.lower_float(), neg.upper_float()) == ((-TINY, -0.0) if e < 0 else (-math.inf, -sys.float_info.max))


def test_get_delta_at_huge_epsilon_answers_fast():
    dp = pytest.importorskip("dp_accounting")
    from rigorous_rdp.integrations.dp_accounting import CertifiedRdpAccountant

    CertifiedRdpAccountant().compose(dp.GaussianDpEvent(1.1), 10).get_delta(1.0)  # imports, caches
    for eps in (1e6, 1e30, 1e308):
        t0 = time.perf_counter()
        d = CertifiedRdpAccountant().compose(dp.GaussianDpEvent(1.1), 10).get_delta(eps)
        assert time.perf_counter() - t0 < 10.0, eps
        # the true bound exp(-(alpha-1) eps + ...) is far below the smallest float: rounded up to it
        assert 0 < d <= TINY, (eps, d)


# ---------------------------------------------------------------------------
# executors never swallow the budget or Ctrl-C
# ---------------------------------------------------------------------------


def _raise(exc):
    raise exc


def _square(x):
    return x * x


def _spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return seconds


def test_serial_executor_delivers_errors_but_not_interrupts():
    ex = SerialExecutor()
    fut = ex.submit(_raise, ValueError("bad item"))
    with pytest.raises(ValueError, match="bad item"):
        fut.result()
    with pytest.raises(KeyboardInterrupt):
        ex.submit(_raise, KeyboardInterrupt())
    with pytest.raises(BudgetExceeded):
        ex.submit(_raise, BudgetExceeded("stop"))
    # an error raised while handling Ctrl-C (as C code that called back into Python does) is Ctrl-C
    assert not budget.caused_by_interrupt(SystemError("unrelated"))
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("returned a result with an exception set")  # noqa: B904
    except SystemError as exc:
        assert budget.caused_by_interrupt(exc)
        with pytest.raises(KeyboardInterrupt):
            ex.submit(_raise, exc)


@pytest.mark.parametrize("jobs", [1, 2])
def test_map_ordered_stops_at_the_deadline(jobs):
    items = [0.05] * 400  # 20 s of work
    t0 = time.monotonic()
    with pytest.raises(BudgetExceeded), budget.time_budget(1.0):
        map_ordered(_spin, items, jobs=jobs)
    assert time.monotonic() - t0 < 1.0 + 1.0


def test_imap_ordered_streams_in_order_with_bounded_window():
    drawn = []

    def items():
        for i in range(10**12):  # never materialised
            drawn.append(i)
            yield i

    out = []
    for v in imap_ordered(_square, items(), jobs=1):
        out.append(v)
        if len(out) == 50:
            break
    assert out == [i * i for i in range(50)]
    assert len(drawn) <= 51
    assert map_ordered(_square, list(range(30)), jobs=2) == [i * i for i in range(30)]


class _NoWorkerClient:
    """A Dask client stand-in whose scheduler has no worker (the cached scheduler information)."""

    status = "running"

    def get_executor(self):
        return self

    def submit(self, fn, *args, **kwargs):
        return cf.Future()  # never runs

    def shutdown(self, wait=True):
        pass

    def scheduler_info(self):
        return {"workers": {}}


def test_dask_run_without_workers_stops(monkeypatch):
    monkeypatch.setattr(parallel, "NO_WORKER_SECONDS", 0.5)
    ex = parallel._DaskExecutor(_NoWorkerClient(), "tcp://127.0.0.1:8786")
    t0 = time.monotonic()
    with pytest.raises(ValueError, match=r"^dask scheduler tcp://127.0.0.1:8786 has had no live worker"):
        map_ordered(_square, [1, 2, 3], executor=ex)
    assert time.monotonic() - t0 < 0.5 + 1.0


class _LostSchedulerClient(_NoWorkerClient):
    """A client whose scheduler went away: every future comes back cancelled."""

    def submit(self, fn, *args, **kwargs):
        fut = cf.Future()
        fut.cancel()
        fut.set_running_or_notify_cancel()
        return fut

    def scheduler_info(self):
        return {"workers": {"tcp://w:1": {"nthreads": 1}}}


def test_dask_run_whose_scheduler_is_lost_stops_with_one_line():
    ex = parallel._DaskExecutor(_LostSchedulerClient(), "tcp://127.0.0.1:8786")
    with pytest.raises(ValueError, match=r"^dask: a work item was cancelled by the cluster"):
        map_ordered(_square, [1, 2, 3], executor=ex)


# ---------------------------------------------------------------------------
# the memory budget
# ---------------------------------------------------------------------------


def test_parse_size():
    assert budget.parse_size("4G") == 4 * 2**30
    assert budget.parse_size("512m") == 512 * 2**20
    assert budget.parse_size("1T") == 2**40
    assert budget.parse_size("2e9") == 2 * 10**9
    for bad in ("0", "15M", "2T", "x", "inf", "nan", "-1G", "4 G", "1" * 50, True):
        with pytest.raises(ValueError, match=r"^max-memory must be a size"):
            budget.parse_size(bad)


def test_check_memory_uses_the_innermost_budget():
    budget.check_memory(budget.DEFAULT_MEMORY, "x")  # at the cap: allowed
    with pytest.raises(budget.MemoryBudgetExceeded, match=r"raise it with max_memory SIZE") as info:
        budget.check_memory(
            budget.DEFAULT_MEMORY + 1, "x at {batch_size} 3", "ask for a smaller {batch_size}", ("batch_size",)
        )
    # API words in the message; the command line renders the same exception with its options
    assert str(info.value).startswith("x at batch_size 3 needs") and str(info.value).endswith("smaller batch_size")
    shown = info.value.render(lambda p: "--" + p.replace("_", "-"))
    assert shown.startswith("x at --batch-size 3 needs") and "--max-memory SIZE" in shown
    with budget.memory_budget("16M"):
        assert budget.memory_cap() == 16 * 2**20
        with pytest.raises(budget.MemoryBudgetExceeded, match=r"^y needs about 17M of memory, more than .* 16M"):
            budget.check_memory(17 * 2**20, "y")
    assert budget.memory_cap() == budget.DEFAULT_MEMORY


def test_max_memory_option():
    assert_one_line_error(*run_cli(cmd("rdp --sigma 1 --alpha 2 --max-memory 3Q")), "--max-memory must be a size")
    # 3000 bytes per batch element: --batch-size 10000 needs 30M, refused under 16M before any work
    status, out, err = run_cli(
        cmd("rdp --sampling fswr --batch-size 10000 --dataset-size 100000 --sigma 1 --alpha 2 --max-memory 16M")
    )
    assert_one_line_error(status, out, err, "fixed-size sampling with replacement at --batch-size 1e+04")
    assert "--max-memory" in err


# ---------------------------------------------------------------------------
# the command line as a process: budgets, Ctrl-C, memory
# ---------------------------------------------------------------------------

_RUNNER = textwrap.dedent(
    """
    import json, resource, signal, subprocess, sys, time
    argv, interrupt_after, limit = json.loads(sys.argv[1])
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=cap)
    t_int = None
    if interrupt_after is not None:
        # count from the moment the package is being imported (python-flint mapped): from then on
        # Ctrl-C is the package's to handle, whatever the start-up time of a loaded machine
        t_wait = time.monotonic()
        while p.poll() is None and time.monotonic() - t_wait < 60:
            try:
                with open(f"/proc/{p.pid}/maps") as fh:
                    if "flint" in fh.read():
                        break
            except OSError:
                break
            time.sleep(0.02)
        try:
            p.wait(interrupt_after)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)
            t_int = time.monotonic()
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    t1 = time.monotonic()
    print(json.dumps({
        "status": p.returncode, "out": out, "err": err, "seconds": t1 - t0,
        "after_interrupt": None if t_int is None else t1 - t_int,
        "peak_bytes": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
    }))
    """
)


def _run(args: str, interrupt_after: float | None = None, limit: int = 3 * 2**30) -> dict:
    """``python -m rigorous_rdp ARGS`` in a wrapper process: status, output, wall time, time from
    SIGINT to exit, peak resident memory (the child's alone), under an address-space limit."""
    argv = [sys.executable, "-m", "rigorous_rdp", *cmd(args)]
    res = subprocess.run(
        [sys.executable, "-c", _RUNNER, json.dumps([argv, interrupt_after, limit])],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=180,
    )
    return json.loads(res.stdout)


def _one_line(r: dict, prefix: str) -> None:
    assert r["err"].count("\n") == 1 and r["err"].startswith(prefix), r["err"]
    assert "Traceback" not in r["err"]


@pytest.mark.parametrize(
    "args",
    [
        "epsilon --sampling fswr --batch-size 1e9 --dataset-size 1e18 --sigma 1 --steps 10 --delta 1e-5",
        "constant --c1 1 --c2 1 --sigma-max 1e100",
        "constant --c1 1 --c2 1 --sigma-max 1e100 --integer",
    ],
)
def test_memory_refused_before_allocating(args):
    r = _run(args)
    assert r["status"] == 2, r
    _one_line(r, "rigorous-rdp: error: ")
    assert "--max-memory SIZE" in r["err"]
    assert r["peak_bytes"] < TWO_GB / 4, r["peak_bytes"]  # refused before allocating: no growth at all
    assert r["seconds"] < STARTUP


#: start-up of an interpreter and of the package on a loaded machine (a subprocess' wall time)
STARTUP = 15.0
#: scheduling slack on a shared machine, on top of the allowed overshoot
SLACK = 1.0


def _within_budget(seconds: float, budget_seconds: float) -> bool:
    """At most 10 % or 1 s past the budget (whichever is larger), plus :data:`SLACK`."""
    return seconds < budget_seconds + max(0.1 * budget_seconds, 1.0) + SLACK


def test_conjecture_trials_stream_in_little_memory():
    # a billion trials: streamed (the memory of a few), stopped by the budget
    r = _run("conjecture --trials 1e9 --max-seconds 3 --json")
    assert r["status"] == 2, r
    _one_line(r, "rigorous-rdp: error: time budget of 3 s exceeded")
    assert r["peak_bytes"] < TWO_GB / 4, r["peak_bytes"]
    assert r["seconds"] < 3 + STARTUP


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_conjecture_stops_at_the_budget(jobs):
    t0 = time.monotonic()
    status, out, err = run_cli(cmd(f"conjecture --trials 1e9 --max-seconds 2 --jobs {jobs} --json"))
    elapsed = time.monotonic() - t0
    assert_one_line_error(status, out, err, "time budget of 2 s exceeded")
    assert _within_budget(elapsed, 2.0), elapsed


def test_closed_dask_port_fails_within_the_budget():
    pytest.importorskip("distributed")
    t0 = time.monotonic()
    status, out, err = run_cli(cmd("conjecture --trials 10 --dask tcp://127.0.0.1:1 --max-seconds 3 --json"))
    elapsed = time.monotonic() - t0
    # the connection attempt is given what is left of the budget; on a loaded machine the import of
    # distributed can take most of it, and the budget's own refusal comes first
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    assert err.startswith(
        ("rigorous-rdp: error: --dask scheduler tcp://127.0.0.1:1 is unreachable", "rigorous-rdp: error: time budget")
    ), err
    assert _within_budget(elapsed, 3.0), elapsed


@pytest.mark.parametrize(
    ("args", "after"),
    [
        ("constant --table --json", 3.0),
        # (1e5 steps at 6 significant digits of sigma: several seconds of certified work, so it is still
        # running when interrupted; 1e3 steps now finish within the 2 s before the interrupt)
        (
            "calibrate --method pld --sampling poisson --q 0.01 --steps 100000 --epsilon 1 --delta 1e-5 "
            "--sigma-digits 6 --json",
            2.0,
        ),
        ("conjecture --trials 100000 --jobs 2 --json", 3.0),
    ],
)
def test_ctrl_c_stops_within_two_seconds(args, after, tmp_path):
    out_file = tmp_path / "table.json"
    if args.startswith("constant"):
        args += f" --out {out_file}"
    r = _run(args, interrupt_after=after)
    assert r["after_interrupt"] is not None, r  # still running when interrupted
    assert r["status"] == 130, r
    assert r["err"].endswith("rigorous-rdp: interrupted\n") and "Traceback" not in r["err"], r["err"]
    assert r["out"] == ""
    assert r["after_interrupt"] < 2.0, r["after_interrupt"]
    assert not out_file.exists() and list(tmp_path.iterdir()) == []  # nothing (half) written


def test_ctrl_c_while_importing_is_one_line():
    # the handler the package installs first on the command line: SIGINT while importing
    code = (
        "import sys, os, signal; sys.argv[0] = 'rigorous-rdp'; import rigorous_rdp; "
        "os.kill(os.getpid(), signal.SIGINT); import time; time.sleep(5); print('not stopped')"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert res.returncode == 130, res
    assert res.stderr == "rigorous-rdp: interrupted\n" and res.stdout == ""
    # a program importing the package keeps Python's own Ctrl-C
    code = "import rigorous_rdp, signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert res.stdout.strip() == "True", res


def test_interruptible_records_a_swallowed_interrupt():
    with budget.interruptible():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass  # swallowed, as C code or a handler might
        assert budget.interrupted()
        with pytest.raises(KeyboardInterrupt):
            budget.check()
    assert not budget.interrupted()
