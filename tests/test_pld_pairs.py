"""The PLD pairs of :mod:`rigorous_rdp.pld.pairs`: Poisson-sampled Laplace and randomized response
(add/remove), the replace-one Gaussian pair (Poisson and fixed-size without replacement), and
heterogeneous ledgers.

References are independent: mpmath from the densities (root finding of the likelihood ratio,
quadrature, exact binomial sums, the replace-one pair's loss measure), never the arb code.
The proofs of the pairs are proofs/verify_pld_pairs.py.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction as F

import mpmath
import pytest

from rigorous_rdp import (
    Adjacency,
    ComposedEvent,
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RandomizedResponseEvent,
    RdpAccountant,
    UnsupportedEventError,
)
from rigorous_rdp.arith import workprec
from rigorous_rdp.certificate import content_hash, describe_event, event_to_json, verify_certificate
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.pld.certificate_support import make_pld_certificate
from rigorous_rdp.pld.pairs import (
    poisson_laplace_profile,
    poisson_randomized_response_profile,
    replace_one_gaussian_profile,
)
from rigorous_rdp.reference import pld as ref

R1 = Adjacency.REPLACE_ONE


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _contains(ball, value, rel: float = 1e-12) -> bool:
    lo = mpmath.mpf(ball.lower().str(30, radius=False))
    hi = mpmath.mpf(ball.upper().str(30, radius=False))
    slack = mpmath.mpf(rel) * (1 + abs(value))
    return lo - slack <= value <= hi + slack


EPS = [F(-3), F(-1, 2), F(-1, 20), F(0), F(1, 50), F(1, 7), F(1, 2), F(2)]


# ---------------------------------------------------------------------------
# single profiles against independent mpmath values
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("q,b", [(F(1, 100), F(1)), (F(1, 5), F(1, 2)), (F(3, 4), F(3))])
def test_poisson_laplace_oracle_against_densities(q, b, direction):
    prof = poisson_laplace_profile(q, b, direction)
    mpmath.mp.dps = 30
    for e in EPS:
        pt = prof.oracle(e)
        want = ref.single_delta("poisson-laplace", (q, b), direction, e)
        assert _contains(pt.delta, want), (e, pt.delta, want)
        assert _contains(pt.dlow, want - (1 - mpmath.exp(_mp(e))))
        _check_slopes(prof, e)


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("q,p", [(F(1, 100), F(3, 4)), (F(1, 3), F(1, 10)), (F(1, 2), F(1, 2))])
def test_poisson_randomized_response_oracle_exact(q, p, direction):
    prof = poisson_randomized_response_profile(q, p, direction)
    mpmath.mp.dps = 30
    for e in EPS:
        want = ref.single_delta("poisson-rr", (q, p), direction, e)
        assert _contains(prof.oracle(e).delta, want), e
        _check_slopes(prof, e)


@pytest.mark.parametrize("q,sigma", [(F(1, 100), F(2)), (F(1, 5), F(1)), (F(1, 2), F(6))])
def test_replace_one_oracle_against_its_loss_measure(q, sigma):
    """The profile (closed forms, max of the Poisson pairs with sigma/2) against the delta of
    the pair's loss measure integrated in mpmath (proofs/verify_pld_pairs.py, step 5)."""
    prof = replace_one_gaussian_profile(q, sigma)
    for e in (F(-1), F(-1, 20), F(0), F(1, 10), F(1)):
        want = ref.replace_one_gaussian_delta(q, sigma, 1, e, dps=20)
        assert _contains(prof.oracle(e).delta, want, rel=1e-12), e
        _check_slopes(prof, e)


def _check_slopes(prof, e: F) -> None:
    """qgt / qge are the negated right / left derivatives of delta in x = e^eps (the lower
    discretisation relies on them): checked by difference quotients, which bracket them by convexity."""
    h = F(1, 10**6)
    mpmath.mp.dps = 30
    with workprec(200):
        pt = prof.oracle(e)
        up, dn = prof.oracle(e + h), prof.oracle(e - h)

    def mid(x):
        return mpmath.mpf(x.mid().str(30, radius=False))

    x0, x1, xm = (mpmath.exp(_mp(v)) for v in (e, e + h, e - h))
    right = (mid(up.delta) - mid(pt.delta)) / (x1 - x0)
    left = (mid(pt.delta) - mid(dn.delta)) / (x0 - xm)
    tol = mpmath.mpf(10) ** -9
    qgt, qge = mid(pt.qgt), mid(pt.qge)
    assert 0 <= qgt <= qge + tol <= 1 + 2 * tol
    # convexity: left quotient <= -qge <= -qgt <= right quotient
    assert left <= -qge + tol and -qgt <= right + tol, (e, left, -qge, -qgt, right)


