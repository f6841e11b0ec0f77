"""Shared pieces of the command line: parser, mechanism options, errors, output."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .. import budget, progress, validation
from ..arith import DEFAULT_DIGITS, MAX_DECIMAL_EXPONENT, parse_rational
from ..errors import BudgetExceeded, InvalidParameter, PrecisionExhausted, UnsupportedEventError, quote
from ..events import DpEvent
from ..validation import MAX_COUNT, MAX_TAYLOR_ORDER, TINY, RealRange

if TYPE_CHECKING:
    from ..accountant import RdpAccountant
    from ..events import BoundOptions
    from ..registry import Row

ADJACENCIES = ("add-remove", "replace-one")


class CliError(Exception):
    """Bad command-line input (printed as one line, exit status 2)."""


#: what the parsers read as a negative number (a value), not an option
_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE)


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line and exit with status 2.

    Every parser (the top level and each subcommand) has ``--max-seconds S``, the
    time budget of the command (see :mod:`rigorous_rdp.budget`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # a value such as -1e-5, -inf or -nan is an option's value, not an unknown option, so that the option's
        # own check names its valid range (argparse reads only -1 and -.5 so; no option of ours looks like a
        # negative number)
        self._negative_number_matcher = _NEGATIVE_NUMBER
        self.add_argument(
            "--max-seconds",
            default=argparse.SUPPRESS,
            metavar="S",
            help=f"time budget in seconds, 0 < S <= {int(budget.MAX_SECONDS)} (default"
            f" {budget.DEFAULT_SECONDS:g} for queries, 600 for verify; none for reproduce, audit,"
            " conjecture); past it the command stops with exit status 2",
        )
        self.add_argument(
            "--max-memory",
            default=argparse.SUPPRESS,
            metavar="SIZE",
            help=f"memory budget, e.g. 512M or 8G, in [16M, 1T] (default {budget.DEFAULT_MEMORY // 2**30}G);"
            " a query estimated to need more is refused before allocating (exit status 2)",
        )

        self.add_argument(
            "--progress",
            action="store_true",
            default=argparse.SUPPRESS,
            help="show progress (an ETA where the total is known) on stderr even when it is not a terminal",
        )
        self.add_argument(
            "--quiet",
            action="store_true",
            default=argparse.SUPPRESS,
            help="no progress on stderr (default: shown when stderr is a terminal; never on stdout)",
        )

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(" ".join(str(message).split()))


def add_command(
    sub: Any,
    name: str,
    run: Callable[[argparse.Namespace], dict[str, Any]],
    text: Callable[[argparse.Namespace, dict[str, Any]], str] | None,
    **parser_options: Any,
) -> argparse.ArgumentParser:
    """The parser of one subcommand (``parser_options``: ``help``, ``description``, ...) with its
    ``run`` (``args -> dict``, the JSON object) and ``text`` (the human-readable rendering)."""
    p = sub.add_parser(name, **parser_options)
    p.set_defaults(func=run, text=text)
    return p


def add_event_command(
    sub: Any,
    name: str,
    run: Callable[[argparse.Namespace], dict[str, Any]],
    text: Callable[[argparse.Namespace, dict[str, Any]], str],
    **parser_options: Any,
) -> argparse.ArgumentParser:
    """:func:`add_command` with the options that describe one step of the mechanism:
    the mechanism options and the explicitly chosen bound (read by :func:`build_event`)."""
    p = add_command(sub, name, run, text, **parser_options)
    add_mechanism_options(p)
    add_bound_options(p)
    return p


def add_order_options(p: argparse.ArgumentParser) -> None:
    """The order grid, the real-order search and the RDP -> (epsilon, delta) conversion."""
    from ..conversion import CONVERSIONS

    p.add_argument("--alpha", nargs="+", metavar="A", help="order grid (default: dp-accounting's grid)")
    p.add_argument("--no-continuous", action="store_true", help="optimise over the grid only (no real-order search)")
    p.add_argument(
        "--conversion", default="best", choices=CONVERSIONS, help="RDP to (epsilon, delta) conversion (default best)"
    )


def add_accounting_options(p: argparse.ArgumentParser) -> None:
    """``--steps`` (required) and :func:`add_order_options`."""
    p.add_argument(
        "--steps",
        metavar="T",
        help="number of composed steps, T >= 1 (required, except with an epoch-based sampling: --epochs E)",
    )
    p.set_defaults(steps_required=True)
    add_order_options(p)


def add_target_delta(p: argparse.ArgumentParser) -> None:
    p.add_argument("--delta", required=True, metavar="D", help="target delta, 0 < D < 1")


def add_query_command(
    sub: Any,
    name: str,
    run: Callable[[argparse.Namespace], dict[str, Any]],
    text: Callable[[argparse.Namespace, dict[str, Any]], str],
    target: str,
    **parser_options: Any,
) -> argparse.ArgumentParser:
    """The parser of a query of T composed steps (``epsilon``, ``delta``, ``certify``): :func:`add_event_command`,
    :func:`add_accounting_options`, the target (``target="delta"``: ``--delta``; ``"epsilon"``: ``--epsilon``)
    and :func:`add_result_options`."""
    p = add_event_command(sub, name, run, text, **parser_options)
    add_accounting_options(p)
    if target == "delta":
        add_target_delta(p)
    else:
        p.add_argument("--epsilon", required=True, metavar="E", help="target epsilon >= 0")
    add_result_options(p)
    return p


def add_result_options(p: argparse.ArgumentParser) -> None:
    """``--method`` / ``--width`` (RDP, PLD or the better of the two), then the output options."""
    from . import _method

    _method.add_method_options(p)
    add_output_options(p)


def add_json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")


def add_dask_option(p: argparse.ArgumentParser, what: str) -> None:
    """``--dask SPEC`` (read by :func:`rigorous_rdp.research.parallel.validate_dask`); ``what``: what it does."""
    p.add_argument(
        "--dask", metavar="SPEC", help=f"{what}: local:N (a LocalCluster with N workers) or a scheduler address"
    )


def add_output_options(p: argparse.ArgumentParser) -> None:
    add_json_option(p)
    p.add_argument(
        "--digits",
        default=str(DEFAULT_DIGITS),
        metavar="D",
        help=f"relative width of enclosures <= 10^-D (default {DEFAULT_DIGITS}; 1 <= D <= 1000)",
    )


def add_mechanism_options(p: argparse.ArgumentParser, *, sigma: bool = True) -> None:
    """``--noise``, ``--sampling``, ``--adjacency`` and the parameter option of every noise and
    sampling scheme of the registry (:func:`rigorous_rdp.registry.parameters`)."""
    from .. import registry

    g = p.add_argument_group("mechanism")
    names = [n.name for n in registry.noises()]
    g.add_argument("--noise", default=names[0], choices=names, help=f"base mechanism (default {names[0]})")
    g.add_argument("--sampling", default="none", choices=registry.samplings(), help="subsampling scheme (default none)")
    g.add_argument(
        "--adjacency", default="add-remove", choices=ADJACENCIES, help="neighbouring relation (default add-remove)"
    )
    for param in registry.parameters():
        if param.option != "sigma" or sigma:
            g.add_argument(f"--{param.option}", metavar=param.metavar, help=param.help)
    g.add_argument(
        "--epochs",
        metavar="E",
        help="number of epochs, E >= 1, with an epoch-based sampling (balls-and-bins, random-allocation,"
        " shuffle): one composed step is one epoch",
    )


def resolve_epochs(args: argparse.Namespace) -> None:
    """With an epoch-based sampling the unit of composition is one epoch: ``--epochs E`` sets the
    number of composed steps (``--steps``, if given, counts epochs too and must agree); with any
    other sampling ``--epochs`` is refused and ``--steps`` is required where the command needs it."""
    from ..subsampling.random_allocation_scheme import EPOCH_SAMPLINGS

    if getattr(args, "command", None) == "dpsgd" or "sampling" not in vars(args) or "steps" not in vars(args):
        return
    epochs = getattr(args, "epochs", None)
    names = "|".join(EPOCH_SAMPLINGS)
    if args.sampling not in EPOCH_SAMPLINGS:
        if epochs is not None:
            raise ValueError(
                f"--epochs applies to --sampling {names}, not --sampling {args.sampling} (give --steps T)."
            )
        if args.steps is None and getattr(args, "steps_required", False):
            raise ValueError("--steps is required (number of composed steps, T >= 1).")
        return
    if epochs is None:
        if args.steps is None and getattr(args, "steps_required", False):
            raise ValueError(f"--epochs is required with --sampling {args.sampling} (number of epochs, E >= 1).")
        return
    e = validation.integer_in_range(epochs, "epochs", 1, MAX_COUNT)
    default_steps = "1" if getattr(args, "command", None) == "rdp" else None
    if args.steps is not None and args.steps != default_steps and parse_steps(args.steps) != e:
        raise ValueError(
            f"--steps and --epochs disagree: with --sampling {args.sampling} one composed step is one epoch;"
            " give --epochs E only."
        )
    args.steps = str(e)


def parse_digits(args: argparse.Namespace) -> float:
    return validation.digits(args.digits, "digits")


def build_base_event(args: argparse.Namespace, sigma: object | None = None) -> DpEvent:
    """The base mechanism from --noise and its parameter (``sigma`` overrides --sigma)."""
    from ..registry import noises

    noise = next(n for n in noises() if n.name == args.noise)
    given = {n.parameter.option: getattr(args, n.parameter.dest, None) for n in noises()}
    if sigma is not None:
        given["sigma"] = sigma
    option = noise.parameter.option
    for k, v in given.items():
        if v is not None and k != option:
            raise ValueError(f"--{k} does not apply to --noise {noise.name} (it takes --{option}).")
    if given[option] is None:
        raise ValueError(f"--{option} is required with --noise {noise.name} ({noise.parameter.help}).")
    return noise.event(**{noise.parameter.field: given[option]})


def bound_options(args: argparse.Namespace) -> BoundOptions:
    """The accountant's choice of theorem that ``--bound`` / ``--tau`` / ``--taylor-order`` describe."""
    from ..events import BoundOptions

    return BoundOptions(getattr(args, "bound", None), getattr(args, "tau", None), getattr(args, "taylor_order", None))


