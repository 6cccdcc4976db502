// RUN: spine-triton-opt --spine-define-integer-arithmetic %s | FileCheck %s

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

// Shifts by a count not known to be below the width: << and unsigned >> are
// 0 from the width on (the count compared as unsigned: negative counts too),
// signed >> takes at most width - 1, the sign.
// CHECK-LABEL: func.func @shifts(
// CHECK-SAME: %[[X:.*]]: vector<8xi8>, %[[S:.*]]: vector<8xi8>)
// CHECK-DAG: %[[SEVEN:.*]] = arith.constant dense<7> : vector<8xi8>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0> : vector<8xi8>
// CHECK: %[[IN:.*]] = arith.cmpi ule, %[[S]], %[[SEVEN]]
// CHECK: %[[L:.*]] = arith.shli %[[X]], %[[S]]
// CHECK: %[[LEFT:.*]] = arith.select %[[IN]], %[[L]], %[[ZERO]]
// CHECK: %[[IN2:.*]] = arith.cmpi ule, %[[S]], %{{.*}}
// CHECK: %[[R:.*]] = arith.shrui %[[X]], %[[S]]
// CHECK: %[[RIGHT:.*]] = arith.select %[[IN2]], %[[R]], %{{.*}}
// CHECK: %[[CLAMPED:.*]] = arith.minui %[[S]], %{{.*}}
// CHECK: %[[SIGNED:.*]] = arith.shrsi %[[X]], %[[CLAMPED]]
// CHECK: return %[[LEFT]], %[[RIGHT]], %[[SIGNED]]
func.func @shifts(%x: vector<8xi8>, %s: vector<8xi8>) -> (vector<8xi8>, vector<8xi8>, vector<8xi8>) {
  %0 = arith.shli %x, %s : vector<8xi8>
  %1 = arith.shrui %x, %s : vector<8xi8>
  %2 = arith.shrsi %x, %s : vector<8xi8>
  return %0, %1, %2 : vector<8xi8>, vector<8xi8>, vector<8xi8>
}

// Constant counts below the width stay as they are; 32 is not one of them.
// CHECK-LABEL: func.func @constant_counts(
// CHECK-NEXT: arith.constant 5 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: arith.shli
// CHECK-NEXT: arith.constant 31 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.cmpi ule
// CHECK-NEXT: arith.shrui
// CHECK-NEXT: arith.select
func.func @constant_counts(%x: i32) -> (i32, i32) {
  %c5 = arith.constant 5 : i32
  %c32 = arith.constant 32 : i32
  %0 = arith.shli %x, %c5 : i32
  %1 = arith.shrui %x, %c32 : i32
  return %0, %1 : i32, i32
}
