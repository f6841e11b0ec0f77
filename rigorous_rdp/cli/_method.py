r"""Command-line support for ``--method rdp|pld|best`` and ``--width``.

One helper shared by ``epsilon``, ``delta``, ``calibrate``, ``certify`` and ``dpsgd``:

* ``rdp`` (default): the certified RDP route (an upper bound; its ``lower`` is the
  lower end of the enclosure of that *bound*, not of the true epsilon).
* ``pld``: the certified PLD bracket; ``{lower, upper}`` enclose the *true optimal*
  epsilon (or delta) of the composition.
* ``best``: both; the reported value is the one with the smaller certified upper end.

The default stays ``rdp``: ``pld`` costs seconds per query (about 2.5 s for the
default DP-SGD run, against well under a second for RDP) and refuses events that
have no certified dominating pair here (Poisson replace-one, fswr, sampled
non-Gaussian mechanisms), so ``best`` as a default would slow down and change the
behaviour of every existing command.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..errors import UnsupportedEventError
from ..events import DpEvent
from ..pld.accountant import DEFAULT_WIDTH, PldAccountant, check_width

__all__ = [
    "METHODS",
    "add_method_options",
    "choose_best",
    "method_of",
    "pld_delta",
    "pld_epsilon",
    "run_method",
    "text_line",
]

METHODS = ("rdp", "pld", "best")


def add_method_options(p: argparse.ArgumentParser) -> None:
    """``--method`` and ``--width`` (the latter only for pld / best)."""
    p.add_argument(
        "--method",
        default="rdp",
        choices=METHODS,
        help="rdp (default): certified RDP bound; pld: certified bracket of the true optimal value; "
        "best: the smaller certified upper end of the two",
    )
    p.add_argument(
        "--width",
        metavar="W",
        default=None,
        help=f"pld: requested width of the epsilon bracket, 0 < W <= 10 (default {DEFAULT_WIDTH}); "
        "for delta, the relative width of the delta bracket",
    )


def method_of(args: argparse.Namespace) -> str:
    """The method, after checking that ``--width`` and the RDP-only options fit it."""
    method = getattr(args, "method", "rdp")
    width = getattr(args, "width", None)
    if width is not None:
        if method == "rdp":
            raise ValueError("--width applies to --method pld|best, not --method rdp.")
        check_width(width)
    if method == "pld":
        for opt in ("bound", "tau", "alpha"):
            if getattr(args, opt, None):
                raise ValueError(f"--{opt} applies to --method rdp|best, not --method pld.")
    return method


def text_line(res: dict[str, Any], key: str) -> str:
    """One line for the text output of a pld / best result."""
    v = res[key]
    what = "bracket of the true optimal value" if res.get("chosen", "pld") == "pld" else "certified RDP bound"
    line = f"{key} = [{v['lower']}, {v['upper']}]  ({res['method']}: {what}; rely on the upper end {v['upper']})"
    if "pld" in res and "exact" in res["pld"]:
        line += f"\n  pld exact: {res['pld']['exact']}"
    elif "pld" in res:
        line += f"\n  pld grid width {res['pld']['grid_width']}, masses at scale 2^-{res['pld']['scale_bits']}"
    if res.get("method") == "best":
        line += "\n  candidates: " + ", ".join(f"{n} {c[key]['upper']}" for n, c in res["candidates"].items())
    return line


def _no_bound(args: argparse.Namespace) -> None:
    """``--bound`` chooses a theorem of the RDP accountant: the PLD route refuses it (so that
    ``--method best`` reports the chosen bound)."""
    bound = getattr(args, "bound", None)
    if bound:
        raise UnsupportedEventError(
            f"the PLD accountant takes no RDP bound (bound {bound} chooses a theorem of the RDP accountant)."
        )


def _accountant(event: DpEvent, steps: int, args: argparse.Namespace) -> PldAccountant:
    _no_bound(args)
    width = getattr(args, "width", None)
    acc = PldAccountant(width=DEFAULT_WIDTH if width is None else width)
    return acc.compose(event, steps)


def pld_epsilon(event: DpEvent, steps: int, delta: Any, args: argparse.Namespace) -> dict[str, Any]:
    """JSON of the certified PLD epsilon bracket."""
    return _accountant(event, steps, args).get_epsilon_result(delta).to_json()


def pld_delta(event: DpEvent, steps: int, epsilon: Any, args: argparse.Namespace) -> dict[str, Any]:
    """JSON of the certified PLD delta bracket."""
    return _accountant(event, steps, args).get_delta_result(epsilon).to_json()


def _upper(res: dict[str, Any], key: str) -> Fraction:
    return Fraction(res[key]["upper"])


def choose_best(
    rdp_res: Callable[[], dict[str, Any]], pld_res: Callable[[], dict[str, Any]], key: str
) -> dict[str, Any]:
    """``best``: run both (a method that refuses the event is skipped) and report the one
    with the smaller certified upper end of ``key``; both results are included."""
    results: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    for name, fn in (("rdp", rdp_res), ("pld", pld_res)):
        try:
            results[name] = fn()
        except ValueError as exc:  # includes UnsupportedEventError
            errors[name] = str(exc)
    if not results:
        raise ValueError(f"--method best: no method supports this event ({'; '.join(errors.values())})")
    chosen = min(results, key=lambda n: _upper(results[n], key))
    out = dict(results[chosen])
    out["method"] = "best"
    out["chosen"] = chosen
    out["candidates"] = {n: {key: r[key]} for n, r in results.items()}
    if errors:
        out["refused"] = errors
    return out


def run_method(
    method: str, rdp_res: Callable[[], dict[str, Any]], pld_res: Callable[[], dict[str, Any]], key: str
) -> dict[str, Any]:
    """The result of ``method`` (``rdp`` or ``pld``: that one; ``best``: :func:`choose_best`,
    or :func:`choose_best_sigma` for ``key`` "sigma")."""
    if method == "best":
        return choose_best_sigma(rdp_res, pld_res) if key == "sigma" else choose_best(rdp_res, pld_res, key)
    if method == "pld":
        try:
            return pld_res()
        except UnsupportedEventError as exc:
            raise ValueError(f"--method pld: {exc} Use --method rdp.") from None
    return rdp_res()


def pld_calibrate(
    make_event: Callable[[Any], DpEvent],
    steps: int,
    epsilon: Any,
    delta: Any,
    args: argparse.Namespace,
    sigma_digits: int,
) -> dict[str, Any]:
    """JSON of :func:`rigorous_rdp.pld.calibrate.calibrate_sigma_pld`."""
    from ..pld.calibrate import calibrate_sigma_pld

    _no_bound(args)
    width = getattr(args, "width", None)
    return calibrate_sigma_pld(make_event, steps, epsilon, delta, sigma_digits=sigma_digits, width=width).to_json()


def choose_best_sigma(rdp_res: Callable[[], dict[str, Any]], pld_res: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``best`` for calibrate: the smaller certified sigma (both meet the target)."""
    results = {"rdp": rdp_res(), "pld": pld_res()}
    chosen = min(results, key=lambda n: Fraction(results[n]["sigma"]["upper"]))
    out = dict(results[chosen])
    out["method"] = "best"
    out["chosen"] = chosen
    out["candidates"] = {n: {"sigma": r["sigma"]} for n, r in results.items()}
    return out
