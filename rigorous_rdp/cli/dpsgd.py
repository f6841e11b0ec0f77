"""``rigorous-rdp dpsgd``: certified epsilon of a DP-SGD run, described in training terms.

Defaults are the MNIST-scale setting used throughout the literature since
Abadi et al. 2016: 60,000 training examples, lot (expected batch) size 600,
i.e. sampling rate q = 0.01, noise multiplier 1.1, 100 epochs (10,000 steps),
delta = 1e-5, Poisson sampling.  Every option can be overridden.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from ..accountant import RdpAccountant
from ..arith import parse_rational
from ..events import DpEvent, GaussianEvent
from ..registry import sampled_event, sampling_parameters
from ..subsampling.random_allocation_scheme import EPOCH_SAMPLINGS
from ..validation import integer_at_least
from . import _method as pld_cli
from ._common import ADJACENCIES, add_command, add_result_options, fmt_interval, namer, parse_digits

DEFAULTS = {"dataset_size": "60000", "batch_size": "600", "sigma": "1.1", "epochs": "100", "delta": "1e-5"}


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "dpsgd",
        run,
        text,
        help="certified epsilon of a DP-SGD run (default: MNIST-scale setting)",
        description="Certified epsilon of DP-SGD. Defaults: 60000 examples, batch 600 (q = 0.01), "
        "noise multiplier 1.1, 100 epochs, delta 1e-5, Poisson sampling.",
    )
    p.add_argument(
        "--dataset-size", default=DEFAULTS["dataset_size"], metavar="N", help="training examples (default 60000)"
    )
    p.add_argument(
        "--batch-size", default=DEFAULTS["batch_size"], metavar="B", help="(expected) batch size (default 600)"
    )
    p.add_argument("--sigma", default=DEFAULTS["sigma"], metavar="S", help="noise multiplier > 0 (default 1.1)")
    p.add_argument(
        "--epochs", default=DEFAULTS["epochs"], metavar="E", help="epochs > 0 (default 100); steps = ceil(E * N / B)"
    )
    p.add_argument("--delta", default=DEFAULTS["delta"], metavar="D", help="target delta in (0, 1) (default 1e-5)")
    p.add_argument(
        "--sampling", default="poisson", choices=dpsgd_samplings(), help="minibatch sampling (default poisson)"
    )
    p.add_argument(
        "--selected",
        default=None,
        metavar="K",
        help="steps of an epoch that use each example (random-allocation only), 1 <= K <= N / B",
    )
    p.add_argument(
        "--adjacency", default="add-remove", choices=ADJACENCIES, help="neighbouring relation (default add-remove)"
    )
    add_result_options(p)


#: what a DP-SGD run gives a sampling scheme: q = B/N, the batch and dataset sizes, or t = N/B
#: steps per epoch; and ``--selected K`` (random allocation: each example in K of the t steps)
_TRAINING_TERMS = {"sampling_probability", "batch_size", "dataset_size", "steps_per_epoch", "selected"}


def dpsgd_samplings() -> list[str]:
    """The sampling schemes of the Gaussian mechanism whose required parameters a DP-SGD run
    describes (:data:`_TRAINING_TERMS`), from the registry."""
    from ..events import GaussianEvent
    from ..registry import SCHEMES

    out = []
    for s in SCHEMES:
        required = {p.field for p in s.parameters if p.required}
        if s.sampling != "none" and s.noise.event is GaussianEvent and required <= _TRAINING_TERMS:
            out.append(s.sampling)
    return list(dict.fromkeys(out))


def _training_values(sampling: str, b: int, n: int, selected: int | None = None) -> dict[str, Any]:
    """The sampling parameters of a run with batch size ``b`` out of ``n`` examples (and
    ``selected`` steps per example and epoch, random allocation)."""
    fields = {p.field for p in sampling_parameters(sampling)}
    terms = {
        "sampling_probability": Fraction(b, n),
        "batch_size": b,
        "dataset_size": n,
        "steps_per_epoch": n // b,
        "selected": selected,
    }
    return {k: v for k, v in terms.items() if k in fields}


def _positive_int(value: str, name: str) -> int:
    return integer_at_least(value, name, 1)


def _epsilon(args: argparse.Namespace, method: str, event: DpEvent, count: int) -> dict[str, Any]:
    """epsilon at args.delta of count compositions of event, by the method chosen (RDP, PLD or the best)."""

    def rdp() -> dict[str, Any]:
        acc = RdpAccountant(digits=parse_digits(args)).compose(event, count)
        return acc.get_epsilon_and_order(args.delta).to_json()

    def pld() -> dict[str, Any]:
        return pld_cli.pld_epsilon(event, count, args.delta, args)

    return pld_cli.run_method(method, rdp, pld, "epsilon", event=event, name=namer(args))


def run(args: argparse.Namespace) -> dict[str, Any]:
    n = _positive_int(args.dataset_size, "dataset-size")
    b = _positive_int(args.batch_size, "batch-size")
    if b > n:
        raise ValueError(f"batch-size must be <= dataset-size ({n}). Found {b}.")
    epochs = parse_rational(args.epochs, "epochs")
    if epochs <= 0:
        raise ValueError(f"epochs must be > 0. Found {args.epochs}.")
    steps = -((-epochs * n) // b)  # ceil
    steps = int(steps)
    if args.selected is not None and "selected" not in {p.field for p in sampling_parameters(args.sampling)}:
        raise ValueError(f"--selected applies to --sampling random-allocation, not --sampling {args.sampling}.")
    if args.sampling in EPOCH_SAMPLINGS:
        return _run_epochs(args, n, b, epochs)
    event = sampled_event(
        GaussianEvent(args.sigma), args.sampling, adjacency=args.adjacency, **_training_values(args.sampling, b, n)
    )
    method = pld_cli.method_of(args)
    res = _epsilon(args, method, event, steps)
    res.update(
        {
            "steps": steps,
            "mechanism": {
                "noise": "gaussian",
                "sigma": str(args.sigma),
                "sampling": args.sampling,
                "batch_size": b,
                "dataset_size": n,
                "adjacency": args.adjacency,
            },
            "epochs": str(args.epochs),
        }
    )
    return res


def _run_epochs(args: argparse.Namespace, n: int, b: int, epochs: Fraction) -> dict[str, Any]:
    """An epoch-based sampling: t = N / B steps per epoch, one composed step per epoch.

    ``shuffle`` reports a certified LOWER bound on epsilon (no upper bound is known) next to the
    epsilon that Poisson accounting with q = B / N would certify for the same run."""
    if n % b:
        raise ValueError(
            f"dataset-size must be a multiple of batch-size with --sampling {args.sampling} (t = N / B steps per"
            f" epoch). Found {n} and {b}."
        )
    if epochs.denominator != 1:
        raise ValueError(f"epochs must be an integer >= 1 with --sampling {args.sampling}. Found {args.epochs}.")
    e, t = int(epochs), n // b
    selected = None if args.selected is None else _positive_int(args.selected, "selected")
    if selected is not None and selected > t:
        raise ValueError(f"--selected must be <= dataset-size / batch-size = {t} (steps per epoch). Found {selected}.")
    mechanism = {
        "noise": "gaussian",
        "sigma": str(args.sigma),
        "sampling": args.sampling,
        "batch_size": b,
        "dataset_size": n,
        "steps_per_epoch": t,
        **({} if selected is None else {"selected": selected}),
        "adjacency": args.adjacency,
    }
    method = pld_cli.method_of(args)
    if args.sampling == "shuffle":
        return _run_shuffle(args, t, e, method, mechanism)
    event = sampled_event(
        GaussianEvent(args.sigma),
        args.sampling,
        adjacency=args.adjacency,
        **_training_values(args.sampling, b, n, selected),
    )
    res = _epsilon(args, method, event, e)
    res.update({"steps": e * t, "mechanism": mechanism, "epochs": str(args.epochs)})
    return res


def _run_shuffle(args: argparse.Namespace, t: int, e: int, method: str, mechanism: dict[str, Any]) -> dict[str, Any]:
    from ..arith import decimal_lower, decimal_upper
    from ..events import PoissonSampledEvent
    from ..subsampling.shuffle import shuffle_epsilon_lower_bound

    if args.adjacency != "add-remove":
        raise ValueError("adjacency must be add-remove with --sampling shuffle (the lower bound is for zero-out).")
    digits = parse_digits(args)
    bound = shuffle_epsilon_lower_bound(args.sigma, t, args.delta, epochs=e)
    poisson = PoissonSampledEvent(GaussianEvent(args.sigma), Fraction(1, t))

    def rdp() -> dict[str, Any]:
        return RdpAccountant(digits=digits).compose(poisson, e * t).get_epsilon_and_order(args.delta).to_json()

    def pld() -> dict[str, Any]:
        return pld_cli.pld_epsilon(poisson, e * t, args.delta, args)

    claim = pld_cli.run_method(method, rdp, pld, "epsilon")
    lower = None
    if bound is not None:
        lower = {"lower": decimal_lower(bound.epsilon, 17), "upper": decimal_upper(bound.epsilon, 17)}
    return {
        "epsilon_lower_bound": lower,
        "guarantee": False,
        "note": "no upper bound on the privacy of shuffling is known: the true epsilon is at least"
        " epsilon_lower_bound.lower (Chua et al. 2024 pair, certified); poisson_claim is what Poisson accounting"
        " with q = B/N would certify, not a guarantee for shuffling",
        "test": None if bound is None else _shuffle_test(bound),
        "poisson_claim": claim,
        "steps": e * t,
        "mechanism": mechanism,
        "epochs": str(args.epochs),
        "delta": str(args.delta),
    }


def _shuffle_test(bound: Any) -> dict[str, Any]:
    """The event of the lower bound (rigorous_rdp.subsampling.shuffle), for the JSON output."""
    if bound.family == "cube":
        return {"family": "cube", "epochs_at_least": bound.epochs_threshold, "cap": str(bound.cap)}
    return {"family": "loss-sum", "bins": len(bound.event.labels), "threshold": bound.event.threshold}


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    if "epsilon_lower_bound" in res:
        m, lb = res["mechanism"], res["epsilon_lower_bound"]
        head = (
            f"DP-SGD: {m['dataset_size']} examples, batch {m['batch_size']} (shuffle sampling), noise multiplier"
            f" {m['sigma']}, {res['epochs']} epochs = {res['steps']} steps\n"
        )
        said = "none (no event of the test family exceeds delta)" if lb is None else f"{lb['lower']}"
        return (
            head + "No upper bound on the privacy of shuffling is known: NO privacy guarantee.\n"
            f"Certified LOWER bound: epsilon >= {said} at delta = {args.delta}\n"
            f"  (Poisson accounting with q = B/N would claim epsilon <= {res['poisson_claim']['epsilon']['upper']}:"
            " not valid for shuffling)"
        )
    m = res["mechanism"]
    head = (
        f"DP-SGD: {m['dataset_size']} examples, batch {m['batch_size']} ({m['sampling']} sampling), "
        f"noise multiplier {m['sigma']}, {res['epochs']} epochs = {res['steps']} steps\n"
    )
    own = pld_cli.chosen_result(res)
    if own.get("method") == "pld":
        return head + pld_cli.text_line(res, "epsilon", f"delta = {args.delta}")
    label = " (best: rdp, certified RDP upper bound)" if res.get("method") == "best" else ""
    return (
        head + f"certified epsilon = {fmt_interval(res['epsilon'])} at delta = {args.delta}{label}\n"
        f"  (rely on the upper end {res['epsilon']['upper']}; order alpha = {own['alpha']}, conversion = {own['conversion']})"
        + pld_cli.others(res, "epsilon", lambda n: "upper end of the PLD bracket")
    )
