// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s
// RUN: spine-triton-opt --triton-to-linalg-experimental --spine-triton-pipeline %s | FileCheck %s --check-prefix=LLVM

// A forward scan: a loop over the axis from 1 whose iter_arg starts as the
// source (the load, a view of memory: its offsets cannot wrap); step k overwrites
// element k with combine(result[k-1], element k).
// CHECK-LABEL: func.func @cumsum
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[SRC:.*]] = bufferization.to_tensor
// CHECK: %[[RES:.*]] = scf.for %[[K:.*]] = %[[C1]] to %[[C16]] step %[[C1]] iter_args(%[[R:.*]] = %[[SRC]]) -> (tensor<16xi32>) {
// CHECK:   %[[PREV:.*]] = arith.subi %[[K]], %[[C1]] : index
// CHECK:   %[[ACC:.*]] = tensor.extract %[[R]][%[[PREV]]] : tensor<16xi32>
// CHECK:   %[[X:.*]] = tensor.extract %[[R]][%[[K]]] : tensor<16xi32>
// CHECK:   %[[SUM:.*]] = arith.addi %[[ACC]], %[[X]] : i32
// CHECK:   %[[INS:.*]] = tensor.insert %[[SUM]] into %[[R]][%[[K]]] : tensor<16xi32>
// CHECK:   scf.yield %[[INS]] : tensor<16xi32>
// CHECK: tensor.extract %[[RES]]
// A scan keeps everything in one buffer: no allocation or slice copy in
// the loop, and no runtime-library copy. The buffer is small: it lives on
// the stack (spine-stack-buffers), no malloc at all.
// LLVM-LABEL: llvm.func @cumsum
// LLVM-NOT: memrefCopy
// LLVM: llvm.alloca
// LLVM-NOT: llvm.call @malloc
// LLVM-NOT: llvm.alloca
// LLVM: llvm.return
tt.func public @cumsum(%in: !tt.ptr<i32>, %out: !tt.ptr<i32>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ip = tt.splat %in : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %ipp = tt.addptr %ip, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  %x = tt.load %ipp : tensor<16x!tt.ptr<i32>>
  %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: i32, %b: i32):
    %m = arith.addi %a, %b : i32
    tt.scan.return %m : i32
  }) : (tensor<16xi32>) -> tensor<16xi32>
  %op = tt.splat %out : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %opp = tt.addptr %op, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  tt.store %opp, %s : tensor<16x!tt.ptr<i32>>
  tt.return
}

// A reverse scan walks the axis backwards: pos = 15 - k, prev = 16 - k. The
// combine region is called as combine(accumulator, next element), so a
// non-commutative combine keeps its operand order.
// CHECK-LABEL: func.func @reverse_sub
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C15:.*]] = arith.constant 15 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[K:.*]] = %[[C1]] to %[[C16]] step %[[C1]] iter_args(%[[R:.*]] = %{{.*}}) -> (tensor<16xf32>) {
// CHECK:   %[[POS:.*]] = arith.subi %[[C15]], %[[K]] : index
// CHECK:   %[[PREV:.*]] = arith.subi %[[C16]], %[[K]] : index
// CHECK:   %[[ACC:.*]] = tensor.extract %[[R]][%[[PREV]]]
// CHECK:   %[[X:.*]] = tensor.extract %[[R]][%[[POS]]]
// CHECK:   %[[D:.*]] = arith.subf %[[ACC]], %[[X]] : f32
// CHECK:   tensor.insert %[[D]] into %[[R]][%[[POS]]]
tt.func public @reverse_sub(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %ipp = tt.addptr %ip, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  %x = tt.load %ipp : tensor<16x!tt.ptr<f32>>
  %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.subf %a, %b : f32
    tt.scan.return %m : f32
  }) : (tensor<16xf32>) -> tensor<16xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %opp = tt.addptr %op, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %opp, %s : tensor<16x!tt.ptr<f32>>
  tt.return
}

