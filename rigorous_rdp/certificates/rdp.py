r"""RDP certificates: a certified epsilon from an RDP bound and a conversion, and its check.

A certificate states: "``steps`` adaptive applications of the mechanism
``inputs.event`` satisfy (epsilon, delta)-DP with epsilon <= ``epsilon.upper``",
together with everything needed to re-derive the claim: the order alpha at
which the RDP bound was converted, the name of the conversion, the working
precision, package versions and a SHA-256 content hash (:mod:`.common`).

:func:`make_certificate` produces it with the certified ``arb`` path
(:class:`rigorous_rdp.accountant.RdpAccountant`).  :func:`verify_rdp` recomputes the
claim on a *different* code path: the plain high-precision mpmath reference
implementations (:func:`rigorous_rdp.registry.reference_rdp`) at a higher precision,
and the conversion formula re-evaluated in mpmath.  It accepts the certificate only
if the stated upper bound is at least the recomputed value plus a safety margin for
the error of the mpmath estimate:

.. math::

    \epsilon_{\mathrm{stated}} \ge \epsilon_{\mathrm{ref}} + 10^{-\mathrm{dps}/2}\, S,

where ``dps`` is the reference precision in decimal digits and :math:`S` is the
sum of the absolute values of the terms of the conversion formula (so that the
margin is relative to the size of the numbers that are added, also when they
cancel).  mpmath's quadrature error is an *estimate*, not a bound; the margin
of half the working digits makes a false accept require a reference error a
factor :math:`10^{\mathrm{dps}/2}` larger than its nominal accuracy.

Every other field is either an input of that re-derivation or checked to be exactly
what the writer derives from those inputs, else the certificate is refused: the keys
(no missing, no unknown field), the event in canonical form, the accountant's choice of
theorem (``method.accounting``, present only when a bound was chosen: an input of the
re-derivation, which must apply to every step and be a privacy guarantee; a lower bound,
Zhu & Wang Thm 6, is refused), the summary, the
curves and their citations, the conversion and its citation, the order-selection
record, the precision, ``lower <= upper`` for every enclosure, and the ``claim`` text
(generated from the numbers by :func:`claim_text`, or absent).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from ..accountant import DEFAULT_ORDERS, RdpAccountant
from ..conversion import CONVERSIONS
from ..events import BoundOptions, DpEvent, leaf_counts
from .common import (
    CertificateError,
    VerificationResult,
    check_keys,
    describe_event,
    dp_claim,
    envelope_failure,
    event_from_json_strict,
    interval,
    parse_exact,
    query_delta,
    rat_text,
    require,
    seal,
)

__all__ = ["CONVERSION_CITATIONS", "claim_text", "make_certificate", "verify_rdp"]

CONVERSION_CITATIONS: dict[str, str] = {
    "mironov": "Mironov 2017, Prop. 3 (blog part 2, Claim 21): eps = rdp + log(1/delta)/(alpha-1)",
    "cks": "Canonne, Kamath, Steinke 2020, Prop. 12 (arXiv 2004.00010 v4): "
    "eps = rdp + log(1-1/alpha) - (log(delta) + log(alpha))/(alpha-1)",
    "balle": "Balle et al. 2020, Thm. 21 (same expression as cks)",
    "tv": "total variation (Bretagnolle-Huber): eps = 0 when delta >= sqrt(1 - exp(-rdp))",
    "pure-dp": "pure DP: eps = sum of the pure-DP epsilons (basic composition), delta = 0",
}

#: the claim text of certificates written before the claim was generated from the numbers
#: (a correct statement about the fields it names; accepted verbatim)
LEGACY_CLAIM = (
    "steps adaptive applications of inputs.event satisfy (epsilon, delta)-DP for every epsilon >= epsilon.upper"
)

#: verify's largest reference precision (decimal digits) unless the caller asks for more: the
#: reference quadrature at 150 digits takes about 10 s, at 400 digits several minutes
MAX_AUTO_DPS = 150
#: most significant digits printed in a certificate (rounded outward, so still a valid enclosure):
#: the reference at MAX_AUTO_DPS digits confirms an upper end to about MAX_AUTO_DPS / 2 digits, so a
#: certificate made with --digits 100 or 1000 prints what verify can confirm within its budget
MAX_PRINTED_DIGITS = 60
#: largest order accepted (the accountant's uncapped search stops at 2**25)
MAX_ORDER = 1 << 25

_TOP = {"format", "format_version", "created", "inputs", "method", "rdp", "epsilon", "precision", "software", "sha256"}
_METHOD = {"curves", "conversion", "conversion_citation", "order", "order_selection"}
#: keys of ``method`` present only in some certificates: the accountant's chosen bound
_METHOD_OPTIONAL = {"accounting"}


#: the largest number of steps a certificate may state (the range of certify --steps)
MAX_STEPS = 10**18


def claim_text(steps: int, summary: dict[str, Any], delta: str, eps_upper: str) -> str:
    """The human-readable claim, generated from the certificate's numbers."""
    return dp_claim(steps, summary, delta, eps_upper)


