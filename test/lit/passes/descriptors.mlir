// RUN: spine-triton-opt --split-input-file --verify-diagnostics --triton-to-linalg-experimental %s | FileCheck %s

// Tensor descriptors become their scalars (base, shape, strides, pad-with-NaN)
// and a block access an element loop nest: each element's address is the
// block origin's address (computed once, before the loops) plus its index
// times the strides (the innermost stride is 1), and it is read or written
// only when every coordinate is below its extent (an unsigned compare, so a
// negative coordinate is out of bounds too). Out of bounds, loads yield the
// padding: NaN here (padding = nan).

// CHECK-LABEL: func.func @copy_2d
// CHECK-SAME: (%[[SRC:[^:]*]]: i64, %[[DST:[^:]*]]: i64, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[LD:[^:]*]]: i64, %[[OM:[^:]*]]: i32, %[[ON:[^:]*]]: i32,
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK-DAG: %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK-DAG: %[[OM64:.*]] = arith.extsi %[[OM]] : i32 to i64
// CHECK-DAG: %[[ON64:.*]] = arith.extsi %[[ON]] : i32 to i64
// CHECK: %[[ROWOFF:.*]] = arith.muli %[[OM64]], %[[LD]] : i64
// CHECK: %[[ELTOFF:.*]] = arith.addi %[[ROWOFF]], %[[ON64]] : i64
// CHECK: %[[BYTEOFF:.*]] = arith.muli %[[ELTOFF]], %c4_i64 : i64
// CHECK: %[[ORIGIN:.*]] = arith.addi %[[SRC]], %[[BYTEOFF]] : i64
// CHECK: scf.for %[[I:[^ ]*]] = %c0 to %c4
// CHECK: scf.for %[[J:[^ ]*]] = %c0 to %c8
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[R:.*]] = arith.addi %[[OM64]], %[[I64]] : i64
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %[[R]], %[[M64]] : i64
// CHECK: %[[C:.*]] = arith.addi %[[ON64]], %[[J64]] : i64
// CHECK: %[[CIN:.*]] = arith.cmpi ult, %[[C]], %[[N64]] : i64
// CHECK: %[[IN:.*]] = arith.andi %[[RIN]], %[[CIN]] : i1
// CHECK: %[[IR:.*]] = arith.muli %[[I64]], %[[LD]] : i64
// CHECK: %[[IE:.*]] = arith.addi %[[IR]], %[[J64]] : i64
// CHECK: %[[IB:.*]] = arith.muli %[[IE]], %c4_i64 : i64
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK: %[[BASE:.*]] = llvm.inttoptr %[[ORIGIN]] : i64 to !llvm.ptr
// CHECK: %[[PTR:.*]] = llvm.getelementptr %[[BASE]][%[[IB]]]
// CHECK: llvm.load %[[PTR]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK: } else {
// CHECK: scf.yield %[[NAN]] : f32
// CHECK: tensor.insert
// The store: same origin offset from the other base, guarded the same way.
// CHECK: %[[DORIGIN:.*]] = arith.addi %[[DST]], %[[BYTEOFF]] : i64
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[V:.*]] = tensor.extract
// CHECK: arith.cmpi ult
// CHECK: arith.cmpi ult
// CHECK: %[[WIN:.*]] = arith.andi
// CHECK: scf.if %[[WIN]] {
// CHECK: llvm.inttoptr %[[DORIGIN]]
// CHECK: llvm.store %[[V]], {{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NOT: tt.
tt.func public @copy_2d(%src: !tt.ptr<f32>, %dst: !tt.ptr<f32>, %m: i32, %n: i32, %ld: i64, %om: i32, %on: i32) {
  %c1 = arith.constant 1 : i64
  %s = tt.make_tensor_descriptor %src, [%m, %n], [%ld, %c1] {padding = 2 : i32} : <f32>, <4x8xf32>
  %d = tt.make_tensor_descriptor %dst, [%m, %n], [%ld, %c1] : <f32>, <4x8xf32>
  %t = tt.descriptor_load %s[%om, %on] : !tt.tensordesc<4x8xf32> -> tensor<4x8xf32>
  tt.descriptor_store %d[%om, %on], %t : !tt.tensordesc<4x8xf32>, tensor<4x8xf32>
  tt.return
}

