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
// exp2(integer) and log2(power of two) are exact. expm1, log1p and tanh keep
// small arguments accurate: expm1 reduces as exp does but sums its series
// without the 1 (2^n - 1 is added in the same FMA), log1p corrects
// log(1 + x) for the rounding of 1 + x, and tanh is expm1(2|x|) /
// (expm1(2|x|) + 2). pow (PowApproximation.cpp) is
// built from exp and log too; f64 pow from logF64Extended, log as hi + lo
// (about 2^-64 relative: its reduction picks among 7 centers so that the
// series after 2s is small), and expF64Extended, exp(hi + lo).
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <algorithm>
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

constexpr arith::CmpFPredicate kOLT = arith::CmpFPredicate::OLT;

/// 2^k for integral f64 k in [-1022, 1023]: k + bias lands in the low bits
/// of 2^52 + k + bias and moves to the exponent field. (NaN's garbage only
/// ever scales a NaN.)
Value powerOfTwo(ElementwiseBuilder &e, Value k) {
  Type i64 = e.b.getI64Type();
  Value biased = e.bitcast(e.add(k, e.fLike(k, kTwo52 + kExponentBias)), i64);
  return e.bitcast(e.shl(biased, e.i(i64, 52)), e.b.getF64Type());
}

/// 1/first!, ..., 1/last!, each rounded once (n! is exact in f64 up to 22!).
SmallVector<double> inverseFactorials(int first, int last) {
  SmallVector<double> terms;
  double factorial = 1;
  for (int n = 0; n <= last; ++n) {
    factorial *= std::max(n, 1);
    if (n >= first)
      terms.push_back(1.0 / factorial);
  }
  return terms;
}

/// n = roundeven(x / ln2) and r = x - n ln2 by two FMAs (ln2 in two parts),
/// |r| <= ln2 / 2: the reduction of exp and expm1.
std::pair<Value, Value> reduceByLn2(ElementwiseBuilder &e, Value x) {
  Value n = e.roundeven(e.mul(x, e.fLike(x, kInvLn2Hi)));
  Value minusN = e.neg(n);
  Value r =
      e.fma(minusN, e.fLike(x, kLn2Lo), e.fma(minusN, e.fLike(x, kLn2Hi), x));
  return {n, r};
}

/// exp(r) for |r| <= ln2 / 2 (a little more does no harm): the Taylor series
/// to r^13, or to r^10 (below 3e-13 relative) for an f32 result.
Value expOfReduced(ElementwiseBuilder &e, Value r,
                   F64Accuracy accuracy = F64Accuracy::Full) {
  return e.polynomial(
      r, inverseFactorials(0, accuracy == F64Accuracy::Full ? 13 : 10));
}

/// p 2^n for integral n in [-2044, 2046], in two halves that are normal
/// powers of two, so the product rounds once.
Value scaleByPowerOfTwo(ElementwiseBuilder &e, Value p, Value n) {
  Value half = e.floor(e.mul(n, e.fLike(n, 0.5)));
  return e.mul(e.mul(p, powerOfTwo(e, half)), powerOfTwo(e, e.sub(n, half)));
}

/// x clamped to [lo, hi], NaN staying NaN.
Value clamp(ElementwiseBuilder &e, Value x, double lo, double hi) {
  return e.minimum(e.maximum(x, e.fLike(x, lo)), e.fLike(x, hi));
}

/// x = m 2^e with m in [sqrt(1/2), sqrt(2)), as (e, m), for finite x > 0;
/// anything for other x. Subnormal x is scaled by 2^54 first, unless
/// `accuracy` says x is an f32 value (never subnormal in f64).
std::pair<Value, Value> splitExponent(ElementwiseBuilder &e, Value x,
                                      F64Accuracy accuracy) {
  Type f64 = e.b.getF64Type(), i64 = e.b.getI64Type();
  auto c = [&](double v) { return e.f(f64, v); };
  bool full = accuracy == F64Accuracy::Full;
  Value subnormal;
  if (full) {
    subnormal = e.cmpf(kOLT, x, c(0x1p-1022));
    x = e.select(subnormal, e.mul(x, c(0x1p54)), x);
  }
  Value bits = e.bitcast(x, i64);
  // The biased exponent field as f64: (2^52 + field) - (2^52 + bias).
  Value field = e.shr(bits, e.i(i64, 52));
  Value exponent = e.sub(e.bitcast(e.ori(field, e.i(i64, kTwo52Bits)), f64),
                         c(kTwo52 + kExponentBias));
  if (full)
    exponent = e.select(subnormal, e.sub(exponent, c(54)), exponent);
  Value m = e.bitcast(
      e.ori(e.andi(bits, e.i(i64, kMantissaMask)), e.i(i64, kOneBits)), f64);
  Value big = e.cmpf(arith::CmpFPredicate::OGT, m, c(M_SQRT2));
  m = e.select(big, e.mul(m, c(0.5)), m);
  exponent = e.select(big, e.add(exponent, c(1.0)), exponent);
  return {exponent, m};
}

