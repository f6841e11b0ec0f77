"""Adversarial suite for ``verify`` on Conjecture 1 certificates (kinds violation, holds, holds-boxes).

A forger edits a field in the direction that makes the claim stronger than the truth (or swaps kinds,
edits the generated texts, claims a statement for a configuration where it is known to be false),
then recomputes the SHA-256 digest from the documented recipe (canonical JSON of everything but
``sha256``).  Every forgery must be rejected; every valid certificate must verify.

"Known false" always rests on values computed here, outside the verifier: mpmath quadrature of the
mixture densities written out from the definition, closed forms of the RHS, the LHS of the
equilateral triangle from an independent 2-d quadrature (scipy ``nquad`` agrees to 10 digits, see
``tests/test_conjecture_certificate.py``), and, for random 1-d configurations, the toolkit's own
certified enclosure (``certify_config``: acb.integral, a different code path from ``verify``).

The forgeries are listed in :data:`FORGERIES` (deterministic) plus the Hypothesis-driven tests;
``python tests/test_verify_adversarial_conjecture.py`` prints how many are generated and accepted
per kind.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import json
import time
from collections.abc import Callable
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigorous_rdp.certificate import verify_certificate
from rigorous_rdp.research.conjecture import ProbeConfig, certify_config
from rigorous_rdp.research.conjecture_certificate import make_holds_certificate, make_violation_certificate

BOXES_FILE = Path(__file__).parent / "data" / "conjecture_proof_n2_m1_l2_s2.json"
#: the equilateral triangle of the README (range model, d = 2): ratio about 1.154 > 1
TRI = ProbeConfig("range", 50, 1, F(0), F(1), F(2), ((F(0), F(0)),), (49,), (F(1), F(0)), (F(1, 2), F(866, 1000)))
#: LHS of TRI, 2-d quadrature outside the project (tests/test_conjecture_certificate.py)
TRI_LHS = mpmath.mpf("7.9314620962e-4")
#: a 1-d configuration where LHS <= RHS (ratio about 0.4245)
C1 = ProbeConfig("range", 3, 1, F(0), F(1), F(4), ((F(1, 2),), (F(0),)), (1, 1), (F(1),), (F(0),))


def digest(cert: dict[str, Any]) -> str:
    """The documented digest: SHA-256 of the canonical JSON of every field but ``sha256``."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def forge(cert: dict[str, Any], mutate: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    bad = copy.deepcopy(cert)
    mutate(bad)
    bad["sha256"] = digest(bad)
    return bad


def rhs_closed_form(lam: int, r: Any, sigma: Any) -> Any:
    """D_lambda(r mu_1 + (1-r) mu_0 || mu_0) for an integer order: (9.5) of the blog post."""
    g = mpmath.fsum(
        mpmath.binomial(lam, j) * r**j * (1 - r) ** (lam - j) * mpmath.exp(mpmath.mpf(j * (j - 1)) / (2 * sigma**2))
        for j in range(lam + 1)
    )
    return mpmath.log(g) / (lam - 1)


def g_1d(p_atoms: list[tuple[Any, Any]], q_atoms: list[tuple[Any, Any]], lam: Any, sigma: Any) -> Any:
    """G_lambda = int p^lam q^(1-lam) of two 1-d Gaussian mixtures [(weight, mean)], mpmath.quad."""

    def f(y: Any) -> Any:
        p = mpmath.fsum(w * mpmath.npdf(y, m, sigma) for w, m in p_atoms)
        q = mpmath.fsum(w * mpmath.npdf(y, m, sigma) for w, m in q_atoms)
        return p**lam * q ** (1 - lam)

    return mpmath.quad(f, [-mpmath.inf, -8 * sigma - lam, 0, 1, 2, lam + 8 * sigma + 4, mpmath.inf])


