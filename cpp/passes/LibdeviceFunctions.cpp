//===- LibdeviceFunctions.cpp - libdevice functions without one op --------===//
//
// - C library calls, per element, for what libm has: the Bessel functions
//   j0, j1, jn, y0, y1, yn, lgamma, tgamma, logb, ilogb, ldexp, scalbn,
//   nextafter, remainder and the f64 hypot. Kernel libraries link -lm on
//   every target.
// - Written out: erfinv (f32: Giles' polynomial approximation; f64: that,
//   refined by Halley steps on erf or erfc, whichever the argument determines
//   exactly), erfcinv, normcdfinv, normcdf, erfcx, sinpi, cospi (exact
//   argument reduction), cyl_bessel_i0/i1 (power series, asymptotic series
//   for large arguments), the f32 hypot and norm3d/4d (in f64), their
//   reciprocals and rcbrt. The f32 forms of all but erfinv are computed in
//   f64 and rounded once.
// - Integer bit functions: brev, byte_perm, ffs, hadd, rhadd, mul24, sad and
//   the f64 word functions.
// - Directed rounding (_rd, _ru, _rz): the result rounded to nearest, moved
//   one step where the exact value lies on the other side of it. The sign of
//   the exact error comes from an error-free transformation: TwoSum for
//   additions, and for f32 operations the f64 result (products are exact in
//   f64; quotients and square roots have an exact f64 residual). f64
//   multiplication, division, square root and fma have no such residual near
//   the subnormal range and are refused.
//
//===----------------------------------------------------------------------===//

#include "passes/LibdeviceFunctions.h"
#include "passes/ElementwiseBuilder.h"
#include "passes/FloatConversions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

