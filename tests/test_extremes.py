"""Extreme and hostile inputs: every command answers or refuses quickly, never a traceback.

One test per command of the audit that found tracebacks and hangs (each must
answer or refuse within 10 s; the commands run in-process, with a 30 s budget
as a safety net so that a regression fails instead of hanging), the fast paths
of :mod:`rigorous_rdp.subsampling.poisson_gaussian_series` against mpmath at
high precision, and the time budget of :mod:`rigorous_rdp.budget`.
"""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from _cli import assert_one_line_error, cmd, run_cli
from _refcheck import endpoints
from flint import arb

from rigorous_rdp import budget
from rigorous_rdp.arith import refine, workprec
from rigorous_rdp.cli._common import budget_message
from rigorous_rdp.errors import BudgetExceeded
from rigorous_rdp.subsampling.poisson_gaussian import PoissonGaussianCurve
from rigorous_rdp.subsampling.poisson_gaussian_series import fast_rdp, gaussian_exp_moment, log_a_sandwich, log_a_series

PG = cmd("--sampling poisson --q 0.01 --sigma 1.1")


def run(argv, limit=10.0):
    """Run the CLI in-process; return (status, stdout, stderr) and check the time limit (CPU seconds
    of this process, so that a loaded machine does not fail the check)."""
    t0 = time.process_time()
    status, out, err = run_cli(list(argv) + ([] if "--max-seconds" in argv else ["--max-seconds", "30"]))
    elapsed = time.process_time() - t0
    assert elapsed < limit, f"{argv} took {elapsed:.1f} s of CPU"
    assert "Traceback" not in err
    return status, out, err


def refused(argv, option, *fragments):
    status, out, err = run(argv)
    assert_one_line_error(status, out, err, f"{option} ")
    for f in fragments:
        assert f in err, err
    return err


def _interval(d):
    """The exact endpoints of a JSON interval, as mpmath numbers at 40 digits."""
    with mpmath.workdps(40):
        return mpmath.mpf(d["lower"]), mpmath.mpf(d["upper"])


def answered(argv):
    status, out, err = run([*list(argv), "--json"])
    assert status == 0, err
    return json.loads(out)


# ---------------------------------------------------------------------------
# the audit's tracebacks: refused with one line naming the option and its range
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, option, fragment",
    [
        (cmd("rdp --sampling poisson --q 1e999999 --sigma 1.1 --alpha 2"), "--q", "[0, 1]"),
        (["rdp", *PG, "--alpha", "1e999999"], "--alpha", "(1, 1e100]"),
        (["rdp", "--sigma", "1.1", "--alpha", "1E309"], "--alpha", "(1, 1e100]"),
        (["epsilon", *PG, "--steps", "100", "--delta", "1e999999"], "--delta", "in (0, 1)"),
        (["dpsgd", "--epochs", "1", "--delta", "1e999999"], "--delta", "in (0, 1)"),
        (["epsilon", *PG, "--steps", "1e999999", "--delta", "1e-5"], "--steps", "[1, 1e18]"),
        (["delta", *PG, "--steps", "1e999999", "--epsilon", "1"], "--steps", "[1, 1e18]"),
        (
            cmd("epsilon --sampling poisson --q 0.01 --sigma 1e999999 --steps 100 --delta 1e-5"),
            "--sigma",
            "in (0, 1e100000)",
        ),
        (
            cmd("epsilon --sampling poisson --q 0.01 --sigma 1e-999999 --steps 100 --delta 1e-5"),
            "--sigma",
            "at least 1e-100000",
        ),
        (["rdp", *PG, "--alpha", "2", "--steps", "1e999999"], "--steps", "[1, 1e18]"),
        (
            cmd("rdp --sampling fswor --batch-size 1 --dataset-size 10 --sigma 1 --alpha 2 --taylor-order 1e9"),
            "--taylor-order",
            "[3, 1000]",
        ),
        # the audit's hangs from exact conversion of 10**(10**11)
        (cmd("rdp --sampling poisson --q 1e99999999999 --sigma 1.1 --alpha 2"), "--q", "[0, 1]"),
        (cmd("rdp --sampling poisson --q 0.01 --sigma 1e-99999999999 --alpha 2"), "--sigma", "at least 1e-100000"),
        # below the documented floor of q
        (cmd("rdp --sampling poisson --q 1e-999999 --sigma 1.1 --alpha 2.5"), "--q", "0 or at least 1e-100000"),
        # fixed-size sampling: sigma in [1e-100, 1e100]; Laplace scale in (0, 1e1000], at least 1e-1000
        (
            cmd("rdp --sampling fswor --batch-size 1 --dataset-size 10 --sigma 1e-400 --alpha 2"),
            "--sigma",
            "[1e-100, 1e100] for a subsampled Gaussian",
        ),
        (cmd("epsilon --noise laplace --scale 1e-100000 --steps 10 --delta 1e-5"), "--scale", "at least 1e-1000"),
        # integer orders beyond the binomial sum where the sandwich is wide
        (cmd("rdp --sampling poisson --q 0.1 --sigma 1e6 --alpha 1e12"), "--alpha", "<= 10000000000"),
    ],
)
def test_refused_in_one_line(argv, option, fragment):
    refused(argv, option, fragment)


