//===- MemoryOps.cpp - Loads, stores, atomics and tensor descriptors ------===//

#include "triton/Dialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::triton;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

namespace {
enum class CacheAccess { Load, Store };
} // namespace

/// The cache hints triton's frontend can attach: loads take .ca/.cg/.cs/.cv,
/// stores .wb/.cg/.cs/.wt; either may carry an eviction policy.
static LogicalResult verifyCachePolicy(Operation *op, Attribute policy,
                                       CacheAccess access) {
  if (!policy)
    return success();
  auto cachePolicy = dyn_cast<CachePolicyAttr>(policy);
  if (!cachePolicy)
    return op->emitOpError("cachePolicy must be a #tt.cache_policy, got ")
           << policy;
  CacheModifier modifier = cachePolicy.getCacheModifier();
  bool allowed = false;
  switch (modifier) {
  case CacheModifier::NONE:
  case CacheModifier::CG:
  case CacheModifier::CS:
    allowed = true;
    break;
  case CacheModifier::CA:
  case CacheModifier::CV:
    allowed = access == CacheAccess::Load;
    break;
  case CacheModifier::WB:
  case CacheModifier::WT:
    allowed = access == CacheAccess::Store;
    break;
  }
  if (!allowed)
    return op->emitOpError("cache modifier '")
           << stringifyCacheModifier(modifier) << "' is not valid for a "
           << (access == CacheAccess::Load ? "load" : "store");
  return success();
}

/// A mask that is a constant true (or all-true splat) makes the access
/// unconditional; a constant false one disables it entirely.
static bool isConstantMask(Value mask, bool value) {
  return mask &&
         (value ? matchPattern(mask, m_One()) : matchPattern(mask, m_Zero()));
}

//===----------------------------------------------------------------------===//
// PredicatedOpInterface: the mask is the predicate.
//===----------------------------------------------------------------------===//

template <typename OpTy> static void setMaskOperand(OpTy op, Value pred) {
  if (pred)
    op.getMaskMutable().assign(pred);
  else
    op.getMaskMutable().clear();
}

Value LoadOp::getPredicateOperand() { return getMask(); }
void LoadOp::setPredicateOperand(Value pred) { setMaskOperand(*this, pred); }
Type LoadOp::getPredicateOperandTypeLike() { return getPtr().getType(); }

Value StoreOp::getPredicateOperand() { return getMask(); }
void StoreOp::setPredicateOperand(Value pred) { setMaskOperand(*this, pred); }
Type StoreOp::getPredicateOperandTypeLike() { return getPtr().getType(); }

Value AtomicLoadOp::getPredicateOperand() { return getMask(); }
void AtomicLoadOp::setPredicateOperand(Value pred) {
  setMaskOperand(*this, pred);
}
Type AtomicLoadOp::getPredicateOperandTypeLike() { return getPtr().getType(); }

Value AtomicStoreOp::getPredicateOperand() { return getMask(); }
void AtomicStoreOp::setPredicateOperand(Value pred) {
  setMaskOperand(*this, pred);
}
Type AtomicStoreOp::getPredicateOperandTypeLike() { return getPtr().getType(); }

Value AtomicRMWOp::getPredicateOperand() { return getMask(); }
void AtomicRMWOp::setPredicateOperand(Value pred) {
  setMaskOperand(*this, pred);
}
Type AtomicRMWOp::getPredicateOperandTypeLike() { return getPtr().getType(); }

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   bool isVolatile) {
  build(builder, state, ptr, /*mask=*/Value(), /*other=*/Value(), isVolatile);
}

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   Value mask, bool isVolatile) {
  build(builder, state, ptr, mask, /*other=*/Value(), isVolatile);
}

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   Value mask, Value other, bool isVolatile) {
  build(builder, state, getPointeeType(ptr.getType()), ptr, mask, other,
        /*cachePolicy=*/Attribute(), isVolatile);
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       GlobalMemory::get());
  // A volatile load must be neither merged with another load nor dropped.
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError("an 'other' value needs a mask");
  return verifyCachePolicy(*this, getCachePolicyAttr(), CacheAccess::Load);
}

/// load(p, true[, other]) -> load(p); load(p, false, other) -> other.
static LogicalResult foldConstantLoadMask(LoadOp load,
                                          PatternRewriter &rewriter) {
  Value mask = load.getMask();
  if (isConstantMask(mask, true)) {
    rewriter.modifyOpInPlace(load, [&] {
      load.getMaskMutable().clear();
      load.getOtherMutable().clear();
    });
    return success();
  }
  // Without `other` the masked-off result is undefined: keep the load.
  if (isConstantMask(mask, false) && load.getOther()) {
    rewriter.replaceOp(load, load.getOther());
    return success();
  }
  return failure();
}

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add(foldConstantLoadMask);
}

//===----------------------------------------------------------------------===//
// StoreOp
//===----------------------------------------------------------------------===//

void StoreOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                    Value value) {
  build(builder, state, ptr, value, /*mask=*/Value(), /*ignore_cta=*/false);
}

void StoreOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                    Value value, Value mask, bool ignore_cta) {
  build(builder, state, ptr, value, mask, /*cachePolicy=*/Attribute(),
        ignore_cta);
}

LogicalResult StoreOp::verify() {
  return verifyCachePolicy(*this, getCachePolicyAttr(), CacheAccess::Store);
}

