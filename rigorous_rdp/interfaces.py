r"""Interfaces users already know: Opacus-style and dp-accounting-style accountants.

Both are thin adapters over :class:`rigorous_rdp.accountant.RdpAccountant`; the
numbers they return are the *upper* ends of certified enclosures, rounded up to
a Python float (never ``float(arb)``, which is a rounded midpoint).  The
certified enclosure itself is available from ``get_epsilon_and_order``.

Opacus style (``opacus.accountants.RDPAccountant``)::

    from rigorous_rdp.interfaces import RDPAccountant   # instead of opacus.accountants
    accountant = RDPAccountant()
    for _ in range(steps):
        accountant.step(noise_multiplier=1.1, sample_rate=0.01)
    eps = accountant.get_epsilon(delta=1e-5)

dp-accounting style (``dp_accounting`` with ``dp_accounting.rdp.RdpAccountant``)::

    import rigorous_rdp.interfaces as dp_accounting     # instead of: import dp_accounting
    event = dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1))
    acc = dp_accounting.rdp.RdpAccountant()
    acc.compose(event, 10000)
    eps, order = acc.get_epsilon_and_optimal_order(1e-5)

The event constructors take dp-accounting's argument order and names
(``PoissonSampledDpEvent(sampling_probability, event)``,
``SampledWithoutReplacementDpEvent(source_dataset_size, sample_size, event)``,
``SelfComposedDpEvent(event, count)``, ``ComposedDpEvent(events)``) and return
the frozen events of :mod:`rigorous_rdp.events`.  As in dp-accounting, the
neighbouring relation is an option of the accountant; it is applied to every
sampled event that is composed.

Floats.  Code written for float accountants passes ``1.1`` meaning the decimal
1.1, while the float is a nearby binary number.  These adapters therefore take,
for every float parameter, whichever of the two readings (exact binary value or
the shortest decimal ``repr``) gives the *weaker* privacy claim: the smaller
noise multiplier, the larger sampling rate, the smaller target delta or epsilon.
The certified result then holds for what the user meant and for what the float
is.  Pass strings (``"0.01"``) or Fractions for exact decimals.
"""

from __future__ import annotations

import enum
import math
import types
from fractions import Fraction
from typing import Iterable, List, Optional, Sequence, Tuple

from .accountant import EpsilonResult, RdpAccountant
from .arith import DEFAULT_DIGITS
from .events import (
    Adjacency,
    ComposedEvent,
    DpEvent,
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RandomizedResponseEvent,
    SelfComposedEvent,
)

def _conservative(value: object, smaller: bool) -> object:
    """For a float, the smaller (or larger) of its binary value and its decimal repr."""
    if isinstance(value, float) and math.isfinite(value):
        a, b = Fraction(value), Fraction(repr(value))
        return min(a, b) if smaller else max(a, b)
    return value


__all__ = [
    "RDPAccountant",
    "NeighboringRelation",
    "GaussianDpEvent",
    "LaplaceDpEvent",
    "RandomizedResponseDpEvent",
    "PoissonSampledDpEvent",
    "SampledWithoutReplacementDpEvent",
    "SampledWithReplacementDpEvent",
    "SelfComposedDpEvent",
    "ComposedDpEvent",
    "DpEventRdpAccountant",
    "rdp",
]


# ---------------------------------------------------------------------------
# Opacus style
# ---------------------------------------------------------------------------

