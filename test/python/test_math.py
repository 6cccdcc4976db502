"""Math functions: vector polynomial approximations (spine-approximate-math) against torch."""

import re

import pytest
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # Triton's math functions take fp32/fp64: narrower inputs are computed in fp32.
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    if x.dtype != tl.float64:
        x = x.to(tl.float32)
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
    elif FN == "tan":
        y = libdevice.tan(x)
    elif FN == "sigmoid":
        y = tl.sigmoid(x)
    elif FN == "erf":
        y = tl.erf(x)
    elif FN == "tanh":
        y = libdevice.tanh(x)
    elif FN == "expm1":
        y = libdevice.expm1(x)
    elif FN == "log1p":
        y = libdevice.log1p(x)
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
    elif fn in ("sin", "cos", "tan"):
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
    "tan": torch.tan,
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


def _host_scales_by_vscalefps():
    from spine_triton import targets

    return targets.has_avx512_scalef(targets.host())


def test_exp_and_exp2_scale_with_vscalefps_on_avx512():
    # On x86 with AVX512F/VL, 2^n is applied by one vscalefps per vector: no exponent-field
    # arithmetic (vpslld) and no capped n (the degree-6 polynomial needs r within ln2/2).
    x = torch.rand(4096) * 20 - 10
    for fn in ("exp", "exp2"):
        out = torch.empty_like(x)
        compiled = unary_kernel[(1,)](x, out, 4096, FN=fn, BLOCK=4096)
        asm = compiled.asm["asm"]
        if _host_scales_by_vscalefps():
            assert re.search(r"vscalefps\s+%zmm", asm), fn
            assert "vpslld" not in asm, fn
        else:
            assert "vscalefps" not in asm, fn
        torch.testing.assert_close(out, getattr(torch, fn)(x), rtol=1e-6, atol=0)


def _ulps(actual, expected):
    """Distance in units in the last place of fp32 or fp64 tensors (0 for equal values, NaN with NaN,
    and +-0)."""
    bits, magnitude = (
        (torch.int64, 0x7FFFFFFFFFFFFFFF) if actual.dtype == torch.float64 else (torch.int32, 0x7FFFFFFF)
    )
    a = actual.view(bits).long()
    e = expected.view(bits).long()
    # Map the sign-magnitude bit patterns onto one ordered integer line.
    a = torch.where(a < 0, -(a & magnitude), a)
    e = torch.where(e < 0, -(e & magnitude), e)
    both_nan = actual.isnan() & expected.isnan()
    return torch.where(both_nan, 0, (a - e).abs())


def _trig_arguments():
    """Random arguments over every binade up to 3e38, the fp32 values nearest to multiples of pi/2 (where
    the result is tiny and the argument reduction must not lose it), and the special values."""
    g = torch.Generator().manual_seed(3)
    spread = torch.exp2(torch.rand(20000, generator=g, dtype=torch.float64) * 254 - 126)
    signs = torch.where(torch.rand(20000, generator=g) < 0.5, -1.0, 1.0).double()
    k = torch.cat([torch.arange(1, 2000), torch.randint(1, 2**40, (2000,), generator=g)]).double()
    near_multiples = (k * torch.pi / 2).float().double()
    special = torch.tensor([0.0, -0.0, 1e-45, -1e-45, 2**36, 2**36 * 1.0000001, 3.4e38, -3.4e38])
    special = torch.cat(
        [special.double(), torch.tensor([float("inf"), float("-inf"), float("nan")]).double()]
    )
    return torch.cat([(spread * signs), near_multiples, -near_multiples, special]).float()


def _floats_from(top, count, first=0):
    """The `count` fp32 values `first`, `first + 1`, ... steps below `top`, one ulp apart."""
    bits = torch.tensor(top, dtype=torch.float32).view(torch.int32)
    return (bits - torch.arange(first, first + count, dtype=torch.int32)).view(torch.float32)


