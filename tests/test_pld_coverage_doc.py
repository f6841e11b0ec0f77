"""The lower ends of the brackets quoted in docs/explanations/pld-coverage.md are certified lower
bounds: each is at most the accountant's own lower end (quoted numbers are rounded down, never
to nearest)."""

from __future__ import annotations

import re
from fractions import Fraction as F
from pathlib import Path

import pytest

from rigorous_rdp import GaussianEvent, LaplaceEvent, PoissonSampledEvent, RandomizedResponseEvent
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
    (
        r"--p 0\.75 --q 0\.01 --steps 1000` \| \[([0-9.]+),",
        PoissonSampledEvent(RandomizedResponseEvent(F(3, 4)), F(1, 100)),
        1000,
    ),
    (r"lower bound of the mechanism \| ([0-9.]+) \|", PoissonSampledEvent(GaussianEvent(3), F(120, 50000)), 104167),
]


@pytest.mark.parametrize(("pattern", "event", "steps"), CASES)
def test_quoted_lower_end_is_below_the_certified_one(pattern, event, steps):
    match = re.search(pattern, DOC)
    assert match, pattern
    quoted = F(match.group(1))
    lower = PldAccountant().compose(event, steps).get_epsilon_result(F(1, 10**5)).epsilon.lo_exact
    assert 0 < quoted <= lower
