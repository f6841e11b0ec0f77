r"""All timing targets in one run: rigorous_rdp against the fastest installed peer.

For every task the two sides are timed interleaved (ours, peer, ours, peer, ...)
in the same process, and the medians of CPU time (``time.process_time``; for
the cold command-line task, the children's CPU time) are printed with the ratio
ours / peer and both answers.  Before each of our runs every cache is cleared
(:func:`rigorous_rdp.accountant.clear_caches`), so no result is reused between
repetitions.  Peers: dp-accounting's RDP accountant, and for the DP-SGD task
also autodp's RDP accountant, and Opacus's RDP analysis (``compute_rdp``; for the
curves and the DP-SGD task) where installed; all peers are interleaved and the
fastest one of the run is the reference of the ratio.  prv-accountant (a PLD accountant, a
different and slower computation: seconds) is timed once with ``--all-peers``.

Tasks (Poisson-subsampled Gaussian, add/remove, unless stated):

* ``dpsgd-epsilon``: q = 0.01, sigma = 1.1, T = 1e4, delta = 1e-5, API;
* ``rdp-156``: certified RDP at dp-accounting's 156 default orders (10 digits);
* ``rdp-156-30``: the same at 30 digits;
* ``rdp-1000``: certified RDP at 1.1, 1.2, ..., 100 and 101, ..., 110 (10 digits);
* ``rdp-1000-30``: the same at 30 digits;
* ``pld-epsilon`` (T = 1e4, default width 0.01), ``pld-epsilon-w0.001`` (T = 1e4, width 0.001),
  ``pld-epsilon-1e6`` (T = 1e6, default width): the certified PLD bracket against dp-accounting's
  PLD at *comparable accuracy*: the coarsest of its grids 2e-3, 1e-3, 7e-4, 5e-4, 3e-4, 2e-4, 1.5e-4, 1e-4 whose answer
  is at most our certified upper end (chosen once, before the timing);
* ``pld-calibrate``: the PLD calibration of sigma (epsilon 1, 4 digits, sigma proven to meet the
  target and sigma - 0.001 proven to miss) against ``calibrate_dp_mechanism`` with dp-accounting's
  PLD at the coarsest grid whose sigma agrees with ours to 4 digits;
* ``calibrate-sigma`` (4 and 7 significant digits) for epsilon 1, q = 0.01,
  T = 1e4, delta = 1e-5, against ``calibrate_dp_mechanism`` at the same tolerance;
* ``calibrate-steps``: the largest T for epsilon 1 at sigma = 1.1;
* ``cli-epsilon``: a cold ``rigorous-rdp epsilon`` process against a one-shot
  dp-accounting script computing the same number;
* ``events-100``: 100 distinct events (sigma, q pairs) of 100 steps each;
* with ``--slow``: FSwoR replace-one (sigma = 20, |B| = 120, |D| = 50000, 1000
  steps) and Poisson replace-one (sigma = 12, q = 1/12, 24 steps), ours only.

Run:  ``python benchmarks/run_all.py [--repeat 5] [--only TASK ...] [--slow] [--all-peers]``
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rigorous_rdp import Adjacency, FixedSizeSampledEvent, GaussianEvent, PoissonSampledEvent, RdpAccountant  # noqa: E402
from rigorous_rdp.accountant import DEFAULT_ORDERS, clear_caches  # noqa: E402
from rigorous_rdp.calibrate import calibrate_sigma, max_steps  # noqa: E402

Q, SIGMA, STEPS, DELTA = "0.01", "1.1", 10000, "1e-5"
ORDERS_1000 = [1 + Fraction(i, 10) for i in range(1, 991)] + [Fraction(i) for i in range(101, 111)]
EVENTS_100 = [(Fraction(1) + Fraction(i, 50), Fraction(1 + i % 10, 1000)) for i in range(100)]
CLI = [
    sys.executable,
    "-m",
    "rigorous_rdp",
    "epsilon",
    "--sampling",
    "poisson",
    "--q",
    Q,
    "--sigma",
    SIGMA,
    "--steps",
    str(STEPS),
    "--delta",
    DELTA,
    "--method",
    "rdp",  # the RDP route, as the peer's (the default, best, also runs the PLD)
]
PEER_SCRIPT = f"""
from dp_accounting import dp_event
from dp_accounting.rdp import rdp_privacy_accountant
acc = rdp_privacy_accountant.RdpAccountant()
acc.compose(dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent({Q}, dp_event.GaussianDpEvent({SIGMA})), {STEPS}))
print(float(acc.get_epsilon({DELTA})))
"""


def up(cert) -> str:
    return cert.to_json(8)["upper"]


# ---------------------------------------------------------------------------
# our side
# ---------------------------------------------------------------------------


def ours_dpsgd():
    clear_caches()
    r = (
        RdpAccountant()
        .compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), STEPS)
        .get_epsilon_and_order(DELTA)
    )
    assert r.order is not None  # None only without events or for a pure-DP bound
    return f"eps <= {up(r.epsilon)} (alpha {float(r.order):.6g})"


def _ours_rdp(orders, digits: int = 10):
    clear_caches()
    acc = RdpAccountant(digits=digits).compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), 1)
    vals = acc.rdp_many(orders)  # one shared quadrature for the real orders
    return f"rdp(10.5) <= {up(vals[orders.index(Fraction(21, 2))].rdp)}"


# -- PLD (the certified bracket against dp-accounting's PLD at comparable accuracy) ---------------

PLD_GRIDS = (2e-3, 1e-3, 7e-4, 5e-4, 3e-4, 2e-4, 1.5e-4, 1e-4)


def _ours_pld(steps: int, width: str):
    from rigorous_rdp.pld import PldAccountant

    clear_caches()
    acc = PldAccountant(width=width).compose(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), steps)
    r = acc.get_epsilon_result(DELTA)
    return f"eps in [{r.epsilon.lower_float():.6f}, {r.epsilon.upper_float():.6f}]"


def _peer_pld(steps: int, interval: float):
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    ev = dpa.dp_event.SelfComposedDpEvent(
        dpa.dp_event.PoissonSampledDpEvent(float(Q), dpa.dp_event.GaussianDpEvent(float(SIGMA))), steps
    )
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval).compose(ev)
    return f"eps = {acc.get_epsilon(float(DELTA)):.6f} (grid {interval:g})"


class _Comparable:
    """The peer at comparable accuracy, chosen on its first call: the coarsest dp-accounting grid
    whose answer is at most our certified upper end (so at most as far above the truth as our
    upper end; an answer below the truth would show against our lower end in the answers)."""

    def __init__(self, steps: int, width: str):
        self.steps, self.width = steps, width
        self.fn: Callable[[], str] | None = None

    def __call__(self) -> str:
        if self.fn is None:
            from rigorous_rdp.pld import PldAccountant

            acc = PldAccountant(width=self.width).compose(
                PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), self.steps
            )
            upper = acc.get_epsilon_result(DELTA).epsilon.upper_float()
            self.fn = partial(_peer_pld, self.steps, PLD_GRIDS[-1])
            for interval in PLD_GRIDS:
                if float(_peer_pld(self.steps, interval).split()[2]) <= upper:
                    self.fn = partial(_peer_pld, self.steps, interval)
                    break
        return self.fn()


def _peer_pld_pair(steps: int, interval: float) -> str:
    """dp-accounting's pessimistic and optimistic estimates on one grid: the float analogue of a bracket (the
    optimistic one falls back to privacy buckets, whose loss rounding is first order in the grid)."""
    import logging

    from dp_accounting.pld import privacy_loss_distribution as pl

    logging.getLogger().setLevel(logging.ERROR)  # the fallback warns on every call
    ends = []
    for pessimistic in (False, True):
        pld = pl.from_gaussian_mechanism(
            float(SIGMA),
            sampling_prob=float(Q),
            pessimistic_estimate=pessimistic,
            value_discretization_interval=interval,
        )
        ends.append(pld.self_compose(steps).get_epsilon_for_delta(float(DELTA)))
    return f"eps in [{ends[0]:.6f}, {ends[1]:.6f}] (float, grid {interval:g})"


class _ComparablePair(_Comparable):
    """dp-accounting's pessimistic + optimistic pair on the grid that :class:`_Comparable` picks."""

    def __call__(self) -> str:
        if self.fn is None:
            super().__call__()
            assert self.fn is not None
            self.fn = partial(_peer_pld_pair, self.steps, self.fn.args[1])  # type: ignore[attr-defined]
        return self.fn()


