//===- ReciprocalDivision.cpp - x / splat(d) as x * splat(1 / d) ----------===//
//
// A division costs several times a multiplication (vdivps: one per 5 cycles
// on Zen 3, against two FMAs per cycle) and kernels often divide a whole
// block by one value: softmax's `numerator / denominator`, a normalization
// by a row sum. Triton's `/` on fp32 promises no IEEE rounding (it is
// div.full.f32 on NVIDIA GPUs), so the block is multiplied by the
// reciprocal, computed once per distinct divisor. `tl.div_rn` (precise_divf)
// stays an exact division.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::spine {
#define GEN_PASS_DEF_RECIPROCALDIVISION
#include "passes/Passes.h.inc"

namespace {

/// The reciprocal of every element of `divisor` (a splat or broadcast), built
/// on the smaller value it repeats; null for any other divisor.
Value buildReciprocal(OpBuilder &b, Location loc, Value divisor) {
  auto one = [&](Type type) -> Value {
    TypedAttr attr = b.getFloatAttr(getElementTypeOrSelf(type), 1.0);
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      attr = SplatElementsAttr::get(tensor, attr);
    return arith::ConstantOp::create(b, loc, attr);
  };
  if (auto splat = divisor.getDefiningOp<triton::SplatOp>()) {
    Value src = splat.getSrc();
    Value reciprocal = arith::DivFOp::create(b, loc, one(src.getType()), src);
    return triton::SplatOp::create(b, loc, divisor.getType(), reciprocal);
  }
  if (auto broadcast = divisor.getDefiningOp<triton::BroadcastOp>()) {
    Value src = broadcast.getSrc();
    Value reciprocal = arith::DivFOp::create(b, loc, one(src.getType()), src);
    return triton::BroadcastOp::create(b, loc, divisor.getType(), reciprocal);
  }
  return {};
}

struct ReciprocalDivisionPass
    : impl::ReciprocalDivisionBase<ReciprocalDivisionPass> {
  void runOnOperation() override {
    SmallVector<arith::DivFOp> divisions;
    getOperation().walk([&](arith::DivFOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getType());
      if (type && type.getElementType().isF32())
        divisions.push_back(op);
    });
    for (arith::DivFOp op : divisions) {
      OpBuilder b(op);
      Value reciprocal = buildReciprocal(b, op.getLoc(), op.getRhs());
      if (!reciprocal)
        continue;
      Value product = arith::MulFOp::create(b, op.getLoc(), op.getLhs(),
                                            reciprocal, op.getFastmathAttr());
      op.replaceAllUsesWith(product);
      op.erase();
    }
  }
};

} // namespace
} // namespace mlir::spine
