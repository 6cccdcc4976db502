// RUN: spine-triton-opt --spine-lower-strided-copies %s | FileCheck %s

// A copy out of a strided view (a column block of a row-major matrix) would
// become a call of MLIR's runner library, which kernels do not link: it is a
// linalg.copy, lowered to loops with the rest.
// CHECK-LABEL: func.func @strided_source
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[VIEW]] : memref<4x8xf32, strided<[16, 1], offset: ?>>) outs(%{{.*}} : memref<4x8xf32>)
func.func @strided_source(%m: memref<4x16xf32>, %tile: memref<4x8xf32>, %col: index) {
  %view = memref.subview %m[0, %col] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: ?>>
  memref.copy %view, %tile : memref<4x8xf32, strided<[16, 1], offset: ?>> to memref<4x8xf32>
  return
}

// Into a strided target too.
// CHECK-LABEL: func.func @strided_target
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%{{.*}} : memref<4x8xf32>) outs(%{{.*}} : memref<4x8xf32, strided<[16, 1], offset: ?>>)
func.func @strided_target(%m: memref<4x16xf32>, %tile: memref<4x8xf32>, %col: index) {
  %view = memref.subview %m[0, %col] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: ?>>
  memref.copy %tile, %view : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1], offset: ?>>
  return
}

// Between contiguous buffers the copy stays: it becomes a memcpy.
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  return
}