class RDPAccountant:
    r"""Accountant with the methods of Opacus's ``RDPAccountant``, certified.

    Each :meth:`step` records one Poisson-subsampled Gaussian step (add/remove
    adjacency) with noise multiplier :math:`\sigma` and sampling rate q;
    consecutive identical steps are merged, as Opacus does in its ``history``.

    Args:
        orders: order grid (default: dp-accounting's grid; Opacus's
            ``alphas`` argument of ``get_epsilon`` overrides it per call).
        continuous: also optimise over real orders (default True).
        conversion: RDP to DP conversion (``"best"``, default).
        digits: relative width of the certified enclosures.
    """

    def __init__(self, orders: Optional[Iterable[object]] = None, *, continuous: bool = True,
                 conversion: str = "best", digits: float = DEFAULT_DIGITS):
        RdpAccountant(orders, continuous=continuous, conversion=conversion, digits=digits)  # validate
        self.orders = None if orders is None else list(orders)
        self.continuous = continuous
        self.conversion = conversion
        self.digits = digits
        #: list of (noise_multiplier, sample_rate, num_steps), as in Opacus
        self.history: List[Tuple[object, object, int]] = []

    @staticmethod
    def mechanism() -> str:
        return "rdp"

    def step(self, *, noise_multiplier: object, sample_rate: object) -> None:
        """Record one step (validated now: bad values raise ``ValueError``)."""
        noise_multiplier = _conservative(noise_multiplier, smaller=True)
        sample_rate = _conservative(sample_rate, smaller=False)
        PoissonSampledEvent(GaussianEvent(noise_multiplier), sample_rate)
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        return sum(n for _, _, n in self.history)

    def _accountant(self, alphas: Optional[Sequence[object]] = None) -> RdpAccountant:
        orders = alphas if alphas is not None else self.orders
        acc = RdpAccountant(orders, continuous=self.continuous if alphas is None else False,
                            conversion=self.conversion, digits=self.digits)
        for s, q, n in self.history:
            acc.compose(PoissonSampledEvent(GaussianEvent(s), q), n)
        return acc

    def get_epsilon_and_order(self, delta: object, alphas: Optional[Sequence[object]] = None) -> EpsilonResult:
        """Certified result (enclosure, order, conversion) for ``delta``."""
        return self._accountant(alphas).get_epsilon_and_order(_conservative(delta, smaller=True))

    def get_privacy_spent(self, *, delta: object, alphas: Optional[Sequence[object]] = None) -> Tuple[float, float]:
        """``(epsilon, order)``: the certified upper bound rounded up, and the order used."""
        res = self.get_epsilon_and_order(delta, alphas)
        order = math.inf if res.order is None else float(res.order)
        return res.epsilon.upper_float(), order

    def get_epsilon(self, delta: object, alphas: Optional[Sequence[object]] = None) -> float:
        """Certified epsilon upper bound (rounded up to a float) for ``delta``."""
        return self.get_privacy_spent(delta=delta, alphas=alphas)[0]


# ---------------------------------------------------------------------------
# dp-accounting style
# ---------------------------------------------------------------------------

class NeighboringRelation(enum.Enum):
    """dp-accounting's names for the neighbouring relations supported here."""

    ADD_OR_REMOVE_ONE = Adjacency.ADD_REMOVE
    REPLACE_ONE = Adjacency.REPLACE_ONE


def GaussianDpEvent(noise_multiplier: object) -> GaussianEvent:  # noqa: N802 - dp-accounting's name
    """Gaussian mechanism with sensitivity 1 and noise multiplier ``noise_multiplier``."""
    return GaussianEvent(_conservative(noise_multiplier, smaller=True))


def LaplaceDpEvent(noise_multiplier: object) -> LaplaceEvent:  # noqa: N802
    """Laplace mechanism, sensitivity 1, scale ``noise_multiplier`` (dp-accounting's parameter name)."""
    return LaplaceEvent(_conservative(noise_multiplier, smaller=True))


def RandomizedResponseDpEvent(p: object) -> RandomizedResponseEvent:  # noqa: N802
    """Binary randomized response reporting the true bit with probability ``p``."""
    return RandomizedResponseEvent(p)


def PoissonSampledDpEvent(sampling_probability: object, event: DpEvent) -> PoissonSampledEvent:  # noqa: N802
    """Poisson sampling with probability ``sampling_probability``, then ``event``."""
    return PoissonSampledEvent(event, _conservative(sampling_probability, smaller=False))


def SampledWithoutReplacementDpEvent(source_dataset_size: int, sample_size: int,  # noqa: N802
                                     event: DpEvent) -> FixedSizeSampledEvent:
    """Fixed-size sampling of ``sample_size`` of ``source_dataset_size`` records without replacement."""
    return FixedSizeSampledEvent(event, sample_size, source_dataset_size, replacement=False)


