//===- Ops.cpp - Casts, pointer arithmetic, ranges, dots, elementwise -----===//

#include "triton/Dialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::triton;

//===----------------------------------------------------------------------===//
// IntToPtrOp / BitcastOp / FpToFpOp
//===----------------------------------------------------------------------===//

namespace {
/// int_to_ptr(ptr_to_int(p)) -> p, or a pointer bitcast of p when the
/// pointee types differ.
struct IntToPtrOfPtrToInt : public OpRewritePattern<IntToPtrOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IntToPtrOp op,
                                PatternRewriter &rewriter) const override {
    auto ptrToInt = op.getSrc().getDefiningOp<PtrToIntOp>();
    if (!ptrToInt)
      return failure();
    Value ptr = ptrToInt.getSrc();
    if (ptr.getType() == op.getType())
      rewriter.replaceOp(op, ptr);
    else
      rewriter.replaceOpWithNewOp<BitcastOp>(op, op.getType(), ptr);
    return success();
  }
};
} // namespace

void IntToPtrOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<IntToPtrOfPtrToInt>(context);
}

LogicalResult BitcastOp::verify() {
  Type srcTy = getElementTypeOrSelf(getSrc().getType());
  Type dstTy = getElementTypeOrSelf(getType());
  bool srcIsPtr = isa<PointerType>(srcTy);
  bool dstIsPtr = isa<PointerType>(dstTy);
  if (srcIsPtr != dstIsPtr)
    return emitOpError("cannot bitcast between a pointer and a non-pointer; "
                       "use tt.ptr_to_int / tt.int_to_ptr");
  if (srcIsPtr) {
    if (getAddressSpace(srcTy) != getAddressSpace(dstTy))
      return emitOpError("cannot bitcast pointers across address spaces");
    return success();
  }
  unsigned srcBits = srcTy.getIntOrFloatBitWidth();
  unsigned dstBits = dstTy.getIntOrFloatBitWidth();
  if (srcBits != dstBits)
    return emitOpError("cannot bitcast a ")
           << srcBits << "-bit type to a " << dstBits << "-bit type";
  return success();
}

OpFoldResult BitcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // bitcast(bitcast(x)) -> bitcast(x): the middle type does not matter.
  if (auto inner = getSrc().getDefiningOp<BitcastOp>()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

LogicalResult FpToFpOp::verify() {
  auto srcTy = cast<FloatType>(getElementTypeOrSelf(getSrc().getType()));
  auto dstTy = cast<FloatType>(getElementTypeOrSelf(getType()));
  if (dstTy.getWidth() < srcTy.getWidth() && !getRounding())
    return emitOpError("a downcast from ")
           << srcTy << " to " << dstTy << " needs a rounding mode";
  return success();
}

OpFoldResult FpToFpOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // Fold constants whose conversion is exact, so no saturation or rounding
  // convention of the target matters.
  auto dstTy = cast<FloatType>(getElementTypeOrSelf(getType()));
  auto convert = [&](APFloat value) -> std::optional<APFloat> {
    bool losesInfo = false;
    APFloat::opStatus status = value.convert(
        dstTy.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    if (status != APFloat::opOK || losesInfo)
      return std::nullopt;
    return value;
  };
  if (auto scalar = dyn_cast_if_present<FloatAttr>(adaptor.getSrc())) {
    if (std::optional<APFloat> value = convert(scalar.getValue()))
      return FloatAttr::get(dstTy, *value);
    return {};
  }
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc())) {
    if (std::optional<APFloat> value = convert(splat.getSplatValue<APFloat>()))
      return SplatElementsAttr::get(cast<ShapedType>(getType()), *value);
  }
  return {};
}

//===----------------------------------------------------------------------===//
// AddPtrOp
//===----------------------------------------------------------------------===//

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  // addptr(p, 0) -> p
  if (matchPattern(adaptor.getOffset(), m_Zero()))
    return getPtr();
  return {};
}

