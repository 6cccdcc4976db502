//===- ApproximateMath.cpp - math functions as vectorizable arithmetic ----===//
//
// A libm call per element keeps LLVM from vectorizing a loop (and on RISC-V
// there is no vector math library to fall back on). MLIR's polynomial
// approximations turn the f32 functions into plain arithmetic; functions
// without one are first expanded into ones that have (exp2 -> exp,
// sinh/cosh -> exp, ...).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::spine {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "passes/Passes.h.inc"

namespace {

struct ApproximateMathPass : impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Expansions into functions that have an approximation. Rounding and
    // sqrt are left alone: LLVM has native vector instructions for them.
    // pow is not expanded: exp(y * log(x)) is wrong for negative bases with
    // integral exponents, which pow defines.
    math::populateExpansionPatterns(
        patterns, {"sinh", "cosh", "asinh", "acosh", "atanh", "exp2"});
    // sin and cos stay libm calls: upstream's approximation reduces the
    // argument in f32, so its error grows with |x| (3e-4 at 1e4), too much
    // for e.g. rotary embeddings.
    // rsqrt's only approximation is x86vector's AVX2 one (for vector<8xf32>):
    // neither portable nor lowered by this pipeline, and its pattern crashes
    // where the x86vector dialect is not loaded. LLVM lowers 1/sqrt itself.
    auto approximated = [](StringRef name) {
      return name != math::SinOp::getOperationName() &&
             name != math::CosOp::getOperationName() &&
             name != math::RsqrtOp::getOperationName();
    };
    populateMathF32ExpansionPatterns(patterns, approximated);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::spine
