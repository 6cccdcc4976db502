// Found by tools/fuzz_pipeline.py: MLIR 22's parser truncates the positions of llvm.insertvalue
// and llvm.extractvalue to 32 bits before checking them against the aggregate, and segfaults on
// one of 2^32 or more (a mutated memref descriptor of a load view). spine_triton._C and
// spine-triton-opt report it before parsing (cpp/parser/ParserGuards.h); a position in range
// but past the aggregate is the parser's own error.
// RUN: %expect_exit 1 %python %S/../helpers/run_stage.py --split-input-file %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt --split-input-file %s 2>&1 | FileCheck %s --check-prefix=OPT

// CHECK: <input>:[[# @LINE + 4]]:32: error: position out of range in 'llvm.insertvalue'
// OPT: value-position-out-of-range.mlir:[[# @LINE + 3]]:32: error: position out of range in 'llvm.insertvalue'
func.func @insert(%d: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, %v: i64)
    -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> {
  %0 = llvm.insertvalue %v, %d[4294967296, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  return %0 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
}

// -----

// CHECK: <input>:{{[0-9]+}}:29: error: position out of range in 'llvm.extractvalue'
// OPT: value-position-out-of-range.mlir:[[# @LINE + 2]]:29: error: position out of range in 'llvm.extractvalue'
func.func @extract(%d: !llvm.struct<(ptr, i64)>) -> i64 {
  %0 = llvm.extractvalue %d[18446744073709551616] : !llvm.struct<(ptr, i64)>
  return %0 : i64
}

// -----

// CHECK: error: custom op 'llvm.extractvalue' position out of bounds: 7
// OPT: error: custom op 'llvm.extractvalue' position out of bounds: 7
func.func @past_the_end(%d: !llvm.struct<(ptr, i64)>) -> i64 {
  %0 = llvm.extractvalue %d[7] : !llvm.struct<(ptr, i64)>
  return %0 : i64
}

// -----

// CHECK: llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr, i64)>
// OPT: llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr, i64)>
func.func @valid(%d: !llvm.struct<(ptr, i64)>) -> i64 {
  %0 = llvm.extractvalue %d[1] : !llvm.struct<(ptr, i64)>
  return %0 : i64
}
