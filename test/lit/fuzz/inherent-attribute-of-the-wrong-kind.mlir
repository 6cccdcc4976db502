// Found by tools/fuzz_pipeline.py: an inherent attribute of the wrong kind in a custom form's
// attribute dictionary (`{addr_space = i32}`: a type where an integer belongs) leaves the op's
// property null; the verifier took it for the default, and llvm.mlir.addressof's symbol verifier
// read the null attribute and segfaulted. spine_triton._C and spine-triton-opt report such
// attributes after parsing, before verifying (cpp/parser/InherentAttributes.h).
// RUN: %expect_exit 1 %python %S/../helpers/run_stage.py --split-input-file %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt --split-input-file %s 2>&1 | FileCheck %s --check-prefix=OPT

// CHECK: <input>:[[# @LINE + 3]]:3: error: 'llvm.mlir.global' op attribute 'addr_space' is not of the kind the op takes
// OPT: inherent-attribute-of-the-wrong-kind.mlir:[[# @LINE + 2]]:3: error: 'llvm.mlir.global' op attribute 'addr_space' is not of the kind the op takes
module {
  llvm.mlir.global internal constant @s("x\00") {addr_space = i32}
  llvm.func @f() -> !llvm.ptr {
    %0 = llvm.mlir.addressof @s : !llvm.ptr
    llvm.return %0 : !llvm.ptr
  }
}

// -----

// CHECK: error: 'llvm.mlir.global' op attribute 'addr_space' is not of the kind the op takes
// OPT: inherent-attribute-of-the-wrong-kind.mlir:[[# @LINE + 1]]:1: error: 'llvm.mlir.global' op attribute 'addr_space' is not of the kind the op takes
llvm.mlir.global internal constant @t("x\00") {addr_space = "one"}

// -----

// The right kind parses, verifies and prints as before.
// CHECK: llvm.mlir.global internal constant @u("x\00") {addr_space = 0 : i32}
// OPT: llvm.mlir.global internal constant @u("x\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @u("x\00") {addr_space = 0 : i32}
