//===- BoundShiftedExponents.cpp - exp(x - max(x)) takes arguments <= 0 ---===//
//
// Softmax exponentiates a block minus its maximum along an axis: every
// argument is at most 0 (or NaN), since x <= max(x) and rounding keeps the
// sign of the exact difference. Without AVX-512, our f32 exp
// (spine-approximate-math) must otherwise handle arguments up to overflow:
// it clamps them from above, caps the exponent at 127 and, as the cap leaves
// the reduced argument up to 0.78, needs a polynomial of degree 7. Here the
// argument is clamped to <= 1, which changes no value (NaN passes); after
// fusion and vectorization, where the maximum is out of sight, that clamp
// tells spine-approximate-math the bound (any bound up to 88 does): exp's
// upper clamp, the cap and a polynomial degree go (softmax on AVX2, Zen 3, in
// one process with the unbounded form: 4-13% faster; docs/benchmarks.md,
// session 22). The clamp is marked kKnownBound (KnownBound.h), so that
// spine-approximate-math reads x through it and it costs no op either
// (softmax on AVX-512: 13 ops per element in the exponential's walk instead
// of 14; session 42). The bound is 1, not 0: where a clamp stays, x86 makes a
// select against zero a compare and an and-mask, one op more than the vminps
// of a nonzero bound.
//
//===----------------------------------------------------------------------===//

#include "passes/KnownBound.h"
#include "passes/Passes.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

namespace mlir::spine {
#define GEN_PASS_DEF_BOUNDSHIFTEDEXPONENTS
#include "passes/Passes.h.inc"

namespace {

/// Whether `reduce` takes the maximum of `x` along `axis`: one operand, a
/// combine region that is a single maxnumf or maximumf of its arguments.
bool isMaximumOf(triton::ReduceOp reduce, Value x, int64_t axis) {
  if (!reduce || reduce->getNumOperands() != 1 || reduce.getSrcs()[0] != x ||
      static_cast<int64_t>(reduce.getAxis()) != axis)
    return false;
  Block &body = reduce.getCombineOp().front();
  if (body.getNumArguments() != 2 || body.getOperations().size() != 2)
    return false;
  Operation *combine = &body.front();
  if (!isa<arith::MaxNumFOp, arith::MaximumFOp>(combine))
    return false;
  auto isArgument = [&](Value v) {
    return v == body.getArgument(0) || v == body.getArgument(1);
  };
  return combine->getOperand(0) != combine->getOperand(1) &&
         isArgument(combine->getOperand(0)) &&
         isArgument(combine->getOperand(1)) &&
         body.getTerminator()->getOperand(0) == combine->getResult(0);
}

/// Whether `shift` repeats, at each element of `x`, the maximum of the
/// elements along one axis that include it: tt.splat of the maximum of a
/// 1-D `x`, or tt.broadcast of tt.expand_dims of a maximum along the same
/// axis.
bool isMaximumAlongAxis(Value shift, Value x) {
  if (auto splat = shift.getDefiningOp<triton::SplatOp>())
    return cast<RankedTensorType>(x.getType()).getRank() == 1 &&
           isMaximumOf(splat.getSrc().getDefiningOp<triton::ReduceOp>(), x, 0);
  Value expanded = shift;
  if (auto broadcast = shift.getDefiningOp<triton::BroadcastOp>())
    expanded = broadcast.getSrc();
  auto expand = expanded.getDefiningOp<triton::ExpandDimsOp>();
  return expand &&
         isMaximumOf(expand.getSrc().getDefiningOp<triton::ReduceOp>(), x,
                     expand.getAxis());
}

struct BoundShiftedExponentsPass
    : impl::BoundShiftedExponentsBase<BoundShiftedExponentsPass> {
  void runOnOperation() override {
    getOperation().walk([](math::ExpOp exp) {
      auto type = dyn_cast<RankedTensorType>(exp.getType());
      auto difference = exp.getOperand().getDefiningOp<arith::SubFOp>();
      if (!type || !type.getElementType().isF32() || !difference ||
          !isMaximumAlongAxis(difference.getRhs(), difference.getLhs()))
        return;
      OpBuilder b(exp);
      Location loc = exp.getLoc();
      Value one = arith::ConstantOp::create(
          b, loc, SplatElementsAttr::get(type, b.getF32FloatAttr(1.0)));
      Value argument = difference.getResult();
      // Unordered: NaN compares true and stays (the form ApproximateMath's
      // own clamps take, one vminps on x86).
      Value atMostOne = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULE,
                                              argument, one);
      auto clamped = arith::SelectOp::create(b, loc, atMostOne, argument, one);
      clamped->setAttr(kKnownBound, b.getUnitAttr());
      exp.getOperandMutable().assign(clamped.getResult());
    });
  }
};

} // namespace
} // namespace mlir::spine
