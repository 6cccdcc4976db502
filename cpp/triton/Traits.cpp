//===- Traits.cpp - Triton op trait checks --------------------------------===//

#include "triton/Traits.h"

#include "triton/Dialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

/// The encoding of a ranked tensor; null for anything else.
static Attribute getEncoding(Type type) {
  if (auto tensorTy = dyn_cast<RankedTensorType>(type))
    return tensorTy.getEncoding();
  return {};
}

/// Two values agree on encoding unless both carry one and they differ: a
/// scalar or an unencoded tensor is compatible with any layout.
static bool encodingsAgree(Type a, Type b) {
  Attribute encA = getEncoding(a);
  Attribute encB = getEncoding(b);
  return !encA || !encB || encA == encB;
}

static LogicalResult verifyTensorSizeOf(Operation *op, Type type) {
  auto tensorTy = dyn_cast<RankedTensorType>(type);
  if (!tensorTy)
    return success();
  if (!tensorTy.hasStaticShape())
    return op->emitOpError("tensors must have a static shape, got ")
           << tensorTy;
  int64_t numElements = tensorTy.getNumElements();
  if (numElements > OpTrait::impl::kMaxTensorNumElements)
    return op->emitOpError("tensor ")
           << tensorTy << " has " << numElements << " elements; at most "
           << OpTrait::impl::kMaxTensorNumElements << " are allowed";
  if (!llvm::isPowerOf2_64(numElements))
    return op->emitOpError("tensor ")
           << tensorTy << " has " << numElements
           << " elements; the number of elements must be a power of two";
  return success();
}

LogicalResult OpTrait::impl::verifyTensorSize(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (failed(verifyTensorSizeOf(op, type)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(verifyTensorSizeOf(op, type)))
      return failure();
  return success();
}

static LogicalResult verifyLayoutOf(Operation *op, Value value, StringRef what,
                                    unsigned index) {
  auto tensorTy = dyn_cast<RankedTensorType>(value.getType());
  if (!tensorTy || !tensorTy.getEncoding())
    return success();
  Attribute layout = tensorTy.getEncoding();
  auto *verifier =
      dyn_cast<triton::TensorLayoutVerifierInterface>(&layout.getDialect());
  if (!verifier)
    return success();
  return verifier->verifyTensorLayout(layout, tensorTy, op, [&] {
    return op->emitOpError() << what << " #" << index << " has an invalid "
                             << "layout " << layout << ": ";
  });
}

LogicalResult OpTrait::impl::verifyTensorLayouts(Operation *op) {
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (failed(verifyLayoutOf(op, operand, "operand", i)))
      return failure();
  for (auto [i, result] : llvm::enumerate(op->getResults()))
    if (failed(verifyLayoutOf(op, result, "result", i)))
      return failure();
  return success();
}

LogicalResult OpTrait::impl::verifySameOperandsEncoding(Operation *op) {
  if (op->getNumOperands() == 0)
    return success();
  Type first = op->getOperand(0).getType();
  for (Type type : llvm::drop_begin(op->getOperandTypes()))
    if (!encodingsAgree(first, type))
      return op->emitOpError("requires the same encoding for all operands");
  return success();
}

LogicalResult
OpTrait::impl::verifySameOperandsAndResultEncoding(Operation *op) {
  if (op->getNumOperands() == 0)
    return success();
  if (failed(verifySameOperandsEncoding(op)))
    return failure();
  Type first = op->getOperand(0).getType();
  for (Type type : op->getResultTypes())
    if (!encodingsAgree(first, type))
      return op->emitOpError(
          "requires the same encoding for all operands and results");
  return success();
}

LogicalResult OpTrait::impl::verifySameResultsType(Operation *op) {
  if (op->getNumResults() == 0)
    return success();
  Type first = op->getResult(0).getType();
  for (Type type : llvm::drop_begin(op->getResultTypes()))
    if (type != first)
      return op->emitOpError("requires the same type for all results");
  return success();
}

/// Shape a load/store operand stands for: a tensor's shape, [] for a scalar.
static ArrayRef<int64_t> getLoadStoreShape(Type type) {
  if (auto tensorTy = dyn_cast<RankedTensorType>(type))
    return tensorTy.getShape();
  return {};
}

LogicalResult OpTrait::impl::verifySameLoadStoreOperandsShape(Operation *op) {
  if (op->getNumOperands() == 0)
    return success();
  ArrayRef<int64_t> shape = getLoadStoreShape(op->getOperand(0).getType());
  for (Type type : llvm::drop_begin(op->getOperandTypes()))
    if (getLoadStoreShape(type) != shape)
      return op->emitOpError("requires the same shape for all operands");
  return success();
}

LogicalResult
OpTrait::impl::verifySameLoadStoreOperandsAndResultShape(Operation *op) {
  if (failed(verifySameLoadStoreOperandsShape(op)))
    return failure();
  if (op->getNumOperands() == 0)
    return success();
  ArrayRef<int64_t> shape = getLoadStoreShape(op->getOperand(0).getType());
  for (Type type : op->getResultTypes())
    if (getLoadStoreShape(type) != shape)
      return op->emitOpError(
          "requires the same shape for all operands and results");
  return success();
}

LogicalResult
OpTrait::impl::verifySameLoadStoreOperandsEncoding(Operation *op) {
  return verifySameOperandsEncoding(op);
}

LogicalResult
OpTrait::impl::verifySameLoadStoreOperandsAndResultEncoding(Operation *op) {
  return verifySameOperandsAndResultEncoding(op);
}

// Structurally equal but differently spelled layouts could only be recognized
// by the dialect that defines them; no such dialect exists on this backend, so
// equivalent tensor types are identical ones.
LogicalResult OpTrait::impl::verifyEquivalentTensorType(Type a, Type b) {
  return success(a == b);
}