def test_q_one_is_the_unsampled_mechanism():
    from rigorous_rdp.pld.profiles import laplace_profile, randomized_response_profile

    for e in EPS:
        a, b = poisson_laplace_profile(F(1), F(2), "remove").oracle(e), laplace_profile(F(2)).oracle(e)
        assert a.delta.overlaps(b.delta) and a.qge.overlaps(b.qge)
        c = poisson_randomized_response_profile(F(1), F(4, 5), "add").oracle(e)
        assert c.delta.overlaps(randomized_response_profile(F(4, 5)).oracle(e).delta)


def test_bad_parameters_name_them():
    with pytest.raises(ValueError, match="q must be in"):
        poisson_laplace_profile(F(0), F(1), "remove")
    with pytest.raises(ValueError, match="sigma > 0"):
        replace_one_gaussian_profile(F(1, 2), F(0))


# ---------------------------------------------------------------------------
# composed brackets against independent references (small T)
# ---------------------------------------------------------------------------


def _delta_bracket(event, steps, eps):
    res = PldAccountant(width=F(1, 200)).compose(event, steps).get_delta_result(eps)
    return _mp(res.delta.lo_exact), _mp(res.delta.up_exact)


@pytest.mark.parametrize("steps", [1, 2])
def test_poisson_laplace_composed_contains_quadrature(steps):
    q, b, eps = F(1, 5), F(1, 2), F(1, 4)
    mpmath.mp.dps = 15
    want = max(ref.poisson_laplace_delta(q, b, steps, eps, d, dps=15) for d in ("remove", "add"))
    lo, up = _delta_bracket(PoissonSampledEvent(LaplaceEvent(b), q), steps, eps)
    assert lo <= want * (1 + mpmath.mpf(10) ** -8) and want * (1 - mpmath.mpf(10) ** -8) <= up
    assert lo > 0 and up < 1.05 * want


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("steps", [1, 2, 40])
def test_poisson_randomized_response_composed_contains_binomial_sum(steps, exact):
    """The grid path (``exact=False``) and the exact two-outcome sum (pld.two_point) against
    the binomial sum in mpmath at 60 digits."""
    q, p, eps = F(1, 4), F(9, 10), F(1, 3)
    with mpmath.workdps(60):
        want = max(ref.poisson_randomized_response_delta(q, p, steps, eps, d, dps=60) for d in ("remove", "add"))
        acc = PldAccountant(width=F(1, 200), exact=exact).compose(
            PoissonSampledEvent(RandomizedResponseEvent(p), q), steps
        )
        res = acc.get_delta_result(eps)
        lo, up = _mp(res.delta.lo_exact), _mp(res.delta.up_exact)
        assert lo <= want <= up
        assert up < (1 + (mpmath.mpf(10) ** -15 if exact else mpmath.mpf("0.05"))) * want


