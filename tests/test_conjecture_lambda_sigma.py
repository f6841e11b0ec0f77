"""Conjecture 1 for every real order of an interval and every sigma of an interval at once
(``conjecture --prove --order-range LOW HIGH --sigma-range LOW HIGH``, kind holds-boxes-order-sigma):
the reduction's facts against mpmath (30 digits), a small proof verified by the independent
re-proof, and forged certificates rejected."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction as F

import mpmath
import pytest

from rigorous_rdp.certificate import verify_certificate
from rigorous_rdp.reference import conjecture_lambda_boxes as refl
from rigorous_rdp.reference import conjecture_lambda_sigma_boxes as ref
from rigorous_rdp.research import conjecture_lambda_sigma as ls
from rigorous_rdp.research.conjecture_certificate import _hash, make_order_sigma_certificate


@pytest.fixture(autouse=True)
def _dps():
    old = mpmath.mp.dps
    mpmath.mp.dps = 30
    yield
    mpmath.mp.dps = old


def _mp(x):
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _mp_g(n, m, lam, theta, sigma=1):
    """G_lambda = int p^lambda q^(1-lambda) by mpmath.quad, the m-subsets of the rows enumerated."""
    th = [_mp(x) for x in theta]
    rows_p, rows_q = [*th[: n - 1], th[n - 1]], [*th[: n - 1], th[n]]
    subs = list(itertools.combinations(range(n), m))
    s, L = _mp(sigma), _mp(lam)

    def f(y):
        p = sum(mpmath.npdf(y, sum(rows_p[i] for i in S), s) for S in subs) / len(subs)
        q = sum(mpmath.npdf(y, sum(rows_q[i] for i in S), s) for S in subs) / len(subs)
        return p**L * q ** (1 - L)

    return mpmath.quad(f, [-mpmath.inf, -4, -1, 0, 1, 2, 4, 7, mpmath.inf])


def _mp_rhs(lam, r, t):
    """RHS_lambda(t) = E[(1 - r + r e^(tZ - t^2/2))^lambda]."""
    t, L, rr = _mp(t), _mp(lam), _mp(r)
    return mpmath.quad(
        lambda z: (1 - rr + rr * mpmath.exp(t * z - t * t / 2)) ** L * mpmath.npdf(z), [-mpmath.inf, 0, 3, mpmath.inf]
    )


def _le(ball_upper, x):
    return x <= mpmath.mpf(ball_upper.upper().str(40, radius=False))


@pytest.mark.parametrize("lam", [F(2), F(5, 2), F(37, 10), F(4)])
def test_rhs_is_nondecreasing_in_t_and_equals_g_on_the_ray(lam):
    # (2) of the module docstring at sample points, and (1): G_lambda(0..0, s, 0) = RHS_lambda(s) and
    # G at sigma of theta = G at 1 of theta/sigma (independent mpmath values)
    ts = [F(1, 64), F(1, 4), F(1, 3), F(1, 2), F(3, 4), F(1)]
    for r in (F(1, 2), F(1, 3), F(2, 3)):
        vals = [_mp_rhs(lam, r, t) for t in ts]
        assert all(b >= a for a, b in itertools.pairwise(vals)), (r, vals)
    for n, m, s in ((2, 1, F(3, 4)), (3, 1, F(1, 3)), (3, 2, F(1, 2))):
        ray = [F(0)] * (n - 1) + [s, F(0)]
        assert abs(_mp_g(n, m, lam, ray) - _mp_rhs(lam, F(m, n), s)) < mpmath.mpf("1e-25")
    theta, sigma = [F(1, 3), F(3, 4), F(1, 8)], F(5, 2)
    assert abs(_mp_g(2, 1, lam, theta, sigma) - _mp_g(2, 1, lam, [x / sigma for x in theta])) < mpmath.mpf("1e-25")


def test_targets_contain_mpmath_and_are_below_the_rhs():
    # the RHS at t = s_B of the prover and of the reference contain the mpmath value; the chord
    # target at b is below RHS_b(s_B)
    case = ls.LambdaSigmaCase(2, 1, F(2), F(4), F(1), F(4))
    for box in (
        [(F(0), F(0)), (F(1, 2), F(3, 4)), (F(0), F(1, 4)), (F(5, 2), F(3))],
        [(F(0), F(1, 8)), (F(0), F(1, 8)), (F(0), F(0)), (F(2), F(9, 4))],
    ):
        s = ls.box_s(case, box)
        assert s == ref.s_of_box(ref.OrderSigmaCase(2, 1, F(2), F(4), F(1), F(4)), box)
        a, b = box[-1]
        ta, tb, rb = ls.goal(case, box)
        ra, rbm = _mp_rhs(a, F(1, 2), s), _mp_rhs(b, F(1, 2), s)
        assert mpmath.mpf(ta.upper().str(40, radius=False)) <= ra + mpmath.mpf("1e-14")
        assert mpmath.mpf(tb.upper().str(40, radius=False)) < rbm
        lo = mpmath.mpf(rb.lower().str(40, radius=False))
        assert lo - mpmath.mpf("1e-14") <= rbm <= mpmath.mpf(rb.upper().str(40, radius=False)) + mpmath.mpf("1e-14")
        own = refl.rhs_real(1 / s, F(1, 2), a)
        assert abs(mpmath.mpf(own.mid().str(40, radius=False)) - ra) < mpmath.mpf("1e-14")


@pytest.fixture(scope="module")
def small():
    case = ls.LambdaSigmaCase(2, 1, F(2), F(33, 16), F(1), F(17, 16))
    res = ls.prove_order_sigma(case)
    assert res.complete
    return case, res, make_order_sigma_certificate(ls.order_sigma_to_json(res))


def _rehash(cert):
    cert = json.loads(json.dumps(cert))
    cert["sha256"] = _hash(cert)
    return cert


def test_small_certificate_verifies(small):
    _, _, cert = small
    assert cert["kind"] == "holds-boxes-order-sigma" and cert["complete"]
    res = verify_certificate(cert)
    assert res.ok, res.reason
    assert "every lambda in [2, 33/16] and every sigma in [1, 17/16]" in res.reason
    assert res.details["boxes"] == len(cert["boxes"]) and res.details["subboxes"] >= len(cert["boxes"])
    methods = cert["summary"]["methods"]
    assert methods.get("ray", 0) >= 1 and sum(methods.values()) == len(cert["boxes"])


def test_box_bounds_hold_at_mpmath_points(small):
    # every stated bound (taylor, monotone) is above mpmath's G at random points of its box at the
    # two orders; at ray boxes mpmath's G is below mpmath's RHS at T(phi) for orders inside the box
    case, _, cert = small
    rng = random.Random(5)
    t0 = case.t_lo
    boxes = cert["boxes"]
    picks = rng.sample(range(len(boxes)), 6) + [i for i, b in enumerate(boxes) if b[1] == "ray"][:2]
    for i in picks:
        box = [(F(a), F(b)) for a, b in boxes[i][0]]
        a, b = box[-1]
        phi = [lo + (hi - lo) * F(rng.randint(0, 16), 16) for lo, hi in box[:-1]]
        if boxes[i][1] == "ray":
            lam = a + (b - a) * F(rng.randint(0, 8), 8)
            T = max([t0, *phi])
            assert _mp_g(2, 1, lam, phi) <= _mp_rhs(lam, F(1, 2), T)
        else:
            ua, ub = (mpmath.mpf(x) for x in boxes[i][4])
            assert _mp_g(2, 1, a, phi) <= ua and _mp_g(2, 1, b, phi) <= ub


def test_forged_certificates_are_rejected(small):
    _, _, cert = small
    # the hash
    bad = json.loads(json.dumps(cert))
    bad["boxes"] = bad["boxes"][1:]
    assert not verify_certificate(bad).ok
    # a removed box
    bad = json.loads(json.dumps(cert))
    i = next(i for i, b in enumerate(bad["boxes"]) if b[1] == "taylor")
    del bad["boxes"][i]
    bad["summary"]["boxes_proven"] -= 1
    bad["summary"]["methods"]["taylor"] -= 1
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "coverage fails" in res.reason
    # a moved box (its sides shifted by its own width)
    bad = json.loads(json.dumps(cert))
    i = next(i for i, b in enumerate(bad["boxes"]) if b[1] == "taylor" and F(b[0][1][0]) > 0)
    lo, hi = (F(x) for x in bad["boxes"][i][0][1])
    bad["boxes"][i][0][1] = [str(lo - (hi - lo)), str(lo)]
    bad["boxes"][i][2][1] = str(F(bad["boxes"][i][2][1]) - (hi - lo))  # its point moved with it
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "coverage fails" in res.reason, res.reason
    # a wider claim: the order interval widened (case, summary and faces forged): the boxes do not cover it
    bad = json.loads(json.dumps(cert))
    bad["case"]["lambda"] = bad["summary"]["lambda"] = ["2", "4"]
    bad["faces"] = [[*f[:-1], ["2", "4"]] for f in bad["faces"]]
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "coverage fails" in res.reason, res.reason
    # the sigma interval widened to [1, 4]: the same faces (1/sigma_low unchanged); the printed RHS range
    # is checked, and with it forged too the boxes' targets (RHS at s_B >= 1/4) fall below their bounds
    bad = json.loads(json.dumps(cert))
    bad["case"]["sigma"] = bad["summary"]["sigma"] = ["1", "4"]
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "rhs_g_range" in res.reason, res.reason
    bad["summary"]["rhs_g_range"]["lower"] = mpmath.nstr(_mp_rhs(2, F(1, 2), F(1, 4)), 15)
    res = verify_certificate(_rehash(bad))
    assert not res.ok and ("above the target" in res.reason or "not re-proven" in res.reason), res.reason
    # a bound lowered below G at a point of its box (mpmath): the independent re-proof fails
    bad = json.loads(json.dumps(cert))
    i = next(i for i, b in enumerate(bad["boxes"]) if b[1] in ("taylor", "monotone"))
    box = [(F(a), F(b)) for a, b in bad["boxes"][i][0]]
    corner = [lo for lo, _ in box[:-1]]
    below = _mp_g(2, 1, box[-1][0], corner) - mpmath.mpf("1e-6")
    bad["boxes"][i][4][0] = mpmath.nstr(below, 15)
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "not re-proven" in res.reason
    # a bound above the target (RHS at s_B with the chord): refused
    bad = json.loads(json.dumps(cert))
    bad["boxes"][i][4][1] = "9"
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "above the target" in res.reason
    # a box relabelled 'ray' although G exceeds RHS(phi_u) at one of its points (mpmath): the ray rule's
    # conclusion G(phi) <= G(0..0, phi_u, 0) is false there, so its signs cannot be certified
    bad = json.loads(json.dumps(cert))

    def above(rec):
        v = [F(rec[0][0][1]), F(rec[0][1][0]), F(rec[0][2][1])]
        return rec[1] != "ray" and _mp_g(2, 1, 2, v) > _mp_rhs(2, F(1, 2), v[1])

    j = next(j for j, rec in enumerate(bad["boxes"]) if above(rec))
    bad["summary"]["methods"][bad["boxes"][j][1]] -= 1
    bad["summary"]["methods"]["ray"] += 1
    bad["boxes"][j][1], bad["boxes"][j][2], bad["boxes"][j][4] = "ray", None, None  # written as a ray box is
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "not re-proven" in res.reason and "signs not certified" in res.reason, res.reason
    # a summary or text that is not the generated one
    bad = json.loads(json.dumps(cert))
    bad["statement"] = bad["statement"].replace("every sigma", "some sigma")
    assert not verify_certificate(_rehash(bad)).ok
    # an over-long number is refused before any Fraction is built
    bad = json.loads(json.dumps(cert))
    bad["boxes"][0][0][1][1] = "1" * 2000
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "longer than" in res.reason


def test_forged_summary_statement_and_box_descriptions_are_rejected(small):
    """Fields the re-proof does not use may still not say more than is proven (nor describe a box wrongly)."""
    _, _, cert = small
    ok = json.loads(json.dumps(cert))
    ok["summary"]["statement"] = "ratio <= 1 for every configuration, every real order and every sigma in the ranges"
    assert verify_certificate(_rehash(ok)).ok
    for text in ("ratio <= 1 for every configuration, every real order >= 2 and every sigma >= 1", "proven"):
        bad = json.loads(json.dumps(cert))
        bad["summary"]["statement"] = text
        res = verify_certificate(_rehash(bad))
        assert not res.ok and "'statement'" in res.reason, res.reason
    bad = json.loads(json.dumps(cert))
    bad["summary"]["note"] = "proven for every n"
    assert not verify_certificate(_rehash(bad)).ok
    boxes = cert["boxes"]
    i = next(k for k, b in enumerate(boxes) if b[1] == "taylor" and any(lo != hi for lo, hi in b[0][:-1]))
    # the point moved to a corner of its box
    bad = json.loads(json.dumps(cert))
    bad["boxes"][i][2] = [side[1] for side in bad["boxes"][i][0][:-1]]
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "point" in res.reason, res.reason
    # a taylor box relabelled monotone (it leaves a side unsigned)
    bad = json.loads(json.dumps(cert))
    bad["boxes"][i][1] = "monotone"
    bad["summary"]["methods"]["taylor"] -= 1
    bad["summary"]["methods"]["monotone"] = bad["summary"]["methods"].get("monotone", 0) + 1
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "unsigned" in res.reason, res.reason
    # a sign on a side of width 0, and a sign that is not -1, 0 or 1
    for signs in ([1, *boxes[i][3][1:]], [2] * len(boxes[i][3])):
        bad = json.loads(json.dumps(cert))
        bad["boxes"][i][3] = signs
        assert not verify_certificate(_rehash(bad)).ok
    # the same number spelt with an underscore or non-ASCII digits
    h = boxes[i][0][1][1]  # an end of a side: "0_" + h and h with an Arabic-Indic first digit are the same number
    for spelt in ("0_" + h, chr(0x660 + int(h[0])) + h[1:]):
        bad = json.loads(json.dumps(cert))
        bad["boxes"][i][0][1][1] = spelt
        res = verify_certificate(_rehash(bad))
        assert not res.ok and "ASCII" in res.reason, res.reason


def test_forged_statement_of_a_scaled_region_certificate_is_rejected():
    from pathlib import Path

    path = Path(__file__).parent / "data" / "conjecture_region_scaled_n2_m1_l2_s3-4.json"
    cert = json.loads(path.read_text())
    assert verify_certificate(cert).ok
    bad = json.loads(json.dumps(cert))
    bad["summary"]["statement"] = "ratio <= 1 for every configuration and every sigma >= 1"
    res = verify_certificate(_rehash(bad))
    assert not res.ok and "'statement'" in res.reason, res.reason


@pytest.mark.slow
def test_n2_m1_quarter_region_proven_and_verified():
    case = ls.LambdaSigmaCase(2, 1, F(2), F(9, 4), F(1), F(5, 4))
    res = ls.prove_order_sigma(case)
    assert res.complete
    out = verify_certificate(make_order_sigma_certificate(ls.order_sigma_to_json(res)))
    assert out.ok, out.reason


def test_cli_bad_input_exits_2(capsys):
    from rigorous_rdp.cli import main

    base = ["--prove", "--rows", "2", "--order-range", "2", "3"]
    for argv, word in [
        ([*base, "--sigma-range", "1/2", "2"], "--sigma-range must be two numbers with 1 <= LOW < HIGH <= 64"),
        ([*base, "--sigma-range", "2", "2"], "--sigma-range must be two numbers with"),
        ([*base, "--sigma-range", "1", "x"], "--sigma-range must be two numbers with"),
        ([*base, "--sigma-range", "1", "2", "--sigma", "2"], "--sigma and --sigma-range exclude each other"),
        ([*base, "--sigma-range", "1", "2", "--jobs", "2"], "--jobs does not apply to --order-range"),
    ]:
        assert main(["conjecture", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert word in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_cli_writes_a_certificate_that_verify_accepts(tmp_path, capsys):
    from rigorous_rdp.cli import main

    out = tmp_path / "c.json"
    argv = ["conjecture", "--prove", "--rows", "2", "--order-range", "2", "65/32", "--sigma-range", "1", "33/32"]
    assert main([*argv, "--out", str(out), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["prove"]["proven"] and res["certificate"]["kind"] == "holds-boxes-order-sigma"
    assert res["prove"]["sigma"] == ["1", "33/32"] and res["prove"]["lambda"] == ["2", "65/32"]
    assert main(["verify", str(out)]) == 0
