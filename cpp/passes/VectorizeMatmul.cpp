//===- VectorizeMatmul.cpp - register-blocked matmul micro-kernel ---------===//
//
// C[M,N] += A[M,K] x B[K,N] on row-major buffers becomes
//
//   for i in 0..M step MR, j in 0..N step NR:
//     acc[r][c] = C[i+r, j+c*VL : +VL]              (MR x NR/VL vectors)
//     for k in 0..K:
//       b[c] = B[k, j+c*VL : +VL]
//       acc[r][c] = fma(broadcast(A[i+r, k]), b[c], acc[r][c])
//     C[i+r, j+c*VL : +VL] = acc[r][c]
//
// The accumulators are loop-carried values of the K loop, so they live in
// registers for the whole reduction. MR and NR are chosen so that the
// accumulators plus the B vectors fit the target's vector register file.
//
// B's rows of a multiple of 1 KiB put its K rows into a few L1 sets (4 KiB
// apart, all into one), where they evict each other during the K loop: a
// B tile the kernel allocates (a tl.load's buffer), and the widened copies
// made here, get one cache line of padding at the end of each row, so that
// consecutive rows fall into consecutive sets.
//
// On x86 with AVX512-BF16, bf16 A and B with an f32 C take two K steps per
// instruction: vdpbf16ps adds a[2l] * b[2l] + a[2l+1] * b[2l+1] to f32
// lane l (each product exact, each addition rounded, as two FMAs would).
// B's tile is first packed with the rows of each pair of K steps
// interleaved (Bp[k/2, 2n + k%2] = B[k, n]), once per matmul, for all the
// row blocks that read it; each step broadcasts A[i+r, k:k+2], one 32-bit
// pair, to every lane. With int16-pair-product (x86 vpmaddwd), int8 A and
// B with an i32 C do the same in int16: B's pairs are widened as they are
// packed, A is widened once into a packed copy, and each step adds
// a[2l] * b[2l] + a[2l+1] * b[2l+1] (exact: each product is at most 2^14) to
// i32 lane l, with twice the K steps per instruction of widening to i32 and
// multiplying (vpmulld). With fp16-widening-fma (RVV Zvfh), fp16 A and B with
// an f32 C stay as they are: each step's extensions to f32 and FMA become one
// vfwmacc.vf. Otherwise a narrow float A (fp16, bf16, fp8) is always widened
// into an f32 copy, even when one column block reads each element once, so
// that the K loop broadcasts A from memory instead of converting an element
// per row; an integer A only when several column blocks read it.
//
// A C that a fill or copy sets to +0 right before the dot (a tl.dot without
// an accumulator) is not read: the accumulators start at zero (vector zeros,
// tilezero) and the fill goes.
//
// With amx-tiles (x86 AMX-BF16: Sapphire Rapids and later), the same bf16
// dot becomes tile products instead: tdpbf16ps multiplies a 16 x 32 bf16
// tile of A by a 16 x 32 tile of B packed in pairs as above (16 pairs of K
// steps by 16 columns) into a 16 x 16 f32 tile of C, 16 K steps of a
// 16-column block in one instruction, about 12x what vdpbf16ps does per
// core (a 1-core loop: 960 against about 80 GFLOP/s). Of the 8 tile
// registers, a 2 x 2 block of C takes 4, two A tiles and two B tiles the
// rest; C's tiles stay in registers across the K loop. A is read in place.
// An int8 dot into i32 does the same with tdpbssd, B packed in quads of K
// steps (a 16 x 64 tile of A, 64 K steps per instruction). Consecutive dots
// into one C (an unrolled K loop's, spine-unroll-dot-loops) multiply into
// each C tile in one pass.
//
//===----------------------------------------------------------------------===//

#include "passes/AmxTileShapes.h"
#include "passes/Passes.h"
#include "passes/TileBuffer.h"
#include "passes/TilePrefetch.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::spine {
#define GEN_PASS_DEF_VECTORIZEMATMUL
#include "passes/Passes.h.inc"

namespace {

/// True for a statically shaped 2-D memref whose rows are contiguous.
bool hasContiguousRows(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides[1] == 1;
}

/// An index constant at `b`'s insertion point.
Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value).getResult();
}

/// Widens `v` (scalar or vector) from an input element type to the
/// accumulator's element type `acc`.
Value widen(OpBuilder &b, Location loc, Value v, Type acc) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from == acc)
    return v;
  Type to = acc;
  if (auto vec = dyn_cast<VectorType>(v.getType()))
    to = vec.clone(acc);
  if (isa<FloatType>(acc))
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::ExtSIOp::create(b, loc, to, v);
}

/// acc + a * b in the accumulator type.
Value multiplyAdd(OpBuilder &b, Location loc, Value a, Value bv, Value acc) {
  if (isa<FloatType>(getElementTypeOrSelf(acc.getType())))
    return vector::FMAOp::create(b, loc, a, bv, acc);
  Value product = arith::MulIOp::create(b, loc, a, bv);
  return arith::AddIOp::create(b, loc, acc, product);
}

