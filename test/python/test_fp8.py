"""fp8 values and float conversions with explicit rounding, bit-exact.

tl.float8e4nv is torch.float8_e4m3fn and tl.float8e5 is torch.float8_e5m2 (triton's own mapping of
torch dtypes). Conversions to fp8 from f16, bf16 and f32 are compared with torch's conversions bit
for bit, over every f16 and bf16 value and over f32 values at and around every fp8 rounding
boundary; the semantics are torch's: round to nearest even, f8E4M3FN saturates (overflow and +-inf
become +-448, it has no infinity), f8E5M2 overflows to +-inf, NaN becomes 0x7f with the input's
sign. Conversions from f64, toward zero (`fp_downcast_rounding="rtz"`), and between the standard
formats are compared with an exact rational reference instead: torch rounds f64 -> fp8 twice
(through f32), and has no rounding toward zero. Arithmetic on fp8 values is the f32 operation
rounded back to the format, over every pair of fp8 values. AMD's FNUZ formats (tl.float8e4b8 is
torch.float8_e4m3fnuz, tl.float8e5b16 torch.float8_e5m2fnuz) go through the same tests with torch's
semantics for them: no infinity, no -0, 0x80 the one NaN, overflow and infinities to NaN.
"""

import math
import platform
import shutil
from fractions import Fraction

import pytest
import torch
import triton
import triton.language as tl

BLOCK = 1024
FP8 = [torch.float8_e4m3fn, torch.float8_e5m2]
# AMD's formats (triton's fp8e4b8 and fp8e5b16): no infinity, no -0, 0x80 the one NaN; torch
# converts overflow and infinities to NaN.
FNUZ = [torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]
ALL_FP8 = FP8 + FNUZ
INT_VIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}

# precision in bits (with the implicit one), smallest normal exponent, largest finite value
FORMATS = {
    torch.float8_e4m3fn: (4, -6, 448.0),
    torch.float8_e5m2: (3, -14, 57344.0),
    torch.float8_e4m3fnuz: (4, -7, 240.0),
    torch.float8_e5m2fnuz: (3, -15, 57344.0),
    torch.float16: (11, -14, 65504.0),
    torch.bfloat16: (8, -126, float(torch.finfo(torch.bfloat16).max)),
    torch.float32: (24, -126, float(torch.finfo(torch.float32).max)),
}


def round_exact(v, dtype, toward_zero=False):
    """`v` (a Python float) rounded once to `dtype`, as a Python float."""
    precision, emin, largest = FORMATS[dtype]
    fnuz = dtype in FNUZ
    has_inf = dtype != torch.float8_e4m3fn and not fnuz
    if math.isnan(v) or v == 0:
        return abs(v) if fnuz else v
    if math.isinf(v):
        return math.nan if fnuz else v if has_inf else math.copysign(largest, v)
    a = abs(Fraction(v))
    exponent = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** exponent > a:
        exponent -= 1
    ulp = Fraction(2) ** (max(exponent, emin) - precision + 1)
    q, r = divmod(a, ulp)
    if not toward_zero and (r > ulp / 2 or (r == ulp / 2 and q % 2 == 1)):
        q += 1
    m = q * ulp
    if m > largest:
        if fnuz and not toward_zero:
            return math.nan
        m = largest if toward_zero or not has_inf else math.inf
    if fnuz and m == 0:
        return 0.0
    return math.copysign(float(m), v)


def bits(t):
    return t.view(INT_VIEW[t.element_size()])


def all_values(dtype):
    """Every bit pattern of a 1- or 2-byte float type."""
    size = torch.empty(0, dtype=dtype).element_size()
    n = 1 << (8 * size)
    raw = torch.arange(n, dtype=torch.int64)
    raw = torch.where(raw >= n // 2, raw - n, raw)
    return raw.to(INT_VIEW[size]).view(dtype)


def assert_same(actual, expected, signed_zeros=True):
    """Equal as floats, including the sign of zero; NaN where expected is NaN."""
    a, e = actual.double(), expected.double()
    nan = e.isnan()
    assert torch.equal(a.isnan(), nan), f"NaN at {(a.isnan() != nan).nonzero().flatten()[:8].tolist()}"
    diff = (a != e) & ~nan
    if signed_zeros:
        diff |= (a.signbit() != e.signbit()) & ~nan
    idx = diff.nonzero().flatten()[:8]
    assert not diff.any(), f"{int(diff.sum())} differ, e.g. got {a[idx].tolist()} expected {e[idx].tolist()}"


@triton.jit
def convert_kernel(x_ptr, y_ptr, n, ROUNDING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty, fp_downcast_rounding=ROUNDING), mask=mask)


