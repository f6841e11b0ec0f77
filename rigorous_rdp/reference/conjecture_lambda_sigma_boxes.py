r"""Independent re-proof of the boxes of a Conjecture 1 ``holds-boxes-order-sigma`` certificate (every
real order in ``[lambda_low, lambda_high]`` and every sigma in ``[sigma_low, sigma_high]``, range model,
d = 1).  Nothing of ``research`` is imported; the enclosures are those of
:mod:`rigorous_rdp.reference.conjecture_lambda_boxes` (at sigma 1) and its own RHS integral.

**The claim re-proven per box** ``B x [a, b]`` of scaled values :math:`\varphi = \theta/\sigma` (the
reduction, written out again): with :math:`t = 1/\sigma`, :math:`G^\sigma_\lambda(\theta) =
G^1_\lambda(t\theta)` (substitute :math:`y = \sigma z`: each Gaussian atom :math:`N(s, \sigma^2)` becomes
:math:`N(s/\sigma, 1)` and the Jacobian cancels since the powers sum to 1), and
:math:`\mathrm{RHS}_\lambda(t) = \mathbb E[(1 - r + re^{tZ - t^2/2})^\lambda]` is nondecreasing in ``t``
(:math:`e^{W_v - v/2}` is a martingale in :math:`v = t^2`, :math:`x \mapsto (1 - r + rx)^\lambda` is convex
for :math:`\lambda \ge 1`: conditional Jensen).  So with :math:`t_0 = 1/\sigma_{high}` it suffices that
:math:`G^1_\lambda(\varphi) \le \mathrm{RHS}_\lambda(s_B)` on the box, :math:`s_B = \max(t_0, \max_k
\varphi_k^{lo}) \le \max(t_0, \max_k\varphi_k) \le t` for :math:`\varphi = t\theta`, :math:`\theta \in
[0, 1]^{n+1}`, :math:`t \ge t_0`.

* ``ray`` boxes: certified :math:`\partial G/\partial\varphi_{x_i} \le 0` and :math:`\partial
  G/\partial\varphi_{u'} \le 0` on :math:`E = \mathrm{hull}(B, \rho(B))` (the sides of the
  :math:`\varphi_{x_i}` and :math:`\varphi_{u'}` extended down to 0, the :math:`\varphi_u` side kept) times
  the order side (a sign holds on a box iff it holds on every part of a tiling of it, so ``E`` is
  bisected where a sign is left open).  For :math:`\varphi \in B` lowering these coordinates one after
  the other to 0 stays in ``E`` (a product of intervals), so :math:`G_\lambda(\varphi) \le
  G_\lambda(0..0, \varphi_u, 0)`; there ``q = N(0, 1)``, ``p = (1 - r)N(0, 1) + rN(\varphi_u, 1)``, the RHS
  pair at :math:`t = \varphi_u`, and :math:`\varphi_u \le \max\varphi`, so by the monotonicity in ``t``
  :math:`G_\lambda(\varphi) \le \mathrm{RHS}_\lambda(\max(t_0, \max\varphi))`.
* other boxes: the stated bounds of :math:`\sup_B G_a`, :math:`\sup_B G_b` must be at most the targets
  :math:`T_a = \mathrm{RHS}_a(s_B)`, :math:`T_b = \mathrm{RHS}_a(s_B) + d(b - a)` recomputed here
  (:func:`~.conjecture_lambda_boxes.order_targets` at :math:`\sigma = 1/s_B`: convexity in lambda of
  both sides, chord of the RHS at the same :math:`s_B`), and are re-proven by the signs / vertex /
  Taylor attempt of :mod:`.conjecture_lambda_boxes` with its extremal vertex switched off (its
  equality holds at :math:`t = 1` only), bisecting up to ``max_boxes`` boxes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from .conjecture_lambda_boxes import OrderCase, _close, _signed_gradient, order_targets

__all__ = ["RAY_PIECES", "OrderSigmaCase", "reprove_order_sigma_box", "s_of_box"]

#: pieces of hull(B, ray) the sign certificate of a ``ray`` box may use (the prover stops at 16)
RAY_PIECES = 256


@dataclass(frozen=True)
class OrderSigmaCase:
    """``n`` rows, batch ``m``, orders ``[lam_lo, lam_hi]``, sigma in ``[sig_lo, sig_hi]`` (>= 1)."""

    n: int
    m: int
    lam_lo: Fraction
    lam_hi: Fraction
    sig_lo: Fraction
    sig_hi: Fraction

    def __post_init__(self) -> None:
        if not (1 <= self.sig_lo < self.sig_hi):
            raise ValueError("inconsistent sigma range")

    @property
    def unit(self) -> OrderCase:
        return OrderCase(self.n, self.m, self.lam_lo, self.lam_hi, Fraction(1))


def s_of_box(case: OrderSigmaCase, box: Sequence[tuple[Fraction, Fraction]]) -> Fraction:
    """max(1/sigma_high, the largest lower end of the phi sides)."""
    return max([1 / case.sig_hi, *(lo for lo, _ in box[: case.n + 1])])


def _lowered(n: int) -> list[int]:
    return [*range(n - 1), n]


def _split(box: list[tuple[Fraction, Fraction]], k: int) -> tuple[list[tuple[Fraction, Fraction]], ...]:
    lo, hi = box[k]
    mid = (lo + hi) / 2
    left, right = list(box), list(box)
    left[k], right[k] = (lo, mid), (mid, hi)
    return right, left


def reprove_order_sigma_box(
    case: OrderSigmaCase,
    box: Sequence[tuple[Fraction, Fraction]],
    method: str,
    bounds: tuple[arb, arb] | None,
    *,
    max_boxes: int = 64,
) -> tuple[bool, int, str]:
    """Re-prove one box (module docstring); ``bounds`` the stated ``(sup G_a, sup G_b)`` bounds (None
    for ``ray``).  Returns ``(ok, boxes evaluated, message)``."""
    n = case.n
    dim = n + 1
    unit = case.unit
    stack = [list(box)]
    count = 0
    if method == "ray":
        sides = _lowered(n)
        stack = [list(box)]
        for k in sides:
            stack[0][k] = (Fraction(0), box[k][1])
        while stack:
            bx = stack.pop()
            count += 1
            if count > RAY_PIECES:
                return False, count, f"signs not certified within {RAY_PIECES} boxes"
            g, _, _, _ = _signed_gradient(unit, bx)
            if all(bx[k][0] == bx[k][1] or bool(arb(g[k].upper()) <= 0) for k in sides):
                continue
            k = max(range(dim), key=lambda j: bx[j][1] - bx[j][0])
            stack += _split(bx, k)
        return True, count, "re-proven"
    if bounds is None:
        return False, 0, f"method {method!r} needs stated bounds"
    a, b = box[dim]
    s = s_of_box(case, box)
    ta, tb = order_targets(OrderCase(n, case.m, case.lam_lo, case.lam_hi, 1 / s), a, b)
    ua, ub = bounds
    if not (ua <= ta and ub <= tb):
        return False, 0, f"a stated bound is above the target (RHS at t = {s}, chord lower bound)"
    while stack:
        bx = stack.pop()
        count += 1
        if count > max_boxes:
            return False, count, f"not re-proven within {max_boxes} boxes"
        ok, cut = _close(unit, bx, ua, ub, allow_ray=False, extremal=False)
        if ok:
            continue
        assert cut is not None
        if bx[cut][0] == bx[cut][1]:
            return False, count, "a box without width does not close"
        stack += _split(bx, cut)
    return True, count, "re-proven"
