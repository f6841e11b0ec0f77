"""Independent reference implementations in plain high-precision mpmath.

These take a different code path from the certified ``arb`` code (direct
high-precision quadrature or summation, no ball arithmetic) and serve as the
second opinion in tests and in ``rigorous-rdp verify``.  They are *not*
certified: mpmath's ``quad`` error is an estimate.

Which reference belongs to which certified curve is stated once, in
:func:`rigorous_rdp.registry.reference_table` (keyed by the curve class);
:func:`reference_rdp` is the event-level entry point.
"""

from __future__ import annotations

from ..registry import reference_rdp, reference_rdp_of_curve

__all__ = ["reference_rdp", "reference_rdp_of_curve"]
