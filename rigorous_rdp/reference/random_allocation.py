r"""mpmath reference values for random allocation (balls-and-bins, k = 1) of the Gaussian mechanism.

A second opinion for :mod:`rigorous_rdp.subsampling.random_allocation`, along other paths
than its series power and its Laplace-transform bound (plain mpmath, no ball arithmetic, not
certified):

* :func:`remove_moment_partition_sum` -- the remove-direction moment
  :math:`A_\alpha = \mathbb{E}_Q[L^\alpha]` as the sum over the integer partitions
  :math:`\lambda = (p_1 \ge \dots \ge p_\ell)` of :math:`\alpha` into at most :math:`t` parts (the
  form of Feldman & Shenfeld 2025 for the remove direction):

  .. math:: A_\alpha = t^{-\alpha} e^{-\alpha s^2/2} \sum_{\lambda}
            \frac{t!}{(t-\ell)!\,\prod_k c_k!}\;\frac{\alpha!}{\prod_i p_i!}\; e^{s^2\sum_i p_i^2/2},

  with :math:`c_k` the number of parts equal to k and :math:`s = 1/\sigma`: the number of ways to
  place the parts on :math:`\ell` of the :math:`t` coordinates, times the multinomial coefficient,
  times :math:`\prod_i \mathbb{E}[e^{p_i s y}] = e^{s^2\sum p_i^2/2}`.  Enumeration: practical up to
  :math:`\alpha` of about 40.
* :func:`moment_by_quadrature` -- :math:`\mathbb{E}_Q[L^\beta]` for real :math:`\beta` at
  :math:`t \le 3` from the definition :math:`L = \frac1t\sum_i e^{s y_i - s^2/2}`,
  :math:`y \sim N(0, I_t)`.  The orthogonal change of variables :math:`y = \bar y\,\mathbf 1 + r`
  (:math:`\bar y \sim N(0, 1/t)` independent of the residual r in the plane
  :math:`\sum_i r_i = 0`) splits off the factor
  :math:`\mathbb{E}[e^{\beta s \bar y}] = e^{\beta^2 s^2/(2t)}`:

  .. math:: \mathbb{E}_Q[L^\beta] = e^{\beta^2 s^2/(2t) - \beta s^2/2}\;
            \mathbb{E}\Big[\Big(\frac1t\sum_i e^{s r_i}\Big)^\beta\Big],

  a (t-1)-dimensional Gaussian integral: none at t = 1, :math:`\cosh(s w/\sqrt2)` at t = 2
  (1-D quadrature), a 2-D quadrature at t = 3.  It gives both directions:
  :math:`\beta = \alpha` (remove) and :math:`\beta = 1 - \alpha` (add), the add direction
  *exactly* (the certified code bounds it from above).
* :func:`add_moment_laplace` -- the add-direction moment :math:`B_\alpha = \mathbb{E}_Q[L^{-(\alpha-1)}]`
  at any t from the Gamma-function identity
  :math:`B_\alpha = \Gamma(m)^{-1}\int_0^\infty w^{m-1}\varphi(w/t)^t\,dw`, :math:`m = \alpha - 1`,
  with the log-normal Laplace transform :math:`\varphi(v) = \mathbb{E}[e^{-vY}]` itself computed by
  Gauss-Hermite quadrature (not by the Taylor upper bound of the certified code), so that it
  gives the exact value, not a bound, up to quadrature error.
* :func:`remove_moment_recurrence` -- :math:`A_\alpha = \alpha!\,[x^\alpha]\,\tilde F(x)^t` by J. C. P.
  Miller's recurrence for the power of a power series (:math:`G = \tilde F^t` satisfies
  :math:`\tilde F G' = t \tilde F' G`, so
  :math:`g_n = \frac{1}{n f_0}\sum_{j=1}^n (t j - n + j) f_j g_{n-j}`): :math:`O(\alpha^2)`
  operations, a different path from the certified ``exp(t log F)`` and practical to order 1024.
* :func:`allocation_rdp_reference` -- the value the certified curve bounds at one order, for
  :math:`k`-of-:math:`t` allocation: per block of the decomposition, the exact remove value and
  (where the remove value does not already exceed the geometric-mean bound) the exact add value;
  the verifier's second opinion.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import mpmath

__all__ = [
    "add_moment_laplace",
    "add_rdp_laplace",
    "add_rdp_quadrature",
    "allocation_rdp_reference",
    "integer_partitions",
    "moment_by_quadrature",
    "remove_moment_partition_sum",
    "remove_moment_recurrence",
    "remove_rdp_partition_sum",
    "remove_rdp_quadrature",
]


def integer_partitions(n: int, max_part: int | None = None) -> Iterator[tuple[int, ...]]:
    """The partitions of ``n`` as non-increasing tuples of positive parts (each once)."""
    if max_part is None:
        max_part = n
    if n == 0:
        yield ()
        return
    for first in range(min(n, max_part), 0, -1):
        for rest in integer_partitions(n - first, first):
            yield (first, *rest)


def remove_moment_partition_sum(alpha: int, noise_multiplier: object, steps: int, dps: int = 40) -> mpmath.mpf:
    r""":math:`A_\alpha = \mathbb{E}_Q[L^\alpha]` by the sum over integer partitions (module docstring)."""
    with mpmath.workdps(dps):
        s2 = 1 / mpmath.mpf(noise_multiplier) ** 2
        total = mpmath.mpf(0)
        for lam in integer_partitions(alpha):
            ell = len(lam)
            if ell > steps:
                continue
            counts: dict[int, int] = {}
            for p in lam:
                counts[p] = counts.get(p, 0) + 1
            places = mpmath.factorial(steps) / mpmath.factorial(steps - ell)
            for c in counts.values():
                places /= mpmath.factorial(c)
            multinomial = mpmath.factorial(alpha)
            for p in lam:
                multinomial /= mpmath.factorial(p)
            total += places * multinomial * mpmath.exp(s2 * sum(p * p for p in lam) / 2)
        return +(total * mpmath.mpf(steps) ** (-alpha) * mpmath.exp(-alpha * s2 / 2))


def remove_rdp_partition_sum(alpha: int, noise_multiplier: object, steps: int, dps: int = 40) -> mpmath.mpf:
    r"""Remove-direction RDP :math:`\log(A_\alpha)/(\alpha-1)` of one epoch from :func:`remove_moment_partition_sum`."""
    with mpmath.workdps(dps):
        return mpmath.log(remove_moment_partition_sum(alpha, noise_multiplier, steps, dps)) / (alpha - 1)


def moment_by_quadrature(beta: object, noise_multiplier: object, steps: int, dps: int = 30) -> mpmath.mpf:
    r""":math:`\mathbb{E}_Q[L^\beta]` for :math:`t = 1, 2, 3` by quadrature of the definition
    (module docstring).  Raises ``ValueError`` for other ``steps``."""
    if steps not in (1, 2, 3):
        raise ValueError(f"steps must be 1, 2 or 3 for the quadrature reference. Found {steps}.")
    with mpmath.workdps(dps + 10):
        b = mpmath.mpf(beta)
        s = 1 / mpmath.mpf(noise_multiplier)
        front = mpmath.exp(b * b * s * s / (2 * steps) - b * s * s / 2)
        if steps == 1:
            return +front
        g = 1 / mpmath.sqrt(2 * mpmath.pi)
        if steps == 2:
            c = s / mpmath.sqrt(2)

            def f1(w: mpmath.mpf) -> mpmath.mpf:
                return g * mpmath.exp(-w * w / 2) * mpmath.cosh(c * w) ** b

            inner = mpmath.quad(f1, [-mpmath.inf, -10, -3, 0, 3, 10, mpmath.inf])
            return +(front * inner)
        u = s / mpmath.sqrt(2)
        v = s / mpmath.sqrt(6)

        def f2(a: mpmath.mpf, c2: mpmath.mpf) -> mpmath.mpf:
            r = (mpmath.exp(u * a + v * c2) + mpmath.exp(-u * a + v * c2) + mpmath.exp(-2 * v * c2)) / 3
            return g * g * mpmath.exp(-(a * a + c2 * c2) / 2) * r**b

        cuts = [-mpmath.inf, -4, 0, 4, mpmath.inf]
        return +(front * mpmath.quad(f2, cuts, cuts))


def remove_rdp_quadrature(alpha: object, noise_multiplier: object, steps: int, dps: int = 30) -> mpmath.mpf:
    r"""Remove-direction RDP :math:`\log\mathbb{E}_Q[L^\alpha]/(\alpha-1)` (t <= 3, any real order > 1)."""
    with mpmath.workdps(dps + 10):
        a = mpmath.mpf(alpha)
        return mpmath.log(moment_by_quadrature(a, noise_multiplier, steps, dps)) / (a - 1)


def add_rdp_quadrature(alpha: object, noise_multiplier: object, steps: int, dps: int = 30) -> mpmath.mpf:
    r"""Exact add-direction RDP :math:`\log\mathbb{E}_Q[L^{1-\alpha}]/(\alpha-1)` (t <= 3, any real order > 1)."""
    with mpmath.workdps(dps + 10):
        a = mpmath.mpf(alpha)
        return mpmath.log(moment_by_quadrature(1 - a, noise_multiplier, steps, dps)) / (a - 1)


def add_moment_laplace(alpha: int, noise_multiplier: object, steps: int, dps: int = 30, nodes: int = 120) -> mpmath.mpf:
    r""":math:`B_\alpha = \mathbb{E}_Q[L^{-(\alpha-1)}]` from the Gamma-function identity with the exact
    Laplace transform of the log-normal (Gauss-Hermite with ``nodes`` nodes; module docstring)."""
    with mpmath.workdps(dps + 10):
        s = 1 / mpmath.mpf(noise_multiplier)
        x, wts = mpmath.gauss_quadrature(nodes, "hermite")
        ys = [mpmath.exp(s * mpmath.sqrt(2) * xi - s * s / 2) for xi in x]
        ws = [wi / mpmath.sqrt(mpmath.pi) for wi in wts]
        m = alpha - 1
        t = mpmath.mpf(steps)

        def phi(v: mpmath.mpf) -> mpmath.mpf:
            return mpmath.fsum(wi * mpmath.exp(-v * yi) for wi, yi in zip(ws, ys, strict=True))

        def f(w: mpmath.mpf) -> mpmath.mpf:
            if w == 0:
                return mpmath.mpf(1) if m == 1 else mpmath.mpf(0)
            return mpmath.exp((m - 1) * mpmath.log(w) + steps * mpmath.log(phi(w / t)) - mpmath.loggamma(m))

        cuts = [0, max(m, 1) / mpmath.mpf(2), max(m, 1), 2 * max(m, 1), 4 * max(m, 1) + 20, 10 * max(m, 1) + 60]
        return +mpmath.quad(f, [*cuts, mpmath.inf])


def add_rdp_laplace(alpha: int, noise_multiplier: object, steps: int, dps: int = 30, nodes: int = 120) -> mpmath.mpf:
    r"""Exact add-direction RDP :math:`\log(B_\alpha)/(\alpha-1)` of one epoch from :func:`add_moment_laplace`."""
    with mpmath.workdps(dps + 10):
        return mpmath.log(add_moment_laplace(alpha, noise_multiplier, steps, dps, nodes)) / (alpha - 1)


def _mpf(x: object) -> mpmath.mpf:
    """An exact rational (``Fraction``), a number or a decimal string as an mpf."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def remove_moment_recurrence(alpha: int, noise_multiplier: object, steps: int, dps: int = 40) -> mpmath.mpf:
    r""":math:`A_\alpha = \mathbb{E}_Q[L^\alpha]` of one epoch (``steps`` = t) by Miller's recurrence
    (module docstring)."""
    with mpmath.workdps(dps + 20):
        s2 = 1 / _mpf(noise_multiplier) ** 2
        t = mpmath.mpf(steps)
        f = [mpmath.exp(s2 * n * (n - 1) / 2) / (mpmath.factorial(n) * t**n) for n in range(alpha + 1)]
        g = [mpmath.mpf(1)]  # f_0 = 1, so g_0 = 1
        for n in range(1, alpha + 1):
            acc = mpmath.fsum((t * j - n + j) * f[j] * g[n - j] for j in range(1, n + 1))
            g.append(acc / n)
        return +(g[alpha] * mpmath.factorial(alpha))


