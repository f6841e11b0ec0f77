"""Conjecture 1 at every real order of an interval (rigorous_rdp.research.conjecture_lambda), its
``holds-boxes-order-interval`` certificate and the independent re-proof of ``verify``
(rigorous_rdp.reference.conjecture_lambda_boxes), checked against mpmath values of the definitions."""

import itertools
import json
import random
from fractions import Fraction as F

import mpmath
import pytest
from flint import arb

from rigorous_rdp.arith import to_arb, workprec
from rigorous_rdp.certificate import verify_certificate
from rigorous_rdp.reference import conjecture_lambda_boxes as ref
from rigorous_rdp.research import conjecture_lambda as cl
from rigorous_rdp.research.conjecture_certificate import _hash, make_order_interval_certificate
from rigorous_rdp.research.conjecture_proof import ProofCase, g_point, grad_point


@pytest.fixture(autouse=True)
def _dps():
    old = mpmath.mp.dps
    mpmath.mp.dps = 30
    yield
    mpmath.mp.dps = old


def _mp(x):
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _densities(n, m, theta, sigma=1):
    """p and q (mpmath callables), the m-subsets of the rows enumerated; theta = (x.., u, u')."""
    rows_p = [*theta[: n - 1], theta[n - 1]]
    rows_q = [*theta[: n - 1], theta[n]]
    subs = list(itertools.combinations(range(n), m))
    s = _mp(sigma)

    def p(y):
        return sum(mpmath.npdf(y, sum(rows_p[i] for i in S), s) for S in subs) / len(subs)

    def q(y):
        return sum(mpmath.npdf(y, sum(rows_q[i] for i in S), s) for S in subs) / len(subs)

    return p, q


def _mp_g(n, m, lam, theta, sigma=1, lo=-mpmath.inf, hi=mpmath.inf):
    p, q = _densities(n, m, [_mp(x) for x in theta], sigma)
    L = _mp(lam)
    pts = [lo, -4, -1, 0, 1, 2, 4, 7, hi] if lo == -mpmath.inf else [lo, hi]
    return mpmath.quad(lambda y: p(y) ** L * q(y) ** (1 - L), pts)


def _mp_rhs(lam, r, sigma=1):
    t, L, rr = 1 / _mp(sigma), _mp(lam), _mp(r)
    return mpmath.quad(
        lambda z: (1 - rr + rr * mpmath.exp(t * z - t * t / 2)) ** L * mpmath.npdf(z), [-mpmath.inf, 0, 3, mpmath.inf]
    )


def _contains(ball, x, tol=1e-20):
    tol = mpmath.mpf(tol)
    lo, hi = mpmath.mpf(ball.lower().str(40, radius=False)), mpmath.mpf(ball.upper().str(40, radius=False))
    return lo - tol <= x <= hi + tol


CASE = cl.LambdaCase(2, 1, F(2), F(4))
REF = ref.OrderCase(2, 1, F(2), F(4), F(1))
POINTS = [[F(1, 3), F(3, 4), F(1, 8)], [F(0), F(1), F(1, 2)], [F(1, 2), F(1, 2), F(0)]]


@pytest.mark.parametrize("lam", [F(5, 2), F(37, 10)], ids=["2.5", "3.7"])
@pytest.mark.parametrize("point", POINTS, ids=["interior", "x0", "u_eq"])
def test_point_values_contain_mpmath(lam, point):
    want = _mp_g(2, 1, lam, point)
    for got in (cl.g_point_real(CASE, point, lam), ref.g_value(REF, point, lam)):
        assert _contains(got, want), (got, want)
        assert got.rad() < 1e-6


@pytest.mark.parametrize("lam", [F(5, 2), F(37, 10)], ids=["2.5", "3.7"])
def test_gradients_contain_mpmath_derivatives(lam):
    point = POINTS[0]
    for k in range(3):

        def g(h, k=k):
            th = [_mp(x) for x in point]
            th[k] += h
            p, q = _densities(2, 1, th)
            L = _mp(lam)
            return mpmath.quad(lambda y: p(y) ** L * q(y) ** (1 - L), [-mpmath.inf, -4, 0, 2, 7, mpmath.inf])

        h = mpmath.mpf(10) ** -8
        want = (g(h) - g(-h)) / (2 * h)  # central difference: error about 1e-16 at 30 digits
        for got in (cl.grad_point_real(CASE, point, lam)[k], ref.g_gradient(REF, point, lam)[k]):
            assert _contains(got, want, tol=mpmath.mpf(10) ** -12), (k, got, want)
            assert got.rad() < 1e-2


