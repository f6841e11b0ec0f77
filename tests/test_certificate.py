"""Certificates: round trip, tamper detection, independent verification, CLI."""

from __future__ import annotations

import json
import os
from fractions import Fraction

import mpmath
import pytest
from _cli import CERTIFY_POISSON

from rigorous_rdp import GaussianEvent, LaplaceEvent, PoissonSampledEvent, RandomizedResponseEvent, RdpAccountant
from rigorous_rdp.certificate import (
    content_hash,
    event_from_json,
    event_to_json,
    make_certificate,
    verify_certificate,
    verify_file,
    write_certificate,
)
from rigorous_rdp.cli import main
from rigorous_rdp.errors import UnsupportedEventError
from rigorous_rdp.events import ComposedEvent, FixedSizeSampledEvent, SelfComposedEvent

POISSON = PoissonSampledEvent(GaussianEvent("1.1"), "0.01")


@pytest.fixture(scope="module")
def cert():
    return make_certificate(POISSON, 100, "1e-5", accountant=RdpAccountant(digits=10))


def _rehash(c):
    c = json.loads(json.dumps(c))
    c["sha256"] = content_hash(c)
    return c


def test_event_json_round_trip():
    events = [
        GaussianEvent("0.7"),
        LaplaceEvent(Fraction(1, 3)),
        RandomizedResponseEvent("0.75"),
        POISSON,
        FixedSizeSampledEvent(GaussianEvent(2), 10, 100, replacement=True, adjacency="replace-one"),
        SelfComposedEvent(POISSON, 7),
        ComposedEvent((POISSON, GaussianEvent(3))),
    ]
    for e in events:
        assert event_from_json(json.loads(json.dumps(event_to_json(e)))) == e


def test_round_trip_file(tmp_path, cert):
    path = tmp_path / "c.json"
    write_certificate(cert, str(path))
    assert os.listdir(tmp_path) == ["c.json"]  # no temporary file left
    res = verify_file(str(path))
    assert res.ok, res.reason
    # the verifier's reference epsilon lies in the certified enclosure
    ref = mpmath.mpf(res.details["reference_epsilon"])
    assert mpmath.mpf(cert["epsilon"]["lower"]) <= ref * (1 + mpmath.mpf(10) ** -15)
    assert ref <= mpmath.mpf(cert["epsilon"]["upper"])


def test_gaussian_certificate_against_closed_form():
    # one Gaussian step: eps at order a by CKS, computed here from exact rationals + mpmath
    c = make_certificate(GaussianEvent(2), 3, "1e-6")
    a = Fraction(c["method"]["order"])
    mpmath.mp.dps = 50
    am = mpmath.mpf(a.numerator) / a.denominator
    rdp = 3 * am / 8
    eps = rdp + mpmath.log1p(-1 / am) - (mpmath.log(mpmath.mpf("1e-6")) + mpmath.log(am)) / (am - 1)
    assert c["method"]["conversion"] == "cks"
    assert mpmath.mpf(c["epsilon"]["lower"]) <= eps <= mpmath.mpf(c["epsilon"]["upper"])
    assert verify_certificate(c).ok


def test_lowered_epsilon_rejected(cert):
    bad = json.loads(json.dumps(cert))
    bad["epsilon"]["upper"] = str(mpmath.mpf(cert["epsilon"]["upper"]) * mpmath.mpf("0.99"))
    bad["epsilon"]["lower"] = str(mpmath.mpf(cert["epsilon"]["lower"]) * mpmath.mpf("0.98"))
    assert not verify_certificate(bad).ok  # hash broken
    res = verify_certificate(_rehash(bad))  # even with a recomputed hash
    assert not res.ok and "below" in res.reason


def test_changed_sigma_rejected(cert):
    bad = json.loads(json.dumps(cert))
    bad["inputs"]["event"]["event"]["noise_multiplier"] = "1"
    bad["inputs"]["summary"]["sigma"] = "1"
    r1 = verify_certificate(bad)
    assert not r1.ok and "hash" in r1.reason
    r2 = verify_certificate(_rehash(bad))  # less noise: the stated epsilon is too small
    assert not r2.ok and "below" in r2.reason
    # summary inconsistent with the event
    bad2 = json.loads(json.dumps(cert))
    bad2["inputs"]["summary"]["sigma"] = "5"
    assert "summary" in verify_certificate(_rehash(bad2)).reason


