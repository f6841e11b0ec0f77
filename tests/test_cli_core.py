"""The command line (rdp, epsilon, delta): the JSON contract and every bad-input path.

Bad input must give exit status 2, exactly one line on stderr naming the
option, nothing on stdout and no traceback -- both in-process
(``rigorous_rdp.cli.main``) and as a subprocess (``python -m rigorous_rdp``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from rigorous_rdp.cli import main
from rigorous_rdp.reference.gaussian import poisson_gaussian_log_a_binomial_mp, poisson_gaussian_rdp_mp

ROOT = Path(__file__).resolve().parents[1]

PG = ["--sampling", "poisson", "--q", "0.01", "--sigma", "1.1"]


def _values(option, values, before, after=()):
    """Rows ``(before + [option, v] + after, option)``: one bad value ``v`` of ``option`` each."""
    return [([*before, option, v, *after], option) for v in values]


EPS = ["epsilon", *PG, "--steps", "10"]
POISSON_Q = ["rdp", "--sampling", "poisson"]

# (argv, option that the message must name)
BAD = [
    *_values("--sigma", ["0", "-1", "nan", "inf", "-inf", "abc", ""], ["rdp"], ["--alpha", "2"]),
    (["epsilon", "--sampling", "poisson", "--q", "0.1", "--steps", "10", "--delta", "1e-5"], "--sigma"),
    *_values("--q", ["1.5", "-0.1", "nan", "1/0"], POISSON_Q, ["--sigma", "1", "--alpha", "2"]),
    ([*POISSON_Q, "--sigma", "1", "--alpha", "2"], "--q"),
    (["rdp", "--q", "0.1", "--sigma", "1", "--alpha", "2"], "--q"),
    *_values("--alpha", ["1", "0.5", "-3", "nan", "inf"], ["rdp", "--sigma", "1"]),
    (["rdp", "--sigma", "1", "--alpha", "2", "x"], "--alpha"),
    (["rdp", "--sigma", "1"], "--alpha"),
    (["rdp", "--sigma", "1", "--alpha"], "--alpha"),
    ([*EPS, "--delta", "1e-5", "--alpha", "1"], "--alpha"),
    *_values("--delta", ["0", "1", "1.5", "-1e-5", "nan", "inf", "tiny"], EPS),
    (EPS, "--delta"),
    *_values("--epsilon", ["-1", "nan", "big"], ["delta", *PG, "--steps", "10"]),
    (["delta", *PG, "--steps", "10"], "--epsilon"),
    *_values("--steps", ["0", "-5", "1.5", "many", "inf"], ["epsilon", *PG], ["--delta", "1e-5"]),
    (["epsilon", *PG, "--delta", "1e-5"], "--steps"),
    (["rdp", "--sigma", "1", "--alpha", "2", "--steps", "0"], "--steps"),
    # other mechanisms and options
    (["rdp", "--noise", "laplace", "--scale", "0", "--alpha", "2"], "--scale"),
    (["rdp", "--noise", "laplace", "--scale", "nan", "--alpha", "2"], "--scale"),
    (["rdp", "--noise", "laplace", "--alpha", "2"], "--scale"),
    (["rdp", "--noise", "randomized-response", "--p", "1", "--alpha", "2"], "--p"),
    (["rdp", "--noise", "randomized-response", "--p", "0", "--alpha", "2"], "--p"),
    (["rdp", "--noise", "randomized-response", "--p", "1.2", "--alpha", "2"], "--p"),
    (["rdp", "--noise", "randomized-response", "--alpha", "2"], "--p"),
    (["rdp", "--noise", "uniform", "--sigma", "1", "--alpha", "2"], "--noise"),
    (["rdp", "--sampling", "bernoulli", "--sigma", "1", "--alpha", "2"], "--sampling"),
    (["rdp", "--sigma", "1", "--alpha", "2", "--digits", "0"], "--digits"),
    (["rdp", "--sigma", "1", "--alpha", "2", "--digits", "abc"], "--digits"),
    (["rdp", "--sigma", "1", "--alpha", "2", "--digits", "5000"], "--digits"),
    (["epsilon", *PG, "--steps", "10", "--delta", "1e-5", "--conversion", "renyi"], "--conversion"),
    # contradictory options
    (["rdp", "--noise", "laplace", "--scale", "1", "--sigma", "1", "--alpha", "2"], "--sigma"),
    (["rdp", "--noise", "gaussian", "--sigma", "1", "--p", "0.7", "--alpha", "2"], "--p"),
    (["rdp", "--sigma", "1", "--alpha", "2", "--adjacency", "replace-one"], "--adjacency"),
    (["rdp", *PG, "--batch-size", "10", "--alpha", "2"], "--batch-size"),
    (["rdp", *PG, "--taylor-order", "4", "--alpha", "2"], "--taylor-order"),
    (["rdp", "--sampling", "fswor", "--sigma", "1", "--alpha", "2"], "--batch-size"),
    # unknown options
    (["rdp", "--sigma", "1", "--alpha", "2", "--frobnicate"], "--frobnicate"),
]


def _ids():
    return ["_".join(a.lstrip("-") or "empty" for a in argv)[:70] + f"->{opt}" for argv, opt in BAD]


def _check_error(code, out, err, option):
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("rigorous-rdp: error: ")
    assert option in lines[0], lines[0]


@pytest.mark.parametrize("argv,option", BAD, ids=_ids())
def test_bad_input_in_process(argv, option, capsys):
    code = main(list(argv))
    out, err = capsys.readouterr()
    _check_error(code, out, err, option)


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["epsilon", *PG, "--steps", "10", "--delta", "-1e-5"], "--delta must be in (0, 1). Found -1e-5."),
        (["rdp", "--sigma", "-inf", "--alpha", "2"], "--sigma must be a number in (0, "),
        (["rdp", "--sigma", "-NaN", "--alpha", "2"], "--sigma must be a number in (0, "),
        (
            ["conjecture", "--prove", "--rows", "2", "--batch", "1", "--order-range", "-inf", "4"],
            "--order-range must be two numbers with 2 <= LOW < HIGH <= 16. Found -inf 4.",
        ),
    ],
)
def test_negative_numbers_reach_the_options_own_check(argv, text, capsys):
    """-1e-5, -inf and -nan are values (argparse alone reads only -1 and -.5 so, and would call -inf an
    option with its value missing): the option's own check refuses them and names the valid range."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    _check_error(code, out, err, text.split()[0])
    assert text in err, err


