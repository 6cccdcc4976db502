//===- LibdeviceFunctions.h - libdevice functions, built -------*- C++ -*-===//
//
// The libdevice functions (tl.extra.libdevice) that no single math or arith
// op implements, built from several: libm calls for the functions C has,
// special functions written out, integer bit functions, and the directed
// rounding variants (_rd, _ru, _rz) of conversions and arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_LIBDEVICEFUNCTIONS_H
#define SPINE_TRITON_PASSES_LIBDEVICEFUNCTIONS_H

#include "mlir/IR/Builders.h"

namespace mlir::spine {

enum class Rounding { Down, Up, TowardZero };

/// `x` (integer or f64 elements; `isUnsigned` for unsigned integers)
/// converted to float type `type` (f32 or f64 elements), rounded once with
/// `rounding`.
Value createDirectedConversion(OpBuilder &b, Location loc, Value x, Type type,
                               bool isUnsigned, Rounding rounding);

/// libdevice function `name` (without `__nv_`) on `args`, with result type
/// `type`; null if `name` is not one of the functions built here.
Value buildLibdeviceFunction(OpBuilder &b, Location loc, StringRef name,
                             ValueRange args, Type type);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_LIBDEVICEFUNCTIONS_H
