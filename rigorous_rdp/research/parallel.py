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
import signal
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from .. import budget
from .. import progress as _progress
from ..budget import ignore_sigint, stop_executor
from ..errors import BudgetExceeded

__all__ = [
    "SerialExecutor",
    "dask_executor",
    "ignore_sigint",
    "imap_ordered",
    "make_executor",
    "map_ordered",
    "stop_executor",
    "validate_dask",
    "validate_jobs",
]

T = TypeVar("T")


class SerialExecutor(cf.Executor):
    """A :class:`concurrent.futures.Executor` that runs each call at submission, in process.

    An ordinary exception of the call is delivered through the future, as a pool would; the
    time budget (:class:`~rigorous_rdp.errors.BudgetExceeded`, or any exception raised once
    the budget has expired), ``KeyboardInterrupt`` and every other ``BaseException`` propagate
    from ``submit`` itself, so that no loop over submissions outlives them.
    """

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:  # type: ignore[override]
        budget.check()
        fut: cf.Future = cf.Future()
        try:
            value = fn(*args, **kwargs)
        except BudgetExceeded:
            raise
        except Exception as exc:
            if budget.caused_by_interrupt(exc):  # e.g. a SystemError around an interrupted callback
                raise KeyboardInterrupt from exc
            if budget.expired():  # the same, interrupted by the budget's timer
                raise
            fut.set_exception(exc)
        else:
            fut.set_result(value)
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
    return cf.ProcessPoolExecutor(max_workers=jobs, initializer=ignore_sigint)


#: seconds between two looks at the budget (and at the Dask workers) while waiting for results
POLL_SECONDS = 0.25


def imap_ordered(
    fn: Callable[[Any], T],
    items: Iterable[Any],
    *,
    executor: cf.Executor | None = None,
    jobs: int = 1,
    window: int | None = None,
    progress: bool = False,
    desc: str = "",
    total: int | None = None,
) -> Generator[T, None, None]:
    """Apply ``fn`` to every item through an executor and yield the results in the order of
    ``items``, keeping at most ``window`` items in flight (items are drawn lazily: an iterator of
    a billion items costs the memory of ``window`` of them).

    The time budget (:mod:`rigorous_rdp.budget`) is checked between submissions and at least every
    :data:`POLL_SECONDS` while waiting; at the deadline, on Ctrl-C or on an error the pending work is
    cancelled (the worker processes of an executor made here are terminated) and the exception
    propagates.  An executor with a ``check_alive()`` method (the Dask one of :func:`dask_executor`)
    is asked, while waiting, whether it still has workers.

    Args:
        window: items in flight (default: 1 in process, 4 per worker otherwise).
        progress: count the items in a :func:`rigorous_rdp.progress.task` (drawn on stderr by the
            command line's progress session).
        total: the number of items, for the progress line (default ``len(items)`` if it has one).
    """
    own = executor is None
    ex = make_executor(jobs) if executor is None else executor
    serial = isinstance(ex, SerialExecutor)
    if window is None:
        workers = getattr(ex, "_max_workers", None) or jobs
        window = 1 if serial else max(8, 4 * int(workers))
    check_alive = getattr(ex, "check_alive", None)
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    bar_cm = _progress.task(desc or "work items", total, "items") if progress else None
    bar = bar_cm.__enter__() if bar_cm is not None else None
    where = desc or "the work items"
    pending: dict[int, cf.Future] = {}
    ready: dict[int, Any] = {}
    source = iter(items)
    exhausted = False
    submitted = 0
    emitted = 0
    aborted = True
    try:
        while True:
            while not exhausted and len(pending) + len(ready) < window:
                budget.check(where)
                try:
                    item = next(source)
                except StopIteration:
                    exhausted = True
                    break
                pending[submitted] = ex.submit(fn, item)
                submitted += 1
            if pending and emitted not in ready:
                timeout = min(POLL_SECONDS, max(0.0, budget.remaining()) + 0.01)
                done, _ = cf.wait(list(pending.values()), timeout=timeout, return_when=cf.FIRST_COMPLETED)
                if done:
                    for i in [i for i, f in pending.items() if f in done]:
                        fut = pending.pop(i)
                        if fut.cancelled() and check_alive is not None:  # cancelled by the cluster, not by us
                            check_alive()  # names the cause when it can
                            raise ValueError(
                                "dask: a work item was cancelled by the cluster (its scheduler is gone or was"
                                " restarted); the run is stopped."
                            )
                        ready[i] = fut.result()  # a worker's exception propagates
                else:
                    budget.check(where)
                    if check_alive is not None:
                        check_alive()
            while emitted in ready:
                value = ready.pop(emitted)
                emitted += 1
                if bar is not None:
                    bar.update(1)
                yield value
            if exhausted and not pending and not ready:
                aborted = False
                return
    finally:
        if bar_cm is not None:
            bar_cm.__exit__(None, None, None)
        stop_executor(ex, pending.values(), own, aborted)


