//===- TritonToLinalgPatterns.h - pattern sets of the lowering --*- C++ -*-===//
//
// The TTIR -> Linalg conversion is split by op family, one file each.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_TRITONTOLINALGPATTERNS_H
#define SPINE_TRITON_PASSES_TRITONTOLINALGPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
class TypeConverter;
namespace spine {

/// tt.func / tt.return / tt.call -> func dialect.
void populateFunctionOpsToFuncPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns);

/// make_range, splat, broadcast, expand_dims, reshape, trans, reduce, dot,
/// fp_to_fp, clampf, precise math, mulhiui -> linalg / tensor / arith / math.
void populateTensorOpsToLinalgPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns);

/// addptr, load, store, pointer casts -> address arithmetic and guarded
/// per-element accesses.
void populateMemoryOpsToLinalgPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns);

} // namespace spine
} // namespace mlir

#endif // SPINE_TRITON_PASSES_TRITONTOLINALGPATTERNS_H
