"""Test configuration: reset global precision state around every test."""

import mpmath
import pytest
from flint import ctx


@pytest.fixture(autouse=True)
def reset_precision_globals():
    """Every test starts and ends at the default precisions (mpmath and flint)."""
    dps, prec = mpmath.mp.dps, ctx.prec
    mpmath.mp.dps = 15
    ctx.prec = 53
    try:
        yield
    finally:
        mpmath.mp.dps = dps
        ctx.prec = prec