def _against_fp64(fn, x):
    """spine-triton's fp32 `fn` of x, and the fp64 function of x rounded to fp32."""
    out = torch.empty_like(x)
    unary_kernel[(triton.cdiv(x.numel(), 4096),)](x, out, x.numel(), FN=fn, BLOCK=4096)
    return out, getattr(torch, fn)(x.double()).float()


def test_exp_within_one_ulp_where_normal():
    # Every result from the smallest normal to the largest finite value: a dense grid (one point per
    # ~2e-5), the last thousand floats below the overflow threshold, and random points.
    g = torch.Generator().manual_seed(4)
    x = torch.cat(
        [
            torch.linspace(-87.33, 88.72, 8_000_000),
            _floats_from(88.72283, 1000),
            torch.rand(100_000, generator=g) * 176 - 87.33,
        ]
    )
    out, expected = _against_fp64("exp", x)
    assert expected.isfinite().all() and (expected >= 2**-126).all()
    ulps = _ulps(out, expected)
    assert ulps.max().item() <= 1, (x[ulps.argmax()].item(), out[ulps.argmax()].item())


def test_exp_within_one_ulp_including_subnormal_results_with_vscalefps():
    # Where vscalefps applies 2^n (x86 AVX-512), subnormal results are rounded, not flushed: every
    # result of [-104, -87.33] (a grid, one point per ~4e-6, and the floats around 2^-126), and the
    # first results that round to zero. Elsewhere they may flush (test_exp_special_values).
    x = torch.cat(
        [
            torch.linspace(-103.97, -87.33, 4_000_000),
            _floats_from(-87.33654, 1000, first=-500),
            torch.tensor([-103.98, -104.0, -110.0]),
        ]
    )
    out, expected = _against_fp64("exp", x)
    ulps = _ulps(out, expected)
    if _host_scales_by_vscalefps():
        assert ulps.max().item() <= 1, (x[ulps.argmax()].item(), out[ulps.argmax()].item())
        assert (out[-3:] == 0).all()
    else:
        assert ((out - expected).abs() < 2**-126).all()


@triton.jit
def shifted_exp_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.exp(x - tl.max(x, 0)))


