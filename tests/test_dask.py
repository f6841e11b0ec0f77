"""The Dask path: a 2-worker LocalCluster gives the same probe result as the local run (same seed)."""

import pytest

from rigorous_rdp.research.conjecture import probe
from rigorous_rdp.research.parallel import dask_executor, validate_dask

distributed = pytest.importorskip("distributed")


def _strip(js):
    return {k: v for k, v in js.items() if k not in ("screens_per_second", "seconds")}


def test_local_cluster_matches_local_run():
    local = probe(4, 11, model="range", dim=2, steps=2).to_json()
    with dask_executor("local:2") as ex:
        remote = probe(4, 11, model="range", dim=2, steps=2, executor=ex).to_json()
    assert _strip(local) == _strip(remote)


def test_validate_dask():
    assert validate_dask(None) is None
    assert validate_dask("local:2") == "local:2"
    assert validate_dask("tcp://10.0.0.1:8786") == "tcp://10.0.0.1:8786"
    for bad in ("local:0", "local:x", "nonsense", "tcp://host"):
        with pytest.raises(ValueError, match=r"^dask must be local:N"):
            validate_dask(bad)


def test_scheduler_without_workers_fails_within_the_budget():
    import time

    from rigorous_rdp import budget

    cluster = distributed.LocalCluster(
        n_workers=0, dashboard_address=None, scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"}
    )
    try:
        t0 = time.monotonic()
        with (
            pytest.raises(ValueError, match=r"^dask scheduler .* has no live worker"),
            budget.time_budget(4),
            dask_executor(cluster.scheduler_address) as ex,
        ):
            probe(2, 1, executor=ex, steps=0)
        assert time.monotonic() - t0 < 4 + 1
    finally:
        cluster.close()
