"""Edge cases of launches and tensors: empty and 3-D grids, grids beyond 65,535 on every axis,
zero-size and non-contiguous tensors, tensors on another device, offsets beyond 2**31 into a large
tensor, NaN and infinity in reductions and max/min (as torch has them), integer division by zero and of
INT_MIN by -1 (no trap), shifts by the width or more (as torch), and launches from several Python threads at once.

Covered elsewhere: an empty 1-D grid and 65,537 programs on axis 0 (test_vector_add.py), the
num_threads option and OMP_NUM_THREADS (test_launch_threads.py), failing device asserts
(test_debug_ops.py), masks against guard pages (test_guard_pages.py).
"""

import math
import threading

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def grid_kernel(out_ptr, nums_ptr):
    # Each program writes its linear id where that id points, and the grid's shape.
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    nx, ny, nz = tl.num_programs(0), tl.num_programs(1), tl.num_programs(2)
    linear = x.to(tl.int64) + nx * (y.to(tl.int64) + ny * z.to(tl.int64))
    tl.store(out_ptr + linear, linear.to(tl.int32))
    tl.store(
        nums_ptr + tl.arange(0, 4), tl.where(tl.arange(0, 4) == 0, nx, tl.where(tl.arange(0, 4) == 1, ny, nz))
    )


def run_grid(grid):
    total = math.prod(grid)
    out = torch.full((max(total, 1),), -1, dtype=torch.int32)
    nums = torch.full((4,), -1, dtype=torch.int32)
    grid_kernel[grid](out, nums)
    return out, nums


@pytest.mark.parametrize(
    "grid", [(3, 4, 5), (1, 70_000, 1), (1, 1, 70_000), (2, 3, 70_000), (70_000, 2, 1)], ids=str
)
def test_3d_and_large_grids_run_every_program_once(grid):
    out, nums = run_grid(grid)
    assert torch.equal(out, torch.arange(math.prod(grid), dtype=torch.int32))
    assert nums[:3].tolist() == list(grid)


@pytest.mark.parametrize("grid", [(0, 1, 1), (4, 0, 1), (3, 2, 0), (0, 0, 0)], ids=str)
def test_grids_with_zero_programs_run_nothing(grid):
    out, nums = run_grid(grid)
    assert torch.all(out == -1) and torch.all(nums == -1)


def test_grid_beyond_the_abi_is_a_clear_error():
    # Program ids are i32 (docs/kernel-abi.md): an axis of 2**31 programs is refused, not wrapped.
    out = torch.zeros(1, dtype=torch.int32)
    with pytest.raises(ValueError, match=r"invalid grid"):
        grid_kernel[(2**31, 1, 1)](out, out)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_zero_size_tensors():
    empty = torch.empty(0)
    # One program whose mask is empty: nothing is read through the (null) pointers, nothing written.
    add_kernel[(1,)](empty, empty, empty, 0, BLOCK=16)
    add_kernel[(triton.cdiv(0, 16),)](empty, empty, empty, 0, BLOCK=16)
    rows = torch.empty(0, 5)
    add_kernel[(1,)](rows, rows, rows, rows.numel(), BLOCK=16)
    # Empty inputs next to a real output: the output keeps its values.
    out = torch.full((4,), 3.0)
    add_kernel[(1,)](empty, empty, out, 0, BLOCK=16)
    assert torch.equal(out, torch.full((4,), 3.0))


