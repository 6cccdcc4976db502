//===- ScheduleTilePrefetches.cpp - prefetch next tiles during compute ----===//
//
// spine-vectorize-element-loops prefetches, from the loops that read a tile,
// what the same loops read in the next iteration of the loop over tiles.
// Issued there, those prefetches come in one burst of misses (all of a
// tile's lines at once) and the loop waits for the miss buffers they hold:
// it runs at the speed of memory while the loops after it leave memory idle.
// Here they move into a loop that follows and computes:
//
//  * a matmul micro-kernel (tl.dot's operands packed; a B read in place as
//    whole rows has no copy to take prefetches from): each of its (row
//    block, column block) steps prefetches an even share of the next tiles'
//    rows into L2, between its accumulator loads and its K loop, so the
//    misses overlap with FMAs and the next copy reads from L2. On the
//    tutorial matmul (one thread, Zen 3) that is 5-9% faster at 1024 and
//    2048 (docs/benchmarks.md); issuing them at one point of the
//    micro-kernel instead, or only into L1, was slower than leaving them in
//    the copy;
//  * a strip loop that computes a math function (exp, log, ...) and writes
//    only tile buffers (softmax's exponentials, between the row's maximum
//    and its store, reading the row the maximum read): each strip prefetches
//    an even share, also where it stores the previous row
//    (spine-defer-store-walks), unless `front-load-deferred` is set: then
//    the strips of its first half take them all. Where it has versions (an
//    scf.if around), each version takes a copy.
//
// And in a kernel whose programs each reduce a row of 8 KiB or more and
// write it out (layer norm), the next-program prefetches of the reducing
// walks (pid_x + 1, each walk the whole row) become one set for pid_x + 2,
// each line once, shared out over all the walks in order: the reducing walks
// a fifth of the row each, the store walk, whose time goes to stores, the
// rest. Reads of memory then run through every walk. Layer norm 4096 x 4096
// with the kernel called per program from C (no launcher), in turns with the
// previous placement built behind a temporary switch (pid_x + 1 in each
// reducing walk, pid_x + 2 in the store walk), seven pairs of runs: 1
// thread 12.6 -> 13.0, 13.6 -> 14.1, 14.4 -> 15.0 GB/s, 2 threads 24.7 ->
// 25.5, 24.8 -> 26.0, 24.3 -> 24.8, 21.4 -> 22.2; through the launcher the
// gain is within the noise. Softmax's next-iteration prefetches shifted
// into its store walk measured no gain on 2 threads and 6-7% less on 1, and
// are not.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/ProgramIdArguments.h"
#include "passes/TileBuffer.h"
#include "passes/TilePrefetch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include <set>

namespace mlir::spine {
#define GEN_PASS_DEF_SCHEDULETILEPREFETCHES
#include "passes/Passes.h.inc"

namespace {

/// The parts of a row's next-program prefetches each reducing walk and the
/// store walk take (spreadOverWalks): a reducing walk reads the row from the
/// cache, the store walk waits on its stores. Chosen in a hand-written model
/// of layer norm's three walks (shares 1 : 1 : 3, 1 : 1 : 2 and 1 : 1 : 4.7
/// within 4% of each other); the compiled kernel's gain is in the file's
/// header. docs/benchmarks.md (session 38) has the models' disagreement.
constexpr int64_t kReducingShare = 1;
constexpr int64_t kStoringShare = 3;

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

/// Whether `loop` computes a math function (what spine-approximate-math
/// makes a polynomial of), reads only buffers (tiles, or views of memory a
/// loop before it read: softmax's row) and writes tile buffers the kernel
/// allocated: its time goes to arithmetic while memory reads nothing. It may
/// also store to kernel memory when it writes a tile buffer too (the
/// previous row's stores, spine-defer-store-walks, in the exponentials'
/// loop); a loop that computes only to store (an elementwise tile) keeps
/// memory busy and takes none.
bool computesInCache(scf::ForOp loop) {
  bool math = false, writesTile = false, storesMemory = false;
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (isa<math::MathDialect>(op->getDialect()) &&
        !isa<math::AbsFOp, math::AbsIOp, math::CopySignOp, math::FmaOp,
             math::SqrtOp>(op))
      math = true;
    Value buffer;
    if (isa<LLVM::StoreOp, LLVM::MaskedStoreOp, LLVM::masked_scatter>(op)) {
      storesMemory = true;
      return WalkResult::advance();
    }
    if (isa<vector::LoadOp, memref::LoadOp, LLVM::Prefetch>(op))
      return WalkResult::advance();
    if (auto store = dyn_cast<vector::StoreOp>(op))
      buffer = store.getBase();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      buffer = store.getMemRef();
    else if (isMemoryEffectFree(op) || isa<scf::ForOp, scf::IfOp>(op))
      return WalkResult::advance();
    else
      return WalkResult::interrupt();
    while (Operation *def = buffer.getDefiningOp()) {
      if (!isa<memref::SubViewOp, memref::CastOp>(def))
        break;
      buffer = def->getOperand(0);
    }
    if (!isTileBuffer(buffer))
      return WalkResult::interrupt();
    writesTile = true;
    return WalkResult::advance();
  });
  return math && !result.wasInterrupted() && (!storesMemory || writesTile);
}

