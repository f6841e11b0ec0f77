r"""Executable documentation: shell transcripts and Python blocks of Markdown files.

Shared by ``test_readme.py`` (README.md) and ``test_docs.py`` (docs/\*.md).

**Shell transcripts.** In a fenced block, a line ``$ COMMAND`` is a command
(continued over further lines while a quote is open or the line ends with a
backslash); the lines up to the next ``$`` line or the end of the block are its
expected output. Commands run in ``bash`` with ``rigorous-rdp`` and ``python``
bound to this interpreter (``python -m rigorous_rdp``) and this checkout first on
``PYTHONPATH``; the commands of one block run in order in one shell (``echo $?``
sees the previous command, a file written by one is there for the next); a
block made only of plain ``rigorous-rdp ARGS`` commands (no shell syntax) runs
them in this process through ``rigorous_rdp.cli.main``, the console script's
entry point, which saves an interpreter start-up per command. The output compared is stdout, preceded by the program's own stderr lines (those
starting with ``rigorous-rdp:``; progress bars are left out). Blank lines at
the end of an output separate commands and are not compared. ``...`` in an
expected line matches any text (as doctest's ELLIPSIS), for
values that change from run to run such as a certificate's hash.

**Python blocks** (fenced ``python``). Blocks with ``>>>`` prompts run as
doctests (ELLIPSIS, NORMALIZE_WHITESPACE). Other blocks are executed statement
by statement; an expression statement whose trailing comment *starts with a
Python value* (``x.upper_float()  # 5.63 (rounded up)``) must evaluate to that
value (floats compare exactly, as parsed: state only certified values this way); comments that are prose
(``# certified total RDP``) are not checked. A ``print(...)`` call with a trailing
comment must print that comment (or its start, followed by prose after a space,
colon or parenthesis), one line per commented call.

**Peer output** is never compared exactly: the caller names the lines that show a peer's
numbers by their start (``peer_prefixes``) and their numbers are compared within
:data:`PEER_REL_TOL` relative (the text around them exactly).
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import tokenize
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_FENCE = re.compile(r"^```([A-Za-z0-9_-]*)[^\n]*\n(.*?)^```", flags=re.S | re.M)


@dataclass(frozen=True)
class Block:
    """A fenced block: its language tag, text and the line number of its first line."""

    lang: str
    text: str
    line: int
    #: a python block's printed output: the lines of a plain block right below it (None: none)
    output: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Command:
    """One ``$ COMMAND`` of a transcript with its expected output lines."""

    cmd: str
    expected: tuple[str, ...]
    line: int = 0
    source: str = ""


@dataclass
class Transcript:
    """The commands of one block, run in order in one directory."""

    commands: list[Command] = field(default_factory=list)
    line: int = 0
    source: str = ""


def blocks(text: str) -> list[Block]:
    """Every fenced block of a Markdown text."""
    out = []
    for m in _FENCE.finditer(text):
        out.append(Block(m.group(1).lower(), m.group(2), text.count("\n", 0, m.start(2)) + 1))
    return out


def _complete(cmd: str) -> bool:
    if cmd.endswith("\\"):
        return False
    try:
        shlex.split(cmd)
    except ValueError:  # no closing quotation
        return False
    return True


def block_commands(block: Block, source: str = "") -> list[Command]:
    """The ``$`` commands of one block with their expected output."""
    lines = block.text.rstrip("\n").split("\n")
    out: list[Command] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        start = i
        cmd = lines[i][2:]
        while not _complete(cmd) and i + 1 < len(lines):
            i += 1
            cmd += "\n" + lines[i]
        j = i + 1
        while j < len(lines) and not lines[j].startswith("$ "):
            j += 1
        expected = lines[i + 1 : j]
        while expected and not expected[-1].strip():  # blank lines separating commands
            expected.pop()
        out.append(Command(cmd, tuple(expected), block.line + start, source))
        i = j
    return out


def transcripts(text: str, source: str = "") -> list[Transcript]:
    """One transcript per block that contains ``$`` commands."""
    out = []
    for b in blocks(text):
        if b.lang in ("python", "py", "pycon"):
            continue
        cmds = block_commands(b, source)
        if cmds:
            out.append(Transcript(cmds, b.line, source))
    return out


def commands(text: str, source: str = "") -> list[Command]:
    """Every ``$`` command of a Markdown text, in order."""
    return [c for t in transcripts(text, source) for c in t.commands]


_PRELUDE = """\
rigorous-rdp() {{ {py} -m rigorous_rdp "$@"; }}
python() {{ {py} "$@"; }}
python3() {{ {py} "$@"; }}
"""


def run_all(cmds, cwd: Path = ROOT, timeout: float = 600) -> list[list[str]]:
    """Run commands in order in one shell (so ``echo $?`` sees the previous command's status and
    files written by one command are there for the next); the output lines of each, as they
    are compared (see module doc)."""
    py = shlex.quote(sys.executable)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as logs:
        log = Path(logs)
        script = _PRELUDE.format(py=py)
        for i, cmd in enumerate(cmds):
            script += f"( {cmd}\n) > {shlex.quote(str(log / f'{i}.out'))} 2> {shlex.quote(str(log / f'{i}.err'))}\n"
        proc = subprocess.Popen(["bash", "-c", script], cwd=cwd, env=env, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the shell and everything it started
            proc.wait()
            raise
        out = []
        for i in range(len(cmds)):
            stdout = (log / f"{i}.out").read_text()
            stderr = (log / f"{i}.err").read_text()
            lines = stdout.rstrip("\n").split("\n") if stdout.strip() else []
            # the program's own messages; an error line precedes what the shell echoes afterwards
            errors = [ln for ln in stderr.split("\n") if ln.startswith("rigorous-rdp:")]
            out.append(errors + lines)
    return out


_SHELL_SYNTAX = re.compile(r"[;|&<>$`\\\n*?(){}]")


def cli_argv(cmd: str):
    """The arguments of a plain ``rigorous-rdp ...`` / ``python -m rigorous_rdp ...`` command
    (no shell syntax), or None."""
    if _SHELL_SYNTAX.search(cmd):
        return None
    try:
        words = shlex.split(cmd)
    except ValueError:
        return None
    if words[:1] == ["rigorous-rdp"]:
        return words[1:]
    if words[:3] in (["python", "-m", "rigorous_rdp"], ["python3", "-m", "rigorous_rdp"]):
        return words[3:]
    return None


def run_in_process(argv: list[str], cwd: Path) -> list[str]:
    """Run the console script's entry point ``rigorous_rdp.cli.main`` in this process (saves the
    interpreter start-up of a subprocess); output lines as :func:`run_all` gives them."""
    from rigorous_rdp.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            contextlib.suppress(SystemExit),
        ):  # argparse errors and --help
            main(argv)
    finally:
        os.chdir(here)
    stdout = out.getvalue()
    lines = stdout.rstrip("\n").split("\n") if stdout.strip() else []
    return [ln for ln in err.getvalue().split("\n") if ln.startswith("rigorous-rdp:")] + lines


def run_block(cmds, cwd: Path, timeout: float = 600) -> list[list[str]]:
    """Like :func:`run_all`, but a block made only of plain ``rigorous-rdp`` commands runs in
    process (same entry point as the console script, same output)."""
    argvs = [cli_argv(c) for c in cmds]
    if all(a is not None for a in argvs):
        return [run_in_process(a, cwd) for a in argvs]
    return run_all(cmds, cwd, timeout)


def run(cmd: str, cwd: Path = ROOT, timeout: float = 600) -> list[str]:
    """Run one command; its output lines as they are compared."""
    return run_block([cmd], cwd, timeout)[0]


#: a decimal number in an output line (sign, digits, fraction, exponent)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")

#: Peer output (dp-accounting, Opacus, prv-accountant, autodp) is compared with this relative
#: tolerance, never exactly: a peer computes in floating point with its own libraries (FFTs,
#: scipy's special functions, BLAS), and its last digits change with the machine (Opacus's PRV
#: epsilon 2.867140811262486 here, 2.8671408112727965 on another CPU: 3.6e-12 relative).
#: 1e-6 relative keeps every digit a sentence of the docs relies on.
PEER_REL_TOL = 1e-6


def numbers_close(expected: str, got: str, rel_tol: float = PEER_REL_TOL) -> bool:
    """The two lines are equal once their numbers are set aside, and each number of ``got`` is
    within ``rel_tol`` (relative) of the number at the same place in ``expected``."""
    if _NUMBER.sub("#", expected) != _NUMBER.sub("#", got):
        return False
    pairs = zip(_NUMBER.findall(expected), _NUMBER.findall(got), strict=True)
    return all(abs(float(e) - float(g)) <= rel_tol * abs(float(e)) for e, g in pairs)


def line_matches(expected: str, got: str, peer_prefixes: tuple[str, ...] = ()) -> bool:
    """Equality, with ``...`` in ``expected`` matching any text; a line that starts with one of
    ``peer_prefixes`` (a peer's output) compares its numbers within :data:`PEER_REL_TOL`."""
    if peer_prefixes and expected.startswith(peer_prefixes):
        return numbers_close(expected, got)
    if "..." not in expected:
        return expected == got
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, got, flags=re.S) is not None


