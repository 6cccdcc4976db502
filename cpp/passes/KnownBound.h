//===- KnownBound.h - clamps that only carry a known bound ------*- C++ -*-===//
//
// spine-bound-shifted-exponents knows, on TTIR, that softmax's exp argument
// x - max(x) is at most 0 (or NaN); spine-approximate-math, after fusion and
// vectorization, no longer sees the maximum. The first passes the fact on as
// a clamp select(x <= 1, x, 1) that changes no value, marked with this
// attribute; the second takes the bound from it and reads x through it, so
// that the clamp does not cost an op per element.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_KNOWNBOUND_H
#define SPINE_TRITON_PASSES_KNOWNBOUND_H

#include "llvm/ADT/StringRef.h"

namespace mlir::spine {

/// Unit attribute of an arith.select that clamps a value already within the
/// clamp's bound: the select is the identity, kept to carry the bound.
constexpr llvm::StringLiteral kKnownBound = "spine.known_bound";

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_KNOWNBOUND_H
