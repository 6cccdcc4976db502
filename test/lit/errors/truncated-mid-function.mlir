// A TTIR dump with locations, cut between two operations in the middle of the function.
// RUN: not spine-triton-opt %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt %s -o /dev/null
// CHECK: truncated-mid-function.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected
// CHECK-NOT: PLEASE submit a bug report
// CHECK-NOT: Stack dump

#loc = loc("test/corpus/kernels.py":21:1)
#loc12 = loc("x_ptr"(#loc))
#loc13 = loc("y_ptr"(#loc))
#loc14 = loc("out_ptr"(#loc))
#loc15 = loc("n_elements"(#loc))
module {
  tt.func public @vector_add(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc)), %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("y_ptr"(#loc)), %out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("out_ptr"(#loc)), %n_elements: i32 loc("n_elements"(#loc))) attributes {noinline = false} {
    %offsets = arith.constant 1024 : i32 loc(#loc16)
    %pid = tt.get_program_id x : i32 loc(#loc17)
    %offsets_0 = arith.muli %pid, %offsets : i32 loc(#loc16)
    %offsets_1 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32> loc(#loc18)
    %offsets_2 = tt.splat %offsets_0 : i32 -> tensor<1024xi32> loc(#loc16)
    %offsets_3 = arith.addi %offsets_2, %offsets_1 : tensor<1024xi32> loc(#loc16)
    %mask = tt.splat %n_elements : i32 -> tensor<1024xi32> loc(#loc19)
    %mask_4 = arith.cmpi slt, %offsets_3, %mask : tensor<1024xi32> loc(#loc19)
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc20)
    %x_5 = tt.addptr %x, %offsets_3 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc20)
    %x_6 = tt.load %x_5, %mask_4 : tensor<1024x!tt.ptr<f32>> loc(#loc21)
    %y = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc22)
    %y_7 = tt.addptr %y, %offsets_3 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc22)
    %y_8 = tt.load %y_7, %mask_4 : tensor<1024x!tt.ptr<f32>> loc(#loc23)
