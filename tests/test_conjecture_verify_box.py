"""The independent re-prover (rigorous_rdp.reference.conjecture_boxes) on the box of the n = 4, m = 2,
lambda = 2, sigma = 1 certificate where it used to stop (issue 26): the Taylor remainder of the
gradient's point quadrature, expanded about a whole cell of width sigma/2, was 0.73 wide there, so no
bisection could certify a sign.  Values are compared with mpmath quadrature of the defining integral."""

import itertools
from fractions import Fraction as F

import mpmath
import pytest
from flint import arb

from rigorous_rdp.reference.conjecture_boxes import BoxCase, derivatives_over_box, point_values, reprove_box

BOX = [(F(0), F(1, 8)), (F(0), F(1, 8)), (F(13, 16), F(7, 8)), (F(7, 8), F(1)), (F(0), F(1, 8))]
CASE = BoxCase(4, 2, 2, F(1))


PAIRS = list(itertools.combinations(range(4), 2))
CUTS = [-mpmath.inf, -2, 0, 2, 4, 6, mpmath.inf]


def _mix(rows, y, k=None):
    """Mixture density of N(rows[i] + rows[j], 1) over the pairs, or its derivative in rows[k]."""
    if k is None:
        return mpmath.fsum(mpmath.npdf(y, rows[i] + rows[j], 1) for i, j in PAIRS) / len(PAIRS)
    terms = [(y - rows[i] - rows[j]) * mpmath.npdf(y, rows[i] + rows[j], 1) for i, j in PAIRS if k in (i, j)]
    return mpmath.fsum(terms) / len(PAIRS)


def _rows(theta):  # row 4 is u in p, u' in q
    return theta[:4], [*theta[:3], theta[4]]


def _mp_g(theta):
    """G = int p^2 / q."""
    rp, rq = _rows(theta)
    return mpmath.quad(lambda y: _mix(rp, y) ** 2 / _mix(rq, y), CUTS)


def _mp_dg(theta, k):
    """dG/du = int 2 (p/q) dp/du (k = 3); dG/du' = -int (p/q)^2 dq/du' (k = 4)."""
    rp, rq = _rows(theta)
    if k == 3:
        return mpmath.quad(lambda y: 2 * _mix(rp, y) / _mix(rq, y) * _mix(rp, y, 3), CUTS)
    return -mpmath.quad(lambda y: (_mix(rp, y) / _mix(rq, y)) ** 2 * _mix(rq, y, 3), CUTS)


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator


def test_point_gradient_is_tight_and_close_to_mpmath():
    c = [(lo + hi) / 2 for lo, hi in BOX]
    vals = point_values(CASE, c)
    cm = [_mp(x) for x in c]
    assert abs(float(vals[0].mid()) - float(_mp_g(cm))) < 1e-12 and float(vals[0].rad()) < 1e-9
    for k in (3, 4):  # the coordinates u and u' (enclosures 0.25 and 0.73 wide before)
        assert abs(float(vals[1 + k].mid()) - float(_mp_dg(cm, k))) < 1e-9
        assert float(vals[1 + k].rad()) < 1e-6


def test_failing_box_is_reproven_and_a_false_bound_refused():
    g_corner = _mp_g([_mp(x) for x in (F(0), F(0), F(13, 16), F(1), F(0))])
    assert 1.27 < g_corner < 1.42343
    ok, used, why = reprove_box(CASE, BOX, arb(142343) / 100000, max_boxes=64)
    assert ok, why
    assert used <= 64
    ok, _, why = reprove_box(CASE, BOX, arb(127) / 100, max_boxes=16)  # below G at that corner
    assert not ok, why


def _mix2(rows, y, k):
    """Second derivative of the mixture density in rows[k] (a row's mean moves with slope 1)."""
    terms = [((y - rows[i] - rows[j]) ** 2 - 1) * mpmath.npdf(y, rows[i] + rows[j], 1) for i, j in PAIRS if k in (i, j)]
    return mpmath.fsum(terms) / len(PAIRS)


def _mp_second(theta, pair):
    """d2G for lambda = 2 (G = int p^2 / q; p moves with u = theta[3], q with u' = theta[4]):
    d2G/du2 = int 2 (p_u^2 + p p_uu) / q, d2G/du du' = -int 2 p p_u q_u' / q^2,
    d2G/du'2 = int (2 p^2 q_u'^2 / q^3 - p^2 q_u'u' / q^2)."""
    rp, rq = _rows(theta)
    p, q = (lambda y: _mix(rp, y)), (lambda y: _mix(rq, y))
    pu, qu = (lambda y: _mix(rp, y, 3)), (lambda y: _mix(rq, y, 3))
    if pair == (3, 3):
        return mpmath.quad(lambda y: 2 * (pu(y) ** 2 + p(y) * _mix2(rp, y, 3)) / q(y), CUTS)
    if pair == (3, 4):
        return -mpmath.quad(lambda y: 2 * p(y) * pu(y) * qu(y) / q(y) ** 2, CUTS)
    return mpmath.quad(lambda y: 2 * p(y) ** 2 * qu(y) ** 2 / q(y) ** 3 - p(y) ** 2 * _mix2(rq, y, 3) / q(y) ** 2, CUTS)


def _check_derivatives_at(points):
    grad, H = derivatives_over_box(CASE, BOX)
    assert all(g.is_finite() for g in grad)
    for pt in points:
        th = [_mp(x) for x in pt]
        for k in (3, 4):
            v = _mp_dg(th, k)
            assert grad[k].lower() <= v <= grad[k].upper(), (pt, k, grad[k], v)
        for j, k in ((3, 3), (3, 4), (4, 4)):
            v = _mp_second(th, (j, k))
            assert H[j][k].lower() <= v <= H[j][k].upper(), (pt, j, k, H[j][k], v)
            assert H[k][j].lower() <= v <= H[k][j].upper()


#: a corner of BOX with u at its upper end and u' at its lower end (where G is largest on the box)
CORNER = [BOX[0][0], BOX[1][1], BOX[2][0], BOX[3][1], BOX[4][0]]


def test_derivatives_over_the_box_contain_mpmath_at_a_corner():
    """The gradient over BOX (compensated integrand, adaptive cells, exact Gaussian mass per cell) and
    the Hessian over BOX contain the mpmath derivatives (closed integrands, mpmath.quad) at a corner."""
    _check_derivatives_at([CORNER])


@pytest.mark.slow
def test_derivatives_over_the_box_contain_mpmath_at_its_corners_and_centre():
    _check_derivatives_at([[lo for lo, _ in BOX], [hi for _, hi in BOX], [(lo + hi) / 2 for lo, hi in BOX]])


if __name__ == "__main__":
    pytest.main([__file__])
