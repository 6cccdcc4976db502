"""Data movement in registers (join, split, interleave, cat, reshape, trans, permute, flip, sort,
gather, histogram) against torch. Moving data must not change it: comparisons are exact."""

import pytest
import torch
import triton
import triton.language as tl

# tl.cat(can_reorder=True) emits tt.cat itself; triton 3.9 warns that it is deprecated.
CAN_REORDER_IS_DEPRECATED = pytest.mark.filterwarnings("ignore:tl.cat\\(can_reorder=True\\) is deprecated")
DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64]


def make(shape, dtype, seed=0):
    """Distinct-ish values of `dtype` (integers span the negative range too)."""
    g = torch.Generator().manual_seed(seed)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g) * 100).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -(2**31)), min(info.max, 2**31 - 1), shape, generator=g, dtype=dtype)


@triton.jit
def offsets_2d(M: tl.constexpr, N: tl.constexpr):
    return tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]


@triton.jit
def join_kernel(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = offsets_2d(M, N)
    j = tl.join(tl.load(a_ptr + offs), tl.load(b_ptr + offs))  # [M, N, 2]
    tl.store(out_ptr + offs[:, :, None] * 2 + tl.arange(0, 2)[None, None, :], j)


@pytest.mark.parametrize("dtype", DTYPES)
def test_join(dtype):
    a, b = make((4, 8), dtype, 1), make((4, 8), dtype, 2)
    out = torch.empty((4, 8, 2), dtype=dtype)
    join_kernel[(1,)](a, b, out, M=4, N=8)
    assert torch.equal(out, torch.stack((a, b), dim=-1))


@triton.jit
def split_kernel(x_ptr, lo_ptr, hi_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = offsets_2d(M, N)
    x = tl.load(x_ptr + offs[:, :, None] * 2 + tl.arange(0, 2)[None, None, :])  # [M, N, 2]
    lo, hi = tl.split(x)
    tl.store(lo_ptr + offs, lo)
    tl.store(hi_ptr + offs, hi)


@pytest.mark.parametrize("dtype", DTYPES)
def test_split(dtype):
    x = make((4, 8, 2), dtype)
    lo, hi = torch.empty((4, 8), dtype=dtype), torch.empty((4, 8), dtype=dtype)
    split_kernel[(1,)](x, lo, hi, M=4, N=8)
    assert torch.equal(lo, x[..., 0]) and torch.equal(hi, x[..., 1])


@triton.jit
def interleave_kernel(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.store(out_ptr + tl.arange(0, 2 * N), tl.interleave(tl.load(a_ptr + r), tl.load(b_ptr + r)))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.float16, torch.float32])
def test_interleave(dtype):
    a, b = make(32, dtype, 1), make(32, dtype, 2)
    out = torch.empty(64, dtype=dtype)
    interleave_kernel[(1,)](a, b, out, N=32)
    assert torch.equal(out, torch.stack((a, b), dim=-1).reshape(-1))


@triton.jit
def cat_kernel(a_ptr, b_ptr, out_ptr, rows_ptr, cols_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = offsets_2d(M, N)
    a, b = tl.load(a_ptr + offs), tl.load(b_ptr + offs)
    tl.store(out_ptr + tl.arange(0, 2 * M * N), tl.cat(tl.ravel(a), tl.ravel(b)))
    tl.store(rows_ptr + offsets_2d(2 * M, N), tl.cat(a, b, dim=0))
    tl.store(cols_ptr + offsets_2d(M, 2 * N), tl.cat(a, b, dim=1))


@pytest.mark.parametrize("dtype", [torch.int16, torch.int64, torch.float32])
def test_cat(dtype):
    a, b = make((4, 8), dtype, 1), make((4, 8), dtype, 2)
    flat, rows, cols = (
        torch.empty(64, dtype=dtype),
        torch.empty((8, 8), dtype=dtype),
        torch.empty((4, 16), dtype=dtype),
    )
    cat_kernel[(1,)](a, b, flat, rows, cols, M=4, N=8)
    assert torch.equal(flat, torch.cat((a.reshape(-1), b.reshape(-1))))
    assert torch.equal(rows, torch.cat((a, b), dim=0))
    assert torch.equal(cols, torch.cat((a, b), dim=1))


@triton.jit
def cat_reorder_kernel(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.store(out_ptr + tl.arange(0, 2 * N), tl.cat(tl.load(a_ptr + r), tl.load(b_ptr + r), can_reorder=True))


@CAN_REORDER_IS_DEPRECATED
def test_cat_can_reorder():
    # tt.cat proper: any order is allowed; spine-triton keeps a then b.
    a, b = make(16, torch.int32, 1), make(16, torch.int32, 2)
    out = torch.empty(32, dtype=torch.int32)
    cat_reorder_kernel[(1,)](a, b, out, N=16)
    assert torch.equal(out, torch.cat((a, b)))


@triton.jit
def offsets_3d(A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    return offsets_2d(A, B)[:, :, None] * C + tl.arange(0, C)[None, None, :]


@triton.jit
def reshape_trans_kernel(
    x_ptr, reshaped_ptr, trans_ptr, permuted_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr
):
    x3 = tl.reshape(tl.load(x_ptr + tl.arange(0, A * B * C)), A, B, C)
    tl.store(reshaped_ptr + offsets_3d(A, B, C), x3)
    tl.store(trans_ptr + offsets_3d(C, A, B), tl.trans(x3, 2, 0, 1))
    tl.store(permuted_ptr + offsets_3d(B, C, A), tl.permute(x3, (1, 2, 0)))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.float32, torch.float64])
def test_reshape_trans_permute_3d(dtype):
    A, B, C = 2, 4, 8
    x = make(A * B * C, dtype)
    reshaped = torch.empty((A, B, C), dtype=dtype)
    trans, permuted = torch.empty((C, A, B), dtype=dtype), torch.empty((B, C, A), dtype=dtype)
    reshape_trans_kernel[(1,)](x, reshaped, trans, permuted, A=A, B=B, C=C)
    x3 = x.reshape(A, B, C)
    assert torch.equal(reshaped, x3)
    assert torch.equal(trans, x3.permute(2, 0, 1))
    assert torch.equal(permuted, x3.permute(1, 2, 0))


@triton.jit
def flip_kernel(x_ptr, out0_ptr, out1_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = offsets_2d(M, N)
    x = tl.load(x_ptr + offs)
    tl.store(out0_ptr + offs, tl.flip(x, 0))
    tl.store(out1_ptr + offs, tl.flip(x, 1))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.float16, torch.float32])
def test_flip(dtype):
    x = make((8, 16), dtype)
    out0, out1 = torch.empty_like(x), torch.empty_like(x)
    flip_kernel[(1,)](x, out0, out1, M=8, N=16)
    assert torch.equal(out0, x.flip(0)) and torch.equal(out1, x.flip(1))


@triton.jit
def sort_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = offsets_2d(M, N)
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=DESCENDING))


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize(
    "dtype", [torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32]
)
def test_sort(dtype, descending):
    x = make((4, 64), dtype, seed=3)
    out = torch.empty_like(x)
    sort_kernel[(1,)](x, out, M=4, N=64, DESCENDING=descending)
    assert torch.equal(out, torch.sort(x, dim=1, descending=descending).values)


