"""Accesses kept in bounds with remainders, `(pid * BLOCK + arange) % n`, and masks, `offs < n`, as
GPU kernels write them. Each access is compiled twice (AccessVersions.h): a version where the
remainders are their dividends and the masks are left out, taken when bounds checked at run time
prove that changes nothing, and the general one. These kernels make both versions run, in the same
launch, and compare with torch."""

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def wrapped_copy_kernel(x_ptr, out_ptr, n, shift, BLOCK: tl.constexpr, UNSIGNED: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK) + shift
    if UNSIGNED:
        src = offs.to(tl.uint32) % n.to(tl.uint32)
    else:
        src = offs % n
    x = tl.load(x_ptr + src, mask=src >= 0, other=-1.0)
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), x)


@pytest.mark.parametrize("unsigned", [False, True])
@pytest.mark.parametrize(
    ("n", "shift"),
    [
        (256, 0),  # no program wraps: only the version without remainders runs
        (200, 0),  # the last programs wrap
        (48, 0),  # n below BLOCK: every program wraps
        (256, -40),  # negative dividends in the first program (remsi keeps their sign)
        (256, 2**31 - 100),  # dividends overflow int32 inside a block
    ],
)
def test_wrapped_copy(n, shift, unsigned):
    block, programs = 64, 4
    x = torch.arange(n, dtype=torch.float32) * 0.5
    out = torch.empty(programs * block)
    wrapped_copy_kernel[(programs,)](x, out, n, shift, BLOCK=block, UNSIGNED=unsigned)
    # The dividends as int32 arithmetic computes them (wrapping), then the remainder: remui reads
    # them as unsigned, remsi keeps the dividend's sign.
    offs = (torch.arange(programs * block, dtype=torch.int64) + shift + 2**31) % 2**32 - 2**31
    src = (offs % 2**32) % n if unsigned else torch.fmod(offs, n)
    ref = torch.full((programs * block,), -1.0)
    valid = src >= 0
    ref[valid] = x[src[valid]]
    torch.testing.assert_close(out, ref, rtol=0, atol=0)


@triton.jit
def wrapped_tile_store_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rows = (pid_m * BM + tl.arange(0, BM)) % M
    cols = (pid_n * BN + tl.arange(0, BN)) % N
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    # Every program writes its tile back where it read it, wrapped the same way.
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], x * 2.0)


@pytest.mark.parametrize(("M", "N"), [(64, 64), (50, 64), (64, 40), (30, 20)])
def test_wrapped_tile_store(M, N):
    x = torch.randn(M, N)
    out = torch.zeros(M, N)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    wrapped_tile_store_kernel[grid](x, out, M, N, BM=32, BN=32)
    torch.testing.assert_close(out, x * 2.0, rtol=0, atol=0)


@triton.jit
def scaled_rows_kernel(x_ptr, out_ptr, M, K: tl.constexpr, BM: tl.constexpr):
    pid = tl.program_id(0)
    # The dividend is a product and a sum: rows * 3 + 1, then the remainder.
    rows = (pid * BM + tl.arange(0, BM)) * 3 + 1
    src = rows % M
    x = tl.load(x_ptr + src[:, None] * K + tl.arange(0, K)[None, :])
    tl.store(out_ptr + (pid * BM + tl.arange(0, BM))[:, None] * K + tl.arange(0, K)[None, :], x)


@pytest.mark.parametrize("M", [400, 100])
def test_scaled_rows(M):
    K, BM, programs = 8, 16, 4
    x = torch.randn(M, K)
    out = torch.empty(programs * BM, K)
    scaled_rows_kernel[(programs,)](x, out, M, K=K, BM=BM)
    src = (torch.arange(programs * BM) * 3 + 1) % M
    torch.testing.assert_close(out, x[src], rtol=0, atol=0)


@triton.jit
def two_sided_mask_kernel(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = (offs >= lo) & (offs < hi) & (offs < n)
    x = tl.load(x_ptr + offs, mask=mask, other=-1.0)
    tl.store(out_ptr + offs, x * 3.0, mask=offs < n)


@pytest.mark.parametrize(("lo", "hi"), [(0, 256), (0, 100), (70, 256), (10, 20)])
def test_two_sided_mask(lo, hi):
    n, block = 256, 32
    x = torch.randn(n)
    out = torch.empty(n)
    two_sided_mask_kernel[(n // block,)](x, out, lo, hi, n, BLOCK=block)
    offs = torch.arange(n)
    ref = torch.where((offs >= lo) & (offs < hi), x, torch.full_like(x, -1.0)) * 3.0
    torch.testing.assert_close(out, ref, rtol=0, atol=0)


@triton.jit
def wrapping_offsets_kernel(x_ptr, out_ptr, shift, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # Near INT32_MAX the int32 offsets wrap inside a block: the lanes past the wrap are negative
    # and masked off. The bounds of `offs` in exact arithmetic exceed int32, so no version may
    # assume the mask all on there.
    offs = pid * BLOCK + tl.arange(0, BLOCK) + shift
    x = tl.load(x_ptr + (offs - shift), mask=offs >= 0, other=-1.0)
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), x)


def test_wrapping_offsets_keep_their_mask():
    block, programs, shift = 64, 4, 2**31 - 1 - 100
    x = torch.randn(block * programs)
    out = torch.empty(block * programs)
    wrapping_offsets_kernel[(programs,)](x, out, shift, BLOCK=block)
    valid = torch.arange(block * programs, dtype=torch.int64) + shift <= 2**31 - 1
    ref = torch.where(valid, x, torch.full_like(x, -1.0))
    torch.testing.assert_close(out, ref, rtol=0, atol=0)


@triton.jit
def unsigned_mask_kernel(x_ptr, out_ptr, lo, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # An unsigned comparison: lo = -1 reads as 2**32 - 1, above every offset, so no lane is on.
    mask = lo.to(tl.uint32) < offs.to(tl.uint32)
    x = tl.load(x_ptr + offs, mask=mask, other=-1.0)
    tl.store(out_ptr + offs, x)


@pytest.mark.parametrize("lo", [-1, 3, 0])
def test_unsigned_mask_reads_negative_bounds_as_large(lo):
    block = 16
    x = torch.randn(block)
    out = torch.empty(block)
    unsigned_mask_kernel[(1,)](x, out, lo, BLOCK=block)
    offs = torch.arange(block, dtype=torch.int64)
    ref = torch.where(offs > (lo % 2**32), x, torch.full_like(x, -1.0))
    torch.testing.assert_close(out, ref, rtol=0, atol=0)
