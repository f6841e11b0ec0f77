"""Timing shared by the benchmark scripts (each script runs as a program: ``python benchmarks/bench_<name>.py``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def timed(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """Median wall-clock seconds of ``repeat`` calls of ``fn`` after one warm-up call, and the last result."""
    out = fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out