def test_softmax_exponentials_within_one_ulp():
    # exp(x - max(x)) has arguments <= 0: spine-bound-shifted-exponents bounds them by a clamp, and exp
    # drops its exponent cap for a shorter polynomial (spine-approximate-math). Each row starts with
    # 0, its maximum, so x - max is x: a dense grid of [-87.33, 0] (every normal result), the
    # floats just below 0, and tiny results, -inf and NaN.
    block = 4096
    tiny = torch.tensor([-87.5, -87.8, -100.0, -1e30, -float("inf"), float("nan")])
    values = torch.cat([torch.linspace(-87.33, 0, 2_000_000), -_floats_from(0.0, 1000, first=-1000), tiny])
    rows = -(-values.numel() // (block - 1))
    padded = torch.cat([values, torch.full((rows * (block - 1) - values.numel(),), -1.0)])
    x = torch.cat([torch.zeros(rows, 1), padded.reshape(rows, block - 1)], dim=1)
    out = torch.empty_like(x)
    compiled = shifted_exp_kernel[(rows,)](x, out, BLOCK=block)
    assert "arith.cmpf ule" in compiled.asm["linalg"]  # the clamp
    out, x = out[:, 1:].reshape(-1)[: values.numel()], values
    expected = torch.exp(x.double()).float()
    normal = expected >= 2**-126
    ulps = _ulps(out[normal], expected[normal])
    assert ulps.max().item() <= 1, (x[normal][ulps.argmax()].item(), out[normal][ulps.argmax()].item())
    small = ~normal & ~x.isnan()
    assert ((out[small] - expected[small]).abs() < 2**-126).all() and (out[small] >= 0).all()
    assert out[-2].item() == 0.0 and out[-1].isnan()


def test_exp2_within_one_ulp_including_subnormal_results():
    # Every result of fp32 exp2: a dense grid over (-150, 128) (one point per ~3.5e-5, so the
    # subnormal results of [-150, -126] too), the last floats below 128, the integers (exact).
    g = torch.Generator().manual_seed(5)
    integers = torch.arange(-149, 128, dtype=torch.float32)
    x = torch.cat(
        [
            torch.linspace(-149.99, 127.99, 8_000_000),
            _floats_from(128.0, 1000, first=1),
            integers,
            torch.rand(100_000, generator=g) * 200 - 100,
        ]
    )
    n = x.numel()
    out, expected = _against_fp64("exp2", x)
    ulps = _ulps(out, expected)
    assert ulps.max().item() <= 1, (x[ulps.argmax()].item(), out[ulps.argmax()].item())
    tail = slice(n - integers.numel() - 100_000, n - 100_000)
    assert torch.equal(out[tail], expected[tail])  # 2^k exactly


def test_exp2_special_values():
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([0.0, -0.0, 1e-30, 128.0, 200.0, inf, -150.0, -151.0, -1000.0, -inf, nan])
    out = torch.empty_like(x)
    unary_kernel[(1,)](x, out, x.numel(), FN="exp2", BLOCK=16)
    expected = torch.exp2(x.double()).float()  # 1, 1, 1, inf, inf, inf, 0 (2^-150 rounds to even), 0...
    torch.testing.assert_close(out, expected, rtol=0, atol=0, equal_nan=True)


def test_exp_special_values():
    inf, nan = float("inf"), float("nan")
    x = torch.tensor(
        [
            0.0,
            -0.0,
            1e-30,
            -1e-30,
            1.0,
            -1.0,
            88.7229,
            88.8,
            100.0,
            3e38,
            inf,
            -88.0,
            -103.0,
            -200.0,
            -3e38,
            -inf,
            nan,
        ]
    )
    out = torch.empty_like(x)
    unary_kernel[(1,)](x, out, x.numel(), FN="exp", BLOCK=32)
    expected = torch.exp(x.double()).float()
    exact = slice(0, 11)  # 1, e, overflow to infinity: the rounded result
    torch.testing.assert_close(out[exact], expected[exact], rtol=0, atol=0)
    # Subnormal results below 2^-126.5 (x < -87.68) may flush to zero; exp(-inf) is exactly zero.
    tiny = slice(11, 16)
    assert ((out[tiny] - expected[tiny]).abs() < 2**-126).all() and (out[tiny] >= 0).all(), out[tiny]
    assert out[15].item() == 0.0 and out[16].isnan()


@pytest.mark.parametrize("fn", ["sin", "cos", "tan"])
def test_sin_cos_tan_within_one_ulp_everywhere(fn):
    # Reference: the fp64 function of the fp32 argument, rounded to fp32 (at most half an ulp off).
    x = _trig_arguments()
    n = x.numel()
    out = torch.empty_like(x)
    unary_kernel[(triton.cdiv(n, 512),)](x, out, n, FN=fn, BLOCK=512)
    expected = getattr(torch, fn)(x.double()).float()
    ulps = _ulps(out, expected)
    assert ulps.max().item() <= 1, (x[ulps.argmax()].item(), out[ulps.argmax()].item())
    zeros = (expected == 0) & (out == 0)  # _ulps does not tell -0 from +0
    assert torch.equal(out[zeros].signbit(), expected[zeros].signbit())


def test_pow_within_one_ulp():
    g = torch.Generator().manual_seed(4)
    n = 20000
    x = torch.exp2(torch.rand(n, generator=g, dtype=torch.float64) * 60 - 30).float()
    y = ((torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1) * 8).float()
    # Integral exponents of negative bases, exponents near 1 of bases near 1, results near overflow.
    x = torch.cat([x, -x[:2000], 1 + torch.randn(1000, generator=g) * 1e-3, torch.full((100,), 2.0)])
    y = torch.cat(
        [
            y,
            torch.randint(-20, 20, (2000,), generator=g).float(),
            torch.randn(1000, generator=g) * 1e3,
            torch.linspace(120, 130, 100),
        ]
    )
    out = torch.empty_like(x)
    pow_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    expected = torch.pow(x.double(), y.double()).float()
    ulps = _ulps(out, expected)
    assert ulps.max().item() <= 1, (
        x[ulps.argmax()].item(),
        y[ulps.argmax()].item(),
        out[ulps.argmax()].item(),
    )


def test_pow_special_cases_follow_c():
    # Every pair of these: zeros of both signs, +-1, infinities, NaN, odd/even/non-integer exponents,
    # subnormal and huge bases, huge exponents. torch.pow on fp32 follows C's pow.
    values = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, -2.5, 1e-40, -1e-40, 3e38, -3e38]
    values += [float("inf"), float("-inf"), float("nan"), 2.0**24 + 2, 2.0**25, 1e10, -1e10]
    v = torch.tensor(values)
    x = v.repeat_interleave(len(values))
    y = v.repeat(len(values))
    out = torch.empty_like(x)
    pow_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    expected = torch.pow(x, y)
    torch.testing.assert_close(out, expected, rtol=1.2e-7, atol=0, equal_nan=True)
    # Signs of zero and infinite results too (a NaN's sign means nothing).
    numbers = ~expected.isnan()
    assert torch.equal(out[numbers].signbit(), expected[numbers].signbit())