/// Whether `value` is +0 (a zero integer, or a float zero with its sign
/// bit clear: C += A x B from -0 can differ in the sign of a zero).
bool isPositiveZero(Attribute value) {
  if (auto f = dyn_cast<FloatAttr>(value))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast<IntegerAttr>(value))
    return i.getValue().isZero();
  return false;
}

/// Whether `source` is a memref.get_global of a constant all +0.
bool isZeroGlobal(Value source) {
  auto get = source.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return false;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  if (!global || !global.getConstant())
    return false;
  auto values = dyn_cast_or_null<DenseElementsAttr>(
      global.getInitialValue().value_or(Attribute()));
  return values && values.isSplat() &&
         isPositiveZero(values.getSplatValue<Attribute>());
}

/// Adds to `buffers` every view of them, wherever made: those alias them.
void addViews(DenseSet<Value> &buffers) {
  SmallVector<Value> worklist(buffers.begin(), buffers.end());
  while (!worklist.empty())
    for (Operation *user : worklist.pop_back_val().getUsers())
      if (isa<ViewLikeOpInterface>(user))
        for (Value view : user->getResults())
          if (buffers.insert(view).second)
            worklist.push_back(view);
}

/// Whether `op` or an op nested in it uses one of `buffers`.
bool touchesAny(Operation *op, const DenseSet<Value> &buffers) {
  return op
      ->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands())
          if (buffers.contains(operand))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// The op that sets all of `matmul`'s C, a local buffer, to +0 right before
/// it (only ops not touching C or a view of it in between, in its block): a
/// linalg.fill of a zero constant or a copy of a zero global (a tl.dot
/// without an accumulator in a loop is a copy of tl.zeros' constant into
/// the loop's C). The micro-kernels then start their accumulators at zero
/// instead of loading the zeros from C, and the initializer goes: 16 KiB of
/// memset per attention step, and a tile configuration reloaded after that
/// call. Null when there is none.
Operation *zeroInitializer(linalg::MatmulOp matmul) {
  Value C = matmul.getDpsInits()[0];
  if (!isa_and_nonnull<memref::AllocaOp, memref::AllocOp>(C.getDefiningOp()))
    return nullptr;
  DenseSet<Value> views = {C};
  addViews(views);
  for (Operation *op = matmul->getPrevNode(); op; op = op->getPrevNode()) {
    if (!touchesAny(op, views))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      Attribute value;
      if (fill.getDpsInits()[0] == C &&
          matchPattern(fill.getDpsInputs()[0], m_Constant(&value)) &&
          isPositiveZero(value))
        return op;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      if (copy.getTarget() == C && isZeroGlobal(copy.getSource()))
        return op;
    return nullptr;
  }
  return nullptr;
}

/// The largest packed B tile, in bytes: it lives on the stack (one per
/// matmul of the kernel), as the tiles spine-stack-buffers places there do.
constexpr int64_t kMaxPackedBytes = 64 * 1024;