def build_event(args: argparse.Namespace, sigma: object | None = None, *, guarantee: bool = True) -> DpEvent:
    """One step of the mechanism described by the mechanism options, through the table
    (:func:`rigorous_rdp.registry.sampled_event`); ``--bound`` / ``--tau`` are checked
    against it (they configure the accountant: :func:`bound_options`).

    ``guarantee``: the command reports a privacy guarantee (epsilon, delta), so a
    lower bound (``--bound lower``) is refused.
    """
    from ..registry import lookup, sampled_event, sampling_parameters, scheme_parameters

    base = build_base_event(args, sigma)
    options = bound_options(args)
    own = {p.field for p in sampling_parameters(args.sampling)}
    values = {p.field: getattr(args, p.dest, None) for p in scheme_parameters()}
    # a parameter of the sampling scheme first, then the others (each refused by name)
    ordered = {**{f: v for f, v in values.items() if f not in own}, **{f: values[f] for f in own}}
    event = sampled_event(base, args.sampling, adjacency=args.adjacency, options=options, **ordered)
    refusal = getattr(lookup(event, options).scheme, "refusal", None)
    if guarantee and refusal is not None:
        raise refusal
    if guarantee and not lookup(event, options).guarantee:
        raise ValueError(
            f"--bound {options.name} is a lower bound (Zhu & Wang 2019 Thm 6), not a privacy guarantee; it is"
            " shown by `rigorous-rdp rdp` only. Use --bound tight|general|tau here."
        )
    return event


