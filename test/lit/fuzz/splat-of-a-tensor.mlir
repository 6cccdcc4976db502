// Found by tools/fuzz_pipeline.py (CI's 3-minute run): a mutation turned a tt.broadcast into a
// tt.splat of a tensor, which the dialect's ODS accepts but which means nothing (triton's
// frontend splats scalars only), and the load lowering that recomputes the element of a splat
// segfaulted on it. triton-to-linalg-experimental now reports the op.
// RUN: %expect_exit 1 spine-triton-opt --triton-to-linalg-experimental %s 2>&1 | FileCheck %s

// CHECK: error: 'tt.splat' op takes a scalar, not 'tensor<1x64xi32>'
module {
  tt.func public @splat_of_a_tensor(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>) {
    %rn = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %row = tt.expand_dims %rn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %offsets = tt.splat %row : tensor<1x64xi32> -> tensor<32x64xi32>
    %base = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
    %ptrs = tt.addptr %base, %offsets : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
    %x = tt.load %ptrs : tensor<32x64x!tt.ptr<f32>>
    %sum = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<32x64xf32>) -> tensor<32xf32>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
    %rm = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %outs = tt.addptr %out, %rm : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    tt.store %outs, %sum : tensor<32x!tt.ptr<f32>>
    tt.return
  }
}