def SampledWithReplacementDpEvent(source_dataset_size: int, sample_size: int,  # noqa: N802
                                  event: DpEvent) -> FixedSizeSampledEvent:
    """Fixed-size sampling of ``sample_size`` of ``source_dataset_size`` records with replacement."""
    return FixedSizeSampledEvent(event, sample_size, source_dataset_size, replacement=True)


def SelfComposedDpEvent(event: DpEvent, count: int) -> SelfComposedEvent:  # noqa: N802
    """``event`` composed with itself ``count`` times."""
    return SelfComposedEvent(event, count)


def ComposedDpEvent(events: Sequence[DpEvent]) -> ComposedEvent:  # noqa: N802
    """Composition of ``events``."""
    return ComposedEvent(tuple(events))


def _with_adjacency(event: DpEvent, adjacency: Adjacency) -> DpEvent:
    if isinstance(event, PoissonSampledEvent):
        return PoissonSampledEvent(_with_adjacency(event.event, adjacency), event.sampling_probability, adjacency)
    if isinstance(event, FixedSizeSampledEvent):
        return FixedSizeSampledEvent(_with_adjacency(event.event, adjacency), event.batch_size, event.dataset_size,
                                     replacement=event.replacement, adjacency=adjacency,
                                     taylor_order=event.taylor_order)
    if isinstance(event, SelfComposedEvent):
        return SelfComposedEvent(_with_adjacency(event.event, adjacency), event.count)
    if isinstance(event, ComposedEvent):
        return ComposedEvent(tuple(_with_adjacency(e, adjacency) for e in event.events))
    return event


class DpEventRdpAccountant:
    r"""Accountant with the methods of ``dp_accounting.rdp.RdpAccountant``, certified.

    Args:
        orders: order grid (default: dp-accounting's default grid).
        neighboring_relation: :class:`NeighboringRelation` (default add-or-remove-one),
            applied to every sampled event.
        continuous: also optimise over real orders (default False, so that the
            order grid is the one dp-accounting would use; set True for a
            tighter certified epsilon).
        conversion, digits: as in :class:`RdpAccountant`.
    """

    def __init__(self, orders: Optional[Sequence[object]] = None,
                 neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE, *,
                 continuous: bool = False, conversion: str = "best", digits: float = DEFAULT_DIGITS):
        if not isinstance(neighboring_relation, NeighboringRelation):
            raise ValueError(f"adjacency must be a NeighboringRelation. Found {neighboring_relation!r}.")
        self.neighboring_relation = neighboring_relation
        self._acc = RdpAccountant(orders, continuous=continuous, conversion=conversion, digits=digits)

    @property
    def accountant(self) -> RdpAccountant:
        """The underlying certified accountant."""
        return self._acc

    def supports(self, event: DpEvent) -> bool:
        return self._acc.supports(_with_adjacency(event, self.neighboring_relation.value))

    def compose(self, event: DpEvent, count: int = 1) -> "DpEventRdpAccountant":
        self._acc.compose(_with_adjacency(event, self.neighboring_relation.value), count)
        return self

    def get_epsilon_and_optimal_order(self, target_delta: object) -> Tuple[float, float]:
        """``(epsilon, order)``: certified upper bound rounded up, and the order (inf for pure DP)."""
        res = self.get_epsilon_and_order(target_delta)
        return res.epsilon.upper_float(), (math.inf if res.order is None else float(res.order))

    def get_epsilon(self, target_delta: object) -> float:
        return self.get_epsilon_and_optimal_order(target_delta)[0]

    def get_epsilon_and_order(self, target_delta: object) -> EpsilonResult:
        """The certified result (enclosure, order, conversion)."""
        return self._acc.get_epsilon_and_order(_conservative(target_delta, smaller=True))

    def get_delta_and_optimal_order(self, target_epsilon: object) -> Tuple[float, float]:
        res = self._acc.get_delta_and_order(_conservative(target_epsilon, smaller=True))
        return res.delta.upper_float(), (math.inf if res.order is None else float(res.order))

    def get_delta(self, target_epsilon: object) -> float:
        return self.get_delta_and_optimal_order(target_epsilon)[0]


#: namespace so that ``dp_accounting.rdp.RdpAccountant`` keeps working after the import swap
rdp = types.SimpleNamespace(RdpAccountant=DpEventRdpAccountant)