def test_broken_hash_and_malformed(tmp_path, cert):
    bad = json.loads(json.dumps(cert))
    bad["sha256"] = "0" * 64
    res = verify_certificate(bad)
    assert not res.ok and "hash" in res.reason
    p = tmp_path / "broken.json"
    p.write_text(json.dumps(cert)[:-20])
    res = verify_file(str(p))
    assert not res.ok and res.reason.startswith("malformed JSON")
    missing = json.loads(json.dumps(cert))
    del missing["method"]
    res = verify_certificate(_rehash(missing))
    assert not res.ok and "malformed" in res.reason


def test_no_reference_fails_loudly(cert):
    def no_reference(event, alpha, dps, options):
        raise UnsupportedEventError(f"no mpmath reference for {type(event).__name__}")

    res = verify_certificate(cert, reference=no_reference)
    assert not res.ok and "cannot verify" in res.reason


def test_pure_dp_certificate():
    c = make_certificate(LaplaceEvent(2), 4, "1e-3")
    assert c["method"]["conversion"] in ("pure-dp", "cks", "mironov", "tv")
    assert verify_certificate(c).ok


def test_atomic_write_leaves_nothing_on_error(tmp_path, cert):
    bad = dict(cert)
    bad["epsilon"] = float("nan")
    with pytest.raises(ValueError):
        write_certificate(bad, str(tmp_path / "x.json"))
    assert os.listdir(tmp_path) == []


def test_cli_certify_verify(tmp_path, capsys):
    out = tmp_path / "cert.json"
    rc = main([*CERTIFY_POISSON, "--out", str(out), "--json"])
    assert rc == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["epsilon"] == json.loads(out.read_text())["epsilon"]
    assert main(["verify", str(out)]) == 0
    assert capsys.readouterr().out.startswith("OK")
    c = json.loads(out.read_text())
    c["epsilon"]["upper"] = "0.1"
    out.write_text(json.dumps(c))
    assert main(["verify", str(out), "--json"]) == 1
    res = json.loads(capsys.readouterr().out)
    assert res["verified"] is False and "hash" in res["reason"]


@pytest.mark.parametrize(
    "argv",
    [
        ["certify", "--sigma", "1", "--steps", "10", "--delta", "2", "--out", "X"],
        ["certify", "--sigma", "-1", "--steps", "10", "--delta", "1e-5", "--out", "X"],
        ["certify", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--out", "/nonexistent-dir/c.json"],
        ["certify", "--sigma", "1", "--steps", "10", "--delta", "1e-5"],
        ["verify", "/nonexistent-dir/c.json"],
        ["verify", "x.json", "--dps", "5"],
    ],
    ids=["delta", "sigma", "out-dir", "no-out", "missing-file", "dps"],
)
def test_cli_bad_input(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rigorous-rdp: error: ")
    assert not os.path.exists(tmp_path / "X")


# ---------------------------------------------------------------------------
# strict parsing and every field checked (issue "Verify means verified")
# ---------------------------------------------------------------------------


def test_duplicated_key_refused_and_byte_order_mark_accepted(tmp_path, cert):
    text = json.dumps(cert)
    dup = tmp_path / "dup.json"
    # Python's json keeps the last value (the valid one); a reader keeping the first sees 0.1
    dup.write_text(text.replace('"epsilon": {', '"epsilon": {"lower": "0", "upper": "0.1"}, "epsilon": {', 1))
    res = verify_file(str(dup))
    assert not res.ok and "duplicated key 'epsilon'" in res.reason
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert verify_file(str(bom)).ok


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("epsilon", "upper"), "9.9_99"),
        (("epsilon", "upper"), "+9.99"),
        (("epsilon", "upper"), "9.99 "),
        (("epsilon", "upper"), "1e999999999"),
        (("method", "order"), "5.5"),  # 11/2 spelled as a decimal: one value, one spelling
        (("method", "order"), "22/4"),
        (("inputs", "delta"), "1e-5"),
    ],
    ids=["underscore", "plus", "blank", "huge-exponent", "order-decimal", "order-not-reduced", "delta-decimal"],
)
def test_numbers_outside_the_grammar_refused(cert, path, value):
    bad = json.loads(json.dumps(cert))
    bad[path[0]][path[1]] = value
    bad.pop("claim")
    res = verify_certificate(_rehash(bad))
    assert not res.ok and res.reason.startswith("malformed certificate"), res.reason


