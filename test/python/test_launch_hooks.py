"""Triton's launch hooks (``triton.knobs.runtime.launch_enter_hook`` / ``launch_exit_hook``, the
chains profilers such as proton add to): each hook added runs once per launch, the enter hook
before the grid runs and the exit hook after it, with the launch's metadata (a LazyDict:
``.get()``); a hook removed no longer runs. The launcher skips the chains while they are empty
(driver.make_native_launcher)."""

import pytest
import torch
import triton
import triton.language as tl
from triton import knobs


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


@pytest.fixture
def recorded_hooks():
    """Adds an enter and an exit hook recording (which, kernel name, out's first element at the
    call); removes them afterwards."""
    calls = []
    state = {}

    def enter(metadata):
        calls.append(("enter", metadata.get()["name"], state["out"][0].item()))

    def exit_(metadata):
        calls.append(("exit", metadata.get()["name"], state["out"][0].item()))

    knobs.runtime.launch_enter_hook.add(enter)
    knobs.runtime.launch_exit_hook.add(exit_)
    yield calls, state, (enter, exit_)
    knobs.runtime.launch_enter_hook.remove(enter)
    knobs.runtime.launch_exit_hook.remove(exit_)


def test_hooks_run_around_each_launch(recorded_hooks):
    calls, state, _ = recorded_hooks
    x = torch.full((100,), 3.0)
    out = state["out"] = torch.zeros(100)
    for _ in range(2):
        out.zero_()
        scale_kernel[(4,)](x, out, 100, BLOCK=32)
    torch.testing.assert_close(out, x * 2.0)
    # Enter sees the output before the grid has written it, exit after.
    assert calls == [("enter", "scale_kernel", 0.0), ("exit", "scale_kernel", 6.0)] * 2


def test_removed_hooks_no_longer_run(recorded_hooks):
    calls, state, (enter, exit_) = recorded_hooks
    x = torch.full((100,), 3.0)
    out = state["out"] = torch.zeros(100)
    scale_kernel[(4,)](x, out, 100, BLOCK=32)
    knobs.runtime.launch_enter_hook.remove(enter)
    knobs.runtime.launch_exit_hook.remove(exit_)
    out.zero_()
    scale_kernel[(4,)](x, out, 100, BLOCK=32)
    torch.testing.assert_close(out, x * 2.0)
    assert [which for which, _, _ in calls] == ["enter", "exit"]
