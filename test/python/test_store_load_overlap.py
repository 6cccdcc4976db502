"""A store that reads loads fused into it must not overwrite what a later element reads.

Triton's semantics: a program's `tl.load` reads its whole block before the `tl.store` after it
writes. The backend fuses single-use loads into the store's element loop; these kernels store
where their own loads read (shifted, broadcast, through aliasing arguments), so a fused read
after an earlier element's write would see the new value. Each result is compared with torch
computing the same thing from the old values.
"""

import re

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def shift_kernel(X, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    tl.store(X + offs + SHIFT, x * 2, mask=mask)


@pytest.mark.parametrize("shift", [1, 3, 8, -1])
@pytest.mark.parametrize("n", [64, 50])
def test_store_shifted_over_own_load(shift, n):
    block = 64
    base = torch.randn(block + 16)
    x = base.clone()
    start = 8
    view = x[start:]
    shift_kernel[(1,)](view, n, SHIFT=shift, BLOCK=block)
    expected = base.clone()
    expected[start + shift : start + shift + n] = base[start : start + n] * 2
    torch.testing.assert_close(x, expected, rtol=0, atol=0)


@triton.jit
def copy_kernel(Src, Dst, n, BLOCK: tl.constexpr, FN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(Src + offs, mask=mask)
    # A math function fuses like arithmetic (its load is read in the store's loop), also where
    # the load has several uses, all on the way to the store (silu).
    if FN == "exp":
        y = tl.exp(x)
    elif FN == "silu":
        y = x * tl.sigmoid(x)
    else:
        y = x + 1.0
    tl.store(Dst + offs, y, mask=mask)


@pytest.mark.parametrize("fn", ["add", "exp", "silu"])
@pytest.mark.parametrize("delta", [1, 5, -1, -7, 0, 128, 1000])
def test_arguments_alias_with_offset(delta, fn):
    # Src and Dst are views of one buffer `delta` elements apart.
    n, block = 100, 128
    buf = torch.randn(2 * n + 2048)
    base = buf.clone()
    src_start = 1024
    dst_start = src_start + delta
    copy_kernel[(1,)](buf[src_start:], buf[dst_start:], n, BLOCK=block, FN=fn)
    expected = base.clone()
    old = base[src_start : src_start + n]
    expected[dst_start : dst_start + n] = {"exp": torch.exp, "silu": torch.nn.functional.silu}.get(
        fn, lambda v: v + 1.0
    )(old)
    torch.testing.assert_close(buf, expected, rtol=1e-6, atol=0)


@pytest.mark.parametrize("fn", ["exp", "silu"])
def test_math_function_reads_its_load_in_the_store_loop(fn):
    # Where a run-time check finds the arguments apart (or the same), tl.exp(x) and x *
    # sigmoid(x) read x in the store's loop: no copy of the block into a buffer first.
    x = torch.randn(1000)
    y = torch.empty_like(x)
    compiled = copy_kernel[(8,)](x, y, 1000, BLOCK=128, FN=fn)
    reference = torch.exp(x) if fn == "exp" else torch.nn.functional.silu(x)
    torch.testing.assert_close(y, reference, rtol=1e-6, atol=1e-7)
    # A loop body that loads x and, before the body ends, stores through the other pointer.
    fused = r"= llvm\.load [^\n]*\n(\s+%[^\n]*\n)*?\s+llvm\.store [^\n]*\n\s+\}"
    assert re.search(fused, compiled.asm["linalg"]), fn


def test_same_tensor_in_place():
    x = torch.randn(1000)
    expected = x + 1.0
    copy_kernel[(triton.cdiv(1000, 256),)](x, x, 1000, BLOCK=256, FN="add")
    torch.testing.assert_close(x, expected, rtol=0, atol=0)


@triton.jit
def broadcast_update_kernel(X, BLOCK: tl.constexpr):
    # Every lane reads and writes the same element: all lanes store old + 1.
    offs = tl.arange(0, BLOCK)
    ptrs = X + offs * 0
    tl.store(ptrs, tl.load(ptrs) + 1.0)


def test_broadcast_pointer_update():
    x = torch.tensor([5.0, 7.0])
    broadcast_update_kernel[(1,)](x, BLOCK=32)
    torch.testing.assert_close(x, torch.tensor([6.0, 7.0]), rtol=0, atol=0)


@triton.jit
def tile_update_kernel(C, stride_m, SHIFT_N: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    ptrs = C + rm[:, None] * stride_m + rn[None, :]
    c = tl.load(ptrs)
    tl.store(ptrs + SHIFT_N, c * 3.0)


@pytest.mark.parametrize("shift", [0, 1, 16])
def test_2d_tile_update_with_runtime_stride(shift):
    bm, bn = 16, 32
    c = torch.randn(bm, 64)
    base = c.clone()
    tile_update_kernel[(1,)](c, c.stride(0), SHIFT_N=shift, BM=bm, BN=bn)
    expected = base.clone()
    expected[:, shift : shift + bn] = base[:, :bn] * 3.0
    torch.testing.assert_close(c, expected, rtol=0, atol=0)


@triton.jit
def masked_by_loaded_flags_kernel(Flags, Out, BLOCK: tl.constexpr):
    # The mask is read from memory the store overwrites one element later.
    offs = tl.arange(0, BLOCK)
    flags = tl.load(Flags + offs)
    tl.store(Out + offs, flags + 10, mask=flags > 0)


def test_store_over_its_mask_source():
    buf = torch.tensor([1, 1, 1, 1, 0, 1, 1, 1, 1], dtype=torch.int32)
    base = buf.clone()
    masked_by_loaded_flags_kernel[(1,)](buf[:8], buf[1:], BLOCK=8)
    expected = base.clone()
    for i in range(8):
        if base[i] > 0:
            expected[i + 1] = base[i] + 10
    torch.testing.assert_close(buf, expected, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.int64])
def test_disjoint_copies_other_dtypes(dtype):
    # The fused path (disjoint ranges) for other element sizes.
    n = 3000
    src = (torch.arange(n) % 100).to(dtype)
    dst = torch.zeros(n, dtype=dtype)
    copy_kernel[(triton.cdiv(n, 512),)](src, dst, n, BLOCK=512, FN="add")
    torch.testing.assert_close(dst, src + 1)
