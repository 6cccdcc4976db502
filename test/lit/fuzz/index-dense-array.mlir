// Found by tools/fuzz_pipeline.py: MLIR 22's parser segfaults on a dense array of `index`
// elements (it asks index for a bit width); a tt.trans `order` made one. spine_triton._C and
// spine-triton-opt report it before parsing (cpp/parser/ParserGuards.h).
// RUN: %expect_exit 1 %python %S/../helpers/run_stage.py --split-input-file %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt --split-input-file %s 2>&1 | FileCheck %s --check-prefix=OPT

// CHECK: <input>:[[# @LINE + 3]]:35: error: dense arrays of 'index' are not supported: use a fixed-width integer type
// OPT: index-dense-array.mlir:[[# @LINE + 2]]:35: error: dense arrays of 'index' are not supported: use a fixed-width integer type
tt.func @trans(%t: tensor<2x16xf32>) -> tensor<16x2xf32> {
  %0 = tt.trans %t {order = array<index: 1, 0>} : tensor<2x16xf32> -> tensor<16x2xf32>
  tt.return %0 : tensor<16x2xf32>
}

// -----

// CHECK: tt.trans %{{.*}} {order = array<i32: 1, 0>}
// OPT: tt.trans %{{.*}} {order = array<i32: 1, 0>}
tt.func @valid(%t: tensor<2x16xf32>) -> tensor<16x2xf32> {
  %0 = tt.trans %t {order = array<i32: 1, 0>} : tensor<2x16xf32> -> tensor<16x2xf32>
  tt.return %0 : tensor<16x2xf32>
}
