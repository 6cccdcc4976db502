// RUN: spine-triton-opt --split-input-file --spine-peel-constant-accumulators %s | FileCheck %s
// RUN: spine-triton-opt --split-input-file --triton-to-linalg-experimental --spine-triton-pipeline %s | FileCheck %s --check-prefix=LLVM

// `acc = tl.zeros(...); for off in range(0, n, 64): acc += load(...)`: under
// the loop's own condition, the first iteration runs with the constant in
// place of the accumulator, then the loop from one step later carries its
// result. A loop that never runs yields the constant.
// CHECK-LABEL: tt.func @row_block
// CHECK-SAME: (%[[X:.*]]: !tt.ptr<f32>, %[[N:.*]]: i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<64xf32>
// CHECK: %[[ENTERED:.*]] = arith.cmpi slt, %[[C0]], %[[N]] : i32
// CHECK: %[[SUM:.*]] = scf.if %[[ENTERED]] -> (tensor<64xf32>) {
// CHECK: %[[A:.*]] = tt.load
// CHECK: %[[FIRST:.*]] = arith.addf %[[ZEROS]], %[[A]] : tensor<64xf32>
// CHECK: %[[NEXT:.*]] = arith.addi %[[C0]], %[[C64]] : i32
// CHECK: %[[REST:.*]] = scf.for %[[OFF:.*]] = %[[NEXT]] to %[[N]] step %[[C64]] iter_args(%[[ACC:.*]] = %[[FIRST]])
// CHECK: arith.addf %[[ACC]], %{{.*}} : tensor<64xf32>
// CHECK: scf.yield %[[REST]]
// CHECK: } else {
// CHECK: scf.yield %[[ZEROS]]
// CHECK: tt.store %{{.*}}, %[[SUM]]

// Bufferized, no buffer is filled with the zeros: the first iteration writes
// its sum straight from the loaded block.
// LLVM-LABEL: llvm.func @row_block
// LLVM-NOT: memset
// LLVM: llvm.return
tt.func @row_block(%x: !tt.ptr<f32>, %n: i32, %out: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zeros = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %base = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %nv = tt.splat %n : i32 -> tensor<64xi32>
  %acc = scf.for %off = %c0 to %n step %c64 iter_args(%acc = %zeros) -> (tensor<64xf32>) : i32 {
    %offv = tt.splat %off : i32 -> tensor<64xi32>
    %cols = arith.addi %offv, %range : tensor<64xi32>
    %mask = arith.cmpi slt, %cols, %nv : tensor<64xi32>
    %ptrs = tt.addptr %base, %cols : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %a = tt.load %ptrs, %mask, %zeros : tensor<64x!tt.ptr<f32>>
    %sum = arith.addf %acc, %a : tensor<64xf32>
    scf.yield %sum : tensor<64xf32>
  }
  %outs = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %optrs = tt.addptr %outs, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %optrs, %acc : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// Only a reduction reads the block (layer norm's `mean = tl.sum(_mean)`):
// the peeled iteration is versioned on whether the rest of the loop runs,
// and the reduction moves into every version. A loop that makes one trip
// reduces the block of its one iteration, which is read by nothing else.
// CHECK-LABEL: tt.func @row_sum
// CHECK-SAME: (%[[X:.*]]: !tt.ptr<f32>, %[[N:.*]]: i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<64xf32>
// CHECK: %[[ENTERED:.*]] = arith.cmpi slt, %[[C0]], %[[N]] : i32
// CHECK: %[[TOTAL:.*]] = scf.if %[[ENTERED]] -> (f32) {
// CHECK: %[[NEXT:.*]] = arith.addi %[[C0]], %[[C64]] : i32
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : i32
// CHECK: %[[VERSIONS:.*]] = scf.if %[[MORE]] -> (f32) {
// CHECK: %[[A:.*]] = tt.load
// CHECK: %[[FIRST:.*]] = arith.addf %[[ZEROS]], %[[A]] : tensor<64xf32>
// CHECK: %[[REST:.*]] = scf.for %{{.*}} = %[[NEXT]] to %[[N]] step %[[C64]] iter_args(%{{.*}} = %[[FIRST]])
// CHECK: %[[R1:.*]] = "tt.reduce"(%[[REST]])
// CHECK: scf.yield %[[R1]] : f32
// CHECK: } else {
// CHECK: %[[A1:.*]] = tt.load
// CHECK: %[[ONLY:.*]] = arith.addf %[[ZEROS]], %[[A1]] : tensor<64xf32>
// CHECK-NOT: scf.for
// CHECK: %[[R2:.*]] = "tt.reduce"(%[[ONLY]])
// CHECK: scf.yield %[[R2]] : f32
// CHECK: }
// CHECK: scf.yield %[[VERSIONS]] : f32
// CHECK: } else {
// CHECK: %[[R3:.*]] = "tt.reduce"(%[[ZEROS]])
// CHECK: scf.yield %[[R3]] : f32
// CHECK: }
// CHECK-NOT: tt.reduce
// CHECK: tt.store %{{.*}}, %[[TOTAL]]

// LLVM-LABEL: llvm.func @row_sum
// LLVM-NOT: memset
// LLVM: llvm.return
tt.func @row_sum(%x: !tt.ptr<f32>, %n: i32, %out: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zeros = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %base = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %nv = tt.splat %n : i32 -> tensor<64xi32>
  %acc = scf.for %off = %c0 to %n step %c64 iter_args(%acc = %zeros) -> (tensor<64xf32>) : i32 {
    %offv = tt.splat %off : i32 -> tensor<64xi32>
    %cols = arith.addi %offv, %range : tensor<64xi32>
    %mask = arith.cmpi slt, %cols, %nv : tensor<64xi32>
    %ptrs = tt.addptr %base, %cols : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %a = tt.load %ptrs, %mask, %zeros : tensor<64x!tt.ptr<f32>>
    %sum = arith.addf %acc, %a : tensor<64xf32>
    scf.yield %sum : tensor<64xf32>
  }
  %total = "tt.reduce"(%acc) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tt.reduce.return %s : f32
  }) : (tensor<64xf32>) -> f32
  tt.store %out, %total : !tt.ptr<f32>
  tt.return
}

