// RUN: spine-triton-opt --spine-collapse-contiguous-dims %s | FileCheck %s

// An elementwise op over a block reshaped into dimensions of 2 (as tl.sort
// makes it): every operand walks all dimensions in order, so they merge into
// one loop of 16 iterations.
// CHECK-LABEL: func.func @all_identity
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : tensor<2x2x2x2xf32> into tensor<16xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] output_shape [2, 2, 2, 2] : tensor<16xf32> into tensor<2x2x2x2xf32>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @all_identity(%a: tensor<2x2x2x2xf32>, %b: tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32> {
  %init = tensor.empty() : tensor<2x2x2x2xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>) outs(%init : tensor<2x2x2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x2x2x2xf32>
  return %r : tensor<2x2x2x2xf32>
}

// A row broadcast (d0, d1) -> (d1) over a 3-D op: d1 and d2 are side by side
// in every map and merge; d0 stays its own loop.
// CHECK-LABEL: func.func @broadcast_keeps_outer
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#inner = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @broadcast_keeps_outer(%a: tensor<4x2x8xf32>, %b: tensor<2x8xf32>) -> tensor<4x2x8xf32> {
  %init = tensor.empty() : tensor<4x2x8xf32>
  %r = linalg.generic {indexing_maps = [#id3, #inner, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<4x2x8xf32>, tensor<2x8xf32>) outs(%init : tensor<4x2x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x2x8xf32>
  return %r : tensor<4x2x8xf32>
}

// Left alone: a transpose (no two dimensions side by side in both maps), a
// reduction dimension, and an op reading linalg.index.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @kept(%a: tensor<4x4xf32>, %c: tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xi32>) {
  %init = tensor.empty() : tensor<4x4xf32>
  %t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4x4xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x4xf32>) outs(%c : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %iinit = tensor.empty() : tensor<4x4xi32>
  %i = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%iinit : tensor<4x4xi32>) {
  ^bb0(%o: i32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    linalg.yield %j32 : i32
  } -> tensor<4x4xi32>
  return %t, %s, %i : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xi32>
}
