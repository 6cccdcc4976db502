// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// join: one generic over the result; the new minor index picks the operand.
// CHECK-DAG: #[[HALF:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LO:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-DAG: #[[HI:.*]] = affine_map<(d0) -> (d0, 1)>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @join(
// CHECK: linalg.generic {indexing_maps = [#[[HALF]], #[[HALF]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8x2xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[K:.*]] = linalg.index 2 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %c0 : index
// CHECK: %[[V:.*]] = arith.select %[[FIRST]], %[[A]], %[[B]] : f32
// CHECK: linalg.yield %[[V]] : f32
tt.func public @join(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8x2xf32> {
  %j = tt.join %a, %b : tensor<4x8xf32> -> tensor<4x8x2xf32>
  tt.return %j : tensor<4x8x2xf32>
}

// split: both halves from one generic reading the source at minor index 0
// and 1.
// CHECK-LABEL: func.func @split(
// CHECK: %[[S:.*]]:2 = linalg.generic {indexing_maps = [#[[LO]], #[[HI]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%arg0, %arg0 : tensor<4x2xi16>, tensor<4x2xi16>) outs(%{{.*}}, %{{.*}} : tensor<4xi16>, tensor<4xi16>)
// CHECK: ^bb0(%[[L:.*]]: i16, %[[H:.*]]: i16, %{{.*}}: i16, %{{.*}}: i16):
// CHECK-NEXT: linalg.yield %[[L]], %[[H]] : i16, i16
// CHECK: return %[[S]]#0, %[[S]]#1
tt.func public @split(%x: tensor<4x2xi16>) -> (tensor<4xi16>, tensor<4xi16>) {
  %lo, %hi = tt.split %x : tensor<4x2xi16> -> tensor<4xi16>
  tt.return %lo, %hi : tensor<4xi16>, tensor<4xi16>
}

// cat along dim 0 is the concatenation of the row-major 1-D views.
// CHECK-LABEL: func.func @cat(
// CHECK: %[[FA:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<4x8xi32> into tensor<32xi32>
// CHECK: %[[FB:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<4x8xi32> into tensor<32xi32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64xi32>
// CHECK: %[[C0:.*]] = tensor.insert_slice %[[FA]] into %[[E]][0] [32] [1] : tensor<32xi32> into tensor<64xi32>
// CHECK: %[[C1:.*]] = tensor.insert_slice %[[FB]] into %[[C0]][32] [32] [1] : tensor<32xi32> into tensor<64xi32>
// CHECK: tensor.expand_shape %[[C1]] {{\[\[}}0, 1]] output_shape [8, 8] : tensor<64xi32> into tensor<8x8xi32>
tt.func public @cat(%a: tensor<4x8xi32>, %b: tensor<4x8xi32>) -> tensor<8x8xi32> {
  %c = tt.cat %a, %b : tensor<4x8xi32> -> tensor<8x8xi32>
  tt.return %c : tensor<8x8xi32>
}

// Pointer tensors are i64 tensors by now and move the same way.
// CHECK-LABEL: func.func @pointers(
// CHECK-SAME: %arg0: tensor<16xi64>, %arg1: tensor<16xi64>, %arg2: tensor<16x2xi64>, %arg3: tensor<16xi32>
// CHECK-SAME: -> (tensor<16x2xi64>, tensor<16xi64>, tensor<32xi64>, tensor<16xi64>)
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<16xi64>, tensor<16xi64>) outs(%{{.*}} : tensor<16x2xi64>)
// CHECK: arith.select {{.*}} : i64
// CHECK: linalg.generic {{.*}} ins(%arg2, %arg2 : tensor<16x2xi64>, tensor<16x2xi64>) outs(%{{.*}}, %{{.*}} : tensor<16xi64>, tensor<16xi64>)
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0] [16] [1] : tensor<16xi64> into tensor<32xi64>
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[16] [16] [1] : tensor<16xi64> into tensor<32xi64>
// CHECK: linalg.generic {{.*}} ins(%arg3 : tensor<16xi32>) outs(%{{.*}} : tensor<16xi64>)
// CHECK: tensor.extract %arg1[%{{.*}}] : tensor<16xi64>
tt.func @pointers(%a: tensor<16x!tt.ptr<f32>>, %b: tensor<16x!tt.ptr<f32>>, %x: tensor<16x2x!tt.ptr<f32>>, %i: tensor<16xi32>)
    -> (tensor<16x2x!tt.ptr<f32>>, tensor<16x!tt.ptr<f32>>, tensor<32x!tt.ptr<f32>>, tensor<16x!tt.ptr<f32>>) {
  %j = tt.join %a, %b : tensor<16x!tt.ptr<f32>> -> tensor<16x2x!tt.ptr<f32>>
  %lo, %hi = tt.split %x : tensor<16x2x!tt.ptr<f32>> -> tensor<16x!tt.ptr<f32>>
  %c = tt.cat %a, %b : tensor<16x!tt.ptr<f32>> -> tensor<32x!tt.ptr<f32>>
  %g = tt.gather %b[%i] {axis = 0 : i32} : (tensor<16x!tt.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tt.ptr<f32>>
  tt.return %j, %hi, %c, %g : tensor<16x2x!tt.ptr<f32>>, tensor<16x!tt.ptr<f32>>, tensor<32x!tt.ptr<f32>>, tensor<16x!tt.ptr<f32>>
}

// gather: the index replaces the coordinate along the axis (unsigned: an i8
// index reaches 255); efficient_layout is a GPU hint and ignored.
// CHECK-LABEL: func.func @gather(
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<8x4xi8>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: ^bb0(%[[IDX:.*]]: i8, %{{.*}}: f32):
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[COL:.*]] = arith.index_castui %[[IDX]] : i8 to index
// CHECK: %[[G:.*]] = tensor.extract %arg0[%[[ROW]], %[[COL]]] : tensor<8x16xf32>
// CHECK: linalg.yield %[[G]] : f32
tt.func public @gather(%x: tensor<8x16xf32>, %i: tensor<8x4xi8>) -> tensor<8x4xf32> {
  %g = tt.gather %x[%i] {axis = 1 : i32, efficient_layout} : (tensor<8x16xf32>, tensor<8x4xi8>) -> tensor<8x4xf32>
  tt.return %g : tensor<8x4xf32>
}

