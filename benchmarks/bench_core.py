r"""Benchmark: certified epsilon of DP-SGD against dp-accounting, timed in the same run.

Configuration (the acceptance setting of the core): Poisson sampling q = 0.01,
noise multiplier sigma = 1.1, 10000 steps, delta = 1e-5.

* ``dp-accounting``: ``RdpAccountant()`` with its default order grid,
  ``compose(SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), T))``
  then ``get_epsilon_and_optimal_order(delta)``;
* ``rigorous_rdp (grid)``: :class:`rigorous_rdp.RdpAccountant` on the same grid
  (``continuous=False``), default ``--digits 10``;
* ``rigorous_rdp (continuous)``: the same plus continuous optimisation over real
  orders.

Each measurement builds a fresh accountant (no caches survive), after one
warm-up call per contender; the median of ``--repeat`` runs is reported.

Run:  ``python benchmarks/bench_core.py [--repeat 7]``
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import timed

from rigorous_rdp import __version__
from rigorous_rdp.accountant import RdpAccountant, clear_caches
from rigorous_rdp.arith import decimal_lower, decimal_upper, exact_endpoints
from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent

Q, SIGMA, STEPS, DELTA = "0.01", "1.1", 10000, "1e-5"


def ours(continuous: bool, digits: float = 10):
    clear_caches()
    acc = RdpAccountant(continuous=continuous, digits=digits)
    acc.compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), STEPS)
    return acc.get_epsilon_and_order(DELTA)


def theirs():
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    acc = rdp_privacy_accountant.RdpAccountant()
    acc.compose(
        dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(float(Q), dp_event.GaussianDpEvent(float(SIGMA))), STEPS
        )
    )
    return acc.get_epsilon_and_optimal_order(float(DELTA))


def rel_width(ball) -> float:
    lo, hi = exact_endpoints(ball)
    return float((hi - lo) / ((hi + lo) / 2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)

    print(f"rigorous_rdp {__version__}; q={Q} sigma={SIGMA} steps={STEPS} delta={DELTA}; median of {args.repeat} runs")
    try:
        import dp_accounting  # noqa: F401

        have_peer = True
    except ImportError:
        have_peer = False
        print("dp-accounting not installed: timing rigorous_rdp only")

    if have_peer:
        t_dp, (eps_dp, order_dp) = timed(theirs, args.repeat)
        print(f"dp-accounting RdpAccountant   : {t_dp * 1e3:9.1f} ms   epsilon = {eps_dp!r} at alpha = {order_dp}")
    for label, cont in (("grid (continuous=False)", False), ("continuous orders", True)):
        t, res = timed(partial(ours, cont), args.repeat)
        e = res.epsilon.ball
        line = (
            f"rigorous_rdp {label:<24}: {t * 1e3:9.1f} ms   epsilon in [{decimal_lower(e)}, {decimal_upper(e)}]"
            f" at alpha = {res.order} ({res.conversion}); relative width {rel_width(e):.2e}"
        )
        if have_peer:
            line += f"; time ratio {t / t_dp:.2f}x"
            hi = exact_endpoints(e)[1]
            line += f"; upper - dp-accounting = {float(hi - Fraction(float(eps_dp))):.3e}"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
