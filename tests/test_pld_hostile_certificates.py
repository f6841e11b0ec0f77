"""certify --method pld -> verify for every row of the table that has a PLD pair, and ``verify`` against
certificates whose adjacency, sampling or mechanism was changed.

A changed certificate is tried three ways: the event edited alone (the content hash no longer
matches), resealed (event and summary edited alike, the hash recomputed), and resealed with the
directions restated as the edited event has them (a forger's best effort: only the recomputation can
reject it).  Every edit here makes the mechanism *less* private (a larger q or batch, fewer steps per
epoch, more selected steps, less noise, replace-one instead of add/remove, no sampling), so the stated
upper end is false for the edited event and ``verify`` must exit 1.  An edit to a more private event
(e.g. replace-one -> add/remove) can state a true claim; a certificate that states a true claim verifies,
which :func:`test_edit_to_a_more_private_event_verifies_only_if_true` shows for one case.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from _cli import run_cli

from rigorous_rdp import registry
from rigorous_rdp.certificate import content_hash, describe_event, event_from_json, event_to_json
from rigorous_rdp.cli._common import example_options


def _pld_rows() -> list:
    rows = []
    for row in registry.rows():
        if row.options.bound is not None or not row.guarantee:
            continue
        try:
            if registry.pld_pair(row.event()) is None:
                continue
        except ValueError:  # refused (no pair): not a PLD row
            continue
        rows.append(row)
    return rows


ROWS = {row.label: row for row in _pld_rows()}


def _less_private(ej: dict) -> dict[str, dict]:
    """Edits of an event's JSON that make it less private (name -> edited JSON)."""
    out: dict[str, dict] = {}
    inner = ej.get("event")
    if ej.get("adjacency") == "add-remove" and ej["type"] != "balls-and-bins":
        e = copy.deepcopy(ej)
        e["adjacency"] = "replace-one"
        out["adjacency"] = e
    if "sampling_probability" in ej:
        e = copy.deepcopy(ej)
        e["sampling_probability"] = "1/20"
        out["sampling-q"] = e
    if "batch_size" in ej:
        e = copy.deepcopy(ej)
        e["batch_size"] = ej["batch_size"] * 5
        out["sampling-batch"] = e
    if "steps_per_epoch" in ej:
        e = copy.deepcopy(ej)
        e["steps_per_epoch"] = ej["steps_per_epoch"] // 2
        out["sampling-t"] = e
    if "selected" in ej:
        e = copy.deepcopy(ej)
        e["selected"] = ej["selected"] + 2
        out["sampling-k"] = e
    if inner is not None:
        out["sampling-none"] = copy.deepcopy(inner)
    base = inner if inner is not None else ej
    weaker = {
        "gaussian": {"type": "gaussian", "noise_multiplier": "1"},
        "laplace": {"type": "laplace", "scale": "1"},
        "randomized-response": {"type": "randomized-response", "p": "3/4"},
    }[base["type"]]
    if inner is None:
        out["mechanism"] = weaker
    else:
        e = copy.deepcopy(ej)
        e["event"] = weaker
        out["mechanism"] = e
    return out


CASES = [
    (label, name, edited)
    for label, row in ROWS.items()
    for name, edited in _less_private(json.loads(json.dumps(event_to_json(row.event())))).items()
]


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> dict[str, Path]:
    """One PLD certificate per row (10 steps or epochs, delta 1e-5), written by the command line."""
    root = tmp_path_factory.mktemp("pld-certs")
    paths = {}
    for label, row in ROWS.items():
        path = root / (label.replace("/", "_") + ".json")
        epochs = type(row.event()).__name__ in ("BallsAndBinsEvent", "RandomAllocationEvent")
        steps = ["--epochs" if epochs else "--steps", "10"]
        argv = ["certify", *example_options(row), *steps, "--delta", "1e-5", "--method", "pld", "--out", str(path)]
        status, _, err = run_cli(argv)
        assert status == 0, (label, err)
        paths[label] = path
    return paths


