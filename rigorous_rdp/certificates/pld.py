r"""PLD certificates (``certify --method pld``) and their independent check.

A PLD certificate has the same envelope as an RDP certificate (:mod:`.rdp`) with
``method.kind = "pld"``: it records the grid (width 1/N), the integer scale
:math:`2^{-S}`, the tail budgets, the rounding rule, the bracket ``[lower, upper]`` of
the true optimal epsilon at the stated delta, and per direction of the neighbouring
relation ("remove", "add") its own bracket and grid.

:func:`verify_pld` re-derives every claim from the certificate's own parameters:

* **Which pairs.**  Each event's scheme writes its dominating pairs out for the reference,
  independently of :mod:`rigorous_rdp.pld` (:func:`reference_pairs`): Gaussian, Laplace and
  randomized response (symmetric), the Poisson-subsampled Gaussian under add-remove
  adjacency (two directions), and fixed-size sampling without replacement under add-remove
  adjacency through the Poisson pairs with sigma/2 (pairs that only dominate: the lower
  end must be 0).  Anything else (replace-one adjacency, sampling with replacement,
  another inner mechanism, a chosen RDP bound) is refused: no certified pair exists.
* **Upper ends.**  For each direction, the upper delta at that direction's stated
  epsilon upper end on that direction's grid is recomputed on an independent path
  (:func:`rigorous_rdp.reference.pld.composed_upper_delta`: profile values in mpmath,
  connect-the-dots masses on *every* grid point, exact convolution of Python integers by
  Kronecker substitution, delta summed in mpmath) and must be at most the stated delta.
  mpmath's values are estimates at ``dps`` digits; the masses are rounded up by one
  extra unit of :math:`2^{-S}` to absorb that error, so ``dps`` is raised with S.  The
  bracket's ends must be the maxima of the directions' ends, and the directions must be
  exactly those of the event (no invented or missing direction).
* **Lower ends.**  A positive lower end of a direction is rechecked: the dominated
  (tangent-chord) pair is rebuilt at that grid in ball arithmetic and composed exactly,
  and the lower delta there must be certainly above the stated delta.  This recheck runs
  the certifying construction again (it is not an independent path), so it catches
  altered certificates, not errors in that construction; the tests compare that
  construction against mpmath references.

The cost grows with the number of steps (tens of seconds for 10^4 steps).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from ..events import DpEvent, leaf_counts
from .common import (
    CertificateError,
    VerificationResult,
    check_keys,
    dp_claim,
    envelope_failure,
    interval,
    parse_decimal,
    parse_exact,
    query_delta,
    rat_text,
    require,
    seal,
)
from .rdp import check_claim, read_inputs

__all__ = ["claim_text", "make_pld_certificate", "reference_pairs", "verify_pld"]

DESCRIPTION = (
    "connect-the-dots dominating pair and tangent-chord dominated pair on the loss grid, "
    "integer masses rounded outward, exact fmpz_poly convolution (docs/pld.md)"
)
ROUNDING = "masses rounded outward to integer multiples of 2^-scale_bits; exact integer convolution"
LEGACY_CLAIM = (
    "steps adaptive applications of inputs.event satisfy (epsilon, delta)-DP for every "
    "epsilon >= epsilon.upper, and do not for epsilon < epsilon.lower (bracket of the optimal epsilon)"
)
#: cost caps, checked before any work: the finest grid (the accountant stops at 20000) and
#: the largest integer scale (the accountant needs about log2(1/delta) + 60 bits)
MAX_GRID = 200_000
MAX_SCALE_BITS = 1024

_TOP = {"format", "format_version", "created", "inputs", "method", "epsilon", "precision", "software", "sha256"}
_METHOD = {"kind", "description", "grid_width", "scale_bits", "tail", "tail_step", "rounding", "directions"}


def claim_text(steps: int, summary: dict[str, Any], delta: str, eps: dict[str, str]) -> str:
    """The human-readable claim, generated from the certificate's numbers."""
    text = dp_claim(steps, summary, delta, eps["upper"])
    if parse_decimal(eps["lower"], "epsilon.lower") > 0:
        text += f", and do not for any epsilon < {eps['lower']} (bracket of the optimal epsilon)"
    return text


