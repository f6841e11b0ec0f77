r"""Certificates for Conjecture 1 statements (:mod:`rigorous_rdp.research.conjecture`) and their
independent re-check.

Three kinds, all with ``"format": "rigorous-rdp-conjecture"``, ``"format_version": 1``, the
configuration with exact rational coordinates (:meth:`ProbeConfig.to_json`) and a SHA-256 of the
canonical content:

* ``"kind": "violation"`` -- the claim ``ratio > ratio_lower > 1``.  Proof: the cell laws of the
  partition named in ``method`` (cubes of side ``h`` filling the box ``[lo, hi]`` per axis, and the
  complement of the box) are a post-processing of the output, so their Rényi divergence is a lower
  bound of the LHS (data processing); the RHS upper end is certified
  (:func:`rigorous_rdp.research.constant.log_g_mixture`).
* ``"kind": "holds"`` -- the claim ``ratio <= ratio_upper <= 1`` at one configuration (written for
  1-d configurations, from the certified enclosure of
  :func:`rigorous_rdp.research.conjecture.certify_config`; verified in any dimension whose atoms span
  an affine hull of dimension <= 2), or ``verdict: "equal"`` for the right-hand-side pair itself.
* ``"kind": "holds-boxes"`` -- the claim ``ratio <= 1`` for *every* admissible 1-d configuration of
  one case (rows ``n``, batch ``m``, integer order, sigma): the leaves of the branch and bound of
  :mod:`rigorous_rdp.research.conjecture_proof` (closed boxes of ``[0,1]^(n+1)`` with exact rational
  ends, each with its method and a proven upper bound of :math:`G_\lambda(p\|q)` on the box, written
  halfway between the prover's bound and the RHS lower end), the boxes that do not meet the
  fundamental domain, and any box left open.  The re-check is exact for the structure (the boxes
  tile ``[0,1]^(n+1)``: a recursive midpoint split that must separate them; the ``outside`` boxes do
  not meet the domain; every stated bound is below the stated RHS lower end; the vertex of a
  monotone box is the one its signs select; the texts, the case and the summary are the generated
  ones), the RHS is re-summed in mpmath, and **every** proven box is re-proven,
  :math:`\sup_{\text{box}} G \le` its stated bound, with independent enclosures
  (:mod:`rigorous_rdp.reference.conjecture_boxes`: Taylor-model quadrature of the point values and
  an interval enclosure of the Hessian over the box, its own formulas and tails, bisecting a box
  that does not close at once).  In addition, for a seeded sample of boxes (``sample`` boxes,
  default 4; all when ``sample`` is None) :math:`G_\lambda` is recomputed with ``mpmath.quad`` at the
  stated point and at random points and the stated signs are compared with central differences (a
  second opinion; mpmath's quadrature error is an estimate).

:func:`verify_conjecture_certificate` re-checks a certificate with an independent mpmath computation:
the configuration is re-parsed and re-checked exactly against its model; the atoms are rebuilt by
enumerating the subsets of rows (fixed-size) or the inclusion patterns (Poisson) directly, not with
:func:`~rigorous_rdp.research.conjecture.mixtures`; the cell probabilities are products of
``mpmath.ncdf`` differences; the RHS is (9.5) summed in mpmath (integer order) or ``mpmath.quad`` of
its definition (real order); for ``holds`` the LHS is ``mpmath.quad`` over the affine hull of the
atoms (:func:`_mp_lhs_quad`).  Every claim field is checked in its unsafe direction (a lower bound
not above the recomputed value, an upper bound not below it), and the statement texts must be the
generated ones.  For ``violation`` and ``holds`` mpmath is a second opinion (its quadrature error is
an estimate); the certificate itself rests on the ball arithmetic that produced it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import math
import re
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import mpmath
from flint import arb

from .. import progress
from ..arith import decimal_lower, decimal_upper, workprec
from ..errors import BudgetExceeded
from ..reference.conjecture_boxes import BoxCase, bisect_widest, reprove_box
from .conjecture import ProbeConfig, admissible, cell_plan, certify_config, certify_violation

__all__ = [
    "FORMAT",
    "make_boxes_certificate",
    "make_holds_certificate",
    "make_order_interval_certificate",
    "make_order_sigma_certificate",
    "make_region_certificate",
    "make_region_scaled_certificate",
    "make_violation_certificate",
    "verify_conjecture_certificate",
]

FORMAT = "rigorous-rdp-conjecture"
VERSION = 1


VIOLATION_STATEMENT = "D_lambda(p||q) / D_lambda(r mu_1 + (1-r) mu_0 || mu_0) >= ratio_lower > 1"
HOLDS_STATEMENT = "D_lambda(p||q) / D_lambda(r mu_1 + (1-r) mu_0 || mu_0) <= ratio_upper"
PARTITION_TEXT = (
    "cubes of side h filling [lo, hi] per axis (an axis with lo = hi = null is not "
    "cut: all atoms agree there), and the complement of the box"
)
#: largest number of (cell, atom) pairs the independent cell law is computed for (a forged partition
#: with a tiny ``h`` is refused instead of running for hours)
MAX_CELL_WORK = 4_000_000


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
        "statement": VIOLATION_STATEMENT,
        "config": cfg.to_json(),
        "method": {
            "partition": PARTITION_TEXT,
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
        "statement": HOLDS_STATEMENT,
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
    work = 1
    if len(lo) != d or len(hi) != d:
        raise ValueError(f"the partition needs lo and hi of length d = {d}")
    for k in range(d):
        lo_k, hi_k = lo[k], hi[k]
        if lo_k is None:
            if len({m[k] for m in list(p) + list(q)}) != 1:
                raise ValueError(f"axis {k} is not cut but the atoms differ there")
            cuts.append(None)
            continue
        if hi_k is None:
            raise TypeError(f"axis {k} has a lower cut but no upper cut")
        if not (h > 0 and hi_k > lo_k):
            raise ValueError(f"axis {k}: the partition needs h > 0 and hi > lo")
        nk = math.ceil((hi_k - lo_k) / h)
        work *= nk
        if work * (len(p) + len(q)) > MAX_CELL_WORK:
            raise ValueError(f"the partition has more than {MAX_CELL_WORK} cell-atom pairs")
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


def _affine_frame(means: list[tuple[Fraction, ...]]) -> tuple[tuple[Fraction, ...], list[tuple[Fraction, ...]]]:
    """Origin and an orthogonal (not normalised) basis of the affine hull of ``means``, by exact
    rational Gram-Schmidt on the differences to the first mean."""
    o = means[0]
    basis: list[tuple[Fraction, ...]] = []
    for m in means[1:]:
        v = tuple(a - b for a, b in zip(m, o, strict=True))
        for e in basis:
            c = sum((x * y for x, y in zip(v, e, strict=True)), Fraction(0)) / sum((y * y for y in e), Fraction(0))
            v = tuple(x - c * y for x, y in zip(v, e, strict=True))
        if any(x != 0 for x in v):
            basis.append(v)
    return o, basis


#: largest dimension of the affine hull of the atoms that the independent quadrature integrates over
#: (mpmath.quad in 2-d takes about 1-5 s; 3-d quadrature would take minutes)
MAX_HULL_DIM = 2


def _mp_lhs_quad(cfg: ProbeConfig) -> tuple[mpmath.mpf, mpmath.mpf]:
    r"""``(G - 1, error estimate)`` of :math:`G_\lambda(p\|q) = \int p^\lambda q^{1-\lambda}` in any dimension.

    Reduction (stated here, proven in one line): all atoms are isotropic Gaussians :math:`N(\mu_a,
    \sigma^2 I_d)`; with an orthonormal frame whose first ``k`` vectors span the directions of the
    affine hull of the means, every atom density factorises as (density of the first ``k``
    coordinates) times the same :math:`N(0, \sigma^2 I_{d-k})` density of the others, which then
    factors out of :math:`p^\lambda q^{1-\lambda}` and integrates to 1.  So ``G`` is the
    ``k``-dimensional integral of the projected mixtures (``k`` <= :data:`MAX_HULL_DIM`, else
    ValueError).  The frame is exact rational Gram-Schmidt; coordinates are
    :math:`\langle \mu - o, e_j\rangle / |e_j|` in mpmath.  The integrand is the compensated
    :math:`q\,[R^\lambda - \lambda R + \lambda - 1] \ge 0`, :math:`R = p/q`, whose integral is
    :math:`G - 1` (both laws have mass 1), so small divergences are not lost to cancellation;
    :math:`R - 1 = (p - q)/q` with :math:`p - q` summed over the signed difference of the atoms.
    ``mpmath.quad`` (Gauss-Legendre on 4 pieces per axis: the two infinite tails and the hull of
    the atoms widened by :math:`(\lambda-1)` times its spread plus :math:`8\sigma`, where the tilted
    density lives) returns an estimate and its error estimate, not a bound.
    """
    p, q = _laws(cfg)
    s, lam = _mp(cfg.sigma), _mp(cfg.lam)
    diff: dict[tuple, Fraction] = {}
    for mean, w in p.items():
        diff[mean] = diff.get(mean, Fraction(0)) + w
    for mean, w in q.items():
        diff[mean] = diff.get(mean, Fraction(0)) - w
    means = sorted(set(p) | set(q))
    o, basis = _affine_frame(means)
    k = len(basis)
    if k > MAX_HULL_DIM:
        raise ValueError(f"the atoms span an affine hull of dimension {k} > {MAX_HULL_DIM}")
    if k == 0:  # p == q == one Gaussian
        return mpmath.mpf(0), mpmath.mpf(0)
    norms = [mpmath.sqrt(_mp(sum((y * y for y in e), Fraction(0)))) for e in basis]

    def coords(mean: tuple) -> tuple[Any, ...]:
        v = [a - b for a, b in zip(mean, o, strict=True)]
        return tuple(
            _mp(sum((x * y for x, y in zip(v, e, strict=True)), Fraction(0))) / nm
            for e, nm in zip(basis, norms, strict=True)
        )

    pk = [(_mp(w), coords(m)) for m, w in p.items() if w != 0]
    qk = [(_mp(w), coords(m)) for m, w in q.items() if w != 0]
    dk = [(_mp(w), coords(m)) for m, w in diff.items() if w != 0]
    c2 = 1 / (2 * s * s)
    norm = (2 * mpmath.pi * s * s) ** (-mpmath.mpf(k) / 2)

    def dens(atoms: list[tuple[Any, tuple[Any, ...]]], y: tuple[Any, ...]) -> Any:
        return mpmath.fsum(
            w * mpmath.exp(-c2 * mpmath.fsum((a - b) ** 2 for a, b in zip(y, m, strict=True))) for w, m in atoms
        )

    integer_order = cfg.lam.denominator == 1
    small = mpmath.mpf(10) ** -3
    binom = [(j, mpmath.binomial(lam, j)) for j in range(2, int(cfg.lam) + 1 if integer_order else 40)]

    def f(*y: Any) -> Any:
        qy = dens(qk, y)
        if qy == 0:
            return mpmath.mpf(0)
        x = dens(dk, y) / qy  # R - 1
        # R^lam - lam R + lam - 1 = (1 + x)^lam - 1 - lam x, without cancellation for small x:
        # the binomial series (finite for an integer order; |x| < 1/1000 else, 40 terms)
        if integer_order or abs(x) < small:
            return norm * qy * mpmath.fsum(c * x**j for j, c in binom)
        return norm * qy * (mpmath.expm1(lam * mpmath.log1p(x)) - lam * x)

    lim = []
    for j in range(k):
        cs = [m[j] for _, m in pk + qk]
        a, b = min(cs), max(cs)
        pad = (lam - 1) * (b - a) + 8 * s
        lim.append(
            [-mpmath.inf, a - pad, b + pad, mpmath.inf] if b > a else [-mpmath.inf, a - pad, a + pad, mpmath.inf]
        )
    if k == 1:
        g1, err = mpmath.quad(f, *lim, method="gauss-legendre", error=True)
        return g1, err
    with mpmath.workdps(16):  # 2-d: the compensated integrand keeps ~14 significant digits of G - 1
        g1, err = mpmath.quad(f, *lim, method="gauss-legendre", error=True)
    return +g1, +err


def _rhs_pair_exact(cfg: ProbeConfig) -> bool:
    """``q`` one Gaussian and ``p = (1-r) q + r`` (``q`` moved by a vector of length exactly 1):
    then LHS = RHS (an isometry maps the pair onto the RHS pair).  Written out from the laws of
    :func:`_laws`."""
    p, q = _laws(cfg)
    qs = [(m, w) for m, w in q.items() if w != 0]
    ps = [(m, w) for m, w in p.items() if w != 0]
    if len(qs) != 1 or len(ps) != 2:
        return False
    c = qs[0][0]
    r = cfg.r
    same = [w for m, w in ps if m == c]
    other = [(m, w) for m, w in ps if m != c]
    return (
        same == [1 - r]
        and len(other) == 1
        and other[0][1] == r
        and sum(((a - b) ** 2 for a, b in zip(other[0][0], c, strict=True)), Fraction(0)) == 1
    )


def _verify_holds(cfg: ProbeConfig, cert: dict[str, Any], rhs: Any) -> Any:
    """The ``holds`` claim re-derived: LHS by :func:`_mp_lhs_quad` (any dimension whose atoms span an
    affine hull of dimension <= 2), RHS by (9.5); every claim field is checked in its unsafe direction."""
    from ..certificate import VerificationResult

    claim = cert["claim"]
    if cert.get("statement") != HOLDS_STATEMENT:
        return VerificationResult(False, "malformed certificate: the statement text is not the one generated")
    if set(claim) != {"lhs_upper", "rhs_lower", "ratio_upper", "verdict"}:
        return VerificationResult(
            False, "malformed certificate: claim fields must be lhs_upper, rhs_lower, ratio_upper, verdict"
        )
    lam = _mp(cfg.lam)
    lhs_up, rhs_lo, stated = (mpmath.mpf(str(claim[k])) for k in ("lhs_upper", "rhs_lower", "ratio_upper"))
    verdict = claim["verdict"]
    if verdict == "equal":
        if not _rhs_pair_exact(cfg):
            return VerificationResult(False, "verdict 'equal' but the configuration is not the right-hand-side pair")
    elif verdict != "holds":
        return VerificationResult(False, f"malformed certificate: verdict must be 'holds' or 'equal', not {verdict!r}")
    elif not stated <= 1:
        return VerificationResult(False, f"stated ratio_upper {claim['ratio_upper']} is not <= 1")
    if not (rhs_lo > 0 and lhs_up >= 0 and stated * rhs_lo >= lhs_up * (1 - mpmath.mpf(10) ** -12)):
        return VerificationResult(False, "stated ratio_upper is below lhs_upper / rhs_lower")
    try:
        g1, err = _mp_lhs_quad(cfg)
    except ValueError as exc:
        return VerificationResult(
            False, f"cannot verify: {exc} (no independent quadrature; the claim is not confirmed)"
        )
    lhs = mpmath.log1p(g1) / (lam - 1)
    ratio = lhs / rhs
    details = {
        "lhs": mpmath.nstr(lhs, 20),
        "rhs": mpmath.nstr(rhs, 20),
        "ratio": mpmath.nstr(ratio, 20),
        "quad_error_estimate": mpmath.nstr(err, 5),
        "hull_dim": len(_affine_frame(sorted(set(_laws(cfg)[0]) | set(_laws(cfg)[1])))[1]),
    }
    tol = mpmath.mpf(10) ** -10
    if err > tol * abs(g1) + mpmath.mpf(10) ** -25:
        return VerificationResult(
            False, f"cannot verify: the quadrature error estimate {mpmath.nstr(err, 3)} is too large", details
        )
    if lhs > lhs_up * (1 + tol):
        return VerificationResult(
            False, f"recomputed LHS {mpmath.nstr(lhs, 15)} is above the stated lhs_upper {claim['lhs_upper']}", details
        )
    if rhs < rhs_lo * (1 - tol):
        return VerificationResult(
            False, f"recomputed RHS {mpmath.nstr(rhs, 15)} is below the stated rhs_lower {claim['rhs_lower']}", details
        )
    if ratio > stated * (1 + tol):
        return VerificationResult(
            False,
            f"recomputed ratio {mpmath.nstr(ratio, 15)} is above the stated upper bound {claim['ratio_upper']}",
            details,
        )
    return VerificationResult(
        True,
        f"verified: LHS / RHS = {mpmath.nstr(ratio, 12)} <= {claim['ratio_upper']} at this configuration "
        f"(d = {cfg.d}, affine hull of the atoms of dimension {details['hull_dim']}; mpmath quad at {mpmath.mp.dps} digits)",
        details,
    )


#: the longest number, and the largest decimal exponent, a conjecture certificate may hold: every number of
#: every kind is read exactly (``Fraction``), and ``Fraction("1e999999999")`` would build a billion-digit integer
_MAX_NUMBER_CHARS = 1000
_MAX_EXPONENT = 100000
_NUMBER_TEXT = re.compile(r"\s*[-+0-9.eE/\s]+")
_EXPONENT = re.compile(r"[eE]\s*([-+]?\d+)")


def _oversized_number(node: Any) -> str | None:
    """The first string of the certificate (any depth) written as a number (digits, signs, points, exponents,
    a slash) that is longer than :data:`_MAX_NUMBER_CHARS` or has a decimal exponent beyond
    :data:`_MAX_EXPONENT` (shortened for the message), or None."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, str) and _NUMBER_TEXT.fullmatch(x):
            too_long = len(x) > _MAX_NUMBER_CHARS
            if too_long or any(abs(int(e)) > _MAX_EXPONENT for e in _EXPONENT.findall(x)):
                return x if len(x) <= 40 else x[:37] + "..."
    return None


