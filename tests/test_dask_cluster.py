"""Data larger than a worker, on a real two-process dask cluster: the rows are
generated on the workers by dask's random generator, reduced there and dropped.
The data-parallel Poisson mean and median equal the in-memory runs on a slice
that fits in memory; on the whole data (more than a worker's memory limit) the
Poisson mean finishes without a worker restart, without growing the client's
memory, and without loading scikit-learn or pandas into a worker.

Sizes: ``N_LARGE`` float64 rows are 480 MB against workers limited to 400 MiB
(dask pauses a worker at 80% of its limit, 320 MiB).  A worker holds about 60
MiB when it starts and about 200 MiB once numba's compiled kernels are loaded:
the partition functions import numpy, numba and the kernels only (skboot's
packages load their names lazily).

The ROC AUC runs on a cluster of its own, with 1 GiB workers: its partition
functions load neither scikit-learn nor scipy's submodules (pandas, for the
sort, they do), but the slice's rows are sorted by a dask shuffle whose buffers
outgrow a 400 MiB worker (it pauses at 320 MiB and the sort stalls); dask
recomputes the tasks a restarted worker lost, and the equality checks cover
that case.  On two shared cores the
two tests take about four minutes.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from skboot import PoissonBootstrap, bootstrap, metric_ci

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

WORKER_MEMORY = 400 * 2**20
#: the ROC AUC's cluster (see the module's docstring)
AUC_WORKER_MEMORY = 1024 * 2**20
N_LARGE = 60_000_000
CHUNK = 2_000_000
#: the in-memory comparison: the first 2,000,000 rows (a dask sort of more,
#: for ROC AUC, takes minutes on two shared cores)
N_SLICE = 2_000_000
SEED = 20240611
KW = dict(resampler=PoissonBootstrap(32), random_state=SEED)


def _cluster(request, tmp_path, memory_limit: int):
    with dask.config.set({"temporary-directory": str(tmp_path)}):
        local = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit=memory_limit,
            silence_logs=50,
        )
    client = distributed.Client(local)

    def close():
        client.close()
        local.close()

    request.addfinalizer(close)
    return client


def _rss() -> int:
    return int(psutil.Process().memory_info().rss)


def _peak() -> int:
    """The process's peak resident size so far (bytes)."""
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def _workers(client) -> dict[str, int]:
    """Each worker's address and process id: a restarted worker changes both."""
    return client.run(os.getpid)


@pytest.mark.slow
def test_data_larger_than_a_worker(request, tmp_path):
    client = _cluster(request, tmp_path, WORKER_MEMORY)
    assert len(_workers(client)) == 2
    info = client.scheduler_info()["workers"]
    assert all(w["memory_limit"] < N_LARGE * 8 for w in info.values())
    x = da.random.default_rng(SEED).normal(5.0, 2.0, size=N_LARGE, chunks=CHUNK)

    # the slice: data-parallel on the cluster == in memory on the same rows
    head = x[:N_SLICE]
    local = head.compute()
    for name in ("mean", "median"):
        got = bootstrap(head, name, **KW)
        want = bootstrap(local, name, **KW)
        np.testing.assert_allclose(got.distribution, want.distribution, rtol=1e-12)
    del local

    # with skboot's kernels loaded, a worker leaves most of its limit to the data
    # (about 200 MiB measured; scikit-learn and pandas loaded made it 320 MiB,
    # the pause point of a 400 MiB worker)
    def resting_rss() -> int:  # defined here: cloudpickle ships it by value
        import gc

        import psutil

        gc.collect()
        return int(psutil.Process().memory_info().rss)

    for rss in client.run(resting_rss).values():
        assert rss < 300 * 2**20, f"a worker holds {rss / 2**20:.0f} MiB at rest"

    # the whole: 480 MB on workers of 400 MiB, no restart, the client's memory flat
    workers = _workers(client)
    before, peak = _rss(), _peak()
    mean = bootstrap(x, "mean", **KW)
    grown = max(_rss() - before, _peak() - peak)
    assert grown < 200 * 2**20, f"the client grew by {grown / 2**20:.0f} MiB"
    assert _workers(client) == workers, "a worker was restarted"
    # the workers ran skboot's partition functions without the client-side
    # stack (a lambda: cloudpickle ships it by value, importing no test module)
    for loaded in client.run(lambda: sorted(sys.modules)).values():
        assert "skboot._run._dask_sums" in loaded
        assert not [m for m in loaded if m.startswith(("sklearn", "pandas"))]
    # N(5, 2**2): replicates within 8 standard errors of 5 (false failure
    # probability below 1e-14)
    se = 2.0 / np.sqrt(N_LARGE)
    assert np.all(np.abs(mean.distribution - 5.0) < 8 * se)
    assert abs(mean.estimate - 5.0) < 8 * se
    assert mean.standard_error > 0


@pytest.mark.slow
def test_roc_auc_of_a_slice_equals_in_memory(request, tmp_path):
    client = _cluster(request, tmp_path, AUC_WORKER_MEMORY)
    rng = da.random.default_rng(SEED)
    y = (rng.random(N_SLICE, chunks=CHUNK // 4) < 0.3).astype(np.int64)
    score = y + rng.normal(0.0, 1.5, size=N_SLICE, chunks=CHUNK // 4)
    yl, sl = y.compute(), score.compute()
    workers = _workers(client)
    auc = metric_ci(y, score, "roc_auc", method="percentile", **KW)
    auc0 = metric_ci(yl, sl, "roc_auc", method="percentile", **KW)
    np.testing.assert_array_equal(auc.distribution, auc0.distribution)
    assert auc.estimate == auc0.estimate
    assert _workers(client) == workers, "a worker was restarted"
    for loaded in client.run(lambda: sorted(sys.modules)).values():
        assert "skboot.metrics._dask_rank" in loaded
        assert not [m for m in loaded if m.startswith(("sklearn", "skboot.resamplers"))]