// -----

// A descriptor kernel argument is its scalars, followed by the .shape.N and
// .stride.N arguments of the TTIR signature; argument attributes stay with
// their argument. The padding is a run-time choice, and descriptor_reduce is
// a relaxed atomic per element.

// CHECK-LABEL: func.func @host_arg
// CHECK-SAME: (%[[IN:[^:]*]]: i64, %[[IM:[^:]*]]: i64, %[[IN_:[^:]*]]: i64, %[[IS0:[^:]*]]: i64, %{{[^:]*}}: i64, %[[IPAD:[^:]*]]: i1,
// CHECK-SAME: %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %[[OUT:[^:]*]]: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i1,
// CHECK-SAME: %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %{{[^:]*}}: i64 {tt.divisibility = 16 : i32},
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.*]] = arith.select %[[IPAD]], %[[NAN]], %[[ZERO]] : f32
// CHECK: arith.cmpi ult, %{{.*}}, %[[IM]] : i64
// CHECK: arith.muli %{{.*}}, %[[IS0]] : i64
// CHECK: llvm.inttoptr %[[IN]]
// CHECK: scf.yield %[[PAD]] : f32
// CHECK: llvm.inttoptr %[[OUT]]
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alignment = 4 : i64} : !llvm.ptr, f32
tt.func public @host_arg(%in: !tt.tensordesc<2x16xf32>, %in.shape.0: i32, %in.shape.1: i32, %in.stride.0: i64, %in.stride.1: i64, %out: !tt.tensordesc<2x16xf32>, %out.shape.0: i32, %out.shape.1: i32, %out.stride.0: i64, %out.stride.1: i64, %x: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %t = tt.descriptor_load %in[%c0, %c0] : !tt.tensordesc<2x16xf32> -> tensor<2x16xf32>
  tt.descriptor_reduce add, %out[%c0, %c0], %t : !tt.tensordesc<2x16xf32>, tensor<2x16xf32>
  tt.return
}

// -----

// Integer reductions take their signedness from the descriptor's element
// type; inc is CUDA's wrapping increment.

// CHECK-LABEL: func.func @reduce_kinds
// CHECK: llvm.atomicrmw umax {{.*}} : !llvm.ptr, i32
// CHECK: llvm.atomicrmw min {{.*}} : !llvm.ptr, i32
// CHECK: llvm.atomicrmw uinc_wrap {{.*}} : !llvm.ptr, i32
tt.func public @reduce_kinds(%p: !tt.ptr<i32>, %n: i32, %v: tensor<16xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %u = tt.make_tensor_descriptor %p, [%n], [%c1] : <i32>, <16xui32>
  %s = tt.make_tensor_descriptor %p, [%n], [%c1] : <i32>, <16xsi32>
  tt.descriptor_reduce max, %u[%c0], %v : !tt.tensordesc<16xui32>, tensor<16xi32>
  tt.descriptor_reduce min, %s[%c0], %v : !tt.tensordesc<16xsi32>, tensor<16xi32>
  tt.descriptor_reduce inc, %u[%c0], %v : !tt.tensordesc<16xui32>, tensor<16xi32>
  tt.return
}

// -----

// Gather and scatter: data row r is descriptor row rows[r] (bounds-checked
// like any coordinate), from column `col` on.

