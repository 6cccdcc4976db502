// RUN: spine-triton-opt --spine-bound-shifted-exponents %s | FileCheck %s

// Softmax's row: exp(x - splat(max(x))). The argument (<= 0) is clamped to
// <= 1 by an unordered compare and a select, marked as only carrying that
// bound, and exp takes the clamped value.
// CHECK-LABEL: tt.func @row
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64xf32>
// CHECK: %[[LE:.*]] = arith.cmpf ule, %[[D]], %[[ONE]] : tensor<64xf32>
// CHECK: %[[C:.*]] = arith.select %[[LE]], %[[D]], %[[ONE]] {spine.known_bound}
// CHECK: math.exp %[[C]] : tensor<64xf32>
tt.func @row(%x: tensor<64xf32>) -> tensor<64xf32> {
  %m = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.maxnumf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<64xf32>) -> f32
  %ms = tt.splat %m : f32 -> tensor<64xf32>
  %d = arith.subf %x, %ms : tensor<64xf32>
  %e = math.exp %d : tensor<64xf32>
  tt.return %e : tensor<64xf32>
}

// Rows of a 2-D block: the maximum along axis 1 (maximumf, NaN-propagating),
// expanded on the same axis and broadcast back.
// CHECK-LABEL: tt.func @rows
// CHECK: arith.cmpf ule
// CHECK: arith.select {{.*}} {spine.known_bound}
// CHECK: math.exp
tt.func @rows(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %m = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<8x32xf32>) -> tensor<8xf32>
  %me = tt.expand_dims %m {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  %mb = tt.broadcast %me : tensor<8x1xf32> -> tensor<8x32xf32>
  %d = arith.subf %x, %mb : tensor<8x32xf32>
  %e = math.exp %d : tensor<8x32xf32>
  tt.return %e : tensor<8x32xf32>
}

// Left alone: a maximum along the other axis than the one it is expanded on
// (not each element's own maximum), the maximum of another tensor, a sum, a
// difference the other way round, and f64.
// CHECK-LABEL: tt.func @kept
// CHECK-NOT: arith.select
// CHECK: tt.return
tt.func @kept(%x: tensor<32x32xf32>, %y: tensor<64xf32>, %z: tensor<64xf32>, %w: tensor<64xf64>) {
  %m0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.maxnumf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<32x32xf32>) -> tensor<32xf32>
  %me = tt.expand_dims %m0 {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  %mb = tt.broadcast %me : tensor<32x1xf32> -> tensor<32x32xf32>
  %d0 = arith.subf %x, %mb : tensor<32x32xf32>
  %e0 = math.exp %d0 : tensor<32x32xf32>
  %my = "tt.reduce"(%y) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.maxnumf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<64xf32>) -> f32
  %mys = tt.splat %my : f32 -> tensor<64xf32>
  %d1 = arith.subf %z, %mys : tensor<64xf32>
  %e1 = math.exp %d1 : tensor<64xf32>
  %sz = "tt.reduce"(%z) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<64xf32>) -> f32
  %szs = tt.splat %sz : f32 -> tensor<64xf32>
  %d2 = arith.subf %z, %szs : tensor<64xf32>
  %e2 = math.exp %d2 : tensor<64xf32>
  %d3 = arith.subf %mys, %y : tensor<64xf32>
  %e3 = math.exp %d3 : tensor<64xf32>
  %mw = "tt.reduce"(%w) <{axis = 0 : i32}> ({
  ^bb0(%a: f64, %b: f64):
    %r = arith.maxnumf %a, %b : f64
    tt.reduce.return %r : f64
  }) : (tensor<64xf64>) -> f64
  %mws = tt.splat %mw : f64 -> tensor<64xf64>
  %d4 = arith.subf %w, %mws : tensor<64xf64>
  %e4 = math.exp %d4 : tensor<64xf64>
  tt.return
}
