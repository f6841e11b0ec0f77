"""The lower ends of the brackets quoted in docs/explanations/pld-coverage.md are certified lower
bounds (quoted numbers are rounded down, never to nearest): each is at most a certified lower end
computed here (a fine grid), or below the exact value where one is cheap."""

from __future__ import annotations

import re
from fractions import Fraction as F
from pathlib import Path

import mpmath
import pytest

from rigorous_rdp import GaussianEvent, LaplaceEvent, PoissonSampledEvent
from rigorous_rdp.pld import PldAccountant

DOC = (Path(__file__).resolve().parent.parent / "docs" / "explanations" / "pld-coverage.md").read_text()

CASES = [
    # (pattern whose group 1 is the quoted lower end, event, steps)
    (r"--noise laplace --scale 10 --steps 100` \| \[([0-9.]+),", LaplaceEvent(10), 100),
    (
        r"--sigma 1\.1 --q 0\.01 --steps 10000` \| \[([0-9.]+),",
        PoissonSampledEvent(GaussianEvent(F(11, 10)), F(1, 100)),
        10000,
    ),
    (r"lower bound of the mechanism \| ([0-9.]+) \|", PoissonSampledEvent(GaussianEvent(3), F(120, 50000)), 104167),
]


@pytest.mark.parametrize(("pattern", "event", "steps"), CASES)
def test_quoted_lower_end_is_below_the_certified_one(pattern, event, steps):
    match = re.search(pattern, DOC)
    assert match, pattern
    quoted = F(match.group(1))
    lower = PldAccountant().compose(event, steps).get_epsilon_result(F(1, 10**5), width=F(1, 10**4)).epsilon.lo_exact
    assert 0 < quoted <= lower


def test_quoted_lower_end_of_sampled_randomized_response_is_below_the_truth():
    """Poisson-sampled randomized response (p = 3/4, q = 1/100, 1000 steps): the remove pair's
    loss depends only on the count k of first outcomes, so delta(eps) is an exact binomial sum;
    the quoted lower end is below the true epsilon iff delta(quoted) > 1e-5."""
    quoted = re.search(r"--p 0\.75 --q 0\.01 --steps 1000` \| \[([0-9.]+),", DOC)
    assert quoted
    with mpmath.workdps(40):
        p, q, steps = mpmath.mpf(3) / 4, mpmath.mpf(1) / 100, 1000
        big_p = (q * p + (1 - q) * (1 - p), q * (1 - p) + (1 - q) * p)
        big_q = (1 - p, p)
        gamma = mpmath.exp(mpmath.mpf(quoted.group(1)))
        delta = mpmath.fsum(
            max(
                0,
                mpmath.binomial(steps, k)
                * (big_p[0] ** k * big_p[1] ** (steps - k) - gamma * big_q[0] ** k * big_q[1] ** (steps - k)),
            )
            for k in range(steps + 1)
        )
        assert delta > mpmath.mpf(10) ** -5
