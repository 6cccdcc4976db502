// Found by tools/fuzz_pipeline.py: rsqrt of an 8 x f32 vector (what the element-loop vectorizer
// makes of tl.math.rsqrt on x86) crashed spine-approximate-math, which ran upstream's AVX2 rsqrt
// approximation without the x86vector dialect. rsqrt is left to LLVM.
// RUN: spine-triton-opt %s --spine-approximate-math | FileCheck %s
// RUN: %expect_exit 0 spine-triton-opt %s --spine-approximate-math -o /dev/null

// CHECK-LABEL: func.func @rsqrt_vector
// CHECK: math.rsqrt %{{.*}} : vector<8xf32>
func.func @rsqrt_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.rsqrt %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// CHECK-LABEL: func.func @rsqrt_scalar
// CHECK: math.rsqrt %{{.*}} : f32
func.func @rsqrt_scalar(%x: f32) -> f32 {
  %0 = math.rsqrt %x : f32
  return %0 : f32
}
