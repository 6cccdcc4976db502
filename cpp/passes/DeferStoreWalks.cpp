//===- DeferStoreWalks.cpp - a row's stores during the next row's walk ----===//
//
// A program of tutorial 02's softmax loops over rows; each iteration walks
// its row three times (maximum; exponentials into a tile buffer and their
// sum; the scaled buffer stored), and the last walk only stores. Memory then
// writes while the core waits, and the core computes exponentials while
// memory has nothing to write. Here that store walk moves into the next
// iteration and becomes part of its exponentials' walk, which writes the
// same tile buffer element by element: at each element the merged walk first
// stores the previous row's element from the buffer, then writes the new
// one. The walk's scalars (the row's address, its scale, its mask version)
// are carried to the next iteration; the last row's store walk runs after
// the loop.
//
// The stores then happen after the next row's reads of memory. When that
// next iteration could read what the deferred walk writes (checked at run
// time, from the byte ranges both touch), it first stores the previous row
// where it is, and the order is the original one.
//
// Softmax beyond the cache, in turns with the code before (one process,
// each call after 64 MiB of cache-clearing writes; with the prefetches that
// spine-schedule-tile-prefetches then issues in the merged walk's first
// half): 4096 x 4096, 2 threads +12-17%, 1 thread +2-9%; 4096 x 1024
// +17-21% and +13-16%; 4096 x 256 +26-37% and +36-42%; 4096 x 8192 +8-12%
// and +3-8%; 2048 x 16384 +14-17% and +7%. Written by hand
// (bench/row_walks.c) the same order gains 1-30% on 2 threads (nine runs).
//
// Applies to a loop over rows (an scf.for without results) whose body ends
// with the store walk: an element loop, or an scf.if choosing between two,
// with the same constant bounds, that read one tile buffer at their index,
// write only through pointers (llvm.store at a byte range a pointer, an
// offset linear in the index, and the bounds give), and use no buffer or
// vector computed in the iteration. The walk it joins is the element loop of
// the body that writes that buffer, the only writer of it in the loop.
// Between the start of an iteration and the end of that walk nothing may
// write through pointers, and every read of kernel memory there must have a
// known byte range (views of constant size, element loops' loads at linear
// offsets).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/TileBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::spine {
#define GEN_PASS_DEF_DEFERSTOREWALKS
#include "passes/Passes.h.inc"

namespace {

/// Bytes [base, base + size) of memory the kernel was given; base is an i64.
struct ByteRange {
  Value base;
  int64_t size;
};

std::optional<int64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// Constant bounds [lb, ub) of an element loop with lb >= 0 and step 1.
std::optional<std::pair<int64_t, int64_t>> constantBounds(scf::ForOp loop) {
  std::optional<int64_t> lb = constantIndex(loop.getLowerBound());
  std::optional<int64_t> ub = constantIndex(loop.getUpperBound());
  std::optional<int64_t> step = constantIndex(loop.getStep());
  if (!lb || !ub || !step || *lb < 0 || *ub <= *lb || *step != 1)
    return std::nullopt;
  return std::make_pair(*lb, *ub);
}

bool sameBounds(scf::ForOp a, scf::ForOp b) {
  auto ba = constantBounds(a);
  return ba && ba == constantBounds(b);
}

/// The bytes per step of `offset`, an integer multiple of `iv` (through
/// index casts and sign or zero extensions, which keep its value: the
/// index is at most the loop's bound).
std::optional<int64_t> scaleOf(Value offset, Value iv) {
  auto castOf = [&](Value v) {
    while (Operation *op = v.getDefiningOp()) {
      if (!isa<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp>(op))
        break;
      v = op->getOperand(0);
    }
    return v;
  };
  if (castOf(offset) == iv)
    return 1;
  auto mul = offset.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    auto scale = c.getDefiningOp<arith::ConstantIntOp>();
    if (scale && scale.value() > 0 && castOf(x) == iv)
      return scale.value();
  }
  return std::nullopt;
}

