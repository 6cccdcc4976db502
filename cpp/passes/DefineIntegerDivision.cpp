//===- DefineIntegerDivision.cpp - integer division by any divisor --------===//
//
// Integer division by zero, and the signed INT_MIN / -1, are undefined in
// LLVM IR and trap on x86 (idiv raises SIGFPE, which killed the Python
// process). GPU kernels divide freely in lanes they then mask off: a masked
// tl.load with other=0 feeding `a // b` is ordinary Triton code. Every
// integer division and remainder whose divisor is not a constant known safe
// gets RISC-V's defined results instead, on every target: x / 0 is all ones
// (-1 signed), x % 0 is x, INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0.
// The divisor is replaced by 1 where those apply, and the quotient or
// remainder selected: a compare or two and two selects per element. Index
// arithmetic is ours (addresses, trip counts) and left alone.
//
//===----------------------------------------------------------------------===//

#include "passes/ElementwiseBuilder.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

namespace mlir::spine {
#define GEN_PASS_DEF_DEFINEINTEGERDIVISION
#include "passes/Passes.h.inc"

namespace {

/// Whether dividing by `divisor` is defined in LLVM IR for every dividend:
/// a constant (or splat) that is neither 0 nor, for signed division, -1.
bool divisorIsSafe(Value divisor, bool isSigned) {
  APInt value;
  if (!matchPattern(divisor, m_ConstantInt(&value)))
    return false;
  return !value.isZero() && !(isSigned && value.isAllOnes());
}

/// `op` (a division or remainder of integers) with its divisor made safe and
/// the defined result for the divisors that were not.
template <typename Op> void define(Op op, bool isSigned, bool isRemainder) {
  Value dividend = op.getLhs(), divisor = op.getRhs();
  Type type = op.getType();
  Type element = getElementTypeOrSelf(type);
  if (!element.isSignlessInteger() || divisorIsSafe(divisor, isSigned))
    return;
  OpBuilder b(op);
  ElementwiseBuilder e(b, op.getLoc(), type);
  using arith::CmpIPredicate;
  unsigned width = element.getIntOrFloatBitWidth();
  Value zero = e.i(element, 0), one = e.i(element, 1);
  Value allOnes = e.i(element, -1);
  Value minimum =
      isSigned ? e.i(element, APInt::getSignedMinValue(width).getSExtValue())
               : Value();
  Value byZero = e.cmpi(CmpIPredicate::eq, divisor, zero);
  Value replaced = byZero;
  if (isSigned) {
    Value minimumDividend = e.cmpi(CmpIPredicate::eq, dividend, minimum);
    Value minusOne = e.cmpi(CmpIPredicate::eq, divisor, allOnes);
    replaced = e.orb(byZero, e.andb(minimumDividend, minusOne));
  }
  Value safeDivisor = e.select(replaced, one, divisor);
  Value result = Op::create(b, op.getLoc(), dividend, safeDivisor);
  result = e.select(byZero, isRemainder ? dividend : allOnes, result);
  op.getResult().replaceAllUsesWith(result);
  op.erase();
}

struct DefineIntegerDivisionPass
    : impl::DefineIntegerDivisionBase<DefineIntegerDivisionPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto div = dyn_cast<arith::DivSIOp>(op))
        define(div, /*isSigned=*/true, /*isRemainder=*/false);
      else if (auto div = dyn_cast<arith::DivUIOp>(op))
        define(div, /*isSigned=*/false, /*isRemainder=*/false);
      else if (auto rem = dyn_cast<arith::RemSIOp>(op))
        define(rem, /*isSigned=*/true, /*isRemainder=*/true);
      else if (auto rem = dyn_cast<arith::RemUIOp>(op))
        define(rem, /*isSigned=*/false, /*isRemainder=*/true);
    });
  }
};

} // namespace
} // namespace mlir::spine
