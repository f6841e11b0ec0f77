"""Shared by the tests of the dp-accounting integration: the peer package (importing this
module skips the importing test module without it), its event names, and an autouse
fixture that quiets its absl log."""

from __future__ import annotations

import logging

import pytest

dp_accounting = pytest.importorskip("dp_accounting")

NR = dp_accounting.NeighboringRelation
G = dp_accounting.GaussianDpEvent
PS = dp_accounting.PoissonSampledDpEvent


@pytest.fixture(autouse=True)
def quiet_absl():
    # dp-accounting logs a warning per order where its float series does not converge
    logging.disable(logging.WARNING)
    yield
    logging.disable(logging.NOTSET)
