// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256}))' %s | FileCheck %s

// A masked tile load (the loop a tl.load with `mask=offs_k < K` becomes after
// bufferization). The address moves 4 bytes per iteration, but through a
// 32-bit offset with a run-time row stride that may wrap: one check before
// the loop compares the first and the last iteration's addresses and picks
// one of two versions of the loop. Where nothing wraps, a plain vector load
// when every lane is on, a masked one otherwise, from the strip's first
// address; the general version checks each strip's lane addresses and
// gathers when they are not consecutive. 8 lanes of f32 per 256-bit register.
// CHECK-LABEL: func.func @masked_tile_load
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1
// CHECK: %[[FIRST:.*]] = llvm.ptrtoint
// CHECK: %[[LAST:.*]] = llvm.ptrtoint
// CHECK: %[[SPAN:.*]] = arith.subi %[[LAST]], %[[FIRST]] : i64
// CHECK: %[[NOWRAP:.*]] = arith.cmpi eq, %[[SPAN]], %c124_i64 : i64
// CHECK: scf.if %[[NOWRAP]] {
// CHECK: scf.for %[[J:.*]] = %c0 to %c32{{.*}} step %c8
// CHECK: %[[MASK:.*]] = arith.cmpi slt, {{.*}} : vector<8xi32>
// CHECK: %[[PTR:.*]] = llvm.getelementptr
// CHECK: %[[ALLON:.*]] = vector.reduction <and>, %[[MASK]]
// CHECK: scf.if %[[ALLON]] -> (vector<8xf32>)
// CHECK: llvm.load %[[PTR]] {{.*}} -> vector<8xf32>
// CHECK: } else {
// CHECK: llvm.intr.masked.load %[[PTR]], %[[MASK]]
// CHECK: arith.select {{.*}} : vector<8xi1>, vector<8xf32>
// CHECK: vector.store {{.*}}[%{{.*}}, %[[J]]] : memref<128x32xf32>, vector<8xf32>
// CHECK: } else {
// CHECK: scf.for %[[J2:.*]] = %c0 to %c32{{.*}} step %c8
// CHECK: %[[SAME:.*]] = arith.cmpi eq, {{.*}} : vector<8xi64>
// CHECK: %[[CONSECUTIVE:.*]] = vector.reduction <and>, %[[SAME]]
// CHECK: scf.if %[[CONSECUTIVE]] -> (vector<8xf32>)
// CHECK: llvm.intr.masked.load
// CHECK: } else {
// CHECK: llvm.intr.masked.gather {{.*}} -> vector<8xf32>
// CHECK: vector.store {{.*}}[%{{.*}}, %[[J2]]] : memref<128x32xf32>, vector<8xf32>
// CHECK-NOT: scf.for
func.func @masked_tile_load(%base: i64, %rows: i32, %k_left: i32, %stride: i32, %off: i64, %buf: memref<128x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c4_i64 = arith.constant 4 : i64
  %cst = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %k = %c0 to %c32 step %c1 {
      %k32 = arith.index_cast %k : index to i32
      %in = arith.cmpi slt, %k32, %k_left : i32
      %i32 = arith.index_cast %i : index to i32
      %row = arith.muli %i32, %stride : i32
      %elt = arith.addi %row, %k32 : i32
      %elt64 = arith.extsi %elt : i32 to i64
      %bytes = arith.muli %elt64, %c4_i64 : i64
      %v = scf.if %in -> (f32) {
        %sum = arith.addi %bytes, %off : i64
        %p = llvm.inttoptr %base : i64 to !llvm.ptr
        %q = llvm.getelementptr %p[%sum] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        %x = llvm.load %q {alignment = 4 : i64} : !llvm.ptr -> f32
        scf.yield %x : f32
      } else {
        scf.yield %cst : f32
      }
      memref.store %v, %buf[%i, %k] : memref<128x32xf32>
    }
  }
  return
}

