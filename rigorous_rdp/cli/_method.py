r"""Command-line support for ``--method rdp|pld|best`` and ``--width``.

One helper shared by ``epsilon``, ``delta``, ``calibrate``, ``certify`` and ``dpsgd``:

* ``best`` (default): both; the reported value is the one with the smaller certified upper
  end, and the JSON names the method that gave it (``chosen``) and carries both results
  (``candidates``, each with its ``claim``).  The RDP runs first (it is the fallback); the
  PLD then runs with its own share of the time budget (:func:`rigorous_rdp.best.pld_seconds`:
  half the time left).  Where the PLD refuses the event, cannot certify, or runs past its
  share, the RDP result is the answer and ``not_used`` says why (one short phrase; the full
  message in ``refused``): never an error.
* ``rdp``: the certified RDP route (an upper bound; its ``lower`` is the lower end of the
  enclosure of that *bound*, not of the true epsilon).
* ``pld``: the certified PLD bracket; ``{lower, upper}`` enclose the *true optimal*
  epsilon (or delta) of the composition; an event without a certified pair is an error.

The options of one method apply under ``best`` too: ``--width`` goes to the PLD,
``--alpha``, ``--conversion``, ``--no-continuous``, ``--bound`` and ``--tau`` to the RDP (an
explicitly chosen RDP bound is an event the PLD does not take: ``best`` then reports the RDP
and says so).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .. import best as best_mod
from ..arith import round_decimal
from ..errors import UnsupportedEventError
from ..events import DpEvent
from ..pld.accountant import DEFAULT_WIDTH, PldAccountant, check_width

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "SIGMA_CLAIMS",
    "add_method_options",
    "choose_best",
    "chosen_result",
    "method_of",
    "others",
    "pld_calibrate",
    "pld_delta",
    "pld_epsilon",
    "run_method",
    "text_line",
]

METHODS = ("rdp", "pld", "best")
DEFAULT_METHOD = "best"

#: what a calibrated sigma of each method certifies
SIGMA_CLAIMS = {
    "rdp": "sigma.upper meets the target under the certified RDP upper bound; sigma.lower does not under "
    "the same accounting",
    "pld": "sigma.upper meets the target under the certified PLD upper end; at sigma.lower the true optimal "
    "epsilon exceeds the target",
}


def add_method_options(p: argparse.ArgumentParser) -> None:
    """``--method`` and ``--width`` (the latter only for pld / best)."""
    p.add_argument(
        "--method",
        default=DEFAULT_METHOD,
        choices=METHODS,
        help="best (default): the smaller certified upper end of rdp and pld (pld within half the time left; "
        "rdp where pld does not apply, with the reason); rdp: certified RDP bound; pld: certified bracket of the "
        "true optimal value",
    )
    p.add_argument(
        "--width",
        metavar="W",
        help=f"pld: requested width of the epsilon bracket, 0 < W <= 10 (default {DEFAULT_WIDTH}); "
        "for delta, the relative width of the delta bracket",
    )


def method_of(args: argparse.Namespace) -> str:
    """The method, after checking that ``--width`` and the RDP-only options fit it."""
    method = getattr(args, "method", DEFAULT_METHOD)
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


_WHAT = {"pld": "bracket of the true optimal value", "rdp": "certified RDP upper bound"}
#: the other method's number, on its line under ``best``
_OTHER = {"pld": "upper end of the PLD bracket", "rdp": "certified RDP upper bound"}

#: the fields of a query result that are the same for every method (its target), kept at the top
#: level of a ``best`` answer next to the chosen value
KEEP = {"epsilon": ("delta",), "delta": ("epsilon",), "sigma": ()}


def chosen_result(res: dict[str, Any]) -> dict[str, Any]:
    """The chosen method's own result (``res`` itself unless it is a ``best`` answer)."""
    return res["candidates"][res["chosen"]] if res.get("method") == "best" else res


def others(res: dict[str, Any], key: str, what: Callable[[str], str], suffix: str = "(larger)") -> str:
    """The lines of a ``best`` answer after its value: each other method's upper end of ``key``
    (``what(name)`` names it, ``suffix`` follows it), and why a method was not used; "" otherwise."""
    if res.get("method") != "best":
        return ""
    mine = best_mod.decimal_key(res[key]["upper"])
    lines = [
        f"\n  {name}: {what(name)} {cand[key]['upper']} {_compared(suffix, best_mod.decimal_key(cand[key]['upper']), mine)}"
        for name, cand in res["candidates"].items()
        if name != res["chosen"]
    ]
    lines += [f"\n  {name} not used: {why}" for name, why in res.get("not_used", {}).items()]
    return "".join(lines)


