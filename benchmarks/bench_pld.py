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

Each contender is timed once after a warm-up call (median of ``--repeat`` runs).  The
ratio column is our time divided by prv-accountant's.

Run:  ``python benchmarks/bench_pld.py [--repeat 3] [--big] [--calibrate]``
  ``--big``: also T = 1e6 (width 0.1; peers are not run there: prv-accountant needs
  more than 10 GB at T = 1e6).  ``--calibrate``: the sigma for epsilon = 1 at T = 1e4.
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

from _timing import timed

from rigorous_rdp import RdpAccountant
from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent
from rigorous_rdp.pld import PldAccountant

Q, SIGMA, DELTA = "0.01", "1.1", "1e-5"


def ours_pld(steps, width="0.01"):
    acc = PldAccountant(width=width).compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), steps)
    return acc.get_epsilon_result(DELTA)


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


def prv(steps):
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    mech = PoissonSubsampledGaussianMechanism(noise_multiplier=float(SIGMA), sampling_probability=float(Q))
    acc = PRVAccountant(prvs=mech, max_self_compositions=steps, eps_error=0.01, delta_error=1e-10)
    return acc.compute_epsilon(delta=float(DELTA), num_self_compositions=steps)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--calibrate", action="store_true")
    args = ap.parse_args()
    steps = 10000
    print(f"q = {Q}, sigma = {SIGMA}, T = {steps}, delta = {DELTA}")
    t_ours, r = timed(lambda: ours_pld(steps), args.repeat)
    lo, up = r.epsilon.lower_float(), r.epsilon.upper_float()
    print(f"  rigorous_rdp pld   [{lo:.6f}, {up:.6f}]  width {up - lo:.5f}  grid 1/{r.grid}  {t_ours:7.2f} s")
    rows: list[tuple[str, str, float, str | None]] = []
    try:
        t_prv, (p_lo, p_est, p_up) = timed(lambda: prv(steps), args.repeat)
        rows.append(
            (
                "prv-accountant eps_error=0.01",
                f"[{p_lo:.6f}, {p_up:.6f}] est {p_est:.6f}",
                t_prv,
                "estimate inside" if lo <= p_est <= up else "estimate OUTSIDE",
            )
        )
    except Exception as exc:
        t_prv = None
        print(f"  prv-accountant failed: {type(exc).__name__}: {exc}")
    for interval in (1e-3, 1e-4):
        try:
            t_d, e = timed(partial(dpa_pld, steps, interval), args.repeat)
            rows.append(
                (
                    f"dp-accounting pld {interval:g}",
                    f"{e:.6f}",
                    t_d,
                    "inside"
                    if lo <= e <= up
                    else ("above our certified upper end (looser)" if e > up else "BELOW our proven lower end"),
                )
            )
        except Exception as exc:
            print(f"  dp-accounting failed: {type(exc).__name__}: {exc}")
    t_r, e_r = timed(lambda: ours_rdp(steps), 1)
    rows.append(("rigorous_rdp rdp (certified upper)", f"{e_r.upper_float():.6f}", t_r, None))
    for name, val, t, inside in rows:
        flag = "" if inside is None else f"  {inside}"
        print(f"  {name:34s} {val:40s} {t:7.2f} s{flag}")
    if t_prv:
        print(f"  time ratio ours / prv-accountant = {t_ours / t_prv:.2f}")
    if args.big:
        t0 = time.perf_counter()
        rb = ours_pld(10**6, width="0.1")
        dt = time.perf_counter() - t0
        mem = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"T = 1e6: [{rb.epsilon.lower_float():.5f}, {rb.epsilon.upper_float():.5f}] width "
            f"{rb.width():.4f} grid 1/{rb.grid}  {dt:.1f} s, peak RSS {mem:.0f} MB (whole process)"
        )
    if args.calibrate:
        from rigorous_rdp.pld.calibrate import calibrate_sigma_pld

        t0 = time.perf_counter()
        c = calibrate_sigma_pld(lambda s: PoissonSampledEvent(GaussianEvent(s), Fraction(Q)), steps, 1, DELTA)
        dt = time.perf_counter() - t0
        print(
            f"calibrate epsilon = 1: sigma = {float(c.sigma_upper)} (bracket {c.at_upper.epsilon}); "
            f"sigma = {float(c.sigma_lower)} misses (bracket {c.at_lower.epsilon})  {dt:.1f} s"
        )
        try:
            import dp_accounting as dpa
            from dp_accounting import calibrate_dp_mechanism
            from dp_accounting.pld import pld_privacy_accountant

            s = calibrate_dp_mechanism(
                lambda: pld_privacy_accountant.PLDAccountant(),
                lambda s: dpa.dp_event.SelfComposedDpEvent(
                    dpa.dp_event.PoissonSampledDpEvent(float(Q), dpa.dp_event.GaussianDpEvent(s)), steps
                ),
                1.0,
                float(DELTA),
            )
            print(f"  dp-accounting calibrate_dp_mechanism (PLD, default interval): sigma = {s:.5f}")
        except Exception as exc:
            print(f"  dp-accounting calibration failed: {exc}")


if __name__ == "__main__":
    main()
