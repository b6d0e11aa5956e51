"""Every script in examples/ runs, on reduced sizes, and prints what it promises.

Scripts are discovered with a glob, so a new example is covered automatically;
it must also get an entry in ``EXPECTED`` (the test fails until it has one).
Each script runs in a subprocess with ``SKBOOT_EXAMPLE_FAST=1`` and one OpenMP
thread, warnings turned into errors (``-W error``), and with ``--plot`` to a
temporary file when the script offers it and matplotlib is installed.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))

#: Phrases each script's output must contain (regular expressions).
EXPECTED: dict[str, list[str]] = {
    "metric_intervals.py": [
        r"95% BCa intervals",
        r"roc_auc\s+0\.\d+\s+iid \[",
        r"p-value 0\.\d+",
        r"\.632\+ 0\.\d+",
    ],
    "gridsearch_bootstrap.py": [
        r"cv=Bootstrap\(\d+\): \d+\.\d% of rows out of bag",
        r"cv=StratifiedBootstrap\(\d+\)",
        r"best: C = [\d.]+, mean out-of-bag ROC AUC 0\.\d+",
        r"GroupBootstrap\(\d+\)\s+\d+\s+0\.\d+\s+0\.\d+",
    ],
    "pipeline_coefficients.py": [
        r"Coefficient intervals \(95%\)",
        r"bmi\s+24\.77\s",  # the full-data Ridge coefficient, independent of B
        r"the BCa interval excludes 0",
    ],
    "time_series_blocks.py": [
        r"optimal_block_length: stationary \d+\.\d+, circular \d+\.\d+",
        r"Stationary\s+\d+(\.\d+)?\s+0\.\d+\s+\d\.\d+\s+\[",
        r"TaperedBlock\s+\d+",
        r"Coverage of 95% intervals",
    ],
    "multiple_comparison.py": [
        r"SPA p-values: lower 0\.\d+, consistent 0\.\d+, upper 0\.\d+",
        r"StepM \(FWER 5%\), better than the benchmark: \[.*'phi=0\.60'",
        r"MCS \(90%\): .*phi=0\.60",
        r"MCS \(95%\): .*forest",
    ],
    "tests_and_pvalues.py": [
        r"texture, malignant vs benign, welch_t\s+\d+\.\d+\s+p = 0\.00",
        r"logistic regression\s+AUC 0\.9\d+\s+p = 0\.001",
        r"model on noise\s+AUC 0\.\d+\s+p = 0\.[1-9]",
        r"bca\s+p = 0\.\d+\s+95% interval \[",
        r"Monte Carlo test of normality",
    ],
    "plot_roc_band.py": [
        r"ROC curve on 101 false positive rates from 0\.0\d+ to 0\.\d+",
        r"0\.\d\d\s+0\.\d+\s+\[0\.\d+, [01]\.\d+\]\s+\[0\.\d+, 1\.000\]",
        r"of the replicates' curves lie inside it everywhere",
        r"AUC 0\.\d+, 95% BCa \[0\.\d+, [01]\.\d+\]; the band of its replicates "
        r"is the band above: True",
        r"Precision at recall 0\.90: 0\.\d+",
    ],
    "plot_calibrated_coverage.py": [
        r"100 data sets of n = 10 per law",
        r"Coverage of 90% intervals for the true mean",
        r"normal\s+calibrated\s+0\.\d+\s+\(standard error 0\.0\d+\)",
        r"exponential\s+percentile\s+0\.\d+",
    ],
    "parametric_bootstrap.py": [
        r"parametric\s+\[\d\.\d+, \d\.\d+\]",
        r"exact\s+\[\d\.\d+, \d\.\d+\]",
        r"Coverage of 95% intervals for the true mean",
        r"ordinary\s+\d+\.\d%",
        r"empirical\s+standard error 0\.1\d\d",
    ],
    "large_b_memory.py": [
        r"callable \(axis=\)\s+20,000",
        r"peak RSS growth over all runs: [\d.]+ MB",
    ],
}

#: Bound on the peak-RSS growth large_b_memory.py reports (B x n x 8 bytes is
#: 1.5 GB at its fast size; the distribution itself is 0.2 MB).
MAX_RSS_GROWTH_MB = 50.0


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _run(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(SKBOOT_EXAMPLE_FAST="1", OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, "-W", "error", str(script), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=EXAMPLES.parent,
        timeout=300,
    )


def test_examples_found():
    assert len(SCRIPTS) >= 5, SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_runs(script: Path, tmp_path: Path):
    assert script.name in EXPECTED, (
        f"examples/{script.name} has no entry in EXPECTED of tests/test_examples.py; "
        "add the phrases its output must contain."
    )
    source = script.read_text()
    assert source.lstrip().startswith(('"""', "'''")), "module docstring missing"
    assert 'if __name__ == "__main__":' in source
    assert "SKBOOT_EXAMPLE_FAST" in source
    args: list[str] = []
    figure = tmp_path / "figure.png"
    if "--plot" in source and _has_matplotlib():
        args = ["--plot", str(figure)]

    proc = _run(script, *args)

    assert proc.returncode == 0, (
        f"{script.name} exited with {proc.returncode}\n--- stdout ---\n"
        f"{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    )
    for phrase in EXPECTED[script.name]:
        assert re.search(phrase, proc.stdout), (
            f"{phrase!r} not in the output of {script.name}:\n{proc.stdout}"
        )
    if args:
        assert figure.stat().st_size > 1000, f"{script.name} saved no figure"
    if script.name == "large_b_memory.py":
        _check_flat_memory(proc.stdout)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_has_a_gallery_header(script: Path):
    """sphinx-gallery (docs/conf.py) builds each script into a page: its docstring
    must open with a title underlined with '=' and a paragraph of text."""
    doc = ast.get_docstring(ast.parse(script.read_text()), clean=False)
    assert doc is not None
    lines = doc.strip("\n").splitlines()
    assert len(lines) > 3, doc
    title, underline, blank, text = lines[:4]
    assert title.strip() == title and title, doc
    assert set(underline) == {"="} and len(underline) >= len(title), doc
    assert blank == "" and text.strip(), doc


def test_gallery_has_a_header_page():
    readme = EXAMPLES / "README.rst"
    assert readme.read_text().startswith("Examples\n========\n")


def test_generated_docs_are_git_ignored():
    root = EXAMPLES.parent
    conf = (root / "docs" / "conf.py").read_text()
    assert '"gallery_dirs": "auto_examples"' in conf
    ignored = (root / ".gitignore").read_text().splitlines()
    for path in ("docs/_build/", "docs/auto_examples/", "docs/sg_execution_times.rst"):
        assert path in ignored, path


def _check_flat_memory(stdout: str) -> None:
    """The peak RSS growth over all the large-B runs stays below the bound."""
    match = re.search(r"peak RSS growth over all runs: ([\d.]+) MB", stdout)
    assert match, stdout
    assert float(match.group(1)) < MAX_RSS_GROWTH_MB, stdout
