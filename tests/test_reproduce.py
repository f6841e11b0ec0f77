"""Tests of ``rigorous-rdp reproduce`` and of the Birrell et al. training / variance figures."""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from rigorous_rdp import reproduce as rep
from rigorous_rdp.cli import main
from rigorous_rdp.errors import BudgetExceeded

REPO = Path(__file__).resolve().parents[1]
BIRRELL_SEED = "004_85a5147f28f95754.txt"
OWN_IDS = [
    "birrell2024-fig2",
    "birrell2024-fig3",
    "birrell2024-fig4a",
    "birrell2024-fig4b",
    "birrell2024-fig5",
    "birrell2024-fig7",
    "birrell2024-fig10",
    "birrell2024-variance",
]

#: Figures whose full version takes more than a few seconds (seconds of a full run, one core):
#: their committed JSON is compared with a fresh run under ``-m slow`` only.
EXPENSIVE = {
    "birrell2024-fig1": 17,
    "birrell2024-fig10": 23,
    "birrell2024-variance": 10,
    "blog2-conjecture": 70,
    "samplers": 30,
    "zhuwang2019-fig4": 8,
}
#: Every committed figure (figures/<ID>.json).
COMMITTED = sorted(p.stem for p in (REPO / "figures").glob("*.json"))


def _run(capsys, *argv):
    code = main(["reproduce", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json(capsys):
    code, out, _err = _run(capsys, "--list", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"figures"}
    ids = [f["id"] for f in data["figures"]]
    assert len(ids) == len(set(ids))
    for f in data["figures"]:
        assert set(f) == {"id", "source", "citation", "title"}
        assert f["citation"] != f["source"]  # every source document has a citation
        assert f["title"] and f["source"].endswith(".txt")
        assert (Path("/work/shared/seeds") / f["source"]).name == f["source"]
    for fid in OWN_IDS:
        assert fid in ids
        assert next(f for f in data["figures"] if f["id"] == fid)["source"] == BIRRELL_SEED
    # natural order: fig2 before fig10
    assert ids.index("birrell2024-fig2") < ids.index("birrell2024-fig10")


def test_list_selected_text(capsys):
    code, out, _ = _run(capsys, "--list", "birrell2024-fig7", "birrell2024-fig2")
    assert code == 0
    lines = out.strip().splitlines()
    assert [ln.split()[0] for ln in lines] == ["birrell2024-fig7", "birrell2024-fig2"]


def test_fast_subset_writes_png_and_json(tmp_path, capsys, monkeypatch):
    from rigorous_rdp import progress

    monkeypatch.setattr(progress, "DELAY", 0.0)  # draw at once (a fast run ends within a second)
    monkeypatch.setattr(progress, "LINE_INTERVAL", 0.01)
    ids = ["birrell2024-fig7", "birrell2024-fig5", "birrell2024-variance"]
    code, out, err = _run(capsys, *ids, "--fast", "--out", str(tmp_path), "--json", "--progress")
    assert code == 0, err
    res = json.loads(out)
    assert res["failed"] == [] and res["fast"] is True
    assert [f["id"] for f in res["figures"]] == ids
    assert "rigorous-rdp reproduce: figures " in err  # the progress is on stderr, the JSON alone on stdout
    for fid in ids:
        png = (tmp_path / f"{fid}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
        data = json.loads((tmp_path / f"{fid}.json").read_text())
        assert data["id"] == fid and data["fast"] is True
    # fig5: fixed-size batches are exactly |B|, Poisson batches vary; memory follows the batch size
    d5 = json.loads((tmp_path / "birrell2024-fig5.json").read_text())
    assert set(d5["batch_sizes"]["fswor"]) == {120}
    assert len(set(d5["batch_sizes"]["poisson"])) > 3
    assert d5["stats"]["fswor"]["peak_mib_sd"] < 0.01 * d5["stats"]["fswor"]["peak_mib_mean"]
    b = np.array(d5["batch_sizes"]["poisson"], float)
    m = np.array(d5["peak_bytes"]["poisson"], float)
    assert np.corrcoef(b, m)[0, 1] > 0.95


def test_jobs_two_processes(tmp_path, capsys):
    ids = ["birrell2024-fig2", "birrell2024-fig7"]
    code, out, err = _run(capsys, *ids, "--fast", "--jobs", "2", "--out", str(tmp_path), "--json", "--no-progress")
    assert code == 0, err
    assert err == ""
    assert sorted(f["id"] for f in json.loads(out)["figures"]) == sorted(ids)
    assert all((tmp_path / f"{i}.png").is_file() for i in ids)


#: relative tolerance of a float of a figure's JSON.  A fresh run on the machine that wrote the
#: committed files reproduces them bit for bit (checked: two full runs of ``reproduce all`` agree
#: in every number but the timings).  Elsewhere, floats computed in numpy / scipy / libm (float
#: screens, plotted estimates, training losses) may differ in their last bits (exp, log, pow and
#: BLAS sums are not correctly rounded and differ between platforms and library versions); a few
#: ulps, amplified by the few operations after them, stay far below 1e-9.  Certified values are
#: decimal strings rounded outward from arb balls: they are compared exactly, as are integers,
#: booleans and every other string (configuration, labels).
RTOL = 1e-9
#: an order chosen by a float search (keys ``alpha``): the objective is flat at its minimum, so a
#: last-bit change of the screen may move the argmin by more than the values; 1e-3 relative
ALPHA_RTOL = 1e-3


def _assert_close(new, old, path="", rtol=RTOL):
    if isinstance(old, dict):
        assert isinstance(new, dict) and set(new) == set(old), f"{path}: keys differ"
        for k in old:
            if "second" in k or "time" in k or "peak" in k or "ratio_poisson_over_fswor" in k:
                # measurements of the run: wall-clock timings (a training run's train_seconds) and
                # allocation peaks (tracemalloc bytes depend on the Python and numpy builds)
                continue
            _assert_close(new[k], old[k], f"{path}.{k}", ALPHA_RTOL if k == "alpha" else rtol)
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), f"{path}: lengths differ"
        for i, (a, b) in enumerate(zip(new, old, strict=False)):
            _assert_close(a, b, f"{path}[{i}]", rtol)
    elif old is None or isinstance(old, (bool, str, int)):
        assert new == old and type(new) is type(old), f"{path}: {new!r} != {old!r}"
    else:
        assert isinstance(new, float), f"{path}: {new!r} is not a float"
        assert math.isclose(new, old, rel_tol=rtol, abs_tol=1e-300), f"{path}: {new!r} != {old!r}"


def test_every_figure_is_committed():
    """figures/ holds exactly one JSON (and PNG) per figure script, each from a full run."""
    assert sorted(rep.discover()) == COMMITTED
    for fid in COMMITTED:
        assert json.loads((REPO / "figures" / f"{fid}.json").read_text()).get("fast") is not True
        assert (REPO / "figures" / f"{fid}.png").is_file()
    assert set(EXPENSIVE) <= set(COMMITTED)


@pytest.mark.parametrize(
    "fig_id", [pytest.param(f, marks=[pytest.mark.slow] if f in EXPENSIVE else []) for f in COMMITTED]
)
def test_committed_json_matches_script(fig_id, tmp_path):
    """A fresh run of the figure's script gives its committed JSON (within :data:`RTOL`, see there)."""
    scripts = rep.discover()
    runs = rep.run_figures([scripts[fig_id]], tmp_path, progress=False)
    assert runs[0].ok, runs[0].error
    _assert_close(
        json.loads((tmp_path / f"{fig_id}.json").read_text()),
        json.loads((REPO / "figures" / f"{fig_id}.json").read_text()),
    )


def test_committed_training_json_is_the_full_version():
    for fid in OWN_IDS:
        p = REPO / "figures" / f"{fid}.json"
        assert p.is_file(), f"figures/{fid}.json missing"
        assert json.loads(p.read_text())["fast"] is False
        assert (REPO / "figures" / f"{fid}.png").is_file()


def test_committed_bounds_are_consistent():
    """Certified upper bounds never fall below the certified lower bound (133) of Wang et al."""
    d = json.loads((REPO / "figures" / "birrell2024-fig7.json").read_text())
    r = d["rdp"]
    assert all(u >= lo for u, lo in zip(r["fswor_thm3.4"], r["wang_lower"], strict=False))
    assert all(u >= lo for u, lo in zip(r["wang_upper"], r["wang_lower"], strict=False))
    d3 = json.loads((REPO / "figures" / "birrell2024-fig3.json").read_text())["results"]
    for m in (3, 4, 5):
        assert all(
            u >= lo
            for u, lo in zip(d3[f"thm3.4_m{m}"]["epsilon_upper"], d3["wang_lower_reference"]["epsilon"], strict=False)
        )


def test_unknown_figure_id(capsys):
    code, out, err = _run(capsys, "birrell2024-fig99")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rigorous-rdp: error: FIGURE_ID 'birrell2024-fig99' is unknown")


@pytest.mark.parametrize("jobs", ["0", "-1", "1.5", "two", "nan"])
def test_bad_jobs(capsys, jobs):
    code, out, err = _run(capsys, "--list", "--jobs", jobs)
    assert code == 2 and out == ""
    assert err.startswith("rigorous-rdp: error: --jobs") and err.count("\n") == 1


def test_run_figures_validates_jobs(tmp_path):
    with pytest.raises(ValueError, match=r"^jobs must be an integer >= 1"):
        rep.run_figures([], tmp_path, jobs=0)


def test_failing_figure_is_reported_and_exit_1(tmp_path, capsys, monkeypatch):
    mod = tmp_path / "mods" / "broken_fig_for_test.py"
    mod.parent.mkdir()
    mod.write_text(
        "ID = 'x-broken'\nTITLE = 't'\nSOURCE = 's'\n"
        "def main(out_dir, fast=False):\n    raise RuntimeError('deliberately broken')\n"
    )
    monkeypatch.syspath_prepend(str(mod.parent))
    good = rep.discover()["birrell2024-fig7"]
    bad = rep.FigureScript("x-broken", "t", "s", "broken_fig_for_test")
    monkeypatch.setattr(rep, "discover", lambda **_: {bad.id: bad, good.id: good})
    code, out, err = _run(capsys, "x-broken", "birrell2024-fig7", "--fast", "--out", str(tmp_path / "o"), "--json")
    assert code == 1
    res = json.loads(out)
    assert res["failed"] == ["x-broken"]
    st = {f["id"]: f for f in res["figures"]}
    assert st["x-broken"]["status"] == "failed" and "deliberately broken" in st["x-broken"]["error"]
    assert st["birrell2024-fig7"]["status"] == "ok"  # the others still run
    assert "figure x-broken failed" in err


def test_discover_keeps_broken_modules(tmp_path, monkeypatch):
    pkg = tmp_path / "figpkg_for_test"
    (pkg / "srcA").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "srcA" / "__init__.py").write_text("")
    (pkg / "srcA" / "good.py").write_text(
        "ID = 'srcA-fig10'\nTITLE = 'good'\nSOURCE = 'x.txt'\ndef main(out_dir, fast=False):\n    pass\n"
    )
    (pkg / "srcA" / "fig2.py").write_text(
        "ID = 'srcA-fig2'\nTITLE = 'two'\nSOURCE = 'x.txt'\ndef main(out_dir, fast=False):\n    pass\n"
    )
    (pkg / "srcA" / "broken.py").write_text("import does_not_exist_anywhere\n")
    (pkg / "srcA" / "helper.py").write_text("X = 1\n")  # not a figure script
    (pkg / "srcA" / "_private.py").write_text("raise RuntimeError('never imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = rep.discover("figpkg_for_test")
    assert list(found) == ["srcA-fig2", "srcA-fig10", "srcA/broken"]
    assert "cannot be imported" in found["srcA/broken"].title
    runs = rep.run_figures([found["srcA/broken"], found["srcA-fig2"]], tmp_path / "out", progress=False)
    assert not runs[0].ok and "does_not_exist_anywhere" in runs[0].error
    assert not runs[1].ok and "did not write srcA-fig2.png" in runs[1].error


def test_discover_by_id_imports_only_those_modules():
    """``reproduce ID ...`` imports only the scripts asked for (found by their ``ID = "..."`` line), and
    listing every script imports neither pyplot, SciPy nor scikit-learn (a fresh interpreter each)."""
    import subprocess

    code = (
        "import sys; from rigorous_rdp import reproduce as rep\n"
        "one = rep.discover(ids=['birrell2024-fig7'])\n"
        "assert list(one) == ['birrell2024-fig7'], list(one)\n"
        "assert 'rigorous_rdp.paper_repro.zhuwang2019.fig4' not in sys.modules\n"
        "every = rep.discover()\n"
        "assert every['birrell2024-fig7'] == one['birrell2024-fig7']\n"
        "assert len(every) > 20\n"
        "heavy = [m for m in ('matplotlib.pyplot', 'scipy', 'sklearn') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "assert len(rep.discover(ids=['fig99'])) == len(every)  # unknown: all, for select's message\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_digits_read_as_scikit_learn_loads_them():
    """The digits read from scikit-learn's CSV file equal ``sklearn.datasets.load_digits()``."""
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_digits

    from rigorous_rdp.paper_repro.birrell2024._dpsgd import _digits

    x, y = _digits()
    ref = load_digits()
    assert x.shape == (1797, 64) and x.dtype == ref.data.dtype and np.array_equal(x, ref.data)
    assert y.dtype == ref.target.dtype and np.array_equal(y, ref.target)


def test_subplots_draws_as_pyplot(tmp_path):
    """A figure made by ``rigorous_rdp.paper_repro._common.subplots`` (no pyplot) saves to the same PNG bytes as the
    same figure made by ``matplotlib.pyplot.subplots``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rigorous_rdp.paper_repro._common import decorate, save_figure, subplots

    def draw(fig, axes):
        for ax, k in zip(axes, (1, 2), strict=True):
            ax.plot([1, 2, 3], [k, 4 * k, 9 * k], "o-", label=f"$\\alpha^{k}$")
            decorate(ax, xlabel="order", ylabel="RDP", title="t", ylog=True)
        fig.suptitle("x")
        fig.tight_layout()

    f1, a1 = subplots(1, 2, figsize=(6, 3), sharey=True)
    draw(f1, a1)
    save_figure(f1, {}, tmp_path / "a", "f")
    f2, a2 = plt.subplots(1, 2, figsize=(6, 3), sharey=True)
    draw(f2, a2)
    save_figure(f2, {}, tmp_path / "b", "f")
    assert (tmp_path / "a" / "f.png").read_bytes() == (tmp_path / "b" / "f.png").read_bytes()
    assert not plt.get_fignums()  # save_figure closed the pyplot figure


def test_default_out_dir_is_outside_the_source_tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rep.default_out_dir() == tmp_path / "rigorous-rdp-figures"
    assert rep.default_out_dir(fast=True) == tmp_path / "rigorous-rdp-figures" / "fast"
    monkeypatch.chdir(REPO)  # even from the root of a checkout: not its committed figures/
    assert rep.default_out_dir() != REPO / "figures"


# --- the numerical pieces of the training / variance figures --------------------------


def test_clipped_sum_equals_materialised_per_example_clipping():
    from rigorous_rdp.paper_repro.birrell2024 import _dpsgd as D

    data = D.load_digits_split()
    params = D._init_params(np.random.default_rng(3), 64, 32, 10)
    x, y = data["x_train"][:40], data["y_train"][:40]
    g = D.per_example_grads(params, x, y)
    for clip in (0.1, 1.0, 100.0):
        norms = np.linalg.norm(g, axis=1)
        ref = (g * np.minimum(1.0, clip / norms)[:, None]).sum(axis=0)
        np.testing.assert_allclose(D.clipped_grad_sum(params, x, y, clip), ref, rtol=1e-12, atol=1e-12)
    # per-example gradients against a finite difference of the loss of one example
    i, eps = 5, 1e-6
    flat = np.concatenate([p.ravel() for p in params])

    def loss(vec):
        ps = D._unflatten(vec, params)
        _, p = D._forward(ps, x[i : i + 1])
        return -np.log(p[0, y[i]])

    for j in (0, 100, 2100, 2405):
        e = np.zeros_like(flat)
        e[j] = eps
        fd = (loss(flat + e) - loss(flat - e)) / (2 * eps)
        assert abs(fd - g[i, j]) < 1e-6


def test_variance_formulas_against_enumeration():
    from rigorous_rdp.paper_repro.birrell2024.variance import formulas

    a = np.array([0.3, -1.2, 2.0, 0.7, 0.1, -0.4])
    n = len(a)
    for b in (1, 2, 3, 5):
        subsets = [a[list(s)].sum() / b for s in itertools.combinations(range(n), b)]
        tuples = [a[list(t)].sum() / b for t in itertools.product(range(n), repeat=b)]
        q = b / n
        pois_m1 = pois_m2 = 0.0
        for pat in itertools.product((0, 1), repeat=n):
            w = q ** sum(pat) * (1 - q) ** (n - sum(pat))
            z = a[np.array(pat, bool)].sum() / b
            pois_m1 += w * z
            pois_m2 += w * z * z
        f = formulas(a, b)
        assert math.isclose(np.var(subsets), f["B"], rel_tol=1e-12)
        assert math.isclose(np.var(tuples), f["R"], rel_tol=1e-12)
        assert math.isclose(pois_m2 - pois_m1**2, f["P"], rel_tol=1e-12)


def test_batch_sampler_distributions():
    from rigorous_rdp.paper_repro.birrell2024._dpsgd import draw_batch

    rng = np.random.default_rng(0)
    sizes = [len(draw_batch("poisson", rng, 1440, 120)) for _ in range(2000)]
    assert abs(np.mean(sizes) - 120) < 4 * math.sqrt(1440 * (1 / 12) * (11 / 12) / 2000)
    for _ in range(20):
        idx = draw_batch("fswor", rng, 1440, 120)
        assert len(idx) == 120 and len(set(idx.tolist())) == 120


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def _script_module(tmp_path, monkeypatch, name, body):
    mod = tmp_path / "mods" / f"{name}.py"
    mod.parent.mkdir(exist_ok=True)
    mod.write_text(f"ID = {name!r}\nTITLE = 't'\nSOURCE = 's'\n" + body)
    monkeypatch.syspath_prepend(str(mod.parent))
    return rep.FigureScript(name, "t", "s", name)


@pytest.mark.parametrize("stop", ["KeyboardInterrupt()", "BudgetExceeded('the time budget')"], ids=["ctrl_c", "budget"])
def test_an_interrupted_run_leaves_no_empty_directory_and_no_half_figure(tmp_path, monkeypatch, stop):
    """Ctrl-C or the time budget during the first figure: the output directories the run created are
    removed; during the second: the first figure's PNG and JSON stay, and nothing else (no temporary
    file, no PNG without its numbers)."""
    write = (
        "import json\nfrom pathlib import Path\n"
        "def main(out_dir, fast=False):\n"
        "    from rigorous_rdp.paper_repro._common import save_figure, subplots\n"
        "    fig, ax = subplots()\n    ax.plot([0, 1], [0, 1])\n    save_figure(fig, {'x': [0, 1]}, out_dir, ID)\n"
    )
    halt = (
        "from rigorous_rdp.errors import BudgetExceeded\n"
        "def main(out_dir, fast=False):\n"
        f"    (out_dir / (ID + '.png')).parent.mkdir(exist_ok=True)\n    raise {stop}\n"
    )
    tag = stop[:6].lower()  # one module name per case (modules are cached by name)
    first = _script_module(tmp_path, monkeypatch, f"x_fig_written_{tag}", write)
    stopper = _script_module(tmp_path, monkeypatch, f"x_fig_stopped_{tag}", halt)
    out = tmp_path / "new" / "nested" / "figures"
    exc = KeyboardInterrupt if stop.startswith("Keyboard") else BudgetExceeded
    with pytest.raises(exc):
        rep.run_figures([stopper], out)
    assert not (tmp_path / "new").exists()
    with pytest.raises(exc):
        rep.run_figures([first, stopper], out)
    assert sorted(p.name for p in out.iterdir()) == [f"x_fig_written_{tag}.json", f"x_fig_written_{tag}.png"]
    assert json.loads((out / f"x_fig_written_{tag}.json").read_text())["x"] == [0, 1]
    existing = tmp_path / "existing"
    existing.mkdir()
    with pytest.raises(exc):
        rep.run_figures([stopper], existing)
    assert existing.is_dir()  # a directory the run did not create is left alone
