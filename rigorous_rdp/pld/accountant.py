r"""Certified privacy-loss-distribution (PLD) accountant.

:class:`PldAccountant` composes events like :class:`rigorous_rdp.RdpAccountant` and
returns a two-sided certified bracket ``[lower, upper]`` of the *true optimal*
:math:`\varepsilon(\delta)` (or :math:`\delta(\varepsilon)`) of the composition of the
dominating pairs of its events.  For the Gaussian, Laplace, randomized response and
the Poisson-subsampled Gaussian the pairs are tight (attained by two neighbouring
datasets), so the bracket contains the optimal privacy parameter of the composed
mechanism itself.  FSwoR is accounted through pairs that only dominate it
(``DominatingPair.tight`` is False): its upper end is valid, and its lower end is reported as 0.

How the bracket is proven (each step in its module):

1. :mod:`~rigorous_rdp.pld.profiles`: the privacy profile of every single pair at the
   grid points, in ball arithmetic (closed forms in erfc / exp).
2. :mod:`~rigorous_rdp.pld.discretize`: a discrete pair on the grid :math:`\{k/N\}` that
   dominates (connect the dots) and one that is dominated (tangent-chord), masses
   rounded outward to integers at scale :math:`2^{-S}`.
3. :mod:`~rigorous_rdp.pld.compose`: exact integer convolution (``fmpz_poly``),
   repeated squaring, outward rescaling, tail moves and coarsenings of the growing
   arrays (every few squarings, to a grid twice as coarse) that keep both bounds.
4. Here: :math:`\delta` of the composed upper (lower) array at an exact rational
   :math:`\varepsilon` is an upper (lower) bound on the true :math:`\delta(\varepsilon)`
   (Fact 2 of ``discretize`` and Facts 4-6 of ``compose``); since the true
   :math:`\delta(\cdot)` is non-increasing, :math:`\delta_{up}(\varepsilon_u) \le \delta`
   proves :math:`\varepsilon(\delta) \le \varepsilon_u` and :math:`\delta_{lo}(\varepsilon_l) >
   \delta` proves :math:`\varepsilon(\delta) > \varepsilon_l`.

Add/remove adjacency has two dominating pairs ("remove" and "add"); the optimal
epsilon is the larger of the two (both orders of every neighbouring pair must be
covered), so the bracket is ``[max lower, max upper]``.  A direction whose upper end is
below the other direction's lower end changes neither end; it is then only computed on a
coarse grid (1/8 or 1/3 of the grid's points).

The grid width is chosen from the requested bracket width; only its *tightness*
depends on the choice, never its validity.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING, TypeVar

import numpy as np
from flint import arb

from .. import budget, progress, validation
from .. import events as ev
from ..accountant import ComposingAccountant
from ..errors import BudgetExceeded, InvalidParameter, UnsupportedEventError
from ..registry import pld_pair
from ..validation import RealRange
from .compose import Coarsening, compose_all, delta_at, delta_screen, products
from .discretize import DiscretePld, arb_upper_fraction, discretize
from .profiles import DominatingPair, Profile
from .results import Bracket, PldDeltaResult, PldEpsilonResult, PldResult, _as_bracket, _bracket

if TYPE_CHECKING:
    from .closed_form import ClosedForm

__all__ = ["DEFAULT_WIDTH", "Bracket", "PldAccountant", "PldDeltaResult", "PldEpsilonResult"]

#: default requested width of the epsilon bracket
DEFAULT_WIDTH = Fraction(1, 100)

#: the smallest delta accepted by ``get_epsilon`` (float screens underflow near 1e-300, and the
#: integer scale grows like log(1/delta): 1e-200 already takes minutes)
MIN_DELTA = Fraction(1, 10**100)

DIRECTIONS = ("remove", "add")

#: the loss variance per composed step (in units of the squared grid width) that the coarsening of the
#: growing upper arrays may add (:class:`~rigorous_rdp.pld.compose.Coarsening`; tightness and speed only):
#: about half of what the upper discretisation itself adds by the error model of ``_initial_grid``
COARSEN_VAR = 0.09
#: the same for the lower arrays (:func:`~rigorous_rdp.pld.compose.coarsen_down`), smaller: per unit of
#: variance their coarsening errs about ten times more.  The lower end only has to meet the requested width;
#: 0.03 instead of 0.01 keeps the default DP-SGD bracket's lower end within 1e-5 of where it was and takes a
#: fifth off the time at T = 1e6 (bracket width 0.0094 there instead of 0.0076; the upper end is unchanged)
COARSEN_VAR_LOWER = 0.03
#: the same at the largest grid (``max_grid``), and for the accountant of attained pairs, whose lower end is
#: the reported one (a dominating-only ledger, :meth:`PldAccountant._attained_accountant`)
COARSEN_VAR_LOWER_FINE = 0.01
#: the mass an epsilon query may move to +infinity in its tails and roundings (all steps and products
#: together), relative to delta: it raises the upper delta by at most this (the default DP-SGD run: the upper
#: epsilon by 1e-6; 1e-9 instead costs a third more time)
EPS_TAIL = 1e-5
#: vertices on every grid point only where the screened tails exceed this (sparser elsewhere:
#: :func:`~rigorous_rdp.pld.discretize.vertex_indices`; tightness and speed only: 1e-5 instead of 1e-9 moves the
#: default DP-SGD bracket's ends by about 1e-6 and saves a quarter of the discretisation)
VERTEX_THIN = 1e-5

#: how much finer than the requested width the attained pair of a dominating-only ledger is bracketed for the
#: lower end (:meth:`PldAccountant._with_lower_end`; tightness and time only).  Birrell et al. Fig. 3
#: (replace-one, fixed-size): lower end 0.98728 at the default width, 0.99091 with this (truth about 0.9917)
ATTAINED_REFINE = 10

#: the guard of the grid refinement of a delta query of pairs that only dominate (tightness only): a finer grid is
#: tried only if the last composed array's length times the refinement is at most this many entries (a
#: deterministic cost measure: the answer does not depend on the machine's speed or load).  The finer grid then
#: runs within :data:`REFINE_TIME_SHARE` of the time left in the budget in force; past it the best result so far
#: is returned (only a query that would otherwise run out of its budget depends on time)
DOMINATING_REFINE_LENGTH = 200_000
#: the share of the time left that a guarded finer grid may take (the rest stays for the lower end and the output)
REFINE_TIME_SHARE = 0.8

#: the noise multipliers of a sampled Gaussian whose pairs the grid handles (smaller ones make the privacy loss
#: too wide for a grid, larger ones too narrow: both end in float overflow or gigabytes)
PLD_NOISE = RealRange(Fraction(1, 10), Fraction(1000), "in [0.1, 1000] for the PLD accountant (a limit of its grid)")

#: the noise multiplier of a plain Gaussian (exact closed form; its profile is set up with floats)
PLD_PLAIN_NOISE = RealRange(
    Fraction(0), Fraction(10**300), "at most 1e300 for the PLD accountant (a limit of its float set-up)", lo_open=True
)
PLD_DELTA = RealRange(MIN_DELTA, Fraction(1), "in [1e-100, 1) for the PLD accountant", hi_open=True)
#: requested width of an epsilon bracket (relative width of a delta bracket)
PLD_WIDTH = RealRange(Fraction(0), Fraction(10), "in (0, 10]", lo_open=True)


_P = TypeVar("_P", bound=PldResult)
_R = TypeVar("_R")


def check_width(width: object) -> Fraction:
    return PLD_WIDTH.check(width, "width")


class PldAccountant(ComposingAccountant[DominatingPair]):
    r"""Certified PLD accountant (two-sided bracket of the optimal epsilon / delta).

    Args:
        width: default requested width of the epsilon bracket (:data:`DEFAULT_WIDTH`);
            for :meth:`get_delta`, the requested *relative* width of the delta bracket.
        grid: fix the grid (N, width 1/N) instead of choosing it from ``width``.
        max_grid: the largest N tried before giving up on the requested width (the
            bracket is then returned wider than requested, still valid).
        max_length: a cost cap: the grid is not refined beyond the N at which a composed
            array would exceed about this many coefficients (time and memory grow with
            it; mechanisms with a long loss range, e.g. sigma = 0.1, reach it early).
            The bracket is then returned wider than requested, still valid.
        exact: answer plain Gaussian and plain randomized-response ledgers from their closed
            forms (:mod:`~rigorous_rdp.pld.closed_form`, no grid) unless a ``grid`` is fixed.

    Example:
        >>> from rigorous_rdp import GaussianEvent, PoissonSampledEvent
        >>> from rigorous_rdp.pld import PldAccountant
        >>> acc = PldAccountant().compose(PoissonSampledEvent("0.01", GaussianEvent("1.1")), 1000)
        >>> res = acc.get_epsilon_result("1e-5")
        >>> 1.4 < res.epsilon.lower_float() <= res.epsilon.upper_float() < 1.6
        True
    """

    def __init__(
        self,
        *,
        width: object = DEFAULT_WIDTH,
        grid: int | None = None,
        max_grid: int = 20000,
        max_length: int = 1_000_000,
        exact: bool = True,
    ):
        self.width = check_width(width)
        self.exact = exact
        if grid is not None and (isinstance(grid, bool) or not isinstance(grid, int) or grid < 1):
            raise InvalidParameter("grid", "must be an integer >= 1", grid)
        self.grid = grid
        self.max_grid = int(max_grid)
        self.max_length = int(max_length)
        self._last_length = 0
        self._events: dict[ev.DpEvent, tuple[DominatingPair, int]] = {}
        self._cache: dict[tuple, tuple[DiscretePld, DiscretePld | None]] = {}
        self.last_tail_step = 0.0
        self.coarsen_var = COARSEN_VAR
        self.coarsen_var_lower = COARSEN_VAR_LOWER

    # -- composition ---------------------------------------------------------

    def _leaf(self, event: ev.DpEvent) -> DominatingPair | None:
        gaussian = getattr(event, "event", None)  # a sampled Gaussian takes the grid path
        if isinstance(gaussian, ev.GaussianEvent):
            PLD_NOISE.check(gaussian.noise_multiplier, "noise_multiplier")
        elif isinstance(event, ev.GaussianEvent):
            PLD_PLAIN_NOISE.check(event.noise_multiplier, "noise_multiplier")
        return pld_pair(event)

    def _add(self, new: dict[ev.DpEvent, tuple[DominatingPair, int]]) -> None:
        for leaf, (pair, c) in new.items():
            self._events[leaf] = (pair, self._events.get(leaf, (pair, 0))[1] + c)

    def _closed_form(self) -> ClosedForm | None:
        """The exact profile of the ledger (plain Gaussians, Laplace or randomized responses, and
        randomized responses under Poisson sampling), unless ``exact=False`` or a fixed grid asks
        for the grid path."""
        from .closed_form import closed_form_of
        from .two_point import two_point_of

        if not self.exact or self.grid is not None:
            return None
        ledger = [(e, c) for e, (_, c) in self._events.items() if c > 0]
        two = two_point_of(ledger) if ledger else None
        return two if two is not None else closed_form_of(ledger)

    def _tight(self) -> bool:
        """True if every composed pair is attained by the mechanism (lower ends valid)."""
        return all(pair.tight for pair, _ in self._active())

    def _active(self) -> list[tuple[DominatingPair, int]]:
        return [(p, c) for p, c in self._events.values() if c > 0]

    def _attained(self) -> bool:
        """True if the ledger's pairs only dominate but every one names an attained pair of the same
        datasets (``DominatingPair.attained``): composed, those give a lower end of the mechanism's."""
        active = self._active()
        keys = {pair.attained_key if pair.attained is not None else None for pair, _ in active}
        return not self._tight() and len(keys) == 1 and None not in keys and () not in keys

    def _lower_note(self, low_end: Fraction) -> str:
        """``PldResult.lower_end`` of a ledger whose pairs only dominate ("" for attained pairs)."""
        if self._tight():
            return ""
        if low_end > 0:
            return (
                "composition of the pair attained by one pair of neighbouring datasets (the pairs only dominate "
                "this mechanism: the gap to the upper end is not the grid's)"
            )
        if self._attained():
            return "0 (the pairs only dominate this mechanism, and the attained pair's lower end is 0 here)"
        return "0 (the pairs only dominate this mechanism and no attained pair is known for this ledger)"

    def _attained_accountant(self) -> PldAccountant:
        """An accountant of the ledger's attained pairs as attained (tight) pairs (:meth:`_attained`
        must hold): its brackets' lower ends are lower ends of the mechanism's optimal value.

        Its directions are the output pairs of the same two datasets D, D' in both roles ((D, D') and
        (D', D) are both neighbours), so its bracket's lower end, the larger of the two directions'
        (:meth:`_epsilon_at_grid`), is a lower end of the mechanism's optimal epsilon (delta)."""
        sub = PldAccountant(width=self.width, max_grid=self.max_grid, max_length=self.max_length, exact=False)
        # only its lower end is used: its lower arrays get the finer coarsening
        sub.coarsen_var_lower = COARSEN_VAR_LOWER_FINE
        for leaf, (pair, c) in self._events.items():
            if c > 0 and pair.attained is not None:
                sub._events[leaf] = (DominatingPair(*pair.attained), c)
        return sub

    def _with_lower_end(self, res: _P, lower: Callable[[PldAccountant], Fraction]) -> _P:
        """``res`` of pairs that only dominate, with the lower end ``lower(attained accountant)``
        (or 0 without attained pairs) and its note."""
        if self._tight():
            return res
        # the attained pair is queried ATTAINED_REFINE times finer than the main bracket: its lower end is
        # the reported one, and the gap to the dominating pair's upper end is not the grid's (cost: the
        # grid grows by about sqrt(ATTAINED_REFINE), capped by max_grid and max_length as any query)
        low = lower(self._attained_accountant()) if self._attained() else Fraction(0)
        up = _as_bracket(res.value).up_exact
        return replace(res, value=_bracket(min(low, up), up), lower_end=self._lower_note(low))

    # -- grids ----------------------------------------------------------------

    def _parts(self, direction: str, attained: bool = False) -> list[tuple[Profile, int]]:
        merged: dict[tuple, tuple[Profile, int]] = {}
        for pair, c in self._active():
            att = pair.attained if attained else None
            prof = getattr(pair, direction) if att is None else att[DIRECTIONS.index(direction)]
            p, k = merged.get(prof.key, (prof, 0))
            merged[prof.key] = (p, k + c)
        return list(merged.values())

    def _directions(self) -> tuple[str, ...]:
        """Both directions, or only "remove" when every pair is symmetric (same profile)."""
        if all(pair.remove.key == pair.add.key for pair, _ in self._active()):
            return ("remove",)
        return DIRECTIONS

    def _composed(
        self, direction: str, n: int, tail_abs: float, lower: bool = True, fast: bool = False
    ) -> tuple[DiscretePld, DiscretePld | None, int, Fraction]:
        """Composed (upper, lower) PLDs of one direction on grid 1/n (lower only if asked).

        ``fast`` (the epsilon queries): sparser vertices where the tails are small and the
        growing arrays coarsened (:class:`~rigorous_rdp.pld.compose.Coarsening`); both cost
        tightness only around epsilon(delta) of moderate delta, which the error model covers.
        Without it (delta queries and profiles, whose relative accuracy reaches deep tails)
        every array stays on the grid 1/n."""
        ups, los, scale_bits, comp_tail = self._discretized(direction, n, tail_abs, lower, fast)
        coarse_up = Coarsening(n, self.coarsen_var) if fast else None
        # at the largest grid no finer grid can win back the lower end's width: the finer coarsening there
        var_lo = self.coarsen_var_lower if n < self.max_grid else min(self.coarsen_var_lower, COARSEN_VAR_LOWER_FINE)
        coarse_lo = Coarsening(n, var_lo) if fast else None
        total = products([c for _, c in ups]) + (products([c for _, c in los]) if los is not None else 0)
        with progress.task(f"PLD composition ({direction}, grid 1/{n})", total, "products") as task:
            U = compose_all(ups, comp_tail, task.update, coarsening=coarse_up)
            self._last_length = max(self._last_length, U.coeffs.length())
            # without a certified lower PLD for some component the lower bound is the
            # trivial one (returned as None: delta >= 0, epsilon >= 0)
            L = compose_all(los, comp_tail, task.update, coarsening=coarse_lo) if los is not None else None
        return U, L, scale_bits, comp_tail

    def _discretized(
        self, direction: str, n: int, tail_abs: float, lower: bool = True, fast: bool = False, attained: bool = False
    ) -> tuple[list[tuple[DiscretePld, int]], list[tuple[DiscretePld, int]] | None, int, Fraction]:
        """The discretised parts ``(uppers, lowers or None, scale_bits, composition tail)``
        of one direction on grid 1/n (lowers only if asked and certified for every part;
        ``fast``: sparser vertices, see :meth:`_composed`; ``attained``: of the attained pairs)."""
        parts = self._parts(direction, attained)
        total = sum(c for _, c in parts)
        products = sum(2 * max(1, c.bit_length()) + 1 for _, c in parts)
        tail_step = tail_abs / max(1, total) / 4
        self.last_tail_step = tail_step
        comp_tail = Fraction(tail_abs / 4 / products)
        # one unit of 2^-S per coefficient of every product goes to +infinity (upper arrays), and the
        # squarings repeat a product of k copies about total/k times: about 2 * total * length units
        # in all; with a generous length of 1e5 that is at most a quarter of the tail budget
        scale_bits = max(48, math.ceil(math.log2(8e5 * total / tail_abs)) + 1)
        ups: list[tuple[DiscretePld, int]] = []
        los: list[tuple[DiscretePld, int]] = []
        lower_ok = lower
        for prof, c in parts:
            thin = VERTEX_THIN if fast else 1e-9
            key = (prof.key, n, scale_bits, tail_step, lower, thin)
            if key not in self._cache:
                self._cache[key] = _discretize(prof, n, scale_bits, tail_step, thin=thin, lower=lower)
            u, lo_pld = self._cache[key]
            ups.append((u, c))
            if lo_pld is None:
                lower_ok = False
            else:
                los.append((lo_pld, c))
        return ups, (los if lower_ok else None), scale_bits, comp_tail

    def _initial_grid(self, width: Fraction, delta: float = 1e-5) -> int:
        r"""A first grid from an error model (a choice only; validity never depends on it).

        Both discretisations perturb each step's loss by a second-order amount, so the
        composed loss variance :math:`\mu^2 = \sum_k T_k \mathrm{Var}_k` moves by about
        :math:`c\,T h^2`; for a Gaussian-like composition
        :math:`d\varepsilon/d\mu^2 \approx z/(2\mu) + 1/2` with :math:`z = \Phi^{-1}(1-\delta)`.
        The constant c = 0.53 is calibrated on the Poisson-subsampled Gaussian
        (q = 0.01, sigma = 1.1, T = 1e4: width 0.0128 at h = 1e-3)."""
        if self.grid is not None:
            return self.grid
        active = self._active()
        total = sum(c for _, c in active)
        # the float screen's variance where the grid does not move within a relative 1e-5 of it (then it is
        # the grid of the certified coarse arrays too: their variance differs from the screen's by less than
        # 1e-7 relative, the upward rounding of their masses included); otherwise the certified arrays'
        screened = [_screened_variance(pair.remove) for pair, _ in active]
        if all(v is not None for v in screened):
            var = 0.0
            for (_, c), v in zip(active, screened, strict=True):
                var += c * v  # type: ignore[operator]
            near = {_grid_of_variance(var * f, total, width, delta, self.max_grid) for f in (1 - 1e-5, 1, 1 + 1e-5)}
            if len(near) == 1:
                return near.pop()
        var = 0.0
        for pair, c in active:
            u, _ = self._coarse(pair.remove)
            var += c * _array_variance(u)
        return _grid_of_variance(var, total, width, delta, self.max_grid)

    def _next_grid(self, n: int, got: float, w: float) -> int:
        """The refined grid after a bracket of width ``got`` on grid ``n`` (a choice only):
        the error model's N, capped by ``max_grid`` and by the cost cap ``max_length``
        (composed arrays grow linearly in N)."""
        nxt = min(self.max_grid, math.ceil(n * math.sqrt(got / (0.8 * w))) + 1)
        if self._last_length > 0:
            cap = int(n * self.max_length / self._last_length)
            if cap < nxt:
                # limited by the cost cap: refine only if that still gains something
                nxt = cap if cap >= n * 5 // 4 else n
        return nxt

    def _coarse(self, prof: Profile) -> tuple[DiscretePld, DiscretePld | None]:
        key = (prof.key, 100, 48, 1e-12, False)
        if key not in self._cache:
            self._cache[key] = _discretize(prof, 100, 48, 1e-12, lower=False)
        return self._cache[key]

    # -- epsilon --------------------------------------------------------------

    def get_epsilon_result(self, target_delta: object, width: object = None) -> PldEpsilonResult:
        """Certified bracket of the optimal epsilon at ``target_delta``.

        Raises:
            ValueError: if delta is outside (0, 1) or width outside (0, 10].
        """
        delta = validation.unit_interval(target_delta, "target_delta", open_low=True, open_high=True)
        # the tail budgets and the range screens are floats (choices only); below
        # MIN_DELTA they underflow, so refuse rather than fail deep inside
        PLD_DELTA.check(delta, "target_delta")
        w = self.width if width is None else check_width(width)
        if not self._active():  # every step a no-op (q = 0): delta = 0, epsilon = 0, no grid
            from .closed_form import NULL

            exact = NULL.epsilon_result(delta, w) if self.exact and self.grid is None else None
            return exact or PldEpsilonResult(_bracket(Fraction(0), Fraction(0)), delta, 1, 0, Fraction(0))
        if (cf := self._closed_form()) is not None and (exact := cf.epsilon_result(delta, w)) is not None:
            return exact
        tail_abs = float(delta) * EPS_TAIL
        n = self._initial_grid(w, float(delta))

        def at_grid(n: int) -> tuple[PldEpsilonResult, float, float]:
            res, pair_width = self._epsilon_at_grid(delta, n, tail_abs)
            # a pair that only dominates is refined by its own bracket (its lower end is not reported)
            return res, pair_width, res.width()

        res = self._best_over_grids(n, float(w), at_grid, refine_dominating=True)
        return self._with_lower_end(
            res, lambda sub: _as_bracket(sub.get_epsilon_result(delta, w / ATTAINED_REFINE).epsilon).lo_exact
        )

    def _best_over_grids(
        self,
        n: int,
        w: float,
        at_grid: Callable[[int], tuple[_P, float, float]],
        refine_dominating: bool = False,
        guard: bool = False,
    ) -> _P:
        """The best result over up to four grids, from 1/n on: ``at_grid(n)`` gives a result, the
        width it reached (compared with the requested ``w``) and its rank (smaller is better).  The
        grid is refined only while the requested width is not met, the grid is free and every pair
        is attained (lower ends valid) or ``refine`` (the width is then the pairs' own).  ``guard``:
        a finer grid only if its array stays within :data:`DOMINATING_REFINE_LENGTH` (:func:`_affordable`, a
        deterministic rule), run within :data:`REFINE_TIME_SHARE` of the budget left (:func:`_within_share`);
        tightness only: past either the best result so far is returned."""
        best: tuple[_P, float] | None = None
        for attempt in range(4):
            self._last_length = 0
            if guard and attempt > 0:
                got_res = _within_share(functools.partial(at_grid, n))
                if got_res is None:
                    break
                res, got, rank = got_res
            else:
                res, got, rank = at_grid(n)
            if best is None or rank < best[1]:
                best = (res, rank)
            if got <= w or self.grid is not None or n >= self.max_grid or not (refine_dominating or self._tight()):
                break
            nxt = self._next_grid(n, got, w)
            if nxt <= n or (guard and not _affordable(nxt / n, self._last_length)):
                break
            n = nxt
        assert best is not None
        return best[0]

    def _epsilon_at_grid(self, delta: Fraction, n: int, tail_abs: float) -> tuple[PldEpsilonResult, float]:
        """The bracket on grid 1/n, and the width of the pairs' own bracket (the same unless a pair only
        dominates: then the reported lower end is 0, and the pairs' one only guides the grid)."""
        dirs = self._directions()
        tight = self._tight()
        brackets: dict[str, tuple[Bracket, int]] = {}
        los: dict[str, Fraction] = {}
        ups: dict[str, Fraction] = {}
        scale_bits, tail = 0, Fraction(0)
        # "remove" first: it dominates the usual sampled ledgers (a wrong guess costs time only)
        for d in dirs:
            if los and self._bounded_coarsely(d, n, tail_abs, delta, max(los.values()), ups, brackets):
                continue
            U, L, scale_bits, tail = self._composed(d, n, tail_abs, fast=True)
            up = _eps_upper(U, n, delta)
            lo = _eps_lower(L, n, delta) if L is not None else Fraction(0)
            ups[d], los[d] = up, lo
            brackets[d] = (_bracket(lo if tight else Fraction(0), up), n)
        lo = max(los.values())
        up = max(ups.values())
        res = PldEpsilonResult(_bracket(lo if tight else Fraction(0), up), delta, n, scale_bits, tail, brackets)
        return res, float(up - lo)

    def _bounded_coarsely(
        self,
        d: str,
        n: int,
        tail_abs: float,
        delta: Fraction,
        below: Fraction,
        ups: dict[str, Fraction],
        brackets: dict[str, tuple[Bracket, int]],
    ) -> bool:
        """True (with the entries of ``d`` set) if a proven upper end of direction ``d`` on a coarse
        grid (1/8, then 1/3 of n's points) is at most ``below``, a proven lower end of another
        direction: then ``d`` changes neither end of the bracket (its epsilon, and so its lower
        end, is at most ``below``; its upper end is below the other's)."""
        for n_coarse in sorted({max(50, n // 8), max(50, n // 3)}):
            U, _, _, _ = self._composed(d, n_coarse, tail_abs, lower=False, fast=True)
            coarse = _eps_upper(U, n_coarse, delta)
            if coarse <= below:
                ups[d] = coarse
                brackets[d] = (_bracket(Fraction(0), coarse), n_coarse)
                return True
        return False

    def get_epsilon(self, target_delta: object, width: object = None) -> Bracket:
        """Certified bracket ``[lower, upper]`` of the optimal epsilon at ``target_delta``."""
        return _as_bracket(self.get_epsilon_result(target_delta, width).epsilon)

    # -- delta ----------------------------------------------------------------

    def get_delta_result(self, target_epsilon: object, width: object = None) -> PldDeltaResult:
        """Certified bracket of the optimal delta at ``target_epsilon`` (``width`` is the
        requested relative width of the delta bracket)."""
        eps = validation.nonnegative(target_epsilon, "target_epsilon")
        w = self.width if width is None else check_width(width)
        if not self._active():  # every step a no-op (q = 0): delta = 0, no grid
            from .closed_form import NULL

            if self.exact and self.grid is None:
                return NULL.delta_result(eps)
            return PldDeltaResult(_bracket(Fraction(0), Fraction(0)), eps, 1, 0, Fraction(0))
        if (cf := self._closed_form()) is not None:
            return cf.delta_result(eps)
        n = self._initial_grid(w, 1e-5)
        tail_abs = 1e-30

        tight = self._tight()
        # pairs that only dominate: their own lower end (not reported) guides the grid, as for epsilon; the
        # refinement is guarded by its array's length and runs within a share of the budget left (a finer grid is
        # tightness only)
        own = not tight and self.grid is None

        def at_grid(n: int) -> tuple[PldDeltaResult, float, float]:
            dirs: dict[str, tuple[Bracket, int]] = {}
            lo_all, up_all = Fraction(0), Fraction(0)
            scale_bits, tail = 0, Fraction(0)
            for d in self._directions():
                U, L, scale_bits, tail = self._composed(d, n, tail_abs, lower=tight or own)
                lo = delta_lower(L, n, eps) if L is not None else Fraction(0)
                up = _delta_upper(U, n, eps)
                dirs[d] = (_bracket(lo if tight else Fraction(0), up), n)
                lo_all, up_all = max(lo_all, lo), max(up_all, up)
            res = PldDeltaResult(_bracket(lo_all if tight else Fraction(0), up_all), eps, n, scale_bits, tail, dirs)
            # relative width; an upper end within the tail budget is at the floor of every grid (the mass moved
            # to infinity), so a finer grid cannot narrow it: met (epsilon far beyond the losses, e.g. 1e6)
            rel = float(up_all - lo_all) / float(up_all) if up_all > tail_abs else 0.0
            return res, rel, float(res.delta.rad())

        res = self._best_over_grids(n, float(w), at_grid, refine_dominating=own, guard=own)
        return self._with_lower_end(
            res, lambda sub: _as_bracket(sub.get_delta_result(eps, w / ATTAINED_REFINE).delta).lo_exact
        )

    def get_delta(self, target_epsilon: object, width: object = None) -> Bracket:
        """Certified bracket ``[lower, upper]`` of the optimal delta at ``target_epsilon``."""
        return _as_bracket(self.get_delta_result(target_epsilon, width).delta)


# ---------------------------------------------------------------------------
# certified epsilon search on one composed array
# ---------------------------------------------------------------------------


def _array_variance(u: DiscretePld) -> float:
    """The float variance of the loss of an array on the grid 1/100 (:meth:`PldAccountant._initial_grid`)."""
    cc = np.array([float(x) for x in u.coeffs.coeffs()]) * 2.0 ** (-u.scale_bits)
    return _variance_of(cc, u.offset)


def _variance_of(cc: np.ndarray, offset: int) -> float:
    ls = (offset + np.arange(len(cc))) / 100
    tot = float(np.sum(cc))
    m = float(np.sum(cc * ls)) / tot
    return float(np.sum(cc * (ls - m) ** 2)) / tot


#: profile families whose float screens are closed forms (math.erfc and exp), so that :func:`_screened_variance`
#: is within 1e-7 (relative) of the certified coarse array's variance (measured over q in [0.001, 1] and sigma in
#: [0.3, 20]: at most 8e-8, mostly the upward rounding of the certified masses at 2^-48)
_SCREENED = ("poisson-gaussian", "gaussian")


def _screened_variance_of(prof: Profile) -> float | None:
    from .discretize import grid_range, vertex_indices

    b, t = grid_range(prof, 100, 1e-12)
    grid = vertex_indices(prof, 100, b, t, 1e-9)
    vals = [prof.screen_delta(i / 100) for i in grid]
    xs = [math.exp(i / 100) for i in grid]
    slopes = [(vals[0] - 1) / xs[0]]
    for k in range(len(grid) - 1):
        slopes.append((vals[k + 1] - vals[k]) / (xs[k + 1] - xs[k]))
    slopes.append(0.0)
    cc = np.zeros(t - b + 1)
    for k, i in enumerate(grid):
        cc[i - b] = max(0.0, xs[k] * (slopes[k + 1] - slopes[k]))
    if not np.all(np.isfinite(cc)) or float(np.sum(cc)) <= 0:
        return None
    var = _variance_of(cc, b)
    # the certified masses are rounded up to units of 2^-48: their variance may differ by about (vertices) 2^-48
    # (spread)^2, which must stay far below the 1e-5 of _initial_grid (else: the certified arrays)
    spread = (t - b) / 100
    if not var > 0 or len(grid) * 2.0**-48 * spread * spread > 1e-8 * var:
        return None
    return var


def _screened_variance(prof: Profile) -> float | None:
    r"""A float estimate of the loss variance of the coarse upper array of :meth:`PldAccountant._coarse` (grid
    1/100) from the profile's float screen at the same vertices instead of the certified oracle, or None when
    the profile's screen is not one of :data:`_SCREENED`.  A choice of grid only (validity never depends on
    it): :meth:`PldAccountant._initial_grid` uses it only where the grid is the same within a relative 1e-5 of
    it, and the certified path otherwise (a poor screen could only move the grid, never a bound)."""
    if not prof.key or prof.key[0] not in _SCREENED or getattr(prof, "grid_plds", None) is not None:
        return None
    return _screened_variance_of(prof)


def _grid_of_variance(var: float, total: int, width: Fraction, delta: float, max_grid: int) -> int:
    """The grid of :meth:`PldAccountant._initial_grid` for a composed loss variance ``var`` of ``total`` steps."""
    from statistics import NormalDist

    if var <= 0 or total == 0:
        return 200
    mu = math.sqrt(var)
    # upper quantile via the lower one (1 - delta rounds to 1.0 below 1e-16)
    z = -NormalDist().inv_cdf(min(max(delta, 1e-300), 0.5))
    slope = z / (2 * mu) + 0.5
    h2 = 0.75 * float(width) / (0.53 * total * slope)
    n = math.ceil(1.0 / math.sqrt(max(h2, 1e-14)))
    return max(50, min(max_grid, n))


def _affordable(ratio: float, length: int) -> bool:
    """True if a grid ``ratio`` times finer has an array of about ``length * ratio`` entries, at most
    :data:`DOMINATING_REFINE_LENGTH` (a deterministic rule: no measured time enters it, so the answer does not
    depend on the machine's load)."""
    return length * ratio <= DOMINATING_REFINE_LENGTH


def _within_share(run: Callable[[], _R]) -> _R | None:
    """``run()`` within :data:`REFINE_TIME_SHARE` of the time left in the budget in force (all of it without a
    budget), or None if that share ran out first (the budget in force itself is then not exhausted: the caller
    keeps what it has; when the budget in force runs out too, its :class:`~rigorous_rdp.errors.BudgetExceeded`
    propagates).  A safety net for short budgets only: a query that finishes within the share never depends
    on time."""
    left = budget.remaining()
    if not math.isfinite(left):
        return run()
    try:
        with budget.time_budget(max(1e-3, left * REFINE_TIME_SHARE)):
            return run()
    except BudgetExceeded:
        if budget.expired() or budget.remaining() <= 0:
            raise
        return None


def _discretize(
    prof: Profile, n: int, scale_bits: int, tail: float, *, thin: float = 1e-9, lower: bool = True
) -> tuple[DiscretePld, DiscretePld | None]:
    """:func:`~rigorous_rdp.pld.discretize.discretize`, or the profile's own grid construction when it
    has one (``grid_plds``: random allocation, :mod:`~rigorous_rdp.pld.random_allocation`)."""
    own = getattr(prof, "grid_plds", None)
    if own is not None:
        got: tuple[DiscretePld, DiscretePld | None] = own(n, scale_bits, tail, lower)
        return got
    try:
        return discretize(prof, n, scale_bits, tail, thin=thin, lower=lower)
    except OverflowError:
        # a loss range beyond the floats (e.g. Laplace at scale 1e-1000): no grid can hold it
        exc = UnsupportedEventError(
            "the PLD accountant cannot discretise this pair: its privacy loss spans more than the float "
            "range (use the RDP accountant)."
        )
        exc.reason = "its privacy loss spans more than the float range"  # type: ignore[attr-defined]
        raise exc from None


def _arb_lower_frac(x: arb) -> Fraction:
    return -arb_upper_fraction(-x)


def _delta_upper(U: DiscretePld, n: int, eps: Fraction) -> Fraction:
    """A rational upper bound on the true delta at ``eps`` (from the upper PLD)."""
    return min(Fraction(1), max(Fraction(0), arb_upper_fraction(delta_at(U, n, eps))))


def delta_lower(L: DiscretePld, n: int, eps: Fraction) -> Fraction:
    """A rational lower bound on the true delta at ``eps`` (from the lower PLD)."""
    return max(Fraction(0), _arb_lower_frac(delta_at(L, n, eps)))


def screen_crossing(losses: np.ndarray, A: np.ndarray, B: np.ndarray, delta: float, ref: float = 0.0) -> float:
    """Float estimate (a screen, not a bound) of the epsilon where a discrete PLD's delta equals ``delta``.

    ``losses`` is the increasing grid of privacy losses; ``A[k]`` and ``B[k]`` are the float tail sums
    ``P(L > losses[k])`` and ``E[exp(ref - L); L > losses[k]]``, so that
    ``delta(eps) = A[k] - exp(eps - ref) B[k]`` for ``eps`` in ``[losses[k], losses[k + 1])``.  Returns the
    first grid loss whose delta is ``<= delta``, refined inside the cell before it by solving
    ``A - exp(eps - ref) B = delta`` (clipped to that cell); the ends of the grid when no cell crosses.
    Used by :meth:`PldAccountant.get_epsilon` (``ref = 0``) and the PLD calibration's FFT screen.
    """
    with np.errstate(all="ignore"):
        d = A - np.exp(losses - ref) * B  # delta at the grid points (eps = loss_k)
    idx = np.nonzero(d <= delta)[0]
    if len(idx) == 0:
        return float(losses[-1])
    k = int(idx[0])
    if k == 0:
        return float(losses[0])
    a, b = A[k - 1], B[k - 1]
    if not (b > 0) or a <= delta:
        return float(losses[k])
    # log of the ratio as a difference of logs: (a - delta) / b overflows for a tiny b
    return float(min(losses[k], max(losses[k - 1], ref + (math.log(float(a) - delta) - math.log(float(b))))))


def _screen_eps(P: DiscretePld, n: int, delta: float) -> float:
    """Float estimate of the epsilon where the array's delta equals ``delta``."""
    losses, A, B = delta_screen(P, n)
    return screen_crossing(losses, A, B, delta)


def _eps_upper(U: DiscretePld, n: int, delta: Fraction) -> Fraction:
    """Smallest rational found with a certified ``delta_up(eps) <= delta`` (>= 0)."""
    if _delta_upper(U, n, Fraction(0)) <= delta:
        return Fraction(0)
    if U.inf_mass >= delta:
        # no finite epsilon: a pair built on the grid (random allocation) bounds its tails only down to
        # a floor, and a delta at or below it cannot be met
        exc = UnsupportedEventError(
            f"the PLD accountant cannot resolve delta {float(delta):.3g} for this event: its upper array keeps "
            f"a mass of {float(U.inf_mass):.3g} at infinite loss (use a larger delta or the RDP accountant)."
        )
        exc.reason = f"delta is below its arrays' floor ({float(U.inf_mass):.2g} at infinite loss)"  # type: ignore[attr-defined]
        raise exc
    guess = _screen_eps(U, n, float(delta))
    margin = 1e-9
    for _ in range(40):
        cand = Fraction(math.ceil((guess + margin) * 1e9), 10**9)
        if cand > 0 and _delta_upper(U, n, cand) <= delta:
            return cand
        margin *= 4
    raise ArithmeticError("pld: could not certify an upper epsilon (delta below the array's resolution)")


def _eps_lower(L: DiscretePld, n: int, delta: Fraction) -> Fraction:
    """Largest rational found with a certified ``delta_lo(eps) > delta`` (or 0)."""
    guess = _screen_eps(L, n, float(delta))
    margin = 1e-9
    for _ in range(40):
        cand = Fraction(math.floor((guess - margin) * 1e9), 10**9)
        if cand <= 0:
            return Fraction(0)
        if delta_lower(L, n, cand) > delta:
            return cand
        margin *= 4
    return Fraction(0)
