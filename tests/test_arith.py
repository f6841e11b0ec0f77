"""Certified arithmetic core: exact input, scoped precision, log-space helpers,
outward decimal output, the Ziv loop and three-valued comparisons."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from _refcheck import arb_fraction, encloses, endpoints
from flint import arb, ctx, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from rigorous_rdp.arith import (
    Certified,
    bits_for_digits,
    certainly_le,
    certainly_lt,
    compare,
    decimal_lower,
    decimal_upper,
    log1mexp,
    log_add,
    log_sum_exp,
    parse_rational,
    refine,
    rel_width_ok,
    to_arb,
    workprec,
)
from rigorous_rdp.errors import PrecisionExhausted, UndecidedComparison

# ---------------------------------------------------------------------------
# exact input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,exact",
    [
        ("0.1", Fraction(1, 10)),
        ("1e-5", Fraction(1, 100000)),
        (" 3/7 ", Fraction(3, 7)),
        ("1e-400", Fraction(1, 10**400)),
        (0.1, Fraction(3602879701896397, 36028797018963968)),  # the exact binary value
        (7, Fraction(7)),
        (Decimal("2.5"), Fraction(5, 2)),
        (Fraction(22, 7), Fraction(22, 7)),
        (fmpq(5, 3), Fraction(5, 3)),
        ("-2", Fraction(-2)),
    ],
)
def test_parse_rational_is_exact(value, exact):
    assert parse_rational(value, "sigma") == exact


@pytest.mark.parametrize(
    "value",
    [
        "nan",
        "NaN",
        "inf",
        "-inf",
        "Infinity",
        "abc",
        "",
        "1/0",
        "1/",
        "0x10",
        float("nan"),
        float("inf"),
        True,
        None,
        [1],
        Decimal("NaN"),
        "1,5",
    ],
)
def test_parse_rational_rejects_with_option_name(value):
    with pytest.raises(ValueError) as info:
        parse_rational(value, "q")
    assert str(info.value).startswith("q must be")


def test_to_arb_exact_decimal_vs_float():
    with workprec(200):
        a = to_arb(parse_rational("0.1", "x"))
        b = to_arb(parse_rational(0.1, "x"))
        assert not a.overlaps(b)  # 1/10 is not the double nearest to it
        assert a.contains(arb(fmpq(1, 10)))


# ---------------------------------------------------------------------------
# precision scoping
# ---------------------------------------------------------------------------


def test_workprec_restores_on_exception():
    old = ctx.prec
    with pytest.raises(RuntimeError), workprec(300):
        assert ctx.prec == 300
        raise RuntimeError("boom")
    assert ctx.prec == old


def test_workprec_rejects_nonsense():
    with pytest.raises(ValueError, match=r"^prec must be"), workprec(1):
        pass


def test_bits_for_digits():
    assert bits_for_digits(10) == 34  # ceil(10 log2 10) = ceil(33.22)
    assert bits_for_digits(12) == 40


# ---------------------------------------------------------------------------
# log-space helpers against mpmath at 60 digits
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "xs", [["0", "0"], ["-1000", "-1001", "-999.5"], ["1e6", "-1e6"], ["-1e-30"], ["5", "5", "5", "5"]]
)
def test_log_sum_exp_matches_mpmath(xs):
    with workprec(200):
        ball = log_sum_exp([arb(x) for x in xs])
    with mpmath.workdps(120):  # log of a sum near 1 loses up to 30 digits here
        ref = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(x)) for x in xs))
    assert encloses(ball, ref, Fraction(1, 10**50))


def test_log_sum_exp_empty_is_minus_infinity():
    v = log_sum_exp([])
    assert not v.is_finite() and v < 0


def test_log_add_and_log1mexp():
    with workprec(200):
        la = log_add(arb(-3), arb(2))
        lm = log1mexp(arb("-1e-20"))
    with mpmath.workdps(80):
        assert encloses(la, mpmath.log(mpmath.exp(-3) + mpmath.exp(2)), Fraction(1, 10**50))
        assert encloses(lm, mpmath.log(-mpmath.expm1(mpmath.mpf("-1e-20"))), Fraction(1, 10**50))


# ---------------------------------------------------------------------------
# outward decimal output
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["1/3", "-1/3", "2/3", "1e-400", "-7e300", "123456789.123456789", "1/7e-20"])
def test_decimals_round_outward(text):
    with workprec(2000):
        x = to_arb(parse_rational(text, "x"))
        lo_s, hi_s = decimal_lower(x, 12), decimal_upper(x, 12)
    lo, hi = endpoints(x)
    assert Fraction(Decimal(lo_s)) <= lo
    assert Fraction(Decimal(hi_s)) >= hi
    # and they are tight to 12 significant digits
    assert abs(Fraction(Decimal(hi_s)) - Fraction(Decimal(lo_s))) <= abs(lo) * Fraction(3, 10**11)


def test_decimals_of_exact_values_are_exact():
    assert decimal_lower(arb(5)) == "5" and decimal_upper(arb(5)) == "5"
    assert decimal_upper(arb(0)) == "0"
    assert decimal_upper(arb("0.25")) == "0.25"


def test_decimals_of_infinite_ball():
    assert decimal_upper(arb.pos_inf()) == "inf"
    assert decimal_lower(arb.nan()) == "-inf"
    assert decimal_upper(arb.nan()) == "inf"


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=Fraction(-(10**30)), max_value=Fraction(10**30)), st.integers(min_value=1, max_value=25))
def test_decimal_output_brackets_random_rationals(v, sig):
    with workprec(256):
        x = to_arb(v)
        lo_s, hi_s = decimal_lower(x, sig), decimal_upper(x, sig)
    assert Fraction(Decimal(lo_s)) <= v <= Fraction(Decimal(hi_s))


def test_endpoints_do_not_depend_on_ambient_precision():
    # a 1000-bit ball printed at the default 53 bits keeps its 1000-bit endpoints
    with workprec(1000):
        x = arb(1) / 3
    c = Certified(x, 1000)
    lo, hi = endpoints(x)
    assert lo < Fraction(1, 3) < hi and hi - lo < Fraction(1, 10**290)
    assert arb_fraction(c.lower()) == lo and arb_fraction(c.upper()) == hi
    up = Fraction(Decimal(decimal_upper(x, 60)))
    assert Fraction(1, 3) < up < Fraction(1, 3) + Fraction(1, 10**59)


def test_certified_float_endpoints_are_outward():
    with workprec(200):
        b = to_arb(Fraction(1, 3))
    c = Certified(b, 200)
    assert Fraction(c.upper_float()) >= Fraction(1, 3) >= Fraction(c.lower_float())
    assert c.to_json() == {"lower": decimal_lower(b), "upper": decimal_upper(b)}
    assert c.relative_width() < 1e-55


# ---------------------------------------------------------------------------
# the Ziv loop
# ---------------------------------------------------------------------------


def test_refine_meets_requested_digits():
    calls = []

    def f(prec):
        calls.append(prec)
        return arb.pi() * arb(10) ** 50

    for digits in (5, 10, 30, 100):
        c = refine(f, digits)
        lo, hi = endpoints(c.ball)
        assert (hi - lo) / lo <= Fraction(1, 10**digits)
        with mpmath.workdps(digits + 70):
            assert encloses(c.ball, mpmath.pi * mpmath.mpf(10) ** 50, Fraction(1, 10 ** (digits + 60)))


def test_refine_raises_with_last_enclosure():
    # a function whose width never shrinks
    with pytest.raises(PrecisionExhausted) as info:
        refine(lambda prec: arb(1, 1e-3), 10, max_prec=512, what="stubborn")
    exc = info.value
    assert "stubborn" in str(exc) and "512" in str(exc)
    assert exc.last is not None and exc.last.contains(arb(1))
    assert exc.prec == 512


def test_refine_treats_nonfinite_as_not_yet():
    def f(prec):
        return arb.nan() if prec < 200 else arb(2).sqrt()

    c = refine(f, 10)
    assert c.prec >= 200
    with mpmath.workdps(40):
        assert encloses(c.ball, mpmath.sqrt(2), Fraction(1, 10**35))


def test_refine_restores_precision():
    old = ctx.prec
    refine(lambda p: arb(1) / 3, 50)
    assert ctx.prec == old


def test_rel_width_ok():
    assert rel_width_ok(arb(3), 100)
    assert not rel_width_ok(arb(0, 1e-30), 1)
    assert rel_width_ok(arb(1, 1e-11), 10)
    assert not rel_width_ok(arb(1, 1e-9), 10)
    assert not rel_width_ok(arb.nan(), 1)


# ---------------------------------------------------------------------------
# three-valued comparisons
# ---------------------------------------------------------------------------


def test_comparisons_are_three_valued():
    a, b = arb(1, 0.1), arb(2, 0.1)
    over = arb("1.05", 0.1)
    assert certainly_lt(a, b) and certainly_le(a, b)
    assert not certainly_lt(a, over) and not certainly_lt(over, a)
    assert not certainly_le(a, over) and not certainly_le(over, a)
    assert compare(a, b) == -1 and compare(b, a) == 1
    assert compare(arb(3), arb(3)) == 0
    with pytest.raises(UndecidedComparison):
        compare(a, over)
    with pytest.raises(UndecidedComparison):
        compare(arb(3, 1e-20), arb(3, 1e-20))


# ---------------------------------------------------------------------------
# huge exponents: decimals through logarithms, endpoints without fractions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("log10_value", ["-400", "-3040061374.5", "1000000.25", "-123456789012345678901234.5"])
def test_decimals_of_huge_exponents_bracket(log10_value):
    with workprec(300):
        x = arb(10) ** arb(log10_value)
        lo_s, hi_s = decimal_lower(x, 12), decimal_upper(x, 12)
        c = Certified(x, 300)
        assert c.lower() <= x.mid() <= c.upper()
    with mpmath.workdps(60):
        v = mpmath.mpf(10) ** mpmath.mpf(log10_value)
        assert mpmath.mpf(lo_s) <= v <= mpmath.mpf(hi_s)
        assert mpmath.mpf(hi_s) / mpmath.mpf(lo_s) - 1 < mpmath.mpf("3e-11")
    neg_lo = decimal_lower(-x, 12)
    assert neg_lo == "-" + hi_s


# ---------------------------------------------------------------------------
# range checks before exact conversion
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "1e99999999999",
        "-1e99999999999",
        "1e-99999999999",
        "1e100000",
        "1e-100001",
        "1e5/1e-99999",
        "1/1e100000",
        "3e999999999999999999999",
    ],
)
def test_parse_rational_refuses_huge_exponents_quickly(value):
    import time

    t0 = time.monotonic()
    with pytest.raises(ValueError, match=r"^q must be 0 or of magnitude in \[1e-100000, 1e100000\)"):
        parse_rational(value, "q")
    assert time.monotonic() - t0 < 0.5  # the number 10**(10**11) is never built


@pytest.mark.parametrize(
    "value, exact",
    [
        ("1e-100000", Fraction(1, 10**100000)),
        ("9.9e99999", Fraction(99, 10) * 10**99999),
        ("0e99999999999", Fraction(0)),
        ("-1e-100000", -Fraction(1, 10**100000)),
    ],
)
def test_parse_rational_range_edges_are_exact(value, exact):
    assert parse_rational(value, "q") == exact


def test_parse_rational_refuses_long_text():
    with pytest.raises(ValueError, match=r"^sigma must be a number written with at most 1000 characters"):
        parse_rational("1" * 1001, "sigma")
    assert parse_rational("1" * 1000, "sigma") == int("1" * 1000)


@pytest.mark.parametrize("value", ["", " ", "½", "1e", "0x10", "1//2", "nan", "-inf", "1/0"])
def test_parse_rational_refuses_non_numbers(value):
    with pytest.raises(ValueError, match=r"^q must be a number\. Found"):
        parse_rational(value, "q")


def test_json_shows_the_requested_digits():
    # refined to 30 digits: the decimals show them (17 would hide 13 of them), still outward
    c = refine(lambda prec: arb(1) / 3 + arb(2).sqrt(), 30)
    j = c.to_json()
    assert len(j["upper"].replace(".", "")) >= 32  # significant digits
    with mpmath.workdps(60):
        exact = mpmath.mpf(1) / 3 + mpmath.sqrt(2)
        assert mpmath.mpf(j["lower"]) <= exact <= mpmath.mpf(j["upper"])
        assert mpmath.mpf(j["upper"]) - mpmath.mpf(j["lower"]) < mpmath.mpf("1e-30")
    # at the default digits the text keeps a float's 17 digits
    assert len(refine(lambda prec: arb(1) / 3, 10).to_json()["upper"]) == len("0.33333333333333334")
