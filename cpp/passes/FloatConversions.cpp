//===- FloatConversions.cpp - float format conversions as arithmetic ------===//

#include "passes/FloatConversions.h"
#include "passes/ElementwiseBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

namespace mlir::spine {
namespace {

/// The layout of an fp8 format (or of fp4 e2m1, which only decodes): 1 sign
/// bit, `exponentBits`, `mantissaBits` (without the implicit bit).
struct Float8Format {
  unsigned exponentBits;
  unsigned mantissaBits;
  /// f8E5M2 reserves its top exponent for infinities and NaNs like IEEE
  /// formats; f8E4M3FN has no infinity and only S.1111.111 is NaN.
  bool hasInfinity;
  /// The FNUZ formats (AMD's; triton's fp8e4b8 and fp8e5b16) have no
  /// infinity and no negative zero: 0x80 is their one NaN, every other
  /// pattern a number, and their bias is one more than IEEE's.
  bool fnuz = false;
  /// f4E2M1FN (microscaling fp4) has neither infinities nor NaNs.
  bool hasNaN = true;

  /// The sign bit; the bits below it are the magnitude.
  int64_t signBit() const {
    return int64_t(1) << (exponentBits + mantissaBits);
  }
  int64_t bias() const {
    return (int64_t(1) << (exponentBits - 1)) - (fnuz ? 0 : 1);
  }
  /// The magnitude bits of the largest finite value.
  int64_t maxFinite() const {
    if (fnuz)
      return 0x7f;
    if (!hasInfinity)
      return 0x7e; // S.1111.111 is NaN
    return ((int64_t(1) << exponentBits) - 2) << mantissaBits |
           ((int64_t(1) << mantissaBits) - 1);
  }
  int64_t infinity() const {
    return ((int64_t(1) << exponentBits) - 1) << mantissaBits;
  }
};

Float8Format getFloat8Format(FloatType type) {
  if (isa<Float8E5M2Type>(type))
    return {5, 2, /*hasInfinity=*/true};
  if (isa<Float8E5M2FNUZType>(type))
    return {5, 2, /*hasInfinity=*/false, /*fnuz=*/true};
  if (isa<Float8E4M3FNUZType>(type))
    return {4, 3, /*hasInfinity=*/false, /*fnuz=*/true};
  if (isa<Float4E2M1FNType>(type))
    return {2, 1, /*hasInfinity=*/false, /*fnuz=*/false, /*hasNaN=*/false};
  assert(isa<Float8E4M3FNType>(type) && "not an fp8 format");
  return {4, 3, /*hasInfinity=*/false};
}

using Elementwise = ElementwiseBuilder;

/// `narrow` (a rounding of `ref` to a narrower format) moved one step toward
/// zero wherever it is larger in magnitude than `ref`: that turns a rounding
/// to nearest into one toward zero, including overflow to infinity (which
/// becomes the largest finite value). NaNs compare false and stay.
Value stepTowardZeroWhereAbove(Elementwise &e, Value narrow, Value ref) {
  Type refType = getElementTypeOrSelf(ref.getType());
  Type intType = e.b.getIntegerType(
      getElementTypeOrSelf(narrow.getType()).getIntOrFloatBitWidth());
  Value widened = e.extf(narrow, refType);
  Value above = arith::CmpFOp::create(e.b, e.loc, arith::CmpFPredicate::OGT,
                                      math::AbsFOp::create(e.b, e.loc, widened),
                                      math::AbsFOp::create(e.b, e.loc, ref));
  // Sign and magnitude: the next value toward zero has the magnitude bits
  // minus one.
  Value bits = e.bitcast(narrow, intType);
  Value lower = e.subi(bits, e.i(intType, 1));
  return e.bitcast(e.select(above, lower, bits),
                   getElementTypeOrSelf(narrow.getType()));
}

/// f64 `x` rounded to f32 with round-to-odd: truncated, with the lowest bit
/// set when that lost anything. Rounding this again to a format of at most
/// 22 bits of precision is the same as rounding `x` once.
Value roundToOddF32(Elementwise &e, Value x) {
  Type f32 = e.b.getF32Type(), i32 = e.b.getI32Type();
  Value truncated = stepTowardZeroWhereAbove(e, e.truncf(x, f32), x);
  Value inexact = arith::CmpFOp::create(
      e.b, e.loc, arith::CmpFPredicate::ONE,
      e.extf(truncated, getElementTypeOrSelf(x.getType())), x);
  Value bits = e.ori(e.bitcast(truncated, i32), e.zext(inexact, i32));
  return e.bitcast(bits, f32);
}

} // namespace

bool isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
             Float8E5M2FNUZType>(getElementTypeOrSelf(type));
}

