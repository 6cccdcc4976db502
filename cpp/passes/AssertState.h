//===- AssertState.h - the per-kernel tt.assert failure state ---*- C++ -*-===//
//
// A kernel with tt.assert defines its own failure state (docs/kernel-abi.md,
// "Debug ops"): the TTIR lowering creates it and the function that records a
// failure, the entry point and the early returns read it.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_ASSERTSTATE_H
#define SPINE_TRITON_PASSES_ASSERTSTATE_H

#include "llvm/ADT/StringRef.h"

namespace mlir::spine {

/// The exported global the launcher reads after a launch:
/// { i32 failed, i32 line, i32 pid_x, i32 pid_y, i32 pid_z,
///   ptr message, ptr file, ptr function }.
constexpr llvm::StringLiteral kAssertStateName = "__spine_triton_assert";

/// The module-internal function `(message, file, line, function, pid_x,
/// pid_y, pid_z) -> ()` recording a failure in the state; the first one of a
/// launch wins.
constexpr llvm::StringLiteral kAssertFailName = "__spine_triton_assert_fail";

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_ASSERTSTATE_H
