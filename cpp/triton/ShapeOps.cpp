//===- ShapeOps.cpp - Splat, reshape, broadcast, transpose, join, ... -----===//

#include "triton/Dialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::triton;

/// Shape-changing ops infer their result type, but the layout of the result
/// of an encoded operand is only known to the dialect that defines the
/// encoding. Tensors on this backend carry none; refuse rather than guess.
static LogicalResult unknownResultLayout(std::optional<Location> loc,
                                         StringRef opName,
                                         RankedTensorType operandTy) {
  return emitOptionalError(loc, opName,
                           ": cannot infer the result layout for an operand "
                           "with encoding ",
                           operandTy.getEncoding());
}

/// Ops that move elements without inventing a layout keep encodings all or
/// nothing: either every tensor involved has one or none has.
static LogicalResult verifyEncodedTogether(Operation *op, RankedTensorType a,
                                           RankedTensorType b) {
  if (static_cast<bool>(a.getEncoding()) != static_cast<bool>(b.getEncoding()))
    return op->emitOpError("operand and result must both have an encoding "
                           "or both have none");
  return success();
}

/// A constant reinterpreted with a new shape: splats are resized, dense
/// constants reshaped when `keepOrder` (the op does not move elements).
static OpFoldResult foldConstantView(Attribute value, ShapedType resultTy,
                                     bool keepOrder) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(value);
  if (!dense)
    return {};
  if (dense.isSplat())
    return dense.resizeSplat(resultTy);
  if (keepOrder)
    return dense.reshape(resultTy);
  return {};
}

//===----------------------------------------------------------------------===//
// SplatOp / UnsplatOp
//===----------------------------------------------------------------------===//

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute value = adaptor.getSrc();
  if (!isa_and_present<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(getType(), value);
}

LogicalResult UnsplatOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto srcTy = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!srcTy)
    return emitOptionalError(location, "tt.unsplat expects a ranked tensor");
  inferredReturnTypes.push_back(srcTy.getElementType());
  return success();
}

LogicalResult UnsplatOp::verify() {
  if (getSrc().getType().getNumElements() != 1)
    return emitOpError("source must have exactly one element, got ")
           << getSrc().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// ExpandDimsOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  ExpandDimsOp::Adaptor adaptor(operands, attributes, properties, regions);
  auto srcTy = cast<RankedTensorType>(adaptor.getSrc().getType());
  if (!adaptor.getAxisAttr())
    return emitOptionalError(location, "tt.expand_dims needs an axis");
  int64_t axis = adaptor.getAxisAttr().getInt();
  if (axis < 0 || axis > srcTy.getRank())
    return emitOptionalError(location, "tt.expand_dims: axis ", axis,
                             " is out of range [0, ", srcTy.getRank(), "] for ",
                             srcTy);
  if (srcTy.getEncoding())
    return unknownResultLayout(location, "tt.expand_dims", srcTy);
  SmallVector<int64_t> shape(srcTy.getShape());
  shape.insert(shape.begin() + axis, 1);
  inferredReturnTypes.push_back(srcTy.clone(shape));
  return success();
}