def g_boxes_case(n: int, m: int, lam: int, sigma: Any, theta: list[Any]) -> Any:
    """G of the holds-boxes setting (rows x_1..x_{n-1}; u, u' for row n; m-subsets), mpmath.quad."""
    subs = list(itertools.combinations(range(n), m))
    rows_p = [*theta[: n - 1], theta[n - 1]]
    rows_q = [*theta[: n - 1], theta[n]]
    w = mpmath.mpf(1) / len(subs)
    p_atoms = [(w, mpmath.fsum(rows_p[i] for i in S)) for S in subs]
    q_atoms = [(w, mpmath.fsum(rows_q[i] for i in S)) for S in subs]
    return g_1d(p_atoms, q_atoms, lam, sigma)


@functools.cache
def _c1_truth() -> tuple[Any, Any]:
    """(LHS, RHS) of C1 from the definition: n = 3 rows 1/2, 0 and u = 1 (x) or u' = 0 (x'), m = 1."""
    with mpmath.workdps(30):
        third = mpmath.mpf(1) / 3
        p = [(third, mpmath.mpf(1) / 2), (third, 0), (third, 1)]
        q = [(third, mpmath.mpf(1) / 2), (third, 0), (third, 0)]
        lhs = mpmath.log(g_1d(p, q, 4, 1)) / 3
        return +lhs, +rhs_closed_form(4, third, mpmath.mpf(1))


@functools.cache
def valid_violation() -> dict[str, Any]:
    return make_violation_certificate(TRI)


@functools.cache
def valid_holds() -> dict[str, Any]:
    return make_holds_certificate(C1)


@functools.cache
def valid_boxes() -> dict[str, Any]:
    return json.loads(BOXES_FILE.read_text())


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(c: dict[str, Any]) -> None:
        obj = c
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value

    return mutate


