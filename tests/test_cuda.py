"""The CUDA path (skboot._engine.cuda, skboot._kernels.cuda): stream, kernels, guarantees, errors.

On a machine without an NVIDIA GPU these tests run the kernels in numba's CUDA
simulator (tests/conftest.py sets NUMBA_ENABLE_CUDASIM=1), on tiny n and B; on a GPU
machine the same tests run on the device, plus the ``cuda_device`` ones.  Where the
device's compiler may fuse a product into an FMA (sums of squares, weighted sums),
the exact comparisons are made in the simulator only and the device is held to
the documented tolerance.  The Dirichlet weights are exact on any device: their
logarithm is skboot's own, with explicit round-to-nearest operations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from sklearn.base import clone

import skboot
from skboot import (
    BayesianBootstrap,
    Bootstrap,
    BootstrapStatistic,
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    PoissonBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
    TaperedBlockBootstrap,
    bootstrap,
    cuda_info,
    metric_ci,
)
from skboot._random import (
    PURPOSE,
    check_random_state,
    fill_indices_kernel,
    neg_log,
    reference_dirichlet,
    reference_indices,
    reference_neg_log,
    reference_uniforms,
)

cuda = pytest.importorskip("numba.cuda", reason="numba has no CUDA target")

from skboot._engine.cuda import _device, _run  # noqa: E402
from skboot._engine.cuda import _reference as ref  # noqa: E402

SIMULATOR = _device.simulator()
ON_DEVICE = not SIMULATOR and _device.available()
if not (SIMULATOR or ON_DEVICE):
    pytest.skip(
        "no CUDA GPU and the simulator is off (tests/conftest.py turns it on when "
        "/dev/nvidia0 is absent)",
        allow_module_level=True,
    )

from skboot._kernels.cuda import exp as exp_device  # noqa: E402
from skboot._kernels.cuda import kernels as K  # noqa: E402


@njit(error_model="numpy")
def fill_neg_log(v, out):
    for i in range(v.shape[0]):
        out[i] = neg_log(v[i])


#: The documented agreement of device statistics with the CPU path.
RTOL = 1e-12


def device_only(test):
    """Mark a test that needs a real GPU; skipped (cleanly) in the simulator."""
    test = pytest.mark.cuda_device(test)
    reason = "needs a real CUDA GPU (numba's CUDA simulator is active)"
    return pytest.mark.skipif(not ON_DEVICE, reason=reason)(test)


ALL_SCHEMES = [
    Bootstrap(),
    MovingBlockBootstrap(block_length=5),
    CircularBlockBootstrap(block_length=4),
    NonOverlappingBlockBootstrap(block_length=6),
    StationaryBootstrap(block_length=3.5),
    PoissonBootstrap(),
    BayesianBootstrap(),
]
INDEX_SCHEMES = ALL_SCHEMES[:5]
IDS = [type(r).__name__ for r in ALL_SCHEMES]


def _plan(resampler, n, seed=7):
    """A fitted copy's plan for n rows."""
    return clone(resampler).set_params(random_state=seed).fit(np.zeros(n)).plan_


def _rows_on_device(plan, B, m=None):
    s = _run.scheme_of(plan)
    m = s.m if m is None else m
    out = cuda.to_device(np.zeros((B, m), dtype=np.int64))
    with _device.quiet():
        K.index_rows[2, 4](
            np.int64(s.code),
            s.seed,
            s.seed_l,
            s.gamma,
            np.uint64(0),
            s.un_draw,
            s.thresh,
            np.int64(plan.n_samples),
            np.int64(s.L),
            np.int64(s.stride),
            np.float64(s.log_q),
            out,
        )
    return out.copy_to_host()


def _weights_on_device(plan, B):
    s = _run.scheme_of(plan)
    out = cuda.to_device(np.zeros((B, plan.n_samples)))
    with _device.quiet():
        K.weight_rows[1, 4](np.int64(s.code), s.seed, s.gamma, np.uint64(0), out)
    return out.copy_to_host()


