r"""Blog part 2, Conjecture 1: LHS :math:`D_\lambda(p\|q)` against RHS
:math:`D_\lambda(r\mu_1+(1-r)\mu_0\|\mu_0)` over probed configurations, one panel per model
(``range``, ``clip``, ``poisson``) and dimension (1, 2, 3); the diagonal is equality.  Each panel's
worst configuration gets a certified enclosure and every screened candidate violation a certified
lower bound (:func:`rigorous_rdp.research.conjecture.probe`); the ``range`` panels in d >= 2 also show
the equilateral-triangle witness (m = 1, n = 50, sigma = 1, lambda = 2), whose violation is proven.
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
    screen_ratio,
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
    fig, axes = subplots(3, 3, figsize=(12, 11))
    panels = []
    for i, model in enumerate(MODELS):
        for j, d in enumerate((1, 2, 3)):
            ax = axes[i][j]
            n = FAST_TRIALS if fast else TRIALS[d]
            res = [_trial((model, d, SEED, k, STEPS)) for k in range(n)]
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
            for x in sorted(res, key=lambda x: -x["screen"]["ratio"])[:3]:
                if x["screen"]["ratio"] > 1 + 1e-6 and not is_rhs_pair(x["config"]):
                    v = certify_violation(x["config"])
                    if v["proven"]:
                        viol.append({"config": x["config"].to_json(), "ratio_lower": float(v["ratio_lower"].lower())})
            sel = [p for p in pts if p["rhs"] > 0 and p["lhs"] > 0]
            ax.loglog([p["rhs"] for p in sel], [p["lhs"] for p in sel], "o", ms=4, alpha=0.7, label="probed (screen)")
            panel = {
                "model": model,
                "dim": d,
                "trials": n,
                "points": pts,
                "screened_max": worst["screen"]["ratio"],
                "worst": {
                    "config": worst["config"].to_json(),
                    "ratio": cert["ratio"].to_json(12),
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
                f"{model}, d = {d}: {n} trials; worst screened {worst['screen']['ratio']:.4f}\n"
                f"certified [{cert['ratio'].to_json(4)['lower']}, {cert['ratio'].to_json(4)['upper']}]"
                f" ({cert['verdict']}); proven violations {len(viol)}",
                fontsize=8,
            )
            ax.set_xlabel("RHS", fontsize=8)
            ax.set_ylabel("LHS", fontsize=8)
            ax.legend(fontsize=6, loc="upper left")
            panels.append(panel)
    fig.tight_layout()
    data = {"title": TITLE, "source": SOURCE, "seed": SEED, "steps": STEPS, "panels": panels}
    return save_figure(fig, data, out_dir, ID)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
