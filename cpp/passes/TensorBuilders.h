//===- TensorBuilders.h - small helpers the tensor lowerings share -*- C++
//-*-===//

#ifndef SPINE_TRITON_PASSES_TENSORBUILDERS_H
#define SPINE_TRITON_PASSES_TENSORBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
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

/// `type` (a scalar, a ranked tensor or a vector type) with its element type
/// replaced by `element` (a scalar type stays a scalar).
inline Type withElementType(Type type, Type element) {
  if (isa<RankedTensorType, VectorType>(type))
    return cast<ShapedType>(type).clone(element);
  return element;
}

/// A scalar, or a splat tensor or vector shaped like `type`, holding `attr`.
inline Value createConstantLike(OpBuilder &b, Location loc, Type type,
                                TypedAttr attr) {
  if (isa<RankedTensorType, VectorType>(type))
    attr = SplatElementsAttr::get(cast<ShapedType>(type).clone(attr.getType()),
                                  attr);
  return arith::ConstantOp::create(b, loc, attr);
}

/// `value` as a float constant of `type`'s element type, shaped like `type`.
inline Value createFloatLike(OpBuilder &b, Location loc, Type type,
                             double value) {
  return createConstantLike(b, loc, type,
                            b.getFloatAttr(getElementTypeOrSelf(type), value));
}

/// `value` as an integer constant of `type`'s element type, shaped like
/// `type`.
inline Value createIntLike(OpBuilder &b, Location loc, Type type,
                           int64_t value) {
  return createConstantLike(
      b, loc, type, b.getIntegerAttr(getElementTypeOrSelf(type), value));
}

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_TENSORBUILDERS_H
