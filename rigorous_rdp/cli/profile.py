r"""``rigorous-rdp profile``: the certified privacy profile and trade-off curve of T steps.

The privacy profile :math:`\delta(\varepsilon)` of the composition is bracketed at each
requested epsilon by the certified PLD accountant (:class:`rigorous_rdp.pld.PldAccountant`):
``lower <= delta(eps) <= upper`` for the *true optimal* delta of the composition of the
dominating pairs (for sampled events whose pairs only dominate the mechanism, e.g. fixed-size
sampling, the lower ends are 0).  All epsilons are answered from one composition per direction,
or, for ledgers of plain Gaussians or randomized responses, from their closed forms
(:mod:`rigorous_rdp.pld.closed_form`, no grid).

The trade-off curve (Dong, Roth, Su 2022): the smallest false-negative rate (type II error)
of any test between neighbouring datasets at false-positive rate (type I error) x.  An
:math:`(\varepsilon, \delta)` guarantee gives
:math:`g_{\varepsilon,\delta}(x) = \max(0,\ 1 - \delta - e^{\varepsilon} x,\ e^{-\varepsilon}(1 - \delta - x))`;
the envelope of the profile is :math:`F(x) = \sup_{\varepsilon \ge 0} g_{\varepsilon,\delta(\varepsilon)}(x)`,
the best trade-off bound that :math:`(\varepsilon, \delta)` statements about the
composition can give.  Reported, for each x, a bracket of F(x):

* ``lower`` = :math:`\max_i g_{\varepsilon_i, \delta_{up}(\varepsilon_i)}(x)`: each
  :math:`(\varepsilon_i, \delta_{up}(\varepsilon_i))` is a proven guarantee, so every test
  has false-negative rate at least ``lower``: a **certified f-DP guarantee** (the number
  to rely on); it is also a lower bound on F(x).
* ``upper``: an upper bound on F(x) from the lower deltas: for
  :math:`\varepsilon \in [\varepsilon_i, \varepsilon_{i+1}]`, :math:`\delta(\varepsilon) \ge
  \delta_{lo}(\varepsilon_{i+1})` (delta is non-increasing) and g is decreasing in
  :math:`\delta` and in :math:`\varepsilon`, so
  :math:`g_{\varepsilon,\delta(\varepsilon)}(x) \le g_{\varepsilon_i, \delta_{lo}(\varepsilon_{i+1})}(x)`;
  below the first epsilon :math:`g_{0, \delta_{lo}(\varepsilon_0)}`, above the last
  :math:`g_{\varepsilon_{max}, 0}`.  No :math:`(\varepsilon, \delta)` analysis of this
  composition can promise more than ``upper``.

Both are evaluated in ball arithmetic and rounded outward.  The gap between them is the
bracket width of the deltas plus the spacing of the epsilon grid (``--num``).

Where the closed form of the ledger has its own trade-off curve (``tradeoff``: the Gaussian's
:math:`G_\mu` of mu-GDP, randomized response's Neyman-Pearson curve, a no-op's 1 - x), the FNR
bracket is that curve's enclosure instead: these pairs are symmetric, so their trade-off curve
*is* the envelope F (Dong, Roth, Su 2022, Prop. 2.12), and both claims above hold for it.

``--width``: the deltas of a closed form are refined to that relative width; on the grid the
refinement aims at it for the deltas above 1e-9.  Whether it was reached is reported
(``width_reached``; the largest relative width and its epsilon when not).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from flint import arb, fmpq

from .. import validation
from ..errors import quote
from . import _common as common

if TYPE_CHECKING:
    from ..pld.accountant import PldAccountant

HELP = "certified privacy profile delta(eps) and trade-off curve (PLD)"
DESCRIPTION = (
    "Certified privacy profile of T composed steps: a bracket of the true optimal delta at each"
    " epsilon (PLD), and the trade-off curve it implies (false-negative rate at a false-positive"
    " rate): its lower end is a certified f-DP guarantee."
)

#: largest number of epsilons or false-positive rates
MAX_POINTS = 1000
#: largest epsilon accepted (the profile is 0 far earlier for any private mechanism)
MAX_EPSILON = Fraction(1000)
#: the default epsilon range ends where the certified delta falls below this
DEFAULT_DELTA_MIN = Fraction(1, 10**10)
#: default false-positive rates of the trade-off table
DEFAULT_FPRS = ("1e-6", "1e-5", "1e-4", "1e-3", "0.01", "0.05", "0.1", "0.2", "0.3", "0.5", "0.7", "0.9")
#: the trade-off curve also uses this many evenly spaced epsilons up to where delta falls below 1e-10
DENSE = 60
#: ... times this many for a ledger with a closed form (exact values are cheap)
EXACT_DENSE_FACTOR = 5
#: significant digits of the JSON numbers
SIG = 6
_OPTIONS = ("epsilons", "num", "fpr", "width", "plot", "epsilon-max")


def register(sub: Any) -> None:
    p = common.add_event_command(sub, "profile", run, text, help=HELP, description=DESCRIPTION)
    p.set_defaults(option_names=_OPTIONS)
    p.add_argument("--steps", required=True, metavar="T", help="number of composed steps, T >= 1")
    grid = p.add_mutually_exclusive_group()
    grid.add_argument("--epsilons", nargs="+", metavar="E", help="the epsilons, each in [0, 1000]")
    grid.add_argument(
        "--num", metavar="N", help="N evenly spaced epsilons from 0 to --epsilon-max, 2 <= N <= 1000 (default 21)"
    )
    p.add_argument(
        "--epsilon-max",
        metavar="E",
        help="largest epsilon of --num, 0 < E <= 1000 (default: where the certified delta falls below 1e-10)",
    )
    p.add_argument(
        "--fpr",
        nargs="+",
        metavar="X",
        help="false-positive rates of the trade-off table, each in [0, 1] (default 1e-6 ... 0.9)",
    )
    p.add_argument(
        "--width", metavar="W", help="requested relative width of the delta brackets, 0 < W <= 10 (default 1/100)"
    )
    p.add_argument("--plot", metavar="FILE", help="write a plot (PNG, PDF or SVG by the extension)")
    common.add_json_option(p)


# ---------------------------------------------------------------------------
# options
# ---------------------------------------------------------------------------


def _real_list(values: list[str], name: str, lo: Fraction, hi: Fraction, what: str) -> list[Fraction]:
    if len(values) > MAX_POINTS:
        raise ValueError(f"--{name} takes at most {MAX_POINTS} values. Found {len(values)}.")
    out = []
    for v in values:
        message = f"--{name} must be numbers {what}. Found {quote(v)}."
        try:
            f = common.RealRange(lo, hi, what).check(v, name)
        except ValueError:
            raise ValueError(message) from None
        out.append(f)
    return sorted(set(out))


def _options(args: argparse.Namespace) -> dict[str, Any]:
    # the mechanism options and --steps have the ranges of `epsilon` (the same checks)
    common.check_option_ranges(argparse.Namespace(**{**vars(args), "command": "epsilon"}))
    for opt in ("bound", "tau"):
        if getattr(args, opt, None):
            raise ValueError(f"--{opt} chooses an RDP bound; profile uses the PLD accountant (no --{opt}).")
    out: dict[str, Any] = {"steps": common.parse_steps(args.steps)}
    if args.epsilons is not None:
        if args.epsilon_max is not None:
            raise ValueError("--epsilon-max applies to --num, not to --epsilons.")
        out["epsilons"] = _real_list(args.epsilons, "epsilons", Fraction(0), MAX_EPSILON, "in [0, 1000]")
    else:
        out["num"] = 21 if args.num is None else validation.integer_in_range(args.num, "num", 2, MAX_POINTS)
        out["epsilon_max"] = None
        if args.epsilon_max is not None:
            out["epsilon_max"] = common.RealRange(Fraction(0), MAX_EPSILON, "in (0, 1000]", lo_open=True).check(
                args.epsilon_max, "--epsilon-max"
            )
    fprs = DEFAULT_FPRS if args.fpr is None else args.fpr
    out["fprs"] = _real_list(list(fprs), "fpr", Fraction(0), Fraction(1), "in [0, 1]")
    from ..pld.accountant import DEFAULT_WIDTH, check_width

    out["width"] = DEFAULT_WIDTH if args.width is None else check_width(args.width)
    if args.plot is not None:
        from ._plot import check_plot_path

        out["plot"] = check_plot_path(args.plot)
    return out


# ---------------------------------------------------------------------------
# the profile
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ProfilePoint:
    """A certified bracket ``lower <= delta(epsilon) <= upper``: ``lower`` and ``upper`` are exact
    balls (radius 0), so that a delta such as 1e-217147023817 costs no huge rational."""

    epsilon: Fraction
    lower: arb
    upper: arb


#: binary precision of the ends of a point built from rationals (rounded outward)
END_PREC = 128


def _point(e: Fraction, lo: Fraction, up: Fraction) -> ProfilePoint:
    """The point with ends ``lo <= up`` (rationals) rounded outward to ``END_PREC`` bits."""
    from ..arith import workprec

    with workprec(END_PREC):
        a, b = _q(lo).lower(), _q(up).upper()
    return ProfilePoint(e, a, b)


def _ball_point(e: Fraction, ball: arb, prec: int = END_PREC) -> ProfilePoint:
    """The point enclosing a delta ball, its ends rounded outward to ``prec`` bits and clipped to
    [0, 1] (a delta lies there)."""
    from ..arith import workprec

    with workprec(prec):
        lo, up = ball.lower().max(arb(0)), ball.upper().min(arb(1))
    return ProfilePoint(e, lo.min(up), up)


def _bits(width: Fraction, least: int = 64) -> int:
    """Binary digits of relative accuracy that give a relative width below ``width`` (at least ``least``)."""
    return max(least, math.ceil(-_flog2(width)) + 8)


def _flog2(x: Fraction) -> float:
    return math.log2(x.numerator) - math.log2(x.denominator)


@dataclass(frozen=True)
class PrivacyProfile:
    """The certified profile at the requested epsilons (``points``) and at those together with
    a dense grid (``dense``, for the trade-off curve), and how it was computed."""

    points: list[ProfilePoint]
    dense: list[ProfilePoint]
    grid: int
    scale_bits: int
    tight: bool
    #: the closed form answering every epsilon (plain Gaussian / randomized-response ledgers), if any
    exact: str = ""
    #: the closed form itself (its ``tradeoff`` gives the exact trade-off curve where it has one)
    closed_form: Any = None


def _nice_step(x: Fraction) -> Fraction:
    """The smallest number of the form d * 10^k (d in 1, 2, 2.5, 5) that is >= x > 0."""
    k = math.floor(math.log10(float(x)))
    for base in (Fraction(10) ** k, Fraction(10) ** (k + 1)):
        for d in (1, 2, Fraction(5, 2), 5, 10):
            if d * base >= x:
                return d * base
    return Fraction(10) ** (k + 2)  # pragma: no cover - unreachable


def privacy_profile(
    acc: PldAccountant,
    epsilons: list[Fraction] | None = None,
    *,
    num: int = 21,
    epsilon_max: Fraction | None = None,
    width: Fraction | None = None,
    dense: int = 0,
) -> PrivacyProfile:
    """Certified brackets of the optimal delta of the composition in ``acc`` at ``epsilons``
    (default: ``num`` evenly spaced epsilons from 0 to ``epsilon_max``, by default where the
    certified delta falls below 1e-10, on a round step), and at ``dense`` more evenly spaced
    epsilons up to there.

    One composition per direction and grid answers every epsilon; the grid is refined (at most
    three grids) while the largest relative width of a delta above 1e-9 exceeds ``width``.
    """
    from ..pld.accountant import _delta_upper, _eps_upper, delta_lower

    w = acc.width if width is None else width
    if not acc._active():
        # every step a no-op (q = 0): delta is 0 at every epsilon, in closed form
        from ..pld.closed_form import NULL

        top = epsilon_max if epsilon_max is not None else Fraction(1)
        eps = epsilons if epsilons is not None else [top * k / (num - 1) for k in range(num)]
        pts = [ProfilePoint(e, arb(0), arb(0)) for e in eps]
        return PrivacyProfile(pts, pts, 0, 0, True, exact=NULL.description, closed_form=NULL)
    cf = acc._closed_form()
    if cf is not None:
        return _exact_profile(acc, cf, epsilons, num, epsilon_max, dense, w)
    tight = acc._tight()
    n = acc._initial_grid(w, 1e-5)
    best: PrivacyProfile | None = None
    best_rank = math.inf
    for _attempt in range(3):
        acc._last_length = 0
        composed = {d: acc._composed(d, n, 1e-30, lower=tight) for d in acc._directions()}
        top = max(_eps_upper(U, n, DEFAULT_DELTA_MIN) for U, _, _, _ in composed.values())
        if epsilons is None:
            if epsilon_max is None:
                epsilon_max = _nice_step(max(top, Fraction(1, 1000)) / (num - 1)) * (num - 1)
            epsilons = [epsilon_max * k / (num - 1) for k in range(num)]
        extra = [top * k / dense for k in range(dense + 1)] if dense > 0 else []

        def at(e: Fraction, n: int = n, composed: dict = composed) -> ProfilePoint:
            up = max(_delta_upper(U, n, e) for U, _, _, _ in composed.values())
            lo = max((delta_lower(L, n, e) if L is not None else Fraction(0)) for _, L, _, _ in composed.values())
            return _point(e, min(lo, up), up)

        points = [at(e) for e in epsilons]
        scale_bits = next(iter(composed.values()))[2]
        rel = max((_rel(p) for p in points if float(p.upper) > 1e-9), default=0)
        if rel < best_rank:
            known = {p.epsilon: p for p in points}
            all_points = sorted(
                {**{e: at(e) for e in extra if e not in known}, **known}.values(), key=lambda p: p.epsilon
            )
            best, best_rank = PrivacyProfile(points, all_points, n, scale_bits, tight), rel
        if rel <= float(w) or acc.grid is not None or n >= acc.max_grid or not tight:
            break
        nxt = acc._next_grid(n, rel, float(w))
        if nxt <= n:
            break
        n = nxt
    assert best is not None
    return best


def _ends(value: Any, cap: Fraction | None = None) -> tuple[Fraction, Fraction]:
    """The exact ends of a PLD result's value (a Bracket), else its ball's ends rounded outward;
    clipped to ``[0, cap]`` (a delta is in [0, 1], an epsilon >= 0)."""
    from ..pld.discretize import arb_upper_fraction

    lo, up = getattr(value, "lo_exact", None), getattr(value, "up_exact", None)
    if not (isinstance(lo, Fraction) and isinstance(up, Fraction) and (lo, up) != (0, 0)):
        lo, up = -arb_upper_fraction(-value.ball), arb_upper_fraction(value.ball)
    lo, up = max(Fraction(0), lo), max(Fraction(0), up)
    return (lo, up) if cap is None else (min(lo, cap), min(up, cap))


def _rel(p: ProfilePoint) -> float:
    """The relative width of a point's bracket (a float: a choice of the grid only)."""
    up = float(p.upper)
    return (up - float(p.lower)) / up if up > 0 else 0.0


