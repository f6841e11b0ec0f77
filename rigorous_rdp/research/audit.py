r"""Audit of peer accountants against certified values.

For a grid of realistic and edge-case DP-SGD configurations (Poisson-subsampled
Gaussian, add/remove adjacency; fixed-size sampling when the accountant has a
certified bound for it), every installed peer accountant computes epsilon, and
the audit reports, per peer and configuration, the peer's value, ours, and
flags:

* ``exception``: the peer raised;
* ``nan`` / ``inf``: the peer returned a non-finite epsilon (where ours is finite);
* ``dropped-orders``: the peer's per-order RDP is ``inf``/NaN at orders where the
  certified value is finite (the peer silently excluded them);
* ``rdp-below-certified``: the peer's RDP at some order is below the *lower*
  end of our certified enclosure of the exact RDP at that order -- an
  under-report, since the Poisson-subsampled Gaussian bound is exact (the true
  RDP, nothing smaller is valid);
* ``...-by-rounding`` variants of the two flags above: the shortfall is at most
  :data:`ROUNDING_LEVEL` relative (float rounding; still an under-report, but
  not a mathematical error);
* ``negative-rdp``: a negative per-order RDP (invalid; dp-accounting turns it
  into epsilon = 0);
* ``epsilon-below-certified``: the peer's RDP-based epsilon is below the lower
  end of our certified epsilon for the *same theorem and conversion on the same
  order grid*.

Like with like: dp-accounting's ``RdpAccountant`` converts with Canonne, Kamath,
Steinke 2020 Prop. 12 on its default grid and returns epsilon = 0 when
:math:`\delta \ge \sqrt{1-e^{-\mathrm{rdp}}}`; our counterpart is
``RdpAccountant(orders=<the same grid>, continuous=False, conversion="best")``,
whose ``"best"`` is exactly that (CKS, the TV shortcut, and Mironov's bound,
which is never smaller than CKS).  Opacus's ``get_privacy_spent`` uses Balle et
al. 2020 Thm. 21, the same expression, on the grid we pass it.  autodp's and
prv-accountant's epsilons come from other conversions or other theorems (the
privacy-loss distribution), so for them only failures and per-order RDP (autodp)
are flagged; their epsilon is reported for information.

The peers are optional (``pip install rigorous-rdp[peers]``); without them the
audit says so.
"""

from __future__ import annotations

import importlib
import logging
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flint import arb

from .. import progress as _progress
from ..accountant import DEFAULT_ORDERS, RdpAccountant
from ..arith import decimal_lower, workprec
from ..events import Adjacency, DpEvent, FixedSizeSampledEvent, GaussianEvent, PoissonSampledEvent
from ..registry import rdp_curve

__all__ = ["PEERS", "AuditConfig", "audit_configs", "available_peers", "run_audit"]

PEERS = ("dp-accounting", "autodp", "prv-accountant", "opacus")
_PEER_MODULES = {
    "dp-accounting": "dp_accounting",
    "autodp": "autodp.mechanism_zoo",
    "prv-accountant": "prv_accountant",
    "opacus": "opacus.accountants.analysis.rdp",
}
#: relative shortfall below which an under-report is attributed to float rounding
ROUNDING_LEVEL = 1e-11

_DISTS = {"dp-accounting": "dp-accounting", "autodp": "autodp", "prv-accountant": "prv-accountant", "opacus": "opacus"}