def _del(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def mutate(c: dict[str, Any]) -> None:
        obj = c
        for k in path[:-1]:
            obj = obj[k]
        del obj[path[-1]]

    return mutate


def _tri_truth() -> tuple[Any, Any]:
    with mpmath.workdps(30):
        return TRI_LHS, mpmath.log(1 + (mpmath.e - 1) / 2500)


def _violation_forgeries() -> list[tuple[str, Callable[[dict[str, Any]], Any]]]:
    lhs, rhs = _tri_truth()
    up = lambda x, f: mpmath.nstr(x * f, 15)  # noqa: E731
    holds_cfg = C1.to_json()
    poisson = ProbeConfig(
        "poisson", 20, 0, F(1, 10), F(1), F(2), ((F(0), F(0)),), (19,), (F(3, 5), F(4, 5)), (F(0), F(0))
    ).to_json()
    return [
        ("ratio_lower above the true ratio", _set(["claim", "ratio_lower"], up(lhs / rhs, 1.001))),
        ("ratio_lower far above", _set(["claim", "ratio_lower"], "3")),
        ("lhs_lower above the true LHS", _set(["claim", "lhs_lower"], up(lhs, 1.01))),
        ("rhs_upper below the true RHS", _set(["claim", "rhs_upper"], up(rhs, 0.99))),
        ("config: a 1-d configuration where LHS <= RHS", _set(["config"], holds_cfg)),
        ("config: Poisson model (a theorem: ratio <= 1)", _set(["config"], poisson)),
        ("config: u' moved outside the model", _set(["config", "u_prime"], ["1/2", "9/10"])),
        ("config: lambda changed", _set(["config", "lambda"], "3")),
        ("kind swapped to holds", _set(["kind"], "holds")),
        ("kind swapped to holds-boxes", _set(["kind"], "holds-boxes")),
        ("statement rewritten", _set(["statement"], "Conjecture 1 is false for every configuration")),
        ("partition text rewritten", _set(["method", "partition"], "any partition")),
        ("extra claim field", _set(["claim", "note"], "ratio >= 2")),
        ("claim field removed", _del(["claim", "lhs_lower"])),
        ("h = 0", _set(["method", "h"], "0")),
        ("h negative", _set(["method", "h"], "-1/4")),
        ("lo above hi", _set(["method", "lo"], ["100", "100"])),
        ("format_version 2", _set(["format_version"], 2)),
    ]


def _holds_forgeries() -> list[tuple[str, Callable[[dict[str, Any]], Any]]]:
    lhs, rhs = _c1_truth()
    s = lambda x: mpmath.nstr(x, 15)  # noqa: E731
    tri = TRI.to_json()
    fake = {"lhs_upper": "0.0005", "rhs_lower": "0.00068", "ratio_upper": "0.74", "verdict": "holds"}
    return [
        ("ratio_upper below the true ratio", _set(["claim", "ratio_upper"], s(lhs / rhs * mpmath.mpf("0.999")))),
        ("lhs_upper below the true LHS", _set(["claim", "lhs_upper"], s(lhs * mpmath.mpf("0.99")))),
        ("rhs_lower above the true RHS", _set(["claim", "rhs_lower"], s(rhs * mpmath.mpf("1.01")))),
        ("verdict equal (not the RHS pair)", _set(["claim", "verdict"], "equal")),
        ("verdict violated", _set(["claim", "verdict"], "violated")),
        ("config: the violated 2-d triangle, claim consistent", lambda c: c.update(config=tri, claim=fake)),
        (
            "config: triangle, verdict equal, ratio_upper 2",
            lambda c: c.update(config=tri, claim=dict(fake, verdict="equal", ratio_upper="2")),
        ),
        ("config: sigma halved", _set(["config", "sigma"], "1/2")),
        ("kind swapped to violation", _set(["kind"], "violation")),
        ("statement rewritten", _set(["statement"], "Conjecture 1 holds")),
        ("extra claim field", _set(["claim", "scope"], "all configurations")),
        ("sha256 not recomputed", None),  # type: ignore[list-item]
    ]


def _box_points(rec: list[Any]) -> list[list[F]]:
    """The stated point and every vertex of a box (exact)."""
    box = [(F(lo), F(hi)) for lo, hi in rec[0]]
    pts = [list(v) for v in itertools.product(*box)]
    if rec[3] is not None:
        pts.append([F(x) for x in rec[3]])
    return pts


@functools.cache
def _box_max_g(i: int, vertices: bool = True) -> Any:
    """Largest mpmath G over the stated point (and the vertices) of box ``i``: a lower bound of its sup."""
    cert = valid_boxes()
    case = cert["case"]
    n, m, lam = case["n"], case["m"], case["lambda"]
    rec = cert["boxes"][i]
    pts = _box_points(rec) if vertices else _box_points(rec)[-1:]
    with mpmath.workdps(25):
        s = mpmath.mpf(F(case["sigma"]).numerator) / F(case["sigma"]).denominator
        return max(g_boxes_case(n, m, lam, s, [mpmath.mpf(x.numerator) / x.denominator for x in pt]) for pt in pts)


def _lower_box(i: int, factor: Any, vertices: bool = True) -> Callable[[dict[str, Any]], None]:
    def mutate(c: dict[str, Any]) -> None:
        rec = c["boxes"][i]
        if rec[1] == "extremal":  # claim a bound below the RHS for the box where G reaches it
            rec[1] = "monotone"
        rec[2] = mpmath.nstr(_box_max_g(i, vertices) * factor, 15)

    return mutate


def _boxes_forgeries() -> list[tuple[str, Callable[[dict[str, Any]], Any]]]:
    cert = valid_boxes()
    nb = len(cert["boxes"])
    ext = next(i for i, b in enumerate(cert["boxes"]) if b[1] == "extremal")
    mono = next(i for i, b in enumerate(cert["boxes"]) if b[1] == "monotone")
    tay = [i for i, b in enumerate(cert["boxes"]) if b[1] == "taylor"]
    rhs = rhs_closed_form(2, mpmath.mpf(1) / 2, mpmath.mpf(2))
    g_rhs = mpmath.exp(rhs)
    out: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        (
            f"box {i} ({cert['boxes'][i][1]}): bound just below its largest vertex value",
            _lower_box(i, 1 - mpmath.mpf(10) ** -9),
        )
        for i in (tay[0], tay[len(tay) // 2], tay[-1], mono)
    ]
    out += [
        ("extremal box relabelled monotone, bound below the RHS", _lower_box(ext, 1 - mpmath.mpf(10) ** -6)),
        (
            "every taylor bound lowered 1e-9 below G at its stated point",
            lambda c: [_lower_box(i, 1 - mpmath.mpf(10) ** -9, vertices=False)(c) for i in tay],
        ),
        (
            "rhs_g lower above the true RHS",
            _set(["rhs_g", "lower"], mpmath.nstr(g_rhs * (1 + mpmath.mpf(10) ** -9), 15)),
        ),
        (
            "rhs_g upper below the true RHS",
            _set(["rhs_g", "upper"], mpmath.nstr(g_rhs * (1 - mpmath.mpf(10) ** -9), 15)),
        ),
        ("a box removed", lambda c: c["boxes"].pop(nb // 2)),
        ("an outside box that meets the domain", lambda c: c["outside"].append([["0", "1"]] * 3)),
        ("a bound above the RHS", _set(["boxes", tay[0], 2], "2")),
        ("taylor relabelled monotone", _set(["boxes", tay[0], 1], "monotone")),
        ("unknown method", _set(["boxes", tay[0], 1], "trust-me")),
        ("complete flipped", _set(["complete"], False)),
        ("an open box added", lambda c: c.update(open=[[*c["boxes"].pop(tay[0])[:1], None]], complete=False)),
        ("summary: one more proven box", lambda c: c["summary"].update(boxes_proven=c["summary"]["boxes_proven"] + 1)),
        ("summary: methods counts", lambda c: c["summary"].update(methods={"extremal": nb})),
        ("summary: sigma", _set(["summary", "sigma"], "1")),
        ("case sigma 1 (rhs_g and summary rewritten for it)", _sigma_forgery),
        ("case lambda as a string", _set(["case", "lambda"], "2")),
        ("case lambda 2.5", lambda c: [c["case"].update(**{"lambda": 2.5}), c["summary"].update(**{"lambda": 2.5})]),
        ("case r inconsistent", _set(["case", "r"], "1/3")),
        ("case model clip", _set(["case", "model"], "clip")),
        ("statement rewritten", _set(["statement"], "for every dataset of every size: ratio <= 1")),
        ("domain text rewritten", _set(["domain"], "boxes tile [0,1]^3")),
        ("kind swapped to holds", _set(["kind"], "holds")),
        ("format_version 2", _set(["format_version"], 2)),
    ]
    return out


def _sigma_forgery(c: dict[str, Any]) -> None:
    """Claim the same boxes for sigma = 1 (where G is larger), RHS written correctly for sigma = 1."""
    g = mpmath.exp(rhs_closed_form(2, mpmath.mpf(1) / 2, mpmath.mpf(1)))
    rg = {
        "lower": mpmath.nstr(g * (1 - mpmath.mpf(10) ** -13), 15),
        "upper": mpmath.nstr(g * (1 + mpmath.mpf(10) ** -13), 15),
    }
    c["case"]["sigma"] = "1"
    c["rhs_g"] = rg
    c["summary"].update(sigma="1", rhs_g=rg)


FORGERIES: dict[str, Callable[[], list[tuple[str, Any]]]] = {
    "violation": _violation_forgeries,
    "holds": _holds_forgeries,
    "holds-boxes": _boxes_forgeries,
}
VALID: dict[str, Callable[[], dict[str, Any]]] = {
    "violation": valid_violation,
    "holds": valid_holds,
    "holds-boxes": valid_boxes,
}


def _make(kind: str, index: int) -> dict[str, Any]:
    _name, mutate = FORGERIES[kind]()[index]
    cert = VALID[kind]()
    if mutate is None:  # a field changed, digest left as it was
        bad = copy.deepcopy(cert)
        bad["claim"]["ratio_upper"] = "0.1"
        return bad
    return forge(cert, mutate)


_CASES = [
    pytest.param(kind, i, id=f"{kind}-{i}")
    for kind, n in (("violation", 18), ("holds", 12), ("holds-boxes", 27))
    for i in range(n)
]


def test_case_counts_match_the_lists():
    assert [len(FORGERIES[k]()) for k in ("violation", "holds", "holds-boxes")] == [18, 12, 27]


@pytest.mark.parametrize("kind", ["violation", "holds", "holds-boxes"])
def test_valid_certificate_verifies(kind):
    res = verify_certificate(VALID[kind]())
    assert res.ok, res.reason


@pytest.mark.parametrize(("kind", "index"), _CASES)
def test_forgery_is_rejected(kind, index):
    name = FORGERIES[kind]()[index][0]
    res = verify_certificate(_make(kind, index))
    assert not res.ok, f"{kind} forgery accepted: {name}: {res.reason}"


def test_the_forged_box_claims_are_false():
    """The lowered bounds are below G at a point of their box (mpmath): the claims are false."""
    cert = valid_boxes()
    for i in (0, len(cert["boxes"]) - 1):
        bad = forge(cert, _lower_box(i, 1 - mpmath.mpf(10) ** -9))
        assert mpmath.mpf(bad["boxes"][i][2]) < _box_max_g(i)


# --------------------------------------------------------------------------------------------
# Hypothesis-driven perturbations
# --------------------------------------------------------------------------------------------

_factor = st.floats(min_value=1e-9, max_value=0.5, allow_nan=False, allow_infinity=False)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(["ratio_lower", "lhs_lower", "rhs_upper"]), eps=_factor)
def test_violation_claims_pushed_past_the_truth_are_rejected(field, eps):
    lhs, rhs = _tri_truth()
    truth = {"ratio_lower": lhs / rhs, "lhs_lower": lhs, "rhs_upper": rhs}[field]
    value = truth * (1 - eps) if field == "rhs_upper" else truth * (1 + eps)
    bad = forge(valid_violation(), _set(["claim", field], mpmath.nstr(value, 15)))
    assert not verify_certificate(bad).ok


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(["ratio_upper", "lhs_upper", "rhs_lower"]), eps=_factor)
def test_holds_claims_pushed_past_the_truth_are_rejected(field, eps):
    lhs, rhs = _c1_truth()
    truth = {"ratio_upper": lhs / rhs, "lhs_upper": lhs, "rhs_lower": rhs}[field]
    value = truth * (1 + eps) if field == "rhs_lower" else truth * (1 - eps)
    bad = forge(valid_holds(), _set(["claim", field], mpmath.nstr(value, 15)))
    assert not verify_certificate(bad).ok


_grid = st.integers(min_value=0, max_value=8).map(lambda k: F(k, 8))


@st.composite
def one_d_configs(draw: Any) -> ProbeConfig:
    n = draw(st.integers(min_value=2, max_value=5))
    m = draw(st.integers(min_value=1, max_value=n - 1))
    k = draw(st.integers(min_value=1, max_value=min(2, n - 1)))
    vals = tuple((draw(_grid),) for _ in range(k))
    counts = [1] * (k - 1) + [n - 1 - (k - 1)]
    return ProbeConfig(
        "range",
        n,
        m,
        F(0),
        draw(st.sampled_from([F(1, 2), F(1), F(2)])),
        F(draw(st.integers(min_value=2, max_value=4))),
        vals,
        tuple(counts),
        (draw(_grid),),
        (draw(_grid),),
    )


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=one_d_configs(), eps=st.floats(min_value=1e-6, max_value=0.5))
def test_holds_claims_for_a_configuration_with_a_larger_ratio_are_rejected(cfg, eps):
    """The holds certificate of C1 moved to another 1-d configuration, its ratio_upper kept or put
    below that configuration's certified ratio (acb.integral, not the verifier's quadrature)."""
    res = certify_config(cfg, 8)
    ratio_lo = mpmath.mpf(res["ratio"].ball.lower().str(20, radius=False))
    stated = min(mpmath.mpf(valid_holds()["claim"]["ratio_upper"]), ratio_lo * (1 - eps))
    if not stated > 0:
        return  # p == q: nothing to forge
    bad = forge(
        valid_holds(),
        lambda c: [c.update(config=cfg.to_json()), c["claim"].update(ratio_upper=mpmath.nstr(stated, 15))],
    )
    assert not verify_certificate(bad).ok


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_box_bound_lowered_below_a_point_value_is_rejected(data):
    cert = valid_boxes()
    i = data.draw(st.integers(min_value=0, max_value=len(cert["boxes"]) - 1))
    eps = data.draw(st.floats(min_value=1e-9, max_value=0.2))
    bad = forge(cert, _lower_box(i, 1 - mpmath.mpf(eps), vertices=False))
    assert not verify_certificate(bad).ok


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=one_d_configs())
def test_valid_holds_certificates_of_random_configurations_verify(cfg):
    try:
        cert = make_holds_certificate(cfg)
    except ValueError:
        return  # not proven at this configuration (or violated): no certificate to check
    res = verify_certificate(cert)
    assert res.ok, res.reason


