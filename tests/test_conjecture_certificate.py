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
    out = subprocess.run(
        [sys.executable, "-m", "rigorous_rdp", "verify", str(path)], capture_output=True, text=True, timeout=120
    )
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
    with pytest.raises(ValueError, match=r"^d must be 1"):
        make_holds_certificate(TRI)


def test_triangle_certificate_brackets_independent_values():
    """The certificate's bounds against values computed outside the project: LHS by a 2-d
    ``mpmath.quad`` of (p - q)^2 / q at 20 digits (lambda = 2: G = 1 + chi^2), 7.9314620962e-4
    (``scipy.integrate.nquad`` agrees to 10 digits; Monte Carlo with 4e6 samples: 8.16e-4 +/- 0.29e-4);
    RHS in closed form, log(1 + r^2 (e - 1)) with r = 1/50 (sigma = 1, lambda = 2, (9.5))."""
    import mpmath

    cert = make_violation_certificate(TRI)
    lhs_ref = F("7.9314620962e-4")
    mpmath.mp.dps = 30
    rhs_ref = mpmath.log(1 + (mpmath.e - 1) / 2500)
    assert F(cert["claim"]["lhs_lower"]) <= lhs_ref * F(1 - 1e-9)  # a lower bound of the true value
    assert F(cert["claim"]["lhs_lower"]) >= lhs_ref * F(99, 100)  # and a tight one (cells sigma/4)
    assert mpmath.mpf(cert["claim"]["rhs_upper"]) >= rhs_ref
    assert mpmath.mpf(cert["claim"]["rhs_upper"]) - rhs_ref < mpmath.mpf(10) ** -17
    assert F(cert["claim"]["ratio_lower"]) <= lhs_ref / F(str(rhs_ref))  # true ratio 1.15438


def test_holds_quadrature_in_two_dimensions_agrees_with_independent_and_certified_values():
    """The verifier's LHS quadrature over the affine hull of the atoms: the triangle (d = 2, and the
    same triangle embedded in d = 3) against the independent 2-d value 7.9314620962e-4 (mpmath.quad
    of (p - q)^2 / q, scipy nquad agrees to 10 digits) and inside the certified enclosure of
    certify_config (cell lower bound, pairing upper bound); a 1-d configuration inside its certified
    1-d enclosure."""
    import mpmath

    from rigorous_rdp.research.conjecture import certify_config
    from rigorous_rdp.research.conjecture_certificate import _mp_lhs_quad

    mpmath.mp.dps = 30
    try:
        g1, err = _mp_lhs_quad(TRI)
        lhs = mpmath.log1p(g1)
        assert abs(lhs / mpmath.mpf("7.9314620962e-4") - 1) < 1e-9 and err < 1e-15
        c1 = ProbeConfig("range", 3, 1, F(0), F(1), F(4), ((F(1, 2),), (F(0),)), (1, 1), (F(1),), (F(0),))
        res1 = certify_config(c1, 10)
        lhs1 = mpmath.log1p(_mp_lhs_quad(c1)[0]) / 3
        assert mpmath.mpf(res1["lhs"].ball.lower().str(30, radius=False)) <= lhs1
        assert lhs1 <= mpmath.mpf(res1["lhs"].ball.upper().str(30, radius=False))
        # three affinely independent directions: no independent quadrature, the claim is refused
        tet = ProbeConfig(
            "range",
            3,
            1,
            F(0),
            F(1),
            F(2),
            ((F(0), F(0), F(0)), (F(0), F(1, 2), F(0))),
            (1, 1),
            (F(1, 2), F(0), F(0)),
            (F(0), F(0), F(1, 2)),
        )
        with pytest.raises(ValueError, match="affine hull of dimension 3"):
            _mp_lhs_quad(tet)
    finally:
        mpmath.mp.dps = 15


def test_a_holds_claim_for_the_violated_triangle_is_refused():
    """Issue 28: a holds certificate for the triangle (true ratio 1.154), digest recomputed, verified
    with "LHS / RHS = 0.3906" because the independent path read only the first coordinate."""
    from rigorous_rdp.research.conjecture_certificate import HOLDS_STATEMENT, _hash

    cert = make_holds_certificate(
        ProbeConfig("range", 3, 1, F(0), F(1), F(4), ((F(1, 2),), (F(0),)), (1, 1), (F(1),), (F(0),))
    )
    bad = dict(cert, config=TRI.to_json(), statement=HOLDS_STATEMENT)
    bad["claim"] = {"lhs_upper": "0.0006", "rhs_lower": "0.00068", "ratio_upper": "0.9", "verdict": "holds"}
    bad["sha256"] = _hash(bad)
    res = verify_certificate(bad)
    assert not res.ok and "above the stated lhs_upper" in res.reason
    assert abs(float(res.details["ratio"]) - 1.15438) < 1e-4


@pytest.mark.slow
def test_holds_quadrature_of_the_triangle_lies_in_the_certified_enclosure():
    """The 2-d quadrature inside certify_config's enclosure (cell lower bound, pairing upper bound),
    and the same for the triangle embedded in d = 3 (about 30 s under load)."""
    import mpmath

    from rigorous_rdp.research.conjecture import certify_config
    from rigorous_rdp.research.conjecture_certificate import _mp_lhs_quad

    mpmath.mp.dps = 30
    try:
        lhs = mpmath.log1p(_mp_lhs_quad(TRI)[0])
        tri3 = ProbeConfig(
            "range",
            50,
            1,
            F(0),
            F(1),
            F(2),
            ((F(0), F(0), F(0)),),
            (49,),
            (F(1), F(0), F(0)),
            (F(1, 2), F(866, 1000), F(0)),
        )
        assert abs(mpmath.log1p(_mp_lhs_quad(tri3)[0]) / lhs - 1) < 1e-12
        res = certify_config(TRI)
        assert mpmath.mpf(res["lhs"].ball.lower().str(30, radius=False)) <= lhs
        assert lhs <= mpmath.mpf(res["lhs"].ball.upper().str(30, radius=False))
    finally:
        mpmath.mp.dps = 15


@pytest.mark.slow
def test_a_holds_claim_for_the_probe_violation_with_a_real_order_is_refused():
    """The probe's 2-d violation (n = 81, m = 2, lambda = 115/64, sigma = 31/16): the quadrature over
    the plane of its three atoms gives LHS 1.706989e-4 and ratio 1.022714 (scipy nquad, outside the
    project, docs/blog_part2_conjecture.md); a holds claim for it is refused (about 20 s)."""
    from rigorous_rdp.research.conjecture_certificate import _hash

    cfg = ProbeConfig(
        "range",
        81,
        2,
        F(0),
        F(31, 16),
        F(115, 64),
        ((F(317, 1024), F(483, 1024)),),
        (80,),
        (F(-139, 256), F(7, 512)),
        (F(329, 1024), F(-245, 512)),
    )
    cert = make_holds_certificate(
        ProbeConfig("range", 3, 1, F(0), F(1), F(4), ((F(1, 2),), (F(0),)), (1, 1), (F(1),), (F(0),))
    )
    bad = dict(cert, config=cfg.to_json())
    bad["claim"] = {"lhs_upper": "0.0001", "rhs_lower": "0.000166", "ratio_upper": "0.99", "verdict": "holds"}
    bad["sha256"] = _hash(bad)
    res = verify_certificate(bad)
    assert not res.ok and "above the stated lhs_upper" in res.reason
    assert abs(float(res.details["lhs"]) / 1.706989e-4 - 1) < 1e-6
    assert abs(float(res.details["ratio"]) - 1.022714) < 1e-6
