//===- TritonToLinalgPatterns.h - pattern sets of the lowering --*- C++ -*-===//
//
// The TTIR -> Linalg conversion is split by op family, one file each.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_TRITONTOLINALGPATTERNS_H
#define SPINE_TRITON_PASSES_TRITONTOLINALGPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
class DialectRegistry;
class TypeConverter;
namespace spine {

/// tt.func / tt.return / tt.call -> func dialect.
void populateFunctionOpsToFuncPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns);

/// make_range, splat, broadcast, expand_dims, reshape, trans, reduce, dot,
/// fp_to_fp, clampf, precise math, mulhiui -> linalg / tensor / arith / math.
void populateTensorOpsToLinalgPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns);

/// join, split, cat, gather, histogram, unsplat -> linalg / tensor / scf.
void populateDataMovementOpsToLinalgPatterns(TypeConverter &converter,
                                             RewritePatternSet &patterns);

/// extern_elementwise (libdevice) -> math / arith, map_elementwise -> its
/// region per element; elementwise_inline_asm is reported as unsupported.
void populateElementwiseExtrasToLinalgPatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns);

/// addptr, load, store, pointer casts -> address arithmetic and guarded
/// per-element accesses.
void populateMemoryOpsToLinalgPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns);

/// make_tensor_descriptor and descriptor load/store/reduce/gather/scatter ->
/// guarded per-element accesses; registers on `converter` the 1:N conversion
/// of !tt.tensordesc to its scalars (docs/kernel-abi.md).
void populateDescriptorOpsPatterns(TypeConverter &converter,
                                   RewritePatternSet &patterns);

/// atomic_rmw, atomic_cas, atomic_load, atomic_store -> LLVM atomics per
/// element, in program order; atomic_poll -> a spin loop of atomic loads per
/// element.
void populateAtomicOpsToLinalgPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns);

/// Declares the memory effects of llvm.atomicrmw and llvm.cmpxchg, which
/// bufferization's deallocation needs in every context that sees them.
void registerAtomicMemoryEffects(DialectRegistry &registry);

/// scan -> a loop along the scan axis running the combine region per element.
void populateScanOpsToLinalgPatterns(TypeConverter &converter,
                                     RewritePatternSet &patterns);

/// print -> printf per element, assert -> a recorded failure (see
/// docs/kernel-abi.md, "Debug ops").
void populateDebugOpsPatterns(TypeConverter &converter,
                              RewritePatternSet &patterns);

} // namespace spine
} // namespace mlir

#endif // SPINE_TRITON_PASSES_TRITONTOLINALGPATTERNS_H
