r"""rigorous_rdp: certified Renyi differential privacy accounting.

The inclusion principle.  Every certified function of this package returns a
ball (python-flint ``arb``) that contains the exact mathematical value of the
formula it implements, for all inputs contained in the input balls.  User
inputs enter as exact rationals.  Reported decimal strings are rounded outward,
so the ``upper`` end of every enclosure is a guarantee one may rely on.
Enclosures are not always tight; a requested relative width (``digits``) is met
by raising the working precision, or the call fails with
:class:`PrecisionExhausted`.

Quick start::

    >>> from rigorous_rdp import RdpAccountant, GaussianEvent, PoissonSampledEvent
    >>> acc = RdpAccountant().compose(PoissonSampledEvent("0.01", GaussianEvent("1.1")), 10000)
    >>> res = acc.get_epsilon_and_order("1e-5")
    >>> res.epsilon.to_json()["upper"][:6]
    '5.6318'
"""

from . import _startup  # noqa: F401  (first: the command line's Ctrl-C during start-up, see budget)
from .accountant import DEFAULT_ORDERS, DeltaResult, EpsilonResult, RdpAccountant, RdpResult
from .arith import Certified, certainly_le, certainly_lt, compare, refine, workprec
from .best import BestAccountant, BestDeltaResult, BestEpsilonResult, BestResult
from .calibrate import SigmaCalibration, StepsBudget, calibrate_sigma, max_steps
from .conversion import Conversion
from .curves import RdpCurve
from .errors import PrecisionExhausted, UndecidedComparison, UnsupportedEventError
from .events import (
    Adjacency,
    Bound,
    BoundOptions,
    ComposedEvent,
    DpEvent,
    FixedSizeSampledEvent,
    GaussianEvent,
    LaplaceEvent,
    PoissonSampledEvent,
    RandomizedResponseEvent,
    Sampling,
    SelfComposedEvent,
)
from .events import Wang2019SampledEvent as Wang2019SampledEvent  # deprecated alias (event + bound option)
from .events import ZhuWangSampledEvent as ZhuWangSampledEvent  # deprecated alias (event + bound option)
from .registry import ROWS, rdp_curve, sampled_event, supports

__version__ = "0.1.0"

#: names imported on first use (their modules import mpmath, which the accountant does not need)
_LAZY = {"make_certificate": "certificate", "verify_file": "certificate"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_ORDERS",
    "ROWS",
    "Adjacency",
    "BestAccountant",
    "BestDeltaResult",
    "BestEpsilonResult",
    "BestResult",
    "Bound",
    "BoundOptions",
    "Certified",
    "ComposedEvent",
    "Conversion",
    "DeltaResult",
    "DpEvent",
    "EpsilonResult",
    "FixedSizeSampledEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "PoissonSampledEvent",
    "PrecisionExhausted",
    "RandomizedResponseEvent",
    "RdpAccountant",
    "RdpCurve",
    "RdpResult",
    "Sampling",
    "SelfComposedEvent",
    "SigmaCalibration",
    "StepsBudget",
    "UndecidedComparison",
    "UnsupportedEventError",
    "__version__",
    "calibrate_sigma",
    "certainly_le",
    "certainly_lt",
    "compare",
    "make_certificate",
    "max_steps",
    "rdp_curve",
    "refine",
    "sampled_event",
    "supports",
    "verify_file",
    "workprec",
]
