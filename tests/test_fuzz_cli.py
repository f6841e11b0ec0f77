"""Property-based fuzzing of the command line: hostile argument vectors and files.

Hypothesis drives :func:`rigorous_rdp.cli.main` in-process with random argument
vectors (numbers of every magnitude, unicode, empty strings, conflicting
options) and ``verify`` with malformed certificates.  Every run must end with

* exit status 0 or 2 (``verify``: also 1, "not verified", its documented status);
* on 2, nothing on stdout and exactly one line on stderr;
* on 0 with ``--json``, exactly one parseable JSON object on stdout;
* never a traceback, never status 1 from an internal error.

Each run has a small time budget (``--max-seconds``), so a slow case ends as a
refusal with status 2 and the suite stays fast: 200 examples per property in the
default suite, 2,000 under ``-m slow``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import CERTIFY_POISSON, assert_one_line_error
from _cli import run_cli as run_in_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigorous_rdp.certificate import content_hash

BUDGET = "0.4"

COMMANDS = ["rdp", "epsilon", "delta", "calibrate", "certify", "dpsgd", "constant", "routes"]

HOSTILE_NUMBERS = [
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "0.5",
    "1/2",
    "3/7",
    "1/0",
    "0/0",
    "1e-5",
    "1e-400",
    "1e-100000",
    "1e-100001",
    "1e99999",
    "1e100000",
    "1e999999",
    "1e99999999999",
    "1e-99999999999",
    "-1e-400",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1e12",
    "1e18",
    "1e19",
    "1.0000000001",
    "0.9999999999",
    "1e9",
    "0x10",
    "1_000",
    "",
    " ",
    "½",
    "١٢",
    "٣.٥",  # noqa: RUF001 -- deliberately non-ASCII digits, the parser must reject them
    "1e",
    "e5",
    "--",
    "1/",
    "/2",
    "1//2",
    "１２",  # noqa: RUF001 -- deliberately non-ASCII digits, the parser must reject them
    "2.5e-3",
    "999999999999999999999",
    "0." + "0" * 500 + "1",
    "9" * 1200,
    "1e-5/1e5",
]


def _numbers() -> st.SearchStrategy[str]:
    finite = st.floats(allow_nan=False, allow_infinity=False).map(repr)
    ints = st.integers(min_value=-(10**30), max_value=10**30).map(str)
    exps = st.tuples(st.integers(-9, 9), st.integers(-200000, 200000)).map(lambda t: f"{t[0]}e{t[1]}")
    text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6).filter(
        lambda s: not s.lstrip().startswith("-") or _is_number(s)
    )
    return st.one_of(st.sampled_from(HOSTILE_NUMBERS), finite, ints, exps, text)


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


OPTIONS = {
    "--sigma": _numbers,
    "--scale": _numbers,
    "--p": _numbers,
    "--q": _numbers,
    "--batch-size": _numbers,
    "--dataset-size": _numbers,
    "--taylor-order": _numbers,
    "--steps": _numbers,
    "--delta": _numbers,
    "--epsilon": _numbers,
    "--digits": _numbers,
    "--tau": _numbers,
    "--epochs": _numbers,
    "--sigma-digits": _numbers,
    "--c1": _numbers,
    "--c2": _numbers,
    "--sigma-max": _numbers,
    "--sigma-min": _numbers,
}
CHOICES = {
    "--noise": ["gaussian", "laplace", "randomized-response", "", "gauss", "Gaussian"],
    "--sampling": ["none", "poisson", "fswor", "fswr", "", "POISSON"],
    "--adjacency": ["add-remove", "replace-one", "x"],
    "--bound": ["tight", "general", "lower", "tau", "best"],
    "--conversion": ["best", "mironov", "cks", "balle", "x"],
}
FLAGS = ["--json", "--no-continuous", "--integer", "--max-steps"]


VALID = {
    "sigma": ["1.1", "0.5", "3", "1e-9", "1e-400", "1e6"],
    "scale": ["1", "0.3", "20"],
    "p": ["0.5", "0.7", "0.99"],
    "q": ["0.01", "0.5", "1", "0", "1e-300", "1e-100000"],
    "alpha": ["2", "2.5", "1.1", "32", "1e12", "1.0001"],
    "steps": ["1", "100", "1e9"],
    "delta": ["1e-5", "0.5", "1e-400"],
    "epsilon": ["1", "0.1", "10", "1e-300"],
    "batch-size": ["1", "10", "600"],
    "dataset-size": ["10", "60000", "1000000"],
    "taylor-order": ["3", "4", "10"],
    "epochs": ["1", "0.5", "100"],
    "digits": ["5", "10", "30"],
    "c1": ["1", "0.5"],
    "c2": ["1", "2"],
}
MECHANISMS = [
    ["--sigma", "sigma"],
    ["--sampling", "poisson", "--q", "q", "--sigma", "sigma"],
    ["--sampling", "fswor", "--batch-size", "batch-size", "--dataset-size", "dataset-size", "--sigma", "sigma"],
    [
        "--sampling",
        "fswr",
        "--batch-size",
        "batch-size",
        "--dataset-size",
        "dataset-size",
        "--sigma",
        "sigma",
        "--adjacency",
        "replace-one",
    ],
    ["--noise", "laplace", "--scale", "scale", "--sampling", "poisson", "--q", "q"],
    ["--noise", "randomized-response", "--p", "p", "--sampling", "poisson", "--q", "q"],
]
TEMPLATES = {
    "rdp": ["--alpha", "alpha"],
    "epsilon": ["--steps", "steps", "--delta", "delta"],
    "delta": ["--steps", "steps", "--epsilon", "epsilon"],
    "calibrate": ["--steps", "steps", "--epsilon", "epsilon", "--delta", "delta"],
    "certify": ["--steps", "steps", "--delta", "delta"],
    "dpsgd": ["--epochs", "epochs", "--delta", "delta"],
    "constant": ["--c1", "c1", "--c2", "c2"],
}


@st.composite
def argvs(draw) -> list:
    """A command with its required options; each value valid, extreme or hostile; then extra
    (possibly conflicting or unknown) options."""
    command = draw(st.sampled_from(COMMANDS))
    argv = [command]
    if command in ("rdp", "epsilon", "delta", "calibrate", "certify"):
        mech = draw(st.sampled_from(MECHANISMS))
        if command == "calibrate":
            mech = [t for i, t in enumerate(mech) if t != "--sigma" and (i == 0 or mech[i - 1] != "--sigma")]
        slots = mech + TEMPLATES[command]
    else:
        slots = TEMPLATES.get(command, [])
    for i, tok in enumerate(slots):
        if i > 0 and slots[i - 1].startswith("--") and tok in VALID:
            if draw(st.integers(0, 5)) == 0:
                argv.append(draw(_numbers()))
            else:
                argv.append(draw(st.sampled_from(VALID[tok])))
        else:
            argv.append(tok)
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.integers(0, 9))
        if kind <= 4:
            opt = draw(st.sampled_from(sorted(OPTIONS)))
            argv += [opt, draw(OPTIONS[opt]())]
        elif kind <= 6:
            opt = draw(st.sampled_from(sorted(CHOICES)))
            argv += [opt, draw(st.sampled_from(CHOICES[opt]))]
        elif kind == 7:
            argv += ["--alpha", *draw(st.lists(_numbers(), min_size=0, max_size=3))]
        else:
            argv.append(draw(st.sampled_from(FLAGS)))
    if draw(st.booleans()):
        argv.append("--json")
    return argv


def run_cli(argv: list, tmp: Path) -> tuple:
    argv = list(argv)
    if argv[0] == "certify":
        argv += ["--out", str(tmp / "cert.json")]
    argv += ["--max-seconds", BUDGET]
    return run_in_process(argv)


def check_outcome(argv: list, status, out: str, err: str, allowed=(0, 2)) -> None:
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    assert status in allowed, (argv, status, err)
    if status == 2:
        assert_one_line_error(status, out, err)
    if status == 0 and "--json" in argv:
        obj = json.loads(out)
        assert isinstance(obj, dict)


def _settings(n: int):
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
    )


#: examples per property: the default suite, and ``-m slow``
EXAMPLES = [200, pytest.param(2000, marks=pytest.mark.slow)]


@pytest.mark.parametrize("examples", EXAMPLES)
def test_cli_never_crashes(examples, tmp_path):
    @_settings(examples)
    @given(argv=argvs())
    def inner(argv):
        status, out, err = run_cli(argv, tmp_path)
        check_outcome(argv, status, out, err)

    inner()


# ---------------------------------------------------------------------------
# verify on malformed files
# ---------------------------------------------------------------------------


def _valid_certificate(tmp: Path) -> dict:
    path = tmp / "valid.json"
    if not path.exists():
        status, _out, err = run_in_process([*CERTIFY_POISSON, "--out", str(path)])
        assert status == 0, err
    return json.loads(path.read_text())


json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**40), 10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(HOSTILE_NUMBERS),
    st.text(max_size=8),
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8,
)


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


@st.composite
def malformed_files(draw, base: dict) -> bytes:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.binary(max_size=200))
    if kind == 1:
        depth = draw(st.integers(60, 5000))
        return (draw(st.sampled_from(["[", '{"a":', '[[{"b":'])) * depth).encode()
    if kind == 2:
        return json.dumps(draw(json_values)).encode()
    cert = json.loads(json.dumps(base))
    paths = [p for p in _paths(cert) if p]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        target = cert
        try:
            for key in path[:-1]:
                target = target[key]
            if draw(st.booleans()):
                target[path[-1]] = draw(json_values)
            elif isinstance(target, dict):
                target.pop(path[-1], None)
        except (KeyError, IndexError, TypeError):
            pass
    if kind == 5:  # hostile exact inputs, in a file whose content hash is consistent
        text = json.dumps(cert).replace(
            "1/100",
            draw(
                st.sampled_from(
                    ["1/0", "1e-999999", "nan", "-1", "1e99999999999", "1/" + "9" * 5000, "0", "1", "1e-400"]
                )
            ),
        )
        try:
            cert = json.loads(text)
        except ValueError:
            return text.encode()
    if kind in (3, 5) and isinstance(cert, dict) and draw(st.booleans()):
        # re-hash, so that verification goes past the integrity check into the recomputation
        cert["sha256"] = content_hash(cert)
    text = json.dumps(cert)
    if kind == 4:  # truncated file
        text = text[: draw(st.integers(0, len(text)))]
    return text.encode("utf-8", "surrogatepass")


def _verify_case(data: bytes, tmp: Path, extra=()):
    f = tmp / "fuzz.json"
    f.write_bytes(data)
    argv = ["verify", str(f), "--max-seconds", BUDGET, *extra]
    status, out, err = run_in_process(argv)
    check_outcome(argv, status, out, err, allowed=(0, 1, 2))
    if status == 1:  # not verified: the reason on stdout, nothing on stderr
        assert err == "" and out.strip()


@pytest.fixture(scope="module")
def base_certificate(tmp_path_factory):
    return _valid_certificate(tmp_path_factory.mktemp("cert"))


@pytest.mark.parametrize("examples", EXAMPLES)
def test_verify_fuzz(examples, base_certificate, tmp_path):
    @_settings(examples)
    @given(data=malformed_files(base_certificate), json_flag=st.booleans())
    def inner(data, json_flag):
        _verify_case(data, tmp_path, ["--json"] if json_flag else [])

    inner()


# ---------------------------------------------------------------------------
# the inputs that ended in internal errors (issue "Verify means verified"), enumerated
# ---------------------------------------------------------------------------

#: extreme noise multipliers: beyond the float range, below it, and long digit strings
EXTREME = ["1e308", "1e-308", "1e400", "1e-400", "1e99999", "1e-99999", "1" * 400, "1" * 5000, "9" * 1200]
EXTREME_TEMPLATES = [
    "rdp --sigma {} --alpha 2",
    "epsilon --sampling poisson --q 0.01 --sigma {} --steps 10 --delta 1e-5",
    "epsilon --sampling fswor --batch-size 10 --dataset-size 1000 --sigma {} --steps 10 --delta 1e-5",
    "delta --sigma {} --steps 10 --epsilon 1",
    "dpsgd --sigma {} --epochs 1 --delta 1e-5",
    "epsilon --method pld --sigma {} --steps 10 --delta 1e-5",
    "epsilon --method pld --sampling poisson --q 0.01 --sigma {} --steps 10 --delta 1e-5",
    "calibrate --steps 10 --epsilon {} --delta 1e-5",
    "routes --epsilon 1 --r 0.01 --k 1 --sigma {}",
    "routes --epsilon {} --r 0.01 --k 1 --sigma 1",
    "routes --epsilon 1 --r {} --k 1 --sigma 1",
    "routes --epsilon 1 --r 0.01 --k {} --sigma 1",
    "constant --c1 1 --c2 {}",
]
EXTREME_CASES = [t.format(v) for t in EXTREME_TEMPLATES for v in EXTREME] + [
    "routes --epsilon 1e300 --r 1 --k 1 --sigma 1",
    "routes --epsilon 1 --r 1e-300 --k 1 --sigma 1",
    "routes --epsilon 1 --r 0.5 --k 1 --sigma 1e-300",
    "conjecture --trials 1 --jobs 1e30",
    "conjecture --trials 1 --jobs " + "9" * 5000,
    "constant --c1 1 --c2 1 --jobs 2",
    "constant --c1 100 --c2 1",
    "constant --c1 1 --c2 1e5",
    "constant --c1 1 --c2 1e8",
    "epsilon --method pld --sigma 1 --steps 1e18 --delta 1e-5",
    "epsilon --method pld --sigma 1 --steps 10 --delta 1e-5 --width 1e-300",
    "epsilon --sigma " + "x" * 5000 + " --steps 10 --delta 1e-5",
]


@pytest.mark.parametrize("line", EXTREME_CASES, ids=[c[:60] for c in EXTREME_CASES])
def test_extreme_inputs_answer_or_refuse(line, tmp_path):
    argv = line.split()
    status, out, err = run_cli(argv, tmp_path)
    check_outcome(argv, status, out, err)
    # a refusal quotes at most 80 characters of the input
    assert len(err) < 400, err[:500]


# ---------------------------------------------------------------------------
# output paths: checked before any work, written atomically to a regular file
# ---------------------------------------------------------------------------

#: commands that write FILE with --out (the work they would do is long: a refusal must come first)
OUT_COMMANDS = [
    ["certify", "--sigma", "2", "--steps", "10", "--delta", "1e-5", "--max-seconds", "30"],
    ["conjecture", "--trials", "2000", "--max-seconds", "30"],
    ["constant", "--table", "--max-seconds", "30"],
]


def _bad_paths(tmp: Path) -> dict:
    """Paths that must be refused: a directory, a FIFO (a non-regular file, like a device), a
    symlink to a FIFO, a path under a regular file, a missing directory, a too-long name."""
    import os

    fifo = tmp / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    link = tmp / "link-to-fifo"
    if not link.is_symlink():
        link.symlink_to(fifo)
    plain = tmp / "plain.txt"
    plain.write_text("x")
    return {
        "directory": str(tmp),
        "root": "/",
        "fifo": str(fifo),
        "symlink to a fifo": str(link),
        "under a file": str(plain / "x.json"),
        "missing directory": str(tmp / "missing" / "x.json"),
        "too long": str(tmp / ("x" * 300)),
        "empty": "",
    }


@pytest.mark.parametrize("argv", OUT_COMMANDS, ids=[a[0] for a in OUT_COMMANDS])
def test_out_refused_before_work(argv, tmp_path):
    import time

    for what, path in _bad_paths(tmp_path).items():
        t0 = time.monotonic()
        status, out, err = run_in_process([*argv, "--out", path])
        assert_one_line_error(status, out, err, "--out")
        assert time.monotonic() - t0 < 5, (what, "refused only after the work")
    assert (tmp_path / "fifo").exists() and not (tmp_path / "fifo").is_file()  # never replaced


def test_reproduce_out_dir_refused_before_work(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    for path in (str(plain), str(plain / "sub"), "/proc/version"):
        status, out, err = run_in_process(["reproduce", "birrell2024-fig7", "--out", path])
        assert_one_line_error(status, out, err, "--out")
    assert plain.read_text() == "x"


def test_certify_writes_through_a_symlink(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    status, _out, err = run_in_process(
        ["certify", "--sigma", "2", "--steps", "10", "--delta", "1e-5", "--out", str(link)]
    )
    assert status == 0, err
    assert link.is_symlink() and json.loads(target.read_text())["format"] == "rigorous-rdp-certificate"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


# ---------------------------------------------------------------------------
# contradictory options
# ---------------------------------------------------------------------------

CONTRADICTIONS = [
    (["conjecture", "--trials", "1", "--jobs", "2", "--dask", "local:2"], "--jobs"),
    (["reproduce", "birrell2024-fig7", "--jobs", "2", "--dask", "local:2"], "--jobs"),
    (["constant", "--table", "--jobs", "2", "--dask", "local:2"], "--jobs"),
    (["constant", "--table", "--c1", "1"], "--table"),
    (["constant", "--table", "--sigma-max", "10"], "--table"),
    (["constant", "--c1", "1", "--c2", "1", "--out", "x.json"], "--out"),
    (["conjecture", "--prove", "--rows", "3", "--dask", "local:2"], "--trials and --dask"),
    (["rdp", "--sigma", "1", "--alpha", "2", "--tau", "3"], "--tau"),
    (["epsilon", "--sigma", "1", "--steps", "1", "--delta", "1e-5", "--method", "rdp", "--width", "0.1"], "--width"),
]


@pytest.mark.parametrize("argv,option", CONTRADICTIONS, ids=[" ".join(a)[:50] for a, _ in CONTRADICTIONS])
def test_contradictory_options_refused(argv, option):
    status, out, err = run_in_process(argv)
    assert_one_line_error(status, out, err, option)
