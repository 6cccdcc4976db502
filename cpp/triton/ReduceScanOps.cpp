//===- ReduceScanOps.cpp - tt.reduce and tt.scan --------------------------===//
//
// Both ops combine N tensors of one shape along `axis` with a region that
// takes 2N scalars (the N running values, then the N new ones) and returns N.
//
//===----------------------------------------------------------------------===//

#include "triton/Dialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::triton;

static SmallVector<RankedTensorType> tensorTypesOf(ValueRange values) {
  SmallVector<RankedTensorType> types;
  for (Value value : values)
    types.push_back(cast<RankedTensorType>(value.getType()));
  return types;
}

static SmallVector<Type> elementTypesOf(ValueRange values) {
  SmallVector<Type> types;
  for (Value value : values)
    types.push_back(getElementTypeOrSelf(value.getType()));
  return types;
}

/// Operand/result agreement shared by reduce and scan. Equal operand shapes
/// are checked by the ops' traits.
template <typename OpTy> static LogicalResult verifyCombineOp(OpTy op) {
  if (op.getSrcs().empty())
    return op.emitOpError("needs at least one operand");
  if (op->getNumResults() != op.getSrcs().size())
    return op.emitOpError("has ") << op.getSrcs().size() << " operands but "
                                  << op->getNumResults() << " results";
  int64_t rank = cast<RankedTensorType>(op.getSrcs()[0].getType()).getRank();
  if (op.getAxis() >= rank)
    return op.emitOpError("axis ")
           << op.getAxis() << " is out of range for rank " << rank;
  for (auto [i, src, result] : llvm::enumerate(op.getSrcs(), op->getResults()))
    if (getElementTypeOrSelf(src.getType()) !=
        getElementTypeOrSelf(result.getType()))
      return op.emitOpError("result #")
             << i << " must have the element type of operand #" << i;
  return success();
}

/// The combine region: 2N scalar arguments, terminated by `ReturnOpTy`
/// returning N scalars of the operands' element types.
template <typename ReturnOpTy, typename OpTy>
static LogicalResult verifyCombineRegion(OpTy op) {
  SmallVector<Type> elementTypes = elementTypesOf(op.getSrcs());
  if (op.getCombineOp().empty())
    return op.emitOpError("needs a combine region");
  Block &body = op.getCombineOp().front();
  size_t numArgs = 2 * elementTypes.size();
  if (body.getNumArguments() != numArgs)
    return op.emitOpError("combine region must take ")
           << numArgs << " arguments, takes " << body.getNumArguments();
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    if (arg.getType() != elementTypes[i % elementTypes.size()])
      return op.emitOpError("combine region argument #")
             << i << " must be " << elementTypes[i % elementTypes.size()]
             << ", is " << arg.getType();
  auto terminator =
      body.empty() ? ReturnOpTy() : dyn_cast<ReturnOpTy>(body.back());
  if (!terminator)
    return op.emitOpError("combine region must end with ")
           << ReturnOpTy::getOperationName();
  if (TypeRange(terminator.getResult().getTypes()) != TypeRange(elementTypes))
    return op.emitOpError("combine region must return ")
           << elementTypes.size() << " values of the operand element types";
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  ReduceOp::Adaptor adaptor(operands, attributes, properties, regions);
  if (!adaptor.getAxisAttr())
    return emitOptionalError(location, "tt.reduce needs an axis");
  int64_t axis = adaptor.getAxisAttr().getInt();
  for (Value src : operands) {
    auto srcTy = cast<RankedTensorType>(src.getType());
    if (axis < 0 || axis >= srcTy.getRank())
      return emitOptionalError(location, "tt.reduce: axis ", axis,
                               " is out of range for ", srcTy);
    // Reducing the only dimension yields a scalar.
    if (srcTy.getRank() == 1) {
      inferredReturnTypes.push_back(srcTy.getElementType());
      continue;
    }
    if (srcTy.getEncoding())
      return emitOptionalError(location,
                               "tt.reduce: cannot infer the result layout for "
                               "an operand with encoding ",
                               srcTy.getEncoding());
    SmallVector<int64_t> shape(srcTy.getShape());
    shape.erase(shape.begin() + axis);
    inferredReturnTypes.push_back(srcTy.clone(shape));
  }
  return success();
}

LogicalResult ReduceOp::verify() { return verifyCombineOp(*this); }

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombineRegion<ReduceReturnOp>(*this);
}

SmallVector<RankedTensorType> ReduceOp::getInputTypes() {
  return tensorTypesOf(getSrcs());
}

SmallVector<Type> ReduceOp::getElementTypes() {
  return elementTypesOf(getSrcs());
}

Operation *ReduceOp::getSingleCombiner() {
  if (getSrcs().size() != 1)
    return nullptr;
  // The body must be exactly `%r = op(%acc, %x); tt.reduce.return %r`.
  Block &body = getCombineOp().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return nullptr;
  Operation &combiner = body.front();
  Operation *terminator = body.getTerminator();
  if (combiner.getNumResults() != 1 || combiner.getNumOperands() != 2 ||
      combiner.getOperand(0) != body.getArgument(0) ||
      combiner.getOperand(1) != body.getArgument(1) ||
      terminator->getOperand(0) != combiner.getResult(0))
    return nullptr;
  return &combiner;
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

void ScanOp::build(OpBuilder &builder, OperationState &state, ValueRange srcs,
                   int axis, bool reverse) {
  build(builder, state, srcs.getTypes(), srcs, static_cast<uint32_t>(axis),
        reverse);
}

LogicalResult
ScanOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                         ValueRange operands, DictionaryAttr attributes,
                         OpaqueProperties properties, RegionRange regions,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  // A scan keeps every operand's type.
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  return success();
}

LogicalResult ScanOp::verify() { return verifyCombineOp(*this); }

LogicalResult ScanOp::verifyRegions() {
  return verifyCombineRegion<ScanReturnOp>(*this);
}

SmallVector<RankedTensorType> ScanOp::getInputTypes() {
  return tensorTypesOf(getSrcs());
}

SmallVector<Type> ScanOp::getElementTypes() {
  return elementTypesOf(getSrcs());
}
