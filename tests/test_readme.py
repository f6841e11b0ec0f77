"""The README shows real output: run its commands and its Python blocks, and compare.

Every fenced block line ``$ COMMAND`` is run and its output must equal the lines
that follow it in the block; the default DP-SGD output at the top of the README
is checked the same way; the ``python`` blocks are executed and the values their
comments state are compared (rules in ``tests/_transcripts.py``).
"""

from __future__ import annotations

import pytest
from _transcripts import ROOT, Command, blocks, check_command, commands, python_blocks, run_python_block

README = (ROOT / "README.md").read_text()
COMMANDS = commands(README, "README.md")
PYTHON = python_blocks(README)


def test_readme_has_commands():
    assert len(COMMANDS) >= 5
    assert PYTHON


@pytest.mark.parametrize("command", COMMANDS, ids=[c.cmd[:60] for c in COMMANDS])
def test_readme_command_output(command):
    check_command(command)


def test_readme_default_job_output():
    block = README.split("Its output:", 1)[1]
    expected = blocks(block)[0].text.rstrip("\n").split("\n")
    check_command(Command("rigorous-rdp dpsgd", tuple(expected), source="README.md"))


@pytest.mark.parametrize("block", PYTHON, ids=[f"line{b.line}" for b in PYTHON])
def test_readme_python_block(block):
    assert run_python_block(block, "README.md") > 0, "no stated value was checked"
