"""The faster enclosures of the Conjecture 1 branch and bound (rigorous_rdp.research.conjecture_proof):
the factored Hessian and box gradient, the exact cell weights, the tails of the compensated gradient,
point values at a lower tolerance with a retry, and the halves of a hopeless box bisected without
evaluation; all checked against independent mpmath values or the verifier."""

import itertools
import random
from fractions import Fraction as F

import mpmath
import pytest

from rigorous_rdp.arith import to_arb, workprec
from rigorous_rdp.certificate import verify_certificate
from rigorous_rdp.research import conjecture_proof as cp
from rigorous_rdp.research.conjecture_certificate import make_boxes_certificate


def _mpf(x):
    return mpmath.mpf(x.numerator) / x.denominator


def _contains(ball, x, slack=0):
    lo = mpmath.mpf(ball.lower().str(30, radius=False))
    hi = mpmath.mpf(ball.upper().str(30, radius=False))
    return lo - slack <= x <= hi + slack


def _mp_g(case, theta):
    """G_lambda(p||q) by mpmath.quad from the definition (the m-subsets of the n rows enumerated)."""
    n, m, lam, s = case.n, case.m, case.lam, _mpf(case.sigma)
    rows_p = [*theta[: n - 1], theta[n - 1]]
    rows_q = [*theta[: n - 1], theta[n]]
    subs = list(itertools.combinations(range(n), m))

    def f(y):
        p = sum(mpmath.npdf(y, sum(rows_p[i] for i in S), s) for S in subs) / len(subs)
        q = sum(mpmath.npdf(y, sum(rows_q[i] for i in S), s) for S in subs) / len(subs)
        return p**lam / q ** (lam - 1)

    return mpmath.quad(f, [-mpmath.inf, -10, -3, 0, 1, 2, 4, 12, mpmath.inf])


def _mp_grad(case, theta, k, h=None):
    h = mpmath.mpf(10) ** -8 if h is None else h
    a, b = list(theta), list(theta)
    a[k] += h
    b[k] -= h
    return (_mp_g(case, a) - _mp_g(case, b)) / (2 * h)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(cp.ProofCase(3, 2, 2, F(1)), id="n3m2l2s1", marks=pytest.mark.slow),
        pytest.param(cp.ProofCase(2, 1, 3, F(1, 2)), id="n2m1l3s1/2"),
    ],
)
def test_factored_box_gradient_and_hessian_contain_mpmath_derivatives(case):
    """The gradient and Hessian enclosures over a box (one factored pass) contain mpmath central
    differences of G (30 digits) at seeded random points of the box."""
    rng = random.Random(3)
    box = [(F(1, 8), F(1, 4))] * (case.n - 1) + [(F(5, 8), F(3, 4)), (F(1, 16), F(1, 8))]
    H, gb = cp.hessian_and_gradient_box(case, box)
    mpmath.mp.dps = 30
    try:
        for _ in range(2):
            pt = [lo + (hi - lo) * F(rng.randrange(257), 256) for lo, hi in box]
            th = [_mpf(x) for x in pt]
            for k in range(case.dim):
                assert _contains(gb[k], _mp_grad(case, th, k), slack=mpmath.mpf(10) ** -10), k
            h = mpmath.mpf(10) ** -5
            for j, k in [(0, case.dim - 1), (case.dim - 2, case.dim - 2)]:
                a, b = list(th), list(th)
                a[j] += h
                b[j] -= h
                ref = (_mp_grad(case, a, k) - _mp_grad(case, b, k)) / (2 * h)
                assert _contains(H[j][k], ref, slack=mpmath.mpf(10) ** -4), (j, k)
    finally:
        mpmath.mp.dps = 15
    # the factored balls are not wider than the earlier compensated ones on this box (measured:
    # narrower or within 3 %, at half the cells)
    com = cp.hessian_box(case, box, method="compensated")
    assert max(float(x.rad()) for row in H for x in row) < 1.05 * max(float(x.rad()) for row in com for x in row)


