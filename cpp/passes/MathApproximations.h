//===- MathApproximations.h - our vector math functions ---------*- C++ -*-===//
//
// Patterns that replace math ops upstream has no accurate approximation for
// by vectorizable arithmetic: f64 exp, exp2, log and log2, and f32 sin, cos
// and pow, computed in f64 so that one rounding to f32 at the end is nearly
// all the error. They run in spine-approximate-math, before SCF is lowered:
// sin and cos arguments outside the range their reduction is exact for take
// a branch to libm's f64 function.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_MATHAPPROXIMATIONS_H
#define SPINE_TRITON_PASSES_MATHAPPROXIMATIONS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::spine {

/// `type` (a scalar or a vector type) with `element` as its element type.
inline Type withElementType(Type type, Type element) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(element);
  return element;
}

/// The constant `value` of `type`, splat if `type` is a vector.
inline Value splatConstant(OpBuilder &b, Location loc, Type type,
                           TypedAttr value) {
  TypedAttr attr = value;
  if (auto shaped = dyn_cast<ShapedType>(type))
    attr = DenseElementsAttr::get(shaped, value);
  return arith::ConstantOp::create(b, loc, attr);
}

inline Value splatFloat(OpBuilder &b, Location loc, Type type, double value) {
  return splatConstant(b, loc, type,
                       b.getFloatAttr(getElementTypeOrSelf(type), value));
}

inline Value splatInt(OpBuilder &b, Location loc, Type type, int64_t value) {
  return splatConstant(b, loc, type,
                       b.getIntegerAttr(getElementTypeOrSelf(type), value));
}

/// c[0] + c[1] z + c[2] z^2 + ..., by Horner's rule with FMAs.
Value polynomial(OpBuilder &b, Location loc, Value z, ArrayRef<double> c);

/// exp and log of f64 values (scalars or vectors), every input included
/// (ExpLogF64.cpp).
Value expF64(OpBuilder &b, Location loc, Value x);
Value logF64(OpBuilder &b, Location loc, Value x);

/// f64 exp, exp2, log and log2 (ExpLogF64.cpp).
void populateExpLogF64Patterns(RewritePatternSet &patterns);

/// f32 sin and cos (SinCosApproximation.cpp).
void populateSinCosApproximationPatterns(RewritePatternSet &patterns);

/// f32 pow (PowApproximation.cpp).
void populatePowApproximationPatterns(RewritePatternSet &patterns);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_MATHAPPROXIMATIONS_H
