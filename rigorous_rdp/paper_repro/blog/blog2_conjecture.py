r"""Blog part 2, Conjecture 1: LHS :math:`D_\lambda(p\|q)` against RHS
:math:`D_\lambda(r\mu_1+(1-r)\mu_0\|\mu_0)` over probed configurations, one panel per model
(``range``, ``clip``, ``poisson``) and dimension (1, 2, 3); the diagonal is equality.  Each panel shows
the structured starts and the random trials of :func:`rigorous_rdp.research.conjecture.probe` after
local search and continuation; its worst configuration gets a certified enclosure and the three best
screened candidate violations a certified lower bound; the ``range`` panels in d >= 2 also show the
equilateral-triangle witness (m = 1, n = 50, sigma = 1, lambda = 2), whose violation is proven.  The
last two rows are the region chart of what is proven, refuted and open, drawn from the table
:data:`~rigorous_rdp.paper_repro.blog._conjecture_regions.REGIONS` (the table "The result" of
``docs/blog_part2_conjecture.md``, one record per certificate; nothing of it is recomputed here): per
1-d case (n, m), n <= 4, m <= 2, the (sigma, lambda) points, sigma intervals and lambda intervals
proven by ``conjecture --prove`` over the open rest, and for d >= 2 the refuted (sigma, lambda) points
of the equilateral triangle.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from rigorous_rdp.paper_repro._common import SEEDS, save_figure, subplots
from rigorous_rdp.paper_repro.blog._conjecture_regions import CASES_1D, REGIONS, Interval, Points, Region
from rigorous_rdp.research.conjecture import (
    MODELS,
    ProbeConfig,
    _trial,
    certify_config,
    certify_violation,
    is_rhs_pair,
    ratio_to_json,
    screen_ratio,
    structured_configs,
)

ID = "blog2-conjecture"
TITLE = "Blog part 2: Conjecture 1, LHS against RHS per model and dimension"
SOURCE = SEEDS["blog2"]

SEED = 2019
TRIALS = {1: 24, 2: 16, 3: 8}
FAST_TRIALS = 2
STEPS = 10


def witness(d: int) -> ProbeConfig:
    """Other rows at 0, u and u' at distance ~1 from 0 and from each other (exact rationals)."""
    z = (Fraction(0),) * (d - 2)
    c = (Fraction(0), Fraction(0), *z)
    u = (Fraction(1), Fraction(0), *z)
    up = (Fraction(1, 2), Fraction(866, 1000), *z)
    return ProbeConfig("range", 50, 1, Fraction(0), Fraction(1), Fraction(2), (c,), (49,), u, up)


