// RUN: spine-triton-opt %s | spine-triton-opt | FileCheck %s --check-prefix=PARSE
// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// tl.debug_barrier() reaches TTIR as TritonGPU's ttg.barrier. It parses with
// the address spaces as Triton prints them, and the conversion drops it: a
// program is one thread, so the store before it and the load after it stay
// in program order.

// PARSE-LABEL: tt.func public @barrier
// PARSE: tt.store
// PARSE-NEXT: ttg.barrier all
// PARSE-NEXT: ttg.barrier local|global_read|global_write
// PARSE-NEXT: tt.load

// CHECK-LABEL: func.func @barrier
// CHECK-NOT: ttg.barrier
// CHECK: return
tt.func public @barrier(%p: !tt.ptr<f32>) {
  %c = arith.constant 1.0 : f32
  tt.store %p, %c : !tt.ptr<f32>
  ttg.barrier all
  ttg.barrier local|global_read|global_write
  %x = tt.load %p : !tt.ptr<f32>
  tt.store %p, %x : !tt.ptr<f32>
  tt.return
}
