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
// construction and stay single instructions. libdevice's conversions
// (float2int_rn, llrint, ...) become the same saturating conversion where
// they are expanded (createSaturatingFloatToInt).
//
//===----------------------------------------------------------------------===//

#include "passes/FloatConversions.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::spine {
#define GEN_PASS_DEF_SATURATEFLOATTOINT
#include "passes/Passes.h.inc"

namespace {

/// `op` (arith.fptosi or arith.fptoui) replaced by the saturating
/// conversion (not to i1: Triton casts to bool by comparing with zero).
void saturate(Operation *op) {
  Type type = op->getResult(0).getType();
  auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(type));
  if (!element || element.getWidth() < 2)
    return;
  OpBuilder b(op);
  op->getResult(0).replaceAllUsesWith(
      createSaturatingFloatToInt(b, op->getLoc(), op->getOperand(0), type,
                                 /*isSigned=*/isa<arith::FPToSIOp>(op)));
  op->erase();
}

struct SaturateFloatToIntPass
    : impl::SaturateFloatToIntBase<SaturateFloatToIntPass> {
  void runOnOperation() override {
    SmallVector<Operation *> conversions;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::FPToSIOp, arith::FPToUIOp>(op))
        conversions.push_back(op);
    });
    for (Operation *op : conversions)
      saturate(op);
  }
};

} // namespace
} // namespace mlir::spine