# ---------------------------------------------------------------------------
# the stream: bit-identical replicates
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 37, 1000, 3_000_000_000, 2**33 + 12345])
def test_iid_indices_are_the_cpu_stream(n):
    # 3e9 < 2**32 rejects a third of the words; 2**33 + 12345 takes the two-word
    # path with its 128-bit product
    key = check_random_state(11)
    seed, gamma = key.stream(PURPOSE["indices"])
    B, m = 5, 40
    plan = skboot._engine.cuda._run.DeviceScheme(
        "index",
        0,
        n,
        seed,
        gamma,
        m=m,
        un_draw=np.uint64(n),
        thresh=_run._threshold(n),
    )
    out = cuda.to_device(np.zeros((B, m), dtype=np.int64))
    with _device.quiet():
        K.index_rows[2, 2](
            np.int64(plan.code),
            seed,
            np.uint64(0),
            gamma,
            np.uint64(3),
            plan.un_draw,
            plan.thresh,
            np.int64(n),
            np.int64(1),
            np.int64(1),
            np.float64(0.0),
            out,
        )
    got = out.copy_to_host()
    for k in range(B):
        want = reference_indices(key, PURPOSE["indices"], 3 + k, n, m)
        np.testing.assert_array_equal(got[k], want)
        cpu = np.empty(m, dtype=np.int64)
        fill_indices_kernel(seed, gamma, np.uint64(3 + k), np.uint64(n), cpu)
        np.testing.assert_array_equal(got[k], cpu)


def test_sample_size_indices():
    plan = _plan(Bootstrap(sample_size=13), 50)
    got = _rows_on_device(plan, 4)
    assert got.shape == (4, 13)
    for b in range(4):
        np.testing.assert_array_equal(got[b], plan.indices(b))


@pytest.mark.parametrize("resampler", INDEX_SCHEMES[1:], ids=IDS[1:5])
@pytest.mark.parametrize("n", [23, 64])
def test_block_indices_are_the_cpu_stream(resampler, n):
    plan = _plan(resampler, n)
    got = _rows_on_device(plan, 6)
    for b in range(6):
        np.testing.assert_array_equal(got[b], plan.indices(b))


def test_stationary_mean_block_one_and_n():
    for length in (1.0, 15.0):
        plan = _plan(StationaryBootstrap(block_length=length), 30)
        got = _rows_on_device(plan, 3)
        for b in range(3):
            np.testing.assert_array_equal(got[b], plan.indices(b))


@pytest.mark.parametrize("resampler", ALL_SCHEMES[5:], ids=IDS[5:])
def test_weights_are_the_cpu_stream(resampler):
    """Poisson counts and Dirichlet weights equal the CPU's bit for bit, on the
    simulator and on any device."""
    plan = _plan(resampler, 45)
    got = _weights_on_device(plan, 5)
    for b in range(5):
        if isinstance(resampler, PoissonBootstrap):
            np.testing.assert_array_equal(got[b], plan.counts(b))
        else:
            np.testing.assert_array_equal(got[b], plan.weights(b))


@cuda.jit
def _neg_log_kernel(v, out):
    for i in range(K.first_item(), v.shape[0], K.item_stride()):
        out[i] = exp_device.neg_log(v[i])


def test_device_logarithm_is_the_cpu_bits():
    """The device's ``-log(v)`` (explicit round-to-nearest operations, never fused)
    equals the numba function and the numpy reference bit for bit: around every
    reduction boundary and power of two, at the stream's extremes and on stream
    values."""
    edges = []
    for e in range(54):
        for x in (math.sqrt(0.5) * 2.0**-e, 2.0**-e):
            edges += [x, math.nextafter(x, 0.0), math.nextafter(x, 1.0)]
    key = check_random_state(4)
    v = np.concatenate(
        [
            np.array([x for x in edges if 0.0 < x <= 1.0]),
            1.0 - np.arange(64) * 2.0**-53,
            np.arange(1, 65) * 2.0**-53,
            1.0 - reference_uniforms(key, PURPOSE["dirichlet"], 0, 200),
        ]
    )
    out = cuda.to_device(np.zeros_like(v))
    with _device.quiet():
        _neg_log_kernel[2, 32](cuda.to_device(v), out)
    got = out.copy_to_host()
    np.testing.assert_array_equal(got, reference_neg_log(v))
    cpu = np.empty_like(v)
    fill_neg_log(v, cpu)
    np.testing.assert_array_equal(got, cpu)


