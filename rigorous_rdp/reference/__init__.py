"""Independent reference implementations in plain high-precision mpmath.

These take a different code path from the certified ``arb`` code (direct
high-precision quadrature or summation, no ball arithmetic) and serve as the
second opinion in tests and in ``rigorous-rdp verify``.  They are *not*
certified: mpmath's ``quad`` error is an estimate.

:func:`reference_rdp` dispatches on the event type; reference modules register
implementations with it.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath

from ..errors import UnsupportedEventError
from ..events import DpEvent

__all__ = ["reference_rdp"]


@functools.singledispatch
def reference_rdp(event: DpEvent, alpha: Fraction, dps: int = 50) -> mpmath.mpf:
    """Reference value (mpmath, ``dps`` digits) of the RDP bound that the certified
    code computes for one application of ``event`` at order ``alpha``."""
    raise UnsupportedEventError(f"no mpmath reference for {type(event).__name__}")


# reference modules register themselves with reference_rdp on import
from . import gaussian as _gaussian  # noqa: E402,F401
from . import zhu_wang as _zhu_wang  # noqa: E402,F401  (inner-mechanism references for Poisson sampling)
from . import fixed_size_misc as _fixed_size_misc  # noqa: E402,F401  (after gaussian: it delegates to it)
from . import fswor as _fswor  # noqa: E402,F401  (after fixed_size_misc: it delegates to it)
from . import sharp as _sharp  # noqa: E402,F401  (after fswor and fixed_size_misc: the default curves)
