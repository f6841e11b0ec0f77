r"""Time budgets: every query answers within a stated time or stops loudly.

A budget is a deadline on the monotonic clock, set for the duration of a
``with time_budget(seconds):`` block.  Two mechanisms enforce it:

* cooperative checks -- :func:`check` is called in the precision loop
  :func:`.arith.refine` and in long loops; past the deadline it raises
  :class:`~rigorous_rdp.errors.BudgetExceeded` naming what was being computed;
* a backstop for code without checks (a long integration, a reference
  computation in mpmath): in the main thread of a POSIX process, an interval
  timer (``SIGALRM``) raises the same exception at the deadline and again every
  :data:`RETRY_SECONDS` until the block is left, so a handler that swallows the
  first one cannot keep the computation alive.  The timer never raises inside an
  import, a finalizer or a weakref/GC callback (where Python cannot propagate an
  exception, or where it would leave a half-imported module); it fires again
  :data:`RETRY_SECONDS` later.

A stopped computation never yields a number: :class:`BudgetExceeded` is neither a
``ValueError`` nor an ``ArithmeticError`` (which some code turns into "no bound
from this route"), and :func:`expired` tells a caller that an exception which
escaped from C code (for example a ``SystemError`` raised around a callback of
``acb.integral``) was caused by the budget.

Ctrl-C is the other way a computation stops: inside :func:`interruptible` (the command line runs
every command in one) SIGINT sets a flag before it raises ``KeyboardInterrupt``, so an interrupt
that was swallowed (by C code that returned a ``SystemError``, or by a handler that cannot
propagate it) is raised again by the next :func:`check`, and :func:`interrupted` tells a caller
that an exception it caught was caused by Ctrl-C.

Memory is budgeted too: code that allocates in proportion to its input (a list per batch
element, an array per trial, a grid per cell) first estimates what it needs and calls
:func:`check_memory`, which refuses with :class:`MemoryBudgetExceeded` (one line naming
``--max-memory``) when the estimate exceeds the cap: :data:`DEFAULT_MEMORY` unless a
``with memory_budget(size):`` block (the command line's ``--max-memory SIZE``) sets another.

Budgets nest: an inner block can only shorten the deadline of the outer one.
Without any block there is no deadline (the Python API is unlimited unless the
caller sets a budget; the command line sets one, see ``--max-seconds``).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .errors import BudgetExceeded

__all__ = [
    "DEFAULT_MEMORY",
    "DEFAULT_SECONDS",
    "MAX_MEMORY",
    "MAX_SECONDS",
    "MIN_MEMORY",
    "RETRY_SECONDS",
    "MemoryBudgetExceeded",
    "caused_by_interrupt",
    "check",
    "check_memory",
    "expired",
    "format_size",
    "ignore_sigint",
    "interrupted",
    "interruptible",
    "memory_budget",
    "memory_cap",
    "parse_seconds",
    "parse_size",
    "quiet_startup_interrupt",
    "remaining",
    "stop_executor",
    "time_budget",
]

#: default budget of a query on the command line, in seconds
DEFAULT_SECONDS = 60.0
#: largest budget accepted (one day)
MAX_SECONDS = 86400.0
#: interval at which the backstop timer fires again after the deadline
RETRY_SECONDS = 0.5

#: default memory budget of a computation, in bytes (4 GiB)
DEFAULT_MEMORY = 4 * 2**30
#: smallest and largest memory budget accepted (16 MiB, 1 TiB)
MIN_MEMORY = 16 * 2**20
MAX_MEMORY = 2**40

_deadline: float | None = None
_memory_cap: int = DEFAULT_MEMORY
_seconds: float | None = None
_expired = False
_interrupted = False


def parse_seconds(value: object, name: str = "max-seconds") -> float:
    """A budget in seconds, ``0 < S <= 86400`` (a number; strings such as "2.5").

    Raises:
        ValueError: naming ``name`` and the accepted range.
    """
    message = f"{name} must be a number of seconds in (0, {int(MAX_SECONDS)}]. Found {value!r}."
    if isinstance(value, bool):
        raise ValueError(message)
    try:
        text = str(value).strip()
        if len(text) > 40:
            raise ValueError(message)
        s = float(text)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(message) from None
    if not (math.isfinite(s) and 0 < s <= MAX_SECONDS):
        raise ValueError(message)
    return s


class MemoryBudgetExceeded(BudgetExceeded):
    """A computation would need more memory than its budget (see :func:`check_memory`);
    raised before the memory is allocated.

    Its message names parameters in the API's words (``batch_size``, ``max_memory``);
    :meth:`render` names them otherwise (the command line: ``--batch-size``).

    Attributes:
        template: the message with a ``{name}`` field for each parameter of ``related``.
        related: the parameters the message names.
    """

    def __init__(self, template: str, needed: float, cap: int, where: str = "", related: tuple[str, ...] = ()):
        self.template = template
        self.related = tuple(related)
        super().__init__(self.render(), seconds=None, where=where)
        self.needed = needed
        self.cap = cap

    def render(self, name: Callable[[str], str] | None = None) -> str:
        """The message with every parameter named by ``name`` (default: the API names)."""
        return self.template.format(**{p: (name(p) if name else p) for p in self.related})

    def __reduce__(self) -> Any:  # picklable across process pools
        return (type(self), (self.template, self.needed, self.cap, self.where, self.related))


_UNITS = {
    "": 1,
    "B": 1,
    "K": 2**10,
    "KB": 2**10,
    "M": 2**20,
    "MB": 2**20,
    "G": 2**30,
    "GB": 2**30,
    "T": 2**40,
    "TB": 2**40,
}


def format_size(nbytes: float) -> str:
    """``nbytes`` in the largest binary unit that keeps it >= 1 (``3.5G``, ``200M``)."""
    for unit in ("T", "G", "M", "K"):
        if nbytes >= _UNITS[unit]:
            return f"{nbytes / _UNITS[unit]:.3g}{unit}"
    return f"{nbytes:.0f}B"


def parse_size(value: object, name: str = "max-memory") -> int:
    """A memory size in bytes: a number with an optional unit K, M, G or T (powers of 1024;
    ``B``/``KB``/... accepted, case-insensitive), between 16M and 1T.

    Raises:
        ValueError: naming ``name`` and the accepted range.
    """
    message = f"{name} must be a size such as 512M or 4G (K, M, G, T: powers of 1024) in [16M, 1T]. Found {value!r}."
    if isinstance(value, bool):
        raise ValueError(message)
    text = str(value).strip().upper()
    if len(text) > 40:
        raise ValueError(message)
    unit = text.lstrip("0123456789.E+-_")
    number = text[: len(text) - len(unit)] if unit else text
    if unit not in _UNITS:
        raise ValueError(message)
    try:
        x = float(number)
    except ValueError:
        raise ValueError(message) from None
    if not math.isfinite(x):
        raise ValueError(message)
    size = x * _UNITS[unit]
    if not MIN_MEMORY <= size <= MAX_MEMORY:
        raise ValueError(message)
    return int(size)


def memory_cap() -> int:
    """The memory budget in force, in bytes."""
    return _memory_cap


@contextlib.contextmanager
def memory_budget(size: object | None) -> Iterator[None]:
    """Run the block with a memory budget of ``size`` (bytes, or text such as ``"2G"``; ``None``:
    keep the current one, :data:`DEFAULT_MEMORY` outside any block).

    Raises:
        ValueError: when ``size`` is not in [16M, 1T].
    """
    global _memory_cap
    if size is None:
        yield
        return
    cap = parse_size(size)
    old = _memory_cap
    _memory_cap = cap
    try:
        yield
    finally:
        _memory_cap = old


def check_memory(nbytes: float, what: str, less: str = "", related: tuple[str, ...] = ()) -> None:
    """Refuse, before allocating, a computation estimated to need ``nbytes`` bytes when that
    exceeds the memory budget.

    Args:
        nbytes: the estimate (of the dominant allocations).
        what: what needs it, with the parameter that makes it large as a ``{name}`` field
            (``"... at {batch_size} 1e+09"``).
        less: how to ask for less (appended to the message; ``{name}`` fields likewise).
        related: the parameters named by ``{name}`` fields in ``what`` and ``less`` (no other
            braces may appear there).

    Raises:
        MemoryBudgetExceeded: one line naming ``max_memory`` (the command line: ``--max-memory``).
    """
    if nbytes > _memory_cap:
        hint = f" or {less}" if less else ""
        text = (
            f"{what} needs about {format_size(nbytes)} of memory, more than the memory budget of"
            f" {format_size(_memory_cap)}; raise it with {{max_memory}} SIZE (up to 1T){hint}"
        )
        where = what.format(**{p: p for p in related})
        raise MemoryBudgetExceeded(text, nbytes, _memory_cap, where, (*related, "max_memory"))


def remaining() -> float:
    """Seconds left before the deadline (``inf`` without a budget, possibly negative)."""
    if _deadline is None:
        return math.inf
    return _deadline - time.monotonic()


def expired() -> bool:
    """True once the innermost active budget has run out (also after an interrupt)."""
    return _expired or (_deadline is not None and time.monotonic() >= _deadline)


def _exceeded(where: str) -> BudgetExceeded:
    what = f" while computing {where}" if where else ""
    return BudgetExceeded(
        f"time budget of {_seconds:g} s exceeded{what}; raise the budget "
        f"(0 < seconds <= {int(MAX_SECONDS)}) or ask for less (fewer orders, fewer digits)",
        seconds=_seconds,
        where=where,
    )


def interrupted() -> bool:
    """True once Ctrl-C was pressed inside :func:`interruptible` (even if the interrupt was swallowed)."""
    return _interrupted


def caused_by_interrupt(exc: BaseException) -> bool:
    """True if ``exc`` is, or was raised while handling, a ``KeyboardInterrupt`` (for example the
    ``SystemError`` of a C function whose Python callback was interrupted), or Ctrl-C was pressed."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return _interrupted


