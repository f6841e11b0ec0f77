r"""Frozen, declarative descriptions of mechanisms ("events").

Events describe; accountants and bound functions compute (the model of
dp_accounting's ``dp_event``).  Every event validates its parameters at
construction and stores numeric parameters as exact :class:`fractions.Fraction`
values (a float is taken as its exact binary value, a string such as ``"0.1"``
as the exact decimal).

All mechanisms have sensitivity 1:

* :class:`GaussianEvent`: :math:`M(D) = f(D) + N(0, \sigma^2)`, with
  ``noise_multiplier`` = :math:`\sigma`.
* :class:`LaplaceEvent`: :math:`M(D) = f(D) + \mathrm{Lap}(b)`, ``scale`` = b.
* :class:`RandomizedResponseEvent`: report the true bit with probability p.
* :class:`PoissonSampledEvent`: each record enters the minibatch independently
  with probability ``sampling_probability`` (q), then the inner mechanism runs;
  ``PoissonSampledEvent(sampling_probability, event)``, dp-accounting's argument order
  (the earlier ``(event, sampling_probability)`` is accepted too, told apart by type).
* :class:`FixedSizeSampledEvent`: a minibatch of exactly ``batch_size`` records
  drawn from ``dataset_size`` records, without replacement (default) or with.
* :class:`SelfComposedEvent`, :class:`ComposedEvent`: adaptive composition.

An event says what the mechanism *is*; which theorem bounds it is a choice of the
accountant: :class:`BoundOptions` (``RdpAccountant(bound=Bound.GENERAL)``, the command
line's ``--bound`` / ``--tau``).  ``ZhuWangSampledEvent`` and ``Wang2019SampledEvent``,
which put that choice into the event, are deprecated aliases of a
:class:`PoissonSampledEvent` / :class:`FixedSizeSampledEvent` plus the option
(:meth:`ZhuWangSampledEvent.split`); they remain readable in older certificates.

Error messages name the API parameter (``noise_multiplier must be > 0. Found
...``); the command line maps these names to its options (``--sigma``).
How an event is read (its certified RDP curve, its PLD pair, its references, its
parameters) is decided by its :class:`~rigorous_rdp.scheme.Scheme`, one per event shape,
listed in :mod:`rigorous_rdp.registry`.  :data:`EVENT_TAGS` holds the tags of the
composition events; each scheme adds those of its own events
(:func:`rigorous_rdp.registry.event_tags`).
"""

from __future__ import annotations

import enum
import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

from .errors import InvalidParameter
from .validation import (
    MAX_COUNT,
    MAX_TAYLOR_ORDER,
    count,
    flag,
    integer_in_range,
    positive,
    probability,
    tau_for_bound,
    unit_interval,
)

__all__ = [
    "Adjacency",
    "Bound",
    "BoundOptions",
    "ComposedEvent",
    "DpEvent",
    "FixedSizeSampledEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "PoissonSampledEvent",
    "RandomizedResponseEvent",
    "Sampling",
    "SelfComposedEvent",
    "Wang2019SampledEvent",
    "ZhuWangSampledEvent",
    "leaf_counts",
    "split_choice",
]


_E = TypeVar("_E", bound="_Choice")


class _Choice(enum.Enum):
    """An enum whose members are also named by their values (the option texts)."""

    @classmethod
    def parse(cls: type[_E], value: object) -> _E:
        """The member given as itself or by its value; else ``ValueError`` naming the parameter
        (the class name in lower case)."""
        if isinstance(value, cls):
            return value
        for member in cls:
            if member.value == value:
                return member
        names = ", ".join(m.value for m in cls)
        raise InvalidParameter(cls.__name__.lower(), f"must be one of {names}", _Repr(value))


class _Repr(str):
    """A value quoted by its repr in a message (``'renyi'``, ``''``, ``None``)."""

    def __new__(cls, value: object) -> _Repr:
        return super().__new__(cls, repr(value))


class Adjacency(_Choice):
    """Neighbouring relation between datasets."""

    ADD_REMOVE = "add-remove"
    REPLACE_ONE = "replace-one"


def _event_first(event: object, other: object) -> tuple[object, object]:
    """``(event, other)`` given in either order: dp-accounting puts the sampling probability
    before the event, this package's earlier signatures after it; the one that is a
    :class:`DpEvent` is the event (two events or none: left as given, for the validation)."""
    if not isinstance(event, DpEvent) and isinstance(other, DpEvent):
        return other, event
    return event, other


