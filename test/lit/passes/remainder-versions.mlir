// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// `(pid * 64 + arange) % m` feeding a load: the access is emitted twice. The
// version taken when every dividend lies in [0, m) (checked once, from the
// dividend's bounds pid * 64 and pid * 64 + 63, in exact i64 arithmetic)
// computes addresses from the dividend itself; the other reads the
// materialized remainders. The load is fused into the store in both versions.

// CHECK-LABEL: func.func @wrapped_rows
// CHECK-SAME: (%[[X:[^:]*]]: i64, %[[OUT:[^:]*]]: i64, %[[M:[^:]*]]: i32, %[[PID:[^:]*]]: i32,
// CHECK: %[[START:.*]] = arith.muli %[[PID]], %c64_i32
// CHECK: arith.remsi
// CHECK: %[[LO:.*]] = arith.extsi %[[START]] : i32 to i64
// CHECK: %[[HI:.*]] = arith.addi %[[LO]], %c63_i64 : i64
// CHECK: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK: %[[GE0:.*]] = arith.cmpi sge, %[[LO]], %c0_i64 : i64
// CHECK: %[[LTM:.*]] = arith.cmpi slt, %[[HI]], %[[M64]] : i64
// CHECK: %[[NOWRAP:.*]] = arith.andi %[[GE0]], %[[LTM]] : i1
// CHECK: scf.if %[[NOWRAP]] {
// CHECK: scf.for %[[I:.*]] = %c0 to %c64 step %c1 {
// CHECK-NOT: tensor.extract
// CHECK: %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK: %[[ROW:.*]] = arith.addi %[[START]], %[[I32]] : i32
// CHECK: %[[ROW64:.*]] = arith.extsi %[[ROW]] : i32 to i64
// CHECK: %[[BYTES:.*]] = arith.muli %[[ROW64]], %c4_i64 : i64
// CHECK: llvm.getelementptr {{.*}}[%[[BYTES]]]
// CHECK: llvm.load
// CHECK: llvm.store
// CHECK: } else {
// CHECK: scf.for %[[J:.*]] = %c0 to %c64 step %c1 {
// CHECK: tensor.extract %{{.*}}[%[[J]]] : tensor<64xi32>
// CHECK: llvm.load
// CHECK: llvm.store
// CHECK: return
tt.func public @wrapped_rows(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %m: i32) {
  %c64 = arith.constant 64 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c64 : i32
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %starts = tt.splat %start : i32 -> tensor<64xi32>
  %offs = arith.addi %starts, %range : tensor<64xi32>
  %ms = tt.splat %m : i32 -> tensor<64xi32>
  %rows = arith.remsi %offs, %ms : tensor<64xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %rows : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %v = tt.load %xp : tensor<64x!tt.ptr<f32>>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %op, %v : tensor<64x!tt.ptr<f32>>
  tt.return
}

// remui compares against the divisor read as unsigned; a dividend scaled by a
// negative constant swaps its bounds: base - 2 * arange lies in
// [base - 30, base].
// CHECK-LABEL: func.func @unsigned_scaled
// CHECK-SAME: %[[N:[^:]*]]: i32, %[[BASE:[^:]*]]: i32,
// CHECK: %[[B64:.*]] = arith.extsi %[[BASE]] : i32 to i64
// CHECK: %[[LO:.*]] = arith.addi %[[B64]], %c-30_i64 : i64
// CHECK: %[[N64:.*]] = arith.extui %[[N]] : i32 to i64
// CHECK: %[[GE0:.*]] = arith.cmpi sge, %[[LO]], %c0_i64
// CHECK: %[[LTN:.*]] = arith.cmpi slt, %[[B64]], %[[N64]]
// CHECK: %[[NOWRAP:.*]] = arith.andi %[[GE0]], %[[LTN]]
// CHECK: scf.if %[[NOWRAP]] {
// CHECK-NOT: tensor.extract
// CHECK: } else {
// CHECK: tensor.extract
tt.func public @unsigned_scaled(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32, %base: i32) {
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %cm2 = arith.constant dense<-2> : tensor<16xi32>
  %scaled = arith.muli %range, %cm2 : tensor<16xi32>
  %bases = tt.splat %base : i32 -> tensor<16xi32>
  %dividend = arith.addi %bases, %scaled : tensor<16xi32>
  %ns = tt.splat %n : i32 -> tensor<16xi32>
  %idx = arith.remui %dividend, %ns : tensor<16xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %idx : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %v = tt.load %xp : tensor<16x!tt.ptr<f32>>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %v : tensor<16x!tt.ptr<f32>>
  tt.return
}

// Refusals: a dividend loaded from memory has no bounds, and 64-bit dividends
// could overflow the i64 bounds; both accesses keep one general version.
// CHECK-LABEL: func.func @no_bounds
// CHECK-NOT: scf.if {{.*}} {
// CHECK: arith.remsi
// CHECK-NOT: scf.if {{.*}} {
// CHECK: arith.remsi
// CHECK-NOT: scf.if {{.*}} {
// CHECK: return
tt.func public @no_bounds(%x: !tt.ptr<f32>, %idx: !tt.ptr<i32>, %out: !tt.ptr<f32>, %n: i32, %n64: i64) {
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %is = tt.splat %idx : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %ip = tt.addptr %is, %range : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  %loaded = tt.load %ip : tensor<16x!tt.ptr<i32>>
  %ns = tt.splat %n : i32 -> tensor<16xi32>
  %wrapped = arith.remsi %loaded, %ns : tensor<16xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %wrapped : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %v = tt.load %xp : tensor<16x!tt.ptr<f32>>
  %wide = arith.extsi %range : tensor<16xi32> to tensor<16xi64>
  %n64s = tt.splat %n64 : i64 -> tensor<16xi64>
  %wrapped64 = arith.remsi %wide, %n64s : tensor<16xi64>
  %xp64 = tt.addptr %xs, %wrapped64 : tensor<16x!tt.ptr<f32>>, tensor<16xi64>
  %w = tt.load %xp64 : tensor<16x!tt.ptr<f32>>
  %sum = arith.addf %v, %w : tensor<16xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %sum : tensor<16x!tt.ptr<f32>>
  tt.return
}
