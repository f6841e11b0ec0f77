r"""The one table: which certified bound, and which independent reference, an event gets.

Every place that needs to know "mechanism + sampling + adjacency (+ bound) ->
certified RDP curve" reads this module: :func:`rigorous_rdp.curves.rdp_curve`
(and through it the accountant, the calibration and the certificates), the
command line (:func:`sampled_event` builds the event from the options), and
``rigorous-rdp verify`` (:func:`reference_rdp_of_curve`).  Nothing else keeps
its own chain of ``isinstance`` tests.

Two tables:

* :data:`ROWS` -- one :class:`Row` per supported ``(mechanism, sampling,
  adjacency, bound)``: the curve factory, the citation, an example in
  command-line form (used by the contract test that runs certify -> verify on
  every row) and whether the row is a privacy guarantee (upper bound).
* :func:`reference_table` -- the independent mpmath reference of every curve
  class the factories can return, keyed by the curve class (not by the event,
  and not by import order).  A :class:`~rigorous_rdp.curves.MinCurve` is checked
  against the minimum of the references of its parts, so a certificate and its
  verification always describe the same bound.

Adding a mechanism or a sampling scheme: see ``docs/extending.md``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import events as ev
from .curves import MinCurve, RdpCurve
from .errors import InvalidParameter, UnsupportedEventError
from .events import Adjacency, Bound, Sampling
from .validation import POISSON_NOISE, SAMPLED_NOISE, RealRange, tau_for_bound

__all__ = [
    "NOISES",
    "ROWS",
    "Key",
    "Noise",
    "Row",
    "curve_for_event",
    "event_key",
    "lookup",
    "reference_pure_dp_of_curve",
    "reference_rdp",
    "reference_rdp_of_curve",
    "reference_table",
    "sampled_event",
    "supported_keys",
]

#: ``(mechanism class, sampling, adjacency, bound)``; ``bound`` None is the default
Key = tuple[type, Sampling, Adjacency, "Bound | None"]


@dataclass(frozen=True)
class Noise:
    """A base mechanism: how the command line names it and what it gets without sampling.

    Attributes:
        name: the value of ``--noise``.
        event: the event class.
        option: the command-line option of its parameter (without ``--``).
        field: the event's field that the option sets.
        metavar: the placeholder of the option's value in ``--help``.
        help: one line for ``--help``.
        build: ``event -> RdpCurve`` of one application (the row without sampling).
        citation: the theorem that curve implements.
        example: a value of the parameter for the example command lines of its rows.
        pure_dp: a pure-DP mechanism satisfying Zhu & Wang's condition (4): Poisson
            sampling gets their default bound and every explicitly chosen Zhu & Wang bound.
        zhu_wang: the explicitly chosen Zhu & Wang bounds (``--bound``) apply to it.
    """

    name: str
    event: type
    option: str
    field: str
    metavar: str
    help: str
    build: Callable[[Any], RdpCurve]
    citation: str
    example: str
    pure_dp: bool = False
    zhu_wang: bool = False

    @property
    def cli(self) -> tuple[str, ...]:
        """The mechanism options of an example command line (the default noise is implied)."""
        head = () if self is NOISES[0] else ("--noise", self.name)
        return (*head, f"--{self.option}", self.example)


@dataclass(frozen=True)
class Row:
    """One supported event shape and the bound it gets.

    Attributes:
        mechanism: the base mechanism class (:class:`~rigorous_rdp.events.GaussianEvent`, ...).
        sampling: how the minibatch is drawn.
        adjacency: the neighbouring relation.
        bound: ``None`` for the default (the tightest valid bound the toolkit
            has), or an explicitly chosen :class:`Bound`.
        build: ``event -> RdpCurve`` (receives the full one-step event).
        citation: the theorems the curve implements.
        cli: an example of this row as mechanism options of the command line.
        guarantee: False for lower bounds (display only; never an epsilon).
    """

    mechanism: type
    sampling: Sampling
    adjacency: Adjacency
    bound: Bound | None
    build: Callable[[Any], RdpCurve]
    citation: str
    cli: tuple[str, ...]
    guarantee: bool = True

    @property
    def key(self) -> Key:
        return (self.mechanism, self.sampling, self.adjacency, self.bound)

    @property
    def label(self) -> str:
        bound = "default" if self.bound is None else self.bound.value
        return f"{self.mechanism.__name__}/{self.sampling.value}/{self.adjacency.value}/{bound}"


# ---------------------------------------------------------------------------
# curve factories (imports are local: importing the table stays cheap)
# ---------------------------------------------------------------------------


def _gaussian(event: ev.GaussianEvent) -> RdpCurve:
    from .mechanisms import GaussianCurve

    return GaussianCurve(event.noise_multiplier)


def _laplace(event: ev.LaplaceEvent) -> RdpCurve:
    from .mechanisms import LaplaceCurve

    return LaplaceCurve(event.scale)


def _randomized_response(event: ev.RandomizedResponseEvent) -> RdpCurve:
    from .mechanisms import RandomizedResponseCurve

    return RandomizedResponseCurve(event.p)


def _base_curve(event: ev.DpEvent) -> RdpCurve:
    return next(n for n in NOISES if n.event is type(event)).build(event)


def _sigma(event: Any, limits: RealRange = SAMPLED_NOISE) -> Fraction:
    """The noise multiplier of the Gaussian mechanism inside a sampled event, within ``limits``."""
    inner = event.event
    if not isinstance(inner, ev.GaussianEvent):  # pragma: no cover - the table routes only Gaussians here
        raise UnsupportedEventError(f"expected a GaussianEvent inside {type(event).__name__}")
    return limits.check(inner.noise_multiplier, "noise_multiplier")


def _poisson_gaussian(event: ev.PoissonSampledEvent) -> RdpCurve:
    from .subsampling.poisson_gaussian import PoissonGaussianCurve

    return PoissonGaussianCurve(event.sampling_probability, _sigma(event, POISSON_NOISE))


def _poisson_gaussian_replace_one(event: ev.PoissonSampledEvent) -> RdpCurve:
    # per order the minimum of Birrell et al. Thm C.9, the weak triangle inequality on the exact
    # add/remove curve and 2 alpha / sigma^2 (q = 1: the Gaussian mechanism with sensitivity 2)
    from .subsampling.poisson_replace_one import poisson_replace_one_default_curve

    return poisson_replace_one_default_curve(event.sampling_probability, _sigma(event))


def _poisson_zhu_wang_default(event: ev.PoissonSampledEvent) -> RdpCurve:
    # Zhu & Wang 2019 Thm 8 (condition (4) holds for Laplace, Prop. 10, and binary randomized
    # response), capped by Lemma 4; on (1, 2] the minimum with the second-moment bound
    from .subsampling.zhu_wang import poisson_pure_dp_default_curve

    return poisson_pure_dp_default_curve(_base_curve(event.event), event.sampling_probability, condition4=event.event)


def _poisson_zhu_wang_chosen(event: ev.ZhuWangSampledEvent) -> RdpCurve:
    from .subsampling.zhu_wang import poisson_subsampled_curve

    return poisson_subsampled_curve(
        _base_curve(event.event), event.sampling_probability, bound=event.bound, tau=event.tau, condition4=event.event
    )


def _fswor_add_remove(event: ev.FixedSizeSampledEvent) -> RdpCurve:
    # Thm 3.1 (6) exactly at every real order; an explicit taylor_order gives the Thm 3.3 bound
    from .subsampling.fswor import fswor_add_remove_default_curve

    return fswor_add_remove_default_curve(event.sampling_probability, _sigma(event), event.taylor_order)


def _wang2019(sigma: Fraction, batch_size: int, dataset_size: int) -> RdpCurve:
    from .subsampling.wang2019 import replace_one_gaussian_curve, wang2019_curve

    return wang2019_curve(replace_one_gaussian_curve(sigma), batch_size, dataset_size)


def _fswor_replace_one(event: ev.FixedSizeSampledEvent) -> RdpCurve:
    # per order the minimum of Birrell et al. Thm 3.5 (Taylor order chosen per order, or the
    # explicit taylor_order) and Wang et al. 2019 Thm 9
    from .subsampling.fswor import fswor_replace_one_default_curve

    return fswor_replace_one_default_curve(_sigma(event), event.batch_size, event.dataset_size, event.taylor_order)


def _fswor_wang2019(event: ev.Wang2019SampledEvent) -> RdpCurve:
    return _wang2019(_sigma(event), event.batch_size, event.dataset_size)


def _fswr_add_remove(event: ev.FixedSizeSampledEvent) -> RdpCurve:
    from .subsampling.fswr import FswrGaussianCurve

    return FswrGaussianCurve(_sigma(event), event.batch_size, event.dataset_size)


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------

#: the base mechanisms (the first is the default of ``--noise``)
NOISES: tuple[Noise, ...] = (
    Noise(
        "gaussian",
        ev.GaussianEvent,
        "sigma",
        "noise_multiplier",
        "S",
        "Gaussian noise multiplier (sensitivity 1), S > 0",
        _gaussian,
        "Mironov 2017, Prop. 7",
        "2",
        zhu_wang=True,
    ),
    Noise(
        "laplace",
        ev.LaplaceEvent,
        "scale",
        "scale",
        "B",
        "Laplace scale b > 0 (sensitivity 1)",
        _laplace,
        "Mironov 2017, Prop. 6",
        "2",
        pure_dp=True,
        zhu_wang=True,
    ),
    Noise(
        "randomized-response",
        ev.RandomizedResponseEvent,
        "p",
        "p",
        "P",
        "randomized response: probability of the true answer, 0 < P < 1",
        _randomized_response,
        "Mironov 2017, Prop. 5",
        "3/5",
        pure_dp=True,
        zhu_wang=True,
    ),
)
BASE_MECHANISMS: tuple[type, ...] = tuple(n.event for n in NOISES)

_AR, _R1 = Adjacency.ADD_REMOVE, Adjacency.REPLACE_ONE
_CLI_NOISE: dict[type, tuple[str, ...]] = {n.event: n.cli for n in NOISES}
_POISSON_CLI = ("--sampling", "poisson", "--q", "1/100")
_ZW_CITATION = {
    Bound.TIGHT: "Zhu & Wang 2019, Thm 8 (condition (4))",
    Bound.GENERAL: "Zhu & Wang 2019, Thm 5",
    Bound.LOWER: "Zhu & Wang 2019, Thm 6 (a lower bound)",
    Bound.TAU: "Zhu & Wang 2019, Thm 11",
}


def _rows() -> tuple[Row, ...]:
    rows = [Row(n.event, Sampling.NONE, _AR, None, n.build, n.citation, n.cli) for n in NOISES]
    rows += [
        Row(
            ev.GaussianEvent,
            Sampling.POISSON,
            _AR,
            None,
            _poisson_gaussian,
            "exact: Mironov, Talwar, Zhang 2019; blog part 2, Claim 27 / (9.5)",
            _CLI_NOISE[ev.GaussianEvent] + _POISSON_CLI,
        ),
        Row(
            ev.GaussianEvent,
            Sampling.POISSON,
            _R1,
            None,
            _poisson_gaussian_replace_one,
            "min of Birrell et al. 2024, Thm C.9, the weak triangle inequality (Mironov 2017, Prop. 11) and "
            "2 alpha / sigma^2",
            _CLI_NOISE[ev.GaussianEvent] + _POISSON_CLI + ("--adjacency", "replace-one"),
        ),
        Row(
            ev.GaussianEvent,
            Sampling.FSWOR,
            _AR,
            None,
            _fswor_add_remove,
            "Birrell et al. 2024, Thm 3.1 (6) exactly (Thm 3.3 with --taylor-order)",
            _CLI_NOISE[ev.GaussianEvent] + ("--sampling", "fswor", "--batch-size", "10", "--dataset-size", "1000"),
        ),
        Row(
            ev.GaussianEvent,
            Sampling.FSWOR,
            _R1,
            None,
            _fswor_replace_one,
            "min of Birrell et al. 2024, Thm 3.4-3.5 and Wang et al. 2019, Thm 9",
            _CLI_NOISE[ev.GaussianEvent]
            + ("--sampling", "fswor", "--batch-size", "10", "--dataset-size", "1000", "--adjacency", "replace-one"),
        ),
        Row(
            ev.GaussianEvent,
            Sampling.FSWOR,
            _R1,
            Bound.WANG2019,
            _fswor_wang2019,
            "Wang, Balle, Kasiviswanathan 2019, Thm 9",
            _CLI_NOISE[ev.GaussianEvent]
            + (
                "--sampling",
                "fswor",
                "--batch-size",
                "10",
                "--dataset-size",
                "1000",
                "--adjacency",
                "replace-one",
                "--bound",
                "wang2019",
            ),
        ),
        Row(
            ev.GaussianEvent,
            Sampling.FSWR,
            _AR,
            None,
            _fswr_add_remove,
            "Birrell et al. 2024, Thm 3.6, eq. (16)",
            _CLI_NOISE[ev.GaussianEvent] + ("--sampling", "fswr", "--batch-size", "3", "--dataset-size", "100"),
        ),
    ]
    for n in NOISES:
        if n.pure_dp:
            rows.append(
                Row(
                    n.event,
                    Sampling.POISSON,
                    _AR,
                    None,
                    _poisson_zhu_wang_default,
                    "Zhu & Wang 2019, Thm 8, capped by Lemma 4; second-moment bound on (1, 2]",
                    n.cli + _POISSON_CLI,
                )
            )
    for mech in (n.event for n in NOISES if n.zhu_wang):
        for bound in (Bound.TIGHT, Bound.GENERAL, Bound.LOWER, Bound.TAU):
            extra = ("--bound", bound.value) + (("--tau", "3") if bound is Bound.TAU else ())
            rows.append(
                Row(
                    mech,
                    Sampling.POISSON,
                    _AR,
                    bound,
                    _poisson_zhu_wang_chosen,
                    _ZW_CITATION[bound],
                    _CLI_NOISE[mech] + _POISSON_CLI + extra,
                    guarantee=bound is not Bound.LOWER,
                )
            )
    return tuple(rows)


#: every supported event shape, in one place
ROWS: tuple[Row, ...] = _rows()
_BY_KEY: dict[Key, Row] = {r.key: r for r in ROWS}
if len(_BY_KEY) != len(ROWS):  # pragma: no cover - a table error, caught at import
    raise RuntimeError("registry: two rows share a key")


def event_key(event: ev.DpEvent) -> Key:
    """The table key of a one-step event.

    Raises:
        UnsupportedEventError: for composite events (compose them instead) and
            unknown event types.
    """
    if isinstance(event, BASE_MECHANISMS):
        return (type(event), Sampling.NONE, Adjacency.ADD_REMOVE, None)
    if isinstance(event, ev.PoissonSampledEvent):
        return (type(event.event), Sampling.POISSON, event.adjacency, None)
    if isinstance(event, ev.ZhuWangSampledEvent):
        return (type(event.event), Sampling.POISSON, Adjacency.ADD_REMOVE, event.bound or Bound.TIGHT)
    if isinstance(event, ev.FixedSizeSampledEvent):
        sampling = Sampling.FSWR if event.replacement else Sampling.FSWOR
        return (type(event.event), sampling, event.adjacency, None)
    if isinstance(event, ev.Wang2019SampledEvent):
        return (type(event.event), Sampling.FSWOR, Adjacency.REPLACE_ONE, Bound.WANG2019)
    raise UnsupportedEventError(f"no certified RDP bound for {type(event).__name__}")


def _describe_key(key: Key) -> str:
    mech, sampling, adjacency, bound = key
    what = {
        Sampling.NONE: "",
        Sampling.POISSON: "Poisson sampling of ",
        Sampling.FSWOR: "fixed-size sampling without replacement of ",
        Sampling.FSWR: "fixed-size sampling with replacement of ",
    }.get(sampling, f"sampling {sampling.value} of ")
    tail = "" if bound is None else f" with the {bound.value} bound"
    return f"{what}{mech.__name__} with {adjacency.value} adjacency{tail}"


def lookup(event: ev.DpEvent) -> Row:
    """The row of ``event``.

    Raises:
        UnsupportedEventError: naming the combination and the supported ones nearby.
    """
    key = event_key(event)
    row = _BY_KEY.get(key)
    if row is None:
        near = sorted(r.label for r in ROWS if r.mechanism is key[0] and r.sampling is key[1])
        hint = f" (supported: {', '.join(near)})" if near else ""
        raise UnsupportedEventError(f"no certified bound for {_describe_key(key)}{hint}")
    return row


def curve_for_event(event: ev.DpEvent) -> RdpCurve:
    """The certified RDP curve of one application of ``event`` (the row's factory)."""
    return lookup(event).build(event)


def supported_keys() -> list[Key]:
    """All keys of the table (for documentation and tests)."""
    return [r.key for r in ROWS]


def sampled_event(
    base: ev.DpEvent,
    sampling: Sampling | str = Sampling.NONE,
    *,
    adjacency: Adjacency | str = Adjacency.ADD_REMOVE,
    bound: Bound | str | None = None,
    tau: Any = None,
    sampling_probability: Any = None,
    batch_size: Any = None,
    dataset_size: Any = None,
    taylor_order: Any = None,
) -> ev.DpEvent:
    """Build the one-step event from its description (the command line's options).

    Parameters that do not apply to ``sampling`` raise ``ValueError`` naming them;
    a combination without a row raises :class:`UnsupportedEventError`.
    """
    s = sampling if isinstance(sampling, Sampling) else _parse_sampling(sampling)
    adj = Adjacency.parse(adjacency)
    b = None if bound is None else Bound.parse(bound)
    fixed = s in (Sampling.FSWOR, Sampling.FSWR)
    if not fixed and (batch_size is not None or dataset_size is not None):
        raise InvalidParameter(
            "batch_size",
            f"and {{dataset_size}} apply to {{sampling}} fswor|fswr, not {{sampling}} {s.value}",
            related=("dataset_size", "sampling"),
        )
    if s is not Sampling.POISSON and sampling_probability is not None:
        raise InvalidParameter(
            "sampling_probability",
            f"applies to {{sampling}} poisson, not {{sampling}} {s.value}",
            related=("sampling",),
        )
    if not fixed and taylor_order is not None:
        raise InvalidParameter(
            "taylor_order", f"applies to {{sampling}} fswor|fswr, not {{sampling}} {s.value}", related=("sampling",)
        )
    tau_for_bound(b, tau)
    if s is Sampling.NONE:
        if adj is not Adjacency.ADD_REMOVE:
            raise InvalidParameter(
                "adjacency",
                "replace-one needs a sampling scheme ({sampling} poisson|fswor|fswr)",
                related=("sampling",),
            )
        if b is not None:
            raise InvalidParameter(
                "bound",
                "applies to a sampled mechanism ({sampling} poisson|fswor), not {sampling} none",
                related=("sampling",),
            )
        event: ev.DpEvent = base
    elif s is Sampling.POISSON:
        if sampling_probability is None:
            raise InvalidParameter(
                "sampling_probability",
                "is required with {sampling} poisson (a number in [0, 1])",
                related=("sampling",),
            )
        if b is None:
            event = ev.PoissonSampledEvent(base, sampling_probability, adj)
        else:
            if b is Bound.WANG2019:
                raise _wang2019_only()
            if adj is not Adjacency.ADD_REMOVE:
                raise InvalidParameter(
                    "bound", "(the Zhu & Wang 2019 bounds) is for {adjacency} add-remove only", related=("adjacency",)
                )
            event = ev.ZhuWangSampledEvent(base, sampling_probability, b, tau)
    else:
        if batch_size is None or dataset_size is None:
            raise InvalidParameter(
                "batch_size",
                f"and {{dataset_size}} are required with {{sampling}} {s.value}",
                related=("dataset_size", "sampling"),
            )
        if b is Bound.WANG2019:
            if s is not Sampling.FSWOR or adj is not Adjacency.REPLACE_ONE:
                raise _wang2019_only()
            if taylor_order is not None:
                raise InvalidParameter("taylor_order", "does not apply to {bound} wang2019", related=("bound",))
            event = ev.Wang2019SampledEvent(base, batch_size, dataset_size)
        elif b is not None:
            raise InvalidParameter(
                "bound",
                f"{b.value} applies to {{sampling}} poisson (Zhu & Wang 2019), not {{sampling}} {s.value}",
                related=("sampling",),
            )
        else:
            kw: dict[str, Any] = {} if taylor_order is None else {"taylor_order": taylor_order}
            event = ev.FixedSizeSampledEvent(
                base, batch_size, dataset_size, replacement=s is Sampling.FSWR, adjacency=adj, **kw
            )
    lookup(event)  # refuse unsupported combinations here, with the table's message
    return event


def _parse_sampling(value: object) -> Sampling:
    for m in Sampling:
        if m.value == value:
            return m
    raise InvalidParameter("sampling", f"must be one of {', '.join(m.value for m in Sampling)}", value)


def _wang2019_only() -> InvalidParameter:
    return InvalidParameter(
        "bound", "wang2019 applies to {sampling} fswor with {adjacency} replace-one", related=("sampling", "adjacency")
    )


# ---------------------------------------------------------------------------
# independent references, keyed by curve class
# ---------------------------------------------------------------------------

ReferenceFn = Callable[[Any, Fraction, int], Any]
_REFERENCES: dict[type, ReferenceFn] | None = None


def reference_table() -> dict[type, ReferenceFn]:
    """Curve class -> ``(curve, alpha, dps) -> mpmath.mpf``, the plain-mpmath reference.

    Built on first use (it imports mpmath and the reference modules).  Every curve
    class that a row of :data:`ROWS` can return has an entry; the contract test
    checks this.
    """
    global _REFERENCES
    if _REFERENCES is None:
        _REFERENCES = _build_reference_table()
    return _REFERENCES


def _build_reference_table() -> dict[type, ReferenceFn]:
    import mpmath

    from .mechanisms import GaussianCurve, LaplaceCurve, RandomizedResponseCurve
    from .reference import fixed_size_misc as fsm
    from .reference import fswor as rf
    from .reference import gaussian as rg
    from .reference import sharp as rs
    from .reference import zhu_wang as rz
    from .subsampling.fswor import (
        FsworAddRemoveCurve,
        FsworAddRemoveExactCurve,
        FsworReplaceOneAutoCurve,
        FsworReplaceOneCurve,
    )
    from .subsampling.fswr import FswrGaussianCurve
    from .subsampling.poisson_gaussian import PoissonGaussianCurve
    from .subsampling.poisson_replace_one import PoissonReplaceOneGaussianCurve, WeakTriangleReplaceOneCurve
    from .subsampling.wang2019 import Wang2019Curve
    from .subsampling.zhu_wang import SmallOrderChi2Curve, ZhuWangCurve

    def fswor(fn: Callable[..., Any]) -> ReferenceFn:
        def ref(c: Any, a: Fraction, dps: int) -> Any:
            with mpmath.workdps(dps):
                return +fn(a, c.q, c.sigma, c.m)

        return ref

    def wang(c: Any, a: Fraction, dps: int) -> Any:
        if not isinstance(c.base, GaussianCurve):
            raise UnsupportedEventError(f"no mpmath reference for Wang et al. 2019 over {c.base.name}")
        # the replace-one Gaussian base curve has noise sigma/2 (wang2019.replace_one_gaussian_curve)
        return fsm.wang_upper_mp(a, 2 * c.base.sigma, c.q, dps=dps)

    def zhu_wang(c: Any, a: Fraction, dps: int) -> Any:
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

    def fswor_auto(c: Any, a: Fraction, dps: int) -> Any:
        # the Taylor order the curve uses at this order (any m gives a valid bound; compare the same formula)
        with mpmath.workdps(dps):
            return +rf.ref_replace_one_rdp(a, c.q, c.sigma, c.taylor_order_at(a))

    def weak_triangle(c: Any, a: Fraction, dps: int) -> Any:
        # at the Hoelder exponent p the curve uses, on the reference of its add/remove curve
        inner = c.add_remove
        return rs.weak_triangle_reference(
            a,
            inner.q,
            inner.sigma,
            dps=dps,
            p=c.optimal_p(a),
            add_remove=lambda o: reference_rdp_of_curve(inner, o, dps),
        )

    def small_order(c: Any, a: Fraction, dps: int) -> Any:
        if a > 2:
            return mpmath.inf
        eps2 = reference_rdp_of_curve(c.base, Fraction(2), dps)
        try:
            eps_inf = reference_pure_dp_of_curve(c.base, dps)[0]
        except UnsupportedEventError:
            eps_inf = None
        return rs.small_order_chi2_reference(a, c.q, eps2, eps_inf, dps)

    def minimum(c: Any, a: Fraction, dps: int) -> Any:
        values = [reference_rdp_of_curve(part, a, dps) for part in c.curves]
        return min(values)

    return {
        GaussianCurve: lambda c, a, dps: rg.gaussian_rdp_mp(a, c.sigma, dps),
        LaplaceCurve: lambda c, a, dps: rg.laplace_rdp_mp(a, c.scale, dps),
        RandomizedResponseCurve: lambda c, a, dps: rg.randomized_response_rdp_mp(a, c.p, dps),
        PoissonGaussianCurve: lambda c, a, dps: rg.poisson_gaussian_rdp_mp(a, c.q, c.sigma, dps),
        PoissonReplaceOneGaussianCurve: lambda c, a, dps: fsm.poisson_replace_one_mp(a, c.q, c.sigma, m=c.m, dps=dps),
        FsworAddRemoveCurve: fswor(rf.ref_add_remove_rdp),
        FsworAddRemoveExactCurve: lambda c, a, dps: rs.fswor_add_remove_exact_reference(a, c.q, c.sigma, dps),
        FsworReplaceOneAutoCurve: fswor_auto,
        WeakTriangleReplaceOneCurve: weak_triangle,
        SmallOrderChi2Curve: small_order,
        FsworReplaceOneCurve: fswor(rf.ref_replace_one_rdp),
        Wang2019Curve: wang,
        FswrGaussianCurve: lambda c, a, dps: fsm.fswr_upper_mp(
            a, c.sigma, c.batch_size, c.dataset_size, dps, fractional="exact"
        ),
        ZhuWangCurve: zhu_wang,
        MinCurve: minimum,
    }


def reference_rdp_of_curve(curve: RdpCurve, alpha: Fraction, dps: int = 50) -> Any:
    """Plain-mpmath value (``dps`` digits) of the bound that ``curve`` certifies, at ``alpha``.

    Raises:
        UnsupportedEventError: no reference for this curve class (verification
            then fails: the safe direction).
    """
    fn = reference_table().get(type(curve))
    if fn is None:
        raise UnsupportedEventError(f"no mpmath reference for the {curve.name} bound ({type(curve).__name__})")
    return fn(curve, Fraction(alpha), dps)


def reference_rdp(event: ev.DpEvent, alpha: Fraction, dps: int = 50) -> Any:
    """Reference value of the RDP bound that the certified code computes for one
    application of ``event`` at order ``alpha`` (its row's curve, then the curve's reference)."""
    return reference_rdp_of_curve(curve_for_event(event), alpha, dps)


def reference_pure_dp_of_curve(curve: RdpCurve, dps: int = 50) -> tuple[Any, Fraction | None]:
    r"""Plain-mpmath pure-DP epsilon of the curves that have one, and its exact rational value
    when it is rational (else ``None``).

    Laplace: :math:`1/b` (rational); randomized response: :math:`|\log(p/(1-p))|`; Poisson
    sampling of a pure-DP base (Zhu & Wang bounds other than the lower one): Lemma 4,
    :math:`\log(1 + q(e^{\epsilon_\infty} - 1))`; a minimum: the smallest of its parts.

    Raises:
        UnsupportedEventError: the curve has no pure-DP epsilon reference.
    """
    import mpmath

    from .mechanisms import LaplaceCurve, RandomizedResponseCurve
    from .subsampling.zhu_wang import ZhuWangCurve

    def rat(x: Fraction) -> Any:
        return mpmath.mpf(x.numerator) / x.denominator

    with mpmath.workdps(dps):
        if isinstance(curve, LaplaceCurve):
            return 1 / rat(curve.scale), 1 / curve.scale
        if isinstance(curve, RandomizedResponseCurve):
            p = rat(curve.p)
            return abs(mpmath.log(p / (1 - p))), (Fraction(0) if curve.p == Fraction(1, 2) else None)
        if isinstance(curve, ZhuWangCurve) and curve.bound is not Bound.LOWER:
            base, exact = reference_pure_dp_of_curve(curve.base, dps)
            value = mpmath.log1p(rat(curve.q) * mpmath.expm1(base))
            return value, (Fraction(0) if exact == 0 or curve.q == 0 else None)
        if isinstance(curve, MinCurve):
            found = []
            for part in curve.curves:
                with contextlib.suppress(UnsupportedEventError):
                    found.append(reference_pure_dp_of_curve(part, dps))
            if found:
                return min(found, key=lambda t: t[0])
    raise UnsupportedEventError(f"no mpmath reference for the pure-DP epsilon of the {curve.name} bound")
