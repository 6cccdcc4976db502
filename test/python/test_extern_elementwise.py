"""libdevice functions (tt.extern_elementwise), tl.map_elementwise and inline assembly against torch.

Float results are compared with a float64 reference rounded to the tested dtype, within a few ulp;
integer and bit-level results exactly."""

import math

import pytest
import torch
import triton
import triton.language as tl
from spine_triton.compiler import KernelCompileError
from triton.language.extra import libdevice

BLOCK = 128
N = 1000  # not a multiple of BLOCK: the last program is masked
TOLERANCES = {torch.float32: {"rtol": 4e-6, "atol": 1e-6}, torch.float64: {"rtol": 1e-13, "atol": 1e-14}}


@triton.jit
def apply_unary(x, FN: tl.constexpr):
    if FN == "acos":
        return libdevice.acos(x)
    elif FN == "acosh":
        return libdevice.acosh(x)
    elif FN == "asin":
        return libdevice.asin(x)
    elif FN == "asinh":
        return libdevice.asinh(x)
    elif FN == "atan":
        return libdevice.atan(x)
    elif FN == "atanh":
        return libdevice.atanh(x)
    elif FN == "cbrt":
        return libdevice.cbrt(x)
    elif FN == "ceil":
        return libdevice.ceil(x)
    elif FN == "cos":
        return libdevice.cos(x)
    elif FN == "cosh":
        return libdevice.cosh(x)
    elif FN == "erf":
        return libdevice.erf(x)
    elif FN == "erfc":
        return libdevice.erfc(x)
    elif FN == "exp":
        return libdevice.exp(x)
    elif FN == "exp2":
        return libdevice.exp2(x)
    elif FN == "exp10":
        return libdevice.exp10(x)
    elif FN == "expm1":
        return libdevice.expm1(x)
    elif FN == "abs":
        return libdevice.abs(x)
    elif FN == "floor":
        return libdevice.floor(x)
    elif FN == "log":
        return libdevice.log(x)
    elif FN == "log10":
        return libdevice.log10(x)
    elif FN == "log1p":
        return libdevice.log1p(x)
    elif FN == "log2":
        return libdevice.log2(x)
    elif FN == "rint":
        return libdevice.rint(x)
    elif FN == "nearbyint":
        return libdevice.nearbyint(x)
    elif FN == "round":
        return libdevice.round(x)
    elif FN == "rsqrt":
        return libdevice.rsqrt(x)
    elif FN == "sin":
        return libdevice.sin(x)
    elif FN == "sinh":
        return libdevice.sinh(x)
    elif FN == "sqrt":
        return libdevice.sqrt(x)
    elif FN == "tan":
        return libdevice.tan(x)
    elif FN == "tanh":
        return libdevice.tanh(x)
    elif FN == "trunc":
        return libdevice.trunc(x)
    elif FN == "saturatef":
        return libdevice.saturatef(x)
    elif FN == "fast_expf":
        return libdevice.fast_expf(x)
    elif FN == "fast_logf":
        return libdevice.fast_logf(x)
    else:
        tl.static_assert(False, "unknown function")


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, apply_unary(x, FN), mask=mask)


