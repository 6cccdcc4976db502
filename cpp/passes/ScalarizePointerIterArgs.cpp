//===- ScalarizePointerIterArgs.cpp - scalar offsets for loop pointers ----===//
//
// Triton kernels advance blocks of pointers in their K loops
// (`a_ptrs += BLOCK_K * stride_ak`). Carried as is, that is a tensor of
// addresses rewritten every iteration. When every element advances by the
// same amount, the pointers at iteration k are `init + offset_k` with a scalar
// offset_k, so the loop carries that scalar instead and the pointers are
// rebuilt from the loop-invariant `init` where they are used.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::spine {
#define GEN_PASS_DEF_SCALARIZEPOINTERITERARGS
#include "passes/Passes.h.inc"

namespace {

/// The scalar every element of `offset` equals, if it is uniform: a splat of
/// a scalar or a splat constant. Returned as i64.
Value getUniformOffset(OpBuilder &b, Location loc, Value offset) {
  Value scalar;
  if (auto splat = offset.getDefiningOp<triton::SplatOp>()) {
    scalar = splat.getSrc();
  } else if (auto constant = offset.getDefiningOp<arith::ConstantOp>()) {
    auto dense = dyn_cast<SplatElementsAttr>(constant.getValue());
    if (!dense)
      return {};
    scalar =
        arith::ConstantOp::create(b, loc, dense.getSplatValue<TypedAttr>());
  } else {
    return {};
  }
  if (scalar.getType() != b.getI64Type())
    scalar = arith::ExtSIOp::create(b, loc, b.getI64Type(), scalar);
  return scalar;
}

/// `init` advanced by the scalar element offset `offset`.
Value advance(OpBuilder &b, Location loc, Value init, Value offset) {
  auto type = cast<RankedTensorType>(init.getType());
  auto offsetType = RankedTensorType::get(type.getShape(), b.getI64Type());
  Value offsets = triton::SplatOp::create(b, loc, offsetType, offset);
  return triton::AddPtrOp::create(b, loc, type, init, offsets);
}

/// Rewrites iter arg `index` of `loop` if it qualifies; returns the new loop.
scf::ForOp scalarize(scf::ForOp loop, unsigned index) {
  BlockArgument arg = loop.getRegionIterArg(index);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  auto step = yield.getOperand(index).getDefiningOp<triton::AddPtrOp>();
  if (!step || step.getPtr() != arg)
    return loop;
  Location loc = step.getLoc();
  OpBuilder b(step);
  Value increment = getUniformOffset(b, loc, step.getOffset());
  if (!increment)
    return loop;
  Value init = loop.getInitArgs()[index];

  IRRewriter rewriter(loop);
  rewriter.setInsertionPoint(loop);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
  auto result = loop.replaceWithAdditionalYields(
      rewriter, zero, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location, ArrayRef<BlockArgument> newArgs) {
        return SmallVector<Value>{
            arith::AddIOp::create(b, loc, newArgs[0], increment)};
      });
  if (failed(result))
    return loop;
  auto newLoop = cast<scf::ForOp>(result->getOperation());
  BlockArgument newArg = newLoop.getRegionIterArg(index);
  Value offset = newLoop.getRegionIterArgs().back();

  // Inside: the pointers of this iteration; the old carried tensor only
  // passes through, so canonicalization drops it.
  rewriter.setInsertionPointToStart(newLoop.getBody());
  Value current = advance(rewriter, loc, init, offset);
  rewriter.replaceAllUsesWith(newArg, current);
  auto newYield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
  newYield.setOperand(index, newArg);

  // After: the final pointers, for any user of the loop result.
  Value result0 = newLoop.getResult(index);
  if (!result0.use_empty()) {
    rewriter.setInsertionPointAfter(newLoop);
    Value final = advance(rewriter, loc, init, newLoop.getResults().back());
    rewriter.replaceAllUsesWith(result0, final);
  }
  return newLoop;
}

struct ScalarizePointerIterArgsPass
    : impl::ScalarizePointerIterArgsBase<ScalarizePointerIterArgsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      unsigned numIterArgs = loop.getNumRegionIterArgs();
      for (unsigned i = 0; i < numIterArgs; ++i) {
        auto type =
            dyn_cast<RankedTensorType>(loop.getRegionIterArg(i).getType());
        if (type && isa<triton::PointerType>(type.getElementType()))
          loop = scalarize(loop, i);
      }
    }
  }
};

} // namespace
} // namespace mlir::spine
