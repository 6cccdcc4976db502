// RUN: spine-triton-opt --spine-define-integer-division %s | FileCheck %s

// Signed division: the divisor is 1 where it is 0 or where INT_MIN meets -1,
// and the quotient is -1 where it was 0 (INT_MIN / 1 is already INT_MIN).
// CHECK-LABEL: func.func @signed_quotient(
// CHECK-SAME: %[[A:.*]]: vector<8xi32>, %[[B:.*]]: vector<8xi32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0> : vector<8xi32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1> : vector<8xi32>
// CHECK-DAG: %[[ALL:.*]] = arith.constant dense<-1> : vector<8xi32>
// CHECK-DAG: %[[MIN:.*]] = arith.constant dense<-2147483648> : vector<8xi32>
// CHECK: %[[BYZERO:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]]
// CHECK: %[[ISMIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]]
// CHECK: %[[ISNEG:.*]] = arith.cmpi eq, %[[B]], %[[ALL]]
// CHECK: %[[OVER:.*]] = arith.andi %[[ISMIN]], %[[ISNEG]]
// CHECK: %[[REPL:.*]] = arith.ori %[[BYZERO]], %[[OVER]]
// CHECK: %[[SAFE:.*]] = arith.select %[[REPL]], %[[ONE]], %[[B]]
// CHECK: %[[Q:.*]] = arith.divsi %[[A]], %[[SAFE]]
// CHECK: %[[R:.*]] = arith.select %[[BYZERO]], %[[ALL]], %[[Q]]
// CHECK: return %[[R]]
func.func @signed_quotient(%a: vector<8xi32>, %b: vector<8xi32>) -> vector<8xi32> {
  %0 = arith.divsi %a, %b : vector<8xi32>
  return %0 : vector<8xi32>
}

// Unsigned remainder of a scalar: x % 0 is x; no INT_MIN case.
// CHECK-LABEL: func.func @unsigned_remainder(
// CHECK-SAME: %[[A:.*]]: i64, %[[B:.*]]: i64)
// CHECK: %[[BYZERO:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : i64
// CHECK-NOT: arith.andi
// CHECK: %[[SAFE:.*]] = arith.select %[[BYZERO]], %{{.*}}, %[[B]]
// CHECK: %[[R:.*]] = arith.remui %[[A]], %[[SAFE]]
// CHECK: %[[Y:.*]] = arith.select %[[BYZERO]], %[[A]], %[[R]]
// CHECK: return %[[Y]]
func.func @unsigned_remainder(%a: i64, %b: i64) -> i64 {
  %0 = arith.remui %a, %b : i64
  return %0 : i64
}

// Safe constant divisors, and index arithmetic, are left as they are; a
// divisor of -1 is not safe for signed division, nor 0 for any.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.divsi
// CHECK-NEXT: arith.remui
// CHECK-NEXT: arith.divsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: return
func.func @left_alone(%a: vector<8xi32>, %i: index, %j: index) -> (vector<8xi32>, vector<8xi32>, index) {
  %c7 = arith.constant dense<7> : vector<8xi32>
  %cm1 = arith.constant dense<-1> : vector<8xi32>
  %0 = arith.divsi %a, %c7 : vector<8xi32>
  %1 = arith.remui %a, %cm1 : vector<8xi32>
  %2 = arith.divsi %i, %j : index
  return %0, %1, %2 : vector<8xi32>, vector<8xi32>, index
}

// CHECK-LABEL: func.func @unsafe_constants(
// CHECK: arith.select
// CHECK: arith.divsi
// CHECK: arith.select
// CHECK: arith.divui
func.func @unsafe_constants(%a: i32) -> (i32, i32) {
  %cm1 = arith.constant -1 : i32
  %c0 = arith.constant 0 : i32
  %0 = arith.divsi %a, %cm1 : i32
  %1 = arith.divui %a, %c0 : i32
  return %0, %1 : i32, i32
}