//===----------------------------------------------------------------------===//
// MakeRangeOp
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  // The attributes are i32 but hold signed values.
  int64_t start = getStartAttr().getInt();
  int64_t end = getEndAttr().getInt();
  if (end <= start)
    return emitOpError("end (")
           << end << ") must be greater than start (" << start << ")";
  auto type = getType();
  if (type.getRank() != 1)
    return emitOpError("result must be a 1-D tensor, got ") << type;
  if (!type.getElementType().isInteger(32))
    return emitOpError("result elements must be i32, got ")
           << type.getElementType();
  if (type.getDimSize(0) != end - start)
    return emitOpError("result has ")
           << type.getDimSize(0) << " elements but the range [" << start << ", "
           << end << ") has " << end - start;
  // The element count being a power of two is TensorSizeTrait's rule.
  return success();
}

OpFoldResult MakeRangeOp::fold(FoldAdaptor adaptor) {
  // A one-element range is the constant `start`.
  if (getType().getNumElements() != 1)
    return {};
  return SplatElementsAttr::get(getType(), adaptor.getStartAttr());
}

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

LogicalResult
DotOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                        ValueRange operands, DictionaryAttr attributes,
                        OpaqueProperties properties, RegionRange regions,
                        SmallVectorImpl<Type> &inferredReturnTypes) {
  // d = a * b + c has the accumulator's type.
  inferredReturnTypes.push_back(operands[2].getType());
  return success();
}

LogicalResult DotOp::verify() {
  Type aElem = getA().getType().getElementType();
  Type bElem = getB().getType().getElementType();
  Type cElem = getC().getType().getElementType();
  if (aElem.isInteger() != bElem.isInteger())
    return emitOpError("cannot multiply ")
           << aElem << " by " << bElem << ": both must be integers or floats";
  // Mixed fp8 formats are allowed, mixed widths are not.
  if (aElem.getIntOrFloatBitWidth() != bElem.getIntOrFloatBitWidth())
    return emitOpError("a (")
           << aElem << ") and b (" << bElem << ") must have the same width";
  if (aElem.isInteger() != cElem.isInteger())
    return emitOpError("accumulator type ")
           << cElem << " does not suit " << aElem << " operands";
  bool aEncoded = static_cast<bool>(getA().getType().getEncoding());
  bool bEncoded = static_cast<bool>(getB().getType().getEncoding());
  bool cEncoded = static_cast<bool>(getC().getType().getEncoding());
  if (aEncoded != bEncoded || aEncoded != cEncoded)
    return emitOpError("a, b and the accumulator must all have an encoding "
                       "or all have none");
  return success();
}

//===----------------------------------------------------------------------===//
// DotScaledOp
//===----------------------------------------------------------------------===//

/// fp4 (e2m1) values are packed two per i8 along K, or along M/N when the
/// operand is not K-packed.
static int64_t packFactor(ScaleDotElemType format) {
  return format == ScaleDotElemType::E2M1 ? 2 : 1;
}

/// The storage element type of each scaled-dot format.
static bool matchesScaledFormat(Type elem, ScaleDotElemType format) {
  switch (format) {
  case ScaleDotElemType::E4M3:
    return isa<Float8E4M3FNType>(elem);
  case ScaleDotElemType::E5M2:
    return isa<Float8E5M2Type>(elem);
  case ScaleDotElemType::BF16:
    return elem.isBF16();
  case ScaleDotElemType::FP16:
    return elem.isF16();
  case ScaleDotElemType::E2M3:
  case ScaleDotElemType::E3M2:
  case ScaleDotElemType::E2M1:
    return elem.isInteger(8);
  }
  return false;
}

bool DotScaledOp::verifyDims() {
  ArrayRef<int64_t> aShape = getA().getType().getShape();
  ArrayRef<int64_t> bShape = getB().getType().getShape();
  int64_t aK = aShape.back() * (getLhsKPack() ? packFactor(getAElemType()) : 1);
  int64_t bK = bShape[bShape.size() - 2] *
               (getRhsKPack() ? packFactor(getBElemType()) : 1);
  return aK == bK;
}

