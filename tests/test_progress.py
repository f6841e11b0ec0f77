"""Progress of long commands (:mod:`rigorous_rdp.progress`): an ETA line on stderr with
``--progress`` (or on a terminal), nothing with ``--quiet``, never anything on stdout, and a clean
Ctrl-C while the line is drawn."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from _cli import assert_one_line_error, cmd, run_cli

from rigorous_rdp import progress

ROOT = Path(__file__).resolve().parent.parent
#: a PLD composition of known length (a few hundred ms to a few s): its products are counted
PLD_EPSILON = cmd("epsilon --sampling poisson --q 0.01 --sigma 1.1 --steps 20000 --delta 1e-5 --method pld")


@pytest.fixture
def fast_progress(monkeypatch):
    """Draw from the start and often, so that a sub-second command shows its lines."""
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "LINE_INTERVAL", 0.01)
    monkeypatch.setattr(progress, "TTY_INTERVAL", 0.01)


def test_format_seconds():
    assert progress.format_seconds(3.14159) == "3.1 s"
    assert progress.format_seconds(42.4) == "42 s"
    assert progress.format_seconds(125) == "2 min 05 s"
    assert progress.format_seconds(3 * 3600 + 7 * 60) == "3 h 07 min"
    assert progress.format_seconds(float("inf")) == "?"


def test_eta_is_the_steps_left_times_the_time_per_step(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    t = progress.Task("work", total=10, unit="items")
    assert t.eta(clock[0]) is None  # nothing done yet: no estimate
    for _ in range(4):
        clock[0] += 2.0
        t.update()
    assert t.eta(clock[0]) == pytest.approx(12.0)  # 6 left at 2 s each
    clock[0] += 8.0  # a slow step: the estimate follows the slower recent pace
    t.update()
    assert t.eta(clock[0]) == pytest.approx(5 * 8.0)
    assert t.text(clock[0]) == "work 5/10 items (50%)"
    assert progress.Task("screen").eta(clock[0]) is None  # no total, no ETA


def test_outside_a_session_nothing_is_drawn(capsys):
    with progress.task("work", 3, "items") as t:
        for x in progress.iterate([1, 2, 3], "inner"):
            t.update(note=str(x))
    progress.note("a phase")
    assert t.done == 3 and not progress.active()
    assert capsys.readouterr() == ("", "")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_line_is_redrawn_in_place_and_erased(fast_progress):
    stream = _Tty()
    with progress.session("rigorous-rdp test", stream=stream):
        assert progress.active()
        with progress.task("table", 4, "cells") as t:
            for _ in range(4):
                time.sleep(0.05)
                t.update()
            progress.write("a warning")
            time.sleep(0.05)  # redrawn below the warning
    text = stream.getvalue()
    assert "\n" in text and "a warning\n" in text  # the warning on a line of its own
    assert "\r" in text and "rigorous-rdp test: table 2/4 cells (50%)" in text and "ETA" in text
    assert re.search(r"\r +\r$", text), repr(text[-80:])  # the line is erased at the end
    assert not progress.active()


def test_session_off_and_quiet_on_a_terminal(fast_progress):
    stream = _Tty()
    with progress.session("rigorous-rdp test", enabled=False, stream=stream), progress.task("x", 2) as t:
        time.sleep(0.05)
        t.update()
    assert stream.getvalue() == ""


def _slow_square(x: int) -> int:
    time.sleep(0.02)
    return x * x


def test_work_items_of_worker_processes_are_counted(fast_progress):
    """A pool forked while the line is drawn (workers never draw; the parent counts their items)."""
    from rigorous_rdp.research.parallel import map_ordered

    stream = _Tty()
    with progress.session("rigorous-rdp test", stream=stream):
        squares = map_ordered(_slow_square, list(range(40)), jobs=2, progress=True, desc="squares")
    assert squares == [x * x for x in range(40)]
    assert re.search(r"squares \d+/40 items", stream.getvalue())


def test_progress_line_with_an_eta(fast_progress):
    status, out, err = run_cli([*PLD_EPSILON, "--progress"])
    assert status == 0, err
    lines = err.splitlines()
    assert lines and all(line.startswith("rigorous-rdp epsilon: ") for line in lines), err[:2000]
    eta = [line for line in lines if "ETA" in line]
    assert eta, err[:2000]
    assert re.search(r"PLD composition \((add|remove), grid 1/\d+\) \d+/\d+ products \(\d+%\)", eta[0]), eta[0]
    # the ETA covers that composition, not the command (which composes the other direction, refines)
    assert all(re.search(r", PLD composition ETA [^\]]*\]$", line) for line in eta), eta[0]
    assert "epsilon = [" in out and "ETA" not in out


def test_quiet_prints_nothing_and_json_is_unaffected(fast_progress):
    status, out_quiet, err_quiet = run_cli([*PLD_EPSILON, "--json", "--quiet"])
    assert status == 0 and err_quiet == ""
    status, out, err = run_cli([*PLD_EPSILON, "--json", "--progress"])
    assert status == 0
    assert "ETA" in err  # progress went to stderr...
    assert json.loads(out) == json.loads(out_quiet)  # ...and stdout is the same one JSON object
    status, out, err = run_cli([*PLD_EPSILON, "--json"])  # stderr is not a terminal: nothing by default
    assert status == 0 and err == "" and json.loads(out) == json.loads(out_quiet)


def test_progress_and_quiet_contradict():
    status, out, err = run_cli([*PLD_EPSILON, "--progress", "--quiet"])
    assert_one_line_error(status, out, err, "--progress and --quiet")
    status, out, err = run_cli(["reproduce", "blog1-gaussian-calibrations", "--progress", "--no-progress"])
    assert_one_line_error(status, out, err, "--progress and --no-progress")  # the option given


def test_ctrl_c_while_progress_is_drawn():
    """SIGINT during a long PLD composition with --progress: status 130, one line saying so after
    the progress lines, no traceback."""
    # a composition of several seconds on any machine (the first line comes after progress.DELAY = 1 s)
    argv = [sys.executable, "-m", "rigorous_rdp", *PLD_EPSILON[:-2], "--steps", "10000000", "--method", "pld"]
    argv += ["--width", "0.001"]
    argv += ["--progress", "--max-seconds", "300"]
    p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    first = threading.Event()

    def read() -> None:
        assert p.stderr is not None
        for line in p.stderr:
            lines.append(line)
            first.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert first.wait(120), "no progress line"
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
        stopped = time.monotonic() - t0
        assert p.stdout is not None
        out = p.stdout.read()
    finally:
        if p.poll() is None:
            p.kill()
    reader.join(10)
    err = "".join(lines)
    assert p.returncode == 130, err[-2000:]
    assert out == ""
    assert err.endswith("rigorous-rdp: interrupted\n") and "Traceback" not in err, err[-2000:]
    assert all(line.startswith("rigorous-rdp epsilon: ") for line in lines[:-1]), err[-2000:]
    assert stopped < 20, stopped  # one product in C finishes first (typically well under a second)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_terminal_by_default():
    """On a terminal the line is drawn without --progress, and erased before the result."""
    master, slave = os.openpty()
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the terminal closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        argv = [
            sys.executable,
            "-m",
            "rigorous_rdp",
            *PLD_EPSILON[:-2],
            "--steps",
            "2000000",
            "--method",
            "pld",
            "--width",
            "0.002",
        ]  # a few seconds
        p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=slave, text=True, timeout=300)
    finally:
        os.close(slave)
        reader.join(10)
        os.close(master)
    err = b"".join(chunks).decode()
    assert p.returncode == 0 and "epsilon = [" in p.stdout and "\r" not in p.stdout
    assert "rigorous-rdp epsilon: " in err and "\r" in err
    assert re.search(r"\r +\r$", err), repr(err[-200:])


def test_a_line_wider_than_the_terminal_keeps_its_count_and_eta():
    line = "rigorous-rdp epsilon: PLD composition (remove, grid 1/2304) 18/25 products (72%) [1.1 s elapsed, ETA 0.4 s]"
    fitted = progress._fit(line, 79)
    assert len(fitted) == 79
    assert fitted.startswith("rigorous-rdp epsilon: ") and "..." in fitted
    assert fitted.endswith(" 18/25 products (72%) [1.1 s elapsed, ETA 0.4 s]")
    assert progress._fit(line, len(line)) == line  # a line that fits is unchanged


def test_the_eta_says_what_it_covers(fast_progress):
    """A task that is the whole command (``whole=True``) gives the command's ETA; any other names itself."""
    for whole, tail in ((True, r"elapsed, ETA [^\]]*\]"), (False, r"elapsed, table ETA [^\]]*\]")):
        stream = _Tty()
        with (
            progress.session("rigorous-rdp test", stream=stream),
            progress.task("table (4 cells)", 4, whole=whole) as t,
        ):
            for _ in range(3):
                time.sleep(0.05)
                t.update()
            time.sleep(0.05)
        lines = [x for x in re.split(r"[\r\n]", stream.getvalue()) if "ETA" in x]
        assert lines and all(re.search(tail + " *$", x) for x in lines), lines
        assert whole is all("table ETA" not in x for x in lines)
