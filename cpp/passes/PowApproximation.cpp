//===- PowApproximation.cpp - f32 pow as vector arithmetic ----------------===//
//
// pow(x, y) for f32 is exp(y * log|x|) computed in f64, where the product's
// rounding (2^-53 of a value below 200) costs nothing at f32 precision. A
// libm call per lane kept every loop using pow scalar.
//
//   log|x| = e ln2 + 2 atanh(s),  s = (m - 1) / (m + 1),  |x| = m 2^e with
//            m in [sqrt(1/2), sqrt(2)), so |s| < 0.172 and the odd series
//            to s^15 is accurate to 1e-14
//   exp(t) = 2^n exp(r),  n = roundeven(t / ln2),  r = t - n ln2 (two FMAs),
//            |r| <= ln2 / 2, Taylor series to r^12
//
// The exponent of |x| and the power 2^n are read and built with integer
// operations on the f64 bits. t is clamped to [-200, 200], beyond which
// every f32 result is 0 or infinity, so 2^n stays a normal f64. The result
// rounds once to f32. C's special cases come from the arithmetic (zero,
// infinities, NaN through log and exp) or are selected: pow(x, 0) =
// pow(1, y) = pow(-1, +-inf) = 1, a negative finite base with a finite
// non-integer exponent is NaN, and a negative base (-0 included) with an
// odd integer exponent negates the result.
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

namespace mlir::spine {
namespace {

constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kTwo52 = 0x1p52;
constexpr int64_t kExponentBias = 1023;
constexpr int64_t kMantissaMask = (int64_t{1} << 52) - 1;
constexpr int64_t kOneBits = 0x3FF0000000000000;
constexpr int64_t kTwo52Bits = 0x4330000000000000;

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
    Type bits = withElementType(type, b.getI64Type());
    Type narrowBits = withElementType(type, b.getI32Type());
    auto f64 = [&](double v) { return splatFloat(b, loc, wide, v); };
    auto i64 = [&](int64_t v) { return splatInt(b, loc, bits, v); };
    auto cmp = [&](arith::CmpFPredicate predicate, Value l, Value r) {
      return arith::CmpFOp::create(b, loc, predicate, l, r).getResult();
    };
    auto select = [&](Value c, Value t, Value f) {
      return arith::SelectOp::create(b, loc, c, t, f).getResult();
    };
    auto fma = [&](Value x, Value y, Value z) {
      return math::FmaOp::create(b, loc, x, y, z).getResult();
    };
    double inf = std::numeric_limits<double>::infinity();
    Value x = op.getLhs(), y = op.getRhs();

    // log|x| for finite nonzero x; 0 -> -inf, inf -> inf, NaN -> NaN.
    Value absX = math::AbsFOp::create(b, loc, x);
    Value ax = arith::ExtFOp::create(b, loc, wide, absX);
    Value axBits = arith::BitcastOp::create(b, loc, bits, ax);
    // The biased exponent as f64: 2^52 + field, minus 2^52 + bias.
    Value field = arith::ShRUIOp::create(b, loc, axBits, i64(52));
    Value e = arith::SubFOp::create(
        b, loc,
        arith::BitcastOp::create(
            b, loc, wide, arith::OrIOp::create(b, loc, field, i64(kTwo52Bits))),
        f64(kTwo52 + kExponentBias));
    Value m = arith::BitcastOp::create(
        b, loc, wide,
        arith::OrIOp::create(
            b, loc, arith::AndIOp::create(b, loc, axBits, i64(kMantissaMask)),
            i64(kOneBits)));
    Value big = cmp(arith::CmpFPredicate::OGT, m, f64(M_SQRT2));
    m = select(big, arith::MulFOp::create(b, loc, m, f64(0.5)), m);
    e = select(big, arith::AddFOp::create(b, loc, e, f64(1.0)), e);
    Value s = arith::DivFOp::create(b, loc,
                                    arith::SubFOp::create(b, loc, m, f64(1.0)),
                                    arith::AddFOp::create(b, loc, m, f64(1.0)));
    Value twoS = arith::AddFOp::create(b, loc, s, s);
    Value s2 = arith::MulFOp::create(b, loc, s, s);
    Value logM = fma(arith::MulFOp::create(b, loc, twoS, s2),
                     polynomial(b, loc, s2,
                                {1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11,
                                 1.0 / 13, 1.0 / 15}),
                     twoS);
    Value logAx = fma(e, f64(kLn2Hi), fma(e, f64(kLn2Lo), logM));
    Value finite = arith::AndIOp::create(
        b, loc, cmp(arith::CmpFPredicate::OGT, ax, f64(0.0)),
        cmp(arith::CmpFPredicate::OLT, ax, f64(inf)));
    Value special =
        select(cmp(arith::CmpFPredicate::OEQ, ax, f64(0.0)), f64(-inf), ax);
    logAx = select(finite, logAx, special);

    // exp(t), t = y log|x| clamped to [-200, 200] (NaN stays NaN).
    Value t = arith::MulFOp::create(
        b, loc, arith::ExtFOp::create(b, loc, wide, y), logAx);
    t = arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, t, f64(-200.0)), f64(200.0));
    Value n = math::RoundEvenOp::create(
        b, loc, arith::MulFOp::create(b, loc, t, f64(kInvLn2)));
    Value minusN = arith::NegFOp::create(b, loc, n);
    Value r = fma(minusN, f64(kLn2Hi), t);
    r = fma(minusN, f64(kLn2Lo), r);
    Value expR = polynomial(b, loc, r,
                            {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120,
                             1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880,
                             1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600});
    // 2^n: n + bias lands in the low bits of 2^52 + n + bias, then moves to
    // the exponent field. NaN's garbage exponent only scales a NaN.
    Value biased = arith::BitcastOp::create(
        b, loc, bits,
        arith::AddFOp::create(b, loc, n, f64(kTwo52 + kExponentBias)));
    Value scale = arith::BitcastOp::create(
        b, loc, wide, arith::ShLIOp::create(b, loc, biased, i64(52)));
    Value result = arith::MulFOp::create(b, loc, expR, scale);

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
