//===- BlockGridStrideLoops.cpp - a program's rows next to each other ----===//
//
// A persistent kernel walks rows in a grid-stride loop (tutorial 02's
// softmax: `for row in tl.range(pid, n_rows, num_programs)`): program p takes
// rows p, p + P, p + 2P, ... On a CPU a thread runs its programs one after
// the other, so it jumps P rows per iteration. Here such a loop takes a
// block of consecutive rows instead: program p takes [p * B, (p + 1) * B),
// B = ceil(n_rows / P). Over all programs these are the same rows, each
// taken once, and within a program still in increasing order; a thread
// walks its programs' rows in order, which measured faster (below; that the
// hardware prefetchers, which follow a thread's addresses, then fetch rows
// the thread uses next is a likely reason, not verified).
//
// That is the same kernel only when no iteration writes memory another one
// reads or writes: programs have no order in Triton, but a program's
// iterations do. The pass proves the rest statically (the program id is
// used only as the loop's start, nothing outside the loop writes memory,
// the loop carries nothing, every access is `arg + row * s + c + lanes`
// with the lanes ranges and the counters of loops inside it (column blocks
// of a row wider than the block), masked below a bound or not) and the
// independence at run time: the blocked loop runs when every store's
// bytes, over all rows, are disjoint from every other access's, or each row
// writes only the bytes that the same row reads (softmax in place);
// otherwise the loop as written runs.
//
// The check computes offsets in 64 bits; a 32-bit offset the kernel
// computes (`row * stride` in i32) wraps where that model does not, and
// then addresses other memory than the check saw. So the check also
// requires every narrower offset to take, over all rows and lanes, only
// values its type holds; its pieces are bounded too (a stride within 2^31,
// the rest within 2^32), which keeps the check's own 64-bit sums exact.
// Products of three or more unknown factors could still wrap those; no
// kernel seen computes one.
//
// Tutorial 02's softmax, 8 programs on 2 threads, without and with this
// pass in turns in one process, each call after 64 MiB of cache-clearing
// writes (GB/s): 4096 x 4096 31.7-32.2 -> 36.3-36.7, 4096 x 8192 35.1-35.4
// -> 39.4-39.7, 4096 x 1024 21.5-22.1 -> 24.3-29.7, 4096 x 256 13.4-14.7 ->
// 20.8-21.0; 1 thread, 4096 x 4096 17.1-18.4 -> 18.8.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/ProgramIdArguments.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::spine {
#define GEN_PASS_DEF_BLOCKGRIDSTRIDELOOPS
#include "passes/Passes.h.inc"

namespace {

/// An integer (scalar or tensor) as `row * stride + offset + lanes`, row
/// the loop's counter, stride and offset loop-invariant i64 scalars (null:
/// 0), and lanes what varies within an iteration (a tt.make_range's
/// elements, the counter of a loop inside): within [laneBegin, laneEnd),
/// i64 values computed before the loop (null: no lanes). `lanes` is a value
/// whose elements are those lanes exactly, when there is one: a mask
/// `lanes < n` then bounds them.
struct Linear {
  Value stride, offset;
  Value laneBegin, laneEnd;
  Value lanes;

  bool hasLanes() const { return static_cast<bool>(laneBegin); }
};

/// An offset computed in a type narrower than 64 bits.
struct NarrowOffset {
  Linear at;
  unsigned width;
};

/// Where a tt.load or tt.store reaches, in elements of its pointer argument.
struct Access {
  bool writes;
  Value base;
  int64_t elementBytes;
  Linear at;
  /// Lanes from this value on are masked off (i64; null: none are).
  Value laneLimit;
};

/// Records what a builder creates, to erase it again when the loop turns
/// out not to qualify.
struct CreatedOps : OpBuilder::Listener {
  SmallVector<Operation *> ops;
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  void eraseAll() {
    for (Operation *op : llvm::reverse(ops))
      op->erase();
    ops.clear();
  }
};

class Analysis {
public:
  Analysis(OpBuilder &b, scf::ForOp loop) : b(b), loop(loop) {}

