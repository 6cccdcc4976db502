// RUN: spine-triton-opt --split-input-file --pass-pipeline='builtin.module(func.func(spine-fuse-element-loops))' %s | FileCheck %s

// Softmax's row after convert-linalg-to-loops: the row's copy (two versions
// of a tl.load), its maximum, the exponentials and their sum. The maximum
// merges into both versions of the copy (its seed moves above them), the sum
// into the exponentials' loop, each reading the value just computed instead
// of the buffer. The exponentials cannot join the maximum's loop: they read
// the maximum, which the load between the loops takes after the whole loop.
// CHECK-LABEL: func.func @softmax_row
// CHECK: memref.store %{{.*}}, %[[ACC:.*]][] : memref<f32>
// CHECK-NEXT: scf.if
// CHECK-NEXT: scf.for %[[I:.*]] =
// CHECK: %[[X:.*]] = llvm.load
// CHECK-NEXT: memref.store %[[X]], %[[ROW:.*]][%[[I]]]
// CHECK-NEXT: %[[M:.*]] = memref.load %[[ACC]][]
// CHECK-NEXT: arith.maxnumf %[[M]], %[[X]]
// CHECK: } else {
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK: %[[Y:.*]] = scf.if
// CHECK: memref.store %[[Y]], %[[ROW]][%[[J]]]
// CHECK-NEXT: memref.load %[[ACC]][]
// CHECK-NEXT: arith.maxnumf %{{.*}}, %[[Y]]
// CHECK: %[[MAX:.*]] = memref.load %[[ACC]][]
// CHECK: scf.for %[[K:.*]] =
// CHECK-NEXT: memref.load %[[ROW]][%[[K]]]
// CHECK-NEXT: arith.subf %{{.*}}, %[[MAX]]
// CHECK-NEXT: %[[E:.*]] = math.exp
// CHECK-NEXT: memref.store %[[E]], %[[EXP:.*]][%[[K]]]
// CHECK-NEXT: %[[S:.*]] = memref.load %[[ACC]][]
// CHECK-NEXT: arith.addf %[[S]], %[[E]]
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: memref.load %[[ACC]][]
// CHECK-NEXT: memref.load %[[EXP]][%c0]
// CHECK-NOT: scf.for
// CHECK: return
func.func @softmax_row(%src: i64, %n: i32) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4 = arith.constant 4 : i64
  %c63 = arith.constant 63 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %nzero = arith.constant -0.0 : f32
  %row = memref.alloca() : memref<64xf32>
  %exp_out = memref.alloca() : memref<64xf32>
  %acc = memref.alloca() : memref<f32>
  %whole = arith.cmpi sgt, %n, %c63 : i32
  scf.if %whole {
    scf.for %i = %c0 to %c64 step %c1 {
      %i32 = arith.index_cast %i : index to i32
      %i64 = arith.extsi %i32 : i32 to i64
      %off = arith.muli %i64, %c4 : i64
      %base = llvm.inttoptr %src : i64 to !llvm.ptr
      %p = llvm.getelementptr %base[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
      %x = llvm.load %p : !llvm.ptr -> f32
      memref.store %x, %row[%i] : memref<64xf32>
    }
  } else {
    scf.for %i = %c0 to %c64 step %c1 {
      %i32 = arith.index_cast %i : index to i32
      %in = arith.cmpi slt, %i32, %n : i32
      %i64 = arith.extsi %i32 : i32 to i64
      %off = arith.muli %i64, %c4 : i64
      %x = scf.if %in -> (f32) {
        %base = llvm.inttoptr %src : i64 to !llvm.ptr
        %p = llvm.getelementptr %base[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        %v = llvm.load %p : !llvm.ptr -> f32
        scf.yield %v : f32
      } else {
        scf.yield %ninf : f32
      }
      memref.store %x, %row[%i] : memref<64xf32>
    }
  }
  memref.store %nan, %acc[] : memref<f32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %row[%i] : memref<64xf32>
    %m = memref.load %acc[] : memref<f32>
    %r = arith.maxnumf %m, %x fastmath<reassoc> : f32
    memref.store %r, %acc[] : memref<f32>
  }
  %max = memref.load %acc[] : memref<f32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %row[%i] : memref<64xf32>
    %d = arith.subf %x, %max : f32
    %e = math.exp %d : f32
    memref.store %e, %exp_out[%i] : memref<64xf32>
  }
  memref.store %nzero, %acc[] : memref<f32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %exp_out[%i] : memref<64xf32>
    %s = memref.load %acc[] : memref<f32>
    %r = arith.addf %s, %x fastmath<reassoc> : f32
    memref.store %r, %acc[] : memref<f32>
  }
  %sum = memref.load %acc[] : memref<f32>
  %e0 = memref.load %exp_out[%c0] : memref<64xf32>
  return %sum, %e0 : f32, f32
}

