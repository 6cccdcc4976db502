//===- TileCache.cpp - dot-operand tiles copied once per launch -----------===//
//
// One cache per process, held by one launch at a time. Tiles are found by
// their source address and shape in an open-addressed table whose entries
// carry the launch's epoch: a new launch starts empty without clearing the
// table. A tile's first reader claims its entry, copies the tile into the
// arena and publishes it; a reader that finds an entry still being filled
// looks further, and one that finds no room copies the tile itself. The
// arena and table stay mapped between launches, so later launches touch no
// new pages.
//
// A kernel asks for the cache only where no program writes what its dot
// operands read before reading it (spine-tile-cache-argument): a copy made
// by one program then holds what any program would have read.
//
//===----------------------------------------------------------------------===//

#include "runtime/TileCache.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>

namespace {

/// The arena's size: the A and B of an fp32 matmul of 8192 x 8192 (256 MiB
/// each) with room to spare. Tiles beyond it are copied by the kernel as
/// without a cache.
constexpr size_t kArenaBytes = size_t(1) << 30;
/// What the arena keeps of its pages between launches: the A and B of an
/// fp32 matmul of 4096 x 4096. Pages beyond go back to the system after each
/// launch (zeroing them again costs a larger launch about 1% of its time).
constexpr size_t kWarmBytes = size_t(128) << 20;
/// Entries of the table: eight times the tiles of that matmul at its
/// smallest GPU tiles (32 x 32 of fp32, 4 KiB), so probes stay short.
constexpr size_t kEntries = size_t(1) << 17;
constexpr size_t kProbes = 8;
constexpr size_t kSlotAlignment = 64;

/// An entry's stamp: the epoch of the launch that claimed it, times four,
/// plus its state.
enum : uint64_t { kFilling = 1, kReady = 2 };

/// A tile: where it is, its shape, and the layout of its copy.
struct Tile {
  uint64_t source;
  int64_t rowStrideBytes, rows, rowBytes, slotRowBytes;

  bool operator==(const Tile &other) const {
    return source == other.source && rowStrideBytes == other.rowStrideBytes &&
           rows == other.rows && rowBytes == other.rowBytes &&
           slotRowBytes == other.slotRowBytes;
  }
};

struct Entry {
  std::atomic<uint64_t> stamp;
  Tile tile;
  uint64_t slot;
};

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

} // namespace

struct SpineTileCache {
  SpineTileCacheHeader header;
  std::atomic<bool> held{false};
  uint64_t epoch = 0;
  std::atomic<size_t> used{0};
  char *arena = nullptr;
  Entry *entries = nullptr;
};

namespace {

uint64_t lookup(SpineTileCache *cache, uint64_t source, int64_t rowStrideBytes,
                int64_t rows, int64_t rowBytes, int64_t slotRowBytes) {
  if (rows <= 0 || rowBytes <= 0 || slotRowBytes < rowBytes)
    return 0;
  Tile tile{source, rowStrideBytes, rows, rowBytes, slotRowBytes};
  uint64_t current = cache->epoch * 4;
  size_t home = mix(source ^ mix(uint64_t(rowStrideBytes) ^
                                 uint64_t(rows) << 20 ^ uint64_t(rowBytes)));
  for (size_t probe = 0; probe < kProbes; ++probe) {
    Entry &entry = cache->entries[(home + probe) & (kEntries - 1)];
    uint64_t stamp = entry.stamp.load(std::memory_order_acquire);
    if (stamp == current + kReady) {
      if (entry.tile == tile)
        return entry.slot;
      continue;
    }
    if (stamp >= current) // being filled by another program
      continue;
    size_t bytes = (size_t(rows) * size_t(slotRowBytes) + kSlotAlignment - 1) &
                   ~(kSlotAlignment - 1);
    // A full arena claims no entry: later lookups of the launch stay cheap.
    if (cache->used.load(std::memory_order_relaxed) + bytes > kArenaBytes)
      return 0;
    if (!entry.stamp.compare_exchange_strong(stamp, current + kFilling,
                                             std::memory_order_acquire))
      continue;
    size_t offset = cache->used.fetch_add(bytes, std::memory_order_relaxed);
    if (offset + bytes > kArenaBytes) {
      // Full: the entry stays claimed for this launch and empty.
      return 0;
    }
    char *slot = cache->arena + offset;
    const char *from = reinterpret_cast<const char *>(source);
    for (int64_t r = 0; r < rows; ++r) {
      // The rows are far apart: fetch ahead what the hardware will not.
      if (r + 8 < rows)
        for (int64_t b = 0; b < rowBytes; b += 64)
          __builtin_prefetch(from + (r + 8) * rowStrideBytes + b);
      std::memcpy(slot + r * slotRowBytes, from + r * rowStrideBytes,
                  size_t(rowBytes));
    }
    entry.tile = tile;
    entry.slot = reinterpret_cast<uint64_t>(slot);
    entry.stamp.store(current + kReady, std::memory_order_release);
    return entry.slot;
  }
  return 0;
}

SpineTileCache *processCache() {
  static SpineTileCache cache;
  static std::once_flag mapped;
  std::call_once(mapped, [] {
    void *arena = mmap(nullptr, kArenaBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *entries =
        mmap(nullptr, kEntries * sizeof(Entry), PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (arena == MAP_FAILED || entries == MAP_FAILED)
      return; // no cache: every launch copies its own tiles
#ifdef MADV_HUGEPAGE
    madvise(arena, kArenaBytes, MADV_HUGEPAGE);
#endif
    cache.arena = static_cast<char *>(arena);
    cache.entries = static_cast<Entry *>(entries); // zero: no epoch yet
    cache.header.lookup = lookup;
  });
  return cache.arena ? &cache : nullptr;
}

/// SPINE_TRITON_TILE_CACHE=0 turns the cache off (each program copies its
/// own tiles, as without one): for comparison and debugging.
bool turnedOff() {
  const char *value = std::getenv("SPINE_TRITON_TILE_CACHE");
  return value && std::strcmp(value, "0") == 0;
}

} // namespace

extern "C" SpineTileCache *spine_tile_cache_acquire(void) {
  SpineTileCache *cache = turnedOff() ? nullptr : processCache();
  if (!cache || cache->held.exchange(true, std::memory_order_acquire))
    return nullptr;
  ++cache->epoch;
  cache->used.store(0, std::memory_order_relaxed);
  return cache;
}

extern "C" void spine_tile_cache_release(SpineTileCache *cache) {
  if (!cache)
    return;
  size_t used =
      std::min(cache->used.load(std::memory_order_relaxed), kArenaBytes);
  if (used > kWarmBytes)
    madvise(cache->arena + kWarmBytes, used - kWarmBytes, MADV_DONTNEED);
  cache->held.store(false, std::memory_order_release);
}
