//===- TileBuffer.h - buffers a kernel allocates itself ---------*- C++ -*-===//
//
// Tile buffers (memref.alloca, or memref.alloc for large ones) hold a
// kernel's own intermediate values: no pointer the kernel was given and no
// other buffer reaches them, so passes reasoning about aliasing treat them
// apart from memory reached through pointers or load views.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_TILEBUFFER_H
#define SPINE_TRITON_PASSES_TILEBUFFER_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::spine {

/// A buffer the kernel allocated itself: nothing but its own views aliases
/// it.
inline bool isTileBuffer(Value buffer) {
  return buffer.getDefiningOp<memref::AllocOp>() ||
         buffer.getDefiningOp<memref::AllocaOp>();
}

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_TILEBUFFER_H