def make_pld_certificate(event: DpEvent, steps: int, delta: object, *, width: object = None) -> dict[str, Any]:
    """Certify the PLD bracket for ``steps`` applications of ``event`` at ``delta``."""
    from ..pld.accountant import DEFAULT_WIDTH, PldAccountant

    d = query_delta(steps, delta)
    acc = PldAccountant(width=DEFAULT_WIDTH if width is None else width, exact=False).compose(event, steps)
    res = acc.get_epsilon_result(d)
    pld = res.to_json()["pld"]
    method = {
        "kind": "pld",
        "description": DESCRIPTION,
        "grid_width": pld["grid_width"],
        "scale_bits": res.scale_bits,
        "tail": rat_text(res.tail),
        "tail_step": rat_text(Fraction(acc.last_tail_step)),
        "rounding": ROUNDING,
        "directions": pld["directions"],
    }
    epsilon = res.epsilon.to_json()
    if res.lower_end:  # pairs that only dominate: the verifier re-derives no lower end (an attained pair's)
        epsilon["lower"] = "0"
    fields = {"method": method, "epsilon": epsilon, "precision": {"bits": res.epsilon.prec}}
    return seal(event, steps, d, lambda summary: claim_text(steps, summary, rat_text(d), epsilon), fields)


# ---------------------------------------------------------------------------
# independent verification
# ---------------------------------------------------------------------------


def reference_pairs(leaf: DpEvent) -> tuple[tuple[Any, tuple[Any, ...]] | None, bool, bool]:
    """The dominating pair of one leaf event as ``((kind, params) or None for a no-op,
    symmetric, tight)``: ``(kind, params)`` is the event's scheme's independent reference
    (:meth:`rigorous_rdp.scheme.Scheme.reference_pld`, written out from the theorems, not read
    from :mod:`rigorous_rdp.pld`); which directions exist and whether the pair is attained
    are the scheme's declaration of its pair.

    Raises:
        UnsupportedEventError: no certified dominating pair for this event (replace-one
            adjacency, sampling with replacement, another inner mechanism, a chosen RDP bound).
    """
    from ..registry import pld_pair, reference_pld

    ref = reference_pld(leaf)
    pair = pld_pair(leaf)
    if ref is None or pair is None:
        return None, True, True if pair is None else pair.tight
    return (ref[0], tuple(ref[1])), pair.remove.key == pair.add.key, pair.tight


def _grid(text: Any, name: str) -> int:
    """N of a grid width written ``"1/N"`` (canonical, 1 <= N <= MAX_GRID)."""
    if not isinstance(text, str) or not text.startswith("1/"):
        raise CertificateError(f"{name} must be 1/N. Found {str(text)[:80]!r}.")
    n = parse_exact(text[2:], name)
    if n.denominator != 1 or not 1 <= n <= MAX_GRID:
        raise CertificateError(f"{name} must be 1/N with N an integer in [1, {MAX_GRID}]. Found {text[:80]!r}.")
    return int(n)


def verify_pld(cert: dict[str, Any], *, dps: int | None = None) -> VerificationResult:
    """Independent check of a PLD certificate (module docstring).

    Raises:
        CertificateError: a malformed certificate (the caller turns it into a result).
        UnsupportedEventError: no certified pair for the event.
    """
    failed = envelope_failure(cert, _TOP)
    if failed is not None:
        return failed
    event, summary, steps, delta = read_inputs(cert)
    method = require(cert, "method", dict)
    check_keys(method, _METHOD, set(), "method")
    if method["description"] != DESCRIPTION or method["rounding"] != ROUNDING:
        raise CertificateError("method.description and method.rounding must state the method verify re-derives.")
    n = _grid(method["grid_width"], "method.grid_width")
    scale_bits = require(method, "scale_bits", int, "method")
    tail = parse_exact(method["tail"], "method.tail")
    tail_step = parse_exact(method["tail_step"], "method.tail_step")
    eps = require(cert, "epsilon", dict)
    eps_lo, eps_hi = interval(eps, "epsilon")
    prec = require(cert, "precision", dict)
    check_keys(prec, {"bits"}, set(), "precision")
    bits = require(prec, "bits", int, "precision")
    if not 1 <= bits <= 1 << 20:
        raise CertificateError("precision.bits must be in [1, 2**20].")

    parts: dict[tuple[Any, tuple[Any, ...]], int] = {}
    symmetric = tight = True
    for leaf, count in leaf_counts(event, steps):
        pair, sym, tgt = reference_pairs(leaf)
        symmetric, tight = symmetric and sym, tight and tgt
        if pair is not None:
            parts[pair] = parts.get(pair, 0) + count
    directions = require(method, "directions", dict, "method")
    expected = () if not parts else ("remove",) if symmetric else ("remove", "add")
    if set(directions) != set(expected):
        raise CertificateError(f"method.directions must be exactly {list(expected)} for this event.")
    if not parts:  # a no-op: the optimal epsilon is 0
        if eps_lo > 0:
            return VerificationResult(False, "the event is a no-op (optimal epsilon 0); epsilon.lower must be 0")
        check_claim(cert, claim_text(steps, summary, rat_text(delta), eps), LEGACY_CLAIM)
        return VerificationResult(True, "verified: the event is a no-op (optimal epsilon 0)", {"method": "pld"})
    if not 8 <= scale_bits <= MAX_SCALE_BITS or not 0 <= tail < 1 or not 0 <= tail_step < 1:
        raise CertificateError(f"method: scale_bits must be in [8, {MAX_SCALE_BITS}] and the tails in [0, 1).")
    claims: dict[str, tuple[Fraction, Fraction, int]] = {}
    for d in expected:
        entry = directions[d]
        check_keys(entry, {"epsilon", "grid_width"}, set(), f"method.directions.{d}")
        lo, hi = interval(entry["epsilon"], f"method.directions.{d}.epsilon")
        claims[d] = (lo, hi, _grid(entry["grid_width"], f"method.directions.{d}.grid_width"))
    if max(c[1] for c in claims.values()) != eps_hi or max(c[0] for c in claims.values()) != eps_lo:
        raise CertificateError("epsilon must be [max of the directions' lower ends, max of their upper ends].")
    if not any(c[1] == eps_hi and c[2] == n for c in claims.values()):
        raise CertificateError("method.grid_width must be the grid of the direction that gives epsilon.upper.")
    if not tight and eps_lo > 0:
        return VerificationResult(
            False,
            "epsilon.lower must be 0: the pairs of this event (fixed-size sampling, replace-one) only dominate it, "
            "so no lower bound on its epsilon follows from them",
        )

    # the masses carry one extra unit of 2^-S for the mpmath error: work with more digits than S
    # bits and the grid's amplification of differences (slopes)
    need = math.ceil(scale_bits * math.log10(2) + math.log10(max(claims[d][2] for d in expected))) + 10
    dps = max(30 if dps is None else dps, need)
    details: dict[str, Any] = {"dps": dps, "method": "pld", "stated_epsilon": eps, "grid_width": method["grid_width"]}
    res = _check_directions(event, steps, delta, claims, parts, (scale_bits, tail_step, tail), dps, details)
    if res.ok:  # the text a reader sees: checked once the numbers it quotes are confirmed
        check_claim(cert, claim_text(steps, summary, rat_text(delta), eps), LEGACY_CLAIM)
    return res