namespace mlir::spine {
namespace {

using E = ElementwiseBuilder;
using arith::CmpFPredicate;
using arith::CmpIPredicate;

constexpr double kPi = 3.14159265358979323846;

FloatType floatElement(Type type) {
  return dyn_cast<FloatType>(getElementTypeOrSelf(type));
}

//===----------------------------------------------------------------------===//
// Per-element calls
//===----------------------------------------------------------------------===//

/// `scalar` applied to the elements of `args` (all shaped like `type`):
/// directly to scalars, as the body of a linalg.generic to tensors.
Value mapScalars(
    OpBuilder &b, Location loc, ValueRange args, Type type,
    function_ref<Value(OpBuilder &, Location, ValueRange)> scalar) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return scalar(b, loc, args);
  unsigned rank = tensor.getRank();
  SmallVector<AffineMap> maps(args.size() + 1, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{tensor}, args, ValueRange{createEmpty(b, loc, tensor)},
      maps, iterators, [&](OpBuilder &nb, Location nloc, ValueRange elements) {
        linalg::YieldOp::create(nb, nloc,
                                scalar(nb, nloc, elements.drop_back()));
      });
  return generic.getResult(0);
}

/// C library function `name` called per element.
Value callLibm(OpBuilder &b, Location loc, StringRef name, ValueRange args,
               Type type) {
  Operation *parent = b.getInsertionBlock()->getParentOp();
  auto module = dyn_cast<ModuleOp>(parent);
  if (!module)
    module = parent->getParentOfType<ModuleOp>();
  Type result = getElementTypeOrSelf(type);
  if (!SymbolTable::lookupSymbolIn(module, name)) {
    SmallVector<Type> params;
    for (Value arg : args)
      params.push_back(getElementTypeOrSelf(arg.getType()));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto fn =
        func::FuncOp::create(b, loc, name, b.getFunctionType(params, result));
    fn.setPrivate();
  }
  return mapScalars(b, loc, args, type,
                    [&](OpBuilder &nb, Location nloc, ValueRange elements) {
                      return func::CallOp::create(nb, nloc, name, result,
                                                  elements)
                          .getResult(0);
                    });
}

//===----------------------------------------------------------------------===//
// Special functions
//===----------------------------------------------------------------------===//

Value isInf(E &e, Value x) {
  return e.cmpf(CmpFPredicate::OEQ, e.abs(x), e.fLike(x, INFINITY));
}

Value isFinite(E &e, Value x) {
  return e.cmpf(CmpFPredicate::ONE, e.abs(x), e.fLike(x, INFINITY));
}

/// f32 `x` widened to f64; f64 as it is.
Value toF64(E &e, Value x) {
  return floatElement(x.getType()).isF64() ? x : e.extf(x, e.b.getF64Type());
}

/// f64 `x` narrowed to the float type of `type`.
Value fromF64(E &e, Value x, Type type) {
  FloatType to = floatElement(type);
  return to.isF64() ? x : e.truncf(x, to);
}

// Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011): the
// single-precision polynomials, constant term first, in w = -log(1 - y^2).
constexpr double kErfinvCentral[] = {
    1.50140941,     0.246640727,    -0.00417768164,
    -0.00125372503, 0.00021858087,  -4.39150654e-06,
    -3.5233877e-06, 3.43273939e-07, 2.81022636e-08};
constexpr double kErfinvTail[] = {
    2.83297682,    1.00167406,     0.00943887047,
    -0.0076224613, 0.00573950773,  -0.00367342844,
    0.00134934322, 0.000100950558, -0.000200214257};

/// erfinv on f32: the polynomial approximation alone (a few ulp).
Value erfinvF32(E &e, Value y) {
  Value one = e.fLike(y, 1.0);
  Value w = e.neg(e.log(e.mul(e.sub(one, y), e.add(one, y))));
  Value central = e.polynomial(e.sub(w, e.fLike(y, 2.5)), kErfinvCentral);
  Value tail = e.polynomial(e.sub(e.sqrt(w), e.fLike(y, 3.0)), kErfinvTail);
  Value p =
      e.select(e.cmpf(CmpFPredicate::OLT, w, e.fLike(y, 5.0)), central, tail);
  Value x = e.mul(p, y);
  Value inf = e.copysign(e.fLike(y, INFINITY), y);
  return e.select(e.cmpf(CmpFPredicate::OEQ, e.abs(y), one), inf, x);
}

/// The x >= 0 with erf(x) = a and erfc(x) = c = 1 - a, in f64. Of `a` and
/// `c`, the one used is exact: a where a <= 1/2, c elsewhere.
Value erfinvCore(E &e, Value a, Value c) {
  Value one = e.fLike(a, 1.0);
  Value w = e.neg(e.log(e.mul(c, e.add(one, a))));
  // Starting points: the f32 polynomials where they were fitted (erf(x) at
  // least 1 - 2^-24), an asymptotic expansion of erfc beyond.
  Value central =
      e.mul(e.polynomial(e.sub(w, e.fLike(a, 2.5)), kErfinvCentral), a);
  Value tail =
      e.mul(e.polynomial(e.sub(e.sqrt(w), e.fLike(a, 3.0)), kErfinvTail), a);
  Value far = e.sqrt(
      e.sub(w, e.mul(e.fLike(a, 0.5), e.log(e.mul(e.fLike(a, kPi), w)))));
  Value x = e.select(
      e.cmpf(CmpFPredicate::OLT, w, e.fLike(a, 5.0)), central,
      e.select(e.cmpf(CmpFPredicate::OLT, w, e.fLike(a, 16.0)), tail, far));
  // Halley steps on f(x) = erf(x) - a (= c - erfc(x)): f' = 2/sqrt(pi)
  // exp(-x^2), f'' = -2x f', so x -= t / (1 + x t) with t = f / f'.
  Value useErf = e.cmpf(CmpFPredicate::OLE, a, e.fLike(a, 0.5));
  for (int step = 0; step < 3; ++step) {
    Value f = e.select(useErf, e.sub(math::ErfOp::create(e.b, e.loc, x), a),
                       e.sub(c, math::ErfcOp::create(e.b, e.loc, x)));
    Value slope =
        e.mul(e.fLike(a, 2.0 / std::sqrt(kPi)), e.exp(e.neg(e.mul(x, x))));
    Value t = e.div(f, slope);
    x = e.sub(x, e.div(t, e.fma(x, t, one)));
  }
  return x;
}

Value erfinv(E &e, Value y, Type type) {
  if (floatElement(type).isF32())
    return erfinvF32(e, y);
  Value a = e.abs(y);
  Value x = erfinvCore(e, a, e.sub(e.fLike(y, 1.0), a));
  Value one = e.cmpf(CmpFPredicate::OEQ, a, e.fLike(y, 1.0));
  return e.copysign(e.select(one, e.fLike(y, INFINITY), x), y);
}

/// erfcinv in f64: x with erfc(x) = q, q in [0, 2].
Value erfcinvF64(E &e, Value q) {
  Value one = e.fLike(q, 1.0), two = e.fLike(q, 2.0);
  Value upper = e.cmpf(CmpFPredicate::OGT, q, one);
  // erfcinv(q) = -erfcinv(2 - q); 2 - q is exact for q in [1, 2].
  Value c = e.select(upper, e.sub(two, q), q);
  Value x = erfinvCore(e, e.sub(one, c), c);
  x = e.select(upper, e.neg(x), x);
  x = e.select(e.cmpf(CmpFPredicate::OEQ, q, e.fLike(q, 0.0)),
               e.fLike(q, INFINITY), x);
  return e.select(e.cmpf(CmpFPredicate::OEQ, q, two), e.fLike(q, -INFINITY), x);
}

/// normcdf(x) = erfc(-x / sqrt(2)) / 2 in f64. The argument's rounding error
/// would be amplified by 2 x^2 / 2 in the tail: its exact low part enters
/// through the derivative of erfc.
Value normcdfF64(E &e, Value x) {
  const double hi = 0.70710678118654757;     // sqrt(1/2) rounded to f64
  const double lo = -4.8336466567264567e-17; // sqrt(1/2) - hi
  Value tHi = e.mul(x, e.fLike(x, hi));
  Value tLo =
      e.add(e.fma(x, e.fLike(x, hi), e.neg(tHi)), e.mul(x, e.fLike(x, lo)));
  Value base = math::ErfcOp::create(e.b, e.loc, e.neg(tHi));
  Value slope =
      e.mul(e.fLike(x, 2.0 / std::sqrt(kPi)), e.exp(e.neg(e.mul(tHi, tHi))));
  Value correction =
      e.select(e.cmpf(CmpFPredicate::OLT, e.abs(x), e.fLike(x, 40.0)),
               e.mul(tLo, slope), e.fLike(x, 0.0));
  return e.mul(e.fLike(x, 0.5), e.add(base, correction));
}

/// erfcx(x) = exp(x^2) erfc(x) in f64: directly below 25 (x^2 split exactly
/// in two), by its asymptotic series above (where erfc underflows).
Value erfcxF64(E &e, Value x) {
  Value x2 = e.mul(x, x);
  Value x2Low =
      e.select(e.cmpf(CmpFPredicate::OLT, e.abs(x), e.fLike(x, 1e150)),
               e.fma(x, x, e.neg(x2)), e.fLike(x, 0.0));
  Value direct = e.mul(e.mul(e.exp(x2), e.add(e.fLike(x, 1.0), x2Low)),
                       math::ErfcOp::create(e.b, e.loc, x));
  // erfcx(x) ~ 1 / (x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k
  Value u = e.div(e.fLike(x, 1.0), e.mul(e.fLike(x, 2.0), x2));
  Value series = e.fLike(x, 1.0);
  for (int k = 9; k >= 1; --k)
    series =
        e.sub(e.fLike(x, 1.0), e.mul(e.mul(e.fLike(x, 2 * k - 1), u), series));
  Value asymptotic = e.div(series, e.mul(x, e.fLike(x, std::sqrt(kPi))));
  return e.select(e.cmpf(CmpFPredicate::OLT, x, e.fLike(x, 25.0)), direct,
                  asymptotic);
}

/// sinpi / cospi in f64: x = 2m + n/2 + t exactly, |t| <= 1/4, then sin or
/// cos of pi t by the quadrant n mod 4.
Value sinCosPiF64(E &e, Value x, bool cosine) {
  auto roundEven = [&](Value v) {
    return math::RoundEvenOp::create(e.b, e.loc, v).getResult();
  };
  Value half = e.fLike(x, 0.5), two = e.fLike(x, 2.0);
  Value r = e.sub(x, e.mul(two, roundEven(e.mul(x, half))));
  Value n = roundEven(e.mul(two, r));
  Value t = e.sub(r, e.mul(half, n));
  // No quadrant for NaN and infinities (their t is NaN anyway).
  n = e.select(e.cmpf(CmpFPredicate::UNO, n, n), e.fLike(x, 0.0), n);
  Type i32 = e.b.getI32Type();
  Value quadrant = e.andi(e.fptosi(n, i32), e.i(i32, 3));
  Value angle = e.mul(t, e.fLike(x, kPi));
  Value sin = math::SinOp::create(e.b, e.loc, angle);
  Value cos = math::CosOp::create(e.b, e.loc, angle);
  auto inQuadrant = [&](int q) {
    return e.cmpi(CmpIPredicate::eq, quadrant, e.i(i32, q));
  };
  Value v0 = cosine ? cos : sin, v1 = cosine ? e.neg(sin) : cos;
  Value v = e.select(inQuadrant(0), v0,
                     e.select(inQuadrant(1), v1,
                              e.select(inQuadrant(2), e.neg(v0), e.neg(v1))));
  // Exact zeros: sinpi(+-n) = +-0, cospi(n + 1/2) = +0.
  Value zero = e.fLike(x, 0.0);
  Value isZero = e.cmpf(CmpFPredicate::OEQ, v, zero);
  return e.select(isZero, cosine ? zero : e.copysign(zero, x), v);
}

/// Modified Bessel function I0 or I1 in f64: power series below 20, the
/// asymptotic expansion e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k above.
Value besselIF64(E &e, Value x, int nu) {
  Value ax = e.abs(x);
  Value q = e.mul(e.mul(ax, ax), e.fLike(x, 0.25));
  Value term = e.fLike(x, 1.0), sum = term;
  for (int k = 1; k <= 36; ++k) {
    term = e.mul(term, e.mul(q, e.fLike(x, 1.0 / (double(k) * (k + nu)))));
    sum = e.add(sum, term);
  }
  Value series = nu == 0 ? sum : e.mul(e.mul(ax, e.fLike(x, 0.5)), sum);
  Value term2 = e.fLike(x, 1.0), sum2 = term2;
  Value inv8x = e.div(e.fLike(x, 0.125), ax);
  for (int k = 1; k <= 36; ++k) {
    double factor = -(4.0 * nu * nu - double(2 * k - 1) * (2 * k - 1)) / k;
    term2 = e.mul(term2, e.mul(inv8x, e.fLike(x, factor)));
    sum2 = e.add(sum2, term2);
  }
  // e^x split in two halves: no overflow before the result's own.
  Value halfExp = e.exp(e.mul(ax, e.fLike(x, 0.5)));
  Value asymptotic =
      e.mul(halfExp, e.div(e.mul(halfExp, sum2),
                           e.sqrt(e.mul(ax, e.fLike(x, 2.0 * kPi)))));
  Value v = e.select(e.cmpf(CmpFPredicate::OLT, ax, e.fLike(x, 20.0)), series,
                     asymptotic);
  v = e.select(isInf(e, x), e.fLike(x, INFINITY), v);
  return nu == 0 ? v : e.copysign(v, x);
}

/// sqrt of the sum of squares: f32 in f64 (no overflow, one rounding), f64
/// through libm's hypot; an infinite argument gives +inf even next to NaN.
Value norm(E &e, ValueRange args, Type type, bool reciprocal) {
  Value r;
  if (floatElement(type).isF32()) {
    Value sum;
    for (Value arg : args) {
      Value w = toF64(e, arg);
      sum = sum ? e.fma(w, w, sum) : e.mul(w, w);
    }
    Value n = e.sqrt(sum);
    if (reciprocal)
      n = e.div(e.fLike(n, 1.0), n);
    r = fromF64(e, n, type);
    Value anyInf;
    for (Value arg : args)
      anyInf = anyInf ? e.orb(anyInf, isInf(e, arg)) : isInf(e, arg);
    return e.select(anyInf, e.fLike(r, reciprocal ? 0.0 : INFINITY), r);
  }
  auto hypot = [&](Value x, Value y) {
    return callLibm(e.b, e.loc, "hypot", {x, y}, type);
  };
  r = hypot(args[0], args[1]);
  if (args.size() == 3)
    r = hypot(r, args[2]);
  if (args.size() == 4)
    r = hypot(r, hypot(args[2], args[3]));
  return reciprocal ? e.div(e.fLike(r, 1.0), r) : r;
}

//===----------------------------------------------------------------------===//
// Integer functions
//===----------------------------------------------------------------------===//

Value bytePerm(E &e, Value x, Value y, Value selector) {
  Type i32 = e.b.getI32Type(), i64 = e.b.getI64Type();
  // The eight bytes y:x, byte 0 the lowest of x.
  Value bytes = e.ori(e.shl(e.zext(y, i64), e.i(i64, 32)), e.zext(x, i64));
  Value result = e.i(i32, 0);
  for (int i = 0; i < 4; ++i) {
    Value index = e.andi(e.shr(selector, e.i(i32, 4 * i)), e.i(i32, 7));
    Value shift = e.zext(e.muli(index, e.i(i32, 8)), i64);
    Value byte = e.trunci(e.andi(e.shr(bytes, shift), e.i(i64, 0xff)), i32);
    result = e.ori(result, e.shl(byte, e.i(i32, 8 * i)));
  }
  return result;
}

/// (x + y) >> 1 (+ 1 before the shift when rounding up), without overflow.
Value halvingAdd(E &e, Value x, Value y, bool isSigned, bool roundUp) {
  Type i64 = e.b.getI64Type();
  Type type = getElementTypeOrSelf(x.getType());
  Value wx = isSigned ? e.sext(x, i64) : e.zext(x, i64);
  Value wy = isSigned ? e.sext(y, i64) : e.zext(y, i64);
  Value sum = e.addi(wx, wy);
  if (roundUp)
    sum = e.addi(sum, e.i(i64, 1));
  Value one = e.i(i64, 1);
  return e.trunci(isSigned ? e.shrs(sum, one) : e.shr(sum, one), type);
}

/// The product of the low 24 bits (sign-extended for mul24), low 32 bits.
Value mul24(E &e, Value x, Value y, bool isSigned) {
  Type i32 = e.b.getI32Type();
  auto low24 = [&](Value v) {
    return isSigned ? e.shrs(e.shl(v, e.i(i32, 8)), e.i(i32, 8))
                    : e.andi(v, e.i(i32, 0xffffff));
  };
  return e.muli(low24(x), low24(y));
}

/// |x - y| + z.
Value sad(E &e, Value x, Value y, Value z, bool isSigned) {
  Type i32 = e.b.getI32Type(), i64 = e.b.getI64Type();
  Value wx = isSigned ? e.sext(x, i64) : e.zext(x, i64);
  Value wy = isSigned ? e.sext(y, i64) : e.zext(y, i64);
  Value diff = math::AbsIOp::create(e.b, e.loc, e.subi(wx, wy));
  return e.addi(e.trunci(diff, i32), z);
}

Value ffs(E &e, Value x) {
  Type type = getElementTypeOrSelf(x.getType());
  Value trailing = math::CountTrailingZerosOp::create(e.b, e.loc, x);
  Value position = e.addi(trailing, e.i(type, 1));
  Value result = e.select(e.cmpi(CmpIPredicate::eq, x, e.i(type, 0)),
                          e.i(type, 0), position);
  Type i32 = e.b.getI32Type();
  return type == i32 ? result : e.trunci(result, i32);
}

//===----------------------------------------------------------------------===//
// Directed rounding
//===----------------------------------------------------------------------===//

/// The next float of `r`'s type toward +inf; from +-0, the smallest positive
/// subnormal.
Value stepUp(E &e, Value r) {
  Type type = getElementTypeOrSelf(r.getType());
  Type intType = e.b.getIntegerType(type.getIntOrFloatBitWidth());
  Value bits = e.bitcast(r, intType);
  Value one = e.i(intType, 1);
  Value zero = e.fLike(r, 0.0);
  Value up = e.select(e.cmpf(CmpFPredicate::OGT, r, zero), e.addi(bits, one),
                      e.subi(bits, one));
  up = e.select(e.cmpf(CmpFPredicate::OEQ, r, zero), one, up);
  return e.bitcast(up, type);
}

Value stepDown(E &e, Value r) { return e.neg(stepUp(e, e.neg(r))); }

/// The exact value s + err (err: any value of the sign of the exact value
/// minus s, 0 when s is exact) rounded to `type` (no wider than s) with
/// `rounding`: s rounded to nearest, then one step back where the exact
/// value lies on the other side.
Value roundDirected(E &e, Value s, Value err, FloatType type,
                    Rounding rounding) {
  Value r = s, zero = e.fLike(s, 0.0), diff = zero;
  if (floatElement(s.getType()) != type) {
    r = e.truncf(s, type);
    // Exact: r is within a factor of two of s (or 0, or infinite).
    diff = e.sub(s, e.extf(r, floatElement(s.getType())));
  }
  Value direction = e.select(e.cmpf(CmpFPredicate::ONE, diff, zero), diff, err);
  Value below = e.cmpf(CmpFPredicate::OLT, direction, zero);
  Value above = e.cmpf(CmpFPredicate::OGT, direction, zero);
  Value rZero = e.fLike(r, 0.0);
  switch (rounding) {
  case Rounding::Down:
    return e.select(below, stepDown(e, r), r);
  case Rounding::Up:
    return e.select(above, stepUp(e, r), r);
  case Rounding::TowardZero: {
    Value down = e.andb(below, e.cmpf(CmpFPredicate::OGT, r, rZero));
    Value up = e.andb(above, e.cmpf(CmpFPredicate::OLT, r, rZero));
    return e.select(down, stepDown(e, r), e.select(up, stepUp(e, r), r));
  }
  }
  llvm_unreachable("unknown rounding");
}

/// Knuth's TwoSum: s = fl(a + b) and the exact err = a + b - s (no
/// overflow).
std::pair<Value, Value> twoSum(E &e, Value a, Value b) {
  Value s = e.add(a, b);
  Value bv = e.sub(s, a);
  Value err = e.add(e.sub(a, e.sub(s, bv)), e.sub(b, bv));
  return {s, err};
}

enum class ArithKind { Add, Sub, Mul, Div, Rcp, Sqrt, Fma };

/// f32 add/sub/mul/div/rcp/sqrt/fma and f64 add/sub with directed rounding;
/// null for the f64 operations without an exact error term.
Value directedArith(E &e, ArithKind kind, ValueRange args, Type type,
                    Rounding rounding) {
  FloatType ft = floatElement(type);
  bool isF32 = ft.isF32();
  if (!isF32 && kind != ArithKind::Add && kind != ArithKind::Sub)
    return {};
  auto wide = [&](Value v) { return toF64(e, v); };
  Value s, err;
  switch (kind) {
  case ArithKind::Add:
  case ArithKind::Sub: {
    Value a = wide(args[0]);
    Value b = wide(kind == ArithKind::Sub ? e.neg(args[1]) : args[1]);
    std::tie(s, err) = twoSum(e, a, b);
    // An f64 sum overflowing from finite operands is finite, below inf.
    Value overflow =
        e.andb(isInf(e, s), e.andb(isFinite(e, a), isFinite(e, b)));
    err = e.select(overflow, e.neg(s), err);
    break;
  }
  case ArithKind::Mul:
    s = e.mul(wide(args[0]), wide(args[1])); // exact in f64
    err = e.fLike(s, 0.0);
    break;
  case ArithKind::Div:
  case ArithKind::Rcp: {
    Value a =
        kind == ArithKind::Rcp ? e.fLike(wide(args[0]), 1.0) : wide(args[0]);
    Value b = wide(args.back());
    s = e.div(a, b);
    // a - s b = b (a/b - s), exact in f64 for f32 operands.
    err = e.mul(e.fma(e.neg(s), b, a), b);
    break;
  }
  case ArithKind::Sqrt: {
    Value a = wide(args[0]);
    s = e.sqrt(a);
    err = e.fma(e.neg(s), s, a); // a - s^2, exact
    break;
  }
  case ArithKind::Fma:
    std::tie(s, err) =
        twoSum(e, e.mul(wide(args[0]), wide(args[1])), wide(args[2]));
    break;
  }
  Value r = roundDirected(e, s, err, ft, rounding);
  // An exact zero sum of nonzero values is -0 when rounding down.
  if (rounding == Rounding::Down &&
      (kind == ArithKind::Add || kind == ArithKind::Sub ||
       kind == ArithKind::Fma)) {
    Value negated;
    if (kind == ArithKind::Fma)
      negated = e.fma(e.neg(args[0]), args[1], e.neg(args[2]));
    else
      negated = e.add(e.neg(args[0]),
                      kind == ArithKind::Sub ? args[1] : e.neg(args[1]));
    Value exactZero = e.cmpf(CmpFPredicate::OEQ, s, e.fLike(s, 0.0));
    r = e.select(exactZero, e.neg(negated), r);
  }
  return r;
}

std::optional<Rounding> parseRounding(StringRef mode) {
  return StringSwitch<std::optional<Rounding>>(mode)
      .Case("rd", Rounding::Down)
      .Case("ru", Rounding::Up)
      .Case("rz", Rounding::TowardZero)
      .Default(std::nullopt);
}

} // namespace