def test_dirichlet_weights_three_ways():
    """Device weights == numba fill == the pure-numpy reference, bit for bit, for
    replicates far into the stream and sizes that are not multiples of 8."""
    plan = _plan(BayesianBootstrap(), 301, seed=13)
    s = _run.scheme_of(plan)
    B, b0 = 3, 2**33 + 5
    out = cuda.to_device(np.zeros((B, 301)))
    with _device.quiet():
        K.weight_rows[1, 4](np.int64(s.code), s.seed, s.gamma, np.uint64(b0), out)
    got = out.copy_to_host()
    for k in range(B):
        np.testing.assert_array_equal(got[k], plan.weights(b0 + k))
        np.testing.assert_array_equal(
            got[k], reference_dirichlet(plan.key, b0 + k, 301)
        )


def test_kernels_implement_the_current_stream():
    from skboot._kernels.cuda.constants import IMPLEMENTS_STREAM

    assert skboot.STREAM_VERSION == IMPLEMENTS_STREAM


# ---------------------------------------------------------------------------
# statistics: the CPU path's values, the kernels' own rule, launch independence
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("resampler", ALL_SCHEMES, ids=IDS)
def test_statistics_match_the_cpu_path(resampler, rng):
    x = rng.normal(size=43) * 3 + 100.0
    X = rng.normal(size=(43, 3))
    kw = {"resampler": resampler, "n_resamples": 12, "random_state": 5}
    cases = [(x, s) for s in ("mean", "sum", "var", "std")]
    cases += [(X, "mean"), (X, "std"), (X[:, :2], "corr")]
    cases += [((rng.random(43) < 0.3), "proportion")]
    for data, stat in cases:
        opts = {"statistic_kwargs": {"ddof": 1}} if stat == "var" else {}
        gpu = bootstrap(data, stat, device="cuda", **kw, **opts)
        cpu = bootstrap(data, stat, **kw, **opts)
        np.testing.assert_allclose(
            np.asarray(gpu.distribution),
            np.asarray(cpu.distribution),
            rtol=RTOL,
            atol=RTOL,
            err_msg=stat,
        )
        assert gpu.estimate == pytest.approx(cpu.estimate, rel=0, abs=0)


def test_integer_data_mean_equals_numpy_exactly(rng):
    # integer-valued data are summed exactly (no centring): the mean is numpy's
    x = rng.integers(-1000, 1000, size=40).astype(float)
    res = bootstrap(x, "mean", n_resamples=8, random_state=1, device="cuda")
    r = Bootstrap(8, random_state=1).fit(x)
    for b in range(8):
        assert res.distribution[b] == np.mean(x[r.replicate(b).indices])


def _device_sums(X, plan, want2, **launch):
    scheme = _run.scheme_of(plan)
    return _run._moments(
        cuda,
        np.ascontiguousarray(X),
        scheme,
        plan,
        want2,
        (
            launch.pop("B", 9),
            launch.pop("chunk_size", None),
            False,
            launch.pop("threads_per_block", None),
            launch.pop("blocks", None),
        ),
    )


@pytest.mark.parametrize("resampler", ALL_SCHEMES, ids=IDS)
def test_sums_follow_the_documented_rule(resampler, rng):
    X = rng.normal(size=(37, 2))
    plan = _plan(resampler, 37)
    S1, S2, SW = _device_sums(X, plan, True)
    for b in range(9):
        if plan.layout == "weights" or isinstance(resampler, PoissonBootstrap):
            w = plan.weights(b) if plan.layout == "weights" else plan.counts(b)
            r1, r2, rw = ref.weight_sums(X, w, True)
            np.testing.assert_array_equal(SW[b], rw)
        else:
            r1, r2 = ref.index_sums(X, plan.indices(b), True)
        if SIMULATOR:
            np.testing.assert_array_equal(S1[b], r1)
            np.testing.assert_array_equal(S2[b], r2)
        else:  # products may be fused on the device
            np.testing.assert_allclose(S1[b], r1, rtol=1e-13, atol=1e-13)
            np.testing.assert_allclose(S2[b], r2, rtol=1e-13)


