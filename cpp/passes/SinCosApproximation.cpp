//===- SinCosApproximation.cpp - f32 sin and cos as vector arithmetic -----===//
//
// sin(x) and cos(x) for f32 x with |x| <= 2^36, in f64:
//
//   k = roundeven(x * 2/pi),  r = (x - k * P1) - k * P2   (two FMAs)
//
// P1 is pi/2 rounded to f64 and P2 the next 53 bits. x - k * P1 is exact:
// both are multiples of 2^-52 (x is, unless k = 0), and the difference is
// below 1. So r carries only the rounding of the second FMA and the missing
// k * (pi/2 - P1 - P2), below 2^36 * 2^-109: near a multiple of pi/2, where
// the result is tiny, it is still accurate to many more bits than f32 has.
// Taylor polynomials of sin and cos on |r| <= pi/4 (to r^11 and r^12, whose
// truncation is below 1e-11 relative) are combined by the quadrant k mod 4,
// and the f64 result rounds once to f32. Upstream's approximation reduces in
// f32 and its error grows with |x| (3e-4 at 1e4).
//
// Larger |x|, infinities and NaN take a branch (when any lane of the vector
// has one) that calls libm's f64 function for the whole vector.
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::spine {
namespace {

/// pi/2 = kHalfPi1 + kHalfPi2 + O(2^-109).
constexpr double kHalfPi1 = 0x1.921fb54442d18p+0;
constexpr double kHalfPi2 = 0x1.1a62633145c07p-54;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
/// Beyond this, k * (pi/2 - kHalfPi1 - kHalfPi2) may matter: libm reduces.
constexpr double kLargestReduced = 0x1p36;

template <typename OpTy, bool isSine>
struct SinCosInF64 : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), type);
    Type f32 = rewriter.getF32Type(), f64 = rewriter.getF64Type();
    auto c = [&](double v) { return e.f(f64, v); };
    Value x = op.getOperand();

    // Lanes out of range (and NaN) compute on 0 and are replaced below.
    Value inRange =
        e.cmpf(arith::CmpFPredicate::OLE, e.abs(x), e.f(f32, kLargestReduced));
    Value xd = e.extf(e.select(inRange, x, e.f(f32, 0.0)), f64);
    Value k = e.roundeven(e.mul(xd, c(kTwoOverPi)));
    Value minusK = e.neg(k);
    Value r = e.fma(minusK, c(kHalfPi2), e.fma(minusK, c(kHalfPi1), xd));
    Value r2 = e.mul(r, r);
    // sin r = r + r^3 (-1/3! + r^2/5! - ...), cos r = 1 + r^2 (-1/2! + ...).
    Value sinR = e.fma(e.mul(r, r2),
                       e.polynomial(r2, {-1.0 / 6, 1.0 / 120, -1.0 / 5040,
                                         1.0 / 362880, -1.0 / 39916800}),
                       r);
    Value cosR =
        e.fma(r2,
              e.polynomial(r2, {-1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320,
                                -1.0 / 3628800, 1.0 / 479001600}),
              c(1.0));

    // Quadrant q = k mod 4, exactly in f64: sin x = (s, c, -s, -c)[q] and
    // cos x = (c, -s, -c, s)[q].
    Value q = e.sub(k, e.mul(c(4.0), e.floor(e.mul(k, c(0.25)))));
    Value odd = e.orb(e.cmpf(arith::CmpFPredicate::OEQ, q, c(1.0)),
                      e.cmpf(arith::CmpFPredicate::OEQ, q, c(3.0)));
    Value upper = e.cmpf(arith::CmpFPredicate::OGE, q, c(2.0));
    Value value =
        isSine ? e.select(odd, cosR, sinR) : e.select(odd, sinR, cosR);
    Value negate = isSine ? upper : e.xori(odd, upper);
    Value approx = e.truncf(e.select(negate, e.neg(value), value), f32);

    Value outOfRange = e.xori(inRange, e.i(rewriter.getI1Type(), 1));
    Value any = outOfRange;
    if (isa<VectorType>(type))
      any = vector::ReductionOp::create(rewriter, op.getLoc(),
                                        vector::CombiningKind::OR, outOfRange);
    auto exact = scf::IfOp::create(
        rewriter, op.getLoc(), any,
        [&](OpBuilder &b, Location loc) {
          ElementwiseBuilder branch(b, loc, type);
          Value libm = OpTy::create(b, loc, branch.extf(x, f64));
          scf::YieldOp::create(
              b, loc, branch.select(inRange, approx, branch.truncf(libm, f32)));
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, approx);
        });
    rewriter.replaceOp(op, exact.getResults());
    return success();
  }
};

} // namespace

void populateSinCosApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<SinCosInF64<math::SinOp, true>, SinCosInF64<math::CosOp, false>>(
      patterns.getContext());
}

} // namespace mlir::spine
