//===- VectorizeElementLoops.cpp - element loops become vector code -------===//
//
// Tensor loads and stores and elementwise ops reach this pass as innermost
// scf.for loops over one element at a time: index arithmetic, an llvm.load or
// llvm.store under an scf.if for the mask, and memref accesses of tile
// buffers at [..., iv]. LLVM's loop vectorizer gives up on most of them
// (conditional loads through addresses it cannot prove consecutive, integer
// division in the index). Here each such loop is strip-mined by VF lanes and
// its body widened:
//
//  * values that depend on the induction variable become vectors; the others
//    stay scalar and are broadcast where a vector needs them;
//  * an scf.if is if-converted: its ops run under a lane mask and its results
//    become selects;
//  * memref accesses at [..., iv] of buffers with unit inner stride become
//    (masked) vector loads and stores;
//  * llvm.load/llvm.store through computed addresses check at run time
//    whether the VF addresses are consecutive: if so, one masked vector
//    access, otherwise a masked gather or scatter. Masked-off lanes are never
//    accessed, so no access leaves the kernel's mask. Where addresses are
//    consecutive unless 32-bit offsets wrap, one check before the loop picks
//    a version of it without per-strip checks;
//  * on x86, stores of loops that stream more than the last-level cache
//    over the launch are non-temporal (streamingCondition).
//
// Lanes of one strip load before they store, which is Triton's order (a
// tl.load completes before the tl.store that uses it). Loops holding
// anything else (calls, atomics, nested loops, accumulation through a buffer
// element) are left to LLVM.
//
//===----------------------------------------------------------------------===//

#include "passes/CombiningKinds.h"
#include "passes/IterationEvaluator.h"
#include "passes/LaneStrides.h"
#include "passes/Passes.h"
#include "passes/ProgramIdArguments.h"
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
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/SaveAndRestore.h"

namespace mlir::spine {
#define GEN_PASS_DEF_VECTORIZEELEMENTLOOPS
#include "passes/Passes.h.inc"

namespace {

/// pid_x of a lowered kernel (the first of its trailing program-id
/// arguments), or null.
Value pidXOf(func::FuncOp func) {
  if (!func || func.getNumArguments() < kNumProgramIdArgs)
    return {};
  return func.getArgument(func.getNumArguments() - kNumProgramIdArgs);
}

/// Whether `v` is `arg` or computed from it.
bool computedFrom(Value v, Value arg) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value at = work.pop_back_val();
    if (at == arg)
      return true;
    if (!seen.insert(at).second)
      continue;
    if (Operation *def = at.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// Wider strips only grow the address vectors (i64 per lane).
constexpr int64_t maxLanes = 64;
/// The line size of the caches prefetches fill (x86-64 cores, SpacemiT's
/// X60).
constexpr int64_t kCacheLineBytes = 64;
/// Bytes the next-iteration (or next-program) prefetches of a loop look
/// ahead at least, and at most how many iterations (programs) ahead. 8 KiB
/// rather than 4: tutorial 02's softmax beyond the cache, 2 threads, in
/// turns with torch's softmax (after whose calls ours run slower; why is
/// not known), 4096 x 256 +30-45% (eight rows ahead instead of four),
/// 4096 x 1024 +17-20% (two instead of one), and within 6% either way
/// without torch in the rounds; layer norm at 512 to 4096 columns within
/// 3%.
constexpr int64_t kPrefetchLookaheadBytes = 8192;
constexpr int64_t kMaxPrefetchDistance = 8;

/// How many iterations (or programs) ahead prefetches go when each reads
/// `bytes`: enough to cover kPrefetchLookaheadBytes, within
/// [1, kMaxPrefetchDistance].
int64_t stepsAhead(int64_t bytes) {
  return std::clamp<int64_t>(llvm::divideCeil(kPrefetchLookaheadBytes, bytes),
                             1, kMaxPrefetchDistance);
}
/// Vector registers per strip in a loop that reduces, and with lineStrips and
/// kWideStripRegisterFile registers in any loop.
constexpr int64_t stripRegisters = 4;
/// The registers a target needs for loops that do not reduce to take strips
/// of stripRegisters registers too (with line-strips): with 16 (AVX2) such a
/// strip of a heavy elementwise chain spills three times as much.
constexpr unsigned kWideStripRegisterFile = 32;

/// Integer division traps on a zero divisor: it must not run for lanes the
/// mask turned off.
bool mayTrap(Operation *op) {
  return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
             arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op);
}

bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

/// A vector of i1 is a bit mask in memory, a scalar i1 a byte: accesses of
/// booleans keep their scalar loop.
bool isAccessible(Type type) { return isScalar(type) && !type.isInteger(1); }

bool hasUnitInnerStride(MemRefType type) {
  if (type.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

/// `acc[i] = combine(acc[i], x)` at an index fixed in the loop: the loop
/// that convert-linalg-to-loops makes of a reduction. Widened, it carries
/// a vector of partial results and reduces it across lanes once at the end.
struct Reduction {
  // Op handles are used from const analyses; their accessors are non-const.
  mutable memref::LoadOp load;
  Operation *combine;
  mutable memref::StoreOp store;
  vector::CombiningKind kind;
};

/// Whether `r` accumulates by compare and select plus a guard: with
/// `selectMinMax`, the target's vector min/max is a compare and select
/// (x86 vmaxps returns its second operand when either is NaN), where a
/// maxnum step is three ops (max, NaN test of the accumulator, blend).
/// `x > acc ? x : acc` from -inf is one vmaxps and skips NaN elements; a
/// guard `x < g ? x : g` from +inf stays +inf, with acc at -inf, only in a
/// lane that saw nothing but NaN, whose maxnum is NaN. Two ops per vector.
/// Only for types with infinities (fp8 is bytes by then).
bool isGuardedMinMax(const Reduction &r, bool selectMinMax) {
  auto type = dyn_cast<FloatType>(r.load.getType());
  return selectMinMax && type &&
         APFloat::semanticsHasInf(type.getFloatSemantics()) &&
         (r.kind == vector::CombiningKind::MAXNUMF ||
          r.kind == vector::CombiningKind::MINNUMF);
}

/// Whether `r` is guarded (isGuardedMinMax) and keeps its guard
/// accumulator: not where its loop goes without (`guardFree`, see
/// rechecksAtStart).
bool keepsGuard(const Reduction &r, bool selectMinMax, bool guardFree) {
  return isGuardedMinMax(r, selectMinMax) && !guardFree;
}

/// Where a guarded reduction's accumulator (or, with `guard`, its guard)
/// starts: -inf (+inf) for maxnum, the reverse for minnum.
TypedAttr guardedStart(const Reduction &r, bool guard) {
  auto type = cast<FloatType>(r.load.getType());
  bool negative = (r.kind == vector::CombiningKind::MAXNUMF) != guard;
  return FloatAttr::get(type,
                        APFloat::getInf(type.getFloatSemantics(), negative));
}

/// The vector.reduction kind of `op` when lanes may combine in any order:
/// integer ops and float min/max always, float add/mul only with reassoc.
std::optional<vector::CombiningKind> reductionKind(Operation *op) {
  if (auto fastmath = dyn_cast<arith::ArithFastMathInterface>(op);
      fastmath && isa<arith::AddFOp, arith::MulFOp>(op) &&
      !bitEnumContainsAll(fastmath.getFastMathFlagsAttr().getValue(),
                          arith::FastMathFlags::reassoc))
    return std::nullopt;
  return getCombiningKind(op);
}

/// Which values of a loop body depend on the induction variable, and whether
/// every op in it can be widened.
class LoopAnalysis {
public:
  explicit LoopAnalysis(scf::ForOp loop) : iv(loop.getInductionVar()) {
    varying.insert(iv);
    legal = findReductions(loop) && visit(loop.getBody(), /*masked=*/false);
  }

  bool isLegal() const { return legal; }
  ArrayRef<Reduction> getReductions() const { return reductions; }
  bool isReductionStore(Operation *op) const {
    return llvm::any_of(reductions, [&](const Reduction &r) {
      return r.store.getOperation() == op;
    });
  }
  bool isVarying(Value v) const { return varying.contains(v); }
  const DenseSet<Value> &getVarying() const { return varying; }
  /// Narrowest element accessed in memory, in bits (0 if nothing is).
  unsigned narrowestAccess() const { return narrowest; }

private:
  /// Records each `acc[i] = combine(acc[i], x)` of the body. False if a
  /// reduction's buffer is also accessed otherwise.
  bool findReductions(scf::ForOp loop) {
    Block *body = loop.getBody();
    for (auto load : body->getOps<memref::LoadOp>()) {
      // The indices must also be valid after the loop.
      if (!load->hasOneUse() || llvm::any_of(load.getIndices(), [&](Value v) {
            return loop->isAncestor(v.getParentBlock()->getParentOp());
          }))
        continue;
      Operation *combine = *load->getUsers().begin();
      std::optional<vector::CombiningKind> kind = reductionKind(combine);
      if (combine->getBlock() != body || !kind || !combine->hasOneUse() ||
          combine->getOperand(0) == combine->getOperand(1) ||
          !getNeutralElement(*kind, load.getType()))
        continue;
      auto store = dyn_cast<memref::StoreOp>(*combine->getUsers().begin());
      if (!store || store->getBlock() != body ||
          store.getMemRef() != load.getMemRef() ||
          store.getIndices() != load.getIndices() ||
          store.getValueToStore() != combine->getResult(0))
        continue;
      reductions.push_back({load, combine, store, *kind});
    }
    // A reduction's buffer may not be read or written by anything else.
    for (const Reduction &r : reductions) {
      Value root = rootBuffer(r.load.getMemRef());
      WalkResult result = body->walk([&](Operation *op) {
        if (op == r.load || op == r.store)
          return WalkResult::advance();
        for (Value operand : op->getOperands())
          if (isa<MemRefType>(operand.getType()) && rootBuffer(operand) == root)
            return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (result.wasInterrupted())
        return false;
      varying.insert(r.load.getResult());
    }
    return true;
  }

  bool anyVarying(Operation *op) const {
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return varying.contains(v); });
  }

  void noteAccess(Type type) {
    unsigned bits = type.getIntOrFloatBitWidth();
    if (!narrowest || bits < narrowest)
      narrowest = bits;
  }

  bool visit(Block *block, bool masked) {
    for (Operation &op : block->without_terminator())
      if (!visit(&op, masked))
        return false;
    return true;
  }

  void markResults(Operation *op) {
    for (Value result : op->getResults())
      varying.insert(result);
  }

  bool visit(Operation *op, bool masked) {
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (!llvm::all_of(ifOp.getResultTypes(), isScalar))
        return false;
      if (!visit(ifOp.thenBlock(), true) ||
          (ifOp.elseBlock() && !visit(ifOp.elseBlock(), true)))
        return false;
      // Results are selects on the (broadcast) condition.
      markResults(op);
      return true;
    }
    if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
      if (load.getVolatile_() ||
          load.getOrdering() != LLVM::AtomicOrdering::not_atomic ||
          !isAccessible(load.getType()))
        return false;
      noteAccess(load.getType());
      // A load the mask guards must not run for masked-off lanes, so it is
      // a lane-wise access even at a uniform address.
      if (masked || anyVarying(op))
        markResults(op);
      return true;
    }
    if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
      if (store.getVolatile_() ||
          store.getOrdering() != LLVM::AtomicOrdering::not_atomic ||
          !isAccessible(store.getValue().getType()))
        return false;
      noteAccess(store.getValue().getType());
      // A store every lane makes to one address is a loop-carried update.
      return varying.contains(store.getAddr());
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (varying.contains(load.getResult())) { // a reduction's accumulator
        noteAccess(load.getType());
        return true;
      }
      if (!anyVarying(op))
        return !masked; // A uniform read the mask guards is left to LLVM.
      if (!accessAtIv(load.getMemRefType(), load.getIndices()))
        return false;
      noteAccess(load.getType());
      markResults(op);
      return true;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      noteAccess(store.getValueToStore().getType());
      if (isReductionStore(op))
        return true;
      return accessAtIv(store.getMemRefType(), store.getIndices());
    }
    if (auto cast = dyn_cast<LLVM::IntToPtrOp>(op)) {
      if (!isScalar(cast.getArg().getType()))
        return false;
      if (anyVarying(op))
        markResults(op);
      return true;
    }
    if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
      if (!isByteGep(gep))
        return false;
      if (anyVarying(op))
        markResults(op);
      return true;
    }
    if (isa<arith::ConstantOp>(op))
      return true;
    // llvm.intr.powi takes one scalar exponent for all lanes.
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<math::FPowIOp, math::IPowIOp>(op) || op->getNumRegions() != 0 ||
        op->getNumResults() != 1 || !isScalar(op->getResult(0).getType()) ||
        !llvm::all_of(op->getOperandTypes(), isScalar))
      return false;
    if (anyVarying(op)) {
      if (masked && mayTrap(op))
        return false;
      markResults(op);
    }
    return true;
  }

  /// All indices uniform but the last, which is the induction variable, of a
  /// buffer whose innermost dimension is contiguous.
  bool accessAtIv(MemRefType type, ValueRange indices) {
    if (indices.empty() || indices.back() != iv || !hasUnitInnerStride(type) ||
        !isAccessible(type.getElementType()))
      return false;
    return llvm::none_of(indices.drop_back(),
                         [&](Value v) { return varying.contains(v); });
  }

  Value iv;
  SmallVector<Reduction> reductions;
  DenseSet<Value> varying;
  unsigned narrowest = 0;
  bool legal = false;
};

