"""Domain exceptions of rigorous_rdp.

Every failure that could otherwise tempt a caller into using an unproven number
has its own exception type, so that it can be caught precisely.  Invalid user
input is always a plain :class:`ValueError` whose message names the parameter,
the accepted range and the value found (the command line prints it as one line
and exits with status 2).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "PrecisionExhausted",
    "UndecidedComparison",
    "UnsupportedEventError",
]


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
