//===- TensorOpsToLinalg.cpp - Triton tensor ops to linalg/tensor ---------===//
//
// Shape-building ops (make_range, splat, broadcast, expand_dims, reshape,
// trans), reductions, dot and Triton's elementwise extras. Plain arith/math on
// tensors is left to convert-elementwise-to-linalg later in the pipeline.
//
//===----------------------------------------------------------------------===//

#include "passes/CombiningKinds.h"
#include "passes/FloatConversions.h"
#include "passes/TensorBuilders.h"
#include "passes/TritonToLinalgPatterns.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {
namespace {

struct MakeRangeLowering : OpConversionPattern<triton::MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::MakeRangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    int64_t start = op.getStart();
    auto map = rewriter.getMultiDimIdentityMap(1);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{},
        ValueRange{createEmpty(rewriter, loc, type)}, ArrayRef{map},
        ArrayRef{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value index = linalg::IndexOp::create(b, loc, 0);
          Value value = arith::IndexCastOp::create(b, loc, elementType, index);
          if (start != 0) {
            Value offset = arith::ConstantOp::create(
                b, loc, b.getIntegerAttr(elementType, start));
            value = arith::AddIOp::create(b, loc, value, offset);
          }
          linalg::YieldOp::create(b, loc, value);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct SplatLowering : OpConversionPattern<triton::SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    if (!type)
      return failure();
    Value empty = createEmpty(rewriter, op.getLoc(), type);
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, adaptor.getSrc(), empty);
    return success();
  }
};

struct BroadcastLowering : OpConversionPattern<triton::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    auto srcType = cast<RankedTensorType>(adaptor.getSrc().getType());
    if (!type)
      return failure();
    unsigned rank = type.getRank();
    // A source dimension of size 1 stretched to n reads index 0 throughout.
    SmallVector<AffineExpr> srcExprs;
    for (unsigned d = 0; d < rank; ++d) {
      bool stretched = srcType.getDimSize(d) == 1 && type.getDimSize(d) != 1;
      srcExprs.push_back(stretched ? rewriter.getAffineConstantExpr(0)
                                   : rewriter.getAffineDimExpr(d));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, srcExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), type, adaptor.getSrc(),
        createEmpty(rewriter, op.getLoc(), type), maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct ExpandDimsLowering : OpConversionPattern<triton::ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    if (!type)
      return failure();
    int64_t srcRank = type.getRank() - 1;
    int64_t axis = op.getAxis();
    // The new unit dimension joins the group of its neighbouring source dim.
    SmallVector<ReassociationIndices> groups(srcRank);
    for (int64_t d = 0; d <= srcRank; ++d) {
      if (srcRank == 0)
        break;
      int64_t src =
          d < axis ? d : (d == axis ? std::min(axis, srcRank - 1) : d - 1);
      groups[src].push_back(d);
    }
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, type, adaptor.getSrc(), groups);
    return success();
  }
};

/// Row-major reshape: collapse to 1-D, then expand to the result shape. Triton
/// allows reordering elements when `allow_reorder` is set; keeping the order
/// is one valid choice.
struct ReshapeLowering : OpConversionPattern<triton::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    Value value = adaptor.getSrc();
    auto srcType = cast<RankedTensorType>(value.getType());
    if (srcType.getRank() != 1)
      value = tensor::CollapseShapeOp::create(rewriter, loc, value,
                                              allDims(srcType.getRank()));
    if (type.getRank() != 1)
      value = tensor::ExpandShapeOp::create(rewriter, loc, type, value,
                                            allDims(type.getRank()));
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct TransLowering : OpConversionPattern<triton::TransOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    if (!type)
      return failure();
    Value empty = createEmpty(rewriter, op.getLoc(), type);
    SmallVector<int64_t> permutation(op.getOrder());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getSrc(), empty, permutation);
    rewriter.replaceOp(op, transpose.getResults());
    return success();
  }
};

/// Triton leaves the order of a reduction unspecified (GPUs reduce as a
/// tree), so its floating-point combine may be reassociated: that is what
/// lets LLVM vectorize sums and products.
void allowReassociation(Operation *op) {
  auto fastMath = dyn_cast<arith::ArithFastMathInterface>(op);
  if (!fastMath)
    return;
  arith::FastMathFlags flags = fastMath.getFastMathFlagsAttr().getValue();
  op->setAttr(fastMath.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), flags | arith::FastMathFlags::reassoc));
}