/// A store or atomic store with a constant mask: drop the mask if it is
/// all-true, drop the op if it is all-false.
template <typename StoreLikeOp>
static LogicalResult foldConstantStoreMask(StoreLikeOp store,
                                           PatternRewriter &rewriter) {
  Value mask = store.getMask();
  if (isConstantMask(mask, true)) {
    rewriter.modifyOpInPlace(store, [&] { store.getMaskMutable().clear(); });
    return success();
  }
  if (isConstantMask(mask, false)) {
    rewriter.eraseOp(store);
    return success();
  }
  return failure();
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add(foldConstantStoreMask<StoreOp>);
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

LogicalResult AtomicLoadOp::verify() {
  MemSemantic sem = getSem();
  if (sem != MemSemantic::RELAXED && sem != MemSemantic::ACQUIRE)
    return emitOpError("an atomic load is relaxed or acquire, not ")
           << stringifyMemSemantic(sem);
  return success();
}

LogicalResult AtomicStoreOp::verify() {
  MemSemantic sem = getSem();
  if (sem != MemSemantic::RELAXED && sem != MemSemantic::RELEASE)
    return emitOpError("an atomic store is relaxed or release, not ")
           << stringifyMemSemantic(sem);
  return success();
}

LogicalResult AtomicStoreOp::canonicalize(AtomicStoreOp op,
                                          PatternRewriter &rewriter) {
  return foldConstantStoreMask(op, rewriter);
}

LogicalResult AtomicPollOp::verify() {
  MemSemantic sem = getSem();
  if (sem != MemSemantic::RELAXED && sem != MemSemantic::ACQUIRE)
    return emitOpError("an atomic poll is relaxed or acquire, not ")
           << stringifyMemSemantic(sem);
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

void MakeTensorDescOp::build(OpBuilder &builder, OperationState &state,
                             Value base, ValueRange shape, ValueRange strides,
                             ArrayRef<int32_t> blockShape, bool isSignedInteger,
                             PaddingOption padding) {
  auto ptrTy = cast<PointerType>(base.getType());
  SmallVector<int64_t> block(blockShape.begin(), blockShape.end());
  auto descTy =
      TensorDescType::get(block, ptrTy.getPointeeType(), isSignedInteger);
  build(builder, state, descTy, base, shape, strides, padding);
}

/// A descriptor access moves one block: as many indices as the block has
/// dimensions, and a tensor with the block's elements (it may drop unit
/// dimensions, so only the element count is compared).
static LogicalResult verifyDescriptorAccess(Operation *op,
                                            TensorDescType descTy,
                                            RankedTensorType tensorTy,
                                            size_t numIndices) {
  RankedTensorType block = descTy.getSignlessBlockType();
  if (numIndices != static_cast<size_t>(block.getRank()))
    return op->emitOpError("expects ")
           << block.getRank() << " indices for descriptor " << descTy
           << ", got " << numIndices;
  if (block.getElementType() != tensorTy.getElementType())
    return op->emitOpError("tensor element type ")
           << tensorTy.getElementType()
           << " does not match the descriptor element type "
           << block.getElementType();
  if (block.getNumElements() != tensorTy.getNumElements())
    return op->emitOpError("tensor ")
           << tensorTy << " does not hold the " << block.getNumElements()
           << " elements of a descriptor block";
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  if (failed(verifyDescriptorAccess(*this, getDesc().getType(), getType(),
                                    getIndices().size())))
    return failure();
  return verifyCachePolicy(*this, getCachePolicyAttr(), CacheAccess::Load);
}

LogicalResult DescriptorStoreOp::verify() {
  return verifyDescriptorAccess(*this, getDesc().getType(), getSrc().getType(),
                                getIndices().size());
}

LogicalResult DescriptorReduceOp::verify() {
  if (failed(verifyDescriptorAccess(*this, getDesc().getType(),
                                    getSrc().getType(), getIndices().size())))
    return failure();
  DescriptorReduceKind kind = getKind();
  bool integerOnly = kind != DescriptorReduceKind::ADD &&
                     kind != DescriptorReduceKind::MIN &&
                     kind != DescriptorReduceKind::MAX;
  if (integerOnly && !getSrc().getType().getElementType().isInteger())
    return emitOpError("reduction '")
           << stringifyDescriptorReduceKind(kind) << "' needs integer elements";
  return success();
}

/// Gather/scatter move whole rows: the descriptor block is one row of C
/// columns, the offsets are a 1-D tensor of N row indices and the data is
/// N x C.
static LogicalResult verifyRowGatherScatter(Operation *op,
                                            TensorDescType descTy,
                                            RankedTensorType dataTy,
                                            RankedTensorType offsetsTy) {
  RankedTensorType block = descTy.getSignlessBlockType();
  if (block.getRank() != 2 || block.getDimSize(0) != 1)
    return op->emitOpError("descriptor block must be 1 x C, got ")
           << block.getShape();
  if (offsetsTy.getRank() != 1)
    return op->emitOpError("row offsets must be a 1-D tensor, got ")
           << offsetsTy;
  if (dataTy.getRank() != 2)
    return op->emitOpError("data must be a 2-D tensor, got ") << dataTy;
  if (dataTy.getDimSize(0) != offsetsTy.getDimSize(0))
    return op->emitOpError("data has ")
           << dataTy.getDimSize(0) << " rows but there are "
           << offsetsTy.getDimSize(0) << " row offsets";
  if (dataTy.getDimSize(1) != block.getDimSize(1))
    return op->emitOpError("data has ")
           << dataTy.getDimSize(1) << " columns but the descriptor block has "
           << block.getDimSize(1);
  if (dataTy.getElementType() != block.getElementType())
    return op->emitOpError("data element type ")
           << dataTy.getElementType()
           << " does not match the descriptor element type "
           << block.getElementType();
  return success();
}

LogicalResult DescriptorGatherOp::verify() {
  return verifyRowGatherScatter(*this, getDesc().getType(), getType(),
                                getXOffsets().getType());
}

LogicalResult DescriptorScatterOp::verify() {
  return verifyRowGatherScatter(*this, getDesc().getType(), getSrc().getType(),
                                getXOffsets().getType());
}
