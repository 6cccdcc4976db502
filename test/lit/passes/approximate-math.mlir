// RUN: spine-triton-opt --spine-approximate-math %s | FileCheck %s
// RUN: spine-triton-opt --spine-approximate-math=avx512-scalef=1 %s | FileCheck %s --check-prefix=SCALEF

// f32 exp: x clamped keeping NaN (unordered compares), n rounded by adding
// 1.5 * 2^23 + 127 (0x4B40007F), capped at 127, r = x - n * ln2 in two fmas,
// a degree-7 polynomial, and 2^n the sum's bits shifted into the exponent
// field: no rounding op, no float-to-int conversion, no libm call.
// CHECK-LABEL: func.func @exp_f32(
// CHECK-DAG: %[[SHIFTER:.*]] = arith.constant dense<0x4B40007F> : vector<8xf32>
// CHECK-DAG: %[[CAP:.*]] = arith.constant dense<0x4B4000FE> : vector<8xf32>
// CHECK-DAG: %[[LO:.*]] = arith.constant dense<-8.780000e+01> : vector<8xf32>
// CHECK-DAG: %[[HI:.*]] = arith.constant dense<8.880000e+01> : vector<8xf32>
// CHECK: %[[GE:.*]] = arith.cmpf uge, %[[X:.*]], %[[LO]]
// CHECK: %[[X1:.*]] = arith.select %[[GE]], %[[X]], %[[LO]]
// CHECK: %[[LE:.*]] = arith.cmpf ule, %[[X1]], %[[HI]]
// CHECK: %[[X2:.*]] = arith.select %[[LE]], %[[X1]], %[[HI]]
// CHECK: %[[T:.*]] = math.fma %[[X2]], %{{.*}}, %[[SHIFTER]]
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[T]], %[[CAP]]
// CHECK: %[[T1:.*]] = arith.select %[[BELOW]], %[[T]], %[[CAP]]
// CHECK: %[[N:.*]] = arith.subf %[[T1]], %[[SHIFTER]]
// CHECK: %[[R0:.*]] = math.fma %[[N]], %{{.*}}, %[[X2]]
// CHECK: %[[R:.*]] = math.fma %[[N]], %{{.*}}, %[[R0]]
// CHECK-COUNT-6: math.fma %{{.*}}, %[[R]], %{{.*}}
// CHECK: %[[P:.*]] = math.fma %{{.*}}, %[[R]], %{{.*}}
// CHECK: %[[BITS:.*]] = arith.bitcast %[[T1]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[EXPONENT:.*]] = arith.shli %[[BITS]]
// CHECK: %[[SCALE:.*]] = arith.bitcast %[[EXPONENT]] : vector<8xi32> to vector<8xf32>
// CHECK: %[[Y:.*]] = arith.mulf %[[P]], %[[SCALE]]
// CHECK: return %[[Y]]
// CHECK-NOT: math.floor
// CHECK-NOT: arith.fptosi
func.func @exp_f32(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// An argument already clamped from above (spine-bound-shifted-exponents puts
// such a select, to <= 1, in front of softmax's exp(x - max(x))): x is
// clamped from below only, n is not capped, r stays within ln2/2 and the
// polynomial is of degree 6. The same with vscalefps: no upper clamp either.
// CHECK-LABEL: func.func @exp_f32_at_most_zero(
// CHECK-DAG: %[[SHIFTER:.*]] = arith.constant dense<0x4B40007F> : vector<8xf32>
// CHECK-DAG: %[[LO:.*]] = arith.constant dense<-8.780000e+01> : vector<8xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: %[[LE0:.*]] = arith.cmpf ule, %[[X:.*]], %[[ZERO]]
// CHECK: %[[X0:.*]] = arith.select %[[LE0]], %[[X]], %[[ZERO]]
// CHECK: %[[GE:.*]] = arith.cmpf uge, %[[X0]], %[[LO]]
// CHECK: %[[X1:.*]] = arith.select %[[GE]], %[[X0]], %[[LO]]
// CHECK-NEXT: %[[T:.*]] = math.fma %[[X1]], %{{.*}}, %[[SHIFTER]]
// CHECK-NEXT: %[[N:.*]] = arith.subf %[[T]], %[[SHIFTER]]
// CHECK-NEXT: %[[R0:.*]] = math.fma %[[N]], %{{.*}}, %[[X1]]
// CHECK-NEXT: %[[R:.*]] = math.fma %[[N]], %{{.*}}, %[[R0]]
// CHECK-COUNT-5: math.fma %{{.*}}, %[[R]], %{{.*}}
// CHECK-NEXT: %[[P:.*]] = math.fma %{{.*}}, %[[R]], %{{.*}}
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[T]] : vector<8xf32> to vector<8xi32>
// CHECK-NEXT: %[[EXPONENT:.*]] = arith.shli %[[BITS]]
// CHECK-NEXT: %[[SCALE:.*]] = arith.bitcast %[[EXPONENT]] : vector<8xi32> to vector<8xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[P]], %[[SCALE]]
// CHECK-NEXT: return %[[Y]]
// SCALEF-LABEL: func.func @exp_f32_at_most_zero(
// SCALEF: arith.cmpf ule
// SCALEF: arith.cmpf uge
// SCALEF-NOT: arith.cmpf
// SCALEF: llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.256"
func.func @exp_f32_at_most_zero(%x: vector<8xf32>) -> vector<8xf32> {
  %c0 = arith.constant 0.0 : f32
  %zero = vector.broadcast %c0 : f32 to vector<8xf32>
  %le = arith.cmpf ule, %x, %zero : vector<8xf32>
  %x0 = arith.select %le, %x, %zero : vector<8xi1>, vector<8xf32>
  %0 = math.exp %x0 : vector<8xf32>
  return %0 : vector<8xf32>
}

