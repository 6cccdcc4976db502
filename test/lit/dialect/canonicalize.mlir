// Folders and canonicalization patterns of the tt dialect.
// RUN: spine-triton-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: tt.func @load_true_mask
// CHECK: %[[L:.*]] = tt.load %arg0 : tensor<4x!tt.ptr<f32>>
// CHECK: tt.return %[[L]]
tt.func @load_true_mask(%p: tensor<4x!tt.ptr<f32>>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %m = arith.constant dense<true> : tensor<4xi1>
  %0 = tt.load %p, %m, %o : tensor<4x!tt.ptr<f32>>
  tt.return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: tt.func @load_false_mask
// CHECK-NOT: tt.load
// CHECK: tt.return %arg1
tt.func @load_false_mask(%p: tensor<4x!tt.ptr<f32>>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %m = arith.constant dense<false> : tensor<4xi1>
  %0 = tt.load %p, %m, %o : tensor<4x!tt.ptr<f32>>
  tt.return %0 : tensor<4xf32>
}

// -----

// A masked-off load without `other` is undefined, not folded away.
// CHECK-LABEL: tt.func @load_false_mask_no_other
// CHECK: tt.load %arg0, %{{.*}} : tensor<4x!tt.ptr<f32>>
tt.func @load_false_mask_no_other(%p: tensor<4x!tt.ptr<f32>>) -> tensor<4xf32> {
  %m = arith.constant dense<false> : tensor<4xi1>
  %0 = tt.load %p, %m : tensor<4x!tt.ptr<f32>>
  tt.return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: tt.func @store_masks
// CHECK-NEXT: tt.store %arg0, %arg1 : tensor<4x!tt.ptr<f32>>
// CHECK-NEXT: tt.return
tt.func @store_masks(%p: tensor<4x!tt.ptr<f32>>, %v: tensor<4xf32>) {
  %t = arith.constant dense<true> : tensor<4xi1>
  %f = arith.constant dense<false> : tensor<4xi1>
  tt.store %p, %v, %t : tensor<4x!tt.ptr<f32>>
  tt.store %p, %v, %f : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @atomic_store_false_mask
// CHECK-NEXT: tt.return
tt.func @atomic_store_false_mask(%p: !tt.ptr<i32>, %v: i32) {
  %f = arith.constant false
  tt.atomic_store relaxed, gpu, %p, %v, %f : !tt.ptr<i32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @addptr_zero
// CHECK-NEXT: tt.return %arg0
tt.func @addptr_zero(%p: tensor<4x!tt.ptr<f32>>) -> tensor<4x!tt.ptr<f32>> {
  %z = arith.constant dense<0> : tensor<4xi32>
  %0 = tt.addptr %p, %z : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  tt.return %0 : tensor<4x!tt.ptr<f32>>
}

// -----

// CHECK-LABEL: tt.func @splat_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<3.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: tt.return %[[C]], %[[C]], %[[C]]
tt.func @splat_constant() -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = arith.constant 3.0 : f32
  %0 = tt.splat %c : f32 -> tensor<4xf32>
  %1 = tt.expand_dims %0 {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %2 = tt.broadcast %1 : tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = tt.splat %c : f32 -> tensor<32xf32>
  %4 = tt.reshape %3 : tensor<32xf32> -> tensor<4x8xf32>
  %5 = tt.splat %c : f32 -> tensor<8x4xf32>
  %6 = tt.trans %5 {order = array<i32: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  tt.return %2, %4, %6 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: tt.func @splat_chains
// CHECK-NEXT: %[[S0:.*]] = tt.splat %arg0 : i32 -> tensor<4x8xi32>
// CHECK-NEXT: %[[S1:.*]] = tt.splat %arg0 : i32 -> tensor<4x8xi32>
// CHECK-NEXT: tt.return %[[S0]], %[[S1]]
tt.func @splat_chains(%x: i32) -> (tensor<4x8xi32>, tensor<4x8xi32>) {
  %0 = tt.splat %x : i32 -> tensor<4xi32>
  %1 = tt.expand_dims %0 {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %2 = tt.broadcast %1 : tensor<4x1xi32> -> tensor<4x8xi32>
  %3 = tt.splat %x : i32 -> tensor<32xi32>
  %4 = tt.reshape %3 : tensor<32xi32> -> tensor<4x8xi32>
  tt.return %2, %4 : tensor<4x8xi32>, tensor<4x8xi32>
}

// -----

// CHECK-LABEL: tt.func @broadcast_chain
// CHECK-NEXT: %[[B:.*]] = tt.broadcast %arg0 : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: tt.return %[[B]]
tt.func @broadcast_chain(%x: tensor<1x1xf32>) -> tensor<4x8xf32> {
  %0 = tt.broadcast %x : tensor<1x1xf32> -> tensor<4x1xf32>
  %1 = tt.broadcast %0 : tensor<4x1xf32> -> tensor<4x8xf32>
  tt.return %1 : tensor<4x8xf32>
}

// -----

// expand_dims(broadcast x) -> broadcast(expand_dims x)
// CHECK-LABEL: tt.func @expand_dims_of_broadcast
// CHECK-NEXT: %[[E:.*]] = tt.expand_dims %arg0 {axis = 0 : i32} : tensor<1x8xf32> -> tensor<1x1x8xf32>
// CHECK-NEXT: %[[B:.*]] = tt.broadcast %[[E]] : tensor<1x1x8xf32> -> tensor<1x4x8xf32>
// CHECK-NEXT: tt.return %[[B]]
tt.func @expand_dims_of_broadcast(%x: tensor<1x8xf32>) -> tensor<1x4x8xf32> {
  %0 = tt.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf32>
  %1 = tt.expand_dims %0 {axis = 0 : i32} : tensor<4x8xf32> -> tensor<1x4x8xf32>
  tt.return %1 : tensor<1x4x8xf32>
}

// -----

// CHECK-LABEL: tt.func @reshape_chain
// CHECK-NEXT: %[[R:.*]] = tt.reshape %arg0 allow_reorder : tensor<32xf32> -> tensor<4x8xf32>
// CHECK-NEXT: tt.return %arg0, %[[R]]
tt.func @reshape_chain(%x: tensor<32xf32>) -> (tensor<32xf32>, tensor<4x8xf32>) {
  %0 = tt.reshape %x : tensor<32xf32> -> tensor<32xf32>
  %1 = tt.reshape %x allow_reorder : tensor<32xf32> -> tensor<8x4xf32>
  %2 = tt.reshape %1 : tensor<8x4xf32> -> tensor<4x8xf32>
  tt.return %0, %2 : tensor<32xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: tt.func @trans_chain
// CHECK-NEXT: %[[T:.*]] = tt.trans %arg0 {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
// CHECK-NEXT: tt.return %arg0, %[[T]]
tt.func @trans_chain(%x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<8x2x4xf32>) {
  %0 = tt.trans %x {order = array<i32: 0, 1, 2>} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %1 = tt.trans %x {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %2 = tt.trans %1 {order = array<i32: 1, 2, 0>} : tensor<4x8x2xf32> -> tensor<8x2x4xf32>
  tt.return %0, %2 : tensor<2x4x8xf32>, tensor<8x2x4xf32>
}

// -----

// CHECK-LABEL: tt.func @split_join
// CHECK-NEXT: tt.return %arg0, %arg1
tt.func @split_join(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tt.join %a, %b : tensor<4xf32> -> tensor<4x2xf32>
  %1, %2 = tt.split %0 : tensor<4x2xf32> -> tensor<4xf32>
  tt.return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: tt.func @make_range_one
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<7> : tensor<1xi32>
// CHECK-NEXT: tt.return %[[C]]
tt.func @make_range_one() -> tensor<1xi32> {
  %0 = tt.make_range {end = 8 : i32, start = 7 : i32} : tensor<1xi32>
  tt.return %0 : tensor<1xi32>
}

// -----

// CHECK-LABEL: tt.func @casts
// CHECK-DAG: %[[H:.*]] = arith.constant 1.500000e+00 : f16
// CHECK-DAG: %[[F:.*]] = tt.fp_to_fp %{{.*}}, rounding = rtne : f32 -> f16
// CHECK: tt.return %arg0, %arg1, %[[H]], %[[F]]
tt.func @casts(%x: f32, %p: !tt.ptr<f32>) -> (f32, !tt.ptr<f32>, f16, f16) {
  %0 = tt.bitcast %x : f32 -> f32
  %1 = tt.ptr_to_int %p : !tt.ptr<f32> -> i64
  %2 = tt.int_to_ptr %1 : i64 -> !tt.ptr<f32>
  %c = arith.constant 1.5 : f32
  %3 = tt.fp_to_fp %c, rounding = rtne : f32 -> f16
  // 0.1 is not exact in f16: stays a conversion.
  %d = arith.constant 0.1 : f32
  %4 = tt.fp_to_fp %d, rounding = rtne : f32 -> f16
  tt.return %0, %2, %3, %4 : f32, !tt.ptr<f32>, f16, f16
}

// -----

// CHECK-LABEL: tt.func @bitcast_chain
// CHECK-NEXT: %[[B:.*]] = tt.bitcast %arg0 : f32 -> i32
// CHECK-NEXT: tt.return %[[B]]
tt.func @bitcast_chain(%x: f32) -> i32 {
  %0 = tt.bitcast %x : f32 -> f32
  %1 = tt.bitcast %0 : f32 -> i32
  %2 = tt.bitcast %1 : i32 -> f32
  %3 = tt.bitcast %2 : f32 -> i32
  tt.return %3 : i32
}