def verify_conjecture_certificate(cert: Any, *, dps: int | None = None, sample: int | None = 4, jobs: int = 1) -> Any:
    """Re-check a ``rigorous-rdp-conjecture`` certificate (module docstring); never raises for a bad one.

    ``jobs``: worker processes that re-prove the boxes of a ``holds-boxes`` or ``holds-region``
    certificate (1: in this process); the verdict and its message do not depend on it.

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
        if (bad := _oversized_number(cert)) is not None:
            return VerificationResult(
                False,
                f"malformed certificate: the number {bad!r} is longer than {_MAX_NUMBER_CHARS} characters or has a "
                f"decimal exponent beyond +-{_MAX_EXPONENT}",
            )
        if cert.get("kind") == "holds-boxes":
            return _verify_boxes(cert, dps=dps, sample=sample, jobs=jobs)
        if cert.get("kind") == "holds-region":
            return _verify_region(cert, jobs=jobs)
        if cert.get("kind") == SCALED_KIND:
            return _verify_region_scaled(cert, jobs=jobs)
        if cert.get("kind") == ORDER_KIND:
            return _verify_order_interval(cert, jobs=jobs)
        if cert.get("kind") == ORDER_SIGMA_KIND:
            return _verify_order_sigma(cert, jobs=jobs)
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
                if cert.get("statement") != VIOLATION_STATEMENT or m.get("partition") != PARTITION_TEXT:
                    return VerificationResult(
                        False, "malformed certificate: the statement or partition text is not the one generated"
                    )
                if set(claim) != {"lhs_lower", "rhs_upper", "ratio_lower"}:
                    return VerificationResult(
                        False, "malformed certificate: claim fields must be lhs_lower, rhs_upper, ratio_lower"
                    )
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
                if rhs > mpmath.mpf(claim["rhs_upper"]) * (1 + tol):
                    return VerificationResult(
                        False,
                        f"recomputed RHS {mpmath.nstr(rhs, 15)} is above the stated rhs_upper {claim['rhs_upper']}",
                        details,
                    )
                if lhs < mpmath.mpf(claim["lhs_lower"]) * (1 - tol):
                    return VerificationResult(
                        False,
                        f"recomputed cell LHS {mpmath.nstr(lhs, 15)} is below the stated lhs_lower {claim['lhs_lower']}",
                        details,
                    )
                if ratio < stated * (1 - tol):
                    return VerificationResult(
                        False,
                        f"recomputed ratio {mpmath.nstr(ratio, 15)} is below the stated "
                        f"lower bound {claim['ratio_lower']}",
                        details,
                    )
                if not ratio > 1 + tol:
                    return VerificationResult(
                        False, f"recomputed ratio {mpmath.nstr(ratio, 15)} is not certainly above 1", details
                    )
                # the three stated numbers are printed to 15 significant digits, each rounded outward
                # (lhs down, rhs up, ratio down), so the quotient of the printed ends may be below the
                # printed ratio by up to about 2e-14 relative; more than that is an inconsistent claim
                printed = mpmath.mpf(10) ** -13
                if stated > mpmath.mpf(claim["lhs_lower"]) / mpmath.mpf(claim["rhs_upper"]) * (1 + printed):
                    return VerificationResult(False, "stated ratio_lower is above lhs_lower / rhs_upper", details)
                return VerificationResult(
                    True,
                    f"verified: Conjecture 1 is violated, LHS / RHS >= "
                    f"{mpmath.nstr(ratio, 12)} > 1 ({cfg.model}, d = {cfg.d}; cell law of "
                    f"the stated partition, mpmath at {mpmath.mp.dps} digits)",
                    details,
                )
            if cert.get("kind") == "holds":
                return _verify_holds(cfg, cert, rhs)
            return VerificationResult(False, f"malformed certificate: unknown kind {cert.get('kind')!r}")
        finally:
            mpmath.mp.dps = old
    except BudgetExceeded:
        raise  # the caller's time budget: exit 2 with its own message, not "cannot verify"
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


BOXES_DOMAIN = (
    "boxes tile [0,1]^(n+1) (coordinates x_1..x_{n-1}, u, u_prime); by translation, permutation "
    "of the other rows and reflection z -> 1 - z every admissible configuration has the same "
    "divergences as one in F = {x_1 <= ... <= x_{n-1}, u >= u_prime}; 'outside' boxes do not meet F"
)
#: the domain text of a certificate whose boxes tile the two faces {x_1 = 0} and {u' = 0} (optional
#: field "faces"; research/conjecture_proof.min_zero_faces)
FACES_DOMAIN = (
    "boxes tile the faces {x_1 = 0} and {u_prime = 0} of [0,1]^(n+1) (coordinates x_1..x_{n-1}, u, u_prime; "
    "each box has the side [0, 0] of its face); by permutation of the other rows and reflection z -> 1 - z "
    "every admissible configuration has the same divergences as one in F = {x_1 <= ... <= x_{n-1}, u >= u_prime}, "
    "and translating it by minus its smallest value min(x_1, u_prime) keeps it in F and in [0,1]^(n+1) and "
    "puts it on one of the two faces; 'outside' boxes do not meet F"
)


def faces_of(dim: int, last: tuple[Fraction, Fraction] | None = None) -> list[tuple[tuple[Fraction, Fraction], ...]]:
    """The faces {x_1 = 0} and {u' = 0} of [0,1]^dim (written out again here), each with the extra last
    side ``last`` when given (the t side of a region certificate)."""
    z, one = (Fraction(0), Fraction(0)), (Fraction(0), Fraction(1))
    tail = [] if last is None else [last]
    return [tuple([z] + [one] * (dim - 1) + tail), tuple([one] * (dim - 1) + [z] + tail)]


BOXES_METHODS = {
    "taylor": (
        "signed coordinates fixed at the end their sign selects; on that face, with c its centre "
        "(the 'point') and J the unsigned coordinates: G(c) + sum_J |dG/dk(c)| w_k/2 + "
        "sum_J,J |H_jk| w_j w_k/8 <= upper (H enclosed over the box)"
    ),
    "monotone": "certified derivative signs on the box; sup at the vertex 'point'; G(point) <= upper",
    "extremal": "certified derivative signs; the vertex is (0..0, u=1, u'=0) where G equals the RHS exactly",
    "upper": (
        "a proven upper bound of G on the box: the prover's bound plus half its distance to the "
        "RHS lower end, rounded up to 15 significant digits (room for verify's independent enclosures)"
    ),
}
#: share of the distance between a box's proven bound and the RHS lower end added to the bound written
ROOM = Fraction(1, 2)


def _decimal_up(x: Fraction, digits: int = 15) -> str:
    """Smallest decimal with ``digits`` significant digits that is >= x (decimal division rounds
    correctly in the direction of the context)."""
    import decimal

    ctx_d = decimal.Context(prec=digits, rounding=decimal.ROUND_CEILING)
    v = ctx_d.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))
    text = format(v, "f")
    if Fraction(text) < x:  # guard of the rounding direction
        raise ArithmeticError("decimal rounding went the wrong way")
    return text


def _with_room(boxes: list[Any], rhs_lower: str) -> list[Any]:
    """The box records with each stated bound raised by :data:`ROOM` of its distance to the RHS lower
    end (still a proven upper bound of G on the box, still <= the RHS lower end)."""
    lo = Fraction(rhs_lower)
    out = []
    for rec in boxes:
        rec = list(rec)
        if rec[2] is not None:
            u = Fraction(str(rec[2]))
            if u < lo:
                cand = _decimal_up(u + (lo - u) * ROOM)
                if Fraction(cand) <= lo:
                    rec[2] = cand
        out.append(rec)
    return out


def make_boxes_certificate(proof: dict[str, Any]) -> dict[str, Any]:
    """Certificate of kind ``holds-boxes`` from :func:`rigorous_rdp.research.conjecture_proof.proof_to_json`.

    A proof with open boxes gives a certificate with ``"complete": false``: the statement then holds
    on the proven boxes only (``verify`` says so and exits 1).  Each proven box's bound is written
    with room (:data:`ROOM`) for the verifier's independent enclosures, which are not tighter than
    the prover's.
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
        "domain": FACES_DOMAIN if proof.get("faces") else BOXES_DOMAIN,
        **({"faces": proof["faces"]} if proof.get("faces") else {}),
        "rhs_g": proof["rhs_g"],
        "boxes": _with_room(proof["boxes"], proof["rhs_g"]["lower"]),
        "outside": proof["outside"],
        "open": proof["open"],
        "methods": BOXES_METHODS,
        "summary": {k: v for k, v in proof["summary"].items() if k != "seconds"},
    }
    cert["sha256"] = _hash(cert)
    return cert