// A masked store from a buffer (tl.store of a computed tile): vector load of
// the buffer at the induction variable. The offsets are the induction
// variable itself, consecutive by construction: no check, a plain store when
// every lane is on, else a masked one. 20 iterations are two strips of 8 and
// one of 4 lanes from 16 (leftovers get narrower strips, down to 4 lanes).
// CHECK-LABEL: func.func @masked_store_with_tail
// CHECK: scf.for %[[J:.*]] = %c0 to %c16{{.*}} step %c8
// CHECK: vector.load %{{.*}}[%[[J]]] : memref<20xf32>, vector<8xf32>
// CHECK-NOT: masked.scatter
// CHECK: scf.if
// CHECK: llvm.store {{.*}} : vector<8xf32>, !llvm.ptr
// CHECK: } else {
// CHECK: llvm.intr.masked.store
// CHECK: scf.for %{{.*}} = %c16{{.*}} to %c20{{.*}} step %c4
// CHECK: vector.load %{{.*}} : memref<20xf32>, vector<4xf32>
// CHECK: llvm.intr.masked.store {{.*}} : vector<4xf32>, vector<4xi1> into !llvm.ptr
// CHECK-NOT: : f32, !llvm.ptr
// CHECK: return
func.func @masked_store_with_tail(%base: i64, %n: i32, %buf: memref<20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %c4_i64 = arith.constant 4 : i64
  scf.for %j = %c0 to %c20 step %c1 {
    %j32 = arith.index_cast %j : index to i32
    %in = arith.cmpi slt, %j32, %n : i32
    %v = memref.load %buf[%j] : memref<20xf32>
    scf.if %in {
      %j64 = arith.extsi %j32 : i32 to i64
      %bytes = arith.muli %j64, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %q = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      llvm.store %v, %q {alignment = 4 : i64} : f32, !llvm.ptr
    }
  }
  return
}

// The tutorial matmul's A tile: each row's offset is read from the buffer
// holding `offs_am % M` (uniform in the row's loop), then + k. The check
// before the loop recomputes that read (in bounds: the row counter runs over
// the buffer's size, and nothing in the loop writes the buffer), so the
// strips need no check of their own.
// CHECK-LABEL: func.func @tile_rows_from_offset_buffer
// CHECK: scf.for %[[I:.*]] = %c0 to %c16 step %c1
// CHECK: memref.load %{{.*}}[%[[I]]] : memref<16xi32>
// CHECK: %[[NOWRAP:.*]] = arith.cmpi eq, %{{.*}}, %c124_i64 : i64
// CHECK: scf.if %[[NOWRAP]] {
// CHECK: scf.for {{.*}} step %c8
// CHECK-NOT: arith.cmpi eq, {{.*}} : vector<8xi64>
// CHECK: llvm.load {{.*}} -> vector<8xf32>
// CHECK: } else {
func.func @tile_rows_from_offset_buffer(%base: i64, %rows: memref<16xi32>, %stride: i32, %buf: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c4_i64 = arith.constant 4 : i64
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %k = %c0 to %c32 step %c1 {
      %k32 = arith.index_cast %k : index to i32
      %row = memref.load %rows[%i] : memref<16xi32>
      %start = arith.muli %row, %stride : i32
      %elt = arith.addi %start, %k32 : i32
      %elt64 = arith.extsi %elt : i32 to i64
      %bytes = arith.muli %elt64, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %q = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %x = llvm.load %q {alignment = 4 : i64} : !llvm.ptr -> f32
      memref.store %x, %buf[%i, %k] : memref<16x32xf32>
    }
  }
  return
}

// An index gather (`x[idx[j]]`): nothing is known about the addresses, so
// each strip checks whether its lanes' addresses happen to be consecutive.
// CHECK-LABEL: func.func @index_gather
// CHECK: scf.for {{.*}} step %c8
// CHECK: %[[SAME:.*]] = arith.cmpi eq, {{.*}} : vector<8xi64>
// CHECK: %[[CONTIG:.*]] = vector.reduction <and>, %[[SAME]]
// CHECK: scf.if %[[CONTIG]] -> (vector<8xf32>)
// CHECK: llvm.load {{.*}} -> vector<8xf32>
// CHECK: } else {
// CHECK: llvm.intr.masked.gather
func.func @index_gather(%base: i64, %idx: memref<64xi32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4_i64 = arith.constant 4 : i64
  scf.for %j = %c0 to %c64 step %c1 {
    %i = memref.load %idx[%j] : memref<64xi32>
    %i64 = arith.extsi %i : i32 to i64
    %bytes = arith.muli %i64, %c4_i64 : i64
    %p = llvm.inttoptr %base : i64 to !llvm.ptr
    %q = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %x = llvm.load %q {alignment = 4 : i64} : !llvm.ptr -> f32
    memref.store %x, %out[%j] : memref<64xf32>
  }
  return
}

