"""The dtype matrix: every operation class over every dtype triton supports on a CPU, against
references written from triton's documented semantics (never from the compiler under test).

Dtypes: int8..int64, uint8..uint64, fp16, bf16, fp32, fp64 and bool where it means something.
Operation classes: masked load/store with `other`, binary arithmetic (C-like `//` and `%` on
integers, wrap-around), comparisons and `tl.where`, bitwise ops and shifts, unary math, `.to()`
between every pair of dtypes and bitcasts, `tl.minimum`/`tl.maximum`/`tl.clamp` with both NaN
policies, reductions, scans, `tl.dot`, atomics, `tl.sort`/`tl.flip`; and the compile errors
triton's frontend raises where it forbids an op for a dtype.

The semantics the references follow (triton/language/semantic.py, triton 3.9):
- integer `+ - *` and `-x` wrap around; `//` is `sdiv`/`udiv` (C: truncates toward zero) and `%`
  is `srem`/`urem` (C: the sign of the dividend); `/` of integers converts both to fp32 first;
  `/` and `%` of fp16/bf16 compute in fp32; `%` of floats is `frem` (C `fmod`); `//` of floats
  is a compile error.
- `>>` is arithmetic for signed and logical for unsigned integers (shift amounts < bit width).
- `.to()`: integer -> integer truncates or extends by the source's signedness; -> bool is `!= 0`;
  integer -> float and float -> float round to nearest even; float -> integer truncates toward
  zero (defined for values in range only); bitcasts keep the bits.
- `tl.minimum`/`maximum`: `PropagateNan.NONE` is minnum/maxnum (a NaN operand loses),
  `PropagateNan.ALL` is minimumf/maximumf (NaN wins, -0.0 < +0.0).
- reductions and scans of integers narrower than 32 bits accumulate in (u)int32; `tl.max`/`tl.min`
  of fp16/bf16 compute in fp32; `argmax`/`argmin` return the first index of a tie.
- atomics: read-modify-write needs 32- or 64-bit integers or floats (fp16/bf16: add only, float
  max/min: fp32/fp64); `atomic_cas` takes 16-, 32- and 64-bit elements and compares bits.

Each kernel computes every op of its class at once, so one compilation serves a whole dtype; the
sizes have tails (100 elements in blocks of 64) so masks matter everywhere.
"""

import math

import numpy as np
import pytest
import torch
import triton
import triton.language as tl

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
NUMERIC = INTS + FLOATS
ALL = NUMERIC + ["bool"]
TORCH = {name: getattr(torch, name) for name in ALL}
NP = {name: getattr(np, name) for name in INTS}
NP["bool"] = np.bool_

# Elementwise tests: 100 elements in blocks of 64, so the second program has a tail of 36.
N = 100
BLOCK = 64
GRID = (triton.cdiv(N, BLOCK),)
STRIDE = GRID[0] * BLOCK  # the rows of the (ops x STRIDE) output matrices

