r"""What a supported event shape is: a :class:`Scheme` owns every reading of it.

An event *shape* is a base mechanism (a :class:`Noise`) x a sampling scheme x a
neighbouring relation.  Its :class:`Scheme` is the one object that knows

* its **parameters** (:class:`Parameter`: API field, command-line option, accepted
  range, JSON key) and how an event is built from them (:meth:`Scheme.build`);
* its **certified RDP curve** (the default bound, and every bound the user may choose
  instead: :attr:`Scheme.bounds`);
* its **PLD dominating pair** (:meth:`Scheme.pld_pair`), or the reason there is none
  (an :class:`~rigorous_rdp.errors.UnsupportedEventError` in API words);
* its **independent mpmath references** for both (:meth:`Scheme.rdp_references`,
  :meth:`Scheme.reference_pld`);
* its **one-line description** and the example used by the contract test.

:mod:`rigorous_rdp.registry` is the list of schemes; the accountants, ``verify``, the
command line and the documentation only ask it.  The built-in schemes are in
:mod:`rigorous_rdp.builtin_schemes`; ``docs/extending.md`` shows a new one (a noise and a
sampling scheme in one module, plus one line in the registry).

This module imports no bound module: the curves, profiles and references are imported
by the schemes' methods when they are first asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .errors import InvalidParameter, UnsupportedEventError
from .events import Adjacency, Bound, BoundOptions, DpEvent

if TYPE_CHECKING:
    from .curves import RdpCurve
    from .pld.profiles import DominatingPair

__all__ = [
    "RANGES",
    "BoundChoice",
    "Noise",
    "Parameter",
    "PureReferenceFn",
    "ReferenceFn",
    "References",
    "Scheme",
    "rational_text",
]

#: ``(curve, alpha, dps, references) -> mpmath.mpf``: the plain-mpmath value of the bound a curve
#: certifies (``references`` gives the references of the curves it is built on)
ReferenceFn = Callable[[Any, Fraction, int, "References"], Any]
#: ``(curve, dps, references) -> (mpmath.mpf, exact rational or None)``: the pure-DP epsilon of a curve
PureReferenceFn = Callable[[Any, int, "References"], tuple[Any, "Fraction | None"]]


class References:
    """The independent mpmath references of every curve class the schemes return, keyed by the
    curve class (not by the event, and not by import order): what ``verify`` recomputes.

    A :class:`~rigorous_rdp.curves.MinCurve` is checked against the minimum of the references of
    its parts, so a certificate and its verification always describe the same bound.
    """

    def __init__(self, rdp: Mapping[type, ReferenceFn], pure: Mapping[type, PureReferenceFn]):
        self.rdp_table = dict(rdp)
        self.pure_table = dict(pure)

    def rdp(self, curve: Any, alpha: Fraction, dps: int = 50) -> Any:
        """Plain-mpmath value (``dps`` digits) of the bound that ``curve`` certifies, at ``alpha``.

        Raises:
            UnsupportedEventError: no reference for this curve class (verification then
                fails: the safe direction).
        """
        from .curves import MinCurve

        if isinstance(curve, MinCurve):
            return min(self.rdp(part, alpha, dps) for part in curve.curves)
        fn = self.rdp_table.get(type(curve))
        if fn is None:
            raise UnsupportedEventError(f"no mpmath reference for the {curve.name} bound ({type(curve).__name__})")
        return fn(curve, Fraction(alpha), dps, self)

    def pure(self, curve: Any, dps: int = 50) -> tuple[Any, Fraction | None]:
        """Plain-mpmath pure-DP epsilon of a curve that has one, and its exact rational value
        when it is rational (else ``None``); a minimum: the smallest of its parts.

        Raises:
            UnsupportedEventError: the curve has no pure-DP epsilon reference.
        """
        from .curves import MinCurve

        if isinstance(curve, MinCurve):
            found = []
            for part in curve.curves:
                try:
                    found.append(self.pure(part, dps))
                except UnsupportedEventError:
                    continue
            if found:
                return min(found, key=lambda t: t[0])
        fn = self.pure_table.get(type(curve))
        if fn is None:
            raise UnsupportedEventError(f"no mpmath reference for the pure-DP epsilon of the {curve.name} bound")
        return fn(curve, dps, self)


#: the accepted ranges a parameter may declare (API words; the command line states each
#: with the limits of its number parser, the same wording for every option of a kind)
RANGES: dict[str, str] = {
    "positive": "> 0",
    "open-unit": "in (0, 1)",
    "probability": "in [0, 1]",
    "count": "an integer >= 1",
    "taylor-order": "an integer >= 3",
}


def rational_text(x: Fraction) -> str:
    """Exact ``"p/q"`` (or integer) text of a rational, as certificates store it."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class Parameter:
    """A parameter of a mechanism or a sampling scheme.

    Attributes:
        field: the API name: the event's field (``noise_multiplier``, ``sampling_probability``).
        option: the command-line option without ``--`` (``sigma``, ``q``).
        metavar: the placeholder of the option's value in ``--help``.
        help: one line for ``--help``, with the accepted range.
        range: a key of :data:`RANGES`.
        json_key: the key of the parameter in JSON summaries (``--json`` mechanism echo,
            certificate summary); default: the option with ``_`` for ``-``.
        integer: echoed as a JSON integer (else as its text as typed, or exact ``p/q``).
        required: an event of the scheme needs it (else it is optional, echoed as ``null``).
    """

    field: str
    option: str
    metavar: str
    help: str
    range: str
    json_key: str = ""
    integer: bool = False
    required: bool = True

    def __post_init__(self) -> None:
        if self.range not in RANGES:  # pragma: no cover - a table error, caught at import
            raise ValueError(f"range must be one of {', '.join(RANGES)}. Found {self.range!r}.")

    @property
    def dest(self) -> str:
        """The attribute of the parsed command line (argparse's ``dest``)."""
        return self.option.replace("-", "_")

    @property
    def json(self) -> str:
        """Its key in JSON summaries (``json_key``, else :attr:`dest`)."""
        return self.json_key or self.dest


