"""The package's lazy re-exports (skboot/_lazy.py) and what a dask worker imports.

``skboot``, ``skboot._run``, ``skboot._engine``, ``skboot.intervals`` and
``skboot.metrics`` name their objects in a static table (``_EXPORTS``) and import a module on first use,
so a dask worker that unpickles a data-parallel partition function loads numpy,
numba and the kernels it runs, not scikit-learn or scipy's submodules.  numba
itself imports the top-level ``scipy`` package (a version check), so the child
processes below compare against what ``import numba`` alone loads.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import skboot

PACKAGE = Path(skboot.__file__).resolve().parent

#: The packages whose ``__init__`` re-exports lazily.
LAZY = (
    "skboot",
    "skboot._run",
    "skboot._engine",
    "skboot.intervals",
    "skboot.metrics",
)

#: Run in a fresh process: load numba (as a worker running skboot's kernels
#: does), then unpickle the functions given on stdin, as a dask worker does.
CHILD = """
import json, pickle, sys
import numba
before = set(sys.modules)
for fn in pickle.loads(sys.stdin.buffer.read()):
    assert callable(fn)
new = sorted(set(sys.modules) - before)
print(json.dumps(new))
"""


def _new_modules(functions: list) -> list[str]:
    """The modules a fresh process imports to unpickle ``functions``."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=pickle.dumps(functions),
        capture_output=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)},
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return list(json.loads(proc.stdout.decode().strip().splitlines()[-1]))


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] in ("sklearn", "scipy")]


def _poisson_and_exact_mean_functions() -> list:
    """What the data-parallel Poisson and exact iid mean ship to the workers."""
    from skboot._run import _dask, _dask_exact

    return [
        _dask.partition_sums,
        _dask.merge_sums,
        _dask.loo_partition,
        _dask.merge_loo,
        _dask_exact.MOMENT_OPS.exact,
        _dask_exact.MOMENT_OPS.group,
        _dask_exact.MOMENT_OPS.merge,
        _dask_exact.unique_counts,
        _dask_exact.strata_loo_partition,
        _dask_exact.merge_strata_loo,
    ]


def test_worker_of_the_poisson_and_exact_mean_loads_no_sklearn_nor_scipy():
    new = _new_modules(_poisson_and_exact_mean_functions())
    assert "skboot._run._dask_sums" in new and "skboot._run._dask_exact_rows" in new
    assert _heavy(new) == []
    assert not [m for m in new if m.split(".")[0] in ("pandas", "joblib")]


def test_worker_of_the_other_data_parallel_statistics_loads_no_sklearn_nor_scipy():
    from skboot._run import _dask_bracket, _dask_corr

    functions = [
        _dask_corr.corr_partition,
        _dask_corr.merge_corr,
        _dask_bracket.sketch_partition,
        _dask_bracket.bracket_partition,
        _dask_bracket.merge_brackets,
    ]
    assert _heavy(_new_modules(functions)) == []


def _metric_functions() -> list:
    """What metric_ci / compare_metrics of predictions in dask collections ship
    to the workers: the mean-type metrics, the confusion-matrix metrics, R^2,
    ROC AUC and average precision (the sorted rows' sums), their leave-one-out
    passes, under the Poisson and the exact iid / stratified / group counts
    (the tasks of skboot.metrics._dask_ranked itself aside)."""
    from skboot._run import _dask_counts, _dask_exact_rows, _dask_jackknife, _dask_sums
    from skboot.metrics import (
        _dask_confusion,
        _dask_loo,
        _dask_mean,
        _dask_r2,
        _dask_rank,
        _dask_rank_loo,
    )

    return [
        _dask_mean.mean_partition,
        _dask_mean.mean_loo_partition,
        _dask_mean.MetricJob,
        _dask_sums.merge_sums,
        _dask_jackknife.merge_loo,
        _dask_exact_rows.merge_strata_loo,
        _dask_counts.ExactCounts,
        _dask_counts.GroupCounts,
        _dask_confusion.bin_partition,
        _dask_confusion.merge_bins,
        _dask_r2.r2_partition,
        _dask_r2.merge_r2,
        _dask_rank.rank_frame,
        _dask_rank.rank_partition,
        _dask_rank.counted_rank_partition,
        _dask_rank.frame_strata,
        _dask_rank.merge_ranks,
        _dask_rank.auc_values,
        _dask_rank.original_sums,
        _dask_rank.precision_carries,
        _dask_rank.precision_partition,
        _dask_rank.counted_precision_partition,
        _dask_rank.precision_values,
        _dask_loo.confusion_loo_partition,
        _dask_loo.r2_loo_partition,
        _dask_loo.auc_carries,
        _dask_loo.auc_loo_partition,
        _dask_rank_loo.ap_owned,
        _dask_rank_loo.ap_offsets,
        _dask_rank_loo.ap_loo_sums,
        _dask_rank_loo.paired_loo_sums,
    ]


