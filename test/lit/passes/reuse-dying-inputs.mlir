// RUN: spine-triton-opt --spine-reuse-dying-inputs %s | FileCheck %s

#map = affine_map<(d0) -> (d0)>

// `acc + x` in a loop: the accumulator is used only here, so the sum is
// written over it (bufferization then updates one buffer in place).
// CHECK-LABEL: func.func @accumulate
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[ACC]], %{{.*}} : tensor<64xf32>, tensor<64xf32>) outs(%[[ACC]] : tensor<64xf32>)
func.func @accumulate(%x: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) {
    %e = tensor.empty() : tensor<64xf32>
    %s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%acc, %x : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %v = arith.addf %a, %b : f32
      linalg.yield %v : f32
    } -> tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// Kept on tensor.empty: an input used again later, a constant, an input of
// another type.
// CHECK-LABEL: func.func @kept
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<64xf32>)
func.func @kept(%x: tensor<64xf32>, %i: tensor<64xi32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %cst = arith.constant dense<1.0> : tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.negf %v : f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%cst : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.negf %v : f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%i : tensor<64xi32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: i32, %o: f32):
    %w = arith.sitofp %v : i32 to f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  return %a, %b, %c, %x : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