# --------------------------------------------------------------------------------------------
# holds-region (sigma in an interval) and the parallel re-proof (--jobs)
# --------------------------------------------------------------------------------------------

REGION_FILE = Path(__file__).parent / "data" / "conjecture_region_n2_m1_l2_s3-4.json"


@functools.cache
def valid_region() -> dict[str, Any]:
    return json.loads(REGION_FILE.read_text())


def _h_at(point: list[str]) -> Any:
    """h(theta, t) = G_1(t theta) - RHS(t) of the region certificate (n = 2, m = 1, lambda = 2), mpmath:
    G of the scaled configuration at sigma = 1, RHS from the closed form (9.5)."""
    with mpmath.workdps(30):
        t = mpmath.mpf(F(point[-1]).numerator) / F(point[-1]).denominator
        theta = [t * mpmath.mpf(F(x).numerator) / F(x).denominator for x in point[:-1]]
        g = g_boxes_case(2, 1, 2, mpmath.mpf(1), theta)
        rhs = mpmath.exp(rhs_closed_form(2, mpmath.mpf(1) / 2, 1 / t))
        return g - rhs


def _lower_region_box(i: int) -> Callable[[dict[str, Any]], None]:
    """State box i's bound 1e-6 (relative) below h at its own point: a false claim."""

    def mutate(c: dict[str, Any]) -> None:
        rec = c["boxes"][i]
        h = _h_at(rec[3])
        rec[2] = mpmath.nstr(h - abs(h) * mpmath.mpf(10) ** -6, 15)

    return mutate