def example_options(row: Row) -> tuple[str, ...]:
    """The mechanism options of a row of the scheme table (:func:`rigorous_rdp.registry.rows`):
    its example (``noise.example``, ``scheme.example``) and the options that choose its bound
    (``--noise`` omitted for the default noise, ``--sampling`` and ``--adjacency`` for the defaults)."""
    from ..events import Adjacency
    from ..registry import noises

    s, noise = row.scheme, row.scheme.noise
    out: list[str] = [] if noise.name == noises()[0].name else ["--noise", noise.name]
    out += [f"--{noise.parameter.option}", noise.example]
    if s.sampling != "none":
        out += ["--sampling", s.sampling]
    out += [x for p in s.parameters if p.field in s.example for x in (f"--{p.option}", s.example[p.field])]
    if s.adjacency is not Adjacency.ADD_REMOVE:
        out += ["--adjacency", s.adjacency.value]
    options = row.options
    if options.bound is not None:
        out += ["--bound", options.bound.value]
    if options.tau is not None:
        out += ["--tau", str(options.tau)]
    return tuple(out)


def mechanism_json(args: argparse.Namespace, sigma: str | None = None) -> dict[str, Any]:
    """The ``mechanism`` echo of ``--json``: the noise and its parameter, the sampling scheme and
    its parameters (as the registry names them), the adjacency; numbers as typed (integers as
    JSON integers), a parameter not given as ``null``."""
    from ..registry import noises, sampling_parameters

    out: dict[str, Any] = {"noise": args.noise}
    for n in noises():
        v = sigma if (n.parameter.option == "sigma" and sigma is not None) else getattr(args, n.parameter.dest, None)
        if v is not None:
            out[n.parameter.json] = str(v)
    out["sampling"] = args.sampling
    for param in sampling_parameters(args.sampling):
        v = getattr(args, param.dest, None)
        if param.integer:
            out[param.json] = None if v is None else int(parse_rational(v, param.option))
        else:
            out[param.json] = None if v is None else str(v)
    if getattr(args, "epochs", None) is not None:
        out["epochs"] = int(parse_rational(args.epochs, "epochs"))
    out["adjacency"] = args.adjacency
    return out


