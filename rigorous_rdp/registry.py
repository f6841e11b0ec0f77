r"""The registry: the list of supported event shapes (:class:`~rigorous_rdp.scheme.Scheme`).

Every place that needs to know how an event is read asks this module, and this module
asks the event's scheme: the RDP accountant (:func:`rdp_curve`), the PLD accountant
(:func:`pld_pair`), the certificates and ``rigorous-rdp verify`` (:func:`describe`,
:func:`reference_rdp_of_curve`, :func:`reference_pld`, :func:`event_tags`), the command line
(:func:`noises`, :func:`samplings`, :func:`parameters`, :func:`sampled_event`) and the
documentation (:func:`rows`).  Nothing else keeps its own chain of ``isinstance`` tests.

Adding a mechanism or a sampling scheme is one new module that defines its
:class:`~rigorous_rdp.scheme.Scheme` objects, and one line in :data:`SCHEMES` below: see
``docs/extending.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NoReturn

from . import builtin_schemes
from . import events as ev
from .errors import InvalidParameter, UnsupportedEventError
from .events import Adjacency, Bound, BoundOptions, Sampling
from .scheme import BoundChoice, Noise, Parameter, References, Scheme
from .subsampling import random_allocation_scheme

if TYPE_CHECKING:
    from .curves import RdpCurve
    from .pld.profiles import DominatingPair

__all__ = [
    "ROWS",
    "SCHEMES",
    "Row",
    "describe",
    "event_tags",
    "lookup",
    "markdown_table",
    "noises",
    "parameters",
    "pld_pair",
    "rdp_curve",
    "reference_pld",
    "reference_pure_dp_of_curve",
    "reference_rdp",
    "reference_rdp_of_curve",
    "reference_table",
    "rows",
    "sampled_event",
    "sampling_parameters",
    "samplings",
    "scheme_of",
    "scheme_parameters",
    "supports",
]

#: every supported event shape: one line per module of schemes
SCHEMES: tuple[Scheme, ...] = (
    *builtin_schemes.SCHEMES,  # Gaussian, Laplace, randomized response; none, Poisson, fixed-size
    *random_allocation_scheme.SCHEMES,  # balls-and-bins, random allocation, shuffle (lower bound only)
)


@dataclass(frozen=True)
class Row:
    """One bound of one scheme (the default or a chosen one): a line of the documentation
    table and a case of the contract test.

    Attributes:
        scheme: the event shape.
        choice: the bound.
    """

    scheme: Scheme
    choice: BoundChoice

    @property
    def bound(self) -> Bound | None:
        return self.choice.bound

    @property
    def label(self) -> str:
        return f"{self.scheme.label}/{self.choice.name}"

    @property
    def citation(self) -> str:
        return self.choice.citation

    @property
    def guarantee(self) -> bool:
        return self.choice.guarantee

    @property
    def options(self) -> BoundOptions:
        """The accountant option that selects this row's bound (its example ``tau``)."""
        return self.choice.options

    def event(self) -> ev.DpEvent:
        """The one-step event of the row's example (``noise.example``, ``scheme.example``; the
        bound is :attr:`options`)."""
        s = self.scheme
        base = s.noise.event(**{s.noise.parameter.field: s.noise.example})
        values = {p.field: s.example.get(p.field) for p in s.parameters}
        return sampled_event(base, s.sampling, adjacency=s.adjacency, options=self.options, **values)


def rows() -> tuple[Row, ...]:
    """Every (scheme, bound) of :data:`SCHEMES`, in order."""
    return tuple(Row(s, c) for s in SCHEMES for c in s.bounds)


#: the rows of the built-in table (:func:`rows` reads :data:`SCHEMES` at call time)
ROWS: tuple[Row, ...] = rows()


def _unique(items: Iterable[Any], key: Any) -> list[Any]:
    seen: dict[Any, Any] = {}
    for it in items:
        seen.setdefault(key(it), it)
    return list(seen.values())


def noises() -> list[Noise]:
    """The base mechanisms (the first is the default of ``--noise``)."""
    return _unique((s.noise for s in SCHEMES), lambda n: n.name)


def samplings() -> list[str]:
    """The sampling schemes by name (``none`` first)."""
    return _unique((s.sampling for s in SCHEMES), lambda x: x)