/// The bytes an llvm.load or llvm.store of `type` at `ptr` touches over the
/// element loop around it: ptr = gep i8 (inttoptr base), offset, with the
/// base defined outside the loop and the offset a multiple of its index.
std::optional<ByteRange> pointerRange(Operation *access, Value ptr, Type type) {
  auto loop = access->getParentOfType<scf::ForOp>();
  auto gep = ptr.getDefiningOp<LLVM::GEPOp>();
  if (!loop || !gep || !gep.getElemType().isInteger(8) ||
      gep.getDynamicIndices().size() != 1 || gep.getIndices().size() != 1)
    return std::nullopt;
  auto toPtr = gep.getBase().getDefiningOp<LLVM::IntToPtrOp>();
  auto bounds = constantBounds(loop);
  if (!toPtr || !bounds || !type.isIntOrFloat() ||
      !loop.isDefinedOutsideOfLoop(toPtr.getArg()))
    return std::nullopt;
  std::optional<int64_t> scale =
      scaleOf(gep.getDynamicIndices()[0], loop.getInductionVar());
  if (!scale)
    return std::nullopt;
  int64_t bytes = llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  return ByteRange{toPtr.getArg(), (bounds->second - 1) * *scale + bytes};
}

/// The bytes a view made by createLoadView reads: a memref of static shape
/// and identity layout over inttoptr(base), offset 0.
std::optional<ByteRange> viewRange(Value view) {
  auto cast = view.getDefiningOp<UnrealizedConversionCastOp>();
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!cast || cast->getNumOperands() != 1 || !type || !type.hasStaticShape() ||
      !type.getLayout().isIdentity() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  Value aligned, offset;
  for (auto insert = cast.getOperand(0).getDefiningOp<LLVM::InsertValueOp>();
       insert;
       insert = insert.getContainer().getDefiningOp<LLVM::InsertValueOp>()) {
    ArrayRef<int64_t> position = insert.getPosition();
    if (position == ArrayRef<int64_t>{1} && !aligned)
      aligned = insert.getValue();
    if (position == ArrayRef<int64_t>{2} && !offset)
      offset = insert.getValue();
  }
  auto zero = offset ? offset.getDefiningOp<LLVM::ConstantOp>() : nullptr;
  auto zeroValue = zero ? dyn_cast<IntegerAttr>(zero.getValue()) : nullptr;
  auto toPtr = aligned ? aligned.getDefiningOp<LLVM::IntToPtrOp>() : nullptr;
  if (!toPtr || !zeroValue || !zeroValue.getValue().isZero())
    return std::nullopt;
  int64_t bytes =
      type.getNumElements() *
      llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
  return ByteRange{toPtr.getArg(), bytes};
}

/// pointerRange of a plain (not volatile, not atomic) llvm.load or
/// llvm.store.
template <typename Access>
std::optional<ByteRange> plainRange(Access access, Type type) {
  if (access.getVolatile_() ||
      access.getOrdering() != LLVM::AtomicOrdering::not_atomic)
    return std::nullopt;
  return pointerRange(access, access.getAddr(), type);
}

/// Appends `range` unless `ranges` has it.
void addRange(SmallVectorImpl<ByteRange> &ranges, ByteRange range) {
  if (llvm::none_of(ranges, [&](const ByteRange &r) {
        return r.base == range.base && r.size == range.size;
      }))
    ranges.push_back(range);
}

/// What the ops of an iteration up to the end of the walk the stores join
/// read of kernel memory, or failure when they write it (through pointers,
/// atomics, calls) or read it where no byte range is known. `buffer` (the
/// tile buffer the deferred walk reads) may only be written by `host`, at its
/// index.
struct WindowReads {
  Value buffer;
  scf::ForOp host;
  SmallVector<ByteRange> ranges;

  /// The byte ranges behind a memref the window reads: none for tile
  /// buffers, a view's range, each branch's for an scf.if's result.
  LogicalResult addMemref(Value memref) {
    if (isTileBuffer(memref))
      return success();
    if (std::optional<ByteRange> view = viewRange(memref)) {
      addRange(ranges, *view);
      return success();
    }
    auto result = dyn_cast<OpResult>(memref);
    auto choice = result ? dyn_cast<scf::IfOp>(result.getOwner()) : nullptr;
    if (!choice || choice.getElseRegion().empty())
      return failure();
    for (scf::YieldOp yield : {choice.thenYield(), choice.elseYield()})
      if (failed(addMemref(yield.getOperand(result.getResultNumber()))))
        return failure();
    return success();
  }

