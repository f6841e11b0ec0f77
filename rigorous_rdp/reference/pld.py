r"""mpmath reference values of the optimal delta(epsilon) of small compositions.

An independent code path for :mod:`rigorous_rdp.pld` (plain mpmath, no arb, no
discretisation).  It evaluates the hockey-stick divergence of the composed
dominating pair directly:

.. math::
    \delta_T(\varepsilon) = E_{P^T}\big[(1 - e^{\varepsilon - L_1 - \dots - L_T})_+\big]
    = E_{X \sim P}\big[\delta_{T-1}(\varepsilon - \ell(X))\big],

the recursion being Fubini's theorem on the product measure, with :math:`\delta_1` in
closed form.  Each level is one mpmath quadrature (an *estimate*, with mpmath's error
estimate, not a bound), so the cost grows like (number of nodes)^(T-1): use T <= 3 for
continuous mechanisms.  Randomized response is an exact finite sum, and the
Gaussian has the closed form of the composed Gaussian,
:math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon \Phi(-\varepsilon/\mu - \mu/2)`
with :math:`\mu = \sqrt{T}/\sigma` (Balle & Wang 2018, Theorem 8; Dong, Roth, Su 2022,
Corollary 2.13).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any

import mpmath

from ..arith import bisect_first

__all__ = [
    "gaussian_delta",
    "laplace_delta",
    "poisson_gaussian_delta",
    "poisson_laplace_delta",
    "poisson_randomized_response_delta",
    "randomized_response_delta",
    "replace_one_gaussian_delta",
]


def _mp(x) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _ncdf(z):
    return mpmath.ncdf(z)


def gaussian_delta(sigma, steps: int, eps, dps: int = 40) -> mpmath.mpf:
    """Optimal delta of ``steps`` Gaussian mechanisms with noise ``sigma`` (closed form)."""
    with mpmath.workdps(dps):
        mu = mpmath.sqrt(steps) / _mp(sigma)
        e = _mp(eps)
        return _ncdf(-e / mu + mu / 2) - mpmath.exp(e) * _ncdf(-e / mu - mu / 2)


def randomized_response_delta(p, steps: int, eps, dps: int = 40) -> mpmath.mpf:
    r"""Exact: with :math:`p' = \max(p, 1 - p)`, the composed loss is :math:`(2k - T)\ell`
    with binomial(T, p') P-mass, :math:`\ell = \log(p'/(1-p'))`."""
    with mpmath.workdps(dps):
        pp = _mp(max(Fraction(p), 1 - Fraction(p)))
        ell = mpmath.log(pp / (1 - pp))
        e = _mp(eps)
        total = mpmath.mpf(0)
        for k in range(steps + 1):
            loss = (2 * k - steps) * ell
            if loss > e:
                total += mpmath.binomial(steps, k) * pp**k * (1 - pp) ** (steps - k) * (1 - mpmath.exp(e - loss))
        return total


def _laplace_delta1(b: mpmath.mpf, e: mpmath.mpf) -> mpmath.mpf:
    beta = 1 / b
    if e >= beta:
        return mpmath.mpf(0)
    if e < -beta:
        return 1 - mpmath.exp(e)
    xe = (1 - b * e) / 2
    return 1 - mpmath.exp(-xe / b) / 2 - mpmath.exp(e) * mpmath.exp((xe - 1) / b) / 2


def laplace_delta(scale, steps: int, eps, dps: int = 30) -> mpmath.mpf:
    """Optimal delta of ``steps`` Laplace mechanisms (recursion over the loss law)."""
    with mpmath.workdps(dps):
        b = _mp(scale)
        beta = 1 / b

        def delta(t: int, e):
            if t == 1:
                return _laplace_delta1(b, e)
            atoms = delta(t - 1, e - beta) / 2 + mpmath.exp(-beta) / 2 * delta(t - 1, e + beta)
            # split at the kinks of delta_{t-1} (its argument a multiple of beta): an unsplit panel
            # across a kink is off by ~1e-7
            pts = sorted(
                {mpmath.mpf(0), mpmath.mpf(1) / 2, mpmath.mpf(1)}
                | {(1 - e / beta + k) / 2 for k in range(-(t - 1), t) if 0 < (1 - e / beta + k) / 2 < 1}
            )
            mid = mpmath.quad(lambda x: mpmath.exp(-x / b) / (2 * b) * delta(t - 1, e - (1 - 2 * x) / b), pts)
            return atoms + mid

        return delta(steps, _mp(eps))


# ---------------------------------------------------------------------------
# subsampled Laplace and randomized response, replace-one Gaussian (pld.pairs)
# ---------------------------------------------------------------------------


def _lap_pdf(x, mu, b):
    return mpmath.exp(-abs(x - mu) / b) / (2 * b)


def _lap_cdf(x, mu, b):
    z = (x - mu) / b
    return mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2


def _poisson_laplace_delta1(q, b, e, direction: str):
    r"""delta of :math:`(qLap(1,b) + (1-q)Lap(0,b), Lap(0,b))` (remove) or the swapped pair
    (add) at e: :math:`P(A) - e^\varepsilon Q(A)` with A the set where the density ratio
    exceeds :math:`e^\varepsilon`, a half-line (the ratio is non-decreasing in x) whose end is
    found by bisection on the densities on (0, 1); constant ratio pieces x <= 0 and x >= 1 are
    whole (in or out)."""

    def mix(x):
        return q * _lap_pdf(x, 1, b) + (1 - q) * _lap_pdf(x, 0, b)

    def pm(x):  # mixture CDF
        return q * _lap_cdf(x, 1, b) + (1 - q) * _lap_cdf(x, 0, b)

    def qm(x):
        return _lap_cdf(x, 0, b)

    gamma = mpmath.exp(e)
    if direction == "remove":

        def ratio(x):
            return mix(x) / _lap_pdf(x, 0, b)

    else:

        def ratio(x):
            return _lap_pdf(x, 0, b) / mix(x)

    lo_r, hi_r = ratio(mpmath.mpf(-1)), ratio(mpmath.mpf(2))  # values on x <= 0 and x >= 1

    def crossing():  # the end c of the half-line, where ratio = gamma, in [0, 1]
        c = mpmath.findroot(lambda x: ratio(x) - gamma, (mpmath.mpf(0), mpmath.mpf(1)), solver="anderson")
        return min(max(c, mpmath.mpf(0)), mpmath.mpf(1))

    # the set {ratio > gamma}: for remove an upper half-line {x > c}, for add a lower one {x < c}
    if direction == "remove":
        if gamma >= hi_r:
            return mpmath.mpf(0)
        if gamma < lo_r:
            return 1 - gamma
        c = crossing()
        return (1 - pm(c)) - gamma * (1 - qm(c))
    if gamma >= lo_r:
        return mpmath.mpf(0)
    if gamma < hi_r:
        return 1 - gamma
    c = crossing()
    return qm(c) - gamma * pm(c)


def _poisson_rr_atoms(q, p) -> list:
    """(P_i, Q_i) of the Poisson-sampled randomized-response remove pair, in mpmath."""
    qq = _mp(Fraction(q))
    pp = _mp(max(Fraction(p), 1 - Fraction(p)))
    return [(qq * pp + (1 - qq) * (1 - pp), 1 - pp), (qq * (1 - pp) + (1 - qq) * pp, pp)]


def _finite_delta1(atoms: list, e, direction: str):
    if direction == "add":
        atoms = [(b, a) for a, b in atoms]
    g = mpmath.exp(e)
    return sum((max(mpmath.mpf(0), a - g * b) for a, b in atoms), mpmath.mpf(0))


def poisson_randomized_response_delta(q, p, steps: int, eps, direction: str = "remove", dps: int = 40):
    """Optimal delta of ``steps`` Poisson-sampled randomized responses (exact binomial sum:
    two outcomes, k of the first)."""
    with mpmath.workdps(dps):
        atoms = _poisson_rr_atoms(q, p)
        if direction == "add":
            atoms = [(b, a) for a, b in atoms]
        (p0, q0), (p1, q1) = atoms
        g = mpmath.exp(_mp(eps))
        total = mpmath.mpf(0)
        for k in range(steps + 1):
            c = mpmath.binomial(steps, k)
            pk = c * p0**k * p1 ** (steps - k)
            qk = c * q0**k * q1 ** (steps - k)
            total += max(mpmath.mpf(0), pk - g * qk)
        return total


def poisson_laplace_delta(q, scale, steps: int, eps, direction: str = "remove", dps: int = 20):
    r"""Optimal delta of ``steps`` Poisson-sampled Laplace mechanisms, by the recursion of the
    module docstring over the P-density (quadrature with breakpoints 0 and 1) and
    :func:`_poisson_laplace_delta1` at the last level (T <= 2 is practical)."""
    with mpmath.workdps(dps):
        qq, b = _mp(q), _mp(scale)

        def p_density(x):
            if direction == "remove":
                return qq * _lap_pdf(x, 1, b) + (1 - qq) * _lap_pdf(x, 0, b)
            return _lap_pdf(x, 0, b)

        def loss(x):
            r = mpmath.log((qq * _lap_pdf(x, 1, b) + (1 - qq) * _lap_pdf(x, 0, b)) / _lap_pdf(x, 0, b))
            return r if direction == "remove" else -r

        def delta(t: int, e):
            if t == 1:
                return _poisson_laplace_delta1(qq, b, e, direction)
            lim = 40 * b + 2
            return mpmath.quad(lambda x: p_density(x) * delta(t - 1, e - loss(x)), [-lim, 0, 1, 1 + lim])

        return delta(steps, _mp(eps))


def replace_one_gaussian_delta(q, sigma, steps: int, eps, dps: int = 20):
    r"""Optimal delta of ``steps`` symmetrised replace-one pairs (noise s = sigma/2), from the
    pair's *loss measure* (not from its profile): with :math:`X` under
    :math:`P = qN(1,s^2) + (1-q)N(0,s^2)` or :math:`Q = N(0, s^2)` and
    :math:`\ell(x) = \log(1 - q + q e^{(2x-1)/(2s^2)})`, the P-law of the loss is
    :math:`\ell(X)` for :math:`X \sim P` on :math:`x > 1/2`, :math:`-\ell(X)` for
    :math:`X \sim Q` on :math:`x > 1/2`, and an atom at 0 of mass
    :math:`1 - P(X > 1/2) - Q(X > 1/2)`; delta is :math:`E[(1 - e^{arepsilon - L_1 - \dots})_+]`,
    by quadrature (T <= 2 is practical)."""
    with mpmath.workdps(dps):
        qq, s = _mp(q), _mp(sigma) / 2

        def ell(x):
            return mpmath.log(1 - qq + qq * mpmath.exp((2 * x - 1) / (2 * s * s)))

        def pd(x):
            return qq * mpmath.npdf(x, 1, s) + (1 - qq) * mpmath.npdf(x, 0, s)

        def qd(x):
            return mpmath.npdf(x, 0, s)

        half = mpmath.mpf(1) / 2
        atom = 1 - (qq * _ncdf((1 - half) / s) + (1 - qq) * _ncdf(-half / s)) - _ncdf(-half / s)
        lim = 14 * s + 2

        def cuts(e):
            # breakpoints: where ell(x) = |e| (the kink of the integrand), when above x = 1/2
            pts = [half, 1, lim]
            a = abs(e)
            if a > 0:
                x = s * s * mpmath.log((mpmath.exp(a) - 1 + qq) / qq) + half
                if half < x < lim:
                    pts.append(x)
            return sorted(pts)

        def expect(fn, e):
            c = cuts(e)
            return (
                mpmath.quad(lambda x: pd(x) * fn(ell(x)), c)
                + mpmath.quad(lambda x: qd(x) * fn(-ell(x)), c)
                + atom * fn(mpmath.mpf(0))
            )

        def delta(t: int, e):
            if t == 0:
                return max(mpmath.mpf(0), 1 - mpmath.exp(e))
            return expect(lambda v: delta(t - 1, e - v), e)

        return delta(steps, _mp(eps))


def poisson_gaussian_delta(q, sigma, steps: int, eps, direction: str = "remove", dps: int = 20) -> mpmath.mpf:
    r"""Optimal delta of ``steps`` Poisson-subsampled Gaussians (one direction).

    remove: :math:`P = qN(1,\sigma^2) + (1-q)N(0,\sigma^2)`, :math:`Q = N(0,\sigma^2)`;
    add: the swapped pair.  :math:`\delta_1` directly from the densities:
    :math:`\delta_1(\varepsilon) = P(A) - e^\varepsilon Q(A)` with A the set where
    :math:`dP/dQ > e^\varepsilon`, a half-line found from the monotone likelihood ratio.
    """
    with mpmath.workdps(dps):
        qq, s = _mp(q), _mp(sigma)

        def ratio_log(x):  # log of (mixture / N(0)) at x
            return mpmath.log(1 - qq + qq * mpmath.exp((2 * x - 1) / (2 * s * s)))

        def threshold(e):  # x with ratio_log(x) = e (requires e^e > 1 - q)
            return s * s * mpmath.log((mpmath.exp(e) - 1 + qq) / qq) + mpmath.mpf(1) / 2

        def delta1(e):
            if direction == "remove":
                if mpmath.exp(e) <= 1 - qq:
                    return 1 - mpmath.exp(e)
                x = threshold(e)
                pa = qq * _ncdf(-(x - 1) / s) + (1 - qq) * _ncdf(-x / s)
                qa = _ncdf(-x / s)
                return pa - mpmath.exp(e) * qa
            # add: P = N(0), Q = mixture, loss = -ratio_log(x); A = {x < threshold(-e)}
            if mpmath.exp(-e) <= 1 - qq:
                return mpmath.mpf(0)
            y = threshold(-e)
            pa = _ncdf(y / s)
            qa = qq * _ncdf((y - 1) / s) + (1 - qq) * _ncdf(y / s)
            return pa - mpmath.exp(e) * qa

        def p_density(x):
            if direction == "remove":
                return qq * mpmath.npdf(x, 1, s) + (1 - qq) * mpmath.npdf(x, 0, s)
            return mpmath.npdf(x, 0, s)

        def loss(x):
            return ratio_log(x) if direction == "remove" else -ratio_log(x)

        def delta(t: int, e):
            if t == 1:
                return delta1(e)
            lim = 12 * s + 2
            return mpmath.quad(lambda x: p_density(x) * delta(t - 1, e - loss(x)), [-lim, 0, 0.5, 1, lim])

        return delta(steps, _mp(eps))


# ---------------------------------------------------------------------------
# independent recomputation of a PLD certificate's upper delta
# ---------------------------------------------------------------------------


def single_delta(kind: Any, params: tuple, direction: str, eps) -> mpmath.mpf:
    """delta_1(eps) of one dominating pair, in mpmath at the current precision.

    ``kind``: "gaussian" (sigma,), "poisson-gaussian" (q, sigma), "laplace" (b,),
    "rr" (p,), or a scheme's own ``(params, direction, eps) -> mpf`` (a callable).  Gaussian,
    Laplace and randomized response are symmetric (the direction does not matter)."""
    e = _mp(eps)
    if callable(kind):
        return kind(params, direction, e)
    if kind == "gaussian":
        (s,) = params
        mu = 1 / _mp(s)
        return _ncdf(-e / mu + mu / 2) - mpmath.exp(e) * _ncdf(-e / mu - mu / 2)
    if kind == "laplace":
        return _laplace_delta1(_mp(params[0]), e)
    if kind == "rr":
        pp = _mp(max(Fraction(params[0]), 1 - Fraction(params[0])))
        ell = mpmath.log(pp / (1 - pp))
        if e >= ell:
            return mpmath.mpf(0)
        if e < -ell:
            return 1 - mpmath.exp(e)
        return pp - mpmath.exp(e) * (1 - pp)
    if kind == "poisson-laplace":
        return _poisson_laplace_delta1(_mp(params[0]), _mp(params[1]), e, direction)
    if kind == "poisson-rr":
        return _finite_delta1(_poisson_rr_atoms(params[0], params[1]), e, direction)
    if kind == "replace-one-gaussian":
        # the symmetrised pair's profile is the larger of the two Poisson profiles with noise
        # sigma/2 (proofs/verify_pld_pairs.py); the measure form is replace_one_gaussian_delta
        q, s = params
        half = Fraction(s) / 2
        if Fraction(q) == 1:
            return single_delta("gaussian", (half,), "remove", eps)
        return max(single_delta("poisson-gaussian", (q, half), d, eps) for d in ("remove", "add"))
    if kind == "poisson-gaussian":
        q, s = params
        qq, ss = _mp(q), _mp(s)

        def threshold(v):
            return ss * ss * mpmath.log((mpmath.exp(v) - 1 + qq) / qq) + mpmath.mpf(1) / 2

        if direction == "remove":
            if mpmath.exp(e) <= 1 - qq:
                return 1 - mpmath.exp(e)
            x = threshold(e)
            return qq * _ncdf(-(x - 1) / ss) + (1 - qq) * _ncdf(-x / ss) - mpmath.exp(e) * _ncdf(-x / ss)
        if mpmath.exp(-e) <= 1 - qq:
            return mpmath.mpf(0)
        y = threshold(-e)
        return _ncdf(y / ss) - mpmath.exp(e) * (qq * _ncdf((y - 1) / ss) + (1 - qq) * _ncdf(y / ss))
    raise ValueError(f"unknown pair kind {kind!r}")


def _first_up(pred, start: int) -> int:
    """Smallest k >= start with pred(k), for pred monotone false -> true."""
    if pred(start):
        return start
    lo, step = start, 1
    while not pred(start + step):
        lo = start + step
        step *= 2
        if step > 2**40:
            raise ArithmeticError("reference: no finite grid range")
    return bisect_first(pred, lo, start + step)


def _last_down(pred, start: int) -> int:
    """Largest k <= start with pred(k), for pred true below some point (:func:`_first_up` mirrored)."""
    return start - _first_up(lambda j: pred(start - j), 0)


def connect_the_dots_upper(kind: Any, params: tuple, direction: str, n: int, scale_bits: int, tail) -> tuple:
    r"""The dominating connect-the-dots PLD on every grid point :math:`k/n` between a bottom
    and a top where the profile (minus :math:`1 - e^\varepsilon`) is below ``tail``, with
    masses rounded up to integers at scale :math:`2^{-S}` (plus one unit for the mpmath
    error) and the mass above the top at :math:`+\infty`.  Returns
    ``(offset, coeffs, inf_mass_units)``."""
    tl = _mp(tail)

    def d(k):
        return single_delta(kind, params, direction, Fraction(k, n))

    top = _first_up(lambda k: d(k) <= tl, 0)
    bot = _last_down(lambda k: d(k) - (1 - mpmath.exp(mpmath.mpf(k) / n)) <= tl, min(0, top - 1))
    bot = min(bot, top - 1)
    xs = [mpmath.exp(mpmath.mpf(k) / n) for k in range(bot, top + 1)]
    ds = [d(k) for k in range(bot, top + 1)]
    slopes = [(ds[0] - 1) / xs[0]]
    for i in range(len(xs) - 1):
        slopes.append((ds[i + 1] - ds[i]) / (xs[i + 1] - xs[i]))
    slopes.append(mpmath.mpf(0))
    scale = mpmath.mpf(2) ** scale_bits
    coeffs = []
    for i in range(len(xs)):
        m = xs[i] * (slopes[i + 1] - slopes[i]) * scale
        coeffs.append(max(0, int(mpmath.ceil(m)) + 1))
    inf_units = int(mpmath.ceil(ds[-1] * scale)) + 1
    return bot, coeffs, inf_units


def _pack(coeffs, width: int) -> int:
    nbytes = width // 8
    return int.from_bytes(b"".join(c.to_bytes(nbytes, "little") for c in coeffs), "little")


def _unpack(value: int, width: int, count: int) -> list:
    nbytes = width // 8
    raw = value.to_bytes(nbytes * count, "little")
    return [int.from_bytes(raw[i * nbytes : (i + 1) * nbytes], "little") for i in range(count)]


def _multiply(a: tuple, b: tuple, scale_bits: int, tail_units: int) -> tuple:
    """Product of two (offset, coeffs, inf_units) by Kronecker substitution in Python
    integers (exact), rescaled down with one unit per coefficient added at infinity,
    low tail moved up onto the first kept coefficient, high tail moved to infinity."""
    oa, ca, ia = a
    ob, cb, ib = b
    count = len(ca) + len(cb) - 1
    big = max(max(ca), max(cb), 1).bit_length()
    width = 2 * big + min(len(ca), len(cb)).bit_length() + 8
    width += (-width) % 8
    prod = _unpack(_pack(ca, width) * _pack(cb, width), width, count)
    prod = [c >> scale_bits for c in prod]
    inf = ia + ib + len(prod)
    lo, acc = 0, 0
    while lo < len(prod) - 1 and acc + prod[lo] <= tail_units:
        acc += prod[lo]
        lo += 1
    low = acc
    hi, acc = len(prod) - 1, 0
    while hi > lo and acc + prod[hi] <= tail_units:
        acc += prod[hi]
        hi -= 1
    kept = prod[lo : hi + 1]
    kept[0] += low
    return oa + ob + lo, kept, inf + acc


def _power(base, count: int, scale_bits: int, comp_tail: Fraction):
    """``count``-fold self-composition of ``base`` (left-to-right binary powering), each product
    trimmed within the budget the certificate's ``tail`` gives it: a product holding k copies is
    repeated about count/k times by the later squarings, so it may move at most
    ``tail * k/count * (2 bits + 1)/(2 bits)`` (bits = count.bit_length()) to +infinity."""
    bits = count.bit_length()
    share = Fraction(2 * bits + 1, 2 * bits * count)
    result, copies = base, 1
    for bit in bin(count)[3:]:
        copies *= 2
        result = _multiply(result, result, scale_bits, int(comp_tail * share * copies * (1 << scale_bits)))
        if bit == "1":
            copies += 1
            result = _multiply(result, base, scale_bits, int(comp_tail * share * copies * (1 << scale_bits)))
    return result


def composed_upper_delta(parts, n: int, scale_bits: int, tail_step, comp_tail, eps, dps: int = 30) -> mpmath.mpf:
    r"""Upper delta at ``eps`` of the composition of ``parts`` = [(kind, params, direction,
    count), ...] on the grid 1/n: connect-the-dots masses in mpmath, exact Python-integer
    convolution (no FLINT), delta summed in mpmath.  An estimate of the same upper bound
    that :mod:`rigorous_rdp.pld` certifies, on an independent code path; the trimming budget of a
    product is ``comp_tail`` between parts and :func:`_power`'s share of it inside a part."""
    with mpmath.workdps(dps):
        comp_tail = Fraction(comp_tail)
        tail_units = int(comp_tail * (1 << scale_bits))
        result = None
        for kind, params, direction, count in parts:
            if count < 1:
                raise ValueError("a composed part must have count >= 1.")
            own = getattr(kind, "reference_base", None)  # a kind that builds its own grid PLD
            if own is not None:
                # this module is handed over (its connect-the-dots and products), not imported back
                base = own(params, direction, n, scale_bits, tail_step, sys.modules[__name__])
            else:
                base = connect_the_dots_upper(kind, params, direction, n, scale_bits, tail_step)
            acc = _power(base, count, scale_bits, comp_tail)
            result = acc if result is None else _multiply(result, acc, scale_bits, tail_units)
        if result is None:
            raise ValueError("nothing to compose.")
        off, coeffs, inf_units = result
        e = _mp(eps)
        total = mpmath.mpf(0)
        for j, c in enumerate(coeffs):
            loss = mpmath.mpf(off + j) / n
            if c and loss > e:
                total += c * (1 - mpmath.exp(e - loss))
        return min(mpmath.mpf(1), (total + inf_units) / mpmath.mpf(2) ** scale_bits)


def reference_parts(leaves, direction: str) -> list:
    """[(kind, params, direction, count)] for leaf events with counts: the dominating pairs as
    each event's scheme writes them out for this reference (:meth:`rigorous_rdp.scheme.Scheme.reference_pld`,
    independently of :mod:`rigorous_rdp.pld`); no-ops (q = 0) are left out."""
    from ..errors import UnsupportedEventError
    from ..registry import reference_pld

    out: list[tuple[Any, tuple[Any, ...], str, Any]] = []
    for ev, count in leaves:
        try:
            part = reference_pld(ev)
        except UnsupportedEventError as exc:
            raise ValueError(f"no reference PLD for {type(ev).__name__}: {exc}") from None
        if part is not None:
            out.append((part[0], part[1], direction, count))
    return out
