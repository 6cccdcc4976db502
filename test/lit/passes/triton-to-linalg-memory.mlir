// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// The tutorial vector add: pointers become i64 addresses scaled by the element
// size. Where the block is whole and OUT either is X (Y) or does not overlap
// it, the loads, the add and the store are fused into one loop that
// recomputes each element's address (no pointer tensor is stored, no mask).
// Otherwise the loads are read whole first, where the mask holds (else
// `other` or 0), and then the masked store runs: a store must not overwrite
// what a later element of a fused load reads.

// CHECK-LABEL: func.func @add_kernel
// CHECK-SAME: (%[[X:[^:]*]]: i64, %[[Y:[^:]*]]: i64, %[[OUT:[^:]*]]: i64, %[[N:[^:]*]]: i32, %[[PID:[^:]*]]: i32,
// CHECK-NOT: tt.
// CHECK: %[[START:.*]] = arith.muli %[[PID]], %c1024_i32
// CHECK: arith.cmpi eq, %[[Y]], %[[OUT]] : i64
// CHECK: arith.cmpi eq, %[[X]], %[[OUT]] : i64
// CHECK: scf.if
// CHECK: scf.for %[[I:.*]] = %c0 to %c1024 step %c1 {
// CHECK: %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK: %[[OFF:.*]] = arith.addi %[[START]], %[[I32]] : i32
// CHECK: %[[OFF64:.*]] = arith.extsi %[[OFF]] : i32 to i64
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFF64]], %c4_i64 : i64
// CHECK: %[[XB:.*]] = llvm.inttoptr %[[X]] : i64 to !llvm.ptr
// CHECK: %[[XP:.*]] = llvm.getelementptr %[[XB]][%[[BYTES]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: %[[XV:.*]] = llvm.load %[[XP]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: %[[YV:.*]] = llvm.load
// CHECK: %[[SUM:.*]] = arith.addf %[[XV]], %[[YV]] : f32
// CHECK: llvm.getelementptr {{.*}}[%[[BYTES]]]
// CHECK: llvm.store %[[SUM]], {{.*}} : f32, !llvm.ptr
// CHECK: } else {
// CHECK: scf.for
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i32
// CHECK: scf.if %[[MASK]] -> (f32) {
// CHECK: llvm.load
// CHECK: } else {
// CHECK: scf.yield %cst : f32
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract
// CHECK: tensor.extract
// CHECK: scf.if
// CHECK: llvm.store
// CHECK: return
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

// A load may not move past a store: x is read into a tensor before p is
// overwritten, and the second store reads that tensor.
// CHECK-LABEL: func.func @no_load_past_store
// CHECK: %[[XS:.*]] = scf.for {{.*}} iter_args({{.*}}) -> (tensor<8xf32>)
// CHECK: llvm.load
// CHECK: tensor.insert
// CHECK: scf.for
// CHECK: llvm.store %cst
// CHECK: scf.for
// CHECK: tensor.extract %[[XS]]
// CHECK: llvm.store
tt.func public @no_load_past_store(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %x = tt.load %pp : tensor<8x!tt.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  tt.store %pp, %zero : tensor<8x!tt.ptr<f32>>
  %qs = tt.splat %q : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %qp = tt.addptr %qs, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  tt.store %qp, %x : tensor<8x!tt.ptr<f32>>
  tt.return
}

// Pointers chosen per element from two bases (tl.where on pointers) and a
// pointer loaded from memory still lower: they are just addresses.
// CHECK-LABEL: func.func @select_and_indirect
// CHECK: %[[P:.*]] = llvm.load {{.*}} : !llvm.ptr -> i64
// CHECK: %[[PP:.*]] = llvm.inttoptr %[[P]] : i64 to !llvm.ptr
// CHECK: llvm.load %[[PP]] {{.*}} : !llvm.ptr -> f16
// CHECK: scf.for
// CHECK: %[[SEL:.*]] = arith.select {{.*}} : i64
// CHECK: %[[SP:.*]] = llvm.inttoptr %[[SEL]] : i64 to !llvm.ptr
// CHECK: llvm.load %[[SP]] {{.*}} : !llvm.ptr -> f16
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

// A store over the addresses its fused load reads is safe only when each
// element has its own address. Offsets 0, 2, 2, 4 (a range plus a constant
// that is not a splat) repeat one: the load is read whole before the store.
// CHECK-LABEL: func.func @repeated_addresses
// CHECK: %[[READ:.*]] = scf.for
// CHECK: llvm.load
// CHECK: scf.for
// CHECK: tensor.extract %[[READ]]
// CHECK: llvm.store
tt.func public @repeated_addresses(%x: !tt.ptr<f32>) {
  %range = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %jitter = arith.constant dense<[0, 1, 0, 1]> : tensor<4xi32>
  %offs = arith.addi %range, %jitter : tensor<4xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %p = tt.addptr %xs, %offs : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  %v = tt.load %p : tensor<4x!tt.ptr<f32>>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %w = arith.addf %v, %one : tensor<4xf32>
  tt.store %p, %w : tensor<4x!tt.ptr<f32>>
  tt.return
}