def _region_extremal_as_taylor(c: dict[str, Any]) -> None:
    """The first extremal box (where h reaches 0) claimed with a Taylor bound below 0."""
    i = next(j for j, rec in enumerate(c["boxes"]) if rec[1] == "extremal")
    box = c["boxes"][i][0]
    c["boxes"][i] = [box, "taylor", "-0.000000001", [str((F(lo) + F(hi)) / 2) for lo, hi in box], [0] * len(box)]
    c["summary"]["methods"] = {
        "taylor": c["summary"]["methods"]["taylor"] + 1,
        "extremal": c["summary"]["methods"]["extremal"] - 1,
    }


def _region_forgeries() -> list[tuple[str, Any]]:
    cert = valid_region()
    tay = [i for i, rec in enumerate(cert["boxes"]) if rec[1] == "taylor"]
    return [
        *[(f"box {i}: bound 1e-6 below h at its point", _lower_region_box(i)) for i in (tay[0], tay[1], tay[-1])],
        ("an extremal box claimed below 0 as taylor", _region_extremal_as_taylor),
        ("a box removed", lambda c: [c["boxes"].pop(1), c["summary"].update(boxes_proven=len(c["boxes"]))]),
        (
            "sigma interval widened to [1, 4]",
            lambda c: [c["case"].update(sigma=["1", "4"]), c["summary"].update(sigma=["1", "4"])],
        ),
    ]


