// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// CHECK-LABEL: func.func @shapes
// expand_dims -> expand_shape, broadcast -> generic reading index 0 of the
// unit dim, reduce with a neutral element (maxnumf: NaN) -> linalg.reduce
// over the whole tensor seeded with it, its combine free to reassociate
// (Triton leaves the order unspecified).
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: tensor.expand_shape {{.*}} {{\[\[}}0, 1]] output_shape [1, 32] : tensor<32xf32> into tensor<1x32xf32>
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[BMAP:.*]], #{{.*}}]
// CHECK: %[[SEED:.*]] = linalg.fill ins(%[[NAN]] : f32) outs({{.*}} : tensor<16xf32>)
// CHECK: linalg.reduce { arith.maxnumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[B]] : tensor<16x32xf32>) outs(%[[SEED]] : tensor<16xf32>) dimensions = [1]
tt.func public @shapes(%in: tensor<32xf32>, %out: !tt.ptr<f32>) {
  %e = tt.expand_dims %in {axis = 0 : i32} : tensor<32xf32> -> tensor<1x32xf32>
  %b = tt.broadcast %e : tensor<1x32xf32> -> tensor<16x32xf32>
  %r = "tt.reduce"(%b) <{axis = 1 : i32}> ({
  ^bb0(%acc: f32, %x: f32):
    %m = arith.maxnumf %acc, %x : f32
    tt.reduce.return %m : f32
  }) : (tensor<16x32xf32>) -> tensor<16xf32>
  %r1 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %r1 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %r : tensor<16x!tt.ptr<f32>>
  tt.return
}

// A combine region without a neutral element (here acc - x, and a two-op
// one) is seeded with the first slice and folds in the rest.
// CHECK-LABEL: func.func @reduce_without_neutral_element
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %arg0[0, 0] [16, 1] [1, 1] : tensor<16x32xf32> to tensor<16xf32>
// CHECK: %[[SEED:.*]] = linalg.copy ins(%[[FIRST]] : tensor<16xf32>)
// CHECK: %[[REST:.*]] = tensor.extract_slice %arg0[0, 1] [16, 31] [1, 1] : tensor<16x32xf32> to tensor<16x31xf32>
// (The short form lists the combine's operands init first: acc - x.)
// CHECK: linalg.reduce { arith.subf {fastmath = #arith.fastmath<reassoc>} } ins(%[[REST]] : tensor<16x31xf32>) outs(%[[SEED]] : tensor<16xf32>) dimensions = [1]
// CHECK: linalg.reduce ins(%[[REST]] : tensor<16x31xf32>) outs(%[[SEED]] : tensor<16xf32>) dimensions = [1]
// CHECK-NEXT: (%[[X:.*]]: f32, %[[ACC:.*]]: f32) {
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc>
// CHECK-NEXT: arith.mulf %[[S]], %[[X]] fastmath<reassoc>
tt.func public @reduce_without_neutral_element(%x: tensor<16x32xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %d = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%acc: f32, %v: f32):
    %s = arith.subf %acc, %v : f32
    tt.reduce.return %s : f32
  }) : (tensor<16x32xf32>) -> tensor<16xf32>
  %p = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    %t = arith.mulf %s, %v : f32
    tt.reduce.return %t : f32
  }) : (tensor<16x32xf32>) -> tensor<16xf32>
  tt.return %d, %p : tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @dot
// CHECK: linalg.matmul ins({{.*}} : tensor<16x8xf16>, tensor<8x32xf16>) outs({{.*}} : tensor<16x32xf32>)
tt.func public @dot(%a: tensor<16x8xf16>, %b: tensor<8x32xf16>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<16x8xf16> * tensor<8x32xf16> -> tensor<16x32xf32>
  tt.return %d : tensor<16x32xf32>
}
