"""Conjecture 1 certificates: written by rigorous_rdp.research.conjecture_certificate, re-checked by
``rigorous-rdp verify`` with mpmath (independent enumeration of the laws, ncdf cell masses)."""

import json
import subprocess
import sys
from fractions import Fraction as F

import pytest

from rigorous_rdp.certificate import verify_certificate
from rigorous_rdp.research.conjecture import ProbeConfig
from rigorous_rdp.research.conjecture_certificate import make_holds_certificate, make_violation_certificate

TRI = ProbeConfig("range", 50, 1, F(0), F(1), F(2), ((F(0), F(0)),), (49,), (F(1), F(0)), (F(1, 2), F(866, 1000)))


def test_violation_certificate_verifies_and_tampering_fails(tmp_path):
    cert = make_violation_certificate(TRI)
    assert F(cert["claim"]["ratio_lower"]) > F(114, 100)
    res = verify_certificate(cert)
    assert res.ok, res.reason
    assert 1.14 < float(res.details["ratio"]) < 1.16
    bad = dict(cert, claim=dict(cert["claim"], ratio_lower="1.5"))
    assert not verify_certificate(bad).ok  # hash
    from rigorous_rdp.research.conjecture_certificate import _hash

    bad["sha256"] = _hash(bad)
    r2 = verify_certificate(bad)
    assert not r2.ok and "below the stated lower bound" in r2.reason
    path = tmp_path / "v.json"
    path.write_text(json.dumps(cert))
    out = subprocess.run([sys.executable, "-m", "rigorous_rdp", "verify", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("OK: verified: Conjecture 1 is violated")


def test_config_outside_model_is_rejected():
    cert = make_violation_certificate(TRI)
    cfg = dict(cert["config"], u_prime=["1/2", "9/10"])  # |u - u'| > 1
    bad = dict(cert, config=cfg)
    from rigorous_rdp.research.conjecture_certificate import _hash

    bad["sha256"] = _hash(bad)
    r = verify_certificate(bad)
    assert not r.ok and "within distance 1" in r.reason


def test_holds_certificate_verifies():
    c = ProbeConfig("range", 3, 1, F(0), F(1), F(4), ((F(1, 2),), (F(0),)), (1, 1), (F(1),), (F(0),))
    cert = make_holds_certificate(c)
    res = verify_certificate(cert)
    assert res.ok, res.reason
    assert float(res.details["ratio"]) < 0.43
    with pytest.raises(ValueError, match="^d must be 1"):
        make_holds_certificate(TRI)
