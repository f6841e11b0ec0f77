r"""Exact composition of a pair on two outcomes: randomized response under Poisson sampling.

**The pair.**  Randomized response with :math:`p' = \max(p, 1-p)` has the dominating pair
:math:`((p', 1-p'), (1-p', p'))`; under Poisson sampling with probability q (add/remove) the
remove pair is :math:`(P, Q) = (qP_0 + (1-q)Q_0, Q_0)` and the add pair its swap
(Zhu, Dong, Wang 2022, Proposition 30; :mod:`rigorous_rdp.pld.pairs`).  Both live on two
outcomes, so every direction is a pair :math:`(\mathrm{Bern}(a), \mathrm{Bern}(c))`, and after
relabelling the outcomes (which changes no divergence) :math:`a > c`:

* remove: :math:`a = qp' + (1-q)(1-p')`, :math:`c = 1 - p'`;
* add, the swap :math:`(\mathrm{Bern}(c), \mathrm{Bern}(a))` relabelled:
  :math:`a = p'`, :math:`c = q(1-p') + (1-q)p'`.

**Composition (exact).**  T steps of one pair are the product pair; the number K of outcomes
"1" is a sufficient statistic, :math:`K \sim \mathrm{Bin}(T, a)` under P and
:math:`\mathrm{Bin}(T, c)` under Q, and the loss at :math:`K = k` is

.. math:: \ell_k = T\ell_0 + kD,\qquad \ell_0 = \log\frac{1-a}{1-c} < 0,\quad
          D = \log\frac{a(1-c)}{c(1-a)} > 0,

increasing in k.  With :math:`Q(k) = P(k)e^{-\ell_k}` the profile is the finite sum of
non-negative terms

.. math:: \delta(\varepsilon) = \sum_{k \ge j} P(k)\,(1 - e^{\varepsilon - \ell_k})
          = \sum_{k \ge j} P(k)\,(1 - E r^{k-j}),\qquad E = e^{\varepsilon - \ell_j},\
          r = e^{-D} = \frac{c(1-a)}{a(1-c)} \in (0, 1),

j the first index with :math:`\ell_j > \varepsilon`, and on the piece
:math:`\ell_{k-1} \le \varepsilon \le \ell_k`, :math:`\delta(\varepsilon) = A_k - e^{\varepsilon -
\ell_k} S_k` with :math:`A_k = \sum_{i\ge k} P(i)`, :math:`S_k = \sum_{i \ge k} P(i) r^{i-k}`, so
:math:`\varepsilon(\delta) = \ell_k + \log((A_k - \delta)/S_k)` on the piece that crosses
:math:`\delta`.  For symmetric randomized response (q = 1) this is
:class:`~rigorous_rdp.pld.closed_form.RandomizedResponseComposition` (``a = p'``, ``c = 1 - p'``).

**Sums.**  Only a window of indices around the mode and the threshold is summed; the binomial
pmf is log-concave (:math:`\rho_k = P(k+1)/P(k) = \frac{T-k}{k+1}\frac{a}{1-a}` decreases in k),
so :math:`\sum_{k > b} P(k) \le P(b)\rho_b/(1-\rho_b)` when :math:`\rho_b < 1` and
:math:`\sum_{j \le k < w} P(k) \le P(w)\sigma/(1-\sigma)`, :math:`\sigma = 1/\rho_{w-1} =
\frac{w(1-a)}{(T-w+1)a} < 1`.  Every omitted term of A, S or the profile lies in
:math:`[0, P(k)]` (:math:`0 \le E r^{k-j} \le 1`), so each omitted sum is enclosed by
:math:`[0, \text{bound}]`.

**The two directions.**  The mechanism's profile under add/remove is the maximum of the two
directions' profiles; its epsilon at delta is the larger of the two epsilons.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from .. import events as ev
from ..arith import Certified, workprec
from .closed_form import (
    MAX_PREC,
    ClosedForm,
    ExactDeltaResult,
    ExactEpsilonResult,
    RandomizedResponseComposition,
    _bracket_of,
    _q,
    binomial_tail_sums,
    epsilon_on_piece,
)
from .results import Bracket, _as_bracket, _bracket, decimal_text

__all__ = ["TwoPointComposition", "poisson_randomized_response_composition", "two_point_of"]


@dataclass(frozen=True)
class _Direction:
    """``steps`` compositions of the pair ``(Bern(a), Bern(c))``, ``0 < c < a < 1``."""

    a: Fraction
    c: Fraction
    steps: int

    # -- the law -----------------------------------------------------------------

    def loss(self, k: int) -> arb:
        r""":math:`\ell_k = \log(a^k (1-a)^{T-k} / (c^k (1-c)^{T-k}))`."""
        a, c, T = self.a, self.c, self.steps
        return k * (_q(a) / _q(c)).log() + (T - k) * (_q(1 - a) / _q(1 - c)).log()

    def _loss_is_zero(self, k: int) -> bool:
        """Whether :math:`\\ell_k = 0` exactly (integer arithmetic; only asked when undecided)."""
        a, c, T = self.a, self.c, self.steps
        return a**k * (1 - a) ** (T - k) == c**k * (1 - c) ** (T - k)

    def sums(self, j: int, E: arb) -> tuple[arb, arb, arb]:
        r"""For :math:`0 \le j \le T` and a ball :math:`0 \le E \le 1`: enclosures of
        :math:`A = \sum_{i \ge j} P(i)`, :math:`S = \sum_{i \ge j} P(i) r^{i-j}` and
        :math:`H = \sum_{i \ge j} P(i)(1 - E r^{i-j})`."""
        a, c = self.a, self.c
        return binomial_tail_sums(self.steps, a, c * (1 - a) / (a * (1 - c)), j, E)

    # -- profile -------------------------------------------------------------------

    def _first_above(self, eps: Fraction) -> int | None:
        """The first index j with :math:`\\ell_j > \\varepsilon` (``T + 1`` if none), certified;
        ``None`` while a comparison is undecided at this precision."""
        T = self.steps
        ea = _q(eps)
        l0 = (_q(1 - self.a) / _q(1 - self.c)).log()
        D = _q(self.a * (1 - self.c) / (self.c * (1 - self.a))).log()
        guess = (float(eps) - T * float(l0.mid())) / float(D.mid())
        j = min(T + 1, max(0, math.floor(guess) + 1)) if math.isfinite(guess) else 0

        def above(k: int) -> bool | None:  # loss_k > eps
            lk = T * l0 + k * D
            if lk > ea:
                return True
            if lk <= ea:
                return False
            if eps == 0 and self._loss_is_zero(k):
                return False
            return None

        # move down while the previous index is above, up while this one is not
        while j > 0:
            b = above(j - 1)
            if b is None:
                return None
            if not b:
                break
            j -= 1
        while j <= T:
            b = above(j)
            if b is None:
                return None
            if b:
                break
            j += 1
        return j

    def delta_ball(self, eps: Fraction) -> arb:
        j = self._first_above(eps)
        if j is None:
            return arb("nan")
        if j > self.steps:
            return arb(0)
        E = (_q(eps) - self.loss(j)).exp()
        return self.sums(j, E)[2]

    def atom_delta(self, k: int) -> arb:
        r""":math:`\delta(\ell_k)` (from the next atom on; 0 at the last)."""
        if k >= self.steps:
            return arb(0)
        r = _q(self.c * (1 - self.a) / (self.a * (1 - self.c)))
        return self.sums(k + 1, r)[2]

    def _decide(self, fn: Any, target: Fraction) -> bool:
        """Whether ``fn()`` > target, decided in ball arithmetic with the precision raised."""
        prec = 128
        while prec <= MAX_PREC:
            with workprec(prec):
                d = fn()
                t = _q(target)
                if d.is_finite():
                    if d > t:
                        return True
                    if d <= t:
                        return False
            prec *= 2
        raise ArithmeticError("pld two-point: undecided comparison of the profile with delta")

    def _first_positive(self) -> int:
        """The first index with :math:`\\ell_k > 0`."""
        prec = 128
        while prec <= MAX_PREC:
            with workprec(prec):
                j = self._first_above(Fraction(0))
            if j is not None:
                return j
            prec *= 2
        raise ArithmeticError("pld two-point: undecided sign of a loss")

    def epsilon(self, delta: Fraction, width: Fraction) -> Certified:
        """Certified enclosure of the optimal epsilon of this direction at ``delta``."""
        T = self.steps
        if not self._decide(lambda: self.delta_ball(Fraction(0)), delta):
            return Certified(arb(0), 128)  # delta(0) <= delta
        k0 = self._first_positive()  # delta(l_k) is defined by the atoms k >= k0 (l_k > 0)
        # the first k in [k0, T] with delta(l_k) <= delta: bisection on 64-bit midpoints (a guess),
        # then certified at k and k - 1 (delta(l_T) = 0 <= delta)
        lo, hi = k0 - 1, T
        while hi - lo > 1:
            mid = (lo + hi) // 2
            with workprec(64):
                above = bool(self.atom_delta(mid).mid() > _q(delta).mid())
            if above:
                lo = mid
            else:
                hi = mid
        k = hi
        for _ in range(64):
            if k < T and self._decide(lambda k=k: self.atom_delta(k), delta):
                k += 1
                continue
            if k > k0 and not self._decide(lambda k=k: self.atom_delta(k - 1), delta):
                k -= 1
                continue
            break
        else:
            raise ArithmeticError("pld two-point: could not certify the piece")

        # on [max(0, l_{k-1}), l_k]: delta(eps) = A_k - e^{eps - l_k} S_k
        def piece() -> tuple[arb, arb, arb, arb]:
            A, S, _ = self.sums(k, arb(1))
            return A, S, self.loss(k), self.loss(k - 1).max(arb(0)) if k > 0 else arb(0)

        return epsilon_on_piece(piece, delta, width, "two-point")


@dataclass(frozen=True)
class TwoPointComposition(ClosedForm):
    """``steps`` compositions of a mechanism whose directions are two-outcome pairs; its
    profile is the maximum over the directions (module docstring)."""

    directions: tuple[tuple[str, _Direction], ...]
    params: tuple[tuple[str, Any], ...] = ()
    description = (
        "randomized response under Poisson sampling: a two-outcome pair per direction, composed "
        "exactly (binomial sum in ball arithmetic), the larger direction taken"
    )

    def parameters(self) -> dict[str, Any]:
        return dict(self.params)

    def delta_ball(self, eps: Fraction) -> arb:
        out: arb | None = None
        for _, d in self.directions:
            v = d.delta_ball(eps)
            out = v if out is None else out.max(v)
        assert out is not None
        return out

    def _direction_eps(self, delta: Fraction, width: Fraction) -> list[tuple[str, Certified]]:
        return [(name, d.epsilon(delta, width)) for name, d in self.directions]

    def epsilon(self, delta: Fraction, width: Fraction) -> Certified:
        per = self._direction_eps(delta, width)
        ball = per[0][1].ball
        for _, v in per[1:]:
            ball = ball.max(v.ball)
        return Certified(ball, max(v.prec for _, v in per))

    def epsilon_result(self, delta: Fraction, width: Fraction) -> ExactEpsilonResult | None:
        try:
            per = self._direction_eps(delta, width)
        except ArithmeticError:
            return None  # undecided: the grid path answers
        dirs = {name: (_bracket_of(v), 0) for name, v in per}
        # the larger of two values lies between the larger lower end and the larger upper end
        b = _bracket(max(b.lo_exact for b, _ in dirs.values()), max(b.up_exact for b, _ in dirs.values()))
        return ExactEpsilonResult(
            b, delta, 0, 0, Fraction(0), dirs, exact=self.description, parameters=self.parameters()
        )

    def delta_result(self, eps: Fraction) -> ExactDeltaResult:
        dirs: dict[str, tuple[Bracket, int]] = {}
        for name, d in self.directions:
            one = TwoPointComposition(((name, d),), self.params)
            dirs[name] = (_as_bracket(ClosedForm.delta_result(one, eps).value), 0)
        lo = max(b.lo_exact for b, _ in dirs.values())
        up = max(b.up_exact for b, _ in dirs.values())
        return ExactDeltaResult(
            _bracket(lo, up), eps, 0, 0, Fraction(0), dirs, exact=self.description, parameters=self.parameters()
        )


def poisson_randomized_response_composition(q: Fraction, p: Fraction, steps: int) -> TwoPointComposition:
    """``steps`` randomized responses with probability ``p`` under Poisson sampling with
    probability ``q`` (add/remove; ``0 < q < 1``, ``p != 1/2``)."""
    pp = max(p, 1 - p)
    remove = _Direction(q * pp + (1 - q) * (1 - pp), 1 - pp, steps)
    add = _Direction(pp, q * (1 - pp) + (1 - q) * pp, steps)
    params = (("q", decimal_text(q)), ("p", decimal_text(p)), ("steps", steps))
    return TwoPointComposition((("remove", remove), ("add", add)), params)


def two_point_of(ledger: list[tuple[ev.DpEvent, int]]) -> ClosedForm | None:
    """Randomized responses of one ``max(p, 1 - p)`` under Poisson sampling of one probability
    q < 1, add/remove (:mod:`~rigorous_rdp.pld.two_point`), else ``None``."""
    keys: set[tuple[Fraction, Fraction]] = set()
    steps = 0
    for event, count in ledger:
        if not (
            isinstance(event, ev.PoissonSampledEvent)
            and isinstance(event.event, ev.RandomizedResponseEvent)
            and event.adjacency is ev.Adjacency.ADD_REMOVE
            and 0 < event.sampling_probability < 1
        ):
            return None
        p = Fraction(event.event.p)
        keys.add((Fraction(event.sampling_probability), max(p, 1 - p)))
        steps += count
    if len(keys) != 1:
        return None
    q, pp = keys.pop()
    if pp == Fraction(1, 2):
        return RandomizedResponseComposition(pp, steps)  # perfectly private: delta = 0
    return poisson_randomized_response_composition(q, pp, steps)
