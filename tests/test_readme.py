"""The README shows real output: run its commands and its Python blocks, and compare.

Every fenced block with ``$ COMMAND`` lines is run in a fresh temporary directory (its
commands in order, so ``verify`` reads the certificate ``certify`` wrote) and each output
must equal the lines that follow the command in the block; the default DP-SGD output at the
top of the README is checked the same way; the ``python`` blocks are executed and the values
their comments state are compared (rules in ``tests/_transcripts.py``).
"""

from __future__ import annotations

import pytest
from _transcripts import (
    ROOT,
    Command,
    blocks,
    check_command,
    check_transcript,
    python_blocks,
    run_python_block,
    transcripts,
)

README = (ROOT / "README.md").read_text()
TRANSCRIPTS = transcripts(README, "README.md")
PYTHON = python_blocks(README)


def test_readme_has_commands():
    assert sum(len(t.commands) for t in TRANSCRIPTS) >= 5
    assert PYTHON


def test_readme_is_a_first_page():
    assert len(README.splitlines()) <= 150


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=[t.commands[0].cmd[:60] for t in TRANSCRIPTS])
def test_readme_command_output(transcript, tmp_path):
    check_transcript(transcript, tmp_path)


def test_readme_default_job_output(tmp_path):
    block = README.split("Its output:", 1)[1]
    expected = blocks(block)[0].text.rstrip("\n").split("\n")
    check_command(Command("rigorous-rdp dpsgd", tuple(expected), source="README.md"), tmp_path)


@pytest.mark.parametrize("block", PYTHON, ids=[f"line{b.line}" for b in PYTHON])
def test_readme_python_block(block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_python_block(block, "README.md") > 0, "no stated value was checked"


def test_readme_links_resolve():
    """Every relative link of the README names a file of the checkout (the docs pages moved)."""
    import re

    links = re.findall(r"\]\(([^)\s]+)\)", README)
    local = [link.split("#", 1)[0] for link in links if "://" not in link]
    assert local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, missing
