"""The matmul of Triton's tutorial 03 as GPU users write it: grouped program order, a masked K tail,
fp32 accumulation, autotuned over GPU-style tiles (the tutorial's activation is left out).

One definition for everything in this repository that runs the tutorial kernel: bench/kernels.py,
test/python/test_riscv_codegen.py, tools/riscv_inst_mix.py and the examples. Scripts outside
examples/ import it after putting this directory on ``sys.path``:

    sys.path.insert(0, str(REPO / "examples"))
    import tutorial_matmul

``matmul_args`` gives the arguments every matmul kernel here starts with (``a, b, c, M, N, K`` and
the six strides), ``launch`` runs the tutorial kernel over its grid, ``matmul`` is the tutorial's
host wrapper.
"""

import torch
import triton
import triton.language as tl

MATMUL_CONFIGS = [
    triton.Config(
        {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
        num_stages=3,
        num_warps=8,
    ),
    triton.Config(
        {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
        num_stages=4,
        num_warps=4,
    ),
    triton.Config(
        {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
        num_stages=4,
        num_warps=4,
    ),
    triton.Config(
        {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
        num_stages=4,
        num_warps=4,
    ),
    triton.Config(
        {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
        num_stages=5,
        num_warps=2,
    ),
]


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def autotuned(**options):
    """``matmul_kernel`` under ``triton.autotune`` over ``MATMUL_CONFIGS``, keyed on the shapes as in
    the tutorial; `options` go to ``triton.autotune`` (``do_bench=...``, for one)."""
    return triton.autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"], **options)(matmul_kernel)


matmul_autotuned = autotuned()


def matmul_args(a, b, c):
    """The arguments a matmul kernel computing C = A @ B starts with: the three tensors, M, N, K and
    the row and column strides of A, B and C."""
    M, K = a.shape
    N = b.shape[1]
    return (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))


def launch(kernel, a, b, c, *, warmup=False, **meta):
    """Runs `kernel` (``matmul_kernel`` or an autotuned version of it) for C = A @ B over the
    tutorial's grid: one program per BLOCK_SIZE_M x BLOCK_SIZE_N tile, on one axis. `meta` holds the
    block sizes (not for an autotuned kernel) and launch options such as ``num_threads`` or
    ``vec_method``. Returns the compiled kernel; with ``warmup=True`` compiles it without running."""
    M, N = a.shape[0], b.shape[1]

    def grid(META):
        return (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)

    if warmup:
        return kernel.warmup(*matmul_args(a, b, c), grid=grid, **meta)
    return kernel[grid](*matmul_args(a, b, c), **meta)


def matmul(a, b, kernel=matmul_autotuned, **meta):
    """C = A @ B in A's dtype with fp32 accumulation, the tutorial's host wrapper; `kernel` and
    `meta` as for ``launch``."""
    c = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
    launch(kernel, a, b, c, **meta)
    return c
