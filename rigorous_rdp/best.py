r"""The sharpest certified answer: the RDP and the PLD accountant side by side.

:class:`BestAccountant` composes every event into an :class:`~rigorous_rdp.RdpAccountant`
and a :class:`~rigorous_rdp.pld.PldAccountant` and answers with the result whose certified
upper end is the smaller one; the result carries both, each with its own claim:

* RDP: an enclosure of an *upper bound* on the optimal value (RDP composed, then
  converted); its lower end says nothing about the true value.
* PLD: a *bracket of the true optimal value* of the composition of the dominating pairs.

Both upper ends are valid guarantees, so their minimum is one.  On a tie the PLD is chosen
(its lower end also bounds the true value from below).

Where the PLD does not apply the RDP result is the answer, and the result says why the PLD
was not used (:attr:`BestResult.not_used`, one short phrase; the full message in
:attr:`BestResult.refused`): an event without a certified dominating pair (Laplace or
randomized response under sampling, replace-one adjacency, sampling with replacement, a
chosen RDP bound), a parameter outside the PLD grid's range, or a PLD that ran past its
share of the time budget.  The PLD never makes the query fail: it runs second, with its own
deadline (:func:`pld_seconds`), and a PLD stopped there leaves the RDP answer standing.
The RDP accountant is the fallback; if *it* refuses the event (and the PLD does not), the
PLD result is the answer.

Example:
    >>> from rigorous_rdp import BestAccountant, GaussianEvent, PoissonSampledEvent
    >>> acc = BestAccountant().compose(PoissonSampledEvent(GaussianEvent("1.1"), "0.01"), 1000)
    >>> res = acc.get_epsilon_result("1e-5")
    >>> res.chosen, 1.51 < res.epsilon.upper_float() < 1.52
    ('pld', True)
    >>> res.rdp.epsilon.upper_float() > res.pld.epsilon.upper_float()
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, TypeVar

from . import budget, validation
from .accountant import ConversionResult, DeltaQuantity, EpsilonQuantity, RdpAccountant
from .arith import Certified
from .errors import BudgetExceeded, InvalidParameter, UnsupportedEventError
from .events import DpEvent, Wang2019SampledEvent, ZhuWangSampledEvent, leaf_counts

__all__ = [
    "METHODS",
    "PLD_SHARE",
    "BestAccountant",
    "BestDeltaResult",
    "BestEpsilonResult",
    "BestResult",
    "attempt",
    "best_json",
    "choose",
    "decimal_key",
    "pld_seconds",
    "short_reason",
    "true_value",
]

#: the two methods, in the order they run (RDP first: it is the fallback)
METHODS = ("rdp", "pld")

#: the PLD's share of the time left when it starts (the rest stays for the RDP answer and the output)
PLD_SHARE = 0.5

#: below this many seconds left, the PLD is not started
MIN_PLD_SECONDS = 0.05

#: what each method certifies (the ``claim`` of its results)
CLAIMS = {
    "rdp": "certified upper bound on the optimal value (RDP composed, then converted; its lower end "
    "encloses the bound, not the true value)",
    "pld": "certified bracket of the true optimal value of the composition (of the dominating pairs)",
}

_T = TypeVar("_T")


def pld_seconds(limit: float | None = None) -> float | None:
    """The time the PLD may take now: :data:`PLD_SHARE` of the time left in the budget in force
    (:func:`rigorous_rdp.budget.remaining`), at most ``limit``; ``None`` means unlimited (no
    budget and no limit)."""
    left = budget.remaining()
    share = left * PLD_SHARE if math.isfinite(left) else None
    if limit is not None:
        share = limit if share is None else min(share, limit)
    return share


def short_reason(exc: BaseException, event: DpEvent | None = None, name: Callable[[str], str] | None = None) -> str:
    """Why a method gave no result, in one short phrase (the full message is kept apart);
    ``event``: the event it refused, ``name``: how to name a parameter (default its API name)."""
    if isinstance(exc, budget.MemoryBudgetExceeded):
        return "it would exceed the memory budget"
    if isinstance(exc, BudgetExceeded):
        return f"it ran past its share of the time budget ({exc.seconds:.3g} s)" if exc.seconds else "time budget"
    if isinstance(exc, UnsupportedEventError):
        if isinstance(getattr(exc, "reason", None), str):  # a caller's own phrase
            return str(exc.reason)  # type: ignore[attr-defined]
        if event is not None and _chooses_rdp_bound(event):
            return "an RDP bound was chosen (the PLD takes none)"
        return "no certified dominating pair for this event"
    if isinstance(exc, InvalidParameter):
        # "--sigma must be in [0.1, 1000] for the PLD accountant" (without the parenthesis)
        return exc.render(name).split(" (", 1)[0].split(". Found", 1)[0].rstrip(".")
    if isinstance(exc, ValueError):
        return "it refused the input"
    if isinstance(exc, OverflowError):
        return "a number outside its range (overflow)"
    return "it could not certify a bound (precision)"


def _chooses_rdp_bound(event: DpEvent) -> bool:
    try:
        leaves = leaf_counts(event, 1)
    except (ValueError, TypeError):  # pragma: no cover - the event was composed already
        return False
    return any(
        isinstance(leaf, Wang2019SampledEvent) or (isinstance(leaf, ZhuWangSampledEvent) and leaf.bound is not None)
        for leaf, _ in leaves
    )


def attempt(fn: Callable[[], _T], seconds: float | None = None) -> tuple[_T | None, BaseException | None]:
    """Run ``fn`` with its own deadline ``seconds`` from now (``None``: the budget in force).

    Returns ``(result, None)``, or ``(None, error)`` when ``fn`` refused (``ValueError``,
    including :class:`~rigorous_rdp.errors.UnsupportedEventError`), could not certify
    (``ArithmeticError``) or ran past its own deadline or the memory budget
    (:class:`~rigorous_rdp.errors.BudgetExceeded`).  A stop of the budget in force (the
    caller's) and Ctrl-C propagate.
    """
    if seconds is not None and seconds < MIN_PLD_SECONDS:
        return None, BudgetExceeded("no time left in the budget", seconds=seconds)
    try:
        with budget.time_budget(seconds):
            try:
                return fn(), None
            except (BudgetExceeded, KeyboardInterrupt):
                raise
            except Exception as exc:
                if budget.expired():  # an error caused by the deadline (e.g. raised around C code)
                    raise BudgetExceeded(f"time budget of {seconds} s exceeded", seconds=seconds) from exc
                raise
    except BudgetExceeded as exc:
        if budget.interrupted():
            raise KeyboardInterrupt from exc
        if budget.expired() and not isinstance(exc, budget.MemoryBudgetExceeded):
            raise  # the caller's own budget ran out
        return None, exc
    except (ValueError, ArithmeticError) as exc:
        if budget.expired() or budget.interrupted():
            raise  # an error caused by a stop (e.g. raised around a callback of C code)
        return None, exc


def decimal_key(text: str) -> tuple[int, int, Fraction]:
    """A sort key of a decimal string of the JSON output ("5.19", "2.4e-2000000000000000297",
    "0", "inf"): exact, and fast for any exponent (``Fraction`` would build 10**exponent, and
    ``Decimal`` refuses exponents beyond about 10**18)."""
    t = text.strip().lower()
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-")
    if t in ("inf", "infinity"):
        return (2 * sign, 0, Fraction(0))
    mantissa, _, exponent = t.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    if not digits:
        return (0, 0, Fraction(0))
    # value = 0.digits * 10**(exp + len(whole) - leading zeros stripped)
    exp = int(exponent or 0) + len(whole) - (len(whole + frac) - len(digits))
    m = Fraction(int(digits), 10 ** len(digits))  # in [0.1, 1)
    return (sign, sign * exp, sign * m)


def _upper(res: dict[str, Any], key: str) -> tuple[int, int, Fraction]:
    return decimal_key(res[key]["upper"])


def choose(results: dict[str, dict[str, Any]], key: str) -> str:
    """The method whose JSON result has the smaller certified upper end of ``key`` (``pld`` on a tie)."""
    return min(results, key=lambda n: (_upper(results[n], key), n != "pld"))


def best_json(
    results: dict[str, dict[str, Any]],
    errors: dict[str, BaseException],
    key: str,
    *,
    keep: tuple[str, ...] = (),
    claims: dict[str, str] | None = None,
    events: dict[str, DpEvent] | None = None,
    name: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """The JSON of a ``best`` answer from the JSON of each method's result (``key``: the certified
    quantity compared, e.g. "epsilon" or "sigma").

    At the top level: the chosen ``key`` and the fields ``keep`` of the chosen result (the
    targets), ``method`` ("best"), ``chosen``, its ``claim``, ``candidates`` (every result in
    full, each with its ``method`` and ``claim``: the chosen one's order, grid, ... are there),
    ``true_value`` when the RDP is chosen and the PLD gives a positive lower end (:func:`true_value`),
    and for a method without a result ``not_used`` (why, one short phrase) and ``refused`` (its
    message).
    ``events``: the event a method refused, ``name``: how to name a parameter (see
    :func:`short_reason`).

    Raises:
        the error of the RDP (or else the other method) if no method gave a result.
    """
    claims = CLAIMS if claims is None else claims
    if not results:
        raise errors.get("rdp") or next(iter(errors.values()))
    chosen = choose(results, key)
    out: dict[str, Any] = {key: results[chosen][key]}
    out.update({k: results[chosen][k] for k in keep if k in results[chosen]})
    out["method"] = "best"
    out["chosen"] = chosen
    out["claim"] = claims[chosen]
    out["candidates"] = {n: {**r, "method": n, "claim": claims[n]} for n, r in results.items()}
    true = true_value(results, chosen, key)
    if true is not None:
        out["true_value"] = true
    if errors:
        out["not_used"] = {n: short_reason(e, (events or {}).get(n), name) for n, e in errors.items()}
        out["refused"] = {n: _message(e, name) for n, e in errors.items()}
    return out


def true_value(results: dict[str, dict[str, Any]], chosen: str, key: str) -> dict[str, str] | None:
    """``{"lower", "upper"}``: a certified bracket of the TRUE optimal ``key`` ("epsilon" or "delta") when
    the chosen result is not the PLD's and the PLD bracket has a positive lower end (a lower end of the
    mechanism's optimal value: its pairs are attained, or the lower end is that of an attained pair of
    one pair of neighbouring datasets); the upper end is the chosen one. ``None`` otherwise."""
    pld = results.get("pld")
    if key not in ("epsilon", "delta") or chosen == "pld" or pld is None:
        return None
    lower = pld[key]["lower"]
    if decimal_key(lower)[0] <= 0:
        return None
    return {"lower": lower, "upper": results[chosen][key]["upper"]}


def _message(exc: BaseException, name: Callable[[str], str] | None = None) -> str:
    text = exc.render(name) if isinstance(exc, InvalidParameter) and name else str(exc)
    return " ".join(text.split())


@dataclass(frozen=True)
class BestResult:
    r"""The answer of :class:`BestAccountant`: the result with the smaller certified upper end
    (:attr:`chosen`), and both.

    Attributes:
        value: the chosen result's certified value; ``value.upper()`` is the guarantee.
        target: the exact target of the other quantity.
        chosen: "rdp" or "pld", the method that gave :attr:`value`.
        rdp: the RDP result (an upper bound, see :data:`CLAIMS`), or ``None``.
        pld: the PLD result (a bracket of the true optimum), or ``None``.
        errors: per method without a result, the error that stopped it (see :attr:`not_used`).
        refused_events: per method that refused an event, that event.
    """

    quantity: ClassVar[str]
    target_name: ClassVar[str]

    value: Certified
    target: Fraction
    chosen: str
    rdp: ConversionResult | None = None
    pld: Any = None  # a PldEpsilonResult or PldDeltaResult
    errors: dict[str, BaseException] = field(default_factory=dict)
    refused_events: dict[str, DpEvent] = field(default_factory=dict)

    @property
    def claim(self) -> str:
        """What the chosen value certifies (:data:`CLAIMS`)."""
        return CLAIMS[self.chosen]

    @property
    def result(self) -> Any:
        """The chosen method's own result."""
        return self.rdp if self.chosen == "rdp" else self.pld

    @property
    def not_used(self) -> dict[str, str]:
        """Per method without a result, why (one short phrase)."""
        return {n: short_reason(e, self.refused_events.get(n)) for n, e in self.errors.items()}

    @property
    def refused(self) -> dict[str, str]:
        """Per method without a result, its error message."""
        return {n: _message(e) for n, e in self.errors.items()}

    def to_json(self, name: Callable[[str], str] | None = None) -> dict[str, Any]:
        """The JSON of :func:`best_json` (that of the command line's ``--method best``);
        ``name``: how messages name a parameter (default its API name)."""
        results = {n: r.to_json() for n, r in (("rdp", self.rdp), ("pld", self.pld)) if r is not None}
        return best_json(
            results, self.errors, self.quantity, keep=(self.target_name,), events=self.refused_events, name=name
        )


