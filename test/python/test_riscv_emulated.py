"""Kernels compiled for RISC-V (SpacemiT X60, RVV at VLEN 256) and run under qemu-user from this
host, against torch: the path docs/kernel-abi.md, "Emulated RISC-V execution", describes.

qemu is slow: sizes are small, but each kernel still covers masked tails, several programs and the
vector code paths (the matmul micro-kernel, strip-mined reductions, gathers, atomics).
"""

import math
import platform
import re
import shutil
import sys
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl
from spine_triton import emulation, targets
from triton.backends.spine_triton.driver import CPUDriver, DeviceAssertionError
from triton.language.extra import libdevice

# The arguments every matmul kernel starts with: one definition, in examples/ (a directory of scripts).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from bare_matmul import bare_matmul_kernel
from test_dot import dot_kernel
from test_dot_scaled import run_scaled_dot
from test_edge_cases import check_integer_division, check_shifts
from test_grid_stride_loops import softmax_rows
from tutorial_matmul import matmul_args

pytestmark = [
    pytest.mark.skipif(platform.machine() == "riscv64", reason="a riscv64 host runs RISC-V kernels natively"),
    pytest.mark.skipif(
        shutil.which("qemu-riscv64") is None,
        reason="qemu-riscv64 is not installed (scripts/setup.sh installs qemu-user)",
    ),
]


@pytest.fixture(autouse=True)
def riscv_driver():
    driver = CPUDriver()
    driver.set_current_arch_id("0x503C")
    triton.runtime.driver.set_active(driver)
    yield driver
    triton.runtime.driver.reset_active()


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


# One core of each kind: X60 (LLVM's spacemit-x60), X100 (RVA22 + V), X200 (RVA23).
@pytest.mark.parametrize("arch_id", ["0x503C", "0x5064", "0x50C8"])
def test_vector_add_runs_riscv_code(riscv_driver, arch_id):
    riscv_driver.set_current_arch_id(arch_id)
    n = 3000  # a partial last block
    x, y = torch.rand(n), torch.rand(n)
    out = torch.empty_like(x)
    kernel = add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    assert kernel.asm["so"][18] == 243  # EM_RISCV: the library qemu ran is the RISC-V one
    assert torch.equal(out, x + y)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=mask)


def test_softmax():
    x = torch.randn(37, 100)
    out = torch.empty_like(x)
    softmax_kernel[(x.shape[0],)](out, x, x.stride(0), out.stride(0), x.shape[1], BLOCK=128)
    torch.testing.assert_close(out, torch.softmax(x, dim=1))


@pytest.mark.parametrize("in_place", [False, True])
def test_persistent_softmax(in_place):
    x = torch.randn(23, 100)
    expected = torch.softmax(x, dim=1)
    out = x if in_place else torch.empty_like(x)
    # Tutorial 02's grid-stride loop: blocks of consecutive rows when the rows are independent
    # (spine-block-grid-stride-loops), as written when they may not be.
    softmax_rows[(3,)](out, x, x.stride(0), out.stride(0), 23, 100, BLOCK=128)
    torch.testing.assert_close(out, expected)


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float16, torch.bfloat16], ids=["fp32", "fp16-to-fp32", "bf16-to-fp32"]
)
def test_matmul(dtype):
    M, N, K = 40, 72, 50  # partial blocks on every axis
    a, b = torch.randn(M, K).to(dtype), torch.randn(K, N).to(dtype)
    c = torch.empty(M, N)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
    bare_matmul_kernel[grid](*matmul_args(a, b, c), BLOCK_M=16, BLOCK_N=32, BLOCK_K=16)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fast_math", [False, True], ids=["f32", "bf16"])
def test_scaled_dot(fast_math):
    # fp4 x fp8 with e8m0 scales and an accumulator: the fp4 decoding is RVV integer code.
    run_scaled_dot("e2m1", "e4m3", m=16, n=32, k=64, with_acc=True, fast_math=fast_math)


def test_int8_matmul_is_exact():
    # int8 x int8 -> int32 (B widened as it is copied, vmacc.vx in the K loop), extremes included:
    # -128 * -128 summed over K is exact only with int32 accumulation.
    M, N, K = 40, 72, 50
    torch.manual_seed(5)
    a = torch.randint(-128, 128, (M, K), dtype=torch.int8)
    b = torch.randint(-128, 128, (K, N), dtype=torch.int8)
    a[0], b[:, 0] = -128, -128
    c = torch.empty(M, N, dtype=torch.int32)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
    dot_kernel[grid](a, b, c, M, N, K, BLOCK_M=16, BLOCK_N=32, BLOCK_K=16)
    assert torch.equal(c, (a.long() @ b.long()).int())


