// RUN: spine-triton-opt --triton-to-linalg-experimental %s | spine-triton-opt --pass-pipeline='builtin.module(spine-triton-pipeline{vector-bits=512 vector-registers=32 bf16-dot-product=1 amx-tiles=1})' | mlir-translate --mlir-to-llvmir | llc -O3 -mtriple=x86_64-linux-gnu -mattr=+avx512f,+avx512bw,+avx512vl,+avx512bf16,+amx-tile,+amx-bf16 | FileCheck %s

// tl.dot of 32 x 64 by 64 x 32 bf16 tiles into f32 on a target with AMX-BF16,
// through both pipelines to x86 assembly: the branches that carry C's tiles
// across the K loop lower to LLVM (their type is the AMX dialect's), LLVM
// configures the tile registers once (ldtilecfg), C's tiles start at zero
// (the dot has no accumulator: no zero-filled buffer is loaded, no memset)
// and the K loop loads two A and two B tiles and issues four tile products,
// with no vector dot left. The tiles are released before the kernel returns.
// CHECK-LABEL: dot_bf16:
// CHECK-NOT: vdpbf16ps
// CHECK: ldtilecfg
// CHECK-NOT: memset
// CHECK-DAG: tilestored %tmm0
// CHECK-DAG: tilestored %tmm1
// CHECK-DAG: tilestored %tmm2
// CHECK-DAG: tilestored %tmm3
// CHECK-DAG: tilezero %tmm0
// CHECK-DAG: tilezero %tmm1
// CHECK-DAG: tilezero %tmm2
// CHECK-DAG: tilezero %tmm3
// CHECK: tileloadd {{.*}}, %tmm4
// CHECK: tileloadd {{.*}}, %tmm5
// CHECK: tileloadd {{.*}}, %tmm6
// CHECK: tileloadd {{.*}}, %tmm7
// CHECK-NEXT: tdpbf16ps %tmm6, %tmm4, %tmm{{[0-3]}}
// CHECK-NEXT: tdpbf16ps %tmm7, %tmm4, %tmm{{[0-3]}}
// CHECK-NEXT: tdpbf16ps %tmm6, %tmm5, %tmm{{[0-3]}}
// CHECK-NEXT: tdpbf16ps %tmm7, %tmm5, %tmm{{[0-3]}}
// CHECK-NOT: tileloadd
// CHECK: tilerelease
// CHECK-NOT: vdpbf16ps

module {
  tt.func public @dot_bf16(%arg0: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<32> : tensor<32x1xi32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
    %cst_1 = arith.constant dense<32> : tensor<64x1xi32>
    %cst_2 = arith.constant dense<64> : tensor<32x1xi32>
    %0 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %2 = tt.expand_dims %0 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %3 = arith.muli %2, %cst_2 : tensor<32x1xi32>
    %4 = tt.splat %arg0 : !tt.ptr<bf16> -> tensor<32x1x!tt.ptr<bf16>>
    %5 = tt.addptr %4, %3 : tensor<32x1x!tt.ptr<bf16>>, tensor<32x1xi32>
    %6 = tt.expand_dims %1 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %7 = tt.broadcast %5 : tensor<32x1x!tt.ptr<bf16>> -> tensor<32x64x!tt.ptr<bf16>>
    %8 = tt.broadcast %6 : tensor<1x64xi32> -> tensor<32x64xi32>
    %9 = tt.addptr %7, %8 : tensor<32x64x!tt.ptr<bf16>>, tensor<32x64xi32>
    %10 = tt.load %9 : tensor<32x64x!tt.ptr<bf16>>
    %11 = tt.expand_dims %1 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %12 = arith.muli %11, %cst_1 : tensor<64x1xi32>
    %13 = tt.splat %arg1 : !tt.ptr<bf16> -> tensor<64x1x!tt.ptr<bf16>>
    %14 = tt.addptr %13, %12 : tensor<64x1x!tt.ptr<bf16>>, tensor<64x1xi32>
    %15 = tt.expand_dims %0 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %16 = tt.broadcast %14 : tensor<64x1x!tt.ptr<bf16>> -> tensor<64x32x!tt.ptr<bf16>>
    %17 = tt.broadcast %15 : tensor<1x32xi32> -> tensor<64x32xi32>
    %18 = tt.addptr %16, %17 : tensor<64x32x!tt.ptr<bf16>>, tensor<64x32xi32>
    %19 = tt.load %18 : tensor<64x32x!tt.ptr<bf16>>
    %20 = tt.dot %10, %19, %cst_0, inputPrecision = tf32 : tensor<32x64xbf16> * tensor<64x32xbf16> -> tensor<32x32xf32>
    %21 = arith.muli %2, %cst : tensor<32x1xi32>
    %22 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
    %23 = tt.addptr %22, %21 : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
    %24 = tt.broadcast %23 : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
    %25 = tt.broadcast %15 : tensor<1x32xi32> -> tensor<32x32xi32>
    %26 = tt.addptr %24, %25 : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    tt.store %26, %20 : tensor<32x32x!tt.ptr<f32>>
    tt.return
  }
}

