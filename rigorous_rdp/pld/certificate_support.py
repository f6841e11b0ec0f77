r"""PLD certificates (``certify --method pld``) and their independent check.

A PLD certificate has the same envelope as an RDP certificate
(:mod:`rigorous_rdp.certificate`) with ``method.kind = "pld"``: it records the grid
(width 1/N), the integer scale :math:`2^{-S}`, the tail budgets, the rounding rule and
the bracket ``[lower, upper]`` of the true optimal epsilon at the stated delta.

:func:`verify_pld` recomputes, on an independent path
(:func:`rigorous_rdp.reference.pld.composed_upper_delta`: profile values in mpmath,
connect-the-dots masses on *every* grid point, exact convolution of Python integers by
Kronecker substitution, delta summed in mpmath), the upper delta of both directions at
the stated ``epsilon.upper`` and accepts iff it is at most the stated delta.  mpmath's
values are estimates at ``dps`` digits; the masses are rounded up by one extra unit of
:math:`2^{-S}` to absorb that error.  The cost grows with the number of steps (tens of
seconds for 10^4 steps).

The claim also states that the composition is *not* (epsilon, delta)-DP below
``epsilon.lower``.  When ``epsilon.lower > 0`` that end is rechecked too: the dominated
(tangent-chord) pair is rebuilt at the stated grid in ball arithmetic and composed
exactly, and the lower delta at ``epsilon.lower`` must be certainly above the stated
delta in some direction.  This recheck runs the certifying construction again (it is
not an independent path), so it catches altered certificates, not errors in that
construction; the tests compare that construction against mpmath references.
"""

from __future__ import annotations

import datetime as _dt
from fractions import Fraction
from typing import Any

import mpmath

from ..events import DpEvent
from .accountant import DEFAULT_WIDTH, PldAccountant

__all__ = ["make_pld_certificate", "verify_pld"]


def make_pld_certificate(event: DpEvent, steps: int, delta: object, *, width: object = None) -> dict[str, Any]:
    """Certify the PLD bracket for ``steps`` applications of ``event`` at ``delta``."""
    from .. import certificate as C
    from ..arith import parse_rational

    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1. Found {steps!r}.")
    d = parse_rational(delta, "delta")
    if not 0 < d < 1:
        raise ValueError(f"delta must be in (0, 1). Found {float(d)!r}.")
    # the certificate records (and verify rebuilds) the grid computation, so no closed form here
    acc = PldAccountant(width=DEFAULT_WIDTH if width is None else width, exact=False).compose(event, steps)
    res = acc.get_epsilon_result(d)
    pld = res.to_json()["pld"]
    method = {
        "kind": "pld",
        "description": "connect-the-dots dominating pair and tangent-chord dominated pair on the loss grid, "
        "integer masses rounded outward, exact fmpz_poly convolution (docs/pld.md)",
        "grid_width": pld["grid_width"],
        "scale_bits": res.scale_bits,
        "tail": C._rat(res.tail),
        "tail_step": C._rat(Fraction(acc.last_tail_step)),
        "rounding": pld["rounding"],
        "directions": pld["directions"],
    }
    cert: dict[str, Any] = {
        "format": C.CERTIFICATE_FORMAT,
        "format_version": C.CERTIFICATE_VERSION,
        "created": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "claim": "steps adaptive applications of inputs.event satisfy (epsilon, delta)-DP for every "
        "epsilon >= epsilon.upper, and do not for epsilon < epsilon.lower (bracket of the optimal epsilon)",
        "inputs": {
            "event": C.event_to_json(event),
            "summary": C.describe_event(event),
            "steps": steps,
            "delta": C._rat(d),
        },
        "method": method,
        "epsilon": res.epsilon.to_json(),
        "precision": {"bits": res.epsilon.prec},
        "software": C._versions(),
    }
    cert["sha256"] = C.content_hash(cert)
    return cert


def verify_pld(cert: dict[str, Any], event: DpEvent, steps: int, delta: Fraction, dps: int | None):
    """Independent check of a PLD certificate (see module docstring)."""
    from .. import certificate as C
    from ..reference.pld import composed_upper_delta, reference_parts

    method = cert["method"]
    grid = C._require(method, "grid_width", str)
    if not grid.startswith("1/"):
        raise C.CertificateError(f"method.grid_width must be 1/N. Found {grid!r}.")
    n = int(grid[2:])
    scale_bits = C._require(method, "scale_bits", int)
    tail = C._parse_rat(C._require(method, "tail", str), "method.tail")
    tail_step = C._parse_rat(C._require(method, "tail_step", str), "method.tail_step")
    if n < 1 or not 8 <= scale_bits <= 4096 or not 0 <= tail < 1 or not 0 <= tail_step < 1:
        raise C.CertificateError("method: grid, scale or tail out of range.")
    eps = C._require(cert, "epsilon", dict)
    eps_hi = C._parse_rat(C._require(eps, "upper", str), "epsilon.upper")
    eps_lo = C._parse_rat(C._require(eps, "lower", str), "epsilon.lower")
    if eps_lo > eps_hi:
        raise C.CertificateError("epsilon.lower is above epsilon.upper.")
    dps = 30 if dps is None else dps
    leaves = C._flatten(event, steps)
    worst = mpmath.mpf(0)
    details: dict[str, Any] = {"dps": dps, "method": "pld", "stated_epsilon": eps, "grid_width": grid}
    for direction in ("remove", "add"):
        parts = reference_parts(leaves, direction)
        if not parts:
            continue
        ref = composed_upper_delta(parts, n, scale_bits, tail_step, tail, eps_hi, dps=dps)
        details[f"reference_delta_{direction}"] = mpmath.nstr(ref, 20)
        worst = max(worst, ref)
    with mpmath.workdps(dps):
        ok = worst <= mpmath.mpf(delta.numerator) / delta.denominator
    if ok and eps_lo > 0:
        lower_ok = _recheck_lower(event, steps, delta, n, eps_lo)
        details["lower_end_rechecked"] = lower_ok
        if not lower_ok:
            return C.VerificationResult(
                False,
                f"not confirmed: the lower delta at epsilon.lower = {eps['lower']} "
                f"is not certainly above {C._rat(delta)} on grid {grid}",
                details,
            )
    if ok:
        return C.VerificationResult(
            True,
            f"confirmed: recomputed upper delta {mpmath.nstr(worst, 12)} <= "
            f"{C._rat(delta)} at epsilon {eps['upper']} (independent mpmath / integer path)"
            + ("; lower end rechecked" if eps_lo > 0 else ""),
            details,
        )
    return C.VerificationResult(
        False,
        f"not confirmed: recomputed upper delta {mpmath.nstr(worst, 12)} > {C._rat(delta)} at epsilon {eps['upper']}",
        details,
    )


def _recheck_lower(event: DpEvent, steps: int, delta: Fraction, n: int, eps_lo: Fraction) -> bool:
    """True if the dominated pairs on grid 1/n prove delta(eps_lo) > delta in some direction."""
    from .accountant import delta_lower

    acc = PldAccountant(grid=n).compose(event, steps)
    for direction in acc._directions():
        _, low, _, _ = acc._composed(direction, n, float(delta) * 1e-9)
        if low is not None and delta_lower(low, n, eps_lo) > delta:
            return True
    return False
