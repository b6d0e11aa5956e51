"""Data larger than a worker, on a real two-process dask cluster: the rows are
generated on the workers by dask's random generator, reduced there and dropped.
The data-parallel Poisson mean, median and ROC AUC equal the in-memory runs on a
slice that fits in memory; on the whole data (more than one worker's memory
limit) the runs finish without a worker restart and without growing the
client's memory.

Sizes: ``N_LARGE`` float64 rows are 1.2 GB against workers limited to 1 GiB
(a worker with skboot's kernels loaded holds about 350 MiB before any data, so
a much smaller limit leaves it no room for one partition).  The slice's ROC AUC
sorts its rows (a dask shuffle, whose buffers can outgrow a small worker: dask
then recomputes the lost tasks, and the equality checks cover that case); no
worker may be restarted while the whole data are reduced.  On two shared cores
the test takes about five minutes.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from skboot import PoissonBootstrap, bootstrap, metric_ci

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

WORKER_MEMORY = 1024 * 2**20
N_LARGE = 150_000_000
CHUNK = 4_000_000
#: the in-memory comparison: the first 2,000,000 rows (a dask sort of more,
#: for ROC AUC, takes minutes on two shared cores)
N_SLICE = 2_000_000
SEED = 20240611


@pytest.fixture
def cluster(request, tmp_path):
    with dask.config.set({"temporary-directory": str(tmp_path)}):
        local = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",  # no fixed port: none is shown
            memory_limit=WORKER_MEMORY,
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
def test_data_larger_than_a_worker(cluster):
    assert len(_workers(cluster)) == 2
    info = cluster.scheduler_info()["workers"]
    assert all(w["memory_limit"] < N_LARGE * 8 for w in info.values())
    rng = da.random.default_rng(SEED)
    x = rng.normal(5.0, 2.0, size=N_LARGE, chunks=CHUNK)
    y = (rng.random(N_SLICE, chunks=CHUNK // 4) < 0.3).astype(np.int64)
    score = y + rng.normal(0.0, 1.5, size=N_SLICE, chunks=CHUNK // 4)
    kw = dict(resampler=PoissonBootstrap(32), random_state=SEED)

    # the slice: data-parallel on the cluster == in memory on the same rows
    head = x[:N_SLICE]
    local = head.compute()
    for name in ("mean", "median"):
        got = bootstrap(head, name, **kw)
        want = bootstrap(local, name, **kw)
        np.testing.assert_allclose(got.distribution, want.distribution, rtol=1e-12)
    yl, sl = y.compute(), score.compute()
    auc = metric_ci(y, score, "roc_auc", method="percentile", **kw)
    auc0 = metric_ci(yl, sl, "roc_auc", method="percentile", **kw)
    np.testing.assert_array_equal(auc.distribution, auc0.distribution)
    assert auc.estimate == auc0.estimate
    del local, yl, sl

    # the whole: 1.2 GB on workers of 1 GiB, no restart, the client's memory flat
    workers = _workers(cluster)
    before, peak = _rss(), _peak()
    mean = bootstrap(x, "mean", **kw)
    med = bootstrap(x, "median", **kw)
    grown = max(_rss() - before, _peak() - peak)
    assert grown < 200 * 2**20, f"the client grew by {grown / 2**20:.0f} MiB"
    assert _workers(cluster) == workers, "a worker was restarted"
    # N(5, 2**2): replicates within 8 standard errors of 5 (false failure
    # probability below 1e-14); the median's standard error is sqrt(pi / 2)
    # times the mean's
    se = 2.0 / np.sqrt(N_LARGE)
    assert np.all(np.abs(mean.distribution - 5.0) < 8 * se)
    assert np.all(np.abs(med.distribution - 5.0) < 8 * 1.26 * se)
    assert abs(mean.estimate - 5.0) < 8 * se and abs(med.estimate - 5.0) < 10 * se
    assert mean.standard_error > 0 and med.standard_error > 0
