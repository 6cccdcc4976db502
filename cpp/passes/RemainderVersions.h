//===- RemainderVersions.h - offsets `% n` that never wrap ------*- C++ -*-===//
//
// GPU kernels keep their offsets in bounds with a remainder: `offs = (pid *
// BLOCK + tl.arange(0, BLOCK)) % M`. Read element by element, such an offset
// is an integer division per element (or a read of the materialized tensor),
// and the access it feeds is not provably consecutive, so it cannot become a
// vector load. For most programs the remainder changes nothing: every element
// of the dividend already lies in [0, M). That is decided once per access at
// run time from bounds of the dividend (ranges, splats, sums, products by
// constants), and the access is emitted twice: a version where the remainder
// is its dividend, taken when the bounds prove it, and the general one. No
// result depends on a fact the IR does not guarantee: the condition checks it.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_REMAINDERVERSIONS_H
#define SPINE_TRITON_PASSES_REMAINDERVERSIONS_H

#include "mlir/IR/Value.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::spine {

/// Remainder results (original tensor values) and the dividends they equal
/// under the version's condition.
using RemainderSubstitutes = llvm::DenseMap<Value, Value>;

/// Emits an access whose elements are computed from `roots` (original
/// tensors: pointers, masks, values). `build` emits it at the builder's
/// insertion point, with remainders replaced by their dividends when
/// `substitutes` is non-null, and returns its result (or null). When some
/// remainder feeding `roots` has bounded dividends, builds both versions
/// under an scf.if on the run-time condition; otherwise only the general
/// one. `resultType` is the type of what `build` returns, or null.
Value emitRemainderVersions(
    ConversionPatternRewriter &rewriter, Location loc, ValueRange roots,
    Type resultType,
    function_ref<Value(OpBuilder &, Location, const RemainderSubstitutes *)>
        build);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_REMAINDERVERSIONS_H
