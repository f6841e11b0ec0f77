r"""A certified ``dp_accounting.PrivacyAccountant`` that takes dp-accounting's own events.

:class:`CertifiedRdpAccountant` subclasses the real ``dp_accounting.PrivacyAccountant``
(dp-accounting >= 0.4): it has the same ``supports`` / ``compose`` / ``ledger`` /
``get_epsilon`` / ``get_delta`` contract, takes the same ``NeighboringRelation``,
refuses what it cannot bound by raising ``dp_accounting.UnsupportedEventError``
from ``compose`` (and returning ``False`` from ``supports``), and works inside
``dp_accounting.calibrate_dp_mechanism``.  Each dp-accounting event is
translated into the frozen events of :mod:`rigorous_rdp.events` and composed in a
:class:`rigorous_rdp.accountant.RdpAccountant`::

    import dp_accounting
    from rigorous_rdp.integrations.dp_accounting import CertifiedRdpAccountant

    event = dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1))
    acc = CertifiedRdpAccountant()              # instead of dp_accounting.rdp.RdpAccountant()
    acc.compose(event, 10000)
    acc.get_epsilon(1e-5)                        # float: certified upper end, rounded up
    acc.certified_epsilon(1e-5)                  # EpsilonResult: enclosure, order, conversion

Numbers returned as floats are upper ends of certified enclosures rounded up
(never ``float(arb)``, which is a rounded midpoint).  Float parameters are read
on the safe side (:mod:`._inputs`): ``GaussianDpEvent(1.1)`` is certified for
the smaller of 11/10 and the binary double nearest to it.

Translation (``n``: ``source_dataset_size``, ``b``: ``sample_size``):

======================================  =====================  ======================  ======================
dp-accounting event                     ADD_OR_REMOVE_ONE      REPLACE_ONE             REPLACE_SPECIAL
======================================  =====================  ======================  ======================
``GaussianDpEvent(s)``                  Gaussian, sigma = s    sigma = s/2 (*)         sigma = s
``LaplaceDpEvent(s)``                   Laplace, scale = s     scale = s/2 (*)         scale = s
``RandomizedResponseDpEvent(p, k)``     refused (as dp-acc.)   k = 2: binary RR that   refused
                                                               keeps the bit w.p.
                                                               1 - p/2; k = 1: no-op;
                                                               k > 2: refused
``PoissonSampledDpEvent(q, G)``         Poisson, add/remove    Poisson, replace-one    as ADD_OR_REMOVE_ONE
                                        (exact, Claim 27)      (Birrell et al. C.9)    (Gaussian only)
``PoissonSampledDpEvent(q, Laplace)``   Zhu & Wang Thm 8       refused                 refused
``SampledWithoutReplacementDpEvent``    Birrell et al. 3.3     min(Birrell 3.5,        as REPLACE_ONE
                                                               Wang et al. Thm 9)
``SampledWithReplacementDpEvent``       Birrell et al. 3.6     refused                 refused
                                        (b < n)
``RandomAllocationDpEvent(G, k, t)``    random allocation      refused                 as ADD_OR_REMOVE_ONE
(one epoch: k of t steps; Gaussian)     (balls-and-bins k = 1;
                                        k > 1: blocks)
``SelfComposedDpEvent``,                composed as in dp-accounting (adaptive composition)
``ComposedDpEvent``
``NoOpDpEvent``                         nothing
``NonPrivateDpEvent``                   epsilon = inf, delta = 1 (dp-accounting's contract)
anything else                           refused (``UnsupportedEventError``)
======================================  =====================  ======================  ======================

(*) with the default ``noise_unit="norm_bound"``; ``noise_unit="sensitivity"`` keeps s
(see "Noise units" below).

``G`` is a ``GaussianDpEvent`` or, as in dp-accounting, a nesting of
``ComposedDpEvent`` / ``SelfComposedDpEvent`` ending in Gaussians, which is one
Gaussian of noise multiplier :math:`(\sum_i s_i^{-2})^{-1/2}` (Mironov, Talwar,
Zhang 2019, Sec. 3); that number is irrational in general, and a rational
*lower* bound with 30 significant digits is certified (less noise is a weaker
claim).  A noise multiplier or scale of 0 is a non-private event (infinite
epsilon, as dp-accounting reports), and sampling probability 0 is a no-op.

Noise units.  dp-accounting defines the noise multiplier of ``GaussianDpEvent``
and ``LaplaceDpEvent`` as s/C, where the mechanism publishes the noisy sum
of the records' values, s is the noise scale and C bounds the norm of each value
(its ``dp_event`` docstrings).  Under ADD_OR_REMOVE_ONE and REPLACE_SPECIAL one
record moves the sum by at most C; under REPLACE_ONE by 2C.  dp-accounting's
``RdpAccountant`` (0.6.0) however computes Gaussian and Laplace events, and
sampling without replacement, as if the noise multiplier were relative to the
sensitivity under the relation, i.e. to 2C under REPLACE_ONE: for code that sets
the noise to s times the clipping norm, as DP-SGD does, its REPLACE_ONE numbers
are those of twice the noise (google/differential-privacy issue 378).  Of the two
readings this adapter takes the one that claims less privacy, the event's own
definition (``noise_unit="norm_bound"``, default): under REPLACE_ONE an unsampled
Gaussian or Laplace event has noise s/2 relative to its sensitivity, and a
sampled Gaussian has noise s in units of C, the unit of this toolkit's sampled
events.  ``noise_unit="sensitivity"`` reproduces dp-accounting's arithmetic
(unsampled events keep s, sampled Gaussians become 2s in units of C; see
:func:`_sampled_sigma`); use it only when the noise really is s times the
replace-one sensitivity.  Sampling without replacement of the whole dataset
(b = n) under REPLACE_ONE / REPLACE_SPECIAL is the Gaussian mechanism itself.

Differences from ``dp_accounting.rdp.RdpAccountant``, all on the side of more
certified answers, never of less safe ones: under REPLACE_ONE the default noise
unit gives larger (safe) numbers than dp-accounting (see above); Poisson sampling with
``REPLACE_ONE``, fixed-size sampling without replacement with
``ADD_OR_REMOVE_ONE``, fixed-size sampling with replacement and Poisson-sampled
Laplace are supported (the toolkit has certified bounds for them);
REPLACE_SPECIAL pairs of fixed-size sampling without replacement are accounted
as replace-one pairs (replacing a record by the special record is replacing a
record, so the replace-one bound holds for them).  Poisson sampling under
REPLACE_SPECIAL is accounted as add/remove, as dp-accounting does: the special
record contributes nothing to the noisy sum, so the output on the modified
dataset is the output on the dataset without the record.  ``ZCDpEvent``,
tree aggregation, repeat-and-select, mixtures, discrete Laplace and truncated
events are refused, as is randomized response under REPLACE_SPECIAL (no
certified bound for them here).

:class:`CertifiedPldAccountant` is the PLD counterpart: the same translation and float
conventions, but each translated event must have a certified dominating pair
(:func:`rigorous_rdp.registry.pld_pair`), and the answer is a bracket of the *true optimal*
epsilon (or delta) from :class:`rigorous_rdp.pld.PldAccountant`; ``get_epsilon`` /
``get_delta`` return its upper end rounded up, ``get_epsilon_bracket`` /
``get_delta_bracket`` both ends rounded outward.

``RandomAllocationDpEvent`` is dp-accounting's own class when the installed dp-accounting has it
(google/differential-privacy pull request 414: fields ``event``, ``num_selected``, ``num_steps``),
else the class of the same name and fields defined here; either is accepted.  One such event is
one epoch; compose it once per epoch.  Random allocation under REPLACE_SPECIAL is accounted as
add/remove (the special record contributes nothing, and the allocation of the other records does
not depend on it).

By default the order is optimised over the grid *and* over real orders between
grid points (``continuous=True``), which gives a smaller certified epsilon than
the grid alone; ``continuous=False`` restricts to the grid, as dp-accounting.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from math import isqrt
from typing import TYPE_CHECKING, Any

import attr
import dp_accounting
import numpy as np
from dp_accounting import dp_event as _dpe
from dp_accounting.privacy_accountant import NeighboringRelation
from flint import arb

if TYPE_CHECKING:
    from ..pld.accountant import PldAccountant, PldDeltaResult, PldEpsilonResult

from .. import events as ev
from ..accountant import DeltaResult, EpsilonResult, RdpAccountant
from ..arith import DEFAULT_DIGITS, Certified
from ..errors import UnsupportedEventError as _OurUnsupported
from ..registry import pld_pair, rdp_curve
from ..validation import integer_at_least
from ._inputs import read_orders, weaker_reading

__all__ = [
    "NORM_BOUND",
    "SENSITIVITY",
    "CertifiedPLDAccountant",
    "CertifiedPldAccountant",
    "CertifiedRdpAccountant",
    "NeighboringRelation",
    "RandomAllocationDpEvent",
    "to_rigorous_event",
]

_NOOP: ev.DpEvent = ev.ComposedEvent(())
_SIG_DIGITS = 30  # significant digits of the rational lower bound of an effective sigma


class _Refused(Exception):
    """Internal: the event (or a subevent) has no certified bound here."""

    def __init__(self, event: object, message: str):
        super().__init__(message)
        self.event = event
        self.message = message


if hasattr(_dpe, "RandomAllocationDpEvent"):  # pragma: no cover - dp-accounting with pull request 414
    RandomAllocationDpEvent = _dpe.RandomAllocationDpEvent
else:

    @attr.s(frozen=True, slots=True, auto_attribs=True)
    class RandomAllocationDpEvent(_dpe.DpEvent):  # type: ignore[no-redef]  # one definition per branch
        """One epoch of random allocation (the name and fields of dp-accounting's event, which the
        installed dp-accounting lacks): each record is used in ``num_selected`` of the
        ``num_steps`` steps, a uniformly random subset, and each step applies ``event`` (a
        Gaussian, or compositions of Gaussians) to the records allocated to it."""

        event: _dpe.DpEvent
        num_selected: int
        num_steps: int


def _name(event: object) -> str:
    return type(event).__name__


def _sqrt_inverse_lower(s: Fraction) -> Fraction:
    r"""A rational :math:`r \le s^{-1/2}` (exact when :math:`1/s` is a rational square), for s > 0.

    With :math:`N = \lfloor 10^{2k}/s \rfloor` and :math:`m = \lfloor\sqrt N\rfloor`,
    :math:`(m/10^k)^2 \le N/10^{2k} \le 1/s`; k grows until m has 30 digits.
    """
    num, den = s.numerator, s.denominator
    rn, rd = isqrt(den), isqrt(num)
    if rn * rn == den and rd * rd == num:
        return Fraction(rn, rd)
    k = _SIG_DIGITS
    while True:
        m = isqrt((10 ** (2 * k) * den) // num)
        if m >= 10 ** (_SIG_DIGITS - 1):
            return Fraction(m, 10**k)
        k += _SIG_DIGITS


def _gaussian_inverse_square(event: object, sampler: object) -> Fraction | None:
    r""":math:`\sum_i c_i s_i^{-2}` of a nesting of compositions ending in Gaussians.

    Returns ``None`` if some Gaussian has noise multiplier 0 (non-private).

    Raises:
        _Refused: for any other subevent (dp-accounting's rule for sampled events).
        ValueError: for a negative noise multiplier or count.
    """
    if isinstance(event, _dpe.GaussianDpEvent):
        s = weaker_reading(event.noise_multiplier, "noise_multiplier", smaller=True)
        if s < 0:
            raise ValueError(f"noise_multiplier must be >= 0. Found {event.noise_multiplier!r}.")
        return None if s == 0 else 1 / (s * s)
    if isinstance(event, _dpe.SelfComposedDpEvent):
        n = integer_at_least(event.count, "count", 0)
        inner = _gaussian_inverse_square(event.event, sampler)
        if n == 0:
            return Fraction(0)
        return None if inner is None else n * inner
    if isinstance(event, _dpe.ComposedDpEvent):
        total: Fraction | None = Fraction(0)
        for e in event.events:
            v = _gaussian_inverse_square(e, sampler)
            total = None if (v is None or total is None) else total + v
        return total
    raise _Refused(
        sampler,
        f"Subevent of `{_name(sampler)}` must be a `GaussianDpEvent` or a nested structure of"
        f" `ComposedDpEvent` and/or `SelfComposedDpEvent` bottoming out in `GaussianDpEvent`s"
        f" (or a `LaplaceDpEvent` under Poisson sampling). Found subevent {event}.",
    )


#: ``noise_unit`` reading dp-accounting's own event definition (the default; the safe reading)
NORM_BOUND = "norm_bound"
#: ``noise_unit`` reproducing the arithmetic of dp-accounting's ``RdpAccountant`` (0.6.0)
SENSITIVITY = "sensitivity"
_NOISE_UNITS = (NORM_BOUND, SENSITIVITY)


def _unsampled_scale(x: Fraction, rel: NeighboringRelation, unit: str) -> Fraction:
    r"""Noise of an unsampled Gaussian or Laplace event relative to its sensitivity.

    dp-accounting defines ``GaussianDpEvent`` / ``LaplaceDpEvent`` as the noisy sum
    :math:`\sum_i v_i + z` with noise multiplier :math:`s/C`, where C bounds the norm
    of each record's value (its ``dp_event`` docstrings).  Under REPLACE_ONE the sum
    moves by up to 2C, so the noise relative to the sensitivity is x/2
    (``noise_unit="norm_bound"``).  dp-accounting's ``RdpAccountant`` uses x
    itself under every relation (``noise_unit="sensitivity"``; google/differential-privacy
    issue 378 reports the mismatch).  The other relations move the sum by C: x.
    """
    if rel is NeighboringRelation.REPLACE_ONE and unit == NORM_BOUND:
        return x / 2
    return x


def _sampled_sigma(inv_sq: Fraction, rel: NeighboringRelation, unit: str) -> Fraction:
    r"""Noise multiplier of a sampled Gaussian in this toolkit's unit, from dp-accounting's.

    The sampled events of this toolkit measure the noise in units of the
    per-record norm bound C (a replace-one pair moves the sum by up to 2C, an
    add/remove or replace-special pair by up to C).  With ``noise_unit="norm_bound"``
    (dp-accounting's event definition, :math:`s/C`) that is s under every relation.
    With ``noise_unit="sensitivity"`` the noise multiplier is read as the noise over
    the l2-sensitivity *under the relation*, which is what dp-accounting's
    ``_compute_rdp_sample_wor_gaussian`` takes ("ratio of the standard deviation of
    the Gaussian noise to the l2-sensitivity"; Wang et al. 2019, Thm 27, with base
    RDP :math:`\alpha/(2s^2)`): sigma = 2 s under REPLACE_ONE and s otherwise.
    """
    s = _sqrt_inverse_lower(inv_sq)
    return 2 * s if (rel is NeighboringRelation.REPLACE_ONE and unit == SENSITIVITY) else s


def _check_unit(noise_unit: object) -> str:
    if noise_unit not in _NOISE_UNITS:
        raise ValueError(f"noise_unit must be one of {', '.join(_NOISE_UNITS)}. Found {noise_unit!r}.")
    return str(noise_unit)


def _check_relation(neighboring_relation: object) -> NeighboringRelation:
    if not isinstance(neighboring_relation, NeighboringRelation):
        names = ", ".join(r.name for r in NeighboringRelation)
        raise ValueError(
            f"neighboring_relation must be a dp_accounting.NeighboringRelation ({names}). Found {neighboring_relation!r}."
        )
    return neighboring_relation


def _check_curve(ours: ev.DpEvent, event: object) -> ev.DpEvent:
    """``ours`` if it has a certified RDP curve, else :class:`_Refused` naming ``event``."""
    try:
        rdp_curve(ours)
    except ValueError as exc:  # includes rigorous_rdp.UnsupportedEventError: no bound for valid input
        raise _Refused(event, str(exc)) from None
    return ours


def _check_pair(ours: ev.DpEvent, event: object) -> ev.DpEvent:
    """``ours`` if it has a certified dominating pair (PLD accountant), else :class:`_Refused`
    whose message is the PLD accountant's reason (it names what is missing)."""
    try:
        pld_pair(ours)
    except ValueError as exc:  # includes rigorous_rdp.UnsupportedEventError
        raise _Refused(event, str(exc)) from None
    return ours


#: a translation step's check of a sampled event: :func:`_check_curve` (RDP) or :func:`_check_pair` (PLD)
_Check = Callable[[ev.DpEvent, object], ev.DpEvent]


def to_rigorous_event(
    event: dp_accounting.DpEvent,
    neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
    noise_unit: str = NORM_BOUND,
) -> tuple[ev.DpEvent, bool]:
    """Translate a dp-accounting event into a frozen :mod:`rigorous_rdp.events` event.

    Args:
        event: a ``dp_accounting.DpEvent``.
        neighboring_relation: the relation the accountant certifies for.
        noise_unit: how noise multipliers are read under REPLACE_ONE (see
            :class:`CertifiedRdpAccountant`).

    Returns:
        ``(ours, non_private)``: the equivalent event (no-ops become an empty
        :class:`~rigorous_rdp.events.ComposedEvent`), and whether ``event``
        contains a non-private part applied at least once (then epsilon is infinite).

    Raises:
        rigorous_rdp.UnsupportedEventError: no certified bound for ``event`` (or a subevent).
        ValueError: a parameter is out of range (the message names it).
    """
    unit = _check_unit(noise_unit)
    try:
        return _translate(event, neighboring_relation, unit)
    except _Refused as r:
        raise _OurUnsupported(f"{r.message} (event {r.event})") from None


def _translate(
    event: object, rel: NeighboringRelation, unit: str = NORM_BOUND, check: _Check = _check_curve
) -> tuple[ev.DpEvent, bool]:
    if isinstance(event, _dpe.NoOpDpEvent):
        return _NOOP, False
    if isinstance(event, _dpe.NonPrivateDpEvent):
        return _NOOP, True
    if isinstance(event, _dpe.SelfComposedDpEvent):
        n = integer_at_least(event.count, "count", 0)
        inner, non_private = _translate(event.event, rel, unit, check)
        return ev.SelfComposedEvent(inner, n), non_private and n > 0
    if isinstance(event, _dpe.ComposedDpEvent):
        parts = [_translate(e, rel, unit, check) for e in event.events]
        return ev.ComposedEvent(tuple(p for p, _ in parts)), any(np_ for _, np_ in parts)
    if isinstance(event, _dpe.GaussianDpEvent):
        s = weaker_reading(event.noise_multiplier, "noise_multiplier", smaller=True)
        if s < 0:
            raise ValueError(f"noise_multiplier must be >= 0. Found {event.noise_multiplier!r}.")
        return (_NOOP, True) if s == 0 else (ev.GaussianEvent(_unsampled_scale(s, rel, unit)), False)
    if isinstance(event, _dpe.LaplaceDpEvent):
        b = weaker_reading(event.noise_multiplier, "noise_multiplier", smaller=True)
        if b < 0:
            raise ValueError(f"noise_multiplier must be >= 0. Found {event.noise_multiplier!r}.")
        return (_NOOP, True) if b == 0 else (ev.LaplaceEvent(_unsampled_scale(b, rel, unit)), False)
    if isinstance(event, _dpe.RandomizedResponseDpEvent):
        return _randomized_response(event, rel)
    if isinstance(event, _dpe.PoissonSampledDpEvent):
        return _poisson(event, rel, unit, check)
    if isinstance(event, (_dpe.SampledWithoutReplacementDpEvent, _dpe.SampledWithReplacementDpEvent)):
        return _fixed_size(event, rel, unit, check)
    if isinstance(event, RandomAllocationDpEvent):
        return _random_allocation(event, rel, unit, check)
    if isinstance(event, _dpe.DpEvent):
        raise _Refused(event, "Unsupported event.")
    raise _Refused(event, f"`event` must be a dp_accounting `DpEvent`. Found {type(event)}.")


def _randomized_response(event: _dpe.RandomizedResponseDpEvent, rel: NeighboringRelation) -> tuple[ev.DpEvent, bool]:
    # dp-accounting: with probability 1 - p output the input bucket, else a uniform one of k.
    p = weaker_reading(event.noise_parameter, "noise_parameter", smaller=True)
    if not 0 <= p <= 1:
        raise ValueError(f"noise_parameter must be in [0, 1]. Found {event.noise_parameter!r}.")
    k = integer_at_least(event.num_buckets, "num_buckets", 1)
    if rel is not NeighboringRelation.REPLACE_ONE:
        raise _Refused(
            event,
            f"neighboring_relation must be `REPLACE_ONE` for `RandomizedResponseDpEvent` here"
            f" (no certified bound for {rel}).",
        )
    if k == 1 or p == 1:
        return _NOOP, False  # the output does not depend on the input
    if k > 2:
        raise _Refused(event, f"`RandomizedResponseDpEvent` is supported for num_buckets <= 2 only. Found {k}.")
    if p == 0:
        return _NOOP, True  # the input is published
    # k = 2: the two output laws are (1 - p/2, p/2) and (p/2, 1 - p/2): binary
    # randomized response keeping the bit with probability 1 - p/2.
    return ev.RandomizedResponseEvent(1 - p / 2), False


def _poisson(
    event: _dpe.PoissonSampledDpEvent, rel: NeighboringRelation, unit: str, check: _Check = _check_curve
) -> tuple[ev.DpEvent, bool]:
    q = weaker_reading(event.sampling_probability, "sampling_probability", smaller=False)
    if not 0 <= q <= 1:
        raise ValueError(f"sampling_probability must be in [0, 1]. Found {event.sampling_probability!r}.")
    inner_ev = event.event
    if isinstance(inner_ev, _dpe.LaplaceDpEvent):
        if rel is not NeighboringRelation.ADD_OR_REMOVE_ONE:
            raise _Refused(event, f"no certified bound for Poisson-sampled `LaplaceDpEvent` under {rel}.")
        b = weaker_reading(inner_ev.noise_multiplier, "noise_multiplier", smaller=True)
        if b < 0:
            raise ValueError(f"noise_multiplier must be >= 0. Found {inner_ev.noise_multiplier!r}.")
        if q == 0:
            return _NOOP, False
        if b == 0:
            return _NOOP, True
        return check(ev.PoissonSampledEvent(ev.LaplaceEvent(b), q, ev.Adjacency.ADD_REMOVE), event), False
    inv_sq = _gaussian_inverse_square(inner_ev, event)
    adjacency = ev.Adjacency.REPLACE_ONE if rel is NeighboringRelation.REPLACE_ONE else ev.Adjacency.ADD_REMOVE
    if q == 0 or inv_sq == 0:
        return _NOOP, False
    if inv_sq is None:
        return _NOOP, True
    sigma = _sampled_sigma(inv_sq, rel, unit)
    return check(ev.PoissonSampledEvent(ev.GaussianEvent(sigma), q, adjacency), event), False


def _fixed_size(
    event: _dpe.SampledWithoutReplacementDpEvent | _dpe.SampledWithReplacementDpEvent,
    rel: NeighboringRelation,
    unit: str,
    check: _Check = _check_curve,
) -> tuple[ev.DpEvent, bool]:
    replacement = isinstance(event, _dpe.SampledWithReplacementDpEvent)
    n = integer_at_least(event.source_dataset_size, "source_dataset_size", 1)
    b = integer_at_least(event.sample_size, "sample_size", 0)
    if not replacement and b > n:
        raise ValueError(f"sample_size must be <= source_dataset_size ({n}). Found {b}.")
    inv_sq = _gaussian_inverse_square(event.event, event)
    if b == 0 or inv_sq == 0:
        return _NOOP, False
    if inv_sq is None:
        return _NOOP, True
    if replacement and b >= n:
        raise _Refused(
            event,
            f"no certified bound for fixed-size sampling with replacement with"
            f" sample_size >= source_dataset_size ({b} >= {n}).",
        )
    if b == n and rel is not NeighboringRelation.ADD_OR_REMOVE_ONE:
        # every record is in the batch: the Gaussian mechanism, noise relative to the sensitivity
        return ev.GaussianEvent(_unsampled_scale(_sqrt_inverse_lower(inv_sq), rel, unit)), False
    # REPLACE_SPECIAL pairs are replace-one pairs (see the module docstring)
    adjacency = ev.Adjacency.ADD_REMOVE if rel is NeighboringRelation.ADD_OR_REMOVE_ONE else ev.Adjacency.REPLACE_ONE
    ours = ev.FixedSizeSampledEvent(
        ev.GaussianEvent(_sampled_sigma(inv_sq, rel, unit)), b, n, replacement=replacement, adjacency=adjacency
    )
    return check(ours, event), False


def _random_allocation(
    event: Any, rel: NeighboringRelation, unit: str, check: _Check = _check_curve
) -> tuple[ev.DpEvent, bool]:
    from ..subsampling.random_allocation_scheme import RandomAllocationEvent

    t = integer_at_least(event.num_steps, "num_steps", 1)
    k = integer_at_least(event.num_selected, "num_selected", 1)
    if k > t:
        raise ValueError(f"num_selected must be <= num_steps ({t}). Found {k}.")
    if rel is NeighboringRelation.REPLACE_ONE:
        raise _Refused(event, "no certified bound for `RandomAllocationDpEvent` under REPLACE_ONE.")
    inv_sq = _gaussian_inverse_square(event.event, event)
    if inv_sq == 0:
        return _NOOP, False
    if inv_sq is None:
        return _NOOP, True
    ours = RandomAllocationEvent(ev.GaussianEvent(_sampled_sigma(inv_sq, rel, unit)), t, k)
    return check(ours, event), False


def _compose_checked(
    acc: Any, event: object, count: int, do_compose: bool, translate: Callable[[], tuple[ev.DpEvent, bool]]
) -> dp_accounting.PrivacyAccountant.CompositionErrorDetails | None:
    """``_maybe_compose`` of both certified accountants: ``translate()`` gives the event in this
    package's terms and whether it is non-private, or a refusal, returned as
    ``CompositionErrorDetails``; with ``do_compose`` the event is composed into ``acc._acc``."""
    try:
        ours, non_private = translate()
    except _Refused as r:
        return acc.CompositionErrorDetails(invalid_event=r.event, error_message=r.message)
    except ValueError as exc:  # includes rigorous_rdp.UnsupportedEventError
        return acc.CompositionErrorDetails(invalid_event=event, error_message=str(exc))
    if do_compose:
        acc._acc.compose(ours, count)
        acc._non_private = acc._non_private or (non_private and count > 0)
    return None


class CertifiedRdpAccountant(dp_accounting.PrivacyAccountant):
    r"""Certified RDP accountant with the interface of ``dp_accounting.rdp.RdpAccountant``.

    Args:
        orders: the order grid (default: dp-accounting's default grid); floats
            are read as their shortest decimal (any order gives a valid bound).
        neighboring_relation: a ``dp_accounting.NeighboringRelation``.
        continuous: also optimise over real orders between grid points
            (default True; False uses the grid only, as dp-accounting).
        conversion: RDP-to-DP conversion of :class:`~rigorous_rdp.accountant.RdpAccountant`
            (default ``"best"``: CKS Prop. 12, Mironov Prop. 3 and the
            total-variation bound, the same set dp-accounting uses).
        digits: relative width of the certified enclosures (``<= 10**-digits``).
        noise_unit: how a noise multiplier is read under REPLACE_ONE (the other
            relations read it the same either way).  ``"norm_bound"`` (default):
            dp-accounting's event definition, noise standard deviation over the
            per-record norm bound C, so a replace-one pair moves the noisy sum by
            2C; the safe reading.  ``"sensitivity"``: noise over the sensitivity
            under the relation, the arithmetic of dp-accounting's ``RdpAccountant``
            (0.6.0), which gives a smaller epsilon for the same event.

    Raises:
        ValueError: bad options (the message names the option).
    """

    def __init__(
        self,
        orders: Iterable[object] | None = None,
        neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
        *,
        continuous: bool = True,
        conversion: str = "best",
        digits: float = DEFAULT_DIGITS,
        noise_unit: str = NORM_BOUND,
    ):
        self.noise_unit = _check_unit(noise_unit)
        super().__init__(_check_relation(neighboring_relation))
        orders = read_orders(orders)
        self._acc = RdpAccountant(orders, continuous=continuous, conversion=conversion, digits=digits)
        self._non_private = False

    # -- the PrivacyAccountant contract -------------------------------------

    def _maybe_compose(
        self, event: _dpe.DpEvent, count: int, do_compose: bool
    ) -> dp_accounting.PrivacyAccountant.CompositionErrorDetails | None:
        return _compose_checked(
            self, event, count, do_compose, lambda: _translate(event, self.neighboring_relation, self.noise_unit)
        )

    def compose(self, event: object, count: int = 1) -> CertifiedRdpAccountant:
        """Account for ``count`` applications of ``event`` (returns ``self``).

        Raises:
            dp_accounting.UnsupportedEventError: no certified bound for ``event``.
            TypeError: ``event`` is not a ``dp_accounting.DpEvent``.
            ValueError: a parameter of ``event`` or ``count`` is out of range.
        """
        count = integer_at_least(count, "count", 1)  # dp-accounting's ledger takes positive counts
        if isinstance(event, _dpe.DpEvent):
            # bad values raise ValueError here; _Refused is reported by the base class as UnsupportedEventError
            with contextlib.suppress(_Refused):
                _translate(event, self.neighboring_relation, self.noise_unit)
        return super().compose(event, count)

    def get_epsilon(self, target_delta: float) -> float:
        """Certified epsilon for ``target_delta``: the upper end of the enclosure, rounded up."""
        return self.certified_epsilon(target_delta).epsilon.upper_float()

    def get_delta(self, target_epsilon: float) -> float:
        """Certified delta for ``target_epsilon``: the upper end of the enclosure, rounded up."""
        return min(1.0, self.certified_delta(target_epsilon).delta.upper_float())

    def get_epsilon_and_optimal_order(self, target_delta: float) -> tuple[float, float]:
        """``(epsilon, order)`` as dp-accounting's RDP accountant (order inf for the pure-DP route)."""
        res = self.certified_epsilon(target_delta)
        return res.epsilon.upper_float(), _order_float(res.order)

    def get_delta_and_optimal_order(self, target_epsilon: float) -> tuple[float, float]:
        """``(delta, order)`` as dp-accounting's RDP accountant."""
        res = self.certified_delta(target_epsilon)
        return min(1.0, res.delta.upper_float()), _order_float(res.order)

    # -- certified results ---------------------------------------------------

    def certified_epsilon(self, target_delta: object) -> EpsilonResult:
        """The certified epsilon: enclosure, order, conversion and total RDP.

        ``target_delta`` in [0, 1]: 0 gives an infinite epsilon unless nothing
        was composed (dp-accounting's contract); 1 gives epsilon 0.
        """
        delta = weaker_reading(target_delta, "target_delta", smaller=True)
        if not 0 <= delta <= 1:
            raise ValueError(f"target_delta must be in [0, 1]. Found {target_delta!r}.")
        if self._non_private and delta < 1:
            return EpsilonResult(Certified(arb("inf"), 0), None, "non-private", None, delta)
        if delta == 1:
            return EpsilonResult(Certified(arb(0), 0), None, "trivial", None, delta)
        if delta == 0:
            if not self._acc.active_curves():
                return EpsilonResult(Certified(arb(0), 0), None, "none", None, delta)
            return EpsilonResult(Certified(arb("inf"), 0), None, "delta-zero", None, delta)
        return self._acc.get_epsilon_and_order(delta)

    def certified_delta(self, target_epsilon: object) -> DeltaResult:
        """The certified delta for ``target_epsilon >= 0`` (enclosure, order, conversion)."""
        eps = weaker_reading(target_epsilon, "target_epsilon", smaller=True)
        if eps < 0:
            raise ValueError(f"target_epsilon must be >= 0. Found {target_epsilon!r}.")
        if self._non_private:
            return DeltaResult(Certified(arb(1), 0), None, "non-private", None, eps)
        return self._acc.get_delta_and_order(eps)

    # -- inspection ----------------------------------------------------------

    @property
    def accountant(self) -> RdpAccountant:
        """The underlying certified :class:`~rigorous_rdp.accountant.RdpAccountant`."""
        return self._acc

    @property
    def orders(self) -> np.ndarray:
        """The order grid (floats, for display; the accountant keeps exact rationals)."""
        return np.array([float(a) for a in self._acc.orders])


def _order_float(order: Fraction | None) -> float:
    return math.inf if order is None else float(order)


# ---------------------------------------------------------------------------
# the certified PLD accountant
# ---------------------------------------------------------------------------


def _float_up(x: Fraction) -> float:
    """The smallest float >= ``x`` (inf beyond the floats)."""
    try:
        v = float(x)
    except OverflowError:
        return math.inf
    return math.nextafter(v, math.inf) if Fraction(v) < x else v


def _float_down(x: Fraction) -> float:
    """The largest float <= ``x``."""
    v = float(x)
    return math.nextafter(v, -math.inf) if Fraction(v) > x else v


class CertifiedPldAccountant(dp_accounting.PrivacyAccountant):
    r"""Certified PLD accountant with the interface of ``dp_accounting.pld.PLDAccountant``.

    It takes dp-accounting's own events, translated exactly as by
    :class:`CertifiedRdpAccountant` (the table in the module docstring, the same
    ``noise_unit`` and the same safe reading of floats), and composes them in a
    :class:`rigorous_rdp.pld.PldAccountant`: the answer is a certified bracket
    ``[lower, upper]`` of the *true optimal* epsilon (or delta) of the composition of
    the events' dominating pairs, not an upper bound on it only::

        acc = CertifiedPldAccountant()           # instead of dp_accounting.pld.PLDAccountant()
        acc.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1)), 1000)
        acc.get_epsilon(1e-5)                    # float: the certified upper end, rounded up
        acc.get_epsilon_bracket(1e-5)            # (lower, upper), rounded outward
        acc.certified_epsilon(1e-5)              # PldEpsilonResult: exact ends, grid, directions

    An event is accepted when every part of it translates (as for the RDP adapter) *and*
    has a certified dominating pair in :func:`rigorous_rdp.registry.pld_pair`; otherwise
    ``compose`` raises ``dp_accounting.UnsupportedEventError`` with the PLD accountant's
    reason (e.g. sampling without replacement under REPLACE_ONE: "the PLD accountant
    supports fixed-size sampling only without replacement under add-remove adjacency ...").
    ``SampledWithoutReplacementDpEvent`` under ADD_OR_REMOVE_ONE is accepted (dp-accounting's
    own PLD accountant refuses it); the pairs used for it only dominate the mechanism, so the
    lower end of its bracket is 0.

    Floats are read on the safe side (:mod:`._inputs`), so the bracket is that of the event
    with each float taken in its weaker meaning: its upper end holds for both meanings (the
    binary value and the shortest decimal), its lower end for the weaker one (the two differ
    by about 1e-16 relative; pass ``Fraction`` or decimal strings for an exact reading).

    Args:
        neighboring_relation: a ``dp_accounting.NeighboringRelation``.
        width: requested width of the epsilon bracket (relative width for delta); only the
            tightness depends on it, never the validity (:class:`~rigorous_rdp.pld.PldAccountant`).
        noise_unit: as for :class:`CertifiedRdpAccountant`.
        grid_options: ``grid``, ``max_grid``, ``max_length``: the grid options of
            :class:`~rigorous_rdp.pld.PldAccountant`, passed to it (its defaults when absent).

    Raises:
        ValueError: bad options (the message names the option).
    """

    def __init__(
        self,
        neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
        *,
        width: object = None,
        noise_unit: str = NORM_BOUND,
        **grid_options: Any,
    ):
        from ..pld.accountant import DEFAULT_WIDTH, PldAccountant

        self.noise_unit = _check_unit(noise_unit)
        super().__init__(_check_relation(neighboring_relation))
        # the width only steers the grid: a float is read as its shortest decimal
        w = DEFAULT_WIDTH if width is None else (Fraction(repr(width)) if isinstance(width, float) else width)
        self._acc = PldAccountant(width=w, **grid_options)
        self._non_private = False
        self._composed_any = False

    # -- the PrivacyAccountant contract -------------------------------------

    def _maybe_compose(
        self, event: _dpe.DpEvent, count: int, do_compose: bool
    ) -> dp_accounting.PrivacyAccountant.CompositionErrorDetails | None:

        def translate() -> tuple[ev.DpEvent, bool]:
            ours, non_private = _translate(event, self.neighboring_relation, self.noise_unit, _check_pair)
            if not do_compose:
                # every one-step part must have a dominating pair (unsampled ones included)
                self._acc._tally(ours, max(count, 1))
            return ours, non_private

        return _compose_checked(self, event, count, do_compose, translate)

    def compose(self, event: object, count: int = 1) -> CertifiedPldAccountant:
        """Account for ``count`` applications of ``event`` (returns ``self``).

        Raises:
            dp_accounting.UnsupportedEventError: no certified dominating pair for ``event``.
            TypeError: ``event`` is not a ``dp_accounting.DpEvent``.
            ValueError: a parameter of ``event`` or ``count`` is out of range.
        """
        count = integer_at_least(count, "count", 1)
        if isinstance(event, _dpe.DpEvent):
            with contextlib.suppress(_Refused):  # bad values raise ValueError here
                _translate(event, self.neighboring_relation, self.noise_unit, _check_pair)
        return super().compose(event, count)

    def get_epsilon(self, target_delta: float) -> float:
        """Certified epsilon for ``target_delta``: the upper end of the bracket, rounded up."""
        return self.get_epsilon_bracket(target_delta)[1]

    def get_delta(self, target_epsilon: float) -> float:
        """Certified delta for ``target_epsilon``: the upper end of the bracket, rounded up."""
        return self.get_delta_bracket(target_epsilon)[1]

    # -- brackets ------------------------------------------------------------

    def _delta_target(self, target_delta: object) -> Fraction:
        delta = weaker_reading(target_delta, "target_delta", smaller=True)
        if not 0 <= delta <= 1:
            raise ValueError(f"target_delta must be in [0, 1]. Found {target_delta!r}.")
        return delta

    def get_epsilon_bracket(self, target_delta: float) -> tuple[float, float]:
        """``(lower, upper)``: floats rounded outward around the true optimal epsilon.

        ``target_delta`` in [0, 1] (dp-accounting's contract): 1 gives 0; 0 gives
        infinity unless nothing was composed; a non-private event gives infinity.
        """
        delta = self._delta_target(target_delta)
        if self._non_private and delta < 1:
            return math.inf, math.inf
        if delta == 1 or (delta == 0 and not self._acc._active()):
            return 0.0, 0.0
        if delta == 0:
            return math.inf, math.inf
        b = self.certified_epsilon(target_delta).value
        lo, up = getattr(b, "lo_exact", None), getattr(b, "up_exact", None)
        if lo is None or up is None:  # a closed-form result holds a ball: its ends rounded outward
            return b.lower_float(), b.upper_float()
        return _float_down(lo), _float_up(up)

    def get_delta_bracket(self, target_epsilon: float) -> tuple[float, float]:
        """``(lower, upper)``: floats rounded outward around the true optimal delta
        (``(1.0, 1.0)`` after a non-private event)."""
        if self._non_private:
            self._epsilon_target(target_epsilon)
            return 1.0, 1.0
        b = self.certified_delta(target_epsilon).value
        lo, up = getattr(b, "lo_exact", None), getattr(b, "up_exact", None)
        if lo is None or up is None:  # a closed-form result holds a ball: its ends rounded outward
            return max(0.0, b.lower_float()), min(1.0, b.upper_float())
        return _float_down(lo), min(1.0, _float_up(up))

    def _epsilon_target(self, target_epsilon: object) -> Fraction:
        eps = weaker_reading(target_epsilon, "target_epsilon", smaller=True)
        if eps < 0:
            raise ValueError(f"target_epsilon must be >= 0. Found {target_epsilon!r}.")
        return eps

    def certified_epsilon(self, target_delta: object) -> PldEpsilonResult:
        """The certified result for ``0 < target_delta < 1``: the exact bracket, the grid and
        the per-direction brackets (:class:`~rigorous_rdp.pld.PldEpsilonResult`).

        Raises:
            ValueError: ``target_delta`` outside (0, 1) or below 1e-100, or a non-private
                event was composed (epsilon is infinite; see :meth:`get_epsilon_bracket`).
        """
        delta = self._delta_target(target_delta)
        if not 0 < delta < 1:
            raise ValueError(f"target_delta must be in (0, 1) for a bracket. Found {target_delta!r}.")
        if self._non_private:
            raise ValueError("a non-private event was composed: epsilon is infinite (no finite bracket).")
        return self._acc.get_epsilon_result(delta)

    def certified_delta(self, target_epsilon: object) -> PldDeltaResult:
        """The certified result for ``target_epsilon >= 0`` (:class:`~rigorous_rdp.pld.PldDeltaResult`).

        Raises:
            ValueError: ``target_epsilon < 0``, or a non-private event was composed (delta is 1).
        """
        eps = self._epsilon_target(target_epsilon)
        if self._non_private:
            raise ValueError("a non-private event was composed: delta is 1 (see get_delta_bracket).")
        return self._acc.get_delta_result(eps)

    @property
    def accountant(self) -> PldAccountant:
        """The underlying certified :class:`~rigorous_rdp.pld.PldAccountant`."""
        return self._acc


#: dp-accounting's spelling (``dp_accounting.pld.PLDAccountant``) of :class:`CertifiedPldAccountant`
CertifiedPLDAccountant = CertifiedPldAccountant
