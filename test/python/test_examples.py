"""The runnable examples (README.md, "Examples") run as users run them, each in its own process, and
match torch: on the host CPU, and compiled for a SpacemiT RISC-V core, selected each of the ways a
user can (``--riscv``, ``--arch-id``, ``SPINE_TRITON_TARGET``). Off a RISC-V host those run under
qemu-user, with the examples' small emulated sizes."""

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
import example_cli

# As test_riscv_emulated.py decides, except that a riscv64 host runs these natively rather than
# being skipped: the examples select the core the same way there.
needs_riscv = pytest.mark.skipif(
    platform.machine() != "riscv64" and shutil.which("qemu-riscv64") is None,
    reason="qemu-riscv64 is not installed (scripts/setup.sh installs qemu-user)",
)

# Every example, and how its RISC-V run selects the core: one of the three ways each.
RISCV_RUNS = {
    "bare_matmul.py": (["--riscv"], {}, "spacemit-x60"),
    "fused_mm_softmax.py": (["--arch-id", "0xA03C"], {}, "spacemit-a60"),
    "abs_op.py": ([], {"SPINE_TRITON_TARGET": "0x5064"}, "spacemit-x100"),
    "fused_attention.py": (["--riscv"], {}, "spacemit-x60"),
}


def run_example(name, args=(), env=None):
    """Runs one example; returns its output lines after checking it passed and said so."""
    environ = {k: v for k, v in os.environ.items() if k != "SPINE_TRITON_TARGET"}
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, f"{name} {' '.join(args)} exited with {proc.returncode}\n{output}"
    lines = proc.stdout.splitlines()
    assert "MISMATCH" not in proc.stdout, output
    assert re.fullmatch(r"all [1-9]\d* cases match torch", lines[-1]), output
    assert all(re.search(r" match( |$)", line) for line in lines[1:-1]), output
    return lines


def test_every_example_is_tested():
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    runnable = {name for name in scripts if "example_cli.setup(" in (EXAMPLES / name).read_text()}
    assert runnable == set(RISCV_RUNS)


@pytest.mark.parametrize("name", list(RISCV_RUNS))
def test_native(name):
    lines = run_example(name)
    assert lines[0] == f"target: the host CPU ({platform.machine()})"


@needs_riscv
@pytest.mark.parametrize("name", list(RISCV_RUNS))
def test_riscv(name):
    args, env, target = RISCV_RUNS[name]
    lines = run_example(name, args, env)
    how = "native" if platform.machine() == "riscv64" else "emulated under qemu-riscv64"
    assert re.fullmatch(rf"target: {target} \(arch id 0x[0-9A-F]{{4}}\), {how}", lines[0]), lines[0]


def test_report_and_exit_status(capsys):
    assert example_cli.report("case one", True) and not example_cli.report("case two", False, "2 differ")
    assert example_cli.finish([True, False, True]) == 1
    assert example_cli.finish([True, True]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["case", "one", "match"]
    assert out[1].split() == ["case", "two", "MISMATCH", "(2", "differ)"]
    assert out[2:] == ["MISMATCH: 1 of 3 cases differ from torch", "all 2 cases match torch"]


def test_readme_shows_every_example():
    readme = (EXAMPLES.parent / "README.md").read_text()
    section = re.search(r"^## Examples\n(.*?)(?=^## )", readme, re.MULTILINE | re.DOTALL)
    assert section, "README.md has no '## Examples' section"
    for name in RISCV_RUNS:
        assert f"python3 examples/{name} --riscv" in section.group(1), name