def _verify(path: Path) -> tuple[int, dict | None, str]:
    status, out, err = run_cli(["verify", str(path), "--json", "--max-seconds", "120"])
    return status, (json.loads(out) if out.strip() else None), err


@pytest.mark.parametrize("label", list(ROWS))
def test_every_pld_row_certifies_and_verifies(certificates, label):
    status, res, err = _verify(certificates[label])
    assert status == 0 and res is not None and res["verified"] is True, (label, res, err)
    assert json.loads(certificates[label].read_text())["method"]["kind"] == "pld"


def _forgeries(cert: dict, edited: dict) -> dict[str, dict]:
    stale = copy.deepcopy(cert)
    stale["inputs"]["event"] = edited
    out = {"stale-hash": stale}
    try:
        summary = describe_event(event_from_json(edited))
    except ValueError:  # no row for the edited event: a forger keeps the old summary
        summary = cert["inputs"]["summary"]
    sealed = copy.deepcopy(cert)
    sealed["inputs"]["event"] = edited
    sealed["inputs"]["summary"] = summary
    sealed.pop("claim", None)
    sealed["sha256"] = content_hash(sealed)
    out["resealed"] = sealed
    # the directions restated as either event shape has them (the first direction's claim copied)
    first = cert["method"]["directions"]["remove"]
    for name, dirs in (("remove-only", ("remove",)), ("both-directions", ("remove", "add"))):
        restated = copy.deepcopy(sealed)
        restated["method"]["directions"] = {d: copy.deepcopy(first) for d in dirs}
        restated["sha256"] = content_hash(restated)
        out[name] = restated
    return out


#: edits whose rejection takes more than about 4 s (measured under load; the random-allocation and
#: balls-and-bins noise edits about a minute: the verifier rebuilds their S-laws in mpmath)
SLOW_EDITS = {
    "GaussianEvent/balls-and-bins/add-remove/default:mechanism",
    "GaussianEvent/random-allocation/add-remove/default:mechanism",
    "GaussianEvent/random-allocation/add-remove/default:sampling-k",
    "GaussianEvent/random-allocation/add-remove/default:sampling-t",
    "GaussianEvent/fswor/replace-one/default:mechanism",
    "GaussianEvent/poisson/replace-one/default:mechanism",
    "GaussianEvent/fswor/add-remove/default:mechanism",
    "LaplaceEvent/poisson/add-remove/default:sampling-none",
}


@pytest.mark.parametrize(
    ("label", "edit", "edited"),
    [
        pytest.param(*c, id=f"{c[0]}:{c[1]}", marks=[pytest.mark.slow] if f"{c[0]}:{c[1]}" in SLOW_EDITS else [])
        for c in CASES
    ],
)
def test_certificate_with_a_less_private_event_is_rejected(certificates, tmp_path, label, edit, edited):
    cert = json.loads(certificates[label].read_text())
    for how, forged in _forgeries(cert, edited).items():
        path = tmp_path / f"{how}.json"
        path.write_text(json.dumps(forged))
        status, res, err = _verify(path)
        assert status != 0, (label, edit, how, res)
        if res is not None:
            assert res["verified"] is False, (label, edit, how, res)
        else:
            assert len(err.splitlines()) == 1 and "Traceback" not in err, (label, edit, how, err)


def test_edit_to_a_more_private_event_verifies_only_if_true(certificates, tmp_path):
    """Replace-one -> add/remove (Poisson Gaussian): add/remove is more private, and the certificate's
    lower end is 0 (the replace-one pair only dominates), so the restated claim is true and verifies;
    the same edit with the lower end of a tight pair kept would be false."""
    label = next(k for k in ROWS if k.startswith("GaussianEvent/poisson/replace-one"))
    cert = json.loads(certificates[label].read_text())
    edited = copy.deepcopy(cert["inputs"]["event"])
    edited["adjacency"] = "add-remove"
    forged = _forgeries(cert, edited)["both-directions"]
    path = tmp_path / "more-private.json"
    path.write_text(json.dumps(forged))
    status, res, _ = _verify(path)
    assert cert["epsilon"]["lower"] == "0"
    assert status == 0 and res is not None and res["verified"] is True, res
