//===- ExpLogF64.cpp - f64 exp and log as vector arithmetic ---------------===//
//
// Upstream approximates only f32 math; f64 exp, exp2, log and log2 were a
// libm call per lane. Here they are polynomials with FMAs, within 2 ulp:
//
//   exp(x) = 2^n exp(r),  n = roundeven(x / ln2),  r = x - n ln2 (two FMAs
//            with ln2 in two parts), |r| <= ln2 / 2, Taylor series to r^13;
//            2^n is applied in two halves, so subnormal results round once
//   log(x) = e ln2 + 2 atanh(s),  s = (m - 1) / (m + 1),  x = m 2^e with m
//            in [sqrt(1/2), sqrt(2)) (subnormal x scaled by 2^54 first), so
//            |s| < 0.172 and the odd series to s^21 is accurate to 1e-18
//
// exp2 and log2 use the same pieces with their own scaling, so that
// exp2(integer) and log2(power of two) are exact. pow (PowApproximation.cpp)
// is built from them too.
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

namespace mlir::spine {
namespace {

constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
constexpr double kInvLn2Hi = 0x1.71547652b82fep+0;
constexpr double kInvLn2Lo = 0x1.777d0ffda0d24p-56;
constexpr double kTwo52 = 0x1p52;
constexpr int64_t kExponentBias = 1023;
constexpr int64_t kMantissaMask = (int64_t{1} << 52) - 1;
constexpr int64_t kOneBits = 0x3FF0000000000000;
constexpr int64_t kTwo52Bits = 0x4330000000000000;
constexpr double kInf = std::numeric_limits<double>::infinity();

Value f64Constant(OpBuilder &b, Location loc, Value like, double v) {
  return splatFloat(b, loc, like.getType(), v);
}

/// 2^k for integral f64 k in [-1022, 1023]: k + bias lands in the low bits
/// of 2^52 + k + bias and moves to the exponent field. (NaN's garbage only
/// ever scales a NaN.)
Value powerOfTwo(OpBuilder &b, Location loc, Value k) {
  Type bits = withElementType(k.getType(), b.getI64Type());
  Value biased = arith::BitcastOp::create(
      b, loc, bits,
      arith::AddFOp::create(b, loc, k,
                            f64Constant(b, loc, k, kTwo52 + kExponentBias)));
  return arith::BitcastOp::create(
      b, loc, k.getType(),
      arith::ShLIOp::create(b, loc, biased, splatInt(b, loc, bits, 52)));
}

/// exp(r) for |r| <= ln2 / 2 (a little more does no harm).
Value expOfReduced(OpBuilder &b, Location loc, Value r) {
  return polynomial(b, loc, r,
                    {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720,
                     1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800,
                     1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0});
}

/// p 2^n for integral n in [-2044, 2046], in two halves that are normal
/// powers of two, so the product rounds once.
Value scaleByPowerOfTwo(OpBuilder &b, Location loc, Value p, Value n) {
  Value half = math::FloorOp::create(
      b, loc, arith::MulFOp::create(b, loc, n, f64Constant(b, loc, n, 0.5)));
  Value rest = arith::SubFOp::create(b, loc, n, half);
  return arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, p, powerOfTwo(b, loc, half)),
      powerOfTwo(b, loc, rest));
}

/// x clamped to [lo, hi], NaN staying NaN.
Value clamp(OpBuilder &b, Location loc, Value x, double lo, double hi) {
  return arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, f64Constant(b, loc, x, lo)),
      f64Constant(b, loc, x, hi));
}

/// log x split as e and log m (x = m 2^e, m in [sqrt(1/2), sqrt(2))), for
/// finite x > 0; anything for other x.
std::pair<Value, Value> logParts(OpBuilder &b, Location loc, Value x) {
  auto c = [&](double v) { return f64Constant(b, loc, x, v); };
  Type bits = withElementType(x.getType(), b.getI64Type());
  auto i64 = [&](int64_t v) { return splatInt(b, loc, bits, v); };
  Value subnormal =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0x1p-1022));
  x = arith::SelectOp::create(b, loc, subnormal,
                              arith::MulFOp::create(b, loc, x, c(0x1p54)), x);
  Value xBits = arith::BitcastOp::create(b, loc, bits, x);
  // The biased exponent field as f64: (2^52 + field) - (2^52 + bias).
  Value field = arith::ShRUIOp::create(b, loc, xBits, i64(52));
  Value e = arith::SubFOp::create(
      b, loc,
      arith::BitcastOp::create(
          b, loc, x.getType(),
          arith::OrIOp::create(b, loc, field, i64(kTwo52Bits))),
      c(kTwo52 + kExponentBias));
  e = arith::SelectOp::create(b, loc, subnormal,
                              arith::SubFOp::create(b, loc, e, c(54)), e);
  Value m = arith::BitcastOp::create(
      b, loc, x.getType(),
      arith::OrIOp::create(
          b, loc, arith::AndIOp::create(b, loc, xBits, i64(kMantissaMask)),
          i64(kOneBits)));
  Value big =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, m, c(M_SQRT2));
  m = arith::SelectOp::create(b, loc, big,
                              arith::MulFOp::create(b, loc, m, c(0.5)), m);
  e = arith::SelectOp::create(b, loc, big,
                              arith::AddFOp::create(b, loc, e, c(1.0)), e);
  Value s =
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, m, c(1.0)),
                            arith::AddFOp::create(b, loc, m, c(1.0)));
  Value twoS = arith::AddFOp::create(b, loc, s, s);
  Value s2 = arith::MulFOp::create(b, loc, s, s);
  Value logM = math::FmaOp::create(
      b, loc, arith::MulFOp::create(b, loc, twoS, s2),
      polynomial(b, loc, s2,
                 {1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13,
                  1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21}),
      twoS);
  return {e, logM};
}

