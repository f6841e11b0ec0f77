"""Shared pieces of the command line: parser, mechanism options, errors, output."""

from __future__ import annotations

import argparse
import json
import re
import sys
from fractions import Fraction
from typing import Any, Callable, Dict, List, Optional

from ..arith import DEFAULT_DIGITS, parse_rational
from ..errors import PrecisionExhausted, UnsupportedEventError
from ..events import DpEvent, Sampling
from ..validation import integer_at_least

SAMPLINGS = tuple(s.value for s in Sampling)
ADJACENCIES = ("add-remove", "replace-one")

# API parameter names that are CLI options of the same name
_OPTION_NAMES = (
    "sigma", "scale", "p", "q", "batch-size", "dataset-size", "taylor-order", "adjacency",
    "alpha", "delta", "epsilon", "steps", "digits", "noise", "sampling", "tau", "bound",
    "width", "method",
)


class CliError(Exception):
    """Bad command-line input (printed as one line, exit status 2)."""


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(message)


def add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.add_argument("--digits", default=str(DEFAULT_DIGITS), metavar="D",
                   help=f"relative width of enclosures <= 10^-D (default {DEFAULT_DIGITS}; 1 <= D <= 1000)")


def add_mechanism_options(p: argparse.ArgumentParser, *, sigma: bool = True) -> None:
    g = p.add_argument_group("mechanism")
    from ..registry import NOISES

    g.add_argument("--noise", default="gaussian", choices=[n.name for n in NOISES],
                   help="base mechanism (default gaussian)")
    for n in NOISES:
        if n.option != "sigma" or sigma:
            g.add_argument(f"--{n.option}", metavar=n.metavar, help=n.help)
    g.add_argument("--sampling", default="none", choices=SAMPLINGS, help="subsampling scheme (default none)")
    g.add_argument("--q", metavar="Q", help="Poisson sampling probability, 0 <= Q <= 1")
    g.add_argument("--batch-size", metavar="B", help="fixed-size minibatch size, 1 <= B <= N")
    g.add_argument("--dataset-size", metavar="N", help="dataset size N >= 1 (fixed-size sampling)")
    g.add_argument("--adjacency", default="add-remove", choices=ADJACENCIES, help="neighbouring relation (default add-remove)")
    g.add_argument("--taylor-order", metavar="M", default=None, help="order m >= 3 of the Taylor bounds of Birrell et al. (default 3)")


def parse_digits(args: argparse.Namespace) -> float:
    d = parse_rational(args.digits, "digits")
    if not 1 <= d <= 1000:
        raise ValueError(f"digits must be in [1, 1000]. Found {args.digits}.")
    return int(d) if d.denominator == 1 else float(d)


def build_base_event(args: argparse.Namespace, sigma: Optional[object] = None) -> DpEvent:
    """The base mechanism from --noise and its parameter (``sigma`` overrides --sigma)."""
    from ..registry import NOISES

    noise = next(n for n in NOISES if n.name == args.noise)
    given = {n.option: getattr(args, n.option.replace("-", "_"), None) for n in NOISES}
    if sigma is not None:
        given["sigma"] = sigma
    for k, v in given.items():
        if v is not None and k != noise.option:
            raise ValueError(f"{k} does not apply to --noise {noise.name} (it takes --{noise.option}).")
    if given[noise.option] is None:
        raise ValueError(f"{noise.option} is required with --noise {noise.name} ({noise.help}).")
    return noise.event(**{noise.field: given[noise.option]})


def build_event(args: argparse.Namespace, sigma: Optional[object] = None, *, guarantee: bool = True) -> DpEvent:
    """One step of the mechanism described by the mechanism options, through the table
    (:func:`rigorous_rdp.registry.sampled_event`).

    ``guarantee``: the command reports a privacy guarantee (epsilon, delta), so a
    lower bound (``--bound lower``) is refused.
    """
    from ..registry import lookup, sampled_event

    base = build_base_event(args, sigma)
    bound = getattr(args, "bound", None)
    tau = getattr(args, "tau", None)
    if bound is None and tau is not None:
        raise ValueError("tau applies to --bound tau only. Found --bound default.")
    if bound == "tau" and tau is None:
        raise ValueError("tau is required with --bound tau (an integer >= 1).")
    event = sampled_event(
        base, args.sampling, adjacency=args.adjacency, bound=bound,
        tau=tau, sampling_probability=args.q, batch_size=args.batch_size, dataset_size=args.dataset_size,
        taylor_order=args.taylor_order,
    )
    if guarantee and not lookup(event).guarantee:
        raise ValueError(f"bound {bound} is a lower bound (Zhu & Wang 2019 Thm 6), not a privacy guarantee; it is"
                         " shown by `rigorous-rdp rdp` only. Use --bound tight|general|tau here.")
    return event


