"""The launch's tile cache (cpp/runtime/TileCache.h, docs/kernel-abi.md "Tile cache"): tl.dot tiles
copied once per launch for every program that multiplies them, against torch, with the cache on and
off (``SPINE_TRITON_TILE_CACHE=0``), across launches that reuse addresses, from threads launching at
once, and where a program reads what it wrote."""

import sys
import threading
from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import tutorial_matmul

TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}


@pytest.fixture(params=["on", "off"])
def cache_setting(request, monkeypatch):
    if request.param == "off":
        monkeypatch.setenv("SPINE_TRITON_TILE_CACHE", "0")
    else:
        monkeypatch.delenv("SPINE_TRITON_TILE_CACHE", raising=False)
    return request.param


def matmul(a, b, blocks=(32, 32, 16), num_threads=2):
    c = torch.empty(a.shape[0], b.shape[1], dtype=a.dtype)
    bm, bn, bk = blocks
    tutorial_matmul.launch(
        tutorial_matmul.matmul_kernel,
        a,
        b,
        c,
        BLOCK_SIZE_M=bm,
        BLOCK_SIZE_N=bn,
        BLOCK_SIZE_K=bk,
        GROUP_SIZE_M=2,
        num_threads=num_threads,
    )
    return c


def test_the_tutorial_matmul_takes_the_cache_and_a_vector_add_does_not():
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    c = torch.empty(64, 64)
    kernel = tutorial_matmul.matmul_kernel[(4,)](
        a,
        b,
        c,
        64,
        64,
        64,
        *a.stride(),
        *b.stride(),
        *c.stride(),
        BLOCK_SIZE_M=32,
        BLOCK_SIZE_N=32,
        BLOCK_SIZE_K=16,
        GROUP_SIZE_M=2,
    )
    assert kernel.metadata.tile_cache
    torch.testing.assert_close(c, a @ b, **TOLERANCE)

    @triton.jit
    def add(x, y, out, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out + offs, tl.load(x + offs) + tl.load(y + offs))

    x = torch.randn(256)
    out = torch.empty_like(x)
    kernel = add[(2,)](x, x, out, BLOCK=128)
    assert not kernel.metadata.tile_cache
    torch.testing.assert_close(out, x + x)


@pytest.mark.parametrize(
    "shape, blocks",
    [
        ((128, 96, 80), (32, 32, 16)),  # full tiles, programs sharing rows and columns
        ((100, 70, 50), (32, 32, 16)),  # tails on every axis: the masked version copies itself
        ((256, 256, 128), (64, 128, 32)),  # B tiles of whole cache lines, padded rows in the cache
        ((64, 300, 1024), (32, 256, 64)),  # B rows of 1 KiB: the cache's copy pads them
    ],
)
def test_matmul_matches_torch(cache_setting, shape, blocks):
    m, n, k = shape
    torch.manual_seed(m + n + k)
    a, b = torch.randn(m, k), torch.randn(k, n)
    torch.testing.assert_close(matmul(a, b, blocks), a @ b, **TOLERANCE)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_narrow_float_tiles(cache_setting, dtype):
    # Cached as loaded; the micro-kernel (AMX tiles for bf16 where the host has them) widens them.
    torch.manual_seed(5)
    a, b = torch.randn(96, 160).to(dtype), torch.randn(160, 128).to(dtype)
    expected = (a.float() @ b.float()).to(dtype)
    torch.testing.assert_close(matmul(a, b, (32, 64, 32)), expected, rtol=1e-2, atol=1e-2)


def test_a_launch_never_reads_tiles_of_an_earlier_one(cache_setting):
    # Same tensors, new contents: every launch copies its tiles afresh.
    a, b = torch.randn(96, 64), torch.randn(64, 96)
    for step in range(3):
        torch.testing.assert_close(matmul(a, b), a @ b, **TOLERANCE)
        a.mul_(-0.5).add_(step)
        b.add_(1.0)


def test_transposed_and_strided_operands(cache_setting):
    base = torch.randn(160, 160)
    a = base[:96:, :64]  # rows 160 elements apart
    b = base.t()[:64, :80]  # a column-major B
    torch.testing.assert_close(matmul(a, b), a @ b, **TOLERANCE)


def test_threads_launching_at_once_each_get_their_own_result():
    # One launch holds the cache; the other copies its own tiles. Both are right.
    torch.manual_seed(0)
    pairs = [(torch.randn(128, 64), torch.randn(64, 128)) for _ in range(4)]
    matmul(*pairs[0])  # compiled before the threads start
    results = [None] * len(pairs)

    def run(i):
        for _ in range(3):
            results[i] = matmul(*pairs[i], num_threads=1)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(pairs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (a, b), c in zip(pairs, results):
        torch.testing.assert_close(c, a @ b, **TOLERANCE)


@triton.jit
def square_twice(x_ptr, w_ptr, N: tl.constexpr):
    # The second load reads what the first iteration stored: no cached copy may stand in for it.
    offs = tl.arange(0, N)
    x_ptrs = x_ptr + offs[:, None] * N + offs[None, :]
    w = tl.load(w_ptr + offs[:, None] * N + offs[None, :])
    for _ in range(2):
        x = tl.load(x_ptrs)
        tl.store(x_ptrs, tl.dot(x, w))


def test_a_program_reads_what_it_stored(cache_setting):
    x, w = torch.randn(32, 32), torch.randn(32, 32) / 8
    expected = x @ w @ w
    kernel = square_twice[(1,)](x, w, N=32)
    torch.testing.assert_close(x, expected, **TOLERANCE)
    assert not kernel.metadata.tile_cache