@pytest.mark.parametrize("steps", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_replace_one_composed_dominates_quadrature(steps):
    """Non-tight pair: the upper end bounds the pair's own delta (its loss measure integrated in
    mpmath), closely; the lower end is that of the attained pair (the Poisson pair at sigma for
    Poisson, at sigma/2 for fixed-size; proofs/verify_attained_pairs.py): positive, at most its
    delta (mpmath quadrature of the Poisson pair, both directions) and close to it."""
    q, sigma, eps = F(1, 5), F(2), F(1, 10)
    want = ref.replace_one_gaussian_delta(q, sigma, steps, eps, dps=15)
    for ev, s in (
        (PoissonSampledEvent(GaussianEvent(sigma), q, R1), sigma),
        (FixedSizeSampledEvent(GaussianEvent(sigma), 20, 100, adjacency=R1), sigma / 2),
    ):
        lo, up = _delta_bracket(ev, steps, eps)
        assert want <= up < 1.05 * want
        attained = max(ref.poisson_gaussian_delta(q, s, steps, eps, d, dps=15) for d in ("remove", "add"))
        assert 0 < lo <= attained * (1 + mpmath.mpf(10) ** -8) and lo > attained * F(95, 100)


def test_fswor_replace_one_sits_above_its_attained_configurations():
    """Fixed-size sampling, replace-one: the datasets whose common records all sit at b = -a attain
    the Poisson add/remove pairs with sigma/2 (proofs/verify_pld_pairs.py, step 6), so their certified
    lower end is a lower bound of the mechanism, below the dominating pair's upper end."""
    sigma, b, n, steps, delta = F(2), 10, 100, 200, F(1, 10**5)
    up = PldAccountant().compose(FixedSizeSampledEvent(GaussianEvent(sigma), b, n, adjacency=R1), steps)
    attained = PldAccountant().compose(PoissonSampledEvent(GaussianEvent(sigma / 2), F(b, n)), steps)
    hi = up.get_epsilon_result(delta).epsilon
    lo = attained.get_epsilon_result(delta).epsilon
    # here [9.967, 9.973] attained, 11.40 for the pair: neither R^T nor A^T alone is the worst case
    # under composition (Lebeda et al. 2024), so the gap is no error of either bound
    assert 0 < lo.lo_exact <= hi.up_exact < lo.up_exact * F(5, 4)


# ---------------------------------------------------------------------------
# heterogeneous ledgers
# ---------------------------------------------------------------------------


def _gauss_delta(mu2, e):
    if mu2 == 0:
        return max(mpmath.mpf(0), 1 - mpmath.exp(e))
    mu = mpmath.sqrt(mu2)
    return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


def _heterogeneous_reference(eps: F, direction: str) -> mpmath.mpf:
    """delta of the ledger below, composed in one direction: the finite parts (2 Poisson-sampled
    randomized responses, 2 plain ones) enumerated exactly, the Gaussians merged into one
    (mu^2 = sum 1/sigma^2), the Poisson-sampled Laplace integrated over its P-density."""
    mpmath.mp.dps = 20
    q1, p1 = F(1, 4), F(3, 4)
    atoms = ref._poisson_rr_atoms(q1, p1)
    if direction == "add":
        atoms = [(b, a) for a, b in atoms]
    rr = [(mpmath.mpf(2) / 3, mpmath.mpf(1) / 3), (mpmath.mpf(1) / 3, mpmath.mpf(2) / 3)]
    finite = [(mpmath.mpf(1), mpmath.mpf(0))]
    for pair in (atoms, atoms, rr, rr):
        finite = [(w * a, s + mpmath.log(a / b)) for w, s in finite for a, b in pair]
    mu2 = mpmath.mpf(1) / 4 + mpmath.mpf(1) / 9 + mpmath.mpf(1) / 9  # sigma 2, 3, 3
    q2, b2 = mpmath.mpf(1) / 5, mpmath.mpf(1)

    def lap(x, m):
        return mpmath.exp(-abs(x - m) / b2) / (2 * b2)

    def p_dens(x):
        return q2 * lap(x, 1) + (1 - q2) * lap(x, 0) if direction == "remove" else lap(x, 0)

    def loss(x):
        r = mpmath.log((q2 * lap(x, 1) + (1 - q2) * lap(x, 0)) / lap(x, 0))
        return r if direction == "remove" else -r

    e = _mp(eps)
    total = mpmath.mpf(0)
    for w, s in finite:
        inner = mpmath.quad(lambda x, s=s: p_dens(x) * _gauss_delta(mu2, e - s - loss(x)), [-40, 0, 1, 41])
        total += w * inner
    return total


def test_heterogeneous_ledger_contains_reference():
    ledger = ComposedEvent(
        [
            PoissonSampledEvent(RandomizedResponseEvent(F(3, 4)), F(1, 4)),
            PoissonSampledEvent(RandomizedResponseEvent(F(3, 4)), F(1, 4)),
            RandomizedResponseEvent(F(2, 3)),
            RandomizedResponseEvent(F(2, 3)),
            GaussianEvent(2),
            GaussianEvent(3),
            GaussianEvent(3),
            PoissonSampledEvent(LaplaceEvent(1), F(1, 5)),
        ]
    )
    eps = F(3, 10)
    want = max(_heterogeneous_reference(eps, d) for d in ("remove", "add"))
    lo, up = _delta_bracket(ledger, 1, eps)
    assert lo <= want * (1 + mpmath.mpf(10) ** -8) and want * (1 - mpmath.mpf(10) ** -8) <= up < 1.05 * want


def test_heterogeneous_ledger_with_a_dominating_pair_has_lower_end_zero():
    """A replace-one ledger (a pair that only dominates, mixed with unsampled mechanisms, which are
    sensitivity-1 queries under the ledger's relation): lower end 0, upper end above the tight part."""
    acc = PldAccountant()
    acc.compose(GaussianEvent(4), 50)
    acc.compose(LaplaceEvent(20), 20)
    acc.compose(PoissonSampledEvent(GaussianEvent(3), F(1, 20), R1), 10)
    res = acc.get_epsilon_result(F(1, 10**5)).epsilon
    assert res.lo_exact == 0 and res.up_exact > 0
    tight = PldAccountant()
    tight.compose(GaussianEvent(4), 50)
    tight.compose(LaplaceEvent(20), 20)
    alone = tight.get_epsilon_result(F(1, 10**5)).epsilon
    assert alone.lo_exact > 0 and alone.lo_exact < res.up_exact  # one more event can only raise epsilon


@pytest.mark.parametrize("make", [PldAccountant, RdpAccountant])
def test_a_ledger_mixing_add_remove_and_replace_one_is_refused(make):
    """A guarantee holds for one neighbouring relation: add/remove and replace-one sampled events in one
    ledger are refused (in one compose or across two), and the ledger is left unchanged."""
    add = PoissonSampledEvent(GaussianEvent(1), F(1, 100))
    rep = PoissonSampledEvent(GaussianEvent(3), F(1, 20), R1)
    acc = make().compose(add, 5)
    with pytest.raises(UnsupportedEventError, match="mixes add-remove and replace-one"):
        acc.compose(rep)
    assert not acc.supports(rep) and acc.supports(add) and make().supports(rep)
    with pytest.raises(UnsupportedEventError, match="mixes"):
        make().compose(ComposedEvent((rep, add)))
    assert float(acc.get_epsilon(F(1, 10**5))) == float(make().compose(add, 5).get_epsilon(F(1, 10**5)))


# ---------------------------------------------------------------------------
# certify -> verify, and tampering with adjacency, sampling and mechanism
# ---------------------------------------------------------------------------

NEW_ROWS = [
    PoissonSampledEvent(LaplaceEvent(1), F(1, 20)),
    PoissonSampledEvent(RandomizedResponseEvent(F(3, 4)), F(1, 20)),
    PoissonSampledEvent(GaussianEvent(2), F(1, 20), R1),
    FixedSizeSampledEvent(GaussianEvent(2), 5, 100, adjacency=R1),
]


@pytest.fixture(scope="module")
def certs():
    return [make_pld_certificate(ev, 10, F(1, 10**5)) for ev in NEW_ROWS]


def _forged(cert: dict, event) -> dict:
    """The certificate restated for another event (inputs and summary changed alike, hash renewed)."""
    bad = json.loads(json.dumps(cert))
    bad["inputs"]["event"] = event_to_json(event)
    bad["inputs"]["summary"] = describe_event(event)
    bad.pop("claim")
    bad["sha256"] = content_hash(bad)
    return bad


def test_new_rows_certify_and_verify(certs):
    for cert in certs:
        res = verify_certificate(cert)
        assert res.ok, res.reason


@pytest.mark.parametrize(
    "index,event,why",
    [
        # adjacency: replace-one -> add-remove (a tight pair with two directions)
        (2, PoissonSampledEvent(GaussianEvent(2), F(1, 20)), "directions"),
        # adjacency: add-remove -> replace-one is no row for Laplace (refused)
        (0, PoissonSampledEvent(GaussianEvent(1), F(1, 20)), ""),
        # mechanism: Laplace -> randomized response; and a weaker Laplace (scale 2)
        (0, PoissonSampledEvent(RandomizedResponseEvent(F(3, 4)), F(1, 20)), ""),
        (0, PoissonSampledEvent(LaplaceEvent(2), F(1, 20)), ""),
        # sampling: fixed-size without -> with replacement (refused), and a larger batch (a smaller
        # one would make the upper end a true claim: the lower end of this pair is 0)
        (3, FixedSizeSampledEvent(GaussianEvent(2), 5, 100, replacement=True), ""),
        (3, FixedSizeSampledEvent(GaussianEvent(2), 20, 100, adjacency=R1), ""),
        # sampling: Poisson -> unsampled
        (1, RandomizedResponseEvent(F(3, 4)), ""),
    ],
    ids=[
        "replace_one_to_add_remove",
        "laplace_to_gaussian",
        "laplace_to_rr",
        "laplace_scale",
        "fswor_to_fswr",
        "batch_size",
        "poisson_to_none",
    ],
)
def test_tampered_certificate_rejected(certs, index, event, why):
    try:
        res = verify_certificate(_forged(certs[index], event))
    except UnsupportedEventError:
        return  # refused: no pair for the stated event
    assert not res.ok, res.reason
    if why:
        assert why in res.reason


def test_fswr_refusal_names_the_missing_theorem():
    with pytest.raises(UnsupportedEventError, match="missing theorem") as exc:
        PldAccountant().compose(FixedSizeSampledEvent(GaussianEvent(2), 5, 100, replacement=True), 1)
    assert "aligned configuration" in str(exc.value)


def test_poisson_and_fswor_replace_one_share_the_pair():
    """Same pair for both samplings at q = B/N (the proof bounds both by one configuration);
    so a certificate restated from one to the other states a true claim."""
    a = PoissonSampledEvent(GaussianEvent(2), F(1, 20), R1)
    b = FixedSizeSampledEvent(GaussianEvent(2), 5, 100, adjacency=R1)
    from rigorous_rdp.registry import pld_pair

    pa, pb = pld_pair(a), pld_pair(b)
    assert pa is not None and pb is not None and pa.remove.key == pb.remove.key and not pa.tight
    assert math.isclose(pa.remove.screen_delta(0.3), pb.remove.screen_delta(0.3))


def test_birrell_fig3_pair_bracket_is_narrow_and_above_the_rdp_bound(monkeypatch):
    """Birrell et al. Fig. 3 (sigma 6, B = 120, N = 50,000, 250 epochs, delta 1e-5), replace-one: the
    epsilon of the pair V itself is bracketed to width <= 0.01 (the pair composed with its own lower
    end), and its lower end is above the certified RDP bound: since V is the best single dominating
    pair of this step (proofs/verify_pld_pairs.py, step 6), composing one pair per step cannot beat RDP
    here. The accountant's own answer for the event is the upper end, with the attained pair's lower end."""
    from rigorous_rdp import RdpAccountant
    from rigorous_rdp.pld import accountant as pld_accountant
    from rigorous_rdp.pld.profiles import DominatingPair

    event = FixedSizeSampledEvent(GaussianEvent(6), 120, 50000, adjacency=R1)
    steps, delta = 104167, F(1, 10**5)
    rdp = RdpAccountant().compose(event, steps).get_epsilon(delta)
    plain = PldAccountant().compose(event, steps).get_epsilon_result(delta).epsilon
    v = replace_one_gaussian_profile(F(120, 50000), F(6))
    monkeypatch.setattr(pld_accountant, "pld_pair", lambda _e: DominatingPair(v, v, tight=True))
    own = PldAccountant(width=F(1, 200)).compose(event, steps).get_epsilon_result(delta).epsilon
    # the accountant's lower end is the attained pair's, bracketed finer (0.99091 in
    # docs/explanations/pld-coverage.md; float peers give about 0.99173 for that pair)
    assert F(99, 100) < plain.lo_exact < F(9918, 10000) and own.lo_exact <= plain.up_exact
    assert own.up_exact - own.lo_exact <= F(1, 100)
    assert float(rdp.upper()) < float(own.lo_exact)
