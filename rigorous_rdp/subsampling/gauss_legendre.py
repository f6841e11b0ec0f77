r"""Certified Gauss-Legendre quadrature: enclosed nodes and weights, and a proven error term.

**Nodes and weights.**  :func:`gauss_legendre_rule` returns balls that contain the
nodes :math:`u_1 > \dots > u_m` (the zeros of the Legendre polynomial :math:`P_m`) and
the weights :math:`W_k = 2/((1-u_k^2) P_m'(u_k)^2)` of the m-point rule on
:math:`[-1, 1]`, from Arb's certified root isolation (``arb_hypgeom_legendre_p_ui_root``,
exposed as ``arb.legendre_p_root``).  Evaluating an integrand in ball arithmetic at
these node balls and summing with these weight balls gives a ball that contains the
exact Gauss sum :math:`G_m(g) = \sum_k W_k g(u_k)` (inclusion principle).

**Error term** (:func:`gauss_legendre_error_factor`).  Let g be analytic in the open
Bernstein ellipse :math:`E_\rho` (foci :math:`\pm 1`, semi-axes
:math:`(\rho \pm \rho^{-1})/2`, :math:`\rho > 1`) with :math:`|g| \le M` there.  Then,
for :math:`m \ge 2`,

.. math:: \Big|\int_{-1}^{1} g - G_m(g)\Big| \le \frac{64}{15}\,
          \frac{M \rho^{-2m}}{1 - \rho^{-2}} .

This is Trefethen, "Is Gauss quadrature better than Clenshaw-Curtis?", SIAM Review 50
(2008), Theorem 4.5 (and *Approximation Theory and Approximation Practice*, Thm. 19.3),
whose :math:`I_n` is the rule with :math:`n + 1` points, so his
:math:`\rho^{-2n}/(\rho^2 - 1)` is :math:`\rho^{-2m}/(1 - \rho^{-2})` here.  (Reading his
n as the number of points would understate the bound by a factor :math:`\rho^2`.)  The
derivation, for the record: :math:`g = \sum_k a_k T_k` with :math:`|a_k| \le 2M\rho^{-k}`
(ATAP Thm. 8.1); :math:`G_m` is exact up to degree :math:`2m-1`; odd :math:`T_k` integrate
to zero under both (symmetric nodes and weights); for even k,
:math:`|\int T_k| = 2/(k^2-1)` and :math:`|G_m(T_k)| \le \sum W = 2`; so the error is at
most :math:`\sum_{k \ge 2m,\ k\ \mathrm{even}} 2M\rho^{-k}(2 + 2/(k^2-1)) \le 4(1 + 1/(4m^2-1))
M \rho^{-2m}/(1-\rho^{-2})`, and :math:`4(1 + 1/15) = 64/15`.

On :math:`[c-h, c+h]` (substitution :math:`z = c + h u`) the bound is multiplied by h, and
M is a bound of :math:`|g|` on the ellipse with foci :math:`c \pm h` and semi-axes
:math:`h(\rho \pm \rho^{-1})/2`; :func:`ellipse_box` gives a rectangle containing it.
"""

from __future__ import annotations

import math

from flint import arb, ctx

__all__ = ["ellipse_box", "gauss_legendre_error_factor", "gauss_legendre_rule"]

_RULES: dict[tuple[int, int], tuple[list[arb], list[arb]]] = {}


def gauss_legendre_rule(m: int, prec: int | None = None) -> tuple[list[arb], list[arb]]:
    """Balls containing the nodes (decreasing) and weights of the m-point Gauss-Legendre
    rule on [-1, 1], at ``prec`` bits (default: the current precision); cached per (m, prec)."""
    if m < 2:
        raise ValueError(f"m must be an integer >= 2. Found {m!r}.")
    p = ctx.prec if prec is None else int(prec)
    key = (m, p)
    got = _RULES.get(key)
    if got is not None:
        return got
    old = ctx.prec
    ctx.prec = p
    try:
        pairs = [arb.legendre_p_root(m, k, weight=True) for k in range(m)]
    finally:
        ctx.prec = old
    rule = ([u for u, _ in pairs], [w for _, w in pairs])
    if len(_RULES) > 64:
        _RULES.clear()
    _RULES[key] = rule
    return rule


def gauss_legendre_error_factor(m: int, rho: arb, half_length: arb) -> arb:
    r"""Ball containing :math:`h \cdot \frac{64}{15} \rho^{-2m} / (1 - \rho^{-2})`: times a bound M of
    :math:`|g|` on the scaled ellipse it bounds :math:`|\int_{c-h}^{c+h} g - G_m|` (module docstring)."""
    if m < 2:
        raise ValueError(f"m must be an integer >= 2. Found {m!r}.")
    if not rho > 1:
        raise ValueError("rho must be > 1.")
    r2 = 1 / (rho * rho)
    return half_length * arb(64) / 15 * r2**m / (1 - r2)


def ellipse_box(c: float, h: float, rho: float) -> tuple[float, float, float]:
    r"""Rectangle :math:`[x_l, x_u] \times [-y, y]` (exact floats, rounded outward) containing the
    Bernstein ellipse of parameter ``rho`` with foci :math:`c \pm h`."""
    # semi-axes inflated by 2^-40 relative: far above the rounding of these few float operations
    a = h * (rho + 1 / rho) / 2 * (1 + 2.0**-40)
    b = h * (rho - 1 / rho) / 2 * (1 + 2.0**-40)
    xl = math.nextafter(c - a, -math.inf)
    xu = math.nextafter(c + a, math.inf)
    y = math.nextafter(b, math.inf)
    return xl, xu, y
