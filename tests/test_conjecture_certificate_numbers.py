"""Every kind of conjecture certificate refuses numbers too long or too large to build before reading them:
``Fraction("1e999999999")`` builds a billion-digit integer, so a forged (and re-hashed) certificate with such
a number would keep ``verify`` busy without end.  The refusal comes before any box is re-proven."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rigorous_rdp.research.conjecture_certificate import _hash, verify_conjecture_certificate

DATA = Path(__file__).resolve().parent / "data"

FILES = {
    "holds-boxes": "conjecture_proof_n2_m1_l2_s1.json",
    "holds-region": "conjecture_region_n2_m1_l2_s3-4.json",
    "holds-region-scaled": "conjecture_region_scaled_n2_m1_l2_s3-4.json",
}


def _forged(name: str, edit) -> dict:
    cert = json.loads((DATA / FILES[name]).read_text())
    edit(cert)
    cert["sha256"] = _hash(cert)
    return cert


def _set_bound(value: str):
    def edit(cert: dict) -> None:
        cert["boxes"][0][2] = value

    return edit


def _set_side(value: str):
    def edit(cert: dict) -> None:
        cert["boxes"][0][0][1][1] = value

    return edit


def _set_r(value: str):
    def edit(cert: dict) -> None:
        cert["case"]["r"] = value

    return edit


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize(
    ("edit", "shown"),
    [
        (_set_bound("1e999999999"), "1e999999999"),
        (_set_bound("-1E+100001"), "-1E+100001"),
        (_set_side("1e-999999999"), "1e-999999999"),
        (_set_r("1e999999999/2"), "1e999999999/2"),
        (_set_bound("1" * 1001), "1" * 37 + "..."),
    ],
)
def test_oversized_numbers_are_refused_before_they_are_built(name, edit, shown):
    res = verify_conjecture_certificate(copy.deepcopy(_forged(name, edit)))
    assert not res.ok
    assert f"the number {shown!r}" in res.reason


@pytest.mark.parametrize("name", sorted(FILES))
def test_numbers_within_the_limits_pass_the_scan(name):
    """A bound edited to a long but admissible decimal (a 900-digit fraction of 1e-5) is not refused by the
    scan: the verdict then comes from the re-proof (the bound is below the box's true value: refused)."""
    cert = _forged(name, _set_bound("0." + "0" * 4 + "1" + "0" * 895))
    res = verify_conjecture_certificate(cert)
    assert "is longer than" not in res.reason


def test_the_command_exits_1_with_one_line(tmp_path):
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(_forged("holds-boxes", _set_bound("1e999999999"))))
    out = subprocess.run(
        [sys.executable, "-m", "rigorous_rdp", "verify", str(path)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "decimal exponent beyond +-100000" in lines[0]