// Elementwise work between buffers (what linalg-to-loops makes of a
// linalg.generic): plain vector loads and stores, the math widened.
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.for {{.*}} step %c8
// CHECK: vector.load {{.*}} : memref<4x64xf32>, vector<8xf32>
// CHECK: math.exp {{.*}} : vector<8xf32>
// CHECK: vector.store {{.*}} : memref<4x64xf32>, vector<8xf32>
func.func @elementwise(%in: memref<4x64xf32>, %out: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %x = memref.load %in[%i, %j] : memref<4x64xf32>
      %y = math.exp %x : f32
      memref.store %y, %out[%i, %j] : memref<4x64xf32>
    }
  }
  return
}

// Left alone: an accumulation through one buffer element (a reduction's
// loop), integer division under a mask, and booleans in memory (a vector of
// i1 is a bit mask, a memref of i1 holds bytes).
// CHECK-LABEL: func.func @not_vectorized
// CHECK-NOT: vector<
// CHECK: return
func.func @not_vectorized(%in: memref<64xf32>, %acc: memref<f32>, %d: memref<64xi32>, %n: i32, %flags: memref<64xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %x = memref.load %in[%j] : memref<64xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %a, %x : f32
    memref.store %s, %acc[] : memref<f32>
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %j32 = arith.index_cast %j : index to i32
    %in_range = arith.cmpi slt, %j32, %n : i32
    scf.if %in_range {
      %q = arith.divsi %n, %j32 : i32
      memref.store %q, %d[%j] : memref<64xi32>
    }
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %j32 = arith.index_cast %j : index to i32
    %in_range = arith.cmpi slt, %j32, %n : i32
    memref.store %in_range, %flags[%j] : memref<64xi1>
  }
  return
}

// A reduction (what convert-linalg-to-loops makes of linalg.reduce): the
// strip loop carries a vector of partial maxima from the neutral element
// (NaN for maxnumf), then reduces across lanes into the buffer element once.
// Its strips are 4 registers wide (32 lanes of 256 bits), which the backend
// splits into 4 independent chains. Of the 27 leftover iterations, 16 and 8
// go to narrower strips, each reduced into the buffer element after it; the
// last 3 stay a scalar loop.
// CHECK-LABEL: func.func @max_reduction
// CHECK: %[[NEUTRAL:.*]] = arith.constant dense<0x7FC00000> : vector<32xf32>
// CHECK: %[[PARTIAL:.*]] = scf.for %[[J:.*]] = %c0 to %c992{{.*}} step %c32{{.*}} iter_args(%[[ACC:.*]] = %[[NEUTRAL]]) -> (vector<32xf32>)
// CHECK: %[[X:.*]] = vector.load %{{.*}}[%[[J]]] : memref<1019xf32>, vector<32xf32>
// CHECK: %[[MAX:.*]] = arith.maxnumf %[[ACC]], %[[X]] fastmath<reassoc> : vector<32xf32>
// CHECK: scf.yield %[[MAX]]
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK: %[[ALL:.*]] = vector.reduction <maxnumf>, %[[PARTIAL]], %[[OLD]] fastmath<reassoc> : vector<32xf32> into f32
// CHECK: memref.store %[[ALL]], %{{.*}}[] : memref<f32>
// CHECK: scf.for %{{.*}} = %c992{{.*}} to %c1008{{.*}} step %c16{{.*}} -> (vector<16xf32>)
// CHECK: vector.reduction <maxnumf>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK: scf.for %{{.*}} = %c1008{{.*}} to %c1016{{.*}} step %c8{{.*}} -> (vector<8xf32>)
// CHECK: vector.reduction <maxnumf>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<8xf32> into f32
// CHECK: scf.for %{{.*}} = %c1016{{.*}} to %c1019 step %c1
// A float sum without reassoc keeps its order: not vectorized.
// CHECK-LABEL: func.func @ordered_sum
// CHECK-NOT: vector<
// CHECK: return
func.func @max_reduction(%in: memref<1019xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1019 = arith.constant 1019 : index
  scf.for %j = %c0 to %c1019 step %c1 {
    %x = memref.load %in[%j] : memref<1019xf32>
    %a = memref.load %acc[] : memref<f32>
    %m = arith.maxnumf %a, %x fastmath<reassoc> : f32
    memref.store %m, %acc[] : memref<f32>
  }
  return
}

