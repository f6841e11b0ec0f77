r"""The two blog posts on differential privacy as a toolkit.

* :mod:`rigorous_rdp.research.blog.part1` -- part 1, "A Tail of Two Densities"
  (``seeds/001_bdd2e238bc870026.txt``): Laplace and Gaussian mechanisms,
  (6.8) and the calibrations (6.81)-(6.84), composition Claims 10-18,
  subsampling Claim 19, the DP-SGD guarantee.
* :mod:`rigorous_rdp.research.blog.part2_claims` -- part 2 (``seeds/000_b75598ebeda44c3a.txt``),
  Claims 20-25 and 27: RDP to DP (Claim 21), the Legendre transform
  :math:`\kappa^*` (Claims 20, 23), Examples 2-4, RDP subsampling (Claim 24),
  the mixture identity (Claim 27) and (9.5).
* :mod:`rigorous_rdp.research.indistinguishability` (outside this package, since it is not
  blog-specific): optimal delta(epsilon) of two distributions.

The submodules are imported on first use (``rigorous_rdp.research.blog.part1``), so that
importing this package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["part1", "part2_claims"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
