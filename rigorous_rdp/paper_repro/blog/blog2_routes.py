r"""Blog part 2, "Comparison among different methods": delta of the three routes against k.

At fixed :math:`\epsilon, r, \sigma`, for epochs :math:`k = 1..K`: route 1 (Claims 9, 19, 18,
minimised over :math:`\tilde\epsilon`), route 2 (Claim 23 / Example 3), route 3 as Claim 28
states it (:math:`e^{-\lambda\epsilon/2}`, where feasible) and the corrected Chernoff value
under Conjecture 1 (:func:`rigorous_rdp.research.routes.route3_delta`).  Plotted: the certified upper
ends (log scale).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from rigorous_rdp.paper_repro._common import SEEDS, save_figure, subplots
from rigorous_rdp.research.routes import route1_delta, route2_delta, route3_delta

ID = "blog2-routes"
TITLE = "Blog part 2: delta of the three routes against the number of epochs k"
SOURCE = SEEDS["blog2"]

EPSILON = Fraction(1)
R = Fraction(1, 20)
SIGMA = Fraction(20)
K_MAX = 20
FAST_K = (1, 2, 5, 10)


def _log10_upper(c) -> float:
    """log10 of the certified upper end (a float for plotting; arb has no underflow)."""
    if c is None:
        return float("nan")
    from flint import arb

    return float((c.ball.upper().log() / arb(10).log()).mid())


def main(out_dir: Path, fast: bool = False) -> dict:
    ks = list(FAST_K) if fast else list(range(1, K_MAX + 1))
    rows = []
    for k in ks:
        d1 = route1_delta(EPSILON, R, k, SIGMA)
        d2 = route2_delta(EPSILON, R, k, SIGMA)
        d3 = route3_delta(EPSILON, R, k, SIGMA)
        rows.append(
            {
                "k": k,
                "T": d1["steps"],
                "log10_delta1": _log10_upper(d1["delta"]),
                "log10_delta2": _log10_upper(d2["delta"]),
                "log10_delta3_post": _log10_upper(d3["delta_post"]),
                "log10_delta3_chernoff": _log10_upper(d3["delta_chernoff"]),
                "delta1": d1["delta"].to_json(8) if d1["delta"] else None,
                "delta2": d2["delta"].to_json(8),
                "delta3_post": d3["delta_post"].to_json(8) if d3["delta_post"] else None,
                "delta3_chernoff": d3["delta_chernoff"].to_json(8),
                "lambda3_post": d3.get("lambda_post"),
                "lambda3_chernoff": d3["lambda_chernoff"],
            }
        )
    fig, ax = subplots(figsize=(7, 4.5))
    kk = [r["k"] for r in rows]
    ax.plot(kk, [r["log10_delta1"] for r in rows], "o-", label="route 1: Claims 9, 19, 18")
    ax.plot(kk, [r["log10_delta2"] for r in rows], "s-", label="route 2: Claim 23 (no subsampling)")
    ax.plot(kk, [r["log10_delta3_post"] for r in rows], "^-", label="route 3: Claim 28 as stated (if Conj. 1)")
    ax.plot(kk, [r["log10_delta3_chernoff"] for r in rows], "v--", label="route 3: Chernoff, corrected (if Conj. 1)")
    ax.set_xlabel("epochs k  (T = k / r steps)")
    ax.set_ylabel("log10 delta (certified upper end)")
    ax.set_title(f"epsilon = {EPSILON}, r = {R}, sigma = {SIGMA}")
    ax.axhline(0, color="grey", lw=0.5)
    ax.legend(fontsize=8)
    data = {"title": TITLE, "source": SOURCE, "epsilon": str(EPSILON), "r": str(R), "sigma": str(SIGMA), "rows": rows}
    return save_figure(fig, data, out_dir, ID)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
