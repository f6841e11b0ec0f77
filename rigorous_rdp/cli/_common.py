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
from ..events import (
    Adjacency,
    DpEvent,
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RandomizedResponseEvent,
)

NOISES = ("gaussian", "laplace", "randomized-response")
SAMPLINGS = ("none", "poisson", "fswor", "fswr")
ADJACENCIES = ("add-remove", "replace-one")

# API parameter names that are CLI options of the same name
_OPTION_NAMES = (
    "sigma", "scale", "p", "q", "batch-size", "dataset-size", "taylor-order", "adjacency",
    "alpha", "delta", "epsilon", "steps", "digits", "noise", "sampling", "tau", "bound",
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
    g.add_argument("--noise", default="gaussian", choices=NOISES, help="base mechanism (default gaussian)")
    if sigma:
        g.add_argument("--sigma", metavar="S", help="Gaussian noise multiplier (sensitivity 1), S > 0")
    g.add_argument("--scale", metavar="B", help="Laplace scale b > 0 (sensitivity 1)")
    g.add_argument("--p", metavar="P", help="randomized response: probability of the true answer, 0 < P < 1")
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


def _int_option(value: Optional[str], name: str) -> Optional[int]:
    if value is None:
        return None
    f = parse_rational(value, name)
    if f.denominator != 1:
        raise ValueError(f"{name} must be an integer. Found {value}.")
    return int(f)


def build_base_event(args: argparse.Namespace, sigma: Optional[object] = None) -> DpEvent:
    """The base mechanism from --noise and its parameter (``sigma`` overrides --sigma)."""
    noise = args.noise
    given = {k: getattr(args, k, None) for k in ("sigma", "scale", "p")}
    need = {"gaussian": "sigma", "laplace": "scale", "randomized-response": "p"}[noise]
    for k, v in given.items():
        if v is not None and k != need:
            raise ValueError(f"{k} does not apply to --noise {noise} (it takes --{need}).")
    if noise == "gaussian":
        s = sigma if sigma is not None else given["sigma"]
        if s is None:
            raise ValueError("sigma is required with --noise gaussian (a number > 0).")
        return GaussianEvent(s)
    if given[need] is None:
        raise ValueError(f"{need} is required with --noise {noise}.")
    if noise == "laplace":
        return LaplaceEvent(given["scale"])
    return RandomizedResponseEvent(given["p"])


def build_event(args: argparse.Namespace, sigma: Optional[object] = None) -> DpEvent:
    """One step of the mechanism described by the mechanism options."""
    base = build_base_event(args, sigma)
    s = args.sampling
    adjacency = Adjacency.parse(args.adjacency)
    if s in ("none", "poisson") and (args.batch_size is not None or args.dataset_size is not None):
        raise ValueError(f"batch-size and --dataset-size apply to --sampling fswor|fswr, not --sampling {s}.")
    if s != "poisson" and args.q is not None:
        raise ValueError(f"q applies to --sampling poisson, not --sampling {s}.")
    if s in ("none", "poisson") and args.taylor_order is not None:
        raise ValueError(f"taylor-order applies to --sampling fswor|fswr, not --sampling {s}.")
    if s == "none":
        if adjacency is not Adjacency.ADD_REMOVE:
            raise ValueError("adjacency replace-one needs a sampling scheme (--sampling poisson|fswor|fswr).")
        return base
    if s == "poisson":
        if args.q is None:
            raise ValueError("q is required with --sampling poisson (a number in [0, 1]).")
        return PoissonSampledEvent(base, args.q, adjacency)
    b = _int_option(args.batch_size, "batch-size")
    n = _int_option(args.dataset_size, "dataset-size")
    if b is None or n is None:
        raise ValueError(f"batch-size and --dataset-size are required with --sampling {s}.")
    m = _int_option(args.taylor_order, "taylor-order")
    return FixedSizeSampledEvent(base, b, n, replacement=(s == "fswr"), adjacency=adjacency,
                                 taylor_order=m)


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
    f = parse_rational(value, "steps")
    if f.denominator != 1 or f < 1:
        raise ValueError(f"steps must be an integer >= 1. Found {value}.")
    return int(f)


def _name_option(message: str, extra: tuple = ()) -> str:
    """Prefix ``--`` when the message starts with an option name (shared or the subcommand's own)."""
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


def parse_fraction_option(value: str, name: str) -> Fraction:
    return parse_rational(value, name)


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


BOUNDS = ("tight", "general", "lower", "tau")


def add_bound_options(p: argparse.ArgumentParser) -> None:
    """--bound / --tau: choose among the Zhu & Wang 2019 bounds (with --sampling poisson)."""
    g = p.add_argument_group("Zhu & Wang 2019 bounds (--sampling poisson, add-remove)")
    g.add_argument("--bound", default=None, choices=BOUNDS,
                   help="tight (Thm 8, needs condition (4): Gaussian, Laplace, randomized response), general (Thm 5),"
                        " lower (Thm 6: not a privacy guarantee; rdp only), tau (Thm 11 with --tau K terms)."
                        " Default: the tightest valid upper bound")
    g.add_argument("--tau", default=None, metavar="K", help="number of exact terms of --bound tau, K >= 1")


def build_event_with_bound(args: argparse.Namespace, sigma: Optional[object] = None, *,
                           guarantee: bool = True) -> DpEvent:
    """:func:`build_event`, wrapped in a Zhu-Wang event when --bound / --tau are given.

    ``guarantee``: the command reports a privacy guarantee (epsilon, delta), so
    the lower bound is refused.
    """
    event = build_event(args, sigma)
    bound = getattr(args, "bound", None)
    tau = getattr(args, "tau", None)
    if bound is None and tau is None:
        return event
    if args.sampling != "poisson":
        raise ValueError(f"bound and --tau apply to --sampling poisson only. Found --sampling {args.sampling}.")
    if Adjacency.parse(args.adjacency) is not Adjacency.ADD_REMOVE:
        raise ValueError("bound: the Zhu & Wang 2019 bounds are for add-remove adjacency only.")
    if tau is not None and bound != "tau":
        raise ValueError(f"tau applies to --bound tau only. Found --bound {bound or 'default'}.")
    if bound == "tau" and tau is None:
        raise ValueError("tau is required with --bound tau (an integer >= 1).")
    if bound == "lower" and guarantee:
        raise ValueError("bound lower is the lower bound of Zhu & Wang 2019 Thm 6, not a privacy guarantee; it is"
                         " shown by `rigorous-rdp rdp` only. Use --bound tight|general|tau here.")
    from ..subsampling.zhu_wang import ZhuWangSampledEvent

    return ZhuWangSampledEvent(event.event, event.sampling_probability, bound,
                               None if tau is None else _int_option(tau, "tau"))
