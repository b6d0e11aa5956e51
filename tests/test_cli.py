"""The ``skboot`` command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import skboot
from skboot import bootstrap
from skboot.cli import main
from skboot.cli._options import RESAMPLERS


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


def test_method_name_in_any_letter_case(csv, capsys):
    path, _ = csv
    argv = ["ci", str(path), "--column", "x", "--seed", "1", "--n-resamples", "99"]
    assert main([*argv, "--method", "BCa", "--json"]) == 0
    upper = json.loads(capsys.readouterr().out)
    assert main([*argv, "--method", "bca", "--json"]) == 0
    lower = json.loads(capsys.readouterr().out)
    assert upper["method"] == "bca" and upper["low"] == lower["low"]


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


def test_console_script_and_python_m_run_the_same_main():
    """pyproject's console script and ``python -m skboot`` both reach
    skboot.cli.main (read from the source tree, not the installed metadata)."""
    import importlib

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    scripts = re.search(
        r"^\[project\.scripts\]\n(.*?)(?:^\[|\Z)",
        pyproject.read_text(),
        re.MULTILINE | re.DOTALL,
    )
    assert scripts is not None
    target = re.search(r'^skboot = "([\w.]+):(\w+)"$', scripts.group(1), re.MULTILINE)
    assert target is not None and target.groups() == ("skboot.cli", "main")
    assert getattr(importlib.import_module(target.group(1)), target.group(2)) is main
    assert importlib.import_module("skboot.__main__").main is main


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


# ---------------------------------------------------------------------------
# issue 13: studentized for every statistic, clean errors, --version,
# quantile/corr, recorded entropy, block length in --json
# ---------------------------------------------------------------------------


@pytest.fixture
def table(tmp_path):
    """Columns for every statistic: skewed x, correlated y, 0/1 b, an AR(1) series."""
    rng = np.random.default_rng(11)
    n = 150
    x = rng.lognormal(size=n)
    ar = np.empty(n)
    ar[0] = rng.normal()
    for t in range(1, n):
        ar[t] = 0.7 * ar[t - 1] + rng.normal()
    frame = pd.DataFrame(
        {
            "x": x,
            "y": x + rng.normal(size=n),
            "b": (rng.random(n) < 0.3).astype(int),
            "ar": ar,
            "const": np.full(n, 2.5),
        }
    )
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _json(argv, capsys):
    rc = main([*argv, "--json"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize(
    ("statistic", "columns", "extra", "how"),
    [
        ("sum", ["x"], [], "delta method"),
        ("proportion", ["b"], [], "closed form"),
        ("var", ["x"], [], "delta method"),
        ("std", ["x"], [], "delta method"),
        ("corr", ["x", "y"], [], "delta method"),
        ("median", ["x"], ["--n-inner", "5"], "nested bootstrap"),
        ("quantile", ["x"], ["--q", "0.8", "--n-inner", "5"], "nested bootstrap"),
        ("mean", ["x"], ["--n-inner", "5"], "nested bootstrap"),
        ("mean", ["x"], [], "closed form"),
    ],
)
def test_studentized_works_for_every_statistic(
    table, capsys, statistic, columns, extra, how
):
    path, frame = table
    argv = ["ci", str(path), "--statistic", statistic, "--method", "studentized"]
    for c in columns:
        argv += ["--column", c]
    out = _json([*argv, *extra, "--n-resamples", "199", "--seed", "4"], capsys)
    data = frame[columns].to_numpy(dtype=float)
    data = data[:, 0] if len(columns) == 1 else data
    kw = {"q": 0.8} if statistic == "quantile" else None
    res = bootstrap(
        data, statistic, n_resamples=199, random_state=4, statistic_kwargs=kw
    )
    se_kw = {"n_inner": 5} if how == "nested bootstrap" else {}
    ci = res.confidence_interval(method="studentized", **se_kw)
    assert out["studentized_se"] == how
    assert out["n_inner"] == se_kw.get("n_inner")
    assert out["low"] == pytest.approx(ci.low, rel=1e-12)
    assert out["high"] == pytest.approx(ci.high, rel=1e-12)
    assert out["low"] < out["estimate"] < out["high"]


@pytest.mark.parametrize("method", ["calibrated", "calibrated_basic"])
def test_calibrated_methods(table, capsys, method):
    path, frame = table
    argv = ["ci", str(path), "--column", "x", "--method", method]
    argv += ["--n-resamples", "99", "--seed", "4"]
    res = bootstrap(
        frame["x"].to_numpy(dtype=float), "mean", n_resamples=99, random_state=4
    )
    for extra, n_inner in (([], 200), (["--n-inner", "30"], 30)):
        out = _json([*argv, *extra], capsys)
        ci = res.confidence_interval(method=method, n_inner=n_inner)
        assert out["method"] == method and out["n_inner"] == n_inner
        assert (out["low"], out["high"]) == (ci.low, ci.high)
    assert main(argv) == 0
    assert "double bootstrap, n_inner=200" in capsys.readouterr().out


def test_calibrated_with_a_block_resampler(table, capsys):
    from skboot import MovingBlockBootstrap

    path, frame = table
    argv = ["ci", str(path), "--column", "x", "--method", "calibrated"]
    argv += ["--resampler", "moving", "--block-length", "2"]
    out = _json(
        [*argv, "--n-resamples", "40", "--seed", "4", "--n-inner", "20"], capsys
    )
    res = bootstrap(
        frame["x"].to_numpy(dtype=float),
        "mean",
        resampler=MovingBlockBootstrap(40, block_length=2, random_state=4),
    )
    ci = res.confidence_interval(method="calibrated", n_inner=20)
    assert (out["low"], out["high"]) == (ci.low, ci.high)


def test_studentized_median_nested_by_default(table, capsys):
    path, _ = table
    argv = ["ci", str(path), "--column", "x", "--statistic", "median"]
    out = _json(
        [*argv, "--method", "studentized", "--n-resamples", "20", "--seed", "0"],
        capsys,
    )
    assert out["n_inner"] == 25 and out["studentized_se"] == "nested bootstrap"
    with pytest.raises(SystemExit):
        main(["ci", "--help"])
    help_text = capsys.readouterr().out
    assert "--n-inner" in help_text and "default 25" in help_text
    assert "delta method" in help_text


def test_studentized_proportion_is_the_mean_of_0_1_data(table, capsys):
    # a proportion is the mean of 0/1 data: the same closed-form standard error,
    # so the same interval, with weights and with varying replicate sizes too
    path, _ = table
    for resampler in ("iid", "bayesian", "poisson"):
        base = ["ci", str(path), "--column", "b", "--method", "studentized"]
        base += ["--resampler", resampler, "--n-resamples", "300", "--seed", "2"]
        mean = _json([*base, "--statistic", "mean"], capsys)
        prop = _json([*base, "--statistic", "proportion"], capsys)
        assert (prop["low"], prop["high"]) == (mean["low"], mean["high"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # input problems found while running: one line, return 2
        ("ci {dir} --column x", "is a directory, not a CSV file"),
        ("ci {empty} --column x", "cannot read .* as CSV"),
        ("ci {header} --column x", "at least 2 observations"),
        ("ci {csv} --column nope", "column 'nope' not in"),
        ("ci {csv} --column label", "non-numeric value"),
        ("ci {csv} --column x --statistic proportion", "0/1 data"),
        (
            "ci {csv} --column x --plot {dir}/missing/out.png",
            "folder .* does not exist",
        ),
        ("ci {csv} --column x --plot {dir}", "is a directory"),
        ("ci {csv} --column x --plot {dir}/a.txt", "must end in"),
        ("ci {csv} --column x --plot {dir}/noext", "must end in"),
        # usage errors: argparse's message, exit status 2
        ("ci {csv} --column x --level nan", "--level: must be"),
        ("ci {csv} --column x --level 1", "--level: must be in"),
        ("ci {csv} --column x --block-length 3", "block resamplers"),
        (
            "ci {csv} --column x --resampler poisson --block-length auto",
            "not --resampler poisson",
        ),
        (
            "ci {csv} --column x --resampler stationary --block-length inf",
            "--block-length: must be",
        ),
        ("ci {csv} --column x --q 0.5", "--q applies to"),
        ("ci {csv} --column x --statistic quantile", "needs --q"),
        (
            "ci {csv} --column x --statistic quantile --q 2",
            "--q: must be in",
        ),
        ("ci {csv} --column x --statistic corr", "needs two columns"),
        ("ci {csv} --column x --column x", "takes one --column"),
        ("ci {csv} --column x --n-inner 5", "--n-inner applies"),
        (
            "ci {csv} --column x --method studentized --n-inner 1",
            "--n-inner: must be an integer >= 2",
        ),
        (
            "ci {csv} --column x --method studentized --statistic median --resampler moving",
            "needs --resampler iid",
        ),
        (
            "ci {csv} --column x --method calibrated --resampler bayesian",
            "--method calibrated runs a double bootstrap, which needs replicates "
            r"that are rows \(any --resampler but bayesian\)",
        ),
        (
            "ci {csv} --column x --statistic median --resampler bayesian",
            "not defined for --resampler bayesian",
        ),
        (
            "ci {csv} --column x --method studentized --n-inner 100000 --n-resamples 100000",
            "below 2\\*\\*32",
        ),
        ("ci {csv} --column x --seed -1", "--seed: must be"),
    ],
)
def test_bad_input_exits_2_with_one_line(csv, tmp_path, capsys, argv, message):
    path, _ = csv
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("x\n")
    names = {
        "csv": str(path),
        "dir": str(tmp_path),
        "empty": str(tmp_path / "empty.csv"),
        "header": str(tmp_path / "header.csv"),
    }
    argv = [a.format(**names) for a in argv.split()]
    before = sorted(os.listdir(tmp_path))
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    captured = capsys.readouterr()
    assert rc == 2
    assert re.search(message, captured.err), captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""  # no result printed for a run that failed
    assert sorted(os.listdir(tmp_path)) == before  # nothing written


def test_unreadable_file_is_reported(csv, capsys, monkeypatch):
    path, _ = csv

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(pd, "read_csv", denied)
    assert main(["ci", str(path), "--column", "x"]) == 2
    assert "permission denied: cannot read" in capsys.readouterr().err


def test_failed_plot_write_leaves_no_file(csv, tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    def disk_full(self, fname, **kwargs):
        Path(fname).write_bytes(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", disk_full)
    out_dir = tmp_path / "plots"
    out_dir.mkdir()
    argv = ["ci", str(csv[0]), "--column", "x", "--n-resamples", "50", "--seed", "0"]
    assert main([*argv, "--plot", str(out_dir / "d.png")]) == 2
    captured = capsys.readouterr()
    assert "No space left on device" in captured.err
    assert captured.out == ""
    assert list(out_dir.iterdir()) == []  # neither the target nor the temp file


def test_command_line_exit_status_without_traceback(csv, tmp_path):
    # the real command (one subprocess: the in-process table above covers the rest)
    missing = tmp_path / "no" / "x.png"
    argv = ["ci", str(csv[0]), "--column", "x", "--plot", str(missing)]
    proc = subprocess.run(
        [sys.executable, "-m", "skboot", *argv],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_plot_is_written_atomically_with_the_computed_interval(table, tmp_path):
    pytest.importorskip("matplotlib")
    path, _ = table
    out = tmp_path / "median.svg"
    argv = ["ci", str(path), "--column", "x", "--statistic", "median"]
    argv += ["--method", "studentized", "--n-inner", "4", "--n-resamples", "60"]
    assert main([*argv, "--seed", "1", "--plot", str(out)]) == 0
    text = out.read_text()
    assert text.lstrip().startswith("<?xml") and "studentized" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["median.svg", "table.csv"]
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)  # not mkstemp's mode


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"skboot {skboot.__version__}"


def test_quantile_and_corr_statistics(table, capsys):
    path, frame = table
    argv = ["ci", str(path), "--column", "x", "--statistic", "quantile", "--q", "0.9"]
    out = _json([*argv, "--seed", "3", "--n-resamples", "400"], capsys)
    res = bootstrap(
        frame["x"].to_numpy(),
        "quantile",
        n_resamples=400,
        random_state=3,
        statistic_kwargs={"q": 0.9},
    )
    ci = res.confidence_interval()
    assert out["estimate"] == np.quantile(frame["x"], 0.9)
    assert (out["q"], out["low"], out["high"]) == (0.9, ci.low, ci.high)

    argv = ["ci", str(path), "--column", "x", "--column", "y", "--statistic", "corr"]
    out = _json([*argv, "--seed", "3", "--n-resamples", "400"], capsys)
    r = bootstrap(frame[["x", "y"]].to_numpy(), "corr", n_resamples=400, random_state=3)
    assert out["columns"] == ["x", "y"] and out["column"] is None
    assert out["estimate"] == pytest.approx(np.corrcoef(frame["x"], frame["y"])[0, 1])
    assert out["low"] == r.confidence_interval().low
    assert main([*argv, "--seed", "3", "--n-resamples", "400"]) == 0
    assert "corr(x, y) = " in capsys.readouterr().out


def test_without_seed_the_entropy_is_printed_and_repeats_the_run(table, capsys):
    path, _ = table
    argv = ["ci", str(path), "--column", "x", "--n-resamples", "300"]
    first = _json(argv, capsys)
    assert first["seed"] is None and isinstance(first["random_state"], int)
    assert first["repeat_with"] == f"--seed {first['random_state']}"
    again = _json([*argv, *first["repeat_with"].split()], capsys)
    assert (again["low"], again["high"]) == (first["low"], first["high"])
    assert again["random_state"] == first["random_state"]

    assert main(argv) == 0
    text = capsys.readouterr().out
    entropy = re.search(r"repeat this run with --seed (\d+)\)", text)
    assert entropy and int(entropy.group(1)) >= 2**64, text
    assert main([*argv, "--seed", entropy.group(1)]) == 0
    repeated = capsys.readouterr().out
    assert repeated.split("(se")[0] == text.split("(se")[0]  # same estimate and CI
    assert f"seed={entropy.group(1)})" in repeated


@pytest.mark.parametrize("resampler", ["stationary", "moving", "circular"])
def test_json_reports_the_block_length_used(table, capsys, resampler):
    path, frame = table
    cls = getattr(skboot, RESAMPLERS[resampler])
    expected = cls(10, random_state=0).fit(frame["ar"].to_numpy()).block_length_
    argv = ["ci", str(path), "--column", "ar", "--resampler", resampler]
    argv += ["--n-resamples", "100", "--seed", "0"]
    auto = _json(argv, capsys)
    assert auto["block_length"] == pytest.approx(expected, rel=1e-12)
    assert auto["block_length"] > 1 and auto["block_length_auto"] is True
    fixed = _json([*argv, "--block-length", "4"], capsys)
    assert (fixed["block_length"], fixed["block_length_auto"]) == (4, False)
    assert main(argv) == 0
    assert "(auto)" in capsys.readouterr().out
    iid = _json(["ci", str(path), "--column", "ar", "--n-resamples", "50"], capsys)
    assert iid["block_length"] is None


def test_warnings_are_reported_on_one_line_each(table, capsys):
    path, _ = table
    argv = ["ci", str(path), "--column", "const", "--n-resamples", "50"]
    out = _json([*argv, "--seed", "0"], capsys)
    assert any("DegenerateDistributionWarning" in w for w in out["warnings"])
    assert main([*argv, "--seed", "0"]) == 0
    err = capsys.readouterr().err
    assert "skboot ci: warning: DegenerateDistributionWarning" in err


@pytest.mark.parametrize("cached", [True, False])
def test_demo_says_when_it_compiles(capsys, monkeypatch, cached):
    from skboot.cli import _demo

    monkeypatch.setattr(_demo, "_kernels_cached", lambda: cached)
    assert main(["demo", "--n-resamples", "50"]) == 0
    captured = capsys.readouterr()
    assert ("Compiling skboot's kernels" in captured.err) is not cached
    assert ("one-time compilation" in captured.out) is not cached
    assert "numba compile included" not in captured.out


def test_demo_cache_probe(monkeypatch, tmp_path):
    import skboot
    from skboot.cli import _demo

    monkeypatch.setattr(skboot, "cache_dir", lambda: tmp_path)
    assert not _demo._kernels_cached()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "kernel.demo-1.py311.nbi").write_bytes(b"")
    assert _demo._kernels_cached()
    monkeypatch.setattr(skboot, "cache_dir", lambda: None)
    assert not _demo._kernels_cached()
