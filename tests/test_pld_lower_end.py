"""Lower ends of replace-one PLD brackets (pairs that only dominate): the attained pair of one pair of
neighbouring datasets, both roles, bracketed finer than the main bracket (``ATTAINED_REFINE``).

Independent values: the attained pair's optimal delta by mpmath (closed form at T = 1, quadrature at
T = 2: :mod:`rigorous_rdp.reference.pld`), and dp-accounting's float PLD at a fine discretisation."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest
from _cli import cmd, run_cli

from rigorous_rdp import FixedSizeSampledEvent, GaussianEvent, PoissonSampledEvent
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.pld.accountant import ATTAINED_REFINE
from rigorous_rdp.reference import pld as ref

R1 = "replace-one"
FIG3 = "--sampling fswor --adjacency replace-one --sigma 6 --batch-size 120 --dataset-size 50000 --steps 104167"


def _attained_delta(q: F, s: F, steps: int, eps: F) -> mpmath.mpf:
    """The larger direction's optimal delta of the attained pair (both roles of the same datasets)."""
    return max(ref.poisson_gaussian_delta(q, s, steps, eps, d, dps=15) for d in ("remove", "add"))


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


@pytest.mark.parametrize(
    ("event", "q", "s"),
    [
        (FixedSizeSampledEvent(GaussianEvent(1), 3, 10, adjacency=R1), F(3, 10), F(1, 2)),
        (PoissonSampledEvent(GaussianEvent(1), F(1, 5), R1), F(1, 5), F(1)),
    ],
    ids=["fswor", "poisson"],
)
@pytest.mark.parametrize("steps", [1, 2])
def test_lower_end_is_valid_and_within_the_finer_width(event, q, s, steps):
    """The reported lower end eps_l is below the attained pair's optimal epsilon (its delta at eps_l
    exceeds the target) and within the finer width of it (its delta at eps_l + 2 w / ATTAINED_REFINE is
    below the target): the default width alone would leave up to w."""
    delta, w = F(1, 10**3), F(1, 100)
    res = PldAccountant(width=w).compose(event, steps).get_epsilon_result(delta)
    lo = res.epsilon.lo_exact
    assert res.lower_end and 0 < lo < res.epsilon.up_exact
    assert _attained_delta(q, s, steps, lo) > _mp(delta)
    assert _attained_delta(q, s, steps, lo + 2 * w / ATTAINED_REFINE) <= _mp(delta)


def test_delta_lower_end_is_below_the_attained_pair():
    """delta queries: the lower end is at most the attained pair's delta and close to it."""
    q, s, eps = F(3, 10), F(1, 2), F(1, 2)
    event = FixedSizeSampledEvent(GaussianEvent(1), 3, 10, adjacency=R1)
    res = PldAccountant().compose(event, 2).get_delta_result(eps)
    want = _attained_delta(q, s, 2, eps)
    lo = _mp(res.delta.lo_exact)
    assert want * mpmath.mpf(0.99) < lo <= want * (1 + mpmath.mpf(10) ** -8)


def test_birrell_fig3_lower_end_is_sharp_and_below_the_float_peer():
    """Birrell et al. Fig. 3, replace-one fixed-size: the lower end (the attained Poisson pair, q = B/N,
    noise sigma/2 = 3, the larger direction) is above 0.99 and below dp-accounting's pessimistic float
    estimate of that pair's epsilon at discretisation 1e-5 (about 0.99173; the add direction 0.98734)."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    status, out, _ = run_cli(cmd(f"epsilon {FIG3} --delta 1e-5 --method pld --json"))
    assert status == 0
    lo = F(json.loads(out)["epsilon"]["lower"])
    peer = pld.from_gaussian_mechanism(
        3.0, sampling_prob=0.0024, value_discretization_interval=1e-5, pessimistic_estimate=True
    ).self_compose(104167)
    want = max(peer._pmf_remove.get_epsilon_for_delta(1e-5), peer._pmf_add.get_epsilon_for_delta(1e-5))
    assert F(99, 100) < lo < F(want)
    assert abs(want - 0.9917) < 1e-3  # the peer itself converged (at 1e-4 it still says 0.99304)


def test_best_reports_the_true_value_bracket():
    """--method best picks the RDP bound at Fig. 3, and its JSON (and text) carry the bracket of the true
    epsilon: the PLD's lower end (attained pair) and the chosen upper end."""
    status, out, _ = run_cli(cmd(f"epsilon {FIG3} --delta 1e-5 --json"))
    assert status == 0
    res = json.loads(out)
    assert res["chosen"] == "rdp"
    tv = res["true_value"]
    assert tv["lower"] == res["candidates"]["pld"]["epsilon"]["lower"]
    assert tv["upper"] == res["epsilon"]["upper"]
    assert F(99, 100) < F(tv["lower"]) < F(tv["upper"]) < F(1117, 1000)
    status, text, _ = run_cli(cmd(f"epsilon {FIG3} --delta 1e-5"))
    assert status == 0 and f"(larger; its lower end {tv['lower']} bounds the true epsilon)" in text


