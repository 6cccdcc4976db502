// RUN: spine-triton-opt --spine-scalarize-pointer-iter-args --canonicalize %s | FileCheck %s

// A block of pointers advanced uniformly in a loop becomes the loop-invariant
// initial block plus a loop-carried i64 element offset; after the loop the
// final pointers are rebuilt the same way.

// CHECK-LABEL: tt.func @uniform
// CHECK: %[[INIT:.*]] = tt.addptr
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[OFF:.*]] = %c0_i64) -> (tensor<16xf32>, i64)
// CHECK:   %[[S:.*]] = tt.splat %[[OFF]] : i64 -> tensor<16xi64>
// CHECK:   %[[P:.*]] = tt.addptr %[[INIT]], %[[S]]
// CHECK:   tt.load %[[P]]
// CHECK:   %[[NEXT:.*]] = arith.addi %[[OFF]], %{{.*}} : i64
// CHECK:   scf.yield %{{.*}}, %[[NEXT]]
// CHECK: %[[FS:.*]] = tt.splat %[[R]]#1
// CHECK: %[[FINAL:.*]] = tt.addptr %[[INIT]], %[[FS]]
// CHECK: tt.store %[[FINAL]]
tt.func @uniform(%base: !tt.ptr<f32>, %step: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %bs = tt.splat %base : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %p0 = tt.addptr %bs, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %out:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<16xf32>, tensor<16x!tt.ptr<f32>>) : i32 {
    %v = tt.load %p : tensor<16x!tt.ptr<f32>>
    %sum = arith.addf %acc, %v : tensor<16xf32>
    %steps = tt.splat %step : i32 -> tensor<16xi32>
    %next = tt.addptr %p, %steps : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    scf.yield %sum, %next : tensor<16xf32>, tensor<16x!tt.ptr<f32>>
  }
  tt.store %out#1, %out#0 : tensor<16x!tt.ptr<f32>>
  tt.return
}

// Pointers advanced by different amounts per element stay loop-carried.
// CHECK-LABEL: tt.func @non_uniform
// CHECK: scf.for {{.*}} -> (tensor<16x!tt.ptr<f32>>)
tt.func @non_uniform(%base: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %bs = tt.splat %base : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %p0 = tt.addptr %bs, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %out = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0) -> (tensor<16x!tt.ptr<f32>>) : i32 {
    %v = tt.load %p : tensor<16x!tt.ptr<f32>>
    tt.store %p, %v : tensor<16x!tt.ptr<f32>>
    %next = tt.addptr %p, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    scf.yield %next : tensor<16x!tt.ptr<f32>>
  }
  tt.return
}
