"""examples/gemm_autotune.py, the tutorial's autotuned GEMM benchmark with device="cpu", runs as a
user runs it (``--quick``): every correctness case matches torch, the autotuner picks a config per
size, and perf_report writes its table and plot."""

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "gemm_autotune.py"
# The arguments of README.md's command (test_readme_examples.py checks it is this one).
README_ARGS = ["--quick", "-v"]


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_gemm_autotune_quick(tmp_path, dtype):
    pytest.importorskip("matplotlib", reason="scripts/setup.sh installs matplotlib")
    pytest.importorskip("pandas", reason="scripts/setup.sh installs pandas")
    env = dict(os.environ, MPLBACKEND="Agg")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *README_ARGS, "--dtype", dtype, "--save-path", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # Three shapes (one with K not a multiple of BLOCK_SIZE_K), with and without leaky_relu.
    assert sum(line.startswith("✅ Triton and Torch match") for line in lines) == 6, result.stdout
    assert not any(line.startswith("❌") for line in lines), result.stdout
    # -v: the config the autotuner chose for each benchmarked size, one of the two --quick keeps.
    best = [line for line in lines if "Best tuning config" in line]
    assert len(best) == 2, result.stdout
    assert all(
        "BLOCK_SIZE_M: 64, BLOCK_SIZE_N: 64" in b or "BLOCK_SIZE_M: 32, BLOCK_SIZE_N: 64" in b for b in best
    )

    with open(tmp_path / "matmul-performance.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(float(r["M"]), float(r["K"])) for r in rows] == [(128, 128), (192, 192)]
    for row in rows:
        assert float(row["Torch (GFLOP/s)"]) > 0 and float(row["Triton (GFLOP/s)"]) > 0
    assert (tmp_path / "matmul-performance.png").read_bytes()[:4] == b"\x89PNG"
