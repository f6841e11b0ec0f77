r"""Noise calibration with the certified PLD bracket.

:func:`calibrate_sigma_pld` returns the smallest noise multiplier on the grid of
numbers with ``sigma_digits`` significant digits whose certified PLD epsilon (upper
end of the bracket) is ``<= target_epsilon``, and the next smaller grid value, for
which the *lower* end of the bracket is ``> target_epsilon``.  Because the PLD
bracket encloses the true optimal epsilon, the second statement is stronger than
in the RDP calibration: at that sigma the mechanism itself (its tight dominating
pairs) does **not** satisfy (target_epsilon, delta)-DP, under any accounting.

The true optimal epsilon is non-increasing in sigma (a larger sigma is a
post-processing of a smaller one: add independent Gaussian noise), so the two
grid points bracket the transition.

How the work is shared between candidates:

1. *Float screen* (a guess only): :func:`float_epsilon` composes a connect-the-dots
   discretisation of every pair in floating point (one FFT raised to the number of
   steps) and a bisection in sigma on it gives the grid point where the transition is
   expected.  Nothing certified is computed in this phase.
2. *Certified decisions, one end each*: at the upper candidate only the upper end of
   the bracket is needed (it must be ``<= E``), at the lower candidate only the lower
   end (it must be ``> E``); each is computed alone, on the grid the error model asks
   for (the distance of the float estimate to the target sets the needed accuracy),
   and refined only while undecided.  When a decision fails the other end of the same
   candidate is computed; if it proves the candidate on the wrong side of the target,
   the pair moves one grid step (monotone bracketing), otherwise the grid is refined.

Pairs built on the grid (random allocation, :mod:`~rigorous_rdp.pld.random_allocation`) cost
most in their sum laws (one per sigma and end), so:

* the float screen uses a float twin of the sum law (one FFT power of the split log-normal,
  :func:`~rigorous_rdp.pld.random_allocation.float_loss_masses`): no certified work before the
  decisions;
* a "misses" decision builds only the lower sum law, a "meets" decision only the upper one; the
  other ends of the two reported brackets (they decide nothing) and the error model's first grid
  use sum laws on a coarser grid (valid, looser);
* one coordinate's far tail is kept on sparse vertices (:func:`~rigorous_rdp.pld.random_allocation.sparse_tail`);
* the sum law's own grid bounds how narrow a bracket gets, so sigma digits whose candidates the
  screen puts closer to the target than that floor are skipped without certified work, and a
  decision whose end stops moving with the loss grid gives up early (then one digit fewer, down
  to 2);
* k > 1: the blocks' pair only dominates the mechanism, so sigma.lower is proven not to meet the
  target under the same accounting (that pair's optimal epsilon exceeds it), as in the RDP
  calibration, and the mechanism's lower ends are reported as 0.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import progress, validation
from ..errors import InvalidParameter, PrecisionExhausted, UnsupportedEventError
from ..events import DpEvent
from .accountant import (
    EPS_TAIL,
    PLD_NOISE,
    PldAccountant,
    PldEpsilonResult,
    _bracket,
    _eps_lower,
    _eps_upper,
    check_width,
    screen_crossing,
)
from .compose import Coarsening, compose_all, products
from .discretize import grid_range
from .profiles import Profile, poisson_gaussian_profile
from .random_allocation import coarse_sum_grid, float_loss_masses, lower_only, sparse_tail

__all__ = ["PldSigmaCalibration", "calibrate_sigma_pld", "float_epsilon"]


@dataclass(frozen=True)
class PldSigmaCalibration:
    """Result: ``sigma_upper`` meets the target (certified), ``sigma_lower`` (one grid
    step below) provably does not (the lower end of its bracket exceeds the target)."""

    sigma_upper: Fraction
    sigma_lower: Fraction
    at_upper: PldEpsilonResult
    at_lower: PldEpsilonResult
    #: the significant digits of sigma decided (fewer than asked when a grid-built pair's floor kept
    #: the decision open at the requested digits); 0 when not recorded
    sigma_digits: int = 0
    #: pairs that only dominate (random allocation, k > 1): a certified lower end of the optimal epsilon of
    #: the dominating pair at ``sigma_lower`` (above the target: sigma_lower does not meet it under the same
    #: accounting; the mechanism's own epsilon may be lower); None for tight pairs
    pair_lower_at_lower: Fraction | None = None

    def to_json(self) -> dict:
        out = {
            "sigma": {"lower": decimal_text(self.sigma_lower), "upper": decimal_text(self.sigma_upper)},
            **({"sigma_digits": self.sigma_digits} if self.sigma_digits else {}),
            "method": "pld",
            "epsilon_at_sigma": self.at_upper.to_json(),
            "epsilon_at_lower": self.at_lower.to_json(),
        }
        if self.pair_lower_at_lower is not None:
            out["dominating_pair_epsilon_at_lower"] = {"lower": _dec_down(self.pair_lower_at_lower)}
            out["claim"] = DOMINATING_CLAIM
        return out


#: the claim of a calibration through pairs that only dominate the mechanism
DOMINATING_CLAIM = (
    "sigma.upper meets the target under the certified PLD upper end; sigma.lower does not under the same "
    "accounting (the dominating pair's optimal epsilon exceeds the target)"
)


def _dec_down(x: Fraction) -> str:
    """A decimal of 9 significant digits rounded down (a certified lower end stays one)."""
    if x <= 0:
        return "0"
    e = math.floor(math.log10(x)) - 8
    q = Fraction(10) ** e
    return decimal_text(Fraction(math.floor(x / q)) * q)


def decimal_text(x: Fraction) -> str:
    from ..calibrate import decimal_text as dec

    return dec(x)


def _grid_step(x: float, digits: int) -> Fraction:
    e = math.floor(math.log10(x)) - digits + 1
    return Fraction(10) ** e


# ---------------------------------------------------------------------------
# float screen (guesses only: nothing here is certified)
# ---------------------------------------------------------------------------


def _float_masses(profile: Profile, n: int, tail: float) -> tuple[int, np.ndarray, float]:
    """Float connect-the-dots masses of one pair on the grid 1/n: ``(first index, masses,
    mass at +infinity)``.  The masses are second differences of the profile, taken on
    whichever of ``delta`` and ``dlow`` (they differ by the linear ``1 - e^eps``, which has
    no second difference) is smaller at the vertex, so the small tail masses keep their
    relative accuracy.  An estimate: negative rounding residues are clipped to 0."""
    if getattr(profile, "grid_plds", None) is not None:
        return _grid_masses(profile, n, tail)
    b, t = grid_range(profile, n, tail)
    idx = np.arange(b, t + 1)
    eps = idx / n
    if profile.screen_arrays is not None:
        dl, lw = profile.screen_arrays(eps)
    else:
        dl = np.array([profile.screen_delta(float(e)) for e in eps])
        lw = np.array([profile.screen_dlow(float(e)) for e in eps])
    x = np.exp(eps)
    m = len(idx)
    masses = np.zeros(m)
    if m >= 3:
        use_low = lw[1:-1] < dl[1:-1]
        for g, sel in ((dl, ~use_low), (lw, use_low)):
            s_left = (g[1:-1] - g[:-2]) / (x[1:-1] - x[:-2])
            s_right = (g[2:] - g[1:-1]) / (x[2:] - x[1:-1])
            masses[1:-1] = np.where(sel, x[1:-1] * (s_right - s_left), masses[1:-1])
    # ends: the line from (0, 1) to the bottom vertex; constant after the top vertex
    s0 = (dl[0] - 1) / x[0]
    s1 = (dl[1] - dl[0]) / (x[1] - x[0]) if m >= 2 else 0.0
    masses[0] = x[0] * (s1 - s0)
    if m >= 2:
        masses[-1] = x[-1] * (0.0 - (dl[-1] - dl[-2]) / (x[-1] - x[-2]))
    return b, np.clip(masses, 0.0, None), max(0.0, float(dl[-1]))


#: scale of the integer masses a grid-built profile's screen asks for (float masses: any scale will do)
_SCREEN_BITS = 64


def _grid_masses(profile: Profile, n: int, tail: float) -> tuple[int, np.ndarray, float]:
    """Float masses of a profile built on the grid (random allocation: no float profile of its own):
    the mean of its certified upper and lower arrays on the grid 1/n (an estimate); balls-and-bins
    (k = 1): the float law of :func:`~rigorous_rdp.pld.random_allocation.float_loss_masses`."""
    key = profile.key
    if key[0] == "random-allocation-gaussian" and key[3] == 1:
        _, sig, t, _, direction = key
        return float_loss_masses(float(sig), int(t), direction, n)
    if key[0] == "random-allocation-gaussian":
        return _block_masses(Fraction(key[1]), int(key[2]), int(key[3]), key[4], n, tail)
    up, lo = profile.grid_plds(n, _SCREEN_BITS, tail, True)  # type: ignore[attr-defined]
    arrays = [up] if lo is None else [up, lo]
    b = min(a.offset for a in arrays)
    top = max(a.offset + a.coeffs.length() for a in arrays)
    masses = np.zeros(max(1, top - b))
    for a in arrays:
        vals = np.array([float(int(c)) for c in a.coeffs.coeffs()]) * 2.0**-a.scale_bits
        masses[a.offset - b : a.offset - b + len(vals)] += vals / len(arrays)
    p_inf = sum(float(a.inf_mass) for a in arrays) / len(arrays)
    return b, masses, p_inf


def _block_masses(
    sigma: Fraction, t: int, k: int, direction: str, n: int, tail: float
) -> tuple[int, np.ndarray, float]:
    """Float masses of one epoch of k-of-t random allocation (k > 1): the composition of its blocks'
    1-of-m pairs (:func:`~rigorous_rdp.pld.random_allocation.blocks`), each screened by
    :func:`_float_masses`, by one FFT (an estimate)."""
    from .random_allocation import allocation_pair, blocks

    parts = []
    for steps, count in blocks(t, k):
        b, a, p_inf = _float_masses(getattr(allocation_pair(sigma, steps), direction), n, tail)
        parts.append((b, a, p_inf, count))
    length = sum(count * (len(a) - 1) for _, a, _, count in parts) + 1
    size = 1 << max(8, length.bit_length())
    spec = np.ones(size // 2 + 1, dtype=complex)
    first, keep = 0, 1.0
    for b, a, p_inf, count in parts:
        spec = spec * np.fft.rfft(a, size) ** count
        first += b * count
        keep *= (1.0 - p_inf) ** count
    out = np.clip(np.fft.irfft(spec, size)[:length], 0.0, None)
    return first, out, 1.0 - keep


def _proxy_parts(parts: list[tuple[Profile, int]]) -> list[tuple[Profile, int]]:
    """A cheap stand-in for grid-built parts (the far phase of the sigma search): one epoch of k-of-t
    random allocation as t steps of the Poisson-subsampled Gaussian with rate k/t (a guess only)."""
    out = []
    for prof, c in parts:
        key = prof.key
        if getattr(prof, "grid_plds", None) is not None and key[0] == "random-allocation-gaussian":
            _, sig, t, k, direction = key
            out.append((poisson_gaussian_profile(Fraction(k, t), Fraction(sig), direction), c * t))
        else:
            out.append((prof, c))
    return out


def _grid_built(parts: list[tuple[Profile, int]]) -> bool:
    return any(getattr(p, "grid_plds", None) is not None for p, _ in parts)


#: the screen grid of grid-built profiles (their arrays cost more than a float profile's)
_GRID_SCREEN_N = 1000

#: the most grid points of a single step's array a certified decision refines to (the cost of every product
#: grows with it; about 0.1 s per product at this length)
_MAX_STEP_POINTS = 200_000

#: the largest FFT length of the float screen (about 0.5 GB of complex spectra at 2^24)
_SCREEN_MAX = 1 << 23


#: relative errors of a grid-built pair's certified upper and lower ends that finer loss grids do not
#: remove (balls-and-bins, sigma about 1, 1 to 100 epochs: at most about 3e-4 and 1e-3 measured), below
#: which a decision is not attempted (a choice only, see ``_Prover.promising``)
_FLOOR_UPPER = 1.5e-4
_FLOOR_LOWER = 4e-4
#: the most grid points of one coordinate in the S-laws of ends that decide nothing (reports, first grids)
_COARSE_POINTS = 20_000
#: a grid-built pair's tail budget, in units of the accountant's (``EPS_TAIL`` of delta)
_GRID_TAIL = 10
#: the relative vertex spacing of one coordinate's far tail in the calibration's S-laws (``sparse_tail``)
_SPARSE_REL = 0.005


class _ScreenTooLarge(Exception):
    """The float screen's grid would need more than ``_SCREEN_MAX`` points."""