bool DotScaledOp::verifyOutputDims() {
  ArrayRef<int64_t> aShape = getA().getType().getShape();
  ArrayRef<int64_t> bShape = getB().getType().getShape();
  ArrayRef<int64_t> cShape = getC().getType().getShape();
  int64_t m = aShape[aShape.size() - 2] *
              (getLhsKPack() ? 1 : packFactor(getAElemType()));
  int64_t n = bShape.back() * (getRhsKPack() ? 1 : packFactor(getBElemType()));
  return cShape[cShape.size() - 2] == m && cShape.back() == n;
}

LogicalResult DotScaledOp::deduceScaleFactor(
    Value lhs, Value lhsScale, ScaleDotElemType lhsFormat, bool lhsKPack,
    Value rhs, Value rhsScale, ScaleDotElemType rhsFormat, bool rhsKPack,
    int32_t &scaleFactor, std::string &errMsg) {
  // Each scale covers a block of K elements; the block size is K divided by
  // the scale's last dimension. A one-element scale says nothing about it.
  auto blockSize = [&](Value operand, Value scale, ScaleDotElemType format,
                       bool kPack, bool isLhs) -> std::optional<int64_t> {
    if (!scale)
      return std::nullopt;
    auto scaleTy = cast<RankedTensorType>(scale.getType());
    if (scaleTy.getNumElements() == 1)
      return std::nullopt;
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(operand.getType()).getShape();
    int64_t k = isLhs ? shape.back() : shape[shape.size() - 2];
    if (kPack)
      k *= packFactor(format);
    return k / scaleTy.getShape().back();
  };
  std::optional<int64_t> lhsBlock =
      blockSize(lhs, lhsScale, lhsFormat, lhsKPack, /*isLhs=*/true);
  std::optional<int64_t> rhsBlock =
      blockSize(rhs, rhsScale, rhsFormat, rhsKPack, /*isLhs=*/false);
  for (std::optional<int64_t> block : {lhsBlock, rhsBlock}) {
    if (block && *block != 16 && *block != 32) {
      errMsg =
          "scale block size must be 16 or 32, got " + std::to_string(*block);
      return failure();
    }
  }
  if (lhsBlock && rhsBlock && *lhsBlock != *rhsBlock) {
    errMsg = "lhs and rhs scale block sizes differ (" +
             std::to_string(*lhsBlock) + " vs " + std::to_string(*rhsBlock) +
             ")";
    return failure();
  }
  // Microscaling formats default to blocks of 32.
  scaleFactor = lhsBlock ? *lhsBlock : rhsBlock.value_or(32);
  return success();
}

int32_t DotScaledOp::deduceScaleFactor() {
  int32_t scaleFactor = 0;
  std::string errMsg;
  LogicalResult result = deduceScaleFactor(
      getA(), getAScale(), getAElemType(), getLhsKPack(), getB(), getBScale(),
      getBElemType(), getRhsKPack(), scaleFactor, errMsg);
  assert(succeeded(result) && "the verifier accepted an invalid scale shape");
  (void)result;
  return scaleFactor;
}

