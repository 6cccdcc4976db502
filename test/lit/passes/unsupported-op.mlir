// RUN: not spine-triton-opt --triton-to-linalg-experimental %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt --triton-to-linalg-experimental %s -o /dev/null

// An op the conversion has no lowering for is named, with its location, and
// the tool fails with exit status 1 (no crash).
// CHECK-NOT: PLEASE submit a bug report
// CHECK: unsupported-op.mlir:[[@LINE+4]]:8: error: spine-triton cannot lower 'tt.atomic_poll' yet
tt.func public @poll(%p: !tt.ptr<i32>, %timeout: i64) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = tt.atomic_poll acquire, gpu, %p, %c0 timeout %timeout : !tt.ptr<i32>, i32 -> i1
  tt.return
}