/// The address an llvm.load or llvm.store accesses.
Value accessAddress(Operation *op) {
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return load.getAddr();
  return cast<LLVM::StoreOp>(op).getAddr();
}

int64_t accessSize(Operation *op) {
  Type type = isa<LLVM::LoadOp>(op)
                  ? op->getResult(0).getType()
                  : cast<LLVM::StoreOp>(op).getValue().getType();
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}

/// How the lanes of each llvm.load and llvm.store of a loop are known to be
/// consecutive.
struct Contiguity {
  /// By construction of their addresses.
  DenseSet<Operation *> proven;
  /// When `noWrap` holds: the 32-bit offsets in their addresses do not
  /// wrap anywhere in the loop, checked once before it.
  DenseSet<Operation *> unlessWrapped;
  Value noWrap;
};

/// Which llvm.load and llvm.store of `loop` have consecutive lanes by
/// construction of their addresses, and for those whose 32-bit offsets may
/// wrap, the check (emitted at `b`, before the loop) that they do not: the
/// first and the last iteration's addresses are as far apart as the stride
/// says.
Contiguity findContiguity(OpBuilder &b, scf::ForOp loop,
                          const LoopAnalysis &analysis, int64_t lb,
                          int64_t ub) {
  Contiguity result;
  LaneStrides strides(loop.getInductionVar(), lb, ub, analysis.getVarying());
  Location loc = loop.getLoc();
  std::optional<IterationEvaluator> first, last;
  auto addressAt = [&](IterationEvaluator &at, Value ptr) -> Value {
    Value v = at.at(ptr);
    if (v && isa<LLVM::LLVMPointerType>(v.getType()))
      v = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
    return v;
  };
  loop.getBody()->walk([&](Operation *op) {
    if (!isa<LLVM::LoadOp, LLVM::StoreOp>(op))
      return;
    Value addr = accessAddress(op);
    int64_t size = accessSize(op);
    std::optional<LaneStride> stride = strides.of(addr);
    if (!stride || stride->stride != size)
      return;
    if (!stride->wrap) {
      result.proven.insert(op);
      return;
    }
    if (!first) {
      first.emplace(b, loop, arith::ConstantIndexOp::create(b, loc, lb));
      last.emplace(b, loop, arith::ConstantIndexOp::create(b, loc, ub - 1));
    }
    Value from = addressAt(*first, addr), to = addressAt(*last, addr);
    if (!from || !to)
      return;
    Value span = arith::SubIOp::create(b, loc, to, from);
    Value ok = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, span,
        arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                     (ub - 1 - lb) * size));
    result.noWrap =
        result.noWrap ? arith::AndIOp::create(b, loc, result.noWrap, ok) : ok;
    result.unlessWrapped.insert(op);
  });
  return result;
}

/// The kernel argument an address is computed from: through GEP bases,
/// inttoptr and the first operand of additions (the lowering adds offsets to
/// a pointer as ptr + offset); null when it is not found that way.
BlockArgument pointerArgument(Value v) {
  for (int depth = 0; depth < 16; ++depth) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return isa<func::FuncOp>(arg.getOwner()->getParentOp()) ? arg
                                                              : BlockArgument();
    Operation *def = v.getDefiningOp();
    if (auto gep = dyn_cast_if_present<LLVM::GEPOp>(def))
      v = gep.getBase();
    else if (auto cast = dyn_cast_if_present<LLVM::IntToPtrOp>(def))
      v = cast.getArg();
    else if (auto add = dyn_cast_if_present<arith::AddIOp>(def))
      v = add.getLhs();
    else
      return {};
  }
  return {};
}

/// The kernel arguments some access reads memory through: each pointer made
/// from one (inttoptr) that is used other than as a store's address or a
/// prefetch's (a load, a view over it).
DenseSet<BlockArgument> argumentsRead(func::FuncOp func) {
  DenseSet<BlockArgument> read;
  func.walk([&](LLVM::IntToPtrOp cast) {
    BlockArgument arg = pointerArgument(cast.getResult());
    if (!arg || read.contains(arg))
      return;
    SmallVector<Value> pointers = {cast.getResult()};
    while (!pointers.empty()) {
      Value pointer = pointers.pop_back_val();
      for (OpOperand &use : pointer.getUses()) {
        Operation *user = use.getOwner();
        if (auto gep = dyn_cast<LLVM::GEPOp>(user);
            gep && gep.getBase() == pointer) {
          pointers.push_back(gep.getResult());
          continue;
        }
        if (auto store = dyn_cast<LLVM::StoreOp>(user);
            (store && store.getAddr() == pointer) || isa<LLVM::Prefetch>(user))
          continue;
        read.insert(arg);
        return;
      }
    }
  });
  return read;
}

/// Emits the widened body of one strip of VF iterations.
class Widener {
public:
  /// `streaming`, if given, is the i1 that streamingCondition computes:
  /// whole-register stores to aligned addresses then bypass the caches.
  /// With `guardFree`, guarded reductions (isGuardedMinMax) accumulate by
  /// compare and select without their guards (see rechecksAtStart).
  Widener(OpBuilder &b, Location loc, const LoopAnalysis &analysis,
          const Contiguity &contiguity, int64_t lanes, Value streaming,
          int64_t registerBytes, bool selectMinMax, bool guardFree,
          int64_t programsAhead)
      : b(b), loc(loc), analysis(analysis), contiguity(contiguity),
        lanes(lanes), streaming(streaming), registerBytes(registerBytes),
        selectMinMax(selectMinMax), guardFree(guardFree),
        programsAhead(programsAhead) {}

