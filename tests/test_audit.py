"""Audit of peer accountants: runs with and without peers; known findings are flagged."""

from __future__ import annotations

import json
import sys

import mpmath
import pytest

from rigorous_rdp.cli import main
from rigorous_rdp.research.audit import _PEER_MODULES, run_audit


@pytest.fixture(scope="module")
def quick_report():
    pytest.importorskip("dp_accounting")
    return run_audit(quick=True, peers=["dp-accounting"])


def _row(report, name):
    return next(r for r in report["configurations"] if r["config"]["name"] == name)


def test_audit_with_dp_accounting(quick_report):
    assert quick_report["peers"]["dp-accounting"]["installed"]
    # dp-accounting drops fractional orders for q = 0.1, sigma = 0.5 (returns inf there)
    small = _row(quick_report, "small-sigma")["peers"]["dp-accounting"]
    assert "dropped-orders" in small["flags"] and "1.5" in small["dropped_orders"]
    # and under-reports log A at q = 1e-4, sigma = 0.8 by more than float rounding
    frac = _row(quick_report, "frac-order-precision")["peers"]["dp-accounting"]
    assert "rdp-below-certified" in frac["flags"]
    # the MNIST setting agrees to rounding: no epsilon below our certified value beyond rounding
    mnist = _row(quick_report, "mnist")
    assert "epsilon-below-certified" not in mnist["peers"]["dp-accounting"]["flags"]
    ours = mpmath.mpf(mnist["ours"]["epsilon_same_grid"]["upper"])
    peer = mnist["peers"]["dp-accounting"]["epsilon"]
    assert abs(peer - ours) < 1e-5 * ours


def test_flagged_shortfall_is_real(quick_report):
    """The under-report flagged at alpha = 10.5 is confirmed by the mpmath reference (independent)."""
    from fractions import Fraction

    from rigorous_rdp import GaussianEvent, PoissonSampledEvent
    from rigorous_rdp.reference import reference_rdp

    frac = _row(quick_report, "frac-order-precision")["peers"]["dp-accounting"]
    worst = frac["rdp_below"][0]
    ref = reference_rdp(
        PoissonSampledEvent(GaussianEvent(Fraction(4, 5)), Fraction(1, 10**4)),
        Fraction(worst["alpha"]).limit_denominator(100),
        40,
    )
    assert worst["peer"] < ref * (1 - mpmath.mpf(10) ** -12)


def test_audit_without_peers(monkeypatch, capsys):
    for mod in set(_PEER_MODULES.values()) | {"dp_accounting", "autodp", "prv_accountant", "opacus"}:
        monkeypatch.setitem(sys.modules, mod, None)  # makes "import mod" raise ImportError
    report = run_audit(quick=True)
    assert report["configurations"] == [] and "no peer" in report["message"]
    assert main(["audit", "--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["flags"] == 0 and "no peer" in out["message"]


def test_audit_bad_input(capsys):
    assert main(["audit", "--peer", "nosuchpeer"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rigorous-rdp: error:")
