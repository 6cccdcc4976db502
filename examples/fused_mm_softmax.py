"""A fused matmul + softmax, the kernel of a spine-triton user's post: softmax of each row of A @ B
in one kernel, one program per BLOCK_M rows holding whole rows of the product.

    python3 examples/fused_mm_softmax.py                      on the host CPU
    python3 examples/fused_mm_softmax.py --riscv              for the SpacemiT X60 (qemu off RISC-V)
    python3 examples/fused_mm_softmax.py --arch-id 0xA03C     for another SpacemiT core

Prints, per shape, whether the result matches torch.softmax(A @ B, dim=1); exits with 1 on a
mismatch. bench/kernels.py measures the same kernel.
"""

import sys

import example_cli
import torch
import triton
import triton.language as tl
from tutorial_matmul import matmul_args


@triton.jit
def fused_mm_softmax_kernel(
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
    pid = tl.program_id(0)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(
            a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :] * stride_ak,
            mask=(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn,
            mask=((k + offs_k)[:, None] < K) & (offs_n[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a, b)
    acc = tl.where(offs_n[None, :] < N, acc, -float("inf"))
    acc = acc - tl.max(acc, axis=1)[:, None]
    num = tl.exp(acc)
    out = num / tl.sum(num, axis=1)[:, None]
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, out, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def fused_mm_softmax(a, b, num_threads=0):
    """softmax(A @ B, dim=1) in fp32; `num_threads` is spine-triton's launch option (0: all cores)."""
    M, N = a.shape[0], b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32)
    BLOCK_M, BLOCK_K = 32, 32
    fused_mm_softmax_kernel[(triton.cdiv(M, BLOCK_M),)](
        *matmul_args(a, b, c),
        BLOCK_M=BLOCK_M,
        BLOCK_N=triton.next_power_of_2(N),
        BLOCK_K=BLOCK_K,
        num_threads=num_threads,
    )
    return c


def test_fused_mm_softmax(M=128, N=96, K=80, dtype=torch.float32):
    """One fused launch against torch.softmax(A @ B, dim=1); prints the verdict and raises
    AssertionError when they differ."""
    a, b = torch.randn(M, K, dtype=dtype), torch.randn(K, N, dtype=dtype)
    out = fused_mm_softmax(a, b)
    ref = torch.softmax(a.float() @ b.float(), dim=1)
    diff = (out - ref).abs().max().item()
    ok = torch.allclose(out, ref, rtol=1e-4, atol=1e-6)
    example_cli.report(f"fused_mm_softmax {M}x{K} @ {K}x{N} {dtype}", ok, f"max |diff| {diff:.1e}")
    assert ok, f"fused_mm_softmax {M}x{K} @ {K}x{N}: max |diff| {diff:.1e} from torch"


# (M, N, K): whole blocks, then partial blocks on every axis (N is padded to a power of two).
SHAPES = [(128, 128, 128), (200, 100, 70), (256, 512, 256)]
# Under qemu every instruction is emulated: small enough to take a second or two.
EMULATED_SHAPES = [(32, 32, 32), (40, 48, 50)]


def main(argv=None) -> int:
    emulated = example_cli.setup(__doc__.splitlines()[0], argv)
    torch.manual_seed(0)
    results = []
    for M, N, K in EMULATED_SHAPES if emulated else SHAPES:
        try:
            test_fused_mm_softmax(M, N, K)
            results.append(True)
        except AssertionError:
            results.append(False)
    return example_cli.finish(results)


if __name__ == "__main__":
    sys.exit(main())
