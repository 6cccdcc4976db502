//===- FuseElementLoops.cpp - one walk over a block instead of several ----===//
//
// convert-linalg-to-loops makes each linalg op its own loop over the block:
// softmax's row copy, its maximum, its exponentials and their sum each walk
// the row once, and every walk but the first reads what the one before it
// wrote to a tile buffer. Here a loop that reads, element for element, a tile
// buffer the loop just before it writes (the same element in the same
// iteration) is merged into that loop: the value passes from one body to the
// next in a register, and a buffer nothing else reads is no longer written.
// A reduction (seeded with its neutral element, so that it walks the whole
// block like its producer) merges into the loop that computes its operands.
//
// Two loops merge only when every pair of their accesses that may touch the
// same memory, one of them a write, touches the same element in the same
// iteration: then no iteration of the merged loop reads or writes what a
// later iteration of the first loop would have changed. Tile buffers the
// kernel allocates alias nothing else; memory reached through pointers or
// views may alias any other such memory, so a loop that stores through a
// pointer never merges with one that reaches that memory. Ops between the two
// loops move above the first or below the second where their operands and
// memory allow; a loop versioned by an scf.if (the access versions of
// tl.load) takes a copy of the following loop into each branch.
//
//===----------------------------------------------------------------------===//

#include "passes/IterationEvaluator.h"
#include "passes/Passes.h"
#include "passes/TileBuffer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::spine {
#define GEN_PASS_DEF_FUSEELEMENTLOOPS
#include "passes/Passes.h.inc"

namespace {

/// One read or write of memory in a loop body.
struct Access {
  Operation *op;
  bool write;
  /// The buffer and indices of a memref access; null for llvm.load/store,
  /// which reach memory through a pointer.
  Value memref;
  ValueRange indices;
};

/// The accesses of an innermost loop without results whose body only
/// computes, branches (scf.if) and reads or writes memory (memref or llvm
/// load/store, not atomic or volatile); nullopt for any other loop.
std::optional<SmallVector<Access>> getElementLoopAccesses(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return std::nullopt;
  SmallVector<Access> accesses;
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (isa<scf::IfOp, scf::YieldOp>(op))
      return WalkResult::advance();
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      accesses.push_back({op, false, load.getMemRef(), load.getIndices()});
      return WalkResult::advance();
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      accesses.push_back({op, true, store.getMemRef(), store.getIndices()});
      return WalkResult::advance();
    }
    // Plain (not atomic, not volatile) accesses through pointers.
    auto plain = [&](auto access, bool write) {
      if (access.getVolatile_() ||
          access.getOrdering() != LLVM::AtomicOrdering::not_atomic)
        return WalkResult::interrupt();
      accesses.push_back({op, write, Value(), ValueRange()});
      return WalkResult::advance();
    };
    if (auto load = dyn_cast<LLVM::LoadOp>(op))
      return plain(load, /*write=*/false);
    if (auto store = dyn_cast<LLVM::StoreOp>(op))
      return plain(store, /*write=*/true);
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return std::nullopt;
  return accesses;
}

/// The memory effects of an op between two loops, as accesses; nullopt if
/// it has regions or touches memory otherwise than by a memref load, store or
/// copy. A stack buffer's alloca touches nothing: a reduction's seed is often
/// one (filled, then copied into its accumulator) between it and the loop
/// computing its operands.
std::optional<SmallVector<Access>> getAccessesBetween(Operation *op) {
  if (op->getNumRegions() != 0)
    return std::nullopt;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return SmallVector<Access>{
        {op, false, load.getMemRef(), load.getIndices()}};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return SmallVector<Access>{
        {op, true, store.getMemRef(), store.getIndices()}};
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return SmallVector<Access>{{op, false, copy.getSource(), ValueRange()},
                               {op, true, copy.getTarget(), ValueRange()}};
  if (isa<memref::AllocaOp>(op))
    return SmallVector<Access>{};
  if (isMemoryEffectFree(op))
    return SmallVector<Access>{};
  return std::nullopt;
}

bool mayAlias(const Access &a, const Access &b) {
  Value rootA = a.memref ? rootBuffer(a.memref) : Value();
  Value rootB = b.memref ? rootBuffer(b.memref) : Value();
  bool tileA = rootA && isTileBuffer(rootA);
  bool tileB = rootB && isTileBuffer(rootB);
  if (tileA || tileB)
    return rootA == rootB;
  return true; // pointers and views of memory the kernel was given
}

bool mayConflict(ArrayRef<Access> as, ArrayRef<Access> bs) {
  for (const Access &a : as)
    for (const Access &b : bs)
      if ((a.write || b.write) && mayAlias(a, b))
        return true;
  return false;
}