func.func @ordered_sum(%in: memref<64xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %x = memref.load %in[%j] : memref<64xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %a, %x : f32
    memref.store %s, %acc[] : memref<f32>
  }
  return
}

// A tile copy inside a loop over tiles (run-time trip count): each strip
// also prefetches what it reads in the loop's next iteration, the address
// computed from the offset the loop yields, once per 64-byte line (every
// other strip of 8 floats); the prefetch is marked for
// spine-schedule-tile-prefetches. (The tile's 8 KiB are what the prefetches
// look ahead: one iteration.) Only an iteration the loop makes is prefetched:
// the last prefetches nothing.
// CHECK-LABEL: func.func @tile_copy_prefetches_next_tile
// CHECK: scf.for %[[T:.*]] = %c0 to %arg1 step %c1 iter_args(%[[OFF:.*]] = %c0_i64) -> (i64) {
// CHECK: scf.for %{{.*}} = %c0 to %c2048{{.*}} step %c8
// CHECK: %[[NEXT:.*]] = arith.addi %[[OFF]], %c4096_i64 : i64
// CHECK: %[[NEXT_T:.*]] = arith.addi %[[T]], %c1 : index
// CHECK-NOT: %c4096_i64
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %[[NEXT_T]], %arg1 : index
// CHECK: arith.addi %{{.*}}, %[[NEXT]] : i64
// CHECK: %[[AHEAD:.*]] = llvm.getelementptr
// CHECK: %[[PHASE:.*]] = arith.remui %{{.*}}, %c16 : index
// CHECK: %[[LINE_START:.*]] = arith.cmpi eq, %[[PHASE]], %c0{{.*}} : index
// CHECK: %[[WHEN:.*]] = arith.andi %[[EXISTS]], %[[LINE_START]] : i1
// CHECK: scf.if %[[WHEN]] {
// CHECK: "llvm.intr.prefetch"(%[[AHEAD]]) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK: llvm.load %{{.*}} -> vector<8xf32>
func.func @tile_copy_prefetches_next_tile(%base: i64, %tiles: index, %buf: memref<2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  %c0_i64 = arith.constant 0 : i64
  %c4_i64 = arith.constant 4 : i64
  %c4096_i64 = arith.constant 4096 : i64
  %end = scf.for %t = %c0 to %tiles step %c1 iter_args(%off = %c0_i64) -> (i64) {
    scf.for %k = %c0 to %c2048 step %c1 {
      %k64 = arith.index_cast %k : index to i64
      %elt = arith.addi %k64, %off : i64
      %bytes = arith.muli %elt, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %q = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %x = llvm.load %q {alignment = 4 : i64} : !llvm.ptr -> f32
      memref.store %x, %buf[%k] : memref<2048xf32>
    }
    %next = arith.addi %off, %c4096_i64 : i64
    scf.yield %next : i64
  }
  return
}

// The same with tiles of 1 KiB: the prefetches reach 8 iterations ahead
// (8 KiB, and the most), the offset the loop carries advanced by eight of
// its yields.
// CHECK-LABEL: func.func @small_tiles_prefetch_further
// CHECK: scf.for %{{.*}} = %c0 to %arg1 step %c1 iter_args(%[[OFF:.*]] = %c0_i64) -> (i64) {
// CHECK: %[[A1:.*]] = arith.addi %[[OFF]], %c1024_i64 : i64
// CHECK: %[[A2:.*]] = arith.addi %[[A1]], %c1024_i64 : i64
// CHECK: %[[A3:.*]] = arith.addi %[[A2]], %c1024_i64 : i64
// CHECK: %[[A4:.*]] = arith.addi %[[A3]], %c1024_i64 : i64
// CHECK: %[[A5:.*]] = arith.addi %[[A4]], %c1024_i64 : i64
// CHECK: %[[A6:.*]] = arith.addi %[[A5]], %c1024_i64 : i64
// CHECK: %[[A7:.*]] = arith.addi %[[A6]], %c1024_i64 : i64
// CHECK: %[[A8:.*]] = arith.addi %[[A7]], %c1024_i64 : i64
// CHECK-NOT: %c1024_i64
// CHECK: arith.addi %{{.*}}, %[[A8]] : i64
// CHECK: "llvm.intr.prefetch"
func.func @small_tiles_prefetch_further(%base: i64, %tiles: index, %buf: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c0_i64 = arith.constant 0 : i64
  %c4_i64 = arith.constant 4 : i64
  %c1024_i64 = arith.constant 1024 : i64
  %end = scf.for %t = %c0 to %tiles step %c1 iter_args(%off = %c0_i64) -> (i64) {
    scf.for %k = %c0 to %c256 step %c1 {
      %k64 = arith.index_cast %k : index to i64
      %elt = arith.addi %k64, %off : i64
      %bytes = arith.muli %elt, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %q = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %x = llvm.load %q {alignment = 4 : i64} : !llvm.ptr -> f32
      memref.store %x, %buf[%k] : memref<256xf32>
    }
    %next = arith.addi %off, %c1024_i64 : i64
    scf.yield %next : i64
  }
  return
}