// The same clamp marked as only carrying its bound (spine.known_bound, from
// spine-bound-shifted-exponents): the bound is taken from it and x is read
// through it, so the clamp itself goes: one compare and select (the lower
// clamp) before the rounding, and none with vscalefps either.
// CHECK-LABEL: func.func @exp_f32_known_bound(
// CHECK-SAME: %[[X:[a-z0-9]+]]: vector<8xf32>
// CHECK-NOT: arith.cmpf ule
// CHECK: %[[GE:.*]] = arith.cmpf uge, %[[X]], %{{.*}}
// CHECK: %[[X1:.*]] = arith.select %[[GE]], %[[X]], %{{.*}}
// CHECK-NEXT: math.fma %[[X1]]
// CHECK-COUNT-7: math.fma
// CHECK-NOT: arith.select
// CHECK: return
// SCALEF-LABEL: func.func @exp_f32_known_bound(
// SCALEF-NOT: arith.cmpf ule
// SCALEF: arith.cmpf uge
// SCALEF-NOT: arith.cmpf
// SCALEF: llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.256"
func.func @exp_f32_known_bound(%x: vector<8xf32>) -> vector<8xf32> {
  %one = arith.constant dense<1.0> : vector<8xf32>
  %le = arith.cmpf ule, %x, %one : vector<8xf32>
  %x0 = arith.select %le, %x, %one {spine.known_bound} : vector<8xi1>, vector<8xf32>
  %0 = math.exp %x0 : vector<8xf32>
  return %0 : vector<8xf32>
}

// A bound above 88 (x * log2(e) may round to 128) keeps the cap and the
// degree-7 polynomial; the upper clamp goes (88.8 is above the bound's 88.5).
// CHECK-LABEL: func.func @exp_f32_at_most_88_5(
// CHECK: arith.cmpf ule
// CHECK: arith.cmpf uge
// CHECK-NOT: arith.cmpf ule
// CHECK: arith.cmpf olt
// CHECK-COUNT-7: math.fma %{{.*}}, %{{.*}}, %{{.*}}
// CHECK: arith.shli
func.func @exp_f32_at_most_88_5(%x: vector<8xf32>) -> vector<8xf32> {
  %hi = arith.constant dense<88.5> : vector<8xf32>
  %le = arith.cmpf ule, %x, %hi : vector<8xf32>
  %x0 = arith.select %le, %x, %hi : vector<8xi1>, vector<8xf32>
  %0 = math.exp %x0 : vector<8xf32>
  return %0 : vector<8xf32>
}

