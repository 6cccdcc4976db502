"""Streaming (non-temporal) stores on x86-64: a loop whose loads and stores over one launch reach
`streaming_store_bytes` (default: the last-level cache, at most 32 MiB) writes whole aligned
vectors with movnt, which skips reading each line before overwriting it. The results must not
change: unaligned outputs, partial strips, persistent loops, several threads; kernels with atomics
keep plain stores."""

import dataclasses
import platform
import re

import pytest
import torch
import triton
import triton.language as tl
from spine_triton import targets

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="movnt is x86-64's")

NONTEMPORAL = "!nontemporal"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("misalign", [0, 1, 3])
@pytest.mark.parametrize("streaming_store_bytes", [0, 1])
def test_vector_add_with_and_without_streaming_stores(streaming_store_bytes, misalign, threads):
    """streaming_store_bytes=1 streams every whole aligned strip; an output that starts 1 or 3
    elements past a 32-byte boundary takes the plain stores at run time; the last program's
    partial strip stays a masked store."""
    n = (1 << 16) + 5
    x = torch.randn(n)
    y = torch.randn(n)
    out = torch.full((n + misalign,), float("nan"))[misalign:]
    compiled = add_kernel[(triton.cdiv(n, 1024),)](
        x, y, out, n, BLOCK=1024, num_threads=threads, streaming_store_bytes=streaming_store_bytes
    )
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert (NONTEMPORAL in compiled.asm["llir"]) == (streaming_store_bytes == 1)


def test_streaming_stores_are_movnt_in_the_assembly():
    x = torch.randn(4096)
    out = torch.empty(4096)
    compiled = add_kernel[(4,)](x, x, out, 4096, BLOCK=1024, streaming_store_bytes=1)
    torch.testing.assert_close(out, 2 * x, rtol=0, atol=0)
    assert "vmovntps" in compiled.asm["asm"]


def test_below_the_threshold_stores_are_plain():
    """The threshold is compared at run time with the launch's bytes (here 4 programs x 1024
    elements x 12 bytes, under 1 MiB): the streaming branch exists but is not taken, and the
    result is the same either way."""
    x = torch.randn(4096)
    out = torch.empty(4096)
    compiled = add_kernel[(4,)](x, x, out, 4096, BLOCK=1024, streaming_store_bytes=1 << 20)
    torch.testing.assert_close(out, 2 * x, rtol=0, atol=0)
    assert NONTEMPORAL in compiled.asm["llir"]


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@pytest.mark.parametrize("n_cols", [1000, 1024])
def test_persistent_softmax_streams_its_rows(n_cols):
    """The loop over rows multiplies the bytes of the row loop; rows of 1000 floats start at
    addresses that are not all 32-byte aligned."""
    x = torch.randn(67, n_cols)
    out = torch.empty_like(x)
    compiled = softmax_kernel[(4,)](out, x, 67, n_cols, BLOCK=1024, num_threads=2, streaming_store_bytes=1)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    assert NONTEMPORAL in compiled.asm["llir"]


@triton.jit
def store_and_count_kernel(out_ptr, counter_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32))
    tl.atomic_add(counter_ptr, 1)


@triton.jit(noinline=True)
def store_block(out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32))


@triton.jit
def call_then_count_kernel(out_ptr, counter_ptr, BLOCK: tl.constexpr):
    store_block(out_ptr, BLOCK)
    tl.atomic_add(counter_ptr, 1)


@pytest.mark.parametrize("kernel", [store_and_count_kernel, call_then_count_kernel])
def test_kernels_with_atomics_keep_plain_stores(kernel):
    """Another program may read what this one stored once it sees the counter; x86 orders
    streaming stores only after a fence, so such kernels never stream. Nor do the noinline
    functions they call (call_then_count_kernel: the callee has no atomic, its caller does)."""
    out = torch.empty(4096)
    counter = torch.zeros(1, dtype=torch.int32)
    compiled = kernel[(4,)](out, counter, BLOCK=1024, streaming_store_bytes=1)
    torch.testing.assert_close(out, torch.arange(4096, dtype=torch.float32), rtol=0, atol=0)
    assert counter.item() == 4
    assert NONTEMPORAL not in compiled.asm["llir"]