def test_time_limit_refusal_names_the_option():
    err = refused(["rdp", *PG, "--alpha", "2", "--max-seconds", "0"], "--max-seconds", "(0, 86400]")
    assert "0" in err


# ---------------------------------------------------------------------------
# the audit's tracebacks and hangs with legal input: certified answers
# ---------------------------------------------------------------------------


def _eps_tiny_sigma(argv):
    res = answered(argv)
    up = Decimal(res["epsilon"]["upper"])
    lo = Decimal(res["epsilon"]["lower"])
    # sigma = 1e-400: the RDP at order a is a / (2 sigma^2) + O(log q) = a * 5e799; the
    # accountant uses an order near 1.1 (the smallest grid order), 100 steps
    assert lo <= up and Decimal("5e801") < up < Decimal("6e801")
    return res


def test_epsilon_tiny_sigma_1e_400():
    _eps_tiny_sigma(cmd("epsilon --sampling poisson --q 0.01 --sigma 1e-400 --steps 100 --delta 1e-5"))


def test_delta_tiny_sigma_1e_400():
    res = answered(cmd("delta --sampling poisson --q 0.01 --sigma 1e-400 --steps 100 --epsilon 1"))
    # almost no noise: delta at epsilon = 1 is close to P(some step samples the record) = 1 - 0.99^100
    # or more; any certified upper bound is at least that and at most 1 (up to outward rounding)
    up = Decimal(res["delta"]["upper"])
    assert Decimal("0.63") < up <= Decimal("1.000001")


def test_certify_tiny_sigma_1e_400(tmp_path):
    out = tmp_path / "c.json"
    status, _, err = run(
        [*cmd("certify --sampling poisson --q 0.01 --sigma 1e-400 --steps 100 --delta 1e-5 --out"), str(out)]
    )
    assert status == 0, err
    cert = json.loads(out.read_text())
    assert Decimal("5e801") < Decimal(cert["epsilon"]["upper"]) < Decimal("6e801")


def _leading_rdp(alpha, q_exp, sigma):
    """C(alpha, 2) q^2 (e^(1/sigma^2) - 1) / (alpha - 1): the RDP up to a relative O(q)."""
    with mpmath.workdps(40):
        a = mpmath.mpf(alpha)
        s = mpmath.mpf(sigma)
        q = mpmath.mpf(10) ** (-q_exp)
        return a * (a - 1) / 2 * q**2 * mpmath.expm1(1 / s**2) / (a - 1)


