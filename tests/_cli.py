"""The command line run in-process, for tests that are about its answers, not the process.

:func:`run_cli` calls :func:`rigorous_rdp.cli.main` (the console script's entry point)
with stdout and stderr captured, which saves an interpreter start-up per call;
tests of the process itself (exit status of the installed script, ``python -m``)
live in ``test_cli_core.py``.
"""

from __future__ import annotations

import contextlib
import io
import shlex

from rigorous_rdp.cli import main


def cmd(command: str) -> list[str]:
    """The argument vector of a command line as a shell splits it (``cmd("rdp --sigma 2 --alpha 3")``);
    a long argument list reads as one line instead of one line per argument."""
    return shlex.split(command)


#: a Poisson-subsampled Gaussian job certified by several tests (``--out FILE`` to be added)
CERTIFY_POISSON = cmd("certify --sampling poisson --q 0.01 --sigma 1.1 --steps 100 --delta 1e-5")


def run_cli(argv) -> tuple[int, str, str]:
    """``rigorous-rdp ARGV`` in this process: (exit status, stdout, stderr).

    An exit through ``SystemExit`` (argparse's own, none expected) gives its code as the status.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def assert_one_line_error(status: int, out: str, err: str, option: str = "") -> None:
    """A refusal: status 2, nothing on stdout, one line ``rigorous-rdp: error: OPTION ...`` on stderr."""
    assert status == 2, (status, out, err)
    assert out == "" and len(err.splitlines()) == 1 and err.endswith("\n"), (out, err)
    assert err.startswith(f"rigorous-rdp: error: {option}"), err