def _dp_accounting_sizes_order(ev: FixedSizeSampledEvent | Wang2019SampledEvent) -> None:
    """``(dataset_size, batch_size, event)``, the order of dp-accounting's
    ``SampledWithoutReplacementDpEvent(source_dataset_size, sample_size, event)``, read as such
    when the event comes last (told apart by type, as for :class:`PoissonSampledEvent`)."""
    event, batch, dataset = ev.event, ev.batch_size, ev.dataset_size
    if not isinstance(event, DpEvent) and isinstance(dataset, DpEvent):
        _set(ev, "event", dataset)
        _set(ev, "batch_size", batch)
        _set(ev, "dataset_size", event)


def _check_event(value: object, name: str = "event") -> None:
    if not isinstance(value, DpEvent):
        raise InvalidParameter(name, "must be a DpEvent", value)


class Sampling(enum.Enum):
    """The built-in sampling schemes (the registry lists every scheme by name:
    :func:`rigorous_rdp.registry.samplings`)."""

    NONE = "none"
    POISSON = "poisson"
    FSWOR = "fswor"
    FSWR = "fswr"


class Bound(_Choice):
    """An explicitly chosen bound (the ``--bound`` option); ``None`` on an event means
    the default, i.e. the tightest valid upper bound the toolkit has.

    ``TIGHT``: Zhu & Wang 2019 Thm 8 (needs condition (4)); ``GENERAL``: Thm 5;
    ``LOWER``: Thm 6 (a lower bound, never a guarantee); ``TAU``: Thm 11 (or its
    Thm 5 analogue); ``WANG2019``: Wang, Balle, Kasiviswanathan 2019, Thm 9.
    """

    TIGHT = "tight"
    GENERAL = "general"
    LOWER = "lower"
    TAU = "tau"
    WANG2019 = "wang2019"


@dataclass(frozen=True, slots=True, init=False)
class BoundOptions:
    """The accountant's choice of theorem for every one-step event it composes (an option
    of :class:`~rigorous_rdp.accountant.RdpAccountant`, never a field of an event).

    Args:
        bound: ``None`` (default): the tightest valid upper bound the toolkit certifies for
            each event; else a :class:`Bound` (or its value), which must apply to every event
            composed (:meth:`rigorous_rdp.scheme.Scheme.check_options`).  ``LOWER`` is a lower
            bound (Zhu & Wang 2019, Thm 6): shown, never turned into epsilon or delta.
        tau: the number of exact terms of ``bound`` ``TAU`` (integer >= 1; only with it).
        taylor_order: order m >= 3 of the Taylor bounds of Birrell et al. for fixed-size
            sampling, or ``None`` (default) for the tightest bound the toolkit certifies (FSwoR
            add/remove: Thm 3.1 (6) exactly; replace-one: m chosen per order, minimum with Wang
            et al. 2019).  An explicit m gives exactly the Taylor bound of order m (FSwR: no
            effect, its bound has no Taylor order).
    """

    bound: Bound | None
    tau: int | None
    taylor_order: int | None

    def __init__(self, bound: Bound | str | None = None, tau: object = None, taylor_order: object = None):
        b = None if bound is None else Bound.parse(bound)
        _set(self, "bound", b)
        _set(self, "tau", tau_for_bound(b, tau))
        m = None if taylor_order is None else integer_in_range(taylor_order, "taylor_order", 3, MAX_TAYLOR_ORDER)
        _set(self, "taylor_order", m)

    @property
    def is_default(self) -> bool:
        """True when no theorem is chosen (each event gets its scheme's default bound)."""
        return self.bound is None and self.taylor_order is None

    @property
    def name(self) -> str:
        """``"default"`` or the bound's value."""
        return "default" if self.bound is None else self.bound.value

    def to_json(self) -> dict[str, object]:
        """``{"bound": value or null, "tau": K or null, "taylor_order": m or null}`` (certificates'
        ``method.accounting``)."""
        bound = None if self.bound is None else self.bound.value
        return {"bound": bound, "tau": self.tau, "taylor_order": self.taylor_order}

    @classmethod
    def from_json(cls, obj: object) -> BoundOptions:
        """Inverse of :meth:`to_json` (``ValueError`` on anything else)."""
        keys = {"bound", "tau", "taylor_order"}
        if not isinstance(obj, dict) or set(obj) != keys:
            raise InvalidParameter("accounting", "must be an object with the keys bound, tau, taylor_order", _Repr(obj))
        for name in ("tau", "taylor_order"):
            if isinstance(obj[name], bool) or not (obj[name] is None or isinstance(obj[name], int)):
                raise InvalidParameter(name, "must be an integer or null", _Repr(obj[name]))
        return cls(obj["bound"], obj["tau"], obj["taylor_order"])


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is deprecated: events say what the mechanism is, the accountant chooses the bound; use {new}.",
        DeprecationWarning,
        stacklevel=4,  # warn, _deprecated, __post_init__, __init__: the caller's line
    )


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


