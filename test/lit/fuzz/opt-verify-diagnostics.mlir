// spine-triton-opt reports the inputs MLIR 22's parser mishandles (cpp/parser/ParserGuards.h) and
// inherent attributes of the wrong kind (cpp/parser/InherentAttributes.h) as ordinary diagnostics:
// -verify-diagnostics expects them, chunk by chunk, and the other chunks run as before.
// RUN: spine-triton-opt --split-input-file --verify-diagnostics %s | FileCheck %s

tt.func @trans(%t: tensor<2x16xf32>) -> tensor<16x2xf32> {
  // expected-error @below {{dense arrays of 'index' are not supported}}
  %0 = tt.trans %t {order = array<index: 1, 0>} : tensor<2x16xf32> -> tensor<16x2xf32>
  tt.return %0 : tensor<16x2xf32>
}

// -----

func.func @reduce(%a: tensor<4x8xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{expected a list of 64-bit integers for 'dimensions' of 'linalg.reduce'}}
  %r = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%o : tensor<4xf32>) dimensions = [0x10000000000000000]
  return %r : tensor<4xf32>
}

// -----

// expected-error @below {{'llvm.mlir.global' op attribute 'addr_space' is not of the kind the op takes}}
llvm.mlir.global internal constant @s("x\00") {addr_space = i32}

// -----

// The verifier still runs on what the checks let through.
// expected-error @below {{'tt.make_range' op end (4) must be greater than start (8)}}
%0 = tt.make_range {end = 4 : i32, start = 8 : i32} : tensor<4xi32>

// -----

// CHECK-LABEL: tt.func @valid
// CHECK: tt.trans %{{.*}} {order = array<i32: 1, 0>}
tt.func @valid(%t: tensor<2x16xf32>) -> tensor<16x2xf32> {
  %0 = tt.trans %t {order = array<i32: 1, 0>} : tensor<2x16xf32> -> tensor<16x2xf32>
  tt.return %0 : tensor<16x2xf32>
}
