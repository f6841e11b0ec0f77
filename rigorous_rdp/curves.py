r"""RDP curves: the interface between bound formulas and accountants.

An :class:`RdpCurve` is an RDP upper bound :math:`\alpha \mapsto \epsilon(\alpha)`
of one application of a mechanism.  It offers two evaluations:

* :meth:`RdpCurve.certified` -- a ball that contains the exact value of the bound
  formula at an exact rational order (this is what is reported);
* :meth:`RdpCurve.screen` -- fast float estimates used only to *choose* orders.
  Any order gives a valid bound, so a poor screen can only cost tightness,
  never soundness: the reported value is always recomputed by ``certified``.

:func:`rdp_curve` maps an event to its curve by single dispatch on the event
type; modules that implement bounds register themselves with it.
"""

from __future__ import annotations

import abc
import functools
from fractions import Fraction
from typing import Optional

import numpy as np
from flint import arb

from .arith import to_arb, workprec
from .errors import UnsupportedEventError
from .events import DpEvent

__all__ = ["RdpCurve", "rdp_curve", "supports", "ScaledCurve", "MinCurve"]


class RdpCurve(abc.ABC):
    """RDP upper bound of one mechanism application as a function of the order.

    Attributes:
        name: short name of the bound (for output).
        citation: theorem and equation the curve implements.
        integer_orders_only: if True, ``certified`` accepts integer orders only.
        is_upper_bound: False for curves that are LOWER bounds on the RDP (shown
            for comparison); the accountant refuses to turn them into epsilon or
            delta, because they are not privacy guarantees.
        search_order_cap: largest order the accountant's order search screens
            for this curve (``None``: no cap beyond the search's own limit).  The
            default 2048 keeps curves whose screen cost grows with the order cheap.
    """

    name: str = "rdp"
    citation: str = ""
    integer_orders_only: bool = False
    is_upper_bound: bool = True
    search_order_cap: Optional[float] = 2048

    @abc.abstractmethod
    def certified(self, alpha: Fraction) -> arb:
        """Ball containing the exact bound at order ``alpha`` (current working precision)."""

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        """Float estimates of the curve at ``alphas`` (for order selection only).

        The default evaluates :meth:`certified` at 64 bits and takes midpoints;
        subclasses override it with vectorised float code.
        """
        out = np.empty(len(alphas))
        with workprec(64):
            for i, a in enumerate(alphas):
                try:
                    v = self.certified(Fraction(float(a)))
                    out[i] = float(v.mid()) if v.is_finite() else np.inf
                except (ValueError, ArithmeticError):
                    out[i] = np.inf
        return out

    def pure_dp_epsilon(self) -> Optional[arb]:
        """Ball containing the pure-DP epsilon (order infinity), or None if not pure DP."""
        return None

    def check_order(self, alpha: Fraction) -> None:
        if alpha <= 1:
            raise ValueError(f"alpha must be > 1. Found {float(alpha)!r}.")
        if self.integer_orders_only and alpha.denominator != 1:
            raise ValueError(f"alpha must be an integer >= 2 for the {self.name} bound. Found {float(alpha)!r}.")


class ScaledCurve(RdpCurve):
    """``count`` times a curve (composition of identical steps: RDP adds)."""

    def __init__(self, curve: RdpCurve, count: int):
        self.curve = curve
        self.count = int(count)
        self.name = curve.name
        self.citation = curve.citation
        self.integer_orders_only = curve.integer_orders_only
        self.is_upper_bound = curve.is_upper_bound

    def certified(self, alpha: Fraction) -> arb:
        return self.count * self.curve.certified(alpha)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        return self.count * self.curve.screen(alphas)

    def pure_dp_epsilon(self) -> Optional[arb]:
        e = self.curve.pure_dp_epsilon()
        return None if e is None else self.count * e


class MinCurve(RdpCurve):
    """Pointwise minimum of several valid RDP upper bounds of the same mechanism.

    If each curve is an upper bound on the RDP at every order, so is their
    minimum; the certified value is a ball containing the exact minimum.
    """

    def __init__(self, curves: "list[RdpCurve]"):
        if not curves:
            raise ValueError("curves must be a non-empty list of RDP curves.")
        for c in curves:
            if not c.is_upper_bound:
                raise ValueError(f"curves must be upper bounds; {c.name} is a lower bound.")
        self.curves = list(curves)
        self.name = "min(" + ", ".join(c.name for c in curves) + ")"
        self.citation = "; ".join(c.citation for c in curves)
        self.integer_orders_only = any(c.integer_orders_only for c in curves)
        caps = [c.search_order_cap for c in curves if c.search_order_cap is not None]
        self.search_order_cap = min(caps) if caps else None

    def certified(self, alpha: Fraction) -> arb:
        values = [c.certified(alpha) for c in self.curves]
        out = values[0]
        for v in values[1:]:
            out = out.min(v)
        return out

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        out = None
        for c in self.curves:
            with np.errstate(all="ignore"):
                v = np.asarray(c.screen(alphas), dtype=float)
            v = np.where(np.isnan(v), np.inf, v)
            out = v if out is None else np.minimum(out, v)
        return out

    def pure_dp_epsilon(self) -> Optional[arb]:
        values = [e for e in (c.pure_dp_epsilon() for c in self.curves) if e is not None]
        if not values:
            return None
        out = values[0]
        for v in values[1:]:
            out = out.min(v)
        return out


@functools.singledispatch
def rdp_curve(event: DpEvent) -> RdpCurve:
    """The certified RDP curve of one application of ``event``.

    Raises:
        UnsupportedEventError: if no certified bound is registered for it.
    """
    raise UnsupportedEventError(f"no certified RDP bound for {type(event).__name__}")


def supports(event: DpEvent) -> bool:
    """True if :func:`rdp_curve` has a certified bound for ``event`` (never raises)."""
    try:
        rdp_curve(event)
    except (UnsupportedEventError, ValueError):
        return False
    return True


def order_arb(alpha: Fraction) -> arb:
    """Ball for the exact order ``alpha``."""
    return to_arb(alpha)
