"""Epsilon brackets of a two-direction ledger: every direction's own claims hold.

A direction that cannot change the bracket is only bounded on a coarse grid (its upper end at
most another direction's lower end); its stated upper end must still be a true upper bound of
that direction's epsilon, and every stated lower end a true lower bound.  Checked against
mpmath's direct integration of the composed pair (``reference.pld.poisson_gaussian_delta``,
an independent code path: quadrature estimates, T = 2).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent
from rigorous_rdp.pld import PldAccountant
from rigorous_rdp.reference.pld import poisson_gaussian_delta


@pytest.mark.parametrize(("q", "sigma", "delta"), [(F(1, 10), F(1), F(1, 10**3)), (F(1, 2), F(2), F(1, 10**4))])
def test_each_direction_claim_holds(q, sigma, delta):
    steps = 2
    # a narrow width: a fine grid for the dominating direction, the coarse one (50) for the other
    acc = PldAccountant(width="0.0002").compose(PoissonSampledEvent(GaussianEvent(sigma), q), steps)
    res = acc.get_epsilon_result(delta)
    assert set(res.directions) == {"remove", "add"}
    ups = {d: b.up_exact for d, (b, _) in res.directions.items()}
    assert res.epsilon.up_exact == max(ups.values())
    limit = mpmath.mpf(delta.numerator) / delta.denominator
    with mpmath.workdps(20):
        for d, (b, _n) in res.directions.items():
            # the true delta of direction d at its stated upper end is at most the target
            # (quadrature estimate: a relative margin of 1e-8 for its error)
            assert poisson_gaussian_delta(q, sigma, steps, b.up_exact, d) <= limit * (1 + mpmath.mpf(10) ** -8)
            if b.lo_exact > 0:
                assert poisson_gaussian_delta(q, sigma, steps, b.lo_exact, d) >= limit * (1 - mpmath.mpf(10) ** -8)
    # the coarse direction's upper end is at most the other's lower end: the bracket is the fine one's
    coarse = [d for d, (_, n) in res.directions.items() if n < res.grid]
    assert coarse
    for d in coarse:
        assert ups[d] <= res.epsilon.lo_exact
