//===- PowApproximation.cpp - f32 pow as vector arithmetic ----------------===//
//
// pow(x, y) for f32 is exp(y * log|x|) computed in f64 (ExpLogF64.cpp),
// where the product's rounding (2^-53 of a value below 200 wherever the f32
// result is neither 0 nor infinite) costs nothing at f32 precision, and the
// result rounds once to f32. A libm call per lane kept every loop using pow
// scalar. C's special cases come from the arithmetic (zero, infinities, NaN
// through log and exp) or are selected: pow(x, 0) = pow(1, y) =
// pow(-1, +-inf) = 1, a negative finite base with a finite non-integer
// exponent is NaN, and a negative base (-0 included) with an odd integer
// exponent negates the result.
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

namespace mlir::spine {
namespace {

struct PowInF64 : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), type);
    Type f32 = rewriter.getF32Type(), f64 = rewriter.getF64Type();
    auto c = [&](double v) { return e.f(f32, v); };
    double inf = std::numeric_limits<double>::infinity();
    Value x = op.getLhs(), y = op.getRhs();

    // |x|^y = exp(y log|x|): log|x| is -inf at 0 and inf at infinity, and
    // exp takes the infinite products to 0 and infinity.
    Value absX = e.abs(x);
    Value logAbsX = logF64(e, e.extf(absX, f64), F64Accuracy::ForF32);
    Value result =
        expF64(e, e.mul(e.extf(y, f64), logAbsX), F64Accuracy::ForF32);

    // Signs and C's special cases, decided on the f32 operands.
    Value yIsInteger = e.cmpf(arith::CmpFPredicate::OEQ, e.floor(y), y);
    Value halfY = e.mul(y, c(0.5));
    Value yIsOdd = e.andb(
        yIsInteger, e.cmpf(arith::CmpFPredicate::UNE, e.floor(halfY), halfY));
    Type i32 = rewriter.getI32Type();
    Value xSignBit =
        e.cmpi(arith::CmpIPredicate::slt, e.bitcast(x, i32), e.i(i32, 0));
    result = e.select(e.andb(xSignBit, yIsOdd), e.neg(result), result);
    Value negativeFinite =
        e.andb(e.cmpf(arith::CmpFPredicate::OLT, x, c(0.0)),
               e.cmpf(arith::CmpFPredicate::OLT, absX, c(inf)));
    Value notInteger = e.xori(yIsInteger, e.i(rewriter.getI1Type(), 1));
    result =
        e.select(e.andb(negativeFinite, notInteger),
                 e.f(f64, std::numeric_limits<double>::quiet_NaN()), result);
    Value one =
        e.orb(e.orb(e.cmpf(arith::CmpFPredicate::OEQ, y, c(0)),
                    e.cmpf(arith::CmpFPredicate::OEQ, x, c(1))),
              e.andb(e.cmpf(arith::CmpFPredicate::OEQ, absX, c(1)),
                     e.cmpf(arith::CmpFPredicate::OEQ, e.abs(y), c(inf))));
    rewriter.replaceOp(op, e.truncf(e.select(one, e.f(f64, 1.0), result), f32));
    return success();
  }
};

} // namespace

void populatePowApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<PowInF64>(patterns.getContext());
}

} // namespace mlir::spine
