// RUN: not spine-triton-opt --triton-to-linalg-experimental %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt --triton-to-linalg-experimental %s -o /dev/null

// An op the conversion has no lowering for is named, with its location, and
// the tool fails with exit status 1 (no crash). The grid dependency ops of
// programmatic dependent launch (tl.extra.cuda.gdc_wait and
// gdc_launch_dependents) are such ops; each one gets its own error.
// CHECK-NOT: PLEASE submit a bug report
// CHECK: unsupported-op.mlir:[[@LINE+4]]:3: error: spine-triton cannot lower 'tt.grid_dependency_wait' yet
// CHECK: unsupported-op.mlir:[[@LINE+5]]:3: error: spine-triton cannot lower 'tt.grid_dependency_launch_dependents' yet
tt.func public @wait_for_previous_grid(%p: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  tt.grid_dependency_wait
  tt.store %p, %c1 : !tt.ptr<i32>
  tt.grid_dependency_launch_dependents
  tt.return
}
