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