@pytest.mark.parametrize("lam", [F(5, 2), F(37, 10), F(2), F(4)], ids=["2.5", "3.7", "2", "4"])
def test_rhs_at_real_orders_contains_mpmath(lam):
    want = _mp_rhs(lam, F(1, 2))
    for got in (cl.rhs_real(CASE, lam), ref.rhs_real(F(1), F(1, 2), lam)):
        assert _contains(got, want), (got, want)
        assert got.rad() < 1e-12


def test_box_derivatives_contain_mpmath_values_inside_the_box():
    """Gradient, Hessian and d/dlambda of the gradient over a box of theta x lambda contain the
    mpmath values (central differences of quad, step 1e-6 at 20 digits: error about 1e-11) at a
    random point of the box."""
    mpmath.mp.dps = 20
    box = [(F(1, 4), F(5, 16)), (F(5, 8), F(11, 16)), (F(0), F(1, 16)), (F(5, 2), F(21, 8))]
    rng = random.Random(5)
    encl = [cl.derivatives_box(CASE, box), ref.box_derivatives(REF, box)]
    th = [lo + (hi - lo) * F(rng.randint(0, 8), 8) for lo, hi in box[:3]]
    lam = box[3][0] + (box[3][1] - box[3][0]) * F(rng.randint(0, 8), 8)
    x0 = [*map(_mp, th), _mp(lam)]
    h = mpmath.mpf(10) ** -6

    def G(dx):
        a, b, c, L = (x0[i] + dx[i] for i in range(4))
        p, q = _densities(2, 1, [a, b, c])
        return mpmath.quad(lambda y: p(y) ** L * q(y) ** (1 - L), [-mpmath.inf, -4, 0, 2, 7, mpmath.inf])

    def e(*ks):
        v = [mpmath.mpf(0)] * 4
        for k, sgn in ks:
            v[k] += sgn * h
        return v

    def d2(j, k):
        return (G(e((j, 1), (k, 1))) - G(e((j, 1), (k, -1))) - G(e((j, -1), (k, 1))) + G(e((j, -1), (k, -1)))) / (
            4 * h * h
        )

    for k in range(3):
        gk = (G(e((k, 1))) - G(e((k, -1)))) / (2 * h)
        lk = d2(k, 3)
        for grad, _, dl in encl:
            assert _contains(grad[k], gk, 1e-8) and _contains(dl[k], lk, 1e-6), (k, grad[k], gk, dl[k], lk)
        for j in range(k, 3):
            hjk = d2(j, k)
            for _, H, _ in encl:
                assert _contains(H[j][k], hjk, 1e-6), (j, k, H[j][k], hjk)


def test_integer_order_agrees_with_the_integer_prover():
    point = POINTS[0]
    for lam in (2, 3):
        new = cl.g_point_real(CASE, point, F(lam))
        old = g_point(ProofCase(2, 1, lam, F(1)), point)
        assert new.overlaps(old) and abs(float(new.mid()) - float(old.mid())) < 1e-6
        gn = cl.grad_point_real(CASE, point, F(lam))
        go = grad_point(ProofCase(2, 1, lam, F(1)), point)
        gb, _, _ = cl.derivatives_box(CASE, [(x, x) for x in point] + [(F(lam), F(lam))])
        for a, b, c in zip(gn, go, gb, strict=True):
            assert a.overlaps(b) and c.overlaps(b)


def test_g2_ball_contains_the_function():
    rng = random.Random(1)
    for _ in range(30):
        lo = rng.uniform(-3, 3)
        hi = lo + rng.choice([1e-3, 0.1, 1.0])
        lam_lo = rng.uniform(2, 4)
        lam_hi = lam_lo + 0.25
        with workprec(80):
            ball = cl.g2_ball(arb(lo).union(arb(hi)), arb(lam_lo).union(arb(lam_hi)))
        for _ in range(5):
            l_, L = rng.uniform(lo, hi), rng.uniform(lam_lo, lam_hi)
            val = L * mpmath.exp((L - 1) * l_) - (L - 1) * mpmath.exp(L * l_) - 1
            assert _contains(ball, val, 1e-12)


