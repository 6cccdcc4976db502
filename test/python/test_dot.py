"""tl.dot through the register-blocked micro-kernel, every input dtype, against torch."""

import re

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def dot_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    steps_ptr=None,
):
    """With `steps_ptr`, each program stores its count of K steps there in its K loop: a write
    before the next step's loads, so the kernel takes no tile cache (docs/kernel-abi.md) and every
    program copies its own tiles and prefetches the next ones, as kernels without a cache do."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=c_ptr.dtype.element_ty)
    for k in range(tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(
            a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0
        )
        b = tl.load(
            b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0
        )
        acc += tl.dot(a, b, out_dtype=c_ptr.dtype.element_ty)
        if steps_ptr is not None:
            tl.store(steps_ptr + tl.program_id(0) * tl.num_programs(1) + tl.program_id(1), k + 1)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


CASES = [
    (torch.float32, torch.float32, {"rtol": 1e-4, "atol": 1e-4}),
    (torch.float16, torch.float32, {"rtol": 1e-3, "atol": 1e-3}),
    (torch.bfloat16, torch.float32, {"rtol": 1e-3, "atol": 1e-3}),
    (torch.int8, torch.int32, {"rtol": 0, "atol": 0}),
    (torch.float64, torch.float64, {"rtol": 1e-10, "atol": 1e-10}),
]


def run_dot(in_dtype, out_dtype, shape, blocks, seed, steps=None):
    """dot_kernel on random [M, K] x [K, N] inputs: (the compiled kernel, C, the fp64 product
    rounded to C's dtype). `steps`: dot_kernel's steps_ptr."""
    torch.manual_seed(seed)
    M, N, K = shape
    if in_dtype.is_floating_point:
        a, b = torch.randn(M, K).to(in_dtype), torch.randn(K, N).to(in_dtype)
    else:
        a, b = (
            torch.randint(-128, 128, (M, K), dtype=in_dtype),
            torch.randint(-128, 128, (K, N), dtype=in_dtype),
        )
    c = torch.empty(M, N, dtype=out_dtype)
    bm, bn, bk = blocks
    compiled = dot_kernel[(triton.cdiv(M, bm), triton.cdiv(N, bn))](
        a, b, c, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, steps_ptr=steps
    )
    return compiled, c, (a.to(torch.float64) @ b.to(torch.float64)).to(out_dtype)


@pytest.mark.parametrize("in_dtype, out_dtype, tol", CASES, ids=[str(c[0]) for c in CASES])
@pytest.mark.parametrize("blocks", [(32, 32, 16), (64, 16, 32), (16, 64, 8)])
def test_dot(in_dtype, out_dtype, tol, blocks):
    _, c, expected = run_dot(in_dtype, out_dtype, (97, 83, 70), blocks, seed=0)
    torch.testing.assert_close(c, expected, **tol)


@pytest.mark.parametrize("in_dtype, out_dtype, tol", CASES, ids=[str(c[0]) for c in CASES])
def test_dot_with_long_b_rows(in_dtype, out_dtype, tol):
    """B tiles with rows of 1 KiB or more, as a fused kernel holding whole rows of the product
    loads them: spine-vectorize-matmul pads the rows of the tile's buffer (when the K loop reads
    it in B's type) or widens it into a copy; 32-row blocks (a 6-row block's leftover rows),
    masked edges. The next K step's tiles are still prefetched into L2 from the micro-kernel."""
    blocks = (32, 1024 if in_dtype.itemsize == 1 else 512, 16)
    compiled, c, expected = run_dot(in_dtype, out_dtype, (70, 1000, 45), blocks, seed=2)
    torch.testing.assert_close(c, expected, **tol)
    # Kernels that copy their own tiles (no tile cache) prefetch the next ones from the micro-kernel.
    steps = torch.zeros(3 * 2, dtype=torch.int32)
    compiled, c, expected = run_dot(in_dtype, out_dtype, (70, 1000, 45), blocks, seed=2, steps=steps)
    torch.testing.assert_close(c, expected, **tol)
    assert not compiled.metadata.tile_cache
    assert re.search(r"call void @llvm\.prefetch\.p0\(ptr [^)]*, i32 0, i32 2, i32 1\)", compiled.asm["llir"])