Value createFloat8ToF32(OpBuilder &b, Location loc, Value bits, FloatType f8) {
  Float8Format fmt = getFloat8Format(f8);
  Elementwise e(b, loc, bits.getType());
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  unsigned m = fmt.mantissaBits;
  Value x = e.zext(bits, i32);
  int64_t signBit = fmt.signBit();
  Value sign = e.shl(e.andi(x, e.i(i32, signBit)),
                     e.i(i32, 31 - fmt.exponentBits - fmt.mantissaBits));
  Value magnitude = e.andi(x, e.i(i32, signBit - 1));
  // Normal: the exponent and mantissa fields move to f32's positions and the
  // exponent is rebiased.
  Value normal = e.addi(e.shl(magnitude, e.i(i32, 23 - m)),
                        e.i(i32, (127 - fmt.bias()) << 23));
  // Subnormal (exponent field 0): mantissa * 2^(1 - bias - m), exactly.
  Value mantissa = e.andi(magnitude, e.i(i32, (1 << m) - 1));
  Value scaled = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, e.like(f32), mantissa),
      e.f(f32, std::ldexp(1.0, 1 - fmt.bias() - m)));
  Value isSubnormal =
      e.cmpi(arith::CmpIPredicate::ult, magnitude, e.i(i32, 1 << m));
  Value result = e.select(isSubnormal, e.bitcast(scaled, i32), normal);
  if (!fmt.hasNaN)
    return e.bitcast(e.ori(result, sign), f32);
  Value quietNaN = e.i(i32, 0x7fc00000);
  if (fmt.fnuz)
    return e.bitcast(
        e.select(e.cmpi(arith::CmpIPredicate::eq, x, e.i(i32, 0x80)), quietNaN,
                 e.ori(result, sign)),
        f32);
  if (fmt.hasInfinity) {
    Value inf = e.i(i32, fmt.infinity());
    Value special = e.select(e.cmpi(arith::CmpIPredicate::eq, magnitude, inf),
                             e.i(i32, 0x7f800000), quietNaN);
    result = e.select(e.cmpi(arith::CmpIPredicate::uge, magnitude, inf),
                      special, result);
  } else {
    result =
        e.select(e.cmpi(arith::CmpIPredicate::eq, magnitude, e.i(i32, 0x7f)),
                 quietNaN, result);
  }
  return e.bitcast(e.ori(result, sign), f32);
}

