// A TTIR file cut in the middle of an operation inside the function body.
// RUN: not spine-triton-opt %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt %s -o /dev/null
// CHECK: truncated-mid-op.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected ':'
// CHECK-NOT: PLEASE submit a bug report
// CHECK-NOT: Stack dump

module {
  tt.func public @vector_add(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n_elements: i32) attributes {noinline = false} {
    %offsets = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32
    %offsets_0 = arith.muli %pid, %offsets : i32
    %offsets_1 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %offsets_2 = tt.splat %offsets_0 : i32 -> tensor<1024xi32>
    %offsets_3 = arith.addi %offsets_2, %offsets_1 : tensor<1024xi32>
    %mask = tt.splat %n_elements : i32 -> tensor<1024xi32>
    %mask_4 = arith.cmpi slt, %offsets_3, %mask : tensor<1024xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %x_5 = tt.addptr %x, %offsets_3 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %x_6 = tt.load %x_5, %mask_4 : tensor<1024x!tt.ptr<f32>>
    %y = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %y_7 = tt.addptr %y, %offsets_3 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %y_8 = tt.load %y_7, 