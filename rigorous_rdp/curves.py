r"""RDP curves: the interface between bound formulas and accountants.

An :class:`RdpCurve` is an RDP upper bound :math:`\alpha \mapsto \epsilon(\alpha)`
of one application of a mechanism.  It offers two evaluations:

* :meth:`RdpCurve.certified` -- a ball that contains the exact value of the bound
  formula at an exact rational order (this is what is reported);
* :meth:`RdpCurve.screen` -- fast float estimates used only to *choose* orders.
  Any order gives a valid bound, so a poor screen can only cost tightness,
  never soundness: the reported value is always recomputed by ``certified``.

:func:`rigorous_rdp.registry.rdp_curve` maps an event to its curve (through the event's
:class:`~rigorous_rdp.scheme.Scheme`); this module knows no event.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from flint import arb

from . import validation
from .arith import arb_min, workprec

__all__ = ["MinCurve", "RdpCurve", "bound_name"]


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
    search_order_cap: float | None = 2048

    @abc.abstractmethod
    def certified(self, alpha: Fraction) -> arb:
        """Ball containing the exact bound at order ``alpha`` (current working precision)."""

    def certified_many(self, alphas: Sequence[Fraction]) -> list[arb]:
        """Balls containing the exact bound at each order of ``alphas`` (current working
        precision), in the given order.  The default calls :meth:`certified` per order;
        curves that share work between orders override it."""
        return [self.certified(Fraction(a)) for a in alphas]

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        """Float estimates of the curve at ``alphas`` (for order selection only).

        The default evaluates :meth:`certified` at 64 bits and takes midpoints;
        subclasses override it with vectorised float code.
        """
        return self.screen_by_evaluation(alphas, self.certified, 64, upper=False)

    @staticmethod
    def screen_by_evaluation(
        alphas: np.ndarray, evaluate: Callable[[Fraction], arb], prec: int, *, upper: bool
    ) -> np.ndarray:
        """Float estimates from ball evaluations at ``prec`` bits: midpoints, or upper ends with
        ``upper``; ``inf`` where the order is not > 1, not finite, or the evaluation fails."""
        out = np.empty(len(alphas))
        with workprec(prec):
            for i, a in enumerate(np.asarray(alphas, dtype=float)):
                if not a > 1 or not math.isfinite(a):
                    out[i] = np.inf
                    continue
                try:
                    v = evaluate(Fraction(float(a)))
                    out[i] = float(v.upper() if upper else v.mid()) if v.is_finite() else np.inf
                except (ValueError, ArithmeticError):
                    out[i] = np.inf
        return out

    def pure_dp_epsilon(self) -> arb | None:
        """Ball containing the pure-DP epsilon (order infinity), or None if not pure DP."""
        return None

    def check_order(self, alpha: Fraction) -> None:
        validation.order(alpha, integer=self.integer_orders_only, bound=f"the {self.name} bound")


class MinCurve(RdpCurve):
    r"""Pointwise minimum of several valid RDP upper bounds of the same mechanism.

    If each curve is an upper bound on the RDP at every order, so is their
    minimum.  :meth:`certified` chooses per order by the float screens: it
    certifies the components whose screen is within ``SCREEN_SLACK`` (relative)
    of the smallest screen and returns the minimum of those balls.  A component
    that is not certified can only make the result larger, never invalid (each
    component alone is a valid bound), so a poor screen costs tightness, never
    soundness.  When no screen is finite every component is certified.
    Components that cannot be evaluated at the order (integer-only curves at a
    fractional order, or a ``ValueError`` from outside their domain) are skipped;
    the curve is integer-only only if every component is.

    :meth:`winner` names the component (and, recursively, the sub-bound) that gave
    the smallest certified upper end at an order.
    """

    #: components whose screen is within this relative factor of the best are certified
    SCREEN_SLACK = 0.05

    def __init__(self, curves: list[RdpCurve], name: str | None = None):
        if not curves:
            raise ValueError("curves must be a non-empty list of RDP curves.")
        for c in curves:
            if not c.is_upper_bound:
                raise ValueError(f"curves must be upper bounds; {c.name} is a lower bound.")
        self.curves = list(curves)
        self.name = name or "min(" + ", ".join(c.name for c in curves) + ")"
        self.citation = "; ".join(c.citation for c in curves)
        self.integer_orders_only = all(c.integer_orders_only for c in curves)
        caps = [c.search_order_cap for c in curves if c.search_order_cap is not None]
        self.search_order_cap = min(caps) if caps else None
        self._choice: dict[Fraction, list[int]] = {}
        self._winner: dict[Fraction, int] = {}

    def _usable(self, alpha: Fraction) -> list[int]:
        return [i for i, c in enumerate(self.curves) if not (c.integer_orders_only and alpha.denominator != 1)]

    def _candidates(self, alpha: Fraction) -> list[int]:
        got = self._choice.get(alpha)
        if got is not None:
            return got
        usable = self._usable(alpha)
        scr = {}
        for i in usable:
            try:
                with np.errstate(all="ignore"):
                    v = float(np.asarray(self.curves[i].screen(np.array([float(alpha)])), dtype=float)[0])
            except (ValueError, ArithmeticError):
                v = np.inf
            scr[i] = v if v == v else np.inf
        finite = [v for v in scr.values() if np.isfinite(v)]
        if not finite:
            chosen = usable
        else:
            best = min(finite)
            cut = best + abs(best) * self.SCREEN_SLACK
            chosen = [i for i in usable if scr[i] <= cut]
        if len(self._choice) > 4096:
            self._choice.clear()
        self._choice[alpha] = chosen
        return chosen

    def _certify(self, alpha: Fraction) -> tuple[arb, int]:
        alpha = Fraction(alpha)
        self.check_order(alpha)
        values = []
        first_error: Exception | None = None
        for i in self._candidates(alpha):
            try:
                v = self.curves[i].certified(alpha)
            except ValueError as exc:  # outside this component's domain: skip it
                first_error = first_error or exc
                continue
            values.append((i, v))
        if not values:
            raise first_error or ValueError(f"no component of {self.name} is defined at alpha = {float(alpha)!r}.")
        finite = [(i, v) for i, v in values if v.is_finite()]
        values = finite or values[:1]  # a NaN or infinite ball bounds nothing: drop it
        win, out = values[0]
        for i, v in values[1:]:
            if v.is_finite() and (not out.is_finite() or v.upper() < out.upper()):
                win = i
            out = out.min(v)
        self._winner[alpha] = win
        return out, win

    def certified(self, alpha: Fraction) -> arb:
        return self._certify(alpha)[0]

    def winner(self, alpha: Fraction) -> str:
        """Name of the bound that gave the certified value at ``alpha`` (recursing into
        components that report their own winner)."""
        alpha = Fraction(alpha)
        i = self._winner.get(alpha)
        if i is None:
            i = self._certify(alpha)[1]
        return bound_name(self.curves[i], alpha)

    def screen(self, alphas: np.ndarray) -> np.ndarray:
        out = np.full(len(alphas), np.inf)
        for c in self.curves:
            with np.errstate(all="ignore"):
                v = np.asarray(c.screen(alphas), dtype=float)
            out = np.minimum(out, np.where(np.isnan(v), np.inf, v))
        return out

    def pure_dp_epsilon(self) -> arb | None:
        values = [e for e in (c.pure_dp_epsilon() for c in self.curves) if e is not None]
        return arb_min(values) if values else None


def bound_name(curve: RdpCurve, alpha: Fraction) -> str:
    """Name of the bound that ``curve`` uses at order ``alpha``: ``curve.winner(alpha)`` when
    the curve chooses among bounds per order (:class:`MinCurve`), else ``curve.name``."""
    w = getattr(curve, "winner", None)
    if callable(w):
        name: str = w(Fraction(alpha))
        return name
    return curve.name
