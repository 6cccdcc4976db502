"""Memory: launches do not grow the process, compiling stays within a stated bound, and kernels
free everything they allocate.

Heap use is read with glibc's mallinfo2 (bytes in use over all arenas, the OpenMP threads' ones
included), which sees a leak of a few bytes per launch; RSS (/proc/self/statm) is the coarser,
user-visible number. Both are measured after a warm-up, so one-time set-up (thread pools, LLVM's
target registry, triton's caches) does not count.

Compiling 1,000 distinct kernels takes about 8 minutes on 2 cores, so the default run compiles
KERNELS_CI of them; SPINE_TRITON_LONG_TESTS=1 compiles 1,000. The bound is per kernel, because
triton keeps every compiled kernel (its stages' text and its loaded library) for the process's
lifetime: README.md records the measured figure.
"""

import ctypes
import os
import re
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

# Under scripts/sanitize.sh, ASan's allocator keeps freed memory in quarantine and glibc's
# mallinfo2 does not see its heap: there is nothing to measure.
pytestmark = pytest.mark.skipif(
    "libasan" in os.environ.get("LD_PRELOAD", ""), reason="memory is not measurable under ASan"
)

KERNELS_CI = 40
KERNELS_LONG = 1000
# RSS growth allowed per distinct compiled kernel (measured: about 220 KiB, most of it the text of
# its stages that triton keeps in CompiledKernel.asm).
RSS_PER_KERNEL = 512 * 1024
LAUNCHES = 10_000


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
            "fordblks", "keepcost",
        )
    ]  # fmt: skip


_libc = ctypes.CDLL(None)
_libc.mallinfo2.restype = _MallInfo2


def heap_in_use() -> int:
    """Bytes malloc has handed out and not had back, in every arena (mmapped blocks included)."""
    info = _libc.mallinfo2()
    return info.uordblks + info.hblkhd


def rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# --------------------------------------------------------------------------------------------
# Kernels: vector add allocates nothing; the others allocate buffers inside the kernel. Tiles of
# up to 64 KiB live on the stack (spine-stack-buffers), so these are sized to need the heap.


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def sort_kernel(x_ptr, out_ptr, R: tl.constexpr, N: tl.constexpr):
    offs = tl.program_id(0) * R * N + tl.arange(0, R)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs)))


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)[:, None]
    rn = tl.arange(0, N)[None, :]
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn)
    tl.store(c_ptr + rm * N + rn, tl.dot(a, b))


@triton.jit
def row_sum_2d_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # Every other column: a tile copied into a 128 KiB heap buffer (a contiguous tile would be
    # read in place).
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * (2 * N) + tl.arange(0, N)[None, :] * 2)
    tl.store(out_ptr + tl.arange(0, M), tl.sum(x, axis=1))


def _allocating_launches():
    """(name, launch function, check function) for each kernel that allocates."""
    torch.manual_seed(0)
    x = torch.randn(2 * 32768)
    out = torch.empty_like(x)
    rows = torch.randn(2, 20000)
    rows_out = torch.empty_like(rows)
    a, b, c = torch.randn(256, 32), torch.randn(32, 128), torch.empty(256, 128)
    m = torch.randn(128, 512)
    sums = torch.empty(128)
    return [
        (
            "sort",
            lambda: sort_kernel[(2,)](x, out, R=2048, N=16),
            lambda: torch.equal(out, x.view(4096, 16).sort(dim=1).values.view(-1)),
        ),
        (
            "cumsum",
            lambda: cumsum_kernel[(2,)](x, out, N=32768),
            lambda: torch.allclose(out, x.view(2, 32768).cumsum(dim=1).view(-1), rtol=1e-4, atol=1e-2),
        ),
        (
            "softmax",
            lambda: softmax_kernel[(2,)](rows, rows_out, 20000, BLOCK=32768),
            lambda: torch.allclose(rows_out, torch.softmax(rows, dim=1), atol=1e-6),
        ),
        (
            "matmul",
            lambda: matmul_kernel[(1,)](a, b, c, M=256, N=128, K=32),
            lambda: torch.allclose(c, a @ b, atol=1e-4),
        ),
        (
            "row_sum_2d",
            lambda: row_sum_2d_kernel[(1,)](m, sums, M=128, N=256),
            lambda: torch.allclose(sums, m[:, ::2].sum(dim=1), atol=1e-4),
        ),
    ]


# --------------------------------------------------------------------------------------------


def test_launches_leave_memory_flat():
    x, y = torch.rand(5000), torch.rand(5000)
    out = torch.empty_like(x)
    # The vector add runs on one thread: a parallel launch costs about 1 ms on a loaded 2-core
    # machine (and about 100 us on one thread), so the allocating kernels, every 100th launch,
    # cover the OpenMP threads and their malloc arenas.
    add = lambda: add_kernel[(5,)](x, y, out, 5000, BLOCK=1024, num_threads=1)
    others = [launch for _, launch, _ in _allocating_launches()]
    for launch in [add, *others]:  # compile, and let every arena and pool reach its size
        for _ in range(100):
            launch()
    heap, resident = heap_in_use(), rss()
    for i in range(LAUNCHES):
        add()
        if i % 100 == 0:
            for launch in others:
                launch()
    heap_growth, rss_growth = heap_in_use() - heap, rss() - resident
    # A leak of 8 bytes per launch would be 80 KB.
    assert heap_growth < 64 * 1024, f"heap grew by {heap_growth} bytes over {LAUNCHES} launches"
    assert rss_growth < 2 * 1024 * 1024, f"RSS grew by {rss_growth} bytes over {LAUNCHES} launches"
    torch.testing.assert_close(out, x + y)


