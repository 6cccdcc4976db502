//===- GpuBarrier.h - tl.debug_barrier's ttg.barrier ------------*- C++ -*-===//
//
// The `ttg` dialect with its one op that TTIR carries (GpuBarrier.td).
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_GPU_BARRIER_H
#define SPINE_TRITON_GPU_BARRIER_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "triton/GpuBarrierDialect.h.inc"

#define GET_OP_CLASSES
#include "triton/GpuBarrierOps.h.inc"

#endif // SPINE_TRITON_GPU_BARRIER_H
