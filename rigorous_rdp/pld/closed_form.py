r"""Exact privacy profiles of compositions whose privacy-loss law is known in closed form.

Two ledgers are answered here without any discretisation, in ball arithmetic, to about
19 significant digits (the enclosure *is* the bracket of the optimal value: its two ends
differ only by the ball's width):

* **Gaussian mechanisms** (no sampling, sensitivity 1, any mix of noise multipliers
  :math:`\sigma_i`, each applied :math:`T_i` times).  The composed pair is one Gaussian pair
  :math:`(N(\mu, 1), N(0, 1))` with :math:`\mu^2 = \sum_i T_i/\sigma_i^2` (the product of
  Gaussians is a Gaussian; scale each coordinate by :math:`1/\sigma_i`), whose profile is
  (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13)

  .. math::
      \delta(\varepsilon) = \bar\Phi(a) - e^{\varepsilon}\bar\Phi(a + \mu),\qquad
      a = \frac{\varepsilon}{\mu} - \frac{\mu}{2} = \frac{2\varepsilon - \mu^2}{2\mu}.

  With Mills' ratio :math:`R(x) = \bar\Phi(x)/\varphi(x)` and :math:`e^\varepsilon
  \varphi(a + \mu) = \varphi(a)`, this is :math:`\delta = \varphi(a)\,(R(a) - R(a + \mu))`
  (used for :math:`a \ge 0`: no overflowing :math:`e^\varepsilon`, no difference of two
  tiny tails).  For :math:`\mu < 2^{-20}`, :math:`R(a) - R(a + \mu)` is its Taylor
  polynomial of order 5 in :math:`\mu` plus a Lagrange remainder evaluated on the ball
  :math:`X = [a, a + \mu]` (inclusion principle), with the derivatives
  :math:`R^{(k)} = (-1)^k M_k`, :math:`M_k(x) = \int_0^\infty t^k e^{-xt - t^2/2}\,dt \ge 0`.  For
  :math:`x > 2^{16}`, :math:`R(x)` is enclosed by two partial sums of its asymptotic
  series, which bracket it for every x > 0 (expand :math:`e^{-t^2/2}` in
  :math:`R(x) = \int_0^\infty e^{-xt - t^2/2}\,dt`; the partial sums of the exponential
  series of :math:`e^{-u}`, u >= 0, alternate around it):
  :math:`S_4(x) \le R(x) \le S_4(x) + 105/x^9`, :math:`S_4 = 1/x - 1/x^3 + 3/x^5 - 15/x^7`.

* **Randomized response** with probability p (:math:`p' = \max(p, 1-p)`), T times.  The
  composed loss is :math:`\ell_k = (2k - T)\ell` with :math:`\ell = \log(p'/(1-p'))`,
  :math:`k \sim \mathrm{Bin}(T, p')` under P, so
  :math:`\delta(\varepsilon) = \sum_{k:\,\ell_k > \varepsilon} P(k)\,(1 - e^{\varepsilon - \ell_k})`,
  a finite sum of non-negative terms.  Only a window of indices around the threshold and
  the mode is summed; the rest is bounded by geometric series, because the binomial
  pmf is log-concave (:math:`\rho_k = P(k+1)/P(k) = \frac{T-k}{k+1}\frac{p'}{1-p'}` decreases
  in k): :math:`\sum_{k > b} P(k) \le P(b)\rho_b/(1 - \rho_b)` when :math:`\rho_b < 1`, and
  :math:`\sum_{k < a} P(k) \le P(a)\sigma/(1 - \sigma)`, :math:`\sigma = 1/\rho_{a-1} < 1`.
  Every omitted term lies in :math:`[0, P(k)]`, so the omitted sum is enclosed by
  :math:`[0, \text{bound}]`.  Between two atoms :math:`\ell_{k-1} \le \varepsilon \le \ell_k`
  the profile is :math:`A_k - e^\varepsilon B_k` (:math:`A_k = P(K \ge k)`,
  :math:`B_k = Q(K \ge k)`), so :math:`\varepsilon(\delta)` is the closed form
  :math:`\ell_k + \log((A_k - \delta)/(e^{\ell_k} B_k))` on the piece where the profile
  crosses :math:`\delta`, the piece being certified by the profile at its two ends.

Both pairs are symmetric (the swapped pair has the same profile), so the add and remove
directions coincide.  :math:`\varepsilon(\delta)` of the Gaussian is found by a guess
(Newton on :math:`\log\delta`) and verified: :math:`\delta(a_-) > \delta \ge \delta(a_+)`
certified in ball arithmetic proves :math:`a_- < a^* \le a_+` because the profile is
decreasing.  Laplace mechanisms of one scale are answered exactly too, by
:mod:`rigorous_rdp.pld.laplace_exact` (finite mixture, truncated mixture with a Chernoff bound,
or Laplace inversion of the loss's moment generating function; no grid).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq

from .. import events as ev
from ..arith import Certified, accurate_bits, log_binomial_pmf, workprec
from .laplace_exact import LaplaceProfile
from .results import Bracket, PldDeltaResult, PldEpsilonResult, _bracket, decimal_text

__all__ = [
    "ClosedForm",
    "ExactDeltaResult",
    "ExactEpsilonResult",
    "GaussianComposition",
    "LaplaceComposition",
    "NullComposition",
    "RandomizedResponseComposition",
    "closed_form_of",
    "normal_isf_bracket",
]

#: relative accuracy aimed at (bits): about 19 significant digits
TARGET_BITS = 64
#: the working precision is doubled up to this before giving up on the requested accuracy
MAX_PREC = 1 << 13
_BIG = 1 << 16
_TINY_MU = Fraction(1, 1 << 20)
#: randomized response: profile values at the atoms decided in exact rationals up to this T
EXACT_STEPS = 3000


def _q(x: Fraction | int) -> arb:
    x = Fraction(x)
    return arb(fmpq(x.numerator, x.denominator))


#: bracket ends below 2^-TINY_BITS are replaced by 0 (lower) and 2^-TINY_BITS (upper): a Fraction
#: with a denominator of 2^(10^30) (delta at an astronomically large epsilon) overflows, and one of
#: 2^(7e9) (sigma 1e4, epsilon 10) takes minutes; 2^27 bits keep e.g. 5.28e-21714737 (sigma 1e4,
#: epsilon 1; 72 million bits, 0.2 s) exact
TINY_BITS = 1 << 27


def _frac(x: arb) -> Fraction:
    """The exact midpoint of a ball as a Fraction."""
    m, e = x.mid().man_exp()
    man, exp = int(m), int(e)
    return Fraction(man * (1 << exp)) if exp >= 0 else Fraction(man, 1 << -exp)


def _end(x: arb, up: bool) -> Fraction:
    """``_frac(x)`` for an exact end of a bracket of a non-negative quantity, except when its
    absolute value is below :math:`2^{-T}` (T = ``TINY_BITS``): then 0 for a lower end and
    :math:`2^{-T}` for an upper end (larger, so still an upper end)."""
    m, e = x.mid().man_exp()
    man, exp = int(m), int(e)
    if exp < 0 and man.bit_length() + exp < -TINY_BITS:
        return Fraction(1, 1 << TINY_BITS) if up else Fraction(0)
    return _frac(x)


def _bracket_of(v: Certified) -> Bracket:
    """The exact-ended bracket that encloses the ball of ``v`` (clipped below at 0: epsilon and
    delta are non-negative); the ends are the ball's own endpoints, rounded outward."""
    if isinstance(v, Bracket):
        return v
    with workprec(v.prec + 64):
        lo, up = _end(v.ball.lower(), False), _end(v.ball.upper(), True)
    return _bracket(max(Fraction(0), lo), up)


