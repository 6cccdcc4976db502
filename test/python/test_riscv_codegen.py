"""What the RISC-V code generator emits for the X60 (arch id 0x503C, RVV at VLEN 256), read from
the `llvm-objdump-22 -d --mattr=+v` disassembly of the kernel libraries. Compiling for RISC-V works
on any host; nothing here runs a kernel."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl
from triton.backends.spine_triton.driver import CPUDriver

# The tutorial matmul is defined once, in examples/ (a directory of scripts).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import tutorial_matmul
from test_dot import dot_kernel
from test_dot_scaled import compile_mx_matmul

pytestmark = pytest.mark.skipif(shutil.which("llvm-objdump-22") is None, reason="needs llvm-objdump-22")

# One instruction line: address, encoding, mnemonic, operands.
_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{4,8}\s+)+(\S+)\s*(.*)$")
# A function's first line: `0000000000000a10 <name>:`.
_FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
# Conditional branches and `j` print their target as the first hexadecimal address.
_BRANCH = re.compile(r"^(b[a-z]*|j)$")
_TARGET = re.compile(r"0x([0-9a-f]+)")
# Fused multiply-adds, scalar and vector (vfmacc, vfmadd, vfnmsac, vfwmacc, fmadd.s, ...).
_FMA = re.compile(r"^(v?fn?m(add|sub)|vfw?n?m(acc|sac))\.")


def rvv_disassembly(kernel, tmp_path) -> dict[str, list[tuple[int, str, str]]]:
    """The instructions (address, mnemonic, operands) of every function of a compiled kernel."""
    library = tmp_path / "kernel.so"
    library.write_bytes(kernel.asm["so"])
    text = subprocess.run(
        ["llvm-objdump-22", "-d", "--mattr=+v", str(library)], check=True, capture_output=True, text=True
    ).stdout
    functions, current = {}, None
    for line in text.splitlines():
        if match := _FUNCTION.match(line):
            current = functions.setdefault(match.group(1), [])
        elif current is not None and (match := _LINE.match(line)):
            current.append((int(match.group(1), 16), match.group(2), match.group(3)))
    return functions


def innermost_loops(instructions):
    """The bodies of the innermost loops: [target, branch] of each backward branch, when no other
    backward branch lies strictly inside it."""
    loops = []
    for address, mnemonic, operands in instructions:
        target = _TARGET.search(operands) if _BRANCH.match(mnemonic) else None
        if target and int(target.group(1), 16) <= address:
            loops.append((int(target.group(1), 16), address))
    innermost = [
        (start, end)
        for start, end in loops
        if not any((s, e) != (start, end) and start <= s and e <= end for s, e in loops)
    ]
    return [[(m, o) for a, m, o in instructions if start <= a <= end] for start, end in innermost]


def mnemonics(body):
    return [m for m, _ in body]


@pytest.fixture(autouse=True)
def x60_driver():
    driver = CPUDriver()
    driver.set_current_arch_id("0x503C")
    triton.runtime.driver.set_active(driver)
    yield
    triton.runtime.driver.reset_active()


def compile_matmul(dtype=torch.float32, **options):
    """Triton's tutorial 03 matmul (grouped program order, masked K tail), compiled only."""
    M = N = K = 256
    a, b, c = torch.empty(M, K, dtype=dtype), torch.empty(K, N, dtype=dtype), torch.empty(M, N)
    blocks = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
    return tutorial_matmul.launch(tutorial_matmul.matmul_kernel, a, b, c, warmup=True, **blocks, **options)


def dot_loop(kernel, tmp_path):
    """The innermost loop of the matmul with the most multiply-adds: the dot's K loop."""
    loops = innermost_loops(rvv_disassembly(kernel, tmp_path)["matmul_kernel"])
    return max(loops, key=lambda body: sum(1 for m in mnemonics(body) if _FMA.match(m)))


def test_matmul_dot_loop_is_vector_fma(tmp_path):
    body = mnemonics(dot_loop(compile_matmul(), tmp_path))
    fmas = [m for m in body if m in ("vfmacc.vf", "vfmacc.vv")]
    # Register blocked: a block of accumulators (MR rows x NR/VL vectors) per K step, not one.
    assert len(fmas) >= 8, body
    assert not [m for m in body if m in ("fmadd.s", "fmadd.d")], body


def test_fp16_dot_loop_widens_in_the_fma(tmp_path):
    # The X60 has Zvfh: fp16 tiles feed vfwmacc.vf (f32 += f16 * f16) as they are, with no
    # converting copies of A or B before the K loop and no conversion in it.
    kernel = compile_matmul(torch.float16)
    body = mnemonics(dot_loop(kernel, tmp_path))
    assert len([m for m in body if m == "vfwmacc.vf"]) >= 8, body
    assert not [m for m in body if m.startswith(("vfwcvt", "vfmacc"))], body
    code = mnemonics((m, o) for _, m, o in rvv_disassembly(kernel, tmp_path)["matmul_kernel"])
    assert "vfwcvt.f.f.v" not in code