#: closed forms whose delta costs about 0.1 s (Laplace, :mod:`~rigorous_rdp.pld.laplace_exact`): this many
#: dense epsilons for the trade-off curve (a wider trade-off bracket, a few seconds instead of a minute)
_COSTLY = {"LaplaceComposition": 30}


def _exact_profile(
    acc: PldAccountant,
    cf: Any,
    epsilons: list[Fraction] | None,
    num: int,
    epsilon_max: Fraction | None,
    dense: int,
    width: Fraction,
) -> PrivacyProfile:
    """The profile of a ledger with a closed form: each epsilon answered exactly (no grid), to a
    relative accuracy that meets ``width`` (the closed form's precision cap permitting)."""
    enclose = getattr(cf, "enclose", None)  # Laplace: its own refinement to a number of bits
    # Laplace: 40 bits as its own default (each further bit costs; 6 digits are printed)
    bits = _bits(width, 40 if enclose is not None else 64)

    def at(e: Fraction) -> ProfilePoint:
        ball = enclose(e, bits) if enclose is not None else cf.delta_bits(e, bits).ball
        return _ball_point(e, ball, bits + 32)

    top = _ends(acc.get_epsilon_result(DEFAULT_DELTA_MIN).epsilon)[1]
    if epsilons is None:
        if epsilon_max is None:
            epsilon_max = _nice_step(max(top, Fraction(1, 1000)) / (num - 1)) * (num - 1)
        epsilons = [epsilon_max * k / (num - 1) for k in range(num)]
    points = [at(e) for e in epsilons]
    known = {p.epsilon: p for p in points}
    if dense > 0:
        # exact values cost milliseconds: a denser grid for the trade-off curve (but Laplace)
        dense = _COSTLY.get(type(cf).__name__, dense * EXACT_DENSE_FACTOR)
    extra = [top * k / dense for k in range(dense + 1)] if dense > 0 else []
    all_points = sorted({**{e: at(e) for e in extra if e not in known}, **known}.values(), key=lambda p: p.epsilon)
    return PrivacyProfile(points, all_points, 0, 0, True, exact=cf.description, closed_form=cf)


