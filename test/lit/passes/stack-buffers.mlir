// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-stack-buffers{max-buffer-bytes=4096 max-total-bytes=6144}))' %s | FileCheck %s

// A tile buffer inside a loop, used only by loads, stores and linalg ops,
// and one outside any loop move to the top of the entry block: stack
// allocations made once per call.
// CHECK-LABEL: func.func @local_tiles
// CHECK-NEXT: %[[ACC:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NEXT: %[[TILE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x16xf32>
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
// updated in place) goes on the stack. Left on the heap: a buffer larger
// than max-buffer-bytes, one beyond the function's budget (4 KiB + 4 KiB >
// 6 KiB), a dynamically sized one and one returned.
// CHECK-LABEL: func.func @heap_buffers
// CHECK-NEXT: memref.alloca() {{.*}} : memref<4xf32>
// CHECK-NEXT: %[[FIRST:.*]] = memref.alloca() : memref<1024xf32>
// CHECK-NOT: memref.alloca
// CHECK: memref.alloc() : memref<2048xf32>
// CHECK: memref.alloc() : memref<1024xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: scf.for
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
    linalg.fill ins(%cst : f32) outs(%acc : memref<4xf32>)
    scf.yield %acc : memref<4xf32>
  }
  %ret = memref.alloc() : memref<8xf32>
  return %ret : memref<8xf32>
}

// A new buffer per iteration, read by the next one and dropped there (a
// running maximum the step reads after computing the new one): two stack
// slots in turns, each iteration writing the one the value carried into it
// is not in (the first iteration's, the loop's initial value, is in
// neither). Left on the heap: a buffer whose predecessor is carried on
// further (yielded again as %older, so the slot would be overwritten while
// still read) and one whose loop result is returned.
// CHECK-LABEL: func.func @carried_buffers
// CHECK-NEXT: %[[ONE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT: %[[OTHER:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NOT: memref.alloca
// CHECK: scf.for {{.*}} iter_args(%[[PREV:.*]] = %arg1)
// CHECK-NEXT: %[[PREV_AT:.*]] = memref.extract_aligned_pointer_as_index %[[PREV]]
// CHECK-NEXT: %[[ONE_AT:.*]] = memref.extract_aligned_pointer_as_index %[[ONE]]
// CHECK-NEXT: %[[IN_ONE:.*]] = arith.cmpi eq, %[[PREV_AT]], %[[ONE_AT]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.select %[[IN_ONE]], %[[OTHER]], %[[ONE]]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[PREV]] : memref<4xf32>) outs(%[[NEXT]] : memref<4xf32>)
// CHECK: scf.yield %[[NEXT]]
// CHECK: memref.copy %{{.*}}, %arg2
// CHECK: scf.for
// CHECK-NEXT: memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: scf.for
// CHECK-NEXT: memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: return
func.func @carried_buffers(%n: index, %init: memref<4xf32>, %out: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %init) -> (memref<4xf32>) {
    %next = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%prev : memref<4xf32>) outs(%next : memref<4xf32>) {
    ^bb0(%in: f32, %o: f32):
      %twice = arith.addf %in, %in : f32
      linalg.yield %twice : f32
    }
    memref.copy %next, %prev : memref<4xf32> to memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  memref.copy %m, %out : memref<4xf32> to memref<4xf32>
  %kept:2 = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %init, %older = %init) -> (memref<4xf32>, memref<4xf32>) {
    %next = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    memref.copy %prev, %next : memref<4xf32> to memref<4xf32>
    scf.yield %next, %prev : memref<4xf32>, memref<4xf32>
  }
  memref.copy %kept#1, %out : memref<4xf32> to memref<4xf32>
  %returned = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %init) -> (memref<4xf32>) {
    %next = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    memref.copy %prev, %next : memref<4xf32> to memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  return %returned : memref<4xf32>
}

// A buffer a branch yields (a peeled first iteration's block) is live only
// until the block around the branch runs again, so it goes on the stack,
// in a loop too. The two branches' buffers do not share one allocation
// there: a later iteration's branch may run the other. Yielded on out of
// that loop a buffer stays on the heap.
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

// Versions of a kernel (branches on the launch's sizes) each allocate their
// own tiles, and one runs: the versions' 4 KiB tiles of one type (%a, %e)
// share one slot, and a tile of another type (%h, 2 KiB) gets its own. Two
// tiles of the same branch (%e and %d) cannot share: a slot for %d would
// pass the budget (6 KiB), so it stays on the heap.
// CHECK-LABEL: func.func @versions
// CHECK-NEXT: %[[SLOT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1024xf32>
// CHECK-NEXT: %[[HALF:.*]] = memref.alloca() : memref<512xf32>
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[SLOT]] :
// CHECK: } else {
// CHECK-NEXT: %[[D:.*]] = memref.alloc() : memref<1024xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[D]] :
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[HALF]] :
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[SLOT]] :
func.func @versions(%c: i1, %n: index, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.if %c {
    scf.for %i = %c0 to %n step %c1 {
      %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
      linalg.fill ins(%cst : f32) outs(%a : memref<1024xf32>)
      memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
    }
  } else {
    %e = memref.alloc() : memref<1024xf32>
    %d = memref.alloc() : memref<1024xf32>
    linalg.fill ins(%cst : f32) outs(%d : memref<1024xf32>)
    %h = memref.alloc() : memref<512xf32>
    linalg.fill ins(%cst : f32) outs(%h : memref<512xf32>)
    linalg.fill ins(%cst : f32) outs(%e : memref<1024xf32>)
    memref.copy %d, %out : memref<1024xf32> to memref<1024xf32>
    memref.copy %e, %out : memref<1024xf32> to memref<1024xf32>
  }
  return
}

// The cases of an scf.index_switch are alternatives as well. Tiles in
// blocks that both run (%p, then the switch's) do not share, even where
// their types match.
// CHECK-LABEL: func.func @switch_cases
// CHECK-NEXT: %[[P:.*]] = memref.alloca() : memref<512xf32>
// CHECK-NEXT: %[[CASES:.*]] = memref.alloca() : memref<1024xf32>
// CHECK-NOT: memref.alloc
// CHECK: case 0 {
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[CASES]] :
// CHECK: default {
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[CASES]] :
func.func @switch_cases(%k: index, %out: memref<1024xf32>) {
  %cst = arith.constant 1.0 : f32
  %p = memref.alloc() : memref<512xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<512xf32>)
  scf.index_switch %k
  case 0 {
    %f = memref.alloc() : memref<1024xf32>
    linalg.fill ins(%cst : f32) outs(%f : memref<1024xf32>)
    memref.copy %f, %out : memref<1024xf32> to memref<1024xf32>
    scf.yield
  }
  default {
    %g = memref.alloc() : memref<1024xf32>
    linalg.fill ins(%cst : f32) outs(%g : memref<1024xf32>)
    memref.copy %g, %out : memref<1024xf32> to memref<1024xf32>
  }
  return
}
