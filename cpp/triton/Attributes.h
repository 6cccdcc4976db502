//===- Attributes.h - Triton dialect attributes -----------------*- C++ -*-===//
//
// The enums of TritonAttrDefs.td (memory semantics, cache modifiers, rounding
// modes, ...) and `#tt.cache_policy`.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_ATTRIBUTES_H
#define SPINE_TRITON_ATTRIBUTES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "triton/OpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "triton/AttrDefs.h.inc"

#endif // SPINE_TRITON_ATTRIBUTES_H
