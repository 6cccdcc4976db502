//===- Launcher.h - OpenMP grid launcher for kernels ------------*- C++ -*-===//
//
// One launcher serves every kernel: kernels are called through the fixed
// `<name>__spine_entry` signature of docs/kernel-abi.md.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_RUNTIME_LAUNCHER_H
#define SPINE_TRITON_RUNTIME_LAUNCHER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The entry point every compiled kernel exports (see docs/kernel-abi.md).
typedef void (*SpineKernelEntry)(const uint64_t *args, int32_t pidX,
                                 int32_t pidY, int32_t pidZ, int32_t numX,
                                 int32_t numY, int32_t numZ);

/// Result of spine_launch.
enum SpineLaunchStatus {
  SPINE_LAUNCH_OK = 0,
  /// An axis is negative or does not fit the i32 program id of the ABI.
  SPINE_LAUNCH_BAD_GRID = 1,
};

/// Flags of spine_launch.
enum SpineLaunchFlags {
  /// No program waits for another (the kernel has no atomics and no volatile
  /// loads): a thread may claim several programs of its share at once.
  SPINE_LAUNCH_INDEPENDENT_PROGRAMS = 1,
};

/// Runs the gx*gy*gz programs of `entry` with the packed `args` over
/// `numThreads` OpenMP threads (<= 0: the OpenMP default, which honours
/// OMP_NUM_THREADS): each thread a contiguous share of the grid, pid_x varying
/// fastest, in increasing order; a thread done with its share takes the back
/// half of another's rest. `flags` are SpineLaunchFlags. A grid with zero
/// programs runs nothing.
int spine_launch(SpineKernelEntry entry, const uint64_t *args, int64_t gx,
                 int64_t gy, int64_t gz, int numThreads, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif // SPINE_TRITON_RUNTIME_LAUNCHER_H
