//===- ScanOpsToLinalg.cpp - tt.scan as a loop along the scan axis --------===//
//
// An inclusive scan is sequential along its axis and parallel across the
// other dimensions. It becomes an scf.for over the axis (backwards for a
// reverse scan) whose iter_args are the results, initialised with the
// sources: step k visits every position across the axis and overwrites the
// element at k with combine(result at k-1, element at k), running a clone of
// the combine region. Only scalars are read and written (tensor.extract and
// tensor.insert), so bufferization updates one buffer in place: no slice
// copies and no allocation inside the loop.
//
//===----------------------------------------------------------------------===//

#include "passes/TritonToLinalgPatterns.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {
namespace {

struct ScanLowering : OpConversionPattern<triton::ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange srcs = adaptor.getSrcs();
    auto srcType = cast<RankedTensorType>(srcs.front().getType());
    int64_t axis = op.getAxis();
    int64_t extent = srcType.getDimSize(axis);
    bool reverse = op.getReverse();
    // The first element along the axis is its own prefix.
    if (extent <= 1) {
      rewriter.replaceOp(op, srcs);
      return success();
    }

    // The loops across the axis, one per other dimension.
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs, ubs, steps;
    for (auto [d, size] : llvm::enumerate(srcType.getShape())) {
      if (static_cast<int64_t>(d) == axis)
        continue;
      lbs.push_back(zero);
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
      steps.push_back(one);
    }
    Block &combine = op.getCombineOp().front();
    unsigned n = srcs.size();

    // results[.., pos, ..] = combine(results[.., prev, ..], results[.., pos,
    // ..]) for every position across the axis; the element at `pos` is still
    // the source's there.
    auto step = [&](OpBuilder &b, Location loc, Value pos, Value prev,
                    ValueRange across, ValueRange results) {
      auto indexAt = [&](Value atAxis) {
        SmallVector<Value> index(across.begin(), across.end());
        index.insert(index.begin() + axis, atAxis);
        return index;
      };
      SmallVector<Value> at = indexAt(pos), before = indexAt(prev);
      IRMapping mapping;
      for (auto [i, result] : llvm::enumerate(results)) {
        mapping.map(combine.getArgument(i),
                    tensor::ExtractOp::create(b, loc, result, before));
        mapping.map(combine.getArgument(n + i),
                    tensor::ExtractOp::create(b, loc, result, at));
      }
      for (Operation &inner : combine.without_terminator())
        b.clone(inner, mapping);
      scf::ValueVector updated;
      for (auto [result, value] :
           llvm::zip(results, combine.getTerminator()->getOperands()))
        updated.push_back(tensor::InsertOp::create(
            b, loc, mapping.lookupOrDefault(value), result, at));
      return updated;
    };

    Value ub = arith::ConstantIndexOp::create(rewriter, loc, extent);
    Value last = arith::ConstantIndexOp::create(rewriter, loc, extent - 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, one, ub, one, srcs,
        [&](OpBuilder &b, Location loc, Value iv, ValueRange results) {
          // Forwards: pos = k, prev = k - 1; backwards: pos = N-1-k,
          // prev = pos + 1.
          Value pos = iv, prev = arith::SubIOp::create(b, loc, iv, one);
          if (reverse) {
            pos = arith::SubIOp::create(b, loc, last, iv);
            prev = arith::AddIOp::create(b, loc, pos, one);
          }
          scf::ValueVector updated;
          if (lbs.empty())
            updated = step(b, loc, pos, prev, {}, results);
          else
            updated = scf::buildLoopNest(
                          b, loc, lbs, ubs, steps, results,
                          [&](OpBuilder &b, Location loc, ValueRange across,
                              ValueRange inner) {
                            return step(b, loc, pos, prev, across, inner);
                          })
                          .results;
          scf::YieldOp::create(b, loc, updated);
        });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

} // namespace

void populateScanOpsToLinalgPatterns(TypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<ScanLowering>(converter, patterns.getContext());
}

} // namespace mlir::spine
