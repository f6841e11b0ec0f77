r"""The built-in event shapes: Gaussian, Laplace and randomized response, without sampling,
with Poisson sampling and with fixed-size sampling (see :mod:`rigorous_rdp.scheme`).

Every reading of a shape is here, next to its parameters: the certified RDP curve (the
default bound and the bounds a user may choose), the PLD dominating pair or why there is
none, and the independent mpmath references of both.  Bound modules, profiles and
references are imported inside the functions, so importing the table stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from . import events as ev
from .errors import InvalidParameter, UnsupportedEventError
from .events import Adjacency, Bound, BoundOptions
from .scheme import BoundChoice, Noise, Parameter, PureReferenceFn, ReferenceFn, References, Scheme, Unsampled
from .validation import POISSON_NOISE, SAMPLED_NOISE

if TYPE_CHECKING:
    from .curves import RdpCurve
    from .pld.profiles import DominatingPair

__all__ = ["NOISES", "SCHEMES"]

_AR, _R1 = Adjacency.ADD_REMOVE, Adjacency.REPLACE_ONE


# ---------------------------------------------------------------------------
# base mechanisms
# ---------------------------------------------------------------------------


def _symmetric(profile: Any) -> DominatingPair:
    from .pld.profiles import DominatingPair

    return DominatingPair(profile, profile)


def _mp_rat(x: Fraction) -> Any:
    import mpmath

    return mpmath.mpf(x.numerator) / x.denominator


@dataclass(frozen=True)
class _Readings:
    """Where the readings of a built-in base mechanism live, by name (imported on first use):
    its curve class in :mod:`.mechanisms` (whose ``parameter`` is the event's), its privacy
    profile in :mod:`.pld.profiles`, its mpmath reference ``(alpha, parameter, dps)`` in
    :mod:`.reference.gaussian`, and its built-in kind in :mod:`.reference.pld`; ``pure``: the
    plain-mpmath pure-DP epsilon of a curve and its exact value when rational (pure-DP
    mechanisms only, evaluated at the reference's precision)."""

    field: str
    curve: str
    profile: str
    reference: str
    kind: str
    pure: Callable[[Any], tuple[Any, Fraction | None]] | None = None

    def rdp(self, event: Any) -> RdpCurve:
        from . import mechanisms

        curve: RdpCurve = getattr(mechanisms, self.curve)(getattr(event, self.field))
        return curve

    def pld(self, event: Any) -> DominatingPair:
        from .pld import profiles

        return _symmetric(getattr(profiles, self.profile)(getattr(event, self.field)))

    def reference_pld(self, event: Any) -> tuple[Any, tuple[Any, ...]]:
        return (self.kind, (getattr(event, self.field),))

    def references(self) -> Mapping[type, ReferenceFn]:
        from . import mechanisms
        from .reference import gaussian as rg

        fn = getattr(rg, self.reference)
        return {getattr(mechanisms, self.curve): lambda c, a, dps, _r: fn(a, c.parameter, dps)}

    def pure_references(self) -> Mapping[type, PureReferenceFn]:
        import mpmath

        from . import mechanisms

        value = self.pure
        if value is None:  # pragma: no cover - only pure-DP mechanisms are asked
            return {}

        def pure(c: Any, dps: int, _r: References) -> tuple[Any, Fraction | None]:
            with mpmath.workdps(dps):
                return value(c)

        return {getattr(mechanisms, self.curve): pure}


def _base(
    name: str, event: type, parameter: Parameter, description: str, citation: str, example: str, how: _Readings
) -> Noise:
    """A built-in base mechanism (its ``--noise`` name is also its certificate tag); a pure-DP one
    (``how.pure``) satisfies Zhu & Wang's condition (4)."""
    pure = how.pure is not None
    return Noise(
        *(name, event, parameter, description, how.rdp, citation, example, name),
        pld=how.pld,
        reference_pld=how.reference_pld,
        references=how.references,
        pure_references=how.pure_references if pure else None,
        pure_dp=pure,
        zhu_wang=True,
    )


def _laplace_pure(c: Any) -> tuple[Any, Fraction | None]:
    """Laplace: epsilon = 1/b exactly."""
    return 1 / _mp_rat(c.scale), 1 / c.scale


def _rr_pure(c: Any) -> tuple[Any, Fraction | None]:
    """Randomized response: epsilon = |log(p/(1-p))| (0 exactly at p = 1/2)."""
    import mpmath

    p = _mp_rat(c.p)
    return abs(mpmath.log(p / (1 - p))), (Fraction(0) if c.p == Fraction(1, 2) else None)


_SIGMA = Parameter("noise_multiplier", "sigma", "S", "Gaussian noise multiplier (sensitivity 1), S > 0", "positive")
_SCALE = Parameter("scale", "scale", "B", "Laplace scale b > 0 (sensitivity 1)", "positive")
_P = Parameter("p", "p", "P", "randomized response: probability of the true answer, 0 < P < 1", "open-unit")
_GAUSSIAN_HOW = _Readings("noise_multiplier", "GaussianCurve", "gaussian_profile", "gaussian_rdp_mp", "gaussian")
_LAPLACE_HOW = _Readings("scale", "LaplaceCurve", "laplace_profile", "laplace_rdp_mp", "laplace", _laplace_pure)
_RR_HOW = _Readings(
    "p", "RandomizedResponseCurve", "randomized_response_profile", "randomized_response_rdp_mp", "rr", _rr_pure
)
GAUSSIAN = _base(
    "gaussian", ev.GaussianEvent, _SIGMA, "the Gaussian mechanism", "Mironov 2017, Prop. 7", "2", _GAUSSIAN_HOW
)
LAPLACE = _base("laplace", ev.LaplaceEvent, _SCALE, "the Laplace mechanism", "Mironov 2017, Prop. 6", "2", _LAPLACE_HOW)
RANDOMIZED_RESPONSE = _base(
    "randomized-response",
    ev.RandomizedResponseEvent,
    _P,
    "binary randomized response",
    "Mironov 2017, Prop. 5",
    "3/5",
    _RR_HOW,
)


def _gaussian_refs() -> Mapping[type, ReferenceFn]:
    return _GAUSSIAN_HOW.references()


#: the base mechanisms (the first is the default of ``--noise``)
NOISES: tuple[Noise, ...] = (GAUSSIAN, LAPLACE, RANDOMIZED_RESPONSE)


# ---------------------------------------------------------------------------
# Poisson sampling
# ---------------------------------------------------------------------------

Q = Parameter(
    "sampling_probability", "q", "Q", "Poisson sampling probability, 0 <= Q <= 1", "probability", json_key="q"
)
_ZW_BOUNDS = (
    BoundChoice(Bound.TIGHT, "Zhu & Wang 2019, Thm 8 (condition (4))"),
    BoundChoice(Bound.GENERAL, "Zhu & Wang 2019, Thm 5"),
    BoundChoice(Bound.LOWER, "Zhu & Wang 2019, Thm 6 (a lower bound)", guarantee=False),
    BoundChoice(Bound.TAU, "Zhu & Wang 2019, Thm 11", example_tau=3),
)
POISSON_GAUSSIAN_ONLY = (
    "the PLD accountant supports Poisson sampling of the Gaussian mechanism under add-remove adjacency "
    "only (no certified dominating pair for {what}); the RDP accountant supports it."
)


def _sigma(event: Any) -> Fraction:
    """The noise multiplier of the Gaussian mechanism inside a sampled event."""
    inner = event.event
    if not isinstance(inner, ev.GaussianEvent):  # pragma: no cover - schemes route only Gaussians here
        raise UnsupportedEventError(f"expected a GaussianEvent inside {type(event).__name__}")
    sigma: Fraction = inner.noise_multiplier
    return sigma


class Poisson(Scheme):
    """Poisson sampling (probability q) of a base mechanism, add-remove or replace-one.

    Gaussian, add-remove: the exact curve (Mironov, Talwar, Zhang 2019), tight PLD pairs.
    Gaussian, replace-one: the minimum of Birrell et al. Thm C.9, the weak triangle
    inequality and :math:`2\\alpha/\\sigma^2`.  Pure-DP bases (condition (4)): Zhu & Wang
    2019 Thm 8, capped by Lemma 4.  With add-remove adjacency the Zhu & Wang bounds may be
    chosen instead (the accountant option ``bound``).
    """

    sampling = "poisson"
    parameters = (Q,)
    event_classes = MappingProxyType({"poisson-sampled": ev.PoissonSampledEvent})

    def __init__(self, noise: Noise, adjacency: Adjacency, citation: str):
        self.noise = noise
        self.adjacency = adjacency
        chosen = _ZW_BOUNDS if (noise.zhu_wang and adjacency is _AR) else ()
        self.bounds = (BoundChoice(None, citation), *chosen)
        self.example = MappingProxyType({"sampling_probability": "1/100"})
        self.shape = f"Poisson sampling of {noise.event.__name__}"
        self.description = f"{self.shape} with {adjacency.value} adjacency"

    def matches(self, event: ev.DpEvent) -> bool:
        if isinstance(event, ev.PoissonSampledEvent):
            return type(event.event) is self.noise.event and event.adjacency is self.adjacency
        return False

    def check_options(self, options: BoundOptions, event: Any = None) -> BoundChoice:
        if options.bound is Bound.WANG2019:
            raise _wang2019_only()
        if options.bound is not None and self.adjacency is not _AR:
            raise InvalidParameter(
                "bound", "(the Zhu & Wang 2019 bounds) is for {adjacency} add-remove only", related=("adjacency",)
            )
        return super().check_options(options, event)

    def build(self, base: ev.DpEvent, values: Mapping[str, Any]) -> ev.DpEvent:
        q: Any = values.get("sampling_probability")
        return ev.PoissonSampledEvent(base, q, self.adjacency)

    def chosen_curve(self, event: Any, options: BoundOptions) -> RdpCurve:
        from .subsampling.zhu_wang import poisson_subsampled_curve

        return poisson_subsampled_curve(
            self.noise.rdp(event.event),
            event.sampling_probability,
            bound=options.bound,
            tau=options.tau,
            condition4=event.event,
        )

    def rdp_curve(self, event: Any) -> RdpCurve:
        base = self.noise.event
        if base is ev.GaussianEvent and self.adjacency is _AR:
            from .subsampling.poisson_gaussian import PoissonGaussianCurve

            return PoissonGaussianCurve(
                event.sampling_probability, POISSON_NOISE.check(_sigma(event), "noise_multiplier")
            )
        if base is ev.GaussianEvent:
            from .subsampling.poisson_replace_one import poisson_replace_one_default_curve

            return poisson_replace_one_default_curve(
                event.sampling_probability, SAMPLED_NOISE.check(_sigma(event), "noise_multiplier")
            )
        from .subsampling.zhu_wang import poisson_pure_dp_default_curve

        return poisson_pure_dp_default_curve(
            self.noise.rdp(event.event), event.sampling_probability, condition4=event.event
        )

    def _gaussian_ar(self) -> bool:
        return self.noise.event is ev.GaussianEvent and self.adjacency is _AR

    def pld_pair(self, event: Any) -> DominatingPair | None:
        # add/remove: the Poisson pair (qP + (1-q)Q, Q) of the base pair and its swap (Zhu, Dong,
        # Wang 2022, Prop. 30; proofs/verify_pld_pairs.py); replace-one (Gaussian): the
        # symmetrised Poisson pair with sigma/2, which dominates but is not attained
        q = event.sampling_probability
        if q == 0:
            return None
        from .pld import pairs as pp
        from .pld.profiles import DominatingPair, poisson_gaussian_profile

        base = self.noise.event
        if self.adjacency is _R1:
            if base is not ev.GaussianEvent:  # pragma: no cover - no such row in SCHEMES
                raise UnsupportedEventError(POISSON_GAUSSIAN_ONLY.format(what="replace-one adjacency"))
            prof = pp.replace_one_gaussian_profile(q, _sigma(event))
            # attained: D = {C e_1, 0, ..., 0}, D' = {0, ..., 0} give the Poisson pair at sigma
            return DominatingPair(prof, prof, False, pp.attained_replace_one(q, _sigma(event)), ("poisson-r1",))
        if q == 1:
            return self.noise.pld(event.event) if self.noise.pld else None
        if base is ev.GaussianEvent:
            s = _sigma(event)
            return DominatingPair(poisson_gaussian_profile(q, s, "remove"), poisson_gaussian_profile(q, s, "add"))
        inner = event.event
        if base is ev.LaplaceEvent:
            return DominatingPair(
                pp.poisson_laplace_profile(q, inner.scale, "remove"), pp.poisson_laplace_profile(q, inner.scale, "add")
            )
        return DominatingPair(
            pp.poisson_randomized_response_profile(q, inner.p, "remove"),
            pp.poisson_randomized_response_profile(q, inner.p, "add"),
        )

    def reference_pld(self, event: Any) -> tuple[Any, tuple[Any, ...]] | None:
        q = event.sampling_probability
        if q == 0:
            return None
        if self.adjacency is _R1:
            return _replace_one_reference(q, _sigma(event))
        if q == 1:
            return self.noise.reference_pld(event.event) if self.noise.reference_pld else None
        if self.noise.event is ev.GaussianEvent:
            return _poisson_gaussian_reference(q, _sigma(event))
        inner = event.event
        if self.noise.event is ev.LaplaceEvent:
            return ("poisson-laplace", (q, inner.scale))
        return ("poisson-rr", (q, inner.p))

    def rdp_references(self) -> Mapping[type, ReferenceFn]:
        out: dict[type, ReferenceFn] = dict(self.noise.references() if self.noise.references else {})
        if self.noise.event is ev.GaussianEvent:
            out.update(_poisson_gaussian_refs())
        out.update(_zhu_wang_refs())
        return out

    def pure_references(self) -> Mapping[type, PureReferenceFn]:
        out = dict(self.noise.pure_references() if self.noise.pure_references else {})
        out.update(_zhu_wang_pure())
        return out


def _poisson_gaussian_reference(q: Fraction, sigma: Fraction) -> tuple[Any, tuple[Any, ...]] | None:
    if q == 0:
        return None
    if q == 1:
        return ("gaussian", (sigma,))
    return ("poisson-gaussian", (q, sigma))


def _replace_one_reference(q: Fraction, sigma: Fraction) -> tuple[Any, tuple[Any, ...]]:
    return ("gaussian", (sigma / 2,)) if q == 1 else ("replace-one-gaussian", (q, sigma))


def _poisson_gaussian_refs() -> Mapping[type, ReferenceFn]:

    from .reference import fixed_size_misc as fsm
    from .reference import gaussian as rg
    from .reference import sharp as rs
    from .subsampling.poisson_gaussian import PoissonGaussianCurve
    from .subsampling.poisson_replace_one import PoissonReplaceOneGaussianCurve, WeakTriangleReplaceOneCurve
    from .subsampling.wang2019 import Wang2019Curve

    def weak_triangle(c: Any, a: Fraction, dps: int, refs: References) -> Any:
        # at the Hoelder exponent p the curve uses, on the reference of its add/remove curve
        inner = c.add_remove
        return rs.weak_triangle_reference(
            a, inner.q, inner.sigma, dps=dps, p=c.optimal_p(a), add_remove=lambda o: refs.rdp(inner, o, dps)
        )

    def wang(c: Any, a: Fraction, dps: int, _r: References) -> Any:
        from .mechanisms import GaussianCurve

        if not isinstance(c.base, GaussianCurve):
            raise UnsupportedEventError(f"no mpmath reference for Wang et al. 2019 over {c.base.name}")
        # the replace-one Gaussian base curve has noise sigma/2 (wang2019.replace_one_gaussian_curve)
        return fsm.wang_upper_mp(a, 2 * c.base.sigma, c.q, dps=dps)

    return {
        PoissonGaussianCurve: lambda c, a, dps, _r: rg.poisson_gaussian_rdp_mp(a, c.q, c.sigma, dps),
        PoissonReplaceOneGaussianCurve: lambda c, a, dps, _r: fsm.poisson_replace_one_mp(
            a, c.q, c.sigma, m=c.m, dps=dps
        ),
        WeakTriangleReplaceOneCurve: weak_triangle,
        Wang2019Curve: wang,
    }


def _zhu_wang_refs() -> Mapping[type, ReferenceFn]:
    import mpmath

    from .mechanisms import GaussianCurve, LaplaceCurve, RandomizedResponseCurve
    from .reference import sharp as rs
    from .reference import zhu_wang as rz
    from .subsampling.zhu_wang import SmallOrderChi2Curve, ZhuWangCurve

    def zhu_wang(c: Any, a: Fraction, dps: int, _r: References) -> Any:
        kinds = {
            GaussianCurve: ("gaussian", "sigma"),
            LaplaceCurve: ("laplace", "scale"),
            RandomizedResponseCurve: ("randomized-response", "p"),
        }
        if type(c.base) not in kinds or c.tau_general:
            raise UnsupportedEventError(f"no mpmath reference for the Zhu & Wang bound over {c.base.name}")
        kind, attr = kinds[type(c.base)]
        return rz.zhu_wang_rdp_mp(
            kind, getattr(c.base, attr), c.q, a, c.bound.value, dps, cap_pure_dp=c.cap_pure_dp, tau=c.tau
        )

    def small_order(c: Any, a: Fraction, dps: int, refs: References) -> Any:
        if a > 2:
            return mpmath.inf
        eps2 = refs.rdp(c.base, Fraction(2), dps)
        try:
            eps_inf = refs.pure(c.base, dps)[0]
        except UnsupportedEventError:
            eps_inf = None
        return rs.small_order_chi2_reference(a, c.q, eps2, eps_inf, dps)

    return {ZhuWangCurve: zhu_wang, SmallOrderChi2Curve: small_order}


def _zhu_wang_pure() -> Mapping[type, PureReferenceFn]:
    import mpmath

    from .subsampling.zhu_wang import ZhuWangCurve

    def pure(c: Any, dps: int, refs: References) -> tuple[Any, Fraction | None]:
        # Lemma 4: log(1 + q (e^eps_inf - 1)) (the lower bound has none)
        if c.bound is Bound.LOWER:
            raise UnsupportedEventError("the Zhu & Wang lower bound has no pure-DP epsilon")
        base, exact = refs.pure(c.base, dps)
        with mpmath.workdps(dps):
            value = mpmath.log1p(_mp_rat(c.q) * mpmath.expm1(base))
        return value, (Fraction(0) if exact == 0 or c.q == 0 else None)

    return {ZhuWangCurve: pure}


# ---------------------------------------------------------------------------
# fixed-size sampling
# ---------------------------------------------------------------------------

BATCH_SIZE = Parameter("batch_size", "batch-size", "B", "fixed-size minibatch size, 1 <= B <= N", "count", integer=True)
DATASET_SIZE = Parameter(
    "dataset_size", "dataset-size", "N", "dataset size N >= 1 (fixed-size sampling)", "count", integer=True
)
FSWR_REFUSAL = (
    "the PLD accountant has no dominating pair for fixed-size sampling with replacement (fswr): the missing "
    "theorem is a single-step pair for the Gaussian mixture over the binomial number of draws of the "
    "differing record with vector-valued records (that the aligned configuration, every replaced draw "
    "shifting the sum by the same vector of norm 2C, maximises every hockey-stick divergence); see "
    "docs/explanations/pld-coverage.md. The RDP accountant supports it (Birrell et al. 2024, Thm 3.6)."
)


class FixedSize(Scheme):
    """Fixed-size sampling of the Gaussian mechanism (Birrell et al. 2024): a minibatch of
    ``batch_size`` out of ``dataset_size`` records, without replacement (fswor) or with (fswr)."""

    parameters = (BATCH_SIZE, DATASET_SIZE)
    event_classes = MappingProxyType({"fixed-size-sampled": ev.FixedSizeSampledEvent})
    takes_taylor_order = True

    def __init__(self, replacement: bool, adjacency: Adjacency, citation: str, *chosen: BoundChoice):
        self.noise = GAUSSIAN
        self.replacement = replacement
        self.sampling = "fswr" if replacement else "fswor"
        self.adjacency = adjacency
        self.bounds = (BoundChoice(None, citation), *chosen)
        size = ("3", "100") if replacement else ("10", "1000")
        self.example = MappingProxyType({"batch_size": size[0], "dataset_size": size[1]})
        how = "with" if replacement else "without"
        self.shape = f"fixed-size sampling {how} replacement of GaussianEvent"
        self.description = f"{self.shape} with {adjacency.value} adjacency"

    def matches(self, event: ev.DpEvent) -> bool:
        if isinstance(event, ev.FixedSizeSampledEvent):
            return (
                type(event.event) is ev.GaussianEvent
                and event.replacement is self.replacement
                and event.adjacency is self.adjacency
            )
        return False

    def check_options(self, options: BoundOptions, event: Any = None) -> BoundChoice:
        if options.bound is Bound.WANG2019 and (self.replacement or self.adjacency is not _R1):
            raise _wang2019_only()
        if options.bound is Bound.WANG2019 and options.taylor_order is not None:
            raise InvalidParameter("taylor_order", "does not apply to {bound} wang2019", related=("bound",))
        if options.bound not in (None, Bound.WANG2019):
            raise InvalidParameter(
                "bound",
                f"{options.name} applies to {{sampling}} poisson (Zhu & Wang 2019), not {{sampling}} {self.sampling}",
                related=("sampling",),
            )
        return super().check_options(options, event)

    def build(self, base: ev.DpEvent, values: Mapping[str, Any]) -> ev.DpEvent:
        b: Any = values.get("batch_size")
        n: Any = values.get("dataset_size")
        return ev.FixedSizeSampledEvent(base, b, n, replacement=self.replacement, adjacency=self.adjacency)

    def summary(self, event: Any) -> dict[str, Any]:
        # the summary has always stated the (now deprecated) Taylor order field of the event
        out = super().summary(event)
        adjacency = out.pop("adjacency")
        out["taylor_order"] = event.taylor_order
        out["adjacency"] = adjacency
        return out

    def chosen_curve(self, event: Any, options: BoundOptions) -> RdpCurve:
        if options.bound is None:  # an explicit Taylor order of the default bound
            return self._curve(event, options.taylor_order)
        # the only other choice (check_options): Wang et al. 2019, Thm 9 alone
        from .subsampling.wang2019 import replace_one_gaussian_curve, wang2019_curve

        sigma = SAMPLED_NOISE.check(_sigma(event), "noise_multiplier")
        return wang2019_curve(replace_one_gaussian_curve(sigma), event.batch_size, event.dataset_size)

    def rdp_curve(self, event: Any) -> RdpCurve:
        return self._curve(event, None)

    def _curve(self, event: Any, taylor_order: int | None) -> RdpCurve:
        sigma = SAMPLED_NOISE.check(_sigma(event), "noise_multiplier")
        if self.replacement:
            from .subsampling.fswr import FswrGaussianCurve

            return FswrGaussianCurve(sigma, event.batch_size, event.dataset_size)
        if self.adjacency is _AR:
            # Thm 3.1 (6) exactly at every real order; an explicit taylor_order gives the Thm 3.3 bound
            from .subsampling.fswor import fswor_add_remove_default_curve

            return fswor_add_remove_default_curve(event.sampling_probability, sigma, taylor_order)
        # per order the minimum of Birrell et al. Thm 3.5 (Taylor order chosen per order, or the
        # explicit taylor_order) and Wang et al. 2019 Thm 9
        from .subsampling.fswor import fswor_replace_one_default_curve

        return fswor_replace_one_default_curve(sigma, event.batch_size, event.dataset_size, taylor_order)

    def _pld_ok(self, event: Any) -> None:
        if self.replacement:
            raise UnsupportedEventError(FSWR_REFUSAL)

    def pld_pair(self, event: Any) -> DominatingPair | None:
        self._pld_ok(event)
        from .pld.profiles import DominatingPair, gaussian_profile, poisson_gaussian_profile

        if self.adjacency is _R1:
            # the symmetrised Poisson pair with sigma/2 and q = |B|/|D| (proofs/verify_pld_pairs.py)
            from .pld.pairs import attained_replace_one, replace_one_gaussian_profile

            q, s = event.sampling_probability, _sigma(event) / 2
            prof = replace_one_gaussian_profile(q, _sigma(event))
            # attained: D = {a, -a, ..., -a}, D' = {-a, ..., -a}, |a| = C give the Poisson pair at sigma/2
            return DominatingPair(prof, prof, False, attained_replace_one(q, s), ("fswor-r1", event.dataset_size))
        # Birrell et al. Thm 3.1 argument for hockey-stick divergences (docs/pld.md,
        # proofs/verify_fswor_hockey_stick.py): remove direction dominated by the Poisson
        # remove pair, add direction by the Poisson add pair, both with noise sigma/2 and
        # q = |B|/|D| (the q of the larger dataset is at most |B|/|D|; monotone in q).
        q, s = event.sampling_probability, _sigma(event) / 2
        if q == 1:
            p = gaussian_profile(s)
            return DominatingPair(p, p, tight=False)
        return DominatingPair(
            poisson_gaussian_profile(q, s, "remove"), poisson_gaussian_profile(q, s, "add"), tight=False
        )

    def reference_pld(self, event: Any) -> tuple[Any, tuple[Any, ...]] | None:
        self._pld_ok(event)
        if self.adjacency is _R1:
            return _replace_one_reference(event.sampling_probability, _sigma(event))
        return _poisson_gaussian_reference(event.sampling_probability, _sigma(event) / 2)

    def rdp_references(self) -> Mapping[type, ReferenceFn]:
        return {**_gaussian_refs(), **_poisson_gaussian_refs(), **_fixed_size_refs()}


def _fixed_size_refs() -> Mapping[type, ReferenceFn]:

    import mpmath

    from .reference import fixed_size_misc as fsm
    from .reference import fswor as rf
    from .reference import sharp as rs
    from .subsampling.fswor import (
        FsworAddRemoveCurve,
        FsworAddRemoveExactCurve,
        FsworReplaceOneAutoCurve,
        FsworReplaceOneCurve,
    )
    from .subsampling.fswr import FswrGaussianCurve

    def fswor(fn: Callable[..., Any]) -> ReferenceFn:
        def ref(c: Any, a: Fraction, dps: int, _r: References) -> Any:
            with mpmath.workdps(dps):
                return +fn(a, c.q, c.sigma, c.m)

        return ref

    def fswor_auto(c: Any, a: Fraction, dps: int, _r: References) -> Any:
        # the Taylor order the curve uses at this order (any m gives a valid bound; compare the same formula)
        with mpmath.workdps(dps):
            return +rf.ref_replace_one_rdp(a, c.q, c.sigma, c.taylor_order_at(a))

    return {
        FsworAddRemoveCurve: fswor(rf.ref_add_remove_rdp),
        FsworAddRemoveExactCurve: lambda c, a, dps, _r: rs.fswor_add_remove_exact_reference(a, c.q, c.sigma, dps),
        FsworReplaceOneAutoCurve: fswor_auto,
        FsworReplaceOneCurve: fswor(rf.ref_replace_one_rdp),
        FswrGaussianCurve: lambda c, a, dps, _r: fsm.fswr_upper_mp(
            a, c.sigma, c.batch_size, c.dataset_size, dps, fractional="exact"
        ),
    }


# ---------------------------------------------------------------------------
# the built-in schemes
# ---------------------------------------------------------------------------

SCHEMES: tuple[Scheme, ...] = (
    *(Unsampled(n) for n in NOISES),
    Poisson(GAUSSIAN, _AR, "exact: Mironov, Talwar, Zhang 2019; blog part 2, Claim 27 / (9.5)"),
    Poisson(
        GAUSSIAN,
        _R1,
        "min of Birrell et al. 2024, Thm C.9, the weak triangle inequality (Mironov 2017, Prop. 11) and "
        "2 alpha / sigma^2",
    ),
    FixedSize(False, _AR, "Birrell et al. 2024, Thm 3.1 (6) exactly (Thm 3.3 with a Taylor order)"),
    FixedSize(
        False,
        _R1,
        "min of Birrell et al. 2024, Thm 3.4-3.5 and Wang et al. 2019, Thm 9",
        BoundChoice(Bound.WANG2019, "Wang, Balle, Kasiviswanathan 2019, Thm 9"),
    ),
    FixedSize(True, _AR, "Birrell et al. 2024, Thm 3.6, eq. (16)"),
    *(
        Poisson(n, _AR, "Zhu & Wang 2019, Thm 8, capped by Lemma 4; second-moment bound on (1, 2]")
        for n in NOISES
        if n.pure_dp
    ),
)


def _wang2019_only() -> InvalidParameter:
    return InvalidParameter(
        "bound", "wang2019 applies to {sampling} fswor with {adjacency} replace-one", related=("sampling", "adjacency")
    )