class DpEvent:
    """Base class of all events."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class GaussianEvent(DpEvent):
    r"""Gaussian mechanism with sensitivity 1 and noise :math:`N(0, \sigma^2)`.

    Args:
        noise_multiplier: :math:`\sigma > 0`.
    """

    noise_multiplier: Fraction

    def __post_init__(self) -> None:
        _set(self, "noise_multiplier", positive(self.noise_multiplier, "noise_multiplier"))


@dataclass(frozen=True, slots=True, init=False)
class LaplaceEvent(DpEvent):
    r"""Laplace mechanism with sensitivity 1 and noise :math:`\mathrm{Lap}(b)`.

    ``LaplaceEvent(noise_multiplier=b)`` is the same event in dp-accounting's words: its
    ``LaplaceDpEvent(noise_multiplier)`` is the scale over the L1 sensitivity, which is 1 here;
    :attr:`noise_multiplier` reads the scale back.

    Args:
        scale: :math:`b > 0` (or ``noise_multiplier=b``, not both).
    """

    scale: Fraction

    def __init__(self, scale: object = None, *, noise_multiplier: object = None) -> None:
        if scale is not None and noise_multiplier is not None:
            raise TypeError("LaplaceEvent takes one of scale and noise_multiplier (the same number here), not both")
        if noise_multiplier is None:
            _set(self, "scale", positive(scale, "scale"))
        else:
            _set(self, "scale", positive(noise_multiplier, "noise_multiplier"))

    @property
    def noise_multiplier(self) -> Fraction:
        """The scale over the sensitivity (1): dp-accounting's name of the parameter."""
        return self.scale


@dataclass(frozen=True, slots=True)
class RandomizedResponseEvent(DpEvent):
    r"""Binary randomized response: report the true bit with probability p.

    Args:
        p: probability in (0, 1) (p = 1/2 is perfectly private).
    """

    p: Fraction

    def __post_init__(self) -> None:
        _set(self, "p", unit_interval(self.p, "p", open_low=True, open_high=True))


@dataclass(frozen=True, slots=True, init=False)
class PoissonSampledEvent(DpEvent):
    """Poisson subsampling with probability q followed by ``event``.

    ``PoissonSampledEvent(sampling_probability, event)`` is the order of dp-accounting's
    ``PoissonSampledDpEvent``.  The earlier positional order ``PoissonSampledEvent(event,
    sampling_probability)`` is still accepted: the two arguments are told apart by type (the
    one that is a :class:`DpEvent` is the event).  With keywords, name both (in any order);
    one positional argument plus one keyword binds the positional one to
    ``sampling_probability``.

    Args:
        sampling_probability: q in [0, 1].
        event: the mechanism applied to the minibatch.
        adjacency: add-remove (default) or replace-one.
    """

    event: DpEvent
    sampling_probability: Fraction
    adjacency: Adjacency = Adjacency.ADD_REMOVE

    def __init__(
        self, sampling_probability: object, event: object, adjacency: Adjacency | str = Adjacency.ADD_REMOVE
    ) -> None:
        event, sampling_probability = _event_first(event, sampling_probability)
        _set(self, "event", event)
        _set(self, "sampling_probability", sampling_probability)
        _set(self, "adjacency", adjacency)
        self.__post_init__()

    def __post_init__(self) -> None:
        _check_event(self.event)
        _set(self, "sampling_probability", probability(self.sampling_probability))
        _set(self, "adjacency", Adjacency.parse(self.adjacency))


