// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// The tutorial vector add: pointers become i64 addresses scaled by the element
// size, the masked loads read only where the mask holds (else `other` or 0),
// and the masked store writes only where the mask holds.

// CHECK-LABEL: func.func @add_kernel
// CHECK-SAME: (%{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i32, %[[PID:[^:]*]]: i32,
// CHECK-NOT: tt.
// CHECK: %[[FOUR:.*]] = arith.constant dense<4> : tensor<1024xi64>
// CHECK: arith.muli %[[PID]], %c1024_i32
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.extsi {{.*}} : i32 to i64
// CHECK: ins(%{{.*}}, %[[FOUR]] :
// CHECK: arith.muli {{.*}} : i64
// CHECK: tensor.generate
// CHECK: scf.if
// CHECK: llvm.inttoptr
// CHECK: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: } else {
// CHECK: scf.yield %cst
// CHECK: scf.for
// CHECK: scf.if
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr
tt.func public @add_kernel(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %c1024 = arith.constant 1024 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c1024 : i32
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %starts = tt.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  %ns = tt.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %xv = tt.load %xp, %mask : tensor<1024x!tt.ptr<f32>>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %yv = tt.load %yp, %mask : tensor<1024x!tt.ptr<f32>>
  %sum = arith.addf %xv, %yv : tensor<1024xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %op, %sum, %mask : tensor<1024x!tt.ptr<f32>>
  tt.return
}

// Pointers chosen per element from two bases (tl.where on pointers) and a
// pointer loaded from memory still lower: they are just addresses.
// CHECK-LABEL: func.func @select_and_indirect
// CHECK: linalg.generic
// CHECK: arith.select {{.*}} : i64
// CHECK: llvm.load {{.*}} : !llvm.ptr -> i64
// CHECK: llvm.load {{.*}} : !llvm.ptr -> f16
tt.func public @select_and_indirect(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %pp: !tt.ptr<!tt.ptr<f16>>, %out: !tt.ptr<f16>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %c8 = arith.constant dense<8> : tensor<16xi32>
  %lo = arith.cmpi slt, %r, %c8 : tensor<16xi32>
  %as = tt.splat %a : !tt.ptr<f16> -> tensor<16x!tt.ptr<f16>>
  %bs = tt.splat %b : !tt.ptr<f16> -> tensor<16x!tt.ptr<f16>>
  %ap = tt.addptr %as, %r : tensor<16x!tt.ptr<f16>>, tensor<16xi32>
  %bp = tt.addptr %bs, %r : tensor<16x!tt.ptr<f16>>, tensor<16xi32>
  %sel = arith.select %lo, %ap, %bp : tensor<16xi1>, tensor<16x!tt.ptr<f16>>
  %v = tt.load %sel : tensor<16x!tt.ptr<f16>>
  %p = tt.load %pp : !tt.ptr<!tt.ptr<f16>>
  %s = tt.load %p : !tt.ptr<f16>
  %ss = tt.splat %s : f16 -> tensor<16xf16>
  %sum = arith.addf %v, %ss : tensor<16xf16>
  %os = tt.splat %out : !tt.ptr<f16> -> tensor<16x!tt.ptr<f16>>
  %op = tt.addptr %os, %r : tensor<16x!tt.ptr<f16>>, tensor<16xi32>
  tt.store %op, %sum : tensor<16x!tt.ptr<f16>>
  tt.return
}
