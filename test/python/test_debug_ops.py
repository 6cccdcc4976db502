"""tl.device_print, tl.device_assert and debug=True kernels (docs/kernel-abi.md, "Debug ops")."""

import inspect

import pytest
import torch
import triton
import triton.language as tl
from spine_triton.driver import DeviceAssertionError


def source_line(fn, text: str) -> int:
    """The line of this file where the kernel `fn` contains `text`."""
    lines, first = inspect.getsourcelines(fn.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def printed(capfd) -> list[str]:
    return capfd.readouterr().out.splitlines()


@triton.jit
def print_kernel(i_ptr, h_ptr, b_ptr, f, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.device_print("pid", tl.program_id(0))
    tl.device_print("f", f)
    tl.device_print("i", tl.load(i_ptr + offs))
    tl.device_print("h", tl.load(h_ptr + offs))
    tl.device_print("b", tl.load(b_ptr + offs))


def expected_print_lines(i, h, b, f, programs, block):
    lines = []
    for pid in range(programs):
        head = f"pid ({pid}, 0, 0) idx "
        lines += [head + f"() pid: {pid}", head + f"() f: {f:f}"]
        for name, values in (("i", i), ("h", h), ("b", b)):
            for j in range(block):
                value = values[pid * block + j].item()
                lines.append(
                    head + f"({j}) {name}: " + (f"{value:f}" if values.is_floating_point() else str(value))
                )
    return lines


def test_print_scalars_and_tensors_of_each_program(capfd):
    i = torch.tensor([7, -8, 2**31 - 1, -(2**31)], dtype=torch.int32)
    h = torch.tensor([1.5, -2.25, 65504.0, 0.125], dtype=torch.float16)
    b = torch.tensor([3.0, -0.5, 2.0**100, 1.0], dtype=torch.bfloat16)
    printed(capfd)
    # One thread: the programs print in launch order, pid_x fastest.
    print_kernel[(2,)](i, h, b, 0.75, BLOCK=2, num_threads=1)
    assert printed(capfd) == expected_print_lines(i, h, b, 0.75, programs=2, block=2)


def test_print_from_parallel_programs(capfd):
    i = torch.arange(64, dtype=torch.int32)
    h, b = i.half(), i.bfloat16()
    printed(capfd)
    print_kernel[(16,)](i, h, b, -1.0, BLOCK=4, num_threads=2)
    # Whole lines, in any order across programs.
    assert sorted(printed(capfd)) == sorted(expected_print_lines(i, h, b, -1.0, programs=16, block=4))


@triton.jit
def print_formats_kernel(x_ptr, y_ptr, u_ptr):
    r = tl.arange(0, 2)
    x = tl.load(x_ptr + r)
    tl.device_print("hex", x, hex=True)
    tl.device_print("two", x, tl.load(y_ptr + r))
    tl.device_print("u8", tl.load(u_ptr + r))
    tl.device_print("2d", tl.reshape(tl.arange(0, 4), (2, 2)))
    tl.device_print("100%")


def test_print_formats(capfd):
    x = torch.tensor([5, -1], dtype=torch.int32)
    y = torch.tensor([2**40, -3], dtype=torch.int64)
    u = torch.tensor([200, 7], dtype=torch.uint8)
    printed(capfd)
    print_formats_kernel[(1,)](x, y, u)
    head = "pid (0, 0, 0)"
    assert printed(capfd) == [
        f"{head} idx (0) hex: 0x00000005",
        f"{head} idx (1) hex: 0xffffffff",
        f"{head} idx (0) two: (operand 0) 5",
        f"{head} idx (1) two: (operand 0) -1",
        f"{head} idx (0) two: (operand 1) 1099511627776",
        f"{head} idx (1) two: (operand 1) -3",
        f"{head} idx (0) u8: 200",
        f"{head} idx (1) u8: 7",
        f"{head} idx (0, 0) 2d: 0",
        f"{head} idx (0, 1) 2d: 1",
        f"{head} idx (1, 0) 2d: 2",
        f"{head} idx (1, 1) 2d: 3",
        f"{head} 100%",
    ]


@triton.jit
def mark_if_positive(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x > 0, "x must be positive")
    tl.store(out_ptr + offs, x * 2)


def test_passing_assert_changes_nothing():
    x = torch.arange(1, 65, dtype=torch.int32)
    out = torch.zeros_like(x)
    kernel = mark_if_positive[(8,)](x, out, BLOCK=8, debug=True)
    assert torch.equal(out, x * 2)
    assert "tt.assert" in kernel.asm["ttir"]


def test_failing_assert_raises_and_the_next_launch_works():
    x = torch.arange(1, 65, dtype=torch.int32)
    x[43] = -1  # program 5
    out = torch.zeros_like(x)
    with pytest.raises(DeviceAssertionError) as info:
        mark_if_positive[(8,)](x, out, BLOCK=8, debug=True)
    error = info.value
    assert isinstance(error, AssertionError)
    line = source_line(mark_if_positive, "device_assert")
    assert (error.message, error.file, error.line) == ("x must be positive", __file__, line)
    assert (error.function, error.pid) == ("mark_if_positive", (5, 0, 0))
    text = str(error)
    for part in ("x must be positive", f"{__file__}:{line}", "mark_if_positive", "(5, 0, 0)"):
        assert part in text
    # The failing program stopped before its store.
    assert torch.equal(out[40:48], torch.zeros(8, dtype=torch.int32))

    # The state was cleared: the same kernel and another one run normally afterwards.
    x[43] = 44
    mark_if_positive[(8,)](x, out, BLOCK=8, debug=True)
    assert torch.equal(out, x * 2)
    y = torch.arange(5, dtype=torch.int32)
    copy = torch.zeros_like(y)
    print_free_copy[(1,)](y, copy, 5, BLOCK=8)
    assert torch.equal(copy, y)


@triton.jit
def print_free_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_kernels_without_asserts_define_no_state():
    x = torch.arange(5, dtype=torch.int32)
    kernel = print_free_copy[(1,)](x, torch.zeros_like(x), 5, BLOCK=8)
    assert "__spine_triton_assert" not in kernel.asm["llir"]


@triton.jit
def store_pid(out_ptr, bad):
    pid = tl.program_id(0)
    tl.device_assert(pid != bad, "bad program")
    tl.store(out_ptr + pid, 1)


def test_the_rest_of_the_grid_is_skipped():
    out = torch.zeros(100, dtype=torch.int32)
    # One thread runs the programs in order: those after the failing one never start.
    with pytest.raises(DeviceAssertionError, match="bad program") as info:
        store_pid[(100,)](out, 3, debug=True, num_threads=1)
    assert info.value.pid == (3, 0, 0)
    assert out[:3].tolist() == [1, 1, 1]
    assert out[3:].count_nonzero() == 0


@triton.jit
def sum_rows_checked(x_ptr, out_ptr, rows, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.load(x_ptr + cols) * 0
    for r in range(rows):
        v = tl.load(x_ptr + r * BLOCK + cols)
        tl.device_assert(v < 100, "value too large")
        acc += v
    tl.store(out_ptr + cols, acc)


def test_assert_inside_a_loop_leaves_the_loop():
    x = torch.arange(32, dtype=torch.int32)
    out = torch.zeros(8, dtype=torch.int32)
    sum_rows_checked[(1,)](x, out, 4, BLOCK=8, debug=True)
    assert torch.equal(out, x.view(4, 8).sum(0, dtype=torch.int32))
    x[20] = 1000
    out.zero_()
    with pytest.raises(DeviceAssertionError, match="value too large") as info:
        sum_rows_checked[(1,)](x, out, 4, BLOCK=8, debug=True)
    assert info.value.line == source_line(sum_rows_checked, "device_assert")
    assert out.count_nonzero() == 0


@triton.jit(noinline=True)
def _checked_double(x_ptr, i):
    v = tl.load(x_ptr + i)
    tl.device_assert(v >= 0, "negative input")
    return v * 2


@triton.jit
def double_each(x_ptr, out_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, _checked_double(x_ptr, pid))


def test_assert_in_a_noinline_callee_stops_its_caller():
    x = torch.tensor([1, 2, -3, 4], dtype=torch.int32)
    out = torch.zeros_like(x)
    with pytest.raises(DeviceAssertionError, match="negative input") as info:
        double_each[(4,)](x, out, debug=True, num_threads=1)
    assert info.value.pid == (2, 0, 0)
    assert info.value.line == source_line(_checked_double, "device_assert")
    assert out.tolist() == [2, 4, 0, 0]
    double_each[(4,)](x.abs(), out, debug=True)
    assert out.tolist() == [2, 4, 6, 8]


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def test_debug_kernels_check_integer_overflow():
    x = torch.arange(-500, 500, dtype=torch.int32)
    out = torch.zeros_like(x)
    kernel = scale_kernel[(8,)](x, out, 1000, 3, BLOCK=128, debug=True)
    assert torch.equal(out, x * 3)
    assert "int32 overflow detected" in kernel.asm["ttir"]
    with pytest.raises(DeviceAssertionError, match="int32 overflow detected for operation mul"):
        scale_kernel[(8,)](x, out, 1000, 2**30, BLOCK=128, debug=True)
    # Without debug the same launch wraps around silently, as on a GPU.
    scale_kernel[(8,)](x, out, 1000, 2**30, BLOCK=128)
    assert torch.equal(out, x * 2**30)


@triton.jit
def early_return_kernel(x_ptr, out_ptr, n_valid_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid >= n_valid_blocks:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x >= 0, "negative")
    tl.store(out_ptr + offs, x + 1)


def test_debug_kernel_with_early_return():
    x = torch.arange(64, dtype=torch.int32)
    out = torch.full_like(x, -1)
    early_return_kernel[(8,)](x, out, 5, BLOCK=8, debug=True)
    assert torch.equal(out[:40], x[:40] + 1)
    assert torch.equal(out[40:], torch.full((24,), -1, dtype=torch.int32))
    # Programs past the early return never reach their assert.
    x[50] = -7
    early_return_kernel[(8,)](x, out, 5, BLOCK=8, debug=True)
    with pytest.raises(DeviceAssertionError, match="negative"):
        early_return_kernel[(8,)](x, out, 7, BLOCK=8, debug=True)
