"""The benchmark harness's timing rules (benchmarks/_harness.py)."""

from __future__ import annotations

import time

import pytest

from benchmarks._harness import MIN_VALUE_SECONDS, calibrate_loops, measure_interleaved


@pytest.mark.parametrize(
    ("per_call", "loops"),
    [
        (1.0, 1),
        (MIN_VALUE_SECONDS, 1),
        (MIN_VALUE_SECONDS / 4, 4),
        (0.003, 7),
        (0.0, 1000),
    ],
)
def test_calibrate_loops(per_call, loops):
    assert calibrate_loops(per_call) == loops


def test_fast_calls_are_repeated_and_reported_per_call():
    calls = {"fast": 0, "slow": 0}

    def fast():
        calls["fast"] += 1

    def slow():
        calls["slow"] += 1
        time.sleep(MIN_VALUE_SECONDS * 1.5)

    out = measure_interleaved({"fast": fast, "slow": slow}, reps=3)
    assert out["slow"]["loops"] == 1
    assert out["fast"]["loops"] > 1
    # warm-up (1, plus one calibration call) + reps * loops
    assert calls["slow"] == 2 + 3
    assert calls["fast"] == 2 + 3 * out["fast"]["loops"]
    assert all(t >= MIN_VALUE_SECONDS for t in out["slow"]["times"])
    assert all(t < MIN_VALUE_SECONDS for t in out["fast"]["times"])  # per call


def test_a_failing_implementation_is_dropped():
    def bad():
        raise RuntimeError("boom")

    out = measure_interleaved({"bad": bad, "ok": lambda: None}, reps=2)
    assert "boom" in out["bad"]["error"] and out["bad"]["times"] == []
    assert len(out["ok"]["times"]) == 2


def test_calibration_ignores_a_slow_first_call():
    """A first call that includes compilation must not leave loops at 1."""
    state = {"first": True}

    def jit_like():
        if state["first"]:
            state["first"] = False
            time.sleep(MIN_VALUE_SECONDS * 3)

    out = measure_interleaved({"jit": jit_like}, reps=2)
    assert out["jit"]["loops"] > 1
    assert all(t < MIN_VALUE_SECONDS for t in out["jit"]["times"])


def test_isa_feature_string_switches_off_only_the_missing_features():
    from benchmarks._isa import ISAS, _feature_string

    flat = "+64bit,+avx,+avx2,+fma,+avx512f,-avx512bw,+avx512vl,+sse4.2"
    avx2 = _feature_string(flat, ISAS["avx2"][1]).split(",")
    assert "+avx2" in avx2 and "+fma" in avx2 and "+sse4.2" in avx2
    assert "-avx512f" in avx2 and "-avx512vl" in avx2 and "-avx512bw" in avx2
    sse4 = _feature_string(flat, ISAS["sse4"][1]).split(",")
    assert "-avx" in sse4 and "-avx2" in sse4 and "-fma" in sse4 and "+sse4.2" in sse4


def test_codegen_line_reports_the_registers():
    from benchmarks._harness import _codegen_line

    line = _codegen_line(
        {"isa": "avx2", "numba_cpu_name": "haswell", "kernels": 5, "ymm": 4, "zmm": 0}
    )
    assert (
        "avx2 (LLVM CPU haswell)" in line
        and "4 using ymm" in line
        and "0 using zmm" in line
    )
    assert "not checked" in _codegen_line(None)