@dataclass(frozen=True)
class Noise:
    """A base mechanism with one parameter (what ``--noise NAME --OPTION V`` describes).

    Attributes:
        name: the value of ``--noise``.
        event: the event class (a frozen dataclass whose field ``parameter.field`` is the parameter).
        parameter: its parameter.
        description: one line.
        rdp: ``event -> RdpCurve``: the certified RDP curve of one application.
        citation: the theorem ``rdp`` implements.
        example: a value of the parameter for the examples (the documentation's table, the
            contract test).
        pld: ``event -> DominatingPair``: a tight dominating pair of one application, or
            ``None`` (then the PLD accountant refuses the mechanism).
        reference_pld: ``event -> (kind, params)`` for :mod:`rigorous_rdp.reference.pld` (a
            built-in kind name or a callable ``(params, direction, eps) -> mpf``), written out
            independently of ``pld``; ``None`` when ``pld`` is ``None``.
        references: ``() -> {curve class: ReferenceFn}``, the mpmath references of the curve
            classes ``rdp`` returns (called on first use).
        pure_references: ``() -> {curve class: PureReferenceFn}`` for pure-DP curves.
        pure_dp: pure DP and satisfying Zhu & Wang's condition (4): Poisson sampling gets
            their default bound (Thm 8) and every explicitly chosen one.
        zhu_wang: the explicitly chosen Zhu & Wang bounds apply (``reference/zhu_wang.py``
            knows the mechanism).
        tag: the event's ``type`` tag in certificates.
    """

    name: str
    event: type
    parameter: Parameter
    description: str
    rdp: Callable[[Any], RdpCurve]
    citation: str
    example: str
    tag: str
    pld: Callable[[Any], DominatingPair] | None = None
    reference_pld: Callable[[Any], tuple[Any, tuple[Any, ...]]] | None = None
    references: Callable[[], Mapping[type, ReferenceFn]] | None = None
    pure_references: Callable[[], Mapping[type, PureReferenceFn]] | None = None
    pure_dp: bool = False
    zhu_wang: bool = False

    def value(self, event: Any) -> Fraction:
        """The parameter of a base event of this noise."""
        v: Fraction = getattr(event, self.parameter.field)
        return v


