"""Sums, scans and dots of fp16 and bf16 accumulate in f32 and round once per result
(spine-accumulate-narrow-floats): a sequential bf16 accumulator stops growing once the step is
below half its ulp (a cumsum of bf16 ones stopped at 256, a sum of 65536 of them at 16384), where a
GPU's tree order and torch's f32 accumulation give the exact result."""

import pytest
import torch
import triton
import triton.language as tl

NARROW = [torch.float16, torch.bfloat16]


@triton.jit
def sum_and_cumsum_kernel(x_ptr, sum_ptr, cumsum_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(sum_ptr, tl.sum(x, axis=0))
    tl.store(cumsum_ptr + tl.arange(0, N), tl.cumsum(x, axis=0))


@pytest.mark.parametrize("dtype", NARROW)
@pytest.mark.parametrize("n", [1024, 16384])
def test_sums_of_ones_are_exact(dtype, n):
    x = torch.ones(n, dtype=dtype)
    total, running = torch.zeros(1, dtype=dtype), torch.empty(n, dtype=dtype)
    sum_and_cumsum_kernel[(1,)](x, total, running, N=n)
    assert total.item() == n
    # Each prefix is an integer rounded once to the narrow type.
    assert torch.equal(running, torch.arange(1, n + 1, dtype=torch.float32).to(dtype))


@triton.jit
def scan_2d_kernel(
    x_ptr,
    out_ptr,
    M: tl.constexpr,
    N: tl.constexpr,
    AXIS: tl.constexpr,
    REVERSE: tl.constexpr,
    PROD: tl.constexpr,
):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    if PROD:
        y = tl.cumprod(x, axis=AXIS, reverse=REVERSE)
    else:
        y = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize("prod", [False, True], ids=["cumsum", "cumprod"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", NARROW)
def test_scans_round_once(dtype, axis, reverse, prod):
    torch.manual_seed(0)
    M, N = 32, 256
    if prod:  # factors near 1, so that products neither vanish nor overflow
        x = (1 + 0.05 * torch.randn(M, N)).to(dtype)
    else:
        x = torch.randn(M, N).to(dtype)
    out = torch.empty_like(x)
    scan_2d_kernel[(1,)](x, out, M=M, N=N, AXIS=axis, REVERSE=reverse, PROD=prod)
    op = torch.cumprod if prod else torch.cumsum
    wide = x.double().flip(axis) if reverse else x.double()
    want = op(wide, axis)
    want = want.flip(axis) if reverse else want
    # f32 accumulation then one rounding: within half a narrow ulp of the exact result, plus the
    # f32 accumulation's own error (at most n * 2^-24 of the magnitudes' sum or product).
    eps = torch.finfo(dtype).eps
    scale = want.abs() if prod else op(x.double().abs(), axis)
    bound = eps / 2 * want.abs() + x.shape[axis] * 2.0**-24 * scale
    assert bool(((out.double() - want).abs() <= bound).all())


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(out_ptr + row, tl.sum(x, axis=0))


@pytest.mark.parametrize("dtype", NARROW)
def test_row_sums_round_once(dtype):
    torch.manual_seed(1)
    x = (torch.rand(16, 8192) + 0.5).to(dtype)
    out = torch.empty(16, dtype=dtype)
    row_sum_kernel[(16,)](x, out, N=8192)
    want = x.double().sum(1)
    assert bool(((out.double() - want).abs() <= torch.finfo(dtype).eps * want).all())


@triton.jit
def dot_fp16_out_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, out_dtype=tl.float16))


def test_fp16_dot_into_fp16_rounds_once():
    torch.manual_seed(2)
    M, N, K = 32, 32, 256
    a, b = torch.randn(M, K, dtype=torch.float16), torch.randn(K, N, dtype=torch.float16)
    c = torch.empty(M, N, dtype=torch.float16)
    dot_fp16_out_kernel[(1,)](a, b, c, M=M, N=N, K=K)
    want = a.double() @ b.double()
    # Products of fp16 are exact in f32; the f32 sum of 256 of them is within K * 2^-24 of the
    # magnitudes' sum, and the one rounding to fp16 within half an ulp of the result.
    bound = torch.finfo(torch.float16).eps / 2 * want.abs() + K * 2.0**-24 * (
        a.double().abs() @ b.double().abs()
    )
    assert bool(((c.double() - want).abs() <= bound + 1e-6).all())
