"""Helpers shared by the figure scripts."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

SEEDS = {
    "blog2": "000_b75598ebeda44c3a.txt",
    "blog1": "001_bdd2e238bc870026.txt",
    "zhuwang2019": "002_8442ad9e6f211c1c.txt",
    "birrell2024": "004_85a5147f28f95754.txt",
}


def _clean(obj: Any) -> Any:
    """Make data JSON-safe: numpy scalars/arrays to lists, non-finite floats to strings."""
    try:
        import numpy as np

        if isinstance(obj, np.ndarray):
            return [_clean(x) for x in obj.tolist()]
        if isinstance(obj, np.generic):
            obj = obj.item()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else str(obj)
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(x) for x in obj]
    return obj


def save_figure(fig: plt.Figure, data: dict[str, Any], out_dir: Path, fig_id: str) -> dict[str, Any]:
    """Write ``<out_dir>/<fig_id>.png`` and ``<out_dir>/<fig_id>.json``; close the figure."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_dir / f"{fig_id}.png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    payload = _clean(dict(data, id=fig_id))
    (out_dir / f"{fig_id}.json").write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    return payload