@dataclass(frozen=True)
class BallBracket(Bracket):
    r"""A bracket of a value too small for an exact rational end (a delta of
    :math:`10^{-10^{11}}` would need a denominator of :math:`10^{11}` digits): its JSON prints
    the ball's own ends rounded outward (through a logarithm, :func:`~rigorous_rdp.arith.decimal_upper`),
    so the reported bracket keeps the ball's relative width.  ``lo_exact`` / ``up_exact`` are
    rational ends that enclose the ball too, wider where the ball is below
    :math:`2^{-2^{27}}` (0 and :math:`2^{-2^{27}}`, as :func:`_end`): still valid for any reader."""

    @classmethod
    def of(cls, v: Certified) -> BallBracket:
        with workprec(v.prec + 64):
            lo, up = _end(v.ball.lower(), False), _end(v.ball.upper(), True)
        return cls(v.ball, v.prec, lo_exact=max(Fraction(0), lo), up_exact=up)

    def to_json(self, sig: int | None = None) -> dict:
        from ..arith import decimal_lower, decimal_upper

        n = 17 if sig is None else sig
        lower = decimal_lower(self.ball, n) if self.ball.lower() > 0 else "0"
        return {"lower": lower, "upper": decimal_upper(self.ball, n)}


def _flog(x: Fraction) -> float:
    """log of a positive rational in floats (no underflow of tiny rationals)."""
    return math.log(x.numerator) - math.log(x.denominator)


def _unit(x: arb) -> arb:
    """``x`` intersected with [0, 1] (a probability difference), when they overlap."""
    box = arb(0).union(arb(1))
    return x.intersection(box) if x.overlaps(box) else x


class ClosedForm:
    """An exact privacy profile: ``delta_ball`` (enclosure at the working precision) and a
    certified ``epsilon``."""

    description: str

    def delta_ball(self, eps: Fraction) -> arb:  # pragma: no cover - abstract
        raise NotImplementedError

    def parameters(self) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def epsilon(self, delta: Fraction, width: Fraction) -> Certified:  # pragma: no cover - abstract
        raise NotImplementedError

    def epsilon_result(self, delta: Fraction, width: Fraction) -> ExactEpsilonResult | None:
        """The :class:`ExactEpsilonResult` at ``delta`` (bracket width <= ``width``), or
        ``None`` when it cannot be certified (the caller then takes the grid path)."""
        try:
            v = self.epsilon(delta, width)
        except ArithmeticError:
            return None  # undecided (an exact tie beyond the exact range): the grid path answers
        b = _bracket_of(v)
        return ExactEpsilonResult(
            b, delta, 0, 0, Fraction(0), {"remove": (b, 0)}, exact=self.description, parameters=self.parameters()
        )

    def delta_result(self, eps: Fraction) -> ExactDeltaResult:
        """The :class:`ExactDeltaResult` at ``eps``."""
        v = self.delta(eps)
        b: Bracket
        if v.ball.is_finite() and v.ball.upper() > arb(2) ** -10000:
            # exact rational ends clipped to [0, 1] (the ball's own ends may poke out by rounding)
            with workprec(v.prec + 64):
                lo, up = _end(v.ball.lower(), False), _end(v.ball.upper(), True)
            b = _bracket(max(Fraction(0), lo), min(Fraction(1), up))
        elif v.ball.is_finite() and v.ball.upper() > 0:
            b = BallBracket.of(v)  # e.g. 1e-217147241102 (Gaussian at eps 1e6): no rational of that size
        else:
            b = _bracket_of(v)
        return ExactDeltaResult(
            b, eps, 0, 0, Fraction(0), {"remove": (b, 0)}, exact=self.description, parameters=self.parameters()
        )

    def delta(self, eps: Fraction) -> Certified:
        """Certified enclosure of the optimal delta at ``eps >= 0`` (relative width about
        2^-64, or the last valid enclosure when the precision cap is reached)."""
        return self.delta_bits(eps, TARGET_BITS)

    def delta_bits(self, eps: Fraction, bits: int) -> Certified:
        """Certified enclosure of the optimal delta at ``eps >= 0`` (relative width about
        2^-``bits``, or the last valid enclosure when the precision cap is reached)."""
        prec = max(128, 2 * bits)
        last: arb | None = None
        while True:
            with workprec(prec):
                ball = self.delta_ball(eps)
                if ball.is_finite():
                    ball = _unit(ball)
            if ball.is_finite():
                last = ball
                if accurate_bits(ball, bits):
                    return Certified(ball, prec)
            if prec >= MAX_PREC:
                if last is None:
                    return Certified(arb(0).union(arb(1)), prec)
                return Certified(last, prec)
            prec *= 2

    def _certainly(self, eps_or_a: Any, target: Fraction, above: bool, fn: Any = None) -> bool:
        """True if the profile at the point is certainly ``> target`` (``above``) or
        certainly ``<= target`` (not ``above``); precision raised while undecided."""
        f = self.delta_ball if fn is None else fn
        prec = 128
        while prec <= MAX_PREC:
            with workprec(prec):
                t = _q(target)
                d = f(eps_or_a)
                if d.is_finite():
                    if above and d > t:
                        return True
                    if not above and d <= t:
                        return True
                    if (above and d <= t) or (not above and d > t):
                        return False
            prec *= 2
        return False