def sampling_parameters(sampling: str) -> tuple[Parameter, ...]:
    """The parameters of the sampling scheme ``sampling`` (of its first scheme)."""
    for s in SCHEMES:
        if s.sampling == sampling:
            return s.parameters
    return ()


def scheme_parameters() -> list[Parameter]:
    """Every parameter of every sampling scheme, once (by option)."""
    return _unique((p for s in SCHEMES for p in s.parameters), lambda p: p.option)


def parameters() -> list[Parameter]:
    """Every parameter of every noise and sampling scheme, once (by option)."""
    params = [n.parameter for n in noises()] + [p for s in SCHEMES for p in s.parameters]
    return _unique(params, lambda p: p.option)


def event_tags() -> dict[str, type]:
    """``type`` tag -> event class of every event in certificates (composition included)."""
    out = dict(ev.EVENT_TAGS)
    for s in SCHEMES:
        out.setdefault(s.noise.tag, s.noise.event)
        for tag, cls in s.event_classes.items():
            out.setdefault(tag, cls)
    return out


# ---------------------------------------------------------------------------
# from an event to its scheme
# ---------------------------------------------------------------------------


def scheme_of(event: ev.DpEvent) -> Scheme:
    """The scheme of a one-step event (of the mechanism a deprecated event with a chosen
    bound stands for: :func:`~rigorous_rdp.events.split_choice`).

    Raises:
        UnsupportedEventError: for composite events (compose them instead), unknown event
            types and unsupported combinations (naming the supported ones nearby).
    """
    event = ev.split_choice(event)[0]
    for s in SCHEMES:
        if s.matches(event):
            return s
    inner = getattr(event, "event", None)
    near = [s for s in SCHEMES if type(event) in s.event_classes.values() and s.noise.event is type(inner)]
    if not near:
        raise UnsupportedEventError(f"no certified RDP bound for {type(event).__name__}")
    # the same sampling when the event says which (fswr vs fswor), else every scheme of the class
    same = [s for s in near if getattr(s, "replacement", None) == getattr(event, "replacement", None)] or near
    adjacency = getattr(event, "adjacency", Adjacency.ADD_REMOVE)
    _refuse(_shape(same[0]), Adjacency.parse(adjacency), same)


def _shape(s: Scheme) -> str:
    """The shape of ``s`` for messages (a scheme that names none: its sampling and noise)."""
    return s.shape or f"{s.sampling} sampling of {s.noise.event.__name__}"


def _refuse(shape: str, adjacency: Adjacency, near: list[Scheme]) -> NoReturn:
    """Raise UnsupportedEventError for ``shape`` with ``adjacency``, naming the rows of ``near``."""
    supported = " or ".join(sorted({s.adjacency.value for s in near}))
    raise UnsupportedEventError(
        f"no certified bound for {shape} with {adjacency.value} adjacency (supported: {supported} adjacency)"
    )


def _resolve(event: ev.DpEvent, options: BoundOptions | None) -> tuple[Scheme, ev.DpEvent, BoundOptions]:
    """The scheme, the event without a choice of theorem, and the accountant option that applies
    (``options``, or the choice a deprecated event carries; the two must not differ)."""
    plain, carried = ev.split_choice(event)
    opts = BoundOptions() if options is None else options
    if carried is not None:
        if not opts.is_default and opts != carried:
            raise InvalidParameter(
                "bound", f"is chosen twice: by {type(event).__name__} ({carried}) and by the accountant ({opts})"
            )
        opts = carried
    s = scheme_of(plain)
    _check_taylor(s.sampling, opts)
    return s, plain, opts


def _check_taylor(sampling: str, options: BoundOptions | None) -> None:
    """An explicit Taylor order applies to the samplings whose schemes take one."""
    if options is None or options.taylor_order is None:
        return
    known = [x for x in samplings() if any(t.sampling == x and t.takes_taylor_order for t in SCHEMES)]
    if sampling not in known:
        raise InvalidParameter(
            "taylor_order",
            f"applies to {{sampling}} {'|'.join(known)}, not {{sampling}} {sampling}",
            related=("sampling",),
        )