def test_index_sums_are_exact_on_any_device(rng):
    # a sum of values has no product to fuse: the rule holds bit for bit everywhere
    X = rng.normal(size=(53, 1))
    plan = _plan(Bootstrap(), 53)
    S1, _, _ = _device_sums(X, plan, False)
    for b in range(9):
        np.testing.assert_array_equal(
            S1[b], ref.index_sums(X, plan.indices(b), False)[0]
        )


@pytest.mark.parametrize("resampler", ALL_SCHEMES, ids=IDS)
def test_results_independent_of_launch_configuration(resampler, rng):
    X = rng.normal(size=(29, 3))
    plan = _plan(resampler, 29)
    a = _device_sums(X, plan, True, threads_per_block=32, blocks=None)
    b = _device_sums(X, plan, True, threads_per_block=4, blocks=3, chunk_size=4)
    c = _device_sums(X, plan, True, threads_per_block=32, blocks=None)  # rerun
    for u, v, w in zip(a, b, c, strict=True):
        np.testing.assert_array_equal(u, v)
        np.testing.assert_array_equal(u, w)


@pytest.mark.parametrize("resampler", [ALL_SCHEMES[0], ALL_SCHEMES[4], ALL_SCHEMES[6]])
def test_corr_independent_of_launch_configuration(resampler, rng):
    XY = rng.normal(size=(31, 2))
    plan = _plan(resampler, 31)
    scheme = _run.scheme_of(plan)
    runs = [
        _run._run_corr(cuda, XY, scheme, plan, (10, chunk, False, tpb, blocks))
        for chunk, tpb, blocks in [(None, 32, None), (3, 2, 2), (None, 32, None)]
    ]
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0], runs[2])


def test_public_chunk_size_does_not_change_results(rng):
    x = rng.normal(size=30)
    kw = {"n_resamples": 11, "random_state": 2, "device": "cuda"}
    a = bootstrap(x, "var", chunk_size=3, **kw).distribution
    b = bootstrap(x, "var", **kw).distribution
    np.testing.assert_array_equal(a, b)


def test_ambiguous_stationary_lengths_are_recomputed_on_the_host(rng, monkeypatch):
    X = rng.normal(size=(40, 2))
    plan = _plan(StationaryBootstrap(block_length=4.0), 40)
    S1, S2, _ = _device_sums(X, plan, True)
    # flag every replicate: all are then recomputed from plan.indices(b)
    monkeypatch.setattr(_run, "AMBIGUITY", 0.5)
    T1, T2, _ = _device_sums(X, plan, True)
    for b in range(9):
        r1, r2 = ref.index_sums(X, plan.indices(b), True)
        np.testing.assert_array_equal(T1[b], r1)
        np.testing.assert_array_equal(T2[b], r2)
    np.testing.assert_array_equal(S1, T1)  # the host rule is the kernels' rule
    if SIMULATOR:
        np.testing.assert_array_equal(S2, T2)
    XY = X
    scheme = _run.scheme_of(plan)
    corr = _run._run_corr(cuda, XY, scheme, plan, (6, None, False, None, None))
    monkeypatch.setattr(_run, "AMBIGUITY", 16 * 2.0**-52)
    plain = _run._run_corr(cuda, XY, scheme, plan, (6, None, False, None, None))
    np.testing.assert_allclose(corr, plain, rtol=RTOL)


