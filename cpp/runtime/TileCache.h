//===- TileCache.h - dot-operand tiles copied once per launch ---*- C++ -*-===//
//
// A Triton matmul's programs each copy the A and B tiles they multiply, and
// each tile is the same for every program of a row (A) or column (B) of C:
// the tutorial matmul at 2048 copies every tile 16 times. A launch of a
// kernel that asks for it (docs/kernel-abi.md, "Tile cache") gets this
// cache: the first program to need a tile copies it into the cache's arena,
// contiguous, and every later one reads that copy.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_RUNTIME_TILECACHE_H
#define SPINE_TRITON_RUNTIME_TILECACHE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SpineTileCache SpineTileCache;

/// The address of the cached copy of the `rows` x `rowBytes` tile at
/// `source` whose rows are `rowStrideBytes` apart, its rows `slotRowBytes`
/// apart (copied now if no program of the launch has yet), or 0 when the
/// cache cannot hold it: the kernel then copies the tile itself.
typedef uint64_t (*SpineTileLookup)(SpineTileCache *cache, uint64_t source,
                                    int64_t rowStrideBytes, int64_t rows,
                                    int64_t rowBytes, int64_t slotRowBytes);

/// What a compiled kernel sees of the cache: it calls `lookup` through the
/// pointer at the cache's address.
struct SpineTileCacheHeader {
  SpineTileLookup lookup;
};

/// The process's tile cache, emptied for a new launch, or null while another
/// launch holds it (concurrent launches from several host threads).
SpineTileCache *spine_tile_cache_acquire(void);

/// Gives the cache back once the launch has finished.
void spine_tile_cache_release(SpineTileCache *cache);

#ifdef __cplusplus
}
#endif

#endif // SPINE_TRITON_RUNTIME_TILECACHE_H
