"""The choice of theorem is an accountant option (``RdpAccountant(bound=..., tau=...)``), not a
field of the event: the deprecated events that carried it, certificates, the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mpmath
import pytest
from _mpcheck import ball_contains

from rigorous_rdp import (
    BoundOptions,
    ComposedEvent,
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RdpAccountant,
    UnsupportedEventError,
)
from rigorous_rdp.certificate import content_hash, make_certificate, verify_certificate, verify_file
from rigorous_rdp.cli import main
from rigorous_rdp.events import Wang2019SampledEvent, ZhuWangSampledEvent
from rigorous_rdp.reference.zhu_wang import zhu_wang_rdp_mp
from rigorous_rdp.registry import lookup, pld_pair, rdp_curve

DATA = Path(__file__).parent / "data"
LAPLACE = PoissonSampledEvent(LaplaceEvent(1), "1/10")
FSWOR_R1 = FixedSizeSampledEvent(GaussianEvent(6), 120, 50000, adjacency="replace-one")


def test_the_chosen_bound_is_the_theorem_at_every_order():
    """RdpAccountant(bound="general") composes Zhu & Wang Thm 5 (its independent mpmath reference)."""
    acc = RdpAccountant(bound="general", digits=20).compose(LAPLACE, 3)
    for alpha in (2, 7):
        with mpmath.workdps(40):
            ref = 3 * zhu_wang_rdp_mp("laplace", 1, "0.1", alpha, "general", 40, cap_pure_dp=True)
            assert ball_contains(acc.rdp(alpha).rdp, ref)
    default = RdpAccountant(digits=20).compose(LAPLACE, 3)
    assert default.rdp(7).rdp.upper() < acc.rdp(7).rdp.upper()  # the default (Thm 8) is tighter here


def test_fresh_copies_keep_the_choice():
    acc = RdpAccountant(bound="tau", tau=3)
    assert acc.fresh().options == BoundOptions("tau", 3) == acc.options
    assert acc.bound.value == "tau" and acc.tau == 3


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"bound": "tau"}, "tau is required with bound tau"),
        ({"bound": "general", "tau": 2}, "tau applies to bound tau only"),
        ({"tau": 2}, "tau applies to bound tau only"),
        ({"bound": "renyi"}, "bound must be one of tight, general, lower, tau, wang2019"),
        ({"bound": "tau", "tau": 0}, "tau must be"),
    ],
)
def test_bad_options_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RdpAccountant(**kwargs)


@pytest.mark.parametrize(
    "event, bound, message",
    [
        (GaussianEvent(2), "general", "bound applies to a sampled mechanism"),
        (FSWOR_R1, "general", "general applies to sampling poisson"),
        (LAPLACE, "wang2019", "wang2019 applies to sampling fswor with adjacency replace-one"),
        (FixedSizeSampledEvent(GaussianEvent(6), 120, 50000), "wang2019", "wang2019 applies to sampling fswor"),
        (PoissonSampledEvent(GaussianEvent(2), "0.1", "replace-one"), "tight", "for adjacency add-remove only"),
    ],
)
def test_a_bound_that_does_not_apply_is_refused_by_compose(event, bound, message):
    acc = RdpAccountant(bound=bound)
    assert not acc.supports(event)
    with pytest.raises(ValueError, match=message):
        acc.compose(event)
    # a composition: the option applies to every step, so one step it does not fit refuses it
    with pytest.raises(ValueError):
        RdpAccountant(bound=bound).compose(ComposedEvent((LAPLACE, event)))


def test_deprecated_events_warn_and_equal_event_plus_option():
    with pytest.warns(DeprecationWarning, match="PoissonSampledEvent"):
        old = ZhuWangSampledEvent(LaplaceEvent(1), "1/10", "general")
    assert old.split() == (LAPLACE, BoundOptions("general"))
    with pytest.warns(DeprecationWarning, match="FixedSizeSampledEvent"):
        wang = Wang2019SampledEvent(GaussianEvent(6), 120, 50000)
    assert wang.split() == (FSWOR_R1, BoundOptions("wang2019"))
    with pytest.warns(DeprecationWarning):
        tight = ZhuWangSampledEvent(LaplaceEvent(1), "1/10")  # no bound: Thm 8 (condition (4) holds)
    assert tight.split()[1] == BoundOptions("tight")
    for event, options in ((old, BoundOptions("general")), (wang, BoundOptions("wang2019"))):
        plain = event.split()[0]
        assert rdp_curve(event).name == rdp_curve(plain, options).name
        assert lookup(event) == lookup(plain, options)
        a = RdpAccountant().compose(event, 10).get_epsilon("1e-5")
        b = RdpAccountant(bound=options.bound).compose(plain, 10).get_epsilon("1e-5")
        assert a.ball.mid() == b.ball.mid() and a.ball.rad() == b.ball.rad()
        with pytest.raises(UnsupportedEventError, match="takes no RDP bound"):
            pld_pair(event)
    # the same choice twice is fine, two different ones are refused
    assert RdpAccountant(bound="general").supports(old)
    with pytest.raises(ValueError, match="bound is chosen twice"):
        RdpAccountant(bound="tight").compose(old)


@pytest.mark.parametrize(
    "name",
    [
        "legacy_zhu_wang_sampled_certificate",
        "legacy_wang2019_sampled_certificate",
        "legacy_fixed_size_taylor_order_certificate",
    ],
)
def test_certificates_of_the_deprecated_events_still_verify(name, tmp_path):
    path = tmp_path / "c.json"
    shutil.copy(DATA / f"{name}.json", path)
    with pytest.warns(DeprecationWarning):
        res = verify_file(str(path))
    assert res.ok, res.reason


def test_a_certificate_records_and_rechecks_the_choice():
    cert = make_certificate(FSWOR_R1, 100, "1/100000", accountant=RdpAccountant(bound="wang2019"))
    assert cert["method"]["accounting"] == {"bound": "wang2019", "tau": None, "taylor_order": None}
    assert cert["method"]["curves"][0]["curve"] == "wang2019"
    assert "bound" not in cert["inputs"]["summary"] and cert["inputs"]["event"]["type"] == "fixed-size-sampled"
    assert verify_certificate(cert).ok
    # the same number as the certificate written with the deprecated event
    legacy = json.loads((DATA / "legacy_wang2019_sampled_certificate.json").read_text())
    assert cert["epsilon"] == legacy["epsilon"]
    # no accounting key for the default bound
    plain = make_certificate(FSWOR_R1, 100, "1/100000")
    assert "accounting" not in plain["method"] and plain["epsilon"] != cert["epsilon"]

    def edited(edit):
        c = json.loads(json.dumps(cert))
        edit(c["method"])
        c.pop("claim")
        c["sha256"] = content_hash(c)
        return verify_certificate(c)

    assert "curves" in edited(lambda m: m.pop("accounting")).reason
    assert (
        "omitted for the default"
        in edited(lambda m: m.__setitem__("accounting", {"bound": None, "tau": None, "taylor_order": None})).reason
    )
    res = edited(lambda m: m["accounting"].__setitem__("bound", "general"))
    assert not res.ok and "does not apply" in res.reason
    res = edited(lambda m: m["accounting"].__setitem__("extra", 1))
    assert not res.ok and "accounting" in res.reason


def _run(argv, capsys):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_options_configure_the_accountant(capsys, tmp_path):
    argv = ["--noise", "laplace", "--scale", "1", "--sampling", "poisson", "--q", "1/10", "--steps", "3"]
    api = RdpAccountant(bound="general").compose(LAPLACE, 3).get_epsilon_and_order("1e-3")
    for method in ("rdp", "best"):
        code, out, err = _run(
            ["epsilon", *argv, "--delta", "1e-3", "--bound", "general", "--method", method, "--json"], capsys
        )
        assert code == 0, err
        res = json.loads(out)
        assert res["epsilon"] == api.to_json()["epsilon"]
    # --method best does not take the PLD route with a chosen bound
    assert res["chosen"] == "rdp" and "takes no RDP bound" in res["refused"]["pld"]
    out_file = tmp_path / "c.json"
    code, _, err = _run(["certify", *argv, "--delta", "1e-3", "--bound", "general", "--out", str(out_file)], capsys)
    assert code == 0, err
    cert = json.loads(out_file.read_text())
    assert cert["method"]["accounting"] == {"bound": "general", "tau": None, "taylor_order": None}
    code, out, _ = _run(["verify", str(out_file)], capsys)
    assert code == 0 and "verified" in out
    code, _, err = _run(["epsilon", *argv, "--delta", "1e-3", "--bound", "wang2019"], capsys)
    assert code == 2 and err.strip().endswith(
        "--bound wang2019 applies to --sampling fswor with --adjacency replace-one."
    )


def test_reference_of_the_chosen_bound_is_independent():
    """The verifier's reference for a chosen bound is the mpmath transcription of that theorem."""
    from rigorous_rdp.registry import reference_rdp

    with mpmath.workdps(40):
        ref = reference_rdp(LAPLACE, 5, 40, BoundOptions("general"))
        assert mpmath.almosteq(ref, zhu_wang_rdp_mp("laplace", 1, "0.1", 5, "general", 40, cap_pure_dp=True), 1e-35)


def test_the_taylor_order_is_an_accountant_option_too():
    """FixedSizeSampledEvent(taylor_order=m) is deprecated: RdpAccountant(taylor_order=m) gives the
    same certificate number, recorded as method.accounting, and verify re-checks it."""
    legacy = json.loads((DATA / "legacy_fixed_size_taylor_order_certificate.json").read_text())
    cert = make_certificate(FSWOR_R1, 100, "1/100000", accountant=RdpAccountant(taylor_order=4))
    assert cert["method"]["accounting"] == {"bound": None, "tau": None, "taylor_order": 4}
    assert cert["epsilon"] == legacy["epsilon"] and cert["method"]["curves"] == legacy["method"]["curves"]
    assert verify_certificate(cert).ok
    with pytest.raises(ValueError, match="taylor_order does not apply to bound wang2019"):
        RdpAccountant(bound="wang2019", taylor_order=4).compose(FSWOR_R1)
    with pytest.raises(ValueError, match=r"taylor_order applies to sampling fswor\|fswr"):
        RdpAccountant(taylor_order=4).compose(LAPLACE)
