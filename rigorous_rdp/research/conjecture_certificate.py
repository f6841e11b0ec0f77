r"""Certificates for Conjecture 1 statements (:mod:`rigorous_rdp.research.conjecture`) and their
independent re-check.

Two kinds, both with ``"format": "rigorous-rdp-conjecture"``, ``"format_version": 1``, the
configuration with exact rational coordinates (:meth:`ProbeConfig.to_json`) and a SHA-256 of the
canonical content:

* ``"kind": "violation"`` -- the claim ``ratio > ratio_lower > 1``.  Proof: the cell laws of the
  partition named in ``method`` (cubes of side ``h`` filling the box ``[lo, hi]`` per axis, and the
  complement of the box) are a post-processing of the output, so their Rényi divergence is a lower
  bound of the LHS (data processing); the RHS upper end is certified
  (:func:`rigorous_rdp.research.constant.log_g_mixture`).
* ``"kind": "holds"`` -- the claim ``ratio <= ratio_upper <= 1`` at one 1-d configuration (the
  certified enclosure of :func:`rigorous_rdp.research.conjecture.certify_config`).
* ``"kind": "holds-boxes"`` -- the claim ``ratio <= 1`` for *every* admissible 1-d configuration of
  one case (rows ``n``, batch ``m``, integer order, sigma): the leaves of the branch and bound of
  :mod:`rigorous_rdp.research.conjecture_proof` (closed boxes of ``[0,1]^(n+1)`` with exact rational
  ends, each with its method and its proven upper bound of :math:`G_\lambda(p\|q)`), the boxes that do
  not meet the fundamental domain, and any box left open.  The re-check is exact for the structure
  (the boxes tile ``[0,1]^(n+1)``: a recursive midpoint split that must separate them; the ``outside``
  boxes do not meet the domain; every stated bound is below the stated RHS lower end; the vertex of a
  monotone box is the one its signs select), the RHS is re-summed in mpmath, and for a seeded random
  sample of boxes (``sample`` boxes, default 4: the extremal box and 3 others; all boxes when
  ``sample`` is None) :math:`G_\lambda` is recomputed with
  ``mpmath.quad`` at the stated point and at random points of the box and compared with the stated
  bound, and the stated derivative signs are compared with central differences at a random point.
  The sampled part is a second opinion (mpmath quadrature error is an estimate); the proof is the
  ball arithmetic that produced the bounds.

:func:`verify_conjecture_certificate` re-checks a certificate with an independent mpmath computation:
the configuration is re-parsed and re-checked exactly against its model; the atoms are rebuilt by
enumerating the subsets of rows (fixed-size) or the inclusion patterns (Poisson) directly, not with
:func:`~rigorous_rdp.research.conjecture.mixtures`; the cell probabilities are products of
``mpmath.ncdf`` differences; the RHS is (9.5) summed in mpmath (integer order) or ``mpmath.quad`` of
its definition (real order); for ``holds`` the LHS is ``mpmath.quad`` of its definition.  mpmath is a
second opinion (its quadrature error is an estimate); the certificate itself rests on the ball
arithmetic that produced it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from fractions import Fraction
from typing import Any

import mpmath

from ..arith import decimal_lower, decimal_upper
from .conjecture import ProbeConfig, admissible, cell_plan, certify_config, certify_violation

__all__ = [
    "FORMAT",
    "make_boxes_certificate",
    "make_holds_certificate",
    "make_violation_certificate",
    "verify_conjecture_certificate",
]

FORMAT = "rigorous-rdp-conjecture"
VERSION = 1


def _hash(cert: dict[str, Any]) -> str:
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return hashlib.sha256(
        json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("utf-8")
    ).hexdigest()


def make_violation_certificate(cfg: ProbeConfig, *, max_per_sigma: int = 32) -> dict[str, Any]:
    """Certificate of ``LHS / RHS > 1`` for ``cfg`` (any dimension).

    Raises:
        ValueError: when the violation cannot be proven within ``max_per_sigma`` cells per sigma.
    """
    v = certify_violation(cfg, max_per_sigma=max_per_sigma)
    if not v["proven"]:
        raise ValueError("the violation could not be proven for this configuration (ratio lower bound <= 1).")
    lo, hi, h = cell_plan(cfg, v["per_sigma"])
    cert = {
        "format": FORMAT,
        "format_version": VERSION,
        "kind": "violation",
        "statement": "D_lambda(p||q) / D_lambda(r mu_1 + (1-r) mu_0 || mu_0) >= ratio_lower > 1",
        "config": cfg.to_json(),
        "method": {
            "partition": (
                "cubes of side h filling [lo, hi] per axis (an axis with lo = hi = null is not "
                "cut: all atoms agree there), and the complement of the box"
            ),
            "h": str(h),
            "lo": [None if x is None else str(x) for x in lo],
            "hi": [None if x is None else str(x) for x in hi],
        },
        "claim": {
            "lhs_lower": decimal_lower(v["lhs_lower"], 15),
            "rhs_upper": decimal_upper(v["rhs"].ball, 15),
            "ratio_lower": decimal_lower(v["ratio_lower"], 15),
        },
    }
    cert["sha256"] = _hash(cert)
    return cert


def make_holds_certificate(cfg: ProbeConfig, digits: float = 8) -> dict[str, Any]:
    """Certificate of ``LHS / RHS <= 1`` at one 1-d configuration.

    Raises:
        ValueError: ``d != 1`` or the inequality is not proven by the certified enclosure.
    """
    if cfg.d != 1:
        raise ValueError("d must be 1 for a 'holds' certificate.")
    res = certify_config(cfg, digits)
    if res["verdict"] not in ("holds", "equal"):
        raise ValueError(f"LHS <= RHS is not proven for this configuration (verdict {res['verdict']}).")
    cert = {
        "format": FORMAT,
        "format_version": VERSION,
        "kind": "holds",
        "statement": "D_lambda(p||q) / D_lambda(r mu_1 + (1-r) mu_0 || mu_0) <= ratio_upper",
        "config": cfg.to_json(),
        "claim": {
            "lhs_upper": decimal_upper(res["lhs"].ball, 15),
            "rhs_lower": decimal_lower(res["rhs"].ball, 15),
            "ratio_upper": decimal_upper(res["ratio"].ball, 15),
            "verdict": res["verdict"],
        },
    }
    cert["sha256"] = _hash(cert)
    return cert


# ---------------------------------------------------------------------------
# independent re-check (mpmath)
# ---------------------------------------------------------------------------


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _vec_add(a: tuple[Fraction, ...], b: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    """Componentwise sum of two vectors."""
    return tuple(x + y for x, y in zip(a, b, strict=False))


def _atoms_by_enumeration(cfg: ProbeConfig) -> tuple[dict[tuple, Fraction], dict[tuple, Fraction]]:
    """Laws of the sum, by enumerating subsets of the rows (fixed-size) or inclusion patterns (Poisson)."""
    rows = [v for v, c in zip(cfg.values, cfg.counts, strict=False) for _ in range(c)]
    d = cfg.d
    zero = tuple(Fraction(0) for _ in range(d))
    p: dict[tuple, Fraction] = {}
    q: dict[tuple, Fraction] = {}
    if cfg.model == "poisson":
        r = cfg.r_poisson
        # group identical rows: inclusion counts per distinct value are binomial
        for pattern in itertools.product(*[range(c + 1) for c in cfg.counts]):
            w = Fraction(1)
            s = zero
            for v, c, k in zip(cfg.values, cfg.counts, pattern, strict=False):
                w *= math.comb(c, k) * r**k * (1 - r) ** (c - k)
                s = _vec_add(s, tuple(k * x for x in v))
            q[s] = q.get(s, 0) + w
            p[s] = p.get(s, 0) + (1 - r) * w
            su = _vec_add(s, cfg.u)
            p[su] = p.get(su, 0) + r * w
        return p, q
    if len(rows) > 14:
        raise ValueError("enumeration of subsets is limited to n <= 15 rows")
    n, m = cfg.n, cfg.m
    subsets = list(itertools.combinations(range(n), m))
    w = Fraction(1, len(subsets))
    for subset in subsets:
        sp = zero
        sq = zero
        for i in subset:
            sp = _vec_add(sp, rows[i] if i < n - 1 else cfg.u)
            sq = _vec_add(sq, rows[i] if i < n - 1 else cfg.u_prime)
        p[sp] = p.get(sp, 0) + w
        q[sq] = q.get(sq, 0) + w
    return p, q


def _atoms_grouped(cfg: ProbeConfig):
    """Fixed-size laws for many rows: multivariate hypergeometric counts (a second formula, written
    out here from the definition of a uniform size-m subset)."""
    d = cfg.d
    zero = tuple(Fraction(0) for _ in range(d))
    cnts = [*list(cfg.counts), 1]
    total = math.comb(cfg.n, cfg.m)
    p: dict[tuple, Fraction] = {}
    q: dict[tuple, Fraction] = {}
    for pattern in itertools.product(*[range(min(c, cfg.m) + 1) for c in cnts]):
        if sum(pattern) != cfg.m:
            continue
        w = Fraction(math.prod(math.comb(c, k) for c, k in zip(cnts, pattern, strict=False)), total)
        s = zero
        for v, k in zip(cfg.values, pattern[:-1], strict=False):
            s = _vec_add(s, tuple(k * x for x in v))
        sp = _vec_add(s, cfg.u) if pattern[-1] else s
        sq = _vec_add(s, cfg.u_prime) if pattern[-1] else s
        p[sp] = p.get(sp, 0) + w
        q[sq] = q.get(sq, 0) + w
    return p, q


def _laws(cfg: ProbeConfig):
    if cfg.model != "poisson" and cfg.n > 15:
        return _atoms_grouped(cfg)
    return _atoms_by_enumeration(cfg)


def _mp_rhs(cfg: ProbeConfig) -> mpmath.mpf:
    lam, r, s = cfg.lam, _mp(cfg.r), _mp(cfg.sigma)
    if lam.denominator == 1:
        L = int(lam)
        g = mpmath.fsum(
            mpmath.binomial(L, j) * r**j * (1 - r) ** (L - j) * mpmath.exp(j * (j - 1) / (2 * s * s))
            for j in range(L + 1)
        )
    else:
        a = _mp(lam)

        def f(y: Any) -> Any:
            return ((1 - r) * mpmath.npdf(y, 0, s) + r * mpmath.npdf(y, 1, s)) ** a * mpmath.npdf(y, 0, s) ** (1 - a)

        g = mpmath.quad(f, [-mpmath.inf, -10 * s, 0, 1, a, a + 10 * s, mpmath.inf])
    return mpmath.log(g) / (_mp(lam) - 1)


def _mp_lhs_cells(cfg: ProbeConfig, h: Fraction, lo: list[Fraction | None], hi: list[Fraction | None]) -> mpmath.mpf:
    p, q = _laws(cfg)
    s = _mp(cfg.sigma)
    lam = _mp(cfg.lam)
    d = cfg.d
    cuts: list[list[Any] | None] = []
    for k in range(d):
        lo_k, hi_k = lo[k], hi[k]
        if lo_k is None:
            if len({m[k] for m in list(p) + list(q)}) != 1:
                raise ValueError(f"axis {k} is not cut but the atoms differ there")
            cuts.append(None)
            continue
        if hi_k is None:
            raise TypeError(f"axis {k} has a lower cut but no upper cut")
        nk = math.ceil((hi_k - lo_k) / h)
        cuts.append([_mp(lo_k + i * h) for i in range(nk + 1)])

    def masses(law):
        per = []
        for mean, w in law.items():
            axes = []
            box = mpmath.mpf(1)
            for k in range(d):
                cuts_k = cuts[k]
                if cuts_k is None:
                    axes.append([mpmath.mpf(1)])
                    continue
                mu = _mp(mean[k])
                c = [mpmath.ncdf(t, mu, s) for t in cuts_k]
                axes.append([c[i + 1] - c[i] for i in range(len(c) - 1)])
                box *= c[-1] - c[0]
            per.append((_mp(w), axes, box))
        cells: dict[int, mpmath.mpf] = {}
        out = mpmath.mpf(1)
        for w, axes, box in per:
            out -= w * box
            for idx, combo in enumerate(itertools.product(*axes)):
                cells[idx] = cells.get(idx, 0) + w * mpmath.fprod(combo)
        return cells, out

    P, po = masses(p)
    Q, qo = masses(q)
    acc = mpmath.mpf(0)
    for idx in P:
        if P[idx] > 0 and Q[idx] > 0:
            acc += P[idx] ** lam * Q[idx] ** (1 - lam)
    if po > 0 and qo > 0:
        acc += po**lam * qo ** (1 - lam)
    return mpmath.log(acc) / (lam - 1)


def _opt_fraction(v: Any) -> Fraction | None:
    """``None`` stays ``None``; anything else is read as an exact rational."""
    return None if v is None else Fraction(v)


def _mp_lhs_quad(cfg: ProbeConfig) -> mpmath.mpf:
    p, q = _laws(cfg)
    s, lam = _mp(cfg.sigma), _mp(cfg.lam)

    def pd(y: Any) -> Any:
        return mpmath.fsum(_mp(w) * mpmath.npdf(y, _mp(m[0]), s) for m, w in p.items())

    def qd(y: Any) -> Any:
        return mpmath.fsum(_mp(w) * mpmath.npdf(y, _mp(m[0]), s) for m, w in q.items())

    means = sorted({float(m[0]) for m in list(p) + list(q)})
    lo, hi = means[0], means[-1]
    pts = [-mpmath.inf, lo - 10 * s - lam, lo, (lo + hi) / 2, hi, hi + lam + 10 * s, mpmath.inf]
    pts = sorted(set(pts))
    g = mpmath.quad(lambda y: pd(y) ** lam * qd(y) ** (1 - lam), pts)
    return mpmath.log(g) / (lam - 1)


def verify_conjecture_certificate(cert: Any, *, dps: int | None = None, sample: int | None = 4) -> Any:
    """Re-check a ``rigorous-rdp-conjecture`` certificate (module docstring); never raises for a bad one.

    Returns a :class:`rigorous_rdp.certificates.common.VerificationResult`.
    """
    from ..certificates.common import VerificationResult

    try:
        if not isinstance(cert, dict) or cert.get("format") != FORMAT:
            return VerificationResult(False, f"malformed certificate: format must be {FORMAT!r}.")
        if cert.get("format_version") != VERSION:
            return VerificationResult(
                False, f"malformed certificate: unsupported format_version {cert.get('format_version')!r}."
            )
        if cert.get("sha256") != _hash(cert):
            return VerificationResult(False, "content hash mismatch: the certificate was modified or corrupted")
        if cert.get("kind") == "holds-boxes":
            return _verify_boxes(cert, dps=dps, sample=sample)
        cfg = ProbeConfig.from_json(cert["config"])
        if not admissible(cfg.model, cfg.points):  # (also checked at construction)
            return VerificationResult(False, "the configuration is not admitted by its model")
        claim = cert["claim"]
        old = mpmath.mp.dps
        mpmath.mp.dps = dps or 30
        try:
            rhs = _mp_rhs(cfg)
            if cert.get("kind") == "violation":
                m = cert["method"]
                lhs = _mp_lhs_cells(
                    cfg, Fraction(m["h"]), [_opt_fraction(x) for x in m["lo"]], [_opt_fraction(x) for x in m["hi"]]
                )
                ratio = lhs / rhs
                stated = mpmath.mpf(claim["ratio_lower"])
                tol = mpmath.mpf(10) ** (-(mpmath.mp.dps // 2))
                details = {
                    "lhs_cells": mpmath.nstr(lhs, 20),
                    "rhs": mpmath.nstr(rhs, 20),
                    "ratio": mpmath.nstr(ratio, 20),
                }
                if not stated > 1:
                    return VerificationResult(False, f"stated ratio_lower {claim['ratio_lower']} is not > 1", details)
                if ratio < stated * (1 - tol):
                    return VerificationResult(
                        False,
                        f"recomputed ratio {mpmath.nstr(ratio, 15)} is below the stated "
                        f"lower bound {claim['ratio_lower']}",
                        details,
                    )
                return VerificationResult(
                    True,
                    f"verified: Conjecture 1 is violated, LHS / RHS >= "
                    f"{mpmath.nstr(ratio, 12)} > 1 ({cfg.model}, d = {cfg.d}; cell law of "
                    f"the stated partition, mpmath at {mpmath.mp.dps} digits)",
                    details,
                )
            if cert.get("kind") == "holds":
                lhs = _mp_lhs_quad(cfg)
                ratio = lhs / rhs
                stated = mpmath.mpf(claim["ratio_upper"])
                tol = mpmath.mpf(10) ** (-10)
                details = {"lhs": mpmath.nstr(lhs, 20), "rhs": mpmath.nstr(rhs, 20), "ratio": mpmath.nstr(ratio, 20)}
                if ratio > stated * (1 + tol):
                    return VerificationResult(
                        False,
                        f"recomputed ratio {mpmath.nstr(ratio, 15)} is above the stated "
                        f"upper bound {claim['ratio_upper']}",
                        details,
                    )
                if stated > 1 + tol and claim.get("verdict") != "equal":
                    return VerificationResult(False, f"stated ratio_upper {claim['ratio_upper']} is not <= 1", details)
                return VerificationResult(
                    True,
                    f"verified: LHS / RHS = {mpmath.nstr(ratio, 12)} <= "
                    f"{claim['ratio_upper']} at this configuration (mpmath quad at "
                    f"{mpmath.mp.dps} digits)",
                    details,
                )
            return VerificationResult(False, f"malformed certificate: unknown kind {cert.get('kind')!r}")
        finally:
            mpmath.mp.dps = old
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        return VerificationResult(False, f"malformed certificate: {type(exc).__name__}: {' '.join(str(exc).split())}")
    except Exception as exc:
        return VerificationResult(False, f"cannot verify: {type(exc).__name__}: {' '.join(str(exc).split())}")


# ---------------------------------------------------------------------------
# holds-boxes: the branch-and-bound proof of conjecture_proof
# ---------------------------------------------------------------------------

BOXES_STATEMENT = (
    "for every pair of neighbouring 1-d datasets with n rows, values in an interval of length 1 "
    "(replace-one), fixed-size sampling of m rows without replacement (r = m/n) and Gaussian noise sigma: "
    "D_lambda(p||q) <= D_lambda(r mu_1 + (1-r) mu_0 || mu_0)"
)


def make_boxes_certificate(proof: dict[str, Any]) -> dict[str, Any]:
    """Certificate of kind ``holds-boxes`` from :func:`rigorous_rdp.research.conjecture_proof.proof_to_json`.

    A proof with open boxes gives a certificate with ``"complete": false``: the statement then holds
    on the proven boxes only (``verify`` says so and exits 1).
    """
    if proof.get("region") is not None:
        raise ValueError("a holds-boxes certificate needs a proof over the whole cube [0,1]^(n+1) (no region).")
    cert = {
        "format": FORMAT,
        "format_version": VERSION,
        "kind": "holds-boxes",
        "statement": BOXES_STATEMENT,
        "complete": not proof["open"],
        "case": proof["case"],
        "coordinates": proof["coordinates"],
        "domain": (
            "boxes tile [0,1]^(n+1) (coordinates x_1..x_{n-1}, u, u_prime); by translation, permutation "
            "of the other rows and reflection z -> 1 - z every admissible configuration has the same "
            "divergences as one in F = {x_1 <= ... <= x_{n-1}, u >= u_prime}; 'outside' boxes do not meet F"
        ),
        "rhs_g": proof["rhs_g"],
        "boxes": proof["boxes"],
        "outside": proof["outside"],
        "open": proof["open"],
        "methods": {
            "taylor": (
                "signed coordinates fixed at the end their sign selects; on that face, with c its centre "
                "(the 'point') and J the unsigned coordinates: G(c) + sum_J |dG/dk(c)| w_k/2 + "
                "sum_J,J |H_jk| w_j w_k/8 <= upper (H enclosed over the box)"
            ),
            "monotone": "certified derivative signs on the box; sup at the vertex 'point'; G(point) <= upper",
            "extremal": "certified derivative signs; the vertex is (0..0, u=1, u'=0) where G equals the RHS exactly",
        },
        "summary": {k: v for k, v in proof["summary"].items() if k != "seconds"},
    }
    cert["sha256"] = _hash(cert)
    return cert


def _fr_box(b: Any, dim: int) -> tuple[tuple[Fraction, Fraction], ...]:
    if not isinstance(b, list) or len(b) != dim:
        raise ValueError("a box has the wrong number of coordinates")
    out = []
    for lo, hi in b:
        a, c = Fraction(str(lo)), Fraction(str(hi))
        if not 0 <= a < c <= 1:
            raise ValueError(f"box side [{lo}, {hi}] is not a non-empty part of [0, 1]")
        out.append((a, c))
    return tuple(out)


def _tile(region: tuple[tuple[Fraction, Fraction], ...], boxes: list[tuple[tuple[Fraction, Fraction], ...]]) -> bool:
    """True iff ``boxes`` (each inside ``region``) tile ``region`` by repeated midpoint bisection."""
    stack = [(region, boxes)]
    while stack:
        reg, bs = stack.pop()
        if len(bs) == 1 and bs[0] == reg:
            continue
        if len(bs) < 2:
            return False
        for k in range(len(reg)):
            lo, hi = reg[k]
            mid = (lo + hi) / 2
            left = [b for b in bs if b[k][1] <= mid]
            right = [b for b in bs if b[k][0] >= mid]
            if left and right and len(left) + len(right) == len(bs):
                rl = tuple((lo, mid) if i == k else s for i, s in enumerate(reg))
                rr = tuple((mid, hi) if i == k else s for i, s in enumerate(reg))
                stack.append((rl, left))
                stack.append((rr, right))
                break
        else:
            return False
    return True


def _misses_domain(box: tuple[tuple[Fraction, Fraction], ...], n: int) -> bool:
    """The box cannot meet {x_1 <= ... <= x_{n-1}, u >= u'} (written out again from the definition)."""
    xs = box[: n - 1]
    for a, b in itertools.pairwise(xs):
        if a[0] > b[1]:
            return True
    u, up = box[n - 1], box[n]
    return u[1] < up[0]


def _mp_g_point(n: int, m: int, lam: int, sigma: mpmath.mpf, theta: list[Any]) -> Any:
    """G_lambda(p||q) by mpmath.quad, the atoms by enumerating the m-subsets of the n rows."""
    rows_p = [*list(theta[: n - 1]), theta[n - 1]]
    rows_q = [*list(theta[: n - 1]), theta[n]]
    subs = list(itertools.combinations(range(n), m))
    sp = [mpmath.fsum(rows_p[i] for i in S) for S in subs]
    sq = [mpmath.fsum(rows_q[i] for i in S) for S in subs]

    c = 1 / (2 * sigma**2)

    def f(y: Any) -> Any:
        p = mpmath.fsum(mpmath.exp(-c * (y - a) ** 2) for a in sp)
        q = mpmath.fsum(mpmath.exp(-c * (y - a) ** 2) for a in sq)
        return p**lam / q ** (lam - 1)

    lo, hi = -(lam - 1) * m - 12 * sigma, lam * m + 12 * sigma
    pts = [-mpmath.inf, lo, -(lam - 1) * m, 0, m, lam * m, hi, mpmath.inf]
    return mpmath.quad(f, pts) / (len(subs) * sigma * mpmath.sqrt(2 * mpmath.pi))


def recheck_box(
    n: int, m: int, lam: int, sig: Any, g_rhs: Any, b: tuple[tuple[Fraction, Fraction], ...], rec: list[Any], rng: Any
) -> tuple[str | None, Any]:
    """mpmath second opinion on one proven box: G at the stated point and at two random points of the
    box is at most the stated bound; the central differences at a random point have the stated
    (non-zero) derivative signs.  Returns (error message or None, largest G / RHS seen)."""
    method, upper, point, signs = rec[1], rec[2], rec[3], rec[4]
    bound = g_rhs if method == "extremal" else mpmath.mpf(str(upper))
    pts = [[_mp(Fraction(str(x))) for x in point]]
    for _ in range(2):
        pts.append([_mp(lo) + (_mp(hi) - _mp(lo)) * rng.random() for lo, hi in b])
    worst = mpmath.mpf(0)
    for th in pts:
        g = _mp_g_point(n, m, lam, sig, th)
        worst = max(worst, g / g_rhs)
        if g > bound * (1 + mpmath.mpf(10) ** -12):
            return f"box {b}: recomputed G = {mpmath.nstr(g, 15)} exceeds the stated bound {upper}", worst
    if any(signs):
        th = pts[1]
        eps = mpmath.mpf(10) ** -8
        for k, s in enumerate(signs):
            hi_ = list(th)
            lo_ = list(th)
            hi_[k] += eps
            lo_[k] -= eps
            d = _mp_g_point(n, m, lam, sig, hi_) - _mp_g_point(n, m, lam, sig, lo_)
            if s != 0 and d * s < 0:
                return f"box {b}: derivative sign of coordinate {k} disagrees", worst
    return None, worst


def _verify_boxes(cert: dict[str, Any], *, dps: int | None, sample: int | None) -> Any:
    import random

    from ..certificates.common import VerificationResult

    case = cert["case"]
    n, m, lam = int(case["n"]), int(case["m"]), int(case["lambda"])
    sigma_q = Fraction(str(case["sigma"]))
    if case.get("model") != "range" or int(case.get("d", 0)) != 1:
        return VerificationResult(False, "malformed certificate: holds-boxes covers model range, d = 1 only")
    if not (n >= 2 and 1 <= m < n and lam >= 2 and sigma_q > 0) or Fraction(str(case["r"])) != Fraction(m, n):
        return VerificationResult(False, "malformed certificate: inconsistent case (n, m, r, lambda, sigma)")
    dim = n + 1
    proven = [(_fr_box(b[0], dim), b) for b in cert["boxes"]]
    outside = [_fr_box(b, dim) for b in cert["outside"]]
    open_ = [_fr_box(b[0], dim) for b in cert["open"]]
    if bool(cert["complete"]) != (not open_):
        return VerificationResult(False, "'complete' disagrees with the list of open boxes")
    for b in outside:
        if not _misses_domain(b, n):
            return VerificationResult(False, f"an 'outside' box meets the fundamental domain: {b}")
    unit = tuple((Fraction(0), Fraction(1)) for _ in range(dim))
    if not _tile(unit, [b for b, _ in proven] + outside + open_):
        return VerificationResult(False, "the boxes do not tile [0,1]^(n+1) (coverage fails)")
    rhs_lo = Fraction(str(cert["rhs_g"]["lower"]))
    rhs_hi = Fraction(str(cert["rhs_g"]["upper"]))
    extremal = tuple([Fraction(0)] * (n - 1) + [Fraction(1), Fraction(0)])
    for b, rec in proven:
        method, upper, point, signs = rec[1], rec[2], rec[3], rec[4]
        pt = tuple(Fraction(str(x)) for x in point) if point is not None else None
        if method in ("monotone", "extremal"):
            if (
                pt is None
                or len(signs) != dim
                or any(s not in (-1, 1) or pt[k] != (b[k][1] if s > 0 else b[k][0]) for k, s in enumerate(signs))
            ):
                return VerificationResult(False, f"box {b}: the vertex is not the one its derivative signs select")
            if method == "extremal" and pt != extremal:
                return VerificationResult(False, f"box {b}: 'extremal' vertex is not (0..0, 1, 0)")
        elif method == "taylor":
            face = tuple(
                hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(b, signs, strict=True)
            )
            if len(signs) != dim or any(sg not in (-1, 0, 1) for sg in signs) or pt != face:
                return VerificationResult(
                    False, f"box {b}: the Taylor point is not the centre of the face its signs select"
                )
        else:
            return VerificationResult(False, f"box {b}: unknown method {method!r}")
        if method != "extremal" and not Fraction(str(upper)) <= rhs_lo:
            return VerificationResult(False, f"box {b}: stated bound {upper} is not <= the RHS lower end")
    old = mpmath.mp.dps
    mpmath.mp.dps = dps or 30
    try:
        sig = _mp(sigma_q)
        r = mpmath.mpf(m) / n
        g_rhs = mpmath.fsum(
            mpmath.binomial(lam, j) * r**j * (1 - r) ** (lam - j) * mpmath.exp(mpmath.mpf(j * (j - 1)) / (2 * sig**2))
            for j in range(lam + 1)
        )
        tol = mpmath.mpf(10) ** -20
        if not (_mp(rhs_lo) - tol <= g_rhs <= _mp(rhs_hi) + tol):
            return VerificationResult(False, f"RHS {mpmath.nstr(g_rhs, 20)} is outside the stated enclosure")
        rng = random.Random(cert["sha256"])
        if sample is None or sample >= len(proven):
            chosen = proven
        else:  # the extremal box (where the ratio reaches 1) and a seeded random sample of the others
            ext = [x for x in proven if x[1][1] == "extremal"]
            rest = [x for x in proven if x[1][1] != "extremal"]
            chosen = ext + rng.sample(rest, max(0, min(len(rest), sample - len(ext))))
        worst = mpmath.mpf(0)
        for b, rec in chosen:
            err, w = recheck_box(n, m, lam, sig, g_rhs, b, rec, rng)
            if err is not None:
                return VerificationResult(False, err)
            worst = max(worst, w)
        details = {
            "boxes": len(proven),
            "outside": len(outside),
            "open": len(open_),
            "sampled": len(chosen),
            "rhs_g": mpmath.nstr(g_rhs, 20),
            "max_sampled_G_over_rhs": mpmath.nstr(worst, 12),
        }
        what = (
            f"n = {n}, m = {m}, lambda = {lam}, sigma = {case['sigma']}: {len(proven)} proven boxes and "
            f"{len(outside)} outside the domain tile [0,1]^{dim}; {len(chosen)} boxes re-evaluated with mpmath"
        )
        if open_:
            return VerificationResult(False, f"incomplete: {len(open_)} open boxes remain ({what})", details)
        return VerificationResult(True, f"verified: Conjecture 1 holds (1-d, range) for {what}", details)
    finally:
        mpmath.mp.dps = old
