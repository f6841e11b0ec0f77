"""The README shows real output: run its commands and compare.

Every fenced block line ``$ COMMAND`` is run (``rigorous-rdp`` as
``python -m rigorous_rdp``) and its combined output must equal the lines that
follow it in the block.  The default DP-SGD output at the top of the README is
checked the same way.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _blocks(text: str):
    return re.findall(r"```(?:[a-z]*)\n(.*?)```", text, flags=re.S)


def _commands():
    out = []
    for block in _blocks(README):
        lines = block.rstrip("\n").split("\n")
        i = 0
        while i < len(lines):
            if lines[i].startswith("$ "):
                cmd = lines[i][2:]
                j = i + 1
                while j < len(lines) and not lines[j].startswith("$ "):
                    j += 1
                out.append((cmd, lines[i + 1:j]))
                i = j
            else:
                i += 1
    return out


def _run(cmd: str) -> list[str]:
    """stdout, with stderr lines of the program's own messages (progress bars left out)."""
    py = sys.executable
    shell_cmd = cmd.replace("rigorous-rdp ", f"{py} -m rigorous_rdp ").replace("python -c", f"{py} -c")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    marker = "__STDERR__"
    proc = subprocess.run(["bash", "-c", "( " + shell_cmd + f" ) 2> >(sed 's/^/{marker}/' >&2)"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    lines = proc.stdout.rstrip("\n").split("\n") if proc.stdout.strip() else []
    errors = [ln[len(marker):] for ln in proc.stderr.split("\n")
              if ln.startswith(marker + "rigorous-rdp:")]
    # an error line is printed before anything the shell echoes afterwards
    return errors + lines


COMMANDS = _commands()


def test_readme_has_commands():
    assert len(COMMANDS) >= 5


@pytest.mark.parametrize("cmd,expected", COMMANDS, ids=[c[:60] for c, _ in COMMANDS])
def test_readme_command_output(cmd, expected):
    assert _run(cmd) == expected


def test_readme_default_job_output():
    block = README.split("Its output:", 1)[1]
    expected = _blocks(block)[0].rstrip("\n").split("\n")
    assert _run("rigorous-rdp dpsgd") == expected
