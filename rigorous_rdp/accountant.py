r"""The RDP accountant: composition of events, order optimisation, conversion.

RDP composes additively at every order (Mironov 2017, Prop. 1; blog part 2,
Claim 20).  The accountant keeps a multiset of (curve, count) pairs, and for a
target delta returns the certified epsilon at a chosen order.

Choosing the order is an optimisation over a float *screen* of the curves: any
order gives a valid bound, so the choice needs no certification.  The value at
the chosen order is then recomputed by the certified path.

Order search (``continuous=True``, the default), without a cap on the order:

1. the screen is evaluated on a ladder of integer orders 2, 3, 4, 5, 6, 8, ..., 48, 64
   (one vectorised call), then at 128, 256, ... (doubling) for as long as the
   converted epsilon still decreases -- up to :data:`MAX_SEARCH_ORDER` (about 3.4e7) for the exact
   Poisson-subsampled Gaussian; curves whose screens are costly at large orders
   declare a cap (:attr:`RdpCurve.search_order_cap`);
2. the best ladder order and its two neighbours bracket the optimum; a ternary
   search finds the best integer order inside, whose neighbours bracket the
   optimum over real orders (for integer-only bounds, the grid orders inside the
   bracket are screened too);
3. Brent's method (golden section with parabolic steps) over :math:`\log(\alpha - 1)` refines it inside the
   bracket (the optimum is kept to 6 significant digits, an exact rational);
4. only the best candidate is certified, unless another candidate's screen
   value is within the screen's error of it (then both are, and the smaller
   certified upper end wins).

With ``continuous=False`` the grid ``orders`` is screened as given.  Every result
records how its order was found (``order_search``).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Generic, TypeVar, cast

import numpy as np
import numpy.typing as npt
from flint import arb

from . import validation
from .arith import DEFAULT_DIGITS, MAX_PREC, Certified, ComparesAsFloat, parse_rational, refine, to_arb
from .conversion import Conversion, conversion_name, delta_from_rdp, epsilon_from_rdp, epsilon_screen, log_delta_screen
from .curves import RdpCurve
from .errors import PrecisionExhausted, UnsupportedEventError
from .events import Bound, BoundOptions, DpEvent, leaf_counts
from .floatmath import log_fraction
from .registry import rdp_curve, scheme_of

__all__ = [
    "DEFAULT_ORDERS",
    "MAX_SEARCH_ORDER",
    "ConversionResult",
    "DeltaResult",
    "EpsilonResult",
    "RdpAccountant",
    "RdpResult",
    "clear_caches",
]

#: dp-accounting's default order grid, as exact rationals.
DEFAULT_ORDERS: tuple[Fraction, ...] = tuple(
    [1 + Fraction(x, 10) for x in range(1, 100)]
    + [Fraction(x) for x in range(11, 64)]
    + [Fraction(x) for x in (128, 256, 512, 1024)]
)

#: largest order the uncapped search screens (2**25, about 3.4e7).
MAX_SEARCH_ORDER = 1 << 25

#: relative error allowed to the float screen when deciding to certify one candidate only
SCREEN_REL_ERROR = 1e-7

#: above this order the continuous refinement searches integer orders only
LARGE_ORDER = 4096

_INTEGER_SCREEN = np.array([2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64], dtype=float)


@dataclass(frozen=True)
class RdpResult:
    """Certified total RDP at one order: an enclosure of the value of the composed RDP
    upper bound (:attr:`claim`)."""

    claim: ClassVar[str] = "enclosure of the certified RDP upper bound at the order"

    order: Fraction
    rdp: Certified
    is_upper_bound: bool = True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"alpha": _order_json(self.order), "rdp": self.rdp.to_json()}
        if not self.is_upper_bound:
            out["lower_bound_only"] = True
        return out


@dataclass(frozen=True)
class ConversionResult:
    """A certified (epsilon, delta) quantity at one order: the generic result.

    :class:`EpsilonResult` (value = epsilon, target = delta) and
    :class:`DeltaResult` (value = delta, target = epsilon) name its fields.

    Attributes:
        value: enclosure of the bound; ``value.upper()`` is the guarantee.
        order: the RDP order used (``None`` for the pure-DP route).
        conversion: name of the RDP-to-DP conversion used (see :mod:`.conversion`).
        rdp: the certified total RDP at ``order`` (``None`` for the pure-DP route).
        target: the exact target (delta for epsilon, epsilon for delta).
        order_search: how the order was found (method, bracket, screened and
            certified counts), also in the JSON output.
    """

    value: Certified
    order: Fraction | None
    conversion: str
    rdp: Certified | None
    target: Fraction = Fraction(0)
    order_search: dict[str, Any] | None = None

    quantity: ClassVar[str] = "value"
    target_name: ClassVar[str] = "target"
    #: what is certified: ``value.upper()`` is an upper bound on the optimal value (the RDP route
    #: proves no lower bound on it; a PLD result is a bracket instead)
    claim: ClassVar[str] = "enclosure of an upper bound (RDP composed, then converted) on the optimal value"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            self.quantity: self.value.to_json(),
            "alpha": _order_json(self.order),
            "conversion": self.conversion,
            self.target_name: frac_json(self.target),
        }
        if self.rdp is not None:
            out["rdp"] = self.rdp.to_json()
        out["prec"] = self.value.prec
        if self.order_search is not None:
            out["order_search"] = self.order_search
        return out


_E = TypeVar("_E", Certified, Fraction)
_D = TypeVar("_D", Certified, Fraction)


class Quantities(ComparesAsFloat, Generic[_E, _D]):
    """Names the fields of a result whose certified ``value`` is ``quantity`` (epsilon or
    delta) at the exact ``target`` of the other: ``epsilon`` has type ``_E``, ``delta`` type
    ``_D`` (the results of :class:`RdpAccountant` and :class:`rigorous_rdp.pld.PldAccountant`).  It compares
    as ``float(result)`` does (:class:`~rigorous_rdp.arith.ComparesAsFloat`)."""

    quantity: ClassVar[str]
    target_name: ClassVar[str]
    value: Certified
    target: Fraction

    @property
    def epsilon(self) -> _E:
        return cast(_E, self.value if self.quantity == "epsilon" else self.target)

    @property
    def delta(self) -> _D:
        return cast(_D, self.value if self.quantity == "delta" else self.target)

    def __float__(self) -> float:
        """``float(result)``: the certified ``value`` (epsilon or delta) as a float rounded up, the
        conservative reading (``float(result.epsilon)`` for an epsilon result; see
        :meth:`.Certified.__float__`)."""
        return float(self.value)

    def __format__(self, spec: str) -> str:
        """``f"{result:.3f}"``: the certified ``value`` rounded up (:meth:`.Certified.__format__`)."""
        return format(self.value, spec) if spec else str(self)


class EpsilonQuantity(Quantities[Certified, Fraction]):
    """A result whose certified ``value`` is epsilon at the target delta."""

    quantity, target_name = "epsilon", "delta"


class DeltaQuantity(Quantities[Fraction, Certified]):
    """A result whose certified ``value`` is delta at the target epsilon."""

    quantity, target_name = "delta", "epsilon"


class EpsilonResult(EpsilonQuantity, ConversionResult):
    """Certified epsilon for a target delta: ``epsilon`` (enclosure), ``order``,
    ``conversion``, ``rdp``, ``delta`` (see :class:`ConversionResult`)."""


class DeltaResult(DeltaQuantity, ConversionResult):
    """Certified delta for a target epsilon: ``delta`` (enclosure), ``order``,
    ``conversion``, ``rdp``, ``epsilon`` (see :class:`ConversionResult`)."""


def _order_json(order: Fraction | None) -> int | float | str:
    """JSON form of an exact order: int, a number whose decimal text is exact, or "p/q"."""
    if order is None:
        return "inf"
    if order.denominator == 1:
        return int(order)
    f = float(order)
    if Fraction(f) == order or Fraction(repr(f)) == order:
        return f
    return str(order)


def frac_json(x: Fraction) -> float | str:
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
    from .arith import round_decimal

    return "~" + round_decimal(x, 17, up=True)


# ---------------------------------------------------------------------------
# caches shared by all accountants (events are frozen and hashable; curves and
# their certified values at (order, precision) are deterministic)
# ---------------------------------------------------------------------------


_K = TypeVar("_K")
_V = TypeVar("_V")
_R = TypeVar("_R", bound="ConversionResult")
_L = TypeVar("_L")
_A = TypeVar("_A", bound="ComposingAccountant[Any]")


class _Lru(Generic[_K, _V]):
    def __init__(self, size: int):
        self.size = size
        self.data: OrderedDict[_K, _V] = OrderedDict()

    def get(self, key: _K) -> _V | None:
        v = self.data.get(key)
        if v is not None:
            self.data.move_to_end(key)
        return v

    def put(self, key: _K, value: _V) -> None:
        self.data[key] = value
        if len(self.data) > self.size:
            self.data.popitem(last=False)


#: a one-step event and the accountant's choice of theorem: what decides its curve
_Leaf = tuple[DpEvent, BoundOptions]

_CURVES: _Lru[_Leaf, RdpCurve] = _Lru(256)
#: (leaf, order, precision) -> ball of the one-step RDP
_CERTIFIED: _Lru[tuple[_Leaf, Fraction, int], arb] = _Lru(4096)
#: (leaf, order) -> float screen of the one-step RDP
_SCREENS: _Lru[tuple[_Leaf, float], float] = _Lru(65536)


def clear_caches() -> None:
    """Forget the cached curves, screens and certified values (for timing runs)."""
    _CURVES.data.clear()
    _CERTIFIED.data.clear()
    _SCREENS.data.clear()


def _curve_of(leaf: _Leaf) -> RdpCurve:
    c = _CURVES.get(leaf)
    if c is None:
        c = rdp_curve(*leaf)
        _CURVES.put(leaf, c)
    return c


def _brent_min(
    f: Callable[[float], float], lo: float, hi: float, xtol: float = 1e-8, maxiter: int = 80
) -> tuple[float, float]:
    """Brent's minimisation on [lo, hi] (golden section with parabolic steps; Brent 1973, ch. 5).

    Float only: it chooses an order, any order is valid.
    """
    g = 0.3819660112501051  # (3 - sqrt 5) / 2
    x = w = v = lo + g * (hi - lo)
    fx = fw = fv = f(x)
    d = e = 0.0
    a, b = lo, hi
    for _ in range(maxiter):
        m = 0.5 * (a + b)
        tol1 = xtol * abs(x) + 1e-12
        tol2 = 2.0 * tol1
        if abs(x - m) <= tol2 - 0.5 * (b - a):
            break
        use_golden = True
        if abs(e) > tol1:
            r = (x - w) * (fx - fv)
            qq = (x - v) * (fx - fw)
            p = (x - v) * qq - (x - w) * r
            qq = 2.0 * (qq - r)
            if qq > 0:
                p = -p
            qq = abs(qq)
            if abs(p) < abs(0.5 * qq * e) and a * qq < p + x * qq < b * qq:
                e, d = d, p / qq
                u = x + d
                if u - a < tol2 or b - u < tol2:
                    d = tol1 if x < m else -tol1
                use_golden = False
        if use_golden:
            e = (b - x) if x < m else (a - x)
            d = g * e
        u = x + (d if abs(d) >= tol1 else (tol1 if d > 0 else -tol1))
        fu = f(u)
        if fu <= fx:
            if u < x:
                b = x
            else:
                a = x
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v in (x, w):
                v, fv = u, fu
    return x, fx


class ComposingAccountant(Generic[_L]):
    """The composition bookkeeping shared by :class:`RdpAccountant` and
    :class:`rigorous_rdp.pld.PldAccountant`.

    Each one-step event of a composed event (:func:`~rigorous_rdp.events.leaf_counts`)
    is mapped once by :meth:`_leaf` to what the accountant composes (its RDP curve,
    its dominating pairs; ``None`` for a no-op) and counted; :meth:`_add` stores the
    counts of one :meth:`compose`, which is all or nothing.

    Both accountants answer with one vocabulary (dp_accounting's): ``get_epsilon(target_delta)``
    and ``get_delta(target_epsilon)`` give the certified value, ``get_epsilon_result`` and
    ``get_delta_result`` the typed result whose ``claim`` says what is certified (an upper
    bound for RDP, a bracket of the optimum for PLD).
    """

    def supports(self, event: DpEvent) -> bool:
        """True if ``event`` can be composed (never raises)."""
        try:
            self._tally(event, 1)
        except (UnsupportedEventError, ValueError):
            return False
        return True

    def compose(self: _A, event: DpEvent, count: int = 1) -> _A:
        """Add ``count`` adaptive applications of ``event``.

        Raises:
            UnsupportedEventError: if a component has no certified bound here.
        """
        count = validation.count(count, "count", 0)
        new = self._tally(event, count)
        relations = self._relations(new)
        self._add(new)
        self._relations_seen = relations
        return self

    def _tally(self, event: DpEvent, count: int) -> dict[DpEvent, tuple[_L, int]]:
        out: dict[DpEvent, tuple[_L, int]] = {}
        for leaf, c in leaf_counts(event, count):
            item = out[leaf][0] if leaf in out else self._leaf(leaf)
            if item is not None:
                out[leaf] = (item, out.get(leaf, (item, 0))[1] + c)
        self._relations(out)
        return out

    def _relations(self, new: dict[DpEvent, Any]) -> frozenset[str]:
        """The neighbouring relations of the sampled events of the ledger with ``new`` added.

        A guarantee holds for one neighbouring relation: a sampled event's bound is for its own
        adjacency (add/remove or replace-one), so a ledger that mixes them has no meaning and is
        refused.  An unsampled mechanism is a sensitivity-1 query under whichever relation the
        ledger uses, so it mixes with either.

        Raises:
            UnsupportedEventError: the ledger would mix add/remove and replace-one events.
        """
        seen: frozenset[str] = getattr(self, "_relations_seen", frozenset())
        found = set(seen)
        for leaf in new:
            try:
                scheme = scheme_of(leaf)
            except UnsupportedEventError:
                continue
            if scheme.sampling != "none":
                found.add(scheme.adjacency.value)
        if len(found) > 1:
            raise UnsupportedEventError(
                "the ledger mixes add-remove and replace-one sampled events: a guarantee holds for one"
                " neighbouring relation, so compose events of one adjacency (an add/remove bound covers"
                " replace-one neighbours only through group privacy, two steps apart)."
            )
        return frozenset(found)

    def _leaf(self, event: DpEvent) -> _L | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _add(self, new: dict[DpEvent, tuple[_L, int]]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class RdpAccountant(ComposingAccountant[RdpCurve]):
    r"""Certified RDP accountant.

    Args:
        orders: the grid of orders (exact rationals > 1; default
            :data:`DEFAULT_ORDERS`, dp-accounting's grid).  With
            ``continuous=True`` it only adds screened points to the uncapped
            order search (module docstring); with ``continuous=False`` it is the
            set of orders searched.
        continuous: search all real orders > 1 (default), not only the grid.
        conversion: a :class:`~rigorous_rdp.conversion.Conversion` or its value: ``"best"``
            (default: per order the smallest of the others, with the total-variation shortcut),
            ``"mironov"`` (Mironov 2017, Prop. 3), ``"cks"`` (Canonne, Kamath, Steinke 2020,
            Prop. 12) or ``"balle"`` (Balle et al. 2020, Thm 21; the same expression as CKS).
        digits: relative width of reported enclosures, ``<= 10**-digits``.
        max_prec: maximum working precision in bits.
        bound: the theorem that bounds every event composed (a
            :class:`~rigorous_rdp.events.Bound` or its value); ``None`` (default): each event's
            tightest certified bound.  ``"general"``, ``"tight"``, ``"tau"`` (Zhu & Wang 2019,
            Thms 5, 8, 11) and ``"lower"`` (Thm 6: a lower bound, for display; epsilon and delta
            are refused) apply to Poisson sampling with add-remove adjacency; ``"wang2019"``
            (Wang, Balle, Kasiviswanathan 2019, Thm 9) to fixed-size sampling without
            replacement with replace-one adjacency.  An event the bound does not apply to is
            refused by :meth:`compose`.
        tau: the number of exact terms of ``bound="tau"`` (integer >= 1).
        taylor_order: order m >= 3 of the Taylor bounds of Birrell et al. for fixed-size
            sampling (``None``: the tightest certified bound; see
            :class:`~rigorous_rdp.events.BoundOptions`); other events refuse it.

    Example:
        >>> from rigorous_rdp import RdpAccountant, GaussianEvent, PoissonSampledEvent
        >>> acc = RdpAccountant()
        >>> _ = acc.compose(PoissonSampledEvent("0.01", GaussianEvent("1.1")), 10000)
        >>> res = acc.get_epsilon_and_order("1e-5")
        >>> 5.63 < res.epsilon.upper_float() < 5.64
        True
    """

    def __init__(
        self,
        orders: Iterable[object] | None = None,
        *,
        continuous: bool = True,
        conversion: Conversion | str = "best",
        digits: float = DEFAULT_DIGITS,
        max_prec: int = MAX_PREC,
        bound: Bound | str | None = None,
        tau: int | None = None,
        taylor_order: int | None = None,
    ):
        if orders is None:
            self.orders: tuple[Fraction, ...] = DEFAULT_ORDERS
        else:
            self.orders = validation.orders(orders, "alpha")
        conversion = conversion_name(conversion)
        if isinstance(max_prec, bool) or not isinstance(max_prec, int) or max_prec < 64:
            raise ValueError(f"max_prec must be an integer >= 64 (bits). Found {max_prec!r}.")
        digits = validation.digits(digits)
        self.continuous = validation.flag(continuous, "continuous")
        self.conversion = conversion
        self.digits = digits
        self.max_prec = int(max_prec)
        self.options = BoundOptions(bound, tau, taylor_order)
        self._counts: dict[DpEvent, int] = {}
        self._curves: dict[DpEvent, RdpCurve] = {}

    @staticmethod
    def template(accountant: object) -> RdpAccountant:
        """``accountant`` as the template of the accounting options (``None``: ``RdpAccountant()``);
        ``ValueError`` for anything else than an :class:`RdpAccountant`."""
        if accountant is None:
            return RdpAccountant()
        if not isinstance(accountant, RdpAccountant):
            raise ValueError(
                f"accountant must be an RdpAccountant (the template of the accounting options). Found {accountant!r}."
            )
        return accountant

    def fresh(self, digits: float | None = None) -> RdpAccountant:
        """An empty accountant with the same options (``digits`` replaced when given).

        The functions that run many accountings of one configuration
        (:func:`~rigorous_rdp.calibrate.calibrate_sigma`, :func:`~rigorous_rdp.calibrate.max_steps`,
        :func:`~rigorous_rdp.certificate.make_certificate`) take an accountant as the template of
        their options and start from ``fresh()`` copies of it.
        """
        return RdpAccountant(
            self.orders,
            continuous=self.continuous,
            conversion=self.conversion,
            digits=self.digits if digits is None else digits,
            max_prec=self.max_prec,
            bound=self.options.bound,
            tau=self.options.tau,
            taylor_order=self.options.taylor_order,
        )

    # -- composition ---------------------------------------------------------

    @property
    def bound(self) -> Bound | None:
        """The chosen theorem (``None``: each event's default bound); see :attr:`options`."""
        return self.options.bound

    @property
    def tau(self) -> int | None:
        """The number of exact terms of ``bound="tau"``."""
        return self.options.tau

    def _leaf(self, event: DpEvent) -> RdpCurve:
        return self._curves.get(event) or _curve_of((event, self.options))

    def _add(self, new: dict[DpEvent, tuple[RdpCurve, int]]) -> None:
        for ev, (curve, c) in new.items():
            self._curves[ev] = curve
            self._counts[ev] = self._counts.get(ev, 0) + c

    @property
    def integer_orders_only(self) -> bool:
        return any(self._curves[e].integer_orders_only for e, c in self._counts.items() if c > 0)

    def active_curves(self) -> list[tuple[RdpCurve, int]]:
        """The composed curves with their (positive) counts."""
        return [(self._curves[e], c) for e, c in self._counts.items() if c > 0]

    def _active_events(self) -> list[tuple[DpEvent, RdpCurve, int]]:
        return [(e, self._curves[e], c) for e, c in self._counts.items() if c > 0]

    # -- totals --------------------------------------------------------------

    def total_rdp_ball(self, alpha: Fraction) -> arb:
        """Ball containing the total RDP at the exact order ``alpha`` (current working precision).

        Certified values of each curve are cached per (event, order, precision):
        the composition of T steps is T times the cached one-step ball.
        """
        from flint import ctx

        prec = ctx.prec
        total = arb(0)
        for e, curve, c in self._active_events():
            key = ((e, self.options), alpha, prec)
            v = _CERTIFIED.get(key)
            if v is None:
                v = curve.certified(alpha)
                _CERTIFIED.put(key, v)
            total += c * v
        return total

    def rdp(self, alpha: object, digits: float | None = None) -> RdpResult:
        """Certified total RDP at order ``alpha`` (exact rational > 1)."""
        a = validation.order(alpha, integer=self.integer_orders_only)
        d = self.digits if digits is None else digits
        cert = refine(lambda prec: self.total_rdp_ball(a), d, max_prec=self.max_prec, what=f"RDP at alpha={float(a)}")
        return RdpResult(a, cert, all(c.is_upper_bound for c, _ in self.active_curves()))

    def rdp_many(self, orders: Iterable[object], digits: float | None = None) -> list[RdpResult]:
        """Certified total RDP at many orders (exact rationals > 1), as :meth:`rdp` gives them.

        Each curve certifies all the orders at once at the first precision of the
        :func:`.arith.refine` loop (:meth:`.curves.RdpCurve.certified_many`; the
        Poisson-subsampled Gaussian shares one quadrature between its real orders).  An
        order whose total meets the digits there is reported as :meth:`rdp` would report
        it at that precision; any other order goes through :meth:`rdp` (refined on its own).
        """
        from . import budget
        from .arith import bits_for_digits, rel_width_ok, workprec

        alphas = [validation.order(a, integer=self.integer_orders_only) for a in orders]
        d = self.digits if digits is None else digits
        prec = max(64, bits_for_digits(d) + 24)  # the first precision of refine
        if len(alphas) < 2 or prec > self.max_prec:
            return [self.rdp(a, d) for a in alphas]
        budget.check("RDP at many orders")
        todo = list(dict.fromkeys(alphas))
        totals = dict.fromkeys(todo, arb(0))
        with workprec(prec):
            for e, curve, c in self._active_events():
                for a, v in zip(todo, curve.certified_many(todo), strict=True):
                    _CERTIFIED.put(((e, self.options), a, prec), v)
                    totals[a] += c * v
        upper = all(c.is_upper_bound for c, _ in self.active_curves())
        out = []
        for a in alphas:
            t = totals[a]
            if t.is_finite() and rel_width_ok(t, d):
                out.append(RdpResult(a, Certified(t, prec), upper))
            else:
                out.append(self.rdp(a, d))
        return out

    def screen(self, alphas: Iterable[float]) -> np.ndarray:
        """Float estimate of the total RDP at ``alphas`` (order selection only).

        One-step screens are cached per (event, order), so re-screening the same
        event (another step count, another target) costs nothing.
        """
        a = np.asarray([float(x) for x in alphas], dtype=float)
        total = np.zeros(len(a))
        for e, curve, c in self._active_events():
            vals = np.empty(len(a))
            miss = []
            for i, x in enumerate(a):
                v = _SCREENS.get(((e, self.options), x))
                if v is None:
                    miss.append(i)
                else:
                    vals[i] = v
            if miss:
                with np.errstate(all="ignore"):
                    fresh = np.asarray(curve.screen(a[miss]), dtype=float)
                fresh = np.where(np.isnan(fresh), np.inf, fresh)
                for j, i in enumerate(miss):
                    vals[i] = fresh[j]
                    _SCREENS.put(((e, self.options), float(a[i])), float(fresh[j]))
            total = total + c * vals
        return total

    def _require_upper_bounds(self) -> None:
        for curve, _ in self.active_curves():
            if not curve.is_upper_bound:
                raise ValueError(
                    f"bound {curve.name} is a lower bound on the RDP, not a privacy guarantee;"
                    " it cannot give epsilon or delta (use an upper bound)."
                )

    def _pure_dp_total(self) -> arb | None:
        total = arb(0)
        for curve, c in self.active_curves():
            e = curve.pure_dp_epsilon()
            if e is None:
                return None
            total += c * e
        return total

    # -- order selection -----------------------------------------------------

    def grid(self) -> list[Fraction]:
        """The order grid as searched (integer orders only when a bound needs them)."""
        grid = list(self.orders)
        if self.integer_orders_only:
            grid = sorted({a for a in grid if a.denominator == 1} | {Fraction(math.ceil(a)) for a in grid})
            grid = [a for a in grid if a >= 2]
        return grid

    def search_order_cap(self) -> float:
        """Largest order the uncapped search screens for the composed curves."""
        cap = float(MAX_SEARCH_ORDER)
        for curve, _ in self.active_curves():
            c = curve.search_order_cap
            if c is not None:
                cap = min(cap, float(c))
        return max(cap, float(max(self.orders)) * 2)

    def _search(
        self, objective: Callable[[np.ndarray], np.ndarray]
    ) -> tuple[list[tuple[float, Fraction]], dict[str, Any]]:
        """Screened candidates ``[(screen value, order), ...]`` (best first) and the search record."""
        int_only = self.integer_orders_only

        def obj(xs: npt.ArrayLike) -> np.ndarray:
            v = np.asarray(objective(np.asarray(xs, dtype=float)), dtype=float)
            return np.where(np.isnan(v), np.inf, v)

        if not self.continuous:
            grid = self.grid()
            grid_vals = obj([float(a) for a in grid])
            order_idx = np.argsort(grid_vals, kind="stable")
            return [(float(grid_vals[i]), grid[i]) for i in order_idx[:2]], {"method": "grid", "screened": len(grid)}

        # 1. integer orders on a ladder 2, 3, 4, 6, 8, 12, ..., 64, then doubling while the
        #    objective still decreases
        pts: list[float] = list(_INTEGER_SCREEN)
        vals: list[float] = list(obj(_INTEGER_SCREEN))
        cap = self.search_order_cap()
        while int(np.argmin(vals)) == len(vals) - 1 and pts[-1] * 2 <= cap and np.isfinite(vals[-1]):
            nxt = pts[-1] * 2
            pts.append(nxt)
            vals.append(float(obj([nxt])[0]))
        # the ladder's bracket is refined among the integers inside it (golden-section on integers)
        i = int(np.argmin(vals))
        if 0 < i < len(pts) - 1 and pts[i + 1] - pts[i - 1] > 2:
            pts, vals = self._integer_refine(obj, pts, vals, i)
        i = int(np.argmin(vals))
        if not np.isfinite(vals[i]):
            # the float screen over- or underflows everywhere (e.g. sigma = 1e-300): any order gives
            # a valid bound, so certify one (a poor screen costs tightness, never soundness)
            # (the smallest grid order: where the screen overflows, the RDP grows with the order)
            orders = [a for a in self.grid() if a.denominator == 1 or not int_only] or [Fraction(2)]
            return [(math.inf, min(orders))], {"method": "fallback (no finite screen value)", "screened": len(pts)}
        lo = pts[i - 1] if i > 0 else 1.0
        hi = pts[i + 1] if i + 1 < len(pts) else pts[i]
        record: dict[str, Any] = {
            "method": "bracketed",
            "bracket": [_num_json(lo), _num_json(hi)],
            "screened": len(pts),
        }
        cands: list[tuple[float, Fraction]] = [(float(vals[i]), Fraction(int(pts[i])))]
        # 2. grid orders inside the bracket (only when no continuous refinement follows:
        #    for a unimodal screen Brent's optimum is at least as good as any of them)
        inside = [a for a in self.grid() if lo < float(a) < hi and float(a) not in pts] if int_only else []
        if inside:
            iv = obj([float(a) for a in inside])
            record["screened"] += len(inside)
            cands += [(float(v), a) for v, a in zip(iv, inside, strict=True)]
        # 3. continuous refinement in u = log(alpha - 1)
        lo_u = math.log(max(lo - 1.0, 1e-3))
        hi_u = math.log(hi - 1.0)
        brent = hi_u > lo_u and lo < LARGE_ORDER and not int_only  # above LARGE_ORDER the integer search is final
        if brent:
            count = [0]

            def f(u: float) -> float:
                count[0] += 1
                x = 1.0 + math.exp(u)
                # above LARGE_ORDER the order is rounded to an integer (cheap and exact
                # screens; a fraction of an order changes nothing there)
                v = float(obj([round(x) if x > LARGE_ORDER else x])[0])
                return v if math.isfinite(v) else 1e300

            u, fu = _brent_min(f, lo_u, hi_u)
            record["screened"] += count[0]
            best = 1.0 + math.exp(u)
            if int_only or best > LARGE_ORDER:
                for b in {math.floor(best), math.ceil(best)}:
                    if b >= 2:
                        cands.append((float(obj([float(b)])[0]), Fraction(b)))
            elif fu < 1e300:
                a = Fraction(f"{best:.6g}")
                if a > 1:
                    cands.append((float(obj([float(a)])[0]), a))
        record["method"] = "bracketed+brent" if brent else "bracketed+integer"
        out: list[tuple[float, Fraction]] = []
        seen: set[Fraction] = set()
        for v, a in sorted(cands, key=lambda t: t[0]):
            if a > 1 and a not in seen and (not int_only or (a.denominator == 1 and a >= 2)):
                seen.add(a)
                out.append((v, a))
        return out, record

    @staticmethod
    def _integer_refine(
        obj: Callable[[list[float]], np.ndarray], pts: list[float], vals: list[float], i: int
    ) -> tuple[list[float], list[float]]:
        """Ternary search for the best integer order between the ladder neighbours of point ``i``."""
        known = dict(zip(pts, vals, strict=True))

        def f(k: float) -> float:
            if k not in known:
                known[k] = float(obj([k])[0])
            return known[k]

        lo, hi = pts[i - 1], pts[i + 1]
        while hi - lo > 2:
            m1 = lo + (hi - lo) // 3
            m2 = hi - (hi - lo) // 3
            if f(m1) <= f(m2):
                hi = m2
            else:
                lo = m1
        for k in range(int(lo), int(hi) + 1):
            f(float(k))
        keys = sorted(known)
        return keys, [known[k] for k in keys]

    def _to_certify(self, cands: list[tuple[float, Fraction]]) -> list[Fraction]:
        """The best candidate, plus those whose screen value is within the screen error of it."""
        if not cands:
            return []
        v0 = cands[0][0]
        tol = SCREEN_REL_ERROR * abs(v0) + 1e-12
        return [a for v, a in cands if v <= v0 + tol or not math.isfinite(v0)][:3]

    # -- epsilon and delta ---------------------------------------------------

    def _objective(self, kind: str, target: Fraction, scale: float = 1.0) -> Callable[[np.ndarray], np.ndarray]:
        """Float screen of the converted quantity (epsilon, or log delta) as a function of the order."""
        conv = self.conversion
        if kind == "epsilon":
            log_fd = log_fraction(target)  # log(delta) from the exact rational (no underflow)
            return lambda a: epsilon_screen(scale * self.screen(a), a, log_fd, conv)
        fe = float(min(target, Fraction(10) ** 300))  # screen only; avoids float overflow
        return lambda a: log_delta_screen(scale * self.screen(a), a, fe, conv)

    def estimate_epsilon(self, target_delta: object, scale: float = 1.0) -> float:
        """Float screen estimate of the optimal epsilon with all counts times ``scale``.

        Not certified: used to guess where certified searches (calibration) look.
        """
        delta = parse_rational(target_delta, "delta")
        cands, _ = self._search(self._objective("epsilon", delta, scale))
        return cands[0][0] if cands else math.inf

    def _certify(self, cls: type[_R], a: Fraction, target: Fraction, record: dict[str, Any] | None) -> _R:
        kind = cls.quantity
        names: dict[int, tuple[str, arb]] = {}
        convert = epsilon_from_rdp if kind == "epsilon" else delta_from_rdp

        def f(prec: int) -> arb:
            r = self.total_rdp_ball(a)
            v, name = convert(r, to_arb(a), to_arb(target), self.conversion)
            names[prec] = (name, r)
            return v

        cert = refine(f, self.digits, max_prec=self.max_prec, what=f"{kind} at alpha={float(a)}")
        name, r = names[cert.prec]
        return cls(cert, a, name, Certified(r, cert.prec), target, record)

    def _best(self, cls: type[_R], target: Fraction) -> _R | None:
        kind = cls.quantity
        cands, record = self._search(self._objective(kind, target))
        chosen = self._to_certify(cands)
        record = dict(record, certified=len(chosen))
        best: _R | None = None
        errors: list[PrecisionExhausted] = []
        for a in chosen:
            try:
                res = self._certify(cls, a, target, record)
            except PrecisionExhausted as exc:
                errors.append(exc)
                continue
            if best is None or res.value.upper() < best.value.upper():
                best = res
        if best is None and len(chosen) < len(cands):
            # every chosen candidate failed to certify: try the others
            for _, a in cands[len(chosen) :]:
                try:
                    best = self._certify(cls, a, target, record)
                    break
                except PrecisionExhausted as exc:
                    errors.append(exc)
        if best is None and errors and kind == "delta":
            raise errors[0]
        if best is None and errors and self._pure_dp_total() is None:
            raise errors[0]
        return best

    def get_epsilon_and_order(self, target_delta: object) -> EpsilonResult:
        """Smallest certified epsilon found by the order search, for ``target_delta``.

        Raises:
            ValueError: if delta is outside (0, 1).
            PrecisionExhausted: if no candidate reaches the requested width.
        """
        delta = validation.unit_interval(target_delta, "target_delta", open_low=True, open_high=True)
        self._require_upper_bounds()
        if not self.active_curves():
            return EpsilonResult(Certified(arb(0), 0), None, "none", None, delta)
        best = self._best(EpsilonResult, delta)
        pure = self._pure_dp_total()
        if pure is not None:

            def pure_total(prec: int) -> arb:
                total = self._pure_dp_total()
                if total is None:  # not reached: whether a curve has a pure-DP bound does not depend on the precision
                    raise PrecisionExhausted("pure-DP epsilon: no pure-DP bound")
                return total

            cert = refine(pure_total, self.digits, max_prec=self.max_prec, what="pure-DP epsilon")
            if best is None or cert.upper() < best.value.upper():
                best = EpsilonResult(cert, None, "pure-dp", None, delta, {"method": "pure-dp"})
        if best is None:
            raise PrecisionExhausted("epsilon: no finite candidate order")
        return best

    def get_epsilon_and_optimal_order(self, target_delta: object) -> tuple[Certified, Fraction | None]:
        """``(epsilon, order)``, dp-accounting's ``RdpAccountant`` method of that name: the certified
        epsilon (``float(epsilon)`` is its upper end rounded up) and the order used (``None`` for the
        pure-DP route).  :meth:`get_epsilon_and_order` returns the whole result."""
        res = self.get_epsilon_and_order(target_delta)
        return res.epsilon, res.order

    def get_delta_and_optimal_order(self, target_epsilon: object) -> tuple[Certified, Fraction | None]:
        """``(delta, order)``, as :meth:`get_epsilon_and_optimal_order` (dp-accounting's name)."""
        res = self.get_delta_and_order(target_epsilon)
        return res.delta, res.order

    def get_epsilon(self, target_delta: object) -> Certified:
        """Certified epsilon for ``target_delta`` (see :meth:`get_epsilon_and_order`)."""
        return self.get_epsilon_and_order(target_delta).epsilon

    def get_epsilon_result(self, target_delta: object) -> EpsilonResult:
        """The typed result of :meth:`get_epsilon` (the vocabulary shared with the PLD accountant)."""
        return self.get_epsilon_and_order(target_delta)

    def get_delta(self, target_epsilon: object) -> Certified:
        """Certified delta for ``target_epsilon`` (see :meth:`get_delta_and_order`)."""
        return self.get_delta_and_order(target_epsilon).delta

    def get_delta_result(self, target_epsilon: object) -> DeltaResult:
        """The typed result of :meth:`get_delta` (the vocabulary shared with the PLD accountant)."""
        return self.get_delta_and_order(target_epsilon)

    def get_delta_and_order(self, target_epsilon: object) -> DeltaResult:
        """Smallest certified delta found by the order search, for ``target_epsilon``."""
        eps = validation.nonnegative(target_epsilon, "target_epsilon")
        self._require_upper_bounds()
        if not self.active_curves():
            return DeltaResult(Certified(arb(0), 0), None, "none", None, eps)
        pure = self._pure_dp_total()
        if pure is not None and pure <= to_arb(eps):
            return DeltaResult(Certified(arb(0), 0), None, "pure-dp", None, eps, {"method": "pure-dp"})
        best = self._best(DeltaResult, eps)
        if best is None:
            raise PrecisionExhausted("delta: no finite candidate order")
        return best


def _num_json(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x