def test_worker_of_the_data_parallel_metrics_loads_no_sklearn_nor_scipy():
    new = _new_modules(_metric_functions())
    assert "skboot.metrics._dask_mean" in new and "skboot.metrics._dask_rank" in new
    assert _heavy(new) == []  # pandas: imported when a ranked metric sorts
    assert not [m for m in new if m.startswith(("skboot.resamplers", "joblib"))]
    # the client-side modules stay on the client
    assert not {"skboot.metrics._dask", "skboot.metrics._ci"} & set(new)


def test_worker_of_data_parallel_ols_loads_no_sklearn_nor_scipy():
    from skboot._run import _dask_exact_rows, _dask_jackknife, _dask_ols_rows

    functions = [
        _dask_ols_rows.ols_partition,
        _dask_ols_rows.ols_exact_partition,
        _dask_ols_rows.ols_group_partition,
        _dask_ols_rows.merge_ols,
        _dask_ols_rows.ols_loo_partition,
        _dask_ols_rows.OLSRule,
        _dask_jackknife.merge_loo,
        _dask_exact_rows.strata_loo_partition,
        _dask_exact_rows.merge_strata_loo,
    ]
    new = _new_modules(functions)
    assert "skboot._run._dask_ols_rows" in new
    assert _heavy(new) == []
    assert not [m for m in new if m.split(".")[0] in ("pandas", "joblib")]
    assert "skboot._run._dask_ols" not in new


def test_import_skboot_loads_no_sklearn_nor_scipy_submodules():
    new = _new_modules([skboot.cache_dir])
    assert "skboot" in new
    assert _heavy(new) == []
    assert not [m for m in new if m.startswith(("pandas", "skboot._engine."))]


def test_every_public_name_resolves():
    for name in skboot.__all__:
        assert getattr(skboot, name) is not None, name
    namespace: dict = {}
    exec("from skboot import *", namespace)
    assert set(skboot.__all__) <= set(namespace)
    assert skboot.bootstrap is namespace["bootstrap"]
    assert set(skboot.__all__) <= set(dir(skboot))
    assert skboot.metrics.metric_ci is skboot.metric_ci  # a public subpackage
    with pytest.raises(AttributeError, match="has no attribute 'not_a_name'"):
        skboot.not_a_name  # noqa: B018


def _type_checking_imports(module: str) -> dict[str, str]:
    """Name -> module of the ``if TYPE_CHECKING:`` imports of ``module``'s
    ``__init__.py``."""
    path = PACKAGE.parent.joinpath(*module.split("."), "__init__.py")
    tree = ast.parse(path.read_text())
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                out.update({a.asname or a.name: imp.module for a in imp.names})
    return out


@pytest.mark.parametrize("package", LAZY)
def test_lazy_table_agrees_with_the_type_checking_imports(package):
    module = importlib.import_module(package)
    table = module._EXPORTS
    assert _type_checking_imports(package) == table
    eager = {k for k, v in vars(module).items() if not k.startswith("_")}
    assert set(module.__all__) <= set(table) | eager
    assert module.__all__ == sorted(module.__all__, key=lambda s: (not s.isupper(), s))
    for name, where in table.items():  # each name is its module's own
        assert getattr(module, name) is getattr(importlib.import_module(where), name)
