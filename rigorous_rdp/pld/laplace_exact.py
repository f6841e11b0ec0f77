r"""Exact privacy profile of T Laplace mechanisms (no sampling), without a grid.

Pair (sensitivity 1, scale b, :math:`\beta = 1/b`): :math:`P = \mathrm{Lap}(0, b)`,
:math:`Q = \mathrm{Lap}(1, b)`.  Under P one privacy loss is :math:`+\beta` with mass 1/2,
:math:`-\beta` with mass :math:`e^{-\beta}/2`, and :math:`\beta u` with density
:math:`(\beta/4) e^{-\beta/2} e^{\beta u/2}` on :math:`u \in (-1, 1)`
(``proofs/verify_laplace_composition.py``).  Its moment generating function
:math:`\varphi(z) = E_P[e^{zL}] = a(z) + b(z)` has the atoms' part and the continuous part

.. math::
    a(z) = \tfrac12 e^{\beta z} + \tfrac12 e^{-\beta(z + 1)},\qquad
    b(z) = \tfrac12 e^{-\beta/2}\,\frac{\sinh(\beta w)}{w},\quad w = z + \tfrac12,

both entire.  The profile of the T-fold composition is
:math:`\delta(\varepsilon) = E_P[(1 - e^{\varepsilon - L_T})_+]`, and since
:math:`\int (1 - e^{\varepsilon - x})_+ e^{-zx}\,dx = e^{-z\varepsilon}/(z(z + 1))` for
:math:`\operatorname{Re} z > 0`, Laplace inversion gives, for any finite measure :math:`\mu`
with bounded support and transform :math:`M_\mu` (absolutely convergent: :math:`|M_\mu|` is
bounded on the line),

.. math::
    \int (1 - e^{\varepsilon - x})_+\,\mu(dx) =
    \frac{1}{2\pi i}\int_{c - i\infty}^{c + i\infty} \frac{M_\mu(z) e^{-\varepsilon z}}{z(z+1)}\,dz
    = \frac1\pi \int_0^\infty \operatorname{Re} \frac{M_\mu(c + it) e^{-\varepsilon(c + it)}}
      {(c + it)(c + 1 + it)}\,dt,\qquad c > 0,

and for :math:`-1 < c < 0` the same plus the residue :math:`M_\mu(0)` at :math:`z = 0`.  Three
evaluations, all in ball arithmetic:

* **Few steps** (:data:`EXACT_STEPS`): the finite mixture over the number j of continuous
  steps and the number i of :math:`+\beta` atoms, whose pieces integrate in closed form against
  the spline :math:`B_j` (the j-fold convolution of :math:`\mathbf 1_{(-1,1)}`); the alternating
  sums cancel (about 2.4 j bits), which the working precision absorbs.
* **Few continuous steps** (the tilted law of their number is binomial with
  :math:`p_c = b(c)/\varphi(c)`; up to :data:`MAX_TERMS` of them): the j-fold parts for
  j <= J, each with the lattice points :math:`x_i \le -j` summed in closed form through
  binomial tails (regularized incomplete beta, then an additive recurrence) and the at most j
  others through the spline (incomplete integrals by their series where the closed form would
  cancel); the parts with j > J are at most
  :math:`\kappa(c)\varphi(c)^T e^{-c\varepsilon} P(\mathrm{Bin}(T, p_c) > J)`,
  :math:`\kappa(c) = c^c/(1 + c)^{1+c}` (:meth:`LaplaceComposition._truncated`).
* **Otherwise** the inversion integral with :math:`\mu` = the law of :math:`L_T` minus, when the
  atoms keep tilted weight, its parts with at most J continuous steps (computed as above; the
  remainder :math:`R_J = \sum_{j>J}\binom Tj a^{T-j}b^j` then decays like
  :math:`t^{-J-3}`; J from 3 to 16 by the cut-off R it needs, :func:`_subtracted_terms`).  The line :math:`\operatorname{Re} z = c` passes through
  the saddle point of :math:`\varphi(z)^T e^{-\varepsilon z}` (moved off the poles 0 and -1 and
  off :math:`w = 0`); :math:`\int_0^R` is arb's rigorous integration (``acb.integral``), with the
  integrand enclosed on a ball by the mean-value form
  :math:`E(z) \in E(z_m) \exp(G'(Z)(z - z_m))`, :math:`G = T\log\varphi - \varepsilon z`,
  :math:`G' = T\varphi'/\varphi - \varepsilon` (exact: the logarithm's branch does not matter
  for an integer power), so a power :math:`T = 10^6` costs no blow-up of the balls; or, where
  smaller (arb bounds its quadrature error through the integrand's size on ellipses around the
  pieces, whose real parts vary), by the modulus bound :math:`|a(z)| \le a(x)`,
  :math:`|b(z)| \le \min(b(x), k_0\cosh(\beta(x + \tfrac12))/|z + \tfrac12|)`, x = Re z (positive
  measures), in :math:`|R_J| \le \min((|a| + |b|)^T, \binom{T}{J+1}|b|^{J+1}(|a| + |b|)^{T-J-1})`,
  times :math:`e^{-\varepsilon x}`: a product of powers of log-convex functions of x, largest at an
  end of the ball's real range (``proofs/verify_laplace_composition.py``).  The rest
  :math:`\int_R^\infty` is bounded: on the line :math:`|a(c + it)| \le a(c)` and
  :math:`|b(c + it)| \le M/t` with :math:`M = \tfrac12 e^{-\beta/2}\cosh(\beta(c + \tfrac12))`
  (:math:`|\sinh(x + iy)| \le \cosh x`, :math:`|w| \ge t`), :math:`|z(z + 1)| \ge t^2`, and
  :math:`|R_J| \le \binom{T}{J+1}|b|^{J+1}(|a| + |b|)^{T-J-1}` (Taylor remainder), so the
  cut-off part is at most
  :math:`\frac1\pi \binom{T}{J+1} M^{J+1} (a(c) + M/R)^{T-J-1} e^{-\varepsilon c}/((J+2)R^{J+2})`
  (J = -1: nothing subtracted), added to the radius.  For c < 0 the residue
  :math:`R_J(0)` is added, and when :math:`\varphi(c)^T e^{-\varepsilon c}/\min(|c|, |1+c|)`
  (a bound on the integral) is negligible the integral is replaced by that bound.

Before these, the **capped-exponential route** (:meth:`LaplaceProfile._capped`, checks in
``proofs/verify_laplace_composition.py``).  The deficit :math:`D = \beta - L` of one step is 0
with mass 1/2, has density :math:`e^{-D/2}/4` on :math:`(0, 2\beta)` and an atom
:math:`e^{-\beta}/2` at :math:`2\beta`: the law of :math:`\min(E, 2\beta)` with E = 0 (mass 1/2)
or Exp(rate 1/2) (mass 1/2).  With :math:`h = T\beta - \varepsilon`,
:math:`\delta(\varepsilon) = E[(1 - e^{S - h})_+]`, S the sum of the T deficits, and the map
:math:`S \mapsto (1 - e^{S-h})_+` is non-increasing and vanishes for :math:`S \ge h`.  Coupled
with the uncapped sum :math:`S' \ge S` (equal unless some :math:`E_i > 2\beta`, and then both
are :math:`\ge 2\beta`): :math:`0 \le \delta - \delta' \le 1 - (1 - e^{-\beta}/2)^T \le
Te^{-\beta}/2`, and :math:`\delta = \delta'` when :math:`h \le 2\beta`.  Relative to
:math:`\delta`: S and S' differ only where some :math:`E_i > 2\beta` (probability
:math:`e^{-\beta}/2` each), and then :math:`S = 2\beta + S_{-i}` with :math:`S_{-i}` the capped sum
of the other T - 1 deficits, independent of :math:`E_i`; so, writing :math:`\delta_n(g)` for the
value with n deficits and threshold g (non-decreasing in g, and :math:`\delta_T(g) \ge
\delta_{T-1}(g)/2` from the outcomes with :math:`D_T = 0`),
:math:`\delta - \delta' \le \sum_i P(E_i > 2\beta)\,\delta_{T-1}(h - 2\beta) \le
T\frac{e^{-\beta}}2\,2\delta_T(h) = r\delta`, :math:`r = Te^{-\beta}`: :math:`\delta \le
\delta'/(1 - r)` when r < 1.  Given the number j of nonzero :math:`E_i` (Bin(T, 1/2)) the uncapped sum is Gamma(j, rate 1/2), and
:math:`E[(1 - e^{G - h})_+] = 2\sum_{k > j,\ k - j\ \mathrm{odd}} P(K = k)`, K ~ Poisson(y),
y = h/2 (the integrand splits into two incomplete gamma functions whose difference is the odd
part of a Poisson series).  Summed over j:
:math:`\delta' = \sum_{k \ge 1} P(K = k)(F(k - 1) + \binom{T-1}{k-1}2^{-T})`, F the law
function of Bin(T, 1/2); every factor lies in [0, 1] and equals 1 for k > T, so the terms
outside a window of k are bounded by Poisson tails (times :math:`\min(1, 2F)` below), and all
terms are positive (no cancellation, no power of :math:`e^{\beta}`).  It answers near the
largest loss (:math:`h \le 2\beta`, exact) and, for :math:`\beta \ge` :data:`CAPPED_MIN_BETA`,
wherever :math:`Te^{-\beta}/2` or :math:`Te^{-\beta}` is negligible (next to delta, resp. 1), e.g.
every query at scale 1e-1000 and at scale 0.01 up to T = 10^6 whatever delta.

For a tiny largest loss (:math:`T\beta < 2^{-32}`, huge scales) the **tiny-loss route**
(:meth:`LaplaceProfile._tiny_loss`): the loss is :math:`\beta` times a Rademacher walk up to
:math:`T\beta^2` in the mean, and :math:`1 - e^{-x} = x` up to :math:`x^2/2`, so delta is
:math:`\beta E(S - \varepsilon/\beta)_+` (two binomial tails) to relative accuracy about
:math:`T\beta`.

Two cheap bounds: :math:`\mathrm{BC} = \int\sqrt{pq} = e^{-\beta/2}(1 + \beta/2)` (one step,
multiplicative over steps) gives :math:`1 - \mathrm{BC}^T \le \delta(0) = TV \le
\sqrt{1 - \mathrm{BC}^{2T}}`: epsilon > 0 without evaluating delta(0) when the left side exceeds
delta, epsilon = 0 at once when the right side is at most delta, and a valid (wide) enclosure
where the loss is too concentrated for the inversion integral.

The pair is symmetric (the swapped pair has the same profile), so add = remove.
:math:`\varepsilon(\delta)` is found by a guess (saddle-point approximation, then Newton and secant
steps on :math:`\log\delta`; once the guess is within the width, each probe sits width/6 beside
it on the side of the end still open, so three evaluations usually suffice) and certified: every enclosure computed on the way decides, where it can,
:math:`\delta(x) > \delta` (a proven lower end) or :math:`\delta(x) \le \delta` (a proven upper
end), because the profile is non-increasing; a bisection of the proven bracket is the fallback.
For beta above :math:`10^6` (where only the capped route evaluates) the search runs on the gap
:math:`T\beta - \varepsilon` instead (:meth:`LaplaceProfile._epsilon_by_gap`).
Near the largest loss :math:`T\beta` the all-atoms outcome (P-mass :math:`2^{-T}`) gives
:math:`\delta(T\beta - h) \ge 2^{-T}(1 - e^{-h})`, a lower end without search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

import mpmath
from flint import acb, arb, ctx, fmpq

from ..arith import Certified, log_binomial_pmf, workprec
from .results import decimal_text

__all__ = ["EXACT_STEPS", "LaplaceProfile"]

#: up to this many steps the finite mixture is summed (above, the inversion integral)
EXACT_STEPS = 12
#: the largest number of continuous steps summed term by term (above, the inversion integral,
#: faster there since its integrand is bounded on its ellipses by the modulus bound)
MAX_TERMS = 16
#: the capped-exponential route: at most this many terms, and (where the cap matters) beta at least
CAPPED_TERMS = 20000
CAPPED_MIN_BETA = 24
#: working precision cap (bits)
MAX_PREC = 4096
#: largest cut-off R of the inversion integral tried
MAX_R = 2.0**40


def _q(x: Fraction | int) -> arb:
    x = Fraction(x)
    return arb(fmpq(x.numerator, x.denominator))


def _frac(x: arb) -> Fraction:
    m, e = x.mid().man_exp()
    man, exp = int(m), int(e)
    return Fraction(man * (1 << exp)) if exp >= 0 else Fraction(man, 1 << -exp)


# ---------------------------------------------------------------------------
# float guides (choices only: every certified number is recomputed below)
# ---------------------------------------------------------------------------


def _mp_parts(beta: mpmath.mpf, c: mpmath.mpf) -> tuple[Any, Any, Any]:
    """``(phi, phi', phi'')`` at a real c (mpmath)."""
    e1, e2 = mpmath.exp(beta * c), mpmath.exp(-beta * (c + 1))
    a, a1, a2 = (e1 + e2) / 2, beta * (e1 - e2) / 2, beta**2 * (e1 + e2) / 2
    w = c + mpmath.mpf(1) / 2
    k = mpmath.exp(-beta / 2) / 2
    y = beta * w
    if abs(y) < mpmath.mpf(10) ** -8:
        b, b1, b2 = k * beta * (1 + y * y / 6), k * beta**2 * y / 3, k * beta**3 / 3
    else:
        sh, ch = mpmath.sinh(y), mpmath.cosh(y)
        b = k * sh / w
        b1 = k * (beta * w * ch - sh) / w**2
        b2 = k * (beta**2 * sh / w - 2 * beta * ch / w**2 + 2 * sh / w**3)
    return a + b, a1 + b1, a2 + b2


@dataclass(frozen=True)
class _Saddle:
    c: float
    log_scale: float  # log of phi(c)^T e^{-eps c}
    sd: float  # sqrt(T var) at c
    p_cont: float = 0.0  # tilted weight of the continuous part, b(c)/phi(c)


def _saddle(beta_f: Fraction, steps: int, eps: Fraction) -> _Saddle:
    """The c with ``T phi'(c)/phi(c) = eps`` (bisection, mpmath), for 0 <= eps < T beta."""
    with mpmath.workdps(40):
        beta = mpmath.mpf(beta_f.numerator) / beta_f.denominator
        mu = mpmath.mpf(eps.numerator) / eps.denominator / steps

        def m(c: Any) -> Any:
            p, p1, _ = _mp_parts(beta, c)
            return p1 / p

        lo, hi = mpmath.mpf(-0.5), mpmath.mpf(1)
        while m(hi) < mu:
            lo, hi = hi, hi * 2
            if hi > 1e15:
                break
        for _ in range(80):
            mid = (lo + hi) / 2
            if m(mid) < mu:
                lo = mid
            else:
                hi = mid
        c = (lo + hi) / 2
        p, p1, p2 = _mp_parts(beta, c)
        var = steps * (p2 / p - (p1 / p) ** 2)
        log_scale = steps * mpmath.log(p) - c * mpmath.mpf(eps.numerator) / eps.denominator
        a = (mpmath.exp(beta * c) + mpmath.exp(-beta * (c + 1))) / 2
        sd = mpmath.sqrt(max(var, mpmath.mpf(0)))
        return _Saddle(float(c), float(log_scale), float(sd), float(max(0, 1 - a / p)))


# ---------------------------------------------------------------------------
# the composition
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LaplaceProfile:
    r"""``steps`` Laplace mechanisms of scale ``scale`` (sensitivity 1), composed exactly: the
    computations; :class:`rigorous_rdp.pld.closed_form.LaplaceComposition` adds the closed-form
    interface (results, dispatch)."""

    scale: Fraction
    steps: int
    description = (
        "composed Laplace mechanisms: delta(eps) = E_P[(1 - e^(eps - L))_+] by Laplace inversion of the exact "
        "moment generating function of the loss (arb rigorous integration, bounded tail; exact finite mixture "
        "for few steps) in ball arithmetic (no discretisation)"
    )

    def parameters(self) -> dict[str, Any]:
        return {"scale": decimal_text(self.scale), "steps": self.steps}

    @property
    def _beta(self) -> Fraction:
        return 1 / self.scale

    @property
    def _max_loss(self) -> Fraction:
        return self.steps * self._beta

    # -- small T: the finite mixture ------------------------------------------------------

    def _consts(self) -> tuple[arb, arb, arb, arb, arb]:
        """``(beta, e^-beta, wc, Z, a(0))``: wc = beta e^(-beta/2)/4 (the continuous density's
        factor), Z = int_(-1)^1 e^(beta u/2) du = (4/beta) sinh(beta/2), a(0) = (1 + e^-beta)/2."""
        beta = _q(self._beta)
        eb = (-beta).exp()
        return beta, eb, beta * (-beta / 2).exp() / 4, 4 * (beta / 2).sinh() / beta, (1 + eb) / 2

    def _kernel(self, j: int, x: Fraction, memo: dict | None = None) -> arb:
        r""":math:`K_j(x) = \int_{s > x} (1 - e^{\beta(x - s)}) e^{\beta s/2} B_j(s)\,ds`
        (:math:`K_0(x) = (1 - e^{\beta x})_+`), x in units of beta, exact.  ``memo`` caches the
        incomplete integrals Q (shared by the lattice points of one j)."""
        memo = {} if memo is None else memo
        if "consts" not in memo:
            memo["consts"] = self._consts()
        beta, _, _, Z, _ = memo["consts"]
        xa = _q(x)
        if x >= j:
            return arb(0)
        if x <= -j:
            return Z**j * (1 - (beta * xa).exp())
        lam = beta / 2
        n = j - 1

        def Q(sign: int, num: int, den: int) -> arb:
            # int_0^y e^{lm u} u^n / n! du, y = num/den >= 0
            # = (1 - e^{lm y} sum_{r<=n} (-lm y)^r / r!) / (-lm)^(n+1)
            key = (n, sign, num, den)
            v = memo.get(key)
            if v is None:
                lm, Y = lam * sign, arb(fmpq(num, den))
                z = lm * Y
                if num == 0:
                    v = arb(0)
                elif abs(z) <= max(2, n + 1):
                    # sum_m lm^m Y^(n+m+1) / (m! n! (n+m+1)) (no cancellation for lm > 0, about
                    # 1.44 |z| bits for lm < 0, against (n+1) log2(e (n+1)/|z|) for the closed form);
                    # the ratio of consecutive terms is at most |z|/(m+1), so the tail after term m
                    # is at most |term_m| rho/(1 - rho), rho = |z|/(m+1) <= 1/2
                    t = Y ** (n + 1) / (math.factorial(n) * (n + 1))
                    s_ = t
                    m = 0
                    stop = arb(2) ** (-ctx.prec - 8)
                    while True:
                        t = t * z * (n + m + 1) / ((m + 1) * (n + m + 2))
                        m += 1
                        s_ += t
                        if m + 1 > 4 and m + 1 > 2 * abs(z) and abs(t) < stop * abs(s_):
                            break
                    rho = abs(z) / (m + 1)
                    err = (abs(t) * rho / (1 - rho)).upper()
                    v = s_ + err.union(-err)
                else:
                    s_, t = arb(0), arb(1)
                    for r in range(n + 1):
                        s_ += t
                        t = t * (-z) / (r + 1)
                    v = (1 - z.exp() * s_) / (-lm) ** (n + 1)
                memo[key] = v
            return v

        def ex(m: int) -> tuple[arb, arb]:
            key = ("e", m)
            v = memo.get(key)
            if v is None:
                v = memo[key] = ((lam * m).exp(), (-lam * m).exp())
            return v

        acc = arb(0)
        ebx = (beta * xa).exp()
        xn, xd = x.numerator, x.denominator
        for k in range(j):
            m = 2 * k - j
            yn = max(xn - m * xd, 0)  # y0 = max(x - m, 0) = yn/xd
            up = Q(1, 2 * (j - k), 1) - Q(1, yn, xd)
            dn = Q(-1, 2 * (j - k), 1) - Q(-1, yn, xd)
            e_m, e_neg = ex(m)
            acc += (-1) ** k * comb(j, k) * (e_m * up - ebx * e_neg * dn)
        return acc

    def _mixture(self, eps: Fraction) -> arb:
        r"""The finite mixture over (j, i) (module docstring) at the working precision."""
        T = self.steps
        _, eb, wc, _, _ = self._consts()
        x0 = eps / self._beta
        total = arb(0)
        for j in range(T + 1):
            for i in range(T - j + 1):
                x = x0 - (2 * i - T + j)
                if x >= j:
                    continue
                w = comb(T, j) * comb(T - j, i) * arb(2) ** (-i) * (eb / 2) ** (T - j - i) * wc**j
                total += w * self._kernel(j, x)
        return total

    def _tails(self, k: int, n_lo: int, pp: arb) -> dict[int, arb]:
        r""":math:`P(\mathrm{Bin}(n, p) \ge k)` for :math:`n_{lo} \le n \le T`: one regularized
        incomplete beta function, then :math:`P(X_{n+1} \ge k) = P(X_n \ge k) + p\,P(X_n = k - 1)`
        (additions only)."""
        T = self.steps
        out: dict[int, arb] = {}
        if k <= 0:
            return {n: arb(1) for n in range(n_lo, T + 1)}
        n0 = max(n_lo, k - 1)
        for n in range(n_lo, n0):
            out[n] = arb(0)
        cur = pp.beta_lower(k, n0 - k + 1, 1) if n0 >= k else arb(0)
        out[n0] = cur
        if n0 < T:
            pmf = log_binomial_pmf(n0, k - 1, pp.log(), (1 - pp).log()).exp()
            for n in range(n0, T):
                cur = cur + pp * pmf
                out[n + 1] = cur
                pmf = pmf * (1 - pp) * (n + 1) / (n + 2 - k)
        return out

    def _term(self, j: int, eps: Fraction, tails: tuple[dict[int, arb], dict[int, arb]] | None = None) -> arb:
        r"""The part of delta from the outcomes with exactly j continuous steps:
        :math:`\binom{T}{j} w_c^j \sum_i \binom{T-j}{i} 2^{-i} (e^{-\beta}/2)^{T-j-i} K_j(x_i)`,
        the i with :math:`x_i \le -j` summed in closed form through binomial tails
        (:math:`Z^j a(0)^n (P(\mathrm{Bin}(n, p) \ge k) - e^\varepsilon P(\mathrm{Bin}(n, 1-p) \ge k))`,
        n = T - j, the regularized incomplete beta function), the at most 2j others one by one."""
        T = self.steps
        _, eb, wc, Z, a0 = self._consts()
        n = T - j
        x0 = eps / self._beta
        p = 1 / (1 + eb)
        k = math.ceil((x0 + T) / 2)  # first i with x_i <= -j

        def tail(pp: arb, idx: int) -> arb:
            if tails is not None:
                return tails[idx][n]
            if k <= 0:
                return arb(1)
            if k > n:
                return arb(0)
            return pp.beta_lower(k, n - k + 1, 1)

        total = Z**j * a0**n * (tail(p, 0) - _q(eps).exp() * tail(1 - p, 1)) if k <= n else arb(0)
        lo = max(0, math.floor((x0 + T - 2 * j) / 2) + 1)
        memo: dict = {}
        hi = min(n, k - 1)
        if lo <= hi:
            # w_i = C(n, i) 2^-i (e^-beta/2)^(n-i) = a0^n pmf_Bin(n, p)(i), updated by its ratio
            w = a0**n * log_binomial_pmf(n, lo, p.log(), (1 - p).log()).exp()
            for i in range(lo, hi + 1):
                x = x0 - (2 * i - T + j)
                total += w * self._kernel(j, x, memo)
                w = w * (n - i) / ((i + 1) * eb)
        return comb(T, j) * wc**j * total

    # -- the inversion integral -----------------------------------------------------------------

    def _contour(self, eps: Fraction, bits: int, sad: _Saddle) -> arb:
        """delta at ``eps`` (0 <= eps < T beta) by the inversion integral, relative accuracy
        about ``bits`` bits aimed at (the enclosure is valid whatever it reaches)."""
        T = self.steps
        if not 16.0 / max(sad.sd, 1e-300) <= MAX_R:
            return self._hellinger(eps)  # the loss is too concentrated for the cut-off R
        sd = max(sad.sd, 1e-300)
        g = min(0.1, 1 / sd)
        c_f = sad.c
        if c_f < -0.5 + g:
            c_f = -0.5 + g
        if abs(c_f) < g:
            c_f = g if c_f >= 0 else -g
        c = arb(c_f)  # exact binary value of the float
        beta, eb, _, _, a0 = self._consts()
        ea = _q(eps)
        half = arb(1) / 2
        k0 = (-beta / 2).exp() / 2
        ac = ((beta * c).exp() + (-beta * (c + 1)).exp()) / 2
        bc = k0 * (beta * (c + half)).sinh() / (c + half)
        phic = ac + bc
        log_n = T * phic.log() - ea * c  # log N, N = phi(c)^T e^{-eps c}
        a_rel = ac / phic
        Mt = k0 * (beta * (c + half)).cosh() / phic
        # subtract the terms with j <= J continuous steps when the atoms' tilted weight matters
        # (more terms make the remainder decay faster along the line, so the cut-off R is smaller;
        # the j-th term cancels about j (beta / ln 2 + 1.5) bits: up to 64 bits more for them)
        J = -1
        per_term = float(self._beta) / math.log(2) + 1.5
        est = 1 / (abs(c_f * (c_f + 1)) * sd * math.sqrt(2 * math.pi))
        tol = est * 2.0 ** (-bits - 4)
        if (T * a_rel.log()).upper() > -(bits + 40) * math.log(2):
            J = _subtracted_terms(T, sd, float(Mt.log().mid()), float(a_rel.mid()), tol, int(64 / per_term))
        explicit = arb(0)
        if J >= 0:
            with workprec(ctx.prec + math.ceil(J * per_term)):
                p = 1 / (1 + (-_q(self._beta)).exp())
                k = math.ceil((eps / self._beta + T) / 2)
                tails = (self._tails(k, T - J, p), self._tails(k, T - J, 1 - p))
                for j in range(J + 1):
                    explicit += self._term(j, eps, tails)
        residue = arb(0)
        if c_f < 0:
            b0 = (1 - eb) / 2
            residue = 1 - sum((comb(T, j) * a0 ** (T - j) * b0**j for j in range(J + 1)), arb(0))
            # |N I| <= N / min(|c|, |1 + c|) (|R_J| <= 2 phi(c)^T on the line): skip the integral
            # when that is negligible next to the rest
            quick = log_n.exp() / min(abs(c_f), abs(1 + c_f)) * 1.0001
            rest = residue + explicit
            if rest.lower() > 0 and (quick * arb(2) ** (bits + 4)).upper() < rest.lower():
                return rest + quick.upper().union(-quick.upper())

        def tail(R: float) -> arb:
            Ra = arb(R)
            return (
                comb(T, J + 1) * Mt ** (J + 1) * (a_rel + Mt / Ra) ** (T - J - 1) / ((J + 2) * Ra ** (J + 2)) / arb.pi()
            )

        f = _inversion_integrand(T, J, beta, k0, c, phic, ea)

        value = arb("nan")
        for _ in range(4):
            R = max(16.0 / sd, 1.0)
            while True:
                tb = tail(R)
                if tb.is_finite() and tb.upper() < tol:
                    break
                R *= 2
                if R > MAX_R:
                    return value
            integral = _integral(
                f, 0, R, rel_tol=arb(2) ** (-bits - 6), abs_tol=arb(tol) / 16, eval_limit=200000, deg_limit=60
            )
            tb = tail(R).upper()
            part = integral.real / arb.pi() + tb.union(-tb)  # the cut-off tail added to the radius
            value = log_n.exp() * part + explicit + residue
            if not value.is_finite() or value.rad() == 0 or value.rel_accuracy_bits() >= bits:
                return value
            # the tolerance was set from the integral's size; delta is smaller (a residue
            # cancels): tighten it to delta's size and integrate again
            want = value.mid().abs_lower() * 2.0 ** (-bits - 4) if value.mid() != 0 else arb(0)
            have = (log_n.exp() * arb(tol)).upper()
            if not want > 0 or not have > 0:
                return value
            ratio = float((want / have).mid())
            if ratio >= 1:
                return value  # limited by the working precision: the caller raises it
            tol = tol * max(ratio, 2.0**-200)
        return value

    # -- certified values ---------------------------------------------------------------------

    def _delta_at(self, eps: Fraction, bits: int) -> arb:
        """delta at ``eps`` at the working precision (not refined)."""
        if eps >= self._max_loss:
            return arb(0)  # the loss never exceeds T beta
        v = self._capped(eps, bits)
        if v is not None:
            return v
        if self._beta * self.steps < Fraction(1, 1 << 32):
            v = self._tiny_loss(eps, bits)
            if v is not None:
                return v
        if self._beta > 10**6:
            return arb(0).union(arb(1))  # e^(beta z) is out of reach of the other routes
        if self.steps <= EXACT_STEPS:
            return self._mixture(eps)
        sad = _saddle(self._beta, self.steps, eps)
        v = self._truncated(eps, bits, sad)
        if v is not None:
            return v
        return self._contour(eps, bits, sad)

    def _capped(self, eps: Fraction, bits: int) -> arb | None:
        r"""delta by the capped-exponential route (module docstring), or ``None`` when it does not
        apply (the cap matters: :math:`h > 2\beta` and :math:`T e^{-\beta}/2` is not negligible)
        or needs more than :data:`CAPPED_TERMS` terms.  With :math:`h = T\beta - \varepsilon`,
        :math:`y = h/2`, K ~ Poisson(y), J ~ Bin(T, 1/2), :math:`F` the law function of J and
        :math:`c_m = \binom{T-1}{m}2^{-T}`:
        :math:`\delta_{\mathrm{model}} = \sum_{k \ge 1} P(K = k)\,(F(k - 1) + c_{k-1})`, each factor
        :math:`F(k-1) + c_{k-1} = 2P(J < k, J \not\equiv k) \le 1` and equal to 1 for k > T.

        The terms outside the window: each factor is at most :math:`\min(1, 2F(k - 1))`
        (:math:`c_m \le b_m \le F(m)`, :math:`b_m = P(J = m)`).  With
        :math:`\rho_m = b_{m-1}/b_m = m/(T - m + 1)` (rising in m), :math:`F(m - 1) \le \rho_m F(m)`
        and :math:`F(m) \le b_m/(1 - \rho_m)`.  Below: :math:`v_k = P(K = k)F(k - 1)` has
        :math:`v_{k-1}/v_k \le q_k = k(k-1)/((T - k + 2)y)`, rising, so the k < n add at most
        :math:`2v_{n-1}/(1 - q_{n-1})`.  Above, up to :math:`M + 1`, M = (T + 1) // 3
        (:math:`\rho_M \le 1/2`): at most :math:`2/(1 - \rho_M)\sum_{k > n} P(K = k)b_{k-1}`, whose
        ratio :math:`y(T - k + 1)/((k + 1)k)` falls in k (a geometric bound), plus
        :math:`P(K \ge M + 2)` for the rest."""
        T = self.steps
        beta_f = self._beta
        h = T * beta_f - eps
        capped = h <= 2 * beta_f
        if not capped and beta_f < CAPPED_MIN_BETA:
            return None
        # for a large beta the inversion integral is slow, and where beta is huge the other routes
        # cannot evaluate e^(beta z) at all: allow more terms then
        limit = CAPPED_TERMS if beta_f < 10**6 else 10**7
        # the cap's error is at most min(T e^-beta / 2, r delta / (1 - r)), r = T e^-beta: skip the
        # sum where neither bound can be negligible
        log_r = math.log(T) - (float(beta_f) if beta_f < 10**6 else 1e6)  # (beta may exceed the float range)
        relative = log_r + (bits + 3) * math.log(2) < 0
        floor = -math.inf if capped or relative else log_r - math.log(2) + (bits + 2) * math.log(2)
        window = _capped_window(T, h, bits, limit, floor)
        if window is None:
            return None
        k_lo, k_hi = window
        beta = _q(beta_f)
        y = _q(h) / 2
        half = arb(1) / 2
        total = arb(0)
        err = arb(0)  # the model's terms left out
        if k_lo <= k_hi:
            log_y = y.log()
            pk = (-y + k_lo * log_y - arb(k_lo + 1).lgamma()).exp()
            m = k_lo - 1  # F(m), b_m = P(J = m), c_m = b_m (T - m) / T
            bm = log_binomial_pmf(T, m, half.log(), half.log()).exp()
            fm = half.beta_lower(T - m, m + 1, 1) if m < T else arb(1)
            for k in range(k_lo, k_hi + 1):
                m = k - 1
                total += pk * (fm + bm * (T - m) / T)
                pk = pk * y / (k + 1)
                if m + 1 <= T:
                    bm = bm * (T - m) / (m + 1)
                    fm = fm + bm
        if k_lo > 1:
            # the 1 <= k < k_lo: each factor <= min(1, 2 F(k_lo - 2)) (c_m <= b_m <= F(m), F rises)
            low = _pois_le(k_lo - 1, y)
            if k_lo - 2 < T:
                f_lo = half.beta_lower(T - (k_lo - 2), k_lo - 1, 1)  # F(k_lo - 2)
                low = low * _min_arb(arb(1), 2 * f_lo)
                # or geometric: v_k = P(K = k) F(k - 1) has v_(k-1) / v_k <= q_k, q_k rising in k
                q = _q(Fraction((k_lo - 1) * (k_lo - 2), T - k_lo + 3)) / y
                if q.upper() < 1:
                    low = _min_arb(low, 2 * _pois_pmf(k_lo - 1, y) * f_lo / (1 - q))
            err = err + low
        if k_hi >= T:
            total += _pois_ge(T + 1, y)  # the factor is 1 for k > T
        else:
            high = _pois_ge(k_hi + 1, y)
            # or: for k_hi < k <= M + 1 the factor is <= 2 F(k - 1) <= 2 b_(k-1) / (1 - rho_M), and
            # P(K = k) b_(k-1) falls geometrically (ratio r_k, falling in k); the k > M + 1 by P(K >= M + 2)
            M = (T + 1) // 3  # rho_M = M / (T - M + 1) <= 1/2
            if k_hi < M and y < M:
                r = y * _q(Fraction(T - k_hi, (k_hi + 2) * (k_hi + 1)))
                if r.upper() < 1:
                    b_hi = log_binomial_pmf(T, k_hi, half.log(), half.log()).exp()
                    rho_m = _q(Fraction(M, T - M + 1))
                    geo = 2 / (1 - rho_m) * _pois_pmf(k_hi + 1, y) * b_hi / (1 - r) + _pois_ge(M + 2, y)
                    high = _min_arb(high, geo)
            err = err + high
        if not (total.is_finite() and err.is_finite()):
            return None
        if not capped:
            # the cap: 0 <= delta - delta_model <= T e^-beta / 2, and <= r delta / (1 - r) when
            # r = T e^-beta < 1 (module docstring)
            r = T * (-beta).exp()
            cap = r / 2
            if r.upper() < 1:
                cap = _min_arb(cap, (total + err).upper() * r / (1 - r))
            err = err + cap
        if not total.lower() > 0 or not (err * arb(2) ** (bits + 2)).upper() < total.lower():
            return None  # the cap or the cut-off is not negligible: the other routes answer
        return total + arb(0).union(err.upper())

    def _tiny_loss(self, eps: Fraction, bits: int) -> arb | None:
        r"""delta when the largest loss :math:`T\beta` is tiny (huge scales), or ``None`` when the
        bounds below are not within ``bits`` bits of each other.  The loss is :math:`L = \beta X`,
        :math:`X = \sum X_i`, :math:`X_i` = +1 (mass 1/2), -1 (mass :math:`e^{-\beta}/2`) or in
        (-1, 1) (mass :math:`(1 - e^{-\beta})/2`).  Coupled with a Rademacher walk
        :math:`S = \sum R_i` (:math:`R_i = +1` iff :math:`X_i = +1`): :math:`X_i \ge R_i`, so
        :math:`X \ge S` and :math:`E[X - S] = T E[X_1] \le T(1 - e^{-\beta}) \le T\beta`
        (:math:`|u| \le 1` on the continuous part).  :math:`g(L) = (1 - e^{\varepsilon - L})_+` is
        non-decreasing and 1-Lipschitz, so :math:`E g(\beta S) \le \delta \le E g(\beta S) +
        T\beta^2`; and with :math:`x = \beta S - \varepsilon \le T\beta`,
        :math:`x_+ - x_+^2/2 \le (1 - e^{-x})_+ \le x_+` gives :math:`E g(\beta S) \in
        [m(1 - T\beta/2), m]`, :math:`m = \beta E(S - a)_+`, :math:`a = \varepsilon/\beta`.  With
        N ~ Bin(T, 1/2), S = 2N - T, k = floor((T + a)/2) + 1 (the least n with 2n - T > a):
        :math:`E(S - a)_+ = T P(N' \ge k - 1) - (T + a) P(N \ge k)`, N' ~ Bin(T - 1, 1/2)
        (:math:`2n\binom Tn 2^{-T} = T\binom{T-1}{n-1}2^{-(T-1)}`), both tails regularized
        incomplete beta functions (``proofs/verify_laplace_composition.py``)."""
        T = self.steps
        beta = _q(self._beta)
        a = eps / self._beta
        k = math.floor((T + a) / 2) + 1
        half = arb(1) / 2

        def tail(n: int, kk: int) -> arb:  # P(Bin(n, 1/2) >= kk)
            if kk <= 0:
                return arb(1)
            if kk > n:
                return arb(0)
            return half.beta_lower(kk, n - kk + 1, 1)

        m = beta * (T * tail(T - 1, k - 1) - (T + _q(a)) * tail(T, k))
        bt = beta * T
        lo = m * (1 - bt / 2)
        hi = m + bt * beta
        if not (m.is_finite() and lo.lower() > 0):
            return None
        v = arb(lo.lower()).union(arb(hi.upper()))
        if v.rel_accuracy_bits() < bits:
            return None
        return v

    def _truncated(self, eps: Fraction, bits: int, sad: _Saddle) -> arb | None:
        r"""delta as the sum of the terms with j <= J continuous steps plus a bound on the rest,
        or ``None`` when J would exceed :data:`MAX_TERMS`.  For any c > 0,
        :math:`(1 - e^{\varepsilon - x})_+ \le \kappa(c) e^{c(x - \varepsilon)}` with
        :math:`\kappa(c) = \max_{y > 0} (1 - e^{-y}) e^{-cy} = c^c/(1 + c)^{1 + c}`, so the outcomes with
        more than J continuous steps add at most
        :math:`\kappa(c)\,\varphi(c)^T e^{-c\varepsilon} P(\mathrm{Bin}(T, b(c)/\varphi(c)) > J)`
        (the tilted law of the number of continuous steps is binomial)."""
        T = self.steps
        J = _cutoff(T, sad, bits)
        # beyond MAX_TERMS the inversion integral is faster (a cost model measured on both routes)
        limit = MAX_TERMS
        if limit < J and limit + 4 < T:
            return None
        budget = max(limit, J)
        # the j-th term cancels about j (beta / ln 2 + 1.5) bits (alternating Irwin-Hall pieces times
        # e^{beta j}): raise the precision once for the terms expected (J and a few more) instead of
        # doubling it from the caller's (terms beyond are still enclosed, only wider)
        extra = math.ceil(min(budget, J + 8) * (float(self._beta) / math.log(2) + 1.5))
        with workprec(ctx.prec + extra):
            return self._truncated_sum(eps, bits, sad, J, budget)

    def _truncated_sum(self, eps: Fraction, bits: int, sad: _Saddle, J: int, budget: int) -> arb | None:
        """The body of :meth:`_truncated` at its raised working precision."""
        T = self.steps
        c_f = max(sad.c, 2.0**-10)
        c = arb(c_f)
        beta, _, _, _, _ = self._consts()
        half = arb(1) / 2
        ac = ((beta * c).exp() + (-beta * (c + 1)).exp()) / 2
        bc = (-beta / 2).exp() / 2 * (beta * (c + half)).sinh() / (c + half)
        phic = ac + bc
        kappa = (c * c.log() - (1 + c) * (1 + c).log()).exp()
        lead = kappa * (T * phic.log() - _q(eps) * c).exp()
        total = arb(0)
        j = 0
        _, eb, _, _, _ = self._consts()
        p = 1 / (1 + eb)
        k = math.ceil((eps / self._beta + T) / 2)
        while True:
            tails = (self._tails(k, T - J, p), self._tails(k, T - J, 1 - p))
            while j <= J:
                total += self._term(j, eps, tails)
                j += 1
            if J >= T:
                return total
            rest = lead * (bc / phic).beta_lower(J + 1, T - J, 1)
            if total.lower() > 0 and (rest * arb(2) ** (bits + 2)).upper() < total.lower():
                return total + arb(0).union(rest.upper())
            if budget <= J:
                return None
            J = min(T, J + 4)

    def enclose(self, eps: Fraction, bits: int) -> arb:
        """Certified enclosure of delta at ``eps >= 0``, refined (precision doubled) until its
        relative accuracy reaches ``bits`` bits or the cap; the last finite enclosure otherwise
        (``[0, 1]`` if none)."""
        prec = 64 + bits + 2 * self.steps.bit_length() + (4 * self.steps if self.steps <= EXACT_STEPS else 32)
        last: arb | None = None
        box = arb(0).union(arb(1))
        while True:
            with workprec(prec):
                v = self._delta_at(eps, bits)
                if v.is_finite() and v.overlaps(box):
                    v = v.intersection(box)
            if v.is_finite():
                last = v
                if v.rad() == 0 or v.rel_accuracy_bits() >= bits:
                    return v
            if prec >= MAX_PREC:
                return last if last is not None else box
            prec *= 2

    def delta_ball(self, eps: Fraction) -> arb:
        return self.enclose(eps, 40)

    def delta(self, eps: Fraction) -> Certified:
        """Certified enclosure of the optimal delta at ``eps >= 0`` (relative width about 2^-40)."""
        v = self.enclose(eps, 40)
        return Certified(v, 128)

    def _side(self, eps: Fraction, delta: Fraction, gap: float) -> int:
        """+1 if delta(eps) > ``delta`` is proven, -1 if delta(eps) <= ``delta`` is proven,
        0 if undecided (``gap``: the guessed |log delta(eps) - log delta|)."""
        if eps >= self._max_loss:
            return -1
        bits = 20
        if gap > 0:
            bits = max(bits, int(-math.log2(gap)) + 8)
        while bits <= 80:
            v = self.enclose(eps, bits)
            with workprec(max(128, bits + 64)):
                t = _q(delta)
                if v > t:
                    return 1
                if v <= t:
                    return -1
            bits += 20
        return 0

    def epsilon(self, delta: Fraction, width: Fraction) -> Certified:
        """Certified bracket of the optimal epsilon at ``delta`` (width <= ``width``).

        Every enclosure computed on the way (also the coarse ones of the search) is certified, so
        each point where it decides the comparison with ``delta`` narrows the proven bracket
        ``(lo, hi]``: delta(lo) > delta (or lo = 0) and delta(hi) <= delta."""
        from .results import _bracket

        lt = math.log(delta.numerator) - math.log(delta.denominator)
        top = self._max_loss
        cert = [Fraction(0), top]  # delta(top) = 0 <= delta

        def probe(x: Fraction, bits: int = 20) -> float:
            """log delta(x) guessed from a certified enclosure, which also narrows the bracket."""
            if x >= top:
                return -math.inf
            v = self.enclose(x, bits)
            with workprec(max(128, bits + 64)):
                t = _q(delta)
                if v > t and x > cert[0]:
                    cert[0] = x
                elif v <= t and x < cert[1]:
                    cert[1] = x
            m = v.mid()
            return float(m.log()) if m > 0 else -math.inf

        def done() -> bool:
            return cert[1] - cert[0] <= width

        with workprec(128):
            if self._hellinger(Fraction(0)).upper() <= _q(delta):
                return _bracket(Fraction(0), Fraction(0))  # delta(0) = TV <= sqrt(1 - BC^2T) <= delta
        if not self._tv_exceeds(delta):
            # delta(0) (the total variation distance) is not proven above delta: look at it
            f_zero = probe(Fraction(0))
            if cert[1] == 0:
                return _bracket(Fraction(0), Fraction(0))
            if f_zero <= lt and self._side(Fraction(0), delta, lt - f_zero) == -1:
                return _bracket(Fraction(0), Fraction(0))
        # near the largest loss: delta(T beta - h) >= 2^-T (1 - e^-h) (all T losses +beta, P-mass
        # 2^-T), so a delta below that puts epsilon in (T beta - h, T beta]
        h = width / 2
        with workprec(128):
            floor = arb(2) ** (-self.steps) * -((-_q(h)).expm1())
            near_top = top - h > 0 and floor > _q(delta)
        if near_top:
            # then delta(T beta - y) is about 2^-T y for small y: the lower end from the floor at
            # h = -log(1 - 2^T delta) (rounded up), the upper end tried at y = 0.99 * 2^T delta
            u = delta * 2**self.steps
            lo = top - h
            with workprec(256):
                hl = -((-_q(u)).log1p()) * (1 + arb(2) ** -40)
                h2 = min(h, _frac(hl.upper()) * (1 + Fraction(1, 1 << 30)))
                if (arb(2) ** (-self.steps) * -((-_q(h2)).expm1())) > _q(delta):
                    lo = top - h2
            hi = top
            for y in (u * (1 - Fraction(1, 1 << 12)), u * Fraction(99, 100)):
                if width / (1 << 20) <= y < top - lo and self._side(top - y, delta, float(1 - y / u)) == -1:
                    hi = top - y
                    break
            return _bracket(lo, hi)
        if self._beta > 10**6:
            return self._epsilon_by_gap(delta, width)
        # Newton steps on log delta from the saddle-point guess (slope -c first, then secants);
        # once the guess is good every probe is placed width/6 beside it, on the side of the
        # end still far from it, so that its certified decision narrows the bracket
        x0 = _dyadic(self._first_guess(delta))
        f0 = probe(x0)
        slope = -_saddle(self._beta, self.steps, x0).c if 0 < x0 < top else 0.0
        for _ in range(10):
            if done() or not (math.isfinite(f0) and slope < 0):
                break
            est = x0 + Fraction((f0 - lt) / -slope)
            bits = 20
            if abs(est - x0) > width:
                x1 = est  # still far: a plain Newton step
            else:
                x1 = est + width / 32 if cert[1] - est >= est - cert[0] else est - width / 32
                # log delta(x1) - log delta is about slope * width / 32: enough bits to decide
                bits = max(20, min(80, int(-math.log2(-slope * float(width) / 32)) + 8))
            x1 = _dyadic(min(max(x1, Fraction(0)), top))
            if not cert[0] < x1 < cert[1]:
                # the step left the proven bracket (the saddle slope is poor where the atoms
                # dominate): bisect it once, the secant slope from there on
                x1, bits = _dyadic((cert[0] + cert[1]) / 2), 20
            if not cert[0] < x1 < cert[1] or x1 == x0:
                break
            gap = abs(slope * float(x1 - est))
            f1 = probe(x1, bits)
            if cert[0] < x1 < cert[1]:
                # the probe did not decide: decide at rising accuracy
                side = self._side(x1, delta, gap)
                if side == 0:
                    break
                cert[0 if side == 1 else 1] = x1
            if not math.isfinite(f1):
                break
            if f1 != f0:
                slope = (f1 - f0) / float(x1 - x0)
            x0, f0 = x1, f1
        # fallback: bisection of the certified bracket, each midpoint decided at rising accuracy
        for _ in range(200):
            if done():
                return _bracket(cert[0], cert[1])
            mid = _dyadic((cert[0] + cert[1]) / 2)
            if not cert[0] < mid < cert[1]:
                break
            side = self._side(mid, delta, 0.0)
            if side == 0:
                break
            cert[0 if side == 1 else 1] = mid
        raise ArithmeticError("pld closed form: could not certify the Laplace epsilon bracket")

    def _epsilon_by_gap(self, delta: Fraction, width: Fraction) -> Certified:
        r"""epsilon(``delta``) for a huge beta (> 10^6, where only the capped route evaluates and the
        saddle point is out of float reach): a search on the gap :math:`h = T\beta - \varepsilon`
        (delta rises with h), bracketed from a guess by factors of 4, then interpolation of
        :math:`\log\delta` in :math:`\log h` (once the bracket is short, probes beside the estimate
        on both sides), every probe a certified decision of :math:`\delta(T\beta - h) > \delta`
        (lower end) or :math:`\le \delta` (upper end); bisection when interpolation stalls."""
        from .results import _bracket

        T = self.steps
        top = self._max_loss
        lt = math.log(delta.numerator) - math.log(delta.denominator)
        known: dict[Fraction, float] = {}
        order: list[Fraction] = []  # the probes in turn
        lo_h: Fraction = Fraction(0)  # delta(top - lo_h) <= delta (delta(top) = 0)
        hi_h: Fraction | None = None  # delta(top - hi_h) > delta

        def probe(h: Fraction) -> int:
            """+1 if delta(top - h) > delta is proven, -1 if <= delta, 0 undecided; logs the guess."""
            nonlocal lo_h, hi_h
            side = 0
            for bits in (20, 40, 80):
                v = self.enclose(top - h, bits)
                with workprec(max(128, bits + 64)):
                    t = _q(delta)
                    side = 1 if v > t else (-1 if v <= t else 0)
                m = v.mid()
                known[h] = float(m.log()) - lt if m > 0 else -math.inf
                if side:
                    break
            order.append(h)
            if side == 1 and (hi_h is None or h < hi_h):
                hi_h = h
            elif side == -1 and h > lo_h:
                lo_h = h
            return side

        # bracket: the uncapped deficit sum has mean T and variance 3T; steps from its normal
        # quantile at delta (z about -sqrt(2 log(1/delta) - log(4 pi log(1/delta)))), doubling
        sd = math.sqrt(3 * T)
        z = -math.sqrt(max(0.0, -2 * lt - math.log(2 * math.pi * max(-2 * lt, 1.0))))
        h = _dyadic(Fraction(max(0.5, T + z * sd)))
        step = _dyadic(Fraction(max(0.5, sd / 2)))
        for _ in range(400):
            if h >= top:
                hi_h = top  # epsilon = 0 is the lower end (delta(0) > delta was proven before)
                break
            side = probe(h)
            if side == 0:
                raise ArithmeticError("pld closed form: could not certify the Laplace epsilon bracket")
            if hi_h is not None and (lo_h > 0 or h <= width):
                break
            if side == -1:
                h += step
            else:
                h = h - step if h > 2 * step else h / 4
            step *= 2
        if hi_h is None:
            raise ArithmeticError("pld closed form: could not certify the Laplace epsilon bracket")
        for _ in range(200):
            if hi_h - lo_h <= width:
                return _bracket(top - hi_h, top - lo_h)
            # the secant through the last two probes (superlinear), else through the bracket's
            # ends (regula falsi), else its midpoint
            est = (lo_h + hi_h) / 2
            pairs = [(order[-2], order[-1])] if len(order) >= 2 else []
            pairs.append((lo_h, hi_h))
            for x1, x2 in pairs:
                f1, f2 = known.get(x1, -math.inf), known.get(x2, math.nan)
                if x1 > 0 and x1 != x2 and math.isfinite(f1) and math.isfinite(f2) and f1 != f2:
                    guess = x1 + (x2 - x1) * Fraction(-f1 / (f2 - f1))
                    if lo_h < guess < hi_h:
                        est = guess
                        break
            span = hi_h - lo_h
            est = min(max(est, lo_h + span / 64), hi_h - span / 64)
            if span <= 64 * width:
                # place probes width/3 on both sides of the estimate: both decided, the bracket
                # is then within the width
                for y in (est - width / 3, est + width / 3):
                    y = _dyadic(y)
                    if lo_h < y < hi_h:
                        probe(y)
                if hi_h - lo_h >= span:
                    probe(_dyadic((lo_h + hi_h) / 2))  # no progress: bisect
            else:
                probe(_dyadic(est))
        raise ArithmeticError("pld closed form: could not certify the Laplace epsilon bracket")

    def _log_bc(self) -> arb:
        r"""A ball containing :math:`\log\mathrm{BC} = -x + \log(1 + x)`, x = beta/2 (below 1e-6 by
        the alternating series :math:`-x^2/2 + x^3/3 - \dots`, in [-x^2/2, -x^2/2 + x^3/3])."""
        x = _q(self._beta) / 2
        if self._beta < Fraction(1, 10**6):
            lo = -x * x / 2
            return lo.union(lo + x * x * x / 3)
        return -x + x.log1p()

    def _hellinger(self, eps: Fraction) -> arb:
        r"""The Hellinger bracket of delta at eps >= 0 (valid, wide; for a loss too concentrated
        for the inversion integral): :math:`\delta(\varepsilon) \le \delta(0) = TV \le
        \sqrt{1 - \mathrm{BC}^{2T}}` (Le Cam) and :math:`\delta(0) \ge 1 - \mathrm{BC}^T`."""
        lb = self._log_bc()
        hi = (-((2 * self.steps * lb).expm1())).sqrt()
        lo = -((self.steps * lb).expm1()) if eps == 0 else arb(0)
        return arb(lo.lower()).union(arb(hi.upper()))

    def _tv_exceeds(self, delta: Fraction) -> bool:
        r"""True if delta(0) > ``delta`` is proven by the Hellinger bound: delta(0) is the total
        variation distance of the composed pair, at least :math:`1 - \mathrm{BC}^T` with the
        Bhattacharyya coefficient :math:`\mathrm{BC} = \int\sqrt{pq} = e^{-\beta/2}(1 + \beta/2)`
        of one step (``proofs/verify_laplace_composition.py``), so epsilon > 0 without looking."""
        with workprec(128):
            return bool(-((self.steps * self._log_bc()).expm1()) > _q(delta))

    def _first_guess(self, delta: Fraction) -> Fraction:
        """Saddle-point approximation of epsilon(delta) (a guess): bisection on c of
        T log phi(c) - c eps(c) - log(c (1 + c) sd sqrt(2 pi)) = log delta, eps(c) = T phi'/phi."""
        T = self.steps
        lt = math.log(delta.numerator) - math.log(delta.denominator)
        with mpmath.workdps(30):
            beta = mpmath.mpf(self._beta.numerator) / self._beta.denominator

            def approx(c: Any) -> tuple[Any, Any]:
                p, p1, p2 = _mp_parts(beta, c)
                e = T * p1 / p
                sd = mpmath.sqrt(max(T * (p2 / p - (p1 / p) ** 2), mpmath.mpf(10) ** -30))
                return e, T * mpmath.log(p) - c * e - mpmath.log(c * (1 + c) * sd * mpmath.sqrt(2 * mpmath.pi))

            lo, hi = mpmath.mpf(10) ** -6, mpmath.mpf(1)
            while approx(hi)[1] > lt and hi < 1e12:
                lo, hi = hi, hi * 2
            for _ in range(50):
                mid = (lo + hi) / 2
                if approx(mid)[1] > lt:
                    lo = mid
                else:
                    hi = mid
            e = approx((lo + hi) / 2)[0]
        g = Fraction(float(e))
        return min(max(g, Fraction(0)), self._max_loss)


def _inversion_integrand(T: int, J: int, beta: arb, k0: arb, c: arb, phic: arb, ea: arb) -> Any:
    r"""The integrand of :meth:`LaplaceProfile._contour` in t (z = c + it): :math:`(\varphi(z)^T -
    \sum_{j \le J}\binom Tj a^{T-j}b^j)/\varphi(c)^T\,e^{-\varepsilon(z - c)}/(z(z + 1))`, enclosed on
    a ball by the mean-value form or the modulus bound, whichever is narrower (module docstring)."""
    half = arb(1) / 2
    i_unit = acb(0, 1)
    ca = acb(c)
    binoms = [comb(T, j) for j in range(J + 1)]

    def parts(z: acb) -> tuple[acb, acb]:
        a = ((beta * z).exp() + (-beta * (z + 1)).exp()) / 2
        w = z + half
        return a, k0 * (beta * w).sinh() / w

    def values(z: acb) -> tuple[acb, list[acb]]:
        a, b = parts(z)
        osc = (-ea * (z - ca)).exp()
        ar, br = a / phic, b / phic
        if J < 0:
            return ((ar + br) ** T) * osc, []
        # binom(T, j) ar^(T - j) br^j osc by products from ar^(T - J) (one power)
        pa = ar ** (T - J) * osc
        terms: list[acb] = [acb(0)] * (J + 1)
        for j in range(J, -1, -1):
            terms[j] = pa
            pa = pa * ar
        pb = acb(1)
        for j in range(J + 1):
            terms[j] = binoms[j] * terms[j] * pb
            pb = pb * br
        return ((ar + br) ** T) * osc, terms

    narrow = arb(2) ** (-(ctx.prec // 2))

    def f(t: acb, analytic: bool) -> acb:
        z = ca + i_unit * t
        point = t.real.rad() < narrow and t.imag.rad() < narrow  # (the quadrature nodes)
        if point:
            e_all, e_j = values(z)
        else:
            tm = acb(t.real.mid(), t.imag.mid())
            e_all, e_j = values(ca + i_unit * tm)
            dz = i_unit * (t - tm)
            e1, e2 = (beta * z).exp(), (-beta * (z + 1)).exp()
            w = z + half
            sh, ch = (beta * w).sinh(), (beta * w).cosh()
            a, a1 = (e1 + e2) / 2, beta * (e1 - e2) / 2
            b = k0 * sh / w
            b1 = k0 * (beta * w * ch - sh) / (w * w)
            # mean-value form: E(z) = E(z_m) exp(int G'), G' = T phi'/phi - eps (per term likewise)
            e_all = e_all * ((T * (a1 + b1) / (a + b) - ea) * dz).exp()
            if J >= 0:
                # exp(((T - j) a1/a + j b1/b - eps) dz) = u v^j
                u = ((T * a1 / a - ea) * dz).exp()
                v = ((b1 / b - a1 / a) * dz).exp()
                for j in range(J + 1):
                    e_j[j] = e_j[j] * u
                    u = u * v
            if not (e_all.is_finite() and all(v.is_finite() for v in e_j)):
                e_all, e_j = values(z)  # direct ball evaluation (valid, only wider)
        for v in e_j:
            e_all -= v
        value = e_all / (z * (z + 1))
        if point or (value.is_finite() and value.rel_accuracy_bits() >= 8):
            return value  # (the modulus bound is at least |value|: no narrower)
        bound = modulus_bound(z)
        if bound is not None and (not value.is_finite() or bound < value.rad()):
            return acb(arb(0, bound), arb(0, bound))
        return value

    def modulus_bound(z: acb) -> arb | None:
        # |a(z)| <= a(x), |b(z)| <= b(x) and |b(z)| <= k0 cosh(beta (x + 1/2)) / |z + 1/2|, x = Re z
        # (positive measures; |sinh| <= cosh of the real part), R_J is increasing in |a|, |b|,
        # and every bound below is log-convex in x: its largest value on the ball is at an end
        zz = (abs(z) * abs(z + 1)).lower()
        if not zz > 0:
            return None
        wmin = abs(z + half).lower()
        ends = [arb(z.real.lower()), arb(z.real.upper())]
        forms = []
        for x in ends:
            ax = ((beta * x).exp() + (-beta * (x + 1)).exp()) / 2 / phic
            osc = (-ea * (x - c)).exp()
            bxs = [k0 * (beta * (x + half)).sinh() / (x + half) if x != -half else k0 * beta]
            if wmin > 0:
                bxs.append(k0 * (beta * (x + half)).cosh() / arb(wmin))
            row = []
            for bx in bxs:
                bx = bx / phic
                row.append(((ax + bx) ** T * osc).upper())
                if J >= 0:
                    row.append((comb(T, J + 1) * bx ** (J + 1) * (ax + bx) ** (T - J - 1) * osc).upper())
            forms.append(row)
        best = min(max(forms[0][k], forms[1][k]) for k in range(len(forms[0])))
        return (arb(best) / arb(zz)).upper()

    return f


def _integral(f: Any, a: float, b: float, **kw: Any) -> acb:
    """arb's rigorous integration (``acb.integral``; a module function, so a test can watch the
    integrand's ball enclosures)."""
    return acb.integral(f, a, b, **kw)


def _min_arb(a: arb, b: arb) -> arb:
    """An upper bound's ball: the smaller of two nonnegative upper bounds (by their upper ends)."""
    return a if a.upper() <= b.upper() else b


def _pois_pmf(n: int, y: arb) -> arb:
    return (-y + n * y.log() - arb(n + 1).lgamma()).exp() if n > 0 else (-y).exp()


def _pois_ge(n: int, y: arb) -> arb:
    """A ball containing P(Poisson(y) >= n) (n >= 1): the regularized lower incomplete gamma
    function P(n, y), or, where that is not resolved and n + 1 > y, the bracket
    [P(K = n), P(K = n) / (1 - y/(n + 1))] (the ratio of consecutive terms is y/(n + m + 1) <= y/(n + 1))."""
    if y < n + 1:
        v = _pois_series(n, y, 1)
        if v is not None:
            return v
    v = y.gamma_lower(n, 1)
    if v.is_finite() and v.rel_accuracy_bits() > 30:
        return v
    if y < n + 1:
        p = _pois_pmf(n, y)
        return p.union(p / (1 - y / (n + 1)))
    return v if v.is_finite() else arb(0).union(arb(1))


#: the most terms :func:`_pois_series` sums (beyond, arb's incomplete gamma functions answer)
SERIES_TERMS = 50000


def _pois_series(n: int, y: arb, step: int) -> arb | None:
    r"""P(K >= n) (``step`` = 1, needs y < n + 1) or P(K <= n) (``step`` = -1, needs y > n), K ~
    Poisson(y), as P(K = n) times the sum of the ratios
    :math:`t_m = P(K = n + \mathrm{step}\cdot m)/P(K = n)`, all positive, summed in order until the
    rest is below the working precision; they fall geometrically (the ratio of consecutive ones is
    :math:`\rho_m = y/(n + m + 1)`, resp. :math:`(n - m)/y`, non-increasing in m), so the rest after
    :math:`t_m` is at most :math:`t_m\rho_m/(1 - \rho_m)`, added to the radius (nothing once the
    downward sum reaches m = n).  ``None`` when that takes more than :data:`SERIES_TERMS` terms or
    does not resolve (arb's incomplete gamma functions take up to a second where this is cheap)."""
    tol = arb(2) ** -(ctx.prec + 8)
    t = arb(1)
    total = arb(1)
    m = 0
    while True:
        if step > 0:
            rho = y / (n + m + 1)
        else:
            if m >= n:
                break  # the sum is complete
            rho = (n - m) / y
        if not rho.upper() < 1:
            return None
        t = t * rho
        total += t
        m += 1
        if (t * rho / (1 - rho)).upper() < (tol * total).lower():
            if step > 0 or m < n:
                nxt = y / (n + m + 1) if step > 0 else (n - m) / y
                total += arb(0).union((t * nxt / (1 - nxt)).upper())
            break
        if m >= SERIES_TERMS:
            return None
    v = _pois_pmf(n, y) * total
    return v if v.is_finite() and v.rel_accuracy_bits() > 30 else None


def _pois_le(n: int, y: arb) -> arb:
    """A ball containing P(Poisson(y) <= n): the regularized upper incomplete gamma function
    Q(n + 1, y), or, where that is not resolved and n < y, the bracket [P(K = n), P(K = n)/(1 - n/y)]
    (the ratio of consecutive terms downwards is m/y <= n/y)."""
    if y > n:
        v = _pois_series(n, y, -1)
        if v is not None:
            return v
    v = y.gamma_upper(n + 1, 1)
    if v.is_finite() and v.rel_accuracy_bits() > 30:
        return v
    if y > n:
        p = _pois_pmf(n, y)
        return p.union(p / (1 - n / y))
    return v if v.is_finite() else arb(0).union(arb(1))


def _capped_window(steps: int, h: Fraction, bits: int, limit: int, floor: float = -math.inf) -> tuple[int, int] | None:
    """The k summed by :meth:`LaplaceProfile._capped` (a float choice; the rest is bounded there):
    the k in [1, T] whose term P(K = k)(F(k-1) + c_(k-1)) is within about 2^-(bits+12) of the
    largest (from k = 1 when that is at most ``limit`` terms), ``(T + 1, T)`` when none matters next
    to P(K > T), ``None`` above ``limit`` terms or when the sum (at most T + 1 times the largest term
    or P(K > T)) would not exceed e^``floor`` (the caller would reject it)."""
    T = steps
    yq = h / 2
    if yq > 10**15:
        return (T + 1, T) if T < 10**14 else None  # P(K <= T) is astronomically small
    y = float(yq)
    log_y = math.log(y) if y > 0 else -math.inf
    lh = math.log(0.5)

    def lt(k: int) -> float:
        m = k - 1
        lp = -y + k * log_y - math.lgamma(k + 1)
        lb = math.lgamma(T + 1) - math.lgamma(m + 1) - math.lgamma(T - m + 1) + T * lh
        # F(m) <= b_m (T - m + 1) / (T - 2m + 1) below the median, F <= 1 above
        lf = lb + math.log((T - m + 1) / (T - 2 * m + 1)) if 2 * m < T else 0.0
        return lp + min(lf, 0.0)

    # the largest term (the log-terms are concave in k: ternary search on the integers)
    a, b = 1, T
    while b - a > 2:
        m1, m2 = a + (b - a) // 3, b - (b - a) // 3
        if lt(m1) < lt(m2):
            a = m1 + 1
        else:
            b = m2
    k_max = max(range(a, b + 1), key=lt)
    top = lt(k_max)
    if y > T + 1:
        top = max(top, 0.0 if y > 2 * T + 20 else math.log(0.5))  # P(K > T) is then large
    if top + math.log(T + 1) + 2 < floor:
        return None
    thr = top - (bits + 12) * math.log(2) - math.log(T + 1)
    if lt(k_max) < thr:
        return (T + 1, T)

    def reach(k: int, step: int, stop: int) -> int:
        """The last k from ``k`` in direction ``step`` (+-1) before ``stop`` with lt(k) >= thr."""
        d = 1
        while True:
            nxt = k + step * d
            if (step > 0 and nxt > stop) or (step < 0 and nxt < stop) or lt(nxt) < thr:
                break
            k, d = nxt, 2 * d
        lo, hi = 0, d  # k + step * lo passes, k + step * hi fails (or leaves the range)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            nxt = k + step * mid
            if (step > 0 and nxt > stop) or (step < 0 and nxt < stop) or lt(nxt) < thr:
                hi = mid
            else:
                lo = mid
        return k + step * lo

    k_lo, k_hi = reach(k_max, -1, 1), reach(k_max, 1, T)

    def log_pois(k: int) -> float:
        return -y + k * log_y - math.lgamma(k + 1)

    M = (T + 1) // 3

    def upper(n: int) -> float:
        """log of the bound on the terms above n: P(K >= n + 1) (their factors are at most 1), or
        the geometric one of :meth:`LaplaceProfile._capped` below M."""
        m = n + 1
        v = log_pois(m) - math.log1p(-y / (m + 1)) if m + 1 > y else 0.0
        r = y * (T - n) / ((n + 2) * (n + 1))
        if n < M and y < M and r < 1:
            lb = math.lgamma(T + 1) - math.lgamma(n + 1) - math.lgamma(T - n + 1) + T * lh
            geo = math.log(4) + log_pois(n + 1) + lb - math.log1p(-r)
            tail = log_pois(M + 2) - math.log1p(-y / (M + 3))
            v = min(v, max(geo, tail) + math.log(2))
        return v

    def lower(n: int) -> float:
        """log of the bound P(K <= n - 1) min(1, 2 F(n - 2)) on the terms below n, or the geometric one."""
        m = n - 1
        lp = log_pois(m) - math.log1p(-m / y) if m < y else 0.0
        v = lp + min(0.0, math.log(2) + lt(n - 1) - log_pois(n - 1))
        q = (n - 1) * (n - 2) / ((T - n + 3) * y)
        return min(v, math.log(2) + lt(n - 1) - math.log1p(-q)) if q < 1 else v

    # widen until the bounds used for the rest are negligible too (they are cruder than the terms)
    d = 1
    while k_hi < T and upper(k_hi) >= thr:
        k_hi, d = min(T, k_hi + d), 2 * d
    d = 1
    while k_lo > 1 and lower(k_lo) >= thr:
        k_lo, d = max(1, k_lo - d), 2 * d
    if k_hi <= min(limit, CAPPED_TERMS):
        k_lo = 1  # sum from the start: no bound on the first terms needed
    if k_hi - k_lo + 1 > limit:
        return None
    return k_lo, k_hi


def _subtracted_terms(steps: int, sd: float, log_mt: float, a_rel: float, tol: float, cap: int) -> int:
    """The number J of terms subtracted from the inversion integrand (a float choice): the least of
    3, 4, 6, 8, 12, 16 (at most ``cap``, the precision's allowance, and T) whose cut-off R (where
    the tail bound of :meth:`LaplaceProfile._contour` falls below ``tol``, doubling from
    max(16/sd, 1)) is at most twice the smallest; more terms cost more than the shorter range saves."""
    T = steps
    cands = sorted({min(T, j) for j in (3, 4, 6, 8, 12, 16) if j <= max(cap, 3)})
    log_tol = math.log(tol) if tol > 0 else -math.inf

    def needed(J: int) -> float:
        R = max(16.0 / sd, 1.0)
        if J >= T:
            return R  # nothing remains
        if log_mt > 700:
            return math.inf
        while R <= MAX_R:
            log_tail = (
                math.lgamma(T + 1) - math.lgamma(J + 2) - math.lgamma(T - J)
                + (J + 1) * log_mt
                + (T - J - 1) * math.log(a_rel + math.exp(log_mt) / R)
                - math.log(J + 2) - (J + 2) * math.log(R) - math.log(math.pi)
            )  # fmt: skip
            if log_tail < log_tol:
                return R
            R *= 2
        return math.inf

    rs = {J: needed(J) for J in cands}
    best = min(rs.values())
    return min(J for J in cands if rs[J] <= 2 * best)


def _cutoff(steps: int, sad: _Saddle, bits: int) -> int:
    r"""The first cut-off J tried by the truncated sum (a float guess; the sum extends it until
    its certified remainder is small enough): the least J with
    :math:`P(\mathrm{Bin}(T, p_c) > J) \le 2^{-\mathrm{bits} - 4} r`, r the saddle-point guess of
    delta over the remainder's factor :math:`\kappa(c)\varphi(c)^T e^{-c\varepsilon}`."""
    T, p = steps, min(max(sad.p_cont, 1e-300), 1 - 1e-16)
    c = max(sad.c, 2.0**-10)
    kappa = math.exp(c * math.log(c) - (1 + c) * math.log1p(c))
    ratio = 1 / (kappa * c * (1 + c) * max(sad.sd, 1e-300) * math.sqrt(2 * math.pi))
    goal = -(bits + 4) * math.log(2) + math.log(min(ratio, 1.0))
    lp, lq = math.log(p), math.log1p(-p)

    def log_pmf(j: int) -> float:
        return math.lgamma(T + 1) - math.lgamma(j + 1) - math.lgamma(T - j + 1) + j * lp + (T - j) * lq

    mean = T * p
    J = min(T, max(0, math.floor(mean)))
    while J < T:
        # P(X > J) <= pmf(J + 1) / (1 - rho), rho = the ratio bound of the following terms
        rho = (T - J - 1) * p / ((J + 2) * (1 - p))
        if rho < 1 and log_pmf(J + 1) - math.log1p(-rho) <= goal:
            break
        J += 1
    return J


def _dyadic(x: Fraction) -> Fraction:
    """``x`` rounded to 60 significant bits (a short rational for the next guess)."""
    if x == 0:
        return x
    e = x.numerator.bit_length() - x.denominator.bit_length()
    sh = 60 - e
    if sh > 0:
        return Fraction(round(x * (1 << sh)), 1 << sh)
    return Fraction(round(x / (1 << -sh)) * (1 << -sh))
