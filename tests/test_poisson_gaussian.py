r"""Certified RDP of the Poisson-subsampled Gaussian against independent references.

* Containment: the certified enclosure (``refine`` at 12 digits) contains the
  mpmath reference (quadrature of the defining integral at 50 digits, see
  :mod:`rigorous_rdp.reference.gaussian`) at 600+ seeded points spanning
  q in [0, 1] (with 0, 1e-12 and 1), sigma in [0.05, 1e4], alpha in (1, 1e5],
  integer and fractional orders.  The reference values are computed by this
  file (``python tests/test_poisson_gaussian.py --regenerate``, about 15 minutes)
  and stored with the mpmath version in ``tests/data/poisson_gaussian_reference.json``;
  the default run checks a 150-point subset against the file, ``-m slow`` checks
  all of them, and both recompute some reference values live to tie the file
  to the reference code.
* Closed forms at integer orders (exact rationals), widths, peer behaviour of
  dp-accounting (optional), monotonicity (hypothesis).
"""

from __future__ import annotations

import json
import math
import random
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from _refcheck import encloses, endpoints, rel_width
from hypothesis import given, settings
from hypothesis import strategies as st

from rigorous_rdp.arith import certainly_lt, refine, to_arb, workprec
from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent
from rigorous_rdp.reference import reference_rdp
from rigorous_rdp.reference.gaussian import poisson_gaussian_log_a_binomial_mp, poisson_gaussian_rdp_mp
from rigorous_rdp.registry import rdp_curve
from rigorous_rdp.subsampling.poisson_gaussian import log_a_fractional

DATA = Path(__file__).parent / "data" / "poisson_gaussian_reference.json"
SEED = 20261122
REF_DPS = 50
#: relative accuracy claimed for the stored reference values (they carry 50 digits)
REF_REL = Fraction(1, 10**40)


# ---------------------------------------------------------------------------
# the point set
# ---------------------------------------------------------------------------


def decimal_text(x: float, sig: int) -> str:
    return f"{x:.{sig}g}"


def reference_points() -> list[tuple[str, str, str]]:
    """(alpha, q, sigma) as exact decimal strings: a grid of extremes, then seeded random points."""
    pts: list[tuple[str, str, str]] = []
    qs = ["0", "1e-12", "1e-6", "0.01", "0.5", "0.999999999999", "1"]
    sigmas = ["0.05", "1", "10000"]
    alphas = ["1.0001", "2", "10.5", "100000", "99999.5"]
    for q in qs:
        for s in sigmas:
            for a in alphas:
                pts.append((a, q, s))
    rng = random.Random(SEED)
    while len(pts) < 625:
        q = decimal_text(10 ** rng.uniform(-12, 0), 3)
        s = decimal_text(10 ** rng.uniform(math.log10(0.05), 4), 3)
        if rng.random() < 0.5:
            a = str(min(100000, max(2, round(10 ** rng.uniform(0.3, 5)))))
        else:
            a = decimal_text(1 + 10 ** rng.uniform(-4, 5), 5)
            if Fraction(a).denominator == 1:
                a = str(Fraction(a) + Fraction(1, 2))
            if Fraction(a) > 100000:
                a = "99999.25"
        pts.append((a, q, s))
    return pts


def _regenerate() -> None:
    import time

    from rigorous_rdp.reference.gaussian import poisson_gaussian_rdp_mp

    out = []
    t0 = time.time()
    mpmath.mp.dps = REF_DPS + 10
    for i, (a, q, s) in enumerate(reference_points()):
        v = poisson_gaussian_rdp_mp(Fraction(a), Fraction(q), Fraction(s), REF_DPS)
        out.append(
            {
                "alpha": a,
                "q": q,
                "sigma": s,
                "rdp": mpmath.nstr(v, REF_DPS, min_fixed=-1, max_fixed=-1) if v != 0 else "0",
            }
        )
        print(i, a, q, s, out[-1]["rdp"][:20], round(time.time() - t0, 1), flush=True)
    meta = {
        "what": "RDP of the Poisson-subsampled Gaussian (add/remove), log(A_alpha)/(alpha-1)",
        "method": "rigorous_rdp.reference.gaussian.poisson_gaussian_rdp_mp: mpmath.quad (tanh-sinh) of the defining integral",
        "dps": REF_DPS,
        "mpmath": mpmath.__version__,
        "seed": SEED,
        "generator": "python tests/test_poisson_gaussian.py --regenerate",
    }
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps({"meta": meta, "points": out}, indent=1) + "\n")


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