def main(out_dir: Path, fast: bool = False) -> dict:
    fig, axes = subplots(5, 3, figsize=(12, 18.5))
    panels = []
    for i, model in enumerate(MODELS):
        for j, d in enumerate((1, 2, 3)):
            ax = axes[i][j]
            n = FAST_TRIALS if fast else TRIALS[d]
            starts = structured_configs(model, d)
            res = [_trial((model, d, SEED, k, STEPS, c)) for k, c in enumerate(starts)]
            res += [_trial((model, d, SEED, k, STEPS, None)) for k in range(n)]
            pts = []
            for x in res:
                c, lam = x["config"], float(x["config"].lam)
                pts.append(
                    {
                        "lhs": x["screen"]["log_g_lhs"] / (lam - 1),
                        "rhs": x["screen"]["log_g_rhs"] / (lam - 1),
                        "ratio": x["screen"]["ratio"],
                        "config": c.to_json(),
                    }
                )
            worst = max(res, key=lambda x: x["screen"]["ratio"])
            cert = certify_config(worst["config"], digits=6)
            viol = []
            cands = [x for x in res if x["screen"]["ratio"] > 1 + 1e-6 and not is_rhs_pair(x["config"])]
            for x in sorted(cands, key=lambda x: -x["screen"]["ratio"])[:3]:
                v = certify_violation(x["config"])
                if v["proven"]:
                    viol.append({"config": x["config"].to_json(), "ratio_lower": float(v["ratio_lower"].lower())})
            sel = [p for p in pts if p["rhs"] > 0 and p["lhs"] > 0]
            ax.loglog([p["rhs"] for p in sel], [p["lhs"] for p in sel], "o", ms=4, alpha=0.7, label="probed (screen)")
            panel = {
                "model": model,
                "dim": d,
                "trials": n,
                "structured_starts": len(starts),
                "points": pts,
                "screened_max": worst["screen"]["ratio"],
                "worst": {
                    "config": worst["config"].to_json(),
                    "ratio": ratio_to_json(cert["ratio"]),
                    "verdict": cert["verdict"],
                },
                "violations": viol,
            }
            if model == "range" and d >= 2:
                w = witness(d)
                ws = screen_ratio(w)
                wv = certify_violation(w)
                ax.loglog(
                    [ws["log_g_rhs"] / 1.0],
                    [ws["log_g_lhs"] / 1.0],
                    "r*",
                    ms=12,
                    label=f"triangle witness, ratio >= {float(wv['ratio_lower'].lower()):.4f} (proven)",
                )
                panel["witness"] = {
                    "config": w.to_json(),
                    "ratio_lower": float(wv["ratio_lower"].lower()),
                    "screen_ratio": ws["ratio"],
                }
            vals = [p["rhs"] for p in sel] + [p["lhs"] for p in sel]
            if vals:
                lo, hi = min(vals), max(vals)
                ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="LHS = RHS")
            ax.set_title(
                f"{model}, d = {d}: {n} trials + {len(starts)} starts; worst screened {worst['screen']['ratio']:.4f}\n"
                f"certified >= {cert['ratio'].to_json(4)['lower']}"
                f" ({cert['verdict']}); proven violations {len(viol)}",
                fontsize=8,
            )
            ax.set_xlabel("RHS", fontsize=8)
            ax.set_ylabel("LHS", fontsize=8)
            ax.legend(fontsize=6, loc="upper left")
            panels.append(panel)
    draw_regions(fig, [*axes[3], *axes[4]], panels)
    fig.tight_layout(rect=(0, 0.025, 1, 1))
    data = {
        "title": TITLE,
        "source": SOURCE,
        "seed": SEED,
        "steps": STEPS,
        "panels": panels,
        "regions": [r.to_json() for r in REGIONS],
    }
    return save_figure(fig, data, out_dir, ID, fast=fast)


#: colours of the region chart
PROVEN, REFUTED, OPEN = "tab:green", "tab:red", "0.88"
#: how a proven certificate kind is drawn (kinds not listed: by their sets alone, in green)
KIND_STYLE: dict[str, dict[str, Any]] = {
    "holds-boxes": {"color": "tab:green"},
    "holds-region": {"color": "#a6dba0", "lw": 7},
    "holds-region-scaled": {"color": "#1b7837", "lw": 2.5},
    "holds-boxes-order-interval": {"color": "#5aae61", "lw": 4},
}
SIGMA_LIM_1D = (0.45, 9.0)
LAMBDA_LIM_1D = (1.85, 4.15)


def _frac(x) -> float:
    return float(Fraction(x))


def _shape(reg: Region) -> str:
    """How a proven record is drawn: ``points``, ``sigma interval``, ``lambda interval``, ``rectangle``."""
    lam_i, sig_i = isinstance(reg.lam, Interval), isinstance(reg.sigma, Interval)
    if reg.lam is None or reg.sigma is None:
        raise ValueError(f"a proven record needs its lambda and sigma sets: {reg}")
    return {(False, False): "points", (False, True): "sigma interval", (True, False): "lambda interval"}.get(
        (lam_i, sig_i), "rectangle"
    )