def allocation_rdp_reference(
    alpha: int, noise_multiplier: object, steps: int, selected: int = 1, direction: str = "both", dps: int = 40
) -> mpmath.mpf:
    r"""The one-epoch value that ``RandomAllocationGaussianCurve`` certifies at integer order ``alpha``:
    with the blocks of the decomposition of ``selected``-of-``steps`` allocation (sizes
    :math:`\lfloor t/k\rfloor` and :math:`\lfloor t/k\rfloor + 1`), the sum of the exact remove values
    (``"remove"``), of the add-direction bounds (``"add"``, :func:`add_bound_laplace`), or their
    maximum (``"both"``; the add sum only where the remove sum is below the sum of the
    geometric-mean bounds, as the certified code does: elsewhere the add value is below the
    remove value anyway)."""
    with mpmath.workdps(dps + 20):
        sigma = _mpf(noise_multiplier)
        m, r = divmod(steps, selected)
        blocks = [(size, count) for size, count in ((m, selected - r), (m + 1, r)) if count > 0]
        a1 = alpha - 1
        rem = mpmath.fsum(c * mpmath.log(remove_moment_recurrence(alpha, sigma, size, dps)) / a1 for size, c in blocks)
        if direction == "remove":
            return rem
        gm = mpmath.fsum(c * (1 + mpmath.mpf(a1) / size) / (2 * sigma**2) for size, c in blocks)
        if direction == "both" and rem >= gm:
            return rem

        def add(size: int) -> mpmath.mpf:
            if size == 1:
                return alpha / (2 * sigma**2)
            return add_bound_laplace(alpha, noise_multiplier, size, dps)

        add_total = mpmath.fsum(c * add(size) for size, c in blocks)
        return add_total if direction == "add" else max(rem, add_total)


