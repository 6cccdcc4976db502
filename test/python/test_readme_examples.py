"""The code README.md shows runs and does what the text around it says.

The ```python blocks of "Using it" run in order in one process, as a reader pastes them, with checks
of what the text promises between them. The command of "Autotuning, timing and debugging" is the
one test_gemm_autotune_example.py runs; the commands of "Inspecting what the compiler did" are
test_cli.py's, those of "Examples" test_examples.py's.
"""

import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def section(title: str) -> str:
    match = re.search(
        rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README.read_text(), re.MULTILINE | re.DOTALL
    )
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def blocks(markdown: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", markdown, re.MULTILINE | re.DOTALL)


def commands(title: str) -> list[list[str]]:
    """The command lines of a section's ```sh blocks, comments dropped."""
    lines = [line.split("  #")[0] for block in blocks(section(title), "sh") for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line.strip()]


# What the text after each block of "Using it" says, checked before the next block runs.
AFTER_BLOCK = [
    # The kernel ran unchanged on torch CPU tensors.
    "assert torch.equal(out, x + y)\n",
    # torch.compile's Triton CPU path runs here.
    "rows = torch.randn(64, 300)\ntorch.testing.assert_close(softmax(rows), torch.softmax(rows, dim=-1))\n",
    # "From then on kernels compile for that core. On x86-64 they also run".
    (
        "out.zero_()\n"
        "kernel = add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK_SIZE=1024)\n"
        "assert kernel.metadata.target.arch == 'spacemit-a60', kernel.metadata.target\n"
        "assert torch.equal(out, x + y)\n"
    ),
]


@pytest.mark.skipif(
    platform.machine() != "riscv64" and shutil.which("qemu-riscv64") is None,
    reason="qemu-riscv64 is not installed (scripts/setup.sh installs qemu-user)",
)
def test_using_it_blocks_run(tmp_path):
    code = blocks(section("Using it"), "python")
    assert len(code) == len(AFTER_BLOCK), "README's 'Using it' blocks changed: update AFTER_BLOCK"
    script = tmp_path / "using_it.py"
    script.write_text("".join(block + check for block, check in zip(code, AFTER_BLOCK)))
    env = {k: v for k, v in os.environ.items() if k != "SPINE_TRITON_TARGET"}
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_autotuning_section_command_is_tested():
    import test_gemm_autotune_example

    assert commands("Autotuning, timing and debugging") == [
        ["python3", "examples/gemm_autotune.py", *test_gemm_autotune_example.README_ARGS]
    ]
