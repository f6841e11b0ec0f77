r"""Blog part 2, "Can this be true for better orders": the exponents :math:`d_r, d_\lambda`.

:math:`\log G` at :math:`r = c_1\sigma^{-d_r}`, :math:`\lambda = \lfloor c_2\sigma^{d_\lambda}\rfloor` against
:math:`\sigma` (estimates, solid) with the proven Jensen lower bound
:math:`\lambda(\lambda-1)r^2/(2\sigma^2)` (dashed).  Bounded only when :math:`d_\lambda \le 1 + d_r`:
with :math:`d_\lambda = 2` every :math:`d_r < 1` diverges, contrary to the post.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS, save_figure, subplots
from rigorous_rdp.research.constant import dr_curve

ID = "blog2-dr"
TITLE = "Blog part 2: log G for r = c1 sigma^-d_r, lambda = c2 sigma^d_lambda"
SOURCE = SEEDS["blog2"]

C1, C2 = 1.0, 1.0
CASES = ((1.0, 2.0), (0.9, 2.0), (0.75, 2.0), (0.5, 2.0), (1.0, 2.2), (0.5, 1.5))
SIGMAS = np.geomspace(2, 60, 30)
FAST_SIGMAS = np.geomspace(2, 20, 8)


def main(out_dir: Path, fast: bool = False) -> dict:
    sig = FAST_SIGMAS if fast else SIGMAS
    series: list[dict[str, object]] = []
    fig, ax = subplots(figsize=(7, 4.5))
    for d_r, d_l in CASES:
        out = dr_curve(C1, C2, d_r, d_l, list(sig))
        series.append({**out, "d_r": d_r, "d_lambda": d_l})
        (line,) = ax.loglog(out["sigma"], np.maximum(out["log_G"], 1e-300), label=f"d_r={d_r}, d_lambda={d_l}")
        ax.loglog(out["sigma"], np.maximum(out["log_jensen"], 1e-300), ls="--", color=line.get_color(), lw=0.8)
    ax.set_xlabel("sigma")
    ax.set_ylabel("log G  (dashed: proven lower bound)")
    ax.set_title(f"c1 = {C1}, c2 = {C2}; bounded iff d_lambda <= 1 + d_r")
    ax.legend(fontsize=8)
    data = {"title": TITLE, "source": SOURCE, "c1": C1, "c2": C2, "series": series}
    return save_figure(fig, data, out_dir, ID)


if __name__ == "__main__":  # pragma: no cover
    main(Path("figures"))
