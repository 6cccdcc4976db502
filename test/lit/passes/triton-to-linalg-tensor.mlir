// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s

// CHECK-LABEL: func.func @shapes
// expand_dims -> expand_shape, broadcast -> generic reading index 0 of the
// unit dim, reduce with a neutral element (maxnumf: NaN) -> linalg.reduce
// over the whole tensor seeded with it, its combine free to reassociate
// (Triton leaves the order unspecified).
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: tensor.expand_shape {{.*}} {{\[\[}}0, 1]] output_shape [1, 32] : tensor<32xf32> into tensor<1x32xf32>
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[BMAP:.*]], #{{.*}}]
// CHECK: %[[SEED:.*]] = linalg.fill ins(%[[NAN]] : f32) outs({{.*}} : tensor<16xf32>)
// CHECK: linalg.reduce { arith.maxnumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[B]] : tensor<16x32xf32>) outs(%[[SEED]] : tensor<16xf32>) dimensions = [1]
tt.func public @shapes(%in: tensor<32xf32>, %out: !tt.ptr<f32>) {
  %e = tt.expand_dims %in {axis = 0 : i32} : tensor<32xf32> -> tensor<1x32xf32>
  %b = tt.broadcast %e : tensor<1x32xf32> -> tensor<16x32xf32>
  %r = "tt.reduce"(%b) <{axis = 1 : i32}> ({
  ^bb0(%acc: f32, %x: f32):
    %m = arith.maxnumf %acc, %x : f32
    tt.reduce.return %m : f32
  }) : (tensor<16x32xf32>) -> tensor<16xf32>
  %r1 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %op = tt.addptr %os, %r1 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %op, %r : tensor<16x!tt.ptr<f32>>
  tt.return
}

// A combine region without a neutral element (here acc - x, and a two-op
// one) along a short axis is seeded with the first slice and folds in the
// rest.
// CHECK-LABEL: func.func @reduce_without_neutral_element
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %arg0[0, 0] [16, 1] [1, 1] : tensor<16x4xf32> to tensor<16xf32>
// CHECK: %[[SEED:.*]] = linalg.copy ins(%[[FIRST]] : tensor<16xf32>)
// CHECK: %[[REST:.*]] = tensor.extract_slice %arg0[0, 1] [16, 3] [1, 1] : tensor<16x4xf32> to tensor<16x3xf32>
// (The short form lists the combine's operands init first: acc - x.)
// CHECK: linalg.reduce { arith.subf {fastmath = #arith.fastmath<reassoc>} } ins(%[[REST]] : tensor<16x3xf32>) outs(%[[SEED]] : tensor<16xf32>) dimensions = [1]
// CHECK: linalg.reduce ins(%[[REST]] : tensor<16x3xf32>) outs(%[[SEED]] : tensor<16xf32>) dimensions = [1]
// CHECK-NEXT: (%[[X:.*]]: f32, %[[ACC:.*]]: f32) {
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc>
// CHECK-NEXT: arith.mulf %[[S]], %[[X]] fastmath<reassoc>
tt.func public @reduce_without_neutral_element(%x: tensor<16x4xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %d = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%acc: f32, %v: f32):
    %s = arith.subf %acc, %v : f32
    tt.reduce.return %s : f32
  }) : (tensor<16x4xf32>) -> tensor<16xf32>
  %p = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    %t = arith.mulf %s, %v : f32
    tt.reduce.return %t : f32
  }) : (tensor<16x4xf32>) -> tensor<16xf32>
  tt.return %d, %p : tensor<16xf32>, tensor<16xf32>
}