/// 1/3, 1/5, ...: 2 atanh(s) = 2s + 2s^3 (1/3 + s^2/5 + ...).
constexpr double kAtanhTerms[] = {1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,
                                  1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17,
                                  1.0 / 19, 1.0 / 21};

/// log x split as e and log m (splitExponent), log m = 2 atanh(s) with s =
/// (m - 1) / (m + 1). For an f32 result the series stops at s^13 (1e-12
/// relative).
std::pair<Value, Value> logParts(ElementwiseBuilder &e, Value x,
                                 F64Accuracy accuracy = F64Accuracy::Full) {
  auto [exponent, m] = splitExponent(e, x, accuracy);
  auto c = [&](double v) { return e.fLike(x, v); };
  Value s = e.div(e.sub(m, c(1.0)), e.add(m, c(1.0)));
  Value twoS = e.add(s, s);
  Value s2 = e.mul(s, s);
  ArrayRef<double> all(kAtanhTerms);
  Value logM = e.fma(
      e.mul(twoS, s2),
      e.polynomial(s2, accuracy == F64Accuracy::Full ? all : all.take_front(6)),
      twoS);
  return {exponent, logM};
}

/// `finite` (the result for finite x > 0) where x is, else log's value at
/// 0 (-inf), below 0 (NaN), at infinity and NaN (x itself).
Value logSpecialCases(ElementwiseBuilder &e, Value x, Value finite) {
  auto c = [&](double v) { return e.fLike(x, v); };
  Value special =
      e.select(e.cmpf(arith::CmpFPredicate::OEQ, x, c(0.0)), c(-kInf),
               e.select(e.cmpf(kOLT, x, c(0.0)),
                        c(std::numeric_limits<double>::quiet_NaN()), x));
  Value regular = e.andb(e.cmpf(arith::CmpFPredicate::OGT, x, c(0.0)),
                         e.cmpf(kOLT, x, c(kInf)));
  return e.select(regular, finite, special);
}

/// 2^x = 2^n exp(f ln2), n = roundeven(x), f = x - n exact.
Value exp2F64(ElementwiseBuilder &e, Value x) {
  x = clamp(e, x, -1100, 1100);
  Value n = e.roundeven(x);
  Value f = e.sub(x, n);
  Value r = e.fma(f, e.fLike(x, kLn2Hi), e.mul(f, e.fLike(x, kLn2Lo)));
  return scaleByPowerOfTwo(e, expOfReduced(e, r), n);
}

/// e + log(m) / ln2: exact for powers of two, where log m = 0.
Value log2F64(ElementwiseBuilder &e, Value x) {
  auto [exponent, logM] = logParts(e, x);
  Value scaled =
      e.fma(logM, e.fLike(x, kInvLn2Hi), e.mul(logM, e.fLike(x, kInvLn2Lo)));
  return logSpecialCases(e, x, e.add(exponent, scaled));
}

/// exp(x) - 1 = 2^n expm1(r) + (2^n - 1), n and r as in exp, with
/// expm1(r) = r + r^2 (1/2! + r/3! + ... + r^12/14!) and the two terms added
/// by one FMA (for n > 53 the 1 is below the last bit). For |x| <= ln2 / 2,
/// n = 0 and the result is the series itself, so small arguments keep their
/// relative accuracy. n = 1024 (x up to 710, where the result overflows)
/// takes 2^1023 and a doubling; below -40 the result rounds to -1. Zero
/// comes out +0 either way; expm1F64 gives -0 its sign back.
Value expm1OfNonzero(ElementwiseBuilder &e, Value x) {
  auto c = [&](double v) { return e.fLike(x, v); };
  auto [n, r] = reduceByLn2(e, clamp(e, x, -40, 710));
  Value p = e.fma(e.mul(r, r), e.polynomial(r, inverseFactorials(2, 14)), r);
  Value m = e.minimum(n, c(1023.0));
  Value scale = powerOfTwo(e, m);
  return e.mul(e.fma(scale, p, e.sub(scale, c(1.0))),
               powerOfTwo(e, e.sub(n, m)));
}