// CHECK-LABEL: func.func @gather_scatter
// CHECK-SAME: (%[[P:[^:]*]]: i64, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[ROWS:[^:]*]]: tensor<8xi16>, %[[COL:[^:]*]]: i32,
// CHECK-DAG: %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK-DAG: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK-DAG: %[[COL64:.*]] = arith.extsi %[[COL]] : i32 to i64
// CHECK: %[[COLB:.*]] = arith.muli %[[COL64]], %c2_i64 : i64
// CHECK: %[[ORIGIN:.*]] = arith.addi %[[P]], %[[COLB]] : i64
// CHECK: scf.for %[[R:[^ ]*]] =
// CHECK: scf.for
// CHECK: %[[ROW16:.*]] = tensor.extract %[[ROWS]][%[[R]]] : tensor<8xi16>
// CHECK: %[[ROW:.*]] = arith.extsi %[[ROW16]] : i16 to i64
// CHECK: arith.cmpi ult, %[[ROW]], %[[M64]] : i64
// CHECK: arith.muli %[[ROW]], %[[N64]] : i64
// CHECK: llvm.inttoptr %[[ORIGIN]]
// CHECK: llvm.load {{.*}} -> f16
// CHECK: arith.cmpi ult, {{.*}}, %[[M64]] : i64
// CHECK: llvm.store {{.*}} : f16, !llvm.ptr
tt.func public @gather_scatter(%p: !tt.ptr<f16>, %m: i32, %n: i32, %rows: tensor<8xi16>, %col: i32) {
  %c1 = arith.constant 1 : i64
  %ld = arith.extsi %n : i32 to i64
  %d = tt.make_tensor_descriptor %p, [%m, %n], [%ld, %c1] : <f16>, <1x16xf16>
  %g = tt.descriptor_gather %d[%rows, %col] : (!tt.tensordesc<1x16xf16>, tensor<8xi16>, i32) -> tensor<8x16xf16>
  tt.descriptor_scatter %d[%rows, %col], %g : !tt.tensordesc<1x16xf16>, tensor<8xi16>, i32, tensor<8x16xf16>
  tt.return
}

// -----

// Descriptors chosen by a select and carried by a loop: their scalars are
// (the invariant ones are folded away by canonicalization).

// CHECK-LABEL: func.func @loop_and_select
// CHECK-SAME: (%[[A:[^:]*]]: i64, %[[B:[^:]*]]: i64, %{{[^:]*}}: i32, %[[C:[^:]*]]: i1,
// CHECK: %[[SEL:.*]] = arith.select %[[C]], %[[A]], %[[B]] : i64
// CHECK: scf.for {{.*}} iter_args(%[[CUR:[^ ]*]] = %[[SEL]], {{.*}}) -> (i64, i64)
// CHECK: %[[ORIGIN:.*]] = arith.addi %[[CUR]], %{{.*}} : i64
// CHECK: llvm.inttoptr %[[ORIGIN]]
// CHECK: llvm.load
// CHECK: llvm.inttoptr %[[ORIGIN]]
// CHECK: llvm.store
// CHECK: scf.yield %[[B]], %{{.*}} : i64, i64
tt.func public @loop_and_select(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %n: i32, %c: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %one = arith.constant 1 : i64
  %da = tt.make_tensor_descriptor %a, [%n], [%one] : <f32>, <16xf32>
  %db = tt.make_tensor_descriptor %b, [%n], [%one] : <f32>, <16xf32>
  %d = arith.select %c, %da, %db : !tt.tensordesc<16xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%cur = %d) -> (!tt.tensordesc<16xf32>) : i32 {
    %t = tt.descriptor_load %cur[%i] : !tt.tensordesc<16xf32> -> tensor<16xf32>
    tt.descriptor_store %cur[%i], %t : !tt.tensordesc<16xf32>, tensor<16xf32>
    scf.yield %db : !tt.tensordesc<16xf32>
  }
  tt.return
}

// -----

// A 3-D descriptor whose unit dimension the accessed tensor drops: that
// dimension's index is 0 (its bound is still checked), the other two walk
// the tensor; the innermost stride is 1, and bytes need no scaling.

