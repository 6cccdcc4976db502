//===- MathApproximations.h - our vector math functions ---------*- C++ -*-===//
//
// Patterns that replace math ops upstream has no accurate approximation for
// by vectorizable arithmetic: f64 exp, exp2, log, log2, expm1, log1p, tanh,
// erf, pow, sin, cos and tan, and f32 sin, cos, tan and pow, computed in f64 so
// that one rounding to f32 at the end is nearly all the error; f32 atan and
// atan2; and the hyperbolic functions of both, in terms of the others. They run
// in spine-approximate-math, before SCF is lowered: sin, cos and tan arguments
// outside the range their reduction is exact for take a branch to libm.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_MATHAPPROXIMATIONS_H
#define SPINE_TRITON_PASSES_MATHAPPROXIMATIONS_H

#include "passes/ElementwiseBuilder.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::spine {

/// Rewrites f64 `Op` by `compute(builder, operand)`.
template <typename Op> struct F64Function : OpRewritePattern<Op> {
  using Compute = Value (*)(ElementwiseBuilder &, Value);
  F64Function(MLIRContext *context, Compute compute)
      : OpRewritePattern<Op>(context), compute(compute) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF64())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, compute(e, op.getOperand()));
    return success();
  }

  Compute compute;
};

/// What an f64 exp or log gets right: all 53 bits over the whole f64 range,
/// or enough for a result that is rounded to f32 (arguments from f32 values,
/// exp's clamped to +-200, shorter series).
enum class F64Accuracy { Full, ForF32 };

/// exp and log of f64 values shaped like `e`'s shape, every input included
/// (ExpLogF64.cpp).
Value expF64(ElementwiseBuilder &e, Value x,
             F64Accuracy accuracy = F64Accuracy::Full);
Value logF64(ElementwiseBuilder &e, Value x,
             F64Accuracy accuracy = F64Accuracy::Full);

/// log x as hi + lo, about 2^-64 relative error, for finite x > 0 (anything
/// for other x); exp(hi + lo) for such a pair scaled (y log x for pow): every
/// hi, lo ignored beyond +-746 (ExpLogF64.cpp).
std::pair<Value, Value> logF64Extended(ElementwiseBuilder &e, Value x);
Value expF64Extended(ElementwiseBuilder &e, Value hi, Value lo);

/// f64 exp, exp2, log, log2, expm1, log1p and tanh (ExpLogF64.cpp).
void populateExpLogF64Patterns(RewritePatternSet &patterns);

/// f64 erf (ErfF64.cpp).
void populateErfF64Patterns(RewritePatternSet &patterns);

/// f32 and f64 sin, cos and tan (SinCosApproximation.cpp).
void populateSinCosApproximationPatterns(RewritePatternSet &patterns);

/// f32 and f64 pow (PowApproximation.cpp).
void populatePowApproximationPatterns(RewritePatternSet &patterns);

/// f32 atan and atan2 (AtanApproximation.cpp).
void populateAtanApproximationPatterns(RewritePatternSet &patterns);

/// f32 and f64 sinh, cosh, asinh, acosh and atanh in terms of exp, expm1,
/// log, log1p and sqrt (HyperbolicFunctions.cpp).
void populateHyperbolicFunctionPatterns(RewritePatternSet &patterns);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_MATHAPPROXIMATIONS_H
