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
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type wide = withElementType(type, b.getF64Type());
    Type bools = withElementType(type, b.getI1Type());
    auto f64 = [&](double v) { return splatFloat(b, loc, wide, v); };
    Value x = op.getOperand();

    // Lanes out of range (and NaN) compute on 0 and are replaced below.
    Value inRange = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLE, math::AbsFOp::create(b, loc, x),
        splatFloat(b, loc, type, kLargestReduced));
    Value safe = arith::SelectOp::create(b, loc, inRange, x,
                                         splatFloat(b, loc, type, 0.0));
    Value xd = arith::ExtFOp::create(b, loc, wide, safe);
    Value k = math::RoundEvenOp::create(
        b, loc, arith::MulFOp::create(b, loc, xd, f64(kTwoOverPi)));
    Value minusK = arith::NegFOp::create(b, loc, k);
    Value r = math::FmaOp::create(b, loc, minusK, f64(kHalfPi1), xd);
    r = math::FmaOp::create(b, loc, minusK, f64(kHalfPi2), r);
    Value r2 = arith::MulFOp::create(b, loc, r, r);
    // sin r = r + r^3 (-1/3! + r^2/5! - ...), cos r = 1 + r^2 (-1/2! + ...).
    Value sinR =
        math::FmaOp::create(b, loc, arith::MulFOp::create(b, loc, r, r2),
                            polynomial(b, loc, r2,
                                       {-1.0 / 6, 1.0 / 120, -1.0 / 5040,
                                        1.0 / 362880, -1.0 / 39916800}),
                            r);
    Value cosR = math::FmaOp::create(
        b, loc, r2,
        polynomial(b, loc, r2,
                   {-1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800,
                    1.0 / 479001600}),
        f64(1.0));

    // Quadrant q = k mod 4, exactly in f64: sin x = (s, c, -s, -c)[q] and
    // cos x = (c, -s, -c, s)[q].
    Value q = arith::SubFOp::create(
        b, loc, k,
        arith::MulFOp::create(
            b, loc, f64(4.0),
            math::FloorOp::create(
                b, loc, arith::MulFOp::create(b, loc, k, f64(0.25)))));
    auto quadrantIs = [&](double v) {
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, q, f64(v))
          .getResult();
    };
    Value odd = arith::OrIOp::create(b, loc, quadrantIs(1), quadrantIs(3));
    Value upper =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, q, f64(2.0));
    Value value = isSine ? arith::SelectOp::create(b, loc, odd, cosR, sinR)
                         : arith::SelectOp::create(b, loc, odd, sinR, cosR);
    Value negate =
        isSine ? upper : arith::XOrIOp::create(b, loc, odd, upper).getResult();
    value = arith::SelectOp::create(
        b, loc, negate, arith::NegFOp::create(b, loc, value), value);
    Value approx = arith::TruncFOp::create(b, loc, type, value);

    Value outOfRange =
        arith::XOrIOp::create(b, loc, inRange, splatInt(b, loc, bools, 1));
    Value any = outOfRange;
    if (isa<VectorType>(type))
      any = vector::ReductionOp::create(b, loc, vector::CombiningKind::OR,
                                        outOfRange);
    auto exact = scf::IfOp::create(
        b, loc, any,
        [&](OpBuilder &b, Location loc) {
          Value libm = arith::TruncFOp::create(
              b, loc, type,
              OpTy::create(b, loc, arith::ExtFOp::create(b, loc, wide, x)));
          scf::YieldOp::create(
              b, loc,
              ValueRange{arith::SelectOp::create(b, loc, inRange, approx, libm)
                             .getResult()});
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, approx);
        });
    rewriter.replaceOp(op, exact.getResults());
    return success();
  }
};

} // namespace

Value polynomial(OpBuilder &b, Location loc, Value z, ArrayRef<double> c) {
  Type type = z.getType();
  Value acc = splatFloat(b, loc, type, c.back());
  for (double coefficient : llvm::reverse(c.drop_back()))
    acc = math::FmaOp::create(b, loc, acc, z,
                              splatFloat(b, loc, type, coefficient));
  return acc;
}

void populateSinCosApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<SinCosInF64<math::SinOp, true>, SinCosInF64<math::CosOp, false>>(
      patterns.getContext());
}

} // namespace mlir::spine