def _draw_region(ax, reg: Region, label: bool) -> None:
    """One proven record in its (sigma, lambda) panel: points x points as markers, a sigma interval
    as a horizontal segment, a lambda interval as a vertical one, both as a rectangle; ``label``: give
    it its legend entry."""
    st: dict[str, Any] = {"color": PROVEN, "lw": 4, **KIND_STYLE.get(reg.kind, {})}
    seg = {"color": st["color"], "lw": st["lw"], "solid_capstyle": "butt", "zorder": 3}
    lam, sig = reg.lam, reg.sigma
    if isinstance(lam, Points) and isinstance(sig, Points):
        lab = f"proven point ({reg.kind})" if label else None
        for s in sig.values:
            ax.plot([float(s)] * len(lam.values), [float(v) for v in lam.values], "o", color=st["color"], ms=7,
                    zorder=4, label=lab)  # fmt: skip
            lab = None
    elif isinstance(lam, Points) and isinstance(sig, Interval):
        lab = f"proven, every sigma in an interval ({reg.kind})" if label else None
        for v in lam.values:
            ax.plot([float(sig.lo), float(sig.hi)], [float(v)] * 2, "-", label=lab, **seg)
            lab = None
    elif isinstance(lam, Interval) and isinstance(sig, Points):
        lab = f"proven, every real lambda in an interval ({reg.kind})" if label else None
        for s in sig.values:
            ax.plot([float(s)] * 2, [float(lam.lo), float(lam.hi)], "-", label=lab, **seg)
            lab = None
    elif isinstance(lam, Interval) and isinstance(sig, Interval):
        lab = f"proven, every (sigma, lambda) in a rectangle ({reg.kind})" if label else None
        ax.fill_between([float(sig.lo), float(sig.hi)], float(lam.lo), float(lam.hi), color=st["color"], alpha=0.6,
                        lw=0, zorder=2, label=lab)  # fmt: skip
    else:
        raise ValueError(f"a proven record needs its lambda and sigma sets: {reg}")


def _counts(regs: list[Region]) -> str:
    n_pts = sum(len(r.lam.values) * len(r.sigma.values) for r in regs if isinstance(r.lam, Points)
                and isinstance(r.sigma, Points))  # fmt: skip
    n_sig = sum(1 for r in regs if isinstance(r.lam, Points) and isinstance(r.sigma, Interval))
    n_lam = sum(1 for r in regs if isinstance(r.lam, Interval) and isinstance(r.sigma, Points))
    n_rect = sum(1 for r in regs if isinstance(r.lam, Interval) and isinstance(r.sigma, Interval))
    parts = [f"{n_pts} points"]
    if n_sig:
        parts.append(f"{n_sig} sigma int.")
    if n_lam:
        parts.append(f"{n_lam} lambda int.")
    if n_rect:
        parts.append(f"{n_rect} rectangles")
    return ", ".join(parts)


