r"""Privacy certificates: a JSON record of a certified epsilon, and its independent check.

A certificate states: "``steps`` adaptive applications of the mechanism
``inputs.event`` satisfy (epsilon, delta)-DP with epsilon <= ``epsilon.upper``",
together with everything needed to re-derive the claim: the order alpha at
which the RDP bound was converted, the name of the conversion, the working
precision, package versions and a SHA-256 content hash.

:func:`make_certificate` produces it with the certified ``arb`` path
(:class:`rigorous_rdp.accountant.RdpAccountant`).  :func:`verify_certificate`
recomputes the claim on a *different* code path: the plain high-precision
mpmath reference implementations (:func:`rigorous_rdp.reference.reference_rdp`)
at a higher precision, and the conversion formula re-evaluated in mpmath.  It
accepts the certificate only if the stated upper bound is at least the
recomputed value plus a safety margin for the error of the mpmath estimate:

.. math::

    \epsilon_{\mathrm{stated}} \ge \epsilon_{\mathrm{ref}} + 10^{-\mathrm{dps}/2}\, S,

where ``dps`` is the reference precision in decimal digits and :math:`S` is the
sum of the absolute values of the terms of the conversion formula (so that the
margin is relative to the size of the numbers that are added, also when they
cancel).  mpmath's quadrature error is an *estimate*, not a bound; the margin
of half the working digits makes a false accept require a reference error a
factor :math:`10^{\mathrm{dps}/2}` larger than its nominal accuracy.

The content hash is ``sha256`` of the canonical serialisation of the
certificate without its ``sha256`` key: ``json.dumps(obj, sort_keys=True,
separators=(",", ":"), ensure_ascii=True)`` encoded as UTF-8.  It detects
accidental corruption and edits made without recomputing it; it is not a
signature (anyone can recompute it), which is why :func:`verify_certificate`
recomputes the claim itself rather than trusting the file.

The format is documented in ``docs/certificates_and_audit.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import enum
import hashlib
import json
import math
import os
import platform
import tempfile
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import mpmath

from .accountant import DEFAULT_ORDERS, RdpAccountant
from .arith import DEFAULT_DIGITS, parse_rational
from .errors import UnsupportedEventError
from .events import ComposedEvent, DpEvent, SelfComposedEvent, leaf_counts
from .registry import describe, event_tags, rdp_curve, reference_pure_dp_of_curve

__all__ = [
    "CERTIFICATE_FORMAT",
    "CERTIFICATE_VERSION",
    "CONVERSION_CITATIONS",
    "CertificateError",
    "VerificationResult",
    "canonical_bytes",
    "content_hash",
    "describe_event",
    "event_from_json",
    "event_to_json",
    "make_certificate",
    "verify_certificate",
    "verify_file",
    "write_certificate",
]

CERTIFICATE_FORMAT = "rigorous-rdp-certificate"
CERTIFICATE_VERSION = 1

CONVERSION_CITATIONS: dict[str, str] = {
    "mironov": "Mironov 2017, Prop. 3 (blog part 2, Claim 21): eps = rdp + log(1/delta)/(alpha-1)",
    "cks": "Canonne, Kamath, Steinke 2020, Prop. 12 (arXiv 2004.00010 v4): "
    "eps = rdp + log(1-1/alpha) - (log(delta) + log(alpha))/(alpha-1)",
    "balle": "Balle et al. 2020, Thm. 21 (same expression as cks)",
    "tv": "total variation (Bretagnolle-Huber): eps = 0 when delta >= sqrt(1 - exp(-rdp))",
    "pure-dp": "pure DP: eps = sum of the pure-DP epsilons (basic composition), delta = 0",
}


class CertificateError(ValueError):
    """A certificate file is malformed (bad JSON, missing or ill-typed fields)."""


# ---------------------------------------------------------------------------
# exact (de)serialisation of events
# ---------------------------------------------------------------------------


def _rat(x: Fraction) -> str:
    """Exact rational as a string: ``"11/10"`` or ``"3"``."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _parse_rat(value: Any, name: str) -> Fraction:
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise CertificateError(f"{name} must be an exact rational string. Found {value!r}.")
    try:
        return parse_rational(value, name)
    except ValueError as exc:
        raise CertificateError(str(exc)) from None


