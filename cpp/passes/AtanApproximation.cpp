//===- AtanApproximation.cpp - atan, atan2, asin, acos as vector code -----===//
//
// MLIR's f32 atan2 approximation was 40 ulp off near 0.58 and got C's special
// cases wrong (atan2(+-0, +-0) and atan2(+-inf, +-inf) were NaN, a negative y
// over -0 or -inf gave +pi). Ours, within 2.1 ulp: the quotient of the smaller
// by the larger of |x| and |y| in [0, 1], above tan(pi/8) moved next to 0 by
// atan(a) = pi/4 + atan((a - 1) / (a + 1)) (one division either way), a
// polynomial there, then the octant's multiple of pi/4 added back (in two
// parts, so its rounding is not the result's) and y's sign copied. atan(x) is
// atan2(x, 1). f64 atan and atan2 (a libm call per lane before) reduce the
// same way, with a longer polynomial and the multiple of pi/4 added once;
// f64 asin and acos are atan2 of x and sqrt(1 - x^2).
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

namespace mlir::spine {
namespace {

using arith::CmpFPredicate;

/// (atan(t) - t) / t^3 as a polynomial in t^2 for |t| <= tan(pi/8):
/// coefficients of z^0, z^1, ..., fitted to relative error in atan (0.05
/// ulp before f32 rounding).
constexpr double kAtanOverCube[] = {-0.33333316445350647, 0.19998471438884735,
                                    -0.14243532717227936, 0.10593808442354202,
                                    -0.06078209728002548};

/// c rounded to f32 and the rest, for adding c with one rounding less.
std::pair<double, double> split(double c) {
  double hi = static_cast<float>(c);
  return {hi, c - hi};
}

/// |x| and |y| ordered, and which was larger.
struct Magnitudes {
  Value yLarger, larger, smaller;
};

Magnitudes orderMagnitudes(ElementwiseBuilder &e, Value y, Value x) {
  Value absY = e.abs(y), absX = e.abs(x);
  Value yLarger = e.cmpf(CmpFPredicate::OGT, absY, absX);
  return {yLarger, e.select(yLarger, absY, absX),
          e.select(yLarger, absX, absY)};
}

/// Whether x's sign bit is set (-0 included), for the octant folds.
Value signBit(ElementwiseBuilder &e, Value x) {
  auto bits = e.b.getIntegerType(
      getElementTypeOrSelf(x.getType()).getIntOrFloatBitWidth());
  return e.cmpi(arith::CmpIPredicate::slt, e.bitcast(x, bits), e.i(bits, 0));
}

/// C's special cases of atan2 over `angle`, then y's sign: 0 / 0 gives 0 or
/// pi and inf / inf pi/4 or 3 pi/4 by the sign of x, NaN stays NaN.
Value withAtan2SpecialCases(ElementwiseBuilder &e, Value angle, Value y,
                            Value x, const Magnitudes &m, Value xNegative) {
  Type element = getElementTypeOrSelf(angle.getType());
  auto c = [&](double v) { return e.f(element, v); };
  Value zeros = e.cmpf(CmpFPredicate::OEQ, m.larger, c(0.0));
  angle = e.select(zeros, e.select(xNegative, c(M_PI), c(0.0)), angle);
  Value infinities = e.cmpf(CmpFPredicate::OEQ, m.smaller,
                            c(std::numeric_limits<double>::infinity()));
  angle = e.select(infinities, e.select(xNegative, c(3 * M_PI_4), c(M_PI_4)),
                   angle);
  Value eitherNaN = e.cmpf(CmpFPredicate::UNO, x, y);
  angle =
      e.select(eitherNaN, c(std::numeric_limits<double>::quiet_NaN()), angle);
  return e.copysign(angle, y);
}

/// atan2(y, x) for f32 values (C's special cases included).
Value atan2F32(ElementwiseBuilder &e, Value y, Value x) {
  Type f32 = e.b.getF32Type();
  auto c = [&](double v) { return e.f(f32, v); };
  Magnitudes m = orderMagnitudes(e, y, x);
  Value yLarger = m.yLarger, larger = m.larger, smaller = m.smaller;
  // smaller / larger above tan(pi/8): (smaller - larger) / (smaller + larger)
  // instead, the tangent of the angle less pi/4; both quartered (exactly,
  // smaller is above 2^123 then) where the sum would overflow.
  Value reduce =
      e.cmpf(CmpFPredicate::OGT, smaller, e.mul(c(M_SQRT2 - 1), larger));
  Value quarter =
      e.select(e.cmpf(CmpFPredicate::OGT, larger, c(0x1p125)), c(0.25), c(1.0));
  Value s = e.mul(smaller, quarter), l = e.mul(larger, quarter);
  Value t = e.div(e.select(reduce, e.sub(s, l), smaller),
                  e.select(reduce, e.add(s, l), larger));
  Value z = e.mul(t, t);
  Value angle = e.fma(e.mul(t, z), e.polynomial(z, kAtanOverCube), t);

  // Add back pi/4, then fold: pi/2 - angle where |y| > |x|, pi - angle where
  // x is negative (-0 included).
  auto [quarterHi, quarterLo] = split(M_PI_4);
  auto [halfHi, halfLo] = split(M_PI_2);
  auto [piHi, piLo] = split(M_PI);
  angle =
      e.select(reduce, e.add(c(quarterHi), e.add(angle, c(quarterLo))), angle);
  angle = e.select(yLarger, e.add(e.sub(c(halfHi), angle), c(halfLo)), angle);
  Value xNegative = signBit(e, x);
  angle = e.select(xNegative, e.add(e.sub(c(piHi), angle), c(piLo)), angle);
  return withAtan2SpecialCases(e, angle, y, x, m, xNegative);
}

/// (atan(t) - t) / t^3 as a polynomial in t^2 for |t| <= tan(pi/8), from
/// tools/f64_math_constants.py (0.56 ulp in atan, evaluated in f64).
constexpr double kAtanOverCubeF64[] = {
    -0.3333333333333333,  0.199999999999998,     -0.14285714285659326,
    0.11111111105106705,  -0.09090908751076636,  0.0769229630497447,
    -0.06666423628069258, 0.058789145444006215,  -0.052303478730160745,
    0.04551108126325172,  -0.034558092551413795, 0.01627194475162406};

/// pi/4 rounded to f64, and the rest.
constexpr double kQuarterPiHi = 0x1.921fb54442d18p-1;
constexpr double kQuarterPiLo = 0x1.1a62633145c07p-55;

/// atan2(y, x) for f64 values (C's special cases included): as atan2F32
/// reduces, but the result is K pi/4 + sign atan(t) for the octant's K in
/// 0..4, added in one step, K pi/4 as hi + lo (the product's rounding error
/// from an FMA). Within 1 ulp over every binade (test_extern_elementwise.py).
Value atan2F64(ElementwiseBuilder &e, Value y, Value x) {
  Type f64 = e.b.getF64Type();
  auto c = [&](double v) { return e.f(f64, v); };
  Magnitudes m = orderMagnitudes(e, y, x);
  Value yLarger = m.yLarger, larger = m.larger, smaller = m.smaller;
  // Both scaled by a power of two (the quotient unchanged): quartered where
  // their sum could overflow, raised out of the subnormals, where products
  // and the test below would round.
  Value scale =
      e.select(e.cmpf(CmpFPredicate::OGT, larger, c(0x1p1021)), c(0.25),
               e.select(e.cmpf(CmpFPredicate::OLT, larger, c(0x1p-900)),
                        c(0x1p600), c(1.0)));
  Value s = e.mul(smaller, scale), l = e.mul(larger, scale);
  Value reduce = e.cmpf(CmpFPredicate::OGT, s, e.mul(c(M_SQRT2 - 1), l));
  // Above tan(pi/8), (s - l) / (s + l) with both parts' rounding errors
  // (Fast2Sum: l >= s), else s / l; the quotient's rounding error and theirs
  // carried as tLo, which the polynomial's small part takes (atan'(t) is 1
  // within 3%). An infinite l leaves t = 0 exact.
  Value nHi = e.sub(s, l), dHi = e.add(s, l);
  Value zero = c(0.0);
  Value nLo = e.select(reduce, e.sub(s, e.add(nHi, l)), zero);
  Value dLo = e.select(reduce, e.sub(s, e.sub(dHi, l)), zero);
  Value n = e.select(reduce, nHi, s), d = e.select(reduce, dHi, l);
  Value t = e.div(n, d);
  Value residual = e.add(e.fma(e.neg(t), d, n), e.fma(e.neg(t), dLo, nLo));
  Value tLo = e.select(
      e.cmpf(CmpFPredicate::OEQ, l, c(std::numeric_limits<double>::infinity())),
      zero, e.div(residual, d));
  Value z = e.mul(t, t);
  Value angle =
      e.add(t, e.fma(e.mul(t, z), e.polynomial(z, kAtanOverCubeF64), tLo));

  // In octants: reduce adds pi/4; |y| > |x| takes pi/2 less that; a negative
  // x (-0 included) pi less that. Each fold negates the angle.
  Value xNegative = signBit(e, x);
  Value k = e.select(reduce, c(1.0), c(0.0));
  k = e.select(yLarger, e.sub(c(2.0), k), k);
  k = e.select(xNegative, e.sub(c(4.0), k), k);
  Value negate = e.xori(yLarger, xNegative);
  angle = e.select(negate, e.neg(angle), angle);
  Value baseHi = e.mul(k, c(kQuarterPiHi));
  Value baseLo =
      e.fma(k, c(kQuarterPiLo), e.fma(k, c(kQuarterPiHi), e.neg(baseHi)));
  angle = e.add(baseHi, e.add(baseLo, angle));
  return withAtan2SpecialCases(e, angle, y, x, m, xNegative);
}

/// atan2 in f32 or f64 arithmetic, by y's element type.
Value atan2Of(ElementwiseBuilder &e, Value y, Value x) {
  return getElementTypeOrSelf(y.getType()).isF32() ? atan2F32(e, y, x)
                                                   : atan2F64(e, y, x);
}

bool hasVectorAtan(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isF32() || element.isF64();
}

struct Atan2Polynomial : OpRewritePattern<math::Atan2Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Atan2Op op,
                                PatternRewriter &rewriter) const override {
    if (!hasVectorAtan(op.getType()))
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, atan2Of(e, op.getLhs(), op.getRhs()));
    return success();
  }
};

