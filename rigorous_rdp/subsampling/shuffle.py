r"""Certified LOWER bounds on the privacy of shuffle-and-iterate DP-SGD (Gaussian noise).

**The sampler.**  Each epoch the :math:`n` examples are shuffled (a uniformly random permutation,
drawn afresh every epoch) and cut into :math:`t = n/b` batches of :math:`b`; step :math:`i` adds
:math:`N(0, \sigma^2 I)` noise to the sum of the gradients of batch :math:`i`, clipped to norm 1.
No upper bound on the privacy of this mechanism is known; practitioners often report the epsilon of
Poisson sampling with :math:`q = b/n` instead, and Chua et al. ("How Private are DP-SGD
Implementations?", ICML 2024, arXiv 2403.17673) show that this can over-claim by a wide margin.
Everything in this module is a **lower bound**: the true epsilon of shuffling is at least the value
reported, never at most.

**The neighbouring datasets** (Chua et al. 2024, the pair of their shuffle lower bound; the
one-dimensional gradients are those of a linear loss, so every DP-SGD implementation that
clips to norm 1 realises them).  :math:`D` has :math:`n - 1` examples of gradient :math:`-1`
and one example :math:`x^*` of gradient :math:`+1`; :math:`D'` is :math:`D` with :math:`x^*`
zeroed out (gradient 0).  The batch of :math:`x^*` is uniform over the :math:`t` batches (the
permutation is uniform), so after adding :math:`b` to every released sum the output of one epoch is

.. math:: P = \frac1t\sum_{i=1}^t N(2e_i, \sigma^2 I_t) \ \text{(on } D),\qquad
          Q = \frac1t\sum_{i=1}^t N(e_i, \sigma^2 I_t) \ \text{(on } D').

With a fresh permutation every epoch, :math:`E` epochs give the products :math:`P^{\otimes E}`,
:math:`Q^{\otimes E}`.

**Epsilon lower bound.**  If the mechanism is :math:`(\epsilon, \delta)`-DP then
:math:`P(S) \le e^\epsilon Q(S) + \delta` for every event :math:`S`, so
:math:`\epsilon \ge \log((P(S) - \delta)/Q(S))` for each :math:`S` with :math:`P(S) > \delta`.
We use the events of Chua et al.'s "cube" test in every epoch: with :math:`M_e = \max_i y_{e,i}`
the largest released sum of epoch :math:`e`, and independence of the coordinates,

.. math:: p(C) = P(M_e > C) = 1 - \Phi\big(\tfrac{C-2}{\sigma}\big)\Phi\big(\tfrac{C}{\sigma}\big)^{t-1},\qquad
          q(C) = Q(M_e > C) = 1 - \Phi\big(\tfrac{C-1}{\sigma}\big)\Phi\big(\tfrac{C}{\sigma}\big)^{t-1},

and, over :math:`E` independent epochs, :math:`S_{j,C}` = "at least :math:`j` epochs have
:math:`M_e > C`", with :math:`P(S_{j,C})` and :math:`Q(S_{j,C})` binomial tails in :math:`p(C)`,
:math:`q(C)` (:math:`j = 1, E = 1` is Chua et al.'s single-epoch bound).  :math:`(j, C)` is
chosen by a float search (any choice is valid); the value at the chosen :math:`(j, C)` is a ball
(arb ``erfc``, exact rational :math:`C`), and its lower end is the lower bound.

A second family follows Chua et al.'s multi-epoch analysis (NeurIPS 2024), which composes the
privacy loss of :math:`M_e`: cut the line into bins :math:`B_1, \dots, B_K` (fixed rational
edges), give bin :math:`j` an integer label :math:`r_j` (a float rounding of its log-likelihood
ratio; any labels give valid events), and use :math:`S_\tau` = "the sum over the epochs of the
labels of the bins of :math:`M_e` is at least :math:`\tau`".  Its probabilities are tail sums of the
coefficients of :math:`G_P(z)^E` and :math:`G_Q(z)^E`, :math:`G_P(z) = \sum_j P(M_e \in B_j) z^{r_j}`
(and likewise for Q): exact polynomial powers in ball arithmetic.  The reported lower bound is the
larger of the two families' certified lower ends (each is a valid lower bound).

**RDP lower bound** (:class:`ShuffleLowerBoundCurve`): with every other gradient 0 instead of
:math:`-1`, the same argument gives the pair :math:`P = \frac1t\sum_i N(e_i, \sigma^2 I)`,
:math:`Q = N(0, \sigma^2 I)` of balls-and-bins, so the RDP of shuffling (zero-out neighbours) is
at least the remove-direction RDP of balls-and-bins with :math:`t = n/b`, which
:mod:`rigorous_rdp.subsampling.random_allocation` computes exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb
from scipy import special, stats

from .. import validation
from ..arith import Rational, to_arb, workprec
from .random_allocation import RandomAllocationGaussianCurve

__all__ = ["LossSumEvent", "ShuffleEpsilonLowerBound", "ShuffleLowerBoundCurve", "shuffle_epsilon_lower_bound"]

#: the means of the pair (Chua et al. 2024): the example's batch sum moves by 2 on D, by 1 on D'
_MEAN_P, _MEAN_Q = 2, 1


class ShuffleLowerBoundCurve(RandomAllocationGaussianCurve):
    r"""A certified LOWER bound on the RDP of one epoch of shuffling with :math:`t` batches: the exact
    remove-direction RDP of balls-and-bins with :math:`t` steps (module docstring).  Not a privacy
    guarantee."""

    def __init__(self, noise_multiplier: Rational, steps_per_epoch: int, epochs: int = 1):
        super().__init__(noise_multiplier, steps_per_epoch, epochs, direction="remove")
        self.name = "shuffle-lower-bound"
        self.citation = (
            "a LOWER bound: remove-direction RDP of balls-and-bins (module rigorous_rdp.subsampling.shuffle)"
        )


@dataclass(frozen=True)
class ShuffleEpsilonLowerBound:
    """A certified lower bound on the epsilon of shuffle-and-iterate DP-SGD.

    Attributes:
        epsilon: ball containing :math:`\\log((P(S) - \\delta)/Q(S))`; rely on its lower end.
        epochs_threshold: :math:`j` of the event :math:`S_{j,C}` (family "cube"; 0 otherwise).
        cap: :math:`C` of the event (exact rational; family "cube").
        p_event, q_event: balls of :math:`P(S)` and :math:`Q(S)` (family "cube").
        family: "cube" (at least j epochs with a released sum above C) or "loss-sum" (the sum
            of the binned per-epoch log-likelihood ratios above a threshold).
        event: the event of the loss-sum family (``None`` for "cube").
    """

    epsilon: arb
    epochs_threshold: int
    cap: Fraction
    p_event: arb
    q_event: arb
    family: str = "cube"
    event: LossSumEvent | None = None


def _log_ndtr(x: arb) -> arb:
    r""":math:`\log\Phi(x)` as a ball, accurate in both tails."""
    half = arb(1) / 2
    if x < 0:
        return ((-x) * half.sqrt()).erfc().log() - arb(2).log()
    return (-(x * half.sqrt()).erfc() * half).log1p()


def _tail_ball(cap: arb, mean: int, sigma: arb, t: int) -> arb:
    """P(max_i y_i > cap) for y ~ (1/t) sum_i N(mean e_i, sigma^2 I_t) (module docstring)."""
    log_in = _log_ndtr((cap - mean) / sigma) + (t - 1) * _log_ndtr(cap / sigma)
    return -log_in.expm1()


def _binomial_tail(e: int, j: int, p: arb) -> arb:
    """P(Bin(e, p) >= j) as a ball (a sum of nonnegative terms)."""
    q = 1 - p
    total = arb(0)
    for i in range(j, e + 1):
        total += arb(math.comb(e, i)) * p**i * q ** (e - i)
    return total


def _float_tails(caps: np.ndarray, mean: int, sigma: float, t: int) -> np.ndarray:
    log_in = special.log_ndtr((caps - mean) / sigma) + (t - 1) * special.log_ndtr(caps / sigma)
    return np.asarray(-np.expm1(log_in))


def _choose(sigma: float, t: int, epochs: int, delta: float) -> tuple[int, float] | None:
    """Float search of (j, C) maximising log((P(S) - delta)/Q(S)) (tightness only)."""
    caps = np.linspace(0.0, _MEAN_P + 12.0 * sigma + math.sqrt(2 * math.log(max(t, 2))) * sigma, 4001)
    p = _float_tails(caps, _MEAN_P, sigma, t)
    q = _float_tails(caps, _MEAN_Q, sigma, t)
    best: tuple[float, int, float] | None = None
    for j in range(1, epochs + 1):
        with np.errstate(all="ignore"):
            ps = stats.binom.sf(j - 1, epochs, p)
            qs = stats.binom.sf(j - 1, epochs, q)
            val = np.log(ps - delta) - np.log(qs)
        val[~np.isfinite(val)] = -np.inf
        i = int(np.argmax(val))
        if math.isfinite(val[i]) and (best is None or val[i] > best[0]):
            best = (float(val[i]), j, float(caps[i]))
    return None if best is None else (best[1], best[2])


@dataclass(frozen=True)
class LossSumEvent:
    """The event of the loss-sum family: bin ``j`` of ``M_e`` is ``(edges[j-1], edges[j]]`` (the first
    and last bins unbounded), has label ``labels[j]``; the event is "the sum of the labels over the
    epochs is at least ``threshold``"."""

    edges: tuple[Fraction, ...]
    labels: tuple[int, ...]
    threshold: int


