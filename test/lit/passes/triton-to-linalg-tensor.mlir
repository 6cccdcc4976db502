// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// CHECK-LABEL: func.func @shapes
// expand_dims -> expand_shape, broadcast -> generic reading index 0 of the
// unit dim, reduce -> linalg.reduce over the rest seeded with the first slice,
// its combine free to reassociate (Triton leaves the order unspecified).
// CHECK: tensor.expand_shape {{.*}} {{\[\[}}0, 1]] output_shape [1, 32] : tensor<32xf32> into tensor<1x32xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BMAP:.*]], #{{.*}}]
// CHECK: tensor.extract_slice {{.*}}[0, 0] [16, 1] [1, 1] : tensor<16x32xf32> to tensor<16xf32>
// CHECK: tensor.extract_slice {{.*}}[0, 1] [16, 31] [1, 1] : tensor<16x32xf32> to tensor<16x31xf32>
// CHECK: linalg.reduce { arith.maxnumf {fastmath = #arith.fastmath<reassoc>} } ins({{.*}} : tensor<16x31xf32>) outs({{.*}} : tensor<16xf32>) dimensions = [1]
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

// CHECK-LABEL: func.func @dot
// CHECK: linalg.matmul ins({{.*}} : tensor<16x8xf16>, tensor<8x32xf16>) outs({{.*}} : tensor<16x32xf32>)
tt.func public @dot(%a: tensor<16x8xf16>, %b: tensor<8x32xf16>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<16x8xf16> * tensor<8x32xf16> -> tensor<16x32xf32>
  tt.return %d : tensor<16x32xf32>
}
