// Every tt op and type in its printed form survives print -> parse -> print.
// RUN: spine-triton-opt %s | spine-triton-opt | FileCheck %s
// Source locations (named, file:line:col, call sites) survive too.
// RUN: spine-triton-opt %s --mlir-print-debuginfo | spine-triton-opt --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// CHECK-LABEL: tt.func public @types
// CHECK-SAME: !tt.ptr<f32>, %{{.*}}: !tt.ptr<f32>, %{{.*}}: !tt.ptr<i8, "descriptor">, %{{.*}}: !tt.ptr<f16, "constant">
// CHECK-SAME: !tt.ptr<!tt.ptr<f32>>, %{{.*}}: !tt.tensordesc<16x32xf32>, %{{.*}}: !tt.tensordesc<1x64xbf16, #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>>
tt.func public @types(%a: !tt.ptr<f32>, %b: !tt.ptr<f32, 1>, %c: !tt.ptr<i8, "descriptor">, %d: !tt.ptr<f16, 4>, %e: !tt.ptr<!tt.ptr<f32>>, %f: !tt.tensordesc<16x32xf32>, %g: !tt.tensordesc<1x64xbf16, #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>>) {
  tt.return
}

// CHECK-LABEL: tt.func private @ops
tt.func private @ops(%p: !tt.ptr<f32>, %pi: !tt.ptr<i32>, %x: f32, %i: i32, %i64: i64) -> f32 attributes {noinline = true} {
  // CHECK: tt.get_program_id y : i32
  %pid = tt.get_program_id y : i32
  // CHECK: tt.get_num_programs z : i32
  %np = tt.get_num_programs z : i32
  // CHECK: tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  // LOC: tt.make_range {{.*}} loc(#[[RANGE:loc[0-9]*]])
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32> loc(callsite("offs"("kernel.py":7:19) at "kernel.py":12:5))
  // CHECK: tt.splat %{{.*}} : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  // CHECK: tt.addptr %{{.*}}, %{{.*}} : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %pa = tt.addptr %ps, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %m = arith.cmpi slt, %r, %r : tensor<16xi32>
  %o = tt.splat %x : f32 -> tensor<16xf32>
  // CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} {cachePolicy = #tt.cache_policy<cache_modifier = ca, eviction_policy = evict_first>, isVolatile = true} : tensor<16x!tt.ptr<f32>>
  %v = tt.load %pa, %m, %o {cachePolicy = #tt.cache_policy<cache_modifier = ca, eviction_policy = evict_first>, isVolatile = true} : tensor<16x!tt.ptr<f32>>
  // CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} {ignore_cta} : tensor<16x!tt.ptr<f32>>
  tt.store %pa, %v, %m {ignore_cta} : tensor<16x!tt.ptr<f32>>
  // CHECK: tt.int_to_ptr %{{.*}} : i64 -> !tt.ptr<f32>
  %ip = tt.int_to_ptr %i64 : i64 -> !tt.ptr<f32>
  // CHECK: tt.ptr_to_int %{{.*}} : !tt.ptr<f32> -> i64
  %pi64 = tt.ptr_to_int %ip : !tt.ptr<f32> -> i64
  // CHECK: tt.bitcast %{{.*}} : tensor<16xf32> -> tensor<16xi32>
  %bc = tt.bitcast %v : tensor<16xf32> -> tensor<16xi32>
  // CHECK: tt.fp_to_fp %{{.*}}, rounding = rtz : tensor<16xf32> -> tensor<16xf8E5M2>
  %f8 = tt.fp_to_fp %v, rounding = rtz : tensor<16xf32> -> tensor<16xf8E5M2>
  // CHECK: tt.clampf %{{.*}}, %{{.*}}, %{{.*}}, propagateNan = all : tensor<16xf32>
  %cl = tt.clampf %v, %o, %o, propagateNan = all : tensor<16xf32>
  // CHECK: tt.precise_sqrt %{{.*}} : tensor<16xf32>
  %sq = tt.precise_sqrt %cl : tensor<16xf32>
  // CHECK: tt.precise_divf %{{.*}}, %{{.*}} : tensor<16xf32>
  %dv = tt.precise_divf %sq, %o : tensor<16xf32>
  // CHECK: tt.approx_divf %{{.*}}, %{{.*}} : tensor<16xf32>
  %ad = tt.approx_divf %dv, %o : tensor<16xf32>
  // CHECK: tt.mulhiui %{{.*}}, %{{.*}} : tensor<16xi32>
  %mh = tt.mulhiui %bc, %r : tensor<16xi32>
  // CHECK: tt.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %e = tt.expand_dims %ad {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  // CHECK: tt.broadcast %{{.*}} : tensor<16x1xf32> -> tensor<16x16xf32>
  %bb = tt.broadcast %e : tensor<16x1xf32> -> tensor<16x16xf32>
  // CHECK: tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x16xf32> -> tensor<16x16xf32>
  %t = tt.trans %bb {order = array<i32: 1, 0>} : tensor<16x16xf32> -> tensor<16x16xf32>
  // CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}}, inputPrecision = tf32x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %dt = tt.dot %bb, %t, %bb, inputPrecision = tf32x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  // CHECK: tt.reshape %{{.*}} allow_reorder efficient_layout : tensor<16x16xf32> -> tensor<256xf32>
  %rs = tt.reshape %dt allow_reorder efficient_layout : tensor<16x16xf32> -> tensor<256xf32>
  // CHECK: tt.cat %{{.*}}, %{{.*}} : tensor<16xf32> -> tensor<32xf32>
  %ct = tt.cat %ad, %ad : tensor<16xf32> -> tensor<32xf32>
  // CHECK: tt.join %{{.*}}, %{{.*}} : tensor<16xf32> -> tensor<16x2xf32>
  %jn = tt.join %ad, %ad : tensor<16xf32> -> tensor<16x2xf32>
  // CHECK: tt.split %{{.*}} : tensor<16x2xf32> -> tensor<16xf32>
  %s0, %s1 = tt.split %jn : tensor<16x2xf32> -> tensor<16xf32>
  // CHECK: tt.gather %{{.*}}[%{{.*}}] {axis = 0 : i32} : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
  %g = tt.gather %s0[%r] {axis = 0 : i32} : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
  // CHECK: tt.histogram %{{.*}}, %{{.*}} : tensor<16xi32> -> tensor<4xi32>
  %h = tt.histogram %r, %m : tensor<16xi32> -> tensor<4xi32>
  // CHECK: "tt.reduce"(%{{.*}}) <{axis = 0 : i32}> ({
  // CHECK: tt.reduce.return %{{.*}} : f32
  // CHECK: }) : (tensor<16xf32>) -> f32
  %red = "tt.reduce"(%g) <{axis = 0 : i32}> ({
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    tt.reduce.return %s : f32
  }) : (tensor<16xf32>) -> f32
  // CHECK: "tt.scan"(%{{.*}}) <{axis = 0 : i32, reverse = true}> ({
  // CHECK: tt.scan.return %{{.*}} : f32
  %scn = "tt.scan"(%g) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.mulf %a0, %a1 : f32
    tt.scan.return %s : f32
  }) : (tensor<16xf32>) -> tensor<16xf32>
  // CHECK: "tt.map_elementwise"(%{{.*}}) <{pack = 1 : i32}> ({
  // CHECK: tt.map_elementwise.return %{{.*}} : f32
  %me = "tt.map_elementwise"(%scn) <{pack = 1 : i32}> ({
  ^bb0(%a0: f32):
    tt.map_elementwise.return %a0 : f32
  }) : (tensor<16xf32>) -> tensor<16xf32>
  // CHECK: tt.unsplat %{{.*}} : tensor<1xf32>
  %one = tt.splat %red : f32 -> tensor<1xf32>
  %us = tt.unsplat %one : tensor<1xf32>
  // CHECK: tt.extern_elementwise %{{.*}} {libname = "", libpath = "", pure = true, symbol = "__nv_expf"} : (tensor<16xf32>) -> tensor<16xf32>
  %ex = tt.extern_elementwise %me {libname = "", libpath = "", pure = true, symbol = "__nv_expf"} : (tensor<16xf32>) -> tensor<16xf32>
  // CHECK: tt.elementwise_inline_asm "mov $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %{{.*}} : tensor<16xf32> -> tensor<16xf32>
  %asm = tt.elementwise_inline_asm "mov $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %ex : tensor<16xf32> -> tensor<16xf32>
  // CHECK: tt.atomic_rmw fadd, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
  %rmw = tt.atomic_rmw fadd, acq_rel, gpu, %pa, %asm, %m : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
  // CHECK: tt.atomic_cas relaxed, cta, %{{.*}}, %{{.*}}, %{{.*}} : (!tt.ptr<i32>, i32, i32) -> i32
  %cas = tt.atomic_cas relaxed, cta, %pi, %i, %i : (!tt.ptr<i32>, i32, i32) -> i32
  // CHECK: tt.atomic_load acquire, sys, %{{.*}} : (!tt.ptr<i32>) -> i32
  %al = tt.atomic_load acquire, sys, %pi : (!tt.ptr<i32>) -> i32
  // CHECK: tt.atomic_store release, gpu, %{{.*}}, %{{.*}} : !tt.ptr<i32>
  tt.atomic_store release, gpu, %pi, %al : !tt.ptr<i32>
  // CHECK: tt.atomic_poll acquire, gpu, %{{.*}}, %{{.*}} timeout %{{.*}} : !tt.ptr<i32>, i32 -> i1
  %pl = tt.atomic_poll acquire, gpu, %pi, %cas timeout %i64 : !tt.ptr<i32>, i32 -> i1
  // CHECK: tt.grid_dependency_wait
  tt.grid_dependency_wait
  // CHECK: tt.grid_dependency_launch_dependents
  tt.grid_dependency_launch_dependents
  // CHECK: tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %{{.*}} : tensor<16xi32>
  tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %mh : tensor<16xi32>
  // CHECK: tt.assert %{{.*}}, "bad" : tensor<16xi1>
  tt.assert %m, "bad" : tensor<16xi1>
  // CHECK: tt.make_tensor_descriptor %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] {padding = 2 : i32} : <f32>, <16x32xf32>
  %desc = tt.make_tensor_descriptor %p, [%i, %i], [%i64, %i64] {padding = 2 : i32} : <f32>, <16x32xf32>
  // CHECK: tt.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}] : !tt.tensordesc<16x32xf32> -> tensor<16x32xf32>
  %dl = tt.descriptor_load %desc[%i, %i] : !tt.tensordesc<16x32xf32> -> tensor<16x32xf32>
  // CHECK: tt.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tt.tensordesc<16x32xf32>, tensor<16x32xf32>
  tt.descriptor_store %desc[%i, %i], %dl : !tt.tensordesc<16x32xf32>, tensor<16x32xf32>
  // CHECK: tt.descriptor_reduce add, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tt.tensordesc<16x32xf32>, tensor<16x32xf32>
  tt.descriptor_reduce add, %desc[%i, %i], %dl : !tt.tensordesc<16x32xf32>, tensor<16x32xf32>
  %rows = tt.make_tensor_descriptor %p, [%i, %i], [%i64, %i64] : !tt.ptr<f32>, !tt.tensordesc<1x32xf32>
  // CHECK: tt.descriptor_gather %{{.*}}[%{{.*}}, %{{.*}}] : (!tt.tensordesc<1x32xf32>, tensor<16xi32>, i32) -> tensor<16x32xf32>
  %dg = tt.descriptor_gather %rows[%r, %i] : (!tt.tensordesc<1x32xf32>, tensor<16xi32>, i32) -> tensor<16x32xf32>
  // CHECK: tt.descriptor_scatter %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tt.tensordesc<1x32xf32>, tensor<16xi32>, i32, tensor<16x32xf32>
  tt.descriptor_scatter %rows[%r, %i], %dg : !tt.tensordesc<1x32xf32>, tensor<16xi32>, i32, tensor<16x32xf32>
  // CHECK: tt.return %{{.*}} : f32
  tt.return %us : f32
}