/// Whether `a` in iteration i of `first` and `b` in iteration i of `second`
/// access one element, which no other iteration of either loop accesses:
/// the same buffer at the same indices, one of them each loop's induction
/// variable, the others the same values.
bool isSameElement(const Access &a, scf::ForOp first, const Access &b,
                   scf::ForOp second) {
  if (!a.memref || a.memref != b.memref || a.indices.size() != b.indices.size())
    return false;
  bool atIv = false;
  for (auto [x, y] : llvm::zip(a.indices, b.indices)) {
    bool xIv = x == first.getInductionVar();
    bool yIv = y == second.getInductionVar();
    if (xIv != yIv || (!xIv && x != y))
      return false;
    atIv |= xIv;
  }
  return atIv;
}

bool haveSameBounds(scf::ForOp a, scf::ForOp b) {
  auto same = [](Value x, Value y) {
    if (x == y)
      return true;
    std::optional<int64_t> cx = getConstantIntValue(x);
    std::optional<int64_t> cy = getConstantIntValue(y);
    return cx && cy && *cx == *cy && x.getType() == y.getType();
  };
  return same(a.getLowerBound(), b.getLowerBound()) &&
         same(a.getUpperBound(), b.getUpperBound()) &&
         same(a.getStep(), b.getStep());
}

/// Whether `second`, run right after `first`, can run in the same loop, and
/// whether that saves a walk over a buffer: `second` reads an element of a
/// tile buffer `first` writes.
bool canMerge(scf::ForOp first, ArrayRef<Access> firstAccesses,
              scf::ForOp second, ArrayRef<Access> secondAccesses) {
  if (!haveSameBounds(first, second))
    return false;
  bool passesValue = false;
  for (const Access &a : firstAccesses)
    for (const Access &b : secondAccesses) {
      if (!(a.write || b.write) || !mayAlias(a, b))
        continue;
      if (!isSameElement(a, first, b, second))
        return false;
      passesValue |= a.write && !b.write && isTileBuffer(rootBuffer(a.memref));
    }
  return passesValue;
}

/// Replaces the reads in `body` (at its top level) of an element stored
/// earlier in it by the stored value, where nothing in between may write the
/// buffer.
void forwardStores(Block *body) {
  for (auto load : llvm::make_early_inc_range(body->getOps<memref::LoadOp>())) {
    Value root = rootBuffer(load.getMemRef());
    if (!isTileBuffer(root))
      continue;
    for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode()) {
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        if (store.getMemRef() == load.getMemRef() &&
            store.getIndices() == load.getIndices()) {
          load.replaceAllUsesWith(store.getValueToStore());
          load.erase();
          break;
        }
        if (rootBuffer(store.getMemRef()) == root)
          break;
        continue;
      }
      if (op->getNumRegions() == 0 && isMemoryEffectFree(op))
        continue;
      if (isa<memref::LoadOp, LLVM::LoadOp>(op))
        continue;
      // A store through a pointer cannot reach a tile buffer; anything with
      // regions might write it.
      if (isa<LLVM::StoreOp>(op))
        continue;
      break;
    }
  }
}

/// Moves `second`'s body to the end of `first`'s, on `first`'s induction
/// variable, and erases `second`.
void merge(scf::ForOp first, scf::ForOp second) {
  Block *from = second.getBody();
  Block *to = first.getBody();
  from->getArgument(0).replaceAllUsesWith(first.getInductionVar());
  to->getOperations().splice(to->getTerminator()->getIterator(),
                             from->getOperations(), from->begin(),
                             from->getTerminator()->getIterator());
  second.erase();
  forwardStores(to);
}