def test_region_forged_bounds_are_false():
    """The lowered region bounds are below h at their own point (mpmath): the claims are false."""
    cert = valid_region()
    for i in (0, 1):
        bad = forge(cert, _lower_region_box(i))
        assert mpmath.mpf(bad["boxes"][i][2]) < _h_at(bad["boxes"][i][3])


@pytest.mark.parametrize(
    "index", [0, 1, pytest.param(2, marks=pytest.mark.slow), 3, 4, 5]
)  # 2: the last box, after all the others are re-proven
def test_region_forgery_is_rejected(index):
    name, mutate = _region_forgeries()[index]
    res = verify_certificate(forge(valid_region(), mutate))
    assert not res.ok, f"holds-region forgery accepted: {name}: {res.reason}"


@pytest.mark.slow
def test_parallel_reproof_gives_the_same_verdicts():
    """--jobs 2 (worker processes) and --jobs 1 (in process): the same verdict and message, for the valid
    holds-boxes and holds-region certificates and for forgeries that fail at a box (the first failing
    box in the certificate's order is the one reported)."""
    cert = valid_boxes()
    cases = [cert, forge(cert, _lower_box(len(cert["boxes"]) - 1, 1 - mpmath.mpf(10) ** -9, vertices=False))]
    cases += [valid_region(), forge(valid_region(), _lower_region_box(1))]
    for c in cases:
        one = verify_certificate(c, jobs=1)
        two = verify_certificate(c, jobs=2)
        assert (one.ok, one.reason) == (two.ok, two.reason)
    assert [verify_certificate(c, jobs=2).ok for c in cases] == [True, False, True, False]