def _curves(event: DpEvent, options: BoundOptions) -> list[dict[str, str]]:
    from ..registry import rdp_curve

    curves: list[dict[str, str]] = []
    for leaf, _ in leaf_counts(event):
        c = rdp_curve(leaf, options)
        entry = {"curve": c.name, "citation": c.citation}
        if entry not in curves:
            curves.append(entry)
    return curves


def make_certificate(
    event: DpEvent, steps: int, delta: object, *, accountant: RdpAccountant | None = None
) -> dict[str, Any]:
    r"""Certify epsilon for ``steps`` applications of ``event`` at ``delta`` and build the certificate.

    Args:
        event: the mechanism of one step.
        steps: number of adaptively composed steps (integer >= 1).
        delta: target delta in (0, 1), taken exactly.
        accountant: the template of the accounting options (default ``RdpAccountant()``);
            only its options are used (:meth:`RdpAccountant.fresh`).  A chosen bound
            (``RdpAccountant(bound=...)``) is recorded as ``method.accounting``.

    Returns:
        The certificate as a JSON-ready dict, including its ``sha256``.

    Raises:
        ValueError: bad input (message starts with the option name).
        UnsupportedEventError: no certified bound for ``event``.
        PrecisionExhausted: the requested width was not reached.
    """
    d = query_delta(steps, delta)
    acc = RdpAccountant.template(accountant).fresh()
    acc.compose(event, steps)
    res = acc.get_epsilon_and_order(d)
    method: dict[str, Any] = {
        "curves": _curves(event, acc.options),
        "conversion": res.conversion,
        "conversion_citation": CONVERSION_CITATIONS.get(res.conversion, res.conversion),
        "order": None if res.order is None else rat_text(res.order),
        "order_selection": {
            "grid": "dp-accounting default" if acc.orders == DEFAULT_ORDERS else [rat_text(a) for a in acc.orders],
            "continuous": acc.continuous,
            "conversion_option": acc.conversion,
        },
    }
    if not acc.options.is_default:
        method["accounting"] = acc.options.to_json()
    epsilon = _printed(res.epsilon)
    fields = {
        "method": method,
        "rdp": None if res.rdp is None else _printed(res.rdp),
        "epsilon": epsilon,
        "precision": {"bits": res.epsilon.prec, "digits": acc.digits},
    }
    return seal(event, steps, d, lambda summary: claim_text(steps, summary, rat_text(d), epsilon["upper"]), fields)


def _printed(value: Any) -> dict[str, str]:
    """``value.to_json()`` with at most :data:`MAX_PRINTED_DIGITS` significant digits (outward)."""
    default = 17 if value.digits is None else max(17, math.ceil(value.digits) + 2)
    out: dict[str, str] = value.to_json(min(default, MAX_PRINTED_DIGITS))
    return out