@triton.jit
def dot_precision_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr, PRECISION: tl.constexpr):
    rows, cols = tl.arange(0, N)[:, None], tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + rows * N + cols)
    b = tl.load(b_ptr + rows * N + cols)
    tl.store(c_ptr + rows * N + cols, tl.dot(a, b, input_precision=PRECISION))


@pytest.mark.parametrize("precision", ["ieee", "tf32", "tf32x3", "bf16x3", "bf16x6"])
def test_every_input_precision_is_an_fp32_dot(precision):
    # GPU kernels ask for tensor-core precisions; a CPU has none of them and multiplies fp32 exactly
    # (one fp32 rounding per step), so every precision gives the ieee result, closer than tf32's
    # 10-bit mantissas (which would be off by about 1e-3 here).
    torch.manual_seed(1)
    a, b = torch.randn(32, 32), torch.randn(32, 32)
    c = torch.empty(32, 32)
    dot_precision_kernel[(1,)](a, b, c, N=32, PRECISION=precision)
    torch.testing.assert_close(c, (a.double() @ b.double()).float(), rtol=1e-5, atol=1e-5)


def test_next_tiles_are_prefetched_during_the_micro_kernel():
    """spine-schedule-tile-prefetches: in a kernel that copies its own tiles (no tile cache), the
    prefetches of the next K step's tiles (into L2, locality 2) run inside the micro-kernel's FMA
    loops, not in the copies; the result is unchanged."""
    a = torch.randn(96, 128)
    b = torch.randn(128, 64)
    c = torch.empty(96, 64)
    steps = torch.zeros(3, dtype=torch.int32)
    compiled = dot_kernel[(3, 1)](a, b, c, 96, 64, 128, BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, steps_ptr=steps)
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
    assert steps.tolist() == [4, 4, 4]
    assert not compiled.metadata.tile_cache
    llir = compiled.asm["llir"]
    assert re.search(r"call void @llvm\.prefetch\.p0\(ptr [^)]*, i32 0, i32 2, i32 1\)", llir)
    assert not re.search(r"call void @llvm\.prefetch\.p0\(ptr [^)]*, i32 0, i32 3, i32 1\)", llir)


def test_fp16_a_is_widened_before_the_k_loop():
    """fp16 A with an fp32 accumulator, one column block of 64 per program (one on AVX-512, two on
    AVX2): A is widened into an fp32 copy a vector at a time, and the K loop broadcasts from it; no
    element of A is converted on its own (a vcvtph2ps per row and K step, measured 40% slower at
    2048 on 64 x 64 x 64 tiles)."""
    torch.manual_seed(3)
    a = torch.randn(128, 128).to(torch.float16)
    b = torch.randn(128, 64).to(torch.float16)
    c = torch.empty(128, 64)
    compiled = dot_kernel[(2, 1)](a, b, c, 128, 64, 128, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-4, atol=1e-4)
    llir = compiled.asm["llir"]
    assert re.search(r"fpext <\d+ x half>", llir)
    assert not re.search(r"fpext half ", llir)


# The pair-instruction tests' shape: several column blocks per program (A widened once) and an
# even K.
PAIR_M, PAIR_N, PAIR_K = 64, 96, 256


def run_pair_dot(a, b, out_dtype, **options):
    """dot_kernel on a [PAIR_M, PAIR_K] x [PAIR_K, PAIR_N] product in 32 x 32 x 64 blocks: (C, the
    kernel's assembly). `options` are launch options (vec_method)."""
    c = torch.empty(PAIR_M, PAIR_N, dtype=out_dtype)
    compiled = dot_kernel[(2, 3)](
        a, b, c, PAIR_M, PAIR_N, PAIR_K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=64, **options
    )
    return c, compiled.asm["asm"]


def check_pair_instruction(asm, host_has_it, pair_mnemonics, one_step_pattern):
    """Where the host has the pair instruction (a regex of its mnemonics) the dot uses it and not
    the one-K-step instruction it replaces; elsewhere it is absent."""
    if host_has_it:
        assert re.search(rf"\s(?:{pair_mnemonics})\s", asm)
        assert not re.search(one_step_pattern, asm)
    else:
        assert not re.search(rf"\s(?:{pair_mnemonics})\s", asm)