// Two operands scanned together along axis 0 of a 2-D block: the axis loop
// is outermost, an inner loop walks the other dimension, and both results
// are iter_args updated at [k, j] from [k-1, j].
// CHECK-LABEL: func.func @two_value_axis0
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%[[V:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}}) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
// CHECK:   %[[PREV:.*]] = arith.subi %[[K]]
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %[[C8]] step %{{.*}} iter_args(%[[V2:.*]] = %[[V]], %[[I2:.*]] = %[[I]]) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
// CHECK:     %[[AV:.*]] = tensor.extract %[[V2]][%[[PREV]], %[[J]]]
// CHECK:     %[[XV:.*]] = tensor.extract %[[V2]][%[[K]], %[[J]]]
// CHECK:     %[[AI:.*]] = tensor.extract %[[I2]][%[[PREV]], %[[J]]]
// CHECK:     %[[XI:.*]] = tensor.extract %[[I2]][%[[K]], %[[J]]]
// CHECK:     %[[GT:.*]] = arith.cmpf ogt, %[[XV]], %[[AV]] : f32
// CHECK:     %[[MV:.*]] = arith.select %[[GT]], %[[XV]], %[[AV]] : f32
// CHECK:     %[[MI:.*]] = arith.select %[[GT]], %[[XI]], %[[AI]] : i32
// CHECK:     %[[NV:.*]] = tensor.insert %[[MV]] into %[[V2]][%[[K]], %[[J]]]
// CHECK:     %[[NI:.*]] = tensor.insert %[[MI]] into %[[I2]][%[[K]], %[[J]]]
// CHECK:     scf.yield %[[NV]], %[[NI]]
// LLVM-LABEL: llvm.func @two_value_axis0
// LLVM-NOT: memrefCopy
// LLVM: llvm.return
tt.func public @two_value_axis0(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>, %idx: !tt.ptr<i32>) {
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %c = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %c8 = arith.constant dense<8> : tensor<4x1xi32>
  %rs = arith.muli %r2, %c8 : tensor<4x1xi32>
  %rb = tt.broadcast %rs : tensor<4x1xi32> -> tensor<4x8xi32>
  %rowb = tt.broadcast %r2 : tensor<4x1xi32> -> tensor<4x8xi32>
  %cb = tt.broadcast %c2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %off = arith.addi %rb, %cb : tensor<4x8xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
  %ipp = tt.addptr %ip, %off : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
  %x = tt.load %ipp : tensor<4x8x!tt.ptr<f32>>
  %s:2 = "tt.scan"(%x, %rowb) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%av: f32, %ai: i32, %xv: f32, %xi: i32):
    %gt = arith.cmpf ogt, %xv, %av : f32
    %mv = arith.select %gt, %xv, %av : f32
    %mi = arith.select %gt, %xi, %ai : i32
    tt.scan.return %mv, %mi : f32, i32
  }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>)
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
  %opp = tt.addptr %op, %off : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
  tt.store %opp, %s#0 : tensor<4x8x!tt.ptr<f32>>
  %xp = tt.splat %idx : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
  %xpp = tt.addptr %xp, %off : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
  tt.store %xpp, %s#1 : tensor<4x8x!tt.ptr<i32>>
  tt.return
}

// The middle axis of a 3-D block: the axis index sits between the indices of
// the two loops across it.
// CHECK-LABEL: func.func @axis1_of_3d
// CHECK: scf.for %[[K:[^ ]*]] = {{.*}} -> (tensor<2x4x8xf32>) {
// CHECK:   %[[PREV:.*]] = arith.subi %[[K]]
// CHECK:   scf.for %[[A:[^ ]*]] = {{.*}} -> (tensor<2x4x8xf32>) {
// CHECK:     scf.for %[[B:[^ ]*]] = {{.*}} -> (tensor<2x4x8xf32>) {
// CHECK:       tensor.extract %{{.*}}[%[[A]], %[[PREV]], %[[B]]]
// CHECK:       tensor.extract %{{.*}}[%[[A]], %[[K]], %[[B]]]
// CHECK:       arith.mulf
// CHECK:       tensor.insert %{{.*}} into %{{.*}}[%[[A]], %[[K]], %[[B]]]
tt.func public @axis1_of_3d(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ip = tt.splat %in : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %ipp = tt.addptr %ip, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %flat = tt.load %ipp : tensor<64x!tt.ptr<f32>>
  %x = tt.reshape %flat : tensor<64xf32> -> tensor<2x4x8xf32>
  %s = "tt.scan"(%x) <{axis = 1 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    tt.scan.return %m : f32
  }) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %y = tt.reshape %s : tensor<2x4x8xf32> -> tensor<64xf32>
  %op = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %opp = tt.addptr %op, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.store %opp, %y : tensor<64x!tt.ptr<f32>>
  tt.return
}
