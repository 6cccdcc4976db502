//===- AccessVersions.h - accesses specialized at run time -----*- C++ -*-===//
//
// GPU kernels keep their accesses in bounds with remainders and masks:
// `offs = (pid * BLOCK + tl.arange(0, BLOCK)) % M`, `mask = offs < n`. For
// most programs of a grid neither changes anything: every dividend already
// lies in [0, M), every lane of the mask is on. Read element by element, a
// remainder is an integer division (or a read of the materialized tensor)
// that hides which accesses are consecutive, and a mask is a test per lane.
//
// Whether they change nothing is decided once per access at run time, from
// bounds of the tensors involved (ranges, splats, sums, differences, products
// by constants), and the access is emitted twice: a version where such
// remainders are their dividends and an all-on mask is left out, taken when
// the bounds prove it, and the general one. No result depends on a fact the
// IR does not guarantee: the condition checks it.
//
// A store reads the loads fused into it (ElementAt) element by element while
// it writes: safe only if no element's write lands where a later element
// reads. A version says which loads it may fuse: those whose addresses are
// the store's own, one distinct address per element (then each element reads
// before it writes its address and no other element touches it), and in the
// specialized version also those whose address range the bounds prove
// disjoint from the store's.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_ACCESSVERSIONS_H
#define SPINE_TRITON_PASSES_ACCESSVERSIONS_H

#include "mlir/IR/Value.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::spine {

/// What the specialized version of an access may assume.
struct AccessVersion {
  /// Remainder results (original tensor values) and the dividends they equal.
  llvm::DenseMap<Value, Value> substitutes;
  /// Masks (original i1 tensors) with every lane on: the access's own, and
  /// those of loads fused into it.
  llvm::DenseSet<Value> allOnMasks;
  /// Loads (original ops) an access that writes memory may read where it
  /// needs their elements; the others are read from their own buffers.
  llvm::DenseSet<Operation *> fusableLoads;
  /// When the load's addresses are exactly those of a strided block (linear
  /// in the indices, consecutive along the last dimension, no offset
  /// wrapping) and its mask, if any, is all on: each dimension's stride in
  /// elements (nullopt: known only at run time, the difference of two
  /// addresses). It may then be read through a view (LoadViews.h). Empty
  /// otherwise.
  SmallVector<std::optional<int64_t>> viewStrides;
  /// When the load's addresses are exactly those of a transposed strided
  /// block (rank 2, consecutive along the first dimension, linear in the
  /// indices, no offset wrapping; a tile of a column-major matrix, a matrix
  /// read as its transpose) and its mask, if any, is all on: each
  /// dimension's stride in elements, the first 1 (nullopt: known only at run
  /// time). Its transpose, a block with consecutive rows, may be read
  /// through a view and transposed. Empty otherwise.
  SmallVector<std::optional<int64_t>> transposedStrides;

  bool isAllOn(Value mask) const { return mask && allOnMasks.contains(mask); }
};

/// Emits the lowering of `access` (an original load or store, whose operands
/// compute its elements). `build` emits it at the builder's insertion point
/// under `version` (never null) and returns its result (or null). When
/// run-time bounds can specialize a remainder, a mask or which loads are
/// fused, builds the specialized and the general version under an scf.if on
/// the condition; otherwise only the general one. `resultType` is the type of
/// what `build` returns, or null. With `askView`, a load's version also
/// tells whether it may be a view, in the specialized version only if the
/// addresses of every store of `storesInReach` (those between the load and
/// its last use) are disjoint from the load's; with `askTransposed`, whether
/// a rank-2 load's block is a transposed strided one.
Value emitAccessVersions(
    ConversionPatternRewriter &rewriter, Location loc, Operation *access,
    Type resultType,
    function_ref<Value(OpBuilder &, Location, const AccessVersion *)> build,
    bool askView = false, bool askTransposed = false,
    ArrayRef<Operation *> storesInReach = {});

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_ACCESSVERSIONS_H