def test_bf16_dot_uses_the_hosts_bf16_pair_instruction():
    """On an x86 host with AVX512-BF16, a bf16 tl.dot with an fp32 accumulator multiplies pairs of K
    steps with vdpbf16ps (B's tile packed with row pairs interleaved) when it keeps to vector
    registers (vec_method="vector"; hosts with AMX use tiles otherwise); elsewhere it widens to fp32
    and uses FMAs. Either way the result matches fp64 within what fp32 accumulation allows."""
    from spine_triton import targets

    torch.manual_seed(1)
    a, b = torch.randn(PAIR_M, PAIR_K).to(torch.bfloat16), torch.randn(PAIR_K, PAIR_N).to(torch.bfloat16)
    c, asm = run_pair_dot(a, b, torch.float32, vec_method="vector")
    expected = (a.to(torch.float64) @ b.to(torch.float64)).to(torch.float32)
    torch.testing.assert_close(c, expected, rtol=1e-5, atol=1e-5)
    check_pair_instruction(asm, targets.has_bf16_dot_product(targets.host()), "vdpbf16ps", r"vfmadd\d+ps")
    assert "tdpbf16ps" not in asm


@pytest.mark.parametrize(
    "m, n, k, block_m, block_n, block_k",
    [
        (64, 96, 256, 32, 32, 64),  # 2 x 2 blocks of C tiles, K in two tile steps
        (48, 80, 96, 16, 16, 32),  # one C tile per program, one K step of a tile per tl.dot
        (100, 70, 90, 32, 64, 32),  # masked edges in all three dimensions
        # a 64 KiB accumulator: the K loop unrolled by 2 (spine-unroll-dot-loops), 7 K steps
        # (one left for the loop after it), masked edges
        (200, 150, 224, 128, 128, 32),
    ],
)
def test_bf16_dot_uses_amx_tiles_where_the_host_has_them(m, n, k, block_m, block_n, block_k):
    """On an x86 host with AMX-BF16 (Sapphire Rapids and later), a bf16 tl.dot with an fp32
    accumulator whose blocks are multiples of 16 x 16 x 32 multiplies tiles (tdpbf16ps after a
    ldtilecfg, no vdpbf16ps left); elsewhere no tile instruction appears. Either way the result
    matches fp64 within what fp32 accumulation allows. test/lit/vectorize-matmul-amx.mlir checks
    the code on any host."""
    from spine_triton import targets

    torch.manual_seed(4)
    a, b = torch.randn(m, k).to(torch.bfloat16), torch.randn(k, n).to(torch.bfloat16)
    c = torch.empty(m, n)
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    compiled = dot_kernel[grid](a, b, c, m, n, k, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k)
    expected = (a.to(torch.float64) @ b.to(torch.float64)).to(torch.float32)
    torch.testing.assert_close(c, expected, rtol=1e-5, atol=1e-5)
    asm = compiled.asm["asm"]
    if targets.has_amx_tiles(targets.host()):
        assert re.search(r"\stdpbf16ps\s", asm) and re.search(r"\sldtilecfg\s", asm)
        assert "vdpbf16ps" not in asm
    else:
        assert "tdpbf16ps" not in asm and "ldtilecfg" not in asm


def int8_operands(values, m, k, n):
    """int8 A [m, k] and B [k, n]: "random", or "extremes" (every product -128 * -128 or
    -128 * 127, the largest sums a pair or quad of products can reach)."""
    if values == "random":
        return (
            torch.randint(-128, 128, (m, k), dtype=torch.int8),
            torch.randint(-128, 128, (k, n), dtype=torch.int8),
        )
    a = torch.full((m, k), -128, dtype=torch.int8)
    b = torch.full((k, n), -128, dtype=torch.int8)
    b[:, ::2] = 127
    return a, b