# ---------------------------------------------------------------------------
# guarantee 5: as precise as numpy on the same replicate, whatever the offset
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("offset", [0.0, 1e4, 1e8])
@pytest.mark.parametrize("resampler", [ALL_SCHEMES[0], ALL_SCHEMES[4]], ids=IDS[0:5:4])
def test_precision_whatever_the_offset(offset, resampler, rng):
    noise = rng.normal(size=48)
    x = offset + noise
    B = 6
    kw = {"resampler": resampler, "n_resamples": B, "random_state": 3}
    mean = bootstrap(x, "mean", device="cuda", **kw).distribution
    total = bootstrap(x, "sum", device="cuda", **kw).distribution
    var = bootstrap(x, "var", device="cuda", **kw).distribution
    fitted = clone(resampler).set_params(n_resamples=B, random_state=3).fit(x)
    eps = np.finfo(float).eps
    for b in range(B):
        v = x[fitted.replicate(b).indices]
        m = v.shape[0]
        exact_sum = math.fsum(v)
        exact_mean = exact_sum / m
        exact_var = math.fsum((v - exact_mean) ** 2) / m
        # a few ulps of the data's scale (the value itself, and the noise)
        assert abs(mean[b] - exact_mean) <= 4 * eps * (abs(exact_mean) + 1.0)
        assert abs(mean[b] - np.mean(v)) <= 8 * eps * (abs(exact_mean) + 1.0)
        assert abs(total[b] - exact_sum) <= 4 * eps * (abs(exact_sum) + m)
        # the variance does not depend on the offset: nor may its error
        assert abs(var[b] - exact_var) <= 64 * eps * exact_var


def test_shift_equivariance(rng):
    x = rng.normal(size=40)
    kw = {"n_resamples": 6, "random_state": 4, "device": "cuda"}
    for stat in ("var", "std"):
        a = bootstrap(x, stat, **kw).distribution
        b = bootstrap(x + 1e6, stat, **kw).distribution
        np.testing.assert_allclose(a, b, rtol=1e-9)
    a = bootstrap(x, "mean", **kw).distribution
    b = bootstrap(x + 1e6, "mean", **kw).distribution
    np.testing.assert_allclose(b - 1e6, a, rtol=0, atol=4e-10)


# ---------------------------------------------------------------------------
# the API: bootstrap, BootstrapStatistic, metric_ci, "auto", errors
# ---------------------------------------------------------------------------
def test_bootstrap_statistic_device(rng):
    X = rng.normal(size=(30, 2))
    est = BootstrapStatistic("std", n_resamples=7, random_state=0, device="cuda")
    assert clone(est).get_params()["device"] == "cuda"
    est.fit(X)
    cpu = BootstrapStatistic("std", n_resamples=7, random_state=0).fit(X)
    np.testing.assert_allclose(est.distribution_, cpu.distribution_, rtol=RTOL)
    ci = est.confidence_interval(method="bca")
    assert np.all(ci.low < ci.high)


def test_metric_ci_on_the_device(rng):
    y = rng.integers(0, 2, 60)
    pred = np.where(rng.random(60) < 0.8, y, 1 - y)
    proba = np.clip(y * 0.6 + rng.random(60) * 0.4, 0.01, 0.99)
    kw = {"n_resamples": 15, "random_state": 0, "method": "percentile"}
    gpu = metric_ci(y, pred, "accuracy", device="cuda", **kw)
    cpu = metric_ci(y, pred, "accuracy", **kw)
    np.testing.assert_array_equal(gpu.distribution, cpu.distribution)  # 0/1 sums
    for metric in ("log_loss", "root_mean_squared_error"):
        gpu = metric_ci(y, proba, metric, device="cuda", **kw)
        cpu = metric_ci(y, proba, metric, **kw)
        np.testing.assert_allclose(gpu.distribution, cpu.distribution, rtol=RTOL)
    gpu = metric_ci(
        y, pred, "accuracy", resampler=PoissonBootstrap(), device="cuda", **kw
    )
    cpu = metric_ci(y, pred, "accuracy", resampler=PoissonBootstrap(), **kw)
    np.testing.assert_array_equal(gpu.distribution, cpu.distribution)


def test_nan_propagate_matches_the_cpu(rng):
    x = rng.normal(size=30)
    x[[3, 17]] = np.nan
    kw = {"n_resamples": 10, "random_state": 1, "nan_policy": "propagate"}
    with pytest.warns(skboot.UndefinedStatisticWarning):
        gpu = bootstrap(x, "mean", device="cuda", **kw)
    with pytest.warns(skboot.UndefinedStatisticWarning):
        cpu = bootstrap(x, "mean", **kw)
    assert gpu.n_undefined == cpu.n_undefined > 0
    ok = np.isfinite(cpu.distribution)
    np.testing.assert_array_equal(np.isfinite(gpu.distribution), ok)
    np.testing.assert_allclose(gpu.distribution[ok], cpu.distribution[ok], rtol=RTOL)


