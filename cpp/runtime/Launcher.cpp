//===- Launcher.cpp - OpenMP grid launcher for spine-triton kernels -------===//

#include "runtime/Launcher.h"

#include <algorithm>
#include <cstdint>
#include <omp.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

/// Runs programs [begin, end) of the flattened grid, pid_x fastest. The
/// program ids are stepped incrementally rather than divided out per program.
/// Kernels may store with x86's weakly ordered streaming stores
/// (spine-vectorize-element-loops, only in kernels without atomics): the
/// fence at the end makes them visible before the launch returns.
void runRange(SpineKernelEntry entry, const uint64_t *args, int64_t begin,
              int64_t end, int64_t gx, int64_t gy, int64_t gz) {
  int64_t x = begin % gx;
  int64_t y = (begin / gx) % gy;
  int64_t z = begin / (gx * gy);
  for (int64_t i = begin; i < end; ++i) {
    entry(args, static_cast<int32_t>(x), static_cast<int32_t>(y),
          static_cast<int32_t>(z), static_cast<int32_t>(gx),
          static_cast<int32_t>(gy), static_cast<int32_t>(gz));
    if (++x == gx) {
      x = 0;
      if (++y == gy) {
        y = 0;
        ++z;
      }
    }
  }
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

} // namespace

extern "C" int spine_launch(SpineKernelEntry entry, const uint64_t *args,
                            int64_t gx, int64_t gy, int64_t gz,
                            int numThreads) {
  for (int64_t axis : {gx, gy, gz})
    if (axis < 0 || axis > INT32_MAX)
      return SPINE_LAUNCH_BAD_GRID;
  if (gx == 0 || gy == 0 || gz == 0)
    return SPINE_LAUNCH_OK;
  // Each axis is below 2^31, so the product of the first two fits in int64;
  // the third may not.
  int64_t total;
  if (__builtin_mul_overflow(gx * gy, gz, &total))
    return SPINE_LAUNCH_BAD_GRID;

  int64_t threads = numThreads > 0 ? numThreads : omp_get_max_threads();
  threads = std::min<int64_t>(threads, total);
  // Single-threaded launches skip the parallel region: a cheap launch for
  // tiny grids and for nested calls.
  if (threads <= 1) {
    runRange(entry, args, 0, total, gx, gy, gz);
    return SPINE_LAUNCH_OK;
  }

  // A static schedule of contiguous chunks, so each thread walks pid_x in
  // order over neighbouring blocks.
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    int64_t team = omp_get_num_threads();
    int64_t t = omp_get_thread_num();
    int64_t chunk = total / team, extra = total % team;
    int64_t begin = t * chunk + std::min(t, extra);
    int64_t end = begin + chunk + (t < extra ? 1 : 0);
    runRange(entry, args, begin, end, gx, gy, gz);
  }
  return SPINE_LAUNCH_OK;
}
