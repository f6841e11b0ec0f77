r"""Many real orders of the Poisson-subsampled Gaussian at once: the trapezoidal rule on one grid.

Notation of :mod:`.poisson_gaussian`: :math:`\varphi_\sigma` the density of :math:`N(0, \sigma^2)`,
:math:`w = (2z-1)/(2\sigma^2)`, :math:`x = q(e^w - 1)`, :math:`y = 1 + x = 1 - q + q e^w`,
:math:`F_\alpha(z) = \varphi_\sigma(z)\,(y^\alpha - 1 - \alpha x) \ge 0` and

.. math:: I(\alpha) = A_\alpha - 1 = \int_{-\infty}^{\infty} F_\alpha(z)\,dz .

**The rule.**  One grid :math:`z_j = 1/2 + j\Delta` serves every order:
:math:`T_\Delta(\alpha) = \Delta\sum_j F_\alpha(z_j)`.  Trefethen and Weideman (SIAM Review 56,
2014, Thm. 5.1): if :math:`F` is analytic in the strip :math:`|\mathrm{Im}\,z| < a`, tends to 0
uniformly as :math:`|\mathrm{Re}\,z| \to \infty` there, and :math:`\int |F(t + ib)|\,dt \le M` for
:math:`|b| < a`, then :math:`|T_\Delta - \int F| \le 2M/(e^{2\pi a/\Delta} - 1)`.

* Analyticity: for :math:`|\mathrm{Im}\,w| < \pi/2`, i.e. :math:`a \le \pi\sigma^2/2`,
  :math:`\mathrm{Re}\,y = 1 - q + q e^{\mathrm{Re}\,w}\cos(\mathrm{Im}\,w) > 0`, so :math:`y^\alpha`
  (principal branch) is analytic; :math:`\varphi_\sigma` is entire.  We take
  :math:`a = \min(0.49\pi\sigma^2, 3\sigma)`.
* The bound M: :math:`|\varphi_\sigma(t+ib)| = \varphi_\sigma(t) e^{b^2/(2\sigma^2)}`,
  :math:`|y(t+ib)| \le 1 - q + q e^{\mathrm{Re}\,w} = y(t)` and :math:`|x(t+ib)| \le q(e^{w(t)} + 1)`,
  so with :math:`g = e^{a^2/(2\sigma^2)}` and :math:`\mathbb{E}[e^w] = 1`,
  :math:`M \le g\,(A_\alpha + 1 + 2\alpha q)`.  The same theorem applied to
  :math:`\varphi_\sigma y^\alpha` alone (its M is :math:`g A_\alpha`) gives
  :math:`A_\alpha \le T^y/(1 - g\kappa)` with :math:`\kappa = 2/(e^{2\pi a/\Delta} - 1)` and
  :math:`T^y = \Delta\sum_j \varphi_\sigma(z_j) y_j^\alpha`: the bound on :math:`A_\alpha` comes from
  the computed sum itself.  Hence :math:`|T_\Delta - I| \le E = \kappa g (A^{up} + 1 + 2\alpha q)`.

**Omitted nodes.**  Only the nodes of a window :math:`[z_{j_l}, z_{j_u}]` are summed; since
:math:`F \ge 0` the others add an amount in :math:`[0, \text{bound}]`, from this lemma: for a unimodal
:math:`h \ge 0`, :math:`\Delta\sum_{z_j \le c} h(z_j) \le \int_{-\infty}^{c} h + \Delta\sup_{z \le c} h`
(each node but the last one left of the mode is dominated by the integral over the grid cell on its
side away from the mode), and symmetrically on the right.

* Nodes :math:`z \le 1/2` (:math:`x \in (-q, 0]`): :math:`F \le (\alpha - 1) q \varphi_\sigma`
  (:func:`.poisson_gaussian.lower_tail_bound`), so with :math:`c' = \min(c, 1/2)` they add at most
  :math:`(\alpha-1) q\,(\Phi(c'/\sigma) + \Delta\varphi_\sigma(\min(c', 0)))`.
* Nodes :math:`z > 1/2` (:math:`x > 0`, so :math:`F \le \varphi_\sigma y^\alpha`), completing the square:
  :math:`\varphi_\sigma(z) y^\alpha = C_\alpha \varphi_\sigma(z - \alpha) (1 + r e^{-w})^\alpha` with
  :math:`C_\alpha = q^\alpha e^{\alpha(\alpha-1)/(2\sigma^2)}`, :math:`r = (1-q)/q`; the last factor
  decreases in z.  Right of the window (first omitted node :math:`c \ge \max(\alpha, 1/2)`):
  :math:`C_\alpha (1 + r e^{-w(c)})^\alpha (\bar\Phi((c-\alpha)/\sigma) + \Delta\varphi_\sigma(c - \alpha))`.
  Between 1/2 and a window that starts right of 1/2 (last omitted node :math:`c \le \alpha`), on each
  piece :math:`[l, h]` of :math:`[1/2, c]` cut at the crossover points :math:`z_0, z_c`:
  :math:`C_\alpha (1 + r e^{-w(l)})^\alpha (\Phi((h-\alpha)/\sigma) + \Delta\varphi_\sigma(h - \alpha))`.
* For :math:`T^y`: the nodes :math:`z \le 1/2` add at most :math:`1 + \Delta\varphi_\sigma(0)` (there
  :math:`y \le 1`), the others the bounds above.

**Sharing between orders.**  For orders :math:`\alpha_n = \alpha_0 + n\delta`, with
:math:`\ell_j = \log y_j`: :math:`\Delta\sum_j \varphi_\sigma(z_j) y_j^{\alpha_n} = \sum_j G_{a j} H_{j b}`
for :math:`n = aB + b`, :math:`G_{aj} = \Delta\varphi_\sigma(z_j) e^{(\alpha_0 + aB\delta)\ell_j}` (zero
outside the window of block a) and :math:`H_{jb} = e^{b\delta\ell_j}`: one product of ball matrices
(``arb_mat``) for all orders, :math:`O(\sqrt{n})` ball operations per node.  The linear part
:math:`\Delta\sum_j \varphi_\sigma(z_j)(1 + \alpha x_j)` comes from two prefix sums.  Every ball
contains the exact value, so the result contains :math:`T_\Delta` over the window; an order whose
enclosure is not narrow enough is returned as ``None`` (the caller evaluates it otherwise).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb, arb_mat

from ..arith import to_arb, workprec
from ..floatmath import log1pexp, log_expm1, log_factorials, log_fraction, logsumexp
from .poisson_gaussian_planning import _gap_log_bound, _screen_log_i_small_ints, _tail_point

__all__ = ["arithmetic_progression", "log_a_trapezoid"]

#: a progression is used when it has at most this many times as many terms as the orders asked for
PROGRESSION_SLACK = 4
#: orders above this are left to the other paths (as for the Gauss-Legendre rule)
MAX_ORDER = 2000


def arithmetic_progression(alphas: Sequence[Fraction]) -> tuple[Fraction, Fraction, list[int]] | None:
    """``(start, step, positions)``: the shortest arithmetic progression ``start + n step`` that
    contains every order of ``alphas`` and the position n of each order, or ``None`` when there
    are fewer than two distinct orders or the progression has more than ``PROGRESSION_SLACK``
    times as many terms as there are distinct orders."""
    distinct = set(alphas)
    if len(distinct) < 2:
        return None
    den = math.lcm(*(a.denominator for a in distinct))
    nums = [a.numerator * (den // a.denominator) for a in alphas]
    n0 = min(nums)
    g = 0
    for n in nums:
        g = math.gcd(g, n - n0)
    pos = [(n - n0) // g for n in nums]
    if max(pos) + 1 > PROGRESSION_SLACK * len(distinct) + 16:
        return None
    return Fraction(n0, den), Fraction(g, den), pos


def _log_i_estimate(fa: np.ndarray, lq: float, l1q: float, sf: float) -> np.ndarray:
    r"""Float estimate of log(A_a - 1) at many real orders (planning only).

    :math:`\log A_\alpha` is convex in :math:`\alpha` (a cumulant generating function) with
    :math:`\log A_1 = 0`: between consecutive integers it lies below its chord, which is taken
    (the float binomial sums at the integers), less
    :math:`1/(8\sigma^2)` (about the largest gap between chord and curve; at most 3)."""
    lo = np.floor(fa)
    ints = np.unique(np.concatenate([lo, lo + 1])).astype(np.int64)
    ints = ints[ints >= 2]
    log_i = np.empty(len(ints))
    small = ints <= 256
    if small.any():
        log_i[small] = _screen_log_i_small_ints(ints[small], lq, l1q, sf)
    lf = log_factorials(int(ints.max()))
    for n in np.nonzero(~small)[0]:  # every term of the float binomial sum
        a = int(ints[n])
        k = np.arange(2, a + 1)
        t = lf[a] - lf[k] - lf[a - k] + k * lq + (a - k) * l1q + log_expm1(k * (k - 1.0) / (2 * sf * sf))
        log_i[n] = logsumexp(t)
    table = dict(zip(ints.tolist(), np.asarray(log1pexp(log_i)).tolist(), strict=True))
    table[1] = 0.0
    la_lo = np.array([table[int(v)] for v in lo])
    la_hi = np.array([table[int(v) + 1] for v in lo])
    log_a = la_lo + (fa - lo) * (la_hi - la_lo)
    with np.errstate(all="ignore"):
        out = np.asarray(log_expm1(log_a)) - min(1 / (8 * sf * sf), 3.0)
    return out


class _Plan:
    """Float planning: the grid step and, per block of orders, the node window (planning only: a
    poor plan costs width, never soundness)."""

    def __init__(self, fa: np.ndarray, est: np.ndarray, q: float, lq: float, sf: float, target: int):
        self.sf, self.lq, self.q = sf, lq, q
        self.lr = math.log1p(-q) - lq
        self.z0 = sf * sf * self.lr + 0.5
        self.a_strip = min(0.49 * math.pi * sf * sf, 3.0 * sf)
        log_g = self.a_strip**2 / (2 * sf * sf)
        log_m = log_g + np.logaddexp(log1pexp(est), np.log(1 + 2 * fa * q))
        need = float(np.max(math.log(2.0) + log_m - est)) + (target + 4) * math.log(2.0)
        mant, ex = math.frexp(2 * math.pi * self.a_strip / need)
        self.delta = math.ldexp(math.floor(mant * 1024), ex - 10)  # 10 significant bits: exact nodes
        self.log_tol = est - (target + 4) * math.log(2.0)

    def right_end(self, fa: np.ndarray, log_tol: np.ndarray) -> np.ndarray:
        """Per order, a point right of which the omitted nodes are negligible (at least the order)."""
        sf, lr = self.sf, self.lr
        lc = fa * self.lq + fa * (fa - 1) / (2 * sf * sf)
        tp = np.vectorize(_tail_point, otypes=[float])
        u1 = fa + sf * tp(log_tol - 3.0 - lc)
        with np.errstate(all="ignore"):
            corr = fa * np.log1p(np.exp(lr - (2 * u1 - 1) / (2 * sf * sf)))
        u = np.maximum(fa + sf * tp(log_tol - 3.0 - lc - corr), u1)
        out: np.ndarray = np.maximum(u, 0.5)
        return out

    def left_end(self, fa: float, log_tol: float) -> float:
        """For one order, a point left of which the omitted nodes are negligible."""
        sf = self.sf
        lt = log_tol - 3.0 - math.log(max(fa - 1, 2.0**-52)) - self.lq
        low = min(0.0, -sf * _tail_point(lt))
        # large orders: start right of 1/2 when the nodes left of 1/2 and the gap bound allow it
        if not (fa > self.z0 + 2 * sf and lt >= math.log1p(self.delta / (sf * math.sqrt(2 * math.pi)))):
            return low
        # bisection over the grid points in (1/2, fa): the largest with a small enough gap bound
        lo, hi = 1, max(1, math.floor((fa - 0.5) / self.delta))
        if _gap_log_bound(fa, self.lq, self.lr, sf, self.node(lo), self.z0) > log_tol - 4.0:
            return low
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _gap_log_bound(fa, self.lq, self.lr, sf, self.node(mid), self.z0) <= log_tol - 4.0:
                lo = mid
            else:
                hi = mid - 1
        return self.node(lo)

    def node(self, j: int) -> float:
        return 0.5 + j * self.delta


class _Nodes:
    r"""The node quantities (balls, working precision) on ``j = j0, ..., j1``: :math:`\Delta\varphi_\sigma(z_j)`,
    :math:`\ell_j = \log(1 + x_j)`, prefix sums of :math:`\Delta\varphi_\sigma(z_j)` and of it times
    :math:`x_j`, and (on demand) the powers :math:`e^{b\delta\ell_j}`, ``b <= nb``."""

    def __init__(self, j0: int, j1: int, delta: float, q: arb, sigma: arb, step: arb, nb: int):
        self.j0, self.j1, self.nb = j0, j1, nb
        d = arb(delta)
        s2 = sigma * sigma
        inv2s2 = 1 / (2 * s2)
        log_norm = (2 * arb.pi() * s2).log() / 2
        self.phi: list[arb] = []
        self.lg: list[arb] = []
        cphi = [arb(0)]
        cphix = [arb(0)]
        half = arb(0.5)
        for j in range(j0, j1 + 1):
            z = half + j * d  # exact: d has 10 significant bits
            ph = d * (-(z * z) * inv2s2 - log_norm).exp()
            x = q * ((j * d) / s2).expm1()
            self.phi.append(ph)
            self.lg.append(x.log1p())
            cphi.append(cphi[-1] + ph)
            cphix.append(cphix[-1] + ph * x)
        self.cphi, self.cphix = cphi, cphix
        self.step = step
        self.powers: dict[int, list[arb]] = {}

    def window_sums(self, jl: int, ju: int) -> tuple[arb, arb]:
        """Sums of :math:`\\Delta\\varphi_\\sigma(z_j)` and of it times :math:`x_j` over ``jl..ju``."""
        lo, hi = jl - self.j0, ju - self.j0 + 1
        return self.cphi[hi] - self.cphi[lo], self.cphix[hi] - self.cphix[lo]

    def power_row(self, j: int) -> list[arb]:
        r""":math:`e^{b\delta\ell_j}` for ``b = 0, ..., nb`` (the last one is the giant step)."""
        row = self.powers.get(j)
        if row is None:
            r = (self.step * self.lg[j - self.j0]).exp()
            row = [arb(1), r]
            for _ in range(self.nb - 1):
                row.append(row[-1] * r)
            self.powers[j] = row
        return row


def _groups(windows: dict[int, tuple[int, int]]) -> list[list[int]]:
    """Consecutive blocks whose windows overlap enough to share one matrix product."""
    out: list[list[int]] = []
    lo = hi = wmax = 0
    for blk in sorted(windows):
        jl, ju = windows[blk]
        if out:
            nlo, nhi, nw = min(lo, jl), max(hi, ju), max(wmax, ju - jl + 1)
            if nhi - nlo + 1 <= 1.5 * nw + 32:
                out[-1].append(blk)
                lo, hi, wmax = nlo, nhi, nw
                continue
        out.append([blk])
        lo, hi, wmax = jl, ju, ju - jl + 1
    return out


def _block_sums(
    nodes: _Nodes, windows: dict[int, tuple[int, int]], start: arb, step: arb
) -> dict[tuple[int, int], arb]:
    r""":math:`\Delta\sum_j \varphi_\sigma(z_j) y_j^{\alpha}` over the window of each block, for
    :math:`\alpha = \text{start} + (\text{block}\cdot nb + b)\,\text{step}`, ``b < nb``: one matrix
    product per group of blocks (module docstring)."""
    nb, j0 = nodes.nb, nodes.j0
    zero = arb(0)
    out = {}
    state: dict[int, tuple[int, arb]] = {}
    for group in _groups(windows):
        g0 = min(windows[b][0] for b in group)
        g1 = max(windows[b][1] for b in group)
        g_rows = []
        for blk in group:
            jl, ju = windows[blk]
            beta = start + step * (blk * nb)
            row = [zero] * (g1 - g0 + 1)
            for j in range(jl, ju + 1):
                prev = state.get(j)
                if prev is not None and prev[0] == blk - 1:
                    v = prev[1] * (nodes.powers.get(j) or nodes.power_row(j))[nb]
                else:
                    v = nodes.phi[j - j0] * (beta * nodes.lg[j - j0]).exp()
                state[j] = (blk, v)
                row[j - g0] = v
            g_rows.append(row)
        h = arb_mat([nodes.power_row(j)[:nb] for j in range(g0, g1 + 1)])
        prod = arb_mat(g_rows) * h
        for r, blk in enumerate(group):
            for b in range(nb):
                out[blk, b] = prod[r, b]
    return out


class _Tails:
    r"""Per block: the bounds of the module docstring on the omitted nodes, as functions of the order
    (working precision 32 bits: they only need a few correct bits).  With :math:`t = |c - \alpha|/\sigma
    \ge 1`, :math:`\bar\Phi(t) + (\Delta/\sigma)\varphi(t) \le \varphi(t)(1/t + \Delta/\sigma)` (Mills'
    ratio), and :math:`C_\alpha\varphi(t)\,\sqrt{2\pi} = e^{\alpha(\log q + w(c)) - c^2/(2\sigma^2)}`, so
    each piece costs one exponential per order."""

    def __init__(self, plan: _Plan, q: arb, sigma: arb, delta: arb, c_left: float, c_right: float, a_min: float):
        self.q, self.sigma, self.c_left, self.c_right = q, sigma, c_left, c_right
        s2 = sigma * sigma
        self.inv2s2 = inv2s2 = 1 / (2 * s2)
        self.lq = q.log()
        r = (1 - q) / q
        self.rt2pi = (2 * arb.pi()).sqrt()
        self.ds = delta / sigma
        self.flat = 1 + self.ds / self.rt2pi  # bound when t < 1
        cl = min(c_left, 0.5)
        tl = -arb(cl) / sigma
        low = (-(tl * tl) / 2).exp() / self.rt2pi * (1 / tl + self.ds) if tl >= 1 else self.flat
        self.q_low = q * low

        log_rt2pi = self.rt2pi.log()

        def piece(lo: float, hi: float) -> tuple[arb, arb, arb, arb]:
            w_lo = (2 * arb(lo) - 1) * inv2s2
            w_hi = (2 * arb(hi) - 1) * inv2s2
            lf = (r * (-w_lo).exp()).log1p()
            return arb(hi), self.lq + w_hi + lf, -(arb(hi) ** 2) * inv2s2 - log_rt2pi, self.lq + lf

        self.right = piece(c_right, c_right)
        self.gap = []
        if c_left > 0.5:
            zc = plan.sf * plan.sf * (plan.lr + math.log(a_min)) + 0.5
            cuts = sorted({0.5, c_left} | {p for p in (plan.z0, zc) if 0.5 < p < c_left})
            self.gap = [piece(lo, hi) for lo, hi in itertools.pairwise(cuts)]

    def _piece(self, a: arb, p: tuple[arb, arb, arb, arb]) -> arb:
        c, k1, k0, k_flat = p
        t = abs(c - a) / self.sigma
        if t >= 1:
            bound: arb = (a * k1 + k0).exp() * (1 / t + self.ds)
            return bound
        bound = (a * k_flat + a * (a - 1) * self.inv2s2).exp() * self.flat
        return bound

    def bounds(self, a: arb) -> tuple[arb, arb]:
        """Upper bounds on the omitted nodes of :math:`T_\\Delta` and of :math:`T^y` (minus its nodes
        left of 1/2) at the order ``a``."""
        upper = self._piece(a, self.right)
        for p in self.gap:
            upper += self._piece(a, p)
        return (a - 1) * self.q_low + upper, upper


def log_a_trapezoid(alphas: Sequence[Fraction], q: Fraction, sigma: Fraction, prec: int) -> list[arb | None]:
    r"""Balls for :math:`\log A_\alpha` at real orders ``alphas`` that lie on a short arithmetic
    progression (:func:`arithmetic_progression`), by the trapezoidal rule of the module docstring.

    Args:
        alphas: exact real orders > 1.
        q, sigma: exact, ``0 < q < 1``, ``sigma > 0``.
        prec: target precision in bits (relative accuracy aimed at about ``2^-(prec - 8)``).

    Returns:
        per order, a ball for :math:`\log A_\alpha`, or ``None`` where the orders are not on a
        short progression, the parameters are outside the range the rule is planned for, or the
        enclosure is wider than relative ``2^-(prec - 12)``.
    """
    out: list[arb | None] = [None] * len(alphas)
    if not (0 < q <= Fraction(1, 2)) or not (Fraction(1, 4) <= sigma <= 1000):
        return out
    prog = arithmetic_progression(alphas)
    lq = log_fraction(q)
    if prog is None or lq < -700:
        return out
    start, step, pos = prog
    sf, qf = float(sigma), float(q)
    fa = np.array([float(a) for a in alphas])
    in_range = (fa >= 1 + 1e-6) & (fa <= MAX_ORDER)
    if not in_range.any():
        return out
    est = np.full(len(fa), -np.inf)
    est[in_range] = _log_i_estimate(fa[in_range], lq, math.log1p(-qf), sf)
    usable = in_range & np.isfinite(est) & (est > -300 * math.log(2.0))
    if not usable.any():
        return out
    plan = _Plan(fa[usable], est[usable], qf, lq, sf, prec - 8)
    nb = max(1, math.isqrt(max(pos) + 1))  # baby steps per block
    blocks: dict[int, list[int]] = {}
    for i in np.nonzero(usable)[0].tolist():
        blocks.setdefault(pos[i] // nb, []).append(i)
    log_tol = np.full(len(alphas), -np.inf)
    log_tol[usable] = plan.log_tol
    right = np.zeros(len(alphas))
    right[usable] = plan.right_end(fa[usable], plan.log_tol)
    windows = {}
    for blk, idx in blocks.items():
        i_min = min(idx, key=lambda i: fa[i])
        left = plan.left_end(float(fa[i_min]), float(log_tol[i_min]))
        # the last omitted node is at most ``left`` and strictly below every order of the block
        jl = min(math.floor((left - 0.5) / plan.delta), math.floor((float(fa[i_min]) - 0.5) / plan.delta) - 1) + 1
        ju = max(math.ceil((float(right[i]) - 0.5) / plan.delta) for i in idx)
        windows[blk] = (jl, ju)
    j0 = min(w[0] for w in windows.values()) - 1
    j1 = max(w[1] for w in windows.values()) + 1
    for j in (j0, j1):  # the float grid points (tail bounds) must be the exact nodes
        if Fraction(plan.node(j)) != Fraction(1, 2) + j * Fraction(plan.delta):
            return out
    guard = int(max(0.0, float(np.max(-np.minimum(est[usable], 0.0))) / math.log(2.0))) + 24
    with workprec(prec + guard):
        qa, sa, dl = to_arb(q), to_arb(sigma), arb(plan.delta)
        if not (arb(plan.a_strip) < arb.pi() * sa * sa / 2):
            return out
        nodes = _Nodes(j0 + 1, j1 - 1, plan.delta, qa, sa, to_arb(step), nb)
        sums = _block_sums(nodes, windows, to_arb(start), to_arb(step))
        with workprec(32):
            kappa = 2 / ((2 * arb.pi() * arb(plan.a_strip) / dl).exp() - 1)
            g = (arb(plan.a_strip) ** 2 / (2 * sa * sa)).exp()
            if not (g * kappa < 1):
                return out
            # E = kappa g (A_up + 1 + 2 a q), A_up = (S + y_low + omitted) / (1 - g kappa)
            e_s = kappa * g / (1 - g * kappa)
            e_0 = e_s * (1 + dl / (2 * arb.pi() * sa * sa).sqrt()) + kappa * g
            e_a = 2 * kappa * g * qa
        quads = {}
        for blk, idx in blocks.items():
            sw, swx = nodes.window_sums(*windows[blk])
            for i in idx:
                a = to_arb(alphas[i])
                s_ab = sums[blk, pos[i] % nb]
                quads[i] = (a, s_ab - sw - a * swx, arb(s_ab.upper()))
        done = {}
        with workprec(32):
            for blk, idx in blocks.items():
                jl, ju = windows[blk]
                c_right = plan.node(ju + 1)
                tails = _Tails(plan, qa, sa, dl, plan.node(jl - 1), c_right, float(min(fa[i] for i in idx)))
                for i in idx:
                    if not (c_right > fa[i] * (1 + 2.0**-40) and c_right >= 0.5):
                        continue  # the right-tail bound needs the first omitted node right of the order
                    a, quad, s_up = quads[i]
                    omit_f, omit_y = tails.bounds(a)
                    err = e_s * (s_up + omit_y) + e_0 + e_a * a
                    done[i] = (quad, err, omit_f)
        for i, (quad, err, omit_f) in done.items():
            out[i] = _log1p_checked(quad, err, omit_f, prec)
    return out


def _log1p_checked(quad: arb, err: arb, omit: arb, prec: int) -> arb | None:
    """log(1 + I) with I in [quad - err, quad + err + omit] and I >= 0, or ``None`` below relative
    accuracy 2^-(prec - 12)."""
    lo = (quad - err).lower()
    if lo < 0:
        lo = arb(0)
    log_a = arb(lo).union(arb((quad + err + omit).upper())).log1p()
    if log_a.is_finite() and log_a.rel_accuracy_bits() >= prec - 12:
        return log_a
    return None