def parse_steps(value: str) -> int:
    return validation.integer_in_range(value, "steps", 1, MAX_COUNT)


_TINY = f"1e-{MAX_DECIMAL_EXPONENT}"
_HUGE = f"1e{MAX_DECIMAL_EXPONENT}"


#: API parameter names -> command-line options, where the option is not the name itself
#: (``batch_size`` -> ``--batch-size`` needs no entry); the noise parameters come from the
#: registry (:func:`option_of`)
OPTION_OF = {
    "noise_multiplier": "--sigma",
    "sampling_probability": "--q",
    "count": "--steps",
    "target_delta": "--delta",
    "target_epsilon": "--epsilon",
    "orders": "--alpha",
    "max_seconds": "--max-seconds",
    "figure_id": "FIGURE_ID",
}


def option_of(parameter: str, options: frozenset[str] | None = None) -> str:
    """The command-line option of an API parameter (``noise_multiplier`` -> ``--sigma``); the
    parameter's own name when the command has no such option (``options``: the command's
    option strings; ``None``: any)."""
    from ..registry import parameters

    table = {**{p.field: f"--{p.option}" for p in parameters()}, **OPTION_OF}
    option = table.get(parameter) or "--" + parameter.replace("_", "-")
    return option if options is None or option in options or not option.startswith("--") else parameter


def namer(args: argparse.Namespace) -> Callable[[str], str]:
    """How a message of this command names an API parameter (``noise_multiplier`` -> ``--sigma``)."""
    options = getattr(args, "option_strings", None)
    return lambda parameter: option_of(parameter, options)


_ONE = Fraction(1)
_TINY_F = TINY
#: the range texts read "a number in (lo, hi)": the mathematical range; a nonzero value below the smallest the
#: implementation handles is refused with "at least ..." (see :meth:`RealRange.positive`)
_POSITIVE = RealRange.positive(_HUGE, _TINY, "the smallest positive number handled", hi_open=True)
_CONSTANT = RealRange.positive("1e3", "1e-100", "a limit of the implementation")
_MODERATE = RealRange.positive("1e100", "1e-100", "a limit of the implementation")
_OPEN_UNIT = RealRange(
    Fraction(0), _ONE, "in (0, 1)", lo_open=True, hi_open=True, floor=_TINY_F, floor_text=f"at least {_TINY}"
)


def _real(name: str, limits: RealRange) -> Callable[[Any], Fraction]:
    """The range check of a real option (see :class:`RealRange`)."""
    return lambda v: limits.check(v, name)


def _integer(name: str, lo: int, hi: int | None) -> Callable[[Any], int]:
    """The range check of an integer option (see :func:`rigorous_rdp.validation.integer_in_range`)."""
    return lambda v: validation.integer_in_range(v, name, lo, hi)


