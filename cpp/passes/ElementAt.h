//===- ElementAt.h - one element of a Triton tensor, recomputed -*- C++ -*-===//
//
// Loads, stores and atomics touch one element at a time. Instead of reading
// the address, mask and value tensors from materialized buffers, the element
// at the current indices is recomputed from the ops that build it (ranges,
// splats, broadcasts, pointer and integer arithmetic, comparisons). That
// fuses the index arithmetic into the access loop: no pointer tensor is ever
// stored, and LLVM sees an address that is affine in the loop counters.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_ELEMENTAT_H
#define SPINE_TRITON_PASSES_ELEMENTAT_H

#include "passes/AccessVersions.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SmallVector.h"

#include <map>

namespace mlir::spine {

class ElementAt {
public:
  /// `rewriter` maps original values to converted ones; new ops go to `b`.
  /// `anchor` is the original op whose lowering asks for elements: a load
  /// may be re-executed there only if nothing between them writes memory.
  /// Under `version`, its substitutes are computed as the tensors they map
  /// to (see AccessVersions.h).
  ElementAt(ConversionPatternRewriter &rewriter, OpBuilder &b, Location loc,
            Operation *anchor, const AccessVersion *version = nullptr)
      : rewriter(rewriter), b(b), loc(loc), anchor(anchor), version(version) {}

  /// The element of `tensor` (an original, unconverted value of ranked tensor
  /// type) at `indices`, as a scalar of the converted element type.
  /// Pointers come back as i64 byte addresses.
  Value get(Value tensor, ValueRange indices);

  /// The element of `mask` (null when there is none) at `indices`, or null
  /// when the access needs no mask: none given, or all on in this version.
  Value getMask(Value mask, ValueRange indices);

private:
  Value recompute(Operation *def, Value tensor, ValueRange indices);
  Value reload(Operation *load, ValueRange indices);
  /// `load` read whole into a tensor just before the loop nest whose
  /// outermost induction variable is `outermostIndex`.
  Value readBefore(Operation *load, Value outermostIndex);
  Value extract(Value tensor, ValueRange indices);

  ConversionPatternRewriter &rewriter;
  OpBuilder &b;
  Location loc;
  Operation *anchor;
  const AccessVersion *version;
  /// Keyed by value and indices: the same element is built once per body.
  std::map<std::pair<void *, SmallVector<void *>>, Value> cache;
};

/// The element of the tensor a tt.load (`load`, an original op) reads, at
/// `indices`: loaded under its mask (unless `version`, if given, has it all
/// on), else its `other`.
Value loadElementOf(ConversionPatternRewriter &rewriter, OpBuilder &b,
                    Location loc, Operation *load, ValueRange indices,
                    const AccessVersion *version = nullptr);

/// A loop nest over every index of `shape`; `body` builds the innermost
/// loop's body.
void buildLoopsOver(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                    function_ref<void(OpBuilder &, Location, ValueRange)> body);

/// Builds a tensor of `type` element by element with a loop nest (the
/// elements are computed by `element` at the loop indices). Unlike
/// tensor.generate, canonicalization never re-executes the body at a use,
/// which would move memory reads past later writes.
Value buildTensorByLoops(
    OpBuilder &b, Location loc, RankedTensorType type,
    function_ref<Value(OpBuilder &, Location, ValueRange)> element);

/// The same, inserting the elements into `init` (a tensor of that type).
Value buildTensorByLoops(
    OpBuilder &b, Location loc, Value init,
    function_ref<Value(OpBuilder &, Location, ValueRange)> element);

/// True if `op` (or an op it holds) may write memory.
bool mayWrite(Operation *op);

/// Whether `value` (an original tensor) is needed by `access` alone: each of
/// its users is `access` or elementwise arithmetic, a math function, a
/// broadcast or an expand_dims whose results are needed by `access` alone.
/// Computed element by element in the access's loop (ElementAt builds each
/// element once per loop body), such a value is then computed nowhere else:
/// `x * sigmoid(1.702 * x)` reads x in the store's loop, once.
bool feedsOnly(Value value, Operation *access);

/// True if no op strictly between `from` and `to` (same block) may write
/// memory.
bool noWritesBetween(Operation *from, Operation *to);

/// Loads one element of `type` at byte address `addr` (booleans are bytes in
/// memory), under `mask` if given, else `other` (or zero when null).
Value loadElementAt(OpBuilder &b, Location loc, Value addr, Type type,
                    bool isVolatile, Value mask, Value other, Region *scope);

/// A pointer to the byte at `addr`. When `addr` is a sum whose first term is
/// computed outside `scope`, the result is a GEP from that base by the other
/// terms, so LLVM sees an access affine in the loops inside `scope`.
Value createAddressPointer(OpBuilder &b, Location loc, Value addr,
                           Region *scope);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_ELEMENTAT_H
