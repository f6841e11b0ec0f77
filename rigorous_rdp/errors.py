"""Domain exceptions of rigorous_rdp.

Every failure that could otherwise tempt a caller into using an unproven number
has its own exception type, so that it can be caught precisely.  Invalid user
input is always a plain :class:`ValueError` whose message names the parameter,
the accepted range and the value found (the command line prints it as one line
and exits with status 2).
"""

from __future__ import annotations

from typing import Any

__all__ = ["BudgetExceeded", "PrecisionExhausted", "UndecidedComparison", "UnsupportedEventError"]


class PrecisionExhausted(ArithmeticError):
    """The requested accuracy was not reached below the maximum working precision.

    Attributes:
        last: the last enclosure computed (still a valid enclosure, only wider
            than requested), or ``None`` if no finite enclosure was obtained.
        prec: the last working precision tried, in bits.
    """

    def __init__(self, message: str, last: Any = None, prec: int | None = None):
        super().__init__(message)
        self.last = last
        self.prec = prec


class UndecidedComparison(ArithmeticError):
    """Two enclosures overlap, so the order of the exact values is not known."""


class UnsupportedEventError(ValueError):
    """The accountant has no certified bound for this event (or combination)."""


class BudgetExceeded(RuntimeError):
    """A computation ran past its time budget (see :mod:`rigorous_rdp.budget`).

    Not a :class:`ValueError` or :class:`ArithmeticError`, so that code which turns
    those into "no bound here" never mistakes a stopped computation for an answer.

    Attributes:
        seconds: the budget that was exceeded, in seconds.
        where: what was being computed when the budget ran out (may be empty).
    """

    def __init__(self, message: str, seconds: float | None = None, where: str = ""):
        super().__init__(message)
        self.seconds = seconds
        self.where = where
