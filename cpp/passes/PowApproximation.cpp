//===- PowApproximation.cpp - f32 and f64 pow as vector arithmetic --------===//
//
// pow(x, y) for f32 is exp(y * log|x|) computed in f64 (ExpLogF64.cpp),
// where the product's rounding (2^-53 of a value below 200 wherever the f32
// result is neither 0 nor infinite) costs nothing at f32 precision, and the
// result rounds once to f32. For f64 the same product must carry about 64
// bits: an error d in y log|x| is a relative error d in the result, and the
// product reaches 745 before the result underflows. log|x| comes as hi + lo
// (logF64Extended, about 2^-64 relative), the product as y hi + (the FMA's
// rounding error of y hi + y lo), and exp takes the pair (expF64Extended).
// A libm call per lane kept every loop using pow scalar.
//
// C's special cases come from the arithmetic (zero, infinities, NaN through
// log and exp) or are selected: pow(x, 0) = pow(1, y) = pow(-1, +-inf) = 1,
// a negative finite base with a finite non-integer exponent is NaN, and a
// negative base (-0 included) with an odd integer exponent negates the
// result.
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

namespace mlir::spine {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// |x|^y (`magnitude`, f64, from exp and log) with C's special cases
/// applied, decided on the operands x and y (f32 or f64).
Value withSignsAndSpecialCases(ElementwiseBuilder &e, Value x, Value y,
                               Value magnitude) {
  using arith::CmpFPredicate;
  auto c = [&](double v) { return e.fLike(x, v); };
  Value absX = e.abs(x);
  Value yIsInteger = e.cmpf(CmpFPredicate::OEQ, e.floor(y), y);
  Value halfY = e.mul(y, c(0.5));
  Value yIsOdd =
      e.andb(yIsInteger, e.cmpf(CmpFPredicate::UNE, e.floor(halfY), halfY));
  Type bits =
      e.b.getIntegerType(getElementTypeOrSelf(x).getIntOrFloatBitWidth());
  Value xSignBit =
      e.cmpi(arith::CmpIPredicate::slt, e.bitcast(x, bits), e.i(bits, 0));
  Value result =
      e.select(e.andb(xSignBit, yIsOdd), e.neg(magnitude), magnitude);
  Value negativeFinite = e.andb(e.cmpf(CmpFPredicate::OLT, x, c(0.0)),
                                e.cmpf(CmpFPredicate::OLT, absX, c(kInf)));
  Value notInteger = e.xori(yIsInteger, e.i(e.b.getI1Type(), 1));
  result = e.select(
      e.andb(negativeFinite, notInteger),
      e.fLike(magnitude, std::numeric_limits<double>::quiet_NaN()), result);
  Value one = e.orb(e.orb(e.cmpf(CmpFPredicate::OEQ, y, c(0)),
                          e.cmpf(CmpFPredicate::OEQ, x, c(1))),
                    e.andb(e.cmpf(CmpFPredicate::OEQ, absX, c(1)),
                           e.cmpf(CmpFPredicate::OEQ, e.abs(y), c(kInf))));
  return e.select(one, e.fLike(magnitude, 1.0), result);
}

/// f32: |x|^y = exp(y log|x|) in f64. log|x| is -inf at 0 and inf at
/// infinity, and exp takes the infinite products to 0 and infinity.
Value powF32(ElementwiseBuilder &e, Value x, Value y) {
  Type f64 = e.b.getF64Type();
  Value logAbsX = logF64(e, e.extf(e.abs(x), f64), F64Accuracy::ForF32);
  Value magnitude =
      expF64(e, e.mul(e.extf(y, f64), logAbsX), F64Accuracy::ForF32);
  return e.truncf(withSignsAndSpecialCases(e, x, y, magnitude),
                  e.b.getF32Type());
}

/// f64: |x|^y = exp(y (hi + lo)), log|x| = hi + lo. Zero, infinite and NaN
/// |x| take log's value there (-inf, inf, NaN) as hi, and 0 as lo; the pair
/// is computed on 1 instead, so that their infinities never meet in the
/// error terms.
Value powF64(ElementwiseBuilder &e, Value x, Value y) {
  using arith::CmpFPredicate;
  auto c = [&](double v) { return e.fLike(x, v); };
  Value absX = e.abs(x);
  Value regular = e.andb(e.cmpf(CmpFPredicate::OGT, absX, c(0.0)),
                         e.cmpf(CmpFPredicate::OLT, absX, c(kInf)));
  auto [hi, lo] = logF64Extended(e, e.select(regular, absX, c(1.0)));
  Value special =
      e.select(e.cmpf(CmpFPredicate::OEQ, absX, c(0.0)), c(-kInf), absX);
  hi = e.select(regular, hi, special);
  lo = e.select(regular, lo, c(0.0));
  Value productHi = e.mul(y, hi);
  Value productLo = e.fma(y, lo, e.fma(y, hi, e.neg(productHi)));
  return withSignsAndSpecialCases(e, x, y,
                                  expF64Extended(e, productHi, productLo));
}

struct PowApproximation : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    if (!element.isF32() && !element.isF64())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, element.isF32()
                               ? powF32(e, op.getLhs(), op.getRhs())
                               : powF64(e, op.getLhs(), op.getRhs()));
    return success();
  }
};

} // namespace

void populatePowApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<PowApproximation>(patterns.getContext());
}

} // namespace mlir::spine