def ours_pld_calibrate():
    from rigorous_rdp.pld.calibrate import calibrate_sigma_pld

    clear_caches()
    c = calibrate_sigma_pld(lambda s: PoissonSampledEvent(GaussianEvent(s), Fraction(Q)), STEPS, 1, DELTA)
    return f"sigma = {float(c.sigma_upper)} (proven: {float(c.sigma_lower)} misses)"


def _peer_pld_calibrate(interval: float) -> str:
    import dp_accounting as dpa
    from dp_accounting import calibrate_dp_mechanism
    from dp_accounting.pld import pld_privacy_accountant

    s = calibrate_dp_mechanism(
        lambda: pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval),
        lambda s: dpa.dp_event.SelfComposedDpEvent(
            dpa.dp_event.PoissonSampledDpEvent(float(Q), dpa.dp_event.GaussianDpEvent(s)), STEPS
        ),
        1.0,
        float(DELTA),
        tol=1e-3,
    )
    return f"sigma = {s:.6f} (grid {interval:g})"


class _ComparableCalibration:
    """dp-accounting's PLD calibration at the coarsest grid whose sigma rounds up to ours (4 digits)."""

    def __init__(self) -> None:
        self.fn: Callable[[], str] | None = None

    def __call__(self) -> str:
        if self.fn is None:
            import math

            ours = float(ours_pld_calibrate().split()[2])
            self.fn = partial(_peer_pld_calibrate, PLD_GRIDS[-1])
            for interval in PLD_GRIDS:
                s = float(_peer_pld_calibrate(interval).split()[2])
                if math.ceil(s * 1000 - 1e-9) / 1000 == ours:
                    self.fn = partial(_peer_pld_calibrate, interval)
                    break
        return self.fn()