def test_bad_threshold_is_a_clear_error(monkeypatch):
    x = torch.randn(16)
    with pytest.raises(ValueError, match="streaming_store_bytes"):
        add_kernel[(1,)](x, x, x, 16, BLOCK=16, streaming_store_bytes=-2)
    monkeypatch.setenv("SPINE_TRITON_STREAMING_STORE_BYTES", "lots")
    with pytest.raises(ValueError, match="SPINE_TRITON_STREAMING_STORE_BYTES='lots'"):
        add_kernel[(1,)](x, x, x, 16, BLOCK=16)


def write_cache(root, index, level, kind, size):
    d = root / f"index{index}"
    d.mkdir()
    (d / "level").write_text(f"{level}\n")
    (d / "type").write_text(f"{kind}\n")
    (d / "size").write_text(f"{size}\n")


def test_last_level_cache_from_sysfs(tmp_path):
    write_cache(tmp_path, 0, 1, "Data", "32K")
    write_cache(tmp_path, 1, 1, "Instruction", "32K")
    write_cache(tmp_path, 2, 2, "Unified", "512K")
    write_cache(tmp_path, 3, 3, "Unified", "32768K")
    assert targets._last_level_cache_bytes(str(tmp_path)) == 32 << 20
    assert targets._last_level_cache_bytes(str(tmp_path / "missing")) == 0


def test_default_threshold_by_target():
    """The default is the last-level cache's size, at most STREAMING_LLC_CAP_BYTES (32 MiB); none
    when the size is unknown; a requested threshold as it is, beyond the cap too."""
    host = targets.host()
    assert targets.streaming_store_bytes(host) == min(host.llc_bytes, 32 << 20)
    assert targets.streaming_store_bytes(host, 123) == 123
    assert targets.streaming_store_bytes(host, 1 << 30) == 1 << 30
    for llc, expected in [(0, 0), (16 << 20, 16 << 20), (32 << 20, 32 << 20), (300 << 20, 32 << 20)]:
        assert targets.streaming_store_bytes(dataclasses.replace(host, llc_bytes=llc)) == expected
    x60 = targets.resolve("spacemit-x60")
    assert targets.streaming_store_bytes(x60, 123) == 0
    assert targets.streaming_store_bytes(x60) == 0


def test_each_strip_streams_whole_cache_lines():
    """A strip spans whole 64-byte lines (16 floats: two registers on AVX2; four registers, 64
    floats, on AVX-512), so its streaming stores fill whole lines and once-per-line prefetches need
    no test of the strip's place in its line."""
    x = torch.randn(4096)
    out = torch.empty(4096)
    compiled = add_kernel[(4,)](x, x, out, 4096, BLOCK=1024, streaming_store_bytes=1)
    torch.testing.assert_close(out, 2 * x, rtol=0, atol=0)
    streaming = [line for line in compiled.asm["llir"].splitlines() if NONTEMPORAL in line]
    widths = [int(re.search(r"store <(\d+) x float>", line).group(1)) for line in streaming]
    assert widths and all(width % 16 == 0 for width in widths), streaming
    if "+avx512f" in targets.host().features.split(","):
        assert set(widths) == {64}, streaming


@triton.jit
def two_walk_softmax_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    # torch inductor's shape: the exponentials go out through out_ptr in one walk and come back in
    # the next, which scales them in place.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)[None, :]
    x = tl.load(in_ptr + row * n + cols, mask=cols < n, other=-float("inf"))
    e = tl.exp(x - tl.max(x, 1)[:, None])
    tl.store(out_ptr + row * n + cols, e, mask=cols < n)
    total = tl.sum(e, 1)[:, None]
    again = tl.load(out_ptr + row * n + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + row * n + cols, again / total, mask=cols < n)


def test_stores_read_back_by_the_kernel_stay_plain():
    """A store through a pointer the kernel also reads through stays in the cache: streamed, the
    next walk would read it back from memory. The vector add's output, only written, streams."""
    x = torch.randn(64, 2048)
    out = torch.empty_like(x)
    compiled = two_walk_softmax_kernel[(64,)](out, x, 2048, BLOCK=2048, streaming_store_bytes=1)
    torch.testing.assert_close(out, torch.softmax(x, 1))
    assert NONTEMPORAL not in compiled.asm["llir"]
    added = add_kernel[(4,)](x, x, out, 4096, BLOCK=1024, streaming_store_bytes=1)
    assert NONTEMPORAL in added.asm["llir"]
