//===- IterationEvaluator.h - values of another loop iteration --*- C++ -*-===//
//
// Recomputes what a loop body computes, for another iteration than the
// current one (a strip's first lane, the loop's first and last iteration,
// the next iteration of an outer loop), by cloning the side-effect-free ops
// that compute it.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_ITERATIONEVALUATOR_H
#define SPINE_TRITON_PASSES_ITERATIONEVALUATOR_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::spine {

/// The allocation a buffer is a view of.
inline Value rootBuffer(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CastOp, memref::ReinterpretCastOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      break;
    memref = def->getOperand(0);
  }
  return memref;
}

/// The value something in a loop's body has in another iteration: clones
/// the ops computing it at the builder's insertion point, with the loop
/// values of that iteration substituted (`map`: the induction variable, and
/// for an outer loop its iter_args). Only ops without side effects or
/// regions are cloned; arguments of the loops around the insertion point
/// that are not substituted keep their current value.
class IterationEvaluator {
public:
  /// With `readBuffers`, in-bounds reads of buffers nothing in `scope`
  /// writes are recomputed too.
  IterationEvaluator(OpBuilder &b, Operation *scope, IRMapping map,
                     bool readBuffers = false)
      : b(b), scope(scope), map(std::move(map)), readBuffers(readBuffers) {}
  IterationEvaluator(OpBuilder &b, scf::ForOp loop, Value iv)
      : b(b), scope(loop), readBuffers(true) {
    map.map(loop.getInductionVar(), iv);
  }

  /// Null if `v` depends on something that cannot be recomputed.
  Value at(Value v) {
    if (Value mapped = map.lookupOrNull(v))
      return mapped;
    Operation *def = v.getDefiningOp();
    if (!def) {
      Operation *owner = v.getParentBlock()->getParentOp();
      return !scope->isAncestor(owner) ||
                     owner->isAncestor(b.getInsertionBlock()->getParentOp())
                 ? v
                 : Value();
    }
    if (!scope->isProperAncestor(def))
      return v;
    auto read = dyn_cast<memref::LoadOp>(def);
    if (def->getNumRegions() != 0 ||
        (!isMemoryEffectFree(def) &&
         !(readBuffers && read && isSafeRead(read))))
      return Value();
    for (Value operand : def->getOperands())
      if (!at(operand))
        return Value();
    return b.clone(*def, map)->getResult(cast<OpResult>(v).getResultNumber());
  }

private:
  /// A read of a statically shaped buffer at indices that stay in bounds
  /// (constants or counters of constant-bound loops), of a buffer nothing in
  /// the scope writes.
  bool isSafeRead(memref::LoadOp load) {
    MemRefType type = load.getMemRefType();
    if (!type.hasStaticShape())
      return false;
    for (auto [index, size] : llvm::zip(load.getIndices(), type.getShape())) {
      if (std::optional<int64_t> c = getConstantIntValue(index)) {
        if (*c < 0 || *c >= size)
          return false;
        continue;
      }
      auto arg = dyn_cast<BlockArgument>(index);
      auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                      : scf::ForOp();
      if (!loop || arg != loop.getInductionVar())
        return false;
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
      if (!lb || !ub || *lb < 0 || *ub > size)
        return false;
    }
    Value root = rootBuffer(load.getMemRef());
    WalkResult written = scope->walk([&](Operation *op) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects) {
        bool touches = llvm::any_of(op->getOperands(), [&](Value operand) {
          return isa<MemRefType>(operand.getType()) &&
                 rootBuffer(operand) == root;
        });
        return touches && op->getNumRegions() == 0 ? WalkResult::interrupt()
                                                   : WalkResult::advance();
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (const MemoryEffects::EffectInstance &effect : list)
        if (isa<MemoryEffects::Write>(effect.getEffect()) &&
            effect.getValue() && rootBuffer(effect.getValue()) == root)
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return !written.wasInterrupted();
  }

  OpBuilder &b;
  Operation *scope;
  IRMapping map;
  bool readBuffers = false;
};

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_ITERATIONEVALUATOR_H