/// The neutral element of a reduction of one tensor whose combine region is
/// a single op with a neutral element applied to its two arguments (tl.sum,
/// tl.max, tl.min, xor_sum...) or a min/max by compare and select
/// (`selecting`, its getSelectingKind); null for any other region.
TypedAttr getSeed(triton::ReduceOp op,
                  std::optional<vector::CombiningKind> selecting) {
  Block &combine = op.getCombineOp().front();
  if (op.getSrcs().size() != 1)
    return {};
  if (selecting)
    return getNeutralElement(*selecting, combine.getArgument(0).getType());
  if (!llvm::hasSingleElement(combine.without_terminator()))
    return {};
  Operation &body = combine.front();
  Operation *terminator = combine.getTerminator();
  if (body.getNumOperands() != 2 || body.getNumResults() != 1 ||
      terminator->getNumOperands() != 1 ||
      terminator->getOperand(0) != body.getResult(0))
    return {};
  Value lhs = body.getOperand(0), rhs = body.getOperand(1);
  Value acc = combine.getArgument(0), next = combine.getArgument(1);
  if (!((lhs == acc && rhs == next) || (lhs == next && rhs == acc)))
    return {};
  std::optional<vector::CombiningKind> kind = getCombiningKind(&body);
  if (!kind)
    return {};
  return getNeutralElement(*kind, body.getResult(0).getType());
}

/// Reductions along an axis at least this long without a neutral element
/// combine pairs of halves (treeReduce); shorter ones fold in order.
constexpr int64_t kTreeMinExtent = 8;

/// Whether a combine region can run lane by lane in a linalg.generic: its
/// ops have no regions and no side effects.
bool isElementwiseCombine(Block &combine) {
  return llvm::all_of(combine.without_terminator(), [](Operation &op) {
    return op.getNumRegions() == 0 && isMemoryEffectFree(&op);
  });
}

/// `srcs` reduced along `axis` (extent a power of two) by combining the
/// lower half with the upper half, elementwise, until one slice is left,
/// which is returned with the axis kept (size 1). Triton leaves the order in
/// which a reduction combines open (GPUs reduce across lanes in a tree): in
/// this order every step is an elementwise op that vectorizes, where folding
/// element by element is a scalar chain through the combine (Welford's mean
/// and variance, argmax with its index: torch inductor's reductions).
SmallVector<Value>
treeReduce(OpBuilder &rewriter, Location loc, Block &combine, ValueRange srcs,
           int64_t axis,
           function_ref<Value(Value, int64_t, int64_t, bool)> slice) {
  unsigned n = srcs.size();
  auto type = cast<RankedTensorType>(srcs.front().getType());
  int64_t rank = type.getRank();
  SmallVector<Value> level(srcs.begin(), srcs.end());
  for (int64_t half = type.getDimSize(axis) / 2; half >= 1; half /= 2) {
    SmallVector<Value> ins, outs;
    for (Value v : level)
      ins.push_back(slice(v, 0, half, /*dropAxis=*/false));
    for (Value v : level)
      ins.push_back(slice(v, half, half, /*dropAxis=*/false));
    for (unsigned i = 0; i < n; ++i)
      outs.push_back(
          createEmpty(rewriter, loc, cast<RankedTensorType>(ins[i].getType())));
    SmallVector<AffineMap> maps(3 * n, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, ValueRange(outs).getTypes(), ins, outs, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          // combine(lower, upper): args = (lower..., upper..., outs...).
          IRMapping mapping;
          for (unsigned i = 0; i < 2 * n; ++i)
            mapping.map(combine.getArgument(i), args[i]);
          for (Operation &inner : combine.without_terminator())
            b.clone(inner, mapping);
          SmallVector<Value> yielded;
          for (Value v : combine.getTerminator()->getOperands())
            yielded.push_back(mapping.lookupOrDefault(v));
          linalg::YieldOp::create(b, loc, yielded);
        });
    level.assign(generic.getResults().begin(), generic.getResults().end());
  }
  return level;
}

