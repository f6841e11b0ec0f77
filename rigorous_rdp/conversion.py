r"""Conversion of RDP guarantees to (epsilon, delta)-DP, on certified balls.

Each function takes balls for the (composed) RDP value ``rdp`` at order
``alpha`` and returns a ball containing the exact value of the conversion
formula; since the formulas are increasing in ``rdp``, an enclosure of an RDP
*upper bound* yields an enclosure of a valid epsilon (or delta) upper bound.

Conversions (``CONVERSIONS``):

* ``"mironov"`` -- Mironov 2017, Prop. 3 (blog part 2, Claim 21):
  :math:`\epsilon = \mathrm{rdp} + \log(1/\delta)/(\alpha-1)`.
* ``"cks"`` -- Canonne, Kamath, Steinke 2020, Prop. 12 (arXiv 2004.00010 v4),
  used by dp-accounting:
  :math:`\epsilon = \mathrm{rdp} + \log(1 - 1/\alpha) - (\log\delta + \log\alpha)/(\alpha-1)`.
* ``"balle"`` -- Balle et al. 2020, Thm. 21, used by Opacus.  It is the same
  expression as ``"cks"`` (the two papers found it independently); it is kept as
  a name so that users can ask for either reference.

The default ``"best"`` takes, at each order, the smallest of these (all are
valid, so their minimum is), and additionally applies the total-variation
bound :math:`\mathrm{TV} \le \sqrt{1 - e^{-\mathrm{rdp}}}` (Bretagnolle-Huber,
since :math:`\mathrm{KL} \le D_\alpha` for :math:`\alpha \ge 1`): if
:math:`\delta \ge \sqrt{1 - e^{-\mathrm{rdp}}}` then epsilon = 0 is certified.
A negative epsilon from a formula is reported as 0, which is the safe
direction ((eps, delta)-DP with eps < 0 implies (0, delta)-DP).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from flint import arb

from .events import _Choice

__all__ = [
    "CONVERSIONS",
    "Conversion",
    "delta_cks",
    "delta_from_rdp",
    "delta_mironov",
    "delta_tv",
    "epsilon_balle",
    "epsilon_cks",
    "epsilon_from_rdp",
    "epsilon_mironov",
    "epsilon_screen",
    "log_delta_screen",
]


class Conversion(_Choice):
    """The RDP-to-(epsilon, delta) conversion (the ``--conversion`` option; functions accept a
    member or its value): ``MIRONOV`` Mironov 2017, Prop. 3; ``CKS`` Canonne, Kamath, Steinke
    2020, Prop. 12; ``BALLE`` Balle et al. 2020, Thm 21 (the same expression as CKS); ``BEST``
    the smallest of them at each order, with the total-variation shortcut."""

    BEST = "best"
    MIRONOV = "mironov"
    CKS = "cks"
    BALLE = "balle"


#: the values of :class:`Conversion`
CONVERSIONS = tuple(c.value for c in Conversion)


def epsilon_mironov(rdp: arb, alpha: arb, delta: arb) -> arb:
    r"""Mironov 2017, Prop. 3 (blog part 2, Claim 21): :math:`\mathrm{rdp} + \log(1/\delta)/(\alpha-1)`."""
    return rdp - delta.log() / (alpha - 1)


def epsilon_cks(rdp: arb, alpha: arb, delta: arb) -> arb:
    r"""Canonne, Kamath, Steinke 2020, Prop. 12 (arXiv 2004.00010 v4):
    :math:`\mathrm{rdp} + \log(1-1/\alpha) - (\log\delta + \log\alpha)/(\alpha-1)`."""
    return rdp + (-1 / alpha).log1p() - (delta.log() + alpha.log()) / (alpha - 1)


def epsilon_balle(rdp: arb, alpha: arb, delta: arb) -> arb:
    """Balle et al. 2020, Thm. 21 (the same expression as :func:`epsilon_cks`)."""
    return epsilon_cks(rdp, alpha, delta)


def delta_mironov(rdp: arb, alpha: arb, epsilon: arb) -> arb:
    r"""Mironov 2017, Prop. 3 solved for delta: :math:`\exp((\alpha-1)(\mathrm{rdp}-\epsilon))`."""
    return ((alpha - 1) * (rdp - epsilon)).exp()


def delta_cks(rdp: arb, alpha: arb, epsilon: arb) -> arb:
    r"""CKS 2020 Prop. 12 solved for delta:
    :math:`\exp((\alpha-1)(\mathrm{rdp}-\epsilon+\log(1-1/\alpha)) - \log\alpha)`."""
    return ((alpha - 1) * (rdp - epsilon + (-1 / alpha).log1p()) - alpha.log()).exp()


def delta_tv(rdp: arb) -> arb:
    r"""Total-variation bound :math:`\sqrt{1 - e^{-\mathrm{rdp}}}` (Bretagnolle-Huber), valid for every epsilon >= 0."""
    return (-(-rdp).expm1()).sqrt()


_EPS: dict[str, Callable[[arb, arb, arb], arb]] = {
    "mironov": epsilon_mironov,
    "cks": epsilon_cks,
    "balle": epsilon_balle,
}
_DELTA: dict[str, Callable[[arb, arb, arb], arb]] = {"mironov": delta_mironov, "cks": delta_cks, "balle": delta_cks}


def conversion_name(conversion: Conversion | str) -> str:
    """The value of a :class:`Conversion` given as a member or by its value; ``ValueError`` else."""
    value: str = Conversion.parse(conversion).value
    return value


def epsilon_from_rdp(rdp: arb, alpha: arb, delta: arb, conversion: Conversion | str = "best") -> tuple[arb, str]:
    """Certified epsilon at one order; returns (ball, name of the conversion used).

    With ``"best"`` the conversion whose upper endpoint is smallest is chosen.
    The result is clamped below at 0.
    """
    conversion = conversion_name(conversion)
    if conversion != "best":
        return _EPS[conversion](rdp, alpha, delta).max(arb(0)), conversion
    if delta_tv(rdp) <= delta:
        return arb(0), "tv"
    best = None
    name = ""
    for key in ("cks", "mironov"):
        v = _EPS[key](rdp, alpha, delta).max(arb(0))
        if best is None or v.upper() < best.upper():
            best, name = v, key
    assert best is not None
    return best, name


def delta_from_rdp(rdp: arb, alpha: arb, epsilon: arb, conversion: Conversion | str = "best") -> tuple[arb, str]:
    """Certified delta at one order; returns (ball, name of the conversion used), clamped at 1."""
    conversion = conversion_name(conversion)
    if conversion != "best":
        return _DELTA[conversion](rdp, alpha, epsilon).min(arb(1)), conversion
    best = None
    name = ""
    for key, v in (
        ("cks", delta_cks(rdp, alpha, epsilon)),
        ("mironov", delta_mironov(rdp, alpha, epsilon)),
        ("tv", delta_tv(rdp)),
    ):
        v = v.min(arb(1))
        if best is None or v.upper() < best.upper():
            best, name = v, key
    assert best is not None
    return best, name


# ---------------------------------------------------------------------------
# float counterparts (order selection only, never reported)
# ---------------------------------------------------------------------------


def epsilon_screen(rdp: np.ndarray, alpha: np.ndarray, log_delta: float, conversion: str = "best") -> np.ndarray:
    """Float epsilon of the conversions above at orders ``alpha`` (``"best"``: the smallest of
    Mironov, CKS and the total-variation shortcut, epsilon 0 where sqrt(1 - e^-rdp) <= delta).
    ``log_delta`` is log(delta), so that delta may underflow a float."""
    a = np.asarray(alpha, dtype=float)
    with np.errstate(all="ignore"):
        cks = rdp + np.log1p(-1.0 / a) - (log_delta + np.log(a)) / (a - 1.0)
        mir = rdp - log_delta / (a - 1.0)
        tv = np.where(0.5 * np.log(-np.expm1(-np.asarray(rdp, dtype=float))) <= log_delta, 0.0, np.inf)
    if conversion == "best":
        out: np.ndarray = np.minimum(np.minimum(cks, mir), tv)
        return out
    return mir if conversion == "mironov" else cks


def log_delta_screen(rdp: np.ndarray, alpha: np.ndarray, epsilon: float, conversion: str = "best") -> np.ndarray:
    """Float log(delta) of the conversions above at orders ``alpha`` (screens only)."""
    a = np.asarray(alpha, dtype=float)
    with np.errstate(all="ignore"):
        cks = (a - 1.0) * (rdp - epsilon + np.log1p(-1.0 / a)) - np.log(a)
        mir = (a - 1.0) * (rdp - epsilon)
    return np.minimum(cks, mir) if conversion == "best" else (mir if conversion == "mironov" else cks)