  LogicalResult add(Operation *root) {
    WalkResult walk = root->walk([&](Operation *op) {
      if (auto load = dyn_cast<memref::LoadOp>(op))
        return WalkResult(addMemref(load.getMemRef()));
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        Value target = store.getMemRef();
        if (!isTileBuffer(target))
          return WalkResult::interrupt();
        // The buffer's only writer is the host walk, at its own index.
        bool atIndex = store.getIndices().size() == 1 &&
                       store.getIndices()[0] == host.getInductionVar();
        if (target == buffer &&
            (op->getParentOfType<scf::ForOp>() != host || !atIndex))
          return WalkResult::interrupt();
        return WalkResult::advance();
      }
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        std::optional<ByteRange> range = plainRange(load, load.getType());
        if (!range)
          return WalkResult::interrupt();
        addRange(ranges, *range);
        return WalkResult::advance();
      }
      if (isa<memref::AllocaOp, LLVM::Prefetch, scf::ForOp, scf::IfOp,
              scf::YieldOp>(op))
        return WalkResult::advance();
      return isMemoryEffectFree(op) ? WalkResult::advance()
                                    : WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }
};

/// The store walk's element loops: the op itself, or both branches of an
/// scf.if holding one loop each.
SmallVector<scf::ForOp> storeWalkLoops(Operation *walk) {
  if (auto loop = dyn_cast<scf::ForOp>(walk))
    return {loop};
  auto choice = dyn_cast<scf::IfOp>(walk);
  if (!choice || choice.getNumResults() != 0 || choice.getElseRegion().empty())
    return {};
  SmallVector<scf::ForOp> loops;
  for (Region *region : {&choice.getThenRegion(), &choice.getElseRegion()}) {
    Block &block = region->front();
    auto loop = dyn_cast<scf::ForOp>(block.front());
    if (!loop || block.getOperations().size() != 2)
      return {};
    loops.push_back(loop);
  }
  return loops;
}