def _on_sigint(signum, frame) -> None:  # pragma: no cover - signal timing
    global _interrupted
    _interrupted = True
    raise KeyboardInterrupt


def _startup_sigint(signum, frame) -> None:  # pragma: no cover - signal timing
    sys.stderr.write("rigorous-rdp: interrupted\n")
    raise SystemExit(130)


def quiet_startup_interrupt() -> None:
    """When this process is the command line (``rigorous-rdp ...`` or ``python -m rigorous_rdp``),
    make Ctrl-C during start-up (imports, before :func:`interruptible` takes over) end the
    process with one line and status 130 instead of a traceback.  Does nothing for a program
    that imports the package, or when SIGINT is not Python's default handler."""
    argv = list(getattr(sys, "orig_argv", []) or [])
    name = sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1] if sys.argv else ""
    as_module = "-m" in argv and argv.index("-m") + 1 < len(argv) and argv[argv.index("-m") + 1] == "rigorous_rdp"
    if not (as_module or name.startswith("rigorous-rdp")):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _startup_sigint)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Run the block with Ctrl-C recorded (see :func:`interrupted`) as well as raised.

    In a thread other than the main one (where signal handlers cannot be set) the block runs as is.
    """
    global _interrupted
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.getsignal(signal.SIGINT)
    was = _interrupted
    _interrupted = False
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        if old is _startup_sigint or old is None:
            old = signal.default_int_handler
        signal.signal(signal.SIGINT, old)
        _interrupted = was


def check(where: str = "") -> None:
    """Raise :class:`BudgetExceeded` if the deadline has passed, ``KeyboardInterrupt`` if Ctrl-C
    was pressed and swallowed (cheap; call it in loops)."""
    global _expired
    if _interrupted:
        raise KeyboardInterrupt
    if _deadline is not None and time.monotonic() >= _deadline:
        _expired = True
        raise _exceeded(where)


#: functions in which an exception cannot propagate (Python prints "Exception ignored"
#: and carries on): the timer skips them and fires again RETRY_SECONDS later
_NO_RAISE = ("__del__", "remove", "_remove", "callback", "_callback", "__exit__")


def _on_alarm(signum, frame) -> None:  # pragma: no cover - timing dependent
    global _expired
    if _deadline is None:
        return
    _expired = True
    code = getattr(frame, "f_code", None)
    if code is not None and (
        code.co_name in _NO_RAISE
        or code.co_name.endswith("callback")
        or code.co_filename.endswith(("weakref.py", "threading.py"))
    ):
        return
    if _importing(frame):
        return  # an import cut short leaves a half-initialised module (e.g. pybind11 types registered twice)
    raise _exceeded("")


def _importing(frame) -> bool:
    """True if ``frame`` runs inside an import statement (some frame of importlib's bootstrap)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Run the block with a deadline ``seconds`` from now (``None``: keep the outer one).

    Raises:
        BudgetExceeded: from inside the block, when the deadline passes.
        ValueError: when ``seconds`` is not in (0, 86400].
    """
    global _deadline, _seconds, _expired
    if seconds is None:
        yield
        return
    seconds = parse_seconds(seconds)
    old = (_deadline, _seconds, _expired)
    new_deadline = time.monotonic() + seconds
    if _deadline is not None and _deadline <= new_deadline:
        new_deadline, seconds = _deadline, _seconds if _seconds is not None else seconds
    _deadline, _seconds, _expired = new_deadline, seconds, False
    use_timer = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    old_handler = None
    old_timer = (0.0, 0.0)
    if use_timer:
        old_handler = signal.signal(signal.SIGALRM, _on_alarm)
        delay = max(1e-3, new_deadline - time.monotonic())
        old_timer = signal.setitimer(signal.ITIMER_REAL, delay, RETRY_SECONDS)
    try:
        yield
    finally:
        if use_timer:
            signal.setitimer(signal.ITIMER_REAL, 0.0, 0.0)
            signal.signal(signal.SIGALRM, old_handler if old_handler is not None else signal.SIG_DFL)
            if old_timer[0] > 0:
                # an outer budget's timer fires at its own deadline (not later by this block's time)
                left = old_timer[0] if old[0] is None else max(1e-3, old[0] - time.monotonic())
                signal.setitimer(signal.ITIMER_REAL, left, old_timer[1])
        was_expired = _expired
        _deadline, _seconds, _expired = old
        # an inner budget that ran out leaves the outer block to decide on its own deadline
        _expired = _expired or (was_expired and _deadline is not None and time.monotonic() >= _deadline)


def ignore_sigint() -> None:
    """Worker initializer: Ctrl-C in a terminal reaches the whole process group; the parent
    handles it (and stops its workers), a worker must not print a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_executor(ex: cf.Executor, pending: Iterable[cf.Future], own: bool, aborted: bool) -> None:
    """Cancel the futures still pending; an executor of our own is shut down, and on an
    abort (budget, Ctrl-C, an error) its worker processes are terminated at once."""
    for fut in pending:
        fut.cancel()
    if not own:
        return
    if not aborted:
        ex.shutdown(wait=True)
        return
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(1.0)