@triton.jit
def gather_kernel(
    x_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, AXIS: tl.constexpr
):
    x = tl.load(x_ptr + offsets_2d(M, N))
    if AXIS == 0:
        idx = tl.load(idx_ptr + offsets_2d(K, N))
        tl.store(out_ptr + offsets_2d(K, N), tl.gather(x, idx, axis=0))
    else:
        idx = tl.load(idx_ptr + offsets_2d(M, K))
        tl.store(out_ptr + offsets_2d(M, K), tl.gather(x, idx, axis=1))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("dtype", [torch.int8, torch.float32, torch.float64])
def test_gather(dtype, index_dtype, axis):
    M, N, K = 8, 16, 32
    x = make((M, N), dtype)
    idx_shape = (K, N) if axis == 0 else (M, K)
    idx = torch.randint(0, x.shape[axis], idx_shape, generator=torch.Generator().manual_seed(7)).to(
        index_dtype
    )
    out = torch.empty(idx_shape, dtype=dtype)
    gather_kernel[(1,)](x, idx, out, M=M, N=N, K=K, AXIS=axis)
    assert torch.equal(out, torch.gather(x, axis, idx.long()))


@triton.jit
def pointer_kernel(a_ptr, b_ptr, idx_ptr, joined_ptr, halves_ptr, cat_ptr, gathered_ptr, N: tl.constexpr):
    # Pointer tensors moved around in registers, then dereferenced.
    r = tl.arange(0, N)
    pa, pb = a_ptr + r, b_ptr + r
    pj = tl.join(pa, pb)  # [N, 2] pointers
    tl.store(joined_ptr + r[:, None] * 2 + tl.arange(0, 2)[None, :], tl.load(pj))
    swapped_hi, swapped_lo = tl.split(tl.join(pb, pa))
    tl.store(halves_ptr + r, tl.load(swapped_lo) - tl.load(swapped_hi))
    pc = tl.cat(pa, pb, can_reorder=True)
    tl.store(cat_ptr + tl.arange(0, 2 * N), tl.load(pc))
    idx = tl.load(idx_ptr + r)
    tl.store(gathered_ptr + r, tl.load(tl.gather(pb, idx, axis=0)))