// f32 exp2(x): n = roundeven(x) by adding 1.5 * 2^23 (0x4B400000), f = x - n
// exact, 2^f a degree-6 polynomial (no math.exp, no libm call), and 2^n from
// the sum's bits in two halves (no roundeven, no fptosi). Upstream's
// exp(x * ln2) lost about |x| ulps.
// CHECK-LABEL: func.func @exp2_f32(
// CHECK-DAG: %[[SHIFTER:.*]] = arith.constant dense<0x4B400000> : vector<8xf32>
// CHECK-DAG: %[[SHIFTER_BITS:.*]] = arith.constant dense<1262485504> : vector<8xi32>
// CHECK: %[[GE:.*]] = arith.cmpf uge, %[[X0:.*]], %{{.*}}
// CHECK: %[[X1:.*]] = arith.select %[[GE]], %[[X0]]
// CHECK: %[[LE:.*]] = arith.cmpf ule, %[[X1]], %{{.*}}
// CHECK: %[[X:.*]] = arith.select %[[LE]], %[[X1]]
// CHECK: %[[T:.*]] = arith.addf %[[X]], %[[SHIFTER]]
// CHECK: %[[N:.*]] = arith.subf %[[T]], %[[SHIFTER]]
// CHECK: %[[F:.*]] = arith.subf %[[X]], %[[N]]
// CHECK-COUNT-6: math.fma %{{.*}}, %[[F]], %{{.*}}
// CHECK: %[[BITS:.*]] = arith.bitcast %[[T]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[K:.*]] = arith.subi %[[BITS]], %[[SHIFTER_BITS]]
// CHECK: arith.shrsi %[[K]]
// CHECK-NOT: math.exp
// CHECK-NOT: math.roundeven
// CHECK-NOT: arith.fptosi
// CHECK: return
func.func @exp2_f32(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp2 %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// f64 exp2: n = roundeven(x) and f = x - n exact, exp(f ln2) by a
// polynomial, and 2^n applied in two halves built from exponent bits.
// CHECK-LABEL: func.func @exp2_f64(
// CHECK-NOT: math.exp2
// CHECK: %[[N:.*]] = math.roundeven %{{.*}} : f64
// CHECK: arith.subf %{{.*}}, %[[N]] : f64
// CHECK: math.floor
// CHECK: arith.shli %{{.*}} : i64
// CHECK: arith.shli %{{.*}} : i64
// CHECK-NOT: math.exp
// CHECK: return
func.func @exp2_f64(%x: f64) -> f64 {
  %0 = math.exp2 %x : f64
  return %0 : f64
}

// f64 exp and log on vectors: no math op left for libm.
// CHECK-LABEL: func.func @exp_log_f64(
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: math.roundeven %{{.*}} : vector<4xf64>
// CHECK: arith.shrui %{{.*}} : vector<4xi64>
// CHECK: arith.divf %{{.*}} : vector<4xf64>
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: return
func.func @exp_log_f64(%x: vector<4xf64>) -> (vector<4xf64>, vector<4xf64>, vector<4xf64>) {
  %0 = math.exp %x : vector<4xf64>
  %1 = math.log %x : vector<4xf64>
  %2 = math.log2 %x : vector<4xf64>
  return %0, %1, %2 : vector<4xf64>, vector<4xf64>, vector<4xf64>
}

// f64 erf: x + x P(x^2) below 0.84375 (the fma adds x last), 1 - exp(-x^2)
// R(|x|) from three pieces selected by ordered compares (a NaN keeps the
// first piece's NaN), 1 from 6 on, and x's sign. No math.erf is left.
// CHECK-LABEL: func.func @erf_f64(
// CHECK-NOT: math.erf
// CHECK: %[[A:.*]] = math.absf %arg0 : vector<4xf64>
// CHECK: %[[T:.*]] = arith.mulf %arg0, %arg0 : vector<4xf64>
// CHECK: math.fma %{{.*}}, %[[T]], %{{.*}} : vector<4xf64>
// CHECK: %[[SMALL:.*]] = math.fma %arg0, %{{.*}}, %arg0 : vector<4xf64>
// CHECK: math.roundeven %{{.*}} : vector<4xf64>
// CHECK: %[[FROM1:.*]] = arith.cmpf oge, %[[A]], %{{.*}} : vector<4xf64>
// CHECK: %[[M1:.*]] = arith.select %[[FROM1]], %{{.*}}, %[[SMALL]]
// CHECK: %[[FROM2:.*]] = arith.cmpf oge, %[[A]], %{{.*}} : vector<4xf64>
// CHECK: %[[M2:.*]] = arith.select %[[FROM2]], %{{.*}}, %[[M1]]
// CHECK: %[[FROM3:.*]] = arith.cmpf oge, %[[A]], %{{.*}} : vector<4xf64>
// CHECK: %[[M3:.*]] = arith.select %[[FROM3]], %{{.*}}, %[[M2]]
// CHECK: %[[FROM6:.*]] = arith.cmpf oge, %[[A]], %{{.*}} : vector<4xf64>
// CHECK: %[[M:.*]] = arith.select %[[FROM6]], %{{.*}}, %[[M3]]
// CHECK: math.copysign %[[M]], %arg0 : vector<4xf64>
// CHECK-NOT: math.erf
// CHECK: return
func.func @erf_f64(%x: vector<4xf64>) -> vector<4xf64> {
  %0 = math.erf %x : vector<4xf64>
  return %0 : vector<4xf64>
}

// f64 pow: log|x| as hi + lo (m - c over m + c, the division's remainder by
// an fma for s's low part), the product y hi with its rounding error from an
// fma and y lo, then exp of the pair; the special cases after. No math.powf
// is left.
// CHECK-LABEL: func.func @pow_f64(
// CHECK-NOT: math.powf
// CHECK: %[[S:.*]] = arith.divf %[[F:.*]], %[[D:.*]] : vector<4xf64>
// CHECK: %[[NEGS:.*]] = arith.negf %[[S]]
// CHECK: math.fma %[[NEGS]], %[[D]], %[[F]] : vector<4xf64>
// CHECK: %[[PH:.*]] = arith.mulf %arg1, %[[HI:.*]] : vector<4xf64>
// CHECK: %[[NEGPH:.*]] = arith.negf %[[PH]]
// CHECK: %[[ERR:.*]] = math.fma %arg1, %[[HI]], %[[NEGPH]] : vector<4xf64>
// CHECK: math.fma %arg1, %{{.*}}, %[[ERR]] : vector<4xf64>
// CHECK: math.roundeven %{{.*}} : vector<4xf64>
// CHECK: math.floor %arg1 : vector<4xf64>
// CHECK-NOT: math.powf
// CHECK: return
func.func @pow_f64(%x: vector<4xf64>, %y: vector<4xf64>) -> vector<4xf64> {
  %0 = math.powf %x, %y : vector<4xf64>
  return %0 : vector<4xf64>
}

// f64 expm1, log1p and tanh: exp's reduction with 2^n from the exponent
// bits; log1p through log with the correction for rounding 1 + x; tanh
// from expm1(2|x|) with x's sign. No call and no math op is left.
// CHECK-LABEL: func.func @expm1_log1p_tanh_f64(
// CHECK-NOT: math.expm1
// CHECK-NOT: math.log1p
// CHECK-NOT: math.tanh
// CHECK: math.roundeven %{{.*}} : vector<4xf64>
// CHECK: arith.shli %{{.*}} : vector<4xi64>
// CHECK: %[[U:.*]] = arith.addf %arg0, %{{.*}} : vector<4xf64>
// CHECK: %[[UM1:.*]] = arith.subf %[[U]], %{{.*}} : vector<4xf64>
// CHECK: %[[LOST:.*]] = arith.subf %arg0, %[[UM1]] : vector<4xf64>
// CHECK: arith.divf %[[LOST]], %[[U]] : vector<4xf64>
// CHECK: math.absf %{{.*}} : vector<4xf64>
// CHECK: math.copysign %{{.*}} : vector<4xf64>
// CHECK-NOT: math.expm1
// CHECK-NOT: math.log1p
// CHECK-NOT: math.tanh
// CHECK: return
func.func @expm1_log1p_tanh_f64(%x: vector<4xf64>) -> (vector<4xf64>, vector<4xf64>, vector<4xf64>) {
  %0 = math.expm1 %x : vector<4xf64>
  %1 = math.log1p %x : vector<4xf64>
  %2 = math.tanh %x : vector<4xf64>
  return %0, %1, %2 : vector<4xf64>, vector<4xf64>, vector<4xf64>
}

// f32 sin: in f64, n = roundeven(x / pi) and r = x - 2n pi/2 by two FMAs
// with the two parts of pi/2, one polynomial (sin's, Horner in r^2), the sign
// of n's parity, one truncation to f32; a branch to libm's f64 sin only when
// some lane is beyond 2^36 (or infinite, or NaN).
// CHECK-LABEL: func.func @sin_f32(
// CHECK-NOT: math.sin %{{.*}} : vector<8xf32>
// CHECK: %[[IN:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : vector<8xf32> to vector<8xf64>
// CHECK: %[[N:.*]] = math.roundeven %{{.*}} : vector<8xf64>
// CHECK: %[[M:.*]] = arith.mulf %[[N]], %{{.*}} : vector<8xf64>
// CHECK: %[[R1:.*]] = math.fma %[[M]], %{{.*}}, %[[X]] : vector<8xf64>
// CHECK: %[[R:.*]] = math.fma %[[M]], %{{.*}}, %[[R1]] : vector<8xf64>
// CHECK: %[[R2:.*]] = arith.mulf %[[R]], %[[R]]
// CHECK-COUNT-5: math.fma %{{.*}}, %[[R2]], %{{.*}} : vector<8xf64>
// CHECK: %[[R3:.*]] = arith.mulf %[[R]], %[[R2]]
// CHECK: %[[S:.*]] = math.fma %[[R3]], %{{.*}}, %[[R]] : vector<8xf64>
// CHECK-NOT: math.fma
// CHECK: %[[ODD:.*]] = arith.cmpf one, %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK: %[[NEG:.*]] = arith.negf %[[S]]
// CHECK: %[[SIN:.*]] = arith.select %[[ODD]], %[[NEG]], %[[S]]
// CHECK: %[[T:.*]] = arith.truncf %[[SIN]] : vector<8xf64> to vector<8xf32>
// sin(-0) = -0: zero lanes keep the argument.
// CHECK: %[[ZERO:.*]] = arith.cmpf oeq, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: %[[APPROX:.*]] = arith.select %[[ZERO]], %{{.*}}, %[[T]] : vector<8xi1>, vector<8xf32>
// CHECK: %[[ANY:.*]] = vector.reduction <or>
// CHECK: scf.if %[[ANY]] -> (vector<8xf32>) {
// CHECK:   math.sin %{{.*}} {spine.libm_call} : vector<8xf64>
// CHECK:   arith.select %[[IN]], %[[APPROX]], %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK: } else {
// CHECK:   scf.yield %[[APPROX]]
func.func @sin_f32(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.sin %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// f32 cos: sin's polynomial at r = x - (2n + 1) pi/2, n = roundeven(x / pi -
// 1/2), negated where n is even.
// CHECK-LABEL: func.func @cos_f32_vector(
// CHECK: %[[T:.*]] = arith.subf %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK: %[[N:.*]] = math.roundeven %[[T]] : vector<8xf64>
// CHECK: %[[M:.*]] = math.fma %[[N]], %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK: %[[R1:.*]] = math.fma %[[M]], %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK: math.fma %[[M]], %{{.*}}, %[[R1]] : vector<8xf64>
// CHECK-COUNT-6: math.fma
// CHECK-NOT: math.fma
// CHECK: %[[ODD:.*]] = arith.cmpf one
// CHECK: %[[EVEN:.*]] = arith.xori %[[ODD]], %{{.*}} : vector<8xi1>
// CHECK: arith.select %[[EVEN]]
// CHECK-NOT: arith.select
// CHECK: arith.truncf %{{.*}} : vector<8xf64> to vector<8xf32>
// CHECK: math.cos %{{.*}} {spine.libm_call} : vector<8xf64>
func.func @cos_f32_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.cos %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// A scalar cos branches on its own range check (the greedy driver swaps the
// branches to test it directly).
// CHECK-LABEL: func.func @cos_f32(
// CHECK: %[[IN:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: vector.reduction
// CHECK: %[[APPROX:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: scf.yield %[[APPROX]]
// CHECK-NEXT: } else {
// CHECK: math.cos %{{.*}} : f64
func.func @cos_f32(%x: f32) -> f32 {
  %0 = math.cos %x : f32
  return %0 : f32
}

// f64 sin: three FMAs with pi/2 in 33 + 33 + 53 bits, longer polynomials,
// and libm (marked, so it is not rewritten again) beyond 2^19.
// CHECK-LABEL: func.func @sin_f64(
// CHECK: %[[IN:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: %[[K:.*]] = math.roundeven %{{.*}} : vector<4xf64>
// CHECK: %[[NK:.*]] = arith.negf %[[K]]
// CHECK: %[[R1:.*]] = math.fma %[[NK]], %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: %[[R2:.*]] = math.fma %[[NK]], %{{.*}}, %[[R1]] : vector<4xf64>
// CHECK: math.fma %[[NK]], %{{.*}}, %[[R2]] : vector<4xf64>
// CHECK: scf.if
// CHECK:   math.sin %{{.*}} {spine.libm_call} : vector<4xf64>
// CHECK:   arith.select %[[IN]]
func.func @sin_f64(%x: vector<4xf64>) -> vector<4xf64> {
  %0 = math.sin %x : vector<4xf64>
  return %0 : vector<4xf64>
}

// f64 tan: sin's reduction, then N / D by a quotient and one correction
// from the residual (an fma per part), -cos r / sin r picked in odd
// quadrants; libm beyond 2^19.
// CHECK-LABEL: func.func @tan_f64(
// CHECK: %[[IN:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: math.roundeven %{{.*}} : vector<4xf64>
// CHECK: %[[Q0:.*]] = arith.divf %{{.*}}, %[[DEN:.*]] : vector<4xf64>
// CHECK: %[[NQ0:.*]] = arith.negf %[[Q0]]
// CHECK: math.fma %[[NQ0]], %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: %[[NQ0B:.*]] = arith.negf %[[Q0]]
// CHECK: math.fma %[[NQ0B]], %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: %[[CORR:.*]] = arith.divf %{{.*}}, %[[DEN]] : vector<4xf64>
// CHECK: arith.addf %[[Q0]], %[[CORR]] : vector<4xf64>
// CHECK: scf.if
// CHECK:   math.tan %{{.*}} {spine.libm_call} : vector<4xf64>
// CHECK:   arith.select %[[IN]]
func.func @tan_f64(%x: vector<4xf64>) -> vector<4xf64> {
  %0 = math.tan %x : vector<4xf64>
  return %0 : vector<4xf64>
}

// f32 pow: exp(y * log|x|) in f64 with no call left; the exponent of |x|
// and 2^n are integer operations on the f64 bits; C's special cases are
// selects.
// CHECK-LABEL: func.func @pow_f32(
// CHECK-NOT: math.powf
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: arith.bitcast %{{.*}} : vector<8xf64> to vector<8xi64>
// CHECK: arith.shrui %{{.*}} : vector<8xi64>
// CHECK: arith.divf %{{.*}} : vector<8xf64>
// CHECK: arith.minimumf
// CHECK: math.roundeven %{{.*}} : vector<8xf64>
// CHECK: arith.shli %{{.*}} : vector<8xi64>
// CHECK: math.floor %{{.*}} : vector<8xf32>
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : vector<8xf64> to vector<8xf32>
// CHECK-NEXT: return %[[R]]
func.func @pow_f32(%x: vector<8xf32>, %y: vector<8xf32>) -> vector<8xf32> {
  %0 = math.powf %x, %y : vector<8xf32>
  return %0 : vector<8xf32>
}

// With avx512-scalef (x86 AVX512F/VL), exp rounds n without capping it and
// applies 2^n by vscalefps: x clamped to [-104, 89] keeping NaN, r within
// ln2/2 so a degree-6 polynomial (6 fmas), no exponent-field arithmetic.
// SCALEF-LABEL: func.func @exp_f32_scalef(
// SCALEF-DAG: %[[SHIFTER:.*]] = arith.constant dense<0x4B400000> : vector<16xf32>
// SCALEF-DAG: %[[LO:.*]] = arith.constant dense<-1.040000e+02> : vector<16xf32>
// SCALEF-DAG: %[[HI:.*]] = arith.constant dense<8.900000e+01> : vector<16xf32>
// SCALEF-DAG: %[[ALL:.*]] = arith.constant -1 : i16
// SCALEF-DAG: %[[CURRENT:.*]] = arith.constant 4 : i32
// SCALEF: arith.cmpf uge, %{{.*}}, %[[LO]]
// SCALEF: arith.cmpf ule, %{{.*}}, %[[HI]]
// SCALEF: %[[X:.*]] = arith.select
// SCALEF: %[[T:.*]] = math.fma %[[X]], %{{.*}}, %[[SHIFTER]]
// SCALEF: %[[N:.*]] = arith.subf %[[T]], %[[SHIFTER]]
// SCALEF: %[[R0:.*]] = math.fma %[[N]], %{{.*}}, %[[X]]
// SCALEF: %[[R:.*]] = math.fma %[[N]], %{{.*}}, %[[R0]]
// SCALEF-COUNT-5: math.fma %{{.*}}, %[[R]], %{{.*}}
// SCALEF: %[[P:.*]] = math.fma %{{.*}}, %[[R]], %{{.*}}
// SCALEF-NEXT: %[[Y:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%[[P]], %[[N]], %[[P]], %[[ALL]], %[[CURRENT]]) : (vector<16xf32>, vector<16xf32>, vector<16xf32>, i16, i32) -> vector<16xf32>
// SCALEF-NEXT: return %[[Y]]
// SCALEF-NOT: arith.shli
func.func @exp_f32_scalef(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// Wider vectors (the vectorizer's unrolled strips) are scaled in 16-lane
// pieces; 8 lanes take the 256-bit form; a scalar goes through 4 lanes; a
// vector no form divides keeps the exponent-field expansion.
// SCALEF-LABEL: func.func @exp2_f32_scalef_shapes(
// SCALEF-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>, i16, i32) -> vector<16xf32>
// SCALEF: llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.256"({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>, i8) -> vector<8xf32>
// SCALEF: vector.broadcast %{{.*}} : f32 to vector<4xf32>
// SCALEF: llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.128"({{.*}}) : (vector<4xf32>, vector<4xf32>, vector<4xf32>, i8) -> vector<4xf32>
// SCALEF: vector.extract %{{.*}}[0] : f32 from vector<4xf32>
// SCALEF-NOT: llvm.call_intrinsic
// SCALEF: arith.shli %{{.*}} : vector<3xi32>
// SCALEF: return
func.func @exp2_f32_scalef_shapes(%a: vector<32xf32>, %b: vector<8xf32>, %c: f32, %d: vector<3xf32>)
    -> (vector<32xf32>, vector<8xf32>, f32, vector<3xf32>) {
  %0 = math.exp2 %a : vector<32xf32>
  %1 = math.exp2 %b : vector<8xf32>
  %2 = math.exp2 %c : f32
  %3 = math.exp2 %d : vector<3xf32>
  return %0, %1, %2, %3 : vector<32xf32>, vector<8xf32>, f32, vector<3xf32>
}

// f32 log of a subnormal x: the approximation reads the exponent field, so
// |x| below 2^-126 (1.17549435E-38) is scaled by 2^24 (0x4B800000) first and
// 24 ln 2 (16.6355324) taken off the result.
// CHECK-LABEL: func.func @log_f32_subnormal(
// CHECK-DAG: %[[SMALLEST:.*]] = arith.constant dense<1.17549435E-38> : vector<8xf32>
// CHECK-DAG: %[[SCALE:.*]] = arith.constant dense<0x4B800000> : vector<8xf32>
// CHECK-DAG: %[[OFFSET:.*]] = arith.constant dense<16.6355324> : vector<8xf32>
// CHECK: %[[A:.*]] = math.absf %[[X:.*]] : vector<8xf32>
// CHECK: %[[TINY:.*]] = arith.cmpf olt, %[[A]], %[[SMALLEST]]
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]]
// CHECK: arith.select %[[TINY]], %[[SCALED]], %[[X]]
// CHECK: %[[TAKEN:.*]] = arith.select %[[TINY]], %[[OFFSET]]
// CHECK: %[[Y:.*]] = arith.subf %{{.*}}, %[[TAKEN]]
// CHECK: return %[[Y]]
// CHECK-NOT: math.log
func.func @log_f32_subnormal(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.log %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// sinh: expm1 of |x| (0 beyond 709, f64; expm1 itself expanded), the halved
// exponent beyond, the sign copied from x. No math op is left for libm.
// CHECK-LABEL: func.func @sinh_f64(
// CHECK-DAG: %[[LIMIT:.*]] = arith.constant dense<7.090000e+02> : vector<4xf64>
// CHECK: %[[A:.*]] = math.absf %[[X:.*]] : vector<4xf64>
// CHECK: %[[IN:.*]] = arith.cmpf olt, %[[A]], %[[LIMIT]]
// CHECK: arith.select %[[IN]], %[[A]], %{{.*}} : vector<4xi1>, vector<4xf64>
// CHECK: %[[R:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf64>
// CHECK-NEXT: %[[Y:.*]] = math.copysign %[[R]], %[[X]]
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: math.sinh
// CHECK-NOT: math.expm1
// CHECK-NOT: math.exp {{.*}}
func.func @sinh_f64(%x: vector<4xf64>) -> vector<4xf64> {
  %0 = math.sinh %x : vector<4xf64>
  return %0 : vector<4xf64>
}

// acosh: NaN below 1 (an unordered compare: NaN stays NaN), log(2x) from
// 2^12 (f32), log1p(t + sqrt(t (t + 2))) with t = x - 1 below.
// CHECK-LABEL: func.func @acosh_f32(
// CHECK-DAG: %[[FAR:.*]] = arith.constant 4.096000e+03 : f32
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[T:.*]] = arith.subf %[[X:.*]], %[[ONE]] : f32
// CHECK: %[[ISFAR:.*]] = arith.cmpf oge, %[[X]], %[[FAR]]
// CHECK: %[[OUTSIDE:.*]] = arith.cmpf ult, %[[X]], %[[ONE]]
// CHECK: %[[R:.*]] = arith.select %[[ISFAR]]
// CHECK: %[[Y:.*]] = arith.select %[[OUTSIDE]], %[[NAN]], %[[R]]
// CHECK: return %[[Y]]
// CHECK-NOT: math.acosh
// CHECK-NOT: math.log1p
func.func @acosh_f32(%x: f32) -> f32 {
  %0 = math.acosh %x : f32
  return %0 : f32
}

// f32 atan2: the smaller of |x| and |y| over the larger, or above tan(pi/8)
// their difference over their sum (one division either way), a polynomial,
// the octant folded in with pi/2 - a and pi - a (x's sign bit, so -0 counts
// as negative), C's special cases selected, y's sign copied.
// CHECK-LABEL: func.func @atan2_f32(
// CHECK-DAG: %[[TAN:.*]] = arith.constant dense<0.414213568> : vector<8xf32>
// CHECK: %[[AY:.*]] = math.absf %[[Y:[^ ]*]] : vector<8xf32>
// CHECK: %[[AX:.*]] = math.absf %[[X:[^ ]*]] : vector<8xf32>
// CHECK: %[[YLARGER:.*]] = arith.cmpf ogt, %[[AY]], %[[AX]]
// CHECK: %[[LARGER:.*]] = arith.select %[[YLARGER]], %[[AY]], %[[AX]]
// CHECK: %[[SMALLER:.*]] = arith.select %[[YLARGER]], %[[AX]], %[[AY]]
// CHECK: %[[BOUND:.*]] = arith.mulf %[[LARGER]], %[[TAN]]
// CHECK: %[[REDUCE:.*]] = arith.cmpf ogt, %[[SMALLER]], %[[BOUND]]
// CHECK: %[[T:.*]] = arith.divf
// CHECK-NOT: arith.divf
// CHECK-COUNT-4: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : vector<8xf32> to vector<8xi32>
// CHECK: arith.cmpi slt, %[[BITS]]
// CHECK: arith.cmpf uno, %[[X]], %[[Y]]
// CHECK: %[[R:.*]] = math.copysign %{{.*}}, %[[Y]]
// CHECK: return %[[R]]
// CHECK-NOT: math.atan
func.func @atan2_f32(%y: vector<8xf32>, %x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.atan2 %y, %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// f32 atan(x) is atan2(x, 1).
// CHECK-LABEL: func.func @atan_f32(
// CHECK: arith.divf
// CHECK-NOT: arith.divf
// CHECK: math.copysign
// CHECK-NOT: math.atan
func.func @atan_f32(%x: f32) -> f32 {
  %0 = math.atan %x : f32
  return %0 : f32
}

// f64 atan2: as f32's, with both operands scaled by a power of two first,
// the quotient's rounding error (and the reduced difference's and sum's)
// carried by a second division, twelve coefficients, and the octant's
// multiple of pi/4 added once (hi by a product, lo by two FMAs).
// CHECK-LABEL: func.func @atan2_f64(
// CHECK: %[[AY:.*]] = math.absf %{{.*}} : vector<4xf64>
// CHECK: %[[AX:.*]] = math.absf %{{.*}} : vector<4xf64>
// CHECK: %[[YLARGER:.*]] = arith.cmpf ogt, %[[AY]], %[[AX]]
// CHECK: %[[T:.*]] = arith.divf %[[N:.*]], %[[D:.*]] : vector<4xf64>
// CHECK: %[[RES:.*]] = math.fma %{{.*}}, %[[D]], %[[N]]
// CHECK: %[[TLO:.*]] = arith.divf %{{.*}}, %[[D]] : vector<4xf64>
// CHECK-NOT: arith.divf
// CHECK-COUNT-12: math.fma
// CHECK: %[[K:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: %[[R:.*]] = math.copysign
// CHECK: return %[[R]]
// CHECK-NOT: math.atan
func.func @atan2_f64(%y: vector<4xf64>, %x: vector<4xf64>) -> vector<4xf64> {
  %0 = math.atan2 %y, %x : vector<4xf64>
  return %0 : vector<4xf64>
}

// f64 atan(x) is atan2(x, 1).
// CHECK-LABEL: func.func @atan_f64(
// CHECK-COUNT-2: arith.divf
// CHECK-NOT: arith.divf
// CHECK: math.copysign
// CHECK-NOT: math.atan
func.func @atan_f64(%x: f64) -> f64 {
  %0 = math.atan %x : f64
  return %0 : f64
}

// f64 asin and acos: atan2 of x and sqrt(1 - x^2), 1 - x^2 by an FMA below
// 1/2 and as (1 - |x|)(1 + |x|) with the sum's rounding error above.
// CHECK-LABEL: func.func @asin_acos_f64(
// CHECK: %[[SQ:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf64>
// CHECK: %[[C:.*]] = math.sqrt %[[SQ]] : vector<4xf64>
// CHECK: math.absf %[[C]]
// CHECK: math.copysign %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: math.sqrt
// CHECK: math.copysign
// CHECK-NOT: math.asin
// CHECK-NOT: math.acos
// CHECK-NOT: math.atan2
func.func @asin_acos_f64(%x: vector<4xf64>) -> (vector<4xf64>, vector<4xf64>) {
  %0 = math.asin %x : vector<4xf64>
  %1 = math.acos %x : vector<4xf64>
  return %0, %1 : vector<4xf64>, vector<4xf64>
}

// f32 cbrt: a subnormal x scaled by 2^24 (the result then by 2^-8), one
// Newton step after MLIR's approximation (r - (r^3 - s) / (3 r^2), none at
// 0), and +-inf passed through (MLIR's approximation made it NaN).
// CHECK-LABEL: func.func @cbrt_f32(
// CHECK-DAG: %[[SMALLEST:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-DAG: %[[UNSCALE:.*]] = arith.constant 3.906250e-03 : f32
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK: %[[A:.*]] = math.absf %[[X:.*]] : f32
// CHECK: %[[TINY:.*]] = arith.cmpf olt, %[[A]], %[[SMALLEST]]
// CHECK: %[[RESIDUAL:.*]] = math.fma %[[SQUARE:[^,]*]], %[[R:[^,]*]], %{{.*}} : f32
// CHECK: %[[DENOMINATOR:.*]] = arith.mulf %[[SQUARE]], %[[THREE]]
// CHECK: %[[STEP:.*]] = arith.divf %[[RESIDUAL]], %[[DENOMINATOR]]
// CHECK: %[[NEWTON:.*]] = arith.subf %[[R]], %[[STEP]]
// CHECK: %[[REFINED:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEWTON]]
// CHECK: %[[SCALE:.*]] = arith.select %[[TINY]], %[[UNSCALE]]
// CHECK: %[[UNSCALED:.*]] = arith.mulf %[[REFINED]], %[[SCALE]]
// CHECK: %[[AX:.*]] = math.absf %[[X]]
// CHECK: %[[INFINITE:.*]] = arith.cmpf oeq, %[[AX]], %[[INF]]
// CHECK: %[[Y:.*]] = arith.select %[[INFINITE]], %[[X]], %[[UNSCALED]]
// CHECK: return %[[Y]]
// CHECK-NOT: math.cbrt
func.func @cbrt_f32(%x: f32) -> f32 {
  %0 = math.cbrt %x : f32
  return %0 : f32
}