def width_report(points: list[ProfilePoint], width: Fraction) -> tuple[bool, float, Fraction | None]:
    """``(reached, largest, at)``: whether every bracket of a delta above 1e-9 has relative width
    ``(upper - lower)/upper <= width`` (decided in ball arithmetic; undecided counts as not
    reached), the largest relative width among them (a float, rounded up) and its epsilon."""
    from ..arith import workprec

    reached, largest, where = True, 0.0, None
    with workprec(64):
        w = _q(width)
        for p in points:
            if not float(p.upper) > 1e-9:
                continue
            if not (p.upper - p.lower) <= w * p.upper:
                reached = False
            r = _rel(p)
            if r > largest:
                largest, where = r, p.epsilon
    return reached, largest, where


# ---------------------------------------------------------------------------
# the trade-off curve
# ---------------------------------------------------------------------------


def _q(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _h(t: arb, delta: arb, x: arb) -> arb:
    r""":math:`g` at :math:`t = e^{\varepsilon}`: :math:`\max(0, 1 - \delta - t x, (1 - \delta - x)/t)` as a ball."""
    one = arb(1)
    return (one - delta - t * x).max((one - delta - x) / t).max(arb(0))


def tradeoff(points: list[ProfilePoint], x: Fraction) -> tuple[arb, arb]:
    r"""``(lower, upper)`` at false-positive rate ``x``: a certified f-DP guarantee and an upper
    bound on the envelope of the true profile (exact balls, rounded outward).

    With :math:`t = e^{\varepsilon}`, :math:`\delta` is a convex non-increasing function of t (a
    supremum of the affine functions :math:`P(S) - t\,Q(S)`), so on :math:`[t_i, t_{i+1}]` it lies
    above the line through its values at :math:`t_{i+1}, t_{i+2}`; with the brackets that line is
    at least :math:`\ell(t) = lo_{i+1} + \max(0, lo_{i+1} - up_{i+2}) (t_{i+1} - t)/(t_{i+2} - t_{i+1})`.
    :math:`g` decreases in :math:`\delta`, and with a linear :math:`\delta = \ell(t)` both of its
    terms are monotone in t (linear, and :math:`(a + bt)/t`), so the supremum over the interval
    is at an end.  Below the first epsilon the same line through the first two points is used,
    above the last one :math:`\delta \ge 0` (both terms then decrease in t).
    """
    from ..arith import workprec

    pts = sorted(points, key=lambda p: p.epsilon)
    with workprec(128):
        xb = _q(x)
        ts = [_q(p.epsilon).exp() for p in pts]
        los = [p.lower for p in pts]
        ups = [p.upper for p in pts]
        lo = arb(0)
        for t, u in zip(ts, ups, strict=True):
            lo = lo.max(_h(t, u, xb))

        def line_left(j: int, t: arb) -> arb:
            # a lower bound on delta at t <= t_j from the points j, j + 1 (lo_j alone if none)
            if j + 1 >= len(pts):
                return los[j]
            drop = (los[j] - ups[j + 1]).max(arb(0))
            return los[j] + drop * (ts[j] - t) / (ts[j + 1] - ts[j])

        up = _h(ts[-1], arb(0), xb)  # above the last epsilon: delta >= 0
        if pts[0].epsilon > 0:  # [0, first epsilon]
            up = up.max(_h(arb(1), line_left(0, arb(1)), xb)).max(_h(ts[0], los[0], xb))
        for i in range(len(pts) - 1):
            up = up.max(_h(ts[i], line_left(i + 1, ts[i]), xb)).max(_h(ts[i + 1], los[i + 1], xb))
        return _clip_pair(lo, up)


def _clip_pair(lo: arb, up: arb) -> tuple[arb, arb]:
    """Exact ends ``lower <= upper`` in [0, 1] enclosing the balls ``lo`` (of a lower bound) and
    ``up`` (of an upper bound), rounded outward."""
    zero, one = arb(0), arb(1)
    low = lo.lower().max(zero).min(one)
    high = up.upper().max(zero).min(one)
    return low, high.max(low)


def exact_tradeoff(cf: Any, x: Fraction, bits: int) -> tuple[arb, arb] | None:
    """The closed form's own trade-off curve at ``x`` (``cf.tradeoff``: the Gaussian's G_mu, the
    no-op's 1 - x) as exact ends rounded outward, or ``None`` where it has none or it cannot be
    certified (then the envelope of the profile answers)."""
    fn = getattr(cf, "tradeoff", None)
    if fn is None:
        return None
    from ..arith import workprec

    try:
        ball = fn(x, bits)
    except ArithmeticError:
        return None
    with workprec(bits + 32):
        return _clip_pair(ball, ball)


# ---------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------


def _dec(x: arb, up: bool) -> str:
    """The exact ball ``x`` rounded outward to ``SIG`` digits (through its logarithm when its
    exponent is huge: no power of ten of that size is built)."""
    from ..arith import decimal_lower, decimal_upper

    if x == 0:
        return "0"
    return decimal_upper(x, SIG) if up else decimal_lower(x, SIG)


def _pair(lo: arb, up: arb) -> dict[str, str]:
    return {"lower": _dec(lo, False), "upper": _dec(up, True)}


def _text(x: Fraction) -> str:
    """``x`` exactly: a decimal when it has one (the numbers here are typed decimals or round
    steps), else ``p/q``."""
    d = x.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return f"{x.numerator}/{x.denominator}"
    k = max(twos, fives)
    digits = str(abs(x.numerator) * 10**k // x.denominator).rjust(k + 1, "0")
    text = digits if k == 0 else (digits[:-k] + "." + digits[-k:]).rstrip("0").rstrip(".")
    return ("-" if x < 0 else "") + text


def run(args: argparse.Namespace) -> dict[str, Any]:
    from ..arith import round_decimal
    from ..pld.accountant import PldAccountant

    opts = _options(args)
    event = common.build_event(args)
    acc = PldAccountant(width=opts["width"]).compose(event, opts["steps"])
    cf = acc._closed_form() if acc._active() else None
    # a closed form with its own trade-off curve needs no dense epsilons but for the plot
    own_curve = cf is not None and getattr(cf, "tradeoff", None) is not None
    prof = privacy_profile(
        acc,
        opts.get("epsilons"),
        num=opts.get("num", 21),
        epsilon_max=opts.get("epsilon_max"),
        width=opts["width"],
        dense=0 if own_curve and args.plot is None else DENSE,
    )
    bits = _bits(opts["width"])
    rows, exact_rows = [], 0
    for x in opts["fprs"]:
        ends = exact_tradeoff(prof.closed_form, x, bits)
        exact_rows += ends is not None
        lo, up = ends if ends is not None else tradeoff(prof.dense, x)
        rows.append({"fpr": _text(x), "fnr": _pair(lo, up)})
    claims = {
        "delta": "bracket of the true optimal delta(epsilon) of the composition"
        + ("" if prof.tight else " (lower ends 0: the pairs only dominate this mechanism)"),
        "fnr_lower": "certified f-DP guarantee: every test at this false-positive rate has at least this"
        " false-negative rate",
        "fnr_upper": "upper bound on the trade-off curve implied by the true privacy profile (no"
        " (epsilon, delta) analysis of this composition gives more)",
    }
    pld: dict[str, Any] = (
        {"exact": prof.exact} if prof.exact else {"grid_width": f"1/{prof.grid}", "scale_bits": prof.scale_bits}
    )
    if exact_rows and exact_rows == len(rows):
        claims["fnr"] = "bracket of the exact trade-off curve of the composition (a closed form: " + (
            getattr(prof.closed_form, "tradeoff_description", "") + ")"
        )
        pld["tradeoff"] = "exact"
    reached, largest, where = width_report(prof.points, opts["width"])
    pld["requested_width"] = round_decimal(opts["width"], 17, up=False)  # a typed decimal: exact
    pld["width_reached"] = reached
    if not reached:
        pld["largest_relative_width"] = _dec(_largest(largest), True)
        pld["at_epsilon"] = _text(where) if where is not None else None
        pld["width_note"] = (
            "the closed form's working precision is capped; the brackets are certified all the same"
            if prof.exact
            else "the grid is capped by its cost (at most three grids, up to the largest grid); the brackets are"
            " certified all the same"
        )
    res: dict[str, Any] = {
        "profile": [{"epsilon": _text(p.epsilon), "delta": _pair(p.lower, p.upper)} for p in prof.points],
        "tradeoff": rows,
        "claims": claims,
        "steps": opts["steps"],
        "mechanism": common.mechanism_json(args),
        "method": "pld",
        "pld": pld,
    }
    if args.plot is not None:
        _plot(opts["plot"], prof, opts, res)
        res["plot"] = args.plot
    return res


def _largest(x: float) -> arb:
    """A float as an exact ball (for printing a float that only informs, rounded up)."""
    return arb(x)


def _plot(path: str, prof: PrivacyProfile, opts: dict[str, Any], res: dict[str, Any]) -> None:
    """Two panels: delta(eps) (log delta) and the trade-off curve (log false-positive rate),
    each with its certified band; the trade-off is drawn on a dense grid of rates."""
    from ._plot import pyplot, save_figure

    plt = pyplot()
    eps = [float(p.epsilon) for p in prof.dense]
    lo = [float(p.lower) for p in prof.dense]
    up = [float(p.upper) for p in prof.dense]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.4))
    floor = 1e-300
    ax1.fill_between(eps, [max(v, floor) for v in lo], [max(v, floor) for v in up], color="C0", alpha=0.3)
    ax1.plot(eps, [max(v, floor) for v in up], "C0-", lw=1.5, label="upper (certified guarantee)")
    ax1.plot(eps, [max(v, floor) for v in lo], "C1--", lw=1.2, label="lower (no smaller delta is true)")
    ax1.plot(
        [float(p.epsilon) for p in prof.points],
        [max(float(p.upper), floor) for p in prof.points],
        "C0o",
        ms=3.5,
        label="requested epsilons",
    )
    positive = [v for v in up if v > 0]
    if positive:
        ax1.set_yscale("log")
        ax1.set_ylim(max(min(positive) / 3, 1e-30), 1.5)
    ax1.set_xlabel(r"$\varepsilon$")
    ax1.set_ylabel(r"$\delta(\varepsilon)$")
    ax1.set_title(r"privacy profile $\delta(\varepsilon)$: certified bracket")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(loc="lower left")

    xs = [Fraction(10.0 ** (k / 20 - 6)) for k in range(0, 121)]  # 1e-6 ... 1 (exact values of the floats)
    bits = 64
    curve = [exact_tradeoff(prof.closed_form, x, bits) or tradeoff(prof.dense, x) for x in xs]
    fx = [float(x) for x in xs]
    # the trade-off as the ROC of the best test, TPR = 1 - FNR, on log-log axes (low FPR visible)
    tpr_up = [max(float(1 - a), 1e-12) for a, _ in curve]
    tpr_lo = [max(float(1 - b), 1e-12) for _, b in curve]
    ax2.fill_between(fx, tpr_lo, tpr_up, color="C2", alpha=0.3)
    ax2.plot(fx, tpr_up, "C2-", lw=1.5, label="certified: no test has a larger TPR")
    ax2.plot(fx, tpr_lo, "C3--", lw=1.2, label=r"lower: what no $(\varepsilon,\delta)$ analysis can exclude")
    ax2.plot(fx, fx, ":", color="gray", lw=1, label="TPR = FPR (random guessing)")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlim(1e-6, 1)
    ax2.set_ylim(max(min(tpr_lo) / 2, 1e-7), 1.5)
    ax2.set_xlabel("false-positive rate (type I error)")
    ax2.set_ylabel("true-positive rate = 1 - false-negative rate")
    ax2.set_title("trade-off curve as the ROC of the best test")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(loc="lower right")
    m = res["mechanism"]
    params = ", ".join(f"{k}={v}" for k, v in m.items() if k not in ("noise", "sampling", "adjacency") and v)
    fig.suptitle(
        f"{m['noise']} ({params}), sampling {m['sampling']}, {m['adjacency']}, T = {opts['steps']}"
        + ("  (PLD: closed form)" if "exact" in res["pld"] else f"  (PLD grid {res['pld']['grid_width']})")
    )
    fig.tight_layout()
    save_figure(fig, path)  # atomically: an interrupted run leaves no half plot


