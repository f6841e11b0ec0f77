"""Contract over every row of the registry (rigorous_rdp.registry.rows(): every scheme and bound).

For each row: build the event from its command-line example -> certify -> verify accepts
-> the event survives a JSON round trip -> a tampered copy (epsilon lowered, hash
recomputed) is rejected.  Lower-bound rows are refused by certify.  Exact values verify.
"""

from __future__ import annotations

import argparse
import functools
import json
from decimal import Decimal

import pytest

from rigorous_rdp import registry
from rigorous_rdp.certificate import content_hash, event_from_json, event_to_json, verify_file
from rigorous_rdp.cli import main
from rigorous_rdp.cli._common import bound_options, build_event, example_options
from rigorous_rdp.curves import MinCurve
from rigorous_rdp.errors import UnsupportedEventError
from rigorous_rdp.registry import rdp_curve


def _run(argv, capsys):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _namespace(cli):
    """Mechanism options of a row's example as the parser would give them."""
    ns = argparse.Namespace(noise="gaussian", sampling="none", adjacency="add-remove", bound=None, tau=None)
    for param in registry.parameters():
        setattr(ns, param.dest, None)
    it = iter(cli)
    for opt in it:
        setattr(ns, opt[2:].replace("-", "_"), next(it))
    return ns


@pytest.mark.parametrize("row", registry.rows(), ids=lambda r: r.label)
def test_row_lookup_round_trip(row):
    ns = _namespace(example_options(row))
    event = build_event(ns, guarantee=False)
    assert event == row.event()
    # the bound is the accountant's option (--bound / --tau), not a field of the event
    assert bound_options(ns) == row.options
    assert registry.lookup(event, row.options) == row
    again = event_from_json(json.loads(json.dumps(event_to_json(event))))
    assert again == event
    curve = rdp_curve(event, row.options)
    parts = curve.curves if isinstance(curve, MinCurve) else [curve]
    table = registry.reference_table()
    for part in parts:
        assert type(part) in table, f"no reference for {type(part).__name__}"


@pytest.fixture
def reference_once(monkeypatch):
    """Within one test, the mpmath reference of an (event, order, precision) is computed once: the
    tampered copy states the event and order of the valid certificate, so its verification reuses
    the value; both verdicts still come from ``rigorous-rdp verify``."""
    monkeypatch.setattr(registry, "reference_rdp", functools.cache(registry.reference_rdp))


@pytest.mark.parametrize("row", registry.rows(), ids=lambda r: r.label)
def test_row_pld_reading(row):
    """Every row has a PLD reading: a pair and its independent reference, or a refusal in API words."""
    event = row.event()
    try:
        pair = registry.pld_pair(event)
    except UnsupportedEventError as exc:
        assert "PLD accountant" in str(exc) and "--" not in str(exc)
        with pytest.raises(UnsupportedEventError):
            registry.reference_pld(event)
        return
    assert pair is not None and pair.remove.key and pair.add.key
    kind, params = registry.reference_pld(event)
    known = ("gaussian", "laplace", "rr", "poisson-gaussian", "poisson-laplace", "poisson-rr", "replace-one-gaussian")
    assert params and (callable(kind) or kind in known)


@pytest.mark.parametrize("row", registry.rows(), ids=lambda r: r.label)
def test_row_certify_verify_tamper(row, tmp_path, capsys, reference_once):
    path = tmp_path / "cert.json"
    code, out, err = _run(
        [
            "certify",
            *example_options(row),
            "--steps",
            "10",
            "--delta",
            "1e-5",
            "--out",
            str(path),
            "--json",
            "--method",
            "rdp",
        ],
        capsys,
    )
    if not row.guarantee:
        assert code == 2 and "not a privacy guarantee" in err and not path.exists()
        return
    assert code == 0, err
    # verify through the command line (``verify --json`` reports ``verify_file``'s verdict and reason)
    code, out, err = _run(["verify", str(path), "--json"], capsys)
    assert code == 0 and json.loads(out)["verified"] is True, out + err
    cert = json.loads(path.read_text())
    half = str(Decimal(cert["epsilon"]["lower"]) / 2)
    tampered = dict(cert)
    tampered["epsilon"] = {"lower": half, "upper": half}
    tampered["sha256"] = content_hash(tampered)
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(tampered))
    code, out, err = _run(["verify", str(bad), "--json"], capsys)
    res = json.loads(out)
    assert code == 1 and res["verified"] is False and "below" in res["reason"], out + err


@pytest.mark.parametrize(
    "argv, epsilon",
    [
        # pure DP: 3 steps of Laplace with scale 1 give exactly epsilon = 3
        (["--noise", "laplace", "--scale", "1", "--steps", "3", "--delta", "1e-5"], "3"),
        # the total-variation conversion clamps epsilon at 0 exactly
        (["--noise", "laplace", "--scale", "2", "--steps", "2", "--delta", "0.5"], "0"),
    ],
)
def test_exact_epsilon_certificates_verify(argv, epsilon, tmp_path, capsys):
    path = tmp_path / "cert.json"
    code, _out, err = _run(["certify", *argv, "--out", str(path), "--method", "rdp"], capsys)
    assert code == 0, err
    cert = json.loads(path.read_text())
    assert cert["epsilon"]["upper"] == epsilon
    res = verify_file(str(path))
    assert res.ok, res.reason


def test_fswr_and_poisson_replace_one_q1_certificates_verify(tmp_path, capsys):
    """Two certificates that an earlier reference chain rejected."""
    for i, argv in enumerate(
        [
            ["--sigma", "2", "--sampling", "fswr", "--batch-size", "5", "--dataset-size", "1000"],
            ["--sigma", "3", "--sampling", "poisson", "--q", "1", "--adjacency", "replace-one"],
        ]
    ):
        path = tmp_path / f"cert{i}.json"
        code, _out, err = _run(["certify", *argv, "--steps", "100", "--delta", "1e-5", "--out", str(path)], capsys)
        assert code == 0, err
        res = verify_file(str(path))
        assert res.ok, res.reason


def test_unsupported_combination_names_the_table():
    from rigorous_rdp import GaussianEvent

    with pytest.raises(UnsupportedEventError, match=r"supported: add-remove adjacency\)"):
        registry.sampled_event(GaussianEvent(1), "fswr", adjacency="replace-one", batch_size=2, dataset_size=10)