/// The loops computing over tile buffers (computesInCache) with a constant
/// number of iterations that `op` is or holds as versions: the loop itself,
/// or one per branch of an scf.if (nested ones too) when every branch has
/// one. Only one of them runs; each takes the prefetches.
SmallVector<scf::ForOp> computingVersions(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    if (constantTrips(loop).value_or(0) && computesInCache(loop))
      return {loop};
    return {};
  }
  auto choice = dyn_cast<scf::IfOp>(op);
  if (!choice || choice.getElseRegion().empty())
    return {};
  SmallVector<scf::ForOp> loops;
  for (Block *branch : {choice.thenBlock(), choice.elseBlock()}) {
    SmallVector<scf::ForOp> found;
    for (Operation &nested : *branch)
      if (found.empty())
        found = computingVersions(&nested);
    if (found.empty())
      return {};
    loops.append(found);
  }
  return loops;
}

/// The first op after `op` in its block that is or holds computing loops
/// (computingVersions), if any.
Operation *computingOpAfter(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!computingVersions(next).empty())
      return next;
  return nullptr;
}

/// The loops with constant trips in `op` (itself included), outermost ones,
/// that store to kernel memory (the LLVM stores vectorized loops make; tile
/// buffers are memrefs): a row's store walk, one per version of it.
SmallVector<scf::ForOp> storingLoopsIn(Operation *op) {
  SmallVector<scf::ForOp> loops;
  op->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
    if (!constantTrips(loop).value_or(0))
      return WalkResult::advance();
    bool stores = loop->walk([](Operation *nested) {
                        return isa<LLVM::StoreOp, LLVM::MaskedStoreOp,
                                   LLVM::masked_scatter>(nested)
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      })
                      .wasInterrupted();
    if (stores)
      loops.push_back(loop);
    return WalkResult::skip();
  });
  return loops;
}

/// The first op after `op` in its block that holds store walks, if any.
Operation *storingOpAfter(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!storingLoopsIn(next).empty())
      return next;
  return nullptr;
}

/// The loops with constant trips in `nest` that hold its next-program
/// prefetches (outside loops over tiles in it), innermost around each: a
/// reducing walk's strips, one loop per version. Empty when one of those
/// prefetches has none.
SmallVector<scf::ForOp> nextProgramLoopsIn(Operation *nest) {
  SmallVector<scf::ForOp> loops;
  bool all = true;
  nest->walk([&](LLVM::Prefetch prefetch) {
    if (!prefetch->hasAttr(kNextProgramPrefetch) ||
        loopOverTilesAround(prefetch))
      return;
    auto loop = prefetch->getParentOfType<scf::ForOp>();
    if (!loop || !nest->isAncestor(loop) || !constantTrips(loop).value_or(0))
      all = false;
    else if (!llvm::is_contained(loops, loop))
      loops.push_back(loop);
  });
  return all ? loops : SmallVector<scf::ForOp>();
}

