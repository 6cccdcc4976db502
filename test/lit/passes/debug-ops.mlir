// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s
// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s --check-prefix=FAIL
// RUN: spine-triton-opt --triton-to-linalg-experimental --spine-triton-pipeline %s | FileCheck %s --check-prefix=LLVM

// tt.print: one printf line per element in the GPU backends' format, then
// fflush(NULL). The prefix is part of the format ('%' doubled), a scalar
// prints once with an empty index, fp16 is promoted to double.

// CHECK-DAG: llvm.func @printf(!llvm.ptr, ...) -> i32
// CHECK-DAG: llvm.func @fflush(!llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global internal constant @[[SCALAR:.*]]("pid (%u, %u, %u) idx () n: %i\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[TENSOR:.*]]("pid (%u, %u, %u) idx (%1u) v: %f\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[PLAIN:.*]]("pid (%u, %u, %u) 5%%\0A\00")

// The assert state is exported (see FAIL below for how it is written).
// CHECK-DAG: llvm.mlir.global external @__spine_triton_assert() {{.*}} : !llvm.struct<(i32, i32, i32, i32, i32, ptr, ptr, ptr)>
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG:.*]]("x must be non-negative\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[HELPER_PY:.*]]("helper.py\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[CHECK_NAME:.*]]("check\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG2:.*]]("n too large\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[KERNEL_PY:.*]]("kernel.py\00")

// CHECK-LABEL: func.func @print_values
// CHECK-SAME: (%[[X:[^:]*]]: i64, %[[N:[^:]*]]: i32, %[[PX:[^:]*]]: i32, %[[PY:[^:]*]]: i32, %[[PZ:[^:]*]]: i32,
// CHECK-DAG: %[[PLAIN_FMT:.*]] = llvm.mlir.addressof @[[PLAIN]]
// CHECK-DAG: %[[TENSOR_FMT:.*]] = llvm.mlir.addressof @[[TENSOR]]
// CHECK-DAG: %[[SCALAR_FMT:.*]] = llvm.mlir.addressof @[[SCALAR]]
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: llvm.call @printf(%[[SCALAR_FMT]], %[[PX]], %[[PY]], %[[PZ]], %[[N]]) vararg(!llvm.func<i32 (ptr, ...)>)
// CHECK-NEXT: llvm.call @fflush(%[[NULL]])
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK: %[[E:.*]] = tensor.extract
// CHECK: %[[D:.*]] = arith.extf %[[E]] : f16 to f64
// CHECK: llvm.call @printf(%[[TENSOR_FMT]], %[[PX]], %[[PY]], %[[PZ]], %[[I32]], %[[D]])
// CHECK: }
// CHECK-NEXT: llvm.call @fflush(%[[NULL]])
// CHECK-NEXT: llvm.call @printf(%[[PLAIN_FMT]], %[[PX]], %[[PY]], %[[PZ]])
// CHECK-NEXT: llvm.call @fflush(%[[NULL]])
tt.func public @print_values(%x: !tt.ptr<f16>, %n: i32) {
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %xs = tt.splat %x : !tt.ptr<f16> -> tensor<4x!tt.ptr<f16>>
  %xp = tt.addptr %xs, %r : tensor<4x!tt.ptr<f16>>, tensor<4xi32>
  %v = tt.load %xp : tensor<4x!tt.ptr<f16>>
  tt.print " n: " {hex = false, isSigned = array<i32: 1>} : %n : i32
  tt.print " v: " {hex = false, isSigned = array<i32: 0>} : %v : tensor<4xf16>
  tt.print " 5%" {hex = false, isSigned = array<i32>}
  tt.return
}

