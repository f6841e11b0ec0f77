r"""Blog part 2, Conjecture 1: LHS :math:`D_\lambda(p\|q)` against RHS
:math:`D_\lambda(r\mu_1+(1-r)\mu_0\|\mu_0)` over probed configurations (float screen), by kind
(fixed-size replace-one / Poisson add/remove, 1-d / 2-d); the diagonal is equality.  The worst
1-d configuration is certified (:func:`rigorous_rdp.research.conjecture.probe`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from paper_repro._common import SEEDS, save_figure
from rigorous_rdp.research.conjecture import _trial, certify_config, is_rhs_pair

ID = "blog2-conjecture"
TITLE = "Blog part 2: Conjecture 1, LHS against RHS over probed configurations"
SOURCE = SEEDS["blog2"]

SEED = 2019
TRIALS = 200
FAST_TRIALS = 12
STEPS = 8


def main(out_dir: Path, fast: bool = False) -> dict:
    n = FAST_TRIALS if fast else TRIALS
    res = [_trial((SEED, i, STEPS)) for i in range(n)]
    pts = []
    for x in res:
        c = x["config"]
        lam = float(c.lam)
        pts.append({"kind": f"{c.sampling}-d{c.d}", "lhs": x["screen"]["log_g_lhs"] / (lam - 1),
                    "rhs": x["screen"]["log_g_rhs"] / (lam - 1), "ratio": x["screen"]["ratio"], "config": c.to_json()})
    one_d = [x for x in res if x["config"].d == 1]
    worst = max(one_d, key=lambda x: x["screen"]["ratio"])
    cert = certify_config(worst["config"], digits=6)
    others = [x for x in one_d if not is_rhs_pair(x["config"])]
    wn = max(others, key=lambda x: x["screen"]["ratio"]) if others else None
    cert_n = certify_config(wn["config"], digits=6) if wn is not None else None
    fig, ax = plt.subplots(figsize=(6, 5.5))
    for kind, mk in (("fixed-d1", "o"), ("fixed-d2", "s"), ("poisson-d1", "^"), ("poisson-d2", "v")):
        sel = [p for p in pts if p["kind"] == kind and p["rhs"] > 0 and p["lhs"] > 0]
        if sel:
            ax.loglog([p["rhs"] for p in sel], [p["lhs"] for p in sel], mk, ms=4, alpha=0.7, label=kind)
    lo = min(p["rhs"] for p in pts if p["rhs"] > 0)
    hi = max(p["rhs"] for p in pts)
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="LHS = RHS")
    ax.set_xlabel("RHS  D_lambda(r mu1 + (1-r) mu0 || mu0)")
    ax.set_ylabel("LHS  D_lambda(p || q)")
    title = f"{n} trials (seed {SEED}); worst ratio <= {cert['ratio'].to_json(8)['upper']} ({cert['verdict']})"
    if cert_n is not None:
        title += f"\nworst other than the RHS pair itself: <= {cert_n['ratio'].to_json(8)['upper']} ({cert_n['verdict']})"
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    data = {"title": TITLE, "source": SOURCE, "seed": SEED, "trials": n, "points": pts,
            "worst": {"config": worst["config"].to_json(), "ratio": cert["ratio"].to_json(12), "verdict": cert["verdict"]},
            "worst_nontrivial": None if cert_n is None else {"config": wn["config"].to_json(),
                                                             "ratio": cert_n["ratio"].to_json(12), "verdict": cert_n["verdict"]}}
    return save_figure(fig, data, out_dir, ID)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
