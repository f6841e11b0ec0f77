"""The region chart of the figure ``blog2-conjecture``: its table of region records
(``rigorous_rdp/paper_repro/blog/_conjecture_regions.py``) says what the docs say.

The records are compared with the table "The result: what is proven, what is refuted, what is open"
of ``docs/blog_part2_conjecture.md`` (rows, statuses, the values of n, m, lambda and sigma each row
names, certificate counts and kinds, box counts, refuted points and their ratios, commands) and each
proof record with its row of the per-case tables below it (the ``--prove`` table, the faces table,
the ``--sigma-range`` tables and the table of section 8).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from rigorous_rdp.paper_repro.blog._conjecture_regions import CASES_1D, REGIONS, Interval, Points, Region

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "blog_part2_conjecture.md").read_text()


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split(" | ")]


def _result_table() -> list[list[str]]:
    """The rows of the docs table "The result" (four cells each)."""
    sec = DOC[DOC.index("### The result: what is proven") :]
    lines = sec.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("| region | status |"))
    rows = []
    for ln in lines[i + 2 :]:
        if not ln.startswith("|"):
            break
        cells = _cells(ln)
        assert len(cells) == 4, ln
        rows.append(cells)
    return rows


def _table_after(marker: str, end: str | None = None) -> list[list[str]]:
    """The body rows of the first table after ``marker`` in the docs."""
    lines = DOC[DOC.index(marker) :].splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("|"))
    out = []
    for ln in lines[i + 2 :]:
        if not ln.startswith("|"):
            break
        out.append(_cells(ln))
    return out


def _status(cell: str) -> str:
    return re.match(r"\*\*(\w+)\*\*", cell).group(1)  # type: ignore[union-attr]


def _rows() -> dict[str, list[Region]]:
    out: dict[str, list[Region]] = {}
    for r in REGIONS:
        out.setdefault(r.row, []).append(r)
    return out


def _value_set(text: str) -> set:
    """``{2, 3}`` -> {2, 3}; ``[1, 4]`` -> {Interval(1, 4)}; ``1/2`` -> {1/2}."""
    if text.startswith("["):
        lo, hi = (Fraction(x) for x in text.strip("[]").split(","))
        return {Interval(lo, hi)}
    return {Fraction(x) for x in text.strip("{}").split(",")}


def _named(cell: str) -> dict[str, set]:
    """The values of n, m, lambda and sigma a docs row names (``n <= 4`` is {2, 3, 4}: n >= 2 rows)."""
    val = r"(\{[^}]*\}|\[[^\]]*\]|\d+(?:/\d+)?)"
    out: dict[str, set] = {}
    for name in ("n", "m", "lambda", "sigma"):
        found: set = set()
        for v in re.findall(rf"\b{name} (?:=|in) {val}", cell):
            found |= _value_set(v)
        for v in re.findall(rf"\b{name} <= (\d+)", cell):
            found |= {Fraction(k) for k in range(2 if name == "n" else 1, int(v) + 1)}
        if found:
            out[name] = found
    return out


def _record_values(regs: list[Region]) -> dict[str, set]:
    def vs(s) -> set:
        return set(s.values) if isinstance(s, Points) else {s}

    return {
        "n": {Fraction(r.n) for r in regs if r.n is not None},
        "m": {Fraction(r.m) for r in regs if r.m is not None},
        "lambda": set().union(*(vs(r.lam) for r in regs)),
        "sigma": set().union(*(vs(r.sigma) for r in regs)),
    }


def test_records_have_the_rows_and_statuses_of_the_docs_table():
    docs = _result_table()
    rows = _rows()
    assert list(rows) == [c[0] for c in docs]  # every docs row has records, in the docs' order
    for region, status, _evidence, _command in docs:
        assert {r.status for r in rows[region]} == {_status(status)}, region
    assert {r.status for r in REGIONS} == {"proven", "refuted", "open", "theorem"}


def test_proof_records_name_the_values_counts_kinds_and_boxes_of_their_docs_row():
    inherited: dict[str, set] = {}
    rows = _rows()
    for region, status, evidence, _command in _result_table():
        if _status(status) != "proven":
            continue
        named = {**inherited, **_named(region)} if region.startswith("same,") else _named(region)
        inherited = named
        regs = rows[region]
        assert _record_values(regs) == named, region
        assert all(r.model == "range" and r.d == (1,) for r in regs)
        # the certificate kind(s) named in the evidence, and their number where it is given
        kinds = set(re.findall(r"`(holds[a-z-]*)`", evidence))
        assert {r.kind for r in regs} == kinds, region
        for count, kind in re.findall(r"(\d+) `(holds[a-z-]*)` certificates", evidence):
            assert sum(r.kind == kind for r in regs) == int(count), region
        # the box counts (proven + outside) the evidence gives, in the order of the records
        boxes = [(int(a), int(b)) for a, b in re.findall(r"(\d+) \+ (\d+)", evidence)]
        assert [r.boxes for r in regs if r.boxes is not None] == boxes, region


def test_refuted_records_are_the_points_and_ratios_of_the_docs_rows():
    docs = {c[0]: c for c in _result_table()}
    rows = _rows()
    refuted = [k for k, c in docs.items() if _status(c[1]) == "refuted"]
    assert len(refuted) == 2
    region, _s, evidence, _c = docs[refuted[0]]
    regs = rows[region]
    assert all(r.model == "range" and r.d == (2,) and r.kind == "violation" for r in regs)
    assert "d = 2" in region and "n = 1000, m = 1" in region
    points = [(Fraction(s), Fraction(v)) for s, v in re.findall(r"\((\d+(?:/\d+)?), (\d+(?:/\d+)?)\)", region)]
    tri = [r for r in regs if r.n == 1000]
    assert [(r.sigma.values[0], r.lam.values[0]) for r in tri] == points  # type: ignore[union-attr]
    assert all(r.m == 1 and len(r.sigma.values) == len(r.lam.values) == 1 for r in tri)  # type: ignore[union-attr]
    ratios = re.findall(r"\d\.\d{5}\b", evidence)
    assert [r.ratio_lower for r in tri] == ratios[: len(tri)]
    (w,) = [r for r in regs if r.n == 50]
    assert "n = 50, sigma = 1, lambda = 2" in region and (w.sigma, w.lam) == (Points((Fraction(1),)), Points((2,)))
    assert f"witness >= {w.ratio_lower}" in evidence
    # d = 3: "the same points"
    region3 = refuted[1]
    assert "d = 3" in region3 and "the same points" in region3
    same = [(r.n, r.m, r.lam, r.sigma, r.ratio_lower) for r in regs]
    assert [(r.n, r.m, r.lam, r.sigma, r.ratio_lower) for r in rows[region3]] == same
    assert all(r.d == (3,) for r in rows[region3])


def test_open_and_theorem_records():
    rows = _rows()
    for region, status, _e, _c in _result_table():
        if _status(status) in ("open", "theorem"):
            for r in rows[region]:
                assert r.n is r.m is r.lam is r.sigma is None and r.kind == ""
                assert f"`{r.model}`" in region or r.model == "range"
                assert ("d = 1" in region) == (r.d == (1,))


def _expansions(template: str, r: Region) -> set[str]:
    """The commands a docs template (N, M, L, S placeholders, ``[--opt]`` optional) gives for ``r``."""
    t = template
    for ph, v in (("N", r.n), ("M", r.m), ("L", r.lam), ("S", r.sigma)):
        if isinstance(v, Points):
            v = v.values[0]
        t = re.sub(rf"(?<= ){ph}(?= )", str(v), t)
    out = {t}
    while any("[" in x for x in out):
        out = {
            y
            for x in out
            for y in (re.sub(r" \[([^\]]*)\]", r" \1", x, count=1), re.sub(r" \[[^\]]*\]", "", x, count=1))
        }
    return out


def test_commands_are_the_docs_commands():
    previous = None
    rows = _rows()
    for region, status, evidence, command in _result_table():
        st = _status(status)
        code = re.findall(r"`([^`]*)`", command)
        if command.startswith("the same command"):
            template = previous
        elif command == "that command":
            template = re.findall(r"`([^`]*)`", evidence)[0]
        else:
            template = code[0] if code else None
        if template is not None and not template.startswith("rigorous-rdp "):
            template = "rigorous-rdp " + template  # the docs' `conjecture ...`
        for r in rows[region]:
            if st == "refuted" and r.n == 1000:
                if r.d == (2,):
                    assert command.startswith("the Python block below") and "`rigorous-rdp verify tri.json`" in command
                else:
                    assert command == "the same block with a third coordinate 0"
                assert ("a third coordinate 0" in r.command) == (r.d == (3,))
                assert r.command.startswith("the Python block of docs/blog_part2_conjecture.md section 1")
                assert f"sigma, lam = {r.sigma.values[0]}, {r.lam.values[0]}" in r.command  # type: ignore[union-attr]
            elif st == "refuted":
                assert r.command.endswith("rigorous-rdp verify w.json")  # the figure's witness, run below
            else:
                assert template is not None and r.command in _expansions(template, r), (region, r.command)
        previous = template


def _find(table: list[list[str]], *first: str) -> list[str]:
    hits = [c for c in table if c[: len(first)] == list(first)]
    assert len(hits) == 1, (first, hits)
    return hits[0]


@pytest.mark.parametrize("kind", ["holds-boxes", "holds-region", "holds-region-scaled", "holds-boxes-order-interval"])
def test_proof_records_match_the_per_case_tables(kind):
    recs = [r for r in REGIONS if r.kind == kind]
    assert recs
    points = _table_after("<!-- proof-table -->")
    region = _table_after("<!-- region-table -->")
    scaled = _table_after("<!-- scaled-table -->")
    order = _table_after("## 8. Proofs at every real order")
    for r in recs:
        n, m = str(r.n), str(r.m)
        box = None if r.boxes is None else f"{r.boxes[0]} + {r.boxes[1]}"
        if kind == "holds-boxes":
            lam, s = str(r.lam.values[0]), str(r.sigma.values[0])  # type: ignore[union-attr]
            hit = [c for c in points if c[0] == n and c[1] == m and c[3] == lam and c[4] == s]
            faces = f"| n = {n}, m = {m}, lambda = {lam}, sigma = {s}, faces | {box} | OK: exit 0"
            if box is not None and faces in DOC:  # n = 4, m = 2 at sigma = 1: over the faces (table of `verify`)
                continue
            assert len(hit) == 1 and hit[0][6].startswith("**proven**"), (n, m, lam, s)
            assert box is None or hit[0][7] == box
        elif kind == "holds-region":
            faces = "--cube" not in r.command
            row = _find(region, n, m, str(r.lam.values[0]), "[1, 4], faces" if faces else "[1, 4]")  # type: ignore[union-attr]
            assert row[4] == "**proven**" and row[5].startswith(box + " (")  # type: ignore[operator]
            assert row[7].startswith("OK")
        elif kind == "holds-region-scaled":
            sig = r.sigma
            assert isinstance(sig, Interval)
            row = _find(scaled, n, m, str(r.lam.values[0]), f"[{sig.lo}, {sig.hi}]")  # type: ignore[union-attr]
            assert row[5].startswith(f"{box} boxes") and row[6].startswith("OK")
        else:
            s = r.sigma.values[0]  # type: ignore[union-attr]
            lam = "[2, 4]" if s == 1 else f"[2, 4], sigma = {s}"
            assert r.lam == Interval(Fraction(2), Fraction(4))
            row = _find(order, n, m, lam)
            assert row[3] == box


def test_the_witness_command_makes_a_certificate_that_verifies(tmp_path, monkeypatch, capsys):
    """The record of the n = 50 witness: its command (the Python part run here, then ``verify``)
    certifies a ratio >= the stated lower bound."""
    from rigorous_rdp.cli import main
    from rigorous_rdp.paper_repro.blog.blog2_conjecture import witness
    from rigorous_rdp.research.conjecture_certificate import make_violation_certificate

    (rec,) = [r for r in REGIONS if r.n == 50 and r.d == (2,)]
    assert "make_violation_certificate" in rec.command and "witness(2)" in rec.command
    cert = make_violation_certificate(witness(2))
    assert Fraction(str(cert["claim"]["ratio_lower"])) >= Fraction(rec.ratio_lower)  # type: ignore[arg-type]
    (tmp_path / "w.json").write_text(json.dumps(cert))
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "w.json"]) == 0
    assert capsys.readouterr().out.startswith("OK: verified: Conjecture 1 is violated")


def _chart():
    from rigorous_rdp.paper_repro._common import subplots
    from rigorous_rdp.paper_repro.blog.blog2_conjecture import draw_regions

    panels = json.loads((ROOT / "figures" / "blog2-conjecture.json").read_text())["panels"]
    fig, axes = subplots(2, 3, figsize=(12, 8))
    axs = [*axes[0], *axes[1]]
    draw_regions(fig, axs, panels)
    return fig, axs


def test_the_chart_draws_every_proof_of_the_docs():
    """Counted on the drawn panels against the docs' own totals: 45 (sigma, lambda) points at sigma in
    {1, 2, 4} (n <= 4, m <= 2) and 3 at sigma = 1/2; 5 + 3 sigma intervals [1, 4] and 1 interval [3, 4]; 4 lambda intervals; 7 refuted
    points (the triangle at 6, the n = 50 witness at 1)."""
    _fig, axs = _chart()
    markers = horizontal = vertical = 0
    for ax in axs[: len(CASES_1D)]:
        for ln in ax.get_lines():
            x, y = ln.get_xdata(), ln.get_ydata()
            if ln.get_marker() == "o":
                markers += len(x)
                assert all(0.5 <= v <= 4 for v in x) and all(v in (2, 3, 4) for v in y)
            elif ln.get_linestyle() == "-" and len(x) == 2:
                horizontal += y[0] == y[1]
                vertical += x[0] == x[1]
    assert (markers, horizontal, vertical) == (45 + 3, 5 + 3 + 1, 4)
    red = [ln for ln in axs[len(CASES_1D)].get_lines() if ln.get_color() == "tab:red"]
    assert sum(len(ln.get_xdata()) for ln in red) == 6 + 1
    # the certified lower ends of the docs table, written next to the points
    labels = {t.get_text() for t in axs[len(CASES_1D)].texts}
    assert {"1.19473", "1.56967", "1.22557", "1.05377", "1.00860", "1.00118", "1.14459"} <= labels


def test_a_record_proving_a_lambda_sigma_rectangle_is_drawn_as_one(tmp_path):
    """The table is extended by one record (a lambda interval times a sigma interval); the chart shows
    it as a filled rectangle over exactly those ranges."""
    from matplotlib.collections import PolyCollection

    from rigorous_rdp.paper_repro._common import save_figure, subplots
    from rigorous_rdp.paper_repro.blog.blog2_conjecture import draw_regions

    extra = Region(
        "new row", "range", (1,), 2, 1, Interval(Fraction(2), Fraction(4)), Interval(Fraction(1), Fraction(4)),
        "proven", "holds-new-kind", "rigorous-rdp conjecture --prove ...",
    )  # fmt: skip
    fig, axes = subplots(2, 3, figsize=(12, 8))
    axs = [*axes[0], *axes[1]]
    draw_regions(fig, axs, [], [*REGIONS, extra])
    polys = [c for c in axs[0].collections if isinstance(c, PolyCollection)]
    rects = 1 + sum(
        1 for r in REGIONS if (r.n, r.m) == (2, 1) and isinstance(r.lam, Interval) and isinstance(r.sigma, Interval)
    )
    assert len(polys) == rects
    spans = set()
    for poly in polys:
        (x0, y0), (x1, y1) = poly.get_paths()[0].vertices.min(axis=0), poly.get_paths()[0].vertices.max(axis=0)
        spans.add((x0, x1, y0, y1))
    assert (1, 4, 2, 4) in spans
    assert f"{rects} rectangles" in axs[0].get_title()
    save_figure(fig, {}, tmp_path, "regions")
    assert (tmp_path / "regions.png").stat().st_size > 10_000


def test_committed_figure_holds_the_table():
    """figures/blog2-conjecture.json (a full run) carries the current table."""
    data = json.loads((ROOT / "figures" / "blog2-conjecture.json").read_text())
    assert data["regions"] == [r.to_json() for r in REGIONS]


@pytest.mark.slow
def test_the_figure_builds_in_fast_mode(tmp_path):
    from rigorous_rdp.paper_repro.blog import blog2_conjecture as fig

    data = fig.main(tmp_path, fast=True)
    assert (tmp_path / f"{fig.ID}.png").stat().st_size > 50_000
    assert data["fast"] is True and data["regions"] == [r.to_json() for r in REGIONS]
    assert len(data["panels"]) == 9
