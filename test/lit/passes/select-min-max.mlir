// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256 select-min-max=true}))' %s | FileCheck %s
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256}))' %s | FileCheck %s --check-prefix=MAXNUM

// With select-min-max (x86, whose vmaxps returns its second operand when
// either is NaN), a maxnum reduction accumulates `x > acc ? x : acc` from
// -inf (one vmaxps, NaN elements skipped) and a guard `x < g ? x : g` from
// +inf. Lanes still at -inf and +inf saw only NaN: they become NaN before the
// lanes fold, as maxnum has them. Without the option, vector maxnumf from NaN
// (RVV's vfmax is maxNum itself).
// CHECK-LABEL: func.func @max_reduction
// CHECK-DAG: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK-DAG: %[[POS:.*]] = arith.constant dense<0x7F800000> : vector<32xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[J:.*]] = %c0 to %c1024{{.*}} step %c32{{.*}} iter_args(%[[ACC:.*]] = %[[NEG]], %[[GUARD:.*]] = %[[POS]]) -> (vector<32xf32>, vector<32xf32>)
// CHECK: %[[X:.*]] = vector.load %{{.*}}[%[[J]]] : memref<1024xf32>, vector<32xf32>
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[X]], %[[ACC]] : vector<32xf32>
// CHECK: %[[MAX:.*]] = arith.select %[[ABOVE]], %[[X]], %[[ACC]]
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %[[GUARD]] : vector<32xf32>
// CHECK: %[[MIN:.*]] = arith.select %[[BELOW]], %[[X]], %[[GUARD]]
// CHECK: scf.yield %[[MAX]], %[[MIN]]
// CHECK: %[[NEG2:.*]] = arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK: %[[AT_START:.*]] = arith.cmpf oeq, %[[LOOP]]#0, %[[NEG2]]
// CHECK: %[[POS2:.*]] = arith.constant dense<0x7F800000> : vector<32xf32>
// CHECK: %[[GUARD_AT_START:.*]] = arith.cmpf oeq, %[[LOOP]]#1, %[[POS2]]
// CHECK: %[[ONLY_NAN:.*]] = arith.andi %[[AT_START]], %[[GUARD_AT_START]]
// CHECK: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : vector<32xf32>
// CHECK: %[[PARTIAL:.*]] = arith.select %[[ONLY_NAN]], %[[NAN]], %[[LOOP]]#0
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK: vector.reduction <maxnumf>, %[[PARTIAL]], %[[OLD]] fastmath<reassoc> : vector<32xf32> into f32
// CHECK-NOT: arith.maxnumf {{.*}} : vector<32xf32>
// CHECK: return
// MAXNUM-LABEL: func.func @max_reduction
// MAXNUM: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<32xf32>)
// MAXNUM: arith.maxnumf %[[ACC]], %{{.*}} fastmath<reassoc> : vector<32xf32>
// MAXNUM-NOT: arith.select
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

// minnum mirrors it (from +inf, guard from -inf); the accumulator may be
// either operand. A sum beside it keeps one accumulator; the guard comes
// after every reduction's accumulator.
// CHECK-LABEL: func.func @min_and_sum
// CHECK-DAG: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK-DAG: %[[POS:.*]] = arith.constant dense<0x7F800000> : vector<32xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<-0.000000e+00> : vector<32xf32>
// CHECK: %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[POS]], %[[SUM:.*]] = %[[ZERO]], %[[GUARD:.*]] = %[[NEG]]) -> (vector<32xf32>, vector<32xf32>, vector<32xf32>)
// CHECK: %[[X:.*]] = vector.load
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %[[ACC]]
// CHECK: %[[MIN:.*]] = arith.select %[[BELOW]], %[[X]], %[[ACC]]
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[X]], %[[GUARD]]
// CHECK: %[[MAX:.*]] = arith.select %[[ABOVE]], %[[X]], %[[GUARD]]
// CHECK: %[[ADDED:.*]] = arith.addf %[[SUM]], %[[X]]
// CHECK: scf.yield %[[MIN]], %[[ADDED]], %[[MAX]]
// CHECK: arith.cmpf oeq, %[[LOOP]]#0, %{{.*}}
// CHECK: arith.cmpf oeq, %[[LOOP]]#2, %{{.*}}
// CHECK: vector.reduction <minnumf>
// CHECK: vector.reduction <add>, %[[LOOP]]#1
func.func @min_and_sum(%in: memref<1024xf32>, %lo: memref<f32>, %sum: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %j = %c0 to %c1024 step %c1 {
    %x = memref.load %in[%j] : memref<1024xf32>
    %a = memref.load %lo[] : memref<f32>
    %m = arith.minnumf %x, %a fastmath<reassoc> : f32
    memref.store %m, %lo[] : memref<f32>
    %s = memref.load %sum[] : memref<f32>
    %t = arith.addf %s, %x fastmath<reassoc> : f32
    memref.store %t, %sum[] : memref<f32>
  }
  return
}