  /// Widens one strip; `accumulators` are the strip loop's iter_args, one
  /// per reduction, then (unless `guardFree`) one per guarded reduction
  /// (isGuardedMinMax) for its guard. Returns the partial results to yield,
  /// in the same order.
  SmallVector<Value> run(scf::ForOp loop, Value stripIv,
                         ValueRange accumulators) {
    ArrayRef<Reduction> reductions = analysis.getReductions();
    unsigned nextGuard = reductions.size();
    for (auto [r, acc] : llvm::zip(reductions, accumulators)) {
      vectors[r.load.getResult()] = acc;
      if (isGuardedMinMax(r, selectMinMax))
        guards[r.combine] = {r.load.getResult(),
                             keepsGuard(r, selectMinMax, guardFree)
                                 ? accumulators[nextGuard++]
                                 : Value()};
    }
    Value oldIv = loop.getInductionVar();
    scalars.map(oldIv, stripIv);
    this->stripIv = stripIv;
    loopStart = loop.getLowerBound();
    firstLane.emplace(b, loop, stripIv);
    if (scf::ForOp outer = loopOverTilesAround(loop)) {
      // The iteration `distance` ahead: counter + distance * step, iter_args
      // their values after as many yields (as far as they can be computed
      // here).
      int64_t distance = prefetchDistance(loop, outer);
      auto yield = cast<scf::YieldOp>(outer.getBody()->getTerminator());
      bool carries = llvm::any_of(outer.getRegionIterArgs(), [](Value arg) {
        return isScalar(arg.getType());
      });
      IRMapping ahead;
      for (int64_t i = carries ? 1 : distance; i <= distance; ++i) {
        IterationEvaluator previous(b, outer, ahead);
        IRMapping next;
        for (auto [arg, value] :
             llvm::zip(outer.getRegionIterArgs(), yield.getOperands()))
          if (isScalar(arg.getType()))
            if (Value v = previous.at(value))
              next.map(arg, v);
        Value steps = outer.getStep();
        if (i > 1)
          steps = b.createOrFold<arith::MulIOp>(
              loc, steps,
              arith::ConstantOp::create(b, loc,
                                        b.getIntegerAttr(steps.getType(), i)));
        next.map(outer.getInductionVar(),
                 arith::AddIOp::create(b, loc, outer.getInductionVar(), steps));
        ahead = std::move(next);
      }
      ahead.map(loop.getInductionVar(), stripIv);
      // Only an iteration the loop makes reads anything: a loop over the
      // column blocks of a row that fits one block (layer norm's) has none.
      Value aheadIv = ahead.lookup(outer.getInductionVar());
      aheadIterationExists = arith::CmpIOp::create(
          b, loc,
          outer.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                 : arith::CmpIPredicate::slt,
          aheadIv, outer.getUpperBound());
      nextIteration.emplace(b, outer, std::move(ahead), /*readBuffers=*/true);
    }
    sameIterationOfNextProgram = overColumnBlocks(loop);
    if (!analysis.getReductions().empty() || sameIterationOfNextProgram)
      setUpNextProgram(loop);
    auto indexVec = VectorType::get({lanes}, b.getIndexType());
    SmallVector<int64_t> iota(lanes);
    for (int64_t i = 0; i < lanes; ++i)
      iota[i] = i;
    Value steps =
        arith::ConstantOp::create(b, loc,
                                  cast<TypedAttr>(DenseElementsAttr::get(
                                      indexVec, ArrayRef<int64_t>(iota))));
    vectors[oldIv] = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, indexVec, stripIv), steps);
    widenBlock(loop.getBody(), /*mask=*/Value());
    SmallVector<Value> partials;
    for (const Reduction &r : reductions)
      partials.push_back(vectors.lookup(r.combine->getResult(0)));
    for (const Reduction &r : reductions)
      if (keepsGuard(r, selectMinMax, guardFree))
        partials.push_back(guards.lookup(r.combine).updated);
    return partials;
  }

