"""tl.dot_scaled: microscaling dots (fp4, fp8, bf16, fp16 operands with block scales).

spine-decompose-scaled-dots decodes each operand, multiplies it by its scales and hands the
result to tl.dot. The references here decode the same bytes in float64 with torch (fp4 by its
table, fp8 through torch's float8 dtypes, e8m0 scales as 2^(s - 127) and 0xFF as NaN) and
multiply in float64. Every product of decoded and scaled values is exact in f32, so the only
error allowed is the f32 accumulation's: K rounding steps of 2^-24 of the sum of |products|.
"""

import re

import pytest
import torch
import triton
import triton.language as tl
from spine_triton import targets

FORMATS = ["e2m1", "e4m3", "e5m2", "bf16", "fp16"]
FP4_VALUES = torch.tensor(
    [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], dtype=torch.float64
)
FP8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
HALF = {"bf16": torch.bfloat16, "fp16": torch.float16}


def packing(fmt):
    return 2 if fmt == "e2m1" else 1


def random_operand(fmt, rows, cols, gen):
    """A [rows, cols] operand of `fmt` as the kernel reads it (fp4: bytes of two codes along
    the last dimension), and its values as float64 (fp4 unpacked: [rows, 2 * cols])."""
    if fmt in HALF:
        values = torch.randn(rows, cols, generator=gen).to(HALF[fmt])
        return values, values.double()
    stored = torch.randint(0, 256, (rows, cols), dtype=torch.uint8, generator=gen)
    if fmt == "e2m1":
        low = FP4_VALUES[(stored & 0xF).long()]
        high = FP4_VALUES[(stored >> 4).long()]
        return stored, torch.stack([low, high], -1).reshape(rows, 2 * cols)
    values = stored.view(FP8[fmt]).double()
    stored[~values.isfinite()] = 0  # the format's NaN and inf codes
    return stored, stored.view(FP8[fmt]).double()


def scale_values(scales, group):
    """e8m0 bytes [rows, K / group] as float64 factors [rows, K]."""
    factors = torch.pow(2.0, scales.double() - 127)
    factors[scales == 255] = float("nan")
    return factors.repeat_interleave(group, dim=1)


def assert_accumulated(c, expected, bound_terms, k):
    """`c` within K f32 roundings of the exact sum (`bound_terms`: the sum of |products|)."""
    c = c.double()
    assert c.isnan().equal(expected.isnan())
    finite = ~expected.isnan()
    error = (c - expected)[finite].abs()
    allowed = (k + 2) * 2**-24 * bound_terms[finite]
    worst = (error - allowed).argmax()
    assert (error <= allowed).all(), (error[worst], allowed[worst], expected[finite][worst])


@triton.jit
def scaled_dot_kernel(
    a_ptr,
    a_scale_ptr,
    b_ptr,
    b_scale_ptr,
    acc_ptr,
    c_ptr,
    A_ROWS: tl.constexpr,
    A_COLS: tl.constexpr,
    B_ROWS: tl.constexpr,
    B_COLS: tl.constexpr,
    M: tl.constexpr,
    N: tl.constexpr,
    SCALES: tl.constexpr,
    A_FORMAT: tl.constexpr,
    B_FORMAT: tl.constexpr,
    A_SCALED: tl.constexpr,
    B_SCALED: tl.constexpr,
    A_K_PACK: tl.constexpr,
    B_K_PACK: tl.constexpr,
    WITH_ACC: tl.constexpr,
    FAST_MATH: tl.constexpr,
):
    ar = tl.arange(0, A_ROWS)
    ac = tl.arange(0, A_COLS)
    br = tl.arange(0, B_ROWS)
    bc = tl.arange(0, B_COLS)
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    os = tl.arange(0, SCALES)
    a = tl.load(a_ptr + ar[:, None] * A_COLS + ac[None, :])
    b = tl.load(b_ptr + br[:, None] * B_COLS + bc[None, :])
    a_scale = None
    b_scale = None
    acc = None
    if A_SCALED:
        a_scale = tl.load(a_scale_ptr + om[:, None] * SCALES + os[None, :])
    if B_SCALED:
        b_scale = tl.load(b_scale_ptr + on[:, None] * SCALES + os[None, :])
    if WITH_ACC:
        acc = tl.load(acc_ptr + om[:, None] * N + on[None, :])
    c = tl.dot_scaled(
        a,
        a_scale,
        A_FORMAT,
        b,
        b_scale,
        B_FORMAT,
        acc,
        fast_math=FAST_MATH,
        lhs_k_pack=A_K_PACK,
        rhs_k_pack=B_K_PACK,
    )
    tl.store(c_ptr + om[:, None] * N + on[None, :], c)


