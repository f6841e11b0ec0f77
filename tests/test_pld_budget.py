"""The PLD accountant under a time budget, and delta at an astronomically large epsilon.

* A query past its time budget stops promptly through the cooperative checks inside the
  composition and discretisation loops: run in a worker thread, where no ``SIGALRM``
  backstop exists, so only those checks can stop it.
* ``delta --epsilon 2249716749384557 --method pld`` (one Gaussian step, sigma 1) answers with a
  valid bracket instead of an ``OverflowError``: the true delta is below
  ``Phi(-eps/mu + mu/2) <= exp(-(eps - 1/2)^2 / 2)``, far below the printed upper end, which
  is checked against that bound in logarithms (mpmath).
"""

from __future__ import annotations

import json
import threading
import time
from fractions import Fraction

import mpmath
import pytest
from _cli import cmd, run_cli

from rigorous_rdp import budget
from rigorous_rdp.errors import BudgetExceeded
from rigorous_rdp.events import GaussianEvent, PoissonSampledEvent
from rigorous_rdp.pld import PldAccountant


def _in_thread(fn):
    out: dict = {}

    def body():
        t0 = time.monotonic()
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed to the test
            out["error"] = exc
        out["seconds"] = time.monotonic() - t0

    th = threading.Thread(target=body)
    th.start()
    th.join(120)
    assert not th.is_alive()
    return out


@pytest.mark.parametrize("width", ["0.01", "0.001"])
def test_pld_query_stops_at_its_budget_without_a_timer(width):
    # T = 1e6 takes seconds of CPU (many times the budget) even on a quiet machine
    event = PoissonSampledEvent(GaussianEvent(Fraction("1.1")), Fraction("0.01"))

    def query():
        with budget.time_budget(0.25):
            return PldAccountant(width=width).compose(event, 10**6).get_epsilon_result("1e-5")

    out = _in_thread(query)
    assert isinstance(out.get("error"), BudgetExceeded), out
    assert "PLD" in str(out["error"])
    # prompt: well before the query would have ended (a product or a vertex batch, not a loop)
    assert out["seconds"] < 0.25 + 1.0, out["seconds"]


def test_pld_budget_check_passes_inside_the_deadline():
    event = PoissonSampledEvent(GaussianEvent(Fraction("1.1")), Fraction("0.01"))

    def query():
        with budget.time_budget(300):
            return PldAccountant().compose(event, 100).get_epsilon_result("1e-5")

    out = _in_thread(query)
    assert "error" not in out, out
    assert 0 < out["value"].epsilon.lower_float() <= out["value"].epsilon.upper_float()


def test_delta_at_astronomical_epsilon_answers():
    status, out, err = run_cli(
        cmd("delta --sigma 1 --steps 1 --epsilon 2249716749384557 --method pld --json --max-seconds 60")
    )
    assert status == 0, err
    assert "Traceback" not in err and "internal error" not in err
    d = json.loads(out)["delta"]
    with mpmath.workdps(80):
        lo, up = mpmath.mpf(d["lower"]), mpmath.mpf(d["upper"])
        assert lo >= 0
        # the closed form in mpmath (mu = 1; the two terms agree to 16 digits, 80 are kept)
        eps = mpmath.mpf(2249716749384557)
        half = mpmath.mpf(1) / 2
        truth = mpmath.ncdf(-eps + half) - mpmath.exp(eps) * mpmath.ncdf(-eps - half)
        assert lo <= truth <= up
        assert up < mpmath.mpf(10) ** -300000  # and a meaningful (tiny) upper end
