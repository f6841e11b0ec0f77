"""PLD certificates (compatibility module): see :mod:`rigorous_rdp.certificates.pld`."""

from __future__ import annotations

from ..certificates.pld import make_pld_certificate, verify_pld

__all__ = ["make_pld_certificate", "verify_pld"]
