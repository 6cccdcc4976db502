//===- LowerStridedCopies.cpp - strided memref.copy to linalg.copy --------===//
//
// finalize-memref-to-llvm lowers a copy between contiguous buffers to a
// memcpy but any other copy to a call of `memrefCopy` from MLIR's runner
// utilities, which kernels do not link. Such copies become linalg.copy and
// are lowered to loops like every other linalg op.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::spine {
#define GEN_PASS_DEF_LOWERSTRIDEDCOPIES
#include "passes/Passes.h.inc"

namespace {

bool isContiguous(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.getLayout().isIdentity();
}

struct LowerStridedCopiesPass
    : impl::LowerStridedCopiesBase<LowerStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      if (!isContiguous(copy.getSource()) || !isContiguous(copy.getTarget()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
} // namespace mlir::spine
