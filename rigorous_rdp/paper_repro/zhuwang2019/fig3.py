r"""Zhu & Wang 2019, Fig. 3: RDP of Poisson-subsampled Gaussian, Laplace and randomized response vs alpha.

Settings of Sec. 4 (and the authors' scripts): sampling probability
:math:`\gamma = 0.001`; high privacy :math:`\sigma = 5, b = 2, p = 0.6`; low privacy
:math:`\sigma = 1, b = 0.5, p = 0.9`.  Curves, all certified enclosures at integer orders
(plotted at their midpoints; the enclosures are far narrower than a pixel):

* general upper bound (Thm 5), tight bound (Thm 8; condition (4) holds for all three
  mechanisms) and the lower bound (Thm 6, the same formula as Thm 8: the tight
  bound *is* the lower bound), drawn dashed over the tight curve;
* Abadi et al. 2016 Lemma 3 (Gaussian only, on its validity range
  :math:`\alpha \le \sigma^2\log(1/(\gamma\sigma)) + 1`; empty where :math:`\gamma \ge 1/(16\sigma)`);
* Wang et al. 2019, subsampling without replacement with the same base RDP and
  :math:`\gamma = m/n` (``rigorous_rdp.subsampling.wang2019.wang2019_curve``; note the
  different sampling scheme and replace-one adjacency, as in the seed);
* the base mechanism without subsampling, and for pure-DP mechanisms the Lemma 4
  value :math:`\log(1+\gamma(e^{\epsilon_\infty}-1))` (grey, dotted).

The order grid (2 to 2048, log spaced) is our choice; the seed does not list it.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TypedDict

import numpy as np

from rigorous_rdp.arith import workprec
from rigorous_rdp.curves import RdpCurve
from rigorous_rdp.paper_repro._common import SEEDS as SEED_FILES
from rigorous_rdp.paper_repro.zhuwang2019._common import (
    DATASET_SIZE,
    GAMMA,
    SETTINGS,
    base_curve,
    finish_panel,
    panel_grid,
    save_panels,
)
from rigorous_rdp.research.abadi import abadi_lemma3_rdp, abadi_validity_range
from rigorous_rdp.subsampling.wang2019 import wang2019_curve
from rigorous_rdp.subsampling.zhu_wang import ZhuWangCurve

ID = "zhuwang2019-fig3"
TITLE = "Fig. 3: RDP of Poisson-subsampled Gaussian / Laplace / randomized response vs alpha"
SOURCE = SEED_FILES["zhuwang2019"]

ALPHAS = sorted({round(x) for x in np.logspace(np.log10(2), np.log10(2048), 34)})
FAST_ALPHAS = [2, 4, 8, 16, 32, 64, 128, 256]
PREC = 96


class AbadiData(TypedDict, total=False):
    """The Abadi et al. Lemma 3 curve of a Gaussian panel (empty where the lemma does not apply)."""

    alphas: list[int]
    rdp: list[float]
    max_alpha: int
    not_applicable: str


class PanelData(TypedDict, total=False):
    """The plotted numbers of one panel (mechanism and privacy regime)."""

    alphas: list[int]
    general_thm5: list[float]
    tight_thm8: list[float]
    lower_thm6: list[float]
    no_subsampling: list[float]
    lemma4_pure_dp: float
    abadi_lemma3: AbadiData
    wang2019_without_replacement: list[float]


def _vals(curve: RdpCurve, alphas: list[int]) -> list[float]:
    out = []
    with workprec(PREC):
        for a in alphas:
            v = curve.certified(Fraction(a))
            out.append(float(v.mid()) if v.is_finite() else float("inf"))
    return out


def panel_data(mech: str, param: Fraction, alphas: list[int]) -> PanelData:
    base = base_curve(mech, param)
    d: PanelData = {"alphas": alphas}
    d["general_thm5"] = _vals(ZhuWangCurve(base, GAMMA, "general"), alphas)
    d["tight_thm8"] = _vals(ZhuWangCurve(base, GAMMA, "tight"), alphas)
    d["lower_thm6"] = _vals(ZhuWangCurve(base, GAMMA, "lower"), alphas)
    d["no_subsampling"] = _vals(base, alphas)
    e_inf = base.pure_dp_epsilon()
    if e_inf is not None:
        with workprec(PREC):
            d["lemma4_pure_dp"] = float((e_inf.expm1() * GAMMA.numerator / GAMMA.denominator).log1p().mid())
    if mech == "gaussian":
        try:
            lim = abadi_validity_range(GAMMA, param) + 1
            ab = [a for a in alphas if a <= lim]
            with workprec(PREC):
                d["abadi_lemma3"] = {
                    "alphas": ab,
                    "rdp": [float(abadi_lemma3_rdp(a, GAMMA, param).mid()) for a in ab],
                    "max_alpha": lim,
                }
        except ValueError as exc:
            d["abadi_lemma3"] = {"alphas": [], "rdp": [], "not_applicable": str(exc)}
    m = int(GAMMA * DATASET_SIZE)
    d["wang2019_without_replacement"] = _vals(wang2019_curve(base, m, DATASET_SIZE), alphas)
    return d


def main(out_dir: Path, fast: bool = False) -> dict:
    alphas = FAST_ALPHAS if fast else ALPHAS
    fig, cells = panel_grid()
    panels: dict[str, PanelData] = {}
    header: dict[str, object] = {
        "title": TITLE,
        "source": SOURCE,
        "settings": {k: {m: str(v) for m, v in s.items()} for k, s in SETTINGS.items()},
        "wang2019_included": True,
        "note": "certified enclosures at integer orders, plotted at midpoints",
    }
    for ax, regime, mech, param in cells:
        d = panel_data(mech, param, alphas)
        panels[f"{regime}/{mech}"] = d
        ax.loglog(alphas, d["general_thm5"], "g-^", ms=3, lw=1.5, label="general upper bound (Thm 5)")
        ax.loglog(alphas, d["tight_thm8"], "k-", lw=2.2, label="tight upper bound (Thm 8)")
        ax.loglog(alphas, d["lower_thm6"], "--", color="orange", lw=1.2, label="lower bound (Thm 6)")
        ax.loglog(
            alphas, d["wang2019_without_replacement"], "b-s", ms=2.5, lw=1, label="Wang et al. 2019 (w/o replacement)"
        )
        if mech == "gaussian" and d["abadi_lemma3"]["alphas"]:
            ax.loglog(
                d["abadi_lemma3"]["alphas"], d["abadi_lemma3"]["rdp"], "r-", lw=1.5, label="Abadi et al. 2016, Lemma 3"
            )
        ax.loglog(alphas, d["no_subsampling"], ":", color="0.5", lw=1, label="no subsampling")
        if "lemma4_pure_dp" in d:
            ax.axhline(d["lemma4_pure_dp"], color="0.6", ls="-.", lw=0.8, label="Lemma 4 (pure DP)")
        finish_panel(ax, mech, param, regime, r"$\gamma = 0.001$", r"order $\alpha$", r"RDP $\epsilon(\alpha)$")
        lo = min(v for v in d["tight_thm8"] if v > 0)
        ax.set_ylim(lo / 3, max(d["no_subsampling"]) * 3)
    return save_panels(fig, panels, header, out_dir, ID)


if __name__ == "__main__":
    main(Path("figures"))
