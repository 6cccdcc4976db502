//===- DefineIntegerArithmetic.cpp - integer ops defined for all operands -===//
//
// LLVM IR leaves some integer operands undefined where Triton kernels meet
// them in ordinary code, and x86 makes the worst of it:
//
// - division by zero and the signed INT_MIN / -1 trap (idiv raises SIGFPE,
//   which killed the Python process), yet GPU kernels divide in lanes they
//   then mask off (a masked tl.load with other=0 feeding `a // b`). They get
//   RISC-V's results on every target: x / 0 is all ones (-1 signed), x % 0
//   is x, INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0, by dividing by 1
//   there and selecting the result.
// - a shift by the width or more is poison: x86's scalar shift takes the
//   count modulo the width, its vector shifts give 0, so an int8 `x << 9`
//   was x << 1 in one lane and 0 in another. As torch (and NVIDIA's shl.b32,
//   which clamps the count) has it: << and unsigned >> give 0, signed >>
//   fills with the sign.
//
// Ops whose second operand is a constant known to be safe stay as they are.
// Index arithmetic is ours (addresses, trip counts) and is left alone.
//
//===----------------------------------------------------------------------===//

#include "passes/ElementwiseBuilder.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

namespace mlir::spine {
#define GEN_PASS_DEF_DEFINEINTEGERARITHMETIC
#include "passes/Passes.h.inc"

namespace {

using arith::CmpIPredicate;

/// The constant (or splat) value of `v`, if it has one.
std::optional<APInt> constantOf(Value v) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return std::nullopt;
  return value;
}

/// The integer element type of `op`'s result, or null for index and floats.
IntegerType integerElement(Operation *op) {
  auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(op->getResult(0)));
  return element && element.isSignless() ? element : IntegerType();
}

/// `op` (a division or remainder) with its divisor made safe and the
/// defined result for the divisors that were not.
template <typename Op>
void defineDivision(Op op, bool isSigned, bool isRemainder) {
  IntegerType element = integerElement(op);
  Value dividend = op.getLhs(), divisor = op.getRhs();
  std::optional<APInt> constant = constantOf(divisor);
  if (!element ||
      (constant && !constant->isZero() && !(isSigned && constant->isAllOnes())))
    return;
  OpBuilder b(op);
  ElementwiseBuilder e(b, op.getLoc(), op.getType());
  Value zero = e.i(element, 0), one = e.i(element, 1);
  Value allOnes = e.i(element, -1);
  Value minimum =
      isSigned
          ? e.i(element,
                APInt::getSignedMinValue(element.getWidth()).getSExtValue())
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

/// `op` (a shift) defined for counts of the width and more (as unsigned
/// counts: a negative count is one of them).
template <typename Op> void defineShift(Op op, bool fillsWithSign) {
  IntegerType element = integerElement(op);
  Value value = op.getLhs(), count = op.getRhs();
  unsigned width = element ? element.getWidth() : 0;
  std::optional<APInt> constant = constantOf(count);
  if (!element || (constant && constant->ult(width)))
    return;
  OpBuilder b(op);
  ElementwiseBuilder e(b, op.getLoc(), op.getType());
  Value widthLess1 = e.i(element, width - 1);
  if (fillsWithSign) {
    // x >> (width - 1) is the sign everywhere.
    op.getRhsMutable().assign(e.minu(count, widthLess1));
    return;
  }
  Value zero = e.i(element, 0);
  Value inRange = e.cmpi(CmpIPredicate::ule, count, widthLess1);
  Value shifted = Op::create(b, op.getLoc(), value, count);
  op.getResult().replaceAllUsesWith(e.select(inRange, shifted, zero));
  op.erase();
}

struct DefineIntegerArithmeticPass
    : impl::DefineIntegerArithmeticBase<DefineIntegerArithmeticPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto div = dyn_cast<arith::DivSIOp>(op))
        defineDivision(div, /*isSigned=*/true, /*isRemainder=*/false);
      else if (auto div = dyn_cast<arith::DivUIOp>(op))
        defineDivision(div, /*isSigned=*/false, /*isRemainder=*/false);
      else if (auto rem = dyn_cast<arith::RemSIOp>(op))
        defineDivision(rem, /*isSigned=*/true, /*isRemainder=*/true);
      else if (auto rem = dyn_cast<arith::RemUIOp>(op))
        defineDivision(rem, /*isSigned=*/false, /*isRemainder=*/true);
      else if (auto shift = dyn_cast<arith::ShLIOp>(op))
        defineShift(shift, /*fillsWithSign=*/false);
      else if (auto shift = dyn_cast<arith::ShRUIOp>(op))
        defineShift(shift, /*fillsWithSign=*/false);
      else if (auto shift = dyn_cast<arith::ShRSIOp>(op))
        defineShift(shift, /*fillsWithSign=*/true);
    });
  }
};

} // namespace
} // namespace mlir::spine