private:
  VectorType vectorOf(Type scalar) { return VectorType::get({lanes}, scalar); }

  /// The vector form of `v`: widened if it varies, else broadcast.
  Value vec(Value v) {
    if (auto it = vectors.find(v); it != vectors.end())
      return it->second;
    Value scalar = scalars.lookupOrDefault(v);
    Value splat =
        vector::BroadcastOp::create(b, loc, vectorOf(scalar.getType()), scalar);
    vectors[v] = splat;
    return splat;
  }

  Value allTrue() {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vectorOf(b.getI1Type()), true));
  }

  Value andMask(Value mask, Value cond) {
    return mask ? arith::AndIOp::create(b, loc, mask, cond).getResult() : cond;
  }

  Value zeroVector(Type scalar) {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(vectorOf(scalar), b.getZeroAttr(scalar)));
  }

  /// The byte address of every lane, as an i64 vector.
  Value addressOf(Value ptr) {
    if (auto it = addresses.find(ptr); it != addresses.end())
      return it->second;
    auto i64Vec = vectorOf(b.getI64Type());
    Value scalar = scalars.lookupOrDefault(ptr);
    Value splat = vector::BroadcastOp::create(
        b, loc, i64Vec,
        LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), scalar));
    addresses[ptr] = splat;
    return splat;
  }

  /// Whether the lanes' addresses `addrs` of `access` are consecutive in
  /// lane order; null when that holds by construction.
  Value consecutive(Operation *access, Value addrs, int64_t size) {
    if (contiguity.proven.contains(access))
      return Value();
    if (contiguity.unlessWrapped.contains(access))
      return contiguity.noWrap;
    auto i64Vec = vectorOf(b.getI64Type());
    Value first = vector::ExtractOp::create(b, loc, addrs, 0);
    SmallVector<int64_t> offsets(lanes);
    for (int64_t i = 0; i < lanes; ++i)
      offsets[i] = i * size;
    Value expected = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, i64Vec, first),
        arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(i64Vec, ArrayRef<int64_t>(offsets))));
    Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, addrs,
                                       expected);
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::AND,
                                       same);
  }

  Value pointers(Value addrs) {
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    return LLVM::IntToPtrOp::create(b, loc, vectorOf(ptrType), addrs);
  }

  /// The address of the strip's first lane: computed in scalar code when
  /// the lanes are consecutive by construction, rather than taken out of the
  /// address vector.
  Value firstPointer(Operation *access, Value addrs) {
    if (contiguity.proven.contains(access) ||
        contiguity.unlessWrapped.contains(access))
      if (Value ptr = firstLane->at(accessAddress(access)))
        return ptr;
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    Value first = vector::ExtractOp::create(b, loc, addrs, 0);
    return LLVM::IntToPtrOp::create(b, loc, ptrType, first);
  }

  /// How many iterations of `outer` (the loop over tiles) ahead the strips
  /// of `loop` prefetch: one when an iteration reads a tile of several KiB,
  /// more when it reads little (a softmax row of 256 floats), so that what
  /// is in flight covers the latency of memory.
  int64_t prefetchDistance(scf::ForOp loop, scf::ForOp outer) const {
    int64_t bytes = llvm::divideCeil(analysis.narrowestAccess(), 8);
    for (scf::ForOp l = loop; l && l != outer;
         l = l->getParentOfType<scf::ForOp>()) {
      std::optional<int64_t> lb = getConstantIntValue(l.getLowerBound());
      std::optional<int64_t> ub = getConstantIntValue(l.getUpperBound());
      std::optional<int64_t> step = getConstantIntValue(l.getStep());
      if (lb && ub && step && *step > 0 && *ub > *lb)
        bytes *= llvm::divideCeil(*ub - *lb, *step);
    }
    return stepsAhead(bytes);
  }

  /// Asks the cache for what this strip of `access` touches in the next
  /// iteration of the loop over tiles: a tile loop copies rows scattered
  /// over memory (one page each for a large matrix), which hardware
  /// prefetchers only start on after the first misses of every row. This is
  /// what `num_stages` pipelining buys on GPUs.
  void prefetchNext(Operation *access) {
    if (!nextIteration || !(contiguity.proven.contains(access) ||
                            contiguity.unlessWrapped.contains(access)))
      return;
    if (Value next = nextIteration->at(accessAddress(access)))
      prefetchStrip(next, isa<LLVM::StoreOp>(access),
                    lanes * accessSize(access));
  }

  /// The same for a read at [..., strip] of a load's view (LoadViews.h:
  /// memory read in place), or of the buffer a version of a load yields when
  /// the other yields a view (the same memory is read either way): the
  /// address of that element of the view in the next iteration, and in the
  /// next program.
  void prefetchNextInView(memref::LoadOp load) {
    int64_t stripBytes =
        lanes *
        llvm::divideCeil(load.getMemRefType().getElementTypeBitWidth(), 8);
    if (nextProgram && (!sameIterationOfNextProgram || readsRowOfProgram(load)))
      if (Value next = viewElementAddress(load, *nextProgram))
        prefetchNextProgram(next, stripBytes);
    if (!nextIteration || readBefore(load))
      return;
    if (Value next = viewElementAddress(load, *nextIteration))
      prefetchStrip(next, /*write=*/false, stripBytes);
  }

  /// Whether the view `load` reads is placed by the program id (a row of the
  /// program's own, not the weights every program reads).
  bool readsRowOfProgram(memref::LoadOp load) {
    Value pid = pidXOf(load->getParentOfType<func::FuncOp>());
    Value descriptor = viewDescriptor(load);
    return pid && descriptor && computedFrom(descriptor, pid);
  }

  /// The LLVM descriptor of the view of memory `load` reads (in the version
  /// that yields a view, when the other yields a buffer), or null.
  static Value viewDescriptor(memref::LoadOp load) {
    Value memref = load.getMemRef();
    if (auto ifOp = memref.getDefiningOp<scf::IfOp>())
      memref = ifOp.thenYield()->getOperand(
          cast<OpResult>(memref).getResultNumber());
    auto cast = memref.getDefiningOp<UnrealizedConversionCastOp>();
    if (!cast || cast->getNumOperands() != 1 ||
        !isa<LLVM::LLVMStructType>(cast->getOperand(0).getType()))
      return {};
    return cast->getOperand(0);
  }

  /// The address (an llvm.ptr) of the element `load` reads from a view of
  /// memory, with the view's descriptor as `evaluator` recomputes it for
  /// another iteration or program; null where it cannot.
  Value viewElementAddress(memref::LoadOp load, IterationEvaluator &evaluator) {
    Value view = viewDescriptor(load);
    MemRefType type = load.getMemRefType();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!view || failed(type.getStridesAndOffset(strides, offset)) ||
        offset != 0)
      return {};
    Value descriptor = evaluator.at(view);
    if (!descriptor)
      return {};
    // The descriptor's aligned pointer, plus sum index * stride elements.
    Type i64 = b.getI64Type();
    Value elements = arith::ConstantIntOp::create(b, loc, i64, 0);
    for (auto [d, index] : llvm::enumerate(scalarIndices(load.getIndices()))) {
      Value stride = ShapedType::isDynamic(strides[d])
                         ? LLVM::ExtractValueOp::create(
                               b, loc, descriptor,
                               ArrayRef<int64_t>{4, static_cast<int64_t>(d)})
                               .getResult()
                         : arith::ConstantIntOp::create(b, loc, i64, strides[d])
                               .getResult();
      Value at = arith::IndexCastOp::create(b, loc, i64, index);
      elements = arith::AddIOp::create(
          b, loc, elements, arith::MulIOp::create(b, loc, at, stride));
    }
    int64_t size = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    Value bytes = arith::MulIOp::create(
        b, loc, elements, arith::ConstantIntOp::create(b, loc, i64, size));
    Value base =
        LLVM::ExtractValueOp::create(b, loc, descriptor, ArrayRef<int64_t>{1});
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{bytes});
  }

  /// Whether `loop` walks a column block of its program's row: the loop
  /// over tiles around it (the only one) is not bounded by the program id,
  /// and no matmul micro-kernel is in it. Layer norm with a block narrower
  /// than the row walks the row three times in such loops, the first
  /// accumulating its blocks elementwise (no reduction in these loops), the
  /// later two reading them again from the cache. Each strip prefetches
  /// what it reads in the next program's row, in every column block, so
  /// memory keeps reading the next row during all three walks, as the
  /// reducing walks over a row of one block do (setUpNextProgram). Layer
  /// norm, 2 threads, in turns with the code before (either order first):
  /// 4096 x 4096 in blocks of 1024 +4-10%, 4096 x 8192 in blocks of 1024
  /// +8-12% and of 4096 +5-11%, 4096 x 1024 in blocks of 256 +1-17%; 1
  /// thread, 4096 x 4096 in blocks of 1024 +4-9%. Rows in blocks still run
  /// 25-30% below rows of one block: not from prefetching (also prefetching
  /// the peeled first block, or dropping the next-iteration prefetches of
  /// the later walks, measured the same).
  bool overColumnBlocks(scf::ForOp loop) {
    scf::ForOp outer = loopOverTilesAround(loop);
    if (!outer || loopOverTilesAround(outer))
      return false;
    Value pid = pidXOf(loop->getParentOfType<func::FuncOp>());
    if (!pid ||
        llvm::any_of(ValueRange{outer.getLowerBound(), outer.getUpperBound(),
                                outer.getStep()},
                     [&](Value bound) { return computedFrom(bound, pid); }))
      return false;
    WalkResult kernel = outer.walk([](scf::ForOp nested) {
      return nested->hasAttr(kMicroKernelRows) ? WalkResult::interrupt()
                                               : WalkResult::advance();
    });
    return !kernel.wasInterrupted();
  }

  /// In a loop that reduces over views of kernel memory (layer norm's sums
  /// over its row), the programs the launcher runs next on this thread
  /// (pid_x + 1, ..., same pid_y and pid_z: it walks pid_x in order over
  /// contiguous chunks) read the same elements of their own views. Where no
  /// loop over tiles has a next iteration to prefetch (a row that fits one
  /// block), the strips prefetch those into L2 instead: the next row
  /// arrives while this one is reduced and written, not when the next
  /// program starts reading it. As many programs ahead as the loop's reads
  /// take to cover kPrefetchLookaheadBytes (four for rows of 512 floats).
  /// Layer norm beyond the cache, 2 threads: 4096 x 4096 24.7-28.0 ->
  /// 32.0-40.6 GB/s; 4096 x 512, one program ahead against two, 24.9 /
  /// 26.1 -> 31.7 / 31.0. Softmax as tutorial 02 with a program per row
  /// (a persistent loop of one iteration), 4096 x 4096: 27.1 / 28.3 ->
  /// 32.9 / 31.6 GB/s once the next program's row is its first (below),
  /// not this program's current one.
  void setUpNextProgram(scf::ForOp loop) {
    auto func = loop->getParentOfType<func::FuncOp>();
    if (!func || !func.isPublic() || func.getNumArguments() < kNumProgramIdArgs)
      return;
    unsigned first = func.getNumArguments() - kNumProgramIdArgs;
    Value pid = func.getArgument(first), programs = func.getArgument(first + 3);
    if (!pid.getType().isInteger(32) || !programs.getType().isInteger(32))
      return;
    scf::ForOp outer = loopOverTilesAround(loop);
    if (outer && loopOverTilesAround(outer))
      return;
    // A persistent program's rows are many: the thread reads the next
    // program's first row right after this program's last, so one program
    // ahead, however few bytes a row has.
    nextProgramDistance = outer ? 1 : programsAhead;
    Value next =
        arith::AddIOp::create(b, loc, pid,
                              arith::ConstantIntOp::create(
                                  b, loc, b.getI32Type(), nextProgramDistance));
    IRMapping map;
    map.map(pid, next);
    if (sameIterationOfNextProgram) {
      // Each column block prefetches the same block of the next program's
      // row (see overColumnBlocks).
      nextProgram.emplace(b, func, std::move(map));
      nextProgramExists = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::slt, next, programs);
      return;
    }
    // In a program's loop over tiles (a persistent program's loop over rows
    // from pid_x), the prefetches fire in its last iterations only
    // (prefetchNextProgram), and the next program starts that loop over:
    // the counter at its lower bound and what it carries at its initial
    // values, as that program computes them. Deeper nests of such loops
    // get none (above).
    if (outer) {
      IterationEvaluator start(b, func, map);
      Value lb = start.at(outer.getLowerBound());
      if (!lb)
        return;
      IRMapping restart = map;
      restart.map(outer.getInductionVar(), lb);
      for (auto [arg, init] :
           llvm::zip(outer.getRegionIterArgs(), outer.getInitArgs())) {
        if (!isScalar(arg.getType()))
          continue;
        Value value = start.at(init);
        if (!value)
          return;
        restart.map(arg, value);
      }
      map = std::move(restart);
    }
    nextProgram.emplace(b, func, std::move(map));
    nextProgramExists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              next, programs);
  }

  /// Prefetches into L2 the strip of `stripBytes` bytes at `next` that the
  /// next program reads, once per cache line, when that program exists and
  /// no loop over tiles around this one makes another iteration (its own
  /// prefetches cover that).
  void prefetchNextProgram(Value next, int64_t stripBytes) {
    Value when = nextProgramExists;
    if (aheadIterationExists && !sameIterationOfNextProgram)
      when = arith::AndIOp::create(
          b, loc, when,
          arith::XOrIOp::create(b, loc, aheadIterationExists,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
    if (stripBytes < kCacheLineBytes)
      when = arith::AndIOp::create(b, loc, when, firstStripOfLine(stripBytes));
    scf::IfOp::create(b, loc, when, [&](OpBuilder &b, Location loc) {
      for (int64_t offset = 0; offset < stripBytes; offset += kCacheLineBytes) {
        auto prefetch = LLVM::Prefetch::create(
            b, loc, lineAt(b, loc, next, offset), b.getI32IntegerAttr(0),
            b.getI32IntegerAttr(kL2Locality), b.getI32IntegerAttr(1));
        prefetch->setAttr(kNextProgramPrefetch,
                          b.getI64IntegerAttr(nextProgramDistance));
      }
      scf::YieldOp::create(b, loc);
    });
  }

  /// `base` plus `offset` bytes.
  static Value lineAt(OpBuilder &b, Location loc, Value base, int64_t offset) {
    if (offset == 0)
      return base;
    return LLVM::GEPOp::create(
        b, loc, base.getType(), b.getI8Type(), base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
  }

  /// Whether this strip is the first of its cache line, for strips of
  /// `stripBytes` narrower than a line.
  Value firstStripOfLine(int64_t stripBytes) {
    Value offset = arith::SubIOp::create(b, loc, stripIv, loopStart);
    Value phase = arith::RemUIOp::create(
        b, loc, offset,
        arith::ConstantIndexOp::create(b, loc,
                                       lanes * (kCacheLineBytes / stripBytes)));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, phase,
                                 arith::ConstantIndexOp::create(b, loc, 0));
  }

  /// Whether a loop before `load`'s, in the same iteration of the loop over
  /// tiles, reads the same buffer: that loop prefetched its next iteration.
  /// Before it in its block, or before the versions (scf.if) around it.
  bool readBefore(memref::LoadOp load) {
    Operation *here = stripIv.getParentBlock()->getParentOp();
    for (Operation *user : load.getMemRef().getUsers()) {
      if (!isa<memref::LoadOp, vector::LoadOp>(user) ||
          user->getBlock()->getParentOp() == here)
        continue;
      for (Operation *at = here; at; at = at->getParentOp()) {
        Operation *ancestor = at->getBlock()->findAncestorOpInBlock(*user);
        if (ancestor && ancestor->isBeforeInBlock(at))
          return true;
        if (isa<scf::ForOp, func::FuncOp>(at->getParentOp()))
          break;
      }
    }
    return false;
  }

  /// Prefetches the strip of `stripBytes` bytes at `next` (an llvm.ptr) that
  /// a later iteration of the loop over tiles touches, once per cache line.
  void prefetchStrip(Value next, bool write, int64_t stripBytes) {
    // A strip wider than a line (a reduction's strips of several registers)
    // prefetches each of its lines.
    auto emit = [&](OpBuilder &b, Location loc) {
      for (int64_t offset = 0; offset < stripBytes; offset += kCacheLineBytes) {
        auto prefetch = LLVM::Prefetch::create(
            b, loc, lineAt(b, loc, next, offset), b.getI32IntegerAttr(write),
            b.getI32IntegerAttr(3), b.getI32IntegerAttr(1));
        prefetch->setAttr(kNextIterationPrefetch, b.getUnitAttr());
      }
    };
    Value when = aheadIterationExists;
    // A streaming store writes around the cache: fetching its lines first
    // would undo that.
    if (write && streaming)
      when = arith::AndIOp::create(
          b, loc, when,
          arith::XOrIOp::create(b, loc, streaming,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
    // One prefetch per cache line: strips narrower than a line prefetch in
    // every (line / strip)-th strip only.
    if (stripBytes < kCacheLineBytes) {
      Value first = firstStripOfLine(stripBytes);
      when = when ? arith::AndIOp::create(b, loc, when, first) : first;
    }
    if (!when) {
      emit(b, loc);
      return;
    }
    scf::IfOp::create(b, loc, when, [&](OpBuilder &b, Location loc) {
      emit(b, loc);
      scf::YieldOp::create(b, loc);
    });
  }

  /// Emits `access(masked)` for consecutive lanes: a plain vector access when
  /// every lane is on (x86's masked moves are slow, AMD's masked stores
  /// very), a masked one otherwise. Returns what it yields, if anything.
  Value contiguous(OpBuilder &b, Location loc, Value mask, Type resultType,
                   function_ref<Value(OpBuilder &, Location, bool)> access) {
    if (!mask)
      return access(b, loc, /*masked=*/false);
    Value allOn =
        vector::ReductionOp::create(b, loc, vector::CombiningKind::AND, mask);
    auto branch = [&](bool masked) {
      return [&, masked](OpBuilder &b, Location loc) {
        Value v = access(b, loc, masked);
        scf::YieldOp::create(b, loc, v ? ValueRange(v) : ValueRange());
      };
    };
    // The branches' yields give the result types.
    auto ifOp = scf::IfOp::create(b, loc, allOn, branch(false), branch(true));
    return resultType ? ifOp.getResult(0) : Value();
  }

  Value loadLanes(LLVM::LoadOp load, Value mask) {
    Type type = load.getType();
    Value addrs = addressOf(load.getAddr());
    Value ptr = firstPointer(load, addrs);
    prefetchNext(load);
    unsigned align = load.getAlignment().value_or(
        llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
    int64_t size = llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
    auto vectorLoad = [&](OpBuilder &b, Location loc) {
      return contiguous(
          b, loc, mask, vectorOf(type),
          [&](OpBuilder &b, Location loc, bool masked) -> Value {
            if (masked)
              return LLVM::MaskedLoadOp::create(b, loc, vectorOf(type), ptr,
                                                mask, zeroVector(type), align);
            return LLVM::LoadOp::create(b, loc, vectorOf(type), ptr, align);
          });
    };
    Value isConsecutive = consecutive(load, addrs, size);
    if (!isConsecutive)
      return vectorLoad(b, loc);
    auto ifOp = scf::IfOp::create(
        b, loc, isConsecutive,
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, vectorLoad(b, loc));
        },
        [&](OpBuilder &b, Location loc) {
          Value v = LLVM::masked_gather::create(
              b, loc, vectorOf(type), pointers(addrs), mask ? mask : allTrue(),
              ValueRange{zeroVector(type)}, align);
          scf::YieldOp::create(b, loc, v);
        });
    return ifOp.getResult(0);
  }

  void storeLanes(LLVM::StoreOp store, Value mask) {
    Type type = store.getValue().getType();
    Value value = vec(store.getValue());
    Value addrs = addressOf(store.getAddr());
    Value ptr = firstPointer(store, addrs);
    prefetchNext(store);
    unsigned align = store.getAlignment().value_or(
        llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
    int64_t size = llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
    auto vectorStore = [&](OpBuilder &b, Location loc) {
      contiguous(b, loc, mask, Type(),
                 [&](OpBuilder &b, Location loc, bool masked) -> Value {
                   if (masked)
                     LLVM::MaskedStoreOp::create(b, loc, value, ptr, mask,
                                                 align);
                   else
                     storeWhole(b, loc, value, ptr, align, lanes * size);
                   return Value();
                 });
    };
    Value isConsecutive = consecutive(store, addrs, size);
    if (!isConsecutive) {
      // Proven consecutive: each strip starts lanes * size bytes after the
      // one before, so whether it is aligned for a streaming store is
      // decided once, before the loop.
      if (streaming && (lanes * size) % registerBytes == 0)
        alignedStrips = alignedAtLoopStart(store);
      vectorStore(b, loc);
      alignedStrips = Value();
      return;
    }
    scf::IfOp::create(
        b, loc, isConsecutive,
        [&](OpBuilder &b, Location loc) {
          vectorStore(b, loc);
          scf::YieldOp::create(b, loc);
        },
        [&](OpBuilder &b, Location loc) {
          LLVM::masked_scatter::create(b, loc, value, pointers(addrs),
                                       mask ? mask : allTrue(), align);
          scf::YieldOp::create(b, loc);
        });
  }

  /// A store of every lane: non-temporal (a streaming store, which skips
  /// reading the line in and leaves the caches to what is read) when the
  /// loop streams and the address is aligned to whole registers, as x86's
  /// movnt requires; a plain store otherwise.
  void storeWhole(OpBuilder &b, Location loc, Value value, Value ptr,
                  unsigned align, int64_t bytes) {
    if (!streaming || bytes % registerBytes != 0) {
      LLVM::StoreOp::create(b, loc, value, ptr, align);
      return;
    }
    Value aligned = alignedStrips ? alignedStrips : isAligned(b, loc, ptr);
    scf::IfOp::create(
        b, loc, arith::AndIOp::create(b, loc, streaming, aligned),
        [&](OpBuilder &b, Location loc) {
          LLVM::StoreOp::create(b, loc, value, ptr, registerBytes,
                                /*isVolatile=*/false, /*isNonTemporal=*/true);
          scf::YieldOp::create(b, loc);
        },
        [&](OpBuilder &b, Location loc) {
          LLVM::StoreOp::create(b, loc, value, ptr, align);
          scf::YieldOp::create(b, loc);
        });
  }

  /// Whether `ptr` is aligned to a whole register.
  Value isAligned(OpBuilder &b, Location loc, Value ptr) {
    Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
    Value offset =
        arith::AndIOp::create(b, loc, addr,
                              arith::ConstantIntOp::create(
                                  b, loc, b.getI64Type(), registerBytes - 1));
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, offset,
        arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0));
  }

  /// Whether `store`'s address in the loop's first iteration is aligned to a
  /// whole register, computed before the strip loop; null if the address
  /// cannot be computed there.
  Value alignedAtLoopStart(LLVM::StoreOp store) {
    Operation *stripLoop = stripIv.getParentBlock()->getParentOp();
    OpBuilder before(stripLoop);
    // The element loop being widened: its counter is the strip's.
    auto loop = store->getParentOfType<scf::ForOp>();
    if (!loop || scalars.lookupOrNull(loop.getInductionVar()) != stripIv)
      return {};
    IterationEvaluator first(before, loop, loopStart);
    Value addr = first.at(store.getAddr());
    return addr ? isAligned(before, loc, addr) : Value();
  }

  SmallVector<Value> scalarIndices(ValueRange indices) {
    SmallVector<Value> result;
    for (Value index : indices)
      result.push_back(scalars.lookupOrDefault(index));
    return result;
  }

  void widenBlock(Block *block, Value mask) {
    for (Operation &op : block->without_terminator())
      widen(&op, mask);
  }

  /// The yielded values of `block`, widened.
  SmallVector<Value> yielded(Block *block) {
    SmallVector<Value> values;
    for (Value v : block->getTerminator()->getOperands())
      values.push_back(vec(v));
    return values;
  }

  void widen(Operation *op, Value mask) {
    if (analysis.isReductionStore(op) ||
        (isa<memref::LoadOp>(op) && vectors.contains(op->getResult(0))))
      return; // A reduction: carried by the strip loop instead.
    // The vector form of `op` carries its location, so line info keeps naming
    // the statement each scalar op came from rather than the loop.
    llvm::SaveAndRestore<Location> atOp(
        loc, isa<UnknownLoc>(op->getLoc()) ? loc : op->getLoc());
    bool varies = llvm::any_of(op->getResults(),
                               [&](Value v) { return analysis.isVarying(v); });
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      Value cond = vec(ifOp.getCondition());
      widenBlock(ifOp.thenBlock(), andMask(mask, cond));
      SmallVector<Value> thenValues = yielded(ifOp.thenBlock());
      SmallVector<Value> elseValues;
      if (ifOp.elseBlock()) {
        Value notCond = arith::XOrIOp::create(b, loc, cond, allTrue());
        widenBlock(ifOp.elseBlock(), andMask(mask, notCond));
        elseValues = yielded(ifOp.elseBlock());
      }
      for (auto [i, result] : llvm::enumerate(ifOp.getResults()))
        vectors[result] =
            arith::SelectOp::create(b, loc, cond, thenValues[i], elseValues[i]);
      return;
    }
    if (auto load = dyn_cast<LLVM::LoadOp>(op); load && varies) {
      vectors[load.getResult()] = loadLanes(load, mask);
      return;
    }
    if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
      storeLanes(store, mask);
      return;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op); load && varies) {
      Value memref = scalars.lookupOrDefault(load.getMemRef());
      SmallVector<Value> indices = scalarIndices(load.getIndices());
      prefetchNextInView(load);
      auto type = vectorOf(load.getType());
      vectors[load.getResult()] =
          mask ? vector::MaskedLoadOp::create(b, loc, type, memref, indices,
                                              mask, zeroVector(load.getType()))
                     .getResult()
               : vector::LoadOp::create(b, loc, type, memref, indices)
                     .getResult();
      return;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      Value memref = scalars.lookupOrDefault(store.getMemRef());
      SmallVector<Value> indices = scalarIndices(store.getIndices());
      Value value = vec(store.getValueToStore());
      if (mask)
        vector::MaskedStoreOp::create(b, loc, memref, indices, mask, value);
      else
        vector::StoreOp::create(b, loc, value, memref, indices);
      return;
    }
    if (auto cast = dyn_cast<LLVM::IntToPtrOp>(op); cast && varies) {
      Value addr = vec(cast.getArg());
      auto i64Vec = vectorOf(b.getI64Type());
      if (addr.getType() != i64Vec)
        addr = arith::ExtUIOp::create(b, loc, i64Vec, addr);
      addresses[cast.getResult()] = addr;
      return;
    }
    if (auto gep = dyn_cast<LLVM::GEPOp>(op); gep && varies) {
      Value offset = vec(gep.getDynamicIndices()[0]);
      auto i64Vec = vectorOf(b.getI64Type());
      if (offset.getType() != i64Vec)
        offset = arith::ExtSIOp::create(b, loc, i64Vec, offset);
      addresses[gep.getResult()] =
          arith::AddIOp::create(b, loc, addressOf(gep.getBase()), offset);
      return;
    }
    if (!varies) {
      b.clone(*op, scalars);
      return;
    }
    if (auto guard = guards.find(op); guard != guards.end()) {
      widenGuardedMinMax(op, guard->second);
      return;
    }
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(vec(operand));
    OperationState state(loc, op->getName(), operands,
                         vectorOf(op->getResult(0).getType()), op->getAttrs());
    vectors[op->getResult(0)] = b.create(state)->getResult(0);
  }

  /// A guarded reduction's scalar accumulator (the load in the loop) and its
  /// guard: the strip's iter_arg, then the updated vector (null without a
  /// guard).
  struct Guard {
    Value accumulator;
    Value updated;
  };

  /// A guarded reduction's step (isGuardedMinMax): the accumulator takes x
  /// where x is beyond it, the guard where x is short of it.
  void widenGuardedMinMax(Operation *combine, Guard &guard) {
    using arith::CmpFPredicate;
    bool max = isa<arith::MaxNumFOp>(combine);
    Value x = combine->getOperand(0) == guard.accumulator
                  ? combine->getOperand(1)
                  : combine->getOperand(0);
    auto pick = [&](CmpFPredicate beyond, Value x, Value acc) -> Value {
      Value take = arith::CmpFOp::create(b, loc, beyond, x, acc);
      return arith::SelectOp::create(b, loc, take, x, acc);
    };
    Value xs = vec(x);
    vectors[combine->getResult(0)] =
        pick(max ? CmpFPredicate::OGT : CmpFPredicate::OLT, xs,
             vec(guard.accumulator));
    if (guard.updated)
      guard.updated = pick(max ? CmpFPredicate::OLT : CmpFPredicate::OGT, xs,
                           guard.updated);
  }

  OpBuilder &b;
  Location loc;
  const LoopAnalysis &analysis;
  const Contiguity &contiguity;
  int64_t lanes;
  Value streaming;
  int64_t registerBytes;
  bool selectMinMax;
  bool guardFree;
  /// How many programs ahead setUpNextProgram prefetches.
  int64_t programsAhead;
  /// Guarded reductions by their combining op.
  DenseMap<Operation *, Guard> guards;
  /// The strip's first iteration, and the first iteration of the loop.
  Value stripIv, loopStart;
  IRMapping scalars;
  /// Computes scalar values of the strip's first lane.
  std::optional<IterationEvaluator> firstLane;
  /// The same in the next iteration of the loop around the tile (see
  /// prefetchNext), if there is one.
  std::optional<IterationEvaluator> nextIteration;
  /// The same for a later program on this thread (pid_x + 1 or further),
  /// in a loop that reduces (see setUpNextProgram), and whether it exists.
  std::optional<IterationEvaluator> nextProgram;
  Value nextProgramExists;
  /// How many programs ahead nextProgram is (setUpNextProgram).
  int64_t nextProgramDistance = 1;
  /// Whether the strip is in a loop over column blocks (overColumnBlocks):
  /// nextProgram is then this iteration of it in the next program,
  /// prefetched in every iteration.
  bool sameIterationOfNextProgram = false;
  /// Whether the loop around the tile makes the iteration nextIteration
  /// evaluates.
  Value aheadIterationExists;
  /// While a proven-consecutive store is widened: whether every strip's
  /// address is aligned to a whole register (null: check each strip).
  Value alignedStrips;
  DenseMap<Value, Value> vectors;
  /// Varying pointers, as the i64 byte address of each lane.
  DenseMap<Value, Value> addresses;
};

