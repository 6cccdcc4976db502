"""Offsets kept in bounds with a remainder, `(pid * BLOCK + arange) % n`, as GPU kernels write them.
Each access is compiled twice (RemainderVersions.h): a version where the remainder is its
dividend, taken when bounds checked at run time prove every dividend lies in [0, n), and the
general one. These kernels make both versions run, in the same launch, and compare with torch."""

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
