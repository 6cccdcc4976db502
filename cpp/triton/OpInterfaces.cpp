//===- OpInterfaces.cpp - Triton op interface verifiers -------------------===//

#include "triton/Dialect.h"

using namespace mlir;
using namespace mlir::triton;

#include "triton/OpInterfaces.cpp.inc"

LogicalResult triton::impl::verifyTransposeOpInterface(Operation *op) {
  auto transpose = cast<TransposeOpInterface>(op);
  auto srcTy = cast<ShapedType>(transpose.getSrc().getType());
  ArrayRef<int32_t> order = transpose.getOrder();
  if (static_cast<int64_t>(order.size()) != srcTy.getRank())
    return op->emitOpError("order has ")
           << order.size() << " entries but the operand has rank "
           << srcTy.getRank();
  SmallVector<bool> seen(order.size(), false);
  for (int32_t dim : order) {
    if (dim < 0 || dim >= static_cast<int32_t>(order.size()) || seen[dim])
      return op->emitOpError("order must be a permutation of [0, ")
             << order.size() << ")";
    seen[dim] = true;
  }
  return success();
}

LogicalResult triton::impl::verifyDotOpInterface(Operation *op) {
  auto dot = cast<DotOpInterface>(op);
  if (op->getNumOperands() < 3)
    return op->emitOpError("expects at least 3 operands (a, b, accumulator)");
  auto aShape = cast<ShapedType>(dot.getA().getType()).getShape();
  auto bShape = cast<ShapedType>(dot.getB().getType()).getShape();
  auto cShape = cast<ShapedType>(op->getOperand(2).getType()).getShape();
  size_t rank = aShape.size();
  if (rank != 2 && rank != 3)
    return op->emitOpError("operands must be 2-D or 3-D (batched)");
  if (bShape.size() != rank || cShape.size() != rank)
    return op->emitOpError("operands must all have the same rank");
  if (rank == 3 && (aShape[0] != cShape[0] || bShape[0] != cShape[0]))
    return op->emitOpError("batch dimensions of a (")
           << aShape[0] << "), b (" << bShape[0] << ") and the accumulator ("
           << cShape[0] << ") must match";
  // verifyDims/verifyOutputDims know about packed operands (dot_scaled).
  if (!dot.verifyDims())
    return op->emitOpError("K dimension of a (")
           << aShape[rank - 1] << ") does not match that of b ("
           << bShape[rank - 2] << ")";
  if (!dot.verifyOutputDims())
    return op->emitOpError("accumulator shape does not match the M dimension "
                           "of a and the N dimension of b");
  return success();
}