def run_scaled_dot(
    a_format,
    b_format,
    m=32,
    n=32,
    k=64,
    a_scaled=True,
    b_scaled=True,
    a_k_pack=True,
    b_k_pack=True,
    with_acc=False,
    fast_math=False,
    a_scales=None,
    b_scales=None,
    seed=0,
):
    gen = torch.Generator().manual_seed(seed)
    group = 32
    # Stored shapes: a is [M, K] and b [K, N], fp4 halved along the packed dimension.
    if a_k_pack:
        a, a_values = random_operand(a_format, m, k // packing(a_format), gen)
    else:  # fp4 pairs along M: pack the transpose, whose last dimension is M
        a_t, a_t_values = random_operand(a_format, k, m // 2, gen)
        a, a_values = a_t.T.contiguous(), a_t_values.T
    if b_k_pack:  # fp4 pairs along K: pack b's transpose, [N, K]
        b_t, b_t_values = random_operand(b_format, n, k // packing(b_format), gen)
        b, b_values = b_t.T.contiguous(), b_t_values.T
    else:
        b, b_values = random_operand(b_format, k, n // 2, gen)
    if a_scales is None:
        a_scales = torch.randint(118, 136, (m, k // group), dtype=torch.uint8, generator=gen)
    if b_scales is None:
        b_scales = torch.randint(118, 136, (n, k // group), dtype=torch.uint8, generator=gen)
    acc = torch.randn(m, n, generator=gen) if with_acc else torch.zeros(m, n)
    c = torch.empty(m, n)
    scaled_dot_kernel[(1,)](
        a, a_scales, b, b_scales, acc, c, *a.shape, *b.shape, m, n, k // group,
        a_format, b_format, a_scaled, b_scaled, a_k_pack, b_k_pack, with_acc, fast_math,
    )  # fmt: skip
    if a_scaled:
        a_values = a_values * scale_values(a_scales, group)
    if b_scaled:
        b_values = b_values * scale_values(b_scales, group).T
    expected = a_values @ b_values + acc.double()
    bound = a_values.abs() @ b_values.abs() + acc.double().abs()
    assert_accumulated(c, expected, bound, k)
    return c


@pytest.mark.parametrize("b_format", FORMATS)
@pytest.mark.parametrize("a_format", FORMATS)
def test_formats(a_format, b_format):
    run_scaled_dot(a_format, b_format)


@pytest.mark.parametrize("a_format,b_format", [("e2m1", "e2m1"), ("e4m3", "e5m2"), ("e2m1", "bf16")])
def test_fast_math_multiplies_bf16(a_format, b_format):
    run_scaled_dot(a_format, b_format, fast_math=True)


@pytest.mark.parametrize("a_k_pack,b_k_pack", [(False, True), (True, False), (False, False)])
def test_fp4_packed_along_m_and_n(a_k_pack, b_k_pack):
    run_scaled_dot("e2m1", "e2m1", m=32, n=64, k=64, a_k_pack=a_k_pack, b_k_pack=b_k_pack)


@pytest.mark.parametrize("a_scaled,b_scaled", [(True, False), (False, True), (False, False)])
def test_missing_scales(a_scaled, b_scaled):
    run_scaled_dot("e4m3", "e2m1", a_scaled=a_scaled, b_scaled=b_scaled)


@pytest.mark.parametrize("m,n,k", [(16, 16, 32), (64, 16, 128), (16, 128, 256)])
def test_shapes_and_accumulator(m, n, k):
    run_scaled_dot("e2m1", "e4m3", m=m, n=n, k=k, with_acc=True)


def test_scale_extremes():
    # 2^-127 (an f32 subnormal) against 2^125 (6 * 2^125 is near f32's largest): products of
    # order one, exact in f32.
    m = n = 32
    k = 64
    c = run_scaled_dot(
        "e2m1", "e2m1", a_scales=torch.zeros(m, k // 32, dtype=torch.uint8),
        b_scales=torch.full((n, k // 32), 252, dtype=torch.uint8),
    )  # fmt: skip
    assert c.abs().max() > 1


def test_nan_scale():
    a_scales = torch.full((32, 2), 127, dtype=torch.uint8)
    a_scales[3, 1] = 255
    b_scales = torch.full((32, 2), 127, dtype=torch.uint8)
    b_scales[7, 0] = 255
    c = run_scaled_dot("e5m2", "e2m1", a_scales=a_scales, b_scales=b_scales)
    assert c[3].isnan().all() and c[:, 7].isnan().all()
    assert c.isnan().sum() == 32 + 32 - 1


@triton.jit
def batched_scaled_dot_kernel(
    a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr,
    BATCH: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
):  # fmt: skip
    ob = tl.arange(0, BATCH)[:, None, None]
    om = tl.arange(0, M)[None, :, None]
    on = tl.arange(0, N)[None, None, :]
    oka = tl.arange(0, K // 2)
    okb = tl.arange(0, K)
    os = tl.arange(0, K // 32)[None, None, :]
    a = tl.load(a_ptr + ob * M * (K // 2) + om * (K // 2) + oka[None, None, :])
    b = tl.load(b_ptr + ob * K * N + okb[None, :, None] * N + on)
    a_scale = tl.load(a_scale_ptr + ob * M * (K // 32) + om * (K // 32) + os)
    b_scale = tl.load(b_scale_ptr + ob * N * (K // 32) + tl.arange(0, N)[None, :, None] * (K // 32) + os)
    c = tl.dot_scaled(a, a_scale, "e2m1", b, b_scale, "e4m3")
    tl.store(c_ptr + ob * M * N + om * N + on, c)


def test_batched():
    batch, m, n, k = 2, 16, 32, 64
    gen = torch.Generator().manual_seed(1)
    a, a_values = zip(*(random_operand("e2m1", m, k // 2, gen) for _ in range(batch)))
    b_t, b_t_values = zip(*(random_operand("e4m3", n, k, gen) for _ in range(batch)))
    a, a_values = torch.stack(a), torch.stack(a_values)
    b = torch.stack([t.T.contiguous() for t in b_t])
    a_scales = torch.randint(120, 134, (batch, m, k // 32), dtype=torch.uint8, generator=gen)
    b_scales = torch.randint(120, 134, (batch, n, k // 32), dtype=torch.uint8, generator=gen)
    c = torch.empty(batch, m, n)
    batched_scaled_dot_kernel[(1,)](a, a_scales, b, b_scales, c, batch, m, n, k)
    a_values = a_values * torch.stack([scale_values(s, 32) for s in a_scales])
    b_values = torch.stack([(t * scale_values(s, 32)).T for t, s in zip(b_t_values, b_scales)])
    expected = a_values @ b_values
    assert_accumulated(c, expected, a_values.abs() @ b_values.abs(), k)


@triton.jit
def mx_matmul_kernel(
    a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
    A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    """C = A @ B with A [M, K] and B [K, N] in microscaling formats, scales [M, K / 32] and
    [N, K / 32]; fp4 operands packed along K. K is a multiple of BLOCK_K."""
    PACK_A: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
    PACK_B: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    om = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    on = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    oka = tl.arange(0, BLOCK_K // PACK_A)
    okb = tl.arange(0, BLOCK_K // PACK_B)
    os = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(
            a_ptr + om[:, None] * (K // PACK_A) + (k // PACK_A + oka)[None, :],
            mask=om[:, None] < M, other=0,
        )  # fmt: skip
        b = tl.load(
            b_ptr + (k // PACK_B + okb)[:, None] * N + on[None, :],
            mask=on[None, :] < N, other=0,
        )  # fmt: skip
        a_scale = tl.load(
            a_scale_ptr + om[:, None] * (K // 32) + (k // 32 + os)[None, :], mask=om[:, None] < M, other=0
        )
        b_scale = tl.load(
            b_scale_ptr + on[:, None] * (K // 32) + (k // 32 + os)[None, :], mask=on[:, None] < N, other=0
        )
        acc = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, acc)
    tl.store(c_ptr + om[:, None] * N + on[None, :], acc, mask=(om[:, None] < M) & (on[None, :] < N))


@pytest.mark.parametrize("a_format,b_format", [("e2m1", "e2m1"), ("e4m3", "e2m1"), ("e5m2", "e4m3")])
def test_blocked_matmul_loop(a_format, b_format):
    """A grid of programs, each looping over K with masked edge tiles in M and N."""
    m, n, k = 100, 72, 256
    gen = torch.Generator().manual_seed(2)
    a, a_values = random_operand(a_format, m, k // packing(a_format), gen)
    b_t, b_t_values = random_operand(b_format, n, k // packing(b_format), gen)
    b = b_t.T.contiguous()
    a_scales = torch.randint(118, 136, (m, k // 32), dtype=torch.uint8, generator=gen)
    b_scales = torch.randint(118, 136, (n, k // 32), dtype=torch.uint8, generator=gen)
    c = torch.empty(m, n)
    grid = (triton.cdiv(m, 32), triton.cdiv(n, 32))
    mx_matmul_kernel[grid](
        a, a_scales, b, b_scales, c, m, n, k, a_format, b_format, BLOCK_M=32, BLOCK_N=32, BLOCK_K=64
    )
    a_values = a_values * scale_values(a_scales, 32)
    b_values = (b_t_values * scale_values(b_scales, 32)).T
    assert_accumulated(c, a_values @ b_values, a_values.abs() @ b_values.abs(), k)


@triton.jit
def nvfp4_dot_kernel(
    a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr
):
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    os = tl.arange(0, K // 16)
    a = tl.load(a_ptr + om[:, None] * (K // 2) + tl.arange(0, K // 2)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K // 2)[:, None] * N + on[None, :])
    a_scale = tl.load(a_scale_ptr + om[:, None] * (K // 16) + os[None, :])
    b_scale = tl.load(b_scale_ptr + on[:, None] * (K // 16) + os[None, :])
    c = tl.dot_scaled(a, a_scale, "e2m1", b, b_scale, "e2m1")
    tl.store(c_ptr + om[:, None] * N + on[None, :], c)


def test_fp8_scales_per_16_elements():
    """NVFP4: fp4 values with an fp8 (e4m3) scale per 16 elements of K."""
    m, n, k = 32, 16, 64
    gen = torch.Generator().manual_seed(3)
    a, a_values = random_operand("e2m1", m, k // 2, gen)
    b_t, b_t_values = random_operand("e2m1", n, k // 2, gen)
    a_scales = (torch.rand(m, k // 16, generator=gen) * 4).to(torch.float8_e4m3fn)
    b_scales = (torch.rand(n, k // 16, generator=gen) * 4).to(torch.float8_e4m3fn)
    c = torch.empty(m, n)
    nvfp4_dot_kernel[(1,)](a, a_scales, b_t.T.contiguous(), b_scales, c, m, n, k)
    a_values = a_values * a_scales.double().repeat_interleave(16, dim=1)
    b_values = (b_t_values * b_scales.double().repeat_interleave(16, dim=1)).T
    assert_accumulated(c, a_values @ b_values, a_values.abs() @ b_values.abs(), k)


def compile_mx_matmul():
    """mx_matmul_kernel for fp4 A and fp8 B, 64 x 64 x 128 in 32 x 32 x 64 blocks, compiled for the
    active driver's target without running."""
    m = n = 64
    k = 128
    a, b = torch.empty(m, k // 2, dtype=torch.uint8), torch.empty(k, n, dtype=torch.uint8)
    a_scale, b_scale = torch.empty(m, k // 32, dtype=torch.uint8), torch.empty(n, k // 32, dtype=torch.uint8)
    c = torch.empty(m, n)
    return mx_matmul_kernel.warmup(
        a, a_scale, b, b_scale, c, m, n, k, "e2m1", "e4m3", BLOCK_M=32, BLOCK_N=32, BLOCK_K=64, grid=(2, 2)
    )


def test_blocked_matmul_is_the_micro_kernel():
    """The decoded tiles are what the dot reads: the K loop is the register-blocked micro-kernel
    (vector FMAs), not a loop decoding fp4 for every column (a reshape of the unpacked tile folded
    into the matmul made it one: 2.8 against 170 GFLOP/s at 1024)."""
    compiled = compile_mx_matmul()
    if targets.host().machine != "x86_64":
        pytest.skip("x86 mnemonics; test_riscv_codegen.py checks the RISC-V loop")
    asm = compiled.asm["asm"]
    assert len(re.findall(r"\bvfmadd\d+ps\b", asm)) >= 8
    assert not re.search(r"\bvfmadd\d+ss\b", asm)