@pytest.mark.parametrize("q_exp", [200, 400, 1000, 5000, 100000])
def test_rdp_tiny_q_fractional_order(q_exp):
    res = answered(["rdp", "--sampling", "poisson", "--q", f"1e-{q_exp}", "--sigma", "1.1", "--alpha", "2.5"])
    lo, up = _interval(res["results"][0]["rdp"])
    lead = _leading_rdp("2.5", q_exp, "1.1")
    with mpmath.workdps(40):
        # the next term is relatively 10^-q_exp: far below the 1e-10 width asked for
        assert lo <= lead * (1 + mpmath.mpf(10) ** -150) and up >= lead * (1 - mpmath.mpf(10) ** -150)
        assert (up - lo) / lead < mpmath.mpf("1e-10")


def test_rdp_tiny_q_within_two_seconds_api():
    curve = PoissonGaussianCurve(Fraction(1, 10**100000), Fraction(11, 10))
    t0 = time.monotonic()
    cert = refine(lambda prec: curve.certified(Fraction(5, 2)), 10)
    assert time.monotonic() - t0 < 2.0
    lead = _leading_rdp("2.5", 100000, "1.1")
    lo, up = _interval(cert.to_json(30))
    with mpmath.workdps(40):
        assert lo <= lead * (1 + mpmath.mpf(10) ** -150) and up >= lead * (1 - mpmath.mpf(10) ** -150)


def test_rdp_tiny_sigma_fractional_order():
    res = answered(cmd("rdp --sampling poisson --q 0.1 --sigma 1e-9 --alpha 2.5"))
    lo, up = _interval(res["results"][0]["rdp"])
    with mpmath.workdps(40):
        # alpha/(alpha-1) (log q + (alpha-1)/(2 sigma^2)) up to a relative e^-(7.5e17)
        ref = mpmath.mpf(5) / 3 * (mpmath.log(mpmath.mpf("0.1")) + mpmath.mpf("1.5") / (2 * mpmath.mpf("1e-18")))
        assert lo <= ref * (1 + mpmath.mpf("1e-30")) and up >= ref * (1 - mpmath.mpf("1e-30"))
        assert (up - lo) / ref < mpmath.mpf("1e-10")


def test_rdp_huge_integer_order():
    res = answered(cmd("rdp --sampling poisson --q 0.1 --sigma 1 --alpha 1e12"))
    lo, up = _interval(res["results"][0]["rdp"])
    with mpmath.workdps(40):
        a = mpmath.mpf(10) ** 12
        ref = a / (a - 1) * (mpmath.log(mpmath.mpf("0.1")) + (a - 1) / 2)  # up to a relative e^-(5e11)
        assert lo <= ref <= up
        assert (up - lo) / ref < mpmath.mpf("1e-10")


@pytest.mark.parametrize(
    "argv",
    [
        cmd("rdp --noise randomized-response --p 0.5 --alpha 2"),
        cmd("rdp --noise randomized-response --p 0.5 --sampling poisson --q 0.5 --alpha 2.5"),
        cmd("rdp --noise randomized-response --p 1/2 --sampling poisson --q 0.5 --alpha 2 --bound general"),
    ],
)
def test_randomized_response_half_is_exactly_zero(argv):
    res = answered(argv)
    assert res["results"][0]["rdp"] == {"lower": "0", "upper": "0"}


def test_epsilon_randomized_response_half():
    res = answered(cmd("epsilon --noise randomized-response --p 0.5 --steps 1000 --delta 1e-5"))
    assert Decimal(res["epsilon"]["upper"]) == 0


# ---------------------------------------------------------------------------
# verify on hostile files
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["[" * 100000, '{"a":' * 100000, "[" * 65 + "]" * 65])
def test_verify_deep_nesting(tmp_path, text):
    f = tmp_path / "deep.json"
    f.write_text(text)
    status, out, err = run(["verify", str(f)])
    assert status == 1 and err == "" and "nested deeper than 64" in out


