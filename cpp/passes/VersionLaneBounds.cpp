//===- VersionLaneBounds.cpp - element loops whose index masks hold -------===//
//
// `tl.where(cols < N, x - mean, 0.0)` compares every element's index with a
// run-time bound. Loads and stores behind such masks have versions for the
// case where the whole block is in bounds already (AccessVersions.h, the
// store versions of the Triton-to-Linalg conversion); a select does not, and
// vectorized it builds, compares and blends an index vector in every strip.
// Here an innermost element loop with constant bounds that compares its
// induction variable (cast to an integer) with a value from outside the loop
// and uses the result other than as an scf.if condition is versioned: when
// each such compare holds at the loop's first and last iteration, and so at
// every iteration in between, a copy of the loop runs with the compares
// replaced by `true`, folded (a select on one keeps its first value);
// otherwise the loop as it was. Tutorial 05's layer norm, whose variance
// walk has such a select: 1.03-1.14 -> 0.94-0.98 cycles per element in cache
// (docs/benchmarks.md, session 12).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::spine {
#define GEN_PASS_DEF_VERSIONLANEBOUNDS
#include "passes/Passes.h.inc"

namespace {

/// Loops with more ops than this are not copied.
constexpr int64_t kMaxVersionedOps = 256;

/// The predicate with its operands swapped: `a p b` is `b swap(p) a`.
arith::CmpIPredicate swapOperands(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  default:
    return p;
  }
}

/// A compare of the loop's induction variable, cast to an integer type, with
/// a bound defined outside the loop: `iv predicate bound`.
struct LaneBound {
  arith::CmpIOp cmp;
  arith::CmpIPredicate predicate;
  Value bound;
};

std::optional<LaneBound> asLaneBound(arith::CmpIOp cmp, scf::ForOp loop) {
  auto isIv = [&](Value v) {
    auto cast = v.getDefiningOp<arith::IndexCastOp>();
    return cast && cast.getIn() == loop.getInductionVar();
  };
  bool ivLeft = isIv(cmp.getLhs()), ivRight = isIv(cmp.getRhs());
  if (ivLeft == ivRight || cmp.getPredicate() == arith::CmpIPredicate::eq ||
      cmp.getPredicate() == arith::CmpIPredicate::ne)
    return std::nullopt;
  Value bound = ivLeft ? cmp.getRhs() : cmp.getLhs();
  if (!loop.isDefinedOutsideOfLoop(bound))
    return std::nullopt;
  return LaneBound{
      cmp, ivLeft ? cmp.getPredicate() : swapOperands(cmp.getPredicate()),
      bound};
}

/// Whether `value` used anywhere but as an scf.if condition: the masks of
/// loads and stores have their versions elsewhere.
bool feedsArithmetic(Value value) {
  return llvm::any_of(value.getUsers(),
                      [](Operation *user) { return !isa<scf::IfOp>(user); });
}

/// The compares of `loop` worth a version, if the loop can have one: no
/// results, constant bounds whose iterations fit the compares' integer
/// types, a body small enough to copy.
SmallVector<LaneBound> getLaneBounds(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  if (loop.getNumResults() != 0 || !lb || !ub || *lb < 0 || *ub <= *lb)
    return {};
  SmallVector<LaneBound> bounds;
  bool arithmetic = false;
  int64_t ops = 0;
  loop.getBody()->walk([&](Operation *op) {
    ++ops;
    auto cmp = dyn_cast<arith::CmpIOp>(op);
    if (!cmp)
      return;
    std::optional<LaneBound> bound = asLaneBound(cmp, loop);
    if (!bound ||
        !llvm::isIntN(cmp.getLhs().getType().getIntOrFloatBitWidth(), *ub))
      return;
    bounds.push_back(*bound);
    arithmetic |= feedsArithmetic(cmp.getResult());
  });
  if (!arithmetic || ops > kMaxVersionedOps)
    return {};
  return bounds;
}

/// An i1 that holds when `bound`'s compare holds at every iteration of
/// [lb, ub): at the last one for `iv < bound` and `iv <= bound`, at the
/// first for `>` and `>=` (signed or unsigned alike).
Value holdsThroughout(OpBuilder &b, Location loc, const LaneBound &bound,
                      int64_t lb, int64_t ub) {
  using P = arith::CmpIPredicate;
  bool upper =
      llvm::is_contained({P::slt, P::sle, P::ult, P::ule}, bound.predicate);
  Type type = bound.bound.getType();
  Value extreme = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, upper ? ub - 1 : lb));
  return arith::CmpIOp::create(b, loc, bound.predicate, extreme, bound.bound);
}

void version(scf::ForOp loop, ArrayRef<LaneBound> bounds) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  int64_t lb = *getConstantIntValue(loop.getLowerBound());
  int64_t ub = *getConstantIntValue(loop.getUpperBound());
  Value inBounds;
  for (const LaneBound &bound : bounds) {
    Value holds = holdsThroughout(b, loc, bound, lb, ub);
    inBounds =
        inBounds ? arith::AndIOp::create(b, loc, inBounds, holds) : holds;
  }
  auto versions = scf::IfOp::create(b, loc, TypeRange(), inBounds,
                                    /*withElseRegion=*/true);
  b.setInsertionPoint(versions.thenBlock()->getTerminator());
  Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
  IRMapping map;
  auto copy = cast<scf::ForOp>(b.clone(*loop, map));
  for (LaneBound bound : bounds) {
    Operation *cmp = map.lookup(bound.cmp.getOperation());
    cmp->replaceAllUsesWith(ValueRange(yes));
    cmp->erase();
  }
  // Folding alone (no patterns) reduces what reads the compares: selects
  // on true, ands with true, the casts left unused.
  (void)applyPatternsGreedily(copy.getRegion(), FrozenRewritePatternSet());
  loop->moveBefore(versions.elseBlock()->getTerminator());
}

struct VersionLaneBoundsPass
    : impl::VersionLaneBoundsBase<VersionLaneBoundsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, SmallVector<LaneBound>>> loops;
    getOperation().walk([&](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](LoopLikeOpInterface) { innermost = false; });
      if (!innermost)
        return;
      if (SmallVector<LaneBound> bounds = getLaneBounds(loop); !bounds.empty())
        loops.emplace_back(loop, std::move(bounds));
    });
    for (auto &[loop, bounds] : loops)
      version(loop, bounds);
  }
};

} // namespace
} // namespace mlir::spine
