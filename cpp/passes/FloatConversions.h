//===- FloatConversions.h - float conversions as arithmetic -----*- C++ -*-===//
//
// Conversions between float formats that the targets cannot do in one
// instruction, or not with the rounding Triton asks for: fp8 (f8E4M3FN,
// f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ) to and from the standard formats,
// narrowing toward zero, f16 <-> bf16 and f64 -> bf16. Every builder works
// elementwise on a scalar or on a ranked tensor, with integer and float arith
// ops only, so the result vectorizes and needs no runtime library.
//
// fp8 values are handled as their bit patterns (i8 elements). Narrowing to
// fp8 rounds to nearest even (or toward zero) once, from any source format,
// and follows torch: f8E4M3FN has no infinity and saturates (overflow and
// +-inf become +-448), f8E5M2 is IEEE-like (overflow rounds to +-inf, or to
// +-57344 toward zero). NaN becomes 0x7f with the sign of the input. AMD's
// f8E4M3FNUZ and f8E5M2FNUZ have no infinity and no -0: overflow (to
// nearest), infinities and NaN become 0x80, their one NaN.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_FLOATCONVERSIONS_H
#define SPINE_TRITON_PASSES_FLOATCONVERSIONS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::spine {

/// True if `type` (or its element type) is an fp8 format the builders below
/// handle: f8E4M3FN (triton's fp8e4nv), f8E5M2 (fp8e5), f8E4M3FNUZ (fp8e4b8)
/// or f8E5M2FNUZ (fp8e5b16).
bool isFloat8(Type type);

/// The f32 value encoded by the fp8 bit patterns `bits` (i8 elements) of
/// format `f8`, or by f4E2M1FN codes in their low 4 bits. Exact; NaN stays
/// NaN, f8E5M2 infinities stay infinite.
Value createFloat8ToF32(OpBuilder &b, Location loc, Value bits, FloatType f8);

/// The bit patterns (i8 elements) of `x` (any standard float elements)
/// rounded once to fp8 format `f8`: to nearest even, or toward zero.
Value createFloatToFloat8(OpBuilder &b, Location loc, Value x, FloatType f8,
                          bool towardZero);

/// `x` (f16, bf16, f32 or f64 elements) narrowed to `type`, which is no wider,
/// rounded once to nearest even or toward zero.
Value createTruncF(OpBuilder &b, Location loc, Value x, FloatType type,
                   bool towardZero);

/// Integer `x` (elements wider than 24 bits, signed or not) converted to
/// bf16, rounded once to nearest even. LLVM converts to f32 first and rounds
/// twice: 2^24 + 2^16 + 1 became 2^24 instead of 2^24 + 2^17.
Value createIntToBF16(OpBuilder &b, Location loc, Value x, bool isUnsigned);

/// `x` converted from format `from` to format `to` (either may be fp8, whose
/// values are their i8 bit patterns); narrowing rounds to nearest even or
/// toward zero, widening is exact.
Value createFloatConversion(OpBuilder &b, Location loc, Value x, FloatType from,
                            FloatType to, bool towardZero);

/// `x` (float elements) truncated toward zero to `type`'s integers (signed
/// or not) as NVIDIA's and AMD's GPUs convert: the integer type's minimum or
/// maximum where the truncation does not fit, 0 for NaN. LLVM's fptosi and
/// fptoui leave those cases undefined.
Value createSaturatingFloatToInt(OpBuilder &b, Location loc, Value x, Type type,
                                 bool isSigned);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_FLOATCONVERSIONS_H