def _ours_calibrate(digits: int):
    clear_caches()
    r = calibrate_sigma(
        lambda s: PoissonSampledEvent(GaussianEvent(s), Fraction(Q)), STEPS, 1, DELTA, sigma_digits=digits
    )
    return f"sigma = {float(r.sigma)} (proven: {float(r.sigma_lower)} misses)"


def ours_calibrate4():
    return _ours_calibrate(4)


def ours_calibrate7():
    return _ours_calibrate(7)


def ours_steps():
    clear_caches()
    r = max_steps(PoissonSampledEvent(GaussianEvent(Fraction(SIGMA)), Fraction(Q)), 1, DELTA)
    return f"T = {r.steps}"


def ours_events():
    clear_caches()
    acc = RdpAccountant()
    for s, q in EVENTS_100:
        acc.compose(PoissonSampledEvent(GaussianEvent(s), q), 100)
    r = acc.get_epsilon_and_order(DELTA)
    return f"eps <= {up(r.epsilon)}"


def ours_cli():
    out = subprocess.run(CLI, capture_output=True, text=True, check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return out.stdout.split("rely on the upper end ")[1].split(")")[0]


def ours_fswor_r1():
    ev = FixedSizeSampledEvent(GaussianEvent(Fraction(20)), 120, 50000, adjacency=Adjacency.REPLACE_ONE)
    clear_caches()
    r = RdpAccountant().compose(ev, 1000).get_epsilon_and_order(DELTA)
    return f"eps <= {up(r.epsilon)}"


def ours_poisson_r1():
    ev = PoissonSampledEvent(GaussianEvent(Fraction(12)), Fraction(1, 12), Adjacency.REPLACE_ONE)
    clear_caches()
    r = RdpAccountant().compose(ev, 24).get_epsilon_and_order(DELTA)
    return f"eps <= {up(r.epsilon)}"


# ---------------------------------------------------------------------------
# dp-accounting
# ---------------------------------------------------------------------------


def _dpa():
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    return dp_event, rdp_privacy_accountant


def peer_dpsgd():
    dp_event, ra = _dpa()
    acc = ra.RdpAccountant()
    acc.compose(
        dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(float(Q), dp_event.GaussianDpEvent(float(SIGMA))), STEPS
        )
    )
    eps, order = acc.get_epsilon_and_optimal_order(float(DELTA))
    return f"eps = {eps:.8g} (alpha {order})"


def _peer_rdp(orders):
    dp_event, ra = _dpa()
    acc = ra.RdpAccountant(orders=[float(a) for a in orders])
    acc.compose(dp_event.PoissonSampledDpEvent(float(Q), dp_event.GaussianDpEvent(float(SIGMA))))
    i = [float(a) for a in orders].index(10.5)
    return f"rdp(10.5) = {acc._rdp[i]:.8g}"


def _peer_calibrate(tol: float):
    from dp_accounting import mechanism_calibration as mc

    dp_event, ra = _dpa()
    s = mc.calibrate_dp_mechanism(
        ra.RdpAccountant,
        lambda s: dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(float(Q), dp_event.GaussianDpEvent(s)), STEPS
        ),
        1.0,
        float(DELTA),
        tol=tol,
    )
    return f"sigma = {s:.9g}"


def peer_calibrate4():
    return _peer_calibrate(1e-3)  # our 4 significant digits at sigma ~ 4: grid step 1e-3


