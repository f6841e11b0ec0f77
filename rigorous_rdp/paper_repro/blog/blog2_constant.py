r"""Blog part 2, proof of Claim 26: :math:`G(\sigma)` and :math:`C(c_1, c_2)`.

Left: :math:`G(\sigma) = G_\lambda(r\mu_1+(1-r)\mu_0\|\mu_0)`, :math:`r = c_1/\sigma`,
:math:`\lambda = c_2\sigma^2`, against :math:`\sigma` for a few :math:`(c_1, c_2)`, with its limit
:math:`e^{c_1^2c_2^2/2}` (dashed) -- the post's argument claims the limit is 0.  Right: the
certified supremum :math:`C(c_1,c_2)` over :math:`\sigma\in[\sigma_{\min}, \sigma_{\max}]` on a grid
of :math:`(c_1, c_2)` (integer orders :math:`\lfloor c_2\sigma^2\rfloor`, log10 of the upper end).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS, save_figure, subplots
from rigorous_rdp.research.constant import constant_sup, log_g_screen

ID = "blog2-constant"
TITLE = "Blog part 2: G(sigma) and the constant C(c1, c2) of Claim 26"
SOURCE = SEEDS["blog2"]

CURVES = ((1.0, 1.0), (0.5, 1.0), (1.0, 2.0), (2.0, 0.5))
SIGMAS = np.geomspace(1.5, 200, 80)
C1_GRID = (0.25, 0.5, 1.0, 1.5, 2.0)
C2_GRID = (0.25, 0.5, 1.0, 1.5, 2.0)
SIGMA_MAX = 40
FAST: dict[str, Any] = {"sigmas": np.geomspace(1.5, 50, 20), "c1": (0.5, 1.0), "c2": (0.5, 1.0), "sigma_max": 10}


def main(out_dir: Path, fast: bool = False) -> dict:
    sigmas = FAST["sigmas"] if fast else SIGMAS
    c1s, c2s = (FAST["c1"], FAST["c2"]) if fast else (C1_GRID, C2_GRID)
    smax = FAST["sigma_max"] if fast else SIGMA_MAX
    curves = []
    for c1, c2 in CURVES:
        pts = [
            (float(s), log_g_screen(c2 * s * s, min(1.0, c1 / s), float(s)))
            for s in sigmas
            if s >= c1 and c2 * s * s > 1
        ]
        curves.append(
            {
                "c1": c1,
                "c2": c2,
                "sigma": [p[0] for p in pts],
                "G": [math.exp(p[1]) for p in pts],
                "limit": math.exp(c1 * c1 * c2 * c2 / 2),
            }
        )
    table: list[dict[str, Any]] = []
    for c1 in c1s:
        for c2 in c2s:
            res = constant_sup(str(c1), str(c2), sigma_max=smax, integer=True)
            table.append(
                {
                    "c1": c1,
                    "c2": c2,
                    "C": res.value.to_json(10),
                    "sigma_argmax": float(res.sigma_argmax),
                    "limit": res.limit.to_json(10),
                    "sigma_max": smax,
                }
            )
    fig, (a1, a2) = subplots(1, 2, figsize=(12, 4.5))
    for c in curves:
        (line,) = a1.semilogx(c["sigma"], c["G"], label=f"c1={c['c1']}, c2={c['c2']}")
        a1.axhline(c["limit"], color=line.get_color(), ls="--", lw=0.8)
    a1.set_yscale("log")
    from matplotlib.ticker import NullFormatter

    a1.xaxis.set_minor_formatter(NullFormatter())
    a1.yaxis.set_minor_formatter(NullFormatter())
    a1.set_xlabel("sigma")
    a1.set_ylabel("G(sigma)  (estimate; dashed: exp(c1^2 c2^2 / 2))")
    a1.legend(fontsize=8)
    M = np.array(
        [
            [math.log10(float(next(t["C"]["upper"] for t in table if t["c1"] == c1 and t["c2"] == c2))) for c2 in c2s]
            for c1 in c1s
        ]
    )
    im = a2.imshow(M, origin="lower", aspect="auto", cmap="viridis")
    a2.set_xticks(range(len(c2s)), [str(c) for c in c2s])
    a2.set_yticks(range(len(c1s)), [str(c) for c in c1s])
    a2.set_xlabel("c2")
    a2.set_ylabel("c1")
    for i in range(len(c1s)):
        for j in range(len(c2s)):
            a2.text(j, i, f"{M[i, j]:.2g}", ha="center", va="center", color="w", fontsize=7)
    fig.colorbar(im, ax=a2, label=f"log10 C(c1, c2), sigma in [min, {smax}], integer orders")
    data = {"title": TITLE, "source": SOURCE, "curves": curves, "table": table}
    return save_figure(fig, data, out_dir, ID)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
