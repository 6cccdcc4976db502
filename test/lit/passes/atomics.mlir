// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s
// RUN: spine-triton-opt --triton-to-linalg-experimental --spine-triton-pipeline %s | FileCheck %s --check-prefix=LLVM
// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s --check-prefix=CLOCK

// Scalar atomics are one LLVM atomic each, with triton's memory semantic as
// the LLVM ordering (relaxed -> monotonic) and the system scope whatever the
// triton scope; an always-true mask leaves no branch.
// CHECK-LABEL: func.func @scalar_rmw
// CHECK-NOT: scf.if
// CHECK: %[[P:.*]] = llvm.inttoptr %arg0 : i64 to !llvm.ptr
// CHECK: %[[OLD:.*]] = llvm.atomicrmw add %[[P]], %arg2 monotonic {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK: llvm.atomicrmw max %[[P]], %arg2 acquire {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK: llvm.atomicrmw umin %[[P]], %arg2 release {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK: llvm.atomicrmw xchg %{{.*}}, %arg3 acq_rel {alignment = 8 : i64} : !llvm.ptr, f64
// CHECK: llvm.store %[[OLD]]
// LLVM-LABEL: llvm.func @scalar_rmw
// LLVM-NOT: syncscope
// LLVM: llvm.atomicrmw add %{{.*}} monotonic
// LLVM-NOT: syncscope
// LLVM: llvm.atomicrmw max %{{.*}} acquire
// LLVM-NOT: syncscope
// LLVM: llvm.atomicrmw umin %{{.*}} release
// LLVM-NOT: syncscope
// LLVM: llvm.atomicrmw xchg %{{.*}} acq_rel
// LLVM-NOT: syncscope
// LLVM: llvm.return
tt.func public @scalar_rmw(%p: !tt.ptr<i32>, %q: !tt.ptr<f64>, %v: i32, %d: f64) {
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %old = tt.atomic_rmw add, relaxed, gpu, %p, %v, %true : (!tt.ptr<i32>, i32, i1) -> i32
  %1 = tt.atomic_rmw max, acquire, cta, %p, %v : (!tt.ptr<i32>, i32) -> i32
  %2 = tt.atomic_rmw umin, release, sys, %p, %v : (!tt.ptr<i32>, i32) -> i32
  %3 = tt.atomic_rmw exch, acq_rel, gpu, %q, %d : (!tt.ptr<f64>, f64) -> f64
  %out = tt.addptr %p, %c1 : !tt.ptr<i32>, i32
  tt.store %out, %old : !tt.ptr<i32>
  tt.return
}

// A scalar mask guards the atomic; masked off it returns zero.
// CHECK-LABEL: func.func @scalar_masked
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-DAG: %[[M:.*]] = arith.cmpi sgt, %arg2, %c0_i32 : i32
// CHECK: %[[R:.*]] = scf.if %[[M]] -> (f16) {
// CHECK:   %[[OLD:.*]] = llvm.atomicrmw fadd %{{.*}}, %arg1 acq_rel {alignment = 2 : i64} : !llvm.ptr, f16
// CHECK:   scf.yield %[[OLD]] : f16
// CHECK: } else {
// CHECK:   scf.yield %[[ZERO]] : f16
// CHECK: llvm.store %[[R]]
tt.func public @scalar_masked(%p: !tt.ptr<f16>, %v: f16, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = arith.cmpi sgt, %n, %c0 : i32
  %old = tt.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : (!tt.ptr<f16>, f16, i1) -> f16
  %out = tt.addptr %p, %c1 : !tt.ptr<f16>, i32
  tt.store %out, %old : !tt.ptr<f16>
  tt.return
}