# ---------------------------------------------------------------------------
# nothing released
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NullComposition(ClosedForm):
    r"""A ledger whose every step is a no-op (Poisson sampling with probability q = 0, or nothing
    composed): the output law is the same with and without the record, so the pair is
    :math:`(P, P)`, :math:`\delta(\varepsilon) = \sup_S P(S)(1 - e^{\varepsilon}) = 0` for
    :math:`\varepsilon \ge 0`, and the optimal epsilon is 0 at every delta."""

    description = (
        "no step depends on the record (sampling probability q = 0): the output laws with and without it are"
        " equal, delta(eps) = 0 for every eps >= 0 and epsilon = 0 at every delta"
    )

    def parameters(self) -> dict[str, Any]:
        return {}

    #: what :meth:`tradeoff` computes
    tradeoff_description = "1 - x: no test does better than a coin flip"

    def delta_ball(self, eps: Fraction) -> arb:
        return arb(0)

    def tradeoff(self, x: Fraction, bits: int = TARGET_BITS) -> arb:
        """The trade-off curve of the pair (P, P): 1 - x (exact)."""
        return arb(1) - _q(x)

    def epsilon(self, delta: Fraction, width: Fraction) -> Certified:
        return Certified(arb(0), 128)


#: the closed form of a ledger of no-ops
NULL = NullComposition()


# ---------------------------------------------------------------------------
# Gaussian
# ---------------------------------------------------------------------------


def _sf(x: arb) -> arb:
    r""":math:`\bar\Phi(x)`."""
    return (x / arb(2).sqrt()).erfc() / 2


def _pdf(x: arb) -> arb:
    return (-(x * x) / 2).exp() / (2 * arb.pi()).sqrt()


def _asym(x: arb) -> tuple[arb, arb]:
    """``(S4(x), 105/x^9)``: Mills' ratio lies in ``[S4, S4 + 105/x^9]`` for x > 0."""
    i = 1 / x
    i2 = i * i
    s4 = i * (1 - i2 * (1 - i2 * (3 - 15 * i2)))
    return s4, 105 * i * i2 * i2 * i2 * i2


def _mills(x: arb) -> arb:
    r"""Mills' ratio :math:`R(x) = \bar\Phi(x)/\varphi(x)`."""
    if x > _BIG:
        s, r = _asym(x)
        return s.union(s + r)
    return _sf(x) * (2 * arb.pi()).sqrt() * ((x * x) / 2).exp()


def _one_minus_xr(x: arb) -> arb:
    r""":math:`1 - xR(x) > 0` (= :math:`-R'(x)`); for large x from the asymptotic
    bracket: :math:`1/x^2 - 3/x^4 + 15/x^6 - 105/x^8 \le 1 - xR \le 1/x^2 - 3/x^4 + 15/x^6`."""
    if x > _BIG:
        i2 = 1 / (x * x)
        hi = i2 * (1 - i2 * (3 - 15 * i2))
        return (hi - 105 * i2 * i2 * i2 * i2).union(hi)
    return 1 - x * _mills(x)


def _moments(x: arb, n: int) -> list[arb]:
    r""":math:`M_k(x) = \int_0^\infty t^k e^{-xt - t^2/2}\,dt = (-1)^k R^{(k)}(x)`, k = 0..n
    (:math:`M_0 = R`, :math:`M_1 = 1 - xR`, :math:`M_{k+1} = k M_{k-1} - x M_k` by parts)."""
    M = [_mills(x), _one_minus_xr(x)]
    for k in range(1, n):
        M.append(k * M[k - 1] - x * M[k])
    return M