def draw_regions(fig, axes: list, panels: list[dict], regions: list[Region] = REGIONS) -> None:
    """The region chart, from :data:`~rigorous_rdp.paper_repro.blog._conjecture_regions.REGIONS` alone
    (nothing recomputed): one panel per 1-d case (n, m) of :data:`CASES_1D` (``range`` = ``clip`` up
    to translation), sigma (log) against lambda, proven sets in green over the open rest (grey); then
    one panel for d >= 2 with the refuted (sigma, lambda) points of the equilateral triangle (and, as
    small crosses, the violations this figure's probe proved, from ``panels``) and what is open or a
    theorem there.  ``axes``: at least ``len(CASES_1D) + 1`` axes."""
    labelled: set[tuple[str, str]] = set()
    for i, (ax, (n, m)) in enumerate(zip(axes, CASES_1D, strict=False)):
        ax.axhspan(LAMBDA_LIM_1D[0], LAMBDA_LIM_1D[1], color=OPEN, zorder=0, lw=0,
                   label="open (screened only)" if i == 0 else None)  # fmt: skip
        regs = [r for r in regions if r.status == "proven" and 1 in r.d and r.n == n and r.m == m]
        for reg in regs:
            key = (reg.kind, _shape(reg))
            _draw_region(ax, reg, key not in labelled)
            labelled.add(key)
        ax.set_xscale("log")
        ax.set_xlim(*SIGMA_LIM_1D)
        ax.set_ylim(*LAMBDA_LIM_1D)
        ax.set_xticks([0.5, 1, 2, 4, 8], ["1/2", "1", "2", "4", "8"])
        ax.minorticks_off()
        ax.set_yticks([2, 2.5, 3, 3.5, 4])
        ax.set_xlabel("sigma", fontsize=8)
        ax.set_ylabel("lambda", fontsize=8)
        ax.set_title(f"range (= clip), d = 1, n = {n}, m = {m} (r = {Fraction(m, n)}): proven\n{_counts(regs)}; "
                     "the rest open (grey)", fontsize=8)  # fmt: skip
    ax = axes[len(CASES_1D)]
    ax.axhspan(0.9, 4.15, color=OPEN, zorder=0, lw=0)
    ref = [r for r in regions if r.status == "refuted"]
    for marker, n_rows in (("v", 1000), ("*", 50)):
        pts_ = sorted({(float(s), float(v), r.ratio_lower) for r in ref if r.n == n_rows
                       for s in r.sigma.values for v in r.lam.values})  # type: ignore[union-attr]  # fmt: skip
        dims = sorted({d for r in ref if r.n == n_rows for d in r.d})
        ax.plot([p[0] for p in pts_], [p[1] for p in pts_], marker, color=REFUTED, ms=11 if marker == "*" else 9,
                zorder=4, label=f"refuted in d = {', '.join(map(str, dims))}: triangle, n = {n_rows}, m = 1 "
                "(ratio >=)")  # fmt: skip
        for s, v, lo in pts_:
            ax.annotate(lo, (s, v), textcoords="offset points", xytext=(0, 8 if n_rows == 1000 else -14),
                        ha="center", fontsize=6.5)  # fmt: skip
    found = [(_frac(v["config"]["sigma"]), _frac(v["config"]["lambda"])) for p in panels if p["dim"] >= 2
             for v in p["violations"]]  # fmt: skip
    if found:
        ax.plot([f[0] for f in found], [f[1] for f in found], "x", color="k", ms=6, zorder=5,
                label="violations proven by this figure's probe (d = 2, 3; other n)")  # fmt: skip
    lines = []
    for r in regions:
        if r.status in ("open", "theorem") and max(r.d) >= 2:
            where = (
                "" if not any(q.model == r.model and set(q.d) & set(r.d) for q in ref) else " away from the red points"
            )
            lines.append(f"{r.model}, d = {', '.join(str(d) for d in r.d)}: {r.status}{where}")
    ax.text(0.03, 0.97, "\n".join(lines), transform=ax.transAxes, fontsize=7, va="top",
            bbox={"fc": "white", "ec": "0.6", "alpha": 0.9})  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlim(0.18, 11)
    ax.set_ylim(0.9, 4.15)
    ax.set_xticks([0.25, 0.5, 1, 2, 4, 8], ["1/4", "1/2", "1", "2", "4", "8"])
    ax.minorticks_off()
    ax.set_yticks([1, 2, 3, 4])
    ax.set_xlabel("sigma", fontsize=8)
    ax.set_ylabel("lambda", fontsize=8)
    ax.set_title("d >= 2: refuted points (certified LHS / RHS lower bounds);\nthe rest open, poisson a theorem",
                 fontsize=8)  # fmt: skip
    ax.legend(fontsize=6, loc="center right")
    handles, labels = [], []
    for a in axes[: len(CASES_1D)]:
        for h, lab in zip(*a.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7, frameon=False, title_fontsize=8,
               title="region chart (docs/blog_part2_conjecture.md, 'The result'; d = 1, n = 4, m = 3 and n >= 5: "
               "open, no panel)")  # fmt: skip


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
