// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256 select-min-max=true}))' %s | FileCheck %s
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256}))' %s | FileCheck %s --check-prefix=MAXNUM
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=256 select-min-max=true shuffle-reductions=true}))' %s | FileCheck %s --check-prefix=FOLD

// With select-min-max (x86, whose vmaxps returns its second operand when
// either is NaN), a maxnum reduction accumulates `x > acc ? x : acc` from
// -inf (one vmaxps, NaN elements skipped) and a guard `x < g ? x : g` from
// +inf. Lanes still at -inf and +inf saw only NaN: they become NaN before the
// lanes fold, as maxnum has them. Without the option, vector maxnumf from NaN
// (RVV's vfmax is maxNum itself). (A loop that also stores keeps the guard;
// see @max_reduction for one that does not.)
// CHECK-LABEL: func.func @max_reduction_storing
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
// With shuffle-reductions too (x86's pipeline sets both), the lanes fold by
// the same compare and select, halving the vector (neither the accumulators
// nor the guards hold NaN), and the result is NaN only when every lane saw
// only NaN: one all-lanes test, then maxnum with the old value.
// FOLD-LABEL: func.func @max_reduction_storing
// FOLD: %[[LOOP:.*]]:2 = scf.for
// FOLD: %[[AT_START:.*]] = arith.cmpf oeq, %[[LOOP]]#0, %{{.*}}
// FOLD: %[[GUARD_AT_START:.*]] = arith.cmpf oeq, %[[LOOP]]#1, %{{.*}}
// FOLD: %[[ONLY_NAN:.*]] = arith.andi %[[AT_START]], %[[GUARD_AT_START]] : vector<32xi1>
// FOLD: %[[ALL:.*]] = vector.reduction <and>, %[[ONLY_NAN]] : vector<32xi1> into i1
// FOLD: %[[LO:.*]] = vector.shuffle %[[LOOP]]#0, %[[LOOP]]#0 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// FOLD: %[[HI:.*]] = vector.shuffle %[[LOOP]]#0, %[[LOOP]]#0 [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
// FOLD: %[[GT:.*]] = arith.cmpf ogt, %[[LO]], %[[HI]] : vector<16xf32>
// FOLD: arith.select %[[GT]], %[[LO]], %[[HI]] : vector<16xi1>, vector<16xf32>
// FOLD-COUNT-4: arith.cmpf ogt
// FOLD: %[[LANE:.*]] = vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// FOLD: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// FOLD: %[[FOLDED:.*]] = arith.select %[[ALL]], %[[NAN]], %[[LANE]] : f32
// FOLD: %[[TOTAL:.*]] = arith.maxnumf %[[FOLDED]], %{{.*}} fastmath<reassoc> : f32
// FOLD: memref.store %[[TOTAL]]
// FOLD-NOT: arith.maxnumf {{.*}} : vector
// FOLD-NOT: vector.reduction <maxnumf>
// MAXNUM-LABEL: func.func @max_reduction_storing
// MAXNUM: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<32xf32>)
// MAXNUM: arith.maxnumf %[[ACC]], %{{.*}} fastmath<reassoc> : vector<32xf32>
// MAXNUM-NOT: arith.select
func.func @max_reduction_storing(%in: memref<1024xf32>, %acc: memref<f32>,
                                 %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.for %j = %c0 to %c1024 step %c1 {
    %x = memref.load %in[%j] : memref<1024xf32>
    %a = memref.load %acc[] : memref<f32>
    %m = arith.maxnumf %a, %x fastmath<reassoc> : f32
    memref.store %m, %acc[] : memref<f32>
    memref.store %x, %out[%j] : memref<1024xf32>
  }
  return
}

// A loop whose only write is its one max reduction (softmax's maximum walk)
// goes without the guard: one compare and select per register. Lanes that
// saw only NaN stay at -inf, which is the right maxnum unless the whole
// result ends there; then the buffer takes back its value from before the
// loop and the loop, kept scalar, runs again (rows of -inf or NaN only).
// CHECK-LABEL: func.func @max_reduction(
// CHECK: %[[INIT:.*]] = memref.load %[[ACC_BUF:.*]][] : memref<f32>
// CHECK: %[[LOOP:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<32xf32>) {
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[X:.*]], %[[ACC]] : vector<32xf32>
// CHECK-NEXT: %[[MAX:.*]] = arith.select %[[ABOVE]], %[[X]], %[[ACC]]
// CHECK-NEXT: scf.yield %[[MAX]] : vector<32xf32>
// CHECK-NOT: arith.cmpf oeq, %[[LOOP]]
// CHECK: vector.reduction <maxnumf>, %[[LOOP]], %{{.*}} fastmath<reassoc>
// CHECK: memref.store
// CHECK: %[[RESULT:.*]] = memref.load %[[ACC_BUF]][] : memref<f32>
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[AT_START:.*]] = arith.cmpf oeq, %[[RESULT]], %[[NEG_INF]] : f32
// CHECK: scf.if %[[AT_START]] {
// CHECK-NEXT: memref.store %[[INIT]], %[[ACC_BUF]][] : memref<f32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.load
// CHECK-NEXT: arith.maxnumf {{.*}} : f32
// FOLD-LABEL: func.func @max_reduction(
// FOLD: scf.for {{.*}} -> (vector<32xf32>)
// FOLD-NOT: vector.reduction <and>
// FOLD: arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<16xf32>
// FOLD-NOT: 0x7FC00000
// FOLD: arith.maxnumf {{.*}} : f32
// FOLD: scf.if
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

// FOLD-LABEL: func.func @min_and_sum
// FOLD: arith.cmpf olt, %{{.*}}, %{{.*}} : vector<16xf32>
// FOLD: arith.minnumf
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
