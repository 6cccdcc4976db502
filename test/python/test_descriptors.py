"""Tensor descriptors end to end against torch: in-kernel tl.make_tensor_descriptor and host-side
TensorDescriptor arguments; blocks crossing the tensor's edges read zero (or NaN) there and write
nothing there, which the tests check on a guard region around every tensor."""

import struct

import pytest
import torch
import triton
import triton.language as tl
from spine_triton.driver import make_arg_packer
from triton.runtime import _allocation
from triton.tools.tensor_descriptor import TensorDescriptor

# Fills the guard region around a tensor: any write outside the tensor shows up as a changed value.
GUARD = -7


def guarded(shape, ld, dtype, fill=GUARD):
    """A tensor of `shape` whose rows are `ld` elements apart inside a larger buffer pre-filled with
    `fill`: the buffer, and the view of the tensor in it."""
    buf = torch.full((shape[0] + 3, ld), fill, dtype=dtype)
    return buf, buf[: shape[0], : shape[1]]


def outside(buf, shape):
    """The guard region of `buf` around a tensor of `shape` at its top left, as one flat tensor."""
    mask = torch.ones(buf.shape, dtype=torch.bool)
    mask[: shape[0], : shape[1]] = False
    return buf[mask]


def random(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape).to(dtype)
    return torch.randint(-1000, 1000, shape, dtype=dtype)


@triton.jit
def scale_kernel(x_ptr, y_ptr, M, N, ldx, ldy, alpha, BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[ldx, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[ldy, 1], block_shape=[BM, BN])
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    tile = x_desc.load([off_m, off_n])
    y_desc.store([off_m, off_n], tile * alpha)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
@pytest.mark.parametrize("shape", [(37, 45), (64, 64), (5, 17)])
def test_scale_2d_blocks_cross_edges(dtype, shape):
    torch.manual_seed(0)
    M, N = shape
    BM, BN = 16, 16
    x = random(shape, dtype)
    ybuf, y = guarded(shape, 72, dtype)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    scale_kernel[grid](x, y, M, N, x.stride(0), y.stride(0), 3, BM=BM, BN=BN)
    torch.testing.assert_close(y, x * 3, rtol=0, atol=0)
    assert torch.all(outside(ybuf, shape) == GUARD)


@triton.jit
def read_block_kernel(x_ptr, out_ptr, M, N, ldx, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr):
    # One block of a descriptor read at (off_m, off_n), written whole with plain pointer stores.
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[ldx, 1], block_shape=[BM, BN])
    tile = desc.load([off_m, off_n])
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, tile)


@triton.jit
def read_block_nan_kernel(x_ptr, out_ptr, M, N, ldx, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(
        x_ptr, shape=[M, N], strides=[ldx, 1], block_shape=[BM, BN], padding_option="nan"
    )
    tile = desc.load([off_m, off_n])
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, tile)


def expected_block(x, off_m, off_n, bm, bn, pad):
    """The block at (off_m, off_n) of `x`, `pad` where it leaves the tensor (offsets may be negative)."""
    out = torch.full((bm, bn), pad, dtype=x.dtype)
    for i in range(bm):
        for j in range(bn):
            r, c = off_m + i, off_n + j
            if 0 <= r < x.shape[0] and 0 <= c < x.shape[1]:
                out[i, j] = x[r, c]
    return out


# Inside, across the bottom-right corner, entirely outside, and before the start (negative offsets).
OFFSETS = [(0, 0), (8, 12), (40, 0), (-5, -3), (3, -16)]


@pytest.mark.parametrize("off", OFFSETS)
def test_load_pads_with_zero(off):
    # The tensor is a view into a buffer of non-zero values: zeros can only come from the padding.
    buf = torch.rand(24, 32) + 1
    x = buf[:13, :20]
    out = torch.empty(16, 16)
    read_block_kernel[(1,)](x, out, 13, 20, x.stride(0), *off, BM=16, BN=16)
    torch.testing.assert_close(out, expected_block(x, *off, 16, 16, 0.0), rtol=0, atol=0)


@pytest.mark.parametrize("off", OFFSETS)
def test_load_pads_with_nan(off):
    buf = torch.rand(24, 32) + 1
    x = buf[:13, :20]
    out = torch.empty(16, 16)
    read_block_nan_kernel[(1,)](x, out, 13, 20, x.stride(0), *off, BM=16, BN=16)
    torch.testing.assert_close(
        out, expected_block(x, *off, 16, 16, float("nan")), rtol=0, atol=0, equal_nan=True
    )


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("mnk", [(64, 64, 64), (100, 76, 52), (33, 130, 72)])
def test_matmul_k_loop(dtype, mnk):
    torch.manual_seed(1)
    M, N, K = mnk
    a, b = torch.randn(M, K).to(dtype), torch.randn(K, N).to(dtype)
    c = torch.empty(M, N)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    matmul_kernel[grid](a, b, c, M, N, K, BM=32, BN=32, BK=16)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-4, atol=1e-3)