def output_matches(expected, got, peer_prefixes: tuple[str, ...] = ()) -> bool:
    expected, got = list(expected), list(got)
    return len(expected) == len(got) and all(
        line_matches(e, g, peer_prefixes) for e, g in zip(expected, got, strict=False)
    )


def _mismatch(command: Command, got: list[str]) -> str:
    where = f"{command.source}:{command.line}: " if command.source else ""
    return f"{where}$ {command.cmd}\nexpected:\n" + "\n".join(command.expected) + "\ngot:\n" + "\n".join(got)


def check_command(command: Command, cwd: Path = ROOT) -> None:
    """Run a command and assert that its output is the transcript's."""
    got = run(command.cmd, cwd)
    assert output_matches(command.expected, got), _mismatch(command, got)


def check_transcript(transcript: Transcript, cwd: Path, peer_prefixes: tuple[str, ...] = ()) -> None:
    """Run the commands of a block in one shell and assert that every output is the transcript's
    (lines starting with one of ``peer_prefixes`` within :data:`PEER_REL_TOL`)."""
    results = run_block([c.cmd for c in transcript.commands], cwd)
    bad = [
        _mismatch(c, got)
        for c, got in zip(transcript.commands, results, strict=False)
        if not output_matches(c.expected, got, peer_prefixes)
    ]
    assert not bad, "\n\n".join(bad)