  /// The loop's accesses, or nothing when one is not of the form above or
  /// something else in the loop has memory effects.
  std::optional<SmallVector<Access>> accesses() {
    SmallVector<Access> result;
    WalkResult walk = loop.getBody()->walk([&](Operation *op) {
      if (auto load = dyn_cast<triton::LoadOp>(op)) {
        if (!addAccess(result, load.getPtr(), load.getMask(), false))
          return WalkResult::interrupt();
        return WalkResult::advance();
      }
      if (auto store = dyn_cast<triton::StoreOp>(op)) {
        if (!addAccess(result, store.getPtr(), store.getMask(), true))
          return WalkResult::interrupt();
        return WalkResult::advance();
      }
      // Region ops (scf.if, tt.reduce) have the effects of what they hold,
      // which the walk visits.
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          isMemoryEffectFree(op))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return std::nullopt;
    return result;
  }

  /// The offsets narrower than 64 bits that the accesses' addresses use.
  ArrayRef<NarrowOffset> narrowOffsets() const { return narrow; }

private:
  bool isInvariant(Value v) {
    return !loop->isAncestor(v.getParentBlock()->getParentOp());
  }

  Value toI64(Value v) {
    if (v.getType().isInteger(64))
      return v;
    return arith::ExtSIOp::create(b, loop.getLoc(), b.getI64Type(), v);
  }
  Value constant(int64_t v) {
    return arith::ConstantIntOp::create(b, loop.getLoc(), b.getI64Type(), v);
  }
  Value add(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return arith::AddIOp::create(b, loop.getLoc(), x, y);
  }
  Value sub(Value x, Value y) {
    if (!y)
      return x;
    return arith::SubIOp::create(b, loop.getLoc(), x ? x : constant(0), y);
  }
  Value mul(Value x, Value y) {
    if (!x || !y)
      return Value();
    return arith::MulIOp::create(b, loop.getLoc(), x, y);
  }

  /// x + y; lanes of both have no one value that is them.
  Linear plus(const Linear &x, const Linear &y) {
    Linear sum{add(x.stride, y.stride), add(x.offset, y.offset)};
    if (x.hasLanes() && y.hasLanes()) {
      sum.laneBegin = add(x.laneBegin, y.laneBegin);
      sum.laneEnd = sub(add(x.laneEnd, y.laneEnd), constant(1));
    } else {
      const Linear &side = x.hasLanes() ? x : y;
      sum.laneBegin = side.laneBegin;
      sum.laneEnd = side.laneEnd;
      sum.lanes = side.lanes;
    }
    return sum;
  }

  /// The counter of a loop in the body, with bounds computed before the
  /// loop and a positive constant step, as lanes [lower, upper).
  std::optional<Linear> innerCounter(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    auto inner = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                     : scf::ForOp();
    if (!inner || inner == loop || !loop->isProperAncestor(inner) ||
        inner.getInductionVar() != v || !isInvariant(inner.getLowerBound()) ||
        !isInvariant(inner.getUpperBound()))
      return std::nullopt;
    auto step = getConstantIntValue(inner.getStep());
    if (!step || *step <= 0 || !v.getType().isSignlessInteger())
      return std::nullopt;
    Linear counter;
    counter.laneBegin = toI64(inner.getLowerBound());
    counter.laneEnd = toI64(inner.getUpperBound());
    counter.lanes = v;
    return counter;
  }

  std::optional<Linear> linear(Value v) {
    if (v == loop.getInductionVar())
      return Linear{constant(1), Value()};
    if (auto attr = getConstantIntValue(v)) // scalars and splat constants
      return Linear{Value(), constant(*attr)};
    // A loop-invariant scalar is an offset as it is; tensors (a range made
    // before the loop) are looked into.
    if (isInvariant(v) && v.getType().isSignlessInteger() &&
        v.getType().getIntOrFloatBitWidth() <= 64)
      return Linear{Value(), toI64(v)};
    if (auto counter = innerCounter(v))
      return counter;
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto range = dyn_cast<triton::MakeRangeOp>(def)) {
      Linear result;
      result.laneBegin = constant(range.getStart());
      result.laneEnd = constant(range.getEnd());
      result.lanes = v;
      return result;
    }
    if (isa<triton::SplatOp, triton::BroadcastOp, triton::ExpandDimsOp>(def))
      return linear(def->getOperand(0));
    if (isa<arith::ExtSIOp>(def))
      return narrowLinear(def->getOperand(0));
    if (isa<arith::AddIOp>(def)) {
      auto x = linear(def->getOperand(0)), y = linear(def->getOperand(1));
      if (!x || !y)
        return std::nullopt;
      Linear sum = plus(*x, *y);
      // Lanes of both sides: the sum is its lanes when nothing else is in it.
      if (x->hasLanes() && y->hasLanes() && !sum.stride && !sum.offset)
        sum.lanes = v;
      return sum;
    }
    if (isa<arith::SubIOp>(def)) {
      auto x = linear(def->getOperand(0)), y = linear(def->getOperand(1));
      if (!x || !y || y->hasLanes())
        return std::nullopt;
      Linear difference = *x;
      difference.stride = sub(x->stride, y->stride);
      difference.offset = sub(x->offset, y->offset);
      return difference;
    }
    if (isa<arith::MulIOp>(def)) {
      auto x = linear(def->getOperand(0)), y = linear(def->getOperand(1));
      if (!x || !y)
        return std::nullopt;
      if (x->stride || x->hasLanes())
        std::swap(x, y);
      // x must be a loop-invariant scalar factor.
      if (x->stride || x->hasLanes() || !x->offset)
        return std::nullopt;
      Linear product{mul(y->stride, x->offset), mul(y->offset, x->offset)};
      if (y->hasLanes()) {
        // Lanes scale only by a known positive factor.
        auto factor = getConstantIntValue(x->offset);
        if (!factor || *factor <= 0)
          return std::nullopt;
        product.laneBegin = mul(y->laneBegin, x->offset);
        product.laneEnd =
            add(mul(sub(y->laneEnd, constant(1)), x->offset), constant(1));
        if (*factor == 1)
          product.lanes = y->lanes;
      }
      return product;
    }
    return std::nullopt;
  }