@dataclass(frozen=True)
class AuditConfig:
    """One DP-SGD configuration of the audit grid.

    Attributes:
        name: short identifier.
        q: sampling probability (Poisson) or batch_size / dataset_size (fixed size).
        sigma: noise multiplier.
        steps: number of steps.
        delta: target delta.
        sampling: ``"poisson"`` or ``"fswor"``.
        batch_size, dataset_size: for ``"fswor"``.
        why: what the configuration probes.
    """

    name: str
    q: Fraction
    sigma: Fraction
    steps: int
    delta: Fraction
    sampling: str = "poisson"
    batch_size: int | None = None
    dataset_size: int | None = None
    why: str = ""

    def event(self, adjacency: Adjacency = Adjacency.ADD_REMOVE) -> DpEvent:
        if self.sampling == "poisson":
            return PoissonSampledEvent(GaussianEvent(self.sigma), self.q, adjacency)
        if self.batch_size is None or self.dataset_size is None:
            raise ValueError(f"{self.name}: fixed-size sampling needs batch_size and dataset_size")
        return FixedSizeSampledEvent(
            GaussianEvent(self.sigma), self.batch_size, self.dataset_size, replacement=False, adjacency=adjacency
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "sampling": self.sampling,
            "q": _ratjson(self.q),
            "sigma": _ratjson(self.sigma),
            "steps": self.steps,
            "delta": _ratjson(self.delta),
        }
        if self.sampling != "poisson":
            out.update(batch_size=self.batch_size, dataset_size=self.dataset_size)
        out["probes"] = self.why
        return out


def _ratjson(x: Fraction) -> Any:
    f = float(x)
    return f if Fraction(f) == x else f"{x.numerator}/{x.denominator}"


def audit_configs(quick: bool = False) -> list[AuditConfig]:
    """The configuration grid (``quick``: a small subset for smoke tests)."""
    F = Fraction
    full = [
        AuditConfig("mnist", F(1, 100), F(11, 10), 10000, F(1, 10**5), why="Abadi et al. 2016 MNIST setting"),
        AuditConfig(
            "small-sigma",
            F(1, 10),
            F(1, 2),
            100,
            F(1, 10**5),
            why="small sigma: fractional-order series of float accountants diverge",
        ),
        AuditConfig("large-q", F(1, 2), F(2), 10, F(1, 10**5), why="large sampling rate, fractional orders"),
        AuditConfig("tiny-q", F(1, 10**6), F(1), 1000, F(1, 10**5), why="tiny q: RDP near underflow"),
        AuditConfig(
            "frac-order-precision",
            F(1, 10**4),
            F(4, 5),
            1,
            F(1, 10**5),
            why="loss of precision at fractional orders (alpha = 10.5)",
        ),
        AuditConfig("many-steps", F(1, 1000), F(4, 5), 10**6, F(1, 10**6), why="one million steps"),
        AuditConfig(
            "large-sigma-q", F(2, 5), F(12), 1000, F(1, 10**5), why="alpha * log(1/(1-q)) large at high orders"
        ),
        AuditConfig("cifar", F(256, 50000), F(1), 20000, F(1, 10**5), why="CIFAR-10 scale DP-SGD"),
        AuditConfig(
            "fixed-size",
            F(256, 60000),
            F(1),
            2000,
            F(1, 10**5),
            sampling="fswor",
            batch_size=256,
            dataset_size=60000,
            why="fixed-size sampling without replacement",
        ),
    ]
    if quick:
        keep = {"mnist", "small-sigma", "frac-order-precision"}
        return [c for c in full if c.name in keep]
    return full


def _import(name: str):
    return importlib.import_module(_PEER_MODULES[name])


