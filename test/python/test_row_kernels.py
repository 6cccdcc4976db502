"""Kernels that walk a row several times (Triton's tutorial softmax and layer norm) after
spine-fuse-element-loops merges the walks that pass values through a tile buffer and
spine-schedule-tile-prefetches moves the next rows' prefetches into the exponentials: results
against torch for rows narrower and wider than the block, several rows per program, one and two
threads; the code's shape (no library copy calls, the moved prefetches, the store walk's prefetches
of the program after next); tl.where on the column
index, whose walks spine-version-lane-bounds versions."""

import importlib.util
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

# The suite's kernels (Triton's tutorials 02 and 05, as bench/kernels.py measures them).
BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # bench/kernels.py imports bench/timing.py
_spec = importlib.util.spec_from_file_location("bench_kernels", BENCH / "kernels.py")
bench_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_kernels)
softmax_kernel = bench_kernels.softmax_kernel
layer_norm_kernel = bench_kernels.layer_norm_fwd_kernel


def softmax(out, x, n_rows, n_cols, programs, **options):
    return softmax_kernel[(programs,)](
        out,
        x,
        x.stride(0),
        out.stride(0),
        n_rows,
        n_cols,
        BLOCK_SIZE=triton.next_power_of_2(n_cols),
        num_stages=2,
        **options,
    )


