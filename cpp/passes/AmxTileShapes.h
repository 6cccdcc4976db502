//===- AmxTileShapes.h - which dots AMX tiles multiply ----------*- C++ -*-===//
//
// The one rule spine-unroll-dot-loops and spine-vectorize-matmul share for
// the dots that become AMX tile products: bf16 x bf16 into f32 (tdpbf16ps,
// K steps in pairs) and i8 x i8 into i32 (tdpbssd, in quads), C in 16 x 16
// tiles of 32-bit elements and A in tiles of 16 rows of 64 bytes.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_AMXTILESHAPES_H
#define SPINE_TRITON_PASSES_AMXTILESHAPES_H

#include "mlir/IR/Types.h"

#include <cstdint>

namespace mlir::spine {

/// Rows of an AMX tile, and the 32-bit columns of a row (64 bytes).
constexpr int64_t kAmxRows = 16;

/// The K steps a 32-bit element of an AMX tile row holds for a dot of A, B
/// and C elements `a`, `b`, `c` into C [M, N] over K, when AMX multiplies it:
/// 2 (bf16 into f32) or 4 (i8 into i32), with M and N multiples of 16 and K
/// of a tile row (32 bf16 or 64 i8); else 0.
inline int64_t amxKGroup(Type a, Type b, Type c, int64_t m, int64_t n,
                         int64_t k) {
  int64_t group = 0;
  if (a.isBF16() && b.isBF16() && c.isF32())
    group = 2;
  else if (a.isInteger(8) && b.isInteger(8) && c.isInteger(32))
    group = 4;
  if (!group || m % kAmxRows != 0 || n % kAmxRows != 0 ||
      k % (kAmxRows * group) != 0)
    return 0;
  return group;
}

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_AMXTILESHAPES_H
