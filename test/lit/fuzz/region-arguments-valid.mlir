// The forward-reference guard (cpp/parser/ParserGuards.h) lets the argument list that custom
// printers put on a line of its own before a region through: `(%in: i32, %init: i32) {` of a
// multi-operand linalg.reduce (every tl.argmax/tl.argmin) defines the region's arguments, so a
// later `^bb0(%in: ...)` elsewhere is no forward reference. It used to be rejected.
// RUN: %python %S/../helpers/run_stage.py %s | FileCheck %s
// RUN: spine-triton-opt %s | FileCheck %s

// CHECK-LABEL: func.func @argmax
// CHECK: linalg.reduce
// CHECK: linalg.generic
#map = affine_map<(d0) -> (d0)>
func.func @argmax(%v: tensor<8x32xi32>, %i: tensor<8x32xi32>, %v0: tensor<8xi32>, %i0: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %r:2 = linalg.reduce ins(%v, %i : tensor<8x32xi32>, tensor<8x32xi32>) outs(%v0, %i0 : tensor<8xi32>, tensor<8xi32>) dimensions = [1]
    (%in: i32 loc("x"(unknown)), %in_1: i32, %init: i32, %init_2: i32) {
      %gt = arith.cmpi sgt, %in, %init : i32
      %a = arith.select %gt, %in, %init : i32
      %b = arith.select %gt, %in_1, %init_2 : i32
      linalg.yield %a, %b : i32, i32
    }
  %e = tensor.empty() : tensor<8xi32>
  %n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%r#0 : tensor<8xi32>) outs(%e : tensor<8xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<8xi32>
  return %n, %r#1 : tensor<8xi32>, tensor<8xi32>
}

// linalg.map prints its region's arguments the same way.
// CHECK-LABEL: func.func @map
// CHECK: linalg.map
func.func @map(%v: tensor<8xi32>, %e: tensor<8xi32>) -> tensor<8xi32> {
  %m = linalg.map ins(%v : tensor<8xi32>) outs(%e : tensor<8xi32>)
    (%in: i32, %init: i32) {
      %s = arith.addi %in, %in : i32
      linalg.yield %s : i32
    }
  %n = linalg.map ins(%m : tensor<8xi32>) outs(%e : tensor<8xi32>)
    (%in: i32, %init: i32) {
      linalg.yield %in : i32
    }
  return %n : tensor<8xi32>
}
