// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-transposes{vector-bits=256}))' %s | FileCheck %s

// A 16 x 8 f32 tile transposed into 8 x 16 with 8 lanes per register:
// blocks of 8 x 8, each 8 row loads of the input, 3 rounds of 8 two-input
// shuffles, 8 row stores of the output. The first round pairs rows 4 apart
// and swaps the off-diagonal 4 x 4 quarters; the last pairs neighbouring
// rows and interleaves their single lanes.
// CHECK-LABEL: func.func @f32
// CHECK: scf.for %[[C:.*]] = %c0 to %c16 step %c8
// CHECK: scf.for %[[R:.*]] = %c0{{.*}} to %c8{{.*}} step %c8
// CHECK: %[[ROW0:.*]] = vector.load %arg0[%[[C]], %[[R]]] : memref<16x8xf32>, vector<8xf32>
// CHECK-COUNT-7: vector.load %arg0
// CHECK: vector.shuffle %[[ROW0]], %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11]
// CHECK-NEXT: vector.shuffle %[[ROW0]], %{{.*}} [4, 5, 6, 7, 12, 13, 14, 15]
// CHECK-COUNT-6: vector.shuffle {{.*}} [{{(0, 1, 2, 3, 8, 9, 10, 11|4, 5, 6, 7, 12, 13, 14, 15)}}]
// CHECK-COUNT-8: vector.shuffle {{.*}} [{{(0, 1, 8, 9, 4, 5, 12, 13|2, 3, 10, 11, 6, 7, 14, 15)}}]
// CHECK-COUNT-8: vector.shuffle {{.*}} [{{(0, 8, 2, 10, 4, 12, 6, 14|1, 9, 3, 11, 5, 13, 7, 15)}}]
// CHECK: vector.store %{{.*}}, %arg1[%[[R]], %[[C]]] : memref<8x16xf32>, vector<8xf32>
// CHECK-COUNT-7: vector.store {{.*}}, %arg1
// CHECK-NOT: linalg.transpose
func.func @f32(%in: memref<16x8xf32>, %out: memref<8x16xf32>) {
  linalg.transpose ins(%in : memref<16x8xf32>) outs(%out : memref<8x16xf32>) permutation = [1, 0]
  return
}

// A strided view (the transposed load of a tile: rows a run-time stride
// apart) is read row by row all the same.
// CHECK-LABEL: func.func @strided_input
// CHECK: vector.load %arg0{{.*}} : memref<8x8xf32, strided<[?, 1]>>, vector<8xf32>
// CHECK-NOT: linalg.transpose
func.func @strided_input(%in: memref<8x8xf32, strided<[?, 1]>>, %out: memref<8x8xf32>) {
  linalg.transpose ins(%in : memref<8x8xf32, strided<[?, 1]>>) outs(%out : memref<8x8xf32>) permutation = [1, 0]
  return
}

// bf16 fills half a register at 16 lanes: blocks of 16 x 16.
// CHECK-LABEL: func.func @bf16
// CHECK: scf.for {{.*}} step %c16
// CHECK-COUNT-16: vector.load {{.*}} vector<16xbf16>
// CHECK-COUNT-64: vector.shuffle
// CHECK-COUNT-16: vector.store
func.func @bf16(%in: memref<32x16xbf16>, %out: memref<16x32xbf16>) {
  linalg.transpose ins(%in : memref<32x16xbf16>) outs(%out : memref<16x32xbf16>) permutation = [1, 0]
  return
}

// Sides that are not multiples of the lanes, an input without a unit inner
// stride, and tensors (before bufferization) stay linalg.transpose, lowered
// to loops later.
// CHECK-LABEL: func.func @refusals
// CHECK-COUNT-3: linalg.transpose
// CHECK-NOT: vector.shuffle
func.func @refusals(%a: memref<12x8xf32>, %b: memref<8x12xf32>,
                    %c: memref<8x8xf32, strided<[1, ?]>>, %d: memref<8x8xf32>,
                    %t: tensor<8x8xf32>) -> tensor<8x8xf32> {
  linalg.transpose ins(%a : memref<12x8xf32>) outs(%b : memref<8x12xf32>) permutation = [1, 0]
  linalg.transpose ins(%c : memref<8x8xf32, strided<[1, ?]>>) outs(%d : memref<8x8xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<8x8xf32>
  %r = linalg.transpose ins(%t : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
  return %r : tensor<8x8xf32>
}
