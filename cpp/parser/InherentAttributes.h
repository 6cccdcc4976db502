//===- InherentAttributes.h - Attributes of the wrong kind ------*- C++ -*-===//
//
// The custom assembly of an op (llvm.mlir.global, ...) hands the inherent
// attributes of its attribute dictionary to the op as they are. One of the
// wrong kind (`{addr_space = i32}`, a type where an integer belongs) leaves
// the op's property null; the verifier takes a null property for its default,
// and accessors that assume a default-valued property is always set crash
// (found by the fuzzer, in llvm.mlir.addressof's symbol verifier). The check
// below runs between parsing and verifying, in spine_triton._C and in
// spine-triton-opt.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PARSER_INHERENTATTRIBUTES_H
#define SPINE_TRITON_PARSER_INHERENTATTRIBUTES_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace spine {

/// Reports every op nested in `root` (and `root` itself) that has a
/// default-valued property left null, i.e. was given an inherent attribute of
/// the wrong kind, and sets such properties to their defaults so that nothing
/// reads null afterwards. Fails if there was any.
mlir::LogicalResult checkInherentAttributeKinds(mlir::Operation *root);

} // namespace spine

#endif // SPINE_TRITON_PARSER_INHERENTATTRIBUTES_H