def test_bf16_dot_loop_broadcasts_a_from_memory(tmp_path):
    # The X60 has no bf16 vector arithmetic: A is widened into an f32 copy before the K loop, so
    # each row's step is a scalar load feeding vfmacc.vf. Widened in the loop (a shift of the bf16
    # bits), the element was splatted by vmv.v.x into a vfmacc.vv: a vector instruction per row.
    body = mnemonics(dot_loop(compile_matmul(torch.bfloat16), tmp_path))
    assert len([m for m in body if m == "vfmacc.vf"]) >= 8, body
    assert not [m for m in body if m in ("vfmacc.vv", "vmv.v.x", "vfmv.v.f")], body


def test_int8_dot_loop_multiplies_by_the_scalar(tmp_path):
    # int8 A and B with an int32 C: B's tile is widened to i32 as it is copied, A's element is
    # sign-extended by its scalar load, and each step is vmacc.vx with that scalar: no widening in
    # the loop. (vwmacc would accumulate in i16, which 127 * 127 products overflow in two steps.)
    M = N = K = 128
    a, b = torch.empty(M, K, dtype=torch.int8), torch.empty(K, N, dtype=torch.int8)
    c = torch.empty(M, N, dtype=torch.int32)
    kernel = dot_kernel.warmup(a, b, c, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, grid=(4, 4))
    loops = innermost_loops(rvv_disassembly(kernel, tmp_path)["dot_kernel"])
    body = mnemonics(max(loops, key=lambda body: mnemonics(body).count("vmacc.vx")))
    assert body.count("vmacc.vx") >= 8, body
    assert not [m for m in body if m.startswith(("vsext", "vwmul", "vwmacc", "vmul"))], body


def test_scaled_dot_loop_is_vector_fma(tmp_path):
    # tl.dot_scaled of fp4 by fp8 (the kernel SpacemiT's users saw become scalar fmadd.d): the
    # decoded, scaled tiles feed the same micro-kernel, vfmacc.vf in the K loop, nothing scalar.
    loops = innermost_loops(rvv_disassembly(compile_mx_matmul(), tmp_path)["mx_matmul_kernel"])
    body = mnemonics(max(loops, key=lambda body: sum(1 for m in mnemonics(body) if _FMA.match(m))))
    assert len([m for m in body if m == "vfmacc.vf"]) >= 8, body
    assert not [m for m in body if m in ("fmadd.s", "fmadd.d")], body


def test_vec_method_none_leaves_the_dot_to_llvm(tmp_path):
    # Without the micro-kernel no broadcast-A FMA (the micro-kernel's vfmacc.vf) is left anywhere.
    blocked = rvv_disassembly(compile_matmul(), tmp_path)["matmul_kernel"]
    plain = rvv_disassembly(compile_matmul(vec_method="none"), tmp_path)["matmul_kernel"]
    assert "vfmacc.vf" in mnemonics((m, o) for _, m, o in blocked)
    assert "vfmacc.vf" not in mnemonics((m, o) for _, m, o in plain)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, num / tl.sum(num, axis=0), mask=mask)


def test_softmax_exp_is_vector_code(tmp_path):
    x = torch.empty(4, 100)
    kernel = softmax_kernel.warmup(x, x, 100, BLOCK=128, grid=(4,))
    functions = rvv_disassembly(kernel, tmp_path)
    assert not [name for name in functions if name.startswith(("exp", "__exp"))], list(functions)
    body = mnemonics((m, o) for _, m, o in functions["softmax_kernel"])
    # exp as a vector polynomial: vector multiply-adds, no scalar libm call per element.
    assert sum(1 for m in body if _FMA.match(m) and m.startswith("v")) >= 3, body


@triton.jit
def reduce_kernel(x_ptr, sum_ptr, max_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0)
    tl.store(sum_ptr + row, tl.sum(x, axis=0))
    tl.store(max_ptr + row, tl.max(x, axis=0))


def reduction_mnemonics(dtype, tmp_path):
    x = torch.empty(4, 300, dtype=dtype)
    kernel = reduce_kernel.warmup(x, x, x, 300, BLOCK=512, grid=(4,))
    return mnemonics((m, o) for _, m, o in rvv_disassembly(kernel, tmp_path)["reduce_kernel"])


def test_integer_reductions_use_vector_reductions(tmp_path):
    body = reduction_mnemonics(torch.int32, tmp_path)
    assert "vredsum.vs" in body and "vredmax.vs" in body, body


def test_float_sum_uses_a_vector_reduction(tmp_path):
    body = reduction_mnemonics(torch.float32, tmp_path)
    assert [m for m in body if m.startswith(("vfredusum", "vfredosum"))], body


def test_float_max_uses_a_vector_reduction(tmp_path):
    assert "vfredmax.vs" in reduction_mnemonics(torch.float32, tmp_path)