# ---------------------------------------------------------------------------
# independent verification (mpmath)
# ---------------------------------------------------------------------------


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def read_inputs(cert: dict[str, Any]) -> tuple[DpEvent, dict[str, Any], int, Fraction]:
    """``inputs`` of an RDP or PLD certificate: the event (canonical), its summary (checked),
    the number of steps and delta (exact, in (0, 1))."""
    inputs = require(cert, "inputs", dict)
    check_keys(inputs, {"event", "summary", "steps", "delta"}, set(), "inputs")
    event = event_from_json_strict(require(inputs, "event", dict, "inputs"))
    summary = require(inputs, "summary", dict, "inputs")
    if summary != describe_event(event):
        raise CertificateError("inputs.summary does not describe inputs.event.")
    steps = require(inputs, "steps", int, "inputs")
    if not 1 <= steps <= MAX_STEPS:
        # certify accepts at most 10^18 steps; a larger count would only make verify run to its budget
        raise CertificateError(f"inputs.steps must be an integer in [1, {MAX_STEPS}]. Found {str(steps)[:80]}.")
    delta = parse_exact(inputs["delta"], "inputs.delta")
    if not 0 < delta < 1:
        raise CertificateError(f"inputs.delta must be in (0, 1). Found {inputs['delta'][:80]!r}.")
    return event, summary, steps, delta


def check_claim(cert: dict[str, Any], expected: str, legacy: str) -> None:
    """The ``claim`` must be the text generated from the numbers (or the legacy generic
    text, or absent): a reader must not see a claim that verify did not check."""
    if "claim" in cert and cert["claim"] not in (expected, legacy):
        raise CertificateError(f"claim does not state what the certificate's numbers say (expected {expected!r}).")


def read_accounting(method: dict[str, Any]) -> BoundOptions:
    """The accountant's chosen bound (``method.accounting``; absent: the default bound)."""
    if "accounting" not in method:
        return BoundOptions()
    try:
        options = BoundOptions.from_json(method["accounting"])
    except ValueError as exc:
        raise CertificateError(f"method.accounting: {exc}") from None
    if options.is_default:
        raise CertificateError("method.accounting must be omitted for the default bound (one description).")
    return options


def _check_method(method: dict[str, Any], event: DpEvent) -> tuple[str, Fraction | None, BoundOptions]:
    from ..errors import UnsupportedEventError
    from ..registry import lookup

    check_keys(method, _METHOD, _METHOD_OPTIONAL, "method")
    options = read_accounting(method)
    for leaf, _ in leaf_counts(event):
        try:
            row = lookup(leaf, options)
        except (UnsupportedEventError, ValueError) as exc:
            raise CertificateError(f"method.accounting does not apply to inputs.event: {exc}") from None
        if not row.guarantee:
            raise CertificateError(f"inputs.event uses {row.label}, a lower bound on the RDP, not a privacy guarantee.")
    if method["curves"] != _curves(event, options):
        raise CertificateError("method.curves are not the curves of inputs.event.")
    conversion = require(method, "conversion", str, "method")
    if conversion not in CONVERSION_CITATIONS:
        raise CertificateError(f"unknown conversion {conversion[:80]!r}.")
    if method["conversion_citation"] != CONVERSION_CITATIONS[conversion]:
        raise CertificateError("method.conversion_citation is not the citation of method.conversion.")
    sel = require(method, "order_selection", dict, "method")
    check_keys(sel, {"grid", "continuous", "conversion_option"}, set(), "method.order_selection")
    grid = sel["grid"]
    if grid != "dp-accounting default":
        if not isinstance(grid, list) or not 1 <= len(grid) <= 100_000:
            raise CertificateError("method.order_selection.grid must be 'dp-accounting default' or a list of orders.")
        for a in grid:
            if parse_exact(a, "method.order_selection.grid") <= 1:
                raise CertificateError("method.order_selection.grid: every order must be > 1.")
    require(sel, "continuous", bool, "method.order_selection")
    if sel["conversion_option"] not in CONVERSIONS:
        raise CertificateError(f"method.order_selection.conversion_option must be one of {list(CONVERSIONS)}.")
    order = method["order"]
    if conversion == "pure-dp":
        if order is not None:
            raise CertificateError("method.order must be null for the pure-dp conversion.")
        return conversion, None, options
    alpha = parse_exact(order, "method.order")
    if not 1 < alpha <= MAX_ORDER:
        raise CertificateError(f"method.order must be in (1, 2**25]. Found {order[:80]!r}.")
    return conversion, alpha, options


