// RUN: spine-triton-opt --split-input-file --verify-diagnostics --triton-to-linalg-experimental %s | FileCheck %s

// libdevice calls (tl.extra.libdevice resolves to CUDA's symbols) become the
// math/arith ops of the same meaning, on tensors or scalars; the float twin of
// a double function ends in 'f', and fast_ variants get the accurate op.
// CHECK-LABEL: func.func @libdevice(
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK-DAG: %[[C32:.*]] = arith.constant dense<32> : tensor<16xi64>
// CHECK-DAG: %[[TEN:.*]] = arith.constant dense<1.000000e+01> : tensor<16xf32>
// CHECK: math.tanh %{{.*}} : f32
// CHECK: math.erf %{{.*}} : f64
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// exp10(x) = 10 ** x
// CHECK: ins(%[[TEN]], %arg0 : tensor<16xf32>, tensor<16xf32>)
// CHECK: math.powf
// isnan: an unordered self-compare, as an int
// CHECK: arith.cmpf uno, %{{.*}}, %{{.*}} : f32
// CHECK: arith.extui %{{.*}} : i1 to i32
// clzll counts into an int
// CHECK: math.ctlz %{{.*}} : i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// mulhi: the high half of the sign-extended product
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: ins(%{{.*}}, %[[C32]] : tensor<16xi64>, tensor<16xi64>)
// CHECK: arith.shrui
// CHECK: arith.trunci %{{.*}} : i64 to i32
// float2int_rd: round down, then convert
// CHECK: math.floor %{{.*}} : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// fdim: x - y where x > y or either is NaN, else +0
// CHECK: arith.cmpf ugt
// CHECK: arith.subf
// CHECK: ins(%{{.*}}, %{{.*}}, %[[ZERO]] : tensor<16xi1>, tensor<16xf32>, tensor<16xf32>)
// CHECK: arith.select
// A scalar call stays scalar.
// CHECK: %[[SQRT:.*]] = math.sqrt %arg5 : f32
// CHECK: return {{.*}}, %[[SQRT]] : {{.*}}, f32
tt.func public @libdevice(%x: tensor<16xf32>, %y: tensor<16xf32>, %d: tensor<16xf64>, %l: tensor<16xi64>, %i: tensor<16xi32>, %s: f32)
    -> (tensor<16xf32>, tensor<16xf64>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xf32>, f32) {
  %tanh = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<16xf32>) -> tensor<16xf32>
  %erf = tt.extern_elementwise %d {libname = "", libpath = "", pure = true, symbol = "__nv_erf"} : (tensor<16xf64>) -> tensor<16xf64>
  %pow = tt.extern_elementwise %x, %y {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %fma = tt.extern_elementwise %x, %y, %x {libname = "", libpath = "", pure = true, symbol = "__nv_fmaf"} : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %exp10 = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_fast_exp10f"} : (tensor<16xf32>) -> tensor<16xf32>
  %nan = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_isnanf"} : (tensor<16xf32>) -> tensor<16xi32>
  %clz = tt.extern_elementwise %l {libname = "", libpath = "", pure = true, symbol = "__nv_clzll"} : (tensor<16xi64>) -> tensor<16xi32>
  %hi = tt.extern_elementwise %i, %i {libname = "", libpath = "", pure = true, symbol = "__nv_mulhi"} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  %cvt = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_float2int_rd"} : (tensor<16xf32>) -> tensor<16xi32>
  %fdim = tt.extern_elementwise %x, %y {libname = "", libpath = "", pure = true, symbol = "__nv_fdimf"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %sqrt = tt.extern_elementwise %s {libname = "", libpath = "", pure = true, symbol = "__nv_sqrtf"} : (f32) -> f32
  tt.return %tanh, %erf, %pow, %fma, %exp10, %nan, %clz, %hi, %cvt, %fdim, %sqrt : tensor<16xf32>, tensor<16xf64>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xf32>, f32
}

// -----

// map_elementwise: the scalar region becomes the body of a generic; a region
// with branches (early returns) runs in an scf.execute_region; pack = 2 walks
// pairs of consecutive elements of the flattened operands.
// CHECK-LABEL: func.func @map(
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[POS:.*]] = arith.cmpf ogt, %[[A]], %[[ZERO]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[POS]], %[[A]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[E:.*]] = scf.execute_region -> f32 {
// CHECK: cf.cond_br
// CHECK: math.exp %[[B]] : f32
// CHECK: ^bb2(%[[M:.*]]: f32):
// CHECK-NEXT: scf.yield %[[M]] : f32
// CHECK: linalg.yield %[[E]] : f32
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: %[[Y:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %c0 to %c32 step %c2 iter_args(%[[S:.*]] = %{{.*}}, %[[D:.*]] = %{{.*}}) -> (tensor<32xf32>, tensor<32xf32>)
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %c1 : index
// CHECK: %[[X0:.*]] = tensor.extract %[[X]][%[[I]]]
// CHECK: %[[X1:.*]] = tensor.extract %[[X]][%[[I1]]]
// CHECK: %[[Y0:.*]] = tensor.extract %[[Y]][%[[I]]]
// CHECK: %[[Y1:.*]] = tensor.extract %[[Y]][%[[I1]]]
// CHECK: %[[S0:.*]] = arith.addf %[[X0]], %[[Y0]]
// CHECK: %[[S1:.*]] = arith.addf %[[X1]], %[[Y1]]
// CHECK: %[[D0:.*]] = arith.subf %[[X0]], %[[Y0]]
// CHECK: %[[D1:.*]] = arith.subf %[[X1]], %[[Y1]]
// CHECK: %[[T0:.*]] = tensor.insert %[[S0]] into %[[S]][%[[I]]]
// CHECK: %[[T1:.*]] = tensor.insert %[[S1]] into %[[T0]][%[[I1]]]
// CHECK: %[[U0:.*]] = tensor.insert %[[D0]] into %[[D]][%[[I]]]
// CHECK: %[[U1:.*]] = tensor.insert %[[D1]] into %[[U0]][%[[I1]]]
// CHECK: scf.yield %[[T1]], %[[U1]]
// CHECK: tensor.expand_shape %[[LOOP]]#0 {{\[\[}}0, 1]] output_shape [4, 8]
// CHECK: tensor.expand_shape %[[LOOP]]#1 {{\[\[}}0, 1]] output_shape [4, 8]
tt.func public @map(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %relu = "tt.map_elementwise"(%x) <{pack = 1 : i32}> ({
  ^bb0(%a: f32):
    %pos = arith.cmpf ogt, %a, %zero : f32
    %r = arith.select %pos, %a, %zero : f32
    tt.map_elementwise.return %r : f32
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %branchy = "tt.map_elementwise"(%x) <{pack = 1 : i32}> ({
  ^bb0(%a: f32):
    %pos = arith.cmpf ogt, %a, %zero : f32
    cf.cond_br %pos, ^bb1, ^bb2
  ^bb1:
    %e = math.exp %a : f32
    cf.br ^bb3(%e : f32)
  ^bb2:
    cf.br ^bb3(%a : f32)
  ^bb3(%r: f32):
    tt.map_elementwise.return %r : f32
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %sum, %diff = "tt.map_elementwise"(%x, %y) <{pack = 2 : i32}> ({
  ^bb0(%x0: f32, %x1: f32, %y0: f32, %y1: f32):
    %s0 = arith.addf %x0, %y0 : f32
    %s1 = arith.addf %x1, %y1 : f32
    %d0 = arith.subf %x0, %y0 : f32
    %d1 = arith.subf %x1, %y1 : f32
    tt.map_elementwise.return %s0, %s1, %d0, %d1 : f32, f32, f32, f32
  }) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  tt.return %relu, %branchy, %sum, %diff : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Functions without a math op: libm calls per element (declared once), special
// functions written out, bit functions, directed rounding.
// CHECK-LABEL: func.func private @j0f(f32) -> f32
// CHECK-LABEL: func.func @libdevice_extra(
// CHECK: linalg.generic
// CHECK: %[[J0:.*]] = func.call @j0f(%{{.*}}) : (f32) -> f32
// CHECK-NEXT: linalg.yield %[[J0]] : f32
// erfinvf: w = -log((1 - y)(1 + y)), two polynomials in w (all inside
// generics after convert-elementwise-to-linalg, hence scalars).
// CHECK: math.log %{{.*}} : f32
// CHECK: math.fma
// sinpi: exact reduction in f64, then sin and cos of pi t.
// CHECK: math.roundeven %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: math.cos %{{.*}} : f64
// CHECK: llvm.intr.bitreverse(%{{.*}}) : (i32) -> i32
// fadd_rd: the exact f64 sum and its TwoSum error decide the step down.
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
tt.func public @libdevice_extra(%x: tensor<16xf32>, %i: tensor<16xi32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xi32>, tensor<16xf32>) {
  %j0 = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_j0f"} : (tensor<16xf32>) -> tensor<16xf32>
  %inv = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_erfinvf"} : (tensor<16xf32>) -> tensor<16xf32>
  %sinpi = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_sinpif"} : (tensor<16xf32>) -> tensor<16xf32>
  %brev = tt.extern_elementwise %i {libname = "", libpath = "", pure = true, symbol = "__nv_brev"} : (tensor<16xi32>) -> tensor<16xi32>
  %add = tt.extern_elementwise %x, %x {libname = "", libpath = "", pure = true, symbol = "__nv_fadd_rd"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  tt.return %j0, %inv, %sinpi, %brev, %add : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xi32>, tensor<16xf32>
}

// -----

// Refusals: the error names what cannot run on a CPU, at the op; the failed
// match then fails the conversion. f64 products have no exact error term
// near the subnormal range, so their directed roundings are refused.
tt.func public @directed_f64_product(%x: tensor<16xf64>) -> tensor<16xf64> {
  // expected-error @+2 {{'tt.extern_elementwise' op calls '__nv_dmul_rd', which has no CPU implementation in spine-triton}}
  // expected-error @+1 {{failed to legalize operation 'tt.extern_elementwise'}}
  %y = tt.extern_elementwise %x, %x {libname = "", libpath = "", pure = true, symbol = "__nv_dmul_rd"} : (tensor<16xf64>, tensor<16xf64>) -> tensor<16xf64>
  tt.return %y : tensor<16xf64>
}

// -----

tt.func public @wrong_arity(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+2 {{'tt.extern_elementwise' op calls '__nv_tanhf', which has no CPU implementation in spine-triton}}
  // expected-error @+1 {{failed to legalize operation 'tt.extern_elementwise'}}
  %y = tt.extern_elementwise %x, %x {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  tt.return %y : tensor<16xf32>
}

// -----

tt.func public @other_library(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+2 {{'tt.extern_elementwise' op calls '__ocml_tanh_f32', which has no CPU implementation in spine-triton}}
  // expected-error @+1 {{failed to legalize operation 'tt.extern_elementwise'}}
  %y = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__ocml_tanh_f32"} : (tensor<16xf32>) -> tensor<16xf32>
  tt.return %y : tensor<16xf32>
}

// -----

tt.func public @asm(%x: tensor<16xf32>) -> tensor<16xi32> {
  // expected-error @+2 {{'tt.elementwise_inline_asm' op inline assembly is not supported on CPU}}
  // expected-error @+1 {{failed to legalize operation 'tt.elementwise_inline_asm'}}
  %y = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<16xf32> -> tensor<16xi32>
  tt.return %y : tensor<16xi32>
}
