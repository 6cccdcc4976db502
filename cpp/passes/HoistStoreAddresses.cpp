//===- HoistStoreAddresses.cpp - store addresses known before loads ------===//
//
// A load of a block may be read in place (a view of memory, LoadViews.h)
// even when a store follows it, if at run time the store's addresses prove
// disjoint from the load's: then the store cannot change what the view
// reads. The check runs where the load is, so the store's address, whose
// scalar parts a kernel usually computes just before the store (softmax's
// `output_ptr + row * stride`), must be computed before the load. Here the
// scalar side-effect-free ops a store's pointer depends on move up in their
// block, each right after the last definition of its operands.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "triton/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::spine {
#define GEN_PASS_DEF_HOISTSTOREADDRESSES
#include "passes/Passes.h.inc"

namespace {

bool isScalar(Type type) { return !isa<ShapedType>(type); }

/// A side-effect-free op without regions whose operands and results are all
/// scalars (integers, pointers).
bool isScalarComputation(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         llvm::all_of(op->getOperandTypes(), isScalar) &&
         llvm::all_of(op->getResultTypes(), isScalar);
}

/// The scalar computations in `block` that `value` depends on (through the
/// tensor ops that build an address, a splat of a row's address), in program
/// order.
SmallVector<Operation *> scalarSlice(Value value, Block *block) {
  SetVector<Operation *> slice;
  SmallVector<Value> worklist{value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || def->getNumRegions() != 0 ||
        !isMemoryEffectFree(def))
      continue;
    if (isScalarComputation(def))
      slice.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Moves `op` up to just after the last op of its block that defines one of
/// its operands (to the block's start when none does).
void hoist(Operation *op) {
  Block *block = op->getBlock();
  Operation *after = nullptr;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == block &&
        (!after || after->isBeforeInBlock(def)))
      after = def;
  if (after)
    op->moveAfter(after);
  else
    op->moveBefore(&block->front());
}

struct HoistStoreAddressesPass
    : impl::HoistStoreAddressesBase<HoistStoreAddressesPass> {
  void runOnOperation() override {
    getOperation().walk([](triton::StoreOp store) {
      for (Operation *op : scalarSlice(store.getPtr(), store->getBlock()))
        hoist(op);
    });
  }
};

} // namespace
} // namespace mlir::spine
