//===- TileBuffer.h - buffers a kernel allocates itself ---------*- C++ -*-===//
//
// Tile buffers (memref.alloca, or memref.alloc for large ones) hold a
// kernel's own intermediate values: no pointer the kernel was given and no
// other buffer reaches them, so passes reasoning about aliasing treat them
// apart from memory reached through pointers or load views. A matmul's B
// tiles get their rows padded by one rule wherever they are made.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_TILEBUFFER_H
#define SPINE_TRITON_PASSES_TILEBUFFER_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cstdint>

namespace mlir::spine {

/// The alignment of the tile buffers the kernel makes itself, in bytes: a
/// cache line, so that vector accesses of their rows (an AVX-512 register is
/// one) never straddle two.
constexpr int64_t kTileAlignment = 64;

/// A buffer the kernel allocated itself: nothing but its own views aliases
/// it.
inline bool isTileBuffer(Value buffer) {
  return buffer.getDefiningOp<memref::AllocOp>() ||
         buffer.getDefiningOp<memref::AllocaOp>();
}

/// The row length, in elements of `bytes` bytes, to give a tile of `rows` x
/// `columns` that a matmul micro-kernel reads row after row: a cache line
/// longer when the rows are a multiple of 1 KiB and more than 8 of them (an
/// L1 set's ways), whose rows would otherwise fall into the same few L1 sets
/// and evict each other during the K loop. Elements narrower than a byte (i1,
/// `bytes` 0) are left alone.
inline int64_t paddedRowLength(int64_t rows, int64_t columns, int64_t bytes) {
  if (bytes < 1 || kTileAlignment % bytes != 0 ||
      (columns * bytes) % 1024 != 0 || rows <= 8)
    return columns;
  return columns + kTileAlignment / bytes;
}

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_TILEBUFFER_H
