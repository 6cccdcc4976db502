//===- Passes.td - spine-triton pass declarations ----------*- tablegen -*-===//

#ifndef SPINE_TRITON_PASSES
#define SPINE_TRITON_PASSES

include "mlir/Pass/PassBase.td"

def TileCacheArgument : Pass<"spine-tile-cache-argument", "ModuleOp"> {
  let summary = "Mark tl.dot tiles a launch's tile cache may copy once for every program";
  let description = [{
    Marks a tt.load `spine.cached_tile` when it is a 2-D tile a tt.dot in its
    block multiplies (as loaded, any element type) and no write of the kernel
    (store, atomic, call) can run before it in a program, and gives a kernel
    with such loads a last i64 argument `spine.tile_cache`: the address of
    the launch's tile cache (cpp/runtime/TileCache.h), or 0.
  }];
}

def MaterializeProgramIds : Pass<"spine-materialize-program-ids", "ModuleOp"> {
  let summary = "Turn tt.get_program_id / tt.get_num_programs into function arguments";
  let description = [{
    Appends six i32 arguments (pid x/y/z, number of programs x/y/z) to every
    tt.func, replaces the program-id queries with them and forwards them
    through tt.call. This is the first half of the kernel ABI in
    docs/kernel-abi.md: the launcher supplies those values per program.
  }];
}

def BlockGridStrideLoops : Pass<"spine-block-grid-stride-loops", "ModuleOp"> {
  let summary = "Give each program of a grid-stride loop a block of consecutive rows";
  let description = [{
    On TTIR, after spine-materialize-program-ids. A kernel's loop
    `for row in range(pid_x, n, num_programs_x)` whose iterations touch
    `arg + row * stride + c + lanes` only (lanes: ranges, counters of loops
    over column blocks inside it), with nothing outside it writing
    memory, is versioned on a run-time check that no iteration touches what
    another one writes: when it holds, program p takes rows
    [p * B, min((p + 1) * B, n)), B = ceil(n / num_programs_x), so a thread
    walks its programs' rows in order; otherwise the loop runs as written.
  }];
  let dependentDialects = ["arith::ArithDialect", "scf::SCFDialect"];
}

def ScalarizePointerIterArgs
    : Pass<"spine-scalarize-pointer-iter-args", "ModuleOp"> {
  let summary = "Carry a scalar offset instead of a pointer tensor through loops";
  let description = [{
    A pointer tensor carried by scf.for and advanced by the same amount in
    every element (`ptrs += BLOCK_K * stride`) is rewritten to its initial
    value plus a loop-carried scalar element offset. The loop then no longer
    carries a tensor of addresses, and every access inside it has an address
    computable from the loop-invariant initial pointers.
  }];
}

def PeelConstantAccumulators
    : Pass<"spine-peel-constant-accumulators", "ModuleOp"> {
  let summary = "Peel the first iteration of loops carrying a splat-constant block";
  let description = [{
    On TTIR. An scf.for whose iter_arg starts as a splat constant
    (`acc = tl.zeros(...)`) and whose body is small, has no nested loop and no
    tt.dot gets its first iteration peeled into an scf.if on the loop's own
    condition, with the constant in place of the iter_arg. The first
    `acc + x` then folds the constant instead of filling a buffer with it.
    When tt.reduce ops in the loop's block are the only readers of its
    results, the peeled iteration is versioned on whether the rest of the
    loop runs, and the reductions move into each version: a one-trip loop's
    block is reduced where it is computed, never kept in a buffer.
  }];
  let dependentDialects = ["arith::ArithDialect", "scf::SCFDialect"];
}

