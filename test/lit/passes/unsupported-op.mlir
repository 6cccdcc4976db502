// RUN: not spine-triton-opt --triton-to-linalg-experimental %s 2>&1 | FileCheck %s

// An op the conversion has no lowering for is named, with its location, and
// the tool fails (exit status 1, checked in test/lit/errors).
// CHECK: unsupported-op.mlir:12:8: error: spine-triton cannot lower 'tt.histogram' yet
tt.func public @histogram(%x: !tt.ptr<i32>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %xs = tt.splat %x : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %xp = tt.addptr %xs, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  %v = tt.load %xp : tensor<16x!tt.ptr<i32>>
  %m = arith.constant dense<true> : tensor<16xi1>
  %h = tt.histogram %v, %m : tensor<16xi32> -> tensor<8xi32>
  tt.return
}
