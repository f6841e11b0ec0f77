r"""Blog post part 1, "A Tail of Two Densities" (2019-03-13): every numeric claim, certified.

Source: ``seeds/001_bdd2e238bc870026.txt``.  Each function names the claim or
equation it implements.  Bounds are returned as
:class:`~rigorous_rdp.arith.Certified` enclosures of the exact value of the
formula (``upper`` is the value to rely on); exact rational quantities are
returned as :class:`~fractions.Fraction`.  Inputs are exact rationals (``int``,
``Fraction``, decimal ``str``; a ``float`` is its exact binary value).

Contents:

* Laplace mechanism, (1.5): :func:`laplace_scale`, :func:`laplace_epsilon`,
  :func:`laplace_delta` (the exact delta(epsilon), via
  :mod:`rigorous_rdp.research.indistinguishability`).
* Gaussian mechanism, Claim 9: delta of (6.8) :func:`gaussian_delta_claim9`; the
  noise calibrations (6.81)-(6.84) (:func:`sigma_6_81` ... :func:`sigma_6_84`), the
  exact solution of (6.91) :func:`sigma_6_91`, the bounded-epsilon variants
  (:func:`sigma_6_83_bounded`, :func:`sigma_6_84_bounded`), Dwork-Roth Thm. A.1
  (:func:`sigma_dwork_roth`), and the exact references of the analytic Gaussian
  mechanism (Balle & Wang 2018), :func:`gaussian_delta_exact` and
  :func:`sigma_exact`, which reuse :mod:`rigorous_rdp.research.gaussian_dp`.
* Composition: Claim 10 (:func:`basic_composition_claim10`), a(epsilon) of (6.98)
  (:func:`a_epsilon`), Claims 14, 16, 17, 18
  (:func:`claim14`, :func:`claim16`, :func:`claim17`, :func:`claim18`).
* Subsampling, Claim 19 (:func:`claim19`, :func:`claim19_relaxed`) and the
  DP-SGD guarantee at the end of the post (:func:`dpsgd_guarantee`,
  :func:`dpsgd_guarantee_as_stated`).

Where the post is wrong or has a gap (the mathematics wins; also in
``docs/blog_part1.md``):

1. Claim 9's proof attributes (6.8) to (6.3) and (6.82)/(6.84) to (6.5); it is
   the other way round: (6.8) follows from the Chernoff bound (6.5),
   :math:`\mathbb P(\xi > t) < e^{-t^2/2}`, and (6.82), (6.84) from the Mills-ratio
   bound (6.3).  "Back to (6.9)" refers to (6.91).  The numbers are unaffected.
2. (6.8) is a valid delta only when :math:`t = \epsilon\sigma/S_f - S_f/(2\sigma) > 0`
   (the proof says so; the claim does not): for :math:`t \le 0` the value
   :math:`e^{-t^2/2}` is not a tail bound (e.g. t = -2).  :func:`gaussian_delta_claim9`
   raises there.
3. Claim 19's proof says "each of the m indices is picked independently with
   probability r"; gamma is a uniformly random subset of fixed size n, so only
   :math:`\mathbb P(i \in \gamma) = n/m = r` holds (which is all the proof uses).
4. The DP-SGD guarantee at the end of the post,
   :math:`(\sqrt{2kr\log\beta^{-1}}\,\epsilon + 2kr\epsilon^2,\ k\delta + \beta)`, is *not*
   what Claims 19 and 18 give.  With :math:`T = k/r` steps that are
   :math:`(2r\epsilon, r\delta)`-DP, Claim 18 gives
   :math:`T a(2r\epsilon) + \sqrt{2T\log\beta^{-1}}\,(2r\epsilon + a(2r\epsilon))
   \approx 2\sqrt{2kr\log\beta^{-1}}\,\epsilon + 4kr\epsilon^2`: the stated value drops a
   factor 2 in the leading term (and the a-term inside the square root).  The
   stated value is returned by :func:`dpsgd_guarantee_as_stated` and labelled as
   such; :func:`dpsgd_guarantee` is the chain the post's argument supports.  The
   same remark applies to the comparison value without subsampling,
   :math:`(\sqrt{2k\log\beta^{-1}}\,\epsilon + 2k\epsilon^2)`, which drops the
   :math:`a(\epsilon)` term inside the square-root factor of Claim 18.
5. In the proof of Claim 12, ":math:`\max_y \log p(y) / \log q(y)`" should read
   :math:`\max_y \log(p(y)/q(y))`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from ...arith import DEFAULT_DIGITS, Certified, parse_rational, to_arb
from ...validation import certify, integer_at_least, nonnegative, positive, unit_interval

__all__ = [
    "GAUSSIAN_CALIBRATIONS",
    "DpGuarantee",
    "a_epsilon",
    "a_epsilon_upper",
    "basic_composition_claim10",
    "claim14",
    "claim16",
    "claim17",
    "claim18",
    "claim19",
    "claim19_relaxed",
    "dpsgd_guarantee",
    "dpsgd_guarantee_as_stated",
    "gaussian_delta_claim9",
    "gaussian_delta_exact",
    "laplace_delta",
    "laplace_epsilon",
    "laplace_scale",
    "sigma_6_81",
    "sigma_6_82",
    "sigma_6_83",
    "sigma_6_83_bounded",
    "sigma_6_84",
    "sigma_6_84_bounded",
    "sigma_6_91",
    "sigma_dwork_roth",
    "sigma_exact",
]


@dataclass(frozen=True)
class DpGuarantee:
    """An (epsilon, delta)-DP guarantee with certified enclosures of both parts.

    Attributes:
        epsilon, delta: enclosures of the exact values of the formulas;
            ``upper`` ends are the guarantee.
        source: the claim that produced it.
    """

    epsilon: Certified
    delta: Certified
    source: str

    def to_json(self) -> dict[str, object]:
        return {"epsilon": self.epsilon.to_json(), "delta": self.delta.to_json(), "source": self.source}


# ---------------------------------------------------------------------------
# input helpers
# ---------------------------------------------------------------------------

_pos = positive
_nonneg = nonnegative


def _open_unit(x: object, name: str) -> Fraction:
    v = parse_rational(x, name)
    if not 0 < v < 1:
        raise ValueError(f"{name} must be in (0, 1). Found {x!r}.")
    return v


def _closed_unit(x: object, name: str) -> Fraction:
    return unit_interval(x, name)


def _steps(k: object) -> int:
    return integer_at_least(k, "steps", 1)


_cert = certify


def _exact(x: Fraction) -> Certified:
    """Enclosure of an exact rational (radius 0 when it is dyadic)."""
    from ...arith import workprec

    prec = 128
    with workprec(prec):
        return Certified(to_arb(x), prec)


A = to_arb  # short alias inside formulas


# ---------------------------------------------------------------------------
# Laplace mechanism (1.5)
# ---------------------------------------------------------------------------


def laplace_scale(epsilon: object, sensitivity: object = 1) -> Fraction:
    r"""Smallest Laplace scale of (1.5): :math:`b = S_f/\epsilon` makes the Laplace mechanism epsilon-DP (exact)."""
    return _pos(sensitivity, "sensitivity") / _pos(epsilon, "epsilon")


def laplace_epsilon(scale: object, sensitivity: object = 1) -> Fraction:
    r"""Pure-DP epsilon of the Laplace mechanism with scale b, :math:`S_f/b` ((1.5) solved for epsilon; exact).

    It is also the smallest such epsilon: the privacy loss attains
    :math:`S_f/b` on a half-line of positive probability.
    """
    return _pos(sensitivity, "sensitivity") / _pos(scale, "scale")


def laplace_delta(scale: object, epsilon: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Exact (optimal) delta(epsilon) of the Laplace mechanism, certified (hockey-stick integral).

    Zero for :math:`\epsilon \ge S_f/b` ((1.5)); for smaller epsilon the
    mechanism is only approximately DP.  Computed by
    :func:`rigorous_rdp.research.indistinguishability.laplace_pair_delta` (the two
    directions are equal by symmetry of the Laplace density).
    """
    from ..indistinguishability import laplace_pair_delta

    return laplace_pair_delta(scale, epsilon, sensitivity, digits=digits)