#: accepted ranges of the numeric options of the accounting commands (checked before any work)
OPTION_RANGES: dict[str, Callable[[Any], object]] = {
    "sigma": _real("sigma", _POSITIVE),
    "scale": _real("scale", RealRange.positive("1e1000", "1e-1000", "the smallest scale handled")),
    "epsilon": _real("epsilon", _POSITIVE),
    "p": _real("p", _OPEN_UNIT),
    "q": _real("q", validation.PROBABILITY),
    "delta": _real("delta", _OPEN_UNIT),
    "epochs": _real(
        "epochs",
        RealRange.positive(
            "1e12",
            _TINY,
            "the smallest positive number handled",
            note=" (an integer >= 1 with --sampling balls-and-bins|random-allocation|shuffle)",
        ),
    ),
    "steps_per_epoch": _integer("steps_per_epoch", 1, 10**9),
    "steps": _integer("steps", 1, MAX_COUNT),
    "batch_size": _integer("batch_size", 1, MAX_COUNT),
    "dataset_size": _integer("dataset_size", 1, MAX_COUNT),
    "taylor_order": _integer("taylor_order", 3, MAX_TAYLOR_ORDER),
    "tau": _integer("tau", 1, None),
    # constant (research): C(c1, c2) of Claim 26, computed with floats in its planning; beyond
    # 1e3 its screens allocate gigabytes (c2 = 1e5: 30 GB) or overflow
    "c1": _real("c1", _CONSTANT),
    "c2": _real("c2", _CONSTANT),
    "sigma_max": _real("sigma_max", _MODERATE),
    "sigma_min": _real("sigma_min", _MODERATE),
    "alpha": lambda v: [validation.order(a, "alpha") for a in v],
}


#: ``delta --epsilon``: 0 is a valid target
_DELTA_EPSILON = _real(
    "epsilon",
    RealRange(
        Fraction(0),
        Fraction(10**MAX_DECIMAL_EXPONENT),
        f"a number in [0, {_HUGE})",
        hi_open=True,
        floor=_TINY_F,
        floor_text=f"0 or at least {_TINY}",
    ),
)


#: the commands whose options follow OPTION_RANGES (others define their own ranges)
RANGE_CHECKED = ("rdp", "epsilon", "delta", "calibrate", "certify", "dpsgd", "constant")
#: commands without a default time budget (batch jobs; --max-seconds still applies); so is
#: ``constant --table`` (16 whole-range computations, minutes)
UNLIMITED = ("reproduce", "audit", "conjecture")
#: commands with a longer default budget than the queries: ``verify`` integrates independently
#: in mpmath (an FSwR certificate of a large batch takes 1-2 min there)
LONGER_DEFAULT = {"verify": 600.0}


#: a certificate stores inputs as exact "p/q" text; Python writes integers of at most 4300 digits
MAX_CERTIFICATE_DIGITS = 4000


#: the range of a parameter a scheme declares (:data:`rigorous_rdp.scheme.RANGES`) that has no
#: entry in :data:`OPTION_RANGES`: the same wording as the built-in options of its kind
_RANGE_KINDS: dict[str, Callable[[str], Callable[[Any], object]]] = {
    "positive": lambda name: _real(name, _POSITIVE),
    "open-unit": lambda name: _real(name, _OPEN_UNIT),
    "probability": lambda name: (
        OPTION_RANGES["q"] if name == "q" else _real(name, RealRange(Fraction(0), _ONE, "in [0, 1]"))
    ),
    "count": lambda name: _integer(name, 1, MAX_COUNT),
    "taylor-order": lambda name: _integer(name, 3, MAX_TAYLOR_ORDER),
}


def _option_ranges() -> dict[str, Callable[[Any], object]]:
    """:data:`OPTION_RANGES` and the ranges of the registry's other parameters."""
    from ..registry import parameters

    out = dict(OPTION_RANGES)
    for param in parameters():
        out.setdefault(param.dest, _RANGE_KINDS[param.range](param.option))
    return out


def check_option_ranges(args: argparse.Namespace) -> None:
    """Refuse out-of-range numbers before any conversion or computation (one ValueError)."""
    command = getattr(args, "command", None)
    if command not in RANGE_CHECKED:
        return
    for dest, check in _option_ranges().items():
        value = getattr(args, dest, None)
        if value is not None and not isinstance(value, bool):
            if dest == "epsilon" and command == "delta":
                check = _DELTA_EPSILON  # delta at epsilon = 0 is the total-variation distance
            parsed = check(value)
            if command == "certify":
                for f in parsed if isinstance(parsed, list) else [parsed]:
                    _check_certificate_digits(f, dest.replace("_", "-"), value)
    resolve_epochs(args)