def map_ordered(
    fn: Callable[[Any], T],
    items: Sequence[Any],
    *,
    executor: cf.Executor | None = None,
    jobs: int = 1,
    progress: bool = False,
    desc: str = "",
) -> list[T]:
    """Apply ``fn`` to every item through an executor; results in the order of ``items``
    (:func:`imap_ordered`, collected).

    Args:
        fn: a picklable (module-level) function of one argument.
        items: the work items (picklable).
        executor: any :class:`concurrent.futures.Executor` (a Dask ``client.get_executor()``
            included); when ``None`` one is made with :func:`make_executor` and shut down.
        jobs: number of local worker processes when ``executor`` is ``None``.
        progress: count the items in a progress task (see :func:`imap_ordered`).
    """
    window = None if isinstance(executor, SerialExecutor) or (executor is None and jobs <= 1) else max(1, len(items))
    return list(imap_ordered(fn, items, executor=executor, jobs=jobs, window=window, progress=progress, desc=desc))


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


#: seconds a Dask run may go on with no live worker before it is stopped
NO_WORKER_SECONDS = 5.0
#: longest wait for a scheduler to answer, or for its first worker (shortened by the budget)
CONNECT_SECONDS = 10.0


class _DaskExecutor(cf.Executor):
    """A Dask client's executor that can tell whether the cluster can still finish the work."""

    def __init__(self, client: Any, spec: str) -> None:
        self._client = client
        self._inner = client.get_executor()
        self._spec = spec
        self._no_worker_since: float | None = None

    @property
    def _max_workers(self) -> int:
        """The cluster's worker threads (at least 1): :func:`imap_ordered` keeps 4 items per thread in flight."""
        try:
            workers = self._scheduler_info().get("workers", {}).values()
            return max(1, sum(int(w.get("nthreads", 1)) for w in workers))
        except Exception:
            return 1

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:  # type: ignore[override]
        return self._inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._inner.shutdown(wait=wait and not cancel_futures)

    def _scheduler_info(self) -> dict[str, Any]:
        """The client's cached scheduler information (refreshed by its event loop every few
        seconds, no round trip: a dead scheduler cannot make this wait), else a fresh one."""
        cached = getattr(self._client, "_scheduler_identity", None)
        if isinstance(cached, dict) and cached.get("workers"):
            return cached
        return dict(self._client.scheduler_info())

    def check_alive(self) -> None:
        """Raise ``ValueError`` once the scheduler is gone or has had no worker for
        :data:`NO_WORKER_SECONDS` (the tasks would wait for ever)."""
        client = self._client
        if str(getattr(client, "status", "running")) in ("closed", "closing", "failed"):
            raise ValueError(f"dask: lost the connection to the scheduler {self._spec}; the run is stopped.")
        try:
            workers = len(self._scheduler_info().get("workers", {}))
        except Exception:  # the scheduler information is not available: say nothing
            return
        now = time.monotonic()
        if workers > 0:
            self._no_worker_since = None
            return
        if self._no_worker_since is None:
            self._no_worker_since = now
        elif now - self._no_worker_since >= NO_WORKER_SECONDS:
            raise ValueError(
                f"dask: the scheduler {self._spec} has had no live worker for {NO_WORKER_SECONDS:g} s; the run"
                " is stopped (start workers, or use --dask local:N)."
            )