def _fr_box(b: Any, dim: int, flat: tuple[int, ...] = ()) -> tuple[tuple[Fraction, Fraction], ...]:
    """A box of the certificate as exact rationals; sides in ``flat`` may be the point [0, 0] (the face
    side of a ``faces`` certificate), every other side a non-empty part of [0, 1]."""
    if not isinstance(b, list) or len(b) != dim:
        raise ValueError("a box has the wrong number of coordinates")
    out = []
    for k, (lo, hi) in enumerate(b):
        a, c = Fraction(str(lo)), Fraction(str(hi))
        if not (0 <= a < c <= 1 or (k in flat and a == c == 0)):
            raise ValueError(f"box side [{lo}, {hi}] is not a non-empty part of [0, 1]")
        out.append((a, c))
    return tuple(out)


def _tile_faces(
    faces: list[tuple[tuple[Fraction, Fraction], ...]], boxes: list[tuple[tuple[Fraction, Fraction], ...]]
) -> bool:
    """True iff every box lies in exactly one of ``faces`` (by its point side) and the boxes of each
    face tile it by repeated midpoint bisection."""
    flat = [[k for k, (lo, hi) in enumerate(f) if lo == hi] for f in faces]
    groups: list[list[tuple[tuple[Fraction, Fraction], ...]]] = [[] for _ in faces]
    for b in boxes:
        on = [i for i, ks in enumerate(flat) if all(b[k] == faces[i][k] for k in ks)]
        if len(on) != 1 or any(b[k][0] == b[k][1] for k in range(len(b)) if k not in flat[on[0]]):
            return False
        groups[on[0]].append(b)
    return all(_tile(f, g) for f, g in zip(faces, groups, strict=True))


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


#: sub-boxes the independent re-proof may bisect one certificate box into
MAX_SUBBOXES = 64
PREC_BOXES = 96


def _box_str(b: tuple[tuple[Fraction, Fraction], ...]) -> str:
    return "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in b) + "]"


def _summary_from_boxes(
    case: dict[str, Any], proven: list[Any], outside: list[Any], open_: list[Any]
) -> dict[str, Any]:
    """The summary fields that the case and the boxes determine (point and region certificates)."""
    methods: dict[str, int] = {}
    for _, rec in proven:
        methods[rec[1]] = methods.get(rec[1], 0) + 1
    return {
        "n": case["n"],
        "m": case["m"],
        "r": case["r"],
        "lambda": case["lambda"],
        "sigma": case["sigma"],
        "proven": not open_,
        "boxes_proven": len(proven),
        "boxes_outside": len(outside),
        "boxes_open": len(open_),
        "methods": methods,
    }


#: the summary's ``statement`` of a complete proof, per kind (written by ``conjecture --prove``; an
#: incomplete one says :data:`NOT_PROVEN_TEXT`); ``verify`` accepts no other text
PROVEN_TEXT = {
    "holds-boxes": "ratio <= 1 for every configuration",
    "holds-region": "ratio <= 1 for every configuration and every sigma in the range",
    "holds-region-scaled": "ratio <= 1 for every configuration and every sigma in the range",
    "holds-boxes-order-interval": "ratio <= 1 for every configuration and every real order in the range",
    "holds-boxes-order-sigma": "ratio <= 1 for every configuration, every real order and every sigma in the ranges",
}
NOT_PROVEN_TEXT = "not proven: open boxes remain"


def statement_text(kind: str, complete: bool) -> str:
    """The summary's statement of a certificate of ``kind`` (:data:`PROVEN_TEXT`)."""
    return PROVEN_TEXT[kind] if complete else NOT_PROVEN_TEXT


def _extra_or_statement(summ: dict[str, Any], known: set[str], kind: str, open_: list[Any]) -> str | None:
    """A summary field not in ``known`` (besides ``statement``), or ``"statement"`` when it is present and is
    not the generated text of ``kind`` (the summary may claim nothing the boxes do not prove)."""
    extra = set(summ) - known - {"statement"}
    if extra:
        return sorted(extra)[0]
    if "statement" in summ and summ["statement"] != statement_text(kind, not open_):
        return "statement"
    return None


def _summary_mismatch(cert: dict[str, Any], proven: list[Any], outside: list[Any], open_: list[Any]) -> str | None:
    """The first summary field that is not what the case and the boxes say (None if all agree)."""
    summ = cert["summary"]
    want = _summary_from_boxes(cert["case"], proven, outside, open_)
    want["rhs_g"] = cert["rhs_g"]
    for k, v in want.items():
        if summ.get(k) != v:
            return k
    return _extra_or_statement(summ, set(want) | {"open_g_upper"}, "holds-boxes", open_)


#: boxes per work item of the parallel re-proof (fewer when there are few boxes per worker)
CHUNK = 8


@functools.lru_cache(maxsize=8)
def _box_case(n: int, m: int, lam: int, sigma: Fraction) -> BoxCase:
    return BoxCase(n, m, lam, sigma)


def _lower_target(x: Fraction) -> arb:
    """An exact arb at most ``x`` (``x`` itself when it is exactly representable)."""
    with workprec(PREC_BOXES):
        t = arb(x.numerator) / x.denominator
        return t if t.rad() == 0 else arb(t.lower())


def _boxes_chunk(item: tuple[Any, list[Any]]) -> list[tuple[bool, int, str]]:
    """Work item of :func:`_verify_boxes` (module level, so a worker process can run it): re-prove
    each ``(box, stated bound or None for 'extremal', hint)`` of the chunk."""
    (n, m, lam, sigma_q, rhs_lo), chunk = item
    case_b = _box_case(n, m, lam, sigma_q)
    out = []
    for b, up, hint in chunk:
        # 'extremal': sup = G(extremal vertex) = RHS, settled by certified signs only
        target = _lower_target(rhs_lo if up is None else up)
        out.append(reprove_box(case_b, b, target, extremal=up is None, max_boxes=MAX_SUBBOXES, hint=hint))
    return out


def _region_chunk(item: tuple[Any, list[Any]]) -> list[tuple[bool, int, str]]:
    """Work item of :func:`_verify_region`: re-prove each ``(box, stated bound or None)``."""
    (n, m, lam), chunk = item
    case_b = _box_case(n, m, lam, Fraction(1))
    out = []
    for b, up in chunk:
        target = None if up is None else _lower_target(up)
        out.append(reprove_region_box(case_b, n, m, lam, list(b), target, MAX_SUBBOXES))
    return out