def test_verify_dps_range(tmp_path):
    f = tmp_path / "c.json"
    f.write_text("{}")
    refused(["verify", str(f), "--dps", "1000"], "--dps", "[30, 150]")


def test_verify_deep_nesting_api(tmp_path):
    from rigorous_rdp.certificate import verify_file

    f = tmp_path / "deep.json"
    f.write_text("[" * 100000)
    res = verify_file(str(f))
    assert not res.ok and "malformed JSON" in res.reason


# ---------------------------------------------------------------------------
# the time budget
# ---------------------------------------------------------------------------


def test_budget_stops_refine_with_a_named_limit():
    calls = []

    def slow(prec):
        calls.append(prec)
        time.sleep(0.05)
        return arb(1) / 3 + arb(0, 1)  # never narrow enough

    # in a worker thread there is no timer signal: the check in refine stops the loop
    errors = []

    def worker():
        try:
            with budget.time_budget(0.3):
                refine(slow, 10, max_prec=1 << 40, what="slow thing")
        except BudgetExceeded as exc:
            errors.append(exc)

    t = threading.Thread(target=worker)
    t.start()
    t.join(10)
    assert len(errors) == 1 and calls
    assert "time budget of 0.3 s exceeded while computing slow thing" in str(errors[0])
    assert errors[0].seconds == 0.3 and errors[0].where == "slow thing" and not budget.expired()
    # the command line names its option (the API message has no command-line words)
    assert "--max-seconds S" in budget_message(errors[0]) and "--" not in str(errors[0])


def test_budget_interrupts_code_without_checks():
    t0 = time.monotonic()
    with pytest.raises(BudgetExceeded), budget.time_budget(0.2):
        while True:
            pass
    assert time.monotonic() - t0 < 2.0


def test_budget_nests_and_restores():
    assert budget.remaining() == float("inf")
    with budget.time_budget(100):
        outer = budget.remaining()
        with budget.time_budget(1000):  # cannot extend the outer deadline
            assert budget.remaining() <= outer
        with budget.time_budget(1):
            assert budget.remaining() <= 1
        assert 99 < budget.remaining() <= 100
    assert budget.remaining() == float("inf")


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e999", "abc", "", "86401"])
def test_budget_seconds_range(value):
    with pytest.raises(ValueError, match=r"max-seconds must be a number of seconds in \(0, 86400\]"):
        budget.parse_seconds(value)


def test_cli_budget_exceeded_is_one_line_exit_2():
    # fractional orders with moderate q need the certified integration (about 4 s of CPU at
    # 500 digits); a 0.05 s budget stops it with a message saying how to raise the limit
    status, out, err = run(
        cmd("rdp --sampling poisson --q 0.3 --sigma 0.7 --alpha 7.5 8.5 9.5 --digits 500 --max-seconds 0.05")
    )
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "time budget of 0.05 s exceeded" in err and "--max-seconds" in err


# ---------------------------------------------------------------------------
# the fast paths against mpmath at high precision
# ---------------------------------------------------------------------------


def _mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def _log_a_mp(alpha: Fraction, q: Fraction, sigma: Fraction, dps: int = 80):
    """log A_alpha by mpmath quadrature of E[(1 + q (e^w - 1))^alpha] (plain high precision)."""
    with mpmath.workdps(dps):
        a, qq, s = _mp(alpha), _mp(q), _mp(sigma)

        def g(z):
            x = qq * mpmath.expm1((2 * z - 1) / (2 * s**2))
            return mpmath.npdf(z, 0, s) * ((1 + x) ** a - 1 - a * x)

        pts = sorted({-40 * s, -10 * s, mpmath.mpf(0), mpmath.mpf(1) / 2, a, a + 10 * s, a + 40 * s})
        i = mpmath.quad(g, [-mpmath.inf, *pts, mpmath.inf])
        return mpmath.log1p(i)


