r"""Progress of long commands on stderr: what runs, how far it is, and an ETA.

The command line opens one :func:`session` per command (on when stderr is a terminal or
``--progress`` is given, off with ``--quiet``); inside it, long loops of the library open a
:func:`task` and count their steps::

    with progress.task("certified evaluations", total=n, unit="evals") as t:
        for item in items:
            ...
            t.update(note=f"sigma {s}")

Outside a session (the Python API, worker processes, tests) a task only counts: nothing is
drawn and the cost is an attribute increment.  Inside one, a background thread redraws a single
line on stderr (``\r`` on a terminal, one line every :data:`LINE_INTERVAL` seconds otherwise)
once the command has run for :data:`DELAY` seconds, so a quick command prints nothing.  The
line names the running tasks (outermost first) with their counts, the elapsed time and, when a
task knows its total, an ETA (steps left times the time per step) that says what it covers: a task
opened with ``whole=True`` (the figures of ``reproduce``, the configurations of ``audit``) paces the
whole command ("ETA 12 s"); any other only itself, and says so ("PLD composition ETA 0.4 s"), since
the command may run further parts after it (the other direction of a PLD, a finer grid, the other
method of ``--method best``).  Without an ETA it shows the time left in the budget
(``--max-seconds``) instead.  The line is erased when the session ends, before the result, an
error or ``interrupted`` is printed: stdout, and so ``--json`` output, never carries progress.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sized
from typing import TextIO, TypeVar

from . import budget

__all__ = [
    "DELAY",
    "LINE_INTERVAL",
    "TTY_INTERVAL",
    "Task",
    "active",
    "format_seconds",
    "iterate",
    "note",
    "session",
    "task",
    "write",
]

_T = TypeVar("_T")

#: seconds a command runs before its first progress line (a quicker one prints nothing)
DELAY = 1.0
#: seconds between two redraws of the line on a terminal
TTY_INTERVAL = 0.25
#: seconds between two lines when stderr is not a terminal (``--progress`` into a file or pipe)
LINE_INTERVAL = 1.0


def format_seconds(s: float) -> str:
    """``7 s``, ``2 min 05 s``, ``1 h 02 min``."""
    if not math.isfinite(s):
        return "?"
    s = max(0.0, s)
    if s < 10:
        return f"{s:.1f} s"
    if s < 60:
        return f"{s:.0f} s"
    m, sec = divmod(round(s), 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


class Task:
    """One long loop: ``done`` of ``total`` steps (``total`` ``None``: unknown).

    Attributes:
        desc: what is being done (``"certified evaluations"``).
        total: the number of steps, if known; ``approximate`` marks an estimate.
        unit: the name of a step, plural (``"evals"``).
        note: the latest detail (the value being tried), shown after the count.
        whole: the task is the whole command (its ETA is the command's), not one part of it.
    """

    __slots__ = ("approximate", "desc", "done", "last", "note", "recent", "start", "total", "unit", "whole")

    def __init__(
        self, desc: str, total: int | None = None, unit: str = "", approximate: bool = False, whole: bool = False
    ) -> None:
        self.desc = desc
        self.whole = whole
        self.total = total
        self.unit = unit
        self.approximate = approximate
        self.done = 0
        self.note = ""
        self.start = time.monotonic()
        self.last = self.start
        self.recent = (0.0, 0.0)  # seconds per step of the last two updates

    def update(self, n: int = 1, note: str | None = None) -> None:
        """``n`` more steps done; ``note`` replaces the detail shown."""
        now = time.monotonic()
        if n > 0:
            self.recent = (self.recent[1], (now - self.last) / n)
            self.last = now
        self.done += n
        if note is not None:
            self.note = note

    def set_total(self, total: int | None, approximate: bool = False) -> None:
        self.total = total
        self.approximate = approximate

    def eta(self, now: float) -> float | None:
        """Seconds left (``None`` when unknown): the steps left times the larger of the mean time
        per step and the slower of the last two steps (steps that grow, as the squarings of a
        composition do, are not underestimated by the quick first ones)."""
        if self.total is None or self.done <= 0:
            return None
        left = max(0, self.total - self.done)
        per_step = max((self.last - self.start) / self.done, *self.recent)
        return max(0.0, per_step * left - (now - self.last))

    def text(self, now: float) -> str:
        """``desc 3/20 unit (15%), note``."""
        if self.total is None:
            count = f"{self.done} {self.unit}".rstrip() if self.done else ""
        else:
            approx = "~" if self.approximate else ""
            pct = 100.0 * self.done / self.total if self.total else 100.0
            count = f"{self.done}/{approx}{self.total} {self.unit}".rstrip() + f" ({min(pct, 100.0):.0f}%)"
        parts = [p for p in (self.desc, count) if p]
        line = " ".join(parts)
        return f"{line}, {self.note}" if self.note else line


class _Session:
    def __init__(self, name: str, stream: TextIO, tty: bool) -> None:
        self.name = name
        self.stream = stream
        self.tty = tty
        self.pid = os.getpid()
        self.start = time.monotonic()
        self.tasks: list[Task] = []
        self.note = ""
        self.lock = threading.Lock()  # the task list
        self.out_lock = threading.Lock()  # the stream
        self.stop = threading.Event()
        self.drawn = 0  # width of the line on screen (terminal), 0 when none
        self.thread = threading.Thread(target=self._run, name="rigorous-rdp-progress", daemon=True)

    def line(self, now: float) -> str:
        head = f"{self.name}: "
        with self.lock:
            tasks = [t for t in self.tasks if t.total is not None or t.done]
        body = " > ".join(t.text(now) for t in tasks) if tasks else (self.note or "working")
        timing = f"{format_seconds(now - self.start)} elapsed"
        # the outermost task that knows its total; its ETA is the command's only if it is the whole command
        paced = next(((t, e) for t, e in ((t, t.eta(now)) for t in tasks) if e is not None), None)
        eta = None if paced is None else paced[1]
        if paced is not None:
            part = "" if paced[0].whole else f"{paced[0].desc.split(' (')[0]} "
            timing += f", {part}ETA {format_seconds(paced[1])}"
        left = budget.remaining()
        if math.isfinite(left) and (eta is None or eta > left):
            timing += f", at most {format_seconds(left)} left in the time budget"
        return f"{head}{body} [{timing}]"

    def draw(self) -> None:
        now = time.monotonic()
        text = self.line(now)
        with self.out_lock:
            self._write(text)

    def _write(self, text: str) -> None:
        try:
            if self.tty:
                text = _fit(text, max(20, _columns(self.stream) - 1))
                self.stream.write("\r" + text + " " * max(0, self.drawn - len(text)))
                self.drawn = len(text)
            else:
                self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr: stop drawing, never fail the command
            self.stop.set()

    def message(self, text: str) -> None:
        """A line of its own (a warning), above the progress line."""
        with self.out_lock:
            self.clear()
            with contextlib.suppress(OSError, ValueError):
                self.stream.write(text + "\n")
                self.stream.flush()

    def clear(self) -> None:
        if self.tty and self.drawn:
            with contextlib.suppress(OSError, ValueError):
                self.stream.write("\r" + " " * self.drawn + "\r")
                self.stream.flush()
        self.drawn = 0

    def _run(self) -> None:
        interval = TTY_INTERVAL if self.tty else LINE_INTERVAL
        if self.stop.wait(DELAY):
            return
        while not self.stop.is_set():
            self.draw()
            if self.stop.wait(interval):
                return


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters in the middle: its end (the count, the elapsed time and
    the ETA, what a narrow terminal most needs) is kept, as is the start naming the command."""
    if len(text) <= width:
        return text
    head = (width - 3) // 3
    return text[:head] + "..." + text[len(text) - (width - 3 - head) :]


def _columns(stream: TextIO) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80
    return columns if columns > 0 else 80  # a terminal that does not know its size says 0


_session: _Session | None = None


_forking: _Session | None = None


def _before_fork() -> None:
    """A process forked (a worker pool) while the line is being written would inherit a held
    stderr lock: fork only between two draws."""
    global _forking
    s = _session
    if s is not None and s.pid == os.getpid():
        s.out_lock.acquire()
        _forking = s


def _after_fork_in_parent() -> None:
    global _forking
    if _forking is not None:
        _forking.out_lock.release()
        _forking = None


def _after_fork_in_child() -> None:
    global _forking
    if _forking is not None:
        _forking.out_lock = threading.Lock()  # the child never draws (its pid is not the session's)
        _forking = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child)


