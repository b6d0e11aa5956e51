"""The size study (``benchmarks/size_study.py``): the script runs, and the exact
tests reject a true null at their nominal rate.

A binomial test per row and level with false-failure probability 1e-4 each (about
1e-3 for the whole test); the full table is in ``docs/size_study.md``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchmarks import size_study

EXACT_ROWS = ["perm_mean_diff", "perm_pearson", "perm_paired_t", "metric_auc"]


@pytest.mark.slow
def test_exact_tests_have_nominal_size():
    trials, B = 150, 99
    pvalues = size_study.run(trials, B, seed=7, jobs=1, only=EXACT_ROWS)
    assert set(pvalues) == set(EXACT_ROWS)
    for name, p in pvalues.items():
        assert ((p >= 1 / (B + 1)) & (p <= 1)).all(), name
        for alpha in (0.05, 0.25):
            k = int(np.count_nonzero(p <= alpha))
            test = stats.binomtest(k, trials, alpha)
            assert test.pvalue > 1e-4, (name, alpha, k)


def test_report_and_docs_markers(tmp_path, monkeypatch):
    text = size_study.report({"perm_mean_diff": np.array([0.01, 0.5])}, 2, 99, 1)
    assert "| permutation, mean_diff | exponential 15 + 15 | exact | 0.5000 |" in text
    doc = tmp_path / "size.md"
    doc.write_text(f"head\n{size_study.BEGIN}\nold\n{size_study.END}\ntail\n")
    monkeypatch.setattr(size_study, "DOCS", str(doc))
    assert size_study.main(
        ["--trials", "2", "--n-resamples", "19", "--only", "perm_pearson",
         "--write-docs"]
    ) == 0  # fmt: skip
    written = doc.read_text()
    assert written.startswith("head\n") and written.endswith("tail\n")
    assert "permutation (pairings), pearson" in written and "old" not in written
