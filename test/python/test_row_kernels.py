"""Kernels that walk a row several times (Triton's tutorial softmax and layer norm) after
spine-fuse-element-loops merges the walks that pass values through a tile buffer and
spine-schedule-tile-prefetches moves the next rows' prefetches into the exponentials: results
against torch for rows narrower and wider than the block, several rows per program, one and two
threads; the code's shape (no library copy calls, the moved prefetches)."""

import re

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    # Tutorial 02: a persistent program walks every num_programs-th row.
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
        num = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def layer_norm_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    # Tutorial 05, forward.
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    _mean = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        _mean += tl.load(X + cols, mask=cols < N, other=0.0)
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    rstd = 1 / tl.sqrt(tl.sum(_var, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(X + cols, mask=mask, other=0.0)
        tl.store(
            Y + cols,
            (x - mean) * rstd * tl.load(W + cols, mask=mask) + tl.load(B + cols, mask=mask),
            mask=mask,
        )


@pytest.mark.parametrize("n_cols", [1, 100, 256, 1000, 4096])
@pytest.mark.parametrize("threads", [1, 2])
def test_softmax_rows(n_cols, threads):
    torch.manual_seed(n_cols)
    x = torch.randn(37, n_cols) * 10
    x[5, : n_cols // 2] = -float("inf")  # a row whose first half contributes nothing
    out = torch.empty_like(x)
    softmax_kernel[(4,)](
        out,
        x,
        x.stride(0),
        out.stride(0),
        37,
        n_cols,
        BLOCK=triton.next_power_of_2(n_cols),
        num_threads=threads,
    )
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


def test_softmax_in_place():
    # The store writes the row each program read: every walk over the row reads it before the
    # store does.
    torch.manual_seed(3)
    x = torch.randn(16, 512)
    expected = torch.softmax(x, dim=1)
    softmax_kernel[(3,)](x, x, x.stride(0), x.stride(0), 16, 512, BLOCK=512)
    torch.testing.assert_close(x, expected, rtol=1e-5, atol=1e-6)


def test_softmax_code_shape():
    x = torch.randn(64, 256)
    out = torch.empty_like(x)
    compiled = softmax_kernel[(8,)](out, x, x.stride(0), out.stride(0), 64, 256, BLOCK=256)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    # The row's copy stays a vector loop: LLVM made a memcpy call of it, which spilled every live
    # vector register around the call.
    assert not re.search(r"call\w*\s+(memcpy|memmove|memset)", compiled.asm["asm"])
    # The next rows are prefetched into L2 (locality 2) from the loop of exponentials, not into
    # L1 from the loop that reads the row.
    llir = compiled.asm["llir"]
    assert re.search(r"call void @llvm\.prefetch\.p0\(ptr [^)]*, i32 0, i32 2, i32 1\)", llir)
    assert not re.search(r"call void @llvm\.prefetch\.p0\(ptr [^)]*, i32 0, i32 3, i32 1\)", llir)


@pytest.mark.parametrize("n, block", [(1000, 1024), (4096, 4096), (3000, 1024), (5, 8)])
@pytest.mark.parametrize("threads", [1, 2])
def test_layer_norm_rows(n, block, threads):
    torch.manual_seed(n)
    M = 23
    x, w, b = torch.randn(M, n) * 3 + 1, torch.randn(n), torch.randn(n)
    y = torch.empty_like(x)
    mean, rstd = torch.empty(M), torch.empty(M)
    layer_norm_kernel[(M,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK=block, num_threads=threads)
    torch.testing.assert_close(y, torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(mean, x.mean(dim=1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(
        rstd, 1 / torch.sqrt(x.var(dim=1, unbiased=False) + 1e-5), rtol=1e-4, atol=1e-5
    )
