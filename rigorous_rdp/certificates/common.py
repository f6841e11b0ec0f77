r"""The certificate envelope: strict parsing, one number grammar, hashing, event JSON, writing.

Shared by every certificate kind (:mod:`rigorous_rdp.certificates`).

**Strict parsing.**  :func:`parse_json` refuses a duplicated key (the second value would
silently win in Python's ``json``), ``NaN``/``Infinity`` and files nested deeper than
:data:`MAX_DEPTH` or larger than :data:`MAX_FILE_BYTES`, and accepts a UTF-8 byte-order
mark.  Numbers inside a certificate are strings with one grammar each:

* a *decimal* (:func:`parse_decimal`): ``-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?``,
  no blanks, no underscores, no ``+``, no hexadecimal; read exactly as a
  :class:`~fractions.Fraction` (the same value for every reader);
* an *exact rational* (:func:`parse_exact`): the canonical ``"p/q"`` (reduced, q > 1)
  or an integer ``"p"``, exactly as :func:`rat_text` writes it, so that one value has one
  spelling (``"2.5"`` is refused where ``"5/2"`` is meant, never truncated).

**Content hash.**  ``sha256`` of ``json.dumps(cert_without_sha256, sort_keys=True,
separators=(",", ":"), ensure_ascii=True)`` in UTF-8.  It detects corruption and naive
edits; it is not a signature (anyone can recompute it), which is why every verifier
re-derives the claim.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import enum
import hashlib
import json
import os
import platform
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..errors import UnsupportedEventError
from ..events import ComposedEvent, DpEvent, SelfComposedEvent

__all__ = [
    "CERTIFICATE_FORMAT",
    "CERTIFICATE_VERSION",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "CertificateError",
    "VerificationResult",
    "canonical_bytes",
    "content_hash",
    "describe_event",
    "dp_claim",
    "event_from_json",
    "event_to_json",
    "json_depth_exceeds",
    "parse_decimal",
    "parse_exact",
    "parse_json",
    "query_delta",
    "rat_text",
    "replace_atomically",
    "seal",
    "summary_words",
    "write_certificate",
]

CERTIFICATE_FORMAT = "rigorous-rdp-certificate"
CERTIFICATE_VERSION = 1

#: largest certificate file read (an RDP or PLD certificate is a few kilobytes; a
#: holds-boxes certificate of n = 4 rows is about 1.5 MB)
MAX_FILE_BYTES = 16 << 20
#: deepest nesting of JSON arrays/objects accepted (an RDP certificate has depth 4)
MAX_DEPTH = 64
#: longest number string accepted in a certificate (certify takes exact inputs of up to 4,000
#: digits, e.g. q = 1e-4000 stored as "1/1000...0")
MAX_NUMBER_CHARS = 8_100
#: largest decimal exponent accepted (delta = 1e-400 is legitimate; 1e-99999999 is a cost attack)
MAX_EXPONENT = 100_000


class CertificateError(ValueError):
    """A certificate is malformed (bad JSON, missing, extra or ill-typed fields)."""


@dataclass
class VerificationResult:
    """Outcome of a verification.

    Attributes:
        ok: True iff every claim of the certificate is confirmed.
        reason: one line; why it failed, or what was confirmed.
        details: reference values and margins (strings), for the JSON output.
    """

    ok: bool
    reason: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"verified": self.ok, "reason": self.reason, **self.details}


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line."""
    return " ".join(str(exc).split())


# ---------------------------------------------------------------------------
# strict JSON and numbers
# ---------------------------------------------------------------------------


def json_depth_exceeds(raw: bytes, limit: int = MAX_DEPTH) -> bool:
    """True if the JSON text nests arrays/objects deeper than ``limit`` (strings skipped).

    Checked before parsing: Python's ``json`` module recurses once per level and
    fails with RecursionError on 100,000 nested ``[``.
    """
    depth = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == 0x5C:  # backslash
                escaped = True
            elif ch == 0x22:  # quote
                in_string = False
        elif ch == 0x22:
            in_string = True
        elif ch in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif ch in (0x5D, 0x7D):
            depth -= 1
    return False


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise CertificateError(f"duplicated key {key[:80]!r}")
        out[key] = value
    return out


def _reject_constant(name: str) -> Any:
    raise CertificateError(f"non-finite constant {name} is not allowed")


