"""Run one proof script as a program: ``python proofs/verify_<name>.py``.

Under pytest every ``test_*`` function of a ``verify_*.py`` script is a test.  Run
by itself, a script hands its namespace to :func:`run_checks`, which runs the
same functions (slow ones included) and reports each.
"""

from __future__ import annotations

from collections.abc import Mapping


def run_checks(namespace: Mapping[str, object], subject: str) -> int:
    """Run the ``test_*`` functions of ``namespace`` in the order of the file; print ``ok`` or ``FAIL`` for each.

    Args:
        namespace: the script's ``globals()``.
        subject: what the checks verify, for the closing line ("all 7 checks of <subject> hold").

    Returns:
        The exit status: 0 when every check holds, 1 when one fails (an ``AssertionError``).
    """
    checks = [(name, fn) for name, fn in namespace.items() if name.startswith("test_") and callable(fn)]
    failed = 0
    for name, fn in checks:
        try:
            fn()
        except AssertionError as exc:
            failed += 1
            print(f"FAIL {name}: {exc}")
        else:
            print(f"ok   {name}")
    if failed:
        print(f"{failed} of {len(checks)} checks of {subject} fail")
        return 1
    print(f"all {len(checks)} checks of {subject} hold")
    return 0
