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

// An operand unpacked by a join and a collapse (an fp4 tile of tl.dot_scaled)
// stays a tensor the matmul reads: folding the collapse into the matmul made
// it a generic over a split K, with the unpacking fused into it and computed
// again for every column.
// CHECK-LABEL: func.func @unpacked_operand_of_a_matmul
// CHECK: %[[PAIRS:.*]] = linalg.generic
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[PAIRS]]
// CHECK: linalg.matmul ins(%[[A]], %{{.*}} : tensor<16x64xf32>, tensor<64x16xf32>)
func.func @unpacked_operand_of_a_matmul(%lo: tensor<16x32xf32>, %hi: tensor<16x32xf32>, %b: tensor<64x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %e = tensor.empty() : tensor<16x32x2xf32>
  %j = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%lo, %hi : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %i = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    %v = arith.select %first, %x, %y : f32
    linalg.yield %v : f32
  } -> tensor<16x32x2xf32>
  %a = tensor.collapse_shape %j [[0], [1, 2]] : tensor<16x32x2xf32> into tensor<16x64xf32>
  %d = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %d : tensor<16x16xf32>
}