Value createFloatToFloat8(OpBuilder &b, Location loc, Value x, FloatType f8,
                          bool towardZero) {
  Float8Format fmt = getFloat8Format(f8);
  assert(fmt.signBit() == 0x80 && "narrowing is to fp8 formats only");
  Elementwise e(b, loc, x.getType());
  auto srcType = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  // f16 and bf16 widen exactly; the rounding below is the only one.
  if (srcType.getWidth() < 32) {
    srcType = b.getF32Type();
    x = e.extf(x, srcType);
  }
  // Source layout: W bits, M mantissa bits, exponent bias B.
  unsigned width = srcType.getWidth();
  int64_t mantissaBits = srcType.getFPMantissaWidth() - 1;
  int64_t bias = (int64_t(1) << (width - mantissaBits - 2)) - 1;
  Type it = b.getIntegerType(width);
  auto c = [&](int64_t v) { return e.i(it, v); };
  int64_t m = fmt.mantissaBits;
  using P = arith::CmpIPredicate;

  Value bits = e.bitcast(x, it);
  Value sign = e.shr(bits, c(width - 1));
  Value magnitude =
      e.andi(bits, c(std::numeric_limits<int64_t>::max() >> (64 - width)));
  int64_t infBits = ((int64_t(1) << (width - mantissaBits - 1)) - 1)
                    << mantissaBits;
  Value isNaN = e.cmpi(P::ugt, magnitude, c(infBits));
  Value isInf = e.cmpi(P::eq, magnitude, c(infBits));

  // The significand with its implicit bit, and the biased exponent (1 for
  // subnormals, as for the smallest normals).
  Value exponent = e.shr(magnitude, c(mantissaBits));
  Value fraction = e.andi(magnitude, c((int64_t(1) << mantissaBits) - 1));
  Value significand = e.select(e.cmpi(P::eq, exponent, c(0)), fraction,
                               e.ori(fraction, c(int64_t(1) << mantissaBits)));
  exponent = arith::MaxUIOp::create(b, loc, exponent, c(1));

  // Source exponents at or below `threshold` are subnormal in fp8: their
  // significand loses (threshold + 1 - exponent) more bits. Shifting by
  // mantissaBits + 2 or more leaves nothing (and rounds nothing up).
  int64_t threshold = bias - fmt.bias();
  Value belowNormal = e.cmpi(P::ule, exponent, c(threshold));
  Value extraShift =
      e.select(belowNormal, e.subi(c(threshold + 1), exponent), c(0));
  Value shift =
      e.minu(e.addi(extraShift, c(mantissaBits - m)), c(mantissaBits + 2));
  Value rounded = e.shr(significand, shift);
  if (!towardZero) {
    Value one = c(1);
    Value remainder = e.andi(significand, e.subi(e.shl(one, shift), one));
    Value half = e.shl(one, e.subi(shift, one));
    Value odd = e.cmpi(P::ne, e.andi(rounded, one), c(0));
    Value roundUp = arith::OrIOp::create(
        b, loc, e.cmpi(P::ugt, remainder, half),
        arith::AndIOp::create(b, loc, e.cmpi(P::eq, remainder, half), odd));
    rounded = e.addi(rounded, e.zext(roundUp, it));
  }
  // fp8 exponent field - 1 (0 for subnormals) above the significand, which
  // still holds its implicit bit: a carry out of the mantissa bumps the
  // exponent, and a subnormal rounding up to 2^m becomes the smallest normal.
  Value exponentField =
      e.select(belowNormal, c(0), e.subi(exponent, c(threshold + 1)));
  Value magnitude8 = e.addi(e.shl(exponentField, c(m)), rounded);

  // Out of range: f8E4M3FN saturates, f8E5M2 overflows to infinity unless it
  // rounds toward zero; an infinite input stays infinite in f8E5M2. The FNUZ
  // formats, as torch converts to them, overflow and take infinities to NaN,
  // and have no -0.
  Value maxFinite = c(fmt.maxFinite());
  if (fmt.fnuz) {
    Type i8 = b.getI8Type();
    Value nan = e.i(i8, 0x80);
    magnitude8 = e.select(e.cmpi(P::ugt, magnitude8, maxFinite),
                          towardZero ? maxFinite : c(0x80), magnitude8);
    Value result =
        e.ori(e.trunci(magnitude8, i8), e.shl(e.trunci(sign, i8), e.i(i8, 7)));
    result = e.select(e.cmpi(P::eq, magnitude8, c(0)), e.i(i8, 0), result);
    return e.select(arith::OrIOp::create(b, loc, isNaN, isInf), nan, result);
  }
  Value overflow =
      fmt.hasInfinity && !towardZero ? c(fmt.infinity()) : maxFinite;
  magnitude8 =
      e.select(e.cmpi(P::ugt, magnitude8, maxFinite), overflow, magnitude8);
  magnitude8 = e.select(isInf, fmt.hasInfinity ? c(fmt.infinity()) : maxFinite,
                        magnitude8);
  magnitude8 = e.select(isNaN, c(0x7f), magnitude8);

  Type i8 = b.getI8Type();
  return e.ori(e.trunci(magnitude8, i8), e.shl(e.trunci(sign, i8), e.i(i8, 7)));
}

Value createTruncF(OpBuilder &b, Location loc, Value x, FloatType type,
                   bool towardZero) {
  Elementwise e(b, loc, x.getType());
  auto from = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  Value ref = x, nearest;
  if (from.getWidth() == type.getWidth()) {
    // f16 <-> bf16: through f32, which holds either exactly.
    ref = e.extf(x, b.getF32Type());
    nearest = e.truncf(ref, type);
  } else if (from.isF64() && type.isBF16()) {
    // No target has this instruction, nor every C runtime __truncdfbf2.
    nearest = e.truncf(roundToOddF32(e, x), type);
  } else {
    nearest = e.truncf(x, type);
  }
  return towardZero ? stepTowardZeroWhereAbove(e, nearest, ref) : nearest;
}

