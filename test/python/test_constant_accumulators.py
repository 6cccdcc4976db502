"""Loops that carry a block starting as a constant (`acc = tl.zeros(...)`) keep their results.

The compiler runs such a loop's first iteration with the constant itself, under the loop's own
condition, then the rest of the loop from the next step (cpp/passes/PeelConstantAccumulators.cpp);
the block then lives in a stack buffer reused by every program and every outer iteration. Where
only reductions read the block (row_stats_kernel), each of zero, one and more trips has its own
version, and the one-trip version reduces its block without keeping it. These
kernels run those loops zero, one and many times, from run-time bounds, nested in persistent
loops, with several accumulators and constants other than zero; results are compared with torch.
"""

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(X, Sum, Max, SumSq, stride, N, BLOCK: tl.constexpr):
    # Three accumulators in one loop: a sum, a running maximum from -inf, a sum of squares.
    row = tl.program_id(0)
    X += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    big = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0)
        acc += x
        big = tl.maximum(big, tl.where(cols < N, x, float("-inf")))
        sq += x * x
    tl.store(Sum + row, tl.sum(acc, axis=0))
    tl.store(Max + row, tl.max(big, axis=0))
    tl.store(SumSq + row, tl.sum(sq, axis=0))


@pytest.mark.parametrize("n", [0, 1, 100, 128, 129, 1000])
def test_accumulators_over_runs_of_every_length(n):
    # BLOCK 128: no iteration (n = 0), one partial, one full, one and a bit, eight.
    rows = 5
    x = torch.randn(rows, max(n, 1))
    outs = [torch.full((rows,), 7.0) for _ in range(3)]
    row_stats_kernel[(rows,)](x, *outs, x.stride(0), n, BLOCK=128)
    part = x[:, :n]
    torch.testing.assert_close(outs[0], part.sum(1), rtol=1e-5, atol=1e-4)
    expected_max = part.max(1).values if n else torch.full((rows,), float("-inf"))
    torch.testing.assert_close(outs[1], expected_max)
    torch.testing.assert_close(outs[2], (part * part).sum(1), rtol=1e-5, atol=1e-4)


@triton.jit
def persistent_row_sum_kernel(X, Out, stride, M, N, BLOCK: tl.constexpr):
    # The accumulating loop nested in a persistent loop over rows: every row starts from zeros
    # again, though its block reuses one buffer.
    for row in range(tl.program_id(0), M, tl.num_programs(0)):
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            acc += tl.load(X + row * stride + cols, mask=cols < N, other=0.0)
        tl.store(Out + row, tl.sum(acc, axis=0))


@pytest.mark.parametrize("n", [0, 60, 64, 300])
def test_accumulator_in_persistent_loop(n):
    m = 23
    x = torch.randn(m, max(n, 1))
    out = torch.full((m,), 7.0)
    persistent_row_sum_kernel[(4,)](x, out, x.stride(0), m, n, BLOCK=64)
    torch.testing.assert_close(out, x[:, :n].sum(1), rtol=1e-5, atol=1e-4)


@triton.jit
def window_product_kernel(X, Out, start, end, step, BLOCK: tl.constexpr):
    # Run-time bounds and step, an integer product starting from ones: the first iteration is
    # `start`, whatever it is, and a loop with start >= end yields the ones.
    offs = tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], 1, dtype=tl.int32)
    for k in range(start, end, step):
        acc = acc * tl.load(X + k * BLOCK + offs)
    tl.store(Out + offs, acc)


@pytest.mark.parametrize("start,end,step", [(0, 5, 1), (2, 9, 3), (4, 5, 2), (3, 3, 1), (6, 2, 1)])
def test_runtime_bounds(start, end, step):
    block = 16
    x = torch.randint(-3, 4, (10, block), dtype=torch.int32)
    out = torch.zeros(block, dtype=torch.int32)
    window_product_kernel[(1,)](x, out, start, end, step, BLOCK=block)
    expected = torch.ones(block, dtype=torch.int32)
    for k in range(start, end, step):
        expected = expected * x[k]
    torch.testing.assert_close(out, expected)


@triton.jit
def scaled_sum_kernel(X, Out, N, BLOCK: tl.constexpr):
    # The accumulator is read before it is updated in the body (acc * 0.5 + x): the first
    # iteration sees the constant in a product too.
    offs = tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], 2.0, dtype=tl.float32)
    for k in range(N):
        acc = acc * 0.5 + tl.load(X + k * BLOCK + offs)
    tl.store(Out + offs, acc)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_accumulator_read_in_the_body(n):
    block = 32
    x = torch.randn(max(n, 1), block)
    out = torch.empty(block)
    scaled_sum_kernel[(1,)](x, out, n, BLOCK=block)
    expected = torch.full((block,), 2.0)
    for k in range(n):
        expected = expected * 0.5 + x[k]
    torch.testing.assert_close(out, expected)


@triton.jit
def branchy_accumulate_kernel(X, Out, n, BLOCK: tl.constexpr):
    # Blocks made in the branches of an `if` inside the loop: `t` lives within one iteration (its
    # buffer may be reused by the next), `acc` is carried from iteration to iteration through
    # the branches (its buffers must not be).
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(n):
        x = tl.load(X + k * BLOCK + offs)
        if k % 2 == 0:
            t = x * 2.0
        else:
            t = x - 1.0
        if k % 3 == 0:
            acc = acc + t
        else:
            acc = acc * 0.5 - t
    tl.store(Out + offs, acc)


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_branch_results_in_and_across_iterations(n):
    block = 64
    x = torch.randn(max(n, 1), block)
    out = torch.empty(block)
    branchy_accumulate_kernel[(1,)](x, out, n, BLOCK=block)
    expected = torch.zeros(block)
    for k in range(n):
        t = x[k] * 2.0 if k % 2 == 0 else x[k] - 1.0
        expected = expected + t if k % 3 == 0 else expected * 0.5 - t
    torch.testing.assert_close(out, expected)


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    # The larger value; the smaller index among equal ones (torch.argmax's choice).
    take_first = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take_first, v1, v2), tl.where(take_first, i1, i2)


@triton.jit
def running_argmax_kernel(X, Out, stride, N, BLOCK: tl.constexpr):
    # Two blocks carried together (each column slot's best value and its index), read only by one
    # reduction of both: the one-trip version reduces the first block's pair as it is made.
    row = tl.program_id(0)
    best = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    where = tl.zeros([BLOCK], dtype=tl.int32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + row * stride + cols, mask=cols < N, other=float("-inf"))
        better = x > best
        best = tl.where(better, x, best)
        where = tl.where(better, cols, where)
    _, index = tl.reduce((best, where), 0, _argmax_combine)
    tl.store(Out + row, index)


@pytest.mark.parametrize("n", [1, 100, 128, 300, 1000])
def test_running_argmax_over_blocks(n):
    rows = 7
    x = torch.randn(rows, n)
    out = torch.full((rows,), -1, dtype=torch.int32)
    running_argmax_kernel[(rows,)](x, out, x.stride(0), n, BLOCK=128)
    torch.testing.assert_close(out, x.argmax(1).int())