# ---------------------------------------------------------------------------
# Gaussian mechanism: Claim 9
# ---------------------------------------------------------------------------


def gaussian_delta_claim9(
    epsilon: object, sigma: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS
) -> Certified:
    r"""(6.8) of Claim 9: the Gaussian mechanism is :math:`(\epsilon,\delta)`-DP with

    .. math:: \delta = \exp\big(-(\epsilon\sigma/S_f - (2\sigma/S_f)^{-1})^2/2\big).

    Valid only when :math:`t = \epsilon\sigma/S_f - S_f/(2\sigma) > 0`, i.e.
    :math:`\sigma > S_f/\sqrt{2\epsilon}` (the proof needs it for the Chernoff bound
    (6.5); the claim omits it, see the module docstring).

    Raises:
        ValueError: ``sigma`` when :math:`\sigma \le S_f/\sqrt{2\epsilon}`.
    """
    e = _pos(epsilon, "epsilon")
    s = _pos(sigma, "sigma")
    sf = _pos(sensitivity, "sensitivity")
    # t > 0  <=>  2 eps sigma^2 > S_f^2 (exact rational test)
    if not 2 * e * s * s > sf * sf:
        raise ValueError(
            f"sigma must be > sensitivity / sqrt(2 epsilon) = {float(sf) / (2 * float(e)) ** 0.5!r} for (6.8). Found {sigma!r}."
        )

    def f() -> arb:
        t = A(e) * A(s) / A(sf) - A(sf) / (2 * A(s))
        return (-(t * t) / 2).exp()

    return _cert(f, digits, "(6.8)")