  /// linear(v), recorded to be checked for wrapping when v is narrower than
  /// 64 bits (once: a load and a store often share their offsets).
  std::optional<Linear> narrowLinear(Value v) {
    std::optional<Linear> result = linear(v);
    unsigned width = getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth();
    if (result && width < 64 && narrowSeen.insert(v).second)
      narrow.push_back({*result, width});
    return result;
  }

  /// `ptr` as a pointer argument plus a Linear offset in its elements.
  std::optional<std::pair<Value, Linear>> pointer(Value ptr) {
    if (auto arg = dyn_cast<BlockArgument>(ptr)) {
      if (!isa<triton::PointerType>(arg.getType()) ||
          !isa<triton::FuncOp>(arg.getOwner()->getParentOp()))
        return std::nullopt;
      return std::make_pair(ptr, Linear{});
    }
    Operation *def = ptr.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (isa<triton::SplatOp, triton::BroadcastOp, triton::ExpandDimsOp>(def))
      return pointer(def->getOperand(0));
    auto addptr = dyn_cast<triton::AddPtrOp>(def);
    if (!addptr)
      return std::nullopt;
    auto base = pointer(addptr.getPtr());
    auto offset = narrowLinear(addptr.getOffset());
    if (!base || !offset)
      return std::nullopt;
    return std::make_pair(base->first, plus(base->second, *offset));
  }

  /// The bound a mask `lanes < n` (or a conjunction with one) puts on
  /// `lanes`, null when there is none.
  Value laneLimit(Value mask, Value lanes) {
    if (!mask || !lanes)
      return Value();
    Operation *def = mask.getDefiningOp();
    if (auto both = dyn_cast_or_null<arith::AndIOp>(def)) {
      if (Value limit = laneLimit(both.getLhs(), lanes))
        return limit;
      return laneLimit(both.getRhs(), lanes);
    }
    auto compare = dyn_cast_or_null<arith::CmpIOp>(def);
    if (!compare)
      return Value();
    // lanes < n, or n > lanes.
    Value bound;
    if (compare.getLhs() == lanes &&
        compare.getPredicate() == arith::CmpIPredicate::slt)
      bound = compare.getRhs();
    else if (compare.getRhs() == lanes &&
             compare.getPredicate() == arith::CmpIPredicate::sgt)
      bound = compare.getLhs();
    else
      return Value();
    auto limit = linear(bound);
    if (!limit || limit->stride || limit->hasLanes() || !limit->offset)
      return Value();
    return limit->offset;
  }

  bool addAccess(SmallVector<Access> &accesses, Value ptr, Value mask,
                 bool writes) {
    auto where = pointer(ptr);
    if (!where)
      return false;
    auto pointee =
        cast<triton::PointerType>(where->first.getType()).getPointeeType();
    if (!pointee.isIntOrFloat())
      return false;
    int64_t bytes = std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
    accesses.push_back({writes, where->first, bytes, where->second,
                        laneLimit(mask, where->second.lanes)});
    return true;
  }