DIGITS = 12


def certified(alpha, q, sigma, digits=DIGITS):
    a, qq, s = Fraction(alpha), Fraction(q), Fraction(sigma)
    curve = rdp_curve(PoissonSampledEvent(GaussianEvent(s), qq))
    return refine(lambda prec: curve.certified(a), digits).ball


def _load():
    if not DATA.exists():
        pytest.fail(f"missing {DATA}; run: python tests/test_poisson_gaussian.py --regenerate")
    return json.loads(DATA.read_text())


def _file_points():
    if not DATA.exists():
        return []
    return [(p["alpha"], p["q"], p["sigma"], p["rdp"]) for p in json.loads(DATA.read_text())["points"]]


FILE_POINTS = _file_points()


def _cheap(p) -> bool:
    # integer orders cost O(alpha) terms; keep the largest ones (alpha ~ 1e5) for -m slow, except two
    a = Fraction(p[0])
    return a.denominator > 1 or a <= 20000 or p[1:3] in {("0.5", "0.05"), ("1e-12", "10000")}


#: the default run: the cheap extremes of the grid plus every 7th random point (~150 points)
DEFAULT_POINTS = [p for i, p in enumerate(FILE_POINTS) if _cheap(p) and (i < 105 or i % 7 == 0)]


def _ids(points):
    return [f"a{a}-q{q}-s{s}" for a, q, s, _ in points]


# ---------------------------------------------------------------------------
# containment at the stored reference points
# ---------------------------------------------------------------------------


def test_reference_file_covers_the_ranges():
    data = _load()
    assert data["meta"]["dps"] >= 50
    pts = [(Fraction(p["alpha"]), Fraction(p["q"]), Fraction(p["sigma"])) for p in data["points"]]
    assert len(pts) >= 500
    assert min(q for _, q, _ in pts) == 0 and max(q for _, q, _ in pts) == 1
    assert min(q for _, q, _ in pts if q > 0) <= Fraction(1, 10**12)
    assert min(s for _, _, s in pts) <= Fraction(1, 20) and max(s for _, _, s in pts) >= 10**4
    assert max(a for a, _, _ in pts) == 100000 and min(a for a, _, _ in pts) <= Fraction(10001, 10000)
    assert sum(a.denominator == 1 for a, _, _ in pts) >= 200 and sum(a.denominator > 1 for a, _, _ in pts) >= 200


def _check_point(alpha, q, sigma, ref):
    ball = certified(alpha, q, sigma)
    r = Fraction(ref) if ref != "0" else Fraction(0)
    # the stored reference carries 50 digits; the quadrature is trusted to 40
    assert encloses(ball, r, REF_REL), (alpha, q, sigma, ball.str(30), ref[:35])


@pytest.mark.parametrize("alpha,q,sigma,ref", DEFAULT_POINTS, ids=_ids(DEFAULT_POINTS))
def test_enclosure_contains_reference(alpha, q, sigma, ref):
    _check_point(alpha, q, sigma, ref)


@pytest.mark.slow
@pytest.mark.parametrize(
    "alpha,q,sigma,ref",
    [p for p in FILE_POINTS if p not in DEFAULT_POINTS],
    ids=_ids([p for p in FILE_POINTS if p not in DEFAULT_POINTS]),
)
def test_enclosure_contains_reference_all(alpha, q, sigma, ref):
    _check_point(alpha, q, sigma, ref)