@triton.jit
def copy_2d_kernel(x_ptr, out_ptr, M, N, sxm, sxn, som, son, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    mask = (rows < M) & (cols < N)
    tile = tl.load(x_ptr + rows * sxm + cols * sxn, mask=mask)
    tl.store(out_ptr + rows * som + cols * son, tile * 2, mask=mask)


def _views():
    base = torch.arange(40 * 60, dtype=torch.float32).view(40, 60)
    return {
        "transposed": base.t(),
        "step-slices": base[1::3, 5::2],
        "storage-offset": base[7:, 3:],
        "expanded-row": base[0].expand(9, 60),  # stride 0
        "column": base[:, 17:18],
    }


@pytest.mark.parametrize("view", list(_views()))
def test_non_contiguous_tensors_use_their_strides(view):
    x = _views()[view]
    M, N = x.shape
    # The output is a non-contiguous view too, into a buffer whose other elements must not change.
    buf = torch.full((M, 2 * N + 1), -1.0)
    out = buf[:, 1::2]
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    copy_2d_kernel[grid](x, out, M, N, *x.stride(), *out.stride(), BM=16, BN=16)
    torch.testing.assert_close(out, x * 2, rtol=0, atol=0)
    assert torch.all(buf[:, 0::2] == -1.0)


@pytest.mark.parametrize("device", ["meta"])
def test_tensor_on_another_device_is_a_clear_error(device):
    x = torch.rand(100, device=device)
    y, out = torch.rand(100), torch.empty(100)
    with pytest.raises(ValueError, match=r"'x_ptr' is a tensor on device 'meta'.*CPU tensors"):
        add_kernel[(1,)](x, y, out, 100, BLOCK=128)
    with pytest.raises(ValueError, match=r"'out_ptr' is a tensor on device 'meta'"):
        add_kernel[(1,)](y, y, torch.empty(100, device=device), 100, BLOCK=128)


# --------------------------------------------------------------------------------------------
# Offsets beyond 2**31: one 2 GiB + 4 KiB int8 tensor, left untouched (lazily mapped) except
# where the kernels write.

BIG = 2**31 + 4096


@triton.jit
def fill_i64_kernel(x_ptr, start, n, value, BLOCK: tl.constexpr):
    # `start` and `n` exceed 2**31 - 1, so triton passes them as i64: the offsets are i64.
    offs = start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, value, mask=offs < n)


@triton.jit
def fill_twice_advanced_kernel(x_ptr, half, value, BLOCK: tl.constexpr):
    # Two i32 advances of the pointer: each below 2**31, together beyond it.
    p = x_ptr + half
    p = p + half
    tl.store(p + tl.arange(0, BLOCK), value)


@triton.jit
def fill_loop_advanced_kernel(x_ptr, step, steps, value, BLOCK: tl.constexpr):
    # A loop-carried pointer advanced by an i32 step past 2**31 in total.
    p = x_ptr
    for _ in range(steps):
        p += step
    tl.store(p + tl.arange(0, BLOCK), value)


@pytest.fixture(scope="module")
def big():
    try:
        x = torch.empty(BIG, dtype=torch.int8)
    except RuntimeError as e:  # pragma: no cover - a machine without the address space
        pytest.skip(f"cannot allocate {BIG} bytes: {e}")
    yield x
    del x


def test_i64_offsets_reach_beyond_2_gib(big):
    start = BIG - 1000
    fill_i64_kernel[(1,)](big, start, BIG, 7, BLOCK=1024)
    assert torch.all(big[start:] == 7)
    assert start > 2**31 - 1


def test_pointer_advanced_twice_past_2_gib(big):
    half = 2**30 + 8  # 2 * half = 2**31 + 16
    fill_twice_advanced_kernel[(1,)](big, half, 5, BLOCK=64)
    assert torch.all(big[2 * half : 2 * half + 64] == 5)


def test_loop_carried_pointer_past_2_gib(big):
    step = 2**30 + 512
    fill_loop_advanced_kernel[(1,)](big, step, 2, 9, BLOCK=64)
    assert torch.all(big[2 * step : 2 * step + 64] == 9)


@triton.jit
def while_carried_pointers_kernel(x_ptr, out_ptr, n, limit, BLOCK: tl.constexpr):
    # A block of pointers and a sum carried through a data-dependent while loop (scf.while), which
    # an if inside the loop may end early; a scalar pointer advanced after it.
    offs = tl.arange(0, BLOCK)
    p = x_ptr + offs
    total = tl.zeros([BLOCK], dtype=tl.float32)
    i = 0
    while i < n:
        total += tl.load(p)
        p += BLOCK
        i += 1
        if tl.sum(total) > limit:
            i = n
    q = out_ptr
    tl.store(q + offs, total)
    q += BLOCK
    tl.store(q + offs, total * 2)


