"""The one table from certificate kind to writer and verifier, and the dispatching verifier.

A certificate names its kind by its ``format`` and a tag: ``method.kind`` for the
``rigorous-rdp-certificate`` format (absent: ``rdp``; ``"pld"``), ``kind`` for the
``rigorous-rdp-conjecture`` format.  :func:`verify_certificate` looks the kind up in
:data:`KINDS` and calls its verifier; an unknown format, version or tag is refused.
The Conjecture 1 writers and verifiers live in ``research/`` and are imported only
when called.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UnsupportedEventError
from .common import (
    CERTIFICATE_FORMAT,
    CERTIFICATE_VERSION,
    MAX_FILE_BYTES,
    CertificateError,
    VerificationResult,
    one_line,
    parse_json,
)

__all__ = ["KINDS", "CertificateKind", "kind_of", "verify_certificate", "verify_file"]

CONJECTURE_FORMAT = "rigorous-rdp-conjecture"


@dataclass(frozen=True)
class VerifyOptions:
    """Options of a verification (each kind reads the ones that apply to it).

    Attributes:
        dps: mpmath precision in decimal digits (None: the kind's default).
        reference: replacement of the RDP reference function (tests).
        all_boxes: Conjecture 1 proofs: re-check every box.
        jobs: Conjecture 1 proofs: worker processes that re-prove the boxes (1: in process).
    """

    dps: int | None = None
    reference: Any = None
    all_boxes: bool = False
    jobs: int = 1


@dataclass(frozen=True)
class CertificateKind:
    """One row of the table.

    Attributes:
        name: the kind's name.
        format: the ``format`` field of its certificates.
        tag: ``method.kind`` (RDP format) or ``kind`` (conjecture format); None: absent.
        module: the module of its writer and verifier (imported when first called).
        writer: name of the function that writes a certificate of this kind.
        verify: ``(module, cert, options) -> VerificationResult``.
    """

    name: str
    format: str
    tag: str | None
    module: str
    writer: str
    verify: Callable[[Any, dict[str, Any], VerifyOptions], Any]

    def load(self) -> Any:
        return importlib.import_module(self.module)

    def write(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Call the writer of this kind."""
        out: dict[str, Any] = getattr(self.load(), self.writer)(*args, **kwargs)
        return out


def _rdp(mod: Any, cert: dict[str, Any], o: VerifyOptions) -> Any:
    return mod.verify_rdp(cert, dps=o.dps, reference=o.reference)


def _pld(mod: Any, cert: dict[str, Any], o: VerifyOptions) -> Any:
    return mod.verify_pld(cert, dps=o.dps)


def _conjecture(mod: Any, cert: dict[str, Any], o: VerifyOptions) -> Any:
    return mod.verify_conjecture_certificate(cert, dps=o.dps, sample=None if o.all_boxes else 4, jobs=o.jobs)


_CONJ = "rigorous_rdp.research.conjecture_certificate"

#: kind -> writer and verifier
KINDS: tuple[CertificateKind, ...] = (
    CertificateKind("rdp", CERTIFICATE_FORMAT, None, "rigorous_rdp.certificates.rdp", "make_certificate", _rdp),
    CertificateKind("pld", CERTIFICATE_FORMAT, "pld", "rigorous_rdp.certificates.pld", "make_pld_certificate", _pld),
    CertificateKind(
        "conjecture-violation", CONJECTURE_FORMAT, "violation", _CONJ, "make_violation_certificate", _conjecture
    ),
    CertificateKind("conjecture-holds", CONJECTURE_FORMAT, "holds", _CONJ, "make_holds_certificate", _conjecture),
    CertificateKind("conjecture-proof", CONJECTURE_FORMAT, "holds-boxes", _CONJ, "make_boxes_certificate", _conjecture),
    CertificateKind(
        "conjecture-region", CONJECTURE_FORMAT, "holds-region", _CONJ, "make_region_certificate", _conjecture
    ),
    CertificateKind(
        "conjecture-region-scaled",
        CONJECTURE_FORMAT,
        "holds-region-scaled",
        _CONJ,
        "make_region_scaled_certificate",
        _conjecture,
    ),
    CertificateKind(
        "conjecture-order-interval",
        CONJECTURE_FORMAT,
        "holds-boxes-order-interval",
        _CONJ,
        "make_order_interval_certificate",
        _conjecture,
    ),
    CertificateKind(
        "conjecture-order-sigma",
        CONJECTURE_FORMAT,
        "holds-boxes-order-sigma",
        _CONJ,
        "make_order_sigma_certificate",
        _conjecture,
    ),
)


def kind_of(cert: Any) -> CertificateKind:
    """The row of :data:`KINDS` that ``cert`` belongs to.

    Raises:
        CertificateError: not an object, unknown format or version, unknown tag.
    """
    if not isinstance(cert, dict):
        raise CertificateError("the top level must be a JSON object.")
    fmt = cert.get("format")
    if fmt == CERTIFICATE_FORMAT:
        if type(cert.get("format_version")) is not int or cert["format_version"] != CERTIFICATE_VERSION:
            raise CertificateError(f"unsupported format_version {str(cert.get('format_version'))[:40]!r}.")
        method = cert.get("method")
        tag = method.get("kind") if isinstance(method, dict) else None
    elif fmt == CONJECTURE_FORMAT:
        tag = cert.get("kind")
    else:
        raise CertificateError(
            f"format must be one of {[CERTIFICATE_FORMAT, CONJECTURE_FORMAT]}. Found {str(fmt)[:80]!r}."
        )
    for kind in KINDS:
        if kind.format == fmt and kind.tag == tag:
            return kind
    raise CertificateError(f"unknown certificate kind {str(tag)[:80]!r} for format {fmt!r}.")


def verify_certificate(
    cert: Any, *, dps: int | None = None, reference: Any = None, all_boxes: bool = False, jobs: int = 1
) -> VerificationResult:
    r"""Re-derive every claim of a certificate independently (the verifier of its kind).

    Args:
        cert: the parsed JSON object.
        dps: mpmath precision in decimal digits (default: the kind's).
        reference: replacement for :func:`rigorous_rdp.registry.reference_rdp` (tests).
        all_boxes: for a Conjecture 1 ``holds-boxes`` certificate, re-check every box.
        jobs: for a Conjecture 1 ``holds-boxes`` or ``holds-region(-scaled)`` certificate, the worker
            processes that re-prove its boxes (1: in this process; the verdict does not depend on it).

    Returns:
        :class:`VerificationResult`; never raises for a bad certificate.
    """
    try:
        kind = kind_of(cert)
        res: VerificationResult = kind.verify(kind.load(), cert, VerifyOptions(dps, reference, all_boxes, jobs))
        return res
    except CertificateError as exc:
        return VerificationResult(False, f"malformed certificate: {one_line(exc)}")
    except UnsupportedEventError as exc:
        return VerificationResult(
            False, f"cannot verify: {one_line(exc)} (no independent reference; the claim is not confirmed)"
        )
    except ArithmeticError as exc:
        return VerificationResult(
            False, f"cannot verify: the reference computation failed ({type(exc).__name__}: {one_line(exc)})"
        )
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as exc:
        return VerificationResult(False, f"cannot verify: {type(exc).__name__}: {one_line(exc)}")


def read_certificate(path: str) -> Any:
    """The parsed certificate at ``path`` (strict parsing, :func:`.common.parse_json`).

    Raises:
        ValueError: ``FILE ...`` when the file cannot be read (bad input, not a bad certificate).
        CertificateError: malformed JSON.
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"FILE cannot be read: {exc.strerror} ({path}).") from None
    return parse_json(raw)


def verify_file(
    path: str, *, dps: int | None = None, reference: Any = None, all_boxes: bool = False, jobs: int = 1
) -> VerificationResult:
    """Read and verify a certificate file (``all_boxes``, ``jobs``: see :func:`verify_certificate`).

    Raises:
        ValueError: ``FILE ...`` when the file cannot be read (bad input, not a bad certificate).
    """
    try:
        cert = read_certificate(path)
    except CertificateError as exc:
        return VerificationResult(False, f"malformed JSON: {one_line(exc)}")
    return verify_certificate(cert, dps=dps, reference=reference, all_boxes=all_boxes, jobs=jobs)
