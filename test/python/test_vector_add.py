"""The tutorial vector add end to end on torch CPU tensors, and the driver's user-facing API."""

import platform

import pytest
import torch
import triton
import triton.language as tl
from spine_triton.compiler import KernelCompileError
from triton.backends.spine_triton.driver import CPUDriver


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def vector_add(x, y, block_size=1024, **options):
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[(triton.cdiv(n, block_size),)](x, y, out, n, BLOCK_SIZE=block_size, **options)
    return out


@pytest.mark.parametrize("n", [1, 1000, 98432, 2**20 + 3])
def test_vector_add(n):
    torch.manual_seed(n)
    x, y = torch.rand(n), torch.rand(n)
    torch.testing.assert_close(vector_add(x, y), x + y, rtol=0, atol=0)


def test_cpu_driver_is_active_without_user_code():
    assert isinstance(triton.runtime.driver.active, CPUDriver)
    target = triton.runtime.driver.active.get_current_target()
    assert (target.backend, target.arch, target.warp_size) == ("cpu", "native", 1)


@pytest.mark.parametrize("num_threads", [1, 2, 3])
def test_thread_counts_agree(num_threads):
    x, y = torch.rand(50_000), torch.rand(50_000)
    torch.testing.assert_close(vector_add(x, y, num_threads=num_threads), x + y, rtol=0, atol=0)


def test_grid_axis_beyond_65535():
    # 2**20 + 3 elements in blocks of 16: 65537 programs on axis 0.
    x, y = torch.rand(2**20 + 3), torch.rand(2**20 + 3)
    torch.testing.assert_close(vector_add(x, y, block_size=16), x + y, rtol=0, atol=0)


def test_empty_grid_runs_nothing():
    x = torch.rand(8)
    out = torch.full_like(x, -1.0)
    add_kernel[(0,)](x, x, out, 8, BLOCK_SIZE=16)
    assert torch.equal(out, torch.full_like(x, -1.0))


def test_unknown_arch_id_lists_known_ones():
    with pytest.raises(ValueError, match=r"0xA03C \(spacemit-a60\)"):
        CPUDriver().set_current_arch_id("0x1234")


@pytest.mark.skipif(platform.machine() != "x86_64", reason="cross-compiles for RISC-V from x86-64")
def test_spacemit_arch_compiles_for_riscv():
    # The spine-triton user idiom: pick a SpacemiT core by arch id.
    driver = CPUDriver()
    driver.set_current_arch_id("0xA03C")
    assert driver.get_current_target().arch == "spacemit-a60"
    triton.runtime.driver.set_active(driver)
    try:
        x, y = torch.rand(4096), torch.rand(4096)
        out = torch.empty_like(x)
        kernel = add_kernel.warmup(x, y, out, 4096, BLOCK_SIZE=1024, grid=(4,))
        assert "vsetvli" in kernel.asm["asm"]  # RVV code for the X60 core
        assert kernel.asm["so"][:4] == b"\x7fELF" and kernel.asm["so"][18] == 243  # EM_RISCV
    finally:
        triton.runtime.driver.reset_active()


@triton.jit
def inline_asm_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("mov $0, $1", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(x_ptr + offs, y)


def test_unsupported_op_names_op_and_source_line():
    line = inline_asm_kernel.fn.__code__.co_firstlineno + 4  # the inline_asm_elementwise line
    with pytest.raises(KernelCompileError) as info:
        inline_asm_kernel[(1,)](torch.zeros(16), BLOCK=16)
    assert info.value.file == __file__
    assert info.value.line == line
    assert info.value.op == "tt.elementwise_inline_asm"
    assert f"{__file__}:{line}" in str(info.value)