Value createIntToBF16(OpBuilder &b, Location loc, Value x, bool isUnsigned) {
  Elementwise e(b, loc, x.getType());
  auto type = cast<IntegerType>(getElementTypeOrSelf(x.getType()));
  unsigned width = type.getWidth();
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  // The magnitude, as an unsigned number (the most negative value too).
  Value zero = e.i(type, 0);
  Value negative =
      isUnsigned ? Value() : e.cmpi(arith::CmpIPredicate::slt, x, zero);
  Value magnitude = isUnsigned ? x : e.select(negative, e.subi(zero, x), x);
  // Rounded to odd at 24 bits: the bits below the top 24 are dropped, and the
  // lowest kept bit is set if any of them was. That is exact in f32, and
  // rounding it to bf16 (8 bits) is the same as rounding the integer once.
  Value significant =
      e.subi(e.i(type, width),
             math::CountLeadingZerosOp::create(b, loc, magnitude).getResult());
  Value shift =
      arith::MaxSIOp::create(b, loc, e.subi(significant, e.i(type, 24)), zero);
  Value dropped =
      e.andi(magnitude, e.subi(e.shl(e.i(type, 1), shift), e.i(type, 1)));
  Value sticky = e.zext(e.cmpi(arith::CmpIPredicate::ne, dropped, zero), type);
  Value kept = e.ori(e.shr(magnitude, shift), sticky);
  // kept * 2^shift, both exact in f32 (shift <= 40).
  Value scale = e.bitcast(
      e.shl(e.addi(width > 32 ? e.trunci(shift, i32) : shift, e.i(i32, 127)),
            e.i(i32, 23)),
      f32);
  Value odd = e.mul(e.uitofp(kept, f32), scale);
  if (!isUnsigned)
    odd = e.select(negative, e.neg(odd), odd);
  return e.truncf(odd, b.getBF16Type());
}

Value createFloatConversion(OpBuilder &b, Location loc, Value x, FloatType from,
                            FloatType to, bool towardZero) {
  if (from == to)
    return x;
  Elementwise e(b, loc, x.getType());
  if (isFloat8(from)) {
    // Every fp8 value is exact in f32, f16 and bf16.
    x = createFloat8ToF32(b, loc, x, from);
    from = b.getF32Type();
    if (to.isF32())
      return x;
    if (!isFloat8(to))
      return to.isF64() ? e.extf(x, to) : e.truncf(x, to);
  }
  if (isFloat8(to))
    return createFloatToFloat8(b, loc, x, to, towardZero);
  if (from.getWidth() < to.getWidth())
    return e.extf(x, to);
  return createTruncF(b, loc, x, to, towardZero);
}

Value createSaturatingFloatToInt(OpBuilder &b, Location loc, Value x, Type type,
                                 bool isSigned) {
  auto element = cast<IntegerType>(getElementTypeOrSelf(type));
  unsigned width = element.getWidth();
  Elementwise e(b, loc, type);
  // Compared and converted in f32 (exactly, from narrower floats) or f64:
  // both hold the bounds, powers of two up to 2^64, exactly.
  auto from = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  if (from.getWidth() < 32) {
    from = b.getF32Type();
    x = e.extf(x, from);
  }
  double above = std::ldexp(1.0, isSigned ? width - 1 : width);
  double below = isSigned ? -above : 0.0;
  APInt maximum =
      isSigned ? APInt::getSignedMaxValue(width) : APInt::getMaxValue(width);
  APInt minimum =
      isSigned ? APInt::getSignedMinValue(width) : APInt::getMinValue(width);
  auto integer = [&](const APInt &v) {
    return createConstantLike(b, loc, type, b.getIntegerAttr(element, v));
  };
  Value result = isSigned ? e.fptosi(x, element) : e.fptoui(x, element);
  result = e.select(e.cmpf(arith::CmpFPredicate::OGE, x, e.f(from, above)),
                    integer(maximum), result);
  result = e.select(e.cmpf(arith::CmpFPredicate::OLT, x, e.f(from, below)),
                    integer(minimum), result);
  return e.select(e.cmpf(arith::CmpFPredicate::UNO, x, x), e.i(element, 0),
                  result);
}

} // namespace mlir::spine
