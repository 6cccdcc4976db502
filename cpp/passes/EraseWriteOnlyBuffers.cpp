//===- EraseWriteOnlyBuffers.cpp - drop buffers nothing reads -------------===//
//
// A tile that only a reduction consumes is still written to its buffer after
// spine-vectorize-element-loops has fused the reduction into the loop that
// computes it: the strip adds its registers to the accumulator and stores
// them too. Layer norm's `_var += x * x` over a row in one block is such a
// tile: each program stored its whole row of squares (32 KiB at 8192
// columns) into a heap buffer that was freed unread. LLVM keeps stores into
// a malloc'd buffer once the lowering has aligned its pointer through
// ptrtoint (the pointer escapes), so the buffer and every store into it are
// erased here, where the buffer is still a memref value.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::spine {
#define GEN_PASS_DEF_ERASEWRITEONLYBUFFERS
#include "passes/Passes.h.inc"

namespace {

/// Whether `use` writes into the buffer it names (as the destination, not
/// as the value stored).
bool writesInto(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto store = dyn_cast<memref::StoreOp>(user))
    return &use == &store.getMemrefMutable();
  if (auto store = dyn_cast<vector::StoreOp>(user))
    return &use == &store.getBaseMutable();
  if (auto store = dyn_cast<vector::MaskedStoreOp>(user))
    return &use == &store.getBaseMutable();
  if (auto write = dyn_cast<vector::TransferWriteOp>(user))
    return &use == &write.getBaseMutable() && !write.hasPureTensorSemantics();
  return false;
}

/// The ops to erase with `buffer` when nothing reads it: every write into it
/// or into a view of it, the views, and its deallocation. Empty when
/// anything else uses it (a load, a copy, a yield, a call).
SmallVector<Operation *> writeOnlyUsers(Value buffer) {
  SmallVector<Operation *> users;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (writesInto(use) || isa<memref::DeallocOp>(user)) {
        users.push_back(user);
        continue;
      }
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (!view || view.getViewSource() != value)
        return {};
      users.push_back(user);
      llvm::append_range(worklist, user->getResults());
    }
  }
  return users;
}

struct EraseWriteOnlyBuffersPass
    : impl::EraseWriteOnlyBuffersBase<EraseWriteOnlyBuffersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> buffers;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp>(op))
        buffers.push_back(op);
    });
    for (Operation *buffer : buffers) {
      SmallVector<Operation *> users = writeOnlyUsers(buffer->getResult(0));
      if (users.empty() && !buffer->use_empty())
        continue;
      // Views come before their own users in the list: erase from the back.
      for (Operation *user : llvm::reverse(users))
        user->erase();
      buffer->erase();
    }
  }
};

} // namespace
} // namespace mlir::spine
