//===- SinCosApproximation.cpp - sin, cos and tan as vector arithmetic ----===//
//
// f32 and f64 sin, cos and tan: the argument reduced exactly (in f64, by
// FMAs with pi/2 split so the leading products are exact), Taylor
// polynomials of sin and cos on |r| <= pi/4, the quadrant's sign and choice;
// tan is their quotient. f32 sin and cos reduce by multiples of pi instead
// and evaluate one polynomial, sin's on |r| <= pi/2. Upstream's approximation
// reduces in f32 and its error grows with |x| (3e-4 at 1e4); it has none for
// tan, which was a libm call per lane. Arguments beyond the exact range (2^36
// for f32, 2^19 for f64) take a branch to libm.
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::spine {
namespace {

/// pi/2 = kHalfPi1 + kHalfPi2 + O(2^-109), for f32 arguments.
constexpr double kHalfPi1 = 0x1.921fb54442d18p+0;
constexpr double kHalfPi2 = 0x1.1a62633145c07p-54;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
/// Beyond this, k * (pi/2 - kHalfPi1 - kHalfPi2) may matter: libm reduces.
constexpr double kLargestReduced = 0x1p36;

/// pi/2 = kHalfPi33a + kHalfPi33b + kHalfPi53 + O(2^-122), for f64
/// arguments: the first two have 33 significant bits, so k times them is
/// exact for k below 2^20.
constexpr double kHalfPi33a = 0x1.921fb544p+0;
constexpr double kHalfPi33b = 0x1.0b4611a6p-34;
constexpr double kHalfPi53 = 0x1.3198a2e037073p-69;
/// |x| <= 2^19 keeps k below 2^19; larger f64 arguments go to libm.
constexpr double kLargestReducedF64 = 0x1p19;

/// 1/pi rounded to f64 (n = roundeven(x / pi) for f32 sin and cos).
constexpr double kOneOverPi = 0x1.45f306dc9c883p-2;

/// Marks the libm call of the out-of-range branch, which stays one.
constexpr llvm::StringLiteral kLibmCall = "spine.libm_call";

/// The function a SinCosPolynomials pattern computes.
enum class Trig { Sin, Cos, Tan };

/// The Taylor coefficients of sin (odd `first`) or cos (even) from r^first
/// to r^last: (-1)^(n/2) / n! for n = first, first + 2, ..., last.
SmallVector<double> taylorTerms(int first, int last) {
  SmallVector<double> terms;
  double factorial = 1;
  for (int n = 1; n <= last; ++n) {
    factorial *= n;
    if (n >= first && (n - first) % 2 == 0)
      terms.push_back((n / 2 % 2 ? -1.0 : 1.0) / factorial);
  }
  return terms;
}

/// f32 sin x or cos x from xd, x in f64 with |x| <= kLargestReduced, in f64:
/// sin x = (-1)^n sin r with n = roundeven(x / pi) and cos x = sin(x + pi/2)
/// = -(-1)^n sin r with n = roundeven(x / pi - 1/2), where r = x - m pi/2
/// for m = 2n or 2n + 1, reduced as the quadrant path reduces (x - m P1 is
/// exact: a multiple of 2^-52 below 2). One Taylor polynomial of sin, to
/// r^13 on |r| <= pi/2 (its remainder below 7e-10, 2^-30 of a result near 1),
/// takes the place of sin's and cos's on pi/4 and the choice between them:
/// half the FMAs, no selects but the sign.
Value halfPeriodSine(ElementwiseBuilder &e, Value xd, bool cosine) {
  Type f64 = getElementTypeOrSelf(xd.getType());
  auto c = [&](double v) { return e.f(f64, v); };
  Value turns = e.mul(xd, c(kOneOverPi));
  Value n = e.roundeven(cosine ? e.sub(turns, c(0.5)) : turns);
  Value minusM = cosine ? e.fma(n, c(-2.0), c(-1.0)) : e.mul(n, c(-2.0));
  Value r = e.fma(minusM, c(kHalfPi2), e.fma(minusM, c(kHalfPi1), xd));
  Value r2 = e.mul(r, r);
  Value sinR = e.fma(e.mul(r, r2), e.polynomial(r2, taylorTerms(3, 13)), r);
  Value half = e.mul(n, c(0.5));
  Value odd = e.cmpf(arith::CmpFPredicate::ONE, e.floor(half), half);
  Value negate =
      cosine ? e.xori(odd, e.i(getElementTypeOrSelf(odd.getType()), 1)) : odd;
  return e.select(negate, e.neg(sinR), sinR);
}

/// sin, cos or tan of xd, in f64 (the f32 argument extended when `single`),
/// reduced by quadrants: see SinCosPolynomials.
Value quarterPeriod(ElementwiseBuilder &e, Value xd, bool single,
                    Trig function) {
  Type f64 = getElementTypeOrSelf(xd.getType());
  auto c = [&](double v) { return e.f(f64, v); };
  Value k = e.roundeven(e.mul(xd, c(kTwoOverPi)));
  Value minusK = e.neg(k);
  Value r = single ? e.fma(minusK, c(kHalfPi2), e.fma(minusK, c(kHalfPi1), xd))
                   : e.fma(minusK, c(kHalfPi53),
                           e.fma(minusK, c(kHalfPi33b),
                                 e.fma(minusK, c(kHalfPi33a), xd)));
  Value r2 = e.mul(r, r);
  // sin r = r + r^3 (-1/3! + r^2/5! - ...), cos r = 1 + r^2 (-1/2! + ...).
  SmallVector<double> sinTerms = taylorTerms(3, single ? 11 : 19);
  SmallVector<double> cosTerms = taylorTerms(2, single ? 12 : 20);
  Value sinR = e.fma(e.mul(r, r2), e.polynomial(r2, sinTerms), r);
  Value cosR = e.fma(r2, e.polynomial(r2, cosTerms), c(1.0));

  // Quadrant q = k mod 4, exactly in f64: sin x = (s, c, -s, -c)[q] and
  // cos x = (c, -s, -c, s)[q].
  Value q = e.sub(k, e.mul(c(4.0), e.floor(e.mul(k, c(0.25)))));
  Value odd = e.orb(e.cmpf(arith::CmpFPredicate::OEQ, q, c(1.0)),
                    e.cmpf(arith::CmpFPredicate::OEQ, q, c(3.0)));
  Value upper = e.cmpf(arith::CmpFPredicate::OGE, q, c(2.0));
  Value approx;
  if (function == Trig::Tan && single) {
    // sin r / cos r, or -cos r / sin r: relative errors near 1e-11 in f64,
    // far below the f32 result's rounding, so no correction step. (An f32
    // reciprocal of D and an f64 correction instead of the f64 division
    // measured slower.)
    approx = e.div(e.select(odd, e.neg(cosR), sinR), e.select(odd, sinR, cosR));
  } else if (function == Trig::Tan) {
    // N / D with N = (r, sin r - r), D = (1, cos r - 1) in even quadrants,
    // (-1, 1 - cos r) / (r, sin r - r) in odd ones: the rounded quotient
    // q0, then q0 + (N - q0 D) / D, the residual from the unrounded parts
    // (its first difference exact in even quadrants, one rounding of a
    // value below 0.22 in odd ones).
    Value sinTail = e.mul(e.mul(r, r2), e.polynomial(r2, sinTerms));
    Value cosTail = e.mul(r2, e.polynomial(r2, cosTerms));
    Value one = c(1.0);
    Value numHi = e.select(odd, e.neg(one), r);
    Value numLo = e.select(odd, e.neg(cosTail), sinTail);
    Value denHi = e.select(odd, r, one);
    Value denLo = e.select(odd, sinTail, cosTail);
    Value den = e.add(denHi, denLo);
    Value q0 = e.div(e.add(numHi, numLo), den);
    Value residual =
        e.add(e.fma(e.neg(q0), denHi, numHi), e.fma(e.neg(q0), denLo, numLo));
    approx = e.add(q0, e.div(residual, den));
  } else {
    bool isSine = function == Trig::Sin;
    Value value =
        isSine ? e.select(odd, cosR, sinR) : e.select(odd, sinR, cosR);
    Value negate = isSine ? upper : e.xori(odd, upper);
    approx = e.select(negate, e.neg(value), value);
  }
  return approx;
}

/// sin, cos or tan of x for f32 and f64 x:
///
/// - f32: in f64, k = roundeven(x * 2/pi), r = (x - k P1) - k P2 (two
///   FMAs), P1 = pi/2 rounded to f64 and P2 the next 53 bits. x - k P1 is
///   exact: both are multiples of 2^-52 (x is, unless k = 0) and the
///   difference is below 1. So r carries only the rounding of the second
///   FMA and the missing k (pi/2 - P1 - P2), below 2^36 2^-109. Taylor
///   series to r^11 and r^12 (below 1e-11 relative); one rounding to f32.
///   That is tan's path; sin and cos reduce by multiples of pi the same way
///   and evaluate one polynomial (halfPeriodSine).
/// - f64: r = ((x - k Q1) - k Q2) - k Q3 with Q1 and Q2 of 33 bits, so the
///   first two products are exact and the first difference too (the two
///   are within a factor of two). The roundings left are below an ulp of r
///   wherever r is not tiny, and far below the error of the missing term
///   k (pi/2 - Q1 - Q2 - Q3) < 2^19 2^-122 where it is. Taylor series to
///   r^19 and r^20 (below 1e-19 relative).
///
/// The quadrant k mod 4 picks +-sin r or +-cos r; tan x is sin r / cos r
/// in even quadrants and -cos r / sin r in odd ones, for f64 divided with one
/// correction step from the unrounded parts (within 2 ulp). Larger |x|,
/// infinities and NaN take a branch (when any lane of the vector has one) that
/// calls libm's f64 function for the whole vector.
template <typename OpTy, Trig function>
struct SinCosPolynomials : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type element = getElementTypeOrSelf(type);
    if (!(element.isF32() || element.isF64()) || op->hasAttr(kLibmCall))
      return failure();
    bool single = element.isF32();
    ElementwiseBuilder e(rewriter, op.getLoc(), type);
    Type f64 = rewriter.getF64Type();
    Value x = op.getOperand();

    // Lanes out of range (and NaN) compute on 0 and are replaced below.
    Value inRange =
        e.cmpf(arith::CmpFPredicate::OLE, e.abs(x),
               e.f(element, single ? kLargestReduced : kLargestReducedF64));
    Value xd = e.select(inRange, x, e.f(element, 0.0));
    if (single)
      xd = e.extf(xd, f64);
    Value approx = single && function != Trig::Tan
                       ? halfPeriodSine(e, xd, function == Trig::Cos)
                       : quarterPeriod(e, xd, single, function);
    if (single)
      approx = e.truncf(approx, element);
    // sin(-0) = tan(-0) = -0, which the reduction makes +0.
    if (function != Trig::Cos)
      approx = e.select(e.cmpf(arith::CmpFPredicate::OEQ, x, e.f(element, 0.0)),
                        x, approx);

    Value outOfRange = e.xori(inRange, e.i(rewriter.getI1Type(), 1));
    Value any = outOfRange;
    if (isa<VectorType>(type))
      any = vector::ReductionOp::create(rewriter, op.getLoc(),
                                        vector::CombiningKind::OR, outOfRange);
    auto exact = scf::IfOp::create(
        rewriter, op.getLoc(), any,
        [&](OpBuilder &b, Location loc) {
          ElementwiseBuilder branch(b, loc, type);
          Value wide = single ? branch.extf(x, f64) : x;
          auto libm = OpTy::create(b, loc, wide);
          libm->setAttr(kLibmCall, b.getUnitAttr());
          Value result = libm;
          if (single)
            result = branch.truncf(result, element);
          scf::YieldOp::create(b, loc, branch.select(inRange, approx, result));
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
  patterns.add<SinCosPolynomials<math::SinOp, Trig::Sin>,
               SinCosPolynomials<math::CosOp, Trig::Cos>,
               SinCosPolynomials<math::TanOp, Trig::Tan>>(
      patterns.getContext());
}

} // namespace mlir::spine