/// A reduction with a neutral element starts from it and folds in every
/// element: its loop then walks the whole source, like the loops of the ops
/// that compute it, which spine-fuse-element-loops merges it with. Any other
/// tt.reduce has no identity value, so the first slice along the axis seeds
/// the accumulator and linalg.reduce folds in the rest, in order, or, along
/// an axis of kTreeMinExtent or more, treeReduce combines halves. The combine
/// region is called as combine(accumulator, next element). A min/max by
/// compare and select (torch inductor's reductions) becomes the kind's one op,
/// which the element-loop vectorizer reduces in vector lanes: as a chain of
/// compares and selects it stayed a scalar loop.
struct ReduceLowering : OpConversionPattern<triton::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    ValueRange srcs = adaptor.getSrcs();
    auto srcType = cast<RankedTensorType>(srcs.front().getType());
    int64_t rank = srcType.getRank();
    int64_t extent = srcType.getDimSize(axis);

    auto slice = [&](Value src, int64_t offset, int64_t size,
                     bool dropAxis) -> Value {
      auto type = cast<RankedTensorType>(src.getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t dim = d == axis ? size : type.getDimSize(d);
        sizes.push_back(rewriter.getIndexAttr(dim));
        if (d != axis || !dropAxis)
          shape.push_back(dim);
      }
      offsets[axis] = rewriter.getIndexAttr(offset);
      auto resultType = RankedTensorType::get(shape, type.getElementType());
      return tensor::ExtractSliceOp::create(rewriter, loc, resultType, src,
                                            offsets, sizes, strides);
    };

    // Reducing a 1-D tensor yields scalars.
    auto finish = [&](SmallVector<Value> results) {
      if (rank == 1)
        for (Value &result : results)
          result =
              tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
      rewriter.replaceOp(op, results);
      return success();
    };

    Block &combine = op.getCombineOp().front();
    std::optional<vector::CombiningKind> selecting =
        srcs.size() == 1 ? getSelectingKind(combine) : std::nullopt;
    SmallVector<Value> inits, rests;
    TypedAttr seed = extent > 1 ? getSeed(op, selecting) : TypedAttr();
    if (!seed && extent >= kTreeMinExtent && llvm::isPowerOf2_64(extent) &&
        isElementwiseCombine(combine)) {
      SmallVector<Value> results;
      for (Value v : treeReduce(rewriter, loc, combine, srcs, axis, slice))
        results.push_back(slice(v, 0, 1, /*dropAxis=*/true));
      return finish(std::move(results));
    }
    if (seed) {
      Value src = srcs.front();
      SmallVector<int64_t> shape(srcType.getShape());
      shape.erase(shape.begin() + axis);
      auto initType = RankedTensorType::get(shape, srcType.getElementType());
      Value neutral = arith::ConstantOp::create(rewriter, loc, seed);
      inits.push_back(
          linalg::FillOp::create(rewriter, loc, neutral,
                                 createEmpty(rewriter, loc, initType))
              .getResult(0));
      rests.push_back(src);
    }
    for (Value src : seed ? ValueRange() : srcs) {
      // The accumulator is a fresh copy of the first slice: reducing in place
      // into a view of the source would make bufferization copy a strided
      // view, which needs the runtime's generic memref copy.
      Value first = slice(src, 0, 1, /*dropAxis=*/true);
      auto firstType = cast<RankedTensorType>(first.getType());
      inits.push_back(
          linalg::CopyOp::create(rewriter, loc, first,
                                 createEmpty(rewriter, loc, firstType))
              .getResult(0));
      if (extent > 1)
        rests.push_back(slice(src, 1, extent - 1, /*dropAxis=*/false));
    }

    SmallVector<Value> results = inits;
    if (extent > 1) {
      unsigned n = srcs.size();
      auto reduce = linalg::ReduceOp::create(
          rewriter, loc, rests, inits, ArrayRef<int64_t>{axis},
          [&](OpBuilder &b, Location loc, ValueRange args) {
            if (selecting) {
              linalg::YieldOp::create(
                  b, loc,
                  vector::makeArithReduction(b, loc, *selecting, args[1],
                                             args[0]));
              return;
            }
            // args = (next elements..., accumulators...)
            IRMapping mapping;
            for (unsigned i = 0; i < n; ++i) {
              mapping.map(combine.getArgument(i), args[n + i]);
              mapping.map(combine.getArgument(n + i), args[i]);
            }
            for (Operation &inner : combine.without_terminator())
              allowReassociation(b.clone(inner, mapping));
            SmallVector<Value> yielded;
            for (Value v : combine.getTerminator()->getOperands())
              yielded.push_back(mapping.lookupOrDefault(v));
            linalg::YieldOp::create(b, loc, yielded);
          });
      results.assign(reduce.getResults().begin(), reduce.getResults().end());
    }
    return finish(std::move(results));
  }
};

