"""Domain exceptions of rigorous_rdp.

Every failure that could otherwise tempt a caller into using an unproven number
has its own exception type, so that it can be caught precisely.  Invalid user
input is an :class:`InvalidParameter` (a :class:`ValueError`) that carries the API
name of the parameter, the accepted range and the value found; its message speaks
the API's words (``noise_multiplier``, ``sampling_probability``), and the command
line renders the same error with its option names (``--sigma``, ``--q``) by
:meth:`InvalidParameter.render`, prints it as one line and exits with status 2.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext
from fractions import Fraction
from typing import Any

__all__ = [
    "BudgetExceeded",
    "InvalidParameter",
    "PrecisionExhausted",
    "UndecidedComparison",
    "UnsupportedEventError",
    "quote",
]

#: longest quotation of a user's input in an error message, in characters
MAX_QUOTE = 80


def quote(value: object) -> str:
    """A user's value as it appears in an error message: text as typed when it is plain
    (``1.5``; ``''`` or ``' x'`` as their repr), numbers as written, at most
    :data:`MAX_QUOTE` characters (longer inputs are cut in the middle, with their
    length); a huge integer or fraction is described by its number of digits instead
    of being converted to text (which Python refuses beyond 4300 digits)."""
    if isinstance(value, bool) or value is None:
        text = repr(value)
    elif isinstance(value, (int, Fraction)):
        text = _exact_text(Fraction(value))
    elif isinstance(value, str):
        plain = value.isprintable() and value.strip() == value and value != ""
        text = value if plain else repr(value)
    else:
        try:
            text = repr(value)
        except Exception:
            text = f"a {type(value).__name__}"
    if len(text) > MAX_QUOTE:
        tail = f"... ({len(text)} characters)"
        text = text[: MAX_QUOTE - len(tail)] + tail
    return text


def _exact_text(f: Fraction) -> str:
    """A rational as a short decimal when it is one (``1/100`` -> ``0.01``, ``10**400`` ->
    ``1e400``), else ``p/q``; huge terms are described by their size instead."""
    terms = (f.numerator, f.denominator)
    if max(abs(t).bit_length() for t in terms) > 20000:
        return f"a number with about {max(map(_digits, terms))} digits"
    den = f.denominator
    twos = (den & -den).bit_length() - 1
    rest = den >> twos
    while rest % 5 == 0:
        rest //= 5
    if rest == 1:  # a terminating decimal
        with localcontext() as ctx:
            ctx.prec = _digits(f.numerator) + 2 * _digits(den) + 5
            ctx.Emax, ctx.Emin = MAX_EMAX, MIN_EMIN
            d = (Decimal(f.numerator) / Decimal(den)).normalize()
        text = f"{d:e}" if abs(d.adjusted()) > 6 else f"{d:f}"
        text = text.replace("e+", "e")
        if len(text) <= MAX_QUOTE:
            return text
    if max(abs(t).bit_length() for t in terms) > 1000:
        return f"a number with about {max(map(_digits, terms))} digits"
    return str(f)


def _digits(n: int) -> int:
    return max(1, int(abs(n).bit_length() * 0.30103) + 1)


_ABSENT = object()


class InvalidParameter(ValueError):
    r"""A user parameter that is out of range, of the wrong type, or in conflict with another.

    The one exception for bad input, raised where the rule lives (the event, the
    accountant, the curve) and named in the API's words; callers that speak
    another vocabulary (the command line) render it with their own names.

    Attributes:
        parameter: the API name of the parameter (``noise_multiplier``, ``sampling_probability``,
            ``orders``, ``count``, ...).
        requirement: what is accepted, as the rest of a sentence whose subject is the parameter
            (``"must be in [0, 1]"``); ``{name}`` fields in it name the parameters of ``related``
            (it is formatted only when ``related`` is given: it then holds no user text).
        found: the value found (``None`` when the message quotes no value).
        related: further parameters that the requirement names.

    Example:
        >>> e = InvalidParameter("tau", "applies to {bound} tau only", "3", related=("bound",))
        >>> str(e)
        'tau applies to bound tau only. Found 3.'
        >>> e.render(lambda name: "--" + name)
        '--tau applies to --bound tau only. Found 3.'
    """

    def __init__(
        self, parameter: str, requirement: str, found: object = _ABSENT, *, related: tuple[str, ...] = ()
    ) -> None:
        self.parameter = parameter
        self.requirement = requirement.rstrip(".")
        self.found = None if found is _ABSENT else found
        self._has_found = found is not _ABSENT
        self.related = tuple(related)
        super().__init__(self.render())

    def render(self, name: Callable[[str], str] | None = None) -> str:
        """The message with every parameter named by ``name`` (default: the API names)."""
        names = {p: (name(p) if name else p) for p in (self.parameter, *self.related)}
        requirement = self.requirement.format(**names) if self.related else self.requirement
        text = f"{names[self.parameter]} {requirement}."
        if self._has_found:
            text += f" Found {quote(self.found)}."
        return text

    def __reduce__(self) -> Any:  # picklable across process pools
        return (_rebuild, (self.parameter, self.requirement, self.found, self._has_found, self.related))


def _rebuild(parameter: str, requirement: str, found: object, has_found: bool, related: tuple[str, ...]) -> Any:
    return InvalidParameter(parameter, requirement, found if has_found else _ABSENT, related=related)


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