def test_claim_text_is_generated_and_checked(cert):
    # the claim states the numbers of the file
    assert cert["claim"].startswith("100 adaptive applications of one step [noise gaussian, sigma 11/10")
    assert cert["epsilon"]["upper"] in cert["claim"] and "delta = 1/100000" in cert["claim"]
    bad = json.loads(json.dumps(cert))
    bad["claim"] = bad["claim"].replace(cert["epsilon"]["upper"], "0.5")
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "claim" in res.reason
    absent = json.loads(json.dumps(cert))
    del absent["claim"]
    assert verify_certificate(_rehash(absent)).ok


def test_unknown_field_and_swapped_enclosure_refused():
    c = make_certificate(RandomizedResponseEvent("1/2"), 3, "1/1000")
    assert verify_certificate(c).ok  # epsilon 0, exactly
    extra = json.loads(json.dumps(c))
    extra["method"]["note"] = "read epsilon.upper as 0.1"
    assert "unknown field" in verify_certificate(_rehash(extra)).reason
    swapped = json.loads(json.dumps(c))
    swapped["rdp"] = {"lower": "0.5", "upper": "0"}
    swapped.pop("claim")
    assert "rdp.lower is above rdp.upper" in verify_certificate(_rehash(swapped)).reason


def test_lower_bound_curve_refused():
    from rigorous_rdp import RdpAccountant

    general = RdpAccountant(bound="general")
    c = make_certificate(PoissonSampledEvent(LaplaceEvent(1), "1/10"), 3, "1/1000", accountant=general)
    assert c["method"]["accounting"] == {"bound": "general", "tau": None, "taylor_order": None}
    assert verify_certificate(c).ok
    bad = json.loads(json.dumps(c))
    bad["method"]["accounting"]["bound"] = "lower"
    bad["method"]["curves"] = [{"curve": "zhu-wang-lower", "citation": "Zhu & Wang 2019, Thm 6; base: laplace"}]
    bad["rdp"]["lower"] = bad["epsilon"]["lower"] = "0"
    bad.pop("claim")
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "not a privacy guarantee" in res.reason


def test_pld_certificate_with_changed_adjacency_refused():
    # one Poisson step, q 1/2, sigma 1: the add-remove claim at delta 1e-3 does not hold under
    # replace-one (whose pair, with sigma/2, is symmetric: one direction); the audit's forgery, hash recomputed
    from rigorous_rdp.pld.certificate_support import make_pld_certificate

    c = make_pld_certificate(PoissonSampledEvent(GaussianEvent(1), "1/2"), 1, "1/1000")
    assert verify_certificate(c).ok
    bad = json.loads(json.dumps(c))
    bad["inputs"]["event"]["adjacency"] = "replace-one"
    bad["inputs"]["summary"]["adjacency"] = "replace-one"
    bad["epsilon"]["lower"] = "0"
    for d in bad["method"]["directions"].values():
        d["epsilon"]["lower"] = "0"
    bad.pop("claim")
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "directions" in res.reason
    bad["method"]["directions"].pop("add", None)  # the directions of replace-one: the claim itself fails
    top = bad["method"]["directions"]["remove"]
    top["epsilon"]["upper"], top["grid_width"] = bad["epsilon"]["upper"], bad["method"]["grid_width"]
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "not confirmed" in res.reason


def test_precision_field_is_cost_capped():
    import time

    bad = make_certificate(GaussianEvent(2), 3, "1/1000")
    bad["precision"]["digits"] = 1000  # would ask for 3010 digits of reference
    bad.pop("claim")
    t0 = time.monotonic()
    res = verify_certificate(_rehash(bad))
    assert time.monotonic() - t0 < 60
    assert res.ok and res.details["dps"] == 150