// CHECK-LABEL: func.func @copy_3d
// CHECK-SAME: (%[[P:[^:]*]]: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i32, %[[D1:[^:]*]]: i32, %{{[^:]*}}: i32, %[[S0:[^:]*]]: i64, %[[S1:[^:]*]]: i64, %[[O:[^:]*]]: i32,
// CHECK-DAG: %[[D164:.*]] = arith.extsi %[[D1]] : i32 to i64
// CHECK-DAG: %[[O64:.*]] = arith.extsi %[[O]] : i32 to i64
// CHECK: %[[T0:.*]] = arith.muli %[[O64]], %[[S0]] : i64
// CHECK: %[[T1:.*]] = arith.muli %[[O64]], %[[S1]] : i64
// CHECK: %[[T01:.*]] = arith.addi %[[T0]], %[[T1]] : i64
// CHECK: %[[OFF:.*]] = arith.addi %[[T01]], %[[O64]] : i64
// CHECK: %[[ORIGIN:.*]] = arith.addi %[[P]], %[[OFF]] : i64
// CHECK: scf.for %[[I:[^ ]*]] = %c0 to %c2
// CHECK: scf.for %[[K:[^ ]*]] = %c0 to %c16
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]]
// CHECK: arith.cmpi ult, %[[O64]], %[[D164]] : i64
// CHECK-NOT: arith.muli {{.*}}%[[S1]]
// CHECK: arith.muli %[[I64]], %[[S0]] : i64
// CHECK: llvm.inttoptr %[[ORIGIN]]
// CHECK: llvm.load {{.*}} -> i8
tt.func public @copy_3d(%p: !tt.ptr<i8>, %q: !tt.ptr<i8>, %d0: i32, %d1: i32, %d2: i32, %s0: i64, %s1: i64, %o: i32) {
  %c1 = arith.constant 1 : i64
  %x = tt.make_tensor_descriptor %p, [%d0, %d1, %d2], [%s0, %s1, %c1] : <i8>, <2x1x16xi8>
  %y = tt.make_tensor_descriptor %q, [%d0, %d1, %d2], [%s0, %s1, %c1] : <i8>, <2x1x16xi8>
  %t = tt.descriptor_load %x[%o, %o, %o] : !tt.tensordesc<2x1x16xi8> -> tensor<2x16xi8>
  tt.descriptor_store %y[%o, %o, %o], %t : !tt.tensordesc<2x1x16xi8>, tensor<2x16xi8>
  tt.return
}

// -----

// Calls pass and return a descriptor as its scalars.

// CHECK-LABEL: func.func private @make
// CHECK-SAME: -> (i64, i64, i64, i1)
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %false : i64, i64, i64, i1
// CHECK-LABEL: func.func private @use
// CHECK-SAME: (%{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i1,
// CHECK-LABEL: func.func @calls
// CHECK: %[[D:.*]]:4 = call @make(
// CHECK: call @use(%[[D]]#0, %[[D]]#1, %[[D]]#2, %[[D]]#3,
tt.func private @make(%p: !tt.ptr<f32>, %n: i32) -> !tt.tensordesc<16xf32> attributes {noinline = true} {
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %p, [%n], [%c1] : <f32>, <16xf32>
  tt.return %d : !tt.tensordesc<16xf32>
}
tt.func private @use(%d: !tt.tensordesc<16xf32>) attributes {noinline = true} {
  %c0 = arith.constant 0 : i32
  %t = tt.descriptor_load %d[%c0] : !tt.tensordesc<16xf32> -> tensor<16xf32>
  tt.descriptor_store %d[%c0], %t : !tt.tensordesc<16xf32>, tensor<16xf32>
  tt.return
}
tt.func public @calls(%p: !tt.ptr<f32>, %n: i32) {
  %d = tt.call @make(%p, %n) : (!tt.ptr<f32>, i32) -> !tt.tensordesc<16xf32>
  tt.call @use(%d) : (!tt.tensordesc<16xf32>) -> ()
  tt.return
}

// -----

// A tensor that reorders the block's elements (the verifier only compares
// element counts) is refused with a clear error, not miscompiled.
tt.func public @reshaped(%p: !tt.ptr<f32>, %m: i32, %n: i32, %ld: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %p, [%m, %n], [%ld, %c1] : <f32>, <4x8xf32>
  // expected-error @below {{spine-triton cannot lower 'tt.descriptor_load': 'tensor<8x4xf32>' is not the descriptor block 'tensor<4x8xf32>' with unit dimensions added or dropped}}
  // expected-error @below {{failed to legalize operation 'tt.descriptor_load'}}
  %t = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<4x8xf32> -> tensor<8x4xf32>
  tt.descriptor_store %d[%c0, %c0], %t : !tt.tensordesc<4x8xf32>, tensor<8x4xf32>
  tt.return
}