@pytest.mark.parametrize("n_cols", [1, 100, 256, 1000, 4096, 8192, 10000, 16384])
@pytest.mark.parametrize("threads", [1, 2])
def test_softmax_rows(n_cols, threads):
    torch.manual_seed(n_cols)
    x = torch.randn(37, n_cols) * 10
    x[5, : n_cols // 2] = -float("inf")  # a row whose first half contributes nothing
    out = torch.empty_like(x)
    softmax(out, x, 37, n_cols, 4, num_threads=threads)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("programs", [37, 19, 36])
@pytest.mark.parametrize("threads", [1, 2])
def test_softmax_with_a_program_per_row_or_two(programs, threads):
    # The persistent loop makes one or two iterations: in its last, each program prefetches the
    # first row of the next (pid_x + 1, which has none after 36), not a row of its own.
    torch.manual_seed(programs)
    x = torch.randn(37, 4096) * 10
    out = torch.empty_like(x)
    compiled = softmax(out, x, 37, 4096, programs, num_threads=threads)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    assert NEXT_PROGRAM_PREFETCH.search(compiled.asm["llmlir"])


@pytest.mark.parametrize("n_cols", [512, 8192])
def test_softmax_in_place(n_cols):
    # The store writes the row each program read: every walk over the row reads it before the
    # store does (deferred to the next row's exponentials, which read another row).
    torch.manual_seed(3)
    x = torch.randn(16, n_cols)
    expected = torch.softmax(x, dim=1)
    softmax(x, x, 16, n_cols, 3)
    torch.testing.assert_close(x, expected, rtol=1e-5, atol=1e-6)


def sequential_softmax(buf, n_rows, input_row, output_row):
    """What one program computes over rows of `buf` that overlap: row r of the output (buf row
    output_row + r) from row r of the input (buf row input_row + r), in order."""
    buf = buf.clone()
    for r in range(n_rows):
        buf[output_row + r] = torch.softmax(buf[input_row + r], dim=0)
    return buf


@pytest.mark.parametrize("n_cols", [1000, 8192])
@pytest.mark.parametrize("input_row, output_row", [(0, 1), (1, 0), (0, 2)])
def test_softmax_rows_over_each_other(input_row, output_row, n_cols):
    # One program walks rows that overlap its output: with (0, 1) each row's output is the next
    # row's input, so the store walk deferred into the next row's exponentials
    # (spine-defer-store-walks) must store first (the run-time check); with (1, 0) and (0, 2) the
    # next row's input is not the pending output and the stores wait.
    torch.manual_seed(input_row * 3 + output_row)
    n_rows = 9
    buf = torch.randn(n_rows + 2, n_cols) * 5
    expected = sequential_softmax(buf, n_rows, input_row, output_row)
    x, out = buf[input_row : input_row + n_rows], buf[output_row : output_row + n_rows]
    softmax(out, x, n_rows, n_cols, 1, num_threads=1)
    torch.testing.assert_close(buf, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n_cols", [1000, 8192, 16384])
def test_softmax_defers_its_store_walk(n_cols):
    # Tutorial 02's row loop after spine-defer-store-walks carries the pending row's store walk
    # (a flag, first false, and its scalars) to the next iteration, for rows as wide as the
    # stack holds their exponentials.
    x = torch.randn(64, n_cols)
    out = torch.empty_like(x)
    compiled = softmax(out, x, 64, n_cols, 8)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    opt = Path(sysconfig.get_path("scripts")) / "spine-triton-opt"
    proc = subprocess.run(
        [
            str(opt),
            "--pass-pipeline=builtin.module(spine-triton-pipeline)",
            "--mlir-print-ir-after=spine-defer-store-walks",
            "-o",
            "/dev/null",
        ],
        input=compiled.asm["linalg"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert re.search(r"scf\.for %\w+ = .* iter_args\(%\w+ = %false", proc.stderr)


def test_softmax_code_shape():
    x = torch.randn(64, 256)
    out = torch.empty_like(x)
    compiled = softmax(out, x, 64, 256, 8)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    # The row is read in place (a view of memory) where a run-time check finds the output row
    # elsewhere; the other version copies it, a vector loop (LLVM made a memcpy call of it, which
    # spilled every live vector register around the call).
    assert "bufferization.to_tensor" in compiled.asm["linalg"]
    assert not re.search(r"call\w*\s+(memcpy|memmove|memset)", compiled.asm["asm"])
    # The next rows are prefetched into L2 (locality 2) from the loop of exponentials, not into
    # L1 from the loop that reads the row.
    llir = compiled.asm["llir"]
    assert re.search(r"call void @llvm\.prefetch\.p0\(ptr [^)]*, i32 0, i32 2, i32 1\)", llir)
    assert not re.search(r"call void @llvm\.prefetch\.p0\(ptr [^)]*, i32 0, i32 3, i32 1\)", llir)


@pytest.mark.parametrize("n, block", [(1000, 1024), (4096, 4096), (3000, 1024), (4096, 512), (5, 8)])
@pytest.mark.parametrize("threads", [1, 2])
def test_layer_norm_rows(n, block, threads):
    torch.manual_seed(n)
    M = 23
    x, w, b = torch.randn(M, n) * 3 + 1, torch.randn(n), torch.randn(n)
    y = torch.empty_like(x)
    mean, rstd = torch.empty(M), torch.empty(M)
    layer_norm_kernel[(M,)](
        x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=block, num_threads=threads
    )
    torch.testing.assert_close(y, torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(mean, x.mean(dim=1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(
        rstd, 1 / torch.sqrt(x.var(dim=1, unbiased=False) + 1e-5), rtol=1e-4, atol=1e-5
    )


def test_layer_norm_versions_share_stack_slots():
    # One compiled kernel (a block of 8192) run on rows of one block, of part of one and of three
    # blocks: three of its versions, whose row buffers share stack slots (spine-stack-buffers),
    # and the first again. Each call's results are its own.
    for n in (8192, 5000, 20000, 8192):
        torch.manual_seed(n)
        M = 3
        x, w, b = torch.randn(M, n) * 2 - 1, torch.randn(n), torch.randn(n)
        y = torch.empty_like(x)
        mean, rstd = torch.empty(M), torch.empty(M)
        layer_norm_kernel[(M,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=8192, num_threads=2)
        expected = torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)
        torch.testing.assert_close(y, expected, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(mean, x.mean(dim=1), rtol=1e-5, atol=1e-5)


def checked_layer_norm(M, n, threads=0):
    """Tutorial 05's layer norm over an M x n input, one block per row, checked against torch;
    returns the compiled kernel."""
    x, w, b = torch.randn(M, n), torch.randn(n), torch.randn(n)
    y = torch.empty_like(x)
    mean, rstd = torch.empty(M), torch.empty(M)
    compiled = layer_norm_kernel[(M,)](
        x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=n, num_threads=threads
    )
    torch.testing.assert_close(y, torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(mean, x.mean(1), rtol=1e-4, atol=1e-5)
    return compiled


def test_layer_norm_prefetches_the_next_programs_row():
    # One row per program: the loops that reduce the row also prefetch, into L2 (locality 2), the
    # row of pid_x + 1 (the launcher's next program on the thread), behind a check that it exists.
    compiled = checked_layer_norm(5, 4096)
    llmlir = compiled.asm["llmlir"]
    assert re.search(
        r'"?llvm\.intr\.prefetch"?\(%[^)]*\) <\{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32\}>', llmlir
    )
    assert re.search(r"prefetcht1\s", compiled.asm["asm"])


# An L2 prefetch as spine-vectorize-element-loops makes it for the next program (marked with how
# many programs ahead), and one spine-schedule-tile-prefetches shared out over the walks (unmarked).
NEXT_PROGRAM_PREFETCH = re.compile(
    r'"?llvm\.intr\.prefetch"?\(%[^)]*\) <\{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32\}> '
    r"\{spine\.next_program_prefetch = 1 : i64\}"
)
STORE_WALK_PREFETCH = re.compile(
    r'"?llvm\.intr\.prefetch"?\(%[^)]*\) <\{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32\}> :'
)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("M, n", [(5, 4096), (3, 8192), (4, 16384), (2, 4096), (1, 4096)])
def test_layer_norm_store_walk_prefetches_the_program_after_next(M, n, threads):
    # Rows of 8 KiB or more: the walks over a row of one block, the one that writes it included,
    # share out prefetches into L2 of pid_x + 2's row, behind a check that it exists (the last two
    # programs have none); the versions for rows of several blocks keep theirs of pid_x + 1.
    # 16384 floats keep their buffers on the heap, which the copies leave out.
    llmlir = checked_layer_norm(M, n, threads).asm["llmlir"]
    assert NEXT_PROGRAM_PREFETCH.search(llmlir)
    assert STORE_WALK_PREFETCH.search(llmlir)


def test_layer_norm_short_rows_get_no_store_walk_prefetches():
    # Rows under 8 KiB prefetch several programs ahead already (four for 512 floats): the store walk
    # gets no copy.
    llmlir = checked_layer_norm(6, 512).asm["llmlir"]
    assert re.search(r"spine\.next_program_prefetch = 4 : i64", llmlir)
    assert not STORE_WALK_PREFETCH.search(llmlir)


@triton.jit
def index_window_kernel(X, Y, lo, hi, BLOCK: tl.constexpr):
    # tl.where on the column index against run-time bounds on both sides, as layer norm's
    # `tl.where(cols < N, x - mean, 0.0)`: spine-version-lane-bounds gives the walk a copy without
    # the compares for when both hold on every column.
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols)
    inside = (cols >= lo) & (cols < hi)
    tl.store(Y + cols, tl.where(inside, x * 2.0, -1.0))


@pytest.mark.parametrize("lo, hi", [(0, 256), (-5, 1000), (0, 255), (1, 256), (100, 120), (7, 3)])
def test_where_on_index_bounds(lo, hi):
    x = torch.randn(256)
    y = torch.empty_like(x)
    index_window_kernel[(1,)](x, y, lo, hi, BLOCK=256)
    cols = torch.arange(256)
    expected = torch.where((cols >= lo) & (cols < hi), x * 2.0, -1.0)
    torch.testing.assert_close(y, expected, rtol=0, atol=0)