@triton.jit
def host_copy_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    out_desc.store([off_m, off_n], in_desc.load([off_m, off_n]) + 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_host_descriptor_arguments(dtype):
    shape = (29, 19)
    x = random(shape, dtype)
    _, xv = guarded(shape, 24, dtype)
    xv.copy_(x)
    ybuf, y = guarded(shape, 40, dtype)
    in_desc = TensorDescriptor(xv, list(shape), list(xv.stride()), [8, 16])
    out_desc = TensorDescriptor(y, list(shape), list(y.stride()), [8, 16])
    host_copy_kernel[(triton.cdiv(29, 8), triton.cdiv(19, 16))](in_desc, out_desc, BM=8, BN=16)
    torch.testing.assert_close(y, x + 1, rtol=0, atol=0)
    assert torch.all(outside(ybuf, shape) == GUARD)


def test_host_descriptor_slots():
    # docs/kernel-abi.md: base, shape, strides, NaN padding, then the TTIR's .shape.N and .stride.N.
    x = torch.zeros(8, 24)
    desc = TensorDescriptor(x, [8, 20], [24, 1], [8, 16], padding="nan")
    packed = make_arg_packer(["tensordesc<fp32[8, 16]>", "i32"])(desc, 5)
    assert struct.unpack("<Q10q", packed) == (x.data_ptr(), 8, 20, 24, 1, 1, 8, 20, 24, 1, 5)


@triton.jit
def host_read_block_kernel(desc, out_ptr, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr):
    tile = desc.load([off_m, off_n])
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, tile)


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_host_descriptor_padding(padding):
    buf = torch.rand(24, 32) + 1
    x = buf[:13, :20]
    pad = 0.0 if padding == "zero" else float("nan")
    # One compiled kernel serves both paddings: the padding is a launch argument.
    for off in OFFSETS:
        desc = TensorDescriptor(x, [13, 20], list(x.stride()), [16, 16], padding=padding)
        out = torch.empty(16, 16)
        host_read_block_kernel[(1,)](desc, out, *off, BM=16, BN=16)
        torch.testing.assert_close(out, expected_block(x, *off, 16, 16, pad), rtol=0, atol=0, equal_nan=True)