Value expm1F64(ElementwiseBuilder &e, Value x) {
  return e.select(e.cmpf(arith::CmpFPredicate::OEQ, x, e.fLike(x, 0.0)), x,
                  expm1OfNonzero(e, x));
}

/// log(1 + x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: u - 1 is
/// exact, so the quotient puts back what rounding u lost. Where u is not
/// finite and positive, log(u) is the answer.
Value log1pF64(ElementwiseBuilder &e, Value x) {
  auto c = [&](double v) { return e.fLike(x, v); };
  Value u = e.add(x, c(1.0));
  Value logU = logF64(e, u);
  Value corrected = e.add(logU, e.div(e.sub(x, e.sub(u, c(1.0))), u));
  Value regular = e.andb(e.cmpf(arith::CmpFPredicate::OGT, u, c(0.0)),
                         e.cmpf(kOLT, u, c(kInf)));
  Value result = e.select(regular, corrected, logU);
  // log1p(-0) = -0.
  return e.select(e.cmpf(arith::CmpFPredicate::OEQ, x, c(0.0)), x, result);
}

/// tanh|x| = t / (t + 2) with t = expm1(2|x|), which keeps small arguments
/// accurate; 1 beyond 20 and |x| itself below 2^-27, where those are the
/// rounded results. The sign is x's.
Value tanhF64(ElementwiseBuilder &e, Value x) {
  auto c = [&](double v) { return e.fLike(x, v); };
  Value a = e.abs(x);
  // Zero lanes take |x| below, so expm1's sign of zero does not matter.
  Value t = expm1OfNonzero(e, e.add(a, a));
  Value magnitude = e.select(e.cmpf(arith::CmpFPredicate::OGT, a, c(20)),
                             c(1.0), e.div(t, e.add(t, c(2.0))));
  magnitude = e.select(e.cmpf(kOLT, a, c(0x1p-27)), a, magnitude);
  return e.copysign(magnitude, x);
}

/// The centers c = e^(j/10), j = -3..3, of logF64Extended: m takes the
/// last one whose `from` it reaches, so that |log(m / c)| <= 0.05; log c as
/// hi + lo (tools/f64_math_constants.py prints them from mpmath).
struct LogCenter {
  double from, center, logHi, logLo;
};
constexpr LogCenter kLogCenters[] = {
    {0, 0x1.7b4c869c37c05p-1, -0x1.3333333333333p-2, 0x1.67ab3ceb85e2ep-59},
    {0x1.8ebef9eac820bp-1, 0x1.a330ad6166159p-1, -0x1.999999999999bp-3,
     -0x1.087bbdb675b11p-57},
    {0x1.b8aeb7444dce0p-1, 0x1.cf46d99d52b3bp-1, -0x1.9999999999995p-4,
     -0x1.7ae8db264d9eep-59},
    {0x1.e7078b0a726a6p-1, 1.0, 0.0, 0.0},
    {0x1.0d201a422a433p+0, 0x1.1aec7b35a00d4p+0, 0x1.999999999999fp-4,
     0x1.410c1e1ec086ap-58},
    {0x1.296df80be4122p+0, 0x1.38add9e58ac8dp+0, 0x1.999999999999ap-3,
     0x1.b1cc2c13bf6c2p-58},
    {0x1.48b5e3c3e8186p+0, 0x1.599058c8c1a96p+0, 0x1.3333333333334p-2,
     0x1.0b0a495225ba9p-56},
};

/// ln 2 to 42 bits (k times it is exact for |k| < 2^11) and the rest.
constexpr double kLn2Hi42 = 0x1.62e42fefa38p-1;
constexpr double kLn2Rest = 0x1.ef35793c7673p-45;

/// a + b as (sum, error) with sum + error exact: Knuth's two-sum, for
/// operands of any magnitudes.
std::pair<Value, Value> twoSum(ElementwiseBuilder &e, Value a, Value b) {
  Value sum = e.add(a, b);
  Value bPart = e.sub(sum, a);
  Value error = e.add(e.sub(a, e.sub(sum, bPart)), e.sub(b, bPart));
  return {sum, error};
}

} // namespace