# ---------------------------------------------------------------------------
# Python blocks
# ---------------------------------------------------------------------------


def python_blocks(text: str) -> list[Block]:
    """The Python blocks, each with the plain block that follows it with nothing in between
    (its printed output) as ``output``."""
    out = []
    matches = list(_FENCE.finditer(text))
    for m, nxt in zip(matches, [*matches[1:], None][: len(matches)], strict=True):
        lang = m.group(1).lower()
        if lang not in ("python", "py", "pycon"):
            continue
        output = None
        if nxt is not None and not nxt.group(1) and not text[m.end() : nxt.start()].strip():
            output = tuple(nxt.group(2).rstrip("\n").split("\n"))
        out.append(Block(lang, m.group(2), text.count("\n", 0, m.start(2)) + 1, output))
    return out


def _comments(src: str) -> dict[int, str]:
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:].strip()
    return out


def _stated_value(comment: str, namespace: dict):
    """The longest prefix of the comment that evaluates to a value, or (False, None)."""
    cuts = sorted({len(comment)} | {m.start() for m in re.finditer(r"\s", comment)}, reverse=True)
    env = dict(namespace, Fraction=Fraction)
    for cut in cuts:
        prefix = comment[:cut].strip().rstrip(":;,")
        if not prefix:
            continue
        try:
            code = compile(prefix, "<comment>", "eval")
        except SyntaxError:
            continue
        try:
            return True, eval(code, env)
        except Exception:  # prose such as "certified total RDP at order 8"
            continue
    return False, None


def _printed_matches(printed: str, comment: str) -> bool:
    """The printed line is the comment, or the comment's start followed by prose."""
    printed = printed.strip()
    if comment == printed:
        return True
    return comment.startswith(printed) and comment[len(printed)] in " \t:(;,"