@triton.jit
def host_atomic_add_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    # Every program adds its block to the same output block.
    x = in_desc.load([tl.program_id(0) * BM, 0])
    out_desc.atomic_add([0, 0], x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_host_descriptor_atomic_add(dtype):
    programs = 32
    x = torch.randint(-50, 50, (programs * 8, 16)).to(dtype)
    out = torch.zeros(8, 16, dtype=dtype)
    in_desc = TensorDescriptor.from_tensor(x, [8, 16])
    out_desc = TensorDescriptor.from_tensor(out, [8, 16])
    host_atomic_add_kernel[(programs,)](in_desc, out_desc, BM=8, BN=16)
    assert torch.equal(out, x.reshape(programs, 8, 16).sum(0).to(dtype))


@triton.jit
def atomic_minmax_kernel(x_ptr, mn_ptr, mx_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    mn = tl.make_tensor_descriptor(mn_ptr, shape=[BM, N], strides=[N, 1], block_shape=[BM, BN])
    mx = tl.make_tensor_descriptor(mx_ptr, shape=[BM, N], strides=[N, 1], block_shape=[BM, BN])
    x = x_desc.load([tl.program_id(0) * BM, 0])
    mn.atomic_min([0, 0], x)
    mx.atomic_max([0, 0], x)


def exact_int64(t):
    """The values of an int32 or uint32 tensor as int64."""
    if t.dtype == torch.uint32:
        return t.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    return t.to(torch.int64)


@pytest.mark.parametrize("dtype", [torch.int32, torch.uint32])
def test_atomic_min_max(dtype):
    programs = 16
    # Values of either sign bit: they order differently as signed and as unsigned integers.
    bits = torch.randint(-(2**31), 2**31, (programs * 8, 16), dtype=torch.int64).to(torch.int32)
    x = bits.view(dtype)
    mn, mx = x[:8].clone(), x[:8].clone()
    atomic_minmax_kernel[(programs,)](x, mn, mx, programs * 8, 16, BM=8, BN=16)
    blocks = exact_int64(x).reshape(programs, 8, 16)
    assert torch.equal(exact_int64(mn), blocks.amin(0))
    assert torch.equal(exact_int64(mx), blocks.amax(0))


@triton.jit
def copy_1d_kernel(x_ptr, y_ptr, n, B: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[n], strides=[1], block_shape=[B])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[n], strides=[1], block_shape=[B])
    off = tl.program_id(0) * B
    y_desc.store([off], x_desc.load([off]) * 2)


def test_1d():
    n = 1000
    x = torch.randn(n)
    ybuf = torch.full((n + 64,), float(GUARD))
    copy_1d_kernel[(triton.cdiv(n, 64),)](x, ybuf, n, B=64)
    torch.testing.assert_close(ybuf[:n], x * 2, rtol=0, atol=0)
    assert torch.all(ybuf[n:] == GUARD)


@triton.jit
def copy_3d_kernel(
    x_ptr, y_ptr, D0, D1, D2, sx0, sx1, sy0, sy1, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr
):
    x_desc = tl.make_tensor_descriptor(
        x_ptr, shape=[D0, D1, D2], strides=[sx0, sx1, 1], block_shape=[B0, B1, B2]
    )
    y_desc = tl.make_tensor_descriptor(
        y_ptr, shape=[D0, D1, D2], strides=[sy0, sy1, 1], block_shape=[B0, B1, B2]
    )
    offs = [tl.program_id(0) * B0, tl.program_id(1) * B1, tl.program_id(2) * B2]
    y_desc.store(offs, x_desc.load(offs) - 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_3d(dtype):
    shape = (5, 9, 11)
    x = random(shape, dtype)
    ybuf = torch.full((6, 12, 16), GUARD, dtype=dtype)
    y = ybuf[:5, :9, :11]
    grid = (triton.cdiv(5, 2), triton.cdiv(9, 4), triton.cdiv(11, 8))
    copy_3d_kernel[grid](x, y, *shape, x.stride(0), x.stride(1), y.stride(0), y.stride(1), B0=2, B1=4, B2=8)
    torch.testing.assert_close(y, x - 1, rtol=0, atol=0)
    mask = torch.ones(ybuf.shape, dtype=torch.bool)
    mask[:5, :9, :11] = False
    assert torch.all(ybuf[mask] == GUARD)


@triton.jit
def gather_scatter_kernel(src_ptr, dst_ptr, idx_ptr, M, N, R: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(src_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BN])
    dst = tl.make_tensor_descriptor(dst_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BN])
    rows = tl.load(idx_ptr + tl.arange(0, R))
    col = tl.program_id(0) * BN
    dst.scatter(src.gather(rows, col) + 1.0, rows, col)


def test_gather_scatter():
    M, N = 20, 40
    src = torch.randn(M, N)
    dst = torch.zeros(M, N)
    # Rows past the end and negative rows are out of bounds: they read zero and are not written.
    idx = torch.tensor([3, 0, 19, 7, 25, -1, 11, 5], dtype=torch.int32)
    gather_scatter_kernel[(triton.cdiv(N, 32),)](src, dst, idx, M, N, R=8, BN=32)
    ref = torch.zeros(M, N)
    for r in idx.tolist():
        if 0 <= r < M:
            ref[r] = src[r] + 1
    torch.testing.assert_close(dst, ref, rtol=0, atol=0)


@triton.jit(noinline=True)
def scale_block(desc, off, alpha):
    desc.store([off], desc.load([off]) * alpha)


@triton.jit(noinline=True)
def make_desc(ptr, n, B: tl.constexpr):
    return tl.make_tensor_descriptor(ptr, shape=[n], strides=[1], block_shape=[B])


@triton.jit
def call_kernel(x_ptr, n, B: tl.constexpr):
    # A descriptor returned by one call and passed to another (both kept as calls).
    scale_block(make_desc(x_ptr, n, B), tl.program_id(0) * B, 5.0)


def test_descriptor_through_calls():
    n = 100
    xbuf = torch.full((128,), float(GUARD))
    x = torch.randn(n)
    xbuf[:n] = x
    call_kernel[(triton.cdiv(n, 32),)](xbuf, n, B=32)
    torch.testing.assert_close(xbuf[:n], x * 5, rtol=0, atol=0)
    assert torch.all(xbuf[n:] == GUARD)


@triton.jit
def loop_carried_kernel(a_ptr, b_ptr, out_ptr, N, steps, B: tl.constexpr):
    # The descriptor is loop-carried: it switches from a to b after the first step.
    desc = tl.make_tensor_descriptor(a_ptr, shape=[N], strides=[1], block_shape=[B])
    acc = tl.zeros((B,), dtype=tl.float32)
    for _ in range(steps):
        acc += desc.load([tl.program_id(0) * B])
        desc = tl.make_tensor_descriptor(b_ptr, shape=[N], strides=[1], block_shape=[B])
    tl.store(out_ptr + tl.program_id(0) * B + tl.arange(0, B), acc)


def test_loop_carried_descriptor():
    n = 96
    a, b = torch.randn(n), torch.randn(n)
    out = torch.empty(128)
    loop_carried_kernel[(2,)](a, b, out, n, 4, B=64)
    ref = torch.cat([a + 3 * b, torch.zeros(128 - n)])
    torch.testing.assert_close(out, ref)


def test_no_allocator_needed():
    # GPUs need triton.set_allocator for in-kernel descriptors; the CPU backend keeps descriptors
    # in registers and must never ask for scratch memory.
    calls = []

    def allocator(size, alignment, stream):
        calls.append(size)
        return torch.empty(size, dtype=torch.int8)

    x = torch.randn(40, 40)
    y = torch.empty_like(x)
    previous = _allocation._allocator.get()
    triton.set_allocator(allocator)
    try:
        scale_kernel[(3, 3)](x, y, 40, 40, 40, 40, 2.0, BM=16, BN=16)
    finally:
        triton.set_allocator(previous)
    torch.testing.assert_close(y, x * 2)
    assert calls == []
