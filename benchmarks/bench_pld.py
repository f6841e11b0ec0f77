r"""Benchmark: the certified PLD bracket against dp-accounting's PLD and prv-accountant.

Configuration (the targets of the PLD accountant): Poisson sampling q = 0.01, noise
multiplier sigma = 1.1, delta = 1e-5, add/remove adjacency.

* ``rigorous_rdp pld``: ``PldAccountant()`` (default width 0.01), fresh accountant per
  run (no caches survive), ``get_epsilon_result(delta)``;
* ``dp-accounting pld``: ``PLDAccountant(value_discretization_interval=...)`` on
  ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), T)`` (its
  pessimistic estimate; no certified error bound);
* ``prv-accountant``: ``PRVAccountant(prvs=PoissonSubsampledGaussianMechanism(...),
  eps_error=0.01, delta_error=1e-10)`` and ``compute_epsilon`` (lower, estimate, upper);
* ``rigorous_rdp rdp``: the certified RDP route, for the side-by-side table.

Times are CPU-time medians of ``--repeat`` runs after a warm-up call.  The ratio is
against the *fastest* peer at *comparable accuracy*: dp-accounting's PLD at the coarsest
grid whose answer is at least as close to the truth as our certified upper end
(closeness measured above a proven lower bound on the truth), for our default width
0.01 and for width 0.001; with ``--prv`` also prv-accountant at the largest ``eps_error`` of 0.01,
0.003, 0.001 whose upper end is at most ours (seconds to minutes), and then the ratio against the
faster of the two.

Run:  ``python benchmarks/bench_pld.py [--repeat 3] [--big] [--calibrate] [--growth] [--prv] [--breakdown]``
  ``--big``: also T = 1e6 at the default width, against dp-accounting the same way.
  ``--breakdown``: where our time goes (discretisation, integer products, rescaling, tail trims,
  coarsenings, the epsilon search) at T = 1e4 (both widths) and, with ``--big``, T = 1e6.
  ``--calibrate``: the sigma for epsilon = 1 at T = 1e4, against dp-accounting's PLD
  calibration.  ``--growth``: our time at T = 1e3 .. 1e6 and its exponent in T.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from fractions import Fraction
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigorous_rdp import RdpAccountant
from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent
from rigorous_rdp.pld import PldAccountant

Q, SIGMA, DELTA = "0.01", "1.1", "1e-5"


def ours_pld(steps, width="0.01"):
    acc = PldAccountant(width=width).compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), steps)
    return acc.get_epsilon_result(DELTA)


def ours_pld_grid(steps, n):
    """Ours on the fixed grid 1/n (no refinement towards a width)."""
    acc = PldAccountant(grid=n).compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), steps)
    return acc.get_epsilon_result(DELTA)


def _has_dpa() -> bool:
    import importlib.util

    return importlib.util.find_spec("dp_accounting") is not None


def ours_rdp(steps):
    acc = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), steps)
    return acc.get_epsilon(DELTA)


def dpa_pld(steps, interval):
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    ev = dpa.dp_event.SelfComposedDpEvent(
        dpa.dp_event.PoissonSampledDpEvent(float(Q), dpa.dp_event.GaussianDpEvent(float(SIGMA))), steps
    )
    return (
        pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval)
        .compose(ev)
        .get_epsilon(float(DELTA))
    )


def dpa_optimistic(steps, interval):
    """dp-accounting's optimistic estimate (its only lower-end analogue: a float, not a bound; it falls back to
    privacy buckets, whose loss rounding is first order in the grid)."""
    import logging

    from dp_accounting.pld import privacy_loss_distribution as pl

    logging.getLogger().setLevel(logging.ERROR)  # its fallback warns on every call
    pld = pl.from_gaussian_mechanism(
        float(SIGMA), sampling_prob=float(Q), pessimistic_estimate=False, value_discretization_interval=interval
    )
    return pld.self_compose(steps).get_epsilon_for_delta(float(DELTA))


def prv(steps, eps_error=0.01):
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    mech = PoissonSubsampledGaussianMechanism(noise_multiplier=float(SIGMA), sampling_probability=float(Q))
    acc = PRVAccountant(prvs=mech, max_self_compositions=steps, eps_error=eps_error, delta_error=1e-10)
    return acc.compute_epsilon(delta=float(DELTA), num_self_compositions=steps)


PRV_ERRORS = (0.01, 0.003, 0.001)


def cpu(fn, repeat: int):
    """Median CPU seconds (``time.process_time``) of ``repeat`` calls after a warm-up, and the result."""
    out = fn()
    ts = []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        ts.append(time.process_time() - t0)
    return sorted(ts)[len(ts) // 2], out


DPA_GRIDS = (2e-3, 1e-3, 7e-4, 5e-4, 3e-4, 2e-4, 1.5e-4, 1e-4)
FINEST = DPA_GRIDS[-1]


def comparable(steps: int, width: str, repeat: int, floor: Fraction | None, with_prv: bool = False) -> None:
    """Ours at ``width`` against dp-accounting's PLD at the coarsest grid whose answer is at
    least as close to the truth as our certified upper end.  Closeness is measured above
    ``floor``, a proven lower bound on the true epsilon (our lower end at width 0.001), so
    both distances are upper bounds on the true errors of the two answers."""
    t_o, r = cpu(lambda: ours_pld(steps, width), repeat)
    lo, up = r.epsilon.lower_float(), r.epsilon.upper_float()
    f = lo if floor is None else float(floor)
    print(f"  ours width {width}: [{lo:.6f}, {up:.6f}] (upper - floor {up - f:.2e})  grid 1/{r.grid}  {t_o:.3f} s CPU")
    if not _has_dpa():
        print("  dp-accounting not installed: no comparison")
        return
    match = None
    timed: dict[float, float] = {}
    e_at: dict[float, float] = {}
    for interval in DPA_GRIDS:
        t_d, e = cpu(partial(dpa_pld, steps, interval), repeat)
        timed[interval] = t_d
        e_at[interval] = e
        note = "at least as close as our upper end" if e <= up else "less close"
        print(f"    dp-accounting pld {interval:g}: {e:.6f} (value - floor {e - f:.2e}, {note})  {t_d:.3f} s CPU")
        if e < lo:
            print("    dp-accounting value BELOW our proven lower end")
        if match is None and e <= up:
            match = (interval, t_d)
    peers = {}
    if match is None:
        print("    no dp-accounting grid tried is as close as our upper end")
    else:
        peers[f"dp-accounting pld grid {match[0]:g}"] = match[1]
        print(f"    ratio ours / dp-accounting at grid {match[0]:g} (comparable accuracy) = {t_o / match[1]:.2f}x")
        # what our lower end costs has no counterpart there: dp-accounting's optimistic estimate at that grid
        t_opt, e_opt = cpu(partial(dpa_optimistic, steps, match[0]), repeat)
        print(
            f"    dp-accounting optimistic estimate at grid {match[0]:g} (its lower-end analogue, a float): {e_opt:.6f}"
            f" ({f - e_opt:.2e} below the floor)  {t_opt:.3f} s CPU; its float bracket [{e_opt:.6f}, {e_at[match[0]]:.6f}]"
            f" costs {t_opt + match[1]:.3f} s: ratio ours / that = {t_o / (t_opt + match[1]):.2f}x"
        )
    if width == "0.001" and FINEST in timed:
        # issue 24's rule for a bracket of width <= 0.001: against dp-accounting's grid 1e-4
        print(
            f"    ratio ours / dp-accounting at grid {FINEST:g} (bracket width <= 0.001) = {t_o / timed[FINEST]:.2f}x"
        )
    if with_prv:
        # prv-accountant's upper end (its certified-by-construction bound) as close as our upper end
        for err in PRV_ERRORS:
            t_p, (p_lo, p_est, p_up) = cpu(partial(prv, steps, err), 1)
            note = "at least as close as our upper end" if p_up <= up else "less close"
            print(
                f"    prv-accountant eps_error {err:g}: [{p_lo:.6f}, {p_up:.6f}] est {p_est:.6f} ({note})  {t_p:.2f} s CPU"
            )
            if p_up <= up:
                peers[f"prv-accountant eps_error {err:g}"] = t_p
                print(f"    ratio ours / prv-accountant at eps_error {err:g} (comparable accuracy) = {t_o / t_p:.2g}x")
                break
    if peers:
        name, t_f = min(peers.items(), key=lambda kv: kv[1])
        print(f"    ratio ours / fastest peer at comparable accuracy ({name}) = {t_o / t_f:.2f}x")


#: the phases of :func:`breakdown`: (label, module, function or Class.method); nested phases (:data:`NESTED`) are
#: subtracted from the outer one
PHASES = (
    ("discretisation", "accountant", "_discretize"),
    ("profile values (ball erfc)", "profiles", "_PoissonGaussian.oracle"),
    ("integer products", "compose", "multiply"),
    ("rescaling", "compose", "_rescale"),
    ("tail trims", "compose", "_trim_poly"),
    ("coarsenings", "compose", "_at_step"),
    ("epsilon search", "accountant", "_eps_upper"),
    ("epsilon search", "accountant", "_eps_lower"),
)


#: outer phase -> the phases inside it (shown without them)
NESTED = {"integer products": ("rescaling", "tail trims"), "discretisation": ("profile values (ball erfc)",)}


def breakdown(steps: int, width: str) -> None:
    """CPU time of one warm run of ours split into :data:`PHASES` (each function wrapped by a timer; the
    rescaling and the trims are inside the products and the certified profile values (the sampled Gaussian's
    oracle: two ball erfc per vertex) inside the discretisation, which are shown without them)."""
    from rigorous_rdp.pld import accountant, compose, profiles

    mods = {"accountant": accountant, "compose": compose, "profiles": profiles}
    spent: dict[str, float] = {}
    saved = []

    def timed(label: str, fn):
        def run(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - t0

        return run

    for label, mod, name in PHASES:
        owner: object = mods[mod]
        *path, attr = name.split(".")
        for part in path:
            owner = getattr(owner, part)
        fn = getattr(owner, attr)
        saved.append((owner, attr, fn))
        setattr(owner, attr, timed(label, fn))
    try:
        ours_pld(steps, width)  # warm-up
        spent.clear()
        t0 = time.process_time()
        ours_pld(steps, width)
        total = time.process_time() - t0
    finally:
        for module, name, fn in saved:
            setattr(module, name, fn)
    for outer, inner in NESTED.items():
        spent[outer] = spent.get(outer, 0.0) - sum(spent.get(k, 0.0) for k in inner)
    spent["other"] = total - sum(spent.values())
    order = list(dict.fromkeys([label for label, _, _ in PHASES] + ["other"]))
    parts = ", ".join(f"{k} {spent[k] * 1e3:.0f} ms ({100 * spent[k] / total:.0f} %)" for k in order if k in spent)
    print(f"  where our time goes, T = {steps:.0e}, width {width} ({total:.3f} s CPU): {parts}")


def _our_peak_mb(steps: int) -> float:
    """Peak resident memory (MB) of a fresh Python process that imports the package and runs
    :func:`ours_pld` once (the benchmark process itself also holds the peers' arrays)."""
    import subprocess

    # VmHWM (Linux): the high-water mark of this process image only (ru_maxrss may carry the forking
    # parent's); ru_maxrss elsewhere
    code = (
        "import resource, sys; sys.path.insert(0, sys.argv[1]); from bench_pld import ours_pld; "
        f"ours_pld({steps}); st = open('/proc/self/status').read() if sys.platform == 'linux' else ''; "
        "hwm = [ln.split()[1] for ln in st.splitlines() if ln.startswith('VmHWM:')]; "
        "print(hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    here = str(Path(__file__).resolve().parent)
    out = subprocess.run([sys.executable, "-c", code, here], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1]) / 1024


def _exponent(pts: list[tuple[int, float]]) -> float:
    """Least-squares slope of log(time) against log(T)."""
    import math

    xs = [math.log(T) for T, _ in pts]
    ys = [math.log(t) for _, t in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def _peer_at_accuracy(steps: int, upper: float) -> tuple[float, float] | None:
    """dp-accounting's coarsest grid of :data:`DPA_GRIDS` whose answer is at most ``upper``, and its
    CPU time (one run after a warm-up); None when dp-accounting is missing or no grid is that close."""
    if not _has_dpa():
        return None
    for interval in DPA_GRIDS:
        t_d, e = cpu(partial(dpa_pld, steps, interval), 1)
        if e <= upper:
            return interval, t_d
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument(
        "--growth",
        action="store_true",
        help="time ours (default width) and dp-accounting at comparable accuracy at T = 1e3 .. 1e6, fit both exponents",
    )
    ap.add_argument("--prv", action="store_true", help="also time prv-accountant (slow)")
    ap.add_argument("--breakdown", action="store_true", help="split our time into its phases")
    args = ap.parse_args()
    import os

    print(f"load average {os.getloadavg()[0]:.1f}; times are CPU-time medians of {args.repeat} runs after a warm-up")
    steps = 10000
    print(f"q = {Q}, sigma = {SIGMA}, T = {steps}, delta = {DELTA}")
    floor = ours_pld(steps, "0.001").epsilon.lo_exact
    print(f"  floor (proven lower bound on the true epsilon, ours at width 0.001): {float(floor):.6f}")
    for width in ("0.01", "0.001"):
        comparable(steps, width, args.repeat, floor, with_prv=args.prv)
    if args.breakdown:
        for width in ("0.01", "0.001"):
            breakdown(steps, width)
    t_r, e_r = cpu(lambda: ours_rdp(steps), 1)
    print(f"  rigorous_rdp rdp (certified upper): {e_r.upper_float():.6f}  {t_r:.3f} s CPU")
    if args.growth:
        pts, peer_pts = [], []
        for T in (10**3, 10**4, 10**5, 10**6):
            t0 = time.process_time()  # one cold run each (a fresh accountant, no caches)
            r = ours_pld(T)
            t = time.process_time() - t0
            pts.append((T, t))
            up = r.epsilon.upper_float()
            print(f"  T = {T:.0e}: [{r.epsilon.lower_float():.6f}, {up:.6f}]  {t:.3f} s CPU")
            peer = _peer_at_accuracy(T, up)
            if peer is not None:
                peer_pts.append((T, peer[1]))
                print(f"    dp-accounting at comparable accuracy: grid {peer[0]:g}, {peer[1]:.3f} s CPU")
        print(f"  growth exponent of our time in T (least squares, T = 1e3..1e6): {_exponent(pts):.2f}")
        if len(peer_pts) == len(pts):
            print(
                "  growth exponent of dp-accounting's time at comparable accuracy (the coarsest grid tried whose"
                f" answer is at most our upper end, at each T): {_exponent(peer_pts):.2f}"
            )
        # the rule of the measurement of the peer: one fixed grid at every T (the error then grows with T)
        fixed, peer_fixed = [], []
        for T in (10**3, 10**4, 10**5, 10**6):
            t_f, r = cpu(partial(ours_pld_grid, T, 1000), 1)
            fixed.append((T, t_f))
            line = (
                f"  T = {T:.0e}, fixed grid 1/1000: ours [{r.epsilon.lower_float():.6f}, {r.epsilon.upper_float():.6f}]"
            )
            line += f"  {t_f:.3f} s CPU"
            if _has_dpa():
                t_p, e_p = cpu(partial(dpa_pld, T, 1e-3), 1)
                peer_fixed.append((T, t_p))
                line += f"; dp-accounting grid 1e-3: {e_p:.6f}  {t_p:.3f} s CPU"
            print(line)
        print(f"  growth exponent at the fixed grid 1/1000: ours {_exponent(fixed):.2f}", end="")
        print(f", dp-accounting (grid 1e-3) {_exponent(peer_fixed):.2f}" if len(peer_fixed) == len(fixed) else "")
    if args.big:
        print("T = 1e6 (default width 0.01; floor: our own lower end)")
        comparable(10**6, "0.01", 1, None)
        if args.breakdown:
            breakdown(10**6, "0.01")
        print(f"  peak RSS of ours alone (a fresh process, T = 1e6, default width): {_our_peak_mb(10**6):.0f} MB")
        mem = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  peak RSS {mem:.0f} MB (whole process: ours and the peers)")
    if args.calibrate:
        from rigorous_rdp.pld.calibrate import calibrate_sigma_pld

        t0 = time.process_time()
        c = calibrate_sigma_pld(lambda s: PoissonSampledEvent(GaussianEvent(s), Fraction(Q)), steps, 1, DELTA)
        dt = time.process_time() - t0
        a, b = c.at_upper.epsilon, c.at_lower.epsilon  # Certified balls: their exact ends
        print(
            f"calibrate epsilon = 1: sigma = {float(c.sigma_upper)} meets it (epsilon <= {a.upper_float():.6f}); "
            f"sigma = {float(c.sigma_lower)} misses (epsilon >= {b.lower_float():.6f})  {dt:.2f} s CPU"
        )
        try:
            import dp_accounting as dpa
            from dp_accounting import calibrate_dp_mechanism
            from dp_accounting.pld import pld_privacy_accountant

            for interval in (1e-3, 1e-4):
                t0 = time.process_time()
                s = calibrate_dp_mechanism(
                    lambda interval=interval: pld_privacy_accountant.PLDAccountant(
                        value_discretization_interval=interval
                    ),
                    lambda s: dpa.dp_event.SelfComposedDpEvent(
                        dpa.dp_event.PoissonSampledDpEvent(float(Q), dpa.dp_event.GaussianDpEvent(s)), steps
                    ),
                    1.0,
                    float(DELTA),
                    tol=1e-3,
                )
                t_d = time.process_time() - t0
                print(
                    f"  dp-accounting calibrate_dp_mechanism (PLD grid {interval:g}, tol 1e-3): sigma = {s:.5f}  "
                    f"{t_d:.2f} s CPU; ratio ours / it = {dt / t_d:.2f}x"
                )
        except Exception as exc:
            print(f"  dp-accounting calibration failed: {exc}")


if __name__ == "__main__":
    main()
