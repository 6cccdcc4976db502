// An EMPTY input (zero bytes) is an error, not an empty module: it is what a failed or
// interrupted dump leaves behind, and compiling it "successfully" would hide that.
// RUN: %python -c "open(r'%t.empty', 'w').close()"
// RUN: not spine-triton-opt %t.empty 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt %t.empty
// RUN: not spine-triton-opt - < %t.empty 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt < %t.empty

// CHECK: error: {{.*}}empty input
