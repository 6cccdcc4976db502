// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-schedule-tile-prefetches))' %s | FileCheck %s
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-schedule-tile-prefetches{front-load-deferred=1}))' %s | FileCheck %s --check-prefix=FRONT

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

// A micro-kernel step with a K loop (the loop carrying its accumulators):
// the step's share goes after the accumulator loads, right before the K
// loop, not ahead of the loads.
// CHECK-LABEL: func.func @step_with_k_loop
// CHECK: scf.for %{{.*}} = %c0 to %c12 step %c6 {
// CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c8 {
// CHECK-NOT: llvm.intr.prefetch
// CHECK:     %[[ACC:.*]] = vector.load %{{.*}} : memref<12x32xf32>, vector<8xf32>
// CHECK-NOT: vector.load
// CHECK:     scf.for
// CHECK:       "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK:     }
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}} = %[[ACC]])
// CHECK-NOT: llvm.intr.prefetch
// CHECK:     vector.store
// CHECK: } {spine.micro_kernel_rows}
func.func @step_with_k_loop(%base: i64, %stride: i64, %tiles: index, %buf: memref<16x8xf32>, %acc: memref<12x32xf32>) {
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
        %sum = scf.for %kk = %c0 to %c8 step %c1 iter_args(%s = %a) -> (vector<8xf32>) {
          %b = vector.load %buf[%kk, %c0] : memref<16x8xf32>, vector<8xf32>
          %t = arith.addf %s, %b : vector<8xf32>
          scf.yield %t : vector<8xf32>
        }
        vector.store %sum, %acc[%i, %j] : memref<12x32xf32>, vector<8xf32>
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

// A persistent softmax's row: its maximum reads the row (a strip loop of 4
// strips carrying the partial maxima) and prefetches the next row's; the
// exponentials then compute over tile buffers only. The prefetches move into
// that loop, strip i of 4 prefetching the next row's strip i into L2, and
// the copy of the nest keeps neither the loads nor what the loop carried.
// The store loop after it touches memory through a pointer and takes none.
// CHECK-LABEL: func.func @row_then_exponentials
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   scf.for {{.*}} iter_args
// CHECK-NOT: llvm.intr.prefetch
// CHECK:     vector.store
// CHECK:   scf.for %[[S:.*]] = %c0 to %c64 step %c16 iter_args
// CHECK:     %[[OFF:.*]] = arith.subi %[[S]], %c0
// CHECK:     %[[STEP:.*]] = arith.divui %[[OFF]], %c16
// Strip s of 4 takes iterations [ceil(4 s / 4), ceil(4 (s + 1) / 4)) of
// the prefetching loop's 4, 16 elements each.
// CHECK:     %[[SCALED:.*]] = arith.muli %[[STEP]], %c4
// CHECK:     %[[ROUNDED:.*]] = arith.addi %[[SCALED]], %c3
// CHECK:     %[[FIRST:.*]] = arith.divui %[[ROUNDED]], %c4
// CHECK:     %[[ELEMENT:.*]] = arith.muli %[[FIRST]], %c16
// CHECK:     %[[BEGIN:.*]] = arith.addi %c0{{.*}}, %[[ELEMENT]]
// CHECK:     scf.for %{{.*}} = %[[BEGIN]] to %{{.*}} step %c16{{.*}} iter_args(%[[ARG:.*]] = %{{.*}})
// CHECK-NOT:   llvm.load
// CHECK:       "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK-NEXT:  scf.yield %[[ARG]]
// CHECK:     math.exp
// CHECK:   scf.for
// CHECK-NOT: llvm.intr.prefetch
// CHECK:     llvm.store
func.func @row_then_exponentials(%in: i64, %out: !llvm.ptr, %first: index, %rows: index, %step: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c4_i64 = arith.constant 4 : i64
  %c256_i64 = arith.constant 256 : i64
  %nan = arith.constant dense<0x7FC00000> : vector<16xf32>
  %row = memref.alloca() : memref<64xf32>
  %exp = memref.alloca() : memref<64xf32>
  scf.for %r = %first to %rows step %step {
    %r_i64 = arith.index_cast %r : index to i64
    %next_r = arith.addi %r, %step : index
    %next_i64 = arith.index_cast %next_r : index to i64
    %max = scf.for %s = %c0 to %c64 step %c16 iter_args(%m = %nan) -> (vector<16xf32>) {
      %s_i64 = arith.index_cast %s : index to i64
      %here = arith.muli %r_i64, %c256_i64 : i64
      %ahead = arith.muli %next_i64, %c256_i64 : i64
      %off = arith.muli %s_i64, %c4_i64 : i64
      %p = llvm.inttoptr %in : i64 to !llvm.ptr
      %rp = llvm.getelementptr %p[%here] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %src = llvm.getelementptr %rp[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %np = llvm.getelementptr %p[%ahead] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %pre = llvm.getelementptr %np[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%pre) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch} : (!llvm.ptr) -> ()
      %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
      vector.store %v, %row[%s] : memref<64xf32>, vector<16xf32>
      %n = arith.maxnumf %m, %v : vector<16xf32>
      scf.yield %n : vector<16xf32>
    }
    %zero = arith.constant dense<0.0> : vector<16xf32>
    %sum = scf.for %s = %c0 to %c64 step %c16 iter_args(%a = %zero) -> (vector<16xf32>) {
      %v = vector.load %row[%s] : memref<64xf32>, vector<16xf32>
      %d = arith.subf %v, %max : vector<16xf32>
      %e = math.exp %d : vector<16xf32>
      vector.store %e, %exp[%s] : memref<64xf32>, vector<16xf32>
      %t = arith.addf %a, %e : vector<16xf32>
      scf.yield %t : vector<16xf32>
    }
    scf.for %s = %c0 to %c64 step %c16 {
      %v = vector.load %exp[%s] : memref<64xf32>, vector<16xf32>
      %q = arith.divf %v, %sum : vector<16xf32>
      %s_i64 = arith.index_cast %s : index to i64
      %dst = llvm.getelementptr %out[%s_i64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      llvm.store %q, %dst : vector<16xf32>, !llvm.ptr
    }
  }
  return
}

// The same row after spine-defer-store-walks: the exponentials have two
// versions, one of which also stores the previous row. Each version takes a
// copy of the prefetches, spread over all four strips: the storing one too
// (strip s takes iterations [ceil(4 s / 4), ...) of the 4, no clamp).
// With front-load-deferred the storing one issues them in its first half
// (strip s of 4 takes iterations [ceil(4 s / 2), ...) of the 4, none from
// strip 2 on), the other still spreads them over all four strips.
// FRONT-LABEL: func.func @deferred_row_then_exponentials
// FRONT: scf.if %{{.*}} {
// FRONT:   scf.for %[[S:.*]] = %c0 to %c64 step %c16 iter_args
// FRONT:     %[[STEP:.*]] = arith.divui %{{.*}}, %c16
// FRONT:     %[[SCALED:.*]] = arith.muli %[[STEP]], %c4
// FRONT:     %[[ROUNDED:.*]] = arith.addi %[[SCALED]], %c1
// FRONT:     %[[FIRST:.*]] = arith.divui %[[ROUNDED]], %c2
// FRONT:     %[[CLAMPED:.*]] = arith.minui %[[FIRST]], %c4
// FRONT:     arith.muli %[[CLAMPED]], %c16
// FRONT:     "llvm.intr.prefetch"
// FRONT:     math.exp
// FRONT: } else {
// FRONT:   scf.for %{{.*}} = %c0 to %c64 step %c16 iter_args
// FRONT:     arith.divui %{{.*}}, %c4
// FRONT-NOT: arith.minui
// FRONT:     "llvm.intr.prefetch"
// FRONT:     math.exp
// CHECK-LABEL: func.func @deferred_row_then_exponentials
// CHECK: scf.if %{{.*}} {
// CHECK:   scf.for %[[S:.*]] = %c0 to %c64 step %c16 iter_args
// CHECK:     %[[STEP:.*]] = arith.divui %{{.*}}, %c16
// CHECK:     %[[SCALED:.*]] = arith.muli %[[STEP]], %c4
// CHECK:     %[[ROUNDED:.*]] = arith.addi %[[SCALED]], %c3
// CHECK:     %[[FIRST:.*]] = arith.divui %[[ROUNDED]], %c4
// CHECK-NOT: arith.minui
// CHECK:     arith.muli %[[FIRST]], %c16
// CHECK:     "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK:     llvm.store
// CHECK:     math.exp
// CHECK: } else {
// CHECK:   scf.for %{{.*}} = %c0 to %c64 step %c16 iter_args
// CHECK:     arith.divui %{{.*}}, %c4
// CHECK-NOT: arith.minui
// CHECK:     "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK:     math.exp
// CHECK-NOT: llvm.intr.prefetch
// CHECK: return
func.func @deferred_row_then_exponentials(%in: i64, %out: !llvm.ptr, %first: index, %rows: index, %step: index, %pending: i1, %scale: vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c4_i64 = arith.constant 4 : i64
  %c256_i64 = arith.constant 256 : i64
  %nan = arith.constant dense<0x7FC00000> : vector<16xf32>
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %row = memref.alloca() : memref<64xf32>
  %exp = memref.alloca() : memref<64xf32>
  scf.for %r = %first to %rows step %step {
    %r_i64 = arith.index_cast %r : index to i64
    %next_r = arith.addi %r, %step : index
    %next_i64 = arith.index_cast %next_r : index to i64
    %max = scf.for %s = %c0 to %c64 step %c16 iter_args(%m = %nan) -> (vector<16xf32>) {
      %s_i64 = arith.index_cast %s : index to i64
      %here = arith.muli %r_i64, %c256_i64 : i64
      %ahead = arith.muli %next_i64, %c256_i64 : i64
      %off = arith.muli %s_i64, %c4_i64 : i64
      %p = llvm.inttoptr %in : i64 to !llvm.ptr
      %rp = llvm.getelementptr %p[%here] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %src = llvm.getelementptr %rp[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %np = llvm.getelementptr %p[%ahead] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %pre = llvm.getelementptr %np[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%pre) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch} : (!llvm.ptr) -> ()
      %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
      vector.store %v, %row[%s] : memref<64xf32>, vector<16xf32>
      %n = arith.maxnumf %m, %v : vector<16xf32>
      scf.yield %n : vector<16xf32>
    }
    scf.if %pending {
      %sum = scf.for %s = %c0 to %c64 step %c16 iter_args(%a = %zero) -> (vector<16xf32>) {
        %prev = vector.load %exp[%s] : memref<64xf32>, vector<16xf32>
        %q = arith.mulf %prev, %scale : vector<16xf32>
        %s_i64 = arith.index_cast %s : index to i64
        %dst = llvm.getelementptr %out[%s_i64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        llvm.store %q, %dst : vector<16xf32>, !llvm.ptr
        %v = vector.load %row[%s] : memref<64xf32>, vector<16xf32>
        %d = arith.subf %v, %max : vector<16xf32>
        %e = math.exp %d : vector<16xf32>
        vector.store %e, %exp[%s] : memref<64xf32>, vector<16xf32>
        %t = arith.addf %a, %e : vector<16xf32>
        scf.yield %t : vector<16xf32>
      }
    } else {
      %sum = scf.for %s = %c0 to %c64 step %c16 iter_args(%a = %zero) -> (vector<16xf32>) {
        %v = vector.load %row[%s] : memref<64xf32>, vector<16xf32>
        %d = arith.subf %v, %max : vector<16xf32>
        %e = math.exp %d : vector<16xf32>
        vector.store %e, %exp[%s] : memref<64xf32>, vector<16xf32>
        %t = arith.addf %a, %e : vector<16xf32>
        scf.yield %t : vector<16xf32>
      }
    }
  }
  return
}

// A loop that computes but writes through a pointer (a store of results)
// does not take the prefetches: memory is busy during it.
// CHECK-LABEL: func.func @store_loop_takes_none
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK: math.exp
// CHECK-NOT: llvm.intr.prefetch
func.func @store_loop_takes_none(%in: i64, %out: !llvm.ptr, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c4_i64 = arith.constant 4 : i64
  %row = memref.alloca() : memref<64xf32>
  scf.for %r = %c0 to %rows step %c1 {
    scf.for %s = %c0 to %c64 step %c16 {
      %s_i64 = arith.index_cast %s : index to i64
      %off = arith.muli %s_i64, %c4_i64 : i64
      %p = llvm.inttoptr %in : i64 to !llvm.ptr
      %src = llvm.getelementptr %p[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%src) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch} : (!llvm.ptr) -> ()
      %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
      vector.store %v, %row[%s] : memref<64xf32>, vector<16xf32>
    }
    scf.for %s = %c0 to %c64 step %c16 {
      %v = vector.load %row[%s] : memref<64xf32>, vector<16xf32>
      %e = math.exp %v : vector<16xf32>
      %s_i64 = arith.index_cast %s : index to i64
      %dst = llvm.getelementptr %out[%s_i64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      llvm.store %e, %dst : vector<16xf32>, !llvm.ptr
    }
  }
  return
}

// A computing loop may read memory that is not a tile buffer (a load's view
// of the row a loop before it read, here an argument): it takes the
// prefetches all the same; it writes only a tile buffer.
// CHECK-LABEL: func.func @exponentials_of_a_view
// CHECK: scf.for
// CHECK-NOT: llvm.intr.prefetch
// CHECK: vector.load %arg1
// CHECK: scf.for {{.*}} step %c16
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// CHECK: math.exp
func.func @exponentials_of_a_view(%in: i64, %view: memref<64xf32>, %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c4_i64 = arith.constant 4 : i64
  %exp = memref.alloca() : memref<64xf32>
  scf.for %r = %c0 to %rows step %c1 {
    scf.for %s = %c0 to %c64 step %c16 {
      %s_i64 = arith.index_cast %s : index to i64
      %off = arith.muli %s_i64, %c4_i64 : i64
      %p = llvm.inttoptr %in : i64 to !llvm.ptr
      %pre = llvm.getelementptr %p[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%pre) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch} : (!llvm.ptr) -> ()
      %v = vector.load %view[%s] : memref<64xf32>, vector<16xf32>
      vector.store %v, %exp[%s] : memref<64xf32>, vector<16xf32>
    }
    scf.for %s = %c0 to %c64 step %c16 {
      %v = vector.load %view[%s] : memref<64xf32>, vector<16xf32>
      %e = math.exp %v : vector<16xf32>
      vector.store %e, %exp[%s] : memref<64xf32>, vector<16xf32>
    }
  }
  return
}

// A program that reduces its row (pid_x's, 1024 floats) twice, the first
// time into a buffer it allocates, each walk prefetching the next program's
// row (as spine-vectorize-element-loops marks the prefetches: one program
// ahead), then writes the row out. The two walks' prefetches read the same
// row: one set of them, for pid_x + 2, its 16 strips of 64 lanes shared out
// over the walks in parts 1 : 1 : 3 (strips [0, 3), [3, 6), [6, 16)), each
// walk's steps taking an even share of its part, without the loads, the
// buffer's writes or its allocation; the walks' own prefetches go.
// CHECK-LABEL: func.func @row_then_store(
// CHECK-SAME: %[[STRIDE:[^:]*]]: i64, %[[PID:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[PROGRAMS:[^:]*]]: i32
// CHECK: %[[AFTER:.*]] = arith.addi %[[PID]], %c1_i32
// CHECK: memref.alloc
// CHECK: scf.for %[[I:.*]] = %c0 to %c1024 step %c64
// CHECK:   %[[SINCE1:.*]] = arith.subi %[[I]], %c0
// CHECK:   %[[STEP1:.*]] = arith.divui %[[SINCE1]], %c64
// CHECK-NOT: memref.alloc
// Step s of 16 takes strips ceil(3 s / 16) to ceil(3 (s + 1) / 16) of the
// first 3.
// CHECK:   arith.muli %[[STEP1]], %c3
// CHECK:   arith.addi %{{.*}}, %c15
// CHECK:   arith.divui %{{.*}}, %c16
// CHECK:   scf.for
// CHECK-NOT:   vector.store
// CHECK:     %[[NEXT1:.*]] = arith.addi %[[AFTER]], %c1_i32
// CHECK:     "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK-NOT: spine.next_program_prefetch
// CHECK:   vector.store
// CHECK: memref.dealloc
// CHECK: scf.for %[[K:.*]] = %c0 to %c1024 step %c64
// CHECK:   %[[STEP2:.*]] = arith.divui %{{.*}}, %c64
// CHECK:   arith.muli %[[STEP2]], %c3
// CHECK:   %[[FIRST2:.*]] = arith.divui %{{.*}}, %c16
// CHECK:   %[[OFFSET2:.*]] = arith.muli %[[FIRST2]], %c64
// CHECK:   arith.addi %c192{{.*}}, %[[OFFSET2]]
// CHECK:   "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK-NOT: spine.next_program_prefetch
// CHECK: scf.for %[[J:.*]] = %c0 to %c1024 step %c16 {
// CHECK:   %[[STEP3:.*]] = arith.divui %{{.*}}, %c16
// CHECK-NOT: memref.alloc
// Step s of 64 takes strips 6 + ceil(10 s / 64) to 6 + ceil(10 (s + 1) / 64).
// CHECK:   arith.muli %[[STEP3]], %c10
// CHECK:   arith.addi %{{.*}}, %c63
// CHECK:   %[[FIRST3:.*]] = arith.divui %{{.*}}, %c64
// CHECK:   %[[OFFSET3:.*]] = arith.muli %[[FIRST3]], %c64
// CHECK:   %[[BEGIN3:.*]] = arith.addi %c384{{.*}}, %[[OFFSET3]]
// CHECK:   scf.for %{{.*}} = %[[BEGIN3]] to %{{.*}} step %c64
// CHECK-NOT:   llvm.load
// CHECK:       %[[NEXT3:.*]] = arith.addi %[[AFTER]], %c1_i32
// CHECK:       %[[EXISTS:.*]] = arith.cmpi slt, %[[NEXT3]], %[[PROGRAMS]]
// CHECK:       scf.if %[[EXISTS]] {
// CHECK:         %[[ROW:.*]] = arith.extsi %[[NEXT3]]
// CHECK:         arith.muli %[[ROW]], %[[STRIDE]]
// CHECK:         "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> : (!llvm.ptr) -> ()
// CHECK-NOT: "llvm.intr.prefetch"
// CHECK:   llvm.load
// CHECK:   llvm.store
func.func @row_then_store(%x: i64, %y: i64, %stride: i64, %pid: i32, %pid_y: i32, %pid_z: i32, %programs: i32, %programs_y: i32, %programs_z: i32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %c1_i32 = arith.constant 1 : i32
  %c4_i64 = arith.constant 4 : i64
  %true = arith.constant true
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %p = llvm.inttoptr %x : i64 to !llvm.ptr
  %q = llvm.inttoptr %y : i64 to !llvm.ptr
  %row = arith.extsi %pid : i32 to i64
  %row_elements = arith.muli %row, %stride : i64
  scf.if %true {
    %buf = memref.alloc() : memref<1024xf32>
    %sum = scf.for %i = %c0 to %c1024 step %c64 iter_args(%acc = %zero) -> (vector<64xf32>) {
      %i_i64 = arith.index_cast %i : index to i64
      %el = arith.addi %row_elements, %i_i64 : i64
      %bytes = arith.muli %el, %c4_i64 : i64
      %src = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %next = arith.addi %pid, %c1_i32 : i32
      %exists = arith.cmpi slt, %next, %programs : i32
      scf.if %exists {
        %next_row = arith.extsi %next : i32 to i64
        %next_elements = arith.muli %next_row, %stride : i64
        %next_el = arith.addi %next_elements, %i_i64 : i64
        %next_bytes = arith.muli %next_el, %c4_i64 : i64
        %ahead = llvm.getelementptr %p[%next_bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        "llvm.intr.prefetch"(%ahead) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 1 : i64} : (!llvm.ptr) -> ()
      }
      %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<64xf32>
      vector.store %v, %buf[%i] : memref<1024xf32>, vector<64xf32>
      %s = arith.addf %acc, %v : vector<64xf32>
      scf.yield %s : vector<64xf32>
    }
    memref.dealloc %buf : memref<1024xf32>
  }
  %squares = scf.for %k = %c0 to %c1024 step %c64 iter_args(%acc = %zero) -> (vector<64xf32>) {
    %k_i64 = arith.index_cast %k : index to i64
    %el = arith.addi %row_elements, %k_i64 : i64
    %bytes = arith.muli %el, %c4_i64 : i64
    %src = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %next = arith.addi %pid, %c1_i32 : i32
    %exists = arith.cmpi slt, %next, %programs : i32
    scf.if %exists {
      %next_row = arith.extsi %next : i32 to i64
      %next_elements = arith.muli %next_row, %stride : i64
      %next_el = arith.addi %next_elements, %k_i64 : i64
      %next_bytes = arith.muli %next_el, %c4_i64 : i64
      %ahead = llvm.getelementptr %p[%next_bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%ahead) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 1 : i64} : (!llvm.ptr) -> ()
    }
    %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<64xf32>
    %s = arith.mulf %v, %v : vector<64xf32>
    %t = arith.addf %acc, %s : vector<64xf32>
    scf.yield %t : vector<64xf32>
  }
  scf.for %j = %c0 to %c1024 step %c16 {
    %j_i64 = arith.index_cast %j : index to i64
    %el = arith.addi %row_elements, %j_i64 : i64
    %bytes = arith.muli %el, %c4_i64 : i64
    %src = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %dst = llvm.getelementptr %q[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %v = llvm.load %src {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    llvm.store %v, %dst {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
  }
  return
}

// Rows shorter than the lookahead prefetch several programs ahead already:
// no copy.
// CHECK-LABEL: func.func @short_rows
// CHECK-COUNT-1: llvm.intr.prefetch
// CHECK-NOT: llvm.intr.prefetch
func.func @short_rows(%x: i64, %y: i64, %pid: i32, %pid_y: i32, %pid_z: i32, %programs: i32, %programs_y: i32, %programs_z: i32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c2_i32 = arith.constant 2 : i32
  %c4_i64 = arith.constant 4 : i64
  %c256_i64 = arith.constant 256 : i64
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %p = llvm.inttoptr %x : i64 to !llvm.ptr
  %q = llvm.inttoptr %y : i64 to !llvm.ptr
  %sum = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %zero) -> (vector<16xf32>) {
    %next = arith.addi %pid, %c2_i32 : i32
    %exists = arith.cmpi slt, %next, %programs : i32
    scf.if %exists {
      %next_row = arith.extsi %next : i32 to i64
      %next_bytes = arith.muli %next_row, %c256_i64 : i64
      %ahead = llvm.getelementptr %p[%next_bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      "llvm.intr.prefetch"(%ahead) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 2 : i64} : (!llvm.ptr) -> ()
    }
    %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %s = arith.addf %acc, %v : vector<16xf32>
    scf.yield %s : vector<16xf32>
  }
  scf.for %j = %c0 to %c64 step %c16 {
    llvm.store %sum, %q {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
  }
  return
}

// In a loop over rows (a persistent program), next-program prefetches fire
// in its last iteration only: no copy into the store walk.
// CHECK-LABEL: func.func @rows_in_a_loop
// CHECK-COUNT-1: llvm.intr.prefetch
// CHECK-NOT: llvm.intr.prefetch
func.func @rows_in_a_loop(%x: i64, %y: i64, %rows: index, %pid: i32, %pid_y: i32, %pid_z: i32, %programs: i32, %programs_y: i32, %programs_z: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %c4096_i64 = arith.constant 4096 : i64
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %p = llvm.inttoptr %x : i64 to !llvm.ptr
  %q = llvm.inttoptr %y : i64 to !llvm.ptr
  scf.for %r = %c0 to %rows step %c1 {
    %sum = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %zero) -> (vector<16xf32>) {
      %next = arith.addi %pid, %c1_i32 : i32
      %exists = arith.cmpi slt, %next, %programs : i32
      scf.if %exists {
        %next_row = arith.extsi %next : i32 to i64
        %next_bytes = arith.muli %next_row, %c4096_i64 : i64
        %ahead = llvm.getelementptr %p[%next_bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        "llvm.intr.prefetch"(%ahead) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 1 : i64} : (!llvm.ptr) -> ()
      }
      %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
      %s = arith.addf %acc, %v : vector<16xf32>
      scf.yield %s : vector<16xf32>
    }
    scf.for %j = %c0 to %c64 step %c16 {
      llvm.store %sum, %q {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    }
  }
  return
}