// LOC-DAG: #[[OFFS:loc[0-9]*]] = loc("kernel.py":7:19)
// LOC-DAG: #[[NAMED:loc[0-9]*]] = loc("offs"(#[[OFFS]]))
// LOC-DAG: #[[CALLER:loc[0-9]*]] = loc("kernel.py":12:5)
// LOC-DAG: #[[RANGE]] = loc(callsite(#[[NAMED]] at #[[CALLER]]))

// CHECK-LABEL: tt.func @calls_and_scaled_dot
tt.func @calls_and_scaled_dot(%a: !tt.ptr<f32>, %c: !tt.ptr<i8, "descriptor">, %d: !tt.ptr<f16, "constant">, %e: !tt.ptr<!tt.ptr<f32>>, %f: !tt.tensordesc<16x32xf32>, %g: !tt.tensordesc<1x64xbf16, #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>>, %x: tensor<16x32xf8E4M3FN>, %y: tensor<32x16xf8E5M2>, %acc: tensor<16x16xf32>, %sx: tensor<16x1xi8>, %sy: tensor<16x1xi8>) -> tensor<16x16xf32> {
  // CHECK: tt.call @types(
  tt.call @types(%a, %a, %c, %d, %e, %f, %g) : (!tt.ptr<f32>, !tt.ptr<f32>, !tt.ptr<i8, "descriptor">, !tt.ptr<f16, "constant">, !tt.ptr<!tt.ptr<f32>>, !tt.tensordesc<16x32xf32>, !tt.tensordesc<1x64xbf16, #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>>) -> ()
  // CHECK: tt.dot_scaled %{{.*}} scale %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = e4m3 rhs = e5m2 {fastMath = true} : tensor<16x32xf8E4M3FN>, tensor<16x1xi8> * tensor<32x16xf8E5M2>, tensor<16x1xi8> -> tensor<16x16xf32>
  %0 = tt.dot_scaled %x scale %sx, %y scale %sy, %acc lhs = e4m3 rhs = e5m2 {fastMath = true} : tensor<16x32xf8E4M3FN>, tensor<16x1xi8> * tensor<32x16xf8E5M2>, tensor<16x1xi8> -> tensor<16x16xf32>
  tt.return %0 : tensor<16x16xf32>
}
