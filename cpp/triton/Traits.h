//===- Traits.h - Triton op traits ------------------------------*- C++ -*-===//
//
// The native op traits that TritonInterfaces.td declares. The generated op
// classes name them as mlir::OpTrait::<Name>; their checks live out of line in
// Traits.cpp so they are compiled once.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_TRAITS_H
#define SPINE_TRITON_TRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::OpTrait {
namespace impl {

/// Triton's limit on the number of elements of one tensor value.
constexpr int64_t kMaxTensorNumElements = 1 << 20;

LogicalResult verifyTensorSize(Operation *op);
LogicalResult verifyTensorLayouts(Operation *op);
LogicalResult verifySameOperandsEncoding(Operation *op);
LogicalResult verifySameOperandsAndResultEncoding(Operation *op);
LogicalResult verifySameResultsType(Operation *op);
LogicalResult verifySameLoadStoreOperandsShape(Operation *op);
LogicalResult verifySameLoadStoreOperandsAndResultShape(Operation *op);
LogicalResult verifySameLoadStoreOperandsEncoding(Operation *op);
LogicalResult verifySameLoadStoreOperandsAndResultEncoding(Operation *op);

/// Succeeds if `a` and `b` describe the same tensor, layout included
/// (InferTensorTypeOpWithLayoutEquivalence compares inferred types with it).
LogicalResult verifyEquivalentTensorType(Type a, Type b);

} // namespace impl

/// Every tensor operand and result has a power-of-two number of elements, at
/// most kMaxTensorNumElements.
template <typename ConcreteType>
class TensorSizeTrait : public TraitBase<ConcreteType, TensorSizeTrait> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifyTensorSize(op);
  }
};

/// Tensor encodings are accepted by the dialect that owns them (see
/// TensorLayoutVerifierInterface).
template <typename ConcreteType>
class VerifyTensorLayoutsTrait
    : public TraitBase<ConcreteType, VerifyTensorLayoutsTrait> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifyTensorLayouts(op);
  }
};

/// All operands that carry an encoding carry the same one.
template <typename ConcreteType>
class SameOperandsEncoding
    : public TraitBase<ConcreteType, SameOperandsEncoding> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifySameOperandsEncoding(op);
  }
};

/// Like SameOperandsEncoding, extended to the results.
template <typename ConcreteType>
class SameOperandsAndResultEncoding
    : public TraitBase<ConcreteType, SameOperandsAndResultEncoding> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifySameOperandsAndResultEncoding(op);
  }
};

/// All results have the same type.
template <typename ConcreteType>
class SameResultsType : public TraitBase<ConcreteType, SameResultsType> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifySameResultsType(op);
  }
};

/// Pointer, value and mask operands of a load/store have the same shape
/// (a scalar counts as shape []).
template <typename ConcreteType>
class SameLoadStoreOperandsShape
    : public TraitBase<ConcreteType, SameLoadStoreOperandsShape> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifySameLoadStoreOperandsShape(op);
  }
};

template <typename ConcreteType>
class SameLoadStoreOperandsAndResultShape
    : public TraitBase<ConcreteType, SameLoadStoreOperandsAndResultShape> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifySameLoadStoreOperandsAndResultShape(op);
  }
};

template <typename ConcreteType>
class SameLoadStoreOperandsEncoding
    : public TraitBase<ConcreteType, SameLoadStoreOperandsEncoding> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifySameLoadStoreOperandsEncoding(op);
  }
};

template <typename ConcreteType>
class SameLoadStoreOperandsAndResultEncoding
    : public TraitBase<ConcreteType, SameLoadStoreOperandsAndResultEncoding> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifySameLoadStoreOperandsAndResultEncoding(op);
  }
};

/// Marks ops whose regions may run concurrently with each other. It carries
/// no invariant of its own; passes query it with hasTrait<AsyncRegions>().
template <typename ConcreteType>
class AsyncRegions : public TraitBase<ConcreteType, AsyncRegions> {};

} // namespace mlir::OpTrait

#endif // SPINE_TRITON_TRAITS_H