#: number of bins of the statistic M_e in the loss-sum family, and the largest label range
_BINS = 600
_MAX_LABELS = 400


def _cdf_ball(cap: arb, mean: int, sigma: arb, t: int) -> arb:
    """P(max_i y_i <= cap) for y ~ (1/t) sum_i N(mean e_i, sigma^2 I_t)."""
    return (_log_ndtr((cap - mean) / sigma) + (t - 1) * _log_ndtr(cap / sigma)).exp()


def _loss_sum_bound(sigma: Fraction, t: int, e: int, delta: Fraction) -> tuple[arb, LossSumEvent] | None:
    """The best certified value of log((P(S_tau) - delta)/Q(S_tau)) over tau (module docstring,
    second family), at the current working precision, and its event; None if no tau has
    P(S_tau) > delta."""
    sf = float(sigma)
    hi = _MEAN_P + 12.0 * sf + math.sqrt(2 * math.log(max(t, 2))) * sf
    lo = max(-6.0 * sf, sf * float(stats.norm.ppf(math.exp(-60.0 / t))))
    edges = [Fraction(x).limit_denominator(1 << 20) for x in np.linspace(lo, hi, _BINS - 1)]
    s = to_arb(sigma)
    cdf_p = [arb(0)] + [_cdf_ball(to_arb(c), _MEAN_P, s, t) for c in edges] + [arb(1)]
    cdf_q = [arb(0)] + [_cdf_ball(to_arb(c), _MEAN_Q, s, t) for c in edges] + [arb(1)]
    p_bins = [cdf_p[i + 1] - cdf_p[i] for i in range(len(cdf_p) - 1)]
    q_bins = [cdf_q[i + 1] - cdf_q[i] for i in range(len(cdf_q) - 1)]
    # float labels: the rounded log-likelihood ratio of each bin on a grid of at most _MAX_LABELS steps
    ratios = []
    for pb, qb in zip(p_bins, q_bins, strict=True):
        pm, qm = float(pb.mid()), float(qb.mid())
        ratios.append(math.log(pm / qm) if pm > 0 and qm > 0 else None)
    finite = [r for r in ratios if r is not None]
    if not finite:
        return None
    r_lo, r_hi = min(finite), max(finite)
    h = max((r_hi - r_lo) / _MAX_LABELS, 1e-9)
    labels = [0 if r is None else math.floor((r - r_lo) / h) for r in ratios]
    n = max(labels) + 1
    gp, gq = [arb(0)] * n, [arb(0)] * n
    for lab, pb, qb in zip(labels, p_bins, q_bins, strict=True):
        gp[lab] += pb.max(arb(0)) if not pb >= 0 else pb
        gq[lab] += qb.max(arb(0)) if not qb >= 0 else qb
    from flint import arb_poly

    cp = (arb_poly(gp) ** e).coeffs()
    cq = (arb_poly(gq) ** e).coeffs()
    cp = list(cp) + [arb(0)] * (len(cq) - len(cp))
    cq = list(cq) + [arb(0)] * (len(cp) - len(cq))
    d = to_arb(delta)
    best: tuple[arb, int] | None = None
    tail_p, tail_q = arb(0), arb(0)
    for k in range(len(cp) - 1, -1, -1):
        tail_p += cp[k]
        tail_q += cq[k]
        gap = tail_p - d
        if gap > 0 and tail_q > 0:
            v = (gap / tail_q).log()
            if best is None or v.lower() > best[0].lower():
                best = (v, k)
    if best is None:
        return None
    return best[0], LossSumEvent(tuple(edges), tuple(labels), best[1])