// A row read through a load's view (a memref over a descriptor built in the
// loop over rows) prefetches the same element of the next row's view: its
// aligned pointer plus the element's offset, for an iteration the loop makes.
// A later loop reading the same view in the same iteration does not prefetch
// it again.
// CHECK-LABEL: func.func @view_rows_prefetch_the_next_row
// CHECK: scf.for %[[ROW:.*]] = %c0 to %arg1 step %c1
// CHECK: scf.for %[[S:.*]] = %c0 to %c64{{.*}} step %c32
// CHECK: %[[NEXT_ROW:.*]] = arith.addi %[[ROW]], %c8{{.*}} : index
// CHECK: %[[NEXT_DESC:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[1]
// CHECK: %[[BASE:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: "llvm.intr.prefetch"(%[[AT]]) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK: vector.load %{{.*}}[%[[S]]] : memref<64xf32>, vector<32xf32>
// CHECK: scf.for
// CHECK-NOT: llvm.intr.prefetch
// CHECK: vector.load
// CHECK: return
func.func @view_rows_prefetch_the_next_row(%base: i64, %rows: index, %acc: memref<f32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1_i64 = arith.constant 1 : i64
  %c64_i64 = arith.constant 64 : i64
  %c256_i64 = arith.constant 256 : i64
  %zero = llvm.mlir.constant(0 : i64) : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  scf.for %r = %c0 to %rows step %c1 {
    %r64 = arith.index_cast %r : index to i64
    %bytes = arith.muli %r64, %c256_i64 : i64
    %addr = arith.addi %base, %bytes : i64
    %p = llvm.inttoptr %addr : i64 to !llvm.ptr
    %d0 = llvm.insertvalue %p, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d1 = llvm.insertvalue %p, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d2 = llvm.insertvalue %zero, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d3 = llvm.insertvalue %c64_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<64xf32>
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %view[%k] : memref<64xf32>
      %a = memref.load %acc[] : memref<f32>
      %s = arith.addf %a, %x fastmath<reassoc> : f32
      memref.store %s, %acc[] : memref<f32>
    }
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %view[%k] : memref<64xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %out[%k] : memref<64xf32>
    }
  }
  return
}

// The same, with the later loop in versions (spine-defer-store-walks makes
// them: with and without the previous row's stores): neither version
// prefetches the row again.
// CHECK-LABEL: func.func @view_rows_read_again_in_versions
// CHECK: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK: scf.if
// CHECK-NOT: llvm.intr.prefetch
// CHECK: return
func.func @view_rows_read_again_in_versions(%base: i64, %rows: index, %acc: memref<f32>, %out: memref<64xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1_i64 = arith.constant 1 : i64
  %c64_i64 = arith.constant 64 : i64
  %c256_i64 = arith.constant 256 : i64
  %zero = llvm.mlir.constant(0 : i64) : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  scf.for %r = %c0 to %rows step %c1 {
    %r64 = arith.index_cast %r : index to i64
    %bytes = arith.muli %r64, %c256_i64 : i64
    %addr = arith.addi %base, %bytes : i64
    %p = llvm.inttoptr %addr : i64 to !llvm.ptr
    %d0 = llvm.insertvalue %p, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d1 = llvm.insertvalue %p, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d2 = llvm.insertvalue %zero, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d3 = llvm.insertvalue %c64_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<64xf32>
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %view[%k] : memref<64xf32>
      %a = memref.load %acc[] : memref<f32>
      %s = arith.addf %a, %x fastmath<reassoc> : f32
      memref.store %s, %acc[] : memref<f32>
    }
    scf.if %flag {
      scf.for %k = %c0 to %c64 step %c1 {
        %x = memref.load %view[%k] : memref<64xf32>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %out[%k] : memref<64xf32>
      }
    } else {
      scf.for %k = %c0 to %c64 step %c1 {
        %x = memref.load %view[%k] : memref<64xf32>
        memref.store %x, %out[%k] : memref<64xf32>
      }
    }
  }
  return
}

