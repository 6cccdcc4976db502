"""An in-place ``tl.where`` on a tile (attention's masked scores) is a load, a select and a store of
the same vector. LLVM 22 folds that into a masked store, and x86 without AVX-512 has only
vmaskmovps / vpmaskmovd for one: microcode on AMD Zen 1-3, about 13 cycles each. The compiler keeps
such stores plain there (a blend and a whole store) and leaves the fold to targets whose masked
stores are instructions (AVX-512, RVV). Checked on the assembly of the same kernel for CPUs named
here, whatever the host is, and the kernel's results on the host against torch."""

import dataclasses
import functools
import re

import pytest
import torch
import triton
import triton.language as tl
from spine_triton import _C
from triton.compiler import make_backend


@triton.jit
def masked_scores_kernel(a_ptr, b_ptr, out_ptr, n_valid, BLOCK: tl.constexpr):
    # Softmax over the first n_valid columns of A @ B, as attention masks the keys past the end.
    rows = tl.arange(0, BLOCK)
    tile = rows[:, None] * BLOCK + rows[None, :]
    scores = tl.dot(tl.load(a_ptr + tile), tl.load(b_ptr + tile))
    scores = tl.where(rows[None, :] < n_valid, scores, -1.0e6)
    p = tl.exp(scores - tl.max(scores, 1)[:, None])
    tl.store(out_ptr + tile, p / tl.sum(p, 1)[:, None])


BLOCK = 64


def reference(a, b, n_valid):
    scores = a @ b
    scores[:, n_valid:] = -1.0e6
    return torch.softmax(scores, dim=1)


@pytest.mark.parametrize("n_valid", [BLOCK, 40, 1, 0])
def test_masked_scores_match_torch(n_valid):
    a, b = torch.randn(BLOCK, BLOCK), torch.randn(BLOCK, BLOCK)
    out = torch.empty(BLOCK, BLOCK)
    masked_scores_kernel[(1,)](a, b, out, n_valid, BLOCK=BLOCK)
    torch.testing.assert_close(out, reference(a, b, n_valid), rtol=1e-5, atol=1e-6)


# The features the kernel's vector code is generated for: the llmlir stage already depends on them
# (vector width, AVX-512's vscalefps in exp), so IR made for an AVX-512 host cannot be compiled for a
# CPU without it.
AVX2 = "+avx,+avx2,+fma,+f16c,+bmi,+bmi2,+popcnt,+sse4.2"
AVX512 = AVX2 + ",+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx512cd"


@functools.cache
def kernel_llir(cpu, features):
    """The kernel's LLVM IR before LLVM's optimizations (its llmlir stage, translated), with the
    vector code generated for `cpu` with `features` whatever the host is."""
    a = torch.empty(BLOCK, BLOCK)
    compiled = masked_scores_kernel.warmup(a, a, a, 7, BLOCK=BLOCK, grid=(1,))
    backend = make_backend(compiled.metadata.target)
    backend.cpu_target = dataclasses.replace(backend.cpu_target, cpu=cpu, features=features)
    metadata = {"name": compiled.metadata.name}
    llmlir = backend.make_llmlir(compiled.asm["linalg"], metadata, backend.parse_options({}))
    return _C.translate_to_llvmir(llmlir)


def assembly(cpu, features):
    llir = kernel_llir(cpu, features)
    optimized = _C.optimize_llvmir(llir, "x86_64-unknown-linux-gnu", cpu, features)
    asm = _C.compile_llvmir(optimized, "x86_64-unknown-linux-gnu", cpu, features, emit="asm", optimize=False)
    return optimized, asm.decode()


# AT&T order: the masked store of vmaskmovps/vpmaskmov names the memory operand last.
MASKED_STORE = re.compile(r"\tv(p?maskmov\w+)\s+%[xy]mm\d+,\s*%[xy]mm\d+,\s*-?\w*\(")
FROZEN_VECTOR = re.compile(r"= freeze <\d+ x float>")


@pytest.mark.parametrize("cpu", ["znver3", "haswell"])
def test_in_place_where_stays_a_blend_without_avx512(cpu):
    optimized, asm = assembly(cpu, AVX2)
    assert FROZEN_VECTOR.search(optimized)
    assert not MASKED_STORE.search(asm), MASKED_STORE.search(asm).group(0)
    assert "vblendvps" in asm


def test_avx512_keeps_the_masked_store():
    # With AVX-512 a masked store is one vmovups under a k mask: the fold pays there.
    optimized, asm = assembly("znver4", AVX512)
    assert not FROZEN_VECTOR.search(optimized)
    assert re.search(r"\tvmov\w+\s+%[yz]mm\d+, [^\n]*\{%k\d\}", asm)
