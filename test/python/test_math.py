"""Math functions: vector polynomial approximations (spine-approximate-math) against torch."""

import pytest
import torch
import triton
import triton.language as tl


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # Triton's math functions take fp32/fp64: narrower inputs are computed in fp32.
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    if FN == "exp":
        y = tl.exp(x)
    elif FN == "exp2":
        y = tl.exp2(x)
    elif FN == "log":
        y = tl.log(x)
    elif FN == "log2":
        y = tl.log2(x)
    elif FN == "sqrt":
        y = tl.sqrt(x)
    elif FN == "rsqrt":
        y = tl.rsqrt(x)
    elif FN == "sin":
        y = tl.sin(x)
    elif FN == "cos":
        y = tl.cos(x)
    elif FN == "sigmoid":
        y = tl.sigmoid(x)
    elif FN == "erf":
        y = tl.erf(x)
    else:
        y = tl.abs(x)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def pow_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, tl.extra.libdevice.pow(x, y), mask=mask)


def _inputs(fn, n, dtype):
    g = torch.Generator().manual_seed(0)
    if fn in ("log", "log2", "sqrt", "rsqrt"):
        x = torch.rand(n, generator=g) * 100 + 1e-3
    elif fn in ("exp", "exp2"):
        x = torch.rand(n, generator=g) * 40 - 20
    elif fn in ("sin", "cos"):
        x = torch.rand(n, generator=g) * 200 - 100
    else:
        x = torch.randn(n, generator=g) * 4
    return x.to(dtype)


REFERENCE = {
    "exp": torch.exp,
    "exp2": torch.exp2,
    "log": torch.log,
    "log2": torch.log2,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "sin": torch.sin,
    "cos": torch.cos,
    "sigmoid": torch.sigmoid,
    "erf": torch.erf,
}


@pytest.mark.parametrize("fn", sorted(REFERENCE))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_unary_math(fn, dtype):
    n = 3001
    x = _inputs(fn, n, dtype)
    out = torch.empty_like(x)
    unary_kernel[(triton.cdiv(n, 512),)](x, out, n, FN=fn, BLOCK=512)
    expected = REFERENCE[fn](x.float()).to(dtype)
    # fp32: a few ulp; fp16: one rounding of the fp32 result.
    tol = {"rtol": 1.6e-5, "atol": 1e-6} if dtype == torch.float32 else {"rtol": 1e-3, "atol": 1e-5}
    torch.testing.assert_close(out, expected, **tol)


def test_pow():
    n = 2000
    g = torch.Generator().manual_seed(1)
    x = torch.rand(n, generator=g) * 10 + 0.01
    y = torch.rand(n, generator=g) * 6 - 3
    out = torch.empty_like(x)
    pow_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    torch.testing.assert_close(out, torch.pow(x, y), rtol=1e-5, atol=1e-6)


def test_sin_large_arguments_are_accurate():
    x = (torch.rand(4096, generator=torch.Generator().manual_seed(2)) * 2 - 1) * 1e4
    out = torch.empty_like(x)
    unary_kernel[(8,)](x, out, 4096, FN="sin", BLOCK=512)
    torch.testing.assert_close(out, torch.sin(x), rtol=0, atol=1e-6)


def test_exp_is_not_a_libm_call():
    x = torch.rand(64)
    out = torch.empty_like(x)
    compiled = unary_kernel[(1,)](x, out, 64, FN="exp", BLOCK=64)
    llir = compiled.asm["llir"]
    assert "expf" not in llir and "llvm.exp" not in llir
    torch.testing.assert_close(out, torch.exp(x), rtol=1e-5, atol=1e-6)