def float_epsilon(parts: list[tuple[Profile, int]], delta: float, n: int, tail: float = 1e-15) -> float:
    """Float estimate of epsilon(delta) of the composition of ``count`` copies of each
    profile in ``parts`` (a screen, not a bound): connect-the-dots masses on the grid
    1/n, composed by one real FFT raised to the counts (circular, on a window of about
    14 standard deviations of the composed loss around its mean)."""
    singles = []
    mean_total, var_total, max_len = 0.0, 0.0, 0
    inf_keep = 1.0
    for prof, c in parts:
        b, a, p_inf = _float_masses(prof, n, tail)
        tot = float(a.sum())
        i = b + np.arange(len(a))
        mu = float((a * i).sum()) / tot if tot > 0 else float(b)
        var = float((a * (i - mu) ** 2).sum()) / tot if tot > 0 else 0.0
        centre = round(mu)
        singles.append((b - centre, a, c))
        mean_total += c * centre
        var_total += c * var
        max_len = max(max_len, len(a))
        inf_keep *= (1.0 - p_inf) ** c
    half = int(14 * math.sqrt(var_total)) + 2 * max_len + 64
    size = 1 << max(8, (2 * half).bit_length())
    if size > _SCREEN_MAX:
        raise _ScreenTooLarge(f"float screen of {size} points")
    spec = np.ones(size // 2 + 1, dtype=complex)
    for shift, a, c in singles:
        arr = np.zeros(size)
        pos = (shift + np.arange(len(a))) % size
        np.add.at(arr, pos, a)
        spec = spec * np.fft.rfft(arr) ** c
    r = np.clip(np.fft.irfft(spec, size), 0.0, None)
    r = np.roll(r, size // 2)  # index k <-> composed grid index mean_total + k - size/2
    losses = (mean_total - size // 2 + np.arange(size)) / n
    p_inf = 1.0 - inf_keep
    ref = float(losses[size // 2])
    with np.errstate(all="ignore"):
        w = r * np.exp(np.clip(ref - losses, -700.0, 700.0))
        A = np.concatenate([np.cumsum(r[::-1])[::-1][1:], [0.0]]) + p_inf
        B = np.concatenate([np.cumsum(w[::-1])[::-1][1:], [0.0]])
    return screen_crossing(losses, A, B, delta, ref)


# ---------------------------------------------------------------------------
# calibration
# ---------------------------------------------------------------------------


class _Candidate:
    """The certified ends computed so far at one sigma (each on the finest grid tried)."""

    def __init__(self, make_event: Callable[[Fraction], DpEvent], sigma: Fraction, steps: int, delta: Fraction):
        self.sigma = sigma
        self.delta = delta
        self.acc = PldAccountant().compose(make_event(sigma), steps)
        #: a pair built on the grid (random allocation): its S-laws cost most of a decision
        self.grid_built = any(_grid_built(self.acc._parts(d)) for d in self.acc._directions())
        # the mass the arrays move to +infinity (or drop): a grid-built pair's sum laws are shorter by
        # a factor 2 to 3 at 10 times the accountant's (1e-4 of delta: its end moves by about 1e-5 of epsilon)
        self.tail_abs = float(delta) * EPS_TAIL * (_GRID_TAIL if self.grid_built else 1)
        self.up: Fraction | None = None
        self.up_dirs: dict[str, tuple[Fraction, int]] = {}
        self.lo = Fraction(0)
        self.lo_dirs: dict[str, Fraction] = {}
        self.grid = 0
        self.scale_bits = 0
        self.tail = Fraction(0)
        self.screen: dict[str, float] = {}

    def screen_eps(self, n: int, dirs: tuple[str, ...] | None = None, proxy: bool = False) -> float:
        """Float estimate of epsilon (max over ``dirs``, default all directions): Richardson
        extrapolation of the float screen on the grids 1/n and 1/(2n) (its error falls like
        1/n^2).  ``proxy``: grid-built parts replaced by :func:`_proxy_parts`."""
        dirs = self.acc._directions() if dirs is None else dirs
        for d in dirs:
            parts = self.acc._parts(d)
            if proxy:
                parts = _proxy_parts(parts)
            tail = self.tail_abs if _grid_built(parts) else 1e-15  # grid-built: the certified runs' S-laws
            e1 = float_epsilon(parts, float(self.delta), n, tail)
            e2 = float_epsilon(parts, float(self.delta), 2 * n, tail)
            self.screen[d] = (4 * e2 - e1) / 3
        return max(self.screen[d] for d in dirs)

    def _order(self) -> list[str]:
        dirs = list(self.acc._directions())
        return sorted(dirs, key=lambda d: self.screen.get(d, 0.0), reverse=True)

    def upper(self, n: int, target: Fraction) -> Fraction:
        """An upper end of epsilon on grid 1/n, certified when ``<= target``: it stops at the
        first direction above ``target`` (the maximum over directions is then above it too,
        and the value returned is only that direction's end).  Directions the screen puts
        below the dominant one are tried on a coarser grid first."""
        order = self._order()
        worst = Fraction(0)
        ends: dict[str, tuple[Fraction, int]] = {}
        for d in order:
            grids = [n] if d == order[0] else [max(50, n // 4), n]
            for g in grids:
                U, _, self.scale_bits, self.tail = self.acc._composed(d, g, self.tail_abs, lower=False, fast=True)
                up = _eps_upper(U, g, self.delta)
                if up <= target:
                    break
            ends[d] = (up, g)
            worst = max(worst, up)
            if worst > target:
                return worst
        # every direction computed: the maximum of the ends is a certified upper end
        if self.up is None or worst < self.up:
            self.up = worst
            self.up_dirs = ends
        self.grid = max(self.grid, n)
        return worst

    def lower(self, n: int, target: Fraction) -> Fraction:
        """A certified lower end of epsilon on grid 1/n: the lower end of any direction is
        one (the optimum is the maximum over directions); it stops at the first above
        ``target``."""
        best = Fraction(0)
        for d in self._order():
            # grid-built pairs: only the lower S-law is built (the upper array is not used here)
            with lower_only() if self.grid_built else contextlib.nullcontext():
                _, los, self.scale_bits, self.tail = self.acc._discretized(d, n, self.tail_abs, lower=True, fast=True)
            if los is None:
                continue
            coarse = Coarsening(n, self.acc.coarsen_var_lower)
            with progress.task(f"PLD composition ({d}, grid 1/{n})", products([c for _, c in los]), "products") as t:
                lo = _eps_lower(compose_all(los, self.tail, t.update, coarsening=coarse), n, self.delta)
            self.lo_dirs[d] = max(self.lo_dirs.get(d, Fraction(0)), lo)
            best = max(best, lo)
            if best > target:
                break
        self.lo = max(self.lo, best)
        self.grid = max(self.grid, n)
        return best

    def result(self) -> PldEpsilonResult:
        """The bracket ``[best lower end, best certified upper end]``; a missing end is
        computed on a coarse grid (valid, not tight; grid-built pairs: on coarser S-laws too,
        :func:`~rigorous_rdp.pld.random_allocation.coarse_sum_grid`; the lower end 0 if its coarse
        construction degenerates: a report only)."""
        if self.up is None:
            n = max(50, self.grid // 3)
            with coarse_sum_grid(4, _COARSE_POINTS) if self.grid_built else contextlib.nullcontext():
                while self.up is None:
                    self.upper(n, Fraction(10**9))
        up = self.up
        if self.lo == 0 and self.acc._tight():
            # a lower end for the report (coarse grid: valid, not tight)
            # (the lower construction degenerates on a grid too coarse for the bulk of one coordinate: a
            # looser cap in points than the upper end's)
            grids = [coarse_sum_grid(4, 4 * _COARSE_POINTS)] if self.grid_built else [None]
            for ctx in grids:
                try:
                    with ctx or contextlib.nullcontext():
                        for k in (8, 2):  # coarse first; a grid too coarse for the lower construction gives 0
                            if self.lower(max(50, self.grid // k), up) > 0:
                                break
                    break
                except ArithmeticError:  # an S-law too coarse for the lower construction: 0
                    if ctx is None:
                        raise
        # per direction: the lower end found (any grid) and the upper end with its grid; a pair that only
        # dominates (random allocation, k > 1) says nothing about the mechanism's lower end: 0
        tight = self.acc._tight()
        dirs = {
            d: (_bracket(min(self.lo_dirs.get(d, Fraction(0)), u) if tight else Fraction(0), u), g)
            for d, (u, g) in self.up_dirs.items()
        }
        low = min(self.lo, up) if tight else Fraction(0)
        res = PldEpsilonResult(_bracket(low, up), self.delta, self.grid, self.scale_bits, self.tail, dirs)
        return res if tight else dataclasses.replace(res, lower_end=self.acc._lower_note(Fraction(0)))

    def initial_grid(self, width: Fraction) -> int:
        """The accountant's first grid for ``width`` (its error model reads a coarse array of each
        pair: grid-built pairs on coarser S-laws, a choice only)."""
        with coarse_sum_grid(8, _COARSE_POINTS) if self.grid_built else contextlib.nullcontext():
            return self.acc._initial_grid(width, float(self.delta))


def calibrate_sigma_pld(
    make_event: Callable[[Fraction], DpEvent],
    steps: int,
    target_epsilon: object,
    target_delta: object,
    *,
    sigma_digits: int = 4,
    width: object = None,
    max_rounds: int = 6,
) -> PldSigmaCalibration:
    """Smallest grid sigma whose certified PLD epsilon meets the target (see module).

    Args:
        make_event: sigma -> the per-step event.
        steps: number of compositions.
        target_epsilon, target_delta: the target.
        sigma_digits: significant digits of the returned sigma.
        width: bracket width whose error model chooses the first certified grid (default:
            from the float screen's distance to the target); refined when undecided.
        max_rounds: refinements per decision before giving up.

    Raises:
        PrecisionExhausted: if a decision stays undecided after ``max_rounds`` refinements.
    """
    E = validation.positive(target_epsilon, "target_epsilon")
    delta = validation.unit_interval(target_delta, "target_delta", open_low=True, open_high=True)
    w0 = check_width(width) if width is not None else None

    probe = PldAccountant().compose(make_event(Fraction(1)), steps)
    if not probe._tight() and not any(_grid_built(probe._parts(d)) for d in probe._directions()):
        # FSwoR is accounted through pairs that only dominate it: their lower ends say
        # nothing about the mechanism, so "the next smaller sigma misses" is unprovable
        raise UnsupportedEventError(
            "pld calibration supports events whose pairs are tight (this event's pairs only dominate it: "
            "fixed-size sampling (fswor), replace-one adjacency or random allocation with k > 1)."
        )
    # random allocation with k > 1: its blocks' pair only dominates it; sigma.lower is then proven not to
    # meet the target under the same accounting (the blocks' pair's own optimal epsilon exceeds it)
    Ef = float(E)
    hi, fine_n = _screen_guess(make_event, steps, delta, Ef, sigma_digits)
    prover = _Prover(make_event, steps, delta, E, w0, max_rounds, fine_n)
    # a pair built on the grid (random allocation) has a bracket whose width does not fall to 0 with
    # the loss grid (its S-law has its own grid): near the target a decision can stay open on every
    # loss grid, and a coarser sigma grid (one digit fewer, down to 2) moves the candidates away from it
    grid_built = _grid_built_event(prover)
    last = sigma_digits if not grid_built else min(2, sigma_digits)
    for digits in range(sigma_digits, last - 1, -1):
        step = _grid_step(hi, digits)
        s_hi = Fraction(math.ceil(Fraction(hi) / step)) * step
        if grid_built and digits > last and not prover.promising(s_hi, step):
            progress.note(f"{digits} significant digits of sigma are below the S-law grid's resolution here")
            continue
        try:
            # grid-built pairs: one coordinate's far tail on sparser vertices (the same brackets to about
            # 1e-6 at a fraction of the arb work)
            with sparse_tail(_SPARSE_REL) if grid_built else contextlib.nullcontext():
                return dataclasses.replace(prover.decide(s_hi, step), sigma_digits=digits)
        except PrecisionExhausted:
            if digits == last:
                raise
            progress.note(f"undecided with {digits} significant digits of sigma; trying {digits - 1}")
    raise AssertionError("unreachable")


def _grid_built_event(prover: _Prover) -> bool:
    acc = PldAccountant().compose(prover.make_event(Fraction(1)), prover.steps)
    return any(_grid_built(acc._parts(d)) for d in acc._directions())


def _screen_guess(
    make_event: Callable[[Fraction], DpEvent], steps: int, delta: Fraction, Ef: float, sigma_digits: int
) -> tuple[float, int]:
    """Phase 1 of :func:`calibrate_sigma_pld`: a float screen (a guess only) of the sigma whose
    epsilon is ``Ef``, and the screen's grid.  Bracket in sigma, then secant iterations in
    log sigma; after the first sigma only the direction that dominated there is screened (the
    certified decisions use every direction)."""
    acc = PldAccountant().compose(make_event(Fraction(1)), steps)
    proxy = any(_grid_built(acc._parts(d)) for d in acc._directions())
    guess, fine_n = _screen_search(make_event, steps, delta, Ef, sigma_digits, proxy)
    if not proxy:
        return guess, fine_n
    return _screen_grid_built(make_event, steps, delta, Ef, sigma_digits, guess), _GRID_SCREEN_N


def _screen_grid_built(
    make_event: Callable[[Fraction], DpEvent], steps: int, delta: Fraction, Ef: float, sigma_digits: int, guess: float
) -> float:
    """The second phase of the screen for grid-built pairs (random allocation): from the proxy's
    root ``guess``, secant iterations in log sigma on the screen of the pair's own arrays (each
    costs its S-laws, so few and near the answer).  A sigma the grid cannot build counts as
    missing the target."""

    def screen(x: float) -> float:
        sigma = Fraction(math.exp(x)).limit_denominator(10**9)
        progress.note(f"float screen of sigma {float(sigma):.6g} (a guess; certified decisions follow)")
        try:
            return _Candidate(make_event, sigma, steps, delta).screen_eps(_GRID_SCREEN_N) - Ef
        except UnsupportedEventError:
            return math.inf

    tol_x = math.log1p(float(_grid_step(guess, sigma_digits)) / guess / 8)
    x0, x1 = math.log(guess), math.log(guess) - 0.02
    f0, f1 = screen(x0), screen(x1)
    for _ in range(12):
        if math.isinf(f0) or math.isinf(f1) or f0 == f1:
            x2 = max(x0, x1) + 0.05 if min(f0, f1) > 0 else min(x0, x1) - 0.05 if max(f0, f1) < 0 else (x0 + x1) / 2
        else:
            x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
            x2 = min(max(x2, min(x0, x1) - 0.3), max(x0, x1) + 0.3)  # at most a factor 1.35 per step
        f2 = screen(x2)
        x0, f0, x1, f1 = x1, f1, x2, f2
        if abs(x1 - x0) < tol_x and not math.isinf(f1):
            break
    return math.exp(x1)


def _screen_search(
    make_event: Callable[[Fraction], DpEvent], steps: int, delta: Fraction, Ef: float, sigma_digits: int, proxy: bool
) -> tuple[float, int]:
    """The float bracket-and-secant search of :func:`_screen_guess` (``proxy``: grid-built parts
    replaced by :func:`_proxy_parts`)."""
    dominant: list[tuple[str, ...]] = []
    screen_n = [1000]

    def screen(sigma: float, coarse_ok: bool = True) -> float:
        progress.note(f"float screen of sigma {sigma:.6g} (a guess; certified decisions follow)")
        c = _Candidate(make_event, Fraction(sigma), steps, delta)
        n = screen_n[0]
        while True:
            try:
                if not dominant:
                    c.screen_eps(n, proxy=proxy)
                    dominant.append((max(c.screen, key=lambda d: c.screen[d]),))
                    return max(c.screen.values()) - Ef
                return c.screen_eps(n, dominant[0], proxy=proxy) - Ef
            except _ScreenTooLarge:
                # far from the answer (a long loss range): a coarser screen decides the side
                if not coarse_ok or n <= 16:
                    raise
                n //= 4

    # the search stays inside the PLD accountant's sigma range (the candidates are the accountant's input)
    s_min, s_max = float(PLD_NOISE.lo), float(PLD_NOISE.hi or 1000)
    lo, hi = 0.05, 1.0
    f_hi = screen(hi)
    while f_hi > 0:
        if hi >= s_max:
            raise InvalidParameter(
                "target_epsilon",
                f"is out of the PLD's reach: it needs sigma > {s_max:g} (the PLD accountant's range is "
                f"[{s_min:g}, {s_max:g}]; the RDP has no such limit)",
            )
        lo, hi = hi, min(hi * 2, s_max)
        f_lo, f_hi = f_hi, screen(hi)
    if hi == 1.0:
        lo = 0.5
        f_lo = screen(lo)
        while f_lo <= 0:
            if lo <= s_min:
                raise InvalidParameter(
                    "target_epsilon",
                    f"is out of the PLD's reach: sigma {s_min:g} (the lower end of the PLD accountant's range "
                    f"[{s_min:g}, {s_max:g}]) already meets it",
                )
            hi, f_hi, lo = lo, f_lo, max(lo / 2, s_min)
            f_lo = screen(lo)
    rel_step = float(_grid_step(hi, sigma_digits)) / hi
    # secant iterations in log sigma from the two bracket ends (f is smooth and monotone);
    # an iterate leaving the bracket falls back to the bracket's midpoint.  Then the
    # screen's grid is checked at the root: if doubling it moves the estimate by more than
    # an eighth of the epsilon change between neighbouring grid sigmas, the grid is
    # doubled and the iteration continues from the last two points.
    a, b = math.log(lo), math.log(hi)
    x0, f0, x1, f1 = a, f_lo, b, f_hi
    tol_x = math.log1p(rel_step / 8)
    for _ in range(12):
        for _ in range(40):
            x2 = x1 - f1 * (x1 - x0) / (f1 - f0) if f1 != f0 else (a + b) / 2
            if not a <= x2 <= b:
                x2 = (a + b) / 2
            f2 = screen(math.exp(x2))
            if f2 > 0:
                a = max(a, x2)
            else:
                b = min(b, x2)
            done = abs(x2 - x1) < tol_x or b - a < tol_x
            x0, f0, x1, f1 = x1, f1, x2, f2
            if done:
                break
        slope = abs((f1 - f0) / (x1 - x0)) if x1 != x0 else 0.0
        if screen_n[0] >= 64000:
            break
        screen_n[0] *= 2
        try:
            f_fine = screen(math.exp(x1), coarse_ok=False)
        except _ScreenTooLarge:
            screen_n[0] //= 2  # keep the last grid that fitted
            break
        if abs(f_fine - f1) <= slope * tol_x:
            break
        # continue on the finer grid from the last two points; the coarse screen's side
        # decisions are not trusted, so the bracket is reopened to a factor 2 in sigma
        f1 = f_fine
        f0 = screen(math.exp(x0))
        a, b = x1 - math.log(2), x1 + math.log(2)
    return math.exp(x1), screen_n[0]


class _Prover:
    """Phase 2 of :func:`calibrate_sigma_pld`: certified decisions, each on the end it needs,
    on the grid the error model asks for, for the candidates met."""

    def __init__(
        self,
        make_event: Callable[[Fraction], DpEvent],
        steps: int,
        delta: Fraction,
        E: Fraction,
        w0: Fraction | None,
        max_rounds: int,
        fine_n: int,
    ):
        self.make_event, self.steps, self.delta = make_event, steps, delta
        self.E, self.Ef, self.w0, self.max_rounds, self.fine_n = E, float(E), w0, max_rounds, fine_n
        self.cands: dict[Fraction, _Candidate] = {}
        self.estimates: dict[Fraction, float] = {}
        self.undecided: list[str] = []

    def cand(self, s: Fraction) -> tuple[_Candidate, float]:
        if s not in self.cands:
            self.cands[s] = _Candidate(self.make_event, s, self.steps, self.delta)
            self.estimates[s] = self.cands[s].screen_eps(self.fine_n)
        return self.cands[s], self.estimates[s]

    @staticmethod
    def points_per_step(c: _Candidate, n: int) -> int:
        """Grid points of the longest single-step array on grid 1/n (float screen)."""
        tail = c.acc.last_tail_step or c.tail_abs
        most = 0
        for d in c.acc._directions():
            for prof, _ in c.acc._parts(d):
                b, t = grid_range(prof, n, tail)
                most = max(most, t - b + 1)
        return most

    def prove(self, s: Fraction, upper: bool) -> bool:
        """Try to prove ``eps(s) <= E`` (upper) or ``eps(s) > E`` (lower), refining the grid
        by the error model fitted on the previous attempt: the end's distance to the
        estimate falls like 1/n^2; the grid aims at 60 % of the estimate's distance to E.
        The grid is refined while a single step's array stays within ``_MAX_STEP_POINTS``
        points (the cost of every product grows with it)."""
        E, Ef, max_rounds = self.E, self.Ef, self.max_rounds
        c, est = self.cand(s)
        progress.note(f"certifying that sigma {decimal_text(s)} {'meets' if upper else 'misses'} the target")
        need = max(abs(est - Ef), 1e-9)
        # the error model splits a bracket's width about 1 : 2 between the upper and the
        # lower end, so this width puts the end asked for at about half of ``need``
        w = self.w0 if self.w0 is not None else Fraction(max(1e-7, min(0.05, (1.5 if upper else 0.75) * need)))
        n = c.initial_grid(w)
        val: Fraction = Fraction(0)
        prev: Fraction | None = None
        capped = stalled = False
        for _ in range(max_rounds):
            val = c.upper(n, E) if upper else c.lower(n, E)
            if (val <= E) if upper else (val > E):
                return True
            if c.grid_built and prev is not None and abs(val - prev) < abs(val - E) / 4:
                # the S-law's own grid limits this end (a finer loss grid moves it little): give up early
                stalled = True
                break
            prev = val
            err = max(abs(float(val) - est), need)
            want = max(n * 5 // 4 + 1, math.ceil(n * math.sqrt(err / (0.6 * need))))
            cap = n * _MAX_STEP_POINTS // max(1, self.points_per_step(c, n))
            if cap <= n:
                capped = True
                break
            n = min(want, cap)
        end = "upper" if upper else "lower"
        side = "above" if upper else "not above"
        why = (
            f"a finer grid would exceed {_MAX_STEP_POINTS} points per step"
            if capped
            else "the end stopped moving with the loss grid"
            if stalled
            else f"{max_rounds} grids tried"
        )
        self.undecided.append(
            f"at sigma = {decimal_text(s)} the certified {end} end of epsilon is {float(val):.9g}, {side} the "
            f"target {float(E):.9g}, on grid 1/{n}; the float estimate {est:.9g} is {need:.2g} from the target; {why}"
        )
        return False

    def promising(self, s_hi: Fraction, step: Fraction) -> bool:
        """Whether the float screen puts the candidates ``s_hi`` and ``s_hi - step`` far enough from
        the target for a grid-built pair's certified ends (whose error does not fall below about
        :data:`_FLOOR_UPPER` / :data:`_FLOOR_LOWER` times epsilon, the S-law's own grid) to decide them:
        a choice only, which spares hopeless certified work."""
        if s_hi - step <= 0:
            return False
        hi, lo = self.cand(s_hi)[1], self.cand(s_hi - step)[1]
        return hi <= self.Ef * (1 - _FLOOR_UPPER) and lo > self.Ef * (1 + _FLOOR_LOWER)

    def decide(self, s_hi: Fraction, step: Fraction) -> PldSigmaCalibration:
        """From the guess ``s_hi`` on the sigma grid of ``step``: the smallest grid sigma proven to
        meet the target, with the next smaller one proven to miss it."""
        Ef, max_rounds, cands, undecided = self.Ef, self.max_rounds, self.cands, self.undecided
        at_hi: _Candidate | None = None
        for _ in range(4 * max_rounds):
            _, est = self.cand(s_hi)
            if est > Ef and self.prove(s_hi, upper=False):
                s_hi += step  # s_hi misses the target: move up
                continue
            if self.prove(s_hi, upper=True):
                at_hi = cands[s_hi]
                break
            raise PrecisionExhausted(
                f"calibrate (pld): could not certify that a sigma meets the target ({undecided[-1]})"
            )
        if at_hi is None:
            raise PrecisionExhausted(
                "calibrate (pld): could not certify that a sigma meets the target (the search moved too far)"
            )
        for _ in range(4 * max_rounds):
            s_lo = s_hi - step
            if s_lo <= 0:
                raise ValueError("sigma grid step too coarse: the next smaller grid value is <= 0; raise sigma-digits.")
            _, est = self.cand(s_lo)
            if est <= Ef and self.prove(s_lo, upper=True):
                s_hi, at_hi = s_lo, cands[s_lo]  # the smaller one also meets it: move down
                continue
            if self.prove(s_lo, upper=False):
                at_lo = cands[s_lo]
                pair = None if at_lo.acc._tight() else at_lo.lo
                return PldSigmaCalibration(s_hi, s_lo, at_hi.result(), at_lo.result(), pair_lower_at_lower=pair)
            break
        why = f" ({undecided[-1]})" if undecided else ""
        raise PrecisionExhausted(f"calibrate (pld): could not prove that the next smaller sigma misses the target{why}")


def _q(x: Fraction):
    from flint import arb, fmpq

    from ..arith import workprec

    with workprec(256):
        return arb(fmpq(x.numerator, x.denominator))