def test_progress_on_the_device(rng, capsys):
    bootstrap(
        rng.normal(size=20), n_resamples=5, random_state=0, device="cuda", progress=True
    )
    assert "5/5 replicates" in capsys.readouterr().err


def test_auto_uses_the_gpu_when_it_can_and_the_cpu_otherwise(rng):
    x = rng.normal(size=25)
    kw = {"n_resamples": 9, "random_state": 3}
    auto = bootstrap(x, "var", device="auto", **kw).distribution
    gpu = bootstrap(x, "var", device="cuda", **kw).distribution
    np.testing.assert_array_equal(auto, gpu)
    # no kernel for the median: "auto" runs it on the CPU, same as "cpu"
    auto = bootstrap(x, "median", device="auto", **kw).distribution
    np.testing.assert_array_equal(auto, bootstrap(x, "median", **kw).distribution)


def test_auto_falls_back_when_no_gpu(rng, monkeypatch):
    monkeypatch.setattr(_device, "_unavailable_reason", lambda cuda: "no driver")
    x = rng.normal(size=25)
    kw = {"n_resamples": 9, "random_state": 3}
    auto = bootstrap(x, "var", device="auto", **kw).distribution
    np.testing.assert_array_equal(auto, bootstrap(x, "var", **kw).distribution)
    with pytest.raises(RuntimeError, match="found no usable CUDA GPU: no driver"):
        bootstrap(x, "var", device="cuda", **kw)
    assert cuda_info().available is False
    assert cuda_info().reason == "no driver"


def test_missing_cuda_target_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cuda(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "numba" and fromlist and "cuda" in fromlist:
            raise ImportError("No module named 'numba.cuda'")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_cuda)
    with pytest.raises(ImportError, match=r"pip install 'skboot\[cuda\]'"):
        bootstrap(np.arange(5.0), device="cuda")
    info = cuda_info()
    assert not info.available and "cannot be imported" in info.reason
    # "auto" runs on the CPU
    res = bootstrap(np.arange(5.0), n_resamples=3, random_state=0, device="auto")
    assert res.distribution.shape == (3,)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda x: bootstrap(x, device="gpu"),
            r"The 'device' parameter of bootstrap must be one of \{'auto', 'cpu', "
            r"'cuda'\}. Got 'gpu' instead.",
        ),
        (
            lambda x: BootstrapStatistic(device=None).fit(x),
            r"The 'device' parameter of BootstrapStatistic must be one of",
        ),
        (
            lambda x: metric_ci(x > 0, x > 0, "accuracy", device="tpu"),
            r"The 'device' parameter of metric_ci must be one of",
        ),
        (
            lambda x: bootstrap(x, "median", device="cuda"),
            r"no GPU kernel for the statistic 'median': the GPU runs the built-in "
            r"statistics \{'corr', 'mean', 'proportion', 'std', 'sum', 'var'\}",
        ),
        (
            lambda x: bootstrap(x, np.mean, device="cuda"),
            r"no GPU kernel for a callable statistic",
        ),
        (
            lambda x: bootstrap(
                x, resampler=StratifiedBootstrap(), y=x > 0, device="cuda"
            ),
            r"no GPU kernel for the resampler StratifiedBootstrap: .* with the "
            r"resamplers \{BayesianBootstrap, Bootstrap, CircularBlockBootstrap",
        ),
        (
            lambda x: bootstrap(
                x, resampler=GroupBootstrap(), groups=np.arange(30) // 3, device="cuda"
            ),
            r"no GPU kernel for the resampler GroupBootstrap",
        ),
        (
            lambda x: bootstrap(
                x, resampler=TaperedBlockBootstrap(block_length=3), device="cuda"
            ),
            r"no GPU kernel for the resampler TaperedBlockBootstrap",
        ),
        (
            lambda x: bootstrap(
                (x, x[:20]), lambda a, b: a.mean(), paired=False, device="cuda"
            ),
            r"no GPU kernel for a callable statistic and Bootstrap with a "
            r"IndependentPlan \(independent samples\)",
        ),
        (
            lambda x: bootstrap(
                x, "quantile", statistic_kwargs={"q": 0.3}, device="cuda"
            ),
            r"no GPU kernel for the statistic 'quantile'",
        ),
        (
            lambda x: metric_ci(x > 0, x, "roc_auc", device="cuda"),
            r"no GPU kernel for the statistic 'roc_auc' \(a MetricStatistic\): .*"
            r"mean-type metrics \{'accuracy'",
        ),
        (
            lambda x: metric_ci(
                x > 0, x > 0.5, "accuracy", sample_weight=np.ones(30), device="cuda"
            ),
            r"no GPU kernel for the statistic 'accuracy'",
        ),
        (
            lambda x: BootstrapStatistic(
                lambda est: est.coef_,
                estimator=__import__("sklearn.linear_model").linear_model.Ridge(),
                device="cuda",
            ).fit(x[:, None], x),
            r"device='cuda' of BootstrapStatistic has no GPU kernel for estimator "
            r"refits",
        ),
    ],
)
def test_errors(call, match, rng):
    with pytest.raises(ValueError, match=match):
        call(rng.normal(size=30))