def log_inv(d: Fraction) -> arb:
    return -A(d).log()


def sigma_6_81(epsilon: object, delta: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""(6.81): :math:`\sigma > (\epsilon^{-1}\sqrt{2\log\delta^{-1}} + (2\epsilon)^{-1/2}) S_f` suffices.

    Returns the threshold (any larger sigma gives :math:`(\epsilon,\delta)`-DP by (6.8)).
    """
    e, d, sf = _pos(epsilon, "epsilon"), _open_unit(delta, "delta"), _pos(sensitivity, "sensitivity")
    return _cert(lambda: ((2 * log_inv(d)).sqrt() / A(e) + 1 / (2 * A(e)).sqrt()) * A(sf), digits, "(6.81)")


def sigma_6_91(epsilon: object, delta: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Exact solution of (6.91), :math:`\epsilon\sigma - 1/(2\sigma) > \sqrt{2\log\delta^{-1}}`:

    .. math:: \sigma > \frac{\sqrt{2\log\delta^{-1}} + \sqrt{2\log\delta^{-1} + 2\epsilon}}{2\epsilon}\,S_f,

    the smallest noise that (6.8) certifies; (6.81) and (6.83) are upper bounds of it.
    """
    e, d, sf = _pos(epsilon, "epsilon"), _open_unit(delta, "delta"), _pos(sensitivity, "sensitivity")

    def f() -> arb:
        L = 2 * log_inv(d)
        return (L.sqrt() + (L + 2 * A(e)).sqrt()) / (2 * A(e)) * A(sf)

    return _cert(f, digits, "(6.91)")


def _pos_part(x: arb) -> arb:
    return x.max(arb(0))


def sigma_6_82(epsilon: object, delta: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""(6.82): :math:`\sigma > \big(\epsilon^{-1}(1 \vee \sqrt{(\log (2\pi)^{-1}\delta^{-2})_+}) + (2\epsilon)^{-1/2}\big) S_f`.

    From the Mills-ratio bound (6.3) with the sufficient conditions (6.93), (6.95).
    """
    e, d, sf = _pos(epsilon, "epsilon"), _open_unit(delta, "delta"), _pos(sensitivity, "sensitivity")

    def f() -> arb:
        ell = _pos_part(2 * log_inv(d) - (2 * arb.pi()).log())
        return (ell.sqrt().max(arb(1)) / A(e) + 1 / (2 * A(e)).sqrt()) * A(sf)

    return _cert(f, digits, "(6.82)")


def sigma_6_83(epsilon: object, delta: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""(6.83): :math:`\sigma > \epsilon^{-1}\sqrt{\log e^\epsilon\delta^{-2}}\, S_f = \epsilon^{-1}\sqrt{\epsilon + 2\log\delta^{-1}}\,S_f`."""
    e, d, sf = _pos(epsilon, "epsilon"), _open_unit(delta, "delta"), _pos(sensitivity, "sensitivity")
    return _cert(lambda: (A(e) + 2 * log_inv(d)).sqrt() / A(e) * A(sf), digits, "(6.83)")


def sigma_6_84(epsilon: object, delta: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""(6.84): :math:`\sigma > \epsilon^{-1}\big(\sqrt{1+\epsilon} \vee \sqrt{(\log e^\epsilon(2\pi)^{-1}\delta^{-2})_+}\big) S_f`."""
    e, d, sf = _pos(epsilon, "epsilon"), _open_unit(delta, "delta"), _pos(sensitivity, "sensitivity")

    def f() -> arb:
        ell = _pos_part(A(e) + 2 * log_inv(d) - (2 * arb.pi()).log())
        return (1 + A(e)).sqrt().max(ell.sqrt()) / A(e) * A(sf)

    return _cert(f, digits, "(6.84)")


def _bounded_alpha(epsilon: Fraction, alpha: object) -> Fraction:
    a = _pos(alpha, "alpha")
    if epsilon > a:
        raise ValueError(
            f"epsilon must be <= alpha ({float(a)!r}) for the bounded-epsilon calibration. Found {float(epsilon)!r}."
        )
    return a


def sigma_6_83_bounded(
    epsilon: object, delta: object, alpha: object = 1, sensitivity: object = 1, digits: float = DEFAULT_DIGITS
) -> Certified:
    r"""(6.83) for :math:`\epsilon \le \alpha`: :math:`\sigma > \epsilon^{-1}\sqrt{\log e^\alpha\delta^{-2}}\,S_f`."""
    e, d, sf = _pos(epsilon, "epsilon"), _open_unit(delta, "delta"), _pos(sensitivity, "sensitivity")
    a = _bounded_alpha(e, alpha)
    return _cert(lambda: (A(a) + 2 * log_inv(d)).sqrt() / A(e) * A(sf), digits, "(6.83), bounded epsilon")


def sigma_6_84_bounded(
    epsilon: object, delta: object, alpha: object = 1, sensitivity: object = 1, digits: float = DEFAULT_DIGITS
) -> Certified:
    r"""(6.84) for :math:`\epsilon \le \alpha`:
    :math:`\sigma > \epsilon^{-1}(\sqrt{1+\alpha} \vee \sqrt{(\log (2\pi)^{-1}e^\alpha\delta^{-2})_+})\,S_f`.

    With :math:`\alpha = 1` the post compares it with Dwork-Roth Thm. A.1
    (:func:`sigma_dwork_roth`) and calls it "slightly better": it is, for every
    delta in (0, 1), since :math:`\sqrt2 < 3/2` and
    :math:`1 - \log 2\pi < 2\log(5/4)` (checked in the tests).
    """
    e, d, sf = _pos(epsilon, "epsilon"), _open_unit(delta, "delta"), _pos(sensitivity, "sensitivity")
    a = _bounded_alpha(e, alpha)

    def f() -> arb:
        ell = _pos_part(A(a) + 2 * log_inv(d) - (2 * arb.pi()).log())
        return (1 + A(a)).sqrt().max(ell.sqrt()) / A(e) * A(sf)

    return _cert(f, digits, "(6.84), bounded epsilon")


def sigma_dwork_roth(
    epsilon: object, delta: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS
) -> Certified:
    r"""Dwork & Roth 2014, Thm. A.1, as quoted in blog part 1 (after (6.84)):

    .. math:: \sigma > \epsilon^{-1}\big(\tfrac32 \vee \sqrt{(2\log \tfrac54\delta^{-1})_+}\big) S_f,
       \qquad 0 < \epsilon < 1.

    Dwork-Roth state :math:`c^2 > 2\log(1.25/\delta)`, :math:`\sigma \ge c\Delta_2 f/\epsilon`; the
    post adds the lower bound 3/2 on c that their proof uses implicitly.

    Raises:
        ValueError: ``epsilon`` outside (0, 1) (the theorem's hypothesis).
    """
    e = _open_unit(epsilon, "epsilon")
    d, sf = _open_unit(delta, "delta"), _pos(sensitivity, "sensitivity")

    def f() -> arb:
        c2 = _pos_part(2 * (A(Fraction(5, 4)).log() + log_inv(d)))
        return c2.sqrt().max(A(Fraction(3, 2))) / A(e) * A(sf)

    return _cert(f, digits, "Dwork-Roth Thm. A.1")


def gaussian_delta_exact(
    epsilon: object, sigma: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS
) -> Certified:
    r"""Exact delta(epsilon) of the Gaussian mechanism (Balle & Wang 2018, Thm. 8), certified.

    The reference against which (6.8) and the calibrations are compared; it is
    :func:`rigorous_rdp.research.gaussian_dp.gaussian_delta_certified`.
    """
    from ..gaussian_dp import gaussian_delta_certified

    return gaussian_delta_certified(
        parse_rational(epsilon, "epsilon"),
        parse_rational(sigma, "sigma"),
        parse_rational(sensitivity, "sensitivity"),
        digits=digits,
    )


def sigma_exact(epsilon: object, delta: object, sensitivity: object = 1, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""Smallest sigma with the Gaussian mechanism :math:`(\epsilon,\delta)`-DP (analytic Gaussian
    mechanism, Balle & Wang 2018), certified: :func:`rigorous_rdp.research.gaussian_dp.gaussian_sigma`."""
    from ..gaussian_dp import gaussian_sigma

    return gaussian_sigma(
        parse_rational(epsilon, "epsilon"),
        parse_rational(delta, "delta"),
        parse_rational(sensitivity, "sensitivity"),
        digits=digits,
    )


#: name -> calibration ``f(epsilon, delta) -> Certified`` (sensitivity 1), for tables and figures.
GAUSSIAN_CALIBRATIONS: dict[str, Callable[..., Certified]] = {
    "(6.81)": sigma_6_81,
    "(6.82)": sigma_6_82,
    "(6.83)": sigma_6_83,
    "(6.84)": sigma_6_84,
    "(6.91) exact solution": sigma_6_91,
    "Dwork-Roth A.1": sigma_dwork_roth,
    "exact (analytic Gaussian)": sigma_exact,
}


# ---------------------------------------------------------------------------
# composition
# ---------------------------------------------------------------------------


def basic_composition_claim10(epsilons: Sequence[object], deltas: Sequence[object]) -> tuple[Fraction, Fraction]:
    r"""Claim 10 (basic composition, heterogeneous): the adaptive composition of
    :math:`(\epsilon_i,\delta_i)`-DP mechanisms is :math:`(\sum\epsilon_i, \sum\delta_i)`-DP (exact sums).

    For k identical steps see also :func:`rigorous_rdp.research.composition.basic_composition`.
    """
    es = [_nonneg(x, "epsilon") for x in epsilons]
    ds = [_closed_unit(x, "delta") for x in deltas]
    if len(es) != len(ds):
        raise ValueError(f"delta must have one entry per epsilon ({len(es)}). Found {len(ds)}.")
    return sum(es, Fraction(0)), sum(ds, Fraction(0))


def a_ball(e: arb) -> arb:
    # a(eps) = eps (e^eps - 1) for eps <= log 2, eps otherwise  ==  eps * min(e^eps - 1, 1)
    return e * e.expm1().min(arb(1))


def a_epsilon(epsilon: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""a(epsilon) of (6.98) (Claim 12): the bound :math:`D(p\|q) \le a(\epsilon)` for epsilon-ind p, q,

    .. math:: a(\epsilon) = \epsilon(e^\epsilon - 1)\,1_{\epsilon \le \log 2} + \epsilon\,1_{\epsilon > \log 2}
              = \epsilon\,\min(e^\epsilon - 1, 1),

    (the two forms agree since :math:`e^\epsilon - 1 \le 1 \iff \epsilon \le \log 2`; the
    second needs no branch decision on balls, and a is continuous at log 2).
    """
    e = _nonneg(epsilon, "epsilon")
    if e == 0:
        return Certified(arb(0), 64)
    return _cert(lambda: a_ball(A(e)), digits, "a(epsilon) (6.98)")


def a_epsilon_upper(epsilon: object, digits: float = DEFAULT_DIGITS) -> Certified:
    r"""The upper bound in (6.98): :math:`(\log 2)^{-1}\epsilon^2 1_{\epsilon \le \log 2} + \epsilon 1_{\epsilon > \log 2}`
    :math:`= \epsilon\min(\epsilon/\log 2, 1)` (convexity of :math:`e^\epsilon - 1` on :math:`[0, \log 2]`)."""
    e = _nonneg(epsilon, "epsilon")
    if e == 0:
        return Certified(arb(0), 64)
    return _cert(lambda: A(e) * (A(e) / arb(2).log()).min(arb(1)), digits, "(6.98) upper bound")


def _beta(beta: object) -> Fraction:
    return _open_unit(beta, "beta")


def _sqrt_term(k: int, b: Fraction) -> arb:
    return (2 * k * (-A(b).log())).sqrt()


def claim14(epsilon: object, steps: object, beta: object, digits: float = DEFAULT_DIGITS) -> DpGuarantee:
    r"""Claim 14 (advanced independent composition, delta = 0): k epsilon-DP mechanisms compose to
    :math:`(k a(\epsilon) + \sqrt{2k\log\beta^{-1}}\,\epsilon,\ \beta)`-DP (Hoeffding)."""
    e, k, b = _nonneg(epsilon, "epsilon"), _steps(steps), _beta(beta)
    eps = _cert(lambda: k * a_ball(A(e)) + _sqrt_term(k, b) * A(e), digits, "Claim 14")
    return DpGuarantee(eps, _exact(b), "Claim 14")


def claim16(epsilon: object, steps: object, beta: object, digits: float = DEFAULT_DIGITS) -> DpGuarantee:
    r"""Claim 16 (advanced adaptive composition, delta = 0): k adaptive epsilon-DP mechanisms compose to
    :math:`(k a(\epsilon) + \sqrt{2k\log\beta^{-1}}\,(\epsilon + a(\epsilon)),\ \beta)`-DP (Azuma, (6.99))."""
    e, k, b = _nonneg(epsilon, "epsilon"), _steps(steps), _beta(beta)
    eps = _cert(lambda: k * a_ball(A(e)) + _sqrt_term(k, b) * (A(e) + a_ball(A(e))), digits, "Claim 16")
    return DpGuarantee(eps, _exact(b), "Claim 16")


def claim17(epsilon: object, delta: object, steps: object, beta: object, digits: float = DEFAULT_DIGITS) -> DpGuarantee:
    r"""Claim 17 (advanced independent composition): k :math:`(\epsilon,\delta)`-DP mechanisms compose to
    :math:`(k a(\epsilon) + \sqrt{2k\log\beta^{-1}}\,\epsilon,\ k\delta + \beta)`-DP."""
    d = _closed_unit(delta, "delta")
    g = claim14(epsilon, steps, beta, digits)
    k, b = _steps(steps), _beta(beta)
    return DpGuarantee(g.epsilon, _exact(k * d + b), "Claim 17")


def claim18(epsilon: object, delta: object, steps: object, beta: object, digits: float = DEFAULT_DIGITS) -> DpGuarantee:
    r"""Claim 18 (advanced adaptive composition): k adaptive :math:`(\epsilon,\delta)`-DP mechanisms compose to
    :math:`(k a(\epsilon) + \sqrt{2k\log\beta^{-1}}\,(\epsilon + a(\epsilon)),\ k\delta + \beta)`-DP.

    Compared with Dwork & Roth 2014, Thm. 3.20
    (:func:`rigorous_rdp.research.composition.advanced_composition_epsilon`,
    :math:`k\epsilon(e^\epsilon-1) + \sqrt{2k\log\beta^{-1}}\,\epsilon`), the first term is
    never larger (:math:`a(\epsilon) \le \epsilon(e^\epsilon - 1)`) but the square-root
    term carries the extra :math:`a(\epsilon)` from the Azuma range
    :math:`|L_i - a(\epsilon)| \le \epsilon + a(\epsilon)`.
    """
    d = _closed_unit(delta, "delta")
    g = claim16(epsilon, steps, beta, digits)
    k, b = _steps(steps), _beta(beta)
    return DpGuarantee(g.epsilon, _exact(k * d + b), "Claim 18")


# ---------------------------------------------------------------------------
# subsampling (Claim 19) and DP-SGD
# ---------------------------------------------------------------------------


def claim19(epsilon: object, delta: object, r: object, digits: float = DEFAULT_DIGITS) -> DpGuarantee:
    r"""Claim 19 (Ullman 2017): running an :math:`(\epsilon,\delta)`-DP mechanism on a uniformly random
    subset of fixed size n of m rows (r = n/m, replace-one neighbours) is
    :math:`(\log(1 + r(e^\epsilon - 1)),\ r\delta)`-DP.

    The formula is the same as amplification by Poisson subsampling (add/remove
    neighbours), so it is evaluated by
    :func:`rigorous_rdp.research.composition.amplify_poisson`.
    """
    e, d, rr = _nonneg(epsilon, "epsilon"), _closed_unit(delta, "delta"), _closed_unit(r, "r")
    from ..composition import amplify_poisson

    eps = _cert(lambda: amplify_poisson(e, d, rr)[0], digits, "Claim 19") if e > 0 and rr > 0 else _exact(Fraction(0))
    return DpGuarantee(eps, _exact(rr * d), "Claim 19")


def claim19_relaxed(
    epsilon: object, delta: object, r: object, alpha: object | None = None, digits: float = DEFAULT_DIGITS
) -> DpGuarantee:
    r"""The relaxations after Claim 19: :math:`(r(e^\epsilon - 1), r\delta)`-DP (from :math:`\log(1+x) < x`), and,
    if ``alpha`` is given and :math:`\epsilon \le \alpha`, :math:`(r\alpha^{-1}(e^\alpha - 1)\epsilon, r\delta)`-DP
    (convexity of :math:`e^x - 1`).  With :math:`\alpha = 1` and :math:`\epsilon < 1` this is
    the post's :math:`(2r\epsilon, r\delta)` since :math:`e - 1 < 2`.
    """
    e, d, rr = _nonneg(epsilon, "epsilon"), _closed_unit(delta, "delta"), _closed_unit(r, "r")
    if alpha is None:
        eps = (
            _cert(lambda: A(rr) * A(e).expm1(), digits, "Claim 19, relaxed")
            if e > 0 and rr > 0
            else _exact(Fraction(0))
        )
        return DpGuarantee(eps, _exact(rr * d), "Claim 19 relaxed: r(e^eps - 1)")
    a = _bounded_alpha(e, alpha)
    eps = (
        _cert(lambda: A(rr) * A(a).expm1() / A(a) * A(e), digits, "Claim 19, relaxed")
        if e > 0 and rr > 0
        else _exact(Fraction(0))
    )
    return DpGuarantee(eps, _exact(rr * d), "Claim 19 relaxed: r alpha^-1 (e^alpha - 1) eps")


def _epochs_to_steps(k: object, r: Fraction) -> int:
    kk = positive(k, "epochs")
    t = kk / r
    if t.denominator != 1:
        raise ValueError(f"epochs must make k / r an integer number of steps. Found k = {k!r}, r = {r}.")
    return int(t)


def dpsgd_guarantee(
    epsilon: object,
    delta: object,
    r: object,
    epochs: object,
    beta: object,
    *,
    relaxed: bool = False,
    digits: float = DEFAULT_DIGITS,
) -> DpGuarantee:
    r"""The DP-SGD guarantee at the end of part 1, as the chain Claim 19 -> Claim 18 gives it.

    Each step runs an :math:`(\epsilon,\delta)`-DP mechanism on a subsample of rate r;
    over k epochs there are :math:`T = k/r` steps.  Claim 19 makes each step
    :math:`(\tilde\epsilon, r\delta)`-DP with :math:`\tilde\epsilon = \log(1 + r(e^\epsilon-1))`
    (or, with ``relaxed=True`` and :math:`\epsilon < 1`, the post's :math:`\tilde\epsilon = 2r\epsilon`),
    and Claim 18 gives :math:`(T a(\tilde\epsilon) + \sqrt{2T\log\beta^{-1}}(\tilde\epsilon + a(\tilde\epsilon)),\ k\delta + \beta)`.
    See the module docstring (item 4) for how this differs from the value stated in the post.
    """
    e, d = _pos(epsilon, "epsilon"), _closed_unit(delta, "delta")
    rr = _closed_unit(r, "r")
    if rr == 0:
        raise ValueError(f"r must be in (0, 1]. Found {r!r}.")
    b = _beta(beta)
    T = _epochs_to_steps(epochs, rr)
    if relaxed:
        if e >= 1:
            raise ValueError(f"epsilon must be < 1 for the relaxed (2 r epsilon) step. Found {epsilon!r}.")

        def step() -> arb:
            return 2 * A(rr) * A(e)
    else:

        def step() -> arb:
            return (A(rr) * A(e).expm1()).log1p()

    def f() -> arb:
        et = step()
        at = a_ball(et)
        return T * at + _sqrt_term(T, b) * (et + at)

    eps = _cert(f, digits, "DP-SGD, Claims 19 and 18")
    return DpGuarantee(eps, _exact(T * rr * d + b), "Claims 19 + 18" + (" (2 r eps step)" if relaxed else ""))


def dpsgd_guarantee_as_stated(
    epsilon: object, delta: object, r: object, epochs: object, beta: object, digits: float = DEFAULT_DIGITS
) -> DpGuarantee:
    r"""The DP-SGD value exactly as the post states it (end of part 1):
    :math:`(\sqrt{2kr\log\beta^{-1}}\,\epsilon + 2kr\epsilon^2,\ k\delta + \beta)`; with r = 1 it is the
    post's "without subsampling" value :math:`(\sqrt{2k\log\beta^{-1}}\,\epsilon + 2k\epsilon^2)`.

    NOT implied by Claims 19 and 18 (module docstring, item 4): compare with
    :func:`dpsgd_guarantee`.  Provided to reproduce and check the post.
    """
    e, d = _pos(epsilon, "epsilon"), _closed_unit(delta, "delta")
    rr = _closed_unit(r, "r")
    kk = positive(epochs, "epochs")
    b = _beta(beta)
    eps = _cert(
        lambda: (2 * A(kk) * A(rr) * (-A(b).log())).sqrt() * A(e) + 2 * A(kk) * A(rr) * A(e) * A(e),
        digits,
        "DP-SGD as stated",
    )
    return DpGuarantee(eps, _exact(kk * d + b), "as stated at the end of part 1 (not implied by Claims 19 + 18)")
