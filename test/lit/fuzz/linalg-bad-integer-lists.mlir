// Found by tools/fuzz_pipeline.py: the custom parsers of linalg.reduce and linalg.broadcast
// (`dimensions = [...]`) and linalg.transpose (`permutation = [...]`) keep the null attribute of a
// list that fails to parse and crash on it (an integer beyond 64 bits, a float, a missing list).
// spine_triton._C and spine-triton-opt report the list before parsing (cpp/parser/ParserGuards.h).
// RUN: %expect_exit 1 %python %S/../helpers/run_stage.py --split-input-file %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt --split-input-file %s 2>&1 | FileCheck %s --check-prefix=OPT

// CHECK: <input>:[[# @LINE + 3]]:102: error: expected a list of 64-bit integers for 'dimensions' of 'linalg.reduce'
// OPT: linalg-bad-integer-lists.mlir:[[# @LINE + 2]]:102: error: expected a list of 64-bit integers for 'dimensions' of 'linalg.reduce'
func.func @reduce(%a: tensor<4x8xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%o : tensor<4xf32>) dimensions = [18446744073709551616]
  return %r : tensor<4xf32>
}

// -----

// CHECK: <input>:{{[0-9]+}}:94: error: expected a list of 64-bit integers for 'permutation' of 'linalg.transpose'
// OPT: linalg-bad-integer-lists.mlir:[[# @LINE + 2]]:94: error: expected a list of 64-bit integers for 'permutation' of 'linalg.transpose'
func.func @transpose(%a: tensor<4x8xf32>, %t: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %t2 = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%t : tensor<8x4xf32>) permutation = [1.5, 0]
  return %t2 : tensor<8x4xf32>
}

// -----

// CHECK: error: expected a list of 64-bit integers for 'dimensions' of 'linalg.broadcast'
// OPT: linalg-bad-integer-lists.mlir:[[# @LINE + 2]]:89: error: expected a list of 64-bit integers for 'dimensions' of 'linalg.broadcast'
func.func @broadcast(%a: tensor<4xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %b = linalg.broadcast ins(%a : tensor<4xf32>) outs(%o : tensor<4x8xf32>) dimensions = 1
  return %b : tensor<4x8xf32>
}

// -----

// Well-formed lists parse (and verify) as before.
// CHECK: linalg.reduce
// CHECK-SAME: dimensions = [1]
// OPT: linalg.reduce
// OPT-SAME: dimensions = [1]
func.func @valid(%a: tensor<4x8xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%o : tensor<4xf32>) dimensions = [ 1 ]
  return %r : tensor<4xf32>
}