@dataclass(frozen=True)
class BoundChoice:
    """A bound of a scheme: the default (``bound`` None) or one the user chooses instead.

    Attributes:
        bound: ``None`` for the default, else the :class:`~rigorous_rdp.events.Bound`.
        citation: the theorems the curve implements.
        guarantee: False for a lower bound (display only; never an epsilon).
        example_tau: the number of exact terms of the example of a ``tau`` bound.
    """

    bound: Bound | None
    citation: str
    guarantee: bool = True
    example_tau: int | None = None

    @property
    def name(self) -> str:
        return "default" if self.bound is None else self.bound.value

    @property
    def options(self) -> BoundOptions:
        """The accountant option that selects this bound (with its example ``tau``)."""
        return BoundOptions(self.bound, self.example_tau)


class Scheme:
    """One supported event shape (noise x sampling x adjacency) and every reading of it.

    Subclasses set the class attributes and implement :meth:`matches`, :meth:`build` and
    :meth:`rdp_curve`; the PLD and the references default to a refusal.

    Attributes:
        noise: the base mechanism.
        sampling: the value of ``--sampling`` (``"none"`` without sampling).
        adjacency: the neighbouring relation.
        parameters: the sampling scheme's own parameters (the noise's is ``noise.parameter``).
        bounds: the default bound first, then the bounds the user may choose.
        description: one line.
        shape: the mechanism and its sampling without the adjacency ("Poisson sampling of
            GaussianEvent"), for messages.
        example: the sampling parameters of an example, by API field (``{"sampling_probability":
            "1/100"}``; the noise's is ``noise.example``).
        event_classes: ``{tag: event class}`` of the events this scheme defines (certificates).
    """

    noise: Noise
    sampling: str = "none"
    adjacency: Adjacency = Adjacency.ADD_REMOVE
    parameters: tuple[Parameter, ...] = ()
    bounds: tuple[BoundChoice, ...] = ()
    description: str = ""
    shape: str = ""
    example: Mapping[str, str] = MappingProxyType({})
    event_classes: Mapping[str, type] = {}
    #: an explicit Taylor order (the accountant option ``taylor_order``) applies to this shape
    takes_taylor_order: bool = False

    # -- identity --------------------------------------------------------------

    @property
    def label(self) -> str:
        return f"{self.noise.event.__name__}/{self.sampling}/{self.adjacency.value}"

    def __repr__(self) -> str:
        return f"<Scheme {self.label}>"

    def matches(self, event: DpEvent) -> bool:
        """True if ``event`` (one step) has this shape."""
        raise NotImplementedError

    def choice(self, bound: Bound | None) -> BoundChoice:
        """The :class:`BoundChoice` of ``bound``; UnsupportedEventError if it does not apply."""
        for c in self.bounds:
            if c.bound is bound:
                return c
        names = ", ".join(c.name for c in self.bounds)
        what = "default" if bound is None else bound.value
        raise UnsupportedEventError(f"bound {what} does not apply to {self.description} (bounds: {names}).")

    def check_options(self, options: BoundOptions, event: Any = None) -> BoundChoice:
        """The :class:`BoundChoice` the accountant option ``options`` selects for this shape
        (and for ``event``, one of its events, when given).

        Raises:
            InvalidParameter: the chosen bound does not apply here (in API words, naming
                ``bound`` and what it applies to); schemes override this to say so precisely.
            UnsupportedEventError: likewise, from :meth:`choice`.
        """
        if options.taylor_order is not None and not self.takes_taylor_order:
            raise InvalidParameter("taylor_order", f"does not apply to {self.description}")
        return self.choice(options.bound)

    # -- construction ----------------------------------------------------------

    def build(self, base: DpEvent, values: Mapping[str, Any]) -> DpEvent:
        """The one-step event from the base mechanism and the sampling parameters ``values``
        (by API field; a parameter not given is absent or ``None``)."""
        raise NotImplementedError

    def sampling_values(self, event: Any) -> dict[str, Any]:
        """The sampling parameters of ``event`` by API field (for the JSON summary)."""
        return {p.field: getattr(event, p.field) for p in self.parameters}

    def summary(self, event: Any) -> dict[str, Any]:
        """The flat summary of a one-step event (certificates' ``inputs.summary``)."""
        inner = getattr(event, "event", event)
        out: dict[str, Any] = {
            "noise": self.noise.name,
            self.noise.parameter.option: self._json(self.noise.value(inner)),
        }
        out["sampling"] = self.sampling
        for p in self.parameters:
            out[p.json] = self._json(getattr(event, p.field))
        out["adjacency"] = self.adjacency.value
        return out

    @staticmethod
    def _json(v: Any) -> Any:
        return rational_text(v) if isinstance(v, Fraction) else v

    # -- readings --------------------------------------------------------------

    def rdp_curve(self, event: Any) -> RdpCurve:
        """The certified RDP curve of one application of ``event``: the default bound."""
        raise NotImplementedError

    def chosen_curve(self, event: Any, options: BoundOptions) -> RdpCurve:
        """The certified RDP curve of ``event`` under an explicitly chosen bound (``options``
        not default, already accepted by :meth:`check_options`); schemes whose :attr:`bounds`
        offer a choice override it."""
        raise UnsupportedEventError(f"bound {options.name} does not apply to {self.description}.")

    def curve(self, event: Any, options: BoundOptions | None = None) -> RdpCurve:
        """The certified RDP curve of ``event`` under the accountant option ``options``
        (``None`` or default: :meth:`rdp_curve`; else :meth:`check_options`, then
        :meth:`chosen_curve`)."""
        if options is None or options.is_default:
            return self.rdp_curve(event)
        self.check_options(options, event)
        return self.chosen_curve(event, options)

    def pld_pair(self, event: Any) -> DominatingPair | None:
        """Dominating pair(s) of one application for the PLD accountant, ``None`` for a no-op.

        Raises:
            UnsupportedEventError: why the PLD accountant cannot account this shape.
        """
        raise UnsupportedEventError(f"the PLD accountant has no dominating pair for {self.description}.")

    def reference_pld(self, event: Any) -> tuple[Any, tuple[Any, ...]] | None:
        """``(kind, params)`` of the independent mpmath reference of :meth:`pld_pair`
        (:mod:`rigorous_rdp.reference.pld`), ``None`` for a no-op."""
        raise UnsupportedEventError(f"no reference PLD for {self.description}.")

    def rdp_references(self) -> Mapping[type, ReferenceFn]:
        """Curve class -> mpmath reference, for the curve classes :meth:`rdp_curve` returns."""
        return {}

    def pure_references(self) -> Mapping[type, PureReferenceFn]:
        """Curve class -> pure-DP epsilon reference (pure-DP curves only)."""
        return {}