/// Whether `prefetch` lies in a loop over tiles inside `op`: it belongs to
/// that loop's iterations.
bool inLoopOverTiles(LLVM::Prefetch prefetch, Operation *op) {
  scf::ForOp tiles = loopOverTilesAround(prefetch);
  return tiles && op->isAncestor(tiles);
}

/// How many programs ahead the next-program prefetches of `nest` (outside
/// loops over tiles in it) are, when they all say the same.
std::optional<int64_t> programsAheadOf(Operation *nest) {
  std::optional<int64_t> distance;
  bool agree = true;
  nest->walk([&](LLVM::Prefetch prefetch) {
    auto value = prefetch->getAttrOfType<IntegerAttr>(kNextProgramPrefetch);
    if (!value || inLoopOverTiles(prefetch, nest))
      return;
    if (distance && *distance != value.getInt())
      agree = false;
    distance = value.getInt();
  });
  return agree ? distance : std::nullopt;
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

/// Whether `op` only allocates memory (a tile buffer, whose frees and
/// writes prune has removed).
bool onlyAllocates(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.onlyHasEffect<MemoryEffects::Allocate>();
}

/// Whether `op` holds a prefetch.
bool holdsPrefetch(Operation *op) {
  return op->walk([](LLVM::Prefetch) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Leaves of `copy` only what its prefetches need: every other op that
/// writes goes, then whatever has no use left and at most reads, only
/// allocates or holds no prefetch (a version that copies a tile into a
/// buffer: it and the buffer's allocation go). False if a write is left
/// (one whose result something uses).
bool prune(Operation *copy) {
  // What a loop carries (a reduction's partial results) is not needed for
  // addresses: each iteration yields its arguments unchanged, so the values
  // computed for the yield lose their last use.
  copy->walk([](scf::ForOp loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [operand, arg] :
         llvm::zip(yield->getOpOperands(), loop.getRegionIterArgs()))
      operand.set(arg);
  });
  auto writes = [&](Operation *op) {
    return op != copy && !isa<LLVM::Prefetch>(op) && op->getNumRegions() == 0 &&
           !onlyReads(op);
  };
  copy->walk<WalkOrder::PostOrder>([&](Operation *op) {
    if (writes(op) && op->use_empty())
      op->erase();
  });
  bool changed = true;
  while (changed) {
    changed = false;
    copy->walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (op != copy && op->use_empty() &&
          !op->hasTrait<OpTrait::IsTerminator>() &&
          (onlyReads(op) || onlyAllocates(op) ||
           (op->getNumRegions() != 0 && !holdsPrefetch(op)))) {
        op->erase();
        changed = true;
      }
    });
  }
  return !copy->walk([&](Operation *op) {
                return writes(op) ? WalkResult::interrupt()
                                  : WalkResult::advance();
              })
              .wasInterrupted();
}

/// The outermost loops of `copy` when every prefetch in it lies in one and
/// each counts up between constant bounds (the rows of a tile, the strips
/// of a row), else nothing: those loops are what gets divided among the
/// steps of the loop that takes the prefetches.
SmallVector<scf::ForOp> rowLoopsOf(Operation *copy) {
  SmallVector<scf::ForOp> outer;
  bool divisible = true;
  copy->walk([&](LLVM::Prefetch prefetch) {
    scf::ForOp outermost;
    for (auto loop = prefetch->getParentOfType<scf::ForOp>();
         loop && copy->isAncestor(loop);
         loop = loop->getParentOfType<scf::ForOp>())
      outermost = loop;
    if (!outermost || !constantTrips(outermost))
      divisible = false;
    else if (!llvm::is_contained(outer, outermost))
      outer.push_back(outermost);
  });
  return divisible ? outer : SmallVector<scf::ForOp>();
}

/// A copy of `nest` at `b` (its values `shift` maps replaced) that keeps
/// only the prefetches `keep` accepts and what their addresses need, with
/// the loops that can be shared out (rowLoopsOf); null, and nothing left,
/// when it cannot be shared out so.
Operation *prunedCopy(OpBuilder &b, Operation *nest, IRMapping shift,
                      function_ref<bool(LLVM::Prefetch)> keep) {
  Operation *copy = b.clone(*nest, shift);
  copy->walk([&](LLVM::Prefetch prefetch) {
    if (!keep(prefetch))
      prefetch->erase();
  });
  if (prune(copy) && !rowLoopsOf(copy).empty())
    return copy;
  copy->erase();
  return nullptr;
}