def _log_a_int_mp(alpha: int, q: Fraction, sigma: Fraction, dps: int = 80):
    with mpmath.workdps(dps):
        qq, s = _mp(q), _mp(sigma)
        return mpmath.log(
            mpmath.fsum(
                mpmath.binomial(alpha, k) * qq**k * (1 - qq) ** (alpha - k) * mpmath.exp(k * (k - 1) / (2 * s**2))
                for k in range(alpha + 1)
            )
        )


_REL_1E40 = mpmath.mpf("1e-40")


def _contains(ball: arb, ref, rel=_REL_1E40, dps: int = 90) -> bool:
    lo, up = endpoints(ball)
    with mpmath.workdps(dps):
        return _mp(lo) <= ref + abs(ref) * rel and _mp(up) >= ref - abs(ref) * rel


@pytest.mark.parametrize(
    "alpha, q, sigma",
    [
        (Fraction(5, 2), Fraction(1, 1000), Fraction(11, 10)),
        (Fraction(5, 2), Fraction(1, 10**8), Fraction(1, 2)),
        (Fraction(3, 2), Fraction(1, 10**12), Fraction(3)),
        (Fraction(101, 10), Fraction(1, 10**6), Fraction(4)),
        (Fraction(5, 4), Fraction(1, 100), Fraction(1000)),
        (Fraction(37, 2), Fraction(1, 10**5), Fraction(2)),
    ],
    ids=["a2.5-q1e-3", "a2.5-q1e-8-s0.5", "a1.5-q1e-12-s3", "a10.1-q1e-6-s4", "a1.25-q1e-2-s1000", "a18.5-q1e-5"],
)
def test_series_encloses_mpmath(alpha, q, sigma):
    ref = _log_a_mp(alpha, q, sigma)
    K = max(4, 2 * ((int(alpha) + 2) // 2))
    with workprec(256):
        for k in (K, K + 2, K + 6):
            ball = log_a_series(arb(alpha.numerator) / alpha.denominator, arb(q.numerator) / q.denominator, sigma, k)
            assert _contains(ball, ref), (k, ball, ref)
        fast = fast_rdp(alpha, q, sigma, 128)
    if fast is not None:  # when taken, the fast path is accurate to the working precision
        with mpmath.workdps(90):
            eps_ref = ref / (_mp(alpha) - 1)
        assert _contains(fast, eps_ref)
        assert fast.rel_accuracy_bits() >= 100


def test_series_path_is_taken_for_small_q():
    with workprec(128):
        assert fast_rdp(Fraction(5, 2), Fraction(1, 10**14), Fraction(11, 10), 128) is not None
        # above SERIES_MAX_Q = 1e-12 the general integration is kept (it is fast there)
        assert fast_rdp(Fraction(5, 2), Fraction(1, 10**8), Fraction(11, 10), 128) is None
        # moderate q at a moderate sigma: neither fast path is accurate; the integration is used
        assert fast_rdp(Fraction(5, 2), Fraction(1, 10), Fraction(11, 10), 128) is None


@pytest.mark.parametrize(
    "alpha, q, sigma",
    [
        (Fraction(5, 2), Fraction(1, 10), Fraction(11, 10)),
        (Fraction(7), Fraction(1, 3), Fraction(1, 2)),
        (Fraction(40), Fraction(1, 100), Fraction(2)),
        (Fraction(3, 2), Fraction(9, 10), Fraction(1, 5)),
    ],
)
def test_sandwich_encloses_mpmath(alpha, q, sigma):
    ref = _log_a_int_mp(int(alpha), q, sigma) if alpha.denominator == 1 else _log_a_mp(alpha, q, sigma)
    with workprec(128):
        ball = log_a_sandwich(
            arb(alpha.numerator) / alpha.denominator,
            arb(q.numerator) / q.denominator,
            arb(sigma.numerator) / sigma.denominator,
        )
    assert _contains(ball, ref, rel=mpmath.mpf(0))


def test_sandwich_is_tight_for_tiny_sigma():
    # q = 1/2, sigma = 1/20, alpha = 3: the exact binomial sum against the sandwich
    ref = _log_a_int_mp(3, Fraction(1, 2), Fraction(1, 20), dps=400)
    with workprec(1024):
        ball = log_a_sandwich(arb(3), arb(1) / 2, arb(1) / 20)
    assert _contains(ball, ref, rel=mpmath.mpf(10) ** -390, dps=400)
    assert ball.rel_accuracy_bits() > 500  # width ~ 3 e^-400 relative to about 1200


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 8, 12])
@pytest.mark.parametrize("sigma", [Fraction(1, 3), Fraction(11, 10), Fraction(50), Fraction(10**6), Fraction(10**40)])
def test_moments_against_mpmath(k, sigma):
    # direct alternating sum at a precision that covers its cancellation (k log10(sigma^2) digits)
    dps = 60 + int(2 * k * max(0, mpmath.log10(_mp(sigma))))
    with mpmath.workdps(dps):
        s2 = 1 / _mp(sigma) ** 2
        ref = mpmath.fsum(
            mpmath.binomial(k, j) * (-1) ** (k - j) * mpmath.exp(j * (j - 1) * s2 / 2) for j in range(k + 1)
        )
        with workprec(200):
            m = gaussian_exp_moment(k, sigma)
        lo, up = endpoints(m)
        assert _mp(lo) <= ref * (1 + mpmath.mpf(10) ** -45) and _mp(up) >= ref * (1 - mpmath.mpf(10) ** -45)
    assert m.rel_accuracy_bits() > 150


