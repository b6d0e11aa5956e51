"""The AR residual and sieve bootstraps' fused built-ins
(skboot._kernels.model_based.ar_residual_sums): ``"mean"``, ``"sum"``,
``"var"`` and ``"std"`` reduced from the generated paths equal numpy's on the
series the resampler generates, bit for bit, for sizes below, at and above
numpy's pairwise block, any chunk size and partial lanes; the series themselves
are those of a scalar recursion in the model's order."""

from __future__ import annotations

import numpy as np
import pytest

from skboot import bootstrap
from skboot.model_based import ResidualBootstrap, SieveBootstrap


def _series(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    y = np.zeros(n + 50)
    for t in range(2, n + 50):
        y[t] = 0.4 + 0.5 * y[t - 1] - 0.2 * y[t - 2] + rng.normal()
    return y[50:]


def _scalar_replicate(rb, b: int) -> np.ndarray:
    """Replicate ``b`` by a scalar recursion over Python floats, in the model's
    order: ``(c + e_t)``, then ``+ phi_j x_{t-j}`` for ``j = p..1``."""
    rep = rb.replicate(b)
    idx, s = rep.residual_indices, rep.start
    plan = rb.plan_
    phi, c, resid = plan.coef, float(plan.intercept), plan.residuals
    p = phi.shape[0]
    path = [float(v) for v in plan.series[s : s + p]]
    for t in range(p, rb.burn_in_ + rb.n_samples_):
        a = c + float(resid[idx[t - p]])
        for j in range(p - 1, -1, -1):
            a = a + float(phi[j]) * path[t - 1 - j]
        path.append(a)
    return np.array(path[rb.burn_in_ :])


CASES = [  # (n, order, burn_in, block_length)
    (6, 1, 0, None),  # n below the vector width and numpy's 8 partial sums
    (37, 2, 0, None),
    (37, 2, 11, 4),
    (129, 0, 3, None),  # order 0; one past numpy's pairwise block
    (1001, 3, 20, 7),
]


@pytest.mark.parametrize(("n", "order", "burn_in", "block_length"), CASES)
@pytest.mark.parametrize("name", ["mean", "sum", "var", "std"])
def test_fused_builtins_equal_numpy_on_the_series(
    n, order, burn_in, block_length, name
):
    """The fused reduction never writes the series; its values are numpy's on
    the series the resampler generates (any chunk size, ``ddof``)."""
    y = _series(n, seed=n)
    kw = dict(order=order, burn_in=burn_in, block_length=block_length)
    series = np.stack(list(ResidualBootstrap(19, **kw, random_state=4).fit(y).values()))
    ddofs = (0, min(3, n - 1)) if name in ("var", "std") else (None,)
    for ddof in ddofs:
        extra = {} if ddof is None else {"ddof": ddof}
        want = getattr(series, name)(axis=1, **extra)
        for chunk in (None, 1, 5, 8, 9):
            res = bootstrap(
                y,
                name,
                resampler=ResidualBootstrap(19, **kw),
                random_state=4,
                chunk_size=chunk,
                statistic_kwargs=extra or None,
            )
            np.testing.assert_array_equal(np.asarray(res.distribution), want)


@pytest.mark.parametrize(("n", "order", "burn_in", "block_length"), CASES[1:3])
def test_series_equal_a_scalar_recursion(n, order, burn_in, block_length):
    rb = ResidualBootstrap(
        11, order=order, burn_in=burn_in, block_length=block_length, random_state=6
    ).fit(_series(n, seed=1))
    whole = np.stack(list(rb.values()))
    for b in (0, 7, 8, 10):
        np.testing.assert_array_equal(whole[b], _scalar_replicate(rb, b))
    for chunk in (1, 3, 8):
        parts = np.concatenate(list(rb.iter_samples(chunk_size=chunk)))
        np.testing.assert_array_equal(parts, whole)


@pytest.mark.parametrize("name", ["mean", "sum", "var", "std"])
def test_the_sieve_plan_reduces_builtins_without_a_series_buffer(name):
    """The kernel itself reduces the built-ins for any first replicate and
    count, partial lanes included (SieveBootstrap shares the AR plan)."""
    sb = SieveBootstrap(30, burn_in=5, random_state=2).fit(_series(200, seed=3))
    plan = sb.plan_
    assert name in plan.fused_builtins
    series = np.stack(list(sb.values()))
    for b0, count, ddof in ((0, 30, 0), (3, 5, 1), (13, 17, 2)):
        out = np.empty((count, 1))
        extra = {"ddof": ddof} if name in ("var", "std") else {}
        plan.reduce_chunk(name, b0, out, **extra)
        want = getattr(series[b0 : b0 + count], name)(axis=1, **extra)
        np.testing.assert_array_equal(out[:, 0], want)