def uniform(low, high, dtype, n=N, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(n, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype)


def quarters(dtype, n=N):
    """Multiples of 0.25 in [-8, 8): the rounding functions meet exact halves."""
    return (torch.arange(n, dtype=torch.float64) % 64 / 4 - 8).to(dtype)


def round_half_away(x):
    return torch.sign(x) * torch.floor(x.abs() + 0.5)


# name: (float64 reference, input domain as (low, high) or a function of the dtype)
UNARY = {
    "acos": (torch.acos, (-1, 1)),
    "acosh": (torch.acosh, (1, 10)),
    "asin": (torch.asin, (-1, 1)),
    "asinh": (torch.asinh, (-10, 10)),
    "atan": (torch.atan, (-10, 10)),
    "atanh": (torch.atanh, (-0.99, 0.99)),
    "cbrt": (lambda x: torch.sign(x) * x.abs() ** (1 / 3), (-10, 10)),
    "ceil": (torch.ceil, quarters),
    "cos": (torch.cos, (-10, 10)),
    "cosh": (torch.cosh, (-5, 5)),
    "erf": (torch.erf, (-3, 3)),
    "erfc": (torch.erfc, (-3, 3)),
    "exp": (torch.exp, (-10, 10)),
    "exp2": (torch.exp2, (-10, 10)),
    "exp10": (lambda x: torch.pow(10.0, x), (-5, 5)),
    "expm1": (torch.expm1, (-1, 1)),
    "abs": (torch.abs, (-10, 10)),
    "floor": (torch.floor, quarters),
    "log": (torch.log, (0.01, 100)),
    "log10": (torch.log10, (0.01, 100)),
    "log1p": (torch.log1p, (-0.9, 10)),
    "log2": (torch.log2, (0.01, 100)),
    "rint": (torch.round, quarters),  # round half to even
    "nearbyint": (torch.round, quarters),
    "round": (round_half_away, quarters),
    "rsqrt": (torch.rsqrt, (0.01, 100)),
    "sin": (torch.sin, (-10, 10)),
    "sinh": (torch.sinh, (-5, 5)),
    "sqrt": (torch.sqrt, (0, 100)),
    "tan": (torch.tan, (-1.5, 1.5)),
    "tanh": (torch.tanh, (-5, 5)),
    "trunc": (torch.trunc, quarters),
}
FLOAT32_ONLY = {
    "saturatef": (lambda x: torch.clamp(x, 0, 1), (-2, 2)),
    "fast_expf": (torch.exp, (-10, 10)),
    "fast_logf": (torch.log, (0.01, 100)),
}


def run_unary(fn, x):
    out = torch.empty_like(x)
    unary_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), FN=fn, BLOCK=BLOCK)
    return out


def reference(torch_fn, x):
    return torch_fn(x.double()).to(x.dtype)


def inputs(domain, dtype):
    return domain(dtype) if callable(domain) else uniform(*domain, dtype)


CASES = [(name, dtype, *spec) for name, spec in UNARY.items() for dtype in (torch.float32, torch.float64)]
CASES += [(name, torch.float32, *spec) for name, spec in FLOAT32_ONLY.items()]