/// The tile buffer every loop of the store walk reads, and the byte ranges
/// they write; failure when they touch memory otherwise.
LogicalResult analyzeStoreWalk(ArrayRef<scf::ForOp> loops, Value &buffer,
                               SmallVectorImpl<ByteRange> &writes) {
  for (scf::ForOp loop : loops) {
    if (loop.getNumResults() != 0 || !constantBounds(loop) ||
        !sameBounds(loop, loops.front()))
      return failure();
    WalkResult walk = loop.getBody()->walk([&](Operation *op) {
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        Value memref = load.getMemRef();
        bool atIndex = load.getIndices().size() == 1 &&
                       load.getIndices()[0] == loop.getInductionVar();
        if (!isTileBuffer(memref) || !atIndex || (buffer && buffer != memref))
          return WalkResult::interrupt();
        buffer = memref;
        return WalkResult::advance();
      }
      if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        std::optional<ByteRange> range =
            plainRange(store, store.getValue().getType());
        if (!range)
          return WalkResult::interrupt();
        addRange(writes, *range);
        return WalkResult::advance();
      }
      if (isa<scf::IfOp, scf::YieldOp>(op) || isMemoryEffectFree(op))
        return op->getNumRegions() == 0 || isa<scf::IfOp>(op)
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success(buffer && !writes.empty());
}

struct DeferStoreWalksPass : impl::DeferStoreWalksBase<DeferStoreWalksPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> rowLoops;
    getOperation().walk([&](scf::ForOp loop) { rowLoops.push_back(loop); });
    for (scf::ForOp loop : rowLoops)
      defer(loop);
  }

  void defer(scf::ForOp rows) {
    Block *body = rows.getBody();
    if (rows.getNumResults() != 0 || body->getOperations().size() < 2)
      return;
    Operation *walk = body->getTerminator()->getPrevNode();
    SmallVector<scf::ForOp> walkLoops = storeWalkLoops(walk);
    Value buffer;
    SmallVector<ByteRange> writes;
    if (walkLoops.empty() ||
        failed(analyzeStoreWalk(walkLoops, buffer, writes)))
      return;
    // The buffer lives across iterations: allocated outside the row loop
    // (spine-stack-buffers hoists the ones it puts on the stack; larger
    // ones are allocated per row and stay as they are).
    auto bufferType = cast<MemRefType>(buffer.getType());
    if (rows->isAncestor(buffer.getDefiningOp()) ||
        !bufferType.hasStaticShape() ||
        !bufferType.getElementType().isIntOrFloat())
      return;

    // The host: the body's element loop writing the buffer at its index,
    // with the store walk's bounds.
    scf::ForOp host;
    for (Operation &op : *body) {
      auto loop = dyn_cast<scf::ForOp>(op);
      if (!loop || &op == walk)
        continue;
      bool writesBuffer = false;
      loop.getBody()->walk([&](memref::StoreOp store) {
        writesBuffer |= store.getMemRef() == buffer;
      });
      if (writesBuffer) {
        if (host)
          return; // two writers
        host = loop;
      }
    }
    if (!host || host.getNumResults() != 0 ||
        !sameBounds(host, walkLoops.front()))
      return;
    for (Operation &op : *body) {
      if (&op == host.getOperation() || &op == walk || op.isBeforeInBlock(host))
        continue;
      bool writesBuffer = false;
      op.walk([&](memref::StoreOp store) {
        writesBuffer |= store.getMemRef() == buffer;
      });
      if (writesBuffer)
        return;
    }
    bool nested = false;
    host.getBody()->walk(
        [&](Operation *op) { nested |= isa<LoopLikeOpInterface>(op); });
    if (nested)
      return;

    // What the next iteration reads up to the host's end; the run-time check
    // goes before its first access of memory.
    WindowReads window{buffer, host, {}};
    Operation *check = nullptr;
    for (Operation &op : *body) {
      if (op.isBeforeInBlock(host) || &op == host.getOperation()) {
        if (failed(window.add(&op)))
          return;
        if (!check && !isMemoryEffectFree(&op))
          check = &op;
      }
    }
    if (!check)
      check = host;
    // Each read's base is known there: defined outside the loop, the row
    // counter, or computed in the body before the check.
    for (const ByteRange &range : window.ranges) {
      Value base = range.base;
      if (!rows.getBodyRegion().isAncestor(base.getParentRegion()) ||
          base == rows.getInductionVar())
        continue;
      Operation *def = base.getDefiningOp();
      if (!def || def->getBlock() != body || !def->isBeforeInBlock(check))
        return;
    }

    // Values of the iteration the store walk uses: carried to the next.
    SetVector<Value> carried;
    walk->walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (rows.getBodyRegion().isAncestor(operand.getParentRegion()) &&
            !walk->isAncestor(operand.getParentRegion()->getParentOp()))
          carried.insert(operand);
    });
    for (Value value : carried)
      if (!value.getType().isIntOrIndexOrFloat())
        return;
    for (const ByteRange &range : writes)
      if (!rows.isDefinedOutsideOfLoop(range.base) &&
          !carried.contains(range.base))
        return;

    rewrite(rows, walk, walkLoops, host, check, carried.getArrayRef(), writes,
            window.ranges);
  }

  void rewrite(scf::ForOp rows, Operation *walk, ArrayRef<scf::ForOp> loops,
               scf::ForOp host, Operation *check,
               ArrayRef<Value> carriedInOldLoop, ArrayRef<ByteRange> writes,
               ArrayRef<ByteRange> reads) {
    Location loc = rows.getLoc();
    OpBuilder b(rows);
    Type i1 = b.getI1Type();
    SmallVector<Value> inits{arith::ConstantIntOp::create(b, loc, i1, 0)};
    for (Value value : carriedInOldLoop)
      inits.push_back(arith::ConstantOp::create(
          b, loc, cast<TypedAttr>(b.getZeroAttr(value.getType()))));
    auto newRows =
        scf::ForOp::create(b, loc, rows.getLowerBound(), rows.getUpperBound(),
                           rows.getStep(), inits);
    newRows.setUnsignedCmp(rows.getUnsignedCmp());
    newRows->setDiscardableAttrs(rows->getDiscardableAttrDictionary());
    Block *body = newRows.getBody();
    // Move the old body (not its yield) into the new loop.
    body->getOperations().splice(body->begin(), rows.getBody()->getOperations(),
                                 rows.getBody()->begin(),
                                 std::prev(rows.getBody()->end()));
    rows.getInductionVar().replaceAllUsesWith(newRows.getInductionVar());
    SmallVector<Value> carried(carriedInOldLoop);
    llvm::replace(carried, rows.getInductionVar(), newRows.getInductionVar());
    Value pending = newRows.getRegionIterArgs()[0];
    auto previous = [&](ValueRange values) {
      IRMapping map;
      for (auto [value, prior] : llvm::zip(carried, values))
        map.map(value, prior);
      return map;
    };
    IRMapping fromIterArgs = previous(newRows.getRegionIterArgs().drop_front());
    // The ranges were found in the old loop: its counter is the new one's.
    auto current = [&](Value v) {
      return v == rows.getInductionVar() ? newRows.getInductionVar() : v;
    };

    // The run-time check: stores before the next row's reads when their
    // bytes may meet.
    b.setInsertionPoint(check);
    Value overlap = arith::ConstantIntOp::create(b, loc, i1, 0);
    Type i64 = b.getI64Type();
    for (const ByteRange &write : writes) {
      Value writeBase = fromIterArgs.lookupOrDefault(current(write.base));
      Value writeEnd = arith::AddIOp::create(
          b, loc, writeBase,
          arith::ConstantIntOp::create(b, loc, i64, write.size));
      for (const ByteRange &read : reads) {
        Value readBase = current(read.base);
        Value readEnd = arith::AddIOp::create(
            b, loc, readBase,
            arith::ConstantIntOp::create(b, loc, i64, read.size));
        Value before = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                             writeEnd, readBase);
        Value after = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                            readEnd, writeBase);
        Value apart = arith::OrIOp::create(b, loc, before, after);
        Value meets = arith::XOrIOp::create(
            b, loc, apart, arith::ConstantIntOp::create(b, loc, i1, 1));
        overlap = arith::OrIOp::create(b, loc, overlap, meets);
      }
    }
    Value storeNow = arith::AndIOp::create(b, loc, pending, overlap);
    auto early = scf::IfOp::create(b, loc, storeNow, /*withElse=*/false);
    b.setInsertionPoint(early.thenBlock()->getTerminator());
    b.clone(*walk, fromIterArgs);
    b.setInsertionPointAfter(early);
    Value stillPending = arith::AndIOp::create(
        b, loc, pending,
        arith::XOrIOp::create(b, loc, storeNow,
                              arith::ConstantIntOp::create(b, loc, i1, 1)));

    // The host walk, with the previous row's stores at each of its elements
    // when one is pending.
    b.setInsertionPoint(host);
    auto choice = scf::IfOp::create(b, loc, stillPending, /*withElse=*/true);
    host->moveBefore(choice.elseBlock()->getTerminator());
    b.setInsertionPoint(choice.thenBlock()->getTerminator());
    auto fused = [&](OpBuilder &builder, scf::ForOp storeLoop) {
      auto merged = cast<scf::ForOp>(builder.clone(*host));
      IRMapping map = fromIterArgs;
      map.map(storeLoop.getInductionVar(), merged.getInductionVar());
      OpBuilder inner = OpBuilder::atBlockBegin(merged.getBody());
      for (Operation &op : storeLoop.getBody()->without_terminator())
        inner.clone(op, map);
    };
    if (auto walkChoice = dyn_cast<scf::IfOp>(walk)) {
      auto version = scf::IfOp::create(
          b, loc, fromIterArgs.lookupOrDefault(walkChoice.getCondition()),
          /*withElse=*/true);
      OpBuilder thenB(version.thenBlock()->getTerminator());
      fused(thenB, loops[0]);
      OpBuilder elseB(version.elseBlock()->getTerminator());
      fused(elseB, loops[1]);
    } else {
      fused(b, loops[0]);
    }

    // This row's store walk waits for the next iteration.
    b.setInsertionPointToEnd(body);
    SmallVector<Value> yields{arith::ConstantIntOp::create(b, loc, i1, 1)};
    yields.append(carried.begin(), carried.end());
    scf::YieldOp::create(b, loc, yields);
    walk->remove();

    // The last row's stores, after the loop.
    b.setInsertionPointAfter(newRows);
    auto last =
        scf::IfOp::create(b, loc, newRows.getResult(0), /*withElse=*/false);
    b.setInsertionPoint(last.thenBlock()->getTerminator());
    IRMapping fromResults = previous(newRows.getResults().drop_front());
    b.clone(*walk, fromResults);
    walk->destroy();
    rows.erase();
  }
};

} // namespace
} // namespace mlir::spine