def test_core_imports_no_research_module():
    import subprocess
    import sys

    code = (
        "import sys, rigorous_rdp.certificate, rigorous_rdp.certificates.kinds, rigorous_rdp.cli.verify;"
        "bad = [m for m in sys.modules if m.startswith('rigorous_rdp.research')]; assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("event", "digits"),
    [
        (PoissonSampledEvent(GaussianEvent(2), "1/2"), 10),
        (PoissonSampledEvent(GaussianEvent(2), "1/2"), 30),
        (GaussianEvent(2), 100),
    ],
    ids=["poisson-10", "poisson-30", "gaussian-100"],
)
def test_certificates_verify_whatever_the_digits(event, digits):
    # a certificate prints at most 60 digits (rounded outward), what verify confirms at its cap
    c = make_certificate(event, 3, "1/1000", accountant=RdpAccountant(digits=digits))
    printed = len(c["epsilon"]["upper"].replace(".", "").lstrip("0"))
    assert printed <= 60
    res = verify_certificate(c)
    assert res.ok, res.reason
    assert res.details["dps"] == min(150, max(50, 3 * digits + 10))


def test_tiny_q_certificate_verifies_quickly():
    import time

    c = make_certificate(PoissonSampledEvent(GaussianEvent("1.1"), "1e-300"), 1000, "1e-5")
    t0 = time.monotonic()
    res = verify_certificate(c)
    assert res.ok, res.reason
    assert time.monotonic() - t0 < 30
    # the reference RDP is 1000 log(1 + q^2 (e^(1/sigma^2) - 1)) / (alpha - 1), about 1.285e-597 at alpha 2
    if res.details.get("order") == "2":
        with mpmath.workdps(30):
            q = mpmath.mpf(10) ** -300
            exact = 1000 * mpmath.log1p(q * q * mpmath.expm1(1 / mpmath.mpf("1.21")))
            assert abs(mpmath.mpf(res.details["reference_rdp"]) / exact - 1) < mpmath.mpf(10) ** -15


def test_exact_inputs_of_thousands_of_digits_verify():
    # certify takes exact inputs of up to 4,000 digits; the certificate stores q = 1e-2000 as
    # "1/1000...0" (2,003 characters), which verify reads exactly (the reference RDP at order 2
    # is 10 log(1 + q^2 (e^(1/sigma^2) - 1)) / 1, about 1e-4000)
    c = make_certificate(PoissonSampledEvent(GaussianEvent("1.1"), "1e-2000"), 10, "1e-5")
    assert len(c["inputs"]["event"]["sampling_probability"]) == 2003
    res = verify_certificate(c)
    assert res.ok, res.reason
    bad = json.loads(json.dumps(c))
    bad["inputs"]["event"]["sampling_probability"] = "1/" + "1" * 9000
    bad.pop("claim")
    res = verify_certificate(_rehash(bad))
    assert not res.ok and res.reason.startswith("malformed certificate")


def test_kind_table_maps_every_kind_to_a_writer_and_a_verifier(cert):
    from rigorous_rdp.certificates.kinds import KINDS, kind_of

    assert [k.name for k in KINDS] == [
        "rdp",
        "pld",
        "conjecture-violation",
        "conjecture-holds",
        "conjecture-proof",
        "conjecture-region",
        "conjecture-region-scaled",
        "conjecture-order-interval",
        "conjecture-order-sigma",
    ]
    for kind in KINDS:
        assert callable(getattr(kind.load(), kind.writer))
    assert kind_of(cert).name == "rdp"
    assert kind_of({"format": "rigorous-rdp-certificate", "format_version": 1, "method": {"kind": "pld"}}).name == "pld"
    assert kind_of({"format": "rigorous-rdp-conjecture", "kind": "holds-boxes"}).name == "conjecture-proof"
    assert kind_of({"format": "rigorous-rdp-conjecture", "kind": "holds-region"}).name == "conjecture-region"
    scaled = {"format": "rigorous-rdp-conjecture", "kind": "holds-region-scaled"}
    assert kind_of(scaled).name == "conjecture-region-scaled"
    for bad in ({"format": "rigorous-rdp-certificate", "format_version": 1, "method": {"kind": "prv"}}, [], {}):
        assert verify_certificate(bad).reason.startswith("malformed certificate")