@pytest.mark.parametrize("name, dtype, torch_fn, domain", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_unary(name, dtype, torch_fn, domain):
    x = inputs(domain, dtype)
    torch.testing.assert_close(run_unary(name, x), reference(torch_fn, x), **TOLERANCES[dtype])


@pytest.mark.parametrize(
    "name, torch_fn",
    [
        # fp32 expm1/log1p are polynomial approximations (spine-approximate-math) that keep their
        # precision near 0, unlike exp(x) - 1 / log(1 + x).
        pytest.param("expm1", torch.expm1),
        pytest.param("log1p", torch.log1p),
    ],
)
def test_unary_near_zero(name, torch_fn):
    x = uniform(-1e-4, 1e-4, torch.float32)
    torch.testing.assert_close(run_unary(name, x), reference(torch_fn, x), rtol=4e-6, atol=0)


@triton.jit
def binary_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if FN == "pow":
        r = libdevice.pow(x, y)
    elif FN == "atan2":
        r = libdevice.atan2(x, y)
    elif FN == "copysign":
        r = libdevice.copysign(x, y)
    elif FN == "fmod":
        r = libdevice.fmod(x, y)
    elif FN == "fdim":
        r = libdevice.fdim(x, y)
    elif FN == "div_rn":
        r = libdevice.div_rn(x, y)
    else:
        r = libdevice.fma(x, y, tl.load(z_ptr + offs, mask=mask))
    tl.store(out_ptr + offs, r, mask=mask)


BINARY = {
    "pow": (lambda x, y, z: torch.pow(x, y), (0.1, 10), (-3, 3)),
    "atan2": (lambda x, y, z: torch.atan2(x, y), (-10, 10), (-10, 10)),
    "copysign": (lambda x, y, z: torch.copysign(x, y), (-10, 10), (-10, 10)),
    "fmod": (lambda x, y, z: torch.fmod(x, y), (-100, 100), (0.5, 7)),
    "fdim": (lambda x, y, z: torch.clamp(x - y, min=0), (-10, 10), (-10, 10)),
    "div_rn": (lambda x, y, z: x / y, (-10, 10), (0.5, 7)),
    "fma": (lambda x, y, z: x * y + z, (-10, 10), (-10, 10)),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_and_fma(name, dtype):
    torch_fn, x_domain, y_domain = BINARY[name]
    x, y, z = (
        uniform(*x_domain, dtype, seed=1),
        uniform(*y_domain, dtype, seed=2),
        uniform(-1, 1, dtype, seed=3),
    )
    out = torch.empty_like(x)
    binary_kernel[(triton.cdiv(N, BLOCK),)](x, y, z, out, N, FN=name, BLOCK=BLOCK)
    expected = torch_fn(x.double(), y.double(), z.double()).to(dtype)
    torch.testing.assert_close(out, expected, **TOLERANCES[dtype])


@triton.jit
def powi_kernel(x_ptr, e_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, libdevice.pow(tl.load(x_ptr + offs), tl.load(e_ptr + offs)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pow_integer_exponent(dtype):
    x = uniform(-3, 3, dtype, 64)
    e = torch.arange(64, dtype=torch.int32) % 13 - 6
    out = torch.empty_like(x)
    powi_kernel[(1,)](x, e, out, BLOCK=64)
    torch.testing.assert_close(out, torch.pow(x.double(), e.double()).to(dtype), **TOLERANCES[dtype])


@triton.jit
def classify_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, libdevice.isnan(x))
    tl.store(out_ptr + BLOCK + offs, libdevice.isinf(x))
    tl.store(out_ptr + 2 * BLOCK + offs, libdevice.signbit(x))
    if x.dtype == tl.float32:
        tl.store(out_ptr + 3 * BLOCK + offs, libdevice.finitef(x))
    else:
        tl.store(out_ptr + 3 * BLOCK + offs, libdevice.isfinited(x))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_classification(dtype):
    x = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0, 1.5, -2.0, 1e-310], dtype=dtype)
    out = torch.full((4, 8), -1, dtype=torch.int32)
    classify_kernel[(1,)](x, out, BLOCK=8)
    expected = torch.stack((x.isnan(), x.isinf(), x.signbit(), x.isfinite())).to(torch.int32)
    assert torch.equal(out, expected)


@triton.jit
def int_kernel(a_ptr, b_ptr, clz_ptr, popc_ptr, abs_ptr, mulhi_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(clz_ptr + offs, libdevice.clz(a))
    tl.store(popc_ptr + offs, libdevice.popc(a))
    tl.store(abs_ptr + offs, libdevice.abs(a))
    tl.store(mulhi_ptr + offs, libdevice.mulhi(a, b))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_integer_functions(dtype):
    bits = 32 if dtype == torch.int32 else 64
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    special = [0, 1, -1, lo + 1, hi, 12345]
    g = torch.Generator().manual_seed(bits)
    a = torch.cat(
        (torch.tensor(special, dtype=dtype), torch.randint(lo, hi, (58,), generator=g, dtype=dtype))
    )
    b = torch.randint(lo, hi, (64,), generator=g, dtype=dtype)
    clz, popc = torch.empty(64, dtype=torch.int32), torch.empty(64, dtype=torch.int32)
    absolute, mulhi = torch.empty_like(a), torch.empty_like(a)
    int_kernel[(1,)](a, b, clz, popc, absolute, mulhi, BLOCK=64)
    unsigned = [v % 2**bits for v in a.tolist()]
    assert clz.tolist() == [bits - u.bit_length() for u in unsigned]
    assert popc.tolist() == [u.bit_count() for u in unsigned]
    assert torch.equal(absolute, a.abs())
    assert mulhi.tolist() == [(x * y) >> bits for x, y in zip(a.tolist(), b.tolist())]


@triton.jit
def umulhi_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs).to(tl.uint32, bitcast=True)
    b = tl.load(b_ptr + offs).to(tl.uint32, bitcast=True)
    tl.store(out_ptr + offs, libdevice.mulhi(a, b).to(tl.int32, bitcast=True))


def test_unsigned_mulhi():
    g = torch.Generator().manual_seed(1)
    a, b = (torch.randint(-(2**31), 2**31 - 1, (64,), generator=g, dtype=torch.int32) for _ in range(2))
    out = torch.empty_like(a)
    umulhi_kernel[(1,)](a, b, out, BLOCK=64)
    expected = [((x % 2**32) * (y % 2**32)) >> 32 for x, y in zip(a.tolist(), b.tolist())]
    assert [v % 2**32 for v in out.tolist()] == expected


@triton.jit
def convert_kernel(x_ptr, out_ptr, bits_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, libdevice.float2int_rn(x))
    tl.store(out_ptr + BLOCK + offs, libdevice.float2int_rz(x))
    tl.store(out_ptr + 2 * BLOCK + offs, libdevice.float2int_rd(x))
    tl.store(out_ptr + 3 * BLOCK + offs, libdevice.float2int_ru(x))
    tl.store(bits_ptr + offs, libdevice.float_as_int(x))


def test_conversions():
    x = quarters(torch.float32, 64)
    out = torch.empty((4, 64), dtype=torch.int32)
    bits = torch.empty(64, dtype=torch.int32)
    convert_kernel[(1,)](x, out, bits, BLOCK=64)
    expected = torch.stack((x.round(), x.trunc(), x.floor(), x.ceil())).to(torch.int32)
    assert torch.equal(out, expected)
    assert torch.equal(bits, x.view(torch.int32))


@triton.jit
def double_to_float_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, libdevice.double2float_rn(tl.load(x_ptr + offs)))