def parse_json(raw: bytes) -> Any:
    """Parse a certificate file's bytes strictly (module docstring).

    Raises:
        CertificateError: with a one-line reason.
    """
    if len(raw) > MAX_FILE_BYTES:
        raise CertificateError(f"larger than {MAX_FILE_BYTES} bytes")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if json_depth_exceeds(raw):
        raise CertificateError(f"nested deeper than {MAX_DEPTH} levels")
    try:
        text = raw.decode("utf-8")
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise CertificateError(one_line(exc)) from None


_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_EXACT = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?")


def _check_length(text: Any, name: str, what: str) -> str:
    if not isinstance(text, str):
        raise CertificateError(f"{name} must be {what} string. Found {type(text).__name__}.")
    if len(text) > MAX_NUMBER_CHARS:
        raise CertificateError(f"{name} is longer than {MAX_NUMBER_CHARS} characters.")
    return text


def parse_decimal(text: Any, name: str) -> Fraction:
    """Exact value of a decimal string of the one grammar (module docstring).

    Raises:
        CertificateError: not a string of the grammar, too long, or exponent beyond
            :data:`MAX_EXPONENT`.
    """
    text = _check_length(text, name, "a decimal")
    m = _DECIMAL.fullmatch(text)
    if m is None:
        raise CertificateError(f"{name} must be a decimal number like 1.25e-3. Found {text[:80]!r}.")
    exponent = int(m.group(3)[1:]) if m.group(3) else 0
    if abs(exponent) > MAX_EXPONENT:
        raise CertificateError(f"{name}: exponent beyond +-{MAX_EXPONENT}. Found {text[:80]!r}.")
    mantissa = text[: m.start(3)] if m.group(3) else text
    try:
        value = Fraction(mantissa)  # the grammar is a subset of Fraction's: read exactly
    except ValueError as exc:  # more digits than Python converts (sys.get_int_max_str_digits)
        raise CertificateError(f"{name}: {one_line(exc)}") from None
    return value * Fraction(10) ** exponent


def rat_text(x: Fraction) -> str:
    """Canonical exact rational: ``"11/10"`` or ``"3"``."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def parse_exact(text: Any, name: str) -> Fraction:
    """Exact value of a canonical ``"p/q"`` or integer string (as :func:`rat_text` writes it).

    Raises:
        CertificateError: any other spelling (a decimal point, blanks, ``+``, a
            non-reduced fraction, ``q = 1``), or too long.
    """
    text = _check_length(text, name, "an exact rational")
    if _EXACT.fullmatch(text) is None:
        raise CertificateError(f"{name} must be an exact rational 'p/q' or an integer. Found {text[:80]!r}.")
    try:
        value = Fraction(text)
        canonical = rat_text(value)
    except ValueError as exc:  # more digits than Python converts (sys.get_int_max_str_digits)
        raise CertificateError(f"{name}: {one_line(exc)}") from None
    if canonical != text:
        raise CertificateError(f"{name} must be written in lowest terms ({canonical[:80]}). Found {text[:80]!r}.")
    return value


def require(obj: Any, key: str, kind: Any, where: str = "") -> Any:
    """``obj[key]`` if present and of type ``kind`` (``bool`` is never an ``int`` here)."""
    name = f"{where}.{key}" if where else key
    if not isinstance(obj, dict) or key not in obj:
        raise CertificateError(f"missing field {name!r}.")
    v = obj[key]
    if kind is not None and (not isinstance(v, kind) or (isinstance(v, bool) and kind is not bool)):
        raise CertificateError(f"field {name!r} has the wrong type ({type(v).__name__}).")
    return v


def check_keys(obj: Any, required: set[str], optional: set[str], where: str) -> None:
    """Refuse missing and unknown keys: a field the verifier does not read could carry a meaning."""
    if not isinstance(obj, dict):
        raise CertificateError(f"{where} must be an object.")
    missing = required - set(obj)
    if missing:
        raise CertificateError(f"missing field(s) {sorted(missing)} in {where}.")
    unknown = set(obj) - required - optional
    if unknown:
        raise CertificateError(f"unknown field(s) {sorted(k[:40] for k in unknown)} in {where}.")


def interval(obj: Any, name: str) -> tuple[Fraction, Fraction]:
    """``{lower, upper}`` decimals with ``lower <= upper``."""
    check_keys(obj, {"lower", "upper"}, set(), name)
    lo = parse_decimal(obj["lower"], f"{name}.lower")
    hi = parse_decimal(obj["upper"], f"{name}.upper")
    if lo > hi:
        raise CertificateError(f"{name}.lower is above {name}.upper.")
    return lo, hi


def check_info(cert: dict[str, Any]) -> None:
    """``created`` and ``software`` carry no claim; they must still be what the writer writes."""
    created = require(cert, "created", str)
    if len(created) > 64:
        raise CertificateError("created must be a timestamp.")
    software = require(cert, "software", dict)
    if len(software) > 16 or not all(isinstance(v, str) and len(v) <= 64 for v in software.values()):
        raise CertificateError("software must map package names to version strings.")


# ---------------------------------------------------------------------------
# hashing
# ---------------------------------------------------------------------------


def canonical_bytes(cert: dict[str, Any]) -> bytes:
    """Canonical serialisation of ``cert`` without its ``sha256`` key."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("utf-8")