def _print_comments(stmt: ast.stmt, comments: dict[int, str]) -> list[str]:
    """Comments on the lines of the print() calls of a statement, in source order."""
    calls = [
        n for n in ast.walk(stmt) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
    ]
    return [comments[c.end_lineno] for c in sorted(calls, key=lambda c: c.lineno) if c.end_lineno in comments]


def run_python_block(block: Block, source: str = "", peer_prefixes: tuple[str, ...] = ()) -> int:
    """Execute a Python block (see module doc); returns the number of values checked. Printed
    lines that start with one of ``peer_prefixes`` (a peer's output) compare their numbers within
    :data:`PEER_REL_TOL`."""
    where = f"{source}:{block.line}"
    if ">>>" in block.text:
        test = doctest.DocTestParser().get_doctest(block.text, {}, where, source, block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        report = io.StringIO()
        runner.run(test, out=report.write)
        res = runner.summarize(verbose=False)
        assert res.failed == 0, report.getvalue()
        return res.attempted
    tree = ast.parse(block.text, where)
    comments = _comments(block.text)
    namespace: dict = {"__name__": "__doc_block__"}
    checked = 0
    everything: list[str] = []
    for stmt in tree.body:
        here = f"{where}+{stmt.lineno - 1}"
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            if isinstance(stmt, ast.Expr):
                value = eval(compile(ast.Expression(stmt.value), where, "eval"), namespace)
            else:
                exec(compile(ast.Module([stmt], []), where, "exec"), namespace)
        stated = _print_comments(stmt, comments)
        printed = buffer.getvalue().rstrip("\n").split("\n") if buffer.getvalue() else []
        everything += printed
        if stated:
            # one printed line per commented print() call: compare them in order
            assert len(printed) == len(stated), f"{here}: printed {printed!r}, the text says {stated!r}"
            for got, text in zip(printed, stated, strict=False):
                peer = bool(peer_prefixes) and text.startswith(peer_prefixes)
                ok = numbers_close(text, got) if peer else _printed_matches(got, text)
                assert ok, f"{here}: printed {got!r}, the text says {text!r}"
                checked += 1
        elif isinstance(stmt, ast.Expr) and stmt.end_lineno in comments:
            has, stated_value = _stated_value(comments[stmt.end_lineno], namespace)
            if has:
                assert value == stated_value, (
                    f"{here}: {ast.unparse(stmt)} gives {value!r}, the text says {comments[stmt.end_lineno]!r}"
                )
                checked += 1
    if block.output is not None:
        assert output_matches(block.output, everything, peer_prefixes), (
            f"{where}: printed\n" + "\n".join(everything) + "\nthe block below says\n" + "\n".join(block.output)
        )
        checked += len(block.output)
    return checked


# ---------------------------------------------------------------------------
# regenerating drifted transcripts (run, never edit numbers by hand)
# ---------------------------------------------------------------------------


def update_file(path: Path, cwd: Path) -> int:
    """Rewrite the expected output of every command of ``path`` whose output differs from the
    transcript with the output of a fresh run; returns the number of commands rewritten."""
    text = path.read_text()
    lines = text.split("\n")
    edits = []
    for t in transcripts(text, str(path)):
        results = run_all([c.cmd for c in t.commands], cwd)
        for c, got in zip(t.commands, results, strict=False):
            if not output_matches(c.expected, got):
                first = c.line + c.cmd.count("\n")  # 0-based index of the first output line
                edits.append((first, first + len(c.expected), got))
    for start, stop, got in sorted(edits, reverse=True):
        lines[start:stop] = got
    path.write_text("\n".join(lines))
    return len(edits)


if __name__ == "__main__":  # python tests/_transcripts.py --update docs/core.md ...
    import argparse

    parser = argparse.ArgumentParser(description="Rewrite drifted transcripts with real output.")
    parser.add_argument("--update", nargs="+", required=True, metavar="FILE")
    ns = parser.parse_args()
    for name in ns.update:
        with tempfile.TemporaryDirectory() as tmp:
            n = update_file(Path(name).resolve(), Path(tmp))
        print(f"{name}: {n} command(s) rewritten")