@dataclass(frozen=True)
class GaussianComposition(ClosedForm):
    r"""Gaussian mechanisms composed: one Gaussian pair with :math:`\mu^2` = ``mu2`` (exact)."""

    mu2: Fraction
    #: what :meth:`tradeoff` computes
    tradeoff_description = "G_mu(x) = Phi(Phi^-1(1 - x) - mu) of mu-GDP, Dong, Roth, Su 2022"
    description = (
        "composed Gaussian mechanisms = one Gaussian pair N(mu, 1) vs N(0, 1), mu^2 = sum steps/sigma^2; "
        "delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) in ball arithmetic (no discretisation)"
    )

    def parameters(self) -> dict[str, Any]:
        return {"mu_squared": decimal_text(self.mu2)}

    def _mu(self) -> arb:
        return _q(self.mu2).sqrt()

    def delta_a(self, a: Fraction | arb) -> arb:
        r"""Enclosure of :math:`\delta` at :math:`a = \varepsilon/\mu - \mu/2` (exact or a ball)."""
        mu = self._mu()
        aa = _q(a) if isinstance(a, Fraction) else a
        if self.mu2 < _TINY_MU * _TINY_MU:
            # Taylor expansion of R(a) - R(a + mu) to order 5, remainder on the ball [a, a + mu]
            M = _moments(aa, 5)
            M6 = _moments(aa.union(aa + mu), 6)[6]
            total = arb(0)
            term = arb(1)
            for n in range(1, 6):
                term = term * mu / n
                total += (-1) ** (n + 1) * term * M[n]
            rem = term * mu / 6 * arb(0).union(M6.upper().max(arb(0)))
            return _pdf(aa) * (total - rem)
        if aa >= 0:
            return _pdf(aa) * (_mills(aa) - _mills(aa + mu))
        return _sf(aa) - _pdf(aa) * _mills(aa + mu)

    def _a_of(self, eps: Fraction) -> arb:
        return _q(2 * eps - self.mu2) / (2 * self._mu())

    def delta_ball(self, eps: Fraction) -> arb:
        return self.delta_a(self._a_of(eps))

    def _slope(self, a: arb) -> arb:
        r""":math:`d\delta/da = -\mu\,\varphi(a) R(a + \mu)`."""
        mu = self._mu()
        return -mu * _pdf(a) * _mills(a + mu)

    def _newton(self, target: Fraction, a_hi: Fraction, prec: int) -> Fraction:
        """A guess of the root a* of delta(a) = target (Newton on log delta, bracketed)."""
        with workprec(prec):
            mu = self._mu()
            logt = _q(target).log()
            lo = _frac(-mu / 2)
            hi = a_hi
            a = hi
            tol = Fraction(1, 1 << (prec - 24))
            bound = arb(2) ** 64 * (1 + abs(_q(lo)) + abs(_q(hi)))
            for _ in range(150):
                aa = _q(a)
                d = self.delta_a(aa)
                if d.is_finite() and d.mid() > 0:
                    g = d.log() - logt
                    if g.mid() > 0:
                        lo = a
                    else:
                        hi = a
                    gp = self._slope(aa) / d
                    cand = aa - g / gp
                    if cand.is_finite() and gp.mid() < 0 and abs(cand.mid()) < bound:
                        c = _frac(cand)
                        if abs(c - a) <= tol * (1 + abs(a)):
                            return c  # converged (a step within the noise may leave the bracket)
                        if lo < c < hi:
                            a = c
                            continue
                # bisection when Newton leaves the bracket (or cannot be evaluated)
                nxt = (lo + hi) / 2
                if abs(nxt - a) <= tol * (1 + abs(a)):
                    return nxt
                a = nxt
            return a

    def epsilon(self, delta: Fraction, width: Fraction) -> Certified:
        """Certified enclosure of the optimal epsilon at ``delta`` (width <= ``width``)."""
        if self._certainly(Fraction(0), delta, above=False):
            return Certified(arb(0), 128)
        with workprec(128):
            # Phi_bar(a0) = delta (for delta > 1/2 through 1 - delta: no rounding to erfcinv(2))
            small = delta <= Fraction(1, 2)
            a0 = (2 * _q(delta if small else 1 - delta)).erfcinv() * arb(2).sqrt() * (1 if small else -1)
            # delta(a) < Phi_bar(a) <= delta for a >= a0 (a guess bound only)
            a_hi = _frac(a0.upper()) + Fraction(1, 1 << 40)
        # an upper bound on mu (integer square root): the bracket width is 2 mu r
        mu_hi = Fraction(math.isqrt(math.ceil(self.mu2 * 4**64)) + 1, 2**64)
        for prec in (128, 256, 512, 1024, 2048, 4096, MAX_PREC):
            a = self._newton(delta, a_hi, prec)
            # half-width in a: relative 2^-68 of eps/mu = a + mu/2, and 2 mu r <= width / 2
            # (no smaller than (1 + |a|) 2^-3000: beyond that the bracket is returned wider
            # than requested, still valid, as the grid path does under its cost cap)
            r = min(max(a + mu_hi / 2, Fraction(1, 1 << 40)) / (1 << 68), width / (4 * mu_hi))
            r = max(r, (1 + abs(a)) / (1 << 3000))
            lo_a, hi_a = a - r, a + r
            if self._certainly(hi_a, delta, False, self.delta_a) and self._certainly(lo_a, delta, True, self.delta_a):
                with workprec(max(prec, 128)):
                    mu = self._mu()
                    half = _q(self.mu2) / 2
                    e_lo = (mu * _q(lo_a) + half).lower()
                    e_hi = (mu * _q(hi_a) + half).upper()
                    ball = e_lo.union(e_hi)
                    if not e_lo > 0:
                        ball = arb(0).union(e_hi)
                    return Certified(ball, prec)
        raise ArithmeticError("pld closed form: could not certify the Gaussian epsilon")

    def tradeoff(self, x: Fraction, bits: int = TARGET_BITS) -> arb:
        r"""Enclosure of the trade-off curve :math:`G_\mu(x) = \Phi(\Phi^{-1}(1 - x) - \mu) =
        \bar\Phi(\mu - z_x)`, :math:`z_x = \bar\Phi^{-1}(x) = \Phi^{-1}(1 - x)`, at a false-positive rate
        :math:`0 \le x \le 1` (relative width about 2^-``bits``).

        :math:`G_\mu = T(N(0, 1), N(\mu, 1))` is the trade-off function of the composed pair (Dong,
        Roth, Su 2022, Def. 2.7 and Cor. 3.3 (v2): T composed Gaussian steps are
        :math:`\mu`-GDP with :math:`\mu^2 = \sum_i T_i/\sigma_i^2`, exactly); it is symmetric, so
        it equals the envelope of the pair's privacy profile over :math:`\varepsilon \ge 0`
        (their Prop. 2.12).  :math:`z_x` is enclosed by :func:`normal_isf_bracket` and
        :math:`\bar\Phi` is decreasing, so :math:`G_\mu(x) \in [\bar\Phi(\mu - z_-), \bar\Phi(\mu - z_+)]`.

        Raises:
            ArithmeticError: the quantile could not be certified below the precision cap.
        """
        if x <= 0:
            return arb(1)
        if x >= 1:
            return arb(0)
        mu_f = math.sqrt(float(self.mu2))
        # half-width of the quantile bracket: the relative change of Phi_bar(t) per unit of t is at
        # most 1 + |t| (Mills' ratio), so 2^-(bits + 2) / (2 + |z| + mu) gives about 2^-bits
        r = Fraction(1, 1 << (bits + 2)) / Fraction(2 + _isf_size(x) + mu_f)
        z_lo, z_hi = normal_isf_bracket(x, r)
        prec = max(128, 2 * bits)
        while True:
            with workprec(prec):
                mu = self._mu()
                g = _sf(mu - _q(z_lo)).lower().union(_sf(mu - _q(z_hi)).upper())
                g = _unit(g)
            if accurate_bits(g, bits - 2) or prec >= MAX_PREC:
                return g
            prec *= 2


