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
// When only reductions read the loop's blocks (layer norm's `mean =
// tl.sum(_mean)` after `_mean += a`), the peeled iteration is versioned on
// whether the rest of the loop runs at all, and the reductions move into
// every version: a loop over column blocks that makes one trip (a row that
// fits one block, the common case) then reduces its single block as it is
// computed, instead of writing it to a buffer and walking it again.
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

/// Clones `loop`'s body at `b` for its first iteration (lb, with the
/// constants for the iter_args) and returns what that iteration yields.
SmallVector<Value> cloneFirstIteration(OpBuilder &b, scf::ForOp loop) {
  IRMapping map;
  map.map(loop.getInductionVar(), loop.getLowerBound());
  map.map(loop.getRegionIterArgs(), loop.getInitArgs());
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  SmallVector<Value> firsts;
  for (Value v : loop.getBody()->getTerminator()->getOperands())
    firsts.push_back(map.lookupOrDefault(v));
  return firsts;
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
  SmallVector<Value> firsts = cloneFirstIteration(b, loop);
  Value second = arith::AddIOp::create(b, loc, lb, loop.getStep());
  loop->moveBefore(peeled.thenBlock(), peeled.thenBlock()->end());
  loop.getInitArgsMutable().assign(firsts);
  loop.setLowerBound(second);
  b.setInsertionPointAfter(loop);
  scf::YieldOp::create(b, loc, loop.getResults());
}

/// The reductions reading `loop`'s results, if they are the results' only
/// users: each a tt.reduce in the loop's block whose operands all are results
/// of the loop. Empty otherwise.
SmallVector<triton::ReduceOp> getOnlyReductions(scf::ForOp loop) {
  SmallVector<triton::ReduceOp> reductions;
  for (Operation *user : loop->getUsers()) {
    auto reduce = dyn_cast<triton::ReduceOp>(user);
    if (!reduce || reduce->getBlock() != loop->getBlock() ||
        llvm::any_of(reduce.getOperands(), [&](Value operand) {
          return operand.getDefiningOp() != loop;
        }))
      return {};
    if (!llvm::is_contained(reductions, reduce))
      reductions.push_back(reduce);
  }
  return reductions;
}

/// Clones `reductions` at `b`'s insertion point with the loop's results read
/// as `blocks`, and yields what they compute.
void yieldReductions(OpBuilder &b, Location loc, scf::ForOp loop,
                     ArrayRef<triton::ReduceOp> reductions, ValueRange blocks) {
  IRMapping map;
  map.map(loop.getResults(), blocks);
  SmallVector<Value> reduced;
  for (triton::ReduceOp reduce : reductions)
    llvm::append_range(reduced, b.clone(*reduce, map)->getResults());
  scf::YieldOp::create(b, loc, reduced);
}

/// Rewrites `reductions(for iv = lb to ub step s iter_args(inits))`, the
/// loop's results read only by `reductions`, into
///
///   if (lb < ub) {
///     if (lb + s < ub) {
///       firsts = body(lb, inits)
///       yield reductions(for iv = lb + s to ub step s iter_args(firsts))
///     } else { yield reductions(body(lb, inits)) }
///   } else { yield reductions(inits) }
///
/// so that a loop making one trip reduces the block it computes without the
/// block being kept for the rest of the loop.
void peelAndVersion(scf::ForOp loop, ArrayRef<triton::ReduceOp> reductions) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  auto predicate = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                         : arith::CmpIPredicate::slt;
  SmallVector<Type> types;
  for (triton::ReduceOp reduce : reductions)
    llvm::append_range(types, reduce->getResultTypes());

  Value entered = arith::CmpIOp::create(b, loc, predicate, lb, ub);
  auto outer = scf::IfOp::create(b, loc, types, entered,
                                 /*withElseRegion=*/true);
  b.setInsertionPointToStart(outer.elseBlock());
  yieldReductions(b, loc, loop, reductions, loop.getInitArgs());

  b.setInsertionPointToStart(outer.thenBlock());
  Value second = arith::AddIOp::create(b, loc, lb, loop.getStep());
  Value more = arith::CmpIOp::create(b, loc, predicate, second, ub);
  auto inner = scf::IfOp::create(b, loc, types, more, /*withElseRegion=*/true);
  scf::YieldOp::create(b, loc, inner.getResults());

  b.setInsertionPointToStart(inner.elseBlock());
  yieldReductions(b, loc, loop, reductions, cloneFirstIteration(b, loop));

  b.setInsertionPointToStart(inner.thenBlock());
  SmallVector<Value> firsts = cloneFirstIteration(b, loop);
  loop->moveBefore(inner.thenBlock(), inner.thenBlock()->end());
  loop.getInitArgsMutable().assign(firsts);
  loop.setLowerBound(second);
  b.setInsertionPointAfter(loop);
  yieldReductions(b, loc, loop, reductions, loop.getResults());

  ValueRange results = outer.getResults();
  for (triton::ReduceOp reduce : reductions) {
    unsigned n = reduce->getNumResults();
    reduce->replaceAllUsesWith(results.take_front(n));
    results = results.drop_front(n);
    reduce->erase();
  }
}

struct PeelConstantAccumulatorsPass
    : impl::PeelConstantAccumulatorsBase<PeelConstantAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (worthPeeling(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      SmallVector<triton::ReduceOp> reductions = getOnlyReductions(loop);
      if (reductions.empty())
        peelFirstIteration(loop);
      else
        peelAndVersion(loop, reductions);
    }
  }
};

} // namespace
} // namespace mlir::spine
