//===- ScheduleTilePrefetches.cpp - prefetch next tiles during the dot ----===//
//
// spine-vectorize-element-loops prefetches, from the loops that copy a tile,
// what the same loops read in the next iteration of the loop over tiles. When
// a matmul micro-kernel follows the copies (tl.dot's operands are packed),
// those prefetches come in one burst of misses, all of a tile's rows at once
// (each a page apart for a large matrix), while the copy's own loads wait for
// the same miss buffers, and they land in L1 a whole micro-kernel before
// they are read. Here they move into the micro-kernel: each of its (row
// block, column block) steps prefetches an even share of the next tiles'
// rows into L2, so the misses overlap with FMAs and the next copy reads from
// L2. On the tutorial matmul (one thread, Zen 3) that is 5-9% faster at
// 1024 and 2048 (docs/benchmarks.md); issuing them at one point of the
// micro-kernel instead, or only into L1, was slower than leaving them in the
// copy.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/TilePrefetch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::spine {
#define GEN_PASS_DEF_SCHEDULETILEPREFETCHES
#include "passes/Passes.h.inc"

namespace {

/// Prefetch into L2 (llvm.prefetch locality 2): L1 is busy with the
/// micro-kernel's accumulators and B panel until the copy runs.
constexpr int32_t kL2Locality = 2;

/// The trip count of a loop with constant bounds and positive step.
std::optional<int64_t> constantTrips(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub > *lb ? llvm::divideCeil(*ub - *lb, *step) : 0;
}

/// The first micro-kernel row loop with iterations that follows `op` in its
/// block, if any.
scf::ForOp rowLoopAfter(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (auto loop = dyn_cast<scf::ForOp>(next))
      if (loop->hasAttr(kMicroKernelRows) && constantTrips(loop).value_or(0))
        return loop;
  return {};
}

/// Whether `op` (and what it holds) at most reads memory. The LLVM loads
/// the vectorized copies use declare no effects, so they are listed.
bool onlyReads(Operation *op) {
  if (isa<LLVM::LoadOp, LLVM::MaskedLoadOp, LLVM::masked_gather>(op) ||
      isMemoryEffectFree(op))
    return true;
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
    return effects.onlyHasEffect<MemoryEffects::Read>();
  if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  return !op->walk([&](Operation *nested) {
              return nested == op || onlyReads(nested)
                         ? WalkResult::advance()
                         : WalkResult::interrupt();
            }).wasInterrupted();
}

/// Leaves of `copy` only what its prefetches need: every other op that
/// writes goes, then whatever has no use left and at most reads. False if
/// such a write has a result something uses.
bool prune(Operation *copy) {
  bool usedWrite = false;
  copy->walk<WalkOrder::PostOrder>([&](Operation *op) {
    if (op == copy || isa<LLVM::Prefetch>(op) || op->getNumRegions() != 0 ||
        onlyReads(op))
      return;
    if (!op->use_empty())
      usedWrite = true;
    else
      op->erase();
  });
  if (usedWrite)
    return false;
  bool changed = true;
  while (changed) {
    changed = false;
    copy->walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (op != copy && op->use_empty() && onlyReads(op) &&
          !op->hasTrait<OpTrait::IsTerminator>()) {
        op->erase();
        changed = true;
      }
    });
  }
  return true;
}

/// The outermost loops of `copy` when every prefetch in it lies in one and
/// each counts up by 1 between constant bounds (the rows of a tile), else
/// nothing: those loops are what gets divided among the row blocks.
SmallVector<scf::ForOp> rowLoopsOf(Operation *copy) {
  SmallVector<scf::ForOp> outer;
  bool divisible = true;
  copy->walk([&](LLVM::Prefetch prefetch) {
    scf::ForOp outermost;
    for (auto loop = prefetch->getParentOfType<scf::ForOp>();
         loop && copy->isAncestor(loop);
         loop = loop->getParentOfType<scf::ForOp>())
      outermost = loop;
    if (!outermost || !constantTrips(outermost) ||
        getConstantIntValue(outermost.getStep()) != 1)
      divisible = false;
    else if (!llvm::is_contained(outer, outermost))
      outer.push_back(outermost);
  });
  return divisible ? outer : SmallVector<scf::ForOp>();
}