/// tt.dot is C + A x B with the accumulator C; linalg's named matmuls widen
/// narrower inputs to the accumulator type (sign-extending integers).
struct DotLowering : OpConversionPattern<triton::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(adaptor.getC().getType());
    SmallVector<Value> inputs = {adaptor.getA(), adaptor.getB()};
    Operation *matmul;
    if (type.getRank() == 2)
      matmul = linalg::MatmulOp::create(rewriter, op.getLoc(), inputs,
                                        ValueRange{adaptor.getC()});
    else if (type.getRank() == 3)
      matmul = linalg::BatchMatmulOp::create(rewriter, op.getLoc(), inputs,
                                             ValueRange{adaptor.getC()});
    else
      return rewriter.notifyMatchFailure(op, "tt.dot of rank other than 2/3");
    rewriter.replaceOp(op, matmul->getResults());
    return success();
  }
};

/// Conversions between the standard formats (fp8 ones are rewritten before,
/// by spine-legalize-float-types). Narrowing rounds to nearest even or, with
/// `rounding = rtz`, toward zero; f16 <-> bf16 goes through f32.
struct FpToFpLowering : OpConversionPattern<triton::FpToFpOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::FpToFpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto from = cast<FloatType>(getElementTypeOrSelf(op.getSrc().getType()));
    auto to = cast<FloatType>(getElementTypeOrSelf(op.getType()));
    if (isFloat8(from) || isFloat8(to))
      return rewriter.notifyMatchFailure(
          op, "fp8 needs spine-legalize-float-types first");
    bool towardZero = op.getRounding() == triton::RoundingMode::RTZ;
    rewriter.replaceOp(op, createFloatConversion(rewriter, op.getLoc(),
                                                 adaptor.getSrc(), from, to,
                                                 towardZero));
    return success();
  }
};

struct ClampFLowering : OpConversionPattern<triton::ClampFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::ClampFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value v;
    if (op.getPropagateNan() == triton::PropagateNan::ALL) {
      v = arith::MaximumFOp::create(rewriter, loc, adaptor.getX(),
                                    adaptor.getMin());
      v = arith::MinimumFOp::create(rewriter, loc, v, adaptor.getMax());
    } else {
      v = arith::MaxNumFOp::create(rewriter, loc, adaptor.getX(),
                                   adaptor.getMin());
      v = arith::MinNumFOp::create(rewriter, loc, v, adaptor.getMax());
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct PreciseSqrtLowering : OpConversionPattern<triton::PreciseSqrtOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::PreciseSqrtOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<math::SqrtOp>(op, adaptor.getX());
    return success();
  }
};

struct PreciseDivFLowering : OpConversionPattern<triton::PreciseDivFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::PreciseDivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, adaptor.getX(),
                                               adaptor.getY());
    return success();
  }
};

/// High half of the unsigned product: widen, multiply, shift, truncate.
struct MulhiUILowering : OpConversionPattern<triton::MulhiUIOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::MulhiUIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    auto intType = cast<IntegerType>(getElementTypeOrSelf(type));
    unsigned bits = intType.getWidth();
    Type wideElt = rewriter.getIntegerType(2 * bits);
    Type wide = wideElt;
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      wide = tensor.clone(wideElt);
    Value x = arith::ExtUIOp::create(rewriter, loc, wide, adaptor.getX());
    Value y = arith::ExtUIOp::create(rewriter, loc, wide, adaptor.getY());
    Value product = arith::MulIOp::create(rewriter, loc, x, y);
    TypedAttr shiftAttr = rewriter.getIntegerAttr(wideElt, bits);
    if (auto tensor = dyn_cast<RankedTensorType>(wide))
      shiftAttr = SplatElementsAttr::get(tensor, shiftAttr);
    Value shift = arith::ConstantOp::create(rewriter, loc, shiftAttr);
    Value high = arith::ShRUIOp::create(rewriter, loc, product, shift);
    rewriter.replaceOpWithNewOp<arith::TruncIOp>(op, type, high);
    return success();
  }
};

} // namespace

void populateTensorOpsToLinalgPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<MakeRangeLowering, SplatLowering, BroadcastLowering,
               ExpandDimsLowering, ReshapeLowering, TransLowering,
               ReduceLowering, DotLowering, FpToFpLowering, ClampFLowering,
               PreciseSqrtLowering, PreciseDivFLowering, MulhiUILowering>(
      converter, patterns.getContext());
}

} // namespace mlir::spine
