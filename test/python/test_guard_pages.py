"""Masked loads and stores never touch memory outside their mask.

Every tensor here lives in its own mapping between two PROT_NONE guard pages, placed so that its
data ends exactly where the guard page after it begins (or, for the "start" placement, begins
right after the guard page before it). A masked-off lane that is read or written anyway -- a tail
past the end, a row of a 2-D tile below the matrix, a gather or scatter index that is only valid
where the mask holds -- touches a guard page and the process dies of SIGSEGV. Each case therefore
runs in a child process (this file run as a script), where a fault is a test failure with the
case's name rather than the death of pytest; the child also checks the results against torch.
"""

import ctypes
import mmap
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

PAGE = mmap.PAGESIZE
PROT_NONE = 0
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def guarded(numel, dtype, place="end"):
    """A 1-D tensor of `numel` elements between two guard pages: its last byte is the last one
    before the guard page after it ("end"), or its first byte the first after the one before it
    ("start"). The mapping is never unmapped: it lives as long as the (child) process."""
    nbytes = numel * torch.empty((), dtype=dtype).element_size()
    pages = max(1, -(-nbytes // PAGE))
    total = (pages + 2) * PAGE
    prot = mmap.PROT_READ | mmap.PROT_WRITE
    base = _libc.mmap(None, total, prot, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap failed")
    for guard in (base, base + (pages + 1) * PAGE):
        if _libc.mprotect(guard, PAGE, PROT_NONE) != 0:
            raise OSError(ctypes.get_errno(), "mprotect failed")
    start = base + PAGE + (pages * PAGE - nbytes if place == "end" else 0)
    if nbytes == 0:
        return torch.empty(0, dtype=dtype)
    buf = (ctypes.c_char * nbytes).from_address(start)
    tensor = torch.frombuffer(buf, dtype=dtype)
    assert tensor.data_ptr() == start
    return tensor


def guarded_like(src, place="end"):
    out = guarded(src.numel(), src.dtype, place)
    out.copy_(src.reshape(-1))
    return out.view(src.shape)


def random(n, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(n, generator=g).to(dtype)
    return torch.randint(-100, 100, (n,), generator=g, dtype=dtype)


# --------------------------------------------------------------------------------------------
# Kernels


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def unmasked_copy_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def reverse_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Masked-off lanes of the reversed offsets point *before* the tensor.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + (n - 1 - offs), mask=mask)
    tl.store(out_ptr + (n - 1 - offs), x * 2, mask=mask)


@triton.jit
def tile_copy_kernel(x_ptr, out_ptr, M, N, ldx, ldo, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    mask = (rows < M) & (cols < N)
    tile = tl.load(x_ptr + rows * ldx + cols, mask=mask, other=0.0)
    tl.store(out_ptr + rows * ldo + cols, tile + 1.0, mask=mask)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, ldx, BM: tl.constexpr, BN: tl.constexpr):
    # A 2-D masked load reduced along the masked axis: the row tail crosses the guard page.
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x_ptr + rows[:, None] * ldx + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(tile, axis=1), mask=rows < M)


@triton.jit
def gather_kernel(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # Masked-off lanes: the index read is masked too (no `other`), and the gather address of
    # those lanes is made to point far outside the tensor.
    idx = tl.load(idx_ptr + offs, mask=mask)
    idx = tl.where(mask, idx, 1 << 28)
    tl.store(out_ptr + offs, tl.load(x_ptr + idx, mask=mask), mask=mask)


@triton.jit
def scatter_kernel(src_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=-(1 << 28))
    tl.store(out_ptr + idx, tl.load(src_ptr + offs, mask=mask), mask=mask)


@triton.jit
def masked_atomic_kernel(out_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=1 << 28)
    tl.atomic_add(out_ptr + idx, 1, mask=mask)


@triton.jit
def sparse_mask_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # A mask with holes (every third element) inside the tensor and a tail beyond it.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = (offs < n) & (offs % 3 != 1)
    x = tl.load(x_ptr + offs, mask=mask, other=-1.0)
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def descriptor_kernel(x_desc, y_desc, BM: tl.constexpr, BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    y_desc.store([off_m, off_n], x_desc.load([off_m, off_n]) * 2)


# --------------------------------------------------------------------------------------------
# Cases: each runs in a child process (see run_case)


def case_tail_1d(dtype, place, n, block):
    x, y = random(n, dtype, 1), random(n, dtype, 2)
    gx, gy, out = guarded_like(x, place), guarded_like(y, place), guarded(n, dtype, place)
    add_kernel[(triton.cdiv(n, block),)](gx, gy, out, n, BLOCK=block)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


def case_unmasked_tail(n, block):
    """Not in CASES: reads past the end of a guarded tensor on purpose."""
    x = guarded_like(random(n, torch.float32), "end")
    out = torch.empty(triton.cdiv(n, block) * block)
    unmasked_copy_kernel[(triton.cdiv(n, block),)](x, out, BLOCK=block)


def case_reverse(n, block):
    x = random(n, torch.float32)
    gx, out = guarded_like(x, "start"), guarded(n, torch.float32, "start")
    reverse_kernel[(triton.cdiv(n, block),)](gx, out, n, BLOCK=block)
    torch.testing.assert_close(out, x * 2, rtol=0, atol=0)


def _matrix(M, N, ld, place, seed=0):
    """An M x N matrix with row stride `ld` whose last element (or first) touches a guard page."""
    flat = guarded((M - 1) * ld + N, torch.float32, place)
    flat.copy_(random(flat.numel(), torch.float32, seed))
    return flat.as_strided((M, N), (ld, 1))


def case_tile_2d(M, N, ld, place):
    x = _matrix(M, N, ld, place)
    out = _matrix(M, N, ld, place, seed=1)
    BM, BN = 16, 32
    tile_copy_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, out, M, N, ld, ld, BM=BM, BN=BN)
    torch.testing.assert_close(out, x + 1.0, rtol=0, atol=0)


def case_row_sum(M, N, ld):
    x = _matrix(M, N, ld, "end")
    out = guarded(M, torch.float32)
    BM, BN = 8, triton.next_power_of_2(N)
    row_sum_kernel[(triton.cdiv(M, BM),)](x, out, M, N, ld, BM=BM, BN=BN)
    torch.testing.assert_close(out, x.sum(dim=1), rtol=1e-5, atol=1e-5)


def case_gather(n, block):
    size = 3 * n + 5
    x = guarded_like(random(size, torch.float32), "end")
    perm = torch.randint(0, size, (n,), generator=torch.Generator().manual_seed(3), dtype=torch.int32)
    perm[-1] = size - 1  # the last element of x, next to the guard page
    idx = guarded_like(perm, "end")
    out = guarded(n, torch.float32)
    gather_kernel[(triton.cdiv(n, block),)](x, idx, out, n, BLOCK=block)
    torch.testing.assert_close(out, x[perm.long()], rtol=0, atol=0)


def case_scatter(n, block):
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(4)).to(torch.int32)
    src = guarded_like(random(n, torch.float32), "end")
    idx = guarded_like(perm, "end")
    out = guarded(n, torch.float32, "end")
    out.fill_(0)
    scatter_kernel[(triton.cdiv(n, block),)](src, idx, out, n, BLOCK=block)
    expected = torch.zeros(n)
    expected[perm.long()] = src
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


def case_atomic(n, block):
    bins = 7
    idx = guarded_like(torch.arange(n, dtype=torch.int32) % bins, "end")
    out = guarded(bins, torch.int32, "end")
    out.fill_(0)
    masked_atomic_kernel[(triton.cdiv(n, block),)](out, idx, n, BLOCK=block)
    assert torch.equal(out, torch.bincount(idx.long(), minlength=bins).to(torch.int32))


def case_sparse_mask(n, block, place):
    x = random(n, torch.float32)
    gx, out = guarded_like(x, place), guarded(n, torch.float32, place)
    sparse_mask_kernel[(triton.cdiv(n, block),)](gx, out, n, BLOCK=block)
    expected = torch.where(torch.arange(n) % 3 != 1, x, torch.tensor(-1.0))
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


def case_descriptor(M, N, place):
    # TensorDescriptor wants a 16-byte aligned base and row stride: M * N and N divisible by 4.
    x = _matrix(M, N, N, place)
    y = _matrix(M, N, N, place, seed=1)
    BM, BN = 16, 16
    xd = TensorDescriptor(x, [M, N], [N, 1], [BM, BN])
    yd = TensorDescriptor(y, [M, N], [N, 1], [BM, BN])
    descriptor_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](xd, yd, BM=BM, BN=BN)
    torch.testing.assert_close(y, x * 2, rtol=0, atol=0)


CASES = {
    **{
        f"tail_1d-{str(dtype)[6:]}-{place}-{n}-{block}": (case_tail_1d, (dtype, place, n, block))
        for dtype in (torch.float32, torch.int8, torch.float16, torch.float64)
        for place in ("end", "start")
        for n, block in ((1, 16), (1000, 256), (4099, 1024))
    },
    "reverse-1000": (case_reverse, (1000, 256)),
    "reverse-7": (case_reverse, (7, 64)),
    **{
        f"tile_2d-{M}x{N}-ld{ld}-{place}": (case_tile_2d, (M, N, ld, place))
        for M, N, ld in ((37, 45, 45), (37, 45, 50), (5, 3, 3), (64, 64, 64))
        for place in ("end", "start")
    },
    "row_sum-13x29": (case_row_sum, (13, 29, 29)),
    "row_sum-9x100-ld101": (case_row_sum, (9, 100, 101)),
    "gather-1000": (case_gather, (1000, 256)),
    "gather-5": (case_gather, (5, 64)),
    "scatter-1000": (case_scatter, (1000, 256)),
    "atomic-1000": (case_atomic, (1000, 256)),
    "sparse_mask-end": (case_sparse_mask, (1001, 256, "end")),
    "sparse_mask-start": (case_sparse_mask, (1001, 256, "start")),
    "descriptor-37x44-end": (case_descriptor, (37, 44, "end")),
    "descriptor-37x44-start": (case_descriptor, (37, 44, "start")),
}


def run_cases(names):
    for name in names:
        print(f"case {name}", flush=True)
        fn, args = CASES[name] if name != "unmasked_tail" else (case_unmasked_tail, (1000, 256))
        fn(*args)
    print("all passed", flush=True)


# One child per group of cases: each child pays for importing torch and triton once.
GROUPS = {}
for _name in CASES:
    GROUPS.setdefault(_name.split("-")[0], []).append(_name)


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_masked_accesses_stay_inside_the_mask(group):
    result = subprocess.run(
        [sys.executable, __file__, *GROUPS[group]], capture_output=True, text=True, timeout=600, check=False
    )
    started = [line[5:] for line in result.stdout.splitlines() if line.startswith("case ")]
    where = f"case {started[-1]}" if started else "start-up"
    if result.returncode < 0:
        pytest.fail(
            f"{where} died of signal {-result.returncode} (an access outside the mask?)\n{result.stderr}"
        )
    assert result.returncode == 0, f"{where} failed:\n{result.stderr}"
    assert "all passed" in result.stdout


def died_of_segv(result) -> bool:
    """SIGSEGV, or under AddressSanitizer (scripts/sanitize.sh) its report and abort."""
    return result.returncode == -11 or (
        result.returncode == -6 and "AddressSanitizer: SEGV" in (result.stderr or "")
    )


def test_an_unmasked_tail_faults():
    """The check itself: a kernel that reads a tail without a mask touches the guard page."""
    result = subprocess.run(
        [sys.executable, __file__, "unmasked_tail"], capture_output=True, text=True, check=False
    )
    assert died_of_segv(result), result.stderr


def test_guard_pages_fault():
    """The harness itself: touching the byte after a guarded tensor kills the child."""
    code = (
        "import sys, ctypes; sys.path.insert(0, sys.argv[1]); import test_guard_pages as g, torch; "
        "t = g.guarded(10, torch.int8); t[9] = 1; "
        "ctypes.c_char.from_address(t.data_ptr() + 10).value"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True, check=False
    )
    assert died_of_segv(result), result.stderr


if __name__ == "__main__":
    run_cases(sys.argv[1:])
