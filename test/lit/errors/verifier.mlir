// Well-formed syntax, wrong types: the verifiers reject each op with a located diagnostic and
// the tool exits with status 1 (no crash, no assertion).
// RUN: not spine-triton-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt %s -split-input-file -o /dev/null

// CHECK-NOT: PLEASE submit a bug report
tt.func public @splat_element_type(%x: i32) {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.splat' op requires the same element type for all operands and results
  %0 = tt.splat %x : i32 -> tensor<4xf32>
  tt.return
}

// -----

tt.func public @addptr_float_offset(%p: !tt.ptr<f32>, %f: f32) {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.addptr' op operand #1 must be
  %0 = tt.addptr %p, %f : !tt.ptr<f32>, f32
  tt.return
}

// -----

tt.func public @addptr_shape_mismatch(%p: tensor<4x!tt.ptr<f32>>, %o: tensor<8xi32>) {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.addptr' op all non-scalar operands/results must have the same shape
  %0 = tt.addptr %p, %o : tensor<4x!tt.ptr<f32>>, tensor<8xi32>
  tt.return
}

// -----

tt.func public @load_result_type(%p: tensor<4x!tt.ptr<f32>>) {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.load' op failed to verify that result matches ptr type
  %0 = "tt.load"(%p) <{boundaryCheck = array<i32>, cache = 1 : i32, evict = 1 : i32, isVolatile = false, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!tt.ptr<f32>>) -> tensor<4xi32>
  tt.return
}

// -----

tt.func public @store_value_type(%p: tensor<4x!tt.ptr<f32>>, %v: tensor<4xf16>) {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.store' op failed to verify that value type matches ptr type
  "tt.store"(%p, %v) <{boundaryCheck = array<i32>, cache = 1 : i32, evict = 1 : i32}> : (tensor<4x!tt.ptr<f32>>, tensor<4xf16>) -> ()
  tt.return
}

// -----

tt.func public @dot_inner_dim(%a: tensor<16x8xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.dot' op {{.*}}8{{.*}}16
  %0 = tt.dot %a, %b, %c : tensor<16x8xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func public @make_range_shape() {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.make_range' op {{.*}}8{{.*}}16
  %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<8xi32>
  tt.return
}

// -----

tt.func public @return_type(%x: i32) -> f32 {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.return' op {{.*}}'i32'{{.*}}'f32'
  tt.return %x : i32
}

// -----

tt.func public @reduce_axis(%x: tensor<8xf32>) {
  // CHECK: verifier.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'tt.reduce' op {{.*}}axis
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<8xf32>) -> f32
  tt.return
}
