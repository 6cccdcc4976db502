// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s
// RUN: spine-triton-opt --triton-to-linalg-experimental --spine-triton-pipeline %s | FileCheck %s --check-prefix=LLVM

// A load of consecutive elements whose uses stay in its block and write
// nothing is read in place: the version whose mask is all on (and whose
// offsets provably do not wrap) is a view of the memory, a memref
// descriptor over the first element's address behind
// bufferization.to_tensor; the general version copies under the mask.
// CHECK-LABEL: func.func @accumulate
// CHECK: scf.for
// CHECK: scf.if %{{.*}} -> (tensor<64xf32>) {
// CHECK: %[[ADDR:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[1]
// CHECK: %[[M:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<64xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[M]] restrict : memref<64xf32> to tensor<64xf32>
// CHECK: scf.yield %[[T]]
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.if
// CHECK: llvm.load
// CHECK: linalg.generic
// CHECK: arith.addf
// The copying version's buffer is made once, on the stack, not per branch.
// LLVM-LABEL: llvm.func @accumulate
// LLVM-NOT: @malloc
// LLVM: llvm.return
tt.func public @accumulate(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zeros = arith.constant dense<0.0> : tensor<64xf32>
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  %acc = scf.for %off = %c0 to %n step %c64 iter_args(%a = %zeros) -> (tensor<64xf32>) : i32 {
    %offs0 = tt.splat %off : i32 -> tensor<64xi32>
    %offs = arith.addi %offs0, %range : tensor<64xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<64xi32>
    %p = tt.addptr %xs, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %v = tt.load %p, %mask : tensor<64x!tt.ptr<f32>>
    %s = arith.addf %a, %v : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %op, %acc : tensor<64x!tt.ptr<f32>>
  tt.return
}

// A 2-D tile whose rows are consecutive (row stride 8 = the tile's width) is
// a 2-D view; a reduction reads it.
// CHECK-LABEL: func.func @tile_sum
// CHECK: unrealized_conversion_cast {{.*}} to memref<4x8xf16>
// CHECK: bufferization.to_tensor {{.*}} : memref<4x8xf16> to tensor<4x8xf16>
// CHECK: linalg.reduce
tt.func public @tile_sum(%x: !tt.ptr<f16>, %out: !tt.ptr<f16>) {
  %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %cols = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %r2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %c8 = arith.constant dense<8> : tensor<4x1xi32>
  %rs = arith.muli %r2, %c8 : tensor<4x1xi32>
  %rb = tt.broadcast %rs : tensor<4x1xi32> -> tensor<4x8xi32>
  %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %cb = tt.broadcast %c2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %offs = arith.addi %rb, %cb : tensor<4x8xi32>
  %xs = tt.splat %x : !tt.ptr<f16> -> tensor<4x8x!tt.ptr<f16>>
  %p = tt.addptr %xs, %offs : tensor<4x8x!tt.ptr<f16>>, tensor<4x8xi32>
  %v = tt.load %p : tensor<4x8x!tt.ptr<f16>>
  %s = "tt.reduce"(%v) <{axis = 1 : i32}> ({
  ^bb0(%a: f16, %b: f16):
    %t = arith.addf %a, %b : f16
    tt.reduce.return %t : f16
  }) : (tensor<4x8xf16>) -> tensor<4xf16>
  %os = tt.splat %out : !tt.ptr<f16> -> tensor<4x!tt.ptr<f16>>
  %op = tt.addptr %os, %rows : tensor<4x!tt.ptr<f16>>, tensor<4xi32>
  tt.store %op, %s : tensor<4x!tt.ptr<f16>>
  tt.return
}

// Stores in the reach of a load that a reduction reads (between the load and
// a use, or computing what they store from it, as softmax's does): the load
// is a view in the version whose run-time check finds every store's address
// range disjoint from the load's (here a store to the load's own addresses,
// never taken at run time, and one to %out), and a copy otherwise. The
// store's row address, computed after the load, moved before it
// (spine-hoist-store-addresses). Without the reduction, the stores' loops
// would read the load element by element (not checked here).
// CHECK-LABEL: func.func @stores_in_reach
// CHECK: %[[OUT_ROW:.*]] = arith.addi %arg1, %{{.*}} : i64
// CHECK: %[[X_END:.*]] = arith.addi %arg0, %c64_i64 : i64
// CHECK: arith.cmpi sle, %[[X_END]], %arg0 : i64
// CHECK: %[[OUT_END:.*]] = arith.addi %[[OUT_ROW]], %c64_i64 : i64
// CHECK: arith.cmpi sle, %[[X_END]], %[[OUT_ROW]] : i64
// CHECK: arith.cmpi sle, %[[OUT_END]], %arg0 : i64
// CHECK: scf.if %{{.*}} -> (tensor<16xf32>) {
// CHECK: bufferization.to_tensor
// CHECK: } else {
// CHECK: llvm.load
tt.func public @stores_in_reach(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %row: i32) {
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %p = tt.addptr %xs, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %a = tt.load %p : tensor<16x!tt.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  tt.store %p, %zero : tensor<16x!tt.ptr<f32>>
  %sum = "tt.reduce"(%a) <{axis = 0 : i32}> ({
  ^bb0(%u: f32, %v: f32):
    %t = arith.addf %u, %v : f32
    tt.reduce.return %t : f32
  }) : (tensor<16xf32>) -> f32
  %sums = tt.splat %sum : f32 -> tensor<16xf32>
  %a2 = arith.addf %a, %sums : tensor<16xf32>
  %c16 = arith.constant 16 : i32
  %offset = arith.muli %row, %c16 : i32
  %out_row = tt.addptr %out, %offset : !tt.ptr<f32>, i32
  %os = tt.splat %out_row : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %a2 : tensor<16x!tt.ptr<f32>>
  tt.return
}

// Refusals, each load copied into a tile: the value yielded out of its loop
// as is; an operand of tl.dot (packed into a contiguous tile on purpose);
// every other element (stride 2); an atomic in the load's reach.
// CHECK-LABEL: func.func @refusals
// CHECK-NOT: bufferization.to_tensor
// CHECK: return
tt.func public @refusals(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %p = tt.addptr %xs, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  // An atomic between.
  %a = tt.load %p : tensor<16x!tt.ptr<f32>>
  %old = tt.atomic_rmw fadd, relaxed, gpu, %op, %zero : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>) -> tensor<16xf32>
  %a2 = arith.addf %a, %old : tensor<16xf32>
  tt.store %op, %a2 : tensor<16x!tt.ptr<f32>>
  // Yielded as is.
  %y = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16xf32>) : i32 {
    %b = tt.load %p : tensor<16x!tt.ptr<f32>>
    scf.yield %b : tensor<16xf32>
  }
  tt.store %op, %y : tensor<16x!tt.ptr<f32>>
  // An operand of tl.dot.
  %r2 = tt.expand_dims %range {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c16 = arith.constant dense<16> : tensor<16x1xi32>
  %rs = arith.muli %r2, %c16 : tensor<16x1xi32>
  %rb = tt.broadcast %rs : tensor<16x1xi32> -> tensor<16x16xi32>
  %c2 = tt.expand_dims %range {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cb = tt.broadcast %c2 : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs2 = arith.addi %rb, %cb : tensor<16x16xi32>
  %xs2 = tt.splat %x : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %p2 = tt.addptr %xs2, %offs2 : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %m = tt.load %p2 : tensor<16x16x!tt.ptr<f32>>
  %z2 = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tt.dot %m, %m, %z2 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %os2 = tt.splat %out : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %op2 = tt.addptr %os2, %offs2 : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  tt.store %op2, %d : tensor<16x16x!tt.ptr<f32>>
  // Stride 2, used twice.
  %two = arith.constant dense<2> : tensor<16xi32>
  %even = arith.muli %range, %two : tensor<16xi32>
  %pe = tt.addptr %xs, %even : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %e = tt.load %pe : tensor<16x!tt.ptr<f32>>
  %esum = "tt.reduce"(%e) <{axis = 0 : i32}> ({
  ^bb0(%u: f32, %v: f32):
    %t = arith.addf %u, %v : f32
    tt.reduce.return %t : f32
  }) : (tensor<16xf32>) -> f32
  %es = tt.splat %esum : f32 -> tensor<16xf32>
  %e2 = arith.addf %e, %es : tensor<16xf32>
  tt.store %op, %e2 : tensor<16x!tt.ptr<f32>>
  tt.return
}

// Offsets from a constant that is not a splat are not linear: a copy.
// CHECK-LABEL: func.func @constant_offsets
// CHECK-NOT: bufferization.to_tensor
// CHECK: return
tt.func public @constant_offsets(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %range = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %jitter = arith.constant dense<[0, 1, 0, 1]> : tensor<4xi32>
  %offs = arith.addi %range, %jitter : tensor<4xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %p = tt.addptr %xs, %offs : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  %v = tt.load %p : tensor<4x!tt.ptr<f32>>
  %s = "tt.reduce"(%v) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<4xf32>) -> f32
  tt.store %out, %s : !tt.ptr<f32>
  tt.return
}

