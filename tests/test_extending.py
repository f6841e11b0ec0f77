"""docs/extending.md, tested: a new noise and a new sampling scheme in one new module
(tests/toy_scheme.py, shown verbatim in the document) plus one line in the registry give
``rdp``, ``epsilon``, ``--method pld`` (or its refusal), the ``--json`` echo of the parameters,
the errors on bad values, and certify -> verify; every value is compared with mpmath."""

from __future__ import annotations

import json
import re
import shlex
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import toy_scheme

from rigorous_rdp import RdpAccountant, registry
from rigorous_rdp.certificate import content_hash
from rigorous_rdp.cli import main
from rigorous_rdp.errors import UnsupportedEventError
from rigorous_rdp.pld import PldAccountant

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "extending.md").read_text()
SKIP = ["--sampling", "random-skip", "--run-probability", "1/10"]
STD = ["--noise", "std-gaussian", "--std", "2"]


@pytest.fixture
def toy(monkeypatch):
    """The one registry line: ``*toy_scheme.SCHEMES,`` added to ``registry.SCHEMES``."""
    monkeypatch.setattr(registry, "SCHEMES", (*registry.SCHEMES, *toy_scheme.SCHEMES))
    return toy_scheme


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _interval(d):
    return Decimal(d["lower"]), Decimal(d["upper"])


def _contains(d, exact, dps=30):
    lo, up = _interval(d)
    with mpmath.workdps(dps):
        return mpmath.mpf(str(lo)) <= exact <= mpmath.mpf(str(up))


def _skip_rdp(alpha: Fraction, std: Fraction, p: Fraction):
    """log(1 + p (e^{(a-1) a / (2 std^2)} - 1)) / (a - 1) at 40 digits (the formula of the module
    docstring, written out again)."""
    with mpmath.workdps(40):
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        e = a / (2 * (mpmath.mpf(std.numerator) / std.denominator) ** 2)
        pp = mpmath.mpf(p.numerator) / p.denominator
        return mpmath.log(1 - pp + pp * mpmath.exp((a - 1) * e)) / (a - 1)


def test_the_document_shows_the_module_verbatim():
    blocks = re.findall(r"^```python3\n(.*?)^```", DOC, flags=re.S | re.M)
    assert (ROOT / "tests" / "toy_scheme.py").read_text() in blocks
    assert "*toy_scheme.SCHEMES," in DOC


def test_the_document_table_is_the_registry():
    table = DOC.split("<!-- registry.markdown_table() -->\n", 1)[1].split("<!-- end of table -->", 1)[0]
    assert table == registry.markdown_table()
    assert table.count("\n") == len(registry.rows()) + 2


def test_without_the_registry_line_nothing_is_known(capsys):
    code, _out, err = _run(["rdp", *STD, "--alpha", "2"], capsys)
    assert code == 2 and "std-gaussian" in err
    with pytest.raises(UnsupportedEventError):
        registry.rdp_curve(toy_scheme.StdGaussianEvent(2))


def test_rdp_of_the_noise_and_of_the_sampling_scheme(toy, capsys):
    code, out, err = _run(["rdp", *STD, "--alpha", "2", "7/2", "--json"], capsys)
    assert code == 0, err
    for row, a in zip(json.loads(out)["results"], (Fraction(2), Fraction(7, 2)), strict=True):
        assert _contains(row["rdp"], mpmath.mpf(a.numerator) / a.denominator / 8)  # alpha / (2 std^2), exact
    code, out, err = _run(["rdp", *STD, *SKIP, "--alpha", "2", "7/2", "--json"], capsys)
    assert code == 0, err
    res = json.loads(out)
    for row, a in zip(res["results"], (Fraction(2), Fraction(7, 2)), strict=True):
        assert _contains(row["rdp"], _skip_rdp(a, Fraction(2), Fraction(1, 10)))
    assert res["mechanism"] == {
        "noise": "std-gaussian",
        "std": "2",
        "sampling": "random-skip",
        "run_probability": "1/10",
        "adjacency": "add-remove",
    }
    # the built-in Gaussian gets the new sampling scheme too
    code, out, err = _run(["rdp", "--sigma", "3", *SKIP, "--alpha", "5", "--json"], capsys)
    assert code == 0, err
    assert _contains(json.loads(out)["results"][0]["rdp"], _skip_rdp(Fraction(5), Fraction(3), Fraction(1, 10)))


