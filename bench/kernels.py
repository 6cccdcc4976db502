"""The benchmarked kernels, written the way GPU users write them (Triton's tutorials and the fused
matmul + softmax of a spine-triton user). Nothing here is tuned for CPUs on purpose: the suite
measures how well the backend runs ordinary Triton code.

Each host wrapper takes torch CPU tensors and returns the output, like the tutorials' wrappers;
`num_threads` is spine-triton's launch option (0: SPINE_TRITON_NUM_THREADS or all cores).
"""

import sys
from pathlib import Path

import torch
import triton
import triton.language as tl
from timing import tuning_bench

# The tutorial matmul, the user's fused matmul + softmax and the fused attention are the examples'
# kernels: one definition in examples/ (tutorial_matmul.py, fused_mm_softmax.py,
# fused_attention.py), which is a directory of scripts.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import tutorial_matmul
from fused_attention import attention, attention_fwd_kernel
from fused_mm_softmax import fused_mm_softmax, fused_mm_softmax_kernel
from tutorial_matmul import MATMUL_CONFIGS, matmul_kernel

# worker.py reaches the kernels and their wrappers through this module.
__all__ = [
    "MATMUL_CONFIGS",
    "add",
    "add_kernel",
    "attention",
    "attention_fwd_kernel",
    "fused_mm_softmax",
    "fused_mm_softmax_kernel",
    "layer_norm",
    "layer_norm_fwd_kernel",
    "matmul",
    "matmul_autotuned",
    "matmul_kernel",
    "mx_matmul",
    "mx_matmul_kernel",
    "softmax",
    "softmax_kernel",
    "tutorial_matmul",
]

# Tutorial 01: vector add.


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x, y, num_threads=0):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = (triton.cdiv(n_elements, 1024),)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024, num_threads=num_threads)
    return output


# Tutorial 02: fused softmax, one row per loop iteration of a persistent program.


@triton.jit
def softmax_kernel(
    output_ptr,
    input_ptr,
    input_row_stride,
    output_row_stride,
    n_rows,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
    num_stages: tl.constexpr,
):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def softmax(x, num_threads=0):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    y = torch.empty_like(x)
    # The tutorial sizes its persistent grid from occupancy, one program per core here; a few
    # programs per core measured 1-7% faster (docs/benchmarks.md).
    num_sm = triton.runtime.driver.active.utils.get_device_properties(0)["multiprocessor_count"]
    num_programs = min(4 * num_sm, n_rows)
    softmax_kernel[(num_programs, 1, 1)](
        y,
        x,
        x.stride(0),
        y.stride(0),
        n_rows,
        n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
        num_stages=2,
        num_threads=num_threads,
    )
    return y


# Tutorial 05: layer norm, forward pass.


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps=1e-5, num_threads=0):
    y = torch.empty_like(x)
    M, N = x.shape
    mean = torch.empty((M,), dtype=torch.float32)
    rstd = torch.empty((M,), dtype=torch.float32)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    layer_norm_fwd_kernel[(M,)](
        x,
        y,
        weight,
        bias,
        mean,
        rstd,
        x.stride(0),
        N,
        eps,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
        num_threads=num_threads,
    )
    return y


# Tutorial 03: matmul with grouped program ordering, autotuned over GPU-style tiles.

# The suite's benchmarker ranks the configs: triton's default makes 8+ calls per config.
matmul_autotuned = tutorial_matmul.autotuned(do_bench=tuning_bench)


def matmul(a, b, num_threads=0):
    """C = A @ B in A's dtype with fp32 accumulation. The autotuner keys on the shapes and dtypes
    only, so another `num_threads` reuses the config tuned for the default."""
    return tutorial_matmul.matmul(a, b, matmul_autotuned, num_threads=num_threads)


# Microscaling matmul: MXFP4 operands (fp4 e2m1, two per byte along K, an e8m0 scale per 32
# elements of K), as tutorial 10 multiplies them with tl.dot_scaled, fp32 out.


# Block shapes a GPU user would try for tl.dot_scaled (tutorial 10 uses BLOCK_K 128 and 256).
MX_MATMUL_CONFIGS = [
    triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk})
    for bm, bn, bk in ((128, 128, 128), (128, 128, 64), (64, 128, 128), (128, 64, 64))
]


@triton.autotune(configs=MX_MATMUL_CONFIGS, key=["M", "N", "K"], do_bench=tuning_bench)
@triton.jit
def mx_matmul_kernel(
    a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
    stride_am, stride_bk, stride_cm, stride_scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    """A is [M, K / 2] bytes, B [K / 2, N] bytes, their scales [M, K / 32] and [N, K / 32]."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K // 2)
    offs_s = tl.arange(0, BLOCK_K // 32)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    a_scale_ptrs = a_scale_ptr + offs_m[:, None] * stride_scale + offs_s[None, :]
    b_scale_ptrs = b_scale_ptr + offs_n[:, None] * stride_scale + offs_s[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0)
        b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0)
        a_scale = tl.load(a_scale_ptrs, mask=offs_m[:, None] < M, other=0)
        b_scale = tl.load(b_scale_ptrs, mask=offs_n[:, None] < N, other=0)
        acc = tl.dot_scaled(a, a_scale, "e2m1", b, b_scale, "e2m1", acc)
        a_ptrs += BLOCK_K // 2
        b_ptrs += (BLOCK_K // 2) * stride_bk
        a_scale_ptrs += BLOCK_K // 32
        b_scale_ptrs += BLOCK_K // 32
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def mx_matmul(a, a_scale, b, b_scale, num_threads=0):
    """C = A @ B (fp32) of MXFP4 A [M, K] and B [K, N] stored as above. K is a multiple of 128."""
    M, N, K = a.shape[0], b.shape[1], 2 * a.shape[1]
    assert K % 128 == 0, "K must be a multiple of 128, the largest BLOCK_K tried"
    c = torch.empty((M, N), dtype=torch.float32)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))

    mx_matmul_kernel[grid](
        a, a_scale, b, b_scale, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), a_scale.stride(0),
        num_threads=num_threads,
    )  # fmt: skip
    return c