struct VectorizeElementLoopsPass
    : impl::VectorizeElementLoopsBase<VectorizeElementLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Decided once per function: whether any of its loops may stream.
    mayStream = streamingStoreBytes != 0 && func.isPublic() &&
                func.getNumArguments() >= kNumProgramIdArgs &&
                !mayPublishStores(func);
    if (mayStream)
      argumentsReadFrom = argumentsRead(func);
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](Operation *op) {
        if (isa<LoopLikeOpInterface>(op))
          innermost = false;
      });
      if (innermost)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      vectorize(loop);
  }

  /// Folds the lanes of `partial` and `acc` with `kind`. Float min/max
  /// reductions become log2(lanes) steps of halving the vector with shuffles
  /// when `shuffleReductions` is set: LLVM expands x86's fmax/fmin
  /// reductions (without nnan) into a chain of one scalar step per lane,
  /// some 60 cycles for 16 lanes, once per row in softmax. The order lanes
  /// combine in does not matter for these kinds (maxnum of a NaN is the
  /// other operand, maximum's NaN wins wherever it is).
  Value reduceLanes(OpBuilder &b, Location loc, vector::CombiningKind kind,
                    Value partial, Value acc, arith::FastMathFlags flags) {
    using vector::CombiningKind;
    auto type = cast<VectorType>(partial.getType());
    bool floatMinMax =
        llvm::is_contained({CombiningKind::MAXNUMF, CombiningKind::MINNUMF,
                            CombiningKind::MAXIMUMF, CombiningKind::MINIMUMF},
                           kind);
    int64_t lanes = type.getNumElements();
    if (!shuffleReductions || !floatMinMax || type.getRank() != 1 ||
        type.isScalable() || !llvm::isPowerOf2_64(lanes))
      return vector::ReductionOp::create(b, loc, kind, partial, acc, flags);
    auto flagsAttr = arith::FastMathFlagsAttr::get(b.getContext(), flags);
    Value lane = foldHalves(b, loc, partial, [&](Value low, Value high) {
      return vector::makeArithReduction(b, loc, kind, low, high, flagsAttr);
    });
    return vector::makeArithReduction(b, loc, kind, lane, acc, flagsAttr);
  }

  /// Lane 0 of `vector` (rank 1, a power-of-two count of lanes) after
  /// log2(lanes) steps of combining its low and high halves (shuffles).
  static Value foldHalves(OpBuilder &b, Location loc, Value vector,
                          function_ref<Value(Value, Value)> combine) {
    int64_t lanes = cast<VectorType>(vector.getType()).getNumElements();
    for (; lanes > 1; lanes /= 2) {
      auto low = llvm::to_vector(llvm::seq<int64_t>(0, lanes / 2));
      auto high = llvm::to_vector(llvm::seq<int64_t>(lanes / 2, lanes));
      Value lowHalf = vector::ShuffleOp::create(b, loc, vector, vector, low);
      Value highHalf = vector::ShuffleOp::create(b, loc, vector, vector, high);
      vector = combine(lowHalf, highHalf);
    }
    return vector::ExtractOp::create(b, loc, vector, 0);
  }

  /// The fast-math flags of a reduction's combining op.
  static arith::FastMathFlags combineFlags(const Reduction &r) {
    auto fastmath = dyn_cast<arith::ArithFastMathInterface>(r.combine);
    return fastmath ? fastmath.getFastMathFlagsAttr().getValue()
                    : arith::FastMathFlags::none;
  }

  /// The lanes of a guarded reduction (isGuardedMinMax) that saw only NaN:
  /// its accumulator and its guard both still at their start.
  Value onlyNaNLanes(OpBuilder &b, Location loc, const Reduction &r,
                     Value partial, Value guard) {
    auto type = cast<VectorType>(partial.getType());
    auto atStart = [&](Value v, bool isGuard) -> Value {
      Value start = arith::ConstantOp::create(
          b, loc, type, SplatElementsAttr::get(type, guardedStart(r, isGuard)));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v, start);
    };
    Value accAtStart = atStart(partial, false);
    Value guardAtStart = atStart(guard, true);
    return arith::AndIOp::create(b, loc, accAtStart, guardAtStart);
  }

  /// Whether foldGuarded can fold `partial`'s lanes: shuffleReductions and
  /// a power-of-two count of lanes.
  bool foldsBySelect(Value partial) const {
    auto type = dyn_cast<VectorType>(partial.getType());
    return shuffleReductions && type && type.getRank() == 1 &&
           !type.isScalable() && llvm::isPowerOf2_64(type.getNumElements());
  }

  /// The result of a guarded reduction (isGuardedMinMax) of `partial`'s
  /// lanes and `acc`. Neither the partial results nor the guards hold NaN
  /// (compare and select skips it), so the lanes fold by compare and select
  /// as well, one x86 vmaxps / vminps per halving where maxnum takes three
  /// (max, NaN test, blend); the result is NaN when every lane saw only NaN
  /// (accumulator and guard both at their start), one mask test. Attention's
  /// row maxima of 64 elements: about a third fewer instructions per row.
  /// Without a `guard` (rechecksAtStart) no lane is taken for NaN.
  Value foldGuarded(OpBuilder &b, Location loc, const Reduction &r,
                    Value partial, Value guard, Value acc) {
    auto type = cast<VectorType>(partial.getType());
    Value allOnlyNaN = guard ? vector::ReductionOp::create(
                                   b, loc, vector::CombiningKind::AND,
                                   onlyNaNLanes(b, loc, r, partial, guard))
                                   .getResult()
                             : Value();
    auto beyond = r.kind == vector::CombiningKind::MAXNUMF
                      ? arith::CmpFPredicate::OGT
                      : arith::CmpFPredicate::OLT;
    Value lane = foldHalves(b, loc, partial, [&](Value low, Value high) {
      return arith::SelectOp::create(
          b, loc, arith::CmpFOp::create(b, loc, beyond, low, high), low, high);
    });
    if (allOnlyNaN) {
      auto floatType = cast<FloatType>(type.getElementType());
      Value nan = arith::ConstantOp::create(
          b, loc,
          FloatAttr::get(floatType,
                         APFloat::getQNaN(floatType.getFloatSemantics())));
      lane = arith::SelectOp::create(b, loc, allOnlyNaN, nan, lane);
    }
    auto flags = arith::FastMathFlagsAttr::get(b.getContext(), combineFlags(r));
    return vector::makeArithReduction(b, loc, r.kind, lane, acc, flags);
  }

  /// Whether the loop's stores should stream past the caches: when the
  /// bytes its accesses touch over the whole launch (per iteration, times
  /// its trips, the trips of every loop around it and the number of
  /// programs, as if no two touched the same memory) reach
  /// `streamingStoreBytes`, the last-level cache, what it writes would be
  /// evicted before anything read it again, and reading each line in before
  /// writing it is a third more memory traffic for a vector add. glibc's
  /// memcpy and memset make the same choice, by size. An i1 computed at run
  /// time before the loop; null when nothing is stored to kernel memory, the
  /// function may not stream (`mayStream`), or the loop stores through an
  /// argument the kernel also reads through: torch inductor's reductions
  /// store a row through their in-out pointer and read it back in the next
  /// walk, which streamed stores sent to memory first (its softmax of 4096
  /// x 4096 rows, 1 x 2048 blocks: see docs/benchmarks.md, session 33).
  Value streamingCondition(OpBuilder &b, scf::ForOp loop, int64_t trips) {
    if (!mayStream)
      return {};
    func::FuncOp func = getOperation();
    int64_t bytesPerTrip = 0;
    bool stores = false, storesWhatIsRead = false;
    loop.getBody()->walk([&](Operation *op) {
      Type type = llvm::TypeSwitch<Operation *, Type>(op)
                      .Case([](LLVM::LoadOp o) { return o.getType(); })
                      .Case([](memref::LoadOp o) { return o.getType(); })
                      .Case([&](LLVM::StoreOp o) {
                        stores = true;
                        BlockArgument arg = pointerArgument(o.getAddr());
                        storesWhatIsRead |=
                            arg && argumentsReadFrom.contains(arg);
                        return o.getValue().getType();
                      })
                      .Case([](memref::StoreOp o) {
                        return o.getValueToStore().getType();
                      })
                      .Default([](Operation *) { return Type(); });
      if (type && type.isIntOrFloat())
        bytesPerTrip += llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
    });
    if (!stores || storesWhatIsRead)
      return {};
    // In f64: products of run-time counts cannot overflow there.
    Location loc = loop.getLoc();
    Type f64 = b.getF64Type();
    auto toF64 = [&](Value count) -> Value {
      if (count.getType().isIndex())
        count = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
      return arith::SIToFPOp::create(b, loc, f64, count);
    };
    Value total = arith::ConstantFloatOp::create(
        b, loc, cast<FloatType>(f64),
        APFloat(static_cast<double>(trips * bytesPerTrip)));
    for (Value programs : func.getArguments().take_back(3))
      total = arith::MulFOp::create(
          b, loc, total, arith::UIToFPOp::create(b, loc, f64, programs));
    for (auto outer = loop->getParentOfType<scf::ForOp>(); outer;
         outer = outer->getParentOfType<scf::ForOp>()) {
      Value span = arith::SubIOp::create(b, loc, outer.getUpperBound(),
                                         outer.getLowerBound());
      Value outerTrips =
          arith::CeilDivSIOp::create(b, loc, span, outer.getStep());
      Value zero = arith::ConstantOp::create(
          b, loc, b.getZeroAttr(outerTrips.getType()));
      outerTrips = arith::MaxSIOp::create(b, loc, outerTrips, zero);
      total = arith::MulFOp::create(b, loc, total, toF64(outerTrips));
    }
    Value threshold = arith::ConstantFloatOp::create(
        b, loc, cast<FloatType>(f64),
        APFloat(static_cast<double>(streamingStoreBytes)));
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, total,
                                 threshold);
  }

  /// Streaming stores are weakly ordered: other threads may see them after
  /// later stores, and x86 guarantees their order only after a fence
  /// (sfence). The launcher fences them once per thread at the end of the
  /// launch, which is all a kernel without atomics can observe. Kernels with
  /// atomics or calls (which may hold some) keep plain stores, and so do the
  /// private functions kernels call (noinline), whose callers may have atomics.
  static bool mayPublishStores(func::FuncOp func) {
    return func
        .walk([](Operation *op) {
          if (isa<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp, LLVM::FenceOp,
                  memref::AtomicRMWOp, memref::GenericAtomicRMWOp,
                  CallOpInterface>(op))
            return WalkResult::interrupt();
          if (auto load = dyn_cast<LLVM::LoadOp>(op);
              load && load.getOrdering() != LLVM::AtomicOrdering::not_atomic)
            return WalkResult::interrupt();
          if (auto store = dyn_cast<LLVM::StoreOp>(op);
              store && store.getOrdering() != LLVM::AtomicOrdering::not_atomic)
            return WalkResult::interrupt();
          return WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// Whether a matmul micro-kernel follows `loop` (in its block or in one
  /// around it): a copy of a tile it reads. spine-schedule-tile-prefetches
  /// moves the copy's next-iteration prefetches into the micro-kernel,
  /// together with everything they depend on, which would then include a
  /// version check (measured: 4% slower at 1024 on one thread).
  static bool feedsMicroKernel(scf::ForOp loop) {
    for (Operation *op = loop; op && !isa<func::FuncOp>(op);
         op = op->getParentOp())
      for (Operation *next = op->getNextNode(); next;
           next = next->getNextNode())
        if (next->hasAttr(kMicroKernelRows))
          return true;
    return false;
  }

  /// Whether the guarded reduction of `loop` (isGuardedMinMax) goes without
  /// its guard: the guard is a second op per register (a vminps beside
  /// each vmaxps) whose only use is telling the lanes that saw nothing but
  /// NaN from those that saw -inf (+inf for min); both leave the
  /// accumulator at its start. Without it the result is right unless it
  /// ends at that start, and then the loop, kept as it is, runs again from
  /// the value it started from (recheckAtStart): once per row of -inf or
  /// NaN only. For a loop whose one reduction is that one, whose only
  /// write is the reduction's store and whose buffer element is fixed
  /// outside it. Softmax, in one process with the guarded form: 4096 x 4096
  /// +2.5-2.8% on 2 threads, up to +6% on 1, 4096 x 1024 +1-2%
  /// (docs/benchmarks.md, session 42).
  bool rechecksAtStart(scf::ForOp loop, const LoopAnalysis &analysis) const {
    ArrayRef<Reduction> reductions = analysis.getReductions();
    if (reductions.size() != 1 ||
        !isGuardedMinMax(reductions.front(), selectMinMax))
      return false;
    const Reduction &r = reductions.front();
    auto outside = [&](Value v) { return loop.isDefinedOutsideOfLoop(v); };
    if (!outside(r.load.getMemRef()) ||
        !llvm::all_of(r.load.getIndices(), outside) ||
        r.store.getMemRef() != r.load.getMemRef() ||
        r.store.getIndices() != r.load.getIndices())
      return false;
    WalkResult writes = loop.getBody()->walk([&](Operation *op) {
      if (op == r.store.getOperation())
        return WalkResult::advance();
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects || effects.hasEffect<MemoryEffects::Write>() ||
          effects.hasEffect<MemoryEffects::Allocate>() ||
          effects.hasEffect<MemoryEffects::Free>())
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return !writes.wasInterrupted();
  }

  /// Before `loop` (not yet vectorized), the value of its guard-free
  /// reduction's buffer element (rechecksAtStart); after it, where the
  /// reduction ended at its start: the element back at that value and a
  /// copy of the loop as it is now (scalar, maxnum / minnum exactly) run
  /// again.
  void recheckAtStart(scf::ForOp loop, const Reduction &r) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value init =
        memref::LoadOp::create(b, loc, r.load.getMemRef(), r.load.getIndices());
    b.setInsertionPointAfter(loop);
    Value result =
        memref::LoadOp::create(b, loc, r.load.getMemRef(), r.load.getIndices());
    Value start = arith::ConstantOp::create(b, loc, guardedStart(r, false));
    Value atStart =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, result, start);
    auto recheck = scf::IfOp::create(b, loc, atStart, /*withElse=*/false);
    OpBuilder then = recheck.getThenBodyBuilder();
    memref::StoreOp::create(then, loc, init, r.store.getMemRef(),
                            r.store.getIndices());
    then.clone(*loop);
  }

  /// rechecksAtStart for the loop being vectorized (and its leftover
  /// iterations' narrower strips).
  bool guardFree = false;
  /// The option is on and the function is a kernel (public, with program
  /// ids) that cannot publish its stores (mayPublishStores).
  bool mayStream = false;
  /// argumentsRead of the function, when it may stream.
  DenseSet<BlockArgument> argumentsReadFrom;

  /// `streaming`: the condition the outermost call computed, for the
  /// narrower strips of the iterations left over.
  /// `programsAhead`: see setUpNextProgram; computed from the whole loop
  /// (the leftover iterations' narrower strips keep it).
  void vectorize(scf::ForOp loop, Value streaming = {}, bool outermost = true,
                 int64_t programsAhead = 0) {
    if (loop.getNumResults() != 0 ||
        !loop.getInductionVar().getType().isIndex())
      return;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || step != 1 || *ub - *lb < 4)
      return;
    LoopAnalysis analysis(loop);
    if (!analysis.isLegal() || !analysis.narrowestAccess())
      return;
    // One vector register of the narrowest element, at least 4 lanes, and
    // no more lanes than the loop has iterations.
    int64_t trips = *ub - *lb;
    int64_t lanes = std::clamp<int64_t>(vectorBits / analysis.narrowestAccess(),
                                        4, maxLanes);
    // A reduction's accumulator is a chain of dependent vector ops: strips of
    // several registers give the backend independent chains to overlap.
    if (!analysis.getReductions().empty())
      lanes = std::min(lanes * stripRegisters, maxLanes);
    // With lineStrips (x86), a strip spans at least a cache line of its
    // narrowest access (two registers of f32 on AVX2): the once-per-line
    // work (prefetches, their share of the next program's row) then runs
    // once per strip with no test of the position, and each strip's
    // streaming stores fill whole lines. Layer norm on Zen 3 (AVX2), 2
    // threads, in turns with 8-lane strips: 4096 x 8192 +60-75%, 4096 x
    // 4096 +20-40%; softmax and the tutorial matmul's tile copies measured
    // the same. With 32 registers (AVX-512, where a line is one register
    // of f32) a loop that does not reduce takes stripRegisters registers
    // too: the per-strip work (the share of the
    // next program's prefetches, the loop's own control) is a dozen scalar
    // ops, and while a loop streams beyond the cache every op it adds costs
    // time. Emerald Rapids, in one process with strips of one register:
    // layer norm's store walk 4096 x 4096 +11-14% on 1 and 2 threads, 4096
    // x 8192 +9%, 4096 x 1024 +4%, 4096 x 512 +3%; elementwise GELU, erf
    // and SiLU over 2^22 floats +6-9% although a GELU's strip then spills
    // (111 spills instead of 3); vector add, softmax and the tutorial matmul
    // within the noise (docs/benchmarks.md, session 42). AVX2 keeps strips
    // of a line: its 16 registers spill three times as much there (147
    // spills instead of 48 for that GELU), unmeasured. RVV keeps one register
    // group: unmeasured there, and wider strips double its i64 address
    // vectors (LMUL 4 at VLEN 256).
    if (lineStrips) {
      int64_t lineLanes = kCacheLineBytes * 8 / analysis.narrowestAccess();
      if (vectorRegisters >= kWideStripRegisterFile)
        lineLanes =
            std::max(lineLanes,
                     vectorBits / analysis.narrowestAccess() * stripRegisters);
      lanes = std::clamp<int64_t>(lineLanes, lanes, maxLanes);
    }
    while (lanes > trips)
      lanes /= 2;
    int64_t strips = trips / lanes;
    if (outermost) {
      // As many programs ahead as cover kPrefetchLookaheadBytes of this
      // loop's reads (four for a row of 512 floats).
      programsAhead =
          stepsAhead(llvm::divideCeil(analysis.narrowestAccess(), 8) * trips);
      guardFree = rechecksAtStart(loop, analysis);
      if (guardFree)
        recheckAtStart(loop, analysis.getReductions().front());
    }

    OpBuilder b(loop);
    Location loc = loop.getLoc();
    ArrayRef<Reduction> reductions = analysis.getReductions();
    auto splat = [&](TypedAttr value) -> Value {
      return arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(VectorType::get({lanes}, value.getType()),
                                 value));
    };
    SmallVector<Value> inits;
    for (const Reduction &r : reductions)
      inits.push_back(splat(isGuardedMinMax(r, selectMinMax)
                                ? guardedStart(r, /*guard=*/false)
                                : getNeutralElement(r.kind, r.load.getType())));
    for (const Reduction &r : reductions)
      if (keepsGuard(r, selectMinMax, guardFree))
        inits.push_back(splat(guardedStart(r, /*guard=*/true)));
    Contiguity contiguity = findContiguity(b, loop, analysis, *lb, *ub);
    if (outermost)
      streaming = streamingCondition(b, loop, trips);
    Value stripEnd =
        arith::ConstantIndexOp::create(b, loc, *lb + strips * lanes);
    auto stripLoop = [&](OpBuilder &b, const Contiguity &contiguity) {
      auto strip = scf::ForOp::create(
          b, loc, loop.getLowerBound(), stripEnd,
          arith::ConstantIndexOp::create(b, loc, lanes), inits);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(strip.getBody());
      SmallVector<Value> partials =
          Widener(b, loc, analysis, contiguity, lanes, streaming,
                  vectorBits / 8, selectMinMax, guardFree, programsAhead)
              .run(loop, strip.getInductionVar(), strip.getRegionIterArgs());
      Block *body = strip.getBody();
      if (!body->empty() && isa<scf::YieldOp>(body->back()))
        body->back().setOperands(partials);
      else
        scf::YieldOp::create(b, loc, partials);
      return strip;
    };
    Operation *stripLoops;
    if (contiguity.noWrap && !feedsMicroKernel(loop)) {
      // Two versions of the loop, chosen once: one where the 32-bit offsets
      // do not wrap and every such access is a plain vector access, and the
      // general one, which checks each strip's lanes and gathers or
      // scatters where they are not consecutive. One loop with both paths
      // in every strip would compute the lanes' addresses for the gathers
      // in every strip.
      Contiguity noWrap = contiguity, general = contiguity;
      noWrap.proven.insert(contiguity.unlessWrapped.begin(),
                           contiguity.unlessWrapped.end());
      noWrap.unlessWrapped.clear();
      noWrap.noWrap = Value();
      general.unlessWrapped.clear();
      general.noWrap = Value();
      // The scf.if is in place before its branches are built: what the
      // strips compute from the loops around them (the next iteration's
      // addresses) is looked up through its parents.
      auto versions =
          scf::IfOp::create(b, loc, ValueRange(inits).getTypes(),
                            contiguity.noWrap, /*withElseRegion=*/true);
      for (auto [block, version] :
           {std::pair(versions.thenBlock(), &noWrap),
            std::pair(versions.elseBlock(), &general)}) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(block);
        if (!block->empty())
          b.setInsertionPoint(block->getTerminator());
        scf::ForOp strip = stripLoop(b, *version);
        if (!inits.empty())
          scf::YieldOp::create(b, loc, strip.getResults());
      }
      stripLoops = versions;
    } else {
      stripLoops = stripLoop(b, contiguity);
    }

    // Each reduction folds its lanes into the buffer element once.
    b.setInsertionPointAfter(stripLoops);
    unsigned nextGuard = reductions.size();
    for (auto [r, result] : llvm::zip(reductions, stripLoops->getResults())) {
      Value partial = result;
      if (isGuardedMinMax(r, selectMinMax) && foldsBySelect(partial)) {
        Value guard = keepsGuard(r, selectMinMax, guardFree)
                          ? stripLoops->getResult(nextGuard++)
                          : Value();
        Value acc = memref::LoadOp::create(b, loc, r.load.getMemRef(),
                                           r.load.getIndices());
        memref::StoreOp::create(b, loc,
                                foldGuarded(b, loc, r, partial, guard, acc),
                                r.store.getMemRef(), r.store.getIndices());
        continue;
      }
      if (keepsGuard(r, selectMinMax, guardFree)) {
        // NaN in the lanes that saw only NaN, as maxnum/minnum has them.
        Value guard = stripLoops->getResult(nextGuard++);
        Value onlyNaN = onlyNaNLanes(b, loc, r, partial, guard);
        auto type = cast<FloatType>(r.load.getType());
        partial = arith::SelectOp::create(
            b, loc, onlyNaN,
            splat(FloatAttr::get(type,
                                 APFloat::getQNaN(type.getFloatSemantics()))),
            partial);
      }
      Value acc = memref::LoadOp::create(b, loc, r.load.getMemRef(),
                                         r.load.getIndices());
      Value total = reduceLanes(b, loc, r.kind, partial, acc, combineFlags(r));
      memref::StoreOp::create(b, loc, total, r.store.getMemRef(),
                              r.store.getIndices());
    }

    if (strips * lanes == trips) {
      loop.erase();
      return;
    }
    // The iterations left over (up to 31 after strips of 4 registers of 8
    // lanes, say) get narrower strips before the scalar loop: a reduction
    // over 1023 elements, what a row's reduction after its first element
    // is, would otherwise end in 31 dependent scalar steps.
    loop.getLowerBoundMutable().assign(stripEnd);
    vectorize(loop, streaming, /*outermost=*/false, programsAhead);
  }
};

} // namespace
} // namespace mlir::spine
