r"""What is proven, refuted and open about Conjecture 1: the data of the region chart of the figure
``blog2-conjecture``, one record per certificate (or per refuted point, or per open / theorem region).

This table is the table "The result: what is proven, what is refuted, what is open" of
``docs/blog_part2_conjecture.md`` (section 1), record by record: ``row`` is the exact text of the
first cell of the docs row a record belongs to, and ``tests/test_blog2_conjecture_regions.py`` checks
that the rows, their statuses, the numbers of certificates, the box counts, the refuted points and
their ratios, and the commands agree with that table and with the per-case tables below it.  Nothing
here is computed: the certificates are made by the commands named in ``command`` (and re-checked by
``rigorous-rdp verify``).

To add a proof, append one :class:`Region` to :data:`REGIONS` (and its row to the docs table); the
chart draws it from its sets alone: points x points as markers, a sigma interval as a horizontal
segment, a lambda interval as a vertical segment, both intervals as a filled rectangle.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F


@dataclass(frozen=True)
class Points:
    """A finite set of values (exact rationals)."""

    values: tuple[F, ...]

    def to_json(self) -> dict:
        return {"points": [str(v) for v in self.values]}


@dataclass(frozen=True)
class Interval:
    """The closed interval ``[lo, hi]`` (exact rationals): every real value in it at once."""

    lo: F
    hi: F

    def to_json(self) -> dict:
        return {"interval": [str(self.lo), str(self.hi)]}


#: ``None`` as a set: every value (the open and theorem regions)
ValueSet = Points | Interval | None


@dataclass(frozen=True)
class Region:
    """One region of (model, d, n, m, lambda, sigma) and what is known there.

    ``n``, ``m``: rows and batch size (r = m/n), ``None`` for every one; ``lam``, ``sigma``: the orders
    and noise levels covered, ``None`` for every one (an open region means: every point of it not
    covered by a proven or refuted record); ``status``: ``proven`` (ratio <= 1 for every dataset pair),
    ``refuted`` (a dataset pair with ratio > 1 is certified), ``open`` or ``theorem``; ``kind``: the
    certificate kind of ``rigorous-rdp verify`` (``""`` where there is none); ``boxes``: (proven,
    outside) boxes of the certificate where the docs table states them; ``ratio_lower``: the certified
    lower bound of LHS / RHS of a refuted point (a decimal string, as in the docs)."""

    row: str
    model: str
    d: tuple[int, ...]
    n: int | None
    m: int | None
    lam: ValueSet
    sigma: ValueSet
    status: str
    kind: str
    command: str
    boxes: tuple[int, int] | None = None
    ratio_lower: str | None = None

    def to_json(self) -> dict:
        def vs(s: ValueSet) -> dict | str:
            return "all" if s is None else s.to_json()

        return {
            "model": self.model,
            "d": list(self.d),
            "n": self.n,
            "m": self.m,
            "lambda": vs(self.lam),
            "sigma": vs(self.sigma),
            "status": self.status,
            "kind": self.kind,
            "command": self.command,
            "boxes": None if self.boxes is None else list(self.boxes),
            "ratio_lower": self.ratio_lower,
            "docs_row": self.row,
        }


def pts(*v: int | str) -> Points:
    return Points(tuple(F(x) for x in v))


def ivl(lo: int | str, hi: int | str) -> Interval:
    return Interval(F(lo), F(hi))


#: the (n, m) of the 1-d proofs (n <= 4, m <= 2, m < n), one panel each in the chart
CASES_1D = [(2, 1), (3, 1), (3, 2), (4, 1), (4, 2)]

# the first cells of the docs rows (exact text)
ROW_POINTS = "`range` (= `clip` up to translation), d = 1, n <= 4, m <= 2 (m < n), lambda in {2, 3, 4}, sigma in {2, 4}"
ROW_SIGMA_1 = "same, sigma = 1"
ROW_SIGMA_HALF = "same, sigma = 1/2: n = 2, m = 1, lambda in {2, 3, 4}"
ROW_REGION = "same, every sigma in [1, 4] at once: n = 2, m = 1, lambda in {2, 3, 4}; n = 3, m = 1, lambda in {2, 3}"
ROW_SCALED = (
    "same, every sigma in [1, 4] at once by the scaled proof (boxes of phi = theta/sigma, no t side): "
    "n = 2, m = 1, lambda = 2; n = 4, m = 1, lambda = 2; n = 4, m = 2, lambda = 2"
)
ROW_SCALED_34 = "same, every sigma in [3, 4] at once by the scaled proof: n = 3, m = 2, lambda = 2"
ROW_ORDER = (
    "same, every real lambda in [2, 4] at once (section 8): n = 2, m = 1 and n = 3, m in {1, 2} at sigma = 1; "
    "n = 2, m = 1 at sigma = 2"
)
ROW_ORDER_SIGMA = (
    "same, every real lambda in [2, 4] and every sigma in [1, 2] at once (section 8, last subsection): n = 2, m = 1"
)
ROW_OPEN_1D = (
    "d = 1: sigma = 1/2 beyond n = 2, m = 1; n = 4, m = 3; n >= 5; non-integer lambda (except the real-order "
    "rows above); sigma not in {1/2, 1, 2, 4} (except n = 2, m = 1, lambda in {2, 3, 4}, n = 3, m = 1, lambda "
    "in {2, 3} and n = 4, m <= 2, lambda = 2: every sigma in [1, 4]; n = 3, m = 2, lambda = 2: every sigma in "
    "[3, 4]; rows above); sigma < 1/2"
)
ROW_REFUTED_2D = (
    "`range`, d = 2, r = 1/1000 (n = 1000, m = 1): (sigma, lambda) = (1/4, 129/128), (1/2, 129/128), (1, 2), "
    "(2, 2), (4, 2), (8, 2); and n = 50, sigma = 1, lambda = 2"
)
ROW_REFUTED_3D = "`range`, d = 3, the same points"
ROW_OPEN_2D = "`range`, d >= 2, other (r, sigma, lambda)"
ROW_CLIP = "`clip`, d = 2, 3"
ROW_POISSON = "`poisson`, every d"

_PROVE = "rigorous-rdp conjecture --prove --rows {n} --batch {m} {what} --out F; rigorous-rdp verify F"
#: the Python block below the docs table (the triangle at n = 1000, m = 1) with ``sigma``, ``lam`` set (d = 3:
#: every point with a third coordinate 0)
_TRIANGLE = (
    "the Python block of docs/blog_part2_conjecture.md section 1 with sigma, lam = {s}, {lam}{third}, "
    "then rigorous-rdp verify tri.json"
)
#: the witness of the figure's range panels (n = 50, m = 1, sigma = 1, lambda = 2; u' = (1/2, 433/500))
_WITNESS = (
    "python -c 'import json; from rigorous_rdp.paper_repro.blog.blog2_conjecture import witness; "
    "from rigorous_rdp.research.conjecture_certificate import make_violation_certificate as c; "
    'json.dump(c(witness({d})), open("w.json", "w"))\'; rigorous-rdp verify w.json'
)


def _point_proofs(row: str, cases: list[tuple[int, int]], lams: list[int], sigmas: list[str], boxes=None) -> list:
    """``holds-boxes`` certificates, one per (n, m, lambda, sigma); ``boxes``: {(n, m, lambda, sigma): ...}."""
    out = []
    for n, m in cases:
        for lam in lams:
            for s in sigmas:
                what = f"--order {lam} --sigma {s}"
                cmd = _PROVE.format(n=n, m=m, what=what)
                b = (boxes or {}).get((n, m, lam, s))
                out.append(Region(row, "range", (1,), n, m, pts(lam), pts(s), "proven", "holds-boxes", cmd, b))
    return out


#: the table (docs/blog_part2_conjecture.md, section 1, "The result"), in the order of its rows
# fmt: off
REGIONS: list[Region] = [
    *_point_proofs(ROW_POINTS, CASES_1D, [2, 3, 4], ["2", "4"]),
    *_point_proofs(
        ROW_SIGMA_1,
        CASES_1D,
        [2, 3, 4],
        ["1"],
        {(4, 2, 2, "1"): (1507, 286), (4, 2, 3, "1"): (2115, 335), (4, 2, 4, "1"): (2778, 422)},
    ),
    *_point_proofs(
        ROW_SIGMA_HALF,
        [(2, 1)],
        [2, 3, 4],
        ["1/2"],
        {(2, 1, 2, "1/2"): (85, 7), (2, 1, 3, "1/2"): (117, 8), (2, 1, 4, "1/2"): (138, 8)},
    ),
    # one certificate for every sigma in [1, 4] (t side; --cube: over the whole cube, else its two faces)
    Region(ROW_REGION, "range", (1,), 2, 1, pts(2), ivl(1, 4), "proven", "holds-region",
           _PROVE.format(n=2, m=1, what="--order 2 --sigma-range 1 4 --t-side --cube"), (670, 46)),
    Region(ROW_REGION, "range", (1,), 2, 1, pts(3), ivl(1, 4), "proven", "holds-region",
           _PROVE.format(n=2, m=1, what="--order 3 --sigma-range 1 4 --t-side --cube"), (917, 48)),
    Region(ROW_REGION, "range", (1,), 2, 1, pts(4), ivl(1, 4), "proven", "holds-region",
           _PROVE.format(n=2, m=1, what="--order 4 --sigma-range 1 4 --t-side --cube"), (1417, 47)),
    Region(ROW_REGION, "range", (1,), 3, 1, pts(2), ivl(1, 4), "proven", "holds-region",
           _PROVE.format(n=3, m=1, what="--order 2 --sigma-range 1 4 --t-side --cube"), (1764, 182)),
    Region(ROW_REGION, "range", (1,), 3, 1, pts(3), ivl(1, 4), "proven", "holds-region",
           _PROVE.format(n=3, m=1, what="--order 3 --sigma-range 1 4 --t-side"), (1240, 63)),
    # the same statement by the scaled proof (no t side)
    Region(ROW_SCALED, "range", (1,), 2, 1, pts(2), ivl(1, 4), "proven", "holds-region-scaled",
           _PROVE.format(n=2, m=1, what="--order 2 --sigma-range 1 4"), (99, 6)),
    Region(ROW_SCALED, "range", (1,), 4, 1, pts(2), ivl(1, 4), "proven", "holds-region-scaled",
           _PROVE.format(n=4, m=1, what="--order 2 --sigma-range 1 4"), (1158, 217)),
    Region(ROW_SCALED, "range", (1,), 4, 2, pts(2), ivl(1, 4), "proven", "holds-region-scaled",
           _PROVE.format(n=4, m=2, what="--order 2 --sigma-range 1 4"), (8138, 1675)),
    Region(ROW_SCALED_34, "range", (1,), 3, 2, pts(2), ivl(3, 4), "proven", "holds-region-scaled",
           _PROVE.format(n=3, m=2, what="--order 2 --sigma-range 3 4"), (500, 55)),
    # every real order in [2, 4] at once (section 8)
    Region(ROW_ORDER, "range", (1,), 2, 1, ivl(2, 4), pts(1), "proven", "holds-boxes-order-interval",
           _PROVE.format(n=2, m=1, what="--order-range 2 4"), (338, 5)),
    Region(ROW_ORDER, "range", (1,), 3, 1, ivl(2, 4), pts(1), "proven", "holds-boxes-order-interval",
           _PROVE.format(n=3, m=1, what="--order-range 2 4"), (1632, 95)),
    Region(ROW_ORDER, "range", (1,), 3, 2, ivl(2, 4), pts(1), "proven", "holds-boxes-order-interval",
           _PROVE.format(n=3, m=2, what="--order-range 2 4"), (9745, 391)),
    Region(ROW_ORDER, "range", (1,), 2, 1, ivl(2, 4), pts(2), "proven", "holds-boxes-order-interval",
           _PROVE.format(n=2, m=1, what="--order-range 2 4 --sigma 2"), (215, 2)),
    # every real order in [2, 4] and every sigma in [1, 2] at once (section 8, last subsection)
    Region(ROW_ORDER_SIGMA, "range", (1,), 2, 1, ivl(2, 4), ivl(1, 2), "proven", "holds-boxes-order-sigma",
           _PROVE.format(n=2, m=1, what="--order-range 2 4 --sigma-range 1 2"), (2031, 10)),
    # d = 1: everything not covered above (probe only)
    Region(ROW_OPEN_1D, "range", (1,), None, None, None, None, "open", "",
           "rigorous-rdp conjecture --trials 200 --seed 7"),
    # d >= 2: the equilateral triangle (other rows at (0, 0), u = (1, 0), u' = (1/2, 443/512))
    *[
        Region(row, "range", (d,), 1000, 1, pts(lam), pts(s), "refuted", "violation",
               _TRIANGLE.format(s=s, lam=lam, third=", a third coordinate 0" if d == 3 else ""), ratio_lower=lower)
        for row, d in ((ROW_REFUTED_2D, 2), (ROW_REFUTED_3D, 3))
        for s, lam, lower in (
            ("1/4", "129/128", "1.19473"),
            ("1/2", "129/128", "1.56967"),
            ("1", "2", "1.22557"),
            ("2", "2", "1.05377"),
            ("4", "2", "1.00860"),
            ("8", "2", "1.00118"),
        )
    ],
    Region(ROW_REFUTED_2D, "range", (2,), 50, 1, pts(2), pts(1), "refuted", "violation",
           _WITNESS.format(d=2), ratio_lower="1.14459"),
    Region(ROW_REFUTED_3D, "range", (3,), 50, 1, pts(2), pts(1), "refuted", "violation",
           _WITNESS.format(d=3), ratio_lower="1.14459"),
    Region(ROW_OPEN_2D, "range", (2, 3), None, None, None, None, "open", "",
           "rigorous-rdp conjecture --model range --dim 2 --trials 200 --seed 7"),
    Region(ROW_CLIP, "clip", (2, 3), None, None, None, None, "open", "",
           "rigorous-rdp conjecture --model clip --dim 2 --trials 200 --seed 7"),
    Region(ROW_POISSON, "poisson", (1, 2, 3), None, None, None, None, "theorem", "",
           "rigorous-rdp conjecture --model poisson --dim 2 --trials 200 --seed 7"),
]
# fmt: on
