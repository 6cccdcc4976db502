//===- TileCache.h - the launch's tile cache in the kernel ------*- C++ -*-===//
//
// Names spine-tile-cache-argument and the load lowering share: which loads
// read their tile through the launch's tile cache (cpp/runtime/TileCache.h)
// and which kernel argument holds it.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_TILECACHE_H
#define SPINE_TRITON_PASSES_TILECACHE_H

#include "llvm/ADT/StringRef.h"

namespace mlir::spine {

/// On a tt.load whose in-bounds tile may come from the tile cache.
constexpr llvm::StringLiteral kCachedTileAttr = "spine.cached_tile";
/// On the kernel argument holding the tile cache's address (0: none).
constexpr llvm::StringLiteral kTileCacheArgAttr = "spine.tile_cache";

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_TILECACHE_H