@dataclass(frozen=True, slots=True)
class FixedSizeSampledEvent(DpEvent):
    """Fixed-size minibatch of ``batch_size`` out of ``dataset_size`` records.

    ``FixedSizeSampledEvent(dataset_size, batch_size, event)``, the order of dp-accounting's
    ``SampledWithoutReplacementDpEvent`` / ``SampledWithReplacementDpEvent``, is accepted too
    (the event last; told apart by type).

    Args:
        event: the mechanism applied to the minibatch (sum of clipped terms).
        batch_size: |B| >= 1.
        dataset_size: |D| >= |B|.
        replacement: ``False`` for sampling without replacement (FSwoR),
            ``True`` with replacement (FSwR).
        adjacency: add-remove or replace-one.
        taylor_order: deprecated (a choice of theorem, not a property of the mechanism): use
            the accountant option ``RdpAccountant(taylor_order=m)`` (:class:`BoundOptions`);
            an event given one stands for the event without it and that option
            (:meth:`split`).  ``None`` (default).
    """

    event: DpEvent
    batch_size: int
    dataset_size: int
    replacement: bool = False
    adjacency: Adjacency = Adjacency.ADD_REMOVE
    taylor_order: int | None = None

    def __post_init__(self) -> None:
        _fixed_size_fields(self)
        if self.taylor_order is not None:
            _set(self, "taylor_order", integer_in_range(self.taylor_order, "taylor_order", 3, MAX_TAYLOR_ORDER))
        flag(self.replacement, "replacement")
        _set(self, "adjacency", Adjacency.parse(self.adjacency))
        if self.taylor_order is not None:
            _deprecated("FixedSizeSampledEvent(taylor_order=m)", "RdpAccountant(taylor_order=m)")

    @property
    def sampling_probability(self) -> Fraction:
        return Fraction(self.batch_size, self.dataset_size)

    def split(self) -> tuple[FixedSizeSampledEvent, BoundOptions]:
        """The event without a Taylor order and the accountant option it stands for."""
        event = FixedSizeSampledEvent(self.event, self.batch_size, self.dataset_size, self.replacement, self.adjacency)
        return event, BoundOptions(taylor_order=self.taylor_order)


@dataclass(frozen=True, slots=True)
class SelfComposedEvent(DpEvent):
    """``event`` applied ``count`` times (adaptive composition)."""

    event: DpEvent
    count: int

    def __post_init__(self) -> None:
        _check_event(self.event)
        _set(self, "count", count(self.count, "count", 0))


@dataclass(frozen=True, slots=True)
class ComposedEvent(DpEvent):
    """Adaptive composition of several events."""

    events: tuple[DpEvent, ...]

    def __post_init__(self) -> None:
        evs = tuple(self.events)
        for e in evs:
            _check_event(e, "events")
        _set(self, "events", evs)


@dataclass(frozen=True, slots=True)
class ZhuWangSampledEvent(DpEvent):
    r"""Deprecated: Poisson subsampling (probability q, add/remove) of ``event``, accounted
    with a chosen Zhu & Wang 2019 bound.  Use ``PoissonSampledEvent(event, q)`` and the
    accountant option ``RdpAccountant(bound=..., tau=...)`` (:meth:`split` gives both).

    The event and the sampling probability may come in either order (told apart by type), as
    for :class:`PoissonSampledEvent`: ``ZhuWangSampledEvent(q, event)`` is dp-accounting's order.

    Args:
        event: the base mechanism (GaussianEvent, LaplaceEvent, RandomizedResponseEvent).
        sampling_probability: q in [0, 1].
        bound: :class:`Bound` ``TIGHT`` | ``GENERAL`` | ``LOWER`` | ``TAU`` (or its
            value as a string); ``None``: the tightest valid bound.  ``LOWER``
            (Thm 6) is a LOWER bound, for display and comparison only: the
            accountant refuses to turn it into an epsilon or delta.
        tau: number of exact terms for ``TAU`` (integer >= 1).
    """

    event: DpEvent
    sampling_probability: Fraction
    bound: Bound | None = None
    tau: int | None = None

    def __post_init__(self) -> None:
        # (sampling_probability, event), dp-accounting's order, is accepted as well (told apart by type)
        event, q = _event_first(self.event, self.sampling_probability)
        _set(self, "event", event)
        _set(self, "sampling_probability", q)
        _check_event(self.event)
        _set(self, "sampling_probability", probability(self.sampling_probability))
        if self.bound is not None:
            b = Bound.parse(self.bound)
            if b is Bound.WANG2019:
                raise InvalidParameter(
                    "bound", "must be one of tight, general, lower, tau for Poisson sampling", "wang2019"
                )
            _set(self, "bound", b)
        _set(self, "tau", tau_for_bound(self.bound, self.tau))
        _deprecated("ZhuWangSampledEvent", "PoissonSampledEvent(event, q) with RdpAccountant(bound=..., tau=...)")

    def split(self) -> tuple[PoissonSampledEvent, BoundOptions]:
        """The mechanism (a :class:`PoissonSampledEvent`, add-remove) and the accountant option
        this event stands for (``bound`` ``None`` here meant ``TIGHT``: every mechanism the
        event accepts satisfies condition (4))."""
        event = PoissonSampledEvent(self.event, self.sampling_probability)
        return event, BoundOptions(self.bound or Bound.TIGHT, self.tau)


