//===- SaturateFloatToInt.cpp - float to integer conversions defined -----===//
//
// LLVM's fptosi and fptoui are poison for NaN and for values whose truncation
// does not fit the integer type, and the targets disagreed on them: x86's
// cvttps2dq gives INT_MIN for both (to int8, 300.0 gave 127 but inf -128),
// RISC-V's vfcvt saturates but turns NaN into the maximum. NVIDIA's cvt.rzi
// and AMD's v_cvt_i32_f32, where Triton kernels are written, saturate to
// the destination's range and give 0 for NaN; so do the kernel's
// conversions here, on every target: the truncation where it fits, the
// type's minimum or maximum beyond, 0 for NaN.
//
// Only the kernel's own conversions are rewritten (the pass runs on TTIR);
// those the pipeline builds later, in math approximations, are in range by
// construction and stay single instructions.
//
//===----------------------------------------------------------------------===//

#include "passes/ElementwiseBuilder.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

namespace mlir::spine {
#define GEN_PASS_DEF_SATURATEFLOATTOINT
#include "passes/Passes.h.inc"

namespace {

using arith::CmpFPredicate;

/// `op`'s conversion of `op.getIn()` replaced by the saturating one.
template <typename Op> void saturate(Op op, bool isSigned) {
  auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(op.getType()));
  if (!element || element.getWidth() < 2)
    return;
  unsigned width = element.getWidth();
  OpBuilder b(op);
  ElementwiseBuilder e(b, op.getLoc(), op.getType());
  Value x = op.getIn();
  // Compared and converted in f32 (exactly, from narrower floats) or f64:
  // both hold the bounds, powers of two up to 2^64, exactly.
  auto from = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  if (from.getWidth() < 32) {
    x = arith::ExtFOp::create(b, op.getLoc(), e.like(b.getF32Type()), x);
    from = b.getF32Type();
  }
  double above = std::ldexp(1.0, isSigned ? width - 1 : width);
  double below = isSigned ? -above : 0.0;
  APInt maximum =
      isSigned ? APInt::getSignedMaxValue(width) : APInt::getMaxValue(width);
  APInt minimum =
      isSigned ? APInt::getSignedMinValue(width) : APInt::getMinValue(width);
  auto integer = [&](const APInt &v) {
    return createConstantLike(b, op.getLoc(), e.like(element),
                              b.getIntegerAttr(element, v));
  };
  Value result = Op::create(b, op.getLoc(), op.getType(), x);
  result = e.select(e.cmpf(CmpFPredicate::OGE, x, e.f(from, above)),
                    integer(maximum), result);
  result = e.select(e.cmpf(CmpFPredicate::OLT, x, e.f(from, below)),
                    integer(minimum), result);
  result = e.select(e.cmpf(CmpFPredicate::UNO, x, x), e.i(element, 0), result);
  op.getResult().replaceAllUsesWith(result);
  op.erase();
}

struct SaturateFloatToIntPass
    : impl::SaturateFloatToIntBase<SaturateFloatToIntPass> {
  void runOnOperation() override {
    SmallVector<Operation *> conversions;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::FPToSIOp, arith::FPToUIOp>(op))
        conversions.push_back(op);
    });
    for (Operation *op : conversions) {
      if (auto signedOp = dyn_cast<arith::FPToSIOp>(op))
        saturate(signedOp, /*isSigned=*/true);
      else
        saturate(cast<arith::FPToUIOp>(op), /*isSigned=*/false);
    }
  }
};

} // namespace
} // namespace mlir::spine
