r"""Executor helpers for probes and sweeps.

Every probe and sweep of the toolkit submits independent, picklable work items to a
:class:`concurrent.futures.Executor`.  By default that is a local
:class:`~concurrent.futures.ProcessPoolExecutor` with ``jobs`` workers (``jobs=1`` runs in the
calling process, with no pool at all).  Results never depend on the number of workers or
on the order of completion: each work item carries its own seed, and results are put
back in submission order.

Running on a Dask cluster uses the same code through Dask's executor interface::

    from distributed import Client
    client = Client("tcp://scheduler:8786")          # or Client() for a local cluster
    from rigorous_rdp.research.conjecture import probe
    result = probe(trials=100000, seed=1, executor=client.get_executor())

``Client.get_executor()`` returns an object implementing :class:`concurrent.futures.Executor`
(``submit`` returning futures that work with :func:`concurrent.futures.as_completed`), so
no code of this package changes; the workers need ``rigorous_rdp`` importable.
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
from typing import Any, Callable, Iterable, List, Optional, Sequence, TypeVar

__all__ = ["SerialExecutor", "make_executor", "map_ordered", "validate_jobs"]

T = TypeVar("T")


class SerialExecutor(cf.Executor):
    """A :class:`concurrent.futures.Executor` that runs each call at submission, in process."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:  # type: ignore[override]
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # delivered through the future, as a pool would
            fut.set_exception(exc)
        return fut


def validate_jobs(jobs: object) -> int:
    """Parse ``--jobs``: an integer >= 1."""
    try:
        j = int(str(jobs))
    except ValueError:
        raise ValueError(f"jobs must be an integer >= 1. Found {jobs}.") from None
    if j < 1 or str(j) != str(jobs).strip():
        raise ValueError(f"jobs must be an integer >= 1. Found {jobs}.")
    return j


def make_executor(jobs: int = 1) -> cf.Executor:
    """``SerialExecutor`` for ``jobs == 1``, else a local process pool with ``jobs`` workers."""
    if jobs <= 1:
        return SerialExecutor()
    return cf.ProcessPoolExecutor(max_workers=jobs)


def map_ordered(fn: Callable[[Any], T], items: Sequence[Any], *, executor: Optional[cf.Executor] = None,
                jobs: int = 1, progress: bool = False, desc: str = "") -> List[T]:
    """Apply ``fn`` to every item through an executor; results in the order of ``items``.

    Args:
        fn: a picklable (module-level) function of one argument.
        items: the work items (picklable).
        executor: any :class:`concurrent.futures.Executor` (a Dask ``client.get_executor()``
            included); when ``None`` one is made with :func:`make_executor` and shut down.
        jobs: number of local worker processes when ``executor`` is ``None``.
        progress: show a tqdm progress bar on stderr.
    """
    own = executor is None
    ex = make_executor(jobs) if own else executor
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(items), desc=desc, file=sys.stderr, leave=False)
    try:
        futs = {ex.submit(fn, it): i for i, it in enumerate(items)}
        out: List[Any] = [None] * len(items)
        for fut in cf.as_completed(futs):
            out[futs[fut]] = fut.result()
            if bar is not None:
                bar.update(1)
        return out
    finally:
        if bar is not None:
            bar.close()
        if own:
            ex.shutdown(wait=True, cancel_futures=True)
