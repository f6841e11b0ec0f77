r"""Abadi et al. 2016, Lemma 3: the moments bound of the Poisson-subsampled Gaussian.

Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang, "Deep learning with
differential privacy" (CCS 2016), Lemma 3: for sensitivity 1, :math:`\sigma \ge 1`,
sampling probability :math:`q < 1/(16\sigma)` and a positive integer
:math:`\lambda \le \sigma^2 \log(1/(q\sigma))`, the log moment satisfies
:math:`\alpha_M(\lambda) \le q^2\lambda(\lambda+1)/((1-q)\sigma^2) + O(q^3\lambda^3/\sigma^3)`.

Zhu & Wang 2019 compare against "the bound from the proof of Abadi et al.'s
Lemma 3" (Sec. 4, footnote 3, and App. D), i.e. the explicit inequality behind
the O-term.  The proof expands :math:`\mathbb{E}[(1 + (\nu_0-\nu_1)/\nu_1)^{\lambda+1}]` binomially
and bounds the t-th term; we implement

.. math::

    \alpha_M(\lambda) \le \log\Big(1 + \frac{q^2\lambda(\lambda+1)}{(1-q)\sigma^2}
        + \sum_{t=3}^{\lambda+1}\binom{\lambda+1}{t} B_t\Big), \qquad
    B_t = \frac{(2q)^t (t-1)!!}{2(1-q)^{t-1}\sigma^t} + \frac{q^t}{(1-q)^t\sigma^{2t}}
        + \frac{(2q)^t e^{(t^2-t)/(2\sigma^2)}(\sigma^t (t-1)!! + t^t)}{2(1-q)^{t-1}\sigma^{2t}},

the t = 2 term in the simplified form of the lemma's statement (it comes from
:math:`q^2(e^{1/\sigma^2}-1)/(1-q) \le 2q^2/((1-q)\sigma^2)` for :math:`\sigma \ge 1`), and
:math:`B_t` as in the proof for :math:`t \ge 3`.  The RDP at order :math:`\alpha = \lambda + 1` is
:math:`\alpha_M(\lambda)/\lambda`.  Only integer :math:`\lambda` in the validity range are accepted
(:func:`abadi_validity_range`); outside it the lemma says nothing and we raise.

Caveat, stated plainly: the seed's App. D (which lists the exact terms the
authors used) is not part of the text we work from, and the authors' own script
keeps only the t = 3 term.  The constants of :math:`B_t` above are those of the
published proof as we read it; they are used as a *comparison baseline* in the
figures, never as a guarantee of this toolkit.  The tests check that the value
dominates the exact RDP (:mod:`.subsampling.poisson_gaussian`) over the validity
range, as any valid bound must.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from ..arith import parse_rational, to_arb

__all__ = ["abadi_lemma3_log_moment", "abadi_lemma3_rdp", "abadi_validity_range"]


def _params(q: object, sigma: object) -> tuple[Fraction, Fraction]:
    qq = parse_rational(q, "q")
    ss = parse_rational(sigma, "sigma")
    if ss < 1:
        raise ValueError(f"sigma must be >= 1 for Abadi et al. Lemma 3. Found {float(ss)!r}.")
    if not 0 < qq < 1 / (16 * ss):
        raise ValueError(
            f"q must be in (0, 1/(16 sigma)) = (0, {float(1 / (16 * ss)):.6g}) for Abadi et al."
            f" Lemma 3. Found {float(qq)!r}."
        )
    return qq, ss


def abadi_validity_range(q: object, sigma: object) -> int:
    r"""Largest integer :math:`\lambda` with :math:`\lambda \le \sigma^2\log(1/(q\sigma))` (certified floor).

    Raises:
        ValueError: if :math:`\sigma < 1` or :math:`q \ge 1/(16\sigma)` (the lemma does not apply).
    """
    qq, ss = _params(q, sigma)
    from ..arith import workprec

    with workprec(128):
        lim = to_arb(ss * ss) * (-(to_arb(qq * ss)).log())
        lam = math.floor(float(lim.mid()))
        # certify the floor: lam <= lim < lam + 1 (adjust if the float guess was off)
        while not (arb(lam) <= lim):
            lam -= 1
        while arb(lam + 1) <= lim:
            lam += 1
    return lam


def abadi_lemma3_log_moment(lam: int, q: object, sigma: object) -> arb:
    r"""Ball for the explicit bound on :math:`\alpha_M(\lambda)` from the proof of Lemma 3 (module docstring)."""
    if isinstance(lam, bool) or not isinstance(lam, int) or lam < 1:
        raise ValueError(f"alpha must be an integer >= 2 (lambda = alpha - 1 >= 1). Found lambda = {lam!r}.")
    lim = abadi_validity_range(q, sigma)
    if lam > lim:
        raise ValueError(
            f"alpha must be <= {lim + 1} for Abadi et al. Lemma 3 (lambda <= sigma^2 log(1/(q sigma))"
            f" = {lim}). Found alpha = {lam + 1}."
        )
    qq, ss = _params(q, sigma)
    qa, sa = to_arb(qq), to_arb(ss)
    total = 1 + qa * qa * lam * (lam + 1) / ((1 - qa) * sa * sa)
    for t in range(3, lam + 2):
        dfac = _double_factorial(t - 1)
        two_q_t = (2 * qa) ** t
        b1 = two_q_t * dfac / (2 * (1 - qa) ** (t - 1) * sa**t)
        b2 = qa**t / ((1 - qa) ** t * sa ** (2 * t))
        b3 = (
            two_q_t
            * (arb(t * t - t) / (2 * sa * sa)).exp()
            * (sa**t * dfac + arb(t) ** t)
            / (2 * (1 - qa) ** (t - 1) * sa ** (2 * t))
        )
        total += math.comb(lam + 1, t) * (b1 + b2 + b3)
    return total.log()


def abadi_lemma3_rdp(alpha: int, q: object, sigma: object) -> arb:
    r"""Ball for the RDP bound at integer order :math:`\alpha = \lambda + 1`: :math:`\alpha_M(\lambda)/\lambda`."""
    if isinstance(alpha, bool) or not isinstance(alpha, int) or alpha < 2:
        raise ValueError(f"alpha must be an integer >= 2. Found {alpha!r}.")
    return abadi_lemma3_log_moment(alpha - 1, q, sigma) / (alpha - 1)


def _double_factorial(n: int) -> int:
    out = 1
    while n > 1:
        out *= n
        n -= 2
    return out
