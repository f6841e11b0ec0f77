r"""Certified privacy-loss-distribution accounting: two-sided brackets of the optimal
epsilon(delta) and delta(epsilon) (see :mod:`rigorous_rdp.pld.accountant`)."""

from .accountant import DEFAULT_WIDTH, PldAccountant, PldDeltaResult, PldEpsilonResult

__all__ = ["DEFAULT_WIDTH", "PldAccountant", "PldDeltaResult", "PldEpsilonResult"]