def _reprove_all(fn: Any, params: Any, items: list[Any], jobs: int) -> Iterator[tuple[int, tuple[bool, int, str]]]:
    """``(index, fn's result)`` for every item, in the order of ``items``: the items cut into chunks of
    at most :data:`CHUNK` and re-proven by ``fn`` on ``jobs`` worker processes (1: in this process;
    :func:`rigorous_rdp.research.parallel.imap_ordered`: the time budget is checked while waiting, and
    at the deadline, on Ctrl-C, or when the caller stops at a failing box, the workers are stopped).
    Progress: the boxes re-proven, in a :func:`rigorous_rdp.progress.task`."""
    from .parallel import imap_ordered

    jobs = max(1, min(jobs, len(items)))
    size = max(1, min(CHUNK, len(items) // (4 * jobs)))
    chunks = [(params, items[i : i + size]) for i in range(0, len(items), size)]
    with progress.task("re-proving boxes (independent enclosures)", len(items), "boxes") as bar:
        gen = imap_ordered(fn, chunks, jobs=jobs, window=None if jobs > 1 else 1)
        with contextlib.closing(gen):
            i = 0
            for res in gen:
                for r in res:
                    yield i, r
                    i += 1
                bar.update(len(res))


def _reprove_boxes(chunk: Any, params: Any, items: list[Any], jobs: int, boxes: list[Any], rules: list[Any]) -> Any:
    """Re-prove every proven box (``items`` for ``chunk``, on ``jobs`` workers): the number of boxes after
    bisection, or the refusal naming the first box (``boxes[i]``, its rule ``rules[i]``) not re-proven."""
    from ..certificates.common import VerificationResult

    subboxes = 0
    for i, (ok, used, why) in _reprove_all(chunk, params, items, jobs):
        subboxes += used
        if not ok:
            return VerificationResult(
                False, f"box {_box_str(boxes[i])}: not re-proven by the independent enclosure ({rules[i]}; {why})"
            )
    return subboxes


def _box_details(proven: int, subboxes: int, outside: list[Any], open_: list[Any]) -> dict[str, Any]:
    """The JSON details of a verified box certificate: counts of boxes, sub-boxes, outside and open boxes."""
    return {
        "boxes": proven,
        "boxes_reproven": proven,
        "subboxes": subboxes,
        "outside": len(outside),
        "open": len(open_),
    }


def _verdict(what: str, open_: list[Any], details: dict[str, Any]) -> Any:
    """The verdict of a box certificate whose every proven box was re-proven: incomplete while open boxes remain."""
    from ..certificates.common import VerificationResult

    if open_:
        return VerificationResult(False, f"incomplete: {len(open_)} open boxes remain ({what})", details)
    return VerificationResult(True, f"verified: Conjecture 1 holds (1-d, range) for {what}", details)


def _verify_boxes(cert: dict[str, Any], *, dps: int | None, sample: int | None, jobs: int = 1) -> Any:
    import random

    from ..certificates.common import VerificationResult

    case = cert["case"]
    if (
        not isinstance(case, dict)
        or set(case) != {"model", "d", "n", "m", "r", "lambda", "sigma"}
        or not all(type(case[k]) is int for k in ("d", "n", "m", "lambda"))
        or not all(isinstance(case[k], str) for k in ("r", "sigma"))
    ):
        return VerificationResult(
            False, "malformed certificate: case needs model, d, n, m, lambda (integers), r and sigma (strings)"
        )
    n, m, lam = case["n"], case["m"], case["lambda"]
    sigma_q = Fraction(str(case["sigma"]))
    if case.get("model") != "range" or int(case.get("d", 0)) != 1:
        return VerificationResult(False, "malformed certificate: holds-boxes covers model range, d = 1 only")
    if not (n >= 2 and 1 <= m < n and lam >= 2 and sigma_q > 0) or Fraction(str(case["r"])) != Fraction(m, n):
        return VerificationResult(False, "malformed certificate: inconsistent case (n, m, r, lambda, sigma)")
    dim = n + 1
    methods_old = {k: v for k, v in BOXES_METHODS.items() if k != "upper"}
    has_faces = "faces" in cert
    faces = faces_of(dim)
    if has_faces and cert["faces"] != [[[str(lo), str(hi)] for lo, hi in f] for f in faces]:
        return VerificationResult(False, "malformed certificate: 'faces' is not [x_1 = 0, u_prime = 0] of [0,1]^(n+1)")
    if (
        cert.get("statement") != BOXES_STATEMENT
        or cert.get("domain") != (FACES_DOMAIN if has_faces else BOXES_DOMAIN)
        or cert.get("methods") not in (BOXES_METHODS, methods_old)
        or cert.get("coordinates") != [f"x_{i + 1}" for i in range(n - 1)] + ["u", "u_prime"]
    ):
        return VerificationResult(
            False, "malformed certificate: the statement, domain, methods or coordinates text is not the one generated"
        )
    flat = (0, dim - 1) if has_faces else ()
    proven = [(_fr_box(b[0], dim, flat), b) for b in cert["boxes"]]
    outside = [_fr_box(b, dim, flat) for b in cert["outside"]]
    open_ = [_fr_box(b[0], dim, flat) for b in cert["open"]]
    if cert["complete"] is not (not open_):
        return VerificationResult(False, "'complete' disagrees with the list of open boxes")
    bad = _summary_mismatch(cert, proven, outside, open_)
    if bad is not None:
        return VerificationResult(False, f"malformed certificate: summary field {bad!r} disagrees with the boxes")
    for b in outside:
        if not _misses_domain(b, n):
            return VerificationResult(False, f"an 'outside' box meets the fundamental domain: {b}")
    unit = tuple((Fraction(0), Fraction(1)) for _ in range(dim))
    if has_faces:
        if not _tile_faces(faces, [b for b, _ in proven] + outside + open_):
            return VerificationResult(False, "the boxes do not tile the faces x_1 = 0 and u_prime = 0 (coverage fails)")
    elif not _tile(unit, [b for b, _ in proven] + outside + open_):
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
                or any(
                    s not in ((-1, 0, 1) if b[k][0] == b[k][1] else (-1, 1)) or pt[k] != (b[k][1] if s > 0 else b[k][0])
                    for k, s in enumerate(signs)
                )
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
        # the stated RHS enclosure against (9.5) in interval arithmetic (exact rational ends compared)
        with workprec(PREC_BOXES):
            s2 = arb(sigma_q.numerator) ** 2 / arb(sigma_q.denominator) ** 2
            rb = arb(m) / n
            g_ball = sum(
                (
                    math.comb(lam, j) * rb**j * (1 - rb) ** (lam - j) * (arb(j * (j - 1)) / (2 * s2)).exp()
                    for j in range(lam + 1)
                ),
                arb(0),
            )
            lo_ok = g_ball > arb(rhs_lo.numerator) / rhs_lo.denominator
            hi_ok = g_ball < arb(rhs_hi.numerator) / rhs_hi.denominator
        if not (lo_ok and hi_ok):
            return VerificationResult(False, f"RHS {mpmath.nstr(g_rhs, 20)} is not proven inside the stated enclosure")
        # every box re-proven with independent enclosures (rigorous_rdp.reference.conjecture_boxes), on
        # ``jobs`` worker processes; the first box (in the certificate's order) that fails decides
        items = [
            (
                b,
                None if rec[1] == "extremal" else Fraction(str(rec[2])),
                [Fraction(str(x)) for x in rec[3]] if rec[3] is not None and rec[1] != "extremal" else None,
            )
            for b, rec in proven
        ]
        subboxes = 0
        for i, (ok, used, why) in _reprove_all(_boxes_chunk, (n, m, lam, sigma_q, rhs_lo), items, jobs):
            subboxes += used
            if not ok:
                b, rec = proven[i]
                return VerificationResult(
                    False,
                    f"box {_box_str(b)}: the stated bound {rec[2] if rec[1] != 'extremal' else 'RHS'} is not "
                    f"re-proven by the independent enclosure ({why})",
                )
        rng = random.Random(cert["sha256"])
        if sample is None or sample >= len(proven):
            chosen = proven
        else:  # the extremal box (where the ratio reaches 1) and a seeded random sample of the others
            ext = [x for x in proven if x[1][1] == "extremal"]
            rest = [x for x in proven if x[1][1] != "extremal"]
            chosen = ext + rng.sample(rest, max(0, min(len(rest), sample - len(ext))))
        worst = mpmath.mpf(0)
        for b, rec in progress.iterate(chosen, "re-evaluating boxes (mpmath)", "boxes"):
            err, w = recheck_box(n, m, lam, sig, g_rhs, b, rec, rng)
            if err is not None:
                return VerificationResult(False, err)
            worst = max(worst, w)
        details = {
            "boxes": len(proven),
            "boxes_reproven": len(proven),
            "subboxes": subboxes,
            "outside": len(outside),
            "open": len(open_),
            "sampled": len(chosen),
            "rhs_g": mpmath.nstr(g_rhs, 20),
            "max_sampled_G_over_rhs": mpmath.nstr(worst, 12),
        }
        what = (
            f"n = {n}, m = {m}, lambda = {lam}, sigma = {case['sigma']}: {len(proven)} proven boxes and "
            f"{len(outside)} outside the domain tile "
            f"{'the faces x_1 = 0 and u_prime = 0 of ' if has_faces else ''}[0,1]^{dim}; every proven box re-proven with independent "
            f"enclosures ({subboxes} boxes after bisection); {len(chosen)} also re-evaluated with mpmath"
        )
        return _verdict(what, open_, details)
    finally:
        mpmath.mp.dps = old


# ---------------------------------------------------------------------------
# holds-region: the branch-and-bound proof of conjecture_region (sigma in an interval)
# ---------------------------------------------------------------------------

REGION_STATEMENT = (
    "for every sigma in the stated interval and every pair of neighbouring 1-d datasets with n rows, values "
    "in an interval of length 1 (replace-one), fixed-size sampling of m rows without replacement (r = m/n) "
    "and Gaussian noise sigma: D_lambda(p||q) <= D_lambda(r mu_1 + (1-r) mu_0 || mu_0)"
)
REGION_DOMAIN = (
    "boxes tile [0,1]^(n+1) x [1/sigma_high, 1/sigma_low] (coordinates x_1..x_{n-1}, u, u_prime, t = 1/sigma); "
    "by translation, permutation of the other rows and reflection z -> 1 - z every admissible configuration "
    "has the same divergences as one in F = {x_1 <= ... <= x_{n-1}, u >= u_prime}; 'outside' boxes do not "
    "meet F; G_sigma(theta) = G_1(t theta) (substitute y = sigma z)"
)
REGION_METHODS = {
    "h": "h(theta, t) = G_1(t theta) - RHS(t), RHS(t) = sum_j C(lambda, j) r^j (1-r)^(lambda-j) exp(j(j-1) t^2 / 2)",
    "taylor": (
        "certified signs of the partial derivatives of h on the box; signed sides fixed at the end their sign "
        "selects; on that face, with c its centre (the 'point') and J the unsigned sides: h(c) + "
        "sum_J |dh/dk(c)| w_k/2 + sum_J,J |d2h/djdk| w_j w_k/8 <= upper <= 0 (second derivatives over the box)"
    ),
    "monotone": "certified signs of the derivatives of h on the box; sup at the vertex 'point'; h(point) <= upper <= 0",
    "extremal": (
        "the theta part contains (0..0, u=1, u'=0) and the partial derivatives of G_1 on the scaled box "
        "prod [lo t_low, hi t_high] have the signs that select it: for every t, sup = G_1(t (0..0,1,0)) = RHS(t)"
    ),
    "upper": (
        "a proven upper bound of h on the box: the prover's bound plus half its distance to 0, rounded up "
        "to 15 significant digits (room for verify's independent enclosures)"
    ),
}


#: the domain text of a holds-region certificate over the faces x_1 = 0 and u' = 0 (optional field "faces")
REGION_FACES_DOMAIN = (
    "boxes tile the faces {x_1 = 0} and {u_prime = 0} of [0,1]^(n+1), times [1/sigma_high, 1/sigma_low] "
    "(coordinates x_1..x_{n-1}, u, u_prime, t = 1/sigma; each box has the side [0, 0] of its face); by "
    "permutation of the other rows and reflection z -> 1 - z every admissible configuration has the same "
    "divergences as one in F = {x_1 <= ... <= x_{n-1}, u >= u_prime}, and translating it by minus its smallest "
    "value min(x_1, u_prime) keeps it in F and in [0,1]^(n+1) and puts it on one of the two faces; 'outside' "
    "boxes do not meet F; G_sigma(theta) = G_1(t theta) (substitute y = sigma z)"
)


def make_region_certificate(proof: dict[str, Any]) -> dict[str, Any]:
    """Certificate of kind ``holds-region`` from
    :func:`rigorous_rdp.research.conjecture_region.region_to_json` (an incomplete proof gives
    ``"complete": false``; ``verify`` then exits 1)."""
    boxes = []
    for rec in proof["boxes"]:
        rec = list(rec)
        if rec[2] is not None:
            u = Fraction(str(rec[2]))
            if u < 0:
                cand = _decimal_up(u * (1 - ROOM))
                if Fraction(cand) <= 0:
                    rec[2] = cand
        boxes.append(rec)
    cert = {
        "format": FORMAT,
        "format_version": VERSION,
        "kind": "holds-region",
        "statement": REGION_STATEMENT,
        "complete": not proof["open"],
        "case": proof["case"],
        "coordinates": proof["coordinates"],
        "domain": REGION_FACES_DOMAIN if proof.get("faces") else REGION_DOMAIN,
        **({"faces": proof["faces"]} if proof.get("faces") else {}),
        "boxes": boxes,
        "outside": proof["outside"],
        "open": proof["open"],
        "methods": REGION_METHODS,
        "summary": {k: v for k, v in proof["summary"].items() if k != "seconds"},
    }
    cert["sha256"] = _hash(cert)
    return cert


def _rhs_t(n: int, m: int, lam: int, t: arb) -> tuple[arb, arb, arb]:
    """RHS(t) and its first two t-derivatives over the ball ``t`` (the finite sum (9.5) at sigma = 1/t,
    differentiated term by term; written out here again)."""
    rb = arb(m) / arb(n)
    out = [arb(0), arb(0), arb(0)]
    for j in range(lam + 1):
        w = arb(math.comb(lam, j)) * rb**j * (1 - rb) ** (lam - j)
        a = arb(j * (j - 1)) / 2
        e = (a * t * t).exp()
        out[0] += w * e
        out[1] += w * e * 2 * a * t
        out[2] += w * e * (2 * a + 4 * a * a * t * t)
    return out[0], out[1], out[2]


def _fq(x: Fraction) -> arb:
    return arb(x.numerator) / arb(x.denominator)


def _span(lo: Fraction, hi: Fraction) -> arb:
    return _fq(lo).union(_fq(hi))


def _amax(x: arb) -> arb:
    return arb(max(abs(x.lower()), abs(x.upper())))


def _grad_over(case_b: Any, S: list[tuple[Fraction, Fraction]]) -> tuple[list[arb], list[list[arb]]]:
    """Enclosures of the gradient and the Hessian of G_1 over the box ``S`` (reference enclosures: the
    gradient over the box directly, intersected with the gradient at the centre plus the Hessian over
    the box times the half-widths; both contain it)."""
    from ..reference.conjecture_boxes import derivatives_over_box, point_values

    c = [(lo + hi) / 2 for lo, hi in S]
    pv = point_values(case_b, c)
    direct, H = derivatives_over_box(case_b, S)
    d = len(S)
    hw = [arb(0, _fq((hi - lo) / 2).upper()) for lo, hi in S]
    g = []
    for k in range(d):
        mv = pv[1 + k] + sum((H[k][j] * hw[j] for j in range(d)), arb(0))
        if not mv.overlaps(direct[k]):
            raise ArithmeticError("two enclosures of the same gradient are disjoint")
        g.append(mv.intersection(direct[k]))
    return g, H


def _region_subbox(
    case_b: Any, n: int, m: int, lam: int, box: list[tuple[Fraction, Fraction]], target: arb | None
) -> tuple[bool, str]:
    """One attempt on one (sub-)box: ``target`` None: the extremal claim (signs of G_1 on the scaled
    box select (0..0,1,0), which the box contains); else sup_box h <= target."""
    from ..reference.conjecture_boxes import point_values

    t0, t1 = box[-1]
    S = [(lo * t0, hi * t1) for lo, hi in box[:-1]]
    g, H = _grad_over(case_b, S)
    want = [-1] * (n - 1) + [1, -1]
    if target is None:
        ok = all((gk < 0) if s < 0 else (gk > 0) for gk, s in zip(g, want, strict=True))
        return ok, "signs not certified"
    d = n + 1
    th = [_span(lo, hi) for lo, hi in box[:-1]]
    tb = _span(t0, t1)
    _, r1, r2 = _rhs_t(n, m, lam, tb)
    db = [tb * gk for gk in g] + [sum((th[k] * g[k] for k in range(d)), arb(0)) - r1]
    h2 = [[arb(0)] * (d + 1) for _ in range(d + 1)]
    for j in range(d):
        for k in range(d):
            h2[j][k] = tb * tb * H[j][k]
        h2[j][d] = h2[d][j] = g[j] + tb * sum((th[i] * H[j][i] for i in range(d)), arb(0))
    h2[d][d] = sum((th[j] * th[k] * H[j][k] for j in range(d) for k in range(d)), arb(0)) - r2
    signs = [1 if x > 0 else -1 if x < 0 else 0 for x in db]
    face = [hi if s > 0 else lo if s < 0 else (lo + hi) / 2 for (lo, hi), s in zip(box, signs, strict=True)]
    free = [k for k in range(d + 1) if signs[k] == 0]
    tf = face[-1]
    phi = [tf * x for x in face[:-1]]
    pv = point_values(case_b, phi, grad=bool(free))
    rhs_f, r1f, _ = _rhs_t(n, m, lam, _fq(tf))
    bound = pv[0] - rhs_f
    if bound > target:
        return False, f"refuted: h at {[str(x) for x in face]} is above the bound"
    tfa = _fq(tf)
    dface = [tfa * pv[1 + k] for k in range(d)] + [sum((_fq(face[k]) * pv[1 + k] for k in range(d)), arb(0)) - r1f]
    for k in free:
        hk = _fq((box[k][1] - box[k][0]) / 2)
        bound += _amax(dface[k]) * hk
        for j in free:
            bound += _amax(h2[j][k]) * hk * _fq((box[j][1] - box[j][0]) / 2) / 2
    return bool(bound <= target), "bound above the target"


def reprove_region_box(
    case_b: Any, n: int, m: int, lam: int, box: list[tuple[Fraction, Fraction]], target: arb | None, max_boxes: int
) -> tuple[bool, int, str]:
    """Re-prove one box of a holds-region certificate (bisecting the widest side up to ``max_boxes``
    sub-boxes; the extremal claim is a claim about the signs on the scaled box, so it may be split
    too).  Returns (proven, sub-boxes used, reason)."""
    stack = [list(box)]
    used = 0
    why = ""
    while stack:
        B = stack.pop()
        used += 1
        if used > max_boxes:
            return False, used, f"not re-proven within {max_boxes} sub-boxes ({why})"
        with workprec(PREC_BOXES):
            ok, why = _region_subbox(case_b, n, m, lam, B, target)
        if ok:
            continue
        if why.startswith("refuted"):
            return False, used, why
        stack += bisect_widest(B)
    return True, used, "re-proven"


def _region_summary_mismatch(
    cert: dict[str, Any], proven: list[Any], outside: list[Any], open_: list[Any]
) -> str | None:
    summ = cert["summary"]
    want = _summary_from_boxes(cert["case"], proven, outside, open_)
    for k, v in want.items():
        if summ.get(k) != v:
            return k
    return _extra_or_statement(summ, set(want) | {"rhs_g_range"}, str(cert.get("kind")), open_)


def _region_box_lists(cert: dict[str, Any], parse: Any, domain_part: Any, n: int) -> Any:
    """The proven, outside and open boxes of a region certificate parsed by ``parse``, checked against
    'complete', the summary and the fundamental domain (``domain_part`` gives the part of a box the
    domain test sees); a failing :class:`VerificationResult` instead where a check fails."""
    from ..certificates.common import VerificationResult

    proven = [(parse(b[0]), b) for b in cert["boxes"]]
    outside = [parse(b) for b in cert["outside"]]
    open_ = [parse(b[0]) for b in cert["open"]]
    if cert["complete"] is not (not open_):
        return VerificationResult(False, "'complete' disagrees with the list of open boxes")
    bad = _region_summary_mismatch(cert, proven, outside, open_)
    if bad is not None:
        return VerificationResult(False, f"malformed certificate: summary field {bad!r} disagrees with the boxes")
    for b in outside:
        if not _misses_domain(domain_part(b), n):
            return VerificationResult(False, f"an 'outside' box meets the fundamental domain: {b}")
    return proven, outside, open_


def _verify_region(cert: dict[str, Any], *, jobs: int = 1) -> Any:
    from ..certificates.common import VerificationResult

    case = cert["case"]
    if (
        not isinstance(case, dict)
        or set(case) != {"model", "d", "n", "m", "r", "lambda", "sigma"}
        or not all(type(case[k]) is int for k in ("d", "n", "m", "lambda"))
        or not isinstance(case["r"], str)
        or not (isinstance(case["sigma"], list) and len(case["sigma"]) == 2)
        or not all(isinstance(x, str) for x in case["sigma"])
    ):
        return VerificationResult(
            False,
            "malformed certificate: case needs model, d, n, m, lambda (integers), r (string) and sigma [low, high]",
        )
    n, m, lam = case["n"], case["m"], case["lambda"]
    s_lo, s_hi = (Fraction(str(x)) for x in case["sigma"])
    if case.get("model") != "range" or case["d"] != 1:
        return VerificationResult(False, "malformed certificate: holds-region covers model range, d = 1 only")
    if not (n >= 2 and 1 <= m < n and lam >= 2) or Fraction(str(case["r"])) != Fraction(m, n):
        return VerificationResult(False, "malformed certificate: inconsistent case (n, m, r, lambda)")
    if not 1 <= s_lo < s_hi:
        # sigma >= 1 keeps every scaled configuration t theta in [0,1]^(n+1), where the tails hold
        return VerificationResult(False, "malformed certificate: the sigma interval must satisfy 1 <= low < high")
    if (
        cert.get("statement") != REGION_STATEMENT
        or cert.get("domain") != (REGION_FACES_DOMAIN if "faces" in cert else REGION_DOMAIN)
        or cert.get("methods") != REGION_METHODS
        or cert.get("coordinates") != [f"x_{i + 1}" for i in range(n - 1)] + ["u", "u_prime", "t"]
    ):
        return VerificationResult(
            False, "malformed certificate: the statement, domain, methods or coordinates text is not the one generated"
        )
    t_lo, t_hi = 1 / s_hi, 1 / s_lo
    d = n + 2
    has_faces = "faces" in cert
    faces = faces_of(n + 1, (t_lo, t_hi))
    if has_faces and cert["faces"] != [[[str(lo), str(hi)] for lo, hi in f] for f in faces]:
        return VerificationResult(
            False, "malformed certificate: 'faces' is not [x_1 = 0, u_prime = 0] of [0,1]^(n+1) x [t_low, t_high]"
        )
    flat = (0, n) if has_faces else ()

    def parse(b: Any) -> tuple[tuple[Fraction, Fraction], ...]:
        if not isinstance(b, list) or len(b) != d:
            raise ValueError("a box has the wrong number of sides")
        out = []
        for i, (lo, hi) in enumerate(b):
            a, c = Fraction(str(lo)), Fraction(str(hi))
            lim = (t_lo, t_hi) if i == d - 1 else (Fraction(0), Fraction(1))
            if not (lim[0] <= a < c <= lim[1] or (i in flat and a == c == 0)):
                raise ValueError(f"box side [{lo}, {hi}] is not a non-empty part of [{lim[0]}, {lim[1]}]")
            out.append((a, c))
        return tuple(out)

    lists = _region_box_lists(cert, parse, lambda b: b[:-1], n)
    if isinstance(lists, VerificationResult):
        return lists
    proven, outside, open_ = lists
    region = tuple([(Fraction(0), Fraction(1))] * (n + 1) + [(t_lo, t_hi)])
    if has_faces:
        if not _tile_faces(faces, [b for b, _ in proven] + outside + open_):
            return VerificationResult(
                False,
                "the boxes do not tile the faces x_1 = 0 and u_prime = 0 (times [t_low, t_high]) (coverage fails)",
            )
    elif not _tile(region, [b for b, _ in proven] + outside + open_):
        return VerificationResult(False, "the boxes do not tile [0,1]^(n+1) x [t_low, t_high] (coverage fails)")
    for b, rec in proven:
        method, upper, point, signs = rec[1], rec[2], rec[3], rec[4]
        if method == "extremal":
            if not (all(b[i][0] == 0 for i in range(n - 1)) and b[n - 1][1] == 1 and b[n][0] == 0):
                return VerificationResult(False, f"box {b}: 'extremal' box does not contain (0..0, 1, 0)")
        elif method in ("taylor", "monotone"):
            if len(signs) != d or any(s not in (-1, 0, 1) for s in signs):
                return VerificationResult(False, f"box {b}: malformed signs")
            face = tuple(hi if s > 0 else lo if s < 0 else (lo + hi) / 2 for (lo, hi), s in zip(b, signs, strict=True))
            if point is None or tuple(Fraction(str(x)) for x in point) != face:
                return VerificationResult(False, f"box {b}: the point is not the face its signs select")
            if (method == "monotone") != all(s != 0 for s in signs):
                return VerificationResult(False, f"box {b}: method {method!r} disagrees with its signs")
            if not Fraction(str(upper)) <= 0:
                return VerificationResult(False, f"box {b}: stated bound {upper} of G - RHS is not <= 0")
        else:
            return VerificationResult(False, f"box {b}: unknown method {method!r}")
    rg = cert["summary"].get("rhs_g_range")
    if rg is not None:  # the printed RHS range: its lower end at t_low, its upper end at t_high
        with workprec(PREC_BOXES):
            lo_ok = _rhs_t(n, m, lam, _fq(t_lo))[0] >= _fq(Fraction(str(rg["lower"])))
            hi_ok = _rhs_t(n, m, lam, _fq(t_hi))[0] <= _fq(Fraction(str(rg["upper"])))
        if not (lo_ok and hi_ok):
            return VerificationResult(False, "malformed certificate: summary field 'rhs_g_range' is not the RHS range")
    items = [(b, None if rec[1] == "extremal" else Fraction(str(rec[2]))) for b, rec in proven]
    rules = [rec[1] for _, rec in proven]
    subboxes = _reprove_boxes(_region_chunk, (n, m, lam), items, jobs, [b for b, _ in proven], rules)
    if isinstance(subboxes, VerificationResult):
        return subboxes
    what = (
        f"n = {n}, m = {m}, lambda = {lam}, sigma in [{s_lo}, {s_hi}]: {len(proven)} proven boxes and "
        f"{len(outside)} outside the domain tile {'the faces x_1 = 0 and u_prime = 0 of ' if has_faces else ''}"
        f"[0,1]^{n + 1} x [{t_lo}, {t_hi}]; every proven box re-proven "
        f"with independent enclosures ({subboxes} boxes after bisection)"
    )
    return _verdict(what, open_, _box_details(len(proven), subboxes, outside, open_))


# ---------------------------------------------------------------------------
# holds-region-scaled: the proof over phi = t theta (conjecture_region.prove_region_scaled)
# ---------------------------------------------------------------------------

SCALED_KIND = "holds-region-scaled"
SCALED_DOMAIN = (
    "boxes tile the faces {x_1 = 0} and {u_prime = 0} of [0, t_high]^(n+1), t_high = 1/sigma_low (coordinates "
    "phi = t theta, t = 1/sigma: x_1..x_{n-1}, u, u_prime at sigma = 1; each box has the side [0, 0] of its "
    "face); by permutation of the other rows, reflection z -> 1 - z and translation by minus the smallest "
    "value every admissible configuration has the divergences of one theta in F = {x_1 <= ... <= x_{n-1}, "
    "u >= u_prime} on the faces {x_1 = 0} or {u_prime = 0} of [0,1]^(n+1); G_sigma(theta) = G_1(t theta) "
    "(substitute y = sigma z); F and the faces are cones and RHS is nondecreasing in t, so the claim for "
    "every theta and every t in [t_low, t_high] is equivalent to G_1(phi) <= RHS(max(t_low, max_k phi_k)) "
    "for every phi in F on those faces of [0, t_high]^(n+1); 'outside' boxes do not meet F"
)
SCALED_METHODS = {
    "R": (
        "per box a lower bound R of RHS(max(t_low, max_k phi_k)) on the box, RHS(t) = sum_j C(lambda, j) r^j "
        "(1-r)^(lambda-j) exp(j(j-1) t^2 / 2): {'t': s} R = RHS(s) with 0 <= s <= max(t_low, max_k lo_k); "
        "{'coordinate': j} R = RHS(phi_j) with lo_j >= t_low"
    ),
    "taylor": (
        "h = G_1 - R; certified signs of the partial derivatives of h on the box; signed sides fixed at the end "
        "their sign selects; on that face, with c its centre (the 'point') and J the unsigned sides: h(c) + "
        "sum_J |dh/dk(c)| w_k/2 + sum_J,J |d2h/djdk| w_j w_k/8 <= upper <= 0 (second derivatives over the box)"
    ),
    "monotone": "certified signs of the derivatives of h = G_1 - R on the box; sup at the vertex 'point'; "
    "h(point) <= upper <= 0",
    "ray": (
        "the box has lower end 0 in every x_i and in u_prime, and dG_1/dx_i < 0, dG_1/du_prime < 0 on it (a side "
        "[0, 0] needs no sign): G_1(phi) <= G_1(0..0, phi_u, 0) = RHS(phi_u) <= RHS(max(t_low, max_k phi_k)), "
        "since q = N(0,1) and p = (1-r) N(0,1) + r N(phi_u, 1) on the ray"
    ),
    "upper": (
        "a proven upper bound of h on the box: the prover's bound plus half its distance to 0, rounded up "
        "to 15 significant digits (room for verify's independent enclosures)"
    ),
}


def make_region_scaled_certificate(proof: dict[str, Any]) -> dict[str, Any]:
    """Certificate of kind ``holds-region-scaled`` from
    :func:`rigorous_rdp.research.conjecture_region.region_scaled_to_json` (an incomplete proof gives
    ``"complete": false``; ``verify`` then exits 1)."""
    cert = make_region_certificate(proof)
    cert.pop("sha256")
    cert.update(kind=SCALED_KIND, domain=SCALED_DOMAIN, methods=SCALED_METHODS)
    cert["sha256"] = _hash(cert)
    return cert


def _region_case(cert: dict[str, Any]) -> tuple[int, int, int, Fraction, Fraction] | str:
    """``(n, m, lambda, sigma_low, sigma_high)`` of a region certificate, or the reason it is malformed."""
    case = cert["case"]
    if (
        not isinstance(case, dict)
        or set(case) != {"model", "d", "n", "m", "r", "lambda", "sigma"}
        or not all(type(case[k]) is int for k in ("d", "n", "m", "lambda"))
        or not isinstance(case["r"], str)
        or not (isinstance(case["sigma"], list) and len(case["sigma"]) == 2)
        or not all(isinstance(x, str) for x in case["sigma"])
    ):
        return "case needs model, d, n, m, lambda (integers), r (string) and sigma [low, high]"
    n, m, lam = case["n"], case["m"], case["lambda"]
    s_lo, s_hi = (Fraction(str(x)) for x in case["sigma"])
    if case.get("model") != "range" or case["d"] != 1:
        return f"{cert['kind']} covers model range, d = 1 only"
    if not (n >= 2 and 1 <= m < n and lam >= 2) or Fraction(str(case["r"])) != Fraction(m, n):
        return "inconsistent case (n, m, r, lambda)"
    if not 1 <= s_lo < s_hi:
        # sigma >= 1 keeps every phi = t theta in [0,1]^(n+1), where the tails of the enclosures hold
        return "the sigma interval must satisfy 1 <= low < high"
    return n, m, lam, s_lo, s_hi


def _scaled_box_check(n: int, t_lo: Fraction, b: tuple[tuple[Fraction, Fraction], ...], rec: list[Any]) -> str | None:
    """The structure of one proven box of a holds-region-scaled certificate (None when it is sound)."""
    if len(rec) != 6:
        return "a box record needs box, method, upper, point, signs, R"
    method, upper, point, signs, rhs = rec[1], rec[2], rec[3], rec[4], rec[5]
    if method == "ray":
        if upper is not None or rhs is not None or not all(b[k][0] == 0 for k in [*range(n - 1), n]):
            return "'ray' box does not have lower end 0 in every x_i and u_prime (or states a bound)"
        return None
    if method not in ("taylor", "monotone"):
        return f"unknown method {method!r}"
    wide = [lo < hi for lo, hi in b]
    if not isinstance(signs, list) or len(signs) != n + 1 or any(s not in (-1, 0, 1) for s in signs):
        return "malformed signs"
    face = tuple(hi if s > 0 else lo if s < 0 else (lo + hi) / 2 for (lo, hi), s in zip(b, signs, strict=True))
    if point is None or tuple(Fraction(str(x)) for x in point) != face:
        return "the point is not the face its signs select"
    if (method == "monotone") != all(s != 0 for s, w in zip(signs, wide, strict=True) if w):
        return f"method {method!r} disagrees with its signs"
    if not Fraction(str(upper)) <= 0:
        return f"stated bound {upper} of G_1 - R is not <= 0"
    if not isinstance(rhs, dict) or len(rhs) != 1:
        return "R must be {'t': s} or {'coordinate': j}"
    if "t" in rhs:
        s = Fraction(str(rhs["t"]))
        if not 0 <= s <= max(t_lo, *(lo for lo, _ in b)):
            return f"R = RHS({s}) is not below RHS(max(t_low, max_k phi_k)) on the box"
    elif "coordinate" in rhs:
        j = rhs["coordinate"]
        if type(j) is not int or not 0 <= j <= n or b[j][0] < t_lo:
            return f"R = RHS(phi_j) with j = {j!r} needs a side j with lower end >= t_low"
    else:
        return "R must be {'t': s} or {'coordinate': j}"
    return None


def _scaled_chunk(item: tuple[Any, list[Any]]) -> list[tuple[bool, int, str]]:
    """Work item of :func:`_verify_region_scaled`: re-prove each ``(box, bound or None for ray, R, point)``."""
    from ..reference.conjecture_boxes import reprove_ray_box, reprove_scaled_box

    (n, m, lam), chunk = item
    case_b = _box_case(n, m, lam, Fraction(1))
    out = []
    for b, up, rhs, point in chunk:
        if up is None:
            out.append(reprove_ray_box(case_b, b, MAX_SUBBOXES))
        else:
            spec = ("t", Fraction(str(rhs["t"]))) if "t" in rhs else ("coordinate", rhs["coordinate"])
            # the certificate's point only as the first anchor of the mean-value form (any point of the box
            # is a valid anchor; the re-proof checks that it lies in the box and derives its own signs)
            hint = [Fraction(str(x)) for x in point] if point is not None else None
            out.append(reprove_scaled_box(case_b, b, _lower_target(up), spec, MAX_SUBBOXES, hint=hint))
    return out


def _verify_region_scaled(cert: dict[str, Any], *, jobs: int = 1) -> Any:
    from ..certificates.common import VerificationResult
    from ..reference.conjecture_boxes import rhs_scaled

    got = _region_case(cert)
    if isinstance(got, str):
        return VerificationResult(False, f"malformed certificate: {got}")
    n, m, lam, s_lo, s_hi = got
    if (
        cert.get("statement") != REGION_STATEMENT
        or cert.get("domain") != SCALED_DOMAIN
        or cert.get("methods") != SCALED_METHODS
        or cert.get("coordinates") != [f"x_{i + 1}" for i in range(n - 1)] + ["u", "u_prime"]
    ):
        return VerificationResult(
            False, "malformed certificate: the statement, domain, methods or coordinates text is not the one generated"
        )
    t_lo, t_hi = 1 / s_hi, 1 / s_lo
    z, side = (Fraction(0), Fraction(0)), (Fraction(0), t_hi)
    faces = [tuple([z] + [side] * n), tuple([side] * n + [z])]
    if cert.get("faces") != [[[str(lo), str(hi)] for lo, hi in f] for f in faces]:
        return VerificationResult(
            False, "malformed certificate: 'faces' is not [x_1 = 0, u_prime = 0] of [0, 1/sigma_low]^(n+1)"
        )

    def parse(b: Any) -> tuple[tuple[Fraction, Fraction], ...]:
        if not isinstance(b, list) or len(b) != n + 1:
            raise ValueError("a box has the wrong number of sides")
        out = []
        for i, (lo, hi) in enumerate(b):
            a, c = Fraction(str(lo)), Fraction(str(hi))
            if not (0 <= a < c <= t_hi or (i in (0, n) and a == c == 0)):
                raise ValueError(f"box side [{lo}, {hi}] is not a non-empty part of [0, {t_hi}]")
            out.append((a, c))
        return tuple(out)

    lists = _region_box_lists(cert, parse, lambda b: b, n)
    if isinstance(lists, VerificationResult):
        return lists
    proven, outside, open_ = lists
    if not _tile_faces(faces, [b for b, _ in proven] + outside + open_):
        return VerificationResult(
            False, "the boxes do not tile the faces x_1 = 0 and u_prime = 0 of [0, t_high]^(n+1) (coverage fails)"
        )
    for b, rec in proven:
        why = _scaled_box_check(n, t_lo, b, rec)
        if why is not None:
            return VerificationResult(False, f"box {_box_str(b)}: {why}")
    rg = cert["summary"].get("rhs_g_range")
    if rg is not None:  # the printed RHS range: its lower end at t_low, its upper end at t_high
        with workprec(PREC_BOXES):
            lo_ok = rhs_scaled(n, m, lam, _fq(t_lo))[0] >= _fq(Fraction(str(rg["lower"])))
            hi_ok = rhs_scaled(n, m, lam, _fq(t_hi))[0] <= _fq(Fraction(str(rg["upper"])))
        if not (lo_ok and hi_ok):
            return VerificationResult(False, "malformed certificate: summary field 'rhs_g_range' is not the RHS range")
    items = [(b, None if rec[1] == "ray" else Fraction(str(rec[2])), rec[5], rec[3]) for b, rec in proven]
    rules = [rec[1] for _, rec in proven]
    subboxes = _reprove_boxes(_scaled_chunk, (n, m, lam), items, jobs, [b for b, _ in proven], rules)
    if isinstance(subboxes, VerificationResult):
        return subboxes
    what = (
        f"n = {n}, m = {m}, lambda = {lam}, sigma in [{s_lo}, {s_hi}]: {len(proven)} proven boxes and "
        f"{len(outside)} outside the domain tile the faces x_1 = 0 and u_prime = 0 of [0, {t_hi}]^{n + 1} "
        f"(phi = theta / sigma); every proven box re-proven with independent enclosures ({subboxes} boxes after "
        "bisection)"
    )
    return _verdict(what, open_, _box_details(len(proven), subboxes, outside, open_))


# ---------------------------------------------------------------------------
# holds-boxes-order-interval: the proof over a real order interval (conjecture_lambda.prove_lambda)
# ---------------------------------------------------------------------------

ORDER_KIND = "holds-boxes-order-interval"
ORDER_STATEMENT = (
    "for every pair of neighbouring 1-d datasets with n rows, values in an interval of length 1 "
    "(replace-one), fixed-size sampling of m rows without replacement (r = m/n), Gaussian noise sigma "
    "and every real order lambda in [lambda_low, lambda_high]: "
    "D_lambda(p||q) <= D_lambda(r mu_1 + (1-r) mu_0 || mu_0)"
)
ORDER_DOMAIN = (
    "boxes tile the faces {x_1 = 0} and {u_prime = 0} of [0,1]^(n+1) times [lambda_low, lambda_high] "
    "(coordinates x_1..x_{n-1}, u, u_prime, lambda); the reductions of holds-boxes (permutation, "
    "reflection, translation to a face) hold at every order; 'outside' boxes do not meet "
    "F = {x_1 <= ... <= x_{n-1}, u >= u_prime}"
)
ORDER_METHODS = {
    "convexity": (
        "G_lambda and RHS_lambda are convex in lambda; on a box with order side [a, b]: sup G_a <= T_a = RHS_a "
        "and sup G_b <= T_b = RHS_a + d (b - a), d the slope of the chord of RHS over [a - delta, a], "
        "delta = min((b - a)/8, a - 1), prove G_lambda <= RHS_lambda for every lambda in [a, b]"
    ),
    "taylor": (
        "signed coordinates (gradient enclosed over the box and the order side) fixed at the end their sign "
        "selects; on that face, with c its centre (the 'point') and J the unsigned coordinates: "
        "G_lambda(c) + sum_J |dG/dk(c)| w_k/2 + sum_J,J |H_jk| w_j w_k/8 <= upper, at lambda = a and b"
    ),
    "monotone": "certified signs on the box and the order side; sup at the vertex 'point'; G_a, G_b there <= upper",
    "extremal": "certified signs select (0..0, u=1, u'=0), where G_lambda equals RHS_lambda at every order",
    "ray": (
        "certified signs select the vertex 'point' v, and certified signs on hull(v, (0..0, 1, 0)) x the order "
        "side select (0..0, 1, 0): G_lambda(v) <= G_lambda(0..0, 1, 0) = RHS_lambda"
    ),
    "upper": (
        "[bound of sup G at the lower order of the box, at the upper order]: the prover's bound plus half its "
        "distance to the target T, rounded up to 15 significant digits (null for extremal and ray)"
    ),
}


def make_order_interval_certificate(proof: dict[str, Any]) -> dict[str, Any]:
    """Certificate of kind ``holds-boxes-order-interval`` from
    :func:`rigorous_rdp.research.conjecture_lambda.lambda_proof_to_json` (each stated bound raised by
    :data:`ROOM` of its distance to the box's target, for the verifier's independent enclosures)."""
    boxes = []
    for rec in proof["boxes"]:
        box, method, point, signs, uppers, tg = rec
        if uppers is not None:
            out = []
            for u_s, t_s in zip(uppers, tg, strict=True):
                u, t = Fraction(u_s), Fraction(t_s)
                cand = _decimal_up(u + (t - u) * ROOM) if u < t else u_s
                out.append(cand if Fraction(cand) <= t else u_s)
            uppers = out
        boxes.append([box, method, point, signs, uppers])
    cert = {
        "format": FORMAT,
        "format_version": VERSION,
        "kind": ORDER_KIND,
        "statement": ORDER_STATEMENT,
        "complete": not proof["open"],
        "case": proof["case"],
        "coordinates": proof["coordinates"],
        "domain": ORDER_DOMAIN,
        "faces": proof["faces"],
        "rhs_g": proof["rhs_g"],
        "boxes": boxes,
        "outside": proof["outside"],
        "open": proof["open"],
        "methods": ORDER_METHODS,
        "summary": {k: v for k, v in proof["summary"].items() if k != "seconds"},
    }
    cert["sha256"] = _hash(cert)
    return cert


def _order_chunk(item: tuple[Any, list[Any]]) -> list[tuple[bool, int, str]]:
    """Work item of :func:`_verify_order_interval`: re-prove each ``(box, stated bounds or None)``."""
    from ..reference.conjecture_lambda_boxes import OrderCase, reprove_order_box

    (n, m, lo, hi, sigma), chunk = item
    case = OrderCase(n, m, lo, hi, sigma)
    out = []
    for b, ups in chunk:
        if ups is None:
            ua = ub = None
        else:
            ua, ub = (_lower_target(u) for u in ups)
        out.append(reprove_order_box(case, list(b), ua, ub, max_boxes=MAX_SUBBOXES))
    return out


_ASCII_NUMBER = re.compile(r"[0-9eE.+/-]+")


def _order_summary_failure(cert: dict[str, Any], kind: str, proven: int, outside: int, open_: list[Any]) -> Any:
    """The failure of the summary of a real-order certificate (``holds-boxes-order-interval`` or
    ``holds-boxes-order-sigma``): every field the case and the boxes determine, no other field than the RHS
    range, and the generated statement; None when it agrees."""
    from ..certificates.common import VerificationResult

    summ, case = cert.get("summary", {}), cert["case"]
    if not isinstance(summ, dict):
        return VerificationResult(False, "malformed certificate: 'summary' must be an object")
    methods: dict[str, int] = {}
    for rec in cert["boxes"]:
        methods[rec[1]] = methods.get(rec[1], 0) + 1
    expect = {
        "n": case["n"],
        "m": case["m"],
        "proven": not open_,
        "boxes_proven": proven,
        "boxes_outside": outside,
        "boxes_open": len(open_),
        "methods": methods,
        "lambda": case["lambda"],
        "sigma": case["sigma"],
        "r": case["r"],
    }
    if any(summ.get(k) != v for k, v in expect.items()):
        return VerificationResult(False, "malformed certificate: the summary disagrees with the boxes")
    bad = _extra_or_statement(summ, set(expect) | {"rhs_g_range"}, kind, open_)
    if bad is not None:
        return VerificationResult(False, f"malformed certificate: summary field {bad!r} is not the generated one")
    return None


def _order_fraction(x: Any) -> Fraction:
    """A number of a ``holds-boxes-order-interval`` certificate (a string, or an integer or float as
    JSON may hold it) as an exact Fraction, refused by :func:`rigorous_rdp.arith.parse_rational` before
    it is built when it is longer than 1,000 characters or out of the accepted magnitudes:
    ``Fraction("1e999999999")`` would build 10**999999999 (verify would not return)."""
    from ..arith import parse_rational

    if isinstance(x, bool) or not isinstance(x, (str, int, float)):
        raise ValueError(f"a number must be a string, found {type(x).__name__}")
    if isinstance(x, str) and not _ASCII_NUMBER.fullmatch(x):
        # Python's Fraction also reads "1_0/4" and non-ASCII digits: one spelling only
        shown = x if len(x) <= 40 else x[:37] + "..."
        raise ValueError(f"the number {shown!r} is not written with ASCII digits, '.', 'e', '-', '+' and '/' only")
    try:
        return parse_rational(str(x), "a number")
    except ValueError:
        shown = str(x) if len(str(x)) <= 40 else str(x)[:37] + "..."
        raise ValueError(
            f"the number {shown!r} is not a finite decimal or ratio of at most 1000 characters "
            "with a magnitude in [1e-100000, 1e100000)"
        ) from None


def _verify_order_interval(cert: dict[str, Any], *, jobs: int = 1) -> Any:
    """Re-check a ``holds-boxes-order-interval`` certificate: the structure exactly (case, texts, the
    faces times the order interval tiled by the boxes, the outside boxes, the RHS at both ends
    recomputed, the summary), then every proven box re-proven by
    :func:`rigorous_rdp.reference.conjecture_lambda_boxes.reprove_order_box`."""
    from ..certificates.common import VerificationResult
    from ..reference.conjecture_lambda_boxes import rhs_real as ref_rhs

    case = cert.get("case")
    if (
        not isinstance(case, dict)
        or set(case) != {"model", "d", "n", "m", "r", "lambda", "sigma"}
        or not all(type(case[k]) is int for k in ("d", "n", "m"))
        or not all(isinstance(case[k], str) for k in ("r", "sigma"))
        or not (isinstance(case["lambda"], list) and len(case["lambda"]) == 2)
        or not all(isinstance(x, str) for x in case["lambda"])
    ):
        return VerificationResult(
            False, "malformed certificate: case needs model, d, n, m (integers), r, sigma (strings), lambda [low, high]"
        )
    n, m = case["n"], case["m"]
    lo, hi = (_order_fraction(x) for x in case["lambda"])
    sigma = _order_fraction(case["sigma"])
    if case["model"] != "range" or case["d"] != 1:
        return VerificationResult(False, f"malformed certificate: {ORDER_KIND} covers model range, d = 1 only")
    if not (2 <= n <= 6 and 1 <= m < n) or _order_fraction(case["r"]) != Fraction(m, n):
        return VerificationResult(False, "malformed certificate: inconsistent case (n, m, r)")
    if not (2 <= lo < hi <= 16 and 1 <= sigma <= 64):
        return VerificationResult(
            False,
            "malformed certificate: the order range must satisfy 2 <= low < high <= 16 and sigma 1 <= sigma <= 64",
        )
    if (
        cert.get("statement") != ORDER_STATEMENT
        or cert.get("domain") != ORDER_DOMAIN
        or cert.get("methods") != ORDER_METHODS
        or cert.get("coordinates") != [f"x_{i + 1}" for i in range(n - 1)] + ["u", "u_prime", "lambda"]
    ):
        return VerificationResult(
            False, "malformed certificate: the statement, domain, methods or coordinates text is not the one generated"
        )
    faces = faces_of(n + 1, (lo, hi))
    if cert.get("faces") != [[[str(a), str(b)] for a, b in f] for f in faces]:
        return VerificationResult(
            False,
            "malformed certificate: 'faces' is not [x_1 = 0, u_prime = 0] of [0,1]^(n+1) x [lambda_low, lambda_high]",
        )
    d = n + 2

    def parse(b: Any) -> tuple[tuple[Fraction, Fraction], ...]:
        if not isinstance(b, list) or len(b) != d:
            raise ValueError("a box has the wrong number of sides")
        out = []
        for i, side in enumerate(b):
            a, c = (_order_fraction(x) for x in side)
            lim = (lo, hi) if i == d - 1 else (Fraction(0), Fraction(1))
            if not (lim[0] <= a < c <= lim[1] or (i in (0, n) and a == c == 0)):
                raise ValueError(f"box side [{side[0]}, {side[1]}] is not a non-empty part of [{lim[0]}, {lim[1]}]")
            out.append((a, c))
        return tuple(out)

    try:
        proven = []
        for rec in cert["boxes"]:
            if not (isinstance(rec, list) and len(rec) == 5):
                raise ValueError("a box record needs [box, method, point, signs, uppers]")
            b = parse(rec[0])
            method, ups = rec[1], rec[4]
            if method not in ("taylor", "monotone", "extremal", "ray"):
                raise ValueError(f"unknown method {method!r}")
            if (ups is None) != (method in ("extremal", "ray")):
                raise ValueError(f"method {method!r} with bounds {ups!r}")
            if ups is not None and not (isinstance(ups, list) and len(ups) == 2):
                raise ValueError("the bounds must be [at the lower order, at the upper order]")
            if method == "extremal" and not (
                all(b[i][0] == 0 for i in range(n - 1)) and b[n - 1][1] == 1 and b[n][0] == 0
            ):
                raise ValueError(f"box {_box_str(b)}: 'extremal' box does not contain (0..0, 1, 0)")
            proven.append((b, None if ups is None else [_order_fraction(u) for u in ups]))
        outside = [parse(b) for b in cert["outside"]]
        open_ = [parse(b) for b in cert["open"]]
    except (ValueError, TypeError, KeyError, ZeroDivisionError) as exc:
        return VerificationResult(False, f"malformed certificate: {exc}")
    if cert.get("complete") is not (not open_):
        return VerificationResult(False, "malformed certificate: 'complete' disagrees with the open boxes")
    for b in outside:
        if not _misses_domain(b, n):
            return VerificationResult(False, f"box {_box_str(b)} is listed outside but meets the domain")
    if not _tile_faces(faces, [b for b, _ in proven] + outside + open_):
        return VerificationResult(
            False,
            "the boxes do not tile the faces x_1 = 0 and u_prime = 0 (times [lambda_low, lambda_high]) (coverage fails)",
        )
    summ = cert.get("summary", {})
    failed = _order_summary_failure(cert, ORDER_KIND, len(proven), len(outside), open_)
    if failed is not None:
        return failed
    try:
        rg = cert["rhs_g"]
        with workprec(PREC_BOXES):
            for key, lam in (("lambda_lo", lo), ("lambda_hi", hi)):
                own = ref_rhs(sigma, Fraction(m, n), lam)
                s_lo, s_hi = (_order_fraction(x) for x in rg[key])
                # the stated enclosure (15 digits, rounded outward) must meet the recomputed one, and
                # every stated or printed end must agree with it to 12 digits (not [0, 1e6])
                tol = own * arb(10) ** -12

                def near(x: Fraction, own: arb = own, tol: arb = tol) -> bool:
                    return bool(abs(_fq(x) - own) <= tol)

                if not (
                    s_lo <= s_hi
                    and _fq(s_lo) <= arb(own.upper())
                    and arb(own.lower()) <= _fq(s_hi)
                    and near(s_lo)
                    and near(s_hi)
                ):
                    return VerificationResult(
                        False,
                        f"the stated RHS at {key} [{s_lo}, {s_hi}] does not enclose the recomputed {own} "
                        "(to 12 digits)",
                    )
                # the printed range: its lower end at the lowest order, its upper end at the highest
                end = _order_fraction(summ["rhs_g_range"]["lower" if key == "lambda_lo" else "upper"])
                if (
                    (key == "lambda_lo" and not _fq(end) <= arb(own.upper()))
                    or (key == "lambda_hi" and not arb(own.lower()) <= _fq(end))
                    or not near(end)
                ):
                    return VerificationResult(
                        False, "malformed certificate: summary field 'rhs_g_range' is not the RHS range"
                    )
    except (TypeError, KeyError, ValueError) as exc:
        return VerificationResult(False, f"malformed certificate: rhs_g ({exc})")
    items = [(b, ups) for b, ups in proven]
    rules = [rec[1] for rec in cert["boxes"][: len(proven)]]
    subboxes = _reprove_boxes(_order_chunk, (n, m, lo, hi, sigma), items, jobs, [b for b, _ in proven], rules)
    if isinstance(subboxes, VerificationResult):
        return subboxes
    what = (
        f"n = {n}, m = {m}, every lambda in [{lo}, {hi}], sigma = {sigma}: {len(proven)} proven boxes and "
        f"{len(outside)} outside the domain tile the faces x_1 = 0 and u_prime = 0 of [0,1]^{n + 1} x [{lo}, {hi}]; "
        f"every proven box re-proven with independent enclosures ({subboxes} boxes after bisection)"
    )
    return _verdict(what, open_, _box_details(len(proven), subboxes, outside, open_))


# ---------------------------------------------------------------------------
# holds-boxes-order-sigma: every real order and every sigma of two intervals
# (conjecture_lambda_sigma.prove_order_sigma)
# ---------------------------------------------------------------------------

ORDER_SIGMA_KIND = "holds-boxes-order-sigma"
ORDER_SIGMA_STATEMENT = (
    "for every pair of neighbouring 1-d datasets with n rows, values in an interval of length 1 "
    "(replace-one), fixed-size sampling of m rows without replacement (r = m/n), every sigma in "
    "[sigma_low, sigma_high] and every real order lambda in [lambda_low, lambda_high]: "
    "D_lambda(p||q) <= D_lambda(r mu_1 + (1-r) mu_0 || mu_0)"
)
ORDER_SIGMA_DOMAIN = (
    "boxes of phi = theta / sigma tile the faces {phi_x_1 = 0} and {phi_u_prime = 0} of [0, 1/sigma_low]^(n+1) "
    "times [lambda_low, lambda_high]; G at sigma of theta equals G at 1 of phi, RHS_lambda(t) (t = 1/sigma) is "
    "nondecreasing in t, so G_lambda(phi) <= RHS_lambda(max(1/sigma_high, max phi)) for every such phi is the "
    "claim; 'outside' boxes do not meet F = {x_1 <= ... <= x_{n-1}, u >= u_prime}"
)
ORDER_SIGMA_METHODS = {
    "s": "s_B = max(1/sigma_high, largest lower end of the phi sides of the box): RHS_lambda(s_B) <= the RHS due",
    "convexity": (
        "G_lambda and RHS_lambda(s_B) are convex in lambda; sup G_a <= T_a = RHS_a(s_B) and sup G_b <= T_b = "
        "RHS_a(s_B) + d (b - a), d the slope of the chord of RHS(s_B) over [a - delta, a], delta = min((b - a)/8, "
        "a - 1), prove G_lambda <= RHS_lambda(s_B) for every lambda in [a, b]"
    ),
    "taylor": (
        "signed coordinates (gradient enclosed over the box and the order side) fixed at the end their sign "
        "selects; on that face, with c its centre (the 'point'): G_lambda(c) plus mean-value terms <= upper, "
        "at lambda = a and b"
    ),
    "monotone": "certified signs on the box and the order side; sup at the vertex 'point'; G_a, G_b there <= upper",
    "ray": (
        "dG/dphi_x_i <= 0 and dG/dphi_u_prime <= 0 certified on hull(box, ray) (the phi_x_i and phi_u_prime sides "
        "extended down to 0) and the order side: G_lambda(phi) <= G_lambda(0..0, phi_u, 0) = RHS_lambda(phi_u) <= "
        "the RHS due"
    ),
    "upper": (
        "[bound of sup G at the lower order of the box, at the upper order]: the prover's bound plus half its "
        "distance to the target T, rounded up to 15 significant digits (null for ray)"
    ),
}


def make_order_sigma_certificate(proof: dict[str, Any]) -> dict[str, Any]:
    """Certificate of kind ``holds-boxes-order-sigma`` from
    :func:`rigorous_rdp.research.conjecture_lambda_sigma.order_sigma_to_json` (each stated
    bound raised by half its distance to the box's target, room for the verifier's enclosures)."""
    boxes = []
    for rec in proof["boxes"]:
        box, method, point, signs, uppers, tg = rec
        if uppers is not None:
            out = []
            for u_s, t_s in zip(uppers, tg, strict=True):
                u, t = Fraction(u_s), Fraction(t_s)
                cand = _decimal_up(u + (t - u) * ROOM) if u < t else u_s
                out.append(cand if Fraction(cand) <= t else u_s)
            uppers = out
        boxes.append([box, method, point, signs, uppers])
    cert = {
        "format": FORMAT,
        "format_version": VERSION,
        "kind": ORDER_SIGMA_KIND,
        "statement": ORDER_SIGMA_STATEMENT,
        "complete": not proof["open"],
        "case": proof["case"],
        "coordinates": proof["coordinates"],
        "domain": ORDER_SIGMA_DOMAIN,
        "faces": proof["faces"],
        "boxes": boxes,
        "outside": proof["outside"],
        "open": proof["open"],
        "methods": ORDER_SIGMA_METHODS,
        "summary": {k: v for k, v in proof["summary"].items() if k not in ("seconds", "cpu_seconds")},
    }
    cert["sha256"] = _hash(cert)
    return cert


def _order_sigma_chunk(item: tuple[Any, list[Any]]) -> list[tuple[bool, int, str]]:
    """Work item of :func:`verify_order_sigma`: re-prove each ``(box, method, stated bounds or None)``
    (module level, so a worker process can run it)."""
    from ..reference.conjecture_lambda_sigma_boxes import OrderSigmaCase, reprove_order_sigma_box

    (n, m, lo, hi, slo, shi), chunk = item
    case = OrderSigmaCase(n, m, lo, hi, slo, shi)
    out = []
    for b, method, ups in chunk:
        bounds = None if ups is None else (_lower_target(ups[0]), _lower_target(ups[1]))
        out.append(reprove_order_sigma_box(case, list(b), method, bounds, max_boxes=MAX_SUBBOXES))
    return out


def _verify_order_sigma(cert: dict[str, Any], *, jobs: int = 1) -> Any:
    """Re-check a ``holds-boxes-order-sigma`` certificate: the structure exactly (case, texts, the faces
    of [0, 1/sigma_low]^(n+1) times the order interval tiled by the boxes, the outside boxes, the
    summary and its RHS range recomputed), then every proven box re-proven by
    :func:`rigorous_rdp.reference.conjecture_lambda_sigma_boxes.reprove_order_sigma_box`."""
    from ..certificates.common import VerificationResult
    from ..reference.conjecture_lambda_boxes import rhs_real as ref_rhs

    case = cert.get("case")
    if (
        not isinstance(case, dict)
        or set(case) != {"model", "d", "n", "m", "r", "lambda", "sigma"}
        or not all(type(case[k]) is int for k in ("d", "n", "m"))
        or not isinstance(case["r"], str)
        or not all(isinstance(case[k], list) and len(case[k]) == 2 for k in ("lambda", "sigma"))
        or not all(isinstance(x, str) for k in ("lambda", "sigma") for x in case[k])
    ):
        return VerificationResult(
            False,
            "malformed certificate: case needs model, d, n, m (integers), r (string), lambda and sigma [low, high]",
        )
    n, m = case["n"], case["m"]
    try:
        lo, hi = (_order_fraction(x) for x in case["lambda"])
        slo, shi = (_order_fraction(x) for x in case["sigma"])
        r_stated = _order_fraction(case["r"])
    except ValueError as exc:
        return VerificationResult(False, f"malformed certificate: {exc}")
    if case["model"] != "range" or case["d"] != 1:
        return VerificationResult(False, f"malformed certificate: {ORDER_SIGMA_KIND} covers model range, d = 1 only")
    if not (2 <= n <= 6 and 1 <= m < n) or r_stated != Fraction(m, n):
        return VerificationResult(False, "malformed certificate: inconsistent case (n, m, r)")
    if not (2 <= lo < hi <= 16 and 1 <= slo < shi <= 64):
        return VerificationResult(
            False,
            "malformed certificate: the ranges must satisfy 2 <= lambda_low < lambda_high <= 16 and "
            "1 <= sigma_low < sigma_high <= 64",
        )
    if (
        cert.get("statement") != ORDER_SIGMA_STATEMENT
        or cert.get("domain") != ORDER_SIGMA_DOMAIN
        or cert.get("methods") != ORDER_SIGMA_METHODS
        or cert.get("coordinates") != _order_sigma_coordinates(n)
    ):
        return VerificationResult(
            False, "malformed certificate: the statement, domain, methods or coordinates text is not the one generated"
        )
    t1 = 1 / slo
    z, full = (Fraction(0), Fraction(0)), (Fraction(0), t1)
    faces = [tuple([z] + [full] * n + [(lo, hi)]), tuple([full] * n + [z] + [(lo, hi)])]
    if cert.get("faces") != [[[str(a), str(b)] for a, b in f] for f in faces]:
        return VerificationResult(
            False,
            "malformed certificate: 'faces' is not [x_1 = 0, u_prime = 0] of [0, 1/sigma_low]^(n+1) x "
            "[lambda_low, lambda_high]",
        )
    d = n + 2

    def parse(b: Any) -> tuple[tuple[Fraction, Fraction], ...]:
        if not isinstance(b, list) or len(b) != d:
            raise ValueError("a box has the wrong number of sides")
        out = []
        for i, side in enumerate(b):
            if not (isinstance(side, list) and len(side) == 2):
                raise ValueError("a box side must be [low, high]")
            a, c = (_order_fraction(x) for x in side)
            lim = (lo, hi) if i == d - 1 else (Fraction(0), t1)
            if not (lim[0] <= a < c <= lim[1] or (i in (0, n) and a == c == 0)):
                raise ValueError(f"box side [{side[0]}, {side[1]}] is not a non-empty part of [{lim[0]}, {lim[1]}]")
            out.append((a, c))
        return tuple(out)

    try:
        proven = []
        for rec in cert["boxes"]:
            if not (isinstance(rec, list) and len(rec) == 5):
                raise ValueError("a box record needs [box, method, point, signs, uppers]")
            b = parse(rec[0])
            method, ups = rec[1], rec[4]
            if method not in ("taylor", "monotone", "ray"):
                raise ValueError(f"unknown method {method!r}")
            if (ups is None) != (method == "ray"):
                raise ValueError(f"method {method!r} with bounds {ups!r}")
            if ups is not None and not (isinstance(ups, list) and len(ups) == 2):
                raise ValueError("the bounds must be [at the lower order, at the upper order]")
            _check_point_and_signs(b[:-1], method, rec[2], rec[3])
            proven.append((b, method, None if ups is None else [_order_fraction(u) for u in ups]))
        outside = [parse(b) for b in cert["outside"]]
        open_ = [parse(b) for b in cert["open"]]
    except (ValueError, TypeError, KeyError, ZeroDivisionError) as exc:
        return VerificationResult(False, f"malformed certificate: {exc}")
    if cert.get("complete") is not (not open_):
        return VerificationResult(False, "malformed certificate: 'complete' disagrees with the open boxes")
    for b in outside:
        if not _misses_domain(b, n):
            return VerificationResult(False, f"box {_box_str(b)} is listed outside but meets the domain")
    if not _tile_faces(faces, [b for b, _, _ in proven] + outside + open_):
        return VerificationResult(
            False,
            "the boxes do not tile the faces x_1 = 0 and u_prime = 0 of [0, 1/sigma_low]^(n+1) x "
            "[lambda_low, lambda_high] (coverage fails)",
        )
    summ = cert.get("summary", {})
    failed = _order_summary_failure(cert, ORDER_SIGMA_KIND, len(proven), len(outside), open_)
    if failed is not None:
        return failed
    try:
        with workprec(PREC_BOXES):
            # the printed RHS range: RHS at (sigma_high, lambda_low) and at (sigma_low, lambda_high), to 12 digits
            for key, sig, lam in (("lower", shi, lo), ("upper", slo, hi)):
                own = ref_rhs(sig, Fraction(m, n), lam)
                end = _fq(_order_fraction(summ["rhs_g_range"][key]))
                if not abs(end - own) <= own * arb(10) ** -12:
                    return VerificationResult(
                        False, "malformed certificate: summary field 'rhs_g_range' is not the RHS range"
                    )
    except (TypeError, KeyError, ValueError) as exc:
        return VerificationResult(False, f"malformed certificate: rhs_g_range ({exc})")
    items = [(b, method, ups) for b, method, ups in proven]
    rules = [method for _, method, _ in proven]
    subboxes = _reprove_boxes(
        _order_sigma_chunk, (n, m, lo, hi, slo, shi), items, jobs, [b for b, _, _ in proven], rules
    )
    if isinstance(subboxes, VerificationResult):
        return subboxes
    what = (
        f"n = {n}, m = {m}, every lambda in [{lo}, {hi}] and every sigma in [{slo}, {shi}]: {len(proven)} proven "
        f"boxes and {len(outside)} outside the domain tile the faces x_1 = 0 and u_prime = 0 of "
        f"[0, {t1}]^{n + 1} x [{lo}, {hi}] (phi = theta/sigma); every proven box re-proven with independent "
        f"enclosures ({subboxes} boxes after bisection)"
    )
    return _verdict(what, open_, _box_details(len(proven), subboxes, outside, open_))


def _check_point_and_signs(sides: tuple[tuple[Fraction, Fraction], ...], method: str, point: Any, signs: Any) -> None:
    """The descriptive fields of an order-and-sigma box record, as the prover writes them (``ValueError``
    otherwise): ``signs`` one of -1, 0, 1 per phi side (0 on a side of width 0); a ``ray`` box has no point; a
    ``monotone`` box signs every side of positive width and its point is the vertex the signs select; a
    ``taylor`` box leaves some side unsigned and its point is the selected end of each signed side and the
    centre of each unsigned one.  The re-proof does not use them: a wrong label or point would describe a box
    wrongly without proving anything false, and is refused all the same."""
    k = len(sides)
    if not (isinstance(signs, list) and len(signs) == k and all(type(x) is int and x in (-1, 0, 1) for x in signs)):
        raise ValueError("a box's signs must be one of -1, 0, 1 per phi side")
    if any(lo == hi and sg != 0 for (lo, hi), sg in zip(sides, signs, strict=True)):
        raise ValueError("a side of width 0 has sign 0")
    if method == "ray":
        if point is not None:
            raise ValueError("a ray box has no point")
        return
    if not (isinstance(point, list) and len(point) == k):
        raise ValueError("a box's point must have one number per phi side")
    free = any(lo != hi and sg == 0 for (lo, hi), sg in zip(sides, signs, strict=True))
    if free != (method == "taylor"):
        raise ValueError(f"a {method} box with {'unsigned' if free else 'no unsigned'} sides")
    want = [hi if sg > 0 else lo if sg < 0 else (lo + hi) / 2 for (lo, hi), sg in zip(sides, signs, strict=True)]
    if [_order_fraction(x) for x in point] != want:
        raise ValueError("a box's point is not the one its signs select")


def _order_sigma_coordinates(n: int) -> list[str]:
    return [f"phi_x_{i + 1}" for i in range(n - 1)] + ["phi_u", "phi_u_prime", "lambda"]