def _outside(f, L, U):
    return mpmath.quad(f, [-mpmath.inf, L]) + mpmath.quad(f, [U, mpmath.inf])


@pytest.mark.parametrize("theta", [[F(0), F(1), F(0)], [F(1), F(1), F(0)], [F(1, 2), F(1), F(0)]], ids=str)
@pytest.mark.parametrize("lam", [F(2), F(3), F(4)], ids=str)
def test_tails_bound_the_integrals_beyond_the_window(theta, lam):
    """Every tail bound (prover and verifier) is at least the mpmath integral beyond its window of the
    integrand it bounds, for configurations that push mass outward (values at 0 and 1) and orders up to
    the largest of the case."""
    mpmath.mp.dps = 60
    try:
        th = [_mp(x) for x in theta]
        p, q = _densities(2, 1, th)
        L_ = _mp(lam)
        f = lambda y: p(y) ** L_ * q(y) ** (1 - L_)  # noqa: E731
        M = lambda y: abs(y) + 1  # noqa: E731
        mom = lambda y: (f(y) + p(y) + q(y)) * (M(y) ** 2 + 1)  # noqa: E731
        for (L, U, gt, mt), fac in (
            ((*cl.lambda_tails(CASE), cl.moment_tail(CASE)), cl.tail_coefficients(CASE)[0]),
            (ref.tail_bounds(REF), ref._tail_factors(REF)[0]),
        ):
            gv = _outside(f, _mp(L), _mp(U))
            mv = _outside(mom, _mp(L), _mp(U))
            assert 0 < gv <= mpmath.mpf(gt.upper().str(30, radius=False))
            assert 0 < mv <= mpmath.mpf(mt.upper().str(30, radius=False))

            # the gradient integrand d/du of f (u moves one atom of p), beyond the window
            def fu(y):
                pu = (y - th[1]) * mpmath.npdf(y, th[1], 1) / 2
                return abs(f(y) * L_ * pu / p(y))

            du = _outside(fu, _mp(L), _mp(U))
            assert du <= mpmath.mpf((fac * mt).upper().str(30, radius=False))
    finally:
        mpmath.mp.dps = 30


def test_chord_targets_are_below_the_rhs():
    """T_a = RHS_a and T_b <= RHS_b (convexity of the RHS in lambda), for the prover and the verifier."""
    for a, b in ((F(2), F(4)), (F(5, 2), F(21, 8)), (F(3), F(7, 2))):
        for ta, tb in (cl.targets(CASE, a, b), ref.order_targets(REF, a, b)):
            assert _contains(arb(ta.upper()), _mp_rhs(a, F(1, 2)), 1e-12)
            assert mpmath.mpf(tb.upper().str(30, radius=False)) <= _mp_rhs(b, F(1, 2))
            with workprec(80):
                assert tb >= to_arb(0)


def test_a_too_small_rhs_leaves_boxes_open(monkeypatch):
    real = cl.targets

    def low(case, a, b):
        ta, tb = real(case, a, b)
        return ta - 1, tb - 1

    monkeypatch.setattr(cl, "targets", low)
    res = cl.prove_lambda(cl.LambdaCase(2, 1, F(2), F(9, 4)), max_boxes=12)
    # G >= 1 everywhere (Jensen) and the lowered targets are below 1: only the equality rules may close
    assert not res.complete and res.open
    assert all(b["method"] in ("extremal", "ray") for b in res.proven)


@pytest.fixture(scope="module")
def small_cert():
    res = cl.prove_lambda(cl.LambdaCase(2, 1, F(2), F(17, 8)))
    assert res.complete
    return make_order_interval_certificate(cl.lambda_proof_to_json(res))


def _rehash(cert):
    cert = json.loads(json.dumps(cert))
    cert["sha256"] = _hash(cert)
    return cert


