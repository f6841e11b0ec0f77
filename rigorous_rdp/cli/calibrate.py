"""``rigorous-rdp calibrate``: smallest noise multiplier, or largest number of steps, for a target.

Default mode (no ``--sigma``): the smallest noise multiplier with
``--sigma-digits`` significant digits whose certified epsilon after ``--steps``
steps is ``<= --epsilon`` at ``--delta``; the output ``sigma`` is
``{lower, upper}`` where ``upper`` is the value to use and ``lower`` (one grid
step below) is proven not to meet the target under the same accounting.

``--max-steps`` mode (with ``--sigma``, without ``--steps``): the largest number
of steps whose certified epsilon meets the target.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..arith import parse_rational
from ..calibrate import DEFAULT_SIGMA_DIGITS, calibrate_sigma, check_calibration_inputs, max_steps
from ..errors import UnsupportedEventError
from . import _common as common
from . import _method as pld_cli

HELP = "smallest certified noise multiplier (or largest step count) for a target"
DESCRIPTION = (
    "Smallest noise multiplier sigma whose certified epsilon after T steps is <= E "
    "at delta D (bisection on certified enclosures); with --max-steps and --sigma, "
    "the largest number of steps instead."
)


def register(sub: Any) -> None:
    p = common.add_event_command(sub, "calibrate", run, text, help=HELP, description=DESCRIPTION)
    p.add_argument("--steps", metavar="T", help="number of composed steps, T >= 1 (not with --max-steps)")
    p.add_argument("--epsilon", required=True, metavar="E", help="target epsilon, E > 0")
    common.add_target_delta(p)
    p.add_argument(
        "--sigma-digits",
        default=str(DEFAULT_SIGMA_DIGITS),
        metavar="K",
        help=f"significant digits of the returned sigma, 1 <= K <= 15 (default {DEFAULT_SIGMA_DIGITS})",
    )
    p.add_argument(
        "--max-steps", action="store_true", help="find the largest number of steps for the given --sigma instead"
    )
    common.add_order_options(p)
    common.add_result_options(p)


def _progress(args: argparse.Namespace):
    """No bar of its own: the calibration reports each certified evaluation to the command's
    progress line (:mod:`rigorous_rdp.progress`)."""
    return None, None


def run(args: argparse.Namespace) -> dict[str, Any]:
    digits = common.parse_digits(args)
    sd = parse_rational(args.sigma_digits, "sigma-digits")
    if sd.denominator != 1 or not 1 <= sd <= 15:
        raise ValueError(f"--sigma-digits must be an integer in [1, 15]. Found {args.sigma_digits}.")
    if args.noise != "gaussian":
        raise ValueError(
            f"noise must be gaussian for calibrate (it calibrates the noise multiplier). Found {args.noise}."
        )
    check_calibration_inputs(args.epsilon, args.delta)
    method = pld_cli.method_of(args)
    if method == "pld" and args.max_steps:
        raise ValueError(f"max-steps supports --method rdp|best only (it uses the RDP). Found --method {method}.")
    template = common.accountant_option(args)
    if args.max_steps:
        if args.steps is not None:
            raise ValueError("steps does not apply with --max-steps (the number of steps is the output).")
        if args.sigma is None:
            raise ValueError("sigma is required with --max-steps (a number > 0).")
        event = common.build_event(args)
        bar, update = _progress(args)
        try:
            res = max_steps(event, args.epsilon, args.delta, accountant=template, progress=update)
        finally:
            if bar is not None:
                bar.close()
        out = res.to_json()
        if method == "best":  # the largest number of steps is searched with the RDP only
            out.update({"method": "best", "chosen": "rdp", "not_used": {"pld": "--max-steps uses the RDP only"}})
        out.update(
            {
                "mode": "max-steps",
                "epsilon": str(args.epsilon),
                "delta": str(args.delta),
                "mechanism": common.mechanism_json(args),
                "digits": digits,
            }
        )
        return out
    if args.sigma is not None:
        raise ValueError("sigma is the output of calibrate; omit it (or use --max-steps to find the number of steps).")
    if args.steps is None:
        raise ValueError("steps is required (an integer >= 1), unless --max-steps is given.")
    steps = common.parse_steps(args.steps)
    event = common.build_event(args, sigma="1")  # validate the other mechanism options before searching

    def rdp() -> dict[str, Any]:
        bar, update = _progress(args)
        try:
            return calibrate_sigma(
                lambda s: common.build_event(args, sigma=s),
                steps,
                args.epsilon,
                args.delta,
                sigma_digits=int(sd),
                accountant=template,
                progress=update,
            ).to_json()
        finally:
            if bar is not None:
                bar.close()

    def pld() -> dict[str, Any]:
        try:
            return pld_cli.pld_calibrate(
                lambda s: common.build_event(args, sigma=s), steps, args.epsilon, args.delta, args, int(sd)
            )
        except UnsupportedEventError as exc:
            if "tight" in str(exc):  # fswor: its pairs dominate it, so a miss cannot be proven
                exc.reason = "its pairs only dominate this event: no sigma can be proven to miss"  # type: ignore[attr-defined]
            raise

    out = pld_cli.run_method(method, rdp, pld, "sigma", event=event, name=common.namer(args))
    own = out.get("candidates", {}).get("pld", out)
    if "dominating_pair_epsilon_at_lower" in own:  # pairs that only dominate (random allocation, k > 1)
        from ..pld.calibrate import DOMINATING_CLAIM

        own["claim"] = DOMINATING_CLAIM
        if out.get("chosen", "pld") == "pld":
            out["claim"] = DOMINATING_CLAIM
    if "sigma_digits" in own:  # the digits decided (a grid-built PLD may decide fewer than asked)
        out["sigma_digits"] = own["sigma_digits"]
    out.update(
        {
            "mode": "sigma",
            "steps": steps,
            "epsilon": str(args.epsilon),
            "delta": str(args.delta),
            "mechanism": common.mechanism_json(args, sigma=out["sigma"]["upper"]),
            "digits": digits,
        }
    )
    return out


def _after(res: dict[str, Any]) -> str:
    """ "after 10 steps", or for an epoch-based sampling "after 10 epochs of 1000 steps"."""
    mech = res.get("mechanism", {})
    if mech.get("epochs") is not None and mech.get("steps_per_epoch") is not None:
        unit = "epoch" if res["steps"] == 1 else "epochs"
        per = "step" if mech["steps_per_epoch"] == 1 else "steps"
        return f"after {res['steps']} {unit} of {mech['steps_per_epoch']} {per}"
    return f"after {res['steps']} steps"


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    if res["mode"] == "max-steps":
        line = (
            f"max steps = {res['max_steps']}  (certified epsilon "
            f"{common.fmt_interval(res['epsilon_at_max_steps']['epsilon']) if res['epsilon_at_max_steps'] else '0'}"
            f" <= {res['epsilon']} at delta = {res['delta']})"
        )
        if res["epsilon_at_next_step"]:
            line += f"\n  one more step: epsilon {common.fmt_interval(res['epsilon_at_next_step']['epsilon'])} > {res['epsilon']}"
        for name, why in res.get("not_used", {}).items():
            line += f"\n  {name} not used: {why}"
        return line
    s = res["sigma"]
    own = pld_cli.chosen_result(res)
    chosen = res.get("chosen", own.get("method", "rdp"))
    label = f"best: {chosen}, " if res.get("method") == "best" else ("pld: " if chosen == "pld" else "")
    if chosen == "pld" and "dominating_pair_epsilon_at_lower" in own:
        line = (
            f"sigma = {s['upper']}  ({label}certified epsilon {common.fmt_interval(own['epsilon_at_sigma']['epsilon'])} "
            f"<= {res['epsilon']} at delta = {res['delta']} {_after(res)})\n  sigma = {s['lower']} does not meet it "
            f"under the same accounting: the dominating pair's optimal epsilon is >= "
            f"{own['dominating_pair_epsilon_at_lower']['lower']}"
        )
    elif chosen == "pld":
        line = (
            f"sigma = {s['upper']}  ({label}certified epsilon bracket "
            f"{common.fmt_interval(own['epsilon_at_sigma']['epsilon'])} <= {res['epsilon']} at delta = {res['delta']} "
            f"{_after(res)})\n  sigma = {s['lower']} does not meet it: the true optimal epsilon is in "
            f"{common.fmt_interval(own['epsilon_at_lower']['epsilon'])}"
        )
    else:
        line = (
            f"sigma = {s['upper']}  ({label}certified epsilon {common.fmt_interval(own['epsilon_at_sigma']['epsilon'])} <= "
            f"{res['epsilon']} at delta = {res['delta']} {_after(res)})"
        )
        if own["epsilon_at_lower"]:
            line += f"\n  sigma = {s['lower']} does not meet it: epsilon {common.fmt_interval(own['epsilon_at_lower']['epsilon'])}"
    asked = int(parse_rational(args.sigma_digits, "sigma-digits"))
    if own.get("sigma_digits", asked) < asked:
        line += (
            f"\n  sigma has {own['sigma_digits']} significant digits (--sigma-digits {asked} asked): "
            "finer digits are below the resolution of the PLD's sum law here"
        )
    return line + pld_cli.others(res, "sigma", lambda n: "sigma")