def verify_rdp(cert: dict[str, Any], *, dps: int | None = None, reference: Any = None) -> VerificationResult:
    r"""Recompute the claim of an RDP certificate independently (module docstring).

    Args:
        cert: the parsed JSON object (format and version already checked).
        dps: mpmath precision in decimal digits (default ``max(50, 3 * digits + 10)``,
            at most :data:`MAX_AUTO_DPS`).
        reference: replacement for :func:`rigorous_rdp.registry.reference_rdp` (tests), called
            as ``reference(event, alpha, dps, options)``.

    Raises:
        CertificateError: a malformed certificate (the caller turns it into a result).
    """
    failed = envelope_failure(cert, _TOP)
    if failed is not None:
        return failed
    event, summary, steps, delta = read_inputs(cert)
    method = require(cert, "method", dict)
    conversion, alpha, options = _check_method(method, event)
    eps = require(cert, "epsilon", dict)
    eps_lo, eps_hi = interval(eps, "epsilon")
    prec = require(cert, "precision", dict)
    check_keys(prec, {"bits", "digits"}, set(), "precision")
    bits = require(prec, "bits", int, "precision")
    digits = require(prec, "digits", int, "precision")
    if not 1 <= bits <= 1 << 20 or not 1 <= digits <= 1000:
        raise CertificateError("precision: bits must be in [1, 2**20] and digits in [1, 1000].")
    rdp_stated = cert["rdp"]
    if (rdp_stated is None) != (conversion == "pure-dp"):
        raise CertificateError("rdp must be null exactly for the pure-dp conversion.")
    rdp_bounds = None if rdp_stated is None else interval(rdp_stated, "rdp")
    if dps is None:
        dps = min(MAX_AUTO_DPS, max(50, math.ceil(3 * digits) + 10))
    if reference is None:
        from ..registry import reference_rdp as reference
    leaves = leaf_counts(event, steps)
    with mpmath.workdps(dps + 10):
        tol = mpmath.mpf(10) ** (-mpmath.mpf(dps) / 2)
        details: dict[str, Any] = {"dps": dps, "conversion": conversion, "stated_epsilon": eps}
        if alpha is None:
            ref_raw, scale = _pure_dp_reference(leaves, dps, options)
            ref_eps = ref_raw
        else:
            total = _rdp_reference(leaves, alpha, dps, reference, options)
            details["order"] = method["order"]
            details["reference_rdp"] = mpmath.nstr(total, 20)
            if not mpmath.isfinite(total):
                return VerificationResult(False, f"the reference RDP at order {method['order']} is not finite", details)
            if rdp_bounds is not None:
                rtol = tol * abs(total)  # 0 for an exact zero (randomized response p = 1/2)
                where = f" at order {method['order']}"
                r_lo, r_hi = _mp(rdp_bounds[0]), _mp(rdp_bounds[1])
                failure = _enclosure_failure("RDP", rdp_stated, r_lo, r_hi, total, total, rtol, where)
                if failure:
                    return VerificationResult(False, failure, details)
            terms = _conversion_terms(conversion, total, _mp(alpha), _mp(delta), tol)
            if isinstance(terms, str):
                return VerificationResult(False, terms, details)
            ref_raw = mpmath.fsum(terms)
            ref_eps = max(ref_raw, mpmath.mpf(0))
            scale = mpmath.fsum(abs(t) for t in terms)
        margin = tol * scale
        details["reference_epsilon"] = mpmath.nstr(ref_eps, 20)
        details["margin"] = mpmath.nstr(margin, 5)
        # epsilon is clamped at 0 (a valid statement for any delta), so the margin applies
        # to the formula, not to the clamp: a stated 0 is confirmed when formula + margin <= 0
        where = f" (+ margin {mpmath.nstr(margin, 3)})"
        failure = _enclosure_failure(
            "epsilon", eps, _mp(eps_lo), _mp(eps_hi), ref_raw, ref_eps, margin, where, clamp_at_zero=True
        )
        if failure:
            return VerificationResult(False, failure, details)
    # the text a reader sees last: checked once the numbers it quotes are confirmed
    check_claim(cert, claim_text(steps, summary, rat_text(delta), eps["upper"]), LEGACY_CLAIM)
    return VerificationResult(
        True,
        f"verified: epsilon <= {eps['upper']} at delta = {rat_text(delta)} "
        f"after {steps} steps (reference {mpmath.nstr(ref_eps, 20)}, {dps} digits)",
        details,
    )


