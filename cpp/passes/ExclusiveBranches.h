//===- ExclusiveBranches.h - ops that never run in one call -----*- C++ -*-===//
//
// A kernel is compiled in versions: scf.if on the launch's sizes, each
// branch with its own tiles. spine-stack-buffers lets buffers of different
// versions share one stack slot, and spine-erase-write-only-buffers then
// tells a store that only another version reads from that slot as dead.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_EXCLUSIVEBRANCHES_H
#define SPINE_TRITON_PASSES_EXCLUSIVEBRANCHES_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::spine {

/// Whether `a` and `b` lie in different branches of an scf.if or
/// scf.index_switch that no loop encloses: in one call of the function at
/// most one of them runs, and once. (Inside a loop, what one iteration's
/// branch leaves in memory, a later iteration's other branch could read.)
inline bool inBranchesOfOneCall(Operation *a, Operation *b) {
  Operation *common = a->getParentOp();
  while (common && !common->isProperAncestor(b))
    common = common->getParentOp();
  if (!isa_and_nonnull<scf::IfOp, scf::IndexSwitchOp>(common) ||
      common->getParentOfType<LoopLikeOpInterface>())
    return false;
  auto branchOf = [&](Operation *op) {
    while (op->getParentOp() != common)
      op = op->getParentOp();
    return op->getParentRegion();
  };
  return branchOf(a) != branchOf(b);
}

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_EXCLUSIVEBRANCHES_H
