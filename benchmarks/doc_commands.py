r"""Wall time of every ``$`` command shown in README.md and docs/\*.md, run as a reader runs it.

Each block's commands run in order in one ``bash`` in a fresh temporary directory (as
``tests/_transcripts.py`` runs them), each timed from its start to its end, including the
interpreter's start-up; ``rigorous-rdp`` is ``python -m rigorous_rdp`` with this checkout first on
``PYTHONPATH``.  A remark after a command (two spaces and a parenthesis, as in
``constant ... --json          (whole range, ...)``) is not part of it.  Commands of the form
``conjecture --trials 300``/``2000`` (minutes of CPU, shown abridged with their time stated) and
those needing a Dask scheduler are listed, not run.

Run:  ``python benchmarks/doc_commands.py [--limit 2] [--only FRAGMENT ...]``; prints one line per
command (seconds, file:line, command) and the commands above the limit.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _transcripts import _PRELUDE, transcripts  # noqa: E402

NOT_RUN = ("--trials 300 ", "--trials 2000 ", "scheduler:8786", "--prove")
_REMARK = re.compile(r"\s{2,}\([^()]*\)\s*$")


def _with_heredoc(c) -> str:
    """The command without a trailing remark; a here-document's body (shown as the lines after
    ``<<'END'``, which the transcripts take for output) joined back to it."""
    cmd = _REMARK.sub("", c.cmd)
    m = re.search(r"<<'?(\w+)'?\s*$", cmd)
    if m and m.group(1) in c.expected:
        cmd += "\n" + "\n".join(c.expected[: c.expected.index(m.group(1)) + 1])
    return cmd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=float, default=2.0)
    parser.add_argument("--only", nargs="*", default=[], help="run only commands containing one of these")
    ns = parser.parse_args()
    py = shlex.quote(sys.executable)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rows: list[tuple[float | None, str, str]] = []
    for f in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for t in transcripts(f.read_text(), f.name):
            cmds = [_with_heredoc(c) for c in t.commands]
            if ns.only and not any(o in c for c in cmds for o in ns.only):
                continue
            if any(s in c for c in cmds for s in NOT_RUN):
                for c in t.commands:
                    rows.append((None, f"{f.name}:{c.line}", c.cmd))
                continue
            with tempfile.TemporaryDirectory() as tmp:
                log = Path(tmp) / "times"
                script = _PRELUDE.format(py=py)
                for i, cmd in enumerate(cmds):
                    script += (
                        f"s=$(date +%s.%N)\n( {cmd}\n) > /dev/null 2>&1\n"
                        f'echo "{i} $s $(date +%s.%N)" >> {shlex.quote(str(log))}\n'
                    )
                subprocess.run(["bash", "-c", script], cwd=tmp, env=env, check=False)
                times: dict[int, float] = {}
                for line in log.read_text().split("\n"):
                    if line.strip():
                        k, start, end = line.split()
                        times[int(k)] = float(end) - float(start)
            for i, c in enumerate(t.commands):
                rows.append((times.get(i), f"{f.name}:{c.line}", cmds[i]))
                print(f"{times.get(i, float('nan')):7.2f}  {f.name}:{c.line}  {cmds[i][:110]!r}", flush=True)
    print(f"\nabove {ns.limit} s:")
    for t, where, cmd in rows:
        if t is not None and t > ns.limit:
            print(f"{t:7.2f}  {where}  {cmd[:150]!r}")
    print("\nnot run (stated as text with their time):")
    for t, where, cmd in rows:
        if t is None:
            print(f"         {where}  {cmd[:150]!r}")


if __name__ == "__main__":
    main()