// A tile with a row stride known only at run time is a strided view: the row
// stride is the difference of the addresses of elements [1, 0] and [0, 0] in
// elements. The masked version fills a tile buffer and yields it in the same
// memref type, so both versions bufferize to one.
// CHECK-LABEL: func.func @strided_rows
// CHECK: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK: scf.if %{{.*}} -> (tensor<4x8xf32>) {
// CHECK: %[[STRIDE:.*]] = arith.divsi %{{.*}}, %c4_i64 : i64
// CHECK: llvm.insertvalue %[[STRIDE]], %{{.*}}[4, 0]
// CHECK: unrealized_conversion_cast {{.*}} to memref<4x8xf32, strided<[?, 1]>>
// CHECK: bufferization.to_tensor {{.*}} : memref<4x8xf32, strided<[?, 1]>> to tensor<4x8xf32>
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.store {{.*}}, %[[BUF]]
// CHECK: %[[CAST:.*]] = memref.cast %[[BUF]] : memref<4x8xf32> to memref<4x8xf32, strided<[?, 1]>>
// CHECK: bufferization.to_tensor %[[CAST]] restrict
// LLVM-LABEL: llvm.func @strided_rows
// LLVM-NOT: @malloc
// LLVM: llvm.return
tt.func public @strided_rows(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %stride: i32, %n: i32) {
  %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %cols = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %r2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %ss = tt.splat %stride : i32 -> tensor<4x1xi32>
  %rs = arith.muli %r2, %ss : tensor<4x1xi32>
  %rb = tt.broadcast %rs : tensor<4x1xi32> -> tensor<4x8xi32>
  %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %cb = tt.broadcast %c2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %offs = arith.addi %rb, %cb : tensor<4x8xi32>
  %ns = tt.splat %n : i32 -> tensor<1x8xi32>
  %cm = arith.cmpi slt, %c2, %ns : tensor<1x8xi32>
  %mask = tt.broadcast %cm : tensor<1x8xi1> -> tensor<4x8xi1>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
  %p = tt.addptr %xs, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
  %v = tt.load %p, %mask : tensor<4x8x!tt.ptr<f32>>
  %s = "tt.reduce"(%v) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<4x8xf32>) -> tensor<4xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %op = tt.addptr %os, %rows : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  tt.store %op, %s : tensor<4x!tt.ptr<f32>>
  tt.return
}

