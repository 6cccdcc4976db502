"""A plain Triton matmul, as spine-triton users write one: a 2-D grid with one program per
BLOCK_M x BLOCK_N tile of C, masked loads on every axis, fp32 accumulation, no autotuning.

    python3 examples/bare_matmul.py                      on the host CPU
    python3 examples/bare_matmul.py --riscv              for the SpacemiT X60 (qemu off RISC-V)
    python3 examples/bare_matmul.py --arch-id 0xA03C     for another SpacemiT core

Prints, per shape and dtype, whether C matches torch's A @ B; exits with 1 on a mismatch.
"""

import sys

import example_cli
import torch
import triton
import triton.language as tl
from tutorial_matmul import matmul_args


@triton.jit
def bare_matmul_kernel(
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
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def bare_matmul(a, b, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16):
    """C = A @ B in fp32 (A and B fp32, fp16 or bf16)."""
    c = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float32)
    grid = (triton.cdiv(a.shape[0], BLOCK_M), triton.cdiv(b.shape[1], BLOCK_N))
    bare_matmul_kernel[grid](*matmul_args(a, b, c), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c


# (M, N, K): whole blocks, then partial blocks on every axis.
SHAPES = [(128, 128, 128), (129, 65, 70), (256, 320, 192)]
# Under qemu every instruction is emulated: small enough to take a second or two.
EMULATED_SHAPES = [(32, 32, 32), (40, 72, 50)]
DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def main(argv=None) -> int:
    emulated = example_cli.setup(__doc__.splitlines()[0], argv)
    torch.manual_seed(0)
    results = []
    for M, N, K in EMULATED_SHAPES if emulated else SHAPES:
        for dtype in DTYPES:
            a, b = torch.randn(M, K).to(dtype), torch.randn(K, N).to(dtype)
            c = bare_matmul(a, b)
            ref = a.float() @ b.float()
            diff = (c - ref).abs().max().item()
            ok = torch.allclose(c, ref, rtol=1e-4, atol=1e-4)
            results.append(
                example_cli.report(f"bare_matmul {M}x{K} @ {K}x{N} {dtype}", ok, f"max |diff| {diff:.1e}")
            )
    return example_cli.finish(results)


if __name__ == "__main__":
    sys.exit(main())