def peer_calibrate7():
    return _peer_calibrate(1e-6)


def peer_steps():
    from dp_accounting import mechanism_calibration as mc

    dp_event, ra = _dpa()
    n = mc.calibrate_dp_mechanism(
        ra.RdpAccountant,
        lambda n: dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(float(Q), dp_event.GaussianDpEvent(float(SIGMA))), n
        ),
        1.0,
        float(DELTA),
        discrete=True,
        bracket_interval=mc.LowerEndpointAndGuess(1, 100),
    )
    return f"T = {n}"


def peer_events():
    dp_event, ra = _dpa()
    acc = ra.RdpAccountant()
    for s, q in EVENTS_100:
        acc.compose(
            dp_event.SelfComposedDpEvent(
                dp_event.PoissonSampledDpEvent(float(q), dp_event.GaussianDpEvent(float(s))), 100
            )
        )
    return f"eps = {acc.get_epsilon(float(DELTA)):.8g}"


def peer_cli():
    out = subprocess.run([sys.executable, "-c", PEER_SCRIPT], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def peer_autodp():
    from autodp import rdp_acct, rdp_bank

    acct = rdp_acct.anaRDPacct()
    acct.compose_poisson_subsampled_mechanisms(
        lambda x: rdp_bank.RDP_gaussian({"sigma": float(SIGMA)}, x), float(Q), coeff=STEPS
    )
    return f"eps = {acct.get_eps(float(DELTA)):.8g}"


def _opacus_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("opacus") is not None


def peer_opacus_dpsgd():
    from opacus.accountants import RDPAccountant
    from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

    orders = RDPAccountant.DEFAULT_ALPHAS
    rdp = compute_rdp(q=float(Q), noise_multiplier=float(SIGMA), steps=STEPS, orders=orders)
    eps, order = get_privacy_spent(orders=orders, rdp=rdp, delta=float(DELTA))
    return f"eps = {eps:.8g} (alpha {order})"


def _peer_opacus_rdp(orders):
    from opacus.accountants.analysis.rdp import compute_rdp

    fo = [float(a) for a in orders]
    rdp = compute_rdp(q=float(Q), noise_multiplier=float(SIGMA), steps=1, orders=fo)
    return f"rdp(10.5) = {rdp[fo.index(10.5)]:.8g}"


def _with_opacus(peers: list, opacus_fn) -> list:
    """The peer list, plus Opacus where it is installed (the fastest RDP peer)."""
    return [*peers, (opacus_fn, "opacus")] if _opacus_available() else peers


def _rdp_peers(orders: list) -> list:
    """The RDP peers over ``orders``: dp-accounting, plus Opacus where it is installed."""
    return _with_opacus([(partial(_peer_rdp, list(orders)), "dp-accounting")], partial(_peer_opacus_rdp, list(orders)))


def peer_prv():
    from prv_accountant import Accountant

    a = Accountant(
        noise_multiplier=float(SIGMA),
        sampling_probability=float(Q),
        delta=float(DELTA),
        eps_error=0.01,
        max_compositions=STEPS,
    )
    lo, _est, hi = a.compute_epsilon(num_compositions=STEPS)
    return f"PLD eps in [{lo:.5g}, {hi:.5g}]"


TASKS: dict[str, tuple[Callable[[], str], Any, str | None, float, bool]] = {
    # name: (ours, peer, peer name, target ratio, subprocess task)
    "dpsgd-epsilon": (
        ours_dpsgd,
        _with_opacus([(peer_dpsgd, "dp-accounting"), (peer_autodp, "autodp")], peer_opacus_dpsgd),
        None,
        0.5,
        False,
    ),
    "rdp-156": (partial(_ours_rdp, list(DEFAULT_ORDERS)), _rdp_peers(list(DEFAULT_ORDERS)), None, 2.0, False),
    "rdp-156-30": (partial(_ours_rdp, list(DEFAULT_ORDERS), 30), _rdp_peers(list(DEFAULT_ORDERS)), None, 1.0, False),
    "rdp-1000": (partial(_ours_rdp, ORDERS_1000), _rdp_peers(ORDERS_1000), None, 1.0, False),
    "rdp-1000-30": (partial(_ours_rdp, ORDERS_1000, 30), _rdp_peers(ORDERS_1000), None, 3.0, False),
    "pld-epsilon": (
        partial(_ours_pld, STEPS, "0.01"),
        _Comparable(STEPS, "0.01"),
        "dp-accounting PLD, comparable accuracy",
        1.0,
        False,
    ),
    "pld-bracket": (
        partial(_ours_pld, STEPS, "0.01"),
        _ComparablePair(STEPS, "0.01"),
        "dp-accounting PLD pessimistic + optimistic (a float bracket), same grid",
        1.0,
        False,
    ),
    "pld-epsilon-w0.001": (
        partial(_ours_pld, STEPS, "0.001"),
        _Comparable(STEPS, "0.001"),
        "dp-accounting PLD, comparable accuracy",
        1.0,
        False,
    ),
    "pld-epsilon-1e6": (
        partial(_ours_pld, 10**6, "0.01"),
        _Comparable(10**6, "0.01"),
        "dp-accounting PLD, comparable accuracy",
        1.0,
        False,
    ),
    "pld-calibrate": (
        ours_pld_calibrate,
        _ComparableCalibration(),
        "dp-accounting PLD calibrate_dp_mechanism, same sigma",
        1.0,
        False,
    ),
    "calibrate-sigma-4": (ours_calibrate4, peer_calibrate4, "dp-accounting calibrate_dp_mechanism", 1.0, False),
    "calibrate-sigma-7": (ours_calibrate7, peer_calibrate7, "dp-accounting calibrate_dp_mechanism", 1.0, False),
    "calibrate-steps": (ours_steps, peer_steps, "dp-accounting calibrate_dp_mechanism", 1.0, False),
    "cli-epsilon": (ours_cli, peer_cli, "one-shot dp-accounting script", 1.0, True),
    "events-100": (ours_events, peer_events, "dp-accounting", 0.5, False),
}
SLOW = {"fswor-replace-one": ours_fswor_r1, "poisson-replace-one": ours_poisson_r1}
#: tasks of a second or more per run: at most 3 repetitions
SLOW_TASKS = {"rdp-1000", "rdp-1000-30", "pld-epsilon-w0.001", "pld-epsilon-1e6", "pld-calibrate"}


def cpu_time(fn, child: bool):
    if child:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = fn()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), out
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def fmt(t: float) -> str:
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", nargs="+", choices=sorted(TASKS) + sorted(SLOW))
    ap.add_argument("--slow", action="store_true", help="also time the two slow replace-one cases (ours only, once)")
    ap.add_argument("--all-peers", action="store_true", help="also time autodp and prv-accountant once (DP-SGD task)")
    args = ap.parse_args(argv)
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        print("dp-accounting is not installed (pip install '.[peers]'): nothing to compare with")
        return 1
    names = [n for n in TASKS if not args.only or n in args.only]
    print(f"CPU-time medians of {args.repeat} interleaved runs; load average {os.getloadavg()[0]:.1f}")
    print("| task | ours | peer | ratio (target) | our answer | peer's answer |")
    print("|---|---|---|---|---|---|")
    for name in names:
        ours, peers, peer_name, target, child = TASKS[name]
        if peer_name is not None:
            peers = [(peers, peer_name)]
        ours()  # warm-up (imports)
        for fn, _ in peers:
            fn()
        t_o: list = []
        t_p: dict = {label: [] for _, label in peers}
        a_o = ""
        a_p: dict = {}
        reps = args.repeat if name not in SLOW_TASKS else max(1, min(args.repeat, 3))
        for i in range(reps):
            order = [("o", ours, "")] + [("p", fn, label) for fn, label in peers]
            for who, fn, label in order if i % 2 == 0 else order[::-1]:
                t, out = cpu_time(fn, child)
                if who == "o":
                    t_o.append(t)
                    a_o = out
                else:
                    t_p[label].append(t)
                    a_p[label] = out
        mo = statistics.median(t_o)
        # the fastest peer of this run
        peer_name, mp = min(((label, statistics.median(ts)) for label, ts in t_p.items()), key=lambda t: t[1])
        a_p = a_p[peer_name]
        ok = "ok" if mo / mp <= target else "MISSED"
        print(
            f"| {name} | {fmt(mo)} | {fmt(mp)} ({peer_name}) | {mo / mp:.2f}x (<= {target}x, {ok}) | {a_o} | {a_p} |",
            flush=True,
        )
    if args.all_peers:
        for label, fn in (("prv-accountant", peer_prv),):
            t, out = cpu_time(fn, False)
            print(f"| dpsgd-epsilon, {label} (once) | - | {fmt(t)} | - | - | {out} |", flush=True)
    for name, fn in SLOW.items():
        if args.slow or (args.only and name in args.only):
            t, out = cpu_time(fn, False)
            print(
                f"| {name} (once) | {fmt(t)} | - | target <= 2 s: {'ok' if t <= 2 else 'MISSED'} | {out} | - |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