def _check_certificate_digits(f: object, name: str, shown: object) -> None:
    if not isinstance(f, (int, Fraction)):
        return
    f = Fraction(f)
    bits = max(abs(f.numerator).bit_length(), f.denominator.bit_length())
    if bits * 0.30103 > MAX_CERTIFICATE_DIGITS:
        raise InvalidParameter(
            name,
            f"must have an exact value with at most {MAX_CERTIFICATE_DIGITS} digits in a"
            f" certificate (numerator and denominator; e.g. q >= 1e-{MAX_CERTIFICATE_DIGITS})",
            shown,
        )


def _named(message: str, options: frozenset[str] | None) -> str:
    """A plain ``ValueError`` of a module that does not raise :class:`InvalidParameter` yet
    (the research modules) starts with its parameter's name: when the command has an
    option of that name, the message starts with the option."""
    first = message.split(" ", 1)[0]
    option = "--" + first.replace("_", "-")
    return "--" + message if options and not first.startswith("-") and option in options else message


def _one_line(text: str, limit: int = 2000) -> str:
    msg = " ".join(str(text).split())
    return msg if len(msg) <= limit else msg[: limit - 3] + "..."


def _budget_seconds(args: argparse.Namespace) -> float | None:
    value = getattr(args, "max_seconds", None)
    if value is None:
        command = getattr(args, "command", None)
        batch = command in UNLIMITED or (command == "constant" and getattr(args, "table", False))
        return None if batch else LONGER_DEFAULT.get(str(command), budget.DEFAULT_SECONDS)
    try:
        return budget.parse_seconds(value, "max_seconds")
    except ValueError:
        raise InvalidParameter(
            "max_seconds", f"must be a number of seconds in (0, {int(budget.MAX_SECONDS)}]", value
        ) from None


def progress_option(args: argparse.Namespace) -> bool | None:
    """``--progress`` (True), ``--quiet`` or ``--no-progress`` (False), neither: ``None`` (progress
    when stderr is a terminal; see :mod:`rigorous_rdp.progress`)."""
    on = getattr(args, "progress", False)
    off = getattr(args, "quiet", False) or getattr(args, "no_progress", False)
    if on and off:
        given = "--quiet" if getattr(args, "quiet", False) else "--no-progress"
        raise ValueError(f"--progress and {given} contradict each other; give one of them.")
    return True if on else False if off else None


def _render(args: argparse.Namespace, result: Any) -> str:
    if getattr(args, "json", False):
        return json.dumps(result, indent=2) + "\n"
    text: Callable[[argparse.Namespace, dict[str, Any]], str] | None = getattr(args, "text", None)
    return (text(args, result) if text else json.dumps(result, indent=2)) + "\n"


def _fail(message: str, *, status: int = 2, kind: str = "error") -> int:
    """Print one line ``rigorous-rdp: <kind>: <message>`` on stderr; return the exit status."""
    print(f"rigorous-rdp: {kind}: {message}", file=sys.stderr)
    return status