def _f64_pow_arguments():
    g = torch.Generator().manual_seed(7)
    n = 20000
    # Bases in every binade (subnormals too) with exponents that take y log2|x| across the whole
    # range of results, to overflow and to subnormal results and beyond.
    spread = torch.exp2(torch.rand(n, generator=g, dtype=torch.float64) * 2100 - 1075)
    spread_y = (torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1) * 1100
    spread_y = spread_y / torch.log2(spread).abs().clamp(min=1e-3)
    moderate = torch.rand(n, generator=g, dtype=torch.float64) * 10
    moderate_y = torch.randn(n, generator=g, dtype=torch.float64) * 30
    # Bases next to 1 with huge exponents: log|x| tiny, y log|x| large (where a log with only f64
    # precision is thousands of ulp off).
    near_one = 1 + (torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1) * 1e-3
    near_one_y = torch.randn(n, generator=g, dtype=torch.float64) * 1e5
    # Negative bases with integral exponents (odd and even).
    negative = -torch.rand(2000, generator=g, dtype=torch.float64) * 10
    integral = torch.randint(-60, 60, (2000,), generator=g).double()
    x = torch.cat([spread, moderate, near_one, negative])
    y = torch.cat([spread_y, moderate_y, near_one_y, integral])
    return x, y


def test_f64_pow_within_two_ulp():
    x, y = _f64_pow_arguments()
    out = torch.empty_like(x)
    pow_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    expected = torch.pow(x, y)
    ulps = _ulps(out, expected)
    worst = ulps.argmax()
    assert ulps.max().item() <= 2, (
        x[worst].item(),
        y[worst].item(),
        out[worst].item(),
        expected[worst].item(),
    )


def test_f64_pow_special_cases_follow_c():
    values = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, -2.5, 5e-324, -5e-324, 1e-310]
    values += [1.7e308, -1.7e308, float("inf"), float("-inf"), float("nan"), 2.0**53 + 2, 2.0**54, -1e20]
    v = torch.tensor(values, dtype=torch.float64)
    x = v.repeat_interleave(len(values))
    y = v.repeat(len(values))
    out = torch.empty_like(x)
    pow_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    expected = torch.pow(x, y)
    assert torch.equal(out.isnan(), expected.isnan())
    numbers = ~expected.isnan()
    assert _ulps(out[numbers], expected[numbers]).max().item() <= 2
    assert torch.equal(out[numbers].signbit(), expected[numbers].signbit())


def test_f64_pow_is_vector_code():
    x = torch.rand(256, dtype=torch.float64) * 10
    out = torch.empty_like(x)
    compiled = pow_kernel[(1,)](x, x, out, 256, BLOCK=256)
    llir = compiled.asm["llir"]
    assert "@pow(" not in llir and "@llvm.pow." not in llir
    assert re.search(r"vfmadd\d+pd\s[^\n]*%[yz]mm", compiled.asm["asm"])
    torch.testing.assert_close(out, torch.pow(x, x), rtol=4.5e-16, atol=0)


