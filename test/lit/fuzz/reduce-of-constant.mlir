// Found by tools/fuzz_pipeline.py, then as the kernel `tl.store(out, tl.sum(tl.full([N], 2.0)))`:
// the reduction's init is a copy of a 0-D slice of the reduced tensor, which the canonicalizer
// makes a copy of a 0-D constant when that tensor is constant, and upstream's constant folding in
// linalg-fuse-elementwise-ops segfaulted on such a rank-0 copy. spine-triton-pipeline now
// replaces rank-0 copies of constants by the constants first.
// RUN: spine-triton-opt --triton-to-linalg-experimental %s -o %t.linalg
// RUN: %expect_exit 0 spine-triton-opt --spine-triton-pipeline %t.linalg -o %t.llvm
// RUN: FileCheck %s --input-file %t.llvm

// CHECK: llvm.func @sum_of_constant(
// CHECK: llvm.func @sum_of_constant__spine_entry(
module {
  tt.func public @sum_of_constant(%out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<2.000000e+00> : tensor<1024xf32>
    %0 = "tt.reduce"(%cst) <{axis = 0 : i32}> ({
    ^bb0(%arg1: f32, %arg2: f32):
      %1 = arith.addf %arg1, %arg2 : f32
      tt.reduce.return %1 : f32
    }) : (tensor<1024xf32>) -> f32
    tt.store %out_ptr, %0 : !tt.ptr<f32>
    tt.return
  }
}
