"""Hostile input for ``conjecture --prove --order-range`` and forged ``holds-boxes-order-interval``
certificates: numbers whose exact value is astronomically large, a non-object summary, stated RHS
values that enclose the true one only loosely, ``--order`` given together with ``--order-range``.
The RHS is compared with closed forms and mpmath values written from the definition."""

import json
from fractions import Fraction as F

import mpmath
import pytest

from rigorous_rdp.certificate import verify_certificate
from rigorous_rdp.research import conjecture_lambda as cl
from rigorous_rdp.research.conjecture_certificate import _hash, make_order_interval_certificate


@pytest.fixture(scope="module")
def cert():
    res = cl.prove_lambda(cl.LambdaCase(2, 1, F(2), F(17, 8)))
    assert res.complete
    return make_order_interval_certificate(cl.lambda_proof_to_json(res))


def _forged(cert, edit):
    c = json.loads(json.dumps(cert))
    edit(c)
    c["sha256"] = _hash(c)
    return c


def _rhs(lam, sigma=1):
    """E[(1 - r + r exp(Z/sigma - 1/(2 sigma^2)))^lam], Z ~ N(0, 1), r = 1/2, by mpmath quadrature."""
    s, r = mpmath.mpf(sigma), mpmath.mpf(1) / 2

    def f(z):
        return (1 - r + r * mpmath.exp(z / s - 1 / (2 * s * s))) ** lam * mpmath.npdf(z)

    return mpmath.quad(f, [-mpmath.inf, -10, 0, 10, 40, mpmath.inf])


def test_stated_rhs_matches_independent_values(cert):
    mpmath.mp.dps = 30
    try:
        # lambda = 2: E[X^2] = exp(1/sigma^2) for X = exp(Z/sigma - 1/(2 sigma^2)), so RHS = 3/4 + e/4
        closed = mpmath.mpf(3) / 4 + mpmath.e / 4
        quad = _rhs(mpmath.mpf(17) / 8)
        for key, value in (("lambda_lo", closed), ("lambda_hi", quad)):
            lo, hi = (mpmath.mpf(x) for x in cert["rhs_g"][key])
            assert lo <= value <= hi and hi - lo < value * mpmath.mpf("1e-13"), (key, value)
        assert abs(mpmath.mpf(cert["summary"]["rhs_g_range"]["upper"]) - quad) < quad * mpmath.mpf("1e-13")
    finally:
        mpmath.mp.dps = 15


@pytest.mark.parametrize("where", ["upper", "side", "lambda", "sigma", "rhs"])
@pytest.mark.parametrize("text", ["1e999999999", "-1e999999999", "1e-999999999", "1." + "2" * 1000])
def test_numbers_too_large_to_build_are_refused(cert, where, text):
    # Fraction("1e999999999") would build 10**999999999: verify must refuse it from its text
    def edit(c):
        if where == "upper":
            i = next(i for i, b in enumerate(c["boxes"]) if b[4] is not None)
            c["boxes"][i][4][1] = text
        elif where == "side":
            c["boxes"][0][0][1][1] = text
        elif where == "lambda":
            c["case"]["lambda"][1] = text
        elif where == "sigma":
            c["case"]["sigma"] = text
        else:
            c["rhs_g"]["lambda_hi"][1] = text

    res = verify_certificate(_forged(cert, edit))
    assert not res.ok
    assert "is longer than 1000 characters or has a decimal exponent beyond +-100000" in res.reason, res.reason
    assert len(res.reason.splitlines()) == 1


def test_summary_must_be_an_object(cert):
    res = verify_certificate(_forged(cert, lambda c: c.__setitem__("summary", [])))
    assert not res.ok and res.reason == "malformed certificate: 'summary' must be an object"


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: c["summary"]["rhs_g_range"].__setitem__("upper", "100"),
        lambda c: c["summary"]["rhs_g_range"].__setitem__("lower", "0"),
        lambda c: c["rhs_g"].__setitem__("lambda_lo", ["0", "1000000"]),
        lambda c: c["rhs_g"].__setitem__("lambda_hi", ["1", "2"]),
    ],
)
def test_loose_stated_rhs_is_refused(cert, edit):
    # a range that still contains the true RHS but is not it (the true one has 15 digits)
    res = verify_certificate(_forged(cert, edit))
    assert not res.ok
    assert "rhs_g_range" in res.reason or "does not enclose the recomputed" in res.reason, res.reason


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--order-range", "2", "4", "--order", "3"], "--order and --order-range exclude each other"),
        (["--order-range", "2", "4", "--order", "2"], "--order and --order-range exclude each other"),
        (["--order-range", "nan", "4"], "--order-range must be two numbers with 2 <= LOW < HIGH <= 16"),
        (["--order-range", "2", "1e400"], "--order-range must be two numbers with 2 <= LOW < HIGH <= 16"),
        (["--order-range", "2", "1e999999999"], "--order-range must be two numbers with 2 <= LOW < HIGH <= 16"),
        (["--order-range", "two", "4"], "--order-range must be two numbers with 2 <= LOW < HIGH <= 16"),
        (["--order-range", "4", "2"], "--order-range must be two numbers with 2 <= LOW < HIGH <= 16"),
        (["--order-range", "2", "4", "--sigma", "nan"], "--sigma must be in [1, 64] with --order-range"),
        (["--order-range", "2", "4", "--sigma", "1/2"], "--sigma must be in [1, 64] with --order-range"),
    ],
)
def test_cli_hostile_order_range(tmp_path, capsys, extra, words):
    from rigorous_rdp.cli import main

    out = tmp_path / "c.json"
    assert main(["conjecture", "--prove", "--rows", "2", *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()