def HoistStoreAddresses : Pass<"spine-hoist-store-addresses", "ModuleOp"> {
  let summary = "Compute the scalar parts of store addresses as early as possible";
  let description = [{
    On TTIR. The scalar side-effect-free ops a tt.store's pointer depends on
    (a row's base address, `out_ptr + row * stride`) move up in their block,
    each right after the last definition of its operands. A load before the
    store can then check at run time that the store writes none of the
    memory it reads, and be read in place (LoadViews.h).
  }];
}

def DefineIntegerArithmetic
    : Pass<"spine-define-integer-arithmetic", "ModuleOp"> {
  let summary = "Give integer division by zero and over-wide shifts defined results";
  let description = [{
    LLVM leaves them undefined (x86's idiv traps, SIGFPE), yet Triton
    kernels divide and shift in lanes they mask off. Every integer (not
    index) division, remainder and shift whose second operand is not a safe
    constant gets defined results: RISC-V's for division (x / 0 = -1, all
    ones; x % 0 = x; INT_MIN / -1 = INT_MIN; INT_MIN % -1 = 0) and torch's
    for shifts by the width or more (<< and unsigned >> give 0, signed >>
    the sign).
  }];
}

def ReciprocalDivision : Pass<"spine-reciprocal-division", "ModuleOp"> {
  let summary = "Divide fp32 tensors by a splat or broadcast through its reciprocal";
  let description = [{
    Triton's `/` on fp32 is not IEEE division (on NVIDIA GPUs it is
    div.full.f32, within 2 ulp; `tl.div_rn` is the exact one, tt.precise_divf,
    left alone). Dividing a tensor by a value repeated along it (a splat, or
    a tensor broadcast along some axes) becomes one division per distinct
    divisor and a multiplication per element, within 1.5 ulp.
  }];
}

def SaturateFloatToInt : Pass<"spine-saturate-float-to-int", "ModuleOp"> {
  let summary = "Give the kernel's float to integer conversions GPU results for every value";
  let description = [{
    LLVM's fptosi and fptoui are poison for NaN and out-of-range values, and
    x86 and RISC-V turn them into different integers. Every arith.fptosi and
    arith.fptoui (scalar or tensor) becomes the saturating conversion that
    NVIDIA and AMD GPUs perform: the truncation toward zero where it fits,
    the integer type's minimum or maximum beyond it, 0 for NaN.
  }];
}

