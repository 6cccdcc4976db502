//===- PeelConstantAccumulators.cpp - first iteration sees the constant ---===//
//
// `acc = tl.zeros([BLOCK]); for ...: acc += x` carries a block through the
// loop that starts as a constant. Bufferized as written, every entry to the
// loop fills a buffer with the constant (a memset of the whole block) and the
// first iteration reads it back. Peeling the first iteration lets it see the
// constant itself, which later passes fold into its arithmetic: the first
// `acc + x` writes a fresh block from `x` alone. The peeled iteration and
// the rest of the loop run under the loop's own condition, so a loop that
// runs zero times still yields the constant, and the rest of the loop never
// carries the (read-only) constant itself.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::spine {
#define GEN_PASS_DEF_PEELCONSTANTACCUMULATORS
#include "passes/Passes.h.inc"

namespace {

/// Bodies larger than this are not duplicated: the saving is one pass over a
/// block, the cost a second copy of everything the loop does.
constexpr int64_t kMaxPeeledOps = 128;

/// True for a tensor iter_arg that starts as a splat constant.
bool startsAsSplat(Value init) {
  if (!isa<RankedTensorType>(init.getType()))
    return false;
  SplatElementsAttr splat;
  return matchPattern(init, m_Constant(&splat));
}

/// A loop worth peeling: it carries a splat-constant block, and its body is
/// small, flat (no nested loops) and has no tl.dot (a matmul's accumulator
/// is kept in registers by the micro-kernel, not filled per iteration).
bool worthPeeling(scf::ForOp loop) {
  if (!llvm::any_of(loop.getInitArgs(), startsAsSplat))
    return false;
  int64_t ops = 0;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (++ops > kMaxPeeledOps || isa<LoopLikeOpInterface>(op) ||
        isa<triton::DotOp, triton::DotScaledOp>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// Rewrites `results = for iv = lb to ub step s iter_args(inits)` into
///
///   results = if (lb < ub) {
///     firsts = body(lb, inits)
///     yield (for iv = lb + s to ub step s iter_args(firsts))
///   } else { yield inits }
///
/// The remaining loop starts from the first iteration's fresh blocks, which
/// it may update in place; the constants are only ever read.
void peelFirstIteration(scf::ForOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  auto predicate = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                         : arith::CmpIPredicate::slt;
  Value entered = arith::CmpIOp::create(b, loc, predicate, lb, ub);
  auto peeled = scf::IfOp::create(b, loc, loop.getResultTypes(), entered,
                                  /*withElseRegion=*/true);
  loop->replaceAllUsesWith(peeled.getResults());

  b.setInsertionPointToStart(peeled.elseBlock());
  scf::YieldOp::create(b, loc, loop.getInitArgs());

  b.setInsertionPointToStart(peeled.thenBlock());
  IRMapping map;
  map.map(loop.getInductionVar(), lb);
  map.map(loop.getRegionIterArgs(), loop.getInitArgs());
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  SmallVector<Value> firsts;
  for (Value v : loop.getBody()->getTerminator()->getOperands())
    firsts.push_back(map.lookupOrDefault(v));
  Value second = arith::AddIOp::create(b, loc, lb, loop.getStep());
  loop->moveBefore(peeled.thenBlock(), peeled.thenBlock()->end());
  loop.getInitArgsMutable().assign(firsts);
  loop.setLowerBound(second);
  b.setInsertionPointAfter(loop);
  scf::YieldOp::create(b, loc, loop.getResults());
}

struct PeelConstantAccumulatorsPass
    : impl::PeelConstantAccumulatorsBase<PeelConstantAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (worthPeeling(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      peelFirstIteration(loop);
  }
};

} // namespace
} // namespace mlir::spine