struct VectorizeMatmulPass : impl::VectorizeMatmulBase<VectorizeMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) {
      if (op.hasPureBufferSemantics() && isDefaultMatmul(op))
        matmuls.push_back(op);
    });
    for (size_t first = 0; first < matmuls.size();) {
      if (!amxGroup(matmuls[first])) {
        rewrite(matmuls[first++]);
        continue;
      }
      size_t end = first + 1;
      while (end < matmuls.size() &&
             joinsTileRun(ArrayRef(matmuls).slice(first, end - first),
                          matmuls[end]))
        ++end;
      rewriteAsTiles(ArrayRef(matmuls).slice(first, end - first));
      first = end;
    }
  }

  /// Only the plain C += A x B form (no transposed or broadcast maps).
  static bool isDefaultMatmul(linalg::MatmulOp op) {
    SmallVector<AffineMap> defaults =
        linalg::MatmulOp::getDefaultIndexingMaps(op.getContext());
    return op.getIndexingMapsArray() == defaults;
  }

  /// The element type of a memref.
  static Type elementType(Value buffer) {
    return cast<MemRefType>(buffer.getType()).getElementType();
  }

  void rewrite(linalg::MatmulOp op) {
    Value A = op.getDpsInputs()[0], B = op.getDpsInputs()[1],
          C = op.getDpsInits()[0];
    if (!hasContiguousRows(A) || !hasContiguousRows(B) || !hasContiguousRows(C))
      return;
    auto cType = cast<MemRefType>(C.getType());
    Type accType = cType.getElementType();
    if (!accType.isIntOrFloat() || accType.getIntOrFloatBitWidth() > 64)
      return;
    int64_t M = cType.getDimSize(0), N = cType.getDimSize(1);
    int64_t K = cast<MemRefType>(A.getType()).getDimSize(1);
    int64_t lanes = vectorBits / accType.getIntOrFloatBitWidth();
    if (lanes < 1 || N % lanes != 0 || M == 0 || K == 0)
      return;

    // NR/VL B vectors plus MR x NR/VL accumulators must fit the register
    // file, keeping one register for the broadcast. Block sizes are powers
    // of two, so MR (often 6) need not divide M: the last M % MR rows get a
    // block of their own.
    auto [mr, cols] = chooseBlock(M, N / lanes);
    int64_t mainRows = M - M % mr;
    OpBuilder b(op);
    Value packedB;
    Type pairType = pairElementType(A, B, accType, K, N, lanes);
    // Narrower inputs (f16 or bf16 with an f32 C, i8 with i32) would be
    // widened in the K loop, once per use: every A element per column block
    // (on x86 a scalar load, shift or convert, move and broadcast for each
    // FMA row), every B vector per row block. Widened once into copies of the
    // type the K loop reads them in (the accumulator's, fp32 for f16/bf16, or
    // the pair steps'), A is broadcast straight from memory.
    // Where the FMA widens fp16 itself, the K loop's extensions fold into
    // it: copies would only add a pass over A and B.
    bool widenInFma = fp16WideningFma && accType.isF32() &&
                      elementType(A).isF16() && elementType(B).isF16();
    Type aType = pairType ? pairType : accType;
    // With one column block each A element is still broadcast once per K
    // step, but a narrow float or an int8 pair widened in the loop costs
    // vector instructions per row (x86: vcvtph2ps, a shift or vpmovsxbw and a
    // vpbroadcastd on the FMA ports; RVV without Zfbfmin: a vmv.v.x splat
    // feeding vfmacc.vv), where a copy widens a row a vector at a time and
    // the loop broadcasts from memory (vfmacc.vf, vfmadd231ps {1to16}, a
    // vpbroadcastd load). One integer widens for free in the loop's scalar
    // load (RVV's vmacc.vx takes the scalar itself).
    bool widensInVectors = isa<FloatType>(elementType(A)) || pairType;
    if (!widenInFma && elementType(A) != aType &&
        (N / (cols * lanes) > 1 || widensInVectors) &&
        M * K * aType.getIntOrFloatBitWidth() / 8 <= kMaxPackedBytes)
      A = packWidened(b, op, A, aType, lanes);
    if (pairType) {
      packedB = packPairs(b, op, B, K, N, lanes, pairType);
    } else if (!widenInFma && elementType(B) != accType && M > mr &&
               K * N * accType.getIntOrFloatBitWidth() / 8 <= kMaxPackedBytes) {
      B = packWidened(b, op, B, accType, lanes);
    }
    if (!packedB && (elementType(B) == accType || widenInFma))
      padRows(B, op);
    Operation *zeros = zeroInitializer(op);
    emitMicroKernel(b, op.getLoc(), A, B, C, 0, mainRows, N, K, mr, cols, lanes,
                    accType, packedB, zeros);
    if (mainRows != M) {
      // The leftover rows get the widest block that fits: with few rows, a
      // narrow one has too few independent accumulators to hide FMA latency.
      auto [tailRows, tailCols] =
          chooseBlock(M - mainRows, N / lanes, /*allRows=*/true);
      emitMicroKernel(b, op.getLoc(), A, B, C, mainRows, M, N, K, tailRows,
                      tailCols, lanes, accType, packedB, zeros);
    }
    if (zeros)
      zeros->erase();
    op.erase();
  }

  /// Pads the rows of `B` (paddedRowLength) when it is a buffer of the kernel
  /// that only element loads and stores, its deallocation and `matmul` use:
  /// those read and write the same elements whatever the row stride.
  static void padRows(Value B, linalg::MatmulOp matmul) {
    auto type = cast<MemRefType>(B.getType());
    int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
    int64_t padded =
        paddedRowLength(rows, columns, type.getElementTypeBitWidth() / 8);
    Operation *alloc = B.getDefiningOp();
    if (padded == columns ||
        !isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(alloc) ||
        alloc->getNumOperands() != 0 || !type.getLayout().isIdentity())
      return;
    for (Operation *user : B.getUsers())
      if (user != matmul &&
          !isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
               memref::DeallocOp>(user))
        return;
    B.setType(MemRefType::get({rows, padded}, type.getElementType(),
                              MemRefLayoutAttrInterface{},
                              type.getMemorySpace()));
  }

  /// The element type in which the micro-kernel multiplies pairs of K
  /// steps at once, or null: bf16 (vdpbf16ps on 256- or 512-bit vectors of
  /// f32 lanes) or i16 (vpmaddwd on 128- to 512-bit vectors of i32 lanes,
  /// int8 inputs widened).
  Type pairElementType(Value A, Value B, Type accType, int64_t K, int64_t N,
                       int64_t lanes) const {
    if (K % 2 != 0 || K * N * 2 > kMaxPackedBytes)
      return {};
    Type a = elementType(A), bElt = elementType(B);
    if (bf16DotProduct && accType.isF32() && a.isBF16() && bElt.isBF16() &&
        (lanes == 16 || lanes == 8))
      return a;
    if (int16PairProduct && accType.isInteger(32) && a.isInteger(8) &&
        bElt.isInteger(8) && (lanes == 16 || lanes == 8 || lanes == 4))
      return IntegerType::get(accType.getContext(), 16);
    return {};
  }

  /// amxKGroup of `op` when amx-tiles is set, its operands have contiguous
  /// rows and B packed in pairs or quads fits the stack; else 0.
  int64_t amxGroup(linalg::MatmulOp op) const {
    Value A = op.getDpsInputs()[0], B = op.getDpsInputs()[1],
          C = op.getDpsInits()[0];
    if (!amxTiles || !hasContiguousRows(A) || !hasContiguousRows(B) ||
        !hasContiguousRows(C))
      return 0;
    auto cType = cast<MemRefType>(C.getType());
    int64_t M = cType.getDimSize(0), N = cType.getDimSize(1);
    int64_t K = cast<MemRefType>(A.getType()).getDimSize(1);
    int64_t group =
        amxKGroup(elementType(A), elementType(B), elementType(C), M, N, K);
    if (!group || K * N * 4 / group > kMaxPackedBytes)
      return 0;
    return group;
  }

  /// Whether `next`, a dot that fits AMX tiles, can join the run of dots
  /// `run` (in one block, in order): it accumulates into the same C and
  /// nothing between the run's last dot and it touches C or the run's A and
  /// B, or a view of them (an unrolled K loop's next tiles are loaded there,
  /// into buffers of their own). The run's products then happen where `next`
  /// is.
  bool joinsTileRun(ArrayRef<linalg::MatmulOp> run,
                    linalg::MatmulOp next) const {
    linalg::MatmulOp last = run.back();
    if (next->getBlock() != last->getBlock() ||
        next.getDpsInits()[0] != last.getDpsInits()[0] || !amxGroup(next))
      return false;
    DenseSet<Value> kept = {last.getDpsInits()[0]};
    for (linalg::MatmulOp dot : run)
      for (Value input : dot.getDpsInputs())
        kept.insert(input);
    addViews(kept);
    for (Operation *op = last->getNextNode(); op != next;
         op = op->getNextNode())
      if (touchesAny(op, kept))
        return false;
    return true;
  }

  /// A run of dots into one C (joinsTileRun) as AMX tile products, where
  /// its last dot is: each B packed in pairs (bf16) or quads (i8), then
  /// emitAmxTiles.
  void rewriteAsTiles(ArrayRef<linalg::MatmulOp> run) {
    linalg::MatmulOp last = run.back();
    OpBuilder b(last);
    Value C = last.getDpsInits()[0];
    auto cType = cast<MemRefType>(C.getType());
    int64_t N = cType.getDimSize(1);
    SmallVector<std::pair<Value, Value>> operands;
    for (linalg::MatmulOp dot : run) {
      Value A = dot.getDpsInputs()[0], B = dot.getDpsInputs()[1];
      int64_t K = cast<MemRefType>(A.getType()).getDimSize(1);
      operands.push_back(
          {A, amxGroup(dot) == 2
                  ? packPairs(b, dot, B, K, N, kAmxRows, elementType(B))
                  : packQuads(b, dot, B, K, N)});
    }
    Operation *zeros = zeroInitializer(run.front());
    emitAmxTiles(b, last.getLoc(), operands, C, cType.getDimSize(0), N, zeros);
    if (zeros)
      zeros->erase();
    for (linalg::MatmulOp dot : run)
      dot.erase();
  }

  /// C [M, N] += A [M, K] x B for each (A, packed B) of `operands`, with B
  /// packed in groups of G = 2 (bf16, Bp [K/2, 2N], see packPairs) or 4 (i8,
  /// Bp [K/4, 4N], packQuads) K steps, as AMX tile products over blocks of
  /// up to 2 x 2 C tiles:
  ///
  ///   for i in 0..M step 16*RT, j in 0..N step 16*CT:
  ///     c[r][t] = tile_load C[i+16r, j+16t]       (tilezero with zeroC)
  ///     for each (A, Bp), for k in 0..K step 16G:
  ///       a[r] = tile_load A[i+16r, k]             (16 rows x 16G K steps)
  ///       b[t] = tile_load Bp[k/G, G(j+16t)]       (16 groups x 16 columns)
  ///       c[r][t] = tdpbf16ps / tdpbssd(a[r], b[t], c[r][t])
  ///     tile_store C[i+16r, j+16t] = c[r][t]
  ///
  /// The row loop is marked as a micro-kernel's, so that
  /// spine-schedule-tile-prefetches spreads the next tiles' prefetches over
  /// its blocks as it does for the vector micro-kernel.
  void emitAmxTiles(OpBuilder &b, Location loc,
                    ArrayRef<std::pair<Value, Value>> operands, Value C,
                    int64_t M, int64_t N, bool zeroC) {
    int64_t rowTiles = M % (2 * kAmxRows) == 0 ? 2 : 1;
    int64_t colTiles = N % (2 * kAmxRows) == 0 ? 2 : 1;
    // K steps per 32-bit element: 2 bf16 or 4 i8.
    Type inType = elementType(operands.front().first);
    int64_t group = 4 / (inType.getIntOrFloatBitWidth() / 8);
    auto accTile = amx::TileType::get({kAmxRows, kAmxRows}, elementType(C));
    auto inTile = amx::TileType::get({kAmxRows, group * kAmxRows}, inType);
    Value zero = constantIndex(b, loc, 0);
    auto offset = [&](OpBuilder &b, Value base, int64_t by) {
      return by == 0 ? base
                     : arith::AddIOp::create(b, loc, base,
                                             constantIndex(b, loc, by))
                           .getResult();
    };

    OpBuilder::InsertionGuard guard(b);
    auto [i, j] = openBlockLoops(b, loc, 0, M, rowTiles * kAmxRows, N,
                                 colTiles * kAmxRows);
    SmallVector<Value> rowAt, colAt, pairColAt;
    for (int64_t r = 0; r < rowTiles; ++r)
      rowAt.push_back(offset(b, i, r * kAmxRows));
    for (int64_t t = 0; t < colTiles; ++t) {
      colAt.push_back(offset(b, j, t * kAmxRows));
      pairColAt.push_back(arith::MulIOp::create(b, loc, colAt.back(),
                                                constantIndex(b, loc, group)));
    }
    SmallVector<Value> accs;
    for (Value row : rowAt)
      for (Value col : colAt)
        accs.push_back(
            zeroC ? amx::TileZeroOp::create(b, loc, accTile).getResult()
                  : amx::TileLoadOp::create(b, loc, accTile, C,
                                            ValueRange{row, col})
                        .getResult());
    // One K loop per dot of the run, each carrying C's tiles to the next.
    ValueRange carriedAccs = accs;
    for (auto [A, packedB] : operands) {
      int64_t K = cast<MemRefType>(A.getType()).getDimSize(1);
      auto kLoop = scf::ForOp::create(
          b, loc, zero, constantIndex(b, loc, K),
          constantIndex(b, loc, group * kAmxRows), carriedAccs,
          [&](OpBuilder &b, Location loc, Value k, ValueRange carried) {
            Value pairRow =
                arith::DivUIOp::create(b, loc, k, constantIndex(b, loc, group));
            SmallVector<Value> as, bs;
            for (Value row : rowAt)
              as.push_back(amx::TileLoadOp::create(b, loc, inTile, A,
                                                   ValueRange{row, k}));
            for (Value col : pairColAt)
              bs.push_back(amx::TileLoadOp::create(b, loc, inTile, packedB,
                                                   ValueRange{pairRow, col}));
            SmallVector<Value> next;
            for (auto [r, a] : llvm::enumerate(as))
              for (auto [t, bt] : llvm::enumerate(bs))
                next.push_back(
                    group == 2
                        ? amx::TileMulFOp::create(b, loc, accTile, a, bt,
                                                  carried[r * colTiles + t])
                              .getResult()
                        : amx::TileMulIOp::create(b, loc, accTile, a, bt,
                                                  carried[r * colTiles + t])
                              .getResult());
            scf::YieldOp::create(b, loc, next);
          });
      carriedAccs = kLoop.getResults();
    }
    for (int64_t r = 0; r < rowTiles; ++r)
      for (int64_t t = 0; t < colTiles; ++t)
        amx::TileStoreOp::create(b, loc, C, ValueRange{rowAt[r], colAt[t]},
                                 carriedAccs[r * colTiles + t]);
  }

  /// A 64-byte aligned stack buffer of `type` at the top of `op`'s function:
  /// made once per call, refilled by each run of the dot.
  static Value createPackedBuffer(OpBuilder &b, linalg::MatmulOp op,
                                  MemRefType type) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(
        &op->getParentOfType<func::FuncOp>().getBody().front());
    return memref::AllocaOp::create(b, op.getLoc(), type,
                                    b.getI64IntegerAttr(kTileAlignment));
  }

  /// B [K, N] packed in groups of `group` K steps: Bp[k/G, Gn + k%G] =
  /// B[k, n] in `packedType`'s element type, a stack buffer of the function
  /// filled here `lanes` columns at a time; `combine` makes the G * lanes
  /// packed elements from the group's G row vectors.
  Value packGroups(
      OpBuilder &b, linalg::MatmulOp op, Value B, int64_t K, int64_t N,
      int64_t group, int64_t lanes, Type packedType,
      function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> combine) {
    Location loc = op.getLoc();
    Value packed = createPackedBuffer(
        b, op, MemRefType::get({K / group, group * N}, packedType));
    auto row = VectorType::get({lanes}, elementType(B));
    auto groups = scf::ForOp::create(b, loc, constantIndex(b, loc, 0),
                                     constantIndex(b, loc, K / group),
                                     constantIndex(b, loc, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(groups.getBody());
    Value kk = groups.getInductionVar();
    Value first =
        arith::MulIOp::create(b, loc, kk, constantIndex(b, loc, group));
    SmallVector<Value, 4> rowAt = {first};
    for (int64_t r = 1; r < group; ++r)
      rowAt.push_back(
          arith::AddIOp::create(b, loc, first, constantIndex(b, loc, r)));
    auto columns = scf::ForOp::create(b, loc, constantIndex(b, loc, 0),
                                      constantIndex(b, loc, N),
                                      constantIndex(b, loc, lanes));
    b.setInsertionPointToStart(columns.getBody());
    Value n = columns.getInductionVar();
    SmallVector<Value, 4> rows;
    for (Value k : rowAt)
      rows.push_back(vector::LoadOp::create(b, loc, row, B, ValueRange{k, n}));
    Value at = arith::MulIOp::create(b, loc, n, constantIndex(b, loc, group));
    vector::StoreOp::create(b, loc, combine(b, loc, rows), packed,
                            ValueRange{kk, at});
    return packed;
  }

  /// B [K, N] packed for the pair steps (vdpbf16ps, vpmaddwd, AMX's
  /// tdpbf16ps): Bp[k/2, 2n + k%2] = B[k, n] in `pairType`, row pairs
  /// widened to `pairType` and interleaved.
  Value packPairs(OpBuilder &b, linalg::MatmulOp op, Value B, int64_t K,
                  int64_t N, int64_t lanes, Type pairType) {
    return packGroups(b, op, B, K, N, /*group=*/2, lanes, pairType,
                      [&](OpBuilder &b, Location loc, ArrayRef<Value> rows) {
                        Value even = widen(b, loc, rows[0], pairType);
                        Value odd = widen(b, loc, rows[1], pairType);
                        return vector::InterleaveOp::create(b, loc, even, odd);
                      });
  }

  /// B [K, N] of i8 packed in quads of K steps for AMX's tdpbssd:
  /// Bq[k/4, 4n + k%4] = B[k, n], 16 columns at a time: rows 0 and 1 and
  /// rows 2 and 3 of each quad interleaved bytewise, then the two
  /// interleaved as 16-bit pairs.
  Value packQuads(OpBuilder &b, linalg::MatmulOp op, Value B, int64_t K,
                  int64_t N) {
    Type i8 = elementType(B);
    return packGroups(
        b, op, B, K, N, /*group=*/4, kAmxRows, i8,
        [&](OpBuilder &b, Location loc, ArrayRef<Value> rows) -> Value {
          auto asPairs = VectorType::get({kAmxRows}, b.getI16Type());
          Value low = vector::BitCastOp::create(
              b, loc, asPairs,
              vector::InterleaveOp::create(b, loc, rows[0], rows[1]));
          Value high = vector::BitCastOp::create(
              b, loc, asPairs,
              vector::InterleaveOp::create(b, loc, rows[2], rows[3]));
          return vector::BitCastOp::create(
              b, loc, VectorType::get({4 * kAmxRows}, i8),
              vector::InterleaveOp::create(b, loc, low, high));
        });
  }

  /// A stack buffer of the function holding `source` [R, C] widened to
  /// `accType`, filled here: vectors of `lanes` along each row, single
  /// elements for the last C % lanes columns.
  Value packWidened(OpBuilder &b, linalg::MatmulOp op, Value source,
                    Type accType, int64_t lanes) {
    Location loc = op.getLoc();
    auto sourceType = cast<MemRefType>(source.getType());
    int64_t rows = sourceType.getDimSize(0), columns = sourceType.getDimSize(1);
    auto packedType = MemRefType::get(
        {rows,
         paddedRowLength(rows, columns, accType.getIntOrFloatBitWidth() / 8)},
        accType);
    Value packed = createPackedBuffer(b, op, packedType);
    int64_t vectorColumns = columns - columns % lanes;
    auto rowLoop = scf::ForOp::create(b, loc, constantIndex(b, loc, 0),
                                      constantIndex(b, loc, rows),
                                      constantIndex(b, loc, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rowLoop.getBody());
    Value row = rowLoop.getInductionVar();
    if (vectorColumns > 0) {
      auto loop = scf::ForOp::create(b, loc, constantIndex(b, loc, 0),
                                     constantIndex(b, loc, vectorColumns),
                                     constantIndex(b, loc, lanes));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value, 2> at = {row, loop.getInductionVar()};
      Value narrow = vector::LoadOp::create(
          b, loc, VectorType::get({lanes}, sourceType.getElementType()), source,
          at);
      vector::StoreOp::create(b, loc, widen(b, loc, narrow, accType), packed,
                              at);
    }
    if (vectorColumns < columns) {
      auto loop = scf::ForOp::create(
          b, loc, constantIndex(b, loc, vectorColumns),
          constantIndex(b, loc, columns), constantIndex(b, loc, 1));
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value, 2> at = {row, loop.getInductionVar()};
      Value narrow = memref::LoadOp::create(b, loc, source, at);
      memref::StoreOp::create(b, loc, widen(b, loc, narrow, accType), packed,
                              at);
    }
    return packed;
  }

  /// The MR x (cols vectors) block with the most accumulators for `rows`
  /// rows and `vectors` vectors per row: cols divides `vectors`, MR is at
  /// most 8 and `rows` (exactly `rows` with `allRows`), and the
  /// accumulators, the B vectors and one broadcast register fit the
  /// register file.
  std::pair<int64_t, int64_t> chooseBlock(int64_t rows, int64_t vectors,
                                          bool allRows = false) {
    int64_t budget = static_cast<int64_t>(vectorRegisters) - 1;
    int64_t bestMR = 1, bestCols = 1;
    for (int64_t cols : {4, 3, 2, 1}) {
      if (vectors % cols != 0 || budget - cols < cols)
        continue;
      int64_t mr = std::min<int64_t>({8, (budget - cols) / cols, rows});
      if (allRows && mr != rows)
        continue;
      if (mr * cols > bestMR * bestCols)
        bestMR = mr, bestCols = cols;
    }
    return {bestMR, bestCols};
  }

  /// The loops over C's blocks every micro-kernel runs: rows [rowBegin,
  /// rowEnd) by `rowStep`, marked for spine-schedule-tile-prefetches (which
  /// takes the loop over columns to be its first op), and columns [0, N) by
  /// `colStep`. Leaves `b` in the column loop's body; returns (row, column).
  static std::pair<Value, Value> openBlockLoops(OpBuilder &b, Location loc,
                                                int64_t rowBegin,
                                                int64_t rowEnd, int64_t rowStep,
                                                int64_t N, int64_t colStep) {
    auto rows = scf::ForOp::create(b, loc, constantIndex(b, loc, rowBegin),
                                   constantIndex(b, loc, rowEnd),
                                   constantIndex(b, loc, rowStep));
    rows->setAttr(kMicroKernelRows, b.getUnitAttr());
    b.setInsertionPointToStart(rows.getBody());
    auto cols = scf::ForOp::create(b, loc, constantIndex(b, loc, 0),
                                   constantIndex(b, loc, N),
                                   constantIndex(b, loc, colStep));
    b.setInsertionPointToStart(cols.getBody());
    return {rows.getInductionVar(), cols.getInductionVar()};
  }

  /// Rows [rowBegin, rowEnd) of C in blocks of MR rows (MR divides the
  /// range) and cols x VL columns.
  void emitMicroKernel(OpBuilder &b, Location loc, Value A, Value B, Value C,
                       int64_t rowBegin, int64_t rowEnd, int64_t N, int64_t K,
                       int64_t MR, int64_t cols, int64_t lanes, Type accType,
                       Value packedB, bool zeroC) {
    Type bElt = cast<MemRefType>(B.getType()).getElementType();
    auto accVec = VectorType::get({lanes}, accType);
    auto bVec = VectorType::get({lanes}, bElt);
    Value zero = constantIndex(b, loc, 0), one = constantIndex(b, loc, 1);

    OpBuilder::InsertionGuard guard(b);
    auto [i, j] = openBlockLoops(b, loc, rowBegin, rowEnd, MR, N, cols * lanes);

    SmallVector<Value> rowIdx, colIdx;
    for (int64_t r = 0; r < MR; ++r)
      rowIdx.push_back(
          r == 0 ? i
                 : arith::AddIOp::create(b, loc, i, constantIndex(b, loc, r))
                       .getResult());
    for (int64_t c = 0; c < cols; ++c)
      colIdx.push_back(c == 0 ? j
                              : arith::AddIOp::create(
                                    b, loc, j, constantIndex(b, loc, c * lanes))
                                    .getResult());

    SmallVector<Value> accs;
    Value zeroAcc;
    if (zeroC)
      zeroAcc =
          arith::ConstantOp::create(b, loc, accVec, b.getZeroAttr(accVec));
    for (int64_t r = 0; r < MR; ++r)
      for (int64_t c = 0; c < cols; ++c)
        accs.push_back(
            zeroC ? zeroAcc
                  : vector::LoadOp::create(b, loc, accVec, C,
                                           ValueRange{rowIdx[r], colIdx[c]})
                        .getResult());

    auto kLoop =
        packedB
            ? emitPairSteps(b, loc, A, packedB, K, rowIdx, colIdx, lanes, accs)
            : scf::ForOp::create(
                  b, loc, zero, constantIndex(b, loc, K), one, accs,
                  [&](OpBuilder &b, Location loc, Value k, ValueRange carried) {
                    SmallVector<Value> bs;
                    for (int64_t c = 0; c < cols; ++c)
                      bs.push_back(
                          widen(b, loc,
                                vector::LoadOp::create(
                                    b, loc, bVec, B, ValueRange{k, colIdx[c]}),
                                accType));
                    SmallVector<Value> next;
                    for (int64_t r = 0; r < MR; ++r) {
                      Value a = memref::LoadOp::create(
                          b, loc, A, ValueRange{rowIdx[r], k});
                      Value splat = vector::BroadcastOp::create(
                          b, loc, accVec, widen(b, loc, a, accType));
                      for (int64_t c = 0; c < cols; ++c)
                        next.push_back(multiplyAdd(b, loc, splat, bs[c],
                                                   carried[r * cols + c]));
                    }
                    scf::YieldOp::create(b, loc, next);
                  });

    for (int64_t r = 0; r < MR; ++r)
      for (int64_t c = 0; c < cols; ++c)
        vector::StoreOp::create(b, loc, kLoop.getResult(r * cols + c), C,
                                ValueRange{rowIdx[r], colIdx[c]});
  }

  /// The K loop of a block over pairs of K steps (packPairs): each step
  /// loads the packed B vectors of the pair (2 x lanes elements) and, per
  /// row, broadcasts A's pair (widened to the pair type) as one 32-bit
  /// element; vdpbf16ps adds the pairs' products to f32 lanes, vpmaddwd
  /// sums them into i32 lanes that are added to the accumulators.
  static scf::ForOp emitPairSteps(OpBuilder &b, Location loc, Value A,
                                  Value packedB, int64_t K,
                                  ArrayRef<Value> rowIdx,
                                  ArrayRef<Value> colIdx, int64_t lanes,
                                  ValueRange accs) {
    Type pairType = elementType(packedB);
    auto pairVec = VectorType::get({2 * lanes}, pairType);
    auto accVec = cast<VectorType>(accs.front().getType());
    bool bf16 = pairType.isBF16();
    StringRef intrinsic =
        bf16 ? (lanes == 16 ? "llvm.x86.avx512bf16.dpbf16ps.512"
                            : "llvm.x86.avx512bf16.dpbf16ps.256")
             : (lanes == 16  ? "llvm.x86.avx512.pmaddw.d.512"
                : lanes == 8 ? "llvm.x86.avx2.pmadd.wd"
                             : "llvm.x86.sse2.pmadd.wd");
    return scf::ForOp::create(
        b, loc, constantIndex(b, loc, 0), constantIndex(b, loc, K / 2),
        constantIndex(b, loc, 1), accs,
        [&](OpBuilder &b, Location loc, Value kk, ValueRange carried) {
          Value k = arith::MulIOp::create(b, loc, kk, constantIndex(b, loc, 2));
          SmallVector<Value> bs;
          for (Value column : colIdx) {
            Value at =
                arith::MulIOp::create(b, loc, column, constantIndex(b, loc, 2));
            bs.push_back(vector::LoadOp::create(b, loc, pairVec, packedB,
                                                ValueRange{kk, at}));
          }
          SmallVector<Value> next;
          for (auto [r, row] : llvm::enumerate(rowIdx)) {
            Value pair = widen(b, loc,
                               vector::LoadOp::create(
                                   b, loc, VectorType::get({2}, elementType(A)),
                                   A, ValueRange{row, k}),
                               pairType);
            Value word = vector::ExtractOp::create(
                b, loc,
                vector::BitCastOp::create(
                    b, loc, VectorType::get({1}, b.getI32Type()), pair),
                0);
            Value splat = vector::BitCastOp::create(
                b, loc, pairVec,
                vector::BroadcastOp::create(
                    b, loc, VectorType::get({lanes}, b.getI32Type()), word));
            for (auto [c, bv] : llvm::enumerate(bs)) {
              Value acc = carried[r * colIdx.size() + c];
              if (bf16) {
                next.push_back(LLVM::CallIntrinsicOp::create(
                                   b, loc, accVec, b.getStringAttr(intrinsic),
                                   ValueRange{acc, splat, bv})
                                   .getResult(0));
                continue;
              }
              Value sums = LLVM::CallIntrinsicOp::create(
                               b, loc, accVec, b.getStringAttr(intrinsic),
                               ValueRange{splat, bv})
                               .getResult(0);
              next.push_back(arith::AddIOp::create(b, loc, acc, sums));
            }
          }
          scf::YieldOp::create(b, loc, next);
        });
  }
};

} // namespace
} // namespace mlir::spine
