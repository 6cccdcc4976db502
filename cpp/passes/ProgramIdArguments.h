//===- ProgramIdArguments.h - the trailing program-id arguments -*- C++ -*-===//

#ifndef SPINE_TRITON_PASSES_PROGRAMIDARGUMENTS_H
#define SPINE_TRITON_PASSES_PROGRAMIDARGUMENTS_H

namespace mlir::spine {

/// pid_x, pid_y, pid_z, num_programs_x, num_programs_y, num_programs_z: the
/// trailing i32 arguments of every lowered kernel (docs/kernel-abi.md).
constexpr unsigned kNumProgramIdArgs = 6;

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_PROGRAMIDARGUMENTS_H
