"""Dispatch from sampled events to their certified RDP curves.

:func:`poisson_sampled_curve` and :func:`fixed_size_sampled_curve` dispatch on
the type of the inner mechanism; bound modules register implementations here.
The Poisson-subsampled Gaussian under add/remove adjacency is exact
(:mod:`.poisson_gaussian`).
"""

from __future__ import annotations

import functools
from fractions import Fraction

from ..curves import RdpCurve, rdp_curve
from ..errors import UnsupportedEventError
from ..events import (Adjacency, DpEvent, FixedSizeSampledEvent, GaussianEvent, LaplaceEvent,
                      PoissonSampledEvent, RandomizedResponseEvent)
from .poisson_gaussian import PoissonGaussianCurve

__all__ = ["poisson_sampled_curve", "fixed_size_sampled_curve"]


@functools.singledispatch
def poisson_sampled_curve(inner: DpEvent, q: Fraction, adjacency: Adjacency) -> RdpCurve:
    """Certified RDP curve of Poisson sampling with probability ``q`` followed by ``inner``."""
    raise UnsupportedEventError(
        f"no certified bound for Poisson sampling of {type(inner).__name__} with {adjacency.value} adjacency"
    )


@poisson_sampled_curve.register
def _(inner: GaussianEvent, q: Fraction, adjacency: Adjacency) -> RdpCurve:
    if adjacency is Adjacency.ADD_REMOVE:
        return PoissonGaussianCurve(q, inner.noise_multiplier)
    # replace-one: min of Birrell et al. Thm C.9, the weak triangle inequality and 2 alpha / sigma^2
    # (see .poisson_replace_one; q = 1 is the Gaussian mechanism with sensitivity 2)
    from .poisson_replace_one import poisson_replace_one_default_curve

    return poisson_replace_one_default_curve(q, inner.noise_multiplier)


@poisson_sampled_curve.register(LaplaceEvent)
@poisson_sampled_curve.register(RandomizedResponseEvent)
def _(inner: DpEvent, q: Fraction, adjacency: Adjacency) -> RdpCurve:
    # Zhu & Wang 2019 Thm 8: condition (4) holds for Laplace (Prop. 10) and for binary
    # randomized response (see zhu_wang.condition4_established); capped by Lemma 4
    if adjacency is Adjacency.ADD_REMOVE:
        from .zhu_wang import poisson_pure_dp_default_curve

        return poisson_pure_dp_default_curve(rdp_curve(inner), q, condition4=inner)
    raise UnsupportedEventError(
        f"no certified bound for the Poisson-subsampled {type(inner).__name__} with replace-one adjacency"
    )


@functools.singledispatch
def fixed_size_sampled_curve(inner: DpEvent, event: FixedSizeSampledEvent) -> RdpCurve:
    """Certified RDP curve of fixed-size sampling (``event``) followed by ``inner``."""
    kind = "with" if event.replacement else "without"
    raise UnsupportedEventError(
        f"no certified bound for fixed-size sampling {kind} replacement of {type(inner).__name__}"
        f" with {event.adjacency.value} adjacency"
    )


@fixed_size_sampled_curve.register
def _(inner: GaussianEvent, event: FixedSizeSampledEvent) -> RdpCurve:
    """Fixed-size sampling of the Gaussian mechanism (Birrell et al. 2024).

    Without replacement: add/remove -> Thm 3.1 (6) exactly (or the Thm 3.3 Taylor
    bound of an explicit ``event.taylor_order``), replace-one -> the minimum of
    Thm 3.4-3.5 (:mod:`.fswor`, Taylor order chosen per order or ``event.taylor_order``)
    and Wang et al. 2019 Thm 9 (:mod:`.wang2019`).  With
    replacement: delegated to ``rigorous_rdp.subsampling.fswr.fswr_curve`` when
    that module provides it, else unsupported.
    """
    if event.replacement:
        try:
            from .fswr import fswr_curve
        except ImportError:
            fswr_curve = None
        if fswr_curve is None:
            raise UnsupportedEventError(
                f"no certified bound for fixed-size sampling with replacement of GaussianEvent"
                f" with {event.adjacency.value} adjacency"
            )
        return fswr_curve(inner, event)
    from .fswor import fswor_add_remove_default_curve, fswor_replace_one_default_curve

    if event.adjacency is Adjacency.ADD_REMOVE:
        return fswor_add_remove_default_curve(event.sampling_probability, inner.noise_multiplier, event.taylor_order)
    return fswor_replace_one_default_curve(inner.noise_multiplier, event.batch_size, event.dataset_size,
                                           event.taylor_order)


@rdp_curve.register
def _(event: PoissonSampledEvent) -> RdpCurve:
    return poisson_sampled_curve(event.event, event.sampling_probability, event.adjacency)


@rdp_curve.register
def _(event: FixedSizeSampledEvent) -> RdpCurve:
    if event.replacement:
        # with replacement: Birrell et al. Thm 3.6 (see .fswr); without: dispatch on the inner mechanism
        from .fswr import fswr_curve

        return fswr_curve(event.event, event)
    return fixed_size_sampled_curve(event.event, event)


# Zhu & Wang 2019 bounds chosen explicitly (ZhuWangSampledEvent registers itself on import)
from . import zhu_wang as _zhu_wang  # noqa: E402,F401
