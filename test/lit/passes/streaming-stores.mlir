// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256 streaming-store-bytes=33554432 line-strips=1}))' %s | FileCheck %s
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256}))' %s | FileCheck %s --check-prefix=OFF
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=512 vector-registers=32 streaming-store-bytes=33554432 line-strips=1}))' %s | FileCheck %s --check-prefix=WIDE
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=512 vector-registers=16 streaming-store-bytes=33554432 line-strips=1}))' %s | FileCheck %s --check-prefix=FEW

// OFF-NOT: nontemporal
// OFF-NOT: arith.cmpf oge

// A persistent program storing one row per iteration of its loop over rows
// (softmax's store). Before the element loop, the bytes its accesses touch
// over the launch: 64 iterations x (4 bytes loaded + 4 stored), times the
// number of programs on each axis (the trailing arguments), times the trips
// of the loop over rows; compared with the threshold (2^25 bytes). Whole strips
// store non-temporally when that holds and their address is 32-byte aligned;
// partial strips keep masked stores, and the write prefetch of the next row
// runs only when the loop does not stream. A strip spans a 64-byte line (16
// floats, two 256-bit registers), so that prefetch needs no test of the
// strip's place in its line.
// CHECK-LABEL: func.func @row_store_in_persistent_loop
// CHECK: scf.for %[[ROW:.*]] = %arg3 to %arg2 step %arg4
// CHECK: %[[LOOP_BYTES:.*]] = arith.constant 5.120000e+02 : f64
// CHECK: %[[NUM_X:.*]] = arith.uitofp %arg9 : i32 to f64
// CHECK: arith.mulf %[[LOOP_BYTES]], %[[NUM_X]] : f64
// CHECK: arith.uitofp %arg10
// CHECK: arith.uitofp %arg11
// CHECK: %[[SPAN:.*]] = arith.subi %arg2, %arg3 : index
// CHECK: %[[PER_PROGRAM:.*]] = arith.ceildivsi %[[SPAN]], %arg4 : index
// CHECK: arith.maxsi %[[PER_PROGRAM]]
// CHECK: %[[TOTAL:.*]] = arith.mulf
// CHECK: %[[LIMIT:.*]] = arith.constant 0x4180000000000000 : f64
// CHECK: %[[STREAM:.*]] = arith.cmpf oge, %[[TOTAL]], %[[LIMIT]] : f64
// Each register's store is 32-byte aligned when the row's first address is:
// decided once, before the strips.
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
// CHECK: %[[LOW:.*]] = arith.andi %[[ADDR]], %c31_i64 : i64
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %c0_i64 : i64
// CHECK: scf.for %{{.*}} = %c0 to %c64{{.*}} step %c16 {
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : index
// CHECK-NOT: arith.remui
// CHECK: %[[NOT_STREAM:.*]] = arith.xori %[[STREAM]], %true
// CHECK-NEXT: %[[WHEN:.*]] = arith.andi %[[EXISTS]], %[[NOT_STREAM]] : i1
// CHECK-NEXT: scf.if %[[WHEN]] {
// CHECK-NEXT: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 1 : i32}>
// CHECK: %[[ALLON:.*]] = vector.reduction <and>
// CHECK: scf.if %[[ALLON]] {
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[STREAM]], %[[ALIGNED]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK: llvm.store %{{.*}}, %[[PTR:.*]] {alignment = 32 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
// CHECK: } else {
// CHECK: llvm.store %{{.*}}, %[[PTR]] {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// CHECK: } else {
// CHECK: llvm.intr.masked.store
// With 32 registers of 512 bits a strip of a loop that does not reduce spans
// four of them (64 floats, four lines), as a reducing loop's does: one write
// prefetch per line, the strip's stores whole vectors of 64 floats. With 16
// such registers it stays one line (a heavier chain would spill).
// FEW-LABEL: func.func @row_store_in_persistent_loop
// FEW: scf.for %{{.*}} = %c0 to %c64{{.*}} step %c16{{.*}} {
// FEW: llvm.store %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
// WIDE-LABEL: func.func @row_store_in_persistent_loop
// WIDE: scf.for %{{.*}} = %c0 to %c64{{.*}} step %c64{{.*}} {
// WIDE: scf.if
// WIDE-NEXT: "llvm.intr.prefetch"(%[[LINE:.*]]) <{cache = 1 : i32, hint = 3 : i32, rw = 1 : i32}>
// WIDE-NEXT: llvm.getelementptr %[[LINE]][64]
// WIDE-NEXT: "llvm.intr.prefetch"
// WIDE-NEXT: llvm.getelementptr %[[LINE]][128]
// WIDE-NEXT: "llvm.intr.prefetch"
// WIDE-NEXT: llvm.getelementptr %[[LINE]][192]
// WIDE-NEXT: "llvm.intr.prefetch"
// WIDE-NEXT: {{^ *}}}
// WIDE: llvm.store %{{.*}} {alignment = 64 : i64, nontemporal} : vector<64xf32>, !llvm.ptr
func.func @row_store_in_persistent_loop(%base: i64, %n: i32, %rows: index,
                                        %first: index, %step: index,
                                        %buf: memref<64xf32>, %pid_x: i32,
                                        %pid_y: i32, %pid_z: i32, %num_x: i32,
                                        %num_y: i32, %num_z: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4_i64 = arith.constant 4 : i64
  %c256_i64 = arith.constant 256 : i64
  scf.for %row = %first to %rows step %step {
    %row64 = arith.index_cast %row : index to i64
    %row_bytes = arith.muli %row64, %c256_i64 : i64
    scf.for %j = %c0 to %c64 step %c1 {
      %j32 = arith.index_cast %j : index to i32
      %in = arith.cmpi slt, %j32, %n : i32
      %v = memref.load %buf[%j] : memref<64xf32>
      scf.if %in {
        %j64 = arith.extsi %j32 : i32 to i64
        %bytes = arith.muli %j64, %c4_i64 : i64
        %at = arith.addi %row_bytes, %bytes : i64
        %p = llvm.inttoptr %base : i64 to !llvm.ptr
        %q = llvm.getelementptr %p[%at] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        llvm.store %v, %q {alignment = 4 : i64} : f32, !llvm.ptr
      }
    }
  }
  return
}

// The same store in a kernel that also updates a counter atomically: other
// programs may read what it stored once they see the counter, and x86
// orders streaming stores only after a fence. Plain stores.
// CHECK-LABEL: func.func @kernel_with_atomic
// CHECK-NOT: nontemporal
// CHECK: return
func.func @kernel_with_atomic(%base: i64, %counter: !llvm.ptr,
                              %buf: memref<64xf32>, %pid_x: i32, %pid_y: i32,
                              %pid_z: i32, %num_x: i32, %num_y: i32,
                              %num_z: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4_i64 = arith.constant 4 : i64
  %one = arith.constant 1 : i32
  scf.for %j = %c0 to %c64 step %c1 {
    %j64 = arith.index_cast %j : index to i64
    %v = memref.load %buf[%j] : memref<64xf32>
    %bytes = arith.muli %j64, %c4_i64 : i64
    %p = llvm.inttoptr %base : i64 to !llvm.ptr
    %q = llvm.getelementptr %p[%bytes] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    llvm.store %v, %q {alignment = 4 : i64} : f32, !llvm.ptr
  }
  %old = llvm.atomicrmw add %counter, %one acq_rel : !llvm.ptr, i32
  return
}
