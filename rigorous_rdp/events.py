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
  with probability ``sampling_probability`` (q), then the inner mechanism runs.
* :class:`FixedSizeSampledEvent`: a minibatch of exactly ``batch_size`` records
  drawn from ``dataset_size`` records, without replacement (default) or with.
* :class:`SelfComposedEvent`, :class:`ComposedEvent`: adaptive composition.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Tuple

from .arith import parse_rational
from .validation import integer_at_least

__all__ = [
    "Adjacency",
    "DpEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "RandomizedResponseEvent",
    "PoissonSampledEvent",
    "FixedSizeSampledEvent",
    "SelfComposedEvent",
    "ComposedEvent",
]


class Adjacency(enum.Enum):
    """Neighbouring relation between datasets."""

    ADD_REMOVE = "add-remove"
    REPLACE_ONE = "replace-one"

    @classmethod
    def parse(cls, value: "Adjacency | str") -> "Adjacency":
        if isinstance(value, Adjacency):
            return value
        for member in cls:
            if member.value == value:
                return member
        raise ValueError(f"adjacency must be one of add-remove, replace-one. Found {value!r}.")


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
        s = parse_rational(self.noise_multiplier, "sigma")
        if s <= 0:
            raise ValueError(f"sigma must be > 0. Found {float(s)!r}.")
        _set(self, "noise_multiplier", s)


@dataclass(frozen=True, slots=True)
class LaplaceEvent(DpEvent):
    r"""Laplace mechanism with sensitivity 1 and noise :math:`\mathrm{Lap}(b)`.

    Args:
        scale: :math:`b > 0`.
    """

    scale: Fraction

    def __post_init__(self) -> None:
        b = parse_rational(self.scale, "scale")
        if b <= 0:
            raise ValueError(f"scale must be > 0. Found {float(b)!r}.")
        _set(self, "scale", b)


@dataclass(frozen=True, slots=True)
class RandomizedResponseEvent(DpEvent):
    r"""Binary randomized response: report the true bit with probability p.

    Args:
        p: probability in (0, 1) (p = 1/2 is perfectly private).
    """

    p: Fraction

    def __post_init__(self) -> None:
        p = parse_rational(self.p, "p")
        if not 0 < p < 1:
            raise ValueError(f"p must be in (0, 1). Found {float(p)!r}.")
        _set(self, "p", p)


@dataclass(frozen=True, slots=True)
class PoissonSampledEvent(DpEvent):
    """Poisson subsampling with probability q followed by ``event``.

    Args:
        event: the mechanism applied to the minibatch.
        sampling_probability: q in [0, 1].
        adjacency: add-remove (default) or replace-one.
    """

    event: DpEvent
    sampling_probability: Fraction
    adjacency: Adjacency = Adjacency.ADD_REMOVE

    def __post_init__(self) -> None:
        if not isinstance(self.event, DpEvent):
            raise ValueError(f"event must be a DpEvent. Found {self.event!r}.")
        q = parse_rational(self.sampling_probability, "q")
        if not 0 <= q <= 1:
            raise ValueError(f"q must be in [0, 1]. Found {float(q)!r}.")
        _set(self, "sampling_probability", q)
        _set(self, "adjacency", Adjacency.parse(self.adjacency))


@dataclass(frozen=True, slots=True)
class FixedSizeSampledEvent(DpEvent):
    """Fixed-size minibatch of ``batch_size`` out of ``dataset_size`` records.

    Args:
        event: the mechanism applied to the minibatch (sum of clipped terms).
        batch_size: |B| >= 1.
        dataset_size: |D| >= |B|.
        replacement: ``False`` for sampling without replacement (FSwoR),
            ``True`` with replacement (FSwR).
        adjacency: add-remove or replace-one.
        taylor_order: order m >= 3 of the Taylor bounds of Birrell et al., or ``None``
            (default) for the tightest bound the toolkit certifies (FSwoR add/remove:
            Thm 3.1 (6) exactly; replace-one: m chosen per order, minimum with
            Wang et al. 2019).  An explicit m gives exactly the Taylor bound of order m.
    """

    event: DpEvent
    batch_size: int
    dataset_size: int
    replacement: bool = False
    adjacency: Adjacency = Adjacency.ADD_REMOVE
    taylor_order: Optional[int] = None

    def __post_init__(self) -> None:
        if not isinstance(self.event, DpEvent):
            raise ValueError(f"event must be a DpEvent. Found {self.event!r}.")
        b = _positive_int(self.batch_size, "batch-size")
        n = _positive_int(self.dataset_size, "dataset-size")
        if b > n:
            raise ValueError(f"batch-size must be <= dataset-size ({n}). Found {b}.")
        m = None if self.taylor_order is None else _positive_int(self.taylor_order, "taylor-order")
        if m is not None and m < 3:
            raise ValueError(f"taylor-order must be an integer >= 3. Found {m}.")
        _set(self, "batch_size", b)
        _set(self, "dataset_size", n)
        _set(self, "taylor_order", m)
        _set(self, "replacement", bool(self.replacement))
        _set(self, "adjacency", Adjacency.parse(self.adjacency))

    @property
    def sampling_probability(self) -> Fraction:
        return Fraction(self.batch_size, self.dataset_size)


@dataclass(frozen=True, slots=True)
class SelfComposedEvent(DpEvent):
    """``event`` applied ``count`` times (adaptive composition)."""

    event: DpEvent
    count: int

    def __post_init__(self) -> None:
        if not isinstance(self.event, DpEvent):
            raise ValueError(f"event must be a DpEvent. Found {self.event!r}.")
        _set(self, "count", _nonnegative_int(self.count, "steps"))


@dataclass(frozen=True, slots=True)
class ComposedEvent(DpEvent):
    """Adaptive composition of several events."""

    events: Tuple[DpEvent, ...]

    def __post_init__(self) -> None:
        evs = tuple(self.events)
        for e in evs:
            if not isinstance(e, DpEvent):
                raise ValueError(f"events must be DpEvents. Found {e!r}.")
        _set(self, "events", evs)


def _positive_int(value: object, name: str) -> int:
    return integer_at_least(value, name, 1)


def _nonnegative_int(value: object, name: str) -> int:
    return integer_at_least(value, name, 0)