/// What a pruned copy of next-program prefetches reads, as far as telling
/// copies apart goes: for each prefetch, the function's arguments its
/// address is computed from (the kernel's pointers, strides and program
/// ids), and the extents (trips times step) of the loops sharing them out.
/// The later walks over a row read what the first read: their copies have
/// the same footprint, though their versions differ.
using Footprint = std::pair<std::set<SmallVector<unsigned>>, std::set<int64_t>>;
Footprint footprintOf(Operation *copy) {
  Footprint footprint;
  copy->walk([&](LLVM::Prefetch prefetch) {
    SmallVector<unsigned> arguments;
    SmallVector<Value> work{prefetch.getAddr()};
    DenseSet<Value> seen;
    while (!work.empty()) {
      Value value = work.pop_back_val();
      if (!seen.insert(value).second)
        continue;
      if (auto argument = dyn_cast<BlockArgument>(value)) {
        if (isa<func::FuncOp>(argument.getOwner()->getParentOp()))
          arguments.push_back(argument.getArgNumber());
        continue;
      }
      llvm::append_range(work, value.getDefiningOp()->getOperands());
    }
    llvm::sort(arguments);
    footprint.first.insert(std::move(arguments));
  });
  for (scf::ForOp loop : rowLoopsOf(copy))
    footprint.second.insert(*constantTrips(loop) *
                            *getConstantIntValue(loop.getStep()));
  return footprint;
}

/// Where the prefetches of some nests go: the loop that takes them, the
/// insertion block in it (each of its steps runs the block once), how many
/// steps it makes, and how to number the current step.
struct Host {
  Block *body;
  int64_t steps;
  function_ref<Value(OpBuilder &, Location)> stepNumber;
  /// Whether the prefetches go into the first half of its steps: a host
  /// that also stores to kernel memory, with `front-load-deferred`.
  bool firstHalf = false;
  /// The op in `body` to place them before; null: at the block's start.
  Operation *before = nullptr;
  /// The part of each nest's rows (strips) this host takes: from `begin` to
  /// `end` of `parts` equal parts (spreadOverWalks); by default all.
  struct {
    int64_t begin = 0, end = 1, parts = 1;
  } share;
};

/// `(iv - lb) / step` of `loop`, built at `b`.
Value iterationNumber(OpBuilder &b, Location loc, scf::ForOp loop) {
  return arith::DivUIOp::create(b, loc,
                                arith::SubIOp::create(b, loc,
                                                      loop.getInductionVar(),
                                                      loop.getLowerBound()),
                                loop.getStep());
}

/// iterationNumber of `loop` at the start of its body, built into `number`
/// the first time something asks.
Value numberedOnce(OpBuilder &b, Location loc, scf::ForOp loop, Value &number) {
  if (!number) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    number = iterationNumber(b, loc, loop);
  }
  return number;
}