#: why a grid bracket is wider than requested
_GRID_NOTE = "the grid is capped by its cost; the bracket is certified all the same"


def _compared(suffix: str, other: Any, mine: Any) -> str:
    """``suffix`` (which says "larger") when the other upper end is strictly larger than the
    reported one; with "equal" (or "smaller") in its place otherwise (e.g. both 0)."""
    if other > mine:
        return suffix
    return suffix.replace("larger", "equal" if other == mine else "smaller", 1)


def directions_line(pld: dict[str, Any], key: str) -> str:
    """For a PLD answer with two directions (remove / add): which one gives the reported value
    (its lower end above the other's upper end), or that their brackets overlap; "" otherwise."""
    dirs = {k: v[key] for k, v in pld.get("directions", {}).items() if isinstance(v, dict) and key in v}
    if len(dirs) != 2:
        return ""
    (n1, b1), (n2, b2) = dirs.items()
    lo1, up1 = best_mod.decimal_key(b1["lower"]), best_mod.decimal_key(b1["upper"])
    lo2, up2 = best_mod.decimal_key(b2["lower"]), best_mod.decimal_key(b2["upper"])
    if lo2 > up1:
        (n1, b1), (n2, b2), lo1, up2 = (n2, b2), (n1, b1), lo2, up1
    if lo1 > up2:
        return f"\n  larger direction: {n1} ({n2}: [{b2['lower']}, {b2['upper']}])"
    both = f"{n1} [{b1['lower']}, {b1['upper']}], {n2} [{b2['lower']}, {b2['upper']}]"
    return f"\n  larger direction: undecided, the brackets overlap ({both}); the bracket above covers both"


def text_line(res: dict[str, Any], key: str, given: str) -> str:
    """The text output of an epsilon / delta answer of any method: the value, the method that
    gave it and what it certifies, how it was computed, under ``best`` the other method's
    upper end (or why it was not used), and ``given`` (the target and the steps)."""
    v = res[key]
    best = res.get("method") == "best"
    own = chosen_result(res)
    chosen = res.get("chosen", own.get("method", "rdp"))
    label = f"best: {chosen}, {_WHAT[chosen]}" if best else (f"pld: {_WHAT['pld']}" if chosen == "pld" else "certified")
    line = f"{key} = [{v['lower']}, {v['upper']}]  ({label}; rely on the upper end {v['upper']})"
    if chosen == "rdp":
        line += f"\n  {given}, order alpha = {own['alpha']}, conversion = {own['conversion']}"
        if "true_value" in res:  # the PLD's lower end bounds the true value from below
            low = res["true_value"]["lower"]
            return line + others(res, key, lambda n: _OTHER[n], f"(larger; its lower end {low} bounds the true {key})")
        return line + others(res, key, lambda n: _OTHER[n])
    pld = own["pld"]
    if "exact" in pld:
        line += f"\n  pld exact: {pld['exact']}"
    else:
        line += f"\n  pld grid width {pld['grid_width']}, masses at scale 2^-{pld['scale_bits']}"
        if pld.get("lower_end"):
            line += f"\n  lower end: {pld['lower_end']}"
    if not pld.get("lower_end") and pld.get("width_reached") is False:
        what = "width" if key == "epsilon" else "relative width"
        shown = round_decimal(Fraction(pld["requested_width"]), 17, up=False)
        line += f"\n  requested {what} {shown} not reached ({pld.get('width_note', _GRID_NOTE)})"
    if not best:  # --method pld: the details of the PLD answer (best keeps its summary short)
        line += directions_line(pld, key)
    return line + others(res, key, lambda n: _OTHER[n]) + f"\n  {given}"


def _no_bound(args: argparse.Namespace) -> None:
    """``--bound`` chooses a theorem of the RDP accountant: the PLD route refuses it (so that
    ``--method best`` reports the chosen bound)."""
    bound = getattr(args, "bound", None)
    if bound:
        exc = UnsupportedEventError(
            f"the PLD accountant takes no RDP bound (bound {bound} chooses a theorem of the RDP accountant)."
        )
        exc.reason = "an RDP bound was chosen (the PLD takes none)"  # type: ignore[attr-defined]
        raise exc


