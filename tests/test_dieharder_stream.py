"""The dieharder writer (benchmarks/dieharder_stream.py) emits exactly the stream's
words, and the stream-mixer prototypes (benchmarks/stream_mixers.py) draw as
skboot's iid kernel does.  Neither needs dieharder."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.dieharder_stream import main, stream_words
from skboot._random import PURPOSE, check_random_state
from skboot._random._reference import reference_words

SEED = 12345


def _sequential_reference(purpose, length, start, count):
    """Outputs of replicates 0, 1, ... (``length`` each), from the reference."""
    key = check_random_state(SEED)
    out = []
    pos = start
    while 2 * len(out) < count:
        b, i = divmod(pos, length)
        words = reference_words(key, PURPOSE[purpose], b, 2 * (i + 1))
        out.append((words[2 * i], words[2 * i + 1]))
        pos += 1
    return np.array(out, dtype=np.uint64).ravel()[:count]


@pytest.mark.parametrize("purpose", ["indices", "poisson"])
@pytest.mark.parametrize(("length", "start"), [(3, 0), (5, 7), (4096, 4094)])
def test_sequential_layout_is_the_stream(purpose, length, start):
    got = stream_words(SEED, purpose, "sequential", length, start, words=21)
    want = _sequential_reference(purpose, length, start, 21)
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got.astype(np.uint64), want)


def test_interleaved_layout_is_the_stream():
    key = check_random_state(SEED)
    R = 3
    rows = [reference_words(key, PURPOSE["indices"], b, 8) for b in range(R)]
    # output i of replicates 0 .. R-1, each as its high then its low word
    want = [rows[b][2 * i + h] for i in range(4) for b in range(R) for h in range(2)]
    got = stream_words(SEED, "indices", "interleaved", R, 0, words=len(want))
    np.testing.assert_array_equal(got.astype(np.uint64), np.array(want, np.uint64))
    # --start skips outputs: output 4 of the layout is replicate 1's output 1
    got = stream_words(SEED, "indices", "interleaved", R, 4, words=2)
    np.testing.assert_array_equal(got.astype(np.uint64), rows[1][2:4])


def test_replicate_boundary_jumps_the_counter():
    # the last output of replicate 0 and the first of replicate 1 (counter 2**32)
    key = check_random_state(SEED)
    got = stream_words(SEED, "indices", "sequential", 2, 1, words=4)
    first = reference_words(key, PURPOSE["indices"], 0, 4)[2:4]
    second = reference_words(key, PURPOSE["indices"], 1, 2)
    np.testing.assert_array_equal(
        got.astype(np.uint64), np.concatenate([first, second])
    )


def test_cli_writes_raw_native_words(capsysbinary):
    main(
        [
            "--seed",
            str(SEED),
            "--layout",
            "sequential",
            "--length",
            "5",
            "--start",
            "3",
            "--words",
            "11",
        ]
    )
    raw = capsysbinary.readouterr().out
    assert len(raw) == 11 * 4
    got = np.frombuffer(raw, dtype=np.uint32)
    np.testing.assert_array_equal(
        got.astype(np.uint64), _sequential_reference("indices", 5, 3, 11)
    )


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--purpose", "nope", "--words", "2"], "--purpose must be one of"),
        (["--length", "0", "--words", "2"], "must be in"),
        (["--start", "-1", "--words", "2"], "must be >= 0"),
    ],
)
def test_cli_rejects_bad_options(argv, match):
    with pytest.raises(SystemExit, match=match):
        main(argv)


def test_splitmix_prototype_draws_as_skboot():
    """The prototype kernel with skboot's own mixer gives iid_sum_1d's sums, bit
    for bit, so the candidate mixers are timed in the same draw + gather + sum."""
    from benchmarks.stream_mixers import _keys, compiled
    from skboot._kernels.iid import iid_sum_1d

    x = np.random.default_rng(3).normal(size=1_003)
    seed, gamma = check_random_state(0).stream(0)
    want = np.empty(5)
    iid_sum_1d(x, seed, gamma, 2, 1_003, want)
    k0, k1, g = _keys(0)
    got = np.empty(5)
    compiled("splitmix64")[1](x, k0, k1, g, 2, 1_003, got)
    np.testing.assert_array_equal(got, want)


def test_vector_feistel_equals_its_scalar_definition():
    from benchmarks.stream_mixers import mixer_words

    a = mixer_words("feistel_mx32", 7, 5, 64, 300)
    b = mixer_words("feistel_mx32_v8", 7, 5, 64, 300)
    np.testing.assert_array_equal(a, b)
    assert len(np.unique(a)) > 290  # not a constant or short cycle


def test_results_reads_dieharder_lines():
    from benchmarks.dieharder_stream import results

    text = """#=====#
        test_name   |ntup| tsamples |psamples|  p-value |Assessment
   diehard_birthdays|   0|       100|     100|0.90599637|  PASSED
      diehard_operm5|   0|   1000000|     100|0.99846722|   WEAK
      diehard_operm5|   0|   1000000|     200|0.41000000|  PASSED
     sts_serial|  16|    100000|     100|0.00000010|  FAILED
"""
    assert results(text) == [
        ("diehard_birthdays", 0, 0.90599637, "PASSED"),
        ("diehard_operm5", 0, 0.99846722, "WEAK"),
        ("diehard_operm5", 0, 0.41, "PASSED"),
        ("sts_serial", 16, 1e-7, "FAILED"),
    ]


def test_table_puts_outputs_side_by_side():
    from benchmarks.dieharder_stream import table

    a = " sts_serial|   3|  100000|  100|0.10000000|  PASSED\n" * 2
    b = " sts_serial|   3|  100000|  100|0.99900000|   WEAK\n"
    lines = table({"seq": a, "int": b}).splitlines()
    assert lines[0] == "| test | ntup | seq p | seq | int p | int |"
    assert lines[2] == "| sts_serial | 3 | 0.1000 | PASSED | 0.9990 | WEAK |"
    assert lines[3] == "| sts_serial | 3 | 0.1000 | PASSED | — | — |"


def test_mixer_writer_cli_emits_the_mixer_words():
    import os
    import subprocess
    import sys

    from benchmarks.stream_mixers import mixer_words

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.stream_mixers",
        "--dieharder",
        "splitmix64",
        "--seed",
        "7",
        "--length",
        "64",
        "--start",
        "2",
    ]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, cwd=root) as proc:
        raw = proc.stdout.read(4 * 200)
        proc.stdout.close()  # the reader leaves: the writer stops quietly
        assert proc.wait(timeout=120) == 0
    got = np.frombuffer(raw, dtype=np.uint32)
    np.testing.assert_array_equal(got, mixer_words("splitmix64", 7, 2, 64, 200))
    # splitmix64's words are skboot's stream: replicate 2's first words
    key = check_random_state(7)
    np.testing.assert_array_equal(
        got[:64].astype(np.uint64), reference_words(key, PURPOSE["indices"], 2, 64)
    )
