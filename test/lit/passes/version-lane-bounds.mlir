// RUN: spine-triton-opt --split-input-file --pass-pipeline='builtin.module(func.func(spine-version-lane-bounds))' %s | FileCheck %s

// Layer norm's variance walk: `tl.where(cols < N, x - mean, 0.0)` squared
// and summed. Where the last index is below N (checked once), a copy of the
// loop without the compare and with the select's first value.
// CHECK-LABEL: func.func @where_in_bounds
// CHECK-SAME: (%[[IN:.*]]: memref<64xf32>, %[[N:.*]]: i32
// CHECK: %[[LAST:.*]] = arith.constant 63 : i32
// CHECK: %[[HOLDS:.*]] = arith.cmpi slt, %[[LAST]], %[[N]] : i32
// CHECK: scf.if %[[HOLDS]] {
// CHECK: scf.for
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.select
// CHECK: %[[D:.*]] = arith.subf
// CHECK: arith.mulf %[[D]], %[[D]]
// CHECK: } else {
// CHECK: scf.for
// CHECK: arith.cmpi slt, %{{.*}}, %[[N]] : i32
// CHECK: arith.select
func.func @where_in_bounds(%in: memref<64xf32>, %n: i32, %mean: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloca() : memref<f32>
  memref.store %zero, %acc[] : memref<f32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    %d = arith.subf %x, %mean : f32
    %col = arith.index_cast %i : index to i32
    %inside = arith.cmpi slt, %col, %n : i32
    %v = arith.select %inside, %d, %zero : f32
    %sq = arith.mulf %v, %v : f32
    %s = memref.load %acc[] : memref<f32>
    %t = arith.addf %s, %sq : f32
    memref.store %t, %acc[] : memref<f32>
  }
  %r = memref.load %acc[] : memref<f32>
  return %r : f32
}

// -----

// The bound on the left, a lower bound (`lo <= col`: the first iteration
// decides), and two compares: both must hold.
// CHECK-LABEL: func.func @two_bounds
// CHECK-SAME: (%[[IN:.*]]: memref<32xf32>, %[[OUT:.*]]: memref<32xf32>, %[[LO:.*]]: i32, %[[HI:.*]]: i32
// CHECK: %[[FIRST:.*]] = arith.constant 0 : i32
// CHECK: %[[A:.*]] = arith.cmpi sge, %[[FIRST]], %[[LO]] : i32
// CHECK: %[[LAST:.*]] = arith.constant 31 : i32
// CHECK: %[[B:.*]] = arith.cmpi slt, %[[LAST]], %[[HI]] : i32
// CHECK: %[[BOTH:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK: scf.for
// CHECK: %[[X:.*]] = memref.load
// CHECK-NEXT: memref.store %[[X]]
// CHECK: } else {
func.func @two_bounds(%in: memref<32xf32>, %out: memref<32xf32>, %lo: i32, %hi: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %in[%i] : memref<32xf32>
    %col = arith.index_cast %i : index to i32
    %above = arith.cmpi sle, %lo, %col : i32
    %below = arith.cmpi slt, %col, %hi : i32
    %inside = arith.andi %above, %below : i1
    %v = arith.select %inside, %x, %zero : f32
    memref.store %v, %out[%i] : memref<32xf32>
  }
  return
}

// -----

// Left alone: a compare that only masks a store (the store has its version
// elsewhere), and a bound computed inside the loop.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if %{{.*}} {
// CHECK: scf.for
// CHECK: scf.if
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: return
func.func @left_alone(%in: memref<32xf32>, %out: memref<32xf32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %in[%i] : memref<32xf32>
    %col = arith.index_cast %i : index to i32
    %inside = arith.cmpi slt, %col, %n : i32
    scf.if %inside {
      memref.store %x, %out[%i] : memref<32xf32>
    }
  }
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %in[%i] : memref<32xf32>
    %col = arith.index_cast %i : index to i32
    %twice = arith.addi %n, %n : i32
    %inside = arith.cmpi slt, %col, %twice : i32
    %v = arith.select %inside, %x, %zero : f32
    memref.store %v, %out[%i] : memref<32xf32>
  }
  return
}
