"""Debug builds: ``debug=True`` (a launch option, ``@triton.jit(debug=True)`` or ``TRITON_DEBUG=1``)
compiles at -O0 with frame pointers, and the library's DWARF line table maps the kernel's code to
its Python source lines, so gdb and perf show them. Optimized builds keep the line table too."""

import inspect
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
import torch
import triton
import triton.language as tl
from spine_triton import _C, compiler, targets


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


SOURCE, FIRST_LINE = inspect.getsourcelines(axpy_kernel.fn)
DEF_LINE = FIRST_LINE + next(i for i, line in enumerate(SOURCE) if line.startswith("def "))
LAST_LINE = FIRST_LINE + len(SOURCE) - 1
OFFS_LINE = FIRST_LINE + next(i for i, line in enumerate(SOURCE) if "offs = " in line)
LOAD_LINES = {FIRST_LINE + i for i, line in enumerate(SOURCE) if "tl.load" in line}
STORE_LINE = FIRST_LINE + next(i for i, line in enumerate(SOURCE) if "tl.store" in line)
# The statements that compute something (tl.program_id is an argument of the kernel function).
STATEMENT_LINES = {
    FIRST_LINE + i for i, line in enumerate(SOURCE) if " = " in line and "program_id" not in line
} | {STORE_LINE}
THIS_FILE = os.path.abspath(__file__)


def launch(**options):
    x, y = torch.rand(3000), torch.rand(3000)
    out = torch.empty_like(x)
    kernel = axpy_kernel[(triton.cdiv(3000, 512),)](x, y, out, 3000, 2.0, BLOCK=512, **options)
    torch.testing.assert_close(out, 2.0 * x + y)
    return kernel


def source_lines(library: bytes, function: str, tmp_path) -> set[tuple[str, int]]:
    """The (file, line) pairs the DWARF line table gives the instructions of ``function``, as
    ``llvm-objdump -d -l`` (like gdb and perf) reads them."""
    path = tmp_path / "kernel.so"
    path.write_bytes(library)
    text = subprocess.run(
        [compiler.llvm_objdump(), "-d", "-l", "--no-show-raw-insn", str(path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    body = re.search(rf"^[0-9a-f]+ <{function}>:\n(.*?)(?=^[0-9a-f]+ <|\Z)", text, re.MULTILINE | re.DOTALL)
    assert body, f"no function {function} in the library"
    return {(file, int(line)) for file, line in re.findall(r"^; (/\S+):(\d+)$", body.group(1), re.MULTILINE)}


def test_debug_compiles_at_O0_with_frame_pointers():
    optimized, debug = launch(), launch(debug=True)
    assert (optimized.metadata.debug, optimized.metadata.opt_level) == (False, 3)
    assert (debug.metadata.debug, debug.metadata.opt_level) == (True, 0)
    # The stored LLVM IR is what LLVM's -O0 pipeline makes of the translated kernel, not -O3's.
    host = targets.host()
    translated = _C.translate_to_llvmir(debug.asm["llmlir"], line_info=True)

    def optimized_at(level):
        return _C.optimize_llvmir(
            translated, host.triple, host.cpu, host.features, opt_level=level, debug=True
        )

    assert debug.asm["llir"] == optimized_at(0) != optimized_at(3)
    assert '"frame-pointer"="all"' in debug.asm["llir"]
    assert '"frame-pointer"="all"' not in optimized.asm["llir"]


def test_debug_keeps_an_explicit_opt_level():
    assert launch(debug=True, opt_level=2).metadata.opt_level == 2


def test_jit_debug_flag_compiles_at_O0():
    debug_axpy = triton.jit(axpy_kernel.fn, debug=True)
    x, y = torch.rand(100), torch.rand(100)
    out = torch.empty_like(x)
    kernel = debug_axpy[(1,)](x, y, out, 100, 3.0, BLOCK=128)
    torch.testing.assert_close(out, 3.0 * x + y)
    assert (kernel.metadata.debug, kernel.metadata.opt_level) == (True, 0)


@pytest.mark.parametrize("options", [{"debug": True}, {}], ids=["debug", "optimized"])
def test_line_table_points_at_kernel_source(options, tmp_path):
    kernel = launch(**options)
    lines = source_lines(kernel.asm["so"], "axpy_kernel", tmp_path)
    # Every instruction of the kernel maps to this file, within the kernel's source lines...
    assert {file for file, _ in lines} == {THIS_FILE}
    numbers = {line for _, line in lines}
    assert all(DEF_LINE <= line <= LAST_LINE for line in numbers), (numbers, DEF_LINE, LAST_LINE)
    # ...and the index computation, the loads and the store are there by line; at -O0 every
    # statement, although the compiler fuses them all into the loop of the store.
    assert {OFFS_LINE, STORE_LINE, *LOAD_LINES} <= numbers, numbers
    if options.get("debug"):
        assert STATEMENT_LINES <= numbers, (numbers, STATEMENT_LINES)
    # No location in the LLVM IR names another line of this file (as the positions in the
    # compiler's intermediate texts once did, on the phis of loops).
    dilocations = {int(line) for line in re.findall(r"!DILocation\(line: (\d+)", kernel.asm["llir"])}
    assert all(DEF_LINE <= line <= LAST_LINE for line in dilocations - {0}), dilocations


def test_triton_debug_env_var_compiles_at_O0(tmp_path):
    # TRITON_DEBUG is read once, when triton is imported: a process of its own.
    script = tmp_path / "child.py"
    script.write_text(
        textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {os.path.dirname(THIS_FILE)!r})
            import test_debug_build
            kernel = test_debug_build.launch()
            print(kernel.metadata.debug, kernel.metadata.opt_level)
        """)
    )
    env = dict(os.environ, TRITON_DEBUG="1", TRITON_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=False, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "0"]


GDB_SCRIPT = """\
set breakpoint pending on
set debuginfod enabled off
set auto-solib-add off
catch load axpy_kernel
run
sharedlibrary axpy_kernel
delete
break axpy_kernel
continue
next
next
kill
"""


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed (scripts/setup.sh installs it)")
def test_gdb_steps_through_kernel_source(tmp_path):
    # gdb stops in a debug kernel at its Python source line and steps from line to line.
    script = tmp_path / "child.py"
    script.write_text(
        textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {os.path.dirname(THIS_FILE)!r})
            import test_debug_build
            test_debug_build.launch(debug=True, num_threads=1)
        """)
    )
    commands = tmp_path / "commands.gdb"
    commands.write_text(GDB_SCRIPT)
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run(
        [
            "gdb",
            "-q",
            "-batch",
            "-iex",
            "set auto-load off",
            "-x",
            str(commands),
            "--args",
            sys.executable,
            str(script),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    out = result.stdout
    # The breakpoint: the kernel function at a line of this file...
    stop = re.search(r"axpy_kernel \(\) at (\S+):(\d+)\n(\d+)\t(.*)\n", out)
    assert stop, out + result.stderr
    assert THIS_FILE.endswith(stop.group(1))
    assert int(stop.group(2)) == int(stop.group(3))
    # ...and every line gdb showed there and after each `next` is the kernel's source text.
    shown = re.findall(r"^(\d+)\t(.*)$", out, re.MULTILINE)
    assert len(shown) >= 3, out
    for number, text in shown:
        assert DEF_LINE <= int(number) <= LAST_LINE, out
        assert SOURCE[int(number) - FIRST_LINE].rstrip() == text.rstrip()
