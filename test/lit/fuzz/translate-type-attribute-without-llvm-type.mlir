// Found by tools/fuzz_pipeline.py: a mutated element type of llvm.getelementptr (f8E5M2, which
// the LLVM dialect's verifier accepts in a type attribute) crashed MLIR 22's translation to LLVM
// IR, which gets no LLVM type for it. spine_triton._C reports the attribute on its op instead.
// RUN: %expect_exit 1 %python %S/../helpers/run_stage.py --translate --split-input-file %s 2>&1 | FileCheck %s

// CHECK: <input>:[[# @LINE + 2]]:8: error: 'elem_type' has no LLVM IR type: 'f8E5M2'
llvm.func @gep(%p: !llvm.ptr, %i: i64) -> !llvm.ptr {
  %0 = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f8E5M2
  llvm.return %0 : !llvm.ptr
}

// -----

// CHECK: <input>:{{[0-9]+}}:8: error: 'elem_type' has no LLVM IR type: 'f8E4M3FN'
llvm.func @alloca(%n: i64) -> !llvm.ptr {
  %0 = llvm.alloca %n x f8E4M3FN : (i64) -> !llvm.ptr
  llvm.return %0 : !llvm.ptr
}

// -----

// A type LLVM has translates.
// CHECK: getelementptr half, ptr %0, i64 %1
llvm.func @ok(%p: !llvm.ptr, %i: i64) -> !llvm.ptr {
  %0 = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  llvm.return %0 : !llvm.ptr
}