def test_moment_closed_forms():
    # m_2 = e^(1/sigma^2) - 1 and m_3 = e^(3/sigma^2) - 3 e^(1/sigma^2) + 2 at sigma = 1
    with workprec(128):
        e = arb(1).exp()
        assert gaussian_exp_moment(2, Fraction(1)).overlaps(e - 1)
        assert gaussian_exp_moment(3, Fraction(1)).overlaps(e**3 - 3 * e + 2)
        assert gaussian_exp_moment(0, Fraction(1)) == 1 and gaussian_exp_moment(1, Fraction(1)) == 0


def test_series_coefficients_nonnegative_and_vanishing():
    # S(k, n) = sum_j C(k, j) (-1)^(k-j) (j(j-1))^n: 0 for 2n < k, in [0, 2^k (k(k-1))^n] otherwise
    # (the tail bound of the positive moment series relies on both)
    from math import comb

    for k in range(2, 13):
        for n in range(0, 25):
            s = sum(comb(k, j) * (-1) ** (k - j) * (j * (j - 1)) ** n for j in range(k + 1))
            if 2 * n < k:
                assert s == 0
            else:
                assert 0 <= s <= 2**k * (k * (k - 1)) ** n


def test_budget_timer_does_not_break_imports():
    # an import cut short by the timer would leave a half-initialised module; the timer
    # waits for the import to finish and stops the computation right after it
    import importlib
    import sys

    name = "rigorous_rdp._slow_import_probe"
    src = "import time\nt0 = time.monotonic()\nwhile time.monotonic() - t0 < 0.6:\n    pass\nDONE = True\n"
    import types

    class Finder:
        def find_spec(self, fullname, path=None, target=None):
            if fullname != name:
                return None
            return importlib.util.spec_from_loader(fullname, Loader())

    class Loader:
        def create_module(self, spec):
            return None

        def exec_module(self, module):
            exec(compile(src, "<probe>", "exec"), module.__dict__)

    sys.meta_path.insert(0, Finder())
    try:
        with pytest.raises(BudgetExceeded), budget.time_budget(0.1):
            mod = importlib.import_module(name)
            assert isinstance(mod, types.ModuleType) and mod.DONE
            while True:
                pass
        assert sys.modules[name].DONE
    finally:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, Finder)]
        sys.modules.pop(name, None)
