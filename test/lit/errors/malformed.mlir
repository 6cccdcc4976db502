// Malformed text: parse errors are reported as diagnostics with a location, exit status 1.
// RUN: not spine-triton-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt %s -split-input-file -o /dev/null

// CHECK-NOT: PLEASE submit a bug report
// CHECK: malformed.mlir:[[# @LINE + 1]]:1: error: custom op 'this' is unknown
this is not TTIR at all

// -----

tt.func public @k(%p: !tt.ptr<f32>) {
  // CHECK: malformed.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: custom op 'tt.frobnicate' is unknown
  tt.frobnicate %p : !tt.ptr<f32>
  tt.return
}

// -----

// CHECK: malformed.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected non-function type
tt.func public @k(%p: !tt.ptr<>) {
  tt.return
}

// -----

tt.func public @k(%p: !tt.ptr<f32>) {
  // CHECK: malformed.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: use of undeclared SSA value name
  %0 = tt.addptr %p, %undefined : !tt.ptr<f32>, i32
  tt.return
}

// -----

tt.func public @k(%n: i32) {
  // CHECK: malformed.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: use of value '%n' expects different type than prior uses: 'i64' vs 'i32'
  %0 = arith.addi %n, %n : i64
  tt.return
}

// -----

// An unbalanced function body: the parser reaches the end of the chunk.
// CHECK: malformed.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected
tt.func public @k(%n: i32) {
  %0 = arith.addi %n, %n : i32