// -----

// A tile buffer whose only reader was merged away is no longer written.
// CHECK-LABEL: func.func @unread_buffer
// CHECK-NOT: memref.alloca() : memref<64xf32>
// CHECK: scf.for
// CHECK-NOT: memref.store {{.*}}[%
// CHECK: arith.addf
// CHECK: memref.store {{.*}}[] : memref<f32>
// CHECK-NOT: scf.for
func.func @unread_buffer(%in: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant -0.0 : f32
  %tmp = memref.alloca() : memref<64xf32>
  %acc = memref.alloca() : memref<f32>
  memref.store %zero, %acc[] : memref<f32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %tmp[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %tmp[%i] : memref<64xf32>
    %s = memref.load %acc[] : memref<f32>
    %r = arith.addf %s, %x fastmath<reassoc> : f32
    memref.store %r, %acc[] : memref<f32>
  }
  %sum = memref.load %acc[] : memref<f32>
  return %sum : f32
}

// -----

// Refused: the second loop reads a neighbouring element (written by a later
// iteration of the first), the loops have other bounds, or the first writes
// the element the second reads at a fixed index.
// CHECK-LABEL: func.func @not_the_same_element
// CHECK-COUNT-6: scf.for
func.func @not_the_same_element(%in: memref<64xf32>, %out: memref<64xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %tmp = memref.alloca() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    memref.store %x, %tmp[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c63 step %c1 {
    %j = arith.addi %i, %c1 : index
    %x = memref.load %tmp[%j] : memref<64xf32>
    memref.store %x, %out[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c63 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    memref.store %x, %tmp[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %tmp[%i] : memref<64xf32>
    memref.store %x, %out[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %tmp[%i] : memref<64xf32>
    memref.store %x, %tmp[%c0] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %tmp[%i] : memref<64xf32>
    memref.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// -----

// Refused: memory reached through pointers may be the same: a loop storing
// through one does not merge with a loop loading through another, even with
// a tile buffer passing values between them.
// CHECK-LABEL: func.func @pointers_may_alias
// CHECK-COUNT-2: scf.for
func.func @pointers_may_alias(%a: !llvm.ptr, %b: !llvm.ptr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %tmp = memref.alloca() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %i64 = arith.index_cast %i : index to i64
    %p = llvm.getelementptr %a[%i64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %p : !llvm.ptr -> f32
    memref.store %x, %tmp[%i] : memref<64xf32>
    llvm.store %x, %p : f32, !llvm.ptr
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %i64 = arith.index_cast %i : index to i64
    %q = llvm.getelementptr %b[%i64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %y = llvm.load %q : !llvm.ptr -> f32
    %x = memref.load %tmp[%i] : memref<64xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %tmp[%i] : memref<64xf32>
  }
  return
}

// -----

// An op between the loops that the second uses and that reads what the
// first writes keeps them apart; one that only the code after them uses
// moves below.
// CHECK-LABEL: func.func @ops_between
// CHECK: scf.for
// CHECK: %[[FIRST:.*]] = memref.load %{{.*}}[%c0]
// CHECK: scf.for
// CHECK: arith.subf %{{.*}}, %[[FIRST]]
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK-NOT: scf.for
// CHECK: memref.load %{{.*}}[%c5]
// CHECK: return
func.func @ops_between(%in: memref<64xf32>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %tmp = memref.alloca() : memref<64xf32>
  %out = memref.alloca() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    memref.store %x, %tmp[%i] : memref<64xf32>
  }
  %first = memref.load %tmp[%c0] : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %tmp[%i] : memref<64xf32>
    %y = arith.subf %x, %first : f32
    memref.store %y, %out[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    memref.store %x, %tmp[%i] : memref<64xf32>
  }
  %fifth = memref.load %tmp[%c5] : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %tmp[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %out[%i] : memref<64xf32>
  }
  %o = memref.load %out[%c5] : memref<64xf32>
  return %fifth, %o : f32, f32
}

// -----

// A reduction's seed made between the loops (a stack buffer filled with the
// neutral element, copied into the accumulator: bufferization's form of one
// linalg.fill shared by two reductions) moves above the first loop, and the
// sum merges into the loop computing its operands; the block between them is
// no longer written.
// CHECK-LABEL: func.func @seed_between
// CHECK: %[[SEED:.*]] = memref.alloca() {{.*}}: memref<f32>
// CHECK-NEXT: memref.store %{{.*}}, %[[SEED]][]
// CHECK-NEXT: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// CHECK-NEXT: memref.copy %[[SEED]], %[[ACC]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<64xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[X]]
// CHECK-NEXT: %[[S:.*]] = memref.load %[[ACC]][]
// CHECK-NEXT: arith.addf %[[S]], %[[Y]]
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][]
// CHECK-NEXT: }
// CHECK-NOT: scf.for
// CHECK: return
func.func @seed_between(%in: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %nzero = arith.constant -0.0 : f32
  %block = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    %y = arith.addf %x, %zero : f32
    memref.store %y, %block[%i] : memref<64xf32>
  }
  %seed = memref.alloca() {alignment = 64 : i64} : memref<f32>
  memref.store %nzero, %seed[] : memref<f32>
  %acc = memref.alloca() {alignment = 64 : i64} : memref<f32>
  memref.copy %seed, %acc : memref<f32> to memref<f32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %block[%i] : memref<64xf32>
    %s = memref.load %acc[] : memref<f32>
    %t = arith.addf %s, %x fastmath<reassoc> : f32
    memref.store %t, %acc[] : memref<f32>
  }
  %r = memref.load %acc[] : memref<f32>
  return %r : f32
}

// -----

// A copy between the loops that reads the block the first writes and writes
// a buffer the second reads can move neither above nor below: the loops stay
// apart, and nothing between them moves.
// CHECK-LABEL: func.func @copy_between
// CHECK: scf.for
// CHECK: memref.copy %[[BLOCK:.*]], %arg1 :
// CHECK-NEXT: memref.copy %[[BLOCK]], %[[SNAPSHOT:.*]] :
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[SNAPSHOT]]
func.func @copy_between(%in: memref<64xf32>, %out: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %block = memref.alloca() : memref<64xf32>
  %snapshot = memref.alloca() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %in[%i] : memref<64xf32>
    memref.store %x, %block[%i] : memref<64xf32>
  }
  %acc = memref.alloca() : memref<f32>
  memref.copy %block, %out : memref<64xf32> to memref<64xf32>
  memref.copy %block, %snapshot : memref<64xf32> to memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %block[%i] : memref<64xf32>
    %y = memref.load %snapshot[%c63] : memref<64xf32>
    %s = memref.load %acc[] : memref<f32>
    %t = arith.addf %s, %x : f32
    %u = arith.addf %t, %y : f32
    memref.store %u, %acc[] : memref<f32>
  }
  %r = memref.load %acc[] : memref<f32>
  return %r : f32
}
