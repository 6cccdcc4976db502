// RUN: spine-triton-opt --spine-approximate-math %s | FileCheck %s

// f32 exp2(x) is 2^n * exp((x - n) * ln2) with n = roundeven(x): exact
// reduction, then exp's polynomial (no libm call, and no math.exp left), and
// 2^n from exponent bits in two halves. Upstream's exp(x * ln2) lost about
// |x| ulps.
// CHECK-LABEL: func.func @exp2_f32(
// CHECK-NOT: math.exp2
// CHECK: math.roundeven %{{.*}} : vector<8xf32>
// CHECK: arith.subf
// CHECK: arith.fptosi %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.shrsi
// CHECK-NOT: math.exp
// CHECK: return
func.func @exp2_f32(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp2 %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// f64 exp2 stays for LLVM's exp2 (libm, correctly rounded in practice).
// CHECK-LABEL: func.func @exp2_f64(
// CHECK: math.exp2 %{{.*}} : f64
func.func @exp2_f64(%x: f64) -> f64 {
  %0 = math.exp2 %x : f64
  return %0 : f64
}
