"""The ``skboot`` command."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from skboot import bootstrap
from skboot.__main__ import main


@pytest.fixture
def csv(tmp_path):
    x = np.random.default_rng(3).lognormal(size=120)
    path = tmp_path / "data.csv"
    pd.DataFrame({"x": x, "label": [str(v) for v in x[:119]] + ["oops"]}).to_csv(
        path, index=False
    )
    return path, x


def test_ci_matches_python_api(csv, capsys):
    path, x = csv
    rc = main(
        [
            "ci",
            str(path),
            "--column",
            "x",
            "--seed",
            "5",
            "--n-resamples",
            "999",
            "--json",
        ]
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    res = bootstrap(x, "mean", n_resamples=999, random_state=5)
    ci = res.confidence_interval(method="bca")
    assert out["estimate"] == pytest.approx(res.estimate, rel=1e-15)
    assert out["low"] == pytest.approx(ci.low, rel=1e-15)
    assert out["high"] == pytest.approx(ci.high, rel=1e-15)


def test_ci_text_output_and_options(csv, capsys):
    path, x = csv
    rc = main(
        [
            "ci",
            str(path),
            "--column",
            "x",
            "--statistic",
            "median",
            "--method",
            "percentile",
            "--level",
            "0.9",
            "--seed",
            "1",
            "--n-resamples",
            "500",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    ci = bootstrap(x, "median", n_resamples=500, random_state=1).confidence_interval(
        0.9, method="percentile"
    )
    assert f"{ci.low:.6g}" in text and "90% percentile CI" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ci", "missing.csv", "--column", "x"], "file not found"),
        (["ci", "{path}", "--column", "nope"], "column 'nope' not in"),
        (["ci", "{path}", "--column", "label"], "1 non-numeric value"),
    ],
)
def test_ci_errors_exit_nonzero(csv, capsys, argv, message):
    path, _ = csv
    argv = [a.format(path=path) for a in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["ci", "f.csv", "--column", "x", "--method", "magic"],
        ["ci", "f.csv", "--column", "x", "--level", "1.5"],
        ["ci", "f.csv", "--column", "x", "--n-resamples", "0"],
        ["ci", "f.csv"],
        ["frobnicate"],
    ],
)
def test_bad_options_exit_with_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "usage: skboot" in capsys.readouterr().err


def test_plot_option_writes_png(csv, tmp_path):
    pytest.importorskip("matplotlib")
    path, _ = csv
    out = tmp_path / "dist.png"
    assert (
        main(
            [
                "ci",
                str(path),
                "--column",
                "x",
                "--seed",
                "0",
                "--n-resamples",
                "200",
                "--plot",
                str(out),
            ]
        )
        == 0
    )
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_help_lists_every_option():
    text = subprocess.run(
        [sys.executable, "-m", "skboot", "ci", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for opt in [
        "--column",
        "--statistic",
        "--method",
        "--resampler",
        "--block-length",
        "--n-resamples",
        "--seed",
        "--json",
        "--plot",
        "--level",
    ]:
        assert opt in text


def test_demo_runs_and_prints_intervals(capsys):
    assert main(["demo", "--n-resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "breast cancer" in out
    assert "test accuracy" in out and "bca" in out
    assert "minus naive Bayes" in out and "p-value" in out
