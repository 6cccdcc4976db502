"""Transposed tiles: loads of a tile whose columns are consecutive in memory (x @ W^T with a torch
Linear weight, K^T in attention) and tl.trans. The first are read as the transpose of a view with
consecutive rows; on x86 both are transposed in vector registers by shuffles
(spine-vectorize-transposes) instead of gathered element by element."""

import platform
import re
import sys
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import tutorial_matmul

DTYPES = {
    torch.float32: {"rtol": 1e-4, "atol": 1e-4},
    torch.bfloat16: {"rtol": 1e-2, "atol": 1e-1},
    torch.float16: {"rtol": 1e-3, "atol": 1e-2},
}


@pytest.mark.parametrize("dtype", list(DTYPES), ids=str)
@pytest.mark.parametrize("M, N, K", [(256, 192, 320), (100, 70, 50)])
def test_matmul_with_a_transposed_weight(dtype, M, N, K):
    # x @ W^T: W is [N, K] row-major, so its transpose, B, has consecutive columns. The second
    # shape leaves partial tiles on every axis (their programs take the masked version).
    torch.manual_seed(M)
    x, w = torch.randn(M, K).to(dtype), torch.randn(N, K).to(dtype)
    c = torch.empty(M, N, dtype=dtype)
    config = tutorial_matmul.MATMUL_CONFIGS[3].all_kwargs()
    tutorial_matmul.launch(tutorial_matmul.matmul_kernel, x, w.T, c, **config)
    expected = (x.double() @ w.double().T).to(dtype)
    torch.testing.assert_close(c, expected, **DTYPES[dtype])


@triton.jit
def linear_kernel(x_ptr, w_ptr, out_ptr, stride_w, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    x = tl.load(x_ptr + m[:, None] * K + k[None, :])
    w_t = tl.load(w_ptr + k[:, None] + n[None, :] * stride_w)  # [K, N], columns consecutive
    tl.store(out_ptr + m[:, None] * N + n[None, :], tl.dot(x, w_t))


def test_transposed_tile_loads_are_shuffled_not_gathered():
    x, w = torch.randn(16, 32), torch.randn(64, 40)
    out = torch.empty(16, 64)
    compiled = linear_kernel[(1,)](x, w, out, w.stride(0), M=16, K=32, N=64)
    torch.testing.assert_close(out, x @ w[:, :32].T, rtol=1e-4, atol=1e-4)
    if platform.machine() == "x86_64":
        # The version taken when the offsets provably do not wrap transposes W's 64 x 32 block
        # in registers: blocks of L x L floats, L log2(L) two-input shuffles each (8 x 8: 24,
        # 16 x 16: 64); the general version, for any offsets, loads element by element.
        shuffles = re.findall(r"shufflevector <(\d+) x float> %\S+, <\1 x float> %\S+", compiled.asm["llir"])
        lanes = int(shuffles[0]) if shuffles else 0
        assert lanes in (8, 16) and len(shuffles) >= lanes * lanes.bit_length() - lanes, shuffles


@triton.jit
def trans_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    x = tl.load(x_ptr + m[:, None] * N + n[None, :])
    tl.store(out_ptr + n[:, None] * M + m[None, :], tl.trans(x))


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int8, torch.int16, torch.int32], ids=str
)
@pytest.mark.parametrize("M, N", [(64, 32), (16, 16), (8, 4), (2, 64)])
def test_trans(dtype, M, N):
    x = (torch.arange(M * N) % 127).to(dtype).reshape(M, N)
    out = torch.empty(N, M, dtype=dtype)
    trans_kernel[(1,)](x, out, M=M, N=N)
    assert torch.equal(out, x.T)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_half_transposes_shuffle_bits(dtype):
    """A 16-bit float tile is transposed by shuffles of i16 lanes (spine-half-floats-as-bits): x86
    without AVX512-FP16/BF16 split each shuffle of bf16 lanes into one scalar move per lane (4000
    moves per 64 x 64 tile in bf16 attention). Transposing is exact."""
    x = torch.randn(64, 64).to(dtype)
    out = torch.empty(64, 64, dtype=dtype)
    compiled = trans_kernel[(1,)](x, out, M=64, N=64)
    assert torch.equal(out, x.T)
    if platform.machine() == "x86_64":
        llir = compiled.asm["llir"]
        assert re.search(r"shufflevector <\d+ x i16>", llir)
        assert not re.search(r"shufflevector <\d+ x (bfloat|half)>", llir)