/// The one loop of an scf.if branch whose other ops compute without side
/// effects, if it is the branch's last op.
scf::ForOp getBranchLoop(Block *block) {
  if (!block)
    return {};
  scf::ForOp loop;
  for (Operation &op : block->without_terminator()) {
    if (loop)
      return {};
    if (auto inner = dyn_cast<scf::ForOp>(op)) {
      loop = inner;
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return {};
  }
  return loop;
}

/// The loops `second` would merge into when it follows `op`: `op` itself, or
/// the loop ending each branch of an scf.if without results (the versions of
/// a tl.load).
SmallVector<scf::ForOp> getProducerLoops(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return {loop};
  auto ifOp = dyn_cast<scf::IfOp>(op);
  if (!ifOp || ifOp.getNumResults() != 0 || !ifOp.elseBlock())
    return {};
  scf::ForOp thenLoop = getBranchLoop(ifOp.thenBlock());
  scf::ForOp elseLoop = getBranchLoop(ifOp.elseBlock());
  if (!thenLoop || !elseLoop)
    return {};
  return {thenLoop, elseLoop};
}

/// Moves the ops between `producer` and `consumer` out of the way: above
/// `producer` when their operands are available there and their memory
/// accesses do not conflict with it, else below `consumer` when it does not
/// use them and their accesses do not conflict with it. False, with nothing
/// moved, if some op can go neither way.
bool makeAdjacent(Operation *producer, ArrayRef<Access> producerAccesses,
                  scf::ForOp consumer, ArrayRef<Access> consumerAccesses) {
  SmallVector<Operation *> above, below;
  llvm::SmallPtrSet<Operation *, 8> belowSet;
  // Ops staying below must keep their order with the ones moving above.
  SmallVector<Access> belowAccesses;
  for (Operation *op = producer->getNextNode(); op != consumer;
       op = op->getNextNode()) {
    std::optional<SmallVector<Access>> accesses = getAccessesBetween(op);
    if (!accesses)
      return false;
    bool operandsAbove = llvm::none_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && (def == producer || belowSet.contains(def));
    });
    if (operandsAbove && !mayConflict(*accesses, producerAccesses) &&
        !mayConflict(*accesses, belowAccesses)) {
      above.push_back(op);
      continue;
    }
    bool usedByConsumer = llvm::any_of(op->getUsers(), [&](Operation *user) {
      return consumer->isAncestor(user);
    });
    if (usedByConsumer || mayConflict(*accesses, consumerAccesses))
      return false;
    below.push_back(op);
    belowSet.insert(op);
    belowAccesses.append(*accesses);
  }
  for (Operation *op : above)
    op->moveBefore(producer);
  for (Operation *op : llvm::reverse(below))
    op->moveAfter(consumer);
  return true;
}

/// Merges `consumer` into the loop(s) of the nearest op with regions before
/// it, if that is legal and saves a walk.
bool tryFuse(scf::ForOp consumer) {
  std::optional<SmallVector<Access>> consumerAccesses =
      getElementLoopAccesses(consumer);
  if (!consumerAccesses)
    return false;
  Operation *producer = consumer->getPrevNode();
  while (producer && producer->getNumRegions() == 0)
    producer = producer->getPrevNode();
  if (!producer)
    return false;
  SmallVector<scf::ForOp> loops = getProducerLoops(producer);
  if (loops.empty())
    return false;
  SmallVector<Access> producerAccesses;
  for (scf::ForOp loop : loops) {
    std::optional<SmallVector<Access>> accesses = getElementLoopAccesses(loop);
    if (!accesses || !canMerge(loop, *accesses, consumer, *consumerAccesses))
      return false;
    producerAccesses.append(*accesses);
  }
  if (!makeAdjacent(producer, producerAccesses, consumer, *consumerAccesses))
    return false;
  // One copy of the consumer per producer loop (the last one takes the
  // original).
  for (scf::ForOp loop : ArrayRef(loops).drop_back()) {
    OpBuilder b(loop);
    b.setInsertionPointAfter(loop);
    merge(loop, cast<scf::ForOp>(b.clone(*consumer)));
  }
  scf::ForOp last = loops.back();
  consumer->moveAfter(last);
  merge(last, consumer);
  return true;
}

/// Erases the stores into stack buffers nothing reads (whose last reader
/// the merged loops forwarded), and the buffers.
void eraseUnreadBuffers(func::FuncOp func) {
  SmallVector<memref::AllocaOp> allocas;
  func.walk([&](memref::AllocaOp alloca) { allocas.push_back(alloca); });
  for (memref::AllocaOp alloca : allocas) {
    SmallVector<Operation *> stores, views;
    SmallVector<Value> worklist{alloca.getResult()};
    bool unread = true;
    while (!worklist.empty() && unread) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (auto store = dyn_cast<memref::StoreOp>(user);
            store && store.getMemRef() == value) {
          stores.push_back(user);
          continue;
        }
        if (isa<memref::SubViewOp, memref::CastOp, memref::ReinterpretCastOp,
                memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
          views.push_back(user);
          worklist.push_back(user->getResult(0));
          continue;
        }
        unread = false;
        break;
      }
    }
    if (!unread)
      continue;
    for (Operation *store : stores)
      store->erase();
    for (Operation *view : llvm::reverse(views))
      view->erase();
    alloca.erase();
  }
}

struct FuseElementLoopsPass : impl::FuseElementLoopsBase<FuseElementLoopsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<scf::ForOp> loops;
      func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        if (tryFuse(loop)) {
          changed = true;
          break; // the walk's list holds the erased loop
        }
    }
    eraseUnreadBuffers(func);
  }
};

} // namespace
} // namespace mlir::spine