def _pure_dp_reference(leaves: list[tuple[DpEvent, int]], dps: int, options: BoundOptions) -> tuple[Any, Any]:
    """Sum of the reference pure-DP epsilons, and the scale of its error (0 when exact)."""
    from ..registry import rdp_curve, reference_pure_dp_of_curve

    ref = mpmath.mpf(0)
    exact: Fraction | None = Fraction(0)
    for ev, c in leaves:
        value, rational = reference_pure_dp_of_curve(rdp_curve(ev, options), dps)
        ref += c * value
        exact = None if exact is None or rational is None else exact + c * rational
    # an exact rational reference needs no margin for the error of mpmath
    if exact is not None:
        return _mp(exact), mpmath.mpf(0)
    return ref, abs(ref)


def _rdp_reference(
    leaves: list[tuple[DpEvent, int]], alpha: Fraction, dps: int, reference: Any, options: BoundOptions
) -> Any:
    with mpmath.workdps(dps):
        total = mpmath.mpf(0)
        for ev, c in leaves:
            total += c * mpmath.mpf(reference(ev, alpha, dps, options))
    return total


def _conversion_terms(conversion: str, total: Any, a: Any, delta: Any, tol: Any) -> list[Any] | str:
    """The terms of the conversion formula (their sum is the reference epsilon), or why it fails."""
    ld = mpmath.log(delta)
    if conversion == "mironov":
        return [total, -ld / (a - 1)]
    if conversion in ("cks", "balle"):
        return [total, mpmath.log1p(-1 / a), -(ld + mpmath.log(a)) / (a - 1)]
    # tv: epsilon 0 requires delta >= sqrt(1 - exp(-rdp))
    tv = mpmath.sqrt(-mpmath.expm1(-total))
    if not tv * (1 + tol) <= delta:
        return f"the tv conversion needs delta >= sqrt(1 - exp(-rdp)) = {mpmath.nstr(tv, 20)}"
    return [mpmath.mpf(0)]


def _enclosure_failure(
    what: str,
    stated: dict[str, Any],
    lo: Any,
    hi: Any,
    ref_raw: Any,
    ref: Any,
    margin: Any,
    where: str,
    clamp_at_zero: bool = False,
) -> str | None:
    """Why a stated ``[lo, hi]`` does not contain the reference (with ``margin``), or None.

    The upper end must be at least ``ref_raw + margin`` (clamped at 0 when the quantity
    is); the lower end must not exceed ``ref + margin``.
    """
    need = max(ref_raw + margin, mpmath.mpf(0)) if clamp_at_zero else ref_raw + margin
    if not hi >= need:
        return (
            f"stated {what} upper {stated['upper']} is below the independently recomputed value "
            f"{mpmath.nstr(ref, 20)}{where}"
        )
    if lo > ref + margin:
        return (
            f"stated {what} lower {stated['lower']} is above the independently recomputed value "
            f"{mpmath.nstr(ref, 20)}{where}"
        )
    return None