// A value computed from a load may start a loop's carried value (a peeled
// first iteration's result): it is materialized there, so the load is still
// read in place, though the loop goes on to write memory.
// CHECK-LABEL: func.func @starts_a_loop
// CHECK: %[[M:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<64xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[M]] restrict
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[T]] :
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[SQ]])
tt.func public @starts_a_loop(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %p = tt.addptr %xs, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %p : tensor<64x!tt.ptr<f32>>
  %sq = arith.mulf %v, %v : tensor<64xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %sq) -> (tensor<64xf32>) : i32 {
    %s = arith.addf %a, %a : tensor<64xf32>
    tt.store %op, %s : tensor<64x!tt.ptr<f32>>
    scf.yield %s : tensor<64xf32>
  }
  tt.return
}

// A tile whose columns are consecutive (a column-major matrix, x @ W^T with
// W row-major: element [k, n] at k + n * stride) is read as the transpose of
// a view of its transpose, a 16 x 8 block of consecutive rows, one stride
// apart: the version whose offsets provably do not wrap, also when the tile
// feeds a tl.dot (which reads the transpose's fresh tensor, not the view).
// The general version loads element by element.
// CHECK-LABEL: func.func @transposed_tile
// CHECK: scf.if %{{.*}} -> (tensor<8x16xf32>) {
// CHECK: %[[STRIDE:.*]] = arith.divsi %{{.*}}, %c4_i64 : i64
// CHECK: llvm.insertvalue %[[STRIDE]], %{{.*}}[4, 0]
// CHECK: llvm.insertvalue %c1_i64, %{{.*}}[4, 1]
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<16x8xf32, strided<[?, 1]>>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[V]] restrict : memref<16x8xf32, strided<[?, 1]>> to tensor<16x8xf32>
// CHECK: %[[TR:.*]] = linalg.transpose ins(%[[T]] : tensor<16x8xf32>) outs(%{{.*}} : tensor<8x16xf32>) permutation = [1, 0]
// CHECK: scf.yield %[[TR]]
// CHECK: } else {
// CHECK: llvm.load
// CHECK: linalg.matmul
tt.func public @transposed_tile(%w: !tt.ptr<f32>, %s: f32, %stride: i32, %out: !tt.ptr<f32>) {
  %a = tt.splat %s : f32 -> tensor<4x8xf32>
  %k = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %n = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %k2 = tt.expand_dims %k {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %kb = tt.broadcast %k2 : tensor<8x1xi32> -> tensor<8x16xi32>
  %n2 = tt.expand_dims %n {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %strides = tt.splat %stride : i32 -> tensor<1x16xi32>
  %nscaled = arith.muli %n2, %strides : tensor<1x16xi32>
  %nb = tt.broadcast %nscaled : tensor<1x16xi32> -> tensor<8x16xi32>
  %offs = arith.addi %kb, %nb : tensor<8x16xi32>
  %ws = tt.splat %w : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
  %p = tt.addptr %ws, %offs : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
  %b = tt.load %p : tensor<8x16x!tt.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %c = tt.dot %a, %b, %zero : tensor<4x8xf32> * tensor<8x16xf32> -> tensor<4x16xf32>
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %c16 = arith.constant dense<16> : tensor<4x1xi32>
  %rs = arith.muli %r2, %c16 : tensor<4x1xi32>
  %rb = tt.broadcast %rs : tensor<4x1xi32> -> tensor<4x16xi32>
  %nb2 = tt.broadcast %n2 : tensor<1x16xi32> -> tensor<4x16xi32>
  %o = arith.addi %rb, %nb2 : tensor<4x16xi32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<4x16x!tt.ptr<f32>>
  %op = tt.addptr %os, %o : tensor<4x16x!tt.ptr<f32>>, tensor<4x16xi32>
  tt.store %op, %c : tensor<4x16x!tt.ptr<f32>>
  tt.return
}

// tl.dot's A is copied into a tile (element by element: a tensor built by
// loops). Its B, whose f32 elements the micro-kernel multiplies as they are,
// is read in place only as a block of whole rows: in the version whose
// offsets do not wrap, a run-time check that the row stride is the row
// length picks the view; otherwise the tile is copied into a buffer made
// before the branches, whose rows (1 KiB) get a cache line of padding.
// CHECK-LABEL: func.func @dot_b_whole_rows
// CHECK: scf.for
// CHECK: llvm.load
// CHECK: tensor.insert
// CHECK: %[[WIDE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x272xf32>
// CHECK: %[[PADDED:.*]] = memref.subview %[[WIDE]][0, 0] [16, 256] [1, 1]
// CHECK: scf.if %{{.*}} -> (tensor<16x256xf32>) {
// CHECK: %[[WHOLE:.*]] = arith.cmpi eq, %{{.*}}, %c256_i64 : i64
// CHECK: scf.if %[[WHOLE]] -> (tensor<16x256xf32>) {
// CHECK: unrealized_conversion_cast {{.*}} to memref<16x256xf32, strided<[?, 1]>>
// CHECK: } else {
// CHECK: memref.store {{.*}}, %[[PADDED]]
// CHECK: memref.cast %[[PADDED]] : memref<16x256xf32, strided<[272, 1]>> to memref<16x256xf32, strided<[?, 1]>>
// CHECK: linalg.matmul
// The micro-kernel reads either; no buffer is left on the heap.
// LLVM-LABEL: llvm.func @dot_b_whole_rows
// LLVM-NOT: @malloc
// LLVM: llvm.intr.fmuladd
// LLVM-NOT: @malloc
// LLVM: llvm.return
tt.func public @dot_b_whole_rows(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: !tt.ptr<f32>, %sa: i32, %sb: i32) attributes {noinline = false} {
  %cst = arith.constant dense<0.000000e+00> : tensor<16x256xf32>
  %cst_0 = arith.constant dense<256> : tensor<16x1xi32>
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %cols = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %x = tt.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %x_1 = tt.splat %sa : i32 -> tensor<16x1xi32>
  %x_2 = arith.muli %x, %x_1 : tensor<16x1xi32>
  %x_3 = tt.splat %a : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %x_4 = tt.addptr %x_3, %x_2 : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %x_5 = tt.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %x_6 = tt.broadcast %x_4 : tensor<16x1x!tt.ptr<f32>> -> tensor<16x16x!tt.ptr<f32>>
  %x_7 = tt.broadcast %x_5 : tensor<1x16xi32> -> tensor<16x16xi32>
  %x_8 = tt.addptr %x_6, %x_7 : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %x_9 = tt.load %x_8 : tensor<16x16x!tt.ptr<f32>>
  %y = tt.splat %sb : i32 -> tensor<16x1xi32>
  %y_10 = arith.muli %x, %y : tensor<16x1xi32>
  %y_11 = tt.splat %b : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %y_12 = tt.addptr %y_11, %y_10 : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %y_13 = tt.expand_dims %cols {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %y_14 = tt.broadcast %y_12 : tensor<16x1x!tt.ptr<f32>> -> tensor<16x256x!tt.ptr<f32>>
  %y_15 = tt.broadcast %y_13 : tensor<1x256xi32> -> tensor<16x256xi32>
  %y_16 = tt.addptr %y_14, %y_15 : tensor<16x256x!tt.ptr<f32>>, tensor<16x256xi32>
  %y_17 = tt.load %y_16 : tensor<16x256x!tt.ptr<f32>>
  %0 = arith.muli %x, %cst_0 : tensor<16x1xi32>
  %1 = tt.splat %c : !tt.ptr<f32> -> tensor<16x1x!tt.ptr<f32>>
  %2 = tt.addptr %1, %0 : tensor<16x1x!tt.ptr<f32>>, tensor<16x1xi32>
  %3 = tt.broadcast %2 : tensor<16x1x!tt.ptr<f32>> -> tensor<16x256x!tt.ptr<f32>>
  %4 = tt.addptr %3, %y_15 : tensor<16x256x!tt.ptr<f32>>, tensor<16x256xi32>
  %5 = tt.dot %x_9, %y_17, %cst, inputPrecision = tf32 : tensor<16x16xf32> * tensor<16x256xf32> -> tensor<16x256xf32>
  tt.store %4, %5 : tensor<16x256x!tt.ptr<f32>>
  tt.return
}
