"""The independent re-prover (rigorous_rdp.reference.conjecture_boxes) on a box of the face u' = 0 of the
n = 4, m = 2, lambda = 2, sigma = 1 certificate (issue 26): its Hessian over the box, with the common
Gaussian factor centred at m/2, against mpmath quadrature of the closed second-derivative integrands,
and the re-proof of the box at its stated bound (no bisection) and of a bound below G (refused)."""

import itertools
from fractions import Fraction as F

import mpmath
import pytest
from flint import arb

from rigorous_rdp.reference.conjecture_boxes import BoxCase, derivatives_over_box, reprove_box

CASE = BoxCase(4, 2, 2, F(1))
#: box 1221 of the certificate of `conjecture --prove --rows 4 --batch 2 --order 2 --sigma 1` (faces):
#: coordinates x_1, x_2, x_3, u, u'; stated bound 1.42810980926016 (RHS lower end 1.42957045711476)
BOX = [(F(1, 4), F(3, 8)), (F(1, 2), F(5, 8)), (F(1, 2), F(5, 8)), (F(7, 8), F(1)), (F(0), F(0))]
BOUND = F("1.42810980926016")
PAIRS = list(itertools.combinations(range(4), 2))
CUTS = [-mpmath.inf, -3, -1, 1, 3, 5, mpmath.inf]
#: coordinate k of theta moves row ROWS[k][0] of p and row ROWS[k][1] of q (None: does not move it)
ROWS = [(0, 0), (1, 1), (2, 2), (3, None), (None, 3)]


def _mix(rows, y, ks=()):
    """The mixture of N(rows[i] + rows[j], 1) over the pairs, differentiated in the rows ``ks`` (a pair's
    mean moves with slope 1 in each of its rows): phi, (y - mu) phi, ((y - mu)^2 - 1) phi."""
    out = []
    for i, j in PAIRS:
        if not all(k in (i, j) for k in ks):
            continue
        z = y - rows[i] - rows[j]
        out.append([1, z, z * z - 1][len(ks)] * mpmath.npdf(z))
    return mpmath.fsum(out) / len(PAIRS)


def _d(rows, y, which, ks):
    """A derivative of p (which = 0) or q (which = 1) in the coordinates ``ks`` (0 if one does not move it)."""
    r = [ROWS[k][which] for k in ks]
    return 0 if None in r else _mix(rows, y, r)


def _mp_derivatives(theta, coords=range(5)):
    """dG/dtheta_k and d2G/dtheta_j dtheta_k for G = int p^2 / q (lambda = 2), by mpmath.quad of
    2 p p_k / q - p^2 q_k / q^2 and 2 p_j p_k / q + 2 p p_jk / q - 2 p (p_j q_k + p_k q_j) / q^2
    + 2 p^2 q_j q_k / q^3 - p^2 q_jk / q^2."""
    rp, rq = [*theta[:3], theta[3]], [*theta[:3], theta[4]]

    def grad(k):
        def f(y):
            p, q = _mix(rp, y), _mix(rq, y)
            return 2 * p * _d(rp, y, 0, (k,)) / q - p * p * _d(rq, y, 1, (k,)) / q**2

        return mpmath.quad(f, CUTS)

    def hess(j, k):
        def f(y):
            p, q = _mix(rp, y), _mix(rq, y)
            pj, pk, qj, qk = _d(rp, y, 0, (j,)), _d(rp, y, 0, (k,)), _d(rq, y, 1, (j,)), _d(rq, y, 1, (k,))
            pjk, qjk = _d(rp, y, 0, (j, k)), _d(rq, y, 1, (j, k))
            return (
                2 * pj * pk / q
                + 2 * p * pjk / q
                - 2 * p * (pj * qk + pk * qj) / q**2
                + 2 * p * p * qj * qk / q**3
                - p * p * qjk / q**2
            )

        return mpmath.quad(f, CUTS)

    return {k: grad(k) for k in coords}, {(j, k): hess(j, k) for j in coords for k in coords if j <= k}


def _check(points, coords):
    grad, H = derivatives_over_box(CASE, BOX)
    with mpmath.workdps(15):
        for pt in points:
            g, h = _mp_derivatives([mpmath.mpf(x.numerator) / x.denominator for x in pt], coords)
            for k, v in g.items():
                assert grad[k].lower() <= v <= grad[k].upper(), (pt, k)
            for (j, k), v in h.items():
                assert H[j][k].lower() <= v <= H[j][k].upper(), (pt, j, k, H[j][k], v)
                assert H[k][j].lower() <= v <= H[k][j].upper()
    return H


def test_derivatives_over_a_face_box_contain_mpmath_and_are_narrow():
    """The enclosures over BOX contain the mpmath derivatives at the centre (coordinates x_1 and u'); the
    Hessian's balls (common factor centred at m/2 = 1) have radius at most 8 (16.6 with the factor
    centred at u', the earlier reference point, which is 0 on this face)."""
    H = _check([[(lo + hi) / 2 for lo, hi in BOX]], (0, 4))
    assert max(float(H[j][k].rad()) for j in range(4) for k in range(4)) < 8


@pytest.mark.slow
def test_derivatives_over_a_face_box_contain_mpmath_at_a_corner_every_entry():
    _check([[hi for _, hi in BOX]], range(5))


def test_face_box_reproven_without_bisection_and_a_low_bound_refused():
    ok, used, why = reprove_box(
        CASE, BOX, arb(BOUND.numerator) / BOUND.denominator, hint=[(lo + hi) / 2 for lo, hi in BOX]
    )
    assert ok and used == 1, why
    # G at the corner (3/8, 5/8, 5/8, 1, 0) is about 1.3; a bound of 1.2 is below it
    ok, _, why = reprove_box(CASE, BOX, arb(12) / 10, max_boxes=8)
    assert not ok and "refuted" in why, why