def text(args: argparse.Namespace, res: dict[str, Any]) -> str:
    lines = [f"privacy profile, {res['steps']} steps (certified bracket of the true optimal delta):"]
    lines.append(f"  {'epsilon':>10}  {'delta lower':>12}  {'delta upper':>12}")
    for row in res["profile"]:
        d = row["delta"]
        lines.append(f"  {row['epsilon']:>10}  {d['lower']:>12}  {d['upper']:>12}")
    if res["pld"].get("tradeoff") == "exact":
        lines.append(f"trade-off curve (bracket of the exact curve, {res['claims']['fnr'].split('(', 1)[1]}:")
    else:
        lines.append("trade-off curve (lower: certified f-DP guarantee; upper: best any (epsilon, delta) gives):")
    lines.append(f"  {'FPR':>10}  {'FNR lower':>12}  {'FNR upper':>12}")
    for row in res["tradeoff"]:
        f = row["fnr"]
        lines.append(f"  {row['fpr']:>10}  {f['lower']:>12}  {f['upper']:>12}")
    pld = res["pld"]
    if pld.get("width_reached") is False:
        lines.append(
            f"requested relative width {pld['requested_width']} of the delta brackets not reached: largest"
            f" {pld['largest_relative_width']} (at epsilon {pld['at_epsilon']}); {pld['width_note']}"
        )
    if "plot" in res:
        lines.append(f"plot written to {res['plot']}")
    return "\n".join(lines)