def lookup(event: ev.DpEvent, options: BoundOptions | None = None) -> Row:
    """The row (scheme and bound) of a one-step event under the accountant option ``options``.

    Raises:
        UnsupportedEventError, InvalidParameter: no such row (the bound does not apply).
    """
    s, plain, opts = _resolve(event, options)
    return Row(s, s.check_options(opts, plain))


def rdp_curve(event: ev.DpEvent, options: BoundOptions | None = None) -> RdpCurve:
    """The certified RDP curve of one application of ``event`` (its scheme's, for the bound
    that the accountant option ``options`` chooses; default: the scheme's default bound).

    Raises:
        UnsupportedEventError: if no certified bound is registered for it.
    """
    s, plain, opts = _resolve(event, options)
    return s.curve(plain, opts)


def supports(event: ev.DpEvent, options: BoundOptions | None = None) -> bool:
    """True if :func:`rdp_curve` has a certified bound for ``event`` (never raises)."""
    try:
        rdp_curve(event, options)
    except (UnsupportedEventError, ValueError):
        return False
    return True


def _no_choice(event: ev.DpEvent) -> ev.DpEvent:
    """``event``; a deprecated event that carries a choice of RDP theorem is refused by the PLD."""
    plain, carried = ev.split_choice(event)
    if carried is not None:
        raise UnsupportedEventError(
            f"the PLD accountant takes no RDP bound (bound {carried.name} chooses a theorem of the RDP accountant)."
        )
    return plain


def pld_pair(event: ev.DpEvent) -> DominatingPair | None:
    """The dominating pair(s) of a one-step event for the PLD accountant (``None``: a no-op).

    Raises:
        UnsupportedEventError: the event's scheme has none (its message says why).
    """
    plain = _no_choice(event)
    return scheme_of(plain).pld_pair(plain)


def reference_pld(event: ev.DpEvent) -> tuple[Any, tuple[Any, ...]] | None:
    """``(kind, params)`` of the independent reference of :func:`pld_pair` (``None``: a no-op)."""
    plain = _no_choice(event)
    return scheme_of(plain).reference_pld(plain)


def describe(event: ev.DpEvent) -> dict[str, Any]:
    """The flat summary of a one-step event (noise, its parameter, sampling, its parameters,
    adjacency) as certificates state it.  A deprecated event with a chosen bound adds it
    (``bound``), as certificates written before the bound became an accountant option did."""
    s, plain, opts = _resolve(event, None)
    if not isinstance(event, (ev.ZhuWangSampledEvent, ev.Wang2019SampledEvent)):
        return s.summary(event)
    out = s.summary(plain)
    if out.get("taylor_order", 0) is None:
        del out["taylor_order"]  # Wang2019SampledEvent had no Taylor order
    out["bound"] = opts.name
    return out


# ---------------------------------------------------------------------------
# from options to an event
# ---------------------------------------------------------------------------


def _sampling_name(value: object) -> str:
    if isinstance(value, Sampling):
        return value.value
    names = samplings()
    if value not in names:
        raise InvalidParameter("sampling", f"must be one of {', '.join(names)}", value)
    return str(value)


def _with(field: str) -> str:
    return "|".join(s for s in samplings() if any(p.field == field for p in sampling_parameters(s)))