// The first failure of a launch wins the flag (cmpxchg) and records the line,
// the program ids and the three strings.
// FAIL-LABEL: llvm.func internal @__spine_triton_assert_fail(
// FAIL-SAME: %[[AMSG:.*]]: !llvm.ptr, %[[AFILE:.*]]: !llvm.ptr, %[[ALINE:.*]]: i32, %[[AFUNC:.*]]: !llvm.ptr, %[[AX:.*]]: i32, %[[AY:.*]]: i32, %[[AZ:.*]]: i32)
// FAIL-SAME: no_inline
// FAIL: %[[STATE:.*]] = llvm.mlir.addressof @__spine_triton_assert
// FAIL: %[[XCHG:.*]] = llvm.cmpxchg %[[STATE]], %{{.*}}, %{{.*}} acq_rel monotonic : !llvm.ptr, i32
// FAIL: %[[WON:.*]] = llvm.extractvalue %[[XCHG]][1]
// FAIL: llvm.cond_br %[[WON]], ^[[RECORD:.*]], ^[[DONE:bb[0-9]+]]
// FAIL: ^[[RECORD]]:
// FAIL: %[[F1:.*]] = llvm.getelementptr %[[STATE]][0, 1]
// FAIL: llvm.store %[[ALINE]], %[[F1]]
// FAIL: %[[F2:.*]] = llvm.getelementptr %[[STATE]][0, 2]
// FAIL: llvm.store %[[AX]], %[[F2]]
// FAIL: %[[F3:.*]] = llvm.getelementptr %[[STATE]][0, 3]
// FAIL: llvm.store %[[AY]], %[[F3]]
// FAIL: %[[F4:.*]] = llvm.getelementptr %[[STATE]][0, 4]
// FAIL: llvm.store %[[AZ]], %[[F4]]
// FAIL: %[[F5:.*]] = llvm.getelementptr %[[STATE]][0, 5]
// FAIL: llvm.store %[[AMSG]], %[[F5]]
// FAIL: %[[F6:.*]] = llvm.getelementptr %[[STATE]][0, 6]
// FAIL: llvm.store %[[AFILE]], %[[F6]]
// FAIL: %[[F7:.*]] = llvm.getelementptr %[[STATE]][0, 7]
// FAIL: llvm.store %[[AFUNC]], %[[F7]]
// FAIL: ^[[DONE]]:
// FAIL-NEXT: llvm.return

// tt.assert checks every element; a false one reports the message, the
// innermost file:line of the location (the inlined helper's), the function and
// the program ids.
// CHECK-LABEL: func.func @check
// CHECK-SAME: (%{{[^:]*}}: i64, %[[N:[^:]*]]: i32, %[[PX:[^:]*]]: i32, %[[PY:[^:]*]]: i32, %[[PZ:[^:]*]]: i32,
// CHECK-DAG: %[[LINE20:.*]] = llvm.mlir.constant(20 : i32) : i32
// CHECK-DAG: %[[KERNEL_FILE:.*]] = llvm.mlir.addressof @[[KERNEL_PY]]
// CHECK-DAG: %[[TOO_LARGE:.*]] = llvm.mlir.addressof @[[MSG2]]
// CHECK-DAG: %[[FUNC:.*]] = llvm.mlir.addressof @[[CHECK_NAME]]
// CHECK-DAG: %[[LINE8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-DAG: %[[HELPER_FILE:.*]] = llvm.mlir.addressof @[[HELPER_PY]]
// CHECK-DAG: %[[NEGATIVE:.*]] = llvm.mlir.addressof @[[MSG]]
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%[[I]]]
// CHECK: %[[BAD:.*]] = arith.cmpi slt, %[[V]], %c0_i32
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: llvm.call @__spine_triton_assert_fail(%[[NEGATIVE]], %[[HELPER_FILE]], %[[LINE8]], %[[FUNC]], %[[PX]], %[[PY]], %[[PZ]])
// CHECK: %[[LARGE:.*]] = arith.cmpi sge, %[[N]], %c1024_i32
// CHECK: scf.if %[[LARGE]] {
// CHECK-NEXT: llvm.call @__spine_triton_assert_fail(%[[TOO_LARGE]], %[[KERNEL_FILE]], %[[LINE20]], %[[FUNC]], %[[PX]], %[[PY]], %[[PZ]])