@pytest.mark.parametrize("limit, rows", [(1e30, 7), (100.0, 3)])
def test_pointers_carried_through_a_while_loop(limit, rows):
    x = torch.ones(7, 64)
    x[1:] = 0.5  # row sums 64, 32, 32, ...: 64 + 32 + 32 > 100 ends the loop after three rows
    out = torch.empty(128)
    while_carried_pointers_kernel[(1,)](x, out, 7, limit, BLOCK=64)
    expected = x[:rows].sum(0)
    torch.testing.assert_close(out[:64], expected, rtol=0, atol=0)
    torch.testing.assert_close(out[64:], 2 * expected, rtol=0, atol=0)


# --------------------------------------------------------------------------------------------
# NaN and infinity
#
# tl.max and tl.min are maxnumf/minnumf reductions in triton's IR: IEEE maxNum/minNum, which skip
# NaNs (as triton's GPU backends and its interpreter do; torch.max propagates them instead).
# Reductions whose combine is tl.maximum/tl.minimum with propagate_nan=ALL, elementwise
# tl.maximum/tl.minimum with it, and sums propagate NaN exactly as torch does; infinities agree
# everywhere.


@triton.jit
def _max_propagating(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _min_propagating(a, b):
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def reduce_rows_kernel(x_ptr, max_ptr, min_ptr, pmax_ptr, pmin_ptr, sum_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    ptrs = x_ptr + row * n + cols
    low = tl.load(ptrs, mask=mask, other=-float("inf"))
    high = tl.load(ptrs, mask=mask, other=float("inf"))
    tl.store(max_ptr + row, tl.max(low, axis=0))
    tl.store(min_ptr + row, tl.min(high, axis=0))
    tl.store(pmax_ptr + row, tl.reduce(low, 0, _max_propagating))
    tl.store(pmin_ptr + row, tl.reduce(high, 0, _min_propagating))
    tl.store(sum_ptr + row, tl.sum(tl.load(ptrs, mask=mask, other=0.0), axis=0))


@triton.jit
def reduce_2d_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # Along both axes, NaN-skipping and NaN-propagating maxima and minima.
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    cols, rows = tl.arange(0, N), tl.arange(0, M)
    tl.store(out_ptr + cols, tl.max(x, axis=0))
    tl.store(out_ptr + N + cols, tl.min(x, axis=0))
    tl.store(out_ptr + 2 * N + cols, tl.reduce(x, 0, _max_propagating))
    tl.store(out_ptr + 3 * N + cols, tl.reduce(x, 0, _min_propagating))
    tl.store(out_ptr + 4 * N + rows, tl.max(x, axis=1))
    tl.store(out_ptr + 4 * N + M + rows, tl.min(x, axis=1))
    tl.store(out_ptr + 4 * N + 2 * M + rows, tl.reduce(x, 1, _max_propagating))
    tl.store(out_ptr + 4 * N + 3 * M + rows, tl.reduce(x, 1, _min_propagating))


@triton.jit
def propagating_max_min_kernel(a_ptr, b_ptr, max_ptr, min_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(max_ptr + offs, tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL), mask=mask)
    tl.store(min_ptr + offs, tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL), mask=mask)


NAN, INF = float("nan"), float("inf")


def special_rows(n):
    """Rows of n values with NaNs and infinities at the first, a middle and the last position."""
    rows = []
    for special in ([NAN], [INF], [-INF], [INF, -INF], [NAN, INF], [NAN, -INF]):
        for position in (0, n // 2, n - 1):
            row = torch.linspace(-3, 3, n)
            for k, value in enumerate(special):
                row[(position + k * (n // 3 + 1)) % n] = value
            rows.append(row)
    rows.append(torch.full((n,), -INF))
    rows.append(torch.full((n,), NAN))
    return torch.stack(rows)


def nan_skipping(x, reduce, dim):
    """maxNum/minNum reduction: NaNs are skipped unless every value is NaN."""
    fill = -INF if reduce is torch.amax else INF
    result = reduce(torch.where(x.isnan(), fill, x), dim=dim)
    return torch.where(x.isnan().all(dim=dim), NAN, result)


def padded(x, block, value):
    """The rows of x as the kernel loads them: masked lanes hold `other`."""
    return torch.cat([x, torch.full((x.shape[0], block - x.shape[1]), value, dtype=x.dtype)], dim=1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize("n", [37, 64, 300])
def test_reductions_with_nan_and_inf(dtype, n):
    x = special_rows(n).to(dtype)
    rows, block = x.shape[0], triton.next_power_of_2(n)
    mx, mn, pmx, pmn, sm = (torch.empty(rows, dtype=dtype) for _ in range(5))
    reduce_rows_kernel[(rows,)](x, mx, mn, pmx, pmn, sm, n, BLOCK=block)
    exact = {"rtol": 0, "atol": 0, "equal_nan": True}
    torch.testing.assert_close(pmx, x.max(dim=1).values, **exact)
    torch.testing.assert_close(pmn, x.min(dim=1).values, **exact)
    torch.testing.assert_close(mx, nan_skipping(padded(x, block, -INF), torch.amax, 1), **exact)
    torch.testing.assert_close(mn, nan_skipping(padded(x, block, INF), torch.amin, 1), **exact)
    # Sums are reassociated: which rows are NaN or infinite (with the sign) must agree exactly.
    expected = x.double().sum(dim=1)
    assert torch.equal(sm.isnan(), expected.isnan()), (sm, expected)
    infinite = expected.isinf()
    assert torch.equal(sm.isinf(), infinite) and torch.equal(sm[infinite].double(), expected[infinite])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [1024, 1000])
def test_max_min_where_whole_lanes_are_nan(dtype, n):
    # Vector strips give each lane every 8th, 16th, 64th... element. Rows whose NaNs fill whole
    # lanes (every 8th element from a few offsets), leave one number, or leave only -inf or +inf:
    # the NaN-only lanes drop out, a row of NaN only is NaN.
    rows = []
    for stride, offsets in ((8, (0,)), (16, (3, 11)), (64, (63,))):
        row = torch.linspace(-5, 5, n)
        for k in offsets:
            row[k::stride] = NAN
        rows.append(row)
    for kept in (0, n // 2 + 1, n - 1):
        for value in (7.0, -INF, INF, -0.0):
            row = torch.full((n,), NAN)
            row[kept] = value
            rows.append(row)
    row = torch.full((n,), -INF)
    row[::2] = NAN
    rows.append(row)
    rows.append(torch.full((n,), NAN))
    x = torch.stack(rows).to(dtype)
    block = triton.next_power_of_2(n)
    mx, mn, pmx, pmn, sm = (torch.empty(len(rows), dtype=dtype) for _ in range(5))
    reduce_rows_kernel[(len(rows),)](x, mx, mn, pmx, pmn, sm, n, BLOCK=block)
    exact = {"rtol": 0, "atol": 0, "equal_nan": True}
    torch.testing.assert_close(mx, nan_skipping(padded(x, block, -INF), torch.amax, 1), **exact)
    torch.testing.assert_close(mn, nan_skipping(padded(x, block, INF), torch.amin, 1), **exact)
    torch.testing.assert_close(pmx, x.max(dim=1).values, **exact)


@triton.jit
def max_and_min_alone_kernel(x_ptr, mx_ptr, mn_ptr, n, BLOCK: tl.constexpr):
    # Each reduction alone in its loop over the row, as softmax's maximum is: on x86 such a loop
    # accumulates without a NaN guard and runs again where its result stays at -inf (+inf).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf"))
    tl.store(mx_ptr + row, tl.max(x, axis=0))
    y = tl.load(x_ptr + row * n + cols, mask=cols < n, other=float("inf"))
    tl.store(mn_ptr + row, tl.min(y, axis=0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [1024, 1000, 37])
def test_max_and_min_alone_where_rows_are_nan_or_inf(dtype, n):
    rows = [torch.full((n,), NAN), torch.full((n,), -INF), torch.full((n,), INF)]
    for kept in (0, n // 2 + 1, n - 1):
        for value in (7.0, -INF, INF, -0.0):
            row = torch.full((n,), NAN)
            row[kept] = value
            rows.append(row)
    for value in (-INF, INF):
        row = torch.full((n,), value)
        row[::3] = NAN
        rows.append(row)
    rows.append(torch.linspace(-5, 5, n))
    x = torch.stack(rows).to(dtype)
    block = triton.next_power_of_2(n)
    mx, mn = (torch.empty(len(rows), dtype=dtype) for _ in range(2))
    max_and_min_alone_kernel[(len(rows),)](x, mx, mn, n, BLOCK=block)
    exact = {"rtol": 0, "atol": 0, "equal_nan": True}
    torch.testing.assert_close(mx, nan_skipping(padded(x, block, -INF), torch.amax, 1), **exact)
    torch.testing.assert_close(mn, nan_skipping(padded(x, block, INF), torch.amin, 1), **exact)


def test_2d_reductions_with_nan_and_inf_on_both_axes():
    M, N = 16, 32
    x = torch.randn(M, N)
    x[3, 5] = x[15, 0] = NAN
    x[10, 20] = INF
    x[0, 31] = -INF
    x[7, :] = NAN  # a row of NaNs only
    out = torch.empty(4 * N + 4 * M)
    reduce_2d_kernel[(1,)](x, out, M=M, N=N)
    expected = [
        nan_skipping(x, torch.amax, 0), nan_skipping(x, torch.amin, 0),
        x.amax(dim=0), x.amin(dim=0),
        nan_skipping(x, torch.amax, 1), nan_skipping(x, torch.amin, 1),
        x.amax(dim=1), x.amin(dim=1),
    ]  # fmt: skip
    torch.testing.assert_close(out, torch.cat(expected), rtol=0, atol=0, equal_nan=True)


@triton.jit
def zero_reductions_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr, tl.sum(x, axis=0))
    tl.store(out_ptr + 1, tl.max(x, axis=0))
    tl.store(out_ptr + 2, tl.min(x, axis=0))


@pytest.mark.parametrize("n", [2, 64, 1024])
def test_reductions_of_zeros_keep_their_sign(n):
    # Sums start from -0.0 (the neutral element of addition): all -0.0 sum to -0.0, and one +0.0
    # makes the sum +0.0, as adding the elements in any order does.
    x = torch.full((n,), -0.0)
    out = torch.empty(3)
    zero_reductions_kernel[(1,)](x, out, N=n)
    assert torch.equal(out, torch.zeros(3)) and bool(out.signbit().all()), out
    x[n // 2] = 0.0
    zero_reductions_kernel[(1,)](x, out, N=n)
    assert out[0] == 0 and not out[0].signbit()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_propagating_maximum_and_minimum_match_torch(dtype):
    values = torch.tensor([NAN, INF, -INF, 0.0, -0.0, 1.5, -2.0], dtype=dtype)
    a = values.repeat_interleave(len(values))
    b = values.repeat(len(values))
    mx, mn = torch.empty_like(a), torch.empty_like(a)
    propagating_max_min_kernel[(1,)](a, b, mx, mn, a.numel(), BLOCK=64)
    # torch.maximum(0.0, -0.0) may be either zero; compare the values, NaNs where torch has them.
    torch.testing.assert_close(mx, torch.maximum(a, b), rtol=0, atol=0, equal_nan=True)
    torch.testing.assert_close(mn, torch.minimum(a, b), rtol=0, atol=0, equal_nan=True)


# --------------------------------------------------------------------------------------------
# Launches from several Python threads


@triton.jit
def affine_kernel(x_ptr, out_ptr, n, a, B: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * a + B, mask=mask)


def _in_threads(count, work):
    """Runs work(i) in `count` threads released together; re-raises the first failure."""
    barrier = threading.Barrier(count)
    errors = []

    def run(i):
        try:
            barrier.wait()
            work(i)
        except BaseException as e:  # noqa: BLE001 - reported to the test below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_concurrent_launches_from_python_threads():
    affine_kernel[(1,)](torch.ones(4), torch.empty(4), 4, 1.0, B=0.5, BLOCK=1024)  # compiled once

    def work(i):
        n = 1000 + 997 * i
        x = torch.rand(n)
        for j in range(30):
            out = torch.empty_like(x)
            affine_kernel[(triton.cdiv(n, 1024),)](x, out, n, float(i + j), B=0.5, BLOCK=1024)
            torch.testing.assert_close(out, x * (i + j) + 0.5, rtol=1e-6, atol=1e-6)

    _in_threads(8, work)


def test_concurrent_first_launches_compile_in_parallel():
    # Distinct and shared specialisations compiled by several threads at once: the in-process
    # compiler stages run concurrently with the GIL released.
    def work(i):
        x = torch.rand(3000)
        out = torch.empty_like(x)
        B = 100.0 + i % 3  # three threads per kernel, three distinct kernels (or fewer)
        affine_kernel[(3,)](x, out, 3000, 2.0, B=B, BLOCK=1024)
        torch.testing.assert_close(out, x * 2 + B, rtol=1e-6, atol=1e-6)

    _in_threads(6, work)


@triton.jit
def divide_kernel(a_ptr, b_ptr, q_ptr, r_ptr, n, s_ptr, scalar_divisor, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    # Masked-off lanes divide by the `other` zero, as GPU kernels often do.
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    tl.store(q_ptr + offs, a // b, mask=mask)
    tl.store(r_ptr + offs, a % b, mask=mask)
    # A scalar division: scalar code, not vector code.
    first = tl.load(a_ptr)
    divisor = scalar_divisor.to(first.dtype)
    tl.store(s_ptr, first // divisor)
    tl.store(s_ptr + 1, first % divisor)


def check_integer_division(dtype):
    """Division by zero and INT_MIN / -1 are undefined in LLVM and trap on x86 (SIGFPE killed the
    process). They get RISC-V's results on every target: x / 0 = -1 (all ones), x % 0 = x,
    INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0. Elsewhere Triton's C semantics (truncation). Also run
    for RISC-V code by test_riscv_emulated.py."""
    info = torch.iinfo(dtype)
    g = torch.Generator().manual_seed(0)
    a = torch.randint(info.min, info.max, (100,), generator=g, dtype=torch.int64)
    b = torch.randint(-3 if info.min < 0 else 0, 4, (100,), generator=g, dtype=torch.int64)
    a[:4] = torch.tensor([info.min, info.min, info.max, 0])
    b[:4] = torch.tensor([-1 if info.min < 0 else 0, 0, 0, 0])
    a, b = a.to(dtype), b.to(dtype)
    q, r, s = torch.empty_like(a), torch.empty_like(a), torch.empty(2, dtype=dtype)
    divide_kernel[(1,)](a, b, q, r, 100, s, 0, BLOCK=128)

    wide_a, wide_b = a.to(torch.int64), b.to(torch.int64)
    # (torch itself traps on int64 INT_MIN / -1: divide by 1 there, which gives the same results.)
    safe_b = torch.where((wide_b == 0) | ((wide_a == info.min) & (wide_b == -1)), 1, wide_b)
    expected_q = torch.where(wide_b == 0, -1, torch.div(wide_a, safe_b, rounding_mode="trunc"))
    expected_r = torch.where(
        wide_b == 0, wide_a, wide_a - torch.div(wide_a, safe_b, rounding_mode="trunc") * safe_b
    )
    # INT_MIN / -1 wraps to INT_MIN in the dtype; so do all-ones quotients of unsigned types.
    assert torch.equal(q, expected_q.to(dtype))
    assert torch.equal(r, expected_r.to(dtype))
    assert torch.equal(s, torch.tensor([-1, a[0].item()]).to(dtype))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8])
def test_integer_division_by_zero_is_defined(dtype):
    check_integer_division(dtype)


@triton.jit
def shift_kernel(a_ptr, s_ptr, left_ptr, right_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    s = tl.load(s_ptr + offs, mask=mask)
    tl.store(left_ptr + offs, a << s, mask=mask)
    tl.store(right_ptr + offs, a >> s, mask=mask)


def check_shifts(dtype):
    """Shifts by the width or more: LLVM makes them poison; x86's scalar shifts take the count
    modulo the width and its vector shifts give 0, so int8 `x << 9` was x << 1 or 0 by lane. As
    torch defines them: << and unsigned >> give 0, signed >> the sign. Also run for RISC-V code by
    test_riscv_emulated.py."""
    info = torch.iinfo(dtype)
    n = info.bits + 20
    a = torch.randint(info.min, info.max, (n,), generator=torch.Generator().manual_seed(1), dtype=torch.int64)
    a, s = a.to(dtype), torch.arange(n).clamp(max=info.max).to(dtype)
    left, right = torch.empty_like(a), torch.empty_like(a)
    shift_kernel[(1,)](a, s, left, right, n, BLOCK=triton.next_power_of_2(n))
    assert torch.equal(left, a << s)
    assert torch.equal(right, a >> s)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8])
def test_shifts_by_the_width_or_more_match_torch(dtype):
    check_shifts(dtype)