def BoundShiftedExponents
    : Pass<"spine-bound-shifted-exponents", "ModuleOp"> {
  let summary = "Bound exp(x - max(x)) arguments by a clamp, for spine-approximate-math";
  let description = [{
    On TTIR. The f32 argument of math.exp that is a tensor minus the maximum
    of its elements along an axis (tt.reduce of maxnumf or maximumf, splat or
    expanded and broadcast back: softmax's `x - tl.max(x, axis)`) is at most
    0 or NaN. It is clamped to <= 1 by a select on an unordered compare,
    which changes no value and lets spine-approximate-math leave out the
    exp's own upper clamp, its exponent cap and a polynomial degree. The
    select is marked `spine.known_bound`: spine-approximate-math takes the
    bound from it and reads the argument through it.
  }];
  let dependentDialects = ["arith::ArithDialect"];
}

def DecomposeScaledDots : Pass<"spine-decompose-scaled-dots", "ModuleOp"> {
  let summary = "tt.dot_scaled as operands decoded, scaled and a tt.dot";
  let description = [{
    On TTIR. Each tt.dot_scaled becomes its operands decoded to f32 (fp4
    nibbles by integer arithmetic, fp8, bf16 and fp16 by arith.extf),
    multiplied by their block scales (e8m0 bytes as powers of two, 0xFF as
    NaN; or float scales), and a tt.dot of the results: in f32, or with
    fastMath in bf16 when both formats are exact in bf16 once scaled (e2m1,
    e4m3, e5m2, bf16), as Triton's emulation on GPUs does. fp6 formats are
    an error.
  }];
  let dependentDialects = ["arith::ArithDialect"];
}

def AccumulateNarrowFloats
    : Pass<"spine-accumulate-narrow-floats", "ModuleOp"> {
  let summary = "Reductions, scans and dots of f16, bf16 and fp8 accumulate in f32";
  let description = [{
    On TTIR. tt.reduce and tt.scan whose combine region rounds a float
    narrower than f32 (addf, subf, mulf, divf or truncf into one) take their
    narrow operands extended to f32, compute the region in f32 and round
    their results back once; combines of only maxima, minima, compares and
    selects are exact either way and stay. tt.dot with a narrow accumulator
    multiplies into an f32 one and rounds after the dot. Sequential loops
    rounding a narrow accumulator at every step lose whole sums (a bf16
    cumsum of ones stops at 256); Triton leaves the order and precision of
    these ops open, GPUs reduce in trees and torch accumulates in f32.
  }];
  let dependentDialects = ["arith::ArithDialect"];
}

def LegalizeFloatTypes : Pass<"spine-legalize-float-types", "ModuleOp"> {
  let summary = "fp8 values as their bytes; float conversions targets lack as arithmetic";
  let description = [{
    On TTIR. Conversions to and from fp8 (f8E4M3FN, f8E5M2, and AMD's
    f8E4M3FNUZ, f8E5M2FNUZ) become integer arithmetic on the bit patterns, rounding to nearest even or toward zero;
    other float ops on fp8 values run in f32 and round back; tt.dot decodes
    fp8 operands to f32. Then every fp8 type becomes i8. arith.truncf from
    f64 to bf16 is rounded through f32 with round-to-odd.
  }];
  let dependentDialects = ["arith::ArithDialect", "math::MathDialect"];
}

def ConvertTritonToLinalg : Pass<"spine-convert-triton-to-linalg", "ModuleOp"> {
  let summary = "Lower Triton IR to Linalg, tensor, memref, arith and func";
  let description = [{
    Pointers become i64 byte addresses (tensors of pointers become tensors of
    i64); tensor-shaped Triton ops become linalg/tensor ops; loads and stores
    become per-element accesses guarded by their masks. Any Triton op without a
    lowering is reported with its location and the pass fails.
  }];
  let dependentDialects = [
    "arith::ArithDialect", "bufferization::BufferizationDialect",
    "func::FuncDialect", "linalg::LinalgDialect", "LLVM::LLVMDialect",
    "math::MathDialect", "memref::MemRefDialect", "scf::SCFDialect",
    "tensor::TensorDialect"
  ];
}

def UnrollDotLoops : Pass<"spine-unroll-dot-loops", "func::FuncOp"> {
  let summary = "Unroll K loops of AMX-sized bf16 and int8 dots to max-k K steps per iteration";
  let description = [{
    On tensors, before bufferization. An scf.for whose body's only
    linalg.matmul multiplies bf16 tiles into an f32 block (sides of
    multiples of 16, K of 32) or int8 tiles into an i32 block (K of 64) of
    64 KiB or more that the loop carries and yields is unrolled by
    max-k / K (bf16) or max-k-int8 / K (int8), when that is 2 or more, so
    that one iteration's dots cover that many K steps of the same
    accumulator; spine-vectorize-matmul with amx-tiles then keeps each C
    tile in a tile register across all of them.
  }];
  let options = [
    Option<"maxK", "max-k", "unsigned", /*default=*/"64",
           "K steps one iteration's bf16 dots should cover">,
    Option<"maxKInt8", "max-k-int8", "unsigned", /*default=*/"256",
           "K steps one iteration's int8 dots should cover">,
  ];
  let dependentDialects = ["scf::SCFDialect", "arith::ArithDialect"];
}

def VectorizeMatmul : Pass<"spine-vectorize-matmul", "func::FuncOp"> {
  let summary = "Register-blocked vector micro-kernel for linalg.matmul on buffers";
  let description = [{
    Replaces a statically shaped linalg.matmul on row-major buffers by loops
    over MR x NR blocks of C whose accumulators stay in vector registers
    across the whole K loop; each K step broadcasts one element of A per row
    and multiplies it with vector rows of B (an FMA per accumulator: x86
    vfmadd231ps with a broadcast, RVV vfmacc.vf). Narrow inputs (fp16, bf16,
    int8) are widened in registers. With bf16-dot-product (x86 AVX512-BF16),
    bf16 inputs with an f32 accumulator multiply pairs of K steps at once
    (vdpbf16ps): B's tile is packed with the rows of each pair interleaved,
    and each step broadcasts a pair of A's elements. With int16-pair-product
    (x86 vpmaddwd), int8 inputs with an i32 accumulator do the same with
    pairs widened to int16 (each pair's two products summed into an i32
    lane, exactly). With fp16-widening-fma (RVV Zvfh vfwmacc.vf), fp16
    inputs with an f32 accumulator are neither copied nor converted: the
    FMA takes them as they are. With amx-tiles (x86 AMX-BF16 and AMX-INT8),
    bf16 inputs with an f32 accumulator and int8 ones with an i32
    accumulator whose sides are multiples of 16 (K of 32 for bf16, 64 for
    int8) become AMX tile products (tdpbf16ps, tdpbssd on 16 x 16 blocks
    of C): B's tile is packed in pairs (bf16) or quads (int8) of K steps, A
    is read in place, and each step keeps 2 x 2 blocks of C in tile
    registers across the K loop; consecutive dots into one C share the
    pass over its tiles. B buffers of the
    kernel's with rows of a multiple of 1 KiB (whose K rows would share a
    few L1 sets) get a cache line of padding per row. Shapes it cannot block
    are left alone.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"256",
           "Width of one vector register in bits">,
    Option<"vectorRegisters", "vector-registers", "unsigned", /*default=*/"16",
           "Number of architectural vector registers">,
    Option<"bf16DotProduct", "bf16-dot-product", "bool", /*default=*/"false",
           "The target multiplies and adds pairs of bf16 into f32 lanes "
           "(x86 AVX512-BF16 vdpbf16ps)">,
    Option<"int16PairProduct", "int16-pair-product", "bool",
           /*default=*/"false",
           "The target multiplies pairs of int16 and adds each pair's "
           "products into an i32 lane (x86 vpmaddwd)">,
    Option<"fp16WideningFma", "fp16-widening-fma", "bool",
           /*default=*/"false",
           "The target's FMA multiplies fp16 operands into f32 lanes, "
           "widening them itself (RVV Zvfh vfwmacc.vf)">,
    Option<"amxTiles", "amx-tiles", "bool", /*default=*/"false",
           "The target multiplies bf16 and int8 tiles into f32 and i32 tiles "
           "(x86 AMX-BF16 tdpbf16ps, AMX-INT8 tdpbssd) and the process may "
           "use them">,
  ];
  let dependentDialects = ["vector::VectorDialect", "scf::SCFDialect",
                           "arith::ArithDialect", "memref::MemRefDialect",
                           "LLVM::LLVMDialect", "amx::AMXDialect"];
}

def VectorizeTransposes : Pass<"spine-vectorize-transposes", "func::FuncOp"> {
  let summary = "2-D transposes of tiles as vector loads, shuffles and stores";
  let description = [{
    A linalg.transpose of a statically shaped 2-D buffer (tl.trans, and the
    transposed strided loads of a tile) whose sides are multiples of the
    lanes of one vector register is done in blocks of L x L elements: L
    vector loads of the input's rows, log2(L) rounds of L two-input shuffles
    (swapping the off-diagonal halves of ever smaller sub-blocks), and L
    vector stores of the output's rows, instead of a loop that gathers.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"256",
           "Width of one vector register in bits">,
  ];
  let dependentDialects = ["vector::VectorDialect", "scf::SCFDialect",
                           "arith::ArithDialect"];
}

def ScheduleTilePrefetches
    : Pass<"spine-schedule-tile-prefetches", "func::FuncOp"> {
  let summary = "Prefetch the next tiles while a later loop computes";
  let description = [{
    Runs after spine-vectorize-element-loops. A prefetch it marked (what a
    tile loop reads in the next iteration of the loop over tiles) in a loop
    nest that a loop which computes follows in the same block moves into
    that loop: a copy of the nest that keeps only the address arithmetic and
    the prefetches runs at the start of each of its steps (in a micro-kernel
    step, after the accumulator loads, before the K loop), the nest's loops
    over rows (or strips) cut to that step's even share, prefetching into
    L2. The computing loop is a matmul micro-kernel (its steps: (row block,
    column block) pairs), or else a loop with a constant trip count that
    computes a math function and writes only tile buffers (its steps:
    iterations).
    Nests whose prefetches are not all inside loops with constant bounds
    keep them where they are.

    Loops that reduce a row and prefetch the next program's (marked one
    program ahead: rows of 8 KiB or more, layer norm), followed by a loop
    that stores to kernel memory, get one set of those prefetches for the
    program after next (copies reading the same arguments over the same
    extent count once), shared out in order over the reducing loops (a fifth
    of the row each) and the store loop (the rest), each step an even share
    of its part; the loops' own next-program prefetches go.

    With front-load-deferred set, a computing loop that also stores a row
    deferred by spine-defer-store-walks issues the prefetches in the first
    half of its steps: its stores share memory with them, and the walk after
    it reads what they fetch. Measured faster on Zen 4 with AVX-512 (session
    15), where the exponentials are quick; 3-10% slower than an even share
    over all steps on Zen 3 with AVX2 (session 22, docs/benchmarks.md).
  }];
  let options = [
    Option<"frontLoadDeferred", "front-load-deferred", "bool",
           /*default=*/"false",
           "A loop that stores a deferred row takes the prefetches in its "
           "first half">,
  ];
  let dependentDialects = ["scf::SCFDialect", "arith::ArithDialect"];
}

def EraseWriteOnlyBuffers
    : Pass<"spine-erase-write-only-buffers", "func::FuncOp"> {
  let summary = "Erase stores no read can see, and buffers left unread";
  let description = [{
    Runs after spine-vectorize-element-loops. A store into a memref.alloc or
    memref.alloca (memref.store, vector.store, vector.maskedstore,
    vector.transfer_write, also through views) is erased when every read of
    the buffer lies in another branch of an scf.if (or scf.index_switch)
    outside loops; a buffer left without reads goes with its views and
    deallocation. Such stores are left behind by reductions fused into the
    loop that computes the reduced tile, and by versions sharing a stack
    slot; once lowered, LLVM keeps them. A buffer used in any other way (a
    yield, a call, a copy) is left alone.
  }];
  let dependentDialects = ["memref::MemRefDialect"];
}

def VectorizeElementLoops
    : Pass<"spine-vectorize-element-loops", "func::FuncOp"> {
  let summary = "Strip-mine innermost element loops into vector code";
  let description = [{
    Innermost scf.for loops that load, compute and store one element per
    iteration (the loops tensor loads/stores and elementwise ops become) are
    widened to vectors: masks become lane masks, buffer accesses at the
    induction variable become vector loads/stores, and accesses through
    computed addresses become a masked vector access when the addresses are
    consecutive at run time, else a masked gather/scatter. With
    streaming-store-bytes set, whole-register stores of a loop whose
    accesses over the launch reach that many bytes are non-temporal when
    aligned (decided at run time), and a fence follows the loop. With
    shuffle-reductions set, float min/max reductions fold their lanes by
    halving the vector rather than one lane at a time. With select-min-max
    set, maxnum/minnum reductions accumulate by compare and select (one x86
    vmaxps/vminps) plus a guard accumulator for lanes that saw only NaN; with
    shuffle-reductions too, their lanes fold by compare and select as well.
    With line-strips set, a strip spans at least a 64-byte cache line of its
    narrowest access (two registers of f32 on AVX2); with 32 registers
    (AVX-512) it spans four of them in loops that do not reduce, as in those
    that do.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"256",
           "Width of one vector register in bits">,
    Option<"streamingStoreBytes", "streaming-store-bytes", "uint64_t",
           /*default=*/"0",
           "Stores of a loop whose accesses over the launch reach this many "
           "bytes bypass the caches (x86 movnt; 0: never)">,
    Option<"shuffleReductions", "shuffle-reductions", "bool",
           /*default=*/"false",
           "Fold the lanes of float min/max reductions by halving the "
           "vector with shuffles (x86; RVV has vfredmax/vfredmin)">,
    Option<"selectMinMax", "select-min-max", "bool", /*default=*/"false",
           "The target's vector min/max is a compare and select that "
           "returns the second operand for NaN (x86 vmaxps), not IEEE "
           "maxNum (RVV vfmax)">,
    Option<"vectorRegisters", "vector-registers", "unsigned",
           /*default=*/"16", "Number of architectural vector registers">,
    Option<"lineStrips", "line-strips", "bool", /*default=*/"false",
           "Strips span at least a cache line of their narrowest access, "
           "four registers with 32 of them (AVX-512) (x86: measured there; "
           "RVV keeps one register group)">,
  ];
  let dependentDialects = ["vector::VectorDialect", "scf::SCFDialect",
                           "arith::ArithDialect", "LLVM::LLVMDialect"];
}

def FuseElementwiseOps : Pass<"spine-fuse-elementwise-ops"> {
  let summary = "Fuse elementwise linalg ops, cheap producers into every user";
  let description = [{
    Upstream's linalg-fuse-elementwise-ops, which fuses a producer only into
    its single user, and also fuses a producer that is cheaper to compute
    again than to store and load into each of its users: a generic that
    reads no tensor and computes a few integer ops from its indices
    (tl.arange, comparisons of it), or one that only hands on an input
    element (broadcasts, transposes).
  }];
  let dependentDialects = ["affine::AffineDialect", "linalg::LinalgDialect",
                           "tensor::TensorDialect"];
}

def VersionLaneBounds : Pass<"spine-version-lane-bounds", "func::FuncOp"> {
  let summary = "Version element loops on their index compares holding throughout";
  let description = [{
    On the loops convert-linalg-to-loops makes, after spine-fuse-element-loops.
    An innermost scf.for with constant bounds that compares its induction
    variable (index_cast to an integer) with a value defined outside it, and
    uses such a compare other than as an scf.if condition (a tl.where on
    `cols < N`), gets an scf.if: when every such compare holds at the first
    and last iteration, a copy of the loop with the compares replaced by
    true and the selects on them by their first value; else the loop.
  }];
  let dependentDialects = ["arith::ArithDialect", "scf::SCFDialect"];
}

def FuseElementLoops : Pass<"spine-fuse-element-loops", "func::FuncOp"> {
  let summary = "Merge a loop into the loop before it that writes what it reads";
  let description = [{
    On the loops convert-linalg-to-loops makes. An innermost scf.for that
    reads, element for element, a tile buffer the loop right before it
    writes (the same element in the same iteration) becomes part of that
    loop, when every pair of accesses of the two loops that may touch the
    same memory touches the same element in the same iteration. Reads of an
    element the merged body stored are replaced by the stored value, and
    stack buffers left without readers are erased. Ops between the loops
    move above or below them; a loop versioned by an scf.if gets a copy of
    the following loop in each branch.
  }];
}

def DeferStoreWalks : Pass<"spine-defer-store-walks", "func::FuncOp"> {
  let summary = "Store a row during the next row's last walk writing its tile buffer";
  let description = [{
    On the loops spine-fuse-element-loops leaves. In a loop over rows whose
    body ends with a walk that only stores a tile buffer through pointers
    (softmax's scaled exponentials), that walk moves into the next
    iteration's element loop writing the buffer: each element of the
    previous row is stored there just before the new row's element is
    written. The walk's scalars are carried to the next iteration, the last
    row is stored after the loop, and an iteration whose reads may meet the
    pending stores (checked at run time from byte ranges) stores them first.
  }];
  let dependentDialects = ["arith::ArithDialect", "scf::SCFDialect"];
}

def CollapseContiguousDims : Pass<"spine-collapse-contiguous-dims"> {
  let summary = "Merge loop dimensions of linalg.generic ops that every operand walks contiguously";
  let description = [{
    Triton reshapes blocks into many small dimensions (tl.sort makes a
    1024-element block a 2x2x...x2 tensor of rank 10); lowered as is, each
    elementwise op is a nest of loops of 2 iterations that LLVM unrolls
    completely, and code size (and compile time) grows with the block. Two
    adjacent parallel dimensions that appear side by side in the same order
    in every operand's indexing map become one, so such an op is one loop
    over the whole block, which the vectorizer strip-mines.
  }];
  let dependentDialects = ["tensor::TensorDialect"];
}

def ReuseDyingInputs : Pass<"spine-reuse-dying-inputs"> {
  let summary = "Elementwise ops write their result over an input used only by them";
  let description = [{
    Before bufferization. A parallel linalg.generic whose init is a
    tensor.empty its payload never reads takes as init an input of the same
    type and indexing map that has no other use (not a constant), so that
    bufferization can update that buffer in place, e.g. a loop-carried
    accumulator instead of a new buffer per iteration.
  }];
}

def StackBuffers : Pass<"spine-stack-buffers", "func::FuncOp"> {
  let summary = "Small statically shaped buffers that stay in the kernel go on the stack";
  let description = [{
    Runs after bufferization, before deallocations are placed. A memref.alloc
    of static shape whose buffer is only read and written (through views,
    loads, stores, copies, vector and linalg ops; never yielded, returned or
    passed on) becomes a memref.alloca at the top of the function's entry
    block, up to `max-buffer-bytes` per buffer and `max-total-bytes` per
    function: no malloc and free per program or per loop iteration. Buffers
    of one type in different branches of an scf.if (versions of a kernel)
    share one allocation. A buffer allocated in an scf.for's body and
    yielded to the next iteration, which only reads and writes it and drops
    it (as the loop's result is only read and written), gets two stack
    allocations used in turns.
  }];
  let options = [
    Option<"maxBufferBytes", "max-buffer-bytes", "int64_t", /*default=*/"65536",
           "Largest buffer moved to the stack, in bytes">,
    Option<"maxTotalBytes", "max-total-bytes", "int64_t", /*default=*/"262144",
           "Stack bytes one function may use for buffers">,
  ];
  let dependentDialects = ["memref::MemRefDialect"];
}

def LowerStridedCopies : Pass<"spine-lower-strided-copies"> {
  let summary = "memref.copy between non-contiguous buffers becomes loops";
  let description = [{
    The LLVM lowering turns such copies into calls of MLIR's C runner
    library (memrefCopy), which a kernel's shared library does not link.
    They become linalg.copy instead, lowered to loops with the rest.
  }];
  let dependentDialects = ["linalg::LinalgDialect"];
}

def ApproximateMath : Pass<"spine-approximate-math"> {
  let summary = "Vectorizable polynomial approximations of math functions";
  let description = [{
    Rewrites exp, exp2, log, log2, log1p, expm1, tanh, erf, atan, atan2,
    cbrt, sin, cos, pow and friends on f32 (and on f16/bf16 through f32) into
    arithmetic, so loops over them vectorize instead of calling libm once per
    element. f64 exp, exp2, log, log2, expm1, log1p, tanh, sin and cos are
    polynomials too, and the hyperbolic functions of both are written in
    terms of those; other f64 math keeps the (accurate) libm calls. sin and
    cos branch to libm for arguments beyond 2^36 (f32) or 2^19 (f64),
    infinities and NaN, so the pass runs before SCF is lowered.
  }];
  let dependentDialects = ["arith::ArithDialect", "LLVM::LLVMDialect",
                           "math::MathDialect", "scf::SCFDialect",
                           "vector::VectorDialect"];
  let options = [
    Option<"avx512Scalef", "avx512-scalef", "bool", /*default=*/"false",
           "f32 exp and exp2 scale by 2^n with AVX-512's vscalefps (x86 "
           "AVX512F and VL), on vectors of a multiple of 4 lanes and on "
           "scalars">
  ];
}

def AddKernelEntry : Pass<"spine-add-kernel-entry", "ModuleOp"> {
  let summary = "Add the fixed-signature entry point each public kernel is launched through";
  let description = [{
    For each public func.func @k, emits @k__spine_entry(!llvm.ptr args, i32 x6)
    that loads each argument from its 8-byte slot and calls @k (see
    docs/kernel-abi.md).
  }];
  let dependentDialects = ["cf::ControlFlowDialect", "LLVM::LLVMDialect",
                           "func::FuncDialect"];
}

def HalfFloatsAsBits : Pass<"spine-half-floats-as-bits", "ModuleOp"> {
  let summary = "Loads, stores, selects and shuffles of f16 and bf16 values move i16";
  let description = [{
    On the LLVM dialect: the operands and results of f16 or bf16 type (or
    vectors of them) of llvm.load, llvm.store, llvm.select,
    llvm.shufflevector and the masked load, store, gather and scatter
    intrinsics become i16, with bitcasts to and from the float type around
    them. Targets without 16-bit float vectors (x86 before AVX512-FP16/BF16)
    would otherwise widen every lane to f32 and round it back, for bf16
    through a library call per lane, or move a shuffle's lanes one by one.
  }];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

def AssertEarlyReturn : Pass<"spine-assert-early-return", "ModuleOp"> {
  let summary = "Return from a program as soon as it fails a tt.assert";
  let description = [{
    On the LLVM dialect: each call recording a failed tt.assert is followed by
    a return, and each call of a function that may record one by a check of
    the kernel's assert state that returns when it is set (docs/kernel-abi.md,
    "Debug ops").
  }];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

#endif // SPINE_TRITON_PASSES