def _isf_size(x: Fraction) -> float:
    r"""A float above :math:`|\bar\Phi^{-1}(x)|` for 0 < x < 1 (a choice of a width only):
    :math:`\bar\Phi(z) \le e^{-z^2/2}/2` for z >= 0 gives :math:`|z_x| \le \sqrt{2\log(1/(2m))}`,
    m = min(x, 1 - x)."""
    m = min(x, 1 - x)
    return math.sqrt(max(0.0, -2.0 * (_flog(m) + math.log(2.0)))) + 1.0


def normal_isf_bracket(x: Fraction, r: Fraction) -> tuple[Fraction, Fraction]:
    r"""Exact rationals :math:`z_- \le z_x \le z_+`, :math:`z_+ - z_- \le 2r` (or wider when the
    precision cap is reached first), around the normal quantile :math:`z_x = \bar\Phi^{-1}(x)`,
    :math:`0 < x < 1`.

    A guess :math:`z` (the midpoint of Arb's ``erfcinv``, at rising precision) is certified by
    the signs :math:`\bar\Phi(z - r) \ge x \ge \bar\Phi(z + r)` in ball arithmetic: as
    :math:`\bar\Phi` is decreasing, :math:`z_x` lies between them.  The guess is only a guess:
    the enclosure rests on the two certified comparisons.

    Raises:
        ArithmeticError: not certified at the precision cap.
    """
    if not 0 < x < 1:
        raise ValueError(f"the quantile needs 0 < x < 1. Found {x}.")
    small = x <= Fraction(1, 2)
    prec = 128
    while prec <= MAX_PREC:
        with workprec(prec):
            g = (2 * _q(x if small else 1 - x)).erfcinv() * arb(2).sqrt()
            if g.is_finite():
                z = _frac(g) if small else -_frac(g)
                # no narrower than the guess can be at this precision
                rr = max(r, (1 + abs(z)) / (1 << max(8, prec - 16)))
                lo, hi = z - rr, z + rr
                t = _q(x)
                if _sf(_q(lo)) >= t and _sf(_q(hi)) <= t:
                    return lo, hi
        prec *= 2
    raise ArithmeticError(f"pld closed form: the normal quantile at {float(x)!r} was not certified")


# ---------------------------------------------------------------------------
# randomized response
# ---------------------------------------------------------------------------


def epsilon_on_piece(
    piece: Callable[[], tuple[arb, arb, arb, arb]], delta: Fraction, width: Fraction, what: str
) -> Certified:
    r"""The epsilon at ``delta`` on a certified piece :math:`[\ell_{k-1}, \ell_k]` of an atomic loss,
    where :math:`\delta(\varepsilon) = A - e^{\varepsilon - \ell_k} S`: :math:`\varepsilon = \ell_k +
    \log((A - \delta)/S)`, intersected with the piece, at rising precision until it is accurate
    and at most ``width`` wide.  ``piece()`` gives :math:`(A, S, \ell_k, \max(\ell_{k-1}, 0))` at the
    working precision."""
    prec = 128
    while True:
        with workprec(prec):
            A, S, lk, lo_e = piece()
            eps = lk + ((A - _q(delta)) / S).log()
            if eps.is_finite():
                box = lo_e.lower().union(lk.upper())
                eps = eps.intersection(box) if eps.overlaps(box) else eps
                if accurate_bits(eps, TARGET_BITS) and 2 * eps.rad() <= _q(width):
                    return Certified(eps, prec)
        if prec >= MAX_PREC:
            if eps.is_finite():
                return Certified(eps, prec)
            raise ArithmeticError(f"pld closed form: {what} epsilon not resolved")
        prec *= 2


def binomial_tail_sums(T: int, a: Fraction, r_: Fraction, j: int, E: arb) -> tuple[arb, arb, arb]:
    r"""For :math:`K \sim \mathrm{Bin}(T, a)` with pmf ``P``, a rational :math:`0 < r < 1`,
    :math:`0 \le j \le T` and a ball :math:`0 \le E \le 1`: enclosures of
    :math:`A = \sum_{i \ge j} P(i)`, :math:`S = \sum_{i \ge j} P(i) r^{i-j}` and
    :math:`H = \sum_{i \ge j} P(i)(1 - E r^{i-j})` (module docstring: a window around the threshold
    and the mode, the rest bounded by geometric series)."""
    bits = ctx.prec + 24
    sd = math.sqrt(T * float(a) * float(1 - a))
    W = math.ceil(1.25 * sd * math.sqrt(2 * math.log(2) * bits)) + bits // 8 + 4  # a choice
    m = min(T, math.floor((T + 1) * a))
    lo = j if j >= m - W else m - W
    hi = min(T, max(lo, m) + W)
    la, l1a = _q(a).log(), _q(1 - a).log()
    r = _q(r_)
    ratio = _q(a / (1 - a))
    P = log_binomial_pmf(T, lo, la, l1a).exp()
    w = r ** (lo - j)
    A = arb(0)
    S = arb(0)
    H = arb(0)
    scale = arb(2) ** (ctx.prec + 8)
    ratio_f = math.exp(min(700.0, _flog(a) - _flog(1 - a)))
    for i in range(lo, hi + 1):
        A += P
        S += P * w
        H += P * (1 - E * w)
        if i < hi:
            # stop early once the geometric tail bound is negligible (a choice only)
            if i > m + 4 and (i - lo) % 32 == 0 and (T - i) * ratio_f / (i + 1) < 0.9 and P * scale * 10 < H.min(S):
                hi = i
                break
            P = P * (T - i) * ratio / (i + 1)
            w = w * r
    bound = arb(0)
    if lo > j:
        sig = _q(Fraction(lo) * (1 - a) / ((T - lo + 1) * a))
        if not sig < 1:
            return arb("nan"), arb("nan"), arb("nan")
        bound += log_binomial_pmf(T, lo, la, l1a).exp() * sig / (1 - sig)
    if hi < T:
        rho = _q(Fraction(T - hi) * a / ((hi + 1) * (1 - a)))
        if not rho < 1:
            return arb("nan"), arb("nan"), arb("nan")
        bound += P * rho / (1 - rho)
    extra = arb(0).union(bound.upper())
    return A + extra, S + extra, H + extra


