//===- VectorizeTransposes.cpp - 2-D transposes in vector registers -------===//
//
// A linalg.transpose of a 2-D tile, as loops, reads one of its sides with a
// stride: a gather per vector of lanes (one element per cycle or worse on
// x86). The transposes tl.trans makes, and the transposed strided loads of a
// tile (a column-major matrix read as a tl.dot operand, x @ W^T with a
// torch Linear weight), become blocks of L x L elements (L lanes per
// register): L row loads, log2(L) rounds of two-input shuffles that swap
// the off-diagonal halves of ever smaller sub-blocks (Eklundh's transpose:
// L log2(L) shuffles), and L row stores.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::spine {
#define GEN_PASS_DEF_VECTORIZETRANSPOSES
#include "passes/Passes.h.inc"

namespace {

constexpr int64_t kMaxLanes = 16;

/// Whether `type` is a statically shaped 2-D memref with a unit inner
/// stride whose sides are multiples of `lanes`.
bool isTileOfBlocks(MemRefType type, int64_t lanes) {
  if (type.getRank() != 2 || !type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides[1] != 1)
    return false;
  return type.getDimSize(0) % lanes == 0 && type.getDimSize(1) % lanes == 0;
}

/// The transpose of the L x L block `rows` (L vectors of L lanes): for
/// s = L/2, ..., 1, rows i and i + s of every 2s-row group exchange the
/// upper-right and lower-left s x s quarters of each 2s x 2s block.
SmallVector<Value> transposeBlock(OpBuilder &b, Location loc,
                                  SmallVector<Value> rows) {
  int64_t lanes = rows.size();
  for (int64_t s = lanes / 2; s >= 1; s /= 2) {
    // Per 2s-lane chunk: the first (top) or second (bottom) s lanes of a,
    // then the same of b (b's lanes are numbered from `lanes`).
    SmallVector<int64_t> top, bottom;
    for (int64_t chunk = 0; chunk < lanes; chunk += 2 * s) {
      for (int64_t from : {int64_t(0), lanes})
        for (int64_t j = 0; j < s; ++j)
          top.push_back(from + chunk + j);
      for (int64_t from : {int64_t(0), lanes})
        for (int64_t j = 0; j < s; ++j)
          bottom.push_back(from + chunk + s + j);
    }
    for (int64_t i = 0; i < lanes; ++i) {
      if (i & s)
        continue;
      Value a = rows[i], c = rows[i + s];
      rows[i] = vector::ShuffleOp::create(b, loc, a, c, top);
      rows[i + s] = vector::ShuffleOp::create(b, loc, a, c, bottom);
    }
  }
  return rows;
}

struct VectorizeTransposesPass
    : impl::VectorizeTransposesBase<VectorizeTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (op.hasPureBufferSemantics() &&
          op.getPermutation() == ArrayRef<int64_t>{1, 0})
        transposes.push_back(op);
    });
    for (linalg::TransposeOp op : transposes)
      rewrite(op);
  }

  void rewrite(linalg::TransposeOp op) {
    Value in = op.getInput(), out = op.getInit();
    auto inType = cast<MemRefType>(in.getType());
    Type element = inType.getElementType();
    if (!element.isIntOrFloat())
      return;
    // Blocks of at most 16 x 16: 16 rows and the shuffles' temporaries fit
    // 32 registers (narrower elements use part of a register).
    int64_t lanes = std::min<int64_t>(
        kMaxLanes, vectorBits / element.getIntOrFloatBitWidth());
    if (lanes < 4 || !llvm::isPowerOf2_64(lanes) ||
        !isTileOfBlocks(inType, lanes) ||
        !isTileOfBlocks(cast<MemRefType>(out.getType()), lanes))
      return;
    Location loc = op.getLoc();
    OpBuilder b(op);
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    auto rowType = VectorType::get({lanes}, element);
    // in is C x R: its rows are out's columns.
    auto cols = scf::ForOp::create(b, loc, index(0),
                                   index(inType.getDimSize(0)), index(lanes));
    b.setInsertionPointToStart(cols.getBody());
    auto rows = scf::ForOp::create(b, loc, index(0),
                                   index(inType.getDimSize(1)), index(lanes));
    b.setInsertionPointToStart(rows.getBody());
    Value c = cols.getInductionVar(), r = rows.getInductionVar();
    SmallVector<Value> block;
    for (int64_t i = 0; i < lanes; ++i) {
      Value at = i ? arith::AddIOp::create(b, loc, c, index(i)).getResult() : c;
      block.push_back(
          vector::LoadOp::create(b, loc, rowType, in, ValueRange{at, r}));
    }
    SmallVector<Value> transposed = transposeBlock(b, loc, block);
    for (int64_t j = 0; j < lanes; ++j) {
      Value at = j ? arith::AddIOp::create(b, loc, r, index(j)).getResult() : r;
      vector::StoreOp::create(b, loc, transposed[j], out, ValueRange{at, c});
    }
    op.erase();
  }
};

} // namespace
} // namespace mlir::spine
