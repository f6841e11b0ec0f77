"""Conjecture 1 over an interval of sigma by the scaled proof (boxes of phi = t theta, no t side:
rigorous_rdp.research.conjecture_region.prove_region_scaled), its ``holds-region-scaled`` certificate
and the independent re-proof of ``verify``, checked against mpmath values of the definitions."""

import itertools
import json
import random
from fractions import Fraction as F
from pathlib import Path

import mpmath
import pytest
from flint import arb

from rigorous_rdp.arith import to_arb, workprec
from rigorous_rdp.certificate import verify_certificate
from rigorous_rdp.reference import conjecture_boxes as cb
from rigorous_rdp.research import conjecture_region as cr
from rigorous_rdp.research.conjecture_certificate import _hash

DATA = Path(__file__).parent / "data" / "conjecture_region_scaled_n2_m1_l2_s3-4.json"


def _mp(x):
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _mp_g1(n, m, lam, phi):
    """G_lambda(p||q) at sigma = 1 by mpmath.quad of the definition (subsets of rows enumerated;
    phi = (x_1..x_{n-1}, u, u'))."""
    rows_p = [*phi[: n - 1], phi[n - 1]]
    rows_q = [*phi[: n - 1], phi[n]]
    subs = list(itertools.combinations(range(n), m))

    def f(y):
        p = sum(mpmath.npdf(y, sum(rows_p[i] for i in S), 1) for S in subs) / len(subs)
        q = sum(mpmath.npdf(y, sum(rows_q[i] for i in S), 1) for S in subs) / len(subs)
        return p**lam / q ** (lam - 1)

    return mpmath.quad(f, [-mpmath.inf, -12, -2, 0, 1, 2, 4, 12, mpmath.inf])


def _mp_rhs_quad(n, m, lam, t):
    """RHS at sigma = 1/t, scaled by t: G_lambda((1-r) N(0,1) + r N(t,1) || N(0,1)) by mpmath.quad."""
    r = mpmath.mpf(m) / n

    def f(y):
        return ((1 - r) * mpmath.npdf(y, 0, 1) + r * mpmath.npdf(y, t, 1)) ** lam * mpmath.npdf(y, 0, 1) ** (1 - lam)

    return mpmath.quad(f, [-mpmath.inf, -12, 0, t, lam, 12 + lam, mpmath.inf])


def _contains(ball, x, tol=None):
    tol = mpmath.mpf(10) ** -20 if tol is None else tol
    lo = mpmath.mpf(ball.lower().str(40, radius=False))
    hi = mpmath.mpf(ball.upper().str(40, radius=False))
    return lo - tol <= x <= hi + tol


@pytest.mark.parametrize("n, m, lam", [(2, 1, 2), (3, 2, 3), (4, 1, 4)])
def test_rhs_at_the_box_dependent_t_against_mpmath(n, m, lam):
    """RHS(max(t_0, max_k lo_k)) of the prover (rhs_at) and of the reference (rhs_scaled, with its two
    t-derivatives) against mpmath.quad of the definition and mpmath.diff."""
    mpmath.mp.dps = 30
    try:
        rc = cr.RegionCase(n, m, lam, F(1), F(4))
        boxes = [
            [(F(0), F(1, 8))] * (n + 1),
            [(F(0), F(0)), *[(F(1, 3), F(1, 2))] * n],
            [(F(3, 8), F(1, 2)), *[(F(0), F(5, 8))] * (n - 1), (F(0), F(0))],
        ]
        for box in boxes:
            t = cr.box_rhs_t(rc, box)
            assert t == max(F(1, 4), max(lo for lo, _ in box))
            want = _mp_rhs_quad(n, m, lam, _mp(t))
            assert _contains(cr.rhs_at(n, m, lam, t), want)
            with workprec(100):
                vals = cb.rhs_scaled(n, m, lam, arb(t.numerator) / t.denominator)

            def closed(x):
                r = mpmath.mpf(m) / n
                return mpmath.fsum(
                    mpmath.binomial(lam, j) * r**j * (1 - r) ** (lam - j) * mpmath.exp(j * (j - 1) * x * x / 2)
                    for j in range(lam + 1)
                )

            assert _contains(vals[0], want)
            for k in (1, 2):
                assert _contains(vals[k], mpmath.diff(closed, _mp(t), k))
            assert vals[0].rad() < 1e-25
    finally:
        mpmath.mp.dps = 15