def test_small_certificate_verifies(small_cert):
    res = verify_certificate(small_cert)
    assert res.ok, res.reason
    assert "every lambda in [2, 17/8]" in res.reason and res.details["boxes"] == len(small_cert["boxes"])
    methods = small_cert["summary"]["methods"]
    assert methods.get("extremal", 0) >= 1 and sum(methods.values()) == len(small_cert["boxes"])


def test_forged_certificates_are_rejected(small_cert):
    # a lowered RHS
    bad = json.loads(json.dumps(small_cert))
    for key in ("lambda_lo", "lambda_hi"):
        bad["rhs_g"][key] = [str(F(x) - F(1, 1000)) for x in bad["rhs_g"][key]]
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "does not enclose" in res.reason
    # a removed box
    bad = json.loads(json.dumps(small_cert))
    i = next(i for i, b in enumerate(bad["boxes"]) if b[1] == "taylor")
    del bad["boxes"][i]
    bad["summary"]["boxes_proven"] -= 1
    bad["summary"]["methods"]["taylor"] -= 1
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "coverage fails" in res.reason
    # a widened lambda interval (case and faces both forged: the boxes then do not cover it)
    bad = json.loads(json.dumps(small_cert))
    bad["case"]["lambda"] = ["2", "4"]
    bad["faces"] = [[*f[:-1], ["2", "4"]] for f in bad["faces"]]
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "coverage fails" in res.reason
    bad["faces"] = small_cert["faces"]
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "'faces'" in res.reason
    # a box's bound at its lower order lowered below G at the box's own point (a false claim): the
    # independent re-proof fails
    bad = json.loads(json.dumps(small_cert))
    i = next(i for i, b in enumerate(bad["boxes"]) if b[1] == "taylor")
    point, lam_lo = [F(x) for x in bad["boxes"][i][2]], F(bad["boxes"][i][0][-1][0])
    below = _mp_g(2, 1, lam_lo, point) - mpmath.mpf("1e-4")
    bad["boxes"][i][4][0] = mpmath.nstr(below, 15)
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "not re-proven" in res.reason
    # a summary that names a wider order range than the case
    bad = json.loads(json.dumps(small_cert))
    bad["summary"]["lambda"] = ["2", "4"]
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "summary" in res.reason
    # the hash
    bad = json.loads(json.dumps(small_cert))
    bad["boxes"] = bad["boxes"][1:]
    assert not verify_certificate(bad).ok


@pytest.mark.slow
def test_n2_m1_lambda_2_to_4_proven_and_verified():
    res = cl.prove_lambda(CASE)
    assert res.complete and not res.open
    cert = make_order_interval_certificate(cl.lambda_proof_to_json(res))
    assert cert["case"]["lambda"] == ["2", "4"] and cert["complete"]
    out = verify_certificate(cert)
    assert out.ok, out.reason


def test_cli_order_range_bad_input_exits_2(capsys):
    from rigorous_rdp.cli import main

    for argv, word in [
        (
            ["--prove", "--rows", "2", "--order-range", "1", "3"],
            "--order-range must be two numbers with 2 <= LOW < HIGH <= 16",
        ),
        (["--prove", "--rows", "2", "--order-range", "3", "3"], "--order-range must be two numbers with"),
        (["--prove", "--rows", "2", "--order-range", "2", "17"], "--order-range must be two numbers with"),
        (["--prove", "--rows", "2", "--order-range", "2", "x"], "--order-range"),
        (["--prove", "--rows", "2", "--order-range", "2", "3", "--sigma", "1/2"], "--sigma must be in [1, 64]"),
        (
            ["--prove", "--rows", "2", "--order-range", "2", "3", "--sigma", "2", "--sigma-range", "1", "2"],
            "exclude each other",
        ),
        (["--trials", "3", "--order-range", "2", "3"], "--order-range applies to --prove only"),
    ]:
        assert main(["conjecture", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert word in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_cli_writes_a_certificate_that_verify_accepts(tmp_path, capsys):
    from rigorous_rdp.cli import main

    out = tmp_path / "c.json"
    assert (
        main(["conjecture", "--prove", "--rows", "2", "--order-range", "2", "17/8", "--out", str(out), "--json"]) == 0
    )
    res = json.loads(capsys.readouterr().out)
    assert res["prove"]["proven"] and res["certificate"]["kind"] == "holds-boxes-order-interval"
    assert main(["verify", str(out)]) == 0