def _accountant(args: argparse.Namespace) -> PldAccountant:
    _no_bound(args)
    width = getattr(args, "width", None)
    return PldAccountant(width=DEFAULT_WIDTH if width is None else width)


#: why a closed-form bracket is wider than requested
EXACT_NOTE = "the closed form's working precision is capped; the bracket is certified all the same"


def _width_flags(out: dict[str, Any], reached: bool | None, width: Fraction) -> dict[str, Any]:
    out["pld"]["requested_width"] = str(width)
    if reached is not None:
        out["pld"]["width_reached"] = reached
        if not reached and "exact" in out["pld"]:
            out["pld"]["width_note"] = EXACT_NOTE
    return out


def pld_epsilon(event: DpEvent, steps: int, delta: Any, args: argparse.Namespace) -> dict[str, Any]:
    """JSON of the certified PLD epsilon bracket; ``pld.width_reached`` says whether a two-sided
    bracket met the requested width (the grid is capped by cost: a wider bracket is still certified)."""
    acc = _accountant(args).compose(event, steps)
    out = acc.get_epsilon_result(delta).to_json()
    lo, up = Fraction(out["epsilon"]["lower"]), Fraction(out["epsilon"]["upper"])
    return _width_flags(out, up - lo <= acc.width if lo > 0 else None, acc.width)


def relative_width_reached(value: Any, width: Fraction) -> bool:
    """Whether the ball of a certified delta has relative width ``(upper - lower)/upper <= width``
    (an exact 0 has); decided in ball arithmetic, undecided counts as not reached."""
    from flint import arb, fmpq

    from ..arith import workprec

    ball = value.ball
    if ball.is_exact() and ball == 0:
        return True
    with workprec(64):
        w = arb(fmpq(width.numerator, width.denominator))
        return bool(2 * ball.rad() <= w * ball.upper())


def pld_delta(event: DpEvent, steps: int, epsilon: Any, args: argparse.Namespace) -> dict[str, Any]:
    """JSON of the certified PLD delta bracket; ``pld.width_reached`` says whether it met the
    requested relative width."""
    acc = _accountant(args).compose(event, steps)
    res = acc.get_delta_result(epsilon)
    return _width_flags(res.to_json(), relative_width_reached(res.value, acc.width), acc.width)


def choose_best(
    rdp_res: Callable[[], dict[str, Any]],
    pld_res: Callable[[], dict[str, Any]],
    key: str,
    *,
    claims: dict[str, str] | None = None,
    event: DpEvent | None = None,
    name: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """``best``: the RDP, then the PLD within its share of the time budget
    (:func:`rigorous_rdp.best.attempt`); the one with the smaller certified upper end of ``key``
    is reported, both are included (:func:`rigorous_rdp.best.best_json`).  A method that
    refuses, cannot certify or runs out of its time is left out with its reason; if the RDP
    refuses too (bad input), its error is raised.  ``event``: the event of the query (a chosen RDP
    bound is named as the reason), ``name``: how messages name a parameter (the command's option)."""
    results: dict[str, dict[str, Any]] = {}
    errors: dict[str, BaseException] = {}
    res, exc = best_mod.attempt(rdp_res)
    if exc is None and res is not None:
        results["rdp"] = res
    elif exc is not None:
        errors["rdp"] = exc
    res, exc = best_mod.attempt(pld_res, best_mod.pld_seconds() if results else None)
    if exc is None and res is not None:
        results["pld"] = res
    elif exc is not None:
        errors["pld"] = exc
    events = dict.fromkeys(errors, event) if event is not None else None
    return best_mod.best_json(results, errors, key, keep=KEEP[key], claims=claims, events=events, name=name)


def run_method(
    method: str,
    rdp_res: Callable[[], dict[str, Any]],
    pld_res: Callable[[], dict[str, Any]],
    key: str,
    *,
    event: DpEvent | None = None,
    name: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """The result of ``method`` (``rdp`` or ``pld``: that one; ``best``: :func:`choose_best`,
    with the claims of a calibration for ``key`` "sigma")."""
    if method == "best":
        claims = SIGMA_CLAIMS if key == "sigma" else None
        return choose_best(rdp_res, pld_res, key, claims=claims, event=event, name=name)
    if method == "pld":
        try:
            return pld_res()
        except UnsupportedEventError as exc:
            # the event passed the RDP table already (build_event), so the RDP route answers it
            why = str(exc).rstrip()
            why += "" if why.endswith(".") else "."
            raise ValueError(f"--method pld: {why} Use --method rdp (or the default, best).") from None
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