class Unsampled(Scheme):
    """A base mechanism without sampling (add-remove adjacency: sensitivity 1)."""

    def __init__(self, noise: Noise):
        self.noise = noise
        self.bounds = (BoundChoice(None, noise.citation),)
        self.shape = noise.event.__name__
        self.description = f"{noise.event.__name__} without sampling"
        self.event_classes = {noise.tag: noise.event}

    def matches(self, event: DpEvent) -> bool:
        return type(event) is self.noise.event

    def check_options(self, options: BoundOptions, event: Any = None) -> BoundChoice:
        if options.bound is not None:
            raise InvalidParameter(
                "bound",
                "applies to a sampled mechanism ({sampling} poisson|fswor), not {sampling} none",
                related=("sampling",),
            )
        return super().check_options(options, event)

    def build(self, base: DpEvent, values: Mapping[str, Any]) -> DpEvent:
        return base

    def rdp_curve(self, event: Any) -> RdpCurve:
        return self.noise.rdp(event)

    def pld_pair(self, event: Any) -> DominatingPair | None:
        if self.noise.pld is None:
            return super().pld_pair(event)
        return self.noise.pld(event)

    def reference_pld(self, event: Any) -> tuple[Any, tuple[Any, ...]] | None:
        if self.noise.reference_pld is None:
            return super().reference_pld(event)
        return self.noise.reference_pld(event)

    def rdp_references(self) -> Mapping[type, ReferenceFn]:
        return {} if self.noise.references is None else self.noise.references()

    def pure_references(self) -> Mapping[type, PureReferenceFn]:
        return {} if self.noise.pure_references is None else self.noise.pure_references()
