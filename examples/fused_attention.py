"""Fused attention forward (FlashAttention-2, after Triton's tutorial 06): softmax(Q K^T / sqrt(d)) V
for every head, one program per BLOCK_M queries, the keys and values walked in blocks with an
online softmax, nothing of the N x N scores ever stored.

    python3 examples/fused_attention.py                      on the host CPU
    python3 examples/fused_attention.py --riscv              for the SpacemiT X60 (qemu off RISC-V)
    python3 examples/fused_attention.py --arch-id 0xA03C     for another SpacemiT core

Prints, per case, whether the result matches torch's scaled_dot_product_attention; exits with 1 on
a mismatch. bench/kernels.py measures the same kernel.
"""

import math
import sys

import example_cli
import torch
import triton
import triton.language as tl


@triton.jit
def attention_fwd_kernel(
    Q,
    K,
    V,
    Out,
    sm_scale,
    stride_qz,
    stride_qh,
    stride_qm,
    stride_qk,
    stride_kz,
    stride_kh,
    stride_kn,
    stride_kk,
    stride_vz,
    stride_vh,
    stride_vn,
    stride_vk,
    stride_oz,
    stride_oh,
    stride_om,
    stride_ok,
    H,
    N_CTX,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    CAUSAL: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_z = tl.program_id(1) // H
    off_h = tl.program_id(1) % H
    Q += off_z * stride_qz + off_h * stride_qh
    K += off_z * stride_kz + off_h * stride_kh
    V += off_z * stride_vz + off_h * stride_vh
    Out += off_z * stride_oz + off_h * stride_oh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(
        Q + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, mask=offs_m[:, None] < N_CTX, other=0.0
    )
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp(x) = exp2(x * log2(e))
    # With a causal mask, keys after the block's last query contribute nothing.
    hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX) if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(
            K + cols[None, :] * stride_kn + offs_d[:, None] * stride_kk, mask=cols[None, :] < N_CTX, other=0.0
        )
        qk = tl.dot(q, k)
        keep = cols[None, :] < N_CTX
        if CAUSAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(keep, qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(
            V + cols[:, None] * stride_vn + offs_d[None, :] * stride_vk, mask=cols[:, None] < N_CTX, other=0.0
        )
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    out = acc / l_i[:, None]
    tl.store(
        Out + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok,
        out.to(Out.dtype.element_ty),
        mask=offs_m[:, None] < N_CTX,
    )


def attention(q, k, v, causal=False, num_threads=0):
    """softmax(q k^T / sqrt(d)) v of [Z, H, N, D] tensors, as torch's scaled_dot_product_attention;
    `num_threads` is spine-triton's launch option (0: all cores)."""
    Z, H, N, D = q.shape
    out = torch.empty_like(q)
    BLOCK_M, BLOCK_N = 64, 64
    attention_fwd_kernel[(triton.cdiv(N, BLOCK_M), Z * H)](
        q,
        k,
        v,
        out,
        1 / math.sqrt(D),
        *q.stride(),
        *k.stride(),
        *v.stride(),
        *out.stride(),
        H,
        N,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        HEAD_DIM=D,
        CAUSAL=causal,
        num_threads=num_threads,
    )
    return out


# Tolerances against torch's result computed in fp32: bf16 inputs round P before P V, as the
# kernel does on GPUs.
TOLERANCE = {torch.float32: 1e-5, torch.bfloat16: 2e-2}


def check(Z, H, N, D, causal, dtype) -> bool:
    q, k, v = (torch.randn(Z, H, N, D, dtype=dtype) for _ in range(3))
    out = attention(q, k, v, causal)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    diff = (out.float() - ref).abs().max().item()
    ok = diff <= TOLERANCE[dtype]
    mask = "causal" if causal else "full"
    return example_cli.report(f"attention {Z}x{H}x{N}x{D} {mask} {dtype}", ok, f"max |diff| {diff:.1e}")


# (Z, H, N, D, causal): whole blocks, then a sequence that ends inside a block.
CASES = [(1, 2, 256, 64, False), (2, 3, 200, 64, True), (1, 2, 128, 128, False)]
# Under qemu every instruction is emulated: small enough to take a second or two.
EMULATED_CASES = [(1, 1, 96, 32, True)]


def main(argv=None) -> int:
    emulated = example_cli.setup(__doc__.splitlines()[0], argv)
    torch.manual_seed(0)
    results = [
        check(*case, dtype)
        for case in (EMULATED_CASES if emulated else CASES)
        for dtype in (torch.float32, torch.bfloat16)
    ]
    return example_cli.finish(results)


if __name__ == "__main__":
    sys.exit(main())
