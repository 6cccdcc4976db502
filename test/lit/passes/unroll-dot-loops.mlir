// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-unroll-dot-loops))' %s | FileCheck %s

// A K loop whose dot multiplies 128 x 32 by 32 x 128 bf16 tiles into the
// 64 KiB f32 block it carries: unrolled by 2 (64 K steps per iteration), two
// dots on the same accumulator one after the other, and a loop for the odd
// last iteration.
// CHECK-LABEL: func.func @bf16_k32
// CHECK: %[[MAIN:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xf32>)
// CHECK: %[[FIRST:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x32xbf16>, tensor<32x128xbf16>) outs(%[[ACC]] : tensor<128x128xf32>)
// CHECK: %[[SECOND:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x32xbf16>, tensor<32x128xbf16>) outs(%[[FIRST]] : tensor<128x128xf32>)
// CHECK: scf.yield %[[SECOND]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[MAIN]])
// CHECK-COUNT-1: linalg.matmul
// CHECK: return
func.func @bf16_k32(%n: index, %a: tensor<128x32xbf16>, %b: tensor<32x128xbf16>, %init: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<128x128xf32>) {
    %d = linalg.matmul ins(%a, %b : tensor<128x32xbf16>, tensor<32x128xbf16>) outs(%acc : tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}

// An int8 dot into the 64 KiB i32 block, 64 K steps deep (one tdpbssd per
// C tile): unrolled by 4 to max-k-int8's 256 K steps, with a loop for the
// iterations left over.
// CHECK-LABEL: func.func @i8_k64
// CHECK: %[[MAIN:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xi32>)
// CHECK: %[[D0:.*]] = linalg.matmul ins({{.*}} : tensor<128x64xi8>, tensor<64x128xi8>) outs(%[[ACC]] : tensor<128x128xi32>)
// CHECK: %[[D1:.*]] = linalg.matmul ins({{.*}}) outs(%[[D0]] : tensor<128x128xi32>)
// CHECK: %[[D2:.*]] = linalg.matmul ins({{.*}}) outs(%[[D1]] : tensor<128x128xi32>)
// CHECK: %[[D3:.*]] = linalg.matmul ins({{.*}}) outs(%[[D2]] : tensor<128x128xi32>)
// CHECK: scf.yield %[[D3]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[MAIN]])
// CHECK-COUNT-1: linalg.matmul
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @i8_k64(%n: index, %a: tensor<128x64xi8>, %b: tensor<64x128xi8>, %init: tensor<128x128xi32>) -> tensor<128x128xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<128x128xi32>) {
    %d = linalg.matmul ins(%a, %b : tensor<128x64xi8>, tensor<64x128xi8>) outs(%acc : tensor<128x128xi32>) -> tensor<128x128xi32>
    scf.yield %d : tensor<128x128xi32>
  }
  return %r : tensor<128x128xi32>
}

// Left alone: a 32 KiB accumulator (it stays in L1), a dot already 64 K
// steps deep, an fp32 dot (no AMX tiles), and a dot whose result is not what
// the loop carries; int8 dots of 32 K steps (less than a tile's 64) or
// into a 32 KiB accumulator.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-6: linalg.matmul
// CHECK-NOT: linalg.matmul
func.func @left_alone(%n: index, %a: tensor<64x32xbf16>, %b: tensor<32x128xbf16>, %i64: tensor<64x128xf32>,
                      %a2: tensor<128x64xbf16>, %b2: tensor<64x128xbf16>, %i128: tensor<128x128xf32>,
                      %af: tensor<128x32xf32>, %bf: tensor<32x128xf32>,
                      %ab: tensor<128x32xbf16>, %bb: tensor<32x128xbf16>,
                      %a8: tensor<128x32xi8>, %b8: tensor<32x128xi8>, %i8acc: tensor<128x128xi32>,
                      %s8: tensor<64x64xi8>, %t8: tensor<64x128xi8>, %i8small: tensor<64x128xi32>) -> (tensor<64x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xi32>, tensor<64x128xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r0 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %i64) -> (tensor<64x128xf32>) {
    %d = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x128xbf16>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %r1 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %i128) -> (tensor<128x128xf32>) {
    %d = linalg.matmul ins(%a2, %b2 : tensor<128x64xbf16>, tensor<64x128xbf16>) outs(%acc : tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %r2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %i128) -> (tensor<128x128xf32>) {
    %d = linalg.matmul ins(%af, %bf : tensor<128x32xf32>, tensor<32x128xf32>) outs(%acc : tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %r3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %i128) -> (tensor<128x128xf32>) {
    %d = linalg.matmul ins(%ab, %bb : tensor<128x32xbf16>, tensor<32x128xbf16>) outs(%i128 : tensor<128x128xf32>) -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %r4 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %i8acc) -> (tensor<128x128xi32>) {
    %d = linalg.matmul ins(%a8, %b8 : tensor<128x32xi8>, tensor<32x128xi8>) outs(%acc : tensor<128x128xi32>) -> tensor<128x128xi32>
    scf.yield %d : tensor<128x128xi32>
  }
  %r5 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %i8small) -> (tensor<64x128xi32>) {
    %d = linalg.matmul ins(%s8, %t8 : tensor<64x64xi8>, tensor<64x128xi8>) outs(%acc : tensor<64x128xi32>) -> tensor<64x128xi32>
    scf.yield %d : tensor<64x128xi32>
  }
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<64x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xi32>, tensor<64x128xi32>
}
