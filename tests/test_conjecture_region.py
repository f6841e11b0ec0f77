"""Conjecture 1 over an interval of sigma (rigorous_rdp.research.conjecture_region) and its
``holds-region`` certificate, checked against independent mpmath values."""

import itertools
import json
from fractions import Fraction as F
from pathlib import Path

import mpmath
import pytest

from rigorous_rdp.arith import to_arb, workprec
from rigorous_rdp.certificate import verify_certificate
from rigorous_rdp.research import conjecture_region as cr
from rigorous_rdp.research.conjecture_certificate import _hash

DATA = Path(__file__).parent / "data" / "conjecture_region_n2_m1_l2_s3-4.json"
FACES = Path(__file__).parent / "data" / "conjecture_region_n2_m1_l2_s3-4_faces.json"


def _mp(x):
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _mp_g(n, m, lam, sigma, theta):
    """G_lambda(p||q) by mpmath.quad from the definition (subsets of rows enumerated)."""
    rows_p = [*theta[: n - 1], theta[n - 1]]
    rows_q = [*theta[: n - 1], theta[n]]
    subs = list(itertools.combinations(range(n), m))

    def f(y):
        p = sum(mpmath.npdf(y, sum(rows_p[i] for i in S), sigma) for S in subs) / len(subs)
        q = sum(mpmath.npdf(y, sum(rows_q[i] for i in S), sigma) for S in subs) / len(subs)
        return p**lam / q ** (lam - 1)

    s = mpmath.mpf(sigma)
    return mpmath.quad(f, [-mpmath.inf, -12 * s, -2, 0, 1, 2, 4, 12 * s, mpmath.inf])


def _mp_rhs(n, m, lam, sigma):
    """The right-hand side by mpmath.quad of its definition."""
    r = mpmath.mpf(m) / n

    def f(y):
        return ((1 - r) * mpmath.npdf(y, 0, sigma) + r * mpmath.npdf(y, 1, sigma)) ** lam * mpmath.npdf(
            y, 0, sigma
        ) ** (1 - lam)

    s = mpmath.mpf(sigma)
    return mpmath.quad(f, [-mpmath.inf, -12 * s, 0, 1, lam, lam + 12 * s, mpmath.inf])


def test_scaling_identity_against_mpmath():
    """G_sigma(theta) = G_1(theta / sigma), the identity the region proof rests on."""
    mpmath.mp.dps = 25
    try:
        for n, m, lam, sigma, theta in [
            (2, 1, 2, 3, ["1/5", "7/8", "1/3"]),
            (3, 2, 3, F(5, 2), ["0", "1/2", "1", "1/4"]),
        ]:
            th = [_mp(x) for x in theta]
            s = _mp(sigma)
            a = _mp_g(n, m, lam, s, th)
            b = _mp_g(n, m, lam, mpmath.mpf(1), [x / s for x in th])
            assert abs(a - b) < mpmath.mpf(10) ** -18 * a
    finally:
        mpmath.mp.dps = 15


@pytest.mark.parametrize("n, m, lam", [(2, 1, 2), (4, 1, 4)])
def test_rhs_and_its_t_derivatives_against_mpmath(n, m, lam):
    """RHS(t) against mpmath.quad of the definition at sigma = 1/t (one t) and against the finite sum
    (9.5) typed here; its t-derivatives against mpmath.diff of that sum."""
    mpmath.mp.dps = 30
    r = mpmath.mpf(m) / n

    def g(x):
        return mpmath.fsum(
            mpmath.binomial(lam, j) * r**j * (1 - r) ** (lam - j) * mpmath.exp(j * (j - 1) * x * x / 2)
            for j in range(lam + 1)
        )

    try:
        assert abs(g(mpmath.mpf(1) / 2) - _mp_rhs(n, m, lam, 2)) < mpmath.mpf(10) ** -20
        for t in [F(1, 4), F(3, 5), F(1)]:
            with workprec(80):
                vals = cr.rhs_series(n, m, lam, to_arb(t))
            for k, ball in enumerate(vals):
                want = mpmath.diff(g, _mp(t), k)
                lo = mpmath.mpf(ball.lower().str(30, radius=False))
                hi = mpmath.mpf(ball.upper().str(30, radius=False))
                assert lo - mpmath.mpf(10) ** -18 <= want <= hi + mpmath.mpf(10) ** -18, (k, t)
            assert vals[1] >= 0 and vals[2] > 0
    finally:
        mpmath.mp.dps = 15


