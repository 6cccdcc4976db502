"""tl.randint / tl.rand / tl.randn (and their 4x forms, tl.philox) against a NumPy Philox4x32-10.

The reference implements Philox as triton/language/random.py specifies it (Salmon et al., SC'11,
with triton's round and key constants, the seed split into two 32-bit key words, the offset into
counter words 0 and 1): integers and uniform floats must match bit for bit. Normal samples go
through log/sqrt/cos, which the backend approximates, so they are compared with the Box-Muller
transform of the same uniforms within a tolerance. Statistics over a million samples check the
distributions with bounds at five standard errors; the seeds are fixed, so the tests are
deterministic.
"""

import numpy as np
import pytest
import scipy.stats
import torch
import triton
import triton.language as tl

ROUND_A_32, ROUND_B_32 = 0xD2511F53, 0xCD9E8D57
KEY_A_32, KEY_B_32 = 0x9E3779B9, 0xBB67AE85
ROUND_A_64, ROUND_B_64 = 0xD2E7470EE14C6C93, 0xCA5A826395121157
KEY_A_64, KEY_B_64 = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B
M32 = np.uint64(0xFFFFFFFF)


def philox32(c0, c1, c2, c3, k0, k1, rounds=10):
    """Philox4x32 on uint64 arrays holding 32-bit words (products fit in 64 bits)."""
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) & M32 for c in (c0, c1, c2, c3))
    k0, k1 = np.uint64(k0) & M32, np.uint64(k1) & M32
    a, b = np.uint64(ROUND_A_32), np.uint64(ROUND_B_32)
    for _ in range(rounds):
        pb, pa = b * c2, a * c0
        c0, c1, c2, c3 = (
            (pb >> np.uint64(32)) ^ c1 ^ k0,
            pb & M32,
            (pa >> np.uint64(32)) ^ c3 ^ k1,
            pa & M32,
        )
        k0, k1 = (k0 + np.uint64(KEY_A_32)) & M32, (k1 + np.uint64(KEY_B_32)) & M32
    return c0, c1, c2, c3


def philox64(c0, c1, c2, c3, k0, k1, rounds=10):
    """Philox4x64 on Python ints (128-bit products)."""
    mask = (1 << 64) - 1
    out = []
    for w in zip(c0, c1, c2, c3):
        x0, x1, x2, x3 = (int(v) & mask for v in w)
        key0, key1 = k0, k1
        for _ in range(rounds):
            pb, pa = ROUND_B_64 * x2, ROUND_A_64 * x0
            x0, x1, x2, x3 = (pb >> 64) ^ x1 ^ key0, pb & mask, (pa >> 64) ^ x3 ^ key1, pa & mask
            key0, key1 = (key0 + KEY_A_64) & mask, (key1 + KEY_B_64) & mask
        out.append((x0, x1, x2, x3))
    return [np.array([o[i] for o in out], dtype=np.uint64) for i in range(4)]


def randint4x_reference(seed, offsets, rounds=10):
    offsets = np.asarray(offsets, dtype=np.int64).astype(np.uint64)
    zero = np.zeros_like(offsets)
    hi = offsets >> np.uint64(32) if offsets.dtype == np.uint64 else zero
    return philox32(offsets & M32, hi, zero, zero, seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF, rounds)


