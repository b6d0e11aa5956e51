"""The command line of ``python -m benchmarks.dask_data``: row counts written
as integers or as integral floats (``--n 1e7``), refused otherwise with the
argument named."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.dask_data import count, count_or_zero, main


@pytest.mark.parametrize(
    "text, want",
    [("10000000", 10_000_000), ("1e7", 10_000_000), ("2.5e6", 2_500_000), ("1", 1)],
)
def test_count_takes_integers_and_integral_floats(text, want):
    assert count(text) == want
    assert type(count(text)) is int


@pytest.mark.parametrize(
    "text, match",
    [
        ("1.5", "whole number"),
        ("1e-3", "whole number"),
        ("inf", "whole number"),
        ("nan", "whole number"),
        ("ten", "such as 10000000 or 1e7"),
        ("0", "at least 1"),
        ("-2e3", "at least 1"),
    ],
)
def test_count_refuses_other_values(text, match):
    with pytest.raises(argparse.ArgumentTypeError, match=match):
        count(text)


def test_bad_n_names_the_argument_before_any_work(capsys):
    with pytest.raises(SystemExit):
        main(["--n", "2.5"])
    err = capsys.readouterr().err
    assert "argument --n: must be a whole number" in err and "'2.5'" in err


def test_unknown_row_key_names_the_argument_before_any_work(capsys):
    with pytest.raises(SystemExit):
        main(["--rows", "poisson", "gpu"])
    err = capsys.readouterr().err
    assert "argument --rows: invalid choice: 'gpu'" in err and "memory2" in err


@pytest.mark.parametrize("text, want", [("0", 0), ("1e6", 1_000_000)])
def test_n_metric_takes_zero_to_skip_the_metric_table(text, want):
    assert count_or_zero(text) == want
