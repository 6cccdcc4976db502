//===- EraseWriteOnlyBuffers.cpp - drop stores nothing reads --------------===//
//
// A tile that only a reduction consumes is still written to its buffer after
// spine-vectorize-element-loops has fused the reduction into the loop that
// computes it: the strip adds its registers to the accumulator and stores
// them too. Layer norm's `_var += x * x` over a row in one block is such a
// tile: each program stored its whole row of squares (32 KiB at 8192
// columns) into a heap buffer that was freed unread. LLVM keeps stores into
// a malloc'd buffer once the lowering has aligned its pointer through
// ptrtoint (the pointer escapes), and into a stack slot that another version
// of the kernel reads (spine-stack-buffers shares slots between versions),
// so such stores are erased here, where the buffer is still a memref value:
// a store is dead when every read of its buffer lies in another branch of a
// versioning scf.if. A buffer left without reads goes with its stores.
//
//===----------------------------------------------------------------------===//

#include "passes/ExclusiveBranches.h"
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

/// Whether `op` only reads the buffer it names.
bool onlyReads(Operation *op) {
  return isa<memref::LoadOp, vector::LoadOp, vector::MaskedLoadOp,
             vector::TransferReadOp>(op);
}

/// What uses a buffer, directly or through its views.
struct BufferUses {
  SmallVector<Operation *> writes;
  SmallVector<Operation *> reads;
  /// The views and deallocations, each after what it uses.
  SmallVector<Operation *> views;
};

/// The uses of `buffer`, or nullopt when something else uses it (a yield,
/// a call, a copy), which may read it anywhere.
std::optional<BufferUses> usesOf(Value buffer) {
  BufferUses uses;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (writesInto(use)) {
        uses.writes.push_back(user);
      } else if (onlyReads(user)) {
        uses.reads.push_back(user);
      } else if (isa<memref::DeallocOp>(user)) {
        uses.views.push_back(user);
      } else if (auto view = dyn_cast<ViewLikeOpInterface>(user);
                 view && view.getViewSource() == value) {
        uses.views.push_back(user);
        llvm::append_range(worklist, user->getResults());
      } else {
        return std::nullopt;
      }
    }
  }
  return uses;
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
      std::optional<BufferUses> uses = usesOf(buffer->getResult(0));
      if (!uses)
        continue;
      for (Operation *write : uses->writes)
        if (llvm::all_of(uses->reads, [&](Operation *read) {
              return inBranchesOfOneCall(write, read);
            }))
          write->erase();
      if (!uses->reads.empty())
        continue;
      for (Operation *view : llvm::reverse(uses->views))
        view->erase();
      buffer->erase();
    }
  }
};

} // namespace
} // namespace mlir::spine