def test_choices_in_messages_are_named_as_options(capsys):
    # the event layer says "sampling poisson"; the command line says "--sampling poisson"
    assert main(["rdp", "--q", "0.1", "--sigma", "1", "--alpha", "2"]) == 2
    assert capsys.readouterr().err.strip() == (
        "rigorous-rdp: error: --q applies to --sampling poisson, not --sampling none."
    )
    assert main(["rdp", "--sigma", "1", "--alpha", "2", "--adjacency", "replace-one"]) == 2
    assert "needs a sampling scheme (--sampling poisson|fswor)" in capsys.readouterr().err


def _run(argv):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "rigorous_rdp", *argv], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )


SUBPROCESS_DEFAULT = [0, 23, 55]  # sigma, delta, a contradiction; the rest under -m slow


@pytest.mark.parametrize(
    "argv,option",
    [
        pytest.param(*bad, id=name, marks=[] if i in SUBPROCESS_DEFAULT else [pytest.mark.slow])
        for i, (bad, name) in enumerate(zip(BAD, _ids(), strict=True))
    ],
)
def test_bad_input_subprocess(argv, option):
    p = _run(argv)
    _check_error(p.returncode, p.stdout, p.stderr, option)


def test_no_command(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1


# ---------------------------------------------------------------------------
# JSON contract
# ---------------------------------------------------------------------------


def _json(argv, capsys):
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _interval(d):
    lo, hi = Decimal(d["lower"]), Decimal(d["upper"])  # must parse as decimals
    assert lo <= hi
    return Fraction(lo), Fraction(hi)


def test_rdp_json(capsys):
    res = _json(["rdp", *PG, "--alpha", "10.5", "32"], capsys)
    assert [r["alpha"] for r in res["results"]] == [10.5, 32]
    for r in res["results"]:
        lo, hi = _interval(r["rdp"])
        a = Fraction(str(r["alpha"]))
        if a.denominator == 1:
            with mpmath.workdps(60):
                ref = poisson_gaussian_log_a_binomial_mp(int(a), Fraction("0.01"), Fraction("1.1")) / (a - 1)
        else:
            ref = poisson_gaussian_rdp_mp(a, Fraction("0.01"), Fraction("1.1"))
        with mpmath.workdps(60):
            f = Fraction(mpmath.nstr(ref, 50))
        assert lo <= f <= hi
        assert (hi - lo) / hi < Fraction(1, 10**10)


def test_rdp_json_laplace_steps(capsys):
    res = _json(["rdp", "--noise", "laplace", "--scale", "2", "--alpha", "3", "--steps", "7"], capsys)
    lo, hi = _interval(res["results"][0]["rdp"])
    with mpmath.workdps(60):  # alpha = 3, b = 2: log(3/5 e + 2/5 e^{-3/2}) / 2 by hand
        f = Fraction(
            mpmath.nstr(7 * mpmath.log(mpmath.mpf(3) / 5 * mpmath.e + mpmath.mpf(2) / 5 * mpmath.exp(-1.5)) / 2, 50)
        )
    assert lo <= f <= hi


def test_epsilon_json_done_when(capsys):
    res = _json(["epsilon", *PG, "--steps", "10000", "--delta", "1e-5", "--method", "rdp"], capsys)
    lo, hi = _interval(res["epsilon"])
    assert Fraction("5.63") < lo <= hi < Fraction("5.6321")  # dp-accounting: 5.632010670081592
    assert (hi - lo) / hi <= Fraction(1, 10**12)
    assert res["conversion"] in ("cks", "mironov", "balle", "tv")
    alpha = Fraction(str(res["alpha"]))
    assert 4 < alpha < 5
    _interval(res["rdp"])
    assert res["steps"] == 10000 and res["mechanism"]["q"] == "0.01"


def test_epsilon_grid_only_uses_grid_order(capsys):
    res = _json(["epsilon", *PG, "--steps", "10000", "--delta", "1e-5", "--no-continuous", "--method", "rdp"], capsys)
    assert res["alpha"] == 4.7


def test_delta_json(capsys):
    res = _json(["delta", *PG, "--steps", "10000", "--epsilon", "5.64"], capsys)
    lo, hi = _interval(res["delta"])
    assert lo > 0 and hi < Fraction(1, 10**5)


def test_pure_dp_json(capsys):
    res = _json(
        ["epsilon", "--noise", "laplace", "--scale", "1", "--steps", "2", "--delta", "1e-5", "--method", "rdp"], capsys
    )
    assert res["alpha"] == "inf" and res["conversion"] == "pure-dp"
    assert _interval(res["epsilon"]) == (2, 2)


def test_digits_option_narrows(capsys):
    res = _json(["rdp", *PG, "--alpha", "10.5", "--digits", "16"], capsys)
    lo, hi = _interval(res["results"][0]["rdp"])
    assert (hi - lo) / hi < Fraction(2, 10**16)


def test_text_output(capsys):
    assert main(["epsilon", *PG, "--steps", "100", "--delta", "1e-5"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("epsilon = [") and err == ""


def test_subprocess_json_parses():
    p = _run(["rdp", "--sigma", "2", "--alpha", "3", "--json"])
    assert p.returncode == 0 and p.stderr == ""
    res = json.loads(p.stdout)
    assert _interval(res["results"][0]["rdp"]) == (Fraction(3, 8), Fraction(3, 8))


def test_extreme_values_are_represented(capsys):
    # delta = 1e-400 is below the float range; it must not underflow to 0
    res = _json(["epsilon", *PG, "--steps", "10000", "--delta", "1e-400"], capsys)
    lo, hi = _interval(res["epsilon"])
    assert Fraction(100) < lo <= hi < Fraction(110)
    # a delta far below the float range at a huge epsilon: printed, not crashed
    res = _json(["delta", *PG, "--steps", "10", "--epsilon", "1e6"], capsys)
    lo, hi = mpmath.mpf(res["delta"]["lower"]), mpmath.mpf(res["delta"]["upper"])  # exponents ~ -1e8
    assert 0 < lo <= hi < mpmath.mpf("1e-10000")


def test_no_command_line_words_below_cli():
    """Messages of the library speak the API's words (``noise_multiplier``, ``bound tau``);
    only ``rigorous_rdp/cli/`` names options (``--sigma``, ``--bound tau``). Docstrings may
    mention the options. The figure scripts (paper_repro/, consumers like the command line) tag
    the titles of their ``--fast`` versions; they are exempt."""
    import ast
    import re

    option = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
    found = []
    package = ROOT / "rigorous_rdp"
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if rel.parts[0] in ("cli", "paper_repro"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
            if id(node) not in docstrings and option.search(text):
                found.append(f"{rel}:{node.lineno}: {text[:60]!r}")
    assert found == []


def test_invalid_parameter_rendered_with_options():
    """An API error names the parameter; the command line names its option, without
    rewriting the text: the same exception rendered twice."""
    from _cli import cmd, run_cli

    status, out, err = run_cli(cmd("epsilon --sampling poisson --q 0.1 --sigma 1e400 --steps 10 --delta 1e-5"))
    assert out == ""
    assert status == 2 and err.startswith("rigorous-rdp: error: --sigma must be at most 1e100"), err
    assert "Found 1e400." in err
