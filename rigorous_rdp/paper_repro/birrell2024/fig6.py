r"""Fig. 6 of Birrell et al. 2024: one step of Thm 3.3 (FSwoR, add/remove) for m = 3, 4.

sigma = 6, |B| = 120, |D| = 50000.  Certified upper endpoints of the Taylor bounds
(App. B) and of the exact divergence of Thm 3.1 they bound, over alpha.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial
from pathlib import Path

from flint import arb

from rigorous_rdp.arith import refine
from rigorous_rdp.paper_repro._common import save_figure, subplots
from rigorous_rdp.subsampling.fswor import fswor_add_remove_exact_rdp, fswor_add_remove_rdp

ID = "birrell2024-fig6"
TITLE = "One step of Thm 3.3 for m = 3, 4 (sigma = 6, |B| = 120, |D| = 50000)"
SOURCE = "004_85a5147f28f95754.txt"

SIGMA = Fraction(6)
Q = Fraction(120, 50000)
ALPHAS = [Fraction(x, 4) for x in range(5, 41)] + [Fraction(x) for x in range(11, 65)]
ALPHAS_FAST = [Fraction(x, 2) for x in range(3, 21)] + [Fraction(x) for x in (12, 16, 24, 32, 48, 64)]


def _upper(ball: Callable[[], arb]) -> float:
    """Upper end of the ball ``ball()``, refined to 8 digits by :func:`refine`."""
    return refine(lambda prec: ball(), 8).upper_float()


def main(out_dir: Path = Path("figures"), fast: bool = False) -> dict:
    alphas = ALPHAS_FAST if fast else ALPHAS
    rows: dict[str, list[float]] = {"m3": [], "m4": [], "exact": []}
    for a in alphas:
        rows["m3"].append(_upper(partial(fswor_add_remove_rdp, a, Q, SIGMA, 3)))
        rows["m4"].append(_upper(partial(fswor_add_remove_rdp, a, Q, SIGMA, 4)))
        rows["exact"].append(_upper(partial(fswor_add_remove_exact_rdp, a, Q, SIGMA)))
    xs = [float(a) for a in alphas]
    fig, ax = subplots(figsize=(6, 4))
    ax.plot(xs, rows["m3"], label="Thm 3.3, m = 3")
    ax.plot(xs, rows["m4"], "--", label="Thm 3.3, m = 4")
    ax.plot(xs, rows["exact"], ":", label="Thm 3.1 divergence (exact)")
    ax.set_xlabel(r"$\alpha$")
    ax.set_ylabel("one-step RDP bound")
    ax.set_title(TITLE, fontsize=9)
    ax.legend()
    data = {
        "title": TITLE,
        "source": SOURCE,
        "alpha": xs,
        "rdp_m3_upper": rows["m3"],
        "rdp_m4_upper": rows["m4"],
        "rdp_exact_upper": rows["exact"],
        "sigma": 6,
        "batch_size": 120,
        "dataset_size": 50000,
    }
    return save_figure(fig, data, out_dir, ID)


if __name__ == "__main__":
    main()
