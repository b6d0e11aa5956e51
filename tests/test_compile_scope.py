"""What a first call compiles: only the kernels its result needs.

Run in a fresh interpreter with an empty kernel cache (``SKBOOT_CACHE_DIR``), with
numba's compile events recorded; no timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Records the qualified name of every function numba compiles in the child.
LISTEN = """
import json
from numba.core import event

names = []


class Listener(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        names.append(ev.data["dispatcher"].py_func.__qualname__)


event.register("numba:compile", Listener())
"""


def compiled_in_child(code: str, cache_dir: Path, timeout: int = 900) -> set[str]:
    """The functions numba compiles while a fresh interpreter runs ``code``
    with the empty kernel cache ``cache_dir`` (so every kernel it needs is
    compiled, and seen)."""
    env = dict(os.environ)
    env["SKBOOT_CACHE_DIR"] = str(cache_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    child = LISTEN + code + "\nprint(json.dumps(sorted(set(names))))\n"
    proc = subprocess.run(
        [sys.executable, "-c", child],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


CHILD = """
import numpy as np
import skboot

rng = np.random.default_rng(0)
y = rng.integers(0, 2, size=60)
score = rng.normal(size=60) + y
skboot.metric_ci(y, score, "roc_auc", n_resamples=99, random_state=0)
"""

#: The kernels (and leave-one-out rules) of the metrics other than ROC AUC.
OTHER_METRICS = {
    "weighted_rms_kernel",
    "r2_kernel",
    "balanced_accuracy_kernel",
    "prf_kernel",
    "average_precision_kernel",
    "loo_mean",
    "loo_prf_binary",
    "loo_generic",
    "loo_average_precision",
    "loo_balanced_accuracy",
    "loo_prf_multiclass",
    "loo_r2",
}


def test_metric_ci_compiles_the_kernels_of_its_metric_only(tmp_path):
    compiled = compiled_in_child(CHILD, tmp_path, timeout=600)
    # the interval is BCa: the metric on the replicates and its jackknife
    assert {"roc_auc_kernel", "loo_roc_auc"} <= compiled
    assert not compiled & OTHER_METRICS, sorted(compiled & OTHER_METRICS)