@pytest.mark.parametrize("case", range(5), ids=[c[0] for c in _allocating_launches()])
def test_kernel_frees_every_allocation(case):
    name, launch, check = _allocating_launches()[case]
    kernel = launch()  # a launch returns the CompiledKernel
    assert check(), f"{name}: wrong result"
    # The kernel does allocate (else this test would prove nothing) ...
    llir = kernel.asm["llir"]
    assert re.search(r"call .*@(malloc|aligned_alloc)\(", llir), f"{name} allocates nothing"
    # ... and gives it all back, on every launch, from every thread.
    for _ in range(100):
        launch()
    before = heap_in_use()
    for _ in range(300):
        launch()
    growth = heap_in_use() - before
    assert growth < 8 * 1024, f"{name}: heap grew by {growth} bytes over 300 launches"


@triton.jit
def running_logsumexp_kernel(x_ptr, out_ptr, n_blocks, R: tl.constexpr, C: tl.constexpr):
    # Flash attention's running maximum: each step computes the new maximum while it still reads
    # the old one, so the maximum cannot be updated in place.
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    m = tl.full([R], float("-inf"), tl.float32)
    s = tl.zeros([R], tl.float32)
    for i in range(n_blocks):
        x = tl.load(x_ptr + rows[:, None] * (n_blocks * C) + i * C + cols[None, :])
        m_new = tl.maximum(m, tl.max(x, 1))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), 1)
        m = m_new
    tl.store(out_ptr + rows, m + tl.log(s))


def test_running_maximum_is_not_allocated_per_iteration():
    """A loop-carried block that cannot be updated in place took a malloc and a free per iteration;
    spine-stack-buffers gives it two stack buffers used in turns: no heap call is left."""
    torch.manual_seed(4)
    x = torch.randn(16, 7 * 64) * 4
    out = torch.empty(16)
    kernel = running_logsumexp_kernel[(1,)](x, out, 7, R=16, C=64)
    torch.testing.assert_close(out, torch.logsumexp(x, dim=1), rtol=1e-5, atol=1e-5)
    assert not re.search(r"call .*@(malloc|free)\(", kernel.asm["llir"])
    # One block (the first iteration alone reads the initial maximum) and an even count.
    for blocks in (1, 2):
        y = x[:, : blocks * 64].contiguous()
        running_logsumexp_kernel[(1,)](y, out, blocks, R=16, C=64)
        torch.testing.assert_close(out, torch.logsumexp(y, dim=1), rtol=1e-5, atol=1e-5)


@triton.jit
def scaled_kernel(x_ptr, out_ptr, n, C: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * C + 1, mask=mask)


def test_compiling_many_kernels_stays_within_bound():
    count = KERNELS_LONG if os.environ.get("SPINE_TRITON_LONG_TESTS") == "1" else KERNELS_CI
    x = torch.rand(100)
    out = torch.empty_like(x)
    scaled_kernel[(1,)](x, out, 100, C=-1, BLOCK=128)  # the first compilation's one-time set-up
    heap, resident = heap_in_use(), rss()
    # Each constexpr value is a distinct kernel.
    kernels = {scaled_kernel[(1,)](x, out, 100, C=c, BLOCK=128) for c in range(count)}
    assert len(kernels) == count
    rss_growth = rss() - resident
    heap_growth = heap_in_use() - heap
    # After measuring: torch.testing's first use in a process maps about 40 MiB.
    torch.testing.assert_close(out, x * (count - 1) + 1)
    print(f"{count} kernels: RSS +{rss_growth / 2**20:.1f} MiB, heap +{heap_growth / 2**20:.1f} MiB")
    assert rss_growth < count * RSS_PER_KERNEL, f"RSS grew {rss_growth / count / 1024:.0f} KiB per kernel"


def test_compiler_stages_free_their_memory():
    """The in-process stages on one kernel, again and again: every MLIR context, LLVM module and
    target machine is freed (a leaked context alone is megabytes)."""
    from spine_triton import _C, targets

    text = (Path(__file__).parent.parent / "corpus" / "ttir" / "softmax_rows.ttir").read_text()
    target = targets.resolve("native")

    def compile_once():
        linalg = _C.run_pipeline(text, "builtin.module(triton-to-linalg-experimental)")
        llmlir = _C.run_pipeline(linalg, "builtin.module(spine-triton-pipeline)")
        llir = _C.translate_to_llvmir(llmlir)
        llir = _C.optimize_llvmir(llir, target.triple, target.cpu, target.features)
        _C.compile_llvmir(llir, target.triple, target.cpu, target.features, optimize=False)

    for _ in range(2):
        compile_once()
    before = heap_in_use()
    for _ in range(10):
        compile_once()
    growth = heap_in_use() - before
    assert growth < 256 * 1024, f"heap grew by {growth} bytes over 10 compilations"