// histogram: one pass over the input adding 0 or 1 to a bin; values outside
// [0, bins) and masked-off ones add 0 (to bin 0).
// CHECK-LABEL: func.func @histogram(
// CHECK-DAG: %[[BINS:.*]] = arith.constant 16 : i32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.*}} : tensor<16xi32>)
// CHECK: scf.for %[[I:.*]] = %c0 to %c64 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<16xi32>)
// CHECK: %[[V:.*]] = tensor.extract %arg0[%[[I]]] : tensor<64xi32>
// CHECK-DAG: %[[BELOW:.*]] = arith.cmpi slt, %[[V]], %[[BINS]] : i32
// CHECK-DAG: %[[NONNEG:.*]] = arith.cmpi sge, %[[V]], %[[ZERO]] : i32
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: %[[M:.*]] = tensor.extract %arg1[%[[I]]] : tensor<64xi1>
// CHECK: %[[COUNTS:.*]] = arith.andi %[[IN]], %[[M]] : i1
// CHECK: %[[BIN:.*]] = arith.select %[[COUNTS]], %[[V]], %[[ZERO]] : i32
// CHECK: %[[POS:.*]] = arith.index_cast %[[BIN]] : i32 to index
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[POS]]] : tensor<16xi32>
// CHECK: %[[ONE:.*]] = arith.extui %[[COUNTS]] : i1 to i32
// CHECK: %[[NEW:.*]] = arith.addi %[[OLD]], %[[ONE]] : i32
// CHECK: %[[UPD:.*]] = tensor.insert %[[NEW]] into %[[ACC]][%[[POS]]] : tensor<16xi32>
// CHECK: scf.yield %[[UPD]] : tensor<16xi32>
// Without a mask, and with a 2-D input (flattened first).
// CHECK: tensor.collapse_shape %arg2 {{\[\[}}0, 1]] : tensor<8x8xi32> into tensor<64xi32>
// CHECK: scf.for
// CHECK-NOT: tensor.extract %arg1[
// CHECK: scf.yield {{.*}} : tensor<8xi32>
tt.func public @histogram(%x: tensor<64xi32>, %m: tensor<64xi1>, %y: tensor<8x8xi32>) -> (tensor<16xi32>, tensor<8xi32>) {
  %h = tt.histogram %x, %m : tensor<64xi32> -> tensor<16xi32>
  %u = tt.histogram %y : tensor<8x8xi32> -> tensor<8xi32>
  tt.return %h, %u : tensor<16xi32>, tensor<8xi32>
}

// unsplat: the single element.
// CHECK-LABEL: func.func @unsplat(
// CHECK: %[[E:.*]] = tensor.extract %arg0[%c0, %c0] : tensor<1x1xf32>
// CHECK: return %[[E]] : f32
tt.func public @unsplat(%x: tensor<1x1xf32>) -> f32 {
  %u = tt.unsplat %x : tensor<1x1xf32>
  tt.return %u : f32
}
