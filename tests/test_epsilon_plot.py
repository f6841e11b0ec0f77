"""``rigorous-rdp epsilon ... --plot FILE``: the points drawn are certified (checked against the
exact epsilon of the Gaussian mechanism, an independent closed form), the file is written in the
format of its extension, and a bad file or a missing matplotlib is one line, exit 2."""

from __future__ import annotations

import json
import os
import sys
from fractions import Fraction

import mpmath
import pytest
from _cli import assert_one_line_error, cmd, run_cli

from rigorous_rdp.cli._epsilon_plot import delta_grid, steps_grid, upper_text

pytest.importorskip("matplotlib")

#: 16 compositions of the Gaussian mechanism, sigma = 4: a Gaussian with mu = sqrt(16) / 4 = 1
GAUSS = cmd("epsilon --sigma 4 --steps 16 --delta 1e-5")


def _exact_epsilon(mu: mpmath.mpf, delta: Fraction) -> mpmath.mpf:
    """The optimal epsilon of a mu-GDP Gaussian at ``delta``: the root of
    Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = delta (Dong, Roth, Su 2019, Cor. 2.13)."""

    def f(e):
        return (
            mpmath.ncdf(-e / mu + mu / 2)
            - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
            - mpmath.mpf(delta.numerator) / delta.denominator
        )

    lo, hi = mpmath.mpf(0), mpmath.mpf(60)  # f decreases in eps: bisection to the working precision
    if f(lo) <= 0:
        return lo
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return (lo + hi) / 2


def _run(tmp_path, *extra: str, name: str = "eps.svg"):
    status, out, err = run_cli([*GAUSS, "--plot", str(tmp_path / name), "--json", *extra])
    assert status == 0, err
    return json.loads(out)


def test_grids():
    assert steps_grid(5) == [1, 2, 3, 4, 5]
    g = steps_grid(3907)
    assert g[0] == 1 and g[-1] == 3907 and g == sorted(set(g)) and len(g) <= 9
    assert delta_grid(Fraction(1, 10**5)) == [Fraction(1, 10**k) for k in (8, 7, 6, 5, 4, 3)]
    assert delta_grid(Fraction(1, 10)) == [Fraction(1, 10**k) for k in (4, 3, 2, 1)]  # only below 1


