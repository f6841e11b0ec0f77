"""Adversarial tests of ``verify`` for RDP and PLD certificates.

An adversary edits a valid certificate and recomputes its content hash (the hash is not a
signature).  Every forgery below must be rejected; every valid certificate must pass.

* :func:`forgeries` -- a deterministic generator: each field perturbed in the unsafe direction
  (epsilon lowered, delta lowered, steps raised, sigma lowered, q raised, the RDP enclosure lowered,
  another conversion or order), kinds swapped, directions invented or dropped, claims for
  configurations known to be false (replace-one adjacency under a PLD certificate made for
  add-remove; a lower-bound RDP curve; a positive lower end for fixed-size sampling, whose pairs
  only dominate), an edited claim text, and malformed files (lower above upper, a duplicated key,
  numbers outside the one grammar, unknown fields); for balls-and-bins / random-allocation
  certificates also every sampler field changed either way, the sampler swapped (to shuffling too)
  and the lower-bound curve of shuffling.
* :func:`perturb` -- a numeric perturbation in the unsafe direction by a factor; hypothesis
  draws the certificate, the field and the factor.

Only the names of :mod:`rigorous_rdp.certificate` and :mod:`rigorous_rdp.pld.certificate_support`
are used, so the same suite runs against an older release: ``python tests/test_verify_adversarial.py``
prints, per kind, how many forgeries it generates and how many are accepted.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigorous_rdp import GaussianEvent, LaplaceEvent, PoissonSampledEvent, RandomizedResponseEvent, RdpAccountant
from rigorous_rdp.certificate import (
    CONVERSION_CITATIONS,
    content_hash,
    describe_event,
    event_from_json,
    make_certificate,
    verify_certificate,
    verify_file,
)
from rigorous_rdp.events import ComposedEvent, FixedSizeSampledEvent, leaf_counts
from rigorous_rdp.pld.certificate_support import make_pld_certificate
from rigorous_rdp.registry import rdp_curve
from rigorous_rdp.subsampling.random_allocation_scheme import BallsAndBinsEvent, RandomAllocationEvent

Cert = dict[str, Any]

#: (name, event, steps, delta) of the valid RDP certificates
RDP_BASES: list[tuple[str, Any, int, str]] = [
    ("gaussian", GaussianEvent(2), 3, "1/1000"),
    ("poisson", PoissonSampledEvent(GaussianEvent(1), "1/2"), 3, "1/1000"),
    ("poisson-small-q", PoissonSampledEvent(GaussianEvent("1.1"), "1/100"), 10, "1/100000"),
    ("laplace", LaplaceEvent(2), 4, "1/1000"),
    ("rr", RandomizedResponseEvent("3/4"), 5, "1/1000"),
    ("rr-half", RandomizedResponseEvent("1/2"), 3, "1/1000"),
    ("fswor", FixedSizeSampledEvent(GaussianEvent(2), 10, 100), 3, "1/1000"),
    ("poisson-laplace", PoissonSampledEvent(LaplaceEvent(1), "1/10"), 3, "1/1000"),
    ("zhu-wang-general", PoissonSampledEvent(LaplaceEvent(1), "1/10"), 3, "1/1000"),
    ("composed", ComposedEvent((GaussianEvent(3), RandomizedResponseEvent("3/5"))), 2, "1/1000"),
    # the epoch-based samplers: one step is one epoch
    ("balls-and-bins", BallsAndBinsEvent(GaussianEvent(1), 100), 3, "1/100000"),
    ("random-allocation", RandomAllocationEvent(GaussianEvent(1), 50, 2), 2, "1/100000"),
]
#: the accountant options of a base (the chosen bound: ``method.accounting``)
RDP_OPTIONS: dict[str, dict[str, Any]] = {"zhu-wang-general": {"bound": "general"}}
#: valid only (their reference is slow; not used as a base of forgeries)
RDP_VALID_ONLY = [
    ("poisson-replace-one", PoissonSampledEvent(GaussianEvent(2), "1/10", adjacency="replace-one"), 3, "1/1000")
]

PLD_BASES: list[tuple[str, Any, int, str]] = [
    ("gaussian", GaussianEvent(2), 3, "1/1000"),
    # the configuration of the audit: one Poisson step, q 1/2, sigma 1, delta 1e-3
    ("poisson", PoissonSampledEvent(GaussianEvent(1), "1/2"), 1, "1/1000"),
    ("poisson-3", PoissonSampledEvent(GaussianEvent(1), "1/10"), 3, "1/1000"),
    ("laplace", LaplaceEvent(2), 3, "1/1000"),
    ("rr", RandomizedResponseEvent("3/4"), 4, "1/1000"),
    ("rr-half", RandomizedResponseEvent("1/2"), 3, "1/1000"),
    ("fswor", FixedSizeSampledEvent(GaussianEvent(2), 10, 100), 3, "1/1000"),
]


#: bases whose true epsilon is 0 (randomized response with p = 1/2 releases nothing): lowering
#: their epsilon or delta, raising their steps or changing the order keeps the claim true, so
#: those edits are not forgeries there
EPSILON_ZERO = {"rr-half"}
#: the edits that keep a claim of epsilon 0 true
_HARMLESS_AT_ZERO = {"epsilon-upper-lowered", "delta-lowered", "steps-raised", "order-changed", "conversion-tv"}


@cache
def valid(kind: str, name: str) -> Cert:
    """The valid certificate ``name`` of ``kind`` (made once)."""
    bases = {"rdp": RDP_BASES + RDP_VALID_ONLY, "pld": PLD_BASES}[kind]
    _, event, steps, delta = next(b for b in bases if b[0] == name)
    if kind == "rdp":
        return make_certificate(event, steps, delta, accountant=RdpAccountant(**RDP_OPTIONS.get(name, {})))
    return make_pld_certificate(event, steps, delta)


# ---------------------------------------------------------------------------
# editing helpers (what an adversary does: edit, keep the file consistent, rehash)
# ---------------------------------------------------------------------------


def _finish(c: Cert, keep_claim: bool = False) -> Cert:
    """Drop the (generated) claim text unless asked, and recompute the content hash."""
    if not keep_claim:
        c.pop("claim", None)
    c.pop("sha256", None)
    c["sha256"] = content_hash(c)
    return c


def _dec(x: Fraction | Decimal) -> str:
    return str(Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else x)


def _set_epsilon(c: Cert, lower: str, upper: str) -> None:
    """Set the bracket; in a PLD certificate the direction that gives it too (a consistent edit)."""
    c["epsilon"] = {"lower": lower, "upper": upper}
    dirs = c["method"].get("directions")
    if dirs:
        top = max(dirs, key=lambda d: Decimal(dirs[d]["epsilon"]["upper"]))
        for d, entry in dirs.items():
            if d == top:
                entry["epsilon"] = {"lower": lower, "upper": upper}
            else:
                lo = min(Decimal(entry["epsilon"]["lower"]), Decimal(lower))
                up = min(Decimal(entry["epsilon"]["upper"]), Decimal(upper))
                entry["epsilon"] = {"lower": str(min(lo, up)), "upper": str(up)}


def _leaf_json(c: Cert) -> dict[str, Any]:
    """The innermost event object (the base mechanism) of a one-leaf certificate."""
    ev = c["inputs"]["event"]
    while "event" in ev:
        ev = ev["event"]
    return ev


def _set_event(c: Cert, edit: Callable[[dict[str, Any]], None]) -> bool:
    """Apply ``edit`` to the event JSON and update the summary (and the curves of an RDP
    certificate) to match; False if the edit gives no valid event."""
    edit(c["inputs"]["event"])
    try:
        event = event_from_json(c["inputs"]["event"])
        c["inputs"]["summary"] = describe_event(event)
        if "curves" in c["method"]:
            curves = []
            for leaf, _ in leaf_counts(event):
                curve = rdp_curve(leaf)
                entry = {"curve": curve.name, "citation": curve.citation}
                if entry not in curves:
                    curves.append(entry)
            c["method"]["curves"] = curves
    except Exception:
        return False
    return True


def _scale_param(c: Cert, factor: Fraction) -> bool:
    """Multiply the noise parameter (sigma, scale) by ``factor``, or move p toward 1."""
    leaf = _leaf_json(c)
    if "noise_multiplier" in leaf or "scale" in leaf:
        key = "noise_multiplier" if "noise_multiplier" in leaf else "scale"
        new = Fraction(leaf[key]) * factor
        return _set_event(c, lambda _: leaf.__setitem__(key, _rat(new)))
    if "p" in leaf:
        p = max(Fraction(leaf["p"]), 1 - Fraction(leaf["p"]))
        new = 1 - (1 - p) * factor  # factor < 1: p closer to 1, less private
        return _set_event(c, lambda _: leaf.__setitem__("p", _rat(new)))
    return False


def _rat(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


# ---------------------------------------------------------------------------
# the deterministic generator
# ---------------------------------------------------------------------------


def forgeries(kind: str, name: str) -> Iterator[tuple[str, Cert | bytes]]:
    """(id, forged certificate or file bytes) for the valid certificate ``name`` of ``kind``."""
    for fid, forged in _forgeries(kind, name):
        if name not in EPSILON_ZERO or fid not in _HARMLESS_AT_ZERO:
            yield fid, forged


def _forgeries(kind: str, name: str) -> Iterator[tuple[str, Cert | bytes]]:
    base = valid(kind, name)
    eps = base["epsilon"]
    lo, up = Decimal(eps["lower"]), Decimal(eps["upper"])

    def new() -> Cert:
        return copy.deepcopy(base)

    if up > 0:
        c = new()
        _set_epsilon(c, str(min(lo, up * Decimal("0.98"))), str(up * Decimal("0.98")))
        yield "epsilon-upper-lowered", _finish(c)
    c = new()
    _set_epsilon(c, str(up + 1), str(up))
    yield "epsilon-lower-above-upper", _finish(c)
    c = new()
    c["epsilon"] = (
        {"lower": eps["upper"], "upper": eps["lower"]} if lo != up else {"lower": str(up + 1), "upper": str(up)}
    )
    yield "epsilon-swapped", _finish(c)
    c = new()
    c["inputs"]["delta"] = _rat(Fraction(base["inputs"]["delta"]) / 1000)
    yield "delta-lowered", _finish(c)
    if up > 0:
        c = new()
        c["inputs"]["steps"] = base["inputs"]["steps"] * 10
        yield "steps-raised", _finish(c)
    c = new()
    if _scale_param(c, Fraction(1, 2)):
        yield "noise-lowered", _finish(c)
    c = new()
    if "sampling_probability" in c["inputs"]["event"]:
        q = Fraction(c["inputs"]["event"]["sampling_probability"])
        if q < 1 and _set_event(c, lambda e: e.__setitem__("sampling_probability", _rat(min(Fraction(1), 4 * q)))):
            yield "q-raised", _finish(c)
    c = new()
    if c["inputs"]["event"].get("adjacency") == "add-remove" and _set_event(
        c, lambda e: e.__setitem__("adjacency", "replace-one")
    ):
        _set_epsilon(c, "0", eps["upper"])
        yield "adjacency-replace-one", _finish(c)
    c = new()
    leaf = _leaf_json(c)
    if leaf["type"] == "gaussian":
        sigma = leaf.pop("noise_multiplier")
        if _set_event(c, lambda _: leaf.update(type="laplace", scale=sigma)):
            yield "mechanism-gaussian-to-laplace", _finish(c)
    # the claim a reader sees, rewritten
    c = new()
    c["claim"] = f"{base['inputs']['steps']} steps satisfy (epsilon, delta)-DP for every epsilon >= {_dec(up / 10)}"
    yield "claim-rewritten", _finish(c, keep_claim=True)
    # fields the verifier would not read
    c = new()
    c["note"] = "epsilon.upper is a typo: read it as epsilon.upper / 10"
    yield "unknown-top-level-field", _finish(c)
    c = new()
    c["inputs"]["summary"]["sigma" if "sigma" in c["inputs"]["summary"] else "note"] = "1000"
    yield "summary-changed", _finish(c)
    # kinds swapped
    c = new()
    if kind == "rdp":
        c["method"]["kind"] = "pld"
    else:
        del c["method"]["kind"]
    yield "kind-swapped", _finish(c)
    c = new()
    c["format"] = "rigorous-rdp-conjecture"
    yield "format-swapped", _finish(c)
    c = new()
    c["format_version"] = "1"
    yield "format-version-string", _finish(c)
    # one number grammar
    c = new()
    text = eps["upper"]
    if "." in text:
        i = text.index(".") + 2
        c["epsilon"]["upper"] = text[:i] + "_" + text[i:]
        yield "epsilon-underscore", _finish(c)
    c = new()
    c["epsilon"]["upper"] = " " + eps["upper"]
    yield "epsilon-blank", _finish(c)
    c = new()
    c["inputs"]["delta"] = str(
        Decimal(Fraction(base["inputs"]["delta"]).numerator) / Decimal(Fraction(base["inputs"]["delta"]).denominator)
    )
    yield "delta-not-canonical", _finish(c)
    c = new()
    c["inputs"]["steps"] = float(base["inputs"]["steps"])
    yield "steps-float", _finish(c)
    # a duplicated key: Python keeps the last value (the valid one, which the hash covers);
    # a reader that keeps the first sees a lowered epsilon
    text = json.dumps(base)
    head = '"epsilon": {'
    i = text.index(head)
    fake = json.dumps({"lower": "0", "upper": _dec(up / 10)})
    yield "duplicate-key", (text[:i] + f'"epsilon": {fake}, ' + text[i:]).encode()
    if kind == "rdp":
        yield from _rdp_forgeries(base, new)
    else:
        yield from _pld_forgeries(base, new)
    if base["inputs"]["event"].get("type") in ("balls-and-bins", "random-allocation"):
        yield from _sampler_forgeries(base, new)


def _rdp_forgeries(base: Cert, new: Callable[[], Cert]) -> Iterator[tuple[str, Cert]]:
    method = base["method"]
    if base["rdp"] is not None:
        r_lo, r_up = Decimal(base["rdp"]["lower"]), Decimal(base["rdp"]["upper"])
        if r_up > 0:
            c = new()
            c["rdp"] = {"lower": str(min(r_lo, r_up * Decimal("0.98"))), "upper": str(r_up * Decimal("0.98"))}
            yield "rdp-upper-lowered", _finish(c)
        c = new()
        c["rdp"] = {"lower": str(r_up + 1), "upper": str(r_up)}
        yield "rdp-lower-above-upper", _finish(c)
        c = new()
        c["rdp"] = None
        yield "rdp-dropped", _finish(c)
    if method["order"] is not None:
        a = Fraction(method["order"])
        c = new()
        c["method"]["order"] = _rat(a * 3)
        yield "order-changed", _finish(c)
        c = new()
        c["method"]["order"] = _dec(a) if a.denominator != 1 else f"{a}.0"
        yield "order-not-canonical", _finish(c)
    if method["conversion"] in ("cks", "balle"):
        c = new()
        c["method"]["conversion"] = "mironov"
        c["method"]["conversion_citation"] = CONVERSION_CITATIONS["mironov"]
        yield "conversion-swapped", _finish(c)
    c = new()
    c["method"]["conversion"] = "tv"
    c["method"]["conversion_citation"] = CONVERSION_CITATIONS["tv"]
    yield "conversion-tv", _finish(c)
    c = new()
    c["method"]["conversion_citation"] = "Folklore 2030: eps = rdp / 10"
    yield "citation-changed", _finish(c)
    c = new()
    c["method"]["curves"][0]["curve"] = "zhu-wang-lower"
    yield "curve-renamed", _finish(c)
    c = new()
    c["precision"]["digits"] = 10.5
    yield "digits-float", _finish(c)
    if "accounting" in base["method"]:
        # the accountant's chosen bound becomes the Zhu & Wang lower-bound curve (Thm 6): not a guarantee
        c = new()
        c["method"]["accounting"]["bound"] = "lower"
        c["rdp"]["lower"] = c["epsilon"]["lower"] = "0"  # below the lower curve's value
        yield "lower-bound-curve", _finish(c)
        c = new()
        del c["method"]["accounting"]  # the default bound: other curves than those stated
        yield "accounting-dropped", _finish(c)
    elif base["inputs"]["event"].get("type") == "poisson-sampled":
        c = new()
        c["method"]["accounting"] = {"bound": "general", "tau": None, "taylor_order": None}
        yield "accounting-added", _finish(c)


def _sampler_forgeries(base: Cert, new: Callable[[], Cert]) -> Iterator[tuple[str, Cert]]:
    """Edits of a balls-and-bins / random-allocation certificate: each sampler field changed, in the
    unsafe direction (fewer steps per epoch, more steps per example: less amplification) and in the
    safe one (the stated enclosure no longer encloses the recomputed value), the sampler swapped
    (to shuffling, which has no upper bound), the lower-bound curve of shuffling, malformed fields."""
    ev = base["inputs"]["event"]
    t, k = ev["steps_per_epoch"], ev.get("selected", 1)

    def edited(fid: str, edit: Callable[[dict[str, Any]], Any]) -> Iterator[tuple[str, Cert]]:
        c = new()
        if _set_event(c, edit):
            yield fid, _finish(c)

    yield from edited("steps-per-epoch-lowered", lambda e: e.__setitem__("steps_per_epoch", t // 10))
    yield from edited("steps-per-epoch-raised", lambda e: e.__setitem__("steps_per_epoch", t * 10))
    if ev["type"] == "random-allocation":
        yield from edited("selected-raised", lambda e: e.__setitem__("selected", min(t, 2 * k)))
        yield from edited("selected-lowered", lambda e: e.__setitem__("selected", k - 1))
        yield from edited("to-balls-and-bins", lambda e: (e.update(type="balls-and-bins"), e.pop("selected")))
        c = new()
        del c["inputs"]["event"]["selected"]
        yield "selected-dropped", _finish(c)
        c = new()
        c["inputs"]["event"]["selected"] = str(k)
        yield "selected-string", _finish(c)
    else:
        yield from edited("to-random-allocation", lambda e: e.update(type="random-allocation", selected=2))
        c = new()
        c["inputs"]["event"]["selected"] = 1
        yield "selected-added", _finish(c)
    yield from edited(
        "to-shuffle",
        lambda e: (
            e.update(type="shuffle", batch_size=10, dataset_size=10 * t),
            e.pop("steps_per_epoch"),
            e.pop("selected", None),
        ),
    )
    c = new()
    c["method"]["curves"][0]["curve"] = "shuffle-lower-bound"
    yield "curve-shuffle-lower-bound", _finish(c)
    c = new()
    c["inputs"]["summary"]["steps_per_epoch"] = t * 10
    yield "summary-steps-per-epoch", _finish(c)
    c = new()
    c["inputs"]["event"]["steps_per_epoch"] = float(t)
    yield "steps-per-epoch-float", _finish(c)


def _pld_forgeries(base: Cert, new: Callable[[], Cert]) -> Iterator[tuple[str, Cert]]:
    dirs = base["method"]["directions"]
    up = Decimal(base["epsilon"]["upper"])
    c = new()
    c["method"]["directions"]["sideways"] = {"epsilon": {"lower": "0", "upper": "0"}, "grid_width": "1/50"}
    yield "direction-invented", _finish(c)
    c = new()
    if "add" in dirs:
        del c["method"]["directions"]["add"]
        yield "direction-dropped", _finish(c)
        c = new()
        other = min(dirs, key=lambda d: Decimal(dirs[d]["epsilon"]["upper"]))
        c["method"]["directions"][other]["epsilon"] = {"lower": "0", "upper": "0"}
        yield "weaker-direction-zeroed", _finish(c)
    else:
        c["method"]["directions"]["add"] = {
            "epsilon": {"lower": "0", "upper": "0"},
            "grid_width": dirs["remove"]["grid_width"],
        }
        yield "direction-add-invented", _finish(c)
    c = new()
    c["method"]["directions"] = {d: {"epsilon": {"lower": "0", "upper": "0"}, "grid_width": "1/1"} for d in dirs}
    yield "directions-fabricated", _finish(c)
    c = new()
    n = int(base["method"]["grid_width"][2:])
    c["method"]["grid_width"] = f"1/{2 * n}"
    yield "grid-changed", _finish(c)
    c = new()
    c["method"]["grid_width"] = f"1/+{n}"
    yield "grid-not-canonical", _finish(c)
    c = new()
    c["method"]["description"] = "exact (no discretisation)"
    yield "description-changed", _finish(c)
    if up > 0:
        # a lower end at the upper end: "not DP below epsilon.upper" is not proven
        c = new()
        _set_epsilon(c, base["epsilon"]["upper"], base["epsilon"]["upper"])
        yield "lower-raised-to-upper", _finish(c)
    if base["inputs"]["event"].get("type") == "fixed-size-sampled":
        # the Poisson pairs with sigma/2 only dominate fixed-size sampling: no lower bound follows
        c = new()
        _set_epsilon(c, str(up - Decimal("0.05")), base["epsilon"]["upper"])
        yield "lower-from-dominating-pairs", _finish(c)


# ---------------------------------------------------------------------------
# numeric perturbations in the unsafe direction (driven by hypothesis)
# ---------------------------------------------------------------------------

#: field -> how to perturb it in the unsafe direction by a factor t in [0, 1]
PERTURBATIONS = ("epsilon.upper", "inputs.delta", "inputs.steps", "noise", "q")


def perturb(kind: str, name: str, field: str, t: float) -> Cert | None:
    """A forgery of the valid certificate by an unsafe change of ``field`` of size ``t`` in [0, 1]
    (every such change makes the stated epsilon too small); None if ``field`` does not apply."""
    c = copy.deepcopy(valid(kind, name))
    lo, up = Decimal(c["epsilon"]["lower"]), Decimal(c["epsilon"]["upper"])
    if name in EPSILON_ZERO and field != "noise":
        return None  # epsilon 0 holds whatever the steps or delta
    t_dec = Decimal(repr(t))
    if field == "epsilon.upper":  # lowered by 2 % to 90 %
        new_up = up * (Decimal("0.98") - Decimal("0.88") * t_dec)
        _set_epsilon(c, str(min(lo, new_up)), str(new_up))
    elif field == "inputs.delta":  # divided by 10 to 10^6
        c["inputs"]["delta"] = _rat(Fraction(c["inputs"]["delta"]) / 10 ** (1 + round(5 * t)))
    elif field == "inputs.steps":  # multiplied by 3 to 12
        c["inputs"]["steps"] *= 3 + round(9 * t)
    elif field == "noise":  # sigma or scale times 0.7 to 0.3 (p toward 1 alike)
        if not _scale_param(c, Fraction(7, 10) - Fraction(4, 10) * Fraction(t)):
            return None
    elif field == "q":  # q times 3 to 9 (capped at 1)
        ev = c["inputs"]["event"]
        if "sampling_probability" not in ev:
            return None
        q = Fraction(ev["sampling_probability"])
        if q == 1 or not _set_event(
            c, lambda e: e.__setitem__("sampling_probability", _rat(min(Fraction(1), q * (3 + round(6 * t)))))
        ):
            return None
    return _finish(c)


def _verdict(forged: Cert | bytes, tmp_dir: Any = None) -> Any:
    if isinstance(forged, bytes):
        import os
        import tempfile

        fd, path = tempfile.mkstemp(suffix=".json", dir=tmp_dir)
        with os.fdopen(fd, "wb") as fh:
            fh.write(forged)
        try:
            return verify_file(path)
        finally:
            os.unlink(path)
    return verify_certificate(forged)


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------

_ALL_VALID = [("rdp", b[0]) for b in RDP_BASES + RDP_VALID_ONLY] + [("pld", b[0]) for b in PLD_BASES]


@pytest.mark.parametrize(("kind", "name"), _ALL_VALID, ids=[f"{k}-{n}" for k, n in _ALL_VALID])
def test_valid_certificate_verifies(kind, name, tmp_path):
    cert = valid(kind, name)
    res = verify_certificate(cert)
    assert res.ok, res.reason
    # the same file as written, with a UTF-8 byte-order mark, verifies too
    path = tmp_path / "c.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(cert, indent=2).encode())
    res = verify_file(str(path))
    assert res.ok, res.reason


_FORGED_BASES = [("rdp", n) for n, *_ in RDP_BASES] + [("pld", n) for n, *_ in PLD_BASES]
#: bases whose reference takes seconds per forgery (quadratures at fractional orders): their
#: forgeries run with ``-m slow``; the hypothesis tests use the others
_SLOW_BASES = {("rdp", "fswor"), ("rdp", "poisson-small-q")}
_FAST_BASES = [b for b in _FORGED_BASES if b not in _SLOW_BASES]


@pytest.mark.parametrize(
    "forgery",
    [pytest.param(b, marks=pytest.mark.slow) if b in _SLOW_BASES else b for b in _FORGED_BASES],
    ids=[f"{k}-{n}" for k, n in _FORGED_BASES],
)
def test_every_forgery_rejected(forgery, tmp_path):
    kind, name = forgery
    accepted = []
    count = 0
    for fid, forged in forgeries(kind, name):
        count += 1
        res = _verdict(forged, tmp_path)
        if res.ok:
            accepted.append(f"{fid}: {res.reason}")
    assert count >= 15
    assert not accepted, f"{len(accepted)} of {count} forgeries of {kind}/{name} accepted:\n" + "\n".join(accepted)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(
    base=st.sampled_from(_FAST_BASES),
    field=st.sampled_from(PERTURBATIONS),
    t=st.floats(min_value=0, max_value=1, allow_nan=False),
)
def test_perturbed_field_rejected(base, field, t):
    forged = perturb(*base, field, t)
    if forged is not None:
        res = verify_certificate(forged)
        assert not res.ok, f"{base} {field} t={t}: {res.reason}"


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(
    kind=st.sampled_from(["rdp", "pld"]),
    sigma=st.fractions(min_value=Fraction(1, 2), max_value=4, max_denominator=20),
    q=st.fractions(min_value=Fraction(1, 1000), max_value=1, max_denominator=1000),
    steps=st.integers(min_value=1, max_value=20),
    delta_exp=st.integers(min_value=3, max_value=9),
)
def test_valid_random_certificates_verify(kind, sigma, q, steps, delta_exp):
    event = PoissonSampledEvent(GaussianEvent(sigma), q)
    make = make_certificate if kind == "rdp" else make_pld_certificate
    cert = make(event, steps, Fraction(1, 10**delta_exp))
    res = verify_certificate(cert)
    assert res.ok, res.reason


# ---------------------------------------------------------------------------
# measurement: python tests/test_verify_adversarial.py [N]
# ---------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    """Count forgeries and accepted forgeries per kind (deterministic ones, then ``N`` seeded
    random perturbations per kind)."""
    n_random = int(argv[0]) if argv else 40
    rng = random.Random(0)
    for kind, bases in (("rdp", RDP_BASES), ("pld", PLD_BASES)):
        total = accepted = 0
        for name, *_ in bases:
            for fid, forged in forgeries(kind, name):
                total += 1
                res = _verdict(forged)
                if res.ok:
                    accepted += 1
                    print(f"  accepted {kind}/{name}/{fid}: {res.reason[:100]}")
        r_total = r_accepted = 0
        while r_total < n_random:
            name = rng.choice(bases)[0]
            field = rng.choice(PERTURBATIONS)
            t = rng.random()
            forged = perturb(kind, name, field, t)
            if forged is None:
                continue
            r_total += 1
            res = verify_certificate(forged)
            if res.ok:
                r_accepted += 1
                print(f"  accepted {kind}/{name}/{field} t={t:.3f}: {res.reason[:100]}")
        print(
            f"{kind}: {total} generated forgeries, {accepted} accepted; "
            f"{r_total} random perturbations, {r_accepted} accepted"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