def test_unsupported_is_raised_before_the_statistic_is_called(rng):
    calls = []

    def stat(a):
        calls.append(1)
        return a.mean()

    with pytest.raises(ValueError, match="no GPU kernel"):
        bootstrap(rng.normal(size=10), stat, device="cuda")
    assert calls == []


def test_cuda_info():
    info = cuda_info()
    assert info.available and info.reason == ""
    assert info.simulator == SIMULATOR
    assert info.backend.startswith(("numba", "numba-cuda"))
    if ON_DEVICE:
        assert info.name and info.multiprocessors > 0 and info.memory_bandwidth > 0


# ---------------------------------------------------------------------------
# real device only
# ---------------------------------------------------------------------------
@device_only
def test_device_large_run_matches_cpu_and_repeats(rng):
    x = rng.normal(size=100_000) + 5.0
    kw = {"n_resamples": 2000, "random_state": 9}
    for resampler in (Bootstrap(), StationaryBootstrap(block_length=20.0)):
        gpu = bootstrap(x, "std", resampler=resampler, device="cuda", **kw)
        again = bootstrap(x, "std", resampler=resampler, device="cuda", **kw)
        cpu = bootstrap(x, "std", resampler=resampler, **kw)
        np.testing.assert_array_equal(gpu.distribution, again.distribution)
        np.testing.assert_allclose(gpu.distribution, cpu.distribution, rtol=RTOL)


@device_only
def test_device_launch_configurations_large(rng):
    X = rng.normal(size=(20_000, 4))
    plan = _plan(Bootstrap(), 20_000)
    a = _device_sums(X, plan, True, B=3000, threads_per_block=128)
    b = _device_sums(
        X, plan, True, B=3000, threads_per_block=64, blocks=7, chunk_size=1000
    )
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


# ---------------------------------------------------------------------------
# the benchmark script (python -m benchmarks.gpu)
# ---------------------------------------------------------------------------
@pytest.mark.skipif(not SIMULATOR, reason="a full benchmark on a GPU takes minutes")
def test_gpu_benchmark_refuses_the_simulator_and_smoke_runs(tmp_path, capsys):
    import json

    from benchmarks import gpu

    assert gpu.main([]) == 2
    assert "it is not a GPU" in capsys.readouterr().err
    path = tmp_path / "gpu.json"
    assert gpu.main(["--smoke", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "| iid mean, n=200 (smoke) | 16 |" in out
    results = json.loads(path.read_text())["results"]
    assert [r["B"] for r in results] == [16, 16]
    assert max(r["max_rel_diff"] for r in results) < RTOL


def test_gpu_benchmark_without_a_gpu(monkeypatch, capsys):
    from benchmarks import gpu

    monkeypatch.setattr(_device, "_unavailable_reason", lambda cuda: "no driver")
    assert gpu.main(["--quick"]) == 2
    assert "benchmarks.gpu needs a CUDA GPU: no driver" in capsys.readouterr().err
