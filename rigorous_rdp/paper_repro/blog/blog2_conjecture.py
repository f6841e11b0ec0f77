r"""Blog part 2, Conjecture 1: LHS :math:`D_\lambda(p\|q)` against RHS
:math:`D_\lambda(r\mu_1+(1-r)\mu_0\|\mu_0)` over probed configurations, one panel per model
(``range``, ``clip``, ``poisson``) and dimension (1, 2, 3); the diagonal is equality.  Each panel shows
the structured starts and the random trials of :func:`rigorous_rdp.research.conjecture.probe` after
local search and continuation; its worst configuration gets a certified enclosure and the three best
screened candidate violations a certified lower bound; the ``range`` panels in d >= 2 also show the
equilateral-triangle witness (m = 1, n = 50, sigma = 1, lambda = 2), whose violation is proven.  A last
row shows, per model and dimension, the noise levels sigma at which a violation is proven (refuted),
the 1-d noise levels of the small cases ``conjecture --prove`` settles (proven, green), and whether
the rest is open (screened only) or a theorem (``poisson``).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from rigorous_rdp.paper_repro._common import SEEDS, save_figure, subplots
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
#: noise levels of the 1-d cases proven by ``conjecture --prove`` (docs/blog_part2_conjecture.md,
#: "The result"; drawn in the last row, not recomputed by this script)
PROVEN_SIGMAS = [1.0, 2.0, 4.0]
#: noise levels proven only for n = 2, m = 1 (lambda in {2, 3, 4}; drawn as an open circle)
PROVEN_SIGMAS_N2 = [0.5]


def witness(d: int) -> ProbeConfig:
    """Other rows at 0, u and u' at distance ~1 from 0 and from each other (exact rationals)."""
    z = (Fraction(0),) * (d - 2)
    c = (Fraction(0), Fraction(0), *z)
    u = (Fraction(1), Fraction(0), *z)
    up = (Fraction(1, 2), Fraction(866, 1000), *z)
    return ProbeConfig("range", 50, 1, Fraction(0), Fraction(1), Fraction(2), (c,), (49,), u, up)


def main(out_dir: Path, fast: bool = False) -> dict:
    fig, axes = subplots(4, 3, figsize=(12, 14))
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
    _regions(axes[3], panels)
    fig.tight_layout()
    data = {"title": TITLE, "source": SOURCE, "seed": SEED, "steps": STEPS, "panels": panels}
    return save_figure(fig, data, out_dir, ID)


def _regions(row, panels: list[dict]) -> None:
    """Last row: per model (one panel each) and dimension, the sigma of every proven violation
    (refuted, red) over the search box's sigma range; the rest is open (grey) or, for ``poisson``, a
    theorem (blue: Mironov, Talwar, Zhang 2019, Thm 4)."""
    for ax, model in zip(row, MODELS, strict=True):
        for p in (q for q in panels if q["model"] == model):
            d = p["dim"]
            base = "tab:blue" if model == "poisson" else "0.8"
            ax.plot([0.25, 8], [d, d], "-", color=base, lw=8, solid_capstyle="butt")
            sig = [float(Fraction(v["config"]["sigma"])) for v in p["violations"]]
            if "witness" in p:
                sig.append(float(Fraction(p["witness"]["config"]["sigma"])))
            ax.plot(sig, [d] * len(sig), "v", color="tab:red", ms=9)
        if model != "poisson":
            # the cases `conjecture --prove` settles (n <= 4, m <= 2, lambda in {2, 3, 4}; one
            # holds-boxes certificate each, docs/blog_part2_conjecture.md), not computed here
            ax.plot(PROVEN_SIGMAS, [1] * len(PROVEN_SIGMAS), "o", color="tab:green", ms=8)
            ax.plot(PROVEN_SIGMAS_N2, [1] * len(PROVEN_SIGMAS_N2), "o", mfc="none", color="tab:green", ms=8)
            ax.text(0.27, 1.25, "green: proven for n <= 4, m <= 2 (--prove); open: n = 2 only", fontsize=7)
        ax.set_xscale("log")
        ax.set_xticks([0.25, 0.5, 1, 2, 4, 8], ["1/4", "1/2", "1", "2", "4", "8"])
        ax.minorticks_off()
        ax.set_yticks([1, 2, 3])
        ax.set_ylim(0.5, 3.5)
        ax.set_xlabel("sigma (search box [1/4, 8])", fontsize=8)
        ax.set_ylabel("dimension d", fontsize=8)
        what = "theorem (blue)" if model == "poisson" else "open (grey)"
        ax.set_title(f"{model}: red = violation proven at this sigma (refuted); {what}", fontsize=8)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
