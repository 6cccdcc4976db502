"""spine-block-grid-stride-loops: a persistent kernel's loop `for row in range(pid, n, programs)`
runs as blocks of consecutive rows per program when a run-time check finds its iterations
independent, and as written otherwise. Results against torch where the rows are independent
(separate and in-place outputs, masked and padded rows, fewer rows than programs), and against
the written order simulated in Python where they are not (rows that read the previous row, rows
whose outputs overlap): one thread runs the programs in pid order, so the written order is
deterministic and the blocked one would give other values."""

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
    expected = torch.full_like(out, -1.0)
    for row in written_order(programs, n_rows):
        expected[row * stride : row * stride + block] = float(row)
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
