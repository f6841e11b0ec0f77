r"""Zhu & Wang 2019, Fig. 2: Poisson distributions with negative :math:`\chi^3` divergence.

The seed's Fig. 2 illustrates the example of Nielsen & Nock (2014): two Poisson
distributions whose Pearson-Vajda :math:`\chi^3` pseudo-divergence is negative, so
condition (4) fails for a mechanism that outputs Poisson samples.  The seed does
not state the rates; we plot

* left: :math:`D_{\chi^3}(\mathrm{Poi}(\lambda_1)\|\mathrm{Poi}(\lambda_2))` against
  the ratio :math:`\lambda_1/\lambda_2` for :math:`\lambda_2 \in \{0.25, 0.5, 1, 2\}` (closed form,
  :func:`rigorous_rdp.research.chi_divergence.poisson_chi_float`), with certified points
  (ball arithmetic) marking where the sign is proven;
* right: the certified sign of :math:`D_{\chi^3}` on a grid of :math:`(\lambda_1, \lambda_2)`.

With :math:`r = \lambda_1/\lambda_2`, :math:`x = \lambda_2(r-1)^2`:
:math:`D_{\chi^3} = 2 - 3e^{x} + e^{x(r+2)}`, negative when :math:`r < 1` and x is small.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro._common import save_figure, subplots
from rigorous_rdp.research.chi_divergence import poisson_chi, poisson_chi_float

ID = "zhuwang2019-fig2"
TITLE = "Fig. 2: negative chi^3 divergence between Poisson distributions (Nielsen & Nock 2014)"
SOURCE = SEED_FILES["zhuwang2019"]

LAMBDA2 = (0.25, 0.5, 1.0, 2.0)
LAMBDA1_MAX = 3.0
RATIO_MAX = 1.6
CERT_POINTS = 12  # certified points per curve
GRID = 40  # certified sign grid (per axis)
FAST_GRID = 12
PREC = 96
EXAMPLE = ("1/10", "1/2")


def _sign(l1: Fraction, l2: Fraction) -> int:
    v = poisson_chi(3, l1, l2, prec=PREC)
    if v < 0:
        return -1
    if v > 0:
        return 1
    return 0


def main(out_dir: Path, fast: bool = False) -> dict:
    fig, (ax, ax2) = subplots(1, 2, figsize=(11, 4.4))
    rs = np.linspace(0.0025, RATIO_MAX, 400)
    curves = {}
    certified = {}
    for l2 in LAMBDA2:
        xs = rs * l2
        ys = poisson_chi_float(3, xs, l2)
        (line,) = ax.plot(rs, ys, label=rf"$\lambda_2 = {l2:g}$")
        pts = np.linspace(0.05, RATIO_MAX, CERT_POINTS if not fast else 5)
        cert = []
        for r in pts:
            l1 = Fraction(r * l2).limit_denominator(1000)
            b = poisson_chi(3, l1, Fraction(l2), prec=PREC)
            lo, hi = float(b.lower()), float(b.upper())
            cert.append({"lambda1": float(l1), "lower": lo, "upper": hi})
            ax.plot(
                [float(l1) / l2],
                [0.5 * (lo + hi)],
                "o",
                color=line.get_color(),
                ms=3,
                mfc="none" if lo < 0 < hi else line.get_color(),
            )
        curves[str(l2)] = {"lambda1": xs[::10].tolist(), "chi3": ys[::10].tolist()}
        certified[str(l2)] = cert
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel(r"$\lambda_1 / \lambda_2$")
    ax.set_ylabel(r"$D_{\chi^3}(\mathrm{Poi}(\lambda_1)\,\|\,\mathrm{Poi}(\lambda_2))$")
    ax.set_ylim(-0.3, 0.6)
    ax.set_title(r"$\chi^3$ of Poisson pairs (dots: certified values)")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)

    n = FAST_GRID if fast else GRID
    g1 = np.linspace(0.05, LAMBDA1_MAX, n)
    g2 = np.linspace(0.05, 2.0, n)
    signs = np.zeros((n, n), dtype=int)
    for i, l2 in enumerate(g2):
        for j, l1 in enumerate(g1):
            signs[i, j] = _sign(Fraction(l1).limit_denominator(10**6), Fraction(l2).limit_denominator(10**6))
    from matplotlib.colors import ListedColormap

    cmap = ListedColormap(["#d62728", "#bbbbbb", "#1f77b4"])
    ax2.pcolormesh(g1, g2, signs, cmap=cmap, vmin=-1.5, vmax=1.5, shading="nearest")
    ax2.plot(g2, g2, "k--", lw=0.8, label=r"$\lambda_1 = \lambda_2$ ($\chi^3 = 0$)")
    ax2.set_xlabel(r"$\lambda_1$")
    ax2.set_ylabel(r"$\lambda_2$")
    ax2.set_title(r"certified sign of $\chi^3$: red < 0, blue > 0, grey undecided")
    ax2.legend(fontsize=8, loc="upper right")
    ex = poisson_chi(3, EXAMPLE[0], EXAMPLE[1], prec=PREC)
    data = {
        "title": TITLE,
        "source": SOURCE,
        "lambda2": list(LAMBDA2),
        "curves": curves,
        "certified_points": certified,
        "sign_grid": {"lambda1": g1.tolist(), "lambda2": g2.tolist(), "sign": signs.tolist()},
        "negative_cells": int((signs < 0).sum()),
        "positive_cells": int((signs > 0).sum()),
        "undecided_cells": int((signs == 0).sum()),
        "example": {
            "lambda1": EXAMPLE[0],
            "lambda2": EXAMPLE[1],
            "chi3_lower": float(ex.lower()),
            "chi3_upper": float(ex.upper()),
        },
        "note": "the seed does not state the rates of its Fig. 2; rates chosen here",
    }
    return save_figure(fig, data, out_dir, ID)


if __name__ == "__main__":
    main(Path("figures"))
