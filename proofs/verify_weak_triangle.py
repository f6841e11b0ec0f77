r"""Checks of the weak triangle inequality (Mironov 2017, Prop. 11) as used by
:class:`rigorous_rdp.subsampling.poisson_replace_one.WeakTriangleReplaceOneCurve`.

.. math:: D_\alpha(P\|Q) \le \frac{\alpha - 1/p}{\alpha - 1} D_{p\alpha}(P\|R) + D_{1+(\alpha-1)p'}(R\|Q),
          \qquad p > 1,\ p' = p/(p-1).

Run as a script or collected by pytest.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

a, p = sp.symbols("alpha p", positive=True)


def test_exponent_algebra():
    """The exponents of the Hölder step: (P/R)^alpha (R/Q)^(alpha-1) integrated against R;
    1/p + 1/p' = 1; (p alpha - 1)/p = alpha - 1/p; E_R[(R/Q)^{(alpha-1)p'}] = E_Q[(R/Q)^{1+(alpha-1)p'}]."""
    pp = p / (p - 1)
    assert sp.simplify(1 / p + 1 / pp - 1) == 0
    assert sp.simplify((p * a - 1) / p - (a - 1 / p)) == 0
    P, Q, R = sp.symbols("P Q R", positive=True)
    # pointwise: P^a Q^(1-a) = R (P/R)^a (R/Q)^(a-1)
    assert sp.simplify(P**a * Q ** (1 - a) - R * (P / R) ** a * (R / Q) ** (a - 1)) == 0
    # R (R/Q)^((a-1)p') = Q (R/Q)^(1 + (a-1)p')
    assert sp.simplify(R * (R / Q) ** ((a - 1) * pp) - Q * (R / Q) ** (1 + (a - 1) * pp)) == 0
    # the log of the second Hölder factor: (1/p') (a-1)p' D = (a-1) D
    assert sp.simplify((a - 1) * pp / pp - (a - 1)) == 0


def test_gaussians():
    """For P = N(1, s^2), Q = N(-1, s^2), R = N(0, s^2) (D_b(N(m1)||N(m2)) = b (m1-m2)^2 / (2 s^2)),
    the inequality reads 4 alpha <= (alpha - 1/p) p alpha / (alpha - 1) + 1 + (alpha - 1) p'; the gap is
    (alpha p - 2 alpha + 1)^2 / ((alpha - 1)(p - 1)) >= 0 (equality at p = 2 - 1/alpha)."""
    pp = p / (p - 1)
    rhs = (a - 1 / p) * p * a / (a - 1) + 1 + (a - 1) * pp
    assert sp.simplify(rhs - 4 * a - (a * p - 2 * a + 1) ** 2 / ((a - 1) * (p - 1))) == 0


def test_poisson_replace_one_curve_above_true_divergence():
    """The certified weak-triangle curve (Poisson-subsampled Gaussian, replace-one) is above the
    divergence of the anti-parallel pair qN(1)+(1-q)N(0) vs qN(-1)+(1-q)N(0) (quadrature)."""
    from rigorous_rdp.arith import workprec
    from rigorous_rdp.subsampling.poisson_gaussian import PoissonGaussianCurve
    from rigorous_rdp.subsampling.poisson_replace_one import WeakTriangleReplaceOneCurve

    for q, s, al in (
        (Fraction(1, 10), Fraction(1, 2), Fraction(2)),
        (Fraction(1, 2), Fraction(1), Fraction(3, 2)),
        (Fraction(1, 100), Fraction(3, 10), Fraction(5)),
    ):
        c = WeakTriangleReplaceOneCurve(PoissonGaussianCurve(q, s))
        with workprec(64):
            v = c.certified(al)
        with mpmath.workdps(25):
            qq, ss, aa = (mpmath.mpf(z.numerator) / z.denominator for z in (q, s, al))

            def P(z, qq=qq, ss=ss):
                return (1 - qq) * mpmath.npdf(z, 0, ss) + qq * mpmath.npdf(z, 1, ss)

            def Q(z, qq=qq, ss=ss):
                return (1 - qq) * mpmath.npdf(z, 0, ss) + qq * mpmath.npdf(z, -1, ss)

            true = mpmath.log(
                mpmath.quad(
                    lambda z, P=P, Q=Q, aa=aa: P(z) ** aa * Q(z) ** (1 - aa), [-mpmath.inf, -2, 0, 2, mpmath.inf]
                )
            ) / (aa - 1)
            assert mpmath.mpf(v.lower().str(25, radius=False)) >= true, (q, s, al)


if __name__ == "__main__":  # pragma: no cover
    import sys

    from _runner import run_checks

    sys.exit(run_checks(globals(), "the weak triangle inequality (Mironov 2017, Prop. 11)"))
