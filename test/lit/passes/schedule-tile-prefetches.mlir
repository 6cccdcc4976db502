// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-schedule-tile-prefetches))' %s | FileCheck %s

// A loop over K tiles: a copy of a 16x8 tile whose strips prefetch the next
// tile (as spine-vectorize-element-loops marks them), then a micro-kernel
// over 2 row blocks of 4 column blocks. The prefetches leave the copy; each
// of the 8 (row block, column block) steps prefetches its share of the
// tile's 16 rows (2) into L2 (hint 2), and the copy of the nest keeps
// neither the loads nor the stores.
// CHECK-LABEL: func.func @tile_loop
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   scf.for %{{.*}} = %c0 to %c16 step %c1 {
// CHECK-NOT: llvm.intr.prefetch
// CHECK:     vector.store
// CHECK:   scf.for %[[I:.*]] = %c0 to %c12 step %c6 {
// CHECK:     scf.for %[[J:.*]] = %c0 to %c32 step %c8 {
// CHECK:       %[[IB:.*]] = arith.divui %{{.*}}, %c6
// CHECK:       %[[JB:.*]] = arith.divui %{{.*}}, %c8
// CHECK:       %[[IB4:.*]] = arith.muli %[[IB]], %c4
// CHECK:       %[[BLOCK:.*]] = arith.addi %[[IB4]], %[[JB]]
// Step b of 8 takes rows [ceil(16 b / 8), ceil(16 (b + 1) / 8)).
// CHECK:       %[[SCALED:.*]] = arith.muli %[[BLOCK]], %c16
// CHECK:       %[[ROUNDED:.*]] = arith.addi %[[SCALED]], %c7
// CHECK:       %[[FIRST:.*]] = arith.divui %[[ROUNDED]], %c8
// CHECK:       %[[BEGIN:.*]] = arith.addi %c0{{.*}}, %[[FIRST]]
// CHECK:       %[[NEXT:.*]] = arith.addi %[[BLOCK]], %c1
// CHECK:       arith.muli %[[NEXT]], %c16
// CHECK:       %[[END:.*]] = arith.addi %c0{{.*}}, %{{.*}}
// CHECK:       scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %c1 {
// CHECK-NOT:     llvm.load
// CHECK-NOT:     vector.store
// CHECK:         "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK:       }
// CHECK:       vector.load
// CHECK:   } {spine.micro_kernel_rows}
func.func @tile_loop(%base: i64, %stride: i64, %tiles: index, %buf: memref<16x8xf32>, %acc: memref<12x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c4_i64 = arith.constant 4 : i64
  %c32_i64 = arith.constant 32 : i64
  scf.for %k = %c0 to %tiles step %c1 {
    %k_i64 = arith.index_cast %k : index to i64
    scf.for %r = %c0 to %c16 step %c1 {
      %r_i64 = arith.index_cast %r : index to i64
      %row = arith.muli %r_i64, %stride : i64
      %col = arith.muli %k_i64, %c32_i64 : i64
      %here = arith.addi %row, %col : i64
      %next = arith.addi %here, %c32_i64 : i64
      %bytes = arith.muli %here, %c4_i64 : i64
      %next_bytes = arith.muli %next, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %src = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %ahead = llvm.getelementptr %p[%next_bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%ahead) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch} : (!llvm.ptr) -> ()
      %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
      vector.store %v, %buf[%r, %c0] : memref<16x8xf32>, vector<8xf32>
    }
    scf.for %i = %c0 to %c12 step %c6 {
      scf.for %j = %c0 to %c32 step %c8 {
        %a = vector.load %acc[%i, %j] : memref<12x32xf32>, vector<8xf32>
        %b = vector.load %buf[%c0, %c0] : memref<16x8xf32>, vector<8xf32>
        %s = arith.addf %a, %b : vector<8xf32>
        vector.store %s, %acc[%i, %j] : memref<12x32xf32>, vector<8xf32>
      }
    } {spine.micro_kernel_rows}
  }
  return
}

// Without a micro-kernel after the copy, the prefetch stays where it is.
// CHECK-LABEL: func.func @no_micro_kernel
// CHECK: scf.for
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK: vector.store
func.func @no_micro_kernel(%base: i64, %tiles: index, %buf: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c4_i64 = arith.constant 4 : i64
  scf.for %k = %c0 to %tiles step %c1 {
    scf.for %r = %c0 to %c16 step %c1 {
      %r_i64 = arith.index_cast %r : index to i64
      %bytes = arith.muli %r_i64, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %src = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%src) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch} : (!llvm.ptr) -> ()
      %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
      vector.store %v, %buf[%r, %c0] : memref<16x8xf32>, vector<8xf32>
    }
  }
  return
}

// A copy whose rows are not counted between constant bounds cannot be
// shared out among the blocks: its prefetch stays too.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: scf.for %{{.*}} = %c0 to %arg3 step %c1 {
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK: } {spine.micro_kernel_rows}
// CHECK-NOT: llvm.intr.prefetch
func.func @dynamic_rows(%base: i64, %tiles: index, %buf: memref<16x8xf32>, %rows: index, %acc: memref<12x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %c4_i64 = arith.constant 4 : i64
  scf.for %k = %c0 to %tiles step %c1 {
    scf.for %r = %c0 to %rows step %c1 {
      %r_i64 = arith.index_cast %r : index to i64
      %bytes = arith.muli %r_i64, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %src = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%src) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch} : (!llvm.ptr) -> ()
      %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
      vector.store %v, %buf[%r, %c0] : memref<16x8xf32>, vector<8xf32>
    }
    scf.for %i = %c0 to %c12 step %c6 {
      scf.for %j = %c0 to %c32 step %c8 {
        %a = vector.load %acc[%i, %j] : memref<12x32xf32>, vector<8xf32>
        vector.store %a, %acc[%i, %j] : memref<12x32xf32>, vector<8xf32>
      }
    } {spine.micro_kernel_rows}
  }
  return
}

// A row loop without a loop over column blocks inside is not one
// spine-vectorize-matmul made: the prefetch stays in the copy.
// CHECK-LABEL: func.func @rows_without_columns
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 {
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK: } {spine.micro_kernel_rows}
func.func @rows_without_columns(%base: i64, %tiles: index, %buf: memref<16x8xf32>, %acc: memref<12x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c4_i64 = arith.constant 4 : i64
  scf.for %k = %c0 to %tiles step %c1 {
    scf.for %r = %c0 to %c16 step %c1 {
      %r_i64 = arith.index_cast %r : index to i64
      %bytes = arith.muli %r_i64, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %src = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%src) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch} : (!llvm.ptr) -> ()
      %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
      vector.store %v, %buf[%r, %c0] : memref<16x8xf32>, vector<8xf32>
    }
    scf.for %i = %c0 to %c12 step %c6 {
      %a = vector.load %acc[%i, %c0] : memref<12x8xf32>, vector<8xf32>
      vector.store %a, %acc[%i, %c0] : memref<12x8xf32>, vector<8xf32>
    } {spine.micro_kernel_rows}
  }
  return
}
