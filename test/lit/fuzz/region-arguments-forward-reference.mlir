// A use of a name before an argument list `(%in: i32, ...) {` that defines it: MLIR's parser would
// resolve the use to the region's argument, which cannot dominate it. The guard
// (cpp/parser/ParserGuards.h) still reports it after learning that such lists define arguments.
// RUN: %expect_exit 1 %python %S/../helpers/run_stage.py %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt %s 2>&1 | FileCheck %s --check-prefix=OPT

// CHECK: <input>:[[# @LINE + 3]]:19: error: use of value '%in' before its definition, which is in a region that does not enclose the use
// OPT: region-arguments-forward-reference.mlir:[[# @LINE + 2]]:19: error: use of value '%in' before its definition, which is in a region that does not enclose the use
func.func @f(%v: tensor<8xi32>, %v0: tensor<i32>) -> tensor<i32> {
  %x = arith.addi %in, %in : i32
  %r = linalg.reduce ins(%v : tensor<8xi32>) outs(%v0 : tensor<i32>) dimensions = [0]
    (%in: i32, %init: i32) {
      %s = arith.addi %in, %init : i32
      linalg.yield %s : i32
    }
  return %r : tensor<i32>
}
