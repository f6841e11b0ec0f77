r"""Benchmark: certified epsilon of DP-SGD against dp-accounting, timed in the same run.

Configuration (the acceptance setting of the core): Poisson sampling q = 0.01,
noise multiplier sigma = 1.1, 10000 steps, delta = 1e-5.

* ``dp-accounting``: ``RdpAccountant()`` with its default order grid,
  ``compose(SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), T))``
  then ``get_epsilon_and_optimal_order(delta)``;
* ``rigorous_rdp (grid)``: :class:`rigorous_rdp.RdpAccountant` on the same grid
  (``continuous=False``), default ``--digits 10``;
* ``rigorous_rdp (continuous)``: the same plus continuous optimisation over real
  orders;
* Opacus's ``compute_rdp`` / ``get_privacy_spent`` on its default orders, where installed
  (the fastest RDP peer): every ratio is taken against the fastest peer of the run.

Then the certified RDP curve of one step (q = 0.01, sigma = 1.1) at many orders
(``RdpAccountant.rdp_many``): dp-accounting's 156 default orders and the 1000 orders
1.1, 1.2, ..., 100, 101, ..., 110, at 10 and 30 digits, against the float curves of
dp-accounting (``RdpAccountant(orders=...)``) and Opacus (``compute_rdp``) at the same orders.

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


def theirs_opacus():
    from opacus.accountants import RDPAccountant
    from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

    orders = RDPAccountant.DEFAULT_ALPHAS
    rdp = compute_rdp(q=float(Q), noise_multiplier=float(SIGMA), steps=STEPS, orders=orders)
    return get_privacy_spent(orders=orders, rdp=rdp, delta=float(DELTA))


def have(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


#: the orders of the RDP-curve tasks
ORDERS_1000 = [1 + Fraction(i, 10) for i in range(1, 991)] + [Fraction(i) for i in range(101, 111)]


def ours_curve(orders, digits: int):
    clear_caches()
    acc = RdpAccountant(digits=digits).compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)))
    return acc.rdp_many(orders)


def dpa_curve(orders):
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    acc = rdp_privacy_accountant.RdpAccountant(orders=[float(a) for a in orders])
    acc.compose(dp_event.PoissonSampledDpEvent(float(Q), dp_event.GaussianDpEvent(float(SIGMA))))
    return acc


def opacus_curve(orders):
    from opacus.accountants.analysis.rdp import compute_rdp

    return compute_rdp(q=float(Q), noise_multiplier=float(SIGMA), steps=1, orders=[float(a) for a in orders])


def curves(repeat: int, peers: dict) -> None:
    """The RDP-curve tasks: our median, each peer's, and the ratio to the fastest peer."""
    from rigorous_rdp.accountant import DEFAULT_ORDERS

    for name, orders in (("156 default orders", list(DEFAULT_ORDERS)), ("1000 orders", ORDERS_1000)):
        times = {label: timed(partial(fn, orders), repeat)[0] for label, fn in peers.items()}
        fastest = min(times, key=lambda k: times[k]) if times else None
        shown = ", ".join(f"{label} {t * 1e3:.1f} ms" for label, t in times.items())
        for digits in (10, 30):
            t, res = timed(partial(ours_curve, orders, digits), repeat)
            worst = max(rel_width(r.rdp.ball) for r in res)
            line = f"RDP curve, {name}, {digits} digits: {t * 1e3:8.1f} ms (widest relative width {worst:.1e})"
            if fastest is not None:
                line += f"; {shown}; ratio to the fastest ({fastest}) {t / times[fastest]:.2f}x"
            print(line, flush=True)


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
        if have("opacus"):
            t_op, (eps_op, order_op) = timed(theirs_opacus, args.repeat)
            print(f"Opacus compute_rdp            : {t_op * 1e3:9.1f} ms   epsilon = {eps_op!r} at alpha = {order_op}")
            t_dp = min(t_dp, t_op)  # the ratios below are to the fastest peer
    for label, cont in (("grid (continuous=False)", False), ("continuous orders", True)):
        t, res = timed(partial(ours, cont), args.repeat)
        e = res.epsilon.ball
        line = (
            f"rigorous_rdp {label:<24}: {t * 1e3:9.1f} ms   epsilon in [{decimal_lower(e)}, {decimal_upper(e)}]"
            f" at alpha = {res.order} ({res.conversion}); relative width {rel_width(e):.2e}"
        )
        if have_peer:
            line += f"; time ratio to the fastest peer {t / t_dp:.2f}x"
            hi = exact_endpoints(e)[1]
            line += f"; upper - dp-accounting = {float(hi - Fraction(float(eps_dp))):.3e}"
        print(line)
    peers = {}
    if have_peer:
        peers["dp-accounting"] = dpa_curve
    if have("opacus"):
        peers["opacus"] = opacus_curve
    curves(args.repeat, peers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