def active() -> bool:
    """True inside a :func:`session` that draws (in the process that opened it)."""
    return _session is not None and _session.pid == os.getpid()


@contextlib.contextmanager
def session(name: str, enabled: bool | None = None, stream: TextIO | None = None) -> Iterator[None]:
    """Draw the progress of the :func:`task` blocks run inside this block on ``stream`` (stderr).

    Args:
        name: the command (``"rigorous-rdp calibrate"``), the start of every line.
        enabled: ``True`` (``--progress``), ``False`` (``--quiet``), ``None``: only when
            ``stream`` is a terminal.
        stream: where to draw (default ``sys.stderr``).

    The line is erased (terminal) before the block is left, whatever ends it (a result, an
    exception, Ctrl-C).
    """
    global _session
    out = sys.stderr if stream is None else stream
    try:
        tty = bool(out.isatty())
    except (AttributeError, ValueError):
        tty = False
    if enabled is None:
        enabled = tty
    if not enabled or _session is not None:
        yield
        return
    s = _Session(name, out, tty)
    _session = s
    s.thread.start()
    try:
        yield
    finally:
        s.stop.set()
        s.thread.join(2.0)
        s.clear()
        _session = None


def iterate(
    items: Iterable[_T], desc: str, unit: str = "", total: int | None = None, whole: bool = False
) -> Iterator[_T]:
    """``for x in iterate(items, desc, unit):`` -- the items of ``items``, counted in a :func:`task`
    (``total``: default ``len(items)`` when it has one; ``whole``: see :func:`task`)."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    with task(desc, total, unit, whole=whole) as t:
        for x in items:
            yield x
            t.update()


def write(text: str) -> None:
    """Print ``text`` as a line of its own on stderr, without breaking the progress line."""
    s = _session
    if s is not None and s.pid == os.getpid():
        s.message(text)
    else:
        print(text, file=sys.stderr)


def note(text: str) -> None:
    """What the command does now, shown while no counting :func:`task` is running (a phase of a
    search, the value being tried); nothing outside a session."""
    s = _session
    if s is not None and s.pid == os.getpid():
        s.note = text


@contextlib.contextmanager
def task(
    desc: str, total: int | None = None, unit: str = "", approximate: bool = False, whole: bool = False
) -> Iterator[Task]:
    """A long loop of ``total`` steps (``None``: unknown): call ``update()`` on the yielded
    :class:`Task` after each.  ``whole=True``: the loop is the whole command, so its ETA is the
    command's; otherwise the ETA shown names the task it covers.  Drawn only inside a
    :func:`session` (see the module docstring)."""
    t = Task(desc, total, unit, approximate, whole)
    s = _session
    if s is None or s.pid != os.getpid():
        yield t
        return
    with s.lock:
        s.tasks.append(t)
    try:
        yield t
    finally:
        with s.lock:
            if t in s.tasks:
                s.tasks.remove(t)