def test_best_has_no_true_value_without_a_pld_lower_end():
    """A dominating pair without an attained one (fixed-size add/remove) has lower end 0: no bracket."""
    status, out, _ = run_cli(
        cmd("epsilon --sampling fswor --sigma 6 --batch-size 120 --dataset-size 50000 --steps 1000 --delta 1e-5 --json")
    )
    res = json.loads(out)
    assert status == 0 and "true_value" not in res


def test_delta_of_a_dominating_pair_is_refined_to_its_own_delta():
    """Fixed-size add/remove (pairs that only dominate: the Poisson pairs with sigma/2; sigma 6, B = 120,
    N = 50,000, 1000 steps, epsilon 0.05): the delta query refines the grid by the pairs' own bracket
    (guarded by its array's length). On the first grid alone the upper end was 0.139; refined it is
    within 1% of dp-accounting's pessimistic float PLD of the same pairs (discretisation 1e-5), and
    above its optimistic one."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    res = PldAccountant().compose(FixedSizeSampledEvent(GaussianEvent(6), 120, 50000), 1000).get_delta_result(F(1, 20))
    up = float(res.delta.up_exact)
    peers = [
        pld.from_gaussian_mechanism(
            3.0, sampling_prob=0.0024, value_discretization_interval=1e-5, pessimistic_estimate=pess
        )
        .self_compose(1000)
        .get_delta_for_epsilon(0.05)
        for pess in (True, False)
    ]
    assert res.delta.lo_exact == 0
    assert peers[1] * (1 - 1e-6) <= up <= peers[0] * 1.01


def test_refinement_guard_decides_by_length_only():
    """The guard of the dominating refinement: a finer grid whose array would exceed DOMINATING_REFINE_LENGTH
    entries is not tried; no measured time enters the decision (the answer does not depend on the load)."""
    from rigorous_rdp import budget
    from rigorous_rdp.pld.accountant import DOMINATING_REFINE_LENGTH, _affordable

    assert _affordable(2.0, 1000)
    assert _affordable(2.0, DOMINATING_REFINE_LENGTH // 2)
    assert not _affordable(2.0, DOMINATING_REFINE_LENGTH // 2 + 1)  # just past the length cap
    with budget.time_budget(1e-3):  # a budget in force changes nothing
        assert _affordable(2.0, 1000)


def test_share_of_the_budget_stops_a_never_ending_grid():
    """A guarded finer grid runs within REFINE_TIME_SHARE of the time left: a computation that never ends
    is stopped there and gives None (the budget in force is not exhausted); without a budget it just runs."""
    from rigorous_rdp import budget
    from rigorous_rdp.pld.accountant import _within_share

    def forever() -> int:
        while True:
            budget.check("a never-ending grid")

    assert _within_share(lambda: 7) == 7  # no budget in force
    with budget.time_budget(0.5):
        assert _within_share(forever) is None
        assert not budget.expired() and budget.remaining() > 0


def test_dominating_delta_keeps_its_first_grid_when_the_finer_one_runs_out(monkeypatch):
    """The delta query of the fixed-size add/remove pairs refines its grid (see above); with the refined grid's
    share of the budget cut to a microsecond (the finer grid cannot finish) it returns the first grid's bracket,
    still valid (above dp-accounting's optimistic float PLD of the same pairs), instead of failing."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from rigorous_rdp import budget
    from rigorous_rdp.pld import accountant

    ev = FixedSizeSampledEvent(GaussianEvent(6), 120, 50000)
    first = PldAccountant().compose(ev, 1000)._initial_grid(PldAccountant().width, 1e-5)
    monkeypatch.setattr(accountant, "REFINE_TIME_SHARE", 1e-6 / 600)
    with budget.time_budget(600):
        res = PldAccountant().compose(ev, 1000).get_delta_result(F(1, 20))
    assert res.grid == first
    optimistic = (
        pld.from_gaussian_mechanism(
            3.0, sampling_prob=0.0024, value_discretization_interval=1e-5, pessimistic_estimate=False
        )
        .self_compose(1000)
        .get_delta_for_epsilon(0.05)
    )
    assert float(res.delta.up_exact) >= optimistic * (1 - 1e-6)
