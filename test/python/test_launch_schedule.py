"""How the launcher spreads a grid over threads (docs/kernel-abi.md, "The launcher").

The entry point here is a Python callback (ctypes) instead of a compiled kernel: it records the
programs that ran, in order, and can hold a program back, which a kernel cannot do. The launch
releases the GIL, so the OpenMP threads take turns in the callback.
"""

import ctypes
import threading

import pytest
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


def launch(callback, grid, num_threads):
    entry = ENTRY(callback)  # Kept alive for the whole launch.
    _C.launch(ctypes.cast(entry, ctypes.c_void_p).value, ARGS, *grid, num_threads)


@pytest.mark.parametrize("grid", [(1, 1, 1), (37, 1, 1), (5, 3, 2), (1, 7, 3)])
@pytest.mark.parametrize("num_threads", [1, 2, 3, 8])
def test_every_program_runs_once(grid, num_threads):
    runs = []  # (pid_x, pid_y, pid_z, grid) in the order they ran

    def record(args, x, y, z, gx, gy, gz):
        runs.append((x, y, z, (gx, gy, gz)))

    launch(record, grid, num_threads)
    in_order = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
    assert sorted(runs, key=lambda r: r[2::-1]) == [(*pid, grid) for pid in in_order]
    if num_threads == 1:
        # One thread runs the grid in order, pid_x fastest. With more, which thread runs which
        # programs, and how often one takes programs from another, depends on timing.
        assert [r[:3] for r in runs] == in_order


@pytest.mark.parametrize("num_threads", [2, 3])
def test_a_held_program_does_not_hold_up_the_rest_of_its_share(num_threads):
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

    launch(run, (total, 1, 1), num_threads)
    assert waited == [True], f"these programs waited for program 0: {waited}"
    assert sorted(done) == list(range(1, total))
