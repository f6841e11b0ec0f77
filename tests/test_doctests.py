"""Run the examples in the package docstrings."""

import doctest
import importlib

import pytest

MODULES = ["rigorous_rdp", "rigorous_rdp.accountant"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_outward_decimal_beyond_28_digits():
    """Outward rounding must not pass through a 28-digit decimal context."""
    from flint import arb

    from rigorous_rdp.arith import decimal_lower, decimal_upper, workprec

    with workprec(300):
        x = arb("1e-7") - arb("1e-50")
        lo, hi = decimal_lower(x, 40), decimal_upper(x, 40)
    from fractions import Fraction

    exact = Fraction(1, 10**7) - Fraction(1, 10**50)
    assert Fraction(lo) <= exact <= Fraction(hi)
    assert Fraction(lo) < Fraction(1, 10**7)
