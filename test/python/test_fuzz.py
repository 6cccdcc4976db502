"""The pipeline fuzzer (tools/fuzz_pipeline.py) in CI, and the kernels behind its crashers.

A bounded, seeded run (FUZZ_SECONDS) must end with no crash, hang or unexpected exception. Longer
runs by hand: `python3 tools/fuzz_pipeline.py --minutes 30`. Each crasher found and fixed is a lit
test in test/lit/fuzz/; the kernels that hit the same bugs from Python are tested here.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

REPO = Path(__file__).resolve().parent.parent.parent
FUZZER = REPO / "tools" / "fuzz_pipeline.py"
FUZZ_SECONDS = 180
# The crashers of test/lit/fuzz that the guards turn into errors.
REJECTED_ON_PURPOSE = {
    "forward-reference-into-failed-region.mlir",
    "index-dense-array.mlir",
    "inherent-attribute-of-the-wrong-kind.mlir",
    "linalg-bad-integer-lists.mlir",
    "opt-verify-diagnostics.mlir",
    "region-arguments-forward-reference.mlir",
}


def run_fuzzer(tmp_path, *args, env=None):
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, str(FUZZER), "--quiet", "--crashers", str(tmp_path / "crashers"),
         "--json", str(report), *args],
        capture_output=True, text=True, check=False, timeout=900, env={**os.environ, **(env or {})},
    )  # fmt: skip
    assert report.exists(), result.stdout + result.stderr
    return result, json.loads(report.read_text())


def test_bounded_fuzz_run_finds_no_crash_or_hang(tmp_path):
    result, report = run_fuzzer(tmp_path, "--seconds", str(FUZZ_SECONDS), "--seed", "1", "--jobs", "1")
    print(result.stdout)
    assert report["failures"] == [], result.stdout
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["executions"] > 100
    # The inputs got through every stage, not only into the parser's diagnostics.
    stages = {key.split("@")[1] for key in report["outcomes"]}
    assert {"parse", "llmlir"} <= stages, report["outcomes"]
    assert "ok@llmlir" in report["outcomes"] or "ok@obj" in report["outcomes"], report["outcomes"]


@pytest.mark.parametrize("kind", ["crash", "hang"])
def test_fuzzer_reports_and_saves_crashes_and_hangs(tmp_path, kind):
    # Every input of the vector add contains `tt.func` (the seed minus some mutations may not):
    # the worker's child aborts or sleeps on those, and the fuzzer goes on with a new child.
    result, report = run_fuzzer(
        tmp_path, "--runs", "2", "--seed", "3", "--jobs", "1", "--only", "vector_add", "--no-linalg",
        "--timeout", "3", env={"SPINE_FUZZ_SELFTEST": f"{kind}:tt.func"},
    )  # fmt: skip
    assert result.returncode == 1
    assert report["executions"] == 2
    assert report["failures"] and {f["kind"] for f in report["failures"]} == {kind}
    saved = sorted((tmp_path / "crashers").glob(f"{kind}-*"))
    inputs = [p for p in saved if p.suffix == ".ttir"]
    assert inputs and all(p.with_suffix(".json").exists() for p in inputs)
    assert "tt.func" in inputs[0].read_text()
    details = json.loads(inputs[0].with_suffix(".json").read_text())
    assert ("SIGABRT" if kind == "crash" else "no result within 3 s") in details["detail"]


def test_no_valid_input_trips_the_parser_guards():
    """Every corpus file and lit test input (split like -split-input-file) that parses with
    spine-triton-opt's parser parses through spine_triton._C too: the guard against unsafe
    forward references and malformed linalg integer lists (cpp/parser/ParserGuards.h) rejects no
    valid IR."""
    from spine_triton import _C

    files = sorted((REPO / "test").glob("corpus/ttir/*.ttir")) + sorted((REPO / "test").glob("lit/**/*.mlir"))
    checked = 0
    for path in files:
        if path.name in REJECTED_ON_PURPOSE:
            continue
        for chunk in path.read_text().split("// -----"):
            try:
                _C.run_pipeline(chunk, "builtin.module()")
            except _C.CompileError as e:
                assert "before its definition" not in str(e), f"{path}: {e}"
            checked += 1
    assert checked > 100


# --------------------------------------------------------------------------------------------
# Kernels that crashed the compiler the way the fuzzer's inputs did


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def test_tl_rand_kernel_compiles_and_runs():
    # tl.rand's inlined helpers leave callsite(unknown at ...) locations, on which translating
    # with line info used to segfault (test/lit/fuzz/translate-callsite-locations.mlir).
    x = torch.rand(10_000) + 1.0
    out = torch.empty_like(x)
    dropout_kernel[(10,)](x, out, 10_000, 0.25, 1234, BLOCK=1024)
    kept = out != 0
    torch.testing.assert_close(out[kept], x[kept] / 0.75)
    assert 0.7 < kept.float().mean().item() < 0.8
    again = torch.empty_like(x)
    dropout_kernel[(10,)](x, again, 10_000, 0.25, 1234, BLOCK=1024)
    assert torch.equal(out, again)  # the same seed, the same mask


@triton.jit
def rsqrt_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.math.rsqrt(tl.load(x_ptr + offs, mask=mask, other=1.0)), mask=mask)


def test_rsqrt_kernel_compiles_and_runs():
    # Vectorized rsqrt used to crash spine-approximate-math
    # (test/lit/fuzz/approximate-math-rsqrt-vector.mlir).
    x = torch.rand(1000) + 0.01
    out = torch.empty_like(x)
    rsqrt_kernel[(1,)](x, out, 1000, BLOCK=1024)
    torch.testing.assert_close(out, torch.rsqrt(x))


@triton.jit
def sum_of_constant_kernel(out_ptr, N: tl.constexpr):
    tl.store(out_ptr, tl.sum(tl.full([N], 2.0, tl.float32), axis=0))
    tl.store(out_ptr + 1, tl.max(tl.full([N], -3.0, tl.float32), axis=0))


def test_reduction_of_a_constant_compiles_and_runs():
    # A rank-0 copy of a constant used to crash linalg-fuse-elementwise-ops
    # (test/lit/fuzz/reduce-of-constant.mlir).
    out = torch.empty(2)
    sum_of_constant_kernel[(1,)](out, N=1024)
    assert out.tolist() == [2048.0, -3.0]