@pytest.mark.parametrize("n, m, lam, s", [(2, 1, 2, "1/3"), (3, 2, 3, "7/10"), (4, 1, 2, "1")])
def test_equality_on_the_extremal_ray(n, m, lam, s):
    """G_1(0..0, u = s, u' = 0) = RHS(s): mpmath.quad of the left side (subsets enumerated) against the
    closed form of the right side, and the reference point enclosure contains both."""
    mpmath.mp.dps = 30
    try:
        phi = [F(0)] * (n - 1) + [F(s), F(0)]
        lhs = _mp_g1(n, m, lam, [_mp(x) for x in phi])
        with workprec(100):
            rhs_ball = cb.rhs_scaled(n, m, lam, to_arb(F(s)))[0]
        assert _contains(rhs_ball, lhs, tol=mpmath.mpf(10) ** -18)
        g = cb.point_values(cb.BoxCase(n, m, lam, F(1)), phi, grad=False)[0]
        assert _contains(g, lhs, tol=mpmath.mpf(10) ** -18)
    finally:
        mpmath.mp.dps = 15


def test_the_lower_bounds_R_hold_pointwise():
    """rhs_choice: on random boxes of the faces and random points of them, R <= RHS(max(t_0, max phi))
    (mpmath closed form), and the prover's box_rhs_t never exceeds max(t_0, max phi)."""
    rng = random.Random(5)
    rc = cr.RegionCase(3, 1, 2, F(3, 2), F(4))
    t0, t1 = rc.t_range
    for _ in range(200):
        box = []
        for _side in range(4):
            a, b = sorted(F(rng.randrange(0, 17), 16) * t1 for _ in range(2))
            box.append((a, b if b > a else a + t1 / 16))
        box[rng.choice([0, 3])] = (F(0), F(0))
        j, s = cr.rhs_choice(rc, box)
        phi = [lo + (hi - lo) * F(rng.randrange(0, 9), 8) for lo, hi in box]
        top = max(t0, max(phi))
        assert cr.box_rhs_t(rc, box) <= top
        assert (s if j is None else phi[j]) <= top and (j is None or phi[j] >= t0)


def test_scaled_box_bound_holds_at_mpmath_points():
    """A Taylor box and a ray box of the stored certificate: the prover's bound of G_1 - R holds at
    corners (mpmath), and on the ray box G_1 stays below RHS(max(t_0, max phi))."""
    rc = cr.RegionCase(2, 1, 2, F(3), F(4))
    cert = json.loads(DATA.read_text())
    mpmath.mp.dps = 20
    try:
        for method in ("taylor", "ray"):
            rec = next(b for b in cert["boxes"] if b[1] == method and b[0][0] != ["0", "0"])
            box = [(F(lo), F(hi)) for lo, hi in rec[0]]
            res = cr.scaled_box_bounds(rc, box)
            assert res["proven"] and res["method"] == method
            j, s = cr.rhs_choice(rc, box)
            for corner in itertools.product(*box):
                g = _mp_g1(2, 1, 2, [_mp(x) for x in corner])
                top = max(F(1, 4), max(corner))
                assert g <= _mp_rhs_quad(2, 1, 2, _mp(top)) + mpmath.mpf(10) ** -15
                if method == "taylor":
                    r = _mp_rhs_quad(2, 1, 2, _mp(s if j is None else corner[j]))
                    up = mpmath.mpf(res["upper"].upper().str(30, radius=False))
                    assert g - r <= up + mpmath.mpf(10) ** -15
    finally:
        mpmath.mp.dps = 15


def test_stored_scaled_certificate_verifies():
    cert = json.loads(DATA.read_text())
    assert cert["kind"] == "holds-region-scaled" and cert["complete"] and cert["case"]["sigma"] == ["3", "4"]
    assert cert["faces"] == [[["0", "0"], ["0", "1/3"], ["0", "1/3"]], [["0", "1/3"], ["0", "1/3"], ["0", "0"]]]
    res = verify_certificate(cert)
    assert res.ok, res.reason
    assert "sigma in [3, 4]" in res.reason and res.details["boxes_reproven"] == len(cert["boxes"])


