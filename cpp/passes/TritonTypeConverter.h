//===- TritonTypeConverter.h - Triton types to builtin types ----*- C++ -*-===//
//
// Pointers are byte addresses held in i64 (docs/kernel-abi.md); tensors of
// pointers become tensors of i64. Every other type is kept.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_TRITONTYPECONVERTER_H
#define SPINE_TRITON_PASSES_TRITONTYPECONVERTER_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {

class TritonTypeConverter : public TypeConverter {
public:
  explicit TritonTypeConverter(MLIRContext *ctx);
};

/// Size in bytes of a value of `type` in memory. Pointers are 8 bytes; i1 is
/// stored as a byte, as triton does.
int64_t getStorageSizeInBytes(Type type);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_TRITONTYPECONVERTER_H