def convert(x, dtype, rounding=None):
    y = torch.empty(x.shape, dtype=dtype)
    convert_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel(), ROUNDING=rounding, BLOCK=BLOCK)
    return y


def reference(x, dtype, toward_zero=False):
    values = [round_exact(v, dtype, toward_zero) for v in x.double().tolist()]
    return torch.tensor(values, dtype=torch.float64)


def boundaries(dtype, source):
    """Every fp8 value, every midpoint between neighbours, and the `source` values next to each."""
    fp8 = all_values(dtype).double()
    finite = fp8[fp8.isfinite()].unique()
    mids = (finite[1:] + finite[:-1]) / 2
    beyond = torch.tensor([1.5 * 2**16, 2.0**17, 1e30, math.inf, -math.inf, math.nan, 1e-30, 2.0**-20])
    points = torch.cat((finite, mids, -mids, beyond.double())).to(source)
    info = torch.finfo(source)
    up = torch.nextafter(points, torch.full_like(points, math.inf))
    down = torch.nextafter(points, torch.full_like(points, -math.inf))
    specials = torch.tensor(
        [info.max, -info.max, info.tiny, info.smallest_normal / 3, -0.0, 0.0], dtype=source
    )
    return torch.cat((points, up, down, specials))


def random_floats(dtype, n, seed=0):
    """Random bit patterns with exponents spread over and around the fp8 range."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, dtype=torch.float64, generator=g) * 2.0 ** torch.randint(-30, 20, (n,), generator=g)
    return x.to(dtype)


def payload_nans(dtype):
    """NaNs with payloads and both signs."""
    size = torch.empty(0, dtype=dtype).element_size() * 8
    mantissa = {torch.float32: 23, torch.float64: 52}[dtype]
    exp_all_ones = ((1 << (size - 1 - mantissa)) - 1) << mantissa
    raw = [exp_all_ones | 1, exp_all_ones | (1 << (mantissa - 1)), exp_all_ones | ((1 << mantissa) - 1)]
    raw += [r - (1 << size) + (1 << (size - 1)) for r in raw]  # the same with the sign bit
    return torch.tensor(raw, dtype=torch.int64).to(INT_VIEW[size // 8]).view(dtype)


@pytest.mark.parametrize("dst", ALL_FP8, ids=str)
@pytest.mark.parametrize("src", [torch.float16, torch.bfloat16], ids=str)
def test_every_half_value_to_fp8_matches_torch(src, dst):
    x = all_values(src)
    assert torch.equal(bits(convert(x, dst)), bits(x.to(dst)))


@pytest.mark.parametrize("dst", ALL_FP8, ids=str)
def test_float32_to_fp8_matches_torch(dst):
    x = torch.cat(
        (boundaries(dst, torch.float32), random_floats(torch.float32, 50000), payload_nans(torch.float32))
    )
    assert torch.equal(bits(convert(x, dst)), bits(x.to(dst)))


@pytest.mark.parametrize("dst", ALL_FP8, ids=str)
def test_float64_to_fp8_rounds_once(dst):
    x = torch.cat(
        (boundaries(dst, torch.float64), random_floats(torch.float64, 20000), payload_nans(torch.float64))
    )
    # Just above a tie: rounds away from the even neighbour. torch (through f32) lands on the tie.
    tie = 1 + 2.0 ** -(FORMATS[dst][0])
    x = torch.cat((x, torch.tensor([tie + 2**-40, -tie - 2**-40], dtype=torch.float64)))
    y = convert(x, dst)
    assert_same(y, reference(x, dst))
    assert y[-2].item() == -y[-1].item() > tie
    # NaNs as torch encodes them: 0x7f with the sign.
    nan = x.isnan()
    assert torch.equal(bits(y)[nan], bits(x[nan].to(dst)))


@pytest.mark.parametrize("dst", ALL_FP8, ids=str)
@pytest.mark.parametrize("src", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_to_fp8_toward_zero(src, dst):
    if src in (torch.float16, torch.bfloat16):
        x = all_values(src)
    else:
        x = torch.cat((boundaries(dst, src), random_floats(src, 20000)))
    assert_same(convert(x, dst, "rtz"), reference(x, dst, toward_zero=True))


@pytest.mark.parametrize("dst", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("src", ALL_FP8, ids=str)
def test_fp8_to_wider_matches_torch(src, dst):
    x = all_values(src)
    y = convert(x, dst)
    expected = x.to(dst)
    assert_same(y, expected)
    finite = ~expected.isnan()
    assert torch.equal(bits(y)[finite], bits(expected)[finite])


@pytest.mark.parametrize(
    "src, dst",
    [
        FP8,
        FP8[::-1],
        FNUZ,
        FNUZ[::-1],
        (torch.float8_e4m3fn, torch.float8_e4m3fnuz),
        (torch.float8_e5m2fnuz, torch.float8_e5m2),
    ],
    ids=[
        "e4m3-e5m2",
        "e5m2-e4m3",
        "e4m3fnuz-e5m2fnuz",
        "e5m2fnuz-e4m3fnuz",
        "e4m3-e4m3fnuz",
        "e5m2fnuz-e5m2",
    ],
)
def test_fp8_to_fp8(src, dst):
    x = all_values(src)
    assert torch.equal(bits(convert(x, dst)), bits(x.float().to(dst)))


# Standard formats: rounding toward zero, f16 <-> bf16, and f64 -> bf16 (no target has it).
STANDARD = [
    (torch.float32, torch.float16, "rtz"),
    (torch.float32, torch.bfloat16, "rtz"),
    (torch.float64, torch.float32, "rtz"),
    (torch.float64, torch.float16, "rtz"),
    (torch.float64, torch.float16, None),
    (torch.float64, torch.bfloat16, "rtz"),
    (torch.float64, torch.bfloat16, None),
    (torch.float16, torch.bfloat16, None),
    (torch.bfloat16, torch.float16, None),
]


@pytest.mark.parametrize("src, dst, rounding", STANDARD, ids=lambda v: str(v).replace("torch.", ""))
def test_standard_conversions_round_once(src, dst, rounding):
    if src in (torch.float16, torch.bfloat16):
        x = all_values(src)
    else:
        g = torch.Generator().manual_seed(1)
        # Spread over every binade of the destination (and beyond it), with full-precision mantissas.
        e = torch.randint(-160, 140, (20000,), generator=g).double()
        x = (torch.rand(20000, generator=g, dtype=torch.float64) + 1) * 2.0**e
        x = torch.cat((x, -x, torch.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0], dtype=torch.float64)))
        x = x.to(src)
    assert_same(convert(x, dst, rounding), reference(x, dst, toward_zero=rounding == "rtz"))


@triton.jit
def arith_kernel(a_ptr, b_ptr, out_ptr, cmp_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)
    tl.store(out_ptr + n + offs, a - b, mask=mask)
    tl.store(out_ptr + 2 * n + offs, a * b, mask=mask)
    tl.store(out_ptr + 3 * n + offs, tl.maximum(a, b), mask=mask)
    tl.store(out_ptr + 4 * n + offs, tl.minimum(a, b), mask=mask)
    tl.store(out_ptr + 5 * n + offs, tl.where(a < b, a, b), mask=mask)
    tl.store(out_ptr + 6 * n + offs, -a, mask=mask)
    tl.store(out_ptr + 7 * n + offs, tl.abs(a), mask=mask)
    tl.store(cmp_ptr + offs, a < b, mask=mask)
    tl.store(cmp_ptr + n + offs, a == b, mask=mask)
    tl.store(cmp_ptr + 2 * n + offs, a >= b, mask=mask)


@pytest.mark.parametrize("dtype", ALL_FP8, ids=str)
def test_arithmetic_on_every_pair(dtype):
    values = all_values(dtype)
    a = values.repeat_interleave(256)
    b = values.repeat(256)
    n = a.numel()
    out = torch.empty(8 * n, dtype=dtype)
    cmp = torch.empty(3 * n, dtype=torch.bool)
    arith_kernel[(triton.cdiv(n, BLOCK),)](a, b, out, cmp, n, BLOCK=BLOCK)
    # torch widens the FNUZ NaN to a signaling NaN (0x7f800001), which its fmax and fmin pass on
    # where IEEE maxNum / minNum, and triton's tl.maximum, take the number: quiet NaNs here.
    af, bf = (torch.where(t.isnan(), torch.full_like(t, math.nan), t) for t in (a.float(), b.float()))
    expected = [
        af + bf,
        af - bf,
        af * bf,
        torch.fmax(af, bf),
        torch.fmin(af, bf),
        torch.where(af < bf, af, bf),
    ]
    expected = torch.cat(expected + [-af, af.abs()]).to(dtype)
    # maximum/minimum of +0 and -0 may be either zero (IEEE maxNum/minNum).
    maxmin = slice(3 * n, 5 * n)
    assert_same(out[maxmin], expected[maxmin], signed_zeros=False)
    out[maxmin] = expected[maxmin]
    assert_same(out, expected)
    assert torch.equal(cmp, torch.cat((af < bf, af == bf, af >= bf)))


@triton.jit
def mixed_kernel(a_ptr, b_ptr, out_ptr, const_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    # Two different fp8 formats meet in fp16.
    tl.store(out_ptr + offs, a + b)
    tl.store(const_ptr + offs, tl.full((BLOCK,), 3.3, tl.float8e4nv) + a)


def test_mixed_formats_and_constants():
    a = all_values(torch.float8_e4m3fn)
    b = bits(all_values(torch.float8_e5m2)).flip(0).view(torch.float8_e5m2)
    out = torch.empty(256, dtype=torch.float16)
    const = torch.empty(256, dtype=torch.float8_e4m3fn)
    mixed_kernel[(1,)](a, b, out, const, BLOCK=256)
    assert_same(out, a.half() + b.half())
    three = torch.tensor(3.3).to(torch.float8_e4m3fn).float()
    assert_same(const, (three + a.float()).to(torch.float8_e4m3fn))


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("dtype", ALL_FP8, ids=str)
def test_dot(dtype):
    g = torch.Generator().manual_seed(2)
    a = torch.randn(32, 64, generator=g).to(dtype)
    b = torch.randn(64, 16, generator=g).to(dtype)
    c = torch.empty(32, 16)
    dot_kernel[(1,)](a, b, c, M=32, N=16, K=64)
    # Products of fp8 values are exact in f32; only the order of the sums differs.
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-5, atol=1e-5)


@triton.jit
def reduce_kernel(x_ptr, max_ptr, desc_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(max_ptr + rm, tl.max(x, axis=1))
    # fp8 through a tensor descriptor, widened on the way out.
    desc = tl.make_tensor_descriptor(desc_ptr, shape=[M, N], strides=[N, 1], block_shape=[M, N])
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], desc.load([0, 0]).to(tl.float32))


@pytest.mark.parametrize("dtype", ALL_FP8, ids=str)
def test_reduce_and_descriptor(dtype):
    x = all_values(dtype).reshape(16, 16)
    x = torch.where(x.float().isnan(), torch.zeros_like(x), x)
    maxima = torch.empty(16, dtype=dtype)
    out = torch.empty(16, 16)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8))
    reduce_kernel[(1,)](x, maxima, x, out, M=16, N=16)
    assert_same(maxima, x.float().amax(1).to(dtype))
    assert_same(out, x.float())


@pytest.mark.skipif(platform.machine() == "riscv64", reason="a riscv64 host runs RISC-V kernels natively")
@pytest.mark.skipif(shutil.which("qemu-riscv64") is None, reason="qemu-riscv64 is not installed")
@pytest.mark.parametrize("dtype", FP8, ids=str)
def test_conversions_on_riscv(dtype):
    """The integer arithmetic of the conversions compiled for RISC-V and run under qemu-user."""
    from triton.backends.spine_triton.driver import CPUDriver

    x = torch.cat((all_values(torch.float16)[::64], boundaries(dtype, torch.float32)[:256]))
    wide = all_values(dtype)
    driver = CPUDriver()
    driver.set_current_arch_id("0x503C")
    triton.runtime.driver.set_active(driver)
    try:
        narrowed, widened = convert(x, dtype), convert(wide, torch.float32)
    finally:
        triton.runtime.driver.reset_active()
    assert torch.equal(bits(narrowed), bits(x.to(dtype)))
    assert_same(widened, wide.float())
