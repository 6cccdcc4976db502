// RUN: not spine-triton-opt --spine-decompose-scaled-dots %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt --triton-to-linalg-experimental %s -o /dev/null

// fp6 operands (e2m3, e3m2; triton's frontend does not offer them yet) are an
// error naming the op and its location, not a crash.
// CHECK-NOT: PLEASE submit a bug report
// CHECK: decompose-scaled-dots-fp6.mlir:[[@LINE+2]]:8: error: 'tt.dot_scaled' op with fp6 operands (e2m3) is not supported by spine-triton
tt.func @fp6(%a: tensor<16x32xi8>, %sa: tensor<16x1xi8>, %b: tensor<32x16xf8E4M3FN>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tt.dot_scaled %a scale %sa, %b, %c lhs = e2m3 rhs = e4m3 {fastMath = false} : tensor<16x32xi8>, tensor<16x1xi8> * tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
  tt.return %d : tensor<16x16xf32>
}
