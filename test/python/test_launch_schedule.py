"""How the launcher spreads a grid over threads (docs/kernel-abi.md, "The launcher").

The entry point here is a Python callback (ctypes) instead of a compiled kernel: it records the
programs that ran, in order, and can hold a program back, which a kernel cannot do. The launch
releases the GIL, so the OpenMP threads take turns in the callback.
"""

import ctypes
import threading

import pytest
import torch
import triton
import triton.language as tl
from spine_triton import _C

ENTRY = ctypes.CFUNCTYPE(
    None,
    ctypes.POINTER(ctypes.c_uint64),
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
)
ARGS = bytes(8)


def launch(callback, grid, num_threads, independent_programs=False):
    entry = ENTRY(callback)  # Kept alive for the whole launch.
    _C.launch(ctypes.cast(entry, ctypes.c_void_p).value, ARGS, *grid, num_threads, independent_programs)


# Independent programs are claimed several at a time (as many as ran in about 20 us at the pace of
# the last claim): a callback takes microseconds, so the larger grids make claims of many programs.
@pytest.mark.parametrize("independent_programs", [False, True])
@pytest.mark.parametrize("grid", [(1, 1, 1), (37, 1, 1), (5, 3, 2), (1, 7, 3), (3000, 1, 1), (50, 20, 3)])
@pytest.mark.parametrize("num_threads", [1, 2, 3, 8])
def test_every_program_runs_once(grid, num_threads, independent_programs):
    runs = []  # (pid_x, pid_y, pid_z, grid) in the order they ran

    def record(args, x, y, z, gx, gy, gz):
        runs.append((x, y, z, (gx, gy, gz)))

    launch(record, grid, num_threads, independent_programs)
    in_order = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
    assert sorted(runs, key=lambda r: r[2::-1]) == [(*pid, grid) for pid in in_order]
    if num_threads == 1:
        # One thread runs the grid in order, pid_x fastest. With more, which thread runs which
        # programs, and how often one takes programs from another, depends on timing.
        assert [r[:3] for r in runs] == in_order


@pytest.mark.parametrize("independent_programs", [False, True])
@pytest.mark.parametrize("num_threads", [2, 3])
def test_a_held_program_does_not_hold_up_the_rest_of_its_share(num_threads, independent_programs):
    """Program 0 waits until every other program has run. With each thread bound to its own
    share, the rest of program 0's share would wait for it and the wait would time out; the
    other threads take them instead."""
    total = 64
    done = []
    others_done = threading.Event()
    waited = []

    def run(args, x, y, z, gx, gy, gz):
        if x == 0:
            finished = others_done.wait(timeout=20)
            waited.append(finished or sorted(set(range(1, total)) - set(done)))
        else:
            done.append(x)
            if len(done) == total - 1:
                others_done.set()

    # A thread's first claim is one program, also of independent ones.
    launch(run, (total, 1, 1), num_threads, independent_programs)
    assert waited == [True], f"these programs waited for program 0: {waited}"
    assert sorted(done) == list(range(1, total))


# Compiled kernels: which claim their programs one at a time.

# A poll that never sees its value fails the test after this long instead of hanging it.
SAFETY_TIMEOUT_NS = tl.constexpr(5_000_000_000)


@triton.jit
def wait_for_next_program_kernel(flag_ptr, seen_ptr, out_ptr, WAITER: tl.constexpr):
    pid = tl.program_id(0)
    if pid == WAITER:
        tl.store(seen_ptr, tl.atomic_poll(flag_ptr, 1, timeout_ns=SAFETY_TIMEOUT_NS))
    if pid == WAITER + 1:
        tl.atomic_xchg(flag_ptr, 1)
    tl.store(out_ptr + pid, pid + 1)


def test_a_program_waiting_for_a_later_one_of_its_share_gets_it_run():
    """Program 20 waits for program 21, which is in the same thread's share. Claimed one at a time
    (the kernel has atomics), program 21 is taken by the other thread; had the quick programs
    before it been claimed by the thousand, 21 would be held by the waiting thread."""
    grid = 64
    flag = torch.zeros(1, dtype=torch.int32)
    seen = torch.zeros(1, dtype=torch.bool)
    out = torch.zeros(grid, dtype=torch.int32)
    kernel = wait_for_next_program_kernel[(grid,)](flag, seen, out, WAITER=20, num_threads=2)
    assert not kernel.metadata.independent_programs
    assert seen.item()
    assert torch.equal(out, torch.arange(1, grid + 1, dtype=torch.int32))


@triton.jit
def store_program_id_kernel(out_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, pid + 1)


@triton.jit
def volatile_load_kernel(src_ptr, out_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.load(src_ptr + pid, volatile=True))


@triton.jit
def atomic_add_kernel(out_ptr):
    tl.atomic_add(out_ptr + tl.program_id(0), 1)


@pytest.mark.parametrize("num_threads", [2, 3])
def test_independent_programs_are_claimed_together_and_all_run(num_threads):
    grid = 1 << 17
    out = torch.zeros(grid, dtype=torch.int32)
    kernel = store_program_id_kernel[(grid,)](out, num_threads=num_threads)
    assert kernel.metadata.independent_programs
    assert torch.equal(out, torch.arange(1, grid + 1, dtype=torch.int32))


def test_atomics_and_volatile_loads_make_programs_dependent():
    out = torch.zeros(4, dtype=torch.int32)
    assert not atomic_add_kernel[(4,)](out).metadata.independent_programs
    assert torch.equal(out, torch.ones(4, dtype=torch.int32))
    src = torch.arange(4, dtype=torch.int32)
    assert not volatile_load_kernel[(4,)](src, out).metadata.independent_programs
    assert torch.equal(out, src)
