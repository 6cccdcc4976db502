//===- OpInterfaces.h - Triton op interfaces --------------------*- C++ -*-===//
//
// DotOpInterface, TransposeOpInterface, the descriptor, predicated, atomic and
// layout-anchor interfaces declared in TritonOpInterfaces.td.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_OP_INTERFACES_H
#define SPINE_TRITON_OP_INTERFACES_H

#include "mlir/IR/OpDefinition.h"

#include "triton/Attributes.h"
#include "triton/Types.h"

namespace mlir::triton::impl {

/// The order is a permutation of [0, rank) of the transposed operand.
LogicalResult verifyTransposeOpInterface(Operation *op);

/// A, B and the accumulator are all 2-D, or all 3-D with a common batch
/// dimension; A's K equals B's K and the result is M x N.
LogicalResult verifyDotOpInterface(Operation *op);

} // namespace mlir::triton::impl

#include "triton/OpInterfaces.h.inc"

#endif // SPINE_TRITON_OP_INTERFACES_H