struct ScheduleTilePrefetchesPass
    : impl::ScheduleTilePrefetchesBase<ScheduleTilePrefetchesPass> {
  using Base::Base;

  void runOnOperation() override {
    // The store walk after nests of next-program prefetches, in the
    // function's body (not in a loop over tiles, where they fire in its last
    // iteration only), takes a copy of each one program further. Planned
    // before next-iteration prefetches move into computing loops.
    llvm::MapVector<Operation *, SmallVector<Operation *>> nestsBeforeStores;
    DenseSet<Operation *> planned;
    // storingOpAfter walks what follows; many prefetches share each level.
    DenseMap<Operation *, Operation *> storesAfter;
    getOperation().walk([&](LLVM::Prefetch prefetch) {
      if (!prefetch->hasAttr(kNextProgramPrefetch) ||
          loopOverTilesAround(prefetch))
        return;
      for (Operation *op = prefetch->getParentOp();
           op && !isa<func::FuncOp>(op); op = op->getParentOp()) {
        auto [it, inserted] = storesAfter.try_emplace(op, nullptr);
        if (inserted)
          it->second = storingOpAfter(op);
        if (Operation *stores = it->second) {
          if (planned.insert(op).second)
            nestsBeforeStores[stores].push_back(op);
          return;
        }
      }
    });
    for (auto &[stores, nests] : nestsBeforeStores)
      spreadOverWalks(nests, stores);

    // The outermost op holding next-iteration prefetches (a copy's loop
    // nest, or the versions around it) in the block of a loop that follows
    // it and takes them: a micro-kernel row loop, or a loop computing in
    // cache. The search stays inside the loop whose next iteration they
    // prefetch (the nearest with bounds known only at run time).
    llvm::MapVector<scf::ForOp, SmallVector<Operation *>> microKernels;
    llvm::MapVector<Operation *, SmallVector<Operation *>> computing;
    DenseSet<Operation *> seen;
    // computingOpAfter walks what follows; many prefetches share each level.
    DenseMap<Operation *, Operation *> computingAfter;
    getOperation().walk([&](LLVM::Prefetch prefetch) {
      if (!prefetch->hasAttr(kNextIterationPrefetch))
        return;
      for (Operation *op = prefetch->getParentOp();
           op && !isa<func::FuncOp>(op); op = op->getParentOp()) {
        if (scf::ForOp rows = rowLoopAfter(op)) {
          if (seen.insert(op).second)
            microKernels[rows].push_back(op);
          return;
        }
        auto [it, inserted] = computingAfter.try_emplace(op, nullptr);
        if (inserted)
          it->second = computingOpAfter(op);
        if (Operation *versions = it->second) {
          if (seen.insert(op).second)
            computing[versions].push_back(op);
          return;
        }
        if (auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
            loop && !constantTrips(loop))
          return;
      }
    });
    for (auto &[rows, ops] : microKernels)
      scheduleInMicroKernel(rows, ops);
    for (auto &[versions, ops] : computing) {
      SmallVector<scf::ForOp> loops = computingVersions(versions);
      SmallVector<Value> numbers(loops.size());
      SmallVector<std::function<Value(OpBuilder &, Location)>> stepNumbers;
      for (size_t i = 0; i < loops.size(); ++i)
        stepNumbers.push_back([&, i](OpBuilder &b, Location loc) {
          return numberedOnce(b, loc, loops[i], numbers[i]);
        });
      SmallVector<Host> hosts;
      for (size_t i = 0; i < loops.size(); ++i)
        hosts.push_back(
            {loops[i].getBody(), *constantTrips(loops[i]), stepNumbers[i],
             frontLoadDeferred && !storingLoopsIn(loops[i]).empty()});
      schedule(hosts, ops);
    }
  }

  /// Moves the prefetches of `nests` into the micro-kernel `rows`: into
  /// each (row block, column block) step, before its K loop (at its start
  /// when it has none).
  static void scheduleInMicroKernel(scf::ForOp rows,
                                    ArrayRef<Operation *> nests) {
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
    // The number of the current (row block, column block) step, made once
    // something uses it.
    Value block;
    auto stepNumber = [&](OpBuilder &b, Location loc) {
      if (block)
        return block;
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(cols.getBody());
      Value row = iterationNumber(b, loc, rows);
      Value col = iterationNumber(b, loc, cols);
      block = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, row, arith::ConstantIndexOp::create(b, loc, colBlocks)),
          col);
      return block;
    };
    // The share goes after the step's accumulator loads, just before its
    // K loop (the loop carrying the accumulators): issued first, it held
    // the miss buffers those loads wait for (Skylake-SP: 1024 and 2048 2-4%
    // faster).
    Host host{cols.getBody(), *constantTrips(rows) * colBlocks, stepNumber};
    for (Operation &op : *cols.getBody())
      if (auto loop = dyn_cast<scf::ForOp>(op);
          loop && loop.getNumRegionIterArgs()) {
        host.before = loop;
        break;
      }
    schedule({host}, nests);
  }

  /// Moves the prefetches of `nests` into each of `hosts` (versions of one
  /// loop, of which one runs): see placeCopy.
  static void schedule(ArrayRef<Host> hosts, ArrayRef<Operation *> nests) {
    SmallVector<OpBuilder> builders;
    for (const Host &host : hosts)
      builders.push_back(host.before ? OpBuilder(host.before)
                                     : OpBuilder::atBlockBegin(host.body));
    for (Operation *nest : nests) {
      // Whether a nest can be shared out depends on the nest alone: it
      // goes into every host or none.
      bool placed = true;
      for (auto [host, b] : llvm::zip(hosts, builders))
        placed &= placeCopy(b, host, nest, IRMapping(),
                            [](LLVM::Prefetch) { return true; });
      if (!placed)
        continue;
      nest->walk([](LLVM::Prefetch prefetch) {
        if (prefetch->hasAttr(kNextIterationPrefetch))
          prefetch->erase();
      });
    }
  }

  /// Shares out what the reducing walks `nests` prefetch of the next
  /// program's row over those walks and the store walks `stores` holds, one
  /// program further (see the file's header): copies of the nests' prefetches
  /// with pid_x advanced by one, the first walks each taking kReducingShare
  /// parts of the row, the store walk kStoringShare, in program order; the
  /// nests' own next-program prefetches go. Only where they prefetch one
  /// program ahead, i.e. each program reads at least the lookahead (8 KiB)
  /// in its reducing loops: shorter rows already prefetch several programs
  /// ahead, and the copy in the store walk measured slower there (layer norm
  /// 4096 x 512: -1 to -8%; 16384 x 1000: -4%) where longer rows gain (4096
  /// x 4096: +6-17%; 2048 x 8192: +15%).
  static void spreadOverWalks(ArrayRef<Operation *> nests, Operation *stores) {
    auto func = stores->getParentOfType<func::FuncOp>();
    SmallVector<scf::ForOp> storeLoops = storingLoopsIn(stores);
    if (func.getNumArguments() < kNumProgramIdArgs || storeLoops.empty())
      return;
    OpBuilder b(nests.front());
    Location loc = stores->getLoc();
    Value pid = func.getArgument(func.getNumArguments() - kNumProgramIdArgs);
    Value after = arith::AddIOp::create(
        b, loc, pid,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(pid.getType(), 1)));
    IRMapping shift;
    shift.map(pid, after);
    // One template per distinct row the nests prefetch, pid_x advanced,
    // pruned to addresses and prefetches (before `stores`, where everything
    // the nests use is defined); equal templates (the later walks read the
    // row the first read) are kept once.
    SmallVector<Operation *> templates;
    SmallVector<Footprint> footprints;
    // The walks that take shares, in order, each as its versions' loops.
    SmallVector<SmallVector<scf::ForOp>> walks;
    SmallVector<Operation *> hostingNests;
    DominanceInfo dominance(func);
    b.setInsertionPoint(stores);
    for (Operation *nest : nests) {
      SmallVector<scf::ForOp> loops = nextProgramLoopsIn(nest);
      if (programsAheadOf(nest) != 1 || loops.empty())
        continue;
      Operation *copy =
          prunedCopy(b, nest, shift, [&](LLVM::Prefetch prefetch) {
            return prefetch->hasAttr(kNextProgramPrefetch) &&
                   !loopOverTilesAround(prefetch);
          });
      if (!copy)
        continue;
      // Its copies go into the first walk too: what they use must be
      // defined before it.
      bool placeable =
          !copy->walk([&](Operation *op) {
                 for (Value operand : op->getOperands())
                   if (!copy->isAncestor(
                           operand.getParentRegion()->getParentOp()) &&
                       !dominance.properlyDominates(operand, nests.front()))
                     return WalkResult::interrupt();
                 return WalkResult::advance();
               })
               .wasInterrupted();
      if (!placeable) {
        copy->erase();
        continue;
      }
      walks.push_back(std::move(loops));
      hostingNests.push_back(nest);
      Footprint footprint = footprintOf(copy);
      if (llvm::is_contained(footprints, footprint))
        copy->erase();
      else {
        templates.push_back(copy);
        footprints.push_back(std::move(footprint));
      }
    }
    if (templates.empty()) {
      Operation *constant =
          after.getDefiningOp()->getOperand(1).getDefiningOp();
      after.getDefiningOp()->erase();
      constant->erase();
      return;
    }
    walks.push_back(storeLoops);
    int64_t total = kReducingShare * (walks.size() - 1) + kStoringShare;
    int64_t before = 0;
    for (auto [i, loops] : llvm::enumerate(walks)) {
      int64_t share = i + 1 < walks.size() ? kReducingShare : kStoringShare;
      for (scf::ForOp loop : loops) {
        Value number;
        auto stepNumber = [&](OpBuilder &b, Location loc) {
          return numberedOnce(b, loc, loop, number);
        };
        OpBuilder inLoop = OpBuilder::atBlockBegin(loop.getBody());
        Host host{loop.getBody(), *constantTrips(loop), stepNumber};
        host.share = {before, before + share, total};
        for (Operation *copy : templates)
          placeCopy(inLoop, host, copy, IRMapping(),
                    [](LLVM::Prefetch) { return true; });
      }
      before += share;
    }
    for (Operation *nest : hostingNests)
      nest->walk([&](LLVM::Prefetch prefetch) {
        if (prefetch->hasAttr(kNextProgramPrefetch) &&
            !loopOverTilesAround(prefetch))
          prefetch->erase();
      });
    for (Operation *copy : templates)
      copy->erase();
  }

  /// Places at `b`, at the start of each step of `host`, a copy of `nest`
  /// (its values `shift` maps replaced) that only computes addresses and
  /// the prefetches `keep` accepts, its loops over rows (or strips) cut to
  /// that step's even share of their iterations, prefetching into L2.
  /// False, and nothing placed, when the nest cannot be shared out so.
  static bool placeCopy(OpBuilder &b, const Host &host, Operation *nest,
                        IRMapping shift,
                        function_ref<bool(LLVM::Prefetch)> keep) {
    Location loc = host.body->getParentOp()->getLoc();
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    Operation *copy = prunedCopy(b, nest, shift, keep);
    if (!copy)
      return false;
    for (scf::ForOp loop : rowLoopsOf(copy)) {
      // Step i of n takes iterations [ceil(i R / n), ceil((i + 1) R / n))
      // of the R in the host's share (none from step n on): spread evenly,
      // also when there are fewer iterations than steps.
      int64_t trips = *constantTrips(loop);
      int64_t first = trips * host.share.begin / host.share.parts;
      int64_t count = trips * host.share.end / host.share.parts - first;
      int64_t step = *getConstantIntValue(loop.getStep());
      int64_t lb = *getConstantIntValue(loop.getLowerBound()) + first * step;
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop);
      int64_t steps =
          host.firstHalf ? std::max<int64_t>(1, host.steps / 2) : host.steps;
      auto firstOf = [&](Value i) -> Value {
        Value scaled = arith::MulIOp::create(b, loc, i, index(count));
        Value rounded = arith::AddIOp::create(b, loc, scaled, index(steps - 1));
        Value iteration = arith::DivUIOp::create(b, loc, rounded, index(steps));
        if (steps < host.steps) // steps from `steps` on would pass the end
          iteration = arith::MinUIOp::create(b, loc, iteration, index(count));
        if (step != 1)
          iteration = arith::MulIOp::create(b, loc, iteration, index(step));
        return arith::AddIOp::create(b, loc, index(lb), iteration);
      };
      Value number = host.stepNumber(b, loc);
      Value begin = firstOf(number);
      Value end = firstOf(arith::AddIOp::create(b, loc, number, index(1)));
      loop.getLowerBoundMutable().assign(begin);
      loop.getUpperBoundMutable().assign(end);
    }
    copy->walk([&](LLVM::Prefetch prefetch) {
      prefetch->removeAttr(kNextIterationPrefetch);
      prefetch->removeAttr(kNextProgramPrefetch);
      prefetch.setHintAttr(b.getI32IntegerAttr(kL2Locality));
    });
    return true;
  }
};

} // namespace
} // namespace mlir::spine