# (rtol, atol) for results of a float dtype that are not exact by construction: about an ulp.
TOL = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1e-2, 1e-5),
    "float32": (1e-6, 1e-7),
    "float64": (4e-15, 1e-16),
}
# (significant bits, smallest normal exponent, largest finite value) of each float format.
FORMAT = {
    "float16": (11, -14, 65504.0),
    "bfloat16": (8, -126, float.fromhex("0x1.fep127")),
    "float32": (24, -126, float.fromhex("0x1.fffffep127")),
    "float64": (53, -1022, float.fromhex("0x1.fffffffffffffp1023")),
}
WIDTH = {"bool": 8, "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}
WIDTH.update({name: torch.iinfo(TORCH[name]).bits for name in INTS})
SAME_WIDTH = {
    8: ["int8", "uint8"],
    16: ["int16", "uint16", "float16", "bfloat16"],
    32: ["int32", "uint32", "float32"],
    64: ["int64", "uint64", "float64"],
}


# ---------------------------------------------------------------------------------------------
# Reference semantics, on Python numbers
# ---------------------------------------------------------------------------------------------


def is_int(name):
    return name in INTS


def signed(name):
    return name.startswith("int")


def int_range(name):
    info = torch.iinfo(TORCH[name])
    return info.min, info.max


def wrap(v, name):
    """Two's complement wrap-around of the integer `v` to `name`."""
    if name == "bool":
        return v != 0
    bits = WIDTH[name]
    v &= (1 << bits) - 1
    if signed(name) and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def c_div(a, b):
    """C integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_mod(a, b):
    """C remainder: a == b * c_div(a, b) + c_mod(a, b), so it has the sign of the dividend."""
    return a - b * c_div(a, b)


def round_float(x, name):
    """The float `x` (a double) rounded to nearest even into the format `name`, with the
    format's subnormals and overflow to infinity."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    p, emin, fmax = FORMAT[name]
    _, e = math.frexp(abs(x))  # abs(x) = m * 2**e with 0.5 <= m < 1: leading bit at 2**(e-1)
    quantum = max(e - 1, emin) - (p - 1)
    r = math.ldexp(round(math.ldexp(abs(x), -quantum)), quantum)  # round() ties to even
    return math.copysign(math.inf if r > fmax else r, x)


def int_to_float(v, name):
    """The integer `v` rounded to nearest even into the float format `name` (never subnormal)."""
    p, _, fmax = FORMAT[name]
    a = abs(v)
    shift = a.bit_length() - p
    if shift > 0:
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    return math.copysign(math.inf if a > fmax else float(a), v) if a else 0.0


def cast(v, src, dst):
    """`.to(dst)` of the value `v` of dtype `src`. Floats convert to integers as on NVIDIA and AMD
    GPUs: truncated, saturated to the integer's range, NaN to 0 (spine-saturate-float-to-int)."""
    if src == "bool":
        v = int(v)
        src = "uint8"
    if dst == "bool":
        return v != 0  # NaN != 0 too
    if is_int(src):
        return wrap(v, dst) if is_int(dst) else int_to_float(v, dst)
    if not is_int(dst):
        return round_float(v, dst)
    if math.isnan(v):
        return 0
    lo, hi = int_range(dst)
    if math.isinf(v):
        return hi if v > 0 else lo
    return min(max(math.trunc(v), lo), hi)


# ---------------------------------------------------------------------------------------------
# Data and comparisons
# ---------------------------------------------------------------------------------------------


def from_values(values, name):
    """A tensor of dtype `name` holding `values` exactly (floats must be representable)."""
    if name == "bool":
        return torch.tensor([bool(v) for v in values], dtype=torch.bool)
    if is_int(name):
        return torch.from_numpy(np.array(values, dtype=NP[name]))
    return torch.tensor(values, dtype=torch.float64).to(TORCH[name])


def random_ints(name, n, rng, lo=None, hi=None):
    info_lo, info_hi = int_range(name)
    lo = info_lo if lo is None else max(lo, info_lo)
    hi = info_hi if hi is None else min(hi, info_hi)
    values = rng.integers(lo, hi, size=n, endpoint=True, dtype=np.uint64 if name == "uint64" else np.int64)
    return torch.from_numpy(values.astype(NP[name]))


def random_bits(name, n, rng):
    """Uniformly random bit patterns of dtype `name` (floats: NaNs, infinities, subnormals)."""
    width = WIDTH[name]
    raw = rng.integers(0, 2**width, size=n, dtype=np.uint64).astype(getattr(np, f"uint{width}"))
    return torch.from_numpy(raw).view(TORCH[name])


def random_floats(name, n, rng, scale=1.0):
    return torch.from_numpy(rng.standard_normal(n) * scale).to(TORCH[name])


def random_values(name, n, rng):
    """Values of `name` spread over its range, for ops defined everywhere."""
    if name == "bool":
        return torch.from_numpy(rng.integers(0, 2, size=n).astype(np.bool_))
    if is_int(name):
        return random_ints(name, n, rng)
    return random_floats(name, n, rng, 100.0)


def from_bits(bits, name):
    width = WIDTH[name]
    return torch.from_numpy(np.array(bits, dtype=getattr(np, f"uint{width}"))).view(TORCH[name])


def values_of(t):
    return t.tolist()


def bits_of(t):
    """The bit patterns of a tensor as Python ints."""
    width = WIDTH[{torch.bool: "bool"}.get(t.dtype, str(t.dtype).replace("torch.", ""))]
    if t.dtype == torch.bool:
        return [int(v) for v in t.tolist()]
    return [v & ((1 << width) - 1) for v in t.view(getattr(torch, f"int{width}")).tolist()]


def same(got, want, name, tol, signed_zero):
    if want is None:
        return True
    if is_int(name) or name == "bool":
        return got == want
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or tol is None:
        exact = got == want
        if exact and signed_zero and want == 0:
            return math.copysign(1, got) == math.copysign(1, want)
        return exact
    rtol, atol = tol
    return abs(got - want) <= atol + rtol * abs(want)


class Checks:
    """Collects every mismatch of a test, so one failing op does not hide the others."""

    def __init__(self):
        self.failures = []

    def values(self, what, got, want, name, tol=None, signed_zero=False):
        """`got` (a tensor) against `want` (Python values; None: undefined, not compared). Float
        dtypes compare exactly unless `tol` is given; NaN matches NaN."""
        got = values_of(got)
        assert len(got) == len(want), (what, len(got), len(want))
        bad = [i for i, (g, w) in enumerate(zip(got, want)) if not same(g, w, name, tol, signed_zero)]
        if bad:
            examples = ", ".join(f"[{i}] got {got[i]!r} want {want[i]!r}" for i in bad[:4])
            self.failures.append(f"{what}: {len(bad)}/{len(got)} differ: {examples}")

    def bits(self, what, got, want_bits):
        got_bits = bits_of(got)
        bad = [i for i, (g, w) in enumerate(zip(got_bits, want_bits)) if g != w]
        if bad:
            examples = ", ".join(f"[{i}] got {got_bits[i]:#x} want {want_bits[i]:#x}" for i in bad[:4])
            self.failures.append(f"{what}: {len(bad)}/{len(got_bits)} differ: {examples}")

    def done(self):
        assert not self.failures, "\n".join(self.failures)


def tol_of(name):
    return TOL.get(name)


# ---------------------------------------------------------------------------------------------
# Masked loads and stores
# ---------------------------------------------------------------------------------------------


@triton.jit
def load_store_kernel(
    x_ptr, y_ptr, out_ptr, padded_ptr, sparse_ptr, n, OTHER: tl.constexpr, BLOCK: tl.constexpr
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=OTHER)
    tl.store(out_ptr + offs, x, mask=mask)  # nothing at or past n is written
    tl.store(padded_ptr + offs, x)  # the tail shows `other`
    # A mask that is not a bound, a tensor `other`, and a store mask that is not a bound either.
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(x_ptr + offs, mask=mask & (offs % 3 != 0), other=y)
    tl.store(sparse_ptr + offs, z, mask=mask & (offs % 2 == 0))


OTHER = {
    name: (True if name == "bool" else 7 if name.startswith("u") else -7 if is_int(name) else -2.5)
    for name in ALL
}


@pytest.mark.parametrize("name", ALL)
def test_load_store(name):
    rng = np.random.default_rng(1)
    x, y = random_values(name, N, rng), random_values(name, N, rng)
    sentinel = from_values([1] * (STRIDE + 8), name)
    out, padded, sparse = sentinel.clone(), from_values([0] * STRIDE, name), sentinel.clone()
    load_store_kernel[GRID](x, y, out, padded, sparse, N, OTHER=OTHER[name], BLOCK=BLOCK)
    xs, ys, one = values_of(x), values_of(y), values_of(sentinel)[0]
    other = cast(OTHER[name], "float64" if isinstance(OTHER[name], float) else "int64", name)
    c = Checks()
    c.values("masked store", out, xs + [one] * (STRIDE + 8 - N), name)
    c.values("load other=", padded, xs + [other] * (STRIDE - N), name)
    want = [(xs[i] if i % 3 else ys[i]) if i < N and i % 2 == 0 else one for i in range(STRIDE + 8)]
    c.values("sparse masks, tensor other", sparse, want, name)
    c.done()


# ---------------------------------------------------------------------------------------------
# Binary arithmetic
# ---------------------------------------------------------------------------------------------


@triton.jit
def binary_kernel(
    x_ptr,
    y_ptr,
    same_ptr,
    div_ptr,
    mod_ptr,
    n,
    IS_INT: tl.constexpr,
    STRIDE: tl.constexpr,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(same_ptr + offs, x + y, mask=mask)
    tl.store(same_ptr + STRIDE + offs, x - y, mask=mask)
    tl.store(same_ptr + 2 * STRIDE + offs, x * y, mask=mask)
    if IS_INT:
        tl.store(same_ptr + 3 * STRIDE + offs, x // y, mask=mask)
    tl.store(div_ptr + offs, x / y, mask=mask)  # fp32 for integers, fp16 and bf16
    tl.store(mod_ptr + offs, x % y, mask=mask)  # the operands' type; fp32 for fp16 and bf16


def binary_operands(name, rng):
    if is_int(name):
        lo, hi = int_range(name)
        x = values_of(random_ints(name, N, rng))
        # Divisors both small and anywhere in the range, never 0; no lo // -1 (undefined).
        small = values_of(random_ints(name, N, rng, -9 if signed(name) else 1, 9))
        wide = values_of(random_ints(name, N, rng))
        y = [(s if i % 2 else w) or 3 for i, (s, w) in enumerate(zip(small, wide))]
        x = [lo + 1 if (v == lo and d == -1) else v for v, d in zip(x, y)]
        x[:4] = [lo, hi, lo + 1 if signed(name) else 0, -1 if signed(name) else hi]
        y[:4] = [7, -7 if signed(name) else 7, 2, 2]
        return from_values(x, name), from_values(y, name)
    x = values_of(random_floats(name, N, rng, 10.0))
    y = values_of(random_floats(name, N, rng, 3.0))
    inf, nan = math.inf, math.nan
    x[:8] = [inf, -inf, nan, 0.0, -0.0, 5.5, -5.5, 1.0]
    y[:8] = [2.0, inf, 1.0, -0.0, 3.0, 0.0, inf, nan]
    return from_values(x, name), from_values(y, name)


@pytest.mark.parametrize("name", NUMERIC)
def test_binary_arith(name):
    x, y = binary_operands(name, np.random.default_rng(2))
    integer = is_int(name)
    div_type = "float64" if name == "float64" else "float32"
    same_out = torch.zeros(4, STRIDE, dtype=TORCH[name])
    div, mod = (
        torch.zeros(STRIDE, dtype=TORCH[div_type]),
        torch.zeros(STRIDE, dtype=TORCH[name if integer else div_type]),
    )
    binary_kernel[GRID](x, y, same_out, div, mod, N, IS_INT=integer, STRIDE=STRIDE, BLOCK=BLOCK)
    xs, ys = values_of(x), values_of(y)
    c = Checks()
    if integer:
        for row, (op, fn) in enumerate(
            [("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b), ("//", c_div)]
        ):
            c.values(op, same_out[row, :N], [wrap(fn(a, b), name) for a, b in zip(xs, ys)], name)
        c.values("%", mod[:N], [c_mod(a, b) for a, b in zip(xs, ys)], name)
        # Both operands are converted to fp32, then divided (one rounding each).
        want = [
            round_float(int_to_float(a, "float32") / int_to_float(b, "float32"), "float32")
            for a, b in zip(xs, ys)
        ]
        c.values("/", div[:N], want, "float32")
    else:
        a, b = np.array(xs), np.array(ys)
        with np.errstate(all="ignore"):
            for row, (op, exact) in enumerate([("+", a + b), ("-", a - b), ("*", a * b)]):
                c.values(
                    op, same_out[row, :N], [round_float(v, name) for v in exact.tolist()], name, tol_of(name)
                )
            # A double result rounded once more is exact for + - * / of formats of <= 24 bits.
            c.values(
                "/", div[:N], [round_float(v, div_type) for v in (a / b).tolist()], div_type, tol_of(div_type)
            )
            c.values("% (fmod)", mod[:N], np.fmod(a, b).tolist(), div_type, tol_of(div_type))
    c.done()


# ---------------------------------------------------------------------------------------------
# Comparisons and tl.where
# ---------------------------------------------------------------------------------------------


@triton.jit
def compare_kernel(x_ptr, y_ptr, c_ptr, cmp_ptr, sel_ptr, n, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    cond = tl.load(c_ptr + offs, mask=mask)
    tl.store(cmp_ptr + offs, x < y, mask=mask)
    tl.store(cmp_ptr + STRIDE + offs, x <= y, mask=mask)
    tl.store(cmp_ptr + 2 * STRIDE + offs, x > y, mask=mask)
    tl.store(cmp_ptr + 3 * STRIDE + offs, x >= y, mask=mask)
    tl.store(cmp_ptr + 4 * STRIDE + offs, x == y, mask=mask)
    tl.store(cmp_ptr + 5 * STRIDE + offs, x != y, mask=mask)
    tl.store(sel_ptr + offs, tl.where(cond, x, y), mask=mask)
    tl.store(sel_ptr + STRIDE + offs, tl.where(x < y, y, x), mask=mask)


def compare_operands(name, rng):
    x, y = values_of(random_values(name, N, rng)), values_of(random_values(name, N, rng))
    y[::4] = x[::4]  # equal pairs
    if name in FLOATS:
        x[1:8] = [math.nan, 1.0, math.nan, math.inf, -math.inf, -0.0, 0.0]
        y[1:8] = [1.0, math.nan, math.nan, math.inf, math.inf, 0.0, -0.0]
    return from_values(x, name), from_values(y, name)


@pytest.mark.parametrize("name", ALL)
def test_compare_where(name):
    rng = np.random.default_rng(3)
    x, y = compare_operands(name, rng)
    cond = torch.from_numpy(rng.integers(0, 2, size=N).astype(np.bool_))
    cmp, sel = (
        torch.zeros(6, STRIDE, dtype=torch.bool),
        from_values([0] * 2 * STRIDE, name).reshape(2, STRIDE),
    )
    compare_kernel[GRID](x, y, cond, cmp, sel, N, STRIDE=STRIDE, BLOCK=BLOCK)
    xs, ys, cs = values_of(x), values_of(y), values_of(cond)
    c = Checks()
    ops = [
        ("<", "__lt__"),
        ("<=", "__le__"),
        (">", "__gt__"),
        (">=", "__ge__"),
        ("==", "__eq__"),
        ("!=", "__ne__"),
    ]
    for row, (op, method) in enumerate(ops):
        c.values(op, cmp[row, :N], [getattr(a, method)(b) for a, b in zip(xs, ys)], "bool")
    c.values(
        "where(cond, x, y)",
        sel[0, :N],
        [a if k else b for a, b, k in zip(xs, ys, cs)],
        name,
        signed_zero=True,
    )
    c.values("where(x < y, y, x)", sel[1, :N], [max(a, b) for a, b in zip(xs, ys)], name, signed_zero=True)
    c.done()


# ---------------------------------------------------------------------------------------------
# Bitwise ops and shifts
# ---------------------------------------------------------------------------------------------


@triton.jit
def bitwise_kernel(
    x_ptr, y_ptr, s_ptr, out_ptr, n, SHIFTS: tl.constexpr, STRIDE: tl.constexpr, BLOCK: tl.constexpr
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x & y, mask=mask)
    tl.store(out_ptr + STRIDE + offs, x | y, mask=mask)
    tl.store(out_ptr + 2 * STRIDE + offs, x ^ y, mask=mask)
    tl.store(out_ptr + 3 * STRIDE + offs, ~x, mask=mask)
    if SHIFTS:
        s = tl.load(s_ptr + offs, mask=mask)
        tl.store(out_ptr + 4 * STRIDE + offs, x << s, mask=mask)
        tl.store(out_ptr + 5 * STRIDE + offs, x >> s, mask=mask)  # arithmetic iff signed


@pytest.mark.parametrize("name", INTS + ["bool"])
def test_bitwise_shifts(name):
    rng = np.random.default_rng(4)
    x, y = random_values(name, N, rng), random_values(name, N, rng)
    shifts = name != "bool"
    s = random_ints(name, N, rng, 0, WIDTH[name] - 1) if shifts else x
    out = from_values([0] * 6 * STRIDE, name).reshape(6, STRIDE)
    bitwise_kernel[GRID](x, y, s, out, N, SHIFTS=shifts, STRIDE=STRIDE, BLOCK=BLOCK)
    xs, ys, ss = values_of(x), values_of(y), values_of(s)
    c = Checks()
    if name == "bool":
        ops = [
            ("&", lambda a, b, _: a and b),
            ("|", lambda a, b, _: a or b),
            ("^", lambda a, b, _: a != b),
            ("~", lambda a, b, _: not a),
        ]
    else:
        ops = [
            ("&", lambda a, b, _: a & b),
            ("|", lambda a, b, _: a | b),
            ("^", lambda a, b, _: a ^ b),
            ("~", lambda a, b, _: ~a),
            ("<<", lambda a, _, k: a << k),
            (">>", lambda a, _, k: a >> k),
        ]  # Python's >> of a negative int is arithmetic
    for row, (op, fn) in enumerate(ops):
        c.values(op, out[row, :N], [wrap(int(fn(a, b, k)), name) for a, b, k in zip(xs, ys, ss)], name)
    c.done()


# ---------------------------------------------------------------------------------------------
# Unary math
# ---------------------------------------------------------------------------------------------


@triton.jit
def unary_kernel(x_ptr, p_ptr, out_ptr, n, MATH: tl.constexpr, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.abs(x), mask=mask)
    tl.store(out_ptr + STRIDE + offs, -x, mask=mask)
    if MATH:
        # triton's math functions take fp32/fp64: fp16 and bf16 compute in fp32 and round back.
        p = tl.load(p_ptr + offs, mask=mask, other=1).to(
            tl.float32 if x.dtype.primitive_bitwidth < 32 else x.dtype
        )
        xf = x.to(p.dtype)
        tl.store(out_ptr + 2 * STRIDE + offs, tl.exp(xf), mask=mask)
        tl.store(out_ptr + 3 * STRIDE + offs, tl.exp2(xf), mask=mask)
        tl.store(out_ptr + 4 * STRIDE + offs, tl.log(p), mask=mask)
        tl.store(out_ptr + 5 * STRIDE + offs, tl.log2(p), mask=mask)
        tl.store(out_ptr + 6 * STRIDE + offs, tl.sqrt(p), mask=mask)
        tl.store(out_ptr + 7 * STRIDE + offs, tl.rsqrt(p), mask=mask)
        tl.store(out_ptr + 8 * STRIDE + offs, tl.sin(xf), mask=mask)
        tl.store(out_ptr + 9 * STRIDE + offs, tl.cos(xf), mask=mask)
        tl.store(out_ptr + 10 * STRIDE + offs, tl.erf(xf), mask=mask)
        tl.store(out_ptr + 11 * STRIDE + offs, tl.floor(xf), mask=mask)
        tl.store(out_ptr + 12 * STRIDE + offs, tl.ceil(xf), mask=mask)
        tl.store(out_ptr + 13 * STRIDE + offs, tl.sigmoid(xf), mask=mask)


MATH_FUNCTIONS = [
    ("exp", math.exp, "x"),
    ("exp2", lambda v: 2.0**v, "x"),
    ("log", math.log, "p"),
    ("log2", math.log2, "p"),
    ("sqrt", math.sqrt, "p"),
    ("rsqrt", lambda v: 1 / math.sqrt(v), "p"),
    ("sin", math.sin, "x"),
    ("cos", math.cos, "x"),
    ("erf", math.erf, "x"),
    ("floor", math.floor, "x"),
    ("ceil", math.ceil, "x"),
    ("sigmoid", lambda v: 1 / (1 + math.exp(-v)) if v > -700 else 0.0, "x"),
]


@pytest.mark.parametrize("name", NUMERIC)
def test_unary(name):
    rng = np.random.default_rng(5)
    floating = not is_int(name)
    if floating:
        xs = values_of(random_floats(name, N, rng, 8.0))
        # Wide arguments too: exp2 and exp over their whole range (overflow and subnormals).
        xs[10:40] = rng.uniform(-130.0, 130.0, 30).tolist()
        xs[:6] = [0.0, -0.0, math.inf, -math.inf, 2.5, -2.5]
        xs = [round_float(v, name) for v in xs]
        x = from_values(xs, name)
        p = from_values([v for v in np.exp(rng.uniform(-10, 10, N)).tolist()], name)
    else:
        x = random_ints(name, N, rng)
        x[0] = int_range(name)[0]
        p = x
    out = from_values([0] * 14 * STRIDE, name).reshape(14, STRIDE)
    unary_kernel[GRID](x, p, out, N, MATH=floating, STRIDE=STRIDE, BLOCK=BLOCK)
    xs, ps = values_of(x), values_of(p)
    c = Checks()
    if floating:
        c.values("abs", out[0, :N], [abs(v) for v in xs], name, signed_zero=True)
        c.values("neg", out[1, :N], [-v for v in xs], name, signed_zero=True)
        finite = [v if math.isfinite(v) else None for v in xs]  # math.* raise on infinities
        # Polynomials of a few ulp in fp32 (within 1e-6); fp16/bf16 round an fp32 result once more.
        rtol, atol = TOL[name]
        for row, (fn_name, fn, arg) in enumerate(MATH_FUNCTIONS, start=2):
            want = [
                None if v is None else round_float(float(fn(v)), name) for v in (finite if arg == "x" else ps)
            ]
            c.values(fn_name, out[row, :N], want, name, (rtol, atol))
    else:
        c.values("abs", out[0, :N], [wrap(abs(v), name) for v in xs], name)  # abs(min) wraps to min
        c.values("neg", out[1, :N], [wrap(-v, name) for v in xs], name)
    c.done()


# ---------------------------------------------------------------------------------------------
# Casts between every pair of dtypes, and bitcasts
# ---------------------------------------------------------------------------------------------


@triton.jit
def _cast_store(ptr, offs, x, mask):
    tl.store(ptr + offs, x.to(ptr.dtype.element_ty), mask=mask)


@triton.jit
def cast_kernel(x_ptr, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, b1, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    _cast_store(i8, offs, x, mask)
    _cast_store(i16, offs, x, mask)
    _cast_store(i32, offs, x, mask)
    _cast_store(i64, offs, x, mask)
    _cast_store(u8, offs, x, mask)
    _cast_store(u16, offs, x, mask)
    _cast_store(u32, offs, x, mask)
    _cast_store(u64, offs, x, mask)
    _cast_store(f16, offs, x, mask)
    _cast_store(bf16, offs, x, mask)
    _cast_store(f32, offs, x, mask)
    _cast_store(f64, offs, x, mask)
    _cast_store(b1, offs, x, mask)


def cast_sources(name, rng):
    """Values of `name` that exercise every conversion: truncation, extension, rounding ties,
    overflow to infinity, subnormals, NaN and signed zeros."""
    if name == "bool":
        return random_values(name, N, rng)
    if is_int(name):
        lo, hi = int_range(name)
        specials = [
            0,
            1,
            -1,
            127,
            128,
            -129,
            255,
            256,
            2049,
            32767,
            32768,
            65535,
            65537,
            16777217,
            2**31 - 1,
            2**31,
            2**32 - 1,
            2**53 + 1,
            2**24 + 2**16 + 1,
            lo,
            hi,
            lo + 1,
            hi - 1,
        ]
        values = values_of(random_ints(name, N, rng, -300, 300))
        wide = values_of(random_ints(name, N, rng))
        values[: N // 2 : 2] = wide[: N // 2 : 2]
        specials = [v for v in specials if lo <= v <= hi]
        values[N - len(specials) :] = specials
        return from_values(values, name)
    values = values_of(random_floats(name, N, rng, 60.0))
    values[30:60] = values_of(random_bits(name, 30, rng))
    specials = [
        math.nan,
        math.inf,
        -math.inf,
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0 + 2**-11,
        1.0 + 3 * 2**-11,
        65519.0,
        65520.0,
        1e-7,
        -3e-5,
        2.0**-24,
        1.0 + 2**-8,
        255.9,
        -128.9,
        1e30,
        3e38,
    ]
    values[N - len(specials) :] = [round_float(v, name) for v in specials]
    return from_values(values, name)


@pytest.mark.parametrize("src", ALL)
def test_cast(src):
    x = cast_sources(src, np.random.default_rng(6))
    outs = [from_values([0] * N, dst) for dst in ALL]
    cast_kernel[GRID](x, *outs, N, BLOCK=BLOCK)
    xs = values_of(x)
    c = Checks()
    for dst, out in zip(ALL, outs):
        c.values(f"{src} -> {dst}", out, [cast(v, src, dst) for v in xs], dst, signed_zero=True)
    c.done()


@triton.jit
def bitcast_kernel(x_ptr, o0, o1, o2, o3, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(o0 + offs, x.to(o0.dtype.element_ty, bitcast=True), mask=mask)
    tl.store(o1 + offs, x.to(o1.dtype.element_ty, bitcast=True), mask=mask)
    tl.store(o2 + offs, x.to(o2.dtype.element_ty, bitcast=True), mask=mask)
    tl.store(o3 + offs, x.to(o3.dtype.element_ty, bitcast=True), mask=mask)


@pytest.mark.parametrize("src", NUMERIC)
def test_bitcast(src):
    # Random bits: float sources and results include NaN payloads, infinities and subnormals.
    x = random_bits(src, N, np.random.default_rng(7))
    targets = (SAME_WIDTH[WIDTH[src]] * 2)[:4]
    outs = [from_values([0] * N, dst) for dst in targets]
    bitcast_kernel[GRID](x, *outs, N, BLOCK=BLOCK)
    c = Checks()
    for dst, out in zip(targets, outs):
        c.bits(f"{src} -> {dst} (bitcast)", out, bits_of(x))
    c.done()


# ---------------------------------------------------------------------------------------------
# tl.minimum, tl.maximum, tl.clamp
# ---------------------------------------------------------------------------------------------


@triton.jit
def minmax_kernel(x_ptr, y_ptr, lo_ptr, hi_ptr, out_ptr, n, STRIDE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.minimum(x, y), mask=mask)
    tl.store(out_ptr + STRIDE + offs, tl.maximum(x, y), mask=mask)
    tl.store(out_ptr + 2 * STRIDE + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL), mask=mask)
    tl.store(out_ptr + 3 * STRIDE + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL), mask=mask)
    lo = tl.load(lo_ptr + offs, mask=mask)
    hi = tl.load(hi_ptr + offs, mask=mask)
    tl.store(out_ptr + 4 * STRIDE + offs, tl.clamp(x, lo, hi, propagate_nan=tl.PropagateNan.ALL), mask=mask)


def _num_min(a, b):
    """minnum: a NaN operand loses; either zero may come out of min(-0.0, +0.0)."""
    return b if math.isnan(a) else a if math.isnan(b) else min(a, b)


def _num_max(a, b):
    return b if math.isnan(a) else a if math.isnan(b) else max(a, b)


def _minimum(a, b):
    """minimumf: NaN wins, -0.0 < +0.0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0:
        return a if math.copysign(1, a) < 0 else b
    return min(a, b)


def _maximum(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0:
        return a if math.copysign(1, a) > 0 else b
    return max(a, b)


@pytest.mark.parametrize("name", NUMERIC)
def test_min_max_clamp(name):
    rng = np.random.default_rng(8)
    xs, ys = values_of(random_values(name, N, rng)), values_of(random_values(name, N, rng))
    a, b = values_of(random_values(name, N, rng)), values_of(random_values(name, N, rng))
    los, his = [min(u, v) for u, v in zip(a, b)], [max(u, v) for u, v in zip(a, b)]
    if name in FLOATS:
        xs[:8] = [math.nan, 1.0, math.nan, -0.0, 0.0, math.inf, -math.inf, math.nan]
        ys[:8] = [2.0, math.nan, math.nan, 0.0, -0.0, 3.0, -3.0, -math.inf]
    x, y, lo, hi = (from_values(v, name) for v in (xs, ys, los, his))
    out = from_values([0] * 5 * STRIDE, name).reshape(5, STRIDE)
    minmax_kernel[GRID](x, y, lo, hi, out, N, STRIDE=STRIDE, BLOCK=BLOCK)
    c = Checks()
    floating = name in FLOATS
    c.values("minimum", out[0, :N], [(_num_min if floating else min)(u, v) for u, v in zip(xs, ys)], name)
    c.values("maximum", out[1, :N], [(_num_max if floating else max)(u, v) for u, v in zip(xs, ys)], name)
    # The sign of a zero result is test_minimum_maximum_signed_zeros's.
    c.values(
        "minimum(ALL)", out[2, :N], [(_minimum if floating else min)(u, v) for u, v in zip(xs, ys)], name
    )
    c.values(
        "maximum(ALL)", out[3, :N], [(_maximum if floating else max)(u, v) for u, v in zip(xs, ys)], name
    )
    want = [math.nan if math.isnan(u) else min(max(u, lo_), hi_) for u, lo_, hi_ in zip(xs, los, his)]
    c.values("clamp(ALL)", out[4, :N], want, name)
    c.done()


@pytest.mark.parametrize("name", FLOATS)
def test_minimum_maximum_signed_zeros(name):
    xs = ([-0.0, 0.0] * (N // 2))[:N]
    ys = ([0.0, -0.0] * (N // 2))[:N]
    x, y = from_values(xs, name), from_values(ys, name)
    out = from_values([1] * 5 * STRIDE, name).reshape(5, STRIDE)
    minmax_kernel[GRID](x, y, x, x, out, N, STRIDE=STRIDE, BLOCK=BLOCK)
    c = Checks()
    c.values("minimum(ALL) of zeros", out[2, :N], [-0.0] * N, name, signed_zero=True)
    c.values("maximum(ALL) of zeros", out[3, :N], [0.0] * N, name, signed_zero=True)
    c.done()


# ---------------------------------------------------------------------------------------------
# Reductions: sum, max, min, argmax, argmin, xor_sum over 1-D and both axes of 2-D
# ---------------------------------------------------------------------------------------------

RM, RN, BM, BN, B1 = 5, 20, 8, 32, 128  # a 5 x 20 tensor in an 8 x 32 block; 100 in a block of 128
SUM_TYPE = {"int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


@triton.jit
def reduce_kernel(
    x_ptr,
    y_ptr,
    sum_ptr,
    val_ptr,
    idx_ptr,
    M,
    N,
    MINV: tl.constexpr,
    MAXV: tl.constexpr,
    IS_INT: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    B1: tl.constexpr,
):
    rm, rn, r1 = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, B1)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0)  # 0: neutral for sum and xor
    y = tl.load(y_ptr + offs, mask=mask, other=0)
    ymax = tl.where(mask, y, tl.full([BM, BN], MINV, y.dtype))
    ymin = tl.where(mask, y, tl.full([BM, BN], MAXV, y.dtype))
    m1 = r1 < M * N
    x1 = tl.load(x_ptr + r1, mask=m1, other=0)
    y1 = tl.load(y_ptr + r1, mask=m1, other=0)
    y1max = tl.where(m1, y1, tl.full([B1], MINV, y.dtype))
    y1min = tl.where(m1, y1, tl.full([B1], MAXV, y.dtype))
    # sum: rows, columns, all of 2-D, all of 1-D
    tl.store(sum_ptr + rm, tl.sum(x, axis=1), mask=rm < M)
    tl.store(sum_ptr + BM + rn, tl.sum(x, axis=0), mask=rn < N)
    tl.store(sum_ptr + BM + BN, tl.sum(x))
    tl.store(sum_ptr + BM + BN + 1, tl.sum(x1, axis=0))
    # max, min (values): the same four shapes each
    S: tl.constexpr = BM + BN + 2
    tl.store(val_ptr + rm, tl.max(ymax, axis=1), mask=rm < M)
    tl.store(val_ptr + BM + rn, tl.max(ymax, axis=0), mask=rn < N)
    tl.store(val_ptr + BM + BN, tl.max(ymax))
    tl.store(val_ptr + BM + BN + 1, tl.max(y1max, axis=0))
    tl.store(val_ptr + S + rm, tl.min(ymin, axis=1), mask=rm < M)
    tl.store(val_ptr + S + BM + rn, tl.min(ymin, axis=0), mask=rn < N)
    tl.store(val_ptr + S + BM + BN, tl.min(ymin))
    tl.store(val_ptr + S + BM + BN + 1, tl.min(y1min, axis=0))
    if IS_INT:
        tl.store(val_ptr + 2 * S + rm, tl.xor_sum(y, axis=1), mask=rm < M)
        tl.store(val_ptr + 2 * S + BM + rn, tl.xor_sum(y, axis=0), mask=rn < N)
        tl.store(val_ptr + 2 * S + BM + BN, tl.xor_sum(y))
        tl.store(val_ptr + 2 * S + BM + BN + 1, tl.xor_sum(y1, axis=0))
    # argmax, argmin: rows, columns, 1-D
    tl.store(idx_ptr + rm, tl.argmax(ymax, axis=1), mask=rm < M)
    tl.store(idx_ptr + BM + rn, tl.argmax(ymax, axis=0), mask=rn < N)
    tl.store(idx_ptr + BM + BN, tl.argmax(y1max, axis=0))
    tl.store(idx_ptr + S + rm, tl.argmin(ymin, axis=1), mask=rm < M)
    tl.store(idx_ptr + S + BM + rn, tl.argmin(ymin, axis=0), mask=rn < N)
    tl.store(idx_ptr + S + BM + BN, tl.argmin(y1min, axis=0))


def _first_arg(values, better):
    best = 0
    for i, v in enumerate(values):
        if better(v, values[best]):
            best = i
    return best


def _sections(flat, m, n):
    """The row, column and whole-tensor groups of a row-major m x n tensor."""
    rows = [flat[i * n : (i + 1) * n] for i in range(m)]
    cols = [flat[j::n] for j in range(n)]
    return rows, cols


@pytest.mark.parametrize("name", NUMERIC)
def test_reductions(name):
    rng = np.random.default_rng(9)
    count = RM * RN
    integer = is_int(name)
    # Sums of small integers are exact in any order, even in bf16 (|partial sums| <= 200 < 2**8).
    x = from_values(values_of(random_ints("int8", count, rng, 0 if name.startswith("u") else -2, 2)), name)
    # max/min/arg*: values from a small pool, so ties are common (the first index must win).
    pool = values_of(random_values(name, 12, rng))
    y = from_values([pool[i] for i in rng.integers(0, 12, count)], name)
    if integer:
        minv, maxv = int_range(name)
    else:
        minv, maxv = -math.inf, math.inf
    sum_type = SUM_TYPE.get(name, name)
    s = 2 * (BM + BN + 2)
    sums = from_values([0] * (BM + BN + 2), sum_type)
    vals = from_values([0] * 3 * s, name)
    idx = torch.full((s,), -1, dtype=torch.int32)
    reduce_kernel[(1,)](
        x, y, sums, vals, idx, RM, RN, MINV=minv, MAXV=maxv, IS_INT=integer, BM=BM, BN=BN, B1=B1
    )
    xs, ys = values_of(x), values_of(y)
    xr, xc = _sections(xs, RM, RN)
    yr, yc = _sections(ys, RM, RN)
    c = Checks()
    total = [round_float(v, sum_type) if not integer else wrap(v, sum_type) for v in (sum(xs), sum(xs))]

    def fix(v):
        return wrap(v, sum_type) if integer else v

    c.values("sum(axis=1)", sums[:RM], [fix(sum(r)) for r in xr], sum_type)
    c.values("sum(axis=0)", sums[BM : BM + RN], [fix(sum(col)) for col in xc], sum_type)
    c.values("sum() of 2-D, sum(axis=0) of 1-D", sums[BM + BN :], total, sum_type)
    half = BM + BN + 2
    for base, fn, what in [(0, max, "max"), (half, min, "min")]:
        c.values(f"{what}(axis=1)", vals[base : base + RM], [fn(r) for r in yr], name)
        c.values(f"{what}(axis=0)", vals[base + BM : base + BM + RN], [fn(col) for col in yc], name)
        c.values(f"{what}() of 2-D and 1-D", vals[base + BM + BN : base + half], [fn(ys)] * 2, name)
    if integer:
        base = 2 * half

        def xor_all(vs):
            acc = 0
            for v in vs:
                acc ^= v
            return acc

        c.values("xor_sum(axis=1)", vals[base : base + RM], [xor_all(r) for r in yr], name)
        c.values("xor_sum(axis=0)", vals[base + BM : base + BM + RN], [xor_all(col) for col in yc], name)
        c.values("xor_sum() of 2-D and 1-D", vals[base + BM + BN : base + half], [xor_all(ys)] * 2, name)
    for base, better, what in [(0, lambda a, b: a > b, "argmax"), (half, lambda a, b: a < b, "argmin")]:
        c.values(f"{what}(axis=1)", idx[base : base + RM], [_first_arg(r, better) for r in yr], "int32")
        c.values(
            f"{what}(axis=0)",
            idx[base + BM : base + BM + RN],
            [_first_arg(col, better) for col in yc],
            "int32",
        )
        c.values(
            f"{what} of 1-D", idx[base + BM + BN : base + BM + BN + 1], [_first_arg(ys, better)], "int32"
        )
    c.done()


@pytest.mark.parametrize("name", FLOATS)
def test_float_sum_random_values(name):
    # Random values: the order of accumulation changes the result by at most a few roundings
    # (|error| <= n * eps * sum(|x|), whichever order the reduction uses).
    x = random_floats(name, RM * RN, np.random.default_rng(10))
    sums = from_values([0] * (BM + BN + 2), name)
    vals = from_values([0] * 3 * 2 * (BM + BN + 2), name)
    idx = torch.zeros(2 * (BM + BN + 2), dtype=torch.int32)
    reduce_kernel[(1,)](
        x, x, sums, vals, idx, RM, RN, MINV=-math.inf, MAXV=math.inf, IS_INT=False, BM=BM, BN=BN, B1=B1
    )
    xs = values_of(x)
    xr, xc = _sections(xs, RM, RN)
    eps = torch.finfo(TORCH[name]).eps
    c = Checks()
    for what, got, groups in [
        ("sum(axis=1)", sums[:RM], xr),
        ("sum(axis=0)", sums[BM : BM + RN], xc),
        ("sum()", sums[BM + BN :], [xs, xs]),
    ]:
        for i, (g, group) in enumerate(zip(values_of(got), groups)):
            bound = len(group) * eps * sum(abs(v) for v in group) + 1e-30
            if abs(g - math.fsum(group)) > bound:
                c.failures.append(f"{what}[{i}]: got {g}, want {math.fsum(group)} within {bound}")
    c.done()


# ---------------------------------------------------------------------------------------------
# cumsum and cumprod: 1-D forward and reverse, 2-D along each axis
# ---------------------------------------------------------------------------------------------


@triton.jit
def scan_kernel(x_ptr, p_ptr, out_ptr, n, M: tl.constexpr, N: tl.constexpr, B1: tl.constexpr):
    r = tl.arange(0, B1)
    m = r < n
    x = tl.load(x_ptr + r, mask=m, other=0)
    p = tl.load(p_ptr + r, mask=m, other=1)
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    m2 = offs < n
    x2 = tl.load(x_ptr + offs, mask=m2, other=0)
    p2 = tl.load(p_ptr + offs, mask=m2, other=1)
    tl.store(out_ptr + r, tl.cumsum(x, axis=0), mask=m)
    tl.store(out_ptr + B1 + r, tl.cumsum(x, axis=0, reverse=True), mask=m)
    tl.store(out_ptr + 2 * B1 + offs, tl.cumsum(x2, axis=0), mask=m2)
    tl.store(out_ptr + 3 * B1 + offs, tl.cumsum(x2, axis=1), mask=m2)
    tl.store(out_ptr + 4 * B1 + r, tl.cumprod(p, axis=0), mask=m)
    tl.store(out_ptr + 5 * B1 + r, tl.cumprod(p, axis=0, reverse=True), mask=m)
    tl.store(out_ptr + 6 * B1 + offs, tl.cumprod(p2, axis=0), mask=m2)
    tl.store(out_ptr + 7 * B1 + offs, tl.cumprod(p2, axis=1), mask=m2)


def _scan(values, op):
    out, acc = [], None
    for v in values:
        acc = v if acc is None else op(acc, v)
        out.append(acc)
    return out


@pytest.mark.parametrize("name", NUMERIC)
def test_scans(name):
    rng = np.random.default_rng(11)
    integer, unsigned = is_int(name), name.startswith("u")
    # Exact in every dtype and order: sums of |x| <= 2 stay below 2**8 (bf16's exact integers);
    # products of -1, 1 and at most 12 twos stay below 2**15 (fp16); integers wrap mod 2**bits,
    # which does not depend on the order either (so they get threes too).
    x = from_values(values_of(random_ints("int8", N, rng, 0 if unsigned else -2, 2)), name)
    choices = ([1, 2, 3] if unsigned else [-1, 1, 2, 3]) if integer else [-1, 1, 1, 1, 1, 1, 1, 2]
    ps = [choices[i] for i in rng.integers(0, len(choices), N)]
    if not integer:
        twos = [i for i, v in enumerate(ps) if v == 2]
        for i in twos[12:]:
            ps[i] = 1
    p = from_values(ps, name)
    out_type = SUM_TYPE.get(name, name)
    M, NC = 8, 16  # 2-D scans over the first 100 elements as 8 x 16 (the tail masked)
    out = from_values([0] * 8 * B1, out_type)
    scan_kernel[(1,)](x, p, out, N, M=M, N=NC, B1=B1)
    xs = values_of(x)

    def fix(vs):
        return [wrap(v, out_type) if integer else round_float(float(v), out_type) for v in vs]

    def rows_cols(values, op, fill):
        padded = values + [fill] * (M * NC - len(values))
        rows = [_scan(padded[i * NC : (i + 1) * NC], op) for i in range(M)]
        cols = [_scan(padded[j::NC], op) for j in range(NC)]
        along0 = [cols[j][i] for i in range(M) for j in range(NC)][:N]
        along1 = [v for row in rows for v in row][:N]
        return along0, along1

    c = Checks()
    for base, vs, op, fill, what in [
        (0, xs, lambda a, b: a + b, 0, "cumsum"),
        (4, ps, lambda a, b: a * b, 1, "cumprod"),
    ]:
        along0, along1 = rows_cols(vs, op, fill)
        c.values(what, out[base * B1 : base * B1 + N], fix(_scan(vs, op)), out_type)
        c.values(
            f"{what}(reverse)",
            out[(base + 1) * B1 : (base + 1) * B1 + N],
            fix(_scan(vs[::-1], op)[::-1]),
            out_type,
        )
        c.values(f"{what}(axis=0) of 2-D", out[(base + 2) * B1 : (base + 2) * B1 + N], fix(along0), out_type)
        c.values(f"{what}(axis=1) of 2-D", out[(base + 3) * B1 : (base + 3) * B1 + N], fix(along1), out_type)
    c.done()


# ---------------------------------------------------------------------------------------------
# tl.dot
# ---------------------------------------------------------------------------------------------


@triton.jit
def dot_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=c_ptr.dtype.element_ty)
    for k in range(tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(
            a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0
        )
        b = tl.load(
            b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0
        )
        acc += tl.dot(a, b, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def batched_dot_kernel(
    a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr
):
    rb = tl.arange(0, B)[:, None, None]
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb * K * N + rk[None, :, None] * N + rn[None, None, :])
    c = tl.dot(a, b, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + rb * M * N + rm[None, :, None] * N + rn[None, None, :], c)


# What triton allows: int8 -> int32, fp16 -> fp16/fp32, bf16 -> fp32, fp32 -> fp32, fp64 -> fp64.
DOT_TYPES = [
    ("int8", "int32"),
    ("float16", "float32"),
    ("float16", "float16"),
    ("bfloat16", "float32"),
    ("float32", "float32"),
    ("float64", "float64"),
]


def dot_operands(in_type, shape, rng):
    if in_type == "int8":
        return random_ints("int8", int(np.prod(shape)), rng).reshape(shape)
    return random_floats(in_type, int(np.prod(shape)), rng).reshape(shape)


def check_dot(c, got, a, b, out_type):
    want = a.double() @ b.double()
    if out_type == "int32":
        c.values("dot", got.flatten(), [wrap(int(v), "int32") for v in want.flatten().tolist()], "int32")
        return
    # Any order of accumulation is within K * eps of sum(|a| |b|) of the exact result; products
    # of fp16/bf16 are exact in fp32.
    bound = (a.shape[-1] + 2) * torch.finfo(TORCH[out_type]).eps * (
        a.double().abs() @ b.double().abs()
    ) + 1e-30
    err = (got.double() - want).abs()
    if not bool((err <= bound).all()):
        worst = int((err / bound).flatten().argmax())
        c.failures.append(
            f"dot: {int((err > bound).sum())} elements off; worst [{worst}] got "
            f"{got.flatten()[worst].item()} want {want.flatten()[worst].item()}"
        )


@pytest.mark.parametrize("in_type, out_type", DOT_TYPES)
def test_dot(in_type, out_type):
    rng = np.random.default_rng(12)
    M, Nn, K = 33, 20, 40  # tails in every dimension with 16 x 16 x 16 blocks
    a, b = dot_operands(in_type, (M, K), rng), dot_operands(in_type, (K, Nn), rng)
    out = torch.zeros(M, Nn, dtype=TORCH[out_type])
    dot_kernel[(triton.cdiv(M, 16), triton.cdiv(Nn, 16))](
        a, b, out, M, Nn, K, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16
    )
    c = Checks()
    check_dot(c, out, a, b, out_type)
    a3, b3 = dot_operands(in_type, (2, 16, 32), rng), dot_operands(in_type, (2, 32, 16), rng)
    out3 = torch.zeros(2, 16, 16, dtype=TORCH[out_type])
    batched_dot_kernel[(1,)](a3, b3, out3, B=2, M=16, N=16, K=32)
    check_dot(c, out3, a3, b3, out_type)
    c.done()


# ---------------------------------------------------------------------------------------------
# Atomics under the parallel grid
# ---------------------------------------------------------------------------------------------

ATOMIC_N, ATOMIC_BLOCK, SLOTS = 1000, 64, 8  # 16 programs (the last has a tail) on 8 addresses
RMW_TYPES = ["int32", "int64", "uint32", "uint64", "float16", "bfloat16", "float32", "float64"]


@triton.jit
def atomic_rmw_kernel(
    v_ptr,
    w_ptr,
    add_ptr,
    count_ptr,
    ticket_ptr,
    max_ptr,
    min_ptr,
    xchg_ptr,
    old_ptr,
    n,
    SLOTS: tl.constexpr,
    ALL_OPS: tl.constexpr,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    slot = offs % SLOTS
    v = tl.load(v_ptr + offs, mask=mask)
    tl.atomic_add(add_ptr + slot, v, mask=mask)
    # Adding 1s: the old values one address returns are its initial value plus 0, 1, 2, ...
    ticket = tl.atomic_add(count_ptr + slot, tl.full([BLOCK], 1, v.dtype), mask=mask)
    tl.store(ticket_ptr + offs, ticket, mask=mask)
    if ALL_OPS:
        w = tl.load(w_ptr + offs, mask=mask)
        tl.atomic_max(max_ptr + slot, w, mask=mask)
        tl.atomic_min(min_ptr + slot, w, mask=mask)
        tl.store(old_ptr + offs, tl.atomic_xchg(xchg_ptr + slot, w, mask=mask), mask=mask)


@pytest.mark.parametrize("name", RMW_TYPES)
def test_atomic_rmw(name):
    rng = np.random.default_rng(13)
    integer = is_int(name)
    all_ops = name not in ("float16", "bfloat16")  # triton: fp16/bf16 atomics are add only
    # Integer sums wrap mod 2**bits in any order; float sums of {-1, 0, 1} stay exact (|sum| <= 125).
    v = (
        random_ints(name, ATOMIC_N, rng)
        if integer
        else from_values(values_of(random_ints("int8", ATOMIC_N, rng, -1, 1)), name)
    )
    w = random_values(name, ATOMIC_N, rng)
    init = values_of(random_values(name, SLOTS, rng))
    init_small = values_of(random_ints("int8", SLOTS, rng, 0, 100))
    add, count = from_values(init_small, name), from_values(init_small, name)
    mx, mn, xchg = from_values(init, name), from_values(init, name), from_values(init, name)
    tickets, old = from_values([0] * ATOMIC_N, name), from_values([0] * ATOMIC_N, name)
    grid = (triton.cdiv(ATOMIC_N, ATOMIC_BLOCK),)
    atomic_rmw_kernel[grid](
        v,
        w,
        add,
        count,
        tickets,
        mx,
        mn,
        xchg,
        old,
        ATOMIC_N,
        SLOTS=SLOTS,
        ALL_OPS=all_ops,
        BLOCK=ATOMIC_BLOCK,
    )
    vs, ws, ts, olds = values_of(v), values_of(w), values_of(tickets), values_of(old)
    per_slot = [list(range(s, ATOMIC_N, SLOTS)) for s in range(SLOTS)]
    c = Checks()

    def fix(value):
        return wrap(value, name) if integer else float(value)

    c.values(
        "atomic_add",
        add,
        [fix(init_small[s] + sum(vs[i] for i in idx)) for s, idx in enumerate(per_slot)],
        name,
    )
    c.values(
        "atomic_add of 1s", count, [fix(init_small[s] + len(idx)) for s, idx in enumerate(per_slot)], name
    )
    for s, idx in enumerate(per_slot):
        got = sorted(ts[i] for i in idx)
        if got != [fix(init_small[s] + k) for k in range(len(idx))]:
            c.failures.append(f"atomic_add returns at address {s}: {got[:6]}...")
    if all_ops:
        c.values(
            "atomic_max", mx, [max([init[s]] + [ws[i] for i in idx]) for s, idx in enumerate(per_slot)], name
        )
        c.values(
            "atomic_min", mn, [min([init[s]] + [ws[i] for i in idx]) for s, idx in enumerate(per_slot)], name
        )
        final = values_of(xchg)
        for s, idx in enumerate(per_slot):
            # Every value is swapped in once and out once: what went in equals what came out.
            if sorted([init[s]] + [ws[i] for i in idx]) != sorted([final[s]] + [olds[i] for i in idx]):
                c.failures.append(f"atomic_xchg at address {s}: values lost or duplicated")
    c.done()


CAS_TYPES = [
    "int16",
    "uint16",
    "float16",
    "bfloat16",
    "int32",
    "uint32",
    "float32",
    "int64",
    "uint64",
    "float64",
]
CAS_PROGRAMS, CAS_BLOCK = 16, 32


@triton.jit
def atomic_cas_kernel(
    mem_ptr, cmp_ptr, val_ptr, old_ptr, flag_ptr, zero_ptr, ids_ptr, wins_ptr, BLOCK: tl.constexpr
):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    old = tl.atomic_cas(mem_ptr + offs, tl.load(cmp_ptr + offs), tl.load(val_ptr + offs))
    tl.store(old_ptr + offs, old)
    # Every program tries to claim the same flag: exactly one finds it 0.
    tl.store(wins_ptr + pid, tl.atomic_cas(flag_ptr, tl.load(zero_ptr), tl.load(ids_ptr + pid)))


@pytest.mark.parametrize("name", CAS_TYPES)
def test_atomic_cas(name):
    rng = np.random.default_rng(14)
    n = CAS_PROGRAMS * CAS_BLOCK
    # Random bits (NaNs too): compare-and-swap compares bits.
    mem, val, other = random_bits(name, n, rng), random_bits(name, n, rng), random_bits(name, n, rng)
    equal = rng.integers(0, 2, n).tolist()
    cmp = from_bits([m if e else o for m, o, e in zip(bits_of(mem), bits_of(other), equal)], name)
    old = from_values([0] * n, name)
    flag, zero = from_values([0], name), from_values([0], name)
    ids = from_values(list(range(1, CAS_PROGRAMS + 1)), name)
    wins = from_values([0] * CAS_PROGRAMS, name)
    mem_bits, cmp_bits, val_bits = bits_of(mem), bits_of(cmp), bits_of(val)
    atomic_cas_kernel[(CAS_PROGRAMS,)](mem, cmp, val, old, flag, zero, ids, wins, BLOCK=CAS_BLOCK)
    c = Checks()
    c.bits("atomic_cas returns", old, mem_bits)
    c.bits("atomic_cas stores", mem, [v if m == k else m for m, k, v in zip(mem_bits, cmp_bits, val_bits)])
    winner, got = values_of(flag)[0], values_of(wins)
    if not (got.count(0) == 1 and got.index(0) + 1 == winner and got.count(winner) == CAS_PROGRAMS - 1):
        c.failures.append(f"contended atomic_cas: flag {winner}, programs saw {got}")
    c.done()


# ---------------------------------------------------------------------------------------------
# tl.sort and tl.flip
# ---------------------------------------------------------------------------------------------


@triton.jit
def sort_flip_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.sort(x))
    tl.store(out_ptr + M * N + offs, tl.sort(x, descending=True))
    tl.store(out_ptr + 2 * M * N + offs, tl.flip(x, 0))
    tl.store(out_ptr + 3 * M * N + offs, tl.flip(x, 1))


@pytest.mark.parametrize("name", ALL)
def test_sort_flip(name):
    rng = np.random.default_rng(15)
    M, NC = 2, 16
    pool = values_of(random_values(name, 24, rng))
    if name in FLOATS:
        pool[:3] = [math.inf, -math.inf, 0.0]
    xs = [pool[i] for i in rng.integers(0, len(pool), M * NC)]  # duplicates
    x = from_values(xs, name)
    out = from_values([0] * 4 * M * NC, name)
    sort_flip_kernel[(1,)](x, out, M=M, N=NC)
    rows = [xs[i * NC : (i + 1) * NC] for i in range(M)]
    c = Checks()
    c.values("sort", out[: M * NC], [v for r in rows for v in sorted(r)], name)
    c.values(
        "sort(descending)", out[M * NC : 2 * M * NC], [v for r in rows for v in sorted(r, reverse=True)], name
    )
    c.values(
        "flip(0)", out[2 * M * NC : 3 * M * NC], [v for r in rows[::-1] for v in r], name, signed_zero=True
    )
    c.values("flip(1)", out[3 * M * NC :], [v for r in rows for v in r[::-1]], name, signed_zero=True)
    c.done()


# ---------------------------------------------------------------------------------------------
# What triton's frontend forbids: a clear compile error naming the op and its source line
# ---------------------------------------------------------------------------------------------


@triton.jit
def forbidden_kernel(x_ptr, y_ptr, out_ptr, OP: tl.constexpr):
    r = tl.arange(0, 16)
    x = tl.load(x_ptr + r)
    y = tl.load(y_ptr + r)
    if OP == "//":
        tl.store(out_ptr + r, x // y)
    elif OP == "&":
        tl.store(out_ptr + r, x & y)
    elif OP == "<<":
        tl.store(out_ptr + r, x << y)
    elif OP == "~":
        tl.store(out_ptr + r, ~x)
    elif OP == "exp":
        tl.store(out_ptr + r, tl.exp(x))
    elif OP == "bitcast":
        tl.store(out_ptr + r, x.to(tl.int32, bitcast=True))
    elif OP == "xor_sum":
        tl.store(out_ptr, tl.xor_sum(x, axis=0))
    elif OP == "atomic_add":
        tl.atomic_add(out_ptr + r, x)
    elif OP == "atomic_max":
        tl.atomic_max(out_ptr + r, x)
    elif OP == "atomic_xchg":
        tl.atomic_xchg(out_ptr + r, x)
    elif OP == "atomic_cas":
        tl.atomic_cas(out_ptr + r, x, y)
    elif OP == "dot":
        a = tl.reshape(x, (4, 4))
        tl.store(out_ptr + r, tl.reshape(tl.dot(a, tl.reshape(y, (4, 4))), (16,)))
    elif OP == "dot_bf16_out":
        a = tl.reshape(x, (4, 4))
        tl.store(out_ptr + r, tl.reshape(tl.dot(a, tl.reshape(y, (4, 4)), out_dtype=tl.bfloat16), (16,)))


FORBIDDEN = (
    [
        ("//", "float32", "float32", "unexpected type fp32"),
        ("//", "float16", "float16", "unexpected type fp32"),
        (
            "&",
            "float32",
            "float32",
            "invalid operands of type triton.language.float32 and triton.language.float32",
        ),
        (
            "<<",
            "float64",
            "float64",
            "invalid operands of type triton.language.float64 and triton.language.float64",
        ),
        ("~", "bfloat16", "bfloat16", "wrong type argument to unary invert (triton.language.bfloat16)"),
        ("exp", "float16", "float16", "Expected dtype ['fp32', 'fp64'] but got fp16"),
        ("exp", "bfloat16", "bfloat16", "Expected dtype ['fp32', 'fp64'] but got bf16"),
        ("exp", "int32", "float32", "Expected dtype ['fp32', 'fp64'] but got int32"),
        ("bitcast", "int16", "int32", "Cannot bitcast data-type of size 16 to data-type of size 32"),
        ("xor_sum", "float32", "float32", "xor_sum only supported for integers"),
    ]
    + [
        (op, name, name, f"{op} does not support {tl_name}")
        for op in ("atomic_add", "atomic_max", "atomic_xchg")
        for name, tl_name in [
            ("int8", "int8"),
            ("uint8", "uint8"),
            ("int16", "int16"),
            ("uint16", "uint16"),
            ("bool", "int1"),
        ]
    ]
    + [
        ("atomic_max", "float16", "float16", "atomic_max does not support fp16"),
        ("atomic_max", "bfloat16", "bfloat16", "atomic_max does not support bf16"),
        ("atomic_xchg", "float16", "float16", "atomic_xchg does not support fp16"),
        ("atomic_xchg", "bfloat16", "bfloat16", "atomic_xchg does not support bf16"),
        ("atomic_cas", "int8", "int8", "atomic_cas only supports elements with width {16, 32, 64}"),
        ("atomic_cas", "uint8", "uint8", "atomic_cas only supports elements with width {16, 32, 64}"),
        ("dot", "uint8", "int32", "only int8 supported!"),
        ("dot", "int16", "int32", "Unsupported lhs dtype int16"),
        ("dot", "int32", "int32", "Unsupported lhs dtype int32"),
        ("dot_bf16_out", "bfloat16", "float32", "out_dtype=bfloat16 is unsupported"),
    ]
)


@pytest.mark.parametrize(
    "op, name, out_name, message", FORBIDDEN, ids=[f"{op}-{name}" for op, name, _, _ in FORBIDDEN]
)
def test_forbidden_is_a_compile_error(op, name, out_name, message):
    x = from_values([1] * 16, name)
    out = from_values([0] * 16, out_name)
    with pytest.raises(triton.CompilationError) as error:
        forbidden_kernel[(1,)](x, x, out, OP=op)
    text = str(error.value)
    # Errors inside triton's own jit functions (tl.xor_sum) carry the message in their cause.
    causes, cause = [], error.value.__cause__
    while cause is not None:
        causes.append(str(cause))
        cause = cause.__cause__
    assert any(message in t for t in [text, *causes]), "\n".join([text, *causes])
    # The error points at the offending source line: the line above the caret.
    lines = text.splitlines()
    caret = next(i for i, line in enumerate(lines) if line.strip() == "^")
    assert FORBIDDEN_SOURCE[op] in lines[caret - 1], text


FORBIDDEN_SOURCE = {
    "//": "x // y",
    "&": "x & y",
    "<<": "x << y",
    "~": "~x",
    "exp": "tl.exp(x)",
    "bitcast": "bitcast=True",
    "xor_sum": "tl.xor_sum(",
    "atomic_add": "tl.atomic_add(",
    "atomic_max": "tl.atomic_max(",
    "atomic_xchg": "tl.atomic_xchg(",
    "atomic_cas": "tl.atomic_cas(",
    "dot": "tl.dot(",
    "dot_bf16_out": "tl.dot(",
}
