// RUN: spine-triton-opt --spine-hoist-store-addresses %s | FileCheck %s

// The scalar parts of the store's address (the row offset and the row's
// pointer) move up to right after what they use, above the load; the
// tensor ops stay where they are, and a scalar computed from a loaded value
// cannot move above the load that produces it.
// CHECK-LABEL: tt.func @row
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %arg2, %arg3 : i32
// CHECK-NEXT: %[[ROW:.*]] = tt.addptr %arg1, %[[OFF]] : !tt.ptr<f32>, i32
// CHECK-NEXT: tt.make_range
// CHECK: %[[X:.*]] = tt.load
// CHECK: %[[S:.*]] = tt.load %arg4 : !tt.ptr<i32>
// CHECK-NEXT: %[[SHIFTED:.*]] = tt.addptr %[[ROW]], %[[S]]
// CHECK: tt.splat %[[SHIFTED]]
// CHECK: tt.store
tt.func @row(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %row: i32, %stride: i32, %shift: !tt.ptr<i32>) {
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %v = tt.load %xp : tensor<16x!tt.ptr<f32>>
  %s = tt.load %shift : !tt.ptr<i32>
  %off = arith.muli %row, %stride : i32
  %out_row = tt.addptr %out, %off : !tt.ptr<f32>, i32
  %shifted = tt.addptr %out_row, %s : !tt.ptr<f32>, i32
  %os = tt.splat %shifted : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %range : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %v : tensor<16x!tt.ptr<f32>>
  tt.return
}
