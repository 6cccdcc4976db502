// RUN: spine-triton-opt --spine-reciprocal-division %s | FileCheck %s

// fp32 division by a splat: one scalar division, a multiplication per element.
// CHECK-LABEL: tt.func @by_splat
// CHECK-SAME: (%[[X:.*]]: tensor<64xf32>, %[[D:.*]]: f32)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[R:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK: %[[RS:.*]] = tt.splat %[[R]] : f32 -> tensor<64xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[RS]] : tensor<64xf32>
// CHECK: tt.return %[[P]]
tt.func @by_splat(%x: tensor<64xf32>, %d: f32) -> tensor<64xf32> {
  %ds = tt.splat %d : f32 -> tensor<64xf32>
  %q = arith.divf %x, %ds : tensor<64xf32>
  tt.return %q : tensor<64xf32>
}

// Division by a broadcast: the reciprocal of each row's divisor, broadcast.
// CHECK-LABEL: tt.func @by_broadcast
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %{{.*}} : tensor<16x1xf32>
// CHECK: %[[RB:.*]] = tt.broadcast %[[R]] : tensor<16x1xf32> -> tensor<16x32xf32>
// CHECK: arith.mulf %{{.*}}, %[[RB]] : tensor<16x32xf32>
tt.func @by_broadcast(%x: tensor<16x32xf32>, %d: tensor<16x1xf32>) -> tensor<16x32xf32> {
  %db = tt.broadcast %d : tensor<16x1xf32> -> tensor<16x32xf32>
  %q = arith.divf %x, %db : tensor<16x32xf32>
  tt.return %q : tensor<16x32xf32>
}

// Left alone: elementwise divisors, fp64 (Triton's `/` is IEEE there), scalars,
// and tl.div_rn.
// CHECK-LABEL: tt.func @kept
// CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<64xf32>
// CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<64xf64>
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: tt.precise_divf
// CHECK-NOT: arith.mulf
tt.func @kept(%x: tensor<64xf32>, %y: tensor<64xf32>, %w: tensor<64xf64>, %e: f64, %s: f32, %d: f32) {
  %q = arith.divf %x, %y : tensor<64xf32>
  %es = tt.splat %e : f64 -> tensor<64xf64>
  %qw = arith.divf %w, %es : tensor<64xf64>
  %qs = arith.divf %s, %d : f32
  %ds = tt.splat %d : f32 -> tensor<64xf32>
  %qp = tt.precise_divf %x, %ds : tensor<64xf32>
  tt.return
}
