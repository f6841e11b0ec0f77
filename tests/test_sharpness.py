"""Sharpness suite: the default certified value is the smallest valid bound the toolkit has.

For each configuration (every sampling scheme and adjacency, sigma 0.3..100, q 1e-8..0.99,
orders 1.01..1e5, T up to 1e6) we compute independently in mpmath the smallest valid bound
for that event (the minimum over every bound the toolkit implements, from
``rigorous_rdp.reference``) and check that the certified upper end is within (1 + 1e-6) of it;
and that it is never below the exact value or a known lower bound (an explicit neighbouring
pair's divergence by quadrature, Wang et al. 2019 (133), Birrell et al. Thm 3.7, Zhu & Wang Thm 6).
Heavy configurations are marked ``slow``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction as F

import mpmath
import pytest
from _refcheck import endpoints, mp_fraction

import rigorous_rdp.reference.fswor as rf
from rigorous_rdp.accountant import RdpAccountant
from rigorous_rdp.arith import workprec
from rigorous_rdp.curves import bound_name
from rigorous_rdp.events import (
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RandomizedResponseEvent,
)
from rigorous_rdp.reference import sharp as S
from rigorous_rdp.reference.fixed_size_misc import fswr_lower_exact_mp, fswr_upper_mp, wang_lower_mp
from rigorous_rdp.reference.gaussian import gaussian_rdp_mp, poisson_gaussian_rdp_mp
from rigorous_rdp.reference.zhu_wang import base_rdp_mp, theorem8_mp
from rigorous_rdp.registry import rdp_curve

TOL = F(1, 10**6)


def _m(x) -> mpmath.mpf:
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


@dataclass
class Case:
    id: str
    event: object
    alpha: F
    smallest: Callable[[], mpmath.mpf]  # smallest valid bound, one step (mpmath)
    lower: Callable[[], mpmath.mpf] | None = None  # exact value or a lower bound, one step
    expect: str | None = None  # substring of the winning bound's name
    slow: bool = False


# -- lower bounds (one explicit neighbouring pair, or a theorem) ---------------------------


def _pg_lower(q, sigma, alpha, dps=30):
    """D_alpha(qN(1,s^2)+(1-q)N(0,s^2) || N(0,s^2)): the pair "one record with gradient 1 added"
    (add/remove) or "gradient 0 replaced by 1" (replace-one), every other gradient 0; for
    fixed-size sampling the record is in the batch with probability q = |B|/|D|."""
    method = "binomial" if F(alpha).denominator == 1 else "quad"  # integer orders: the exact binomial sum
    return poisson_gaussian_rdp_mp(F(alpha), F(q), F(sigma), dps, method=method)


def _laplace_pair(b, q, alpha):
    with mpmath.workdps(30):
        bb, qq, aa = _m(b), _m(q), _m(alpha)

        def lap(z, mu):
            return mpmath.exp(-abs(z - mu) / bb) / (2 * bb)

        def mix(z):
            return (1 - qq) * lap(z, 0) + qq * lap(z, 1)

        pts = [-mpmath.inf, 0, 1, mpmath.inf]
        d1 = mpmath.log(mpmath.quad(lambda z: mix(z) ** aa * lap(z, 0) ** (1 - aa), pts)) / (aa - 1)
        d2 = mpmath.log(mpmath.quad(lambda z: lap(z, 0) ** aa * mix(z) ** (1 - aa), pts)) / (aa - 1)
        return max(d1, d2)


def _rr_pair(p, q, alpha):
    with mpmath.workdps(40):
        pp, qq, aa = _m(p), _m(q), _m(alpha)
        mu0, mu1 = [1 - pp, pp], [pp, 1 - pp]
        nu = [(1 - qq) * mu0[i] + qq * mu1[i] for i in range(2)]
        d1 = mpmath.log(mpmath.fsum(nu[i] ** aa * mu0[i] ** (1 - aa) for i in range(2))) / (aa - 1)
        d2 = mpmath.log(mpmath.fsum(mu0[i] ** aa * nu[i] ** (1 - aa) for i in range(2))) / (aa - 1)
        return max(d1, d2)


def _zw_thm6(kind, param, q, alpha):
    return theorem8_mp(int(alpha), F(q), lambda ell: base_rdp_mp(kind, param, ell, 40), 40)


# -- the smallest valid bounds -------------------------------------------------------------


def _fswor_ro_smallest(sigma, b, n, alpha):
    """min(Thm 3.4 over all m = 3..12, Wang et al. Thm 9)."""
    from rigorous_rdp.reference.fixed_size_misc import wang_upper_mp

    with mpmath.workdps(40):
        t = S.fswor_replace_one_auto_reference(alpha, F(b, n), sigma, rtol=None)
        return min(t, wang_upper_mp(F(alpha), F(sigma), F(b, n), dps=40))


def _pure_dp_smallest(inner, q, alpha):
    return S.poisson_pure_dp_default_reference(inner, F(q), F(alpha), 40)


G = GaussianEvent
P = PoissonSampledEvent
FS = FixedSizeSampledEvent
RO = "replace-one"

# One constructor per family: the event, the smallest valid bound and the lower bound of a
# configuration follow from its parameters (q, sigma, alpha; batch and dataset sizes).


def _pois_ar(cid, q, sigma, alpha, slow=False):
    """Poisson, add/remove: exact (the certified value is the divergence itself). The slow cases are
    at large integer orders, where the reference is the binomial sum of the FSwoR add/remove
    reference with noise 2 sigma (the mixture with noise 2 sigma / 2 = sigma)."""
    if slow:
        return Case(
            cid, P(G(sigma), q), F(alpha), lambda: S.fswor_add_remove_exact_reference(alpha, q, 2 * sigma), slow=True
        )
    return Case(
        cid,
        P(G(sigma), q),
        F(alpha),
        lambda: poisson_gaussian_rdp_mp(F(alpha), F(q), F(sigma), 30),
        _pair(q, sigma, alpha),
    )


def _pois_ro(cid, q, sigma, alpha, expect=None, slow=False):
    """Poisson, replace-one: min(Thm C.9, weak triangle, 2 alpha / sigma^2)."""
    return Case(
        cid,
        P(G(sigma), q, RO),
        F(alpha),
        lambda: S.poisson_replace_one_default_reference(alpha, q, sigma),
        _pair(q, sigma, alpha),
        expect,
        slow,
    )


def _fswor_ar(cid, sigma, b, n, alpha, expect=None, slow=False):
    """FSwoR, add/remove: Thm 3.1 (6) exactly."""
    lower = None if slow else _pair(F(b, n), sigma, alpha)
    return Case(
        cid,
        FS(G(sigma), b, n),
        F(alpha),
        lambda: S.fswor_add_remove_exact_reference(alpha, F(b, n), sigma),
        lower,
        expect,
        slow,
    )


def _pair(q, sigma, alpha):
    """The lower bound of one explicit neighbouring pair (:func:`_pg_lower`), evaluated when the case runs."""
    return lambda: _pg_lower(q, sigma, alpha)


def _fswor_ro(cid, sigma, b, n, alpha, lower=None, expect=None, slow=False):
    """FSwoR, replace-one: min(Thm 3.4 over m, Wang et al. Thm 9); lower bound ``lower`` (default: the
    Poisson pair; ``_wang(...)``: Wang et al. (133))."""
    low = lower or _pair(F(b, n), sigma, alpha)
    event = FS(G(sigma), b, n, adjacency=RO)
    return Case(cid, event, F(alpha), lambda: _fswor_ro_smallest(sigma, b, n, alpha), low, expect, slow)


def _wang(alpha, sigma, q):
    return lambda: wang_lower_mp(alpha, sigma, q)


def _fswr(cid, sigma, b, n, alpha, exact_lower=False, slow=False):
    """FSwR, add/remove: Thm 3.6; lower bound Thm 3.7 by enumeration (``exact_lower``) or the Poisson pair."""
    low = (lambda: fswr_lower_exact_mp(alpha, F(sigma), b, n)) if exact_lower else _pair(F(b, n), sigma, alpha)
    event = FS(G(sigma), b, n, replacement=True)
    return Case(cid, event, F(alpha), lambda: fswr_upper_mp(F(alpha), F(sigma), b, n, 40), low, slow=slow)


def _pure(cid, inner, q, alpha, lower, expect=None):
    """Poisson-subsampled Laplace / randomized response: min(Zhu-Wang Thm 8 + Lemma 4 cap, second-moment bound)."""
    return Case(cid, P(inner, q), F(alpha), lambda: _pure_dp_smallest(inner, q, alpha), lower, expect)


def _gauss(cid, sigma, alpha):
    """No sampling: the Gaussian mechanism, whose RDP is exact."""
    return Case(
        cid,
        G(sigma),
        F(alpha),
        lambda: gaussian_rdp_mp(F(alpha), F(sigma), 30),
        lambda: gaussian_rdp_mp(F(alpha), F(sigma), 30),
    )


LAP, RR = LaplaceEvent, RandomizedResponseEvent
WT, C9 = "weak-triangle", "poisson-gaussian-replace-one"
CASES = [
    _pois_ar("pois-ar-q1e-8-s0.3-a1.01", F(1, 10**8), F(3, 10), F(101, 100)),
    _pois_ar("pois-ar-q0.01-s1-a1.5", F(1, 100), 1, F(3, 2)),
    _pois_ar("pois-ar-q1e-3-s20-a1e4", F(1, 1000), 20, 10**4, slow=True),
    _pois_ar("pois-ar-q0.99-s100-a1e5", F(99, 100), 100, 10**5, slow=True),
    _pois_ro("pois-ro-q0.1-s0.5-a2", F(1, 10), F(1, 2), 2, WT),
    # the weak-triangle bound wins, as at pois-ro-q0.1-s0.5-a2 (default run)
    _pois_ro("pois-ro-q1e-5-s0.4-a2", F(1, 10**5), F(2, 5), 2, WT, slow=True),
    _pois_ro("pois-ro-q0.5-s1-a1.5", F(1, 2), 1, F(3, 2), WT, slow=True),
    _pois_ro("pois-ro-q0.0024-s6-a4", F(3, 1250), 6, 4, C9),
    _pois_ro("pois-ro-q1e-8-s0.3-a1.01", F(1, 10**8), F(3, 10), F(101, 100), slow=True),
    _pois_ro("pois-ro-q0.99-s2-a3", F(99, 100), 2, 3),
    _fswor_ar("fswor-ar-s1-120-50000-a1.687", 1, 120, 50000, F(1687, 1000), "fswor-add-remove-exact"),
    _fswor_ar("fswor-ar-s20-999-1000-a1.01", 20, 999, 1000, F(101, 100), "fswor-add-remove-exact"),
    _fswor_ar("fswor-ar-s6-120-50000-a64", 6, 120, 50000, 64),
    _fswor_ar("fswor-ar-s0.3-q1e-8-a2", F(3, 10), 1, 10**8, 2),
    _fswor_ar("fswor-ar-s100-99-100-a1e5", 100, 99, 100, 10**5, slow=True),
    _fswor_ro("fswor-ro-s6-120-50000-a16", 6, 120, 50000, 16, _wang(16, 6, F(120, 50000)), "fswor-replace-one"),
    _fswor_ro("fswor-ro-s2-10-1000-a2.5", 2, 10, 1000, F(5, 2)),
    _fswor_ro("fswor-ro-s0.3-1-1000-a2", F(3, 10), 1, 1000, 2, _wang(2, F(3, 10), F(1, 1000))),
    _fswor_ro("fswor-ro-s6-120-50000-a200", 6, 120, 50000, 200, _wang(200, 6, F(120, 50000)), "wang2019", slow=True),
    _fswor_ro("fswor-ro-s50-1-1e6-a1.01", 50, 1, 10**6, F(101, 100)),
    _fswr("fswr-s6-120-50000-a2", 6, 120, 50000, 2),
    _fswr("fswr-s6-120-50000-a1.5", 6, 120, 50000, F(3, 2), slow=True),
    _fswr("fswr-s2-3-1000-a3", 2, 3, 1000, 3, exact_lower=True),
    _pure(
        "lap-b1-q0.1-a1.5", LAP(1), F(1, 10), F(3, 2), lambda: _laplace_pair(1, F(1, 10), F(3, 2)), "small-order-chi2"
    ),
    _pure(
        "lap-b10-q1e-3-a1.01",
        LAP(10),
        F(1, 1000),
        F(101, 100),
        lambda: _laplace_pair(10, F(1, 1000), F(101, 100)),
        "small-order-chi2",
    ),
    _pure("lap-b2-q1e-3-a10", LAP(2), F(1, 1000), 10, lambda: _zw_thm6("laplace", 2, F(1, 1000), 10), "zhu-wang-tight"),
    _pure(
        "rr-p0.6-q1e-3-a1.01", RR(F(3, 5)), F(1, 1000), F(101, 100), lambda: _rr_pair(F(3, 5), F(1, 1000), F(101, 100))
    ),
    _pure("rr-p0.9-q0.5-a1.5", RR(F(9, 10)), F(1, 2), F(3, 2), lambda: _rr_pair(F(9, 10), F(1, 2), F(3, 2))),
    _pure("rr-p0.75-q0.99-a100", RR(F(3, 4)), F(99, 100), 100, lambda: _rr_pair(F(3, 4), F(99, 100), 100)),
    _pure("rr-p0.6-q1e-8-a2", RR(F(3, 5)), F(1, 10**8), 2, lambda: _rr_pair(F(3, 5), F(1, 10**8), 2)),
    _gauss("gauss-s0.3-a1e5", F(3, 10), 10**5),
    _gauss("gauss-s100-a1.01", 100, F(101, 100)),
]


def _params():
    return [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.slow else []) for c in CASES]


def test_at_least_thirty_configurations():
    assert len(CASES) >= 30
    kinds = {
        (type(c.event).__name__, getattr(c.event, "replacement", None), str(getattr(c.event, "adjacency", "")))
        for c in CASES
    }
    assert len(kinds) >= 6


_REF_MOMENT = rf.ref_moment_m  # the reference's own function (the fixture below patches the module)


@functools.cache
def _moment(k, sigma, prec):
    with mpmath.workprec(prec):
        return _REF_MOMENT(k, sigma)


@pytest.fixture
def cached_moments(monkeypatch):
    """Memoise the mpmath moments M_{sigma,k} of the FSwoR reference (they are recomputed for
    every term of the transcribed sums otherwise); same values, keyed on the precision, shared by
    all the cases of this module."""
    monkeypatch.setattr(rf, "ref_moment_m", lambda k, sigma: _moment(k, F(sigma), mpmath.mp.prec))


@pytest.mark.parametrize("case", _params())
def test_default_is_the_smallest_valid_bound(case, cached_moments):
    curve = rdp_curve(case.event)
    with workprec(128):
        ball = curve.certified(case.alpha)
        won = bound_name(curve, case.alpha)
    _lo, hi = endpoints(ball)
    smallest = mp_fraction(case.smallest())
    assert hi <= smallest * (1 + TOL), (case.id, float(hi), float(smallest), won)
    if case.lower is not None:
        lower = mp_fraction(case.lower())
        assert hi >= lower * (1 - F(1, 10**12)), (case.id, float(hi), float(lower))
    if case.expect is not None:
        assert case.expect in won, (case.id, won)


# -- epsilons after T steps: the RDP at the chosen order is the smallest valid bound --------

EPS_CASES = [
    # (id, event, T, delta, reference one-step RDP at an order, expected epsilon (if known), slow)
    (
        "fswor-ar-issue",
        FS(G(1), 120, 50000),
        104167,
        F(1, 10**5),
        lambda a: S.fswor_add_remove_exact_reference(a, F(120, 50000), 1),
        "38.52",
        False,
    ),
    (
        "fswor-ro-fig3",
        FS(G(6), 120, 50000, adjacency=RO),
        104167,
        F(1, 10**5),
        lambda a: _fswor_ro_smallest(6, 120, 50000, a),
        None,
        True,
    ),
    (
        "pois-ar-T1e6",
        P(G(2), F(1, 10**4)),
        10**6,
        F(1, 10**8),
        lambda a: poisson_gaussian_rdp_mp(F(a), F(1, 10**4), F(2), 30),
        None,
        False,
    ),
]


@pytest.mark.parametrize(
    "cid,event,T,delta,ref,expected,slow",
    [pytest.param(*c, id=c[0], marks=[pytest.mark.slow] if c[-1] else []) for c in EPS_CASES],
)
def test_epsilon_at_chosen_order(cid, event, T, delta, ref, expected, slow, cached_moments):
    res = RdpAccountant().compose(event, T).get_epsilon_and_order(delta)
    alpha = F(res.order) if not isinstance(res.order, F) else res.order
    _lo, hi = endpoints(res.rdp.ball)
    smallest = mp_fraction(ref(alpha)) * T
    assert hi <= smallest * (1 + TOL), (cid, float(hi), float(smallest))
    if expected is not None:
        _e_lo, e_hi = endpoints(res.epsilon.ball)
        assert abs(float(e_hi) / float(expected) - 1) < 1e-3, (cid, float(e_hi))