def available_peers() -> dict[str, str | None]:
    """``{peer: version or None}``; None when the peer cannot be imported."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for p in PEERS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _import(p)
        except Exception:
            out[p] = None
            continue
        try:
            out[p] = metadata.version(_DISTS[p])
        except metadata.PackageNotFoundError:
            out[p] = "unknown"
    return out


# ---------------------------------------------------------------------------
# our values
# ---------------------------------------------------------------------------


@dataclass
class _Ours:
    supported: bool
    same_grid: Any | None = None  # EpsilonResult with the peer-like settings
    best: Any | None = None  # EpsilonResult with continuous order search
    rdp_lower: list[arb | None] = field(default_factory=list)  # certified lower of T * rdp at each grid order
    error: str | None = None


def _ours(cfg: AuditConfig, orders: Sequence[Fraction], adjacency: Adjacency) -> _Ours:
    event = cfg.event(adjacency)
    acc = RdpAccountant(orders, continuous=False, conversion="best", digits=10)
    if not acc.supports(event):
        return _Ours(False, error="no certified bound in rigorous_rdp for this event")
    try:
        acc.compose(event, cfg.steps)
        same = acc.get_epsilon_and_order(cfg.delta)
        best = (
            RdpAccountant(continuous=True, conversion="best").compose(event, cfg.steps).get_epsilon_and_order(cfg.delta)
        )
        curve = rdp_curve(event)
        lows: list[arb | None] = []
        with workprec(128):
            for a in orders:
                try:
                    v = cfg.steps * curve.certified(a)
                    lows.append(v.lower() if v.is_finite() else None)
                except (ValueError, ArithmeticError):
                    lows.append(None)
        return _Ours(True, same, best, lows)
    except (ValueError, ArithmeticError) as exc:
        return _Ours(False, error=f"{type(exc).__name__}: {exc}")


def _below(peer: float, lower: arb | None) -> bool:
    """True if the float ``peer`` is certainly below the certified lower end."""
    if lower is None or not math.isfinite(peer):
        return False
    with workprec(128):
        return bool(arb(peer) < lower)


def _rel_shortfall(peer: float, lower: arb) -> float:
    lo = float(Fraction(decimal_lower(lower, 20)))
    return (lo - peer) / abs(lo) if lo != 0 else math.inf


# ---------------------------------------------------------------------------
# peers
# ---------------------------------------------------------------------------


def _check_rdp(
    peer_rdp: Sequence[float], orders: Sequence[Fraction], ours: _Ours, flags: list[str], out: dict[str, Any]
) -> None:
    dropped = [
        str(float(a))
        for a, r, lo in zip(orders, peer_rdp, ours.rdp_lower, strict=False)
        if (not math.isfinite(r)) and lo is not None
    ]
    if dropped:
        flags.append("dropped-orders")
        out["dropped_orders"] = dropped
    below: list[dict[str, Any]] = []
    for a, r, lo in zip(orders, peer_rdp, ours.rdp_lower, strict=False):
        if lo is not None and _below(r, lo):
            below.append(
                {
                    "alpha": float(a),
                    "peer": r,
                    "certified_lower": decimal_lower(lo, 17),
                    "relative_shortfall": _rel_shortfall(r, lo),
                }
            )
    if below:
        worst = max(d["relative_shortfall"] for d in below)
        # shortfalls up to ROUNDING_LEVEL are float rounding; beyond it, a real under-report
        flags.append("rdp-below-certified" if worst > ROUNDING_LEVEL else "rdp-below-certified-by-rounding")
        out["rdp_below"] = sorted(below, key=lambda d: -d["relative_shortfall"])[:5]
        out["rdp_below_count"] = len(below)
    negative = [float(a) for a, r in zip(orders, peer_rdp, strict=False) if math.isfinite(r) and r < 0]
    if negative:
        flags.append("negative-rdp")
        out["negative_rdp_orders"] = negative


def _peer_dp_accounting(cfg: AuditConfig, orders: Sequence[Fraction], ours: _Ours) -> dict[str, Any]:
    import dp_accounting

    fo = [float(a) for a in orders]
    if cfg.sampling == "poisson":
        acc = dp_accounting.rdp.RdpAccountant(fo)
        ev = dp_accounting.PoissonSampledDpEvent(float(cfg.q), dp_accounting.GaussianDpEvent(float(cfg.sigma)))
        same_theorem = True
    else:
        acc = dp_accounting.rdp.RdpAccountant(fo, dp_accounting.NeighboringRelation.REPLACE_ONE)
        ev = dp_accounting.SampledWithoutReplacementDpEvent(
            cfg.dataset_size, cfg.batch_size, dp_accounting.GaussianDpEvent(float(cfg.sigma))
        )
        same_theorem = False
    acc.compose(ev, cfg.steps)
    eps, order = acc.get_epsilon_and_optimal_order(float(cfg.delta))
    out: dict[str, Any] = {
        "epsilon": float(eps),
        "order": float(order),
        "same_theorem": same_theorem,
        "note": "CKS 2020 Prop. 12 on the given grid"
        if same_theorem
        else "replace-one, Wang-Balle-Kasiviswanathan 2019 bound (a different theorem)",
    }
    flags: list[str] = []
    if same_theorem:
        _check_rdp([float(r) for r in acc._rdp], orders, ours, flags, out)
        out["compare_with"] = "same grid, continuous=False, conversion=best (CKS + TV)"
        _check_eps(float(eps), ours, flags, out)
    out["flags"] = flags
    return out


def _check_eps(eps: float, ours: _Ours, flags: list[str], out: dict[str, Any]) -> None:
    if ours.same_grid is not None and _below(eps, ours.same_grid.epsilon.lower()):
        rel = _rel_shortfall(eps, ours.same_grid.epsilon.lower())
        out["epsilon_relative_shortfall"] = rel
        flags.append("epsilon-below-certified" if rel > ROUNDING_LEVEL else "epsilon-below-certified-by-rounding")


def _peer_opacus(cfg: AuditConfig, orders: Sequence[Fraction], ours: _Ours) -> dict[str, Any]:
    mod = _import("opacus")
    if cfg.sampling != "poisson":
        return {"skipped": "Opacus's RDP analysis covers Poisson sampling only", "flags": []}
    fo = [float(a) for a in orders]
    rdp = mod.compute_rdp(q=float(cfg.q), noise_multiplier=float(cfg.sigma), steps=cfg.steps, orders=fo)
    eps, order = mod.get_privacy_spent(orders=fo, rdp=rdp, delta=float(cfg.delta))
    out: dict[str, Any] = {
        "epsilon": float(eps),
        "order": float(order),
        "same_theorem": True,
        "note": "Balle et al. 2020 Thm. 21 (= CKS) on the given grid",
        "compare_with": "same grid, continuous=False, conversion=best",
    }
    flags: list[str] = []
    _check_rdp([float(r) for r in rdp], orders, ours, flags, out)
    _check_eps(float(eps), ours, flags, out)
    out["flags"] = flags
    return out


def _peer_autodp(cfg: AuditConfig, orders: Sequence[Fraction], ours: _Ours) -> dict[str, Any]:
    mz = _import("autodp")
    if cfg.sampling != "poisson":
        return {"skipped": "audited for Poisson sampling only", "flags": []}
    mech = mz.SubsampleGaussianMechanism({"prob": float(cfg.q), "sigma": float(cfg.sigma), "coeff": cfg.steps})
    eps = float(mech.get_approxDP(float(cfg.delta)))
    rdp = []
    for a in orders:
        try:
            rdp.append(float(mech.RenyiDP(float(a))))
        except Exception:
            rdp.append(math.nan)
    out: dict[str, Any] = {
        "epsilon": eps,
        "same_theorem": False,
        "note": "epsilon uses autodp's own RDP-to-DP conversion (information only); "
        "per-order RDP compared with the exact certified RDP",
    }
    flags: list[str] = []
    _check_rdp(rdp, orders, ours, flags, out)
    out["flags"] = flags
    return out


def _peer_prv(cfg: AuditConfig, orders: Sequence[Fraction], ours: _Ours, quick: bool) -> dict[str, Any]:
    pa = _import("prv-accountant")
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    if cfg.sampling != "poisson":
        return {"skipped": "audited for Poisson sampling only", "flags": []}
    eps_error = 0.1 if quick else 0.02
    acc = pa.PRVAccountant(
        prvs=[PoissonSubsampledGaussianMechanism(sampling_probability=float(cfg.q), noise_multiplier=float(cfg.sigma))],
        max_self_compositions=[cfg.steps],
        eps_error=eps_error,
        delta_error=float(cfg.delta) / 1000,
    )
    lo, est, hi = acc.compute_epsilon(delta=float(cfg.delta), num_self_compositions=[cfg.steps])
    out: dict[str, Any] = {
        "epsilon": float(hi),
        "epsilon_estimate": float(est),
        "epsilon_lower": float(lo),
        "same_theorem": False,
        "eps_error": eps_error,
        "note": "privacy-loss-distribution accountant (a different, tighter theory; information only)",
    }
    out["flags"] = []
    return out


def _run_peer(name: str, cfg: AuditConfig, orders: Sequence[Fraction], ours: _Ours, quick: bool) -> dict[str, Any]:
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "dp-accounting":
                out = _peer_dp_accounting(cfg, orders, ours)
            elif name == "opacus":
                out = _peer_opacus(cfg, orders, ours)
            elif name == "autodp":
                out = _peer_autodp(cfg, orders, ours)
            else:
                out = _peer_prv(cfg, orders, ours, quick)
    except Exception as exc:
        return {
            "flags": ["exception"],
            "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}",
            "seconds": round(time.perf_counter() - t0, 3),
        }
    eps = out.get("epsilon")
    if eps is not None and ours.best is not None:
        if math.isnan(eps):
            out["flags"].insert(0, "nan")
        elif math.isinf(eps):
            out["flags"].insert(0, "inf")
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def run_audit(
    quick: bool = False, peers: Sequence[str] | None = None, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Run the audit and return the JSON-ready report.

    Args:
        quick: small configuration grid.
        peers: restrict to these peers (default: all installed).
        progress: called with a label before each configuration.
    """
    installed = available_peers()
    if peers is not None:
        for p in peers:
            if p not in PEERS:
                raise ValueError(f"peer must be one of {', '.join(PEERS)}. Found {p!r}.")
    active = [p for p in PEERS if installed[p] is not None and (peers is None or p in peers)]
    report: dict[str, Any] = {
        "peers": {p: {"installed": v is not None, "version": v} for p, v in installed.items()},
        "quick": quick,
    }
    if not active:
        report.update(
            configurations=[],
            flags=0,
            message="no peer accountants installed (pip install 'rigorous-rdp[peers]'); nothing to audit",
        )
        return report
    orders = list(DEFAULT_ORDERS)
    logger = logging.getLogger("absl")
    old_level = logger.level
    logger.setLevel(logging.ERROR)
    rows = []
    total_flags = 0
    try:
        configs = list(audit_configs(quick))
        for cfg in _progress.iterate(configs, "peer audit", "configurations", whole=True):
            if progress is not None:
                progress(cfg.name)
            adjacency = Adjacency.ADD_REMOVE if cfg.sampling == "poisson" else Adjacency.REPLACE_ONE
            t0 = time.perf_counter()
            ours = _ours(cfg, orders, adjacency)
            row: dict[str, Any] = {"config": cfg.to_json(), "adjacency": adjacency.value}
            if ours.supported:
                assert ours.same_grid is not None and ours.best is not None  # both set when supported
                row["ours"] = {
                    "epsilon_same_grid": ours.same_grid.epsilon.to_json(),
                    "alpha_same_grid": _ratjson(ours.same_grid.order) if ours.same_grid.order is not None else None,
                    "epsilon_best": ours.best.epsilon.to_json(),
                    "alpha_best": _ratjson(ours.best.order) if ours.best.order is not None else None,
                    "seconds": round(time.perf_counter() - t0, 3),
                }
            else:
                row["ours"] = {"supported": False, "reason": ours.error}
            row["peers"] = {}
            for p in active:
                if not ours.supported:
                    row["peers"][p] = {"skipped": "no certified value to compare with", "flags": []}
                    continue
                res = _run_peer(p, cfg, orders, ours, quick)
                total_flags += len(res.get("flags", []))
                row["peers"][p] = res
            rows.append(row)
    finally:
        logger.setLevel(old_level)
    report["configurations"] = rows
    report["flags"] = total_flags
    return report
