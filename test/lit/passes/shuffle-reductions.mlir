// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256 shuffle-reductions=true}))' %s | FileCheck %s
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256}))' %s | FileCheck %s --check-prefix=LANES

// With shuffle-reductions (x86), a float max reduction folds its 32 partial
// maxima (4 registers of 8 lanes) by halving: 32 -> 16 -> 8 -> 4 -> 2 -> 1,
// one vector maxnumf per step, then the buffer's old value. Without it, one
// vector.reduction (RVV's vfredmax).
// CHECK-LABEL: func.func @max_reduction
// CHECK: %[[PARTIAL:.*]] = scf.for {{.*}} -> (vector<32xf32>)
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK: %[[LO32:.*]] = vector.shuffle %[[PARTIAL]], %[[PARTIAL]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<32xf32>, vector<32xf32>
// CHECK: %[[HI32:.*]] = vector.shuffle %[[PARTIAL]], %[[PARTIAL]] [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : vector<32xf32>, vector<32xf32>
// CHECK: %[[M16:.*]] = arith.maxnumf %[[LO32]], %[[HI32]] fastmath<reassoc> : vector<16xf32>
// CHECK: %[[LO16:.*]] = vector.shuffle %[[M16]], %[[M16]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: %[[HI16:.*]] = vector.shuffle %[[M16]], %[[M16]] [8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: %[[M8:.*]] = arith.maxnumf %[[LO16]], %[[HI16]] fastmath<reassoc> : vector<8xf32>
// CHECK: arith.maxnumf {{.*}} : vector<4xf32>
// CHECK: arith.maxnumf {{.*}} : vector<2xf32>
// CHECK: %[[M1:.*]] = arith.maxnumf {{.*}} : vector<1xf32>
// CHECK: %[[LANE:.*]] = vector.extract %[[M1]][0] : f32 from vector<1xf32>
// CHECK: %[[ALL:.*]] = arith.maxnumf %[[LANE]], %[[OLD]] fastmath<reassoc> : f32
// CHECK: memref.store %[[ALL]], %{{.*}}[] : memref<f32>
// CHECK-NOT: vector.reduction
// CHECK: return
// LANES-LABEL: func.func @max_reduction
// LANES-NOT: vector.shuffle
// LANES: vector.reduction <maxnumf>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<32xf32> into f32
func.func @max_reduction(%in: memref<1024xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %j = %c0 to %c1024 step %c1 {
    %x = memref.load %in[%j] : memref<1024xf32>
    %a = memref.load %acc[] : memref<f32>
    %m = arith.maxnumf %a, %x fastmath<reassoc> : f32
    memref.store %m, %acc[] : memref<f32>
  }
  return
}

// tl.max with propagate_nan=ALL (maximumf) and tl.min fold the same way.
// CHECK-LABEL: func.func @minimum_reduction
// CHECK-COUNT-5: arith.minimumf {{.*}} : vector<{{16|8|4|2|1}}xf32>
// CHECK: arith.minimumf {{.*}} : f32
// CHECK-NOT: vector.reduction
func.func @minimum_reduction(%in: memref<1024xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %j = %c0 to %c1024 step %c1 {
    %x = memref.load %in[%j] : memref<1024xf32>
    %a = memref.load %acc[] : memref<f32>
    %m = arith.minimumf %a, %x : f32
    memref.store %m, %acc[] : memref<f32>
  }
  return
}

// Sums and integer reductions keep vector.reduction, which LLVM already
// folds by halving on x86.
// CHECK-LABEL: func.func @sum_reduction
// CHECK-NOT: vector.shuffle
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<32xf32> into f32
func.func @sum_reduction(%in: memref<1024xf32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %j = %c0 to %c1024 step %c1 {
    %x = memref.load %in[%j] : memref<1024xf32>
    %a = memref.load %acc[] : memref<f32>
    %m = arith.addf %a, %x fastmath<reassoc> : f32
    memref.store %m, %acc[] : memref<f32>
  }
  return
}
