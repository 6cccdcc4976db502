//===- StackBuffers.cpp - small tile buffers live on the stack ------------===//
//
// Bufferization gives every tile a heap buffer: a tl.load into a register
// tile, a temporary of an elementwise chain, a reduction's partials. A kernel
// runs once per program, thousands of times per launch, and every one of
// those buffers was a malloc and a free per program (or per loop iteration).
// Buffers of static shape that stay within the execution of the block that
// allocates them (never yielded out of a loop around the allocation,
// returned or passed to a call) become stack allocations in the
// function's entry block: one per function, reused by every iteration, which
// is safe because no iteration reads what an earlier one left there.
//
// A loop-carried value that cannot be updated in place (flash attention's
// running maximum m_i: the step computes the new maximum while it still
// reads the old one) gets a new buffer per iteration, which the next
// iteration reads and then drops. Such a buffer, allocated in the loop's body
// and yielded to the next iteration, gets two stack slots used in turns: each
// iteration writes the slot its carried value is not in.
//
// A kernel is compiled in versions (scf.if on the launch's sizes), each with
// its own tiles, and only one branch of an scf.if runs: buffers of the same
// type allocated in different branches (of an scf.if outside loops) share
// one stack slot. Layer norm over 8192 columns has a dozen row buffers of
// 32 KiB in its versions; with a slot each, those over the budget stayed
// malloc'd per program (given the same two mallocs per row, a hand-written
// layer norm ran 7-9% slower).
//
//===----------------------------------------------------------------------===//

#include "passes/ExclusiveBranches.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::spine {
#define GEN_PASS_DEF_STACKBUFFERS
#include "passes/Passes.h.inc"

namespace {

/// Bytes of a statically shaped buffer, or nullopt.
std::optional<int64_t> staticSize(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  Type element = type.getElementType();
  int64_t bytes;
  if (element.isIndex())
    bytes = 8;
  else if (element.isIntOrFloat())
    bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  else
    return std::nullopt;
  return type.getNumElements() * bytes;
}

/// Whether `op` reads or writes a buffer's elements (or its sizes) and keeps
/// no reference to it.
bool accessesElements(Operation *op) {
  return isa<memref::LoadOp, memref::StoreOp, memref::CopyOp, memref::DimOp,
             vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp,
             vector::MaskedStoreOp, vector::TransferReadOp,
             vector::TransferWriteOp, linalg::LinalgOp>(op);
}

/// Whether the buffer `buffer`, made at `origin`, stays within the block
/// execution that made it: its uses (and those of its views and of the loop
/// values it is carried in) read or write its elements, and it is never
/// yielded out of a region enclosing `origin`, returned or handed to a call.
/// The use `carry` is not looked at.
bool staysLocal(Value buffer, Operation *origin, OpOperand *carry = nullptr) {
  SmallVector<Value> worklist{buffer};
  DenseSet<Value> seen{buffer};
  auto alias = [&](Value v) {
    if (seen.insert(v).second)
      worklist.push_back(v);
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (&use == carry)
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() != value)
          return false;
        for (Value result : user->getResults())
          alias(result);
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        // Carried by a loop the allocation is outside of.
        if (BlockArgument arg = loop.getTiedLoopRegionIterArg(&use)) {
          alias(arg);
          alias(loop.getTiedLoopResult(&use));
          continue;
        }
        return false;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        Operation *parent = yield->getParentOp();
        // Out of a loop around the allocation, it would be live in the next
        // iteration, which allocates it again. Out of a branch it is not:
        // the branch runs once per execution of the block around it, and
        // where the branch's result goes from there is checked as well.
        if (!isa<scf::ForOp, scf::IfOp>(parent) ||
            (isa<scf::ForOp>(parent) && parent->isAncestor(origin)))
          return false;
        alias(parent->getResult(use.getOperandNumber()));
        if (auto loop = dyn_cast<scf::ForOp>(parent))
          alias(loop.getRegionIterArgs()[use.getOperandNumber()]);
        continue;
      }
      if (accessesElements(user))
        continue;
      return false;
    }
  }
  return true;
}