def _kill_local_workers(cluster: Any) -> None:
    """Kill the worker processes of a ``LocalCluster`` of ours (their nannies, in this process,
    must not restart them): a task deep in C code would otherwise hold the close for seconds."""
    import os

    for nanny in list(getattr(cluster, "workers", {}).values()):
        with contextlib.suppress(Exception):
            nanny.auto_restart = False
            pid = nanny.process.process.pid
            if pid:
                os.kill(pid, signal.SIGKILL)


def _connect_seconds() -> float:
    """Time allowed to reach a scheduler or see its first worker: at most
    :data:`CONNECT_SECONDS`, and short enough to report the failure within the budget."""
    left = budget.remaining()
    return max(0.5, min(CONNECT_SECONDS, 0.8 * left - 0.5))


@contextlib.contextmanager
def dask_executor(spec: str | None) -> Iterator[cf.Executor | None]:
    """Context manager yielding a Dask executor for ``spec`` (see :func:`validate_dask`), or ``None``.

    ``local:N`` starts ``distributed.LocalCluster(n_workers=N, threads_per_worker=1,
    dashboard_address=None)`` and closes it on exit; an address joins that scheduler (its workers
    need ``rigorous_rdp`` importable).  ``Client.get_executor()`` implements
    :class:`concurrent.futures.Executor`, so the work items and their order are those of the local run.
    The executor has a ``check_alive()`` method, used by :func:`imap_ordered` while it waits: a run
    whose scheduler is gone, or which has had no worker for :data:`NO_WORKER_SECONDS`, is stopped.

    Raises:
        ValueError: ``dask ...`` when ``distributed`` is not installed, the scheduler is unreachable
            or has no worker within :data:`CONNECT_SECONDS` (less under a short time budget).
    """
    if spec is None:
        yield None
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("dask needs the 'distributed' package (pip install distributed).") from None
    import logging

    # a run stopped early (budget, Ctrl-C, lost workers) cancels its futures: the event loop then
    # logs tracebacks of the cancelled tasks, which are no news to the user
    quiet = {name: logging.getLogger(name) for name in ("tornado.application", "asyncio", "distributed.client")}
    levels = {name: lg.level for name, lg in quiet.items()}
    for lg in quiet.values():
        lg.setLevel(logging.CRITICAL)
    import multiprocessing

    cluster = None
    client = None
    aborted = True
    children = {p.pid for p in multiprocessing.active_children()}
    try:
        if spec.startswith("local:"):
            cluster = LocalCluster(
                n_workers=int(spec.split(":", 1)[1]),
                threads_per_worker=1,
                dashboard_address=None,
                processes=True,
                silence_logs=logging.ERROR,
                scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},  # any free port, no warning
            )
            client = Client(cluster)
        else:
            wait = _connect_seconds()
            try:
                client = Client(spec, timeout=wait)
            except (OSError, TimeoutError) as exc:
                raise ValueError(f"dask scheduler {spec} is unreachable within {wait:.3g} s: {exc}.") from None
            try:
                client.wait_for_workers(1, timeout=_connect_seconds())
            except (OSError, TimeoutError):
                raise ValueError(
                    f"dask scheduler {spec} has no live worker (start workers, or use --dask local:N)."
                ) from None
        yield _DaskExecutor(client, spec)
        aborted = False
    finally:
        if aborted and cluster is not None:  # budget, Ctrl-C or an error: stop our workers now
            _kill_local_workers(cluster)
        elif aborted and spec.startswith("local:"):  # stopped while the cluster was starting
            for proc in multiprocessing.active_children():
                if proc.pid not in children:
                    with contextlib.suppress(Exception):
                        proc.kill()
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=2)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=5)
        for name, lg in quiet.items():
            lg.setLevel(levels[name])
