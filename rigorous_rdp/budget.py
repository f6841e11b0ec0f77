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

Budgets nest: an inner block can only shorten the deadline of the outer one.
Without any block there is no deadline (the Python API is unlimited unless the
caller sets a budget; the command line sets one, see ``--max-seconds``).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Iterator

from .errors import BudgetExceeded

__all__ = [
    "DEFAULT_SECONDS",
    "MAX_SECONDS",
    "RETRY_SECONDS",
    "check",
    "expired",
    "parse_seconds",
    "remaining",
    "time_budget",
]

#: default budget of a query on the command line, in seconds
DEFAULT_SECONDS = 60.0
#: largest budget accepted (one day)
MAX_SECONDS = 86400.0
#: interval at which the backstop timer fires again after the deadline
RETRY_SECONDS = 0.5

_deadline: float | None = None
_seconds: float | None = None
_expired = False


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


def check(where: str = "") -> None:
    """Raise :class:`BudgetExceeded` if the deadline has passed (cheap; call it in loops)."""
    global _expired
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
                signal.setitimer(signal.ITIMER_REAL, *old_timer)
        was_expired = _expired
        _deadline, _seconds, _expired = old
        # an inner budget that ran out leaves the outer block to decide on its own deadline
        _expired = _expired or (was_expired and _deadline is not None and time.monotonic() >= _deadline)
