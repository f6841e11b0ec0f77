"""The notes in docs/*.md show real output: run their transcripts and Python blocks.

Each fenced block with ``$`` commands is one test: its commands run in order in a
fresh temporary directory (so a block may write a file and read it back) and
their output must equal the lines shown. Each ``python`` block is executed and
the values it states are compared. The rules (continuation lines, ``...``
wildcards, which comments are checked) are those of ``tests/_transcripts.py``,
shared with ``test_readme.py``.

Blocks whose commands take more than a few seconds are marked ``slow`` (listed
in ``SLOW`` by a fragment of one of their commands, with the measured time).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from _transcripts import ROOT, check_transcript, python_blocks, run_python_block, transcripts

# Lines of documented output that show a peer's numbers (dp-accounting, Opacus, prv-accountant),
# by file and the start of the line: their numbers are compared within _transcripts.PEER_REL_TOL
# (1e-6 relative), never exactly (a peer's floats change in the last digits with the machine).
PEER_LINES: dict[str, tuple[str, ...]] = {
    "migrating.md": (
        "dp-accounting:",
        "delta at eps=5:",
        "WOR dp-accounting:",
        "sigma dp-accounting:",
        "rdp ",
        "prv ",
        "opacus get_noise_multiplier",
    )
}

DOCS = sorted((ROOT / "docs").rglob("*.md"))

# Blocks whose commands take more than a few seconds of CPU time: (file name, fragment of a
# command of the block), with the CPU time measured and where the default run checks the same.
SLOW: dict[tuple[str, str], str] = {
    (
        "certify-dpsgd.md",
        "--plot epsilon-dpsgd.png",
    ): "28 certified queries (14 of them PLD): 5 s of CPU, 23-55 s on a loaded machine"
}

# Blocks that cannot run here, with the reason.
SKIP = {
    ("blog_part2_conjecture.md", 'Client("tcp://scheduler:8786")'): "needs a running Dask scheduler",
    (
        "blog_part2_conjecture.md",
        "conjecture --trials 300 ",
    ): "abridged output, not a verbatim transcript (and minutes of CPU)",
    (
        "blog_part2_conjecture.md",
        "conjecture --trials 2000 ",
    ): "abridged output, not a verbatim transcript (and minutes of CPU)",
    (
        "blog_part2_conjecture.md",
        "conjecture --model range --dim 2 --trials 16 --seed 2019",
    ): "abridged output; the same certificate is checked by tests/test_conjecture_certificate.py",
    (
        "blog_part2_conjecture.md",
        "rigorous-rdp verify triangle.json",
    ): "abridged output; the witness bounds are checked against mpmath in tests/test_conjecture_certificate.py",
    ("blog_part2_conjecture.md", 'dask_executor("tcp://scheduler:8786")'): "needs a running Dask scheduler",
    (
        "pld.md",
        "from rigorous_rdp.pld.calibrate import calibrate_sigma_pld",
    ): "usage only (the calibration takes minutes); its numbers are asserted in tests/test_pld.py",
}


if importlib.util.find_spec("opacus") is None:
    SKIP[("migrating.md", "from opacus import PrivacyEngine")] = "needs opacus (the optional [opacus] extra)"


def _rel(path) -> str:
    """The page's path under docs/ (``tutorials/conjecture.md``)."""
    return path.relative_to(ROOT / "docs").as_posix()


def _is_slow(name: str, text: str) -> bool:
    return any(name == doc and frag in text for doc, frag in SLOW)


def _marks(name: str, text: str) -> list:
    marks = [pytest.mark.slow] if _is_slow(name, text) else []
    marks += [pytest.mark.skip(reason=why) for (doc, frag), why in SKIP.items() if name == doc and frag in text]
    return marks


def _cases():
    out = []
    for path in DOCS:
        for t in transcripts(path.read_text(), f"docs/{_rel(path)}"):
            text = "\n".join(c.cmd for c in t.commands)
            out.append(pytest.param(t, marks=_marks(path.name, text), id=f"{_rel(path)}:{t.line}"))
    return out


def _python_cases():
    out = []
    for path in DOCS:
        for b in python_blocks(path.read_text()):
            out.append(pytest.param(_rel(path), b, marks=_marks(path.name, b.text), id=f"{_rel(path)}:{b.line}"))
    return out


CASES = _cases()
PYTHON_CASES = _python_cases()


def test_docs_have_transcripts():
    assert len(CASES) >= 20
    assert PYTHON_CASES


@pytest.mark.parametrize("transcript", CASES)
def test_docs_transcript(transcript, tmp_path):
    check_transcript(transcript, tmp_path, PEER_LINES.get(transcript.source.rsplit("/", 1)[-1], ()))


@pytest.mark.parametrize("name,block", PYTHON_CASES)
def test_docs_python_block(name, block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_python_block(block, f"docs/{name}", PEER_LINES.get(name, ())) > 0, "no stated value was checked"


def test_peer_lines_tolerance():
    """Peer numbers pass within 1e-6 relative (the PRV epsilon printed on two machines) and fail
    beyond it; the text around them is still compared exactly."""
    from _transcripts import line_matches

    here = "prv            steps=60  epsilon(1e-5) = 2.867140811262486"
    there = "prv            steps=60  epsilon(1e-5) = 2.8671408112727965"
    assert line_matches(here, there, ("prv ",))
    assert not line_matches(here, there)  # not a peer line: exact
    assert not line_matches(here, here.replace("2.867140811262486", "2.86715"), ("prv ",))
    assert not line_matches(here, here.replace("steps=60", "steps=61"), ("prv ",))


def test_peer_lines_are_in_the_docs():
    """Every listed peer line is still shown in its page (the list does not outlive the text)."""
    for name, prefixes in PEER_LINES.items():
        outputs = [ln for b in python_blocks((ROOT / "docs" / name).read_text()) for ln in (b.output or ())]
        for prefix in prefixes:
            assert any(ln.startswith(prefix) for ln in outputs), (name, prefix)


def test_api_reference_lists_every_public_name():
    """docs/reference/api.md renders every name of rigorous_rdp.__all__ (a ``::: path`` line)."""
    import re

    import rigorous_rdp

    page = (ROOT / "docs" / "reference" / "api.md").read_text()
    shown = {m.rsplit(".", 1)[-1] for m in re.findall(r"^::: (\S+)$", page, flags=re.M)}
    assert set(rigorous_rdp.__all__) - {"__version__"} <= shown


def test_site_builds_without_warnings(tmp_path):
    """``mkdocs build --strict`` (warnings are errors): every page of the nav exists, every link
    between pages resolves, every API name renders."""
    import subprocess
    import sys

    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "api" / "index.html").exists()


NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))


def test_there_are_three_notebooks():
    assert len(NOTEBOOKS) >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_outputs(path):
    """Each tutorial notebook runs from top to bottom and shows what a fresh run gives."""
    from _notebooks import run_notebook

    assert run_notebook(path) > 0, "no stored output was compared"


def test_no_documented_certificate_fails_its_verification():
    """A documented `verify` of a certificate the toolkit wrote must confirm it: a transcript that
    recorded "not confirmed" (a verifier disagreeing with the accountant) is a bug, not an output."""
    root = Path(__file__).resolve().parent.parent
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    bad = [str(p.relative_to(root)) for p in pages if "FAILED: not confirmed" in p.read_text(encoding="utf-8")]
    assert not bad, bad
