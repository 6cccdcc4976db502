//===- AtanApproximation.cpp - f32 atan and atan2 as vector arithmetic ----===//
//
// MLIR's f32 atan2 approximation was 40 ulp off near 0.58 and got C's special
// cases wrong (atan2(+-0, +-0) and atan2(+-inf, +-inf) were NaN, a negative y
// over -0 or -inf gave +pi). Ours, within 2.1 ulp: the quotient of the smaller
// by the larger of |x| and |y| in [0, 1], above tan(pi/8) moved next to 0 by
// atan(a) = pi/4 + atan((a - 1) / (a + 1)) (one division either way), a
// polynomial there, then the octant's multiple of pi/4 added back (in two
// parts, so its rounding is not the result's) and y's sign copied. atan(x) is
// atan2(x, 1).
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

/// atan2(y, x) for f32 values (C's special cases included).
Value atan2F32(ElementwiseBuilder &e, Value y, Value x) {
  Type f32 = e.b.getF32Type(), i32 = e.b.getI32Type();
  auto c = [&](double v) { return e.f(f32, v); };
  Value absY = e.abs(y), absX = e.abs(x);
  Value yLarger = e.cmpf(CmpFPredicate::OGT, absY, absX);
  Value larger = e.select(yLarger, absY, absX);
  Value smaller = e.select(yLarger, absX, absY);
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
  Value xNegative =
      e.cmpi(arith::CmpIPredicate::slt, e.bitcast(x, i32), e.i(i32, 0));
  angle = e.select(xNegative, e.add(e.sub(c(piHi), angle), c(piLo)), angle);

  // 0 / 0 and inf / inf: 0 or pi, pi/4 or 3 pi/4 by the sign of x.
  Value zeros = e.cmpf(CmpFPredicate::OEQ, larger, c(0.0));
  angle = e.select(zeros, e.select(xNegative, c(M_PI), c(0.0)), angle);
  Value infinities = e.cmpf(CmpFPredicate::OEQ, smaller,
                            c(std::numeric_limits<float>::infinity()));
  angle = e.select(infinities, e.select(xNegative, c(3 * M_PI_4), c(M_PI_4)),
                   angle);
  Value eitherNaN = e.cmpf(CmpFPredicate::UNO, x, y);
  angle =
      e.select(eitherNaN, c(std::numeric_limits<float>::quiet_NaN()), angle);
  return e.copysign(angle, y);
}

struct Atan2F32 : OpRewritePattern<math::Atan2Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Atan2Op op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, atan2F32(e, op.getLhs(), op.getRhs()));
    return success();
  }
};

struct AtanF32 : OpRewritePattern<math::AtanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::AtanOp op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), op.getType());
    Value one = e.f(rewriter.getF32Type(), 1.0);
    rewriter.replaceOp(op, atan2F32(e, op.getOperand(), one));
    return success();
  }
};

} // namespace

void populateAtanApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<Atan2F32, AtanF32>(patterns.getContext());
}

} // namespace mlir::spine
