// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// `(pid * 64 + arange) % m` feeding a load: the access is emitted twice. The
// version taken when every dividend lies in [0, m) (checked once, from the
// dividend's bounds pid * 64 and pid * 64 + 63, in exact i64 arithmetic)
// computes addresses from the dividend itself; the other reads the
// materialized remainders. The specialized version also proves that OUT's
// addresses are X's or do not overlap them, so the load is fused into the
// store; the general one reads the load whole first.

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
// CHECK: %[[COND:.*]] = arith.andi %[[NOWRAP]], %{{.*}} : i1
// CHECK: scf.if %[[COND]] {
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
// CHECK: %[[READ:.*]] = scf.for %[[J:.*]] = %c0 to %c64 step %c1
// CHECK: tensor.extract %{{.*}}[%[[J]]] : tensor<64xi32>
// CHECK: llvm.load
// CHECK: scf.for %[[K:.*]] = %c0 to %c64 step %c1 {
// CHECK: %[[V:.*]] = tensor.extract %[[READ]][%[[K]]] : tensor<64xf32>
// CHECK: llvm.store %[[V]]
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
// CHECK: %[[COND:.*]] = arith.andi %[[NOWRAP]], %{{.*}} : i1
// CHECK: scf.if %[[COND]] {
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

// A prefix mask `offs < n` is all on when the largest offset is below n (and
// the offsets, pid * 64 + arange in exact arithmetic, fit i32). That version
// neither tests the mask nor has a branch per element; the load fused into
// the store has the same mask, left out too.
// CHECK-LABEL: func.func @masked_add
// CHECK-SAME: (%[[X:[^:]*]]: i64, %[[OUT:[^:]*]]: i64, %[[N:[^:]*]]: i32, %[[PID:[^:]*]]: i32,
// CHECK: %[[LO:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[HI:.*]] = arith.addi %[[LO]], %c63_i64 : i64
// CHECK: %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[HI]], %[[N64]] : i64
// CHECK: %[[FITS_LO:.*]] = arith.cmpi sge, %[[LO]], %c-2147483648_i64 : i64
// CHECK: %[[FITS_HI:.*]] = arith.cmpi sle, %[[HI]], %c2147483647_i64 : i64
// CHECK: %[[FITS:.*]] = arith.andi %[[FITS_LO]], %[[FITS_HI]] : i1
// CHECK: %[[ALLON:.*]] = arith.andi %[[BELOW]], %[[FITS]] : i1
// CHECK: %[[COND:.*]] = arith.andi %[[ALLON]], %{{.*}} : i1
// CHECK: scf.if %[[COND]] {
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.if
// CHECK-NOT: arith.cmpi
// CHECK: llvm.load
// CHECK-NOT: scf.if
// CHECK: llvm.store
// CHECK: } else {
// CHECK: arith.cmpi slt, %{{.*}}, %[[N]] : i32
// CHECK: scf.if
// CHECK: llvm.load
// CHECK: scf.if
// CHECK: llvm.store
tt.func public @masked_add(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
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
  %two = arith.constant dense<2.0> : tensor<64xf32>
  %w = arith.mulf %v, %two : tensor<64xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %op, %w, %mask : tensor<64x!tt.ptr<f32>>
  tt.return
}

// Two-sided masks: `lo <= arange & arange < hi` and a tile mask broadcast
// from a column mask. Each comparison adds its bound check (folded with the
// range's constant bounds 0 and 15).
// CHECK-LABEL: func.func @two_sided_2d
// CHECK-SAME: (%{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[LO:[^:]*]]: i32, %[[HI:[^:]*]]: i32, %[[COLS:[^:]*]]: i32,
// CHECK: %[[LO64:.*]] = arith.extsi %[[LO]] : i32 to i64
// CHECK: %[[ABOVE:.*]] = arith.cmpi sle, %[[LO64]], %c0_i64 : i64
// CHECK: %[[HI64:.*]] = arith.extsi %[[HI]] : i32 to i64
// CHECK: %[[BELOW:.*]] = arith.cmpi sgt, %[[HI64]], %c15_i64 : i64
// CHECK: %[[ROWS:.*]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK: %[[COLS64:.*]] = arith.extsi %[[COLS]] : i32 to i64
// CHECK: %[[INCOLS:.*]] = arith.cmpi sgt, %[[COLS64]], %c15_i64 : i64
// CHECK: %[[ALL:.*]] = arith.andi %[[ROWS]], %[[INCOLS]] : i1
// CHECK: %[[COND:.*]] = arith.andi %[[ALL]], %{{.*}} : i1
// CHECK: scf.if %[[COND]]
// CHECK-NOT: arith.cmpi
// CHECK: } else {
tt.func public @two_sided_2d(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %lo: i32, %hi: i32, %cols: i32) {
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %los = tt.splat %lo : i32 -> tensor<16xi32>
  %his = tt.splat %hi : i32 -> tensor<16xi32>
  %above = arith.cmpi sge, %range, %los : tensor<16xi32>
  %below = arith.cmpi slt, %range, %his : tensor<16xi32>
  %rowmask = arith.andi %above, %below : tensor<16xi1>
  %colss = tt.splat %cols : i32 -> tensor<16xi32>
  %colmask = arith.cmpi slt, %range, %colss : tensor<16xi32>
  %r2 = tt.expand_dims %rowmask {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
  %c2 = tt.expand_dims %colmask {axis = 0 : i32} : tensor<16xi1> -> tensor<1x16xi1>
  %rb = tt.broadcast %r2 : tensor<16x1xi1> -> tensor<16x16xi1>
  %cb = tt.broadcast %c2 : tensor<1x16xi1> -> tensor<16x16xi1>
  %mask = arith.andi %rb, %cb : tensor<16x16xi1>
  %ri = tt.expand_dims %range {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c16 = arith.constant dense<16> : tensor<16x1xi32>
  %rows = arith.muli %ri, %c16 : tensor<16x1xi32>
  %ci = tt.expand_dims %range {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %rowsb = tt.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cib = tt.broadcast %ci : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rowsb, %cib : tensor<16x16xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %v = tt.load %xp, %mask : tensor<16x16x!tt.ptr<f32>>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  tt.store %op, %v : tensor<16x16x!tt.ptr<f32>>
  tt.return
}

// A mask computed from loaded values has no bounds: both versions (they
// differ only in which loads the store may read as it writes) test it per
// element.
// CHECK-LABEL: func.func @loaded_mask
// CHECK: scf.if {{.*}} {
// CHECK: scf.for
// CHECK: arith.cmpi ne
// CHECK: scf.if {{.*}} -> (f32)
// CHECK: } else {
// CHECK: arith.cmpi ne
// CHECK: scf.if {{.*}} -> (f32)
// CHECK: return
tt.func public @loaded_mask(%x: !tt.ptr<f32>, %flags: !tt.ptr<i32>, %out: !tt.ptr<f32>) {
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %fs = tt.splat %flags : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %fp = tt.addptr %fs, %range : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  %f = tt.load %fp : tensor<16x!tt.ptr<i32>>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %mask = arith.cmpi ne, %f, %zero : tensor<16xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %v = tt.load %xp, %mask : tensor<16x!tt.ptr<f32>>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %v : tensor<16x!tt.ptr<f32>>
  tt.return
}
