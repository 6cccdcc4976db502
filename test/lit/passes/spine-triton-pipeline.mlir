// RUN: spine-triton-opt --triton-to-linalg-experimental --spine-triton-pipeline %s | FileCheck %s

// The whole lowering reaches the LLVM dialect: nothing else is left, the
// fused load-scale-store loop needs no buffer at all, and the launch entry
// point unpacks 8-byte slots.

// CHECK-NOT: tt.
// CHECK-NOT: linalg.
// CHECK-NOT: memref.
// CHECK-NOT: scf.
// CHECK-NOT: unrealized_conversion_cast
// CHECK-NOT: llvm.call @malloc
// CHECK-LABEL: llvm.func @scale
// CHECK: llvm.fmul
// CHECK: llvm.func @scale__spine_entry(%[[ARGS:.*]]: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: llvm.load %[[ARGS]] : !llvm.ptr -> i64
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[ARGS]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.load %[[S1]] : !llvm.ptr -> f32
// CHECK: %[[S2:.*]] = llvm.getelementptr %[[ARGS]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.load %[[S2]] : !llvm.ptr -> i32
// CHECK: llvm.call @scale(
tt.func public @scale(%x: !tt.ptr<f32>, %alpha: f32, %n: i32) {
  %c64 = arith.constant 64 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c64 : i32
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %starts = tt.splat %start : i32 -> tensor<64xi32>
  %offs = arith.addi %starts, %range : tensor<64xi32>
  %ns = tt.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<64xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %xp, %mask : tensor<64x!tt.ptr<f32>>
  %a = tt.splat %alpha : f32 -> tensor<64xf32>
  %r = arith.mulf %v, %a : tensor<64xf32>
  tt.store %xp, %r, %mask : tensor<64x!tt.ptr<f32>>
  tt.return
}