def _check_directions(
    event: DpEvent,
    steps: int,
    delta: Fraction,
    claims: dict[str, tuple[Fraction, Fraction, int]],
    parts: dict[tuple[Any, tuple[Any, ...]], int],
    budget: tuple[int, Fraction, Fraction],
    dps: int,
    details: dict[str, Any],
) -> VerificationResult:
    from ..reference.pld import composed_upper_delta

    scale_bits, tail_step, tail = budget
    with mpmath.workdps(dps):
        limit = mpmath.mpf(delta.numerator) / delta.denominator
        worst = mpmath.mpf(0)
        for d, (_, hi, n_d) in claims.items():
            listed = [(kind, params, d, count) for (kind, params), count in parts.items()]
            ref = composed_upper_delta(listed, n_d, scale_bits, tail_step, tail, hi, dps=dps)
            details[f"reference_delta_{d}"] = mpmath.nstr(ref, 20)
            worst = max(worst, ref)
            if not ref <= limit:
                return VerificationResult(
                    False,
                    f"not confirmed: recomputed upper delta {mpmath.nstr(ref, 12)} > {rat_text(delta)} "
                    f"at epsilon {_dec(hi)} (direction {d}, grid 1/{n_d})",
                    details,
                )
    rechecked = []
    for d, (lo, _, n_d) in claims.items():
        if lo > 0:
            if not _recheck_lower(event, steps, delta, n_d, lo, d):
                return VerificationResult(
                    False,
                    f"not confirmed: the lower delta at epsilon {_dec(lo)} (direction {d}) is not "
                    f"certainly above {rat_text(delta)} on grid 1/{n_d}",
                    details,
                )
            rechecked.append(d)
    details["lower_end_rechecked"] = bool(rechecked)
    eps_hi = max(c[1] for c in claims.values())
    return VerificationResult(
        True,
        f"confirmed: recomputed upper delta {mpmath.nstr(worst, 12)} <= {rat_text(delta)} at epsilon "
        f"{_dec(eps_hi)} (independent mpmath / integer path)" + ("; lower end rechecked" if rechecked else ""),
        details,
    )


def _dec(x: Fraction) -> str:
    return mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, 12)


def _recheck_lower(event: DpEvent, steps: int, delta: Fraction, n: int, eps_lo: Fraction, direction: str) -> bool:
    """True if the dominated pair of ``direction`` on grid 1/n proves delta(eps_lo) > delta."""
    from ..pld.accountant import PldAccountant, delta_lower

    acc = PldAccountant(grid=n).compose(event, steps)
    _, low, _, _ = acc._composed(direction, n, float(delta) * 1e-9)
    return low is not None and delta_lower(low, n, eps_lo) > delta
