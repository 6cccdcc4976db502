//===- FuseElementwiseOps.cpp - elementwise chains become one op ----------===//
//
// Upstream's linalg elementwise fusion, with one more kind of producer fused
// into every consumer: an op that is cheaper to compute again than to store
// and read back. Upstream fuses a producer only into its single user, so a
// `tl.arange` used twice (a load's offsets and a `cols < N` mask, say) was a
// buffer of indices written and read once per program; computed in each of
// its users, it is an index in a register.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::spine {
#define GEN_PASS_DEF_FUSEELEMENTWISEOPS
#include "passes/Passes.h.inc"

namespace {

/// At most this many arithmetic ops make a producer cheap enough to compute
/// in each of its users.
constexpr int64_t kCheapOps = 4;

/// A generic that reads no tensor and computes from its indices with a few
/// integer ops (tl.arange, an index comparison), or only hands on one input
/// element (a broadcast or transpose): computing it again in a user costs
/// less than a store and a load of its element.
bool isCheapToRecompute(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumResults() != 1)
    return false;
  Block *body = generic.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (generic.getNumDpsInputs() == 1 && llvm::hasSingleElement(*body) &&
      yield.getOperand(0) == body->getArgument(0))
    return true;
  if (generic.getNumDpsInputs() != 0)
    return false;
  int64_t ops = 0;
  for (Operation &inner : body->without_terminator()) {
    if (!isa<linalg::IndexOp, arith::ConstantOp, arith::IndexCastOp,
             arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::CmpIOp,
             arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(inner))
      return false;
    if (!isa<linalg::IndexOp, arith::ConstantOp>(inner) && ++ops > kCheapOps)
      return false;
  }
  return true;
}

struct FuseElementwiseOpsPass
    : impl::FuseElementwiseOpsBase<FuseElementwiseOpsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer &&
             (producer->hasOneUse() || isCheapToRecompute(producer));
    };
    // The pattern set of upstream's linalg-fuse-elementwise-ops, with the
    // control above for the fusion of generics.
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::ControlFusionFn singleUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    // A matmul stays a named op for spine-vectorize-matmul. Folding a
    // reshape of its operand into it (a tile of fp4 pairs unpacked by a join
    // and a collapse) made it a generic over a split K, into which
    // elementwise fusion then moved the operand's decoding: a scalar loop
    // decoding each element once per column (2.8 GFLOP/s).
    linalg::ControlFusionFn intoNonMatmul = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(fused->getOwner());
    };
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, intoNonMatmul);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, singleUse);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::spine