def test_epsilon_rdp_at_a_fixed_order(toy, capsys):
    # Mironov's conversion at alpha = 8: T * rdp(8) + log(1/delta) / 7
    argv = ["epsilon", *STD, *SKIP, "--steps", "50", "--delta", "1e-5", "--alpha", "8"]
    code, out, err = _run([*argv, "--no-continuous", "--conversion", "mironov", "--method", "rdp", "--json"], capsys)
    assert code == 0, err
    with mpmath.workdps(40):
        exact = 50 * _skip_rdp(Fraction(8), Fraction(2), Fraction(1, 10)) + mpmath.log(10**5) / 7
    assert _contains(json.loads(out)["epsilon"], exact)


def _gaussian_epsilon(std: int, steps: int, delta: float):
    """The optimal epsilon of ``steps`` Gaussian mechanisms (Balle & Wang 2018, Thm 8), by root finding."""
    with mpmath.workdps(30):
        mu = mpmath.sqrt(steps) / std

        def d(e):
            return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2) - delta

        lo, hi = mpmath.mpf(0), mpmath.mpf(20)  # d decreases: bisection
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if d(mid) > 0 else (lo, mid)
        return (lo + hi) / 2


def test_pld_bracket_of_the_noise_and_refusal_of_the_sampling_scheme(toy, capsys):
    code, out, err = _run(["epsilon", *STD, "--steps", "4", "--delta", "1e-5", "--method", "pld", "--json"], capsys)
    assert code == 0, err
    assert _contains(json.loads(out)["epsilon"], _gaussian_epsilon(2, 4, mpmath.mpf("1e-5")))
    code, _out, err = _run(["epsilon", *STD, *SKIP, "--steps", "4", "--delta", "1e-5", "--method", "pld"], capsys)
    assert code == 2 and "PLD accountant has no dominating pair" in err and "\n" not in err.strip()
    with pytest.raises(UnsupportedEventError, match="random-skip sampling of StdGaussianEvent"):
        PldAccountant().compose(toy.RandomSkipEvent(toy.StdGaussianEvent(2), "1/10"), 4)


def test_api_accounting(toy):
    event = toy.RandomSkipEvent(toy.StdGaussianEvent(2), "1/10")
    eps = RdpAccountant().compose(event, 50).get_epsilon("1e-5")
    alone = RdpAccountant().compose(toy.StdGaussianEvent(2), 50).get_epsilon("1e-5")
    assert 0 < eps.upper_float() < alone.lower_float()  # skipping steps helps


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--noise", "std-gaussian", "--std", "-1"], "--std must be a number in (0, 1e100000). Found -1."),
        (
            [*STD, "--sampling", "random-skip", "--run-probability", "2"],
            "--run-probability must be in [0, 1]. Found 2.",
        ),
        ([*STD, "--sampling", "random-skip"], "--run-probability is required with --sampling random-skip"),
        ([*STD, "--q", "0.1"], "--q applies to --sampling poisson, not --sampling none."),
        ([*STD, "--sampling", "random-skip", "--run-probability", "1/2", "--adjacency", "replace-one"], "supported:"),
    ],
)
def test_bad_values_name_the_option(toy, capsys, argv, message):
    code, out, err = _run(["rdp", *argv, "--alpha", "2"], capsys)
    assert code == 2 and out == "" and message in err, err
    # the same wording as the built-in options of the same kind
    if "--std" in message:
        assert _run(["rdp", "--sigma", "-1", "--alpha", "2"], capsys)[2] == err.replace("--std", "--sigma")


def test_certify_verify_and_tamper(toy, tmp_path, capsys):
    for method in ("rdp", "pld"):
        path = tmp_path / f"{method}.json"
        extra = SKIP if method == "rdp" else []
        argv = ["certify", *STD, *extra, "--steps", "5", "--delta", "1e-5", "--method", method, "--out", path]
        code, _out, err = _run(argv, capsys)
        assert code == 0, err
        cert = json.loads(path.read_text())
        assert cert["inputs"]["event"]["type"] == ("random-skip" if method == "rdp" else "std-gaussian")
        code, out, err = _run(["verify", path, "--json"], capsys)
        assert code == 0 and json.loads(out)["verified"] is True, out + err
        half = str(Decimal(cert["epsilon"]["upper"]) / 2)
        cert["epsilon"] = {"lower": half if method == "rdp" else "0", "upper": half}
        cert["sha256"] = content_hash(cert)
        path.write_text(json.dumps(cert))
        code, out, err = _run(["verify", path, "--json"], capsys)
        assert code == 1 and json.loads(out)["verified"] is False, out + err


def test_the_documented_commands_run(toy, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    commands = re.findall(r"^rigorous-rdp (.+)$", DOC, flags=re.M)
    assert len(commands) >= 4
    for line in commands:
        code, _out, err = _run(shlex.split(line), capsys)
        assert code == 0, f"{line}: {err}"