def _never_ends(*args: Any, **kwargs: Any) -> Any:
    while True:
        time.sleep(0.05)


@pytest.mark.parametrize("jobs", [1, 2])
def test_budget_stops_the_reproof_and_its_workers(monkeypatch, jobs):
    """A re-proof that never ends is stopped by the time budget (BudgetExceeded, not a verdict), and no
    worker process is left behind."""
    import multiprocessing

    from rigorous_rdp import budget
    from rigorous_rdp.errors import BudgetExceeded
    from rigorous_rdp.research import conjecture_certificate as cc

    monkeypatch.setattr(cc, "reprove_box", _never_ends)
    before = {p.pid for p in multiprocessing.active_children()}
    with pytest.raises(BudgetExceeded), budget.time_budget(0.5):
        cc.verify_conjecture_certificate(valid_boxes(), jobs=jobs)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and {p.pid for p in multiprocessing.active_children()} - before:
        time.sleep(0.1)
    assert not {p.pid for p in multiprocessing.active_children()} - before


def test_cli_jobs_option():
    from _cli import cmd, run_cli

    status, out, err = run_cli(cmd(f"verify --jobs 0 {BOXES_FILE}"))
    assert status == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()] and "--jobs must be an integer in [1, 256]" in err
    status, out, _ = run_cli(cmd(f"verify --jobs 2 {BOXES_FILE}"))
    assert status == 0 and out.startswith("OK: verified: Conjecture 1 holds")


def test_parallel_reproof_rejects_a_forged_box():
    """On worker processes too, a box whose bound is below G at a point of it fails verify (the first
    box: the run stops there, the workers are stopped)."""
    bad = forge(valid_boxes(), _lower_box(0, 1 - mpmath.mpf(10) ** -9, vertices=False))
    res = verify_certificate(bad, jobs=2)
    assert not res.ok and "is not re-proven by the independent enclosure" in res.reason


def _count() -> None:  # pragma: no cover - a report, run by hand
    for kind in FORGERIES:
        forgeries = FORGERIES[kind]()
        accepted = [name for i, (name, _) in enumerate(forgeries) if verify_certificate(_make(kind, i)).ok]
        print(f"{kind}: {len(forgeries)} forgeries, {len(accepted)} accepted: {accepted}")
        print(f"{kind}: valid certificate verifies: {verify_certificate(VALID[kind]()).ok}")


if __name__ == "__main__":  # pragma: no cover
    _count()
