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
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type wide = withElementType(type, b.getF64Type());
    Type narrowBits = withElementType(type, b.getI32Type());
    auto f64 = [&](double v) { return splatFloat(b, loc, wide, v); };
    auto cmp = [&](arith::CmpFPredicate predicate, Value l, Value r) {
      return arith::CmpFOp::create(b, loc, predicate, l, r).getResult();
    };
    auto select = [&](Value c, Value t, Value f) {
      return arith::SelectOp::create(b, loc, c, t, f).getResult();
    };
    double inf = std::numeric_limits<double>::infinity();
    Value x = op.getLhs(), y = op.getRhs();

    // |x|^y = exp(y log|x|): log|x| is -inf at 0 and inf at infinity, and
    // exp takes the infinite products to 0 and infinity.
    Value absX = math::AbsFOp::create(b, loc, x);
    Value logAx = logF64(b, loc, arith::ExtFOp::create(b, loc, wide, absX));
    Value result =
        expF64(b, loc,
               arith::MulFOp::create(
                   b, loc, arith::ExtFOp::create(b, loc, wide, y), logAx));

    // Signs and C's special cases, decided on the f32 operands.
    auto f32 = [&](double v) { return splatFloat(b, loc, type, v); };
    Value yIsInteger =
        cmp(arith::CmpFPredicate::OEQ, math::FloorOp::create(b, loc, y), y);
    Value halfY = arith::MulFOp::create(b, loc, y, f32(0.5));
    Value yIsOdd =
        arith::AndIOp::create(b, loc, yIsInteger,
                              cmp(arith::CmpFPredicate::UNE,
                                  math::FloorOp::create(b, loc, halfY), halfY));
    Value xSignBit =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                              arith::BitcastOp::create(b, loc, narrowBits, x),
                              splatInt(b, loc, narrowBits, 0));
    result = select(arith::AndIOp::create(b, loc, xSignBit, yIsOdd),
                    arith::NegFOp::create(b, loc, result), result);
    Value negativeFinite = arith::AndIOp::create(
        b, loc, cmp(arith::CmpFPredicate::OLT, x, f32(0.0)),
        cmp(arith::CmpFPredicate::OLT, absX, f32(inf)));
    Value notInteger = arith::XOrIOp::create(
        b, loc, yIsInteger,
        splatInt(b, loc, withElementType(type, b.getI1Type()), 1));
    result = select(arith::AndIOp::create(b, loc, negativeFinite, notInteger),
                    f64(std::numeric_limits<double>::quiet_NaN()), result);
    Value one = arith::OrIOp::create(
        b, loc,
        arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OEQ, y, f32(0)),
                             cmp(arith::CmpFPredicate::OEQ, x, f32(1))),
        arith::AndIOp::create(b, loc,
                              cmp(arith::CmpFPredicate::OEQ, absX, f32(1)),
                              cmp(arith::CmpFPredicate::OEQ,
                                  math::AbsFOp::create(b, loc, y), f32(inf))));
    result = select(one, f64(1.0), result);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, result);
    return success();
  }
};

} // namespace

void populatePowApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<PowInF64>(patterns.getContext());
}

} // namespace mlir::spine