@triton.jit
def trig_pow_kernel(x_ptr, y_ptr, sin_ptr, cos_ptr, pow_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(sin_ptr + offs, tl.sin(x), mask=mask)
    tl.store(cos_ptr + offs, tl.cos(x), mask=mask)
    tl.store(pow_ptr + offs, tl.extra.libdevice.pow(tl.abs(x), y), mask=mask)


def test_sin_cos_pow_are_rvv_code():
    # The fp64 polynomials as RVV code, and the libm branch for the huge arguments and NaN at the end.
    g = torch.Generator().manual_seed(0)
    x = torch.cat([(torch.rand(500, generator=g) * 2 - 1) * 1e4, torch.tensor([1e20, -3e38, float("nan")])])
    y = (torch.rand(x.numel(), generator=g) * 2 - 1) * 3
    s, c, p = (torch.empty_like(x) for _ in range(3))
    kernel = trig_pow_kernel[(triton.cdiv(x.numel(), 128),)](x, y, s, c, p, x.numel(), BLOCK=128)
    assert re.search(r"vfmacc\.vf|vfmadd\.vf|vfmacc\.vv|vfmadd\.vv", kernel.asm["asm"])
    assert "sinf" not in kernel.asm["asm"] and "powf" not in kernel.asm["asm"]
    torch.testing.assert_close(s, torch.sin(x), rtol=1.2e-7, atol=1e-7, equal_nan=True)
    torch.testing.assert_close(c, torch.cos(x), rtol=1.2e-7, atol=1e-7, equal_nan=True)
    torch.testing.assert_close(p, torch.pow(x.abs(), y), rtol=1.2e-7, atol=0, equal_nan=True)


@triton.jit
def f64_math_kernel(x_ptr, a_ptr, b_ptr, c_ptr, n, SMALL_ARGUMENTS: tl.constexpr, BLOCK: tl.constexpr):
    # exp, log, sin of x; with SMALL_ARGUMENTS tanh, expm1 of x and log1p of |x|.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if SMALL_ARGUMENTS:
        a, b, c = libdevice.tanh(x), libdevice.expm1(x), libdevice.log1p(tl.abs(x))
    else:
        a, b, c = tl.exp(x), tl.log(x), tl.sin(x)
    tl.store(a_ptr + offs, a, mask=mask)
    tl.store(b_ptr + offs, b, mask=mask)
    tl.store(c_ptr + offs, c, mask=mask)


def run_f64_math(x, small_arguments, libm):
    """f64_math_kernel's three results; its code has RVV FMAs and no per-lane call of `libm`."""
    outs = [torch.empty_like(x) for _ in range(3)]
    kernel = f64_math_kernel[(triton.cdiv(x.numel(), 64),)](
        x, *outs, x.numel(), SMALL_ARGUMENTS=small_arguments, BLOCK=64
    )
    asm = kernel.asm["asm"]
    assert re.search(r"vfmadd\.v|vfmacc\.v", asm)
    assert not re.search(rf"call\s+({'|'.join(libm)})\b", asm)
    return outs


def test_f64_exp_log_sin_are_rvv_code():
    # Subnormal and special inputs, and 1e6 (beyond 2^19: sin's libm branch).
    g = torch.Generator().manual_seed(1)
    special = torch.tensor([0.0, -1.0, 1e-310, 1e6, float("nan")], dtype=torch.float64)
    x = torch.cat([torch.rand(300, generator=g, dtype=torch.float64) * 1400 - 700, special])
    e, lg, sn = run_f64_math(x, small_arguments=False, libm=("exp", "log"))
    torch.testing.assert_close(e, torch.exp(x), rtol=5e-16, atol=0, equal_nan=True)
    torch.testing.assert_close(lg, torch.log(x), rtol=5e-16, atol=0, equal_nan=True)
    torch.testing.assert_close(sn, torch.sin(x), rtol=5e-16, atol=0, equal_nan=True)


def test_f64_tanh_expm1_log1p_are_rvv_code():
    # Tiny arguments (where these functions keep relative accuracy), both signs, the branch bounds.
    g = torch.Generator().manual_seed(2)
    special = torch.tensor(
        [0.0, -0.0, 1e-310, 20.5, 45.0, -45.0, float("inf"), float("nan")], dtype=torch.float64
    )
    x = torch.cat(
        [
            torch.randn(200, generator=g, dtype=torch.float64) * 3,
            torch.randn(100, generator=g) * 1e-9,
            special,
        ]
    ).double()
    th, em, lp = run_f64_math(x, small_arguments=True, libm=("tanh", "expm1", "log1p"))
    torch.testing.assert_close(th, torch.tanh(x), rtol=5e-16, atol=0, equal_nan=True)
    torch.testing.assert_close(em, torch.expm1(x), rtol=5e-16, atol=0, equal_nan=True)
    # torch's log1p(1e-310) is one subnormal step off the exact result, the argument itself.
    torch.testing.assert_close(lp, torch.log1p(x.abs()), rtol=5e-16, atol=1e-323, equal_nan=True)
    assert lp[x.abs() == 1e-310].item() == 1e-310


@triton.jit
def erf_pow_tan_atan2_kernel(x_ptr, y_ptr, erf_ptr, pow_ptr, tan_ptr, atan2_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(erf_ptr + offs, libdevice.erf(x), mask=mask)
    tl.store(pow_ptr + offs, libdevice.pow(tl.abs(x), y), mask=mask)
    tl.store(tan_ptr + offs, libdevice.tan(x), mask=mask)
    tl.store(atan2_ptr + offs, libdevice.atan2(y, x), mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_erf_pow_tan_atan2_are_rvv_code(dtype):
    # Each of fp64 erf's pieces (0.84375, 1.25, 2.857, 6), pow's results from underflow to overflow,
    # tan near its poles, and the specials that take tan's libm branch.
    g = torch.Generator().manual_seed(5)
    edges = torch.tensor([0.84375, 1.25, 2.857, 6.0, 27.0, 1e-310, 0.0, float("inf"), float("nan")])
    poles = torch.arange(1, 40, dtype=torch.float64) * math.pi / 2
    x = torch.cat(
        [
            (torch.rand(300, generator=g, dtype=torch.float64) * 2 - 1) * 8,
            edges.double(),
            -edges.double(),
            poles,
        ]
    ).to(dtype)
    y = ((torch.rand(x.numel(), generator=g, dtype=torch.float64) * 2 - 1) * 60).to(dtype)
    outs = [torch.empty_like(x) for _ in range(4)]
    kernel = erf_pow_tan_atan2_kernel[(triton.cdiv(x.numel(), 64),)](x, y, *outs, x.numel(), BLOCK=64)
    asm = kernel.asm["asm"]
    assert re.search(r"vfmadd\.v|vfmacc\.v", asm)
    # libm's fp64 tan stays, on the branch that arguments beyond 2^19 (2^36 for fp32), inf and NaN take.
    libm = ("erf", "pow", "atan2") if dtype == torch.float64 else ("erff", "powf", "tanf", "atan2f")
    assert not re.search(rf"call\s+({'|'.join(libm)})\b", asm)
    # At most 2 ulp on x86 (test_math.py); qemu runs the same polynomials.
    rtol = 5e-16 if dtype == torch.float64 else 2.4e-7
    erf, pw, tan, atan2 = outs
    torch.testing.assert_close(erf, torch.erf(x), rtol=rtol, atol=0, equal_nan=True)
    torch.testing.assert_close(pw, torch.pow(x.abs(), y), rtol=rtol, atol=0, equal_nan=True)
    torch.testing.assert_close(tan, torch.tan(x), rtol=rtol, atol=0, equal_nan=True)
    # fp32 atan2 is within 2.1 ulp.
    atan2_rtol = 5e-16 if dtype == torch.float64 else 3e-7
    torch.testing.assert_close(atan2, torch.atan2(y, x), rtol=atan2_rtol, atol=0, equal_nan=True)


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    diff = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(diff * diff, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, diff * rstd * w + b, mask=mask)


def test_layer_norm():
    x = torch.randn(19, 200)
    w, b = torch.randn(200), torch.randn(200)
    y = torch.empty_like(x)
    layer_norm_kernel[(x.shape[0],)](x, y, w, b, x.stride(0), x.shape[1], 1e-5, BLOCK=256)
    torch.testing.assert_close(y, torch.nn.functional.layer_norm(x, (200,), w, b, 1e-5))


@triton.jit
def reduce_kernel(x_ptr, sum_ptr, max_ptr, min_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0)
    tl.store(sum_ptr + row, tl.sum(x, axis=0))
    tl.store(max_ptr + row, tl.max(tl.where(mask, x, -(2**30)), axis=0))
    tl.store(min_ptr + row, tl.min(tl.where(mask, x, 2**30), axis=0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_reductions(dtype):
    x = (torch.randn(9, 300) * 100).to(dtype)
    sums, maxs, mins = (torch.empty(9, dtype=dtype) for _ in range(3))
    reduce_kernel[(9,)](x, sums, maxs, mins, 300, BLOCK=512)
    torch.testing.assert_close(sums, x.sum(dim=1, dtype=dtype), rtol=1e-5, atol=1e-3)
    assert torch.equal(maxs, x.amax(dim=1)) and torch.equal(mins, x.amin(dim=1))


@triton.jit
def gather_scatter_kernel(src_ptr, idx_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    # Read through the index tensor, write through it too: dst[idx[i]] = 2 * src[idx[i]].
    tl.store(dst_ptr + idx, tl.load(src_ptr + idx, mask=mask) * 2, mask=mask)


def test_gather_scatter_through_index_tensor():
    n = 1000
    src = torch.randn(n)
    idx = torch.randperm(n, dtype=torch.int64)[: n - 100].to(torch.int32)
    dst = torch.zeros(n)
    gather_scatter_kernel[(triton.cdiv(n - 100, 128),)](src, idx, dst, n - 100, BLOCK=128)
    ref = torch.zeros(n)
    ref[idx.long()] = src[idx.long()] * 2
    assert torch.equal(dst, ref)


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x % BINS, 1, mask=mask)


def test_atomic_add_histogram_with_threads():
    n = 32 * 64 - 5
    x = torch.randint(0, 1000, (n,), dtype=torch.int32)
    hist = torch.zeros(16, dtype=torch.int32)
    # Two OpenMP threads inside the emulator contend for the same bins.
    histogram_kernel[(triton.cdiv(n, 64),)](x, hist, n, BINS=16, BLOCK=64, num_threads=2)
    assert torch.equal(hist, torch.bincount(x % 16, minlength=16).to(torch.int32))


@triton.jit
def cast_kernel(x_ptr, f16_ptr, bf16_ptr, i32_ptr, u8_ptr, f64_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(f16_ptr + offs, x.to(tl.float16), mask=mask)
    tl.store(bf16_ptr + offs, x.to(tl.bfloat16), mask=mask)
    tl.store(i32_ptr + offs, x.to(tl.int32), mask=mask)
    tl.store(u8_ptr + offs, x.to(tl.int32).to(tl.uint8), mask=mask)
    tl.store(f64_ptr + offs, x.to(tl.float64), mask=mask)


def test_dtype_casts():
    n = 500
    x = torch.randn(n) * 300
    outs = [
        torch.empty(n, dtype=t)
        for t in (torch.float16, torch.bfloat16, torch.int32, torch.uint8, torch.float64)
    ]
    cast_kernel[(triton.cdiv(n, 128),)](x, *outs, n, BLOCK=128)
    assert torch.equal(outs[0], x.half())
    assert torch.equal(outs[1], x.bfloat16())
    assert torch.equal(outs[2], x.int())
    assert torch.equal(outs[3], x.int().to(torch.uint8))
    assert torch.equal(outs[4], x.double())


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64, torch.uint8])
def test_integer_division_by_zero_is_defined(dtype):
    # RVV's vdiv and the scalar div define these results themselves; LLVM does not, so the kernel
    # selects them on RISC-V too (test_edge_cases.py has the cases).
    check_integer_division(dtype)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64])
def test_shifts_by_the_width_or_more_match_torch(dtype):
    # RVV's shifts take the count modulo the width, as x86's scalar ones do.
    check_shifts(dtype)


@triton.jit
def to_int_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(out_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize(
    "src, dst, scale",
    [
        (torch.float32, torch.int64, 1e6),
        (torch.float16, torch.int32, 1e3),
        (torch.float64, torch.int8, 30.0),
        (torch.float64, torch.int64, 1e12),
        (torch.float32, torch.int16, 5e3),
    ],
)
def test_float_to_int_truncates_towards_zero(src, dst, scale):
    # Vector conversions truncate, also at .5 and at values just off an integer.
    n = 700
    x = (torch.randn(n, dtype=torch.float64) * scale).to(src)
    x[:6] = torch.tensor([0.5, -0.5, 1.5, -1.5, 2.9999, -2.9999]).to(src)
    out = torch.empty(n, dtype=dst)
    to_int_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
    assert torch.equal(out, x.to(dst))


def test_conversions_avoid_static_rounding():
    # qemu 7.2 aborts translating vfcvt.rtz.*: code built to run under it rounds dynamically.
    x, out = torch.empty(256), torch.empty(256, dtype=torch.int32)
    asm = to_int_kernel.warmup(x, out, 256, BLOCK=128, grid=(2,)).asm["asm"]
    assert "vfcvt.x.f.v" in asm and not re.search(r"\bv\w*cvt\.rtz", asm)


@pytest.mark.parametrize("dst", [torch.int8, torch.uint8, torch.int32, torch.uint32, torch.int64])
def test_float_to_int_saturates_as_on_gpus(dst):
    # RISC-V's conversions saturate but give the maximum for NaN, and an int8 conversion narrows
    # an int32 one: the kernel selects the GPUs' results (test_dtype_matrix.py has every pair).
    specials = [
        math.nan,
        math.inf,
        -math.inf,
        300.5,
        -300.5,
        127.9,
        -128.9,
        255.9,
        -0.9,
        3e9,
        -3e9,
        1e19,
        -1e19,
    ]
    x = torch.tensor(specials * 20, dtype=torch.float32)
    out = torch.empty(len(x), dtype=dst)
    to_int_kernel[(triton.cdiv(len(x), 128),)](x, out, len(x), BLOCK=128)
    info = torch.iinfo(dst)
    want = [
        0 if math.isnan(v) else min(max(math.trunc(v) if math.isfinite(v) else v, info.min), info.max)
        for v in x.tolist()
    ]
    assert out.to(torch.int64).tolist() == [int(w) for w in want]


def test_float_to_uint32_above_int32():
    x = torch.tensor([0.0, 1.5, 2**31 + 256.0, 4e9, 7.99], dtype=torch.float32).repeat(40)
    out = torch.empty(200, dtype=torch.uint32)
    to_int_kernel[(2,)](x, out, 200, BLOCK=128)
    assert torch.equal(out.to(torch.int64), x.to(torch.int64))


def test_aliased_arguments_share_memory():
    # x is both an input and the output, and y a view into x: the arena keeps them one storage.
    base = torch.rand(2048)
    x, y = base[:1024], base[1024:]
    expected = x + y
    add_kernel[(4,)](x, y, x, 1024, BLOCK=256)
    assert torch.equal(base[:1024], expected)


def test_empty_grid_runs_nothing():
    x = torch.rand(8)
    out = torch.full_like(x, -1.0)
    add_kernel[(0,)](x, x, out, 8, BLOCK=16)
    assert torch.equal(out, torch.full_like(x, -1.0))


def test_guest_crash_is_a_clear_error():
    # An index 8 GiB past the source: the gather faults inside the emulator.
    src, dst = torch.zeros(16), torch.zeros(16)
    idx = torch.full((16,), 2**31 - 1, dtype=torch.int32)
    with pytest.raises(emulation.EmulationError, match=r"(?s)killed by SIGSEGV.*stderr:"):
        gather_scatter_kernel[(1,)](src, idx, dst, 16, BLOCK=16)


@triton.jit
def checked_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_print("x", x)
    tl.device_assert(x >= 0, "negative input")
    tl.store(x_ptr + offs, x + 1)


def test_device_print_and_assert(capfd):
    x = torch.arange(8, dtype=torch.int32)
    checked_kernel[(2,)](x, BLOCK=4, debug=True)
    assert torch.equal(x, torch.arange(1, 9, dtype=torch.int32))
    out = capfd.readouterr().out.splitlines()
    assert "pid (1, 0, 0) idx (3) x: 7" in out, out
    x[5] = -1
    with pytest.raises(DeviceAssertionError, match="negative input") as info:
        checked_kernel[(2,)](x, BLOCK=4, debug=True)
    assert info.value.pid == (1, 0, 0) and info.value.file == __file__


def test_target_environment_variable(monkeypatch):
    monkeypatch.setenv(targets.TARGET_ENV, "riscv64")
    assert CPUDriver().get_current_target().arch == "spacemit-x60"
    monkeypatch.setenv(targets.TARGET_ENV, "0xA03C")
    assert CPUDriver().get_current_target().arch == "spacemit-a60"
    monkeypatch.setenv(targets.TARGET_ENV, "x86")
    with pytest.raises(ValueError, match="SPINE_TRITON_TARGET='x86'"):
        CPUDriver()
