r"""The epoch-based batch samplers as event shapes (see :mod:`rigorous_rdp.scheme`):
balls-and-bins, random allocation and shuffling of the Gaussian mechanism.

One event is **one epoch** of ``steps_per_epoch`` = :math:`t` steps; an accountant composes it
once per epoch (``--epochs E`` on the command line).

* ``balls-and-bins`` (:class:`BallsAndBinsEvent`): each example is used in exactly one of the
  :math:`t` steps of an epoch, chosen uniformly at random and independently of the other examples
  (Chua et al., "Balls-and-Bins Sampling for DP-SGD", AISTATS 2025).  Certified RDP of
  :mod:`rigorous_rdp.subsampling.random_allocation` (remove direction exact, add direction a
  proven bound).
* ``random-allocation`` (:class:`RandomAllocationEvent`): each example in ``selected`` =
  :math:`k` of the :math:`t` steps, a uniformly random :math:`k`-subset (Feldman & Shenfeld,
  "Privacy amplification by random allocation", arXiv 2502.08202); :math:`k > 1` is bounded by
  the block decomposition of that module (an upper bound).
* ``shuffle`` (:class:`ShuffleEvent`): the data are shuffled each epoch and cut into
  ``dataset_size / batch_size`` batches of ``batch_size``.  **No upper bound on its privacy is
  known**: the scheme's only bound is a certified *lower* bound (the remove-direction RDP of the
  balls-and-bins pair, which a pair of neighbouring datasets under shuffling realises; see
  :mod:`rigorous_rdp.subsampling.shuffle`), and every command that reports a guarantee refuses it.

Adjacency: add/remove of one example (for shuffling, the lower bound is for a zero-out
neighbour, see :mod:`rigorous_rdp.subsampling.shuffle`).  PLD: balls-and-bins has an attained pair and
random allocation with k > 1 a dominating one (:mod:`rigorous_rdp.pld.random_allocation`); shuffling
has none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .. import builtin_schemes
from .. import events as ev
from ..errors import InvalidParameter, UnsupportedEventError
from ..scheme import BoundChoice, Parameter, ReferenceFn, References, Scheme
from ..validation import MAX_COUNT, integer_in_range

if TYPE_CHECKING:
    from ..curves import RdpCurve

__all__ = ["EPOCH_SAMPLINGS", "SCHEMES", "BallsAndBinsEvent", "RandomAllocationEvent", "ShuffleEvent"]

#: the sampling schemes whose unit of composition is one epoch
EPOCH_SAMPLINGS = ("balls-and-bins", "random-allocation", "shuffle")
#: largest number of steps per epoch (the certified series cost does not grow with it)
MAX_STEPS_PER_EPOCH = 10**9


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


def _steps_per_epoch(value: object) -> int:
    return integer_in_range(value, "steps_per_epoch", 1, MAX_STEPS_PER_EPOCH)


def _check_event(value: object) -> None:
    if not isinstance(value, ev.DpEvent):
        raise InvalidParameter("event", "must be a DpEvent", value)


@dataclass(frozen=True, slots=True)
class RandomAllocationEvent(ev.DpEvent):
    r"""One epoch of random allocation: each example is used in ``selected`` = :math:`k` of the
    ``steps_per_epoch`` = :math:`t` steps, a uniformly random :math:`k`-subset, and every step
    runs ``event`` on the examples allocated to it (Feldman & Shenfeld 2025).

    Args:
        event: the mechanism of one step (a :class:`~rigorous_rdp.events.GaussianEvent`: the sum of
            gradients clipped to norm 1 plus Gaussian noise).
        steps_per_epoch: :math:`1 \le t \le 10^9`.
        selected: :math:`1 \le k \le t` (default 1: balls-and-bins).
    """

    event: ev.DpEvent
    steps_per_epoch: int
    selected: int = 1

    def __post_init__(self) -> None:
        _check_event(self.event)
        t = _steps_per_epoch(self.steps_per_epoch)
        _set(self, "steps_per_epoch", t)
        k = integer_in_range(self.selected, "selected", 1, MAX_COUNT)
        if k > t:
            raise InvalidParameter("selected", f"must be <= {{steps_per_epoch}} ({t})", k, related=("steps_per_epoch",))
        _set(self, "selected", k)


@dataclass(frozen=True, slots=True)
class BallsAndBinsEvent(ev.DpEvent):
    r"""One epoch of balls-and-bins sampling: each example is used in exactly one of the
    ``steps_per_epoch`` = :math:`t` steps, chosen uniformly at random and independently of the
    others (Chua et al., AISTATS 2025): random allocation with :math:`k = 1`.

    Args:
        event: the mechanism of one step (a :class:`~rigorous_rdp.events.GaussianEvent`).
        steps_per_epoch: :math:`1 \le t \le 10^9`.
    """

    event: ev.DpEvent
    steps_per_epoch: int

    def __post_init__(self) -> None:
        _check_event(self.event)
        _set(self, "steps_per_epoch", _steps_per_epoch(self.steps_per_epoch))

    @property
    def selected(self) -> int:
        """One step per example and epoch."""
        return 1


@dataclass(frozen=True, slots=True)
class ShuffleEvent(ev.DpEvent):
    r"""One epoch of shuffle-and-iterate: a uniformly random permutation of the ``dataset_size``
    = :math:`n` examples cut into :math:`t = n / b` batches of ``batch_size`` = :math:`b`.

    No upper bound on its privacy is known (Chua et al., "How Private are DP-SGD
    Implementations?", ICML 2024): the toolkit reports certified *lower* bounds only.

    Args:
        event: the mechanism of one step (a :class:`~rigorous_rdp.events.GaussianEvent`).
        batch_size: :math:`b \ge 1`.
        dataset_size: :math:`n`, a multiple of :math:`b` with :math:`n / b \le 10^9`.
    """

    event: ev.DpEvent
    batch_size: int
    dataset_size: int

    def __post_init__(self) -> None:
        _check_event(self.event)
        b = integer_in_range(self.batch_size, "batch_size", 1, MAX_COUNT)
        n = integer_in_range(self.dataset_size, "dataset_size", 1, MAX_COUNT)
        if n % b or n // b > MAX_STEPS_PER_EPOCH:
            raise InvalidParameter(
                "dataset_size",
                f"must be a multiple of {{batch_size}} ({b}) with at most {MAX_STEPS_PER_EPOCH} batches (shuffle)",
                n,
                related=("batch_size",),
            )
        _set(self, "batch_size", b)
        _set(self, "dataset_size", n)

    @property
    def steps_per_epoch(self) -> int:
        """The number of batches :math:`n / b`."""
        return self.dataset_size // self.batch_size


STEPS_PER_EPOCH = Parameter(
    "steps_per_epoch",
    "steps-per-epoch",
    "T",
    "steps per epoch (balls-and-bins, random-allocation), 1 <= T <= 1e9",
    "count",
    integer=True,
)
SELECTED = Parameter(
    "selected", "selected", "K", "steps of an epoch that use each example (random-allocation), 1 <= K <= T", "count",
    integer=True,
)  # fmt: skip

_CITATION = (
    "random allocation (Feldman & Shenfeld 2025): remove direction exact (one series power), add direction "
    "min(geometric-mean bound, Laplace-transform bound)"
)
SHUFFLE_REFUSAL = (
    "no upper bound on the privacy of shuffling is known, so a number for it is not a privacy guarantee; only "
    "lower bounds are certified: an RDP lower bound (rdp with shuffle sampling) and an epsilon lower bound next to the Poisson "
    "claim (dpsgd with shuffle sampling). Accounting shuffling as Poisson sampling over-claims (Chua et al., "
    "ICML 2024); train with balls-and-bins sampling to get a guarantee"
)


def _sigma(event: Any) -> Fraction:
    sigma: Fraction = event.event.noise_multiplier
    return sigma


class _EpochScheme(Scheme):
    """What the three epoch-based schemes share: the Gaussian mechanism, add/remove adjacency,
    the curve of :mod:`rigorous_rdp.subsampling.random_allocation` and its reference."""

    def __init__(self) -> None:
        self.noise = builtin_schemes.GAUSSIAN

    def rdp_references(self) -> Mapping[type, ReferenceFn]:
        from ..reference import random_allocation as ref
        from .random_allocation import RandomAllocationGaussianCurve
        from .shuffle import ShuffleLowerBoundCurve

        def allocation(c: Any, a: Fraction, dps: int, _r: References) -> Any:
            if a.denominator != 1:
                raise UnsupportedEventError("random allocation has integer orders only")
            return ref.allocation_rdp_reference(int(a), c.sigma, c.steps_per_epoch, c.selected, c.direction, dps) * (
                c.epochs
            )

        return {**(self.noise.references() if self.noise.references else {}), RandomAllocationGaussianCurve: allocation,
                ShuffleLowerBoundCurve: allocation}  # fmt: skip


class RandomAllocation(_EpochScheme):
    """``random-allocation`` (``selected`` of ``steps_per_epoch`` steps) or ``balls-and-bins``
    (one step) sampling of the Gaussian mechanism, add/remove adjacency."""

    def __init__(self, balls_and_bins: bool):
        super().__init__()
        self.balls_and_bins = balls_and_bins
        if balls_and_bins:
            self.sampling = "balls-and-bins"
            self.parameters = (STEPS_PER_EPOCH,)
            self.example = MappingProxyType({"steps_per_epoch": "10"})
            self.event_classes = {"balls-and-bins": BallsAndBinsEvent}
            self.shape = "balls-and-bins sampling of GaussianEvent"
            self.bounds = (BoundChoice(None, _CITATION + " (k = 1)"),)
        else:
            self.sampling = "random-allocation"
            self.parameters = (STEPS_PER_EPOCH, SELECTED)
            self.example = MappingProxyType({"steps_per_epoch": "10", "selected": "2"})
            self.event_classes = {"random-allocation": RandomAllocationEvent}
            self.shape = "random-allocation sampling of GaussianEvent"
            self.bounds = (BoundChoice(None, _CITATION + "; k > 1: sum over a block decomposition"),)
        self.description = f"{self.shape} with add-remove adjacency"

    def matches(self, event: ev.DpEvent) -> bool:
        cls = BallsAndBinsEvent if self.balls_and_bins else RandomAllocationEvent
        return type(event) is cls and type(event.event) is ev.GaussianEvent

    def build(self, base: ev.DpEvent, values: Mapping[str, Any]) -> ev.DpEvent:
        if self.balls_and_bins:
            return BallsAndBinsEvent(base, values["steps_per_epoch"])
        return RandomAllocationEvent(base, values["steps_per_epoch"], values["selected"])

    def rdp_curve(self, event: Any) -> RdpCurve:
        from .random_allocation import RandomAllocationGaussianCurve

        return RandomAllocationGaussianCurve(_sigma(event), event.steps_per_epoch, selected=event.selected)

    def pld_pair(self, event: Any) -> Any:
        from ..pld.random_allocation import allocation_pair

        return allocation_pair(_sigma(event), event.steps_per_epoch, event.selected)

    def reference_pld(self, event: Any) -> tuple[Any, tuple[Any, ...]] | None:
        from ..reference.random_allocation_pld import ALLOCATION_REFERENCE

        if event.steps_per_epoch == 1:  # one step per epoch: the Gaussian pair
            return "gaussian", (_sigma(event),)
        if event.selected > 1:
            return ALLOCATION_REFERENCE, (_sigma(event), event.steps_per_epoch, event.selected)
        return ALLOCATION_REFERENCE, (_sigma(event), event.steps_per_epoch)


class Shuffle(_EpochScheme):
    """``shuffle`` sampling of the Gaussian mechanism: a certified lower bound only."""

    #: why a query that reports a guarantee refuses the scheme (``{sampling}`` names the parameter)
    refusal = InvalidParameter("sampling", "shuffle: " + SHUFFLE_REFUSAL)

    sampling = "shuffle"
    parameters = (builtin_schemes.BATCH_SIZE, builtin_schemes.DATASET_SIZE)
    example = MappingProxyType({"batch_size": "10", "dataset_size": "100"})
    event_classes = {"shuffle": ShuffleEvent}  # noqa: RUF012 - read only
    shape = "shuffle sampling of GaussianEvent"
    description = "shuffle sampling of GaussianEvent with add-remove adjacency"

    def __init__(self) -> None:
        super().__init__()
        self.bounds = (
            BoundChoice(
                None,
                "no upper bound known; certified LOWER bound: the remove-direction RDP of balls-and-bins with "
                "t = N / B (a pair of neighbouring datasets under shuffling, Chua et al. 2024)",
                guarantee=False,
            ),
        )

    def matches(self, event: ev.DpEvent) -> bool:
        return type(event) is ShuffleEvent and type(event.event) is ev.GaussianEvent

    def build(self, base: ev.DpEvent, values: Mapping[str, Any]) -> ev.DpEvent:
        return ShuffleEvent(base, values["batch_size"], values["dataset_size"])

    def rdp_curve(self, event: Any) -> RdpCurve:
        from .shuffle import ShuffleLowerBoundCurve

        return ShuffleLowerBoundCurve(_sigma(event), event.steps_per_epoch)

    def pld_pair(self, event: Any) -> Any:
        raise UnsupportedEventError(
            "the PLD accountant cannot account shuffle sampling: no upper bound on its privacy is known; only"
            " lower bounds are certified (Chua et al., ICML 2024)."
        )


#: the line the registry gets: ``*random_allocation_scheme.SCHEMES,`` in ``registry.SCHEMES``
SCHEMES: tuple[Scheme, ...] = (RandomAllocation(True), RandomAllocation(False), Shuffle())
