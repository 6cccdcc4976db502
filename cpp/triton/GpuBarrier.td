//===- GpuBarrier.td - tl.debug_barrier's ttg.barrier ------*- tablegen -*-===//
//
// Triton's frontend emits tl.debug_barrier() as `ttg.barrier <spaces>`, the
// one TritonGPU op that TTIR carries. The CPU pipeline needs nothing else of
// that dialect (whose ODS brings GPU layouts along), so a dialect of the same
// name holds just this op, enough to parse real TTIR.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_GPU_BARRIER_TD
#define SPINE_TRITON_GPU_BARRIER_TD

include "mlir/IR/OpBase.td"

def TTG_Dialect : Dialect {
  let name = "ttg";
  let cppNamespace = "::mlir::spine::ttg";
  let summary = "The TritonGPU op found in TTIR: tl.debug_barrier's barrier";
}

def TTG_BarrierOp : Op<TTG_Dialect, "barrier"> {
  let summary = "Synchronizes the threads of one program (a CTA)";
  let description = [{
    `ttg.barrier all`, `ttg.barrier local|global_write`: the address spaces
    whose accesses the barrier orders, as Triton prints them. On a CPU a
    program is one thread, so the barrier orders nothing that program order
    does not already.
  }];
  // The spaces as written, joined by `|`.
  let arguments = (ins StrAttr:$addrSpace);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif // SPINE_TRITON_GPU_BARRIER_TD