def mechanism_json(args: argparse.Namespace, sigma: Optional[str] = None) -> Dict[str, Any]:
    out: Dict[str, Any] = {"noise": args.noise}
    for k in ("sigma", "scale", "p"):
        v = getattr(args, k, None)
        if k == "sigma" and sigma is not None:
            v = sigma
        if v is not None:
            out[k] = str(v)
    out["sampling"] = args.sampling
    if args.sampling == "poisson":
        out["q"] = str(args.q)
    if args.sampling in ("fswor", "fswr"):
        out["batch_size"] = int(parse_rational(args.batch_size, "batch-size"))
        out["dataset_size"] = int(parse_rational(args.dataset_size, "dataset-size"))
        out["taylor_order"] = (None if args.taylor_order is None
                               else int(parse_rational(args.taylor_order, "taylor-order")))
    out["adjacency"] = args.adjacency
    return out


def parse_steps(value: str) -> int:
    return integer_at_least(value, "steps", 1)


#: API parameter names (events, registry) -> command-line options
API_OPTIONS = {
    "noise_multiplier": "--sigma",
    "sampling_probability": "--q",
    "batch_size": "--batch-size",
    "dataset_size": "--dataset-size",
    "taylor_order": "--taylor-order",
    "count": "--steps",
}
_API_RE = re.compile(r"\b(" + "|".join(API_OPTIONS) + r")\b")


def _name_option(message: str, extra: tuple = ()) -> str:
    """Map the API's parameter names to options, and prefix ``--`` when the message starts
    with an option name (shared or the subcommand's own)."""
    message = _API_RE.sub(lambda m: API_OPTIONS[m.group(1)], message)
    if message.startswith("--"):
        return message
    for name in _OPTION_NAMES + tuple(extra):
        if message.startswith(name + " "):
            return "--" + message
    return message


def run_command(args: argparse.Namespace) -> int:
    """Run ``args.func`` and print its result; map errors to one line and an exit status."""
    func: Callable[[argparse.Namespace], Dict[str, Any]] = args.func
    try:
        result = func(args)
    except (ValueError, UnsupportedEventError) as exc:
        msg = " ".join(str(exc).split())
        print(f"rigorous-rdp: error: {_name_option(msg, getattr(args, 'option_names', ()))}", file=sys.stderr)
        return 2
    except PrecisionExhausted as exc:
        print(f"rigorous-rdp: precision exhausted: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("rigorous-rdp: interrupted", file=sys.stderr)
        return 130
    status = int(result.pop("_exit_status", 0)) if isinstance(result, dict) else 0
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        text: Optional[Callable[[argparse.Namespace, Dict[str, Any]], str]] = getattr(args, "text", None)
        sys.stdout.write((text(args, result) if text else json.dumps(result, indent=2)) + "\n")
    return status


def fmt_interval(d: Dict[str, str]) -> str:
    return f"[{d['lower']}, {d['upper']}]"


def orders_option(values: Optional[List[str]]) -> Optional[List[Fraction]]:
    if not values:
        return None
    out = []
    for v in values:
        a = parse_rational(v, "alpha")
        if a <= 1:
            raise ValueError(f"alpha must be > 1. Found {v}.")
        out.append(a)
    return out


BOUNDS = ("tight", "general", "lower", "tau", "wang2019")


def add_bound_options(p: argparse.ArgumentParser) -> None:
    """--bound / --tau: choose among the Zhu & Wang 2019 bounds (with --sampling poisson)."""
    g = p.add_argument_group("explicitly chosen bounds (default: the tightest valid upper bound)")
    g.add_argument("--bound", default=None, choices=BOUNDS,
                   help="with --sampling poisson (add-remove), the Zhu & Wang 2019 bounds: tight (Thm 8, needs"
                        " condition (4): Gaussian, Laplace, randomized response), general (Thm 5), lower (Thm 6: not"
                        " a privacy guarantee; rdp only), tau (Thm 11 with --tau K terms); with --sampling fswor"
                        " --adjacency replace-one: wang2019 (Wang et al. 2019, Thm 9)")
    g.add_argument("--tau", default=None, metavar="K", help="number of exact terms of --bound tau, K >= 1")