class BestEpsilonResult(EpsilonQuantity, BestResult):
    """Certified epsilon at the target delta: the smaller certified upper end of RDP and PLD
    (fields of :class:`BestResult`; ``epsilon``, ``delta``)."""


class BestDeltaResult(DeltaQuantity, BestResult):
    """Certified delta at the target epsilon: the smaller certified upper end of RDP and PLD
    (fields of :class:`BestResult`; ``delta``, ``epsilon``)."""


_R = TypeVar("_R", BestEpsilonResult, BestDeltaResult)


class BestAccountant:
    r"""Certified accountant that reports the sharper of the RDP and the PLD accountant.

    Events are composed into both (the ``supports`` / ``compose`` interface of
    :class:`~rigorous_rdp.RdpAccountant`); a method that refuses an event is dropped for the
    rest of the composition, with its reason.  Queries run the RDP first, then the PLD with a
    deadline of its own (:func:`pld_seconds`: half the time left in the budget in force, at most
    ``pld_seconds``); a PLD that refuses, cannot certify or runs out of time leaves the RDP
    answer, with the reason in the result.

    Args:
        rdp: the RDP accountant to compose into (default ``RdpAccountant()``; pass a configured
            one for other orders, conversion or digits). It must hold no events yet.
        pld: the PLD accountant to compose into (default ``PldAccountant()``; e.g.
            ``PldAccountant(width="0.001")``). It must hold no events yet.
        pld_seconds: the longest time one PLD query may take (``None``: only the budget in force
            limits it, see :mod:`rigorous_rdp.budget`; without one the PLD is not limited).

    Raises:
        ValueError: if an accountant is of the wrong type or holds events, or ``pld_seconds``
            is not in (0, 86400].
    """

    def __init__(self, rdp: RdpAccountant | None = None, pld: Any = None, *, pld_seconds: object = None):
        from .pld.accountant import PldAccountant

        if rdp is None:
            rdp = RdpAccountant()
        if pld is None:
            pld = PldAccountant()
        if not isinstance(rdp, RdpAccountant):
            raise InvalidParameter("rdp", "must be an RdpAccountant", rdp)
        if not isinstance(pld, PldAccountant):
            raise InvalidParameter("pld", "must be a PldAccountant", pld)
        if rdp.active_curves() or pld._active():
            raise InvalidParameter("rdp", "and pld must hold no events yet (BestAccountant composes into both)")
        self.rdp = rdp
        self.pld = pld
        self.pld_seconds = None if pld_seconds is None else budget.parse_seconds(pld_seconds, "pld_seconds")
        #: the methods that refused an event so far: method -> (its error, the event)
        self._refused: dict[str, tuple[BaseException, DpEvent]] = {}

    def _live(self) -> dict[str, Any]:
        return {n: a for n, a in (("rdp", self.rdp), ("pld", self.pld)) if n not in self._refused}

    def supports(self, event: DpEvent) -> bool:
        """True if a method still in use can compose ``event`` (never raises)."""
        return any(acc.supports(event) for acc in self._live().values())

    def compose(self, event: DpEvent, count: int = 1) -> BestAccountant:
        """Add ``count`` adaptive applications of ``event`` to both accountants.

        A method that refuses ``event`` is dropped (every later query reports why); the
        composition is all or nothing.

        Raises:
            UnsupportedEventError: (or the ``ValueError`` of bad input) if no method still in
                use accepts ``event``; the accountant is then unchanged.
        """
        count = validation.count(count, "count", 0)
        live = self._live()
        tallies: dict[str, Any] = {}
        errors: dict[str, BaseException] = {}
        for name, acc in live.items():
            try:
                tallies[name] = acc._tally(event, count)
            except ValueError as exc:  # includes UnsupportedEventError
                errors[name] = exc
        if not tallies:
            raise errors.get("rdp") or next(iter(errors.values()))
        for name, tally in tallies.items():
            live[name]._add(tally)
        for name, err in errors.items():
            self._refused[name] = (err, event)
        return self

    def _query(self, cls: type[_R], target: object, rdp_query: Callable[[], Any], pld_query: Callable[[], Any]) -> _R:
        results: dict[str, Any] = {}
        errors: dict[str, BaseException] = {n: e for n, (e, _) in self._refused.items()}
        events = {n: ev for n, (_, ev) in self._refused.items()}
        if "rdp" not in errors:
            res, exc = attempt(rdp_query)
            if exc is not None:
                if "pld" in errors:  # neither method answers: the RDP's error is the one
                    raise exc
                errors["rdp"] = exc
            else:
                results["rdp"] = res
        if "pld" not in errors:
            # the PLD's own share of the time left; the whole budget when it is the only answer
            seconds = pld_seconds(self.pld_seconds) if results else self.pld_seconds
            res, exc = attempt(pld_query, seconds)
            if exc is not None:
                if not results:
                    raise exc
                errors["pld"] = exc
            else:
                results["pld"] = res
        chosen = choose({n: r.to_json() for n, r in results.items()}, cls.quantity)
        return cls(
            results[chosen].value,
            results[chosen].target,
            chosen,
            rdp=results.get("rdp"),
            pld=results.get("pld"),
            errors=errors,
            refused_events=events,
        )

    def get_epsilon_result(self, target_delta: object) -> BestEpsilonResult:
        """The smaller certified epsilon of the two methods at ``target_delta``, with both results.

        Raises:
            ValueError: if delta is outside (0, 1) (the RDP accountant's message).
        """
        return self._query(
            BestEpsilonResult,
            target_delta,
            lambda: self.rdp.get_epsilon_and_order(target_delta),
            lambda: self.pld.get_epsilon_result(target_delta),
        )

    def get_epsilon(self, target_delta: object) -> Certified:
        """Certified epsilon at ``target_delta`` (see :meth:`get_epsilon_result`)."""
        return self.get_epsilon_result(target_delta).epsilon

    def get_delta_result(self, target_epsilon: object) -> BestDeltaResult:
        """The smaller certified delta of the two methods at ``target_epsilon``, with both results.

        Raises:
            ValueError: if epsilon is negative (the RDP accountant's message).
        """
        return self._query(
            BestDeltaResult,
            target_epsilon,
            lambda: self.rdp.get_delta_and_order(target_epsilon),
            lambda: self.pld.get_delta_result(target_epsilon),
        )

    def get_delta(self, target_epsilon: object) -> Certified:
        """Certified delta at ``target_epsilon`` (see :meth:`get_delta_result`)."""
        return self.get_delta_result(target_epsilon).delta