  OpBuilder &b;
  scf::ForOp loop;
  SmallVector<NarrowOffset> narrow;
  DenseSet<Value> narrowSeen;
};

/// Builds, before the loop, whether at run time no iteration of it touches
/// what another one writes.
class IndependenceCheck {
public:
  IndependenceCheck(OpBuilder &b, Location loc, Value upperBound)
      : b(b), loc(loc) {
    // All programs together take the rows [0, n_rows): the last is
    // n_rows - 1 (0 when there are none, and then nothing runs).
    Value n = arith::ExtSIOp::create(b, loc, b.getI64Type(), upperBound);
    lastRow = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, n, constant(1)), constant(0));
  }

  Value holds(ArrayRef<Access> accesses, ArrayRef<NarrowOffset> narrow) {
    Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (const NarrowOffset &offset : narrow)
      ok = arith::AndIOp::create(b, loc, ok, fits(offset));
    SmallVector<Footprint> footprints;
    for (const Access &access : accesses)
      footprints.push_back(footprint(access));
    for (auto [i, store] : llvm::enumerate(footprints)) {
      if (!accesses[i].writes)
        continue;
      for (auto [j, other] : llvm::enumerate(footprints)) {
        if (j < i && accesses[j].writes)
          continue; // this pair was checked the other way round
        Value independent = rowPrivate(store, other);
        if (i != j)
          independent = orOp(independent, disjoint(store, other));
        Value empty = orOp(isZero(store.bytes), isZero(other.bytes));
        ok = arith::AndIOp::create(b, loc, ok, orOp(independent, empty));
      }
    }
    return ok;
  }

private:
  /// Row r's bytes are [start + r * rowBytes, ... + bytes); over all rows
  /// they lie within [low, high).
  struct Footprint {
    Value start, rowBytes, bytes, low, high;
  };

  Value constant(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value orOp(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value isZero(Value x) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x,
                                 constant(0));
  }

  Value within(Value x, int64_t low, int64_t high) {
    return arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, x,
                              constant(low)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, x,
                              constant(high)));
  }

  /// Over all rows and lanes, `offset` takes only values its type holds.
  Value fits(const NarrowOffset &offset) {
    const Linear &at = offset.at;
    Value zero = constant(0);
    Value stride = at.stride ? at.stride : zero;
    Value base = at.offset ? at.offset : zero;
    Value first = at.hasLanes() ? at.laneBegin : zero;
    Value last = at.hasLanes()
                     ? arith::SubIOp::create(b, loc, at.laneEnd, constant(1))
                     : zero;
    int64_t piece = int64_t(1) << 32;
    Value bounded = arith::AndIOp::create(
        b, loc, within(stride, -(piece / 2), piece / 2),
        arith::AndIOp::create(
            b, loc, within(base, -piece, piece),
            arith::AndIOp::create(b, loc, within(first, -piece, piece),
                                  within(last, -piece, piece))));
    Value rows = arith::MulIOp::create(b, loc, stride, lastRow);
    Value low = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, base, first),
        arith::MinSIOp::create(b, loc, rows, zero));
    Value high =
        arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, base, last),
                              arith::MaxSIOp::create(b, loc, rows, zero));
    int64_t limit = int64_t(1) << (offset.width - 1);
    return arith::AndIOp::create(
        b, loc, bounded,
        arith::AndIOp::create(b, loc, within(low, -limit, limit - 1),
                              within(high, -limit, limit - 1)));
  }

  Footprint footprint(const Access &access) {
    Value size = constant(access.elementBytes);
    auto scaled = [&](Value elements) {
      return arith::MulIOp::create(b, loc, elements ? elements : constant(0),
                                   size);
    };
    Value address =
        triton::PtrToIntOp::create(b, loc, b.getI64Type(), access.base);
    // Without lanes, one element: [0, 1).
    Value begin = access.at.hasLanes() ? access.at.laneBegin : constant(0);
    Value end = access.at.hasLanes() ? access.at.laneEnd : constant(1);
    Value first = arith::AddIOp::create(
        b, loc, access.at.offset ? access.at.offset : constant(0), begin);
    Footprint f;
    f.start = arith::AddIOp::create(b, loc, address, scaled(first));
    f.rowBytes = scaled(access.at.stride);
    // Lanes at or past the mask's bound are not accessed.
    if (access.laneLimit)
      end = arith::MinSIOp::create(b, loc, end, access.laneLimit);
    Value lanes = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, end, begin), constant(0));
    f.bytes = scaled(lanes);
    Value last = arith::AddIOp::create(
        b, loc, f.start, arith::MulIOp::create(b, loc, f.rowBytes, lastRow));
    f.low = arith::MinSIOp::create(b, loc, f.start, last);
    f.high = arith::AddIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, f.start, last), f.bytes);
    return f;
  }

  /// The two footprints lie apart over all rows.
  Value disjoint(const Footprint &x, const Footprint &y) {
    return orOp(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, x.high, y.low),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, y.high,
                              x.low));
  }

  /// Each row of both starts at the same byte and the rows lie apart: a row
  /// writes only what the same row reads.
  Value rowPrivate(const Footprint &x, const Footprint &y) {
    Value sameStart = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            x.start, y.start);
    Value sameStep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           x.rowBytes, y.rowBytes);
    Value step = arith::MaxSIOp::create(
        b, loc, x.rowBytes,
        arith::SubIOp::create(b, loc, constant(0), x.rowBytes));
    Value widest = arith::MaxSIOp::create(b, loc, x.bytes, y.bytes);
    Value apart =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, step, widest);
    // With one row there is no other row to overlap.
    Value oneRow = isZero(lastRow);
    return arith::AndIOp::create(
        b, loc, arith::AndIOp::create(b, loc, sameStart, sameStep),
        orOp(apart, oneRow));
  }

  OpBuilder &b;
  Location loc;
  Value lastRow;
};