LogicalResult DotScaledOp::verify() {
  if (!matchesScaledFormat(getA().getType().getElementType(), getAElemType()))
    return emitOpError("a's element type ")
           << getA().getType().getElementType() << " does not store format "
           << stringifyScaleDotElemType(getAElemType());
  if (!matchesScaledFormat(getB().getType().getElementType(), getBElemType()))
    return emitOpError("b's element type ")
           << getB().getType().getElementType() << " does not store format "
           << stringifyScaleDotElemType(getBElemType());

  int32_t scaleFactor = 0;
  std::string errMsg;
  if (failed(deduceScaleFactor(
          getA(), getAScale(), getAElemType(), getLhsKPack(), getB(),
          getBScale(), getBElemType(), getRhsKPack(), scaleFactor, errMsg)))
    return emitOpError(errMsg);

  ArrayRef<int64_t> aShape = getA().getType().getShape();
  ArrayRef<int64_t> cShape = getC().getType().getShape();
  int64_t k = aShape.back() * (getLhsKPack() ? packFactor(getAElemType()) : 1);
  int64_t m = cShape[cShape.size() - 2];
  int64_t n = cShape.back();
  auto checkScale = [&](Value scale, int64_t rows,
                        StringRef name) -> LogicalResult {
    if (!scale)
      return success();
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(scale.getType()).getShape();
    if (shape.size() < 2 || shape[shape.size() - 2] != rows ||
        shape.back() != k / scaleFactor)
      return emitOpError() << name << " must be " << rows << " x "
                           << k / scaleFactor << " (one scale per "
                           << scaleFactor << " elements of K)";
    return success();
  };
  if (failed(checkScale(getAScale(), m, "a_scale")) ||
      failed(checkScale(getBScale(), n, "b_scale")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ExternElementwiseOp / ElementwiseInlineAsmOp / MapElementwiseOp
//===----------------------------------------------------------------------===//

/// An impure external call or asm block may touch any memory.
static void addImpureEffects(
    bool isPure,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (isPure)
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addImpureEffects(getPure(), effects);
}

Speculation::Speculatability ExternElementwiseOp::getSpeculatability() {
  return getPure() ? Speculation::Speculatable : Speculation::NotSpeculatable;
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addImpureEffects(getPure(), effects);
}

Speculation::Speculatability ElementwiseInlineAsmOp::getSpeculatability() {
  return getPure() ? Speculation::Speculatable : Speculation::NotSpeculatable;
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  uint32_t packed = getPackedElement();
  if (packed == 0)
    return emitOpError("packed_element must be at least 1");
  // The asm block sees `packed` elements at a time of operands that all have
  // one shape, and produces results of that shape.
  std::optional<ArrayRef<int64_t>> shape;
  for (Type type :
       llvm::concat<const Type>(getOperandTypes(), getResultTypes())) {
    auto tensorTy = dyn_cast<RankedTensorType>(type);
    if (!tensorTy)
      continue;
    if (shape && tensorTy.getShape() != *shape)
      return emitOpError("all tensor operands and results must have the "
                         "same shape");
    shape = tensorTy.getShape();
    if (tensorTy.getNumElements() % packed != 0)
      return emitOpError("tensor ")
             << tensorTy << " does not split into groups of " << packed
             << " elements";
  }
  return success();
}

/// Element types of a list of tensors, each repeated `times` times:
/// [t0 x times, t1 x times, ...].
static SmallVector<Type> repeatedElementTypes(TypeRange types, unsigned times) {
  SmallVector<Type> result;
  for (Type type : types)
    result.append(times, getElementTypeOrSelf(type));
  return result;
}

LogicalResult MapElementwiseOp::verify() {
  if (getSrcs().empty())
    return emitOpError("needs at least one operand");
  if (!llvm::isPowerOf2_32(getPack()))
    return emitOpError("pack must be a power of two, got ") << getPack();
  return success();
}

LogicalResult MapElementwiseOp::verifyRegions() {
  Region &region = getScalarOp();
  if (region.empty())
    return emitOpError("needs a body");
  SmallVector<Type> argTypes =
      repeatedElementTypes(getOperandTypes(), getPack());
  if (TypeRange(region.front().getArgumentTypes()) != TypeRange(argTypes))
    return emitOpError("body arguments must be the operand element types, "
                       "each repeated pack (")
           << getPack() << ") times";
  SmallVector<Type> returnTypes =
      repeatedElementTypes(getResultTypes(), getPack());
  WalkResult walk = region.walk([&](Operation *op) {
    // The body runs on scalars picked out of masked tensors; a store in it
    // could not honour the mask.
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects && effects.hasEffect<MemoryEffects::Write>()) {
      op->emitOpError("writes memory, which tt.map_elementwise bodies may "
                      "not do");
      return WalkResult::interrupt();
    }
    if (isa<MapElementwiseReturnOp>(op) &&
        TypeRange(op->getOperandTypes()) != TypeRange(returnTypes)) {
      op->emitOpError("must return the result element types, each repeated "
                      "pack times");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