def test_scaled_box_and_the_extremal_corner():
    box = [(F(0), F(1, 8)), (F(7, 8), F(1)), (F(0), F(1, 8)), (F(1, 2), F(1))]
    assert cr.scaled_box(box) == [(F(0), F(1, 8)), (F(7, 16), F(1)), (F(0), F(1, 8))]
    assert cr.contains_extremal(2, box)
    assert not cr.contains_extremal(2, [(F(1, 8), F(1, 4)), *box[1:]])
    assert cr.extremal_signs(3) == [-1, -1, 1, -1]
    with pytest.raises(ValueError, match="sigma range"):
        cr.RegionCase(2, 1, 2, F(1, 2), F(4))
    with pytest.raises(ValueError, match="sigma range"):
        cr.RegionCase(2, 1, 2, F(4), F(4))


def test_corner_box_is_extremal_and_a_box_bound_holds_at_mpmath_points():
    rc = cr.RegionCase(2, 1, 2, F(3), F(4))
    cert = json.loads(DATA.read_text())
    ext = next(b for b in cert["boxes"] if b[1] == "extremal")
    box = [(F(lo), F(hi)) for lo, hi in ext[0]]
    assert cr.region_box_bounds(rc, box)["method"] == "extremal"
    assert cr.region_box_bounds(rc, box)["proven"]
    tay = next(b for b in cert["boxes"] if b[1] == "taylor")
    box = [(F(lo), F(hi)) for lo, hi in tay[0]]
    res = cr.region_box_bounds(rc, box)
    assert res["proven"] and res["upper"] <= 0
    up = mpmath.mpf(res["upper"].upper().str(30, radius=False))
    mpmath.mp.dps = 20
    try:
        for corner in list(itertools.product(*box))[::5]:
            t = _mp(corner[-1])
            h = _mp_g(2, 1, 2, 1 / t, [_mp(x) for x in corner[:-1]]) - _mp_rhs(2, 1, 2, 1 / t)
            assert h <= up + mpmath.mpf(10) ** -15
    finally:
        mpmath.mp.dps = 15


def test_stored_region_certificate_verifies():
    cert = json.loads(DATA.read_text())
    assert cert["kind"] == "holds-region" and cert["complete"] and cert["case"]["sigma"] == ["3", "4"]
    res = verify_certificate(cert)
    assert res.ok, res.reason
    assert "sigma in [3, 4]" in res.reason and res.details["boxes_reproven"] == len(cert["boxes"])


def _rehash(cert):
    cert["sha256"] = _hash(cert)
    return cert


def test_tampered_region_certificates_are_rejected():
    cert = json.loads(DATA.read_text())
    # a box removed, the summary adjusted: coverage fails
    removed = cert["boxes"][0]
    summary = dict(cert["summary"], boxes_proven=cert["summary"]["boxes_proven"] - 1)
    summary["methods"] = dict(summary["methods"], **{removed[1]: summary["methods"][removed[1]] - 1})
    r = verify_certificate(_rehash(dict(cert, boxes=cert["boxes"][1:], summary=summary)))
    assert not r.ok and "tile" in r.reason
    # the summary left as it was
    r = verify_certificate(_rehash(dict(cert, boxes=cert["boxes"][1:])))
    assert not r.ok and "boxes_proven" in r.reason
    # a positive bound of G - RHS
    boxes = [list(b) for b in cert["boxes"]]
    i = next(i for i, b in enumerate(boxes) if b[1] == "taylor")
    boxes[i][2] = "0.001"
    r = verify_certificate(_rehash(dict(cert, boxes=boxes)))
    assert not r.ok and "is not <= 0" in r.reason
    # a bound far below the truth: refuted by the independent enclosure
    boxes = [list(b) for b in cert["boxes"]]
    boxes[i][2] = "-1"
    r = verify_certificate(_rehash(dict(cert, boxes=boxes)))
    assert not r.ok and f"box {'['}" in r.reason and "not re-proven" in r.reason
    # 'extremal' on a box without the corner
    boxes = [list(b) for b in cert["boxes"]]
    boxes[i][1] = "extremal"
    summary = dict(cert["summary"])
    summary["methods"] = dict(summary["methods"], taylor=summary["methods"]["taylor"] - 1)
    summary["methods"]["extremal"] += 1
    r = verify_certificate(_rehash(dict(cert, boxes=boxes, summary=summary)))
    assert not r.ok and "does not contain" in r.reason
    # a sigma interval that is not the one proven
    r = verify_certificate(_rehash(dict(cert, case=dict(cert["case"], sigma=["3", "5"]))))
    assert not r.ok
    # a printed RHS range that is not the RHS's
    summary = dict(cert["summary"], rhs_g_range={"lower": "1.1", "upper": "1.2"})
    r = verify_certificate(_rehash(dict(cert, summary=summary)))
    assert not r.ok and "rhs_g_range" in r.reason
    # sigma below 1 is refused
    r = verify_certificate(_rehash(dict(cert, case=dict(cert["case"], sigma=["1/2", "4"]))))
    assert not r.ok
    # an unmodified certificate with a broken hash
    bad = dict(cert, complete=False)
    assert not verify_certificate(bad).ok


