//===- HyperbolicFunctions.cpp - sinh, cosh, asinh, acosh, atanh ----------===//
//
// The hyperbolic functions in terms of exp, expm1, log, log1p and sqrt, which
// have vector approximations of their own. Upstream's expansions use the
// textbook formulas, which lose the result where the terms cancel or
// overflow: sinh(1e-8) and atanh(1e-8) came out as 0, asinh(-1000) 0.3% off,
// cosh(89) and acosh(1e20) infinite, acosh(-1e30) infinite instead of NaN.
// These follow the usual libm forms instead: expm1 and log1p where the result
// is near 0, halves of the exponent where e^|x| alone would overflow, and
// log(2|x|) where |x|^2 would. f32 and f64 alike.
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

namespace mlir::spine {
namespace {

using arith::CmpFPredicate;

/// The limits the forms switch at, per element type.
struct Thresholds {
  /// Below it expm1(|x|) is finite (log of the largest float, rounded down).
  double expm1Finite;
  /// From it log(2|x|) is asinh(|x|) and acosh(|x|) to within rounding, and
  /// below it |x|^2 does not overflow.
  double logOfTwice;
};

std::optional<Thresholds> thresholdsFor(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (element.isF32())
    return Thresholds{88.0, 0x1p12};
  if (element.isF64())
    return Thresholds{709.0, 0x1p28};
  return std::nullopt;
}

/// One pattern per function: `build` computes the result from the operand.
template <typename Op> struct HyperbolicPattern : OpRewritePattern<Op> {
  using Build = Value (*)(ElementwiseBuilder &, Value, const Thresholds &);
  HyperbolicPattern(MLIRContext *context, Build build)
      : OpRewritePattern<Op>(context, /*benefit=*/2), build(build) {}
  Build build;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    std::optional<Thresholds> limits = thresholdsFor(op.getType());
    if (!limits)
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, build(e, op.getOperand(), *limits));
    return success();
  }
};

/// sinh |x| = (t + t / (t + 1)) / 2 with t = expm1 |x| (no cancellation near
/// 0); beyond expm1's range, (e^(|x|/2) / 2) e^(|x|/2), finite up to the
/// largest float.
Value sinh(ElementwiseBuilder &e, Value x, const Thresholds &limits) {
  Value a = e.abs(x);
  Value inRange = e.cmpf(CmpFPredicate::OLT, a, e.fLike(a, limits.expm1Finite));
  Value t =
      math::ExpM1Op::create(e.b, e.loc, e.select(inRange, a, e.fLike(a, 0.0)));
  Value half = e.fLike(a, 0.5);
  Value small = e.mul(half, e.add(t, e.div(t, e.add(t, e.fLike(a, 1.0)))));
  Value halfPower = e.exp(e.mul(half, a));
  Value large = e.mul(e.mul(half, halfPower), halfPower);
  return e.copysign(e.select(inRange, small, large), x);
}

/// cosh |x| = (h / 2) h + 1 / (2 h^2) with h = e^(|x|/2): no term overflows
/// before the result does, and there is nothing to cancel.
Value cosh(ElementwiseBuilder &e, Value x, const Thresholds &) {
  Value half = e.fLike(x, 0.5);
  Value h = e.exp(e.mul(half, e.abs(x)));
  return e.add(e.mul(e.mul(half, h), h), e.div(half, e.mul(h, h)));
}

/// asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), all terms positive;
/// log(2|x|) where x^2 would overflow.
Value asinh(ElementwiseBuilder &e, Value x, const Thresholds &limits) {
  Value a = e.abs(x);
  Value one = e.fLike(a, 1.0);
  Value square = e.mul(a, a);
  Value near = math::Log1pOp::create(
      e.b, e.loc,
      e.add(a, e.div(square, e.add(one, e.sqrt(e.add(one, square))))));
  Value far = e.add(e.log(a), e.fLike(a, M_LN2));
  Value isFar = e.cmpf(CmpFPredicate::OGE, a, e.fLike(a, limits.logOfTwice));
  return e.copysign(e.select(isFar, far, near), x);
}

/// acosh x = log1p(t + sqrt(t (t + 2))) with t = x - 1 (exact, and no
/// cancellation near 1); log(2x) where x^2 would overflow; NaN below 1.
Value acosh(ElementwiseBuilder &e, Value x, const Thresholds &limits) {
  Value t = e.sub(x, e.fLike(x, 1.0));
  Value near = math::Log1pOp::create(
      e.b, e.loc, e.add(t, e.sqrt(e.mul(t, e.add(t, e.fLike(x, 2.0))))));
  Value far = e.add(e.log(x), e.fLike(x, M_LN2));
  Value isFar = e.cmpf(CmpFPredicate::OGE, x, e.fLike(x, limits.logOfTwice));
  Value outside = e.cmpf(CmpFPredicate::ULT, x, e.fLike(x, 1.0));
  return e.select(outside, e.fLike(x, std::numeric_limits<double>::quiet_NaN()),
                  e.select(isFar, far, near));
}

/// atanh |x| = log1p(2|x| / (1 - |x|)) / 2: infinite at 1, NaN beyond.
Value atanh(ElementwiseBuilder &e, Value x, const Thresholds &) {
  Value a = e.abs(x);
  Value ratio = e.div(e.add(a, a), e.sub(e.fLike(a, 1.0), a));
  Value r = e.mul(e.fLike(a, 0.5), math::Log1pOp::create(e.b, e.loc, ratio));
  return e.copysign(r, x);
}

} // namespace

void populateHyperbolicFunctionPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<HyperbolicPattern<math::SinhOp>>(context, sinh);
  patterns.add<HyperbolicPattern<math::CoshOp>>(context, cosh);
  patterns.add<HyperbolicPattern<math::AsinhOp>>(context, asinh);
  patterns.add<HyperbolicPattern<math::AcoshOp>>(context, acosh);
  patterns.add<HyperbolicPattern<math::AtanhOp>>(context, atanh);
}

} // namespace mlir::spine