/// The yield that carries `alloc`, allocated in the body of an scf.for, to
/// the loop's next iteration, when that is the one way it leaves the
/// iteration, the value it replaces is dropped there (the iteration argument
/// stays within the iteration) and the loop's result stays within the block
/// execution that ran the loop. Two buffers used in turns then serve every
/// iteration.
OpOperand *carriedToNextIteration(memref::AllocOp alloc) {
  auto loop = dyn_cast<scf::ForOp>(alloc->getParentOp());
  if (!loop)
    return nullptr;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  OpOperand *carry = nullptr;
  for (OpOperand &use : alloc->getUses())
    if (use.getOwner() == yield) {
      if (carry)
        return nullptr;
      carry = &use;
    }
  if (!carry)
    return nullptr;
  unsigned position = carry->getOperandNumber();
  if (!staysLocal(loop.getRegionIterArgs()[position], alloc) ||
      !staysLocal(loop.getResult(position), loop) ||
      !staysLocal(alloc, alloc, carry))
    return nullptr;
  return carry;
}

/// One stack allocation and the buffers it serves, pairwise exclusive.
struct Slot {
  MemRefType type;
  IntegerAttr alignment;
  SmallVector<memref::AllocOp> buffers;
};

struct StackBuffersPass : impl::StackBuffersBase<StackBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    SmallVector<Slot> slots;
    // Buffers carried to the next iteration, with the position they have in
    // the loop's iteration arguments.
    SmallVector<std::pair<memref::AllocOp, unsigned>> carried;
    int64_t budget = maxTotalBytes;
    for (memref::AllocOp alloc : allocs) {
      std::optional<int64_t> bytes = staticSize(alloc.getType());
      if (!bytes || *bytes > maxBufferBytes)
        continue;
      if (!staysLocal(alloc, alloc)) {
        OpOperand *carry = carriedToNextIteration(alloc);
        if (carry && 2 * *bytes <= budget) {
          budget -= 2 * *bytes;
          carried.push_back({alloc, carry->getOperandNumber()});
        }
        continue;
      }
      Slot *shared = llvm::find_if(slots, [&](const Slot &slot) {
        return slot.type == alloc.getType() &&
               llvm::all_of(slot.buffers, [&](memref::AllocOp other) {
                 return inBranchesOfOneCall(alloc, other);
               });
      });
      if (shared == slots.end()) {
        if (*bytes > budget)
          continue;
        budget -= *bytes;
        slots.push_back({alloc.getType(), {}, {}});
        shared = &slots.back();
      }
      shared->buffers.push_back(alloc);
      IntegerAttr alignment = alloc.getAlignmentAttr();
      if (alignment && (!shared->alignment ||
                        alignment.getInt() > shared->alignment.getInt()))
        shared->alignment = alignment;
    }
    // At the top of the entry block: made once per call, outside every
    // loop and branch.
    Block &entry = func.getBody().front();
    OpBuilder b(&entry, entry.begin());
    for (Slot &slot : slots) {
      auto alloca =
          memref::AllocaOp::create(b, slot.buffers.front().getLoc(), slot.type,
                                   ValueRange(), slot.alignment);
      for (memref::AllocOp alloc : slot.buffers) {
        alloc.replaceAllUsesWith(alloca.getResult());
        alloc.erase();
      }
    }
    for (auto [alloc, position] : carried) {
      Location loc = alloc.getLoc();
      b.setInsertionPoint(&entry, entry.begin());
      Value first = memref::AllocaOp::create(
          b, loc, alloc.getType(), ValueRange(), alloc.getAlignmentAttr());
      Value second = memref::AllocaOp::create(
          b, loc, alloc.getType(), ValueRange(), alloc.getAlignmentAttr());
      // The slot the value carried into this iteration is not in: the
      // first iteration's (the loop's initial value) is in neither.
      auto loop = cast<scf::ForOp>(alloc->getParentOp());
      b.setInsertionPoint(alloc);
      Value previous = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, loop.getRegionIterArgs()[position]);
      Value inFirst = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, previous,
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, first));
      alloc.replaceAllUsesWith(
          arith::SelectOp::create(b, loc, inFirst, second, first).getResult());
      alloc.erase();
    }
  }
};

} // namespace
} // namespace mlir::spine