def to_uniform(words):
    """uint_to_uniform_float for 32-bit words: as int32, negatives complemented, times the scale in f32."""
    x = (words.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    x = np.where(x < 0, ~x, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def box_muller(u1, u2):
    u1 = np.maximum(np.float32(1e-7), u1).astype(np.float64)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2.astype(np.float64))


@triton.jit
def random_kernel(
    seed,
    offset_base,
    int_ptr,
    float_ptr,
    normal_ptr,
    n,
    BLOCK: tl.constexpr,
    WIDE_OFFSETS: tl.constexpr,
    ROUNDS: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if WIDE_OFFSETS:
        offsets = offs.to(tl.int64) + offset_base
    else:
        offsets = offs + offset_base
    i0, i1, i2, i3 = tl.randint4x(seed, offsets, ROUNDS)
    tl.store(int_ptr + offs, i0.to(tl.int32, bitcast=True), mask=mask)
    tl.store(int_ptr + n + offs, i1.to(tl.int32, bitcast=True), mask=mask)
    tl.store(int_ptr + 2 * n + offs, i2.to(tl.int32, bitcast=True), mask=mask)
    tl.store(int_ptr + 3 * n + offs, i3.to(tl.int32, bitcast=True), mask=mask)
    tl.store(int_ptr + 4 * n + offs, tl.randint(seed, offsets, ROUNDS).to(tl.int32, bitcast=True), mask=mask)
    tl.store(float_ptr + offs, tl.rand(seed, offsets, ROUNDS), mask=mask)
    u0, u1, u2, u3 = tl.rand4x(seed, offsets, ROUNDS)
    tl.store(float_ptr + n + offs, u0, mask=mask)
    tl.store(float_ptr + 2 * n + offs, u1, mask=mask)
    tl.store(float_ptr + 3 * n + offs, u2, mask=mask)
    tl.store(float_ptr + 4 * n + offs, u3, mask=mask)
    tl.store(normal_ptr + offs, tl.randn(seed, offsets, ROUNDS), mask=mask)
    n0, n1, n2, n3 = tl.randn4x(seed, offsets, ROUNDS)
    tl.store(normal_ptr + n + offs, n0, mask=mask)
    tl.store(normal_ptr + 2 * n + offs, n1, mask=mask)
    tl.store(normal_ptr + 3 * n + offs, n2, mask=mask)
    tl.store(normal_ptr + 4 * n + offs, n3, mask=mask)


def generate(seed, n, offset_base=0, wide=False, rounds=10, block=1024):
    ints = torch.empty(5, n, dtype=torch.int32)
    floats = torch.empty(5, n)
    normals = torch.empty(5, n)
    random_kernel[(triton.cdiv(n, block),)](
        seed, offset_base, ints, floats, normals, n, BLOCK=block, WIDE_OFFSETS=wide, ROUNDS=rounds
    )
    return ints, floats, normals


CASES = [
    {"seed": 0, "offset_base": 0},
    {"seed": 12345, "offset_base": 7},
    {"seed": 0xDEADBEEF12345678, "offset_base": 3},  # both key words
    {"seed": 2**63 - 1, "offset_base": 2**33 + 5, "wide": True},  # both counter words
    {"seed": 42, "offset_base": 0, "rounds": 7},
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_matches_reference_philox(case):
    n = 3000  # a masked last block
    ints, floats, normals = generate(n=n, **case)
    offsets = np.arange(n, dtype=np.int64) + case["offset_base"]
    words = randint4x_reference(case["seed"], offsets, case.get("rounds", 10))
    expected_ints = np.stack([*words, words[0]]).astype(np.int64)
    assert np.array_equal(ints.numpy().astype(np.int64) & 0xFFFFFFFF, expected_ints)
    uniforms = [to_uniform(w) for w in words]
    expected_floats = np.stack([uniforms[0], *uniforms])
    assert np.array_equal(floats.numpy().view(np.int32), expected_floats.view(np.int32))
    # randn = Box-Muller of the first two uniforms; randn4x pairs (u0, u1) and (u2, u3).
    expected_normals = np.stack(
        [
            box_muller(uniforms[0], uniforms[1]),
            box_muller(uniforms[0], uniforms[1]),
            np.sqrt(-2.0 * np.log(np.maximum(np.float32(1e-7), uniforms[0]).astype(np.float64)))
            * np.sin(6.283185307179586 * uniforms[1].astype(np.float64)),
            box_muller(uniforms[2], uniforms[3]),
            np.sqrt(-2.0 * np.log(np.maximum(np.float32(1e-7), uniforms[2]).astype(np.float64)))
            * np.sin(6.283185307179586 * uniforms[3].astype(np.float64)),
        ]
    )
    np.testing.assert_allclose(normals.numpy(), expected_normals, rtol=2e-5, atol=2e-5)


def test_deterministic_and_offset_addressed():
    a = generate(seed=99, n=2048)
    b = generate(seed=99, n=2048)
    for x, y in zip(a, b):
        assert torch.equal(x, y)
    # The stream is addressed by offset: shifting the offsets shifts the values.
    shifted = generate(seed=99, n=2048 - 100, offset_base=100)
    for x, y in zip(a, shifted):
        assert torch.equal(x[:, 100:], y)
    # Another seed, other numbers.
    other = generate(seed=100, n=2048)
    assert (other[0] != a[0]).float().mean() > 0.99


@triton.jit
def philox64_kernel(seed, c_ptr, out_ptr, uniform_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    c0 = tl.load(c_ptr + offs)
    c1 = tl.load(c_ptr + BLOCK + offs)
    r0, r1, r2, r3 = tl.philox(seed, c0, c1, c0 * 3, c1 ^ 0x5555, 10)
    tl.store(out_ptr + offs, r0.to(tl.int64, bitcast=True))
    tl.store(out_ptr + BLOCK + offs, r1.to(tl.int64, bitcast=True))
    tl.store(out_ptr + 2 * BLOCK + offs, r2.to(tl.int64, bitcast=True))
    tl.store(out_ptr + 3 * BLOCK + offs, r3.to(tl.int64, bitcast=True))
    tl.store(uniform_ptr + offs, tl.random.uint_to_uniform_float(r0))


def test_philox_64_bit_counters():
    g = torch.Generator().manual_seed(3)
    c = torch.randint(-(2**63), 2**63 - 1, (2, 64), generator=g, dtype=torch.int64)
    out = torch.empty(4, 64, dtype=torch.int64)
    uniform = torch.empty(64)
    seed = 0x0123456789ABCDEF
    philox64_kernel[(1,)](seed, c, out, uniform, BLOCK=64)
    mask = (1 << 64) - 1
    c0, c1 = ([v & mask for v in row] for row in c.tolist())
    words = philox64(c0, c1, [(v * 3) & mask for v in c0], [v ^ 0x5555 for v in c1], seed, 0)
    assert np.array_equal(out.numpy().view(np.uint64), np.stack(words))
    x = words[0].view(np.int64)
    x = np.where(x < 0, ~x, x)
    assert np.array_equal(uniform.numpy(), x.astype(np.float32) * np.float32(1.0842020432385337e-19))


def test_distributions():
    n = 1 << 20
    ints, floats, normals = generate(seed=2024, n=n, block=4096)
    sigmas = 5

    # rand: [0, 1), mean 1/2, variance 1/12, flat histogram.
    for u in floats.double():
        assert u.min() >= 0 and u.max() < 1
        assert abs(u.mean() - 0.5) < sigmas * (1 / 12) ** 0.5 / n**0.5
        # The standard error of the variance of U(0, 1): sqrt((1/80 - 1/144) / n).
        assert abs(u.var() - 1 / 12) < sigmas * (1 / 80 - 1 / 144) ** 0.5 / n**0.5
        counts = torch.histc(u, bins=256, min=0, max=1)
        chi2 = ((counts - n / 256) ** 2 / (n / 256)).sum().item()
        assert chi2 < scipy.stats.chi2.ppf(1 - 1e-6, df=255)

    # randint: every bit set half of the time.
    words = ints.numpy().astype(np.int64) & 0xFFFFFFFF
    for w in words:
        frequency = np.array([((w >> b) & 1).mean() for b in range(32)])
        assert np.all(np.abs(frequency - 0.5) < sigmas * 0.5 / n**0.5)

    # randn: mean 0, variance 1, normal by Kolmogorov-Smirnov.
    for z in normals.double():
        assert abs(z.mean()) < sigmas / n**0.5
        assert abs(z.var() - 1) < sigmas * 2**0.5 / n**0.5
        assert scipy.stats.kstest(z.numpy(), "norm").pvalue > 1e-6
    # The four streams of randint4x are uncorrelated.
    corr = np.corrcoef(floats[1:].numpy())
    assert np.all(np.abs(corr - np.eye(4)) < sigmas / n**0.5)