// After lowering, a failing program returns right after recording (from
// inside the loop too); the store loop is only reached when all checks pass.
// LLVM-LABEL: llvm.func @check(
// LLVM: llvm.call @__spine_triton_assert_fail(
// LLVM-NEXT: llvm.br ^[[EXIT:bb[0-9]+]]
// LLVM: llvm.call @__spine_triton_assert_fail(
// LLVM-NEXT: llvm.br ^[[EXIT]]
// LLVM: {{llvm.store|llvm.intr.masked.store}}
// LLVM: llvm.return
// LLVM: ^[[EXIT]]:
// LLVM-NEXT: llvm.return
// LLVM-NEXT: }

// The entry point skips the program once any program of the launch failed.
// LLVM-LABEL: llvm.func @check__spine_entry(
// LLVM: %[[STATE:.*]] = llvm.mlir.addressof @__spine_triton_assert
// LLVM-NEXT: %[[FLAG:.*]] = llvm.load %[[STATE]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// LLVM-NEXT: %[[FAILED:.*]] = llvm.icmp "ne" %[[FLAG]], %{{.*}} : i32
// LLVM-NEXT: llvm.cond_br %[[FAILED]], ^[[SKIP:bb[0-9]+]], ^[[BODY:bb[0-9]+]]
// LLVM: ^[[BODY]]:
// LLVM: llvm.call @check(
// LLVM: ^[[SKIP]]:
// LLVM-NEXT: llvm.return
tt.func public @check(%x: !tt.ptr<i32>, %n: i32) {
  %c1024 = arith.constant 1024 : i32
  %zero = arith.constant dense<0> : tensor<4xi32>
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %xs = tt.splat %x : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
  %xp = tt.addptr %xs, %r : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
  %v = tt.load %xp : tensor<4x!tt.ptr<i32>>
  %ok = arith.cmpi sge, %v, %zero : tensor<4xi32>
  tt.assert %ok, "x must be non-negative" : tensor<4xi1> loc(callsite("helper.py":8:5 at "kernel.py":15:9))
  %small = arith.cmpi slt, %n, %c1024 : i32
  tt.assert %small, "n too large" : i1 loc("n"("kernel.py":20:3))
  tt.store %xp, %v : tensor<4x!tt.ptr<i32>>
  tt.return
}

// A noinline callee that may fail returns poison on that path; its caller
// checks the state right after the call and returns before using the result.
// LLVM-LABEL: llvm.func @double_checked(
// LLVM: %[[POISON:.*]] = llvm.mlir.poison : i32
// LLVM: llvm.call @__spine_triton_assert_fail(
// LLVM-NEXT: llvm.br ^[[EXIT:bb[0-9]+]]
// LLVM: ^[[EXIT]]:
// LLVM-NEXT: llvm.return %[[POISON]] : i32
// LLVM-LABEL: llvm.func @caller(
// LLVM: %[[STATE:.*]] = llvm.mlir.addressof @__spine_triton_assert
// LLVM: %[[D:.*]] = llvm.call @double_checked(
// LLVM-NEXT: %[[FLAG:.*]] = llvm.load %[[STATE]] atomic monotonic
// LLVM-NEXT: %[[FAILED:.*]] = llvm.icmp "ne" %[[FLAG]]
// LLVM-NEXT: llvm.cond_br %[[FAILED]], ^[[RET:bb[0-9]+]], ^[[STORE:bb[0-9]+]]
// LLVM: ^[[STORE]]:
// LLVM: llvm.store %[[D]]
// LLVM: ^[[RET]]:
// LLVM-NEXT: llvm.return
tt.func private @double_checked(%x: !tt.ptr<i32>) -> i32 attributes {noinline = true} {
  %c0 = arith.constant 0 : i32
  %v = tt.load %x : !tt.ptr<i32>
  %ok = arith.cmpi sge, %v, %c0 : i32
  tt.assert %ok, "negative" : i1
  %d = arith.addi %v, %v : i32
  tt.return %d : i32
}

tt.func public @caller(%x: !tt.ptr<i32>, %out: !tt.ptr<i32>) {
  %d = tt.call @double_checked(%x) : (!tt.ptr<i32>) -> i32
  tt.store %out, %d : !tt.ptr<i32>
  tt.return
}