struct AtanPolynomial : OpRewritePattern<math::AtanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::AtanOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasVectorAtan(op.getType()))
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), op.getType());
    Value one = e.f(getElementTypeOrSelf(op.getType()), 1.0);
    rewriter.replaceOp(op, atan2Of(e, op.getOperand(), one));
    return success();
  }
};

/// f64 asin x = atan2(x, c) and acos x = atan2(c, x) with c = sqrt(1 - x^2)
/// (libm calls per lane before): 1 - x^2 as (1 - |x|)(1 + |x|) with the
/// sum's rounding error carried (1 - |x| is exact from 1/2 up, where the
/// difference matters) and fma(-x, x, 1) below, so c is within an ulp; past
/// 1, c and the result are NaN.
template <typename OpTy, bool cosine>
struct InverseSineF64 : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF64())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), op.getType());
    auto c = [&](double v) { return e.f(rewriter.getF64Type(), v); };
    Value x = op.getOperand();
    Value a = e.abs(x);
    Value below = e.sub(c(1.0), a);
    Value aboveHi = e.add(c(1.0), a);
    Value aboveLo = e.sub(a, e.sub(aboveHi, c(1.0)));
    Value large = e.fma(below, aboveHi, e.mul(below, aboveLo));
    Value square = e.select(e.cmpf(CmpFPredicate::OLT, a, c(0.5)),
                            e.fma(e.neg(x), x, c(1.0)), large);
    Value other = e.sqrt(square);
    rewriter.replaceOp(op,
                       cosine ? atan2F64(e, other, x) : atan2F64(e, x, other));
    return success();
  }
};

} // namespace

void populateAtanApproximationPatterns(RewritePatternSet &patterns) {
  patterns
      .add<Atan2Polynomial, AtanPolynomial, InverseSineF64<math::AsinOp, false>,
           InverseSineF64<math::AcosOp, true>>(patterns.getContext());
}

} // namespace mlir::spine