def run_command(args: argparse.Namespace) -> int:
    """Run ``args.func`` within its time budget and print its result; map every failure
    to one line on stderr and an exit status (2: bad input, a limit hit, or precision
    exhausted; 1: an internal error, reported without a traceback; 130: interrupted).

    The result is rendered inside the budget, so that output of huge numbers is
    covered too; nothing is written to stdout unless the whole text is ready.
    """
    func: Callable[[argparse.Namespace], dict[str, Any]] = args.func
    options: frozenset[str] | None = getattr(args, "option_strings", None)
    try:
        seconds = _budget_seconds(args)
        memory = getattr(args, "max_memory", None)
        with (
            budget.time_budget(seconds),
            budget.memory_budget(memory and budget.parse_size(memory, "--max-memory")),
            progress.session(f"rigorous-rdp {getattr(args, 'command', '')}".rstrip(), progress_option(args)),
        ):
            try:
                check_option_ranges(args)
                result = func(args)
                status = int(result.pop("_exit_status", 0)) if isinstance(result, dict) else 0
                out = _render(args, result)
            except BudgetExceeded:
                raise
            except Exception as exc:
                if budget.caused_by_interrupt(exc):  # e.g. a SystemError around an interrupted callback
                    raise KeyboardInterrupt from exc
                if budget.expired():  # e.g. a SystemError around a callback interrupted by the budget
                    raise budget.BudgetExceeded("time budget exceeded", seconds=seconds) from exc
                raise
    except BudgetExceeded as exc:
        return _fail(budget_message(exc, options))
    except InvalidParameter as exc:
        return _fail(_one_line(exc.render(lambda p: option_of(p, options))))
    except (ValueError, UnsupportedEventError) as exc:
        return _fail(_named(_one_line(str(exc)), options))
    except PrecisionExhausted as exc:
        hint = (
            "ask for fewer significant digits of sigma (--sigma-digits K)"
            if getattr(args, "command", None) == "calibrate"
            else "ask for fewer digits (--digits D, 1 <= D <= 1000)"
        )
        return _fail(f"precision exhausted: {_one_line(str(exc), 500)}; {hint}")
    except KeyboardInterrupt:
        print("rigorous-rdp: interrupted", file=sys.stderr)
        return 130
    except MemoryError as exc:
        return _fail(
            f"out of memory ({_one_line(str(exc), 200)}); ask for less (a smaller range, fewer orders or steps)"
        )
    except RecursionError:
        return _fail("input nested too deeply (recursion limit reached)")
    except Exception as exc:
        if os.environ.get("RIGOROUS_RDP_TRACEBACK"):
            raise
        return _fail(
            f"{type(exc).__name__}: {_one_line(str(exc), 300)} (set RIGOROUS_RDP_TRACEBACK=1 to see the traceback)",
            status=1,
            kind="internal error",
        )
    sys.stdout.write(out)
    return status


def budget_message(exc: BudgetExceeded, options: frozenset[str] | None = None) -> str:
    """The command line's words for a time budget that ran out, or for a memory budget's
    refusal (its parameters named by their options: ``--max-memory``, ``--batch-size``)."""
    if isinstance(exc, budget.MemoryBudgetExceeded):
        return _one_line(exc.render(lambda p: option_of(p, options)))
    what = f" while computing {exc.where}" if exc.where else ""
    seconds = "" if exc.seconds is None else f" of {exc.seconds:g} s"
    return _one_line(
        f"time budget{seconds} exceeded{what}; raise it with --max-seconds S (0 < S <= {int(budget.MAX_SECONDS)})"
        " or ask for less (fewer orders, lower --digits)"
    )


def fmt_interval(d: dict[str, str]) -> str:
    return f"[{d['lower']}, {d['upper']}]"


def orders_option(values: list[str] | None) -> list[Fraction] | None:
    if not values:
        return None
    return [validation.order(v, "alpha") for v in values]


def accountant_option(args: argparse.Namespace) -> RdpAccountant:
    """The empty accountant that ``--alpha``, ``--no-continuous``, ``--conversion``, ``--digits``
    and ``--bound`` / ``--tau`` describe."""
    from ..accountant import RdpAccountant

    options = bound_options(args)
    return RdpAccountant(
        orders_option(args.alpha),
        continuous=not args.no_continuous,
        conversion=args.conversion,
        digits=parse_digits(args),
        bound=options.bound,
        tau=options.tau,
        taylor_order=options.taylor_order,
    )


BOUNDS = ("tight", "general", "lower", "tau", "wang2019")


def add_bound_options(p: argparse.ArgumentParser) -> None:
    """--bound / --tau: choose among the Zhu & Wang 2019 bounds (with --sampling poisson)."""
    g = p.add_argument_group("explicitly chosen bounds (default: the tightest valid upper bound)")
    g.add_argument(
        "--bound",
        choices=BOUNDS,
        help="with --sampling poisson (add-remove), the Zhu & Wang 2019 bounds: tight (Thm 8, needs"
        " condition (4): Gaussian, Laplace, randomized response), general (Thm 5), lower (Thm 6: not"
        " a privacy guarantee; rdp only), tau (Thm 11 with --tau K terms); with --sampling fswor"
        " --adjacency replace-one: wang2019 (Wang et al. 2019, Thm 9)",
    )
    g.add_argument("--tau", metavar="K", help="number of exact terms of --bound tau, K >= 1")
    taylor = "with --sampling fswor|fswr, the order m >= 3 of the Taylor bounds of Birrell et al."
    g.add_argument("--taylor-order", metavar="M", help=taylor + " (default: the tightest bound)")


# ---------------------------------------------------------------------------
# output paths and parallel options (checked before any work starts)
# ---------------------------------------------------------------------------

