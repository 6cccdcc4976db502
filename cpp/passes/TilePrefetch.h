//===- TilePrefetch.h - markers for scheduling tile prefetches --*- C++ -*-===//
//
// The attributes by which spine-schedule-tile-prefetches finds what the
// earlier passes made: the prefetches of a tile's next iteration and of the
// next program (from spine-vectorize-element-loops) and the micro-kernel's loop
// over row blocks (from spine-vectorize-matmul); the cache level both
// passes prefetch into while a loop computes; and the loop over tiles both
// find around a prefetch.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_TILEPREFETCH_H
#define SPINE_TRITON_PASSES_TILEPREFETCH_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::spine {

/// Unit attribute of an llvm.intr.prefetch of what a tile loop reads in the
/// next iteration of the loop around it.
constexpr llvm::StringLiteral kNextIterationPrefetch =
    "spine.next_iteration_prefetch";

/// Attribute of an llvm.intr.prefetch of what a loop reads in a later
/// program on the same thread (pid_x + n): n, an i64.
constexpr llvm::StringLiteral kNextProgramPrefetch =
    "spine.next_program_prefetch";

/// llvm.intr.prefetch's locality for L2: what the prefetches issued during
/// computing loops use, L1 being busy with those loops' own data (a
/// micro-kernel's accumulators and B panel, a row's tiles) until the data
/// prefetched is read.
constexpr int32_t kL2Locality = 2;

/// The loop over tiles around `op` whose later iterations (or, in its last,
/// later programs) the prefetches in it read: the nearest loop with bounds
/// known only at run time (the loops over a tile's elements have constant
/// bounds).
inline scf::ForOp loopOverTilesAround(Operation *op) {
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (!getConstantIntValue(loop.getLowerBound()) ||
        !getConstantIntValue(loop.getUpperBound()) ||
        !getConstantIntValue(loop.getStep()))
      return loop;
  return {};
}

/// Unit attribute of the scf.for over MR-row blocks of a matmul micro-kernel.
constexpr llvm::StringLiteral kMicroKernelRows = "spine.micro_kernel_rows";

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_TILEPREFETCH_H