LIVE = [
    ("10.5", "0.0001", "0.8"),
    pytest.param("1.25", "0.1", "0.5", marks=pytest.mark.slow),
    pytest.param("58.75", "0.4", "12", marks=pytest.mark.slow),
    pytest.param("2", "0.01", "1.1", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("alpha,q,sigma", LIVE)
def test_live_reference_agrees_with_certified(alpha, q, sigma):
    # recompute the reference now (ties the stored file to the reference code)
    ref = poisson_gaussian_rdp_mp(Fraction(alpha), Fraction(q), Fraction(sigma), 50)
    assert encloses(certified(alpha, q, sigma), ref, REF_REL)


@pytest.mark.slow
def test_stored_file_matches_reference_code():
    rng = random.Random(1)
    for a, q, s, ref in rng.sample(FILE_POINTS, 25):
        v = poisson_gaussian_rdp_mp(Fraction(a), Fraction(q), Fraction(s), 50)
        r = Fraction(ref) if ref != "0" else Fraction(0)
        from _refcheck import mp_fraction

        assert abs(mp_fraction(v) - r) <= abs(r) * REF_REL, (a, q, s)


@pytest.mark.parametrize("alpha", [2, 7, 64, 300])
@pytest.mark.parametrize("q,sigma", [("1e-12", "0.05"), ("0.01", "1.1"), ("0.999", "0.3")])
def test_integer_orders_against_binomial_sum(alpha, q, sigma):
    # the plain binomial sum (a second reference path) at integer orders
    la = poisson_gaussian_log_a_binomial_mp(alpha, Fraction(q), Fraction(sigma), 50)
    with mpmath.workdps(80):
        ref = la / (alpha - 1)
    assert encloses(certified(alpha, q, sigma), ref, REF_REL)


def test_reference_dispatch_poisson():
    ev = PoissonSampledEvent(GaussianEvent("1.1"), "0.01")
    ref = reference_rdp(ev, Fraction(21, 2))
    assert encloses(certified("10.5", "0.01", "1.1"), ref, REF_REL)


# ---------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("q,sigma", [("1e-12", "0.05"), ("1e-6", "10000"), ("0.01", "1.1"), ("0.5", "0.7"), ("1", "2")])
def test_order_two_closed_form(q, sigma):
    # alpha = 2: RDP = log(1 + q^2 (e^{1/sigma^2} - 1))
    qq, s = Fraction(q), Fraction(sigma)
    with mpmath.workdps(80):
        Q = mpmath.mpf(qq.numerator) / qq.denominator
        S2 = (mpmath.mpf(s.numerator) / s.denominator) ** 2
        ref = mpmath.log1p(Q * Q * mpmath.expm1(1 / S2))
    assert encloses(certified(2, q, sigma), ref, Fraction(1, 10**60))


@pytest.mark.parametrize("q,sigma", [("1e-9", "0.5"), ("0.01", "1.1"), ("0.3", "4")])
def test_order_three_closed_form(q, sigma):
    # alpha = 3: A = 1 + 3 q^2 (1-q) (e^{1/s^2} - 1) + q^3 (e^{3/s^2} - 1); RDP = log(A)/2
    qq, s = Fraction(q), Fraction(sigma)
    with mpmath.workdps(80):
        Q = mpmath.mpf(qq.numerator) / qq.denominator
        S2 = (mpmath.mpf(s.numerator) / s.denominator) ** 2
        ref = mpmath.log1p(3 * Q**2 * (1 - Q) * mpmath.expm1(1 / S2) + Q**3 * mpmath.expm1(3 / S2)) / 2
    assert encloses(certified(3, q, sigma), ref, Fraction(1, 10**60))


@pytest.mark.parametrize("alpha", ["2", "10.5", "99999.5", "100000"])
@pytest.mark.parametrize("sigma", ["0.05", "1.1", "10000"])
def test_exact_rationals_at_q_zero_and_one(alpha, sigma):
    a, s = Fraction(alpha), Fraction(sigma)
    zero = certified(a, 0, s)
    assert endpoints(zero) == (0, 0)
    # q = 1 is the Gaussian mechanism: alpha / (2 sigma^2), an exact rational
    one = certified(a, 1, s)
    assert encloses(one, a / (2 * s * s), Fraction(0))


def test_issue_numbers():
    # true log A at q=1e-4, sigma=0.8, alpha=10.5 is 1.9018621208913389e-06
    with workprec(200):
        la = log_a_fractional(
            to_arb(Fraction(21, 2)), to_arb(Fraction(1, 10**4)), to_arb(Fraction(4, 5)), 200, math.log(1.9e-6)
        )
    # (the issue's 17-digit value is a rounded double: the exact value is 1.90186212089133922e-6)
    assert encloses(la, Fraction("1.9018621208913389e-06"), Fraction(1, 10**15))
    assert encloses(la, Fraction("1.90186212089133922e-06"), Fraction(1, 10**17))
    # q = 0.4, sigma = 12, alpha = 58.75: log A = +2.0907 (Opacus returns -30.01)
    with workprec(200):
        la = log_a_fractional(
            to_arb(Fraction(235, 4)), to_arb(Fraction(2, 5)), to_arb(Fraction(12)), 200, math.log(7.1)
        )
    lo, hi = endpoints(la)
    assert Fraction("2.09065") < lo <= hi < Fraction("2.09075")


# ---------------------------------------------------------------------------
# widths (separately from containment)
# ---------------------------------------------------------------------------

WIDTH_POINTS = [
    ("1.0001", "1e-12", "0.05"),
    ("1.5", "0.01", "1.1"),
    ("10.5", "0.1", "0.5"),
    ("99999.5", "0.5", "0.05"),
    ("4.669", "0.01", "1.1"),
    ("1000", "1e-6", "10000"),
    ("2.5", "0.999999999999", "3"),
    ("58.75", "0.4", "12"),
]


@pytest.mark.parametrize("alpha,q,sigma", WIDTH_POINTS)
def test_relative_width_at_12_digits(alpha, q, sigma):
    assert rel_width(certified(alpha, q, sigma, 12)) <= Fraction(1, 10**12)


@pytest.mark.parametrize("alpha,q,sigma", WIDTH_POINTS[:4])
def test_relative_width_at_30_digits(alpha, q, sigma):
    assert rel_width(certified(alpha, q, sigma, 30)) <= Fraction(1, 10**30)


# ---------------------------------------------------------------------------
# dp-accounting (optional peer)
# ---------------------------------------------------------------------------


def _dp():
    return pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")


def _theirs(q, sigma, alpha) -> float:
    r = _dp()
    with np.errstate(all="ignore"):
        return float(r._compute_log_a(float(q), float(sigma), float(alpha))) / (float(alpha) - 1)


def _assert_close(ball, theirs, rel):
    lo, hi = endpoints(ball)
    t = Fraction(theirs)
    tol = abs(t) * rel
    assert lo - tol <= t <= hi + tol, (ball.str(20), theirs)


@pytest.mark.peers
@pytest.mark.parametrize("q", ["1e-6", "0.01", "0.9"])
@pytest.mark.parametrize("sigma", ["0.7", "4"])
@pytest.mark.parametrize("alpha", ["2", "10", "256"])
def test_agrees_with_dp_accounting_at_integer_orders(q, sigma, alpha):
    # dp-accounting's integer path is a float log-sum-exp of the binomial terms:
    # it loses relative accuracy only when log A is tiny (q = 1e-6: ~2e-8)
    theirs = _theirs(q, sigma, alpha)
    assert math.isfinite(theirs)
    _assert_close(certified(alpha, q, sigma), theirs, Fraction(1, 10**7))


@pytest.mark.peers
@pytest.mark.parametrize("q", ["0.001", "0.1"])
@pytest.mark.parametrize("sigma", ["0.7", "4"])
@pytest.mark.parametrize("alpha", ["10.5", "63.5"])
def test_agrees_with_dp_accounting_at_larger_fractional_orders(q, sigma, alpha):
    # away from alpha ~ 1 dp-accounting's fractional series converges to ~1e-7
    theirs = _theirs(q, sigma, alpha)
    assert math.isfinite(theirs)
    _assert_close(certified(alpha, q, sigma), theirs, Fraction(1, 10**7))


@pytest.mark.peers
@pytest.mark.parametrize(
    "q,sigma,alpha,low,high",
    [
        ("0.01", "1.1", "1.5", "0.031", "0.033"),
        pytest.param("0.1", "4", "1.5", "0.73", "0.74", marks=pytest.mark.slow),
        pytest.param("0.01", "0.7", "1.5", "0.11", "0.12", marks=pytest.mark.slow),
        pytest.param("0.1", "1.1", "3.25", "0.0016", "0.0017", marks=pytest.mark.slow),
    ],
)
def test_dp_accounting_over_reports_near_order_one(q, sigma, alpha, low, high):
    # documents peer behaviour: at fractional orders close to 1 dp-accounting's
    # finite value is too large by percents (the safe direction, but not the RDP);
    # ours contains the mpmath reference
    theirs = Fraction(_theirs(q, sigma, alpha))
    ball = certified(alpha, q, sigma)
    ref = poisson_gaussian_rdp_mp(Fraction(alpha), Fraction(q), Fraction(sigma), 50)
    assert encloses(ball, ref, REF_REL)
    lo, hi = endpoints(ball)
    assert Fraction(low) < theirs / hi - 1 and theirs / lo - 1 < Fraction(high)


@pytest.mark.peers
@pytest.mark.parametrize(
    "q,sigma,alpha",
    [("0.1", "0.5", "1.25"), ("0.5", "5", "1.5")]
    + [
        pytest.param(*p, marks=pytest.mark.slow)
        for p in [("0.1", "0.75", "1.25"), ("0.1", "1", "1.5"), ("0.1", "0.5", "1.5"), ("0.5", "2", "1.25")]
    ],
)
def test_dp_accounting_returns_inf_where_ours_is_finite(q, sigma, alpha):
    theirs = _theirs(q, sigma, alpha)
    assert theirs == math.inf  # documents the peer's behaviour (it then drops the order)
    ball = certified(alpha, q, sigma)
    ref = poisson_gaussian_rdp_mp(Fraction(alpha), Fraction(q), Fraction(sigma), 50)
    assert ball.is_finite() and encloses(ball, ref, REF_REL)


@pytest.mark.peers
def test_dp_accounting_under_reports_at_fractional_order():
    r = _dp()
    theirs = Fraction(float(r._compute_log_a(1e-4, 0.8, 10.5)))
    with workprec(200):
        la = log_a_fractional(
            to_arb(Fraction(21, 2)), to_arb(Fraction(1, 10**4)), to_arb(Fraction(4, 5)), 200, math.log(1.9e-6)
        )
    lo, _hi = endpoints(la)
    assert theirs < lo  # below the certified lower end: an under-report
    shortfall = (lo - theirs) / lo
    assert Fraction("3.6e-9") < shortfall < Fraction("3.8e-9")


# ---------------------------------------------------------------------------
# monotonicity (hypothesis): compare certified balls where decidable
# ---------------------------------------------------------------------------

_q = st.floats(min_value=-8, max_value=0).map(lambda u: Fraction(f"{10**u:.3g}"))
_sigma = st.floats(min_value=-1, max_value=2).map(lambda u: Fraction(f"{10**u:.3g}"))
_alpha = st.floats(min_value=-2, max_value=2.3).map(lambda u: Fraction(f"{1 + 10**u:.4g}"))


@settings(max_examples=12, deadline=None)
@given(_q, _q, _sigma, _alpha, _alpha)
def test_increasing_in_order_and_sampling_probability(q1, q2, sigma, a1, a2):
    # no certified decrease in the order (at q1) or in q (at a1); a strict increase in q is
    # certified once the rates differ by 1 % or more
    (lo_a, hi_a), (lo_q, hi_q) = sorted((a1, a2)), sorted((q1, q2))
    assert not certainly_lt(certified(hi_a, q1, sigma, 10), certified(lo_a, q1, sigma, 10))
    lower, upper = certified(a1, lo_q, sigma, 10), certified(a1, hi_q, sigma, 10)
    assert not certainly_lt(upper, lower)
    assert lo_q == hi_q or certainly_lt(lower, upper) or hi_q / lo_q < Fraction(101, 100)


@settings(max_examples=12, deadline=None)
@given(_q, _sigma, _sigma, _alpha)
def test_decreasing_in_sigma(q, s1, s2, a):
    if s1 == s2:
        return
    lo_s, hi_s = min(s1, s2), max(s1, s2)
    assert not certainly_lt(certified(a, q, lo_s, 10), certified(a, q, hi_s, 10))


if __name__ == "__main__" and "--regenerate" in sys.argv:
    _regenerate()