@pytest.mark.parametrize("values", ["random", "extremes"])
def test_int8_dot_uses_the_hosts_int16_pair_instruction(values):
    """On x86, an int8 tl.dot with an int32 accumulator kept to vector registers
    (vec_method="vector"; hosts with AMX use tiles otherwise) multiplies pairs of K steps with
    vpmaddwd (vpdpwssd with AVX512-VNNI; B's tile packed with row pairs widened to int16), and no
    vpmulld is left; elsewhere it widens to int32. Exact either way, also with every product -128 * -128 (a pair's sum 2^15, which an
    int16 sum would overflow) or -128 * 127."""
    from spine_triton import targets

    torch.manual_seed(2)
    a, b = int8_operands(values, PAIR_M, PAIR_K, PAIR_N)
    c, asm = run_pair_dot(a, b, torch.int32, vec_method="vector")
    torch.testing.assert_close(c, (a.to(torch.int64) @ b.to(torch.int64)).to(torch.int32), rtol=0, atol=0)
    # With AVX512-VNNI, LLVM folds each vpmaddwd and the vpaddd after it into one vpdpwssd.
    check_pair_instruction(
        asm, targets.has_int16_pair_product(targets.host()), "vpmaddwd|vpdpwssd", r"vpmulld\s"
    )


@pytest.mark.parametrize("values", ["random", "extremes"])
@pytest.mark.parametrize(
    "m, n, k, block_m, block_n, block_k",
    [
        (64, 96, 256, 32, 32, 64),
        (48, 80, 192, 16, 16, 64),
        (100, 70, 150, 32, 64, 64),  # masked edges in all three dimensions
        # a 64 KiB accumulator: the K loop unrolled by 4 (spine-unroll-dot-loops), 7 K steps (3
        # left for the loop after it), masked edges
        (200, 150, 448, 128, 128, 64),
    ],
)
def test_int8_dot_uses_amx_tiles_where_the_host_has_them(values, m, n, k, block_m, block_n, block_k):
    """On an x86 host with AMX-INT8, an int8 tl.dot with an int32 accumulator whose blocks are
    multiples of 16 x 16 x 64 multiplies tiles (tdpbssd, B packed in quads of K steps); elsewhere
    no tile instruction appears. Exact either way, with random values and with every product
    -128 * -128 or -128 * 127."""
    from spine_triton import targets

    torch.manual_seed(5)
    a, b = int8_operands(values, m, k, n)
    c = torch.empty(m, n, dtype=torch.int32)
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    compiled = dot_kernel[grid](a, b, c, m, n, k, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k)
    torch.testing.assert_close(c, (a.to(torch.int64) @ b.to(torch.int64)).to(torch.int32), rtol=0, atol=0)
    asm = compiled.asm["asm"]
    if targets.has_amx_tiles(targets.host()):
        assert re.search(r"\stdpbssd\s", asm) and re.search(r"\sldtilecfg\s", asm)
        assert not re.search(r"\s(?:vpmaddwd|vpdpwssd)\s", asm)
    else:
        assert "tdpbssd" not in asm and "ldtilecfg" not in asm


@triton.jit
def dot_rounded_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    """fp32 accumulation, the result rounded to C's dtype as the tutorial matmul stores it."""
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=kk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=kk[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
def test_half_tiles_round_trip_without_library_calls(dtype):
    """16-bit float tiles move as i16 (spine-half-floats-as-bits): the masked K block's loads and
    the fp32 -> bf16 rounding of the output are vector code. Before, x86 without AVX512-BF16 made
    one __truncsfbf2 call per lane of every bf16 masked load, select and masked store. K = 200 is
    not a multiple of BLOCK_K, so the last block is masked; a NaN in A makes its row NaN."""
    torch.manual_seed(2)
    M, N, K = 96, 128, 200
    a, b = torch.randn(M, K).to(dtype), torch.randn(K, N).to(dtype)
    a[5, 7] = float("nan")
    c = torch.empty(M, N, dtype=dtype)
    compiled = dot_rounded_kernel[(2, 2)](a, b, c, M, N, K, BLOCK=64, BLOCK_K=64)
    expected = (a.double() @ b.double()).float()
    assert c[5].isnan().all()
    finite = torch.ones(M, dtype=torch.bool)
    finite[5] = False
    # fp32 accumulation, then one rounding to 8 (bf16) or 11 (fp16) significant bits.
    rtol = 2**-7 if dtype == torch.bfloat16 else 2**-10
    torch.testing.assert_close(c[finite].float(), expected[finite], rtol=rtol, atol=1e-2)
    assert not re.search(r"call\w*\s+__truncsfbf2", compiled.asm["asm"])