def shuffle_epsilon_lower_bound(
    noise_multiplier: Rational, steps_per_epoch: int, target_delta: Rational, *, epochs: int = 1, prec: int = 128
) -> ShuffleEpsilonLowerBound | None:
    r"""A certified lower bound on the epsilon, at ``target_delta``, of ``epochs`` epochs of
    shuffle-and-iterate DP-SGD with ``steps_per_epoch`` = :math:`t = n/b` batches per epoch and noise
    multiplier :math:`\sigma` (module docstring).  ``None`` when no event of the family has
    :math:`P(S) > \delta` (then the bound says nothing).

    Args:
        noise_multiplier: :math:`\sigma > 0`.
        steps_per_epoch: :math:`t \ge 1`.
        target_delta: :math:`\delta \in (0, 1)`.
        epochs: :math:`E \ge 1` (a fresh permutation each epoch), at most 10000.
        prec: working precision in bits.

    Raises:
        ValueError: naming the parameter and its range.
    """
    sigma = validation.positive(noise_multiplier, "noise_multiplier")
    t = validation.integer_in_range(steps_per_epoch, "steps_per_epoch", 1, 10**9)
    delta = validation.unit_interval(target_delta, "target_delta", open_low=True, open_high=True)
    e = validation.integer_in_range(epochs, "epochs", 1, 10_000)
    chosen = _choose(float(sigma), t, e, float(delta))
    with workprec(prec):
        cube: ShuffleEpsilonLowerBound | None = None
        if chosen is not None:
            j, cap_f = chosen
            cap = Fraction(cap_f).limit_denominator(1 << 24)
            s, c = to_arb(sigma), to_arb(cap)
            p_ev = _binomial_tail(e, j, _tail_ball(c, _MEAN_P, s, t))
            q_ev = _binomial_tail(e, j, _tail_ball(c, _MEAN_Q, s, t))
            gap = p_ev - to_arb(delta)
            if gap > 0 and q_ev > 0:
                cube = ShuffleEpsilonLowerBound((gap / q_ev).log(), j, cap, p_ev, q_ev, "cube")
        loss = _loss_sum_bound(sigma, t, e, delta) if e > 1 else None
        if loss is not None and (cube is None or loss[0].lower() > cube.epsilon.lower()):
            return ShuffleEpsilonLowerBound(loss[0], 0, Fraction(0), arb(0), arb(0), "loss-sum", loss[1])
        return cube
