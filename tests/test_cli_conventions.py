"""One convention for every subcommand: blank cells, errors, repeatable runs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from skboot.cli import main


@pytest.fixture
def blanks(tmp_path):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    frame.loc[[3, 17], "a"] = np.nan
    frame.loc[[17, 30], "b"] = np.nan
    path = tmp_path / "blanks.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_ci_refuses_blank_cells_by_default_and_names_the_option(blanks, capsys):
    path, _ = blanks
    assert main(["ci", str(path), "--column", "a", "--n-resamples", "99"]) == 2
    err = capsys.readouterr().err
    assert "column 'a' has 2 missing value(s)" in err
    assert "--nan-policy omit" in err


def test_ci_omit_drops_rows_with_a_blank_in_a_used_column(blanks, capsys):
    path, frame = blanks
    argv = ["ci", str(path), "--column", "a", "--n-resamples", "99", "--seed", "1"]
    assert main([*argv, "--nan-policy", "omit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 38 and out["nan_policy"] == "omit"
    assert out["estimate"] == pytest.approx(frame["a"].mean(skipna=True), rel=1e-12)
    pair = ["--column", "a", "--column", "b", "--statistic", "corr"]
    assert main(["ci", str(path), *pair, "--n-resamples", "99", "--seed", "1",
                 "--nan-policy", "omit", "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 37  # rows 3, 17 and 30 dropped
    kept = frame.dropna()
    assert out["estimate"] == pytest.approx(kept["a"].corr(kept["b"]), rel=1e-12)


def test_ci_nan_policy_choices_are_checked(blanks, capsys):
    path, _ = blanks
    with pytest.raises(SystemExit) as exc:
        main(["ci", str(path), "--column", "a", "--nan-policy", "drop"])
    assert exc.value.code == 2
    assert "invalid choice: 'drop'" in capsys.readouterr().err


def test_ci_all_rows_blank(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    pd.DataFrame({"a": [np.nan, np.nan, np.nan], "b": [1.0, 2.0, 3.0]}).to_csv(
        path, index=False
    )
    argv = ["ci", str(path), "--column", "a", "--nan-policy", "omit"]
    assert main(argv) == 2
    assert "no row of" in capsys.readouterr().err


@pytest.fixture
def two_groups(tmp_path):
    rng = np.random.default_rng(6)
    frame = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(0.8, size=30)})
    frame.loc[25:, "b"] = np.nan  # b is shorter: padded with blank cells
    path = tmp_path / "groups.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_test_refuses_a_directory_in_one_line(tmp_path, capsys):
    assert main(["test", str(tmp_path), "--columns", "a", "b"]) == 2
    err = capsys.readouterr().err
    assert err == f"skboot test: {tmp_path} is a directory, not a CSV file\n"


def test_test_blank_cells_follow_nan_policy(two_groups, capsys):
    path, frame = two_groups
    argv = ["test", str(path), "--columns", "a", "b", "--n-resamples", "99"]
    assert main([*argv, "--seed", "0"]) == 2
    err = capsys.readouterr().err
    assert "column 'b' has 5 missing value(s)" in err and "--nan-policy omit" in err
    assert main([*argv, "--seed", "0", "--nan-policy", "omit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == [30, 25] and out["nan_policy"] == "omit"
    expected = frame["a"].mean() - frame["b"].mean()
    assert out["observed"] == pytest.approx(expected, rel=1e-12)
    # paired: a row with a blank is dropped whole
    paired = ["test", str(path), "--columns", "a", "b", "--statistic", "paired-t"]
    assert main([*paired, "--nan-policy", "omit", "--seed", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == [25, 25]


def test_test_without_seed_says_how_to_repeat(two_groups, capsys):
    path, _ = two_groups
    argv = ["test", str(path), "--columns", "a", "b", "--nan-policy", "omit"]
    assert main([*argv, "--n-resamples", "99"]) == 0
    text = capsys.readouterr().out
    assert "seed=None" not in text
    assert "repeat this run with --seed" in text
    assert main([*argv, "--n-resamples", "99", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    seed = first["repeat_with"].split()[1]
    assert main([*argv, "--n-resamples", "99", "--json", "--seed", seed]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["pvalue"] == first["pvalue"]
    assert again["random_state"] == first["random_state"]
