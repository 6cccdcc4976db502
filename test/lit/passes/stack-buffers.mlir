// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-stack-buffers{max-buffer-bytes=4096 max-total-bytes=6144}))' %s | FileCheck %s

// A tile buffer inside a loop, used only by loads, stores and linalg ops,
// moves to the top of the entry block; one outside any loop stays where it
// is. Both are stack allocations then, made once per call.
// CHECK-LABEL: func.func @local_tiles
// CHECK-NEXT: %[[TILE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x16xf32>
// CHECK: %[[ACC:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloc(
// CHECK: linalg.fill {{.*}} outs(%[[TILE]]
// CHECK-NOT: memref.alloc(
// CHECK: return
func.func @local_tiles(%n: index, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  %acc = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%acc : memref<16xf32>)
  scf.for %i = %c0 to %n step %c1 {
    %tile = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
    linalg.fill ins(%cst : f32) outs(%tile : memref<16x16xf32>)
    %row = memref.subview %tile[0, 0] [1, 16] [1, 1] : memref<16x16xf32> to memref<16xf32, strided<[1]>>
    memref.copy %row, %out : memref<16xf32, strided<[1]>> to memref<16xf32>
  }
  memref.copy %acc, %out : memref<16xf32> to memref<16xf32>
  return
}

// A buffer carried by a loop it is allocated outside of (an accumulator
// updated in place) goes on the stack. Left on the heap: the new buffer each
// iteration yields (the next iteration still reads the previous one), a
// buffer larger than max-buffer-bytes, one beyond the function's budget
// (4 KiB + 4 KiB > 6 KiB), a dynamically sized one and one returned.
// CHECK-LABEL: func.func @heap_buffers
// CHECK: memref.alloca() {{.*}} : memref<4xf32>
// CHECK: memref.alloc() : memref<2048xf32>
// CHECK: memref.alloca() : memref<1024xf32>
// CHECK: memref.alloc() : memref<1024xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: scf.for
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: scf.yield
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: return
func.func @heap_buffers(%n: index) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %init = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %big = memref.alloc() : memref<2048xf32>
  %first = memref.alloc() : memref<1024xf32>
  %second = memref.alloc() : memref<1024xf32>
  %dyn = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%big : memref<2048xf32>)
  linalg.fill ins(%cst : f32) outs(%first : memref<1024xf32>)
  linalg.fill ins(%cst : f32) outs(%second : memref<1024xf32>)
  linalg.fill ins(%cst : f32) outs(%dyn : memref<?xf32>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<4xf32>) {
    %next = memref.alloc() : memref<4xf32>
    memref.copy %acc, %next : memref<4xf32> to memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  %ret = memref.alloc() : memref<8xf32>
  return %ret : memref<8xf32>
}

// A buffer a branch yields (a peeled first iteration's block) is live only
// until the block around the branch runs again, so it goes on the stack,
// in a loop too. Yielded on out of that loop it stays on the heap.
// CHECK-LABEL: func.func @branch_results
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<8xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<8xf32>
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[A:alloca[_0-9]*]] :
// CHECK-NEXT: scf.yield %[[A]]
// CHECK: } else {
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[B:alloca[_0-9]*]] :
// CHECK-NEXT: scf.yield %[[B]]
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NEXT: memref.alloc() {alignment = 64 : i64} : memref<8xf32>
func.func @branch_results(%n: index, %c: i1, %out: memref<8xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %r = scf.if %c -> (memref<8xf32>) {
      %a = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
      linalg.fill ins(%one : f32) outs(%a : memref<8xf32>)
      scf.yield %a : memref<8xf32>
    } else {
      %b = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
      linalg.fill ins(%two : f32) outs(%b : memref<8xf32>)
      scf.yield %b : memref<8xf32>
    }
    memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  }
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %out) -> (memref<8xf32>) {
    %r = scf.if %c -> (memref<8xf32>) {
      %a = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
      linalg.fill ins(%one : f32) outs(%a : memref<8xf32>)
      scf.yield %a : memref<8xf32>
    } else {
      scf.yield %prev : memref<8xf32>
    }
    scf.yield %r : memref<8xf32>
  }
  return %last : memref<8xf32>
}
