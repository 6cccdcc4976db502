"""A process that exits with compiled kernels still loaded exits quietly.

Kernels whose JIT functions live in a dictionary are unloaded only when the interpreter tears
down, after imports have stopped working; unloading must not need one (it used to print
"Exception ignored ... ImportError: sys.meta_path is None" once per kernel).
"""

import os
import subprocess
import sys
import textwrap

KERNEL_MODULE = textwrap.dedent("""
    import triton
    import triton.language as tl

    @triton.jit
    def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)
""")

MAIN = textwrap.dedent("""
    import os
    import sys

    import torch
    import triton

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import kernel_module

    x = torch.rand(100)
    copies = {}
    for name in ("first", "second"):
        out = torch.empty_like(x)
        copies[name] = triton.jit(kernel_module.add_one.fn)
        copies[name][(1,)](x, out, 100, BLOCK=128)
        assert torch.equal(out, x + 1)
    print("ran")
""")


def test_exit_with_kernels_loaded_prints_nothing(tmp_path):
    (tmp_path / "kernel_module.py").write_text(KERNEL_MODULE)
    (tmp_path / "main.py").write_text(MAIN)
    env_overrides = {"TRITON_ALWAYS_COMPILE": "1", "TRITON_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, str(tmp_path / "main.py")],
        env={**os.environ, **env_overrides},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ran"]
    assert "Exception ignored" not in result.stderr, result.stderr