@dataclass(frozen=True, slots=True)
class Wang2019SampledEvent(DpEvent):
    r"""Deprecated: fixed-size sampling without replacement, replace-one adjacency, accounted
    with the Wang, Balle, Kasiviswanathan 2019 bound (Theorem 9) instead of Birrell et al.
    Use ``FixedSizeSampledEvent(event, b, n, adjacency="replace-one")`` and the accountant
    option ``RdpAccountant(bound="wang2019")`` (:meth:`split` gives both).

    The order ``(dataset_size, batch_size, event)`` is accepted too, as for
    :class:`FixedSizeSampledEvent`.

    Args:
        event: the mechanism applied to the minibatch.
        batch_size: |B| >= 1.
        dataset_size: |D| >= |B|.
    """

    event: DpEvent
    batch_size: int
    dataset_size: int

    def __post_init__(self) -> None:
        _fixed_size_fields(self)
        _deprecated(
            "Wang2019SampledEvent",
            "FixedSizeSampledEvent(event, b, n, adjacency='replace-one') with RdpAccountant(bound='wang2019')",
        )

    @property
    def sampling_probability(self) -> Fraction:
        return Fraction(self.batch_size, self.dataset_size)

    def split(self) -> tuple[FixedSizeSampledEvent, BoundOptions]:
        """The mechanism (FSwoR, replace-one) and the accountant option this event stands for."""
        event = FixedSizeSampledEvent(self.event, self.batch_size, self.dataset_size, adjacency=Adjacency.REPLACE_ONE)
        return event, BoundOptions(Bound.WANG2019)


def split_choice(event: DpEvent) -> tuple[DpEvent, BoundOptions | None]:
    """A one-step event without a choice of theorem, and the choice a deprecated event
    carries (``None`` for every other event)."""
    if isinstance(event, (ZhuWangSampledEvent, Wang2019SampledEvent)):
        return event.split()
    if isinstance(event, FixedSizeSampledEvent) and event.taylor_order is not None:
        return event.split()
    return event, None


def _fixed_size_fields(event: FixedSizeSampledEvent | Wang2019SampledEvent) -> None:
    """The inner event and the sizes of a fixed-size event, checked and stored exactly."""
    _dp_accounting_sizes_order(event)
    _check_event(event.event)
    b, n = _sizes(event.batch_size, event.dataset_size)
    _set(event, "batch_size", b)
    _set(event, "dataset_size", n)


def _sizes(batch_size: object, dataset_size: object) -> tuple[int, int]:
    b = integer_in_range(batch_size, "batch_size", 1, MAX_COUNT)
    n = integer_in_range(dataset_size, "dataset_size", 1, MAX_COUNT)
    if b > n:
        raise InvalidParameter("batch_size", f"must be <= {{dataset_size}} ({n})", b, related=("dataset_size",))
    return b, n


def leaf_counts(event: DpEvent, count: int = 1) -> list[tuple[DpEvent, int]]:
    """The one-step events of a (possibly composed) event with their numbers of applications,
    in order (repeated leaves appear once per occurrence).

    Raises:
        ValueError: if a part is not a :class:`DpEvent`.
    """
    if isinstance(event, SelfComposedEvent):
        return leaf_counts(event.event, count * event.count)
    if isinstance(event, ComposedEvent):
        out: list[tuple[DpEvent, int]] = []
        for e in event.events:
            out.extend(leaf_counts(e, count))
        return out
    _check_event(event)
    return [(event, count)]


#: the ``type`` tag of each event class in JSON (certificates); fields serialise generically
EVENT_TAGS: dict[str, type] = {
    "gaussian": GaussianEvent,
    "laplace": LaplaceEvent,
    "randomized-response": RandomizedResponseEvent,
    "poisson-sampled": PoissonSampledEvent,
    "fixed-size-sampled": FixedSizeSampledEvent,
    "zhu-wang-sampled": ZhuWangSampledEvent,
    "wang2019-sampled": Wang2019SampledEvent,
    "self-composed": SelfComposedEvent,
    "composed": ComposedEvent,
}
