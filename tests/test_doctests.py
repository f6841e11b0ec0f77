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
