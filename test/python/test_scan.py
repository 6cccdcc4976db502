"""Scans end to end against torch: tl.cumsum / tl.cumprod over dtypes, reverse scans, 2-D and 3-D
blocks along each axis, and tl.associative_scan with custom combine functions of one and two
values."""

import pytest
import torch
import triton
import triton.language as tl


def _reference_scan(x, dim, reverse, op):
    if reverse:
        return op(x.flip(dim), dim).flip(dim)
    return op(x, dim)


@triton.jit
def cumsum_1d_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, REVERSE: tl.constexpr):
    # One row per program, so the grid runs many scans in parallel.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0, reverse=REVERSE))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float16, torch.float64])
def test_cumsum_1d(dtype, reverse):
    # Small integer values: every prefix sum is exact, even in fp16.
    x = torch.randint(-4, 5, (16, 128)).to(dtype)
    out = torch.empty_like(x)
    cumsum_1d_kernel[(16,)](x, out, BLOCK=128, REVERSE=reverse)
    assert torch.equal(out, _reference_scan(x, 1, reverse, torch.cumsum).to(dtype))


def test_cumsum_fp32_random_values():
    x = torch.randn(8, 256)
    out = torch.empty_like(x)
    cumsum_1d_kernel[(8,)](x, out, BLOCK=256, REVERSE=False)
    torch.testing.assert_close(out, x.double().cumsum(1).float(), rtol=1e-5, atol=1e-4)


@triton.jit
def cumsum_int8_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # tl.cumsum widens int8 to int32, so the running sum does not wrap.
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


def test_cumsum_int8_accumulates_in_int32():
    x = torch.full((64,), 100, dtype=torch.int8)
    out = torch.empty(64, dtype=torch.int32)
    cumsum_int8_kernel[(1,)](x, out, BLOCK=64)
    assert torch.equal(out, torch.arange(1, 65, dtype=torch.int32) * 100)


@triton.jit
def cumprod_1d_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, REVERSE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumprod(tl.load(x_ptr + offs), axis=0, reverse=REVERSE))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cumprod_float(dtype, reverse):
    x = (1 + 0.05 * torch.randn(128)).to(dtype)
    out = torch.empty_like(x)
    cumprod_1d_kernel[(1,)](x, out, BLOCK=128, REVERSE=reverse)
    torch.testing.assert_close(out, _reference_scan(x, 0, reverse, torch.cumprod), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_int(reverse):
    # Products of -1, 1 and 2 (at most 2**20) are exact in int32.
    x = torch.tensor([-1, 1, 1, 2] * 8, dtype=torch.int32)[torch.randperm(32)]
    out = torch.empty_like(x)
    cumprod_1d_kernel[(1,)](x, out, BLOCK=32, REVERSE=reverse)
    assert torch.equal(out, _reference_scan(x, 0, reverse, torch.cumprod).to(torch.int32))


@triton.jit
def cumsum_2d_kernel(
    x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr
):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=AXIS, reverse=REVERSE))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [torch.int32, torch.float32])
def test_cumsum_2d_along_each_axis(axis, reverse, dtype):
    x = torch.randint(-50, 50, (16, 32)).to(dtype)
    out = torch.empty_like(x)
    cumsum_2d_kernel[(1,)](x, out, M=16, N=32, AXIS=axis, REVERSE=reverse)
    assert torch.equal(out, _reference_scan(x, axis, reverse, torch.cumsum).to(dtype))


@triton.jit
def cumsum_3d_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr):
    offs = (
        tl.arange(0, A)[:, None, None] * (B * C)
        + tl.arange(0, B)[None, :, None] * C
        + tl.arange(0, C)[None, None, :]
    )
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=AXIS))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_cumsum_3d_along_each_axis(axis):
    x = torch.randint(-50, 50, (4, 8, 16), dtype=torch.int32)
    out = torch.empty_like(x)
    cumsum_3d_kernel[(1,)](x, out, A=4, B=8, C=16, AXIS=axis)
    assert torch.equal(out, x.cumsum(axis).to(torch.int32))


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def running_max_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, REVERSE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.associative_scan(x, 0, _max_combine, reverse=REVERSE))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_running_max(dtype, reverse):
    x = torch.randn(256).mul(100).to(dtype)
    out = torch.empty_like(x)
    running_max_kernel[(1,)](x, out, BLOCK=256, REVERSE=reverse)
    expected = _reference_scan(x, 0, reverse, lambda t, d: torch.cummax(t, d).values)
    assert torch.equal(out, expected)


@triton.jit
def _linear_recurrence_combine(a_left, b_left, a_right, b_right):
    # (a, b) represents h -> a * h + b; composing left then right.
    return a_left * a_right, b_left * a_right + b_right


@triton.jit
def linear_recurrence_kernel(a_ptr, b_ptr, h_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), 0, _linear_recurrence_combine)
    tl.store(h_ptr + offs, h)


def test_two_value_scan_linear_recurrence():
    # h[t] = a[t] * h[t-1] + b[t] with h[-1] = 0: a combine that is not commutative.
    a, b = torch.rand(128) * 0.9, torch.randn(128)
    h = torch.empty(128)
    linear_recurrence_kernel[(1,)](a, b, h, BLOCK=128)
    expected, state = torch.empty(128, dtype=torch.float64), 0.0
    for t in range(128):
        state = a[t].item() * state + b[t].item()
        expected[t] = state
    torch.testing.assert_close(h.double(), expected, rtol=1e-5, atol=1e-5)


@triton.jit
def _argmax_combine(value_left, index_left, value_right, index_right):
    take_right = value_right > value_left
    return tl.where(take_right, value_right, value_left), tl.where(take_right, index_right, index_left)


@triton.jit
def running_argmax_kernel(x_ptr, value_ptr, index_ptr, M: tl.constexpr, N: tl.constexpr):
    # Scans along axis 0 of a 2-D block, carrying an int32 index next to the float value.
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    rows = tl.broadcast_to(tl.arange(0, M)[:, None], (M, N))
    value, index = tl.associative_scan((tl.load(x_ptr + offs), rows), 0, _argmax_combine)
    tl.store(value_ptr + offs, value)
    tl.store(index_ptr + offs, index)


def test_two_value_scan_running_argmax_along_axis0():
    x = torch.randn(32, 16)
    values, indices = torch.empty_like(x), torch.empty(32, 16, dtype=torch.int32)
    running_argmax_kernel[(1,)](x, values, indices, M=32, N=16)
    ref = torch.cummax(x, 0)
    assert torch.equal(values, ref.values)
    assert torch.equal(indices, ref.indices.to(torch.int32))


@triton.jit
def cumsum_plus_source_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # The scan updates its result in place; the source it started from must stay intact.
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0) + x)


def test_scan_source_is_unchanged_for_later_uses():
    x = torch.randint(-50, 50, (64,), dtype=torch.int32)
    out = torch.empty_like(x)
    cumsum_plus_source_kernel[(1,)](x, out, BLOCK=64)
    assert torch.equal(out, x.cumsum(0).to(torch.int32) + x)