// -----

// A block read by a reduction and by something else is only peeled: the
// versions would each need the block anyway.
// CHECK-LABEL: tt.func @sum_and_store
// CHECK: scf.if %{{.*}} -> (tensor<64xf32>)
// CHECK: scf.for
// CHECK: "tt.reduce"
// CHECK: tt.store
tt.func @sum_and_store(%x: !tt.ptr<f32>, %n: i32, %out: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zeros = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %base = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %ptrs = tt.addptr %base, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %acc = scf.for %off = %c0 to %n step %c64 iter_args(%acc = %zeros) -> (tensor<64xf32>) : i32 {
    %a = tt.load %ptrs : tensor<64x!tt.ptr<f32>>
    %sum = arith.addf %acc, %a : tensor<64xf32>
    scf.yield %sum : tensor<64xf32>
  }
  %total = "tt.reduce"(%acc) <{axis = 0 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tt.reduce.return %s : f32
  }) : (tensor<64xf32>) -> f32
  tt.store %out, %total : !tt.ptr<f32>
  tt.store %ptrs, %acc : tensor<64x!tt.ptr<f32>>
  tt.return
}

// -----

// Left alone: an accumulator that does not start as a constant, and a
// matmul's (the micro-kernel keeps it in registers; peeling would only
// duplicate the loads and the dot).
// CHECK-LABEL: tt.func @not_constant
// CHECK-NOT: scf.if
// CHECK: scf.for
tt.func @not_constant(%p: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant dense<1.000000e+00> : tensor<64xf32>
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %base = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %ptrs = tt.addptr %base, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %init = tt.load %ptrs : tensor<64x!tt.ptr<f32>>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64xf32>) : i32 {
    %next = arith.addf %acc, %one : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  tt.store %ptrs, %acc : tensor<64x!tt.ptr<f32>>
  tt.return
}

// CHECK-LABEL: tt.func @dot
// CHECK-NOT: scf.if
// CHECK: scf.for
tt.func @dot(%p: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zeros = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %rows = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %r = tt.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c16 = arith.constant dense<16> : tensor<16x1xi32>
  %rs = arith.muli %r, %c16 : tensor<16x1xi32>
  %c = tt.expand_dims %rows {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %rb = tt.broadcast %rs : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tt.broadcast %c : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rb, %cb : tensor<16x16xi32>
  %base = tt.splat %p : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %ptrs = tt.addptr %base, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %a = tt.load %ptrs : tensor<16x16x!tt.ptr<f32>>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zeros) -> (tensor<16x16xf32>) : i32 {
    %next = tt.dot %a, %a, %acc : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  tt.store %ptrs, %acc : tensor<16x16x!tt.ptr<f32>>
  tt.return
}

// An unsigned loop is entered under an unsigned comparison.
// CHECK-LABEL: tt.func @unsigned_loop
// CHECK: arith.cmpi ult
// CHECK: scf.for unsigned
tt.func @unsigned_loop(%p: !tt.ptr<i32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ones = arith.constant dense<1> : tensor<8xi32>
  %acc = scf.for unsigned %i = %c0 to %n step %c1 iter_args(%acc = %ones) -> (tensor<8xi32>) : i32 {
    %next = arith.muli %acc, %acc : tensor<8xi32>
    scf.yield %next : tensor<8xi32>
  }
  %range = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %base = tt.splat %p : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
  %ptrs = tt.addptr %base, %range : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
  tt.store %ptrs, %acc : tensor<8x!tt.ptr<i32>>
  tt.return
}