def add_bound_laplace(alpha: int, noise_multiplier: object, steps: int, dps: int = 40) -> mpmath.mpf:
    r"""The add-direction bound of the certified code at one order, evaluated in plain mpmath: the
    smaller of the geometric-mean bound :math:`(1 + (\alpha-1)/t)/(2\sigma^2)` and, for each
    :math:`K \in \{1, 2, 3\}` where it applies, the Laplace-transform bound

    .. math:: \frac{1}{\alpha-1}\log\Big(\frac{1}{(m-1)!}\int_0^W w^{m-1} p_K(w/t)^t\,dw
              + p_K(W/t)^{t-t_1}\big(\tfrac{t}{t_1}\big)^m e^{m s^2/2 + m^2 s^2/(2t_1)}\Big)

    (``rigorous_rdp.subsampling.random_allocation``, add direction item 2; :math:`m = \alpha - 1`),
    at the :math:`(W, t_1)` that the certified code's float screen chooses (a choice: any
    :math:`W > 0` gives a valid bound); the integral of the polynomial by ``mpmath.quad``."""
    from ..subsampling import random_allocation as ra

    with mpmath.workdps(dps + 20):
        sigma = _mpf(noise_multiplier)
        s2 = 1 / sigma**2
        t = steps
        m = alpha - 1
        best = (1 + mpmath.mpf(m) / t) * s2 / 2
        if t == 1:
            return best
        s2f = float(1 / Fraction(noise_multiplier) ** 2) if isinstance(noise_multiplier, Fraction) else float(s2)
        prec_bits = int((dps + 20) * 3.33) + ra.GUARD_BITS
        for K in ra.LAPLACE_HALF_DEGREES:
            chosen = ra._laplace_screen(s2f, t, m, prec_bits, K)
            if chosen is None:
                continue
            w_max, t1 = chosen
            W = _mpf(Fraction(w_max).limit_denominator(1 << 20))
            coef = [(-1) ** j * mpmath.exp(s2 * j * (j - 1) / 2) / (mpmath.factorial(j) * mpmath.mpf(t) ** j)
                    for j in range(2 * K + 1)]  # fmt: skip

            def poly(w: mpmath.mpf, coef: list = coef) -> mpmath.mpf:
                return mpmath.fsum(c * w**j for j, c in enumerate(coef))

            pieces = [W * i / 8 for i in range(9)]
            integral = mpmath.quad(lambda w, poly=poly: w ** (m - 1) * poly(w) ** t, pieces) / mpmath.factorial(m - 1)
            p_w = poly(W)
            if p_w <= 0:
                continue
            tail = p_w ** (t - t1) * (mpmath.mpf(t) / t1) ** m * mpmath.exp(s2 * m / 2 + s2 * m * m / (2 * t1))
            total = integral + tail
            if total > 0:
                best = min(best, mpmath.log(total) / m)
        return best
