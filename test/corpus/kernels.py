"""Ordinary @triton.jit kernels from which the TTIR corpus (test/corpus/ttir/) is generated.

The kernels are written from triton's documented language semantics to cover what users write:
the tutorial kernels (vector add, fused softmax, matmul, layer norm, dropout), tensor descriptors
(triton 3.9's replacement for block pointers), reductions and scans with custom combine functions,
atomics, integer and mixed-precision dots, debugging ops, multi-dimensional grids, control flow and
the tensor-shape ops. They are plain kernels: later tests may also launch them against torch.

generate.py decides how each kernel is specialised (signature, constexprs, alignment); keep the
two files in sync when adding a kernel.
"""

import triton
import triton.language as tl

# ---------------------------------------------------------------------------------------------
# Elementwise


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def where_clamp(x_ptr, y_ptr, out_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    # select, min/max (NaN-propagating and not) and a float clamp (tt.clampf)
    z = tl.where(x > y, x - y, y * 2.0)
    z = tl.maximum(z, lo)
    z = tl.minimum(z, hi, propagate_nan=tl.PropagateNan.ALL)
    z = tl.clamp(z, lo, hi)
    z = tl.where(mask & (x != x), 0.0, z)  # noqa: PLR0124 (NaN test)
    tl.store(out_ptr + offs, z, mask=mask)


@triton.jit
def math_funcs(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    a = tl.exp(x) + tl.log(tl.abs(x) + 1.0) + tl.sqrt(tl.abs(x)) + tl.sin(x) + tl.cos(x)
    b = tl.exp2(x) * tl.log2(tl.abs(x) + 2.0) + tl.rsqrt(x * x + 1.0) + tl.erf(x)
    c = tl.floor(x) + tl.ceil(x) + tl.fma(x, x, 1.0) + tl.sigmoid(x)
    d = tl.sqrt_rn(tl.abs(x)) + tl.div_rn(x, 3.0) + tl.fdiv(x, 7.0) + x % 2.0
    tl.store(out_ptr + offs, a + b + c + d, mask=mask)


@triton.jit
def casts(f32_ptr, f16_ptr, bf16_ptr, i32_ptr, u8_ptr, f64_ptr, i1_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(f32_ptr + offs, mask=mask, other=0.0)
    # float narrowing with the default and the round-toward-zero modes, widening back
    h = x.to(tl.float16)
    hz = x.to(tl.float16, fp_downcast_rounding="rtz")
    b = x.to(tl.bfloat16)
    tl.store(f16_ptr + offs, h + hz, mask=mask)
    tl.store(bf16_ptr + offs, b, mask=mask)
    # float <-> int (signed, unsigned, narrow), bitcast, fp8 round trip, fp64, i1
    i = x.to(tl.int32)
    u = (x * 10.0).to(tl.uint8)
    bits = x.to(tl.int32, bitcast=True) ^ 0x7F
    f8 = x.to(tl.float8e5).to(tl.float32)
    d = x.to(tl.float64) * 2.0 + i.to(tl.float64) + u.to(tl.float64) + f8.to(tl.float64)
    tl.store(i32_ptr + offs, i + bits, mask=mask)
    tl.store(u8_ptr + offs, u, mask=mask)
    tl.store(f64_ptr + offs, d, mask=mask)
    tl.store(i1_ptr + offs, x > 0.5, mask=mask)


@triton.jit
def int_bitwise(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    r = (a & b) | (a ^ (b << 3)) | (a >> 2)
    r += a // b + a % b
    r += tl.umulhi(a.to(tl.uint32), b.to(tl.uint32)).to(tl.int32)
    r += (a.to(tl.uint32) >> 5).to(tl.int32)
    r += tl.where(a < b, tl.minimum(a, b), tl.maximum(a, b))
    r += tl.abs(a) + (-b) + (~a)
    tl.store(out_ptr + offs, r, mask=mask)


@triton.jit
def int8_arith(a_ptr, b_ptr, out_ptr, sum_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    # wrap-around int8 arithmetic, widening to int32 for the accumulation, requantisation
    c = a * b + a - b
    wide = a.to(tl.int32) * b.to(tl.int32)
    q = tl.clamp((wide.to(tl.float32) * scale).to(tl.int32), -128, 127).to(tl.int8)
    tl.store(out_ptr + offs, c + q, mask=mask)
    tl.store(sum_ptr + tl.program_id(0), tl.sum(wide, axis=0))


@triton.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # Philox stream keyed by (seed, element index): the mask is reproducible from the seed alone
    keep = tl.rand(seed, offs) > p
    out = tl.where(keep, x / (1 - p), 0.0)
    tl.store(out_ptr + offs, out, mask=mask)


@triton.jit
def randint4(out_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    r0, r1, r2, r3 = tl.randint4x(seed, offs)
    tl.store(out_ptr + offs, r0 ^ r1 ^ r2 ^ r3, mask=offs < n)


# ---------------------------------------------------------------------------------------------
# Reductions, scans, sorting


@triton.jit
def softmax_rows(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    # one program per row; the whole row fits one block, padding lanes read -inf so that they
    # neither win the max nor contribute to the sum (exp(-inf) == 0)
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


@triton.jit
def softmax_persistent(out_ptr, in_ptr, row_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    # persistent variant: each program strides over rows with a dynamic-bound loop
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * row_stride + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * row_stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def layer_norm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    # two passes over the row in BLOCK-sized chunks (mean, then variance), then normalise
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, (x - mean) * rstd * w + b, mask=mask)


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    # keep the larger value; on ties the smaller index, so the result is the first maximum
    take1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@triton.jit
def argmax_rows(x_ptr, val_ptr, idx_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    val, idx = tl.reduce((x, cols), 0, _argmax_combine)
    tl.store(val_ptr + row, val)
    tl.store(idx_ptr + row, idx)


@triton.jit
def reduce_2d(x_ptr, rows_ptr, cols_ptr, all_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # reductions along each axis of a 2-D tile, with keep_dims, plus the library argmin/xor_sum
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    tl.store(rows_ptr + rm, tl.sum(x, axis=1), mask=rm < M)
    col_max = tl.max(x, axis=0, keep_dims=True)
    tl.store(cols_ptr + rn[None, :], col_max, mask=rn[None, :] < N)
    total = tl.sum(tl.min(x, axis=1)) + tl.argmin(tl.reshape(x, [BLOCK_M * BLOCK_N]), axis=0).to(tl.float32)
    bits = tl.xor_sum(x.to(tl.int32, bitcast=True), axis=None)
    tl.store(all_ptr, total + bits.to(tl.float32))


@triton.jit
def _linear_recurrence(a1, b1, a2, b2):
    # composition of h -> a1*h + b1 followed by h -> a2*h + b2; associative, not commutative
    return a1 * a2, a2 * b1 + b2


@triton.jit
def scan_ops(a_ptr, b_ptr, h_ptr, csum_ptr, cprod_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, b), 0, _linear_recurrence)
    tl.store(h_ptr + offs, h, mask=mask)
    tl.store(csum_ptr + offs, tl.cumsum(b, axis=0), mask=mask)
    tl.store(cprod_ptr + offs, tl.cumprod(a, axis=0, reverse=True), mask=mask)


@triton.jit
def sort_flip(x_ptr, sorted_ptr, flipped_ptr, topk_ptr, BLOCK: tl.constexpr, K: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(sorted_ptr + offs, tl.sort(x, descending=True))
    tl.store(flipped_ptr + offs, tl.flip(x, 0))
    tl.store(topk_ptr + tl.arange(0, K), tl.topk(x, K))


@triton.jit
def histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    h = tl.histogram(x, BINS, mask=mask)
    tl.atomic_add(hist_ptr + tl.arange(0, BINS), h)


# ---------------------------------------------------------------------------------------------
# Matrix multiplication


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    ACTIVATION: tl.constexpr,
):
    # grouped program order: GROUP_M rows of tiles are walked column by column for reuse of B
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pids_in_group = GROUP_M * num_pid_n
    first_m = (pid // pids_in_group) * GROUP_M
    group_rows = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % pids_in_group) % group_rows
    pid_n = (pid % pids_in_group) // group_rows

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def matmul_int8(
    a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    # int8 x int8 -> int32 dot, row-major contiguous operands
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(
            a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
            mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K),
            other=0,
        )
        b = tl.load(
            b_ptr + (k0 + rk)[:, None] * N + rn[None, :],
            mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N),
            other=0,
        )
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def batched_dot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # 3-D tl.dot over a whole [B, M, K] x [B, K, N] batch held in one block
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rk_col = tl.arange(0, K)[None, None, :]
    rk_row = tl.arange(0, K)[None, :, None]
    a = tl.load(a_ptr + rb * M * K + rm * K + rk_col)
    b = tl.load(b_ptr + rb * K * N + rk_row * N + rn)
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rb * M * N + rm * N + rn, c)


# ---------------------------------------------------------------------------------------------
# Tensor descriptors (the replacement for tl.make_block_ptr / tl.advance, removed in triton 3.9)


@triton.jit
def desc_scale_2d(ptr, M, N, alpha, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # in-place tile update through an in-kernel descriptor; out-of-bounds parts are zero-padded
    # on load and dropped on store
    desc = tl.make_tensor_descriptor(ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    tile = desc.load([off_m, off_n])
    desc.store([off_m, off_n], tile * alpha)


@triton.jit
def desc_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    # matmul whose operands are descriptors loaded in the K loop: what a block-pointer matmul
    # with tl.advance in the loop looked like before triton 3.9
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@triton.jit
def desc_host_arg(in_desc, out_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # descriptors built on the host (triton.tools.tensor_descriptor.TensorDescriptor) and passed
    # as kernel arguments; plus a descriptor reduction (atomic add of a tile)
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    x = in_desc.load([off_m, off_n])
    out_desc.atomic_add([off_m, off_n], tl.exp(x))


@triton.jit
def desc_gather_scatter(src_ptr, dst_ptr, idx_ptr, M, N, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    # row gather/scatter through 1-row-block descriptors (tt.descriptor_gather / _scatter)
    src = tl.make_tensor_descriptor(src_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BLOCK_N])
    dst = tl.make_tensor_descriptor(dst_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BLOCK_N])
    rows = tl.load(idx_ptr + tl.arange(0, BLOCK_R))
    col = tl.program_id(0) * BLOCK_N
    tile = src.gather(rows, col)
    dst.scatter(tile + 1.0, rows, col)


# ---------------------------------------------------------------------------------------------
# Atomics


@triton.jit
def atomics(counter_ptr, acc_ptr, max_ptr, lock_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # tensor atomic add (masked) and scalar atomic add returning the old value
    tl.atomic_add(acc_ptr + offs % 16, x, mask=mask)
    ticket = tl.atomic_add(counter_ptr, 1, sem="relaxed")
    # scalar max of the block's maximum, and an elementwise max with acquire-release order
    tl.atomic_max(max_ptr, tl.max(x, axis=0))
    tl.atomic_max(max_ptr + 1 + offs % 4, x, mask=mask, sem="acq_rel", scope="cta")
    # spin lock by compare-and-swap, released with an exchange
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(counter_ptr + 1, ticket)
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def atomics_misc(ptr_i32, ptr_f32, ptr_i64, vals_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(vals_ptr + offs, mask=mask, other=0)
    tl.atomic_min(ptr_i32 + offs, v, mask=mask)
    tl.atomic_and(ptr_i32 + BLOCK + offs, v, mask=mask)
    tl.atomic_or(ptr_i32 + 2 * BLOCK + offs, v, mask=mask)
    tl.atomic_xor(ptr_i32 + 3 * BLOCK + offs, v, mask=mask)
    tl.atomic_max(ptr_i32.to(tl.pointer_type(tl.uint32)) + 4 * BLOCK + offs, v.to(tl.uint32), mask=mask)
    tl.atomic_add(ptr_f32 + offs, v.to(tl.float32), mask=mask, sem="release")
    old = tl.atomic_cas(ptr_i64 + offs, tl.zeros([BLOCK], tl.int64), v.to(tl.int64))
    tl.store(ptr_i64 + BLOCK + offs, old, mask=mask)
    # atomic load/store with explicit orderings
    seen = tl.atomic_load(ptr_i32 + offs, mask=mask, sem="acquire")
    tl.atomic_store(ptr_i32 + 5 * BLOCK + offs, seen + 1, mask=mask, sem="release")


# ---------------------------------------------------------------------------------------------
# Grids, control flow, calls


@triton.jit
def grid_3d(out_ptr, stride_x, stride_y):
    # out[z, y, x] = x + 10*y + 100*z + 1000*(total programs)
    px = tl.program_id(0)
    py = tl.program_id(1)
    pz = tl.program_id(2)
    total = tl.num_programs(0) * tl.num_programs(1) * tl.num_programs(2)
    tl.store(
        out_ptr + pz * stride_y * tl.num_programs(1) + py * stride_y + px * stride_x,
        px + 10 * py + 100 * pz + 1000 * total,
    )


@triton.jit
def early_return(x_ptr, out_ptr, n, n_valid_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # programs past the useful range leave without touching memory
    if pid >= n_valid_blocks:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x * 2, mask=offs < n)


@triton.jit
def control_flow(x_ptr, out_ptr, n, limit, mode, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # scf.if yielding values on a runtime scalar
    if mode == 0:
        y = x + 1.0
    elif mode == 1:
        y = x * 2.0
    else:
        y = -x
    # data-dependent scf.while
    s = tl.sum(tl.abs(y), axis=0)
    it = 0
    while (s > limit) & (it < 32):
        s = s * 0.5
        it += 1
    # compile-time unrolled loop, and a runtime loop with an unroll hint for the loop_unroll pass
    for i in tl.static_range(UNROLL):
        y = y + i
    for j in tl.range(0, n, 7, loop_unroll_factor=2):
        y += 0.5
    tl.store(out_ptr + offs, y * s + it, mask=mask)


@triton.jit(noinline=True)
def _block_norm(x_ptr, start, scale, BLOCK: tl.constexpr):
    # noinline functions take scalars and pointers only (the frontend rejects tensor arguments)
    x = tl.load(x_ptr + start + tl.arange(0, BLOCK))
    return tl.sqrt(tl.sum(x * x, axis=0)) * scale


@triton.jit
def noinline_call(x_ptr, out_ptr, scale, BLOCK: tl.constexpr):
    # a noinline helper survives the inliner as tt.call of a private tt.func
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, _block_norm(x_ptr, pid * BLOCK, scale, BLOCK))
    tl.store(out_ptr + tl.num_programs(0) + pid, _block_norm(x_ptr, pid * BLOCK + 1, scale * 2, BLOCK))


@triton.jit
def print_assert(x_ptr, n, BLOCK: tl.constexpr):
    # device_assert is only emitted when compiled with debug=True (generate.py does so here)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_print("pid", tl.program_id(0))
    tl.device_print("x=", x, hex=True)
    tl.device_assert(x >= 0, "x must be non-negative")
    tl.device_assert(tl.program_id(0) < 1024, "grid too large")


@triton.jit
def hints_scalars(x_ptr, out_ptr, n, offset, BLOCK: tl.constexpr):
    # compiler hints (multiple_of / max_contiguous / assume) and scalar loads and stores with
    # 64-bit offsets
    tl.assume(n > 0)
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    first = tl.load(x_ptr + offset)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0, cache_modifier=".cg", eviction_policy="evict_last")
    tl.store(out_ptr + offs, x + first, mask=offs < n)
    tl.store(out_ptr + n + pid, first)
    # pointer <-> integer casts (tt.ptr_to_int / tt.int_to_ptr)
    addr = x_ptr.to(tl.int64)
    if addr % 64 == 0:
        tl.store((addr + 4 * offset).to(tl.pointer_type(tl.float32)), first * 2)


@triton.jit
def inline_asm(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # a GPU-only construct: valid TTIR that a CPU backend must reject with a clear error
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, y)


@triton.jit
def _relu_scalar(x):
    if x > 0:
        return x
    return 0.0


@triton.jit
def map_elementwise(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.map_elementwise(_relu_scalar, tl.load(x_ptr + offs)))


# ---------------------------------------------------------------------------------------------
# Memory access patterns and shape ops


@triton.jit
def tile_copy_2d(
    src_ptr,
    dst_ptr,
    M,
    N,
    stride_sm,
    stride_sn,
    stride_dm,
    stride_dn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # strided 2-D tile copy with edge masks on both dimensions
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(src_ptr + rm[:, None] * stride_sm + rn[None, :] * stride_sn, mask=mask)
    tl.store(dst_ptr + rm[:, None] * stride_dm + rn[None, :] * stride_dn, tile, mask=mask)


@triton.jit
def transpose_2d(src_ptr, dst_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    tile = tl.load(src_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N))
    tl.store(
        dst_ptr + rn[:, None] * M + rm[None, :], tl.trans(tile), mask=(rn[:, None] < N) & (rm[None, :] < M)
    )


@triton.jit
def embedding_gather(ids_ptr, table_ptr, out_ptr, n_ids, dim, BLOCK_I: tl.constexpr, BLOCK_D: tl.constexpr):
    # indirect addressing: row indices come from memory (i64), so the access is a gather
    ri = tl.program_id(0) * BLOCK_I + tl.arange(0, BLOCK_I)
    rd = tl.arange(0, BLOCK_D)
    ids = tl.load(ids_ptr + ri, mask=ri < n_ids, other=0)
    mask = (ri[:, None] < n_ids) & (rd[None, :] < dim)
    rows = tl.load(table_ptr + ids[:, None] * dim + rd[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + ri[:, None] * dim + rd[None, :], rows, mask=mask)


@triton.jit
def scatter_add(idx_ptr, src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.atomic_add(dst_ptr + idx, tl.load(src_ptr + offs, mask=mask), mask=mask)


@triton.jit
def gather_in_register(x_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # tl.gather: index a tile already in registers along axis 1 (tt.gather)
    rm = tl.arange(0, M)[:, None]
    rn = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rm * N + rn)
    idx = tl.load(idx_ptr + rm * N + rn)
    tl.store(out_ptr + rm * N + rn, tl.gather(x, idx, axis=1))


@triton.jit
def shape_ops(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    y = tl.load(y_ptr + r)
    c = tl.cat(x, y)  # [2N]: x then y (built from join/trans/reshape since triton 3.9)
    # tt.cat proper: element order unspecified, fine for a sum (deprecated, gone in triton 3.10)
    cr = tl.cat(x, y, can_reorder=True)
    j = tl.join(x, y)  # [N, 2]
    a, b = tl.split(tl.reshape(x + y, [N // 2, 2]))  # even / odd lanes, [N/2] each
    t = tl.reshape(j, [2, N], can_reorder=False)  # row-major reshape
    tt = tl.trans(t)  # [N, 2]
    p = tl.permute(tl.reshape(tt, [N // 2, 2, 2]), 2, 0, 1)  # [2, N/2, 2]
    e = tl.expand_dims(x, 0) + tl.broadcast_to(tl.expand_dims(y, 1), N, N)  # [N, N]
    i = tl.interleave(j, j)  # [N, 4]
    one = tl.reshape(tl.load(x_ptr + tl.arange(0, 1)), [])  # 1-element tensor -> scalar (tt.unsplat)
    s = tl.sum(c, axis=0) + tl.sum(tl.ravel(p), axis=0) + tl.sum(tl.sum(e, axis=1), axis=0) + one
    s += tl.sum(cr, axis=0)
    tl.store(out_ptr + tl.arange(0, 2 * N), c + s)
    tl.store(out_ptr + 2 * N + tl.arange(0, N // 2), a * b)
    tl.store(out_ptr + 3 * N + tl.arange(0, 4 * N), tl.ravel(i))


@triton.jit
def fp16_elementwise(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # half-precision arithmetic with fp32 math in the middle (what RVV without Zvfh must widen)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    z = x * y + x
    w = tl.exp(z.to(tl.float32)).to(tl.float16)
    tl.store(out_ptr + offs, z + w, mask=mask)


@triton.jit
def math_f64(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # fp64 math: spine-approximate-math's own polynomials (MathApproximations.h)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    a = tl.exp(x) + tl.exp2(x) + tl.log(x) + tl.log2(x) + tl.sin(x) + tl.cos(x) + tl.sigmoid(x)
    tl.store(out_ptr + offs, a, mask=mask)
