//===- TensorBuilders.h - small helpers the tensor lowerings share -*- C++ -*-===//

#ifndef SPINE_TRITON_PASSES_TENSORBUILDERS_H
#define SPINE_TRITON_PASSES_TENSORBUILDERS_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {

/// An uninitialised tensor of `type`, the destination of a linalg op.
inline Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

/// `type` after conversion, if it is a ranked tensor.
inline RankedTensorType convertTensorType(const TypeConverter &converter,
                                          Type type) {
  return dyn_cast_or_null<RankedTensorType>(converter.convertType(type));
}

/// One group holding every dimension of a rank-`rank` tensor.
inline SmallVector<ReassociationIndices> allDims(int64_t rank) {
  ReassociationIndices group;
  for (int64_t d = 0; d < rank; ++d)
    group.push_back(d);
  return {group};
}

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_TENSORBUILDERS_H
