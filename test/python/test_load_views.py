"""Loads read in place (memref views) give the values a copy would have given.

A load of consecutive elements whose uses write nothing is a view of memory, read where it is
used (cpp/passes/LoadViews.h). These kernels use such loads across loops, in reductions, in 2-D
tiles, in every dtype, and next to stores that must keep them copies; results are compared with
torch on the same inputs.
"""

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def row_mean_var_kernel(X, Mean, Var, stride, N, BLOCK: tl.constexpr):
    # Tutorial layer norm's statistics: loads accumulated in loops over column blocks.
    row = tl.program_id(0)
    X += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        acc2 += x * x
    tl.store(Mean + row, mean)
    tl.store(Var + row, tl.sum(acc2, axis=0) / N)


@pytest.mark.parametrize("n", [256, 1000, 64])
def test_accumulated_loads(n):
    x = torch.randn(37, n)
    mean = torch.empty(37)
    var = torch.empty(37)
    row_mean_var_kernel[(37,)](x, mean, var, x.stride(0), n, BLOCK=128)
    torch.testing.assert_close(mean, x.mean(1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(var, x.var(1, unbiased=False), rtol=1e-4, atol=1e-5)


@triton.jit
def store_between_kernel(X, Out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(X + offs, tl.zeros([BLOCK], dtype=tl.float32))
    tl.store(Out + offs, x * 2.0)


def test_use_after_a_store_sees_old_values():
    x = torch.randn(64)
    old = x.clone()
    out = torch.empty(64)
    store_between_kernel[(1,)](x, out, BLOCK=64)
    torch.testing.assert_close(out, old * 2.0, rtol=0, atol=0)
    torch.testing.assert_close(x, torch.zeros(64), rtol=0, atol=0)


@triton.jit
def loop_writes_then_use_kernel(X, Out, n_iter, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    for i in range(n_iter):
        tl.store(X + offs, tl.load(X + offs) + 1.0)
    tl.store(Out + offs, x)


def test_use_after_a_loop_that_writes():
    x = torch.randn(32)
    old = x.clone()
    out = torch.empty(32)
    loop_writes_then_use_kernel[(1,)](x, out, 3, BLOCK=32)
    torch.testing.assert_close(out, old, rtol=0, atol=0)
    torch.testing.assert_close(x, old + 1.0 + 1.0 + 1.0, rtol=0, atol=0)


@triton.jit
def logsumexp_kernel(X, Out, stride, BLOCK: tl.constexpr):
    # Only reductions and elementwise ops between the load and the store of a scalar.
    row = tl.program_id(0)
    x = tl.load(X + row * stride + tl.arange(0, BLOCK)).to(tl.float32)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    tl.store(Out + row, m + tl.log(s))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_reductions_over_a_view(dtype):
    x = torch.randn(16, 256).to(dtype)
    out = torch.empty(16)
    logsumexp_kernel[(16,)](x, out, x.stride(0), BLOCK=256)
    torch.testing.assert_close(out, torch.logsumexp(x.float(), 1), rtol=1e-5, atol=1e-5)


@triton.jit
def tile_row_sums_kernel(X, Out, BM: tl.constexpr, BN: tl.constexpr):
    # Row stride BN: the tile's rows are consecutive, a 2-D view.
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    t = tl.load(X + rows[:, None] * BN + cols[None, :])
    tl.store(Out + rows, tl.sum(t, axis=1))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.float32])
def test_2d_tile_view(dtype):
    bm, bn = 8, 32
    x = (torch.randn(4 * bm, bn) * 10).to(dtype)
    out = torch.empty(4 * bm, dtype=dtype)
    tile_row_sums_kernel[(4,)](x, out, BM=bm, BN=bn)
    expected = x.sum(1).to(dtype) if dtype.is_floating_point else x.to(torch.int64).sum(1).to(dtype)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-4)


@triton.jit
def masked_tail_sum_kernel(X, Out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Out + pid, tl.sum(x * x, axis=0))


def test_masked_tail_programs_copy():
    # The last program's mask is partly off: it takes the copying version.
    n = 1000
    x = torch.randn(n)
    out = torch.empty(triton.cdiv(n, 128))
    masked_tail_sum_kernel[(out.numel(),)](x, out, n, BLOCK=128)
    padded = torch.zeros(out.numel() * 128)
    padded[:n] = x
    torch.testing.assert_close(out, (padded.view(-1, 128) ** 2).sum(1), rtol=1e-5, atol=1e-5)


@triton.jit
def row_softmax_kernel(X, Out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.load(X + offs, mask=offs < n, other=-float("inf"))
    num = tl.exp(row - tl.max(row, axis=0))
    tl.store(Out + offs, num / tl.sum(num, axis=0), mask=offs < n)


@pytest.mark.parametrize("shift", [0, 1, -3, 200])
@pytest.mark.parametrize("n", [128, 100])
def test_softmax_row_stored_over_itself(shift, n):
    # Out overlaps the row the program reads; each result comes from the old values.
    buf = torch.randn(1024)
    base = buf.clone()
    start = 400
    row_softmax_kernel[(1,)](buf[start:], buf[start + shift :], n, BLOCK=128)
    expected = base.clone()
    expected[start + shift : start + shift + n] = torch.softmax(base[start : start + n], 0)
    torch.testing.assert_close(buf, expected, rtol=1e-5, atol=1e-6)


@triton.jit
def centered_kernel(X, Out, BLOCK: tl.constexpr):
    # The store computes row - max in its own loop: the row must not be read there as Out is
    # written (a copy).
    offs = tl.arange(0, BLOCK)
    row = tl.load(X + offs)
    tl.store(Out + offs, row - tl.max(row, axis=0))


@pytest.mark.parametrize("shift", [0, 1, -1])
def test_store_computing_from_the_row_over_itself(shift):
    buf = torch.randn(256)
    base = buf.clone()
    start = 64
    centered_kernel[(1,)](buf[start:], buf[start + shift :], BLOCK=64)
    expected = base.clone()
    row = base[start : start + 64]
    expected[start + shift : start + shift + 64] = row - row.max()
    torch.testing.assert_close(buf, expected, rtol=0, atol=0)


@triton.jit
def strided_tile_kernel(X, Out, stride_m, stride_o, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # Rows a run-time stride apart: a strided view where the tile is whole, a copy under the
    # mask at the edges.
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    t = tl.load(X + rows[:, None] * stride_m + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    scale = tl.max(tl.abs(t), axis=1) + 1.0
    out = tl.sum(t * t, axis=1) / scale
    tl.store(Out + rows * stride_o, out, mask=rows < M)


@pytest.mark.parametrize("m,n", [(64, 32), (50, 32), (64, 20)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_strided_tile_view(m, n, dtype):
    big = torch.randn(m, 48).to(dtype)
    x = big[:, 8 : 8 + n]  # row stride 48, not the tile's width
    out = torch.empty(m * 2)
    strided_tile_kernel[(triton.cdiv(m, 16),)](x, out, x.stride(0), 2, m, n, BM=16, BN=32)
    xf = x.float()
    expected = (xf * xf).sum(1) / (xf.abs().amax(1) + 1.0)
    torch.testing.assert_close(out[::2], expected, rtol=1e-5, atol=1e-5)


@triton.jit
def square_then_loop_over_self_kernel(X, n, BLOCK: tl.constexpr):
    # x * x starts a loop that stores over x's own memory every iteration: the view of x is read
    # once, before the loop, so later iterations must not see the stores.
    offs = tl.arange(0, BLOCK)
    acc = tl.load(X + offs) * tl.load(X + offs)
    for _ in range(n):
        acc = acc + tl.load(X + BLOCK + offs)
        tl.store(X + offs, acc)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_loop_started_from_a_view_stores_over_it(n):
    block = 64
    x = torch.randn(2 * block)
    expected = x.clone()
    acc = expected[:block] * expected[:block]
    for _ in range(n):
        acc = acc + expected[block:]
        expected[:block] = acc
    square_then_loop_over_self_kernel[(1,)](x, n, BLOCK=block)
    torch.testing.assert_close(x, expected)


@triton.jit
def dot_over_k_kernel(
    A, B, C, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    # Each program: BM rows of A @ B over all of B's BN columns (the fused matmul + softmax's
    # shape), masked in every direction.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(
            A + rm[:, None] * stride_am + (k + rk)[None, :],
            mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            B + (k + rk)[:, None] * stride_bk + rn[None, :],
            mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * stride_cm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize(
    "n,b_width,k",
    [
        (256, 256, 96),  # B's tiles are blocks of whole rows: read in place
        (256, 320, 96),  # rows of a wider matrix: copied into a padded tile
        (200, 200, 96),  # columns masked: the general version's copy
        (256, 256, 80),  # the K tail masked
    ],
)
def test_dot_b_tiles_in_place_or_copied(n, b_width, k):
    m = 70
    a = torch.randn(m, k)
    b = torch.randn(k, b_width)[:, :n]
    c = torch.empty(m, n)
    compiled = dot_over_k_kernel[(triton.cdiv(m, 32),)](
        a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0), BM=32, BN=256, BK=32
    )
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
    # The B tile's copy (when its rows are not whole) has rows of 1 KiB padded by a cache line.
    assert "memref<32x272xf32>" in compiled.asm["linalg"]
