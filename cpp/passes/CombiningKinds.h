//===- CombiningKinds.h - reductions whose lanes may combine in any order -===//
//
// The combine ops of reductions that have a neutral element: the reduction
// lowering seeds such reductions with it (instead of the first element), and
// the element-loop vectorizer starts its vector of partial results from it.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_COMBININGKINDS_H
#define SPINE_TRITON_PASSES_COMBININGKINDS_H

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::spine {

/// The vector.combining_kind `op` computes (arith add, mul, min/max of every
/// flavour, and, or, xor), whatever its fast-math flags.
std::optional<vector::CombiningKind> getCombiningKind(Operation *op);

/// The min/max kind of a reduction's combine block (two arguments of one
/// type, one result) that picks one of its arguments by comparing them, as
/// torch inductor's triton_helpers.maximum and minimum do:
///   select(x > y, x, y)               integers (any signedness and strictness)
///   select((x > y) | (x != x), x, y)  floats: NaN propagates, like maximumf
/// with < for the minimum, whichever argument x is. Each equals the kind's op
/// but for which of two equal values it returns (+0.0 or -0.0 for floats),
/// which a reduction, free to combine in any order, leaves open anyway.
std::optional<vector::CombiningKind> getSelectingKind(Block &combine);

/// The value x with combine(x, y) == y for every y of `type` (-0.0 for float
/// addition, NaN for maxnumf/minnumf, ...); null where none exists.
TypedAttr getNeutralElement(vector::CombiningKind kind, Type type);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_COMBININGKINDS_H
