"""Privacy certificates (compatibility module): the public names of :mod:`rigorous_rdp.certificates`.

The implementation lives in the package :mod:`rigorous_rdp.certificates` (one table from
certificate kind to writer and verifier); this module keeps the historical import path
``rigorous_rdp.certificate`` working.  The format is documented in
``docs/certificates_and_audit.md``.
"""

from __future__ import annotations

from .certificates.common import (
    CERTIFICATE_FORMAT,
    CERTIFICATE_VERSION,
    CertificateError,
    VerificationResult,
    canonical_bytes,
    content_hash,
    describe_event,
    event_from_json,
    event_to_json,
    write_certificate,
)
from .certificates.kinds import verify_certificate, verify_file
from .certificates.rdp import CONVERSION_CITATIONS, make_certificate

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
