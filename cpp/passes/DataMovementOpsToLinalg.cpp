//===- DataMovementOpsToLinalg.cpp - join, split, cat, gather, histogram --===//
//
// Ops that move or count elements without arithmetic on them. Pointer tensors
// go through unchanged: after type conversion they are i64 tensors.
//
// join and split are single linalg.generic ops rather than strided
// insert/extract slices: a copy into or out of a stride-2 view would need the
// runtime's generic memref copy, which kernels are not linked with.
//
//===----------------------------------------------------------------------===//

#include "passes/TensorBuilders.h"
#include "passes/TritonToLinalgPatterns.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {
namespace {

/// The row-major 1-D view of `value` (itself when it is 1-D already).
Value flatten(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 1)
    return value;
  return tensor::CollapseShapeOp::create(b, loc, value,
                                         allDims(type.getRank()));
}

/// Map from the rank-`rank` iteration space of a generic that drops the last
/// dimension (`last` < 0) or pins it to the constant `last`.
AffineMap minorDimMap(MLIRContext *ctx, unsigned numDims, unsigned rank,
                      int64_t last) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d = 0; d < rank; ++d)
    exprs.push_back(getAffineDimExpr(d, ctx));
  if (last >= 0)
    exprs.push_back(getAffineConstantExpr(last, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// join(a, b)[..., k] = k == 0 ? a[...] : b[...]
struct JoinLowering : OpConversionPattern<triton::JoinOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::JoinOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    if (!type)
      return failure();
    MLIRContext *ctx = rewriter.getContext();
    unsigned rank = type.getRank();
    AffineMap half = minorDimMap(ctx, rank, rank - 1, /*last=*/-1);
    SmallVector<AffineMap> maps = {half, half,
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), type,
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        createEmpty(rewriter, op.getLoc(), type), maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value k = linalg::IndexOp::create(b, loc, rank - 1);
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value first =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k, zero);
          Value v = arith::SelectOp::create(b, loc, first, args[0], args[1]);
          linalg::YieldOp::create(b, loc, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// split(x) = x[..., 0], x[..., 1], both from one pass over x.
struct SplitLowering : OpConversionPattern<triton::SplitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        convertTensorType(*getTypeConverter(), op.getOutLHS().getType());
    if (!type)
      return failure();
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    unsigned rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps = {minorDimMap(ctx, rank, rank, 0),
                                   minorDimMap(ctx, rank, rank, 1), identity,
                                   identity};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value src = adaptor.getSrc();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, type}, ValueRange{src, src},
        ValueRange{createEmpty(rewriter, loc, type),
                   createEmpty(rewriter, loc, type)},
        maps, iterators, [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, ValueRange{args[0], args[1]});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// cat(a, b): a then b in row-major order. Triton concatenates along dim 0,
/// which is the same as concatenating the flattened operands; working on the
/// 1-D views keeps both halves contiguous.
struct CatLowering : OpConversionPattern<triton::CatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::CatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    Value lhs = flatten(rewriter, loc, adaptor.getLhs());
    Value rhs = flatten(rewriter, loc, adaptor.getRhs());
    int64_t half = cast<RankedTensorType>(lhs.getType()).getDimSize(0);
    auto flatType = RankedTensorType::get({2 * half}, type.getElementType());
    Value result = createEmpty(rewriter, loc, flatType);
    for (auto [i, part] : llvm::enumerate(std::array<Value, 2>{lhs, rhs}))
      result = tensor::InsertSliceOp::create(
          rewriter, loc, part, result,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(i * half)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(half)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    if (type.getRank() != 1)
      result = tensor::ExpandShapeOp::create(rewriter, loc, type, result,
                                             allDims(type.getRank()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// gather(src, idx, axis)[i] = src[i with i[axis] replaced by idx[i]]. An
/// index is a non-negative position (negative ones are out of range, which
/// triton leaves undefined), so unsigned index types keep their full range.
struct GatherLowering : OpConversionPattern<triton::GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    unsigned rank = type.getRank();
    unsigned axis = op.getAxis();
    Value src = adaptor.getSrc();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, adaptor.getIndices(),
        createEmpty(rewriter, loc, type), ArrayRef{identity, identity},
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> coords;
          for (unsigned d = 0; d < rank; ++d)
            coords.push_back(
                d == axis ? arith::IndexCastUIOp::create(
                                b, loc, b.getIndexType(), args[0])
                                .getResult()
                          : linalg::IndexOp::create(b, loc, d).getResult());
          Value v = tensor::ExtractOp::create(b, loc, src, coords);
          linalg::YieldOp::create(b, loc, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// histogram(x, mask)[b] = #{i : mask[i] and x[i] == b}. Values outside
/// [0, bins) fall in no bin. One pass over the (flattened) input: each
/// element adds 0 or 1 to its bin (bin 0 when it counts nowhere), without
/// branches.
struct HistogramLowering : OpConversionPattern<triton::HistogramOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::HistogramOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value src = flatten(rewriter, loc, adaptor.getSrc());
    Value mask = adaptor.getMask();
    if (mask && isa<RankedTensorType>(mask.getType()))
      mask = flatten(rewriter, loc, mask);
    auto srcType = cast<RankedTensorType>(src.getType());
    Type valueType = srcType.getElementType();
    Type countType = type.getElementType();
    int64_t bins = type.getDimSize(0);

    Value zeroCount = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(countType));
    Value counts = linalg::FillOp::create(rewriter, loc, zeroCount,
                                          createEmpty(rewriter, loc, type))
                       .getResult(0);
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub =
        arith::ConstantIndexOp::create(rewriter, loc, srcType.getDimSize(0));
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{counts},
        [&](OpBuilder &b, Location loc, Value i, ValueRange iterArgs) {
          Value acc = iterArgs[0];
          Value v = tensor::ExtractOp::create(b, loc, src, i);
          Value zero =
              arith::ConstantOp::create(b, loc, b.getZeroAttr(valueType));
          Value numBins = arith::ConstantOp::create(
              b, loc, b.getIntegerAttr(valueType, bins));
          Value inRange = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v, zero),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v,
                                    numBins));
          if (mask) {
            Value m = isa<RankedTensorType>(mask.getType())
                          ? tensor::ExtractOp::create(b, loc, mask, i)
                          : mask;
            inRange = arith::AndIOp::create(b, loc, inRange, m);
          }
          Value bin = arith::IndexCastOp::create(
              b, loc, b.getIndexType(),
              arith::SelectOp::create(b, loc, inRange, v, zero));
          Value old = tensor::ExtractOp::create(b, loc, acc, bin);
          Value add = arith::ExtUIOp::create(b, loc, countType, inRange);
          Value updated = tensor::InsertOp::create(
              b, loc, arith::AddIOp::create(b, loc, old, add), acc, bin);
          scf::YieldOp::create(b, loc, updated);
        });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

/// unsplat: the one element of a single-element tensor.
struct UnsplatLowering : OpConversionPattern<triton::UnsplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::UnsplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value src = adaptor.getSrc();
    auto rank = cast<RankedTensorType>(src.getType()).getRank();
    Value zero = arith::ConstantIndexOp::create(rewriter, op.getLoc(), 0);
    SmallVector<Value> indices(rank, zero);
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, src, indices);
    return success();
  }
};

} // namespace

void populateDataMovementOpsToLinalgPatterns(TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<JoinLowering, SplitLowering, CatLowering, GatherLowering,
               HistogramLowering, UnsplatLowering>(converter,
                                                   patterns.getContext());
}

} // namespace mlir::spine