def sampled_event(
    base: ev.DpEvent,
    sampling: Sampling | str = "none",
    *,
    adjacency: Adjacency | str = Adjacency.ADD_REMOVE,
    options: BoundOptions | None = None,
    **values: Any,
) -> ev.DpEvent:
    """Build the one-step event from its description (the command line's options).

    Args:
        base: the base mechanism.
        sampling: the name of the sampling scheme (:func:`samplings`).
        adjacency: the neighbouring relation.
        options: the accountant option that will account the event, checked here against
            its scheme (the event does not carry it: pass it to the accountant).
        values: the sampling parameters by API field (``sampling_probability``, ``batch_size``,
            ...); ``None`` means not given.

    Parameters that do not apply to ``sampling`` raise ``ValueError`` naming them; a
    combination without a scheme raises :class:`UnsupportedEventError`.
    """
    s = _sampling_name(sampling)
    adj = Adjacency.parse(adjacency)
    _check_taylor(s, options)
    given = {k: v for k, v in values.items() if v is not None}
    own = sampling_parameters(s)
    for field in given:
        if field not in {p.field for p in own}:
            known = _with(field)
            if not known:
                raise TypeError(f"sampled_event() got an unexpected keyword argument {field!r}")
            raise InvalidParameter(
                field, f"applies to {{sampling}} {known}, not {{sampling}} {s}", related=("sampling",)
            )
    if s == "none" and adj is not Adjacency.ADD_REMOVE:
        others = "|".join(x for x in samplings() if any(s.sampling == x and s.adjacency is adj for s in SCHEMES))
        raise InvalidParameter(
            "adjacency", f"replace-one needs a sampling scheme ({{sampling}} {others})", related=("sampling",)
        )
    for p in own:
        if p.required and p.field not in given:
            raise InvalidParameter(
                p.field, f"is required with {{sampling}} {s} (it must be {_range_text(p)})", related=("sampling",)
            )
    scheme = next((x for x in SCHEMES if x.sampling == s and x.noise.event is type(base) and x.adjacency is adj), None)
    if scheme is None:
        near = [x for x in SCHEMES if x.sampling == s and x.noise.event is type(base)]
        shape = _shape(near[0]) if near else f"sampling {s} of {type(base).__name__}"
        # else the schemes of this sampling with this adjacency (else any of this sampling)
        same = [x for x in SCHEMES if x.sampling == s and x.adjacency is adj]
        _refuse(shape, adj, near or same or [x for x in SCHEMES if x.sampling == s])
    event = scheme.build(base, given)
    lookup(event, options)  # refuse unsupported combinations here, with the table's message
    return event


def _range_text(p: Parameter) -> str:
    from .scheme import RANGES

    return RANGES[p.range]


def markdown_table() -> str:
    """The table of every row (docs/extending.md shows it): the shape, the bound, what it
    implements, and what the PLD accountant does with the shape."""
    lines = [
        "| noise | sampling | adjacency | bound | certified RDP bound | PLD |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows():
        try:
            if r.bound is not None:  # a theorem of the RDP accountant: the PLD accountant takes none
                raise UnsupportedEventError(r.label)
            pair = pld_pair(r.event())
            pld = "tight pair" if pair is None or pair.tight else "dominating pair (upper end)"
        except UnsupportedEventError:
            pld = "refused"
        s = r.scheme
        cells = (s.noise.name, s.sampling, s.adjacency.value, r.choice.name, r.citation, pld)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------

_REFERENCES: tuple[tuple[Scheme, ...], References] | None = None


def references() -> References:
    """The mpmath references of every curve class the schemes return (built on first use:
    it imports mpmath and the reference modules)."""
    global _REFERENCES
    if _REFERENCES is None or _REFERENCES[0] is not SCHEMES:
        rdp: dict[type, Any] = {}
        pure: dict[type, Any] = {}
        for s in SCHEMES:
            rdp.update(s.rdp_references())
            pure.update(s.pure_references())
        _REFERENCES = (SCHEMES, References(rdp, pure))
    return _REFERENCES[1]


def reference_table() -> dict[type, Any]:
    """Curve class -> ``(curve, alpha, dps, references) -> mpmath.mpf`` (every curve class that a
    scheme can return has an entry; the contract test checks this)."""
    return references().rdp_table


def reference_rdp_of_curve(curve: RdpCurve, alpha: Fraction, dps: int = 50) -> Any:
    """Plain-mpmath value (``dps`` digits) of the bound that ``curve`` certifies, at ``alpha``
    (see :meth:`rigorous_rdp.scheme.References.rdp`)."""
    return references().rdp(curve, Fraction(alpha), dps)


def reference_rdp(event: ev.DpEvent, alpha: Fraction, dps: int = 50, options: BoundOptions | None = None) -> Any:
    """Reference value of the RDP bound that the certified code computes for one
    application of ``event`` at order ``alpha`` under the accountant option ``options`` (its
    scheme's curve, then the curve's reference)."""
    return reference_rdp_of_curve(rdp_curve(event, options), alpha, dps)


def reference_pure_dp_of_curve(curve: RdpCurve, dps: int = 50) -> tuple[Any, Fraction | None]:
    """Plain-mpmath pure-DP epsilon of a curve and its exact rational value when rational
    (see :meth:`rigorous_rdp.scheme.References.pure`)."""
    return references().pure(curve, dps)