def test_cli_region_bad_input_exits_2(capsys):
    from rigorous_rdp.cli import main

    for argv, word in [
        (["--prove", "--rows", "2", "--sigma-range", "1/2", "4"], "--sigma-range must satisfy"),
        (["--prove", "--rows", "2", "--sigma-range", "4", "1"], "--sigma-range must satisfy"),
        (["--prove", "--rows", "2", "--sigma-range", "1", "65"], "--sigma-range must satisfy"),
        (["--prove", "--rows", "2", "--sigma-range", "1", "x"], "sigma"),
        (["--prove", "--rows", "2", "--sigma", "2", "--sigma-range", "1", "4"], "exclude each other"),
        (["--trials", "3", "--sigma-range", "1", "4"], "--prove only"),
    ]:
        assert main(["conjecture", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert word in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.slow
@pytest.mark.parametrize("faces, path", [(False, DATA), (True, FACES)], ids=["cube", "faces"])
def test_region_proof_reproduces_the_stored_certificate(tmp_path, faces, path):
    """prove_region on n = 2, m = 1, lambda = 2, sigma in [3, 4] gives the stored certificate's boxes."""
    from rigorous_rdp.research.conjecture_certificate import make_region_certificate

    res = cr.prove_region(cr.RegionCase(2, 1, 2, F(3), F(4)), faces=faces)
    assert res.complete
    cert = make_region_certificate(cr.region_to_json(res))
    stored = json.loads(path.read_text())
    assert [b[0] for b in cert["boxes"]] == [b[0] for b in stored["boxes"]]
    assert cert["outside"] == stored["outside"]


def test_stored_faces_region_certificate_verifies_and_tampering_is_rejected():
    """The proof over the faces x_1 = 0 and u' = 0 (times the t interval): every box lies on one face
    and is re-proven; a box lifted off its face, a face dropped, or the cube's domain text with the
    face boxes are rejected."""
    from rigorous_rdp.research.conjecture_certificate import REGION_DOMAIN

    cert = json.loads(FACES.read_text())
    assert cert["faces"] == [
        [["0", "0"], ["0", "1"], ["0", "1"], ["1/4", "1/3"]],
        [["0", "1"], ["0", "1"], ["0", "0"], ["1/4", "1/3"]],
    ]
    assert all(b[0][0] == ["0", "0"] or b[0][2] == ["0", "0"] for b in cert["boxes"])
    res = verify_certificate(cert)
    assert res.ok, res.reason
    assert "faces x_1 = 0 and u_prime = 0" in res.reason
    boxes = [list(b) for b in cert["boxes"]]
    i = next(i for i, b in enumerate(boxes) if b[0][0] == ["0", "0"] and b[1] == "taylor")
    boxes[i][0] = [["0", "1/2"], *boxes[i][0][1:]]
    assert not verify_certificate(_rehash(dict(cert, boxes=boxes))).ok
    r = verify_certificate(_rehash(dict(cert, faces=cert["faces"][1:])))
    assert not r.ok and "faces" in r.reason
    nofaces = {k: v for k, v in cert.items() if k != "faces"}
    assert not verify_certificate(_rehash(dict(nofaces))).ok
    r = verify_certificate(_rehash(dict(nofaces, domain=REGION_DOMAIN)))
    assert not r.ok and "[0, 0]" in r.reason
