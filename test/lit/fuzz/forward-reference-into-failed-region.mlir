// Found by tools/fuzz_pipeline.py: a use of %in before any definition (a forward reference) that
// MLIR's parser resolves to a block argument of a later op's region; that op then fails to parse
// (a block defined twice), its region is freed, and cleaning up the earlier use wrote to freed
// memory, corrupting the heap of the process (an abort in some later malloc). spine_triton._C
// and spine-triton-opt reject such forward references before parsing (cpp/parser/ParserGuards.h).
// RUN: %expect_exit 1 %python %S/../helpers/run_stage.py %s 2>&1 | FileCheck %s
// RUN: %expect_exit 1 spine-triton-opt %s 2>&1 | FileCheck %s --check-prefix=OPT

// CHECK: <input>:[[# @LINE + 7]]:20: error: use of value '%in' before its definition, which is in a region that does not enclose the use
// OPT: forward-reference-into-failed-region.mlir:[[# @LINE + 6]]:20: error: use of value '%in' before its definition, which is in a region that does not enclose the use
#map = affine_map<(d0) -> (d0)>
func.func @f(%arg0: tensor<128xi32>) {
  %1 = tensor.empty() : tensor<128xi32>
  %2 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%1 : tensor<128xi32>) {
  ^bb0(%out: i32):
      linalg.yield %in : i32
  } -> tensor<128xi32>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%2 : tensor<128xi32>) outs(%1 : tensor<128xi32>) {
  ^bb0(%in: i32, %out: i32):
  ^bb0(%in2: f32, %out2: i32):
    linalg.yield %in : i32
  } -> tensor<128xi32>
  return
}