LogicalResult ExpandDimsOp::canonicalize(ExpandDimsOp op,
                                         PatternRewriter &rewriter) {
  // expand_dims(splat x) -> splat x
  if (auto splat = op.getSrc().getDefiningOp<SplatOp>()) {
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
  // expand_dims(broadcast x) -> broadcast(expand_dims x): moving broadcasts
  // outwards lets consecutive ones merge.
  if (auto broadcast = op.getSrc().getDefiningOp<BroadcastOp>()) {
    auto expanded = ExpandDimsOp::create(rewriter, op.getLoc(),
                                         broadcast.getSrc(), op.getAxis());
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(),
                                             expanded.getResult());
    return success();
  }
  return failure();
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return foldConstantView(adaptor.getSrc(), getType(), /*keepOrder=*/true);
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

void ReshapeOp::build(OpBuilder &builder, OperationState &state,
                      ArrayRef<int64_t> shape, Value src, bool allowReorder) {
  auto srcTy = cast<RankedTensorType>(src.getType());
  assert(!srcTy.getEncoding() && "reshape builder cannot infer a layout");
  build(builder, state, RankedTensorType::get(shape, srcTy.getElementType()),
        src, allowReorder);
}

std::optional<unsigned> ReshapeOp::getExpandDimsAxis() {
  ArrayRef<int64_t> src = getSrc().getType().getShape();
  ArrayRef<int64_t> dst = getType().getShape();
  if (dst.size() != src.size() + 1)
    return std::nullopt;
  for (unsigned axis = 0; axis < dst.size(); ++axis)
    if (dst[axis] == 1 && dst.take_front(axis) == src.take_front(axis) &&
        dst.drop_front(axis + 1) == src.drop_front(axis))
      return axis;
  return std::nullopt;
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType srcTy = getSrc().getType();
  RankedTensorType dstTy = getType();
  if (srcTy.getNumElements() != dstTy.getNumElements())
    return emitOpError("cannot reshape ")
           << srcTy << " (" << srcTy.getNumElements() << " elements) to "
           << dstTy << " (" << dstTy.getNumElements() << " elements)";
  return verifyEncodedTogether(*this, srcTy, dstTy);
}

LogicalResult ReshapeOp::canonicalize(ReshapeOp op, PatternRewriter &rewriter) {
  // The requested result layout is a hint to keep: leave the op alone.
  if (op.getEfficientLayout())
    return failure();
  // reshape(reshape x) -> reshape x
  if (auto inner = op.getSrc().getDefiningOp<ReshapeOp>()) {
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getSrc(),
                                           op.getAllowReorder() ||
                                               inner.getAllowReorder());
    return success();
  }
  // reshape(splat x) -> splat x
  if (auto splat = op.getSrc().getDefiningOp<SplatOp>()) {
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
  return failure();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getType() == getSrc().getType() && !getAllowReorder())
    return getSrc();
  return foldConstantView(adaptor.getSrc(), getType(), /*keepOrder=*/true);
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  RankedTensorType srcTy = getSrc().getType();
  RankedTensorType dstTy = getType();
  if (srcTy.getRank() != dstTy.getRank())
    return emitOpError("source rank ")
           << srcTy.getRank() << " differs from result rank "
           << dstTy.getRank();
  for (auto [dim, srcSize, dstSize] :
       llvm::enumerate(srcTy.getShape(), dstTy.getShape()))
    if (srcSize != 1 && srcSize != dstSize)
      return emitOpError("dimension ")
             << dim << " of size " << srcSize << " cannot broadcast to "
             << dstSize << "; only size-1 dimensions broadcast";
  return verifyEncodedTogether(*this, srcTy, dstTy);
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getType() == getSrc().getType())
    return getSrc();
  return foldConstantView(adaptor.getSrc(), getType(), /*keepOrder=*/false);
}

namespace {
/// broadcast(splat x) -> splat x
struct BroadcastOfSplat : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// broadcast(broadcast x) -> broadcast x
struct BroadcastOfBroadcast : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getSrcMutable().assign(inner.getSrc()); });
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<BroadcastOfSplat, BroadcastOfBroadcast>(context);
}

//===----------------------------------------------------------------------===//
// CatOp
//===----------------------------------------------------------------------===//

LogicalResult CatOp::verify() {
  RankedTensorType srcTy = getLhs().getType();
  RankedTensorType dstTy = getType();
  if (srcTy.getRank() != dstTy.getRank())
    return emitOpError("result rank must match the operand rank");
  if (dstTy.getNumElements() != 2 * srcTy.getNumElements())
    return emitOpError("result must hold the ")
           << 2 * srcTy.getNumElements() << " elements of both operands, has "
           << dstTy.getNumElements();
  return verifyEncodedTogether(*this, srcTy, dstTy);
}

//===----------------------------------------------------------------------===//
// JoinOp / SplitOp
//===----------------------------------------------------------------------===//

void JoinOp::build(OpBuilder &builder, OperationState &state, Value lhs,
                   Value rhs) {
  auto srcTy = cast<RankedTensorType>(lhs.getType());
  assert(!srcTy.getEncoding() && "join builder cannot infer a layout");
  SmallVector<int64_t> shape(srcTy.getShape());
  shape.push_back(2);
  build(builder, state, srcTy.clone(shape), lhs, rhs);
}

LogicalResult JoinOp::verify() {
  RankedTensorType srcTy = getLhs().getType();
  RankedTensorType dstTy = getType();
  SmallVector<int64_t> expected(srcTy.getShape());
  expected.push_back(2);
  if (dstTy.getShape() != ArrayRef<int64_t>(expected) ||
      dstTy.getElementType() != srcTy.getElementType())
    return emitOpError("result must be ")
           << srcTy.clone(expected) << ", got " << dstTy;
  return verifyEncodedTogether(*this, srcTy, dstTy);
}

OpFoldResult JoinOp::fold(FoldAdaptor adaptor) {
  // join(splat c, splat c) -> splat c
  auto lhs = dyn_cast_if_present<SplatElementsAttr>(adaptor.getLhs());
  if (!lhs || lhs != adaptor.getRhs())
    return {};
  return lhs.resizeSplat(getType());
}