def test_weighted_cells_are_the_gaussian_weight_integrals():
    """Each cell's weight contains mpmath's integral of exp(-(y - c)^2 / (2 sigma^2)) over the cell, and
    the cells tile the window [L, U]."""
    case = cp.ProofCase(3, 2, 3, F(3, 2))
    cells = cp._cells(case, cp.FACTORED_CELLS, cp.FACTORED_COARSE)
    L, U, _, _ = cp.tail_constants(case)
    assert cells[0][0] == L and cells[-1][1] == U
    assert all(a[1] == b[0] for a, b in itertools.pairwise(cells))
    w = cp._weighted_cells(case, cp.FACTORED_CELLS, cp.FACTORED_PREC)
    c = _mpf(cp._weight_centre(case))
    s = _mpf(case.sigma)
    mpmath.mp.dps = 40
    try:
        for i in (0, 5, len(cells) // 2, len(cells) - 1):
            a, b = cells[i]
            # mpmath: the closed form by erf, and quad on 20 pieces (one piece is not accurate in the tail)
            z = [(_mpf(x) - c) / (s * mpmath.sqrt(2)) for x in (a, b)]
            ref = s * mpmath.sqrt(mpmath.pi / 2) * (mpmath.erfc(-z[1]) - mpmath.erfc(-z[0]))
            if z[0] > 0:
                ref = s * mpmath.sqrt(mpmath.pi / 2) * (mpmath.erfc(z[0]) - mpmath.erfc(z[1]))
            quad = mpmath.quad(
                lambda y: mpmath.exp(-((y - c) ** 2) / (2 * s**2)), mpmath.linspace(_mpf(a), _mpf(b), 21)
            )
            assert abs(quad / ref - 1) < 1e-9  # quad: a second opinion on the closed form
            assert _contains(w[i][1], ref) and w[i][1].rad() < 1e-25 * ref
            assert _contains(w[i][0], _mpf(a) - c) and _contains(w[i][0], _mpf(b) - c)
    finally:
        mpmath.mp.dps = 15


def test_compensated_gradient_tail_against_mpmath():
    """Outside the window, the integral of |d/du [p^lam q^(1-lam) - lam p + (lam-1) q]| at the
    configuration with the atoms at the ends is below gradient_box_tail."""
    case = cp.ProofCase(2, 1, 3, F(1))
    L, U, _, _ = cp.tail_constants(case)
    bound = cp.gradient_box_tail(case)
    mpmath.mp.dps = 30
    try:
        # x_1 = 0, u = 1, u' = 0: p = (phi(y) + phi(y - 1)) / 2, q = phi(y); d/du moves the atom at 1
        def f(y):
            p = (mpmath.npdf(y, 0, 1) + mpmath.npdf(y, 1, 1)) / 2
            q = mpmath.npdf(y, 0, 1)
            pu = (y - 1) * mpmath.npdf(y, 1, 1) / 2
            lam = 3
            return abs(lam * (p / q) ** (lam - 1) * pu - lam * pu)

        tail = mpmath.quad(f, [U, mpmath.inf]) + mpmath.quad(f, [-mpmath.inf, L])
        assert 0 < tail <= mpmath.mpf(bound.upper().str(30, radius=False))
        assert bound < 1e-15
    finally:
        mpmath.mp.dps = 15


def test_point_value_retry_at_higher_tolerance():
    """A verdict that the radius of the first point value decides is computed again, narrower; both
    enclosures contain mpmath's value."""
    case = cp.ProofCase(2, 1, 2, F(1))
    pt = [F(1, 4), F(7, 8), F(1, 8)]
    first = cp.g_point(case, pt, rel_bits=cp.G_BITS)
    with workprec(cp.PREC):
        just_above = first.mid() + first.rad() / 2  # the midpoint passes, the upper end does not
        again = cp._g_point_adaptive(case, pt, just_above)
    assert again.rad() < first.rad() / 100
    mpmath.mp.dps = 30
    try:
        ref = _mp_g(case, [_mpf(x) for x in pt])
        assert _contains(first, ref) and _contains(again, ref)
    finally:
        mpmath.mp.dps = 15


def test_hopeless_boxes_skip_evaluation_same_leaves_for_any_jobs_and_verify(monkeypatch):
    """n = 2, lambda = 2, sigma = 2: the proof evaluates fewer boxes than its tree has nodes (halves of
    hopeless boxes are bisected at once), --jobs 1 and 2 give the same leaves, and the certificate
    passes the independent verifier."""
    case = cp.ProofCase(2, 1, 2, F(2))
    calls = []
    real = cp.box_bounds

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(cp, "box_bounds", counting)
    one = cp.prove_case(case)
    monkeypatch.setattr(cp, "box_bounds", real)
    assert one.complete
    leaves = len(one.proven) + len(one.outside)
    assert len(calls) < 2 * leaves - 1 - len(one.outside)  # a full tree evaluates every inner node
    two = cp.prove_case(case, jobs=2)
    j1, j2 = cp.proof_to_json(one), cp.proof_to_json(two)
    assert j1["boxes"] == j2["boxes"] and j1["outside"] == j2["outside"]
    res = verify_certificate(make_boxes_certificate(j1))
    assert res.ok, res.reason


def test_rhs_and_point_values_unchanged_by_the_node_memo():
    """The gradient at a point (nodes shared across components) against mpmath central differences."""
    case = cp.ProofCase(3, 1, 2, F(1))
    pt = [F(1, 8), F(1, 2), F(3, 4), F(1, 4)]
    g = cp.grad_point(case, pt)
    mpmath.mp.dps = 30
    try:
        th = [_mpf(x) for x in pt]
        for k in range(case.dim):
            assert _contains(g[k], _mp_grad(case, th, k), slack=mpmath.mpf(10) ** -8)
            assert g[k].rad() < 1e-4
    finally:
        mpmath.mp.dps = 15
    with workprec(80):
        assert to_arb(F(1)) < cp.rhs_g(case)