@CAN_REORDER_IS_DEPRECATED
def test_pointer_tensors():
    N = 16
    a, b = make(N, torch.int32, 1), make(N, torch.int32, 2)
    idx = torch.randperm(N, generator=torch.Generator().manual_seed(5)).to(torch.int32)
    joined, halves = torch.empty((N, 2), dtype=torch.int32), torch.empty(N, dtype=torch.int32)
    cat, gathered = torch.empty(2 * N, dtype=torch.int32), torch.empty(N, dtype=torch.int32)
    pointer_kernel[(1,)](a, b, idx, joined, halves, cat, gathered, N=N)
    assert torch.equal(joined, torch.stack((a, b), dim=-1))
    assert torch.equal(halves, a - b)
    assert torch.equal(cat, torch.cat((a, b)))
    assert torch.equal(gathered, b[idx.long()])


@triton.jit
def pointers_from_integers_kernel(table_ptr, addr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    # Pointers loaded from memory: a table of row addresses (int64), each used as a float pointer.
    rows = tl.load(table_ptr + r).to(tl.pointer_type(tl.float32))
    first, second = tl.load(rows), tl.load(rows + 1)
    # A scalar address argument made a pointer (tt.int_to_ptr), and a pointer made an integer.
    base = addr.to(tl.pointer_type(tl.float32))
    offset_back = (base + 2).to(tl.int64) - addr
    tl.store(out_ptr + r, (first + second) * tl.load(base) + offset_back.to(tl.float32))


def test_pointers_from_integers():
    N = 8
    g = torch.Generator().manual_seed(6)
    rows = [torch.randn(4, generator=g) for _ in range(N)]
    table = torch.tensor([row.data_ptr() for row in rows], dtype=torch.int64)
    scale, out = torch.tensor([3.0]), torch.empty(N)
    compiled = pointers_from_integers_kernel[(1,)](table, scale.data_ptr(), out, N=N)
    assert "tt.int_to_ptr" in compiled.asm["ttir"] and "tt.ptr_to_int" in compiled.asm["ttir"]
    expected = torch.stack([(row[0] + row[1]) * 3.0 + 8.0 for row in rows])  # 2 floats = 8 bytes
    # The multiply and add may fuse into one fma (triton's default fp fusion): one rounding apart.
    torch.testing.assert_close(out, expected, rtol=1e-6, atol=1e-6)


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr, MASKED: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # Masked-off lanes read a value inside the bins: only the mask keeps them out.
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    h = tl.histogram(x, BINS, mask=mask) if MASKED else tl.histogram(x, BINS)
    tl.store(hist_ptr + pid * BINS + tl.arange(0, BINS), h)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("n, block, bins", [(1024, 256, 32), (1000, 128, 16), (5000, 64, 128)])
def test_histogram(n, block, bins, masked):
    # Values below 0 and at or above `bins` fall in no bin.
    x = torch.randint(-8, bins + 8, (n,), generator=torch.Generator().manual_seed(n), dtype=torch.int32)
    programs = triton.cdiv(n, block)
    hist = torch.full((programs, bins), -1, dtype=torch.int32)
    histogram_kernel[(programs,)](x, hist, n, BLOCK=block, BINS=bins, MASKED=masked)
    padded = torch.ones(programs * block, dtype=torch.int32)
    padded[:n] = x
    if masked:
        padded[n:] = -1
    for pid in range(programs):
        row = padded[pid * block : (pid + 1) * block]
        row = row[(row >= 0) & (row < bins)]
        assert torch.equal(hist[pid], torch.bincount(row, minlength=bins).to(torch.int32)), f"program {pid}"


@triton.jit
def unsplat_kernel(x_ptr, out_ptr, N: tl.constexpr):
    one = tl.reshape(tl.load(x_ptr + tl.arange(0, 1)), [])  # tt.unsplat
    tl.store(out_ptr + tl.arange(0, N), tl.load(x_ptr + tl.arange(0, N)) * one)


def test_unsplat():
    x = make(16, torch.float32)
    out = torch.empty_like(x)
    unsplat_kernel[(1,)](x, out, N=16)
    assert torch.equal(out, x * x[0])