def test_double_to_float_rounds_to_nearest():
    # Just above the midpoint between 1 and the next float: rounds up, not toward zero.
    v = 1 + 2**-24 + 2**-40
    x = torch.tensor([v, -v, 0.1, -0.1], dtype=torch.float64)
    out = torch.empty(4, dtype=torch.float32)
    double_to_float_kernel[(1,)](x, out, BLOCK=4)
    assert out.tolist()[:2] == [1 + 2**-23, -(1 + 2**-23)]
    assert torch.equal(out, x.float())


@triton.jit
def unsupported_kernel(x_ptr, BLOCK: tl.constexpr, FN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if FN == "j0":
        y = libdevice.j0(x.to(tl.float32))
    else:
        y = libdevice.double2float_rz(x)
    tl.store(x_ptr + offs, y)


@pytest.mark.parametrize(
    "fn, symbol, dtype", [("j0", "__nv_j0f", torch.float32), ("rz", "__nv_double2float_rz", torch.float64)]
)
def test_unsupported_libdevice_function_is_named(fn, symbol, dtype):
    # Bessel functions have no math op; a rounding mode other than nearest has no arith form.
    with pytest.raises(
        KernelCompileError, match=f"calls '{symbol}', which has no CPU implementation"
    ) as info:
        unsupported_kernel[(1,)](torch.zeros(16, dtype=dtype), BLOCK=16, FN=fn)
    assert info.value.op == "tt.extern_elementwise"
    assert info.value.line == unsupported_kernel.fn.__code__.co_firstlineno + (5 if fn == "j0" else 7)


@triton.jit
def selu_scalar(x, alpha):
    # A branch per element: the region has several blocks (early return).
    if x > 0:
        return x
    return alpha * (tl.exp(x) - 1)


@triton.jit
def relu_scalar(x):
    return tl.where(x > 0, x, 0.0)


@triton.jit
def sum_diff_pairs(x0, x1, y0, y1):
    # pack=2: two elements of each operand per call; results are listed result-major.
    return x0 + y0, x1 + y1, x0 - y0, x1 - y1


@triton.jit
def map_kernel(x_ptr, y_ptr, selu_ptr, relu_ptr, sum_ptr, diff_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(selu_ptr + offs, tl.map_elementwise(selu_scalar, x, tl.full(x.shape, 1.5, tl.float32)))
    tl.store(relu_ptr + offs, tl.map_elementwise(relu_scalar, x))
    s, d = tl.map_elementwise(sum_diff_pairs, x, y, pack=2)
    tl.store(sum_ptr + offs, s)
    tl.store(diff_ptr + offs, d)


def test_map_elementwise():
    x, y = (uniform(-3, 3, torch.float32, 64, seed=s).reshape(4, 16) for s in (1, 2))
    selu, relu, total, diff = (torch.empty_like(x) for _ in range(4))
    map_kernel[(1,)](x, y, selu, relu, total, diff, M=4, N=16)
    torch.testing.assert_close(selu, torch.where(x > 0, x, 1.5 * torch.expm1(x)), rtol=1e-5, atol=1e-6)
    assert torch.equal(relu, torch.relu(x))
    assert torch.equal(total, x + y) and torch.equal(diff, x - y)


@triton.jit
def inline_asm_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(x_ptr + offs, y.to(tl.float32))


def test_inline_asm_is_a_clear_error():
    with pytest.raises(KernelCompileError, match="inline assembly is not supported on CPU") as info:
        inline_asm_kernel[(1,)](torch.zeros(16), BLOCK=16)
    assert info.value.op == "tt.elementwise_inline_asm"
    assert info.value.line == inline_asm_kernel.fn.__code__.co_firstlineno + 4
