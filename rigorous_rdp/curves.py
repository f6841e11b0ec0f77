r"""RDP curves: the interface between bound formulas and accountants.

An :class:`RdpCurve` is an RDP upper bound :math:`\alpha \mapsto \epsilon(\alpha)`
of one application of a mechanism.  It offers two evaluations:

* :meth:`RdpCurve.certified` -- a ball that contains the exact value of the bound
  formula at an exact rational order (this is what is reported);
* :meth:`RdpCurve.screen` -- fast float estimates used only to *choose* orders.
  Any order gives a valid bound, so a poor screen can only cost tightness,
  never soundness: the reported value is always recomputed by ``certified``.

:func:`rdp_curve` maps an event to its curve through the one table of
:mod:`rigorous_rdp.registry`.
"""

from __future__ import annotations

import abc
from fractions import Fraction
from typing import Optional

import numpy as np
from flint import arb

from .arith import arb_min, workprec
from .errors import UnsupportedEventError
from .events import DpEvent

__all__ = ["RdpCurve", "rdp_curve", "supports", "MinCurve"]


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
        return arb_min([c.certified(alpha) for c in self.curves])

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        out = np.full(len(alphas), np.inf)
        for c in self.curves:
            with np.errstate(all="ignore"):
                v = np.asarray(c.screen(alphas), dtype=float)
            out = np.minimum(out, np.where(np.isnan(v), np.inf, v))
        return out

    def pure_dp_epsilon(self) -> Optional[arb]:
        values = [e for e in (c.pure_dp_epsilon() for c in self.curves) if e is not None]
        return arb_min(values) if values else None


def rdp_curve(event: DpEvent) -> RdpCurve:
    """The certified RDP curve of one application of ``event`` (its row in
    :data:`rigorous_rdp.registry.ROWS`).

    Raises:
        UnsupportedEventError: if no certified bound is registered for it.
    """
    from .registry import curve_for_event

    return curve_for_event(event)


def supports(event: DpEvent) -> bool:
    """True if :func:`rdp_curve` has a certified bound for ``event`` (never raises)."""
    try:
        rdp_curve(event)
    except (UnsupportedEventError, ValueError):
        return False
    return True