Value expF64(ElementwiseBuilder &e, Value x, F64Accuracy accuracy) {
  // Beyond these every result is 0 or infinity (in f64, or in f32).
  bool full = accuracy == F64Accuracy::Full;
  x = full ? clamp(e, x, -760, 720) : clamp(e, x, -200, 200);
  auto [n, r] = reduceByLn2(e, x);
  Value p = expOfReduced(e, r, accuracy);
  // |n| <= 289 for an f32 result: 2^n is one normal power of two.
  return full ? scaleByPowerOfTwo(e, p, n) : e.mul(p, powerOfTwo(e, n));
}

Value logF64(ElementwiseBuilder &e, Value x, F64Accuracy accuracy) {
  auto [exponent, logM] = logParts(e, x, accuracy);
  Value finite = e.fma(exponent, e.fLike(x, kLn2Hi),
                       e.fma(exponent, e.fLike(x, kLn2Lo), logM));
  return logSpecialCases(e, x, finite);
}

std::pair<Value, Value> logF64Extended(ElementwiseBuilder &e, Value x) {
  auto c = [&](double v) { return e.fLike(x, v); };
  auto [k, m] = splitExponent(e, x, F64Accuracy::Full);
  Value center = c(kLogCenters[0].center), logHi = c(kLogCenters[0].logHi),
        logLo = c(kLogCenters[0].logLo);
  for (const LogCenter &next : ArrayRef(kLogCenters).drop_front()) {
    Value reached = e.cmpf(arith::CmpFPredicate::OGE, m, c(next.from));
    center = e.select(reached, c(next.center), center);
    logHi = e.select(reached, c(next.logHi), logHi);
    logLo = e.select(reached, c(next.logLo), logLo);
  }
  // log(m / c) = 2 atanh(s), s = (m - c) / (m + c) = sHi + sLo: m - c is
  // exact (m and c within a factor of 2), m + c a sum and its error, and the
  // division's remainder exact in an FMA. |s| <= 0.025, so the series after
  // 2s, at most 2^-12 of it, needs only f64 precision (its rounding: 2^-64
  // of the log); it stops at s^13.
  Value f = e.sub(m, center);
  auto [d, dError] = twoSum(e, m, center);
  Value sHi = e.div(f, d);
  Value sLo = e.div(e.sub(e.fma(e.neg(sHi), d, f), e.mul(sHi, dError)), d);
  Value twoS = e.add(sHi, sHi);
  Value s2 = e.mul(sHi, sHi);
  Value series = e.mul(e.mul(twoS, s2),
                       e.polynomial(s2, ArrayRef(kAtanhTerms).take_front(6)));
  // k ln2 + log c + 2 atanh(s): the large terms summed exactly, the small
  // ones (their errors, the low parts, the series) added once.
  auto [partial, error1] = twoSum(e, e.mul(k, c(kLn2Hi42)), logHi);
  auto [sum, error2] = twoSum(e, partial, twoS);
  Value small = e.add(e.add(error1, error2), e.add(e.fma(k, c(kLn2Rest), logLo),
                                                   e.fma(c(2.0), sLo, series)));
  Value hi = e.add(sum, small);
  return {hi, e.sub(small, e.sub(hi, sum))};
}

Value expF64Extended(ElementwiseBuilder &e, Value hi, Value lo) {
  // Beyond +-746 the result is 0 or infinity whatever lo is (which may be
  // large there: the product that made hi was large).
  Value inRange = e.cmpf(kOLT, e.abs(hi), e.fLike(hi, 746));
  lo = e.select(inRange, lo, e.fLike(lo, 0.0));
  auto [n, r] = reduceByLn2(e, clamp(e, hi, -760, 720));
  return scaleByPowerOfTwo(e, expOfReduced(e, e.add(r, lo)), n);
}

void populateExpLogF64Patterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<F64Function<math::ExpOp>>(
      context, [](ElementwiseBuilder &e, Value x) { return expF64(e, x); });
  patterns.add<F64Function<math::Exp2Op>>(context, exp2F64);
  patterns.add<F64Function<math::LogOp>>(
      context, [](ElementwiseBuilder &e, Value x) { return logF64(e, x); });
  patterns.add<F64Function<math::Log2Op>>(context, log2F64);
  patterns.add<F64Function<math::ExpM1Op>>(context, expm1F64);
  patterns.add<F64Function<math::Log1pOp>>(context, log1pF64);
  patterns.add<F64Function<math::TanhOp>>(context, tanhF64);
}

} // namespace mlir::spine
