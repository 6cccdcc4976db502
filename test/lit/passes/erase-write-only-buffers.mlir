// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-erase-write-only-buffers))' %s | FileCheck %s

// A tile only its fused reduction consumed: the strips add their registers
// and still store them into a heap buffer freed unread. The buffer, its
// stores and its deallocation go; the sum stays.
// CHECK-LABEL: func.func @fused_reduction_tile
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK-NOT: vector.store
// CHECK: arith.addf
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @fused_reduction_tile(%x: memref<1024xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %tile = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  %sum = scf.for %i = %c0 to %c1024 step %c16 iter_args(%acc = %zero) -> (vector<16xf32>) {
    %v = vector.load %x[%i] : memref<1024xf32>, vector<16xf32>
    %sq = arith.mulf %v, %v : vector<16xf32>
    vector.store %sq, %tile[%i] : memref<1024xf32>, vector<16xf32>
    %next = arith.addf %acc, %sq : vector<16xf32>
    scf.yield %next : vector<16xf32>
  }
  memref.dealloc %tile : memref<1024xf32>
  return %sum : vector<16xf32>
}

// Stack buffers, scalar and masked stores, and stores through a view are
// writes too.
// CHECK-LABEL: func.func @writes_of_every_kind
// CHECK-NOT: memref.alloca
// CHECK-NOT: memref.subview
// CHECK-NOT: store
// CHECK: return
func.func @writes_of_every_kind(%v: vector<16xf32>, %m: vector<16xi1>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %buf = memref.alloca() : memref<64xf32>
  memref.store %f, %buf[%c0] : memref<64xf32>
  vector.maskedstore %buf[%c16], %m, %v : memref<64xf32>, vector<16xi1>, vector<16xf32>
  %view = memref.subview %buf[32] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: 32>>
  vector.transfer_write %v, %view[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1], offset: 32>>
  return
}

// A buffer something reads, directly or through a view, copies out, or
// hands to a call, stays with its stores.
// CHECK-LABEL: func.func @read_buffers_stay
// CHECK-COUNT-4: memref.alloc
// CHECK-COUNT-4: vector.store
// CHECK: vector.load
// CHECK: memref.load
// CHECK: memref.copy
// CHECK: call @consume
func.func private @consume(memref<64xf32>)
func.func @read_buffers_stay(%v: vector<16xf32>, %out: memref<64xf32>) -> (vector<16xf32>, f32) {
  %c0 = arith.constant 0 : index
  %read = memref.alloc() : memref<64xf32>
  %viewed = memref.alloc() : memref<64xf32>
  %copied = memref.alloc() : memref<64xf32>
  %passed = memref.alloc() : memref<64xf32>
  vector.store %v, %read[%c0] : memref<64xf32>, vector<16xf32>
  vector.store %v, %viewed[%c0] : memref<64xf32>, vector<16xf32>
  vector.store %v, %copied[%c0] : memref<64xf32>, vector<16xf32>
  vector.store %v, %passed[%c0] : memref<64xf32>, vector<16xf32>
  %r = vector.load %read[%c0] : memref<64xf32>, vector<16xf32>
  %view = memref.subview %viewed[8] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: 8>>
  %s = memref.load %view[%c0] : memref<8xf32, strided<[1], offset: 8>>
  memref.copy %copied, %out : memref<64xf32> to memref<64xf32>
  call @consume(%passed) : (memref<64xf32>) -> ()
  return %r, %s : vector<16xf32>, f32
}

// A stack slot two versions share (spine-stack-buffers): the first only
// writes its tile, the second reads what it wrote. The first version's
// store is dead, as no read runs in the call that runs it; the second
// keeps its store and load.
// CHECK-LABEL: func.func @versions_sharing_a_slot
// CHECK: memref.alloca
// CHECK: scf.if
// CHECK-NOT: vector.store
// CHECK: } else {
// CHECK-NEXT: vector.store
// CHECK-NEXT: vector.load
func.func @versions_sharing_a_slot(%c: i1, %v: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %slot = memref.alloca() : memref<64xf32>
  %r = scf.if %c -> (vector<16xf32>) {
    vector.store %v, %slot[%c0] : memref<64xf32>, vector<16xf32>
    scf.yield %v : vector<16xf32>
  } else {
    vector.store %v, %slot[%c0] : memref<64xf32>, vector<16xf32>
    %l = vector.load %slot[%c0] : memref<64xf32>, vector<16xf32>
    scf.yield %l : vector<16xf32>
  }
  return %r : vector<16xf32>
}

// Inside a loop a later iteration may run the other branch and read what
// this one stored: both stores stay.
// CHECK-LABEL: func.func @branches_in_a_loop
// CHECK: scf.if
// CHECK-NEXT: vector.store
// CHECK: } else {
// CHECK-NEXT: vector.load
func.func @branches_in_a_loop(%c: i1, %n: index, %v: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %slot = memref.alloca() : memref<64xf32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %v) -> (vector<16xf32>) {
    %t = scf.if %c -> (vector<16xf32>) {
      vector.store %acc, %slot[%c0] : memref<64xf32>, vector<16xf32>
      scf.yield %acc : vector<16xf32>
    } else {
      %l = vector.load %slot[%c0] : memref<64xf32>, vector<16xf32>
      scf.yield %l : vector<16xf32>
    }
    scf.yield %t : vector<16xf32>
  }
  return %s : vector<16xf32>
}