struct ScheduleTilePrefetchesPass
    : impl::ScheduleTilePrefetchesBase<ScheduleTilePrefetchesPass> {
  using Base::Base;

  void runOnOperation() override {
    // The outermost op holding next-iteration prefetches (a copy's loop
    // nest, or the versions around it) in the block of a micro-kernel row
    // loop that follows it.
    llvm::MapVector<scf::ForOp, SmallVector<Operation *>> nests;
    DenseSet<Operation *> seen;
    getOperation().walk([&](LLVM::Prefetch prefetch) {
      if (!prefetch->hasAttr(kNextIterationPrefetch))
        return;
      for (Operation *op = prefetch->getParentOp();
           op && !isa<func::FuncOp>(op); op = op->getParentOp()) {
        if (scf::ForOp rows = rowLoopAfter(op)) {
          if (seen.insert(op).second)
            nests[rows].push_back(op);
          return;
        }
      }
    });
    for (auto &[rows, ops] : nests)
      schedule(rows, ops);
  }

  /// Moves the prefetches of `nests` into the micro-kernel `rows`: at the
  /// start of each (row block, column block) step, a copy of each nest that
  /// only computes addresses and prefetches, its loops over rows cut to
  /// that step's share of the rows.
  static void schedule(scf::ForOp rows, ArrayRef<Operation *> nests) {
    // The loop over column blocks is the row loop's first (one with
    // iterations, as spine-vectorize-matmul makes it); without one the
    // prefetches stay in the copies.
    scf::ForOp cols;
    for (Operation &op : *rows.getBody())
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (constantTrips(loop).value_or(0))
          cols = loop;
        break;
      }
    if (!cols)
      return;
    int64_t colBlocks = *constantTrips(cols);
    int64_t blocks = *constantTrips(rows) * colBlocks;
    Location loc = rows.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(cols.getBody());
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    // The number of the current (row block, column block) step, made once
    // something uses it.
    Value block;
    auto blockNumber = [&]() {
      if (block)
        return block;
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(cols.getBody());
      auto number = [&](scf::ForOp loop) -> Value {
        return arith::DivUIOp::create(
            b, loc,
            arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                  loop.getLowerBound()),
            loop.getStep());
      };
      Value row = number(rows);
      Value col = number(cols);
      block = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, index(colBlocks)), col);
      return block;
    };
    for (Operation *nest : nests) {
      Operation *copy = b.clone(*nest);
      SmallVector<scf::ForOp> rowLoops;
      if (prune(copy))
        rowLoops = rowLoopsOf(copy);
      if (rowLoops.empty()) {
        copy->erase();
        continue;
      }
      for (scf::ForOp loop : rowLoops) {
        // Block i of n takes rows [ceil(i R / n), ceil((i + 1) R / n)) of
        // the R rows: spread evenly, also when there are fewer rows than
        // blocks.
        int64_t lb = *getConstantIntValue(loop.getLowerBound());
        int64_t count = *constantTrips(loop);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(loop);
        auto firstRowOf = [&](Value i) -> Value {
          Value scaled = arith::MulIOp::create(b, loc, i, index(count));
          Value rounded =
              arith::AddIOp::create(b, loc, scaled, index(blocks - 1));
          return arith::AddIOp::create(
              b, loc, index(lb),
              arith::DivUIOp::create(b, loc, rounded, index(blocks)));
        };
        Value begin = firstRowOf(blockNumber());
        Value end =
            firstRowOf(arith::AddIOp::create(b, loc, blockNumber(), index(1)));
        loop.getLowerBoundMutable().assign(begin);
        loop.getUpperBoundMutable().assign(end);
      }
      copy->walk([&](LLVM::Prefetch prefetch) {
        prefetch->removeAttr(kNextIterationPrefetch);
        prefetch.setHintAttr(b.getI32IntegerAttr(kL2Locality));
      });
      nest->walk([](LLVM::Prefetch prefetch) {
        if (prefetch->hasAttr(kNextIterationPrefetch))
          prefetch->erase();
      });
    }
  }
};

} // namespace
} // namespace mlir::spine