def _rehash(cert):
    cert = json.loads(json.dumps(cert))
    cert["sha256"] = _hash(cert)
    return cert


def _methods(boxes):
    out = {}
    for b in boxes:
        out[b[1]] = out.get(b[1], 0) + 1
    return out


def _forge(cert, boxes=None, **fields):
    c = json.loads(json.dumps(cert))
    if boxes is not None:
        c["boxes"] = boxes
        c["summary"]["boxes_proven"] = len(boxes)
        c["summary"]["methods"] = _methods(boxes)
    c.update(fields)
    return _rehash(c)


def _h_mp(rec):
    """G_1 - R at the record's point (mpmath)."""
    pt = [_mp(x) for x in rec[3]]
    r = rec[5]
    t = _mp(r["t"]) if "t" in r else pt[r["coordinate"]]
    return _mp_g1(2, 1, 2, pt) - _mp_rhs_quad(2, 1, 2, t)


def test_forgeries_are_rejected():
    """A lowered bound (false: below G_1 - R at its own point, mpmath), a ray box relabelled as a Taylor
    box below 0 (false: on the ray G_1 reaches the RHS), a Taylor box off the ray relabelled 'ray', a
    forged R, a removed box, and widened sigma intervals (either end) are all rejected."""
    cert = json.loads(DATA.read_text())
    boxes = cert["boxes"]
    ti = next(i for i, b in enumerate(boxes) if b[1] == "taylor")
    mpmath.mp.dps = 20
    try:
        h = _h_mp(boxes[ti])
        low = [list(b) for b in boxes]
        low[ti][2] = mpmath.nstr(h - abs(h) * mpmath.mpf(10) ** -6, 15)
        assert mpmath.mpf(low[ti][2]) < h  # the forged claim is false
    finally:
        mpmath.mp.dps = 15
    r = verify_certificate(_forge(cert, low))
    assert not r.ok and "not re-proven" in r.reason and "refuted" in r.reason
    # a ray box claimed as Taylor with a bound below 0
    ri = next(i for i, b in enumerate(boxes) if b[1] == "ray")
    relab = [list(b) for b in boxes]
    box = relab[ri][0]
    relab[ri] = [box, "taylor", "-0.000000001", [str((F(lo) + F(hi)) / 2) for lo, hi in box], [0, 0, 0], {"t": "1/4"}]
    r = verify_certificate(_forge(cert, relab))
    assert not r.ok and "not re-proven" in r.reason
    # a Taylor box off the ray claimed by the ray rule
    oi = next(i for i, b in enumerate(boxes) if b[1] == "taylor" and b[0][0][0] != "0")
    relab = [list(b) for b in boxes]
    relab[oi] = [relab[oi][0], "ray", None, None, [0, 0, 0], None]
    r = verify_certificate(_forge(cert, relab))
    assert not r.ok and "'ray' box" in r.reason
    # R = RHS(s) with s above max(t_low, max lo), and R = RHS(phi_j) on a side below t_low
    ci = next(i for i, b in enumerate(boxes) if b[1] == "taylor" and "t" in b[5])
    for bad in ({"t": "1/3"}, {"coordinate": 0}):
        forged = [list(b) for b in boxes]
        forged[ci][5] = bad
        r = verify_certificate(_forge(cert, forged))
        assert not r.ok and "R = RHS" in r.reason
    # a box removed
    r = verify_certificate(_forge(cert, [list(b) for b in boxes[1:]]))
    assert not r.ok and "tile" in r.reason
    # sigma widened down (t_high up: the faces are not those of the case) and up (t_low down: the
    # constant R = RHS(1/4) of the boxes near 0 is no longer below RHS(max(t_low, max phi)))
    for sig in (["2", "4"], ["3", "5"]):
        summary = dict(cert["summary"], sigma=sig)
        r = verify_certificate(_forge(cert, case=dict(cert["case"], sigma=sig), summary=summary))
        assert not r.ok, sig
    summary = dict(cert["summary"], sigma=["3", "5"])
    r = verify_certificate(_forge(cert, case=dict(cert["case"], sigma=["3", "5"]), summary=summary))
    assert "R = RHS" in r.reason
    # the t-side kind's texts on these boxes, and a broken hash
    assert not verify_certificate(_forge(cert, kind="holds-region")).ok
    assert not verify_certificate(dict(cert, complete=False)).ok