// A row's sum inside a loop over rows: a strip of the reduction is four
// registers of 8 floats, 128 bytes, and prefetches both of its lines of a
// later row: the 8th after it, as rows of 256 bytes take 8 to cover the
// 4 KiB the prefetches look ahead (at most 8 iterations).
// CHECK-LABEL: func.func @wide_strips_prefetch_every_line
// CHECK: scf.for %[[ROW:.*]] = %c0 to %arg1 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c64{{.*}} step %c32
// CHECK: %[[AHEAD_ROW:.*]] = arith.addi %[[ROW]], %c8{{.*}} : index
// CHECK: arith.index_cast %[[AHEAD_ROW]]
// CHECK: "llvm.intr.prefetch"(%[[AHEAD:.*]]) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK-NEXT: %[[LINE2:.*]] = llvm.getelementptr %[[AHEAD]][64] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: "llvm.intr.prefetch"(%[[LINE2]]) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}
// CHECK-NOT: llvm.intr.prefetch
// CHECK: llvm.load %{{.*}} -> vector<32xf32>
func.func @wide_strips_prefetch_every_line(%base: i64, %rows: index, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4_i64 = arith.constant 4 : i64
  %c64_i64 = arith.constant 64 : i64
  scf.for %r = %c0 to %rows step %c1 {
    %r64 = arith.index_cast %r : index to i64
    %row = arith.muli %r64, %c64_i64 : i64
    scf.for %k = %c0 to %c64 step %c1 {
      %k64 = arith.index_cast %k : index to i64
      %elt = arith.addi %k64, %row : i64
      %bytes = arith.muli %elt, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %q = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %x = llvm.load %q {alignment = 4 : i64} : !llvm.ptr -> f32
      %a = memref.load %acc[] : memref<f32>
      %s = arith.addf %a, %x fastmath<reassoc> : f32
      memref.store %s, %acc[] : memref<f32>
    }
  }
  return
}

// The same tile load copying a tile for a matmul micro-kernel that follows
// (spine.micro_kernel_rows): one version, the check in each strip.
// spine-schedule-tile-prefetches moves the copy's prefetches into the
// micro-kernel with what they depend on, which would include the check.
// CHECK-LABEL: func.func @tile_copy_before_micro_kernel
// CHECK: %[[NOWRAP:.*]] = arith.cmpi eq, %{{.*}}, %c124_i64 : i64
// CHECK-NOT: scf.if %[[NOWRAP]] {
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.if %[[NOWRAP]] -> (vector<8xf32>)
// CHECK: spine.micro_kernel_rows
func.func @tile_copy_before_micro_kernel(%base: i64, %stride: i32, %buf: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c4_i64 = arith.constant 4 : i64
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %k = %c0 to %c32 step %c1 {
      %i32 = arith.index_cast %i : index to i32
      %k32 = arith.index_cast %k : index to i32
      %start = arith.muli %i32, %stride : i32
      %elt = arith.addi %start, %k32 : i32
      %elt64 = arith.extsi %elt : i32 to i64
      %bytes = arith.muli %elt64, %c4_i64 : i64
      %p = llvm.inttoptr %base : i64 to !llvm.ptr
      %q = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %x = llvm.load %q {alignment = 4 : i64} : !llvm.ptr -> f32
      memref.store %x, %buf[%i, %k] : memref<16x32xf32>
    }
  }
  scf.for %r = %c0 to %c16 step %c1 {
  } {spine.micro_kernel_rows}
  return
}
