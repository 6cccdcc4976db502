"""spine-block-grid-stride-loops: a persistent kernel's loop `for row in range(pid, n, programs)`
runs as blocks of consecutive rows per program when a run-time check finds its iterations
independent, and as written otherwise. Results against torch where the rows are independent
(separate and in-place outputs, masked and padded rows, fewer rows than programs), and against
the written order simulated in Python where they are not (rows that read the previous row, rows
whose outputs overlap): one thread runs the programs in pid order, so the written order is
deterministic and the blocked one would give other values. tl.range's GPU scheduling options
(num_stages, loop_unroll_factor, flatten, disallow_acc_multi_buffer) are accepted and change
nothing a CPU program computes."""

import os

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    # Tutorial 02's loop.
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=mask)


def softmax(out, x, programs, threads):
    n_rows, n_cols = x.shape
    softmax_rows[(programs,)](
        out, x, x.stride(0), out.stride(0), n_rows, n_cols,
        BLOCK=triton.next_power_of_2(n_cols), num_threads=threads,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("n_rows", "n_cols", "programs"),
    [(37, 100, 8), (64, 128, 3), (5, 64, 8), (1, 4096, 2), (0, 32, 4), (1000, 16, 7)],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_rows_to_a_separate_output(n_rows, n_cols, programs, threads):
    torch.manual_seed(n_rows)
    x = torch.randn(n_rows, n_cols) * 5
    out = torch.full_like(x, float("nan"))
    softmax(out, x, programs, threads)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n_cols", [64, 100, 1000])
@pytest.mark.parametrize("padded", [False, True])
def test_rows_in_place(n_cols, padded):
    # Each row writes only the bytes it reads: blocked rows are still the same kernel. Rows
    # narrower than the block overlap the next row's unmasked lanes, which the mask bounds.
    torch.manual_seed(n_cols)
    storage = torch.randn(50, n_cols + 7 if padded else n_cols) * 3
    x = storage[:, :n_cols]
    expected = torch.softmax(x, dim=1)
    untouched = storage[:, n_cols:].clone()
    softmax(x, x, 6, 2)
    torch.testing.assert_close(x, expected, rtol=1e-5, atol=1e-6)
    assert torch.equal(storage[:, n_cols:], untouched)


def test_tutorial_02_host_code_sizes_a_grid_of_one_program_per_core():
    # Tutorial 02 sizes its persistent grid from occupancy: the device's registers and shared
    # memory over what the compiled kernel uses, times the multiprocessors; then it launches the
    # compiled kernel directly. On a CPU that is one program per core.
    n_rows, n_cols, num_warps = 300, 200, 8
    device = triton.runtime.driver.active.get_active_torch_device()
    properties = triton.runtime.driver.active.utils.get_device_properties(device.index)
    x = torch.randn(n_rows, n_cols, device=device)
    out = torch.empty_like(x)
    kernel = softmax_rows.warmup(
        out, x, x.stride(0), out.stride(0), n_rows, n_cols, BLOCK=256, num_warps=num_warps,
        grid=(1,),
    )  # fmt: skip
    kernel._init_handles()
    occupancy = properties["max_num_regs"] // (kernel.n_regs * properties["warpSize"] * num_warps)
    occupancy = min(occupancy, properties["max_shared_mem"] // kernel.metadata.shared)
    num_programs = min(properties["multiprocessor_count"] * occupancy, n_rows)
    assert num_programs == len(os.sched_getaffinity(0))
    kernel[(num_programs, 1, 1)](out, x, x.stride(0), out.stride(0), n_rows, n_cols, 256)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


@triton.jit
def layer_norm_rows(out_ptr, in_ptr, w_ptr, stride, n_rows, n_cols, eps, BLOCK: tl.constexpr):
    # Rows wider than the block: loops over column blocks inside the grid-stride loop.
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, n_cols, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            acc += tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        mean = tl.sum(acc, axis=0) / n_cols
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, n_cols, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
            centered = tl.where(cols < n_cols, x - mean, 0.0)
            acc += centered * centered
        rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
        for off in range(0, n_cols, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            mask = cols < n_cols
            x = tl.load(in_ptr + row * stride + cols, mask=mask, other=0.0)
            w = tl.load(w_ptr + cols, mask=mask)
            tl.store(out_ptr + row * stride + cols, (x - mean) * rstd * w, mask=mask)


@pytest.mark.parametrize(("n_cols", "block"), [(100, 64), (1000, 256), (64, 64)])
@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_rows_wider_than_the_block(n_cols, block, in_place, threads):
    torch.manual_seed(n_cols)
    x = torch.randn(29, n_cols) * 2 + 1
    w = torch.rand(n_cols)
    expected = torch.nn.functional.layer_norm(x, (n_cols,), w, None, 1e-5)
    out = x if in_place else torch.full_like(x, float("nan"))
    layer_norm_rows[(3,)](out, x, w, n_cols, 29, n_cols, 1e-5, BLOCK=block, num_threads=threads)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)


@triton.jit
def add_previous_row(out_ptr, n_rows, BLOCK: tl.constexpr):
    # Row r reads row r - 1, which another program writes: the written order decides.
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        previous = tl.load(out_ptr + (row - 1) * BLOCK + cols, mask=(cols < BLOCK) & (row > 0))
        tl.store(out_ptr + row * BLOCK + cols, previous + 1.0)


def written_order(programs, n_rows):
    """The rows in the order one thread runs them as the kernel is written."""
    return [row for pid in range(programs) for row in range(pid, n_rows, programs)]


def test_rows_reading_another_row_keep_the_written_order():
    n_rows, block, programs = 40, 16, 4
    out = torch.zeros(n_rows, block)
    add_previous_row[(programs,)](out, n_rows, BLOCK=block, num_threads=1)
    expected = torch.zeros(n_rows, block)
    for row in written_order(programs, n_rows):
        expected[row] = (expected[row - 1] if row > 0 else 0.0) + 1.0
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    # Blocked rows would have added up row after row.
    assert not torch.equal(out[:, 0], torch.arange(1.0, n_rows + 1))


def row_numbers_in_written_order(programs, n_rows, stride, width, size):
    """What rows that each write their number over `width` elements, `stride` apart, leave in
    a buffer of `size` elements (else -1) when they run in the written order."""
    expected = torch.full((size,), -1.0)
    for row in written_order(programs, n_rows):
        expected[row * stride : row * stride + width] = float(row)
    return expected


@triton.jit
def write_row_number(out_ptr, out_stride, n_rows, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        values = tl.zeros([BLOCK], dtype=tl.float32) + row.to(tl.float32)
        tl.store(out_ptr + row * out_stride + cols, values)


def test_rows_whose_outputs_overlap_keep_the_written_order():
    # Row r's 8 elements start 4 after row r - 1's: the last row written wins each element.
    n_rows, block, stride, programs = 21, 8, 4, 3
    out = torch.full((n_rows * stride + block,), -1.0)
    write_row_number[(programs,)](out, stride, n_rows, BLOCK=block, num_threads=1)
    expected = row_numbers_in_written_order(programs, n_rows, stride, block, out.numel())
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


@triton.jit
def write_row_number_in_blocks(out_ptr, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        for off in range(0, n_cols, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            values = tl.zeros([BLOCK], dtype=tl.float32) + row.to(tl.float32)
            tl.store(out_ptr + row * out_stride + cols, values, mask=cols < n_cols)


def test_rows_whose_column_blocks_overlap_keep_the_written_order():
    # Each row writes 24 elements in blocks of 8, starting 10 after the previous row's.
    n_rows, n_cols, stride, programs = 17, 24, 10, 4
    out = torch.full((n_rows * stride + n_cols,), -1.0)
    write_row_number_in_blocks[(programs,)](out, stride, n_rows, n_cols, BLOCK=8, num_threads=1)
    expected = row_numbers_in_written_order(programs, n_rows, stride, n_cols, out.numel())
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


@triton.jit
def double_rows_plus_row_number(out_ptr, stride, shift, n_rows, BLOCK: tl.constexpr):
    # Only rows 1 and 4 are active; `row * stride + shift` is computed in 32 bits.
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        mask = ((row == 1) | (row == 4)) & (cols < BLOCK)
        at = out_ptr + (row * stride + shift) + cols
        tl.store(at, tl.load(at, mask=mask) * 2.0 + row.to(tl.float32), mask=mask)


def test_rows_whose_32_bit_offsets_wrap_keep_the_written_order():
    # 3 * stride == 1 (mod 2^32): in 32 bits row 4 starts one element after row 1, far apart as
    # integers. Written, program 0 takes rows 0, 2, 4 before program 1 takes 1, 3, 5: row 4
    # first; blocked, row 1 would run first, and the overlapping elements would differ.
    stride = -1431655765
    n_rows, block, programs = 6, 8, 2
    out = torch.zeros(2 * block)
    double_rows_plus_row_number[(programs,)](
        out, stride, -stride, n_rows, BLOCK=block, num_threads=1
    )  # fmt: skip
    expected = torch.zeros_like(out)
    for row in written_order(programs, n_rows):
        if row in (1, 4):
            start = (row * stride - stride + 2**31) % 2**32 - 2**31
            expected[start : start + block] = expected[start : start + block] * 2.0 + row
    assert expected[1] != 2.0 * (2.0 * 0.0 + 1.0) + 4.0  # the blocked order's value
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


def test_the_loop_is_versioned():
    x = torch.randn(8, 32)
    out = torch.empty_like(x)
    compiled = softmax_rows.warmup(
        out, x, 32, 32, 8, 32, BLOCK=32, grid=(4,), num_threads=1
    )  # fmt: skip
    # The blocked version's bounds, ceil(n_rows / programs) rows per program: the kernel itself
    # divides nothing.
    assert "arith.ceildivsi" in compiled.asm["linalg"]
    w = torch.rand(32)
    compiled = layer_norm_rows.warmup(out, x, w, 32, 8, 32, 1e-5, BLOCK=16, grid=(4,), num_threads=1)
    assert "arith.ceildivsi" in compiled.asm["linalg"]


@triton.jit
def column_sums_with_range_options(
    out_ptr, in_ptr, n_rows, n_cols, UNROLL: tl.constexpr, BLOCK: tl.constexpr
):
    # tl.range's GPU scheduling options, on the grid-stride loop and on the loop inside it.
    for col0 in tl.range(
        tl.program_id(0) * BLOCK, n_cols, tl.num_programs(0) * BLOCK, num_stages=2, flatten=True
    ):
        cols = col0 + tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], tl.float32)
        for row in tl.range(
            0, n_rows, loop_unroll_factor=UNROLL, num_stages=3, disallow_acc_multi_buffer=True
        ):
            acc += tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        tl.store(out_ptr + cols, acc, mask=cols < n_cols)


@pytest.mark.parametrize("unroll", [1, 3, 4, 8])
def test_range_scheduling_options_leave_results_unchanged(unroll):
    # 37 rows: no unroll factor divides the trip count; 100 columns in blocks of 16 over 3
    # programs: the grid-stride loop runs 2 or 3 times per program, the last block masked.
    x = torch.randn(37, 100)
    out = torch.empty(100)
    column_sums_with_range_options[(3,)](out, x, 37, 100, UNROLL=unroll, BLOCK=16, num_threads=2)
    torch.testing.assert_close(out, x.sum(0), rtol=1e-5, atol=1e-5)