LogicalResult
SplitOp::inferReturnTypes(MLIRContext *context,
                          std::optional<Location> location, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  auto srcTy = cast<RankedTensorType>(adaptor.getSrc().getType());
  if (srcTy.getRank() == 0 || srcTy.getShape().back() != 2)
    return emitOptionalError(location, "tt.split: the last dimension of ",
                             srcTy, " must have size 2");
  if (srcTy.getEncoding())
    return unknownResultLayout(location, "tt.split", srcTy);
  auto halfTy = srcTy.clone(srcTy.getShape().drop_back());
  inferredReturnTypes.assign({halfTy, halfTy});
  return success();
}

bool SplitOp::isCompatibleReturnTypes(TypeRange lhs, TypeRange rhs) {
  return lhs == rhs;
}

LogicalResult SplitOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  // split(join(a, b)) -> a, b
  if (auto join = getSrc().getDefiningOp<JoinOp>()) {
    results.assign({join.getLhs(), join.getRhs()});
    return success();
  }
  // split(splat c) -> splat c, splat c
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc())) {
    Attribute half = splat.resizeSplat(getOutLHS().getType());
    results.assign({half, half});
    return success();
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// TransOp
//===----------------------------------------------------------------------===//

/// order[i] names the source dimension that becomes result dimension i.
static SmallVector<int64_t> permuteShape(ArrayRef<int64_t> shape,
                                         ArrayRef<int32_t> order) {
  SmallVector<int64_t> result;
  for (int32_t dim : order)
    result.push_back(shape[dim]);
  return result;
}

static bool isPermutation(ArrayRef<int32_t> order, int64_t rank) {
  if (static_cast<int64_t>(order.size()) != rank)
    return false;
  SmallVector<bool> seen(rank, false);
  for (int32_t dim : order) {
    if (dim < 0 || dim >= rank || seen[dim])
      return false;
    seen[dim] = true;
  }
  return true;
}

LogicalResult
TransOp::inferReturnTypes(MLIRContext *context,
                          std::optional<Location> location, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  auto srcTy = cast<RankedTensorType>(adaptor.getSrc().getType());
  ArrayRef<int32_t> order = adaptor.getOrder();
  if (!isPermutation(order, srcTy.getRank()))
    return emitOptionalError(location,
                             "tt.trans: order must be a "
                             "permutation of [0, ",
                             srcTy.getRank(), ")");
  if (srcTy.getEncoding())
    return unknownResultLayout(location, "tt.trans", srcTy);
  inferredReturnTypes.push_back(
      srcTy.clone(permuteShape(srcTy.getShape(), order)));
  return success();
}

LogicalResult TransOp::verify() {
  RankedTensorType srcTy = getSrc().getType();
  RankedTensorType dstTy = getType();
  // TransposeOpInterface has already checked that the order is a
  // permutation of the source dimensions.
  SmallVector<int64_t> expected = permuteShape(srcTy.getShape(), getOrder());
  if (dstTy.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape must be the source shape permuted by "
                       "the order, i.e. ")
           << srcTy.clone(expected);
  return verifyEncodedTogether(*this, srcTy, dstTy);
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int32_t> order = getOrder();
  bool identity = llvm::all_of(llvm::enumerate(order), [](auto it) {
    return static_cast<int64_t>(it.value()) == static_cast<int64_t>(it.index());
  });
  if (identity && getSrc().getType() == getType())
    return getSrc();
  // trans(trans(x, inner), outer) -> trans(x, inner[outer[i]])
  if (auto inner = getSrc().getDefiningOp<TransOp>()) {
    ArrayRef<int32_t> innerOrder = inner.getOrder();
    SmallVector<int32_t> combined;
    for (int32_t dim : order)
      combined.push_back(innerOrder[dim]);
    setOrder(combined);
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return foldConstantView(adaptor.getSrc(), getType(), /*keepOrder=*/false);
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  GatherOp::Adaptor adaptor(operands, attributes, properties, regions);
  auto srcTy = cast<RankedTensorType>(adaptor.getSrc().getType());
  auto indicesTy = cast<RankedTensorType>(adaptor.getIndices().getType());
  // The result takes the indices' shape and layout and the source's elements.
  inferredReturnTypes.push_back(indicesTy.clone(srcTy.getElementType()));
  return success();
}

LogicalResult GatherOp::verify() {
  RankedTensorType srcTy = getSrc().getType();
  RankedTensorType indicesTy = getIndices().getType();
  if (srcTy.getRank() != indicesTy.getRank())
    return emitOpError("source and indices must have the same rank");
  uint32_t axis = getAxis();
  if (axis >= srcTy.getRank())
    return emitOpError("axis ")
           << axis << " is out of range for rank " << srcTy.getRank();
  for (int64_t dim = 0; dim < srcTy.getRank(); ++dim)
    if (dim != axis && indicesTy.getDimSize(dim) != srcTy.getDimSize(dim))
      return emitOpError("indices dimension ")
             << dim << " (" << indicesTy.getDimSize(dim)
             << ") must match the source dimension (" << srcTy.getDimSize(dim)
             << ")";
  return success();
}