// Along an axis of 8 or more (a power of two), such a reduction combines the
// lower half with the upper half elementwise until one slice is left (an
// argmax with its index here): each step vectorizes, where the fold is a
// scalar chain through the region.
// CHECK-LABEL: func.func @reduce_in_halves
// CHECK: %[[XL:.*]] = tensor.extract_slice %arg0[0] [16] [1] : tensor<32xf32> to tensor<16xf32>
// CHECK: %[[IL:.*]] = tensor.extract_slice %arg1[0] [16] [1] : tensor<32xi32> to tensor<16xi32>
// CHECK: %[[XU:.*]] = tensor.extract_slice %arg0[16] [16] [1] : tensor<32xf32> to tensor<16xf32>
// CHECK: %[[IU:.*]] = tensor.extract_slice %arg1[16] [16] [1] : tensor<32xi32> to tensor<16xi32>
// CHECK: %[[H:.*]]:2 = linalg.generic {{.*}} ins(%[[XL]], %[[IL]], %[[XU]], %[[IU]] : {{.*}}) outs({{.*}} : tensor<16xf32>, tensor<16xi32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[AI:.*]]: i32, %[[B:.*]]: f32, %[[BI:.*]]: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK-NEXT: arith.select %[[GT]], %[[A]], %[[B]] : f32
// CHECK-NEXT: arith.select %[[GT]], %[[AI]], %[[BI]] : i32
// CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<8xf32>, tensor<8xi32>)
// CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<4xf32>, tensor<4xi32>)
// CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<2xf32>, tensor<2xi32>)
// CHECK: %[[LAST:.*]]:2 = linalg.generic {{.*}} outs({{.*}} : tensor<1xf32>, tensor<1xi32>)
// CHECK: %[[V:.*]] = tensor.extract_slice %[[LAST]]#0[0] [1] [1] : tensor<1xf32> to tensor<f32>
// CHECK: tensor.extract %[[V]][] : tensor<f32>
// CHECK-NOT: linalg.reduce
tt.func public @reduce_in_halves(%x: tensor<32xf32>, %i: tensor<32xi32>) -> (f32, i32) {
  %v, %j = "tt.reduce"(%x, %i) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %r = arith.select %gt, %a, %b : f32
    %ri = arith.select %gt, %ai, %bi : i32
    tt.reduce.return %r, %ri : f32, i32
  }) : (tensor<32xf32>, tensor<32xi32>) -> (f32, i32)
  tt.return %v, %j : f32, i32
}

// A min/max by compare and select (torch inductor's triton_helpers.maximum
// and minimum) becomes the kind's one op, seeded with its neutral element:
// float with the NaN test -> maximumf from -inf; integer, the comparison
// either way round -> minsi from INT_MAX. A float select without the NaN
// test (NaN would not propagate) keeps its region (reduced in halves).
// CHECK-LABEL: func.func @reduce_by_compare_and_select
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK: %[[FSEED:.*]] = linalg.fill ins(%[[NINF]] : f32)
// CHECK: linalg.reduce { arith.maximumf } ins(%arg0 : tensor<4x64xf32>) outs(%[[FSEED]] : tensor<4xf32>) dimensions = [1]
// CHECK: %[[ISEED:.*]] = linalg.fill ins(%[[IMAX]] : i32)
// CHECK: linalg.reduce { arith.minsi } ins(%arg1 : tensor<64xi32>) outs(%[[ISEED]] : tensor<i32>) dimensions = [0]
// CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<4x32xf32>)
// CHECK: arith.cmpf ogt
// CHECK: arith.select
tt.func public @reduce_by_compare_and_select(%x: tensor<4x64xf32>, %i: tensor<64xi32>) -> (tensor<4xf32>, i32, tensor<4xf32>) {
  %m = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %nan = arith.cmpf une, %a, %a : f32
    %pick = arith.ori %gt, %nan : i1
    %r = arith.select %pick, %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<4x64xf32>) -> tensor<4xf32>
  %n = "tt.reduce"(%i) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    %lt = arith.cmpi slt, %b, %a : i32
    %r = arith.select %lt, %b, %a : i32
    tt.reduce.return %r : i32
  }) : (tensor<64xi32>) -> i32
  %k = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %r = arith.select %gt, %a, %b : f32
    tt.reduce.return %r : f32
  }) : (tensor<4x64xf32>) -> tensor<4xf32>
  tt.return %m, %n, %k : tensor<4xf32>, i32, tensor<4xf32>
}

// CHECK-LABEL: func.func @dot
// CHECK: linalg.matmul ins({{.*}} : tensor<16x8xf16>, tensor<8x32xf16>) outs({{.*}} : tensor<16x32xf32>)
tt.func public @dot(%a: tensor<16x8xf16>, %b: tensor<8x32xf16>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<16x8xf16> * tensor<8x32xf16> -> tensor<16x32xf32>
  tt.return %d : tensor<16x32xf32>
}
