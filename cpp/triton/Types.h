//===- Types.h - Triton dialect types ---------------------------*- C++ -*-===//
//
// `!tt.ptr<T[, addrspace]>` and `!tt.tensordesc<shape x T[, layout]>`, the
// TensorDescInterface type interface, and the type helpers that Triton's ODS
// constraints call (getPointeeType, getI1SameShape, ...).
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_TYPES_H
#define SPINE_TRITON_TYPES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#include "triton/TypeEnums.h.inc"

#include "triton/TypeInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "triton/Types.h.inc"

namespace mlir::triton {

/// The pointee of a pointer, or of a tensor of pointers (keeping the tensor's
/// shape and encoding). Any other type is returned unchanged.
Type getPointeeType(Type type);

/// A pointer to `type`; a tensor of pointers to its elements if `type` is a
/// ranked tensor (same shape and encoding).
Type getPointerTypeSameShape(Type type);

/// `i1`, or a tensor of `i1` with the shape and encoding of `type`.
Type getI1SameShape(Type type);

/// Address space of a pointer or tensor of pointers; Global for anything else.
PtrAddrSpace getAddressSpace(Type type);

} // namespace mlir::triton

#endif // SPINE_TRITON_TYPES_H
