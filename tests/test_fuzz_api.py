"""Fuzzing of the Python API: hostile values for every parameter of the public entry points.

Every call must either answer or raise a :class:`ValueError` (for bad values:
:class:`~rigorous_rdp.errors.InvalidParameter`, which names the parameter) or a
:class:`TypeError` (for a value of the wrong type); a time budget, an exhausted
precision or an undecided comparison (:mod:`rigorous_rdp.errors`) is an answer too.  Never an ``OverflowError``, ``ZeroDivisionError``,
``AttributeError`` or a silently accepted wrong type, and never an error message that
echoes more than 80 characters of the input.

The enumerated cases (:data:`CASES`, every entry point x every hostile value) run in the
default suite; hypothesis combines them under ``-m slow``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import arb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigorous_rdp import budget
from rigorous_rdp.accountant import RdpAccountant
from rigorous_rdp.arith import compare
from rigorous_rdp.errors import BudgetExceeded, InvalidParameter, PrecisionExhausted, UndecidedComparison
from rigorous_rdp.events import (
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RandomizedResponseEvent,
    SelfComposedEvent,
)

LONG = "7" * 5000

#: hostile values of a number parameter (valid ones among them, so that answers are reached)
HOSTILE = [
    0,
    -1,
    1,
    2,
    Fraction(1, 2),
    Fraction(10**400),
    Fraction(1, 10**400),
    10**400,
    10**5000,  # beyond Python's 4300-digit int -> str limit
    Fraction(10**5000 + 1, 10**5000),
    1e308,
    5e-324,
    -0.0,
    float("nan"),
    float("inf"),
    "1e-5",
    "1e400",
    "1e-400",
    "1e99999",
    LONG,
    "",
    "abc",
    "2345",
    True,
    None,
    [2, 3],
    {"a": 1},
    b"1",
    arb(2),
]

#: calls that must be refused even though Python could run them (a wrong type taken silently)
WRONG_TYPES = [
    ("orders as a string", lambda: RdpAccountant("2345")),
    ("orders as bytes", lambda: RdpAccountant(b"23")),
    ("continuous = 1", lambda: RdpAccountant(continuous=1)),
    ("continuous = 'no'", lambda: RdpAccountant(continuous="no")),
    ("replacement = 1", lambda: FixedSizeSampledEvent(GaussianEvent(1), 1, 10, replacement=1)),
    ("count = True", lambda: RdpAccountant().compose(GaussianEvent(1), True)),
    ("count = 2.0", lambda: RdpAccountant().compose(GaussianEvent(1), 2.0)),
    ("count = '3'", lambda: RdpAccountant().compose(GaussianEvent(1), "3")),
    ("digits = True", lambda: RdpAccountant(digits=True)),
    ("compare(True, True)", lambda: compare(True, True)),
    ("compare(1.5, arb)", lambda: compare(1.5, arb(1))),
]


def _entry_points():
    """(name, function of one hostile value) for every public parameter fuzzed here."""
    g = GaussianEvent(1)
    pg = PoissonSampledEvent(GaussianEvent("1.1"), "0.01")
    return [
        ("GaussianEvent(noise_multiplier)", lambda v: GaussianEvent(v)),
        ("LaplaceEvent(scale)", lambda v: LaplaceEvent(v)),
        ("RandomizedResponseEvent(p)", lambda v: RandomizedResponseEvent(v)),
        ("PoissonSampledEvent(q)", lambda v: PoissonSampledEvent(g, v)),
        ("PoissonSampledEvent(adjacency)", lambda v: PoissonSampledEvent(g, "0.1", v)),
        ("FixedSizeSampledEvent(batch_size)", lambda v: FixedSizeSampledEvent(g, v, 100)),
        ("FixedSizeSampledEvent(dataset_size)", lambda v: FixedSizeSampledEvent(g, 1, v)),
        ("RdpAccountant(taylor_order)", lambda v: RdpAccountant(taylor_order=v)),
        ("RdpAccountant(tau)", lambda v: RdpAccountant(bound="tau", tau=v)),
        ("SelfComposedEvent(count)", lambda v: SelfComposedEvent(g, v)),
        ("RdpAccountant(orders=[v])", lambda v: RdpAccountant([v])),
        ("RdpAccountant(orders=v)", lambda v: RdpAccountant(v)),
        ("RdpAccountant(digits)", lambda v: RdpAccountant(digits=v)),
        ("RdpAccountant(conversion)", lambda v: RdpAccountant(conversion=v)),
        ("compose(count)", lambda v: RdpAccountant().compose(g, v)),
        (
            "sampled sigma -> epsilon",
            lambda v: RdpAccountant().compose(PoissonSampledEvent(GaussianEvent(v), "0.01"), 10).get_epsilon("1e-5"),
        ),
        (
            "fswor sigma -> epsilon",
            lambda v: (
                RdpAccountant().compose(FixedSizeSampledEvent(GaussianEvent(v), 10, 1000), 10).get_epsilon("1e-5")
            ),
        ),
        ("get_epsilon_and_order(delta)", lambda v: RdpAccountant().compose(pg, 10).get_epsilon_and_order(v)),
        ("get_delta_and_order(epsilon)", lambda v: RdpAccountant().compose(pg, 10).get_delta_and_order(v)),
        ("rdp(alpha)", lambda v: RdpAccountant().compose(pg, 10).rdp(v)),
        ("compare(a, b)", lambda v: compare(v, arb(1))),
    ]


ENTRY_POINTS = _entry_points()
CASES = [(name, i) for name, _ in ENTRY_POINTS for i in range(len(HOSTILE))]


def call(fn, value) -> Exception | None:
    """Run one call within a short budget; the exception it raised (None for an answer);
    fail on anything that is not a refusal."""
    try:
        with budget.time_budget(2.0):
            try:
                fn(value)
            except Exception:
                if budget.expired():  # stopped by the budget (e.g. inside an arb callback)
                    return None
                raise
    except (BudgetExceeded, PrecisionExhausted, UndecidedComparison):
        return None
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert "\n" not in message and len(message) <= 400, message[:500]
        return exc
    return None


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_api_refuses_or_answers(name, index):
    fn = dict(ENTRY_POINTS)[name]
    call(fn, HOSTILE[index])


@pytest.mark.parametrize("what,fn", WRONG_TYPES, ids=[w for w, _ in WRONG_TYPES])
def test_wrong_types_refused(what, fn):
    with pytest.raises((ValueError, TypeError)):
        fn()


def test_string_orders_named():
    with pytest.raises(InvalidParameter) as info:
        RdpAccountant("2345")
    assert info.value.parameter == "alpha" and "not a string" in str(info.value)


@pytest.mark.parametrize(
    "value",
    [10**400, Fraction(10**400), Fraction(-1, 10**400), 10**5000],
    ids=["int400", "frac400", "neg400", "int5000"],
)
def test_huge_numbers_named(value):
    """Huge exact inputs are refused by name (not an OverflowError from a float conversion, nor a
    ValueError of Python's 4300-digit limit while building the message)."""
    acc = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent("1.1"), "0.01"), 10)
    with pytest.raises(InvalidParameter) as info:
        acc.get_epsilon_and_order(value)
    assert info.value.parameter == "target_delta"
    assert len(str(info.value)) < 200


def test_compose_count_beyond_range():
    with pytest.raises(InvalidParameter, match=r"^count must be an integer in \[0, 1e18\]"):
        RdpAccountant().compose(GaussianEvent(1), 10**400)


def test_message_quotes_at_most_80_characters():
    with pytest.raises(InvalidParameter) as info:
        GaussianEvent(LONG)
    found = str(info.value).split("Found ", 1)[1]
    assert len(found) <= 81  # 80 characters and the final period


def test_render_names_options():
    """The command line renders the same error with its option names (no text rewriting)."""
    with pytest.raises(InvalidParameter) as info:
        RdpAccountant(bound="general", tau=3)
    exc = info.value
    assert str(exc) == "tau applies to bound tau only. Found bound general."
    assert exc.render(lambda p: "--" + p) == "--tau applies to --bound tau only. Found --bound general."


@pytest.mark.slow
@settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ENTRY_POINTS), st.sampled_from(HOSTILE))
def test_api_fuzz_hypothesis(entry, value):
    call(entry[1], value)
