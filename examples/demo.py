"""The quick-start demo: unchanged Triton kernels on torch CPU tensors.

Each kernel is an ordinary `@triton.jit` kernel as written for GPUs. spine-triton
is picked up as Triton's backend automatically (entry point `triton.backends`);
the demo prints, per kernel, whether the result matches torch.
"""

import sys
import time

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


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
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(
            a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
            mask=(rm[:, None] < M) & (kk[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
            mask=(kk[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a, b)
    c = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def report(name, ok, seconds):
    print(f"{name:<28} {'matches torch' if ok else 'MISMATCH'}   ({seconds * 1e3:.1f} ms incl. compile)")
    return ok


def main():
    torch.manual_seed(0)
    results = []

    for n in (1, 1000, 98432, 2**20 + 3):
        x, y = torch.rand(n), torch.rand(n)
        out = torch.empty_like(x)
        t = time.perf_counter()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
        results.append(report(f"vector add n={n}", torch.equal(out, x + y), time.perf_counter() - t))

    x = torch.randn(100, 781)
    out = torch.empty_like(x)
    t = time.perf_counter()
    softmax_kernel[(x.shape[0],)](out, x, x.stride(0), out.stride(0), x.shape[1], BLOCK_SIZE=1024)
    ok = torch.allclose(out, torch.softmax(x, dim=1), atol=1e-6, rtol=1e-5)
    results.append(report("softmax 100x781", ok, time.perf_counter() - t))

    a, b = torch.randn(129, 70), torch.randn(70, 65)
    c = torch.empty(129, 65)
    t = time.perf_counter()
    grid = (triton.cdiv(129, 32), triton.cdiv(65, 32))
    matmul_kernel[grid](
        a,
        b,
        c,
        129,
        65,
        70,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        c.stride(0),
        c.stride(1),
        BLOCK_M=32,
        BLOCK_N=32,
        BLOCK_K=16,
    )
    ok = torch.allclose(c, a @ b, atol=1e-4, rtol=1e-4)
    results.append(report("matmul 129x70 @ 70x65", ok, time.perf_counter() - t))

    print(f"{sum(results)}/{len(results)} kernels match torch")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