@pytest.mark.parametrize("fn", ["sin", "cos", "tan", "pow"])
def test_sin_cos_tan_pow_are_vector_code(fn):
    # No fp32 libm call per lane: the only libm function left is the fp64 sin/cos/tan that arguments
    # beyond 2^36, infinities and NaN branch to.
    x = torch.rand(256) * 10
    out = torch.empty_like(x)
    if fn == "pow":
        compiled = pow_kernel[(1,)](x, x, out, 256, BLOCK=256)
    else:
        compiled = unary_kernel[(1,)](x, out, 256, FN=fn, BLOCK=256)
    llir = compiled.asm["llir"]
    assert f"@{fn}f(" not in llir
    assert all(name.endswith("f64") for name in re.findall(rf"@llvm\.{fn}\.(\w+)\(", llir))
    if fn == "pow":
        assert "@llvm.pow." not in llir
    else:
        assert re.search(rf"@llvm\.{fn}\.v\d+f64\(", llir)  # the branch for huge arguments
    assert re.search(r"vfmadd\d+pd\s[^\n]*%[yz]mm", compiled.asm["asm"])  # the fp64 polynomials
    torch.testing.assert_close(out, torch.pow(x, x) if fn == "pow" else getattr(torch, fn)(x))


def _f64_arguments(fn):
    g = torch.Generator().manual_seed(5)
    specials = [0.0, -0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan")]
    if fn in ("log", "log2"):
        # Every binade, subnormals included, values next to 1, exact powers of two, negatives.
        x = torch.exp2(torch.rand(20000, generator=g, dtype=torch.float64) * 2098 - 1074)
        near_one = 1 + (torch.rand(2000, generator=g, dtype=torch.float64) * 2 - 1) * 1e-6
        powers = torch.exp2(torch.arange(-1074, 1024, dtype=torch.float64))
        x = torch.cat([x, near_one, powers, -x[:10], torch.tensor(specials + [5e-324], dtype=torch.float64)])
    elif fn in ("sin", "cos", "tan"):
        # Every binade up to 1e300 (beyond 2^19, libm's branch), and the doubles nearest to multiples of
        # pi/2, where the reduction must not lose the small result.
        x = torch.exp2(torch.rand(20000, generator=g, dtype=torch.float64) * 1100 - 100)
        k = torch.cat([torch.arange(1, 3000), torch.randint(1, 2**19, (3000,), generator=g)]).double()
        x = torch.cat(
            [
                x,
                -x[:5000],
                k * torch.pi / 2,
                torch.tensor(specials + [2.0**19, 2.0**19 + 1], dtype=torch.float64),
            ]
        )
    elif fn == "erf":
        # Each piece and its bounds (0.84375, 1.75, 3.25, 6: where 1 - erfc rounds to 1), tiny and
        # subnormal arguments (erf(x) = 2x / sqrt(pi)), every binade up to 1e300.
        x = torch.randn(20000, generator=g, dtype=torch.float64) * 3
        spread = torch.exp2(torch.rand(5000, generator=g, dtype=torch.float64) * 2070 - 1074)
        bounds = torch.tensor([0.84375, 1.75, 3.25, 5.8, 5.9, 6.0], dtype=torch.float64)
        near = torch.cat([bounds.nextafter(torch.zeros(6, dtype=torch.float64)), bounds])
        x = torch.cat([x, spread, near, torch.tensor(specials + [5e-324, 1e-310], dtype=torch.float64)])
        x = torch.cat([x, -x])
    elif fn == "sigmoid":
        x = torch.randn(20000, generator=g, dtype=torch.float64) * 20
        x = torch.cat([x, torch.tensor(specials + [800.0, -800.0], dtype=torch.float64)])
    elif fn in ("tanh", "expm1", "log1p"):
        # Tiny arguments (where relative accuracy is the point of these functions) up to every binade of
        # both signs, the bounds of each branch (ln2/2, 20, 40, overflow), and log1p's pole at -1.
        x = torch.cat(
            [
                torch.randn(5000, generator=g, dtype=torch.float64) * scale
                for scale in (1e-9, 1e-3, 0.3, 3, 30)
            ]
        )
        spread = torch.exp2(torch.rand(10000, generator=g, dtype=torch.float64) * 2000 - 1000)
        bounds = [0.3465, 0.3467, -0.3466, 20.0, 20.0001, 40.0, 40.0001, -40.0, 709.7, 709.78, 710.0]
        bounds += [5e-324, -5e-324, 1e-310, -1e-310, 2.2e-308]
        x = torch.cat([x, spread, -spread, torch.tensor(specials + bounds, dtype=torch.float64)])
        if fn == "log1p":
            above_pole = -1 + torch.exp2(-torch.rand(2000, generator=g, dtype=torch.float64) * 53)
            x = torch.cat([x, above_pole, torch.rand(5000, generator=g, dtype=torch.float64) * 2 - 1])
    else:
        # Overflow and underflow (subnormal results) ends, integers for exp2.
        lo, hi = (-1080, 1030) if fn == "exp2" else (-750, 712)
        x = torch.rand(20000, generator=g, dtype=torch.float64) * (hi - lo) + lo
        small = (torch.rand(2000, generator=g, dtype=torch.float64) * 2 - 1) * 1e-6
        x = torch.cat(
            [x, small, torch.arange(lo, hi, dtype=torch.float64), torch.tensor(specials, dtype=torch.float64)]
        )
    return x


@pytest.mark.parametrize(
    "fn", ["exp", "exp2", "log", "log2", "sigmoid", "sin", "cos", "tan", "tanh", "expm1", "log1p", "erf"]
)
def test_f64_math_within_two_ulp(fn):
    x = _f64_arguments(fn)
    out = torch.empty_like(x)
    unary_kernel[(triton.cdiv(x.numel(), 512),)](x, out, x.numel(), FN=fn, BLOCK=512)
    expected = getattr(torch, fn)(x)
    ulps = _ulps(out, expected)
    assert ulps.max().item() <= 2, (
        x[ulps.argmax()].item(),
        out[ulps.argmax()].item(),
        expected[ulps.argmax()].item(),
    )
    zeros = (expected == 0) & (out == 0)  # _ulps does not tell -0 from +0
    assert torch.equal(out[zeros].signbit(), expected[zeros].signbit())
    if fn in ("tanh", "expm1", "log1p"):  # x itself, correctly rounded, for tiny x (subnormals too)
        tiny = x.abs() < 2**-60
        assert torch.equal(out[tiny], x[tiny])
    if fn == "exp2":  # exact at integers, as 2^n is
        integers = x == x.round()
        assert torch.equal(out[integers], expected[integers])
    if fn == "log2":  # exact at powers of two
        powers = (x > 0) & (x.frexp().mantissa == 0.5)
        assert torch.equal(out[powers], expected[powers])


@pytest.mark.parametrize(
    "fn", ["exp", "exp2", "log", "log2", "sin", "cos", "tan", "tanh", "expm1", "log1p", "erf"]
)
def test_f64_math_is_vector_code(fn):
    x = torch.rand(256, dtype=torch.float64) + 0.5
    out = torch.empty_like(x)
    compiled = unary_kernel[(1,)](x, out, 256, FN=fn, BLOCK=256)
    llir = compiled.asm["llir"]
    if fn in ("sin", "cos", "tan"):  # libm only on the branch for arguments beyond 2^19, inf and NaN
        assert re.search(r"br i1 %\S+, label %\S+, label %\S+", llir) and f"@{fn}(" not in llir
        llir = re.sub(rf"@llvm\.{fn}\.v\d+f64", "", llir)
    assert f"@llvm.{fn}." not in llir and f"@{fn}(" not in llir
    assert re.search(r"vfmadd\d+pd\s[^\n]*%[yz]mm", compiled.asm["asm"])
    torch.testing.assert_close(out, getattr(torch, fn)(x))