#: most local worker processes (``--jobs``) on one machine
MAX_JOBS = 256


def _checked_path(path: object, option: str, noun: str, check: Callable[[str, str], None]) -> str:
    """``os.path.realpath(path)`` after ``check(real, shown)`` (which raises the one-line
    ``ValueError``); an empty name is refused as not ``noun``, an ``OSError`` becomes a one-line
    ``ValueError`` naming ``option``."""
    text = str(path)
    if not text.strip():
        raise ValueError(f"{option} must be {noun}. Found ''.")
    shown = quote(text)
    try:
        real = os.path.realpath(text)  # follows symlinks, also dangling ones
        check(real, shown)
    except OSError as exc:
        raise ValueError(f"{option} cannot be used: {exc.strerror}. Found {shown}.") from None
    return real


def output_file(path: object, option: str = "--out") -> str:
    """The file that ``option`` names, checked before any work: a regular file (replaced) or a
    new name, in an existing directory. A symlink is written through (its target is the file);
    a directory, a device, a FIFO or any other non-regular file is refused, never replaced.

    Returns the path to write (the symlink's target when ``path`` is a symlink)."""

    def check(real: str, shown: str) -> None:
        name = os.path.basename(real)
        parent = os.path.dirname(real)
        if not name or os.path.isdir(real):
            raise ValueError(f"{option} must be a file, not a directory. Found {shown}.")
        if os.path.lexists(real) and not os.path.isfile(real):
            raise ValueError(f"{option} must be a regular file or a new name (not a device or FIFO). Found {shown}.")
        if not os.path.isdir(parent):
            raise ValueError(f"{option} must be in an existing directory. Found {shown}.")
        if len(name.encode("utf-8", "surrogateescape")) > os.pathconf(parent, "PC_NAME_MAX"):
            raise ValueError(f"{option} must be a file name of at most 255 bytes. Found {shown}.")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ValueError(f"{option} must be in a writable directory. Found {shown}.")

    return _checked_path(path, option, "a file name", check)


def write_text_atomic(path: str, text: str, option: str = "--out") -> None:
    """Write ``text`` to ``path`` (checked by :func:`output_file`) atomically: a temporary file
    in the same directory, then a rename; on any error ``path`` is left as it was."""
    import tempfile

    from ..certificates.common import replace_atomically

    try:
        fd, tmp = tempfile.mkstemp(prefix=".rigorous-rdp-", suffix=".tmp", dir=os.path.dirname(path))
        replace_atomically(fd, tmp, path, text)
    except OSError as exc:
        raise ValueError(f"{option} cannot be written: {exc.strerror}. Found {quote(path)}.") from None


def output_dir(path: object, option: str = "--out") -> str:
    """A directory that ``option`` names, checked before any work: an existing directory, or a
    new one whose nearest existing ancestor is a writable directory."""

    def check(real: str, shown: str) -> None:
        if os.path.lexists(real) and not os.path.isdir(real):
            raise ValueError(f"{option} must be a directory. Found {shown}.")
        ancestor = real
        while not os.path.lexists(ancestor):
            ancestor = os.path.dirname(ancestor)
        if not os.path.isdir(ancestor):
            raise ValueError(f"{option} must be under a directory, not under a file. Found {shown}.")
        if any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in real.split(os.sep)):
            raise ValueError(f"{option} must have names of at most 255 bytes. Found {shown}.")
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise ValueError(f"{option} must be in a writable directory. Found {shown}.")

    return _checked_path(path, option, "a directory name", check)


def parallel_options(args: argparse.Namespace) -> tuple[int, str | None]:
    """``--jobs`` (local worker processes, 1 to 256; default 1) and ``--dask`` (validated),
    which exclude each other."""
    from ..research.parallel import validate_dask

    jobs_given = getattr(args, "jobs", None)
    dask = getattr(args, "dask", None)
    if jobs_given is not None and dask is not None:
        raise ValueError(
            "--jobs and --dask exclude each other (--jobs: local worker processes; --dask: the workers of a cluster)."
        )
    jobs = 1 if jobs_given is None else validation.integer_in_range(jobs_given, "jobs", 1, MAX_JOBS)
    if dask is not None and len(str(dask)) > 80:
        raise ValueError(f"--dask must be local:N or a scheduler address. Found {quote(dask)}.")
    return jobs, validate_dask(dask)
