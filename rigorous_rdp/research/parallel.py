r"""Executor helpers for probes and sweeps.

Every probe and sweep of the toolkit submits independent, picklable work items to a
:class:`concurrent.futures.Executor`.  By default that is a local
:class:`~concurrent.futures.ProcessPoolExecutor` with ``jobs`` workers (``jobs=1`` runs in the
calling process, with no pool at all).  Results never depend on the number of workers or
on the order of completion: each work item carries its own seed, and results are put
back in submission order.

Running on a Dask cluster uses the same code through Dask's executor interface
(:func:`dask_executor`, the ``--dask`` option of ``conjecture``, ``constant --table``, ``reproduce``
and ``audit``: ``--dask local:N`` starts a ``distributed.LocalCluster`` with ``N`` single-threaded
workers and no dashboard, ``--dask tcp://host:8786`` joins a running scheduler)::

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
import contextlib
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

__all__ = ["SerialExecutor", "dask_executor", "make_executor", "map_ordered", "validate_dask", "validate_jobs"]

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


def map_ordered(
    fn: Callable[[Any], T],
    items: Sequence[Any],
    *,
    executor: cf.Executor | None = None,
    jobs: int = 1,
    progress: bool = False,
    desc: str = "",
) -> list[T]:
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
    ex = make_executor(jobs) if executor is None else executor
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(items), desc=desc, file=sys.stderr, leave=False)
    try:
        futs = {ex.submit(fn, it): i for i, it in enumerate(items)}
        out: list[Any] = [None] * len(items)
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


def validate_dask(spec: object) -> str | None:
    """Parse ``--dask``: ``None``, ``local:N`` (integer 1 <= N <= 256) or a scheduler address
    (``tcp://host:port``, ``tls://...``, ``host:port``)."""
    if spec is None:
        return None
    text = str(spec).strip()
    m = re.fullmatch(r"local:(\d+)", text)
    if m:
        n = int(m.group(1))
        if not 1 <= n <= 256:
            raise ValueError(f"dask must be local:N with 1 <= N <= 256, or a scheduler address. Found {spec}.")
        return f"local:{n}"
    if re.fullmatch(r"((tcp|tls|inproc|ucx)://)?[A-Za-z0-9_.\-\[\]:]+:\d+", text):
        return text
    raise ValueError(
        f"dask must be local:N with 1 <= N <= 256, or a scheduler address such as tcp://host:8786. Found {spec}."
    )


@contextlib.contextmanager
def dask_executor(spec: str | None) -> Iterator[cf.Executor | None]:
    """Context manager yielding a Dask executor for ``spec`` (see :func:`validate_dask`), or ``None``.

    ``local:N`` starts ``distributed.LocalCluster(n_workers=N, threads_per_worker=1,
    dashboard_address=None)`` and closes it on exit; an address joins that scheduler (its workers
    need ``rigorous_rdp`` importable).  ``Client.get_executor()`` implements
    :class:`concurrent.futures.Executor`, so the work items and their order are those of the local run.

    Raises:
        ValueError: ``dask ...`` when ``distributed`` is not installed or the scheduler is unreachable.
    """
    if spec is None:
        yield None
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("dask needs the 'distributed' package (pip install distributed).") from None
    cluster = None
    try:
        if spec.startswith("local:"):
            import logging

            cluster = LocalCluster(
                n_workers=int(spec.split(":", 1)[1]),
                threads_per_worker=1,
                dashboard_address=None,
                processes=True,
                silence_logs=logging.ERROR,
            )
            client = Client(cluster)
        else:
            try:
                client = Client(spec, timeout=10)
            except OSError as exc:
                raise ValueError(f"dask scheduler {spec} is unreachable: {exc}.") from None
        try:
            yield client.get_executor()
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
