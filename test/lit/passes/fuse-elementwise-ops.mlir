// RUN: spine-triton-opt --spine-fuse-elementwise-ops %s | FileCheck %s

#map = affine_map<(d0) -> (d0)>

// A tl.arange used by two ops (a load's offsets and a mask, say) is computed
// again in each of them instead of being stored once and read twice; the
// exponentials, used twice too, are not computed twice.
// CHECK-LABEL: func.func @cheap_producer_in_every_user
// CHECK-NOT: linalg.generic {{.*}} outs(%{{.*}} : tensor<64xi32>)
// CHECK: %[[EXP:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[EXP]]
// CHECK: linalg.index 0
// CHECK-NOT: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[EXP]]
// CHECK: linalg.index 0
// CHECK-NOT: math.exp
// CHECK: return
func.func @cheap_producer_in_every_user(%x: tensor<64xf32>, %n: i32) -> (tensor<64xf32>, tensor<64xf32>) {
  %e_i32 = tensor.empty() : tensor<64xi32>
  %range = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%e_i32 : tensor<64xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i32
    linalg.yield %v : i32
  } -> tensor<64xi32>
  %e = tensor.empty() : tensor<64xf32>
  %exp = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %masked = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%exp, %range : tensor<64xf32>, tensor<64xi32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %i: i32, %out: f32):
    %in = arith.cmpi slt, %i, %n : i32
    %zero = arith.constant 0.0 : f32
    %r = arith.select %in, %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %scaled = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%exp, %range : tensor<64xf32>, tensor<64xi32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %i: i32, %out: f32):
    %f = arith.sitofp %i : i32 to f32
    %r = arith.mulf %v, %f : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %masked, %scaled : tensor<64xf32>, tensor<64xf32>
}