def test_pld_points_bracket_the_exact_epsilon(tmp_path):
    res = _run(tmp_path, "--method", "pld")
    svg = (tmp_path / "eps.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    plot = res["plot"]
    assert plot["file"] == str(tmp_path / "eps.svg")
    rows = plot["against_steps"] + plot["against_delta"]
    assert [r["steps"] for r in plot["against_steps"]] == steps_grid(16)
    with mpmath.workdps(40):
        for r in rows:
            exact = _exact_epsilon(mpmath.sqrt(r["steps"]) / 4, Fraction(r["delta"]))
            lo, up = mpmath.mpf(r["pld"]["lower"]), mpmath.mpf(r["pld"]["upper"])
            assert lo <= exact <= up, (r, exact)
            assert "rdp" not in r
    # the run itself is one of the points
    mine = [r for r in plot["against_delta"] if Fraction(r["delta"]) == Fraction(1, 10**5)]
    assert mine and mine[0]["pld"] == res["epsilon"]


def test_rdp_points_are_upper_bounds_only(tmp_path):
    res = _run(tmp_path, "--method", "rdp", name="eps.png")
    assert (tmp_path / "eps.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = res["plot"]["against_steps"] + res["plot"]["against_delta"]
    with mpmath.workdps(40):
        for r in rows:
            assert set(r) == {"steps", "delta", "rdp"} and set(r["rdp"]) == {"upper"}
            assert mpmath.mpf(r["rdp"]["upper"]) >= _exact_epsilon(mpmath.sqrt(r["steps"]) / 4, Fraction(r["delta"]))
    ups = [Fraction(r["rdp"]["upper"]) for r in res["plot"]["against_steps"]]
    assert ups == sorted(ups)  # more steps, more epsilon
    ups = [Fraction(r["rdp"]["upper"]) for r in res["plot"]["against_delta"]]
    assert ups == sorted(ups, reverse=True)  # more delta, less epsilon


def test_text_output_names_the_file(tmp_path):
    status, out, err = run_cli([*GAUSS, "--method", "rdp", "--plot", str(tmp_path / "e.pdf")])
    assert status == 0, err
    assert out.rstrip().splitlines()[-1].startswith(f"plot written to {tmp_path / 'e.pdf'} (epsilon against steps")
    assert (tmp_path / "e.pdf").read_bytes()[:5] == b"%PDF-"
    mode = (tmp_path / "e.pdf").stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask  # an ordinary file, not the private mode of a temporary one


@pytest.mark.parametrize("name", ["eps.jpg", "eps", "eps.png.txt"])
def test_bad_extension(tmp_path, name):
    status, out, err = run_cli([*GAUSS, "--plot", str(tmp_path / name)])
    assert_one_line_error(status, out, err, "--plot must name a .png, .pdf or .svg file")


def test_missing_directory(tmp_path):
    status, out, err = run_cli([*GAUSS, "--plot", str(tmp_path / "no" / "such" / "eps.png")])
    assert_one_line_error(status, out, err, "--plot")


def test_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the [figures] extra were not installed
    status, out, err = run_cli([*GAUSS, "--plot", str(tmp_path / "eps.png")])
    assert_one_line_error(status, out, err, "--plot needs matplotlib")
    assert "[figures]" in err and not (tmp_path / "eps.png").exists()


def test_time_budget_spent_on_the_plot_keeps_the_answer(tmp_path, monkeypatch):
    """A budget that runs out while the plot's points are computed says so, one line, exit 2, and
    keeps the answer already certified (here 16 Gaussians of sigma 4: the exact epsilon below it)."""
    from rigorous_rdp.cli import _epsilon_plot
    from rigorous_rdp.errors import BudgetExceeded

    def slow(args, res=None):
        raise BudgetExceeded("time budget exceeded", seconds=60.0, where="a plot point")

    monkeypatch.setattr(_epsilon_plot, "compute", slow)
    status, out, err = run_cli([*GAUSS, "--method", "pld", "--plot", str(tmp_path / "eps.png")])
    assert_one_line_error(status, out, err, "time budget of 60 s exceeded while computing the --plot points")
    upper = err.split("answer was certified: epsilon <= ")[1].split(")")[0]
    with mpmath.workdps(40):
        assert mpmath.mpf(upper) >= _exact_epsilon(mpmath.mpf(1), Fraction(1, 10**5))
    assert "--max-seconds" in err and not (tmp_path / "eps.png").exists()


def test_label_of_the_run_rounds_up():
    """The legend's "your run" value is never below the certified upper end (a float's 4 significant
    digits would show 1.744 for 1.74443)."""
    assert upper_text("1.74443") == "1.745"
    assert upper_text("1.744750418") == "1.745"
    assert upper_text("110.792351103") == "110.8"
    assert upper_text("2") == "2" and upper_text("0.000123456") == "0.0001235"


@pytest.mark.parametrize("method", ["rdp", "pld", "best"])
def test_the_answer_is_not_computed_again(tmp_path, monkeypatch, method):
    """The point of the run itself (--steps, --delta: in both panels) is the answer's, not a new query;
    every other distinct point is queried once per method."""
    from rigorous_rdp.cli import _epsilon_plot

    calls = []
    point = _epsilon_plot._point

    def counted(args, m, t, d):
        calls.append((m, t, d))
        return point(args, m, t, d)

    monkeypatch.setattr(_epsilon_plot, "_point", counted)
    res = _run(tmp_path, "--method", method)
    delta = Fraction(1, 10**5)
    assert (16, delta) not in {(t, d) for _, t, d in calls} and len(calls) == len(set(calls))
    methods = ["rdp", "pld"] if method == "best" else [method]
    cells = {(t, delta) for t in steps_grid(16)} | {(16, d) for d in delta_grid(delta)}
    assert len(calls) == (len(cells) - 1) * len(methods)
    row = next(r for r in res["plot"]["against_delta"] if Fraction(r["delta"]) == delta)
    answer = res["candidates"] if method == "best" else {method: res}
    for m in methods:
        assert row[m]["upper"] == answer[m]["epsilon"]["upper"]
    with mpmath.workdps(40):  # and it is certified: above the exact epsilon
        assert mpmath.mpf(row[methods[0]]["upper"]) >= _exact_epsilon(mpmath.mpf(1), delta)
