"""Validation of user parameters, shared by every module.

Each function converts a user value exactly (see :func:`.arith.parse_rational`)
and raises ``ValueError`` whose message starts with the parameter name (which is
also the command-line option name), states the accepted range and the value
found.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from fractions import Fraction

from flint import arb

from .arith import Certified, parse_rational, refine

__all__ = ["certify", "integer_at_least", "nonnegative", "positive", "unit_interval"]


def _show(value: object) -> str:
    """A user's value as they wrote it (strings without quotes)."""
    if isinstance(value, str):
        return value
    if isinstance(value, Fraction):
        return str(value)
    return repr(value)


def integer_at_least(value: object, name: str, minimum: int) -> int:
    """An integer >= ``minimum`` (ints, integral rationals and strings such as "1e4")."""
    message = f"{name} must be an integer >= {minimum}. Found {_show(value)}."
    if isinstance(value, bool):
        raise ValueError(message)
    if isinstance(value, numbers.Integral):
        v = int(value)
    else:
        try:
            f = parse_rational(value, name)
        except ValueError:
            raise ValueError(message) from None
        if f.denominator != 1:
            raise ValueError(message)
        v = int(f)
    if v < minimum:
        raise ValueError(message)
    return v


def order(value: object, name: str = "alpha", *, integer: bool = False, bound: str = "this bound") -> Fraction:
    """A Renyi order: a rational > 1; with ``integer``, an integer >= 2 (``bound`` names what needs it)."""
    v = parse_rational(value, name)
    if v <= 1:
        raise ValueError(f"{name} must be > 1. Found {float(v)!r}.")
    if integer and v.denominator != 1:
        raise ValueError(f"{name} must be an integer >= 2 for {bound}. Found {float(v)!r}.")
    return v


def unit_interval(value: object, name: str, open_low: bool = False, open_high: bool = False) -> Fraction:
    """A rational in [0, 1], with either end open on request."""
    v = parse_rational(value, name)
    ok = (v > 0 if open_low else v >= 0) and (v < 1 if open_high else v <= 1)
    if not ok:
        lb, rb = ("(" if open_low else "["), (")" if open_high else "]")
        raise ValueError(f"{name} must be in {lb}0, 1{rb}. Found {_show(value)}.")
    return v


def positive(value: object, name: str) -> Fraction:
    """A rational > 0."""
    v = parse_rational(value, name)
    if v <= 0:
        raise ValueError(f"{name} must be > 0. Found {_show(value)}.")
    return v


def nonnegative(value: object, name: str) -> Fraction:
    """A rational >= 0."""
    v = parse_rational(value, name)
    if v < 0:
        raise ValueError(f"{name} must be >= 0. Found {_show(value)}.")
    return v


def certify(func: Callable[[], arb], digits: float, what: str) -> Certified:
    """Certified enclosure of ``func()``, evaluated at growing precision until the
    relative width is ``<= 10**-digits`` (see :func:`.arith.refine`)."""
    if isinstance(digits, bool) or not isinstance(digits, (int, float)) or not 1 <= digits <= 1000:
        raise ValueError(f"digits must be in [1, 1000]. Found {digits!r}.")
    return refine(lambda prec: func(), digits, what=what)
