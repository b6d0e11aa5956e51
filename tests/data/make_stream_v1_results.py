"""Write the stream-version-1 result files of ``tests/test_stream_versions.py``.

Run with a checkout of skboot whose ``STREAM_VERSION`` is 1 (the last one is
commit 4a7bc88) first on the path, from this folder:

    PYTHONPATH=/path/to/that/checkout python make_stream_v1_results.py

The files are committed; this script documents how they were made.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

import skboot

HERE = Path(__file__).resolve().parent


def data():
    """The data every file was computed from (the test recomputes them)."""
    rng = np.random.default_rng(20240611)
    x = rng.normal(size=40) * 2.0 + 1.0
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    a, b = rng.normal(size=12), rng.normal(0.5, 1.0, size=15)
    return x, X, y, a, b


def main() -> None:
    assert skboot.STREAM_VERSION == 1, "run this with a stream-version-1 skboot"
    x, X, y, a, b = data()
    for name, resampler in (
        ("bayesian", skboot.BayesianBootstrap()),
        ("iid", skboot.Bootstrap()),
        ("stationary", skboot.StationaryBootstrap(block_length=3.5)),
        ("poisson", skboot.PoissonBootstrap()),
    ):
        res = skboot.bootstrap(
            x, "mean", resampler=resampler, n_resamples=16, random_state=7
        )
        res.save(HERE / f"stream_v1_bootstrap_{name}.npz")
    plan = skboot.BayesianBootstrap(random_state=7).fit(np.zeros(1000)).plan_
    weights = np.stack([plan.weights(b) for b in range(4)])
    np.save(HERE / "stream_v1_dirichlet_weights.npy", weights)
    perm = skboot.permutation_test(
        (a, b),
        lambda u, v: u.mean() - v.mean(),
        n_resamples=30,
        random_state=7,
    )
    perm.save(HERE / "stream_v1_permutation.npz")
    score = skboot.bootstrap_score(
        LogisticRegression(),
        X,
        y,
        scoring="accuracy",
        n_resamples=8,
        random_state=7,
    )
    score.save(HERE / "stream_v1_score.npz")


if __name__ == "__main__":
    main()
