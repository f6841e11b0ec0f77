r"""The time cost of sharp defaults: the previous default bound against the new one, same run.

The previous defaults are reachable explicitly, so both sides run in this process,
interleaved (previous, new, previous, new, ...), with every cache cleared before each
run; the medians of CPU time are printed with the ratio new / previous and both values.

* DP-SGD (Poisson add/remove; q = 0.01, sigma = 1.1, T = 1e4, delta = 1e-5): the
  bound is the same exact curve; the search now has no order cap.
* FSwoR add/remove (sigma = 1, |B| = 120, |D| = 50,000, 250 epochs, delta = 1e-5):
  previous Thm 3.3 with m = 3, new Thm 3.1 (6) exactly.
* FSwoR replace-one (Fig. 3 setting: sigma = 6, 104,167 steps, delta = 1e-5):
  previous min(Thm 3.5 with m = 3, Wang et al.), new m chosen per order.
* Poisson replace-one (q = 0.1, sigma = 0.5, alpha = 2, one step): previous Thm C.9
  alone, new min(C.9, weak triangle, 2 alpha / sigma^2).
* Poisson-subsampled Laplace (b = 1, q = 0.1, alpha = 1.5): previous Zhu & Wang Thm 8
  (capped), new min with the second-moment bound on (1, 2].

Run:  ``python benchmarks/bench_sharpness.py [--repeat 3]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rigorous_rdp import (  # noqa: E402
    Adjacency,
    DpEvent,
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RdpAccountant,
)
from rigorous_rdp.accountant import clear_caches  # noqa: E402
from rigorous_rdp.arith import refine  # noqa: E402
from rigorous_rdp.mechanisms import LaplaceCurve  # noqa: E402
from rigorous_rdp.registry import rdp_curve  # noqa: E402
from rigorous_rdp.subsampling.poisson_replace_one import PoissonReplaceOneGaussianCurve  # noqa: E402
from rigorous_rdp.subsampling.zhu_wang import poisson_subsampled_curve  # noqa: E402


def _epsilon(event: DpEvent, steps: int, delta: str, taylor_order: int | None = None) -> str:
    res = RdpAccountant(taylor_order=taylor_order).compose(event, steps).get_epsilon_and_order(delta)
    return f"{res.epsilon.upper_float():.6g} (alpha {float(res.order):.4g})" if res.order else str(res.epsilon)


def _rdp(curve: object, alpha: Fraction) -> str:
    val = refine(lambda prec: curve.certified(alpha), 10, what="rdp")  # type: ignore[attr-defined]
    return f"{val.upper_float():.6g}"


def tasks() -> list[tuple[str, Callable[[], str], Callable[[], str]]]:
    F = Fraction
    dpsgd = PoissonSampledEvent(GaussianEvent(F("1.1")), F("0.01"))
    steps_ar = 250 * 50000 // 120
    r1 = Adjacency.REPLACE_ONE

    def fswor(sigma: int, adjacency: Adjacency) -> FixedSizeSampledEvent:
        return FixedSizeSampledEvent(GaussianEvent(F(sigma)), 120, 50000, adjacency=adjacency)

    return [
        ("DP-SGD epsilon", lambda: _epsilon(dpsgd, 10000, "1e-5"), lambda: _epsilon(dpsgd, 10000, "1e-5")),
        (
            "FSwoR add/remove epsilon",
            lambda: _epsilon(fswor(1, Adjacency.ADD_REMOVE), steps_ar, "1e-5", taylor_order=3),
            lambda: _epsilon(fswor(1, Adjacency.ADD_REMOVE), steps_ar, "1e-5"),
        ),
        (
            "FSwoR replace-one epsilon",
            lambda: _epsilon(fswor(6, r1), 104167, "1e-5", taylor_order=3),
            lambda: _epsilon(fswor(6, r1), 104167, "1e-5"),
        ),
        (
            "Poisson replace-one RDP(2)",
            lambda: _rdp(PoissonReplaceOneGaussianCurve(Fraction(1, 10), Fraction(1, 2)), Fraction(2)),
            lambda: _rdp(rdp_curve(PoissonSampledEvent(GaussianEvent(F("0.5")), F("0.1"), r1)), Fraction(2)),
        ),
        (
            "Poisson Laplace RDP(1.5)",
            lambda: _rdp(poisson_subsampled_curve(LaplaceCurve(Fraction(1)), Fraction(1, 10)), Fraction(3, 2)),
            lambda: _rdp(rdp_curve(PoissonSampledEvent(LaplaceEvent(F(1)), F("0.1"))), Fraction(3, 2)),
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'task':28s} {'previous':>10s} {'new':>10s} {'new/prev':>9s}   previous value -> new value")
    for name, prev, new in tasks():
        times: dict[str, list[float]] = {"prev": [], "new": []}
        values = {}
        for _ in range(args.repeat):
            for key, fn in (("prev", prev), ("new", new)):
                clear_caches()
                t = time.process_time()
                values[key] = fn()
                times[key].append(time.process_time() - t)
        tp, tn = statistics.median(times["prev"]), statistics.median(times["new"])
        print(f"{name:28s} {tp:9.3f}s {tn:9.3f}s {tn / tp:8.2f}x   {values['prev']} -> {values['new']}")


if __name__ == "__main__":
    main()