@pytest.mark.slow
def test_parallel_reproof_of_the_scaled_certificate():
    """verify --jobs 2 gives the verdict and message of --jobs 1 (valid and lowered-bound certificates)."""
    cert = json.loads(DATA.read_text())
    bad = [list(b) for b in cert["boxes"]]
    i = next(i for i, b in enumerate(bad) if b[1] == "taylor")
    bad[i][2] = "-0.5"
    for c in (cert, _forge(cert, bad)):
        one, two = verify_certificate(c, jobs=1), verify_certificate(c, jobs=2)
        assert (one.ok, one.reason) == (two.ok, two.reason)
    assert verify_certificate(cert, jobs=2).ok and not verify_certificate(_forge(cert, bad), jobs=2).ok


@pytest.mark.slow
def test_scaled_proof_reproduces_the_stored_certificate():
    """prove_region_scaled on n = 2, m = 1, lambda = 2, sigma in [3, 4] gives the stored boxes."""
    from rigorous_rdp.research.conjecture_certificate import make_region_scaled_certificate

    stored = json.loads(DATA.read_text())
    for jobs in (1, 2):  # workers below the first levels: the same leaves in the same order
        res = cr.prove_region_scaled(cr.RegionCase(2, 1, 2, F(3), F(4)), jobs=jobs)
        assert res.complete
        cert = make_region_scaled_certificate(cr.region_scaled_to_json(res))
        assert [b[0] for b in cert["boxes"]] == [b[0] for b in stored["boxes"]]
        assert [b[1:] for b in cert["boxes"]] == [b[1:] for b in stored["boxes"]]
        assert cert["outside"] == stored["outside"]


def test_cli_scaled_options_bad_input_exits_2(capsys):
    from rigorous_rdp.cli import main

    for argv, word in [
        (["--prove", "--rows", "2", "--t-side"], "--t-side applies to --prove --sigma-range only"),
        (["--trials", "3", "--t-side"], "--t-side applies to --prove --sigma-range only"),
        (["--prove", "--rows", "2", "--cube", "--sigma-range", "1", "4"], "needs --t-side"),
        (["--prove", "--rows", "2", "--t-side", "--jobs", "2", "--sigma-range", "1", "4"], "--jobs does not apply"),
        (["--prove", "--rows", "2", "--jobs", "0", "--sigma-range", "1", "4"], "--jobs must be"),
    ]:
        assert main(["conjecture", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert word in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_a_moved_point_is_rejected_before_it_anchors_the_reproof():
    """The re-proof anchors its mean-value form at the certificate's point, so that point is checked
    first: moved to another point of its box (off the face its signs select) the certificate is refused;
    the point left as is, the same box re-proves with the point as anchor and without it."""
    cert = json.loads(DATA.read_text())
    boxes = [list(b) for b in cert["boxes"]]
    ti = next(i for i, b in enumerate(boxes) if b[1] == "taylor" and all(F(lo) < F(hi) for lo, hi in b[0][1:]))
    lo = [F(x) for x, _ in boxes[ti][0]]
    boxes[ti][3] = [str(x) for x in lo]  # a corner of the box, not the centre of the selected face
    r = verify_certificate(_forge(cert, boxes))
    assert not r.ok and "the point is not the face its signs select" in r.reason
    rec = cert["boxes"][ti]
    box = [(F(a), F(b)) for a, b in rec[0]]
    rhs = ("t", F(rec[5]["t"])) if "t" in rec[5] else ("coordinate", rec[5]["coordinate"])
    up = F(rec[2])
    target = arb(up.numerator) / up.denominator
    case = cb.BoxCase(cert["case"]["n"], cert["case"]["m"], cert["case"]["lambda"], F(1))
    for hint in ([F(x) for x in rec[3]], None):
        ok, _, why = cb.reprove_scaled_box(case, box, target, rhs, hint=hint)
        assert ok, why
