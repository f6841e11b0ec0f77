r"""Certified privacy profiles of single mechanisms (one dominating pair each).

For a pair of distributions :math:`(P, Q)` the privacy loss is
:math:`L = \log(dP/dQ)` and the hockey-stick divergence (privacy profile) is

.. math::
    \delta(\varepsilon) = \sup_S P(S) - e^{\varepsilon} Q(S)
        = P(L > \varepsilon) - e^{\varepsilon} Q(L > \varepsilon).

Written as a function of :math:`x = e^{\varepsilon} \in [0, \infty)`,
:math:`v(x) = P(L > \log x) - x\,Q(L > \log x)` is convex and non-increasing,
:math:`v(0) = 1`, :math:`v(x) \ge (1 - x)_+`; its right derivative at :math:`x`
is :math:`-Q(L > \log x)` and its left derivative :math:`-Q(L \ge \log x)`
(differentiate the integral :math:`v(x) = \int (1 - x e^{-\ell})_+ \, dP_L(\ell)`
under the integral sign; a jump of the derivative sits at every atom of L).

An *oracle* returns, for an exact rational :math:`\varepsilon`, arb enclosures of

* ``delta``: :math:`\delta(\varepsilon)`,
* ``dlow``: :math:`\delta(\varepsilon) - (1 - e^{\varepsilon}) = e^{\varepsilon} Q(L \le \varepsilon) - P(L \le \varepsilon)`
  computed from the lower tails directly (no cancellation at the bottom of the range),
* ``qgt``: :math:`Q(L > \varepsilon)` and ``qge``: :math:`Q(L \ge \varepsilon)`.

All formulas are closed forms in :math:`\mathrm{erfc}` and :math:`\exp` evaluated
in ball arithmetic, so each enclosure contains the exact value (inclusion principle).

Dominating pairs used (sensitivity 1, the conventions of
:mod:`rigorous_rdp.events`):

* Gaussian: :math:`(N(1, \sigma^2), N(0, \sigma^2))`; the swapped pair has the same
  profile (reflect :math:`x \mapsto 1 - x`).
* Poisson-subsampled Gaussian, add/remove: "remove"
  :math:`(qN(1,\sigma^2) + (1-q)N(0,\sigma^2),\ N(0,\sigma^2))` and "add", the swapped pair
  (Zhu, Dong, Wang, "Optimal accounting of differential privacy via characteristic
  function", AISTATS 2022, Proposition 30 / Balle et al. 2018 Thm 8; the pairs are tight:
  they are attained by two neighbouring datasets).
* Laplace: :math:`(\mathrm{Lap}(0, b), \mathrm{Lap}(1, b))`, symmetric in the same way.
* Randomized response with probability p: :math:`((p, 1-p), (1-p, p))`, symmetric.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from flint import arb, ctx, fmpq

__all__ = [
    "DominatingPair",
    "Profile",
    "ProfilePoint",
    "gaussian_profile",
    "laplace_profile",
    "poisson_gaussian_profile",
    "randomized_response_profile",
]


class ProfilePoint(NamedTuple):
    """Enclosures at one :math:`\\varepsilon` (see the module docstring)."""

    delta: arb
    dlow: arb
    qgt: arb
    qge: arb


@dataclass(frozen=True)
class Profile:
    r"""A certified privacy profile of one dominating pair.

    Attributes:
        name: a short description (for certificates and messages).
        oracle: exact rational :math:`\varepsilon` -> :class:`ProfilePoint` (arb, at the
            caller's working precision).
        support: ``(lo, hi)`` exact bounds of the support of L under P when known
            (``None`` for an unbounded side); outside it the profile is exactly
            :math:`1 - e^{\varepsilon}` (below) or ``0`` (above).
        screen_delta: float estimate of :math:`\delta(\varepsilon)` (range selection only).
        screen_dlow: float estimate of ``dlow`` (range selection only).
        key: a hashable description used to merge identical pairs.
        screen_arrays: optional vectorised form of both screens (a float array of
            epsilons -> ``(delta, dlow)`` arrays), used by float screens when present.
        kinks: for a pair on finitely many outcomes, float values of every loss where the
            profile may bend (between two neighbouring ones it is linear in
            :math:`e^\varepsilon`), so the discretisation needs vertices only next to them
            (a choice of vertices: any set is valid); ``None``: unknown.
    """

    name: str
    oracle: Callable[[Fraction], ProfilePoint]
    support: tuple[Fraction | None, Fraction | None]
    screen_delta: Callable[[float], float]
    screen_dlow: Callable[[float], float]
    key: tuple
    screen_arrays: Callable[[Any], tuple[Any, Any]] | None = None
    kinks: tuple[float, ...] | None = None


@dataclass(frozen=True)
class DominatingPair:
    """The dominating pair(s) of one step: a profile per direction ("remove": the pair
    (P, Q) of removing a record, "add": the swapped one; symmetric mechanisms have one).

    Attributes:
        remove: the profile of the remove direction.
        add: the profile of the add direction.
        tight: False when the pairs only dominate the mechanism (FSwoR): then the lower end
            of a bracket bounds the pairs' epsilon, not the mechanism's, and is reported as 0.
        attained: for a pair that only dominates, two profiles ``(remove, add)`` that ARE the
            output pair of one fixed pair of neighbouring datasets (and its swap); composed over
            a ledger whose pairs all name the same ``attained_key`` (the same datasets), their
            lower end is a lower end of the mechanism's (:mod:`~rigorous_rdp.pld.accountant`).
        attained_key: which pair of datasets attains ``attained``.
    """

    remove: Profile
    add: Profile
    tight: bool = True
    attained: tuple[Profile, Profile] | None = None
    attained_key: tuple = ()


def _q(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


_SQRT2: dict[int, arb] = {}


def _sf(z: arb) -> arb:
    """:math:`\\bar\\Phi(z) = \\mathrm{erfc}(z/\\sqrt2)/2` (the ball of sqrt 2 built once per precision)."""
    r2 = _SQRT2.get(ctx.prec)
    if r2 is None:
        r2 = _SQRT2[ctx.prec] = arb(2).sqrt()
    return (z / r2).erfc() / 2


def _sf_cdf(z: arb) -> tuple[arb, arb]:
    """Both tails :math:`(\\bar\\Phi(z), \\Phi(z))`; the smaller one by erfc, the other
    as its complement (no cancellation: the complement is at least 1/2)."""
    if z >= 0:
        s = _sf(z)
        return s, 1 - s
    c = _sf(-z)
    return 1 - c, c


def _fexp(x: float) -> float:
    """exp for the float screens, saturating instead of raising OverflowError."""
    return math.exp(min(x, 700.0))


def _fsf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2.0))


# ---------------------------------------------------------------------------
# Poisson-subsampled Gaussian (q = 1: the Gaussian)
# ---------------------------------------------------------------------------


def _threshold(eps: arb, e_eps: arb, q: arb, sigma: arb, q_is_one: bool) -> arb:
    r"""The point :math:`x^*` with :math:`\ell(x^*) = \varepsilon` for the remove-pair loss
    :math:`\ell(x) = \log(1 - q + q\,e^{(2x - 1)/(2\sigma^2)})` (increasing in x):
    :math:`x^* = \sigma^2 \log((e^\varepsilon - 1 + q)/q) + 1/2`, valid for
    :math:`e^\varepsilon > 1 - q`.  For q = 1 this is :math:`\sigma^2\varepsilon + 1/2`,
    used directly (forming :math:`e^\varepsilon - 1 + 1` would lose all digits of a
    tiny :math:`e^\varepsilon`)."""
    if q_is_one:
        return sigma * sigma * eps + arb(1) / 2
    return sigma * sigma * ((e_eps - 1 + q) / q).log() + arb(1) / 2


def poisson_gaussian_profile(q: Fraction, sigma: Fraction, direction: str) -> Profile:
    r"""Profile of the Poisson-subsampled Gaussian dominating pair.

    ``direction="remove"``: :math:`P = qN(1,\sigma^2) + (1-q)N(0,\sigma^2)`, :math:`Q = N(0,\sigma^2)`.
    With :math:`X \sim` either, :math:`L > \varepsilon \iff X > x^*(\varepsilon)` when
    :math:`e^\varepsilon > 1 - q` (and always otherwise), so

    .. math::
        P(L > \varepsilon) = q\bar\Phi((x^* - 1)/\sigma) + (1 - q)\bar\Phi(x^*/\sigma),\quad
        Q(L > \varepsilon) = \bar\Phi(x^*/\sigma).

    ``direction="add"``: the swapped pair; its loss is :math:`-\ell(X)` with
    :math:`X \sim N(0, \sigma^2)`, and :math:`L > \varepsilon \iff X < x^*(-\varepsilon)`
    when :math:`e^{-\varepsilon} > 1 - q` (never otherwise), so
    :math:`P(L > \varepsilon) = \Phi(y/\sigma)`, :math:`Q(L > \varepsilon) =
    q\Phi((y-1)/\sigma) + (1-q)\Phi(y/\sigma)` with :math:`y = x^*(-\varepsilon)`.

    The loss has no atoms (``qge = qgt``).  Support of the remove loss:
    :math:`[\log(1-q), \infty)`; of the add loss: :math:`(-\infty, -\log(1-q)]`
    (for q = 1 both are unbounded).
    """
    if not 0 < q <= 1 or sigma <= 0:
        raise ValueError(f"q must be in (0, 1] and sigma > 0. Found q={float(q)!r}, sigma={float(sigma)!r}.")
    if direction not in ("remove", "add"):
        raise ValueError(f"direction must be remove or add. Found {direction!r}.")
    pair = _PoissonGaussian(q, sigma, direction)
    if q == 1:
        support: tuple[Fraction | None, Fraction | None] = (None, None)
        name = f"gaussian(sigma={sigma})"
        key: tuple[object, ...] = ("gaussian", sigma)
    else:
        # log(1 - q) is irrational for rational 0 < q < 1; exact rational bounds are not
        # needed: the oracle decides e^eps vs 1 - q in ball arithmetic.
        support = (None, None)
        name = f"poisson-gaussian(q={q}, sigma={sigma}, {direction})"
        key = ("poisson-gaussian", q, sigma, direction)
    return Profile(name, pair.oracle, support, pair.screen_delta, pair.screen_dlow, key, pair.screen_arrays)


class _PoissonGaussian:
    """The certified oracle and the float screens of :func:`poisson_gaussian_profile`."""

    def __init__(self, q: Fraction, sigma: Fraction, direction: str):
        self.q, self.sigma, self.direction = q, sigma, direction
        self.fq, self.fs = float(q), float(sigma)
        self.log1mq = math.log1p(-self.fq) if self.fq < 1 else -math.inf
        self._balls: dict[int, tuple[arb, arb, arb]] = {}

    def oracle(self, eps: Fraction) -> ProfilePoint:
        q = self.q
        # q, sigma and 1 - q as balls, built once per working precision (the same balls every call)
        consts = self._balls.get(ctx.prec)
        if consts is None:
            qa = _q(q)
            consts = self._balls[ctx.prec] = (qa, _q(self.sigma), 1 - qa)
        qa, sa, omq = consts
        ea = _q(eps)
        e = ea.exp()
        one = arb(1)
        if self.direction == "remove":
            if q != 1 and not (e > omq):
                # e^eps <= 1 - q (certainly, eps is exact and log(1-q) irrational unless q=0):
                # L > eps almost surely.
                if not (e <= omq):
                    raise ArithmeticError("undecided comparison e^eps vs 1-q")
                return ProfilePoint(one - e, arb(0), one, one)
            xs = _threshold(ea, e, qa, sa, q == 1)
            z1, z0 = (xs - 1) / sa, xs / sa
            s1, c1 = _sf_cdf(z1)
            s0, c0 = _sf_cdf(z0)
            pgt = qa * s1 + omq * s0
            qgt = s0
            ple = qa * c1 + omq * c0
            qle = c0
            return ProfilePoint(pgt - e * qgt, e * qle - ple, qgt, qgt)
        # add direction
        einv = one / e
        if q != 1 and not (einv > omq):
            if not (einv <= omq):
                raise ArithmeticError("undecided comparison e^-eps vs 1-q")
            zero = arb(0)
            return ProfilePoint(zero, e - 1, zero, zero)
        y = _threshold(-ea, einv, qa, sa, q == 1)
        z1, z0 = (y - 1) / sa, y / sa
        s1, c1 = _sf_cdf(z1)
        s0, c0 = _sf_cdf(z0)
        pgt = c0
        qgt = qa * c1 + omq * c0
        ple = s0
        qle = qa * s1 + omq * s0
        return ProfilePoint(pgt - e * qgt, e * qle - ple, qgt, qgt)

    def fthreshold(self, eps: float) -> float:
        # x*(eps) in floats: log((e^eps - 1 + q)/q) = log1p(expm1(eps)/q), and eps itself
        # for q = 1 (no cancellation for very negative eps); -inf where the float
        # argument is not positive (screening only)
        fq, fs = self.fq, self.fs
        if fq == 1:
            return fs * fs * eps + 0.5
        u = math.expm1(eps) / fq
        return fs * fs * math.log1p(u) + 0.5 if u > -1.0 else -math.inf

    def screen_delta(self, eps: float) -> float:
        fq, fs, log1mq = self.fq, self.fs, self.log1mq
        if self.direction == "remove":
            if fq < 1 and eps <= log1mq:
                return 1.0 - _fexp(eps)
            xs = self.fthreshold(eps)
            return fq * _fsf((xs - 1) / fs) + (1 - fq) * _fsf(xs / fs) - _fexp(eps) * _fsf(xs / fs)
        if fq < 1 and -eps <= log1mq:
            return 0.0
        y = self.fthreshold(-eps)
        return _fsf(-y / fs) - _fexp(eps) * (fq * _fsf(-(y - 1) / fs) + (1 - fq) * _fsf(-y / fs))

    def screen_dlow(self, eps: float) -> float:
        fq, fs, log1mq = self.fq, self.fs, self.log1mq
        if self.direction == "remove":
            if fq < 1 and eps <= log1mq:
                return 0.0
            xs = self.fthreshold(eps)
            return _fexp(eps) * _fsf(-xs / fs) - (fq * _fsf(-(xs - 1) / fs) + (1 - fq) * _fsf(-xs / fs))
        if fq < 1 and -eps <= log1mq:
            return _fexp(eps) - 1.0
        y = self.fthreshold(-eps)
        return _fexp(eps) * (fq * _fsf((y - 1) / fs) + (1 - fq) * _fsf(y / fs)) - _fsf(y / fs)

    def screen_arrays(self, eps: Any) -> tuple[Any, Any]:
        """Both screens on a float array (numpy/scipy; the same formulas as above)."""
        import numpy as np
        from scipy.special import erfc

        fq, fs, log1mq = self.fq, self.fs, self.log1mq

        def sf(z: Any) -> Any:
            return 0.5 * erfc(z / math.sqrt(2.0))

        def thr(e: Any) -> Any:
            if fq == 1:
                return fs * fs * e + 0.5
            with np.errstate(all="ignore"):
                u = np.expm1(e) / fq
                return np.where(u > -1.0, fs * fs * np.log1p(np.maximum(u, -1.0 + 1e-300)) + 0.5, -np.inf)

        e = np.asarray(eps, dtype=float)
        ex = np.exp(np.minimum(e, 700.0))
        with np.errstate(all="ignore"):
            if self.direction == "remove":
                xs = thr(e)
                d = fq * sf((xs - 1) / fs) + (1 - fq) * sf(xs / fs) - ex * sf(xs / fs)
                lw = ex * sf(-xs / fs) - (fq * sf(-(xs - 1) / fs) + (1 - fq) * sf(-xs / fs))
                if fq < 1:
                    below = e <= log1mq
                    d = np.where(below, 1.0 - ex, d)
                    lw = np.where(below, 0.0, lw)
                return d, lw
            y = thr(-e)
            d = sf(-y / fs) - ex * (fq * sf(-(y - 1) / fs) + (1 - fq) * sf(-y / fs))
            lw = ex * (fq * sf((y - 1) / fs) + (1 - fq) * sf(y / fs)) - sf(y / fs)
            if fq < 1:
                above = -e <= log1mq
                d = np.where(above, 0.0, d)
                lw = np.where(above, ex - 1.0, lw)
            return d, lw


def gaussian_profile(sigma: Fraction) -> Profile:
    r"""Gaussian mechanism: the pair :math:`(N(1,\sigma^2), N(0,\sigma^2))` (q = 1 above).

    Its loss is :math:`N(\mu^2/2, \mu^2)` under P with :math:`\mu = 1/\sigma`."""
    return poisson_gaussian_profile(Fraction(1), sigma, "remove")


# ---------------------------------------------------------------------------
# Laplace
# ---------------------------------------------------------------------------


def laplace_profile(scale: Fraction) -> Profile:
    r"""Laplace mechanism: :math:`P = \mathrm{Lap}(0, b)`, :math:`Q = \mathrm{Lap}(1, b)`.

    The loss is :math:`\ell(x) = (|x - 1| - |x|)/b`: :math:`\beta = 1/b` for
    :math:`x \le 0` (P-mass 1/2), :math:`-\beta` for :math:`x \ge 1` (P-mass
    :math:`e^{-\beta}/2`) and :math:`(1 - 2x)/b` in between.  For
    :math:`-\beta \le \varepsilon < \beta`, :math:`L > \varepsilon \iff x < x_\varepsilon =
    (1 - b\varepsilon)/2 \in (0, 1]`, hence
    :math:`P(L > \varepsilon) = 1 - e^{-x_\varepsilon/b}/2`,
    :math:`Q(L > \varepsilon) = e^{(x_\varepsilon - 1)/b}/2`;
    :math:`Q(L \ge -\beta) = 1` and :math:`Q(L \ge \beta) = e^{-\beta}/2` (the atoms).
    """
    b = scale
    beta = 1 / b

    def oracle(eps: Fraction) -> ProfilePoint:
        e = _q(eps).exp()
        one, zero = arb(1), arb(0)
        if eps >= beta:
            qge = (-_q(beta)).exp() / 2 if eps == beta else zero
            return ProfilePoint(zero, e - 1, zero, qge)
        if eps < -beta:
            return ProfilePoint(one - e, zero, one, one)
        xe = (1 - b * eps) / 2
        ba = _q(b)
        pgt = one - (-_q(xe) / ba).exp() / 2
        qgt = ((_q(xe) - 1) / ba).exp() / 2
        ple = (-_q(xe) / ba).exp() / 2
        qle = one - qgt
        qge = one if eps == -beta else qgt
        return ProfilePoint(pgt - e * qgt, e * qle - ple, qgt, qge)

    fb = float(b) if b < 10**300 else math.inf  # a float screen (scale up to 1e1000 is accepted)

    def screen_delta(eps: float) -> float:
        if eps >= 1 / fb:
            return 0.0
        if eps < -1 / fb:
            return 1 - math.exp(eps)
        xe = (1 - fb * eps) / 2
        return 1 - math.exp(-xe / fb) / 2 - math.exp(eps) * math.exp((xe - 1) / fb) / 2

    def screen_dlow(eps: float) -> float:
        return screen_delta(eps) - (1 - math.exp(eps))

    return Profile(f"laplace(b={b})", oracle, (-beta, beta), screen_delta, screen_dlow, ("laplace", b))


# ---------------------------------------------------------------------------
# randomized response
# ---------------------------------------------------------------------------


def randomized_response_profile(p: Fraction) -> Profile:
    r"""Binary randomized response, reporting the true bit with probability p.

    With :math:`p' = \max(p, 1-p)` the pair is :math:`((p', 1 - p'), (1 - p', p'))`
    (p and 1 - p give the same mechanism up to relabelling the output).  The loss
    takes :math:`\pm\ell`, :math:`\ell = \log(p'/(1-p'))`, with P-masses
    :math:`p', 1 - p'` and Q-masses :math:`1 - p', p'`.  For p = 1/2 the loss is 0.
    """
    pp = max(p, 1 - p)
    ell_f = math.log(float(pp) / float(1 - pp))

    def oracle(eps: Fraction) -> ProfilePoint:
        e = _q(eps).exp()
        one, zero = arb(1), arb(0)
        pa = _q(pp)
        ell = (pa / (1 - pa)).log()
        ea = _q(eps)
        if pp == Fraction(1, 2):
            if eps >= 0:
                return ProfilePoint(zero, e - 1, zero, one if eps == 0 else zero)
            return ProfilePoint(one - e, zero, one, one)
        if ea >= ell:
            return ProfilePoint(zero, e - 1, zero, zero)
        if ea < -ell:
            return ProfilePoint(one - e, zero, one, one)
        if not (ea > -ell):
            raise ArithmeticError("undecided comparison eps vs -log(p/(1-p))")
        if not (ea < ell):
            raise ArithmeticError("undecided comparison eps vs log(p/(1-p))")
        pgt, qgt = pa, 1 - pa
        return ProfilePoint(pgt - e * qgt, e * pa - (1 - pa), qgt, qgt)

    def screen_delta(eps: float) -> float:
        if eps >= ell_f:
            return 0.0
        if eps < -ell_f:
            return 1 - math.exp(eps)
        return float(pp) - math.exp(eps) * float(1 - pp)

    def screen_dlow(eps: float) -> float:
        return screen_delta(eps) - (1 - math.exp(eps))

    # support bounds must be exact rationals: take the rational enclosure [-c, c] with
    # c >= ell (the profile is exactly linear outside the true support, so a wider
    # rational window is still exact).
    c = Fraction(math.ceil(ell_f * 2**20) + 1, 2**20)
    return Profile(f"randomized-response(p={p})", oracle, (-c, c), screen_delta, screen_dlow, ("rr", pp))