// A tensor atomic whose old values are used: one loop over the block that
// inserts each element's old value (zero where masked off) into its iter_arg.
// CHECK-LABEL: func.func @tensor_rmw_old_values
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: %[[OLDS:.*]] = scf.for %[[I:.*]] = %c0 to %c16 step %c1 iter_args(%[[ACC:.*]] = %[[EMPTY]]) -> (tensor<16xf32>) {
// CHECK:   %[[M:.*]] = tensor.extract %{{.*}}[%[[I]]] : tensor<16xi1>
// CHECK:   %[[V:.*]] = scf.if %[[M]] -> (f32) {
// CHECK:     llvm.atomicrmw fadd %{{.*}}, %{{.*}} acq_rel {alignment = 4 : i64} : !llvm.ptr, f32
// CHECK:   } else {
// CHECK:     scf.yield %[[ZERO]] : f32
// CHECK:   %[[INS:.*]] = tensor.insert %[[V]] into %[[ACC]][%[[I]]] : tensor<16xf32>
// CHECK:   scf.yield %[[INS]] : tensor<16xf32>
// CHECK: tensor.extract %[[OLDS]]
// LLVM-LABEL: llvm.func @tensor_rmw_old_values
// LLVM: llvm.atomicrmw fadd %{{.*}} acq_rel
// LLVM-NOT: llvm.atomicrmw
// LLVM: llvm.return
tt.func public @tensor_rmw_old_values(%p: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ns = tt.splat %n : i32 -> tensor<16xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<16xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %old = tt.atomic_rmw fadd, acq_rel, gpu, %pp, %one, %m : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %old : tensor<16x!tt.ptr<f32>>
  tt.return
}

// Unused old values: the loop carries nothing, but every atomic stays, in
// program order (and/or/xor on a 2-D block here).
// CHECK-LABEL: func.func @tensor_rmw_unused
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: tensor.insert
// CHECK: llvm.atomicrmw _and {{.*}} monotonic {{.*}} : !llvm.ptr, i64
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: tensor.insert
// CHECK: llvm.atomicrmw _or {{.*}} monotonic {{.*}} : !llvm.ptr, i64
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: tensor.insert
// CHECK: llvm.atomicrmw _xor {{.*}} monotonic {{.*}} : !llvm.ptr, i64
// LLVM-LABEL: llvm.func @tensor_rmw_unused
// LLVM: llvm.atomicrmw _and
// LLVM: llvm.atomicrmw _or
// LLVM: llvm.atomicrmw _xor
tt.func public @tensor_rmw_unused(%p: !tt.ptr<i64>, %x: i64) {
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %r2 = tt.expand_dims %r {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %rb = tt.broadcast %r2 : tensor<1x4xi32> -> tensor<2x4xi32>
  %ps = tt.splat %p : !tt.ptr<i64> -> tensor<2x4x!tt.ptr<i64>>
  %pp = tt.addptr %ps, %rb : tensor<2x4x!tt.ptr<i64>>, tensor<2x4xi32>
  %v = tt.splat %x : i64 -> tensor<2x4xi64>
  %0 = tt.atomic_rmw and, relaxed, gpu, %pp, %v : (tensor<2x4x!tt.ptr<i64>>, tensor<2x4xi64>) -> tensor<2x4xi64>
  %1 = tt.atomic_rmw or, relaxed, gpu, %pp, %v : (tensor<2x4x!tt.ptr<i64>>, tensor<2x4xi64>) -> tensor<2x4xi64>
  %2 = tt.atomic_rmw xor, relaxed, gpu, %pp, %v : (tensor<2x4x!tt.ptr<i64>>, tensor<2x4xi64>) -> tensor<2x4xi64>
  tt.return
}

// Compare-and-swap: cmpxchg returns {old, success}; the old value is the
// result. A failed exchange keeps only the acquire half of the ordering.
// Floats are compared by their bits.
// CHECK-LABEL: func.func @cas
// CHECK: %[[X:.*]] = llvm.cmpxchg %{{.*}}, %arg2, %arg3 acq_rel acquire {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK: %[[OLD:.*]] = llvm.extractvalue %[[X]][0] : !llvm.struct<(i32, i1)>
// CHECK: scf.for
// CHECK:   %[[C:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:   %[[V:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:   %[[Y:.*]] = llvm.cmpxchg %{{.*}}, %[[C]], %[[V]] release monotonic {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK:   %[[B:.*]] = llvm.extractvalue %[[Y]][0]
// CHECK:   %[[F:.*]] = arith.bitcast %[[B]] : i32 to f32
// CHECK:   tensor.insert %[[F]]
// CHECK: llvm.store %[[OLD]]
// LLVM-LABEL: llvm.func @cas
// LLVM: llvm.cmpxchg %{{.*}} acq_rel acquire
// LLVM: llvm.cmpxchg %{{.*}} release monotonic
tt.func public @cas(%p: !tt.ptr<i32>, %f: !tt.ptr<f32>, %c: i32, %v: i32, %fc: f32, %fv: f32) {
  %c1 = arith.constant 1 : i32
  %old = tt.atomic_cas acq_rel, gpu, %p, %c, %v : (!tt.ptr<i32>, i32, i32) -> i32
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %fs = tt.splat %f : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %fp = tt.addptr %fs, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %fcs = tt.splat %fc : f32 -> tensor<8xf32>
  %fvs = tt.splat %fv : f32 -> tensor<8xf32>
  %olds = tt.atomic_cas release, gpu, %fp, %fcs, %fvs : (tensor<8x!tt.ptr<f32>>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %c8 = arith.constant dense<8> : tensor<8xi32>
  %outs = tt.addptr %fp, %c8 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  tt.store %outs, %olds : tensor<8x!tt.ptr<f32>>
  %out = tt.addptr %p, %c1 : !tt.ptr<i32>, i32
  tt.store %out, %old : !tt.ptr<i32>
  tt.return
}

// Atomic loads and stores are ordered llvm.load/llvm.store under the mask.
// CHECK-LABEL: func.func @load_store
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: scf.for
// CHECK:   scf.if
// CHECK:     llvm.load %{{.*}} atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:   } else {
// CHECK:     scf.yield %[[ZERO]] : i32
// CHECK: scf.for
// CHECK:   scf.if
// CHECK:     llvm.store %{{.*}}, %{{.*}} atomic release {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: llvm.load %{{.*}} atomic monotonic {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK: llvm.store %{{.*}}, %{{.*}} atomic monotonic {alignment = 2 : i64} : f16, !llvm.ptr
// LLVM-LABEL: llvm.func @load_store
// LLVM: llvm.load %{{.*}} atomic acquire
// LLVM: llvm.store %{{.*}} atomic release
// LLVM: llvm.load %{{.*}} atomic monotonic
// LLVM: llvm.store %{{.*}} atomic monotonic
tt.func public @load_store(%p: !tt.ptr<i32>, %h: !tt.ptr<f16>, %n: i32) {
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %ns = tt.splat %n : i32 -> tensor<4xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<4xi32>
  %ps = tt.splat %p : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
  %pp = tt.addptr %ps, %r : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
  %seen = tt.atomic_load acquire, gpu, %pp, %m : (tensor<4x!tt.ptr<i32>>, tensor<4xi1>) -> tensor<4xi32>
  tt.atomic_store release, gpu, %pp, %seen, %m : tensor<4x!tt.ptr<i32>>
  %x = tt.atomic_load relaxed, sys, %h : (!tt.ptr<f16>) -> f16
  tt.atomic_store relaxed, sys, %h, %x : !tt.ptr<f16>
  tt.return
}

// Through bufferization and the LLVM lowering the spin lock's
// compare-and-swap stays inside its loop, before the counter update and the
// release.
// LLVM-LABEL: llvm.func @spin_lock
// LLVM: ^[[LOOP:bb[0-9]+]]:
// LLVM: llvm.cmpxchg %{{.*}} acquire acquire
// LLVM: llvm.cond_br %{{.*}}, ^[[LOOP]]
// LLVM: llvm.atomicrmw add %{{.*}} monotonic
// LLVM: llvm.atomicrmw xchg %{{.*}} release
tt.func public @spin_lock(%lock: !tt.ptr<i32>, %counter: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.while : () -> () {
    %old = tt.atomic_cas acquire, gpu, %lock, %c0, %c1 : (!tt.ptr<i32>, i32, i32) -> i32
    %busy = arith.cmpi eq, %old, %c1 : i32
    scf.condition(%busy)
  } do {
    scf.yield
  }
  %0 = tt.atomic_rmw add, relaxed, gpu, %counter, %c1 : (!tt.ptr<i32>, i32) -> i32
  %1 = tt.atomic_rmw exch, release, gpu, %lock, %c0 : (!tt.ptr<i32>, i32) -> i32
  tt.return
}

// tt.atomic_poll with a timeout: the clock (clock_gettime(CLOCK_MONOTONIC)
// through one internal helper) is read once before the spin, and again only
// while the value is absent. The loop loads first, so even a zero timeout
// loads the element once; the result is whether the value was seen.
// CLOCK: llvm.func @clock_gettime(i32, !llvm.ptr) -> i32
// CLOCK-LABEL: llvm.func internal @__spine_triton_monotonic_ns() -> i64
// CLOCK-DAG:   %[[BILLION:.*]] = llvm.mlir.constant(1000000000 : i64) : i64
// CLOCK-DAG:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CLOCK:   %[[TS:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(i64, i64)>
// CLOCK:   llvm.call @clock_gettime(%[[ONE]], %[[TS]])
// CLOCK:   %[[SEC:.*]] = llvm.load %[[TS]] : !llvm.ptr -> i64
// CLOCK:   %[[NSP:.*]] = llvm.getelementptr %[[TS]][0, 1]
// CLOCK:   %[[NSEC:.*]] = llvm.load %[[NSP]] : !llvm.ptr -> i64
// CLOCK:   %[[MUL:.*]] = llvm.mul %[[SEC]], %[[BILLION]] : i64
// CLOCK:   %[[NS:.*]] = llvm.add %[[MUL]], %[[NSEC]] : i64
// CLOCK:   llvm.return %[[NS]] : i64
// CLOCK-NOT: llvm.func @clock_gettime
// CLOCK-NOT: llvm.func internal @__spine_triton_monotonic_ns
// CHECK-LABEL: func.func @poll_scalar
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK-DAG: %[[EXPECTED:.*]] = arith.constant 7 : i32
// CHECK: %[[START:.*]] = llvm.call @__spine_triton_monotonic_ns() : () -> i64
// CHECK: %[[P:.*]] = llvm.inttoptr %arg0 : i64 to !llvm.ptr
// CHECK: %[[SEEN:.*]] = scf.while : () -> i1 {
// CHECK:   %[[V:.*]] = llvm.load %[[P]] atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:   %[[EQ:.*]] = arith.cmpi eq, %[[V]], %[[EXPECTED]] : i32
// CHECK:   %[[NE:.*]] = arith.cmpi ne, %[[V]], %[[EXPECTED]] : i32
// CHECK:   %[[AGAIN:.*]] = scf.if %[[NE]] -> (i1) {
// CHECK:     %[[NOW:.*]] = llvm.call @__spine_triton_monotonic_ns() : () -> i64
// CHECK:     %[[ELAPSED:.*]] = arith.subi %[[NOW]], %[[START]] : i64
// CHECK:     %[[LEFT:.*]] = arith.cmpi ult, %[[ELAPSED]], %arg1 : i64
// CHECK:     scf.yield %[[LEFT]] : i1
// CHECK:   } else {
// CHECK:     scf.yield %[[FALSE]] : i1
// CHECK:   scf.condition(%[[AGAIN]]) %[[EQ]] : i1
// CHECK: } do {
// CHECK-NEXT: ^bb0(%{{.*}}: i1):
// CHECK-NEXT:   scf.yield
// CHECK: arith.extui %[[SEEN]] : i1 to i8
// LLVM-LABEL: llvm.func @poll_scalar
// LLVM: %[[START:.*]] = llvm.call @__spine_triton_monotonic_ns()
// LLVM: ^[[SPIN:bb[0-9]+]]:
// LLVM-NEXT: llvm.load %{{.*}} atomic acquire
// LLVM: llvm.call @__spine_triton_monotonic_ns()
// LLVM: llvm.sub %{{.*}}, %[[START]]
// LLVM: llvm.br ^[[SPIN]]
// LLVM: llvm.return
tt.func public @poll_scalar(%p: !tt.ptr<i32>, %timeout: i64, %out: !tt.ptr<i8>) {
  %c7 = arith.constant 7 : i32
  %seen = tt.atomic_poll acquire, gpu, %p, %c7 timeout %timeout : !tt.ptr<i32>, i32 -> i1
  %byte = arith.extui %seen : i1 to i8
  tt.store %out, %byte : !tt.ptr<i8>
  tt.return
}

// A tensor poll without a timeout: one spin loop per element, in order, inside
// the loop over the block that collects the i1 results; relaxed polls are
// monotonic loads, and no clock is read.
// CHECK-LABEL: func.func @poll_tensor
// CHECK-NOT: llvm.call
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<8xi1>
// CHECK: %[[ALL:.*]] = scf.for %[[I:.*]] = %c0 to %c8 step %c1 iter_args(%[[ACC:.*]] = %[[EMPTY]]) -> (tensor<8xi1>) {
// CHECK:   %[[ADDR:.*]] = tensor.extract %{{.*}}[%[[I]]] : tensor<8xi64>
// CHECK:   %[[P:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr
// CHECK:   %[[SEEN:.*]] = scf.while : () -> i1 {
// CHECK:     %[[V:.*]] = llvm.load %[[P]] atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:     %[[EQ:.*]] = arith.cmpi eq, %[[V]], %arg1 : i64
// CHECK:     %[[NE:.*]] = arith.cmpi ne, %[[V]], %arg1 : i64
// CHECK:     scf.condition(%[[NE]]) %[[EQ]] : i1
// CHECK:   %[[INS:.*]] = tensor.insert %[[SEEN]] into %[[ACC]][%[[I]]] : tensor<8xi1>
// CHECK:   scf.yield %[[INS]] : tensor<8xi1>
// CHECK: tensor.extract %[[ALL]]
// LLVM-LABEL: llvm.func @poll_tensor
// LLVM-NOT: llvm.call @__spine_triton_monotonic_ns
// LLVM: llvm.load %{{.*}} atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// LLVM-NEXT: llvm.icmp "eq"
// LLVM-NEXT: %[[AGAIN:.*]] = llvm.icmp "ne"
// LLVM-NEXT: llvm.cond_br %[[AGAIN]], ^[[BACK:bb[0-9]+]], ^{{bb[0-9]+}}
// LLVM-NEXT: ^[[BACK]]:  // pred: ^[[SPIN:bb[0-9]+]]
// LLVM-NEXT: llvm.br ^[[SPIN]]
tt.func public @poll_tensor(%p: !tt.ptr<i64>, %x: i64, %out: !tt.ptr<i8>) {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %ps = tt.splat %p : !tt.ptr<i64> -> tensor<8x!tt.ptr<i64>>
  %pp = tt.addptr %ps, %r : tensor<8x!tt.ptr<i64>>, tensor<8xi32>
  %v = tt.splat %x : i64 -> tensor<8xi64>
  %seen = tt.atomic_poll relaxed, gpu, %pp, %v : tensor<8x!tt.ptr<i64>>, tensor<8xi64> -> tensor<8xi1>
  %bytes = arith.extui %seen : tensor<8xi1> to tensor<8xi8>
  %os = tt.splat %out : !tt.ptr<i8> -> tensor<8x!tt.ptr<i8>>
  %op = tt.addptr %os, %r : tensor<8x!tt.ptr<i8>>, tensor<8xi32>
  tt.store %op, %bytes : tensor<8x!tt.ptr<i8>>
  tt.return
}

// A poll whose result is unused still waits: the loop over the 2-D block
// stays, carrying nothing. The timeout budget is shared: the clock is read
// once before the block, not per element.
// CHECK-LABEL: func.func @poll_unused
// CHECK: %[[START:.*]] = llvm.call @__spine_triton_monotonic_ns()
// CHECK-NOT: llvm.call @__spine_triton_monotonic_ns
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: tensor.insert
// CHECK: scf.while
// CHECK:   llvm.load %{{.*}} atomic acquire {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK:   scf.if
// CHECK:     llvm.call @__spine_triton_monotonic_ns()
// CHECK:     arith.subi %{{.*}}, %[[START]] : i64
// CHECK: return
tt.func public @poll_unused(%p: !tt.ptr<i16>, %timeout: i64) {
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %r2 = tt.expand_dims %r {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %rb = tt.broadcast %r2 : tensor<1x4xi32> -> tensor<2x4xi32>
  %ps = tt.splat %p : !tt.ptr<i16> -> tensor<2x4x!tt.ptr<i16>>
  %pp = tt.addptr %ps, %rb : tensor<2x4x!tt.ptr<i16>>, tensor<2x4xi32>
  %one = arith.constant dense<1> : tensor<2x4xi16>
  %seen = tt.atomic_poll acquire, sys, %pp, %one timeout %timeout : tensor<2x4x!tt.ptr<i16>>, tensor<2x4xi16> -> tensor<2x4xi1>
  tt.return
}
