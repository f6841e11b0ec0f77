r"""The RDP accountant: composition of events, order optimisation, conversion.

RDP composes additively at every order (Mironov 2017, Prop. 1; blog part 2,
Claim 20).  The accountant keeps a multiset of (curve, count) pairs, and for a
target delta returns the certified epsilon at a chosen order.

Choosing the order is an optimisation over a float *screen* of the curves: any
order gives a valid bound, so the choice needs no certification.  The value at
the chosen order is then recomputed by the certified path, and of the few best
candidates the one with the smallest certified upper endpoint is returned.
With ``continuous=True`` (default) the screen is also minimised over real
orders between the grid points around the grid optimum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
from flint import arb

from .arith import DEFAULT_DIGITS, MAX_PREC, Certified, parse_rational, refine, to_arb
from .conversion import CONVERSIONS, delta_from_rdp, epsilon_from_rdp
from .curves import RdpCurve, rdp_curve
from .errors import PrecisionExhausted, UnsupportedEventError
from .events import ComposedEvent, DpEvent, SelfComposedEvent

# registration of the bounds with rdp_curve
from . import mechanisms as _mechanisms  # noqa: F401

__all__ = [
    "DEFAULT_ORDERS",
    "RdpAccountant",
    "EpsilonResult",
    "DeltaResult",
    "RdpResult",
]

#: dp-accounting's default order grid, as exact rationals.
DEFAULT_ORDERS: Tuple[Fraction, ...] = tuple(
    [1 + Fraction(x, 10) for x in range(1, 100)]
    + [Fraction(x) for x in range(11, 64)]
    + [Fraction(x) for x in (128, 256, 512, 1024)]
)


@dataclass(frozen=True)
class RdpResult:
    """Certified total RDP at one order."""

    order: Fraction
    rdp: Certified
    is_upper_bound: bool = True

    def to_json(self) -> dict:
        out = {"alpha": _order_json(self.order), "rdp": self.rdp.to_json()}
        if not self.is_upper_bound:
            out["lower_bound_only"] = True
        return out


@dataclass(frozen=True)
class EpsilonResult:
    """Certified epsilon for a target delta.

    Attributes:
        epsilon: enclosure of the epsilon bound; ``epsilon.upper()`` is the guarantee.
        order: the RDP order used (``None`` for the pure-DP route).
        conversion: name of the RDP-to-DP conversion used (see :mod:`.conversion`).
        rdp: the certified total RDP at ``order`` (``None`` for the pure-DP route).
    """

    epsilon: Certified
    order: Optional[Fraction]
    conversion: str
    rdp: Optional[Certified]
    delta: Fraction = Fraction(0)

    def to_json(self) -> dict:
        out = {
            "epsilon": self.epsilon.to_json(),
            "alpha": _order_json(self.order),
            "conversion": self.conversion,
            "delta": _frac_json(self.delta),
        }
        if self.rdp is not None:
            out["rdp"] = self.rdp.to_json()
        out["prec"] = self.epsilon.prec
        return out


@dataclass(frozen=True)
class DeltaResult:
    """Certified delta for a target epsilon (fields as in :class:`EpsilonResult`)."""

    delta: Certified
    order: Optional[Fraction]
    conversion: str
    rdp: Optional[Certified]
    epsilon: Fraction = Fraction(0)

    def to_json(self) -> dict:
        out = {
            "delta": self.delta.to_json(),
            "alpha": _order_json(self.order),
            "conversion": self.conversion,
            "epsilon": _frac_json(self.epsilon),
        }
        if self.rdp is not None:
            out["rdp"] = self.rdp.to_json()
        out["prec"] = self.delta.prec
        return out


def _order_json(order: Optional[Fraction]):
    """JSON form of an exact order: int, a number whose decimal text is exact, or "p/q"."""
    if order is None:
        return "inf"
    if order.denominator == 1:
        return int(order)
    f = float(order)
    if Fraction(f) == order or Fraction(repr(f)) == order:
        return f
    return str(order)


def _frac_json(x: Fraction):
    """JSON echo of an exact input: a float if exact, else "p/q"; for numbers beyond
    float range or with thousands of digits, a 17-digit decimal (display only)."""
    try:
        f = float(x)
    except OverflowError:
        f = math.inf
    if math.isfinite(f) and Fraction(f) == x:
        return f
    if max(x.numerator.bit_length(), x.denominator.bit_length()) < 3000:
        return str(x)
    from .arith import _round_decimal

    return "~" + _round_decimal(x, 17, up=True)


class RdpAccountant:
    r"""Certified RDP accountant.

    Args:
        orders: the grid of orders (exact rationals > 1; default
            :data:`DEFAULT_ORDERS`, dp-accounting's grid).
        continuous: also optimise over real orders between grid points.
        conversion: ``"best"`` (default), ``"mironov"``, ``"cks"`` or ``"balle"``.
        digits: relative width of reported enclosures, ``<= 10**-digits``.
        max_prec: maximum working precision in bits.

    Example:
        >>> from rigorous_rdp import RdpAccountant, GaussianEvent, PoissonSampledEvent
        >>> acc = RdpAccountant()
        >>> _ = acc.compose(PoissonSampledEvent(GaussianEvent("1.1"), "0.01"), 10000)
        >>> res = acc.get_epsilon_and_order("1e-5")
        >>> 5.63 < res.epsilon.upper_float() < 5.64
        True
    """

    def __init__(
        self,
        orders: Optional[Iterable[object]] = None,
        *,
        continuous: bool = True,
        conversion: str = "best",
        digits: float = DEFAULT_DIGITS,
        max_prec: int = MAX_PREC,
    ):
        if orders is None:
            self.orders: Tuple[Fraction, ...] = DEFAULT_ORDERS
        else:
            self.orders = tuple(sorted({parse_rational(a, "alpha") for a in orders}))
            if not self.orders:
                raise ValueError("alpha must be a non-empty list of orders > 1. Found [].")
            for a in self.orders:
                if a <= 1:
                    raise ValueError(f"alpha must be > 1. Found {float(a)!r}.")
        if conversion not in CONVERSIONS:
            raise ValueError(f"conversion must be one of {', '.join(CONVERSIONS)}. Found {conversion!r}.")
        if not (isinstance(digits, (int, float)) and 1 <= digits <= 1000):
            raise ValueError(f"digits must be in [1, 1000]. Found {digits!r}.")
        self.continuous = bool(continuous)
        self.conversion = conversion
        self.digits = digits
        self.max_prec = int(max_prec)
        self._counts: Dict[DpEvent, int] = {}
        self._curves: Dict[DpEvent, RdpCurve] = {}

    # -- composition ---------------------------------------------------------

    def supports(self, event: DpEvent) -> bool:
        """True if ``event`` can be composed (never raises)."""
        try:
            self._flatten(event, 1, {})
        except (UnsupportedEventError, ValueError):
            return False
        return True

    def compose(self, event: DpEvent, count: int = 1) -> "RdpAccountant":
        """Add ``count`` adaptive applications of ``event``.

        Raises:
            UnsupportedEventError: if a component has no certified bound.
        """
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"steps must be an integer >= 0. Found {count!r}.")
        new: Dict[DpEvent, Tuple[RdpCurve, int]] = {}
        self._flatten(event, count, new)
        for ev, (curve, c) in new.items():
            self._curves[ev] = curve
            self._counts[ev] = self._counts.get(ev, 0) + c
        return self

    def _flatten(self, event: DpEvent, count: int, out: Dict[DpEvent, Tuple[RdpCurve, int]]) -> None:
        if isinstance(event, SelfComposedEvent):
            self._flatten(event.event, count * event.count, out)
        elif isinstance(event, ComposedEvent):
            for e in event.events:
                self._flatten(e, count, out)
        elif isinstance(event, DpEvent):
            curve = self._curves.get(event) or (out[event][0] if event in out else rdp_curve(event))
            prev = out.get(event, (curve, 0))[1]
            out[event] = (curve, prev + count)
        else:
            raise ValueError(f"event must be a DpEvent. Found {event!r}.")

    @property
    def integer_orders_only(self) -> bool:
        return any(self._curves[e].integer_orders_only for e, c in self._counts.items() if c > 0)

    def _active(self) -> List[Tuple[RdpCurve, int]]:
        return [(self._curves[e], c) for e, c in self._counts.items() if c > 0]

    # -- totals --------------------------------------------------------------

    def _total_ball(self, alpha: Fraction) -> arb:
        total = arb(0)
        for curve, c in self._active():
            total += c * curve.certified(alpha)
        return total

    def rdp(self, alpha: object, digits: Optional[float] = None) -> RdpResult:
        """Certified total RDP at order ``alpha`` (exact rational > 1)."""
        a = parse_rational(alpha, "alpha")
        if a <= 1:
            raise ValueError(f"alpha must be > 1. Found {float(a)!r}.")
        if self.integer_orders_only and a.denominator != 1:
            raise ValueError(f"alpha must be an integer >= 2 for this bound. Found {float(a)!r}.")
        d = self.digits if digits is None else digits
        cert = refine(lambda prec: self._total_ball(a), d, max_prec=self.max_prec, what=f"RDP at alpha={float(a)}")
        return RdpResult(a, cert, all(c.is_upper_bound for c, _ in self._active()))

    def screen(self, alphas: Sequence[float]) -> np.ndarray:
        """Float estimate of the total RDP at ``alphas`` (order selection only)."""
        a = np.asarray([float(x) for x in alphas], dtype=float)
        total = np.zeros(len(a))
        for curve, c in self._active():
            with np.errstate(all="ignore"):
                v = np.asarray(curve.screen(a), dtype=float)
            total = total + c * np.where(np.isnan(v), np.inf, v)
        return total

    def _require_upper_bounds(self) -> None:
        for curve, _ in self._active():
            if not curve.is_upper_bound:
                raise ValueError(
                    f"bound {curve.name} is a lower bound on the RDP, not a privacy guarantee;"
                    " it cannot give epsilon or delta (use an upper bound)."
                )

    def _pure_dp_total(self) -> Optional[arb]:
        total = arb(0)
        for curve, c in self._active():
            e = curve.pure_dp_epsilon()
            if e is None:
                return None
            total += c * e
        return total

    # -- order selection -----------------------------------------------------

    def _grid(self) -> List[Fraction]:
        grid = list(self.orders)
        if self.integer_orders_only:
            grid = sorted({a for a in grid if a.denominator == 1} | {Fraction(math.ceil(a)) for a in grid})
            grid = [a for a in grid if a >= 2]
        return grid

    def _candidates(self, objective) -> List[Fraction]:
        """Orders to certify: the best grid orders and the continuous optimum."""
        grid = self._grid()
        vals = np.asarray(objective(np.array([float(a) for a in grid], dtype=float)), dtype=float)
        vals = np.where(np.isnan(vals), np.inf, vals)
        order_idx = np.argsort(vals, kind="stable")
        cands: List[Fraction] = [grid[i] for i in order_idx[:2]]
        if self.continuous and np.isfinite(vals[order_idx[0]]):
            i = int(order_idx[0])
            lo = float(grid[i - 1]) if i > 0 else 1.0 + (float(grid[0]) - 1.0) / 100.0
            hi = float(grid[i + 1]) if i + 1 < len(grid) else float(grid[i]) * 2.0
            best = self._continuous_min(objective, lo, hi)
            if best is not None:
                if self.integer_orders_only:
                    cands += [Fraction(math.floor(best)), Fraction(math.ceil(best))]
                else:
                    cands.append(Fraction(f"{best:.6g}"))
        out: List[Fraction] = []
        for c in cands:
            if c > 1 and c not in out and (not self.integer_orders_only or (c.denominator == 1 and c >= 2)):
                out.append(c)
        return out

    @staticmethod
    def _continuous_min(objective, lo: float, hi: float) -> Optional[float]:
        if not hi > lo > 1.0:
            return None

        from scipy import optimize  # imported here: it is slow to import and only needed here

        def f(u: float) -> float:
            v = float(objective(np.array([1.0 + math.exp(u)]))[0])
            return v if math.isfinite(v) else 1e300

        res = optimize.minimize_scalar(f, bounds=(math.log(lo - 1.0), math.log(hi - 1.0)), method="bounded", options={"xatol": 1e-4})
        if not res.success:
            return None
        return 1.0 + math.exp(res.x)

    # -- epsilon and delta ---------------------------------------------------

    def get_epsilon_and_order(self, target_delta: object) -> EpsilonResult:
        """Smallest certified epsilon over the candidate orders, for ``target_delta``.

        Raises:
            ValueError: if delta is outside (0, 1).
            PrecisionExhausted: if no candidate reaches the requested width.
        """
        delta = parse_rational(target_delta, "delta")
        if not 0 < delta < 1:
            raise ValueError(f"delta must be in (0, 1). Found {float(delta)!r}.")
        self._require_upper_bounds()
        if not self._active():
            return EpsilonResult(Certified(arb(0), 0), None, "none", None, delta)
        # log(delta) from the exact rational: float(delta) underflows for delta = 1e-400
        log_fd = math.log(delta.numerator) - math.log(delta.denominator)

        def objective(alphas: np.ndarray) -> np.ndarray:
            a = np.asarray(alphas, dtype=float)
            r = self.screen(a)
            with np.errstate(all="ignore"):
                cks = r + np.log1p(-1.0 / a) - (log_fd + np.log(a)) / (a - 1.0)
                mir = r - log_fd / (a - 1.0)
                # "best" also applies the total-variation bound (epsilon 0 where sqrt(1 - e^-r) <= delta)
                tv = np.where(0.5 * np.log(-np.expm1(-r)) <= log_fd, 0.0, np.inf)
            return np.minimum(np.minimum(cks, mir), tv) if self.conversion == "best" else (mir if self.conversion == "mironov" else cks)

        best: Optional[EpsilonResult] = None
        errors: List[PrecisionExhausted] = []
        for a in self._candidates(objective):
            try:
                res = self._certify_epsilon(a, delta)
            except PrecisionExhausted as exc:
                errors.append(exc)
                continue
            if best is None or res.epsilon.upper() < best.epsilon.upper():
                best = res
        pure = self._pure_dp_total()
        if pure is not None:
            cert = refine(lambda prec: self._pure_dp_total(), self.digits, max_prec=self.max_prec, what="pure-DP epsilon")
            if best is None or cert.upper() < best.epsilon.upper():
                best = EpsilonResult(cert, None, "pure-dp", None, delta)
        if best is None:
            raise errors[0] if errors else PrecisionExhausted("epsilon: no finite candidate order")
        return best

    def _certify_epsilon(self, a: Fraction, delta: Fraction) -> EpsilonResult:
        names: Dict[int, Tuple[str, arb]] = {}

        def f(prec: int) -> arb:
            r = self._total_ball(a)
            eps, name = epsilon_from_rdp(r, to_arb(a), to_arb(delta), self.conversion)
            names[prec] = (name, r)
            return eps

        cert = refine(f, self.digits, max_prec=self.max_prec, what=f"epsilon at alpha={float(a)}")
        name, r = names[cert.prec]
        return EpsilonResult(cert, a, name, Certified(r, cert.prec), delta)

    def get_epsilon(self, target_delta: object) -> Certified:
        """Certified epsilon for ``target_delta`` (see :meth:`get_epsilon_and_order`)."""
        return self.get_epsilon_and_order(target_delta).epsilon

    def get_delta_and_order(self, target_epsilon: object) -> DeltaResult:
        """Smallest certified delta over the candidate orders, for ``target_epsilon``."""
        eps = parse_rational(target_epsilon, "epsilon")
        if eps < 0:
            raise ValueError(f"epsilon must be >= 0. Found {float(eps)!r}.")
        self._require_upper_bounds()
        if not self._active():
            return DeltaResult(Certified(arb(0), 0), None, "none", None, eps)
        pure = self._pure_dp_total()
        if pure is not None and pure <= to_arb(eps):
            return DeltaResult(Certified(arb(0), 0), None, "pure-dp", None, eps)
        fe = float(min(eps, Fraction(10) ** 300))  # screen only; avoids float overflow

        def objective(alphas: np.ndarray) -> np.ndarray:
            a = np.asarray(alphas, dtype=float)
            r = self.screen(a)
            with np.errstate(all="ignore"):
                cks = (a - 1.0) * (r - fe + np.log1p(-1.0 / a)) - np.log(a)
                mir = (a - 1.0) * (r - fe)
            return np.minimum(cks, mir) if self.conversion == "best" else (mir if self.conversion == "mironov" else cks)

        best: Optional[DeltaResult] = None
        errors: List[PrecisionExhausted] = []
        for a in self._candidates(objective):
            try:
                res = self._certify_delta(a, eps)
            except PrecisionExhausted as exc:
                errors.append(exc)
                continue
            if best is None or res.delta.upper() < best.delta.upper():
                best = res
        if best is None:
            raise errors[0] if errors else PrecisionExhausted("delta: no finite candidate order")
        return best

    def _certify_delta(self, a: Fraction, eps: Fraction) -> DeltaResult:
        names: Dict[int, Tuple[str, arb]] = {}

        def f(prec: int) -> arb:
            r = self._total_ball(a)
            d, name = delta_from_rdp(r, to_arb(a), to_arb(eps), self.conversion)
            names[prec] = (name, r)
            return d

        cert = refine(f, self.digits, max_prec=self.max_prec, what=f"delta at alpha={float(a)}")
        name, r = names[cert.prec]
        return DeltaResult(cert, a, name, Certified(r, cert.prec), eps)