/// `finite` (the result for finite x > 0) where x is, else log's value at
/// 0 (-inf), below 0 (NaN), at infinity and NaN (x itself).
Value logSpecialCases(OpBuilder &b, Location loc, Value x, Value finite) {
  auto c = [&](double v) { return f64Constant(b, loc, x, v); };
  auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
    return arith::CmpFOp::create(b, loc, p, l, r).getResult();
  };
  Value special = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OEQ, x, c(0.0)), c(-kInf),
      arith::SelectOp::create(b, loc, cmp(arith::CmpFPredicate::OLT, x, c(0.0)),
                              c(std::numeric_limits<double>::quiet_NaN()), x));
  Value regular =
      arith::AndIOp::create(b, loc, cmp(arith::CmpFPredicate::OGT, x, c(0.0)),
                            cmp(arith::CmpFPredicate::OLT, x, c(kInf)));
  return arith::SelectOp::create(b, loc, regular, finite, special);
}

bool isF64(Type type) { return getElementTypeOrSelf(type).isF64(); }

struct ExpF64 : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    if (!isF64(op.getType()))
      return failure();
    rewriter.replaceOp(op, expF64(rewriter, op.getLoc(), op.getOperand()));
    return success();
  }
};

struct Exp2F64 : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!isF64(op.getType()))
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    // 2^x = 2^n exp(f ln2), n = roundeven(x), f = x - n exact.
    Value x = clamp(b, loc, op.getOperand(), -1100, 1100);
    Value n = math::RoundEvenOp::create(b, loc, x);
    Value f = arith::SubFOp::create(b, loc, x, n);
    Value r = math::FmaOp::create(
        b, loc, f, f64Constant(b, loc, x, kLn2Hi),
        arith::MulFOp::create(b, loc, f, f64Constant(b, loc, x, kLn2Lo)));
    rewriter.replaceOp(op,
                       scaleByPowerOfTwo(b, loc, expOfReduced(b, loc, r), n));
    return success();
  }
};

struct LogF64 : OpRewritePattern<math::LogOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::LogOp op,
                                PatternRewriter &rewriter) const override {
    if (!isF64(op.getType()))
      return failure();
    rewriter.replaceOp(op, logF64(rewriter, op.getLoc(), op.getOperand()));
    return success();
  }
};

struct Log2F64 : OpRewritePattern<math::Log2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Log2Op op,
                                PatternRewriter &rewriter) const override {
    if (!isF64(op.getType()))
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Value x = op.getOperand();
    // e + log(m) / ln2: exact for powers of two, where log m = 0.
    auto [e, logM] = logParts(b, loc, x);
    Value scaled = math::FmaOp::create(
        b, loc, logM, f64Constant(b, loc, x, kInvLn2Hi),
        arith::MulFOp::create(b, loc, logM, f64Constant(b, loc, x, kInvLn2Lo)));
    rewriter.replaceOp(
        op,
        logSpecialCases(b, loc, x, arith::AddFOp::create(b, loc, e, scaled)));
    return success();
  }
};

} // namespace

Value expF64(OpBuilder &b, Location loc, Value x) {
  // Beyond these every result is 0 or infinity.
  x = clamp(b, loc, x, -760, 720);
  Value n = math::RoundEvenOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, x, f64Constant(b, loc, x, kInvLn2Hi)));
  Value minusN = arith::NegFOp::create(b, loc, n);
  Value r =
      math::FmaOp::create(b, loc, minusN, f64Constant(b, loc, x, kLn2Hi), x);
  r = math::FmaOp::create(b, loc, minusN, f64Constant(b, loc, x, kLn2Lo), r);
  return scaleByPowerOfTwo(b, loc, expOfReduced(b, loc, r), n);
}

Value logF64(OpBuilder &b, Location loc, Value x) {
  auto [e, logM] = logParts(b, loc, x);
  Value finite = math::FmaOp::create(
      b, loc, e, f64Constant(b, loc, x, kLn2Hi),
      math::FmaOp::create(b, loc, e, f64Constant(b, loc, x, kLn2Lo), logM));
  return logSpecialCases(b, loc, x, finite);
}

void populateExpLogF64Patterns(RewritePatternSet &patterns) {
  patterns.add<ExpF64, Exp2F64, LogF64, Log2F64>(patterns.getContext());
}

} // namespace mlir::spine