def _field_to_json(value: Any) -> Any:
    if isinstance(value, DpEvent):
        return event_to_json(value)
    if isinstance(value, Fraction):
        return _rat(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_field_to_json(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise UnsupportedEventError(f"no JSON form for a field of type {type(value).__name__}")


def event_to_json(event: DpEvent) -> dict[str, Any]:
    """Exact JSON description of an event, generically from its dataclass fields.

    ``{"type": <tag of events.EVENT_TAGS>, <field>: <value>, ...}``: rationals as
    ``"p/q"`` strings, enums by value, nested events as objects, tuples as lists.
    """
    tag = next((t for t, cls in event_tags().items() if cls is type(event)), None)
    if tag is None:
        raise UnsupportedEventError(f"no JSON form for {type(event).__name__}")
    out: dict[str, Any] = {"type": tag}
    for f in dataclasses.fields(event):  # type: ignore[arg-type]  # every tagged event is a dataclass
        out[f.name] = _field_to_json(getattr(event, f.name))
    return out


def _field_from_json(value: Any, name: str, depth: int) -> Any:
    if isinstance(value, dict):
        return _event_from_json(value, depth + 1)
    if isinstance(value, list):
        return tuple(_field_from_json(v, name, depth + 1) for v in value)
    if isinstance(value, float):
        raise CertificateError(f"{name} must be an exact rational string or an integer. Found {value!r}.")
    return value


def event_from_json(obj: Any) -> DpEvent:
    """Inverse of :func:`event_to_json`.

    Every field is passed to the event's constructor, which validates it (the
    same checks as for a user's input); floats are refused (not exact).

    Raises:
        CertificateError: on any malformed field.
    """
    return _event_from_json(obj, 0)


_MAX_EVENT_DEPTH = 64


def _event_from_json(obj: Any, depth: int) -> DpEvent:
    if depth > _MAX_EVENT_DEPTH:
        raise CertificateError(f"events are nested more than {_MAX_EVENT_DEPTH} levels deep.")
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise CertificateError(f"event must be an object with a 'type'. Found {obj!r}.")
    cls = event_tags().get(obj["type"])
    if cls is None:
        raise CertificateError(f"unknown event type {obj['type']!r}.")
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(obj) - names - {"type"}
    if unknown:
        raise CertificateError(f"unknown field(s) {sorted(unknown)} for event type {obj['type']!r}.")
    kwargs = {k: _field_from_json(v, k, depth) for k, v in obj.items() if k != "type"}
    try:
        event: DpEvent = cls(**kwargs)
        return event
    except TypeError as exc:
        raise CertificateError(f"invalid event {obj['type']!r}: {exc}") from None
    except ValueError as exc:
        raise CertificateError(f"invalid event parameter: {exc}") from None


def describe_event(event: Any) -> dict[str, Any]:
    """Flat human-readable summary (noise, its parameter, sampling, adjacency, bound),
    stated by the event's scheme (:func:`rigorous_rdp.registry.describe`).

    For composed events the summary is ``{"composed": [...]}`` of the parts.
    """
    if isinstance(event, SelfComposedEvent):
        return {"self_composed": describe_event(event.event), "count": event.count}
    if isinstance(event, ComposedEvent):
        return {"composed": [describe_event(e) for e in event.events]}
    return describe(event)


_flatten = leaf_counts


# ---------------------------------------------------------------------------
# hashing and writing
# ---------------------------------------------------------------------------


def canonical_bytes(cert: dict[str, Any]) -> bytes:
    """Canonical serialisation of ``cert`` without its ``sha256`` key."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("utf-8")


def content_hash(cert: dict[str, Any]) -> str:
    """Hex SHA-256 of :func:`canonical_bytes`."""
    return hashlib.sha256(canonical_bytes(cert)).hexdigest()


def _versions() -> dict[str, str]:
    from importlib import metadata

    from . import __version__

    out = {"rigorous-rdp": __version__, "python": platform.python_version()}
    for dist in ("python-flint", "mpmath", "numpy", "scipy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "unknown"
    return out


def make_certificate(
    event: DpEvent, steps: int, delta: object, *, accountant: RdpAccountant | None = None
) -> dict[str, Any]:
    r"""Certify epsilon for ``steps`` applications of ``event`` at ``delta`` and build the certificate.

    Args:
        event: the mechanism of one step.
        steps: number of adaptively composed steps (integer >= 1).
        delta: target delta in (0, 1), taken exactly.
        accountant: the template of the accounting options (default ``RdpAccountant()``);
            only its options are used (:meth:`RdpAccountant.fresh`).

    Returns:
        The certificate as a JSON-ready dict, including its ``sha256``.

    Raises:
        ValueError: bad input (message starts with the option name).
        UnsupportedEventError: no certified bound for ``event``.
        PrecisionExhausted: the requested width was not reached.
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1. Found {steps!r}.")
    d = parse_rational(delta, "delta")
    if not 0 < d < 1:
        raise ValueError(f"delta must be in (0, 1). Found {float(d)!r}.")
    acc = RdpAccountant.template(accountant).fresh()
    acc.compose(event, steps)
    res = acc.get_epsilon_and_order(d)
    curves = []
    for leaf, _ in _flatten(event):
        c = rdp_curve(leaf)
        entry = {"curve": c.name, "citation": c.citation}
        if entry not in curves:
            curves.append(entry)
    method: dict[str, Any] = {
        "curves": curves,
        "conversion": res.conversion,
        "conversion_citation": CONVERSION_CITATIONS.get(res.conversion, res.conversion),
        "order": None if res.order is None else _rat(res.order),
        "order_selection": {
            "grid": "dp-accounting default" if acc.orders == DEFAULT_ORDERS else [_rat(a) for a in acc.orders],
            "continuous": acc.continuous,
            "conversion_option": acc.conversion,
        },
    }
    cert: dict[str, Any] = {
        "format": CERTIFICATE_FORMAT,
        "format_version": CERTIFICATE_VERSION,
        "created": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "claim": "steps adaptive applications of inputs.event satisfy (epsilon, delta)-DP "
        "for every epsilon >= epsilon.upper",
        "inputs": {"event": event_to_json(event), "summary": describe_event(event), "steps": steps, "delta": _rat(d)},
        "method": method,
        "rdp": None if res.rdp is None else res.rdp.to_json(),
        "epsilon": res.epsilon.to_json(),
        "precision": {"bits": res.epsilon.prec, "digits": acc.digits},
        "software": _versions(),
    }
    cert["sha256"] = content_hash(cert)
    return cert


def write_certificate(cert: dict[str, Any], path: str) -> None:
    """Write ``cert`` to ``path`` atomically (temporary file in the same directory, then rename).

    On any error the temporary file is removed and ``path`` is left untouched.

    Raises:
        ValueError: ``out ...`` when the directory does not exist or is not writable.
    """
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"out directory does not exist: {directory}.")
    text = json.dumps(cert, indent=2, sort_keys=False, allow_nan=False) + "\n"
    try:
        fd, tmp = tempfile.mkstemp(prefix=".cert-", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise ValueError(f"out cannot be written: {exc.strerror} ({directory}).") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------
# independent verification (mpmath)
# ---------------------------------------------------------------------------


@dataclass
class VerificationResult:
    """Outcome of :func:`verify_certificate`.

    Attributes:
        ok: True iff the stated upper bound is confirmed.
        reason: one line; why it failed, or what was confirmed.
        details: reference values and margins (strings), for the JSON output.
    """

    ok: bool
    reason: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"verified": self.ok, "reason": self.reason, **self.details}


def _mp_decimal(text: Any, name: str) -> mpmath.mpf:
    if not isinstance(text, str):
        raise CertificateError(f"{name} must be a decimal string. Found {text!r}.")
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise CertificateError(f"{name} must be a decimal string. Found {text!r}.") from None
    if not d.is_finite():
        raise CertificateError(f"{name} must be finite. Found {text!r}.")
    return mpmath.mpf(text)


def _mp_rat(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _require(obj: Any, key: str, kind: Any) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise CertificateError(f"missing field {key!r}.")
    v = obj[key]
    if kind is not None and not isinstance(v, kind):
        raise CertificateError(f"field {key!r} has the wrong type ({type(v).__name__}).")
    return v


def verify_certificate(
    cert: Any, *, dps: int | None = None, reference: Any = None, all_boxes: bool = False
) -> VerificationResult:
    r"""Recompute the claim of a certificate independently (mpmath reference path).

    Checks, in order: the format, the content hash, the consistency of the
    summary with the event, and finally the claim itself:
    ``epsilon.upper >= eps_ref + 10**(-dps/2) * S`` (module docstring), where
    ``eps_ref`` is the conversion formula named in ``method.conversion``
    evaluated in mpmath on ``steps * reference_rdp(event, order, dps)``.
    It also checks that the stated lower ends are not above the reference by
    more than the same margin (a certificate must not claim a false lower bound).

    Args:
        cert: the parsed JSON object.
        dps: mpmath precision in decimal digits (default ``max(50, 3 * digits + 10)``).
        reference: replacement for :func:`rigorous_rdp.reference.reference_rdp`
            (tests); default is the registry.
        all_boxes: for a Conjecture 1 ``holds-boxes`` certificate, re-evaluate every box
            with mpmath (default: the extremal box and 3 seeded random boxes).

    Returns:
        :class:`VerificationResult`; never raises for a bad certificate.
    """
    if isinstance(cert, dict) and cert.get("format") == "rigorous-rdp-conjecture":
        # Conjecture 1 certificates (a different claim) have their own independent re-check
        from .research.conjecture_certificate import verify_conjecture_certificate

        sample = None if all_boxes else 4
        conj: VerificationResult = verify_conjecture_certificate(cert, dps=dps, sample=sample)  # untyped module
        return conj
    try:
        return _verify(cert, dps, reference)
    except CertificateError as exc:
        return VerificationResult(False, f"malformed certificate: {' '.join(str(exc).split())}")
    except UnsupportedEventError as exc:
        return VerificationResult(
            False, f"cannot verify: {' '.join(str(exc).split())} (no independent reference; the claim is not confirmed)"
        )
    except ArithmeticError as exc:
        return VerificationResult(
            False,
            f"cannot verify: the reference computation failed ({type(exc).__name__}: {' '.join(str(exc).split())})",
        )
    except Exception as exc:
        return VerificationResult(False, f"cannot verify: {type(exc).__name__}: {' '.join(str(exc).split())}")


def _verify(cert: Any, dps: int | None, reference: Any) -> VerificationResult:
    if not isinstance(cert, dict):
        raise CertificateError("the top level must be a JSON object.")
    if cert.get("format") != CERTIFICATE_FORMAT:
        raise CertificateError(f"format must be {CERTIFICATE_FORMAT!r}. Found {cert.get('format')!r}.")
    if cert.get("format_version") != CERTIFICATE_VERSION:
        raise CertificateError(f"unsupported format_version {cert.get('format_version')!r}.")
    stated_hash = _require(cert, "sha256", str)
    try:
        actual = content_hash(cert)
    except (TypeError, ValueError) as exc:
        raise CertificateError(f"cannot serialise: {exc}") from None
    if stated_hash != actual:
        return VerificationResult(
            False,
            "content hash mismatch: the certificate was modified or corrupted "
            f"(stated {stated_hash[:12]}..., computed {actual[:12]}...)",
        )
    inputs = _require(cert, "inputs", dict)
    method = _require(cert, "method", dict)
    event = event_from_json(_require(inputs, "event", dict))
    summary = _require(inputs, "summary", dict)
    if summary != describe_event(event):
        return VerificationResult(False, "inputs.summary does not describe inputs.event")
    steps = _require(inputs, "steps", int)
    if isinstance(steps, bool) or steps < 1:
        raise CertificateError(f"steps must be an integer >= 1. Found {steps!r}.")
    delta = _parse_rat(_require(inputs, "delta", str), "delta")
    if not 0 < delta < 1:
        raise CertificateError(f"delta must be in (0, 1). Found {inputs['delta']!r}.")
    if method.get("kind") == "pld":
        # PLD certificates (certify --method pld) have their own independent check
        from .pld.certificate_support import verify_pld

        pld: VerificationResult = verify_pld(cert, event, steps, delta, dps)  # verify_pld has no return annotation
        return pld
    conversion = _require(method, "conversion", str)
    order_text = method.get("order")
    eps = _require(cert, "epsilon", dict)
    prec = _require(cert, "precision", dict)
    digits = prec.get("digits", DEFAULT_DIGITS)
    if isinstance(digits, bool) or not isinstance(digits, (int, float)) or not 1 <= digits <= 1000:
        raise CertificateError(f"precision.digits must be a number in [1, 1000]. Found {digits!r}.")
    if dps is None:
        dps = max(50, math.ceil(3 * digits) + 10)
    if reference is None:
        from .registry import reference_rdp as reference

    leaves = _flatten(event, steps)
    with mpmath.workdps(dps + 10):
        eps_lo = _mp_decimal(_require(eps, "lower", str), "epsilon.lower")
        eps_hi = _mp_decimal(_require(eps, "upper", str), "epsilon.upper")
        if eps_lo > eps_hi:
            raise CertificateError("epsilon.lower is above epsilon.upper.")
        tol = mpmath.mpf(10) ** (-mpmath.mpf(dps) / 2)
        details: dict[str, Any] = {"dps": dps, "conversion": conversion, "stated_epsilon": eps}

        if conversion == "pure-dp":
            if order_text is not None:
                raise CertificateError("method.order must be null for the pure-dp conversion.")
            ref_eps = mpmath.mpf(0)
            exact: Fraction | None = Fraction(0)
            for ev, c in leaves:
                value, rational = reference_pure_dp_of_curve(rdp_curve(ev), dps)
                ref_eps += c * value
                exact = None if exact is None or rational is None else exact + c * rational
            # an exact rational reference needs no margin for the error of mpmath
            scale = mpmath.mpf(0) if exact is not None else abs(ref_eps)
            if exact is not None:
                ref_eps = _mp_rat(exact)
            ref_raw = ref_eps
        else:
            if conversion not in ("mironov", "cks", "balle", "tv"):
                raise CertificateError(f"unknown conversion {conversion!r}.")
            alpha = _parse_rat(order_text, "method.order")
            if alpha <= 1:
                raise CertificateError(f"method.order must be > 1. Found {order_text!r}.")
            with mpmath.workdps(dps):
                total = mpmath.mpf(0)
                for ev, c in leaves:
                    total += c * mpmath.mpf(reference(ev, alpha, dps))
            a = _mp_rat(alpha)
            ld = mpmath.log(_mp_rat(delta))
            details["order"] = order_text
            details["reference_rdp"] = mpmath.nstr(total, 20)
            if not mpmath.isfinite(total):
                return VerificationResult(False, f"the reference RDP at order {order_text} is not finite", details)
            rdp_stated = cert.get("rdp")
            if isinstance(rdp_stated, dict):
                r_lo = _mp_decimal(rdp_stated.get("lower"), "rdp.lower")
                r_hi = _mp_decimal(rdp_stated.get("upper"), "rdp.upper")
                rtol = tol * (abs(total) + 1 / mpmath.mpf(10) ** 300)
                failure = _enclosure_failure(
                    "RDP", rdp_stated, r_lo, r_hi, total, total, rtol, f" at order {order_text}"
                )
                if failure:
                    return VerificationResult(False, failure, details)
            if conversion == "mironov":
                terms = [total, -ld / (a - 1)]
            elif conversion in ("cks", "balle"):
                terms = [total, mpmath.log1p(-1 / a), -(ld + mpmath.log(a)) / (a - 1)]
            else:  # tv: epsilon 0 requires delta >= sqrt(1 - exp(-rdp))
                tv = mpmath.sqrt(-mpmath.expm1(-total))
                if not tv * (1 + tol) <= _mp_rat(delta):
                    return VerificationResult(
                        False, f"the tv conversion needs delta >= sqrt(1 - exp(-rdp)) = {mpmath.nstr(tv, 20)}", details
                    )
                terms = [mpmath.mpf(0)]
            ref_raw = mpmath.fsum(terms)
            ref_eps = max(ref_raw, mpmath.mpf(0))
            scale = mpmath.fsum(abs(t) for t in terms)
        margin = tol * scale
        details["reference_epsilon"] = mpmath.nstr(ref_eps, 20)
        details["margin"] = mpmath.nstr(margin, 5)
        # epsilon is clamped at 0 (a valid statement for any delta), so the margin applies
        # to the formula, not to the clamp: a stated 0 is confirmed when formula + margin <= 0
        failure = _enclosure_failure(
            "epsilon",
            eps,
            eps_lo,
            eps_hi,
            ref_raw,
            ref_eps,
            margin,
            f" (+ margin {mpmath.nstr(margin, 3)})",
            clamp_at_zero=True,
        )
        if failure:
            return VerificationResult(False, failure, details)
    return VerificationResult(
        True,
        f"verified: epsilon <= {eps['upper']} at delta = {inputs['delta']} "
        f"after {steps} steps (reference {mpmath.nstr(ref_eps, 20)}, "
        f"{dps} digits)",
        details,
    )


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

    The upper end must be at least ``ref_raw + margin`` (or 0 when the quantity is
    clamped at 0); the lower end must not exceed ``ref + margin``.
    """
    need = max(ref_raw + margin, mpmath.mpf(0)) if clamp_at_zero else ref_raw - margin
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


def verify_file(
    path: str, *, dps: int | None = None, reference: Any = None, all_boxes: bool = False
) -> VerificationResult:
    """Read and verify a certificate file (``all_boxes``: see :func:`verify_certificate`).

    Raises:
        ValueError: ``FILE ...`` when the file cannot be read (bad input, not a bad certificate).
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ValueError(f"FILE cannot be read: {exc.strerror} ({path}).") from None
    try:
        cert = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, CertificateError, RecursionError) as exc:
        return VerificationResult(False, f"malformed JSON: {' '.join(str(exc).split())}")
    return verify_certificate(cert, dps=dps, reference=reference, all_boxes=all_boxes)


def _reject_constant(name: str) -> Any:
    raise CertificateError(f"non-finite constant {name} is not allowed")