def content_hash(cert: dict[str, Any]) -> str:
    """Hex SHA-256 of :func:`canonical_bytes`."""
    return hashlib.sha256(canonical_bytes(cert)).hexdigest()


def hash_failure(cert: dict[str, Any]) -> VerificationResult | None:
    """A failed result if the stated ``sha256`` does not match the content, else None."""
    stated = require(cert, "sha256", str)
    try:
        actual = content_hash(cert)
    except (TypeError, ValueError) as exc:
        raise CertificateError(f"cannot serialise: {exc}") from None
    if stated != actual:
        return VerificationResult(
            False,
            "content hash mismatch: the certificate was modified or corrupted "
            f"(stated {stated[:12]}..., computed {actual[:12]}...)",
        )
    return None


def envelope_failure(cert: dict[str, Any], top: set[str]) -> VerificationResult | None:
    """The checks every verifier starts with: the top-level keys ``top`` (``claim`` optional),
    the content hash (a failed result if it does not match, else None), then ``created`` and
    ``software`` (:func:`check_info`)."""
    check_keys(cert, top, {"claim"}, "the certificate")
    failed = hash_failure(cert)
    if failed is None:
        check_info(cert)
    return failed


def versions() -> dict[str, str]:
    """Versions of the packages a certificate was made with (information)."""
    from importlib import metadata

    from .. import __version__

    out = {"rigorous-rdp": __version__, "python": platform.python_version()}
    for dist in ("python-flint", "mpmath", "numpy", "scipy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "unknown"
    return out


def query_delta(steps: object, delta: object) -> Fraction:
    """The target of a certified query: ``steps`` must be an integer >= 1; ``delta``, returned
    exactly, must be in (0, 1)."""
    from ..arith import parse_rational

    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1. Found {steps!r}.")
    d = parse_rational(delta, "delta")
    if not 0 < d < 1:
        raise ValueError(f"delta must be in (0, 1). Found {float(d)!r}.")
    return d


def dp_claim(steps: int, summary: dict[str, Any], delta: str, eps_upper: str) -> str:
    """The claim of an epsilon certificate (RDP or PLD), generated from its numbers."""
    return (
        f"{steps} adaptive applications of one step [{summary_words(summary)}] satisfy "
        f"(epsilon, delta)-DP with delta = {delta} for every epsilon >= {eps_upper}"
    )


def seal(
    event: DpEvent, steps: int, delta: Fraction, claim: Callable[[dict[str, Any]], str], fields: dict[str, Any]
) -> dict[str, Any]:
    """The certificate of a query: the envelope (format, version, time, the ``claim`` text made from
    the event's summary, the inputs), the kind's ``fields`` (method, results, precision), the
    software versions and the content hash."""
    summary = describe_event(event)
    cert: dict[str, Any] = {
        "format": CERTIFICATE_FORMAT,
        "format_version": CERTIFICATE_VERSION,
        "created": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "claim": claim(summary),
        "inputs": {"event": event_to_json(event), "summary": summary, "steps": steps, "delta": rat_text(delta)},
        **fields,
        "software": versions(),
    }
    cert["sha256"] = content_hash(cert)
    return cert


# ---------------------------------------------------------------------------
# exact (de)serialisation of events
# ---------------------------------------------------------------------------

_MAX_EVENT_DEPTH = 32


def _event_tags() -> dict[str, type]:
    from ..registry import event_tags

    return event_tags()


def _field_to_json(value: Any) -> Any:
    if isinstance(value, DpEvent):
        return event_to_json(value)
    if isinstance(value, Fraction):
        return rat_text(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_field_to_json(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise UnsupportedEventError(f"no JSON form for a field of type {type(value).__name__}")


def event_to_json(event: DpEvent) -> dict[str, Any]:
    """Exact JSON description of an event, generically from its dataclass fields.

    ``{"type": <tag of registry.event_tags()>, <field>: <value>, ...}``: rationals as
    ``"p/q"`` strings, enums by value, nested events as objects, tuples as lists.
    """
    tag = next((t for t, cls in _event_tags().items() if cls is type(event)), None)
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
    if isinstance(value, str) and value[:1].isdigit():
        # an exact rational, read here (the constructors' own parser caps a user's text at
        # 1,000 characters; certify stores exact inputs of up to 4,000 digits as "p/q")
        return parse_exact(value, name)
    return value


def event_from_json(obj: Any) -> DpEvent:
    """Inverse of :func:`event_to_json`.

    Every field is passed to the event's constructor, which validates it (the
    same checks as for a user's input); floats are refused (not exact).

    Raises:
        CertificateError: on any malformed field.
    """
    return _event_from_json(obj, 0)


def _event_from_json(obj: Any, depth: int) -> DpEvent:
    if depth > _MAX_EVENT_DEPTH:
        raise CertificateError(f"events are nested more than {_MAX_EVENT_DEPTH} levels deep.")
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise CertificateError(f"event must be an object with a 'type'. Found {str(obj)[:80]!r}.")
    cls = _event_tags().get(obj["type"])
    if cls is None:
        raise CertificateError(f"unknown event type {obj['type'][:80]!r}.")
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(obj) - names - {"type"}
    if unknown:
        raise CertificateError(f"unknown field(s) {sorted(k[:40] for k in unknown)} for event type {obj['type']!r}.")
    kwargs = {k: _field_from_json(v, k, depth) for k, v in obj.items() if k != "type"}
    try:
        event: DpEvent = cls(**kwargs)
        return event
    except TypeError as exc:
        raise CertificateError(f"invalid event {obj['type']!r}: {exc}") from None
    except ValueError as exc:
        raise CertificateError(f"invalid event parameter: {exc}") from None


def event_from_json_strict(obj: Any) -> DpEvent:
    """:func:`event_from_json`, refusing any spelling other than the one :func:`event_to_json`
    writes (omitted defaults, ``"1.1"`` for ``"11/10"``, ``2`` for ``"2"``): every field
    is stated explicitly and one event has one description."""
    event = event_from_json(obj)
    if event_to_json(event) != obj:
        raise CertificateError("inputs.event is not in canonical form (every field, exact 'p/q' rationals).")
    return event


def describe_event(event: Any) -> dict[str, Any]:
    """Flat human-readable summary (noise, its parameter, sampling, adjacency, bound),
    stated by the event's scheme (:func:`rigorous_rdp.registry.describe`).

    For composed events the summary is ``{"composed": [...]}`` of the parts.
    """
    from ..registry import describe

    if isinstance(event, SelfComposedEvent):
        return {"self_composed": describe_event(event.event), "count": event.count}
    if isinstance(event, ComposedEvent):
        return {"composed": [describe_event(e) for e in event.events]}
    return describe(event)


def summary_words(summary: dict[str, Any]) -> str:
    """The summary of :func:`describe_event` in words (for the generated ``claim``)."""
    if "self_composed" in summary:
        return f"{summary['count']} x ({summary_words(summary['self_composed'])})"
    if "composed" in summary:
        return "the composition of " + ", ".join(f"({summary_words(s)})" for s in summary["composed"])
    return ", ".join(f"{k} {v}" for k, v in summary.items() if v is not None)


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------


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
    replace_atomically(fd, tmp, path, text)


def replace_atomically(fd: int, tmp: str, path: str, text: str) -> None:
    """Write ``text`` to the open temporary file ``fd`` (named ``tmp``, in the directory of
    ``path``), sync it, then rename it onto ``path``; on any error ``tmp`` is removed and the
    error re-raised, leaving ``path`` as it was."""
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
