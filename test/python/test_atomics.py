"""Atomics end to end against torch: every tl.atomic_* flavour, scalar and block, masked, with many
programs of the parallel grid hitting the same addresses, and the old values they return; and
tl.atomic_poll, waiting for values other programs store."""

import platform
import shutil
import time

import pytest
import torch
import triton
import triton.language as tl
from triton.backends.spine_triton.driver import CPUDriver

# Enough programs that both of the launcher's threads contend for the same addresses.
PROGRAMS = 64
BLOCK = 128


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x % BINS, 1, mask=mask)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_histogram_by_atomic_add_is_exact(dtype):
    n = PROGRAMS * BLOCK - 37  # a partial last block: masked-off lanes must not count
    x = torch.randint(0, 1000, (n,), dtype=torch.int32)
    hist = torch.zeros(16, dtype=dtype)
    histogram_kernel[(triton.cdiv(n, BLOCK),)](x, hist, n, BINS=16, BLOCK=BLOCK)
    assert torch.equal(hist, torch.bincount(x % 16, minlength=16).to(dtype))


@triton.jit
def scatter_add_kernel(idx_ptr, src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.atomic_add(dst_ptr + idx, tl.load(src_ptr + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
def test_float_scatter_add(dtype):
    n = PROGRAMS * BLOCK
    idx = torch.randint(0, 8, (n,), dtype=torch.int32)
    # Small integers keep every partial sum exact in any order, even in fp16.
    src = torch.randint(-3, 4, (n,)).to(dtype)
    dst = torch.zeros(8, dtype=dtype)
    scatter_add_kernel[(triton.cdiv(n, BLOCK),)](idx, src, dst, n, BLOCK=BLOCK)
    ref = torch.zeros(8, dtype=torch.float64).index_add_(0, idx.long(), src.double())
    assert torch.equal(dst.double(), ref)


def test_float_scatter_add_random_values():
    n = PROGRAMS * BLOCK
    idx = torch.randint(0, 32, (n,), dtype=torch.int32)
    src = torch.randn(n)
    dst = torch.zeros(32)
    scatter_add_kernel[(triton.cdiv(n, BLOCK),)](idx, src, dst, n, BLOCK=BLOCK)
    ref = torch.zeros(32, dtype=torch.float64).index_add_(0, idx.long(), src.double())
    torch.testing.assert_close(dst.double(), ref, rtol=1e-5, atol=1e-4)


@triton.jit
def ticket_kernel(counter_ptr, tickets_ptr):
    # A scalar atomic returns the value before the add: every program gets its own ticket.
    ticket = tl.atomic_add(counter_ptr, 1, sem="relaxed")
    tl.store(tickets_ptr + tl.program_id(0), ticket)


def test_scalar_atomic_add_returns_unique_tickets():
    counter = torch.zeros(1, dtype=torch.int32)
    tickets = torch.full((1000,), -1, dtype=torch.int32)
    ticket_kernel[(1000,)](counter, tickets)
    assert counter.item() == 1000
    assert torch.equal(tickets.sort().values, torch.arange(1000, dtype=torch.int32))


@triton.jit
def masked_old_values_kernel(ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_add(ptr + offs, 10, mask=offs < n)
    tl.store(old_ptr + offs, old)


def test_masked_lanes_are_untouched_and_return_zero():
    x = torch.arange(1, 33, dtype=torch.int32)
    old = torch.full((32,), -1, dtype=torch.int32)
    masked_old_values_kernel[(1,)](x, old, 20, BLOCK=32)
    expected = torch.arange(1, 33, dtype=torch.int32)
    assert torch.equal(old[:20], expected[:20])
    assert torch.equal(old[20:], torch.zeros(12, dtype=torch.int32))
    expected[:20] += 10
    assert torch.equal(x, expected)


@triton.jit
def minmax_kernel(x_ptr, max_ptr, min_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.atomic_max(max_ptr + offs % BINS, x, mask=mask)
    tl.atomic_min(min_ptr + offs % BINS, x, mask=mask)


def _int_range(dtype):
    return torch.iinfo(dtype).min, torch.iinfo(dtype).max


def _bin_reduce(x, bins, reduce):
    index = torch.arange(x.numel()) % bins
    init = torch.zeros(bins, dtype=x.dtype)
    return init.scatter_reduce(0, index, x, reduce, include_self=False)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float64])
def test_atomic_max_min_with_negative_values(dtype):
    n = PROGRAMS * BLOCK - 5
    if dtype.is_floating_point:
        # Floats go through triton's sign split (signed max of the bits for >= 0, unsigned min for < 0).
        x = torch.randn(n, dtype=dtype) * 100
    else:
        x = torch.randint(-(2**30), 2**30, (n,), dtype=dtype)
    bins = 8
    lowest, highest = (-torch.inf, torch.inf) if dtype.is_floating_point else _int_range(dtype)
    hi = torch.full((bins,), lowest, dtype=dtype)
    lo = torch.full((bins,), highest, dtype=dtype)
    minmax_kernel[(triton.cdiv(n, BLOCK),)](x, hi, lo, n, BINS=bins, BLOCK=BLOCK)
    assert torch.equal(hi, _bin_reduce(x, bins, "amax"))
    assert torch.equal(lo, _bin_reduce(x, bins, "amin"))


@triton.jit
def unsigned_minmax_kernel(x_ptr, max_ptr, min_ptr, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.uint32, bitcast=True)
    tl.atomic_max(max_ptr.to(tl.pointer_type(tl.uint32)) + offs % BINS, x)
    tl.atomic_min(min_ptr.to(tl.pointer_type(tl.uint32)) + offs % BINS, x)


def test_unsigned_atomic_max_min():
    # umax/umin compare the bits as unsigned: negative int32 values are the largest.
    n = PROGRAMS * BLOCK
    x = torch.randint(-(2**31), 2**31 - 1, (n,), dtype=torch.int32)
    hi = torch.zeros(8, dtype=torch.int32)
    lo = torch.full((8,), -1, dtype=torch.int32)  # 0xffffffff, the unsigned maximum
    unsigned_minmax_kernel[(n // BLOCK,)](x, hi, lo, BINS=8, BLOCK=BLOCK)
    unsigned = x.long() & 0xFFFFFFFF
    assert torch.equal(hi.long() & 0xFFFFFFFF, _bin_reduce(unsigned, 8, "amax"))
    assert torch.equal(lo.long() & 0xFFFFFFFF, _bin_reduce(unsigned, 8, "amin"))


@triton.jit
def bitwise_kernel(and_src, or_src, xor_src, and_ptr, or_ptr, xor_ptr, BLOCK: tl.constexpr):
    # Every program updates the same BLOCK words.
    offs = tl.arange(0, BLOCK)
    src = tl.program_id(0) * BLOCK + offs
    tl.atomic_and(and_ptr + offs, tl.load(and_src + src))
    tl.atomic_or(or_ptr + offs, tl.load(or_src + src))
    tl.atomic_xor(xor_ptr + offs, tl.load(xor_src + src))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_atomic_and_or_xor(dtype):
    n = PROGRAMS * BLOCK
    bits = torch.iinfo(dtype).bits
    # One random bit in one value out of eight: AND clears, and OR sets, only some bits of a word.
    one_bit = torch.ones(n, dtype=dtype) << torch.randint(0, bits, (n,), dtype=dtype)
    sparse = one_bit * (torch.rand(n) < 0.125)
    x = torch.randint(*_int_range(dtype), (n,), dtype=dtype)
    acc_and = torch.full((BLOCK,), -1, dtype=dtype)
    acc_or = torch.zeros(BLOCK, dtype=dtype)
    acc_xor = torch.zeros(BLOCK, dtype=dtype)
    ref_and, ref_or, ref_xor = acc_and.clone(), acc_or.clone(), acc_xor.clone()
    bitwise_kernel[(PROGRAMS,)](~sparse, sparse, x, acc_and, acc_or, acc_xor, BLOCK=BLOCK)
    for row, value in zip(sparse.view(PROGRAMS, BLOCK), x.view(PROGRAMS, BLOCK)):
        ref_and &= ~row
        ref_or |= row
        ref_xor ^= value
    assert torch.equal(acc_and, ref_and)
    assert torch.equal(acc_or, ref_or)
    assert torch.equal(acc_xor, ref_xor)
    assert (ref_and != -1).any() and (ref_or != 0).any()


@triton.jit
def xchg_kernel(ptr, new_ptr, old_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    old = tl.atomic_xchg(ptr + offs, tl.load(new_ptr + offs))
    tl.store(old_ptr + offs, old)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float64])
def test_atomic_xchg_returns_old_values(dtype):
    n = 4 * BLOCK
    x = torch.randn(n).mul(1000).to(dtype)
    new = torch.randn(n).mul(1000).to(dtype)
    original = x.clone()
    old = torch.empty_like(x)
    xchg_kernel[(n // BLOCK,)](x, new, old, BLOCK=BLOCK)
    assert torch.equal(old, original)
    assert torch.equal(x, new)


@triton.jit
def cas_kernel(ptr, cmp_ptr, val_ptr, old_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    old = tl.atomic_cas(ptr + offs, tl.load(cmp_ptr + offs), tl.load(val_ptr + offs))
    tl.store(old_ptr + offs, old)


@pytest.mark.parametrize("dtype", [torch.int16, torch.int32, torch.int64, torch.float32, torch.float16])
def test_atomic_cas_per_element(dtype):
    n = 2 * BLOCK
    x = torch.randint(-100, 100, (n,)).to(dtype)
    hit = torch.rand(n) < 0.5
    cmp = torch.where(hit, x, x + 1)
    val = torch.randint(-100, 100, (n,)).to(dtype)
    original = x.clone()
    old = torch.empty_like(x)
    cas_kernel[(n // BLOCK,)](x, cmp, val, old, BLOCK=BLOCK)
    assert torch.equal(old, original)
    assert torch.equal(x, torch.where(hit, val, original))


@triton.jit
def cas_counter_kernel(counter_ptr, ITERS: tl.constexpr):
    # A lock-free increment: retry the compare-and-swap until nobody raced us.
    for _ in range(ITERS):
        seen = tl.atomic_load(counter_ptr, sem="relaxed")
        while tl.atomic_cas(counter_ptr, seen, seen + 1, sem="acq_rel") != seen:
            seen = tl.atomic_load(counter_ptr, sem="relaxed")


def test_lock_free_counter_by_cas():
    counter = torch.zeros(1, dtype=torch.int64)
    cas_counter_kernel[(256,)](counter, ITERS=50)
    assert counter.item() == 256 * 50


@triton.jit
def spin_lock_kernel(lock_ptr, counter_ptr, ITERS: tl.constexpr):
    # Plain loads and stores made safe by a lock: acquire by CAS, release by exchange.
    for _ in range(ITERS):
        while tl.atomic_cas(lock_ptr, 0, 1, sem="acquire") == 1:
            pass
        tl.store(counter_ptr, tl.load(counter_ptr) + 1)
        tl.atomic_xchg(lock_ptr, 0, sem="release")


def test_spin_lock_protects_plain_accesses():
    lock = torch.zeros(1, dtype=torch.int32)
    counter = torch.zeros(1, dtype=torch.int32)
    spin_lock_kernel[(128,)](lock, counter, ITERS=40)
    assert counter.item() == 128 * 40
    assert lock.item() == 0


@triton.jit
def group_sums_under_locks(x_ptr, sums_ptr, locks_ptr, counts_ptr, n_cols, GROUPS: tl.constexpr,
                           BLOCK: tl.constexpr):  # fmt: skip
    # Tutorial 05's backward pass: each row adds itself to its group's sum under the group's
    # lock, the first one storing instead; tl.debug_barrier orders the writes before the release.
    row = tl.program_id(0)
    group = row % GROUPS
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    while tl.atomic_cas(locks_ptr + group, 0, 1) == 1:
        pass
    sums = sums_ptr + group * n_cols + cols
    if tl.load(counts_ptr + group) == 0:
        tl.atomic_xchg(counts_ptr + group, 1)
    else:
        x += tl.load(sums, mask=mask)
    tl.store(sums, x, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(locks_ptr + group, 0)


@pytest.mark.parametrize("threads", [1, 2])
def test_group_sums_under_locks_with_a_barrier(threads):
    rows, n_cols, groups = 96, 100, 4
    x = torch.randn(rows, n_cols)
    sums = torch.full((groups, n_cols), float("nan"))
    locks = torch.zeros(groups, dtype=torch.int32)
    counts = torch.zeros(groups, dtype=torch.int32)
    group_sums_under_locks[(rows,)](
        x, sums, locks, counts, n_cols, GROUPS=groups, BLOCK=128, num_threads=threads
    )  # fmt: skip
    expected = x.reshape(rows // groups, groups, n_cols).sum(dim=0)
    torch.testing.assert_close(sums, expected, rtol=1e-5, atol=1e-5)
    assert torch.equal(locks, torch.zeros_like(locks))


@triton.jit
def atomic_load_store_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    seen = tl.atomic_load(src_ptr + offs, mask=mask, sem="acquire")
    tl.atomic_store(dst_ptr + offs, seen * 2, mask=mask, sem="release")


@pytest.mark.parametrize("dtype", [torch.int32, torch.float32, torch.float16])
def test_atomic_load_store(dtype):
    src = torch.arange(64).to(dtype)
    dst = torch.full((64,), -1).to(dtype)
    atomic_load_store_kernel[(1,)](src, dst, 50, BLOCK=64)
    expected = torch.full((64,), -1).to(dtype)
    expected[:50] = src[:50] * 2
    assert torch.equal(dst, expected)


@triton.jit
def add_old_values_2d_kernel(ptr, old_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    old = tl.atomic_add(ptr + offs, offs.to(tl.float32))
    tl.store(old_ptr + offs, old)


def test_2d_block_atomic_returns_old_values():
    x = torch.randn(8, 16)
    original = x.clone()
    old = torch.empty_like(x)
    add_old_values_2d_kernel[(1,)](x, old, M=8, N=16)
    assert torch.equal(old, original)
    assert torch.equal(x, original + torch.arange(128, dtype=torch.float32).view(8, 16))


# tl.atomic_poll: the safety net of the tests that wait for another program. A poll that never
# saw its value fails the test after this long instead of hanging it.
SAFETY_TIMEOUT_NS = 5_000_000_000


@triton.jit
def poll_kernel(
    flags_ptr, expected, seen_ptr, TIMEOUT_NS: tl.constexpr, SEM: tl.constexpr, BLOCK: tl.constexpr
):
    offs = tl.arange(0, BLOCK)
    seen = tl.atomic_poll(flags_ptr + offs, expected, sem=SEM, timeout_ns=TIMEOUT_NS)
    tl.store(seen_ptr + offs, seen)


@pytest.mark.parametrize("dtype", [torch.int16, torch.int32, torch.int64])
@pytest.mark.parametrize("timeout_ns", [None, 0])
@pytest.mark.parametrize("sem", ["acquire", "relaxed"])
def test_poll_values_already_present(dtype, timeout_ns, sem):
    # Every element is loaded at least once: present values are seen even with a zero timeout.
    flags = torch.full((64,), 7, dtype=dtype)
    seen = torch.zeros(64, dtype=torch.bool)
    poll_kernel[(1,)](flags, 7, seen, TIMEOUT_NS=timeout_ns, SEM=sem, BLOCK=64)
    assert seen.all()
    assert torch.equal(flags, torch.full((64,), 7, dtype=dtype))


def test_poll_zero_timeout_reports_absent_values():
    flags = torch.zeros(64, dtype=torch.int32)
    flags[::3] = 7
    seen = torch.ones(64, dtype=torch.bool)
    poll_kernel[(1,)](flags, 7, seen, TIMEOUT_NS=0, SEM="acquire", BLOCK=64)
    assert torch.equal(seen, flags == 7)


def test_poll_timeout_is_one_budget_for_the_block():
    # 32 absent values and 0.2 s: the block gives up after about 0.2 s, not 32 times that.
    flags = torch.zeros(32, dtype=torch.int64)
    seen = torch.ones(32, dtype=torch.bool)
    kernel = poll_kernel[(1,)](flags, 1, seen, TIMEOUT_NS=200_000_000, SEM="relaxed", BLOCK=32)
    assert not seen.any()
    assert "clock_gettime" in kernel.asm["llir"]
    start = time.monotonic()
    poll_kernel[(1,)](flags, 1, seen, TIMEOUT_NS=200_000_000, SEM="relaxed", BLOCK=32)
    elapsed = time.monotonic() - start
    assert not seen.any()
    assert 0.2 <= elapsed < 1.6


@triton.jit
def poll_scalar_kernel(flag_ptr, expected, seen_ptr, timeout_ns):
    tl.store(seen_ptr, tl.atomic_poll(flag_ptr, expected, timeout_ns=timeout_ns))


@pytest.mark.parametrize("value, expected", [(5, True), (4, False)])
def test_poll_scalar_pointer_with_runtime_timeout(value, expected):
    flag = torch.tensor([value], dtype=torch.int32)
    seen = torch.tensor([not expected])
    poll_scalar_kernel[(1,)](flag, 5, seen, 1_000_000)  # 1 ms
    assert seen.item() == expected


@triton.jit
def producer_consumer_kernel(
    data_ptr, flags_ptr, out_ptr, seen_ptr, TIMEOUT_NS: tl.constexpr, BLOCK: tl.constexpr
):
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) == 1:
        # The producer: the payload, then the flags with release semantics.
        tl.store(data_ptr + offs, offs * 3 + 1)
        tl.atomic_xchg(flags_ptr + offs, 1, sem="release")
    else:
        # The consumer: an acquire poll makes the payload stored before each flag visible.
        seen = tl.atomic_poll(flags_ptr + offs, 1, sem="acquire", timeout_ns=TIMEOUT_NS)
        tl.store(seen_ptr + offs, seen)
        tl.store(out_ptr + offs, tl.load(data_ptr + offs))


def _run_producer_consumer(num_threads=2, timeout_ns=SAFETY_TIMEOUT_NS):
    data = torch.zeros(64, dtype=torch.int32)
    flags = torch.zeros(64, dtype=torch.int32)
    out = torch.full((64,), -1, dtype=torch.int32)
    seen = torch.zeros(64, dtype=torch.bool)
    kernel = producer_consumer_kernel[(2,)](
        data, flags, out, seen, TIMEOUT_NS=timeout_ns, BLOCK=64, num_threads=num_threads
    )
    return kernel, out, seen


def test_poll_waits_for_another_program():
    # Two programs on two threads: the consumer (program 0) waits for the producer (program 1).
    for _ in range(5):
        _, out, seen = _run_producer_consumer()
        assert seen.all()
        assert torch.equal(out, torch.arange(64, dtype=torch.int32) * 3 + 1)


def test_poll_for_a_program_that_runs_later_times_out():
    # On one thread program 1 runs after program 0 has given up (a GPU without co-residency).
    _, out, seen = _run_producer_consumer(num_threads=1, timeout_ns=10_000_000)
    assert not seen.any()
    assert not out.any()


@triton.jit
def masked_poll_kernel(flags_ptr, expected, seen_ptr, n, BLOCK: tl.constexpr):
    # atomic_poll has no mask operand: masked-off lanes poll a valid address (element 0) and their
    # results are not stored.
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    ptrs = tl.where(mask, flags_ptr + offs, flags_ptr)
    seen = tl.atomic_poll(ptrs, expected, timeout_ns=0)
    tl.store(seen_ptr + offs, seen, mask=mask)


def test_poll_masked_lanes():
    flags = torch.zeros(20, dtype=torch.int32)
    flags[[0, 3, 4, 11, 19]] = 9
    seen = torch.zeros(32, dtype=torch.int8)
    seen[20:] = 5
    masked_poll_kernel[(1,)](flags, 9, seen.view(torch.bool), 20, BLOCK=32)
    assert torch.equal(seen[:20], (flags == 9).to(torch.int8))
    assert torch.equal(seen[20:], torch.full((12,), 5, dtype=torch.int8))


@pytest.mark.skipif(platform.machine() == "riscv64", reason="a riscv64 host runs RISC-V kernels natively")
@pytest.mark.skipif(shutil.which("qemu-riscv64") is None, reason="qemu-riscv64 is not installed")
def test_poll_waits_for_another_program_emulated_riscv():
    driver = CPUDriver()
    driver.set_current_arch_id("0x503C")
    triton.runtime.driver.set_active(driver)
    try:
        kernel, out, seen = _run_producer_consumer()
    finally:
        triton.runtime.driver.reset_active()
    assert kernel.asm["so"][18] == 243  # EM_RISCV: qemu ran the RISC-V library
    assert seen.all()
    assert torch.equal(out, torch.arange(64, dtype=torch.int32) * 3 + 1)
