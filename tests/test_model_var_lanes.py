"""The VAR residual bootstrap's lane kernels (skboot._kernels.model_var): eight
replicates side by side equal a scalar recursion in the model's order, bit for
bit, for any number of replicates per call (partial lanes, chunk boundaries),
and the fused ``"mean"`` / ``"sum"`` / ``"var"`` / ``"std"`` equal numpy's on the
generated series, bit for bit, for sizes below, at and above numpy's pairwise
block."""

from __future__ import annotations

import numpy as np
import pytest

from skboot import bootstrap
from skboot._kernels.model_var import VAR_LANES, pairwise8, pairwise_plan
from skboot.model_based import VARResidualBootstrap


def _series(n: int, m: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    A = 0.3 * np.eye(m) + 0.05 * rng.normal(size=(m, m))
    y = np.zeros((n + 50, m))
    for t in range(1, n + 50):
        y[t] = 0.1 + A @ y[t - 1] + rng.normal(size=m)
    return y[50:]


def _scalar_replicate(vb, b: int) -> np.ndarray:
    """Replicate ``b`` by a scalar recursion over Python floats, in the model's
    order: ``(c_i + u_{t,i})``, then ``+ A_j[i, k] y_{t-j,k}`` for lags
    ``j = p..1`` (farthest first) and ``k = 0..m-1``."""
    rep = vb.replicate(b)
    idx, s = rep.residual_indices, rep.start
    coef, c, resid = vb.var_coef_, vb.intercept_, vb.residuals_
    p, m, _ = coef.shape
    total = vb.burn_in_ + vb.n_samples_
    path = [[float(v) for v in row] for row in vb.plan_.series[s : s + p]]
    for t in range(p, total):
        u = resid[idx[t - p]]
        row = []
        for i in range(m):
            a = float(c[i]) + float(u[i])
            for j in range(p - 1, -1, -1):
                for k in range(m):
                    a = a + float(coef[j, i, k]) * path[t - 1 - j][k]
            row.append(a)
        path.append(row)
    return np.array(path[vb.burn_in_ :])


CASES = [  # (n, m, order, burn_in, block_length)
    (5, 2, 1, 0, None),  # n below the vector width and numpy's 8 partial sums
    (37, 3, 2, 0, None),
    (37, 3, 2, 11, 4),
    (129, 2, 0, 3, None),  # order 0; one past numpy's pairwise block
    (64, 4, 3, 0, 5),
]


@pytest.mark.parametrize(("n", "m", "order", "burn_in", "block_length"), CASES)
def test_lanes_equal_a_scalar_recursion(n, m, order, burn_in, block_length):
    vb = VARResidualBootstrap(
        19, order=order, burn_in=burn_in, block_length=block_length, random_state=3
    ).fit(_series(n, m, seed=n))
    whole = np.stack(list(vb.values()))  # 19 replicates: lanes of 8, 8 and 3
    for b in (0, 7, 8, 9, 18):
        np.testing.assert_array_equal(whole[b], _scalar_replicate(vb, b))
    for chunk in (1, 3, 8, 9):
        parts = np.concatenate(list(vb.iter_samples(chunk_size=chunk)))
        np.testing.assert_array_equal(parts, whole)


@pytest.mark.parametrize(("n", "m", "order", "burn_in", "block_length"), CASES)
@pytest.mark.parametrize("name", ["mean", "sum"])
def test_fused_mean_and_sum_equal_numpy_on_the_series(
    n, m, order, burn_in, block_length, name
):
    """The fused reduction never writes the series; its values are numpy's on
    the series the resampler generates (any chunk size)."""
    y = _series(n, m, seed=n + 1)
    kw = dict(order=order, burn_in=burn_in, block_length=block_length)
    series = np.stack(
        list(VARResidualBootstrap(21, **kw, random_state=5).fit(y).values())
    )
    want = getattr(np.ascontiguousarray(np.swapaxes(series, 1, 2)), name)(axis=2)
    for chunk in (None, 5, 8):
        res = bootstrap(
            y,
            name,
            resampler=VARResidualBootstrap(21, **kw),
            random_state=5,
            chunk_size=chunk,
        )
        np.testing.assert_array_equal(np.asarray(res.distribution), want)


@pytest.mark.parametrize(
    ("n", "m", "order", "burn_in", "block_length"), [*CASES, (1001, 2, 1, 7, None)]
)
@pytest.mark.parametrize(
    ("name", "ddof"), [("var", 0), ("var", 1), ("std", 0), ("std", 3)]
)
def test_fused_var_and_std_equal_numpy_on_the_series(
    n, m, order, burn_in, block_length, name, ddof
):
    """Two passes over the path, as numpy's ``_var``: the pairwise mean, then the
    pairwise sum of the squared deviations over ``n - ddof`` (and its square
    root): numpy's bits on the generated series, for any chunk size."""
    y = _series(n, m, seed=n + 2)
    kw = dict(order=order, burn_in=burn_in, block_length=block_length)
    series = np.stack(
        list(VARResidualBootstrap(19, **kw, random_state=7).fit(y).values())
    )
    want = getattr(np.ascontiguousarray(np.swapaxes(series, 1, 2)), name)(
        axis=2, ddof=ddof
    )
    for chunk in (None, 1, 5, 8, 9):
        res = bootstrap(
            y,
            name,
            resampler=VARResidualBootstrap(19, **kw),
            random_state=7,
            chunk_size=chunk,
            statistic_kwargs={"ddof": ddof},
        )
        np.testing.assert_array_equal(np.asarray(res.distribution), want)


@pytest.mark.parametrize("name", ["var", "std"])
def test_the_plan_reduces_var_and_std_without_a_series_buffer(name):
    """The kernel itself reduces ``"var"``/``"std"`` (with ``ddof``) for any
    first replicate and count, partial lanes included."""
    y = _series(37, 3, seed=11)
    vb = VARResidualBootstrap(30, order=2, burn_in=5, random_state=2).fit(y)
    plan = vb.plan_
    assert name in plan.fused_builtins
    series = np.stack(list(vb.values()))
    for b0, count, ddof in ((0, 30, 0), (3, 5, 1), (13, 17, 2)):
        out = np.empty((count, 3))
        plan.reduce_chunk(name, b0, out, ddof=ddof)
        part = np.ascontiguousarray(np.swapaxes(series[b0 : b0 + count], 1, 2))
        np.testing.assert_array_equal(out, getattr(part, name)(axis=2, ddof=ddof))


@pytest.mark.parametrize(
    "n", [1, 2, 7, 8, 9, 15, 16, 17, 127, 128, 129, 136, 137, 255, 1000, 8193]
)
def test_pairwise8_is_numpys_pairwise_sum(n):
    """Eight lanes summed in numpy's order: the same bits as ``ndarray.sum`` of
    each lane, with terms of very different magnitudes (where the order shows)."""
    rng = np.random.default_rng(n)
    A = rng.standard_cauchy(size=(n, VAR_LANES)) * 10.0 ** rng.integers(
        -8, 9, size=(n, 1)
    )
    ops = pairwise_plan(n)
    res = np.empty(VAR_LANES)
    pairwise8(A.ravel(), 0, VAR_LANES, ops, np.empty((ops.shape[0], VAR_LANES)), res)
    np.testing.assert_array_equal(0.0 + res, np.ascontiguousarray(A.T).sum(axis=1))