/// The function's only grid-stride loop over pid_x with everything outside
/// it free of writes, or null.
scf::ForOp gridStrideLoop(triton::FuncOp func) {
  if (!func.isPublic() || func.getNumArguments() < kNumProgramIdArgs)
    return {};
  unsigned first = func.getNumArguments() - kNumProgramIdArgs;
  Value pid = func.getArgument(first), programs = func.getArgument(first + 3);
  scf::ForOp found;
  for (Operation &op : func.getBody().front()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (loop && loop.getLowerBound() == pid && loop.getStep() == programs &&
        loop.getNumRegionIterArgs() == 0 && !found) {
      found = loop;
      continue;
    }
    // Loads are fine: one before the loop may see another program's
    // iterations or not, blocked or not (programs are unordered), and what
    // one after it reads reaches no store.
    if (isa<triton::LoadOp>(op) || isMemoryEffectFree(&op) ||
        op.hasTrait<OpTrait::IsTerminator>())
      continue;
    return {};
  }
  // Which rows the loop takes is all the program id decides.
  if (!found || !pid.hasOneUse())
    return {};
  return found;
}

void blockRows(triton::FuncOp func) {
  scf::ForOp loop = gridStrideLoop(func);
  if (!loop)
    return;
  OpBuilder b(loop);
  CreatedOps created;
  b.setListener(&created);
  Analysis analysis(b, loop);
  std::optional<SmallVector<Access>> accesses = analysis.accesses();
  if (!accesses || accesses->empty()) {
    created.eraseAll();
    return;
  }
  Location loc = loop.getLoc();
  Value ok = IndependenceCheck(b, loc, loop.getUpperBound())
                 .holds(*accesses, analysis.narrowOffsets());
  b.setListener(nullptr);

  // Program p takes rows [p * B, min((p + 1) * B, n_rows)).
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  Value rows = arith::MaxSIOp::create(b, loc, loop.getUpperBound(), zero);
  Value block = arith::CeilDivSIOp::create(b, loc, rows, loop.getStep());
  Value start = arith::MulIOp::create(b, loc, loop.getLowerBound(), block);
  // start + min(B, rows - start): no i32 overflow past n_rows.
  Value end = arith::AddIOp::create(
      b, loc, start,
      arith::MinSIOp::create(b, loc, block,
                             arith::SubIOp::create(b, loc, rows, start)));

  auto version = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/true);
  b.setInsertionPointToStart(version.thenBlock());
  auto blocked = cast<scf::ForOp>(b.clone(*loop));
  blocked.setLowerBound(start);
  blocked.setUpperBound(end);
  blocked.setStep(one);
  loop->moveBefore(version.elseBlock()->getTerminator());
}

struct BlockGridStrideLoopsPass
    : impl::BlockGridStrideLoopsBase<BlockGridStrideLoopsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<triton::FuncOp>())
      if (!func.isExternal())
        blockRows(func);
  }
};

} // namespace
} // namespace mlir::spine