Value createDirectedConversion(OpBuilder &b, Location loc, Value x, Type type,
                               bool isUnsigned, Rounding rounding) {
  E e(b, loc, type);
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  Type from = getElementTypeOrSelf(x.getType());
  Value s = x, err;
  if (isa<FloatType>(from)) {
    err = e.fLike(s, 0.0);
  } else {
    s = isUnsigned ? e.uitofp(x, f64) : e.sitofp(x, f64);
    err = e.fLike(s, 0.0);
    if (from.getIntOrFloatBitWidth() > 32) {
      // s is an integer near x: their difference is small and exact.
      Value limit = e.fLike(s, isUnsigned ? 0x1p64 : 0x1p63);
      Value back = isUnsigned ? e.fptoui(s, i64) : e.fptosi(s, i64);
      Value diff = e.sitofp(e.subi(x, back), f64);
      err = e.select(e.cmpf(CmpFPredicate::OGE, s, limit), e.fLike(s, -1.0),
                     diff);
    }
  }
  return roundDirected(e, s, err, floatElement(type), rounding);
}

Value buildLibdeviceFunction(OpBuilder &b, Location loc, StringRef name,
                             ValueRange args, Type type) {
  E e(b, loc, type);
  FloatType ft = floatElement(type);
  unsigned n = args.size();
  auto isFloatFn = [&](unsigned arity) { return ft && n == arity; };

  // libm, under the same names.
  if (llvm::is_contained({"j0f", "j1f", "y0f", "y1f", "j0", "j1", "y0", "y1",
                          "lgammaf", "lgamma", "tgammaf", "tgamma", "logbf",
                          "logb"},
                         name) &&
      isFloatFn(1))
    return callLibm(b, loc, name, args, type);
  if (llvm::is_contained({"jnf", "jn", "ynf", "yn", "ldexpf", "ldexp",
                          "scalbnf", "scalbn", "nextafterf", "nextafter",
                          "remainderf", "remainder"},
                         name) &&
      isFloatFn(2))
    return callLibm(b, loc, name, args, type);
  if ((name == "ilogbf" || name == "ilogb") && n == 1)
    return callLibm(b, loc, name, args, type);

  // Special functions.
  if (isFloatFn(1)) {
    Value x = args[0];
    if (name == "erfinvf" || name == "erfinv")
      return erfinv(e, x, type);
    if (name == "erfcinvf" || name == "erfcinv")
      return fromF64(e, erfcinvF64(e, toF64(e, x)), type);
    if (name == "normcdfinvf" || name == "normcdfinv") {
      Value w = toF64(e, x);
      Value v = erfcinvF64(e, e.mul(w, e.fLike(w, 2.0)));
      return fromF64(e, e.mul(v, e.fLike(w, -std::sqrt(2.0))), type);
    }
    if (name == "normcdff" || name == "normcdf")
      return fromF64(e, normcdfF64(e, toF64(e, x)), type);
    if (name == "erfcxf" || name == "erfcx")
      return fromF64(e, erfcxF64(e, toF64(e, x)), type);
    if (name == "sinpif" || name == "sinpi" || name == "cospif" ||
        name == "cospi")
      return fromF64(e, sinCosPiF64(e, toF64(e, x), name.starts_with("cos")),
                     type);
    if (name == "cyl_bessel_i0f" || name == "cyl_bessel_i0")
      return fromF64(e, besselIF64(e, toF64(e, x), 0), type);
    if (name == "cyl_bessel_i1f" || name == "cyl_bessel_i1")
      return fromF64(e, besselIF64(e, toF64(e, x), 1), type);
    if (name == "rcbrtf" || name == "rcbrt")
      return e.div(e.fLike(x, 1.0), math::CbrtOp::create(b, loc, x));
  }
  if (ft && (name == "hypotf" || name == "hypot") && n == 2)
    return norm(e, args, type, /*reciprocal=*/false);
  if (ft && (name == "rhypotf" || name == "rhypot") && n == 2)
    return norm(e, args, type, /*reciprocal=*/true);
  if (ft && (name == "norm3df" || name == "norm3d") && n == 3)
    return norm(e, args, type, /*reciprocal=*/false);
  if (ft && (name == "rnorm3df" || name == "rnorm3d") && n == 3)
    return norm(e, args, type, /*reciprocal=*/true);
  if (ft && (name == "norm4df" || name == "norm4d") && n == 4)
    return norm(e, args, type, /*reciprocal=*/false);
  if (ft && (name == "rnorm4df" || name == "rnorm4d") && n == 4)
    return norm(e, args, type, /*reciprocal=*/true);

  // Integer and bit functions.
  if ((name == "brev" || name == "brevll") && n == 1)
    return mapScalars(
        b, loc, args, type, [](OpBuilder &nb, Location nloc, ValueRange v) {
          return LLVM::BitReverseOp::create(nb, nloc, v[0]).getResult();
        });
  if (name == "byte_perm" && n == 3)
    return bytePerm(e, args[0], args[1], args[2]);
  if ((name == "ffs" || name == "ffsll") && n == 1)
    return ffs(e, args[0]);
  if (n == 2 && (name == "hadd" || name == "rhadd" || name == "uhadd" ||
                 name == "urhadd"))
    return halvingAdd(e, args[0], args[1], !name.starts_with("u"),
                      name.contains("rhadd"));
  if (n == 2 && (name == "mul24" || name == "umul24"))
    return mul24(e, args[0], args[1], name == "mul24");
  if (n == 3 && (name == "sad" || name == "usad"))
    return sad(e, args[0], args[1], args[2], name == "sad");
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (name == "double2hiint" && n == 1)
    return e.trunci(e.shr(e.bitcast(args[0], i64), e.i(i64, 32)), i32);
  if (name == "double2loint" && n == 1)
    return e.trunci(e.bitcast(args[0], i64), i32);
  if (name == "hiloint2double" && n == 2) {
    Value hi = e.shl(e.zext(args[0], i64), e.i(i64, 32));
    return e.bitcast(e.ori(hi, e.zext(args[1], i64)), b.getF64Type());
  }
  if (name == "rcp64h" && n == 1) {
    // The reciprocal with its low word cleared.
    Value r = e.bitcast(e.div(e.fLike(args[0], 1.0), args[0]), i64);
    return e.bitcast(e.andi(r, e.i(i64, int64_t(0xffffffff00000000ull))),
                     b.getF64Type());
  }
  if ((name == "llrintf" || name == "llrint") && n == 1)
    return createSaturatingFloatToInt(
        b, loc, math::RoundEvenOp::create(b, loc, args[0]), e.like(i64),
        /*isSigned=*/true);
  if ((name == "llroundf" || name == "llround") && n == 1)
    return createSaturatingFloatToInt(b, loc,
                                      math::RoundOp::create(b, loc, args[0]),
                                      e.like(i64), /*isSigned=*/true);

  // Arithmetic with directed rounding: <op>_rd, _ru, _rz.
  auto [base, mode] = name.rsplit('_');
  std::optional<Rounding> rounding = parseRounding(mode);
  if (!ft || !rounding)
    return {};
  auto kind = StringSwitch<std::optional<ArithKind>>(base)
                  .Cases({"fadd", "dadd"}, ArithKind::Add)
                  .Cases({"fsub", "dsub"}, ArithKind::Sub)
                  .Cases({"fmul", "dmul"}, ArithKind::Mul)
                  .Cases({"fdiv", "ddiv"}, ArithKind::Div)
                  .Cases({"frcp", "drcp"}, ArithKind::Rcp)
                  .Cases({"fsqrt", "dsqrt"}, ArithKind::Sqrt)
                  .Cases({"fmaf", "fma"}, ArithKind::Fma)
                  .Default(std::nullopt);
  if (!kind)
    return {};
  unsigned arity = *kind == ArithKind::Fma                               ? 3
                   : *kind == ArithKind::Rcp || *kind == ArithKind::Sqrt ? 1
                                                                         : 2;
  if (n != arity)
    return {};
  return directedArith(e, *kind, args, type, *rounding);
}

} // namespace mlir::spine