@dataclass(frozen=True)
class RandomizedResponseComposition(ClosedForm):
    r"""``steps`` randomized responses with :math:`p' = \max(p, 1 - p)` = ``p`` (> 1/2)."""

    p: Fraction
    steps: int
    description = (
        "composed randomized response: loss (2k - T) log(p/(1-p)) with k ~ Binomial(T, p); delta(eps) "
        "an exact finite sum in ball arithmetic (window around threshold and mode, geometric tail bounds)"
    )

    def parameters(self) -> dict[str, Any]:
        return {"p": decimal_text(self.p), "steps": self.steps}

    # -- the binomial law -----------------------------------------------------

    @property
    def _mode(self) -> int:
        return min(self.steps, math.floor((self.steps + 1) * self.p))

    def _ell(self) -> arb:
        return (_q(self.p) / _q(1 - self.p)).log()

    def _sums(self, j: int, E: arb) -> tuple[arb, arb, arb]:
        r"""For :math:`0 \le j \le T` and a ball :math:`0 \le E \le 1`: enclosures of
        :math:`A = \sum_{i \ge j} P(i)`, :math:`S = \sum_{i \ge j} P(i) r^{i-j}` and
        :math:`H = \sum_{i \ge j} P(i)(1 - E r^{i-j})`, :math:`r = ((1-p)/p)^2`."""
        return binomial_tail_sums(self.steps, self.p, ((1 - self.p) / self.p) ** 2, j, E)

    # -- profile ----------------------------------------------------------------

    def delta_ball(self, eps: Fraction) -> arb:
        T = self.steps
        if self.p == Fraction(1, 2):
            return arb(0)
        ell = self._ell()
        ea = _q(eps)
        if ea >= T * ell:
            return arb(0)
        # first index with loss (2k - T) ell > eps (certified below; a float guess first)
        k = max(0, math.floor((T + float(eps) / float(ell.mid())) / 2) - 1)
        while k > 0 and not (2 * (k - 1) - T) * ell <= ea:
            k -= 1  # the float guess was too high: every skipped index must have loss <= eps
        while k <= T:
            loss = (2 * k - T) * ell
            if loss > ea:
                break
            if not (loss <= ea or (eps == 0 and 2 * k == T)):
                return arb("nan")  # undecided at this precision
            k += 1
        if k > T:
            return arb(0)
        E = (ea - (2 * k - T) * ell).exp()
        return self._sums(k, E)[2]

    def _bp(self, k: int) -> arb:
        r""":math:`\delta(\ell_k)` for :math:`0 \le k < T` (from the next atom on)."""
        r = _q(((1 - self.p) / self.p) ** 2)
        return self._sums(k + 1, r)[2]

    def _exact_value(self, k: int | None) -> Fraction:
        r"""The profile at the atom :math:`\ell_k` (or at 0 for ``k=None``) as an exact rational:
        :math:`\sum_{i \ge j} P(i)(1 - ((1-p)/p)^{m_i})` with :math:`m_i = 2(i - k)` (or
        :math:`2i - T`), in integers over the common denominator :math:`b^T a^M` (p = a/b)."""
        T, a, b = self.steps, self.p.numerator, self.p.denominator
        c = b - a
        j, base = (T // 2 + 1, T) if k is None else (k + 1, 2 * k)
        top = 2 * T - base
        num = 0
        for i in range(j, T + 1):
            m = 2 * i - base
            num += comb(T, i) * a**i * c ** (T - i) * (a**m - c**m) * a ** (top - m)
        return Fraction(num, b**T * a**top)

    def _above(self, k: int | None, delta: Fraction) -> bool:
        """Whether the profile at the atom l_k (at 0 for ``k=None``) is > delta: decided in
        ball arithmetic, else (equality is possible: both are rational) exactly for small T."""
        prec = 128
        while prec <= 1024:
            with workprec(prec):
                t = _q(delta)
                d = self.delta_ball(Fraction(0)) if k is None else self._bp(k)
                if d.is_finite():
                    if d > t:
                        return True
                    if d <= t:
                        return False
            prec *= 2
        if self.steps <= EXACT_STEPS:
            return self._exact_value(k) > delta
        raise ArithmeticError("pld closed form: undecided comparison of the profile with delta")

    # -- trade-off curve ------------------------------------------------------------

    #: what :meth:`tradeoff` computes
    tradeoff_description = (
        "the Neyman-Pearson curve of (Bin(T, p), Bin(T, 1 - p)) in the number of kept bits, linear between"
        " its atoms, as exact binomial sums"
    )

    def _cdf_guess(self, x: Fraction) -> int:
        """A float guess of the first k with P(K <= k) >= x, K ~ Bin(T, p) (log-space sums)."""
        T, p = self.steps, self.p
        sd = math.sqrt(T * float(p) * float(1 - p))
        lo = max(0, self._mode - math.ceil(60 * sd) - 10)
        hi = min(T, self._mode + math.ceil(60 * sd) + 10)
        ks = np.arange(lo, hi + 1, dtype=np.float64)
        lp0 = math.lgamma(T + 1) - math.lgamma(lo + 1) - math.lgamma(T - lo + 1)
        lp0 += lo * _flog(p) + (T - lo) * _flog(1 - p)
        with np.errstate(all="ignore"):
            steps_ = np.log((T - ks[:-1]) / (ks[:-1] + 1)) + _flog(p) - _flog(1 - p)
            logp = np.concatenate([[lp0], lp0 + np.cumsum(steps_)])
            logcdf = np.logaddexp.accumulate(logp)
        idx = np.nonzero(logcdf >= _flog(x))[0]
        return lo + int(idx[0]) if len(idx) else hi

    def _exact_cdf(self, k: int) -> Fraction:
        """P(K <= k) for K ~ Bin(T, p) as an exact rational (small T only)."""
        T, a, b = self.steps, self.p.numerator, self.p.denominator
        c = b - a
        return Fraction(sum(comb(T, i) * a**i * c ** (T - i) for i in range(0, min(k, T) + 1)), b**T)

    def tradeoff(self, x: Fraction, bits: int = TARGET_BITS) -> arb:
        r"""Enclosure of the trade-off curve of the composed pair at false-positive rate x.

        In the number K of kept bits the pair is :math:`(P, Q) = (\mathrm{Bin}(T, p'),
        \mathrm{Bin}(T, 1 - p'))`; the likelihood ratio :math:`Q(k)/P(k) = \rho^{2k - T}`,
        :math:`\rho = (1 - p')/p' < 1`, decreases in k, so the most powerful test at level x
        (Neyman-Pearson, randomised on one atom) rejects :math:`K < k` and K = k with probability
        :math:`(x - P(K < k))/P(k)`, k the first index with :math:`P(K \le k) \ge x`:

        .. math:: f(x) = Q(K \ge k) - (x - P(K < k))\,\rho^{2k - T},

        linear between the atoms.  The pair is symmetric (:math:`k \mapsto T - k` swaps P and Q), so
        f is symmetric and is the envelope of the pair's privacy profile (Dong, Roth, Su 2022, Prop.
        2.12).  The tails are binomial sums (:func:`binomial_tail_sums` of Bin(T, 1 - p'):
        :math:`Q(K \ge k)`, and :math:`P(K < k) = Q(K > T - k)` by the symmetry); the index k is
        certified by :math:`P(K < k) \le x \le P(K \le k)` in ball arithmetic (any such k gives f:
        it is continuous).

        Raises:
            ArithmeticError: k could not be certified (e.g. x exactly at an atom's cumulative mass).
        """
        T, p = self.steps, self.p
        if x <= 0:
            return arb(1)
        if x >= 1:
            return arb(0)
        if p == Fraction(1, 2):
            return arb(1) - _q(x)  # P = Q: no test beats a coin flip
        a = 1 - p  # Bin(T, 1 - p') = Q

        def q_tail(j: int) -> arb:  # Q(K >= j)
            if j <= 0:
                return arb(1)
            if j > T:
                return arb(0)
            return binomial_tail_sums(T, a, a, j, arb(1))[0]

        def side(k: int, t: arb, below: arb, upto: arb) -> int | None:
            """-1 / +1: the index is below / above k; 0: P(K < k) <= x <= P(K <= k) proven."""
            if below > t and k > 0:
                return -1
            if upto < t and k < T:
                return 1
            if below <= t and upto >= t:
                return 0
            if T > EXACT_STEPS:
                return None
            # undecided: x may equal a cumulative mass (both rational): decide exactly
            if self._exact_cdf(k - 1) > x:
                return -1
            return 1 if self._exact_cdf(k) < x else 0

        k = self._cdf_guess(x)
        prec = max(128, 2 * bits)
        while prec <= MAX_PREC:
            with workprec(prec):
                t = _q(x)
                for _ in range(8):  # walk from the guess to a certified index
                    below, upto = q_tail(T - k + 1), q_tail(T - k)  # P(K < k), P(K <= k)
                    if not (below.is_finite() and upto.is_finite()):
                        break
                    move = side(k, t, below, upto)
                    if move is None:
                        break
                    if move:
                        k += move
                        continue
                    # any enclosure of P(K < k) gives one of f; f lies in [Q(K >= k + 1), Q(K >= k)]
                    f = q_tail(k) - (t - below) * _q(Fraction(1 - p, p)) ** (2 * k - T)
                    box = q_tail(k + 1).lower().union(q_tail(k).upper())
                    f = _unit(f.intersection(box) if f.overlaps(box) else f)
                    if f.is_finite() and accurate_bits(f, bits - 2):
                        return f
                    break
            prec *= 2
        raise ArithmeticError("pld closed form: the randomized-response trade-off was not certified")

    def _guess_piece(self, delta: Fraction) -> int:
        """A float guess of the first index k > T/2 with delta(l_k) <= delta (log-space sums)."""
        T, p = self.steps, self.p
        # the crossing lies within 60 standard deviations of the mode unless delta is within
        # e^-1800 of 0 or 1 (a guess only: certify() falls back to a bisection)
        sd = math.sqrt(T * float(p) * float(1 - p))
        half = max(T // 2, self._mode - math.ceil(60 * sd) - 10)
        top = min(T, self._mode + math.ceil(60 * sd) + 10)
        ks = np.arange(half, top + 1, dtype=np.float64)
        lpq = _flog(p) - _flog(1 - p)
        lp0 = math.lgamma(T + 1) - math.lgamma(half + 1) - math.lgamma(T - half + 1)
        lp0 += half * _flog(p) + (T - half) * _flog(1 - p)
        with np.errstate(all="ignore"):
            steps_ = np.log((T - ks[:-1]) / (ks[:-1] + 1)) + lpq
            logp = np.concatenate([[lp0], lp0 + np.cumsum(steps_)])
            # suffix sums from index k + 1 on, in log space
            log_a = np.logaddexp.accumulate(logp[::-1])[::-1]
            log_c = np.logaddexp.accumulate((logp - 2 * lpq * ks)[::-1])[::-1]
            la = np.append(log_a[1:], -np.inf)
            lu = np.append(log_c[1:], -np.inf) + 2 * lpq * ks
            d = np.exp(la) * -np.expm1(np.minimum(lu - la, 0.0))
            d = np.where(np.isfinite(d), d, 0.0)
        idx = np.nonzero(d <= float(delta))[0]
        k = half + int(idx[0]) if len(idx) else top
        return min(T, max(T // 2 + 1, k))

    def _bisect_piece(self, delta: Fraction) -> int:
        """The same guess by bisection on 64-bit ball evaluations (the fallback)."""
        lo, hi = self.steps // 2, self.steps  # delta(l_half) > t >= delta(l_T) = 0
        while hi - lo > 1:
            mid = (lo + hi) // 2
            with workprec(64):
                above = bool(self._bp(mid).mid() > _q(delta).mid())
            if above:
                lo = mid
            else:
                hi = mid
        return hi

    def epsilon(self, delta: Fraction, width: Fraction) -> Certified:
        """Certified enclosure of the optimal epsilon at ``delta``."""
        T = self.steps
        if self.p == Fraction(1, 2):
            return Certified(arb(0), 128)
        half = T // 2  # loss at index <= half is <= 0, delta there >= delta(0)
        k = self._guess_piece(delta)
        zero = Certified(arb(0), 128)

        def certify(k: int) -> int:
            """-1 / +1: the piece is left / right of k; 0: delta(l_{k-1}) > t >= delta(l_k)
            proven (for l_{k-1} <= 0 through delta(0) > t: delta is non-increasing);
            2: delta(0) <= t proven (epsilon = 0)."""
            if k - 1 > half:
                if not self._above(k - 1, delta):
                    return -1
            elif not self._above(None, delta):
                return 2
            if k < T and self._above(k, delta):
                return 1
            return 0

        for _ in range(6):
            move = certify(k)
            if move == 2:
                return zero
            if move == 0:
                break
            k = min(T, max(half + 1, k + move))
        else:
            k = self._bisect_piece(delta)
            move = certify(k)
            if move == 2:
                return zero
            if move != 0:
                raise ArithmeticError("pld closed form: could not certify the randomized-response piece")

        def piece() -> tuple[arb, arb, arb, arb]:
            ell = self._ell()
            A, S, _ = self._sums(k, arb(1))
            lk = (2 * k - T) * ell
            return A, S, lk, (lk - 2 * ell).max(arb(0))

        return epsilon_on_piece(piece, delta, width, "randomized-response")


# ---------------------------------------------------------------------------
# Laplace (the computations live in laplace_exact)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LaplaceComposition(LaplaceProfile, ClosedForm):
    r"""``steps`` Laplace mechanisms of scale ``scale``: :class:`~.laplace_exact.LaplaceProfile`
    answered through the :class:`ClosedForm` interface."""


# ---------------------------------------------------------------------------
# results and dispatch
# ---------------------------------------------------------------------------


def _exact_json(res: Any) -> dict:
    v = res.value.to_json()
    return {
        res.quantity: v,
        res.target_name: decimal_text(res.target),
        "method": "pld",
        "pld": {
            "exact": res.exact,
            "parameters": res.parameters,
            "directions": (
                {k: {res.quantity: b.to_json()} for k, (b, _) in res.directions.items()}
                if len(res.directions) > 1
                else {"remove": {res.quantity: v, "note": "symmetric pair: add = remove"}}
            ),
        },
    }


@dataclass(frozen=True)
class ExactEpsilonResult(PldEpsilonResult):
    """A :class:`PldEpsilonResult` from a closed form (``grid`` = 0: no discretisation)."""

    exact: str = ""
    parameters: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return _exact_json(self)


@dataclass(frozen=True)
class ExactDeltaResult(PldDeltaResult):
    """A :class:`PldDeltaResult` from a closed form (``grid`` = 0: no discretisation)."""

    exact: str = ""
    parameters: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return _exact_json(self)


def _unsampled(event: ev.DpEvent) -> ev.DpEvent:
    """The inner event of Poisson sampling with q = 1 under add-remove (the mechanism itself), else ``event``."""
    if (
        isinstance(event, ev.PoissonSampledEvent)
        and event.sampling_probability == 1
        and event.adjacency is ev.Adjacency.ADD_REMOVE
    ):
        return event.event
    return event


def _laplace_of(ledger: list[tuple[ev.DpEvent, int]]) -> ClosedForm | None:
    """The exact Laplace composition of a ledger of Laplace mechanisms of one scale, else ``None``."""
    scales: set[Fraction] = set()
    steps = 0
    for event, count in ledger:
        event = _unsampled(event)
        if not isinstance(event, ev.LaplaceEvent):
            return None
        scales.add(Fraction(event.scale))
        steps += count
    if len(scales) != 1:
        return None
    return LaplaceComposition(scales.pop(), steps)


def closed_form_of(ledger: list[tuple[ev.DpEvent, int]]) -> ClosedForm | None:
    """The closed form of a ledger of leaf events with counts > 0, or ``None`` if it has none:
    every event a Gaussian (also Poisson with q = 1 under add-remove), every event a
    randomized response with the same ``max(p, 1 - p)``, or every event a Laplace mechanism
    of the same scale (:mod:`~rigorous_rdp.pld.laplace_exact`)."""
    if not ledger:
        return None
    lap = _laplace_of(ledger)
    if lap is not None:
        return lap
    mu2 = Fraction(0)
    rr: set[Fraction] = set()
    steps = 0
    for event, count in ledger:
        event = _unsampled(event)
        if isinstance(event, ev.GaussianEvent):
            mu2 += Fraction(count) / event.noise_multiplier**2
        elif isinstance(event, ev.RandomizedResponseEvent):
            rr.add(max(event.p, 1 - event.p))
            steps += count
        else:
            return None
    if rr and mu2 == 0 and len(rr) == 1:
        return RandomizedResponseComposition(rr.pop(), steps)
    if not rr and mu2 > 0:
        return GaussianComposition(mu2)
    return None
