"""Reductions whose combine function is the kernel's own: a min/max written as compare and select
(torch inductor's triton_helpers.maximum and minimum), which the Linalg lowering turns into the
kind's one op (lit: triton-to-linalg-tensor.mlir), against torch, with NaN, infinities and signed
zeros in the rows."""

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def maximum_propagating_nan(a, b):
    mask = (a > b) | (a != a)  # noqa: PLR0124 - a != a: a is NaN, as inductor writes it
    return tl.where(mask, a, b)


@triton.jit
def minimum_by_select(a, b):
    return tl.where(b < a, b, a)


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Inductor's shape: a [1, BLOCK] tile of one row, reduced along axis 1.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=float("-inf"))
    result = tl.reduce(x, 1, maximum_propagating_nan)
    tl.store(out_ptr + row + tl.arange(0, 1), result)


@triton.jit
def row_min_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=2**31 - 1)
    tl.store(out_ptr + row, tl.reduce(x, 0, minimum_by_select))


def float_rows(n: int) -> torch.Tensor:
    x = torch.randn(8, n)
    x[1, n // 3] = float("nan")  # NaN propagates
    x[2, :] = float("-inf")
    x[3, :] = -torch.rand(n) - 1
    x[3, n - 1] = float("inf")
    x[4, :] = 0.0
    x[4, ::2] = -0.0
    x[5, 0] = float("nan")
    x[5, n - 1] = float("nan")
    return x


@pytest.mark.parametrize("n, block", [(1000, 1024), (2048, 2048), (37, 64)])
def test_max_by_compare_and_select_matches_torch(n, block):
    x = float_rows(n)
    out = torch.empty(8)
    row_max_kernel[(8,)](x, out, n, BLOCK=block)
    torch.testing.assert_close(out, torch.amax(x, 1), equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("n, block", [(1000, 1024), (256, 256)])
def test_min_by_select_of_integers_matches_torch(n, block):
    x = torch.randint(-(2**31), 2**31 - 1, (6, n), dtype=torch.int32)
    x[1, :] = 2**31 - 1
    x[2, n // 2] = -(2**31)
    out = torch.empty(6, dtype=torch.int32)
    row_min_kernel[(6,)](x, out, n, BLOCK=block)
    assert torch.equal(out, torch.amin(x, 1))


# Combines of several values, reduced in halves along axes of 8 or more (lit:
# triton-to-linalg-tensor.mlir, @reduce_in_halves): inductor's Welford mean and variance, and an
# argmax that keeps the first of equal maxima.


@triton.jit
def welford_combine(mean_a, m2_a, weight_a, mean_b, m2_b, weight_b):
    delta = mean_b - mean_a
    weight = weight_a + weight_b
    share = tl.where(weight == 0.0, 0.0, weight_b / weight)
    return mean_a + delta * share, m2_a + m2_b + delta * delta * weight_a * share, weight


@triton.jit
def row_var_mean_kernel(x_ptr, mean_ptr, var_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0)
    mean, m2, weight = tl.reduce((x, tl.zeros_like(x), mask.to(tl.float32)), 0, welford_combine)
    tl.store(mean_ptr + row, mean)
    tl.store(var_ptr + row, m2 / weight)


@triton.jit
def first_argmax_combine(value_a, index_a, value_b, index_b):
    pick_a = (value_a > value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(pick_a, value_a, value_b), tl.where(pick_a, index_a, index_b)


@triton.jit
def row_argmax_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=float("-inf"))
    _, index = tl.reduce((x, cols), 0, first_argmax_combine)
    tl.store(out_ptr + row, index)


@pytest.mark.parametrize("n, block", [(1000, 1024), (16, 16), (5, 8)])
def test_welford_var_mean_matches_torch(n, block):
    x = torch.randn(6, n) * 3 + 10
    mean, var = torch.empty(6), torch.empty(6)
    row_var_mean_kernel[(6,)](x, mean, var, n, BLOCK=block)
    want_var, want_mean = torch.var_mean(x.double(), 1, unbiased=False)
    torch.testing.assert_close(mean, want_mean.float(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(var, want_var.float(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("n, block", [(1000, 1024), (64, 64)])
def test_argmax_keeps_the_first_of_equal_maxima(n, block):
    x = torch.randint(0, 5, (8, n)).float()  # many ties
    x[3, :] = 1.0
    out = torch.empty(8, dtype=torch.int32)
    row_argmax_kernel[(8,)](x, out, n, BLOCK=block)
    assert torch.equal(out.long(), torch.argmax(x, 1))
